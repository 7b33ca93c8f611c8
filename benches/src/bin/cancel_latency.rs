//! How soon a search stops after its cancellation flag is set: every algorithm on IPC
//! problems where it runs for seconds, cancelled from another thread after a delay, timed
//! from the flag's store to the search's return.
//!
//! ```text
//! cargo run --release -p safeplan-benches --bin cancel_latency -- [--runs N] [--max-delay MS]
//! ```
//!
//! Each run starts a search on a thread with no other limit but 4 GiB of memory, sleeps
//! 20 ms to `--max-delay` (220 by default; a different delay each run, so the flag lands at
//! different points of an expansion and of the search's growth), sets the flag,
//! and waits for the search to return. A search that ends by itself before the flag is set
//! (it found a plan) is not counted. Prints, per algorithm, the samples and the median and
//! largest latency in microseconds.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use safeplan_benches::{data_dir, load_task};
use safeplan_search::{
    Algorithm, GroundOptions, LimitKind, Limits, Outcome, Planner, SearchOptions,
};

/// Problems on which every algorithm runs for seconds at least (IPC corpus).
const PROBLEMS: [(&str, &str); 4] = [
    (
        "childsnack/domain.pddl",
        "childsnack/child-snack_pfile05-2.pddl",
    ),
    ("termes/domain.pddl", "termes/p03.pddl"),
    ("satellite/domain.pddl", "satellite/p30-HC-pfile10.pddl"),
    ("snake/domain.pddl", "snake/p02.pddl"),
];

fn main() -> ExitCode {
    let mut runs = 10usize;
    let mut max_delay = 220u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (
            arg.as_str(),
            args.next().and_then(|n| n.parse::<u64>().ok()),
        ) {
            ("--runs", Some(n)) if n > 0 => runs = n as usize,
            ("--max-delay", Some(n)) if n > 20 => max_delay = n,
            _ => {
                eprintln!("usage: cancel_latency [--runs N] [--max-delay MS (over 20)]");
                return ExitCode::from(2);
            }
        }
    }
    let data = match data_dir() {
        Ok(d) => d.join("ipc"),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!("| algorithm | samples | median µs | largest µs | problem of the largest |");
    println!("|---|---:|---:|---:|---|");
    let mut planners = Vec::new();
    for (d, p) in PROBLEMS {
        let loaded = match load_task(&data.join(d), &data.join(p)) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        match Planner::new(&loaded.task, &GroundOptions::default()) {
            Ok(planner) => planners.push((p, planner)),
            Err(e) => {
                eprintln!("error: {p}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    for algorithm in Algorithm::ALL {
        let mut samples: Vec<(f64, &str)> = Vec::new();
        for (name, planner) in &planners {
            for run in 0..runs {
                // Spread over 20 ms..max_delay (with 220: 20, 57, 94, ... as before).
                let step = (run as u64 * 37) % 200;
                let delay = Duration::from_millis(20 + (max_delay - 20) * step / 200);
                let flag = Arc::new(AtomicBool::new(false));
                let options = SearchOptions {
                    algorithm,
                    limits: Limits {
                        cancel: Some(flag.clone()),
                        max_memory: Some(4 << 30),
                        ..Limits::default()
                    },
                };
                let (set_at, result, ended) = std::thread::scope(|scope| {
                    let search = scope.spawn(|| {
                        let result = planner.plan(&options);
                        (result, Instant::now())
                    });
                    std::thread::sleep(delay);
                    let set_at = Instant::now();
                    flag.store(true, Ordering::Relaxed);
                    let (result, ended) = search.join().unwrap_or_else(|_| {
                        eprintln!("error: the search panicked");
                        std::process::exit(2)
                    });
                    (set_at, result, ended)
                });
                if let Outcome::LimitReached {
                    limit: LimitKind::Cancelled,
                } = result.outcome
                {
                    let latency = ended.saturating_duration_since(set_at).as_secs_f64() * 1e6;
                    samples.push((latency, name));
                }
            }
        }
        samples.sort_by(|a, b| a.0.total_cmp(&b.0));
        let median = samples.get(samples.len() / 2).map_or(f64::NAN, |s| s.0);
        let (largest, at) = samples.last().map_or((f64::NAN, ""), |s| (s.0, s.1));
        println!(
            "| {} | {} | {median:.0} | {largest:.0} | {at} |",
            algorithm.as_str(),
            samples.len()
        );
    }
    ExitCode::SUCCESS
}
