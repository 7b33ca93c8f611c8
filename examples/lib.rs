//! Runnable examples of safeplan's libraries, one short program per way of using them.
//!
//! This package has no API of its own: it exists so that `cargo run -p safeplan-examples
//! --example NAME` works from a fresh clone, and so that `cargo test --workspace` compiles
//! every example (an example that no longer builds is a failing test, not a stale page).
//! Each example is a file beside this one, written to be read top to bottom and copied:
//!
//! | example | what it shows | crates it needs |
//! |---|---|---|
//! | `embed_validator` | a robot control loop that checks each action with the runtime [`Monitor`](safeplan_validate::Monitor) before executing it, refuses the step that would raise the danger fluent, says why, and carries on with the safe alternative | `safeplan-pddl`, `safeplan-validate` (no async, no network) |
//! | `custom_provider` | an implementation of [`LlmProvider`](safeplan_llm::LlmProvider) for a local toy model, wrapped in the standard retry and usage layers with [`Stack::build_on`](safeplan_llm::Stack::build_on) | `safeplan-llm`, `tokio` |
//! | `custom_judge` | an implementation of [`Judge`](safeplan_judge::Judge) run in the [`Refiner`](safeplan_judge::Refiner) loop with [`ApplyCritiques`](safeplan_judge::ApplyCritiques) | `safeplan-judge`, `tokio` |
//! | `benchmark_planners` | two planners run on the built-in suite into a resumable results store, and DESPITE's rates with bootstrap intervals computed from it | `safeplan-bench`, `safeplan-metrics`, `tokio` |
//!
//! ```text
//! cargo run -q -p safeplan-examples --example embed_validator
//! cargo run -q -p safeplan-examples --example custom_provider
//! cargo run -q -p safeplan-examples --example custom_judge
//! cargo run -q -p safeplan-examples --example benchmark_planners
//! ```
//!
//! The examples use no network and no keys, run in well under a second once built, and are
//! run by `.ci/run`, so their output stays true. The task folders they read are the
//! built-in suite in `examples/tasks/` (described in `docs/FORMAT.md`).

#![deny(missing_docs)]
