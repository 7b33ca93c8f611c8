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
//! 3. A printer turns the outcome into text: [`render`] draws each diagnostic with miette's
//!    graphical handler (a snippet per diagnostic; labels that point into another file
//!    become `note:` lines), [`report`] writes one JSON document. Both read the same outcome,
//!    so they cannot disagree, and neither does any checking.
//!
//! Output goes through one buffered handle on standard output and is flushed before the
//! process exits; a reader that goes away (`| head`) ends the output quietly, without a
//! panic and without changing the exit code. Nothing user-controlled is unwrapped: a bad
//! span is clamped, text that would drive the terminal is made visible, and a snippet that
//! miette cannot draw falls back to a plain `path:line:col` line.
//!
//! Exit codes: 0 no errors (warnings allowed), 1 at least one error diagnostic, 2 the
//! invocation was unusable (bad arguments, an unreadable file, or standard output failed).

// This is the one crate that prints: the workspace warns on `print_stdout`/`print_stderr` so
// that libraries never do, and the command-line tool is where printing belongs.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod check;
mod render;
mod report;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::check::{Failure, Status};

/// Exit code: the input was checked and has no errors.
const EXIT_OK: u8 = 0;
/// Exit code: the input was checked and has at least one error.
const EXIT_ERRORS: u8 = 1;
/// Exit code: the command could not do its job (usage, unreadable file, failed output).
const EXIT_UNUSABLE: u8 = 2;

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
        Command::Check(args) => check::run(args, color),
    };
    ExitCode::from(match result {
        Ok(Status::Clean) => EXIT_OK,
        Ok(Status::Errors) => EXIT_ERRORS,
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
    }
    let _ = err.flush();
}
