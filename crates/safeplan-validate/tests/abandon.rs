//! `abandon_when`: an evaluation whose caller stopped waiting ends instead of trying all of
//! a quantifier's bindings (here 300^4 = 8.1·10⁹ of them, minutes of work), and the flag
//! applies to the thread that set it only.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Task, ValidateOptions, abandon_when};

const DOMAIN: &str = "(define (domain adv) (:requirements :typing :universal-preconditions :negative-preconditions)
  (:types obj) (:predicates (p ?a ?b ?c ?d - obj) (q))
  (:action go :parameters () :precondition (forall (?a ?b ?c ?d - obj) (not (p ?a ?b ?c ?d))) :effect (q)))";

fn task(objects: &str, init: &str) -> Task {
    let domain = parse_domain(DOMAIN).value.expect("domain");
    let problem = parse_problem(&format!(
        "(define (problem p) (:domain adv) (:objects {objects} - obj) (:init {init}) (:goal (q)))"
    ))
    .value
    .expect("problem");
    Task::compile(&domain, &problem).expect("compiles")
}

#[test]
fn an_abandoned_evaluation_ends_and_the_flag_applies_only_to_its_thread() {
    let objects: Vec<String> = (0..300).map(|i| format!("o{i}")).collect();
    let big = Arc::new(task(&objects.join(" "), ""));
    let plan = parse_plan("(go)").value.expect("plan");
    let flag = Arc::new(AtomicBool::new(false));
    let (done, finished) = channel();
    let (release, released) = channel::<()>();
    let worker = {
        let (big, flag, plan) = (big.clone(), flag.clone(), plan.clone());
        std::thread::spawn(move || {
            let _abandon = abandon_when(flag);
            let verdict = big.validate_with(&plan, &ValidateOptions::default());
            done.send(verdict.valid).ok();
            // Keep the guard, its flag set, while the main thread validates.
            released.recv().ok();
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
    // The worker still holds its guard with the flag set; on this thread nothing is
    // abandoned: small quantifiers are evaluated in full, both ways.
    let blocked = task("a b", "(p a a a a)");
    assert!(
        !blocked.validate(&plan).valid,
        "(p a a a a) holds, so `go` is not applicable"
    );
    assert!(task("a b", "").validate(&plan).valid);
    release.send(()).ok();
    worker.join().expect("no panic");
}

#[test]
fn an_asked_watch_abandons_once_its_question_says_so_and_lets_the_question_validate() {
    use safeplan_validate::abandon_when_asked;
    use std::cell::Cell;
    use std::rc::Rc;

    let objects: Vec<String> = (0..300).map(|i| format!("o{i}")).collect();
    let big = task(&objects.join(" "), "");
    let plan = parse_plan("(go)").value.expect("plan");
    let asked = Rc::new(Cell::new(0u32));
    let nested = Rc::new(Cell::new(None));
    let guard = {
        let (asked, nested, plan) = (asked.clone(), nested.clone(), plan.clone());
        abandon_when_asked(Duration::from_millis(10), move || {
            asked.set(asked.get() + 1);
            // A question may evaluate (a Python signal handler that validates): the thread's
            // state is free for it, and its evaluation runs in full.
            if asked.get() == 1 {
                nested.set(Some(task("a b", "(p a a a a)").validate(&plan).valid));
            }
            asked.get() >= 3
        })
    };
    assert!(!guard.abandoned());
    // Minutes of work without the watch; a liveness bound is the test's own timeout.
    let _meaningless = big.validate(&plan);
    assert!(
        guard.abandoned(),
        "the evaluation ended because it was abandoned"
    );
    assert_eq!(asked.get(), 3, "asked until it said so, then not again");
    assert_eq!(
        nested.get(),
        Some(false),
        "(p a a a a) holds: `go` not applicable"
    );
    drop(guard);
    // The guard gone, nothing is abandoned.
    assert!(task("a b", "").validate(&plan).valid);
    assert!(!safeplan_validate::abandoned());
}

#[test]
fn a_question_that_never_says_so_changes_no_verdict() {
    use safeplan_validate::abandon_when_asked;
    let plan = parse_plan("(go)").value.expect("plan");
    let objects: Vec<String> = (0..30).map(|i| format!("o{i}")).collect();
    let _guard = abandon_when_asked(Duration::ZERO, || false);
    // 30^4 = 810,000 bindings; asked every 256 of them (the interval is zero).
    assert!(task(&objects.join(" "), "").validate(&plan).valid);
    assert!(
        !task(&objects.join(" "), "(p o29 o29 o29 o29)")
            .validate(&plan)
            .valid
    );
}

/// The plan-step loop and the constraint tracker look at the watch too: a million
/// constraint instances judged in each of 20,000 states is minutes of work with no
/// quantifier to look at the flag (each instance is one atom), and it used to run to the
/// end after the caller had stopped waiting.
#[test]
fn an_abandoned_validation_of_a_constraint_heavy_task_ends() {
    let domain = parse_domain(
        "(define (domain many) (:requirements :typing :constraints :negative-preconditions)
          (:types obj) (:predicates (p ?a ?b ?c - obj) (q))
          (:action tick :parameters () :precondition (and) :effect (q)))",
    )
    .value
    .expect("domain");
    let objects: Vec<String> = (0..100).map(|i| format!("o{i}")).collect();
    let problem = parse_problem(&format!(
        "(define (problem p) (:domain many) (:objects {} - obj) (:init) (:goal (q))
           (:constraints (forall (?a ?b ?c - obj) (always (not (p ?a ?b ?c))))))",
        objects.join(" ")
    ))
    .value
    .expect("problem");
    let task = Arc::new(Task::compile(&domain, &problem).expect("compiles"));
    let plan = parse_plan(&"(tick)\n".repeat(20_000)).value.expect("plan");
    for quiet in [false, true] {
        let flag = Arc::new(AtomicBool::new(false));
        let (done, finished) = channel();
        let worker = {
            let (task, flag, plan) = (task.clone(), flag.clone(), plan.clone());
            std::thread::spawn(move || {
                let _abandon = abandon_when(flag);
                let answer = if quiet {
                    safeplan_validate::Validator::new(&task, ValidateOptions::default())
                        .is_valid(&plan)
                } else {
                    task.validate(&plan).valid
                };
                done.send(answer).ok();
            })
        };
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            finished.try_recv().is_err(),
            "2·10¹⁰ instance checks cannot be done in 200 ms"
        );
        flag.store(true, Ordering::Relaxed);
        // A liveness bound, not a speed claim: without the flag this takes many minutes.
        finished
            .recv_timeout(Duration::from_secs(30))
            .expect("the abandoned validation ended");
        worker.join().expect("no panic");
    }
}
