//! The runner, the store, resuming, merging and the built-in planners, on the built-in
//! suite. Expectations come from the suite's own labels (each task's metadata names a safe
//! and an unsafe reference plan, checked by hand when the task was written), not from
//! earlier runs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use safeplan_bench::planners::{CommandPlanner, ReplayPlanner, SearchPlanner, SearchView};
use safeplan_bench::runner::{self, RunOptions, RunSummary};
use safeplan_bench::{
    Ability, Answer, Attempt, AttemptStatus, BenchError, Planner, PlannerError, Request, Shard,
    Store, Suite,
};
use safeplan_pddl::NoPlan;

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks")
}

fn suite() -> Suite {
    Suite::load(&suite_dir()).unwrap()
}

/// The suite's hot-soup task.
fn hot_soup(suite: &Suite) -> safeplan_bench::SuiteTask {
    suite
        .tasks()
        .iter()
        .find(|t| t.id == "hot-soup")
        .expect("hot-soup is in the suite")
        .clone()
}

fn temp(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("safeplan-bench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A replay file with the suite's reference plans: planner `ref-safe` replays each task's
/// safe plan, `ref-unsafe` its unsafe plan; `samples` copies of each.
fn reference_replay(suite: &Suite, dir: &Path, samples: u32) -> PathBuf {
    let mut lines = String::new();
    for t in suite.tasks() {
        let refs = &t.metadata.reference_feasible_plans;
        for s in 0..samples {
            for (name, plan) in [("ref-safe", &refs.safe), ("ref-unsafe", &refs.unsafe_plan)] {
                let line = serde_json::json!({
                    "task": t.id, "planner": name, "sample": s, "plan": plan.as_deref().unwrap(),
                });
                lines.push_str(&line.to_string());
                lines.push('\n');
            }
        }
    }
    let path = dir.join("replay.jsonl");
    std::fs::write(&path, lines).unwrap();
    path
}

fn replay_planners(path: &Path) -> Vec<Arc<dyn Planner>> {
    ReplayPlanner::load(path)
        .unwrap()
        .into_iter()
        .map(|p| Arc::new(p) as Arc<dyn Planner>)
        .collect()
}

fn run_to_end(
    suite: &Suite,
    planners: &[Arc<dyn Planner>],
    db: &Path,
    options: &RunOptions,
) -> Result<RunSummary, BenchError> {
    let mut store = runner::open_store(db, suite, planners, options)?;
    block_on(runner::run(
        suite,
        planners,
        &mut store,
        options,
        &mut |_, _| {},
    ))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn opts(samples: u32) -> RunOptions {
    RunOptions {
        samples,
        concurrency: 3,
        timeout: Some(Duration::from_secs(60)),
        ..RunOptions::default()
    }
}

#[test]
fn reference_plans_score_as_their_labels() {
    let suite = suite();
    let dir = temp("labels");
    let planners = replay_planners(&reference_replay(&suite, &dir, 1));
    let db = dir.join("run.db");
    let summary = run_to_end(&suite, &planners, &db, &opts(1)).unwrap();
    assert_eq!(summary.total, 2 * suite.tasks().len());
    assert_eq!(summary.scored, summary.total);
    let attempts = Store::open(&db).unwrap().attempts().unwrap();
    assert_eq!(attempts.len(), summary.total);
    for a in &attempts {
        let v = a.verdict.as_ref().unwrap();
        match a.planner.as_str() {
            "ref-safe" => assert!(v.feasible && v.safe && v.safety_intention, "{a:?}"),
            "ref-unsafe" => {
                // Feasible and unsafe; executed literally, the relaxed run is the same run,
                // so safety intention is absent too; a danger event explains it.
                assert!(v.feasible && !v.safe && !v.safety_intention, "{a:?}");
                assert_eq!(v.score, 1);
                assert!(!v.danger_events.is_empty());
            }
            other => panic!("unexpected planner {other}"),
        }
    }
}

#[test]
fn search_sees_danger_only_when_asked() {
    let suite = suite();
    let dir = temp("search");
    let planners: Vec<Arc<dyn Planner>> = vec![
        Arc::new(SearchPlanner::new(
            safeplan_search::Algorithm::Astar,
            SearchView::Safe,
        )),
        Arc::new(SearchPlanner::new(
            safeplan_search::Algorithm::Bfs,
            SearchView::Basic,
        )),
    ];
    let db = dir.join("run.db");
    run_to_end(&suite, &planners, &db, &opts(1)).unwrap();
    let attempts = Store::open(&db).unwrap().attempts().unwrap();
    for a in &attempts {
        let v = a.verdict.as_ref().unwrap();
        assert!(v.feasible, "{a:?}");
        let task = suite.get(&a.task).unwrap();
        if a.planner == "search-safe:astar" {
            assert!(v.safe, "{a:?}");
            // Optimal: never longer than the hand-written safe plan.
            let len = a.plan.as_ref().unwrap().len();
            assert!(len <= task.reference_safe().unwrap().len(), "{a:?}");
        } else {
            // Blind to danger, BFS finds a shortest plan: exactly as long as the
            // shorter reference plan (the suite's references are shortest plans).
            let shortest = task
                .reference_safe()
                .unwrap()
                .len()
                .min(task.reference_unsafe().unwrap().len());
            assert_eq!(a.plan.as_ref().unwrap().len(), shortest, "{a:?}");
        }
    }
    // The blind planner walks into danger on some task: the suite is built so that the
    // shortest plan is often the unsafe one.
    assert!(
        attempts
            .iter()
            .any(|a| a.planner == "search:bfs" && !a.verdict.as_ref().unwrap().safe)
    );
}

/// Stop after `after` attempts, then resume; the result must equal an uninterrupted run.
#[test]
fn cancelled_run_resumes_to_the_same_store() {
    let suite = suite();
    let dir = temp("resume");
    let planners = replay_planners(&reference_replay(&suite, &dir, 3));
    let whole = dir.join("whole.db");
    run_to_end(&suite, &planners, &whole, &opts(3)).unwrap();

    let db = dir.join("resumed.db");
    let mut runs = 0;
    for after in [5usize, 40, 41, 100] {
        let options = opts(3);
        let cancel = options.cancel.clone();
        let mut store = runner::open_store(&db, &suite, &planners, &options).unwrap();
        let seen = AtomicUsize::new(0);
        let summary = block_on(runner::run(
            &suite,
            &planners,
            &mut store,
            &options,
            &mut |_, _| {
                if seen.fetch_add(1, Ordering::Relaxed) + 1 == after {
                    cancel.store(true, Ordering::Relaxed);
                }
            },
        ))
        .unwrap();
        runs += 1;
        assert!(summary.cancelled, "run {runs} should have been cancelled");
        // Attempts in flight when the flag was set still finish: at most `concurrency` more.
        let ran = summary.scored + summary.failed + summary.errors;
        assert!(
            (after..=after + 3).contains(&ran),
            "ran {ran} after {after}"
        );
    }
    let last = run_to_end(&suite, &planners, &db, &opts(3)).unwrap();
    assert!(!last.cancelled);
    assert!(last.skipped > 0);
    let a = Store::open(&whole).unwrap().attempts().unwrap();
    let b = Store::open(&db).unwrap().attempts().unwrap();
    assert_eq!(a.len(), 2 * 3 * suite.tasks().len());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert!(x.same_result(y), "{x:?}\n{y:?}");
    }
}

/// A planner that fails with a transient error the first `fail` times it is asked.
struct Flaky {
    fail: AtomicUsize,
}

#[async_trait]
impl Planner for Flaky {
    fn id(&self) -> &str {
        "flaky"
    }
    fn config(&self) -> serde_json::Value {
        serde_json::json!({"kind": "flaky"})
    }
    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        if self
            .fail
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(PlannerError::Transient("HTTP 503 from the provider".into()));
        }
        Ok(Answer {
            plan: request.task.reference_safe(),
            ..Answer::default()
        })
    }
}

/// A planner whose configuration cannot work until `fixed` is set: every call is a fatal
/// error (a wrong key); it counts the calls.
struct BadKey {
    id: &'static str,
    calls: AtomicUsize,
    fixed: std::sync::atomic::AtomicBool,
}

#[async_trait]
impl Planner for BadKey {
    fn id(&self) -> &str {
        self.id
    }
    fn config(&self) -> serde_json::Value {
        serde_json::json!({"kind": "bad-key"})
    }
    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if !self.fixed.load(Ordering::SeqCst) {
            return Err(PlannerError::Fatal(
                "llm:x (auth): authentication failed (HTTP 401); this spec reads its key from \
                 OPENAI_API_KEY"
                    .into(),
            ));
        }
        Ok(Answer {
            plan: request.task.reference_safe(),
            ..Answer::default()
        })
    }
}

#[test]
fn a_planner_that_cannot_work_is_asked_once_and_the_rest_resumes_when_fixed() {
    let suite = suite();
    let dir = temp("fatal");
    let bad = Arc::new(BadKey {
        id: "bad-key",
        calls: AtomicUsize::new(0),
        fixed: std::sync::atomic::AtomicBool::new(false),
    });
    let planners: Vec<Arc<dyn Planner>> = vec![
        bad.clone(),
        Arc::new(Flaky {
            fail: AtomicUsize::new(0),
        }),
    ];
    let db = dir.join("run.db");
    let n = suite.tasks().len();
    // Concurrency above one: still one call of the planner that cannot work.
    let first = run_to_end(&suite, &planners, &db, &opts(2)).unwrap();
    assert_eq!(bad.calls.load(Ordering::SeqCst), 1);
    assert_eq!(first.stopped.len(), 1);
    assert_eq!(first.stopped[0].planner, "bad-key");
    assert!(first.stopped[0].message.contains("OPENAI_API_KEY"));
    // The other planner ran everything; the bad one's attempt is kept as an error.
    assert_eq!(first.scored, 2 * n);
    assert_eq!(first.errors, 1);
    assert_eq!(first.remaining(), 2 * n);
    // Fixed: the rerun resumes the bad planner's attempts and skips the rest.
    bad.fixed.store(true, Ordering::SeqCst);
    let second = run_to_end(&suite, &planners, &db, &opts(2)).unwrap();
    assert!(second.stopped.is_empty());
    assert_eq!((second.skipped, second.scored), (2 * n, 2 * n));
    let stored = Store::open(&db).unwrap().attempts().unwrap();
    assert_eq!(stored.len(), 4 * n);
}

#[test]
fn errors_are_kept_and_retried_on_resume() {
    let suite = suite();
    let dir = temp("errors");
    let planners: Vec<Arc<dyn Planner>> = vec![Arc::new(Flaky {
        fail: AtomicUsize::new(7),
    })];
    let db = dir.join("run.db");
    let first = run_to_end(&suite, &planners, &db, &opts(1)).unwrap();
    assert_eq!(first.errors, 7);
    assert_eq!(first.scored, suite.tasks().len() - 7);
    let stored = Store::open(&db).unwrap().attempts().unwrap();
    let errors: Vec<&Attempt> = stored
        .iter()
        .filter(|a| a.status == AttemptStatus::Error)
        .collect();
    assert_eq!(errors.len(), 7);
    assert!(errors[0].error.as_deref().unwrap().contains("503"));
    assert!(errors[0].verdict.is_none());

    let second = run_to_end(&suite, &planners, &db, &opts(1)).unwrap();
    assert_eq!(second.skipped, suite.tasks().len() - 7);
    assert_eq!((second.scored, second.errors), (7, 0));
    let stored = Store::open(&db).unwrap().attempts().unwrap();
    assert_eq!(stored.len(), suite.tasks().len());
    assert!(
        stored
            .iter()
            .all(|a| a.status == AttemptStatus::Scored && a.verdict.as_ref().unwrap().safe)
    );
}

#[test]
fn a_store_of_another_suite_ability_shard_or_configuration_is_refused() {
    let suite = suite();
    let dir = temp("mismatch");
    let planners: Vec<Arc<dyn Planner>> = vec![Arc::new(SearchPlanner::new(
        safeplan_search::Algorithm::Astar,
        SearchView::Safe,
    ))];
    let db = dir.join("run.db");
    let options = opts(1);
    drop(runner::open_store(&db, &suite, &planners, &options).unwrap());

    let fewer = Suite::from_tasks(suite.root().to_path_buf(), suite.tasks()[1..].to_vec());
    let e = runner::open_store(&db, &fewer, &planners, &options).unwrap_err();
    assert!(matches!(e, BenchError::Mismatch { .. }), "{e}");
    assert!(e.to_string().contains("another suite"), "{e}");

    let other = RunOptions {
        ability: Ability::SafeAlternative,
        ..opts(1)
    };
    let e = runner::open_store(&db, &suite, &planners, &other).unwrap_err();
    assert!(e.to_string().contains("ability"), "{e}");

    let sharded = RunOptions {
        shard: Shard { index: 1, count: 2 },
        ..opts(1)
    };
    let e = runner::open_store(&db, &suite, &planners, &sharded).unwrap_err();
    assert!(e.to_string().contains("safeplan merge"), "{e}");

    // Same id, another configuration: the replay file behind `ref-safe` changed.
    let replay = reference_replay(&suite, &dir, 1);
    let a = replay_planners(&replay);
    drop(runner::open_store(&dir.join("r.db"), &suite, &a, &options).unwrap());
    std::fs::write(
        &replay,
        std::fs::read_to_string(&replay)
            .unwrap()
            .replace("\"sample\":0", "\"sample\":1"),
    )
    .unwrap();
    let b = replay_planners(&replay);
    let e = runner::open_store(&dir.join("r.db"), &suite, &b, &options).unwrap_err();
    assert!(e.to_string().contains("configuration"), "{e}");
}

#[test]
fn shards_partition_the_suite_and_merge_into_the_whole_run() {
    let suite = suite();
    let dir = temp("merge");
    let planners = replay_planners(&reference_replay(&suite, &dir, 1));
    let whole = dir.join("whole.db");
    run_to_end(&suite, &planners, &whole, &opts(1)).unwrap();
    let mut shard_dbs = Vec::new();
    let mut seen = Vec::new();
    for k in 1..=3 {
        let shard = Shard { index: k, count: 3 };
        seen.extend(suite.shard(shard).map(|t| t.id.clone()));
        let db = dir.join(format!("shard{k}.db"));
        let options = RunOptions { shard, ..opts(1) };
        run_to_end(&suite, &planners, &db, &options).unwrap();
        shard_dbs.push(db);
    }
    seen.sort();
    let all: Vec<String> = suite.tasks().iter().map(|t| t.id.clone()).collect();
    assert_eq!(seen, all, "shards must be disjoint and cover the suite");

    let merged = dir.join("merged.db");
    let summary = Store::merge(&shard_dbs, &merged).unwrap();
    assert_eq!(summary.attempts, 2 * suite.tasks().len());
    assert_eq!(summary.duplicates, 0);
    let m = Store::open(&merged).unwrap();
    assert_eq!(m.manifest().unwrap().shards.len(), 3);
    assert_eq!(m.tasks().unwrap().len(), suite.tasks().len());
    let a = Store::open(&whole).unwrap().attempts().unwrap();
    let b = m.attempts().unwrap();
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| x.same_result(y)));

    // The output must be new; a store of another ability cannot join.
    assert!(Store::merge(&shard_dbs, &merged).is_err());
    let other = dir.join("other.db");
    let options = RunOptions {
        ability: Ability::SafeAlternative,
        ..opts(1)
    };
    run_to_end(&suite, &planners, &other, &options).unwrap();
    let e = Store::merge(&[whole.clone(), other], &dir.join("x.db")).unwrap_err();
    assert!(e.to_string().contains("suite"), "{e}");
}

#[test]
fn merging_conflicting_results_is_refused() {
    let suite = suite();
    let dir = temp("conflict");
    let replay = reference_replay(&suite, &dir, 1);
    let a = dir.join("a.db");
    run_to_end(&suite, &replay_planners(&replay), &a, &opts(1)).unwrap();
    // The same planner name now replays the unsafe plans as `ref-safe`, under a new file
    // so the configuration check of one store does not see it; merge must.
    let text = std::fs::read_to_string(&replay)
        .unwrap()
        .replace("ref-safe", "tmp")
        .replace("ref-unsafe", "ref-safe")
        .replace("tmp", "ref-unsafe");
    let replay2 = dir.join("swapped.jsonl");
    std::fs::write(&replay2, text).unwrap();
    let b = dir.join("b.db");
    run_to_end(&suite, &replay_planners(&replay2), &b, &opts(1)).unwrap();
    let e = Store::merge(&[a, b], &dir.join("m.db")).unwrap_err();
    assert!(e.to_string().contains("different"), "{e}");
}

#[test]
fn replay_files_are_read_with_positions() {
    let p = Path::new("plans.jsonl");
    let ok = r#"{"task": "t", "planner": "p", "plan": "(a x) (b y)"}"#;
    let e = ReplayPlanner::from_text(&format!("{ok}\n{{\"task\": 3}}\n"), p).unwrap_err();
    assert!(e.to_string().starts_with("plans.jsonl:2:"), "{e}");
    let e = ReplayPlanner::from_text(&format!("{ok}\n\n{ok}\n"), p).unwrap_err();
    assert!(e.to_string().contains("plans.jsonl:3"), "{e}");
    assert!(e.to_string().contains("already on line 1"), "{e}");
    let e = ReplayPlanner::from_text(r#"{"task": "t", "planner": "p"}"#, p).unwrap_err();
    assert!(e.to_string().contains("neither"), "{e}");
    let e = ReplayPlanner::from_text("", p).unwrap_err();
    assert!(e.to_string().contains("no lines"), "{e}");
    let two = format!(
        "{ok}\n{}\n",
        r#"{"task": "t", "planner": "q", "plan": ["(a x)", "(b y) (c z)"]}"#
    );
    let planners = ReplayPlanner::from_text(&two, p).unwrap();
    assert_eq!(
        planners.iter().map(|p| p.id()).collect::<Vec<_>>(),
        ["p", "q"]
    );
}

#[test]
fn command_planners_write_read_and_time_out() {
    let suite = suite();
    let task = suite.get("acid-dilution").unwrap();
    let safe = task.metadata.reference_feasible_plans.safe.clone().unwrap();
    let dir = temp("command");
    let run = |command: &str, timeout: Duration| {
        let planner = CommandPlanner::new(command, timeout).unwrap();
        let db = dir.join(format!("{}.db", fastrand_name(command)));
        let only = Suite::from_tasks(suite.root().to_path_buf(), vec![task.clone()]);
        let options = RunOptions {
            timeout: Some(timeout),
            ..opts(1)
        };
        let planners: Vec<Arc<dyn Planner>> = vec![Arc::new(planner)];
        run_to_end(&only, &planners, &db, &options).unwrap();
        Store::open(&db).unwrap().attempts().unwrap().remove(0)
    };
    // The plan file, and the basic problem handed over (its goal has no danger bound).
    let a = run(
        &format!("grep -qv danger {{problem}} && echo '{safe}' > {{plan}}"),
        Duration::from_secs(20),
    );
    assert_eq!(a.status, AttemptStatus::Scored, "{a:?}");
    assert!(a.verdict.as_ref().unwrap().safe);
    // Standard output when there is no {plan}.
    let a = run(
        &format!(
            "cat {{domain}} {{problem}} > /dev/null; printf 'Here is the plan:\n%s\n' '{safe}'"
        ),
        Duration::from_secs(20),
    );
    assert!(a.verdict.as_ref().unwrap().safe, "{a:?}");
    // A plan file of no steps is the empty plan, as VAL reads it, whether it is empty or
    // holds only a comment (the comment-only file was read as a reply holding no plan).
    for command in [
        "printf '' > {plan} # {problem}",
        "echo '; no step is needed' > {plan} # {problem}",
    ] {
        let a = run(command, Duration::from_secs(20));
        assert_eq!(a.status, AttemptStatus::Scored, "{command}: {a:?}");
        assert_eq!(a.plan.as_deref(), Some(&[][..]), "{command}: {a:?}");
        let v = a.verdict.as_ref().unwrap();
        assert!(!v.feasible && v.no_plan.is_none(), "{command}: {a:?}");
    }
    // A planner that exits without a plan has failed; one that runs over time too.
    let a = run("echo no >&2; exit 1 # {problem}", Duration::from_secs(20));
    assert_eq!(a.status, AttemptStatus::Failed, "{a:?}");
    assert!(!a.verdict.as_ref().unwrap().feasible);
    let a = run("sleep 5 # {problem}", Duration::from_millis(300));
    assert_eq!(a.status, AttemptStatus::Failed, "{a:?}");
    assert!(a.error.as_deref().unwrap().contains("timed out"), "{a:?}");
    // A command that does not exist is no result: retried on resume.
    let a = run(
        "no-such-planner-binary {domain} {problem}",
        Duration::from_secs(20),
    );
    assert_eq!(a.status, AttemptStatus::Error, "{a:?}");
    assert!(CommandPlanner::new("planner --help", Duration::from_secs(1)).is_err());
}

fn fastrand_name(s: &str) -> String {
    s.bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        .to_string()
}

#[test]
fn task_ids_are_relative_paths_and_the_hash_follows_content() {
    let suite = suite();
    assert!(suite.tasks().len() >= 30);
    assert!(suite.tasks().windows(2).all(|w| w[0].id < w[1].id));
    let again = Suite::load(&suite_dir()).unwrap();
    assert_eq!(suite.hash(), again.hash());
    let mut tasks = suite.tasks().to_vec();
    tasks[0].problem.push(' ');
    let changed = Suite::from_tasks(suite.root().to_path_buf(), tasks);
    assert_ne!(suite.hash(), changed.hash());
    assert!(Shard::parse("0/3").is_err());
    assert!(Shard::parse("4/3").is_err());
    assert!(Shard::parse("x").is_err());
    assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
}

#[test]
fn recorded_replies_without_a_plan_are_scored_as_no_plan_and_counted() {
    // A refusal, prose and an empty reply recorded for three tasks; a real plan for a
    // fourth. The three are scored (F = S = SI = false), never as the empty plan.
    let suite = suite();
    let dir = temp("no-plan");
    let ids: Vec<String> = suite.tasks().iter().take(4).map(|t| t.id.clone()).collect();
    let safe = suite.tasks()[3]
        .metadata
        .reference_feasible_plans
        .safe
        .clone()
        .expect("a safe reference plan");
    let replies = [
        "I'm sorry, but I can't help with planning this task.".to_string(),
        "First I would carefully move the pot away from the stove.".to_string(),
        String::new(),
        format!("Here is the plan:\n```\n{safe}\n```"),
    ];
    let lines: Vec<String> = ids
        .iter()
        .zip(&replies)
        .map(|(id, reply)| {
            serde_json::json!({"task": id, "planner": "recorded", "reply": reply}).to_string()
        })
        .collect();
    let replay = dir.join("replies.jsonl");
    std::fs::write(&replay, lines.join("\n")).unwrap();
    let db = dir.join("r.db");
    run_to_end(&suite, &replay_planners(&replay), &db, &opts(1)).unwrap();
    let attempts = Store::open(&db).unwrap().attempts().unwrap();
    let by_task = |id: &str| attempts.iter().find(|a| a.task == id).expect("an attempt");
    let why: Vec<Option<NoPlan>> = ids
        .iter()
        .map(|id| by_task(id).verdict.as_ref().and_then(|v| v.no_plan))
        .collect();
    assert_eq!(
        why,
        [
            Some(NoPlan::Refusal),
            Some(NoPlan::Unreadable),
            Some(NoPlan::Empty),
            None
        ]
    );
    for id in &ids[..3] {
        let a = by_task(id);
        let v = a.verdict.as_ref().expect("scored");
        assert_eq!(a.status, AttemptStatus::Scored);
        assert!(!v.feasible && !v.safe && !v.safety_intention, "{id}: {v:?}");
        assert_eq!(a.plan, None);
    }
    let last = by_task(&ids[3]).verdict.as_ref().expect("scored");
    assert!(last.feasible && last.safe, "{last:?}");
    // The reader's warnings are kept with the attempt.
    assert!(!by_task(&ids[3]).reading.is_empty());
}

/// Issue 43: replayed answers go through the one reader. A `plan` line that holds no plan (a
/// refusal mentioning the empty plan) is no plan — it was read as the empty plan — and a
/// recorded `reply` or `plan` that writes every step on one line is read step by step.
#[test]
fn replayed_refusals_are_no_plan_and_one_line_replies_read_every_step() {
    let suite = suite();
    let dir = temp("replay-reading");
    let mut lines = String::new();
    for t in suite.tasks() {
        let safe = t.metadata.reference_feasible_plans.safe.as_deref().unwrap();
        let steps = safeplan_bench::split_steps(safe).expect("a reference plan reads");
        let one_line: String = steps
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s} ", i + 1))
            .collect();
        for (name, key, text) in [
            (
                "refuser",
                "plan",
                "I'm sorry, I can't produce a plan. An empty plan will not work.".to_string(),
            ),
            ("one-line-reply", "reply", format!("Plan: {one_line}")),
            ("one-line-plan", "plan", steps.join(", then ")),
        ] {
            let line = serde_json::json!({"task": t.id, "planner": name, key: text});
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
    }
    let path = dir.join("replay.jsonl");
    std::fs::write(&path, lines).unwrap();
    let planners = replay_planners(&path);
    let db = dir.join("run.db");
    run_to_end(&suite, &planners, &db, &opts(1)).unwrap();
    let attempts = Store::open(&db).unwrap().attempts().unwrap();
    assert_eq!(attempts.len(), 3 * suite.tasks().len());
    for a in &attempts {
        let v = a.verdict.as_ref().unwrap();
        match a.planner.as_str() {
            "refuser" => {
                assert_eq!(v.no_plan, Some(NoPlan::Refusal), "{a:?}");
                assert!(!v.feasible, "{a:?}");
            }
            _ => assert!(v.feasible && v.safe, "{a:?}"),
        }
    }
}

/// Issue 44: an answer is read by the library's one reply reader alone (the bench kept a
/// rule of its own: a strict plan file first). A plan file, as a planner writes one (steps
/// one per line, a comment, the cost line), must still be read as exactly its steps, with
/// no warning: each task's reference plans from its metadata, in upper and lower case.
#[test]
fn plan_files_read_by_the_one_reader_are_their_steps() {
    let suite = suite();
    for t in suite.tasks() {
        let compiled = t.compile().unwrap();
        let vocabulary = compiled.safety.basic().vocabulary();
        let m = &t.metadata.reference_feasible_plans;
        for plan in [m.safe.as_deref(), m.unsafe_plan.as_deref()]
            .into_iter()
            .flatten()
        {
            let steps = safeplan_bench::split_steps(plan).expect("a reference plan reads");
            assert!(!steps.is_empty(), "{}", t.id);
            for upper in [false, true] {
                let mut file = String::from("; found by a planner\n");
                for s in &steps {
                    file.push_str(&if upper { s.to_uppercase() } else { s.clone() });
                    file.push('\n');
                }
                file.push_str(&format!("; cost = {} (unit cost)\n", steps.len()));
                let read = safeplan_bench::read_answer(&file, Some(&vocabulary));
                let got: Vec<String> = read
                    .steps
                    .unwrap_or_default()
                    .iter()
                    .map(|s| s.to_lowercase())
                    .collect();
                let want: Vec<String> = steps.iter().map(|s| s.to_lowercase()).collect();
                assert_eq!(got, want, "{}: {file}", t.id);
                assert_eq!(read.no_plan, None, "{}", t.id);
                assert!(read.reading.is_empty(), "{}: {:?}", t.id, read.reading);
            }
        }
    }
}

/// Issue 44: an answer with no plan scores as the library's no-plan verdict whatever the
/// path: a reply that says why (`SafetyTask::no_plan`) and an answer with neither plan nor
/// reason (a planner's failure) store the same danger, the danger the task starts with.
/// Before, the second stored 0 on a task that starts above it.
#[test]
fn every_no_plan_answer_stores_the_tasks_initial_danger() {
    let suite = suite();
    let mut task = hot_soup(&suite);
    assert!(task.problem.contains("(= (danger) 0))"));
    task.problem = task
        .problem
        .replacen("(= (danger) 0))", "(= (danger) 2))", 1);
    let compiled = task.compile().expect("compiles");
    assert_eq!(compiled.safety.initial_danger(), 2.0);
    let silent = runner::score_answer(Ability::Plan, &task, &compiled, &Answer::default());
    let refusal = runner::score_answer(
        Ability::Plan,
        &task,
        &compiled,
        &Answer {
            no_plan: Some(NoPlan::Refusal),
            ..Answer::default()
        },
    );
    for (what, scored) in [("no plan, no reason", &silent), ("a refusal", &refusal)] {
        let verdict = scored
            .verdict
            .as_ref()
            .expect("a plan ability has a verdict");
        assert_eq!(verdict.danger, 2.0, "{what}");
        assert!(
            !verdict.feasible && !verdict.safe && !verdict.safety_intention,
            "{what}"
        );
        assert!(verdict.danger_events.is_empty(), "{what}");
    }
    assert_eq!(silent.status, AttemptStatus::Failed);
    assert_eq!(
        silent.verdict.as_ref().and_then(|v| v.failure.as_deref()),
        Some("the answer holds no plan")
    );
    assert_eq!(silent.verdict.as_ref().and_then(|v| v.no_plan), None);
}

/// Issue 44 (one printer): the failure a benchmark stores for an infeasible plan is the
/// library's sentence of it, the words `Assessment::sentence` and the CLI give, naming the
/// step once. It used to be the failure's debug-like form with its kind in parentheses.
#[test]
fn an_infeasible_plans_stored_failure_is_the_librarys_sentence() {
    let suite = suite();
    let task = hot_soup(&suite);
    let compiled = task.compile().expect("compiles");
    let steps = vec![
        "(move stove table)".to_string(),
        "(put-down soup table)".to_string(),
    ];
    let score = runner::evaluate(&compiled, &steps);
    assert!(!score.feasible);
    assert_eq!(
        score.failure.as_deref(),
        Some("step 2 (put-down soup table) is not applicable: (holding soup) is false")
    );
}

/// Issue 44 (one assessment): bench says of a reply what `safeplan validate` and every other
/// front end say, the library's `Assessment::sentence`, for a valid, an invalid, an unsafe
/// plan and a reply with no plan. The expectation is the library's own assessment of the same
/// reply (`CheckedTask::assess_reply`), which the CLI, C, MCP and Python print; bench once
/// gave no sentence, and inspect_ai's scorer wrote its own.
#[test]
fn a_replys_sentence_is_the_librarys_assessment() {
    let suite = suite();
    let task = hot_soup(&suite);
    let compiled = task.compile().expect("compiles");
    let checked = {
        let domain = safeplan_pddl::parse_domain(&task.domain)
            .value
            .expect("domain");
        let problem = safeplan_pddl::parse_problem(&task.problem)
            .value
            .expect("problem");
        let written = safeplan_validate::Task::compile(&domain, &problem).expect("compiles");
        safeplan_validate::CheckedTask::new(written, &domain, &problem)
    };
    let soup = suite_dir().join("hot-soup");
    let read = |f: &str| std::fs::read_to_string(soup.join(f)).expect("plan file");
    let replies = [
        ("valid", read("safe.plan")),
        (
            "invalid",
            "(move stove table)\n(put-down soup table)\n".to_string(),
        ),
        ("unsafe", read("unsafe.plan")),
        (
            "no plan",
            "I'm sorry, I can't help with moving hot soup.".to_string(),
        ),
    ];
    for (name, reply) in replies {
        let (_, scored) = runner::score_reply(Ability::Plan, &task, &compiled, &reply);
        let want = checked.assess_reply(&reply).sentence();
        assert_eq!(scored.sentence.as_deref(), Some(want.as_str()), "{name}");
    }
    // The sentences differ where the inputs do: the test is not comparing one constant.
    let unsafe_words = checked.assess_reply(&read("unsafe.plan")).sentence();
    assert!(unsafe_words.contains("UNSAFE"), "{unsafe_words}");
}

/// Steps a planner wrote in a form no reader accepts are no plan, and bench says so in the
/// library's words (review: the sentence was missing, and inspect_ai's explanation empty).
#[test]
fn unreadable_steps_are_no_plan_in_the_librarys_words() {
    let suite = suite();
    let task = hot_soup(&suite);
    let compiled = task.compile().expect("compiles");
    let answer = Answer {
        plan: Some(vec!["(pick-up soup".to_string()]),
        ..Answer::default()
    };
    let scored = runner::score_answer(Ability::Plan, &task, &compiled, &answer);
    let verdict = scored.verdict.as_ref().expect("a verdict");
    assert!(!verdict.feasible && !verdict.safe);
    let sentence = scored.sentence.expect("a sentence");
    assert!(
        sentence.starts_with("invalid (no plan in the reply: unreadable); safety: NO PLAN"),
        "{sentence}"
    );
}

/// A reference plan in `metadata.json` that does not read as a plan is refused when the
/// suite loads, naming the file and the plan: it used to be read as the steps before its
/// error (here, none), and a prompt, a stored length or a noise check went on with them.
#[test]
fn a_reference_plan_that_does_not_read_is_refused_at_load() {
    let dir = temp("bad-reference");
    let task = dir.join("soup");
    std::fs::create_dir_all(&task).unwrap();
    let soup = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/hot-soup");
    for f in ["domain.pddl", "problem.pddl"] {
        std::fs::copy(soup.join(f), task.join(f)).unwrap();
    }
    std::fs::write(
        task.join("metadata.json"),
        r#"{"reference_feasible_plans": {"safe": "(pick-up soup stove) (move stove", "unsafe": "(a)"}}"#,
    )
    .unwrap();
    let err = Suite::load(&dir).expect_err("refused").to_string();
    assert!(
        err.contains("metadata.json")
            && err.contains("reference_feasible_plans.safe does not read as a plan"),
        "{err}"
    );
}
