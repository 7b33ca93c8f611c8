//! The one integration-test binary of safeplan-validate: each module is a family of tests.

mod corpus;
mod differential;
mod r#gen;
mod reference;
mod reference_ipc;
mod safety;
mod scale;
mod semantics;

use std::path::PathBuf;

/// The shared reference data (`../shared/data` beside the repository, or `$SAFEPLAN_DATA`).
///
/// `None` means "skip": the data is not on this machine. Under `CI=true` a missing corpus is
/// a failure, not a skip, so CI can never pass by not looking.
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
