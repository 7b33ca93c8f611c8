//! `safeplan`: the command-line tool of safeplan.
//!
//! # Design
//!
//! This is the one crate of the workspace that talks to a person: it knows clap, terminals,
//! colours and exit codes, and nothing else does. The libraries return values and
//! [`Diagnostic`](safeplan_pddl::Diagnostic)s as plain data; this binary reads files, calls
//! them, and decides how the result looks and how the process ends. Keeping it that way is
//! what lets a robot link `safeplan-pddl` without a terminal in sight.
//!
//! A command runs in three steps that never mix:
//!
//! 1. [`args`] turns the command line into typed arguments (clap derive). A usage error is
//!    clap's to report, and exits 2.
//! 2. [`check`] does the work: it reads every file (all unreadable files are reported, then
//!    exit 2), decodes, parses and checks, and returns an [`check::Outcome`]: each file with
//!    its text and the diagnostics whose primary span points into it. A check that depends
//!    on a file that could not be read at all is skipped, and the outcome records why.
//!    [`validate`] reuses it for the domain and problem, compiles the task with
//!    `safeplan-validate`, and then turns each plan into a [`validate::PlanResult`]: the
//!    library's verdict, or why the plan could not be validated.
//! 3. A printer turns the outcome into text: [`render`] draws each diagnostic and each
//!    validation failure with miette's graphical handler (a snippet per report; labels that
//!    point into another file become `note:` lines), [`report`] writes JSON (one document
//!    for `check`, one line per plan for `validate`). Both read the same data, so they
//!    cannot disagree, and neither does any checking.
//!
//! Output goes through one buffered handle on standard output and is flushed before the
//! process exits (`validate` flushes after each plan); a reader that goes away (`| head`)
//! ends the output quietly, without a panic and without changing the exit code. Nothing
//! user-controlled is unwrapped: a bad span is clamped, text that would drive the terminal
//! is made visible, and a snippet that miette cannot draw falls back to a plain
//! `path:line:col` line.
//!
//! Three more commands deal with safety (DESPITE; the library's `SafetyTask`): `validate`
//! adds a safety verdict per plan when the task is safety-augmented ([`safety`] phrases
//! it), [`basic`] writes the task with danger removed, and [`suite`] (`validate-suite`)
//! checks the reference plans of a folder of DESPITE tasks.
//!
//! Exit codes: `check`: 0 no errors (warnings allowed), 1 at least one error diagnostic.
//! `validate`: 0 every plan valid (on a safety-augmented task: feasible and safe), 1 some
//! plan invalid (infeasible or unsafe), 2 some input could not be used (a domain, problem or
//! plan with errors, or a plan file that cannot be read). `basic`: 0 written, 2 otherwise.
//! `validate-suite`: 0 every task as expected, 1 some task not, 2 a task folder that could
//! not be used. `plan` ([`plan`], with `safeplan-search`): 0 a plan found, 1 proven that none
//! exists, 3 a search limit reached first. `llm ask` ([`llm`], with `safeplan-llm`): 0 a
//! reply, 1 the provider failed after retries, 2 a configuration error. `synth` and
//! `inject-noise` ([`synth`], with `safeplan-bench`): 0 written, 2 otherwise. All: 2 the invocation was unusable (bad arguments, an unreadable file, or
//! reply, 1 the provider failed after retries, 2 a configuration error. `report`
//! ([`bench_report`], with `safeplan-bench`): 0 written, 2 unusable input. All: 2 the invocation was unusable (bad arguments, an unreadable file, or
//! standard output failed).

// This is the one crate that prints: the workspace warns on `print_stdout`/`print_stderr` so
// that libraries never do, and the command-line tool is where printing belongs.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
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
mod safety;
mod suite;
mod synth;
mod teach_noise;
mod validate;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::check::{Failure, Status};

/// Exit code: the input was checked and has no errors; every plan is valid.
const EXIT_OK: u8 = 0;
/// Exit code: the input was checked and has at least one error; a plan is invalid.
const EXIT_ERRORS: u8 = 1;
/// Exit code: the command could not do its job (usage, unreadable file, failed output;
/// for `validate`, any input with errors).
const EXIT_UNUSABLE: u8 = 2;
/// Exit code: `plan` stopped at a limit before finding a plan or proving there is none.
const EXIT_LIMIT: u8 = 3;
/// `bench` stopped by Ctrl-C (resumable), as a shell reports SIGINT.
const EXIT_CANCELLED: u8 = 130;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` are "errors" that print to stdout and succeed.
            let code = if e.use_stderr() {
                EXIT_UNUSABLE
            } else {
                EXIT_OK
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let color = cli.color.enabled();
    let result = match &cli.command {
        Command::Check(args) => check::run(args, color).map(|status| match status {
            Status::Clean => EXIT_OK,
            Status::Errors => EXIT_ERRORS,
        }),
        Command::Validate(args) => validate::run(args, color).map(|status| match status {
            validate::Status::Valid => EXIT_OK,
            validate::Status::Invalid => EXIT_ERRORS,
            validate::Status::InputErrors => EXIT_UNUSABLE,
        }),
        Command::Basic(args) => basic::run(args, color).map(|()| EXIT_OK),
        Command::ValidateSuite(args) => suite::run(args, color).map(|status| match status {
            suite::Status::AsExpected => EXIT_OK,
            suite::Status::NotAsExpected => EXIT_ERRORS,
            suite::Status::InputErrors => EXIT_UNUSABLE,
        }),
        Command::Plan(args) => plan::run(args, color).map(|status| match status {
            plan::Status::Found => EXIT_OK,
            plan::Status::Unsolvable => EXIT_ERRORS,
            plan::Status::Limit => EXIT_LIMIT,
        }),
        Command::Llm(args) => Ok(llm::run(args)),
        Command::Judge(args) => judge::run(args).map(|status| match status {
            judge::Status::Done => EXIT_OK,
            judge::Status::SomeFailed => EXIT_ERRORS,
        }),
        Command::Priors(args) => priors::run(args).map(|()| EXIT_OK),
        Command::Mcp(args) => mcp::run(args).map(|()| EXIT_OK),
        Command::TeachNoise(args) => teach_noise::run(args).map(|()| EXIT_OK),
        Command::Bench(args) => bench::run(args).map(|status| match status {
            bench::Status::Complete => EXIT_OK,
            bench::Status::Errors => EXIT_LIMIT,
            bench::Status::Cancelled => EXIT_CANCELLED,
        }),
        Command::Merge(args) => bench::merge(args).map(|()| EXIT_OK),
        Command::Synth(args) => synth::run_synth(args).map(|()| EXIT_OK),
        Command::InjectNoise(args) => synth::run_noise(args).map(|()| EXIT_OK),
        Command::Report(args) => bench_report::run(args).map(|()| EXIT_OK),
    };
    ExitCode::from(match result {
        Ok(code) => code,
        Err(failure) => {
            report_failure(&failure);
            EXIT_UNUSABLE
        }
    })
}

/// Tell the user on stderr why nothing (or not everything) could be done.
fn report_failure(failure: &Failure) {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    // If stderr itself is gone there is no one left to tell: ignore write errors.
    match failure {
        Failure::Read(errors) => {
            for e in errors {
                let _ = writeln!(
                    err,
                    "error: cannot read {}: {}\n  hint: {}",
                    e.path.display(),
                    e.reason(),
                    e.hint()
                );
            }
        }
        Failure::Write(e) => {
            let _ = writeln!(
                err,
                "error: cannot write the report to standard output: {e}"
            );
        }
        Failure::Input { message, hint } => {
            let _ = writeln!(err, "error: {message}");
            if let Some(hint) = hint {
                let _ = writeln!(err, "  hint: {hint}");
            }
        }
    }
    let _ = err.flush();
}
