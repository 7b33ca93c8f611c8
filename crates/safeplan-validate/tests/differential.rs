//! The engine against the reference interpreter on random tasks (`gen.rs`): the same
//! validity, failure kind and step, metric, and (for valid plans and goal failures) the same
//! final atoms and fluents. Once with the default compile options, once forcing the sparse
//! state representation (`dense_limit: 0`).
//!
//! 512 cases each by default; set `PROPTEST_CASES` to run more or fewer.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{CompileOptions, Task, ValidateOptions, Validator};

use crate::r#gen::task;
use crate::reference;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Compile the task (with `options`, or `Task::compile`) and compare every plan's verdict
/// with the reference interpreter's.
fn same_verdicts(
    domain_text: &str,
    problem_text: &str,
    plans: &[String],
    options: Option<&CompileOptions>,
) -> Result<(), TestCaseError> {
    let domain = parse_domain(domain_text)
        .value
        .expect("generated domains parse");
    let problem = parse_problem(problem_text)
        .value
        .expect("generated problems parse");
    let compiled = match options {
        Some(o) => Task::compile_with(&domain, &problem, o),
        None => Task::compile(&domain, &problem),
    };
    let task = match compiled {
        Ok(task) => task,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "the task does not compile: {e}"
            )));
        }
    };
    let validate = ValidateOptions {
        keep_final_state: true,
        ..Default::default()
    };
    for plan_text in plans {
        let plan = parse_plan(plan_text)
            .value
            .expect("plan reading always gives a plan");
        let want = reference::run(&domain, &problem, &plan);
        let got = task.validate_with(&plan, &validate);
        let got_kind = got.failure.as_ref().map(|f| f.kind.as_str());
        let got_step = got.failure.as_ref().and_then(|f| f.step);
        let context = format!(
            "plan:\n{plan_text}reference: valid={} kind={:?} step={:?} metric={:?}\nengine:    valid={} kind={got_kind:?} step={got_step:?} metric={:?}",
            want.valid, want.kind, want.step, want.metric, got.valid, got.metric
        );
        prop_assert_eq!(got.valid, want.valid, "validity differs\n{}", context);
        prop_assert_eq!(
            Validator::new(&task, ValidateOptions::default()).is_valid(&plan),
            want.valid,
            "the quiet validity check differs\n{}",
            context
        );
        prop_assert_eq!(got_kind, want.kind, "failure kind differs\n{}", context);
        prop_assert_eq!(got_step, want.step, "failure step differs\n{}", context);
        if want.valid {
            let metric_agrees = match (got.metric, want.metric) {
                (Some(a), Some(b)) => close(a, b),
                (None, None) => true,
                _ => false,
            };
            prop_assert!(metric_agrees, "metric differs\n{}", context);
        }
        if want.valid || want.kind == Some("unsatisfied_goal") {
            let Some(state) = &got.final_state else {
                return Err(TestCaseError::fail(format!(
                    "the engine kept no final state\n{context}"
                )));
            };
            let mut atoms = state.atoms.clone();
            atoms.sort();
            prop_assert_eq!(&atoms, &want.atoms, "final atoms differ\n{}", context);
            let mut fluents = state.fluents.clone();
            fluents.sort_by(|a, b| a.0.cmp(&b.0));
            let names: Vec<&String> = fluents.iter().map(|(n, _)| n).collect();
            let want_names: Vec<&String> = want.fluents.iter().map(|(n, _)| n).collect();
            prop_assert_eq!(names, want_names, "defined fluents differ\n{}", context);
            for ((name, a), (_, b)) in fluents.iter().zip(&want.fluents) {
                prop_assert!(
                    close(*a, *b),
                    "fluent {} is {} for the engine, {} for the reference\n{}",
                    name,
                    a,
                    b,
                    context
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The engine agrees with the reference interpreter on random tasks and plans.
    #[test]
    fn engine_agrees_with_reference((domain, problem, plans) in task()) {
        same_verdicts(&domain, &problem, &plans, None)?;
    }

    /// The same with every state kept sparse.
    #[test]
    fn sparse_engine_agrees_with_reference((domain, problem, plans) in task()) {
        let options = CompileOptions {
            dense_limit: 0,
            ..Default::default()
        };
        same_verdicts(&domain, &problem, &plans, Some(&options))?;
    }
}
