//! The lenient extractor: steps found in prose, Markdown and lists by their position and
//! shape alone ([`extract_plan`]), each skipped stretch of text warned about.

use crate::Parsed;
use crate::ast::{Name, Plan, PlanStep};
use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::parser::is_name_char;
use crate::plan::{cost_comment, is_blank, line_end, shorten, span};
use crate::span::Span;

const FILE: FileKind = FileKind::Plan;

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
            // `1.`, `1)`, and the rarer `1-` (seen in GPT-4's replies: a step dropped here
            // would change the plan's verdict). `1:` is a timestamp (rule 3).
            if let Some(after) = rest.strip_prefix(['.', ')', '-'])
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

#[cfg(test)]
mod tests {
    use super::*;

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
