//! The `--json` reports: for `check`, the library's diagnostics plus the line and column of
//! each span, as one document; for `validate`, one line per plan: the library's assessment
//! JSON (the object the C API, MCP and Python write) with a `location` (path, line, column)
//! added to every source reference.
//!
//! The `check` document's keys come out in the order its fields are declared here (serde
//! serialises structs in field order); a plan line is the plan's path, then the library's
//! object with its keys in the library's field order (kept by `crate::positioned`), then
//! the plan file's diagnostics. Both are byte-for-byte deterministic. Severity, code and file kind use the
//! library's own serde names (`"error"`, `"undefined-predicate"`, `"domain"`).
//! `docs/CLI.md` documents the schema; change both together.

use std::io::{self, Write};

use safeplan_pddl::{Code, Diagnostic, FileKind, Severity};
use serde::Serialize;

use crate::outcome::{FileResult, Outcome, PlanResult, kind_name};
use crate::positioned::{OrderedJson, positioned};
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
/// then the library's assessment JSON (`safeplan_validate::Assessment::json`, the object the
/// C API, MCP and Python write) with a `location` beside every source, then the plan file's
/// reading diagnostics. The verdict's fields are the library's by construction: nothing here
/// names one.
#[derive(Debug, Serialize)]
pub struct PlanLine<'a> {
    /// The plan's path as given on the command line.
    pub plan: &'a str,
    /// The library's assessment, positioned (`crate::positioned`).
    #[serde(flatten)]
    pub assessment: OrderedJson,
    /// Warnings from reading the plan file (under `--llm-plan`, text that was skipped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<DiagnosticReport>,
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
        PlanResult::Validated { file, assessment } => {
            files.push(file);
            let line = PlanLine {
                plan: &file.path,
                assessment: positioned(&files, &assessment.json()).map_err(io::Error::from)?,
                diagnostics: file
                    .diagnostics
                    .iter()
                    .map(|d| diagnostic(&files, file, d))
                    .collect(),
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
