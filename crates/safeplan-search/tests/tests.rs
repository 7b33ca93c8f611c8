//! The one integration-test binary of safeplan-search: each module is a family of tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod brute;
mod demo;
mod ipc;
mod semantics;

use std::path::PathBuf;

use safeplan_pddl::{Domain, Plan, Problem, parse_domain, parse_plan, parse_problem};
use safeplan_search::Outcome;
use safeplan_validate::Task;

/// The shared reference data (`../shared/data` beside the repository, or `$SAFEPLAN_DATA`).
///
/// `None` means "skip": the data is not on this machine. Under `CI=true` a missing corpus is
/// a failure, not a skip, so CI can never pass by not looking.
#[allow(clippy::print_stderr)] // a skipped corpus must be visible in the test output
pub fn data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SAFEPLAN_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.join("ipc/manifest.jsonl").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "reference data not found at {} (set SAFEPLAN_DATA); under CI=true this is a failure",
            dir.display()
        );
    }
    eprintln!("skipping: reference data not found at {}", dir.display());
    None
}

/// Parse a domain that must parse.
pub fn domain(text: &str) -> Domain {
    let parsed = parse_domain(text);
    parsed
        .value
        .unwrap_or_else(|| panic!("domain: {:?}", parsed.diagnostics))
}

/// Parse a problem that must parse.
pub fn problem(text: &str) -> Problem {
    let parsed = parse_problem(text);
    parsed
        .value
        .unwrap_or_else(|| panic!("problem: {:?}", parsed.diagnostics))
}

/// Compile a task that must compile.
pub fn task(d: &str, p: &str) -> Task {
    Task::compile(&domain(d), &problem(p)).expect("task compiles")
}

/// A plan's steps as a `Plan` for the validator.
pub fn as_plan(steps: &[String]) -> Plan {
    parse_plan(&steps.join("\n"))
        .value
        .expect("the planner writes readable plans")
}

/// The plan of a search that must have found one.
pub fn found(outcome: &Outcome) -> &[String] {
    match outcome {
        Outcome::Found { plan } => plan,
        other => panic!("expected a plan, got {other:?}"),
    }
}
