//! The symbolic judge and reviser: for episodes bound to a PDDL task, the validator judges
//! and the planner repairs.

use std::time::Duration;

use async_trait::async_trait;
use safeplan_pddl::{Domain, Problem};
use safeplan_search::{
    Algorithm, GroundOptions, Limits, Outcome, Planner, SafetyPlanner, SearchOptions,
};
use safeplan_validate::{
    Assessment, FailureKind, SafetyOptions, SafetyTask, Task, ValidateOptions,
};

use crate::episode::{BoundTask, Episode, to_pddl_plan};
use crate::error::JudgeError;
use crate::plan::{Critique, CritiqueKind, Origin, Plan, Step};
use crate::refine::{Judge, Judgement, Reviser, Revision};
use crate::revise::apply_critiques;

fn bound<'e>(episode: &'e Episode, who: &str) -> Result<&'e BoundTask, JudgeError> {
    episode.task.as_deref().ok_or_else(|| JudgeError::Unsupported {
        episode: episode.id.clone(),
        message: format!(
            "the {who} needs a PDDL task: add `\"pddl\": {{\"domain\": PATH, \"problem\": PATH}}` to the episode's line"
        ),
    })
}

/// A deterministic judge for episodes bound to a PDDL task (each action a step such as
/// `(pick cup table)`). In the order it checks:
///
/// 1. **The first inapplicable step.** A step that cannot be bound to an action of the
///    domain is REMOVEd. A step whose precondition is false is REMOVEd when the plan
///    without it gets further (its first failure comes later and is not the goal);
///    otherwise a MISSING is raised before it, with the unmet preconditions as reason. A
///    plan whose steps all apply but whose goal is false gets a MISSING at the end.
/// 2. **Dangerous steps** of an unsafe plan (feasible, terminal danger above d_max): every
///    step that raised danger is REMOVEd, with the danger effect's conditions as reason.
///    A plan that is safe has no dangerous step, even if a step raised danger that a
///    later one mitigated: safety is judged on the terminal value.
/// 3. **Redundant steps** of a feasible plan, by greedy action elimination: left to right,
///    a step is redundant when the plan without it (and without the steps already found
///    redundant) is still valid and ends with no more danger.
pub struct SymbolicJudge;

#[async_trait]
impl Judge for SymbolicJudge {
    fn name(&self) -> String {
        "symbolic".into()
    }

    async fn critique(&self, episode: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        let task = bound(episode, "symbolic judge")?;
        Ok(SymbolicJudge::judge(task, &plan.texts()).into())
    }
}

impl SymbolicJudge {
    /// The critiques of `steps` on `task`.
    pub fn judge(task: &BoundTask, steps: &[&str]) -> Vec<Critique> {
        let eval = task.evaluate(steps);
        if !eval.feasible() {
            return inapplicable(task, steps, &eval).into_iter().collect();
        }
        let mut out = Vec::new();
        if let Some(safety) = eval.safety.as_ref().filter(|s| !s.safe) {
            for event in safety.danger_events.iter().filter(|e| e.after > e.before) {
                let because = if event.because.is_empty() {
                    String::new()
                } else {
                    format!(" because {}", event.because.join(" and "))
                };
                out.push(Critique::remove(
                    event.step.saturating_sub(1),
                    format!(
                        "dangerous: {} raises danger from {} to {}{because} (the plan ends at {}, above the bound {})",
                        event.action, event.before, event.after, safety.danger, safety.threshold
                    ),
                ));
            }
        }
        let mut kept: Vec<usize> = (0..steps.len()).collect();
        let mut danger = eval.danger().unwrap_or(0.0);
        for i in 0..steps.len() {
            let trial: Vec<&str> = kept
                .iter()
                .filter(|&&k| k != i)
                .map(|&k| steps[k])
                .collect();
            let e = task.evaluate(&trial);
            let e_danger = e.danger().unwrap_or(0.0);
            if e.feasible() && e_danger <= danger {
                danger = e_danger;
                kept.retain(|&k| k != i);
                if !out.iter().any(|c| c.index == Some(i)) {
                    out.push(Critique::remove(
                        i,
                        format!("redundant: the plan reaches the goal without {}", steps[i]),
                    ));
                }
            }
        }
        out.sort_by_key(|c| c.index);
        out
    }
}

/// The critique of an infeasible plan's first failure.
fn inapplicable(task: &BoundTask, steps: &[&str], eval: &Assessment) -> Option<Critique> {
    let failure = eval.feasibility().failure.as_ref()?;
    let unmet: Vec<&str> = failure.unmet.iter().map(|u| u.literal.as_str()).collect();
    let Some(step) = failure.step else {
        return Some(Critique::missing(
            Some(steps.len()),
            format!("the goal is not reached: {} still false", unmet.join(", ")),
            Vec::new(),
        ));
    };
    let k = step.saturating_sub(1);
    if failure.kind.is_malformed() {
        return Some(Critique::remove(
            k,
            format!(
                "{} is not an action of this task: {}",
                steps[k], failure.message
            ),
        ));
    }
    let without: Vec<&str> = steps
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != k)
        .map(|(_, s)| *s)
        .collect();
    let after = task.evaluate(&without);
    let gets_further = match &after.feasibility().failure {
        None => true,
        Some(f) => f.step.is_some_and(|s| s > k + 1) && f.kind != FailureKind::UnsatisfiedGoal,
    };
    Some(if gets_further {
        Critique::remove(
            k,
            format!(
                "{} cannot be applied ({}) and the plan gets further without it",
                steps[k],
                unmet.join(", ")
            ),
        )
    } else {
        Critique::missing(
            Some(k),
            format!(
                "before {}: steps are missing to make {} true",
                steps[k],
                unmet.join(", ")
            ),
            Vec::new(),
        )
    })
}

/// Options of the [`SymbolicReviser`]'s searches.
#[derive(Clone, Debug)]
pub struct SymbolicReviserOptions {
    /// Search algorithm for the gaps (shortest by default).
    pub algorithm: Algorithm,
    /// States per gap at most.
    pub max_states: usize,
    /// Time per gap at most.
    pub time: Duration,
    /// Gaps filled per revision at most.
    pub max_gaps: usize,
}

impl Default for SymbolicReviserOptions {
    fn default() -> SymbolicReviserOptions {
        SymbolicReviserOptions {
            algorithm: Algorithm::Astar,
            max_states: 200_000,
            time: Duration::from_secs(5),
            max_gaps: 4,
        }
    }
}

/// A reviser for episodes bound to a PDDL task: applies REMOVE (and MISSING steps spelled
/// out), then fills every gap the result has by planning — from the state before the
/// first inapplicable step to its unmet preconditions, or from the end to the goal. For a
/// safety task the gap is planned safely (terminal danger within the bound), so a plan
/// whose dangerous step was removed gets a safe way round it. Inserted steps carry the
/// round; a gap it cannot fill is reported in the notes and left for the next round.
#[derive(Clone, Debug, Default)]
pub struct SymbolicReviser {
    options: SymbolicReviserOptions,
}

impl SymbolicReviser {
    /// A reviser with these search options.
    pub fn new(options: SymbolicReviserOptions) -> SymbolicReviser {
        SymbolicReviser { options }
    }
}

#[async_trait]
impl Reviser for SymbolicReviser {
    fn name(&self) -> String {
        "symbolic".into()
    }

    async fn revise(
        &self,
        episode: &Episode,
        plan: &Plan,
        critiques: &[Critique],
        round: usize,
    ) -> Result<Revision, JudgeError> {
        let task = bound(episode, "symbolic reviser")?;
        let concrete: Vec<Critique> = critiques
            .iter()
            .filter(|c| c.kind == CritiqueKind::Remove || !c.steps.is_empty())
            .cloned()
            .collect();
        let mut revision = apply_critiques(plan, &concrete, round);
        for _ in 0..self.options.max_gaps {
            let texts = revision.plan.texts();
            let eval = task.evaluate(&texts);
            let Some(failure) = eval.feasibility().failure.as_ref() else {
                break;
            };
            if failure.kind.is_malformed() {
                // Not a gap: the judge will REMOVE it next round.
                break;
            }
            let at = failure.step.map_or(texts.len(), |s| s.saturating_sub(1));
            let targets: Vec<String> = failure.unmet.iter().map(|u| u.literal.clone()).collect();
            let inserted = |steps: Vec<String>| -> Vec<Step> {
                steps
                    .into_iter()
                    .map(|text| Step {
                        text,
                        origin: Origin::Inserted(round),
                    })
                    .collect()
            };
            match self.bridge(task, &texts[..at], &targets) {
                Ok(steps) if !steps.is_empty() => {
                    revision.plan.steps.splice(at..at, inserted(steps));
                    continue;
                }
                Ok(_) => break,
                Err(why) => revision.notes.push(format!(
                    "could not fill the gap before step {} ({}): {why}",
                    at + 1,
                    targets.join(", ")
                )),
            }
            // No bridge from there: an earlier step committed the plan to a dead end (a
            // tool that cannot be put back, a danger already raised). Back off to the
            // latest state from which the goal can still be reached (safely) and replan
            // the rest; the steps given up are reported.
            let mut replanned = false;
            for cut in (0..at).rev() {
                if let Ok(steps) = self.bridge(task, &texts[..cut], &[]) {
                    let dropped: Vec<String> = texts[cut..].iter().map(|t| t.to_string()).collect();
                    revision.notes.push(format!(
                        "replanned from step {}: gave up {}",
                        cut + 1,
                        dropped.join(" ")
                    ));
                    revision.plan.steps.truncate(cut);
                    revision.plan.steps.extend(inserted(steps));
                    replanned = true;
                    break;
                }
            }
            if !replanned {
                break;
            }
        }
        Ok(revision)
    }
}

impl SymbolicReviser {
    /// A plan from the state after `prefix` to `targets` (ground literals) — or to the
    /// task's goal when `targets` is empty — within the danger bound for a safety task.
    fn bridge(
        &self,
        task: &BoundTask,
        prefix: &[&str],
        targets: &[String],
    ) -> Result<Vec<String>, String> {
        let (domain, problem) = mid_plan_problem(task, prefix, targets)?;
        let search = SearchOptions {
            algorithm: self.options.algorithm,
            limits: Limits {
                max_states: Some(self.options.max_states),
                time: Some(self.options.time),
                ..Limits::default()
            },
        };
        let grounding = GroundOptions::default();
        let result = match task.safety() {
            Some(_) => {
                let safety = SafetyTask::new(&domain, &problem, &SafetyOptions::default())
                    .map_err(|e| e.to_string())?
                    .ok_or("the bridge task lost its danger fluent")?;
                SafetyPlanner::new(&safety, &grounding)
                    .map_err(|e| e.to_string())?
                    .safe_plan(&search)
            }
            None => {
                let t = Task::compile(&domain, &problem).map_err(|e| e.to_string())?;
                Planner::new(&t, &grounding)
                    .map_err(|e| e.to_string())?
                    .plan(&search)
            }
        };
        match result.outcome {
            Outcome::Found { plan } => Ok(plan),
            Outcome::Unsolvable => Err("no (safe) plan reaches it from there".into()),
            Outcome::LimitReached { limit } => {
                Err(format!("search stopped at its {limit:?} limit"))
            }
            Outcome::Rejected { reason, .. } => Err(format!(
                "internal error: the planner's plan does not pass the validator ({reason}); please report it"
            )),
        }
    }
}

/// The task's problem restarted from the state after `prefix`, with `targets` (or the
/// original goal) as goal; for a safety task the danger bound is kept.
fn mid_plan_problem(
    task: &BoundTask,
    prefix: &[&str],
    targets: &[String],
) -> Result<(Domain, Problem), String> {
    let (domain, original) = task.source();
    let tracking = task.tracking();
    let (verdict, state) = tracking.execute(&to_pddl_plan(prefix), &ValidateOptions::default());
    if verdict.failure.as_ref().is_some_and(|f| f.step.is_some()) {
        return Err("the steps before the gap do not apply".into());
    }
    let described = tracking.describe_state(&state);
    let mut init = String::new();
    for atom in &described.atoms {
        init.push_str(atom);
        init.push(' ');
    }
    for (fluent, value) in &described.fluents {
        init.push_str(&format!("(= {fluent} {value}) "));
    }
    let bound = task
        .safety()
        .map(|s| {
            format!(
                " (<= ({}) {})",
                SafetyOptions::default().danger,
                s.threshold()
            )
        })
        .unwrap_or_default();
    let goal = if targets.is_empty() {
        // Conjuncts spliced in, not nested: the basic-task derivation finds the danger
        // bound among the goal's top-level conjuncts.
        let g = match &original.goal {
            Some(safeplan_pddl::ast::Formula::And(parts, _)) => parts
                .iter()
                .map(safeplan_pddl::write_formula)
                .collect::<Vec<_>>()
                .join(" "),
            Some(f) => safeplan_pddl::write_formula(f),
            None => String::new(),
        };
        format!("(and {g}{bound})")
    } else {
        format!("(and {}{bound})", targets.join(" "))
    };
    let text = format!(
        "(define (problem mid) (:domain {}) (:init {init}) (:goal {goal}))",
        domain.name.text
    );
    let parsed = safeplan_pddl::parse_problem(&text);
    let mid = parsed
        .value
        .filter(|_| !parsed.diagnostics.iter().any(|d| d.is_error()))
        .ok_or("the mid-plan state could not be written as a problem")?;
    let mut problem = original.clone();
    problem.init = mid.init;
    problem.goal = mid.goal;
    Ok((domain.clone(), problem))
}

/// The default reviser: the [`SymbolicReviser`] for episodes bound to a PDDL task, the
/// deterministic [`ApplyCritiques`](crate::ApplyCritiques) for the rest.
#[derive(Clone, Debug, Default)]
pub struct AutoReviser {
    symbolic: SymbolicReviser,
}

#[async_trait]
impl Reviser for AutoReviser {
    fn name(&self) -> String {
        "auto".into()
    }

    async fn revise(
        &self,
        episode: &Episode,
        plan: &Plan,
        critiques: &[Critique],
        round: usize,
    ) -> Result<Revision, JudgeError> {
        if episode.task.is_some() {
            self.symbolic.revise(episode, plan, critiques, round).await
        } else {
            Ok(apply_critiques(plan, critiques, round))
        }
    }
}
