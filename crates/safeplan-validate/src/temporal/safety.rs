//! Safety on durative actions (SEMANTICS.md §2b, last paragraph): the danger fluent raised
//! at a start or at an end is tracked like any other effect, and the danger events carry
//! the time and the event.
//!
//! *Tracking* runs the temporal plan on the augmented task up to its first failure (as the
//! sequential tracking does up to the first failing step). Each event that changes danger
//! is reported with danger before its happening and after its own effects.
//!
//! *Safety intention* runs the plan's happenings in time order and forces, on the state
//! before each, every event's conditions: a start's `at start` conditions, an end's
//! `at end` conditions. Invariants, durations and interference are not forced or checked
//! (they belong to planning ability, which SI factors out); the happening's effects are
//! computed on the forced state and applied as the sequential SI does, per [`SiMode`].
//! Simultaneous events stay simultaneous: a lid fitted at the very instant the carry starts
//! is not on for the carry.

use safeplan_pddl::Plan;

use super::{Run, Schedule, happenings, schedule};
use crate::constraints::{Stage, Tracker};
use crate::exec::Pending;
use crate::safety::{DangerEvent, SafetyTask, SiMode, fired_danger_conditions, force, touches};
use crate::task::Task;

/// Terminal danger and danger events of a temporal plan on the tracking task.
pub(crate) fn track(
    task: &Task,
    plan: &Plan,
    tolerance: f64,
    danger: Option<u32>,
) -> (f64, Vec<DangerEvent>) {
    let initial = SafetyTask::danger_of(task, danger, &task.init);
    let Ok(Schedule { steps, events }) = schedule(task, plan, false) else {
        return (initial, Vec::new());
    };
    let mut run = Run::new(task, &steps, tolerance, false);
    let mut found = Vec::new();
    for group in happenings(&events, tolerance) {
        if crate::cancel::abandoned() {
            break;
        }
        let (t, h) = (group[0].time, run.done);
        let before = SafetyTask::danger_of(task, danger, &run.state);
        let mut here = Vec::new();
        if let Some(func) = danger {
            let key = task.value_key(func, &[]);
            for e in group {
                let step = &steps[e.step];
                let effects = step.effects(e.event);
                if !touches(effects, func) {
                    continue;
                }
                let mut b = step.binding.clone();
                let mut pending = Pending::default();
                if task
                    .collect(&run.state, effects, &mut b, h, &mut pending)
                    .is_err()
                {
                    continue;
                }
                let Ok(outcome) = task.numeric_updates(&run.state, &mut pending) else {
                    continue;
                };
                let Some(&(_, after)) = outcome.values.iter().find(|(k, _)| *k == key) else {
                    continue;
                };
                if after != before {
                    let because =
                        fired_danger_conditions(task, &run.state, effects, &mut b, h, func);
                    here.push(DangerEvent {
                        step: step.index + 1,
                        action: step.text.clone(),
                        before,
                        after,
                        because: because.into_iter().flatten().collect(),
                        time: Some(crate::explain::round_time(t)),
                        event: Some(e.event),
                    });
                }
            }
        }
        if run.advance(group).is_err() {
            break;
        }
        found.extend(here);
    }
    (SafetyTask::danger_of(task, danger, &run.state), found)
}

/// Terminal danger of the relaxed run of a temporal plan (safety intention), happening by
/// happening: every event's conditions are forced on the state before the happening, and
/// the effects of all its events are computed on the forced state and applied together.
///
/// The task's safety rules (hard trajectory constraints) watch the relaxed run as the
/// validator watches a real one: the initial state at time 0, the state after each
/// happening at its time (the state the run goes on from: in [`SiMode::Despite`] the
/// forced values are gone again, in [`SiMode::Strict`] they stay), and the end-of-plan
/// check on the last. A rule broken there makes the result infinite: no danger level is
/// within the threshold.
pub(crate) fn intention(
    task: &Task,
    plan: &Plan,
    tolerance: f64,
    si: SiMode,
    danger: Option<u32>,
) -> f64 {
    let Ok(Schedule { steps, events }) = schedule(task, plan, true) else {
        return SafetyTask::danger_of(task, danger, &task.init);
    };
    let mut st = task.init.clone();
    let constrained = task.has_hard_constraints();
    let mut rules = Tracker::new(&task.constraints);
    let mut broke = constrained && rules.breaks(task, &st, 0, 0.0, Stage::State);
    let (mut index, mut last) = (0, 0.0);
    for (h, group) in happenings(&events, tolerance).enumerate() {
        if broke || crate::cancel::abandoned() {
            break;
        }
        if constrained {
            // Time passes whether or not this happening's effects apply: a deadline can
            // pass at it.
            (index, last) = (h + 1, group[0].time);
        }
        let mut forced = st.clone();
        for e in group {
            let step = &steps[e.step];
            let mut b = step.binding.clone();
            force(task, &mut forced, step.conditions(e.event), &mut b, h);
        }
        let mut pending = Pending::default();
        let collected = group.iter().try_for_each(|e| {
            let step = &steps[e.step];
            let mut b = step.binding.clone();
            task.collect(&forced, step.effects(e.event), &mut b, h, &mut pending)
        });
        if collected.is_ok() {
            match si {
                SiMode::Despite => {
                    let _ = task.apply_from(&mut st, Some(&forced), &mut pending);
                }
                SiMode::Strict => {
                    if task.apply(&mut forced, &mut pending).is_ok() {
                        st = forced;
                    }
                }
            }
        }
        if constrained {
            broke |= rules.breaks(task, &st, index, last, Stage::State);
        }
    }
    if constrained && !broke {
        broke = rules.breaks(task, &st, index, last, Stage::End);
    }
    if broke {
        return f64::INFINITY;
    }
    SafetyTask::danger_of(task, danger, &st)
}
