//! A robot executive that dispatches durative actions, guarded by a [`TimedMonitor`]: before
//! each start and each end it asks whether the event is allowed now — the action's
//! conditions, its duration, and the `over all` conditions of every action still running —
//! and dispatches only what is. It reads the hidden `danger` fluent after every event.
//!
//! ```text
//! cargo run -p safeplan-validate --example robot_executive
//! ```
//!
//! The task is `examples/temporal/hot-drink-carry` (a hot drink carried through a hallway
//! people may enter). The executive's schedule holds one mistake: it tries to put the drink
//! down while the lid is still being fitted, which the lid's `over all (holding tea)`
//! forbids; the monitor refuses that start and the executive drops the action.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::error::Error;
use std::path::Path;
use std::process::ExitCode;

use safeplan_pddl::{parse_domain, parse_problem};
use safeplan_validate::{DEFAULT_TOLERANCE, RunningId, Task, TimedError, TimedMonitor};

/// (start time, action, arguments, duration): what the executive was told to do.
const SCHEDULE: &[(f64, &str, &[&str], f64)] = &[
    (0.0, "pick-up", &["tea", "kitchen"], 2.0),
    (2.01, "fit-lid", &["tea"], 3.0),
    (3.0, "put-down", &["tea", "kitchen"], 1.0), // too early: the lid is not on yet
    (5.02, "carry", &["tea", "kitchen", "hallway"], 4.0),
    (9.03, "carry", &["tea", "hallway", "office"], 3.0),
    (12.04, "put-down", &["tea", "office"], 1.0),
];

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, Box<dyn Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/temporal/hot-drink-carry");
    let domain = parse_domain(&std::fs::read_to_string(dir.join("domain.pddl"))?)
        .value
        .ok_or("the domain cannot be read")?;
    let problem = parse_problem(&std::fs::read_to_string(dir.join("problem.pddl"))?)
        .value
        .ok_or("the problem cannot be read")?;
    let task = Task::compile(&domain, &problem)?;
    let mut monitor = TimedMonitor::new(&task, DEFAULT_TOLERANCE);

    // The executive's event queue: starts from the schedule, ends once an action started.
    // Keys are (time in microseconds, order) so that events at one time keep their order.
    let mut queue: BTreeMap<(i64, usize), Event> = BTreeMap::new();
    for (i, &(t, _, _, duration)) in SCHEDULE.iter().enumerate() {
        queue.insert((micros(t), 2 * i), Event::Start { i, duration });
    }
    while let Some(((at, order), event)) = queue.pop_first() {
        let t = at as f64 / 1e6;
        match event {
            Event::Start { i, duration } => {
                let (_, name, args, _) = SCHEDULE[i];
                let action = task.ground(name, args)?;
                match monitor.start(&action, t) {
                    Ok(id) => {
                        println!("{t:>6.2}  start {}", task.action_text(&action));
                        queue.insert((micros(t + duration), order + 1), Event::End { id });
                    }
                    Err(TimedError::Refused(f)) => {
                        println!(
                            "{t:>6.2}  REFUSED {}: {}",
                            task.action_text(&action),
                            f.message
                        );
                        for advice in &f.advice {
                            println!("        advice: {advice}");
                        }
                    }
                    Err(other) => return Err(other.into()),
                }
            }
            Event::End { id } => {
                monitor.end(id, t)?;
                println!("{t:>6.2}  end   action {}", id.number());
            }
        }
        let danger = task.value(monitor.state(), "danger", &[]).unwrap_or(0.0);
        if danger > 0.0 {
            println!("        danger is now {danger}");
        }
    }
    let done = monitor.goal_reached();
    println!(
        "goal {}; danger {}",
        if done { "reached" } else { "NOT reached" },
        task.value(monitor.state(), "danger", &[]).unwrap_or(0.0)
    );
    Ok(done)
}

enum Event {
    Start { i: usize, duration: f64 },
    End { id: RunningId },
}

fn micros(t: f64) -> i64 {
    (t * 1e6).round() as i64
}
