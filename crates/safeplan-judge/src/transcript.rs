//! The JSONL records a judge run writes: one line per round (the transcript) and one per
//! episode (the refined output).

use serde::Serialize;

use crate::plan::{Critique, Step};
use crate::refine::{Refinement, StopReason};
use safeplan_llm::Usage;

/// One line of `transcript.jsonl`: a round of one episode, in the order a person reads it
/// (the plan judged, what the judge said, what the reviser made of it).
#[derive(Clone, Debug, Serialize)]
pub struct TranscriptLine<'a> {
    /// The episode id.
    pub id: &'a str,
    /// The round, from 1.
    pub round: usize,
    /// The judge's name.
    pub judge: &'a str,
    /// The plan judged, one `"N. text  [origin]"` line per step.
    pub plan: Vec<String>,
    /// The critiques, indices 0-based into `plan`.
    pub critiques: &'a [Critique],
    /// Judge notes (unbound tags, ...).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub judge_notes: &'a [String],
    /// The judge model's raw reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_reply: Option<&'a str>,
    /// The revised plan, in the same form as `plan`; absent when the loop stopped here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revised: Option<Vec<String>>,
    /// What the reviser reports (unrequested changes, critiques it could not apply).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub reviser_notes: &'a [String],
    /// The reviser model's raw reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviser_reply: Option<&'a str>,
    /// Tokens spent in this round by judge and reviser.
    pub usage: Usage,
}

/// The transcript lines of one refinement, one per round.
pub fn transcript_lines<'a>(r: &'a Refinement, judge: &'a str) -> Vec<TranscriptLine<'a>> {
    r.rounds
        .iter()
        .map(|round| {
            let mut usage = round.judgement.usage;
            if let Some(rev) = &round.revision {
                usage.add(&rev.usage);
            }
            TranscriptLine {
                id: &r.id,
                round: round.round,
                judge,
                plan: render_steps(&round.plan.steps),
                critiques: &round.judgement.critiques,
                judge_notes: &round.judgement.notes,
                judge_reply: round.judgement.raw.as_deref(),
                revised: round
                    .revision
                    .as_ref()
                    .map(|rev| render_steps(&rev.plan.steps)),
                reviser_notes: round.revision.as_ref().map_or(&[], |rev| &rev.notes),
                reviser_reply: round.revision.as_ref().and_then(|rev| rev.raw.as_deref()),
                usage,
            }
        })
        .collect()
}

/// `"3. Driver.PickUp('Mug')  [original 4]"`: 1-based position, text, provenance (the
/// original index 1-based too, so the two numbers read alike).
fn render_steps(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| match s.origin {
            crate::plan::Origin::Original(k) => {
                format!("{}. {}  [original {}]", i + 1, s.text, k + 1)
            }
            crate::plan::Origin::Inserted(round) => {
                format!("{}. {}  [inserted in round {round}]", i + 1, s.text)
            }
        })
        .collect()
}

/// One line of `refined.jsonl`: where an episode ended.
#[derive(Clone, Debug, Serialize)]
pub struct RefinedLine<'a> {
    /// The episode id.
    pub id: &'a str,
    /// The final steps, each with its provenance.
    pub steps: &'a [Step],
    /// Original indices (0-based) no longer in the final plan.
    pub flagged: Vec<usize>,
    /// Steps the loop inserted.
    pub missing: Vec<&'a Step>,
    /// Rounds run.
    pub rounds: usize,
    /// The round in which the judge raised nothing, if it did.
    pub converged_at: Option<usize>,
    /// Why the loop stopped.
    pub stop: StopReason,
    /// The error that stopped it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

impl<'a> RefinedLine<'a> {
    /// The line for `r`.
    pub fn new(r: &'a Refinement) -> RefinedLine<'a> {
        RefinedLine {
            id: &r.id,
            steps: &r.final_plan.steps,
            flagged: r.flagged(),
            missing: r.missing(),
            rounds: r.rounds.len(),
            converged_at: r.converged_at,
            stop: r.stop,
            error: r.error.as_deref(),
        }
    }
}
