//! The LLM reviser: the paper's Planning Agent over any provider, and the check of its rewritten plan against the critiques.

use std::sync::Arc;

use async_trait::async_trait;
use safeplan_llm::prompt::{fence, one_line};
use safeplan_llm::{ChatRequest, FinishReason, LlmProvider};
use serde::{Deserialize, Serialize};

use crate::llm::prompt::{context_sections, numbered, system_of};
use crate::llm::reply::is_fence;
use crate::llm::reply::matching::{Ctx, norm};
use crate::llm::reply::shape::{Shape, call_at, leading_action, strip_list_marker};
use crate::{
    Critique, CritiqueKind, Episode, JudgeError, Origin, Plan, Reviser, Revision, Step,
    apply_critiques,
};

// ---------------------------------------------------------------------------------------
// The reviser
// ---------------------------------------------------------------------------------------

/// Options of [`LlmReviser`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmReviserOptions {
    /// Sampling temperature (default 0, as for the judge).
    pub temperature: f64,
    /// The most tokens the reply may have (`None`: the provider's default).
    pub max_output_tokens: Option<u32>,
    /// Drop every step a REMOVE names even when the planner's reply keeps it (default
    /// `true`: REMOVE is applied deterministically, as SEMANTICS §4 and the paper's
    /// Planner do, so the loop's flags are the judge's). With `false` the planner may
    /// decline a REMOVE; the step stays and the refusal is noted.
    pub enforce_remove: bool,
}

impl Default for LlmReviserOptions {
    fn default() -> LlmReviserOptions {
        LlmReviserOptions {
            temperature: 0.0,
            max_output_tokens: None,
            enforce_remove: true,
        }
    }
}

/// The paper's Planning Agent: a language model rewrites the plan with the judge's
/// critiques applied, and its reply is checked by [`check_revision`] so that it cannot
/// silently drop, rewrite or reorder a step nobody flagged.
///
/// A reply with no usable step (empty, prose only) does not stop the loop: the critiques
/// are applied deterministically ([`apply_critiques`]) and the fallback is noted in
/// [`Revision::notes`]. Provider failures are errors ([`JudgeError::Llm`]).
#[derive(Clone)]
pub struct LlmReviser {
    provider: Arc<dyn LlmProvider>,
    options: LlmReviserOptions,
}

impl LlmReviser {
    /// A reviser asking `provider`.
    pub fn new(provider: Arc<dyn LlmProvider>, options: LlmReviserOptions) -> LlmReviser {
        LlmReviser { provider, options }
    }

    /// The options.
    pub fn options(&self) -> &LlmReviserOptions {
        &self.options
    }

    /// The request this reviser sends for `plan` and `critiques`.
    pub fn request(&self, episode: &Episode, plan: &Plan, critiques: &[Critique]) -> ChatRequest {
        let mut user = context_sections(episode);
        user.push_str("CURRENT ACTIONS, numbered from 1:\n");
        user.push_str(&fence("actions", &numbered(plan)));
        user.push_str("\nCRITIQUES:\n");
        user.push_str(&fence("critiques", &critique_lines(plan, critiques)));
        user.push_str(REVISER_FORMAT);
        let mut req = ChatRequest::user(user)
            .with_system(system_of(REVISER_SYSTEM))
            .with_temperature(self.options.temperature);
        if let Some(max) = self.options.max_output_tokens {
            req = req.with_max_output_tokens(max);
        }
        req
    }
}

#[async_trait]
impl Reviser for LlmReviser {
    fn name(&self) -> String {
        format!("llm:{}", self.provider.id())
    }

    async fn revise(
        &self,
        episode: &Episode,
        plan: &Plan,
        critiques: &[Critique],
        round: usize,
    ) -> Result<Revision, JudgeError> {
        let response = self
            .provider
            .chat(&self.request(episode, plan, critiques))
            .await?;
        let mut revision = check_revision(
            &response.text,
            plan,
            critiques,
            round,
            self.options.enforce_remove,
        );
        if response.finish_reason == FinishReason::Length {
            revision.notes.push(
                "the planner's reply was cut off at the output token limit; steps after that point were kept from the plan"
                    .into(),
            );
        }
        revision.usage = response.usage;
        revision.raw = Some(response.text);
        Ok(revision)
    }
}

/// The Planning Agent's role: the wording of the paper's Appendix A.2, then what the
/// critiques mean and that every unflagged action is copied as it is (which
/// [`check_revision`] enforces anyway).
pub(super) const REVISER_SYSTEM: &str = "You are a Planning Agent for embodied AI tasks. Your \
role is to:

1. Analyze action sequences and identify their goals
2. Modify action sequences based on feedback from a Judge
3. Remove redundant actions and add missing actions as needed
4. Ensure action sequences are efficient and complete

Always preserve the original format and only make necessary changes.

The Judge's feedback comes as critiques: REMOVE names an action to delete, MISSING describes \
actions that are absent and where they belong. Delete each action a REMOVE critique names; add \
the actions each MISSING critique asks for, in the same notation as the other actions; copy \
every other action exactly as it is, in the same order.

";

pub(super) const REVISER_FORMAT: &str = "
Reply with the revised sequence only: one action per line, numbered from 1, inside one code \
block.
";

pub(super) fn critique_lines(plan: &Plan, critiques: &[Critique]) -> String {
    let mut out = String::new();
    for c in critiques {
        let reason = one_line(&c.reason);
        let line = match (c.kind, c.index) {
            (CritiqueKind::Remove, Some(i)) => match plan.steps.get(i) {
                Some(step) => format!("REMOVE step {} ({}): {reason}", i + 1, one_line(&step.text)),
                None => continue,
            },
            (CritiqueKind::Remove, None) => continue,
            (CritiqueKind::Missing, at) => {
                let place = match at {
                    Some(0) => "at the start".to_string(),
                    Some(k) => format!("after step {}", k.min(plan.len())),
                    None => "place not given".to_string(),
                };
                let mut line = format!("MISSING ({place}): {reason}");
                if !c.steps.is_empty() {
                    let steps: Vec<String> = c.steps.iter().map(|s| one_line(s)).collect();
                    line.push_str(&format!(" [suggested: {}]", steps.join("; ")));
                }
                line
            }
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("- ");
        out.push_str(&line);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Checking the planner's reply
// ---------------------------------------------------------------------------------------

/// The steps of a planner's reply, in order. A plan of PDDL steps (`(verb args)`) is read
/// by [`safeplan_pddl::read_reply`], the one reply reader. Otherwise: the lines of its last
/// code block that has any (or of the whole reply when no block has), list markers and
/// numbering stripped; for TEACh-style calls (`Driver.Verb(...)`) a line counts only if it
/// starts with an action in that notation, which it is cut to; for free-text plans, list
/// items (and any line inside a code block).
pub(super) fn proposed_steps(reply: &str, shape: &Shape) -> Vec<String> {
    // PDDL steps are read by the one reply reader, as every score reads them
    // (docs/FORMAT.md, "Plans in LLM replies"); TEACh-style calls with quoted arguments
    // (`Driver.PickUp('Mug')`) are not PDDL and are read below.
    if matches!(shape, Shape::SExpr) {
        return safeplan_pddl::read_reply(reply, None)
            .plan
            .map(|p| p.steps.iter().map(|s| s.text()).collect())
            .unwrap_or_default();
    }
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut inside: Option<Vec<&str>> = None;
    for line in reply.lines() {
        if is_fence(line) {
            match inside.take() {
                Some(block) => blocks.push(block),
                None => inside = Some(Vec::new()),
            }
        } else if let Some(block) = inside.as_mut() {
            block.push(line);
        }
    }
    if let Some(block) = inside {
        blocks.push(block);
    }
    let read = |lines: &[&str], fenced: bool| -> Vec<String> {
        lines
            .iter()
            .filter_map(|line| {
                let (marked, rest) = strip_list_marker(line);
                match shape {
                    Shape::Free => {
                        let t = rest.trim().trim_matches('`').trim();
                        (!t.is_empty() && (marked || fenced)).then(|| t.to_string())
                    }
                    // A reply that leaves out the plan's `Driver.` prefix still writes the
                    // plan's actions; they get the prefix back.
                    Shape::Call {
                        prefix: Some(prefix),
                    } => leading_action(rest, shape).or_else(|| {
                        let t = rest.trim().trim_start_matches(['`', '*']).trim_start();
                        let (len, p) = call_at(t)?;
                        p.is_empty().then(|| format!("{prefix}{}", &t[..len]))
                    }),
                    _ => leading_action(rest, shape),
                }
            })
            .collect()
    };
    for block in blocks.iter().rev() {
        let steps = read(block, true);
        if !steps.is_empty() {
            return steps;
        }
    }
    let all: Vec<&str> = reply.lines().filter(|l| !is_fence(l)).collect();
    read(&all, false)
}

/// Align `a` (the plan) and `b` (the reply) by equal keys, preferring to match steps that
/// are to stay (weight 2) over flagged ones (weight 1): pairs `(i, j)` in order.
pub(super) fn align(a: &[String], b: &[String], weight: &[usize]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let skip = t[i + 1][j].max(t[i][j + 1]);
            t[i][j] = if a[i] == b[j] {
                skip.max(t[i + 1][j + 1] + weight[i])
            } else {
                skip
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] && t[i][j] == t[i + 1][j + 1] + weight[i] {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if t[i][j] == t[i + 1][j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

/// Check a planner's reply against the plan and critiques it was given, and build the
/// revision from it, provenance kept.
///
/// The reply's steps (the lines of its last code block that has any, else of the whole
/// reply; list numbering stripped; for plans in a recognised notation only lines that start
/// with an action in it, a missing `Driver.` prefix restored) are aligned with the plan by a longest common
/// subsequence on normalised text (case, spacing, quote style and a common `Driver.`
/// prefix ignored), preferring to match steps no REMOVE names. Then:
///
/// - a matched step keeps its text and [`Origin`];
/// - a step **no REMOVE names** that the reply dropped, rewrote or moved is **kept** at its
///   place, with a note ("step 4 `…` was dropped without a critique; kept");
/// - a step a REMOVE names is dropped; if the reply kept it, it is dropped anyway when
///   `enforce_remove` (noted), else kept (the planner declined; noted);
/// - a reply step matching no plan step is inserted with `Origin::Inserted(round)`, after
///   the kept steps of its gap, except when it only stands in for an unflagged step the
///   reply dropped and no MISSING asked for new steps (a rewrite: discarded, noted), or
///   when its text is a plan step's that the alignment left out (a move: discarded, noted);
///   insertions no MISSING asked for are noted;
/// - a reply with no step at all (empty, prose only) is not used: the critiques are
///   applied by [`apply_critiques`], and that is noted.
///
/// ```
/// use safeplan_judge::{check_revision, Critique, Origin, Plan};
///
/// let plan = Plan::from_actions(&["Driver.Move(1.0)", "Driver.PickUp('Bowl')", "Driver.PickUp('Mug')"]);
/// // The planner removed step 2 as asked, but also dropped step 1.
/// let r = check_revision("```\n1. Driver.PickUp('Mug')\n```", &plan, &[Critique::remove(1, "irrelevant")], 1, true);
/// assert_eq!(r.plan.texts(), ["Driver.Move(1.0)", "Driver.PickUp('Mug')"]);
/// assert_eq!(r.plan.steps[0].origin, Origin::Original(0));
/// assert!(r.notes[0].contains("dropped without a critique"));
/// ```
pub fn check_revision(
    reply: &str,
    plan: &Plan,
    critiques: &[Critique],
    round: usize,
    enforce_remove: bool,
) -> Revision {
    let ctx = Ctx::new(plan);
    // A reasoning model's musings (`<think>...</think>`) are not its revision.
    let reply = &safeplan_pddl::without_reasoning(reply);
    let mut proposed = proposed_steps(reply, &ctx.shape);
    // The alignment table is plan × reply; a reply many times longer than the plan is not
    // a revision of it, and must not cost unbounded memory.
    let limit = 4 * plan.len() + 64;
    let mut too_long = None;
    if proposed.len() > limit {
        too_long = Some(format!(
            "the planner's reply had {} steps; only the first {limit} were read",
            proposed.len()
        ));
        proposed.truncate(limit);
    }
    if proposed.is_empty() {
        let mut revision = apply_critiques(plan, critiques, round);
        revision.notes.insert(
            0,
            "the planner's reply held no steps; the critiques were applied deterministically"
                .into(),
        );
        return revision;
    }
    let prefix = match &ctx.shape {
        Shape::Call { prefix: Some(p) } => norm(p),
        _ => String::new(),
    };
    let key = |s: &str| {
        let n = norm(s);
        match n.strip_prefix(prefix.as_str()) {
            Some(k) if !prefix.is_empty() => k.to_string(),
            _ => n,
        }
    };
    let reply_keys: Vec<String> = proposed.iter().map(|s| key(s)).collect();
    let n = plan.len();
    let mut flagged = vec![false; n];
    for c in critiques {
        if c.kind == CritiqueKind::Remove
            && let Some(i) = c.index
            && i < n
        {
            flagged[i] = true;
        }
    }
    let asked_missing = critiques.iter().any(|c| c.kind == CritiqueKind::Missing);
    let weight: Vec<usize> = flagged.iter().map(|&f| if f { 1 } else { 2 }).collect();
    let pairs = align(&ctx.keys, &reply_keys, &weight);

    let mut matched = vec![false; n];
    let mut reply_matched = vec![false; proposed.len()];
    for &(i, j) in &pairs {
        matched[i] = true;
        reply_matched[j] = true;
    }
    // A reply step the alignment left out whose text is a plan step's that it also left
    // out is that step, moved: not a new step.
    let mut moved_from: Vec<Option<usize>> = vec![None; proposed.len()];
    let mut moved = vec![false; n];
    for q in (0..proposed.len()).filter(|&q| !reply_matched[q]) {
        if let Some(p) = (0..n).find(|&p| !matched[p] && !moved[p] && ctx.keys[p] == reply_keys[q])
        {
            moved[p] = true;
            moved_from[q] = Some(p);
        }
    }

    let mut notes: Vec<String> = too_long.into_iter().collect();
    let mut steps: Vec<Step> = Vec::new();
    let mut inserted_any = false;
    let (mut i, mut j) = (0, 0);
    let anchors = pairs
        .iter()
        .copied()
        .chain(std::iter::once((n, proposed.len())));
    for (ai, aj) in anchors {
        // The gap before this anchor: plan[i..ai] and reply[j..aj] matched nothing.
        let dropped: Vec<usize> = (i..ai).filter(|&p| !flagged[p]).collect();
        let mut new_steps: Vec<&str> = Vec::new();
        for q in j..aj {
            match moved_from[q] {
                Some(p) if flagged[p] => notes.push(format!(
                    "the reply moved {}, which a REMOVE names; dropped",
                    ctx.step_label(p)
                )),
                Some(p) => notes.push(format!(
                    "the reply moved {} without a critique; kept at its place",
                    ctx.step_label(p)
                )),
                None => new_steps.push(&proposed[q]),
            }
        }
        let rewrite = !dropped.is_empty() && !new_steps.is_empty() && !asked_missing;
        for &p in &dropped {
            steps.push(plan.steps[p].clone());
            if moved[p] {
                continue;
            }
            if rewrite {
                let with: Vec<String> = new_steps
                    .iter()
                    .map(|s| format!("`{}`", one_line(s)))
                    .collect();
                notes.push(format!(
                    "{} was rewritten as {} without a critique; kept the original",
                    ctx.step_label(p),
                    with.join(", ")
                ));
            } else {
                notes.push(format!(
                    "{} was dropped without a critique; kept",
                    ctx.step_label(p)
                ));
            }
        }
        if !rewrite {
            for text in new_steps {
                if !asked_missing {
                    notes.push(format!(
                        "the reply inserted `{}` though no critique asked for new steps",
                        one_line(text)
                    ));
                }
                inserted_any = true;
                steps.push(Step {
                    text: text.to_string(),
                    origin: Origin::Inserted(round),
                });
            }
        }
        if let Some(step) = plan.steps.get(ai) {
            if flagged[ai] && enforce_remove {
                notes.push(format!(
                    "the reply kept {}, which a REMOVE names; dropped",
                    ctx.step_label(ai)
                ));
            } else {
                if flagged[ai] {
                    notes.push(format!(
                        "the planner declined the REMOVE of {}; kept",
                        ctx.step_label(ai)
                    ));
                }
                steps.push(step.clone());
            }
        }
        i = ai + 1;
        j = aj + 1;
    }
    if asked_missing && !inserted_any {
        notes.push("the planner added no step for the MISSING critiques".into());
    }
    Revision {
        plan: Plan { steps },
        notes,
        ..Revision::default()
    }
}
