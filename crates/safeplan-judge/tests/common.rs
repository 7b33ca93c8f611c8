//! Shared helpers: reading the reference data.

use std::path::PathBuf;

use safeplan_judge::{LabelledEpisode, read_episodes};

/// The TEACh judge-dev split, or `None` (a skip) when the corpus is absent outside CI.
pub fn judge_dev() -> Option<Vec<LabelledEpisode>> {
    let path: PathBuf = safeplan_testkit::data_dir()?.join("teach/judge-dev.jsonl");
    let text = std::fs::read_to_string(&path).expect("judge-dev.jsonl is readable");
    Some(read_episodes(&text, Some(&path)).expect("judge-dev.jsonl parses"))
}

/// Run a future to completion on a current-thread runtime.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}
