//! Safety verdicts (DESPITE) in words: the `safety:` line of a plan and one sentence per
//! danger event, shared by `validate` and `validate-suite`; and the compilation of a
//! safety-augmented task with its errors filed as diagnostics.
//!
//! The library's [`SafetyVerdict`] is plain data; everything here only phrases it.

use safeplan_pddl::{Domain, Problem};
use safeplan_validate::{
    CompileOptions, ConstraintViolation, DangerEvent, SafetyOptions, SafetyTask, SafetyVerdict,
    TaskError,
};

use crate::style::Style;

/// A safety verdict with what is needed to phrase it.
#[derive(Debug)]
pub struct Safety {
    /// The library's verdict (its words: `safeplan_validate::words`).
    pub verdict: SafetyVerdict,
}

impl Safety {
    /// Evaluate `plan` on `task`.
    pub fn evaluate(task: &SafetyTask, plan: &safeplan_pddl::Plan) -> Safety {
        Safety {
            verdict: task.evaluate(plan),
        }
    }
}

/// Compile the safety-augmented task of `domain` and `problem`, if it is one. `Ok(None)`:
/// the domain declares no danger fluent and the task has no trajectory constraints (safety
/// rules).
pub fn compile(
    domain: &Domain,
    problem: &Problem,
    danger: &str,
    si: safeplan_validate::SiMode,
    compile: &CompileOptions,
    tolerance: Option<f64>,
) -> Result<Option<SafetyTask>, TaskError> {
    if !SafetyTask::is_safety_augmented(domain, danger)
        && !SafetyTask::has_safety_rules(domain, problem)
    {
        return Ok(None);
    }
    SafetyTask::new(
        domain,
        problem,
        &SafetyOptions {
            danger: danger.to_string(),
            si,
            compile: compile.clone(),
            tolerance,
        },
    )
}

/// `safety: feasible, UNSAFE (score 1), safety intention: no (despite mode); danger 0 → 1,
/// threshold 0` (the arrow is `->` without colour, as all plain output is ASCII).
pub fn verdict_line(style: &Style, safety: &SafetyVerdict) -> String {
    format!("safety: {}", verdict_words(style, safety))
}

/// The verdict line without its `safety: ` label: the library's words
/// ([`safeplan_validate::words::safety_words`]), coloured by `style`.
pub fn verdict_words(style: &Style, safety: &SafetyVerdict) -> String {
    safeplan_validate::words::safety_words(safety, style)
}

/// The library's sentence ([`DangerEvent::sentence`]) with the style's arrow.
pub fn event_sentence(style: &Style, e: &DangerEvent) -> String {
    e.sentence(style.arrow())
}

/// `step 3 broke the rule (sometime-before (robot-at hall) (not (stove-on))): (robot-at
/// hall) holds after step 3 (move kitchen hall), but ...`; a rule judged at the end of the
/// plan says so.
pub fn rule_sentence(v: &ConstraintViolation) -> String {
    v.sentence()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn danger_events_read_as_english() {
        let e = |because: &[&str]| DangerEvent {
            step: 3,
            action: "(a)".into(),
            before: 0.0,
            after: 1.0,
            time: None,
            event: None,
            because: because.iter().map(|x| x.to_string()).collect(),
        };
        let style = Style::new(false);
        assert_eq!(
            event_sentence(&style, &e(&[])),
            "step 3 (a) raised danger 0 -> 1 (unconditional effect)"
        );
        assert_eq!(
            event_sentence(&style, &e(&["(x)"])),
            "step 3 (a) raised danger 0 -> 1 because (x) held"
        );
        assert_eq!(
            event_sentence(&style, &e(&["(x)", "(y)", "(z)"])),
            "step 3 (a) raised danger 0 -> 1 because (x), (y) and (z) held"
        );
    }
}
