//! Matching a reply's text to the plan's steps: normalised words, synonyms, and the
//! binding of a header to a step by its number and its text together.

use safeplan_llm::prompt::one_line;

use crate::Plan;
use crate::llm::reply::shape::{Shape, call_at, sexpr_at, shape_of};
use crate::llm::reply::tags::find_tag;

/// A step's text compared loosely: no whitespace, quotes unified, ASCII lowercase.
pub(in crate::llm) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(norm_char)
        .collect()
}

pub(in crate::llm) fn norm_char(c: char) -> char {
    match c {
        '"' | '`' | '‘' | '’' | '“' | '”' => '\'',
        c => c.to_ascii_lowercase(),
    }
}

/// Words of `s`, lowercase: camelCase split, numbers in canonical form (`90.0` → `90`),
/// and a few verbs mapped to the one the plan's notation uses, so a paraphrase can be
/// compared to a step.
pub(in crate::llm) fn words(s: &str) -> Vec<String> {
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

pub(in crate::llm) fn camel_parts(run: &[char]) -> Vec<String> {
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

pub(in crate::llm) fn canonical_number(raw: &str) -> String {
    match raw.parse::<f64>() {
        Ok(v) if v.is_finite() => format!("{v}"),
        _ => raw.to_string(),
    }
}

pub(in crate::llm) fn synonym(w: &str) -> &str {
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

pub(in crate::llm) const STOPWORDS: &[&str] = &[
    "the", "a", "an", "to", "of", "in", "into", "on", "onto", "at", "and", "it", "this", "that",
    "is", "be", "with", "from", "for", "then",
];

/// What a step is made of, for comparing paraphrases: the verb's parts and the arguments.
#[derive(Debug)]
pub(in crate::llm) struct StepWords {
    pub(in crate::llm) verb: Vec<String>,
    pub(in crate::llm) args: Vec<String>,
}

pub(in crate::llm) fn step_words(text: &str) -> StepWords {
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
pub(in crate::llm) fn header_words(text: &str) -> Vec<String> {
    let mut w = words(text);
    let joined: Vec<String> = w.windows(2).map(|p| format!("{}{}", p[0], p[1])).collect();
    w.extend(joined);
    w
}

/// How well a step matches some words: `None` when it does not; else (arguments matched,
/// share of the verb matched in percent), higher is better.
pub(in crate::llm) fn fuzzy_rank(step: &StepWords, header: &[String]) -> Option<(usize, usize)> {
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
pub(in crate::llm) struct Ctx<'a> {
    pub(in crate::llm) plan: &'a Plan,
    pub(in crate::llm) shape: Shape,
    /// `norm` of each step, with the common call prefix removed.
    pub(in crate::llm) keys: Vec<String>,
    pub(in crate::llm) words: Vec<StepWords>,
    /// Normalised characters of each step whose text contains a tag.
    pub(in crate::llm) injected: Vec<(usize, Vec<char>)>,
}

/// What a piece of text says about which step it names.
pub(in crate::llm) enum TextBind {
    /// It names no step.
    NoMatch,
    /// It names this one.
    Unique(usize),
    /// It names several different steps equally well.
    Ambiguous(Vec<usize>),
}

impl<'a> Ctx<'a> {
    pub(in crate::llm) fn new(plan: &'a Plan) -> Ctx<'a> {
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

    pub(in crate::llm) fn len(&self) -> usize {
        self.plan.len()
    }

    pub(in crate::llm) fn step_label(&self, i: usize) -> String {
        match self.plan.steps.get(i) {
            Some(s) => format!("step {} `{}`", i + 1, one_line(&s.text)),
            None => format!("step {}", i + 1),
        }
    }

    /// Whether `text` paraphrases step `i`, naming its arguments.
    pub(in crate::llm) fn paraphrases_step(&self, i: usize, text: &str) -> bool {
        fuzzy_rank(&self.words[i], &header_words(text)).is_some()
    }

    /// Whether `text` quotes step `i` verbatim (modulo spacing, quotes and case).
    pub(in crate::llm) fn quotes_step(&self, i: usize, text: &str) -> bool {
        let key = &self.keys[i];
        key.len() >= 3 && norm(text).contains(key.as_str())
    }

    /// The steps `text` quotes verbatim, best first: the quote that comes earliest in the
    /// text, and among quotes starting at the same place the longest; with every
    /// identical copy of that step.
    pub(in crate::llm) fn quoted_group(&self, text: &str) -> Vec<usize> {
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
    pub(in crate::llm) fn paraphrased_group(&self, text: &str) -> Vec<usize> {
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
    pub(in crate::llm) fn pick(
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
    pub(in crate::llm) fn bind(
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

pub(in crate::llm) fn excerpt(s: &str) -> String {
    let flat = one_line(s);
    let mut out: String = flat.chars().take(80).collect();
    if flat.chars().count() > 80 {
        out.push('…');
    }
    out
}
