//! The coverage invariant, checked apart from the rules that read (docs/FORMAT.md,
//! "Coverage"): every step-shaped item inside the statement read is a step of the plan
//! read, a fact of the task, or in a note. `read_reply` asserts it in debug builds, so every
//! test that reads a reply — the construction tests over every corpus plan among them —
//! checks it.
//!
//! The scan here is deliberately simpler than the reader's: an item is `(` name-like words
//! `)` on one line, whatever stands around it (a call `name(args)` is found by its
//! parenthesis). It finds fewer items than the reader (none written over several lines),
//! never different ones, so a violation is a reading that skipped a step.

use crate::ast::PlanStep;
use crate::plan::line_end;

use super::Vocabulary;
use super::line::{is_action_word, is_arg_word};
use super::statement::{Origin, Statement};

/// The step-shaped items of `answer` inside `st` that the plan `steps` does not account
/// for, each as `offset: text` (empty when the invariant holds).
pub(super) fn violations(
    answer: &str,
    st: &Statement,
    steps: &[PlanStep],
    vocabulary: Option<&Vocabulary>,
) -> Vec<String> {
    if st.origin == Origin::Json || st.steps.is_empty() {
        return Vec::new();
    }
    let bytes = answer.as_bytes();
    let (from, to) = (
        st.span.start as usize,
        (st.span.end as usize).min(answer.len()),
    );
    // Both in order of where they start, and not overlapping: a binary search each.
    let claimed = |pos: usize| {
        let k = st.lines.partition_point(|&(a, _)| a <= pos);
        k > 0 && pos < st.lines[k - 1].1
    };
    let is_step = |pos: usize| {
        let k = steps.partition_point(|s| s.span.start as usize <= pos);
        k > 0 && pos < steps[k - 1].span.end as usize
    };
    let mut out = Vec::new();
    let mut ls = from;
    while ls < to {
        let le = line_end(bytes, ls).min(to);
        let line = answer.get(ls..le).unwrap_or("");
        // Text after a `;` or `//` that no step follows is a comment.
        let note_at = comment_start(line).map_or(le, |c| ls + c);
        let indented = line.starts_with([' ', '\t']);
        let found = items(line);
        for (k, &(o, inner)) in found.iter().enumerate() {
            let pos = ls + o;
            let words = words_of(inner);
            let fact = vocabulary.is_some_and(|v| words.first().is_some_and(|h| v.is_fact(h)));
            if fact || pos >= note_at || is_step(pos) {
                continue;
            }
            // A remark in a sentence (`(carefully)`): a note by the same rule as the reader's.
            let call = call_head(line, o);
            let (head, args) = match call {
                Some(h) => (h, &words[..]),
                None => (
                    words.first().copied().unwrap_or(""),
                    words.get(1..).unwrap_or(&[]),
                ),
            };
            // After another item and words that do not join steps: a remark by the same rule.
            let after_prose = k > 0 && {
                let prev_end = found[k - 1].0 + found[k - 1].1.len() + 2;
                let start = call.map_or(o, |h| o - h.len());
                line.get(prev_end.min(start)..start)
                    .is_some_and(|gap| !super::line::is_joining(gap))
            };
            if (!claimed(pos) || after_prose) && super::is_note_item(head, args, vocabulary) {
                continue;
            }
            // A line the statement does not claim holds notes (indented under an item, or a
            // labelled note); one at the margin would have made the reading unclear.
            if !claimed(pos) && indented {
                continue;
            }
            if !claimed(pos) && is_note_label(line) {
                continue;
            }
            out.push(format!("{pos}: ({inner})"));
        }
        ls = le + 1;
    }
    out
}

/// The words of an item's inside, split at blanks and commas, without quotes around them.
fn words_of(inner: &str) -> Vec<&str> {
    inner
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| "\"'`\u{201C}\u{201D}\u{2018}\u{2019}".contains(c)))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The name before the `(` at `open`, for a call.
fn call_head(line: &str, open: usize) -> Option<&str> {
    let before = &line[..open];
    let start = before
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_alphanumeric() || matches!(c, '-' | '_'))
        .last()
        .map(|(i, _)| i)?;
    Some(&before[start..])
}

/// `(words)` groups of one line whose words are a step's: the offset of the `(` and the
/// text inside.
fn items(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(rel) = line[i..].find('(') {
        let open = i + rel;
        let rest = &line[open + 1..];
        match rest.find(['(', ')']) {
            Some(k) if rest.as_bytes()[k] == b')' => {
                let inner = &rest[..k];
                let words = words_of(inner);
                let step_like = match call_head(line, open) {
                    // A call: the name before the `(` is the action.
                    Some(head) => {
                        head.starts_with(char::is_alphabetic)
                            && words.iter().all(|w| is_arg_word(w))
                    }
                    None => {
                        words.first().is_some_and(|w| is_action_word(w))
                            && words.iter().skip(1).all(|w| is_arg_word(w))
                    }
                };
                if step_like {
                    out.push((open, inner));
                }
                i = open + 1 + k + 1;
            }
            _ => i = open + 1,
        }
    }
    out
}

/// Where a comment starts on `line`: a `;` that no step follows at once, or `//`.
fn comment_start(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    for i in 0..b.len() {
        if b[i] == b';' {
            let next = line[i + 1..].trim_start();
            let ident = next
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_')))
                .unwrap_or(next.len());
            let call = ident > 0 && next[ident..].starts_with('(');
            if !next.starts_with('(') && !call {
                return Some(i);
            }
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            return Some(i);
        }
    }
    None
}

/// A line that starts with a note's label (`Verification: (a x) holds`). The label is what
/// the reader takes it to be: the text before the line's first item, up to its last `:`
/// (`2.010:effect: (a x)` has the label `2.010:effect:`).
fn is_note_label(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches(['-', '*', '•', ' ']);
    let lead = &t[..t.find('(').unwrap_or(t.len())];
    match lead.rfind(':') {
        Some(c) => {
            super::statement::label_announce(&t[..=c]) == super::statement::Announce::Commentary
        }
        None => false,
    }
}
