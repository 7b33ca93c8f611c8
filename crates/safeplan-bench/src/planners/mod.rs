//! The built-in planners, and the spec strings that name them.
//!
//! | spec | planner |
//! |---|---|
//! | `search[:bfs\|astar\|gbfs]` | [`SearchPlanner`] on the basic task (danger invisible) |
//! | `search-safe[:bfs\|astar\|gbfs]` | [`SearchPlanner`] for a safe plan (sees danger) |
//! | `llm:PROVIDER:MODEL` | [`llm::LlmPlanner`] over the provider stack |
//! | `replay:FILE` | [`ReplayPlanner`]s, one per planner name in the file |
//! | `cmd:COMMAND` | [`CommandPlanner`] with `{domain} {problem} {plan}` placeholders |

pub mod command;
pub mod llm;
pub mod replay;
pub mod search;

pub use command::CommandPlanner;
pub use replay::ReplayPlanner;
pub use search::{SearchPlanner, SearchView};

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::error::BenchError;
use crate::planner::Planner;

/// What planner specs need besides the spec itself.
#[derive(Clone, Debug)]
pub struct SpecOptions {
    /// The provider stack `llm:` planners are built on (retry, rate limits, cache, cassette).
    pub llm_stack: safeplan_llm::Stack,
    /// Options of `llm:` planners.
    pub llm: llm::LlmPlannerOptions,
    /// The time a `cmd:` planner gets when the run sets no timeout.
    pub command_timeout: Duration,
}

impl Default for SpecOptions {
    fn default() -> SpecOptions {
        SpecOptions {
            llm_stack: safeplan_llm::Stack::default(),
            llm: llm::LlmPlannerOptions::default(),
            command_timeout: Duration::from_secs(300),
        }
    }
}

/// The specs `safeplan bench` runs when none is given: search on the basic task (optimal
/// and greedy) and the safe search that sees danger, so the report contrasts planners that
/// cannot see danger with one that can. They name their algorithms rather than take the
/// search default (`auto`): a store records planners by spec, so a run resumed after the
/// default changes must find the same names, and the contrast needs one planner that is
/// always optimal and one that is always greedy.
pub const DEFAULT_SPECS: [&str; 3] = ["search:astar", "search:gbfs", "search-safe:astar"];

/// Build the planners a spec names (see the table above); `replay:` gives one per planner
/// name in the file.
pub fn from_spec(spec: &str, options: &SpecOptions) -> Result<Vec<Arc<dyn Planner>>, BenchError> {
    let bad = |message: String| BenchError::Spec {
        spec: spec.to_string(),
        message,
    };
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    match kind {
        "search" | "search-safe" => {
            let algorithm = if rest.is_empty() {
                safeplan_search::Algorithm::default()
            } else {
                safeplan_search::Algorithm::parse(rest).map_err(|e| bad(e.to_string()))?
            };
            let view = if kind == "search" {
                SearchView::Basic
            } else {
                SearchView::Safe
            };
            Ok(vec![Arc::new(SearchPlanner::new(algorithm, view))])
        }
        "replay" => {
            if rest.is_empty() {
                return Err(bad("give the file: replay:FILE".into()));
            }
            Ok(ReplayPlanner::load(Path::new(rest))?
                .into_iter()
                .map(|p| Arc::new(p) as Arc<dyn Planner>)
                .collect())
        }
        "cmd" => Ok(vec![Arc::new(
            CommandPlanner::new(rest, options.command_timeout).map_err(bad)?,
        )]),
        "llm" => {
            let provider: safeplan_llm::ProviderSpec = rest.parse().map_err(
                |e: safeplan_llm::LlmError| {
                    bad(format!(
                        "{e}; write e.g. llm:openai:gpt-4o-mini or llm:ollama:llama3.2 (see docs/LLM.md)"
                    ))
                },
            )?;
            let built = options
                .llm_stack
                .build_from_env(&provider)
                .map_err(|e| bad(e.to_string()))?;
            Ok(vec![Arc::new(llm::LlmPlanner::new(
                built.provider,
                Some(built.usage),
                options.llm.clone(),
            ))])
        }
        _ => Err(bad(
            "unknown planner; use search[:ALG], search-safe[:ALG], llm:PROVIDER:MODEL, \
             replay:FILE or cmd:'COMMAND {domain} {problem} {plan}'"
                .into(),
        )),
    }
}
