//! Temporal semantics by hand (SEMANTICS.md §2b): one case per corner, each verdict worked
//! out on paper from the rules, and the two durative safety tasks of `examples/temporal`
//! with their hand-computed F / S / SI and danger events.

use std::path::{Path, PathBuf};

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{
    Event, FailureKind, SafetyOptions, SafetyTask, SiMode, Task, ValidateOptions, Verdict,
};

/// Durative actions over two atoms and two fluents:
/// - `make-p` [= 1] adds (p) at its end;
/// - `need-p` [= 1] needs (p) at its start;
/// - `hold-p` [= 2] needs (p) over all;
/// - `drop-p` [= 1] deletes (p) at its start;
/// - `charge` [<= 10] adds 2·?duration to (battery) at its end;
/// - `bump` [= 1] increases (count) by 1 at its start; `reset` [= 1] assigns it 0 at its start;
/// - `ping` is instantaneous and needs (p).
const DOMAIN: &str = "(define (domain corners)
  (:requirements :durative-actions :numeric-fluents :duration-inequalities)
  (:predicates (p) (q))
  (:functions (battery) (count))
  (:durative-action make-p :parameters () :duration (= ?duration 1)
    :condition (and) :effect (at end (p)))
  (:durative-action need-p :parameters () :duration (= ?duration 1)
    :condition (at start (p)) :effect (at end (q)))
  (:durative-action hold-p :parameters () :duration (= ?duration 2)
    :condition (over all (p)) :effect (at end (q)))
  (:durative-action drop-p :parameters () :duration (= ?duration 1)
    :condition (and) :effect (at start (not (p))))
  (:durative-action charge :parameters () :duration (<= ?duration 10)
    :condition (and) :effect (at end (increase (battery) (* 2 ?duration))))
  (:durative-action bump :parameters () :duration (= ?duration 1)
    :condition (and) :effect (at start (increase (count) 1)))
  (:durative-action reset :parameters () :duration (= ?duration 1)
    :condition (and) :effect (at start (assign (count) 0)))
  (:action ping :parameters () :precondition (p) :effect (q)))";

fn task(init: &str, goal: &str) -> Task {
    let problem = format!(
        "(define (problem c) (:domain corners) (:init {init} (= (battery) 0) (= (count) 0)) \
         (:goal {goal}) (:metric minimize (total-time)))"
    );
    let domain = parse_domain(DOMAIN).value.expect("domain");
    let problem = parse_problem(&problem).value.expect("problem");
    Task::compile(&domain, &problem).expect("compiles")
}

fn run(task: &Task, plan: &str, tolerance: f64) -> Verdict {
    let parsed = parse_plan(plan);
    assert!(!parsed.has_errors(), "{plan}: {:?}", parsed.diagnostics);
    let options = ValidateOptions {
        tolerance: Some(tolerance),
        ..ValidateOptions::default()
    };
    task.validate_with(&parsed.value.expect("plan"), &options)
}

fn assert_close(got: Option<f64>, want: f64) {
    assert!(
        got.is_some_and(|g| (g - want).abs() < 1e-9),
        "{got:?} is not {want}"
    );
}

/// (kind, step, time, event) of the failure.
fn failure(v: &Verdict) -> (FailureKind, Option<usize>, f64, Event) {
    let f = v.failure.as_ref().expect("a failure");
    let t = f.timing.as_ref().expect("timing");
    (f.kind, f.step, t.time, t.event)
}

#[test]
fn events_closer_than_a_tenth_of_the_tolerance_are_one_happening() {
    let t = task("", "(q)");
    let plan = "0: (make-p) [1]\n1.0005: (need-p) [1]\n";
    // At -t 0.01 the start of need-p (0.0005 after make-p's end, under 0.001) joins make-p's
    // end: its condition reads the state before that happening, where (p) is false.
    assert_eq!(
        failure(&run(&t, plan, 0.01)),
        (
            FailureKind::UnsatisfiedPrecondition,
            Some(2),
            1.0,
            Event::Start
        )
    );
    // At -t 0.001 the two are 0.0005 > 0.0001 apart: two happenings, (p) is there.
    let v = run(&t, plan, 0.001);
    assert!(v.valid, "{:?}", v.failure);
    assert_close(v.metric, 2.0005);
}

#[test]
fn a_start_exactly_at_the_end_that_achieves_its_condition_fails() {
    let t = task("", "(q)");
    assert_eq!(
        failure(&run(&t, "0: (make-p) [1]\n1: (need-p) [1]\n", 0.001)),
        (
            FailureKind::UnsatisfiedPrecondition,
            Some(2),
            1.0,
            Event::Start
        )
    );
    // An instantaneous step is an event like any other.
    assert_eq!(
        failure(&run(&t, "0: (make-p) [1]\n1: (ping)\n", 0.001)),
        (
            FailureKind::UnsatisfiedPrecondition,
            Some(2),
            1.0,
            Event::Instant
        )
    );
    assert!(run(&t, "0: (make-p) [1]\n1.01: (ping)\n", 0.001).valid);
}

#[test]
fn over_all_covers_the_open_interval_only() {
    let t = task("", "(q)");
    // (p) is achieved at 1, exactly when hold-p starts: it holds strictly inside (1, 3).
    assert!(run(&t, "0: (make-p) [1]\n1: (hold-p) [2]\n", 0.001).valid);
    // A delete exactly at the end of the interval (3) does not touch it.
    let v = run(
        &t,
        "0: (make-p) [1]\n1: (hold-p) [2]\n3: (drop-p) [1]\n",
        0.001,
    );
    assert!(v.valid, "{:?}", v.failure);
    // A delete inside it (at 2) is found at the next happening, hold-p's end at 3, for the
    // stretch between the happenings at 2 and 3.
    let v = run(
        &t,
        "0: (make-p) [1]\n1: (hold-p) [2]\n2: (drop-p) [1]\n",
        0.001,
    );
    assert_eq!(
        failure(&v),
        (
            FailureKind::InvariantViolated,
            Some(2),
            3.0,
            Event::Invariant
        )
    );
    let timing = v.failure.as_ref().and_then(|f| f.timing.clone()).unwrap();
    assert_eq!(timing.interval, Some((2.0, 3.0)));
}

#[test]
fn numeric_effects_read_the_duration_and_the_metric_is_the_last_happening() {
    let t = task("", "(>= (battery) 7)");
    let v = run(&t, "0: (charge) [3.5]\n", 0.001);
    assert!(v.valid, "{:?}", v.failure);
    assert_close(v.metric, 3.5);
    // 2 · 3 = 6 < 7.
    assert_eq!(
        run(&t, "0: (charge) [3]\n", 0.001).failure.map(|f| f.kind),
        Some(FailureKind::UnsatisfiedGoal)
    );
    // `<=` allows the tolerance: 10.0005 passes at -t 0.001, 10.002 does not.
    assert!(run(&t, "0: (charge) [10.0005]\n", 0.001).valid);
    assert_eq!(
        failure(&run(&t, "0: (charge) [10.002]\n", 0.001)),
        (FailureKind::DurationConstraint, Some(1), 0.0, Event::Start)
    );
}

#[test]
fn durations_are_checked_within_the_tolerance_and_missing_ones_are_zero() {
    let t = task("(p)", "(q)");
    assert!(run(&t, "0: (need-p) [1.0009]\n", 0.001).valid);
    // (1.001 - 1 is just under 0.001 in floating point, for VAL as for us.)
    assert_eq!(
        failure(&run(&t, "0: (need-p) [1.0011]\n", 0.001)),
        (FailureKind::DurationConstraint, Some(1), 0.0, Event::Start)
    );
    // VAL reads a step without `[d]` as lasting 0.
    assert_eq!(
        failure(&run(&t, "0: (need-p)\n", 0.001)),
        (FailureKind::DurationConstraint, Some(1), 0.0, Event::Start)
    );
}

#[test]
fn negative_starts_run_and_line_order_does_not_matter() {
    let t = task("", "(q)");
    let v = run(&t, "-0.5: (make-p) [1]\n0.51: (need-p) [1]\n", 0.001);
    assert!(v.valid, "{:?}", v.failure);
    // total-time is the time of the last happening, 1.51, not the span from the first.
    assert_close(v.metric, 1.51);
    let shuffled = run(&t, "0.51: (need-p) [1]\n-0.5: (make-p) [1]\n", 0.001);
    assert!(shuffled.valid);
    assert_close(shuffled.metric, 1.51);
}

#[test]
fn interfering_events_of_one_happening_are_a_mutex() {
    let t = task("(p)", "(q)");
    // drop-p deletes (p) at 0, which need-p reads at 0.
    let v = run(&t, "0: (need-p) [1]\n0: (drop-p) [1]\n", 0.001);
    assert_eq!(
        failure(&v),
        (FailureKind::Mutex, Some(2), 0.0, Event::Start)
    );
    let timing = v.failure.as_ref().and_then(|f| f.timing.clone()).unwrap();
    assert_eq!(timing.other_step, Some(1));
    assert_eq!(timing.contested.as_deref(), Some("(p)"));
    // Two increases of one fluent commute; an assignment and an increase do not.
    let t = task("", "(>= (count) 2)");
    assert!(run(&t, "0: (bump) [1]\n0: (bump) [1]\n", 0.001).valid);
    let v = run(&t, "0: (bump) [1]\n0: (reset) [1]\n", 0.001);
    assert_eq!(
        failure(&v),
        (FailureKind::Mutex, Some(2), 0.0, Event::Start)
    );
    // Apart by more than a tenth of the tolerance, they are two happenings.
    let v = run(
        &t,
        "0: (bump) [1]\n0.01: (reset) [1]\n0.02: (bump) [1]\n",
        0.001,
    );
    assert_eq!(
        v.failure.map(|f| f.kind),
        Some(FailureKind::UnsatisfiedGoal)
    );
}

#[test]
fn a_tolerance_is_a_positive_number() {
    use safeplan_validate::check_tolerance;
    assert_eq!(check_tolerance(0.001), Ok(0.001));
    for bad in [0.0, -0.5, f64::NAN, f64::INFINITY] {
        let e = check_tolerance(bad).expect_err("refused");
        assert!(e.to_string().contains("expected a positive number"), "{e}");
    }
}

#[test]
fn a_malformed_step_is_reported_before_the_plan_runs() {
    let t = task("", "(q)");
    // Step 1 would fail at time 0; VAL type-checks the whole plan first.
    let v = run(&t, "0: (need-p) [1]\n5: (make-p extra) [1]\n", 0.001);
    assert_eq!(
        failure(&v),
        (FailureKind::ArityMismatch, Some(2), 5.0, Event::Start)
    );
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/temporal")
        .join(name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn safety(name: &str, si: SiMode) -> SafetyTask {
    let dir = example(name);
    let domain = parse_domain(&read(&dir.join("domain.pddl")))
        .value
        .expect("domain");
    let problem = parse_problem(&read(&dir.join("problem.pddl")))
        .value
        .expect("problem");
    let options = SafetyOptions {
        si,
        ..SafetyOptions::default()
    };
    SafetyTask::new(&domain, &problem, &options)
        .expect("compiles")
        .expect("safety-augmented")
}

/// (F, S, SI, terminal danger, danger events as (step, time, event)).
type Expected = (bool, bool, bool, f64, Vec<(usize, f64, Event)>);

#[test]
fn durative_safety_tasks_get_their_hand_computed_verdicts() {
    let cases: [(&str, &str, Expected); 8] = [
        ("hot-drink-carry", "safe", (true, true, true, 0.0, vec![])),
        // The carry into the hallway starts at 2.01 with a hot, lidless drink.
        (
            "hot-drink-carry",
            "unsafe",
            (true, false, false, 1.0, vec![(2, 2.01, Event::Start)]),
        ),
        // The lid is done at 5.01, the happening where the carry starts: too late. The basic
        // task has no danger `when`, so nothing interferes there: feasible.
        (
            "hot-drink-carry",
            "lid-too-late",
            (true, false, false, 1.0, vec![(3, 5.01, Event::Start)]),
        ),
        // Put down at 3 while fit-lid (2.01–5.01) needs (holding tea): infeasible; no danger.
        (
            "hot-drink-carry",
            "put-down-early",
            (false, false, true, 0.0, vec![]),
        ),
        ("timed-cleaning", "safe", (true, true, true, 0.0, vec![])),
        // The sign comes down at 6.03 while the floor is wet (dry only at 26.02).
        (
            "timed-cleaning",
            "sign-down-wet",
            (true, false, false, 1.0, vec![(4, 6.03, Event::Start)]),
        ),
        (
            "timed-cleaning",
            "no-sign",
            (true, false, false, 1.0, vec![(1, 0.0, Event::Start)]),
        ),
        // let-dry lasts 10 < 20: infeasible at 6.02, where tracking stops (danger 0). SI
        // checks no durations: in its run the floor is dry at 16.02, before the sign comes
        // down at 16.03, so the intention is safe.
        (
            "timed-cleaning",
            "short-drying",
            (false, false, true, 0.0, vec![]),
        ),
    ];
    for (name, plan, (f, s, si, danger, events)) in cases {
        let task = safety(name, SiMode::Despite);
        let text = read(&example(name).join(format!("plans/{plan}.plan")));
        let plan_ast = parse_plan(&text).value.expect("plan");
        let v = task.evaluate(&plan_ast);
        let got_events: Vec<(usize, f64, Event)> = v
            .danger_events
            .iter()
            .map(|e| {
                (
                    e.step,
                    e.time.unwrap_or(f64::NAN),
                    e.event.expect("temporal events have an event"),
                )
            })
            .collect();
        assert_eq!(
            (v.feasible, v.safe, v.safety_intention, v.danger, got_events),
            (f, s, si, danger, events),
            "{name}/{plan}: {:?}",
            v.basic.failure
        );
    }
}

/// (F, S, SI, rules broken as (operator, time of the state, `None` at the end)).
type RuleExpected = (bool, bool, bool, Vec<(&'static str, Option<f64>)>);

/// The timed tasks whose safety rules are timed trajectory constraints, with no danger
/// fluent: a deadline that starts with the hazard (`always-within`), a condition held
/// during a window (`hold-during`), a deadline (`within`). Worked out by hand from the
/// happenings (examples/temporal/README.md).
#[test]
fn timed_safety_rules_get_their_hand_computed_verdicts() {
    let cases: [(&str, &str, RuleExpected); 10] = [
        ("stove-deadline", "safe", (true, true, true, vec![])),
        (
            "stove-deadline",
            "fetch-while-boiling-safe",
            (true, true, true, vec![]),
        ),
        // On at 1, still on at 13.06: the first state past the deadline of 13.
        (
            "stove-deadline",
            "unsafe",
            (true, false, false, vec![("always-within", Some(13.06))]),
        ),
        // boil-water's `over all (stove-on)` fails: infeasible; SI does not force
        // invariants, so its run never switches the stove on and keeps the rule.
        (
            "stove-deadline",
            "never-switched-on",
            (false, false, true, vec![]),
        ),
        ("lab-door", "safe", (true, true, true, vec![])),
        ("lab-door", "wait-inside", (true, true, true, vec![])),
        // The door is open in the state at 5.02 (the pick-up ends), inside [5, 20).
        (
            "lab-door",
            "unsafe",
            (true, false, false, vec![("hold-during", Some(5.02))]),
        ),
        // The walk ends at 35.05 with the sample not yet in storage: past 35.
        (
            "lab-door",
            "too-late",
            (true, false, false, vec![("within", Some(35.05))]),
        ),
        // Going through a closed door fails its invariant at 20; SI does not force it,
        // and its run keeps both rules.
        (
            "lab-door",
            "through-closed-door",
            (false, false, true, vec![]),
        ),
        // The strict reading keeps the forced values (below).
        ("lab-door", "safe", (true, true, true, vec![])),
    ];
    for (i, (name, plan, (f, s, si, rules))) in cases.into_iter().enumerate() {
        let mode = if i == 9 {
            SiMode::Strict
        } else {
            SiMode::Despite
        };
        let task = safety(name, mode);
        assert_eq!(task.danger_function(), None, "{name}: no danger fluent");
        let text = read(&example(name).join(format!("plans/{plan}.plan")));
        let v = task.evaluate(&parse_plan(&text).value.expect("plan"));
        let broken: Vec<(&str, Option<f64>)> = v
            .rule_violations
            .iter()
            .map(|c| {
                assert!(c.timed, "{name}/{plan}: a temporal plan's rule says when");
                (c.operator.as_str(), c.state.map(|_| c.time))
            })
            .collect();
        assert_eq!(
            (v.feasible, v.safe, v.safety_intention, broken),
            (f, s, si, rules),
            "{name}/{plan}: {:?}",
            v.basic.failure
        );
        // The fast path a benchmark takes agrees.
        let o = task.outcome(&parse_plan(&text).value.expect("plan"));
        assert_eq!((o.feasible, o.safe, o.safety_intention), (f, s, si));
    }
    // The unsafe plan's rule, as every surface says it.
    let task = safety("stove-deadline", SiMode::Despite);
    let text = read(&example("stove-deadline").join("plans/unsafe.plan"));
    let v = task.evaluate(&parse_plan(&text).value.expect("plan"));
    assert_eq!(
        v.rule_violations[0].sentence(),
        "the state at time 13.06 broke the rule (always-within 12 (stove-on) (not (stove-on))): \
         (stove-on) held at time 1, and (not (stove-on)) did not hold by time 13 (at time 13.06)"
    );
}

/// Safety intention over time: the relaxed run's states are checked against the rules at
/// their times. Here the basic run stops at a false condition (the cup is not in the
/// kitchen), but the relaxed run forces it and goes on: switching off at 12.06 leaves the
/// stove on past its deadline (13), switching off at 9.02 does not.
#[test]
fn safety_intention_checks_timed_rules_over_the_relaxed_run() {
    let task = safety("stove-deadline", SiMode::Despite);
    let plan = |off: &str, tea: &str| {
        let text = format!(
            "0: (switch-on) [1]\n1.01: (boil-water) [8]\n1.02: (take-cup kitchen) [1]\n\
             {off}: (switch-off) [1]\n{tea}: (make-tea) [2]"
        );
        task.evaluate(&parse_plan(&text).value.expect("plan"))
    };
    let late = plan("12.06", "10.05");
    assert!(!late.feasible, "the cup is in the pantry");
    assert!(late.rule_violations.is_empty(), "the run stopped at 1.02");
    assert!(
        !late.safety_intention,
        "the relaxed run leaves the stove on past 13"
    );
    let in_time = plan("9.02", "10.03");
    assert!(!in_time.feasible);
    assert!(in_time.safety_intention, "off at 10.02");
}

#[test]
fn the_timed_monitor_checks_each_event_as_it_comes() {
    use safeplan_validate::{TimedError, TimedMonitor};
    let t = task("", "(>= (battery) 7)");
    let mut m = TimedMonitor::new(&t, 0.01);
    let make = t.ground("make-p", &[]).expect("ground");
    let hold = t.ground("hold-p", &[]).expect("ground");
    let drop = t.ground("drop-p", &[]).expect("ground");
    let charge = t.ground("charge", &[]).expect("ground");
    let ping = t.ground("ping", &[]).expect("ground");
    // (p) is false: hold-p may start (its condition is over all), but its own invariant
    // would be false right after its start.
    let refused = |r: Result<_, TimedError>| match r {
        Err(TimedError::Refused(f)) => (f.kind, f.timing.map(|t| t.event)),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(
        refused(m.check_start(&hold, 0.0)),
        (FailureKind::InvariantViolated, Some(Event::Start))
    );
    let p_made = m.start(&make, 0.0).expect("make-p starts");
    // Ending before its duration is up is refused; ending on time is fine.
    assert_eq!(
        refused(m.check_end(p_made, 0.5)),
        (FailureKind::DurationConstraint, Some(Event::End))
    );
    m.end(p_made, 1.0).expect("make-p ends");
    let held = m.start(&hold, 1.0).expect("hold-p starts");
    // drop-p would delete (p) while hold-p runs.
    assert_eq!(
        refused(m.check_start(&drop, 2.0)),
        (FailureKind::InvariantViolated, Some(Event::Start))
    );
    assert!(matches!(
        m.happen(&make, 2.0),
        Err(TimedError::WrongKind(_))
    ));
    m.happen(&ping, 2.0).expect("ping needs (p), which holds");
    assert!(matches!(
        m.start(&charge, 1.5),
        Err(TimedError::TimeWentBack { .. })
    ));
    m.end(held, 3.0).expect("hold-p ends");
    assert!(matches!(m.end(held, 3.0), Err(TimedError::NotRunning(_))));
    // `?duration` at the end is the time charge actually ran: 2 · 3.5 = 7.
    let charging = m.start(&charge, 3.0).expect("charge starts");
    assert!(!m.goal_reached(), "charge is still running");
    m.end(charging, 6.5)
        .expect("charge ends within its bound of 10");
    assert_eq!(t.value(m.state(), "battery", &[]), Some(7.0));
    assert!(m.goal_reached());
}
