//! The online monitor: a robot asks before each action whether it is applicable, and tells
//! the monitor when it has executed it.

use crate::exec::Pending;
use crate::state::State;
use crate::task::{ObjId, Task};
use crate::validate::GroundAction;
use crate::verdict::{Failure, FailureKind, Warning};

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
    state: State,
    steps: usize,
    warnings: Vec<Warning>,
}

impl<'t> Monitor<'t> {
    /// A monitor at the task's initial state.
    pub fn new(task: &'t Task) -> Monitor<'t> {
        Monitor::from_state(task, task.initial_state())
    }

    /// A monitor starting from a given state (e.g. one the robot observed).
    pub fn from_state(task: &'t Task, state: State) -> Monitor<'t> {
        Monitor {
            task,
            state,
            steps: 0,
            warnings: Vec::new(),
        }
    }

    /// A monitor that resumes an execution: at `state`, after `steps` actions that gave
    /// `warnings` ([`Monitor::into_parts`] gives them back). For owners that cannot hold a
    /// borrow of the task across calls, such as the Python binding.
    pub fn from_parts(
        task: &'t Task,
        state: State,
        steps: usize,
        warnings: Vec<Warning>,
    ) -> Monitor<'t> {
        Monitor {
            task,
            state,
            steps,
            warnings,
        }
    }

    /// The execution so far — state, actions applied, warnings — without the task borrow.
    pub fn into_parts(self) -> (State, usize, Vec<Warning>) {
        (self.state, self.steps, self.warnings)
    }

    /// The state after the actions applied so far: read it with [`Task::holds`] and
    /// [`Task::value`], or start another monitor from it.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The task being monitored.
    pub fn task(&self) -> &'t Task {
        self.task
    }

    /// How many actions have been applied.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Warnings from the actions applied so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Whether `action` can be executed now, and if not, what is false (with advice).
    /// The state does not change. The failure's `step` is the number the action would
    /// have (1-based).
    pub fn check(&self, action: &GroundAction) -> Result<(), Failure> {
        self.effects(action).map(|_| ())
    }

    /// Check `action` and, if it is applicable, execute it on the monitor's state. On
    /// failure nothing changes.
    pub fn apply(&mut self, action: &GroundAction) -> Result<(), Failure> {
        let mut pending = self.effects(action)?;
        let k = self.steps + 1;
        let mut next = self.state.clone();
        match self.task.apply(&mut next, &mut pending) {
            Ok(undefined) => {
                let task = self.task;
                self.warnings
                    .extend(undefined.iter().map(|u| task.undefined_warning(u, k)));
                self.state = next;
                self.steps = k;
                Ok(())
            }
            Err(fault) => {
                let mut f = self.task.fault_failure(&fault, Some(k));
                f.action = Some(self.task.action_text(action));
                Err(f)
            }
        }
    }

    /// Whether the goal holds in the current state.
    pub fn goal_reached(&self) -> bool {
        matches!(self.task.holds_cond_goal(&self.state, self.steps), Ok(true))
    }

    /// Precondition check and effect computation against the current state.
    fn effects(&self, action: &GroundAction) -> Result<Pending, Failure> {
        let task = self.task;
        let k = self.steps + 1;
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
            });
        }
        let text = || task.action_text(action);
        let mut b: Vec<ObjId> = action.args.clone();
        b.resize(schema.slots, 0);
        match task.eval(&self.state, &schema.pre, &mut b, self.steps) {
            Ok(true) => {}
            Ok(false) => {
                return Err(task.precondition_failure(&self.state, action.schema, &b, k, text()));
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
        task.collect(
            &self.state,
            &schema.effects,
            &mut b,
            self.steps,
            &mut pending,
        )
        .and_then(|()| task.numeric_updates(&self.state, &mut pending).map(|_| ()))
        .map_err(|fault| {
            let mut f = task.fault_failure(&fault, Some(k));
            f.action = Some(text());
            f
        })?;
        Ok(pending)
    }
}
