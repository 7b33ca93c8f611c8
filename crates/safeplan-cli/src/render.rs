//! The human-readable reports: for `check`, diagnostics drawn by miette, then one line per
//! file; for `validate`, one line per plan, then its failures drawn by miette.
//!
//! The libraries' [`Diagnostic`]s and [`Failure`]s are plain data; each becomes a [`Report`]
//! (a message, marks and help), which is wrapped in [`Rendered`], which implements
//! [`miette::Diagnostic`] over the text of the file its first mark points into, and drawn
//! with [`GraphicalReportHandler`]. Marks in the same file as the primary one share its
//! snippet; miette can only show one source per diagnostic, so a mark in another file (the
//! domain's "declared here" for an error in the problem) becomes a `note: path:line:col:
//! message` line.
//!
//! A failed precondition or goal points at the formula in the domain or problem, with a
//! mark on each false literal. A formula that spans several lines or encloses those marks is
//! drawn as its head only (`(and`): miette's drawing of nested multi-line spans is hard to
//! read.
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
use safeplan_pddl::{Diagnostic, FileKind, LineIndex, Severity, Span};
use safeplan_validate::{Failure, FailureKind, Unmet};

use crate::outcome::{FileResult, Outcome, PlanResult, Tally, kind_name};
use crate::style::{Style, count};

/// Width miette assumes for the terminal. Messages are not wrapped (`with_wrap_lines(false)`):
/// textwrap's Unicode line breaking will not break before `:`, so a help listing
/// `:requirements, :types, ...` would be cut in the middle of a keyword; the terminal wraps.
const WIDTH: usize = 100;

/// Draws reports with miette: one handler and style for the whole run.
pub struct Renderer {
    handler: GraphicalReportHandler,
    style: Style,
}

/// A place to point at: a span of one of the task's files, with an optional label.
#[derive(Clone, Debug)]
pub struct Mark {
    /// The file it points into.
    pub file: FileKind,
    /// Where in it.
    pub span: Span,
    /// What to say there.
    pub label: Option<String>,
    /// A formula that may be drawn as just its head (`(and`) when the whole would span
    /// several lines or enclose other marks: miette draws those poorly.
    pub head_only: bool,
}

impl Mark {
    fn new(file: FileKind, span: Span, label: Option<String>) -> Mark {
        Mark {
            file,
            span,
            label,
            head_only: false,
        }
    }
}

/// One report to draw: a diagnostic of the checker, a validation failure or a warning.
#[derive(Clone, Debug)]
pub struct Report {
    /// Error or warning.
    pub severity: Severity,
    /// `safeplan::...`, shown above the message.
    pub code: Option<String>,
    /// The message, one sentence.
    pub message: String,
    /// The likely fix; several lines are shown one under the other.
    pub help: Option<String>,
    /// Where to point: the first is the primary location; marks in its file share its
    /// snippet, marks in other files become `note:` lines.
    pub marks: Vec<Mark>,
}

impl Report {
    /// A checker diagnostic as a report.
    pub fn from_diagnostic(d: &Diagnostic) -> Report {
        let mut marks = vec![Mark::new(d.file, d.span, None)];
        marks.extend(
            d.labels
                .iter()
                .map(|l| Mark::new(l.file, l.span, Some(l.message.clone()))),
        );
        Report {
            severity: d.severity,
            code: Some(format!("safeplan::{}", d.code)),
            message: match d.step {
                Some(step) => format!("step {step}: {}", d.message),
                None => d.message.clone(),
            },
            help: d.help.clone(),
            marks,
        }
    }
}

impl Renderer {
    /// A renderer that colours (and draws with Unicode) or not.
    pub fn new(color: bool) -> Renderer {
        let handler = GraphicalReportHandler::new_themed(if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::none()
        })
        .with_width(WIDTH)
        .with_wrap_lines(false)
        .with_links(false);
        Renderer {
            handler,
            style: Style::new(color),
        }
    }

    /// The styling of the words this crate prints itself.
    pub fn style(&self) -> &Style {
        &self.style
    }

    /// One report as text: miette's drawing, then notes for marks in other files.
    ///
    /// The snippet is of `home`, the file the primary mark (the first) is drawn in; `None`
    /// means the file the primary mark points into (when it was given). `files` are the
    /// files the other marks may point into.
    pub fn draw(
        &self,
        home: Option<&FileResult>,
        files: &[&FileResult],
        report: &Report,
    ) -> String {
        let find = |kind: FileKind| files.iter().copied().find(|f| f.kind == kind);
        let primary = report.marks.first();
        let file = home.or_else(|| primary.and_then(|m| find(m.file)));
        let mut labels = Vec::new();
        let mut notes = Vec::new();
        let target = |i: usize, mark: &Mark| if i == 0 { file } else { find(mark.file) };
        // The ranges of the marks drawn in the snippet, to decide which formulas to shorten.
        let ranges: Vec<Option<std::ops::Range<usize>>> = report
            .marks
            .iter()
            .enumerate()
            .map(|(i, mark)| match (file, target(i, mark)) {
                (Some(home), Some(other)) if other.kind == home.kind => Some(home.range(mark.span)),
                _ => None,
            })
            .collect();
        for (i, mark) in report.marks.iter().enumerate() {
            match (file, target(i, mark)) {
                (Some(home), Some(other)) if other.kind == home.kind => {
                    let mut range = home.range(mark.span);
                    let text = &home.text[range.clone()];
                    let encloses = ranges.iter().enumerate().any(|(j, r)| {
                        j != i
                            && r.as_ref().is_some_and(|r| {
                                range.start <= r.start && r.end <= range.end && *r != range
                            })
                    });
                    if mark.head_only && (text.contains('\n') || encloses) {
                        range = head(text, range.start);
                    }
                    let span = SourceSpan::from(range);
                    labels.push(if i == 0 {
                        LabeledSpan::new_primary_with_span(mark.label.clone(), span)
                    } else {
                        LabeledSpan::new_with_span(mark.label.clone(), span)
                    });
                }
                (_, Some(other)) => {
                    let at = other.line_col(other.range(mark.span).start);
                    let what = mark.label.as_deref().unwrap_or("here");
                    notes.push(format!("{}:{}:{}: {what}", other.path, at.line, at.col));
                }
                (_, None) => {
                    if let Some(label) = &mark.label {
                        notes.push(format!("in the {}: {label}", kind_name(mark.file)));
                    }
                }
            }
        }
        let rendered = Rendered {
            severity: report.severity,
            code: report.code.clone(),
            message: report.message.clone(),
            help: report.help.clone(),
            labels,
            source: file.map(|f| Source {
                name: &f.path,
                text: &f.text,
                index: &f.index,
            }),
        };
        let mut text = String::new();
        if self.handler.render_report(&mut text, &rendered).is_err() {
            // miette could not draw the snippet: fall back to the bare facts.
            let at = match (file, primary) {
                (Some(f), Some(m)) => {
                    let at = f.line_col(f.range(m.span).start);
                    format!("{}:{}:{}: ", f.path, at.line, at.col)
                }
                _ => String::new(),
            };
            let code = match &report.code {
                Some(code) => format!(" [{code}]"),
                None => String::new(),
            };
            text = format!(
                "{}: {at}{}{code}\n",
                severity_name(report.severity),
                rendered.message,
            );
            if let Some(help) = &report.help {
                text.push_str(&format!("  help: {help}\n"));
            }
        }
        for note in notes {
            text.push_str(&format!("  {} {note}\n", self.style.note("note:")));
        }
        text
    }
}

/// The head of the formula at `text` (which starts at byte `start` of its file): `(and`,
/// `(forall`, `(at`; or its first line when it does not start with `(`.
fn head(text: &str, start: usize) -> std::ops::Range<usize> {
    let len = match text.strip_prefix('(') {
        Some(rest) => {
            let rest = rest.trim_start();
            let word = rest
                .find(|c: char| c.is_whitespace() || c == '(' || c == ')')
                .unwrap_or(rest.len());
            text.len() - rest.len() + word
        }
        None => text.find('\n').unwrap_or(text.len()),
    };
    start..start + len
}

/// Write the human-readable report of `outcome`.
pub fn write_human(outcome: &Outcome, color: bool, out: &mut impl Write) -> io::Result<()> {
    let renderer = Renderer::new(color);
    let style = renderer.style();
    write_diagnostics(&renderer, outcome, out)?;
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
        writeln!(out, "{}", style.counts(errors, warnings))?;
    }
    Ok(())
}

/// Draw the outcome's diagnostics, if any, on standard error: for commands whose standard
/// output is data (PDDL, a plan).
pub fn diagnostics_to_stderr(
    renderer: &Renderer,
    outcome: &Outcome,
) -> Result<(), crate::outcome::Failure> {
    if outcome.files.iter().all(|f| f.diagnostics.is_empty()) {
        return Ok(());
    }
    let mut text = Vec::new();
    write_diagnostics(renderer, outcome, &mut text).map_err(crate::outcome::Failure::Write)?;
    let stderr = io::stderr();
    let mut err = stderr.lock();
    // If standard error is gone there is no one to tell.
    let _ = err.write_all(&text).and_then(|()| err.flush());
    Ok(())
}

/// Draw every diagnostic of `outcome`, each followed by a blank line.
pub fn write_diagnostics(
    renderer: &Renderer,
    outcome: &Outcome,
    out: &mut impl Write,
) -> io::Result<()> {
    let files: Vec<&FileResult> = outcome.files.iter().collect();
    for file in &outcome.files {
        for d in &file.diagnostics {
            let text = renderer.draw(Some(file), &files, &Report::from_diagnostic(d));
            out.write_all(text.as_bytes())?;
            writeln!(out)?;
        }
    }
    Ok(())
}

/// The verdict of one plan: a line saying what happened, then a report per failure,
/// reading diagnostic and warning.
pub fn write_plan(
    renderer: &Renderer,
    task: &Outcome,
    result: &PlanResult,
    out: &mut impl Write,
) -> io::Result<()> {
    let style = renderer.style();
    let path = result.path();
    match result {
        PlanResult::Validated { file, assessment } => {
            // The library's report (head and lines); the failures and warnings below are
            // drawn with their source, which only the CLI has.
            let report = safeplan_validate::words::report_lines(assessment, style);
            writeln!(out, "{path}: {}", report.head)?;
            for line in &report.body {
                writeln!(out, "{line}")?;
            }
            let verdict = &assessment.verdict;
            let mut files: Vec<&FileResult> = task.files.iter().collect();
            files.push(file);
            for d in &file.diagnostics {
                let text = renderer.draw(Some(file), &files, &Report::from_diagnostic(d));
                writeln!(out, "{text}")?;
            }
            for f in verdict.reported_failures() {
                writeln!(out, "{}", renderer.draw(None, &files, &failure_report(f)))?;
            }
            for w in &verdict.warnings {
                let report = Report {
                    severity: Severity::Warning,
                    code: None,
                    message: match w.step {
                        Some(step) => format!("step {step}: {}", w.message),
                        None => w.message.clone(),
                    },
                    help: None,
                    marks: Vec::new(),
                };
                writeln!(out, "{}", renderer.draw(None, &files, &report))?;
            }
        }
        PlanResult::Unreadable(e) => {
            writeln!(
                out,
                "{path}: {} (cannot read it: {})\n  hint: {}",
                style.skip("not validated"),
                e.reason(),
                e.hint()
            )?;
        }
        PlanResult::Unread(file) => {
            writeln!(
                out,
                "{path}: {} ({} in the plan file)",
                style.skip("not validated"),
                style.counts(file.errors(), file.warnings())
            )?;
            let mut files: Vec<&FileResult> = task.files.iter().collect();
            files.push(file);
            for d in &file.diagnostics {
                let text = renderer.draw(Some(file), &files, &Report::from_diagnostic(d));
                writeln!(out, "{text}")?;
            }
        }
        PlanResult::NoTask { .. } => {
            let which: Vec<&str> = task
                .files
                .iter()
                .filter(|f| f.errors() > 0)
                .map(|f| kind_name(f.kind))
                .collect();
            let which = if which.is_empty() {
                "the task".to_string()
            } else {
                format!("the {}", which.join(" and the "))
            };
            writeln!(
                out,
                "{path}: {} ({which} has errors, see above)",
                style.skip("not validated")
            )?;
        }
    }
    Ok(())
}

/// `3 plans: 1 valid, 2 invalid` (and how many were not validated, if any); on a
/// safety-augmented task, then `; safety: 1 safe, 1 unsafe, 1 infeasible`.
pub fn write_tally(
    renderer: &Renderer,
    tally: &Tally,
    safety: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let style = renderer.style();
    let mut parts = vec![
        style.ok(&format!("{} valid", tally.valid)),
        style.error(&format!("{} invalid", tally.invalid)),
    ];
    if tally.not_validated > 0 {
        parts.push(style.skip(&format!("{} not validated", tally.not_validated)));
    }
    let safety = if safety {
        format!(
            "; safety: {}, {}, {}",
            style.ok(&format!("{} safe", tally.safe)),
            style.error(&format!("{} unsafe", tally.unsafe_)),
            style.error(&format!("{} infeasible", tally.infeasible)),
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{}: {}{safety}",
        count(tally.total(), "plan", "plans"),
        parts.join(", ")
    )
}

/// A validation failure as a report: the failing step (or the goal) in the message, the
/// place it points at (the precondition or goal in the domain or problem, the step in the
/// plan file) as the primary mark, a mark on every false literal with its values, and the
/// advice as help.
pub fn failure_report(f: &Failure) -> Report {
    let message = match f.step {
        Some(k) if !f.message.starts_with(&format!("step {k} ")) => match &f.action {
            Some(action) => format!("step {k} {action}: {}", f.message),
            None => format!("step {k}: {}", f.message),
        },
        _ => f.message.clone(),
    };
    let mut marks: Vec<Mark> = Vec::new();
    // Whether the primary mark still has its generic label (an unmet literal at the very
    // same place replaces it).
    let mut generic = false;
    if let Some(source) = f.source {
        marks.push(Mark {
            head_only: true,
            ..Mark::new(source.file, source.span, Some(primary_label(f)))
        });
        generic = true;
    }
    for u in &f.unmet {
        let label = unmet_label(u);
        match marks
            .iter_mut()
            .position(|m| m.file == u.source.file && m.span == u.source.span)
        {
            Some(0) if generic => {
                marks[0].label = Some(label);
                generic = false;
            }
            Some(i) => {
                let merged = match marks[i].label.take() {
                    Some(old) => format!("{old}; {label}"),
                    None => label,
                };
                marks[i].label = Some(merged);
            }
            None => marks.push(Mark::new(u.source.file, u.source.span, Some(label))),
        }
    }
    // A broken constraint's trigger: the literals that held when they must not have.
    for u in f.constraint.iter().flat_map(|c| &c.held) {
        let label = format!("holds: {}", u.literal);
        match marks
            .iter_mut()
            .position(|m| m.file == u.source.file && m.span == u.source.span)
        {
            Some(i) => marks[i].label = Some(label),
            None => marks.push(Mark::new(u.source.file, u.source.span, Some(label))),
        }
    }
    Report {
        severity: Severity::Error,
        code: Some(format!("safeplan::{}", f.kind)),
        message,
        help: (!f.advice.is_empty()).then(|| f.advice.join("\n")),
        marks,
    }
}

/// What the primary mark of a failure says.
fn primary_label(f: &Failure) -> String {
    match f.kind {
        FailureKind::UnsatisfiedPrecondition => match &f.action {
            Some(action) => format!("the precondition of {action}"),
            None => "the precondition".into(),
        },
        FailureKind::UnsatisfiedGoal => "the goal".into(),
        FailureKind::UnknownAction => "not an action of the domain".into(),
        FailureKind::ArityMismatch => "wrong number of arguments".into(),
        FailureKind::UnknownObject => "not an object of the task".into(),
        FailureKind::TypeMismatch => "wrong type for this parameter".into(),
        FailureKind::NumericError => "here".into(),
        FailureKind::DurationConstraint => "the duration constraint".into(),
        FailureKind::InvariantViolated => match &f.action {
            Some(action) => format!("the `over all` condition of {action}"),
            None => "the `over all` condition".into(),
        },
        FailureKind::Mutex => "interfering events".into(),
        FailureKind::ConstraintViolated => match &f.constraint {
            Some(c) => format!("the `{}` constraint", c.operator),
            None => "the constraint".into(),
        },
        FailureKind::NoPlan => "no plan".into(),
    }
}

/// What the mark on a false literal says: `false: (robot-at table)`; for a comparison, the
/// values that made it false, `false since (fuel plane1) = 2` (the message names the
/// literal); inside a `forall`, the objects it is false for.
fn unmet_label(u: &Unmet) -> String {
    let mut label = String::from("false");
    if !u.bindings.is_empty() {
        let bound: Vec<String> = u
            .bindings
            .iter()
            .map(|b| format!("{} = {}", b.variable, b.object))
            .collect();
        label.push_str(&format!(" for {}", bound.join(", ")));
    }
    if u.values.is_empty() {
        label.push_str(&format!(": {}", u.literal));
    } else {
        let values: Vec<String> = u
            .values
            .iter()
            .map(|v| match v.value {
                Some(x) => format!("{} = {x}", v.fluent),
                None => format!("{} has no value", v.fluent),
            })
            .collect();
        label.push_str(&format!(" since {}", values.join(", ")));
    }
    label
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
    code: Option<String>,
    message: String,
    help: Option<String>,
    labels: Vec<LabeledSpan>,
    source: Option<Source<'a>>,
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
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
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            return None;
        }
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

#[cfg(test)]
mod tests {
    use safeplan_pddl::{Code, FileKind, Span};

    use super::*;
    use crate::outcome::FileResult;

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
            safety_unavailable: None,
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
            safety_unavailable: None,
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
            safety_unavailable: None,
        };
        assert!(human(&outcome).contains("note: in the domain: elsewhere"));
    }
}
