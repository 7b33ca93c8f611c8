//! `safeplan validate` against VAL's verdicts on the shared corpora (IPC, temporal, PDDL3).

use crate::cli_validate::{json_lines, run_in};
use serde_json::Value;

use crate::code;
use crate::stderr;
use std::path::Path;
use std::path::PathBuf;

/// The shared reference data (`../shared/data` beside the repository, or `$SAFEPLAN_DATA`);
/// `None` (skip) when it is not on this machine, a failure under `CI=true`.
fn data_dir() -> Option<PathBuf> {
    shared_data("ipc/manifest.jsonl")
}

/// The shared data folder when `probe` (a file in it) is there; `None` (skip) when not, a
/// failure under `CI=true`.
#[allow(clippy::print_stderr)] // a skipped corpus must be visible in the test output
pub(crate) fn shared_data(probe: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("SAFEPLAN_DATA") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.join(probe).is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "reference data not found at {} (set SAFEPLAN_DATA); under CI=true this is a failure",
            dir.display()
        );
    }
    eprintln!("skipping: reference data not found at {}", dir.display());
    None
}

/// VAL's failure kind in ours.
fn our_kind(val: &str) -> &str {
    match val {
        "precondition" => "unsatisfied_precondition",
        "goal_not_satisfied" => "unsatisfied_goal",
        "type_error" => "type_mismatch",
        other => other,
    }
}

#[test]
fn validate_agrees_with_val_on_a_sample_of_the_corpus() {
    let Some(data) = data_dir() else {
        return;
    };
    let dir = data.join("ipc");
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl")).expect("read manifest");
    let lines: Vec<Value> = manifest
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a manifest line"))
        .collect();

    // One line per (mutation, VAL verdict, typed or not), spread over the domains: for
    // each group in turn, the line whose domain has been picked least so far.
    let typed = |l: &Value| {
        l["detected_features"]
            .as_array()
            .is_some_and(|f| f.iter().any(|x| x == ":typing"))
    };
    let key = |l: &Value| {
        format!(
            "{} {} {}",
            l["mutation"].as_str().unwrap_or("planner"),
            l["failure"]["kind"].as_str().unwrap_or("valid"),
            if typed(l) { "typed" } else { "untyped" }
        )
    };
    let mut groups: std::collections::BTreeMap<String, Vec<&Value>> = Default::default();
    for l in &lines {
        groups.entry(key(l)).or_default().push(l);
    }
    let mut used: std::collections::HashMap<&str, usize> = Default::default();
    let mut sample: Vec<&Value> = Vec::new();
    for members in groups.values() {
        let pick = members
            .iter()
            .min_by_key(|l| {
                used.get(l["domain"].as_str().unwrap_or(""))
                    .copied()
                    .unwrap_or(0)
            })
            .copied();
        if let Some(l) = pick {
            *used.entry(l["domain"].as_str().unwrap_or("")).or_default() += 1;
            sample.push(l);
        }
    }
    let kinds: std::collections::BTreeSet<&str> = sample
        .iter()
        .map(|l| l["failure"]["kind"].as_str().unwrap_or("valid"))
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "goal_not_satisfied",
            "precondition",
            "type_error",
            "unknown_action",
            "unknown_object",
            "valid"
        ]
    );

    // One run per task, with all its sampled plans: JSON lines come back in order.
    let mut by_task: std::collections::BTreeMap<(&str, &str), Vec<&Value>> = Default::default();
    for l in &sample {
        by_task
            .entry((
                l["domain"].as_str().unwrap_or(""),
                l["problem"].as_str().unwrap_or(""),
            ))
            .or_default()
            .push(l);
    }
    let mut checked = 0;
    for ((domain, problem), plans) in by_task {
        let mut args = vec!["validate", "--json", domain, problem];
        args.extend(plans.iter().map(|l| l["plan"].as_str().unwrap_or("")));
        let out = run_in(&dir, &args);
        let got = json_lines(&out);
        assert_eq!(got.len(), plans.len(), "{args:?}: {}", stderr(&out));
        for (l, v) in plans.iter().zip(&got) {
            assert_eq!(v["plan"], l["plan"]);
            assert_eq!(v["valid"], l["valid"], "{l}\n{v}");
            if l["valid"] == true {
                // VAL's "Final value": the metric, or the number of steps without one.
                let value = if v["metric"].is_null() {
                    v["steps"].as_f64()
                } else {
                    v["metric"].as_f64()
                };
                // VAL prints its value rounded; ours is the exact sum (1e-9 relative).
                let (ours, vals) = (
                    value.unwrap_or(f64::NAN),
                    l["value"].as_f64().unwrap_or(f64::NAN),
                );
                assert!(
                    (ours - vals).abs() <= 1e-9 * vals.abs().max(1.0),
                    "{l}\n{v}"
                );
            } else {
                let val_kind = l["failure"]["kind"].as_str().unwrap_or("");
                // SEMANTICS.md §2: in untyped domains VAL lets an undeclared object through
                // and fails on a precondition at that step; we name the unknown object.
                let want = if l["mutation"] == "undeclared_object" && !typed(l) {
                    "unknown_object"
                } else {
                    our_kind(val_kind)
                };
                assert_eq!(v["failure"]["kind"], want, "{l}\n{v}");
                assert_eq!(v["failure"]["step"], l["failure"]["step"], "{l}\n{v}");
            }
            checked += 1;
        }
        let all_valid = plans.iter().all(|l| l["valid"] == true);
        assert_eq!(code(&out), if all_valid { 0 } else { 1 }, "{args:?}");
    }
    assert!(checked >= 20, "{checked}");
}

#[test]
fn validate_answers_the_val_probes_as_documented() {
    let Some(data) = data_dir() else {
        return;
    };
    let dir = data.join("ipc");
    let probes = std::fs::read_to_string(dir.join("probes.jsonl")).expect("read probes");
    let mut seen = 0;
    for line in probes.lines().filter(|l| !l.trim().is_empty()) {
        let l: Value = serde_json::from_str(line).expect("a probe line");
        let name = l["mutation"].as_str().unwrap_or("");
        let path = |k: &str| l[k].as_str().unwrap_or("").to_string();
        let out = run_in(
            &dir,
            &[
                "validate",
                "--json",
                &path("domain"),
                &path("problem"),
                &path("plan"),
            ],
        );
        let got = &json_lines(&out)[0];
        let verdict = |v: &Value| {
            (
                v["valid"].as_bool(),
                v["failure"]["kind"].as_str().map(str::to_string),
                v["failure"]["step"].as_u64(),
            )
        };
        let answer = |valid: bool, kind: Option<&str>, step: Option<u64>| {
            (Some(valid), kind.map(str::to_string), step)
        };
        // docs/CLI.md, "Where we differ from VAL".
        let (want_code, error_in): (i32, Option<&str>) = match name {
            // Plans VAL half-reads or cannot read: a reading error, not validated.
            "plan-unbalanced-paren"
            | "plan-extra-close-paren"
            | "plan-hash-line-before-steps"
            | "plan-junk-words-mid-plan"
            | "plan-junk-words-after-last-step"
            | "plan-steps-without-parens" => (2, Some("plan")),
            // Problems the checker refuses: no plan is validated.
            "duplicate-object-declaration"
            | "duplicate-object-used-as-other-type"
            | "object-missing-from-problem" => (2, Some("problem")),
            _ => {
                let want = match name {
                    // Sequential semantics: no happenings, no mutex check.
                    "timestamps-equal-mutex" | "timestamps-within-0.001-merged" => {
                        answer(true, None, None)
                    }
                    "bare-numeric-effect-domain" => answer(true, None, None),
                    "read-undefined-fluent" => answer(false, Some("numeric_error"), Some(1)),
                    // VAL crashes; step 3 has the wrong number of arguments.
                    "wrong-arity-too-few" | "wrong-arity-too-many" => {
                        answer(false, Some("arity_mismatch"), Some(3))
                    }
                    "untyped-undeclared-object" => answer(false, Some("unknown_object"), Some(1)),
                    _ => answer(
                        l["valid"] == true,
                        l["failure"]["kind"].as_str().map(our_kind),
                        l["failure"]["step"].as_u64(),
                    ),
                };
                assert_eq!(verdict(got), want, "{name}: {got}");
                (if want.0 == Some(true) { 0 } else { 1 }, None)
            }
        };
        assert_eq!(code(&out), want_code, "{name}: {got}");
        if let Some(kind) = error_in {
            let files = got["error"]["files"].as_array().expect("error files");
            let with_errors: Vec<&Value> = files
                .iter()
                .filter(|f| {
                    f["diagnostics"]
                        .as_array()
                        .is_some_and(|d| d.iter().any(|d| d["severity"] == "error"))
                })
                .collect();
            assert_eq!(with_errors.len(), 1, "{name}: {got}");
            assert_eq!(with_errors[0]["kind"], kind, "{name}: {got}");
        }
        seen += 1;
    }
    assert_eq!(seen, 26);
}
