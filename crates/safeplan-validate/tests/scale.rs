//! Tasks far too big to ground: 1,000 objects and an action with three parameters (10⁹
//! ground actions, a ternary predicate with 10⁹ possible atoms). Nothing is grounded ahead
//! of time, so a 100-step plan validates at once; the speed itself is measured in
//! docs/benchmarks.md, not asserted here.

use std::fmt::Write as _;

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{FailureKind, Task};

const N: usize = 1000;

fn task() -> Task {
    let domain = "(define (domain relay) (:requirements :typing)
      (:types node)
      (:predicates (token ?n - node) (link ?a ?b ?c - node) (seen ?a ?b ?c - node))
      (:action pass :parameters (?a ?b ?c - node)
        :precondition (and (token ?a) (link ?a ?b ?c))
        :effect (and (not (token ?a)) (token ?c) (seen ?a ?b ?c))))";
    let mut problem = String::from("(define (problem big) (:domain relay) (:objects");
    for i in 0..N {
        let _ = write!(problem, " n{i}");
    }
    problem.push_str(" - node) (:init (token n0)");
    for i in 0..100 {
        let _ = write!(problem, " (link n{i} n{} n{})", (i * 7 + 3) % N, i + 1);
    }
    problem.push_str(") (:goal (token n100)))");
    let domain = parse_domain(domain).value.expect("domain");
    let problem = parse_problem(&problem).value.expect("problem");
    Task::compile(&domain, &problem).expect("compiles")
}

fn plan(steps: usize, skip: Option<usize>) -> String {
    (0..steps)
        .filter(|&i| Some(i) != skip)
        .map(|i| format!("(pass n{i} n{} n{})\n", (i * 7 + 3) % N, i + 1))
        .collect()
}

#[test]
fn a_task_with_a_billion_ground_actions_validates_a_100_step_plan() {
    let task = task();
    let good = parse_plan(&plan(100, None)).value.expect("plan");
    let verdict = task.validate(&good);
    assert!(verdict.valid, "{:?}", verdict.failure);
    let bad = parse_plan(&plan(100, Some(50))).value.expect("plan");
    let failure = task.validate(&bad).failure.expect("invalid");
    assert_eq!(failure.kind, FailureKind::UnsatisfiedPrecondition);
    assert_eq!(failure.step, Some(51));
    assert_eq!(failure.unmet[0].literal, "(token n51)");
}
