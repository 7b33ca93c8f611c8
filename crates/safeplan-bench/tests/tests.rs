//! Integration tests of safeplan-bench: one binary, one module per area.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod abilities;
mod report;
mod runner;
mod synth;
