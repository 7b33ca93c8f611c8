//! Reading a judge's prose reply.
//!
//! The rule: the reply is cut into blocks, each opened by a header that names a step (an
//! `ACTION:` line, a list item, a `Step 3:` label, a table row); a header is bound to a step
//! by its number and its text together, never by counting lines or blocks, and a header
//! that names no step of the plan binds nothing; a `#REMOVE` applies to the step its block
//! names, a `#MISSING` to the place its words give (`place`); a tag counts only when it is
//! the model's own words, never inside a copy of a step (`tags`). Whatever cannot be bound
//! becomes a note, so nothing the model said is dropped without a word.
//!
//! The parts: `shape` (what a step looks like), `matching` (text to steps), `tags`, `place`.

pub(super) mod matching;
pub(super) mod place;
pub(super) mod shape;
pub(super) mod tags;

use std::collections::BTreeMap;

use safeplan_llm::prompt::one_line;

use crate::llm::reply::matching::{Ctx, excerpt, norm, norm_char};
use crate::llm::reply::place::{Place, place_in};
use crate::llm::reply::shape::{actions_in, label, list_number, strip_emphasis, strip_list_marker};
use crate::llm::reply::tags::{find_tag, is_none_reason, says_nothing};
use crate::{Critique, CritiqueKind, Judgement, Plan};

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
