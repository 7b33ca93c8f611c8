//! `safeplan basic`: write the basic task of a safety-augmented task (SEMANTICS.md §1).
//!
//! The domain and problem are read and checked as `safeplan check` does; the library's
//! [`basic_task`] removes the danger fluent, and `safeplan_pddl`'s writer prints the result.
//! Standard output carries the PDDL (or, with `-o`, the names of the files written), so
//! diagnostics go to standard error.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use safeplan_pddl::{FileKind, write_domain, write_problem};
use safeplan_validate::words::not_a_safety_task;
use safeplan_validate::{DangerFactsError, DangerGoal, SafetyTask, basic_task, danger_as_facts};

use crate::args::BasicArgs;
use crate::input::{Checked, check, check_options, domain_summary, read_inputs};
use crate::outcome::{Failure, Outcome, io_reason};
use crate::render::Renderer;

/// The file arguments of `safeplan basic`, for hints.
const USAGE: &str = "DOMAIN PROBLEM";

/// Run `safeplan basic`. `Ok` means the basic task was written.
pub fn run(args: &BasicArgs, color: bool) -> Result<(), Failure> {
    let named = [
        (args.domain.as_path(), FileKind::Domain),
        (args.problem.as_path(), FileKind::Problem),
    ];
    let inputs = read_inputs(&named, USAGE).map_err(Failure::Read)?;
    let Checked {
        outcome,
        domain,
        problem,
    } = check(inputs, &check_options(args.strict), false);

    // Diagnostics go to standard error: standard output is the PDDL.
    crate::render::diagnostics_to_stderr(&Renderer::new(color), &outcome)?;
    let (Some(domain), Some(problem)) = (domain, problem) else {
        return Err(Failure::Input {
            message: "the domain or problem could not be read; nothing was written".into(),
            hint: None,
        });
    };
    if outcome.errors() > 0 {
        return Err(Failure::Input {
            message: format!(
                "the domain or problem has {}; nothing was written",
                crate::style::count(outcome.errors(), "error", "errors")
            ),
            hint: Some("fix the errors shown above; `safeplan check` lists them too".into()),
        });
    }
    let name = args.danger.as_str();
    if !SafetyTask::is_safety_augmented(&domain, name)
        && !SafetyTask::has_safety_rules(&domain, &problem)
    {
        return Err(Failure::Input {
            message: format!(
                "{}, so there is no danger or rule to remove",
                not_a_safety_task(&args.domain.display().to_string(), name)
            ),
            hint: Some(match crate::validate::zero_ary_functions(&domain) {
                Some(list) => format!("{list}; name the danger fluent with --danger NAME"),
                None => "a safety-augmented domain declares `(:functions (danger))` and raises \
                         it in the effects of dangerous actions (docs/CLI.md)"
                    .into(),
            }),
        });
    }
    let goal = match (args.safe, args.unsafe_) {
        (true, _) => Some(DangerGoal::Safe),
        (_, true) => Some(DangerGoal::Unsafe),
        _ => None,
    };
    let (basic_domain, basic_problem) = match goal {
        None => basic_task(&domain, &problem, name),
        Some(goal) => danger_as_facts(&domain, &problem, name, goal)
            .map_err(|refusal| refused(&refusal, &outcome))?,
    };
    // What the written task is, in the comment line above each file.
    let what = |file: &Path| match goal {
        None => format!("the basic task of {} (`{name}` removed)", file.display()),
        Some(DangerGoal::Safe) => format!(
            "the safe plans of {} as a classical task (`{name}` counted in facts)",
            file.display()
        ),
        Some(DangerGoal::Unsafe) => format!(
            "the feasible unsafe plans of {} as a classical task (`{name}` counted in facts)",
            file.display()
        ),
    };
    let domain_text = write_domain(&basic_domain);
    let problem_text = write_problem(&basic_problem);

    let text = match &args.output {
        None => format!(
            "; domain: {}\n{}\n\n; problem: {}\n{}\n",
            what(&args.domain),
            domain_text.trim_end(),
            what(&args.problem),
            problem_text.trim_end(),
        ),
        Some(dir) => {
            let domain_path = dir.join("domain.pddl");
            let problem_path = dir.join("problem.pddl");
            write_files(
                dir,
                &[(&domain_path, &domain_text), (&problem_path, &problem_text)],
                args.force,
            )?;
            format!(
                "wrote {} ({})\nwrote {} (problem {} for domain {})\n",
                domain_path.display(),
                domain_summary(&basic_domain),
                problem_path.display(),
                basic_problem.name.as_str(),
                basic_problem.domain.as_str(),
            )
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // The reader went away (`| head`): what it wanted was written.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Write(e)),
    }
}

/// Create `dir` and write each file into it. Without `force`, nothing is written when any
/// of the files exists.
fn write_files(dir: &Path, files: &[(&Path, &String)], force: bool) -> Result<(), Failure> {
    let cannot = |what: &Path, e: io::Error| Failure::Input {
        message: format!("cannot write {}: {}", what.display(), io_reason(&e)),
        hint: Some("check that the path names a folder you can write to".into()),
    };
    fs::create_dir_all(dir).map_err(|e| cannot(dir, e))?;
    if !force {
        let existing: Vec<String> = files
            .iter()
            .filter(|(path, _)| path.exists())
            .map(|(path, _)| path.display().to_string())
            .collect();
        if !existing.is_empty() {
            let (verb, them) = if existing.len() == 1 {
                ("exists", "it")
            } else {
                ("exist", "them")
            };
            return Err(Failure::Input {
                message: format!("{} {verb}; nothing was written", existing.join(" and ")),
                hint: Some(format!("give --force to replace {them}, or another -o DIR")),
            });
        }
    }
    for (path, text) in files {
        let written = if force {
            fs::write(path, text)
        } else {
            // `create_new`: a file that appeared since the check above is not replaced.
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .and_then(|mut f| f.write_all(text.as_bytes()))
        };
        written.map_err(|e| cannot(path, e))?;
    }
    Ok(())
}

/// A task `danger_as_facts` refuses, as an input error that says where (file:line:col) and
/// what to do instead.
fn refused(refusal: &DangerFactsError, outcome: &Outcome) -> Failure {
    let place = refusal.location().and_then(|(kind, span)| {
        let file = outcome.files.iter().find(|f| f.kind == kind)?;
        let at = file.line_col(span.start as usize);
        Some(format!("{}:{}:{}: ", file.path, at.line, at.col))
    });
    Failure::Input {
        message: format!(
            "{}{refusal}; nothing was written",
            place.unwrap_or_default()
        ),
        hint: Some(
            "`safeplan plan --safe` (or `--unsafe`) plans on the task as it is; the classical \
             form is exact only under the conditions docs/CLI.md lists for `basic --safe`"
                .into(),
        ),
    }
}
