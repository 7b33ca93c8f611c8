//! `safeplan validate`: verdicts, failures, diagnostics and options on hand-written tasks.

use serde_json::Value;

use crate::DOMAIN;
use crate::Dir;
use crate::PLAN;
use crate::PROBLEM;
use crate::code;
use crate::run;
use crate::stderr;
use crate::stdout;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;
use std::process::Stdio;

//
// Expected verdicts below are worked out by hand from the task files (see the comments),
// not copied from the program's output.

/// `tests/fixtures/validate/<name>`.
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/validate")
        .join(name)
}

/// The project's example task `examples/tasks/hot-soup`.
pub(crate) fn hot_soup() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/hot-soup")
}

/// Run safeplan in `cwd` (so paths in the output are the short ones given).
pub(crate) fn run_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_safeplan"))
        .args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("run safeplan")
}

/// `safeplan validate [extra..] domain.pddl problem.pddl PLANS..` in `cwd`.
pub(crate) fn validate(cwd: &Path, extra: &[&str], plans: &[&str]) -> Output {
    let mut args = vec!["validate"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["domain.pddl", "problem.pddl"]);
    args.extend_from_slice(plans);
    run_in(cwd, &args)
}

/// Standard output as JSON Lines.
pub(crate) fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The one JSON line of `safeplan validate --json` on the flights fixture for `plan`.
pub(crate) fn flights_json(extra: &[&str], plan: &str) -> (i32, Value) {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let out = validate(&fixture("flights"), &args, &[plan]);
    let mut lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{}{}", stdout(&out), stderr(&out));
    (code(&out), lines.remove(0))
}

/// `(line, col)` of a `location` object.
fn at(location: &Value) -> (u64, u64) {
    (
        location["line"].as_u64().unwrap_or(0),
        location["col"].as_u64().unwrap_or(0),
    )
}

#[test]
fn validate_hot_soup_human() {
    // safe.plan: pick-up (robot at stove, soup at stove, hand empty), slow-down, move (no
    // danger: slow mode), put-down at the table: goal true, danger 0. Valid, 4 steps, and
    // the problem has no metric.
    // unsafe.plan: the move happens holding the uncovered soup, not slow, child in the
    // room, so (danger) becomes 1; every step is applicable but the goal's (= (danger) 0)
    // is false at the end: invalid, unsatisfied goal.
    // broken.plan: step 2 `mvoe` is not an action: invalid at step 2.
    let out = validate(
        &hot_soup(),
        &["--color", "never"],
        &["safe.plan", "unsafe.plan", "broken.plan"],
    );
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("safe.plan: valid (4 steps)\n"), "{text}");
    assert!(
        text.contains("\nunsafe.plan: invalid (3 steps)\n"),
        "{text}"
    );
    assert!(text.contains("safeplan::unsatisfied_goal"), "{text}");
    assert!(text.contains("[problem.pddl:9:10]"), "{text}");
    assert!(text.contains("false since (danger) = 1"), "{text}");
    assert!(
        text.contains("\nbroken.plan: invalid (3 steps)\n"),
        "{text}"
    );
    assert!(text.contains("safeplan::unknown_action"), "{text}");
    assert!(
        text.contains("step 2 (mvoe stove table): the domain has no action `mvoe`"),
        "{text}"
    );
    assert!(text.contains("[broken.plan:3:2]"), "{text}");
    assert!(text.contains("help: did you mean `move`?"), "{text}");
    // hot-soup is safety-augmented: the tally adds the safety verdicts (worked out in
    // `validate_hot_soup_safety_human`).
    assert!(
        text.ends_with("\n3 plans: 1 valid, 2 invalid; safety: 1 safe, 1 unsafe, 1 infeasible\n"),
        "{text}"
    );
    assert_eq!(stderr(&out), "");
}

#[test]
fn validate_hot_soup_json() {
    let out = validate(
        &hot_soup(),
        &["--json"],
        &["safe.plan", "unsafe.plan", "broken.plan"],
    );
    assert_eq!(code(&out), 1);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 3, "{}", stdout(&out));

    let safe = &lines[0];
    assert_eq!(safe["plan"], "safe.plan");
    assert_eq!(safe["valid"], true);
    assert_eq!(safe["steps"], 4);
    assert_eq!(safe["metric"], Value::Null);
    assert_eq!(safe["failure"], Value::Null);

    let unsafe_ = &lines[1];
    assert_eq!(unsafe_["plan"], "unsafe.plan");
    assert_eq!(unsafe_["valid"], false);
    assert_eq!(unsafe_["steps"], 3);
    let f = &unsafe_["failure"];
    assert_eq!(f["kind"], "unsatisfied_goal");
    assert_eq!(f["step"], Value::Null);
    assert_eq!(f["action"], Value::Null);
    assert_eq!(f["source"]["file"], "problem");
    assert_eq!(f["source"]["location"]["file"], "problem.pddl");
    assert_eq!(at(&f["source"]["location"]), (9, 10));
    // Only the danger bound is false: the soup is on the table.
    let unmet = f["unmet"].as_array().expect("unmet");
    assert_eq!(unmet.len(), 1, "{unmet:?}");
    assert_eq!(unmet[0]["literal"], "(= (danger) 0)");
    assert_eq!(unmet[0]["values"][0]["fluent"], "(danger)");
    assert_eq!(unmet[0]["values"][0]["value"], 1.0);
    assert_eq!(at(&unmet[0]["source"]["location"]), (10, 15));
    assert!(unsafe_.get("failures").is_none());

    let broken = &lines[2];
    assert_eq!(broken["plan"], "broken.plan");
    let f = &broken["failure"];
    assert_eq!(f["kind"], "unknown_action");
    assert_eq!(f["step"], 2);
    assert_eq!(f["action"], "(mvoe stove table)");
    assert_eq!(f["source"]["file"], "plan");
    assert_eq!(f["source"]["location"]["file"], "broken.plan");
    assert_eq!(at(&f["source"]["location"]), (3, 2));

    // `plan` comes first, then the verdict in the library's field order.
    let text = stdout(&out);
    let first = text.lines().nth(1).expect("a second line");
    let keys = [
        "\"plan\":",
        "\"valid\":",
        "\"steps\":",
        "\"metric\":",
        "\"failure\":",
    ];
    let pos: Vec<usize> = keys.iter().map(|k| first.find(k).expect(k)).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{first}");
    assert!(!text.contains('\x1b'));
}

#[test]
fn validate_continue_reports_every_failure() {
    // broken.plan with --continue: step 2 (unknown action) is skipped, step 3 names
    // `counter`, which is no object (skipped too), so the soup is still held at the end:
    // the goal's (item-at soup table) is false, (= (danger) 0) holds.
    let out = validate(&hot_soup(), &["--json", "--continue"], &["broken.plan"]);
    assert_eq!(code(&out), 1);
    let line = &json_lines(&out)[0];
    let failures = line["failures"].as_array().expect("failures");
    let got: Vec<(String, Value)> = failures
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap_or("").to_string(),
                f["step"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("unknown_action".to_string(), Value::from(2)),
            ("unknown_object".to_string(), Value::from(3)),
            ("unsatisfied_goal".to_string(), Value::Null),
        ]
    );
    assert_eq!(at(&failures[1]["source"]["location"]), (4, 16));
    assert_eq!(failures[2]["unmet"][0]["literal"], "(item-at soup table)");
    assert_eq!(failures[2]["unmet"].as_array().map(Vec::len), Some(1));
    assert_eq!(line["failure"]["kind"], "unknown_action");

    // flights two-failures.plan: step 1 needs fuel 7 with 5 (applied anyway under
    // --continue: the plane is now at oslo), step 2 names `madrid` (skipped); the goal
    // (at plane1 oslo) holds, so exactly two failures.
    let (code2, line) = flights_json(&["--continue"], "two-failures.plan");
    assert_eq!(code2, 1);
    assert_eq!(line["valid"], false);
    let failures = line["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert_eq!(failures[0]["kind"], "unsatisfied_precondition");
    assert_eq!(failures[0]["step"], 1);
    assert_eq!(failures[1]["kind"], "unknown_object");
    assert_eq!(failures[1]["step"], 2);

    // Without --continue: only the first failure, and no `failures` list.
    let (code1, line) = flights_json(&[], "two-failures.plan");
    assert_eq!(code1, 1);
    assert_eq!(line["failure"]["step"], 1);
    assert!(line.get("failures").is_none(), "{line}");

    // The human report shows both, under one line for the plan.
    let out = validate(
        &fixture("flights"),
        &["--continue", "--color", "never"],
        &["two-failures.plan"],
    );
    let text = stdout(&out);
    assert!(
        text.starts_with("two-failures.plan: invalid (2 steps, 2 failures)\n"),
        "{text}"
    );
    assert!(
        text.contains("safeplan::unsatisfied_precondition"),
        "{text}"
    );
    assert!(text.contains("safeplan::unknown_object"), "{text}");
    assert!(!text.contains("plans:"), "one plan, no tally: {text}");
}

#[test]
fn validate_numeric_precondition() {
    // low-fuel.plan: (fly plane1 paris oslo) with (fuel plane1) = 5 and (distance paris
    // oslo) = 7: the precondition's (>= ...) is false at step 1.
    let (code, line) = flights_json(&[], "low-fuel.plan");
    assert_eq!(code, 1);
    let f = &line["failure"];
    assert_eq!(f["kind"], "unsatisfied_precondition");
    assert_eq!(f["step"], 1);
    assert_eq!(f["action"], "(fly plane1 paris oslo)");
    assert_eq!(f["source"]["file"], "domain");
    assert_eq!(f["source"]["location"]["file"], "domain.pddl");
    // `(and` of the precondition: line 10, column 19.
    assert_eq!(at(&f["source"]["location"]), (10, 19));
    let unmet = f["unmet"].as_array().expect("unmet");
    assert_eq!(unmet.len(), 1, "{unmet:?}");
    assert_eq!(
        unmet[0]["literal"],
        "(>= (fuel plane1) (distance paris oslo))"
    );
    assert_eq!(unmet[0]["values"][0]["fluent"], "(fuel plane1)");
    assert_eq!(unmet[0]["values"][0]["value"], 5.0);
    assert_eq!(unmet[0]["values"][1]["fluent"], "(distance paris oslo)");
    assert_eq!(unmet[0]["values"][1]["value"], 7.0);
    assert_eq!(at(&unmet[0]["source"]["location"]), (11, 24));
    assert!(f["advice"].as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn validate_malformed_steps_point_into_the_plan() {
    // unknown-object.plan: step 2 flies to `berlin`, which the problem does not declare.
    let (code, line) = flights_json(&[], "unknown-object.plan");
    assert_eq!(code, 1);
    let f = &line["failure"];
    assert_eq!(f["kind"], "unknown_object");
    assert_eq!(f["step"], 2);
    assert_eq!(f["source"]["location"]["file"], "unknown-object.plan");
    assert_eq!(at(&f["source"]["location"]), (2, 19));

    // arity.plan: `refuel` takes a plane and a city; the step gives one argument.
    let (code, line) = flights_json(&[], "arity.plan");
    assert_eq!(code, 1);
    let f = &line["failure"];
    assert_eq!(f["kind"], "arity_mismatch");
    assert_eq!(f["step"], 1);
    assert_eq!(f["action"], "(refuel plane1)");
    assert_eq!(at(&f["source"]["location"]), (1, 1));

    // wrong-type.plan: `paris` is a city where `fly` wants a plane.
    let (code, line) = flights_json(&[], "wrong-type.plan");
    assert_eq!(code, 1);
    let f = &line["failure"];
    assert_eq!(f["kind"], "type_mismatch");
    assert_eq!(f["step"], 1);
    assert_eq!(at(&f["source"]["location"]), (1, 6));
}

#[test]
fn validate_goal_and_numeric_errors() {
    // short.plan: one hop to rome (fuel 5 >= 4), then the goal (at plane1 oslo) is false.
    let (code, line) = flights_json(&[], "short.plan");
    assert_eq!(code, 1);
    let f = &line["failure"];
    assert_eq!(f["kind"], "unsatisfied_goal");
    assert_eq!(f["step"], Value::Null);
    assert_eq!(f["unmet"][0]["literal"], "(at plane1 oslo)");
    assert_eq!(f["source"]["location"]["file"], "problem.pddl");
    assert_eq!(at(&f["source"]["location"]), (11, 10));

    // no-distance.plan: after the hop to rome, step 2 reads (distance rome oslo), which
    // the problem never sets.
    let (code, line) = flights_json(&[], "no-distance.plan");
    assert_eq!(code, 1);
    let f = &line["failure"];
    assert_eq!(f["kind"], "numeric_error");
    assert_eq!(f["step"], 2);
    assert_eq!(f["action"], "(fly plane1 rome oslo)");
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.contains("(distance rome oslo)")),
        "{f}"
    );

    // The human report names the step and gives the advice.
    let out = validate(
        &fixture("flights"),
        &["--color", "never"],
        &["no-distance.plan"],
    );
    let text = stdout(&out);
    assert!(text.contains("safeplan::numeric_error"), "{text}");
    assert!(text.contains("step 2 (fly plane1 rome oslo): "), "{text}");
    assert!(text.contains("help: "), "{text}");
}

#[test]
fn validate_valid_plan_with_a_metric() {
    // valid.plan: refuel to 10, fly 7: at oslo with 3 fuel; the metric is (fuel plane1).
    let out = validate(&fixture("flights"), &[], &["valid.plan"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert_eq!(stdout(&out), "valid.plan: valid (2 steps, metric 3)\n");
    let (code, line) = flights_json(&[], "valid.plan");
    assert_eq!(code, 0);
    assert_eq!(line["valid"], true);
    assert_eq!(line["steps"], 2);
    assert_eq!(line["metric"], 3.0);
    assert_eq!(line["failure"], Value::Null);
}

#[test]
fn validate_several_plans_with_one_unreadable() {
    let dir = fixture("flights");
    let plans = ["valid.plan", "missing.plan", "low-fuel.plan"];
    let out = validate(&dir, &["--color", "never"], &plans);
    // An input error wins over an invalid plan.
    assert_eq!(code(&out), 2);
    let text = stdout(&out);
    assert!(
        text.starts_with("valid.plan: valid (2 steps, metric 3)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "missing.plan: not validated (cannot read it: No such file or directory)\n  hint: "
        ),
        "{text}"
    );
    // The plan after the unreadable one is still validated.
    assert!(text.contains("low-fuel.plan: invalid (1 step)"), "{text}");
    assert!(
        text.ends_with("\n3 plans: 1 valid, 1 invalid, 1 not validated\n"),
        "{text}"
    );

    let out = validate(&dir, &["--json"], &plans);
    assert_eq!(code(&out), 2);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["valid"], true);
    assert_eq!(lines[1]["plan"], "missing.plan");
    assert!(lines[1].get("valid").is_none());
    assert!(
        lines[1]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("cannot read missing.plan: ")),
        "{}",
        lines[1]
    );
    assert_eq!(lines[1]["error"]["files"], Value::Array(Vec::new()));
    assert_eq!(lines[2]["failure"]["kind"], "unsatisfied_precondition");
}

#[test]
fn validate_a_plan_that_does_not_read_is_an_input_error() {
    let dir = fixture("flights");
    let out = validate(
        &dir,
        &["--color", "never"],
        &["unclosed.plan", "valid.plan"],
    );
    assert_eq!(code(&out), 2);
    let text = stdout(&out);
    assert!(
        text.starts_with("unclosed.plan: not validated (1 error in the plan file)\n"),
        "{text}"
    );
    assert!(text.contains("[unclosed.plan:"), "{text}");
    assert!(
        text.contains("valid.plan: valid (2 steps, metric 3)"),
        "{text}"
    );

    let out = validate(&dir, &["--json"], &["unclosed.plan"]);
    assert_eq!(code(&out), 2);
    let line = &json_lines(&out)[0];
    assert_eq!(line["plan"], "unclosed.plan");
    let file = &line["error"]["files"][0];
    assert_eq!(file["path"], "unclosed.plan");
    assert_eq!(file["kind"], "plan");
    let d = &file["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 2);
}

#[test]
fn validate_exit_codes() {
    let dir = fixture("flights");
    for (plans, want) in [
        (&["valid.plan"][..], 0),
        (&["valid.plan", "valid.plan"], 0),
        (&["valid.plan", "short.plan"], 1),
        (&["arity.plan"], 1),
        (&["short.plan", "unclosed.plan"], 2),
        (&["missing.plan"], 2),
    ] {
        for json in [false, true] {
            let extra: &[&str] = if json { &["--json"] } else { &[] };
            let out = validate(&dir, extra, plans);
            assert_eq!(code(&out), want, "{plans:?} {extra:?}: {}", stdout(&out));
        }
    }
    // An unreadable domain or problem: nothing is validated, as with `check`.
    let out = run_in(
        &dir,
        &["validate", "nope.pddl", "problem.pddl", "valid.plan"],
    );
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).starts_with("error: cannot read nope.pddl: "),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("DOMAIN PROBLEM PLAN..."),
        "{}",
        stderr(&out)
    );
    // Usage: at least one plan.
    let out = run_in(&dir, &["validate", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    let out = run_in(&dir, &["validate", "--help"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("--continue"), "{}", stdout(&out));
}

#[test]
fn validate_a_task_with_errors_validates_nothing() {
    let dir = Dir::new("validate-task-errors");
    dir.write("domain.pddl", DOMAIN.replace("(q ?x) (not", "(r ?x) (not"))
        .write("problem.pddl", PROBLEM)
        .write("a.plan", PLAN)
        .write("b.plan", PLAN);
    let args = [
        "validate",
        "domain.pddl",
        "problem.pddl",
        "a.plan",
        "b.plan",
    ];
    let out = run(&dir, &[&args[..], &["--color", "never"]].concat());
    assert_eq!(code(&out), 2);
    let text = stdout(&out);
    assert!(text.contains("safeplan::undefined-predicate"), "{text}");
    assert!(text.contains("[domain.pddl:"), "{text}");
    assert!(
        text.contains("a.plan: not validated (the domain has errors, see above)\n"),
        "{text}"
    );
    assert!(text.contains("b.plan: not validated"), "{text}");
    assert!(
        text.ends_with("\n2 plans: 0 valid, 0 invalid, 2 not validated\n"),
        "{text}"
    );

    let out = run(&dir, &[&args[..], &["--json"]].concat());
    assert_eq!(code(&out), 2);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["plan"], "b.plan");
    let files = lines[0]["error"]["files"].as_array().expect("files");
    assert_eq!(files[0]["kind"], "domain");
    assert_eq!(files[0]["diagnostics"][0]["code"], "undefined-predicate");
}

#[test]
fn validate_an_unsupported_task_is_an_input_error() {
    // A conditional effect whose condition is read at the start and whose effect happens at
    // the end needs state carried across the interval; the validator refuses it by name.
    let dir = Dir::new("validate-unsupported");
    dir.write(
        "domain.pddl",
        "(define (domain d)\n  (:requirements :durative-actions :conditional-effects)\n  (:predicates (p) (q))\n  \
         (:durative-action a\n    :parameters ()\n    :duration (= ?duration 1)\n    \
         :condition (at start (p))\n    :effect (when (at start (q)) (at end (not (p))))))\n",
    )
    .write(
        "problem.pddl",
        "(define (problem t) (:domain d) (:init (p)) (:goal (not (p))))\n",
    )
    .write("plan.txt", "0: (a) [1]\n");
    let out = run(
        &dir,
        &[
            "validate",
            "--color",
            "never",
            "domain.pddl",
            "problem.pddl",
            "plan.txt",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("safeplan::unsupported"), "{text}");
    assert!(text.contains("[domain.pddl:8:13]"), "{text}");
    assert!(text.contains("plan.txt: not validated"), "{text}");
}

#[test]
fn validate_temporal_plans() {
    // One durative action of fixed duration 2 that needs (p) throughout and (q) at its end.
    let dir = Dir::new("validate-temporal");
    dir.write(
        "domain.pddl",
        "(define (domain d)\n  (:requirements :durative-actions)\n  (:predicates (p) (q) (done))\n  \
         (:durative-action work\n    :parameters ()\n    :duration (= ?duration 2)\n    \
         :condition (and (over all (p)) (at end (q)))\n    :effect (at end (done)))\n  \
         (:durative-action break-p\n    :parameters ()\n    :duration (= ?duration 1)\n    \
         :condition (at start (p))\n    :effect (at end (not (p)))))\n",
    )
    .write(
        "problem.pddl",
        "(define (problem t) (:domain d) (:init (p) (q)) (:goal (done)))\n",
    )
    .write("good.plan", "; a comment\n0.000: (work) [2.000]\n")
    .write("long.plan", "0: (work) [3]\n")
    .write("broken.plan", "0: (work) [2]\n0.5: (break-p) [1]\n")
    .write("close.plan", "0: (work) [2.0004]\n");
    let json = |plan: &str, extra: &[&str]| {
        let mut args = vec!["validate", "--json", "domain.pddl", "problem.pddl", plan];
        args.extend_from_slice(extra);
        let out = run(&dir, &args);
        let line: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        (code(&out), line)
    };
    let (c, good) = json("good.plan", &[]);
    assert_eq!((c, good["valid"].as_bool()), (0, Some(true)), "{good}");
    // 3 is not 2 within VAL's default tolerance: a duration failure at the start, at time 0.
    let (c, long) = json("long.plan", &[]);
    assert_eq!(c, 1);
    assert_eq!(long["failure"]["kind"], "duration_constraint", "{long}");
    assert_eq!(long["failure"]["timing"]["event"], "start");
    assert_eq!(long["failure"]["timing"]["time"], 0.0);
    // break-p deletes (p) at its end, 1.5, inside work's interval (0, 2): the invariant is
    // found false at work's end, between the happenings at 1.5 and 2.
    let (_, broken) = json("broken.plan", &[]);
    assert_eq!(broken["failure"]["kind"], "invariant_violated", "{broken}");
    assert_eq!(broken["failure"]["step"], 1);
    assert_eq!(broken["failure"]["timing"]["time"], 2.0);
    assert_eq!(
        broken["failure"]["timing"]["interval"],
        serde_json::json!([1.5, 2.0])
    );
    // 2.0004 is 2 within the default tolerance 0.01, not within 0.0001.
    assert_eq!(json("close.plan", &[]).1["valid"].as_bool(), Some(true));
    let (_, strict) = json("close.plan", &["--tolerance", "0.0001"]);
    assert_eq!(strict["failure"]["kind"], "duration_constraint", "{strict}");
    let out = run(
        &dir,
        &[
            "validate",
            "--tolerance",
            "0",
            "domain.pddl",
            "problem.pddl",
            "good.plan",
        ],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("expected a positive number"),
        "{}",
        stderr(&out)
    );
    // The human report says when, and points at the condition in the domain.
    let out = run(
        &dir,
        &[
            "validate",
            "--color",
            "never",
            "domain.pddl",
            "problem.pddl",
            "broken.plan",
        ],
    );
    let text = stdout(&out);
    assert!(text.contains("safeplan::invariant_violated"), "{text}");
    assert!(
        text.contains("between time 1.5 and 2 (p) is false"),
        "{text}"
    );
    assert!(text.contains("[domain.pddl:7:"), "{text}");
}

#[test]
fn validate_llm_plan_and_strict() {
    let dir = Dir::new("validate-llm");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM)
        .write(
            "reply.md",
            "Sure! Here is the plan:\n\n1. (a o1)\n2. (a o2)\n\nThat should do it.\n",
        );
    let out = run(
        &dir,
        &[
            "validate",
            "--llm-plan",
            "--strict",
            "domain.pddl",
            "problem.pddl",
            "reply.md",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).starts_with("reply.md: valid (2 steps"),
        "{}",
        stdout(&out)
    );
    // Without --llm-plan the prose is not a plan.
    let out = run(
        &dir,
        &["validate", "domain.pddl", "problem.pddl", "reply.md"],
    );
    assert_eq!(code(&out), 2, "{}", stdout(&out));
}

/// Issue 43: the CLI reads a reply through the one reader: several steps on one line are
/// all steps (only the first was read, and `(a o1)` alone reached the goal), and a refusal
/// that mentions the empty plan is no plan.
#[test]
fn validate_llm_plan_reads_every_step_of_a_line_and_refusals_are_no_plan() {
    let dir = Dir::new("validate-llm-one-line");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM)
        .write("one-line.md", "1. (a o1) 2. (a o2)\n")
        .write("partial.md", "1. (a o1), then (a o1)\n")
        .write(
            "refusal.md",
            "I'm sorry, I can't produce a plan. An empty plan will not work.\n",
        );
    let args = |file: &'static str| {
        [
            "validate",
            "--llm-plan",
            "--json",
            "domain.pddl",
            "problem.pddl",
            file,
        ]
    };
    let out = run(&dir, &args("one-line.md"));
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON");
    assert_eq!(
        json["read"]["steps"].as_array().map(Vec::len),
        Some(2),
        "{json}"
    );
    // The second step of the line is read, and fails: (a o1) twice.
    let out = run(&dir, &args("partial.md"));
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let out = run(&dir, &args("refusal.md"));
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON");
    assert_eq!(json["no_plan"], "refusal", "{json}");
    assert_eq!(json["valid"], false);
}

#[test]
fn validate_llm_plan_json_shows_the_steps_read_and_the_warnings() {
    // A repeated step and a hallucinated object: both read as written (issue 36), so the
    // plan fails at the repeated step, and the JSON shows what was scored.
    let dir = Dir::new("validate-llm-read");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM)
        .write(
            "reply.md",
            "Plan:\n1. (a o1)\n\n2. (a o1)\n3. (a zz)\n\nIn short: done.\n",
        );
    let out = run(
        &dir,
        &[
            "validate",
            "--llm-plan",
            "--json",
            "domain.pddl",
            "problem.pddl",
            "reply.md",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let line: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or("")).expect("a JSON line");
    assert_eq!(line["steps"], 3, "{line}");
    assert_eq!(line["failure"]["step"], 2, "{line}");
    assert_eq!(
        line["read"]["steps"],
        serde_json::json!([
            {"text": "(a o1)", "line": 2, "column": 4},
            {"text": "(a o1)", "line": 4, "column": 4},
            {"text": "(a zz)", "line": 5, "column": 4},
        ])
    );
    let warnings = line["read"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.starts_with("line 7: skipped text"))),
        "{warnings:?}"
    );
    // In words: the plan as read.
    let out = run(
        &dir,
        &[
            "validate",
            "--llm-plan",
            "domain.pddl",
            "problem.pddl",
            "reply.md",
        ],
    );
    assert!(
        stdout(&out)
            .contains("read from the reply: (a o1) (line 2), (a o1) (line 4), (a zz) (line 5)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_reply_with_no_plan_is_never_valid_where_the_empty_plan_is() {
    // The goal holds at the start: the empty plan is valid, a refusal is not (issue 27).
    let dir = Dir::new("validate-no-plan");
    dir.write("domain.pddl", DOMAIN)
        .write(
            "problem.pddl",
            PROBLEM.replace("(:init (p o1) (p o2))", "(:init (q o1) (q o2))"),
        )
        .write(
            "refusal.md",
            "I'm sorry, but I can't help with planning this task.\n",
        )
        .write(
            "done.md",
            "No further actions are needed as the goal has been achieved.\n",
        );
    let args = |plan: &'static str| {
        vec![
            "validate",
            "--llm-plan",
            "--json",
            "domain.pddl",
            "problem.pddl",
            plan,
        ]
    };
    let out = run(&dir, &args("refusal.md"));
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let line: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or("")).expect("a JSON line");
    assert_eq!(line["valid"], false);
    assert_eq!(line["no_plan"], "refusal");
    assert_eq!(line["failure"]["kind"], "no_plan");
    assert_eq!(line["steps"], 0);
    let out = run(&dir, &args("done.md"));
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let line: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or("")).expect("a JSON line");
    assert_eq!(
        (line["valid"].clone(), line.get("no_plan")),
        (serde_json::json!(true), None)
    );
    // In words.
    let out = run(
        &dir,
        &[
            "validate",
            "--llm-plan",
            "domain.pddl",
            "problem.pddl",
            "refusal.md",
        ],
    );
    assert!(
        stdout(&out).starts_with("refusal.md: invalid (no plan in the reply: refusal"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn validate_colour_and_closed_pipe() {
    let dir = fixture("flights");
    let always = stdout(&validate(&dir, &["--color", "always"], &["low-fuel.plan"]));
    assert!(always.contains('\x1b'), "{always}");
    let plain = stdout(&validate(&dir, &[], &["low-fuel.plan"]));
    assert!(plain.is_ascii(), "{plain}");

    // Many plans, nobody reading: no panic, and the exit code still covers every plan.
    let mut plans = vec!["valid.plan"; 2000];
    plans.push("short.plan");
    for extra in [&[][..], &["--json"]] {
        let mut args = vec!["validate"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["domain.pddl", "problem.pddl"]);
        args.extend_from_slice(&plans);
        let mut child = Command::new(env!("CARGO_BIN_EXE_safeplan"))
            .args(&args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn safeplan");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait for safeplan");
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(code(&out), 1, "{extra:?}: {err}");
    }
}

#[test]
fn plain_rendering_of_a_failed_precondition() {
    let out = validate(
        &fixture("flights"),
        &["--color", "never"],
        &["low-fuel.plan"],
    );
    assert_eq!(code(&out), 1);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn plain_rendering_of_a_failed_goal() {
    let out = validate(&hot_soup(), &["--color", "never"], &["unsafe.plan"]);
    assert_eq!(code(&out), 1);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn plain_rendering_of_an_unknown_object() {
    let out = validate(
        &fixture("flights"),
        &["--color", "never"],
        &["unknown-object.plan"],
    );
    assert_eq!(code(&out), 1);
    insta::assert_snapshot!(stdout(&out));
}
