//! The Judge and Reviser traits and the refinement loop (Algorithm 1 of the plan
//! verification paper).

use std::sync::Arc;

use async_trait::async_trait;
use futures_util::StreamExt;
use safeplan_llm::Usage;
use serde::{Deserialize, Serialize};

use crate::episode::Episode;
use crate::error::JudgeError;
use crate::plan::{Critique, Plan, Step};

/// A judge's answer for one plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// The critiques; empty means the judge is satisfied.
    pub critiques: Vec<Critique>,
    /// Tokens spent (zero for deterministic judges).
    #[serde(default)]
    pub usage: Usage,
    /// The model's reply as it came, for LLM judges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Anything the judge wants a reader of the transcript to know (tags it could not
    /// bind to a step, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl From<Vec<Critique>> for Judgement {
    fn from(critiques: Vec<Critique>) -> Judgement {
        Judgement {
            critiques,
            ..Judgement::default()
        }
    }
}

/// A reviser's answer: the new plan, with provenance kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// The revised plan. Steps kept from the input keep their origin; new steps have
    /// `Origin::Inserted(round)`.
    pub plan: Plan,
    /// Tokens spent.
    #[serde(default)]
    pub usage: Usage,
    /// The model's reply as it came, for LLM revisers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// What the reviser did that nobody asked for, or could not do (an unflagged step
    /// dropped or rewritten by an LLM, a MISSING it could not fill, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Critiques a plan, step by step. Object-safe: use it as `Arc<dyn Judge>`.
///
/// A judge sees only the [`Episode`] (id, goal, dialogue, actions, bound task) and the
/// current plan; gold labels are not reachable from here.
#[async_trait]
pub trait Judge: Send + Sync {
    /// A short name for transcripts and reports (`state`, `llm:openai:gpt-4o`, ...).
    fn name(&self) -> String;

    /// Critique `plan`, the current state of `episode`'s action sequence.
    async fn critique(&self, episode: &Episode, plan: &Plan) -> Result<Judgement, JudgeError>;
}

/// Applies critiques to a plan. Object-safe: use it as `Arc<dyn Reviser>`.
#[async_trait]
pub trait Reviser: Send + Sync {
    /// A short name for transcripts and reports.
    fn name(&self) -> String;

    /// Apply `critiques` (made of `plan`) in `round` (1-based; inserted steps carry it).
    async fn revise(
        &self,
        episode: &Episode,
        plan: &Plan,
        critiques: &[Critique],
        round: usize,
    ) -> Result<Revision, JudgeError>;
}

/// Options of the loop: how many rounds one episode gets, and how many episodes run at once
/// (each awaiting its judge, so the limit bounds concurrent LLM calls).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefineOptions {
    /// Rounds at most (the paper: 5).
    pub max_rounds: usize,
    /// Episodes refined at once by [`Refiner::refine_all`].
    pub concurrency: usize,
}

impl Default for RefineOptions {
    fn default() -> RefineOptions {
        RefineOptions {
            max_rounds: 5,
            concurrency: 8,
        }
    }
}

/// Why the loop stopped. Only [`StopReason::Converged`] means the judge accepted the final
/// plan; the others say why the loop gave up on satisfying it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The judge raised nothing.
    Converged,
    /// `max_rounds` rounds ran and the judge still had critiques.
    MaxRounds,
    /// The reviser produced a plan seen in an earlier round.
    Oscillation,
    /// The reviser returned the plan unchanged.
    NoChange,
    /// The judge or reviser failed; the plan is the last one reached.
    Error,
}

/// One round of the loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// 1-based.
    pub round: usize,
    /// The plan the judge saw.
    pub plan: Plan,
    /// What the judge said.
    pub judgement: Judgement,
    /// What the reviser made of it; `None` when the judge raised nothing or failed.
    pub revision: Option<Revision>,
}

/// The outcome of refining one episode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refinement {
    /// The episode id.
    pub id: String,
    /// Number of steps of the original sequence.
    pub original_len: usize,
    /// The plan the loop ended with.
    pub final_plan: Plan,
    /// Every round, in order.
    pub rounds: Vec<Round>,
    /// The round in which the judge raised nothing (1: the original was accepted);
    /// `None` when it never did.
    pub converged_at: Option<usize>,
    /// Why the loop stopped.
    pub stop: StopReason,
    /// The error that stopped it, for [`StopReason::Error`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether that error is [fatal](JudgeError::is_fatal): no other call of this judge or
    /// reviser can succeed as configured, and [`Refiner::refine_all`] stops there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fatal: bool,
}

impl Refinement {
    /// The original indices no longer in the final plan: what the loop flagged.
    pub fn flagged(&self) -> Vec<usize> {
        self.final_plan.dropped_originals(self.original_len)
    }

    /// The steps the loop inserted.
    pub fn missing(&self) -> Vec<&Step> {
        self.final_plan.inserted()
    }

    /// Tokens spent by judge and reviser over all rounds.
    pub fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for r in &self.rounds {
            total.add(&r.judgement.usage);
            if let Some(rev) = &r.revision {
                total.add(&rev.usage);
            }
        }
        total
    }
}

/// The Judge–Planner loop: judge, stop if satisfied, else revise and go again.
#[derive(Clone)]
pub struct Refiner {
    judge: Arc<dyn Judge>,
    reviser: Arc<dyn Reviser>,
    options: RefineOptions,
}

impl Refiner {
    /// A loop of `judge` and `reviser`.
    pub fn new(
        judge: Arc<dyn Judge>,
        reviser: Arc<dyn Reviser>,
        options: RefineOptions,
    ) -> Refiner {
        Refiner {
            judge,
            reviser,
            options,
        }
    }

    /// The loop's options.
    pub fn options(&self) -> &RefineOptions {
        &self.options
    }

    /// Refine one episode's action sequence. Never fails: an error of the judge or the
    /// reviser ends the loop with [`StopReason::Error`] and keeps every round before it.
    pub async fn refine(&self, episode: &Episode) -> Refinement {
        let original = Plan::from_actions(&episode.actions);
        let mut seen: Vec<Vec<String>> = vec![texts(&original)];
        let mut plan = original;
        let mut rounds = Vec::new();
        let mut stop = StopReason::MaxRounds;
        let mut converged_at = None;
        let mut error = None;
        let mut fatal = false;
        for round in 1..=self.options.max_rounds {
            let judgement = match self.judge.critique(episode, &plan).await {
                Ok(j) => j,
                Err(e) => {
                    fatal = e.is_fatal();
                    error = Some(format!("round {round}, judge {}: {e}", self.judge.name()));
                    stop = StopReason::Error;
                    break;
                }
            };
            if judgement.critiques.is_empty() {
                rounds.push(Round {
                    round,
                    plan: plan.clone(),
                    judgement,
                    revision: None,
                });
                converged_at = Some(round);
                stop = StopReason::Converged;
                break;
            }
            let revision = match self
                .reviser
                .revise(episode, &plan, &judgement.critiques, round)
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    fatal = e.is_fatal();
                    rounds.push(Round {
                        round,
                        plan: plan.clone(),
                        judgement,
                        revision: None,
                    });
                    error = Some(format!(
                        "round {round}, reviser {}: {e}",
                        self.reviser.name()
                    ));
                    stop = StopReason::Error;
                    break;
                }
            };
            let next = revision.plan.clone();
            let next_texts = texts(&next);
            let unchanged = next == plan;
            let repeats = !unchanged && seen.contains(&next_texts);
            rounds.push(Round {
                round,
                plan: std::mem::replace(&mut plan, next),
                judgement,
                revision: Some(revision),
            });
            if unchanged {
                stop = StopReason::NoChange;
                break;
            }
            if repeats {
                stop = StopReason::Oscillation;
                break;
            }
            seen.push(next_texts);
        }
        Refinement {
            id: episode.id.clone(),
            original_len: episode.actions.len(),
            final_plan: plan,
            rounds,
            converged_at,
            stop,
            error,
            fatal,
        }
    }

    /// Refine many episodes, at most `options.concurrency` at once. `on_done` is called
    /// as each finishes (in completion order, with its index in `episodes`), so a caller
    /// can write results and advance a progress bar as they come; the returned vector is
    /// in input order. The first episode runs before the others, and after a
    /// [fatal](Refinement::fatal) error no further episode is started: the vector then holds
    /// only the episodes that ran.
    pub async fn refine_all(
        &self,
        episodes: &[Episode],
        mut on_done: impl FnMut(usize, &Refinement),
    ) -> Vec<Refinement> {
        let mut done: Vec<Option<Refinement>> = vec![None; episodes.len()];
        // The first episode runs alone: a judge that cannot work as configured (a wrong key,
        // an unknown model) costs one call, not one per episode.
        let Some(first) = episodes.first() else {
            return Vec::new();
        };
        let r = self.refine(first).await;
        on_done(0, &r);
        let stop = r.fatal;
        done[0] = Some(r);
        if !stop {
            let halted = std::sync::atomic::AtomicBool::new(false);
            let halted = &halted;
            let mut stream = futures_util::stream::iter(episodes.iter().enumerate().skip(1))
                .map(|(i, e)| async move {
                    if halted.load(std::sync::atomic::Ordering::Relaxed) {
                        return (i, None);
                    }
                    let r = self.refine(e).await;
                    if r.fatal {
                        halted.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    (i, Some(r))
                })
                .buffer_unordered(self.options.concurrency.max(1));
            while let Some((i, r)) = stream.next().await {
                if let Some(r) = r {
                    on_done(i, &r);
                    done[i] = Some(r);
                }
            }
        }
        done.into_iter().flatten().collect()
    }
}

fn texts(plan: &Plan) -> Vec<String> {
    plan.steps.iter().map(|s| s.text.clone()).collect()
}
