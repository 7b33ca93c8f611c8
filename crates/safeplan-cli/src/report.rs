//! The `--json` report: the library's diagnostics plus the line and column of each span.
//!
//! Keys come out in the order the fields are declared here (serde serialises structs in
//! field order), so the document is byte-for-byte deterministic. Severity, code and file kind
//! use the library's own serde names (`"error"`, `"undefined-predicate"`, `"domain"`).
//! `docs/CLI.md` documents the schema; change both together.

use std::io::{self, Write};

use safeplan_pddl::{Code, Diagnostic, FileKind, Severity};
use serde::Serialize;

use crate::check::{FileResult, Outcome, kind_name};

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
        Report {
            files: outcome
                .files
                .iter()
                .map(|f| FileReport {
                    path: f.path.clone(),
                    kind: f.kind,
                    diagnostics: f
                        .diagnostics
                        .iter()
                        .map(|d| diagnostic(outcome, f, d))
                        .collect(),
                    skipped: f.skipped.clone(),
                })
                .collect(),
            errors,
            warnings,
            ok: errors == 0,
        }
    }
}

fn diagnostic(outcome: &Outcome, file: &FileResult, d: &Diagnostic) -> DiagnosticReport {
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
            .map(|l| match outcome.file(l.file) {
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
