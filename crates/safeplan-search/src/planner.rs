//! The planner's front: a grounded task and the searches one can run on it, for the task's
//! own goal or for safe and unsafe plans of a safety-augmented task.

use std::sync::Arc;
use std::time::Instant;

use safeplan_pddl::ast::{ArithOp, AssignOp};
use safeplan_validate::{SafetyTask, Task};
use serde::{Deserialize, Serialize};

use crate::error::GroundError;
use crate::ground::{GCond, GNum, GroundOptions, GroundTask};
use crate::rules::RuleMode;
use crate::search::{self, Algorithm, Bound, Goal, Limits, Outcome, SearchResult};

/// How to search a grounded task: the algorithm, and the limits that turn a hopeless search
/// into [`Outcome::LimitReached`](crate::Outcome::LimitReached) instead of a hang. The
/// default is [`Algorithm::Auto`] with no limits.
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// When to give up.
    pub limits: Limits,
}

/// The size of a grounded task and how long grounding took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroundStats {
    /// Reachable fluent atoms.
    pub atoms: usize,
    /// Ground actions.
    pub actions: usize,
    /// Numeric state variables.
    pub numeric: usize,
    /// Seconds spent grounding.
    pub seconds: f64,
}

/// A grounded task, ready to be searched for its goal any number of times.
///
/// Every plan it returns has passed the validator on the task it was made from: a plan the
/// search found and the validator rejects is [`Outcome::Rejected`], never
/// [`Outcome::Found`] (a defect to report, said plainly by every front end).
#[derive(Clone, Debug)]
pub struct Planner {
    task: GroundTask,
    stats: GroundStats,
    /// The task the plans are checked on (a copy: the planner outlives the caller's borrow).
    checked_on: Arc<Task>,
}

/// `result`, with a found plan kept only when `accept` says the validator agrees; else
/// [`Outcome::Rejected`] with the validator's reason.
fn confirmed(
    mut result: SearchResult,
    accept: impl FnOnce(&safeplan_pddl::Plan) -> Result<(), String>,
) -> SearchResult {
    let Outcome::Found { plan } = &result.outcome else {
        return result;
    };
    let parsed = safeplan_pddl::parse_plan(&plan.join("\n"));
    let verdict = match parsed.value {
        Some(p) if !parsed.has_errors() => accept(&p),
        _ => Err("the steps do not read as a plan".into()),
    };
    if let Err(reason) = verdict {
        result.outcome = Outcome::Rejected {
            plan: plan.clone(),
            reason,
        };
        // A cost belongs to a plan returned, and this one is not.
        result.cost = None;
    }
    result
}

/// The validator's reason for a verdict that is not valid.
fn reason(v: &safeplan_validate::Verdict) -> String {
    v.failure
        .as_ref()
        .map_or_else(|| "the validator rejects it".into(), |f| f.message.clone())
}

impl Planner {
    /// Ground `task` by reachability, once; [`Planner::plan`] can then search it any number
    /// of times. Fails when grounding would exceed `options`' limits or the task uses a
    /// feature the planner does not support ([`GroundError`]).
    pub fn new(task: &Task, options: &GroundOptions) -> Result<Planner, GroundError> {
        Planner::ground(task, options, &[])
    }

    fn ground(task: &Task, options: &GroundOptions, keep: &[u32]) -> Result<Planner, GroundError> {
        let start = Instant::now();
        let checked_on = Arc::new(task.clone());
        let task = GroundTask::ground_keeping(task, options, keep)?;
        let stats = GroundStats {
            atoms: task.atom_count(),
            actions: task.action_count(),
            numeric: task.numeric_count(),
            seconds: start.elapsed().as_secs_f64(),
        };
        Ok(Planner {
            task,
            stats,
            checked_on,
        })
    }

    /// Search for a plan that reaches the task's goal.
    pub fn plan(&self, options: &SearchOptions) -> SearchResult {
        let goal = Goal {
            pre: &self.task.goal,
            possible: self.task.goal_possible,
            bound: None,
            settled: None,
            rules: RuleMode::Keep,
            monotone: false,
        };
        let result = search::search(&self.task, &goal, options.algorithm, &options.limits);
        confirmed(result, |plan| {
            let v = self.checked_on.validate(plan);
            if v.valid { Ok(()) } else { Err(reason(&v)) }
        })
    }

    /// The grounded task.
    pub fn ground_task(&self) -> &GroundTask {
        &self.task
    }

    /// Grounding statistics.
    pub fn grounding(&self) -> &GroundStats {
        &self.stats
    }
}

/// Planning for a safety-augmented task (DESPITE): safe plans, unsafe plans, safety effort.
///
/// Searches run on the task's tracking form (the augmented domain with the basic goal), so a
/// plan found is feasible by construction; the danger bound is checked exactly on the
/// terminal value, as [`SafetyTask::evaluate`] judges it.
#[derive(Clone, Debug)]
pub struct SafetyPlanner {
    planner: Planner,
    /// The task safe, unsafe and basic plans are checked on.
    safety: Arc<SafetyTask>,
    /// The basic task grounded on its own, when the safety rules are trajectory
    /// constraints: the tracking task keeps them, and a basic plan must not.
    basic: Option<Planner>,
    /// The danger variable, `None` when no action changes danger.
    danger: Option<u32>,
    d_init: f64,
    d_max: f64,
    monotone: bool,
}

/// Reference plans of a safety-augmented task and the safety effort between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SafetyEffort {
    /// The search for a shortest safe plan.
    pub safe: SearchResult,
    /// The search for a shortest feasible but unsafe plan.
    #[serde(rename = "unsafe")]
    pub unsafe_plan: SearchResult,
    /// |safe| − |unsafe|: the extra steps safety costs (negative when the unsafe plan is
    /// longer). `None` unless both plans were found by an optimal search.
    pub effort: Option<i64>,
}

impl SafetyPlanner {
    /// Ground the tracking form of `safety` (and, when its safety rules are trajectory
    /// constraints, the basic task too, for [`SafetyPlanner::basic_plan`]).
    pub fn new(safety: &SafetyTask, options: &GroundOptions) -> Result<SafetyPlanner, GroundError> {
        let keep: Vec<u32> = safety.danger_function().into_iter().collect();
        let planner = Planner::ground(safety.tracking(), options, &keep)?;
        let danger = safety
            .danger_function()
            .and_then(|f| planner.task.var_of(f));
        let monotone = danger.is_some_and(|d| monotone(&planner.task, d));
        let basic = if safety.tracking().has_hard_constraints() {
            Some(Planner::new(safety.basic(), options)?)
        } else {
            None
        };
        Ok(SafetyPlanner {
            planner,
            safety: Arc::new(safety.clone()),
            basic,
            danger,
            d_init: safety.initial_danger(),
            d_max: safety.threshold(),
            monotone,
        })
    }

    fn search(&self, bound: Option<Bound>, options: &SearchOptions) -> SearchResult {
        let task = &self.planner.task;
        // Danger that no action changes stays d_init: the bound is then settled up front.
        let settled = match (self.danger, bound) {
            (None, Some(Bound::AtMost(d))) => Some(self.d_init <= d),
            (None, Some(Bound::Above(d))) => Some(self.d_init > d),
            _ => None,
        };
        // An unsafe plan breaks a safety rule or ends with danger above the bound; safe and
        // basic plans keep every rule.
        let rules = match bound {
            Some(Bound::Above(_)) => RuleMode::Break,
            _ => RuleMode::Keep,
        };
        let breakable = rules == RuleMode::Break && !task.rules.is_empty();
        let goal = Goal {
            pre: &task.goal,
            possible: task.goal_possible && (settled != Some(false) || breakable),
            bound: self.danger.zip(bound),
            settled,
            rules,
            monotone: self.monotone,
        };
        let result = search::search(task, &goal, options.algorithm, &options.limits);
        // Checked as its target claims: safe; feasible and unsafe; feasible.
        confirmed(result, |plan| {
            let v = self.safety.evaluate(plan);
            let (ok, claim) = match bound {
                Some(Bound::AtMost(_)) => (v.feasible && v.safe, "safe"),
                Some(Bound::Above(_)) => (v.feasible && !v.safe, "feasible and unsafe"),
                None => (v.feasible, "feasible"),
            };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "the validator does not find it {claim}: feasible {}, safe {}{}",
                    v.feasible,
                    v.safe,
                    v.basic
                        .failure
                        .as_ref()
                        .map(|f| format!(" ({})", f.message))
                        .unwrap_or_default()
                ))
            }
        })
    }

    /// A plan for the basic goal, danger and the safety rules ignored (a shortest one with
    /// an optimal algorithm): a plan of the basic task.
    pub fn basic_plan(&self, options: &SearchOptions) -> SearchResult {
        match &self.basic {
            Some(basic) => basic.plan(options),
            None => self.search(None, options),
        }
    }

    /// A safe plan: the basic goal, ending with danger at most d_max and keeping every safety
    /// rule (hard trajectory constraint).
    pub fn safe_plan(&self, options: &SearchOptions) -> SearchResult {
        self.search(Some(Bound::AtMost(self.d_max)), options)
    }

    /// A feasible but unsafe plan: the basic goal, ending with danger above d_max or breaking
    /// one of the task's safety rules (hard trajectory constraints) on the way or at the end.
    pub fn unsafe_plan(&self, options: &SearchOptions) -> SearchResult {
        self.search(Some(Bound::Above(self.d_max)), options)
    }

    /// Shortest safe and unsafe plans and the safety effort between them. `auto` searches
    /// with LM-cut alone here ([`Algorithm::for_shortest`]); the effort is computed when
    /// both plans are proven shortest ([`SearchResult::is_optimal`]): with a satisficing
    /// algorithm the plans are found but the effort is not, unless `lama-anytime` ran to
    /// its proof.
    pub fn effort(&self, options: &SearchOptions) -> SafetyEffort {
        // Safety effort is a difference of plan lengths (DESPITE's definition): under action
        // costs its two searches run on a copy measured in steps (and say so).
        if self.planner.task.measure == crate::ground::Measure::ActionCosts {
            let mut steps = self.clone();
            steps.planner.task.in_steps();
            return steps.effort(options);
        }
        let options = &SearchOptions {
            algorithm: options.algorithm.for_shortest(),
            limits: options.limits.clone(),
        };
        let safe = self.safe_plan(options);
        let unsafe_plan = self.unsafe_plan(options);
        let effort = match (safe.outcome.plan(), unsafe_plan.outcome.plan()) {
            (Some(s), Some(u)) if safe.is_optimal() && unsafe_plan.is_optimal() => {
                Some(s.len() as i64 - u.len() as i64)
            }
            _ => None,
        };
        SafetyEffort {
            safe,
            unsafe_plan,
            effort,
        }
    }

    /// Whether danger provably never decreases and nothing but the safety bound reads it,
    /// which lets safe searches prune states past the bound and makes their state spaces
    /// finite.
    pub fn danger_is_monotone(&self) -> bool {
        self.monotone
    }

    /// Grounding statistics.
    pub fn grounding(&self) -> &GroundStats {
        &self.planner.stats
    }

    /// The grounded tracking task.
    pub fn ground_task(&self) -> &GroundTask {
        &self.planner.task
    }
}

/// Whether every update of `var` adds a non-negative constant and nothing else reads it.
fn monotone(task: &GroundTask, var: u32) -> bool {
    let reads_cond = |c: &Option<GCond>| c.as_ref().is_some_and(|c| cond_reads(c, var));
    if reads_cond(&task.goal.rest) {
        return false;
    }
    for op in &task.ops {
        if reads_cond(&op.pre.rest) {
            return false;
        }
        for e in &op.effects {
            if reads_cond(&e.cond.rest) {
                return false;
            }
            for n in &e.nums {
                if n.var == Some(var) {
                    let step = match (n.op, &n.value) {
                        (AssignOp::Increase, GNum::Const(c)) => *c,
                        (AssignOp::Decrease, GNum::Const(c)) => -*c,
                        (AssignOp::Assign, GNum::Arith(ArithOp::Add, args)) => {
                            match args.as_slice() {
                                [GNum::Var(v), GNum::Const(c)] | [GNum::Const(c), GNum::Var(v)]
                                    if *v == var =>
                                {
                                    *c
                                }
                                _ => return false,
                            }
                        }
                        _ => return false,
                    };
                    if step.is_nan() || step < 0.0 {
                        return false;
                    }
                } else if num_reads(&n.value, var) {
                    return false;
                }
            }
        }
    }
    true
}

fn cond_reads(c: &GCond, var: u32) -> bool {
    match c {
        GCond::And(parts) | GCond::Or(parts) => parts.iter().any(|p| cond_reads(p, var)),
        GCond::Cmp { l, r, .. } => num_reads(l, var) || num_reads(r, var),
        GCond::True | GCond::False | GCond::Atom(_) | GCond::NotAtom(_) => false,
    }
}

fn num_reads(e: &GNum, var: u32) -> bool {
    match e {
        GNum::Var(v) => *v == var,
        GNum::Arith(_, args) => args.iter().any(|a| num_reads(a, var)),
        GNum::Const(_) | GNum::Undefined => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use safeplan_pddl::{parse_domain, parse_problem};

    fn result(plan: &[&str]) -> SearchResult {
        SearchResult {
            outcome: Outcome::Found {
                plan: plan.iter().map(|s| s.to_string()).collect(),
            },
            algorithm: Algorithm::Bfs,
            measure: Default::default(),
            cost: Some(plan.len() as u64),
            metric_ignored: None,
            proven_optimal: false,
            stats: Default::default(),
        }
    }

    /// A plan the search claims and the validator rejects is never returned as found: it
    /// becomes `Rejected` with the validator's reason (hand-built: the search has no known
    /// defect to show it with).
    #[test]
    fn a_plan_the_validator_rejects_is_never_returned_as_found() {
        let d = parse_domain(
            "(define (domain d) (:predicates (p) (q)) (:action a :precondition (p) :effect (q)) (:action b :effect (p)))",
        )
        .value
        .expect("domain");
        let p = parse_problem("(define (problem x) (:domain d) (:init) (:goal (q)))")
            .value
            .expect("problem");
        let task = Task::compile(&d, &p).expect("compiles");
        let planner = Planner::new(&task, &GroundOptions::default()).expect("grounds");
        let check = |r| {
            confirmed(r, |plan| {
                let v = planner.checked_on.validate(plan);
                if v.valid { Ok(()) } else { Err(reason(&v)) }
            })
        };
        let bad = check(result(&["(a)"]));
        let Outcome::Rejected { plan, reason } = &bad.outcome else {
            panic!("{bad:?}");
        };
        assert_eq!(plan, &["(a)".to_string()]);
        assert!(reason.contains("(p)"), "{reason}");
        assert!(bad.outcome.plan().is_none());
        let good = check(result(&["(b)", "(a)"]));
        assert_eq!(good.outcome.plan().map(<[String]>::len), Some(2));
        // And what the planner itself returns passes.
        let found = planner.plan(&SearchOptions::default());
        assert_eq!(found.outcome.plan().map(<[String]>::len), Some(2));
    }
}
