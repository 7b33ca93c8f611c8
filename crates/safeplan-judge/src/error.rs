//! The one error type of this crate.

use std::path::PathBuf;

use safeplan_llm::LlmError;

/// Why a judge, a reviser or the episode reader failed. One variant per thing a caller
/// does something different about.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// A file could not be read.
    #[error("cannot read {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// A line of an episodes file is not a valid episode.
    #[error("{}:{line}:{column}: not a valid episode: {message}", path.as_ref().map_or("<episodes>".to_string(), |p| p.display().to_string()))]
    Episode {
        /// The file, when read from one.
        path: Option<PathBuf>,
        /// 1-based line.
        line: usize,
        /// 1-based column (1 when the whole line is at fault).
        column: usize,
        /// What is wrong, and what a valid line needs.
        message: String,
    },
    /// A bound PDDL task has errors; `what` is `file:line:col` when known.
    #[error("{what}: {message}; run `safeplan check` on the task for every diagnostic")]
    Task {
        /// Where.
        what: String,
        /// The first error.
        message: String,
    },
    /// A judge or reviser needs something the episode does not have (a symbolic judge on
    /// an episode with no PDDL task).
    #[error("episode `{episode}`: {message}")]
    Unsupported {
        /// The episode id.
        episode: String,
        /// What is missing and how to provide it.
        message: String,
    },
    /// A cross-validation cannot split the episodes as asked.
    #[error(
        "cannot split {games} labelled games into {folds} folds: give --cv a number from 2 to the number of games"
    )]
    Folds {
        /// The folds asked for.
        folds: usize,
        /// The labelled games there are.
        games: usize,
    },
    /// A judge or reviser spec that names nothing buildable (`--judge oracle`).
    #[error("{message}; {hint}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        message: String,
        /// What to write instead.
        hint: String,
    },
    /// A judge or reviser written outside this crate (a Python callable, a plugin) failed;
    /// the message is its own.
    #[error("{name} failed: {message}")]
    External {
        /// The judge's or reviser's name.
        name: String,
        /// What it said.
        message: String,
    },
    /// The LLM call failed (after the provider stack's retries).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The model answered, but its reply could not be used at all.
    #[error("unusable reply from {provider}: {message}")]
    Reply {
        /// The provider id.
        provider: String,
        /// What was wrong with it.
        message: String,
    },
}

impl JudgeError {
    /// Whether no other call can succeed either: an LLM error that is
    /// [fatal](LlmError::is_fatal) (a wrong key, an exhausted quota, an unknown model, an
    /// endpoint that is no chat API). A run stops calling after it.
    pub fn is_fatal(&self) -> bool {
        matches!(self, JudgeError::Llm(e) if e.is_fatal())
    }
}
