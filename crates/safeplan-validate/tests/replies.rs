//! Real LLM replies read and judged: the PlanBench sample the repository keeps
//! (`crates/safeplan-pddl/tests/replies/planbench`, built by `tools/planbench_corpus.py`
//! with provenance; MIT, PlanBench's licence beside it). For each PDDL-style reply the
//! source stores the plan PlanBench extracted and VAL's verdict on it (`llm_correct`): where
//! our reading is PlanBench's, our verdict must be VAL's; where it is not, the difference
//! must be one of the explained classes of docs/benchmarks.md, each checked here by what
//! makes it that class. And a reply with no plan is never valid.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use safeplan_pddl::{Code, NoPlan, Vocabulary, parse_domain, parse_problem, read_reply};
use safeplan_validate::{FailureKind, Task, ValidateOptions, Validator, Verdict};
use serde_json::Value;

fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../safeplan-pddl/tests/replies/planbench")
}

/// `(name arg ...)` lowercased, single spaces.
fn norm(step: &str) -> String {
    let inner = step.trim().trim_start_matches('(').trim_end_matches(')');
    let words: Vec<String> = inner
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    format!("({})", words.join(" "))
}

type Tasks = BTreeMap<(String, String), (Task, Vocabulary)>;

fn task_of<'t>(tasks: &'t mut Tasks, dir: &Path, row: &Value) -> Option<&'t (Task, Vocabulary)> {
    let p = row["pddl"].as_object()?;
    let key = (
        p["domain"].as_str()?.to_string(),
        p["problem"].as_str()?.to_string(),
    );
    if !tasks.contains_key(&key) {
        let read = |rel: &str| std::fs::read_to_string(dir.join("pddl").join(rel)).expect("pddl");
        let d = parse_domain(&read(&key.0)).value.expect("domain");
        let p = parse_problem(&read(&key.1)).value.expect("problem");
        let v = Vocabulary::of(&d, Some(&p));
        tasks.insert(key.clone(), (Task::compile(&d, &p).expect("compiles"), v));
    }
    tasks.get(&key)
}

#[test]
fn planbench_replies_read_as_planbench_or_for_an_explained_reason() {
    let dir = sample_dir();
    let text = std::fs::read_to_string(dir.join("replies.jsonl")).expect("the sample");
    let mut tasks = Tasks::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).expect("JSON");
        let id = row["id"].as_str().expect("id").to_string();
        let reply_text = row["reply"].as_str().expect("reply");
        let style = row["style"].as_str().expect("style");
        let theirs: Vec<String> = row["extracted"]
            .as_array()
            .expect("extracted")
            .iter()
            .map(|s| norm(s.as_str().expect("step")))
            .collect();
        let Some((task, vocabulary)) = task_of(&mut tasks, &dir, &row) else {
            // Replanning: PlanBench does not store the rewritten instance. What is checked
            // is what the reply states: a plan, the empty plan, or none.
            let reply = read_reply(reply_text, None);
            let says_done = reply_text
                .to_ascii_lowercase()
                .contains("no further action");
            if says_done {
                assert!(reply.stated_empty, "{id}: states the empty plan");
                *counts
                    .entry("replanning: the empty plan stated")
                    .or_default() += 1;
            }
            // `[PLAN END]` alone: the empty plan in the prompt's own format.
            if reply_text.trim() == "[PLAN END]" {
                assert!(reply.stated_empty, "{id}: states the empty plan");
                *counts
                    .entry("replanning: the empty plan as `[PLAN END]`")
                    .or_default() += 1;
            }
            if reply.plan.is_none() {
                *counts.entry("replanning: no plan").or_default() += 1;
            }
            continue;
        };
        let reply = read_reply(reply_text, Some(vocabulary));
        assert!(
            reply.plan.is_some() || reply.no_plan.is_some(),
            "{id}: neither a plan nor why there is none"
        );
        let verdict =
            Validator::new(task, ValidateOptions::default()).validate_stated(reply.stated_plan());
        if reply.plan.is_none() {
            assert!(!verdict.valid, "{id}: no plan is never valid");
            assert_eq!(
                verdict.failure.as_ref().map(|f| f.kind),
                Some(FailureKind::NoPlan)
            );
        }
        if style != "pddl" {
            // Natural-language replies name blocks by colour ("the red block"), which
            // PlanBench maps per domain: no reader of PDDL steps reads them.
            *counts
                .entry(if reply.plan.is_none() {
                    "natural: no plan"
                } else {
                    "natural: steps"
                })
                .or_default() += 1;
            continue;
        }
        let ours: Option<Vec<String>> = reply
            .plan
            .as_ref()
            .map(|p| p.steps.iter().map(|s| norm(&s.text())).collect());
        let val = row["llm_correct"].as_bool().expect("VAL's verdict");
        match ours {
            Some(ours) if ours == theirs => {
                assert_eq!(verdict.valid, val, "{id}: same plan, VAL's verdict");
                *counts.entry("pddl: same plan, VAL's verdict").or_default() += 1;
            }
            Some(ours)
                if theirs.len() > ours.len()
                    && theirs.len().is_multiple_of(ours.len())
                    && theirs.chunks(ours.len()).all(|c| c == ours.as_slice()) =>
            {
                // PlanBench reads a plan stated twice as both copies; we read it once,
                // with a warning naming the lines read.
                assert!(
                    reply
                        .diagnostics
                        .iter()
                        .any(|d| d.code == Code::AmbiguousReply),
                    "{id}: warned"
                );
                *counts.entry("pddl: stated twice, read once").or_default() += 1;
            }
            // Steps PlanBench's extractor does not see (`(plan (:step1 (attack a)) ...)`).
            Some(ours) if theirs.is_empty() => {
                assert!(!ours.is_empty(), "{id}");
                *counts
                    .entry("pddl: steps PlanBench did not read")
                    .or_default() += 1;
            }
            Some(ours) if ours.len() > theirs.len() => {
                // PlanBench drops steps naming no action of the domain (`(sessd b d)`); we
                // keep them, so the plan is invalid (at the first failing step, which may
                // come before the hallucinated one).
                let extra: Vec<&String> = ours.iter().filter(|s| !theirs.contains(s)).collect();
                assert!(!extra.is_empty(), "{id}");
                let actions: Vec<&str> = task.action_names().collect();
                for step in extra {
                    let name = step[1..].split([' ', ')']).next().unwrap_or("");
                    assert!(!actions.contains(&name), "{id}: {step} names no action");
                }
                assert!(!verdict.valid, "{id}: a hallucinated action fails");
                *counts.entry("pddl: unknown action kept").or_default() += 1;
            }
            Some(ours) if ours.len() == theirs.len() => {
                // PlanBench keeps a trailing `\` of each line in its steps.
                let stripped: Vec<String> =
                    theirs.iter().map(|s| norm(&s.replace('\\', ""))).collect();
                assert_eq!(ours, stripped, "{id}");
                assert_eq!(verdict.valid, val, "{id}");
                *counts.entry("pddl: trailing backslash").or_default() += 1;
            }
            // Nothing read by either (an empty reply): no plan, invalid, as VAL said.
            None if theirs.is_empty() => {
                assert!(!val, "{id}");
                *counts
                    .entry("pddl: no plan, none for PlanBench")
                    .or_default() += 1;
            }
            other => panic!("{id}: an unexplained reading {other:?} (PlanBench: {theirs:?})"),
        }
    }
    // Pinned: a change of the reader that moves a reply from one class to another shows
    // here, and in the table of docs/benchmarks.md once rerun.
    let pinned: BTreeMap<&str, usize> = [
        // Four natural-language lists after a `**Plan**`/`**Plan:**` mark are read as the
        // steps written (sentences, which fail as steps): a marked statement is never set
        // aside by the names (issue 43). Before, they were no plan; never valid either way.
        ("natural: no plan", 52),
        ("natural: steps", 6),
        // One reply says "the correct plan ... is simply an empty plan, since no sequence of
        // actions can achieve the goal": a claim of unsolvability, decided before any
        // mention of the empty plan (issue 43); it was read as the empty plan.
        ("pddl: no plan, none for PlanBench", 17),
        ("pddl: same plan, VAL's verdict", 81),
        ("pddl: stated twice, read once", 3),
        ("pddl: steps PlanBench did not read", 1),
        ("pddl: trailing backslash", 1),
        ("pddl: unknown action kept", 2),
        ("replanning: no plan", 12),
        ("replanning: the empty plan as `[PLAN END]`", 12),
        ("replanning: the empty plan stated", 13),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, pinned);
}

#[test]
fn no_plan_is_never_valid_where_the_empty_plan_is() {
    // A task whose goal holds at the start: the empty plan is valid, a refusal is not.
    let domain = "(define (domain d) (:predicates (done)) (:action finish :effect (done)))";
    let problem = "(define (problem p) (:domain d) (:init (done)) (:goal (done)))";
    let task = Task::compile(
        &parse_domain(domain).value.expect("domain"),
        &parse_problem(problem).value.expect("problem"),
    )
    .expect("compiles");
    let v = task.vocabulary();
    let refusal = read_reply(
        "I'm sorry, but I can't help with planning this task.",
        Some(&v),
    );
    assert_eq!(refusal.no_plan, Some(NoPlan::Refusal));
    assert_eq!(refusal.stated_plan(), Err(NoPlan::Refusal));
    let mut validator = Validator::new(&task, ValidateOptions::default());
    let verdict = validator.validate_stated(refusal.stated_plan());
    assert_eq!(verdict, Verdict::no_plan(NoPlan::Refusal));
    assert!(!verdict.valid);
    assert_eq!(verdict.steps, 0);
    let done = read_reply(
        "No further actions are needed as the goal has been achieved.",
        Some(&v),
    );
    assert!(done.stated_plan().is_ok_and(|p| p.steps.is_empty()));
    assert!(validator.validate_stated(done.stated_plan()).valid);
    // A reply with neither a plan nor a reason is unreadable: still no plan.
    let silent = safeplan_pddl::Reply {
        plan: None,
        no_plan: None,
        stated_empty: false,
        diagnostics: Vec::new(),
    };
    assert_eq!(silent.stated_plan(), Err(NoPlan::Unreadable));
    // The batch says the same, in order.
    let stated: Vec<_> = [&refusal, &done, &silent]
        .iter()
        .map(|r| r.stated_plan().cloned())
        .collect();
    let batch = task.validate_batch_stated(&stated, &ValidateOptions::default());
    let one_by_one: Vec<Verdict> = stated
        .iter()
        .map(|s| validator.validate_stated(s.as_ref().map_err(|w| *w)))
        .collect();
    assert_eq!(batch, one_by_one);
    assert_eq!(
        batch.iter().map(|v| v.valid).collect::<Vec<_>>(),
        [false, true, false]
    );
    // The verdict says why in JSON.
    let json = serde_json::to_value(&verdict).expect("JSON");
    assert_eq!(json["no_plan"], "refusal");
    assert_eq!(json["failure"]["kind"], "no_plan");
}
