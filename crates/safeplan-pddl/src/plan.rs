//! Plans: a strict reader for plan files and a lenient extractor for plans in LLM replies.
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
//! [`extract_plan`] is for text that is not a plan file: a chat reply with prose, Markdown code
//! fences and numbered lists around the steps. It never fails: it returns the steps it finds and
//! a [`Severity::Warning`](crate::Severity::Warning) ([`Code::SkippedText`]) for each stretch of
//! text it skipped, so a caller can show what was ignored. Its rules are documented on the
//! function.

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

fn is_blank(b: u8) -> bool {
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
fn cost_comment(body: &str) -> Option<f64> {
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

// ===== the lenient extractor ==============================================================

/// Find the plan in an LLM reply: the steps, and a warning for each stretch of text skipped.
///
/// The value is always `Some`, and there are no errors: prose is expected here. Every piece
/// of text that is neither a step nor markup around steps gets one [`Code::SkippedText`]
/// warning (a [`Severity::Warning`](crate::Severity::Warning), with the span of the
/// stretch), so nothing is dropped silently. Steps are [`PlanStep`]s with spans into `text`.
///
/// # Rules
///
/// 1. **Parenthesised steps.** A step is `(action arg ...)`: plain PDDL names (the action
///    starts with a letter; no `?x`, no `:keyword`, no word ending in `.`, no lone `-`), no
///    nested parentheses, closed before a blank line. Commas between arguments are accepted
///    (`(move a, b)`). Anything else in parentheses (`(define ...)`, `(see above)`...) is text.
/// 2. **Position.** A step must start a line, possibly after a list marker (`1.`, `2)`, `(3)`,
///    `-`, `*`, `+`, `•`, `Step 3:`, `Action 3:`) or emphasis (`**`, `` ` ``), or follow
///    another step on the same line, separated by spaces, `,`, `;`, `.`, `` ` ``, `*`, `->`,
///    `=>` or `→`. Once a line turns to prose, the rest of the line is prose: a parenthesis in
///    a sentence ("move it (carefully)") is not a step.
/// 3. **Timing and comments.** `0.5: (a b) [1.0]` gives a time and a duration, as in plan
///    files. After a step or at the start of a line, `;` followed by a `(` on the same line
///    separates steps; any other `;` starts a comment to the end of the line, skipped without a
///    warning (`; cost = N` sets [`Plan::cost`]).
/// 4. **Code fences.** Lines fenced by ```` ``` ```` or `~~~` (with or without a language,
///    also ```` ```(a b)``` ```` on one line) form blocks. When any block holds a step, only
///    the steps inside blocks are used; steps outside are skipped (with a warning that says
///    so). Fence lines themselves are markup, never warned about.
/// 5. **Steps without parentheses.** Only when the whole reply has no parenthesised step:
///    list items (and lines in code blocks) made of names, `1. pick-up a b`, are read as
///    `(pick-up a b)`; a trailing `.`, `;` or `,` is dropped, and a lone `-`, `–`, `—` or `:`
///    ends the step (what follows is prose). Lines in function-call style, `pick_up(a, b)`
///    (several per line allowed), are read anywhere. If numbered items (`1.`, `Step 1:`) hold
///    steps, bulleted items (`-`, `*`) are left out as notes; code blocks are preferred as in 4.
///
/// Markers, separators and fence lines that belong to steps are consumed silently; on a line
/// without a step they are part of the skipped text.
///
/// # Examples
///
/// ```
/// use safeplan_pddl::{extract_plan, Code, Severity};
///
/// let reply = "Sure! Here is the plan:\n\n```pddl\n(pick ball1 rooma)\n(move rooma roomb) ; go\n```\n\
///              This works because the ball (ball1) is light.";
/// let parsed = extract_plan(reply);
/// let plan = parsed.value.unwrap_or_default();
/// let steps: Vec<&str> = plan.steps.iter().map(|s| &reply[s.span.range()]).collect();
/// assert_eq!(steps, ["(pick ball1 rooma)", "(move rooma roomb)"]);
/// // Two stretches of prose were skipped, each with a warning.
/// assert_eq!(parsed.diagnostics.len(), 2);
/// assert!(parsed.diagnostics.iter().all(|d| d.code == Code::SkippedText && d.severity == Severity::Warning));
/// assert_eq!(&reply[parsed.diagnostics[0].span.range()], "Sure! Here is the plan:");
/// ```
///
/// Lists, several steps per line, and prose in between:
///
/// ```
/// # use safeplan_pddl::extract_plan;
/// let reply = "1. (pick a b)\n2) (move a b) - the robot moves\nStep 3: (drop a), (wait); (rest)";
/// let plan = extract_plan(reply).value.unwrap_or_default();
/// let actions: Vec<&str> = plan.steps.iter().map(|s| s.action.as_str()).collect();
/// assert_eq!(actions, ["pick", "move", "drop", "wait", "rest"]);
/// ```
///
/// Without any parenthesised step, list items and function calls are read as steps:
///
/// ```
/// # use safeplan_pddl::extract_plan;
/// let plan = extract_plan("Plan:\n1. pick-up a b\n2. move a b.\n3. put_down(a, b)").value.unwrap_or_default();
/// let steps: Vec<String> = plan.steps.iter()
///     .map(|s| format!("{} {}", s.action.as_str(), s.args.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(" ")))
///     .collect();
/// assert_eq!(steps, ["pick-up a b", "move a b", "put_down a b"]);
/// ```
pub fn extract_plan(text: &str) -> Parsed<Plan> {
    if let Err(d) = crate::decode(text.as_bytes(), FILE) {
        return Parsed {
            value: None,
            diagnostics: vec![d],
        };
    }
    let (regions, fence_marks) = regions(text);
    let mut ex = Extractor {
        text,
        bytes: text.as_bytes(),
        items: Vec::new(),
    };
    for r in &regions {
        ex.scan_parens(r);
    }
    let bare = !ex.items.iter().any(Item::is_step);
    if bare {
        for r in &regions {
            ex.scan_bare(r);
        }
    }
    ex.finish(&fence_marks, bare)
}

/// A stretch of the reply: inside a code fence or not.
#[derive(Clone, Copy, Debug)]
struct Region {
    start: usize,
    end: usize,
    fenced: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListKind {
    None,
    Bullet,
    Numbered,
}

#[derive(Debug)]
enum ItemKind {
    Step(PlanStep),
    Markup,
    Comment(Option<f64>),
}

/// Something the extractor recognised: a step, or markup/comment it consumes.
#[derive(Debug)]
struct Item {
    span: Span,
    fenced: bool,
    list: ListKind,
    kind: ItemKind,
}

impl Item {
    fn is_step(&self) -> bool {
        matches!(self.kind, ItemKind::Step(_))
    }
}

/// Per-line bookkeeping: markup seen before the first step is claimed only if a step follows.
struct LineState {
    pending: Vec<Span>,
    list: ListKind,
    has_step: bool,
}

impl LineState {
    fn new() -> LineState {
        LineState {
            pending: Vec::new(),
            list: ListKind::None,
            has_step: false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    LineStart,
    StepPos,
    Prose,
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start as u32, end as u32)
}

/// The offset of the `\n` ending the line that contains `pos` (or the end of the text).
fn line_end(bytes: &[u8], pos: usize) -> usize {
    bytes
        .get(pos..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(bytes.len(), |i| pos + i)
}

/// Split `text` into regions inside and outside code fences, and the spans of fence lines.
fn regions(text: &str) -> (Vec<Region>, Vec<Span>) {
    let bytes = text.as_bytes();
    let mut regions = Vec::new();
    let mut marks = Vec::new();
    // The open fence: its character, length, and where its content starts.
    let mut open: Option<(u8, usize, usize)> = None;
    let mut outside_start = 0;
    let mut ls = 0;
    while ls < bytes.len() {
        let le = line_end(bytes, ls);
        let next = (le + 1).min(bytes.len());
        let line = text.get(ls..le).unwrap_or("");
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let run = fence_run(trimmed);
        match open {
            None => {
                if let Some((ch, n)) = run {
                    let after = &trimmed[n..];
                    let inline_close = if ch == b'`' {
                        after
                            .trim_end()
                            .strip_suffix("```")
                            .map(|inner| inner.trim_end_matches('`').len())
                    } else {
                        None
                    };
                    push_region(&mut regions, outside_start, ls, false);
                    match inline_close {
                        Some(inner_len) if !after.trim().trim_matches('`').is_empty() => {
                            // ```(a b)``` on one line.
                            let cstart = ls + indent + n;
                            let cend = cstart + inner_len;
                            marks.push(span(ls, cstart));
                            push_region(&mut regions, cstart, cend, true);
                            marks.push(span(cend, le));
                            outside_start = next;
                        }
                        _ => {
                            marks.push(span(ls, le));
                            open = Some((ch, n, next));
                        }
                    }
                }
            }
            Some((ch, n, cstart)) => {
                let t = trimmed.trim_end();
                if t.len() >= n && t.bytes().all(|b| b == ch) {
                    push_region(&mut regions, cstart, ls, true);
                    marks.push(span(ls, le));
                    open = None;
                    outside_start = next;
                }
            }
        }
        ls = next;
        if le == bytes.len() {
            break;
        }
    }
    match open {
        Some((_, _, cstart)) => push_region(&mut regions, cstart, bytes.len(), true),
        None => push_region(&mut regions, outside_start, bytes.len(), false),
    }
    (regions, marks)
}

fn push_region(regions: &mut Vec<Region>, start: usize, end: usize, fenced: bool) {
    if start < end {
        regions.push(Region { start, end, fenced });
    }
}

/// A run of at least three backticks or tildes at the start of `s`.
fn fence_run(s: &str) -> Option<(u8, usize)> {
    let ch = *s.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = s.bytes().take_while(|&b| b == ch).count();
    (n >= 3).then_some((ch, n))
}

/// Pairs of matching parentheses (open, close) in `start..end`, sorted by the open offset.
fn paren_pairs(bytes: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut stack = Vec::new();
    let mut pairs = Vec::new();
    for (i, &b) in bytes.iter().enumerate().take(end).skip(start) {
        match b {
            b'(' => stack.push(i),
            b')' => {
                if let Some(open) = stack.pop() {
                    pairs.push((open, i));
                }
            }
            _ => {}
        }
    }
    pairs.sort_unstable();
    pairs
}

fn is_action_word(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_alphabetic) && is_arg_word(w)
}

fn is_arg_word(w: &str) -> bool {
    !w.is_empty() && w != "-" && !w.ends_with('.') && w.chars().all(is_name_char)
}

struct Extractor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    items: Vec<Item>,
}

/// What a `(` at a step position turned out to be.
enum Group {
    /// A step: its words and the offset after its `)`.
    Step(Vec<(usize, usize)>, usize),
    /// Text; scanning resumes (in prose) at the offset.
    Text(usize),
}

impl<'a> Extractor<'a> {
    /// Whether the words (byte ranges of `text`) read as a step: an action word followed by
    /// argument words.
    fn is_step_words(&self, words: &[(usize, usize)]) -> bool {
        words.split_first().is_some_and(|(&first, rest)| {
            is_action_word(self.text.get(first.0..first.1).unwrap_or(""))
                && rest
                    .iter()
                    .all(|&(s, e)| is_arg_word(self.text.get(s..e).unwrap_or("")))
        })
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    fn starts_with(&self, i: usize, s: &str) -> bool {
        self.bytes
            .get(i..)
            .is_some_and(|rest| rest.starts_with(s.as_bytes()))
    }

    fn skip_blanks(&self, mut i: usize, end: usize) -> usize {
        while i < end && self.at(i).is_some_and(is_blank) {
            i += 1;
        }
        i
    }

    fn name(&self, (s, e): (usize, usize)) -> Name {
        Name::new(self.text.get(s..e).unwrap_or(""), span(s, e))
    }

    fn make_step(&self, words: &[(usize, usize)], start: usize, end: usize) -> Option<PlanStep> {
        let (&first, rest) = words.split_first()?;
        Some(PlanStep {
            action: self.name(first),
            args: rest.iter().map(|&w| self.name(w)).collect(),
            time: None,
            duration: None,
            span: span(start, end),
        })
    }

    fn push(&mut self, span: Span, fenced: bool, list: ListKind, kind: ItemKind) {
        self.items.push(Item {
            span,
            fenced,
            list,
            kind,
        });
    }

    /// Claim markup: now if the line already has a step, else once one follows.
    fn mark(&mut self, line: &mut LineState, s: Span, fenced: bool) {
        if line.has_step {
            self.push(s, fenced, line.list, ItemKind::Markup);
        } else {
            line.pending.push(s);
        }
    }

    fn push_step(&mut self, line: &mut LineState, step: PlanStep, fenced: bool) {
        for s in std::mem::take(&mut line.pending) {
            self.push(s, fenced, line.list, ItemKind::Markup);
        }
        line.has_step = true;
        self.push(step.span, fenced, line.list, ItemKind::Step(step));
    }

    fn push_comment(&mut self, start: usize, end: usize, fenced: bool) {
        let body = self.text.get(start..end).unwrap_or("").trim_end();
        let cost = body.strip_prefix(';').and_then(cost_comment);
        self.push(
            span(start, start + body.len()),
            fenced,
            ListKind::None,
            ItemKind::Comment(cost),
        );
    }

    /// A list marker at `i` (`1.`, `2)`, `(3)`, `-`, `*`, `+`, `•`, `Step 3:`): its end and kind.
    fn list_marker(&self, i: usize, end: usize) -> Option<(usize, ListKind)> {
        let s = self.text.get(i..end)?;
        let followed_ok = |rest: &str| {
            rest.chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '(' || c == '`' || c == '*')
        };
        for bullet in ["-", "*", "+", "•"] {
            if let Some(rest) = s.strip_prefix(bullet)
                && rest
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_whitespace() || c == '(')
            {
                return Some((i + bullet.len(), ListKind::Bullet));
            }
        }
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if (1..=6).contains(&digits) {
            let rest = &s[digits..];
            if let Some(after) = rest.strip_prefix(['.', ')'])
                && !after.starts_with(|c: char| c.is_ascii_digit())
                && followed_ok(after)
            {
                return Some((i + digits + 1, ListKind::Numbered));
            }
            return None;
        }
        if let Some(inner) = s.strip_prefix('(') {
            let n = inner.bytes().take_while(u8::is_ascii_digit).count();
            if (1..=6).contains(&n) && inner[n..].starts_with(')') && followed_ok(&inner[n + 1..]) {
                return Some((i + n + 2, ListKind::Numbered));
            }
            return None;
        }
        // `Step 3:` / `Action #3.` / `step 3 -`
        let word = ["step", "action"].into_iter().find(|w| {
            s.get(..w.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(w))
        })?;
        let mut j = word.len();
        j += s[j..].bytes().take_while(|&b| is_blank(b)).count();
        if s[j..].starts_with('#') {
            j += 1;
        }
        let n = s[j..].bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        j += n;
        let k = j + s[j..].bytes().take_while(|&b| is_blank(b)).count();
        if s[k..].starts_with([':', '.', ')', '-']) {
            return Some((i + k + 1, ListKind::Numbered));
        }
        followed_ok(&s[j..]).then_some((i + j, ListKind::Numbered))
    }

    /// The length of a separator between steps at `i`, if there is one.
    fn separator(&self, i: usize) -> Option<usize> {
        match self.at(i)? {
            b',' | b';' | b'.' | b'`' | b'*' => Some(1),
            _ if self.starts_with(i, "->") || self.starts_with(i, "=>") => Some(2),
            _ if self.starts_with(i, "→") => Some("→".len()),
            _ => None,
        }
    }

    /// `0.5:` followed by `(` at `i`: the timestamp's span, value, and the `(` offset.
    fn timestamp(&self, i: usize, end: usize) -> Option<(Span, f64, usize)> {
        let mut j = i;
        while j < end && self.at(j).is_some_and(|b| b.is_ascii_digit()) {
            j += 1;
        }
        if j == i {
            return None;
        }
        if self.at(j) == Some(b'.') {
            j += 1;
            while j < end && self.at(j).is_some_and(|b| b.is_ascii_digit()) {
                j += 1;
            }
        }
        let value = self.text.get(i..j)?.parse::<f64>().ok()?;
        let colon = self.skip_blanks(j, end);
        if self.at(colon) != Some(b':') || !value.is_finite() {
            return None;
        }
        let open = self.skip_blanks(colon + 1, end);
        (self.at(open) == Some(b'(')).then_some((span(i, colon + 1), value, open))
    }

    /// `[1.0]` at `i` (after blanks): the duration and the offset after `]`.
    fn duration(&self, i: usize, end: usize) -> Option<(f64, usize)> {
        let open = self.skip_blanks(i, end);
        if self.at(open) != Some(b'[') {
            return None;
        }
        let close = open + self.bytes.get(open..end)?.iter().position(|&b| b == b']')?;
        let value = self.text.get(open + 1..close)?.trim().parse::<f64>().ok()?;
        (value.is_finite() && value >= 0.0).then_some((value, close + 1))
    }

    /// The `(` at `open` at a step position: a step, or text to skip.
    fn paren_group(&self, open: usize, r: &Region, pairs: &[(usize, usize)]) -> Group {
        let mut i = open + 1;
        let mut words = Vec::new();
        loop {
            let Some(b) = self.at(i).filter(|_| i < r.end) else {
                return Group::Text(line_end(self.bytes, open));
            };
            match b {
                b')' => break,
                b'(' => {
                    return Group::Text(
                        pairs
                            .binary_search_by_key(&open, |p| p.0)
                            .ok()
                            .and_then(|k| pairs.get(k))
                            .map_or(line_end(self.bytes, open), |&(_, close)| close + 1),
                    );
                }
                b'\n' => {
                    // A blank line ends a paragraph: a step never spans one.
                    let next = self.skip_blanks(i + 1, r.end);
                    if self.at(next) == Some(b'\n') || next >= r.end {
                        return Group::Text(line_end(self.bytes, open));
                    }
                    i += 1;
                }
                b',' => i += 1,
                b if b.is_ascii_whitespace() => i += 1,
                _ => {
                    let s = i;
                    while i < r.end
                        && self.at(i).is_some_and(|b| {
                            !b.is_ascii_whitespace() && !matches!(b, b'(' | b')' | b',')
                        })
                    {
                        i += 1;
                    }
                    words.push((s, i));
                }
            }
        }
        let valid = self.is_step_words(&words);
        if valid {
            Group::Step(words, i + 1)
        } else {
            Group::Text(i + 1)
        }
    }

    /// Pass 1: parenthesised steps.
    fn scan_parens(&mut self, r: &Region) {
        let pairs = paren_pairs(self.bytes, r.start, r.end);
        let mut pos = r.start;
        let mut state = State::LineStart;
        let mut line = LineState::new();
        while pos < r.end {
            let Some(b) = self.at(pos) else { break };
            if b == b'\n' {
                state = State::LineStart;
                line = LineState::new();
                pos += 1;
                continue;
            }
            let le = line_end(self.bytes, pos).min(r.end);
            match state {
                State::Prose => pos = le,
                State::LineStart => {
                    let start = self.skip_blanks(pos, le);
                    pos = self.line_prefix(start, le, &mut line);
                    state = State::StepPos;
                }
                State::StepPos => {
                    if is_blank(b) {
                        pos += 1;
                    } else if b == b'(' || self.timestamp(pos, le).is_some() {
                        let (time, open) = match self.timestamp(pos, le) {
                            Some((ts, value, open)) => (Some((ts, value)), open),
                            None => (None, pos),
                        };
                        match self.paren_group(open, r, &pairs) {
                            Group::Step(words, after) => {
                                let start = time.map_or(open, |(ts, _)| ts.start as usize);
                                let mut end = after;
                                let duration = self.duration(after, line_end(self.bytes, after));
                                if let Some((_, e)) = duration {
                                    end = e;
                                }
                                if let Some(mut step) = self.make_step(&words, start, end) {
                                    step.time = time.map(|(_, v)| v);
                                    step.duration = duration.map(|(d, _)| d);
                                    self.push_step(&mut line, step, r.fenced);
                                }
                                pos = end;
                            }
                            Group::Text(resume) => {
                                state = State::Prose;
                                pos = resume.max(pos + 1);
                            }
                        }
                    } else if b == b';' {
                        let next = self.skip_blanks(pos + 1, le);
                        if self.at(next) == Some(b'(') {
                            self.mark(&mut line, span(pos, pos + 1), r.fenced);
                            pos += 1;
                        } else {
                            self.push_comment(pos, le, r.fenced);
                            pos = le;
                        }
                    } else if let Some(n) = self.separator(pos) {
                        self.mark(&mut line, span(pos, pos + n), r.fenced);
                        pos += n;
                    } else {
                        state = State::Prose;
                    }
                }
            }
        }
    }

    /// Pass 2 (only when no parenthesised step exists): list items and function calls.
    fn scan_bare(&mut self, r: &Region) {
        let mut ls = r.start;
        while ls < r.end {
            let le = line_end(self.bytes, ls).min(r.end);
            self.bare_line(ls, le, r.fenced);
            ls = le + 1;
        }
    }

    /// Consume an item's prefix at `pos` (emphasis `**`, then a list marker such as `1.`
    /// or `-`), noting it as skipped text and the list kind on `line`. Returns where the
    /// item's content starts.
    fn line_prefix(&self, mut pos: usize, le: usize, line: &mut LineState) -> usize {
        if self.starts_with(pos, "**") {
            line.pending.push(span(pos, pos + 2));
            pos += 2;
        }
        if let Some((end, kind)) = self.list_marker(pos, le) {
            line.pending.push(span(pos, end));
            line.list = kind;
            pos = end;
        }
        pos
    }

    fn bare_line(&mut self, ls: usize, le: usize, fenced: bool) {
        let mut line = LineState::new();
        let mut pos = self.skip_blanks(ls, le);
        if self.at(pos) == Some(b';') {
            return; // a comment line, claimed in pass 1
        }
        pos = self.line_prefix(pos, le, &mut line);
        pos = self.skip_blanks(pos, le);
        // Emphasis around the step, and trailing punctuation.
        while let Some(n) = ["**", "`"].into_iter().find(|m| self.starts_with(pos, m)) {
            line.pending.push(span(pos, pos + n.len()));
            pos = self.skip_blanks(pos + n.len(), le);
        }
        let mut end = le;
        let mut trailing = Vec::new();
        loop {
            let trimmed = self.text.get(pos..end).unwrap_or("").trim_end();
            end = pos + trimmed.len();
            match trimmed.as_bytes().last() {
                Some(b'`' | b'*' | b'.' | b';' | b',') if end > pos => {
                    trailing.push(span(end - 1, end));
                    end -= 1;
                }
                _ => break,
            }
        }
        if pos >= end {
            return;
        }
        let found = self.function_calls(&mut line, pos, end, fenced);
        if !found && (fenced || line.list != ListKind::None) {
            self.bare_words(&mut line, pos, end, fenced);
        }
        if line.has_step {
            for s in trailing {
                self.push(s, fenced, line.list, ItemKind::Markup);
            }
        }
    }

    /// `name(arg, arg)`, possibly several separated by separators, at `pos`. Returns whether
    /// at least one was read (the rest of the line after the last one is prose).
    fn function_calls(
        &mut self,
        line: &mut LineState,
        mut pos: usize,
        end: usize,
        fenced: bool,
    ) -> bool {
        let mut any = false;
        loop {
            let Some((step, after)) = self.function_call(pos, end) else {
                return any;
            };
            self.push_step(line, step, fenced);
            any = true;
            pos = after;
            loop {
                let p = self.skip_blanks(pos, end);
                match self.separator(p) {
                    Some(n) if p < end => {
                        self.mark(line, span(p, p + n), fenced);
                        pos = p + n;
                    }
                    _ => {
                        pos = p;
                        break;
                    }
                }
            }
            if pos >= end {
                return any;
            }
        }
    }

    fn function_call(&self, pos: usize, end: usize) -> Option<(PlanStep, usize)> {
        let s = self.text.get(pos..end)?;
        let ident_len = s
            .char_indices()
            .find(|&(_, c)| !is_name_char(c))
            .map_or(s.len(), |(i, _)| i);
        if ident_len == 0 || !s[ident_len..].starts_with('(') {
            return None;
        }
        let mut words = vec![(pos, pos + ident_len)];
        let mut i = pos + ident_len + 1;
        loop {
            match self.at(i).filter(|_| i < end)? {
                b')' => break,
                b'(' => return None,
                b',' => i += 1,
                b if is_blank(b) => i += 1,
                _ => {
                    let st = i;
                    while i < end
                        && self
                            .at(i)
                            .is_some_and(|b| !is_blank(b) && !matches!(b, b'(' | b')' | b','))
                    {
                        i += 1;
                    }
                    words.push((st, i));
                }
            }
        }
        let (&first, rest) = words.split_first()?;
        let ok = is_action_word(self.text.get(first.0..first.1)?)
            && rest
                .iter()
                .all(|&(a, b)| self.text.get(a..b).is_some_and(is_arg_word));
        if !ok {
            return None;
        }
        Some((self.make_step(&words, pos, i + 1)?, i + 1))
    }

    /// `pick-up a b` (a list item or a line in a code block) at `pos..end`.
    fn bare_words(&mut self, line: &mut LineState, pos: usize, end: usize, fenced: bool) {
        let mut words = Vec::new();
        let mut ticks = Vec::new();
        let mut i = pos;
        let mut comment = None;
        while i < end {
            i = self.skip_blanks(i, end);
            if i >= end {
                break;
            }
            match self.at(i) {
                Some(b';') => {
                    comment = Some(i);
                    break;
                }
                Some(b'`') => {
                    // Inline code around the step: markup.
                    ticks.push(span(i, i + 1));
                    i += 1;
                    continue;
                }
                _ => {}
            }
            let st = i;
            while i < end
                && self
                    .at(i)
                    .is_some_and(|b| !is_blank(b) && !matches!(b, b';' | b'`'))
            {
                i += 1;
            }
            let w = self.text.get(st..i).unwrap_or("");
            if matches!(w, "-" | "–" | "—" | ":") {
                break;
            }
            words.push((st, i));
        }
        let valid = self.is_step_words(&words);
        if !valid {
            return;
        }
        let (Some(&(start, _)), Some(&(_, stop))) = (words.first(), words.last()) else {
            return;
        };
        if let Some(step) = self.make_step(&words, start, stop) {
            self.push_step(line, step, fenced);
        }
        for t in ticks {
            self.mark(line, t, fenced);
        }
        if let Some(c) = comment {
            self.push_comment(c, end, fenced);
        }
    }

    /// Choose the items to keep, and warn about everything else.
    fn finish(self, fence_marks: &[Span], bare: bool) -> Parsed<Plan> {
        let fence_pref = self.items.iter().any(|i| i.is_step() && i.fenced);
        let in_scope = |i: &Item| !fence_pref || i.fenced;
        let numbered_pref = bare
            && self
                .items
                .iter()
                .any(|i| i.is_step() && in_scope(i) && i.list == ListKind::Numbered);
        let keep = |i: &Item| in_scope(i) && !(numbered_pref && i.list == ListKind::Bullet);

        let mut claimed: Vec<Span> = fence_marks.to_vec();
        let mut dropped_steps: Vec<(Span, bool)> = Vec::new();
        let mut plan = Plan::default();
        for item in self.items {
            if !keep(&item) {
                if item.is_step() {
                    dropped_steps.push((item.span, !in_scope(&item)));
                }
                continue;
            }
            claimed.push(item.span);
            match item.kind {
                ItemKind::Step(step) => plan.steps.push(step),
                ItemKind::Comment(Some(cost)) => plan.cost = Some(cost),
                ItemKind::Comment(None) | ItemKind::Markup => {}
            }
        }
        claimed.sort_unstable();

        let mut diagnostics = Vec::new();
        let mut cursor = 0usize;
        let mut warn = |a: usize, b: usize| {
            let Some(gap) = self.text.get(a..b) else {
                return;
            };
            let trimmed = gap.trim_start();
            let start = a + (gap.len() - trimmed.len());
            let trimmed = trimmed.trim_end();
            if trimmed.is_empty() {
                return;
            }
            let end = start + trimmed.len();
            let first_line = trimmed.lines().next().unwrap_or("");
            let dropped = dropped_steps
                .iter()
                .find(|(s, _)| s.start as usize >= start && s.end as usize <= end);
            let (message, help) = match dropped {
                Some((_, true)) => (
                    format!(
                        "skipped a step outside the code block: `{}`",
                        shorten(first_line, 40)
                    ),
                    "only the steps inside the fenced code block(s) are used; move this step into \
                     the block if it belongs to the plan",
                ),
                Some((_, false)) => (
                    format!("skipped a bulleted item: `{}`", shorten(first_line, 40)),
                    "the numbered list is read as the plan and bulleted items as notes; number \
                     this item if it is a step",
                ),
                None => (
                    format!(
                        "skipped text that is not a plan step: `{}`",
                        shorten(first_line, 40)
                    ),
                    "if this was meant as a step, write it as `(action arg ...)` at the start of \
                     a line",
                ),
            };
            diagnostics.push(
                Diagnostic::warning(Code::SkippedText, FILE, span(start, end), message)
                    .with_help(help),
            );
        };
        for s in claimed {
            let (a, b) = (s.start as usize, s.end as usize);
            if a > cursor {
                warn(cursor, a);
            }
            cursor = cursor.max(b);
        }
        warn(cursor, self.text.len());
        Parsed {
            value: Some(plan),
            diagnostics,
        }
    }
}

/// At most `max_chars` characters of `s`, with `…` when cut.
fn shorten(s: &str, max_chars: usize) -> String {
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

    #[test]
    fn fences_split_regions() {
        let text = "a\n```pddl\n(x)\n```\nb\n``` (y) ```\n~~~\n(z)";
        let (regions, marks) = regions(text);
        let got: Vec<(&str, bool)> = regions
            .iter()
            .map(|r| (&text[r.start..r.end], r.fenced))
            .collect();
        assert_eq!(
            got,
            [
                ("a\n", false),
                ("(x)\n", true),
                ("b\n", false),
                (" (y) ", true),
                ("(z)", true)
            ]
        );
        assert_eq!(marks.len(), 5);
    }
}
