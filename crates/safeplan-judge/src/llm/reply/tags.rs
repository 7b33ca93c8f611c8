//! `#REMOVE` and `#MISSING` tags, and which of them are the model's own words rather than
//! a copy of a step that happens to contain one.

use crate::CritiqueKind;
use crate::llm::reply::matching::{Ctx, norm_char};
use crate::llm::reply::shape::{Shape, actions_in};

pub(in crate::llm) const TAG_REMOVE: &[char] = &['#', 'r', 'e', 'm', 'o', 'v', 'e'];
pub(in crate::llm) const TAG_MISSING: &[char] = &['#', 'm', 'i', 's', 's', 'i', 'n', 'g'];

/// The next tag at or after `from` in normalised characters: (position, kind, length).
pub(in crate::llm) fn find_tag(low: &[char], from: usize) -> Option<(usize, CritiqueKind, usize)> {
    let mut k = from;
    while k < low.len() {
        if low[k] == '#' {
            for (word, kind) in [
                (TAG_REMOVE, CritiqueKind::Remove),
                (TAG_MISSING, CritiqueKind::Missing),
            ] {
                let end = k + word.len();
                if low.get(k..end) == Some(word)
                    && !low.get(end).is_some_and(|c| c.is_alphanumeric())
                {
                    return Some((k, kind, word.len()));
                }
            }
        }
        k += 1;
    }
    None
}

/// A tag the model wrote, with the text after it on its line.
pub(in crate::llm) struct Tag {
    pub(in crate::llm) kind: CritiqueKind,
    /// The rest of the line after the tag, up to the next tag.
    pub(in crate::llm) reason: String,
}

impl Ctx<'_> {
    /// The tags of one line that are the model's own: not inside a copy of a step that
    /// itself contains a tag, not negated ("no #REMOVE needed"). `header_text` is where a
    /// header's step text starts (a char index), if the line is a header.
    pub(in crate::llm) fn tags_in_line(
        &self,
        line: &str,
        header_text: Option<usize>,
        notes: &mut Vec<String>,
    ) -> Vec<Tag> {
        let chars: Vec<char> = line.chars().collect();
        let low: Vec<char> = chars.iter().copied().map(norm_char).collect();
        let masked = self.mask_copies(&low, header_text);
        let mut found: Vec<(usize, CritiqueKind, usize)> = Vec::new();
        let mut from = 0;
        while let Some((k, kind, len)) = find_tag(&low, from) {
            from = k + len;
            if masked.get(k).copied().unwrap_or(false) {
                continue;
            }
            if let Some(step) = self.quoted_tag(&low, k, len) {
                notes.push(format!(
                    "ignored a #{} that quotes the text of {}",
                    kind.tag(),
                    self.step_label(step)
                ));
                continue;
            }
            if negated(&low, k) {
                continue;
            }
            found.push((k, kind, len));
        }
        let mut tags = Vec::new();
        for (n, &(k, kind, len)) in found.iter().enumerate() {
            let end = found.get(n + 1).map_or(chars.len(), |next| next.0);
            let reason: String = chars[(k + len).min(end)..end].iter().collect();
            let reason = reason
                .trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '*' | '_' | '`' | ':' | '-' | '–' | '—' | '"')
                })
                .trim_end_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '*' | '_' | '`' | ']' | '"' | '|')
                })
                .to_string();
            tags.push(Tag { kind, reason });
        }
        tags
    }

    /// Characters of `low` inside a copy of a step that contains a tag. A long copy is
    /// masked wherever it is; a short one (a step that is little more than a tag) only
    /// where it is clearly a copy: quoted, or as a header's step text.
    pub(in crate::llm) fn mask_copies(
        &self,
        low: &[char],
        header_text: Option<usize>,
    ) -> Vec<bool> {
        let mut masked = vec![false; low.len()];
        for (_, step) in &self.injected {
            if step.is_empty() || step.len() > low.len() {
                continue;
            }
            let long = step.iter().filter(|c| !c.is_whitespace()).count() >= 12;
            for a in 0..=(low.len() - step.len()) {
                if low[a..a + step.len()] != step[..] {
                    continue;
                }
                let b = a + step.len();
                let quoted = a > 0 && low.get(a - 1) == Some(&'\'') && low.get(b) == Some(&'\'');
                let at_header = header_text.is_some_and(|h| {
                    low.get(h..a)
                        .is_some_and(|gap| gap.iter().all(|c| !c.is_alphanumeric()))
                });
                if long || quoted || at_header {
                    masked[a..b].iter_mut().for_each(|m| *m = true);
                }
            }
        }
        masked
    }

    /// The step whose tag this one reproduces, if the text around the tag copies the text
    /// around a tag inside a step (4 or more characters besides the tag word).
    pub(in crate::llm) fn quoted_tag(&self, low: &[char], k: usize, len: usize) -> Option<usize> {
        for (step, chars) in &self.injected {
            let mut from = 0;
            while let Some((q, _, qlen)) = find_tag(chars, from) {
                from = q + qlen;
                if qlen != len || chars[q..q + qlen] != low[k..k + len] {
                    continue;
                }
                let ahead = common_run(low, k + len, chars, q + qlen, true);
                let behind = common_run(low, k, chars, q, false);
                if ahead + behind >= 4 {
                    return Some(*step);
                }
            }
        }
        None
    }
}

/// How many non-space characters `a` and `b` share going forward from `i`/`j` (or
/// backward from just before them), each side's spaces skipped on its own.
pub(in crate::llm) fn common_run(
    a: &[char],
    i: usize,
    b: &[char],
    j: usize,
    forward: bool,
) -> usize {
    let next = |s: &[char], mut p: Option<usize>| -> Option<usize> {
        loop {
            let at = p?;
            match s.get(at) {
                Some(c) if c.is_whitespace() => {
                    p = if forward {
                        at.checked_add(1)
                    } else {
                        at.checked_sub(1)
                    }
                }
                Some(_) => return Some(at),
                None => return None,
            }
        }
    };
    let step = |p: usize| {
        if forward {
            p.checked_add(1)
        } else {
            p.checked_sub(1)
        }
    };
    let (mut pa, mut pb) = if forward {
        (Some(i), Some(j))
    } else {
        (i.checked_sub(1), j.checked_sub(1))
    };
    let mut count = 0;
    loop {
        let (Some(x), Some(y)) = (next(a, pa), next(b, pb)) else {
            return count;
        };
        if a[x] != b[y] {
            return count;
        }
        count += 1;
        pa = step(x);
        pb = step(y);
    }
}

/// Whether the words just before position `k` negate the tag there ("no #REMOVE", "does
/// not need a #REMOVE tag", "no need for #MISSING"), but not a negative reason before a
/// real tag ("not needed #REMOVE: ...").
pub(in crate::llm) fn negated(low: &[char], k: usize) -> bool {
    let before: String = low[..k].iter().collect();
    let clause = before
        .rsplit(['.', '!', '?', ';', ':', ',', '—', '–', '(', ')', '[', ']'])
        .next()
        .unwrap_or("");
    let filler = |w: &str| {
        matches!(
            w,
            "a" | "an"
                | "any"
                | "the"
                | "for"
                | "need"
                | "needs"
                | "use"
                | "add"
                | "apply"
                | "tag"
                | "tags"
                | "with"
                | "require"
                | "requires"
                | "warrant"
                | "warrants"
                | "deserve"
                | "deserves"
                | "get"
                | "gets"
                | "is"
                | "are"
                | "here"
        )
    };
    for w in clause.split_whitespace().rev().take(5) {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        if matches!(w, "no" | "not" | "without" | "never" | "nor" | "neither") || w.ends_with("n't")
        {
            return true;
        }
        if !filler(w) {
            return false;
        }
    }
    false
}

/// A `#REMOVE` whose reason says there is nothing to remove ("#REMOVE: none").
pub(in crate::llm) fn is_none_reason(reason: &str) -> bool {
    let lower = reason.trim().to_lowercase();
    let first = lower
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
    lower.split_whitespace().count() <= 3 && matches!(first, "none" | "nothing" | "n/a" | "na")
}

/// Whether a tag's text says there is nothing to report ("#MISSING: none").
pub(in crate::llm) fn says_nothing(text: &str, shape: &Shape) -> bool {
    let lower = text.trim().to_lowercase();
    let first = lower
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
    if lower.is_empty() || matches!(first, "none" | "nothing" | "n/a" | "na") {
        return true;
    }
    let few_words = lower.split_whitespace().count() <= 8;
    few_words
        && first == "no"
        && ["needed", "required", "missing", "necessary"]
            .iter()
            .any(|w| lower.contains(w))
        && actions_in(text, shape).is_empty()
}
