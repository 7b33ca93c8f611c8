//! The human-readable report: diagnostics drawn by miette, then one line per file.
//!
//! The library's [`Diagnostic`] is plain data; here it is wrapped in [`Rendered`], which
//! implements [`miette::Diagnostic`] over the text of the file it points into, and drawn with
//! [`GraphicalReportHandler`]. Labels in the same file as the primary span share its snippet;
//! miette can only show one source per diagnostic, so a label in another file (the domain's
//! "declared here" for an error in the problem) becomes a `note: path:line:col: message` line.
//!
//! miette counts columns in bytes; the `[path:line:col]` header of a snippet is made to agree
//! with the JSON report (columns in characters) by [`Source`], which answers miette's
//! position queries from the library's [`LineIndex`].

use std::fmt;
use std::io::{self, Write};

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use safeplan_pddl::{Diagnostic, LineIndex, Severity};

use crate::check::{FileResult, Outcome, count, kind_name};

/// Width miette assumes for the terminal. Messages are not wrapped (`with_wrap_lines(false)`):
/// textwrap's Unicode line breaking will not break before `:`, so a help listing
/// `:requirements, :types, ...` would be cut in the middle of a keyword; the terminal wraps.
const WIDTH: usize = 100;

/// Write the human-readable report of `outcome`.
pub fn write_human(outcome: &Outcome, color: bool, out: &mut impl Write) -> io::Result<()> {
    let style = Style::new(color);
    let handler = GraphicalReportHandler::new_themed(if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::none()
    })
    .with_width(WIDTH)
    .with_wrap_lines(false)
    .with_links(false);

    for file in &outcome.files {
        for d in &file.diagnostics {
            out.write_all(render_one(&handler, &style, outcome, file, d).as_bytes())?;
            writeln!(out)?;
        }
    }
    for file in &outcome.files {
        if let Some(why) = &file.skipped {
            writeln!(out, "{}  {} ({why})", style.skip("skip"), file.path)?;
        } else if file.errors() == 0
            && let Some(summary) = &file.summary
        {
            let warnings = match file.warnings() {
                0 => String::new(),
                n => format!(", {}", count(n, "warning", "warnings")),
            };
            writeln!(
                out,
                "{}  {} ({summary}){warnings}",
                style.ok("ok"),
                file.path
            )?;
        }
    }
    let (errors, warnings) = (outcome.errors(), outcome.warnings());
    if errors + warnings > 0 {
        let mut parts = Vec::new();
        if errors > 0 {
            parts.push(style.error(&count(errors, "error", "errors")));
        }
        if warnings > 0 {
            parts.push(style.warning(&count(warnings, "warning", "warnings")));
        }
        writeln!(out, "{}", parts.join(", "))?;
    }
    Ok(())
}

/// One diagnostic as text: miette's drawing, then notes for labels in other files.
fn render_one(
    handler: &GraphicalReportHandler,
    style: &Style,
    outcome: &Outcome,
    file: &FileResult,
    d: &Diagnostic,
) -> String {
    let primary = file.range(d.span);
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        None,
        SourceSpan::from(primary.clone()),
    )];
    let mut notes = Vec::new();
    for label in &d.labels {
        match outcome.file(label.file) {
            Some(other) if other.kind == file.kind => {
                labels.push(LabeledSpan::new_with_span(
                    Some(label.message.clone()),
                    SourceSpan::from(file.range(label.span)),
                ));
            }
            Some(other) => {
                let at = other.line_col(other.range(label.span).start);
                notes.push(format!(
                    "{}:{}:{}: {}",
                    other.path, at.line, at.col, label.message
                ));
            }
            None => notes.push(format!(
                "in the {}: {}",
                kind_name(label.file),
                label.message
            )),
        }
    }
    let message = match d.step {
        Some(step) => format!("step {step}: {}", d.message),
        None => d.message.clone(),
    };
    let rendered = Rendered {
        severity: d.severity,
        code: format!("safeplan::{}", d.code),
        message,
        help: d.help.clone(),
        labels,
        source: Source {
            name: &file.path,
            text: &file.text,
            index: &file.index,
        },
    };
    let mut text = String::new();
    if handler.render_report(&mut text, &rendered).is_err() {
        // miette could not draw the snippet: fall back to the bare facts.
        let at = file.line_col(primary.start);
        text = format!(
            "{}: {}:{}:{}: {} [{}]\n",
            severity_name(d.severity),
            file.path,
            at.line,
            at.col,
            rendered.message,
            rendered.code
        );
        if let Some(help) = &d.help {
            text.push_str(&format!("  help: {help}\n"));
        }
    }
    for note in notes {
        text.push_str(&format!("  {} {note}\n", style.note("note:")));
    }
    text
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A library diagnostic, shaped for miette.
#[derive(Debug)]
struct Rendered<'a> {
    severity: Severity,
    code: String,
    message: String,
    help: Option<String>,
    labels: Vec<LabeledSpan>,
    source: Source<'a>,
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// The text of one file, named by its path, for miette.
#[derive(Debug)]
struct Source<'a> {
    name: &'a str,
    text: &'a str,
    index: &'a LineIndex,
}

impl SourceCode for Source<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        // Without leading context the contents start at the span, and miette reports their
        // position as `path:line:col`: give it the library's (columns in characters).
        let (line, column) = if context_lines_before == 0 {
            let at = self.index.line_col(self.text, span.offset() as u32);
            (at.line as usize - 1, at.col as usize - 1)
        } else {
            (inner.line(), inner.column())
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_string(),
            inner.data(),
            *inner.span(),
            line,
            column,
            inner.line_count(),
        )))
    }
}

/// ANSI styling for the few words this module prints itself (miette styles its own).
struct Style {
    color: bool,
}

impl Style {
    fn new(color: bool) -> Style {
        Style { color }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn ok(&self, text: &str) -> String {
        self.paint("1;32", text)
    }

    fn skip(&self, text: &str) -> String {
        self.paint("1;33", text)
    }

    fn note(&self, text: &str) -> String {
        self.paint("1;36", text)
    }

    fn error(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    fn warning(&self, text: &str) -> String {
        self.paint("1;33", text)
    }
}

#[cfg(test)]
mod tests {
    use safeplan_pddl::{Code, FileKind, Span};

    use super::*;
    use crate::check::FileResult;

    fn file(path: &str, kind: FileKind, text: &str, diagnostics: Vec<Diagnostic>) -> FileResult {
        FileResult {
            path: path.into(),
            kind,
            text: text.into(),
            index: LineIndex::new(text),
            diagnostics,
            summary: Some(format!("{path} summary")),
            skipped: None,
        }
    }

    fn human(outcome: &Outcome) -> String {
        let mut out = Vec::new();
        write_human(outcome, false, &mut out).expect("writing to a Vec");
        String::from_utf8(out).expect("the report is UTF-8")
    }

    #[test]
    fn labels_in_other_files_become_notes_and_steps_are_named() {
        let domain = "(define (domain d)\n  (:action move))\n";
        let plan = "(move a)\n(mvoe b)\n";
        let d = Diagnostic::error(
            Code::UnknownAction,
            FileKind::Plan,
            Span::new(10, 14),
            "unknown action `mvoe`",
        )
        .at_step(2)
        .with_label(
            FileKind::Domain,
            Span::new(30, 34),
            "`move` is declared here",
        )
        .with_label(FileKind::Plan, Span::new(1, 5), "used correctly here")
        .with_help("did you mean `move`?");
        let outcome = Outcome {
            files: vec![
                file("domain.pddl", FileKind::Domain, domain, Vec::new()),
                file("plan.txt", FileKind::Plan, plan, vec![d]),
            ],
        };
        let text = human(&outcome);
        assert!(text.contains("safeplan::unknown-action"), "{text}");
        assert!(text.contains("x step 2: unknown action `mvoe`"), "{text}");
        assert!(text.contains("[plan.txt:2:2]"), "{text}");
        assert!(text.contains("used correctly here"), "{text}");
        assert!(text.contains("help: did you mean `move`?"), "{text}");
        assert!(
            text.contains("  note: domain.pddl:2:12: `move` is declared here\n"),
            "{text}"
        );
        assert!(
            text.contains("ok  domain.pddl (domain.pddl summary)\n"),
            "{text}"
        );
        assert!(!text.contains("ok  plan.txt"), "{text}");
        assert!(text.ends_with("\n1 error\n"), "{text}");
    }

    #[test]
    fn warnings_keep_the_ok_line_and_columns_count_characters() {
        let text = ";\n(é x)\n";
        let w = Diagnostic::warning(
            Code::UndeclaredRequirement,
            FileKind::Domain,
            Span::new(6, 7),
            "a warning",
        );
        let outcome = Outcome {
            files: vec![file("d.pddl", FileKind::Domain, text, vec![w])],
        };
        let out = human(&outcome);
        assert!(out.contains("! a warning"), "{out}");
        // `x` is byte 4 of line 2 but its character 4 (column 4, where miette would say 5).
        assert!(out.contains("[d.pddl:2:4]"), "{out}");
        assert!(
            out.contains("ok  d.pddl (d.pddl summary), 1 warning\n"),
            "{out}"
        );
        assert!(out.ends_with("\n1 warning\n"), "{out}");
    }

    #[test]
    fn a_label_in_a_file_not_given_is_still_reported() {
        let d = Diagnostic::error(
            Code::UndefinedPredicate,
            FileKind::Problem,
            Span::new(0, 1),
            "no such predicate",
        )
        .with_label(FileKind::Domain, Span::new(5, 9), "elsewhere");
        let outcome = Outcome {
            files: vec![file("p.pddl", FileKind::Problem, "(x)\n", vec![d])],
        };
        assert!(human(&outcome).contains("note: in the domain: elsewhere"));
    }
}
