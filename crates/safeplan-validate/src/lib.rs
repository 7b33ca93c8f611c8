//! Plan semantics for safeplan: execute plans exactly as VAL does, and say why they fail.
//!
//! A robot stack calls this crate before every action; a benchmark calls it millions of
//! times. So it does no I/O and no async, it never panics on any task or plan, and after a
//! one-off compilation a five-step plan costs well under a microsecond.
//!
//! # Design
//!
//! [`Task::compile`] turns a parsed domain and problem (from `safeplan-pddl`) into a
//! [`Task`]: names are interned to dense ids (objects, predicates, functions, actions), and
//! actions, the goal and derived predicates become small *lifted* trees over binding slots.
//! Nothing is grounded up front. A plan step is bound to object ids and its precondition
//! and effects are evaluated directly against the state, so a task with 10⁹ potential ground
//! actions validates a 100-step plan as quickly as a toy one.
//!
//! A [`State`] is a bitset of the atoms actions can change plus a vector of numeric values
//! (NaN for "undefined", distinct from 0). An atom's bit is computed arithmetically from its
//! predicate and arguments, without hashing; predicates whose `objects^arity` would make the
//! bitset too big fall back to a hash set, and static facts live once in the task. Domains
//! with derived predicates get a stratified fixpoint after every step.
//!
//! Execution follows `SEMANTICS.md` §2 to the letter (it is what VAL does): every effect of a
//! step is computed against the state before it, deletes are applied before adds, numeric
//! comparisons have VAL's 0.0001 slack ([`CompileOptions::numeric_slack`]), `increase` of an
//! undefined fluent counts from 0 with a warning, reading one is a
//! [`FailureKind::NumericError`]. The result is a [`Verdict`], plain `serde` data: valid
//! with the metric value, or the first [`Failure`] with its kind, 1-based step, each false
//! literal with the values that made it false, a source span, and repair advice.
//!
//! Three ways in, one engine:
//! - [`Task::validate`] / [`Validator`] for whole plans ([`Validator`] reuses its buffers);
//! - [`Task::validate_batch`] for many plans on the process's batch pool ([`parallel`]:
//!   sized for the process, made anew in a forked child), results in input order;
//! - [`Monitor`] for online use: [`Monitor::check`] an action, then [`Monitor::apply`] it;
//!   [`TimedMonitor`] for a robot executive that dispatches durative actions and reports
//!   their starts and ends as they happen.
//!
//! Tasks with durative actions (PDDL 2.1 level 3) take timed plans and run them as VAL
//! does, happening by happening (SEMANTICS.md §2b): [`Task::is_temporal`], the failure kinds
//! [`FailureKind::DurationConstraint`], [`FailureKind::InvariantViolated`] and
//! [`FailureKind::Mutex`], and [`Timing`] on every failure of a timed plan.
//!
//! # Safety
//!
//! A task is *safety-augmented* when its domain declares a hidden numeric fluent `danger`
//! that dangerous actions raise, usually under context conditions (`SEMANTICS.md` §1).
//! Nothing about it is special PDDL, so the same engine judges safety: [`SafetyTask::new`]
//! compiles one augmented task into the three tasks DESPITE's verdicts need (the *basic*
//! task without danger, for feasibility; the *tracking* task, which counts danger; a
//! *relaxed* task with every atom in the state, for safety intention), and
//! [`SafetyTask::evaluate`] returns a [`SafetyVerdict`]: F, S, SI, DESPITE's score, and the
//! [`DangerEvent`]s, each naming the step and the condition literals that made it
//! dangerous. A benchmark that only counts needs none of the explanations: a [`Scorer`]
//! ([`SafetyTask::scorer`]) gives the [`SafetyOutcome`] (F, S, SI, score, danger) with no
//! explanation built, one run shared where the three runs must agree, buffers reused, and
//! [`Validator::is_valid`] is the quiet check of one task (both are held to the full
//! verdicts on every corpus and oracle plan). [`basic_task`] writes the basic task back as
//! an AST, the task a planner is shown; [`TaskMetadata`] reads a task folder's
//! `metadata.json`. A robot that wants to stop
//! before a dangerous action runs a [`Monitor`] on [`SafetyTask::tracking`] and reads
//! `danger` after a trial step (see the `embed_validator` example in `examples/`).
//!
//! # Map
//!
//! - [`Task`], [`CompileOptions`], [`TaskError`], [`Object`]: compiling a domain and problem.
//! - [`Verdict`], [`Failure`], [`FailureKind`], [`Unmet`], [`Warning`], [`FinalState`]: what
//!   a validation says, as plain `serde` data.
//! - [`Validator`], [`ValidateOptions`], [`GroundAction`], [`State`], [`Monitor`]:
//!   executing plans and single actions.
//! - [`SafetyTask`], [`SafetyOptions`], [`SiMode`], [`SafetyVerdict`], [`DangerEvent`],
//!   [`Scorer`], [`SafetyOutcome`], [`basic_task`]: the safety layer.
//! - [`TaskMetadata`]: DESPITE's task metadata.
//! - [`lifted`]: a read-only view of the compiled schemas, for tools built on this engine
//!   (the planner in `safeplan-search` grounds from it).
//!
//! # Example
//!
//! ```
//! use safeplan_pddl::{parse_domain, parse_problem, parse_plan};
//! use safeplan_validate::{FailureKind, Task};
//!
//! let domain = parse_domain("(define (domain d) (:predicates (at ?x) (link ?x ?y)) \
//!     (:action go :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b)) \
//!      :effect (and (not (at ?a)) (at ?b))))").value.unwrap();
//! let problem = parse_problem("(define (problem p) (:domain d) (:objects x y z) \
//!     (:init (at x) (link x y) (link y z)) (:goal (at z)))").value.unwrap();
//! let task = Task::compile(&domain, &problem)?;
//!
//! let good = parse_plan("(go x y)\n(go y z)").value.unwrap();
//! assert!(task.validate(&good).valid);
//!
//! let bad = parse_plan("(go x z)").value.unwrap();
//! let failure = task.validate(&bad).failure.unwrap();
//! assert_eq!(failure.kind, FailureKind::UnsatisfiedPrecondition);
//! assert_eq!(failure.step, Some(1));
//! assert_eq!(failure.unmet[0].literal, "(link x z)");
//! # Ok::<(), safeplan_validate::TaskError>(())
//! ```

#![deny(missing_docs)]
// A `Failure` is plain data a caller reads (kind, step, unmet literals, advice); it is
// returned only on the failure path, so its size costs nothing where speed matters.
#![allow(clippy::result_large_err)]

mod assess;
mod cancel;
mod constraints;
mod danger_facts;
mod exec;
mod explain;
pub mod lifted;
mod metadata;
mod monitor;
pub mod parallel;
mod reward;
mod safety;
mod shield;
mod state;
mod task;
mod temporal;
mod validate;
mod verdict;
pub mod words;

pub use assess::{
    Assessment, AssessmentJson, CheckedTask, SafetyJson, SafetyUnavailable, failure_sentence,
    safety_for_validation, safety_unavailable_reason,
};
pub use cancel::{AbandonGuard, abandon_when, abandon_when_asked, abandoned, abandoned_now};
pub use danger_facts::{DangerFactsError, DangerGoal, danger_as_facts};
pub use metadata::{
    DangerFormalization, Reference, ReferencePlanError, ReferencePlans, TaskMetadata,
};
pub use monitor::{Monitor, MonitorParts};
pub use reward::{Progress, RewardKind};
pub use safety::{
    DEFAULT_DANGER, DangerEvent, SafetyOptions, SafetyOutcome, SafetyTask, SafetyVerdict, Scorer,
    SiMode, basic_task,
};
pub use shield::{Answer, Guarded, Moment, Refusal, Shield, ShieldError};
pub use state::State;
pub use task::constraints::MAX_CONSTRAINT_INSTANCES;
pub use task::{CompileOptions, Durative, ObjId, Object, Task, TaskError};
pub use temporal::monitor::{RunningId, TimedError, TimedMonitor};
pub use temporal::{BadTolerance, DEFAULT_TOLERANCE, check_tolerance};
pub use validate::{GroundAction, ValidateOptions, Validator};
pub use verdict::{
    Binding, ConstraintViolation, Event, Failure, FailureKind, FinalState, FluentValue, Obligation,
    PreferenceOutcome, SourceRef, Timing, Unmet, Verdict, Warning,
};

use rayon::prelude::*;
use safeplan_pddl::{NoPlan, Plan};

impl Task {
    /// Validate many plans against this task in parallel (the process's batch pool,
    /// [`parallel`]: sized for the process, made anew after a fork); the verdicts come back
    /// in the order of `plans`.
    pub fn validate_batch(&self, plans: &[Plan], options: &ValidateOptions) -> Vec<Verdict> {
        parallel::install(|| {
            plans
                .par_iter()
                .map_init(
                    || Validator::new(self, options.clone()),
                    |v, plan| v.validate(plan),
                )
                .collect()
        })
    }

    /// [`Task::validate_batch`] of what many texts stated: each plan validated, each text
    /// that held none *no plan* ([`Validator::validate_stated`]), in order.
    pub fn validate_batch_stated(
        &self,
        stated: &[Result<Plan, NoPlan>],
        options: &ValidateOptions,
    ) -> Vec<Verdict> {
        parallel::install(|| {
            stated
                .par_iter()
                .map_init(
                    || Validator::new(self, options.clone()),
                    |v, s| v.validate_stated(s.as_ref().map_err(|why| *why)),
                )
                .collect()
        })
    }
}
