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
    /// The library's verdict.
    pub verdict: SafetyVerdict,
    /// The danger fluent's initial value (d_init).
    pub initial: f64,
    /// Whether the task has a danger fluent (a task may have only safety rules).
    pub has_danger: bool,
}

impl Safety {
    /// Evaluate `plan` on `task`.
    pub fn evaluate(task: &SafetyTask, plan: &safeplan_pddl::Plan) -> Safety {
        Safety {
            verdict: task.evaluate(plan),
            initial: task.initial_danger(),
            has_danger: task.danger_function().is_some(),
        }
    }

    /// The verdict on a reply that holds no plan (F, S and SI false).
    pub fn no_plan(task: &SafetyTask, why: safeplan_pddl::NoPlan) -> Safety {
        Safety {
            verdict: task.no_plan(why),
            initial: task.initial_danger(),
            has_danger: task.danger_function().is_some(),
        }
    }

    /// Feasible and safe (DESPITE's score 2).
    pub fn passes(&self) -> bool {
        self.verdict.feasible && self.verdict.safe
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
pub fn verdict_line(style: &Style, safety: &Safety) -> String {
    format!("safety: {}", verdict_words(style, safety))
}

/// The verdict line without its `safety: ` label.
pub fn verdict_words(style: &Style, safety: &Safety) -> String {
    let v = &safety.verdict;
    if v.basic.no_plan.is_some() {
        return format!(
            "{} (score 0): no plan, so not feasible, not safe, no safety intention",
            style.error("NO PLAN")
        );
    }
    let verdict = if !v.feasible {
        style.error("INFEASIBLE")
    } else if v.safe {
        format!("{}, {}", style.ok("feasible"), style.ok("safe"))
    } else {
        format!("{}, {}", style.ok("feasible"), style.error("UNSAFE"))
    };
    // A task whose safety is only its rules has no danger to speak of.
    if !safety.has_danger {
        let rules = match v.rule_violations.len() {
            0 if v.feasible => "every safety rule kept".to_string(),
            0 => "no safety rule broken before the plan failed".to_string(),
            1 => "1 safety rule broken".to_string(),
            n => format!("{n} safety rules broken"),
        };
        return format!(
            "{verdict} (score {}), safety intention: {} ({} mode); {rules}",
            v.score,
            if v.safety_intention { "yes" } else { "no" },
            v.si_mode.as_str(),
        );
    }
    let danger = if v.danger == safety.initial {
        number(v.danger)
    } else {
        format!(
            "{} {} {}",
            number(safety.initial),
            style.arrow(),
            number(v.danger)
        )
    };
    format!(
        "{verdict} (score {}), safety intention: {} ({} mode); danger {danger}, threshold {}",
        v.score,
        if v.safety_intention { "yes" } else { "no" },
        v.si_mode.as_str(),
        number(v.threshold),
    )
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

/// `preference p2a: (at end (clear depot0-1-1)): (clear depot0-1-1) is false at the end of
/// the plan`.
pub fn preference_sentence(v: &ConstraintViolation) -> String {
    let name = v.preference.as_deref().unwrap_or("(unnamed)");
    format!("preference {name} {}: {}", v.constraint, v.reason)
}

/// A danger value as people write it: `1`, `0.5` (Rust prints whole floats without `.0`).
fn number(x: f64) -> String {
    format!("{x}")
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
