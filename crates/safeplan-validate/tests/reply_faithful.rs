//! The reply reader never changes the plan the model wrote, proved by construction
//! (docs/FORMAT.md, "The invariant"; docs/benchmarks.md, "Reading by construction").
//!
//! Every sequential plan of the corpora (the IPC manifest, DESPITE's oracle, the PDDL3
//! manifest's plan files), mutated in each way models err (`reply_styles::Mutation`), is
//! written in reply shapes composed from independent dimensions (`reply_gen::Shape`, drawn
//! from a fixed seed per plan) and read back with the task's names. The reading must be
//! exactly the plan written (same steps, same order) — or no plan with its reason; never
//! another plan — and the verdict on it must equal strict validation of that plan written as
//! an IPC plan file. The reader's coverage invariant is asserted inside it (debug builds) on
//! every one of these readings. Timed plans are not written as replies (no model writes
//! them in prose); `temporal` tests read them as plan files.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Mutex;

use proptest::prelude::*;
use safeplan_pddl::{Vocabulary, parse_domain, parse_plan, parse_problem, read_reply};
use safeplan_testkit::reply_gen::{self, Shape};
use safeplan_testkit::reply_styles::{Mutation, Step, TaskNames};
use safeplan_validate::{Task, Verdict};
use serde_json::Value;

/// A compiled task and its names.
struct Entry {
    task: Task,
    vocabulary: Vocabulary,
    names: TaskNames,
}

fn load(domain: &Path, problem: &Path) -> Option<Entry> {
    let d = parse_domain(&std::fs::read_to_string(domain).ok()?).value?;
    let p = parse_problem(&std::fs::read_to_string(problem).ok()?).value?;
    let task = Task::compile(&d, &p).ok()?;
    if task.is_temporal() {
        return None;
    }
    let vocabulary = task.vocabulary();
    let names = TaskNames {
        actions: task.action_names().map(str::to_ascii_lowercase).collect(),
        objects: task
            .objects()
            .iter()
            .map(|o| o.name.as_str().to_ascii_lowercase())
            .collect(),
    };
    Some(Entry {
        task,
        vocabulary,
        names,
    })
}

/// A task's key: its domain's and problem's paths.
type TaskKey = (String, String);

/// The compiled tasks, and the distinct plans of each.
type Corpus = (BTreeMap<TaskKey, Entry>, Vec<(TaskKey, Vec<Step>)>);

/// The corpora's distinct (task, plan) pairs: tasks by their two paths, plans as steps.
fn corpus(data: &Path) -> Corpus {
    let mut tasks: BTreeMap<(String, String), Option<Entry>> = BTreeMap::new();
    let mut plans: BTreeSet<((String, String), Vec<String>)> = BTreeSet::new();
    let mut add = |d: std::path::PathBuf, p: std::path::PathBuf, steps: Vec<String>| {
        let key = (d.display().to_string(), p.display().to_string());
        tasks.entry(key.clone()).or_insert_with(|| load(&d, &p));
        plans.insert((key, steps));
    };
    let rows = |file: &Path| -> Vec<Value> {
        std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    };
    let file_steps = |path: &Path| -> Option<Vec<String>> {
        let parsed = parse_plan(&std::fs::read_to_string(path).ok()?);
        if parsed.has_errors() {
            return None;
        }
        Some(parsed.value?.steps.iter().map(|s| s.text()).collect())
    };
    for dir in ["ipc", "pddl3"] {
        let base = data.join(dir);
        for row in rows(&base.join("manifest.jsonl")) {
            if dir == "pddl3" && row["plan_format"].as_str() != Some("ipc") {
                continue;
            }
            let rel = |k: &str| base.join(row[k].as_str().expect("path"));
            if let Some(steps) = file_steps(&rel("plan")) {
                add(rel("domain"), rel("problem"), steps);
            }
        }
    }
    let demo = data.join("despite-demo");
    for row in rows(&demo.join("oracle.jsonl")) {
        let task = demo.join(row["task"].as_str().expect("task"));
        let steps = row["plan"]
            .as_array()
            .expect("plan")
            .iter()
            .map(|s| s.as_str().expect("step").to_string())
            .collect();
        add(
            task.join("safe_domain.pddl"),
            task.join("safe_problem.pddl"),
            steps,
        );
    }
    let tasks: BTreeMap<_, Entry> = tasks
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    let plans = plans
        .into_iter()
        .filter(|(k, _)| tasks.contains_key(k))
        .map(|(k, steps)| {
            let steps = steps.iter().filter_map(|s| Step::parse(s)).collect();
            (k, steps)
        })
        .collect();
    (tasks, plans)
}

/// What a verdict says, for comparing two: valid, the failure's kind and step, the steps run.
fn gist(v: &Verdict) -> (bool, Option<String>, Option<usize>, usize) {
    (
        v.valid,
        v.failure.as_ref().map(|f| f.kind.as_str().to_string()),
        v.failure.as_ref().and_then(|f| f.step),
        v.steps,
    )
}

/// The plan as an IPC plan file.
fn ipc(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        out.push('(');
        out.push_str(&s.action);
        for a in &s.args {
            out.push(' ');
            out.push_str(a);
        }
        out.push_str(")\n");
    }
    out
}

/// Shapes drawn for each plan and mutation.
const SHAPES_PER_PLAN: u64 = 12;

#[derive(Default)]
struct Tally {
    /// (dimension, value) -> (read as written, no plan).
    counts: BTreeMap<(&'static str, String), (usize, usize)>,
    /// Mutation -> (read as written, no plan).
    mutations: BTreeMap<Mutation, (usize, usize)>,
    /// Refusals read as refusals, of refusals written.
    refusals: (usize, usize),
    failures: Vec<String>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        for (k, (a, b)) in other.counts {
            let e = self.counts.entry(k).or_default();
            e.0 += a;
            e.1 += b;
        }
        for (k, (a, b)) in other.mutations {
            let e = self.mutations.entry(k).or_default();
            e.0 += a;
            e.1 += b;
        }
        self.refusals.0 += other.refusals.0;
        self.refusals.1 += other.refusals.1;
        self.failures.extend(other.failures);
    }
}

/// Write `steps`, mutated each way, in `SHAPES_PER_PLAN` shapes drawn from `seed`, read each
/// back, compare.
fn check(entry: &Entry, steps: &[Step], seed: u64, tally: &mut Tally) {
    for mutation in Mutation::ALL {
        let Some(written) = mutation.apply(steps, &entry.names, seed) else {
            continue;
        };
        let strict = parse_plan(&ipc(&written))
            .value
            .expect("an IPC plan parses");
        let expected = gist(&entry.task.validate(&strict));
        let want: Vec<String> = written.iter().map(Step::key).collect();
        for k in 0..SHAPES_PER_PLAN {
            let shape_seed = seed
                .wrapping_mul(31)
                .wrapping_add(k * 7919 + mutation as u64);
            let (text, shape) = Shape::from_seed(shape_seed).write(&written, shape_seed);
            let reply = read_reply(&text, Some(&entry.vocabulary));
            let faithful = match &reply.plan {
                None => None,
                Some(plan) => {
                    let got: Vec<String> = plan
                        .steps
                        .iter()
                        .map(|s| s.text().to_ascii_lowercase())
                        .collect();
                    if got != want {
                        tally.failures.push(format!(
                            "{shape:?} / {}: read {got:?}, wrote {want:?}\n--- reply ---\n{text}\n---",
                            mutation.name()
                        ));
                        continue;
                    }
                    let verdict = gist(&entry.task.validate(plan));
                    if verdict != expected {
                        tally.failures.push(format!(
                            "{shape:?} / {}: verdict {verdict:?}, strict {expected:?} on {want:?}",
                            mutation.name()
                        ));
                        continue;
                    }
                    Some(())
                }
            };
            for d in shape.dimensions() {
                let e = tally.counts.entry(d).or_default();
                if faithful.is_some() {
                    e.0 += 1
                } else {
                    e.1 += 1
                }
            }
            let e = tally.mutations.entry(mutation).or_default();
            if faithful.is_some() {
                e.0 += 1
            } else {
                e.1 += 1
            }
        }
    }
    // A refusal, whatever it mentions, is a refusal.
    let reply = read_reply(&reply_gen::refusal(seed), Some(&entry.vocabulary));
    tally.refusals.1 += 1;
    if reply.plan.is_none() && reply.no_plan == Some(safeplan_pddl::NoPlan::Refusal) {
        tally.refusals.0 += 1;
    } else {
        tally
            .failures
            .push(format!("refusal read as {:?}", reply.plan));
    }
}

fn table(tally: &Tally) -> String {
    let mut out =
        String::from("| dimension | value | read as written | no plan |\n|---|---|---|---|");
    for ((dim, value), (ok, refused)) in &tally.counts {
        out.push_str(&format!("\n| {dim} | {value} | {ok} | {refused} |"));
    }
    for (m, (ok, refused)) in &tally.mutations {
        out.push_str(&format!("\n| mutation | {} | {ok} | {refused} |", m.name()));
    }
    out.push_str(&format!(
        "\n| refusal | (any) | {} of {} read as refusals | |",
        tally.refusals.0, tally.refusals.1
    ));
    out
}

#[test]
#[allow(clippy::print_stderr)] // the table is the test's report (docs/benchmarks.md)
fn every_corpus_plan_in_every_style_and_mutation_is_read_as_written() {
    let Some(data) = crate::data_dir() else {
        return;
    };
    let (tasks, plans) = corpus(&data);
    assert!(plans.len() > 3_000, "{} plans", plans.len());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = plans.len().div_ceil(threads);
    let total = Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for (c, part) in plans.chunks(chunk).enumerate() {
            let (tasks, total) = (&tasks, &total);
            scope.spawn(move || {
                let mut tally = Tally::default();
                for (i, (key, steps)) in part.iter().enumerate() {
                    let seed = ((c * chunk + i) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7;
                    check(&tasks[key], steps, seed, &mut tally);
                }
                total.lock().expect("no panic").merge(tally);
            });
        }
    });
    let tally = total.into_inner().expect("no panic");
    let read: usize = tally.mutations.values().map(|c| c.0).sum();
    let refused: usize = tally.mutations.values().map(|c| c.1).sum();
    eprintln!(
        "{} plans of {} tasks; {read} replies read as written, {refused} refused as no plan, \
         {} unfaithful\n{}",
        plans.len(),
        tasks.len(),
        tally.failures.len(),
        table(&tally)
    );
    assert!(
        tally.failures.is_empty(),
        "{} unfaithful readings; the first:\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Refusing is allowed only where a shape cannot state a plan apart from prose (bare
    // words whose every name is wrong); it stays rare.
    assert!(
        refused * 100 < read,
        "{refused} refused of {}",
        read + refused
    );
}

// The same over random small plans of a random blocksworld-like task: positions, wording and
// names drawn by proptest, so names no corpus uses (digits, underscores, capitals) are tried.
fn random_task() -> (Task, Vocabulary, TaskNames) {
    let domain = "(define (domain d) (:requirements :strips :typing) (:types obj)
      (:predicates (at ?x - obj) (free ?x - obj))
      (:action go_1 :parameters (?x ?y - obj) :precondition (at ?x) :effect (and (at ?y) (not (at ?x))))
      (:action Lift-Up :parameters (?x - obj) :precondition (free ?x) :effect (not (free ?x)))
      (:action rest :parameters () :effect (and)))";
    let problem = "(define (problem p) (:domain d) (:objects r1 r2 R3 b_4 c-5 - obj)
      (:init (at r1) (free b_4) (free c-5)) (:goal (at r2)))";
    let d = parse_domain(domain).value.expect("domain");
    let p = parse_problem(problem).value.expect("problem");
    let task = Task::compile(&d, &p).expect("compiles");
    let vocabulary = task.vocabulary();
    let names = TaskNames {
        actions: vec!["go_1".into(), "lift-up".into(), "rest".into()],
        objects: ["r1", "r2", "r3", "b_4", "c-5"].map(String::from).to_vec(),
    };
    (task, vocabulary, names)
}

fn random_step() -> impl Strategy<Value = Step> {
    let obj = prop::sample::select(vec!["r1", "r2", "R3", "b_4", "c-5"]);
    prop_oneof![
        (obj.clone(), obj.clone()).prop_map(|(a, b)| Step {
            action: "go_1".into(),
            args: vec![a.into(), b.into()],
        }),
        obj.prop_map(|a| Step {
            action: "Lift-Up".into(),
            args: vec![a.into()],
        }),
        Just(Step {
            action: "rest".into(),
            args: vec![],
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_plans_are_read_as_written(
        steps in prop::collection::vec(random_step(), 1..9),
        seed in any::<u64>(),
    ) {
        let (task, vocabulary, names) = random_task();
        let entry = Entry { task, vocabulary, names };
        let mut tally = Tally::default();
        check(&entry, &steps, seed, &mut tally);
        prop_assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    }
}

/// Two-block blocksworld (pick-up and stack only) with `goal`, everything on the table.
fn blocksworld(goal: &str) -> Task {
    let domain = "(define (domain bw) (:requirements :strips)
      (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
      (:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) (handempty))
        :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
      (:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y))
        :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))";
    let problem = format!(
        "(define (problem p) (:domain bw) (:objects a b)
          (:init (ontable a) (ontable b) (clear a) (clear b) (handempty)) (:goal {goal}))"
    );
    Task::compile(
        &parse_domain(domain).value.expect("domain"),
        &parse_problem(&problem).value.expect("problem"),
    )
    .expect("compiles")
}

/// The examples of issue 36, each a reply that was once read as another plan.
#[test]
fn the_replies_that_once_passed_as_another_plan() {
    let holding = blocksworld("(holding a)");
    let on = blocksworld("(on a b)");
    let cases: HashMap<&str, (&Task, usize)> = HashMap::from([
        (
            r#"{"plan": ["(pick-up a)", "(stack a table)"]}"#,
            (&holding, 2),
        ),
        (
            r#"{"plan": [{"action": "pick-up", "args": ["a"]}, {"action": "stack", "args": ["a", "floor"]}]}"#,
            (&holding, 2),
        ),
        ("1. pick-up(a)\n2. stack(a, zz)", (&holding, 2)),
        ("- pick-up a\n- stack a zz", (&holding, 2)),
        (
            "1. (pick-up a)\n\n2. (stack a b)\n\n3. (stack a b)",
            (&on, 3),
        ),
        (
            "(pick-up a)\n(stack a b) ; again\n(stack a b) ; again",
            (&on, 3),
        ),
    ]);
    for (text, (task, n)) in cases {
        let reply = read_reply(text, Some(&task.vocabulary()));
        let plan = reply
            .plan
            .as_ref()
            .unwrap_or_else(|| panic!("{text}: no plan"));
        assert_eq!(plan.steps.len(), n, "{text}");
        assert!(!task.validate(plan).valid, "{text}: invalid as written");
    }
    // PlanBench's replanning replies that state the empty plan in the prompt's format.
    let done = blocksworld("(clear a)");
    for text in [
        "[PLAN END]",
        "[PLAN]\n[PLAN END]",
        "[PLAN][PLAN END]",
        "```\n```",
        "(plan)",
        "[]",
        r#"{"plan": []}"#,
    ] {
        let reply = read_reply(text, Some(&done.vocabulary()));
        let plan = reply.plan.unwrap_or_else(|| panic!("{text:?}: no plan"));
        assert!(plan.steps.is_empty() && reply.stated_empty, "{text:?}");
        assert!(done.validate(&plan).valid, "{text:?}");
    }
}

/// A step written with broken parentheses fails where it stands, saying so.
#[test]
fn a_step_that_is_not_well_formed_fails_as_written() {
    let domain = "(define (domain d) (:predicates (at ?x)) \
                  (:action go :parameters (?x) :effect (at ?x)))";
    let problem = "(define (problem p) (:domain d) (:objects a b) (:init) (:goal (at b)))";
    let task = Task::compile(
        &parse_domain(domain).value.expect("domain"),
        &parse_problem(problem).value.expect("problem"),
    )
    .expect("compiles");
    let reply = read_reply("(go a)\ngo b)\n(go b)", Some(&task.vocabulary()));
    let plan = reply.plan.expect("a plan");
    assert_eq!(plan.steps.len(), 3);
    let verdict = task.validate(&plan);
    let failure = verdict.failure.expect("fails");
    assert_eq!(failure.step, Some(2));
    assert_eq!(
        failure.message,
        "`go b)` is not a step of the form (action arg ...)"
    );
}

/// The replies of issue 43, each once read as another plan (or no plan): several steps on a
/// line, Markdown's all-`1.` lists, labels, facts in sentences, quoted arguments, Unicode
/// spaces, a refusal that mentions the empty plan, JSON drafts, a marked final plan with
/// misspelled names. Each must read as exactly the plan written (or no plan, with its
/// reason), and its verdict must be strict validation's.
#[test]
fn the_replies_models_write_read_as_written() {
    let task = blocksworld;
    let holding = task("(holding a)");
    let on = task("(on a b)");
    let two = ["(pick-up a)", "(stack a b)"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("1. (pick-up a) 2. (stack a b)", two.to_vec()),
        ("1. (pick-up a), then (stack a b)", two.to_vec()),
        ("- (pick-up a) and (stack a b)", two.to_vec()),
        ("(pick-up a) -> (stack a b)", two.to_vec()),
        ("(pick-up a) → (stack a b)", two.to_vec()),
        ("(pick-up a); (stack a b)", two.to_vec()),
        ("(pick-up a) (stack a b)", two.to_vec()),
        ("Plan: 1. (pick-up a) 2. (stack a b)", two.to_vec()),
        ("1. (pick-up a)\n1. (stack a b)", two.to_vec()),
        ("1. (pick-up a)\n\n1. (stack a b)", two.to_vec()),
        (
            "1. (pick-up a)\n3. (stack a b)\n3. (pick-up b)",
            vec!["(pick-up a)", "(stack a b)", "(pick-up b)"],
        ),
        ("1.1 (pick-up a)\n1.2 (stack a b)", two.to_vec()),
        (
            "Step 1: Pick up block a.\n(pick-up a)\nStep 2: Stack a on b.\n(stack a b)",
            two.to_vec(),
        ),
        (
            "1. Pick up a: (pick-up a)\n2. Stack a on b: (stack a b)",
            two.to_vec(),
        ),
        (
            "1. (pick-up a)\n(holding a) is now true.\n2. (stack a b)",
            two.to_vec(),
        ),
        ("(pick-up a)\n(holding a) is now true.", vec!["(pick-up a)"]),
        ("pick-up(\"a\")\nstack(\"a\", \"b\")", two.to_vec()),
        ("1. pick-up('a')\n2. stack('a', 'b')", two.to_vec()),
        (
            "Pick-Up(a)\nStack(a,\u{202F}b)",
            vec!["(pick-up a)", "(stack a b)"],
        ),
        (
            "- pick-up\u{00A0}a\n- stack\u{00A0}a\u{00A0}b",
            two.to_vec(),
        ),
        ("```\npick-up\u{2003}a\nstack a\u{3000}b\n```", two.to_vec()),
        (
            "{\"plan\": [\"(pick-up a)\"]}\n\nHmm, that misses a step.\n\n1. (pick-up a)\n2. (stack a b)",
            two.to_vec(),
        ),
        (
            "Draft:\n1. pick-up a\n\nFinal plan:\n1. pikc-up a\n2. stak a b",
            vec!["(pikc-up a)", "(stak a b)"],
        ),
        (
            "Attempt:\n(pick-up a)\n\nCorrected plan:\n(pick-up a)\n(stack a b)",
            two.to_vec(),
        ),
        ("(PICK-UP A)\n(STACK A B)", two.to_vec()),
    ];
    for (text, want) in &cases {
        for t in [&holding, &on] {
            let reply = read_reply(text, Some(&t.vocabulary()));
            let plan = reply
                .plan
                .as_ref()
                .unwrap_or_else(|| panic!("{text:?}: no plan ({:?})", reply.no_plan));
            let got: Vec<String> = plan
                .steps
                .iter()
                .map(|s| s.text().to_ascii_lowercase())
                .collect();
            assert_eq!(got, *want, "{text:?}");
            let strict = parse_plan(&format!("{}\n", want.join("\n")))
                .value
                .expect("an IPC plan");
            assert_eq!(
                gist(&t.validate(plan)),
                gist(&t.validate(&strict)),
                "{text:?}"
            );
        }
        // No JSON answer is said to be marked as the final answer.
        let reply = read_reply(text, Some(&on.vocabulary()));
        assert!(
            !text.starts_with('{')
                || reply
                    .diagnostics
                    .iter()
                    .all(|d| !d.message.contains("marked as the final")),
            "{text:?}: {:?}",
            reply.diagnostics
        );
    }
    // A refusal that mentions the empty plan is a refusal, never the empty plan.
    let done = task("(clear a)");
    for text in [
        "I'm sorry, I can't produce a plan. An empty plan will not work.",
        "I cannot help with that. The empty plan does not reach the goal either.",
    ] {
        let reply = read_reply(text, Some(&done.vocabulary()));
        assert_eq!(
            (reply.plan.is_none(), reply.no_plan),
            (true, Some(safeplan_pddl::NoPlan::Refusal)),
            "{text:?}"
        );
    }
    // A marked answer that says in step form that there is no plan is that claim (the
    // shape of one held-out PlanBench reply, o1-preview, unsolvable blocksworld #98).
    let reply = read_reply(
        "**Answer:** *(no plan can achieve the goal from the initial state)*",
        Some(&done.vocabulary()),
    );
    assert_eq!(reply.no_plan, Some(safeplan_pddl::NoPlan::ClaimsUnsolvable));
    // A step quoted in a sentence between the steps: unclear, so no plan (never a plan
    // without it).
    for text in [
        "1. (pick-up a)\nThen we (stack a b) to finish.\n2. (pick-up b)",
        "(pick-up a)\nThen we (stack a b) and are done.",
        "We start with (pick-up b), no wait.\n(pick-up a)\n(stack a b)",
    ] {
        let reply = read_reply(text, Some(&on.vocabulary()));
        assert_eq!(
            reply.no_plan,
            Some(safeplan_pddl::NoPlan::Unclear),
            "{text:?}"
        );
        assert!(reply.plan.is_none(), "{text:?}");
    }
    // Facts and remarks in those sentences are notes: the plan is read.
    for text in [
        "1. (pick-up a)\nNow (holding a) is true (as planned).\n2. (stack a b)",
        "Initially (clear a) holds.\n(pick-up a)\n(stack a b)",
    ] {
        let reply = read_reply(text, Some(&on.vocabulary()));
        assert_eq!(reply.plan.map(|p| p.steps.len()), Some(2), "{text:?}");
    }
}
