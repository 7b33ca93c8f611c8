//! A tolerant reader for the JSON in a model's reply: the list of names of
//! `identify-dangers`, the object of conditions of `infer-conditions`.
//!
//! Models wrap JSON in code fences and prose, leave trailing commas, use single quotes or
//! Python's `True`; some answer with a bulleted list instead. The reader takes the first
//! JSON value of the wanted shape anywhere in the reply, repairing those slips when the
//! value does not parse as written, and falls back to reading lines. It is deterministic
//! and never asks another model.

use serde_json::Value;

/// At most this many `{` / `[` positions are tried, so a reply full of brackets stays
/// cheap.
const MAX_CANDIDATES: usize = 256;

/// The first JSON value in `text` that `accept` takes: code fences and prose around it are
/// skipped; a value that does not parse as written is parsed again after
/// [`repair`] (trailing commas, single quotes, bare keys, Python literals).
pub fn find_json(text: &str, accept: impl Fn(&Value) -> bool) -> Option<Value> {
    for (pos, _) in text.match_indices(['{', '[']).take(MAX_CANDIDATES) {
        let rest = &text[pos..];
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(v)) = values.next()
            && accept(&v)
        {
            return Some(v);
        }
        if let Some(span) = balanced(rest)
            && let Ok(v) = serde_json::from_str::<Value>(&repair(span))
            && accept(&v)
        {
            return Some(v);
        }
    }
    None
}

/// The bracketed value at the start of `s` (which starts with `{` or `[`), up to its
/// matching bracket; strings in double or single quotes are skipped over.
fn balanced(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[..i + c.len_utf8()]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` with the usual slips of hand-written JSON fixed: single-quoted strings made
/// double-quoted, typographic quotes made plain, commas before `}` or `]` dropped, bare
/// keys (`{key: ...}`) quoted, and `True` / `False` / `None` made JSON's.
pub fn repair(s: &str) -> String {
    let chars: Vec<char> = s
        .chars()
        .map(|c| match c {
            '“' | '”' => '"',
            '‘' | '’' => '\'',
            c => c,
        })
        .collect();
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => {
                // A string: copied as a double-quoted one.
                out.push('"');
                i += 1;
                while i < chars.len() {
                    let d = chars[i];
                    if d == '\\' && i + 1 < chars.len() {
                        if chars[i + 1] == '\'' {
                            out.push('\'');
                        } else {
                            out.push('\\');
                            out.push(chars[i + 1]);
                        }
                        i += 2;
                        continue;
                    }
                    if d == c {
                        break;
                    }
                    if d == '"' {
                        out.push_str("\\\"");
                    } else {
                        out.push(d);
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            ',' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                if !matches!(chars.get(j), Some('}') | Some(']')) {
                    out.push(',');
                }
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '-' | '?' | '.'))
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let mut j = i;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                if chars.get(j) == Some(&':') {
                    out.push('"');
                    out.push_str(&word);
                    out.push('"');
                } else {
                    out.push_str(match word.as_str() {
                        "True" => "true",
                        "False" => "false",
                        "None" => "null",
                        w => w,
                    });
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// A list of names from a reply: a JSON list of strings (or of objects with an `action`
/// or `name` field), a JSON object holding such a list (`{"dangerous_actions": [...]}`) or
/// else keyed by the names; failing any JSON, the lines of the reply's code blocks (or of
/// the whole reply when it has none) that are list items or a lone word, commas
/// separating several.
///
/// ```
/// use safeplan_bench::abilities::read_list;
///
/// assert_eq!(read_list("Sure:\n```json\n['add_salt', 'pour',]\n```"), ["add_salt", "pour"]);
/// assert_eq!(read_list("The dangerous ones:\n- add_salt\n- pour: it spills"), ["add_salt", "pour"]);
/// ```
pub fn read_list(text: &str) -> Vec<String> {
    let accept = |v: &Value| names_of(v).is_some();
    if let Some(v) = find_json(text, accept) {
        return names_of(&v).unwrap_or_default();
    }
    let mut out = Vec::new();
    for line in text_lines(text) {
        let (item, rest) = strip_marker(line);
        let rest = strip_emphasis(rest);
        let pieces: Vec<&str> = rest
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let tidy = |p: &str| p.trim_end_matches([':', '.', ';']).to_string();
        if !pieces.is_empty() && pieces.iter().all(|p| !p.contains(char::is_whitespace)) {
            out.extend(pieces.iter().map(|p| tidy(p)));
        } else if item && let Some(first) = rest.split_whitespace().next() {
            out.push(tidy(first));
        }
    }
    out
}

fn names_of(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => ["action", "name", "action_name"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str))
                    .map(str::to_string),
                _ => None,
            })
            .collect(),
        Value::Object(o) => {
            let inner = o.values().find_map(|v| match v {
                Value::Array(_) => names_of(v),
                _ => None,
            });
            Some(inner.unwrap_or_else(|| o.keys().cloned().collect()))
        }
        _ => None,
    }
}

/// `key: value` pairs from a reply: the first JSON object whose values are strings,
/// booleans or lists of strings (a single wrapper object, `{"conditions": {...}}`, is
/// looked into); booleans become `TRUE` / `FALSE` and a list of strings their conjunction.
/// Failing any JSON, lines `key: value` (list markers and emphasis dropped) whose key is
/// one word.
///
/// ```
/// use safeplan_bench::abilities::read_object;
///
/// let pairs = read_object("```json\n{'add_salt': 'NOT checked AND needs_salt',}\n```");
/// assert_eq!(pairs, [("add_salt".to_string(), "NOT checked AND needs_salt".to_string())]);
/// let pairs = read_object("- **deliver_note**: quiet_session_active AND attendees_present");
/// assert_eq!(pairs[0].0, "deliver_note");
/// ```
pub fn read_object(text: &str) -> Vec<(String, String)> {
    let accept = |v: &Value| pairs_of(v).is_some();
    if let Some(v) = find_json(text, accept) {
        return pairs_of(&v).unwrap_or_default();
    }
    let mut out = Vec::new();
    for line in text_lines(text) {
        let (_, rest) = strip_marker(line);
        let Some((key, value)) = rest.split_once(':').or_else(|| rest.split_once('=')) else {
            continue;
        };
        let key = strip_emphasis(key.trim());
        let value = strip_emphasis(value.trim()).trim_end_matches(',');
        if !key.is_empty() && !key.contains(char::is_whitespace) && !value.is_empty() {
            out.push((key.to_string(), value.to_string()));
        }
    }
    out
}

fn pairs_of(v: &Value) -> Option<Vec<(String, String)>> {
    let Value::Object(o) = v else { return None };
    if o.len() == 1
        && let Some(inner @ Value::Object(_)) = o.values().next()
        && let Some(pairs) = pairs_of(inner)
    {
        return Some(pairs);
    }
    let mut out = Vec::new();
    for (k, v) in o {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Bool(true) => "TRUE".into(),
            Value::Bool(false) => "FALSE".into(),
            Value::Array(items) => {
                let parts: Option<Vec<String>> = items
                    .iter()
                    .map(|i| i.as_str().map(|s| format!("({s})")))
                    .collect();
                match parts?.as_slice() {
                    [] => "TRUE".into(),
                    parts => parts.join(" AND "),
                }
            }
            Value::Null => continue,
            _ => return None,
        };
        out.push((k.clone(), text));
    }
    Some(out)
}

/// The lines of the reply's code blocks, or of the whole reply when it has none (fence
/// lines themselves left out).
fn text_lines(text: &str) -> Vec<&str> {
    let mut inside = false;
    let mut fenced = Vec::new();
    let mut any_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            any_fence = true;
            continue;
        }
        if inside {
            fenced.push(line);
        }
    }
    if any_fence && !fenced.is_empty() {
        fenced
    } else {
        text.lines()
            .filter(|l| !l.trim_start().starts_with("```"))
            .collect()
    }
}

/// A list item's text without its marker (`-`, `*`, `•`, `+`, `1.`, `1)`), and whether
/// the line was one.
fn strip_marker(line: &str) -> (bool, &str) {
    let t = line.trim();
    for m in ["- ", "* ", "• ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return (true, rest.trim());
        }
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return (true, r.trim());
        }
    }
    (false, t)
}

fn strip_emphasis(s: &str) -> &str {
    s.trim()
        .trim_matches(|c: char| matches!(c, '*' | '`' | '"' | '\''))
        .trim()
}
