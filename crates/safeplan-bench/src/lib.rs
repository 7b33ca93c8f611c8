//! The safeplan benchmark harness: run planners over a suite of safety-augmented tasks,
//! keep every attempt in a resumable store, and score them as DESPITE does.
//!
//! A benchmark is a product of three things: a [`Suite`] of task folders, a list of
//! [`Planner`]s (an LLM, our search planner, recorded plans, an external planner binary, or
//! one of your own), and a number of samples. Each (task, planner, sample) is one
//! *attempt*; the runner runs attempts with bounded concurrency and a per-attempt
//! timeout, scores each answer with the validator, and writes it to the [`Store`] the moment
//! it is scored.
//!
//! # Design
//!
//! - **The store is the run.** A benchmark over a thousand LLM calls dies of a rate limit,
//!   a laptop lid or Ctrl-C; so each attempt is one SQLite transaction, a resumed run skips
//!   exactly what has a result, and attempts that failed for reasons outside the planner
//!   (status `error`) are retried. The store's manifest pins the suite's content hash, the
//!   ability and the shard; each planner id is pinned to its configuration; mixing
//!   incompatible results is refused rather than averaged.
//! - **Planners answer, the harness scores.** A [`Planner`] returns an [`Answer`] (a plan,
//!   the raw reply, tokens); scoring is the same code for every planner, so an LLM and an
//!   external planner are judged identically. Replies are cleaned deterministically (the
//!   lenient plan reader, a tolerant JSON reader), never by another model.
//! - **A report needs only the store.** Tasks' metadata and reference-plan lengths are
//!   copied into the store, so `safeplan report RUN.db` works on a machine without the
//!   suite, and merged shards report as one run.
//!
//! # Map
//!
//! - [`Suite`], [`SuiteTask`], [`CompiledTask`], [`Shard`]: reading suites.
//! - [`Planner`], [`Request`], [`Answer`], [`Ability`], [`PlannerError`]: the trait.
//! - [`Store`], [`Manifest`], [`Attempt`], [`AttemptStatus`], [`TaskRecord`]: the store.
//! - [`PlanScore`], [`AbilityScore`]: how attempts are scored.

#![deny(missing_docs)]

pub mod abilities;
pub mod builtin;
pub mod error;
pub mod noise;
pub mod planner;
pub mod planners;
pub mod report;
pub mod runner;
pub mod score;
pub mod store;
pub mod suite;
pub mod synth;

pub use error::BenchError;
pub use planner::{Ability, Answer, Planner, PlannerError, Request};
pub use planners::llm::{LlmPlanner, LlmPlannerOptions};
pub use score::{AbilityScore, ConditionCheck, PlanScore};
pub use store::{
    Attempt, AttemptStatus, Manifest, MergeSummary, SCHEMA_VERSION, Store, TaskRecord,
};
pub use suite::{
    CompiledTask, ReadAnswer, Shard, Suite, SuiteTask, compile_sources, read_answer, split_steps,
    step_text,
};
