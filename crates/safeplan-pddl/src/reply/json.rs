//! JSON answers: an object with a `plan`, `actions` or `steps` key (bare, fenced, between
//! `$$`), or a JSON list that is the whole answer. Every item of the list is a step, in
//! order: a string read as one step line, or an object with an action name
//! (`action`/`name`/`op`/`operator`) and arguments (`args`/`arguments`/`parameters`/
//! `params`/`objects`). An item that is neither is a step that is not well formed.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::ast::{Name, PlanStep};
use crate::plan::span;

use super::line::{Content, read_line};
use super::statement::{Origin, Statement};

const PLAN_KEYS: [&str; 3] = ["plan", "actions", "steps"];
const NAME_KEYS: [&str; 5] = ["action", "name", "op", "operator", "action_name"];
const ARG_KEYS: [&str; 6] = [
    "args",
    "arguments",
    "parameters",
    "params",
    "objects",
    "action_args",
];

/// The JSON answers in `text`: each a statement and the byte range to blank.
pub(super) fn json_statements(text: &str) -> Vec<(Statement, (usize, usize))> {
    let mut out = Vec::new();
    if let Some(whole) = whole_list(text) {
        out.push(whole);
        return out;
    }
    if !text.contains('{') {
        return out;
    }
    // Candidates are brace pairs (matched once, ignoring strings), tried outermost first:
    // an object inside an accepted one is not tried again, nor one nested deeper than a
    // few levels, so the parser reads each byte a bounded number of times.
    const MAX_DEPTH: usize = 4;
    let pairs = super::wrapper::nested_pairs(text.as_bytes(), b'{', b'}');
    let mut covered = 0;
    for (start, close, depth) in pairs {
        let end = close + 1;
        if start < covered || depth >= MAX_DEPTH {
            continue;
        }
        if let Ok(Value::Object(_)) = serde_json::from_str::<Value>(&text[start..end])
            && let Some(st) = object_statement(text, start, end)
        {
            out.push((st, (start, end)));
            covered = end;
        }
    }
    out
}

/// A JSON list that is the whole answer (`["(pick-up a)", ...]`, `[]`), also inside one
/// code block.
fn whole_list(text: &str) -> Option<(Statement, (usize, usize))> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|s| s.strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    if !inner.starts_with('[') {
        return None;
    }
    let start = offset(text, inner);
    let raw: &RawValue = serde_json::from_str(inner).ok()?;
    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
    let st = list_statement(text, &items, start, start + inner.len())?;
    Some((
        st,
        (offset(text, trimmed), offset(text, trimmed) + trimmed.len()),
    ))
}

/// Byte offset of `part` (a slice of `whole`) in `whole`.
fn offset(whole: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize)
}

/// The statement of the object at `start..end`, when it has a plan key (also one level
/// down: `{"answer": {"plan": [...]}}`).
fn object_statement(text: &str, start: usize, end: usize) -> Option<Statement> {
    let slice = text.get(start..end)?;
    let map: BTreeMap<String, &RawValue> = serde_json::from_str(slice).ok()?;
    let value = map
        .iter()
        .find(|(k, _)| PLAN_KEYS.contains(&k.to_ascii_lowercase().as_str()))
        .map(|(_, v)| *v)
        .or_else(|| {
            map.values().find_map(|v| {
                let inner: BTreeMap<String, &RawValue> = serde_json::from_str(v.get()).ok()?;
                inner
                    .into_iter()
                    .find(|(k, _)| PLAN_KEYS.contains(&k.to_ascii_lowercase().as_str()))
                    .map(|(_, v)| v)
            })
        })?;
    let raw = value.get();
    let at = offset(text, raw);
    if let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(raw) {
        return list_statement(text, &items, start, end);
    }
    if let Ok(s) = serde_json::from_str::<String>(raw) {
        // One string of step lines.
        let mut st = Statement::empty(Origin::Json, false, start, end);
        for step in string_steps(&s) {
            st.steps.push(with_span(step, at, at + raw.len()));
        }
        return Some(st);
    }
    // A plan key with another value (a number, an object without steps): one step that is
    // not well formed, so the answer fails instead of passing as something else.
    let mut st = Statement::empty(Origin::Json, false, start, end);
    st.steps.push(broken(raw, at));
    Some(st)
}

/// A statement of the JSON list `items` (slices of `text`) spanning `start..end`.
fn list_statement(text: &str, items: &[&RawValue], start: usize, end: usize) -> Option<Statement> {
    let mut st = Statement::empty(Origin::Json, false, start, end);
    for item in items {
        let raw = item.get();
        let at = offset(text, raw);
        let steps = item_steps(raw);
        if steps.is_empty() {
            st.steps.push(broken(raw, at));
        }
        for step in steps {
            st.steps.push(with_span(step, at, at + raw.len()));
        }
    }
    Some(st)
}

/// The steps of one list item: a string's step line(s), or an object's action and
/// arguments. Empty when the item is neither.
fn item_steps(raw: &str) -> Vec<PlanStep> {
    if let Ok(s) = serde_json::from_str::<String>(raw) {
        return string_steps(&s);
    }
    let Ok(map) = serde_json::from_str::<BTreeMap<String, Value>>(raw) else {
        return Vec::new();
    };
    let get = |keys: &[&str]| {
        map.iter()
            .find(|(k, _)| keys.contains(&k.to_ascii_lowercase().as_str()))
            .map(|(_, v)| v)
    };
    let Some(name) = get(&NAME_KEYS).and_then(Value::as_str) else {
        return Vec::new();
    };
    if name.trim_start().starts_with('(') {
        return string_steps(name);
    }
    let word = |v: &Value| match v {
        Value::String(s) => s.trim().to_owned(),
        other => other.to_string(),
    };
    let args: Vec<String> = match get(&ARG_KEYS) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().map(word).collect(),
        Some(Value::Object(o)) => o.values().map(word).collect(),
        Some(Value::String(s)) => s
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect(),
        Some(other) => vec![other.to_string()],
    };
    vec![PlanStep {
        action: Name::new(name.trim(), Default::default()),
        args: args
            .iter()
            .map(|a| Name::new(a.as_str(), Default::default()))
            .collect(),
        time: None,
        duration: None,
        span: Default::default(),
    }]
}

/// The steps of a JSON string: each line read as a step line (bare words allowed); a line
/// that is no step is a step that is not well formed, since the model put it in its plan.
fn string_steps(s: &str) -> Vec<PlanStep> {
    let mut out = Vec::new();
    let mut ls = 0;
    while ls < s.len() {
        let le = crate::plan::line_end(s.as_bytes(), ls);
        let line = read_line(s, ls, le, s.len(), true);
        match line.content {
            Content::Steps(steps, _) => out.extend(steps),
            Content::Blank | Content::Comment(_) => {}
            Content::Broken(step) => out.push(step),
            Content::Prose(_) => out.push(broken(&s[ls..line.end], 0)),
        }
        ls = line.end + 1;
    }
    out
}

/// A step that is not well formed: `raw` as its action.
fn broken(raw: &str, at: usize) -> PlanStep {
    let t = raw.trim();
    PlanStep {
        action: Name::new(t, span(at, at + raw.len())),
        args: Vec::new(),
        time: None,
        duration: None,
        span: span(at, at + raw.len()),
    }
}

/// `step` with every span set to `a..b` (the item in the reply).
fn with_span(mut step: PlanStep, a: usize, b: usize) -> PlanStep {
    let s = span(a, b);
    step.span = s;
    step.action.span = s;
    for arg in &mut step.args {
        arg.span = s;
    }
    step
}
