//! `safeplan bench` and `safeplan merge`: run planners over a suite into a results store,
//! and combine the stores of shards.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use safeplan_bench::planners::{DEFAULT_SPECS, SpecOptions, from_spec};
use safeplan_bench::report::{Report, ReportOptions, render_html, render_markdown};
use safeplan_bench::runner::{self, RunOptions, RunSummary};
use safeplan_bench::{
    Ability, Attempt, AttemptStatus, LlmPlannerOptions, Planner, Shard, Store, Suite,
};
use safeplan_metrics::BootstrapOptions;

use crate::outcome::Failure;

/// Arguments of `safeplan bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The suite: a folder of task folders (domain.pddl, problem.pddl, metadata.json).
    #[arg(value_name = "SUITE", default_value = "examples/tasks")]
    pub suite: PathBuf,

    /// A planner to run (repeatable): search or search:ALG (ALG is auto, the default, astar, lmcut,
    /// lama, lama-anytime, gbfs or bfs),
    /// search-safe or search-safe:ALG, llm:PROVIDER:MODEL, replay:FILE,
    /// cmd:'COMMAND {domain} {problem} {plan}'. Default: search:astar, search:gbfs and
    /// search-safe:astar.
    #[arg(long = "planner", value_name = "SPEC")]
    pub planners: Vec<String>,

    /// The ability measured: plan, identify-dangers, infer-conditions, safe-alternative.
    #[arg(long, value_name = "ABILITY", default_value = "plan")]
    pub ability: String,

    /// Samples per task and planner.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub samples: u32,

    /// Attempts running at once.
    #[arg(long, value_name = "C", default_value_t = 4)]
    pub concurrency: usize,

    /// Seconds one attempt may take.
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub timeout: f64,

    /// The results store (SQLite). An existing store of the same suite, ability and shard
    /// is resumed. Default: bench-out/SUITE_NAME.db.
    #[arg(long, value_name = "RUN.db")]
    pub out: Option<PathBuf>,

    /// Run only shard K of N (1-based) of the suite's tasks.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,

    /// Where the HTML report goes. Default: the store's path with .html.
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,

    /// Print no report at the end (the store has everything; see `safeplan report`).
    #[arg(long)]
    pub no_report: bool,

    /// LLM cache and cassette (--cache, --record, --replay).
    #[command(flatten)]
    pub replay: crate::llm::ReplayArgs,

    /// Sampling temperature of LLM planners (default 0; with --samples above 1, each sample
    /// also gets its own seed).
    #[arg(long, value_name = "T")]
    pub temperature: Option<f64>,

    /// Seed of the report's bootstrap.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
}

/// Arguments of `safeplan merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The stores to combine (shards of one run, or runs of other planners on one suite).
    #[arg(value_name = "RUN.db", required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,

    /// The new store to write.
    #[arg(long, value_name = "OUT.db")]
    pub out: PathBuf,
}

/// How a benchmark run ended.
pub enum Status {
    /// Every attempt has a result.
    Complete,
    /// Some attempts failed without a result (provider, network); run again to retry them.
    Errors,
    /// Ctrl-C stopped the run; run again to resume it.
    Cancelled,
    /// A planner's configuration cannot work (a wrong key, an exhausted quota, an unknown
    /// model, an endpoint that is no chat API): the run stopped asking it; fix it and run
    /// again to resume.
    Stopped,
}

fn input(message: impl Into<String>, hint: impl Into<String>) -> Failure {
    Failure::Input {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

fn bench_failure(e: safeplan_bench::BenchError) -> Failure {
    let hint = match &e {
        safeplan_bench::BenchError::Mismatch { .. } => "give another --out file",
        safeplan_bench::BenchError::Spec { .. } => "see `safeplan bench --help` for planner specs",
        safeplan_bench::BenchError::EmptySuite(_) => {
            "point at a folder of task folders, e.g. examples/tasks"
        }
        safeplan_bench::BenchError::Io { .. } => "check the path",
        _ => "fix the file named above and run the same command again",
    };
    input(e.to_string(), hint)
}

/// Run `safeplan bench`.
pub fn run(args: &BenchArgs) -> Result<Status, Failure> {
    let ability = Ability::parse(&args.ability).ok_or_else(|| {
        input(
            format!("unknown ability `{}`", args.ability),
            "use plan, identify-dangers, infer-conditions or safe-alternative",
        )
    })?;
    if args.samples == 0 || args.concurrency == 0 {
        return Err(input(
            "--samples and --concurrency must be at least 1",
            "e.g. --samples 3 --concurrency 8",
        ));
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(input(
            format!(
                "--timeout {} is not a usable number of seconds",
                args.timeout
            ),
            "write e.g. --timeout 60",
        ));
    }
    let shard = match &args.shard {
        None => Shard::ALL,
        Some(s) => Shard::parse(s).map_err(|m| input(m, "write e.g. --shard 2/4"))?,
    };
    let suite = Suite::load(&args.suite).map_err(bench_failure)?;
    let stack = args.replay.stack();
    let llm = LlmPlannerOptions {
        temperature: args.temperature.or(Some(0.0)),
        seed_per_sample: args.samples > 1,
        ..LlmPlannerOptions::default()
    };
    let spec_options = SpecOptions {
        llm_stack: stack,
        llm,
        command_timeout: Duration::from_secs_f64(args.timeout),
    };
    let specs: Vec<String> = if args.planners.is_empty() {
        DEFAULT_SPECS.iter().map(|s| s.to_string()).collect()
    } else {
        args.planners.clone()
    };
    let mut planners: Vec<Arc<dyn Planner>> = Vec::new();
    for spec in &specs {
        planners.extend(from_spec(spec, &spec_options).map_err(bench_failure)?);
    }
    let out = args.out.clone().unwrap_or_else(|| default_out(&suite));
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            input(
                format!("cannot create {}: {e}", parent.display()),
                "choose another --out",
            )
        })?;
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let options = RunOptions {
        ability,
        samples: args.samples,
        concurrency: args.concurrency,
        timeout: Some(Duration::from_secs_f64(args.timeout)),
        shard,
        cancel: cancel.clone(),
    };
    let mut store = runner::open_store(&out, &suite, &planners, &options).map_err(bench_failure)?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            input(
                format!("cannot start the async runtime: {e}"),
                "this is a bug",
            )
        })?;
    let summary = runtime.block_on(async {
        // First Ctrl-C: stop scheduling, let running attempts finish and be written.
        // A second one ends the process at once; the store keeps every finished attempt.
        let flag = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                flag.store(true, Ordering::Relaxed);
                eprintln!(
                    "\nstopping: finishing the attempts in flight (Ctrl-C again to quit now)"
                );
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
        let bar = progress_bar();
        let mut first = true;
        let mut on_attempt = |a: &Attempt, s: &RunSummary| {
            if first {
                bar.set_length((s.total - s.skipped) as u64);
                first = false;
            }
            bar.inc(1);
            bar.set_message(format!(
                "{} scored · {} failed · {} errors",
                s.scored, s.failed, s.errors
            ));
            if a.status == AttemptStatus::Error {
                bar.suspend(|| {
                    eprintln!(
                        "error: {} on {} (sample {}): {}",
                        a.planner,
                        a.task,
                        a.sample,
                        a.error.as_deref().unwrap_or("unknown")
                    )
                });
            }
        };
        let r = runner::run(&suite, &planners, &mut store, &options, &mut on_attempt).await;
        bar.finish_and_clear();
        r
    });
    let summary = summary.map_err(bench_failure)?;
    eprintln!(
        "{}: {} attempts in shard {} ({} already in the store), {} run: {} scored, {} failed, {} errors{}",
        out.display(),
        summary.total,
        shard,
        summary.skipped,
        summary.scored + summary.failed + summary.errors,
        summary.scored,
        summary.failed,
        summary.errors,
        if summary.cancelled {
            " — cancelled; run the same command again to resume"
        } else {
            ""
        }
    );
    for stop in &summary.stopped {
        eprintln!(
            "error: stopped asking {}: {}\n  the attempts already scored are kept in {}; fix \
             this and run the same command again to resume ({} attempts remain)",
            stop.planner,
            stop.message,
            out.display(),
            summary.remaining(),
        );
    }
    if !args.no_report {
        write_reports(&store, &out, args)?;
    }
    Ok(if !summary.stopped.is_empty() {
        Status::Stopped
    } else if summary.cancelled {
        Status::Cancelled
    } else if summary.errors > 0 {
        Status::Errors
    } else {
        Status::Complete
    })
}

fn default_out(suite: &Suite) -> PathBuf {
    let name = suite
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty() && n != "." && n != "..")
        .unwrap_or_else(|| "suite".into());
    Path::new("bench-out").join(format!("{name}.db"))
}

fn progress_bar() -> indicatif::ProgressBar {
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} attempts · {msg} · {elapsed} · eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// Print the Markdown report and write the HTML one, both from the store alone.
fn write_reports(store: &Store, out: &Path, args: &BenchArgs) -> Result<(), Failure> {
    let options = ReportOptions {
        bootstrap: BootstrapOptions {
            seed: args.seed,
            ..BootstrapOptions::default()
        },
        title: None,
    };
    let report = Report::from_store(store, &options).map_err(bench_failure)?;
    let html_path = args
        .html
        .clone()
        .unwrap_or_else(|| out.with_extension("html"));
    std::fs::write(&html_path, render_html(&report)).map_err(|e| {
        input(
            format!("cannot write {}: {e}", html_path.display()),
            "choose another --html path",
        )
    })?;
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not a failure of the run.
    let _ = stdout.write_all(render_markdown(&report).as_bytes());
    let _ = stdout.flush();
    eprintln!("report with charts: {}", html_path.display());
    Ok(())
}

/// Run `safeplan merge`.
pub fn merge(args: &MergeArgs) -> Result<(), Failure> {
    let summary = Store::merge(&args.inputs, &args.out).map_err(|e| {
        input(
            e.to_string(),
            "merge stores of one suite and ability, into a new file",
        )
    })?;
    let shards: Vec<String> = summary
        .manifest
        .shards
        .iter()
        .map(Shard::to_string)
        .collect();
    eprintln!(
        "{}: {} attempts from {} stores (shards {}; {} attempts were in more than one)",
        args.out.display(),
        summary.attempts,
        summary.stores,
        shards.join(", "),
        summary.duplicates
    );
    Ok(())
}
