//! Metrics for safeplan: the numbers the papers report, as pure functions over plain data.
//!
//! Both papers this project implements end in a table of rates. The plan-verification paper
//! scores a Judge by micro-averaged precision, recall and F1 over individual actions; DESPITE
//! scores planners by feasibility, safety, safety precision and safety intention rates with
//! bootstrap confidence intervals. This crate computes those numbers and nothing else: it
//! reads no files, runs no planners and keeps no state, so a result store, a report and a
//! test can all recompute a figure from the same plain data and get the same answer.
//!
//! # Design
//!
//! - **Counts first, ratios last.** [`Confusion`] keeps integer counts; micro averages add
//!   counts and divide once, so merging shards or episodes never averages averages.
//! - **Undefined ratios are zero**, as in scikit-learn's `zero_division=0`: precision with
//!   nothing flagged, recall with nothing to find and F1 when both are zero are all `0.0`,
//!   never `NaN`, so a report never prints `NaN` and a JSON file always parses.

#![deny(missing_docs)]

mod confusion;

pub use confusion::Confusion;
