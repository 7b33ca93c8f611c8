//! Reading a judge's JSON reply (JSON mode).

use std::collections::BTreeMap;

use safeplan_llm::prompt::one_line;
use serde_json::Value;

use crate::llm::reply::matching::{Ctx, excerpt};
use crate::llm::reply::place::{Place, place_in};
use crate::llm::reply::shape::whole_action;
use crate::llm::reply::tags::says_nothing;
use crate::{Critique, JudgeError, Judgement, Plan};

// ---------------------------------------------------------------------------------------
// Parsing the judge's JSON
// ---------------------------------------------------------------------------------------

/// Parse the JSON variant's reply: the first JSON value in it (code fences and prose
/// around it are skipped) that has a `steps` or `missing` field, or is a list of step
/// verdicts. Step entries are bound as [`parse_judge_text`](crate::parse_judge_text) binds headers: by `index`
/// (1-based) cross-checked with `action`. `missing[].after` is the step the absent
/// actions follow (0: the start); `missing[].actions` become the critique's steps when
/// they are in the plan's notation.
///
/// A reply with no such JSON value is [`JudgeError::Reply`] naming `provider`; entries
/// that cannot be used (an unknown verdict, an unbound step) are skipped with a note.
///
/// ```
/// use safeplan_judge::{parse_judge_json, Plan};
///
/// let plan = Plan::from_actions(&["Driver.Move(1.0)", "Driver.PickUp('Bowl')"]);
/// let reply = "```json\n{\"steps\": [{\"index\": 2, \"action\": \"Driver.PickUp('Bowl')\", \
///              \"verdict\": \"remove\", \"reason\": \"not part of the goal\"}], \"missing\": []}\n```";
/// let j = parse_judge_json(reply, &plan, "test").unwrap();
/// assert_eq!(j.critiques.len(), 1);
/// assert_eq!(j.critiques[0].index, Some(1));
/// assert!(parse_judge_json("no JSON here", &plan, "test").is_err());
/// ```
pub fn parse_judge_json(reply: &str, plan: &Plan, provider: &str) -> Result<Judgement, JudgeError> {
    let err = |message: String| JudgeError::Reply {
        provider: provider.to_string(),
        message,
    };
    let value = first_verdict_value(reply).map_err(|why| {
        err(format!(
            "{why}; the reply began `{}`",
            excerpt(reply.trim_start())
        ))
    })?;
    let ctx = Ctx::new(plan);
    let mut notes = Vec::new();
    let (steps, missing) = match &value {
        Value::Array(items) => (Some(items.as_slice()), None),
        Value::Object(map) => {
            let steps = match map.get("steps") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(a.as_slice()),
                Some(_) => return Err(err("`steps` is not a list".into())),
            };
            let missing = match map.get("missing") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(a.as_slice()),
                Some(Value::String(s)) if says_nothing(s, &ctx.shape) => None,
                Some(_) => return Err(err("`missing` is not a list".into())),
            };
            (steps, missing)
        }
        _ => (None, None),
    };
    let mut removes: BTreeMap<usize, String> = BTreeMap::new();
    let mut prev = None;
    for (n, entry) in steps.unwrap_or_default().iter().enumerate() {
        let Value::Object(e) = entry else {
            notes.push(format!("steps[{n}] is not an object; skipped"));
            continue;
        };
        let number = e.get("index").and_then(as_index);
        let action = e.get("action").and_then(Value::as_str).unwrap_or("");
        let reason = e
            .get("reason")
            .and_then(Value::as_str)
            .map(one_line)
            .unwrap_or_default();
        let verdict = e
            .get("verdict")
            .and_then(Value::as_str)
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default();
        let remove = match verdict.as_str() {
            "remove" | "delete" | "drop" => true,
            "keep" | "ok" | "needed" | "necessary" => false,
            other => {
                notes.push(format!(
                    "steps[{n}] has verdict `{}`, neither keep nor remove; skipped",
                    excerpt(other)
                ));
                continue;
            }
        };
        let bound = ctx.bind(number, action, prev);
        if let Ok((i, _)) = bound {
            prev = Some(i);
        }
        if !remove {
            continue;
        }
        match bound {
            Ok((i, note)) => {
                notes.extend(note);
                let reason = if reason.is_empty() {
                    "(no reason given)".to_string()
                } else {
                    reason
                };
                removes.entry(i).or_insert(reason);
            }
            Err(why) => notes.push(format!(
                "dropped the removal of steps[{n}] (`{}`): {why}",
                excerpt(action)
            )),
        }
    }
    let mut critiques: Vec<Critique> = removes
        .into_iter()
        .map(|(i, reason)| Critique::remove(i, reason))
        .collect();
    for (n, entry) in missing.unwrap_or_default().iter().enumerate() {
        let (after, description, actions) = match entry {
            Value::String(s) => (None, s.clone(), Vec::new()),
            Value::Object(e) => (
                e.get("after"),
                e.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                match e.get("actions") {
                    Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
                    Some(Value::String(s)) => vec![s.as_str()],
                    _ => Vec::new(),
                },
            ),
            _ => {
                notes.push(format!("missing[{n}] is not an object; skipped"));
                continue;
            }
        };
        let steps: Vec<String> = actions
            .iter()
            .filter_map(|a| whole_action(a, &ctx.shape))
            .collect();
        if steps.is_empty() && says_nothing(&description, &ctx.shape) {
            continue;
        }
        let len = ctx.len();
        let index = match after.and_then(as_index) {
            Some(a) if a <= len => Some(a),
            Some(a) => {
                notes.push(format!(
                    "missing[{n}] is placed after step {a}, but the plan has {len} steps; left unplaced"
                ));
                None
            }
            None => match place_in(&description, len) {
                Place::At(at) => Some(at),
                _ => None,
            },
        };
        let reason = if description.trim().is_empty() {
            steps.join("; ")
        } else {
            one_line(&description)
        };
        critiques.push(Critique::missing(index, reason, steps));
    }
    Ok(Judgement {
        critiques,
        notes,
        ..Judgement::default()
    })
}

/// A JSON number or numeric string as a non-negative integer.
pub(super) fn as_index(v: &Value) -> Option<usize> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .and_then(|n| usize::try_from(n).ok()),
        Value::String(s) => s.trim().trim_start_matches('#').parse().ok(),
        _ => None,
    }
}

pub(super) fn first_verdict_value(reply: &str) -> Result<Value, String> {
    let mut first_error: Option<String> = None;
    let mut tried = 0;
    for (pos, _) in reply.match_indices(['{', '[']) {
        tried += 1;
        if tried > 64 {
            break;
        }
        let mut values = serde_json::Deserializer::from_str(&reply[pos..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(v)) if looks_like_verdict(&v) => return Ok(v),
            Some(Ok(_)) | None => {}
            Some(Err(e)) => {
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    Err(match (tried, first_error) {
        (0, _) => "no JSON object in the reply".into(),
        (_, Some(e)) => format!("no JSON object with `steps` or `missing` in the reply ({e})"),
        (_, None) => "no JSON object with `steps` or `missing` in the reply".into(),
    })
}

pub(super) fn looks_like_verdict(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("steps") || m.contains_key("missing"),
        Value::Array(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.as_object().is_some_and(|o| o.contains_key("verdict")))
        }
        _ => false,
    }
}
