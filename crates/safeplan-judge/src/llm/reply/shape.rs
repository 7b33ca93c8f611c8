//! What a step looks like in a reply: the plan's own shape (calls, s-expressions, words),
//! list markers, labels, backticks, and the actions a line holds.

use crate::Plan;

/// The notation of a plan, learnt from its own steps.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::llm) enum Shape {
    /// `Driver.PickUp('Mug')`, `PickUp(Mug)`: a call, with the common `Driver.` prefix if
    /// every call step has the same one.
    Call { prefix: Option<String> },
    /// `(pick cup table)`.
    SExpr,
    /// Anything else (free text).
    Free,
}

pub(in crate::llm) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(in crate::llm) fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The end (exclusive) of the parenthesised group opening at `open`, quotes respected.
/// `None` when it does not close on this line.
pub(in crate::llm) fn balanced_end(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in s.get(open..)?.char_indices() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                } else if c == '\n' {
                    return None;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' => depth += 1,
                ')' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(open + i + 1);
                    }
                }
                '\n' => return None,
                _ => {}
            },
        }
    }
    None
}

/// A call at the start of `s`: `Path.Verb(...)`. Returns its length in bytes and its
/// prefix (`Path.`, empty when none).
pub(in crate::llm) fn call_at(s: &str) -> Option<(usize, &str)> {
    let mut chars = s.char_indices().peekable();
    let mut last_dot = None;
    match chars.peek() {
        Some((_, c)) if is_ident_start(*c) => {}
        _ => return None,
    }
    let mut open = None;
    while let Some((i, c)) = chars.next() {
        if is_ident(c) {
            continue;
        }
        if c == '.' && chars.peek().is_some_and(|(_, n)| is_ident_start(*n)) {
            last_dot = Some(i);
            continue;
        }
        if c == '(' {
            open = Some(i);
        }
        break;
    }
    let open = open?;
    let end = balanced_end(s, open)?;
    let prefix = last_dot.map_or("", |d| &s[..=d]);
    Some((end, prefix))
}

/// An s-expression at the start of `s`: `(name ...)`; its length.
pub(in crate::llm) fn sexpr_at(s: &str) -> Option<usize> {
    if !s.starts_with('(') {
        return None;
    }
    let head = s.get(1..)?.trim_start();
    if !head.starts_with(is_ident_start) {
        return None;
    }
    balanced_end(s, 0)
}

pub(in crate::llm) fn shape_of(plan: &Plan) -> Shape {
    let n = plan.len();
    if n == 0 {
        return Shape::Free;
    }
    let mut sexprs = 0;
    let mut prefixes: Vec<&str> = Vec::new();
    for step in &plan.steps {
        let t = step.text.trim();
        if sexpr_at(t) == Some(t.len()) {
            sexprs += 1;
        } else if let Some((len, prefix)) = call_at(t)
            && len == t.len()
        {
            prefixes.push(prefix);
        }
    }
    if sexprs * 2 > n {
        Shape::SExpr
    } else if prefixes.len() * 2 > n {
        let first = prefixes.first().copied().unwrap_or("");
        let common = !first.is_empty() && prefixes.iter().all(|p| *p == first);
        Shape::Call {
            prefix: common.then(|| first.to_string()),
        }
    } else {
        Shape::Free
    }
}

/// The action `s` starts with, in the plan's notation (wrapping backticks and bold left
/// out).
pub(in crate::llm) fn leading_action(s: &str, shape: &Shape) -> Option<String> {
    let s = s.trim().trim_start_matches(['`', '*']).trim_start();
    let len = match shape {
        Shape::Call { prefix } => {
            let (len, p) = call_at(s)?;
            match prefix {
                Some(want) if p != want => return None,
                _ => len,
            }
        }
        Shape::SExpr => sexpr_at(s)?,
        Shape::Free => return None,
    };
    Some(s[..len].to_string())
}

/// `s` as one action of the plan's notation, if it is exactly one (trailing punctuation
/// and wrapping quotes aside). For free-text plans any one-line text is taken as written.
pub(in crate::llm) fn whole_action(s: &str, shape: &Shape) -> Option<String> {
    let t = s
        .trim()
        .trim_matches(['`', '*'])
        .trim()
        .trim_end_matches([',', ';', '.'])
        .trim();
    if t.is_empty() || t.contains('\n') {
        return None;
    }
    if *shape == Shape::Free {
        return Some(t.to_string());
    }
    let a = leading_action(t, shape)?;
    (a.len() == t.len()).then_some(a)
}

/// Actions of the plan's notation written in `text`, with their byte positions: with a
/// distinctive prefix (`Driver.`) anywhere in prose; otherwise only as a whole backtick
/// span or at the head of a list item, where prose cannot be mistaken for one.
pub(in crate::llm) fn actions_in(text: &str, shape: &Shape) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    match shape {
        Shape::Free => {}
        Shape::Call {
            prefix: Some(prefix),
        } => {
            for (pos, _) in text.match_indices(prefix.as_str()) {
                let before = text[..pos].chars().next_back();
                if before.is_some_and(|c| is_ident(c) || c == '.') {
                    continue;
                }
                if let Some(a) = leading_action(&text[pos..], shape) {
                    out.push((pos, a));
                }
            }
        }
        Shape::Call { prefix: None } | Shape::SExpr => {
            let mut offset = 0;
            for line in text.split_inclusive('\n') {
                let (marked, rest) = strip_list_marker(line);
                if marked && let Some(a) = leading_action(rest, shape) {
                    out.push((offset + (line.len() - rest.len()), a));
                }
                offset += line.len();
            }
            for (pos, span) in backtick_spans(text) {
                if let Some(a) = whole_action(span, shape) {
                    out.push((pos, a));
                }
            }
            out.sort_by_key(|(p, _)| *p);
            out.dedup_by_key(|(p, _)| *p);
        }
    }
    out
}

/// Inline code spans: `(position of the content, content)`.
pub(in crate::llm) fn backtick_spans(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find('`').map(|i| rest + i) {
        let start = open + 1;
        let Some(close) = text[start..].find(['`', '\n']).map(|i| start + i) else {
            break;
        };
        if text[close..].starts_with('`') {
            out.push((start, &text[start..close]));
        }
        rest = close + 1;
    }
    out
}

/// A list marker at the start of `line` (`-`, `*`, `•`, `3.`, `3)`, `(3)`, `Step 3:`):
/// whether there was one, and the rest.
pub(in crate::llm) fn strip_list_marker(line: &str) -> (bool, &str) {
    let t = line.trim_start().trim_start_matches('>').trim_start();
    let t = strip_emphasis(t);
    for bullet in ["- ", "* ", "+ ", "• ", "– "] {
        if let Some(r) = t.strip_prefix(bullet) {
            return (true, r.trim_start());
        }
    }
    if let Some((_, r)) = list_number(t) {
        return (true, strip_emphasis(r));
    }
    if let Some((_, r)) = label(t) {
        return (true, r);
    }
    (false, t)
}

pub(in crate::llm) fn strip_emphasis(s: &str) -> &str {
    s.trim_start_matches(['*', '_']).trim_start()
}

/// A list number at the start of `s` (`3.`, `3)`, `3:`, `(3)`, `[3]`, `#3`), then
/// whitespace or the end: the number and the rest.
pub(in crate::llm) fn list_number(s: &str) -> Option<(usize, &str)> {
    let (inner, wrapped) = match s.strip_prefix(['(', '[', '#']) {
        Some(r) => (r, true),
        None => (s, false),
    };
    let digits = inner.len() - inner.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 4 {
        return None;
    }
    let n: usize = inner[..digits].parse().ok()?;
    let after = &inner[digits..];
    let after = match after.strip_prefix([')', ']', '.', ':']) {
        Some(r) => r,
        None if wrapped && s.starts_with('#') => after,
        None => return None,
    };
    let after = after.trim_start_matches(['*', '_']);
    if after.is_empty() || after.starts_with(char::is_whitespace) {
        Some((n, after.trim_start()))
    } else {
        None
    }
}

/// An `Action:` / `Step 3:` / `Action [3] -` label at the start of `s`: its number if it
/// has one, and the rest.
pub(in crate::llm) fn label(s: &str) -> Option<(Option<usize>, &str)> {
    let lower: String = s.chars().take(6).map(|c| c.to_ascii_lowercase()).collect();
    let rest = if lower == "action" {
        &s[6..]
    } else if lower.starts_with("step") {
        &s[4..]
    } else {
        return None;
    };
    let rest = rest.strip_prefix(['s', 'S']).unwrap_or(rest);
    let rest = rest.trim_start_matches(['*', '_']).trim_start();
    let rest = rest.trim_start_matches(['#', '[', '(']);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let number = if digits > 0 && digits <= 4 {
        rest[..digits].parse().ok()
    } else {
        None
    };
    let after = rest[digits..]
        .trim_start_matches([']', ')'])
        .trim_start_matches(['*', '_']);
    let after_trim = after.trim_start();
    let sep = after_trim.strip_prefix([':', '.', '-', '—', '–', '|']);
    match (number, sep) {
        (_, Some(r)) => Some((number, strip_emphasis(r.trim_start()))),
        (Some(_), None) if after_trim.is_empty() || after_trim.starts_with('(') => {
            Some((number, after_trim))
        }
        _ => None,
    }
}
