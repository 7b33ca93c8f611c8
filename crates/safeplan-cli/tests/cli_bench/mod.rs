//! `safeplan bench` and `safeplan merge`: a run killed at random points resumes to exactly
//! the store of an uninterrupted run; Ctrl-C stops cleanly; bad invocations exit 2.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use safeplan_bench::{Store, Suite};

use super::{Dir, code, command, run, stderr};

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks")
}

/// Replay lines for every task: `ref-safe` and `ref-unsafe` replay the reference plans,
/// `samples` times each.
fn write_replay(dir: &Dir, samples: u32) -> PathBuf {
    let suite = Suite::load(&suite_dir()).expect("the built-in suite loads");
    let mut text = String::new();
    for t in suite.tasks() {
        let refs = &t.metadata.reference_feasible_plans;
        for s in 0..samples {
            for (name, plan) in [("ref-safe", &refs.safe), ("ref-unsafe", &refs.unsafe_plan)] {
                let plan = plan.as_deref().expect("reference plans");
                text.push_str(
                    &serde_json::json!({"task": t.id, "planner": name, "sample": s, "plan": plan})
                        .to_string(),
                );
                text.push('\n');
            }
        }
    }
    let path = dir.path().join("replay.jsonl");
    std::fs::write(&path, text).expect("write the replay file");
    path
}

fn bench_args<'a>(suite: &'a str, replay: &'a str, out: &'a str, samples: &'a str) -> Vec<String> {
    [
        "bench",
        suite,
        "--planner",
        replay,
        "--samples",
        samples,
        "--concurrency",
        "1",
        "--out",
        out,
        "--no-report",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn rows(db: &Path) -> usize {
    // The writer may hold the file; a failed read counts as no progress yet.
    Store::open(db)
        .and_then(|s| s.attempts())
        .map(|a| a.len())
        .unwrap_or(0)
}

/// Wait until the store has at least `n` rows or the process ends; true if it is still
/// running.
fn wait_for_rows(child: &mut Child, db: &Path, n: usize) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        if child.try_wait().expect("poll the child").is_some() {
            return false;
        }
        if rows(db) >= n {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("no progress in two minutes");
}

#[test]
fn a_run_killed_at_random_points_resumes_to_the_uninterrupted_store() {
    let dir = Dir::new("bench-kill");
    let replay = write_replay(&dir, 40);
    let suite = suite_dir().display().to_string();
    let spec = format!("replay:{}", replay.display());
    let total = Suite::load(&suite_dir()).expect("suite").tasks().len() * 2 * 40;

    let whole = run(&dir, &strs(&bench_args(&suite, &spec, "whole.db", "40")));
    assert_eq!(code(&whole), 0, "{}", stderr(&whole));

    // Kill points drawn from a small generator seeded by the process id, so runs differ;
    // the seed is in the failure message.
    let seed = u64::from(std::process::id());
    let mut state = seed;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        1 + (state >> 33) as usize % bound
    };
    let db = dir.path().join("resumed.db");
    let mut kills = 0;
    let mut last = 0;
    for _ in 0..5 {
        let target = last + next(total / 6);
        let mut child = command(&dir, &strs(&bench_args(&suite, &spec, "resumed.db", "40")))
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start safeplan bench");
        if wait_for_rows(&mut child, &db, target) {
            child.kill().expect("SIGKILL");
            kills += 1;
        }
        let _ = child.wait();
        let now = rows(&db);
        assert!(now >= last, "rows went from {last} to {now} (seed {seed})");
        last = now;
        if last == total {
            break;
        }
    }
    assert!(
        kills >= 2,
        "only {kills} kills landed mid-run (seed {seed})"
    );
    let end = run(&dir, &strs(&bench_args(&suite, &spec, "resumed.db", "40")));
    assert_eq!(code(&end), 0, "{}", stderr(&end));

    let a = Store::open(&dir.path().join("whole.db"))
        .expect("store")
        .attempts()
        .expect("rows");
    let b = Store::open(&db).expect("store").attempts().expect("rows");
    assert_eq!(a.len(), total);
    assert_eq!(b.len(), total, "seed {seed}");
    for (x, y) in a.iter().zip(&b) {
        assert!(x.same_result(y), "seed {seed}:\n{x:?}\n{y:?}");
    }
}

#[test]
fn ctrl_c_finishes_in_flight_attempts_and_exits_130() {
    let dir = Dir::new("bench-ctrl-c");
    let suite = suite_dir().display().to_string();
    // An external planner that takes a moment per task, so the signal lands mid-run.
    let spec = "cmd:sleep 0.1; cat {problem} > /dev/null; echo '(nothing)' > {plan}";
    let args = [
        "bench",
        &suite,
        "--planner",
        spec,
        "--concurrency",
        "2",
        "--out",
        "run.db",
        "--no-report",
    ];
    let db = dir.path().join("run.db");
    let mut child = command(&dir, &args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start safeplan bench");
    assert!(
        wait_for_rows(&mut child, &db, 4),
        "the run ended before the signal"
    );
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("run the same command again to resume"),
        "{err}"
    );
    let partial = rows(&db);
    let n = Suite::load(&suite_dir()).expect("suite").tasks().len();
    assert!((4..n).contains(&partial), "{partial} rows");
    let end = run(&dir, &args);
    assert_eq!(code(&end), 0, "{}", stderr(&end));
    assert!(
        stderr(&end).contains(&format!("({partial} already in the store)")),
        "{}",
        stderr(&end)
    );
    assert_eq!(rows(&db), n);
}

#[test]
fn bench_and_merge_refuse_bad_input_with_exit_2() {
    let dir = Dir::new("bench-bad");
    let suite = suite_dir().display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["bench", "no-such-folder"], "no-such-folder"),
        (&["bench", &suite, "--planner", "magic"], "unknown planner"),
        (
            &["bench", &suite, "--planner", "search:dfs"],
            "algorithm must be",
        ),
        (&["bench", &suite, "--ability", "juggle"], "unknown ability"),
        (
            &["bench", &suite, "--ability", "identify-dangers"],
            "does not do the `identify-dangers` ability",
        ),
        (&["bench", &suite, "--shard", "3/2"], "1 <= K <= N"),
        (
            &["bench", &suite, "--planner", "replay:missing.jsonl"],
            "missing.jsonl",
        ),
        (&["merge", "nope.db", "--out", "m.db"], "nope.db"),
    ];
    for (args, needle) in cases {
        let out = run(&dir, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    // A store of one ability is not resumed by a run of another.
    let first = run(
        &dir,
        &[
            "bench",
            &suite,
            "--planner",
            "search-safe",
            "--out",
            "a.db",
            "--no-report",
        ],
    );
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let other = run(
        &dir,
        &[
            "bench",
            &suite,
            "--planner",
            "search-safe",
            "--out",
            "a.db",
            "--ability",
            "safe-alternative",
        ],
    );
    assert_eq!(code(&other), 2);
    assert!(stderr(&other).contains("ability"), "{}", stderr(&other));
}

#[test]
fn shards_run_apart_merge_into_one_store() {
    let dir = Dir::new("bench-shards");
    let suite = suite_dir().display().to_string();
    for k in ["1/2", "2/2"] {
        let out = run(
            &dir,
            &[
                "bench",
                &suite,
                "--planner",
                "search:astar",
                "--shard",
                k,
                "--out",
                &format!("s{}.db", &k[..1]),
                "--no-report",
            ],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let out = run(&dir, &["merge", "s1.db", "s2.db", "--out", "all.db"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let n = Suite::load(&suite_dir()).expect("suite").tasks().len();
    assert!(
        stderr(&out).contains(&format!("{n} attempts from 2 stores")),
        "{}",
        stderr(&out)
    );
    let again = run(&dir, &["merge", "s1.db", "s2.db", "--out", "all.db"]);
    assert_eq!(code(&again), 2);
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// On the tasks whose safety rules are constraints (`examples/rules`), the planner that is
/// not told the rules (`search:astar`, the basic task) breaks two of the three (knife and
/// stove, worked out by hand in examples/rules/*/metadata.json), the one told them
/// (`search-safe:astar`) none; the store keeps each broken rule and the report says it in
/// `why` (it used to be empty: unsafe, with no reason).
#[test]
fn bench_reports_say_which_rule_an_unsafe_plan_broke() {
    let dir = Dir::new("bench-rules");
    let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/rules");
    let out = run(
        &dir,
        &[
            "bench",
            suite.to_str().expect("utf-8"),
            "--planner",
            "search:astar",
            "--planner",
            "search-safe:astar",
            "--out",
            "rules.db",
            "--no-report",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let attempts = Store::open(&dir.path().join("rules.db"))
        .and_then(|s| s.attempts())
        .expect("the store reads back");
    let broke: Vec<(String, String, Vec<String>)> = attempts
        .iter()
        .filter_map(|a| {
            let v = a.verdict.as_ref()?;
            (!v.rule_violations.is_empty()).then(|| {
                (
                    a.task.clone(),
                    a.planner.clone(),
                    v.rule_violations
                        .iter()
                        .map(|r| r.operator.as_str().to_string())
                        .collect(),
                )
            })
        })
        .collect();
    assert_eq!(
        broke,
        [
            (
                "knife-near-child".to_string(),
                "search:astar".to_string(),
                vec!["always".to_string()]
            ),
            (
                "stove-before-leaving".to_string(),
                "search:astar".to_string(),
                vec!["sometime-before".to_string()]
            ),
        ]
    );
    let report = run(
        &dir,
        &[
            "report",
            "rules.db",
            "--format",
            "json",
            "--resamples",
            "50",
        ],
    );
    assert_eq!(code(&report), 0, "{}", stderr(&report));
    let v: serde_json::Value = serde_json::from_slice(&report.stdout).expect("json");
    let why: Vec<&str> = v["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .filter(|a| a["outcome"] == "unsafe")
        .flat_map(|a| a["why"].as_array().into_iter().flatten())
        .filter_map(|w| w.as_str())
        .collect();
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(why.iter().all(|w| w.contains("broke the rule")), "{why:?}");
}
