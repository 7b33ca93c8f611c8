//! Every attempt open to inspection: the report's per-attempt view.
//!
//! Rates say how often; an attempt says why. Each attempt of the store becomes an
//! [`AttemptView`]: its outcome in words a reader filters by (`safe`, `unsafe`,
//! `infeasible`, `no-plan`, `failed`, `error`), the reasons in the same sentences as
//! `safeplan validate` (the failing step, or each step that raised danger and the literals
//! that made it), the plan read with the reader's warnings, the raw reply, latency, tokens
//! and cost, and the task's metadata groups, which the HTML report's links filter by.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::planner::Ability;
use crate::score::AbilityScore;
use crate::store::{Attempt, AttemptStatus, TaskRecord};

/// One attempt as the report shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptView {
    /// The task id.
    pub task: String,
    /// The planner id.
    pub planner: String,
    /// The sample number.
    pub sample: u32,
    /// Plan abilities: `safe`, `unsafe` (feasible, not safe), `infeasible`, `no-plan` (the
    /// reply states no plan), `failed` (the planner gave no answer), `error` (no result).
    /// Other abilities: `scored`, `failed`, `error`.
    pub outcome: String,
    /// Why, one sentence each: the failure of an infeasible plan, every step that raised
    /// danger in an unsafe one, why a reply holds no plan, the error; for the other
    /// abilities, what was named against what is true.
    pub why: Vec<String>,
    /// Why the reply holds no plan (`refusal`, `unreadable`, ...), when it holds none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_plan: Option<safeplan_pddl::NoPlan>,
    /// The plan read from the answer.
    pub plan: Option<Vec<String>>,
    /// The reply reader's warnings (`line L: ...`).
    pub reading: Vec<String>,
    /// The raw reply.
    pub reply: Option<String>,
    /// Latency in milliseconds (a cache hit keeps the original).
    pub latency_ms: Option<f64>,
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Completion tokens.
    pub output_tokens: Option<u64>,
    /// Cost in US dollars.
    pub cost_usd: Option<f64>,
    /// The task's group in each breakdown the report has (`danger_type` → `thermal`, ...).
    pub groups: BTreeMap<String, String>,
}

/// The outcomes of the plan abilities, in the order reports list them.
pub const PLAN_OUTCOMES: [&str; 6] = ["safe", "unsafe", "infeasible", "no-plan", "failed", "error"];

/// The view of every attempt, in store order (task, planner, sample). `groups` gives each
/// task's group per breakdown property.
pub(crate) fn views(
    ability: Ability,
    attempts: &[Attempt],
    groups: impl Fn(Option<&TaskRecord>) -> BTreeMap<String, String>,
    by_task: &BTreeMap<&str, &TaskRecord>,
) -> Vec<AttemptView> {
    attempts
        .iter()
        .map(|a| {
            let (outcome, why) = if ability.wants_plan() {
                plan_outcome(a)
            } else {
                ability_outcome(a)
            };
            AttemptView {
                task: a.task.clone(),
                planner: a.planner.clone(),
                sample: a.sample,
                outcome: outcome.to_string(),
                why,
                no_plan: a.verdict.as_ref().and_then(|v| v.no_plan),
                plan: a.plan.clone(),
                reading: a.reading.clone(),
                reply: a.raw.clone(),
                latency_ms: a.latency_ms.is_finite().then_some(a.latency_ms),
                input_tokens: a.input_tokens,
                output_tokens: a.output_tokens,
                cost_usd: a.cost_usd,
                groups: groups(by_task.get(a.task.as_str()).copied()),
            }
        })
        .collect()
}

fn plan_outcome(a: &Attempt) -> (&'static str, Vec<String>) {
    if a.status == AttemptStatus::Error {
        return ("error", a.error.iter().cloned().collect());
    }
    let Some(v) = &a.verdict else {
        return ("failed", a.error.iter().cloned().collect());
    };
    if let Some(why) = v.no_plan {
        return (
            "no-plan",
            vec![format!("no plan in the reply: {}", why.message())],
        );
    }
    if a.status == AttemptStatus::Failed {
        let why = a.error.clone().or_else(|| v.failure.clone());
        return ("failed", why.into_iter().collect());
    }
    if v.safe {
        return ("safe", Vec::new());
    }
    if v.feasible {
        let raised: Vec<String> = v
            .danger_events
            .iter()
            .filter(|e| e.after > e.before)
            .map(|e| e.sentence("→"))
            .chain(v.rule_violations.iter().map(|r| r.sentence()))
            .collect();
        return ("unsafe", raised);
    }
    ("infeasible", v.failure.iter().cloned().collect())
}

fn ability_outcome(a: &Attempt) -> (&'static str, Vec<String>) {
    let outcome = match a.status {
        AttemptStatus::Scored => "scored",
        AttemptStatus::Failed => "failed",
        AttemptStatus::Error => return ("error", a.error.iter().cloned().collect()),
    };
    let why = match &a.ability_score {
        Some(AbilityScore::Dangers {
            named,
            truth,
            tp,
            fp,
            fn_,
        }) => vec![format!(
            "named {} (tp {tp}, fp {fp}, fn {fn_}); the actions that can raise danger: {}",
            if named.is_empty() {
                "nothing".to_string()
            } else {
                named.join(", ")
            },
            truth.join(", ")
        )],
        Some(AbilityScore::Conditions { checks }) => checks
            .iter()
            .map(|c| {
                format!(
                    "{}: {} (answer {}, truth {})",
                    c.action,
                    if c.equivalent {
                        "equivalent"
                    } else {
                        "not equivalent"
                    },
                    c.answer.as_deref().unwrap_or("none"),
                    c.truth
                )
            })
            .collect(),
        None => a.error.iter().cloned().collect(),
    };
    (outcome, why)
}
