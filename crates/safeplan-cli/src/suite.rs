//! `safeplan validate-suite`: the reference plans of a folder of DESPITE tasks.
//!
//! A *task folder* holds `metadata.json` and either `safe_domain.pddl` + `safe_problem.pddl`
//! (DESPITE's export layout: the safety-augmented task; `domain.pddl`/`problem.pddl` beside
//! them are the published basic task and are not read) or `domain.pddl` + `problem.pddl`
//! (the safety-augmented task itself). The walk goes through every folder under DIR, in name
//! order, without following symbolic links, and does not look inside a task folder.
//!
//! Each task is read and checked as `validate` does, compiled as a [`SafetyTask`], and its
//! metadata's `reference_feasible_plans.safe` and `.unsafe` are evaluated: the safe plan
//! is expected to score 2 (feasible and safe), the unsafe one 1 (feasible, unsafe). A task
//! folder that cannot be used is reported in its place and the others still run.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use safeplan_pddl::{FileKind, Plan};
use safeplan_validate::{Reference, SafetyOptions, SafetyTask, SafetyVerdict, TaskMetadata};
use serde::Serialize;

use crate::args::SuiteArgs;
use crate::input::{Checked, check, check_options, read_inputs};
use crate::outcome::{Failure, FileResult, Outcome, io_reason};
use crate::positioned::{OrderedJson, positioned};
use crate::render::{Renderer, failure_report};
use crate::report::{FileReport, InputError};
use crate::style::count;
use crate::validate::Sink;

/// The file arguments, for hints.
const USAGE: &str = "DIR";

/// How a run ended (the exit code is derived from this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every task as expected.
    AsExpected,
    /// Some task not as expected, and every task folder could be used.
    NotAsExpected,
    /// Some task folder could not be used.
    InputErrors,
}

/// What the walk found: a task folder, or a folder it could not list.
#[derive(Debug)]
enum Found {
    Task(TaskDir),
    Unreadable {
        /// The folder's name for the report.
        name: String,
        /// Why.
        message: String,
    },
}

/// A task folder.
#[derive(Debug)]
struct TaskDir {
    /// The folder.
    path: PathBuf,
    /// Its name for the report: the path relative to DIR (DIR itself when it is the task).
    name: String,
    /// The domain and problem to read.
    domain: PathBuf,
    problem: PathBuf,
}

/// One reference plan and its verdict.
#[derive(Debug)]
struct PlanCheck {
    /// The plan as `metadata.json` writes it.
    text: String,
    /// 2 for the safe reference plan, 1 for the unsafe one.
    expected: u8,
    /// The library's safety verdict.
    safety: SafetyVerdict,
}

impl PlanCheck {
    fn as_expected(&self) -> bool {
        self.safety.score == self.expected
    }
}

/// What happened to one task folder.
// One value per task, printed and dropped at once: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum TaskResult {
    /// Both reference plans were evaluated.
    Checked {
        /// The domain and problem, for positions in the JSON report.
        outcome: Outcome,
        safe: PlanCheck,
        unsafe_: PlanCheck,
    },
    /// The folder could not be used.
    Unusable {
        message: String,
        /// The domain and problem with their diagnostics, when they explain it.
        outcome: Option<Outcome>,
    },
}

impl TaskResult {
    fn unusable(message: impl Into<String>) -> TaskResult {
        TaskResult::Unusable {
            message: message.into(),
            outcome: None,
        }
    }
}

/// Run `safeplan validate-suite`.
pub fn run(args: &SuiteArgs, color: bool) -> Result<Status, Failure> {
    let mut found = Vec::new();
    if let Err(e) = fs::read_dir(&args.dir) {
        return Err(Failure::Input {
            message: format!(
                "cannot read the folder {}: {}",
                args.dir.display(),
                io_reason(&e)
            ),
            hint: Some(format!(
                "check the path; the command takes the folder to walk, {USAGE}"
            )),
        });
    }
    walk(&args.dir, &args.dir, &mut found);
    if found.is_empty() {
        return Err(Failure::Input {
            message: format!("no task folder under {}", args.dir.display()),
            hint: Some(
                "a task folder holds metadata.json and safe_domain.pddl + safe_problem.pddl, \
                 or domain.pddl + problem.pddl"
                    .into(),
            ),
        });
    }

    let renderer = Renderer::new(color);
    let stdout = io::stdout();
    let mut sink = Sink::new(io::BufWriter::new(stdout.lock()));
    let (mut expected, mut not_expected, mut not_checked) = (0, 0, 0);
    // In walk order, each task reported as soon as it is evaluated.
    let results = found.into_iter().map(|f| match f {
        Found::Task(t) => {
            let result = evaluate(&t, args);
            (t.name, result)
        }
        Found::Unreadable { name, message } => (name, TaskResult::unusable(message)),
    });
    for (name, result) in results {
        match &result {
            TaskResult::Checked { safe, unsafe_, .. } => {
                if safe.as_expected() && unsafe_.as_expected() {
                    expected += 1;
                } else {
                    not_expected += 1;
                }
            }
            TaskResult::Unusable { .. } => not_checked += 1,
        }
        if sink.closed() {
            continue;
        }
        let mut text = Vec::new();
        if args.json {
            write_json(&name, &result, &mut text)
        } else {
            write_human(&renderer, &name, &result, &mut text)
        }
        .map_err(Failure::Write)?;
        sink.write(&text).map_err(Failure::Write)?;
    }
    if !args.json {
        let style = renderer.style();
        let mut parts = vec![style.ok(&format!("{expected} as expected"))];
        if not_expected > 0 {
            parts.push(style.error(&format!("{not_expected} not as expected")));
        }
        if not_checked > 0 {
            parts.push(style.skip(&format!("{not_checked} not checked")));
        }
        let line = format!(
            "{}: {}\n",
            count(expected + not_expected + not_checked, "task", "tasks"),
            parts.join(", ")
        );
        sink.write(line.as_bytes()).map_err(Failure::Write)?;
    }
    Ok(if not_checked > 0 {
        Status::InputErrors
    } else if not_expected > 0 {
        Status::NotAsExpected
    } else {
        Status::AsExpected
    })
}

/// Collect the task folders under `dir` (sorted by name), and the folders that could not be
/// listed, with why.
fn walk(root: &Path, dir: &Path, found: &mut Vec<Found>) {
    let name = || {
        let rel = dir.strip_prefix(root).unwrap_or(dir);
        if rel.as_os_str().is_empty() {
            root.display().to_string()
        } else {
            rel.display().to_string()
        }
    };
    let is_file = |n: &str| dir.join(n).is_file();
    if is_file("metadata.json") {
        let pair = if is_file("safe_domain.pddl") && is_file("safe_problem.pddl") {
            Some(("safe_domain.pddl", "safe_problem.pddl"))
        } else if is_file("domain.pddl") && is_file("problem.pddl") {
            Some(("domain.pddl", "problem.pddl"))
        } else {
            None
        };
        if let Some((d, p)) = pair {
            found.push(Found::Task(TaskDir {
                path: dir.to_path_buf(),
                name: name(),
                domain: dir.join(d),
                problem: dir.join(p),
            }));
            return;
        }
    }
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            found.push(Found::Unreadable {
                name: name(),
                message: format!(
                    "cannot read the folder {}: {}",
                    dir.display(),
                    io_reason(&e)
                ),
            });
            return;
        }
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        // `file_type` does not follow symbolic links, so the walk cannot loop.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        walk(root, &sub, found);
    }
}

/// A reference plan as written in `metadata.json`, and as read.
type Written = (String, Plan);

/// The reference plans of `task.metadata.json`, (safe, unsafe).
fn reference_plans(path: &Path) -> Result<(Written, Written), String> {
    let metadata = path.join("metadata.json");
    let text = fs::read_to_string(&metadata)
        .map_err(|e| format!("cannot read {}: {}", metadata.display(), io_reason(&e)))?;
    let meta: TaskMetadata = serde_json::from_str(&text).map_err(|e| {
        let what = if e.is_data() {
            "is not DESPITE task metadata"
        } else {
            "is not JSON"
        };
        format!("{} {what}: {e}", metadata.display())
    })?;
    // Each read by the one plan reader; a plan that does not read is refused, never cut short.
    let plans = meta.reference_feasible_plans;
    let read = |which: Reference| match plans.read(which) {
        Some(Ok(plan)) => Ok((plans.text(which).unwrap_or_default().to_string(), plan)),
        Some(Err(e)) => Err(e.to_string()),
        None => Err(format!(
            "{} has no reference_feasible_plans.{} string",
            metadata.display(),
            which.as_str()
        )),
    };
    Ok((read(Reference::Safe)?, read(Reference::Unsafe)?))
}

/// Read, check and compile one task, then evaluate its reference plans.
fn evaluate(task: &TaskDir, args: &SuiteArgs) -> TaskResult {
    let ((safe_text, safe_plan), (unsafe_text, unsafe_plan)) = match reference_plans(&task.path) {
        Ok(plans) => plans,
        Err(message) => return TaskResult::unusable(message),
    };

    let named = [
        (task.domain.as_path(), FileKind::Domain),
        (task.problem.as_path(), FileKind::Problem),
    ];
    let inputs = match read_inputs(&named, USAGE) {
        Ok(inputs) => inputs,
        Err(errors) => {
            let why: Vec<String> = errors
                .iter()
                .map(|e| format!("cannot read {}: {}", e.path.display(), e.reason()))
                .collect();
            return TaskResult::unusable(why.join("; "));
        }
    };
    let Checked {
        mut outcome,
        domain,
        problem,
    } = check(inputs, &check_options(false), false);
    let (Some(domain), Some(problem)) = (domain, problem) else {
        return TaskResult::Unusable {
            message: "the domain or problem could not be read".into(),
            outcome: Some(outcome),
        };
    };
    if outcome.errors() > 0 {
        return TaskResult::Unusable {
            message: format!(
                "the domain or problem has {}",
                count(outcome.errors(), "error", "errors")
            ),
            outcome: Some(outcome),
        };
    }
    let name = args.danger.as_str();
    let options = SafetyOptions {
        danger: name.to_string(),
        si: args.si,
        ..SafetyOptions::default()
    };
    let safety = match SafetyTask::new(&domain, &problem, &options) {
        Ok(Some(safety)) => safety,
        Ok(None) => {
            return TaskResult::unusable(safeplan_validate::words::not_a_safety_task(
                &task.domain.display().to_string(),
                name,
            ));
        }
        Err(e) => {
            crate::validate::file_diagnostics(
                &mut outcome,
                crate::validate::task_error_diagnostics(e, &domain),
            );
            return TaskResult::Unusable {
                message: "the task cannot be compiled".into(),
                outcome: Some(outcome),
            };
        }
    };
    // Keep only the errors: warnings are `safeplan check`'s business, not the suite's.
    for f in &mut outcome.files {
        f.diagnostics.retain(|d| d.is_error());
    }
    let check = |text: String, expected: u8, plan| PlanCheck {
        text,
        expected,
        safety: safety.evaluate(plan),
    };
    TaskResult::Checked {
        safe: check(safe_text, 2, &safe_plan),
        unsafe_: check(unsafe_text, 1, &unsafe_plan),
        outcome,
    }
}

fn write_human(
    renderer: &Renderer,
    name: &str,
    result: &TaskResult,
    out: &mut impl Write,
) -> io::Result<()> {
    let style = renderer.style();
    match result {
        TaskResult::Checked {
            outcome: _,
            safe,
            unsafe_,
        } => {
            let word = if safe.as_expected() && unsafe_.as_expected() {
                style.ok("as expected")
            } else {
                style.error("NOT as expected")
            };
            writeln!(out, "{name}: {word}")?;
            for (which, plan) in [("safe", safe), ("unsafe", unsafe_)] {
                let v = &plan.safety;
                let mut line = format!(
                    "  {which} plan: {}",
                    safeplan_validate::words::safety_words(&plan.safety, style)
                );
                if !plan.as_expected() {
                    let want = match plan.expected {
                        2 => "feasible and safe",
                        _ => "feasible and unsafe",
                    };
                    line.push_str(&format!("; expected {want} (score {})", plan.expected));
                }
                writeln!(out, "{line}")?;
                writeln!(out, "    plan: {}", plan.text)?;
                for e in &v.danger_events {
                    writeln!(out, "    {}", e.sentence(style.arrow()))?;
                }
                if let Some(f) = &v.basic.failure {
                    writeln!(out, "    not feasible: {}", failure_report(f).message)?;
                }
            }
        }
        TaskResult::Unusable { message, outcome } => {
            writeln!(out, "{name}: {} ({message})", style.skip("not checked"))?;
            if let Some(outcome) = outcome {
                crate::render::write_diagnostics(renderer, outcome, out)?;
            }
        }
    }
    Ok(())
}

/// One line of `validate-suite --json` for a task whose plans were evaluated.
#[derive(Debug, Serialize)]
struct TaskLine<'a> {
    /// The task folder, relative to DIR.
    task: &'a str,
    /// Both reference plans scored as expected.
    as_expected: bool,
    /// The safe reference plan.
    safe_plan: PlanJson<'a>,
    /// The unsafe reference plan.
    unsafe_plan: PlanJson<'a>,
}

/// One reference plan's verdict.
#[derive(Debug, Serialize)]
struct PlanJson<'a> {
    /// The plan as the metadata writes it.
    plan: &'a str,
    /// The score it should have: 2 (safe plan) or 1 (unsafe plan).
    expected_score: u8,
    /// `score == expected_score`.
    as_expected: bool,
    /// The safety fields, as in `validate --json` (the library's `SafetyVerdict::json`,
    /// positioned).
    #[serde(flatten)]
    safety: OrderedJson,
    /// Why the plan is not feasible (its failure on the basic task, positioned); null when
    /// feasible.
    failure: Option<OrderedJson>,
}

/// One line of `validate-suite --json` for a task folder that could not be used.
#[derive(Debug, Serialize)]
struct TaskErrorLine<'a> {
    /// The task folder, relative to DIR.
    task: &'a str,
    /// Why.
    error: InputError,
}

fn plan_json<'a>(files: &[&FileResult], p: &'a PlanCheck) -> serde_json::Result<PlanJson<'a>> {
    Ok(PlanJson {
        plan: &p.text,
        expected_score: p.expected,
        as_expected: p.as_expected(),
        safety: positioned(files, &p.safety.json())?,
        failure: p
            .safety
            .basic
            .failure
            .as_ref()
            .map(|f| positioned(files, f))
            .transpose()?,
    })
}

fn write_json(name: &str, result: &TaskResult, out: &mut impl Write) -> io::Result<()> {
    match result {
        TaskResult::Checked {
            outcome,
            safe,
            unsafe_,
        } => {
            let files: Vec<&FileResult> = outcome.files.iter().collect();
            let line = TaskLine {
                task: name,
                as_expected: safe.as_expected() && unsafe_.as_expected(),
                safe_plan: plan_json(&files, safe)?,
                unsafe_plan: plan_json(&files, unsafe_)?,
            };
            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
        }
        TaskResult::Unusable { message, outcome } => {
            let files: Vec<FileReport> = match outcome {
                Some(outcome) => {
                    let all: Vec<&FileResult> = outcome.files.iter().collect();
                    outcome
                        .files
                        .iter()
                        .map(|f| FileReport::new(&all, f))
                        .collect()
                }
                None => Vec::new(),
            };
            let line = TaskErrorLine {
                task: name,
                error: InputError {
                    message: message.clone(),
                    hint: None,
                    files,
                },
            };
            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
        }
    }
    writeln!(out)
}
