//! `abandon_when`: an evaluation whose caller stopped waiting ends instead of trying all of
//! a quantifier's bindings (here 300^4 = 8.1·10⁹ of them, minutes of work).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Task, ValidateOptions, abandon_when};

const DOMAIN: &str = "(define (domain adv) (:requirements :typing :universal-preconditions :negative-preconditions)
  (:types obj) (:predicates (p ?a ?b ?c ?d - obj) (q))
  (:action go :parameters () :precondition (forall (?a ?b ?c ?d - obj) (not (p ?a ?b ?c ?d))) :effect (q)))";

fn problem() -> String {
    let objects: Vec<String> = (0..300).map(|i| format!("o{i}")).collect();
    format!(
        "(define (problem adv1) (:domain adv) (:objects {} - obj) (:init) (:goal (q)))",
        objects.join(" ")
    )
}

#[test]
fn an_abandoned_evaluation_ends_and_the_flag_applies_only_to_its_thread() {
    let domain = parse_domain(DOMAIN).value.expect("domain");
    let problem = parse_problem(&problem()).value.expect("problem");
    let task = Arc::new(Task::compile(&domain, &problem).expect("compiles"));
    let plan = parse_plan("(go)").value.expect("plan");
    let flag = Arc::new(AtomicBool::new(false));
    let (done, finished) = std::sync::mpsc::channel();
    let worker = {
        let (task, flag) = (task.clone(), flag.clone());
        std::thread::spawn(move || {
            let _abandon = abandon_when(flag);
            let verdict = task.validate_with(&plan, &ValidateOptions::default());
            done.send(verdict.valid).ok();
        })
    };
    // The evaluation is under way (minutes of work); the caller gives up.
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        finished.try_recv().is_err(),
        "8.1e9 bindings cannot be done in 200 ms"
    );
    flag.store(true, Ordering::Relaxed);
    // A liveness bound, not a speed claim: without the flag this takes minutes.
    finished
        .recv_timeout(Duration::from_secs(60))
        .expect("the abandoned validation ended");
    worker.join().expect("no panic");
    // The guard is gone with its thread; on this thread nothing is abandoned: a small
    // quantifier is still evaluated in full (the goal check says (q) is false, not valid).
    let small = parse_problem(
        "(define (problem s) (:domain adv) (:objects a b - obj) (:init (p a a a a)) (:goal (q)))",
    )
    .value
    .expect("problem");
    let small = Task::compile(&domain, &small).expect("compiles");
    let verdict = small.validate(&parse_plan("(go)").value.expect("plan"));
    assert!(
        !verdict.valid,
        "(p a a a a) holds, so `go` is not applicable"
    );
    let free = parse_problem(
        "(define (problem s) (:domain adv) (:objects a b - obj) (:init) (:goal (q)))",
    )
    .value
    .expect("problem");
    let free = Task::compile(&domain, &free).expect("compiles");
    assert!(
        free.validate(&parse_plan("(go)").value.expect("plan"))
            .valid
    );
}
