//! Plans: the strict reader for plan files (LLM replies are read by [`crate::reply`]).
//!
//! # The two dialects of plan files
//!
//! [`parse_plan`] reads the files planners write and VAL reads:
//!
//! - **IPC sequential**: one `(action arg ...)` per step, in order. A step may span lines;
//!   `;` starts a comment that runs to the end of the line; blank lines, tabs and extra spaces
//!   mean nothing. Names keep their spelling (PDDL is case-insensitive; compare with
//!   [`Name::matches`]). Fast Downward ends its plans with `; cost = N (unit cost)`, which
//!   becomes [`Plan::cost`].
//! - **Timestamped**: `0.000: (action arg ...) [1.0]`, the time a step starts, then the step,
//!   then an optional duration in brackets (`[ 1.0 ]` and integer times `3:` too). The values
//!   land in [`PlanStep::time`] and [`PlanStep::duration`]. Both dialects may be mixed.
//!
//! ```
//! use safeplan_pddl::parse_plan;
//!
//! let parsed = parse_plan("; found by a planner\n(pick ball1 rooma left)\n0.5: (Move rooma roomb) [1]\n; cost = 2 (unit cost)\n");
//! assert!(parsed.diagnostics.is_empty());
//! let plan = parsed.value.unwrap_or_default();
//! assert_eq!(plan.steps.len(), 2);
//! assert_eq!(plan.steps[1].action.as_str(), "Move");
//! assert_eq!((plan.steps[1].time, plan.steps[1].duration), (Some(0.5), Some(1.0)));
//! assert_eq!(plan.cost, Some(2.0));
//! ```
//!
//! # Why the strict reader reports instead of stopping
//!
//! VAL's plan reader stops silently at the first token it cannot use (a bare word, a `#` line,
//! an extra `)`): the rest of the file is ignored, and the user hears "goal not satisfied"
//! about a plan that was never read. [`parse_plan`] instead reports every problem where it is
//! (a [`Diagnostic`] with the span, the 1-based step number when one applies, and a `help`
//! line with the fix) and keeps reading: it skips the words it cannot use, ends a step whose
//! `)` is missing where the next step begins, and keeps every step that can still be read. So
//! one broken line costs one message, not the rest of the plan, and a plan with errors is still
//! worth showing; callers decide with [`Parsed::has_errors`] whether to validate it.
//!
//! Steps are numbered from 1 among the steps read (comments, blank lines and unreadable text
//! are not counted), so step `n` of a message is `plan.steps[n - 1]`.
//!
//! # Plans in LLM replies
//!
//! [`crate::extract_plan`] is for text that is not a plan file: a chat reply with prose, Markdown code
//! fences and numbered lists around the steps. It never fails: it returns the steps it finds and
//! a [`Severity::Warning`](crate::Severity::Warning) ([`Code::SkippedText`]) for each stretch of
//! text it skipped, so a caller can show what was ignored; [`crate::read_reply`] adds whether
//! the reply holds a plan at all. Both live in [`crate::reply`].

use nom::Parser;
use nom::bytes::complete::tag_no_case;
use nom::character::complete::{char, space0};
use nom::number::complete::recognize_float;
use nom::sequence::preceded;

use crate::Parsed;
use crate::ast::{Name, Plan, PlanStep};
use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::parser::{is_name_char, looks_numeric};
use crate::span::Span;

const FILE: FileKind = FileKind::Plan;

/// Read an IPC sequential or timestamped plan file, reporting every problem and recovering.
///
/// The value is always `Some`: an empty file, or one with only comments, is a plan of 0 steps
/// without diagnostics. With errors, the value holds every step that could still be read.
/// Errors (all [`FileKind::Plan`], with a `help` line):
///
/// | input | code |
/// |---|---|
/// | a `(` never closed (the step ends where the next step starts, or at the end) | [`Code::UnclosedParen`] |
/// | a `)` that closes nothing | [`Code::UnexpectedCloseParen`] |
/// | words outside parentheses (`pick-up a b`, `# note`, prose) | [`Code::UnexpectedToken`] |
/// | a nested `(` inside a step, an empty step `()`, `?x` or `:key` as action or argument, `[`/`]` out of place | [`Code::UnexpectedToken`] |
/// | a name with characters PDDL does not allow (`a,`) | [`Code::InvalidName`] |
/// | a malformed timestamp, a malformed or negative duration (`1.2.3:`, `[fast]`, `[1`, `[-2]`) | [`Code::InvalidNumber`] |
///
/// ```
/// use safeplan_pddl::{parse_plan, Code};
///
/// let parsed = parse_plan("(pick a b)\npick-up c d\n(move a b))\n");
/// let codes: Vec<Code> = parsed.diagnostics.iter().map(|d| d.code).collect();
/// assert_eq!(codes, [Code::UnexpectedToken, Code::UnexpectedCloseParen]);
/// assert_eq!(parsed.diagnostics[0].help.as_deref(),
///     Some("if this is a step, wrap it in parentheses: `(pick-up c d)`; if it is a note, start it with `;`"));
/// assert_eq!(parsed.diagnostics[1].step, Some(2));
/// assert_eq!(parsed.value.map(|p| p.steps.len()), Some(2));
/// ```
pub fn parse_plan(src: &str) -> Parsed<Plan> {
    if let Err(d) = crate::decode(src.as_bytes(), FILE) {
        return Parsed {
            value: None,
            diagnostics: vec![d],
        };
    }
    let mut reader = Reader::new(src);
    reader.run();
    Parsed {
        value: Some(Plan {
            steps: reader.steps,
            cost: reader.lexer.cost,
        }),
        diagnostics: reader.diagnostics,
    }
}

// ===== the strict reader: tokens ==========================================================

/// What a plan token is. Unlike the domain lexer, brackets are tokens (durations) and `:`
/// stays inside atoms (`0.5:` is one atom).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Open,
    Close,
    LBracket,
    RBracket,
    Atom,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Tok,
    span: Span,
    /// Whether a line ends between the previous token and this one (true for the first).
    newline_before: bool,
}

pub(crate) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

fn is_delimiter(b: u8) -> bool {
    b == b'\n' || is_blank(b) || matches!(b, b'(' | b')' | b'[' | b']' | b';')
}

/// A lazy tokenizer that reads `; cost = N` out of the comments it skips. It is `Clone` (a
/// position into the text), which gives the reader cheap lookahead.
#[derive(Clone)]
struct PlanLexer<'a> {
    src: &'a str,
    pos: usize,
    cost: Option<f64>,
}

impl<'a> PlanLexer<'a> {
    fn next_token(&mut self) -> Token {
        let bytes = self.src.as_bytes();
        let mut newline_before = self.pos == 0;
        loop {
            match bytes.get(self.pos) {
                Some(b'\n') => {
                    newline_before = true;
                    self.pos += 1;
                }
                Some(&b) if is_blank(b) => self.pos += 1,
                Some(b';') => {
                    let end = line_end(bytes, self.pos);
                    if let Some(cost) = self.src.get(self.pos + 1..end).and_then(cost_comment) {
                        self.cost = Some(cost);
                    }
                    self.pos = end;
                }
                _ => break,
            }
        }
        let start = self.pos;
        let kind = match bytes.get(self.pos) {
            None => Tok::Eof,
            Some(&b) => {
                self.pos += 1;
                match b {
                    b'(' => Tok::Open,
                    b')' => Tok::Close,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    _ => {
                        while bytes.get(self.pos).is_some_and(|&b| !is_delimiter(b)) {
                            self.pos += 1;
                        }
                        Tok::Atom
                    }
                }
            }
        };
        Token {
            kind,
            span: span(start, self.pos),
            newline_before,
        }
    }
}

/// The value of a Fast Downward cost comment, given the text after its `;`:
/// `cost = 11 (unit cost)` (any case, any spacing). The last one in a file wins.
pub(crate) fn cost_comment(body: &str) -> Option<f64> {
    let parsed: nom::IResult<&str, &str> = preceded(
        (space0, tag_no_case("cost"), space0, char('='), space0),
        recognize_float,
    )
    .parse(body);
    let (rest, number) = parsed.ok()?;
    if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
        return None;
    }
    number.parse::<f64>().ok().filter(|v| v.is_finite())
}

// ===== the strict reader: grammar =========================================================

/// A `t:` (or `t :`) in front of a step.
#[derive(Clone, Copy, Debug)]
struct Timestamp {
    /// The whole timestamp, colon included.
    span: Span,
    /// The number only.
    number: Span,
    /// How many atoms it takes (1 for `0.5:`, 2 for `0.5 :`).
    atoms: usize,
}

struct Reader<'a> {
    src: &'a str,
    lexer: PlanLexer<'a>,
    peeked: Option<Token>,
    steps: Vec<PlanStep>,
    diagnostics: Vec<Diagnostic>,
    /// The index of the step that ended with the previous token (a duration may follow).
    after_step: Option<usize>,
    /// A step's arguments while it is read, kept between steps: each step then gets a
    /// vector of exactly its number of arguments (pushing onto a fresh one reserves four).
    arg_buffer: Vec<Name>,
}

impl<'a> Reader<'a> {
    fn new(src: &'a str) -> Reader<'a> {
        Reader {
            src,
            lexer: PlanLexer {
                src,
                pos: crate::lexer::bom_len(src),
                cost: None,
            },
            peeked: None,
            steps: Vec::new(),
            diagnostics: Vec::new(),
            after_step: None,
            arg_buffer: Vec::new(),
        }
    }

    fn peek(&mut self) -> Token {
        match self.peeked {
            Some(t) => t,
            None => {
                let t = self.lexer.next_token();
                self.peeked = Some(t);
                t
            }
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        self.peeked = None;
        t
    }

    /// The two tokens after the peeked one, without consuming anything.
    fn following(&mut self) -> [Token; 2] {
        self.peek();
        let mut ahead = self.lexer.clone();
        [ahead.next_token(), ahead.next_token()]
    }

    fn text(&self, span: Span) -> &'a str {
        self.src.get(span.range()).unwrap_or("")
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Tok::Open => "`(`".into(),
            Tok::Close => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Eof => "the end of the file".into(),
            Tok::Atom => format!("`{}`", shorten(self.text(t.span), 40)),
        }
    }

    /// If the peeked atom `t` is a timestamp followed by a step's `(`, the timestamp.
    fn timestamp_at(&mut self, t: Token) -> Option<Timestamp> {
        if t.kind != Tok::Atom {
            return None;
        }
        let text = self.text(t.span);
        let [next, after] = self.following();
        if let Some(number) = text.strip_suffix(':')
            && looks_numeric(number)
            && next.kind == Tok::Open
        {
            return Some(Timestamp {
                span: t.span,
                number: Span::new(t.span.start, t.span.end - 1),
                atoms: 1,
            });
        }
        if looks_numeric(text)
            && next.kind == Tok::Atom
            && !next.newline_before
            && self.text(next.span) == ":"
            && after.kind == Tok::Open
        {
            return Some(Timestamp {
                span: t.span.to(next.span),
                number: t.span,
                atoms: 2,
            });
        }
        None
    }

    fn run(&mut self) {
        loop {
            let after = self.after_step.take();
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::Open => {
                    self.bump();
                    self.step(t, None);
                }
                Tok::Close => {
                    self.bump();
                    self.stray_close(t, after);
                }
                Tok::LBracket => {
                    self.bump();
                    self.duration(t, after);
                }
                Tok::RBracket => {
                    self.bump();
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::UnexpectedToken,
                            FILE,
                            t.span,
                            "expected a step or the end of the file, found a `]` that closes nothing",
                        )
                        .with_help("remove it; a duration is written `[1.0]` right after its step"),
                    );
                }
                Tok::Atom => match self.timestamp_at(t) {
                    Some(ts) => {
                        for _ in 0..ts.atoms {
                            self.bump();
                        }
                        let open = self.bump();
                        self.step(open, Some(ts));
                    }
                    None => self.bare_words(),
                },
            }
        }
    }

    /// Read a step whose `(` (`open`) was just consumed, up to its `)`.
    ///
    /// Diagnostics about the step are collected first and numbered once it is known whether
    /// the step could be read (it can if it has an action name).
    fn step(&mut self, open: Token, timestamp: Option<Timestamp>) {
        let number = self.steps.len() + 1;
        let mut local = Vec::new();
        let time = timestamp.and_then(|ts| self.timestamp_value(ts, &mut local));
        let start = timestamp.map_or(open.span.start, |ts| ts.span.start);
        let mut action: Option<Name> = None;
        let mut args = std::mem::take(&mut self.arg_buffer);
        args.clear();
        // A nested list in the action position: the rest of the step is skipped silently.
        let mut head_broken = false;
        let mut last = open.span;
        let closed = loop {
            let t = self.peek();
            match t.kind {
                Tok::Close => {
                    self.bump();
                    last = t.span;
                    break true;
                }
                Tok::Eof => {
                    local.push(self.unclosed(open, last, t, action.as_ref(), &args));
                    break false;
                }
                Tok::Open if t.newline_before => {
                    local.push(self.unclosed(open, last, t, action.as_ref(), &args));
                    break false;
                }
                Tok::Atom if t.newline_before && self.timestamp_at(t).is_some() => {
                    local.push(self.unclosed(open, last, t, action.as_ref(), &args));
                    break false;
                }
                Tok::Open => {
                    self.bump();
                    let nested = self.skip_nested(t);
                    last = nested;
                    let found = if action.is_none() {
                        head_broken = true;
                        "expected an action name after `(`, found a nested list"
                    } else {
                        "expected an object name or `)`, found a nested list"
                    };
                    local.push(
                        Diagnostic::error(Code::UnexpectedToken, FILE, nested, found).with_help(
                            "a step is `(action arg ...)` with plain names and no inner \
                             parentheses; if the previous step lost its `)`, add it there",
                        ),
                    );
                }
                Tok::LBracket | Tok::RBracket => {
                    self.bump();
                    last = t.span;
                    local.push(
                        Diagnostic::error(
                            Code::UnexpectedToken,
                            FILE,
                            t.span,
                            format!("expected an object name or `)`, found {}", self.describe(t)),
                        )
                        .with_help("a duration goes after the step's `)`: `(a b) [1.0]`"),
                    );
                }
                Tok::Atom => {
                    self.bump();
                    last = t.span;
                    if head_broken {
                        continue;
                    }
                    let name = self.step_name(t, action.is_none(), &mut local);
                    match action {
                        None => action = Some(name),
                        Some(_) => args.push(name),
                    }
                }
            }
        };
        let span = Span::new(start, last.end);
        match action {
            Some(action) => {
                // Drained, not taken: the buffer keeps its room for the next step.
                #[allow(clippy::drain_collect)]
                let exact = args.drain(..).collect();
                self.arg_buffer = args;
                self.steps.push(PlanStep {
                    action,
                    args: exact,
                    time,
                    duration: None,
                    span,
                });
                self.diagnostics
                    .extend(local.into_iter().map(|d| d.at_step(number)));
                if closed {
                    self.after_step = Some(self.steps.len() - 1);
                }
            }
            None => {
                if closed && !head_broken {
                    local.push(
                        Diagnostic::error(
                            Code::UnexpectedToken,
                            FILE,
                            span,
                            "expected an action name after `(`, found an empty step `()`",
                        )
                        .with_help("write the step as `(action arg ...)`, or remove the `()`"),
                    );
                }
                self.diagnostics.extend(local);
            }
        }
    }

    /// The diagnostic for a step whose `(` is never closed: `found` is what came instead of
    /// the `)` (the next step, or the end of the file); `last` is the step's last token.
    fn unclosed(
        &self,
        open: Token,
        last: Span,
        found: Token,
        action: Option<&Name>,
        args: &[Name],
    ) -> Diagnostic {
        let found = match found.kind {
            Tok::Eof => "the end of the file".to_string(),
            Tok::Open => "the `(` of the next step".to_string(),
            _ => format!("the next step's timestamp {}", self.describe(found)),
        };
        let help = match action {
            Some(action) => {
                let mut fixed = format!("({}", action.as_str());
                for arg in args {
                    fixed.push(' ');
                    fixed.push_str(arg.as_str());
                }
                fixed.push(')');
                format!("add `)` at the end of the step: `{}`", shorten(&fixed, 60))
            }
            None => "add `)` to close it, or remove the `(`".to_string(),
        };
        Diagnostic::error(
            Code::UnclosedParen,
            FILE,
            open.span,
            format!("this `(` is never closed: expected `)` to end the step, found {found}"),
        )
        .with_label(FILE, Span::new(last.end, last.end), "expected `)` here")
        .with_help(help)
    }

    /// Skip a nested list inside a step (its `(` consumed), up to its `)` but never past the
    /// end of its line: a nested list is never right, and a missing `)` must not swallow the
    /// next lines. Returns the span skipped.
    fn skip_nested(&mut self, open: Token) -> Span {
        let mut depth = 1usize;
        let mut last = open.span;
        loop {
            let t = self.peek();
            if t.kind == Tok::Eof || t.newline_before {
                return open.span.to(last);
            }
            self.bump();
            last = t.span;
            match t.kind {
                Tok::Open => depth += 1,
                Tok::Close => {
                    depth -= 1;
                    if depth == 0 {
                        return open.span.to(last);
                    }
                }
                _ => {}
            }
        }
    }

    /// Turn an atom inside a step into a name, reporting variables, keywords and characters
    /// PDDL does not allow (the name is kept as written either way).
    fn step_name(&self, t: Token, is_action: bool, local: &mut Vec<Diagnostic>) -> Name {
        let text = self.text(t.span);
        let noun = if is_action {
            "action name"
        } else {
            "object name"
        };
        // The messages are built only for a bad name: this runs for every name of every
        // step, thousands per plan.
        let what = || format!("an {noun}");
        let short = || shorten(text, 40);
        if text.starts_with('?') {
            local.push(
                Diagnostic::error(
                    Code::UnexpectedToken,
                    FILE,
                    t.span,
                    format!("expected {}, found the variable `{}`", what(), short()),
                )
                .with_help(
                    "a plan step names objects of the problem, e.g. `(move a b)`; variables \
                     like `?x` belong in the domain",
                ),
            );
        } else if text.starts_with(':') {
            local.push(
                Diagnostic::error(
                    Code::UnexpectedToken,
                    FILE,
                    t.span,
                    format!("expected {}, found the keyword `{}`", what(), short()),
                )
                .with_help(
                    "a plan is a list of steps `(action arg ...)`; keywords like `:action` \
                     belong in the domain",
                ),
            );
        } else if let Some(bad) = text.chars().find(|&c| !is_name_char(c)) {
            let help = if bad == ',' {
                "separate the arguments of a step with spaces, not commas"
            } else {
                "names are letters, digits, `-` and `_`"
            };
            local.push(
                Diagnostic::error(
                    Code::InvalidName,
                    FILE,
                    t.span,
                    format!(
                        "`{}` is not a valid {noun}: {bad:?} is not allowed in PDDL names",
                        short()
                    ),
                )
                .with_help(help),
            );
        }
        Name::new(text, t.span)
    }

    fn timestamp_value(&self, ts: Timestamp, local: &mut Vec<Diagnostic>) -> Option<f64> {
        let text = self.text(ts.number);
        let problem = match text.parse::<f64>() {
            // VAL runs steps that start before 0 (SEMANTICS.md §2b), so a negative time is
            // read; what it means is the validator's business.
            Ok(v) if v.is_finite() => return Some(v),
            _ => format!(
                "expected a timestamp like `0.5`, found `{}`",
                shorten(text, 40)
            ),
        };
        local.push(
            Diagnostic::error(Code::InvalidNumber, FILE, ts.span, problem).with_help(
                "write the time the step starts as a number followed by `:`, e.g. `0.5: (a b)`",
            ),
        );
        None
    }

    /// A `[...]` whose `[` (`open`) was just consumed: the duration of the step before it.
    fn duration(&mut self, open: Token, after: Option<usize>) {
        let mut atoms: Vec<Span> = Vec::new();
        let mut last = open.span;
        let closed = loop {
            let t = self.peek();
            match t.kind {
                Tok::RBracket if !t.newline_before => {
                    self.bump();
                    last = t.span;
                    break true;
                }
                Tok::Atom if !t.newline_before => {
                    self.bump();
                    last = t.span;
                    atoms.push(t.span);
                }
                _ => break false,
            }
        };
        let group = open.span.to(last);
        let index = match after {
            Some(i) if self.steps.get(i).is_some_and(|s| s.duration.is_none()) => i,
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::UnexpectedToken,
                        FILE,
                        group,
                        format!(
                            "expected a step, found a duration `{}` that follows no step",
                            shorten(self.text(group), 40)
                        ),
                    )
                    .with_help(
                        "write a duration right after its step's `)`, once: `0.0: (a b) [1.0]`",
                    ),
                );
                return;
            }
        };
        let problem = match (closed, atoms.as_slice()) {
            (false, _) => {
                let next = self.peek();
                format!(
                    "expected `]` to end the duration, found {}",
                    if next.kind != Tok::Eof && next.newline_before {
                        "the end of the line".to_string()
                    } else {
                        self.describe(next)
                    }
                )
            }
            (true, []) => "expected a duration inside `[]`, found nothing".to_string(),
            (true, [one]) => {
                let text = self.text(*one);
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() && v >= 0.0 => String::new(),
                    Ok(v) if v < 0.0 => format!("a duration cannot be negative, found `{text}`"),
                    _ => format!(
                        "expected a duration like `1.0`, found `{}`",
                        shorten(text, 40)
                    ),
                }
            }
            (true, _) => format!(
                "expected one number in the duration, found `{}`",
                shorten(self.text(group), 40)
            ),
        };
        let number = index + 1;
        if let Some(step) = self.steps.get_mut(index) {
            step.span = step.span.to(group);
            if problem.is_empty() {
                step.duration = atoms
                    .first()
                    .and_then(|a| self.src.get(a.range()))
                    .and_then(|t| t.parse::<f64>().ok());
            }
        }
        if !problem.is_empty() {
            self.diagnostics.push(
                Diagnostic::error(Code::InvalidNumber, FILE, group, problem)
                    .with_help(
                        "write the duration as a non-negative number in brackets, e.g. `[1.0]`",
                    )
                    .at_step(number),
            );
        }
        // A stray `)` right after `(a) [1]` still belongs to that step.
        self.after_step = Some(index);
    }

    fn stray_close(&mut self, t: Token, after: Option<usize>) {
        let mut message =
            "expected a step or the end of the file, found a `)` that closes nothing".to_string();
        if let Some(i) = after {
            message.push_str(&format!(" (step {} is already closed)", i + 1));
        }
        let mut d = Diagnostic::error(Code::UnexpectedCloseParen, FILE, t.span, message).with_help(
            "remove this `)`; if a step lost its `(`, add it back at the start of the step",
        );
        if let Some(i) = after {
            d = d.at_step(i + 1);
        }
        self.diagnostics.push(d);
        self.after_step = after;
    }

    /// Words outside parentheses: one diagnostic for the run of words on this line.
    fn bare_words(&mut self) {
        let first = self.bump();
        let mut last = first;
        loop {
            let t = self.peek();
            if t.kind != Tok::Atom || t.newline_before || self.timestamp_at(t).is_some() {
                break;
            }
            self.bump();
            last = t;
        }
        let span = first.span.to(last.span);
        let words: Vec<&str> = self.text(span).split_whitespace().collect();
        let joined = words.join(" ");
        let first_text = self.text(first.span);
        // Markdown around a plan pasted from a chat (a fence line, a `\` line continuation
        // after a step): VAL reads past both, so they are warnings, not errors.
        let fence = first.newline_before
            && (first_text.starts_with("```") || first_text.starts_with("~~~"))
            && words.len() == 1;
        let continuation = joined == "\\";
        if fence || continuation {
            let (what, help) = if fence {
                (
                    format!("skipped a Markdown fence line `{}`", shorten(&joined, 20)),
                    "a plan file holds only steps; remove the fence lines",
                )
            } else {
                (
                    "skipped a `\\` after a step".to_string(),
                    "a plan file holds only steps; remove the `\\`",
                )
            };
            self.diagnostics
                .push(Diagnostic::warning(Code::SkippedText, FILE, span, what).with_help(help));
            return;
        }
        let help = if let Some(rest) = joined
            .strip_prefix('#')
            .or_else(|| joined.strip_prefix("//"))
        {
            format!(
                "PDDL comments start with `;`: write `; {}`",
                shorten(rest.trim_start_matches(['#', '/']).trim_start(), 60)
            )
        } else if let Some(number) = first_text.strip_suffix(':')
            && looks_numeric(number)
            && words.len() > 1
        {
            format!(
                "wrap the step in parentheses: `{first_text} ({})`",
                shorten(&words[1..].join(" "), 60)
            )
        } else {
            format!(
                "if this is a step, wrap it in parentheses: `({})`; if it is a note, start it with `;`",
                shorten(&joined, 60)
            )
        };
        self.diagnostics.push(
            Diagnostic::error(
                Code::UnexpectedToken,
                FILE,
                span,
                format!(
                    "expected a step in parentheses, found `{}`",
                    shorten(&joined, 40)
                ),
            )
            .with_help(help),
        );
    }
}

pub(crate) fn span(start: usize, end: usize) -> Span {
    Span::new(start as u32, end as u32)
}

/// The offset of the `\n` ending the line that contains `pos` (or the end of the text).
pub(crate) fn line_end(bytes: &[u8], pos: usize) -> usize {
    bytes
        .get(pos..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(bytes.len(), |i| pos + i)
}

/// At most `max_chars` characters of `s`, with `…` when cut.
pub(crate) fn shorten(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_comments() {
        assert_eq!(cost_comment(" cost = 11 (unit cost)"), Some(11.0));
        assert_eq!(cost_comment(" COST = 2.5 (GENERAL COST)"), Some(2.5));
        assert_eq!(cost_comment("cost=7"), Some(7.0));
        assert_eq!(cost_comment(" cost = 7x"), None);
        assert_eq!(cost_comment(" the cost = 7"), None);
        assert_eq!(cost_comment(" cost ="), None);
    }

    #[test]
    fn lexer_splits_brackets_and_keeps_colons() {
        let src = "0.5: (a b)[ 1 ] ; c\n)";
        let mut lx = PlanLexer {
            src,
            pos: 0,
            cost: None,
        };
        let mut got = Vec::new();
        loop {
            let t = lx.next_token();
            if t.kind == Tok::Eof {
                break;
            }
            got.push((t.kind, &src[t.span.range()], t.newline_before));
        }
        assert_eq!(
            got,
            [
                (Tok::Atom, "0.5:", true),
                (Tok::Open, "(", false),
                (Tok::Atom, "a", false),
                (Tok::Atom, "b", false),
                (Tok::Close, ")", false),
                (Tok::LBracket, "[", false),
                (Tok::Atom, "1", false),
                (Tok::RBracket, "]", false),
                (Tok::Close, ")", true),
            ]
        );
    }
}
