//! What can go wrong in a benchmark, one variant per thing a caller can act on.

use std::path::PathBuf;

/// A failure of the harness itself (reading a suite, the results store, a planner spec).
///
/// A planner failing on one task is not a `BenchError`: it is an attempt with status
/// `failed` or `error` in the store (see [`crate::AttemptStatus`]).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A file or folder could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A suite folder holds no task folder.
    #[error(
        "no task folder under {0} (a task folder holds domain.pddl and problem.pddl, or safe_domain.pddl and safe_problem.pddl, and usually metadata.json)"
    )]
    EmptySuite(PathBuf),
    /// A task's PDDL or metadata cannot be used; `at` is `file:line:col` where known.
    #[error("{at}: {message}")]
    Task {
        /// Where: a file, with line and column when the problem has a position.
        at: String,
        /// What is wrong, and how to fix it when there is a hint.
        message: String,
    },
    /// A planner spec (`search:astar`, `llm:openai:gpt-4o`, `replay:FILE`, `cmd:'…'`) is wrong.
    #[error("planner spec `{spec}`: {message}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// The results store could not be opened, read or written.
    #[error("results store {path}: {message}")]
    Store {
        /// The SQLite file.
        path: PathBuf,
        /// The SQLite error or the inconsistency found.
        message: String,
    },
    /// The store was made for another suite, ability or planner configuration; mixing
    /// results would make the numbers meaningless.
    #[error("results store {path} does not match this run: {message}")]
    Mismatch {
        /// The SQLite file.
        path: PathBuf,
        /// What differs, and how to proceed (a new `--out`, or the original settings).
        message: String,
    },
    /// A replay file line could not be read; `at` is `file:line`.
    #[error("{at}: {message}")]
    Replay {
        /// `file:line[:col]`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// Two stores being merged disagree about one attempt.
    #[error("cannot merge: {0}")]
    Merge(String),
}

impl BenchError {
    pub(crate) fn io(path: impl Into<PathBuf>, e: &std::io::Error) -> BenchError {
        BenchError::Io {
            path: path.into(),
            message: e.to_string(),
        }
    }
}
