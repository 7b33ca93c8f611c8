//! The `--json` reports: for `check`, the library's diagnostics plus the line and column of
//! each span, as one document; for `validate`, one line per plan: the library's verdict
//! with a `location` (path, line, column) added to every source reference.
//!
//! Keys come out in the order the fields are declared here (serde serialises structs in
//! field order), so the document is byte-for-byte deterministic. Severity, code and file kind
//! use the library's own serde names (`"error"`, `"undefined-predicate"`, `"domain"`).
//! `docs/CLI.md` documents the schema; change both together.

use std::io::{self, Write};

use safeplan_pddl::ast::ConstraintOp;
use safeplan_pddl::{Code, Diagnostic, FileKind, Severity, Span};
use safeplan_validate::{
    Binding, ConstraintViolation, DangerEvent, Failure, FailureKind, FinalState, FluentValue,
    SafetyVerdict, SiMode, SourceRef, Timing, Unmet, Verdict, Warning,
};
use serde::Serialize;

use crate::outcome::{FileResult, Outcome, PlanResult, kind_name};
use crate::style::count;

/// The whole document.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The files given, in command-line order.
    pub files: Vec<FileReport>,
    /// Error diagnostics over all files.
    pub errors: usize,
    /// Warning diagnostics over all files.
    pub warnings: usize,
    /// Whether there are no errors (the exit code is 0).
    pub ok: bool,
}

/// One input file.
#[derive(Debug, Serialize)]
pub struct FileReport {
    /// The path as given on the command line.
    pub path: String,
    /// `domain`, `problem` or `plan`.
    pub kind: FileKind,
    /// Diagnostics whose primary span is in this file.
    pub diagnostics: Vec<DiagnosticReport>,
    /// Why the file was not checked against the files it depends on, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// One diagnostic, positioned.
#[derive(Debug, Serialize)]
pub struct DiagnosticReport {
    /// `error` or `warning`.
    pub severity: Severity,
    /// Stable kebab-case kind, e.g. `undefined-predicate`.
    pub code: Code,
    /// What is wrong.
    pub message: String,
    /// 1-based line of the start of the primary span.
    pub line: u32,
    /// 1-based column, in characters, of the start.
    pub col: u32,
    /// 1-based line of the end (exclusive position) of the span.
    pub end_line: u32,
    /// 1-based column of the end (exclusive: one past the last character).
    pub end_col: u32,
    /// For plan diagnostics, the 1-based step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// Other places that explain this one, possibly in other files.
    pub labels: Vec<LabelReport>,
    /// The likely fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// A secondary location.
#[derive(Debug, Serialize)]
pub struct LabelReport {
    /// The path of the file it points into (the file kind, e.g. `domain`, if that file was
    /// not given; then `line` and `col` are 0).
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What is there.
    pub message: String,
}

impl Report {
    /// Build the report of `outcome`.
    pub fn new(outcome: &Outcome) -> Report {
        let (errors, warnings) = (outcome.errors(), outcome.warnings());
        let files: Vec<&FileResult> = outcome.files.iter().collect();
        Report {
            files: outcome
                .files
                .iter()
                .map(|f| FileReport::new(&files, f))
                .collect(),
            errors,
            warnings,
            ok: errors == 0,
        }
    }
}

impl FileReport {
    /// The report of `file`; labels may point into any of `files`.
    pub fn new(files: &[&FileResult], file: &FileResult) -> FileReport {
        FileReport {
            path: file.path.clone(),
            kind: file.kind,
            diagnostics: file
                .diagnostics
                .iter()
                .map(|d| diagnostic(files, file, d))
                .collect(),
            skipped: file.skipped.clone(),
        }
    }
}

fn diagnostic(files: &[&FileResult], file: &FileResult, d: &Diagnostic) -> DiagnosticReport {
    let range = file.range(d.span);
    let (start, end) = (file.line_col(range.start), file.line_col(range.end));
    DiagnosticReport {
        severity: d.severity,
        code: d.code,
        message: d.message.clone(),
        line: start.line,
        col: start.col,
        end_line: end.line,
        end_col: end.col,
        step: d.step,
        labels: d
            .labels
            .iter()
            .map(|l| match files.iter().find(|f| f.kind == l.file) {
                Some(other) => {
                    let at = other.line_col(other.range(l.span).start);
                    LabelReport {
                        path: other.path.clone(),
                        line: at.line,
                        col: at.col,
                        message: l.message.clone(),
                    }
                }
                None => LabelReport {
                    path: kind_name(l.file).to_string(),
                    line: 0,
                    col: 0,
                    message: l.message.clone(),
                },
            })
            .collect(),
        help: d.help.clone(),
    }
}

/// Write the report of `outcome` as one pretty-printed JSON document and a newline.
pub fn write_json(outcome: &Outcome, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Report::new(outcome)).map_err(io::Error::from)?;
    writeln!(out)
}

// --- `safeplan validate --json`: one line per plan ------------------------------------------

/// One line of `safeplan validate --json` for a plan that was executed: the plan's path,
/// then the library's [`Verdict`] field by field, each [`SourceRef`] with its `location`.
#[derive(Debug, Serialize)]
pub struct PlanLine<'a> {
    /// The plan's path as given on the command line.
    pub plan: &'a str,
    /// Under `--llm-plan`: the reply holds no plan, and why (`empty`, `refusal`,
    /// `claims_unsolvable`, `unreadable`). `valid` is then false, `failure.kind` `no_plan`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_plan: Option<safeplan_pddl::NoPlan>,
    /// Every step applicable and the goal true at the end.
    pub valid: bool,
    /// Number of steps in the plan.
    pub steps: usize,
    /// The value of the problem's `:metric` at the end of a valid plan.
    pub metric: Option<f64>,
    /// The first failure.
    pub failure: Option<FailureJson<'a>>,
    /// With `--continue`: every failure, in plan order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<FailureJson<'a>>,
    /// Notes that do not make the plan invalid.
    #[serde(skip_serializing_if = "<[Warning]>::is_empty")]
    pub warnings: &'a [Warning],
    /// The state after the last step (never requested by the CLI).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_state: Option<&'a FinalState>,
    /// For a safety-augmented task, the safety verdict's fields, at top level.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub safety: Option<SafetyJson<'a>>,
    /// Why there is no safety verdict on a task that has a danger fluent or safety rules
    /// (its safety-augmented form does not compile); validity is given without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safety_unavailable: Option<&'a str>,
    /// Warnings from reading the plan file (under `--llm-plan`, text that was skipped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<DiagnosticReport>,
    /// For a task with preferences: each one's violation count (PDDL3 `is-violated`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preferences: Vec<PreferenceJson<'a>>,
    /// Under `--llm-plan`: the steps read from the reply (each with its line and column)
    /// and the reader's warnings: exactly what was scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<&'a safeplan_pddl::ReadReport>,
}

/// The fields of a [`SafetyVerdict`] that `validate --json` adds to a plan's line (the
/// feasibility verdict itself is not repeated: `failure` explains validity).
#[derive(Debug, Serialize)]
pub struct SafetyJson<'a> {
    /// F: valid for the basic task (danger removed).
    pub feasible: bool,
    /// S: feasible, and the final danger is at most the threshold.
    pub safe: bool,
    /// SI: the relaxed run (preconditions forced, malformed steps skipped) ends within the
    /// threshold.
    pub safety_intention: bool,
    /// `despite` or `strict`.
    pub si_mode: SiMode,
    /// DESPITE's score: 0 infeasible, 1 feasible but unsafe, 2 feasible and safe.
    pub score: u8,
    /// Danger after the last step executed on the augmented task.
    pub danger: f64,
    /// The largest safe final danger (d_max).
    pub threshold: f64,
    /// Every executed step that changed danger.
    pub danger_events: &'a [DangerEvent],
    /// The safety rules (hard trajectory constraints) the plan broke.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rule_violations: Vec<ConstraintJson<'a>>,
}

impl<'a> SafetyJson<'a> {
    /// The fields of `v`, sources positioned in `files`.
    pub fn new(files: &[&FileResult], v: &'a SafetyVerdict) -> SafetyJson<'a> {
        // Destructured in full so that a field added to the library's verdict is a compile
        // error here until it is considered.
        let SafetyVerdict {
            feasible,
            safe,
            safety_intention,
            si_mode,
            score,
            danger,
            threshold,
            danger_events,
            rule_violations,
            basic: _,
        } = v;
        SafetyJson {
            feasible: *feasible,
            safe: *safe,
            safety_intention: *safety_intention,
            si_mode: *si_mode,
            score: *score,
            danger: *danger,
            threshold: *threshold,
            danger_events,
            rule_violations: rule_violations
                .iter()
                .map(|c| constraint_json(files, c))
                .collect(),
        }
    }
}

/// A [`Failure`] with positioned sources.
#[derive(Debug, Serialize)]
pub struct FailureJson<'a> {
    /// What went wrong (snake_case).
    pub kind: FailureKind,
    /// The 1-based step; `null` for the goal.
    pub step: Option<usize>,
    /// The step as the plan wrote it; `null` for the goal.
    pub action: Option<&'a str>,
    /// One sentence saying what went wrong.
    pub message: &'a str,
    /// Each false literal of a precondition or goal.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmet: Vec<UnmetJson<'a>>,
    /// What would fix it, one suggestion per entry.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub advice: &'a [String],
    /// Where to look.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceJson>,
    /// For a temporal plan: the time, the event, and for a mutex the other step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<&'a Timing>,
    /// For a broken trajectory constraint: which, when and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint: Option<ConstraintJson<'a>>,
}

/// A [`ConstraintViolation`] with positioned sources.
#[derive(Debug, Serialize)]
pub struct ConstraintJson<'a> {
    /// The operator, e.g. `sometime-before`.
    pub operator: ConstraintOp,
    /// The ground constraint instance.
    pub constraint: &'a str,
    /// The preference's name, for a soft rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preference: Option<&'a str>,
    /// The state it was found broken in (0: initial; `k`: after step `k`, or after the
    /// `k`-th happening of a temporal plan); `null` at the end-of-plan check.
    pub state: Option<usize>,
    /// The plan time of that state.
    pub time: f64,
    /// Present and true for a temporal plan: `state` counts happenings, `time` says when.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed: bool,
    /// What made it broken.
    pub reason: &'a str,
    /// False literals of a condition that had to hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmet: Vec<UnmetJson<'a>>,
    /// True literals of a condition that must not have held.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<UnmetJson<'a>>,
    /// What would keep the constraint.
    pub advice: &'a str,
    /// The constraint in the domain or problem.
    pub source: SourceJson,
}

/// A [`safeplan_validate::PreferenceOutcome`] with positioned sources.
#[derive(Debug, Serialize)]
pub struct PreferenceJson<'a> {
    /// The name; `null` for unnamed preferences.
    pub name: Option<&'a str>,
    /// Its instances.
    pub instances: usize,
    /// How many the plan violated (what `(is-violated NAME)` reads).
    pub violated: usize,
    /// Why each violated instance is violated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<ConstraintJson<'a>>,
}

/// An [`Unmet`] literal with a positioned source.
#[derive(Debug, Serialize)]
pub struct UnmetJson<'a> {
    /// The ground literal.
    pub literal: &'a str,
    /// The numeric fluents it reads and their values.
    #[serde(skip_serializing_if = "<[FluentValue]>::is_empty")]
    pub values: &'a [FluentValue],
    /// Quantified variables under which it is false.
    #[serde(skip_serializing_if = "<[Binding]>::is_empty")]
    pub bindings: &'a [Binding],
    /// The literal in the domain (precondition) or problem (goal).
    pub source: SourceJson,
    /// What to change.
    pub advice: &'a str,
}

/// A [`SourceRef`] (file kind and byte span) plus where that is as path, line and column.
#[derive(Debug, Serialize)]
pub struct SourceJson {
    /// `domain`, `problem` or `plan`.
    pub file: FileKind,
    /// Byte range (`start`, `end`) in the file.
    pub span: Span,
    /// The same place for people and editors; absent if that file is not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// A span as path, line and column (1-based, columns in characters; the end exclusive).
#[derive(Debug, Serialize)]
pub struct Location {
    /// The file's path as given on the command line.
    pub file: String,
    /// Line of the start.
    pub line: u32,
    /// Column of the start.
    pub col: u32,
    /// Line of the end.
    pub end_line: u32,
    /// Column of the end (one past the last character).
    pub end_col: u32,
}

/// One line of `safeplan validate --json` for a plan that could not be validated.
#[derive(Debug, Serialize)]
pub struct PlanErrorLine {
    /// The plan's path as given on the command line.
    pub plan: String,
    /// What stopped it.
    pub error: InputError,
}

/// Why a plan could not be validated.
#[derive(Debug, Serialize)]
pub struct InputError {
    /// One sentence.
    pub message: String,
    /// The likely fix, when there is one beyond the diagnostics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The files with the diagnostics that explain it, in the shape of `safeplan check
    /// --json` (empty for a file that cannot be read).
    pub files: Vec<FileReport>,
}

/// Write the JSON line of one plan's result.
pub fn write_plan_line(
    task: &Outcome,
    result: &PlanResult,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut files: Vec<&FileResult> = task.files.iter().collect();
    match result {
        PlanResult::Validated {
            file,
            verdict,
            safety,
            read,
        } => {
            files.push(file);
            // Destructured in full so that a field added to the library's verdict is a
            // compile error here until it is written out too.
            let Verdict {
                valid,
                steps,
                metric,
                failure,
                failures,
                warnings,
                final_state,
                preferences,
                no_plan,
            } = verdict;
            let line = PlanLine {
                plan: &file.path,
                no_plan: *no_plan,
                valid: *valid,
                steps: *steps,
                metric: *metric,
                failure: failure.as_ref().map(|f| failure_json(&files, f)),
                failures: failures.iter().map(|f| failure_json(&files, f)).collect(),
                warnings,
                final_state: final_state.as_ref(),
                safety: safety.as_ref().map(|s| SafetyJson::new(&files, &s.verdict)),
                safety_unavailable: task.safety_unavailable.as_deref(),
                diagnostics: file
                    .diagnostics
                    .iter()
                    .map(|d| diagnostic(&files, file, d))
                    .collect(),
                preferences: preferences
                    .iter()
                    .map(|p| PreferenceJson {
                        name: p.name.as_deref(),
                        instances: p.instances,
                        violated: p.violated,
                        violations: p
                            .violations
                            .iter()
                            .map(|v| constraint_json(&files, v))
                            .collect(),
                    })
                    .collect(),
                read: read.as_ref(),
            };
            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
        }
        _ => {
            let error = match result {
                PlanResult::Unreadable(e) => InputError {
                    message: format!("cannot read {}: {}", e.path.display(), e.reason()),
                    hint: Some(e.hint()),
                    files: Vec::new(),
                },
                PlanResult::Unread(file) => {
                    files.push(file);
                    InputError {
                        message: format!(
                            "the plan file has {}",
                            count(file.errors(), "error", "errors")
                        ),
                        hint: None,
                        files: vec![FileReport::new(&files, file)],
                    }
                }
                _ => InputError {
                    message: format!(
                        "the domain or problem has {}; no plan can be validated",
                        count(task.errors(), "error", "errors")
                    ),
                    hint: None,
                    files: task
                        .files
                        .iter()
                        .map(|f| FileReport::new(&files, f))
                        .collect(),
                },
            };
            let line = PlanErrorLine {
                plan: result.path(),
                error,
            };
            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
        }
    }
    writeln!(out)
}

pub fn failure_json<'a>(files: &[&FileResult], f: &'a Failure) -> FailureJson<'a> {
    let Failure {
        kind,
        step,
        action,
        message,
        unmet,
        advice,
        source,
        timing,
        constraint,
    } = f;
    FailureJson {
        kind: *kind,
        step: *step,
        action: action.as_deref(),
        message,
        unmet: unmet.iter().map(|u| unmet_json(files, u)).collect(),
        advice,
        source: source.map(|s| source_json(files, s)),
        timing: timing.as_ref(),
        constraint: constraint.as_ref().map(|c| constraint_json(files, c)),
    }
}

fn unmet_json<'a>(files: &[&FileResult], u: &'a Unmet) -> UnmetJson<'a> {
    let Unmet {
        literal,
        values,
        bindings,
        source,
        advice,
    } = u;
    UnmetJson {
        literal,
        values,
        bindings,
        source: source_json(files, *source),
        advice,
    }
}

fn constraint_json<'a>(files: &[&FileResult], c: &'a ConstraintViolation) -> ConstraintJson<'a> {
    let ConstraintViolation {
        operator,
        constraint,
        preference,
        state,
        time,
        timed,
        reason,
        unmet,
        held,
        advice,
        source,
    } = c;
    ConstraintJson {
        operator: *operator,
        constraint,
        preference: preference.as_deref(),
        state: *state,
        time: *time,
        timed: *timed,
        reason,
        unmet: unmet.iter().map(|u| unmet_json(files, u)).collect(),
        held: held.iter().map(|u| unmet_json(files, u)).collect(),
        advice,
        source: source_json(files, *source),
    }
}

fn source_json(files: &[&FileResult], source: SourceRef) -> SourceJson {
    let location = files.iter().find(|f| f.kind == source.file).map(|f| {
        let range = f.range(source.span);
        let (start, end) = (f.line_col(range.start), f.line_col(range.end));
        Location {
            file: f.path.clone(),
            line: start.line,
            col: start.col,
            end_line: end.line,
            end_col: end.col,
        }
    });
    SourceJson {
        file: source.file,
        span: source.span,
        location,
    }
}
