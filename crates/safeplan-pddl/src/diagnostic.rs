//! Diagnostics: what went wrong, where, and how to fix it, as plain data.
//!
//! A diagnostic has a primary span in one file, optional secondary labels (which may point
//! into another file, e.g. "declared here" in the domain for an error in the problem), and
//! an optional help line with the likely fix. Rendering (snippets, colours) is the CLI's job.

use serde::{Deserialize, Serialize};

use crate::span::Span;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the input is usable as it is.
    Warning,
    /// The input is wrong; what depends on the wrong part cannot be trusted.
    Error,
}

/// Which of the files of one task a span points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// The domain file.
    Domain,
    /// The problem file.
    Problem,
    /// The plan file.
    Plan,
}

/// A stable, machine-readable name for each kind of diagnostic (kebab-case in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Code {
    // --- reading ---
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// The input is too large to address with 32-bit offsets.
    InputTooLarge,
    /// A `(` has no matching `)`.
    UnclosedParen,
    /// A `)` closes nothing.
    UnexpectedCloseParen,
    /// Something other than what the grammar allows at this place.
    UnexpectedToken,
    /// The input ended where more was required.
    UnexpectedEof,
    /// Lists nested deeper than the parser's limit.
    TooDeep,
    /// A malformed number.
    InvalidNumber,
    /// A name with characters PDDL does not allow.
    InvalidName,
    /// A section keyword (`:foo`) this parser does not know.
    UnknownSection,
    /// A required part (e.g. `:domain` in a problem) is missing.
    MissingSection,
    /// A section given twice.
    DuplicateSection,
    /// A construct that is valid PDDL but outside what safeplan supports.
    Unsupported,
    /// A `(:constraints ...)` section holding several constraints without an enclosing
    /// `and` (read as their conjunction; VAL drops such a section).
    ConstraintsWithoutAnd,
    // --- checking ---
    /// A requirement flag that does not exist.
    UnknownRequirement,
    /// A feature used without declaring the requirement that allows it.
    UndeclaredRequirement,
    /// A type that is not declared.
    UndefinedType,
    /// A predicate that is not declared.
    UndefinedPredicate,
    /// A function that is not declared.
    UndefinedFunction,
    /// `(is-violated NAME)` names no preference of the task.
    UndefinedPreference,
    /// A name that is neither a constant of the domain nor an object of the problem.
    UndefinedObject,
    /// A variable that no parameter or quantifier binds.
    UndefinedVariable,
    /// A predicate, function or action applied to the wrong number of arguments.
    ArityMismatch,
    /// An argument whose type does not fit the parameter.
    TypeMismatch,
    /// A quantified variable without a type in a typed domain (`(exists (?r) ...)`): read
    /// as `object` (VAL refuses it).
    UntypedVariable,
    /// A name declared twice.
    DuplicateName,
    /// The problem names a different domain than the one given.
    DomainMismatch,
    // --- plans ---
    /// A plan step names an action the domain does not have.
    UnknownAction,
    /// A plan step names an object the task does not have.
    UnknownObject,
    /// Text in a plan that is not a step (skipped by the lenient reader).
    SkippedText,
    /// A reply states more than one plan (the same one twice, a draft and a final answer):
    /// the warning names the lines read.
    AmbiguousReply,
    /// A reply's step is not well formed (`Unload-truck p3 t1 l1-0)`, a step cut off by the
    /// output limit): read as a step that fails, never dropped or repaired.
    MalformedStep,
}

impl Code {
    /// The kebab-case name used in JSON and in rendered diagnostics, e.g. `undefined-predicate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidUtf8 => "invalid-utf8",
            Code::InputTooLarge => "input-too-large",
            Code::UnclosedParen => "unclosed-paren",
            Code::UnexpectedCloseParen => "unexpected-close-paren",
            Code::UnexpectedToken => "unexpected-token",
            Code::UnexpectedEof => "unexpected-eof",
            Code::TooDeep => "too-deep",
            Code::InvalidNumber => "invalid-number",
            Code::InvalidName => "invalid-name",
            Code::UnknownSection => "unknown-section",
            Code::MissingSection => "missing-section",
            Code::DuplicateSection => "duplicate-section",
            Code::Unsupported => "unsupported",
            Code::ConstraintsWithoutAnd => "constraints-without-and",
            Code::UnknownRequirement => "unknown-requirement",
            Code::UndeclaredRequirement => "undeclared-requirement",
            Code::UndefinedType => "undefined-type",
            Code::UndefinedPredicate => "undefined-predicate",
            Code::UndefinedFunction => "undefined-function",
            Code::UndefinedPreference => "undefined-preference",
            Code::UndefinedObject => "undefined-object",
            Code::UndefinedVariable => "undefined-variable",
            Code::ArityMismatch => "arity-mismatch",
            Code::TypeMismatch => "type-mismatch",
            Code::UntypedVariable => "untyped-variable",
            Code::DuplicateName => "duplicate-name",
            Code::DomainMismatch => "domain-mismatch",
            Code::UnknownAction => "unknown-action",
            Code::UnknownObject => "unknown-object",
            Code::SkippedText => "skipped-text",
            Code::AmbiguousReply => "ambiguous-reply",
            Code::MalformedStep => "malformed-step",
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary location with a short note ("declared here").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// The file the span points into.
    pub file: FileKind,
    /// Where.
    pub span: Span,
    /// What is there.
    pub message: String,
}

/// One finding about an input: what, where, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable kind, for programs.
    pub code: Code,
    /// One sentence saying what is wrong and what was expected.
    pub message: String,
    /// The file the primary span points into.
    pub file: FileKind,
    /// The primary location.
    pub span: Span,
    /// For plan diagnostics, the 1-based step number (comments and blank lines not counted).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub step: Option<usize>,
    /// Other places that explain this one.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub labels: Vec<Label>,
    /// The likely fix.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub help: Option<String>,
}

impl Diagnostic {
    /// The diagnostic as a library error carries it on one line: `path:line:col` of its
    /// primary span in `src` (the text it was found in), and its message with the help
    /// appended (`message (help: ...)`).
    pub fn one_line(&self, path: &str, src: &str) -> (String, String) {
        let lc = crate::span::LineIndex::new(src).line_col(src, self.span.start);
        let help = self
            .help
            .as_deref()
            .map(|h| format!(" (help: {h})"))
            .unwrap_or_default();
        (
            format!("{path}:{}:{}", lc.line, lc.col),
            format!("{}{help}", self.message),
        )
    }

    /// An error of `code` at `span` of `file`.
    pub fn error(code: Code, file: FileKind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            file,
            span,
            step: None,
            labels: Vec::new(),
            help: None,
        }
    }

    /// A warning of `code` at `span` of `file`.
    pub fn warning(
        code: Code,
        file: FileKind,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, file, span, message)
        }
    }

    /// Add the likely fix.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Add a fix: "did you mean `suggestion`?" when a near name was found, else `otherwise`.
    pub fn with_suggestion(
        self,
        suggestion: Option<&str>,
        otherwise: impl Into<String>,
    ) -> Diagnostic {
        match suggestion {
            Some(s) => self.with_help(format!("did you mean `{s}`?")),
            None => self.with_help(otherwise),
        }
    }

    /// Add a secondary location.
    pub fn with_label(
        mut self,
        file: FileKind,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    /// Attach the 1-based plan step this diagnostic is about.
    pub fn at_step(mut self, step: usize) -> Diagnostic {
        self.step = Some(step);
        self
    }

    /// Whether this is an error (not a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Whether any diagnostic in `diagnostics` is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}

/// The declared name closest to `wanted` (case-insensitive edit distance), if one is close
/// enough to be a plausible typo: at most a third of the longer name's length, and at most 3.
pub fn nearest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = wanted.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let lower = candidate.to_ascii_lowercase();
        let limit = (wanted.len().max(lower.len()) / 3).clamp(1, 3);
        let d = edit_distance(&wanted, &lower);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Edit distance over chars counting an adjacent transposition as one edit (optimal string
/// alignment), since swapped letters are the commonest typo (`drvie` for `drive`). Names are
/// short, so O(n·m) is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        d[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_plausible_typos_only() {
        let names = ["robot_at", "robot_has", "container_open"];
        assert_eq!(nearest("robot_att", names), Some("robot_at"));
        assert_eq!(nearest("ROBOT_HAS", names), Some("robot_has"));
        assert_eq!(nearest("conteiner_open", names), Some("container_open"));
        assert_eq!(nearest("xyz", names), None);
        assert_eq!(nearest("drvie", ["drive", "load"]), Some("drive"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("drvie", "drive"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
