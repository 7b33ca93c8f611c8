//! The same semantics through every representation: plans as text, steps and batches, and
//! the monitor fed one step at a time.

use safeplan_pddl::Plan;
use safeplan_validate::{CompileOptions, Failure, FailureKind, Monitor, ValidateOptions};

use super::{
    FLEET_DOMAIN, FLEET_PROBLEM, LIGHTS_DOMAIN, LIGHTS_PROBLEM, NUM_DOMAIN, NUM_PROBLEM,
    ROADS_DOMAIN, ROBOT_DOMAIN, ROBOT_PROBLEM, TOGGLE_DOMAIN, TOWER_DOMAIN, TOWER_PROBLEM,
    TYPED_DOMAIN, TYPED_PROBLEM, WHENS_DOMAIN, compile, compile_with, num, plan, roads_problem,
    robot,
};

/// (domain, problem, plans) for cross-checks.
fn corpus() -> Vec<(&'static str, String, Vec<&'static str>)> {
    vec![
        (
            TOGGLE_DOMAIN,
            "(define (problem t) (:domain toggle) (:objects a b)
              (:init (q a) (q b) (p a)) (:goal (and (p a) (p b))))"
                .into(),
            vec!["(reset a) (reset b)", "(reset a)", "(reset c)", ""],
        ),
        (
            WHENS_DOMAIN,
            "(define (problem w) (:domain whens) (:init (p) (c1)) (:goal (fired)))".into(),
            vec![
                "(consume)",
                "(consume) (consume) (del-then-add)",
                "(maybe) (add-then-del)",
            ],
        ),
        (
            LIGHTS_DOMAIN,
            LIGHTS_PROBLEM.into(),
            vec![
                "(mark-rooms) (power-on) (sweep) (flip)",
                "(flip) (sweep) (mark-rooms)",
                "(sweep)",
            ],
        ),
        (
            FLEET_DOMAIN,
            FLEET_PROBLEM.into(),
            vec![
                "(any-ready)",
                "(all-fueled)",
                "(enter market)",
                "(differ c1 t1)",
            ],
        ),
        (
            NUM_DOMAIN,
            NUM_PROBLEM.into(),
            vec![
                "(swap) (double) (add-up) (scale) (bump-undefined)",
                "(assign-and-increase)",
                "(noop) (divide)",
                "(read-undefined)",
            ],
        ),
        (
            ROADS_DOMAIN,
            roads_problem("(:metric minimize (total-cost))"),
            vec![
                "(drive x y) (drive y z)",
                "(drive x z) (drive x y)",
                "(drive x y)",
            ],
        ),
        (
            TYPED_DOMAIN,
            TYPED_PROBLEM.into(),
            vec![
                "(move c1 home work) (park c1 work)",
                "(park v1 home)",
                "(move c1 x y)",
            ],
        ),
        (
            ROBOT_DOMAIN,
            ROBOT_PROBLEM.into(),
            vec![
                "(go r hall kitchen) (lock r d1 kitchen)",
                "(go r hall garage) (lock r d1 kitchen)",
                "(leave r)",
            ],
        ),
        (
            TOWER_DOMAIN,
            TOWER_PROBLEM.into(),
            vec![
                "(unstack a b) (unstack b c) (paint c)",
                "(paint c)",
                "(unstack a b)",
            ],
        ),
    ]
}

#[test]
fn dense_and_sparse_layouts_agree() {
    let sparse = CompileOptions {
        dense_limit: 0,
        ..Default::default()
    };
    let mut checked = 0;
    for (domain, problem, plans) in corpus() {
        let dense_task = compile(domain, &problem);
        let sparse_task = compile_with(domain, &problem, &sparse);
        for text in plans {
            for keep_going in [false, true] {
                let options = ValidateOptions {
                    keep_going,
                    keep_final_state: true,
                    tolerance: None,
                };
                let p = plan(text);
                let (a, sa) = dense_task.execute(&p, &options);
                let (b, sb) = sparse_task.execute(&p, &options);
                assert_eq!(a, b, "{text}");
                assert!(a.final_state.is_some());
                assert_eq!(
                    dense_task.describe_state(&sa),
                    sparse_task.describe_state(&sb),
                    "{text}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 30);
    // Derived atoms are not in the described state: compare them directly.
    let dense_task = compile(TOWER_DOMAIN, TOWER_PROBLEM);
    let sparse_task = compile_with(TOWER_DOMAIN, TOWER_PROBLEM, &sparse);
    let p = plan("(unstack a b)");
    let (_, sa) = dense_task.execute(&p, &ValidateOptions::default());
    let (_, sb) = sparse_task.execute(&p, &ValidateOptions::default());
    for x in ["a", "b", "c", "d"] {
        for y in ["a", "b", "c", "d"] {
            assert_eq!(
                dense_task.holds(&sa, "above", &[x, y]),
                sparse_task.holds(&sb, "above", &[x, y])
            );
        }
    }
}

#[test]
fn validate_batch_keeps_the_input_order() {
    let task = compile(
        ROADS_DOMAIN,
        &roads_problem("(:metric minimize (total-cost))"),
    );
    let valid = ["(drive x y) (drive y z)", "(drive x z)"];
    let invalid = [
        "(drive y z)",
        "(drive x y)",
        "(drive x y) (drive x z)",
        "(fly x)",
    ];
    let plans: Vec<Plan> = (0..200)
        .map(|i| {
            plan(if i % 2 == 0 {
                valid[i / 2 % valid.len()]
            } else {
                invalid[i / 2 % invalid.len()]
            })
        })
        .collect();
    let options = ValidateOptions::default();
    let batch = task.validate_batch(&plans, &options);
    assert_eq!(batch.len(), plans.len());
    for (i, (v, p)) in batch.iter().zip(&plans).enumerate() {
        assert_eq!(v.valid, i % 2 == 0, "plan {i}");
        assert_eq!(v, &task.validate(p), "plan {i}");
    }
    assert_eq!(batch[0].metric, Some(7.0));
    assert_eq!(batch[2].metric, Some(10.0));
}

#[test]
fn monitor_check_does_not_change_the_state() {
    let task = robot();
    let monitor = Monitor::new(&task);
    let before = task.describe_state(monitor.state());
    let go = task.ground("go", &["r", "hall", "kitchen"]).unwrap();
    assert!(monitor.check(&go).is_ok());
    assert!(monitor.check(&go).is_ok());
    assert_eq!(task.describe_state(monitor.state()), before);
    assert_eq!(monitor.steps(), 0);
}

#[test]
fn monitor_apply_of_an_inapplicable_action_changes_nothing() {
    let task = robot();
    let mut monitor = Monitor::new(&task);
    let before = task.describe_state(monitor.state());
    let lock = task.ground("lock", &["r", "d1", "kitchen"]).unwrap();
    let err = monitor.apply(&lock).unwrap_err();
    assert_eq!(err.kind, FailureKind::UnsatisfiedPrecondition);
    assert_eq!(err.step, Some(1));
    assert_eq!(err.action.as_deref(), Some("(lock r d1 kitchen)"));
    assert_eq!(unmet_of(&err), ["(at r kitchen)", "(not (door-open d1))"]);
    assert_eq!(task.describe_state(monitor.state()), before);
    assert_eq!(monitor.steps(), 0);
    // A numeric error when applying also leaves the state alone.
    let task = num();
    let mut monitor = Monitor::new(&task);
    let before = task.describe_state(monitor.state());
    let bad = task.ground("two-assigns", &[]).unwrap();
    assert_eq!(
        monitor.apply(&bad).unwrap_err().kind,
        FailureKind::NumericError
    );
    assert_eq!(task.describe_state(monitor.state()), before);
    assert_eq!(monitor.steps(), 0);
}

#[test]
fn monitor_check_reports_what_apply_would_reject() {
    let task = num();
    let monitor = Monitor::new(&task);
    for name in ["two-assigns", "assign-and-increase", "scale-by-zero"] {
        let action = task.ground(name, &[]).unwrap();
        let checked = monitor.check(&action).map_err(|f| f.kind);
        let applied = monitor.clone().apply(&action).map_err(|f| f.kind);
        assert_eq!(applied, Err(FailureKind::NumericError), "{name}");
        assert_eq!(checked, applied, "{name}");
    }
}

fn unmet_of(f: &Failure) -> Vec<&str> {
    f.unmet.iter().map(|u| u.literal.as_str()).collect()
}

#[test]
fn monitor_reaches_the_goal_and_numbers_steps_from_applied_actions() {
    let task = robot();
    let mut monitor = Monitor::new(&task);
    assert!(!monitor.goal_reached());
    let go = task.ground("go", &["r", "hall", "kitchen"]).unwrap();
    monitor.apply(&go).unwrap();
    // A rejected action is not counted.
    let leave = task.ground("leave", &["r"]).unwrap();
    assert!(monitor.apply(&leave).is_err());
    let lock = task.ground("lock", &["r", "d1", "kitchen"]).unwrap();
    let err = monitor.check(&lock).unwrap_err();
    // One action applied (the rejected one does not count): this would be step 2.
    assert_eq!(err.step, Some(2));
    assert_eq!(
        unmet_of(&err),
        ["(not (door-open d1))", "(>= (battery r) 10)"]
    );
    assert_eq!(err.advice[0], "set (door-open d1) to false before step 2");
    assert_eq!(monitor.steps(), 1);
    assert_eq!(task.value(monitor.state(), "battery", &["r"]), Some(8.0));
    assert_eq!(
        task.holds(monitor.state(), "at", &["r", "kitchen"]),
        Some(true)
    );

    // A problem where the robot can finish: d1 closed, battery enough for everything.
    let problem = ROBOT_PROBLEM
        .replace("(door-open d1) ", "")
        .replace("(= (battery r) 13)", "(= (battery r) 40)");
    let task = compile(ROBOT_DOMAIN, &problem);
    let mut monitor = Monitor::new(&task);
    for (action, args) in [
        ("lock", &["r", "d2", "hall"][..]),
        ("go", &["r", "hall", "kitchen"]),
        ("lock", &["r", "d1", "kitchen"]),
    ] {
        assert!(!monitor.goal_reached());
        monitor.apply(&task.ground(action, args).unwrap()).unwrap();
    }
    assert!(monitor.goal_reached());
    assert_eq!(monitor.steps(), 3);
    assert_eq!(task.value(monitor.state(), "battery", &["r"]), Some(31.0));
    // The next failure would be step 4.
    let go = task.ground("go", &["r", "hall", "garage"]).unwrap();
    assert_eq!(monitor.check(&go).unwrap_err().step, Some(4));
    // Grounding errors carry no step.
    let err = task.ground("fly", &["r"]).unwrap_err();
    assert_eq!((err.kind, err.step), (FailureKind::UnknownAction, None));
    let err = task.ground("go", &["r", "hall"]).unwrap_err();
    assert_eq!(err.kind, FailureKind::ArityMismatch);
    let err = task.ground("go", &["hall", "hall", "kitchen"]).unwrap_err();
    assert_eq!(err.kind, FailureKind::TypeMismatch);
}
