//! The one integration-test binary of safeplan-search: each module is a family of tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod brute;
mod constrained;
mod costs;
mod demo;
mod ipc;
mod numeric_rules;
mod semantics;
mod suite;

use safeplan_pddl::{Domain, Plan, Problem, parse_domain, parse_plan, parse_problem};
use safeplan_search::Outcome;
use safeplan_validate::Task;

pub use safeplan_testkit::data_dir;

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
