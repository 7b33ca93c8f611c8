//! The IPC corpus: greedy search with a state limit on every problem, and every plan found
//! valid for the validator (which agrees with VAL on this corpus). The limit is a number of
//! states, not a time, so the outcome is the same on every machine.

use std::collections::BTreeSet;

use safeplan_search::{Algorithm, GroundOptions, Limits, Outcome, Planner, SearchOptions};
use safeplan_validate::Task;

use crate::{as_plan, data_dir, domain, problem};

/// States per problem: enough for most of the corpus at test-profile speed.
const MAX_STATES: usize = 20_000;

/// Problems solved within [`MAX_STATES`] when this test was written; fewer is a regression.
const SOLVED_AT_LEAST: usize = 61;

#[test]
#[allow(clippy::print_stderr)] // the coverage summary is worth seeing in the test output
fn greedy_search_plans_validate_on_the_ipc_corpus() {
    let Some(data) = data_dir() else { return };
    let ipc = data.join("ipc");
    let manifest = std::fs::read_to_string(ipc.join("manifest.jsonl")).unwrap();
    let problems: BTreeSet<(String, String)> = manifest
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            Some((
                v["domain"].as_str()?.to_string(),
                v["problem"].as_str()?.to_string(),
            ))
        })
        .collect();
    assert_eq!(problems.len(), 111);
    let (mut solved, mut limited) = (Vec::new(), Vec::new());
    for (d, p) in &problems {
        let read = |f: &str| std::fs::read_to_string(ipc.join(f)).unwrap();
        let task = Task::compile(&domain(&read(d)), &problem(&read(p))).unwrap();
        let planner =
            Planner::new(&task, &GroundOptions::default()).unwrap_or_else(|e| panic!("{p}: {e}"));
        let result = planner.plan(&SearchOptions {
            algorithm: Algorithm::Gbfs,
            limits: Limits {
                max_states: Some(MAX_STATES),
                ..Limits::default()
            },
        });
        match &result.outcome {
            Outcome::Found { plan } => {
                let verdict = task.validate(&as_plan(plan));
                assert!(verdict.valid, "{p}: invalid plan: {:?}", verdict.failure);
                solved.push(p.clone());
            }
            // Every corpus problem has a valid plan: "unsolvable" would be a wrong proof.
            Outcome::Unsolvable => panic!("{p}: claimed unsolvable, but the corpus has a plan"),
            Outcome::LimitReached { .. } => limited.push(p.clone()),
            Outcome::Rejected { plan, reason } => {
                panic!("{p}: the planner's plan {plan:?} fails the validator: {reason}")
            }
        }
    }
    eprintln!(
        "ipc: {} of {} solved within {MAX_STATES} states; not solved: {limited:?}",
        solved.len(),
        problems.len()
    );
    assert!(
        solved.len() >= SOLVED_AT_LEAST,
        "only {} solved; not solved: {limited:?}",
        solved.len()
    );
}
