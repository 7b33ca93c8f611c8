//! A classical planner for safeplan: reference plans, safe and unsafe plans of
//! safety-augmented tasks, safety effort, and a symbolic baseline for LLM planners.
//!
//! DESPITE gets its reference plans from Fast Downward, ENHSP and Tamer through Unified
//! Planning. This crate does the same job with no Java, no Python and no network, on the
//! very task representation `safeplan-validate` judges plans with, so a plan found here is
//! valid there by construction (and every test checks it anyway).
//!
//! # Design
//!
//! Planning runs in two phases.
//!
//! 1. **Grounding by reachability** ([`GroundTask::ground`]). Starting from the initial
//!    facts, the delete relaxation is explored to a fixpoint, instantiating each action only
//!    with parameters that the facts reached so far allow (static predicates prune before
//!    anything is built). Conditions are then compiled against the reached set: static
//!    facts, equality, types and unreachable atoms fold away, quantifiers expand over their
//!    objects, and what remains is kept in negation normal form, split into required atoms,
//!    forbidden atoms and a residue (disjunctions, comparisons). Numeric fluents that
//!    actions change become state variables; fluents nothing reads (`total-cost`) are not
//!    stored at all, so they do not multiply the state space.
//! 2. **Search** over packed states: atom bits followed by one word per numeric variable,
//!    kept once in an arena and deduplicated by a hash table of node ids. Breadth-first
//!    search gives shortest plans; A* with h_max or LM-cut gives shortest plans with fewer
//!    expansions, or cheapest ones when the metric is action costs ([`Measure`]: every
//!    result says what its plans are measured in, and why a metric was not minimized); LAMA's first iteration (lazy greedy search alternating h_FF and a
//!    landmark count, with preferred operators) and greedy best-first with h_FF give plans
//!    for large tasks. All stop on a state, memory or time limit, or a cancellation flag,
//!    and report which.
//!
//! Execution follows the validator's semantics exactly (SEMANTICS.md §2), including Kleene
//! logic over numeric errors and its comparison slack: the planner never applies a step the
//! validator would reject.
//!
//! **Safety.** [`SafetyPlanner`] searches the tracking form of a safety-augmented task (its
//! domain with the basic goal) for the basic goal with terminal danger at most d_max (safe)
//! or above it (unsafe). When danger provably never decreases and nothing else reads it,
//! safe searches prune states past the bound and unsafe ones treat every value above it as
//! one, so both state spaces are finite and "no such plan" is a proof, not a timeout.
//! **Safety effort** is |safe| − |unsafe| of the shortest plans, as the DESPITE paper
//! defines it.
//!
//! # Map
//!
//! - [`Planner`], [`SearchOptions`], [`SearchResult`], [`Outcome`]: plans for a plain task.
//! - [`SafetyPlanner`], [`SafetyEffort`]: basic, safe and unsafe plans of a
//!   safety-augmented task, and the effort between them.
//! - [`Algorithm`], [`Limits`], [`LimitKind`], [`Stats`]: how a search runs and what it cost.
//! - [`Measure`]: steps, or the metric's action costs.
//! - [`GroundTask`], [`GroundOptions`], [`GroundStats`], [`GroundError`]: grounding, for
//!   callers that want the ground actions themselves.
//!
//! # Example
//!
//! ```
//! use safeplan_pddl::{parse_domain, parse_problem};
//! use safeplan_search::{Algorithm, GroundOptions, Outcome, Planner, SearchOptions};
//! use safeplan_validate::Task;
//!
//! let domain = parse_domain("(define (domain d) (:predicates (at ?x) (link ?x ?y)) \
//!     (:action go :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b)) \
//!      :effect (and (not (at ?a)) (at ?b))))").value.unwrap();
//! let problem = parse_problem("(define (problem p) (:domain d) (:objects x y z) \
//!     (:init (at x) (link x y) (link y z) (link x z)) (:goal (at z)))").value.unwrap();
//! let task = Task::compile(&domain, &problem).unwrap();
//!
//! let planner = Planner::new(&task, &GroundOptions::default())?;
//! let result = planner.plan(&SearchOptions { algorithm: Algorithm::Bfs, ..Default::default() });
//! assert_eq!(result.outcome, Outcome::Found { plan: vec!["(go x z)".to_string()] });
//! # Ok::<(), safeplan_search::GroundError>(())
//! ```

#![deny(missing_docs)]

mod auto;
mod backchain;
mod chunked;
mod error;
mod eval;
mod ground;
mod heuristic;
mod lama;
mod landmarks;
mod lmcut;
mod mutex;
mod obligations;
mod planner;
mod reasonable;
mod relaxed;
mod release;
mod rows;
mod rules;
mod search;
#[cfg(test)]
mod testing;

pub use error::GroundError;
pub use ground::{CancelFlag, GroundOptions, GroundTask, Measure};
pub use planner::{GroundStats, Planner, SafetyEffort, SafetyPlanner, SearchOptions};
pub use rules::MAX_PLANNED_INSTANCES;
pub use search::{
    Algorithm, DEFAULT_MAX_MEMORY_MIB, LimitKind, Limits, Outcome, SearchResult, Stats,
    UnknownAlgorithm,
};
