//! The verdict handed to C: the few answers an executive branches on (valid, feasible,
//! safe, the failed step) as plain fields, and everything else as the library's sentence and
//! JSON (`safeplan_validate::Assessment` for a plan, `safeplan_validate::Answer` for a
//! monitor's event), both built once, owned by the verdict. No rule of its own: what valid,
//! feasible, safe and the failed step mean is the library's.

use std::ffi::{CString, c_char, c_long};
use std::sync::OnceLock;

use safeplan_validate::{Answer, Assessment};

use crate::error::c_string;

/// The verdict of a plan, or of one event a monitor was asked about. Free it with
/// `safeplan_verdict_free`.
pub struct safeplan_verdict {
    valid: bool,
    feasible: bool,
    safe: bool,
    failed_step: c_long,
    /// What the sentence and the JSON are made of, built on first use: an executive that
    /// only branches on `valid` does not pay for them.
    detail: Detail,
    message: OnceLock<CString>,
    json: OnceLock<CString>,
}

/// The library's answer the sentence and JSON come from.
enum Detail {
    Plan(Box<Assessment>),
    Event(Box<Answer>),
}

impl Detail {
    fn sentence(&self) -> String {
        match self {
            Detail::Plan(a) => a.sentence(),
            Detail::Event(a) => a.sentence(),
        }
    }

    fn json(&self) -> String {
        let json = match self {
            Detail::Plan(a) => serde_json::to_string(&a.json()),
            Detail::Event(a) => serde_json::to_string(a),
        };
        // Plain data with string keys: serialising it cannot fail.
        json.unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

impl safeplan_verdict {
    /// The verdict of a whole plan: validity, and on a safety task F and S.
    pub(crate) fn of_plan(a: Assessment) -> safeplan_verdict {
        safeplan_verdict {
            valid: a.valid(),
            feasible: a.feasible(),
            safe: a.safe(),
            failed_step: a.failed_step().map_or(-1, |k| k as c_long),
            detail: Detail::Plan(Box::new(a)),
            message: OnceLock::new(),
            json: OnceLock::new(),
        }
    }

    /// A monitor's answer about one event: allowed, or refused with why.
    pub(crate) fn of_event(a: Answer) -> safeplan_verdict {
        safeplan_verdict {
            valid: a.allowed,
            feasible: a.feasible,
            safe: a.safe,
            failed_step: if a.allowed { -1 } else { a.step as c_long },
            detail: Detail::Event(Box::new(a)),
            message: OnceLock::new(),
            json: OnceLock::new(),
        }
    }

    fn message(&self) -> &CString {
        self.message
            .get_or_init(|| c_string(&self.detail.sentence()))
    }

    fn json(&self) -> &CString {
        self.json.get_or_init(|| c_string(&self.detail.json()))
    }
}

/// The verdict's `field`, or `default` for a NULL verdict.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
unsafe fn field<T>(
    v: *const safeplan_verdict,
    default: T,
    f: impl Fn(&safeplan_verdict) -> T,
) -> T {
    // SAFETY: by this function's contract.
    unsafe { v.as_ref() }.map_or(default, f)
}

/// Whether the plan passes: valid, and on a safety-augmented task feasible **and** safe (as
/// `safeplan validate`'s exit status); for a monitor's answer, whether the event may happen.
/// False for NULL.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_valid(v: *const safeplan_verdict) -> bool {
    // SAFETY: forwarded contract.
    unsafe { field(v, false, |v| v.valid) }
}

/// F: the plan is executable and reaches the goal, danger aside (on a task without safety
/// rules, the same as valid). False for NULL.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_feasible(v: *const safeplan_verdict) -> bool {
    // SAFETY: forwarded contract.
    unsafe { field(v, false, |v| v.feasible) }
}

/// S: no step raises danger past the task's bound and no safety rule is broken (true on a
/// task without safety rules). False for NULL.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_safe(v: *const safeplan_verdict) -> bool {
    // SAFETY: forwarded contract.
    unsafe { field(v, false, |v| v.safe) }
}

/// The 1-based step that failed or was dangerous, −1 when none (or for NULL). For a
/// monitor's refusal, the step number the event would have been.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_failed_step(v: *const safeplan_verdict) -> c_long {
    // SAFETY: forwarded contract.
    unsafe { field(v, -1, |v| v.failed_step) }
}

/// The verdict in one sentence, the library's (`safeplan_validate::Assessment::sentence`,
/// also Python's `Assessment.sentence` and the ROS node's): `invalid: ...; safety: feasible,
/// UNSAFE (score 1), safety intention: no (despite mode); danger 0 -> 1, threshold 0: step 2
/// (move stove table) raised danger 0 -> 1 because ...`. For a monitor's answer, the
/// shield's sentence. Lives as long as the verdict; NULL for NULL.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_message(v: *const safeplan_verdict) -> *const c_char {
    // SAFETY: forwarded contract.
    unsafe { field(v, std::ptr::null(), |v| v.message().as_ptr()) }
}

/// The verdict as one JSON object, the library's assessment JSON (the verdict's fields, the
/// safety fields at top level, `read` for a reply; Python's `Assessment.to_json()` is the
/// same object); for a monitor's answer, the shield's answer. Lives as long as the verdict;
/// NULL for NULL.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_json(v: *const safeplan_verdict) -> *const c_char {
    // SAFETY: forwarded contract.
    unsafe { field(v, std::ptr::null(), |v| v.json().as_ptr()) }
}

/// Free a verdict (NULL is accepted).
///
/// # Safety
/// `v` is NULL or a verdict this library returned, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_free(v: *mut safeplan_verdict) {
    if !v.is_null() {
        // SAFETY: made by `Box::into_raw` in this library, freed once.
        drop(unsafe { Box::from_raw(v) });
    }
}
