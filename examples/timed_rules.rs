//! A robot executive under a **timed safety rule**: the stove may stay on for at most 12
//! seconds (`(always-within 12 (stove-on) (not (stove-on)))`, a PDDL3 trajectory constraint of
//! `examples/temporal/stove-deadline`). A [`TimedMonitor`] guards every start and end; after
//! each event the executive reads what the rules still owe and by when
//! ([`TimedMonitor::outstanding`]).
//!
//! The first run follows its schedule blindly (boil, fetch the cup, make the tea, then switch
//! off): the monitor refuses the first event past the deadline of 13 (the walk back from the
//! pantry would end at 13.02 with the stove still on), with the rule and the time. The second
//! run reads the deadline and switches the stove off before an action that would end after
//! it; its plan is then judged by the [`SafetyTask`]: feasible, safe and with safety
//! intention.
//!
//! ```text
//! cargo run -p safeplan-validate --example timed_rules
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::error::Error;
use std::path::Path;
use std::process::ExitCode;

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{
    DEFAULT_TOLERANCE, SafetyOptions, SafetyTask, Task, TimedError, TimedMonitor,
};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// (action, arguments, duration), run one after another 0.01 apart.
const SCHEDULE: &[(&str, &[&str], f64)] = &[
    ("switch-on", &[], 1.0),
    ("boil-water", &[], 8.0),
    ("go", &["kitchen", "pantry"], 4.0),
    ("take-cup", &["pantry"], 1.0),
    ("go", &["pantry", "kitchen"], 4.0),
    ("make-tea", &[], 2.0),
    ("switch-off", &[], 1.0),
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

fn run() -> Result<bool> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/temporal/stove-deadline");
    let domain = parse_domain(&std::fs::read_to_string(dir.join("domain.pddl"))?)
        .value
        .ok_or("the domain cannot be read")?;
    let problem = parse_problem(&std::fs::read_to_string(dir.join("problem.pddl"))?)
        .value
        .ok_or("the problem cannot be read")?;
    let task = Task::compile(&domain, &problem)?;

    println!("== blind run");
    let (_, refused) = execute(&task, false)?;
    println!("== deadline-aware run");
    let (plan, refused_again) = execute(&task, true)?;
    println!("plan:\n{plan}");
    let safety = SafetyTask::new(&domain, &problem, &SafetyOptions::default())?
        .ok_or("the task states safety rules")?;
    let v = safety.evaluate(&parse_plan(&plan).value.ok_or("the plan reads back")?);
    println!(
        "feasible {}, safe {}, safety intention {}; rules broken: {}",
        v.feasible,
        v.safe,
        v.safety_intention,
        v.rule_violations.len()
    );
    Ok(refused && !refused_again && v.safe && v.safety_intention)
}

/// Run the schedule on a monitor; `aware`: switch the stove off before an action that would
/// end after the rule's deadline. Returns the plan executed and whether an event was refused.
fn execute(task: &Task, aware: bool) -> Result<(String, bool)> {
    let mut monitor = TimedMonitor::new(task, DEFAULT_TOLERANCE);
    let mut plan = String::new();
    let mut t = 0.0f64;
    let mut queue: Vec<(&str, &[&str], f64)> = SCHEDULE.to_vec();
    let mut i = 0;
    while i < queue.len() {
        let (name, args, duration) = queue[i];
        // The rule's deadline, if one is owed: `(not (stove-on))` by some time.
        let deadline = monitor.outstanding().into_iter().find_map(|o| o.deadline);
        if aware
            && let Some(d) = deadline
            && name != "switch-off"
            && t + duration > d
        {
            println!(
                "  {t:.2}: ({name}) would end at {:.2}, after the deadline {d}: switch off first",
                t + duration
            );
            // The scheduled switch-off moves here.
            if let Some(j) = queue[i..].iter().position(|(n, _, _)| *n == "switch-off") {
                let off = queue.remove(i + j);
                queue.insert(i, off);
            }
            continue;
        }
        let action = task.ground(name, args)?;
        let id = match monitor.start(&action, t) {
            Ok(id) => id,
            Err(e) => return refused(e, name, t, plan),
        };
        let end = t + duration;
        if let Err(e) = monitor.end(id, end) {
            return refused(e, name, end, plan);
        }
        let text = format!(
            "({name}{}{})",
            if args.is_empty() { "" } else { " " },
            args.join(" ")
        );
        println!("  {t:.2}-{end:.2}: {text}");
        plan += &format!("{t:.3}: {text} [{duration:.3}]\n");
        t = end + 0.01;
        i += 1;
    }
    Ok((plan, false))
}

fn refused(e: TimedError, name: &str, t: f64, plan: String) -> Result<(String, bool)> {
    match e {
        TimedError::Refused(f) => {
            println!("  refused at {t:.2}, ({name}): {}", f.message);
            Ok((plan, true))
        }
        other => Err(other.into()),
    }
}
