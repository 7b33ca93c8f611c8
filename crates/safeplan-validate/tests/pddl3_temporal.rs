//! Agreement with VAL on the temporal PDDL3 corpus (`pddl3-temporal/manifest.jsonl`): the
//! LEXICON tasks made durative (each action lasts 1, conditions at start, effects at end),
//! with their own trajectory constraints, an added `within` deadline and an added
//! `always-within` rule, and their plans written as timed plans (steps 1.1 apart, and
//! overlapping variants 0.6 apart).
//!
//! Every plan gets VAL's verdict: valid or not, with VAL's metric when valid; for a broken
//! constraint, the operator VAL names and when (the time of the happening after which the
//! state broke it, or VAL's end-of-plan check); for a failed condition, its time. Plans VAL
//! could not read must be refused by our reader or fail as a malformed step.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use safeplan_pddl::ast::ConstraintOp;
use safeplan_pddl::{Plan, Severity, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{FailureKind, Task, ValidateOptions, Verdict};
use serde_json::Value;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn corpus() -> Option<std::path::PathBuf> {
    let dir = crate::data_dir()?.join("pddl3-temporal");
    if dir.join("manifest.jsonl").exists() {
        Some(dir)
    } else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the temporal PDDL3 corpus is missing at {}",
            dir.display()
        );
        None
    }
}

/// What VAL said, or what we say, in the shape compared.
#[derive(Debug, PartialEq)]
enum Expect {
    Valid {
        metric: Option<f64>,
    },
    /// The operator; the time of the state that broke it, `None` at the end-of-plan check.
    Constraint {
        op: String,
        time: Option<f64>,
    },
    /// A condition false at this time.
    Condition(f64),
    Goal,
    Unreadable,
}

fn expected(line: &Value) -> Expect {
    if line["valid"].as_bool() == Some(true) {
        return Expect::Valid {
            metric: line["metric"].as_f64(),
        };
    }
    let f = &line["failure"];
    match f["kind"].as_str().unwrap_or("") {
        "constraint" => Expect::Constraint {
            op: f["constraint"].as_str().unwrap_or("").to_string(),
            time: f["time_or_step"].as_f64(),
        },
        "precondition" => Expect::Condition(f["time_or_step"].as_f64().unwrap_or(-1.0)),
        "goal" => Expect::Goal,
        "plan_parse" | "plan_type_error" => Expect::Unreadable,
        other => panic!("unexpected VAL kind {other}"),
    }
}

fn ours(verdict: Option<&Verdict>) -> Expect {
    let Some(v) = verdict else {
        return Expect::Unreadable;
    };
    let Some(f) = &v.failure else {
        return Expect::Valid { metric: v.metric };
    };
    match f.kind {
        FailureKind::ConstraintViolated => {
            let c = f
                .constraint
                .as_ref()
                .expect("a constraint failure names it");
            Expect::Constraint {
                op: c.operator.as_str().to_string(),
                time: c.state.map(|_| c.time),
            }
        }
        FailureKind::UnsatisfiedGoal => Expect::Goal,
        k if k.is_malformed() => Expect::Unreadable,
        _ => match &f.timing {
            Some(t) => Expect::Condition(t.time),
            None => panic!("unexpected failure {f:?}"),
        },
    }
}

fn same(want: &Expect, got: &Expect) -> bool {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    match (want, got) {
        (Expect::Valid { metric: a }, Expect::Valid { metric: b }) => match (a, b) {
            (Some(a), Some(b)) => close(*a, *b),
            (a, b) => a == b,
        },
        (Expect::Constraint { op: a, time: ta }, Expect::Constraint { op: b, time: tb }) => {
            a == b
                && match (ta, tb) {
                    (Some(x), Some(y)) => close(*x, *y),
                    (x, y) => x == y,
                }
        }
        (Expect::Condition(a), Expect::Condition(b)) => close(*a, *b),
        (a, b) => a == b,
    }
}

#[test]
fn every_plan_of_the_temporal_pddl3_corpus_gets_vals_verdict() {
    let Some(dir) = corpus() else { return };
    let mut tasks: HashMap<(String, String), Arc<Task>> = HashMap::new();
    let mut disagreements: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut by_kind: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut checked = 0;
    let mut accepted = 0;
    for line in read(&dir.join("manifest.jsonl")).lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let (domain, problem) = (
            line["domain"].as_str().unwrap().to_string(),
            line["problem"].as_str().unwrap().to_string(),
        );
        let task = tasks
            .entry((domain.clone(), problem.clone()))
            .or_insert_with(|| {
                let d = parse_domain(&read(&dir.join(&domain)));
                let p = parse_problem(&read(&dir.join(&problem)));
                for diag in d.diagnostics.iter().chain(&p.diagnostics) {
                    assert_ne!(diag.severity, Severity::Error, "{problem}: {diag:?}");
                }
                Arc::new(
                    Task::compile(&d.value.expect("domain"), &p.value.expect("problem"))
                        .unwrap_or_else(|e| panic!("{problem}: {e}")),
                )
            })
            .clone();
        assert!(
            task.is_temporal() && task.has_hard_constraints(),
            "{problem}"
        );
        let plan_rel = line["plan"].as_str().unwrap();
        let parsed = parse_plan(&read(&dir.join(plan_rel)));
        let plan: Option<Plan> = (!parsed.diagnostics.iter().any(|d| d.is_error()))
            .then(|| parsed.value.unwrap_or_default());
        let verdict = plan.as_ref().map(|p| task.validate(p));
        let want = expected(&line);
        let mut got = ours(verdict.as_ref());
        checked += 1;
        *by_kind
            .entry(match &want {
                Expect::Valid { .. } => "valid",
                Expect::Constraint { .. } => "constraint",
                Expect::Condition(_) => "condition",
                Expect::Goal => "goal",
                Expect::Unreadable => "unreadable",
            })
            .or_default() += 1;
        let all = plan.as_ref().map(|p| {
            task.validate_with(
                p,
                &ValidateOptions {
                    keep_going: true,
                    ..ValidateOptions::default()
                },
            )
        });
        // VAL type-checks every step before running the plan; we run it in order and
        // report the first failure. With `keep_going` the malformed step is reported too.
        if want == Expect::Unreadable
            && got != Expect::Unreadable
            && all
                .as_ref()
                .is_some_and(|v| v.failures.iter().any(|f| f.kind.is_malformed()))
        {
            got = Expect::Unreadable;
        }
        // The state after the happening at s breaks a constraint and a condition of the
        // next happening, at t, is false: VAL's error log keeps the condition (its
        // constraint message is printed, not logged); we report the constraint, found
        // first, and `keep_going` reports the condition after it.
        if let (Expect::Condition(t), Expect::Constraint { time: Some(s), .. }) = (&want, &got)
            && s < t
            && all.as_ref().is_some_and(|v| {
                v.failures.iter().any(|f| {
                    f.kind != FailureKind::ConstraintViolated
                        && f.timing.as_ref().is_some_and(|x| (x.time - t).abs() < 1e-6)
                })
            })
        {
            accepted += 1;
            continue;
        }
        if !same(&want, &got) {
            let key = format!("{want:?} -> {got:?}");
            let key = key
                .split([' ', '(', '{'])
                .next()
                .unwrap_or(&key)
                .to_string();
            disagreements
                .entry(format!("{key} {}", line["constraint_form"]))
                .or_default()
                .push(format!(
                    "{plan_rel} ({problem}): VAL {want:?}, ours {got:?}"
                ));
        }
    }
    let summary: Vec<String> = disagreements
        .iter()
        .map(|(k, v)| {
            format!(
                "{k} x{}\n    {}",
                v.len(),
                v[..v.len().min(4)].join("\n    ")
            )
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{checked} plans checked; disagreements:\n{}",
        summary.join("\n")
    );
    assert_eq!(checked, 1439);
    // docs/benchmarks.md prints this figure.
    assert_eq!(accepted, 10, "the accepted differences changed");
    let _ = ConstraintOp::ALL;
    assert_eq!(
        by_kind,
        BTreeMap::from([
            ("condition", 329),
            ("constraint", 649),
            ("unreadable", 15),
            ("valid", 446)
        ])
    );
}
