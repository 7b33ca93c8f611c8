//! Cold-start time of a whole `safeplan` process: spawn it N times, wait for each to exit,
//! and report the median, minimum, mean and maximum wall time.
//!
//! ```text
//! cargo build --release -p safeplan-cli
//! cargo run --release -p safeplan-benches --bin cold_cli -- [--runs N] [--warmup N] \
//!     BINARY SUBCOMMAND [FILE...]
//! ```
//!
//! Runs `BINARY SUBCOMMAND FILE...`; without FILEs, the files are `domain.pddl`,
//! `problem.pddl` and `safe.plan` of `examples/tasks/hot-soup`, so
//! `cold_cli target/release/safeplan check` and `cold_cli target/release/safeplan validate`
//! time the same task with two subcommands. Each run is timed from just before the spawn to
//! the return of `wait`, with standard input, output and error on the null device (no pipe
//! to drain, no terminal, so no colour). `--warmup` runs (default 5) come first and are not
//! counted; they fill the page cache. A run that exits with a failure status or is killed by
//! a signal stops the measurement (a subcommand that does not exist would otherwise be timed
//! as a fast error), unless `--allow-failure` is given.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use safeplan_benches::WallTimes;

const USAGE: &str = "\
usage: cold_cli [--runs N] [--warmup N] [--allow-failure] BINARY SUBCOMMAND [FILE...]

Spawns `BINARY SUBCOMMAND FILE...` N times (default 200) after W warm-up runs (default 5)
and prints the median, min, mean and max wall time from spawn to exit. Without FILEs it
uses examples/tasks/hot-soup/{domain.pddl,problem.pddl,safe.plan}.";

struct Options {
    runs: usize,
    warmup: usize,
    allow_failure: bool,
    binary: PathBuf,
    args: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut runs = 200;
    let mut warmup = 5;
    let mut allow_failure = false;
    let mut positional = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" | "--warmup" => {
                let value = args.next().ok_or_else(|| format!("{arg} needs a number"))?;
                let n: usize = value
                    .parse()
                    .map_err(|_| format!("{arg}: `{value}` is not a number"))?;
                if arg == "--runs" {
                    runs = n;
                } else {
                    warmup = n;
                }
            }
            "--allow-failure" => allow_failure = true,
            "-h" | "--help" => return Err(String::new()),
            _ if positional.is_empty() && arg.starts_with('-') => {
                return Err(format!("unknown option `{arg}`"));
            }
            _ => {
                positional.push(arg);
                // Everything after BINARY belongs to the command being timed.
                positional.extend(args.by_ref());
            }
        }
    }
    if runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let mut positional = positional.into_iter();
    let binary = positional.next().ok_or("missing BINARY")?;
    let mut command_args: Vec<String> = positional.collect();
    match command_args.len() {
        0 => return Err("missing SUBCOMMAND".into()),
        1 => {
            let dir = safeplan_benches::example_task_dir("hot-soup");
            for file in ["domain.pddl", "problem.pddl", "safe.plan"] {
                command_args.push(dir.join(file).display().to_string());
            }
        }
        _ => {}
    }
    Ok(Options {
        runs,
        warmup,
        allow_failure,
        binary: PathBuf::from(binary),
        args: command_args,
    })
}

/// Spawn the command once and time it.
fn run_once(opts: &Options) -> Result<Duration, String> {
    let start = Instant::now();
    let status = Command::new(&opts.binary)
        .args(&opts.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", opts.binary.display()))?;
    let elapsed = start.elapsed();
    if !status.success() && !opts.allow_failure {
        return Err(format!(
            "`{} {}` exited with {status}; run it by hand to see why \
             (or pass --allow-failure to time it anyway)",
            opts.binary.display(),
            opts.args.join(" ")
        ));
    }
    Ok(elapsed)
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() -> ExitCode {
    let opts = match parse_args(std::env::args().skip(1)) {
        Ok(opts) => opts,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("cold_cli: {why}\n");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut samples = Vec::with_capacity(opts.runs);
    for i in 0..opts.warmup + opts.runs {
        match run_once(&opts) {
            Ok(t) if i >= opts.warmup => samples.push(t),
            Ok(_) => {}
            Err(why) => {
                eprintln!("cold_cli: {why}");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some(t) = WallTimes::of(&samples) else {
        eprintln!("cold_cli: no samples");
        return ExitCode::FAILURE;
    };
    println!("command: {} {}", opts.binary.display(), opts.args.join(" "));
    println!(
        "runs: {} (after {} warm-up runs), wall time from spawn to exit",
        t.count, opts.warmup
    );
    println!(
        "median {}   min {}   mean {}   max {}",
        ms(t.median),
        ms(t.min),
        ms(t.mean),
        ms(t.max)
    );
    ExitCode::SUCCESS
}
