//! `safeplan plan`: plans in IPC format that `safeplan validate` accepts as claimed, the
//! targets of a safety-augmented task, JSON statistics, and exit codes 0 / 1 / 2 / 3.

use super::{DOMAIN, Dir, code, json, run, stderr, stdout};

const SOUP_DOMAIN: &str = include_str!("../../../../examples/tasks/hot-soup/domain.pddl");
const SOUP_PROBLEM: &str = include_str!("../../../../examples/tasks/hot-soup/problem.pddl");

fn soup(test: &str) -> Dir {
    let dir = Dir::new(test);
    dir.write("domain.pddl", SOUP_DOMAIN)
        .write("problem.pddl", SOUP_PROBLEM);
    dir
}

/// The plan lines of `plan`'s output (comments dropped).
fn steps(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with('(')).collect()
}

#[test]
fn safe_plan_by_default_on_a_safety_augmented_task_and_validate_agrees() {
    let dir = soup("plan-safe");
    let out = run(&dir, &["plan", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    // Hand-checked: the shortest safe plan slows down before moving: 4 steps.
    assert_eq!(steps(&text).len(), 4, "{text}");
    assert!(steps(&text).contains(&"(slow-down)"), "{text}");
    assert!(
        text.contains("; safe plan: 4 steps, shortest (lmcut, by auto)"),
        "{text}"
    );
    dir.write("found.plan", &text);
    let check = run(
        &dir,
        &["validate", "domain.pddl", "problem.pddl", "found.plan"],
    );
    assert_eq!(code(&check), 0, "{}", stdout(&check));
}

#[test]
fn unsafe_plan_is_feasible_and_unsafe_for_validate() {
    let dir = soup("plan-unsafe");
    let out = run(
        &dir,
        &[
            "plan",
            "--unsafe",
            "--search",
            "bfs",
            "domain.pddl",
            "problem.pddl",
        ],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        steps(&text),
        [
            "(pick-up soup stove)",
            "(move stove table)",
            "(put-down soup table)"
        ]
    );
    dir.write("found.plan", &text);
    let check = run(
        &dir,
        &[
            "validate",
            "--color",
            "never",
            "domain.pddl",
            "problem.pddl",
            "found.plan",
        ],
    );
    assert_eq!(code(&check), 1);
    assert!(
        stdout(&check).contains("feasible, UNSAFE"),
        "{}",
        stdout(&check)
    );
}

#[test]
fn effort_prints_both_plans_and_the_difference() {
    let dir = soup("plan-effort");
    let out = run(&dir, &["plan", "--effort", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("; safe plan (4 steps)"), "{text}");
    assert!(text.contains("; unsafe plan (3 steps)"), "{text}");
    assert!(
        text.contains("; safety effort: 1 (safe 4 - unsafe 3)"),
        "{text}"
    );
    // Under the default, effort's plans are LM-cut's alone, and the output says so.
    assert!(
        text.contains("; unsafe plan: 3 steps, shortest (lmcut, auto's search for shortest plans)"),
        "{text}"
    );
    let out = run(
        &dir,
        &["plan", "--effort", "--json", "domain.pddl", "problem.pddl"],
    );
    let v = json(&out);
    assert_eq!(v["effort"], 1);
    assert_eq!(v["safe"]["length"], 4);
    assert_eq!(v["unsafe"]["length"], 3);
}

#[test]
fn json_has_the_plan_and_statistics() {
    let dir = soup("plan-json");
    let out = run(
        &dir,
        &["plan", "--unsafe", "--json", "domain.pddl", "problem.pddl"],
    );
    assert_eq!(code(&out), 0);
    let v = json(&out);
    assert_eq!(v["target"], "unsafe");
    assert_eq!(v["status"], "found");
    // The default, `auto`, names the search that concluded: LM-cut, on a task this small.
    assert_eq!(v["algorithm"], "lmcut");
    assert_eq!(v["optimal"], true);
    assert_eq!(v["length"], 3);
    assert_eq!(v["plan"].as_array().map(Vec::len), Some(3));
    assert!(v["stats"]["expanded"].as_u64() > Some(0));
    assert_eq!(v["grounding"]["numeric"], 1);
}

#[test]
fn proven_unsolvable_exits_1() {
    let dir = Dir::new("plan-unsolvable");
    dir.write("domain.pddl", DOMAIN).write(
        "problem.pddl",
        "(define (problem t) (:domain d) (:objects o1) (:init (q o1)) (:goal (p o1)))",
    );
    let out = run(&dir, &["plan", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).starts_with("; no plan exists: every reachable state was explored"));
}

#[test]
fn a_limit_exits_3_with_a_hint() {
    let dir = Dir::new("plan-limit");
    dir.write(
        "domain.pddl",
        "(define (domain c) (:requirements :fluents) (:functions (n))
           (:action inc :parameters () :effect (increase (n) 1)))",
    )
    .write(
        "problem.pddl",
        "(define (problem t) (:domain c) (:init (= (n) 0)) (:goal (>= (n) 1000)))",
    );
    let out = run(
        &dir,
        &["plan", "--max-states", "10", "domain.pddl", "problem.pddl"],
    );
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("the state limit was reached"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("raise --max-states"),
        "{}",
        stdout(&out)
    );
}

/// Under the default, `auto`, a plan LAMA found after LM-cut stopped at a limit is said to
/// be LAMA's and not called shortest (touch 5 of 60 objects: LM-cut stores 60 states per
/// expansion and stops at 100; LAMA stores only the states it takes).
#[test]
fn auto_says_when_lama_found_the_plan() {
    let dir = Dir::new("plan-auto-lama");
    let objects: String = (0..60).map(|i| format!(" o{i}")).collect();
    let goal: String = (0..5).map(|i| format!(" (touched o{i})")).collect();
    dir.write(
        "domain.pddl",
        "(define (domain touch) (:predicates (touched ?o))
           (:action touch :parameters (?o) :precondition (not (touched ?o))
             :effect (touched ?o)))",
    )
    .write(
        "problem.pddl",
        format!(
            "(define (problem p) (:domain touch) (:objects{objects}) (:init) (:goal (and{goal})))"
        ),
    );
    let out = run(
        &dir,
        &["plan", "--max-states", "100", "domain.pddl", "problem.pddl"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_eq!(steps(&text).len(), 5, "{text}");
    assert!(
        text.contains(
            "; plan: 5 steps, not necessarily shortest (lama, after auto's LM-cut stopped at a limit);"
        ),
        "{text}"
    );
    let out = run(
        &dir,
        &[
            "plan",
            "--max-states",
            "100",
            "--json",
            "domain.pddl",
            "problem.pddl",
        ],
    );
    let v = json(&out);
    assert_eq!(v["algorithm"], "lama");
    assert_eq!(v["optimal"], false);
}

#[test]
fn safety_targets_need_the_danger_fluent() {
    let dir = Dir::new("plan-not-augmented");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", super::PROBLEM);
    let out = run(&dir, &["plan", "--unsafe", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--unsafe needs a safety task"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("hint:"), "{}", stderr(&out));
    // Without a flag the task's own goal is planned for.
    let out = run(&dir, &["plan", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 0);
    assert_eq!(steps(&stdout(&out)).len(), 2);
}

#[test]
fn bad_input_exits_2_and_plans_nothing() {
    let dir = soup("plan-bad");
    let out = run(
        &dir,
        &["plan", "--timeout=-1", "domain.pddl", "problem.pddl"],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--timeout -1 is not a positive number"),
        "{}",
        stderr(&out)
    );
    dir.write(
        "broken.pddl",
        "(define (problem t) (:domain d) (:goal (nope)))",
    );
    let out = run(&dir, &["plan", "domain.pddl", "broken.pddl"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("no plan was searched for"),
        "{}",
        stderr(&out)
    );
}

/// Two routes to `c`: two hops at 1 each, or one jump at 5, and the metric `metric`.
fn routes(test: &str, metric: &str) -> Dir {
    let dir = Dir::new(test);
    dir.write(
        "domain.pddl",
        "(define (domain routes) (:requirements :typing :action-costs)
           (:constants a b c)
           (:predicates (at ?p) (link ?p ?q))
           (:functions (total-cost) (fuel))
           (:action hop :parameters (?p ?q) :precondition (and (at ?p) (link ?p ?q))
             :effect (and (not (at ?p)) (at ?q) (increase (total-cost) 1)))
           (:action jump :parameters () :precondition (at a)
             :effect (and (not (at a)) (at c) (increase (total-cost) 5) (increase (fuel) (total-cost)))))",
    )
    .write(
        "problem.pddl",
        format!(
            "(define (problem p) (:domain routes)
               (:init (at a) (link a b) (link b c) (= (total-cost) 0) (= (fuel) 0))
               (:goal (at c)) {metric})"
        ),
    );
    dir
}

/// When `total-cost` starts above 0 the metric (12) is not the plan's cost (2): both are
/// printed, the cost in the search's measure as every front end gives it. Computed by hand.
#[test]
fn a_metric_that_starts_above_zero_is_printed_beside_the_cost() {
    let dir = routes("plan-costs-start", "(:metric minimize (total-cost))");
    let problem = std::fs::read_to_string(dir.path().join("problem.pddl")).unwrap();
    dir.write(
        "problem.pddl",
        problem.replace("(= (total-cost) 0)", "(= (total-cost) 10)"),
    );
    let out = run(&dir, &["plan", "--json", "domain.pddl", "problem.pddl"]);
    let v = json(&out);
    assert_eq!(v["plan"], serde_json::json!(["(hop a b)", "(hop b c)"]));
    assert_eq!(
        (&v["cost"], &v["metric"]),
        (&serde_json::json!(2), &serde_json::json!(12.0))
    );
    let out = run(&dir, &["plan", "domain.pddl", "problem.pddl"]);
    assert!(
        stdout(&out).contains("; cost = 2\n; metric = 12\n"),
        "{}",
        stdout(&out)
    );
}

/// Under an action-cost metric the default finds the cheapest plan (two hops, cost 2, not
/// the one-step jump at 5) and says so; BFS finds the jump and does not call it cheapest.
/// A metric that is not action costs is not minimized, and the output says why and gives
/// its value beside the cost in steps.
#[test]
fn action_costs_are_minimized_and_another_metric_is_named() {
    let dir = routes("plan-costs", "(:metric minimize (total-cost))");
    let out = run(&dir, &["plan", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert_eq!(steps(&text), ["(hop a b)", "(hop b c)"], "{text}");
    assert!(
        text.contains("; plan: 2 steps, cheapest by the metric's action costs (lmcut, by auto)"),
        "{text}"
    );
    assert!(text.contains("; cost = 2\n"), "{text}");
    let out = run(
        &dir,
        &[
            "plan",
            "--search",
            "bfs",
            "--json",
            "domain.pddl",
            "problem.pddl",
        ],
    );
    let v = json(&out);
    assert_eq!(v["plan"], serde_json::json!(["(jump)"]));
    assert_eq!(
        (&v["measure"], &v["optimal"], &v["cost"]),
        (
            &serde_json::json!("action_costs"),
            &serde_json::json!(false),
            &serde_json::json!(5)
        )
    );
    let out = run(
        &dir,
        &["plan", "--search", "bfs", "domain.pddl", "problem.pddl"],
    );
    assert!(
        stdout(&out).contains("; plan: 1 steps, not necessarily cheapest (bfs)"),
        "{}",
        stdout(&out)
    );

    // `(fuel)` is raised by the cost so far: a state's number, not an action cost.
    let dir = routes("plan-costs-fuel", "(:metric minimize (fuel))");
    let out = run(&dir, &["plan", "--json", "domain.pddl", "problem.pddl"]);
    let v = json(&out);
    assert_eq!(v["plan"], serde_json::json!(["(jump)"]));
    assert_eq!(v["measure"], "steps");
    let why = "plans are measured in steps, not by the metric: (jump) increases it by an \
               amount that depends on the state of (fuel)";
    assert_eq!(v["metric_ignored"], why);
    // The plan's cost is in the search's measure (1 step), as the library's and Python's
    // results say; the metric the validator computes (the jump reads `total-cost` before
    // it rises: 0) is its own field.
    assert_eq!(
        (&v["cost"], &v["metric"]),
        (&serde_json::json!(1), &serde_json::json!(0.0))
    );
    let out = run(&dir, &["plan", "domain.pddl", "problem.pddl"]);
    assert!(
        stdout(&out).contains(&format!("; cost = 1\n; metric = 0\n; {why}\n")),
        "{}",
        stdout(&out)
    );
}
