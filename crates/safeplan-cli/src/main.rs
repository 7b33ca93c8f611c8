//! `safeplan`: the command-line tool of safeplan (its core commands; see "Two executables").
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
//!    exit 2), decodes, parses and checks, and returns an [`outcome::Outcome`]: each file with
//!    its text and the diagnostics whose primary span points into it. A check that depends
//!    on a file that could not be read at all is skipped, and the outcome records why.
//!    [`validate`] reuses it for the domain and problem, compiles the task with
//!    `safeplan-validate`, and then turns each plan into a [`outcome::PlanResult`]: the
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
//! adds a safety verdict per plan when the task is safety-augmented (the library's
//! `safeplan_validate::words` phrases it), [`basic`] writes the task with danger removed, and [`suite`] (`validate-suite`)
//! checks the reference plans of a folder of DESPITE tasks.
//!
//! Exit codes: `check`: 0 no errors (warnings allowed), 1 at least one error diagnostic.
//! `validate`: 0 every plan valid (on a safety-augmented task: feasible and safe), 1 some
//! plan invalid (infeasible or unsafe), 2 some input could not be used (a domain, problem or
//! plan with errors, or a plan file that cannot be read). `basic`: 0 written, 2 otherwise.
//! `validate-suite`: 0 every task as expected, 1 some task not, 2 a task folder that could
//! not be used. `plan` ([`plan`], with `safeplan-search`): 0 a plan found, 1 proven that none
//! exists, 3 a search limit reached first. `llm ask` (with `safeplan-llm`): 0 a
//! reply, 1 the provider failed after retries, 2 a configuration error. `synth` and
//! `inject-noise` (with `safeplan-bench`): 0 written, 2 otherwise. `report` (with
//! `safeplan-bench`): 0 written, 2 unusable input. All: 2 the invocation was unusable (bad
//! arguments, an unreadable file, or standard output failed).
//!
//! # Two executables
//!
//! A robot stack or a benchmark script starts `safeplan validate` once per plan, so the
//! start of the process is most of what it costs; and a start costs in proportion to what
//! the kernel must map and fault in. So the package builds two executables. `safeplan`
//! (this file) links only the parser, validator and planner and runs the core commands
//! (`check`, `validate`, `basic`, `validate-suite`, `plan`, and `--version`) itself; any other
//! command line — `bench`, `judge`, `llm`, `mcp`, `report`, `--help` — it hands unchanged to
//! `safeplan-full`, the executable beside it that has every command, by `exec` on Unix (the
//! same process, standard streams and signals: an MCP client or Ctrl-C sees no difference).
//! Both parse the core commands with the same clap types ([`args`]) and run them with the
//! same code ([`run`]). `cargo run -p safeplan-cli` runs `safeplan-full`.

// This is the one crate that prints: the workspace warns on `print_stdout`/`print_stderr` so
// that libraries never do, and the command-line tool is where printing belongs.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod basic;
mod check;
mod input;
mod manifest;
mod outcome;
mod plan;
mod positioned;
mod render;
mod report;
mod run;
mod style;
mod suite;
mod validate;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::args::{Cli, CoreCommand};

/// The commands this executable runs itself.
const CORE: [&str; 5] = ["check", "validate", "basic", "validate-suite", "plan"];

/// The executable with every command, next to this one.
const FULL: &str = "safeplan-full";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if !runs_here(&args) {
        return ExitCode::from(hand_over(&args));
    }
    let cli: Cli<CoreCommand> = match run::parse_from(args) {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    let color = cli.color.enabled();
    ExitCode::from(run::finish(run::core(&cli.command, color)))
}

/// Whether the command line is one of the core commands (its first word that is not an
/// option, skipping `--color`'s value), or `--version` alone. A `--help` before the command
/// asks for the whole command list, which only `safeplan-full` has.
fn runs_here(args: &[OsString]) -> bool {
    let rest: Vec<&str> = args
        .iter()
        .skip(1)
        .map(|a| a.to_str().unwrap_or(""))
        .collect();
    if matches!(rest.as_slice(), ["--version"] | ["-V"]) {
        return true;
    }
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        match *word {
            "--color" => {
                words.next();
            }
            "-h" | "--help" => return false,
            w if w.starts_with('-') => {}
            w => return CORE.contains(&w),
        }
    }
    false
}

/// Run `safeplan-full` with the same arguments; its exit code is ours. On Unix it replaces
/// this process, so it returns only if that could not be done.
fn hand_over(args: &[OsString]) -> u8 {
    let full = std::env::current_exe()
        .ok()
        .and_then(|exe| {
            Some(
                exe.parent()?
                    .join(format!("{FULL}{}", std::env::consts::EXE_SUFFIX)),
            )
        })
        .unwrap_or_else(|| PathBuf::from(FULL));
    let mut command = std::process::Command::new(&full);
    command.args(args.iter().skip(1));
    #[cfg(unix)]
    let error = {
        use std::os::unix::process::CommandExt;
        if let Some(arg0) = args.first() {
            command.arg0(arg0);
        }
        command.exec()
    };
    #[cfg(not(unix))]
    let error = match command.status() {
        Ok(status) => return status.code().map_or(run::EXIT_UNUSABLE, |c| c as u8),
        Err(e) => e,
    };
    let word = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy())
        .find(|a| !a.starts_with('-'))
        .map_or_else(
            || "this command line".to_string(),
            |w| format!("`safeplan {w}`"),
        );
    let stderr = std::io::stderr();
    let _ = writeln!(
        stderr.lock(),
        "error: {word} is run by {}, which could not be started: {error}\n  hint: install both executables of the package: cargo install --path crates/safeplan-cli (or build them with cargo build -p safeplan-cli)",
        full.display()
    );
    run::EXIT_UNUSABLE
}
