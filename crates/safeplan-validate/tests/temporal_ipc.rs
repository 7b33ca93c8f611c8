//! Temporal plans against VAL: every (problem, plan) pair of `<data>/ipc-temporal/manifest.jsonl`
//! must get VAL's verdict at `-t 0.001` (validity, failure kind, step and time, and the value of
//! valid plans), and, where VAL's default tolerance (0.01) gives another verdict, that one too.
//!
//! VAL's verdicts map to ours as SEMANTICS.md §2b says; where VAL is broken we give the precise
//! failure instead, and this test expects it: a step with too few arguments crashes VAL
//! (SIGSEGV) and is `arity_mismatch` here; an unknown action is VAL's "Bad plan description"
//! (exit 0, no step) and `unknown_action` at its step here.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Task, ValidateOptions, Verdict};

/// Pairs where two events of one happening fail the same way and VAL names the other one.
/// VAL sorts simultaneous events by the memory address of its action objects
/// (`sort(planStructure)` over `pair<double, Action*>` in `Plan.cpp`), which is no rule a plan
/// author can follow; we check them in file order. Here the first three steps start at 0
/// without durations: VAL names step 2, we name step 1 (same kind, same time).
const ADDRESS_ORDER: &[(&str, u64)] = &[("depots-time/plans/instance-1.fmt_no_durations.plan", 1)];

fn map_kind(val_kind: &str) -> &'static str {
    match val_kind {
        "precondition" => "unsatisfied_precondition",
        "goal_not_satisfied" => "unsatisfied_goal",
        "invariant" => "invariant_violated",
        "duration_constraint" => "duration_constraint",
        "mutex" => "mutex",
        "type_error" => "type_mismatch",
        "bad_plan_description" => "unknown_action",
        "crash" => "arity_mismatch",
        other => panic!("manifest has a VAL verdict this test does not know: {other}"),
    }
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-3 * b.abs().max(1.0)
}

/// Why our verdict differs from VAL's (`None`: it agrees). `val` is the manifest's
/// `failure` object (or the `default_tolerance` summary), `valid` and `value` VAL's.
fn disagreement(
    valid: bool,
    val: &serde_json::Value,
    value: Option<f64>,
    got: &Verdict,
) -> Option<String> {
    let describe = || {
        let f = got.failure.as_ref();
        format!(
            "ours: valid={} kind={:?} step={:?} time={:?} value={:?} ({})",
            got.valid,
            f.map(|f| f.kind.as_str()),
            f.and_then(|f| f.step),
            f.and_then(|f| f.timing.as_ref()).map(|t| t.time),
            got.value(),
            f.map_or(String::new(), |f| f.message.clone())
        )
    };
    if got.valid != valid {
        return Some(describe());
    }
    if valid {
        return match (value, got.value()) {
            (Some(v), Some(ours)) if close(ours, v) => None,
            (None, _) => None,
            _ => Some(describe()),
        };
    }
    let f = got.failure.as_ref()?;
    if let Some(kind) = val["kind"].as_str()
        && f.kind.as_str() != map_kind(kind)
    {
        return Some(describe());
    }
    if let Some(step) = val["step"].as_u64()
        && f.step != Some(step as usize)
    {
        return Some(describe());
    }
    if let Some(time) = val["time"].as_f64() {
        match f.timing.as_ref() {
            Some(t) if close(t.time, time) => {}
            _ => return Some(describe()),
        }
    }
    None
}

#[test]
#[allow(clippy::print_stderr)]
fn temporal_plans_get_vals_verdicts() {
    let Some(data) = crate::data_dir() else {
        return;
    };
    let dir = data.join("ipc-temporal");
    if !dir.join("manifest.jsonl").exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the temporal corpus is missing: {}",
            dir.display()
        );
        return;
    }
    let manifest = read(&dir, "manifest.jsonl");
    let mut tasks: HashMap<(String, String), Task> = HashMap::new();
    let mut table: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut wrong: Vec<String> = Vec::new();
    for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        let (d, p, plan_path) = (
            entry["domain"].as_str().unwrap(),
            entry["problem"].as_str().unwrap(),
            entry["plan"].as_str().unwrap(),
        );
        let task = tasks.entry((d.into(), p.into())).or_insert_with(|| {
            let domain = parse_domain(&read(&dir, d));
            let problem = parse_problem(&read(&dir, p));
            assert!(!domain.has_errors() && !problem.has_errors(), "{d} {p}");
            Task::compile(&domain.value.unwrap(), &problem.value.unwrap())
                .unwrap_or_else(|e| panic!("{d} {p}: {e}"))
        });
        let parsed = parse_plan(&read(&dir, plan_path));
        let mut problems = Vec::new();
        if parsed.has_errors() {
            problems.push(format!("does not parse: {:?}", parsed.diagnostics));
        }
        let plan = parsed.value.unwrap_or_default();
        if entry["steps"].as_u64() != Some(plan.steps.len() as u64) {
            problems.push(format!(
                "{} steps read, VAL's file has {}",
                plan.steps.len(),
                entry["steps"]
            ));
        }
        let at = |tolerance| {
            task.validate_with(
                &plan,
                &ValidateOptions {
                    tolerance: Some(tolerance),
                    ..ValidateOptions::default()
                },
            )
        };
        let strict = at(0.001);
        let mut failure = entry["failure"].clone();
        if let Some((_, ours)) = ADDRESS_ORDER.iter().find(|(p, _)| *p == plan_path) {
            failure["step"] = (*ours).into();
        }
        if let Some(why) = disagreement(
            entry["valid"].as_bool().unwrap(),
            &failure,
            entry["value"].as_f64(),
            &strict,
        ) {
            problems.push(format!(
                "-t 0.001: VAL {} {}; {why}",
                entry["valid"], entry["failure"]
            ));
        }
        let default = &entry["default_tolerance"];
        if default["valid"] != entry["valid"] || default["kind"] != entry["failure"]["kind"] {
            let loose = at(0.01);
            if let Some(why) = disagreement(
                default["valid"].as_bool().unwrap(),
                default,
                default["value"].as_f64(),
                &loose,
            ) {
                problems.push(format!("-t 0.01: VAL {default}; {why}"));
            }
        }
        let folder = d.split('/').next().unwrap_or(d).to_string();
        let row = table.entry(folder).or_default();
        row.1 += 1;
        if problems.is_empty() {
            row.0 += 1;
        } else {
            wrong.push(format!(
                "{plan_path} ({}): {}",
                entry["mutation"],
                problems.join("; ")
            ));
        }
    }
    if !wrong.is_empty() {
        eprintln!("{:<30} {:>6} {:>6}", "domain", "agree", "pairs");
        for (folder, (ok, n)) in &table {
            eprintln!("{folder:<30} {ok:>6} {n:>6}");
        }
        for w in &wrong {
            eprintln!("{w}");
        }
        panic!(
            "{} of {} temporal pairs disagree with VAL",
            wrong.len(),
            table.values().map(|r| r.1).sum::<usize>()
        );
    }
}
