//! Running a parsed command and ending the process: the exit codes, the core commands'
//! dispatch, and the report of a failure. Shared by `safeplan` and `safeplan-full`, so the
//! two cannot disagree on what a core command does or how it exits.

use std::io::Write;

use crate::args::CoreCommand;
use crate::check::Status;
use crate::outcome::Failure;
use crate::{basic, check, manifest, plan, suite, validate};

/// Exit code: the input was checked and has no errors; every plan is valid.
pub const EXIT_OK: u8 = 0;
/// Exit code: the input was checked and has at least one error; a plan is invalid.
pub const EXIT_ERRORS: u8 = 1;
/// Exit code: the command could not do its job (usage, unreadable file, failed output;
/// for `validate`, any input with errors).
pub const EXIT_UNUSABLE: u8 = 2;
/// Exit code: `plan` stopped at a limit before finding a plan or proving there is none.
pub const EXIT_LIMIT: u8 = 3;

/// Parse the command line as `P`, or print clap's message and give the exit code:
/// `--help` and `--version` are "errors" that print to stdout and succeed.
pub fn parse_from<P: clap::Parser>(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<P, u8> {
    P::try_parse_from(args).map_err(|e| {
        let code = if e.use_stderr() {
            EXIT_UNUSABLE
        } else {
            EXIT_OK
        };
        let _ = e.print();
        code
    })
}

/// Run one of the core commands.
pub fn core(command: &CoreCommand, color: bool) -> Result<u8, Failure> {
    match command {
        CoreCommand::Check(args) => check::run(args, color).map(|status| match status {
            Status::Clean => EXIT_OK,
            Status::Errors => EXIT_ERRORS,
        }),
        CoreCommand::Validate(args) => match &args.manifest {
            Some(path) => manifest::run(path, args),
            None => validate::run(args, color),
        }
        .map(|status| match status {
            validate::Status::Valid => EXIT_OK,
            validate::Status::Invalid => EXIT_ERRORS,
            validate::Status::InputErrors => EXIT_UNUSABLE,
        }),
        CoreCommand::Basic(args) => basic::run(args, color).map(|()| EXIT_OK),
        CoreCommand::ValidateSuite(args) => suite::run(args, color).map(|status| match status {
            suite::Status::AsExpected => EXIT_OK,
            suite::Status::NotAsExpected => EXIT_ERRORS,
            suite::Status::InputErrors => EXIT_UNUSABLE,
        }),
        CoreCommand::Plan(args) => plan::run(args, color).map(|status| match status {
            plan::Status::Found => EXIT_OK,
            plan::Status::Unsolvable => EXIT_ERRORS,
            plan::Status::Limit => EXIT_LIMIT,
        }),
    }
}

/// The exit code of a command's result; a failure is told on stderr first.
pub fn finish(result: Result<u8, Failure>) -> u8 {
    match result {
        Ok(code) => code,
        Err(failure) => {
            report_failure(&failure);
            EXIT_UNUSABLE
        }
    }
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
