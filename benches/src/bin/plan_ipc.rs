//! The planner on the IPC corpus: every problem, one search each with a time limit, every
//! plan found checked by the validator. Prints a Markdown table for docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p safeplan-benches --bin plan_ipc -- [--search auto|lama|lama-anytime|gbfs|astar|lmcut|bfs] \
//!     [--timeout SECONDS] [--only DOMAIN]
//! ```
//!
//! Columns: the problem, the outcome (`solved`, `unsolvable`, `limit`, or why it could not
//! be planned for), the plan length, the length of the corpus's own valid plan (Fast
//! Downward or ENHSP, `manifest.jsonl`), grounding and search time, and states expanded.
//! Grounding is not under the time limit; the search is, and so is the whole problem in the
//! "total" column. A plan the validator rejects makes the run fail.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use safeplan_benches::{data_dir, load_task};
use safeplan_search::{Algorithm, GroundOptions, Limits, Outcome, Planner, SearchOptions};

const USAGE: &str = "\
usage: plan_ipc [--search auto|lama|lama-anytime|gbfs|astar|lmcut|bfs] [--timeout SECONDS] [--only DOMAIN]

Plans for every problem of the IPC corpus (../shared/data/ipc or $SAFEPLAN_DATA/ipc) with a
time limit per search (default 60 s), validates each plan found, and prints a Markdown table.";

fn main() -> ExitCode {
    let mut algorithm = Algorithm::Gbfs;
    let mut timeout = 60.0f64;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--search" => {
                let name = args.next().unwrap_or_default();
                algorithm = match Algorithm::from_name(&name) {
                    Some(a) => a,
                    None => {
                        eprintln!(
                            "error: --search takes {}, not {name:?}\n{USAGE}",
                            Algorithm::names()
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            "--timeout" => match args.next().and_then(|t| t.parse::<f64>().ok()) {
                Some(t) if t > 0.0 && t.is_finite() => timeout = t,
                _ => {
                    eprintln!("error: --timeout takes a positive number of seconds\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--only" => only = args.next(),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unexpected argument {other}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let data = match data_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // (domain, problem) -> length of the corpus's valid plan.
    let mut problems: BTreeMap<(String, String), Option<usize>> = BTreeMap::new();
    let manifest = match std::fs::read_to_string(data.join("ipc/manifest.jsonl")) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: cannot read the manifest: {e}");
            return ExitCode::from(2);
        }
    };
    for line in manifest.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let (Some(d), Some(p)) = (v["domain"].as_str(), v["problem"].as_str()) else {
            continue;
        };
        let entry = problems.entry((d.to_string(), p.to_string())).or_default();
        if v["valid"].as_bool() == Some(true) && v["mutation"].is_null() {
            *entry = v["steps"].as_u64().map(|s| s as usize);
        }
    }
    println!(
        "| problem | outcome | length | corpus plan | grounding s | search s | expanded |\n\
         |---|---|---:|---:|---:|---:|---:|"
    );
    let (mut solved, mut total, mut bad) = (0, 0, 0);
    for ((d, p), reference) in &problems {
        if only
            .as_deref()
            .is_some_and(|o| !d.starts_with(&format!("{o}/")))
        {
            continue;
        }
        total += 1;
        let name = p.trim_end_matches(".pddl");
        let loaded = match load_task(&data.join("ipc").join(d), &data.join("ipc").join(p)) {
            Ok(t) => t,
            Err(e) => {
                println!("| {name} | error: {e} | | | | | |");
                continue;
            }
        };
        let start = Instant::now();
        let planner = match Planner::new(&loaded.task, &GroundOptions::default()) {
            Ok(planner) => planner,
            Err(e) => {
                println!("| {name} | {e} | | | | | |");
                continue;
            }
        };
        let grounding = start.elapsed().as_secs_f64();
        let result = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                time: Some(Duration::from_secs_f64(timeout)),
                max_memory: Some(8 << 30),
                ..Limits::default()
            },
        });
        let reference = reference.map_or(String::new(), |r| r.to_string());
        let (outcome, length) = match &result.outcome {
            Outcome::Found { plan } => {
                let text = plan.join("\n");
                let valid = safeplan_pddl::parse_plan(&text)
                    .value
                    .is_some_and(|plan| loaded.task.validate(&plan).valid);
                if valid {
                    solved += 1;
                    ("solved".to_string(), plan.len().to_string())
                } else {
                    bad += 1;
                    ("INVALID PLAN".to_string(), plan.len().to_string())
                }
            }
            Outcome::Unsolvable => ("unsolvable".to_string(), String::new()),
            Outcome::LimitReached { limit } => (limit.as_str().to_string(), String::new()),
            Outcome::Rejected { plan, .. } => {
                bad += 1;
                ("INVALID PLAN".to_string(), plan.len().to_string())
            }
        };
        println!(
            "| {name} | {outcome} | {length} | {reference} | {grounding:.3} | {:.3} | {} |",
            result.stats.seconds, result.stats.expanded
        );
    }
    println!(
        "\n{solved} of {total} problems solved ({}, {timeout} s per search){}",
        algorithm.as_str(),
        if bad > 0 {
            format!("; {bad} INVALID plans")
        } else {
            String::new()
        }
    );
    if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
