//! `safeplan validate`: read and check the task, compile it, then validate each plan and
//! print its verdict as soon as it is known.
//!
//! The domain and problem go through exactly what `safeplan check` does ([`crate::check`]),
//! then [`Task::compile`]. Each plan is then read on its own and executed by one reused
//! [`Validator`]; its result is a [`PlanResult`], plain data that [`crate::render`] (human)
//! or [`crate::report`] (JSON Lines) prints. A plan that cannot be read, or that does not
//! read cleanly, is an input error for that plan alone: the other plans are still validated.
//!
//! When the domain declares the danger fluent (`--danger`, `danger` by default) the task is
//! safety-augmented: it is also compiled as a [`SafetyTask`], and each plan gets a safety
//! verdict beside its validity. Then a plan passes when it is feasible and safe (the exit
//! code follows that), and validity for the augmented task (whose goal bounds danger) is
//! still reported.

use std::io::{self, Write};
use std::path::Path;

use safeplan_pddl::{Code, Diagnostic, Domain, FileKind, Problem, Span};
use safeplan_validate::{
    Assessment, CompileOptions, SafetyOptions, SafetyTask, Task, TaskError, ValidateOptions,
    Validator,
};

use crate::args::ValidateArgs;
use crate::input::{
    Checked, PlanReading, check, check_options, load_plan, read_input, read_inputs,
};
use crate::outcome::{Failure, Outcome, PlanResult, Tally};
use crate::render::Renderer;

/// The file arguments of `safeplan validate`, for hints.
pub const USAGE: &str = "DOMAIN PROBLEM PLAN...";

/// How a run of `safeplan validate` ended (the exit code is derived from this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every plan is valid (on a safety-augmented task: feasible and safe).
    Valid,
    /// Some plan is invalid (on a safety-augmented task: infeasible or unsafe), and every
    /// input could be read.
    Invalid,
    /// Some input could not be used: a domain, problem or plan with errors, or a plan file
    /// that cannot be read.
    InputErrors,
}

/// Run `safeplan validate` and print a verdict per plan on standard output.
pub fn run(args: &ValidateArgs, color: bool) -> Result<Status, Failure> {
    // `--manifest` is dispatched by `run::core` to `manifest::run`, which uses this module's
    // compile and validate steps: the dependency runs one way.
    let (Some(domain_path), Some(problem_path)) = (&args.domain, &args.problem) else {
        return Err(Failure::Input {
            message: "no DOMAIN and PROBLEM given".into(),
            hint: Some("write safeplan validate DOMAIN PROBLEM PLAN..., or --manifest FILE".into()),
        });
    };
    let named = [
        (domain_path.as_path(), FileKind::Domain),
        (problem_path.as_path(), FileKind::Problem),
    ];
    let inputs = read_inputs(&named, USAGE).map_err(Failure::Read)?;
    let Checked {
        mut outcome,
        domain,
        problem,
    } = check(inputs, &check_options(args.strict), false);
    if let (Some(name), Some(d)) = (&args.danger, &domain)
        && !SafetyTask::is_safety_augmented(d, name)
    {
        return Err(Failure::Input {
            message: format!(
                "{} declares no 0-ary function `{name}` (--danger {name})",
                domain_path.display()
            ),
            hint: Some(match zero_ary_functions(d) {
                Some(list) => format!("{list}; name the danger fluent with --danger NAME"),
                None => "leave out --danger to validate plans without safety verdicts".into(),
            }),
        });
    }
    let danger = args
        .danger
        .as_deref()
        .unwrap_or(safeplan_validate::DEFAULT_DANGER);
    let (task, safety) = match compile(
        &mut outcome,
        domain.as_ref(),
        problem.as_ref(),
        args.strict,
        (danger, args.si, args.tolerance),
    ) {
        Some((task, safety)) => (Some(task), safety),
        None => (None, None),
    };
    // `--continue` on a temporal task: refused, never silently ignored.
    if let Some(why) = task.as_ref().and_then(|t| {
        t.unsupported_option(&ValidateOptions {
            keep_going: args.keep_going,
            ..ValidateOptions::default()
        })
    }) {
        return Err(Failure::Input {
            message: why.into(),
            hint: Some("leave out --continue: each plan's first failure is reported".into()),
        });
    }

    // The compiled task holds the initial state; the problem's facts are not read again.
    // Freed now, their memory is where the plans' steps are read next, instead of pages the
    // process has never touched, each a page fault (visitall problem50: 159 faults less for
    // 2.5 M instructions of freeing). The rest of the trees is forgotten at the end.
    let mut problem = problem;
    if let Some(p) = problem.as_mut() {
        drop(std::mem::take(&mut p.init));
    }

    let renderer = Renderer::new(color);
    let stdout = io::stdout();
    let mut sink = Sink::new(io::BufWriter::new(stdout.lock()));
    if !args.json {
        let mut text = Vec::new();
        crate::render::write_diagnostics(&renderer, &outcome, &mut text).map_err(Failure::Write)?;
        sink.write(&text).map_err(Failure::Write)?;
    }

    #[allow(clippy::needless_update)]
    let options = ValidateOptions {
        keep_going: args.keep_going,
        tolerance: Some(args.tolerance),
        ..ValidateOptions::default()
    };
    let mut validator = task.as_ref().map(|t| Validator::new(t, options));
    let vocabulary = task
        .as_ref()
        .filter(|_| args.llm_plan)
        .map(Task::vocabulary);
    let reading = if args.llm_plan {
        PlanReading::Reply(vocabulary.as_ref())
    } else {
        PlanReading::Strict
    };
    let mut tally = Tally::default();
    for path in &args.plans {
        let result = match validator.as_mut() {
            Some(v) => validate_one(
                path,
                v,
                safety.as_ref(),
                outcome.safety_unavailable.clone(),
                reading,
            ),
            None => PlanResult::NoTask {
                path: path.display().to_string(),
            },
        };
        tally.add(&result);
        if sink.closed {
            // Nobody reads any more: keep validating only for the exit code.
            continue;
        }
        let mut text = Vec::new();
        if args.json {
            crate::report::write_plan_line(&outcome, &result, &mut text)
        } else {
            crate::render::write_plan(&renderer, &outcome, &result, &mut text)
        }
        .map_err(Failure::Write)?;
        sink.write(&text).map_err(Failure::Write)?;
    }
    if !args.json && tally.total() > 1 {
        let mut text = Vec::new();
        crate::render::write_tally(&renderer, &tally, safety.is_some(), &mut text)
            .map_err(Failure::Write)?;
        sink.write(&text).map_err(Failure::Write)?;
    }

    // The process ends after this: the OS takes the memory back at once, while dropping a
    // large problem's syntax tree and task node by node costs more than executing its plan
    // (visitall problem50: 4.5 M instructions against 1.4 M). So they are forgotten.
    std::mem::forget(validator);
    std::mem::forget((domain, problem, task, safety, outcome));
    Ok(if tally.not_validated > 0 {
        Status::InputErrors
    } else if tally.failing > 0 {
        Status::Invalid
    } else {
        Status::Valid
    })
}

/// `the domain's 0-ary functions are `a`, `b``, or `None` when it declares none: for the
/// hint when the danger fluent is not declared.
pub fn zero_ary_functions(d: &Domain) -> Option<String> {
    let names: Vec<String> = d
        .functions
        .iter()
        .filter(|f| f.params.is_empty())
        .map(|f| format!("`{}`", f.name.as_str()))
        .collect();
    (!names.is_empty()).then(|| format!("the domain's 0-ary functions are {}", names.join(", ")))
}

/// Compile the task (and, when the domain declares the danger fluent `safety.0`, the
/// safety-augmented task) when the domain and problem have no errors; otherwise, or when
/// compiling fails, the reasons end up as error diagnostics in `outcome`.
pub fn compile(
    outcome: &mut Outcome,
    domain: Option<&Domain>,
    problem: Option<&Problem>,
    strict: bool,
    safety: (&str, safeplan_validate::SiMode, f64),
) -> Option<(Task, Option<SafetyTask>)> {
    if outcome.errors() > 0 {
        return None;
    }
    let (Some(domain), Some(problem)) = (domain, problem) else {
        // Not expected: a file that cannot be parsed at all has an error diagnostic.
        let missing = if domain.is_none() {
            FileKind::Domain
        } else {
            FileKind::Problem
        };
        file_diagnostics(
            outcome,
            vec![Diagnostic::error(
                Code::UnexpectedEof,
                missing,
                Span::default(),
                "nothing could be read from this file",
            )],
        );
        return None;
    };
    #[allow(clippy::needless_update)]
    // The checker has just run on both (with `strict`) and found no error.
    let options = CompileOptions {
        strict,
        already_checked: true,
        ..CompileOptions::default()
    };
    let task = match Task::compile_with(domain, problem, &options) {
        Ok(task) => task,
        Err(e) => {
            file_diagnostics(outcome, task_error_diagnostics(e, domain));
            return None;
        }
    };
    // Validation is never refused for a safety extra: a task whose safety verdict cannot be
    // given is still validated, with a warning that says why there is no safety verdict.
    let safety_options = SafetyOptions {
        danger: safety.0.to_string(),
        si: safety.1,
        compile: options.clone(),
        tolerance: Some(safety.2),
    };
    let safety = match safeplan_validate::safety_for_validation(domain, problem, &safety_options) {
        Ok(safety) => safety,
        Err(unavailable) => {
            // The library's words, as every front end gives them; the CLI also points at
            // where the safety form fails, as warnings.
            outcome.safety_unavailable = Some(unavailable.reason);
            let diagnostics = task_error_diagnostics(unavailable.error, domain);
            let why = diagnostics
                .into_iter()
                .map(|d| {
                    let mut w = Diagnostic::warning(
                        Code::Unsupported,
                        d.file,
                        d.span,
                        format!("no safety verdict: {}", d.message),
                    );
                    w.help = Some(
                        "every plan is still validated; the safety verdict needs the task's \
                         safety-augmented form to compile"
                            .into(),
                    );
                    w
                })
                .collect();
            file_diagnostics(outcome, why);
            None
        }
    };
    Some((task, safety))
}

/// File each diagnostic under the file it points into (the domain when that is not known).
pub fn file_diagnostics(outcome: &mut Outcome, diagnostics: Vec<Diagnostic>) {
    for d in diagnostics {
        let at = outcome
            .files
            .iter()
            .position(|f| f.kind == d.file)
            .unwrap_or(0);
        if let Some(file) = outcome.files.get_mut(at) {
            file.diagnostics.push(d);
        }
    }
}

/// Why the task cannot be compiled, as diagnostics in the domain or problem.
pub fn task_error_diagnostics(e: TaskError, domain: &Domain) -> Vec<Diagnostic> {
    const HELP: &str = "safeplan validates sequential plans (PDDL 2.1 without durative actions); \
                        `safeplan check` still checks this task";
    match e {
        TaskError::Invalid(diagnostics) => diagnostics,
        TaskError::Unsupported { what, file, span } => vec![
            Diagnostic::error(
                Code::Unsupported,
                file,
                span,
                format!("{what} is not supported by the validator"),
            )
            .with_help(HELP),
        ],
        TaskError::Unstratifiable {
            ref predicate,
            span,
        } => vec![
            Diagnostic::error(Code::Unsupported, FileKind::Domain, span, e.to_string()).with_help(
                format!(
                    "rewrite the derived predicates so that `{predicate}` does not depend on \
                     its own negation"
                ),
            ),
        ],
        TaskError::TooLarge { ref predicate, .. } => {
            let span = domain
                .derived
                .iter()
                .find(|d| d.head.name.matches(predicate))
                .map_or(Span::default(), |d| d.head.span);
            vec![
                Diagnostic::error(Code::Unsupported, FileKind::Domain, span, e.to_string())
                    .with_help("give its parameters narrower types, or use fewer objects"),
            ]
        }
        other => vec![Diagnostic::error(
            Code::Unsupported,
            FileKind::Domain,
            Span::default(),
            other.to_string(),
        )],
    }
}

/// Read, decode and parse one plan, then execute it (and judge its safety).
pub fn validate_one(
    path: &Path,
    validator: &mut Validator<'_>,
    safety: Option<&SafetyTask>,
    unavailable: Option<String>,
    reading: PlanReading<'_>,
) -> PlanResult {
    let input = match read_input(path, FileKind::Plan, USAGE) {
        Ok(input) => input,
        Err(e) => return PlanResult::Unreadable(e),
    };
    let (file, read) = load_plan(input, reading);
    if file.errors() > 0 {
        return PlanResult::Unread(file);
    }
    // The library's assessment: a reply that holds no plan is no plan in both verdicts
    // (never the empty plan); an empty plan file is a plan of no steps, as in VAL. The
    // plan file's warnings are the reading's (the report counts them; `load_plan` filed
    // them under the file).
    let Ok(mut stated) = read.into_stated() else {
        return PlanResult::Unread(file);
    };
    stated.warnings = file.diagnostics.clone();
    let assessment = Assessment::of_stated(stated, validator, safety, unavailable);
    PlanResult::Validated { file, assessment }
}

/// Standard output, flushed after every plan so verdicts appear as they are known. A reader
/// that goes away (`| head`) closes it quietly: nothing more is written, and the run goes on
/// so the exit code still covers every plan.
pub struct Sink<W: Write> {
    out: W,
    closed: bool,
}

impl<W: Write> Sink<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Sink<W> {
        Sink { out, closed: false }
    }

    /// Whether the reader went away.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Write `text` and flush, unless the reader went away.
    pub fn write(&mut self, text: &[u8]) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.out.write_all(text).and_then(|()| self.out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}
