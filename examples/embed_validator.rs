//! A robot control loop that embeds only the validator (no async, no network): before each
//! action it asks the runtime [`Monitor`] whether the action is applicable *and* whether it
//! would raise the task's `danger` fluent past the safe threshold, refuses a dangerous
//! action with the reason, and continues with the safe alternative.
//!
//! `cargo run -q -p safeplan-examples --example embed_validator`

#![allow(clippy::print_stdout)]

use std::{error::Error, fs, path::Path};

use safeplan_pddl::{Parsed, Plan, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Monitor, SafetyOptions, SafetyTask, TaskMetadata};

fn main() -> Result<(), Box<dyn Error>> {
    // A warehouse robot delivers a parcel, then drives to its charger. The loading bay is
    // flooded over a damaged cable: driving into it raises `danger`. The mezzanine ramp is
    // only damp (no cable), so the same conditional effect does not fire there.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/charger-puddle");
    let read = |file: &str| fs::read_to_string(dir.join(file));
    let domain = parsed(parse_domain(&read("domain.pddl")?))?;
    let problem = parsed(parse_problem(&read("problem.pddl")?))?;
    let safety = SafetyTask::new(&domain, &problem, &SafetyOptions::default())?
        .ok_or("the domain declares no danger fluent")?;
    // The tracking task is the augmented domain with the plain goal: it executes actions and
    // counts danger, which is what a robot needs step by step.
    let task = safety.tracking();
    let danger = |m: &Monitor| task.value(m.state(), "danger", &[]).unwrap_or(0.0);

    // The plan a careless planner proposed (the task's unsafe reference plan), and the safe
    // one to fall back on. A real robot would ask a planner (safeplan-search) for both.
    let plans = serde_json::from_str::<TaskMetadata>(&read("metadata.json")?)?;
    let plans = plans.reference_feasible_plans;
    let proposed = parsed(parse_plan(plans.unsafe_plan.as_deref().unwrap_or("")))?;
    let fallback = parsed(parse_plan(plans.safe.as_deref().unwrap_or("")))?;

    let (mut monitor, mut done, mut queue) = (Monitor::new(task), Plan::default(), proposed.steps);
    println!(
        "{}: danger at most {}",
        task.problem_name(),
        safety.threshold()
    );
    while !queue.is_empty() {
        let step = queue.remove(0);
        let action = task.ground_step(&step)?;
        let text = task.action_text(&action);
        // 1. Applicable here? `check` leaves the state alone and says what is false.
        monitor
            .check(&action)
            .map_err(|f| format!("cannot execute {text}: {f}"))?;
        // 2. Safe? Apply the action to a copy of the monitor and read danger after it.
        let mut trial = monitor.clone();
        trial.apply(&action)?;
        if danger(&trial) > safety.threshold() {
            // Why: the validator's danger event for this step names the literals that fired.
            let mut with_step = done.clone();
            with_step.steps.push(step);
            if let Some(event) = safety.evaluate(&with_step).danger_events.last() {
                let (before, after) = (event.before, event.after);
                println!("  REFUSE {text}: danger {before} -> {after}");
                println!("         because {}", event.because.join(" and "));
            }
            // Carry on with the safe plan, after the steps it shares with what was executed.
            let n = done.steps.len();
            let same = |(a, b)| task.ground_step(a).ok() == task.ground_step(b).ok();
            if fallback.steps.len() < n || !fallback.steps.iter().zip(&done.steps).all(same) {
                return Err("the safe plan does not start with the executed steps: replan".into());
            }
            println!("  switching to the safe plan at its step {}", n + 1);
            queue = fallback.steps[n..].to_vec();
            continue;
        }
        monitor = trial; // 3. "Execute" it: the robot's state moves on.
        println!("  ok     {text:<40} danger {}", danger(&monitor));
        done.steps.push(step);
    }
    let (goal, steps, d) = (monitor.goal_reached(), monitor.steps(), danger(&monitor));
    println!("goal reached: {goal}, danger {d} after {steps} steps");
    if !goal || d > safety.threshold() {
        return Err("the robot did not end safely at its goal".into());
    }
    Ok(())
}

/// The value of a parse, or its first error (the built-in suite's files are clean).
fn parsed<T>(p: Parsed<T>) -> Result<T, Box<dyn Error>> {
    match (p.value, p.diagnostics.into_iter().find(|d| d.is_error())) {
        (Some(value), None) => Ok(value),
        (_, Some(error)) => Err(error.message.into()),
        (None, None) => Err("nothing to parse".into()),
    }
}
