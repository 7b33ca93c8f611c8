//! The temporal engine against the temporal reference interpreter (`safeplan-testkit`'s
//! `temporal`) on random small durative tasks and timed plans (`gen_temporal`): the same
//! validity, failure kind, step and time, total time, and final atoms.
//!
//! 512 cases by default; set `PROPTEST_CASES` to run more or fewer.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_testkit::{gen_temporal, temporal};
use safeplan_validate::{Task, ValidateOptions};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9
}

fn same(
    domain_text: &str,
    problem_text: &str,
    plans: &[String],
    tolerance: f64,
) -> Result<(), TestCaseError> {
    let domain = parse_domain(domain_text)
        .value
        .expect("generated domains parse");
    let problem = parse_problem(problem_text)
        .value
        .expect("generated problems parse");
    let task = Task::compile(&domain, &problem)
        .map_err(|e| TestCaseError::fail(format!("the task does not compile: {e}")))?;
    let options = ValidateOptions {
        keep_final_state: true,
        tolerance: Some(tolerance),
        ..ValidateOptions::default()
    };
    for plan_text in plans {
        let parsed = parse_plan(plan_text);
        prop_assert!(
            !parsed.has_errors(),
            "{plan_text}: {:?}",
            parsed.diagnostics
        );
        let plan = parsed.value.expect("a plan");
        let ours = task.validate_with(&plan, &options);
        let want = temporal::run(&domain, &problem, &plan, tolerance);
        let context = || {
            format!(
                "\n{domain_text}\n{problem_text}\n{plan_text}tolerance {tolerance}\nours {:?}\nreference {want:?}",
                ours.failure
            )
        };
        prop_assert_eq!(ours.valid, want.valid, "{}", context());
        let failure = ours.failure.as_ref();
        prop_assert_eq!(failure.map(|f| f.kind.as_str()), want.kind, "{}", context());
        if want.kind == Some("mutex") {
            // Which of the clashing events VAL names depends on its order of checking; the
            // reference gives every step involved.
            let step = failure.and_then(|f| f.step).unwrap_or(0);
            prop_assert!(want.mutex_steps.contains(&step), "{}", context());
        } else {
            prop_assert_eq!(failure.and_then(|f| f.step), want.step, "{}", context());
        }
        let time = failure.and_then(|f| f.timing.as_ref()).map(|t| t.time);
        match (time, want.time) {
            (Some(a), Some(b)) => {
                prop_assert!(close(a, b) || (a - b).abs() < 1e-6, "{}", context())
            }
            (None, None) => {}
            _ => prop_assert!(false, "timing differs{}", context()),
        }
        if let Some(total) = want.total_time {
            prop_assert!(
                ours.metric.is_some_and(|m| close(m, total)),
                "{}",
                context()
            );
        }
        if want.valid || want.kind == Some("unsatisfied_goal") {
            let atoms = ours.final_state.map(|s| s.atoms).unwrap_or_default();
            prop_assert_eq!(&atoms, &want.atoms, "{}", context());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn the_engine_agrees_with_the_temporal_reference(
        (domain, problem, plans, tolerance) in gen_temporal::task()
    ) {
        same(&domain, &problem, &plans, tolerance)?;
    }
}

#[test]
fn the_temporal_reference_agrees_with_the_hand_cases() {
    // The reference must stand on its own: a few verdicts worked out by hand.
    let domain = "(define (domain h) (:requirements :durative-actions)
      (:predicates (p) (q))
      (:durative-action make :parameters () :duration (= ?duration 1)
        :condition (and) :effect (at end (p)))
      (:durative-action use :parameters () :duration (= ?duration 1)
        :condition (and (at start (p)) (over all (p))) :effect (at end (q)))
      (:durative-action spoil :parameters () :duration (= ?duration 1)
        :condition (and) :effect (at start (not (p)))))";
    let problem = "(define (problem h) (:domain h) (:init) (:goal (q)))";
    let d = parse_domain(domain).value.expect("domain");
    let p = parse_problem(problem).value.expect("problem");
    let run = |plan: &str| {
        let plan = parse_plan(plan).value.expect("plan");
        temporal::run(&d, &p, &plan, 0.001)
    };
    let ok = run("0: (make) [1]\n1.01: (use) [1]\n");
    assert!(ok.valid);
    assert!((ok.total_time.unwrap_or(0.0) - 2.01).abs() < 1e-9);
    let eps = run("0: (make) [1]\n1: (use) [1]\n");
    assert_eq!(
        (eps.kind, eps.step),
        (Some("unsatisfied_precondition"), Some(2))
    );
    let inv = run("0: (make) [1]\n1.01: (use) [1]\n1.5: (spoil) [1]\n");
    assert_eq!(
        (inv.kind, inv.step, inv.time),
        (Some("invariant_violated"), Some(2), Some(2.01))
    );
    let mutex = run("0: (make) [1]\n1.01: (use) [1]\n1.01: (spoil) [1]\n");
    assert_eq!((mutex.kind, mutex.mutex_steps), (Some("mutex"), vec![2, 3]));
}

#[test]
fn generated_temporal_plans_cover_every_outcome() {
    // The differential test means something only if the generator reaches every verdict.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..400 {
        let (domain, problem, plans, tolerance) = gen_temporal::task()
            .new_tree(&mut runner)
            .expect("a task")
            .current();
        let d = parse_domain(&domain).value.expect("domain");
        let p = parse_problem(&problem).value.expect("problem");
        for plan in &plans {
            let plan = parse_plan(plan).value.expect("plan");
            let out = temporal::run(&d, &p, &plan, tolerance);
            *seen.entry(out.kind.unwrap_or("valid")).or_insert(0) += 1;
        }
    }
    for kind in [
        "valid",
        "unknown_action",
        "arity_mismatch",
        "duration_constraint",
        "unsatisfied_precondition",
        "invariant_violated",
        "mutex",
        "unsatisfied_goal",
    ] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) >= 5,
            "{kind}: {seen:?}"
        );
    }
}
