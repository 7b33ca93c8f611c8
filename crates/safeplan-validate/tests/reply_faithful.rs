//! The reply reader never changes the plan the model wrote, proved by construction
//! (docs/FORMAT.md, "The invariant"; docs/benchmarks.md, "Reading by construction").
//!
//! Every sequential plan of the corpora (the IPC manifest, DESPITE's oracle, the PDDL3
//! manifest's plan files), mutated in each way models err (`reply_styles::Mutation`), is
//! written in each reply style (`reply_styles::Style`) and read back with the task's names.
//! The reading must be exactly the plan written (same steps, same order) — or, where a style
//! cannot be read faithfully, no plan with its reason; never another plan — and the verdict
//! on it must equal strict validation of that plan written as an IPC plan file. Timed plans
//! are not written in reply styles (no model writes them in prose); `temporal` tests read
//! them as plan files.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Mutex;

use proptest::prelude::*;
use safeplan_pddl::{Vocabulary, parse_domain, parse_plan, parse_problem, read_reply};
use safeplan_testkit::reply_styles::{Mutation, Step, Style, TaskNames};
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

#[derive(Default)]
struct Tally {
    /// (style, mutation) -> (faithful, refused as no plan).
    counts: BTreeMap<(Style, Mutation), (usize, usize)>,
    failures: Vec<String>,
}

/// Write `steps` in every style, read it back, compare. `seed` picks positions and wording.
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
        for style in Style::ALL {
            let text = style.write(&written, seed);
            let reply = read_reply(&text, Some(&entry.vocabulary));
            let counts = tally.counts.entry((style, mutation)).or_default();
            let Some(plan) = &reply.plan else {
                counts.1 += 1;
                continue;
            };
            let got: Vec<String> = plan
                .steps
                .iter()
                .map(|s| s.text().to_ascii_lowercase())
                .collect();
            if got != want {
                tally.failures.push(format!(
                    "{} / {}: read {got:?}, wrote {want:?}\n--- reply ---\n{text}\n---",
                    style.name(),
                    mutation.name()
                ));
                continue;
            }
            let verdict = gist(&entry.task.validate(plan));
            if verdict != expected {
                tally.failures.push(format!(
                    "{} / {}: verdict {verdict:?}, strict {expected:?} on {want:?}",
                    style.name(),
                    mutation.name()
                ));
                continue;
            }
            counts.0 += 1;
        }
    }
}

fn table(tally: &Tally) -> String {
    let mut out = String::from("| style |");
    for m in Mutation::ALL {
        out.push_str(&format!(" {} |", m.name()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(Mutation::ALL.len()));
    for style in Style::ALL {
        out.push_str(&format!("\n| {} |", style.name()));
        for m in Mutation::ALL {
            let (ok, refused) = tally.counts.get(&(style, m)).copied().unwrap_or_default();
            if refused > 0 {
                out.push_str(&format!(" {ok} ({refused} no plan) |"));
            } else {
                out.push_str(&format!(" {ok} |"));
            }
        }
    }
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
                let mut total = total.lock().expect("no panic");
                for (k, (a, b)) in tally.counts {
                    let e = total.counts.entry(k).or_default();
                    e.0 += a;
                    e.1 += b;
                }
                total.failures.extend(tally.failures);
            });
        }
    });
    let tally = total.into_inner().expect("no panic");
    let read: usize = tally.counts.values().map(|c| c.0).sum();
    let refused: usize = tally.counts.values().map(|c| c.1).sum();
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
    // Refusing is allowed only where a style cannot state a plan apart from prose (bare
    // words whose every name is wrong); it stays rare.
    assert!(
        refused * 1000 < read,
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

/// The examples of issue 36, each a reply that was once read as another plan.
#[test]
fn the_replies_that_once_passed_as_another_plan() {
    let domain = "(define (domain bw) (:requirements :strips)
      (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
      (:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) (handempty))
        :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
      (:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y))
        :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))";
    let problem = |goal: &str| {
        format!(
            "(define (problem p) (:domain bw) (:objects a b)
              (:init (ontable a) (ontable b) (clear a) (clear b) (handempty)) (:goal {goal}))"
        )
    };
    let d = parse_domain(domain).value.expect("domain");
    let holding = Task::compile(
        &d,
        &parse_problem(&problem("(holding a)")).value.expect("p"),
    )
    .expect("compiles");
    let on = Task::compile(&d, &parse_problem(&problem("(on a b)")).value.expect("p"))
        .expect("compiles");
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
    let done = Task::compile(&d, &parse_problem(&problem("(clear a)")).value.expect("p"))
        .expect("compiles");
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
