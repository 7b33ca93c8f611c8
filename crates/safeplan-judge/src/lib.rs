//! The plan verification loop: a Judge critiques an action sequence step by step, a
//! Reviser applies the critiques, and the two repeat until the Judge is satisfied
//! (Algorithm 1 of Hariharan et al., "Plan Verification for LLM-Based Embodied Task
//! Completion Agents").
//!
//! # Design
//!
//! **Provenance is the loop's invariant.** Precision and recall are computed over the
//! *original* steps an episode started with, but every round re-indexes the plan. So a
//! [`Plan`] is a list of [`Step`]s that each carry their [`Origin`]: the index they had in
//! the original sequence, or the round that inserted them. Critiques index the plan as the
//! judge saw it; revisers keep origins of the steps they keep; what the loop "flagged" is
//! exactly the set of original indices missing from the final plan
//! ([`Refinement::flagged`]). No step is ever matched back by its text.
//!
//! **Judges see only what a user would give them.** An [`Episode`] holds the id, goal,
//! dialogue, actions and an optional bound PDDL task; gold labels live in a separate
//! [`Gold`] beside it ([`LabelledEpisode`]) and are only read by [`score`].
//!
//! **Two object-safe traits, many implementations.** [`Judge`] and [`Reviser`] are
//! `async_trait`s so an LLM judge can await its provider while deterministic ones return
//! at once:
//!
//! - [`RuleJudge`]: the paper's rule baseline, to reproduce its table row;
//! - [`StateJudge`]: our deterministic judge for TEACh-style sequences, which replays the
//!   sequence against a model of what is held, placed, switched and opened;
//! - [`SymbolicJudge`]: for episodes bound to a PDDL task, driven by the validator;
//! - [`LlmJudge`]: the paper's Judge over any LLM provider, in tagged prose or JSON, its
//!   reply bound to steps by number and text, tags inside quoted steps ignored;
//! - [`EnsembleJudge`]: union, intersection or majority of any judges;
//! - [`ApplyCritiques`] (deterministic) and [`SymbolicReviser`] (plans the MISSING gaps);
//! - [`LlmReviser`]: the paper's Planning Agent, its rewritten plan checked against the
//!   critiques so no unflagged step is dropped or rewritten silently.
//!
//! **The loop never loses work.** [`Refiner::refine`] stops on convergence, after
//! `max_rounds`, on oscillation (a plan seen before) or when the reviser changes nothing;
//! an error of a judge or reviser ends that episode's loop with every earlier round kept.
//! [`Refiner::refine_all`] runs many episodes with bounded concurrency and reports each as
//! it finishes, so a caller can stream results to disk.
//!
//! # Map
//!
//! - [`Episode`], [`Gold`], [`LabelledEpisode`], [`read_episodes`]: the input, read from
//!   JSONL; [`BoundTask`], [`TaskPaths`], [`to_pddl_plan`]: episodes tied to
//!   a PDDL task (a `BoundTask` evaluates steps as the library's `Assessment`).
//! - [`Plan`], [`Step`], [`Origin`], [`Critique`], [`CritiqueKind`]: plans with provenance
//!   and what judges say about them.
//! - [`Judge`], [`Reviser`], [`Judgement`], [`Revision`]: the two traits and their answers;
//!   the judges and revisers listed above implement them.
//! - [`Refiner`], [`RefineOptions`], [`Refinement`], [`Round`], [`StopReason`]: the loop.
//! - [`score`]: precision, recall and the convergence curve against gold labels;
//!   [`cv`]: the same figures cross-validated by game, with bootstrap intervals.
//! - [`judge_from_spec`], [`reviser_from_spec`], [`load_episodes`]: judges, revisers and
//!   episodes named the way the CLI and the Python binding name them;
//!   [`judge_from_spec_with`] and [`reviser_from_spec_with`] where a front end brings its
//!   own model for a bare `llm`.
//! - [`transcript`]: the JSONL lines a run writes. [`teach`]: reading TEACh-style steps.
//!
//! A judge of your own is one `async fn critique`; the `custom_judge` example in
//! `examples/` writes one and runs it in the loop.

#![deny(missing_docs)]

pub mod cv;
mod ensemble;
mod episode;
mod error;
mod llm;
pub mod noise;
mod plan;
pub mod priors;
mod refine;
mod revise;
mod rule;
pub mod score;
mod spec;
mod state;
mod symbolic;
pub mod teach;
pub mod transcript;

pub use ensemble::{Combine, EnsembleJudge};
pub use episode::{
    BoundTask, Episode, Gold, LabelledEpisode, TaskPaths, read_episodes, to_pddl_plan,
};
pub use error::JudgeError;
pub use llm::{
    LlmJudge, LlmJudgeOptions, LlmReviser, LlmReviserOptions, check_revision, parse_judge_json,
    parse_judge_text,
};
pub use plan::{Critique, CritiqueKind, Origin, Plan, Step};
pub use refine::{
    Judge, Judgement, RefineOptions, Refinement, Refiner, Reviser, Revision, Round, StopReason,
};
pub use revise::{ApplyCritiques, apply_critiques};
pub use rule::RuleJudge;
pub use spec::{
    JUDGE_SPECS, REVISER_SPECS, judge_from_spec, judge_from_spec_with, load_episodes,
    reviser_from_spec, reviser_from_spec_with,
};
pub use state::{StateJudge, StateRule, StateRules};
pub use symbolic::{AutoReviser, SymbolicJudge, SymbolicReviser, SymbolicReviserOptions};
