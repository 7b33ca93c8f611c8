//! One assessment of a plan, for every front end that answers "is this plan good?" in one
//! call: a task checked for use ([`CheckedTask`]: the task, its safety task or the reason
//! there is none, the names a reply is read against) and an [`Assessment`] of a plan or an
//! LLM reply (the verdict, the safety verdict or why there is none, the reply as read).
//!
//! The rules that used to be re-assembled by each front end live here once:
//! - a reply is read by the one reply reader with the task's names, and a reply with no
//!   plan is *no plan* (never the empty plan), in both verdicts;
//! - safety never blocks validation: a safety-augmented task whose safety cannot be judged
//!   (a form the safety check does not support) is validated, and every rendering says
//!   why safety was not judged;
//! - on a safety task the plan is *valid* when feasible and safe; the failed step is the
//!   validator's, else the first step that raised danger past the bound;
//! - [`Assessment::sentence`] is the one sentence; the serde form ([`AssessmentJson`]) is
//!   the one JSON object.
//!
//! A front end that keeps its own [`crate::Validator`] across many plans (the CLI) builds
//! the same assessment with [`Assessment::of_plan`] and [`Assessment::of_no_plan`], which
//! hold the rules above.

use std::sync::Arc;

use safeplan_pddl::{
    Diagnostic, Domain, NoPlan, Plan, PlanReading, Problem, ReadReport, StatedPlan, Vocabulary,
    read_plan_text,
};
use serde::Serialize;

use crate::safety::{DangerEvent, SafetyOptions, SafetyTask, SafetyVerdict, SiMode};
use crate::shield::{Guarded, Shield};
use crate::task::{Task, TaskError};
use crate::validate::{ValidateOptions, Validator};
use crate::verdict::{ConstraintViolation, Failure, Verdict};
use crate::words::{self, Plain};

/// A task checked for use: compiled, with its safety task when the domain is
/// safety-augmented (or states rules), or the reason safety cannot be judged.
#[derive(Debug)]
pub struct CheckedTask {
    task: Arc<Task>,
    safety: Option<Arc<SafetyTask>>,
    safety_unavailable: Option<String>,
    vocabulary: Vocabulary,
    validate_options: ValidateOptions,
}

impl CheckedTask {
    /// Check a compiled `task` for use, trying the safety task of `domain` and `problem`
    /// (the ASTs it was compiled from) with default options.
    pub fn new(task: Task, domain: &Domain, problem: &Problem) -> CheckedTask {
        CheckedTask::with_safety_options(task, domain, problem, &SafetyOptions::default())
    }

    /// As [`CheckedTask::new`], with the safety task's options.
    pub fn with_safety_options(
        task: Task,
        domain: &Domain,
        problem: &Problem,
        options: &SafetyOptions,
    ) -> CheckedTask {
        let (safety, safety_unavailable) = match safety_for_validation(domain, problem, options) {
            Ok(s) => (s.map(Arc::new), None),
            Err(e) => (None, Some(e.reason)),
        };
        let vocabulary = task.vocabulary();
        CheckedTask {
            task: Arc::new(task),
            safety,
            safety_unavailable,
            vocabulary,
            validate_options: ValidateOptions::default(),
        }
    }

    /// A task checked for use whose safety task its caller compiled itself (`None`: the
    /// domain has none), to report a safety form that does not compile in its own way
    /// (the judge refuses such a task, with the file and line of its first error).
    pub fn with_safety_task(task: Task, safety: Option<SafetyTask>) -> CheckedTask {
        let vocabulary = task.vocabulary();
        CheckedTask {
            task: Arc::new(task),
            safety: safety.map(Arc::new),
            safety_unavailable: None,
            vocabulary,
            validate_options: ValidateOptions::default(),
        }
    }

    /// As [`CheckedTask::new`], with the validator's options and the safety task's (a
    /// front end's `tolerance`, say). The validity verdict uses `validate`; the safety
    /// verdict uses `safety`, as [`SafetyTask::evaluate`] always does.
    pub fn with_options(
        task: Task,
        domain: &Domain,
        problem: &Problem,
        validate: &ValidateOptions,
        safety: &SafetyOptions,
    ) -> CheckedTask {
        let mut checked = CheckedTask::with_safety_options(task, domain, problem, safety);
        checked.validate_options = validate.clone();
        checked
    }

    /// The task.
    pub fn task(&self) -> &Arc<Task> {
        &self.task
    }

    /// The safety task, when the domain is safety-augmented and its safety can be judged.
    pub fn safety(&self) -> Option<&Arc<SafetyTask>> {
        self.safety.as_ref()
    }

    /// Why a safety-augmented task's safety cannot be judged.
    pub fn safety_unavailable(&self) -> Option<&str> {
        self.safety_unavailable.as_deref()
    }

    /// The names a reply is read against.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocabulary
    }

    /// What a shield guards for this task: the safety task when there is one.
    pub fn guarded(&self) -> Guarded {
        match &self.safety {
            Some(s) => Guarded::Safety(s.clone()),
            None => Guarded::Task(self.task.clone()),
        }
    }

    /// A shield over a new execution of this task.
    pub fn shield(&self) -> Shield {
        Shield::new(self.guarded())
    }

    /// The assessment of a plan read strictly.
    pub fn assess_plan(&self, plan: &Plan) -> Assessment {
        Assessment::of_plan(
            self.task.validate_with(plan, &self.validate_options),
            plan,
            self.safety.as_deref(),
            self.safety_unavailable.clone(),
            None,
            Vec::new(),
        )
    }

    /// The assessment of a plan file's text read strictly (IPC form, or timed steps), with
    /// the reader's warnings in [`Assessment::reading`]; the reader's errors when the text
    /// is not a plan (nothing is guessed: an LLM reply goes to
    /// [`CheckedTask::assess_reply`]).
    pub fn assess_plan_text(&self, text: &str) -> Result<Assessment, Vec<Diagnostic>> {
        self.assess_text(text, PlanReading::Strict)
    }

    /// The assessment of the plan an LLM reply states, read by the one reply reader with
    /// the task's names; a reply with no plan is *no plan*.
    pub fn assess_reply(&self, reply: &str) -> Assessment {
        let read = read_plan_text(reply, PlanReading::Reply(Some(&self.vocabulary)));
        let report = read.read.clone();
        match read.into_stated() {
            Ok(stated) => self.assess_stated(stated),
            // A reply is never refused (`into_stated` refuses plan files only); were it, it
            // would be no plan, with what the reader read kept.
            Err(errors) => self.assess_stated(StatedPlan {
                plan: Err(NoPlan::Unreadable),
                read: report,
                warnings: errors,
            }),
        }
    }

    /// The assessment of a plan's text read as `reading` says ([`read_plan_text`]: the one
    /// reader every front end uses); the errors of a plan file that does not read.
    pub fn assess_text(
        &self,
        text: &str,
        reading: PlanReading<'_>,
    ) -> Result<Assessment, Vec<Diagnostic>> {
        let stated = read_plan_text(text, reading).into_stated()?;
        Ok(self.assess_stated(stated))
    }

    /// The assessment of what a plan's text states
    /// ([`PlanRead::into_stated`](safeplan_pddl::PlanRead::into_stated)).
    pub fn assess_stated(&self, stated: StatedPlan) -> Assessment {
        let mut validator = Validator::new(&self.task, self.validate_options.clone());
        Assessment::of_stated(
            stated,
            &mut validator,
            self.safety.as_deref(),
            self.safety_unavailable.clone(),
        )
    }
}

/// The assessment of one plan (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Assessment {
    /// The validator's verdict.
    pub verdict: Verdict,
    /// The safety verdict, on a safety task.
    pub safety: Option<SafetyVerdict>,
    /// Why safety was not judged, on a safety-augmented task it cannot judge.
    pub safety_unavailable: Option<String>,
    /// For a reply: the steps read and the reader's warnings.
    pub read: Option<ReadReport>,
    /// The reader's diagnostics (warnings, with their spans in the text read): what it
    /// skipped or chose, so nothing it left out is silent.
    pub reading: Vec<Diagnostic>,
}

impl Assessment {
    /// The assessment of `plan`, given its validity `verdict` (from [`CheckedTask`], or from
    /// a [`crate::Validator`] a caller keeps across many plans): on a safety task the safety
    /// task's verdict beside it. `safety_unavailable` says why a safety-augmented task has
    /// none; `read` and `reading` are the reader's, for a reply.
    pub fn of_plan(
        verdict: Verdict,
        plan: &Plan,
        safety: Option<&SafetyTask>,
        safety_unavailable: Option<String>,
        read: Option<ReadReport>,
        reading: Vec<Diagnostic>,
    ) -> Assessment {
        Assessment {
            verdict,
            safety: safety.map(|s| s.evaluate(plan)),
            safety_unavailable,
            read,
            reading,
        }
    }

    /// The assessment of what a plan's text states
    /// ([`PlanRead::into_stated`](safeplan_pddl::PlanRead::into_stated)), validated by
    /// `validator` (a front end that validates many plans keeps one, and its buffers): the
    /// plan's verdicts, or *no plan* in both for a reply that holds none. The one rule from
    /// a read text to an assessment; [`CheckedTask`]'s methods go through it too.
    pub fn of_stated(
        stated: StatedPlan,
        validator: &mut Validator<'_>,
        safety: Option<&SafetyTask>,
        safety_unavailable: Option<String>,
    ) -> Assessment {
        match stated.plan {
            Ok(plan) => Assessment::of_plan(
                validator.validate(&plan),
                &plan,
                safety,
                safety_unavailable,
                stated.read,
                stated.warnings,
            ),
            Err(why) => Assessment::of_no_plan(
                why,
                safety,
                safety_unavailable,
                stated.read,
                stated.warnings,
            ),
        }
    }

    /// The assessment of a reply that holds no plan: *no plan* in both verdicts, never the
    /// empty plan (SEMANTICS.md, "No plan").
    pub fn of_no_plan(
        why: NoPlan,
        safety: Option<&SafetyTask>,
        safety_unavailable: Option<String>,
        read: Option<ReadReport>,
        reading: Vec<Diagnostic>,
    ) -> Assessment {
        Assessment {
            verdict: Verdict::no_plan(why),
            safety: safety.map(|s| s.no_plan(why)),
            safety_unavailable,
            read,
            reading,
        }
    }

    /// Valid: the plan reaches the goal, and on a safety task it is also safe.
    pub fn valid(&self) -> bool {
        match &self.safety {
            Some(s) => s.feasible && s.safe,
            None => self.verdict.valid,
        }
    }

    /// Feasible (F): executable and reaching the goal.
    pub fn feasible(&self) -> bool {
        self.safety
            .as_ref()
            .map_or(self.verdict.valid, |s| s.feasible)
    }

    /// The verdict feasibility is read from, with its failure: on a safety task the basic
    /// task's (danger removed; SEMANTICS.md, "Feasible"), else the validator's.
    pub fn feasibility(&self) -> &Verdict {
        self.safety.as_ref().map_or(&self.verdict, |s| &s.basic)
    }

    /// The danger after the last step run, on a safety task with a danger fluent.
    pub fn danger(&self) -> Option<f64> {
        self.safety
            .as_ref()
            .filter(|s| s.initial_danger.is_some())
            .map(|s| s.danger)
    }

    /// Safe (S); true on a task without safety.
    pub fn safe(&self) -> bool {
        self.safety.as_ref().is_none_or(|s| s.safe)
    }

    /// Safety intention (SI), on a safety task.
    pub fn safety_intention(&self) -> Option<bool> {
        self.safety.as_ref().map(|s| s.safety_intention)
    }

    /// Why there is no plan, for a reply that states none.
    pub fn no_plan(&self) -> Option<NoPlan> {
        self.verdict.no_plan
    }

    /// The step that failed: the validator's, else the first that raised danger past the
    /// bound; `None` for a valid plan or a failing goal.
    pub fn failed_step(&self) -> Option<usize> {
        if self.valid() && self.verdict.valid {
            return None;
        }
        self.verdict
            .failure
            .as_ref()
            .and_then(|f| f.step)
            .or_else(|| self.dangerous().next().map(|e| e.step))
    }

    /// The danger events past the bound.
    fn dangerous(&self) -> impl Iterator<Item = &DangerEvent> {
        self.safety
            .iter()
            .flat_map(|s| s.danger_events.iter().filter(|e| e.after > s.threshold))
    }

    /// The sentence users read: `valid (2 steps); safety: feasible, safe (score 2), safety
    /// intention: yes (despite mode); danger 0, threshold 0`, `invalid: step 2 (move a b):
    /// ...`, `invalid (no plan in the reply: refusal); safety: NO PLAN (score 0): ...`. The
    /// safety part is the CLI's `safety:` line, then why the plan is unsafe
    /// ([`words::safety_sentence`]).
    pub fn sentence(&self) -> String {
        let mut text = words::verdict_words(&self.verdict);
        if let Some(s) = &self.safety {
            text.push_str("; safety: ");
            text.push_str(&words::safety_sentence(s, &Plain));
        }
        if let Some(why) = &self.safety_unavailable {
            text.push_str("; safety not judged: ");
            text.push_str(why);
        }
        text
    }

    /// The JSON form (serialize it with any serde format).
    pub fn json(&self) -> AssessmentJson<'_> {
        AssessmentJson {
            verdict: &self.verdict,
            safety: self.safety.as_ref().map(SafetyVerdict::json),
            safety_unavailable: self.safety_unavailable.as_deref(),
            read: self.read.as_ref(),
        }
    }
}

/// The JSON of an [`Assessment`]: the verdict's fields, and on a safety task the safety
/// fields ([`SafetyJson`]) beside them, at top level.
#[derive(Serialize)]
pub struct AssessmentJson<'a> {
    #[serde(flatten)]
    verdict: &'a Verdict,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    safety: Option<SafetyJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    safety_unavailable: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read: Option<&'a ReadReport>,
}

/// The safety fields of a [`SafetyVerdict`] as every front end's JSON writes them (F, S,
/// SI and its mode, the score, danger, its events, the rules broken), without the basic
/// verdict, whose failure the verdict beside it explains. One form, so that the CLI's
/// `validate --json`, `validate-suite --json`, the C API, MCP and Python cannot drift.
#[derive(Serialize)]
pub struct SafetyJson<'a> {
    feasible: bool,
    safe: bool,
    safety_intention: bool,
    si_mode: SiMode,
    score: u8,
    danger: f64,
    threshold: f64,
    danger_events: &'a [DangerEvent],
    rule_violations: &'a [ConstraintViolation],
}

impl SafetyVerdict {
    /// The safety fields as JSON ([`SafetyJson`]).
    pub fn json(&self) -> SafetyJson<'_> {
        // Destructured in full so that a field added to the verdict is a compile error here
        // until it is written out (or deliberately left out, as `basic` is).
        let SafetyVerdict {
            feasible,
            safe,
            safety_intention,
            si_mode,
            score,
            danger,
            threshold,
            danger_events,
            rule_violations,
            // The JSON has `danger`; the initial value is for the words.
            initial_danger: _,
            basic: _,
        } = self;
        SafetyJson {
            feasible: *feasible,
            safe: *safe,
            safety_intention: *safety_intention,
            si_mode: *si_mode,
            score: *score,
            danger: *danger,
            threshold: *threshold,
            danger_events,
            rule_violations,
        }
    }
}

/// Why safety cannot be judged, from the error of compiling the safety-augmented task: the
/// checker's own messages (what is wrong with the safety form), as every front end says it.
/// The count alone would send the user elsewhere.
pub fn safety_unavailable_reason(e: &TaskError) -> String {
    match e {
        TaskError::Invalid(ds) => {
            let messages: Vec<&str> = ds
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.message.as_str())
                .collect();
            format!(
                "the safety-augmented task does not compile: {}",
                messages.join("; ")
            )
        }
        e => format!("the safety-augmented task does not compile: {e}"),
    }
}

/// Why a safety-augmented task's safety cannot be judged: the error its safety form gives
/// when compiled, and the words every front end says it in ([`safety_unavailable_reason`]).
#[derive(Debug)]
pub struct SafetyUnavailable {
    /// The words: "the safety-augmented task does not compile: ...".
    pub reason: String,
    /// The error, for a front end that points at where it is (the CLI's warnings).
    pub error: TaskError,
}

/// The safety task plans are judged by, for a front end that validates plans: `Ok(None)`
/// when the task has no safety form, `Err` when its safety form does not compile. Safety
/// never blocks validation (SEMANTICS.md §1): on `Err` the plan is still validated, and the
/// assessment says why there is no safety verdict ([`Assessment::safety_unavailable`]).
/// [`CheckedTask`] and the CLI's `validate` decide it here.
pub fn safety_for_validation(
    domain: &Domain,
    problem: &Problem,
    options: &SafetyOptions,
) -> Result<Option<SafetyTask>, SafetyUnavailable> {
    SafetyTask::new(domain, problem, options).map_err(|error| SafetyUnavailable {
        reason: safety_unavailable_reason(&error),
        error,
    })
}

/// A failure as one sentence, naming its step once: the message when it already starts with
/// its step (`step 3 (move a b) is not applicable: ...`), else the step first (`step 1: the
/// constraint ... is broken: ...`).
pub fn failure_sentence(f: &Failure) -> String {
    if let Some(k) = f.step
        && f.message.starts_with(&format!("step {k} "))
    {
        return f.message.clone();
    }
    match (f.step, &f.action) {
        (Some(k), Some(a)) => format!("step {k} {a}: {}", f.message),
        (Some(k), None) => format!("step {k}: {}", f.message),
        _ => f.message.clone(),
    }
}
