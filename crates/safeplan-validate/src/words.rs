//! The one printer of verdict words: what a safety verdict, its reasons and a broken
//! preference say in text. The CLI's report under each plan ([`report_lines`]: its head
//! line, the steps read, the preferences, the `safety:` line and its reasons),
//! `validate-suite`'s lines, and the one sentence of an assessment
//! ([`crate::Assessment::sentence`]: the C API's message, MCP's text, Python's
//! `Assessment.sentence`, the ROS node's) are all written here, so they say the same words.
//! Colour is the caller's: [`Paint`] marks the words a terminal colours, and [`Plain`]
//! leaves them as they are. What only a terminal can draw (a failure's source snippet) is
//! the CLI's.

use safeplan_pddl::Severity;

use crate::assess::{Assessment, failure_sentence};
use crate::safety::SafetyVerdict;
use crate::verdict::{ConstraintViolation, Verdict};

/// How the words that carry the verdict are marked: a terminal colours them, everything
/// else writes them plain ([`Plain`]).
pub trait Paint {
    /// A word that says all is well (`feasible`, `safe`).
    fn good(&self, text: &str) -> String {
        text.to_string()
    }
    /// A word that says something is wrong (`UNSAFE`, `INFEASIBLE`, `NO PLAN`).
    fn bad(&self, text: &str) -> String {
        text.to_string()
    }
    /// The arrow of `danger 0 -> 1` (`->` in plain ASCII text).
    fn arrow(&self) -> &'static str {
        "->"
    }
}

/// Words as they are: ASCII, no colour.
pub struct Plain;

impl Paint for Plain {}

/// A verdict in words: `valid (2 steps)`, `invalid: step 2 (move a b) is not applicable:
/// ...`, `invalid (no plan in the reply: refusal)`.
pub fn verdict_words(v: &Verdict) -> String {
    match (&v.no_plan, &v.failure) {
        (Some(why), _) => format!("invalid (no plan in the reply: {why})"),
        (None, None) => format!(
            "valid ({} step{})",
            v.steps,
            if v.steps == 1 { "" } else { "s" }
        ),
        (None, Some(f)) => format!("invalid: {}", failure_sentence(f)),
    }
}

/// A safety verdict in one sentence: [`safety_words`], then why the plan is unsafe
/// ([`unsafe_reasons`]) after a colon.
pub fn safety_sentence(v: &SafetyVerdict, paint: &dyn Paint) -> String {
    let mut text = safety_words(v, paint);
    let reasons = unsafe_reasons(v, paint);
    if !reasons.is_empty() {
        text.push_str(": ");
        text.push_str(&reasons.join("; "));
    }
    text
}

/// `feasible, UNSAFE (score 1), safety intention: no (despite mode); danger 0 -> 1,
/// threshold 0`; on a task whose safety is only its rules, `...; 1 safety rule broken`; for
/// a reply with no plan, `NO PLAN (score 0): no plan, so not feasible, not safe, no safety
/// intention`.
pub fn safety_words(v: &SafetyVerdict, paint: &dyn Paint) -> String {
    if v.basic.no_plan.is_some() {
        return format!(
            "{} (score 0): no plan, so not feasible, not safe, no safety intention",
            paint.bad("NO PLAN")
        );
    }
    let verdict = if !v.feasible {
        paint.bad("INFEASIBLE")
    } else if v.safe {
        format!("{}, {}", paint.good("feasible"), paint.good("safe"))
    } else {
        format!("{}, {}", paint.good("feasible"), paint.bad("UNSAFE"))
    };
    let intention = format!(
        "{verdict} (score {}), safety intention: {} ({} mode)",
        v.score,
        if v.safety_intention { "yes" } else { "no" },
        v.si_mode.as_str(),
    );
    // A task whose safety is only its rules has no danger to speak of.
    let Some(initial) = v.initial_danger else {
        let rules = match v.rule_violations.len() {
            0 if v.feasible => "every safety rule kept".to_string(),
            0 => "no safety rule broken before the plan failed".to_string(),
            1 => "1 safety rule broken".to_string(),
            n => format!("{n} safety rules broken"),
        };
        return format!("{intention}; {rules}");
    };
    let danger = if v.danger == initial {
        format!("{}", v.danger)
    } else {
        format!("{initial} {} {}", paint.arrow(), v.danger)
    };
    format!("{intention}; danger {danger}, threshold {}", v.threshold)
}

/// Why a plan is unsafe, one sentence each: every step that raised danger past the
/// threshold, then every safety rule it broke.
pub fn unsafe_reasons(v: &SafetyVerdict, paint: &dyn Paint) -> Vec<String> {
    v.danger_events
        .iter()
        .filter(|e| e.after > v.threshold)
        .map(|e| e.sentence(paint.arrow()))
        .chain(v.rule_violations.iter().map(ConstraintViolation::sentence))
        .collect()
}

/// `preference p2a (at end (clear depot0-1-1)): (clear depot0-1-1) is false at the end of
/// the plan`.
pub fn preference_sentence(v: &ConstraintViolation) -> String {
    let name = v.preference.as_deref().unwrap_or("(unnamed)");
    format!("preference {name} {}: {}", v.constraint, v.reason)
}

/// An assessment as a report of several lines: the layout `safeplan validate` prints under
/// each plan's path (the CLI then draws each failure and warning with its source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportLines {
    /// `valid (3 steps, metric 12, 1 warning)`, `invalid (2 steps, 2 failures)`,
    /// `invalid (no plan in the reply: refusal)`.
    pub head: String,
    /// Below the head, each a line: the steps read from a reply; the preferences violated
    /// and why, each; the safety verdict, then each danger event and each safety rule
    /// broken; why safety was not judged.
    pub body: Vec<String>,
    /// Each failure of the validator, then each of its warnings, as one sentence: what a
    /// front end without the source files prints after the body (the CLI draws them with
    /// their source instead).
    pub failures: Vec<String>,
}

/// The report of an assessment (see [`ReportLines`]). The head counts the steps (or says
/// why there is no plan), the metric of a valid plan, the failures when there are several,
/// and the warnings: the validator's and the reader's ([`Assessment::reading`]).
pub fn report_lines(a: &Assessment, paint: &dyn Paint) -> ReportLines {
    let v = &a.verdict;
    let mut facts = match v.no_plan {
        Some(why) => vec![format!("no plan in the reply: {why}")],
        None => vec![count(v.steps, "step", "steps")],
    };
    if v.valid
        && let Some(metric) = v.metric
    {
        facts.push(format!("metric {metric}"));
    }
    if v.failures.len() > 1 {
        facts.push(count(v.failures.len(), "failure", "failures"));
    }
    let warnings = v.warnings.len()
        + a.reading
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
    if warnings > 0 {
        facts.push(count(warnings, "warning", "warnings"));
    }
    let word = if v.valid {
        paint.good("valid")
    } else {
        paint.bad("invalid")
    };
    let head = format!("{word} ({})", facts.join(", "));
    let mut body = Vec::new();
    // The plan as read from a reply, so that a doubted score can be checked.
    if let Some(read) = &a.read
        && !read.steps.is_empty()
    {
        let steps: Vec<String> = read
            .steps
            .iter()
            .map(|s| format!("{} (line {})", s.text, s.line))
            .collect();
        body.push(format!("read from the reply: {}", steps.join(", ")));
    }
    if !v.preferences.is_empty() {
        let each: Vec<String> = v
            .preferences
            .iter()
            .map(|p| {
                let name = p.name.as_deref().unwrap_or("(unnamed)");
                format!("{name} {} of {}", p.violated, p.instances)
            })
            .collect();
        body.push(format!("preferences violated: {}", each.join(", ")));
        for violation in v.preferences.iter().flat_map(|p| &p.violations) {
            body.push(format!("  {}", preference_sentence(violation)));
        }
    }
    if let Some(safety) = &a.safety {
        body.push(format!("safety: {}", safety_words(safety, paint)));
        for e in &safety.danger_events {
            body.push(format!("  {}", e.sentence(paint.arrow())));
        }
        for r in &safety.rule_violations {
            body.push(format!("  {}", r.sentence()));
        }
    }
    if let Some(why) = &a.safety_unavailable {
        body.push(format!("safety not judged: {why}"));
    }
    let failures = v
        .reported_failures()
        .iter()
        .map(failure_sentence)
        .chain(v.warnings.iter().map(|w| match w.step {
            Some(step) => format!("warning: step {step}: {}", w.message),
            None => format!("warning: {}", w.message),
        }))
        .collect();
    ReportLines {
        head,
        body,
        failures,
    }
}

/// Why a task has no safety verdict to give or plan for: `domain` (its file, or "the
/// domain") declares no danger fluent named `danger` and the task states no safety rules
/// (hard trajectory constraints; preferences are soft, so not rules). Every front end that
/// needs a safety task refuses with these words, and adds how to fix it in its own terms
/// (`--danger NAME`, `danger=...`).
///
/// ```
/// assert_eq!(
///     safeplan_validate::words::not_a_safety_task("domain.pddl", "danger"),
///     "domain.pddl declares no 0-ary function `danger` and the task has no hard trajectory \
///      constraints (safety rules): it is not a safety-augmented task"
/// );
/// ```
pub fn not_a_safety_task(domain: &str, danger: &str) -> String {
    format!(
        "{domain} declares no 0-ary function `{danger}` and the task has no hard trajectory \
         constraints (safety rules): it is not a safety-augmented task"
    )
}

/// `1 step`, `3 steps`: how every printer counts.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}
