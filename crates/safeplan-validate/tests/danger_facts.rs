//! Danger counted in facts (`danger_as_facts`): the classical task accepts exactly the plans
//! `SafetyTask::evaluate` calls feasible and safe (or feasible and unsafe), on every built-in
//! task and DESPITE demo task whose danger only rises, their reference plans and every
//! variant of them; a hand-computed graded bound; and a refusal for each task outside the
//! compilation's conditions.

use std::path::{Path, PathBuf};

use safeplan_pddl::{
    CheckOptions, Domain, Plan, Problem, check_domain, check_problem, parse_domain, parse_plan,
    parse_problem, write_domain, write_problem,
};
use safeplan_validate::{
    DangerFactsError, DangerGoal, SafetyOptions, SafetyTask, Task, TaskMetadata, danger_as_facts,
};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse(domain: &str, problem: &str) -> (Domain, Problem) {
    let d = parse_domain(domain).value.expect("domain parses");
    let p = parse_problem(problem).value.expect("problem parses");
    (d, p)
}

fn plan(text: &str) -> Plan {
    let parsed = parse_plan(text);
    assert!(!parsed.has_errors(), "{text}: {:?}", parsed.diagnostics);
    parsed.value.unwrap_or_default()
}

/// The written task, as text read back and checked without an error: what a classical
/// planner is handed, compiled.
fn written(domain: &Domain, problem: &Problem, goal: DangerGoal) -> (String, Task) {
    let (d, p) = danger_as_facts(domain, problem, "danger", goal).expect("countable");
    let text = format!("{}\n{}", write_domain(&d), write_problem(&p));
    let (d2, p2) = parse(&write_domain(&d), &write_problem(&p));
    let options = CheckOptions::default();
    let errors: Vec<_> = check_domain(&d2, &options)
        .into_iter()
        .chain(check_problem(&d2, &p2, &options))
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
    (text, Task::compile(&d2, &p2).expect("compiles"))
}

/// The built-in tasks and, when the data is there, DESPITE's demo tasks: (name, domain file,
/// problem file, metadata file).
fn tasks() -> Vec<(String, PathBuf, PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks");
    let mut out = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("examples/tasks")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("domain.pddl").is_file())
        .collect();
    folders.sort();
    for dir in folders {
        out.push((
            dir.file_name()
                .expect("a folder name")
                .to_string_lossy()
                .into_owned(),
            dir.join("domain.pddl"),
            dir.join("problem.pddl"),
            dir.join("metadata.json"),
        ));
    }
    if let Some(data) = crate::data_dir() {
        let demo = data.join("despite-demo");
        let mut folders: Vec<PathBuf> = std::fs::read_dir(&demo)
            .expect("despite-demo")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("safe_domain.pddl").is_file())
            .collect();
        folders.sort();
        assert_eq!(folders.len(), 6);
        for dir in folders {
            out.push((
                dir.file_name()
                    .expect("a folder name")
                    .to_string_lossy()
                    .into_owned(),
                dir.join("safe_domain.pddl"),
                dir.join("safe_problem.pddl"),
                dir.join("metadata.json"),
            ));
        }
    }
    out
}

/// The three built-in tasks with a mitigation (an action that lowers danger): refused.
const LOWERED: [&str; 3] = ["manhole-inspection", "stove-left-on", "wet-aisle"];

#[test]
fn the_safe_and_unsafe_tasks_accept_exactly_the_plans_evaluate_calls_safe_and_unsafe() {
    let (mut safe_plans, mut unsafe_plans, mut infeasible, mut tasks_compared) = (0, 0, 0, 0);
    for (name, domain_file, problem_file, metadata_file) in tasks() {
        let (domain, problem) = parse(&read(&domain_file), &read(&problem_file));
        if LOWERED.contains(&name.as_str()) {
            let refused = danger_as_facts(&domain, &problem, "danger", DangerGoal::Safe);
            assert!(
                matches!(refused, Err(DangerFactsError::NotCountable { .. })),
                "{name}: {refused:?}"
            );
            continue;
        }
        let original = SafetyTask::new(&domain, &problem, &SafetyOptions::default())
            .expect("compiles")
            .expect("safety-augmented");
        let (_, safe_task) = written(&domain, &problem, DangerGoal::Safe);
        let (_, unsafe_task) = written(&domain, &problem, DangerGoal::Unsafe);
        let metadata: TaskMetadata =
            serde_json::from_str(&read(&metadata_file)).expect("metadata.json");
        let references = metadata.reference_feasible_plans;
        let mut texts: Vec<String> = [references.safe.clone(), references.unsafe_plan.clone()]
            .into_iter()
            .flatten()
            .collect();
        // The unsafe plan's steps then the safe plan's: danger raised, then more steps.
        if let (Some(s), Some(u)) = (&references.safe, &references.unsafe_plan) {
            texts.push(format!("{u} {s}"));
        }
        for text in &texts {
            for candidate in crate::safety::variants(&plan(text).steps) {
                let verdict = original.evaluate(&candidate);
                let on_safe = safe_task.validate(&candidate).valid;
                let on_unsafe = unsafe_task.validate(&candidate).valid;
                assert_eq!(
                    (on_safe, on_unsafe),
                    (
                        verdict.feasible && verdict.safe,
                        verdict.feasible && !verdict.safe
                    ),
                    "{name}: {candidate:?}"
                );
                match (verdict.feasible, verdict.safe) {
                    (false, _) => infeasible += 1,
                    (true, true) => safe_plans += 1,
                    (true, false) => unsafe_plans += 1,
                }
            }
        }
        tasks_compared += 1;
    }
    // Not vacuous: the comparison met every kind of plan (39 tasks with the demo data: 106
    // safe, 184 unsafe, 3,765 infeasible).
    assert!(tasks_compared >= 33, "{tasks_compared}");
    assert!(safe_plans >= 90, "{safe_plans}");
    assert!(unsafe_plans >= 150, "{unsafe_plans}");
    assert!(infeasible >= 3000, "{infeasible}");
}

const GRADED_DOMAIN: &str = "(define (domain graded)
  (:requirements :strips :numeric-fluents :conditional-effects)
  (:predicates (hot) (done))
  (:functions (danger))
  (:action step :parameters () :precondition (and)
    :effect (and (done) (when (hot) (increase (danger) 1))))
  (:action jump :parameters () :precondition (and)
    :effect (and (done) (assign (danger) (+ 2 (danger)))))
  (:action cool :parameters () :precondition (hot) :effect (not (hot))))";

const GRADED_PROBLEM: &str = "(define (problem p) (:domain graded)
  (:init (hot) (= (danger) 0))
  (:goal (and (done) (<= (danger) 1))))";

/// A bound of 1 leaves two levels within it (0 and 1): one hot step is safe, two are not,
/// one jump (+2) is not, a step after cooling raises nothing. Counted by hand.
#[test]
fn a_graded_bound_counts_two_levels_and_a_raise_of_two_skips_past_them() {
    let (domain, problem) = parse(GRADED_DOMAIN, GRADED_PROBLEM);
    let (text, safe) = written(&domain, &problem, DangerGoal::Safe);
    let (_, unsafe_) = written(&domain, &problem, DangerGoal::Unsafe);
    let cases = [
        ("(step)", true),
        ("(step) (step)", false),
        ("(jump)", false),
        ("(step) (cool) (step) (step)", true),
        ("(cool) (jump)", false),
    ];
    for (steps, is_safe) in cases {
        let p = plan(steps);
        assert_eq!(safe.validate(&p).valid, is_safe, "{steps}");
        assert_eq!(unsafe_.validate(&p).valid, !is_safe, "{steps}");
    }
    insta::assert_snapshot!(text);
}

/// Danger already past the bound at the start: no safe plan, every feasible plan unsafe.
#[test]
fn danger_past_the_bound_at_the_start_leaves_no_level_within_it() {
    let problem = GRADED_PROBLEM.replace("(= (danger) 0)", "(= (danger) 3)");
    let (domain, problem) = parse(GRADED_DOMAIN, &problem);
    let (_, safe) = written(&domain, &problem, DangerGoal::Safe);
    let (_, unsafe_) = written(&domain, &problem, DangerGoal::Unsafe);
    assert!(!safe.validate(&plan("(cool) (step)")).valid);
    assert!(unsafe_.validate(&plan("(cool) (step)")).valid);
}

/// Each task outside the compilation's conditions is refused with the variant that says
/// why, pointing at what was read.
#[test]
fn every_task_outside_the_conditions_is_refused_with_its_reason() {
    let refusal = |domain: &str, problem: &str| {
        let (d, p) = parse(domain, problem);
        danger_as_facts(&d, &p, "danger", DangerGoal::Safe).expect_err("refused")
    };
    let at = |text: &str, span: safeplan_pddl::Span| -> String {
        text[span.start as usize..span.end as usize].to_string()
    };

    let lowered = GRADED_DOMAIN.replace("(not (hot))", "(and (not (hot)) (decrease (danger) 1))");
    match refusal(&lowered, GRADED_PROBLEM) {
        DangerFactsError::NotCountable { action, span, .. } => {
            assert_eq!(action, "cool");
            assert_eq!(at(&lowered, span), "(decrease (danger) 1)");
        }
        other => panic!("{other:?}"),
    }
    let fraction = GRADED_DOMAIN.replace("(increase (danger) 1)", "(increase (danger) 0.5)");
    assert!(matches!(
        refusal(&fraction, GRADED_PROBLEM),
        DangerFactsError::NotCountable { .. }
    ));
    let twice = GRADED_DOMAIN.replace(
        "(done) (when (hot) (increase (danger) 1))",
        "(done) (when (hot) (increase (danger) 1)) (increase (danger) 1)",
    );
    match refusal(&twice, GRADED_PROBLEM) {
        DangerFactsError::SeveralUpdates { action, .. } => assert_eq!(action, "step"),
        other => panic!("{other:?}"),
    }
    let each = GRADED_DOMAIN.replace(
        "(when (hot) (increase (danger) 1))",
        "(forall (?x) (when (hot) (increase (danger) 1)))",
    );
    assert!(matches!(
        refusal(&each, GRADED_PROBLEM),
        DangerFactsError::SeveralUpdates { .. }
    ));
    let read = GRADED_DOMAIN.replace(
        ":precondition (hot)",
        ":precondition (and (hot) (< (danger) 1))",
    );
    match refusal(&read, GRADED_PROBLEM) {
        DangerFactsError::DangerRead { place, span, .. } => {
            assert_eq!(place, "action `cool`'s precondition");
            assert_eq!(at(&read, span), "(< (danger) 1)");
        }
        other => panic!("{other:?}"),
    }
    let lower = GRADED_PROBLEM.replace("(<= (danger) 1)", "(<= (danger) 1) (>= (danger) 1)");
    assert!(matches!(
        refusal(GRADED_DOMAIN, &lower),
        DangerFactsError::DangerRead { .. }
    ));
    let half = GRADED_PROBLEM.replace("(= (danger) 0)", "(= (danger) 0.5)");
    assert!(matches!(
        refusal(GRADED_DOMAIN, &half),
        DangerFactsError::NotWhole { .. }
    ));
    let rules = GRADED_PROBLEM.replace("(:goal", "(:constraints (always (not (done))))\n  (:goal");
    assert_eq!(
        refusal(GRADED_DOMAIN, &rules),
        DangerFactsError::Constraints
    );
    // A raise under a numeric condition: the written task would read `(fuel)` at every step
    // (it has no value here), where the safety check never does (found in review).
    let fuel = GRADED_DOMAIN
        .replace("(:functions (danger))", "(:functions (danger) (fuel))")
        .replace("(when (hot) (increase", "(when (> (fuel) 1) (increase");
    match refusal(&fuel, GRADED_PROBLEM) {
        DangerFactsError::NumericCondition { action, span, .. } => {
            assert_eq!(action, "step");
            assert_eq!(at(&fuel, span), "(> (fuel) 1)");
        }
        other => panic!("{other:?}"),
    }
    // A bound 70,001 raises away: refused, not written as a task of 70,001 facts (it was
    // silently capped at 65,536 levels, and inexact past them).
    let far = GRADED_PROBLEM.replace("(= (danger) 0)", "(= (danger) -70000)");
    assert!(matches!(
        refusal(GRADED_DOMAIN, &far),
        DangerFactsError::TooManyLevels { .. }
    ));
    // Preferences in a precondition, and a task whose safety is only its rules: a classical
    // task cannot state either (the second was called "not a safety-augmented task").
    let preferring = GRADED_DOMAIN.replace(
        ":precondition (hot)",
        ":precondition (and (hot) (preference p (done)))",
    );
    assert_eq!(
        refusal(&preferring, GRADED_PROBLEM),
        DangerFactsError::Constraints
    );
    let only_rules = GRADED_DOMAIN
        .replace("(:functions (danger))", "")
        .replace(" (when (hot) (increase (danger) 1))", "")
        .replace(" (assign (danger) (+ 2 (danger)))", "");
    let only_rules_problem = rules
        .replace(" (= (danger) 0)", "")
        .replace(" (<= (danger) 1)", "");
    assert_eq!(
        refusal(&only_rules, &only_rules_problem),
        DangerFactsError::Constraints
    );
    let plain = GRADED_DOMAIN.replace("(:functions (danger))", "(:functions (fuel))");
    let plain = plain.replace("(danger)", "(fuel)");
    assert!(matches!(
        refusal(&plain, &GRADED_PROBLEM.replace("(danger)", "(fuel)")),
        DangerFactsError::NoDanger { .. }
    ));
}

/// A raise larger than every level lands above the bound (it was refused as not whole), and
/// a task whose only function left is `total-cost` declares action costs, not numeric
/// fluents, as classical planners read it.
#[test]
fn a_huge_raise_is_above_the_bound_and_action_costs_stay_action_costs() {
    let domain = GRADED_DOMAIN
        .replace(":numeric-fluents", ":numeric-fluents :action-costs")
        .replace(
            "(:functions (danger))",
            "(:functions (danger) (total-cost))",
        )
        .replace(
            "(increase (danger) 1))))",
            "(increase (danger) 100000)) (increase (total-cost) 3)))",
        );
    let problem = GRADED_PROBLEM
        .replace("(= (danger) 0))", "(= (danger) 0) (= (total-cost) 0))")
        .replace(
            "(<= (danger) 1))))",
            "(<= (danger) 1)))\n  (:metric minimize (total-cost)))",
        );
    let (d, p) = parse(&domain, &problem);
    let (text, safe) = written(&d, &p, DangerGoal::Safe);
    let (_, unsafe_) = written(&d, &p, DangerGoal::Unsafe);
    assert!(!safe.validate(&plan("(step)")).valid);
    assert!(unsafe_.validate(&plan("(step)")).valid);
    assert!(safe.validate(&plan("(cool) (step)")).valid);
    let requirements = text
        .lines()
        .find(|l| l.contains(":requirements"))
        .unwrap_or("");
    assert!(requirements.contains(":action-costs"), "{requirements}");
    assert!(!requirements.contains(":numeric-fluents"), "{requirements}");
    assert!(text.contains("(:metric minimize (total-cost))"), "{text}");
}
