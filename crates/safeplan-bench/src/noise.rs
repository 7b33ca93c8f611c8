//! Irrelevant actions and objects added to a suite (being written).
