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

use rustc_hash::FxHashMap;
use safeplan_pddl::ast::{AssignOp, CmpOp};
use safeplan_pddl::{FileKind, Plan};

use crate::exec::{NumFault, Pending};
use crate::explain::{Explainer, Number, Site, round_time};
use crate::state::{Key, State};
use crate::task::{Arg, Cond, Durative, Eff, NumExpr, ObjId, PredKind, Schema, Task};
use crate::validate::{ValidateOptions, step_text};
use crate::verdict::{Event, Failure, FailureKind, SourceRef, Timing, Verdict, Warning};

/// VAL's default tolerance (`-t`), in plan time units.
pub const DEFAULT_TOLERANCE: f64 = 0.01;

/// One plan step, bound: its schema, objects, start and duration, and, when the action
/// reads `?duration`, its conditions and effects with the duration filled in.
struct Step<'t> {
    schema: &'t Schema,
    binding: Vec<ObjId>,
    start: f64,
    duration: f64,
    text: String,
    span: safeplan_pddl::Span,
    own: Option<Box<Filled>>,
}

/// A schema's parts with `?duration` replaced by the step's duration.
struct Filled {
    pre: Cond,
    effects: Vec<Eff>,
    durative: Durative,
}

impl Step<'_> {
    fn pre(&self) -> &Cond {
        self.own.as_ref().map_or(&self.schema.pre, |o| &o.pre)
    }

    fn start_effects(&self) -> &[Eff] {
        self.own
            .as_ref()
            .map_or(&self.schema.effects, |o| &o.effects)
    }

    fn durative(&self) -> Option<&Durative> {
        match &self.own {
            Some(o) => Some(&o.durative),
            None => self.schema.durative.as_deref(),
        }
    }

    fn conditions(&self, event: Event) -> &Cond {
        match (event, self.durative()) {
            (Event::End, Some(d)) => &d.end_pre,
            (Event::Invariant, Some(d)) => &d.over_all,
            _ => self.pre(),
        }
    }

    fn effects(&self, event: Event) -> &[Eff] {
        match (event, self.durative()) {
            (Event::End, Some(d)) => &d.end_effects,
            _ => self.start_effects(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Ev {
    time: f64,
    step: usize,
    event: Event,
}

/// Validate a plan of a task with durative actions.
pub(crate) fn validate(task: &Task, plan: &Plan, options: &ValidateOptions) -> Verdict {
    let tolerance = options.tolerance.unwrap_or(DEFAULT_TOLERANCE);
    let n = plan.steps.len();
    let verdict = |failure: Option<Failure>, metric, warnings, state: Option<&State>| Verdict {
        valid: failure.is_none(),
        steps: n,
        metric,
        failure,
        failures: Vec::new(),
        warnings,
        final_state: state
            .filter(|_| options.keep_final_state)
            .map(|s| task.describe_state(s)),
    };

    // Bind every step first: VAL reads and type-checks the whole plan before it runs it.
    let mut steps = Vec::with_capacity(n);
    let mut next_default = 1.0;
    for (i, ps) in plan.steps.iter().enumerate() {
        let mut args = Vec::new();
        let schema_id = match task.bind_step(ps, &mut args) {
            Ok(s) => s,
            Err(mut f) => {
                f.step = Some(i + 1);
                let time = ps.time.unwrap_or(next_default);
                f.timing = Some(Run::timing(Event::Start, time));
                return verdict(Some(f), None, Vec::new(), None);
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
            schema,
            binding: args,
            start,
            duration,
            text: step_text(ps),
            span: ps.span,
            own,
        });
    }

    let mut events: Vec<Ev> = Vec::with_capacity(2 * n);
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

    let mut run = Run {
        task,
        steps: &steps,
        state: task.init.clone(),
        b: Vec::new(),
        pending: Pending::default(),
        warnings: Vec::new(),
        tolerance,
    };
    let mut open: Vec<usize> = Vec::new();
    let mut previous: Option<f64> = None;
    let mut last_time = 0.0;
    let mut i = 0;
    let mut h = 0;
    while i < events.len() {
        let t = events[i].time;
        let j = events[i..]
            .iter()
            .position(|e| e.time > t + tolerance / 10.0)
            .map_or(events.len(), |p| i + p);
        let group = &events[i..j];
        if let Err(f) = run.happening(group, &open, t, previous.unwrap_or(t), h) {
            let warnings = std::mem::take(&mut run.warnings);
            return verdict(Some(*f), None, warnings, Some(&run.state));
        }
        for e in group {
            match e.event {
                Event::Start => open.push(e.step),
                Event::End => open.retain(|&s| s != e.step),
                Event::Invariant | Event::Instant => {}
            }
        }
        previous = Some(t);
        last_time = t;
        i = j;
        h += 1;
    }

    let mut warnings = std::mem::take(&mut run.warnings);
    match task.holds_cond_goal(&run.state, h) {
        Ok(true) => {}
        Ok(false) => {
            let f = task.goal_failure(&run.state, n);
            return verdict(Some(f), None, warnings, Some(&run.state));
        }
        Err(fault) => {
            let f = task.fault_failure(&fault, None);
            return verdict(Some(f), None, warnings, Some(&run.state));
        }
    }
    let metric = task.metric.as_ref().and_then(|(_, expr)| {
        let expr = fill_total_time(expr, last_time);
        match task.num(&run.state, &expr, &[], h) {
            Ok(v) => Some(v),
            Err(fault) => {
                warnings.push(Warning {
                    step: None,
                    message: format!(
                        "the metric cannot be computed: {}",
                        task.fault_failure(&fault, None).message
                    ),
                });
                None
            }
        }
    });
    verdict(None, metric, warnings, Some(&run.state))
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
}

impl Run<'_, '_> {
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
            if e.event == Event::Start
                && let Some(d) = step.durative()
            {
                self.bind(e.step);
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
            self.bind(e.step);
            match task.eval(&self.state, step.conditions(e.event), &mut self.b, h) {
                Ok(true) => {}
                Ok(false) => return Err(Box::new(self.unmet(e.step, e.event, t, t))),
                Err(fault) => return Err(Box::new(self.fault(&fault, e.step, e.event, t))),
            }
        }
        if group.len() > 1
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
        Timing {
            time: round_time(t),
            event,
            interval: None,
            other_step: None,
            contested: None,
        }
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
        }
    }

    /// VAL's ownership check over the events of one happening (its `Ownership` class):
    /// first every event's conditions claim what they read, then each event's effects claim
    /// what they change, in order. The first claim that clashes names the event that made
    /// it and the one that held the atom or fluent.
    fn interference(&mut self, group: &[Ev], t: f64, h: usize) -> Option<Failure> {
        let mut owner = Owners::default();
        for (i, e) in group.iter().enumerate() {
            let step = &self.steps[e.step];
            self.bind(e.step);
            let mut reads = Reads::default();
            self.reads_of(step.conditions(e.event), &mut reads, h);
            if e.event == Event::Start
                && let Some(d) = step.durative()
            {
                for (_, expr) in &d.duration {
                    self.fluents_of(expr, &mut reads.fluents);
                }
            }
            for (key, _) in reads.atoms {
                owner.read_atom(key, i);
            }
            for (key, label) in reads.fluents {
                if let Some(clash) = owner.read_fluent(key, label, i) {
                    return Some(self.mutex(group, i, clash, t));
                }
            }
        }
        for (i, e) in group.iter().enumerate() {
            self.bind(e.step);
            let mut changes = Changes::default();
            let effects = self.steps[e.step].effects(e.event);
            let mut b = std::mem::take(&mut self.b);
            self.changes_of(effects, &mut b, h, &mut changes);
            self.b = b;
            for (key, label, add) in changes.atoms {
                if let Some(clash) = owner.change_atom(key, label, add, i) {
                    return Some(self.mutex(group, i, clash, t));
                }
            }
            for (key, label, op, reads) in changes.fluents {
                for (rk, rl) in reads {
                    if let Some(clash) = owner.read_fluent(rk, rl, i) {
                        return Some(self.mutex(group, i, clash, t));
                    }
                }
                if let Some(clash) = owner.change_fluent(key, label, op, i) {
                    return Some(self.mutex(group, i, clash, t));
                }
            }
        }
        None
    }

    fn mutex(&self, group: &[Ev], i: usize, clash: Clash, t: f64) -> Failure {
        let e = group[i];
        let step = &self.steps[e.step];
        let k = e.step + 1;
        let other = clash.other.map(|o| group[o]);
        let contested = clash.label.text(self.task);
        let how = match clash.held {
            Own::Pre => "reads",
            Own::Add | Own::AddPre => "adds",
            Own::Del | Own::DelPre => "deletes",
            Own::Assign => "assigns",
        };
        let with = match other {
            Some(o) if o.step == e.step => format!(
                "which its own {} {how} (the step is shorter than a tenth of the tolerance)",
                o.event.as_str()
            ),
            Some(o) => format!(
                "which step {} {} {how} as it {} in the same happening",
                o.step + 1,
                self.steps[o.step].text,
                event_verb(o.event)
            ),
            None => "which it changes once already".into(),
        };
        Failure {
            kind: FailureKind::Mutex,
            step: Some(k),
            action: Some(step.text.clone()),
            message: format!(
                "step {k} {} {} at time {} and {} {contested}, {with}",
                step.text,
                event_verb(e.event),
                Number(round_time(t)),
                clash.verb,
            ),
            unmet: Vec::new(),
            advice: vec![format!(
                "move one of the two events at least a tenth of the tolerance ({}) away from the other, so that one completes before the other starts",
                Number(self.tolerance / 10.0)
            )],
            source: Some(SourceRef {
                file: FileKind::Plan,
                span: step.span,
            }),
            timing: Some(Timing {
                time: round_time(t),
                event: e.event,
                interval: None,
                other_step: other.map(|o| o.step + 1),
                contested: Some(contested),
            }),
        }
    }

    /// The atoms (of predicates actions change) and fluents a condition reads, under the
    /// current binding; quantifiers range over their objects.
    fn reads_of(&mut self, c: &Cond, out: &mut Reads, h: usize) {
        let task = self.task;
        match c {
            Cond::True | Cond::Eq(..) => {}
            Cond::Atom(a) => {
                if task.preds[a.pred as usize].kind == PredKind::Fluent {
                    let args: Vec<ObjId> = a.args.iter().map(|&x| arg(x, &self.b)).collect();
                    out.atoms
                        .push((task.atom_key(a.pred, &args), Label::Atom(a.pred, args)));
                }
            }
            Cond::Not(inner, _) => self.reads_of(inner, out, h),
            Cond::And(parts) | Cond::Or(parts, _) => {
                for p in parts {
                    self.reads_of(p, out, h);
                }
            }
            Cond::Imply(x, y) => {
                self.reads_of(x, out, h);
                self.reads_of(y, out, h);
            }
            Cond::Quant { vars, body, .. } => self.reads_quantified(vars, body, out, h),
            Cond::Compare(_, l, r, _) => {
                self.fluents_of(l, &mut out.fluents);
                self.fluents_of(r, &mut out.fluents);
            }
        }
    }

    fn reads_quantified(
        &mut self,
        vars: &[crate::task::QVar],
        body: &Cond,
        out: &mut Reads,
        h: usize,
    ) {
        let Some((first, rest)) = vars.split_first() else {
            return self.reads_of(body, out, h);
        };
        let task = self.task;
        if self.b.len() <= first.slot as usize {
            self.b.resize(first.slot as usize + 1, 0);
        }
        for &o in &task.domains[first.domain as usize] {
            self.b[first.slot as usize] = o;
            self.reads_quantified(rest, body, out, h);
        }
    }

    fn fluents_of(&self, e: &NumExpr, out: &mut Vec<(Key, Label)>) {
        match e {
            NumExpr::Fluent(f) => {
                let args: Vec<ObjId> = f.args.iter().map(|&x| arg(x, &self.b)).collect();
                out.push((
                    self.task.value_key(f.func, &args),
                    Label::Fluent(f.func, args),
                ));
            }
            NumExpr::Arith(_, args) => args.iter().for_each(|a| self.fluents_of(a, out)),
            NumExpr::Const(_) | NumExpr::TotalTime | NumExpr::Duration => {}
        }
    }

    /// What effects change (and, for numeric effects, read), under binding `b`.
    fn changes_of(&mut self, effs: &[Eff], b: &mut Vec<ObjId>, h: usize, out: &mut Changes) {
        let task = self.task;
        for e in effs {
            match e {
                Eff::Add(a) | Eff::Del(a) => {
                    let args: Vec<ObjId> = a.args.iter().map(|&x| arg(x, b)).collect();
                    out.atoms.push((
                        task.atom_key(a.pred, &args),
                        Label::Atom(a.pred, args),
                        matches!(e, Eff::Add(_)),
                    ));
                }
                Eff::Num {
                    op, target, value, ..
                } => {
                    let args: Vec<ObjId> = target.args.iter().map(|&x| arg(x, b)).collect();
                    let saved = std::mem::replace(&mut self.b, b.clone());
                    let mut reads = Vec::new();
                    self.fluents_of(value, &mut reads);
                    self.b = saved;
                    out.fluents.push((
                        task.value_key(target.func, &args),
                        Label::Fluent(target.func, args),
                        *op,
                        reads,
                    ));
                }
                Eff::When { cond, body } => {
                    if matches!(task.eval(&self.state, cond, b, h), Ok(true)) {
                        self.changes_of(body, b, h, out);
                    }
                }
                Eff::Forall { vars, body } => self.changes_forall(vars, body, b, h, out),
            }
        }
    }

    fn changes_forall(
        &mut self,
        vars: &[crate::task::QVar],
        body: &[Eff],
        b: &mut Vec<ObjId>,
        h: usize,
        out: &mut Changes,
    ) {
        let Some((first, rest)) = vars.split_first() else {
            return self.changes_of(body, b, h, out);
        };
        let task = self.task;
        if b.len() <= first.slot as usize {
            b.resize(first.slot as usize + 1, 0);
        }
        for &o in &task.domains[first.domain as usize] {
            b[first.slot as usize] = o;
            self.changes_forall(rest, body, b, h, out);
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

/// A ground atom or fluent, to name it in a message.
#[derive(Clone, Debug)]
enum Label {
    Atom(u32, Vec<ObjId>),
    Fluent(u32, Vec<ObjId>),
}

impl Label {
    fn text(&self, task: &Task) -> String {
        match self {
            Label::Atom(p, args) => {
                task.ground_text(&task.preds[*p as usize].sym.name.to_lowercase(), args)
            }
            Label::Fluent(f, args) => task.fluent_text(*f, args),
        }
    }
}

#[derive(Default)]
struct Reads {
    atoms: Vec<(Key, Label)>,
    fluents: Vec<(Key, Label)>,
}

type FluentChange = (Key, Label, AssignOp, Vec<(Key, Label)>);

#[derive(Default)]
struct Changes {
    atoms: Vec<(Key, Label, bool)>,
    fluents: Vec<FluentChange>,
}

/// How an atom or fluent is held in a happening (VAL's `ownership`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Own {
    /// Read by a condition.
    Pre,
    /// Added (atoms) or increased/decreased (fluents).
    Add,
    /// Deleted.
    Del,
    /// Read by the event's own condition, then added.
    AddPre,
    /// Read by the event's own condition, then deleted.
    DelPre,
    /// Assigned, scaled (fluents).
    Assign,
}

/// A clash: the other event (`None` when there is no other, e.g. an event that assigns a
/// fluent twice), how it held the atom or fluent, what this event did to it, and which.
struct Clash {
    other: Option<usize>,
    held: Own,
    verb: &'static str,
    label: Label,
}

/// How one atom or fluent is held in a happening: by one event, or shared by several
/// readers (`owner: None`), and every event that claimed it, in order.
struct Hold {
    owner: Option<usize>,
    own: Own,
    holders: Vec<usize>,
}

impl Hold {
    fn new(i: usize, own: Own) -> Hold {
        Hold {
            owner: Some(i),
            own,
            holders: vec![i],
        }
    }

    fn clash(&self, i: usize, verb: &'static str, label: Label) -> Option<Clash> {
        Some(Clash {
            other: self.holders.iter().copied().find(|&h| h != i),
            held: self.own,
            verb,
            label,
        })
    }

    fn claim(&mut self, i: usize) {
        if !self.holders.contains(&i) {
            self.holders.push(i);
        }
    }
}

/// Who holds which atom and fluent in one happening, by event index in the group.
#[derive(Default)]
struct Owners {
    atoms: FxHashMap<Key, Hold>,
    fluents: FxHashMap<Key, Hold>,
}

impl Owners {
    /// A condition of event `i` reads atom `key` (before any effect is claimed, so every
    /// earlier claim is a read: a second reader shares it).
    fn read_atom(&mut self, key: Key, i: usize) {
        match self.atoms.get_mut(&key) {
            Some(hold) => {
                if hold.owner != Some(i) {
                    hold.owner = None;
                }
                hold.claim(i);
            }
            None => {
                self.atoms.insert(key, Hold::new(i, Own::Pre));
            }
        }
    }

    /// A condition or a numeric right-hand side of event `i` reads fluent `key`.
    fn read_fluent(&mut self, key: Key, label: Label, i: usize) -> Option<Clash> {
        match self.fluents.get_mut(&key) {
            None => {
                self.fluents.insert(key, Hold::new(i, Own::Pre));
                None
            }
            Some(hold) if hold.owner == Some(i) => None,
            Some(hold) if hold.own == Own::Pre => {
                hold.owner = None;
                hold.claim(i);
                None
            }
            Some(hold) => hold.clash(i, "reads", label),
        }
    }

    /// Event `i` adds (`add`) or deletes atom `key` (VAL's `ownsForAdd`/`ownsForDel`).
    fn change_atom(&mut self, key: Key, label: Label, add: bool, i: usize) -> Option<Clash> {
        let mine = if add { Own::Add } else { Own::Del };
        let verb = if add { "adds" } else { "deletes" };
        match self.atoms.get_mut(&key) {
            None => {
                self.atoms.insert(key, Hold::new(i, mine));
                None
            }
            // Another event holds it in any other way (even both adding after one of them
            // read it): VAL's `po->second.first != a && po->second.second != E_ADD`.
            Some(hold) if hold.owner != Some(i) && hold.own != mine => hold.clash(i, verb, label),
            Some(hold) => {
                if hold.owner == Some(i) && hold.own == Own::Pre {
                    hold.own = if add { Own::AddPre } else { Own::DelPre };
                }
                hold.claim(i);
                None
            }
        }
    }

    /// Event `i` updates fluent `key` with `op` (VAL's `markOwnedEffectFE`).
    fn change_fluent(&mut self, key: Key, label: Label, op: AssignOp, i: usize) -> Option<Clash> {
        let additive = matches!(op, AssignOp::Increase | AssignOp::Decrease);
        let mine = if additive { Own::Add } else { Own::Assign };
        match self.fluents.get_mut(&key) {
            None => {
                self.fluents.insert(key, Hold::new(i, mine));
                None
            }
            Some(hold) if hold.owner != Some(i) => {
                if hold.own == Own::Add && additive {
                    // Increases and decreases by several events commute.
                    hold.owner = None;
                    hold.claim(i);
                    None
                } else {
                    hold.clash(i, "updates", label)
                }
            }
            Some(hold) => match hold.own {
                Own::Pre => {
                    hold.own = mine;
                    None
                }
                Own::Add if additive => None,
                Own::Add | Own::Assign | Own::Del | Own::AddPre | Own::DelPre => {
                    hold.clash(i, "updates", label)
                }
            },
        }
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
