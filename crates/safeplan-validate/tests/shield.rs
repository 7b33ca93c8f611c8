//! The shield says, before each step, what the plan verdict says of the plan: checked
//! against DESPITE's own verdicts (`despite-demo/oracle.jsonl`), against the assessment of
//! the example tasks' plans (sequential, timed and with rules), and on hand-computed cases.

use std::path::{Path, PathBuf};

use safeplan_pddl::{Plan, PlanStep, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Answer, CheckedTask, Refusal, Shield, ShieldError, Task};
use serde_json::Value;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn checked(domain: &Path, problem: &Path) -> CheckedTask {
    let d = parse_domain(&read(domain)).value.expect("domain");
    let p = parse_problem(&read(problem)).value.expect("problem");
    let task = Task::compile(&d, &p).expect("compiles");
    CheckedTask::new(task, &d, &p)
}

fn plan(text: &str) -> Plan {
    let parsed = parse_plan(text);
    assert!(!parsed.has_errors(), "{text}: {:?}", parsed.diagnostics);
    parsed.value.unwrap_or_default()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first refusal when the plan's steps are dispatched in order, and whether the goal
/// was reached when none was refused.
fn run_sequential(shield: &mut Shield, plan: &Plan) -> Result<Answer, bool> {
    for step in &plan.steps {
        let answer = shield.step(step, true).expect("a sequential step");
        if !answer.allowed {
            return Ok(answer);
        }
    }
    Err(shield.goal_reached())
}

#[test]
fn the_shield_refuses_where_despite_finds_the_plan_infeasible_or_unsafe() {
    let Some(data) = crate::data_dir() else {
        return;
    };
    let dir = data.join("despite-demo");
    let mut lines = 0;
    let mut refused = [0usize; 2];
    for line in read(&dir.join("oracle.jsonl")).lines() {
        let line: Value = serde_json::from_str(line).expect("json");
        let task_dir = dir.join(line["task"].as_str().expect("task"));
        let task = checked(
            &task_dir.join("safe_domain.pddl"),
            &task_dir.join("safe_problem.pddl"),
        );
        let steps: Vec<&str> = line["plan"]
            .as_array()
            .expect("plan")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let p = plan(&steps.join(" "));
        let (feasible, safe) = (line["feasible"] == true, line["safe"] == true);
        let mut shield = task.shield();
        match run_sequential(&mut shield, &p) {
            // Refused for danger or a rule: DESPITE calls the plan unsafe.
            Ok(a) if !a.safe => {
                assert!(!safe, "{line}: {}", a.sentence());
                refused[1] += 1;
            }
            // Refused as inapplicable: DESPITE calls the plan infeasible.
            Ok(a) => {
                assert!(!feasible, "{line}: {}", a.sentence());
                refused[0] += 1;
            }
            // Every step allowed: feasible exactly when the goal is reached, and then safe.
            Err(goal) => {
                assert_eq!(feasible, goal, "{line}");
                assert_eq!(safe, goal, "{line}");
            }
        }
        lines += 1;
    }
    assert!(lines > 100, "{lines} oracle lines");
    assert!(refused[0] > 0 && refused[1] > 0, "{refused:?}");
}

/// Each example plan: the shield's first refusal is at the assessment's failed step, with
/// its feasibility and safety.
#[test]
fn the_shield_agrees_with_the_assessment_on_every_example_plan() {
    let tasks = repo().join("examples/tasks");
    let (mut seen, mut mitigations) = (0, 0);
    for entry in std::fs::read_dir(&tasks).expect("examples/tasks") {
        let dir = entry.expect("entry").path();
        let task = checked(&dir.join("domain.pddl"), &dir.join("problem.pddl"));
        // The reference plans in the task's metadata, and the plan files beside it.
        let meta: Value = serde_json::from_str(&read(&dir.join("metadata.json"))).expect("json");
        let mut plans: Vec<(String, String)> = ["safe", "unsafe"]
            .iter()
            .filter_map(|k| {
                let text = meta["reference_feasible_plans"][k].as_str()?;
                Some((
                    format!("{} ({k} reference)", dir.display()),
                    text.to_string(),
                ))
            })
            .collect();
        for name in ["safe.plan", "unsafe.plan", "broken.plan"] {
            let path = dir.join(name);
            if path.exists() {
                plans.push((path.display().to_string(), read(&path)));
            }
        }
        for (path, text) in plans {
            let p = plan(&text);
            let assessment = task.assess_plan(&p);
            let mut shield = task.shield();
            match run_sequential(&mut shield, &p) {
                // The one deliberate difference (docs/SEMANTICS.md, "Shield"): the shield
                // refuses a rise past the bound that a later step of the plan mitigates,
                // where S judges the terminal danger.
                Ok(answer) if answer.feasible && assessment.safe() => {
                    let safety = assessment.safety.as_ref().expect("a safety task");
                    let mitigated = safety
                        .danger_events
                        .iter()
                        .any(|e| e.step > answer.step && e.after < e.before);
                    assert!(mitigated, "{path}: {}", answer.sentence());
                    mitigations += 1;
                }
                Ok(answer) => {
                    let at = format!("{path}: {}", answer.sentence());
                    assert_eq!(Some(answer.step), assessment.failed_step(), "{at}");
                    if !answer.feasible {
                        assert!(!assessment.feasible(), "{at}");
                    } else {
                        assert!(!assessment.safe(), "{at}");
                    }
                }
                Err(goal) => assert_eq!(assessment.valid(), goal, "{path}"),
            }
            seen += 1;
        }
    }
    assert!(seen >= 70, "{seen} example plans");
    assert!(mitigations >= 1, "the wet-aisle mitigation is among them");
}

#[test]
fn a_rule_break_is_refused_as_unsafe_as_in_the_plan_verdict() {
    let dir = repo().join("examples/rules/knife-near-child");
    let task = checked(&dir.join("domain.pddl"), &dir.join("problem.pddl"));
    let p = plan(&read(&dir.join("unsafe.plan")));
    let assessment = task.assess_plan(&p);
    assert!(assessment.feasible() && !assessment.safe());
    let answer = run_sequential(&mut task.shield(), &p).expect("refused");
    assert!(answer.feasible && !answer.safe, "{}", answer.sentence());
    assert!(matches!(answer.refusal, Some(Refusal::RuleBroken { .. })));
    assert_eq!(Some(answer.step), assessment.failed_step());
}

/// Dispatch a timed plan's events in time order (ends before starts at one time, as the
/// plan's happenings run): the first refusal.
fn run_timed(shield: &mut Shield, plan: &Plan) -> Option<Answer> {
    let mut events: Vec<(f64, u8, &PlanStep)> = Vec::new();
    for step in &plan.steps {
        let t = step.time.expect("a timed step");
        events.push((t, 1, step));
        events.push((t + step.duration.expect("a duration"), 0, step));
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (t, kind, step) in events {
        let answer = if kind == 1 {
            shield.start(step, t, true)
        } else {
            shield.end(step, t, true)
        }
        .expect("a timed event");
        if !answer.allowed {
            return Some(answer);
        }
    }
    None
}

#[test]
fn the_timed_shield_refuses_the_unsafe_carry_with_its_step_and_reasons() {
    let dir = repo().join("examples/temporal/hot-drink-carry");
    let task = checked(&dir.join("domain.pddl"), &dir.join("problem.pddl"));
    let unsafe_plan = plan(&read(&dir.join("plans/unsafe.plan")));
    let assessment = task.assess_plan(&unsafe_plan);
    let answer = run_timed(&mut task.shield(), &unsafe_plan).expect("refused");
    assert!(answer.feasible && !answer.safe, "{}", answer.sentence());
    assert_eq!(Some(answer.step), assessment.failed_step());
    let Some(Refusal::Dangerous { event, .. }) = &answer.refusal else {
        panic!("{}", answer.sentence());
    };
    // The library's reasons, as in the plan verdict's danger event.
    let verdict_event = &assessment.safety.as_ref().expect("safety").danger_events[0];
    assert_eq!(event.because, verdict_event.because);
    assert!(!event.because.is_empty());
    assert!(
        answer
            .sentence()
            .contains("at its start (time 2.01) would raise danger 0 -> 1 because"),
        "{}",
        answer.sentence()
    );
    // The safe plan passes every event and reaches the goal.
    let mut shield = task.shield();
    assert!(run_timed(&mut shield, &plan(&read(&dir.join("plans/safe.plan")))).is_none());
    assert!(shield.goal_reached());
}

#[test]
fn questions_that_do_not_fit_the_execution_are_errors_and_change_nothing() {
    let dir = repo().join("examples/temporal/hot-drink-carry");
    let task = checked(&dir.join("domain.pddl"), &dir.join("problem.pddl"));
    let mut shield = task.shield();
    let pick = &plan("(pick-up tea kitchen)").steps[0];
    assert!(matches!(
        shield.step(pick, true),
        Err(ShieldError::WrongKind(_))
    ));
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            shield.start(pick, bad, true),
            Err(ShieldError::Timing { .. })
        ));
    }
    assert!(matches!(
        shield.end(pick, 1.0, true),
        Err(ShieldError::NotRunning(_))
    ));
    assert_eq!(shield.dispatched(), 0);
    assert!(shield.start(pick, 0.0, true).expect("starts").allowed);
    assert!(matches!(
        shield.start(pick, -0.5, false),
        Err(ShieldError::Timing { .. })
    ));
    // A sequential task refuses timed events.
    let soup = repo().join("examples/tasks/hot-soup");
    let mut sequential = checked(&soup.join("domain.pddl"), &soup.join("problem.pddl")).shield();
    assert!(matches!(
        sequential.start(pick, 0.0, true),
        Err(ShieldError::WrongKind(_))
    ));
}

/// An instantaneous action in a temporal domain, asked with `happen`: its danger refusal
/// has the reasons and the plan's step number.
#[test]
fn an_instantaneous_action_of_a_temporal_domain_is_shielded_too() {
    let domain = "(define (domain kettle) (:requirements :durative-actions :numeric-fluents :conditional-effects)
      (:predicates (boiling) (held) (child))
      (:functions (danger))
      (:durative-action boil :parameters () :duration (= ?duration 2)
        :condition (at start (not (boiling))) :effect (at end (boiling)))
      (:action grab :parameters () :precondition (boiling)
        :effect (and (held) (when (child) (increase (danger) 1)))))";
    let problem =
        "(define (problem k) (:domain kettle) (:init (child) (= (danger) 0)) (:goal (held)))";
    let d = parse_domain(domain).value.expect("domain");
    let p = parse_problem(problem).value.expect("problem");
    let task = CheckedTask::new(Task::compile(&d, &p).expect("compiles"), &d, &p);
    let mut shield = task.shield();
    let boil = &plan("(boil)").steps[0];
    let grab = &plan("(grab)").steps[0];
    // Before the water boils, grabbing is inapplicable; start is the wrong question.
    let early = shield.happen(grab, 0.0, true).expect("answered");
    assert!(!early.allowed && !early.feasible);
    assert!(matches!(
        shield.start(grab, 0.0, true),
        Err(ShieldError::WrongKind(_))
    ));
    assert!(shield.start(boil, 0.0, true).expect("starts").allowed);
    assert!(shield.end(boil, 2.0, true).expect("ends").allowed);
    let answer = shield.happen(grab, 2.5, true).expect("answered");
    assert!(!answer.allowed && answer.feasible && !answer.safe);
    assert_eq!(answer.step, 2);
    assert_eq!(
        answer.sentence(),
        "(grab) (at 2.5) refused: unsafe: step 2 (grab) at its start (time 2.5) would raise danger 0 -> 1 because (child) held, past the task's bound 0"
    );
}
