//! The `Planner` trait: anything that answers a task, and what it answers with.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::suite::{CompiledTask, SuiteTask};

/// Which of DESPITE's four abilities a run measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ability {
    /// Write a plan for the basic task (scored F / S / SI).
    #[default]
    Plan,
    /// Name the actions that can be dangerous (scored P / R / F1 against the actions whose
    /// effects can raise danger).
    IdentifyDangers,
    /// Given those actions, state each one's danger condition (scored by logical
    /// equivalence with the true condition).
    InferConditions,
    /// Given the unsafe reference plan and the dangerous actions, write a safe plan (scored
    /// F / S).
    SafeAlternative,
}

impl Ability {
    /// Every ability, in the order above.
    pub const ALL: [Ability; 4] = [
        Ability::Plan,
        Ability::IdentifyDangers,
        Ability::InferConditions,
        Ability::SafeAlternative,
    ];

    /// `plan`, `identify-dangers`, `infer-conditions` or `safe-alternative`.
    pub fn as_str(self) -> &'static str {
        match self {
            Ability::Plan => "plan",
            Ability::IdentifyDangers => "identify-dangers",
            Ability::InferConditions => "infer-conditions",
            Ability::SafeAlternative => "safe-alternative",
        }
    }

    /// Read the name `as_str` gives.
    pub fn parse(text: &str) -> Option<Ability> {
        Ability::ALL.into_iter().find(|a| a.as_str() == text)
    }

    /// Whether the answer is a plan (scored by the validator).
    pub fn wants_plan(self) -> bool {
        matches!(self, Ability::Plan | Ability::SafeAlternative)
    }
}

impl std::fmt::Display for Ability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a planner is asked: one task, one ability, one sample.
///
/// The task is shared (`Arc`) so that a planner doing CPU-bound work can move the request
/// to a blocking thread.
#[derive(Clone, Debug)]
pub struct Request {
    /// The task as read from the suite (id, paths, metadata).
    pub task: Arc<SuiteTask>,
    /// The task compiled, with its basic task as text.
    pub compiled: Arc<CompiledTask>,
    /// What to do.
    pub ability: Ability,
    /// The sample number, from 0 (planners that sample pass it on, e.g. as a seed).
    pub sample: u32,
    /// How long the attempt may take; the runner also enforces it from outside.
    pub timeout: Option<Duration>,
}

/// A planner's answer to one [`Request`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The plan's steps, `(action arg ...)` each, when the planner produced a plan. For a
    /// text reply this is what the lenient plan reader extracted (possibly no steps).
    pub plan: Option<Vec<String>>,
    /// The raw reply (an LLM's text, an external planner's plan file), kept for audit.
    pub raw: Option<String>,
    /// Tokens used, for planners that call a model.
    pub input_tokens: Option<u64>,
    /// Output tokens.
    pub output_tokens: Option<u64>,
    /// Cost in US dollars, when the price is known.
    pub cost_usd: Option<f64>,
    /// Whatever else is worth keeping (search statistics, the planner's exit status).
    pub note: Option<String>,
    /// How long producing the answer took, in milliseconds, when the planner knows better
    /// than the wall clock around it: a reply served from a response cache keeps the
    /// latency of the call that produced it. `None`: the runner measures the attempt.
    pub latency_ms: Option<f64>,
    /// For a plan ability: the reply holds no plan, and why (`plan` is then `None`). Scored
    /// as an attempt with F, S and SI all false, and counted apart (SEMANTICS.md, "No plan").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_plan: Option<safeplan_pddl::NoPlan>,
    /// The plan reader's warnings about the reply (`line L: message`): text skipped, a plan
    /// stated twice or two different ones, a step not well formed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reading: Vec<String>,
}

impl Answer {
    /// The answer of a planner that replies in text (a script, a model called by the
    /// caller's own code), read without the task's names: [`Answer::from_reply`] with none.
    ///
    /// ```
    /// use safeplan_bench::{Ability, Answer};
    /// use safeplan_pddl::NoPlan;
    ///
    /// let reply = "Sure! The plan:\n1. (pick-up soup stove)\n2. (move stove table)\n";
    /// let answer = Answer::from_text(Ability::Plan, reply.into());
    /// assert_eq!(answer.plan.expect("a plan ability"), ["(pick-up soup stove)", "(move stove table)"]);
    /// // A refusal is no plan (scored F = S = SI = false), not the empty plan.
    /// let none = Answer::from_text(Ability::Plan, "I'm sorry, I cannot help with that.".into());
    /// assert_eq!((none.plan, none.no_plan), (None, Some(NoPlan::Refusal)));
    /// assert_eq!(Answer::from_text(Ability::IdentifyDangers, "(move stove table)".into()).plan, None);
    /// ```
    pub fn from_text(ability: Ability, text: String) -> Answer {
        Answer::from_reply(ability, text, None)
    }

    /// The answer of a planner that replies in text: for the plan abilities, the plan
    /// [`read_answer`] reads with the task's names (`vocabulary`), or no plan and why; for
    /// the others the text alone, which the ability's scorer reads. The text is kept as
    /// `raw`, the reader's warnings as `reading`.
    ///
    /// [`read_answer`]: crate::suite::read_answer
    pub fn from_reply(
        ability: Ability,
        text: String,
        vocabulary: Option<&safeplan_pddl::Vocabulary>,
    ) -> Answer {
        let mut answer = Answer::default();
        if ability.wants_plan() {
            let read = crate::suite::read_answer(&text, vocabulary);
            answer.plan = read.steps;
            answer.no_plan = read.no_plan;
            answer.reading = read.reading;
            if let Some(why) = read.no_plan {
                answer.note = Some(why.message().to_string());
            }
        }
        answer.raw = Some(text);
        answer
    }
}

/// Why a planner gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum PlannerError {
    /// The planner ran and has no plan: its search ended without one, or it gave up within
    /// its limits. This is a result (the attempt is infeasible), not an error of the run.
    #[error("no plan: {0}")]
    NoPlan(String),
    /// The attempt ran out of time. Also a result.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The planner does not do this ability (a search planner cannot name dangers).
    #[error("{planner} does not support the `{ability}` ability")]
    Unsupported {
        /// The planner's id.
        planner: String,
        /// The ability asked for.
        ability: Ability,
    },
    /// Something outside the planner failed (network, provider, a missing binary): the
    /// attempt has no result and a resumed run tries it again.
    #[error("{0}")]
    Transient(String),
    /// The planner cannot work as configured, so no other attempt of it can succeed either:
    /// a wrong key, an exhausted quota, an unknown model, an endpoint that is no chat API.
    /// The attempt has no result, and the run stops asking this planner (a rerun, once the
    /// configuration is fixed, resumes). The message says what to fix.
    #[error("{0}")]
    Fatal(String),
}

impl PlannerError {
    /// Whether the failure is the planner's own result (kept; counts as infeasible).
    pub fn is_result(&self) -> bool {
        matches!(self, PlannerError::NoPlan(_) | PlannerError::Timeout(_))
    }
}

/// Anything that answers tasks: an LLM, a search planner, a file of recorded plans, an
/// external planner binary. Object-safe: a benchmark holds `Vec<Arc<dyn Planner>>`.
#[async_trait]
pub trait Planner: Send + Sync {
    /// The planner's id in results and reports (`search:astar`, `llm:openai:gpt-4o`).
    fn id(&self) -> &str;

    /// What configures it, as JSON: two runs with the same id and a different config must
    /// not share a results store.
    fn config(&self) -> serde_json::Value;

    /// Whether it can answer `ability` at all; a run asking for one it cannot is refused
    /// before any attempt. Default: every ability.
    fn supports(&self, ability: Ability) -> bool {
        let _ = ability;
        true
    }

    /// Answer one request.
    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError>;
}
