//! The integration tests of safeplan-llm, one binary: pure adapter tests against the
//! providers' documented JSON, and loopback (wiremock) tests of the executor and layers.
//! Nothing here touches the internet.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "it/common.rs"]
mod common;
#[path = "it/executor.rs"]
mod executor;
#[path = "it/gemini.rs"]
mod gemini;
#[path = "it/layers.rs"]
mod layers;
#[path = "it/ollama.rs"]
mod ollama;
#[path = "it/openai.rs"]
mod openai;
#[path = "it/security.rs"]
mod security;
#[path = "it/spec.rs"]
mod spec;
