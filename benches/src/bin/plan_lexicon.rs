//! The planner on LEXICON's constrained problems (`../shared/data/pddl3`): each problem
//! with its hard trajectory constraints and without them, one search each with a time limit.
//! Every plan found for the constrained problem is checked by the validator on the
//! `and`-wrapped problem VAL ran on, and written to `--out DIR` (with a `manifest.jsonl`) so
//! that VAL can check it too (`--val PATH` runs it here). Prints a Markdown table of
//! coverage and time per domain for docs/benchmarks.md.
//!
//! ```text
//! cargo run --release -p safeplan-benches --bin plan_lexicon -- [--search auto|astar|lmcut|lama|lama-anytime|gbfs|bfs] \
//!     [--timeout SECONDS] [--only TEXT] [--out DIR] [--val /path/to/Validate]
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use safeplan_benches::data_dir;
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_search::{Algorithm, GroundOptions, Limits, Outcome, Planner, SearchOptions};
use safeplan_validate::Task;

const USAGE: &str = "\
usage: plan_lexicon [--search auto|astar|lmcut|lama|lama-anytime|gbfs|bfs] [--timeout SECONDS] [--only TEXT] [--out DIR] [--val VALIDATE]

Plans for every LEXICON problem of ../shared/data/pddl3 with and without its constraints,
checks each plan with the validator (and VAL when --val is given), prints a Markdown table.
--only keeps the problems whose path contains TEXT (e.g. logistics/data_10/).";

#[derive(Default)]
struct Row {
    problems: usize,
    solved: [usize; 2],
    unsolvable: [usize; 2],
    limit: [usize; 2],
    seconds: [Vec<f64>; 2],
    /// Constrained plans found by an optimal search (under `auto`, LM-cut's), and those of
    /// them longer than LEXICON's plan.
    shortest: usize,
    longer: usize,
    val_valid: usize,
    val_checked: usize,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() -> ExitCode {
    let mut algorithm = Algorithm::Astar;
    let mut timeout = 10.0f64;
    let mut out: Option<PathBuf> = None;
    let mut val: Option<PathBuf> = None;
    let mut only = String::new();
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
            "--out" => out = args.next().map(PathBuf::from),
            "--val" => val = args.next().map(PathBuf::from),
            "--only" => only = args.next().unwrap_or_default(),
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
    match run(algorithm, timeout, &only, out.as_deref(), val.as_deref()) {
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

fn run(
    algorithm: Algorithm,
    timeout: f64,
    only: &str,
    out: Option<&Path>,
    val: Option<&Path>,
) -> Result<bool, String> {
    let dir = data_dir()?.join("pddl3");
    let manifest = read(&dir.join("manifest.jsonl"))?;
    // Each LEXICON problem once, with the `and` form VAL ran on and the corpus planner's
    // constrained plan length.
    let mut problems: BTreeMap<(String, String), (String, Option<usize>)> = BTreeMap::new();
    for line in manifest.lines() {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let problem = v["problem"].as_str().unwrap_or_default().to_string();
        if !problem.starts_with("lexicon/") || !problem.contains(only) {
            continue;
        }
        let domain = v["domain"].as_str().unwrap_or_default().to_string();
        let and = v["val_problem"].as_str().unwrap_or(&problem).to_string();
        let entry = problems.entry((domain, problem)).or_insert((and, None));
        if v["plan_source"] == "constrained" && v["valid"] == true {
            entry.1 = v["val_plan_steps"].as_u64().map(|n| n as usize);
        }
    }
    if let Some(o) = out {
        std::fs::create_dir_all(o).map_err(|e| format!("{}: {e}", o.display()))?;
    }
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut all_valid = true;
    let mut written = Vec::new();
    let options = SearchOptions {
        algorithm,
        limits: Limits {
            time: Some(Duration::from_secs_f64(timeout)),
            max_memory: Some(4 << 30),
            ..Limits::default()
        },
    };
    for ((domain, problem), (and_form, reference)) in &problems {
        let name = domain.split('/').nth(1).unwrap_or("?").to_string();
        let row = rows.entry(name).or_default();
        row.problems += 1;
        let d = parse_domain(&read(&dir.join(domain))?)
            .value
            .ok_or("domain")?;
        let p = parse_problem(&read(&dir.join(problem))?)
            .value
            .ok_or("problem")?;
        let mut plain = p.clone();
        plain.constraints = None;
        let mut constrained_plan = None;
        for (k, prob) in [&p, &plain].into_iter().enumerate() {
            let task = Task::compile(&d, prob).map_err(|e| format!("{problem}: {e}"))?;
            let start = Instant::now();
            let planner = Planner::new(&task, &GroundOptions::default())
                .map_err(|e| format!("{problem}: {e}"))?;
            let result = planner.plan(&options);
            let seconds = start.elapsed().as_secs_f64();
            match &result.outcome {
                Outcome::Found { plan } => {
                    row.solved[k] += 1;
                    row.seconds[k].push(seconds);
                    if k == 0 {
                        constrained_plan = Some((plan.clone(), result.is_optimal()));
                    }
                }
                Outcome::Unsolvable => row.unsolvable[k] += 1,
                Outcome::LimitReached { .. } => {
                    row.limit[k] += 1;
                    // Named, so that the problems left can be looked at.
                    let form = if k == 0 {
                        "constrained"
                    } else {
                        "unconstrained"
                    };
                    eprintln!("limit ({form}): {problem}");
                }
                Outcome::Rejected { plan, reason } => {
                    return Err(format!(
                        "{problem}: the planner's plan does not pass the validator ({reason}): {}",
                        plan.join(" ")
                    ));
                }
            }
        }
        let Some((plan, shortest)) = constrained_plan else {
            continue;
        };
        if shortest {
            row.shortest += 1;
            if reference.is_some_and(|r| plan.len() > r) {
                row.longer += 1;
            }
        }
        // The validator on the `and` form VAL ran on.
        let wrapped = parse_problem(&read(&dir.join(and_form))?)
            .value
            .ok_or("and form")?;
        let task = Task::compile(&d, &wrapped).map_err(|e| format!("{and_form}: {e}"))?;
        let text = plan.join("\n") + "\n";
        let verdict = task.validate(&parse_plan(&text).value.unwrap_or_default());
        if !verdict.valid {
            all_valid = false;
            eprintln!(
                "INVALID {problem}: {:?}",
                verdict.failure.map(|f| f.message)
            );
        }
        if let Some(o) = out {
            let file = o.join(format!("{}.plan", problem.replace('/', "__")));
            std::fs::write(&file, &text).map_err(|e| e.to_string())?;
            written.push((dir.join(domain), dir.join(and_form), file));
        }
    }
    // VAL on every plan written, side by side with our verdict (all valid above).
    if let Some(val) = val {
        for (domain, problem, plan) in &written {
            let name = problem
                .strip_prefix(&dir)
                .unwrap_or(problem)
                .to_string_lossy()
                .to_string();
            let row = rows
                .get_mut(name.split('/').nth(1).unwrap_or("?"))
                .ok_or("row")?;
            let out = Command::new(val)
                .arg(domain)
                .arg(problem)
                .arg(plan)
                .output()
                .map_err(|e| format!("{}: {e}", val.display()))?;
            let text = String::from_utf8_lossy(&out.stdout);
            row.val_checked += 1;
            if text.contains("Plan valid") {
                row.val_valid += 1;
            } else {
                all_valid = false;
                eprintln!(
                    "VAL rejects {}: {}",
                    plan.display(),
                    text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("")
                );
            }
        }
    }
    println!(
        "| domain | problems | constrained: solved | unsolvable | limit | median s | unconstrained: solved | median s | by an optimal search | of them longer than LEXICON's | VAL-valid |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, r) in &rows {
        println!(
            "| {name} | {} | {} | {} | {} | {:.4} | {} | {:.4} | {} | {} | {} |",
            r.problems,
            r.solved[0],
            r.unsolvable[0],
            r.limit[0],
            median(&r.seconds[0]),
            r.solved[1],
            median(&r.seconds[1]),
            r.shortest,
            r.longer,
            if val.is_some() {
                format!("{}/{}", r.val_valid, r.val_checked)
            } else {
                "not run".into()
            },
        );
    }
    Ok(all_valid)
}
