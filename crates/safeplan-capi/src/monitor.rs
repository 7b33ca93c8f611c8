//! Monitors for a robot's execution loop: may this action run now, and run it. On a safety
//! task they run the task that counts danger and refuse an event that would raise it past the
//! task's bound, saying how. A monitor owns its state and its reference to the task; it
//! belongs to one thread at a time.

use std::ffi::{c_char, c_double};
use std::sync::Arc;

use safeplan_pddl::{Plan, PlanStep, parse_plan};
use safeplan_validate::{
    DEFAULT_TOLERANCE, GroundAction, Monitor, MonitorParts, Task, TimedError, TimedMonitor,
};
use serde_json::json;

use crate::error::{Error, guard, text};
use crate::verdict::{Refusal, safeplan_verdict};
use crate::{Compiled, safeplan_error, safeplan_task, task_ref};

/// One step from an action's text: `(move a b)` (or `move a b`).
fn one_step(action: &str) -> Result<PlanStep, Error> {
    let trimmed = action.trim();
    let wrapped;
    let source = if trimmed.starts_with('(') {
        trimmed
    } else {
        wrapped = format!("({trimmed})");
        &wrapped
    };
    let parsed = parse_plan(source);
    if let Some(e) = Error::first_of(&parsed.diagnostics, source, "action") {
        return Err(e);
    }
    let mut plan = parsed.value.unwrap_or_default();
    match (plan.steps.len(), plan.steps.pop()) {
        (1, Some(step)) => Ok(step),
        _ => Err(Error::NotOneStep(action.to_string())),
    }
}

/// The danger after a trial, against the bound: the refusal when it is past it.
fn danger_refusal(c: &Compiled, before: f64, after: f64, what: &str) -> Option<Refusal> {
    let safety = c.safety.as_ref()?;
    let bound = safety.threshold();
    (after > bound && after > before).then(|| {
        Refusal::Unsafe(format!(
            "{what} would raise danger {before} -> {after}, past the task's bound {bound}"
        ))
    })
}

fn danger(task: &Task, state: &safeplan_validate::State) -> f64 {
    task.value(state, "danger", &[]).unwrap_or(0.0)
}

/// A step-by-step monitor of a sequential task, at its initial state.
pub struct safeplan_monitor {
    compiled: Arc<Compiled>,
    /// The execution so far; `None` only while a call has it.
    parts: Option<MonitorParts>,
    /// The steps applied, for explaining danger with the library's own reasons.
    applied: Vec<PlanStep>,
}

/// A step-by-step monitor of `task` at its initial state (for a robot's execution loop).
/// NULL and `*err` set on a NULL task, or on a task with durative actions (use
/// `safeplan_timed_monitor_new`).
///
/// # Safety
/// `task` is NULL or a live task; `err` is NULL or points to a `safeplan_error *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_monitor_new(
    task: *const safeplan_task,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_monitor {
    guard(err, std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let c = unsafe { task_ref(task)? };
        if c.task.is_temporal() {
            return Err(Error::Unsupported(
                "the task has durative actions: use safeplan_timed_monitor_new".into(),
            ));
        }
        // SAFETY: task_ref checked it is not NULL.
        let compiled = unsafe { &*task }.inner.clone();
        let parts = Monitor::new(compiled.executed()).into_parts();
        Ok(Box::into_raw(Box::new(safeplan_monitor {
            compiled,
            parts: Some(parts),
            applied: Vec::new(),
        })))
    })
}

impl safeplan_monitor {
    /// Check `action` now; with `apply`, run it when allowed.
    fn event(&mut self, action: &str, apply: bool) -> Result<*mut safeplan_verdict, Error> {
        let step = one_step(action)?;
        let compiled = self.compiled.clone();
        let task = compiled.executed();
        let text = step.text();
        let number = self.applied.len() + 1;
        let parts = self
            .parts
            .take()
            .ok_or_else(|| Error::Panic("the monitor lost its state".into()))?;
        let mut monitor = Monitor::from_parts(task, parts);
        let ground: Result<GroundAction, _> = task.ground_step(&step);
        let mut refusal: Option<Refusal>;
        let mut danger_after = None;
        match ground {
            Err(f) => refusal = Some(Refusal::Infeasible(Box::new(f))),
            Ok(g) => {
                let mut trial = monitor.clone();
                match trial.apply(&g) {
                    Err(f) => refusal = Some(Refusal::Infeasible(Box::new(f))),
                    Ok(()) => {
                        let (before, after) =
                            (danger(task, monitor.state()), danger(task, trial.state()));
                        danger_after = Some(after);
                        refusal = danger_refusal(&compiled, before, after, &text);
                        if let (Some(Refusal::Unsafe(why)), Some(safety)) =
                            (&mut refusal, &compiled.safety)
                        {
                            // The library's reasons for the rise, from its verdict on the
                            // steps so far and this one.
                            let mut plan = Plan {
                                steps: self.applied.clone(),
                                cost: None,
                            };
                            plan.steps.push(step.clone());
                            let verdict = safety.evaluate(&plan);
                            if let Some(e) = verdict
                                .danger_events
                                .iter()
                                .rev()
                                .find(|e| e.step == number)
                            {
                                *why = format!("{}; {why}", e.sentence("->"));
                            }
                        }
                        if refusal.is_none() && apply {
                            monitor = trial;
                            self.applied.push(step.clone());
                        }
                    }
                }
            }
        }
        self.parts = Some(monitor.into_parts());
        let extra = json!({ "danger": danger_after, "applied": apply && refusal.is_none() });
        Ok(Box::into_raw(Box::new(safeplan_verdict::of_event(
            &text, number, refusal, extra,
        ))))
    }
}

/// May `action` (`(name arg ...)`) run now? A verdict: valid when it may (its preconditions
/// hold, no hard constraint breaks, and on a safety task danger stays within the bound),
/// else refused with why. The monitor's state does not change. NULL and `*err` set when
/// `action` is not one step.
///
/// # Safety
/// `m` is NULL or a live monitor used by no other thread; `action` is NULL or a
/// NUL-terminated string; `err` is NULL or points to a `safeplan_error *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_monitor_check(
    m: *mut safeplan_monitor,
    action: *const c_char,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_verdict {
    // SAFETY: the caller's contract.
    unsafe { call(m, action, err, |m, action| m.event(action, false)) }
}

/// Run `action` when `safeplan_monitor_check` would allow it; a refused action changes
/// nothing. The verdict says which.
///
/// # Safety
/// As `safeplan_monitor_check`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_monitor_apply(
    m: *mut safeplan_monitor,
    action: *const c_char,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_verdict {
    // SAFETY: the caller's contract.
    unsafe { call(m, action, err, |m, action| m.event(action, true)) }
}

/// Free a monitor (NULL is accepted).
///
/// # Safety
/// `m` is NULL or a monitor this library returned, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_monitor_free(m: *mut safeplan_monitor) {
    if !m.is_null() {
        // SAFETY: made by `Box::into_raw` in this library, freed once.
        drop(unsafe { Box::from_raw(m) });
    }
}

/// Run a monitor's event under the guard: the monitor and the action text checked, NULL and
/// non-UTF-8 as errors.
///
/// # Safety
/// `m` is NULL or a live monitor used by no other thread; `action` is NULL or a
/// NUL-terminated string; `err` is NULL or points to a `safeplan_error *`.
unsafe fn call<M>(
    m: *mut M,
    action: *const c_char,
    err: *mut *mut safeplan_error,
    f: impl FnOnce(&mut M, &str) -> Result<*mut safeplan_verdict, Error>,
) -> *mut safeplan_verdict {
    guard(err, std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let (m, action) = unsafe {
            (
                m.as_mut().ok_or(Error::Null("monitor"))?,
                text(action, "action")?,
            )
        };
        f(m, action)
    })
}

type Timed<'a> = TimedMonitor<'a>;

self_cell::self_cell!(
    /// A timed monitor and the task it borrows.
    struct TimedCell {
        owner: Arc<Compiled>,
        #[covariant]
        dependent: Timed,
    }
);

/// A monitor of durative actions: ask before each start and each end.
pub struct safeplan_timed_monitor {
    cell: TimedCell,
    /// Starts allowed so far: the next start is the plan's step `started + 1`.
    started: usize,
}

/// A timed monitor of `task` (a domain with durative actions) at time 0, with VAL's default
/// tolerance. NULL and `*err` set on a NULL task.
///
/// # Safety
/// `task` is NULL or a live task; `err` is NULL or points to a `safeplan_error *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_timed_monitor_new(
    task: *const safeplan_task,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_timed_monitor {
    guard(err, std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        unsafe { task_ref(task)? };
        // SAFETY: task_ref checked it is not NULL.
        let compiled = unsafe { &*task }.inner.clone();
        let cell = TimedCell::new(compiled, |c| {
            TimedMonitor::new(c.executed(), DEFAULT_TOLERANCE)
        });
        Ok(Box::into_raw(Box::new(safeplan_timed_monitor {
            cell,
            started: 0,
        })))
    })
}

impl safeplan_timed_monitor {
    fn event(
        &mut self,
        action: &str,
        time: f64,
        start: bool,
    ) -> Result<*mut safeplan_verdict, Error> {
        if !time.is_finite() || time < 0.0 {
            return Err(Error::Timing(format!(
                "the time {time} is not a time of the plan: give a finite number, 0 or more"
            )));
        }
        let step = one_step(action)?;
        let text = step.text();
        let compiled = self.cell.borrow_owner().clone();
        let task = compiled.executed();
        let ground = match task.ground_step(&step) {
            Ok(g) => g,
            Err(f) => {
                return Ok(Box::into_raw(Box::new(safeplan_verdict::of_event(
                    &text,
                    0,
                    Some(Refusal::Infeasible(Box::new(f))),
                    json!({ "time": time, "event": if start { "start" } else { "end" } }),
                ))));
            }
        };
        let started = &mut self.started;
        self.cell.with_dependent_mut(|_, monitor| {
            let before = danger(task, monitor.state());
            let mut trial = monitor.clone();
            // The plan's step number of the action: a start is the next step in dispatch
            // order; an end, the step that started it.
            let mut number = *started + 1;
            let outcome = if start {
                trial.start(&ground, time).map(|id| number = id.number())
            } else {
                let id = monitor
                    .running()
                    .filter(|(_, g, _)| **g == ground)
                    .min_by(|a, b| a.2.total_cmp(&b.2))
                    .map(|(id, _, _)| id)
                    .ok_or_else(|| Error::NotRunning(text.clone()))?;
                number = id.number();
                trial.end(id, time)
            };
            let refusal = match outcome {
                Err(TimedError::Refused(f)) => Some(Refusal::Infeasible(f)),
                Err(other) => return Err(Error::Timing(other.to_string())),
                Ok(()) => {
                    let after = danger(task, trial.state());
                    let what = format!(
                        "{} {text} at {time}",
                        if start { "starting" } else { "ending" }
                    );
                    danger_refusal(&compiled, before, after, &what)
                }
            };
            let allowed = refusal.is_none();
            if allowed {
                *monitor = trial;
                if start {
                    *started += 1;
                }
            }
            let extra = json!({
                "time": time,
                "event": if start { "start" } else { "end" },
                "danger": danger(task, monitor.state()),
                "applied": allowed,
            });
            Ok(Box::into_raw(Box::new(safeplan_verdict::of_event(
                &text, number, refusal, extra,
            ))))
        })
    }
}

/// Start durative `action` at `time` if allowed now (its `at start` condition, the `over
/// all` conditions of the actions running, its effects' interference, and on a safety task
/// the danger bound); a refused start changes nothing. The verdict says which. Times must
/// not go back, nor be negative or not finite (an error, `timing`). The verdict's step is
/// the plan's step number of the action (its place in dispatch order).
///
/// # Safety
/// `m` is NULL or a live timed monitor used by no other thread; `action` is NULL or a
/// NUL-terminated string; `err` is NULL or points to a `safeplan_error *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_timed_monitor_start(
    m: *mut safeplan_timed_monitor,
    action: *const c_char,
    time: c_double,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_verdict {
    // SAFETY: the caller's contract.
    unsafe { call(m, action, err, |m, action| m.event(action, time, true)) }
}

/// End the running `action` (the earliest started, when it runs more than once) at `time`
/// if allowed now (its `at end` condition and duration); a refused end changes nothing. An
/// action that is not running is an error (`not-running`).
///
/// # Safety
/// As `safeplan_timed_monitor_start`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_timed_monitor_end(
    m: *mut safeplan_timed_monitor,
    action: *const c_char,
    time: c_double,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_verdict {
    // SAFETY: the caller's contract.
    unsafe { call(m, action, err, |m, action| m.event(action, time, false)) }
}

/// Free a timed monitor (NULL is accepted).
///
/// # Safety
/// `m` is NULL or a timed monitor this library returned, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_timed_monitor_free(m: *mut safeplan_timed_monitor) {
    if !m.is_null() {
        // SAFETY: made by `Box::into_raw` in this library, freed once.
        drop(unsafe { Box::from_raw(m) });
    }
}
