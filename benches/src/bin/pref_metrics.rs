//! Preferences in action preconditions (IPC-2006 "simple preferences", TPP) against VAL's
//! metric. The track is not in the shared data (github.com/potassco/pddl-instances states
//! no licence, so nothing of it is kept here): point `--track` at a checkout's
//! `ipc-2006/domains/tpp-preferences-simple` (its `domain.pddl` and `instances/`). For each
//! instance the binary makes plans of its own — the planner's plan for the goal with the
//! first goal preference made hard, and seeded random walks of 5 to 40 applicable steps (the
//! hard goal is empty, so every walk is valid) — writes them to `--out DIR`, runs VAL on
//! each (`--val PATH`) and compares VAL's `Final value` with safeplan's metric.
//!
//! ```text
//! cargo run --release -p safeplan-benches --bin pref_metrics -- \
//!     --track /path/to/pddl-instances/ipc-2006/domains/tpp-preferences-simple \
//!     --val /path/to/VAL/build/bin/Validate --out /tmp/tpp-plans [--instances 1-10]
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use safeplan_metrics::rng::SplitMix64;
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_search::{Algorithm, GroundOptions, Limits, Planner, SearchOptions};
use safeplan_validate::{Monitor, Task};

const USAGE: &str = "\
usage: pref_metrics --track DIR --val VALIDATE --out DIR [--instances A-B]

Plans for the IPC-2006 TPP simple-preferences instances (made here), VAL's metric on each,
compared with safeplan's.";

fn main() -> ExitCode {
    let (mut track, mut val, mut out) = (None, None, None);
    let mut range = (1usize, 10usize);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--track" => track = args.next().map(PathBuf::from),
            "--val" => val = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            "--instances" => {
                let parsed = args.next().and_then(|r| {
                    let (a, b) = r.split_once('-')?;
                    Some((a.parse().ok()?, b.parse().ok()?))
                });
                match parsed {
                    Some(r) => range = r,
                    None => {
                        eprintln!("error: --instances takes A-B, e.g. 1-10\n{USAGE}");
                        return ExitCode::from(2);
                    }
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unknown argument {other}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(track), Some(val), Some(out)) = (track, val, out) else {
        eprintln!("error: --track, --val and --out are required\n{USAGE}");
        return ExitCode::from(2);
    };
    match run(&track, &val, &out, range) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn read(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
}

/// VAL's `Final value`, or why there is none.
fn val_metric(val: &Path, domain: &Path, problem: &Path, plan: &Path) -> Result<f64, String> {
    let out = Command::new(val)
        .arg(domain)
        .arg(problem)
        .arg(plan)
        .output()
        .map_err(|e| format!("{}: {e}", val.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !text.contains("Plan valid") {
        return Err(format!(
            "VAL: not valid: {}",
            text.lines().last().unwrap_or("")
        ));
    }
    text.lines()
        .find_map(|l| l.strip_prefix("Final value:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| "VAL printed no final value".to_string())
}

fn run(track: &Path, val: &Path, out: &Path, range: (usize, usize)) -> Result<bool, String> {
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let domain_path = track.join("domain.pddl");
    let domain = parse_domain(&read(&domain_path)?).value.ok_or("domain")?;
    let (mut plans, mut agree, mut drives_violated) = (0usize, 0usize, 0usize);
    let mut all = true;
    for i in range.0..=range.1 {
        let problem_path = track.join(format!("instances/instance-{i}.pddl"));
        let problem_text = read(&problem_path)?;
        let problem = parse_problem(&problem_text).value.ok_or("problem")?;
        let task = Task::compile(&domain, &problem).map_err(|e| format!("instance {i}: {e}"))?;
        let mut made: Vec<(String, Vec<String>)> = Vec::new();
        // The planner's plan for "every goods stored at level 1" (p0A made hard).
        let hard = problem_text.replacen(
            "(:goal (and",
            "(:goal (and (forall (?g - goods) (stored ?g level1))",
            1,
        );
        if let Some(p) = parse_problem(&hard).value
            && let Ok(t) = Task::compile(&domain, &p)
            && let Ok(planner) = Planner::new(&t, &GroundOptions::default())
        {
            let result = planner.plan(&SearchOptions {
                algorithm: Algorithm::Gbfs,
                limits: Limits {
                    time: Some(Duration::from_secs(20)),
                    ..Limits::default()
                },
            });
            if let Some(plan) = result.outcome.plan() {
                made.push(("planner".into(), plan.to_vec()));
            }
        }
        // Seeded random walks through applicable actions.
        let ground = Planner::new(&task, &GroundOptions::default()).map_err(|e| e.to_string())?;
        let g = ground.ground_task();
        let actions: Vec<(String, safeplan_validate::GroundAction)> = (0..g.action_count())
            .filter_map(|o| {
                let text = g.action_text(o);
                let words: Vec<&str> = text.trim_matches(['(', ')']).split_whitespace().collect();
                let action = task.ground(words.first()?, &words[1..]).ok()?;
                Some((text, action))
            })
            .collect();
        for (seed, len) in [(1u64, 5usize), (2, 10), (3, 20), (4, 40)] {
            let mut rng = SplitMix64::new(seed * 1000 + i as u64);
            let mut m = Monitor::new(&task);
            let mut walk = Vec::new();
            for _ in 0..len {
                let ok: Vec<&(String, safeplan_validate::GroundAction)> =
                    actions.iter().filter(|(_, a)| m.check(a).is_ok()).collect();
                if ok.is_empty() {
                    break;
                }
                let (text, a) = ok[rng.below(ok.len() as u64) as usize];
                walk.push(text.clone());
                m.apply(a).map_err(|f| f.message)?;
            }
            made.push((format!("walk{len}"), walk));
        }
        for (name, steps) in made {
            let text = steps.join("\n") + "\n";
            let path = out.join(format!("instance-{i}.{name}.plan"));
            std::fs::write(&path, &text).map_err(|e| e.to_string())?;
            let ours = task.validate(&parse_plan(&text).value.unwrap_or_default());
            let theirs = val_metric(val, &domain_path, &problem_path, &path);
            plans += 1;
            let drive = ours
                .preferences
                .iter()
                .find(|p| p.name.as_deref() == Some("p-drive"))
                .map_or(0, |p| p.violated);
            drives_violated += usize::from(drive > 0);
            match (ours.metric, theirs) {
                (Some(a), Ok(b)) if (a - b).abs() < 1e-6 => agree += 1,
                (a, b) => {
                    all = false;
                    eprintln!(
                        "instance {i} {name}: safeplan {a:?} (valid {}), VAL {b:?}",
                        ours.valid
                    );
                }
            }
        }
    }
    println!("| plans | VAL's metric equals safeplan's | plans that violate p-drive |");
    println!("|---|---|---|");
    println!("| {plans} | {agree}/{plans} | {drives_violated} |");
    Ok(all)
}
