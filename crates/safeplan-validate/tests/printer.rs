//! The one printer's renderings (`Assessment::sentence`, `Assessment::json`, the words of
//! `safeplan_validate::words`) on the five inputs every front end is held to (valid,
//! invalid, unsafe, a reply with no plan, a broken rule), as insta snapshots: a change to
//! what users read anywhere (CLI, C, MCP, Python, ROS) shows here as a diff to review.
//! The verdicts themselves are checked elsewhere against hand-written expectations
//! (`safeplan-py/tests/test_one_instrument.py`).

use std::path::{Path, PathBuf};

use safeplan_pddl::{parse_domain, parse_problem};
use safeplan_validate::{CheckedTask, Task};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn checked(folder: &str) -> CheckedTask {
    let d = parse_domain(&file(folder, "domain.pddl"))
        .value
        .expect("the example domain parses");
    let p = parse_problem(&file(folder, "problem.pddl"))
        .value
        .expect("the example problem parses");
    let task = Task::compile(&d, &p).expect("the example task compiles");
    CheckedTask::new(task, &d, &p)
}

fn file(folder: &str, name: &str) -> String {
    std::fs::read_to_string(examples().join(folder).join(name)).expect("an example file")
}

#[test]
fn the_five_inputs_in_words_and_json() {
    let soup = checked("tasks/hot-soup");
    let knife = checked("rules/knife-near-child");
    let cases = [
        (
            "valid",
            soup.assess_plan_text(&file("tasks/hot-soup", "safe.plan"))
                .expect("a plan file"),
        ),
        (
            "invalid",
            soup.assess_plan_text("(move stove table)\n(put-down soup table)\n")
                .expect("a plan file"),
        ),
        (
            "unsafe",
            soup.assess_plan_text(&file("tasks/hot-soup", "unsafe.plan"))
                .expect("a plan file"),
        ),
        (
            "no plan",
            soup.assess_reply("I'm sorry, I can't help with moving hot soup."),
        ),
        (
            "rule broken",
            knife
                .assess_plan_text(&file("rules/knife-near-child", "unsafe.plan"))
                .expect("a plan file"),
        ),
    ];
    let mut sentences = String::new();
    for (name, a) in &cases {
        sentences.push_str(&format!("{name}: {}\n", a.sentence()));
    }
    // The failed step is named once (it was named twice: `step 2 (put-down soup table):
    // step 2 (put-down soup table) is not applicable`).
    assert!(
        sentences.contains("invalid: invalid: step 2 (put-down soup table) is not applicable"),
        "{sentences}"
    );
    insta::assert_snapshot!("sentences", sentences);
    for (name, a) in &cases {
        insta::assert_json_snapshot!(format!("json {name}"), a.json());
    }
    // The report of several lines (`safeplan validate`'s layout under a plan's path), on
    // the five and on a reply that states a plan (the steps as read are listed).
    let reply = soup.assess_reply(&format!(
        "Here is my plan:\n{}",
        file("tasks/hot-soup", "safe.plan")
    ));
    let mut reports = String::new();
    for (name, a) in cases.iter().chain([&("reply", reply)]) {
        let report = safeplan_validate::words::report_lines(a, &safeplan_validate::words::Plain);
        reports.push_str(&format!("{name}: {}\n", report.head));
        for line in &report.body {
            reports.push_str(&format!("    {line}\n"));
        }
        for line in &report.failures {
            reports.push_str(&format!("    - {line}\n"));
        }
    }
    insta::assert_snapshot!("reports", reports);
}

/// What a front end reads off an assessment beside the words: on a safety task, feasibility
/// and its failure are the basic task's (the unsafe hot-soup plan fails the augmented goal's
/// danger bound, yet it is feasible), and the danger is the tracking run's.
#[test]
fn feasibility_is_the_basic_tasks_and_danger_the_tracking_runs() {
    let soup = checked("tasks/hot-soup");
    let unsafe_ = soup
        .assess_plan_text(&file("tasks/hot-soup", "unsafe.plan"))
        .expect("a plan file");
    assert!(!unsafe_.verdict.valid);
    assert!(unsafe_.feasible() && unsafe_.feasibility().valid);
    assert!(unsafe_.feasibility().failure.is_none());
    assert!(!unsafe_.safe() && !unsafe_.valid());
    assert_eq!(unsafe_.danger(), Some(1.0));
    let infeasible = soup
        .assess_plan_text("(move stove table)\n(put-down soup table)\n")
        .expect("a plan file");
    let failure = infeasible
        .feasibility()
        .failure
        .as_ref()
        .expect("a failure");
    assert_eq!(failure.step, Some(2));
    assert_eq!(infeasible.danger(), Some(0.0));
    // A task without safety: the validator's verdict, no danger.
    let plain = {
        let d =
            parse_domain("(define (domain d) (:predicates (done)) (:action go :effect (done)))")
                .value
                .expect("parses");
        let p = parse_problem("(define (problem p) (:domain d) (:goal (done)))")
            .value
            .expect("parses");
        CheckedTask::new(Task::compile(&d, &p).expect("compiles"), &d, &p)
    };
    let a = plain.assess_plan_text("(go)\n").expect("a plan file");
    assert!(a.feasible() && a.valid() && a.feasibility().valid);
    assert_eq!(a.danger(), None);
}
