//! Trajectory constraints and preferences, by hand: every operator of PDDL3 on a domain of
//! flags that steps raise and lower, so each plan's sequence of states can be read off the
//! plan. Expected verdicts are worked out from the definitions in docs/SEMANTICS.md
//! ("Trajectory constraints"): state k is the state after step k, at time k (state 0 is
//! the initial state). Where VAL answers otherwise, the comment says what VAL said (VAL at
//! KCL-Planning/VAL 3c7a1f3, run by hand on these files) and why we do not follow it.

use safeplan_pddl::ast::ConstraintOp;
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{FailureKind, Task, ValidateOptions, Validator, Verdict};

const DOMAIN: &str = "(define (domain flags)
  (:requirements :strips :typing :negative-preconditions :constraints :preferences
                 :action-costs)
  (:types flag)
  (:predicates (on ?f - flag))
  (:functions (total-cost))
  (:action raise :parameters (?f - flag) :precondition (not (on ?f))
    :effect (and (on ?f) (increase (total-cost) 1)))
  (:action lower :parameters (?f - flag) :precondition (on ?f)
    :effect (and (not (on ?f)) (increase (total-cost) 1)))
  (:action raise2 :parameters (?f ?g - flag) :precondition (not (on ?f))
    :effect (and (on ?f) (on ?g) (increase (total-cost) 1)))
  (:action noop :parameters () :precondition ()
    :effect (and (increase (total-cost) 1))))";

fn task(init: &str, goal: &str, sections: &str) -> Task {
    let domain = parse_domain(DOMAIN);
    assert!(domain.diagnostics.is_empty(), "{:#?}", domain.diagnostics);
    let src = format!(
        "(define (problem p) (:domain flags) (:objects a b c - flag)
           (:init {init} (= (total-cost) 0)) (:goal {goal}) {sections})"
    );
    let problem = parse_problem(&src);
    assert!(
        problem.diagnostics.iter().all(|d| !d.is_error()),
        "{:#?}",
        problem.diagnostics
    );
    Task::compile(
        &domain.value.expect("domain"),
        &problem.value.expect("problem"),
    )
    .expect("compiles")
}

fn run(task: &Task, plan: &str) -> Verdict {
    let plan = parse_plan(plan).value.expect("plan");
    let verdict = task.validate(&plan);
    // The quiet check a benchmark runs must agree.
    let quiet = Validator::new(task, ValidateOptions::default()).is_valid(&plan);
    assert_eq!(quiet, verdict.valid, "is_valid disagrees on {plan:?}");
    verdict
}

/// `None` for a valid plan; else the broken operator and the state it was found in
/// (`None`: at the end-of-plan check).
fn broken(c: &str, init: &str, plan: &str) -> Option<(ConstraintOp, Option<usize>)> {
    let t = task(init, "(and)", &format!("(:constraints {c})"));
    let v = run(&t, plan);
    let f = v.failure?;
    assert_eq!(f.kind, FailureKind::ConstraintViolated, "{}", f.message);
    let c = f.constraint.expect("names the constraint");
    Some((c.operator, c.state))
}

use ConstraintOp::*;

#[test]
fn always_holds_in_every_state_the_initial_one_included() {
    let c = "(always (not (on a)))";
    assert_eq!(broken(c, "", "(raise b)"), None);
    assert_eq!(
        broken(c, "", "(raise b) (raise a) (lower a)"),
        Some((Always, Some(2)))
    );
    // VAL agrees: "Failure to satisfy: (NOT (on a))" before the first step.
    assert_eq!(broken(c, "(on a)", "(noop)"), Some((Always, Some(0))));
    // The empty plan: the initial state is the final state.
    assert_eq!(broken(c, "(on a)", ""), Some((Always, Some(0))));
}

#[test]
fn sometime_is_judged_at_the_end() {
    let c = "(sometime (on a))";
    assert_eq!(broken(c, "", "(raise a) (lower a)"), None);
    assert_eq!(broken(c, "", "(raise b)"), Some((Sometime, None)));
    assert_eq!(broken(c, "(on a)", ""), None);
}

#[test]
fn within_counts_steps_as_time() {
    let c = "(within 2 (on a))";
    assert_eq!(broken(c, "", "(noop) (raise a)"), None);
    // State 3 is at time 3, past the deadline (VAL: "Failed to meet deadline").
    assert_eq!(
        broken(c, "", "(noop) (noop) (raise a)"),
        Some((Within, Some(3)))
    );
    // The plan ends at time 1 without it: never held.
    assert_eq!(broken(c, "", "(noop)"), Some((Within, None)));
}

#[test]
fn at_most_once_allows_one_unbroken_stretch() {
    let c = "(at-most-once (on a))";
    assert_eq!(broken(c, "", "(raise a) (noop) (lower a)"), None);
    assert_eq!(
        broken(c, "", "(raise a) (lower a) (raise a)"),
        Some((AtMostOnce, Some(3)))
    );
    // Held in the initial state, stopped, held again.
    assert_eq!(
        broken(c, "(on a)", "(lower a) (raise a)"),
        Some((AtMostOnce, Some(2)))
    );
    assert_eq!(broken(c, "", ""), None);
}

#[test]
fn sometime_after_owes_psi_after_every_state_the_trigger_holds() {
    let c = "(sometime-after (on a) (on b))";
    assert_eq!(broken(c, "", "(raise a) (raise b)"), None);
    assert_eq!(broken(c, "", "(raise a)"), Some((SometimeAfter, None)));
    // ψ in the same state as the trigger is enough.
    assert_eq!(broken(c, "", "(raise2 a b)"), None);
    // The trigger still holds in state 3, after ψ stopped: ψ is owed again (VAL agrees).
    assert_eq!(
        broken(c, "", "(raise a) (raise b) (lower b)"),
        Some((SometimeAfter, None))
    );
}

#[test]
fn sometime_before_needs_psi_in_a_strictly_earlier_state() {
    let c = "(sometime-before (on a) (on b))";
    assert_eq!(broken(c, "", "(raise b) (raise a)"), None);
    assert_eq!(broken(c, "", "(raise a)"), Some((SometimeBefore, Some(1))));
    // Both become true in one state: not earlier (VAL agrees).
    assert_eq!(
        broken(c, "", "(raise2 a b)"),
        Some((SometimeBefore, Some(1)))
    );
    // The trigger in the initial state has no earlier state at all.
    assert_eq!(
        broken(c, "(on a) (on b)", "(noop)"),
        Some((SometimeBefore, Some(0)))
    );
    // ψ held once is enough for good, even after it stops.
    assert_eq!(broken(c, "", "(raise b) (lower b) (raise a)"), None);
}

#[test]
fn always_within_gives_psi_a_deadline_from_each_trigger() {
    let c = "(always-within 2 (on a) (on b))";
    assert_eq!(broken(c, "", "(raise a) (noop) (raise b)"), None);
    // Triggered at time 1, deadline 3, state 4 at time 4 (VAL: "Failed to meet deadline").
    assert_eq!(
        broken(c, "", "(raise a) (noop) (noop) (raise b)"),
        Some((AlwaysWithin, Some(4)))
    );
    // The plan ends at time 2 with ψ still owed.
    assert_eq!(
        broken(c, "", "(raise a) (noop)"),
        Some((AlwaysWithin, None))
    );
}

#[test]
fn hold_during_checks_every_state_in_its_window() {
    let c = "(hold-during 1 3 (on a))";
    assert_eq!(broken(c, "", "(raise a) (noop) (lower a)"), None);
    assert_eq!(
        broken(c, "", "(noop) (raise a) (noop)"),
        Some((HoldDuring, Some(1)))
    );
    // VAL calls this valid: it drops the window after the first state it checks in it
    // (TrajectoryConstraints.cpp keeps a window only while it lies ahead), so state 2 at
    // time 2, where (on a) is false, is never checked. By the definition it is broken there.
    assert_eq!(
        broken(c, "", "(raise a) (lower a) (noop)"),
        Some((HoldDuring, Some(2)))
    );
}

#[test]
fn hold_after_holds_in_every_state_strictly_after_its_time() {
    let c = "(hold-after 2 (on a))";
    // VAL calls both of these invalid: it requires (on a) from time 0 ("Now requiring (on
    // a) to remain true" at time 0), whatever the time written. States 3 and 4 hold it.
    assert_eq!(broken(c, "", "(noop) (noop) (raise a)"), None);
    assert_eq!(broken(c, "", "(noop) (raise a) (noop) (noop)"), None);
    assert_eq!(
        broken(c, "", "(noop) (raise a) (lower a)"),
        Some((HoldAfter, Some(3)))
    );
}

#[test]
fn at_end_is_the_final_state() {
    let c = "(at end (on a))";
    assert_eq!(broken(c, "", "(raise a)"), None);
    assert_eq!(broken(c, "", "(raise a) (lower a)"), Some((AtEnd, None)));
}

#[test]
fn several_constraints_without_and_are_all_checked() {
    // VAL reads this section as nothing at all and calls the plan valid.
    let c = "(sometime (on a)) (always (not (on b)))";
    assert_eq!(broken(c, "", "(raise b)"), Some((Always, Some(1))));
    assert_eq!(broken(c, "", "(raise c)"), Some((Sometime, None)));
}

#[test]
fn forall_makes_one_instance_per_object_and_names_the_broken_one() {
    let t = task(
        "",
        "(and)",
        "(:constraints (forall (?f - flag) (sometime (on ?f))))",
    );
    let v = run(&t, "(raise a) (raise b)");
    let c = v.failure.unwrap().constraint.unwrap();
    assert_eq!(c.constraint, "(sometime (on c))");
    assert_eq!(c.reason, "(on c) never held during the plan");
    assert_eq!(c.unmet[0].literal, "(on c)");
}

#[test]
fn a_violation_says_when_and_which_literals_made_it() {
    let t = task(
        "",
        "(and)",
        "(:constraints (sometime-before (and (on a) (not (on c))) (on b)))",
    );
    let v = run(&t, "(raise a)");
    let f = v.failure.unwrap();
    assert_eq!(f.step, Some(1));
    let c = f.constraint.unwrap();
    assert_eq!(c.state, Some(1));
    assert_eq!(c.time, 1.0);
    assert_eq!(
        c.reason,
        "(and (on a) (not (on c))) holds after step 1 (raise a), but (on b) never held in an earlier state"
    );
    // The trigger's literals, each true then.
    let held: Vec<&str> = c.held.iter().map(|u| u.literal.as_str()).collect();
    assert_eq!(held, ["(on a)", "(not (on c))"]);
    assert!(c.advice.starts_with("make (on b) true in a state before"));
}

#[test]
fn keep_going_lists_every_broken_constraint_and_the_goal() {
    let t = task(
        "",
        "(on c)",
        "(:constraints (and (always (not (on a))) (sometime (on b))))",
    );
    let plan = parse_plan("(raise a) (lower a)").value.unwrap();
    let options = ValidateOptions {
        keep_going: true,
        ..ValidateOptions::default()
    };
    let v = t.validate_with(&plan, &options);
    let kinds: Vec<(FailureKind, Option<ConstraintOp>)> = v
        .failures
        .iter()
        .map(|f| (f.kind, f.constraint.as_ref().map(|c| c.operator)))
        .collect();
    assert_eq!(
        kinds,
        [
            (FailureKind::ConstraintViolated, Some(Always)),
            (FailureKind::UnsatisfiedGoal, None),
            (FailureKind::ConstraintViolated, Some(Sometime)),
        ]
    );
}

#[test]
fn preferences_count_violated_instances_into_the_metric() {
    // Two goal preferences (one per flag under `forall`), one soft constraint, one
    // preference over a `forall` (one instance, counted once).
    let t = task(
        "",
        "(and (on a) (forall (?f - flag) (preference up (on ?f))))",
        "(:constraints (and
            (preference calm (always (not (on c))))
            (preference all-down (forall (?f - flag) (sometime (not (on ?f)))))))
         (:metric minimize (+ (total-cost) (* 10 (is-violated up))
                              (* 100 (is-violated calm)) (* 1000 (is-violated all-down))))",
    );
    // Flags a and b end up; c never rises; every flag is down at the start.
    let v = run(&t, "(raise a) (raise b)");
    assert!(v.valid, "{:?}", v.failure);
    let counts: Vec<(Option<&str>, usize, usize)> = v
        .preferences
        .iter()
        .map(|p| (p.name.as_deref(), p.instances, p.violated))
        .collect();
    assert_eq!(
        counts,
        [
            (Some("up"), 3, 1),
            (Some("calm"), 1, 0),
            (Some("all-down"), 1, 0)
        ]
    );
    // 2 steps + 10 × 1 (c is not up).
    assert_eq!(v.metric, Some(12.0));
    let why = &v.preferences[0].violations[0];
    assert_eq!(why.preference.as_deref(), Some("up"));
    assert_eq!(why.constraint, "(at end (on c))");

    // Raising c breaks `calm` too, and c ends up: `up` is kept by all three.
    let v = run(&t, "(raise a) (raise b) (raise c)");
    assert_eq!(v.metric, Some(3.0 + 100.0));
    // A preference never makes a plan invalid; the hard goal does.
    let v = run(&t, "(raise b)");
    assert_eq!(v.failure.unwrap().kind, FailureKind::UnsatisfiedGoal);
    assert!(v.preferences.is_empty());
}

#[test]
fn a_temporal_plan_checks_its_constraints_at_each_happening() {
    let domain = parse_domain(
        "(define (domain oven)
          (:requirements :durative-actions :negative-preconditions :constraints)
          (:predicates (hot) (door-open))
          (:durative-action heat :parameters () :duration (= ?duration 5)
            :condition (at start (not (hot)))
            :effect (at end (hot)))
          (:durative-action open :parameters () :duration (= ?duration 1)
            :condition (at start (not (door-open)))
            :effect (at end (door-open))))",
    )
    .value
    .unwrap();
    let problem = |c: &str| {
        parse_problem(&format!(
            "(define (problem p) (:domain oven) (:init) (:goal (hot)) (:constraints {c}))"
        ))
        .value
        .unwrap()
    };
    let check = |c: &str, plan: &str| {
        let task = Task::compile(&domain, &problem(c)).unwrap();
        let v = task.validate(&parse_plan(plan).value.unwrap());
        v.failure.map(|f| {
            let c = f.constraint.expect("a constraint");
            (c.operator, c.state, c.time)
        })
    };
    // The oven is hot at time 5: within 5 holds, within 4 does not (found at time 5).
    assert_eq!(check("(within 5 (hot))", "0: (heat) [5]"), None);
    assert_eq!(
        check("(within 4 (hot))", "0: (heat) [5]"),
        Some((Within, Some(2), 5.0))
    );
    // The door opens at time 3, before the oven is hot at 5.
    assert_eq!(
        check(
            "(sometime-before (door-open) (hot))",
            "0: (heat) [5]\n2: (open) [1]"
        ),
        Some((SometimeBefore, Some(3), 3.0))
    );
    assert_eq!(
        check(
            "(sometime-before (door-open) (hot))",
            "0: (heat) [5]\n6: (open) [1]"
        ),
        None
    );
}

#[test]
fn the_monitor_refuses_a_step_that_would_break_a_rule_and_lists_what_is_owed() {
    use safeplan_validate::Monitor;
    let t = task(
        "",
        "(and)",
        "(:constraints (and (always (not (on c)))
                            (sometime-before (on a) (on b))
                            (sometime-after (on b) (on c))
                            (within 3 (on b))))",
    );
    let mut m = Monitor::new(&t);
    let owed: Vec<(ConstraintOp, String, Option<f64>)> = m
        .outstanding()
        .into_iter()
        .map(|o| (o.operator, o.owed, o.deadline))
        .collect();
    assert_eq!(owed, [(Within, "(on b)".to_string(), Some(3.0))]);
    // `(raise a)` first would break sometime-before: refused, nothing changes.
    let raise_a = t.ground("raise", &["a"]).unwrap();
    let refusal = m.check(&raise_a).unwrap_err();
    assert_eq!(refusal.kind, FailureKind::ConstraintViolated);
    assert_eq!(refusal.step, Some(1));
    assert_eq!(
        refusal.constraint.as_ref().unwrap().operator,
        SometimeBefore
    );
    assert!(m.apply(&raise_a).is_err());
    assert_eq!(m.steps(), 0);
    // `(raise b)` is fine and triggers sometime-after: (on c) is owed now, but raising c
    // would break `always`, so the robot may not end while it is owed.
    m.apply(&t.ground("raise", &["b"]).unwrap()).unwrap();
    let owed: Vec<(ConstraintOp, String)> = m
        .outstanding()
        .into_iter()
        .map(|o| (o.operator, o.owed))
        .collect();
    assert_eq!(owed, [(SometimeAfter, "(on c)".to_string())]);
    let c = t.ground("raise", &["c"]).unwrap();
    assert_eq!(
        m.check(&c).unwrap_err().constraint.unwrap().operator,
        Always
    );
    let stop = m.check_end().unwrap_err();
    assert_eq!(stop.constraint.unwrap().operator, SometimeAfter);
    // Now `(raise a)` is allowed: (on b) held in an earlier state.
    m.apply(&raise_a).unwrap();
    assert_eq!(m.steps(), 2);
}

#[test]
fn the_monitor_reports_rules_broken_by_the_state_it_starts_from() {
    use safeplan_validate::Monitor;
    let t = task("(on c)", "(and)", "(:constraints (always (not (on c))))");
    let m = Monitor::new(&t);
    assert_eq!(m.broken().len(), 1);
    assert_eq!(m.broken()[0].state, Some(0));
    assert!(m.check_end().is_err());
}

#[test]
fn the_timed_monitor_refuses_an_event_that_would_break_a_rule() {
    use safeplan_validate::{TimedError, TimedMonitor};
    let domain = parse_domain(
        "(define (domain oven)
          (:requirements :durative-actions :negative-preconditions :constraints)
          (:predicates (hot) (door-open))
          (:durative-action heat :parameters () :duration (= ?duration 5)
            :condition (at start (not (hot)))
            :effect (at end (hot)))
          (:durative-action open :parameters () :duration (= ?duration 1)
            :condition (at start (not (door-open)))
            :effect (at end (door-open))))",
    )
    .value
    .expect("domain");
    let problem = parse_problem(
        "(define (problem p) (:domain oven) (:init) (:goal (hot))
           (:constraints (sometime-before (door-open) (hot))))",
    )
    .value
    .expect("problem");
    let task = Task::compile(&domain, &problem).expect("compiles");
    let mut m = TimedMonitor::new(&task, 0.01);
    m.start(&task.ground("heat", &[]).unwrap(), 0.0).unwrap();
    let open = m.start(&task.ground("open", &[]).unwrap(), 2.0).unwrap();
    // The door would be open at time 3, before the oven is hot at 5: refused.
    let Err(TimedError::Refused(f)) = m.end(open, 3.0) else {
        panic!("the end of `open` at 3 must be refused")
    };
    assert_eq!(f.kind, FailureKind::ConstraintViolated);
    let c = f.constraint.unwrap();
    assert_eq!((c.operator, c.time), (SometimeBefore, 3.0));
}

/// Every operator on a timed plan, with the answer worked out by hand from the happenings:
/// `heat` (5) makes the oven hot at its end, `cool` (2) makes it cold at its end, `open` (1)
/// opens the door at its end. Each state is the one after a happening, at its time; the
/// initial state is at 0.
#[test]
fn each_operator_over_a_timed_plan_by_hand() {
    let domain = parse_domain(
        "(define (domain oven)
          (:requirements :durative-actions :negative-preconditions :constraints)
          (:predicates (hot) (door-open))
          (:durative-action heat :parameters () :duration (= ?duration 5)
            :condition (at start (not (hot)))
            :effect (at end (hot)))
          (:durative-action cool :parameters () :duration (= ?duration 2)
            :condition (at start (hot))
            :effect (at end (not (hot))))
          (:durative-action open :parameters () :duration (= ?duration 1)
            :condition (at start (not (door-open)))
            :effect (at end (door-open))))",
    )
    .value
    .unwrap();
    let check = |c: &str, plan: &str| {
        let problem = parse_problem(&format!(
            "(define (problem p) (:domain oven) (:init) (:goal (and)) (:constraints {c}))"
        ))
        .value
        .unwrap();
        let task = Task::compile(&domain, &problem).unwrap();
        let v = task.validate(&parse_plan(plan).value.unwrap());
        v.failure.map(|f| {
            let c = f.constraint.expect("a constraint");
            (c.operator, c.state.map(|_| c.time))
        })
    };
    let heat = "0: (heat) [5]";
    // always: the door is open from 3 (open 2–3).
    assert_eq!(
        check("(always (not (door-open)))", "2: (open) [1]"),
        Some((Always, Some(3.0)))
    );
    assert_eq!(check("(always (not (door-open)))", heat), None);
    // sometime: never open, judged at the end.
    assert_eq!(
        check("(sometime (door-open))", heat),
        Some((Sometime, None))
    );
    assert_eq!(check("(sometime (door-open))", "2: (open) [1]"), None);
    // within: hot at 5.
    assert_eq!(check("(within 5 (hot))", heat), None);
    assert_eq!(check("(within 4.5 (hot))", heat), Some((Within, Some(5.0))));
    // at-most-once: hot 5–8, then hot again at 14.
    let twice = "0: (heat) [5]\n6: (cool) [2]\n9: (heat) [5]";
    assert_eq!(
        check("(at-most-once (hot))", twice),
        Some((AtMostOnce, Some(14.0)))
    );
    assert_eq!(
        check("(at-most-once (hot))", "0: (heat) [5]\n6: (cool) [2]"),
        None
    );
    // sometime-after: hot at 5, the door never opens after: owed at the end.
    assert_eq!(
        check("(sometime-after (hot) (door-open))", heat),
        Some((SometimeAfter, None))
    );
    assert_eq!(
        check(
            "(sometime-after (hot) (door-open))",
            "0: (heat) [5]\n5.5: (open) [1]"
        ),
        None
    );
    // sometime-before: the door opens at 1 before the oven was ever hot.
    assert_eq!(
        check(
            "(sometime-before (door-open) (hot))",
            "0: (heat) [5]\n0: (open) [1]"
        ),
        Some((SometimeBefore, Some(1.0)))
    );
    // always-within 2: hot at 5, so the door must be open by 7; open at 6.5 (5.5–6.5)
    // keeps it, open at 7.5 (6.5–7.5) is found late at 7.5.
    let rule = "(always-within 2 (hot) (door-open))";
    assert_eq!(check(rule, "0: (heat) [5]\n5.5: (open) [1]"), None);
    assert_eq!(
        check(rule, "0: (heat) [5]\n6.5: (open) [1]"),
        Some((AlwaysWithin, Some(7.5)))
    );
    // The deadline is still owed when the plan ends at 5.
    assert_eq!(check(rule, heat), Some((AlwaysWithin, None)));
    // hold-during 6 8: hot through [6, 8); cooling that ends at 7.5 breaks it there, one
    // that ends at 9 does not.
    let window = "(hold-during 6 8 (hot))";
    assert_eq!(
        check(window, "0: (heat) [5]\n5.5: (cool) [2]"),
        Some((HoldDuring, Some(7.5)))
    );
    assert_eq!(check(window, "0: (heat) [5]\n7: (cool) [2]"), None);
    // hold-after 6: hot in every state after 6; cold at 8.5.
    assert_eq!(
        check("(hold-after 6 (hot))", "0: (heat) [5]\n6.5: (cool) [2]"),
        Some((HoldAfter, Some(8.5)))
    );
    assert_eq!(check("(hold-after 6 (hot))", heat), None);
    // at end: the oven is cold at the end of this plan.
    assert_eq!(
        check("(at end (hot))", "0: (heat) [5]\n6: (cool) [2]"),
        Some((AtEnd, None))
    );
}

/// Preferences in action preconditions (IPC-2006 "simple preferences"): each execution of
/// the action while the preference is false counts one violation of its name, and the
/// metric reads the counts. Metrics are VAL's (KCL-Planning/VAL 3c7a1f3, `Validate -v`, run
/// on these files by hand): 10, 21, 20, 22.
#[test]
fn precondition_preferences_count_each_execution_as_val_does() {
    let domain = parse_domain(
        "(define (domain rooms)
          (:requirements :strips :negative-preconditions :preferences)
          (:predicates (at ?r) (door ?a ?b) (lights-on ?r) (visited ?r))
          (:action go :parameters (?a ?b)
            :precondition (and (at ?a) (door ?a ?b)
                               (preference lit (lights-on ?b))
                               (preference quiet (not (visited ?b))))
            :effect (and (not (at ?a)) (at ?b) (visited ?b)))
          (:action switch-on :parameters (?r)
            :precondition (and (at ?r) (preference lit (not (lights-on ?r))))
            :effect (lights-on ?r)))",
    )
    .value
    .unwrap();
    let problem = parse_problem(
        "(define (problem tour) (:domain rooms) (:objects a b c)
          (:init (at a) (door a b) (door b a) (door b c) (door c b) (lights-on b))
          (:goal (at c))
          (:metric minimize (+ (* 10 (is-violated lit)) (is-violated quiet))))",
    )
    .value
    .unwrap();
    let task = Task::compile(&domain, &problem).unwrap();
    for (plan, metric, counts) in [
        ("(go a b) (go b c)", 10.0, [("lit", 2, 1), ("quiet", 2, 0)]),
        (
            "(go a b) (go b a) (go a b) (go b c)",
            21.0,
            [("lit", 4, 2), ("quiet", 4, 1)],
        ),
        (
            "(switch-on a) (go a b) (switch-on b) (go b c)",
            20.0,
            [("lit", 4, 2), ("quiet", 2, 0)],
        ),
        (
            "(go a b) (switch-on b) (go b c) (switch-on c) (go c b) (go b c)",
            22.0,
            [("lit", 6, 2), ("quiet", 4, 2)],
        ),
    ] {
        let v = task.validate(&parse_plan(plan).value.unwrap());
        assert!(v.valid, "{plan}: {:?}", v.failure);
        assert_eq!(v.metric, Some(metric), "{plan}");
        let got: Vec<(&str, usize, usize)> = v
            .preferences
            .iter()
            .map(|p| (p.name.as_deref().unwrap_or(""), p.instances, p.violated))
            .collect();
        assert_eq!(got, counts, "{plan}");
    }
    // The quiet check a benchmark uses ignores preferences, which never decide validity.
    let plan = parse_plan("(go a b) (go b a) (go a b) (go b c)")
        .value
        .unwrap();
    assert!(Validator::new(&task, ValidateOptions::default()).is_valid(&plan));
}

/// The same on durative actions: `(preference NAME (at start φ))` is judged on the state
/// before the start's happening, `at end` on the state before the end's. VAL's metrics
/// (3c7a1f3, by hand): 1, 11, 10, 1.
#[test]
fn durative_condition_preferences_count_at_their_start_and_end_as_val_does() {
    let domain = parse_domain(
        "(define (domain oven)
          (:requirements :durative-actions :negative-preconditions :preferences)
          (:predicates (hot) (door-open) (clean))
          (:durative-action heat :parameters () :duration (= ?duration 5)
            :condition (and (at start (not (hot)))
                            (preference shut (at start (not (door-open))))
                            (preference tidy (at end (clean))))
            :effect (at end (hot)))
          (:durative-action cool :parameters () :duration (= ?duration 2)
            :condition (at start (hot)) :effect (at end (not (hot))))
          (:durative-action open :parameters () :duration (= ?duration 1)
            :condition (at start (not (door-open))) :effect (at end (door-open)))
          (:durative-action wipe :parameters () :duration (= ?duration 1)
            :condition (at start (not (clean))) :effect (at end (clean))))",
    )
    .value
    .unwrap();
    let problem = parse_problem(
        "(define (problem p) (:domain oven) (:init) (:goal (and))
          (:metric minimize (+ (* 10 (is-violated shut)) (is-violated tidy))))",
    )
    .value
    .unwrap();
    let task = Task::compile(&domain, &problem).unwrap();
    for (plan, metric) in [
        ("0: (heat) [5]", 1.0),
        ("0: (open) [1]\n2: (heat) [5]", 11.0),
        (
            "0: (heat) [5]\n1: (wipe) [1]\n6: (cool) [2]\n9: (open) [1]\n11: (heat) [5]",
            10.0,
        ),
        (
            "0: (heat) [5]\n4.5: (wipe) [1]\n6: (cool) [2]\n9: (heat) [5]",
            1.0,
        ),
    ] {
        let v = task.validate(&parse_plan(plan).value.unwrap());
        assert!(v.valid, "{plan}: {:?}", v.failure);
        assert_eq!(v.metric, Some(metric), "{plan}");
    }
    // A preference in an `over all` condition is refused by the checker, with its place.
    let over_all = parse_domain(
        "(define (domain o) (:requirements :durative-actions :preferences)
          (:predicates (p))
          (:durative-action a :parameters () :duration (= ?duration 1)
            :condition (preference q (over all (p))) :effect (at end (p))))",
    )
    .value
    .unwrap();
    let p = parse_problem("(define (problem p) (:domain o) (:init) (:goal (p)))")
        .value
        .unwrap();
    let e = Task::compile(&over_all, &p).expect_err("refused");
    let safeplan_validate::TaskError::Invalid(diagnostics) = &e else {
        panic!("{e}")
    };
    assert!(
        diagnostics[0]
            .message
            .contains("a preference here is not supported"),
        "{diagnostics:?}"
    );
}
