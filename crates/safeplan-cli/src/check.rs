//! `safeplan check`: read the files, parse and check them, and hand the outcome to a printer.
//!
//! The command is split in two halves that meet in [`Outcome`]: [`run`] does all the work
//! with [`crate::input`] (the reading and checking every command shares) and produces plain
//! data (the files, their text, and every diagnostic grouped under the file it points into);
//! [`crate::render`] and [`crate::report`] only print that data. So the human and JSON
//! outputs cannot disagree about what was found.

use std::io::{self, Write};
use std::path::Path;

use safeplan_pddl::FileKind;

use crate::args::CheckArgs;
use crate::input::{check, check_options, read_inputs};
use crate::outcome::{Failure, Outcome};

impl Outcome {
    /// The exit status this outcome calls for.
    pub fn status(&self) -> Status {
        if self.errors() > 0 {
            Status::Errors
        } else {
            Status::Clean
        }
    }
}

/// How a completed check ended (the process exit code is derived from this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// No error diagnostics (warnings allowed).
    Clean,
    /// At least one error diagnostic.
    Errors,
}

/// The file arguments of `safeplan check`, for hints.
const USAGE: &str = "DOMAIN [PROBLEM [PLAN]]";

/// Run `safeplan check` and print its report on standard output.
pub fn run(args: &CheckArgs, color: bool) -> Result<Status, Failure> {
    let named: Vec<(&Path, FileKind)> = [
        (Some(args.domain.as_path()), FileKind::Domain),
        (args.problem.as_deref(), FileKind::Problem),
        (args.plan.as_deref(), FileKind::Plan),
    ]
    .into_iter()
    .filter_map(|(path, kind)| Some((path?, kind)))
    .collect();
    let inputs = read_inputs(&named, USAGE).map_err(Failure::Read)?;
    let outcome = check(inputs, &check_options(args.strict), args.llm_plan).outcome;

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let written = if args.json {
        crate::report::write_json(&outcome, &mut out)
    } else {
        crate::render::write_human(&outcome, color, &mut out)
    }
    .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(outcome.status()),
        // The reader went away (`safeplan check ... | head`): what it wanted was written, and
        // the verdict still stands.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(outcome.status()),
        Err(e) => Err(Failure::Write(e)),
    }
}
