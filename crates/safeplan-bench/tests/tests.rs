//! safeplan-bench's integration tests, one binary.

mod abilities;
