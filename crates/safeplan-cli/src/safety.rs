//! The safety-augmented task (DESPITE) of a domain and problem, as `validate` and
//! `validate-suite` compile it from their options. Its verdicts are worded by the library
//! (`safeplan_validate::words`), in the CLI's colours (`crate::style`).

use safeplan_pddl::{Domain, Problem};
use safeplan_validate::{CompileOptions, SafetyOptions, SafetyTask, TaskError};

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

#[cfg(test)]
mod tests {
    use safeplan_validate::DangerEvent;

    use crate::style::Style;

    /// The library's words for a danger event, with the CLI's plain arrow.
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
            e(&[]).sentence(style.arrow()),
            "step 3 (a) raised danger 0 -> 1 (unconditional effect)"
        );
        assert_eq!(
            e(&["(x)"]).sentence(style.arrow()),
            "step 3 (a) raised danger 0 -> 1 because (x) held"
        );
        assert_eq!(
            e(&["(x)", "(y)", "(z)"]).sentence(style.arrow()),
            "step 3 (a) raised danger 0 -> 1 because (x), (y) and (z) held"
        );
    }
}
