//! `safeplan-full`: every command of safeplan, including those that need the LLM, judge,
//! benchmark and MCP crates. `safeplan` runs the core commands itself and hands every other
//! command line to this executable (see `main.rs`); run it directly as you would `safeplan`.

// This is the one crate that prints: the workspace warns on `print_stdout`/`print_stderr` so
// that libraries never do, and the command-line tool is where printing belongs.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod args_full;
mod basic;
mod bench;
mod bench_report;
mod check;
mod judge;
mod judge_cv;
mod llm;
mod manifest;
mod mcp;
mod plan;
mod priors;
mod render;
mod report;
mod run;
mod safety;
mod suite;
mod synth;
mod teach_noise;
mod validate;

use std::process::ExitCode;

use crate::args_full::{Cli, Command};
use crate::run::{EXIT_ERRORS, EXIT_LIMIT, EXIT_OK};

/// `bench` stopped by Ctrl-C (resumable), as a shell reports SIGINT.
const EXIT_CANCELLED: u8 = 130;
/// `bench`: a planner's provider configuration cannot work; the run stopped asking it.
const EXIT_STOPPED: u8 = 4;

fn main() -> ExitCode {
    let cli: Cli = match run::parse() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
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
    ExitCode::from(run::finish(result))
}
