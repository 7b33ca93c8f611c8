//! What a run of `check` or `validate` found, as plain data: the files read and their
//! diagnostics ([`Outcome`], [`FileResult`]), each plan's result ([`PlanResult`]) and the
//! tally, and the failures that end a run early ([`Failure`]). The commands produce these;
//! the printers (`render` for people, `report` for JSON) only read them, and nothing here
//! reads either, so the types sit below every module that uses them.

use std::io;
use std::ops::Range;
use std::path::PathBuf;

use safeplan_pddl::{Diagnostic, FileKind, LineCol, LineIndex, Span};
use safeplan_validate::Assessment;

/// Why the command could not do its job at all.
#[derive(Debug)]
pub enum Failure {
    /// Some input files could not be read (missing, a directory, no permission, ...).
    Read(Vec<ReadError>),
    /// Standard output failed for a reason other than a closed pipe.
    Write(io::Error),
    /// The input cannot be used by this command, for a reason that is not a diagnostic of
    /// one file (a task without the danger fluent, an output file that exists, ...).
    Input {
        /// One sentence.
        message: String,
        /// The likely fix.
        hint: Option<String>,
    },
}

/// One input file that could not be read.
#[derive(Debug)]
pub struct ReadError {
    /// The path as given.
    pub path: PathBuf,
    /// What the operating system said.
    pub error: io::Error,
    /// The command's file arguments, for the hint when a file is not found, e.g.
    /// `DOMAIN [PROBLEM [PLAN]]`.
    pub usage: &'static str,
}

impl ReadError {
    /// The reason, without Rust's " (os error N)" suffix.
    pub fn reason(&self) -> String {
        io_reason(&self.error)
    }

    /// A hint at the likely fix.
    pub fn hint(&self) -> String {
        match self.error.kind() {
            io::ErrorKind::NotFound => {
                format!("check the path; the files go in the order {}", self.usage)
            }
            io::ErrorKind::PermissionDenied => "check the file's permissions".into(),
            io::ErrorKind::IsADirectory => {
                "give the path of a file inside it, not the directory".into()
            }
            _ => "check that the path names a readable file".into(),
        }
    }
}

/// What the operating system said, without Rust's " (os error N)" suffix.
pub fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// One input file after checking: its text, what it holds, and what was found in it.
#[derive(Debug)]
pub struct FileResult {
    /// The path as given on the command line, for display.
    pub path: String,
    /// Domain, problem or plan.
    pub kind: FileKind,
    /// The text, made safe to print: byte offsets and character counts are those of the
    /// file as read (see `input::printable`); invalid UTF-8 is shown as U+FFFD.
    pub text: String,
    /// Line starts of `text`.
    pub index: LineIndex,
    /// Diagnostics whose primary span points into this file, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// What was read, for the `ok` line (`None` when nothing could be read).
    pub summary: Option<String>,
    /// Why this file was not checked against the files it depends on, if it was not.
    pub skipped: Option<String>,
}

impl FileResult {
    /// Number of error diagnostics.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Number of warning diagnostics.
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }

    /// `span` clamped to the text and widened to character boundaries, so it can always be
    /// sliced and rendered, whatever the span.
    pub fn range(&self, span: Span) -> Range<usize> {
        let text = &self.text;
        let mut start = (span.start as usize).min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (span.end as usize).clamp(start, text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if start == text.len() {
            // "The file ends here": point at the end of the last line, which a reader can
            // see, rather than at the empty line after the final newline.
            start = text.trim_end_matches(['\n', '\r']).len();
            end = start;
        }
        start..end
    }

    /// 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> LineCol {
        self.index.line_col(&self.text, offset as u32)
    }
}

/// Everything `safeplan check` found, in command-line order of the files.
#[derive(Debug)]
pub struct Outcome {
    /// The files given, domain first.
    pub files: Vec<FileResult>,
    /// Why the task's plans get no safety verdict although it has a danger fluent or
    /// safety rules (its safety-augmented form does not compile): validity is given
    /// without it, and every output says so.
    pub safety_unavailable: Option<String>,
}

impl Outcome {
    /// Total errors over all files.
    pub fn errors(&self) -> usize {
        self.files.iter().map(FileResult::errors).sum()
    }

    /// Total warnings over all files.
    pub fn warnings(&self) -> usize {
        self.files.iter().map(FileResult::warnings).sum()
    }
}

/// `domain`, `problem` or `plan`.
pub fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Domain => "domain",
        FileKind::Problem => "problem",
        FileKind::Plan => "plan",
    }
}

/// What happened to one plan.
// One value per plan, printed and dropped at once: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum PlanResult {
    /// The plan was read and executed.
    Validated {
        /// The plan file, with its reading warnings (under `--llm-plan`, skipped text).
        file: FileResult,
        /// The library's assessment: the verdict (for a safety-augmented task, validity for
        /// it as given, its goal's danger bound included), the safety verdict, and under
        /// `--llm-plan` the steps read from the reply and the reader's warnings.
        assessment: Assessment,
    },
    /// The plan file could not be read at all.
    Unreadable(ReadError),
    /// The plan file has reading errors (its diagnostics); it was not executed.
    Unread(FileResult),
    /// The domain or problem has errors, so no plan could be executed.
    NoTask {
        /// The plan's path as given.
        path: String,
    },
}

impl PlanResult {
    /// The plan's path as given on the command line.
    pub fn path(&self) -> String {
        match self {
            PlanResult::Validated { file, .. } | PlanResult::Unread(file) => file.path.clone(),
            PlanResult::Unreadable(e) => e.path.display().to_string(),
            PlanResult::NoTask { path } => path.clone(),
        }
    }

    /// Whether the plan was executed and is valid.
    pub fn is_valid(&self) -> bool {
        matches!(self, PlanResult::Validated { assessment, .. } if assessment.verdict.valid)
    }

    /// Whether the plan was executed and passes: valid, or on a safety-augmented task,
    /// feasible and safe.
    pub fn passes(&self) -> bool {
        matches!(self, PlanResult::Validated { assessment, .. } if assessment.valid())
    }

    /// Whether the plan could not be validated because of an input error.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, PlanResult::Validated { .. })
    }
}

/// Counts over the plans of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Plans executed and valid.
    pub valid: usize,
    /// Plans executed and invalid.
    pub invalid: usize,
    /// Plans not validated because of an input error.
    pub not_validated: usize,
    /// On a safety-augmented task: plans feasible and safe.
    pub safe: usize,
    /// On a safety-augmented task: plans feasible but unsafe.
    pub unsafe_: usize,
    /// On a safety-augmented task: plans infeasible.
    pub infeasible: usize,
    /// Plans that were executed but do not pass (invalid; or on a safety-augmented task,
    /// infeasible or unsafe).
    pub failing: usize,
}

impl Tally {
    pub fn add(&mut self, result: &PlanResult) {
        if let PlanResult::Validated { assessment, .. } = result
            && let Some(v) = &assessment.safety
        {
            match (v.feasible, v.safe) {
                (true, true) => self.safe += 1,
                (true, false) => self.unsafe_ += 1,
                (false, _) => self.infeasible += 1,
            }
        }
        if !result.passes() && !result.is_input_error() {
            self.failing += 1;
        }
        if result.is_valid() {
            self.valid += 1;
        } else if result.is_input_error() {
            self.not_validated += 1;
        } else {
            self.invalid += 1;
        }
    }

    /// All plans counted.
    pub fn total(&self) -> usize {
        self.valid + self.invalid + self.not_validated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_clamped_to_char_boundaries() {
        let text = "é\u{fffd}x".to_string();
        let f = FileResult {
            path: "p".into(),
            kind: FileKind::Domain,
            index: LineIndex::new(&text),
            text,
            diagnostics: Vec::new(),
            summary: None,
            skipped: None,
        };
        assert_eq!(f.range(Span::new(1, 3)), 0..5);
        assert_eq!(f.range(Span::new(2, 3)), 2..5);
        assert_eq!(f.range(Span::new(9, 3)), 6..6);
        assert_eq!(f.range(Span::new(5, 2)), 5..5);
    }
}
