//! Integration tests of safeplan-bench, one binary for the crate.

mod report;
