//! Plans out of LLM replies: the lenient extractor ([`extract_plan`]) and the reply reader
//! built on it ([`read_reply`]).
//!
//! A chat model answers a planning prompt with prose, Markdown, code fences of any language,
//! numbered lists, JSON, reasoning blocks, and sometimes the plan twice or no plan at all.
//! [`extract_plan`] finds steps in such text by their position and shape alone, with a
//! warning for every stretch it skips. [`read_reply`] adds what reading a reply as the input
//! of a verdict needs:
//!
//! - reasoning blocks (`<think>...</think>`, `<thinking>`, `<reasoning>`, and everything
//!   before a lone `</think>`) are not part of the answer;
//! - a JSON answer (`{"plan": [...]}`, `{"actions": ...}`, `{"steps": ...}`: a list of step
//!   strings or of `{"action": NAME, "args": [...]}` objects, or one string of steps) is
//!   read as the plan, the last one when there are several;
//! - a `(plan ...)` or `(:plan ...)` wrapper is read as the steps inside it;
//! - with the task's [`Vocabulary`], a parenthesised group whose head is a predicate of the
//!   task and no action (`(on a b)` in a description of the state) is a fact, not a step; a
//!   list item without parentheses is a step only when its arguments are objects of the task
//!   (`1. Unstack block C from block D` is prose; `1. unstack c d` a step); a step naming an
//!   action the task lacks stays a step, so a hallucinated action fails as an unknown action
//!   instead of being dropped to make a plan pass;
//! - a plan stated twice (the same steps in two places) is read once, the last statement,
//!   with a warning; when the reply marks a final answer (`Final plan:`, `Answer:`) after
//!   some steps and before others, the steps after the last mark are the plan;
//! - a reply from which no step can be read is **no plan** ([`NoPlan`]): never an empty plan,
//!   never valid. The empty plan is an answer only when the reply states it: an empty code
//!   block, `(plan)`, `{"plan": []}`, an empty `[PLAN]` section, or a sentence saying no
//!   action is needed ("No further actions are needed as the goal has been achieved").
//!   Whether a plan-less reply is a refusal is a documented heuristic over its wording
//!   ([`NoPlan::Refusal`]), counted apart.
//!
//! Every rule is written, with an example, in docs/FORMAT.md ("Plans in LLM replies").

mod extract;

use std::collections::BTreeSet;

pub use extract::extract_plan;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ast::{Domain, Plan, PlanStep, Problem};
use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::plan::{shorten, span};
use crate::span::Span;

const FILE: FileKind = FileKind::Plan;

/// What a task names, lowercased: its actions, predicates and objects (constants included).
/// [`read_reply`] uses it to tell a reply's steps from the facts and prose around them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vocabulary {
    actions: BTreeSet<String>,
    predicates: BTreeSet<String>,
    objects: BTreeSet<String>,
}

impl Vocabulary {
    /// The names of `domain` (actions, durative actions, predicates, constants) and of
    /// `problem`'s objects.
    pub fn of(domain: &Domain, problem: Option<&Problem>) -> Vocabulary {
        let lower = |n: &crate::ast::Name| n.text.as_str().to_ascii_lowercase();
        Vocabulary {
            actions: domain
                .actions
                .iter()
                .map(|a| lower(&a.name))
                .chain(domain.durative_actions.iter().map(|a| lower(&a.name)))
                .collect(),
            predicates: domain
                .predicates
                .iter()
                .map(|p| lower(&p.name))
                .chain(domain.derived.iter().map(|d| lower(&d.head.name)))
                .collect(),
            objects: domain
                .constants
                .iter()
                .chain(problem.iter().flat_map(|p| &p.objects))
                .map(|o| lower(&o.name))
                .collect(),
        }
    }

    /// A vocabulary of the given names (any case).
    pub fn new<'a>(
        actions: impl IntoIterator<Item = &'a str>,
        predicates: impl IntoIterator<Item = &'a str>,
        objects: impl IntoIterator<Item = &'a str>,
    ) -> Vocabulary {
        let set = |it: &mut dyn Iterator<Item = &'a str>| it.map(str::to_ascii_lowercase).collect();
        Vocabulary {
            actions: set(&mut actions.into_iter()),
            predicates: set(&mut predicates.into_iter()),
            objects: set(&mut objects.into_iter()),
        }
    }

    fn is_action(&self, name: &str) -> bool {
        has(&self.actions, name)
    }

    fn is_fact(&self, name: &str) -> bool {
        has(&self.predicates, name) && !has(&self.actions, name)
    }

    /// The action `name` spells in another case or with other separators (`PickUp`,
    /// `pick_up` for `pick-up`), when exactly one action of the task is spelled so.
    fn respelled_action(&self, name: &str) -> Option<&str> {
        let squash = |s: &str| {
            s.chars()
                .filter(|c| !matches!(c, '-' | '_'))
                .map(|c| c.to_ascii_lowercase())
                .collect::<String>()
        };
        let want = squash(name);
        let mut found = self.actions.iter().filter(|a| squash(a) == want);
        match (found.next(), found.next()) {
            (Some(a), None) => Some(a.as_str()),
            _ => None,
        }
    }

    fn is_object(&self, name: &str) -> bool {
        has(&self.objects, name)
    }
}

/// Whether `set` (lowercase names) holds `name` in any case; no allocation for a name
/// already in lowercase, as most are.
fn has(set: &BTreeSet<String>, name: &str) -> bool {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        set.contains(&name.to_ascii_lowercase())
    } else {
        set.contains(name)
    }
}

/// Why a reply holds no plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoPlan {
    /// The reply is empty (or only whitespace and reasoning).
    Empty,
    /// The reply declines the task ("I'm sorry, but I can't help with that"): a heuristic
    /// over its wording, documented in docs/FORMAT.md, counted apart from the rest.
    Refusal,
    /// The reply says that no plan exists ("(No plan possible)", "the goal is impossible to
    /// achieve"): right for an unsolvable task, and still no plan. A heuristic over its
    /// wording, counted apart.
    ClaimsUnsolvable,
    /// No step can be read: prose, steps in a form the reader does not know.
    Unreadable,
}

impl NoPlan {
    /// `empty`, `refusal`, `claims_unsolvable`, `unreadable`.
    pub fn as_str(self) -> &'static str {
        match self {
            NoPlan::Empty => "empty",
            NoPlan::Refusal => "refusal",
            NoPlan::ClaimsUnsolvable => "claims_unsolvable",
            NoPlan::Unreadable => "unreadable",
        }
    }

    /// The reason [`NoPlan::as_str`] names.
    pub fn parse(text: &str) -> Option<NoPlan> {
        [
            NoPlan::Empty,
            NoPlan::Refusal,
            NoPlan::ClaimsUnsolvable,
            NoPlan::Unreadable,
        ]
        .into_iter()
        .find(|n| n.as_str() == text)
    }

    /// One sentence for people.
    pub fn message(self) -> &'static str {
        match self {
            NoPlan::Empty => "the reply is empty: it holds no plan",
            NoPlan::Refusal => "the reply declines the task: it holds no plan",
            NoPlan::ClaimsUnsolvable => "the reply says that no plan exists: it holds none",
            NoPlan::Unreadable => "no plan step can be read from the reply",
        }
    }
}

impl std::fmt::Display for NoPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an LLM reply says about a plan ([`read_reply`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The plan the reply states: its steps, or no step when it states the empty plan.
    /// `None` when it holds no plan ([`Reply::no_plan`] says why).
    pub plan: Option<Plan>,
    /// Why there is no plan, when there is none.
    pub no_plan: Option<NoPlan>,
    /// Whether the reply states the empty plan (an empty block, `(plan)`, `{"plan": []}`,
    /// "no further actions are needed").
    pub stated_empty: bool,
    /// A warning for everything skipped (prose, facts, a reasoning block, a plan stated
    /// twice), each with its span in the reply.
    pub diagnostics: Vec<Diagnostic>,
}

impl Reply {
    /// The plan, or the empty plan when there is none (for callers that validate whatever
    /// was read; a verdict should tell "no plan" apart: use [`Reply::plan`]).
    pub fn plan_or_empty(&self) -> Plan {
        self.plan.clone().unwrap_or_default()
    }
}

/// Read the plan an LLM reply states; see the module documentation for the rules. With
/// `vocabulary` (the task's names), facts and prose are told from steps by name; without
/// it, by shape alone.
///
/// ```
/// use safeplan_pddl::{NoPlan, Vocabulary, read_reply};
///
/// let v = Vocabulary::new(["unstack", "put-down"], ["on", "clear"], ["a", "b"]);
/// let reply = "<think>(on a b) holds, so unstack first</think>\n```\n(unstack a b)\n(put-down a)\n```";
/// let plan = read_reply(reply, Some(&v)).plan.expect("a plan");
/// assert_eq!(plan.steps.len(), 2);
///
/// // A refusal is no plan, not an empty plan.
/// let r = read_reply("I'm sorry, but I can't help with planning this task.", Some(&v));
/// assert_eq!((r.plan, r.no_plan), (None, Some(NoPlan::Refusal)));
///
/// // Saying that nothing is left to do is the empty plan.
/// let r = read_reply("No further actions are needed as the goal has been achieved.", Some(&v));
/// assert_eq!(r.plan.map(|p| p.steps.len()), Some(0));
/// ```
pub fn read_reply(text: &str, vocabulary: Option<&Vocabulary>) -> Reply {
    let mut diagnostics = Vec::new();
    if text.trim().is_empty() {
        return Reply {
            plan: None,
            no_plan: Some(NoPlan::Empty),
            stated_empty: false,
            diagnostics,
        };
    }
    // Reasoning is not the answer: blanked, byte for byte, so every span stays right.
    let mut masked = text.as_bytes().to_vec();
    for (start, end) in reasoning_blocks(text) {
        blank(&mut masked, start, end);
        diagnostics.push(
            Diagnostic::warning(
                Code::SkippedText,
                FILE,
                span(start, end),
                "skipped a reasoning block: the plan is read from the answer after it",
            )
            .with_help("steps and facts inside `<think>...</think>` are not read as the plan"),
        );
    }
    let masked_text = String::from_utf8(masked.clone()).unwrap_or_default();
    if masked_text.trim().is_empty() {
        return Reply {
            plan: None,
            no_plan: Some(NoPlan::Empty),
            stated_empty: false,
            diagnostics,
        };
    }
    // A JSON answer, when there is one, is the answer.
    if let Some(json) = json_plan(&masked_text) {
        return finish_json(text, json, vocabulary, diagnostics);
    }
    let mut stated_empty = false;
    for (open, close, empty) in wrappers(&masked_text) {
        blank(&mut masked, open.0, open.1);
        blank(&mut masked, close, close + 1);
        stated_empty |= empty;
    }
    let unwrapped = String::from_utf8(masked.clone()).unwrap_or_default();
    for (a, b) in containers(&unwrapped) {
        blank(&mut masked, a, b);
    }
    // Only what follows the last final-answer mark, when steps stand on both sides of it.
    let masked_text = String::from_utf8(masked).unwrap_or_default();
    let extracted = extract_plan(&masked_text);
    let mut plan = extracted.value.unwrap_or_default();
    diagnostics.extend(extracted.diagnostics);
    if let Some(v) = vocabulary {
        filter_by_vocabulary(text, &mut plan, v, &mut diagnostics);
        repair_broken_steps(text, &mut plan, v, &mut diagnostics);
    }
    final_answer(text, &mut plan, &mut diagnostics);
    // Boundaries between statements are read in the text with wrappers blanked: `(plan
    // (:action (a x)) ...)` is one statement, not one per step.
    stated_twice(&masked_text, &mut plan, &mut diagnostics);
    // Whether the reply states the empty plan only matters when no step was read.
    stated_empty |= plan.steps.is_empty() && states_empty(&masked_text);
    if plan.steps.is_empty() {
        if stated_empty {
            return Reply {
                plan: Some(plan),
                no_plan: None,
                stated_empty: true,
                diagnostics,
            };
        }
        return Reply {
            plan: None,
            no_plan: Some(if claims_unsolvable(&masked_text) {
                NoPlan::ClaimsUnsolvable
            } else if refuses(&masked_text) {
                NoPlan::Refusal
            } else {
                NoPlan::Unreadable
            }),
            stated_empty: false,
            diagnostics,
        };
    }
    Reply {
        plan: Some(plan),
        no_plan: None,
        stated_empty: false,
        diagnostics,
    }
}

/// The reply without its reasoning blocks (`<think>...</think>`, `<thinking>`,
/// `<reasoning>`, an unclosed one to the end, everything before a lone `</think>`): each
/// blanked to spaces, line breaks kept, so positions and line numbers in the result are
/// those of `text`. What [`read_reply`] reads; for readers of other replies (a judge's, a
/// reviser's) that must not read a model's musings as its answer.
///
/// ```
/// let reply = "<think>maybe (pick-up a)?</think>\n(stack a b)";
/// assert_eq!(safeplan_pddl::without_reasoning(reply).trim(), "(stack a b)");
/// ```
pub fn without_reasoning(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (start, end) in reasoning_blocks(text) {
        blank(&mut bytes, start, end);
    }
    // Blanking replaces whole tags and their contents with ASCII spaces, never part of a
    // character: still UTF-8 unless a block boundary fell inside one, which tags cannot.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Replace `start..end` of `bytes` by spaces, keeping line breaks (and so line numbers).
fn blank(bytes: &mut [u8], start: usize, end: usize) {
    for b in bytes.iter_mut().take(end).skip(start) {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// The byte ranges of reasoning blocks: `<think>...</think>` (and `thinking`, `reasoning`),
/// an unclosed one to the end, and everything before a `</think>` that has no opener (as
/// some APIs return DeepSeek-R1's reasoning).
fn reasoning_blocks(text: &str) -> Vec<(usize, usize)> {
    // Most replies have no tag at all.
    if !text.contains('<') {
        return Vec::new();
    }
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    for tag in ["think", "thinking", "reasoning"] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        let mut from = 0;
        while let Some(rel) = lower[from..].find(&close) {
            let close_at = from + rel;
            let end = close_at + close.len();
            let start = lower[from..close_at].rfind(&open).map_or(
                // A lone closing tag: everything before it is the reasoning.
                if out.is_empty() && from == 0 {
                    0
                } else {
                    close_at
                },
                |o| from + o,
            );
            out.push((start, end));
            from = end;
        }
        if let Some(rel) = lower[from..].find(&open) {
            out.push((from + rel, text.len()));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A JSON object holding the plan: its byte range and the value of its plan key.
struct JsonPlan {
    start: usize,
    end: usize,
    value: Value,
}

/// The last JSON object in `text` with a `plan`, `actions` or `steps` key (any case), read
/// wherever it stands: bare, in a code fence, between `$$` marks.
fn json_plan(text: &str) -> Option<JsonPlan> {
    if !text.contains('{') {
        return None;
    }
    let mut found = None;
    let mut tries = 0;
    let mut from = 0;
    while let Some(rel) = text[from..].find('{') {
        let start = from + rel;
        tries += 1;
        if tries > 256 {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(map))) => {
                let end = start + stream.byte_offset();
                let value = map
                    .iter()
                    .find(|(k, _)| {
                        matches!(
                            k.to_ascii_lowercase().as_str(),
                            "plan" | "actions" | "steps"
                        )
                    })
                    .map(|(_, v)| v.clone());
                if let Some(value) = value {
                    found = Some(JsonPlan { start, end, value });
                }
                from = end;
            }
            _ => from = start + 1,
        }
    }
    found
}

/// The steps of a JSON plan value as plan text, one per line: strings as they are (a string
/// of several lines gives several steps), `{"action": NAME, "args": [...]}` objects written
/// as `(NAME arg ...)`.
fn json_steps(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => s.lines().map(str::to_owned).collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => {
                    let get = |keys: &[&str]| {
                        o.iter()
                            .find(|(k, _)| keys.contains(&k.to_ascii_lowercase().as_str()))
                            .map(|(_, v)| v)
                    };
                    let name = get(&["action", "name", "operator"])?.as_str()?;
                    let args: Vec<String> = get(&["args", "arguments", "parameters", "objects"])
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    if name.trim_start().starts_with('(') {
                        Some(name.to_owned())
                    } else {
                        Some(format!("({} {})", name, args.join(" ")).replace(" )", ")"))
                    }
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn finish_json(
    text: &str,
    json: JsonPlan,
    vocabulary: Option<&Vocabulary>,
    mut diagnostics: Vec<Diagnostic>,
) -> Reply {
    let lines = json_steps(&json.value);
    let joined: String = lines
        .iter()
        .map(|l| {
            let t = l.trim();
            // A step string without parentheses (`"unstack a b"`) is a step too.
            if t.starts_with('(') || t.is_empty() {
                t.to_owned()
            } else {
                format!("({t})")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let extracted = extract_plan(&joined);
    let mut plan = extracted.value.unwrap_or_default();
    // Spans of steps read out of the JSON point at the whole object.
    let whole = span(json.start, json.end);
    for step in &mut plan.steps {
        step.span = whole;
        step.action.span = whole;
        for a in &mut step.args {
            a.span = whole;
        }
    }
    if let Some(v) = vocabulary {
        filter_by_vocabulary(&joined, &mut plan, v, &mut diagnostics);
    }
    for (a, b) in [(0, json.start), (json.end, text.len())] {
        let gap = text.get(a..b).unwrap_or("");
        if !gap.trim().is_empty() {
            diagnostics.push(
                Diagnostic::warning(
                    Code::SkippedText,
                    FILE,
                    span(a, b),
                    format!(
                        "skipped text around the JSON answer: `{}`",
                        shorten(gap.trim().lines().next().unwrap_or(""), 40)
                    ),
                )
                .with_help("the plan is read from the JSON object's plan key"),
            );
        }
    }
    let empty_list = matches!(&json.value, Value::Array(a) if a.is_empty())
        || matches!(&json.value, Value::String(s) if s.trim().is_empty());
    if plan.steps.is_empty() {
        return Reply {
            plan: empty_list.then_some(plan),
            no_plan: (!empty_list).then_some(NoPlan::Unreadable),
            stated_empty: empty_list,
            diagnostics,
        };
    }
    Reply {
        plan: Some(plan),
        no_plan: None,
        stated_empty: false,
        diagnostics,
    }
}

/// `(plan ...)` and `(:plan ...)` wrappers: the head's byte range, the offset of the
/// matching `)`, and whether nothing but blanks stands inside.
fn wrappers(text: &str) -> Vec<((usize, usize), usize, bool)> {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    if !lower.contains("plan") {
        return Vec::new();
    }
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
            // The matching `)`.
            let mut depth = 1usize;
            let mut i = after;
            while i < bytes.len() {
                match bytes[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            // `(plan NAME)` in a `define` header is no wrapper: a wrapper holds steps or
            // nothing.
            if depth == 0 && (text[after..i].contains('(') || text[after..i].trim().is_empty()) {
                let empty = text[after..i].trim().is_empty();
                out.push(((open, after), i, empty));
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
fn containers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    // Matching pairs.
    let mut stack = Vec::new();
    let mut pairs = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => stack.push(i),
            b')' => {
                if let Some(o) = stack.pop() {
                    pairs.push((o, i));
                }
            }
            _ => {}
        }
    }
    pairs.sort_unstable();
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

/// Whether the step text at `span` is parenthesised (a function call or a bare list item is
/// not).
fn parenthesised(text: &str, s: Span) -> bool {
    text.get(s.range())
        .is_some_and(|t| t.trim_start().starts_with('(') || t.contains(": ("))
}

/// Drop facts and prose the task's names tell apart from steps (see the module docs).
fn filter_by_vocabulary(
    text: &str,
    plan: &mut Plan,
    v: &Vocabulary,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut kept = Vec::with_capacity(plan.steps.len());
    // `PickUp(a)` and `pick_up(a)` name `pick-up`: respelled, with a warning, before anything
    // else is decided. Only outside parentheses: a reply that writes PDDL steps and spells
    // `(putdown a)` names an action the domain lacks, as VAL would read it. A name no action
    // of the task squashes to is left as written.
    for step in &mut plan.steps {
        let head = step.action.as_str();
        if v.is_action(head) || parenthesised(text, step.span) {
            continue;
        }
        if let Some(action) = v.respelled_action(head) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::RespelledAction,
                    FILE,
                    step.action.span,
                    format!("read `{head}` as the action `{action}` of the task"),
                )
                .with_help("write actions as the domain spells them"),
            );
            step.action.text = action.into();
        }
    }
    // A step naming no action of the task stays a step (a hallucinated action must fail as
    // one) when it is step-shaped (its arguments are objects of the task) or stands among
    // real steps; `(No plan exists)` alone is prose.
    let any_action = plan.steps.iter().any(|s| v.is_action(s.action.as_str()));
    for step in std::mem::take(&mut plan.steps) {
        let head = step.action.as_str();
        let objects_only = step.args.iter().all(|a| v.is_object(a.as_str()));
        let why = if v.is_fact(head) {
            Some(format!(
                "skipped a fact, not a step: `{}` is a predicate of the task, not an action",
                head
            ))
        } else if !parenthesised(text, step.span)
            && !(objects_only && (v.is_action(head) || !step.args.is_empty()))
        {
            Some(format!(
                "skipped a list item that is prose, not a step: `{}`",
                shorten(text.get(step.span.range()).unwrap_or(head), 40)
            ))
        } else if !(v.is_action(head) || any_action || objects_only && !step.args.is_empty()) {
            Some(format!(
                "skipped text in parentheses that is no step of the task: `{}`",
                shorten(text.get(step.span.range()).unwrap_or(head), 40)
            ))
        } else {
            None
        };
        match why {
            Some(message) => diagnostics.push(
                Diagnostic::warning(Code::SkippedText, FILE, step.span, message).with_help(
                    "a step is `(action arg ...)` with an action and objects of the task",
                ),
            ),
            None => kept.push(step),
        }
    }
    plan.steps = kept;
}

/// A line skipped between two steps that is a step with broken parentheses
/// (`Unload-truck p3 t1 l1-0)`, `(drive-truck t2(l2-0 l2-1 c2)`), or the reply's last line
/// after the last step cut off by the output limit (`(push f5-8f f6-8f f5-7f box2 down`):
/// an action of the task and objects of the task, nothing else. Read as that step, with a
/// warning: dropping it would change the plan the reply states (and could make it pass).
fn repair_broken_steps(
    text: &str,
    plan: &mut Plan,
    v: &Vocabulary,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let (Some(first), Some(last)) = (plan.steps.first(), plan.steps.last()) else {
        return;
    };
    // Between the first and the last step, and the reply's last line when it follows the
    // last step: a step cut off by the output limit (`(push f5-8f f6-8f f5-7f box2 down`).
    let (lo, mut hi) = (first.span.start, last.span.end);
    let rest = &text[(hi as usize).min(text.len())..];
    if rest.trim().lines().count() == 1 {
        hi = text.trim_end().len() as u32;
    }
    let mut kept = Vec::with_capacity(diagnostics.len());
    let mut repaired_any = false;
    for d in std::mem::take(diagnostics) {
        let inside = d.code == Code::SkippedText && d.span.start >= lo && d.span.end <= hi;
        let Some(stretch) = text.get(d.span.range()).filter(|_| inside) else {
            kept.push(d);
            continue;
        };
        // Line by line: each either a repaired step or still skipped.
        let mut lines = Vec::new();
        let mut off = 0;
        for line in stretch.split('\n') {
            let at = d.span.start as usize + off;
            lines.push((at, line, broken_step(line, at, v)));
            off += line.len() + 1;
        }
        if lines.iter().all(|(_, _, step)| step.is_none()) {
            kept.push(d);
            continue;
        }
        repaired_any = true;
        for (at, line, step) in lines {
            let whole = span(at, at + line.len());
            match step {
                Some(step) => {
                    kept.push(
                        Diagnostic::warning(
                            Code::RepairedStep,
                            FILE,
                            whole,
                            format!(
                                "read `{}` as the step `{}`: its parentheses are broken",
                                line.trim(),
                                PlanStep::text(&step)
                            ),
                        )
                        .with_help("write each step as `(action arg ...)`"),
                    );
                    plan.steps.push(step);
                }
                None if !line.trim().is_empty() => kept.push(
                    Diagnostic::warning(
                        Code::SkippedText,
                        FILE,
                        whole,
                        format!("skipped text that is not a plan step: `{}`", shorten(line.trim(), 40)),
                    )
                    .with_help("if this was meant as a step, write it as `(action arg ...)` at the start of a line"),
                ),
                None => {}
            }
        }
    }
    *diagnostics = kept;
    if repaired_any {
        plan.steps.sort_by_key(|s| s.span.start);
    }
}

/// The step a line with broken parentheses states, when it is nothing but an action of the
/// task and objects of the task (parentheses read as blanks). `at`: the line's offset.
fn broken_step(line: &str, at: usize, v: &Vocabulary) -> Option<PlanStep> {
    if !line.contains(['(', ')']) {
        return None;
    }
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        let blank = c.is_whitespace() || c == '(' || c == ')';
        match (blank, start) {
            (false, None) => start = Some(i),
            (true, Some(s0)) => {
                words.push((s0, &line[s0..i]));
                start = None;
            }
            _ => {}
        }
    }
    let &(a0, head) = words.first()?;
    let action = if v.is_action(head) {
        head.to_ascii_lowercase()
    } else {
        v.respelled_action(head)?.to_string()
    };
    if !words[1..].iter().all(|(_, w)| v.is_object(w)) {
        return None;
    }
    let name = |o: usize, w: &str| crate::ast::Name::new(w, span(at + o, at + o + w.len()));
    Some(PlanStep {
        action: crate::ast::Name::new(action.as_str(), span(at + a0, at + a0 + head.len())),
        args: words[1..].iter().map(|&(o, w)| name(o, w)).collect(),
        time: None,
        duration: None,
        span: span(at, at + line.len()),
    })
}

/// A line that marks the final answer: `Final plan:`, `Final answer:`, `**Answer:**`,
/// `Plan:` on its own, `[PLAN]`. The plan is what follows the last one when steps stand on
/// both sides of it.
fn final_marks(text: &str) -> Vec<usize> {
    let mut marks = Vec::new();
    let mut ls = 0;
    for line in text.split('\n') {
        let t = line
            .trim()
            .trim_matches(|c: char| c == '*' || c == '#' || c == '_' || c.is_whitespace())
            .to_ascii_lowercase();
        let ends_colon = t.ends_with(':');
        let t = t.trim_end_matches(':').trim();
        // `So, the plan is:`, `Therefore the final plan would be:`: a sentence ending in a
        // colon that announces the plan.
        let announces = ends_colon
            && t.len() <= 60
            && [
                "the plan is",
                "plan would be",
                "final plan",
                "the solution is",
                "the answer is",
            ]
            .iter()
            .any(|p| t.contains(p));
        let is_mark = announces
            || t.starts_with("final plan")
            || t.starts_with("final answer")
            || t.starts_with("final sequence")
            || t == "answer"
            || t == "plan"
            || t == "[plan]"
            || t == "the plan is"
            || t == "solution";
        if is_mark {
            marks.push(ls);
        }
        ls += line.len() + 1;
    }
    marks
}

fn final_answer(text: &str, plan: &mut Plan, diagnostics: &mut Vec<Diagnostic>) {
    let Some(&mark) = final_marks(text)
        .iter()
        .rev()
        .find(|&&m| plan.steps.iter().any(|s| (s.span.start as usize) < m))
    else {
        return;
    };
    if !plan.steps.iter().any(|s| (s.span.start as usize) > mark) {
        return;
    }
    let dropped: Vec<&PlanStep> = plan
        .steps
        .iter()
        .filter(|s| (s.span.start as usize) < mark)
        .collect();
    if let (Some(first), Some(last)) = (dropped.first(), dropped.last()) {
        let chosen = line_of(text, mark);
        diagnostics.push(
            Diagnostic::warning(
                Code::AmbiguousReply,
                FILE,
                first.span.to(last.span),
                format!(
                    "the reply states steps before its final answer; the {} steps after the \
                     final-answer line {chosen} are the plan",
                    plan.steps.len() - dropped.len()
                ),
            )
            .with_help("steps before the final answer (drafts, reasoning) are not read"),
        );
    }
    plan.steps.retain(|s| (s.span.start as usize) > mark);
}

/// 1-based line number of byte `pos`.
fn line_of(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The plan stated twice: split the steps where prose or a blank line stands between two of
/// them; when a later group repeats an earlier one step for step, only the last statement is
/// kept.
fn stated_twice(text: &str, plan: &mut Plan, diagnostics: &mut Vec<Diagnostic>) {
    if plan.steps.len() < 2 {
        return;
    }
    let key = |s: &PlanStep| {
        let mut k = s.action.as_str().to_ascii_lowercase();
        for a in &s.args {
            k.push(' ');
            k.push_str(&a.as_str().to_ascii_lowercase());
        }
        k
    };
    // Group boundaries: text between two steps with a letter in it, or a blank line.
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    for i in 1..plan.steps.len() {
        let (a, b) = (
            plan.steps[i - 1].span.end as usize,
            plan.steps[i].span.start as usize,
        );
        let between = text.get(a.min(b)..b).unwrap_or("");
        let prose = between.lines().any(|l| {
            let t = l.trim().trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '.' | ')' | '-' | '*' | '+' | '•' | '`')
            });
            t.chars().any(char::is_alphabetic) && !t.to_ascii_lowercase().starts_with("step")
        });
        let blank_line = between.contains("\n\n") || between.contains("\n \n");
        if prose || blank_line || between.contains("```") {
            groups.push(start..i);
            start = i;
        }
    }
    groups.push(start..plan.steps.len());
    if groups.len() < 2 {
        return;
    }
    let keys: Vec<Vec<String>> = groups
        .iter()
        .map(|g| plan.steps[g.clone()].iter().map(key).collect())
        .collect();
    let last = keys.len() - 1;
    let repeats: Vec<usize> = (0..last).filter(|&i| keys[i] == keys[last]).collect();
    if repeats.is_empty() {
        return;
    }
    let first = groups[repeats[0]].clone();
    let kept = groups[last].clone();
    diagnostics.push(
        Diagnostic::warning(
            Code::AmbiguousReply,
            FILE,
            plan.steps[first.start]
                .span
                .to(plan.steps[first.end - 1].span),
            format!(
                "the reply states the plan {} times; the last statement (lines {}–{}) is read",
                repeats.len() + 1,
                line_of(text, plan.steps[kept.start].span.start as usize),
                line_of(text, plan.steps[kept.end - 1].span.end as usize)
            ),
        )
        .with_help("only one copy of a plan stated twice is the plan"),
    );
    let mut drop = vec![false; plan.steps.len()];
    for &i in &repeats {
        for k in groups[i].clone() {
            drop[k] = true;
        }
    }
    let mut k = 0;
    plan.steps.retain(|_| {
        let keep = !drop[k];
        k += 1;
        keep
    });
}

/// Whether the reply states the empty plan: an empty fenced block, an empty `[PLAN]`
/// section, or a sentence saying no action is needed.
fn states_empty(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    // An empty code block.
    let mut in_fence = false;
    let mut content = false;
    for line in lower.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            if in_fence && !content {
                return true;
            }
            in_fence = !in_fence;
            content = false;
        } else if in_fence && !t.is_empty() && !t.starts_with(';') {
            content = true;
        }
    }
    if let Some(i) = lower.find("[plan]")
        && let Some(j) = lower[i..].find("[plan end]")
        && lower[i + 6..i + j].trim().is_empty()
    {
        return true;
    }
    const PHRASES: &[&str] = &[
        "no further actions are needed",
        "no further action is needed",
        "no further actions are required",
        "no further action is required",
        "no actions are needed",
        "no action is needed",
        "no actions are required",
        "no action is required",
        "no actions are necessary",
        "no steps are needed",
        "no steps are required",
        "nothing needs to be done",
        "nothing has to be done",
        "the plan is empty",
        "an empty plan",
        "the empty plan",
        "the goal is already achieved",
        "the goal is already satisfied",
        "the goal has already been achieved",
        "the goal is already met",
        "goal is already satisfied",
        "goals are already satisfied",
    ];
    PHRASES.iter().any(|p| lower.contains(p))
}

/// Whether a reply without a plan says that none exists (a heuristic over its wording,
/// documented in docs/FORMAT.md).
fn claims_unsolvable(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const PHRASES: &[&str] = &[
        "no plan exists",
        "no plan possible",
        "no plan is possible",
        "no possible plan",
        "no valid plan",
        "no solution exists",
        "no solution is possible",
        "there is no solution",
        "there is no plan",
        "there is no valid plan",
        "impossible to achieve",
        "cannot be achieved",
        "can not be achieved",
        "is unsolvable",
        "is not solvable",
        "goal is unreachable",
        "goal is not reachable",
    ];
    PHRASES.iter().any(|p| lower.contains(p))
}

/// Whether a reply without a plan declines the task: its opening says it will not or cannot
/// help. A heuristic over wording (documented in docs/FORMAT.md), counted apart.
fn refuses(text: &str) -> bool {
    let head: String = text
        .trim_start()
        .chars()
        .take(400)
        .collect::<String>()
        .to_ascii_lowercase();
    const PHRASES: &[&str] = &[
        "i'm sorry",
        "i am sorry",
        "i apologize",
        "i can't help",
        "i cannot help",
        "i can't assist",
        "i cannot assist",
        "i'm unable to",
        "i am unable to",
        "i won't",
        "i will not",
        "i can't provide",
        "i cannot provide",
        "i can’t",
        "i’m sorry",
        "as an ai",
    ];
    PHRASES.iter().any(|p| head.contains(p))
}
