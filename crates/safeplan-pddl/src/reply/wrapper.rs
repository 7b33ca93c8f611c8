//! Wrappers around a plan's steps, read as the steps inside: `(plan …)`, `(:plan …)`,
//! `(seq …)`, `([PLAN] …)`, `(define (plan p) (:steps …))`, a `(` alone around the steps.

/// Every matched `open`…`close` pair of `bytes` (offsets of both), sorted by the opening
/// one: one pass with a stack, so matching costs nothing per lookup after it.
pub(super) fn pairs_of(bytes: &[u8], open: u8, close: u8) -> Vec<(usize, usize)> {
    nested_pairs(bytes, open, close)
        .into_iter()
        .map(|(o, c, _)| (o, c))
        .collect()
}

/// [`pairs_of`] with each pair's depth (0: outermost).
pub(super) fn nested_pairs(bytes: &[u8], open: u8, close: u8) -> Vec<(usize, usize, usize)> {
    let mut stack = Vec::new();
    let mut pairs = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if b == open {
            stack.push(i);
        } else if b == close
            && let Some(o) = stack.pop()
        {
            pairs.push((o, i, stack.len()));
        }
    }
    pairs.sort_unstable();
    pairs
}

/// `(plan ...)` and `(:plan ...)` wrappers: the head's byte range, the offset of the
/// matching `)`, and whether nothing but blanks stands inside.
pub(super) fn wrappers(text: &str) -> Vec<((usize, usize), usize, bool)> {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    if !lower.contains("plan") {
        return Vec::new();
    }
    // The matching `)` of every `(`, found once: a reply of a million `(plan ` costs one pass.
    let pairs = pairs_of(bytes, b'(', b')');
    let matching = |open: usize| {
        pairs
            .binary_search_by_key(&open, |p| p.0)
            .ok()
            .map(|k| pairs[k].1)
    };
    let mut out = Vec::new();
    for head in ["(:plan", "(plan"] {
        let mut from = 0;
        while let Some(rel) = lower[from..].find(head) {
            let open = from + rel;
            let after = open + head.len();
            from = after;
            let boundary = bytes
                .get(after)
                .is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'(' | b')'));
            if !boundary {
                continue;
            }
            let Some(i) = matching(open) else {
                continue;
            };
            // `(plan NAME)` in a `define` header is no wrapper: a wrapper holds steps or
            // nothing; and `(define (plan)` heads a plan definition, stating nothing.
            let header = lower[..open].trim_end().ends_with("(define");
            let inside = &text[after..i];
            if !header && (inside.contains('(') || inside.trim().is_empty()) {
                out.push(((open, after), i, inside.trim().is_empty()));
            }
        }
    }
    out
}

/// Lists that hold steps: a `(` whose content is only other parenthesised groups, after at
/// most a few keyword-like head words (`(` alone on its line around the steps,
/// `(define (plan NAME) (:steps ...))`, `(:actions ...)`). The byte ranges to blank: each
/// container's `(`, head words and `)`, and the `(plan NAME)`-style header groups of a
/// `define`.
pub(super) fn containers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let pairs = pairs_of(bytes, b'(', b')');
    let children = |o: usize, c: usize| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = o + 1;
        while i < c {
            if bytes[i] == b'(' {
                match pairs.binary_search_by_key(&i, |p| p.0) {
                    Ok(k) => {
                        out.push(pairs[k]);
                        i = pairs[k].1 + 1;
                    }
                    Err(_) => return Vec::new(),
                }
            } else {
                i += 1;
            }
        }
        out
    };
    let mut out = Vec::new();
    for &(o, c) in &pairs {
        let kids = children(o, c);
        if kids.is_empty() {
            continue;
        }
        // What stands outside the children: blanks, comments and head words only.
        let mut outside = String::new();
        let mut last = o + 1;
        for &(ko, kc) in &kids {
            outside.push_str(text.get(last..ko).unwrap_or(""));
            outside.push(' ');
            last = kc + 1;
        }
        outside.push_str(text.get(last..c).unwrap_or(""));
        let words: Vec<&str> = outside
            .lines()
            .map(|l| l.split(';').next().unwrap_or(""))
            .flat_map(str::split_whitespace)
            .collect();
        let head_ok = words.len() <= 2
            && words.iter().all(|w| {
                let w = w.to_ascii_lowercase();
                w.starts_with(':')
                    || matches!(
                        w.as_str(),
                        "define" | "plan" | "steps" | "actions" | "sequence" | "seq" | "[plan]"
                    )
            });
        if !head_ok {
            continue;
        }
        // Blank the container's own `(`, head words and `)`.
        let head_end = kids[0].0;
        out.push((o, head_end));
        out.push((c, c + 1));
        let kids_after = &kids[..];
        for w in kids_after.windows(2) {
            out.push((w[0].1 + 1, w[1].0));
        }
        if let Some(last) = kids.last() {
            out.push((last.1 + 1, c));
        }
        // The header groups of a `define`: `(plan NAME)`, `(problem NAME)`, `(:domain NAME)`.
        if words.iter().any(|w| w.eq_ignore_ascii_case("define")) {
            for &(ko, kc) in &kids {
                let inner = text
                    .get(ko + 1..kc)
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                let head = inner.split_whitespace().next().unwrap_or("");
                if matches!(head, "plan" | "problem" | "domain" | ":domain" | ":problem") {
                    out.push((ko, kc + 1));
                }
            }
        }
    }
    out
}
