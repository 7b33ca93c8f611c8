//! Plans out of LLM replies: [`read_reply`], the one reply reader.
//!
//! A chat model answers a planning prompt with prose, Markdown, code fences of any language,
//! numbered lists, JSON, reasoning blocks, and sometimes the plan twice or no plan at all.
//! Everything that scores a model's plan — `validate --llm-plan`, the benchmark, the reward
//! functions, the inspect scorers, the MCP tools, the judge's reviser — reads it here, so
//! the instrument is one piece of code with one invariant:
//!
//! **Reading never changes the plan the model wrote.** Every item of the chosen statement
//! that has the shape of a step is a step, in order, verbatim, whatever names it uses; an
//! unknown action, an unknown object, a wrong arity or broken parentheses are failures of
//! that step (the validator says which), never a reason to skip, repair, respell, merge or
//! de-duplicate it. The task's names may help to choose *which* statement is the plan — a
//! block of the task's steps rather than a block of facts or a list of sentences — never
//! which items of it to keep.
//!
//! The reading runs in layers, each in its own file:
//!
//! - `reasoning.rs`: `<think>…</think>` and kin are blanked (not the answer);
//! - `json.rs`: JSON answers become statements; `wrapper.rs`: `(plan …)`-style wrappers are
//!   read as the steps inside them;
//! - `line.rs`: each line read by shape alone — a parenthesised step, a `name(args)` call,
//!   bare words in a list item or code block, a step whose parentheses do not match, a
//!   comment, or prose;
//! - `statement.rs`: lines grouped into statements — a code block, a list or a run of step
//!   lines up to the next announcing line (`In PDDL syntax:`, a heading) or restarted
//!   numbering; notes under a step are not steps;
//! - `choose.rs`: the rule that picks the statement that is the plan;
//! - `wording.rs`: what a reply with no statement says (nothing left to do, no plan exists,
//!   a refusal).
//!
//! A reply with no statement of a plan is **no plan** ([`NoPlan`]), never the empty plan,
//! never valid. The empty plan is an answer only when the reply states it: plan delimiters
//! with nothing between them (`[PLAN END]` alone, an empty code block, `(plan)`, `[]`,
//! `{"plan": []}`) or a sentence saying no action is needed.
//!
//! The invariant is proved by construction, not by a corpus: `safeplan-testkit`'s
//! `reply_styles` writes every corpus plan, mutated the way models err, in every reply
//! style, and the reading must give that plan back (`crates/safeplan-validate/tests/
//! reply_faithful.rs`). Every rule is written, with an example, in docs/FORMAT.md.

mod choose;
mod coverage;
mod json;
mod line;
mod reasoning;
mod statement;
mod wording;
mod wrapper;

use std::collections::{BTreeMap, BTreeSet};

pub use reasoning::without_reasoning;
use serde::{Deserialize, Serialize};

use crate::Parsed;
use crate::ast::{Domain, Plan, Problem};
use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::plan::{shorten, span};
use crate::span::LineIndex;
use statement::{Origin, Statement};

const FILE: FileKind = FileKind::Plan;

/// What a task names, lowercased: its actions (with their number of parameters, when
/// known), predicates and objects (constants included). [`read_reply`] uses it to choose
/// which statement of a reply is the plan — never which items of it are steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vocabulary {
    actions: BTreeMap<String, Option<usize>>,
    predicates: BTreeSet<String>,
    objects: BTreeSet<String>,
}

impl Vocabulary {
    /// The names of `domain` (actions and durative actions with their arities, predicates,
    /// derived predicates, constants) and of `problem`'s objects.
    pub fn of(domain: &Domain, problem: Option<&Problem>) -> Vocabulary {
        let lower = |n: &crate::ast::Name| n.text.as_str().to_ascii_lowercase();
        Vocabulary {
            actions: domain
                .actions
                .iter()
                .map(|a| (lower(&a.name), Some(a.params.len())))
                .chain(
                    domain
                        .durative_actions
                        .iter()
                        .map(|a| (lower(&a.name), Some(a.params.len()))),
                )
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

    /// A vocabulary of the given names (any case); actions without arities
    /// ([`Vocabulary::with_arities`] adds them).
    pub fn new<'a>(
        actions: impl IntoIterator<Item = &'a str>,
        predicates: impl IntoIterator<Item = &'a str>,
        objects: impl IntoIterator<Item = &'a str>,
    ) -> Vocabulary {
        let set = |it: &mut dyn Iterator<Item = &'a str>| it.map(str::to_ascii_lowercase).collect();
        Vocabulary {
            actions: actions
                .into_iter()
                .map(|a| (a.to_ascii_lowercase(), None))
                .collect(),
            predicates: set(&mut predicates.into_iter()),
            objects: set(&mut objects.into_iter()),
        }
    }

    /// The same names, with the number of parameters of each named action.
    pub fn with_arities<'a>(mut self, arities: impl IntoIterator<Item = (&'a str, usize)>) -> Self {
        for (name, n) in arities {
            self.actions.insert(name.to_ascii_lowercase(), Some(n));
        }
        self
    }

    fn is_action(&self, name: &str) -> bool {
        lookup(&self.actions, name).is_some()
    }

    fn is_fact(&self, name: &str) -> bool {
        has(&self.predicates, name) && !self.is_action(name)
    }

    fn is_object(&self, name: &str) -> bool {
        has(&self.objects, name)
    }

    /// Whether a step reads as a step of this task: two of a head that is an action,
    /// arguments that are all objects, and the action's number of arguments. For telling
    /// a list of the task's steps from a list of sentences of the same shape; one wrong
    /// name (a hallucinated object or action, a wrong arity) still reads as a step.
    fn plan_like(&self, step: &crate::ast::PlanStep) -> bool {
        let arity = lookup(&self.actions, step.action.as_str());
        let head = arity.is_some();
        let objects = step.args.iter().all(|a| self.is_object(a.as_str()));
        let count = match arity {
            Some(Some(n)) => n == step.args.len(),
            // Arity unknown: the action and its objects must do.
            Some(None) => objects,
            None => false,
        };
        usize::from(head) + usize::from(objects) + usize::from(count) >= 2
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

fn lookup(map: &BTreeMap<String, Option<usize>>, name: &str) -> Option<Option<usize>> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        map.get(&name.to_ascii_lowercase()).copied()
    } else {
        map.get(name).copied()
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
    /// The plan's steps stand among sentences that quote step-shaped text which is not a
    /// fact of the task (`1. (pick-up a)⏎Then we (stack a b).⏎2. (put-down c)`): which of
    /// them are steps is unclear, and reading must not guess (docs/FORMAT.md, "Coverage").
    Unclear,
}

impl NoPlan {
    /// `empty`, `refusal`, `claims_unsolvable`, `unreadable`.
    pub fn as_str(self) -> &'static str {
        match self {
            NoPlan::Empty => "empty",
            NoPlan::Refusal => "refusal",
            NoPlan::ClaimsUnsolvable => "claims_unsolvable",
            NoPlan::Unreadable => "unreadable",
            NoPlan::Unclear => "unclear",
        }
    }

    /// The reason [`NoPlan::as_str`] names.
    pub fn parse(text: &str) -> Option<NoPlan> {
        [
            NoPlan::Empty,
            NoPlan::Refusal,
            NoPlan::ClaimsUnsolvable,
            NoPlan::Unreadable,
            NoPlan::Unclear,
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
            NoPlan::Unclear => {
                "the reply mixes its steps with step-shaped text in sentences: which are steps \
                 is unclear, so it is read as no plan"
            }
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
    /// Whether the reply states the empty plan (an empty block, `(plan)`, `[PLAN END]`
    /// alone, `{"plan": []}`, "no further actions are needed").
    pub stated_empty: bool,
    /// A warning for everything not read as a step (prose, notes, a reasoning block, a
    /// block of facts, another statement of the plan) and for each step that is not well
    /// formed, each with its span in the reply.
    pub diagnostics: Vec<Diagnostic>,
}

impl Reply {
    /// The plan the reply states, or why it holds none: the one rule every front end reads
    /// a reply's outcome by. A reply with no plan that gives no reason is
    /// [`NoPlan::Unreadable`]; no plan is never the empty plan (which a reply states as
    /// `Ok` of no steps).
    pub fn stated_plan(&self) -> Result<&Plan, NoPlan> {
        self.plan
            .as_ref()
            .ok_or(self.no_plan.unwrap_or(NoPlan::Unreadable))
    }
}

/// One step as read from a reply: its text and where it stands in the reply. What a user
/// who doubts a score looks at (`validate --llm-plan --json`, Python, MCP, bench reports).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadStep {
    /// `(action arg ...)` as written (a step that is not well formed: its text in
    /// parentheses).
    pub text: String,
    /// 1-based line of the step in the reply.
    pub line: u32,
    /// 1-based column (characters) of the step in the reply.
    pub column: u32,
}

/// What was read from a reply, as every front end shows it (`validate --llm-plan --json`'s
/// `read`, Python's `Verdict.read`, MCP results, bench reports): the steps scored, each with
/// its place in the reply, and the reader's warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadReport {
    /// The steps read, in order ([`Reply::read_steps`]).
    pub steps: Vec<ReadStep>,
    /// The reader's warnings, `line L: message` ([`Reply::warnings`]).
    pub warnings: Vec<String>,
}

impl Reply {
    /// The steps read and the warnings, for showing what was scored (`reply`: the text
    /// that was read).
    pub fn report(&self, reply: &str) -> ReadReport {
        let index = LineIndex::new(reply);
        ReadReport {
            steps: self.steps_at(reply, &index),
            warnings: self.warnings_at(reply, &index),
        }
    }

    /// The steps read, each with its line and column in `reply` (the text that was read).
    pub fn read_steps(&self, reply: &str) -> Vec<ReadStep> {
        self.steps_at(reply, &LineIndex::new(reply))
    }

    /// The reader's warnings as `line L: message` (`reply`: the text that was read).
    pub fn warnings(&self, reply: &str) -> Vec<String> {
        self.warnings_at(reply, &LineIndex::new(reply))
    }

    fn steps_at(&self, reply: &str, index: &LineIndex) -> Vec<ReadStep> {
        self.plan
            .iter()
            .flat_map(|p| &p.steps)
            .map(|s| {
                let at = index.line_col(reply, s.span.start);
                ReadStep {
                    text: s.text(),
                    line: at.line,
                    column: at.col,
                }
            })
            .collect()
    }

    fn warnings_at(&self, reply: &str, index: &LineIndex) -> Vec<String> {
        self.diagnostics
            .iter()
            .map(|d| {
                format!(
                    "line {}: {}",
                    index.line_col(reply, d.span.start).line,
                    d.message
                )
            })
            .collect()
    }
}

/// Read the plan an LLM reply states; see the module documentation for the rules. With
/// `vocabulary` (the task's names), statements that are not plans of the task (blocks of
/// facts, sentences in list form) are told from the plan; without it, by shape alone.
///
/// ```
/// use safeplan_pddl::{NoPlan, Vocabulary, read_reply};
///
/// let v = Vocabulary::new(["unstack", "put-down"], ["on", "clear"], ["a", "b"]);
/// let reply = "<think>(on a b) holds, so unstack first</think>\n```\n(unstack a b)\n(put-down a)\n```";
/// let plan = read_reply(reply, Some(&v)).plan.expect("a plan");
/// assert_eq!(plan.steps.len(), 2);
///
/// // A hallucinated object is a step of the plan, which then fails on it.
/// let plan = read_reply("1. (unstack a b)\n2. (put-down table)", Some(&v)).plan.expect("a plan");
/// assert_eq!(plan.steps[1].text(), "(put-down table)");
///
/// // A refusal is no plan, not an empty plan.
/// let r = read_reply("I'm sorry, but I can't help with planning this task.", Some(&v));
/// assert_eq!((r.plan, r.no_plan), (None, Some(NoPlan::Refusal)));
///
/// // Saying that nothing is left to do is the empty plan; so is `[PLAN END]` alone.
/// let r = read_reply("No further actions are needed as the goal has been achieved.", Some(&v));
/// assert_eq!(r.plan.map(|p| p.steps.len()), Some(0));
/// let r = read_reply("[PLAN END]", Some(&v));
/// assert_eq!(r.plan.map(|p| p.steps.len()), Some(0));
/// ```
pub fn read_reply(text: &str, vocabulary: Option<&Vocabulary>) -> Reply {
    let mut diagnostics = Vec::new();
    let no_plan = |why, diagnostics| Reply {
        plan: None,
        no_plan: Some(why),
        stated_empty: false,
        diagnostics,
    };
    if let Err(d) = crate::decode(text.as_bytes(), FILE) {
        return no_plan(NoPlan::Unreadable, vec![d]);
    }
    if text.trim().is_empty() {
        return no_plan(NoPlan::Empty, diagnostics);
    }
    // Every Unicode space is a space (o1 writes `Feast(b,\u{202F}a)`), byte for byte, so
    // every span stays right.
    let mut masked = normalise_spaces(text);
    // Reasoning is not the answer: blanked, byte for byte.
    for (start, end) in reasoning::reasoning_blocks(text) {
        reasoning::blank(&mut masked, start, end);
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
    let answer = to_text(&masked);
    if answer.trim().is_empty() {
        return no_plan(NoPlan::Empty, diagnostics);
    }
    let mut statements: Vec<Statement> = Vec::new();
    // JSON answers, then blanked so their strings are not read again as lines.
    for (st, (a, b)) in json::json_statements(&answer) {
        reasoning::blank(&mut masked, a, b);
        statements.push(st);
    }
    // `(plan ...)` wrappers: the steps inside; `(plan)` states the empty plan.
    let answer = to_text(&masked);
    for (open, close, empty) in wrapper::wrappers(&answer) {
        if empty {
            statements.push(Statement::empty(
                Origin::Delimiters,
                false,
                open.0,
                close + 1,
            ));
            reasoning::blank(&mut masked, open.0, close + 1);
        } else {
            reasoning::blank(&mut masked, open.0, open.1);
            reasoning::blank(&mut masked, close, close + 1);
        }
    }
    let unwrapped = to_text(&masked);
    for (a, b) in wrapper::containers(&unwrapped) {
        reasoning::blank(&mut masked, a, b);
    }
    let answer = to_text(&masked);
    statements.extend(empty_sections(&answer));
    let json: Vec<(u32, u32)> = statements
        .iter()
        .filter(|s| s.origin == Origin::Json)
        .map(|s| (s.span.start, s.span.end))
        .collect();
    let (regions, fence_marks) = statement::regions(&answer);
    let (found, announcements) = statement::statements(&answer, &regions);
    // A code block that held only a JSON answer is that answer, not an empty block.
    statements.extend(found.into_iter().filter(|s| {
        s.origin != Origin::Delimiters
            || !json
                .iter()
                .any(|&(a, b)| s.span.start < b && a < s.span.end.max(s.span.start + 1))
    }));
    statements.sort_by_key(|s| s.span.start);
    statement::mark(&mut statements, &announcements);

    let lines = LineIndex::new(text);
    let chosen = choose::choose(text, &lines, &statements, vocabulary, &mut diagnostics);
    // Everything else that is not blank, markup or another statement is skipped text.
    let mut claimed: Vec<(usize, usize)> = fence_marks
        .iter()
        .map(|s| (s.start as usize, s.end as usize))
        .collect();
    for (i, st) in statements.iter().enumerate() {
        if Some(i) == chosen {
            claimed.extend(st.lines.iter().copied());
        } else {
            claimed.push((st.span.start as usize, st.span.end as usize));
        }
    }
    skipped_text(&answer, &mut claimed, &mut diagnostics);
    let Some(chosen) = chosen else {
        // What the wording says is decided before any mention of the empty plan: "I'm
        // sorry, I can't produce a plan. An empty plan will not work." is a refusal.
        let why = if wording::claims_unsolvable(&answer) {
            NoPlan::ClaimsUnsolvable
        } else if wording::refuses(&answer) {
            NoPlan::Refusal
        } else if wording::states_empty(&answer) {
            return Reply {
                plan: Some(Plan::default()),
                no_plan: None,
                stated_empty: true,
                diagnostics,
            };
        } else {
            NoPlan::Unreadable
        };
        return no_plan(why, diagnostics);
    };
    let st = &statements[chosen];
    // Coverage: step-shaped text in sentences between the steps is never skipped silently.
    let around = st.around.iter().filter(|_| vocabulary.is_some());
    let unclear: Vec<&crate::ast::PlanStep> = st
        .unclear
        .iter()
        .chain(around)
        .filter(|s| !is_note_item(s.action.as_str(), &arg_texts(s), vocabulary))
        .collect();
    if !unclear.is_empty() {
        for s in &unclear {
            diagnostics.push(
                Diagnostic::warning(
                    Code::AmbiguousReply,
                    FILE,
                    s.span,
                    format!(
                        "`{}` stands in a sentence between the plan's steps: it may be a step or \
                         not, so the reply is read as no plan",
                        shorten(&s.text(), 60)
                    ),
                )
                .with_help("write every step on a line of its own, `(action arg ...)`"),
            );
        }
        diagnostics.sort_by_key(|d| d.span.start);
        return no_plan(NoPlan::Unclear, diagnostics);
    }
    let mut steps = Vec::with_capacity(st.steps.len());
    for (i, step) in st.steps.iter().enumerate() {
        // A fact of the task in a sentence or after a step (`(holding a) is now true.`,
        // `(pick-up a) → (holding a)`), or a remark after a step in words (`(pick-up a),
        // done (carefully)`), is a note, not a step.
        let head = step.action.as_str();
        let after_prose = i > 0 && {
            let (a, b) = (st.steps[i - 1].span.end as usize, step.span.start as usize);
            answer
                .get(a.min(b)..b)
                .is_some_and(|gap| !gap.contains('\n') && !line::is_joining(gap))
        };
        let fact = vocabulary.is_some_and(|v| v.is_fact(head))
            && in_sentence(&answer, i.checked_sub(1).map(|k| &st.steps[k]), step);
        let remark = after_prose && is_note_item(head, &arg_texts(step), vocabulary);
        if st.origin != Origin::Json && (fact || remark) {
            let what = if fact {
                "a fact of the task (a predicate, not an action)"
            } else {
                "a remark in words after a step, naming nothing of the task"
            };
            diagnostics.push(
                Diagnostic::warning(
                    Code::SkippedText,
                    FILE,
                    step.span,
                    format!(
                        "skipped `{}`: {what}, not a step",
                        shorten(&step.text(), 60)
                    ),
                )
                .with_help("a plan lists actions; facts about states are notes"),
            );
            continue;
        }
        steps.push(step.clone());
        if !step.args.is_empty()
            || !step.action.text.contains(|c: char| {
                c.is_whitespace() || c == '(' || c == ')' || c == '{' || c == '"'
            })
        {
            continue;
        }
        diagnostics.push(
            Diagnostic::warning(
                Code::MalformedStep,
                FILE,
                step.span,
                format!(
                    "read `{}` as a step that is not well formed: it fails as written",
                    shorten(step.action.as_str(), 60)
                ),
            )
            .with_help("write each step as `(action arg ...)`"),
        );
    }
    debug_assert!(
        coverage::violations(&answer, st, &steps, vocabulary).is_empty(),
        "coverage: {:?}",
        coverage::violations(&answer, st, &steps, vocabulary)
    );
    diagnostics.sort_by_key(|d| d.span.start);
    let plan = Plan {
        steps,
        cost: st.cost,
    };
    Reply {
        stated_empty: plan.steps.is_empty(),
        plan: Some(plan),
        no_plan: None,
        diagnostics,
    }
}

/// Whether step-shaped text quoted in a sentence is a note rather than a possible step: a
/// fact of the task, or a remark in parentheses naming nothing of the task (`(carefully)`,
/// `(see above)`). Without the task's names, a single word is a remark. The coverage rule
/// (docs/FORMAT.md) and its check ([`coverage`]) both use it.
pub(super) fn is_note_item(head: &str, args: &[&str], vocabulary: Option<&Vocabulary>) -> bool {
    match vocabulary {
        Some(v) => v.is_fact(head) || (!v.is_action(head) && !args.iter().any(|a| v.is_object(a))),
        None => args.is_empty(),
    }
}

fn arg_texts(step: &crate::ast::PlanStep) -> Vec<&str> {
    step.args.iter().map(|a| a.as_str()).collect()
}

/// Whether `step` stands in a sentence or after another step on its line (`(holding a) is
/// now true.`, `(pick-up a) → (holding a)`) rather than alone as an item: a fact there is a
/// note, a fact alone is a step that fails.
fn in_sentence(
    answer: &str,
    prev: Option<&crate::ast::PlanStep>,
    step: &crate::ast::PlanStep,
) -> bool {
    let (a, b) = (step.span.start as usize, step.span.end as usize);
    // After another step on its line.
    if let Some(p) = prev
        && answer
            .get(p.span.end as usize..a)
            .is_some_and(|gap| !gap.contains('\n'))
    {
        return true;
    }
    // Words after it, up to the line's end, a comment or the next `(` (looked at for a
    // bounded stretch, so a line of many facts costs no more per fact).
    let rest = answer.get(b..).unwrap_or("");
    let stop = rest
        .bytes()
        .take(400)
        .position(|c| matches!(c, b'\n' | b';' | b'('))
        .unwrap_or(rest.len().min(400));
    let markup = |c: char| c.is_whitespace() || matches!(c, '.' | ',' | '*' | '_' | '`' | ':');
    let after = rest.get(..stop).unwrap_or("");
    !after.trim_matches(markup).is_empty()
}

/// `text` as bytes with every Unicode space (no-break, narrow, ideographic, zero-width,
/// line separators) replaced by as many ASCII spaces as it has bytes: names never hold
/// them, and every offset stays that of `text`.
fn normalise_spaces(text: &str) -> Vec<u8> {
    let mut out = text.as_bytes().to_vec();
    if text.is_ascii() {
        return out;
    }
    for (i, c) in text.char_indices() {
        let space = (!c.is_ascii() && c.is_whitespace())
            || matches!(
                c,
                '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
            );
        if space {
            for b in &mut out[i..i + c.len_utf8()] {
                *b = b' ';
            }
        }
    }
    out
}

/// Find the plan's steps in text that is not a plan file (an LLM reply, a planner's
/// output) by shape alone: [`read_reply`] without the task's names, as a [`Parsed`] value
/// (the plan read, or the empty plan when there is none; the reader's warnings).
///
/// ```
/// use safeplan_pddl::{extract_plan, Code};
///
/// let reply = "Sure! Here is the plan:\n\n```pddl\n(pick ball1 rooma)\n(move rooma roomb) ; go\n```\n\
///              This works because the ball (ball1) is light.";
/// let parsed = extract_plan(reply);
/// let plan = parsed.value.unwrap_or_default();
/// let steps: Vec<&str> = plan.steps.iter().map(|s| &reply[s.span.range()]).collect();
/// assert_eq!(steps, ["(pick ball1 rooma)", "(move rooma roomb)"]);
/// assert!(parsed.diagnostics.iter().all(|d| d.code == Code::SkippedText));
/// ```
pub fn extract_plan(text: &str) -> Parsed<Plan> {
    let reply = read_reply(text, None);
    Parsed {
        value: Some(reply.plan.unwrap_or_default()),
        diagnostics: reply.diagnostics,
    }
}

fn to_text(bytes: &[u8]) -> String {
    // Blanking replaces whole ASCII tags, JSON objects and parentheses with spaces: still
    // UTF-8 unless a blanked range cut a character, which none of them can.
    String::from_utf8(bytes.to_vec())
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `[PLAN END]` with nothing before it since the last `[PLAN]` (or the start of the
/// answer): PlanBench's format stating the empty plan. Also `[PLAN][PLAN END]`. One pass.
fn empty_sections(text: &str) -> Vec<Statement> {
    const OPEN: &str = "[plan]";
    const CLOSE: &str = "[plan end]";
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    // Where the current section's content starts, and the `[PLAN]` that opened it.
    let mut section = 0usize;
    let mut opened: Option<usize> = None;
    let mut from = 0;
    while let Some(rel) = lower[from..].find('[') {
        let at = from + rel;
        let rest = &lower[at..];
        if rest.starts_with(OPEN) {
            section = at + OPEN.len();
            opened = Some(at);
            from = section;
        } else if rest.starts_with(CLOSE) {
            let end = at + CLOSE.len();
            if lower[section..at].trim().is_empty() {
                out.push(Statement::empty(
                    Origin::Delimiters,
                    true,
                    opened.unwrap_or(at),
                    end,
                ));
            }
            section = end;
            opened = None;
            from = end;
        } else {
            from = at + 1;
        }
    }
    out
}

/// A [`Code::SkippedText`] warning for each run of non-blank lines of `text` outside the
/// `claimed` ranges.
fn skipped_text(text: &str, claimed: &mut [(usize, usize)], diagnostics: &mut Vec<Diagnostic>) {
    claimed.sort_unstable();
    // Touching ranges merged (an inline block's fence marks and content).
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for &(s, e) in claimed.iter() {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    // The merged ranges are sorted and disjoint: the one that could hold `a..b` is the last
    // that starts at or before `a` (a binary search, so a long reply costs no more per line).
    let is_claimed = |a: usize, b: usize| {
        let k = merged.partition_point(|&(s, _)| s <= a);
        k > 0 && b <= merged[k - 1].1
    };
    let mut run: Option<(usize, usize)> = None;
    let flush = |run: &mut Option<(usize, usize)>, diagnostics: &mut Vec<Diagnostic>| {
        if let Some((a, b)) = run.take() {
            let stretch = text.get(a..b).unwrap_or("").trim();
            diagnostics.push(
                Diagnostic::warning(
                    Code::SkippedText,
                    FILE,
                    span(a, b),
                    format!(
                        "skipped text that is not a plan step: `{}`",
                        shorten(stretch.lines().next().unwrap_or(""), 40)
                    ),
                )
                .with_help(
                    "if this was meant as a step, write it as `(action arg ...)` at the start of \
                     a line",
                ),
            );
        }
    };
    let mut ls = 0;
    for line in text.split('\n') {
        let le = ls + line.len();
        let lead = line.len() - line.trim_start().len();
        let (a, b) = (ls + lead, ls + line.trim_end().len());
        // Comments are markup, as in plan files.
        let comment = line.trim_start().starts_with(';');
        if a < b && !comment && !is_claimed(a, b) {
            run = Some(run.map_or((a, b), |(s, _)| (s, b)));
        } else if a < b {
            flush(&mut run, diagnostics);
        }
        ls = le + 1;
    }
    flush(&mut run, diagnostics);
}
