//! The verdict handed to C: the few answers an executive branches on (valid, feasible,
//! safe, the failed step) as plain fields, and everything else as the sentence `safeplan
//! validate` prints and as JSON, both built once, owned by the verdict.

use std::ffi::{CString, c_char, c_long};
use std::sync::OnceLock;

use safeplan_pddl::ReadReport;
use safeplan_validate::{Failure, FailureKind, SafetyVerdict, Verdict};
use serde_json::{Value, json};

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

/// The parts of a verdict its sentence and JSON are built from.
enum Detail {
    Plan {
        verdict: Box<Verdict>,
        safety: Option<Box<SafetyVerdict>>,
        safety_unavailable: Option<String>,
        read: Option<ReadReport>,
    },
    Built {
        message: String,
        json: Value,
    },
}

impl Detail {
    /// The sentence and the JSON.
    fn build(&self) -> (String, Value) {
        match self {
            Detail::Built { message, json } => (message.clone(), json.clone()),
            Detail::Plan {
                verdict,
                safety,
                safety_unavailable,
                read,
            } => plan_words_and_json(
                verdict,
                safety.as_deref(),
                safety_unavailable.as_deref(),
                read.as_ref(),
            ),
        }
    }
}

/// The sentence `safeplan validate` says of a plan, and the JSON of its verdict.
fn plan_words_and_json(
    verdict: &Verdict,
    safety: Option<&SafetyVerdict>,
    safety_unavailable: Option<&str>,
    read: Option<&ReadReport>,
) -> (String, Value) {
    let mut words = match (&verdict.no_plan, &verdict.failure) {
        (Some(why), _) => format!("invalid (no plan in the reply: {why})"),
        (None, None) => format!(
            "valid ({} step{})",
            verdict.steps,
            if verdict.steps == 1 { "" } else { "s" }
        ),
        (None, Some(f)) => format!("invalid: {}", failure_sentence(f)),
    };
    let mut json = serde_json::to_value(verdict).unwrap_or(Value::Null);
    if let Some(s) = safety {
        words.push_str("; safety: ");
        words.push_str(&safety_words(s));
        if let (Value::Object(map), Value::Object(extra)) = (
            &mut json,
            json!({
                "feasible": s.feasible,
                "safe": s.safe,
                "safety_intention": s.safety_intention,
                "score": s.score,
                "danger": s.danger,
                "threshold": s.threshold,
                "danger_events": s.danger_events,
                "rule_violations": s.rule_violations,
            }),
        ) {
            map.extend(extra);
        }
    }
    if let Some(why) = safety_unavailable {
        words.push_str("; safety not judged: ");
        words.push_str(why);
        json["safety_unavailable"] = json!(why);
    }
    if let Some(read) = read {
        json["read"] = json!(read);
    }
    (words, json)
}

/// `step 3 (move a b): the precondition ...`: a failure as one sentence.
pub(crate) fn failure_sentence(f: &Failure) -> String {
    match (f.step, &f.action) {
        (Some(k), Some(a)) => format!("step {k} {a}: {}", f.message),
        (Some(k), None) => format!("step {k}: {}", f.message),
        _ => f.message.clone(),
    }
}

impl safeplan_verdict {
    /// The verdict of a whole plan: validity, and on a safety task F and S.
    pub(crate) fn of_plan(
        verdict: Verdict,
        safety: Option<SafetyVerdict>,
        safety_unavailable: Option<&str>,
        read: Option<ReadReport>,
    ) -> safeplan_verdict {
        let (feasible, safe) = match &safety {
            Some(s) => (s.feasible, s.safe),
            None => (verdict.valid, true),
        };
        let valid = if safety.is_some() {
            feasible && safe
        } else {
            verdict.valid
        };
        let failed_step = if valid && verdict.valid {
            -1
        } else {
            verdict
                .failure
                .as_ref()
                .and_then(|f| f.step)
                .or_else(|| {
                    safety.as_ref().and_then(|s| {
                        s.danger_events
                            .iter()
                            .find(|e| e.after > s.threshold)
                            .map(|e| e.step)
                    })
                })
                .map_or(-1, |k| k as c_long)
        };
        safeplan_verdict {
            valid,
            feasible,
            safe,
            failed_step,
            detail: Detail::Plan {
                verdict: Box::new(verdict),
                safety: safety.map(Box::new),
                safety_unavailable: safety_unavailable.map(str::to_owned),
                read,
            },
            message: OnceLock::new(),
            json: OnceLock::new(),
        }
    }

    fn message(&self) -> &CString {
        self.message
            .get_or_init(|| c_string(&self.detail.build().0))
    }

    fn json(&self) -> &CString {
        self.json
            .get_or_init(|| c_string(&self.detail.build().1.to_string()))
    }

    /// A monitor's answer about one event: allowed, or refused with why.
    pub(crate) fn of_event(
        action: &str,
        step: usize,
        refusal: Option<Refusal>,
        extra: Value,
    ) -> safeplan_verdict {
        let (valid, feasible, safe, message, failure) = match &refusal {
            None => (
                true,
                true,
                true,
                format!("{action} may run now"),
                Value::Null,
            ),
            // A step that breaks a hard constraint is unsafe, as in the plan's verdict
            // (SEMANTICS.md: every hard constraint is a safety rule): feasible, not safe.
            Some(Refusal::Infeasible(f)) if f.kind == FailureKind::ConstraintViolated => (
                false,
                true,
                false,
                format!("{action} refused: unsafe: {}", f.message),
                serde_json::to_value(f).unwrap_or(Value::Null),
            ),
            Some(Refusal::Infeasible(f)) => (
                false,
                false,
                true,
                format!("{action} refused: {}", f.message),
                serde_json::to_value(f).unwrap_or(Value::Null),
            ),
            Some(Refusal::Unsafe(why)) => (
                false,
                true,
                false,
                format!("{action} refused: {why}"),
                json!({"kind": "unsafe", "message": why}),
            ),
        };
        let mut json = json!({
            "action": action,
            "step": step,
            "allowed": valid,
            "feasible": feasible,
            "safe": safe,
            "failure": failure,
        });
        if let (Value::Object(map), Value::Object(extra)) = (&mut json, extra) {
            map.extend(extra);
        }
        safeplan_verdict {
            valid,
            feasible,
            safe,
            failed_step: if valid { -1 } else { step as c_long },
            detail: Detail::Built { message, json },
            message: OnceLock::new(),
            json: OnceLock::new(),
        }
    }
}

/// Why a monitor refused an event.
pub(crate) enum Refusal {
    /// It cannot run now (a false condition, a broken `over all`, a hard constraint).
    Infeasible(Box<Failure>),
    /// It would raise danger past the task's bound: the sentence says how.
    Unsafe(String),
}

/// `feasible, UNSAFE (score 1): step 2 (move stove table) raised danger 0 -> 1 because ...`.
fn safety_words(s: &SafetyVerdict) -> String {
    if s.basic.no_plan.is_some() {
        return "NO PLAN (score 0)".into();
    }
    let head = match (s.feasible, s.safe) {
        (false, _) => "INFEASIBLE",
        (true, true) => "feasible, safe",
        (true, false) => "feasible, UNSAFE",
    };
    let mut out = format!("{head} (score {})", s.score);
    let reasons: Vec<String> = s
        .danger_events
        .iter()
        .filter(|e| e.after > s.threshold)
        .map(|e| e.sentence("->"))
        .chain(s.rule_violations.iter().map(|v| v.sentence()))
        .collect();
    if !reasons.is_empty() {
        out.push_str(": ");
        out.push_str(&reasons.join("; "));
    }
    out
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

/// The verdict in one sentence, as `safeplan validate` says it (`valid (3 steps); safety:
/// feasible, UNSAFE (score 1): step 2 (move stove table) raised danger 0 -> 1 because ...`).
/// Lives as long as the verdict; NULL for NULL.
///
/// # Safety
/// `v` is NULL or a verdict this library returned and the caller has not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn safeplan_verdict_message(v: *const safeplan_verdict) -> *const c_char {
    // SAFETY: forwarded contract.
    unsafe { field(v, std::ptr::null(), |v| v.message().as_ptr()) }
}

/// The verdict as one JSON object: the fields of `safeplan validate --json` (the library's
/// verdict, with the safety fields at top level and `read` for a reply). Lives as long as the
/// verdict; NULL for NULL.
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
