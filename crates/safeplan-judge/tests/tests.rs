//! safeplan-judge's integration tests, one binary: the loop, the TEACh judges on the
//! labelled dev split, and scoring.

mod common;
mod llm;
mod loop_;
mod state;
mod symbolic;
mod teach;
