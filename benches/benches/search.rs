//! The planner on the six DESPITE demo tasks: reference safe and unsafe plans (the shortest
//! of each) and the safety effort between them.
//!
//! Run with `cargo bench -p safeplan-benches --bench search`. `pair` grounds a compiled
//! safety task and runs both searches (A* with h_max, or BFS); `pair_from_text` adds parsing
//! and compiling, so it is the whole cost of "reference plans for this task" from its files.
//! The goal is every task's pair in under 10 ms.

#![allow(missing_docs, clippy::print_stderr)]

use std::sync::LazyLock;

use divan::Bencher;
use safeplan_pddl::{parse_domain, parse_problem};
use safeplan_search::{Algorithm, GroundOptions, SafetyPlanner, SearchOptions};
use safeplan_validate::{SafetyOptions, SafetyTask};

use safeplan_benches::DEMO_TASKS as TASKS;

/// (domain text, problem text, compiled task) per demo task.
static DEMOS: LazyLock<Vec<(String, String, SafetyTask)>> = LazyLock::new(|| {
    let dir = match safeplan_benches::data_dir() {
        Ok(d) => d.join("despite-demo"),
        Err(e) => {
            eprintln!("skipping the search bench: {e}");
            return Vec::new();
        }
    };
    TASKS
        .iter()
        .filter_map(|t| {
            let d = safeplan_benches::read_text(&dir.join(t).join("safe_domain.pddl")).ok()?;
            let p = safeplan_benches::read_text(&dir.join(t).join("safe_problem.pddl")).ok()?;
            let task = SafetyTask::new(
                &parse_domain(&d).value?,
                &parse_problem(&p).value?,
                &SafetyOptions::default(),
            )
            .ok()??;
            Some((d, p, task))
        })
        .collect()
});

fn main() {
    divan::main();
}

fn pair_with(task: &SafetyTask, algorithm: Algorithm) -> Option<i64> {
    let planner = SafetyPlanner::new(task, &GroundOptions::default()).ok()?;
    planner
        .effort(&SearchOptions {
            algorithm,
            ..SearchOptions::default()
        })
        .effort
}

/// Ground + shortest safe plan + shortest unsafe plan, A* with h_max.
#[divan::bench(args = TASKS, sample_count = 200)]
fn pair(bencher: Bencher, name: &str) {
    let Some(i) = TASKS.iter().position(|t| *t == name) else {
        return;
    };
    let Some((_, _, task)) = DEMOS.get(i) else {
        return;
    };
    bencher.bench(|| pair_with(task, Algorithm::Astar));
}

/// The same with breadth-first search.
#[divan::bench(args = TASKS, sample_count = 200)]
fn pair_bfs(bencher: Bencher, name: &str) {
    let Some(i) = TASKS.iter().position(|t| *t == name) else {
        return;
    };
    let Some((_, _, task)) = DEMOS.get(i) else {
        return;
    };
    bencher.bench(|| pair_with(task, Algorithm::Bfs));
}

/// From the files' text: parse, compile the safety task, ground, both searches (A*).
#[divan::bench(args = TASKS, sample_count = 200)]
fn pair_from_text(bencher: Bencher, name: &str) {
    let Some(i) = TASKS.iter().position(|t| *t == name) else {
        return;
    };
    let Some((d, p, _)) = DEMOS.get(i) else {
        return;
    };
    bencher.bench(|| {
        let task = SafetyTask::new(
            &parse_domain(d).value?,
            &parse_problem(p).value?,
            &SafetyOptions::default(),
        )
        .ok()??;
        pair_with(&task, Algorithm::Astar)
    });
}
