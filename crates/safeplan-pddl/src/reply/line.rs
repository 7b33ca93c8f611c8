//! One line of a reply read by its shape alone: its indentation, its list marker, and what
//! its content is — steps in one of three syntaxes, a step that is not well formed, a
//! comment, or prose. No name of the task is looked at here: whether a line is a step never
//! depends on whether the step is right.
//!
//! A line is scanned whole: every parenthesised form and every call on it is found, so
//! `1. (pick-up a) 2. (stack a b)`, `(pick-up a), then (stack a b)` and `pick-up(a) →
//! stack(a, b)` are two steps each. What stands before the first of them decides what the
//! line is: nothing, emphasis, joining words (`Then`, `First,`) or a label ending in `:`
//! (`Pick up b:`, `Plan:`) make it a line of steps; anything else makes it prose that
//! mentions step-shaped text (`Initially (on a b) holds`), which [`Content::Prose`] keeps so
//! that the statement around it can tell whether it skipped a step.

use crate::ast::{Name, PlanStep};
use crate::parser::is_name_char;
use crate::plan::{cost_comment, is_blank, line_end, span};

/// How a list item is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker {
    /// No marker: a plain line.
    None,
    /// `-`, `*`, `+`, `•`.
    Bullet,
    /// `1.`, `2)`, `3-`, `(4)`, `5:`, `Step 6:`, `Action 7.`: the number written.
    Numbered(u32),
}

/// The syntax a step was written in. A statement's syntax decides how the task's names may
/// help to tell it from prose (docs/FORMAT.md, "Choosing the statement").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Syntax {
    /// `(action arg ...)`.
    Paren,
    /// `action(arg, ...)`.
    Call,
    /// `action arg ...` in a list item or a code block.
    Bare,
}

/// What a line holds.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Content {
    /// Nothing but blanks (or list markup without content).
    Blank,
    /// One or more steps, in the order written, and their syntax.
    Steps(Vec<PlanStep>, Syntax),
    /// A line that starts like a step but whose parentheses do not match
    /// (`Unload-truck p3 t1 l1-0)`, a last step cut off by the output limit): a step that is
    /// not well formed. Its action is the line's text, so it fails as a step of no action.
    Broken(PlanStep),
    /// `; ...`: a comment, with the cost of a `; cost = N` comment.
    Comment(Option<f64>),
    /// Anything else, with the step-shaped items it mentions (`Initially (on a b) holds`:
    /// `(on a b)`): never steps, but a statement that has such a line between its steps
    /// cannot be read faithfully (docs/FORMAT.md, "Coverage").
    Prose(Vec<PlanStep>),
}

/// One line of the reply.
#[derive(Clone, Debug)]
pub(super) struct Line {
    /// Byte offset of the line's first character.
    pub start: usize,
    /// Byte offset of the line's end (its `\n`, or the end of the text).
    pub end: usize,
    /// Columns of leading blanks (a tab counts 4).
    pub indent: usize,
    /// The list marker, if any.
    pub marker: Marker,
    /// The column where a list item's content starts (after its marker): a line indented
    /// that far or further is under the item.
    pub content_col: usize,
    /// A Markdown heading (`#` ... ).
    pub heading: bool,
    /// A label before the line's steps (`Pick up b:`, `Plan:`): its byte range.
    pub label: Option<(usize, usize)>,
    /// What the line holds.
    pub content: Content,
}

impl Line {
    #[cfg(test)]
    fn steps(&self) -> Option<(&[PlanStep], Syntax)> {
        match &self.content {
            Content::Steps(s, syntax) => Some((s, *syntax)),
            _ => None,
        }
    }
}

/// Read the line `start..end` of `text`. `bare_ok`: whether bare words may be a step here
/// (in a code block, a list item or a JSON string; never on a plain line of prose).
///
/// A parenthesised step may go on over the next lines up to its `)`, as in plan files, but
/// not past a blank line or another `(`; `limit` is where the region (a code block, the
/// text outside code blocks) ends. The line's `end` is then the end of the last line used.
pub(super) fn read_line(text: &str, start: usize, end: usize, limit: usize, bare_ok: bool) -> Line {
    let s = text.get(start..end).unwrap_or("");
    let mut indent = 0;
    let mut pos = start;
    for c in s.chars() {
        match c {
            ' ' => indent += 1,
            '\t' => indent += 4,
            '\r' | '\u{0b}' | '\u{0c}' => {}
            _ => break,
        }
        pos += c.len_utf8();
    }
    let mut line = Line {
        start,
        end,
        indent,
        marker: Marker::None,
        content_col: indent,
        heading: false,
        label: None,
        content: Content::Blank,
    };
    let mut r = Reader { text, end, limit };
    if pos >= end || r.rest(pos).trim().is_empty() {
        return line;
    }
    if r.rest(pos).starts_with('#') && !r.rest(pos).starts_with("#t") {
        line.heading = true;
        line.content = Content::Prose(r.items(pos, false).0);
        return line;
    }
    pos = r.skip_emphasis(pos);
    if let Some((after, marker)) = r.list_marker(pos) {
        line.marker = marker;
        pos = r.skip_blanks(after);
        line.content_col = indent
            + text
                .get(start..pos)
                .map_or(0, |p| p.trim_start().chars().count());
        pos = r.skip_emphasis(pos);
    }
    if pos >= end || r.rest(pos).trim().is_empty() {
        return line;
    }
    let bare_ok = bare_ok || line.marker != Marker::None;
    let (content, label) = r.content(pos, bare_ok);
    line.content = content;
    line.label = label;
    line.end = r.end;
    line
}

/// The text of a step that is not well formed: the line from `from`, trimmed, as a step
/// whose action is that text.
fn broken(text: &str, from: usize, end: usize) -> Content {
    let raw = text.get(from..end).unwrap_or("");
    let trimmed = raw.trim();
    let lead = raw.len() - raw.trim_start().len();
    let a = from + lead;
    let b = a + trimmed.len();
    Content::Broken(PlanStep {
        action: Name::new(trimmed, span(a, b)),
        args: Vec::new(),
        time: None,
        duration: None,
        span: span(a, b),
    })
}

/// Whether `w` can be an action name: a letter, then name characters.
pub(super) fn is_action_word(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_alphabetic) && is_arg_word(w)
}

/// Whether `w` can be an argument: name characters, not a lone `-`, not ending in `.`.
pub(super) fn is_arg_word(w: &str) -> bool {
    !w.is_empty() && w != "-" && !w.ends_with('.') && w.chars().all(is_name_char)
}

/// Quotes models put around names (`pick-up("a")`, `stack('a', 'b')`): not part of them.
fn is_quote(c: char) -> bool {
    matches!(
        c,
        '"' | '\u{201C}' | '\u{201D}' | '\u{2018}' | '\u{2019}' | '`'
    )
}

/// `a..b` of `text` without quotes around it: any `"` or curly quote at either end, and a
/// `'` only where the word both starts and ends with one (a `'` is a name character).
fn unquote(text: &str, mut a: usize, mut b: usize) -> (usize, usize) {
    loop {
        let w = text.get(a..b).unwrap_or("");
        if w.len() >= 2 && w.starts_with('\'') && w.ends_with('\'') {
            a += 1;
            b -= 1;
            continue;
        }
        if let Some(c) = w.chars().next().filter(|&c| is_quote(c)) {
            a += c.len_utf8();
            continue;
        }
        if let Some(c) = w.chars().next_back().filter(|&c| is_quote(c)) {
            b -= c.len_utf8();
            continue;
        }
        return (a, b);
    }
}

/// Words that join steps or lead into them, not prose: `(pick-up a), then (stack a b)`,
/// `First, (pick-up a)`, `- (pick-up a) and (stack a b)`.
const JOINERS: &[&str] = &[
    "and",
    "then",
    "next",
    "now",
    "first",
    "firstly",
    "second",
    "secondly",
    "third",
    "thirdly",
    "finally",
    "lastly",
    "last",
    "after",
    "that",
    "afterwards",
    "afterward",
    "followed",
    "by",
    "also",
    "do",
    "perform",
    "execute",
    "step",
    "action",
];

/// Whether `gap` (text between or before steps) only joins them: blanks, punctuation
/// (`,` `;` `.` `->` `=>` `→` `|`), emphasis, list numbers (`2.`, `(3)`, `Step 4:`) and
/// [`JOINERS`].
pub(super) fn is_joining(gap: &str) -> bool {
    /// Punctuation that joins steps or frames a list of them.
    const MARKS: &str = ",;.:()[]{}*_`|→⇒➔>•+=-";
    gap.split(|c: char| c.is_whitespace() || MARKS.contains(c))
        .filter(|w| !w.is_empty())
        .all(|w| {
            w.chars().all(|c| c.is_ascii_digit())
                || JOINERS.contains(&w.to_ascii_lowercase().as_str())
        })
}

/// Whether text before a line's first step is a label (`Pick up b:`, `**Plan**:`,
/// `Step one:`): it ends with `:` once emphasis is trimmed, and is short.
fn is_label(lead: &str) -> bool {
    let t = lead
        .trim()
        .trim_end_matches(|c: char| matches!(c, '*' | '_' | '`') || c.is_whitespace());
    t.ends_with(':') && t.chars().count() <= 200 && !t.contains(['(', ')'])
}

struct Reader<'a> {
    text: &'a str,
    /// The end of the line (moved on by a step written over several lines).
    end: usize,
    /// The end of the region the line is in.
    limit: usize,
}

impl Reader<'_> {
    fn rest(&self, pos: usize) -> &str {
        self.text.get(pos..self.end).unwrap_or("")
    }

    fn at(&self, pos: usize) -> Option<u8> {
        (pos < self.end).then(|| self.text.as_bytes()[pos])
    }

    fn skip_blanks(&self, mut pos: usize) -> usize {
        while self.at(pos).is_some_and(is_blank) {
            pos += 1;
        }
        pos
    }

    /// Emphasis and inline-code marks before an item's content: `**`, `__`, `*`, `_`, `` ` ``
    /// (a `*` or `-` followed by a blank is a bullet, not emphasis).
    fn skip_emphasis(&self, mut pos: usize) -> usize {
        loop {
            let rest = self.rest(pos);
            let single = rest.starts_with('`')
                || ((rest.starts_with('*') || rest.starts_with('_'))
                    && rest[1..].chars().next().is_some_and(|c| !c.is_whitespace()));
            let n = if rest.starts_with("**") || rest.starts_with("__") {
                2
            } else if single {
                1
            } else {
                return pos;
            };
            pos = self.skip_blanks(pos + n);
        }
    }

    /// A list marker at `pos`: where it ends, and its kind.
    fn list_marker(&self, pos: usize) -> Option<(usize, Marker)> {
        let s = self.rest(pos);
        let followed_ok = |rest: &str| {
            rest.chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '`' | '*' | '_'))
        };
        for bullet in ["-", "*", "+", "•", "–"] {
            if let Some(rest) = s.strip_prefix(bullet)
                && rest
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_whitespace() || c == '(')
            {
                return Some((pos + bullet.len(), Marker::Bullet));
            }
        }
        let number = |digits: &str| digits.parse::<u32>().ok();
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        // `1.1 `, `2.3.1 `: outline numbering, read as its first number.
        let outline = s
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        if (1..=6).contains(&digits)
            && outline > digits + 1
            && s.as_bytes()[digits] == b'.'
            && s.as_bytes()[outline - 1].is_ascii_digit()
            && s[outline..].starts_with(|c: char| c.is_whitespace())
            && !s[outline..].trim_start().starts_with(':')
        {
            return Some((pos + outline, Marker::Numbered(number(&s[..digits])?)));
        }
        if (1..=6).contains(&digits) {
            let rest = &s[digits..];
            // `1.`, `1)`, `1-` (seen in GPT-4's replies) and `1:`; `0.5:` and `1: (a) [2]`
            // are timestamps ([`Reader::timestamp`]).
            if let Some(after) = rest.strip_prefix(['.', ')', '-', ':'])
                && !after.starts_with(|c: char| c.is_ascii_digit())
                && followed_ok(after)
                && !(rest.starts_with(':') && self.timestamp(pos).is_some())
                && !(rest.starts_with(':') && after.trim_start().starts_with('('))
            {
                return Some((pos + digits + 1, Marker::Numbered(number(&s[..digits])?)));
            }
            return None;
        }
        if let Some(inner) = s.strip_prefix('(') {
            let n = inner.bytes().take_while(u8::is_ascii_digit).count();
            if (1..=6).contains(&n) && inner[n..].starts_with(')') && followed_ok(&inner[n + 1..]) {
                return Some((pos + n + 2, Marker::Numbered(number(&inner[..n])?)));
            }
        }
        // `Step 3:`, `Step 3.`, `Action 3:`.
        let lower = s.get(..s.len().min(12)).unwrap_or("").to_ascii_lowercase();
        for word in ["step", "action"] {
            if let Some(rest) = lower.strip_prefix(word) {
                let blanks = rest.len() - rest.trim_start().len();
                let rest = rest.trim_start();
                let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                if n > 0 && rest[n..].starts_with([':', '.', ')']) {
                    let at = pos + word.len() + blanks;
                    let value = number(self.text.get(at..at + n)?)?;
                    let mut end = at + n + 1;
                    // `**Step 1:**`: the emphasis closes after the marker.
                    while matches!(self.at(end), Some(b'*' | b'_')) {
                        end += 1;
                    }
                    return Some((end, Marker::Numbered(value)));
                }
            }
        }
        None
    }

    /// `0.5: ` or `3: ` before a `(`: the time (as in plan files), and where the `(` is.
    fn timestamp(&self, pos: usize) -> Option<(f64, usize)> {
        let s = self.rest(pos);
        let n = s
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let colon = self.skip_blanks(pos + n);
        if n == 0 || self.at(colon) != Some(b':') {
            return None;
        }
        let value: f64 = s[..n].parse().ok()?;
        let open = self.skip_blanks(colon + 1);
        if self.at(open) != Some(b'(') {
            return None;
        }
        Some((value, open))
    }

    /// `[d]` after a step: the duration and where it ends.
    fn duration(&self, pos: usize) -> Option<(f64, usize)> {
        let open = self.skip_blanks(pos);
        if self.at(open) != Some(b'[') {
            return None;
        }
        let close = self.rest(open).find(']')? + open;
        let value: f64 = self.text.get(open + 1..close)?.trim().parse().ok()?;
        Some((value, close + 1))
    }

    /// What an item's content at `pos` is, and the label before its steps.
    fn content(&mut self, pos: usize, bare_ok: bool) -> (Content, Option<(usize, usize)>) {
        let first = self.at(pos);
        if first == Some(b';') {
            let body = self.rest(pos + 1);
            return (Content::Comment(cost_comment(body.trim_end())), None);
        }
        let (items, cut) = self.items(pos, true);
        let Some(first_item) = items.first() else {
            if cut.is_some() {
                // `(b` alone: a step cut off, or prose in parentheses (which may still
                // mention steps).
                return match self.broken_or_prose(pos) {
                    Content::Prose(_) => (Content::Prose(self.items(pos + 1, false).0), None),
                    broken => (broken, None),
                };
            }
            if bare_ok && let Some(step) = self.bare_words(pos) {
                return (Content::Steps(vec![step], Syntax::Bare), None);
            }
            return (self.broken_or_prose(pos), None);
        };
        let syntax = if first_item.time.is_some()
            || self.text.as_bytes()[first_item.span.start as usize] == b'('
        {
            Syntax::Paren
        } else {
            Syntax::Call
        };
        let lead_at = first_item.span.start as usize;
        let lead = self.text.get(pos..lead_at).unwrap_or("");
        if lead.trim().is_empty() || is_joining(lead) {
            return (Content::Steps(items, syntax), None);
        }
        // A label, then perhaps a list number: `Pick up b: (pick-up b)`, `Plan: 1. (a x)`.
        if let Some(colon) = lead.rfind(':')
            && is_label(&lead[..=colon])
            && is_joining(&lead[colon + 1..])
        {
            return (Content::Steps(items, syntax), Some((pos, pos + colon + 1)));
        }
        (Content::Prose(items), None)
    }

    /// Every step-shaped item on the line from `pos`: parenthesised forms (the first may be
    /// timed and go on over the next lines, as in plan files) and calls, up to a `;`
    /// comment or a `//` note. The second value is `Some` when a form started but was cut
    /// off before any item was read (`(a x) (b` has one item; `(b` alone none).
    fn items(&mut self, pos: usize, first_may_span_lines: bool) -> (Vec<PlanStep>, Option<usize>) {
        let bytes = self.text.as_bytes();
        let mut steps: Vec<PlanStep> = Vec::new();
        let mut i = pos;
        while i < self.end {
            let b = bytes[i];
            if b == b';' {
                // `(a x); (b y)` joins steps; `(a x) ; a note` starts a comment.
                let next = self.skip_blanks(i + 1);
                if self.at(next) == Some(b'(') || self.call_at(next) {
                    i = next;
                    continue;
                }
                break;
            }
            if b == b'/' && self.at(i + 1) == Some(b'/') {
                break;
            }
            let at_start = i == pos;
            if at_start
                && let Some((t, open)) = self.timestamp(i)
                && let Some((mut step, after)) = self.paren_form(open, first_may_span_lines)
            {
                step.span = span(i, step.span.end as usize);
                step.time = Some(t);
                i = self.with_duration(&mut step, after);
                steps.push(step);
                continue;
            }
            if b == b'(' {
                let multi = first_may_span_lines && steps.is_empty() && at_start;
                match self.paren_form(i, multi) {
                    Some((mut step, after)) => {
                        i = self.with_duration(&mut step, after);
                        steps.push(step);
                    }
                    None if at_start => {
                        // A line that opens with a form that does not close is read whole
                        // as a step that is not well formed (or prose), never by what is
                        // inside it (`(drive-truck t2(l2-0 l2-1 c2)`).
                        return (Vec::new(), Some(i));
                    }
                    None => i += 1,
                }
                continue;
            }
            if (b.is_ascii_alphabetic() || b >= 0x80)
                && !self.text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
            {
                if let Some((step, after)) = self.call(i) {
                    steps.push(step);
                    i = after;
                    continue;
                }
                // Past the word.
                let w = self.rest(i);
                let n = w
                    .char_indices()
                    .find(|&(_, c)| !is_name_char(c))
                    .map_or(w.len(), |(k, _)| k);
                i += n.max(1);
                while !self.text.is_char_boundary(i) {
                    i += 1;
                }
                continue;
            }
            i += self.rest(i).chars().next().map_or(1, char::len_utf8);
        }
        (steps, None)
    }

    fn with_duration(&self, step: &mut PlanStep, after: usize) -> usize {
        match self.duration(after) {
            Some((d, end)) => {
                step.duration = Some(d);
                step.span = span(step.span.start as usize, end);
                end
            }
            None => after,
        }
    }

    /// Whether a call `name(` starts at `pos`.
    fn call_at(&self, pos: usize) -> bool {
        let rest = self.rest(pos);
        let ident = rest
            .char_indices()
            .find(|&(_, c)| !is_name_char(c))
            .map_or(rest.len(), |(i, _)| i);
        ident > 0 && rest[ident..].starts_with('(')
    }

    /// A line whose parentheses do not match and whose words are all name-like, the first
    /// an action word (`Unload-truck p3 t1 l1-0)`, `(drive-truck t2(l2-0 l2-1 c2)`, `(push
    /// f5-8f f6-8f box2 down` cut off): [`Content::Broken`]. Anything else is prose.
    fn broken_or_prose(&self, pos: usize) -> Content {
        let rest = self.rest(pos);
        let body = rest.split(';').next().unwrap_or("").trim_end();
        let (opens, closes) = (body.matches('(').count(), body.matches(')').count());
        if opens == closes {
            return Content::Prose(Vec::new());
        }
        let words: Vec<&str> = body
            .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ','))
            .filter(|w| !w.is_empty())
            .collect();
        let ok = words.first().is_some_and(|w| is_action_word(w))
            && words.iter().skip(1).all(|w| is_arg_word(w));
        if ok {
            broken(self.text, pos, pos + body.len())
        } else {
            Content::Prose(Vec::new())
        }
    }

    /// Words between `from` and `to`, split at blanks, line breaks and commas (a `;`
    /// comment inside a step written over lines skipped), without quotes around them: their
    /// byte ranges.
    fn words(&self, from: usize, to: usize) -> Vec<(usize, usize)> {
        let bytes = self.text.as_bytes();
        let sep = |b: u8| is_blank(b) || b == b',' || b == b'\n';
        let mut out = Vec::new();
        let mut i = from;
        while i < to {
            let b = bytes[i];
            if sep(b) {
                i += 1;
                continue;
            }
            if b == b';' {
                i = line_end(bytes, i).min(to);
                continue;
            }
            let s = i;
            while i < to && !sep(bytes[i]) && bytes[i] != b';' {
                i += 1;
            }
            let (a, b) = unquote(self.text, s, i);
            if a < b {
                out.push((a, b));
            } else if s < i {
                // `""`: an empty name, which no step has.
                out.push((s, i));
            }
        }
        out
    }

    fn step(&self, words: &[(usize, usize)], start: usize, end: usize) -> Option<PlanStep> {
        let word = |&(a, b): &(usize, usize)| self.text.get(a..b).unwrap_or("");
        let (first, rest) = words.split_first()?;
        if !is_action_word(word(first)) || !rest.iter().all(|w| is_arg_word(word(w))) {
            return None;
        }
        let name = |w: &(usize, usize)| Name::new(word(w), span(w.0, w.1));
        Some(PlanStep {
            action: name(first),
            args: rest.iter().map(name).collect(),
            time: None,
            duration: None,
            span: span(start, end),
        })
    }

    /// `(a x)` at `open`: the step and the offset after its `)`. `None` when the group is
    /// not closed (on this line, or with `multi_line`, before a blank line), nests another
    /// group, or its words are not a step. A group closed on a later line moves the line's
    /// end there.
    fn paren_form(&mut self, open: usize, multi_line: bool) -> Option<(PlanStep, usize)> {
        let bytes = self.text.as_bytes();
        let limit = if multi_line { self.limit } else { self.end };
        let mut i = open + 1;
        let mut newline = false;
        let close = loop {
            match bytes.get(i).filter(|_| i < limit)? {
                b')' => break i,
                b'(' => return None,
                b'\n' => {
                    // Not past a blank line.
                    let next = line_end(bytes, i + 1).min(limit);
                    if self.text.get(i + 1..next)?.trim().is_empty() {
                        return None;
                    }
                    newline = true;
                }
                b';' if newline => {
                    // A comment inside a step written over lines: to its line's end.
                    i = line_end(bytes, i).min(limit) - 1;
                }
                _ => {}
            }
            i += 1;
        };
        let words = self.words(open + 1, close);
        let step = self.step(&words, open, close + 1)?;
        if close >= self.end {
            self.end = line_end(bytes, close).min(self.limit);
        }
        Some((step, close + 1))
    }

    /// A call `name(arg, arg)` at `pos` (arguments may be quoted): the step and the offset
    /// after its `)`.
    fn call(&self, pos: usize) -> Option<(PlanStep, usize)> {
        let rest = self.rest(pos);
        let ident = rest
            .char_indices()
            .find(|&(_, c)| !is_name_char(c))
            .map_or(rest.len(), |(i, _)| i);
        if ident == 0 || !rest[ident..].starts_with('(') {
            return None;
        }
        let open = pos + ident;
        let close = self.rest(open + 1).find([')', '(']).map(|i| open + 1 + i)?;
        if self.at(close) != Some(b')') {
            return None;
        }
        let mut words = vec![(pos, open)];
        words.extend(self.words(open + 1, close));
        let step = self.step(&words, pos, close + 1)?;
        Some((step, close + 1))
    }

    /// `pick-up a b` from `pos`: name-like words up to the end of the line or a note (` - `,
    /// ` — `, `:`, `;`, `(`, `#`, `//`); a trailing `.`, `,` or emphasis is markup.
    fn bare_words(&self, pos: usize) -> Option<PlanStep> {
        let rest = self.rest(pos);
        let mut stop = rest.len();
        for sep in [
            " - ", " – ", " — ", " -- ", ";", " (", "(", " #", " //", ": ", " → ", " ->",
        ] {
            if let Some(i) = rest.find(sep) {
                stop = stop.min(i);
            }
        }
        if rest.ends_with(':') {
            stop = stop.min(rest.len() - 1);
        }
        let mut body = rest[..stop].trim_end();
        loop {
            let trimmed = body.trim_end_matches(['.', ',', '*', '`', '_', ':', '!', '?']);
            let trimmed = trimmed.trim_end();
            if trimmed.len() == body.len() {
                break;
            }
            body = trimmed;
        }
        if body.is_empty() || body.contains(',') {
            return None;
        }
        let words = self.words(pos, pos + body.len());
        // `Then: done`, `Note: ...`: a label, not a step.
        if words.len() == 1 && rest[stop..].starts_with(':') {
            return None;
        }
        self.step(&words, pos, pos + body.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(s: &str, bare_ok: bool) -> Content {
        read_line(s, 0, s.len(), s.len(), bare_ok).content
    }

    fn texts(c: &Content) -> Vec<String> {
        match c {
            Content::Steps(s, _) => s.iter().map(PlanStep::text).collect(),
            Content::Broken(s) => vec![format!("broken {}", s.action.text)],
            Content::Prose(items) if items.is_empty() => vec!["Prose".into()],
            Content::Prose(items) => items
                .iter()
                .map(|s| format!("prose {}", s.text()))
                .collect(),
            other => vec![format!("{other:?}")],
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(texts(&content("1. (pick-up a)", false)), ["(pick-up a)"]);
        assert_eq!(
            texts(&content("**(unstack c a)** — free a", false)),
            ["(unstack c a)"]
        );
        assert_eq!(
            texts(&content("Step 3: (drop a), (wait); (rest)", false)),
            ["(drop a)", "(wait)", "(rest)"]
        );
        assert_eq!(
            texts(&content("1. **Feast(c, b)**:", false)),
            ["(Feast c b)"]
        );
        assert_eq!(texts(&content("- stack a zz", false)), ["(stack a zz)"]);
        assert_eq!(texts(&content("stack a zz", false)), ["Prose"]);
        assert_eq!(texts(&content("stack a zz", true)), ["(stack a zz)"]);
        assert_eq!(
            texts(&content("(stack a b) ; again", false)),
            ["(stack a b)"]
        );
        assert_eq!(
            texts(&content("Unload-truck p3 t1 l1-0)", false)),
            ["broken Unload-truck p3 t1 l1-0)"]
        );
        assert_eq!(
            texts(&content("(push f5-8f f6-8f box2 down", false)),
            ["broken (push f5-8f f6-8f box2 down"]
        );
        assert_eq!(
            texts(&content("Then unload it (carefully).", false)),
            ["prose (carefully)"]
        );
        // Several steps on a line, however joined; labels before them.
        assert_eq!(
            texts(&content("1. (pick-up a) 2. (stack a b)", false)),
            ["(pick-up a)", "(stack a b)"]
        );
        assert_eq!(
            texts(&content("- (pick-up a), then (stack a b)", false)),
            ["(pick-up a)", "(stack a b)"]
        );
        assert_eq!(
            texts(&content(
                "(pick-up a) and (stack a b) → (put-down c)",
                false
            )),
            ["(pick-up a)", "(stack a b)", "(put-down c)"]
        );
        assert_eq!(
            texts(&content("pick-up(\"a\") -> stack('a', \"b\")", false)),
            ["(pick-up a)", "(stack a b)"]
        );
        let labelled = read_line("1. Pick up b: (pick-up b)", 0, 25, 25, false);
        assert_eq!(texts(&labelled.content), ["(pick-up b)"]);
        assert_eq!(labelled.label, Some((3, 13)));
        assert_eq!(
            texts(&content("Initially (on a b) holds.", false)),
            ["prose (on a b)"]
        );
        // A list in brackets (o1-preview, PlanBench's unsolvable blocksworld #68).
        assert_eq!(texts(&content("[(unstack d b)", false)), ["(unstack d b)"]);
        assert_eq!(
            texts(&content("First, (pick-up a). Then (stack a b).", false)),
            ["(pick-up a)", "(stack a b)"]
        );
        assert_eq!(texts(&content("(pick-up ?x)", false)), ["Prose"]);
        assert_eq!(
            texts(&content("- First, pick up the ball.", false)),
            ["Prose"]
        );
        assert_eq!(texts(&content("- Then: done", false)), ["Prose"]);
        let two = "(move\n  a ; from\n b) (c)\n(d)";
        let line = read_line(two, 0, 5, two.len(), false);
        assert_eq!(texts(&line.content), ["(move a b)", "(c)"]);
        assert_eq!(&two[line.start..line.end], "(move\n  a ; from\n b) (c)");
        assert_eq!(texts(&content("(move\n\n a)", false)), ["Prose"]);
        let timed = read_line("0.5: (a b) [1.0]", 0, 16, 16, false);
        let (steps, _) = timed.steps().expect("a step");
        assert_eq!((steps[0].time, steps[0].duration), (Some(0.5), Some(1.0)));
        assert_eq!(
            read_line("4: stack c a", 0, 12, 12, false).marker,
            Marker::Numbered(4)
        );
    }
}
