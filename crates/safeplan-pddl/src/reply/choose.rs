//! Choosing the statement that is the plan (docs/FORMAT.md, "Choosing the statement").
//!
//! 1. With the task's names, a statement that is not a plan of this task is set aside as a
//!    whole: a block of facts (every head a predicate, none an action), parenthesised text
//!    of several words that names nothing of the task, or a list of words that does not read as the task's
//!    steps (`1. Unstack block C from block D`). Without the names, lists of bare words
//!    count only when no statement in another syntax exists. The names never decide which
//!    items *of* a statement are steps.
//! 2. A statement marked as the final answer (after `Final plan:`, `**Plan**:`, `[PLAN]`,
//!    `Answer:`, `Corrected plan:`) wins over everything: it is never set aside by the
//!    names (a misspelled action fails as a step instead), and the last marked one wins
//!    over unmarked ones. A JSON answer is a statement like any other, not a mark. A
//!    complete statement wins over one cut off.
//! 3. Identical statements (the same steps in the same order, whatever their style) count
//!    as one.
//! 4. Otherwise the last statement wins, with a warning naming the lines of each statement
//!    and of the one read.

use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::plan::span;
use crate::span::LineIndex;

use super::Vocabulary;
use super::line::Syntax;
use super::statement::{Origin, Statement};

const FILE: FileKind = FileKind::Plan;

/// Words that say there is no plan, written as a step: `(none)`, `(empty)`.
const NO_PLAN_WORDS: &[&str] = &[
    "none",
    "nothing",
    "null",
    "nil",
    "empty",
    "impossible",
    "unsolvable",
    "no-plan",
    "no_plan",
    "noplan",
    "n/a",
];

/// Why a statement is not a plan of the task, when it is not.
fn not_a_plan(st: &Statement, v: &Vocabulary) -> Option<&'static str> {
    if st.steps.is_empty() || st.origin == Origin::Json {
        return None;
    }
    let facts = st.steps.iter().all(|s| v.is_fact(s.action.as_str()));
    if facts {
        return Some("a block of facts (every head a predicate of the task, none an action)");
    }
    // `(none)`, `(empty)`: a word saying there is no plan, in step form.
    if st.steps.iter().all(|s| {
        s.args.is_empty()
            && !v.is_action(s.action.as_str())
            && NO_PLAN_WORDS.contains(&s.action.as_str().to_ascii_lowercase().as_str())
    }) {
        return Some("a word saying that there is no plan, in step form");
    }
    match st.syntax {
        Some(Syntax::Bare) => {
            // Natural-language lists have the shape of bare steps: a statement reads as the
            // task's steps when at least half of its items have two of: a head that is an
            // action, arguments that are all objects, the action's number of arguments.
            let like = st.steps.iter().filter(|s| v.plan_like(s)).count();
            (like * 2 < st.steps.len())
                .then_some("a list of words that does not read as steps of the task")
        }
        _ => {
            // `(fly_to_moon)` is a step of no action; `(No plan possible)` is a sentence.
            let names_task = st.steps.iter().any(|s| {
                v.is_action(s.action.as_str())
                    || s.args.iter().any(|a| v.is_object(a.as_str()))
                    || s.args.is_empty()
            });
            (!names_task).then_some("text in step form that names no action or object of the task")
        }
    }
}

/// Why a statement is no plan whatever the task: every step a word saying there is none
/// (`(none)`), or words that claim no plan exists (`(no plan can achieve the goal)`).
fn says_no_plan(st: &Statement) -> Option<&'static str> {
    if st.steps.is_empty() || st.origin == Origin::Json {
        return None;
    }
    let words: Vec<String> = st
        .steps
        .iter()
        .map(|s| {
            let mut w = s.action.as_str().to_string();
            for a in &s.args {
                w.push(' ');
                w.push_str(a.as_str());
            }
            w.to_ascii_lowercase()
        })
        .collect();
    let text = words.join(" ");
    let claims = text.starts_with("no plan")
        || text.starts_with("no solution")
        || super::wording::claims_unsolvable(&text);
    let no_plan_word = st.steps.iter().all(|s| {
        s.args.is_empty()
            && NO_PLAN_WORDS.contains(&s.action.as_str().to_ascii_lowercase().as_str())
    });
    (claims || no_plan_word).then_some("words saying that there is no plan, in step form")
}

/// The statement read as the plan (an index into `statements`), and the warnings about the
/// others. `text`: the reply, for line numbers.
pub(super) fn choose(
    text: &str,
    index: &LineIndex,
    statements: &[Statement],
    vocabulary: Option<&Vocabulary>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let mut candidates: Vec<usize> = Vec::new();
    let lines = |st: &Statement| lines(text, index, st);
    for (i, st) in statements.iter().enumerate() {
        // An explicit mark wins over the names: a marked plan is read, and fails where it
        // is wrong.
        let why = if st.marked {
            // Only a claim that there is no plan, in step form, sets a marked statement
            // aside (`**Answer:** (no plan can achieve the goal)`).
            says_no_plan(st)
        } else {
            vocabulary.and_then(|v| not_a_plan(st, v))
        };
        match why {
            Some(why) => diagnostics.push(
                Diagnostic::warning(
                    Code::SkippedText,
                    FILE,
                    st.span,
                    format!("skipped {}: {why}", lines(st)),
                )
                .with_help("a plan is a statement of steps `(action arg ...)` of the task"),
            ),
            None => candidates.push(i),
        }
    }
    if vocabulary.is_none() {
        let other = candidates
            .iter()
            .any(|&i| statements[i].syntax != Some(Syntax::Bare));
        if other {
            candidates.retain(|&i| statements[i].syntax != Some(Syntax::Bare));
        }
    }
    if candidates.is_empty() {
        return None;
    }
    // Commentary is read only when nothing else states a plan.
    if candidates.iter().any(|&i| !statements[i].commentary) {
        candidates.retain(|&i| {
            let st = &statements[i];
            if st.commentary {
                diagnostics.push(
                    Diagnostic::warning(
                        Code::SkippedText,
                        FILE,
                        st.span,
                        format!(
                            "skipped {}: notes about the plan (after a line such as `Notes:`), \
                             not a statement of it",
                            lines(st)
                        ),
                    )
                    .with_help("steps quoted in an explanation are not the plan"),
                );
            }
            !st.commentary
        });
    }
    let all = candidates.clone();
    for prefer in [
        |s: &Statement| !s.commentary,
        |s: &Statement| s.marked,
        |s: &Statement| s.complete,
    ] {
        if candidates.iter().any(|&i| prefer(&statements[i])) {
            candidates.retain(|&i| prefer(&statements[i]));
        }
    }
    let chosen = *candidates.last()?;
    let key = statements[chosen].key();
    let (same, other): (Vec<usize>, Vec<usize>) = all
        .iter()
        .copied()
        .filter(|&i| i != chosen)
        .partition(|&i| statements[i].key() == key);
    let read = &statements[chosen];
    if !same.is_empty() {
        let first = &statements[same[0]];
        diagnostics.push(
            Diagnostic::warning(
                Code::AmbiguousReply,
                FILE,
                first.span,
                format!(
                    "the reply states the plan {} times ({}); they are the same steps, read \
                     once from {}",
                    same.len() + 1,
                    listed(same.iter().map(|&i| lines(&statements[i])), ", "),
                    lines(read)
                ),
            )
            .with_help("a plan stated twice is one plan"),
        );
    }
    if !other.is_empty() {
        let why = if read.marked && other.iter().any(|&i| !statements[i].marked) {
            "the one marked as the final answer"
        } else if !read.complete || other.iter().all(|&i| statements[i].complete) {
            "the last"
        } else {
            "the last complete one"
        };
        let mut at: Vec<usize> = other.clone();
        at.push(chosen);
        at.sort_unstable();
        let first = &statements[at[0]];
        let last = &statements[at[at.len() - 1]];
        diagnostics.push(
            Diagnostic::warning(
                Code::AmbiguousReply,
                FILE,
                span(first.span.start as usize, last.span.end as usize),
                format!(
                    "the reply states {} different plans, at {}; {} is read: {why}",
                    at.len(),
                    listed(at.iter().map(|&i| lines(&statements[i])), " and "),
                    lines(read),
                ),
            )
            .with_help(
                "mark the final answer (`Final plan:`) or state one plan; drafts are not read",
            ),
        );
    }
    Some(chosen)
}

/// The first few of `items` joined by `sep`, and how many more: a reply of a hundred
/// thousand statements gets a warning of one line.
fn listed(items: impl Iterator<Item = String>, sep: &str) -> String {
    const SHOWN: usize = 8;
    let mut shown = Vec::new();
    let mut more = 0usize;
    for item in items {
        if shown.len() < SHOWN {
            shown.push(item);
        } else {
            more += 1;
        }
    }
    let mut out = shown.join(sep);
    if more > 0 {
        out.push_str(&format!("{sep}{more} more"));
    }
    out
}

/// `lines 4–7` (or `line 4`) of a statement.
pub(super) fn lines(text: &str, index: &LineIndex, st: &Statement) -> String {
    let a = index.line_col(text, st.span.start).line;
    let b = index
        .line_col(text, st.span.end.saturating_sub(1).max(st.span.start))
        .line;
    if a == b {
        format!("line {a}")
    } else {
        format!("lines {a}–{b}")
    }
}
