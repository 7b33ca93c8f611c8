//! Test support shared by safeplan's crates (never a dependency of a library itself).
//!
//! safeplan's tests compare the engine with expectations that do not come from the engine:
//! VAL's verdicts on real corpora, hand-computed cases, and a second interpreter written to
//! be obviously right rather than fast. This crate holds the parts of that which more than
//! one crate needs, so that the validator, the planner and the judge are all tested against
//! the same reference and the same data. It is a dev-dependency only and is not published.
//!
//! - [`data_dir`] finds the shared reference corpora, and makes a missing corpus a failure
//!   under `CI=true`, so CI can never pass by not looking.
//! - [`reference`](mod@reference) is a second, independent PDDL interpreter: it walks the AST over sets of
//!   strings, with none of the engine's compilation, and agrees with VAL on the whole IPC
//!   corpus by itself. Differential tests compare the engine (and the planner) with it.
//! - [`gen`] is a proptest strategy for small random tasks and plans that exercise every
//!   feature the engine supports.
//! - [`reply_styles`] holds a plan's steps and mutates them the way models err;
//!   [`reply_gen`] writes them as a model would, composing independent dimensions (step
//!   syntax, steps per line and their joiners, numbering, labels and notes, wrappers,
//!   Unicode spacing and case, prose, drafts), so that the reply reader can be checked to
//!   give back exactly that plan in combinations nobody templated.
//! - [`temporal`](mod@temporal) is the reference for timed plans of durative actions, in the
//!   simplest form (a list of happenings over a set of strings), and [`gen_temporal`] draws
//!   small temporal tasks and plans for it.
//!
//! Design choices: the reference interpreter shares nothing with the engine but the AST
//! (no interning, no grounding, no bitsets), so a bug in compilation cannot hide in both;
//! the generator builds tasks from a vector of numbers, so proptest shrinks a failing task
//! by shrinking the vector and a failure reproduces from its seed on any machine.
//!
//! Test code panics on purpose (that is how a test fails), so the workspace's `unwrap`
//! lint is relaxed here.

#![deny(missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod r#gen;
pub mod gen_temporal;
pub mod reference;
pub mod reply_gen;
pub mod reply_styles;
pub mod temporal;

use std::path::PathBuf;

/// The shared reference data (`../shared/data` beside the repository, or `$SAFEPLAN_DATA`).
///
/// `None` means "skip": the data is not on this machine. Under `CI=true` a missing corpus is
/// a failure, not a skip.
#[allow(clippy::print_stderr)] // a skipped corpus must be visible in the test output
pub fn data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SAFEPLAN_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.join("ipc/manifest.jsonl").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "reference data not found at {} (set SAFEPLAN_DATA); under CI=true this is a failure",
            dir.display()
        );
    }
    eprintln!("skipping: reference data not found at {}", dir.display());
    None
}
