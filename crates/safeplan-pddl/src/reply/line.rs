//! One line of a reply read by its shape alone: its indentation, its list marker, and what
//! its content is — steps in one of three syntaxes, a step that is not well formed, a
//! comment, or prose. No name of the task is looked at here: whether a line is a step never
//! depends on whether the step is right.

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
    /// Anything else.
    Prose,
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
        content: Content::Blank,
    };
    let mut r = Reader { text, end, limit };
    if pos >= end || r.rest(pos).trim().is_empty() {
        return line;
    }
    if r.rest(pos).starts_with('#') && !r.rest(pos).starts_with("#t") {
        line.heading = true;
        line.content = Content::Prose;
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
    line.content = r.content(pos, bare_ok);
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

    /// What an item's content at `pos` is.
    fn content(&mut self, pos: usize, bare_ok: bool) -> Content {
        let first = self.at(pos);
        if first == Some(b';') {
            let body = self.rest(pos + 1);
            return Content::Comment(cost_comment(body.trim_end()));
        }
        if first == Some(b'(') || self.timestamp(pos).is_some() {
            return match self.paren_steps(pos) {
                Some(steps) => Content::Steps(steps, Syntax::Paren),
                None => self.broken_or_prose(pos),
            };
        }
        if !first.is_some_and(|b| b.is_ascii_alphabetic() || b >= 0x80) {
            return Content::Prose;
        }
        if let Some(steps) = self.calls(pos) {
            return Content::Steps(steps, Syntax::Call);
        }
        if bare_ok && let Some(step) = self.bare_words(pos) {
            return Content::Steps(vec![step], Syntax::Bare);
        }
        self.broken_or_prose(pos)
    }

    /// A line whose parentheses do not match and whose words are all name-like, the first
    /// an action word (`Unload-truck p3 t1 l1-0)`, `(drive-truck t2(l2-0 l2-1 c2)`, `(push
    /// f5-8f f6-8f box2 down` cut off): [`Content::Broken`]. Anything else is prose.
    fn broken_or_prose(&self, pos: usize) -> Content {
        let rest = self.rest(pos);
        let body = rest.split(';').next().unwrap_or("").trim_end();
        let (opens, closes) = (body.matches('(').count(), body.matches(')').count());
        if opens == closes {
            return Content::Prose;
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
            Content::Prose
        }
    }

    /// Words between `from` and `to`, split at blanks, line breaks and commas (a `;`
    /// comment inside a step written over lines skipped): their byte ranges.
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
            out.push((s, i));
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
    /// not closed before a blank line, nests another group, or its words are not a step. A
    /// group closed on a later line moves the line's end there.
    fn paren_form(&mut self, open: usize) -> Option<(PlanStep, usize)> {
        let bytes = self.text.as_bytes();
        let mut i = open + 1;
        let mut newline = false;
        let close = loop {
            match bytes.get(i).filter(|_| i < self.limit)? {
                b')' => break i,
                b'(' => return None,
                b'\n' => {
                    // Not past a blank line.
                    let next = line_end(bytes, i + 1).min(self.limit);
                    if self.text.get(i + 1..next)?.trim().is_empty() {
                        return None;
                    }
                    newline = true;
                }
                b';' if newline || self.text.get(i..self.end).is_none() => {
                    // A comment inside a step written over lines: to its line's end.
                    i = line_end(bytes, i).min(self.limit) - 1;
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

    /// Separators between two steps on one line: blanks, `,`, `;` (when a step follows),
    /// `.`, `->`, `=>`, `→`, and emphasis marks. Returns where the next step would start.
    fn separators(&self, mut pos: usize) -> usize {
        loop {
            let rest = self.rest(pos);
            let n = [
                " ", "\t", ",", ".", "->", "=>", "→", "**", "*", "`", "_", ";",
            ]
            .into_iter()
            .find(|s| rest.starts_with(s))
            .map(str::len);
            match n {
                // A `;` separates steps only when a step follows; else it starts a comment.
                Some(1) if rest.starts_with(';') => {
                    let next = self.skip_blanks(pos + 1);
                    if self.at(next) == Some(b'(') {
                        pos = next;
                    } else {
                        return pos;
                    }
                }
                Some(n) => pos += n,
                None => return pos,
            }
        }
    }

    /// Parenthesised steps from `pos` (each optionally timed), one after another on the
    /// line; what follows the last is a note.
    fn paren_steps(&mut self, mut pos: usize) -> Option<Vec<PlanStep>> {
        let mut steps = Vec::new();
        loop {
            let (time, open) = match self.timestamp(pos) {
                Some((t, open)) => (Some(t), open),
                None => (None, pos),
            };
            if self.at(open) != Some(b'(') {
                break;
            }
            let Some((mut step, mut after)) = self.paren_form(open) else {
                // `(a x) (b` or `(a x) (see above)`: the steps before are the line's steps
                // only when the rest is not a step that is cut off.
                if steps.is_empty() {
                    return None;
                }
                break;
            };
            if time.is_some() {
                step.span = span(pos, step.span.end as usize);
                step.time = time;
            }
            if let Some((d, end)) = self.duration(after) {
                step.duration = Some(d);
                step.span = span(step.span.start as usize, end);
                after = end;
            }
            steps.push(step);
            pos = self.separators(after);
        }
        (!steps.is_empty()).then_some(steps)
    }

    /// `name(arg, arg)` calls from `pos`, one after another on the line.
    fn calls(&self, mut pos: usize) -> Option<Vec<PlanStep>> {
        let mut steps = Vec::new();
        loop {
            let rest = self.rest(pos);
            let ident = rest
                .char_indices()
                .find(|&(_, c)| !is_name_char(c))
                .map_or(rest.len(), |(i, _)| i);
            if ident == 0 || !rest[ident..].starts_with('(') {
                break;
            }
            let open = pos + ident;
            let Some(close) = self.rest(open + 1).find([')', '(']).map(|i| open + 1 + i) else {
                break;
            };
            if self.at(close) != Some(b')') {
                break;
            }
            let mut words = vec![(pos, open)];
            words.extend(self.words(open + 1, close));
            let Some(step) = self.step(&words, pos, close + 1) else {
                break;
            };
            steps.push(step);
            pos = self.separators(close + 1);
        }
        (!steps.is_empty()).then_some(steps)
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
            ["Prose"]
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
