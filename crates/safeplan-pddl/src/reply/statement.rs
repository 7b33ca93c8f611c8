//! The statements of a plan in a reply: each code block, each list or run of step lines
//! between announcing lines, each JSON answer, each `[PLAN] … [PLAN END]` section. A
//! statement holds every step-shaped item in it, in order, as written; what is not a step
//! (prose, notes under a step, comments) is not in it. Which statement is the plan is
//! decided afterwards ([`super::choose`]).

use crate::ast::PlanStep;
use crate::plan::{line_end, span};
use crate::span::Span;

use super::line::{Content, Line, Marker, Syntax, read_line};

/// Where a statement stands in the reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// A fenced code block.
    Fence,
    /// List items and step lines outside code blocks.
    Lines,
    /// A JSON answer (`{"plan": [...]}`).
    Json,
    /// Plan delimiters with nothing between them (`[PLAN END]` alone, `(plan)`, `[]`).
    Delimiters,
}

/// One statement of a plan.
#[derive(Clone, Debug)]
pub(super) struct Statement {
    /// Its steps in order, as written (a step that is not well formed included).
    pub steps: Vec<PlanStep>,
    /// The syntax of its steps (the first step's), `None` for JSON and empty statements.
    pub syntax: Option<Syntax>,
    pub origin: Origin,
    /// After a final-answer line, or an answer format (JSON, `[PLAN]`).
    pub marked: bool,
    /// After a line that announces notes about the plan (`Notes:`, `Explanation:`,
    /// `Verification:`): commentary, read only when nothing else states a plan.
    pub commentary: bool,
    /// Not cut off by the end of the reply (an unclosed code block).
    pub complete: bool,
    /// From its first to its last line.
    pub span: Span,
    /// The cost of a `; cost = N` comment in it.
    pub cost: Option<f64>,
    /// The lines it claims (steps and their comments): not warned about as skipped text.
    pub lines: Vec<(usize, usize)>,
    /// Step-shaped text in sentences between its steps (`Then we (stack a b)` between two
    /// items): not steps, and not skipped silently — unless they are facts of the task, the
    /// statement cannot be read faithfully (docs/FORMAT.md, "Coverage").
    pub unclear: Vec<PlanStep>,
    /// Step-shaped text in sentences of the paragraph around it (just before its first
    /// step, or just after its last, with no blank line between): unclear when the task's
    /// names are known (without them, a sentence cannot be told from a step).
    pub around: Vec<PlanStep>,
}

impl Statement {
    fn new(origin: Origin, marked: bool, at: usize) -> Statement {
        Statement {
            steps: Vec::new(),
            syntax: None,
            origin,
            marked,
            commentary: false,
            complete: true,
            span: span(at, at),
            cost: None,
            lines: Vec::new(),
            unclear: Vec::new(),
            around: Vec::new(),
        }
    }

    /// An explicitly empty statement spanning `a..b`.
    pub(super) fn empty(origin: Origin, marked: bool, a: usize, b: usize) -> Statement {
        let mut s = Statement::new(origin, marked, a);
        s.span = span(a, b);
        s.lines.push((a, b));
        s
    }

    fn claim(&mut self, line: &Line) {
        if self.lines.is_empty() {
            self.span = span(line.start, line.end);
        }
        self.span = span(self.span.start as usize, line.end);
        self.lines.push((line.start, line.end));
    }

    fn push(&mut self, line: &Line, steps: &[PlanStep], syntax: Option<Syntax>) {
        if self.syntax.is_none() {
            self.syntax = syntax;
        }
        self.steps.extend_from_slice(steps);
        self.claim(line);
    }

    /// The steps as lowercase `(action arg ...)`: what makes two statements the same.
    pub(super) fn key(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| s.text().to_ascii_lowercase())
            .collect()
    }
}

/// The lines of `text` from `start` to `end`.
fn lines(text: &str, start: usize, end: usize, bare_ok: bool) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut ls = start;
    while ls < end {
        let le = line_end(bytes, ls).min(end);
        let line = read_line(text, ls, le, end, bare_ok);
        ls = line.end + 1;
        out.push(line);
    }
    out
}

/// What a line that announces what follows says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Announce {
    /// `Final plan:`, `**Plan**:`, `Answer:`, `[PLAN]`: the final answer follows.
    Final,
    /// `Notes:`, `Explanation:`, `Verification:`: commentary follows.
    Commentary,
    /// Anything else ending in `:`, a heading, `[PLAN END]`.
    Other,
}

/// A line that announces what follows (`In PDDL syntax:`, `**Plan**:`, a heading), so
/// that steps after it are another statement; and what it announces.
pub(super) fn announcement(text: &str, line: &Line) -> Option<Announce> {
    if line.marker != Marker::None && !line.heading {
        return None;
    }
    let raw = text.get(line.start..line.end).unwrap_or("");
    let t = raw
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '#' | '_' | '`') || c.is_whitespace())
        .to_ascii_lowercase();
    let colon = t.ends_with(':');
    let t = t.trim_end_matches(':').trim_end_matches(['*', '_']).trim();
    // `**Step 1:**` labels a step: it announces nothing.
    let label = t
        .strip_prefix("step")
        .is_some_and(|r| r.trim().chars().all(|c| c.is_ascii_digit()));
    if is_final_mark(t, colon) {
        Some(Announce::Final)
    } else if (colon && !label) || line.heading || t == "[plan end]" {
        Some(if is_commentary(t) {
            Announce::Commentary
        } else {
            Announce::Other
        })
    } else {
        None
    }
}

/// What a label before a line's steps announces (`Plan: (a x) (b y)` marks the final answer;
/// `Verification: (a x) holds` is a note).
pub(super) fn label_announce(label: &str) -> Announce {
    let t = label
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '#' | '_' | '`') || c.is_whitespace())
        .to_ascii_lowercase();
    let t = t.trim_end_matches(':').trim_end_matches(['*', '_']).trim();
    // A step's label may hold any word (`Check door: (check-door d)`): it is a note only
    // when its first word says so (`Verification:`, `Effects:`).
    let first = t.split_whitespace().next().unwrap_or("");
    if is_final_mark(t, true) {
        Announce::Final
    } else if !first.is_empty() && is_commentary(first) {
        Announce::Commentary
    } else {
        Announce::Other
    }
}

/// `Notes`, `Explanation`, `Verification`, `This works because`: words that announce notes
/// about a plan rather than a plan (lowercase, without the colon).
fn is_commentary(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "note",
        "explanation",
        "verification",
        "verify",
        "check",
        "justification",
        "rationale",
        "reasoning",
        "analysis",
        "why",
        "because",
        "precondition",
        "effect",
        "state after",
        "resulting state",
    ];
    t.len() <= 60 && WORDS.iter().any(|w| t.contains(w))
}

/// `Final plan`, `Final answer`, `Answer`, `Plan`, `[PLAN]`, `Solution`, `So, the plan is:`,
/// `Revised plan:` (lowercase, without its colon).
fn is_final_mark(t: &str, colon: bool) -> bool {
    let announces = colon
        && t.len() <= 60
        && [
            "the plan is",
            "plan would be",
            "final plan",
            "the solution is",
            "the answer is",
            "revised plan",
            "corrected plan",
        ]
        .iter()
        .any(|p| t.contains(p));
    announces
        || t.starts_with("final plan")
        || t.starts_with("final answer")
        || t.starts_with("final sequence")
        || matches!(
            t,
            "answer" | "plan" | "[plan]" | "the plan is" | "solution" | "the plan"
        )
}

/// Builds the statements of the lines outside code blocks.
struct Lines<'a> {
    text: &'a str,
    out: Vec<Statement>,
    cur: Option<Open>,
    /// Every announcing line, with where it stands: what marks the statement after it.
    announcements: Vec<(usize, Announce)>,
    /// Whether the line before was blank (a new paragraph starts).
    after_blank: bool,
    /// Step-shaped text in sentences of the paragraph before the next statement (no blank
    /// or announcing line since): unclear if a statement starts in that paragraph.
    lead: Vec<PlanStep>,
}

/// One item of the statement being read, before it is known whether its bare items are
/// steps or labels.
enum Entry {
    /// Parenthesised or call steps of one line.
    Steps(Line, Vec<PlanStep>, Syntax),
    /// A list item of bare words; `body`: an unmarked line of parenthesised or call steps
    /// follows it before the next item (`Step 1: Pick up block b.⏎(pick-up b)`), so in a
    /// statement of such steps it is the label of that step.
    Bare {
        line: Line,
        step: PlanStep,
        body: bool,
    },
    /// A step that is not well formed.
    Broken(Line, PlanStep),
}

/// The statement being read.
struct Open {
    st: Statement,
    entries: Vec<Entry>,
    /// The content column of the last step that is a list item while no line left of it
    /// has come since: lines indented that far are notes under that step.
    under: Option<usize>,
    /// Whether the item the notes are under is a list item of bare words (a label whose
    /// step may stand under it).
    under_bare: bool,
    /// Step-shaped text in sentences after a blank line since the last step: unclear once
    /// another step follows.
    prose: Vec<PlanStep>,
    /// Step-shaped text in sentences of the last step's paragraph, after it: unclear if
    /// another step follows, else around the statement.
    trailing: Vec<PlanStep>,
    /// Step-shaped text in sentences of the paragraph before the first step.
    lead: Vec<PlanStep>,
    /// Whether a blank line came since the last step.
    blank_since_step: bool,
    /// Steps that are not well formed, kept once another step of the statement follows.
    broken: Vec<(Line, PlanStep)>,
}

impl Open {
    fn new(at: usize) -> Open {
        Open {
            st: Statement::new(Origin::Lines, false, at),
            entries: Vec::new(),
            under: None,
            under_bare: false,
            prose: Vec::new(),
            trailing: Vec::new(),
            lead: Vec::new(),
            blank_since_step: false,
            broken: Vec::new(),
        }
    }

    /// Whether `steps` are this statement's steps so far, the same in the same order.
    fn restates(&self, steps: &[PlanStep]) -> bool {
        let mut own = Vec::new();
        for e in &self.entries {
            match e {
                Entry::Steps(_, s, _) => own.extend(s.iter()),
                Entry::Bare { step, .. } | Entry::Broken(_, step) => own.push(step),
            }
            if own.len() > steps.len() {
                return false;
            }
        }
        own.len() == steps.len()
            && own
                .iter()
                .zip(steps)
                .all(|(a, b)| a.text().eq_ignore_ascii_case(&b.text()))
    }

    fn push(&mut self, entry: Entry) {
        for (l, b) in std::mem::take(&mut self.broken) {
            self.entries.push(Entry::Broken(l, b));
        }
        self.st.unclear.append(&mut self.prose);
        self.st.unclear.append(&mut self.trailing);
        self.st.around.append(&mut self.lead);
        self.blank_since_step = false;
        self.entries.push(entry);
    }

    /// The statement: in one whose steps are parenthesised or calls, a bare item with its
    /// step under it is a label; every other entry is a step, in order.
    fn into_statement(mut self) -> Statement {
        self.st.around.append(&mut self.trailing);
        let strong = self.entries.iter().find_map(|e| match e {
            Entry::Steps(_, _, syntax) => Some(*syntax),
            _ => None,
        });
        for entry in self.entries {
            match entry {
                Entry::Steps(line, steps, syntax) => self.st.push(&line, &steps, Some(syntax)),
                Entry::Bare { line, step, body } => {
                    if strong.is_some() && body {
                        self.st.claim(&line);
                    } else {
                        self.st.push(&line, &[step], Some(Syntax::Bare));
                    }
                }
                Entry::Broken(line, step) => self.st.push(&line, &[step], None),
            }
        }
        if let Some(syntax) = strong {
            self.st.syntax = Some(syntax);
        }
        // Comments were claimed as they came, steps now: in order again.
        self.st.lines.sort_unstable();
        if let (Some(first), Some(end)) = (
            self.st.lines.first(),
            self.st.lines.iter().map(|l| l.1).max(),
        ) {
            self.st.span = span(first.0, end);
        }
        self.st
    }
}

impl Lines<'_> {
    fn close(&mut self) {
        if let Some(open) = self.cur.take() {
            let st = open.into_statement();
            if !st.steps.is_empty() {
                self.out.push(st);
            }
        }
    }

    fn announce(&mut self, at: usize, a: Announce) {
        self.close();
        self.lead.clear();
        self.announcements.push((at, a));
    }

    fn line(&mut self, line: Line) {
        let blank = matches!(line.content, Content::Blank);
        self.read(line);
        self.after_blank = blank;
    }

    fn read(&mut self, line: Line) {
        match &line.content {
            Content::Blank => {
                self.lead.clear();
                if let Some(open) = &mut self.cur {
                    open.blank_since_step = true;
                }
            }
            Content::Comment(cost) => {
                if let Some(open) = &mut self.cur {
                    if cost.is_some() {
                        open.st.cost = *cost;
                    }
                    open.st.claim(&line);
                }
            }
            Content::Steps(steps, syntax) => {
                let (steps, syntax) = (steps.clone(), *syntax);
                self.steps(line, steps, syntax);
            }
            Content::Broken(step) => {
                if let Some(open) = &mut self.cur
                    && open.under.is_none_or(|u| line.indent < u)
                {
                    open.broken.push((line.clone(), step.clone()));
                }
            }
            Content::Prose(items) => match announcement(self.text, &line) {
                Some(a) => self.announce(line.start, a),
                None => match &mut self.cur {
                    Some(open) => {
                        if open.under.is_some_and(|u| line.indent >= u) {
                            // A note under a step.
                            return;
                        }
                        open.under = None;
                        if open.blank_since_step {
                            open.prose.extend(items.iter().cloned());
                        } else {
                            open.trailing.extend(items.iter().cloned());
                        }
                    }
                    None => self.lead.extend(items.iter().cloned()),
                },
            },
        }
    }

    fn steps(&mut self, line: Line, steps: Vec<PlanStep>, syntax: Syntax) {
        let label = line
            .label
            .map(|(a, b)| label_announce(self.text.get(a..b).unwrap_or("")));
        if let Some(open) = &mut self.cur
            && open.under.is_some_and(|u| line.indent >= u)
        {
            // Under a list item: its notes, or the step under a bare label.
            let body = open.under_bare
                && line.marker == Marker::None
                && line.label.is_none()
                && syntax != Syntax::Bare;
            if !body {
                return;
            }
        }
        match label {
            Some(Announce::Final) => self.announce(line.start, Announce::Final),
            // `Verification: (a x) is applicable`: a note, whatever it quotes.
            Some(Announce::Commentary) => return,
            Some(Announce::Other)
                if line.marker == Marker::None
                    && self.after_blank
                    && steps.len() >= 2
                    && self.cur.as_ref().is_some_and(|o| o.restates(&steps)) =>
            {
                // `In short: Feast(d, b), Succumb(d).` after the list: the plan stated again,
                // another statement (read once). A labelled line that adds steps joins the
                // statement instead: reading never drops them.
                self.announce(line.start, Announce::Other);
            }
            _ => {}
        }
        if self.cur.is_none() {
            let mut open = Open::new(line.start);
            open.lead = std::mem::take(&mut self.lead);
            self.cur = Some(open);
        }
        let Some(open) = self.cur.as_mut() else {
            return;
        };
        if syntax == Syntax::Bare {
            open.push(Entry::Bare {
                line: line.clone(),
                step: steps
                    .into_iter()
                    .next()
                    .expect("a bare line holds one step"),
                body: false,
            });
        } else {
            if line.marker == Marker::None
                && line.label.is_none()
                && let Some(Entry::Bare { body, .. }) = open.entries.last_mut()
            {
                *body = true;
            }
            open.push(Entry::Steps(line.clone(), steps, syntax));
        }
        // Only a list item has notes under it: plain step lines may be indented anyhow.
        if line.marker != Marker::None {
            open.under = Some(line.content_col);
            open.under_bare = syntax == Syntax::Bare;
        } else if !open.under_bare {
            open.under = None;
        }
    }

    /// At the end of the reply: a step that is not well formed after the last step (cut off
    /// by the output limit) belongs to the statement.
    fn finish(mut self, last_nonblank: usize) -> (Vec<Statement>, Vec<(usize, Announce)>) {
        if let Some(open) = &mut self.cur
            && open
                .broken
                .last()
                .is_some_and(|(l, _)| l.end >= last_nonblank)
            && let Some((l, b)) = open.broken.pop()
            && open.broken.is_empty()
        {
            open.push(Entry::Broken(l, b));
            open.st.complete = false;
        }
        self.close();
        (self.out, self.announcements)
    }
}

/// The statements in `text` (reasoning, JSON answers and wrapper heads already blanked)
/// outside and inside code blocks, in order, and every announcing line with its offset
/// (for [`mark`]). `regions`: the code-block layout.
pub(super) fn statements(
    text: &str,
    regions: &[Region],
) -> (Vec<Statement>, Vec<(usize, Announce)>) {
    let mut out = Vec::new();
    let last_nonblank = text.trim_end().len();
    let mut builder = Lines {
        text,
        out: Vec::new(),
        cur: None,
        announcements: Vec::new(),
        after_blank: true,
        lead: Vec::new(),
    };
    for r in regions {
        if r.fenced {
            // A code block ends the statement before it.
            builder.close();
            out.append(&mut builder.out);
            if let Some(st) = fenced(text, r) {
                out.push(st);
            }
        } else {
            for line in lines(text, r.start, r.end, false) {
                builder.line(line);
            }
        }
    }
    let (mut rest, announcements) = builder.finish(last_nonblank);
    out.append(&mut rest);
    out.sort_by_key(|s| s.span.start);
    (out, announcements)
}

/// Mark each statement by the last announcing line between the statement before it and
/// itself: the final answer (`Final plan:`, `Plan: (a x) ...`), or commentary (`Notes:`).
/// `statements` sorted by start; `announcements` in order.
pub(super) fn mark(statements: &mut [Statement], announcements: &[(usize, Announce)]) {
    let mut prev_end = 0usize;
    for st in statements.iter_mut() {
        let start = st.span.start as usize;
        // The last announcement at or before the statement's start.
        let k = announcements.partition_point(|&(at, _)| at <= start);
        if k > 0 {
            let (at, a) = announcements[k - 1];
            if at >= prev_end {
                st.marked |= a == Announce::Final;
                st.commentary = a == Announce::Commentary;
            }
        }
        prev_end = prev_end.max(st.span.end as usize);
    }
}

/// The statement of a code block: every step line in it (bare words too), a step that is
/// not well formed between or after them, in order. `None` when it holds no step and is not
/// empty (a domain, prose); an empty block states the empty plan.
fn fenced(text: &str, r: &Region) -> Option<Statement> {
    let ls = lines(text, r.start, r.end, true);
    let mut st = Statement::new(Origin::Fence, false, r.start);
    st.complete = r.closed;
    let mut broken: Vec<(Line, PlanStep)> = Vec::new();
    let mut prose: Vec<PlanStep> = Vec::new();
    let mut meaningful = false;
    for line in &ls {
        match &line.content {
            Content::Blank => {}
            Content::Comment(cost) => {
                if cost.is_some() {
                    st.cost = *cost;
                }
                st.claim(line);
            }
            Content::Steps(steps, syntax) => {
                meaningful = true;
                for (l, b) in broken.drain(..) {
                    st.push(&l, &[b], None);
                }
                st.unclear.append(&mut prose);
                st.push(line, steps, Some(*syntax));
            }
            Content::Broken(step) => {
                meaningful = true;
                if !st.steps.is_empty() {
                    broken.push((line.clone(), step.clone()));
                }
            }
            Content::Prose(items) => {
                meaningful = true;
                if !st.steps.is_empty() {
                    prose.extend(items.iter().cloned());
                }
            }
        }
    }
    // A step cut off at the end of the block.
    if let Some((l, b)) = broken.pop()
        && broken.is_empty()
    {
        st.push(&l, &[b], None);
    }
    if st.steps.is_empty() {
        if meaningful {
            return None;
        }
        st.span = span(r.start, r.end);
        st.origin = Origin::Delimiters;
        st.lines.push((r.start, r.end));
    }
    Some(st)
}

/// A stretch of the reply: inside a code fence or not.
#[derive(Clone, Copy, Debug)]
pub(super) struct Region {
    pub start: usize,
    pub end: usize,
    pub fenced: bool,
    /// For a code block: whether its closing fence is there.
    pub closed: bool,
}

/// Split `text` into regions inside and outside code fences, and the spans of fence lines.
pub(super) fn regions(text: &str) -> (Vec<Region>, Vec<Span>) {
    let bytes = text.as_bytes();
    let mut regions = Vec::new();
    let mut marks = Vec::new();
    // The open fence: its character, length, and where its content starts.
    let mut open: Option<(u8, usize, usize)> = None;
    let mut outside_start = 0;
    let mut ls = 0;
    while ls < bytes.len() {
        let le = line_end(bytes, ls);
        let next = (le + 1).min(bytes.len());
        let line = text.get(ls..le).unwrap_or("");
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let run = fence_run(trimmed);
        match open {
            None => {
                if let Some((ch, n)) = run {
                    let after = &trimmed[n..];
                    let inline_close = if ch == b'`' {
                        after
                            .trim_end()
                            .strip_suffix("```")
                            .map(|inner| inner.trim_end_matches('`').len())
                    } else {
                        None
                    };
                    push_region(&mut regions, outside_start, ls, false, true);
                    match inline_close {
                        Some(inner_len) if !after.trim().trim_matches('`').is_empty() => {
                            // ```(a b)``` on one line.
                            let cstart = ls + indent + n;
                            let cend = cstart + inner_len;
                            marks.push(span(ls, cstart));
                            push_region(&mut regions, cstart, cend, true, true);
                            marks.push(span(cend, le));
                            outside_start = next;
                        }
                        Some(_) => {
                            // ```` `````` ````: an empty block on one line.
                            marks.push(span(ls, le));
                            regions.push(Region {
                                start: ls,
                                end: ls,
                                fenced: true,
                                closed: true,
                            });
                            outside_start = next;
                        }
                        None => {
                            marks.push(span(ls, le));
                            open = Some((ch, n, next));
                        }
                    }
                }
            }
            Some((ch, n, cstart)) => {
                let t = trimmed.trim_end();
                if t.len() >= n && t.bytes().all(|b| b == ch) {
                    regions.push(Region {
                        start: cstart,
                        end: ls.max(cstart),
                        fenced: true,
                        closed: true,
                    });
                    marks.push(span(ls, le));
                    open = None;
                    outside_start = next;
                }
            }
        }
        ls = next;
        if le == bytes.len() {
            break;
        }
    }
    match open {
        Some((_, _, cstart)) => push_region(&mut regions, cstart, bytes.len(), true, false),
        None => push_region(&mut regions, outside_start, bytes.len(), false, true),
    }
    (regions, marks)
}

fn push_region(regions: &mut Vec<Region>, start: usize, end: usize, fenced: bool, closed: bool) {
    if start < end || (fenced && start == end) {
        regions.push(Region {
            start,
            end,
            fenced,
            closed,
        });
    }
}

/// A run of at least three backticks or tildes at the start of `s`.
fn fence_run(s: &str) -> Option<(u8, usize)> {
    let ch = *s.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = s.bytes().take_while(|&b| b == ch).count();
    (n >= 3).then_some((ch, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_split_regions() {
        let text = "a\n```pddl\n(x)\n```\nb\n``` (y) ```\n~~~\n(z)";
        let (regions, marks) = regions(text);
        let got: Vec<(&str, bool)> = regions
            .iter()
            .map(|r| (&text[r.start..r.end], r.fenced))
            .collect();
        assert_eq!(
            got,
            [
                ("a\n", false),
                ("(x)\n", true),
                ("b\n", false),
                (" (y) ", true),
                ("(z)", true)
            ]
        );
        assert!(!regions[4].closed);
        assert_eq!(marks.len(), 5);
    }

    fn read(text: &str) -> Vec<Vec<String>> {
        let (regions, _) = regions(text);
        statements(text, &regions)
            .0
            .iter()
            .map(Statement::key)
            .collect()
    }

    #[test]
    fn a_repeated_step_in_one_list_is_one_statement() {
        assert_eq!(
            read("1. (pick-up a)\n\n2. (stack a b)\n\n3. (stack a b)"),
            [vec!["(pick-up a)", "(stack a b)", "(stack a b)"]]
        );
        assert_eq!(
            read("(pick-up a)\n(stack a b) ; again\n(stack a b) ; again"),
            [vec!["(pick-up a)", "(stack a b)", "(stack a b)"]]
        );
    }

    #[test]
    fn announcing_lines_restarted_numbers_and_blocks_split_statements() {
        assert_eq!(
            read("1. (a x)\n2. (b y)\n\nIn PDDL syntax:\n(a x)\n(b y)"),
            [vec!["(a x)", "(b y)"], vec!["(a x)", "(b y)"]]
        );
        // Numbering never splits a list: all `1.`, a number twice, `1.1`.
        assert_eq!(
            read("1. (a x)\n2. (b y)\n1. (c z)"),
            [vec!["(a x)", "(b y)", "(c z)"]]
        );
        assert_eq!(
            read("1. (a x)\n1. (b y)\n1. (c z)"),
            [vec!["(a x)", "(b y)", "(c z)"]]
        );
        assert_eq!(
            read("1. (a x)\n3. (b y)\n3. (c z)\n- (d w)"),
            [vec!["(a x)", "(b y)", "(c z)", "(d w)"]]
        );
        assert_eq!(
            read("- (a x)\n```\n(b y)\n```\n- (c z)"),
            [vec!["(a x)"], vec!["(b y)"], vec!["(c z)"]]
        );
    }

    #[test]
    fn notes_under_a_step_are_not_steps() {
        let text = "1. **Feast(c, b)**:\n   - (craves c b) holds\n   - Effects: pain\n\
                    2. **Succumb(c)**:\n   - (pain) holds";
        assert_eq!(read(text), [vec!["(feast c b)", "(succumb c)"]]);
        // Prose between numbered steps does not end the list.
        assert_eq!(
            read("1. (a x)\nThis frees x.\n2. (b y)"),
            [vec!["(a x)", "(b y)"]]
        );
    }

    #[test]
    fn broken_steps_between_steps_and_at_the_end_are_steps() {
        assert_eq!(
            read("(a x)\nb-c x y)\n(d x)\n(e y"),
            [vec!["(a x)", "(b-c x y))", "(d x)", "((e y)"]]
        );
        // Alone, not a statement.
        assert!(read("Well (that is it").is_empty());
    }
}
