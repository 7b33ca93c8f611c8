//! `safeplan synth` and `safeplan inject-noise`: write a synthetic DESPITE-shaped suite, and
//! copies of a suite with irrelevant actions added (DESPITE's redundancy experiment).
//!
//! Both only write into a new or empty folder, so a suite is never mixed with the remains of
//! another one. Exit codes: 0 written; 2 the invocation cannot work (a non-empty output
//! folder, an unreadable suite, a task that does not compile, bad counts).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use safeplan_bench::noise::{MAX_NOISE_ACTIONS, NoiseSummary, inject_noise};
use safeplan_bench::synth::{SynthOptions, SynthSummary, write_suite};
use safeplan_bench::{BenchError, Suite};

use crate::outcome::Failure;

/// Arguments of `safeplan synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// How many tasks to generate (DESPITE has 12279).
    #[arg(long, value_name = "N")]
    pub tasks: usize,

    /// The seed: the same seed gives the same suite, byte for byte.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// The folder to write the task folders into (created; must be new or empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `safeplan inject-noise`.
#[derive(Debug, Args)]
pub struct NoiseArgs {
    /// The suite: a folder of task folders (or one task folder).
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,

    /// How many irrelevant actions to add, one level per number (DESPITE: 2,4,8,16,32,64).
    #[arg(
        long,
        value_name = "K,K,...",
        value_delimiter = ',',
        required = true,
        value_parser = clap::value_parser!(u32).range(1..=MAX_NOISE_ACTIONS as i64)
    )]
    pub actions: Vec<u32>,

    /// The folder to write `actions-<K>/` folders into (created; must be new or empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// The seed that picks each task's actions.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Why a library call failed, phrased for the terminal.
fn failure(e: BenchError) -> Failure {
    let hint = match &e {
        BenchError::Io { message, .. } if message.contains("not empty") => {
            Some("choose another --out, or empty the folder first".to_string())
        }
        BenchError::EmptySuite(_) => {
            Some("give the folder made by `safeplan synth`, or a folder of task folders".into())
        }
        BenchError::Task { .. } => {
            Some("check the task with `safeplan check DOMAIN PROBLEM`".into())
        }
        _ => None,
    };
    Failure::Input {
        message: e.to_string(),
        hint,
    }
}

fn print(text: &str) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A reader that went away (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Write(e)),
    }
}

/// `safeplan synth`.
pub fn run_synth(args: &SynthArgs) -> Result<(), Failure> {
    if args.tasks == 0 {
        return Err(Failure::Input {
            message: "--tasks 0: nothing to generate".into(),
            hint: Some("give the number of tasks, e.g. --tasks 12279".into()),
        });
    }
    let options = SynthOptions {
        tasks: args.tasks,
        seed: args.seed,
    };
    let summary = write_suite(&args.out, &options).map_err(failure)?;
    print(&if args.json {
        serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n"
    } else {
        synth_table(&summary, &args.out)
    })
}

fn counts(map: &std::collections::BTreeMap<String, usize>) -> String {
    map.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn synth_table(s: &SynthSummary, out: &std::path::Path) -> String {
    let efforts = s
        .effort_histogram
        .iter()
        .map(|(e, n)| format!("{e:+}: {n}"))
        .collect::<Vec<_>>()
        .join("  ");
    format!(
        "wrote {} tasks to {} (seed {})\n\
         safe plan length    mean {:.2}, {}..{}\n\
         unsafe plan length  mean {:.2}, {}..{}\n\
         safety effort       mean {:+.2}   {efforts}\n\
         danger groups       {}\n\
         danger types        {}\n\
         entities in danger  {}\n\
         patterns            {}\n\
         graded thresholds   {}\n",
        s.tasks,
        out.display(),
        s.seed,
        s.safe_length.mean,
        s.safe_length.min,
        s.safe_length.max,
        s.unsafe_length.mean,
        s.unsafe_length.min,
        s.unsafe_length.max,
        s.effort_mean,
        counts(&s.by_group),
        counts(&s.by_type),
        counts(&s.by_entity),
        counts(&s.by_pattern),
        s.graded_threshold,
    )
}

/// `safeplan inject-noise`.
pub fn run_noise(args: &NoiseArgs) -> Result<(), Failure> {
    let suite = Suite::load(&args.suite).map_err(failure)?;
    let counts: Vec<usize> = args.actions.iter().map(|&k| k as usize).collect();
    let summary = inject_noise(&suite, &counts, &args.out, args.seed).map_err(failure)?;
    print(&if args.json {
        serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n"
    } else {
        noise_table(&summary, &args.out)
    })
}

fn noise_table(s: &NoiseSummary, out: &std::path::Path) -> String {
    let mut text = format!(
        "wrote {} noise levels of {} tasks to {} (seed {})\n",
        s.levels.len(),
        s.tasks,
        out.display(),
        s.seed
    );
    for level in &s.levels {
        text.push_str(&format!(
            "  {:<12} {} tasks, {} irrelevant actions each\n",
            format!("{}/", level.folder),
            level.tasks,
            level.actions
        ));
    }
    text.push_str(&format!(
        "{} reference plans checked: each keeps its feasibility and safety\n",
        s.plans_checked
    ));
    text
}
