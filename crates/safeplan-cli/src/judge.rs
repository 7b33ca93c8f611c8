//! `safeplan judge`: run the Judge–Planner loop over an episodes file and write what it
//! did, round by round; score it when the episodes carry gold labels.
//!
//! Exit codes: 0 every episode ran (converged or not); 1 some episode's loop stopped on a
//! judge or reviser error (the others are written all the same); 2 the invocation cannot
//! work (unreadable or invalid episodes file, unknown judge, output folder unwritable).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use safeplan_judge::score::{JudgeMetrics, judge_metrics};
use safeplan_judge::transcript::{RefinedLine, transcript_lines};
use safeplan_judge::{Judge, LabelledEpisode, RefineOptions, Refiner, StopReason};
use safeplan_llm::Stack;

use crate::outcome::Failure;

/// Arguments of `safeplan judge`.
#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The episodes: JSON Lines (optionally gzipped, `.gz`), one episode per line, as in
    /// TEACh's judge-dev.jsonl (see docs/FORMAT.md).
    #[arg(value_name = "EPISODES")]
    pub episodes: PathBuf,

    /// The judge: rule, state (state:all with the habit rules, state:RULE,RULE,... with
    /// the rules named), symbolic, llm:PROVIDER_SPEC, llm-json:PROVIDER_SPEC (JSON mode), or
    /// ensemble:union|intersection|majority:A,B,...
    #[arg(long, value_name = "JUDGE", default_value = "state")]
    pub judge: String,

    /// The reviser: auto (REMOVE applied as is; gaps planned when a PDDL task is bound),
    /// apply (REMOVE and spelled-out MISSING only), symbolic, or llm:PROVIDER_SPEC (the
    /// paper's Planning Agent, its output checked against the critiques).
    #[arg(long, value_name = "REVISER", default_value = "auto")]
    pub reviser: String,

    /// Rounds at most.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_rounds: usize,

    /// Episodes refined at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,

    /// The folder to write refined.jsonl, transcript.jsonl and metrics.json into (created
    /// if missing; existing files in it are replaced).
    #[arg(long, value_name = "DIR", default_value = "judge-out")]
    pub out: PathBuf,

    /// Print the metrics as JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Cross-validate instead of scoring the whole file: split the labelled episodes into K
    /// folds by game, fit the judge's settings on K-1 (the `state` judge chooses its rules)
    /// and score the loop on the held-out fold; pooled figures with 95% bootstrap intervals
    /// over games, to the terminal and `cv.json`.
    #[arg(long, value_name = "K")]
    pub cv: Option<usize>,

    /// Seed of the cross-validation's fold assignment and bootstrap.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "cv")]
    pub cv_seed: u64,

    /// LLM cache and cassette for llm: judges and revisers (--cache, --record, --replay).
    #[command(flatten)]
    pub replay: crate::llm::ReplayArgs,
}

/// A single-threaded async runtime for the loop (LLM judges await their providers).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            input(
                format!("cannot start the async runtime: {e}"),
                "this is a bug; please report it",
            )
        })
}

/// How the run went.
pub enum Status {
    /// Every episode's loop ran to its end.
    Done,
    /// Some loop stopped on an error.
    SomeFailed,
    /// The judge (or reviser) cannot work as configured (a wrong key, an unknown model):
    /// the run stopped at the first such error.
    Stopped,
}

pub(crate) fn input(message: impl Into<String>, hint: impl Into<String>) -> Failure {
    Failure::Input {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

/// A judge-crate error as the CLI's input failure (exit 2), with a hint for each kind.
pub(crate) fn judge_failure(e: safeplan_judge::JudgeError) -> Failure {
    use safeplan_judge::JudgeError;
    match e {
        JudgeError::Spec { message, hint, .. } => input(message, hint),
        JudgeError::Llm(e) => input(
            e.to_string(),
            "check the provider spec and its environment variables (see docs/LLM.md)",
        ),
        JudgeError::Episode { .. } => input(
            e.to_string(),
            "each line is an object with at least \"id\" and \"actions\" (see docs/FORMAT.md)",
        ),
        other => input(other.to_string(), "check the file named above"),
    }
}

/// Build a judge from its spec (see `safeplan_judge::judge_from_spec`).
pub fn judge_from_spec(spec: &str, stack: &Stack) -> Result<Arc<dyn Judge>, Failure> {
    safeplan_judge::judge_from_spec(spec, stack).map_err(judge_failure)
}

/// Read an episodes file, gunzipping `.gz`.
pub fn load_episodes(path: &Path) -> Result<Vec<LabelledEpisode>, Failure> {
    safeplan_judge::load_episodes(path).map_err(judge_failure)
}

/// Run `safeplan judge`.
pub fn run(args: &JudgeArgs) -> Result<Status, Failure> {
    if args.max_rounds == 0 {
        return Err(input("--max-rounds must be at least 1", "the paper uses 5"));
    }
    let stack = args.replay.stack();
    let judge = judge_from_spec(&args.judge, &stack)?;
    let reviser =
        safeplan_judge::reviser_from_spec(&args.reviser, &stack).map_err(judge_failure)?;
    let labelled = load_episodes(&args.episodes)?;
    if let Some(folds) = args.cv {
        return crate::judge_cv::run(args, folds, judge, reviser, &labelled);
    }
    let judge_name = judge.name();
    let unwritable = |path: &Path, e: std::io::Error| {
        input(
            format!("cannot write {}: {e}", path.display()),
            "choose another --out folder",
        )
    };
    std::fs::create_dir_all(&args.out).map_err(|e| unwritable(&args.out, e))?;
    let refined_path = args.out.join("refined.jsonl");
    let transcript_path = args.out.join("transcript.jsonl");
    let create = |p: &Path| {
        File::create(p)
            .map(BufWriter::new)
            .map_err(|e| unwritable(p, e))
    };
    let mut refined_out = create(&refined_path)?;
    let mut transcript_out = create(&transcript_path)?;

    let episodes: Vec<_> = labelled.iter().map(|l| l.episode.clone()).collect();
    let gold: Vec<_> = labelled.iter().map(|l| l.gold.clone()).collect();
    let options = RefineOptions {
        max_rounds: args.max_rounds,
        concurrency: args.concurrency.max(1),
    };
    let refiner = Refiner::new(judge, reviser, options);
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(episodes.len() as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} episodes · {elapsed} · eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let runtime = runtime()?;
    // Each episode is written as it finishes, so an interrupted run keeps what it did.
    let mut write_error: Option<std::io::Error> = None;
    let refinements = runtime.block_on(refiner.refine_all(&episodes, |_, r| {
        bar.inc(1);
        if write_error.is_some() {
            return;
        }
        let result = (|| -> std::io::Result<()> {
            for line in transcript_lines(r, &judge_name) {
                serde_json::to_writer(&mut transcript_out, &line)?;
                transcript_out.write_all(b"\n")?;
            }
            serde_json::to_writer(&mut refined_out, &RefinedLine::new(r))?;
            refined_out.write_all(b"\n")?;
            Ok(())
        })();
        if let Err(e) = result {
            write_error = Some(e);
        }
    }));
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(unwritable(&args.out, e));
    }
    refined_out
        .flush()
        .map_err(|e| unwritable(&refined_path, e))?;
    transcript_out
        .flush()
        .map_err(|e| unwritable(&transcript_path, e))?;

    // A judge whose calls all failed scored nothing: no P/R/F1 of nothing.
    let stopped = refinements.iter().find(|r| r.fatal);
    let all_failed =
        !refinements.is_empty() && refinements.iter().all(|r| r.stop == StopReason::Error);
    let has_gold = gold.iter().any(Option::is_some) && stopped.is_none() && !all_failed;
    let metrics = judge_metrics(&refinements, &gold, args.max_rounds);
    let mut written = vec![
        refined_path.display().to_string(),
        transcript_path.display().to_string(),
    ];
    if has_gold {
        let path = args.out.join("metrics.json");
        let json = serde_json::to_string_pretty(&metrics).map_err(|e| {
            input(
                format!("cannot encode the metrics: {e}"),
                "this is a bug; please report it",
            )
        })?;
        std::fs::write(&path, json + "\n").map_err(|e| unwritable(&path, e))?;
        written.push(path.display().to_string());
    }
    let failed = refinements
        .iter()
        .filter(|r| r.stop == StopReason::Error)
        .count();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let text = if args.json {
        serde_json::to_string_pretty(&metrics).unwrap_or_default() + "\n"
    } else {
        summary(
            args,
            &judge_name,
            &refinements,
            &metrics,
            has_gold,
            &written,
        )
    };
    // A reader that went away (`| head`) is not an error of the run.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    for r in refinements.iter().filter(|r| r.stop == StopReason::Error) {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "error: episode {}: {}",
                r.id,
                r.error.as_deref().unwrap_or("failed")
            );
        }
    }
    if let Some(r) = stopped {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "error: stopped after the first episode: {}\n  no P/R/F1 is reported; fix \
                 the configuration and run the same command again ({} of {} episodes were not \
                 judged)",
                r.error.as_deref().unwrap_or("the judge failed"),
                episodes.len() - refinements.len(),
                episodes.len(),
            );
        }
        return Ok(Status::Stopped);
    }
    if all_failed && gold.iter().any(Option::is_some) {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("error: every episode failed; no P/R/F1 is reported");
        }
    }
    Ok(if failed > 0 {
        Status::SomeFailed
    } else {
        Status::Done
    })
}

fn summary(
    args: &JudgeArgs,
    judge: &str,
    refinements: &[safeplan_judge::Refinement],
    metrics: &JudgeMetrics,
    has_gold: bool,
    written: &[String],
) -> String {
    let count = |s: StopReason| refinements.iter().filter(|r| r.stop == s).count();
    let original: usize = refinements.iter().map(|r| r.original_len).sum();
    let flagged: usize = refinements.iter().map(|r| r.flagged().len()).sum();
    let inserted: usize = refinements.iter().map(|r| r.missing().len()).sum();
    let mut s = format!(
        "judged {} episodes with {judge} (reviser {}, at most {} rounds): {} converged, {} at the round limit, {} oscillating, {} unchanged, {} errors\n",
        refinements.len(),
        args.reviser,
        args.max_rounds,
        count(StopReason::Converged),
        count(StopReason::MaxRounds),
        count(StopReason::Oscillation),
        count(StopReason::NoChange),
        count(StopReason::Error),
    );
    s.push_str(&format!(
        "flagged {flagged} of {original} original steps; inserted {inserted}\n"
    ));
    if has_gold {
        let m = metrics;
        s.push_str(&format!(
            "\n| episodes | precision | recall | F1 | tp | fp | fn |\n|---:|---:|---:|---:|---:|---:|---:|\n| {} | {:.3} | {:.3} | {:.3} | {} | {} | {} |\n",
            m.episodes, m.flagged.precision, m.flagged.recall, m.flagged.f1, m.flagged.tp, m.flagged.fp, m.flagged.fn_
        ));
        s.push_str(&format!(
            "\nMISSING (indicative): tp {} fp {} fn {}\n",
            m.missing.tp, m.missing.fp, m.missing.fn_
        ));
    }
    s.push_str("\nconverged by round:");
    for p in &metrics.convergence {
        s.push_str(&format!("  {}: {:.1}%", p.round, 100.0 * p.share));
    }
    s.push_str(&format!("\n\nwrote {}\n", written.join(", ")));
    s
}
