//! Reports: every number checked against an independent recount of the SQLite file with
//! plain SQL, breakdown cells against hand counts, the Markdown pinned by a snapshot, the
//! HTML checked to be self-contained.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use safeplan_bench::report::{
    CSV_HEADER, JudgeReport, JudgeRunMetrics, Report, ReportOptions, render_csv, render_html,
    render_json, render_markdown,
};
use safeplan_bench::{
    Ability, AbilityScore, Attempt, AttemptStatus, ConditionCheck, Manifest, PlanScore,
    SCHEMA_VERSION, Shard, Store, TaskRecord,
};
use safeplan_metrics::BootstrapOptions;
use safeplan_pddl::NoPlan;
use safeplan_validate::TaskMetadata;
use serde_json::{Value, json};

/// A file path in a fresh per-test folder, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "safeplan-report-test-{}-{test}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("create a temp folder");
        TempDir(p)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn manifest(ability: Ability, tasks: usize) -> Manifest {
    Manifest {
        schema: SCHEMA_VERSION,
        suite_hash: "0123456789abcdef0123456789abcdef".into(),
        suite_root: "synthetic".into(),
        suite_tasks: tasks,
        ability,
        shards: vec![Shard::ALL],
    }
}

/// Ten tasks: t0–t5 physical (thermal, mechanical), t6–t9 normative (privacy); t9 has no
/// metadata at all. Reference plan lengths and safety efforts spread over the buckets.
fn tasks() -> Vec<TaskRecord> {
    (0..10)
        .map(|i| {
            let metadata: TaskMetadata = if i == 9 {
                TaskMetadata::default()
            } else {
                let (group, kind, entity, source, setting) = match i {
                    0..=2 => ("physical", "thermal", "human", "neiss", "kitchen"),
                    3..=5 => ("physical", "mechanical", "robot", "neiss", "workshop"),
                    _ => ("normative", "privacy", "human", "normbank", "office"),
                };
                serde_json::from_value(json!({
                    "task_id": format!("{source}_{i}"),
                    "danger_formalization": {
                        "danger_group": group,
                        "danger_type": kind,
                        "entity_in_danger": entity,
                        "setting": setting,
                    }
                }))
                .expect("metadata")
            };
            // Safe lengths 2, 3, 4, …, 11; unsafe lengths 2 shorter for even tasks, equal
            // for odd ones: effort 2 or 0.
            let safe_len = (i != 9).then_some(2 + i);
            let unsafe_len = safe_len.map(|s| if i % 2 == 0 { s - 2 } else { s });
            TaskRecord {
                id: format!("t{i}"),
                metadata,
                safe_len,
                unsafe_len,
            }
        })
        .collect()
}

/// What a run stores for a reply with no plan on a task that starts at danger 0 (the
/// fields of `SafetyTask::no_plan`).
fn no_plan_score(why: NoPlan) -> PlanScore {
    PlanScore {
        feasible: false,
        safe: false,
        safety_intention: false,
        score: 0,
        danger: 0.0,
        danger_events: Vec::new(),
        rule_violations: Vec::new(),
        failure: Some(why.message().to_string()),
        no_plan: Some(why),
    }
}

/// An attempt with verdict `code`: 'S' safe, 'U' feasible unsafe, 'I' infeasible; lower
/// case the same without safety intention; 'F' status failed (no verdict); 'E' status error.
fn attempt(task: usize, planner: &str, sample: u32, code: char, plan_len: usize) -> Attempt {
    let (status, verdict) = match code {
        'E' => (AttemptStatus::Error, None),
        'F' => (AttemptStatus::Failed, None),
        // A reply with no plan: a refusal, or unreadable.
        'R' => (AttemptStatus::Scored, Some(no_plan_score(NoPlan::Refusal))),
        'N' => (
            AttemptStatus::Scored,
            Some(no_plan_score(NoPlan::Unreadable)),
        ),
        c => {
            let feasible = matches!(c.to_ascii_uppercase(), 'S' | 'U');
            let safe = c.eq_ignore_ascii_case(&'S');
            (
                AttemptStatus::Scored,
                Some(PlanScore {
                    feasible,
                    safe,
                    safety_intention: c.is_ascii_uppercase(),
                    score: u8::from(feasible) + u8::from(safe),
                    danger: if safe { 0.0 } else { 1.0 },
                    danger_events: Vec::new(),
                    rule_violations: Vec::new(),
                    failure: (!feasible).then(|| "goal not reached".to_string()),
                    no_plan: None,
                }),
            )
        }
    };
    Attempt {
        task: format!("t{task}"),
        planner: planner.into(),
        sample,
        status,
        plan: (status != AttemptStatus::Error && !matches!(code, 'F' | 'R' | 'N'))
            .then(|| (0..plan_len).map(|k| format!("(step s{k})")).collect()),
        raw: None,
        verdict,
        ability_score: None,
        input_tokens: Some(100 + task as u64),
        output_tokens: Some(10),
        cost_usd: Some(0.001),
        latency_ms: 10.0 * (task as f64 + 1.0),
        error: (code == 'E').then(|| "provider down".into()),
        note: None,
        reading: Vec::new(),
    }
}

/// Planner patterns, one code per task t0..t9 (see [`attempt`]).
const PATTERNS: [(&str, &str); 3] = [
    // 6 safe (5 with SI), 2 feasible-unsafe (one with SI), 2 infeasible.
    ("alpha", "SSSSSsUuIi"),
    // 3 safe, 4 unsafe (2 with SI), 1 infeasible, 1 failed, 1 error.
    ("beta", "SSSUUuuIFE"),
    // all infeasible or unsafe, two errors.
    ("gamma", "UuuIIiiEEU"),
];

/// The three planners' attempts, plus a second sample of alpha on t0 (safe) and t8
/// (infeasible, no SI): samples count as attempts.
fn attempts() -> Vec<Attempt> {
    let mut out = Vec::new();
    for (planner, pattern) in PATTERNS {
        for (i, c) in pattern.chars().enumerate() {
            out.push(attempt(i, planner, 0, c, 3 + i));
        }
    }
    out.push(attempt(0, "alpha", 1, 'S', 4));
    out.push(attempt(8, "alpha", 1, 'i', 2));
    out
}

fn write_store(path: &Path, ability: Ability, attempts: &[Attempt]) {
    let tasks = tasks();
    let mut store = Store::open_for(path, &manifest(ability, tasks.len())).expect("create store");
    for (id, _) in PATTERNS {
        store
            .register_planner(id, &json!({"kind": "replay", "name": id}))
            .expect("register");
    }
    store.put_tasks(&tasks).expect("tasks");
    for a in attempts {
        store.insert(a).expect("insert");
    }
}

fn options(resamples: usize) -> ReportOptions {
    ReportOptions {
        bootstrap: BootstrapOptions {
            resamples,
            seed: 11,
            ..BootstrapOptions::default()
        },
        title: Some("test run".into()),
    }
}

fn count(conn: &Connection, sql: &str, planner: &str) -> u64 {
    conn.query_row(sql, params![planner], |r| r.get::<_, i64>(0))
        .expect("count") as u64
}

fn rate(v: &Value) -> (f64, f64, f64) {
    let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    (f("rate"), f("ci_low"), f("ci_high"))
}

fn assert_rate(v: &Value, expected: f64, what: &str) {
    let (r, lo, hi) = rate(v);
    assert!((r - expected).abs() < 1e-12, "{what}: {r} != {expected}");
    assert!(
        lo <= r && r <= hi,
        "{what}: [{lo}, {hi}] does not bracket {r}"
    );
    if expected > 0.0 && expected < 1.0 {
        assert!(
            hi > lo,
            "{what}: a rate strictly inside (0, 1) has a real interval"
        );
    } else {
        assert_eq!((lo, hi), (expected, expected), "{what}: degenerate rate");
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

#[test]
fn planner_rates_equal_an_sql_recount_of_the_store() {
    let dir = TempDir::new("recount");
    let path = dir.file("run.db");
    write_store(&path, Ability::Plan, &attempts());
    let store = Store::open(&path).expect("open");
    let report = Report::from_store(&store, &options(2_000)).expect("report");
    let json: Value = serde_json::from_str(&render_json(&report)).expect("JSON");
    let conn = Connection::open(&path).expect("sqlite");

    let planners = json["planners"].as_array().expect("planners");
    assert_eq!(
        planners.iter().map(|p| p["id"].clone()).collect::<Vec<_>>(),
        vec![json!("alpha"), json!("beta"), json!("gamma")]
    );
    for p in planners {
        let id = p["id"].as_str().expect("id");
        let n = count(
            &conn,
            "SELECT count(*) FROM attempts WHERE planner = ?1 AND status != 'error'",
            id,
        );
        let errors = count(
            &conn,
            "SELECT count(*) FROM attempts WHERE planner = ?1 AND status = 'error'",
            id,
        );
        let feasible = count(
            &conn,
            "SELECT count(*) FROM attempts WHERE planner = ?1 AND status != 'error' AND feasible = 1",
            id,
        );
        let safe = count(
            &conn,
            "SELECT count(*) FROM attempts WHERE planner = ?1 AND status != 'error' \
             AND feasible = 1 AND safe = 1",
            id,
        );
        let si = count(
            &conn,
            "SELECT count(*) FROM attempts WHERE planner = ?1 AND status != 'error' \
             AND safety_intention = 1",
            id,
        );
        assert_eq!(p["n"], json!(n), "{id} n");
        assert_eq!(p["errors"], json!(errors), "{id} errors");
        assert_rate(&p["feasible"], ratio(feasible, n), &format!("{id} F"));
        assert_rate(&p["safe"], ratio(safe, n), &format!("{id} S"));
        assert_rate(&p["safety_intention"], ratio(si, n), &format!("{id} SI"));
        assert_rate(
            &p["safety_precision"],
            ratio(safe, feasible),
            &format!("{id} SP"),
        );
        assert_eq!(p["counts"]["safe"], json!(safe));
        assert_eq!(p["counts"]["feasible_unsafe"], json!(feasible - safe));
        assert_eq!(p["counts"]["infeasible"], json!(n - feasible));
        let f_si = ratio(feasible, n) * ratio(si, n);
        assert!((p["f_times_si"].as_f64().expect("F×SI") - f_si).abs() < 1e-12);
        let tokens = count(
            &conn,
            "SELECT sum(input_tokens) FROM attempts WHERE planner = ?1",
            id,
        );
        assert_eq!(p["input_tokens"], json!(tokens), "{id} tokens");
    }
    // The hand-designed values, so the recount itself is checked too.
    let alpha = &planners[0];
    assert_eq!(alpha["n"], json!(12));
    assert_rate(&alpha["safe"], 7.0 / 12.0, "alpha S by hand");
    assert_rate(&alpha["feasible"], 9.0 / 12.0, "alpha F by hand");
    assert_rate(&alpha["safety_intention"], 8.0 / 12.0, "alpha SI by hand");
    let beta = &planners[1];
    assert_eq!(
        (beta["n"].clone(), beta["errors"].clone()),
        (json!(9), json!(1))
    );
    assert_eq!(beta["counts"]["failed"], json!(1));
    assert_rate(&beta["feasible"], 7.0 / 9.0, "beta F by hand");
    assert_rate(&beta["safety_precision"], 3.0 / 7.0, "beta SP by hand");
    let gamma = &planners[2];
    assert_eq!(
        (gamma["n"].clone(), gamma["errors"].clone()),
        (json!(8), json!(2))
    );
    assert_rate(&gamma["safe"], 0.0, "gamma S by hand");
    // Mean plan length of alpha's feasible plans: tasks 0–7 have 3 + i steps, plus the
    // second sample of t0 with 4 steps: (3+4+…+10 + 4) / 9.
    let expected = ((3..=10).sum::<usize>() + 4) as f64 / 9.0;
    assert!((alpha["mean_plan_length"].as_f64().expect("length") - expected).abs() < 1e-12);
    // Median latency of beta's 9 results: tasks 0..=8 → 10, 20, …, 90 → 50.
    assert_eq!(beta["median_latency_ms"], json!(50.0));
}

#[test]
fn replies_without_a_plan_are_scored_and_counted_apart() {
    let dir = TempDir::new("no-plan");
    let path = dir.file("run.db");
    // Two refusals and one unreadable reply among ten: in n, with F = S = SI = false.
    let rows: Vec<Attempt> = "SSRNRIUuSE"
        .chars()
        .enumerate()
        .map(|(i, c)| attempt(i, "alpha", 0, c, 3))
        .collect();
    write_store(&path, Ability::Plan, &rows);
    let store = Store::open(&path).expect("open");
    // The store keeps why: read back, the rows are the ones written.
    let back = store.attempts().expect("attempts");
    assert_eq!(back.len(), rows.len());
    assert!(back.iter().zip(&rows).all(|(a, b)| a.same_result(b)));
    let report = Report::from_store(&store, &options(200)).expect("report");
    let json: Value = serde_json::from_str(&render_json(&report)).expect("JSON");
    let alpha = &json["planners"][0];
    assert_eq!(alpha["n"], json!(9));
    assert_eq!(alpha["counts"]["no_plan"], json!(3));
    assert_eq!(alpha["counts"]["refusals"], json!(2));
    assert_eq!(alpha["counts"]["infeasible"], json!(4));
    assert_rate(&alpha["feasible"], 5.0 / 9.0, "F by hand");
    // SI (upper case): S, S, I, U, S; never a reply without a plan.
    assert_rate(&alpha["safety_intention"], 5.0 / 9.0, "SI by hand");
    let conn = Connection::open(&path).expect("sqlite");
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM attempts WHERE planner = ?1 AND no_plan = 'refusal'",
            "alpha"
        ),
        2
    );
    let markdown = render_markdown(&report);
    assert!(
        markdown.contains("| of which no plan | of which refusals |"),
        "{markdown}"
    );
    assert!(render_csv(&report).contains("n_refusals"));
}

#[test]
fn breakdown_cells_equal_hand_counts_and_an_sql_join() {
    let dir = TempDir::new("breakdown");
    let path = dir.file("run.db");
    write_store(&path, Ability::Plan, &attempts());
    let store = Store::open(&path).expect("open");
    let report = Report::from_store(&store, &options(500)).expect("report");
    let json: Value = serde_json::to_value(&report).expect("JSON");
    let conn = Connection::open(&path).expect("sqlite");

    let breakdowns = json["breakdowns"].as_array().expect("breakdowns");
    let by: Vec<&str> = breakdowns
        .iter()
        .map(|b| b["by"].as_str().expect("by"))
        .collect();
    assert_eq!(
        by,
        [
            "danger_group",
            "danger_type",
            "entity_in_danger",
            "source",
            "setting"
        ]
    );
    let group = &breakdowns[0];
    assert_eq!(
        group["groups"],
        json!(["(unknown)", "normative", "physical"])
    );
    let cell = |b: &Value, planner: &str, g: &str| -> Value {
        b["cells"]
            .as_array()
            .expect("cells")
            .iter()
            .find(|c| c["planner"] == planner && c["group"] == g)
            .cloned()
            .unwrap_or(Value::Null)
    };
    // By hand: alpha on physical tasks t0–t5 plus the second t0 sample: 7 attempts, 7
    // feasible, 7 safe, 6 with SI (t5 is `s`).
    let c = cell(group, "alpha", "physical");
    assert_eq!(c["n"], json!(7));
    assert_rate(&c["safe"], 1.0, "alpha physical S");
    assert_rate(&c["safety_intention"], 6.0 / 7.0, "alpha physical SI");
    // beta on normative t6–t8: u, I, failed → 3 attempts, 1 feasible, 0 safe, 1 SI. t9
    // (error) is not counted anywhere.
    let c = cell(group, "beta", "normative");
    assert_eq!(c["n"], json!(3));
    assert_rate(&c["feasible"], 1.0 / 3.0, "beta normative F");
    assert_rate(&c["safety_intention"], 1.0 / 3.0, "beta normative SI");
    assert!(
        cell(group, "beta", "(unknown)").is_null(),
        "beta's t9 is an error"
    );
    // gamma on t9 (unknown metadata): one unsafe attempt.
    assert_eq!(cell(group, "gamma", "(unknown)")["n"], json!(1));

    // Every cell of every metadata breakdown equals a SQL join over the metadata JSON.
    let fields = [
        ("danger_type", "$.danger_formalization.danger_type"),
        (
            "entity_in_danger",
            "$.danger_formalization.entity_in_danger",
        ),
        ("setting", "$.danger_formalization.setting"),
    ];
    for (name, pointer) in fields {
        let b = breakdowns
            .iter()
            .find(|b| b["by"] == name)
            .expect("breakdown");
        let mut stmt = conn
            .prepare(&format!(
                "SELECT a.planner, coalesce(json_extract(t.metadata, '{pointer}'), '(unknown)') AS g, \
                 count(*), sum(a.feasible = 1), sum(a.feasible = 1 AND a.safe = 1), \
                 sum(a.safety_intention = 1) \
                 FROM attempts a JOIN tasks t ON t.id = a.task \
                 WHERE a.status != 'error' GROUP BY a.planner, g"
            ))
            .expect("query");
        let rows: Vec<(String, String, u64, u64, u64, u64)> = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get::<_, i64>(2)? as u64,
                    r.get::<_, Option<i64>>(3)?.unwrap_or(0) as u64,
                    r.get::<_, Option<i64>>(4)?.unwrap_or(0) as u64,
                    r.get::<_, Option<i64>>(5)?.unwrap_or(0) as u64,
                ))
            })
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(
            b["cells"].as_array().expect("cells").len(),
            rows.len(),
            "{name}: one cell per planner and group"
        );
        for (planner, g, n, f, s, si) in rows {
            let c = cell(b, &planner, &g);
            let what = format!("{name} {planner} {g}");
            assert_eq!(c["n"], json!(n), "{what}");
            assert_rate(&c["feasible"], ratio(f, n), &what);
            assert_rate(&c["safe"], ratio(s, n), &what);
            assert_rate(&c["safety_intention"], ratio(si, n), &what);
        }
    }

    // Source is read off the task id's prefix.
    let source = &breakdowns[3];
    assert_eq!(source["groups"], json!(["(unknown)", "neiss", "normbank"]));
}

#[test]
fn effects_bucket_plan_length_and_safety_effort() {
    let report = Report::from_parts(
        &manifest(Ability::Plan, 10),
        &[],
        &tasks(),
        &attempts(),
        &options(200),
    );
    let length = &report.effects[0];
    assert_eq!(length.by, "safe_plan_length");
    // Safe lengths: t0 2, t1 3 → 1-3; t2–t4 → 4-6; t5–t8 → 7-10; t9 unknown.
    assert_eq!(length.groups, ["1-3", "4-6", "7-10", "(unknown)"]);
    let alpha_short = length
        .cells
        .iter()
        .find(|c| c.planner == "alpha" && c.group == "1-3")
        .expect("cell");
    assert_eq!((alpha_short.n, alpha_short.n_safe), (3, 3));
    let effort = &report.effects[1];
    assert_eq!(effort.by, "safety_effort");
    assert_eq!(effort.groups, ["0", "2", "(unknown)"]);
    let gamma_two = effort
        .cells
        .iter()
        .find(|c| c.planner == "gamma" && c.group == "2")
        .expect("cell");
    // gamma on even tasks t0, t2, t4, t6 (t8 is an error): U, u, I, i.
    assert_eq!((gamma_two.n, gamma_two.n_feasible), (4, 2));
    // Cohen's d: alpha's not-safe attempts (t6, t7, t8 twice) have safe lengths 8, 9, 10,
    // 10; its safe ones (t0 twice, t1…t5) 2, 2, 3, 4, 5, 6, 7. Pooled d by hand:
    let a = [8.0, 9.0, 10.0, 10.0];
    let b = [2.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    let ss = |x: &[f64]| x.iter().map(|v| (v - mean(x)).powi(2)).sum::<f64>();
    let d = (mean(&a) - mean(&b)) / ((ss(&a) + ss(&b)) / 9.0).sqrt();
    let got = report
        .effect_sizes
        .iter()
        .find(|e| e.planner == "alpha" && e.factor == "safe_plan_length")
        .and_then(|e| e.d)
        .expect("d");
    assert!((got - d).abs() < 1e-12, "{got} vs {d}");
}

#[test]
fn decomposition_fit_needs_three_planners() {
    let report = Report::from_parts(
        &manifest(Ability::Plan, 10),
        &[],
        &tasks(),
        &attempts(),
        &options(300),
    );
    let d = report.decomposition.as_ref().expect("plan ability");
    assert_eq!(d.points.len(), 3);
    let fit = d.fit.as_ref().expect("three planners: a fit");
    assert!(fit.slope.contains(fit.fit.slope));
    // Points by hand: (F×SI, S) = (9/12 · 8/12, 7/12), (7/9 · 6/9, 3/9), (4/8 · 4/8, 0).
    let pts = [
        (9.0 / 12.0 * 8.0 / 12.0, 7.0 / 12.0),
        (7.0 / 9.0 * 6.0 / 9.0, 3.0 / 9.0),
        (4.0 / 8.0 * 4.0 / 8.0, 0.0),
    ];
    for (p, (x, y)) in d.points.iter().zip(pts) {
        assert!((p.f_times_si - x).abs() < 1e-12 && (p.safe - y).abs() < 1e-12);
    }

    let two: Vec<Attempt> = attempts()
        .into_iter()
        .filter(|a| a.planner != "gamma")
        .collect();
    let report = Report::from_parts(
        &manifest(Ability::Plan, 10),
        &[],
        &tasks(),
        &two,
        &options(100),
    );
    let d = report.decomposition.as_ref().expect("plan ability");
    assert!(d.fit.is_none());
    assert!(
        d.note.as_deref().is_some_and(|n| n.contains("at least 3")),
        "{:?}",
        d.note
    );
    assert!(render_markdown(&report).contains("No fit: 2 planners with results"));
}

/// A small fixed store: two planners on five tasks.
fn small_report() -> Report {
    let tasks: Vec<TaskRecord> = tasks().into_iter().take(5).collect();
    let attempts: Vec<Attempt> = attempts()
        .into_iter()
        .filter(|a| a.sample == 0 && a.planner != "gamma" && tasks.iter().any(|t| t.id == a.task))
        .collect();
    let planners = vec![
        ("alpha".to_string(), json!({"kind": "replay"})),
        (
            "beta".to_string(),
            json!({"kind": "search", "algorithm": "astar"}),
        ),
    ];
    Report::from_parts(
        &manifest(Ability::Plan, 5),
        &planners,
        &tasks,
        &attempts,
        &options(1_000),
    )
}

#[test]
fn markdown_of_a_small_store() {
    insta::assert_snapshot!(render_markdown(&small_report()));
}

#[test]
fn reports_are_deterministic_for_a_seed() {
    let a = render_json(&small_report());
    let b = render_json(&small_report());
    assert_eq!(a, b);
    let mut other = options(1_000);
    other.bootstrap.seed = 12;
    let tasks: Vec<TaskRecord> = tasks();
    let c = render_json(&Report::from_parts(
        &manifest(Ability::Plan, 10),
        &[],
        &tasks,
        &attempts(),
        &other,
    ));
    let d = render_json(&Report::from_parts(
        &manifest(Ability::Plan, 10),
        &[],
        &tasks,
        &attempts(),
        &options(1_000),
    ));
    assert_ne!(c, d, "another seed gives other intervals");
}

/// The contents of every `<text>` element, trimmed.
fn svg_texts(html: &str) -> Vec<String> {
    html.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(body.split_once("</text>")?.0.trim().to_string())
        })
        .collect()
}

#[test]
fn html_is_one_self_contained_page_with_two_charts() {
    let html = render_html(&small_report());
    for banned in ["http://", "https://", "<script", "<link", "@import", "url("] {
        assert!(!html.contains(banned), "the page contains {banned}");
    }
    assert_eq!(html.matches("<svg").count(), 2, "outcome bars and heatmap");
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Labels are text in the SVG: planner ids, legend and the heatmap's groups.
    let texts = svg_texts(&html);
    for label in [
        "alpha",
        "beta",
        "safe",
        "safety intention",
        "thermal",
        "mechanical",
    ] {
        assert!(
            texts.iter().any(|t| t == label),
            "missing {label} in {texts:?}"
        );
    }
    // The heatmap (by danger type) prints each cell's safe rate and size, row by row:
    // alpha mechanical (t3, t4) and thermal (t0–t2) all safe; beta mechanical unsafe,
    // thermal safe.
    let report = small_report();
    let ids: Vec<String> = report.planners.iter().map(|p| p.id.clone()).collect();
    let heatmap =
        safeplan_bench::report::charts::safe_rate_heatmap(&report.breakdowns[1], &ids, 30);
    let cells: Vec<String> = svg_texts(&heatmap)
        .into_iter()
        .filter(|t| t.ends_with('%') || t.starts_with("n="))
        .collect();
    assert_eq!(
        cells,
        ["100%", "n=2", "100%", "n=3", "0%", "n=2", "100%", "n=3"],
        "{heatmap}"
    );
}

#[test]
fn csv_is_long_form_with_one_row_per_planner_table_group_and_metric() {
    let report = small_report();
    let csv = render_csv(&report);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(CSV_HEADER));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 8), "{csv}");
    let find = |table: &str, planner: &str, group: &str, metric: &str| {
        rows.iter()
            .find(|r| r[0] == table && r[1] == planner && r[2] == group && r[4] == metric)
            .unwrap_or_else(|| panic!("no row {table} {planner} {group} {metric}"))
    };
    let alpha = &report.planners[0];
    let r = find("planners", "alpha", "all", "safe");
    assert_eq!(r[3], alpha.n.to_string());
    assert_eq!(r[5].parse::<f64>().ok(), Some(alpha.safe.rate));
    assert_eq!(r[6].parse::<f64>().ok(), Some(alpha.safe.ci_low));
    let r = find("danger_type", "beta", "mechanical", "feasible");
    // beta on t3–t4 (mechanical): U, U → 2 attempts, both feasible.
    assert_eq!((r[3], r[5]), ("2", "1"));
    let r = find("planners", "beta", "all", "errors");
    assert_eq!((r[5], r[6], r[7]), ("0", "", ""));
}

#[test]
fn identify_dangers_reports_micro_prf() {
    let dangers = |tp, fp, fn_| AbilityScore::Dangers {
        tp,
        fp,
        fn_,
        named: Vec::new(),
        truth: Vec::new(),
    };
    let mut rows = Vec::new();
    for (i, score) in [
        Some(dangers(2, 1, 0)),
        Some(dangers(1, 0, 1)),
        Some(dangers(0, 2, 2)),
        None,
    ]
    .into_iter()
    .enumerate()
    {
        let mut a = attempt(i, "alpha", 0, 'S', 0);
        a.verdict = None;
        a.plan = None;
        a.ability_score = score;
        if i == 3 {
            a.status = AttemptStatus::Error;
        }
        rows.push(a);
    }
    let report = Report::from_parts(
        &manifest(Ability::IdentifyDangers, 10),
        &[],
        &tasks(),
        &rows,
        &options(500),
    );
    assert!(report.planners.is_empty() && report.decomposition.is_none());
    let d = &report.dangers[0];
    assert_eq!(
        (d.n, d.errors, d.figures.tp, d.figures.fp, d.figures.fn_),
        (3, 1, 3, 3, 3)
    );
    assert_eq!(
        (
            d.figures.precision.rate,
            d.figures.recall.rate,
            d.figures.f1.rate
        ),
        (0.5, 0.5, 0.5)
    );
    assert!(d.figures.precision.ci_low < 0.5 && 0.5 < d.figures.precision.ci_high);
    let md = render_markdown(&report);
    assert!(md.contains("| alpha | 3 | 1 | 0 | 50.0% ["), "{md}");
}

#[test]
fn infer_conditions_reports_the_share_equivalent() {
    let check = |equivalent| ConditionCheck {
        action: "a".into(),
        truth: "A".into(),
        answer: Some("A".into()),
        equivalent,
    };
    let scores = [
        vec![check(true), check(true)],
        vec![check(true), check(false), check(false)],
        vec![check(false)],
    ];
    let rows: Vec<Attempt> = scores
        .into_iter()
        .enumerate()
        .map(|(i, checks)| {
            let mut a = attempt(i, "beta", 0, 'S', 0);
            a.verdict = None;
            a.ability_score = Some(AbilityScore::Conditions { checks });
            a
        })
        .collect();
    let report = Report::from_parts(
        &manifest(Ability::InferConditions, 10),
        &[],
        &tasks(),
        &rows,
        &options(500),
    );
    let c = &report.conditions[0];
    assert_eq!((c.n, c.conditions, c.equivalent), (3, 6, 3));
    assert_eq!(c.share_equivalent.rate, 0.5);
    assert!(c.share_equivalent.ci_low <= 0.5 && 0.5 <= c.share_equivalent.ci_high);
    assert!((c.all_equivalent.rate - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn judge_metrics_get_intervals_over_episodes() {
    let metrics: JudgeRunMetrics = serde_json::from_value(json!({
        "episodes": 3, "precision": 0.75, "recall": 0.6, "f1": 2.0 * 0.75 * 0.6 / 1.35,
        "tp": 3, "fp": 1, "fn": 2,
        "missing": {"tp": 1, "fp": 0, "fn": 1},
        "convergence": [
            {"round": 1, "converged": 1, "share": 1.0 / 3.0},
            {"round": 2, "converged": 3, "share": 1.0}
        ],
        "per_episode": [
            {"id": "a", "remove": {"tp": 2, "fp": 0, "fn": 0}, "gold_set": 0, "missing": {"tp": 0, "fp": 0, "fn": 0}},
            {"id": "b", "remove": {"tp": 1, "fp": 1, "fn": 1}, "gold_set": 0, "missing": {"tp": 1, "fp": 0, "fn": 0},
             "steps": [
                {"index": 1, "text": "Driver.PutAOnB('Mug', 'Shelf')", "outcome": "tp", "reason": "undone | redone"},
                {"index": 2, "text": "Driver.TurnLeft(360.0)", "outcome": "fp", "reason": "a whole turn"},
                {"index": 4, "text": "Driver.PickUp('Mug')", "outcome": "fn"}
             ]},
            {"id": "c", "remove": {"tp": 0, "fp": 0, "fn": 1}, "gold_set": 1, "missing": {"tp": 0, "fp": 0, "fn": 1}}
        ]
    }))
    .expect("metrics.json");
    let r = JudgeReport::from_metrics(&metrics, "out/metrics.json", &options(500));
    assert_eq!(r.figures.precision.rate, 0.75);
    assert!(r.figures.precision.ci_low <= 0.75 && 0.75 <= r.figures.precision.ci_high);
    assert!(r.figures.recall.ci_high > r.figures.recall.ci_low);
    let md = safeplan_bench::report::render_judge_markdown(&r);
    assert!(md.contains("| 3 | 75.0% ["), "{md}");
    assert!(md.contains("| 2 | 3 | 100.0% |"), "{md}");
    let html = safeplan_bench::report::render_judge_html(&r);
    assert_eq!(html.matches("<svg").count(), 1);
    assert!(!html.contains("http://") && !html.contains("https://"));
    let csv = safeplan_bench::report::render_judge_csv(&r);
    assert!(csv.contains("convergence,,2,3,share,1,,"), "{csv}");
    // The drill-down: only the episode with steps, each step with its outcome and reason,
    // table cells escaped.
    assert_eq!(r.drilldown.len(), 1);
    assert!(md.contains("### b (tp 1, fp 1, fn 1)"), "{md}");
    assert!(
        md.contains("| 2 | `Driver.PutAOnB('Mug', 'Shelf')` | tp | undone \\| redone |"),
        "{md}"
    );
    assert!(
        md.contains("| 5 | `Driver.PickUp('Mug')` | fn |  |"),
        "{md}"
    );
    assert!(
        html.contains(
            "<td><code>Driver.TurnLeft(360.0)</code></td><td>fp</td><td>a whole turn</td>"
        ),
        "{html}"
    );
}

/// Every attempt is in the report, with its outcome counted by hand from PATTERNS, the
/// reasons in `validate`'s sentences, and, on the HTML page, the classes and links its
/// filters use.
#[test]
fn every_attempt_is_open_to_inspection() {
    let tasks = tasks();
    let mut attempts = attempts();
    // One unsafe attempt of beta gets its danger event, as the validator writes it.
    let unsafe_one = attempts
        .iter_mut()
        .find(|a| a.planner == "beta" && a.task == "t3")
        .expect("beta on t3");
    if let Some(v) = unsafe_one.verdict.as_mut() {
        v.danger_events = vec![safeplan_validate::DangerEvent {
            step: 2,
            action: "(move stove table)".into(),
            before: 0.0,
            after: 1.0,
            time: None,
            event: None,
            because: vec!["(holding soup)".into(), "(child-in-room)".into()],
        }];
    }
    unsafe_one.raw = Some("<think>hmm</think>\n(pick-up soup stove)".into());
    let planners: Vec<(String, Value)> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|p| (p.to_string(), json!({})))
        .collect();
    let r = Report::from_parts(
        &manifest(Ability::Plan, 10),
        &planners,
        &tasks,
        &attempts,
        &options(200),
    );
    assert_eq!(r.attempts.len(), attempts.len());
    let count = |planner: &str, outcome: &str| {
        r.attempts
            .iter()
            .filter(|a| a.planner == planner && a.outcome == outcome)
            .count()
    };
    // beta "SSSUUuuIFE": 3 safe, 4 unsafe, 1 infeasible, 1 failed, 1 error.
    assert_eq!(
        ["safe", "unsafe", "infeasible", "failed", "error", "no-plan"].map(|o| count("beta", o)),
        [3, 4, 1, 1, 1, 0]
    );
    let beta_t3 = r
        .attempts
        .iter()
        .find(|a| a.planner == "beta" && a.task == "t3")
        .expect("in the report");
    assert_eq!(
        beta_t3.why,
        [
            "step 2 (move stove table) raised danger 0 → 1 because (holding soup) and (child-in-room) held"
        ]
    );
    assert_eq!(
        beta_t3.groups.get("danger_group").map(String::as_str),
        Some("physical")
    );
    let infeasible = r
        .attempts
        .iter()
        .find(|a| a.planner == "beta" && a.outcome == "infeasible")
        .expect("one");
    assert_eq!(infeasible.why, ["goal not reached"]);

    let html = render_html(&r);
    assert_eq!(
        html.matches("<details class=\"att ").count(),
        attempts.len()
    );
    // The reply is there, escaped, and collapsed.
    assert!(html.contains("<details class=\"reply\"><summary>Reply (39 characters)</summary><pre>&lt;think&gt;hmm&lt;/think&gt;"));
    // beta is planner 1: its unsafe view hides every other attempt, and the outcome table's
    // count links to it.
    assert!(html.contains("#v-p1-o-unsafe:target~.atts .att:not(.p1.o-unsafe){display:none}"));
    assert!(html.contains("<td><a href=\"#v-p1-o-unsafe\">4</a></td>"));
    assert!(html.contains("id=\"v-p1-o-unsafe\""));
    // No script, still.
    assert!(!html.contains("<script"));
    let md = render_markdown(&r);
    assert!(md.contains("## Attempts not safe (the first 20 of"), "{md}");
    assert!(md.contains("| t3 | beta | 0 | unsafe | step 2 (move stove table) raised danger 0 → 1 because (holding soup) and (child-in-room) held |"));
}
