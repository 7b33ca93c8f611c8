//! Temporal plans (PDDL 2.1 level 3): durative steps run as happenings, as VAL runs them
//! (SEMANTICS.md §2b).
//!
//! Each durative step `t: (a ...) [d]` becomes two events, its start at `t` and its end at
//! `t + d`; an instantaneous action is one event. Events are sorted by time, and an event
//! at most a tenth of the tolerance after the first event of a group joins that group: a
//! *happening* (VAL's `after` in `Plan.h`; with `-t 0.001`, events 0.0001 apart are
//! simultaneous). Then, happening by happening, against the state before it:
//!
//! 1. the `over all` conditions of every step that started in an earlier happening and has
//!    not ended before this one (its end may be in this one) — they cover the open interval,
//!    so a step may start when the step that achieves its invariant ends;
//! 2. each event's conditions: for a start, the duration constraint (`=` within the
//!    tolerance, `<=`/`>=` allowing it, `<`/`>` strict) and then the `at start`
//!    conditions; for an end, the `at end` conditions;
//! 3. with more than one event, interference, by VAL's ownership rules: an event may not
//!    add or delete an atom another event reads or changes the other way, nor update a
//!    fluent another event reads or assigns (two `increase`/`decrease` commute);
//! 4. all effects of the happening, computed against the state before it, applied
//!    together (deletes before adds, numeric updates combined as for one step).
//!
//! The goal must hold after the last happening; `(total-time)` in the metric is the time of
//! the last happening. The first failure ends the run (there is no `keep_going` for time).
//!
//! Where VAL sorts simultaneous events by the address of its action objects in memory,
//! we use file order; the corpus test shows where that decides a verdict.

use safeplan_pddl::ast::CmpOp;
use safeplan_pddl::{FileKind, Plan};

use crate::constraints::{Place, Stage, Tracker};
use crate::exec::{NumFault, Pending};
use crate::explain::{Explainer, Number, Site, round_time};
use crate::state::State;
use crate::task::{Arg, Cond, Durative, Eff, NumExpr, ObjId, Schema, Task};
use crate::validate::ValidateOptions;
use crate::verdict::{
    Event, Failure, FailureKind, PreferenceOutcome, SourceRef, Timing, Verdict, Warning,
};

mod interference;
pub(crate) mod monitor;
pub(crate) mod safety;

/// VAL's default tolerance (`-t`), in plan time units.
pub const DEFAULT_TOLERANCE: f64 = 0.01;

/// A tolerance a user gave that cannot be used: not a positive, finite number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "tolerance: expected a positive number of plan time units, like 0.001 (VAL's -t), found `{0}`"
)]
pub struct BadTolerance(pub String);

/// Check a tolerance given by a user (the CLI's `--tolerance`, the Python and MCP
/// `tolerance`): a positive, finite number of plan time units.
pub fn check_tolerance(tolerance: f64) -> Result<f64, BadTolerance> {
    if tolerance.is_finite() && tolerance > 0.0 {
        Ok(tolerance)
    } else {
        Err(BadTolerance(tolerance.to_string()))
    }
}

/// One plan step, bound: its schema, objects, start and duration, and, when the action
/// reads `?duration`, its conditions and effects with the duration filled in.
pub(crate) struct Step<'t> {
    /// The step's position in the plan file (0-based).
    pub index: usize,
    pub schema: &'t Schema,
    pub binding: Vec<ObjId>,
    pub start: f64,
    pub duration: f64,
    pub text: String,
    pub span: safeplan_pddl::Span,
    own: Option<Box<Filled>>,
}

/// A schema's parts with `?duration` replaced by the step's duration.
struct Filled {
    pre: Cond,
    effects: Vec<Eff>,
    durative: Durative,
}

impl Step<'_> {
    pub fn pre(&self) -> &Cond {
        self.own.as_ref().map_or(&self.schema.pre, |o| &o.pre)
    }

    pub fn start_effects(&self) -> &[Eff] {
        self.own
            .as_ref()
            .map_or(&self.schema.effects, |o| &o.effects)
    }

    pub fn durative(&self) -> Option<&Durative> {
        match &self.own {
            Some(o) => Some(&o.durative),
            None => self.schema.durative.as_deref(),
        }
    }

    pub fn conditions(&self, event: Event) -> &Cond {
        match (event, self.durative()) {
            (Event::End, Some(d)) => &d.end_pre,
            (Event::Invariant, Some(d)) => &d.over_all,
            _ => self.pre(),
        }
    }

    pub fn effects(&self, event: Event) -> &[Eff] {
        match (event, self.durative()) {
            (Event::End, Some(d)) => &d.end_effects,
            _ => self.start_effects(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Ev {
    pub time: f64,
    /// Index into [`Schedule::steps`].
    pub step: usize,
    pub event: Event,
}

/// A plan's steps, bound, and their events sorted by time.
pub(crate) struct Schedule<'t> {
    pub steps: Vec<Step<'t>>,
    pub events: Vec<Ev>,
}

/// Bind the steps of `plan` and lay out their events. A step that cannot be bound is an
/// error (with its time), or, with `skip_malformed` (safety intention), left out.
pub(crate) fn schedule<'t>(
    task: &'t Task,
    plan: &Plan,
    skip_malformed: bool,
) -> Result<Schedule<'t>, Failure> {
    // Every step is bound first: VAL reads and type-checks the whole plan before it runs it.
    let mut steps = Vec::with_capacity(plan.steps.len());
    let mut next_default = 1.0;
    for (i, ps) in plan.steps.iter().enumerate() {
        let mut args = Vec::new();
        let schema_id = match task.bind_step(ps, &mut args) {
            Ok(s) => s,
            Err(_) if skip_malformed => continue,
            Err(mut f) => {
                f.step = Some(i + 1);
                let time = ps.time.unwrap_or(next_default);
                f.timing = Some(Run::timing(Event::Start, time));
                return Err(f);
            }
        };
        let schema = &task.schemas[schema_id as usize];
        let start = ps.time.unwrap_or_else(|| {
            let t = next_default;
            next_default += 1.0;
            t
        });
        let duration = if schema.durative.is_some() {
            ps.duration.unwrap_or(0.0)
        } else {
            0.0
        };
        args.resize(schema.slots.max(args.len()), 0);
        let own = schema
            .durative
            .as_deref()
            .filter(|d| d.reads_duration)
            .map(|d| {
                Box::new(Filled {
                    pre: fill_cond(&schema.pre, duration),
                    effects: fill_effs(&schema.effects, duration),
                    durative: Durative {
                        duration: d
                            .duration
                            .iter()
                            .map(|(op, e)| (*op, fill_num(e, duration)))
                            .collect(),
                        duration_span: d.duration_span,
                        over_all: fill_cond(&d.over_all, duration),
                        end_pre: fill_cond(&d.end_pre, duration),
                        condition_span: d.condition_span,
                        end_effects: fill_effs(&d.end_effects, duration),
                        reads_duration: true,
                    },
                })
            });
        steps.push(Step {
            index: i,
            schema,
            binding: args,
            start,
            duration,
            text: ps.text(),
            span: ps.span,
            own,
        });
    }

    let mut events: Vec<Ev> = Vec::with_capacity(2 * steps.len());
    for (i, s) in steps.iter().enumerate() {
        if s.schema.durative.is_some() {
            events.push(Ev {
                time: s.start,
                step: i,
                event: Event::Start,
            });
            events.push(Ev {
                time: s.start + s.duration,
                step: i,
                event: Event::End,
            });
        } else {
            events.push(Ev {
                time: s.start,
                step: i,
                event: Event::Instant,
            });
        }
    }
    // Stable: simultaneous events keep file order, a step's start before its end.
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    Ok(Schedule { steps, events })
}

/// The happenings of sorted events: each event at most a tenth of the tolerance after the
/// first event of a group joins it (VAL's `after`).
pub(crate) fn happenings(events: &[Ev], tolerance: f64) -> impl Iterator<Item = &[Ev]> {
    let mut rest = events;
    std::iter::from_fn(move || {
        let first = rest.first()?;
        let n = rest
            .iter()
            .position(|e| e.time > first.time + tolerance / 10.0)
            .unwrap_or(rest.len());
        let (group, tail) = rest.split_at(n);
        rest = tail;
        Some(group)
    })
}

/// Validate a plan of a task with durative actions.
pub(crate) fn validate(task: &Task, plan: &Plan, options: &ValidateOptions) -> Verdict {
    let tolerance = options.tolerance.unwrap_or(DEFAULT_TOLERANCE);
    let n = plan.steps.len();
    // With `keep_going`, the constraints broken along the way are kept and the run goes on
    // (as the sequential validator does); any other failure ends the run, after them.
    let keep_going = options.keep_going;
    let verdict = |broken: Vec<Failure>,
                   failure: Option<Failure>,
                   metric: Option<f64>,
                   warnings: Vec<crate::verdict::Warning>,
                   state: Option<&State>,
                   preferences: Vec<PreferenceOutcome>| {
        let mut failures = broken;
        if keep_going {
            failures.extend(failure);
        } else if let Some(f) = failure {
            failures.insert(0, f);
        }
        let failure = failures.first().cloned();
        if !keep_going {
            failures.clear();
        }
        Verdict {
            valid: failure.is_none(),
            steps: n,
            metric: metric.filter(|_| failure.is_none()),
            failure,
            failures,
            warnings,
            final_state: state
                .filter(|_| options.keep_final_state)
                .map(|s| task.describe_state(s)),
            preferences,
            no_plan: None,
        }
    };
    let fail =
        |broken, f, warnings, state| verdict(broken, Some(f), None, warnings, state, Vec::new());
    // What a constraint judgement found broken: kept under `keep_going` (the run goes on),
    // otherwise the first is the run's failure.
    let stop_at = |found: Vec<Failure>, broken: &mut Vec<Failure>| {
        if keep_going {
            broken.extend(found);
            None
        } else {
            found.into_iter().next()
        }
    };
    let Schedule { steps, events } = match schedule(task, plan, false) {
        Ok(s) => s,
        Err(f) => return fail(Vec::new(), f, Vec::new(), None),
    };

    // Trajectory constraints see the initial state at time 0, then the state after each
    // happening at its time, each checked before the next happening runs (VAL's order).
    let constrained = task.has_constraints();
    let mut tracker = Tracker::new(&task.constraints);
    let mut soft = Vec::new();
    let mut broken: Vec<Failure> = Vec::new();
    let at_time = |t: f64| {
        move || Place {
            label: format!("at time {}", Number(round_time(t))),
            site: Site::Time(t),
        }
    };
    let mut run = Run::new(task, &steps, tolerance, true);
    for group in happenings(&events, tolerance) {
        // A caller that stopped waiting ends the run (see `crate::cancel`).
        if crate::cancel::abandoned() {
            break;
        }
        if constrained {
            let t = run.previous.unwrap_or(0.0);
            let found = tracker.judge(
                task,
                &run.state,
                run.done,
                t,
                Stage::State,
                None,
                &at_time(t),
                &mut soft,
            );
            if let Some(f) = stop_at(found, &mut broken) {
                let warnings = std::mem::take(&mut run.warnings);
                return fail(broken, f, warnings, Some(&run.state));
            }
        }
        let advanced = run.advance(group);
        for (name, violated) in run.preferences.drain(..) {
            tracker.count_action(name, violated);
        }
        if let Err(f) = advanced {
            let warnings = std::mem::take(&mut run.warnings);
            return fail(broken, *f, warnings, Some(&run.state));
        }
    }

    let h = run.done;
    let last_time = run.previous.unwrap_or(0.0);
    let mut warnings = std::mem::take(&mut run.warnings);
    match task.holds_cond_goal(&run.state, h) {
        Ok(true) => {}
        Ok(false) => {
            let f = task.goal_failure(&run.state, n);
            return fail(broken, f, warnings, Some(&run.state));
        }
        Err(fault) => {
            let f = task.fault_failure(&fault, None);
            return fail(broken, f, warnings, Some(&run.state));
        }
    }
    let mut preferences = Vec::new();
    if constrained {
        let end = || Place {
            label: "at the end of the plan".into(),
            site: Site::End,
        };
        for (stage, place) in [
            (Stage::State, &at_time(last_time) as &dyn Fn() -> Place),
            (Stage::End, &end),
        ] {
            let found = tracker.judge(
                task, &run.state, h, last_time, stage, None, place, &mut soft,
            );
            if let Some(f) = stop_at(found, &mut broken) {
                return fail(broken, f, warnings, Some(&run.state));
            }
        }
        if task.constraints.has_preferences() {
            preferences = task.preference_outcomes(&tracker, soft);
        }
    }
    let metric = task.metric.as_ref().and_then(|(_, expr)| {
        let expr = fill_total_time(expr, last_time);
        let expr = if constrained {
            task.metric_with_counts(&expr, &tracker)
        } else {
            expr
        };
        task.metric_value(&run.state, &expr, h, &mut warnings)
    });
    verdict(
        broken,
        None,
        metric,
        warnings,
        Some(&run.state),
        preferences,
    )
}

/// The state of one run and its scratch buffers.
struct Run<'a, 't> {
    task: &'t Task,
    steps: &'a [Step<'t>],
    state: State,
    b: Vec<ObjId>,
    pending: Pending,
    warnings: Vec<Warning>,
    tolerance: f64,
    /// Check interference between simultaneous events. The safety layer's tracking run
    /// does not: feasibility (the basic task) decides about the schedule, and a `when` that
    /// only raises danger must not make a plan fail there.
    check_interference: bool,
    /// Steps started at an earlier happening and not ended yet, in start order.
    open: Vec<usize>,
    /// The time of the last happening run.
    previous: Option<f64>,
    /// How many happenings have run.
    done: usize,
    /// The preferences of the events' conditions judged so far (name, violated), for the
    /// validator's tracker to count.
    preferences: Vec<(Option<u32>, bool)>,
}

impl<'a, 't> Run<'a, 't> {
    fn new(
        task: &'t Task,
        steps: &'a [Step<'t>],
        tolerance: f64,
        check_interference: bool,
    ) -> Self {
        Run {
            task,
            steps,
            state: task.init.clone(),
            b: Vec::new(),
            pending: Pending::default(),
            warnings: Vec::new(),
            tolerance,
            check_interference,
            open: Vec::new(),
            previous: None,
            done: 0,
            preferences: Vec::new(),
        }
    }

    /// Run the next happening: check and apply it, then let its starts join the running
    /// steps and its ends leave. On a failure nothing after the failing check changes.
    fn advance(&mut self, group: &[Ev]) -> Result<(), Box<Failure>> {
        let t = group[0].time;
        let open = std::mem::take(&mut self.open);
        let result = self.happening(group, &open, t, self.previous.unwrap_or(t), self.done);
        self.open = open;
        result?;
        update_open(&mut self.open, group);
        self.previous = Some(t);
        self.done += 1;
        Ok(())
    }

    fn bind(&mut self, step: usize) {
        self.b.clear();
        self.b.extend_from_slice(&self.steps[step].binding);
    }

    /// Check and apply one happening at time `t`; `since` is the previous happening.
    fn happening(
        &mut self,
        group: &[Ev],
        open: &[usize],
        t: f64,
        since: f64,
        h: usize,
    ) -> Result<(), Box<Failure>> {
        let task = self.task;
        for &s in open {
            let Some(d) = self.steps[s].durative() else {
                continue;
            };
            if matches!(d.over_all, Cond::True) {
                continue;
            }
            self.bind(s);
            match task.eval(&self.state, &d.over_all, &mut self.b, h) {
                Ok(true) => {}
                Ok(false) => return Err(Box::new(self.unmet(s, Event::Invariant, t, since))),
                Err(fault) => return Err(Box::new(self.fault(&fault, s, Event::Invariant, t))),
            }
        }
        for e in group {
            let step = &self.steps[e.step];
            self.bind(e.step);
            if e.event == Event::Start
                && let Some(d) = step.durative()
            {
                for (op, expr) in &d.duration {
                    let want = match task.num(&self.state, expr, &self.b, h) {
                        Ok(v) => v,
                        Err(fault) => {
                            return Err(Box::new(self.fault(&fault, e.step, e.event, t)));
                        }
                    };
                    if !duration_holds(*op, step.duration, want, self.tolerance) {
                        return Err(Box::new(self.duration_failure(e.step, *op, want, t, d)));
                    }
                }
            }
            match task.eval(&self.state, step.conditions(e.event), &mut self.b, h) {
                Ok(true) => {}
                Ok(false) => return Err(Box::new(self.unmet(e.step, e.event, t, t))),
                Err(fault) => return Err(Box::new(self.fault(&fault, e.step, e.event, t))),
            }
            // The preferences of this event's conditions, on the same state (as VAL).
            let at_end = e.event == Event::End;
            for p in step
                .schema
                .preferences
                .iter()
                .filter(|p| p.at_end == at_end)
            {
                let holds = task.eval(&self.state, &p.cond, &mut self.b, h);
                self.preferences.push((p.name, !matches!(holds, Ok(true))));
            }
        }
        if self.check_interference
            && group.len() > 1
            && let Some(f) = self.interference(group, t, h)
        {
            return Err(Box::new(f));
        }
        self.pending.clear();
        for e in group {
            self.bind(e.step);
            let effects = self.steps[e.step].effects(e.event);
            if let Err(fault) =
                task.collect(&self.state, effects, &mut self.b, h, &mut self.pending)
            {
                return Err(Box::new(self.fault(&fault, e.step, e.event, t)));
            }
        }
        match task.apply(&mut self.state, &mut self.pending) {
            Ok(undefined) => {
                let k = group[0].step + 1;
                self.warnings
                    .extend(undefined.iter().map(|u| task.undefined_warning(u, k)));
                Ok(())
            }
            Err(fault) => Err(Box::new(self.fault(
                &fault,
                group[0].step,
                group[0].event,
                t,
            ))),
        }
    }

    fn timing(event: Event, t: f64) -> Timing {
        Timing::at(event, round_time(t))
    }

    /// The failure of step `s`'s conditions at `event` (start, end, or invariant, false
    /// between the happenings at `since` and `t`).
    fn unmet(&self, s: usize, event: Event, t: f64, since: f64) -> Failure {
        let task = self.task;
        let step = &self.steps[s];
        let k = s + 1;
        let mut b = step.binding.clone();
        let site = Site::Timed {
            step: k,
            time: t,
            event,
        };
        let mut ex = Explainer::new(task, &self.state, FileKind::Domain, site, 0);
        ex.explain(step.conditions(event), &mut b);
        let literals: Vec<&str> = ex.out.iter().map(|u| u.literal.as_str()).collect();
        let false_part = format!(
            "{} {} false",
            literals.join(", "),
            if literals.len() == 1 { "is" } else { "are" }
        );
        let (kind, message) = match event {
            Event::Invariant => (
                FailureKind::InvariantViolated,
                format!(
                    "step {k} {} needs its `over all` condition throughout, but between time {} and {} {false_part}",
                    step.text,
                    Number(round_time(since)),
                    Number(round_time(t))
                ),
            ),
            _ => (
                FailureKind::UnsatisfiedPrecondition,
                format!(
                    "step {k} {} cannot {} at time {}: {false_part}",
                    step.text,
                    match event {
                        Event::End => "end",
                        Event::Start => "start",
                        _ => "happen",
                    },
                    Number(round_time(t))
                ),
            ),
        };
        let span = step
            .durative()
            .map_or(step.schema.pre_span, |d| d.condition_span);
        Failure {
            kind,
            step: Some(k),
            action: Some(step.text.clone()),
            message,
            advice: ex.out.iter().map(|u| u.advice.clone()).collect(),
            unmet: ex.out,
            source: Some(SourceRef {
                file: FileKind::Domain,
                span,
            }),
            constraint: None,
            timing: Some(Timing {
                interval: (event == Event::Invariant).then(|| (round_time(since), round_time(t))),
                ..Self::timing(event, t)
            }),
        }
    }

    fn fault(&self, fault: &NumFault, s: usize, event: Event, t: f64) -> Failure {
        let mut f = self.task.fault_failure(fault, Some(s + 1));
        f.action = Some(self.steps[s].text.clone());
        f.timing = Some(Self::timing(event, t));
        f
    }

    fn duration_failure(&self, s: usize, op: CmpOp, want: f64, t: f64, d: &Durative) -> Failure {
        let step = &self.steps[s];
        let k = s + 1;
        let want_text = Number(round_time(want));
        let (rule, advice) = match op {
            CmpOp::Eq => (
                format!("= {want_text}"),
                format!("set the duration of step {k} to {want_text}"),
            ),
            CmpOp::Ge | CmpOp::Gt => (
                format!("{} {want_text}", op.as_str()),
                format!("make step {k} last at least {want_text}"),
            ),
            CmpOp::Le | CmpOp::Lt => (
                format!("{} {want_text}", op.as_str()),
                format!("make step {k} last at most {want_text}"),
            ),
        };
        Failure {
            kind: FailureKind::DurationConstraint,
            step: Some(k),
            action: Some(step.text.clone()),
            message: format!(
                "step {k} {} lasts {}, but its duration must be {rule} (within the tolerance {})",
                step.text,
                Number(round_time(step.duration)),
                Number(self.tolerance)
            ),
            unmet: Vec::new(),
            advice: vec![advice],
            source: Some(SourceRef {
                file: FileKind::Domain,
                span: d.duration_span,
            }),
            timing: Some(Self::timing(Event::Start, t)),
            constraint: None,
        }
    }
}

/// The steps running after a happening: starts join, ends leave.
pub(crate) fn update_open(open: &mut Vec<usize>, group: &[Ev]) {
    for e in group {
        match e.event {
            Event::Start => open.push(e.step),
            Event::End => open.retain(|&s| s != e.step),
            Event::Invariant | Event::Instant => {}
        }
    }
}

fn arg(a: Arg, b: &[ObjId]) -> ObjId {
    crate::exec::obj(a, b)
}

fn event_verb(e: Event) -> &'static str {
    match e {
        Event::Start => "starts",
        Event::End => "ends",
        Event::Invariant => "runs",
        Event::Instant => "happens",
    }
}

/// Whether a duration `d` satisfies `?duration OP want` within `tolerance`, as VAL tests it
/// (`DurativeActionElement::confirmPrecondition`).
fn duration_holds(op: CmpOp, d: f64, want: f64, tolerance: f64) -> bool {
    match op {
        CmpOp::Gt => d > want,
        CmpOp::Lt => d < want,
        CmpOp::Ge => tolerance >= want - d,
        CmpOp::Le => d - want <= tolerance,
        CmpOp::Eq => (d - want).abs() < tolerance,
    }
}

/// `?duration` replaced by `d` throughout.
fn fill_num(e: &NumExpr, d: f64) -> NumExpr {
    match e {
        NumExpr::Duration => NumExpr::Const(d),
        NumExpr::Arith(op, args) => {
            NumExpr::Arith(*op, args.iter().map(|a| fill_num(a, d)).collect())
        }
        other => other.clone(),
    }
}

fn fill_cond(c: &Cond, d: f64) -> Cond {
    match c {
        Cond::Not(inner, s) => Cond::Not(Box::new(fill_cond(inner, d)), *s),
        Cond::And(parts) => Cond::And(parts.iter().map(|p| fill_cond(p, d)).collect()),
        Cond::Or(parts, s) => Cond::Or(parts.iter().map(|p| fill_cond(p, d)).collect(), *s),
        Cond::Imply(x, y) => Cond::Imply(Box::new(fill_cond(x, d)), Box::new(fill_cond(y, d))),
        Cond::Quant {
            forall,
            vars,
            body,
            span,
        } => Cond::Quant {
            forall: *forall,
            vars: vars.clone(),
            body: Box::new(fill_cond(body, d)),
            span: *span,
        },
        Cond::Compare(op, l, r, s) => Cond::Compare(*op, fill_num(l, d), fill_num(r, d), *s),
        other => other.clone(),
    }
}

fn fill_effs(effs: &[Eff], d: f64) -> Vec<Eff> {
    effs.iter()
        .map(|e| match e {
            Eff::Num {
                op,
                target,
                value,
                span,
            } => Eff::Num {
                op: *op,
                target: target.clone(),
                value: fill_num(value, d),
                span: *span,
            },
            Eff::When { cond, body } => Eff::When {
                cond: fill_cond(cond, d),
                body: fill_effs(body, d),
            },
            Eff::Forall { vars, body } => Eff::Forall {
                vars: vars.clone(),
                body: fill_effs(body, d),
            },
            other => other.clone(),
        })
        .collect()
}

/// `(total-time)` replaced by the time of the last happening.
fn fill_total_time(e: &NumExpr, t: f64) -> NumExpr {
    match e {
        NumExpr::TotalTime => NumExpr::Const(t),
        NumExpr::Arith(op, args) => {
            NumExpr::Arith(*op, args.iter().map(|a| fill_total_time(a, t)).collect())
        }
        other => other.clone(),
    }
}
