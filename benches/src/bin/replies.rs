//! How safeplan reads real LLM replies: PlanBench's stored replies (built by
//! `tools/planbench_corpus.py`), each read with `read_reply` and compared with the plan
//! PlanBench extracted from it and with VAL's verdict on that plan (`llm_correct`).
//!
//! ```text
//! cargo run --release -p safeplan-benches --bin replies -- [CORPUS_DIR] [--show CLASS]
//! ```
//!
//! CORPUS_DIR holds `replies.jsonl` and `pddl/` (default: the sample the repository keeps,
//! `crates/safeplan-pddl/tests/replies/planbench`; the whole corpus is
//! `target/planbench-corpus` once the script has run). Prints, per reply style, how often
//! the reading agrees with PlanBench's extraction and the verdict with VAL's, and every
//! disagreement class with its count and a few ids; `--show CLASS` prints the replies of a
//! class.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use safeplan_pddl::{Vocabulary, parse_domain, parse_problem, read_reply};
use safeplan_validate::Task;
use serde_json::Value;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/safeplan-pddl/tests/replies/planbench");
    let mut show = None;
    let mut write_plans: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        if a == "--show" {
            show = args.next();
        } else if a == "--write-plans" {
            write_plans = args.next().map(PathBuf::from);
        } else {
            dir = PathBuf::from(a);
        }
    }
    let text = match std::fs::read_to_string(dir.join("replies.jsonl")) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", dir.join("replies.jsonl").display());
            std::process::exit(2);
        }
    };
    let mut table: BTreeMap<String, Counts> = BTreeMap::new();
    let mut classes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut tasks: BTreeMap<(String, String), Option<(Task, Vocabulary)>> = BTreeMap::new();
    let mut manifest: Vec<Value> = Vec::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).expect("a JSON line");
        let outcome = judge(&dir, &row, &mut tasks);
        // Our reading as a plan file with our verdict, for VAL to judge the same plan
        // (`tools/val_on_readings.py`).
        if let (Some(out), Some((plan, valid))) = (&write_plans, &outcome.reading) {
            let n = manifest.len();
            let file = format!("{n:05}.plan");
            std::fs::create_dir_all(out).expect("the plan folder");
            std::fs::write(out.join(&file), plan).expect("a plan file");
            manifest.push(serde_json::json!({
                "id": row["id"], "plan": file, "domain": row["pddl"]["domain"],
                "problem": row["pddl"]["problem"], "safeplan_valid": valid,
            }));
        }
        let style = row["style"].as_str().unwrap_or("?").to_string();
        let c = table.entry(style.clone()).or_default();
        c.n += 1;
        c.same_reading += usize::from(outcome.same_reading);
        match outcome.verdict {
            Some(true) => c.same_verdict += 1,
            Some(false) => {
                c.other_verdict += 1;
                let id = row["id"].as_str().unwrap_or("?").to_string();
                classes
                    .entry(format!("{style}: verdict differs"))
                    .or_default()
                    .push(id);
            }
            None => {}
        }
        if let Some(why) = outcome.no_plan {
            c.no_plan += 1;
            *reasons
                .entry(format!("{style}: no plan ({why})"))
                .or_default() += 1;
        }
        if outcome.stated_empty {
            c.stated_empty += 1;
        }
        if let Some(class) = outcome.class {
            let id = row["id"].as_str().unwrap_or("?").to_string();
            if show.as_deref() == Some(class.as_str()) {
                println!(
                    "==== {id}\n{}\n---- PlanBench: {}\n",
                    row["reply"].as_str().unwrap_or(""),
                    row["extracted"]
                );
            }
            classes
                .entry(format!("{style}: {class}"))
                .or_default()
                .push(id);
        }
    }
    if let Some(out) = &write_plans {
        let lines: Vec<String> = manifest.iter().map(Value::to_string).collect();
        std::fs::write(out.join("manifest.jsonl"), lines.join("\n") + "\n").expect("manifest");
    }
    println!(
        "| style | replies | same reading as PlanBench | verdict = VAL's on PlanBench's plan | verdict differs | no plan | states the empty plan |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (style, c) in &table {
        println!(
            "| {style} | {} | {} | {} | {} | {} | {} |",
            c.n, c.same_reading, c.same_verdict, c.other_verdict, c.no_plan, c.stated_empty
        );
    }
    println!();
    for (reason, n) in &reasons {
        println!("{reason}: {n}");
    }
    println!();
    for (class, ids) in &classes {
        println!(
            "{class}: {} ({})",
            ids.len(),
            ids.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        );
    }
}

#[derive(Default)]
struct Counts {
    n: usize,
    same_reading: usize,
    same_verdict: usize,
    other_verdict: usize,
    no_plan: usize,
    stated_empty: usize,
}

struct Outcome {
    same_reading: bool,
    /// Whether our verdict on our reading is VAL's on PlanBench's plan (PDDL replies).
    verdict: Option<bool>,
    no_plan: Option<safeplan_pddl::NoPlan>,
    stated_empty: bool,
    /// The disagreement class, when the reading differs.
    class: Option<String>,
    /// For a PDDL-style reply with a plan read: the plan as a plan file, and our verdict.
    reading: Option<(String, bool)>,
}

/// Why our reading differs from PlanBench's (the classes of docs/benchmarks.md).
fn classify(
    ours: &Option<Vec<String>>,
    theirs: &[String],
    actions: &[&str],
    read: &safeplan_pddl::Reply,
) -> String {
    let Some(ours) = ours else {
        return format!(
            "no plan read ({}), PlanBench read steps",
            read.no_plan.map_or("?", |n| n.as_str())
        );
    };
    if theirs.is_empty() {
        return if ours.is_empty() {
            "the empty plan stated, PlanBench read nothing".into()
        } else {
            "steps PlanBench did not read".into()
        };
    }
    let warned_twice = read
        .diagnostics
        .iter()
        .any(|d| d.code == safeplan_pddl::Code::AmbiguousReply);
    if !ours.is_empty()
        && theirs.len() > ours.len()
        && theirs.len().is_multiple_of(ours.len())
        && theirs.chunks(ours.len()).all(|c| c == ours.as_slice())
    {
        return if warned_twice {
            "stated twice: read once, with a warning (PlanBench reads every copy)".into()
        } else {
            "stated twice, once in sentences or outside the code block: the list read \
             (PlanBench reads every copy)"
                .into()
        };
    }
    // PlanBench keeps what is broken in a step's text: a trailing `\`, a stray `(`.
    let cleaned: Vec<String> = theirs
        .iter()
        .map(|s| {
            let t = s.replace('\\', "");
            let inner = t.trim().trim_start_matches('(').replace('(', " ");
            norm(&inner)
        })
        .collect();
    if *ours == cleaned {
        return "same steps once PlanBench's text is cleaned (a trailing `\\`, a stray `(`)".into();
    }
    let name = |s: &String| s[1..].split([' ', ')']).next().unwrap_or("").to_string();
    let extra: Vec<&String> = ours.iter().filter(|s| !theirs.contains(s)).collect();
    if ours.len() > theirs.len()
        && !extra.is_empty()
        && extra.iter().all(|s| !actions.contains(&name(s).as_str()))
    {
        return "a step naming no action of the domain kept (PlanBench drops it)".into();
    }
    // Ours in order inside theirs: PlanBench also read steps quoted before the answer.
    let mut it = theirs.iter();
    if ours.len() < theirs.len() && !ours.is_empty() && ours.iter().all(|s| it.any(|t| t == s)) {
        return "fewer steps: PlanBench also reads steps quoted before the answer".into();
    }
    // Theirs in order inside ours, the extra steps actions of the domain: PlanBench's
    // extraction misses a step the reply states (after `((`).
    let mut it = ours.iter();
    if ours.len() > theirs.len()
        && theirs.iter().all(|s| it.any(|t| t == s))
        && extra.iter().all(|s| actions.contains(&name(s).as_str()))
    {
        return "more steps: PlanBench misses a step the reply states".into();
    }
    // The reply states different plans; the rule reads one (the marked final answer, or
    // the last), with a warning naming each; PlanBench reads them all.
    let different = read.diagnostics.iter().any(|d| {
        d.code == safeplan_pddl::Code::AmbiguousReply && d.message.contains("different plans")
    });
    if different {
        return "different plans stated: the final (or last) one read, with a warning (PlanBench reads every one)".into();
    }
    if ours.len() < theirs.len() {
        "fewer steps than PlanBench (unexplained)".into()
    } else if ours.len() > theirs.len() {
        "more steps than PlanBench (unexplained)".into()
    } else {
        "same length, other steps (unexplained)".into()
    }
}

/// A step as text for comparison: lowercase, single spaces, parenthesised.
fn norm(step: &str) -> String {
    let inner = step.trim().trim_start_matches('(').trim_end_matches(')');
    format!(
        "({})",
        inner
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_lowercase()
    )
}

fn judge(
    dir: &Path,
    row: &Value,
    tasks: &mut BTreeMap<(String, String), Option<(Task, Vocabulary)>>,
) -> Outcome {
    let reply = row["reply"].as_str().unwrap_or("");
    let theirs: Vec<String> = row["extracted"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(norm).collect())
        .unwrap_or_default();
    let compiled = row["pddl"].as_object().and_then(|p| {
        let key = (
            p["domain"].as_str()?.to_string(),
            p["problem"].as_str()?.to_string(),
        );
        tasks
            .entry(key.clone())
            .or_insert_with(|| {
                let d = parse_domain(&std::fs::read_to_string(dir.join("pddl").join(&key.0)).ok()?)
                    .value?;
                let p =
                    parse_problem(&std::fs::read_to_string(dir.join("pddl").join(&key.1)).ok()?)
                        .value?;
                let v = Vocabulary::of(&d, Some(&p));
                Some((Task::compile(&d, &p).ok()?, v))
            })
            .as_ref()
    });
    let read = read_reply(reply, compiled.map(|(_, v)| v));
    let ours: Option<Vec<String>> = read
        .plan
        .as_ref()
        .map(|p| p.steps.iter().map(|s| norm(&s.text())).collect());
    let same_reading = match &ours {
        Some(steps) => *steps == theirs,
        None => theirs.is_empty(),
    };
    let verdict = compiled.and_then(|(task, _)| {
        let val = row["llm_correct"].as_bool()?;
        let ours_valid = match &read.plan {
            Some(p) => task.validate(p).valid,
            None => false,
        };
        Some(ours_valid == val)
    });
    let actions: Vec<&str> = compiled
        .map(|(task, _)| task.action_names().collect())
        .unwrap_or_default();
    let class = (!same_reading).then(|| classify(&ours, &theirs, &actions, &read));
    let reading = match (&read.plan, compiled, row["style"].as_str()) {
        (Some(p), Some((task, _)), Some("pddl")) => {
            let text: String = p
                .steps
                .iter()
                .map(|s| {
                    let args: String = s.args.iter().map(|a| format!(" {}", a.as_str())).collect();
                    format!("({}{args})\n", s.action.as_str())
                })
                .collect();
            Some((text, task.validate(p).valid))
        }
        _ => None,
    };
    Outcome {
        reading,
        same_reading,
        verdict,
        no_plan: read.no_plan,
        stated_empty: read.stated_empty,
        class,
    }
}
