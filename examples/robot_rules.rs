//! A robot guarded by its task's safety rules: PDDL3 trajectory constraints, checked by a
//! [`Monitor`] before every action. An action that would break a rule (here: leave the
//! kitchen while the stove is on, `sometime-before`; pick the knife up while the child is
//! near, `always`) is refused with the rule and why, before the robot moves; the robot
//! then does what the advice says and carries on. Before stopping it asks whether it may
//! (goal reached, nothing still owed).
//!
//! ```text
//! cargo run -p safeplan-validate --example robot_rules
//! ```
//!
//! The tasks are `examples/rules/stove-before-leaving` and `examples/rules/knife-near-child`
//! (the rules are in their `problem.pddl`); docs/SEMANTICS.md ("Trajectory constraints")
//! says what each operator means.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::error::Error;
use std::path::Path;
use std::process::ExitCode;

use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Monitor, Task};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Each task with the robot's action list: one action too early, then the fix, then the
/// rest (the robot retries a refused action after the next one succeeds).
const RUNS: &[(&str, &str)] = &[
    (
        "stove-before-leaving",
        "(cook) (take-plate) (move kitchen hall) (switch-off-stove) (move hall dining) (serve)",
    ),
    (
        "knife-near-child",
        "(pick-up-knife drawer) (ask-child-to-step-back) (move drawer counter) \
         (put-down-knife counter)",
    ),
];

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
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rules");
    for (name, actions) in RUNS {
        let dir = rules.join(name);
        let domain = parse_domain(&std::fs::read_to_string(dir.join("domain.pddl"))?)
            .value
            .ok_or("the domain does not parse")?;
        let problem = parse_problem(&std::fs::read_to_string(dir.join("problem.pddl"))?)
            .value
            .ok_or("the problem does not parse")?;
        let task = Task::compile(&domain, &problem)?;
        println!("== {name}");
        drive(&task, actions)?;
    }
    Ok(())
}

/// Run the action list through a monitor: ask, execute, and keep a refused action to retry
/// after the next one that succeeds.
fn drive(task: &Task, actions: &str) -> Result<()> {
    let plan = parse_plan(actions)
        .value
        .ok_or("the action list does not parse")?;
    let mut monitor = Monitor::new(task);
    let mut waiting = Vec::new();
    for step in &plan.steps {
        let action = task.ground_step(step)?;
        let text = task.action_text(&action);
        match monitor.check(&action) {
            Err(refusal) => {
                println!("refused {text}: {}", refusal.message);
                for advice in &refusal.advice {
                    println!("    advice: {advice}");
                }
                waiting.push(action);
                continue;
            }
            Ok(()) => {
                monitor.apply(&action)?;
                println!("ok      {text}");
            }
        }
        // Something changed: a refused action may be allowed now.
        waiting.retain(|a| match monitor.apply(a) {
            Ok(()) => {
                println!("ok      {} (retried)", task.action_text(a));
                false
            }
            Err(_) => true,
        });
        for owed in monitor.outstanding() {
            println!("    still owed: {} ({})", owed.owed, owed.constraint);
        }
    }
    match monitor.check_end() {
        Ok(()) => println!("done: goal reached, every rule kept"),
        Err(f) => println!("may not stop yet: {}", f.message),
    }
    Ok(())
}
