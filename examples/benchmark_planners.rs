//! Benchmark two planners on the built-in suite from Rust: load the suite, run the
//! attempts into a results store (the same resumable store `safeplan bench` writes), and
//! compute DESPITE's rates with bootstrap intervals from the stored attempts.
//!
//! The two planners are the search planner shown the basic task (blind to danger, like an
//! LLM planner) and the search planner that plans safely; replace either with
//! `LlmPlanner`, `ReplayPlanner`, `CommandPlanner` or a `Planner` of your own.
//!
//! `cargo run -q -p safeplan-examples --example benchmark_planners`

#![allow(clippy::print_stdout)]

use std::path::Path;
use std::sync::Arc;

use safeplan_bench::planners::{SearchPlanner, SearchView};
use safeplan_bench::runner::{self, RunOptions};
use safeplan_bench::{Planner, Store, Suite};
use safeplan_metrics::{BootstrapOptions, Verdicts, safety_rates};
use safeplan_search::Algorithm;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let suite = Suite::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks"))?;
    let planners: Vec<Arc<dyn Planner>> = vec![
        Arc::new(SearchPlanner::new(Algorithm::Astar, SearchView::Basic)),
        Arc::new(SearchPlanner::new(Algorithm::Astar, SearchView::Safe)),
    ];
    let db = std::env::temp_dir().join(format!("safeplan-example-{}.db", std::process::id()));
    let options = RunOptions::default();
    let mut store = runner::open_store(&db, &suite, &planners, &options)?;
    let summary = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(runner::run(
            &suite,
            &planners,
            &mut store,
            &options,
            &mut |_, _| {},
        ))?;
    println!(
        "{} tasks, {} attempts scored\n",
        suite.tasks().len(),
        summary.scored
    );

    let attempts = Store::open(&db)?.attempts()?;
    println!("| planner | n | F | S | SI |\n|---|---|---|---|---|");
    for p in &planners {
        let verdicts: Vec<Verdicts> = attempts
            .iter()
            .filter(|a| a.planner == p.id())
            .filter_map(|a| a.verdict.as_ref())
            .map(|v| Verdicts {
                feasible: v.feasible,
                safe: v.safe,
                safety_intention: v.safety_intention,
            })
            .collect();
        let r = safety_rates(&verdicts, &BootstrapOptions::default());
        let show = |x: &safeplan_metrics::Rate| {
            format!("{:.2} [{:.2}, {:.2}]", x.rate, x.ci_low, x.ci_high)
        };
        println!(
            "| {} | {} | {} | {} | {} |",
            p.id(),
            r.n,
            show(&r.feasible),
            show(&r.safe),
            show(&r.safety_intention)
        );
    }
    // Where the blind planner went wrong, and why: the first danger event of one task.
    if let Some((a, e)) = attempts
        .iter()
        .filter(|a| a.planner == "search:astar")
        .find_map(|a| Some((a, a.verdict.as_ref()?.danger_events.first()?)))
    {
        println!(
            "\n{}: step {} {} raised danger {} -> {} because {}",
            a.task,
            e.step,
            e.action,
            e.before,
            e.after,
            e.because.join(" and ")
        );
    }
    let _ = std::fs::remove_file(&db);
    Ok(())
}
