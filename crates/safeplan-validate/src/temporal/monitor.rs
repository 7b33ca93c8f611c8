//! The online monitor for time: a robot executive that dispatches durative actions reports
//! each start and end as it happens, and asks before each whether it is allowed.

use safeplan_pddl::FileKind;
use safeplan_pddl::ast::CmpOp;

use super::{duration_holds, fill_cond, fill_effs};
use crate::constraints::{Place, Stage, Tracker};
use crate::exec::Pending;
use crate::explain::{Explainer, Number, Site, round_time};
use crate::state::State;
use crate::task::{Cond, Eff, ObjId, Schema, Task};
use crate::validate::GroundAction;
use crate::verdict::{Event, Failure, FailureKind, SourceRef, Timing, Warning};

/// A durative action the executive has started and not yet ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunningId(usize);

impl RunningId {
    /// The action's number in dispatch order (1-based), as failures name it.
    pub fn number(self) -> usize {
        self.0 + 1
    }
}

/// Why a [`TimedMonitor`] refused an event.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TimedError {
    /// The event is not allowed now: a condition or the duration constraint is false, or its
    /// effects would break the `over all` condition of an action still running. The failure
    /// says which, with the false literals and advice, as a validation failure does.
    #[error("{0}")]
    Refused(Box<Failure>),
    /// Events must come in time order.
    #[error("time went back: the last event was at {last}, this one is at {time}")]
    TimeWentBack {
        /// The time of the last event.
        last: f64,
        /// The time given.
        time: f64,
    },
    /// The id is not of an action that is running.
    #[error("action {} is not running (it ended, or it was never started)", .0.number())]
    NotRunning(RunningId),
    /// `start` was given an instantaneous action, or `happen` a durative one.
    #[error("{0}")]
    WrongKind(String),
}

#[derive(Clone, Debug)]
struct Running {
    id: RunningId,
    action: GroundAction,
    start: f64,
    /// `?duration OP value`, the values read in the state at the start.
    bounds: Vec<(CmpOp, f64)>,
}

/// Tracks one execution of a temporal task as events arrive (SEMANTICS.md §2b).
///
/// Each event is its own happening: it is checked against the state before it (for a
/// start, the `at start` conditions and that the duration constraint can still be met;
/// for an end, the `at end` conditions and the duration constraint against the time the
/// action actually ran, within the tolerance), and its effects must leave the `over all`
/// conditions of every action still running (the new one included) true. A robot reports
/// events one at a time, so two events at the same instant are applied in the order given;
/// interference between simultaneous events is a question for the plan (validate it), not
/// for the executive.
///
/// ```
/// # use safeplan_pddl::{parse_domain, parse_problem};
/// # use safeplan_validate::{Task, TimedMonitor, TimedError};
/// # let domain = parse_domain("(define (domain d) (:requirements :durative-actions) \
/// #   (:predicates (p) (done)) \
/// #   (:durative-action work :parameters () :duration (= ?duration 2) \
/// #     :condition (over all (p)) :effect (at end (done))) \
/// #   (:durative-action spoil :parameters () :duration (= ?duration 1) \
/// #     :condition (and) :effect (at start (not (p)))))").value.unwrap();
/// # let problem = parse_problem("(define (problem t) (:domain d) (:init (p)) \
/// #   (:goal (done)))").value.unwrap();
/// let task = Task::compile(&domain, &problem)?;
/// let mut monitor = TimedMonitor::new(&task, 0.01);
/// let work = monitor.start(&task.ground("work", &[])?, 0.0)?;
/// // `spoil` would delete (p), which `work` needs until it ends: refused.
/// let spoil = task.ground("spoil", &[])?;
/// assert!(matches!(monitor.check_start(&spoil, 1.0), Err(TimedError::Refused(_))));
/// // Ending `work` after 1.5 of its 2: refused (duration); after 2: done.
/// assert!(monitor.check_end(work, 1.5).is_err());
/// monitor.end(work, 2.0)?;
/// assert!(monitor.goal_reached());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct TimedMonitor<'t> {
    task: &'t Task,
    state: State,
    tolerance: f64,
    last: Option<f64>,
    running: Vec<Running>,
    dispatched: usize,
    warnings: Vec<Warning>,
    /// The trajectory constraints' automata, fed the initial state and the state after each
    /// accepted event at its time.
    tracker: Tracker,
    /// Events accepted so far: the index of the current state for the constraints.
    events: usize,
    /// Hard constraints the initial state already breaks.
    broken: Vec<Failure>,
}

/// What an accepted event does: the state after it, the running action it adds, and the
/// trajectory constraints' automata having seen that state (for a task with constraints).
struct Outcome {
    state: State,
    warnings: Vec<Warning>,
    started: Option<Running>,
    tracker: Option<Tracker>,
}

impl<'t> TimedMonitor<'t> {
    /// A monitor at the task's initial state, with VAL's `tolerance` for durations
    /// ([`crate::DEFAULT_TOLERANCE`] is VAL's default).
    pub fn new(task: &'t Task, tolerance: f64) -> TimedMonitor<'t> {
        let mut monitor = TimedMonitor {
            task,
            state: task.initial_state(),
            tolerance,
            last: None,
            running: Vec::new(),
            dispatched: 0,
            warnings: Vec::new(),
            tracker: Tracker::new(&task.constraints),
            events: 0,
            broken: Vec::new(),
        };
        if task.has_constraints() {
            let place = || Place {
                label: "in the initial state".into(),
                site: Site::Time(0.0),
            };
            let m = &mut monitor;
            m.broken = m.tracker.judge(
                task,
                &m.state,
                0,
                0.0,
                Stage::State,
                None,
                &place,
                &mut Vec::new(),
            );
        }
        monitor
    }

    /// Hard trajectory constraints the initial state already breaks (no event could be
    /// refused for them).
    pub fn broken(&self) -> &[Failure] {
        &self.broken
    }

    /// What the task's hard trajectory constraints still owe now (see
    /// [`crate::Monitor::outstanding`]).
    pub fn outstanding(&self) -> Vec<crate::verdict::Obligation> {
        let task = self.task;
        self.tracker
            .outstanding(&task.constraints)
            .into_iter()
            .map(|(i, deadline)| task.obligation(i, deadline))
            .collect()
    }

    /// The constraints' automata fed `next`, the state after an event at `t`; a hard
    /// constraint broken there refuses the event. `None` for a task without constraints.
    fn rules(&self, next: &State, at: &At<'_>) -> Result<Option<Tracker>, TimedError> {
        let task = self.task;
        if !task.has_constraints() {
            return Ok(None);
        }
        let mut tracker = self.tracker.clone();
        let t = at.t;
        let place = || Place {
            label: format!("at time {}", Number(round_time(t))),
            site: Site::Time(t),
        };
        let k = self.events + 1;
        let found = tracker.judge(
            task,
            next,
            k,
            t,
            Stage::State,
            Some(at.k),
            &place,
            &mut Vec::new(),
        );
        match found.into_iter().next() {
            Some(mut f) => {
                f.action = Some(task.action_text(at.action));
                f.timing = Some(timing(at.event, t));
                Err(TimedError::Refused(Box::new(f)))
            }
            None => Ok(Some(tracker)),
        }
    }

    /// The state after the events so far.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Actions dispatched so far (starts and instantaneous actions): the next one is the
    /// plan's step `dispatched() + 1`.
    pub fn dispatched(&self) -> usize {
        self.dispatched
    }

    /// Events accepted so far: the happening index the next event's conditions are read at.
    pub(crate) fn happenings(&self) -> usize {
        self.events
    }

    /// The time of the last event, if any.
    pub fn now(&self) -> Option<f64> {
        self.last
    }

    /// Warnings from the events so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The actions running now: id, action and start time.
    pub fn running(&self) -> impl Iterator<Item = (RunningId, &GroundAction, f64)> {
        self.running.iter().map(|r| (r.id, &r.action, r.start))
    }

    /// Whether the goal holds now and no action is still running.
    pub fn goal_reached(&self) -> bool {
        self.running.is_empty() && matches!(self.task.holds_cond_goal(&self.state, 0), Ok(true))
    }

    /// Whether the durative `action` may start at `t`. Nothing changes.
    pub fn check_start(&self, action: &GroundAction, t: f64) -> Result<(), TimedError> {
        self.start_outcome(action, t).map(|_| ())
    }

    /// Start the durative `action` at `t`, if it may start; on refusal nothing changes.
    pub fn start(&mut self, action: &GroundAction, t: f64) -> Result<RunningId, TimedError> {
        let outcome = self.start_outcome(action, t)?;
        let id = RunningId(self.dispatched);
        self.dispatched += 1;
        self.accept(outcome, t);
        Ok(id)
    }

    /// Whether the running action `id` may end at `t`. Nothing changes.
    pub fn check_end(&self, id: RunningId, t: f64) -> Result<(), TimedError> {
        self.end_outcome(id, t).map(|_| ())
    }

    /// End the running action `id` at `t`, if it may end; on refusal nothing changes.
    pub fn end(&mut self, id: RunningId, t: f64) -> Result<(), TimedError> {
        let outcome = self.end_outcome(id, t)?;
        self.running.retain(|r| r.id != id);
        self.accept(outcome, t);
        Ok(())
    }

    /// Whether the instantaneous `action` may happen at `t`. Nothing changes.
    pub fn check_happen(&self, action: &GroundAction, t: f64) -> Result<(), TimedError> {
        self.happen_outcome(action, t).map(|_| ())
    }

    /// Execute the instantaneous `action` at `t`, if it may happen.
    pub fn happen(&mut self, action: &GroundAction, t: f64) -> Result<(), TimedError> {
        let outcome = self.happen_outcome(action, t)?;
        self.dispatched += 1;
        self.accept(outcome, t);
        Ok(())
    }

    fn accept(&mut self, outcome: Outcome, t: f64) {
        self.state = outcome.state;
        self.warnings.extend(outcome.warnings);
        self.running.extend(outcome.started);
        if let Some(tracker) = outcome.tracker {
            self.tracker = tracker;
        }
        self.events += 1;
        self.last = Some(t);
    }

    fn schema(&self, action: &GroundAction) -> Result<&'t Schema, TimedError> {
        self.task
            .schemas
            .get(action.schema as usize)
            .ok_or_else(|| {
                TimedError::WrongKind("this action was grounded for a different task".into())
            })
    }

    fn in_time(&self, t: f64) -> Result<(), TimedError> {
        match self.last {
            Some(last) if t < last || !t.is_finite() => {
                Err(TimedError::TimeWentBack { last, time: t })
            }
            _ if !t.is_finite() => Err(TimedError::TimeWentBack {
                last: f64::NEG_INFINITY,
                time: t,
            }),
            _ => Ok(()),
        }
    }

    fn start_outcome(&self, action: &GroundAction, t: f64) -> Result<Outcome, TimedError> {
        self.in_time(t)?;
        let schema = self.schema(action)?;
        let Some(d) = schema.durative.as_deref() else {
            return Err(TimedError::WrongKind(format!(
                "`{}` is instantaneous: report it with `happen`",
                schema.name
            )));
        };
        let at = At {
            k: self.dispatched + 1,
            action,
            event: Event::Start,
            t,
        };
        let mut b = binding(action, schema);
        let mut bounds = Vec::with_capacity(d.duration.len());
        for (op, expr) in &d.duration {
            match self.task.num(&self.state, expr, &b, 0) {
                Ok(v) => bounds.push((*op, v)),
                Err(fault) => return Err(self.fault(&fault, &at)),
            }
        }
        // Whether some duration satisfies every bound is checked at the end; a start whose
        // bounds contradict each other can never end, so refuse it now.
        let lowest = bounds
            .iter()
            .filter(|(op, _)| matches!(op, CmpOp::Ge | CmpOp::Gt | CmpOp::Eq))
            .map(|&(_, v)| v)
            .fold(f64::NEG_INFINITY, f64::max);
        if lowest.is_finite()
            && !bounds
                .iter()
                .all(|&(op, v)| duration_holds(op, lowest, v, self.tolerance))
        {
            let message = format!(
                "no duration satisfies the duration constraint of `{}` in this state",
                schema.name
            );
            return Err(self.refuse(
                &at,
                FailureKind::DurationConstraint,
                message,
                Vec::new(),
                d.duration_span,
            ));
        }
        let started = Running {
            id: RunningId(self.dispatched),
            action: action.clone(),
            start: t,
            bounds,
        };
        let (state, warnings) = self.event(
            &at,
            (&schema.pre, &schema.effects, d.condition_span),
            &mut b,
            Some(&started),
            None,
        )?;
        let tracker = self.rules(&state, &at)?;
        Ok(Outcome {
            state,
            warnings,
            started: Some(started),
            tracker,
        })
    }

    fn end_outcome(&self, id: RunningId, t: f64) -> Result<Outcome, TimedError> {
        self.in_time(t)?;
        let running = self
            .running
            .iter()
            .find(|r| r.id == id)
            .ok_or(TimedError::NotRunning(id))?;
        let action = &running.action;
        let schema = self.schema(action)?;
        let Some(d) = schema.durative.as_deref() else {
            return Err(TimedError::WrongKind(format!(
                "`{}` is instantaneous",
                schema.name
            )));
        };
        let at = At {
            k: id.number(),
            action,
            event: Event::End,
            t,
        };
        let elapsed = t - running.start;
        for &(op, want) in &running.bounds {
            if !duration_holds(op, elapsed, want, self.tolerance) {
                let message = format!(
                    "it has run for {}, but its duration must be {} {} (within the tolerance {})",
                    Number(round_time(elapsed)),
                    op.as_str(),
                    Number(round_time(want)),
                    Number(self.tolerance)
                );
                let advice = vec![format!(
                    "end it at time {}",
                    Number(round_time(running.start + want))
                )];
                return Err(self.refuse(
                    &at,
                    FailureKind::DurationConstraint,
                    message,
                    advice,
                    d.duration_span,
                ));
            }
        }
        // `?duration` in end conditions and effects is the time it actually ran.
        let filled;
        let (end_pre, end_effects) = if d.reads_duration {
            filled = (
                fill_cond(&d.end_pre, elapsed),
                fill_effs(&d.end_effects, elapsed),
            );
            (&filled.0, &filled.1[..])
        } else {
            (&d.end_pre, &d.end_effects[..])
        };
        let mut b = binding(action, schema);
        let (state, warnings) = self.event(
            &at,
            (end_pre, end_effects, d.condition_span),
            &mut b,
            None,
            Some(id),
        )?;
        let tracker = self.rules(&state, &at)?;
        Ok(Outcome {
            state,
            warnings,
            started: None,
            tracker,
        })
    }

    fn happen_outcome(&self, action: &GroundAction, t: f64) -> Result<Outcome, TimedError> {
        self.in_time(t)?;
        let schema = self.schema(action)?;
        if schema.durative.is_some() {
            return Err(TimedError::WrongKind(format!(
                "`{}` is durative: report its `start` and `end`",
                schema.name
            )));
        }
        let at = At {
            k: self.dispatched + 1,
            action,
            event: Event::Instant,
            t,
        };
        let mut b = binding(action, schema);
        let (state, warnings) = self.event(
            &at,
            (&schema.pre, &schema.effects, schema.pre_span),
            &mut b,
            None,
            None,
        )?;
        let tracker = self.rules(&state, &at)?;
        Ok(Outcome {
            state,
            warnings,
            started: None,
            tracker,
        })
    }

    /// What every event does: its conditions must hold now, its effects give the next
    /// state, and that state must keep the `over all` conditions of the actions running
    /// after it (`started` joins, `ended` leaves).
    fn event(
        &self,
        at: &At<'_>,
        (conditions, effects, span): (&Cond, &[Eff], safeplan_pddl::Span),
        b: &mut [ObjId],
        started: Option<&Running>,
        ended: Option<RunningId>,
    ) -> Result<(State, Vec<Warning>), TimedError> {
        self.conditions(conditions, b, at, span)?;
        let mut next = self.state.clone();
        let warnings = self.apply(&mut next, effects, b, at)?;
        self.invariants(&next, started, ended, at)?;
        Ok((next, warnings))
    }

    fn conditions(
        &self,
        c: &Cond,
        b: &mut [ObjId],
        at: &At<'_>,
        span: safeplan_pddl::Span,
    ) -> Result<(), TimedError> {
        match self.task.eval(&self.state, c, b, 0) {
            Ok(true) => Ok(()),
            Ok(false) => {
                let site = Site::Timed {
                    step: at.k,
                    time: at.t,
                    event: at.event,
                };
                let mut ex = Explainer::new(self.task, &self.state, FileKind::Domain, site, 0);
                ex.explain(c, b);
                let literals: Vec<&str> = ex.out.iter().map(|u| u.literal.as_str()).collect();
                let message = format!(
                    "{} {} false",
                    literals.join(", "),
                    if literals.len() == 1 { "is" } else { "are" }
                );
                let advice = ex.out.iter().map(|u| u.advice.clone()).collect();
                let mut f = self.failure(
                    at,
                    FailureKind::UnsatisfiedPrecondition,
                    message,
                    advice,
                    span,
                );
                f.unmet = ex.out;
                Err(TimedError::Refused(Box::new(f)))
            }
            Err(fault) => Err(self.fault(&fault, at)),
        }
    }

    fn apply(
        &self,
        next: &mut State,
        effects: &[Eff],
        b: &mut [ObjId],
        at: &At<'_>,
    ) -> Result<Vec<Warning>, TimedError> {
        let mut pending = Pending::default();
        let task = self.task;
        task.collect(&self.state, effects, b, 0, &mut pending)
            .and_then(|()| task.apply(next, &mut pending))
            .map(|undefined| {
                undefined
                    .iter()
                    .map(|u| task.undefined_warning(u, at.k))
                    .collect()
            })
            .map_err(|fault| self.fault(&fault, at))
    }

    /// The `over all` conditions of the actions running after the event (`started` joins,
    /// `ended` leaves) must hold in `next`.
    fn invariants(
        &self,
        next: &State,
        started: Option<&Running>,
        ended: Option<RunningId>,
        at: &At<'_>,
    ) -> Result<(), TimedError> {
        let task = self.task;
        for r in self
            .running
            .iter()
            .filter(|r| Some(r.id) != ended)
            .chain(started)
        {
            let schema = &task.schemas[r.action.schema as usize];
            let Some(d) = schema.durative.as_deref() else {
                continue;
            };
            // `?duration` in an invariant is the duration allowed (the lowest bound).
            let over_all = if d.reads_duration {
                let d_est = r.bounds.first().map_or(0.0, |&(_, v)| v);
                fill_cond(&d.over_all, d_est)
            } else {
                d.over_all.clone()
            };
            let mut b = binding(&r.action, schema);
            if matches!(task.eval(next, &over_all, &mut b, 0), Ok(true)) {
                continue;
            }
            let site = Site::Timed {
                step: r.id.number(),
                time: at.t,
                event: Event::Invariant,
            };
            let mut ex = Explainer::new(task, next, FileKind::Domain, site, 0);
            ex.explain(&over_all, &mut b);
            let literals: Vec<&str> = ex.out.iter().map(|u| u.literal.as_str()).collect();
            let whose = if started.is_some_and(|s| s.id == r.id) {
                "its own".to_string()
            } else {
                format!(
                    "running action {} {}'s",
                    r.id.number(),
                    task.action_text(&r.action)
                )
            };
            let message = format!(
                "it would make {} false, which {whose} `over all` condition needs",
                literals.join(", ")
            );
            let advice = vec![format!(
                "wait until action {} has ended, or make {} true again first",
                r.id.number(),
                literals.join(", ")
            )];
            let mut f = self.failure(
                at,
                FailureKind::InvariantViolated,
                message,
                advice,
                d.condition_span,
            );
            f.unmet = ex.out;
            return Err(TimedError::Refused(Box::new(f)));
        }
        Ok(())
    }

    fn fault(&self, fault: &crate::exec::NumFault, at: &At<'_>) -> TimedError {
        let mut f = self.task.fault_failure(fault, Some(at.k));
        f.action = Some(self.task.action_text(at.action));
        f.timing = Some(timing(at.event, at.t));
        TimedError::Refused(Box::new(f))
    }

    fn refuse(
        &self,
        at: &At<'_>,
        kind: FailureKind,
        message: String,
        advice: Vec<String>,
        span: safeplan_pddl::Span,
    ) -> TimedError {
        TimedError::Refused(Box::new(self.failure(at, kind, message, advice, span)))
    }

    fn failure(
        &self,
        at: &At<'_>,
        kind: FailureKind,
        message: String,
        advice: Vec<String>,
        span: safeplan_pddl::Span,
    ) -> Failure {
        let text = self.task.action_text(at.action);
        let verb = match at.event {
            Event::Start => "start",
            Event::End => "end",
            _ => "happen",
        };
        Failure {
            kind,
            step: Some(at.k),
            message: format!(
                "action {} {text} cannot {verb} at time {}: {message}",
                at.k,
                Number(round_time(at.t))
            ),
            action: Some(text),
            unmet: Vec::new(),
            advice,
            source: Some(SourceRef {
                file: FileKind::Domain,
                span,
            }),
            timing: Some(timing(at.event, at.t)),
            constraint: None,
        }
    }
}

/// The event being checked: the action's number in dispatch order, the action, which event
/// of it, and when.
struct At<'a> {
    k: usize,
    action: &'a GroundAction,
    event: Event,
    t: f64,
}

fn timing(event: Event, t: f64) -> Timing {
    Timing::at(event, round_time(t))
}

fn binding(action: &GroundAction, schema: &Schema) -> Vec<ObjId> {
    let mut b = action.args.clone();
    b.resize(schema.slots.max(b.len()), 0);
    b
}
