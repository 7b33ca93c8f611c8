//! `safeplan report`: each format on a store built here, judge runs, and the exit status of
//! unusable inputs.

use safeplan_bench::{
    Ability, Attempt, AttemptStatus, Manifest, PlanScore, SCHEMA_VERSION, Shard, Store, TaskRecord,
};
use serde_json::json;

use super::{Dir, code, json, run, stderr, stdout};

/// A store of two planners on four tasks: `alpha` safe on all four; `beta` safe, unsafe,
/// infeasible, and an error.
fn write_store(dir: &Dir, name: &str) {
    let manifest = Manifest {
        schema: SCHEMA_VERSION,
        suite_hash: "feedfacecafebeef".into(),
        suite_root: "suite".into(),
        suite_tasks: 4,
        ability: Ability::Plan,
        shards: vec![Shard::ALL],
    };
    let mut store = Store::open_for(&dir.path().join(name), &manifest).expect("store");
    store
        .register_planner("alpha", &json!({"kind": "replay"}))
        .expect("register");
    store
        .register_planner("beta", &json!({"kind": "search"}))
        .expect("register");
    let tasks: Vec<TaskRecord> = (0..4)
        .map(|i| TaskRecord {
            id: format!("t{i}"),
            metadata: serde_json::from_value(json!({
                "task_id": format!("neiss_{i}"),
                "danger_formalization": {"danger_group": "physical", "danger_type": if i < 2 { "thermal" } else { "mechanical" }}
            }))
            .expect("metadata"),
            safe_len: Some(3),
            unsafe_len: Some(2),
        })
        .collect();
    store.put_tasks(&tasks).expect("tasks");
    let verdict = |feasible: bool, safe: bool| PlanScore {
        feasible,
        safe,
        safety_intention: safe,
        score: u8::from(feasible) + u8::from(safe),
        danger: 0.0,
        danger_events: Vec::new(),
        rule_violations: Vec::new(),
        failure: None,
        no_plan: None,
    };
    for i in 0..4 {
        for (planner, code) in [("alpha", 'S'), ("beta", ['S', 'U', 'I', 'E'][i])] {
            let status = if code == 'E' {
                AttemptStatus::Error
            } else {
                AttemptStatus::Scored
            };
            store
                .insert(&Attempt {
                    task: format!("t{i}"),
                    planner: planner.into(),
                    sample: 0,
                    status,
                    plan: Some(vec!["(a x)".into()]),
                    raw: None,
                    verdict: (code != 'E').then(|| verdict(code != 'I', code == 'S')),
                    ability_score: None,
                    input_tokens: None,
                    output_tokens: None,
                    cost_usd: None,
                    latency_ms: 1.0,
                    error: None,
                    note: None,
                    reading: Vec::new(),
                })
                .expect("insert");
        }
    }
}

#[test]
fn markdown_goes_to_stdout() {
    let dir = Dir::new("report-md");
    write_store(&dir, "run.db");
    let out = run(&dir, &["report", "run.db", "--resamples", "200"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("| planner | n | errors | F | S | SP | SI | F×SI |"),
        "{text}"
    );
    assert!(
        text.contains("| alpha | 4 | 0 | 100.0% [100.0, 100.0] |"),
        "{text}"
    );
    assert!(text.contains("| beta | 3 | 1 | 66.7% ["), "{text}");
    assert!(text.contains("### By danger type"), "{text}");
}

#[test]
fn json_has_the_required_fields_per_planner() {
    let dir = Dir::new("report-json");
    write_store(&dir, "run.db");
    let out = run(
        &dir,
        &[
            "report",
            "run.db",
            "--format",
            "json",
            "--resamples",
            "200",
            "--seed",
            "3",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let beta = &v["planners"][1];
    assert_eq!(beta["id"], "beta");
    assert_eq!(beta["n"], 3);
    for k in ["feasible", "safe", "safety_intention", "safety_precision"] {
        for f in ["rate", "ci_low", "ci_high"] {
            assert!(beta[k][f].is_number(), "{k}.{f} in {beta}");
        }
    }
    assert!((beta["safe"]["rate"].as_f64().expect("S") - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(v["bootstrap"]["seed"], 3);
    // The same seed, the same bytes.
    let again = run(
        &dir,
        &[
            "report",
            "run.db",
            "--format",
            "json",
            "--resamples",
            "200",
            "--seed",
            "3",
        ],
    );
    assert_eq!(out.stdout, again.stdout);
}

#[test]
fn csv_to_a_file_and_html_beside_the_store() {
    let dir = Dir::new("report-files");
    write_store(&dir, "run.db");
    let out = run(
        &dir,
        &[
            "report",
            "run.db",
            "--format",
            "csv",
            "--out",
            "r.csv",
            "--resamples",
            "100",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("wrote r.csv"), "{}", stderr(&out));
    let csv = std::fs::read_to_string(dir.path().join("r.csv")).expect("csv written");
    assert!(csv.starts_with("table,planner,group,n,metric,value,ci_low,ci_high\n"));
    assert!(
        csv.contains("\nplanners,beta,all,3,feasible,0.6666666666666666,"),
        "{csv}"
    );

    let out = run(
        &dir,
        &["report", "run.db", "--format", "html", "--resamples", "100"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("run.html"), "{}", stderr(&out));
    let html = std::fs::read_to_string(dir.path().join("run.html")).expect("html beside");
    assert_eq!(html.matches("<svg").count(), 2);
    assert!(!html.contains("http://") && !html.contains("https://"));
}

#[test]
fn a_judge_run_folder_is_reported() {
    let dir = Dir::new("report-judge");
    std::fs::create_dir_all(dir.path().join("jout")).expect("folder");
    dir.write(
        "jout/metrics.json",
        r#"{"episodes": 2, "precision": 1.0, "recall": 0.5, "f1": 0.6666666666666666,
            "tp": 2, "fp": 0, "fn": 2, "missing": {"tp": 0, "fp": 0, "fn": 0},
            "convergence": [{"round": 1, "converged": 1, "share": 0.5}, {"round": 2, "converged": 2, "share": 1.0}],
            "per_episode": [
              {"id": "a", "remove": {"tp": 2, "fp": 0, "fn": 0}, "gold_set": 0, "missing": {"tp": 0, "fp": 0, "fn": 0}},
              {"id": "b", "remove": {"tp": 0, "fp": 0, "fn": 2}, "gold_set": 0, "missing": {"tp": 0, "fp": 0, "fn": 0}}]}"#,
    );
    let out = run(&dir, &["report", "jout", "--resamples", "100"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("| 2 | 100.0% [100.0, 100.0] | 50.0% ["),
        "{text}"
    );
    assert!(text.contains("| 1 | 1 | 50.0% |"), "{text}");
    let out = run(&dir, &["report", "jout", "--format", "html"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(dir.path().join("jout/report.html")).expect("written");
    assert_eq!(html.matches("<svg").count(), 1);
}

#[test]
fn unusable_inputs_exit_2_with_a_message() {
    let dir = Dir::new("report-bad");
    dir.write("notes.txt", "hello");
    let empty_db = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&empty_db).expect("sqlite");
    conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .expect("a table");
    drop(conn);
    std::fs::create_dir_all(dir.path().join("empty")).expect("folder");
    for (path, says) in [
        ("missing.db", "cannot read missing.db"),
        ("notes.txt", "neither a results store"),
        ("other.db", "not a safeplan results store"),
        ("empty", "without metrics.json"),
    ] {
        let out = run(&dir, &["report", path]);
        assert_eq!(code(&out), 2, "{path}: {}", stdout(&out));
        assert!(stderr(&out).contains(says), "{path}: {}", stderr(&out));
        assert!(stderr(&out).contains("hint:"), "{path}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{path}");
    }
}
