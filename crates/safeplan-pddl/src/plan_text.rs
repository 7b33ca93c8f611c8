//! A plan's text, read the one way every front end reads it: a plan file strictly, or an LLM
//! reply by the reply reader with the task's names.
//!
//! The two readers answer different questions and are never mixed. A plan file is a
//! contract: it reads as IPC or timed steps, and anything else is an error the user must fix
//! ([`crate::parse_plan`]); nothing is guessed. A reply is prose that may hold a plan: the
//! reply reader ([`crate::read_reply`]) picks the steps out, and a reply from which no step
//! can be read is *no plan* ([`NoPlan`]), never the empty plan. [`read_plan_text`] is that
//! choice written once; [`PlanRead::into_stated`] is what a validation is given: the plan,
//! why a reply has none, or the errors of a plan file that does not read. The CLI, Python,
//! the C API and the assessment in `safeplan-validate` all read through here.

use crate::ast::{Plan, PlanStep};
use crate::diagnostic::{Diagnostic, Severity};
use crate::plan::parse_plan;
use crate::reply::{NoPlan, ReadReport, Vocabulary, read_reply};

/// How a plan's text is read.
#[derive(Clone, Copy, Debug)]
pub enum PlanReading<'v> {
    /// As a plan file (IPC and timestamped plans): anything else is an error.
    Strict,
    /// As an LLM reply ([`read_reply`]), with the task's names when known.
    Reply(Option<&'v Vocabulary>),
}

/// A plan's text as read: the plan, or why a reply holds none, and the reading's
/// diagnostics. A strict read with errors keeps what it could read, for a front end that
/// shows it beside the errors; [`PlanRead::into_stated`] refuses it.
#[derive(Clone, Debug, Default)]
pub struct PlanRead {
    /// The plan, when one was read (a strict read with errors may still give one).
    pub plan: Option<Plan>,
    /// Under [`PlanReading::Reply`]: why the reply holds no plan.
    pub no_plan: Option<NoPlan>,
    /// Errors and warnings of the reading.
    pub diagnostics: Vec<Diagnostic>,
    /// Under [`PlanReading::Reply`]: the steps read, each with its place in the reply, and
    /// the reader's warnings — what `validate --json` shows as `read`.
    pub read: Option<ReadReport>,
}

/// What a plan's text states, ready to validate: the plan, or why a reply holds none; with
/// what the reply reader read and the reading's warnings.
#[derive(Clone, Debug)]
pub struct StatedPlan {
    /// The plan, or why the reply holds none (never the empty plan).
    pub plan: Result<Plan, NoPlan>,
    /// Under [`PlanReading::Reply`]: the steps read and the reader's warnings.
    pub read: Option<ReadReport>,
    /// The reading's diagnostics: a plan file's warnings (its errors refuse it), or all a
    /// reply's (a reply that does not decode has an error here, and no plan).
    pub warnings: Vec<Diagnostic>,
}

/// Read a plan's text: strictly, or as an LLM reply.
///
/// ```
/// use safeplan_pddl::{NoPlan, PlanReading, read_plan_text};
///
/// let file = read_plan_text("(pick a)\n(place a b)\n", PlanReading::Strict);
/// assert_eq!(file.into_stated().expect("a plan file").plan.expect("a plan").steps.len(), 2);
/// let prose = read_plan_text("Sorry, I cannot help with that.", PlanReading::Reply(None));
/// assert_eq!(prose.into_stated().expect("a reply is never refused").plan.err(), Some(NoPlan::Refusal));
/// assert!(read_plan_text("pick a", PlanReading::Strict).into_stated().is_err());
/// ```
pub fn read_plan_text(text: &str, reading: PlanReading<'_>) -> PlanRead {
    match reading {
        PlanReading::Strict => {
            let parsed = parse_plan(text);
            PlanRead {
                plan: parsed.value,
                no_plan: None,
                diagnostics: parsed.diagnostics,
                read: None,
            }
        }
        PlanReading::Reply(vocabulary) => {
            let reply = read_reply(text, vocabulary);
            let read = reply.report(text);
            PlanRead {
                plan: reply.plan,
                no_plan: reply.no_plan,
                diagnostics: reply.diagnostics,
                read: Some(read),
            }
        }
    }
}

/// A plan file's text read strictly: its plan, or its reader's errors (never fewer steps,
/// never "no plan": that is a reply's outcome only). What [`PlanRead::into_stated`] gives a
/// plan file, for a caller that needs only the plan.
///
/// ```
/// use safeplan_pddl::read_plan_file;
/// assert_eq!(read_plan_file("(a x) (b y)").expect("a plan").steps.len(), 2);
/// assert!(read_plan_file("(a x) (b y").is_err());
/// ```
pub fn read_plan_file(text: &str) -> Result<Plan, Vec<Diagnostic>> {
    let parsed = parse_plan(text);
    if parsed.has_errors() {
        return Err(only_errors(parsed.diagnostics));
    }
    Ok(parsed.value.unwrap_or_default())
}

/// The errors among `diagnostics`.
fn only_errors(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

impl PlanRead {
    /// What the text states, for a validation. A reply is never refused: with no plan it is
    /// [`NoPlan`] ([`NoPlan::Unreadable`] when it gives no reason). A plan file whose reading
    /// found errors is refused with them (`Err`, errors only).
    pub fn into_stated(self) -> Result<StatedPlan, Vec<Diagnostic>> {
        let has_errors = self.diagnostics.iter().any(Diagnostic::is_error);
        let plan = match (self.plan, self.read.is_some()) {
            (Some(plan), true) => Ok(plan),
            (None, true) => Err(self.no_plan.unwrap_or(NoPlan::Unreadable)),
            (Some(plan), false) if !has_errors => Ok(plan),
            (_, false) => return Err(only_errors(self.diagnostics)),
        };
        Ok(StatedPlan {
            plan,
            read: self.read,
            warnings: self.diagnostics,
        })
    }
}

/// Why a text is not exactly one step ([`read_step`]).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// The text does not read as a step: the reader's first error, its span in `read` (the
    /// text as read, in parentheses when it was bare).
    #[error("{text:?} is not one step: {}", .error.message)]
    Unreadable {
        /// The text given.
        text: String,
        /// The text the reader read.
        read: String,
        /// The reader's first error.
        error: Box<Diagnostic>,
    },
    /// The text reads but holds no step (it is empty, or only a comment).
    #[error("{0:?} names no action")]
    NoAction(String),
    /// The text holds several steps.
    #[error("{text:?} holds {steps} steps; a monitor takes one at a time")]
    Several {
        /// The text given.
        text: String,
        /// How many steps it holds.
        steps: usize,
    },
}

/// The one step a text states, as a monitor or a shield takes it: the text read as a plan
/// file (`(move a b)`, a timed `0: (move a b) [1]`, comments, case and spacing as in a plan
/// file), or, when that holds no step or errors and the text is bare, `move a b` put in
/// parentheses (on a line of its own, so a trailing `; comment` stays a comment). Empty text
/// or only comments is [`StepError::NoAction`]; anything else but exactly one step is a
/// [`StepError`].
///
/// ```
/// use safeplan_pddl::{StepError, read_step};
///
/// assert_eq!(read_step(" move a b ").expect("one step").action.text, "move");
/// assert_eq!(read_step("move a b ; why").expect("one step").args.len(), 2);
/// assert_eq!(read_step("0: (move a b) [1]").expect("one step").duration, Some(1.0));
/// assert!(matches!(read_step("(a) (b)"), Err(StepError::Several { steps: 2, .. })));
/// assert!(matches!(read_step(""), Err(StepError::NoAction(_))));
/// assert!(matches!(read_step("; only a note"), Err(StepError::NoAction(_))));
/// ```
pub fn read_step(text: &str) -> Result<PlanStep, StepError> {
    let as_written = parse_plan(text);
    let clean = !as_written.has_errors();
    let count = as_written.value.as_ref().map_or(0, |p| p.steps.len());
    // Read as a plan file: one step, several, or nothing at all (only space and comments).
    if clean && (count > 0 || as_written.diagnostics.is_empty()) {
        return one_of(text, as_written.value.map(|p| p.steps).unwrap_or_default());
    }
    // A bare step: in parentheses, the closing one on a line of its own so that a trailing
    // comment stays a comment.
    let (read, parsed) = if text.trim_start().starts_with('(') {
        (text.to_string(), as_written)
    } else {
        let read = format!("({}\n)", text.trim());
        let parsed = parse_plan(&read);
        (read, parsed)
    };
    match parsed.diagnostics.iter().find(|d| d.is_error()) {
        Some(error) => Err(StepError::Unreadable {
            text: text.to_string(),
            error: Box::new(error.clone()),
            read,
        }),
        None => one_of(text, parsed.value.map(|p| p.steps).unwrap_or_default()),
    }
}

/// Exactly one step of `steps`, or why not.
fn one_of(text: &str, mut steps: Vec<PlanStep>) -> Result<PlanStep, StepError> {
    match steps.len() {
        1 => Ok(steps.remove(0)),
        0 => Err(StepError::NoAction(text.to_string())),
        n => Err(StepError::Several {
            text: text.to_string(),
            steps: n,
        }),
    }
}
