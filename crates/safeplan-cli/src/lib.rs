//! The whole `safeplan` command-line program as one function, [`run`], for a host that
//! cannot start an executable of its own: the Python wheel's `safeplan` command calls it
//! through the extension module, so `pip install safeplan` gives the same program (same
//! subcommands, output and exit codes) as `cargo install safeplan-cli`.
//!
//! The executables are shells over the same modules: `safeplan-full` is `run` on the
//! process's arguments; `safeplan` (`main.rs`) runs the core commands itself, with only the
//! core crates linked so that it starts fast, and hands every other command line to
//! `safeplan-full`. The crate's design (three steps: arguments, work, printing; exit codes)
//! is written at the top of `main.rs`.

// This is the one crate that prints: the workspace warns on `print_stdout`/`print_stderr` so
// that libraries never do, and the command-line tool is where printing belongs.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod args_full;
mod basic;
mod bench;
mod bench_report;
mod check;
mod input;
mod judge;
mod judge_cv;
mod llm;
mod manifest;
mod mcp;
mod outcome;
mod plan;
mod positioned;
mod priors;
mod render;
mod report;
mod run;
mod style;
mod suite;
mod synth;
mod teach_noise;
mod validate;

use std::ffi::OsString;

use crate::args_full::{Cli, Command};
use crate::run::{EXIT_ERRORS, EXIT_LIMIT, EXIT_OK};

/// `bench` stopped by Ctrl-C (resumable), as a shell reports SIGINT.
const EXIT_CANCELLED: u8 = 130;
/// `bench`: a planner's provider configuration cannot work; the run stopped asking it.
const EXIT_STOPPED: u8 = 4;

/// Runs the command line `args` (its first item is the program name, as in
/// `std::env::args_os`) and returns the exit code the process should end with. Output goes
/// to the process's standard output and error.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let cli: Cli = match run::parse_from(args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let color = cli.color.enabled();
    let result = match &cli.command {
        Command::Core(command) => run::core(command, color),
        Command::Llm(args) => Ok(llm::run(args)),
        Command::Judge(args) => judge::run(args).map(|status| match status {
            judge::Status::Done => EXIT_OK,
            judge::Status::SomeFailed => EXIT_ERRORS,
            judge::Status::Stopped => EXIT_STOPPED,
        }),
        Command::Priors(args) => priors::run(args).map(|()| EXIT_OK),
        Command::Mcp(args) => mcp::run(args).map(|()| EXIT_OK),
        Command::TeachNoise(args) => teach_noise::run(args).map(|()| EXIT_OK),
        Command::Bench(args) => bench::run(args).map(|status| match status {
            bench::Status::Complete => EXIT_OK,
            bench::Status::Errors => EXIT_LIMIT,
            bench::Status::Cancelled => EXIT_CANCELLED,
            bench::Status::Stopped => EXIT_STOPPED,
        }),
        Command::Merge(args) => bench::merge(args).map(|()| EXIT_OK),
        Command::Synth(args) => synth::run_synth(args).map(|()| EXIT_OK),
        Command::InjectNoise(args) => synth::run_noise(args).map(|()| EXIT_OK),
        Command::Report(args) => bench_report::run(args).map(|()| EXIT_OK),
    };
    run::finish(result)
}
