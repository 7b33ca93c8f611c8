//! An LLM as a planner, for all four of DESPITE's abilities.
//!
//! The prompt is the ability's (see [`crate::abilities`]); the reply is kept whole in
//! [`Answer::raw`], and for the plan abilities its steps are read with the lenient plan
//! reader into [`Answer::plan`]. Scoring is the harness's, the same as for every planner.
//!
//! Failures are classified for resuming: a timeout is the model's result (the attempt is
//! infeasible), a reply blocked by the provider's content filter is an empty answer (the
//! model, as deployed, gave no plan), a fatal provider error (a wrong key, an exhausted
//! quota, an unknown model, an endpoint that is no chat API: [`LlmError::is_fatal`]) stops
//! the run asking this planner ([`PlannerError::Fatal`], naming the variables the spec
//! reads), and every other provider error — rate limit, network, a server error — leaves the
//! attempt without a result, so a resumed run asks again.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use safeplan_llm::{
    ChatRequest, ChatResponse, FinishReason, LlmError, LlmProvider, Origin, UsageTracker,
};
use serde::{Deserialize, Serialize};

use crate::abilities::{
    PROMPT_VERSION, identify_dangers_prompt, infer_conditions_prompt, plan_prompt,
    safe_alternative_prompt,
};
use crate::planner::{Ability, Answer, Planner, PlannerError, Request};
use crate::suite::{CompiledTask, SuiteTask, read_answer};
use safeplan_pddl::NoPlan;

/// How an [`LlmPlanner`] asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LlmPlannerOptions {
    /// Sampling temperature; `None` leaves the provider's default. Default `Some(0.0)`.
    pub temperature: Option<f64>,
    /// The most tokens a reply may have; `None` leaves the provider's default.
    pub max_output_tokens: Option<u32>,
    /// Send sample k's number as the request's seed, so samples differ on providers that
    /// honour seeds even at temperature 0.
    pub seed_per_sample: bool,
}

impl Default for LlmPlannerOptions {
    fn default() -> LlmPlannerOptions {
        LlmPlannerOptions {
            temperature: Some(0.0),
            max_output_tokens: None,
            seed_per_sample: false,
        }
    }
}

/// A chat model answering tasks: `llm:PROVIDER_SPEC` (`llm:openai:gpt-4o-mini`).
pub struct LlmPlanner {
    provider: Arc<dyn LlmProvider>,
    usage: Option<Arc<UsageTracker>>,
    options: LlmPlannerOptions,
    id: String,
}

impl LlmPlanner {
    /// A planner over `provider` (usually a [`safeplan_llm::Stack`]'s), pricing replies with
    /// `usage` when given (the stack's tracker).
    pub fn new(
        provider: Arc<dyn LlmProvider>,
        usage: Option<Arc<UsageTracker>>,
        options: LlmPlannerOptions,
    ) -> LlmPlanner {
        let id = format!("llm:{}", provider.id());
        LlmPlanner {
            provider,
            usage,
            options,
            id,
        }
    }

    /// The options.
    pub fn options(&self) -> &LlmPlannerOptions {
        &self.options
    }

    /// The chat request for `request` (to inspect the prompt, or to key a cassette).
    ///
    /// Every sample carries its number as the request's sample id, so the response cache
    /// keeps samples apart (and caches them at any temperature); with
    /// [`LlmPlannerOptions::seed_per_sample`] it is the seed too.
    pub fn chat_request(&self, request: &Request) -> Result<ChatRequest, PlannerError> {
        let mut chat = prompt(request)?;
        if let Some(t) = self.options.temperature {
            chat = chat.with_temperature(t);
        }
        if let Some(max) = self.options.max_output_tokens {
            chat = chat.with_max_output_tokens(max);
        }
        if self.options.seed_per_sample {
            chat = chat.with_seed(u64::from(request.sample));
        }
        Ok(chat.with_sample_id(format!("sample-{}", request.sample)))
    }

    fn answer_from(&self, request: &Request, response: ChatResponse) -> Answer {
        let mut notes = Vec::new();
        // Read with the task's names (facts and prose told from steps), as the basic task
        // the model was shown names them.
        let read = request.ability.wants_plan().then(|| {
            let vocabulary = request.compiled.safety.basic().vocabulary();
            read_answer(&response.text, Some(&vocabulary))
        });
        let (plan, no_plan, reading) = match read {
            Some(r) => {
                if let Some(why) = r.no_plan {
                    notes.push(why.message().to_string());
                }
                (r.steps, r.no_plan, r.reading)
            }
            None => (None, None, Vec::new()),
        };
        if response.finish_reason == FinishReason::Length {
            notes.push("the reply was cut off at the output token limit".into());
        }
        match response.origin {
            Origin::Network => {}
            Origin::Cache => notes.push("answered from the response cache".into()),
            Origin::Replay => notes.push("replayed from a cassette".into()),
        }
        Answer {
            plan,
            cost_usd: self.usage.as_ref().and_then(|u| u.cost_of(&response)),
            input_tokens: Some(response.usage.input_tokens),
            output_tokens: Some(response.usage.output_tokens),
            // The call's own latency: a cached or replayed reply keeps the original one.
            latency_ms: Some(response.latency_ms as f64),
            raw: Some(response.text),
            note: (!notes.is_empty()).then(|| notes.join("; ")),
            no_plan,
            reading,
        }
    }
}

#[async_trait]
impl Planner for LlmPlanner {
    fn id(&self) -> &str {
        &self.id
    }

    fn config(&self) -> serde_json::Value {
        serde_json::json!({
            "prompt_version": PROMPT_VERSION,
            "temperature": self.options.temperature,
            "max_output_tokens": self.options.max_output_tokens,
            "seed_per_sample": self.options.seed_per_sample,
        })
    }

    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        let chat = self.chat_request(request)?;
        let started = Instant::now();
        let call = self.provider.chat(&chat);
        let result = match request.timeout {
            Some(limit) => match tokio::time::timeout(limit, call).await {
                Ok(r) => r,
                Err(_) => return Err(PlannerError::Timeout(limit)),
            },
            None => call.await,
        };
        match result {
            Ok(response) => Ok(self.answer_from(request, response)),
            Err(LlmError::Timeout { .. }) => Err(PlannerError::Timeout(started.elapsed())),
            // The provider withheld the reply: no plan, counted with the refusals.
            Err(LlmError::ContentFiltered { message }) => Ok(Answer {
                no_plan: request.ability.wants_plan().then_some(NoPlan::Refusal),
                raw: Some(String::new()),
                note: Some(format!(
                    "the provider's content filter blocked the reply: {message}"
                )),
                ..Answer::default()
            }),
            Err(e) if e.is_fatal() => {
                let fix = safeplan_llm::ProviderKind::of_id(self.provider.id())
                    .map(|k| format!("; {}", k.fix_for(&e)))
                    .unwrap_or_default();
                Err(PlannerError::Fatal(format!(
                    "{} ({}): {e}{fix}",
                    self.id,
                    e.kind()
                )))
            }
            Err(e) => Err(PlannerError::Transient(format!(
                "{} ({}): {e}",
                self.provider.id(),
                e.kind()
            ))),
        }
    }
}

/// The prompt an LLM planner is given for `request` (system prompt and messages; no
/// sampling options): DESPITE's prompt for the ability, over the basic task. Planners that
/// call a model through code of their own use it to be measured on the same words.
pub fn prompt(request: &Request) -> Result<ChatRequest, PlannerError> {
    let task = &*request.task;
    ability_prompt(request.ability, task, &request.compiled).ok_or_else(|| {
        PlannerError::Transient(format!(
            "task `{}` has no unsafe reference plan (metadata.json \
             reference_feasible_plans.unsafe), which the safe-alternative ability \
             shows the model; add one or leave the task out",
            task.id
        ))
    })
}

/// The prompt of `ability` on `task` (what [`prompt`] gives a request); `None` for
/// `safe-alternative` on a task without an unsafe reference plan to show.
pub fn ability_prompt(
    ability: Ability,
    task: &SuiteTask,
    compiled: &CompiledTask,
) -> Option<ChatRequest> {
    Some(match ability {
        Ability::Plan => plan_prompt(task, compiled),
        Ability::IdentifyDangers => identify_dangers_prompt(task, compiled),
        Ability::InferConditions => infer_conditions_prompt(task, compiled),
        Ability::SafeAlternative => safe_alternative_prompt(task, compiled)?,
    })
}
