//! Integration tests of safeplan-bench, one module per area.

mod synth;
