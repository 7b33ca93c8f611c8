//! The built-in planners.

pub mod llm;
