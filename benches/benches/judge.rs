//! The judge loop's throughput: the state-tracking judge over the whole unlabelled TEACh
//! corpus (`teach/episodes.jsonl.gz`, 2,196 human sequences, 100,593 actions), the full
//! Judge–Reviser loop over it, and the loop's own overhead per round with a judge that
//! answers at once (what an LLM judge's latency is added to).
//!
//! Run with `cargo bench -p safeplan-benches --bench judge`.

#![allow(missing_docs, clippy::print_stderr)]

use std::io::Read;
use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use divan::Bencher;
use divan::counter::ItemsCount;
use safeplan_judge::teach::GoalWords;
use safeplan_judge::{
    ApplyCritiques, Critique, Episode, Judge, JudgeError, Judgement, Plan, RefineOptions, Refiner,
    StateJudge, read_episodes,
};

fn load() -> Result<Vec<Episode>, String> {
    let path = safeplan_benches::data_dir()?.join("teach/episodes.jsonl.gz");
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let eps = read_episodes(&text, Some(&path)).map_err(|e| e.to_string())?;
    Ok(eps.into_iter().map(|l| l.episode).collect())
}

static CORPUS: LazyLock<Vec<Episode>> = LazyLock::new(|| {
    load().unwrap_or_else(|e| {
        eprintln!("skipping: {e}");
        Vec::new()
    })
});

fn actions() -> usize {
    CORPUS.iter().map(|e| e.actions.len()).sum()
}

fn runtime() -> tokio::runtime::Runtime {
    match tokio::runtime::Builder::new_current_thread().build() {
        Ok(rt) => rt,
        Err(e) => panic!("no tokio runtime: {e}"),
    }
}

/// One pass of the state judge over every episode (critiques only, no loop).
#[divan::bench(sample_count = 10)]
fn state_judge_corpus(bencher: Bencher) {
    let goals: Vec<GoalWords> = CORPUS
        .iter()
        .map(|e| GoalWords::new(&format!("{} {}", e.goal, e.dialogue.join(" "))))
        .collect();
    bencher.counter(ItemsCount::new(actions())).bench(|| {
        CORPUS
            .iter()
            .zip(&goals)
            .map(|(e, g)| {
                let refs: Vec<&str> = e.actions.iter().map(String::as_str).collect();
                StateJudge::judge(g, &refs).len()
            })
            .sum::<usize>()
    });
}

/// The whole loop (state judge, deterministic reviser, up to 5 rounds) over every episode.
#[divan::bench(sample_count = 10)]
fn refine_corpus_state(bencher: Bencher) {
    let rt = runtime();
    let refiner = Refiner::new(
        Arc::new(StateJudge::default()),
        Arc::new(ApplyCritiques),
        RefineOptions::default(),
    );
    bencher
        .counter(ItemsCount::new(actions()))
        .bench(|| rt.block_on(refiner.refine_all(&CORPUS, |_, _| {})).len());
}

/// A judge with no latency that always asks to drop the first step: every round runs the
/// whole machinery (judge call, revision, provenance, oscillation check) and nothing else.
struct Instant;

#[async_trait]
impl Judge for Instant {
    fn name(&self) -> String {
        "instant".into()
    }
    async fn critique(&self, _: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        Ok(if plan.is_empty() {
            vec![]
        } else {
            vec![Critique::remove(0, "first")]
        }
        .into())
    }
}

/// Five rounds on a 50-step plan (the TEACh median is 35): the figure divided by 5 is the
/// loop's overhead per round.
#[divan::bench]
fn loop_overhead_five_rounds(bencher: Bencher) {
    let rt = runtime();
    let refiner = Refiner::new(
        Arc::new(Instant),
        Arc::new(ApplyCritiques),
        RefineOptions::default(),
    );
    let episode = Episode {
        id: "bench".into(),
        actions: (0..50).map(|i| format!("Driver.Move({i}.0)")).collect(),
        ..Episode::default()
    };
    bencher.bench(|| rt.block_on(refiner.refine(&episode)).rounds.len());
}

fn main() {
    divan::main();
}
