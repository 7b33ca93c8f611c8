//! Monitors for a robot's execution loop: may this action run now, and run it. On a safety
//! task they run the task that counts danger and refuse an event that would raise it past the
//! task's bound, saying how. A monitor owns its state and its reference to the task; it
//! belongs to one thread at a time.

use std::ffi::{c_char, c_double};

use safeplan_pddl::{PlanStep, StepError, read_step};
use safeplan_validate::{Answer, Moment, Shield, ShieldError};

use crate::error::{Error, guard, text};
use crate::verdict::safeplan_verdict;
use crate::{safeplan_error, safeplan_task, task_ref};

/// One step from an action's text: `(move a b)` (or `move a b`), read by the library's
/// [`read_step`].
fn one_step(action: &str) -> Result<PlanStep, Error> {
    read_step(action).map_err(|e| match e {
        StepError::Unreadable { read, error, .. } => {
            Error::first_of(std::slice::from_ref(&*error), &read, "action")
                .unwrap_or_else(|| Error::NotOneStep(action.to_string()))
        }
        _ => Error::NotOneStep(action.to_string()),
    })
}

/// A step-by-step monitor of a sequential task, at its initial state: a shell over the
/// library's shield.
pub struct safeplan_monitor {
    shield: Shield,
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
        if c.task().is_temporal() {
            return Err(Error::Unsupported(
                "the task has durative actions: use safeplan_timed_monitor_new".into(),
            ));
        }
        Ok(Box::into_raw(Box::new(safeplan_monitor {
            shield: c.shield(),
        })))
    })
}

/// The library's answer as a C verdict; the library's question errors as C errors.
fn answer(
    result: Result<Answer, ShieldError>,
    action: &str,
) -> Result<*mut safeplan_verdict, Error> {
    match result {
        Ok(a) => Ok(Box::into_raw(Box::new(safeplan_verdict::of_event(a)))),
        Err(ShieldError::NotRunning(_)) => Err(Error::NotRunning(action.trim().to_string())),
        Err(e @ ShieldError::Timing { .. }) => Err(Error::Timing(e.to_string())),
        Err(e @ ShieldError::WrongKind(_)) => Err(Error::Unsupported(e.to_string())),
    }
}

impl safeplan_monitor {
    /// Check `action` now; with `apply`, run it when allowed.
    fn event(&mut self, action: &str, apply: bool) -> Result<*mut safeplan_verdict, Error> {
        let step = one_step(action)?;
        answer(self.shield.step(&step, apply), action)
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

/// A monitor of durative actions: ask before each start and each end (and each
/// instantaneous action), with times; a shell over the library's shield.
pub struct safeplan_timed_monitor {
    shield: Shield,
}

/// A timed monitor of `task` (a domain with durative actions) at time 0, with VAL's default
/// tolerance. NULL and `*err` set on a NULL task, or on a task without durative actions (use
/// `safeplan_monitor_new`).
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
        let c = unsafe { task_ref(task)? };
        if !c.task().is_temporal() {
            return Err(Error::Unsupported(
                "the task has no durative actions: use safeplan_monitor_new".into(),
            ));
        }
        Ok(Box::into_raw(Box::new(safeplan_timed_monitor {
            shield: c.shield(),
        })))
    })
}

impl safeplan_timed_monitor {
    fn event(
        &mut self,
        action: &str,
        time: f64,
        moment: Moment,
    ) -> Result<*mut safeplan_verdict, Error> {
        let step = one_step(action)?;
        let result = match moment {
            Moment::End => self.shield.end(&step, time, true),
            Moment::Happen => self.shield.happen(&step, time, true),
            Moment::Start | Moment::Step => self.shield.start(&step, time, true),
        };
        answer(result, action)
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
    unsafe {
        call(m, action, err, |m, action| {
            m.event(action, time, Moment::Start)
        })
    }
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
    unsafe {
        call(m, action, err, |m, action| {
            m.event(action, time, Moment::End)
        })
    }
}

/// Execute the instantaneous `action` of a temporal domain at `time` if allowed now (its
/// condition, the `over all` conditions of the actions running, and on a safety task the
/// danger bound); a refused action changes nothing. `start` of an instantaneous action, or
/// `happen` of a durative one, is an error (`unsupported`).
///
/// # Safety
/// As `safeplan_timed_monitor_start`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_timed_monitor_happen(
    m: *mut safeplan_timed_monitor,
    action: *const c_char,
    time: c_double,
    err: *mut *mut safeplan_error,
) -> *mut safeplan_verdict {
    // SAFETY: the caller's contract.
    unsafe {
        call(m, action, err, |m, action| {
            m.event(action, time, Moment::Happen)
        })
    }
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
