//! A robot's execution loop guarded by a [`Monitor`]: before each action the robot asks
//! whether the action is applicable in the state it believes it is in; it executes only the
//! actions that are, and tells the monitor afterwards so the state moves on.
//!
//! ```text
//! cargo run -p safeplan-validate --example robot_monitor [TASK_DIR [PLAN_FILE]]
//! ```
//!
//! `TASK_DIR` holds `domain.pddl` and `problem.pddl` (default: the project's
//! `examples/tasks/hot-soup`). Without `PLAN_FILE` the robot runs a built-in action list
//! that contains one action out of order. At the end it says whether the goal was reached
//! and prints the task's `danger` fluent (see `SEMANTICS.md` §1).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use safeplan_pddl::{Diagnostic, Parsed, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Monitor, Task, TaskError};

/// What the robot is told to do when no plan file is given. The second action comes too
/// early: the robot is still at the stove, so it cannot put the soup down on the table yet.
const ACTIONS: &str = "
(pick-up soup stove)
(put-down soup table)
(move stove table)
(put-down soup table)
";

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run() -> Result<()> {
    let mut args = std::env::args_os().skip(1);
    let task_dir = match args.next() {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/hot-soup"),
    };
    let plan_file = args.next().map(PathBuf::from);

    // 1. Load and compile the task once; everything after works on the compiled `Task`.
    let domain_path = task_dir.join("domain.pddl");
    let problem_path = task_dir.join("problem.pddl");
    let domain = parsed(&domain_path, parse_domain(&read(&domain_path)?))?;
    let problem = parsed(&problem_path, parse_problem(&read(&problem_path)?))?;
    let task = Task::compile(&domain, &problem).map_err(|e| match e {
        TaskError::Invalid(diagnostics) => describe(&task_dir, &diagnostics),
        other => other.to_string(),
    })?;
    println!(
        "task {} / {}: monitoring the robot",
        task.domain_name(),
        task.problem_name()
    );

    // 2. The robot's action list: a plan file, or the built-in list.
    let text = match &plan_file {
        Some(path) => read(path)?,
        None => ACTIONS.to_string(),
    };
    let source = plan_file
        .as_deref()
        .unwrap_or(Path::new("built-in actions"));
    let actions = parsed(source, parse_plan(&text))?;

    // 3. The loop: check, execute, report.
    let mut monitor = Monitor::new(&task);
    for (i, step) in actions.steps.iter().enumerate() {
        let n = i + 1;
        // A step that names no action of the domain (or the wrong objects) is a command the
        // robot does not understand: it stops and asks for a new plan.
        let action = match task.ground_step(step) {
            Ok(action) => action,
            Err(failure) => {
                println!("[{n}] cannot execute: {}", failure.message);
                print_advice(&failure.advice);
                println!("    stopping: the action list needs fixing");
                break;
            }
        };
        let text = task.action_text(&action);
        // Asking does not change anything: the monitor's state stays as it was. (The
        // monitor numbers steps by the actions actually executed, so after a skipped action
        // its "step k" is smaller than the `[n]` of this list.)
        if let Err(failure) = monitor.check(&action) {
            println!("[{n}] refused: {}", failure.message);
            print_advice(&failure.advice);
            println!("    skipping it, the robot does not move");
            continue;
        }
        println!("[{n}] ok: {text}");
        let before = danger(&task, &monitor);
        // ... here the real robot executes the action ...
        // Then the monitor is told, and its state becomes the state after the action.
        monitor.apply(&action)?;
        let after = danger(&task, &monitor);
        if after != before {
            println!("    danger {} -> {}", show(before), show(after));
        }
    }

    // 4. Where the robot ended up.
    println!(
        "{} action(s) executed; goal reached: {}",
        monitor.steps(),
        if monitor.goal_reached() { "yes" } else { "no" }
    );
    println!("danger: {}", show(danger(&task, &monitor)));
    for w in monitor.warnings() {
        println!("warning: {}", w.message);
    }
    Ok(())
}

/// The value of the `danger` fluent now (`None`: the task has none, or it has no value).
fn danger(task: &Task, monitor: &Monitor<'_>) -> Option<f64> {
    task.value(monitor.state(), "danger", &[])
}

fn show(value: Option<f64>) -> String {
    value.map_or_else(|| "undefined".to_string(), |v| v.to_string())
}

fn print_advice(advice: &[String]) {
    for a in advice {
        println!("    advice: {a}");
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The value of a parse, or an error listing its error diagnostics.
fn parsed<T>(path: &Path, parsed: Parsed<T>) -> Result<T> {
    if parsed.has_errors() {
        return Err(describe(path, &parsed.diagnostics).into());
    }
    parsed
        .value
        .ok_or_else(|| format!("{}: nothing to read", path.display()).into())
}

fn describe(path: &Path, diagnostics: &[Diagnostic]) -> String {
    let mut out = format!("{}:", path.display());
    for d in diagnostics.iter().filter(|d| d.is_error()) {
        out.push_str(&format!(
            "\n  {} (bytes {}..{})",
            d.message, d.span.start, d.span.end
        ));
    }
    out
}
