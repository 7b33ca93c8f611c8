//! Reports over a results store (being written).
