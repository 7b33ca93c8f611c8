//! Why a task cannot be planned for.

/// A task the planner cannot ground.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GroundError {
    /// Grounding would exceed a size limit.
    #[error(
        "the grounded task would have more than {limit} {what}; raise the limit \
         (GroundOptions) if memory allows, or give the problem fewer objects"
    )]
    TooLarge {
        /// What grew too large: `ground actions` or `reachable facts`.
        what: &'static str,
        /// The limit it reached.
        limit: usize,
    },
    /// The caller set [`GroundOptions::cancel`](crate::GroundOptions::cancel).
    #[error("grounding was cancelled (the call's time limit passed)")]
    Cancelled,
    /// The task uses a feature the planner does not support (docs/PLANNING.md lists them).
    #[error("the planner does not support {feature}; validate plans from another planner instead")]
    Unsupported {
        /// The feature.
        feature: &'static str,
    },
}
