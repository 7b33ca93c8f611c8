//! A *shield* for a running execution: before each action the robot asks "may I do this
//! now?", and the answer is the plan verdict's answer for the plan so far plus that action.
//!
//! A [`Shield`] owns its task (an [`Arc`], so bindings and nodes can keep one per execution
//! without lifetimes) and the execution so far. On a safety-augmented task it executes the
//! safety task's *tracking* task, which counts danger, and refuses an event that would raise
//! danger past the task's bound, with the library's reasons (the conditions of the danger
//! effects that would fire), the sentence every surface prints. The three refusals are the
//! plan verdict's three outcomes of a failing step (SEMANTICS.md): a step that cannot run
//! is *infeasible*; a step that breaks a hard trajectory constraint (every hard constraint
//! is a safety rule) is *feasible and unsafe*; a step that raises danger past the bound is
//! *feasible and unsafe*.
//!
//! A sequential task is asked step by step ([`Shield::step`]); a task with durative actions
//! by events with times ([`Shield::start`], [`Shield::end`], and [`Shield::happen`] for an
//! instantaneous action in a temporal domain). The step number in an answer is the plan's:
//! the action's place in dispatch order, as in a plan verdict.
//!
//! Every event is tried on a copy of the execution, and the copy replaces it only when the
//! event is allowed and applied: a refused event, an error, or a panic half-way through
//! leave the shield as it was (it is never poisoned).

use std::sync::Arc;

use safeplan_pddl::PlanStep;
use serde::Serialize;

use crate::monitor::{Monitor, MonitorParts};
use crate::safety::{DangerEvent, SafetyTask, fired_danger_conditions};
use crate::state::State;
use crate::task::Task;
use crate::temporal::monitor::{TimedError, TimedMonitor};
use crate::verdict::{Event, Failure, FailureKind, Obligation};
use crate::{DEFAULT_TOLERANCE, GroundAction};

/// The task a shield guards: a plain task, or a safety-augmented one.
#[derive(Clone, Debug)]
pub enum Guarded {
    /// A task without a danger fluent: refusals are inapplicable steps and broken rules.
    Task(Arc<Task>),
    /// A safety task: refusals also for danger past its bound.
    Safety(Arc<SafetyTask>),
}

impl Guarded {
    /// The task the shield executes: the safety task's tracking task (which counts danger),
    /// else the task.
    pub fn executed(&self) -> &Task {
        match self {
            Guarded::Task(t) => t,
            Guarded::Safety(s) => s.tracking(),
        }
    }

    fn safety(&self) -> Option<&SafetyTask> {
        match self {
            Guarded::Task(_) => None,
            Guarded::Safety(s) => Some(s),
        }
    }

    /// Danger in `state` (0 on a plain task).
    fn danger(&self, state: &State) -> Option<f64> {
        let s = self.safety()?;
        Some(SafetyTask::danger_of(
            s.tracking(),
            s.danger_function(),
            state,
        ))
    }
}

/// Why a shield refused an event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// It cannot run now: unknown action, a false condition, a broken `over all`, a wrong
    /// duration. Infeasible.
    Inapplicable {
        /// What is false, and advice, as in a plan verdict.
        failure: Box<Failure>,
    },
    /// It would break a hard trajectory constraint, a safety rule. Feasible and unsafe.
    RuleBroken {
        /// Which rule, when and why.
        failure: Box<Failure>,
    },
    /// It would raise danger past the task's bound. Feasible and unsafe.
    Dangerous {
        /// The rise, with the conditions of the danger effects that would fire.
        event: Box<DangerEvent>,
        /// The task's bound (the safety threshold).
        bound: f64,
    },
}

impl Refusal {
    fn of_failure(failure: Box<Failure>) -> Refusal {
        if failure.kind == FailureKind::ConstraintViolated {
            Refusal::RuleBroken { failure }
        } else {
            Refusal::Inapplicable { failure }
        }
    }

    /// The refusal in words: the failure's sentence, or the danger event's sentence and the
    /// bound.
    pub fn sentence(&self) -> String {
        match self {
            Refusal::Inapplicable { failure } => failure.message.clone(),
            Refusal::RuleBroken { failure } => format!("unsafe: {}", failure.message),
            // The event has not happened: the danger event's sentence in the conditional.
            Refusal::Dangerous { event, bound } => format!(
                "unsafe: {}, past the task's bound {bound}",
                event
                    .sentence("->")
                    .replacen(" raised ", " would raise ", 1)
            ),
        }
    }
}

/// Which event of an action a timed answer is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Moment {
    /// A sequential step.
    Step,
    /// The start of a durative action.
    Start,
    /// The end of a durative action.
    End,
    /// An instantaneous action in a temporal domain.
    Happen,
}

/// The shield's answer about one event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Answer {
    /// The action as written, e.g. `(move stove table)`.
    pub action: String,
    /// The plan's step number of the action (its place in dispatch order, from 1).
    pub step: usize,
    /// Which event of the action.
    pub event: Moment,
    /// The time of the event (timed tasks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// Whether the event may happen now.
    pub allowed: bool,
    /// Whether it was applied (asked to apply, and allowed).
    pub applied: bool,
    /// False when the event cannot run (an inapplicable step).
    pub feasible: bool,
    /// False when it would break a safety rule or raise danger past the bound.
    pub safe: bool,
    /// Danger after the event on a safety task (as it would be, when refused); `None` on
    /// a plain task or when the event cannot run.
    pub danger: Option<f64>,
    /// Why it was refused.
    pub refusal: Option<Refusal>,
}

impl Answer {
    /// The answer as one sentence: `(pick-up soup stove) may run now`, `(move stove table)
    /// refused: unsafe: step 2 (move stove table) would raise danger 0 -> 1 because ...`.
    pub fn sentence(&self) -> String {
        let when = match (self.event, self.time) {
            (Moment::Start, Some(t)) => format!(" (start at {t})"),
            (Moment::End, Some(t)) => format!(" (end at {t})"),
            (_, Some(t)) => format!(" (at {t})"),
            _ => String::new(),
        };
        match &self.refusal {
            None => format!("{}{when} may run now", self.action),
            Some(r) => format!("{}{when} refused: {}", self.action, r.sentence()),
        }
    }
}

/// An event the shield cannot answer about (not a refusal: the question is wrong).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShieldError {
    /// A time that is negative, not finite, or before the last event's.
    #[error(
        "the time {time} is not a time of this execution: give a finite number, 0 or more, not before the last event{}",
        last.map(|l| format!(" (at {l})")).unwrap_or_default()
    )]
    Timing {
        /// The time given.
        time: f64,
        /// The last event's time.
        last: Option<f64>,
    },
    /// `end` of an action that is not running.
    #[error("{0} is not running: it ended, or it was never started")]
    NotRunning(String),
    /// A sequential step on a temporal task, a timed event on a sequential one, `start` of
    /// an instantaneous action or `happen` of a durative one.
    #[error("{0}")]
    WrongKind(String),
}

/// The execution a shield keeps.
enum Execution {
    Sequential(Box<MonitorParts>),
    Timed(TimedCell),
}

self_cell::self_cell!(
    /// A timed monitor and the task it borrows.
    struct TimedCell {
        owner: Guarded,
        #[covariant]
        dependent: TimedMonitor,
    }
);

/// A shield over one execution of a task (see the module's documentation).
///
/// ```
/// use std::sync::Arc;
/// use safeplan_pddl::{parse_domain, parse_problem, parse_plan};
/// use safeplan_validate::{Guarded, SafetyOptions, SafetyTask, Shield};
/// let d = parse_domain("(define (domain k) (:requirements :numeric-fluents)
///   (:predicates (hot) (held)) (:functions (danger))
///   (:action grab :effect (and (held) (when (hot) (increase (danger) 1)))))").value.unwrap();
/// let p = parse_problem("(define (problem q) (:domain k) (:init (hot) (= (danger) 0)) (:goal (held)))").value.unwrap();
/// let task = SafetyTask::new(&d, &p, &SafetyOptions::default()).unwrap().expect("a danger fluent");
/// let mut shield = Shield::new(Guarded::Safety(Arc::new(task)));
/// let grab = &parse_plan("(grab)").value.unwrap().steps[0];
/// let answer = shield.step(grab, true).unwrap();
/// assert!(!answer.allowed && answer.feasible && !answer.safe);
/// assert_eq!(answer.sentence(),
///     "(grab) refused: unsafe: step 1 (grab) would raise danger 0 -> 1 because (hot) held, past the task's bound 0");
/// ```
pub struct Shield {
    execution: Execution,
    guarded: Guarded,
}

impl Shield {
    /// A shield at the task's initial state, with VAL's default tolerance for a temporal
    /// task.
    pub fn new(guarded: Guarded) -> Shield {
        Shield::with_tolerance(guarded, DEFAULT_TOLERANCE)
    }

    /// A shield at the task's initial state; `tolerance` is VAL's `-t` for a temporal task.
    pub fn with_tolerance(guarded: Guarded, tolerance: f64) -> Shield {
        let execution = if guarded.executed().is_temporal() {
            Execution::Timed(TimedCell::new(guarded.clone(), |g| {
                TimedMonitor::new(g.executed(), tolerance)
            }))
        } else {
            Execution::Sequential(Box::new(Monitor::new(guarded.executed()).into_parts()))
        };
        Shield { execution, guarded }
    }

    /// The task guarded.
    pub fn guarded(&self) -> &Guarded {
        &self.guarded
    }

    /// Whether the task has durative actions (ask with `start`, `end`, `happen`).
    pub fn is_timed(&self) -> bool {
        matches!(self.execution, Execution::Timed(_))
    }

    /// Actions dispatched so far (steps applied; starts and instantaneous actions).
    pub fn dispatched(&self) -> usize {
        match &self.execution {
            Execution::Sequential(parts) => parts.steps(),
            Execution::Timed(cell) => cell.borrow_dependent().dispatched(),
        }
    }

    /// The state of the execution so far (the tracking task's state on a safety task).
    pub fn state(&self) -> &State {
        match &self.execution {
            Execution::Sequential(parts) => parts.state(),
            Execution::Timed(cell) => cell.borrow_dependent().state(),
        }
    }

    /// Danger now, on a safety task.
    pub fn danger(&self) -> Option<f64> {
        self.guarded.danger(self.state())
    }

    /// Whether the goal holds now (and, timed, nothing is still running).
    pub fn goal_reached(&self) -> bool {
        match &self.execution {
            Execution::Sequential(parts) => {
                Monitor::from_parts(self.guarded.executed(), (**parts).clone()).goal_reached()
            }
            Execution::Timed(cell) => cell.borrow_dependent().goal_reached(),
        }
    }

    /// What the task's trajectory constraints still owe before the execution may end, with
    /// their deadlines (a timed rule's `within`): an executive that must act before a
    /// deadline reads it here, since the shield only answers the events it is asked about.
    pub fn outstanding(&self) -> Vec<Obligation> {
        match &self.execution {
            Execution::Sequential(parts) => {
                Monitor::from_parts(self.guarded.executed(), (**parts).clone()).outstanding()
            }
            Execution::Timed(cell) => cell.borrow_dependent().outstanding(),
        }
    }

    /// May the sequential `step` run now? With `apply`, run it when it may.
    pub fn step(&mut self, step: &PlanStep, apply: bool) -> Result<Answer, ShieldError> {
        let Execution::Sequential(parts) = &mut self.execution else {
            return Err(ShieldError::WrongKind(
                "the task has durative actions: ask about the start and the end of each action, with times".into(),
            ));
        };
        let guarded = &self.guarded;
        let task = guarded.executed();
        let text = step.text();
        let number = parts.steps() + 1;
        let mut answer = Answer::new(text, number, Moment::Step, None);
        let ground = match task.ground_step(step) {
            Ok(g) => g,
            Err(f) => {
                return Ok(answer.refused(Refusal::Inapplicable {
                    failure: Box::new(f),
                }));
            }
        };
        let before = parts.state().clone();
        let mut trial = Monitor::from_parts(task, (**parts).clone());
        if let Err(f) = trial.apply(&ground) {
            return Ok(answer.refused(Refusal::of_failure(Box::new(f))));
        }
        answer.danger = guarded.danger(trial.state());
        let reasons = || reasons(task, &before, &ground, false, number - 1, guarded);
        if let Some(r) = danger_refusal(guarded, &before, trial.state(), number, step, reasons) {
            return Ok(answer.refused(r));
        }
        if apply {
            **parts = trial.into_parts();
            answer.applied = true;
        }
        Ok(answer)
    }

    /// May the durative `step` start at `time`? With `apply`, start it when it may.
    pub fn start(
        &mut self,
        step: &PlanStep,
        time: f64,
        apply: bool,
    ) -> Result<Answer, ShieldError> {
        self.timed(step, time, Moment::Start, apply)
    }

    /// May the running `step` (the earliest started, when it runs more than once) end at
    /// `time`? With `apply`, end it when it may.
    pub fn end(&mut self, step: &PlanStep, time: f64, apply: bool) -> Result<Answer, ShieldError> {
        self.timed(step, time, Moment::End, apply)
    }

    /// May the instantaneous `step` of a temporal domain happen at `time`? With `apply`,
    /// execute it when it may.
    pub fn happen(
        &mut self,
        step: &PlanStep,
        time: f64,
        apply: bool,
    ) -> Result<Answer, ShieldError> {
        self.timed(step, time, Moment::Happen, apply)
    }

    fn timed(
        &mut self,
        step: &PlanStep,
        time: f64,
        moment: Moment,
        apply: bool,
    ) -> Result<Answer, ShieldError> {
        let Execution::Timed(cell) = &mut self.execution else {
            return Err(ShieldError::WrongKind(
                "the task is sequential: ask about each step, without times".into(),
            ));
        };
        let last = cell.borrow_dependent().now();
        if !time.is_finite() || time < 0.0 || last.is_some_and(|l| time < l) {
            return Err(ShieldError::Timing { time, last });
        }
        let guarded = &self.guarded;
        let task = guarded.executed();
        let text = step.text();
        cell.with_dependent_mut(|_, monitor| {
            let mut answer =
                Answer::new(text.clone(), monitor.dispatched() + 1, moment, Some(time));
            let ground = match task.ground_step(step) {
                Ok(g) => g,
                Err(f) => {
                    return Ok(answer.refused(Refusal::Inapplicable {
                        failure: Box::new(f),
                    }));
                }
            };
            let mut trial = monitor.clone();
            let outcome = match moment {
                Moment::Start => trial.start(&ground, time).map(|_| ()),
                Moment::Happen => trial.happen(&ground, time),
                Moment::End | Moment::Step => {
                    let (id, _, _) = monitor
                        .running()
                        .filter(|(_, g, _)| **g == ground)
                        .min_by(|a, b| a.2.total_cmp(&b.2))
                        .ok_or_else(|| ShieldError::NotRunning(text.clone()))?;
                    answer.step = id.number();
                    trial.end(id, time)
                }
            };
            match outcome {
                Err(TimedError::Refused(f)) => return Ok(answer.refused(Refusal::of_failure(f))),
                Err(TimedError::TimeWentBack { last, time }) => {
                    return Err(ShieldError::Timing {
                        time,
                        last: Some(last),
                    });
                }
                Err(e @ (TimedError::WrongKind(_) | TimedError::NotRunning(_))) => {
                    return Err(ShieldError::WrongKind(e.to_string()));
                }
                Ok(()) => {}
            }
            answer.danger = guarded.danger(trial.state());
            let before = monitor.state();
            let index = monitor.happenings();
            let reasons = || reasons(task, before, &ground, moment == Moment::End, index, guarded);
            if let Some(mut r) =
                danger_refusal(guarded, before, trial.state(), answer.step, step, reasons)
            {
                if let Refusal::Dangerous { event, .. } = &mut r {
                    event.time = Some(time);
                    event.event = Some(if moment == Moment::End {
                        Event::End
                    } else {
                        Event::Start
                    });
                }
                return Ok(answer.refused(r));
            }
            if apply {
                *monitor = trial;
                answer.applied = true;
            }
            Ok(answer)
        })
    }
}

impl Answer {
    fn new(action: String, step: usize, event: Moment, time: Option<f64>) -> Answer {
        Answer {
            action,
            step,
            event,
            time,
            allowed: true,
            applied: false,
            feasible: true,
            safe: true,
            danger: None,
            refusal: None,
        }
    }

    fn refused(mut self, refusal: Refusal) -> Answer {
        self.allowed = false;
        self.applied = false;
        match refusal {
            Refusal::Inapplicable { .. } => {
                self.feasible = false;
                self.danger = None;
            }
            Refusal::RuleBroken { .. } | Refusal::Dangerous { .. } => self.safe = false,
        }
        self.refusal = Some(refusal);
        self
    }
}

/// The refusal when danger after the event is past the bound and higher than before.
fn danger_refusal(
    guarded: &Guarded,
    before: &State,
    after: &State,
    step: usize,
    written: &PlanStep,
    reasons: impl FnOnce() -> Vec<String>,
) -> Option<Refusal> {
    let safety = guarded.safety()?;
    let (was, now) = (guarded.danger(before)?, guarded.danger(after)?);
    let bound = safety.threshold();
    (now > bound && now > was).then(|| Refusal::Dangerous {
        event: Box::new(DangerEvent {
            step,
            action: written.text(),
            before: was,
            after: now,
            time: None,
            event: None,
            because: reasons(),
        }),
        bound,
    })
}

/// The condition literals of the danger effects of `ground` that fire in `state`.
fn reasons(
    task: &Task,
    state: &State,
    ground: &GroundAction,
    end: bool,
    index: usize,
    guarded: &Guarded,
) -> Vec<String> {
    let (Some(danger), Some(schema)) = (
        guarded.safety().and_then(SafetyTask::danger_function),
        task.schemas.get(ground.schema as usize),
    ) else {
        return Vec::new();
    };
    let effects = match (&schema.durative, end) {
        (Some(d), true) => &d.end_effects[..],
        _ => &schema.effects[..],
    };
    let mut binding = ground.args.clone();
    binding.resize(schema.slots.max(binding.len()), 0);
    fired_danger_conditions(task, state, effects, &mut binding, index, danger)
        .into_iter()
        .flatten()
        .collect()
}
