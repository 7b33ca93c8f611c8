//! The online monitor: a robot asks before each action whether it is applicable, and tells
//! the monitor when it has executed it.
//!
//! A task's trajectory constraints are part of "may I do this next?": the monitor runs
//! their automata on the state an action would lead to, so an action that would break an
//! `always` or a `sometime-before` rule is refused before the robot moves, with the rule
//! and why; [`Monitor::outstanding`] lists what the constraints still owe, and
//! [`Monitor::check_end`] whether the robot may stop now.

use crate::constraints::{Place, Stage, Tracker};
use crate::exec::Pending;
use crate::explain::Site;
use crate::state::State;
use crate::task::{ObjId, Task};
use crate::validate::GroundAction;
use crate::verdict::{ConstraintViolation, Failure, FailureKind, Obligation, Warning};

/// Tracks the state of one execution, step by step.
///
/// ```
/// # use safeplan_pddl::{parse_domain, parse_problem};
/// # use safeplan_validate::{Monitor, Task};
/// # let domain = parse_domain("(define (domain d) (:predicates (at ?x) (link ?x ?y)) \
/// #   (:action go :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b)) \
/// #    :effect (and (not (at ?a)) (at ?b))))").value.unwrap();
/// # let problem = parse_problem("(define (problem p) (:domain d) (:objects x y) \
/// #   (:init (at x) (link x y)) (:goal (at y)))").value.unwrap();
/// let task = Task::compile(&domain, &problem)?;
/// let mut monitor = Monitor::new(&task);
/// let go = task.ground("go", &["x", "y"])?;
/// assert!(monitor.check(&go).is_ok());       // applicable, state unchanged
/// monitor.apply(&go)?;                       // executed: the state moves on
/// assert!(monitor.check(&go).is_err());      // (at x) is false now
/// assert!(monitor.goal_reached());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Monitor<'t> {
    task: &'t Task,
    parts: MonitorParts,
}

/// An execution so far — state, actions applied, warnings, the constraints' progress —
/// without the task borrow: what [`Monitor::into_parts`] gives back and
/// [`Monitor::from_parts`] resumes, for owners that cannot hold a borrow of the task across
/// calls (the Python binding).
#[derive(Debug, Clone)]
pub struct MonitorParts {
    state: State,
    steps: usize,
    warnings: Vec<Warning>,
    tracker: Tracker,
    /// Hard constraints found broken where no action could be refused: by the state the
    /// monitor started from.
    broken: Vec<ConstraintViolation>,
    /// Preference instances found violated so far.
    soft: Vec<ConstraintViolation>,
}

impl MonitorParts {
    /// How many actions have been applied.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The state after the actions applied so far.
    pub fn state(&self) -> &State {
        &self.state
    }
}

impl<'t> Monitor<'t> {
    /// A monitor at the task's initial state.
    pub fn new(task: &'t Task) -> Monitor<'t> {
        Monitor::from_state(task, task.initial_state())
    }

    /// A monitor starting from a given state (e.g. one the robot observed), taken as the
    /// first state of the execution (state 0, time 0) for the task's constraints.
    pub fn from_state(task: &'t Task, state: State) -> Monitor<'t> {
        let mut parts = MonitorParts {
            tracker: Tracker::new(&task.constraints),
            state,
            steps: 0,
            warnings: Vec::new(),
            broken: Vec::new(),
            soft: Vec::new(),
        };
        if task.has_constraints() {
            let place = || Place {
                label: "in the initial state".into(),
                site: Site::State(0),
            };
            let p = &mut parts;
            let found = p.tracker.judge(
                task,
                &p.state,
                0,
                0.0,
                Stage::State,
                None,
                &place,
                &mut p.soft,
            );
            p.broken = found
                .into_iter()
                .filter_map(|f| f.constraint.map(|c| *c))
                .collect();
        }
        Monitor { task, parts }
    }

    /// A monitor that resumes an execution from its parts ([`Monitor::into_parts`]).
    pub fn from_parts(task: &'t Task, parts: MonitorParts) -> Monitor<'t> {
        Monitor { task, parts }
    }

    /// The execution so far, without the task borrow.
    pub fn into_parts(self) -> MonitorParts {
        self.parts
    }

    /// The state after the actions applied so far: read it with [`Task::holds`] and
    /// [`Task::value`], or start another monitor from it.
    pub fn state(&self) -> &State {
        &self.parts.state
    }

    /// The task being monitored.
    pub fn task(&self) -> &'t Task {
        self.task
    }

    /// How many actions have been applied.
    pub fn steps(&self) -> usize {
        self.parts.steps
    }

    /// Warnings from the actions applied so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.parts.warnings
    }

    /// Whether `action` can be executed now, and if not, what is false (with advice): its
    /// precondition, or a hard trajectory constraint the state it leads to would break.
    /// The state does not change. The failure's `step` is the number the action would
    /// have (1-based).
    pub fn check(&self, action: &GroundAction) -> Result<(), Failure> {
        let pending = self.effects(action)?;
        if self.task.has_constraints() {
            self.successor(action, pending)?;
        }
        Ok(())
    }

    /// Check `action` and, if it can be executed, execute it on the monitor's state. On
    /// failure nothing changes.
    pub fn apply(&mut self, action: &GroundAction) -> Result<(), Failure> {
        let pending = self.effects(action)?;
        let next = self.successor(action, pending)?;
        self.parts = next;
        Ok(())
    }

    /// Whether the goal holds in the current state.
    pub fn goal_reached(&self) -> bool {
        let p = &self.parts;
        matches!(self.task.holds_cond_goal(&p.state, p.steps), Ok(true))
    }

    /// Whether the execution may end here: the goal holds, and no trajectory constraint is
    /// broken or still owed (`sometime`, `within`, `sometime-after`, `always-within`,
    /// `at end`). The first reason it may not, as the validator would give it for a plan
    /// ending here. Nothing changes.
    pub fn check_end(&self) -> Result<(), Failure> {
        let task = self.task;
        let p = &self.parts;
        if let Some(v) = p.broken.first() {
            return Err(task.constraint_failure(v.clone(), None));
        }
        match task.holds_cond_goal(&p.state, p.steps) {
            Ok(true) => {}
            Ok(false) => return Err(task.goal_failure(&p.state, p.steps)),
            Err(fault) => return Err(task.fault_failure(&fault, None)),
        }
        if task.has_constraints() {
            let mut tracker = p.tracker.clone();
            let place = || Place {
                label: "at the end of the plan".into(),
                site: Site::End,
            };
            let (k, t) = (p.steps, p.steps as f64);
            let found = tracker.judge(
                task,
                &p.state,
                k,
                t,
                Stage::End,
                None,
                &place,
                &mut Vec::new(),
            );
            if let Some(f) = found.into_iter().next() {
                return Err(f);
            }
        }
        Ok(())
    }

    /// What the task's hard trajectory constraints still owe at this point: each must be
    /// met before the execution may end ([`Monitor::check_end`]).
    pub fn outstanding(&self) -> Vec<Obligation> {
        let task = self.task;
        self.parts
            .tracker
            .outstanding(&task.constraints)
            .into_iter()
            .map(|(i, deadline)| task.obligation(i, deadline))
            .collect()
    }

    /// Hard constraints broken by the state the monitor started from (no action could be
    /// refused for them).
    pub fn broken(&self) -> &[ConstraintViolation] {
        &self.parts.broken
    }

    /// Preference instances (soft constraints) violated so far.
    pub fn preference_violations(&self) -> &[ConstraintViolation] {
        &self.parts.soft
    }

    /// The execution after `action` (whose effects are `pending`): its state, and the
    /// constraints' automata fed that state. A hard constraint broken there refuses it.
    fn successor(
        &self,
        action: &GroundAction,
        mut pending: Pending,
    ) -> Result<MonitorParts, Failure> {
        let task = self.task;
        let k = self.parts.steps + 1;
        let mut next = self.parts.clone();
        match task.apply(&mut next.state, &mut pending) {
            Ok(undefined) => {
                next.warnings
                    .extend(undefined.iter().map(|u| task.undefined_warning(u, k)));
                next.steps = k;
            }
            Err(fault) => {
                let mut f = task.fault_failure(&fault, Some(k));
                f.action = Some(task.action_text(action));
                return Err(f);
            }
        }
        if task.has_constraints() {
            let text = task.action_text(action);
            let place = || Place {
                label: format!("after step {k} {text}"),
                site: Site::State(k),
            };
            let n = &mut next;
            let found = n.tracker.judge(
                task,
                &n.state,
                k,
                k as f64,
                Stage::State,
                Some(k),
                &place,
                &mut n.soft,
            );
            if let Some(mut f) = found.into_iter().next() {
                f.action = Some(text.clone());
                return Err(f);
            }
        }
        Ok(next)
    }

    /// Precondition check and effect computation against the current state.
    fn effects(&self, action: &GroundAction) -> Result<Pending, Failure> {
        let task = self.task;
        let (state, steps) = (&self.parts.state, self.parts.steps);
        let k = steps + 1;
        let Some(schema) = task.schemas.get(action.schema as usize) else {
            return Err(Failure {
                kind: FailureKind::UnknownAction,
                step: Some(k),
                action: None,
                message: "this action was grounded for a different task".into(),
                unmet: Vec::new(),
                advice: vec!["ground actions with the task the monitor was made for".into()],
                source: None,
                timing: None,
                constraint: None,
            });
        };
        if schema.durative.is_some() {
            return Err(Failure {
                kind: FailureKind::UnknownAction,
                step: Some(k),
                action: Some(task.action_text(action)),
                message: format!(
                    "`{}` is a durative action; this monitor runs instantaneous actions one \
                     after another",
                    schema.name
                ),
                unmet: Vec::new(),
                advice: vec![
                    "report its start and end to a TimedMonitor, which knows about time".into(),
                ],
                source: None,
                timing: None,
                constraint: None,
            });
        }
        let text = || task.action_text(action);
        let mut b: Vec<ObjId> = action.args.clone();
        b.resize(schema.slots, 0);
        match task.eval(state, &schema.pre, &mut b, steps) {
            Ok(true) => {}
            Ok(false) => {
                return Err(task.precondition_failure(state, action.schema, &b, k, text()));
            }
            Err(fault) => {
                let mut f = task.fault_failure(&fault, Some(k));
                f.action = Some(text());
                return Err(f);
            }
        }
        // Effects are computed and their numeric updates combined here, so that `check`
        // rejects everything `apply` would (a conflict, a division by zero).
        let mut pending = Pending::default();
        task.collect(state, &schema.effects, &mut b, steps, &mut pending)
            .and_then(|()| task.numeric_updates(state, &mut pending).map(|_| ()))
            .map_err(|fault| {
                let mut f = task.fault_failure(&fault, Some(k));
                f.action = Some(text());
                f
            })?;
        Ok(pending)
    }
}
