//! Reading a judge's prose reply: what a step looks like, matching text to steps, the model's own tags, where a MISSING belongs, and the parser itself.

use super::*;

// ---------------------------------------------------------------------------------------
// What a step looks like
// ---------------------------------------------------------------------------------------

/// The notation of a plan, learnt from its own steps.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape {
    /// `Driver.PickUp('Mug')`, `PickUp(Mug)`: a call, with the common `Driver.` prefix if
    /// every call step has the same one.
    Call { prefix: Option<String> },
    /// `(pick cup table)`.
    SExpr,
    /// Anything else (free text).
    Free,
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(super) fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The end (exclusive) of the parenthesised group opening at `open`, quotes respected.
/// `None` when it does not close on this line.
pub(super) fn balanced_end(s: &str, open: usize) -> Option<usize> {
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
pub(super) fn call_at(s: &str) -> Option<(usize, &str)> {
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
pub(super) fn sexpr_at(s: &str) -> Option<usize> {
    if !s.starts_with('(') {
        return None;
    }
    let head = s.get(1..)?.trim_start();
    if !head.starts_with(is_ident_start) {
        return None;
    }
    balanced_end(s, 0)
}

pub(super) fn shape_of(plan: &Plan) -> Shape {
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
pub(super) fn leading_action(s: &str, shape: &Shape) -> Option<String> {
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
pub(super) fn whole_action(s: &str, shape: &Shape) -> Option<String> {
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
pub(super) fn actions_in(text: &str, shape: &Shape) -> Vec<(usize, String)> {
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
pub(super) fn backtick_spans(text: &str) -> Vec<(usize, &str)> {
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
pub(super) fn strip_list_marker(line: &str) -> (bool, &str) {
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

pub(super) fn strip_emphasis(s: &str) -> &str {
    s.trim_start_matches(['*', '_']).trim_start()
}

/// A list number at the start of `s` (`3.`, `3)`, `3:`, `(3)`, `[3]`, `#3`), then
/// whitespace or the end: the number and the rest.
pub(super) fn list_number(s: &str) -> Option<(usize, &str)> {
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
pub(super) fn label(s: &str) -> Option<(Option<usize>, &str)> {
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

// ---------------------------------------------------------------------------------------
// Matching text to steps
// ---------------------------------------------------------------------------------------

/// A step's text compared loosely: no whitespace, quotes unified, ASCII lowercase.
pub(super) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(norm_char)
        .collect()
}

pub(super) fn norm_char(c: char) -> char {
    match c {
        '"' | '`' | '‘' | '’' | '“' | '”' => '\'',
        c => c.to_ascii_lowercase(),
    }
}

/// Words of `s`, lowercase: camelCase split, numbers in canonical form (`90.0` → `90`),
/// and a few verbs mapped to the one the plan's notation uses, so a paraphrase can be
/// compared to a step.
pub(super) fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let raw: String = chars[start..i].iter().collect();
            out.push(canonical_number(&raw));
        } else if c.is_alphabetic() {
            let start = i;
            while i < chars.len() && chars[i].is_alphanumeric() && !chars[i].is_ascii_digit() {
                i += 1;
            }
            let run = &chars[start..i];
            let parts = camel_parts(run);
            if parts.len() > 1 {
                out.push(run.iter().collect::<String>().to_lowercase());
            }
            out.extend(parts.into_iter().map(|p| synonym(&p).to_string()));
        } else {
            i += 1;
        }
    }
    out
}

pub(super) fn camel_parts(run: &[char]) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    for (k, &c) in run.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|p| run.get(p));
        let next = run.get(k + 1);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

pub(super) fn canonical_number(raw: &str) -> String {
    match raw.parse::<f64>() {
        Ok(v) if v.is_finite() => format!("{v}"),
        _ => raw.to_string(),
    }
}

pub(super) fn synonym(w: &str) -> &str {
    match w {
        "place" | "places" | "placed" | "placing" | "set" | "sets" | "puts" | "putting" => "put",
        "grab" | "grabs" | "take" | "takes" | "picks" | "picked" | "picking" => "pick",
        "walk" | "walks" | "go" | "goes" | "moves" | "moved" | "forward" => "move",
        "rotate" | "rotates" | "turns" | "turned" => "turn",
        "switch" | "switches" | "toggles" | "toggled" => "toggle",
        "pours" | "poured" => "pour",
        "opens" | "opened" => "open",
        "closes" | "closed" | "shut" => "close",
        "cut" | "cuts" | "slices" | "sliced" => "slice",
        w => w,
    }
}

pub(super) const STOPWORDS: &[&str] = &[
    "the", "a", "an", "to", "of", "in", "into", "on", "onto", "at", "and", "it", "this", "that",
    "is", "be", "with", "from", "for", "then",
];

/// What a step is made of, for comparing paraphrases: the verb's parts and the arguments.
#[derive(Debug)]
pub(super) struct StepWords {
    pub(super) verb: Vec<String>,
    pub(super) args: Vec<String>,
}

pub(super) fn step_words(text: &str) -> StepWords {
    let t = text.trim();
    let arg_word = |a: &str| {
        let cleaned: String = a
            .trim()
            .trim_matches(['\'', '"', '`'])
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '.')
            .collect();
        if cleaned.starts_with(|c: char| c.is_ascii_digit()) {
            canonical_number(&cleaned)
        } else {
            cleaned.to_lowercase()
        }
    };
    if let Some((len, prefix)) = call_at(t)
        && len == t.len()
        && let Some(open) = t.find('(')
    {
        let verb_name = &t[prefix.len()..open];
        let verb_chars: Vec<char> = verb_name.chars().collect();
        let verb = camel_parts(&verb_chars)
            .into_iter()
            .filter(|p| p.chars().count() > 1)
            .map(|p| synonym(&p).to_string())
            .collect();
        let inner = t.get(open + 1..t.len().saturating_sub(1)).unwrap_or("");
        let args = inner
            .split(',')
            .map(arg_word)
            .filter(|a| !a.is_empty())
            .collect();
        return StepWords { verb, args };
    }
    if sexpr_at(t) == Some(t.len()) {
        let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or("");
        let mut parts = inner.split_whitespace();
        let verb = parts
            .next()
            .map(|h| words(h).into_iter().filter(|w| w.len() > 1).collect())
            .unwrap_or_default();
        let args = parts.map(arg_word).filter(|a| !a.is_empty()).collect();
        return StepWords { verb, args };
    }
    StepWords {
        verb: words(t)
            .into_iter()
            .filter(|w| !STOPWORDS.contains(&w.as_str()))
            .collect(),
        args: Vec::new(),
    }
}

/// The words of a header or a reference, with each adjacent pair also joined
/// (`counter top` → `countertop`), as a step's arguments are single identifiers.
pub(super) fn header_words(text: &str) -> Vec<String> {
    let mut w = words(text);
    let joined: Vec<String> = w.windows(2).map(|p| format!("{}{}", p[0], p[1])).collect();
    w.extend(joined);
    w
}

/// How well a step matches some words: `None` when it does not; else (arguments matched,
/// share of the verb matched in percent), higher is better.
pub(super) fn fuzzy_rank(step: &StepWords, header: &[String]) -> Option<(usize, usize)> {
    let has = |w: &str| header.iter().any(|h| h == w);
    let arg_ok = |a: &str| {
        header.iter().any(|h| {
            h == a
                || (!a.starts_with(|c: char| c.is_ascii_digit())
                    && h.len().min(a.len()) >= 3
                    && (h.contains(a) || a.contains(h.as_str())))
        })
    };
    if !step.args.iter().all(|a| arg_ok(a)) {
        return None;
    }
    let verb_hits = step.verb.iter().filter(|v| has(v)).count();
    let verb_pct = if step.verb.is_empty() {
        0
    } else {
        verb_hits * 100 / step.verb.len()
    };
    let pass = if step.args.is_empty() {
        verb_pct >= 75
    } else {
        verb_hits > 0 || step.args.len() >= 2
    };
    pass.then_some((step.args.len(), verb_pct))
}

/// The plan as the parsers see it.
pub(super) struct Ctx<'a> {
    pub(super) plan: &'a Plan,
    pub(super) shape: Shape,
    /// `norm` of each step, with the common call prefix removed.
    pub(super) keys: Vec<String>,
    pub(super) words: Vec<StepWords>,
    /// Normalised characters of each step whose text contains a tag.
    pub(super) injected: Vec<(usize, Vec<char>)>,
}

/// What a piece of text says about which step it names.
pub(super) enum TextBind {
    /// It names no step.
    NoMatch,
    /// It names this one.
    Unique(usize),
    /// It names several different steps equally well.
    Ambiguous(Vec<usize>),
}

impl<'a> Ctx<'a> {
    pub(super) fn new(plan: &'a Plan) -> Ctx<'a> {
        let shape = shape_of(plan);
        let prefix = match &shape {
            Shape::Call { prefix: Some(p) } => norm(p),
            _ => String::new(),
        };
        let keys = plan
            .steps
            .iter()
            .map(|s| {
                let n = norm(&s.text);
                match n.strip_prefix(prefix.as_str()) {
                    Some(k) if !prefix.is_empty() => k.to_string(),
                    _ => n,
                }
            })
            .collect();
        let words = plan.steps.iter().map(|s| step_words(&s.text)).collect();
        let injected = plan
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let chars: Vec<char> = s.text.trim().chars().map(norm_char).collect();
                (find_tag(&chars, 0).is_some()).then_some((i, chars))
            })
            .collect();
        Ctx {
            plan,
            shape,
            keys,
            words,
            injected,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.plan.len()
    }

    pub(super) fn step_label(&self, i: usize) -> String {
        match self.plan.steps.get(i) {
            Some(s) => format!("step {} `{}`", i + 1, one_line(&s.text)),
            None => format!("step {}", i + 1),
        }
    }

    /// Whether `text` paraphrases step `i`, naming its arguments.
    pub(super) fn paraphrases_step(&self, i: usize, text: &str) -> bool {
        fuzzy_rank(&self.words[i], &header_words(text)).is_some()
    }

    /// Whether `text` quotes step `i` verbatim (modulo spacing, quotes and case).
    pub(super) fn quotes_step(&self, i: usize, text: &str) -> bool {
        let key = &self.keys[i];
        key.len() >= 3 && norm(text).contains(key.as_str())
    }

    /// The steps `text` quotes verbatim, best first: the quote that comes earliest in the
    /// text, and among quotes starting at the same place the longest; with every
    /// identical copy of that step.
    pub(super) fn quoted_group(&self, text: &str) -> Vec<usize> {
        let n = norm(text);
        let mut hits: Vec<(usize, usize)> = self
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.len() >= 3)
            .filter_map(|(i, k)| n.find(k.as_str()).map(|pos| (i, pos)))
            .collect();
        hits.sort_by_key(|&(i, pos)| (pos, usize::MAX - self.keys[i].len()));
        match hits.first() {
            Some(&(best, _)) => (0..self.len())
                .filter(|&i| self.keys[i] == self.keys[best])
                .collect(),
            None => Vec::new(),
        }
    }

    /// The steps `text` paraphrases best (see [`fuzzy_rank`]).
    pub(super) fn paraphrased_group(&self, text: &str) -> Vec<usize> {
        let h = header_words(text);
        let ranked: Vec<(usize, (usize, usize))> = self
            .words
            .iter()
            .enumerate()
            .filter_map(|(i, w)| fuzzy_rank(w, &h).map(|r| (i, r)))
            .collect();
        let Some(best) = ranked.iter().map(|(_, r)| *r).max() else {
            return Vec::new();
        };
        ranked
            .iter()
            .filter(|(_, r)| *r == best)
            .map(|(i, _)| *i)
            .collect()
    }

    /// One step out of the steps a text names equally well: the only one; the one the
    /// number names; or, when they are all copies of one step text, the first copy after
    /// `prev` (the step the previous block named), else the copy nearest the number.
    pub(super) fn pick(
        &self,
        group: Vec<usize>,
        number: Option<usize>,
        prev: Option<usize>,
    ) -> TextBind {
        let Some(&first) = group.first() else {
            return TextBind::NoMatch;
        };
        if group.len() == 1 {
            return TextBind::Unique(first);
        }
        if let Some(n) = number
            && group.contains(&n)
        {
            return TextBind::Unique(n);
        }
        let copies = group.iter().all(|&i| self.keys[i] == self.keys[first]);
        if !copies {
            return TextBind::Ambiguous(group);
        }
        if let Some(next) = group.iter().copied().find(|&i| prev.is_none_or(|p| i > p)) {
            return TextBind::Unique(next);
        }
        match number.and_then(|n| group.iter().copied().min_by_key(|&i| i.abs_diff(n))) {
            Some(i) => TextBind::Unique(i),
            None => TextBind::Ambiguous(group),
        }
    }

    /// Bind a reference to a step by its number (1-based, as the model wrote it) and its
    /// text, cross-checked, strongest evidence first:
    ///
    /// 1. the text quotes the numbered step verbatim: that step;
    /// 2. the text quotes other steps verbatim: the quoted one ([`Ctx::pick`]);
    /// 3. the text paraphrases the numbered step, or says nothing: that step;
    /// 4. the text paraphrases other steps: the paraphrased one;
    /// 5. the text names no step at all: the number, if it is in range.
    ///
    /// The note says when the text overruled the number; callers record it only if a tag
    /// relies on the binding.
    pub(super) fn bind(
        &self,
        number: Option<usize>,
        text: &str,
        prev: Option<usize>,
    ) -> Result<(usize, Option<String>), String> {
        let n = number
            .and_then(|k| k.checked_sub(1))
            .filter(|&k| k < self.len());
        if let Some(n) = n
            && self.quotes_step(n, text)
        {
            return Ok((n, None));
        }
        let mut found = self.pick(self.quoted_group(text), n, prev);
        if matches!(found, TextBind::NoMatch) {
            let informative = words(text).iter().any(|w| !STOPWORDS.contains(&w.as_str()));
            if let Some(n) = n
                && (!informative || self.paraphrases_step(n, text))
            {
                return Ok((n, None));
            }
            if !informative {
                return Err(match number {
                    Some(k) => format!("it names step {k}, but the plan has {} steps", self.len()),
                    None => "it names no step".into(),
                });
            }
            found = self.pick(self.paraphrased_group(text), n, prev);
        }
        match found {
            TextBind::Unique(m) => Ok((
                m,
                number.filter(|_| Some(m) != n).map(|k| {
                    format!(
                        "`{}` is numbered {k} but names {}; bound to step {}",
                        excerpt(text),
                        self.step_label(m),
                        m + 1
                    )
                }),
            )),
            TextBind::NoMatch => n.map(|n| (n, None)).ok_or_else(|| match number {
                Some(k) => format!(
                    "it names step {k}, but the plan has {} steps, and its text matches no step",
                    self.len()
                ),
                None => "its text matches no step of the plan".into(),
            }),
            TextBind::Ambiguous(group) => {
                let list: Vec<String> = group.iter().map(|i| (i + 1).to_string()).collect();
                Err(format!(
                    "its text fits steps {} equally and its number does not decide",
                    list.join(", ")
                ))
            }
        }
    }
}

pub(super) fn excerpt(s: &str) -> String {
    let flat = one_line(s);
    let mut out: String = flat.chars().take(80).collect();
    if flat.chars().count() > 80 {
        out.push('…');
    }
    out
}

// ---------------------------------------------------------------------------------------
// Tags, and which of them are the model's own
// ---------------------------------------------------------------------------------------

pub(super) const TAG_REMOVE: &[char] = &['#', 'r', 'e', 'm', 'o', 'v', 'e'];
pub(super) const TAG_MISSING: &[char] = &['#', 'm', 'i', 's', 's', 'i', 'n', 'g'];

/// The next tag at or after `from` in normalised characters: (position, kind, length).
pub(super) fn find_tag(low: &[char], from: usize) -> Option<(usize, CritiqueKind, usize)> {
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
pub(super) struct Tag {
    pub(super) kind: CritiqueKind,
    /// The rest of the line after the tag, up to the next tag.
    pub(super) reason: String,
}

impl Ctx<'_> {
    /// The tags of one line that are the model's own: not inside a copy of a step that
    /// itself contains a tag, not negated ("no #REMOVE needed"). `header_text` is where a
    /// header's step text starts (a char index), if the line is a header.
    pub(super) fn tags_in_line(
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
    pub(super) fn mask_copies(&self, low: &[char], header_text: Option<usize>) -> Vec<bool> {
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
    pub(super) fn quoted_tag(&self, low: &[char], k: usize, len: usize) -> Option<usize> {
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
pub(super) fn common_run(a: &[char], i: usize, b: &[char], j: usize, forward: bool) -> usize {
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
pub(super) fn negated(low: &[char], k: usize) -> bool {
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
pub(super) fn is_none_reason(reason: &str) -> bool {
    let lower = reason.trim().to_lowercase();
    let first = lower
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
    lower.split_whitespace().count() <= 3 && matches!(first, "none" | "nothing" | "n/a" | "na")
}

/// Whether a tag's text says there is nothing to report ("#MISSING: none").
pub(super) fn says_nothing(text: &str, shape: &Shape) -> bool {
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

// ---------------------------------------------------------------------------------------
// Where a MISSING belongs
// ---------------------------------------------------------------------------------------

pub(super) enum Place {
    At(usize),
    OutOfRange(usize),
    Unknown,
}

/// "after step 3" → before position 3; "before step 4" → 3; "between steps 3 and 4" → 3;
/// "at the start" → 0; "at the end" → the plan's length.
pub(super) fn place_in(text: &str, len: usize) -> Place {
    let lower = text.to_lowercase();
    let w: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect();
    let filler = |s: &str| {
        matches!(
            s,
            "step" | "steps" | "action" | "actions" | "the" | "number" | "no" | "line" | "item"
        )
    };
    for (i, word) in w.iter().enumerate() {
        let after = matches!(*word, "after" | "following" | "between");
        let before = matches!(*word, "before" | "preceding");
        if after || before {
            let mut j = i + 1;
            while w.get(j).is_some_and(|s| filler(s)) {
                j += 1;
            }
            if let Some(n) = w.get(j).and_then(|s| s.parse::<usize>().ok()) {
                let at = if after { Some(n) } else { n.checked_sub(1) };
                return match at {
                    Some(at) if at <= len => Place::At(at),
                    Some(at) => Place::OutOfRange(at),
                    None => Place::At(0),
                };
            }
        }
        if matches!(*word, "start" | "beginning") && i > 0 && matches!(w[i - 1], "the" | "very") {
            return Place::At(0);
        }
        if *word == "end" && i > 0 && matches!(w[i - 1], "the" | "very") {
            return Place::At(len);
        }
    }
    Place::Unknown
}

// ---------------------------------------------------------------------------------------
// Parsing the judge's prose
// ---------------------------------------------------------------------------------------

/// A header of the reply: a line that names a step.
pub(super) struct Header {
    pub(super) number: Option<usize>,
    /// The text after the number or label.
    pub(super) text: String,
    /// An `Action`/`Step` label (rather than a bare list number).
    pub(super) labelled: bool,
    /// Where `text` starts, as a char index of the line.
    pub(super) text_at: usize,
}

pub(super) fn char_index(line: &str, sub: &str) -> usize {
    let byte = (sub.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    line.get(..byte.min(line.len()))
        .map_or(0, |p| p.chars().count())
}

pub(super) fn parse_header(line: &str) -> Option<Header> {
    let t = line.trim_start();
    if t.starts_with('|') {
        return table_header(line);
    }
    let t = t.trim_start_matches('>').trim_start();
    let t = match t.strip_prefix('#') {
        // A markdown heading, not a tag: `### Step 3`.
        Some(_) if t.trim_start_matches('#').starts_with(' ') => t.trim_start_matches('#'),
        _ => t,
    };
    let mut t = strip_emphasis(t.trim_start());
    for bullet in ["- ", "* ", "+ ", "• ", "– "] {
        if let Some(r) = t.strip_prefix(bullet) {
            t = strip_emphasis(r.trim_start());
            break;
        }
    }
    let mut number = None;
    let mut labelled = false;
    if let Some((n, r)) = list_number(t) {
        number = Some(n);
        t = strip_emphasis(r);
    }
    if let Some((n, r)) = label(t) {
        labelled = true;
        number = n.or(number);
        t = r;
        if let Some((n, r)) = list_number(t) {
            number = Some(n);
            t = strip_emphasis(r);
        }
    }
    if !labelled && number.is_none() {
        return None;
    }
    let text = t.trim().trim_end_matches(['*', '_']).trim_end();
    Some(Header {
        number,
        text: text.to_string(),
        labelled,
        text_at: char_index(line, t),
    })
}

pub(super) fn table_header(line: &str) -> Option<Header> {
    let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
    let first = cells.first()?.trim().trim_matches(['*', '.', '#']);
    let n: usize = first.parse().ok()?;
    let text = cells.get(1).copied().unwrap_or("");
    Some(Header {
        number: Some(n),
        text: text.trim().to_string(),
        labelled: false,
        text_at: char_index(line, text),
    })
}

/// A line that opens a section about the plan as a whole (a summary, a heading), after
/// which tags no longer belong to the last step's block.
pub(super) fn is_section_break(line: &str) -> bool {
    let t = line.trim();
    let heading = t.starts_with('#') && t.trim_start_matches('#').starts_with(' ');
    let word = t
        .trim_start_matches(['#', '*', '_', ' '])
        .to_ascii_lowercase();
    let short = t.split_whitespace().count() <= 6;
    heading
        || short
            && [
                "summary",
                "overall",
                "in summary",
                "conclusion",
                "final",
                "missing actions",
                "missing steps",
                "revised",
            ]
            .iter()
            .any(|w| word.starts_with(w))
}

pub(super) fn line_has_tag(line: &str) -> bool {
    let low: Vec<char> = line.chars().map(norm_char).collect();
    find_tag(&low, 0).is_some()
}

pub(super) fn is_annotation(line: &str) -> bool {
    let t = strip_emphasis(line.trim_start());
    t.get(..10)
        .is_some_and(|w| w.eq_ignore_ascii_case("annotation"))
}

pub(super) fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

#[derive(Clone)]
pub(super) enum Section {
    /// Before the first header, or after a summary heading: tags bind by what their own
    /// line names.
    Loose,
    /// A step's block: its step (and a note if its text overruled its number), or why its
    /// header names none; and the header's text.
    Block(Result<(usize, Option<String>), String>, String),
    /// After a `#MISSING`, collecting its description.
    Missing,
}

pub(super) struct MissingDraft {
    pub(super) text: String,
    /// The step of the block it appeared in, for "before this step".
    pub(super) block: Option<usize>,
    pub(super) blank: bool,
}

/// Parse the paper's tagged prose: per-action blocks with `#REMOVE: reason`, and
/// `#MISSING: ...` lines. Never fails; tags that cannot be bound are dropped with a note.
///
/// **Binding.** A block opens at a header that names a step: the paper's `ACTION: ...`
/// line, a numbered item (`3.`, `3)`, `**3.**`), a `Step 3:` / `Action 3 -` label, a
/// markdown heading with one, or a table row. The header's number and text are
/// cross-checked, strongest evidence first: the text quotes the numbered step verbatim →
/// that step; the text quotes another step verbatim → that one; the text paraphrases the
/// numbered step (names its arguments) or says nothing → the number; the text paraphrases
/// exactly one other step → that one; the text names no step at all → the number, if it is
/// in range. Among identical copies of a step the number decides, else the order of blocks
/// (the first copy after the step the previous block named). A text that fits different
/// steps equally, or a number out of range with no text to go by, binds nothing: a
/// `#REMOVE` in such a block is dropped with a note. A `#REMOVE` outside any block (in a
/// preamble, or after a `Summary` heading) binds by a `step N` reference or a verbatim
/// quote on its own line.
///
/// **Untrusted steps.** A tag inside a copy of a step whose own text contains a tag (the
/// whole step, or 4 or more characters of the text around the tag) is not the model's and
/// is ignored; so are negated mentions (`no #REMOVE needed`) and empty ones
/// (`#MISSING: none`).
///
/// **MISSING.** The description runs to the end of the paragraph; its place is read from
/// it (`after step 3`, `before step 4`, `at the start`, `at the end`; out-of-range places
/// are dropped with a note), and its steps are the actions written in the plan's own
/// notation (for `Driver.Verb(...)` plans anywhere in the text, otherwise in backticks or
/// list items), except those that only anchor the place ("after `Driver.PickUp('Mug')`").
///
/// ```
/// use safeplan_judge::{parse_judge_text, CritiqueKind, Plan};
///
/// let plan = Plan::from_actions(&["Driver.PickUp('Mug')", "Driver.PutAOnB('Mug', 'Shelf')"]);
/// let reply = "ACTION: 1. Driver.PickUp('Mug')\nANNOTATION: needed.\n\n\
///              ACTION: 2. Driver.PutAOnB('Mug', 'Shelf')\nANNOTATION: #REMOVE: the goal wants the sink.\n\n\
///              #MISSING: after step 1: Driver.PutAOnB('Mug', 'Sink')";
/// let j = parse_judge_text(reply, &plan);
/// assert_eq!(j.critiques[0].kind, CritiqueKind::Remove);
/// assert_eq!(j.critiques[0].index, Some(1));
/// assert_eq!(j.critiques[1].index, Some(1));
/// assert_eq!(j.critiques[1].steps, ["Driver.PutAOnB('Mug', 'Sink')"]);
/// ```
pub fn parse_judge_text(reply: &str, plan: &Plan) -> Judgement {
    let ctx = Ctx::new(plan);
    let mut notes = Vec::new();
    let mut removes: BTreeMap<usize, String> = BTreeMap::new();
    let mut missing: Vec<Critique> = Vec::new();
    let mut section = Section::Loose;
    let mut draft: Option<MissingDraft> = None;
    let mut prev: Option<usize> = None;
    // An `ACTION:` label alone on its line: the action follows on the next line.
    let mut pending: Option<Option<usize>> = None;

    for line in reply.lines() {
        if is_fence(line) {
            continue;
        }
        if line.trim().is_empty() {
            if let Some(d) = draft.as_mut() {
                d.blank = true;
            }
            continue;
        }
        let mut header = parse_header(line);
        if header.is_none()
            && !is_annotation(line)
            && let Some(number) = pending.take()
        {
            header = Some(Header {
                number,
                text: line.trim().to_string(),
                labelled: true,
                text_at: char_index(line, line.trim_start()),
            });
        }
        // In a MISSING description, numbered lines are the absent actions unless they
        // are labelled or quote the step they are numbered as.
        if matches!(section, Section::Missing)
            && let Some(h) = &header
        {
            let quotes = h
                .number
                .and_then(|k| k.checked_sub(1))
                .is_some_and(|k| k < ctx.len() && ctx.quotes_step(k, &h.text));
            if !h.labelled && !quotes {
                header = None;
            }
        }
        if let Some(h) = &header {
            finish_missing(&ctx, draft.take(), &mut missing, &mut notes);
            if h.labelled && h.number.is_none() && h.text.is_empty() {
                pending = Some(None);
                section = Section::Block(Err("its action was not given".into()), String::new());
                continue;
            }
            let bound = ctx.bind(h.number, &h.text, prev);
            if let Ok((i, _)) = bound {
                prev = Some(i);
            }
            section = Section::Block(bound, h.text.clone());
        } else if let Some(blank) = draft.as_ref().map(|d| d.blank) {
            let list_item = strip_list_marker(line).0;
            if (blank && !list_item) || line_has_tag(line) || is_section_break(line) {
                finish_missing(&ctx, draft.take(), &mut missing, &mut notes);
                section = Section::Loose;
            } else if let Some(d) = draft.as_mut() {
                d.text.push('\n');
                d.text.push_str(line.trim());
                continue;
            }
        } else if is_section_break(line) && !line_has_tag(line) {
            section = Section::Loose;
        }

        let header_at = header.as_ref().map(|h| h.text_at);
        for tag in ctx.tags_in_line(line, header_at, &mut notes) {
            match tag.kind {
                CritiqueKind::Remove => {
                    if is_none_reason(&tag.reason) {
                        continue;
                    }
                    let reason = if tag.reason.is_empty() {
                        "(no reason given)".to_string()
                    } else {
                        tag.reason.clone()
                    };
                    let target = match &mut section {
                        Section::Block(Ok((i, note)), _) => {
                            notes.extend(note.take());
                            Ok(*i)
                        }
                        Section::Block(Err(why), text) => Err(format!(
                            "its block `{}` names no step: {why}",
                            excerpt(text)
                        )),
                        Section::Loose | Section::Missing => ctx.bind_loose(line, &mut notes),
                    };
                    match target {
                        Ok(i) => {
                            removes.entry(i).or_insert(reason);
                        }
                        Err(why) => notes.push(format!(
                            "dropped `#REMOVE: {}`: {why}",
                            excerpt(&tag.reason)
                        )),
                    }
                }
                CritiqueKind::Missing => {
                    finish_missing(&ctx, draft.take(), &mut missing, &mut notes);
                    let block = match &section {
                        Section::Block(Ok((i, _)), _) => Some(*i),
                        _ => None,
                    };
                    draft = Some(MissingDraft {
                        text: tag.reason.clone(),
                        block,
                        blank: false,
                    });
                    section = Section::Missing;
                }
            }
        }
    }
    finish_missing(&ctx, draft.take(), &mut missing, &mut notes);

    let mut critiques: Vec<Critique> = removes
        .into_iter()
        .map(|(i, reason)| Critique::remove(i, reason))
        .collect();
    critiques.extend(missing);
    Judgement {
        critiques,
        notes,
        ..Judgement::default()
    }
}

impl Ctx<'_> {
    /// Bind a tag outside any block by what its own line names: one `step N` reference
    /// (cross-checked with the line's text), or a verbatim quote of one step.
    pub(super) fn bind_loose(&self, line: &str, notes: &mut Vec<String>) -> Result<usize, String> {
        let refs = step_refs(line);
        match refs.as_slice() {
            [n] => self.bind(Some(*n), line, None).map(|(i, note)| {
                notes.extend(note);
                i
            }),
            [] => match self.resolve_exact(line) {
                Some(i) => Ok(i),
                None => Err("it is outside any action's block and its line names no step".into()),
            },
            _ => Err("its line names several steps".into()),
        }
    }

    /// The one step `text` quotes verbatim (identical copies count as ambiguous).
    pub(super) fn resolve_exact(&self, text: &str) -> Option<usize> {
        let n = norm(text);
        let hits: Vec<usize> = (0..self.len())
            .filter(|&i| self.keys[i].len() >= 3 && n.contains(self.keys[i].as_str()))
            .collect();
        match hits.as_slice() {
            [i] => Some(*i),
            _ => None,
        }
    }
}

/// The numbers of `step N` / `action N` references in a line.
pub(super) fn step_refs(line: &str) -> Vec<usize> {
    let lower = line.to_lowercase();
    let w: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, word) in w.iter().enumerate() {
        if matches!(*word, "step" | "steps" | "action" | "actions") {
            let mut j = i + 1;
            while let Some(n) = w.get(j).and_then(|s| s.parse::<usize>().ok()) {
                out.push(n);
                j += 1;
                if w.get(j).is_some_and(|s| *s == "and" || *s == "or") {
                    j += 1;
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

pub(super) fn finish_missing(
    ctx: &Ctx<'_>,
    draft: Option<MissingDraft>,
    out: &mut Vec<Critique>,
    notes: &mut Vec<String>,
) {
    let Some(draft) = draft else { return };
    let text = draft.text.trim();
    if says_nothing(text, &ctx.shape) {
        return;
    }
    let len = ctx.len();
    let found = actions_in(text, &ctx.shape);
    // An action right after "after"/"before" is where the gap is, not what fills it.
    let mut anchor: Option<(bool, usize)> = None;
    let mut steps: Vec<String> = Vec::new();
    for (pos, action) in &found {
        let lead = text[..*pos].to_lowercase();
        let lead = lead.trim_end_matches(|c: char| !c.is_alphanumeric());
        let is_after = lead.ends_with("after") || lead.ends_with("following");
        let is_before = lead.ends_with("before") || lead.ends_with("preceding");
        if (is_after || is_before)
            && let Some(i) = ctx.resolve_exact(action)
        {
            anchor.get_or_insert((is_after, i));
            continue;
        }
        if !steps.contains(action) {
            steps.push(action.clone());
        }
    }
    let lower = text.to_lowercase();
    let index = match place_in(text, len) {
        Place::At(at) => Some(at),
        Place::OutOfRange(at) => {
            notes.push(format!(
                "`#MISSING: {}` is placed after step {at}, but the plan has {len} steps; left unplaced",
                excerpt(text)
            ));
            None
        }
        Place::Unknown => match (anchor, draft.block) {
            (Some((true, i)), _) => Some(i + 1),
            (Some((false, i)), _) => Some(i),
            (None, Some(b)) if lower.contains("before this") => Some(b),
            (None, Some(b)) if lower.contains("after this") => Some(b + 1),
            _ => None,
        },
    };
    out.push(Critique::missing(index, one_line(text), steps));
}
