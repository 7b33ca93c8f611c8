//! Why a domain and problem cannot be compiled into a task.

use safeplan_pddl::{Diagnostic, FileKind, Span};

/// Why a domain and problem cannot be compiled into a task.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// The domain or problem has errors the checker found; fix them first.
    #[error("the task has {} error(s); run `safeplan check` to see them", .0.iter().filter(|d| d.is_error()).count())]
    Invalid(Vec<Diagnostic>),
    /// The domain uses a feature this engine does not execute.
    #[error("{what} is not supported by the validator{}", at_span(*.span))]
    Unsupported {
        /// What is not supported, in words.
        what: String,
        /// Which file it is in.
        file: FileKind,
        /// Where.
        span: Span,
    },
    /// Derived predicates whose definitions depend negatively on each other in a cycle.
    #[error(
        "derived predicate `{predicate}` depends on its own negation; the axioms cannot be stratified"
    )]
    Unstratifiable {
        /// The derived predicate on the cycle.
        predicate: String,
        /// Its declaration in the domain.
        span: Span,
    },
    /// The trajectory constraints expand (`forall` by `forall`) into more instances than
    /// the limit.
    #[error(
        "the trajectory constraints expand into more than {limit} instances{}",
        at_span(*.span)
    )]
    TooManyConstraints {
        /// The limit ([`crate::MAX_CONSTRAINT_INSTANCES`]).
        limit: usize,
        /// Which file holds the constraint that went past it.
        file: FileKind,
        /// Where.
        span: Span,
    },
    /// Computing derived predicates would enumerate too many groundings.
    #[error(
        "derived predicate `{predicate}` has {groundings} groundings, more than the limit of {limit}"
    )]
    TooLarge {
        /// The derived predicate.
        predicate: String,
        /// How many parameter combinations it has.
        groundings: u128,
        /// The limit.
        limit: u128,
    },
}

fn at_span(span: Span) -> String {
    if span.is_empty() {
        String::new()
    } else {
        format!(" (bytes {}..{})", span.start, span.end)
    }
}
