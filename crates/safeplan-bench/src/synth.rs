//! Synthetic DESPITE-shaped suites (being written).
