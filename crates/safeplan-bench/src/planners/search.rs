//! Our search planner as a benchmark planner.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use async_trait::async_trait;
use safeplan_search::{Algorithm, GroundOptions, Limits, Outcome, SafetyPlanner, SearchOptions};

use crate::planner::{Ability, Answer, Planner, PlannerError, Request};

/// What the search planner is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchView {
    /// The basic task, as an LLM planner is: danger is invisible, so the plan is as safe as
    /// luck makes it. Spec `search[:ALG]`.
    Basic,
    /// The safety-augmented task, searching for a plan that ends within the danger bound:
    /// an upper bound on what a planner can reach. Spec `search-safe[:ALG]`.
    Safe,
}

/// The most memory one search may use for its states. Optimal search on a long synthetic
/// task can grow to gigabytes before the time limit; with several attempts in flight the
/// machine would swap. A search that reaches it has failed (no plan within its limits).
pub const MAX_SEARCH_MEMORY: usize = 512 << 20;

/// [`safeplan_search`] on each task (abilities `plan` and `safe-alternative`).
#[derive(Clone, Debug)]
pub struct SearchPlanner {
    id: String,
    algorithm: Algorithm,
    view: SearchView,
}

impl SearchPlanner {
    /// A search planner with `algorithm` on the `view` of each task; its id is its spec.
    pub fn new(algorithm: Algorithm, view: SearchView) -> SearchPlanner {
        let prefix = match view {
            SearchView::Basic => "search",
            SearchView::Safe => "search-safe",
        };
        SearchPlanner {
            id: format!("{prefix}:{}", algorithm.as_str()),
            algorithm,
            view,
        }
    }
}

#[async_trait]
impl Planner for SearchPlanner {
    fn id(&self) -> &str {
        &self.id
    }

    fn supports(&self, ability: Ability) -> bool {
        ability.wants_plan()
    }

    fn config(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "search",
            "algorithm": self.algorithm.as_str(),
            "view": match self.view { SearchView::Basic => "basic", SearchView::Safe => "safe" },
            "max_memory": MAX_SEARCH_MEMORY,
        })
    }

    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        let view = match (request.ability, self.view) {
            (Ability::Plan, v) => v,
            // Asked for a safe alternative, a planner that sees danger plans safely and
            // one that does not plans as it always does.
            (Ability::SafeAlternative, v) => v,
            (ability, _) => {
                return Err(PlannerError::Unsupported {
                    planner: self.id.clone(),
                    ability,
                });
            }
        };
        let compiled = request.compiled.clone();
        let algorithm = self.algorithm;
        let cancel = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            time: request.timeout,
            cancel: Some(cancel.clone()),
            max_memory: Some(MAX_SEARCH_MEMORY),
            ..Limits::default()
        };
        // The search is CPU-bound: run it off the async workers, and stop it if the runner
        // drops this attempt (its timeout fired first).
        let guard = CancelOnDrop(cancel);
        let joined = tokio::task::spawn_blocking(move || {
            let planner = SafetyPlanner::new(&compiled.safety, &GroundOptions::default())
                .map_err(|e| PlannerError::NoPlan(format!("grounding failed: {e}")))?;
            let options = SearchOptions { algorithm, limits };
            Ok::<_, PlannerError>(match view {
                SearchView::Basic => planner.basic_plan(&options),
                SearchView::Safe => planner.safe_plan(&options),
            })
        })
        .await;
        drop(guard);
        let result =
            joined.map_err(|e| PlannerError::Transient(format!("search crashed: {e}")))??;
        let note = format!(
            "expanded {} states in {:.3} s",
            result.stats.expanded, result.stats.seconds
        );
        match result.outcome {
            Outcome::Found { plan } => Ok(Answer {
                plan: Some(plan),
                note: Some(note),
                ..Answer::default()
            }),
            Outcome::Unsolvable => Err(PlannerError::NoPlan(match view {
                SearchView::Basic => "the task has no plan".into(),
                SearchView::Safe => "the task has no safe plan".into(),
            })),
            Outcome::LimitReached { limit } => match (limit, request.timeout) {
                (safeplan_search::LimitKind::Time, Some(t)) => Err(PlannerError::Timeout(t)),
                _ => Err(PlannerError::NoPlan(format!(
                    "search stopped: {}",
                    limit.as_str()
                ))),
            },
            // A planner defect: an error of the attempt (retried, reported), never a plan.
            Outcome::Rejected { plan, reason } => Err(PlannerError::Transient(format!(
                "internal error: the planner's plan does not pass the validator ({reason}): {}; please report it",
                plan.join(" ")
            ))),
        }
    }
}

struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
