//! PDDL3 state-trajectory constraints and preferences (SEMANTICS.md §2c), checked state by
//! state while a plan runs. They are compiled once per task, in `task/constraints.rs`.
//!
//! A trajectory constraint speaks about the whole sequence of states a plan passes through
//! (the initial state at time 0, then the state after each step or happening at its time),
//! not only the last one: `always φ`, `sometime-before φ ψ`, `within 10 φ`. Each operator is
//! a tiny automaton: [`Tracker::observe`] feeds it one state, [`Tracker::finish`] tells it
//! the plan is over (where `sometime`, `within`, `sometime-after`, `always-within` and
//! `at end` are judged). So checking constraints costs a constant amount per state and
//! constraint instance, on top of executing the plan, and a robot's monitor can ask after
//! any prefix which constraint a next step would break and which are still outstanding.
//!
//! `forall` over constraints is expanded when the task compiles: every binding is an
//! *instance* with its own automaton, as VAL does. A preference is soft: breaking it costs
//! what the metric says (`(is-violated NAME)` counts the broken instances of NAME), never
//! validity.
//!
//! Nothing here builds a sentence on the success path: an instance found broken is a
//! [`Broken`] (instance, reason, state); [`Task::constraint_violation`] turns it into the
//! explained [`ConstraintViolation`] only when a caller asks.

use safeplan_pddl::ast::ConstraintOp;

use crate::exec::NumFault;
use crate::explain::{Explainer, Number, Printer, Site};
use crate::state::State;
use crate::task::constraints::{Constraints, Strength};
use crate::task::{Cond, ObjId, Task};
use crate::verdict::{ConstraintViolation, PreferenceOutcome};

/// Where an instance stands in its automaton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing decided yet.
    Open,
    /// `at-most-once`: φ holds now, in its first stretch.
    Holding,
    /// `at-most-once`: φ held and stopped (since [`Tracker::mark`]).
    Stopped,
    /// `sometime-after`, `always-within`: triggered, ψ owed (since / by the mark).
    Pending,
    /// Kept for good (`sometime` met, `sometime-before`'s ψ seen, a window passed).
    Kept,
    /// Broken (reported once).
    Broken,
}

/// Why an instance is broken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Reason {
    /// φ is false in a state where it must hold (`always`, `hold-during`, `hold-after`,
    /// `at end`).
    False,
    /// `at-most-once`: φ holds again; it had stopped holding at the given time.
    AgainAfter(f64),
    /// `sometime-before`: the trigger holds, ψ never held in an earlier state.
    TriggerFirst,
    /// `within`: the deadline passed without φ; `always-within`: the deadline of a
    /// trigger passed without ψ.
    Late { deadline: f64 },
    /// `sometime`, `within`: φ never held.
    Never,
    /// `sometime-after` (since: when the trigger held) or `always-within` (deadline) at the
    /// end of the plan: ψ still owed.
    Owed { since: f64 },
}

/// An instance found broken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Broken {
    pub instance: u32,
    pub reason: Reason,
    /// The state it was found in (0: initial); `None` at the end-of-plan check.
    pub state: Option<usize>,
    /// The plan time of that state.
    pub time: f64,
    /// Whether the instance is hard (the plan fails) or a preference's.
    pub hard: bool,
}

/// Which judgement a state gets: the one every state gets, or the end-of-plan one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// [`Tracker::observe`].
    State,
    /// [`Tracker::finish`] (the state must have been observed first).
    End,
}

/// The automata of one run: what each instance has seen so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tracker {
    phase: Vec<Phase>,
    /// A time per instance: when `at-most-once` stopped, when `sometime-after` was
    /// triggered, the deadline `always-within` owes ψ by.
    mark: Vec<f64>,
    /// Per group: a preference instance already counted as violated.
    violated: Vec<bool>,
    buf: Vec<ObjId>,
    /// What the last judgement found broken.
    broken: Vec<Broken>,
    /// Per preference name (the last entry: unnamed ones), the executions of an action
    /// whose precondition holds it, and how many of them found it false.
    action: Vec<(usize, usize)>,
}

/// A condition of a constraint that could not be evaluated (it reads a fluent with no
/// value, divides by zero, ...).
#[derive(Clone, Debug)]
pub(crate) struct Fault {
    pub instance: u32,
    pub fault: NumFault,
}

impl Tracker {
    /// A tracker for `c`, at the start of a plan.
    pub fn new(c: &Constraints) -> Tracker {
        let mut t = Tracker::default();
        t.reset(c);
        t
    }

    /// Back to the start of a plan (buffers kept).
    pub fn reset(&mut self, c: &Constraints) {
        self.phase.clear();
        self.phase.resize(c.instances.len(), Phase::Open);
        self.mark.clear();
        self.mark.resize(c.instances.len(), 0.0);
        self.violated.clear();
        self.violated.resize(c.groups.len(), false);
        self.buf.resize(c.slots, 0);
        self.action.clear();
        if c.action_preferences {
            self.action.resize(c.preferences.len() + 1, (0, 0));
        }
    }

    /// An action whose precondition holds the preference `name` ran; `violated`: the
    /// preference was false in the state it ran in.
    pub fn count_action(&mut self, name: Option<u32>, violated: bool) {
        let last = self.action.len().saturating_sub(1);
        if let Some(entry) = self.action.get_mut(name.map_or(last, |n| n as usize)) {
            entry.0 += 1;
            entry.1 += usize::from(violated);
        }
    }

    /// Feed the state `state` (the `index`-th of the plan, at plan time `time`). Every
    /// instance found broken here is pushed to `out`, hard and soft alike (a soft one
    /// once per preference instance).
    pub fn observe(
        &mut self,
        task: &Task,
        c: &Constraints,
        state: &State,
        index: usize,
        time: f64,
        out: &mut Vec<Broken>,
    ) -> Result<(), Fault> {
        for (i, inst) in c.instances.iter().enumerate() {
            // Up to a million instances per state: a caller that stopped waiting (an MCP
            // time limit, Ctrl-C in Python) ends the judgement; its answer is meaningless.
            if crate::cancel::abandoned() {
                return Ok(());
            }
            let phase = self.phase[i];
            if matches!(phase, Phase::Kept | Phase::Broken) || self.violated[inst.group as usize] {
                continue;
            }
            let rule = &c.rules[inst.rule as usize];
            if matches!(rule.op, ConstraintOp::AtEnd) {
                continue;
            }
            self.buf[..rule.vars.len()].copy_from_slice(c.binding(inst));
            let holds = |cond: &Cond, buf: &mut Vec<ObjId>| {
                task.eval(state, cond, buf, index).map_err(|fault| Fault {
                    instance: i as u32,
                    fault,
                })
            };
            let psi = || rule.psi.as_ref().unwrap_or(&Cond::True);
            let mut reason = None;
            match rule.op {
                ConstraintOp::AtEnd => {}
                ConstraintOp::Always => {
                    if !holds(&rule.phi, &mut self.buf)? {
                        reason = Some(Reason::False);
                    }
                }
                ConstraintOp::Sometime => {
                    if holds(&rule.phi, &mut self.buf)? {
                        self.phase[i] = Phase::Kept;
                    }
                }
                ConstraintOp::Within => {
                    let deadline = rule.times[0];
                    if time > deadline {
                        reason = Some(Reason::Late { deadline });
                    } else if holds(&rule.phi, &mut self.buf)? {
                        self.phase[i] = Phase::Kept;
                    }
                }
                ConstraintOp::AtMostOnce => {
                    let now = holds(&rule.phi, &mut self.buf)?;
                    match (phase, now) {
                        (Phase::Open, true) => self.phase[i] = Phase::Holding,
                        (Phase::Holding, false) => {
                            self.phase[i] = Phase::Stopped;
                            self.mark[i] = time;
                        }
                        (Phase::Stopped, true) => reason = Some(Reason::AgainAfter(self.mark[i])),
                        _ => {}
                    }
                }
                ConstraintOp::SometimeAfter => {
                    if holds(psi(), &mut self.buf)? {
                        self.phase[i] = Phase::Open;
                    } else if phase != Phase::Pending && holds(&rule.phi, &mut self.buf)? {
                        self.phase[i] = Phase::Pending;
                        self.mark[i] = time;
                    }
                }
                ConstraintOp::SometimeBefore => {
                    // ψ must have held strictly earlier: this state's ψ counts from the next.
                    if holds(&rule.phi, &mut self.buf)? {
                        reason = Some(Reason::TriggerFirst);
                    } else if holds(psi(), &mut self.buf)? {
                        self.phase[i] = Phase::Kept;
                    }
                }
                ConstraintOp::AlwaysWithin => {
                    // A trigger while one is owed adds a later deadline: the earlier decides.
                    if phase != Phase::Pending && holds(&rule.phi, &mut self.buf)? {
                        self.phase[i] = Phase::Pending;
                        self.mark[i] = time + rule.times[0];
                    }
                    if self.phase[i] == Phase::Pending {
                        if time > self.mark[i] {
                            reason = Some(Reason::Late {
                                deadline: self.mark[i],
                            });
                        } else if holds(psi(), &mut self.buf)? {
                            self.phase[i] = Phase::Open;
                        }
                    }
                }
                ConstraintOp::HoldDuring => {
                    let [from, to] = rule.times;
                    if time >= to {
                        self.phase[i] = Phase::Kept;
                    } else if time >= from && !holds(&rule.phi, &mut self.buf)? {
                        reason = Some(Reason::False);
                    }
                }
                ConstraintOp::HoldAfter => {
                    if time > rule.times[0] && !holds(&rule.phi, &mut self.buf)? {
                        reason = Some(Reason::False);
                    }
                }
            }
            if let Some(reason) = reason {
                self.break_instance(c, i, reason, Some(index), time, out);
            }
        }
        Ok(())
    }

    /// The plan ended in `state` (the `index`-th, at `time`), which [`Tracker::observe`]
    /// has seen: judge what is judged at the end.
    pub fn finish(
        &mut self,
        task: &Task,
        c: &Constraints,
        state: &State,
        index: usize,
        time: f64,
        out: &mut Vec<Broken>,
    ) -> Result<(), Fault> {
        // In VAL's order of its final checks (`at end`, then what was never met, then what
        // is still owed), so that the first failure names the operator VAL names.
        const ORDER: [ConstraintOp; 5] = [
            ConstraintOp::AtEnd,
            ConstraintOp::Sometime,
            ConstraintOp::SometimeAfter,
            ConstraintOp::Within,
            ConstraintOp::AlwaysWithin,
        ];
        let judged = ORDER.iter().flat_map(|op| {
            c.instances
                .iter()
                .enumerate()
                .filter(move |(_, inst)| c.rules[inst.rule as usize].op == *op)
        });
        for (i, inst) in judged {
            if crate::cancel::abandoned() {
                return Ok(());
            }
            let phase = self.phase[i];
            if matches!(phase, Phase::Kept | Phase::Broken) || self.violated[inst.group as usize] {
                continue;
            }
            let rule = &c.rules[inst.rule as usize];
            let reason = match rule.op {
                ConstraintOp::AtEnd => {
                    self.buf[..rule.vars.len()].copy_from_slice(c.binding(inst));
                    let holds =
                        task.eval(state, &rule.phi, &mut self.buf, index)
                            .map_err(|fault| Fault {
                                instance: i as u32,
                                fault,
                            })?;
                    (!holds).then_some(Reason::False)
                }
                ConstraintOp::Sometime | ConstraintOp::Within => Some(Reason::Never),
                ConstraintOp::SometimeAfter | ConstraintOp::AlwaysWithin
                    if phase == Phase::Pending =>
                {
                    Some(Reason::Owed {
                        since: self.mark[i],
                    })
                }
                _ => None,
            };
            if let Some(reason) = reason {
                self.break_instance(c, i, reason, None, time, out);
            }
        }
        Ok(())
    }

    /// Run `stage` on `state` (the `index`-th, at `time`), keeping what broke.
    fn run_stage(
        &mut self,
        task: &Task,
        state: &State,
        index: usize,
        time: f64,
        stage: Stage,
    ) -> Result<(), Fault> {
        let mut broken = std::mem::take(&mut self.broken);
        broken.clear();
        let c = &task.constraints;
        let result = match stage {
            Stage::State => self.observe(task, c, state, index, time, &mut broken),
            Stage::End => self.finish(task, c, state, index, time, &mut broken),
        };
        self.broken = broken;
        result
    }

    /// Run `stage` without explaining anything: whether a hard constraint broke (or could
    /// not be evaluated). What a benchmark or a search counts.
    pub fn breaks(
        &mut self,
        task: &Task,
        state: &State,
        index: usize,
        time: f64,
        stage: Stage,
    ) -> bool {
        self.run_stage(task, state, index, time, stage).is_err()
            || self.broken.iter().any(|b| b.hard)
    }

    /// Run `stage` and explain what broke: the hard constraints broken (or that could not
    /// be evaluated), as failures of `step`; the soft ones pushed to `soft`.
    #[allow(clippy::too_many_arguments)]
    pub fn judge(
        &mut self,
        task: &Task,
        state: &State,
        index: usize,
        time: f64,
        stage: Stage,
        step: Option<usize>,
        place: &dyn Fn() -> Place,
        soft: &mut Vec<ConstraintViolation>,
    ) -> Vec<crate::verdict::Failure> {
        let result = self.run_stage(task, state, index, time, stage);
        let mut failures = Vec::new();
        for b in &self.broken {
            let violation = task.constraint_violation(b, state, index, &place());
            if b.hard {
                failures.push(task.constraint_failure(violation, step));
            } else {
                soft.push(violation);
            }
        }
        if let Err(fault) = result {
            let mut f = task.fault_failure(&fault.fault, step);
            f.message = format!(
                "the constraint {} cannot be evaluated {}: {}",
                task.constraint_text(fault.instance),
                place().label,
                f.message
            );
            failures.push(f);
        }
        failures
    }

    fn break_instance(
        &mut self,
        c: &Constraints,
        i: usize,
        reason: Reason,
        state: Option<usize>,
        time: f64,
        out: &mut Vec<Broken>,
    ) {
        self.phase[i] = Phase::Broken;
        let group = c.instances[i].group as usize;
        let hard = c.groups[group] == Strength::Hard;
        if !hard {
            self.violated[group] = true;
        }
        out.push(Broken {
            instance: i as u32,
            reason,
            state,
            time,
            hard,
        });
    }

    /// The hard instances still owed something at this point, with the deadline they
    /// are owed by: `sometime`/`within` not yet met, `sometime-after`/`always-within`
    /// triggered and waiting, and every `at end` not broken.
    pub fn outstanding(&self, c: &Constraints) -> Vec<(u32, Option<f64>)> {
        c.instances
            .iter()
            .enumerate()
            .filter(|(_, inst)| c.groups[inst.group as usize] == Strength::Hard)
            .filter_map(|(i, inst)| {
                let rule = &c.rules[inst.rule as usize];
                let phase = self.phase[i];
                let deadline = match rule.op {
                    ConstraintOp::AtEnd | ConstraintOp::Sometime if phase == Phase::Open => None,
                    ConstraintOp::Within if phase == Phase::Open => Some(rule.times[0]),
                    ConstraintOp::SometimeAfter if phase == Phase::Pending => None,
                    ConstraintOp::AlwaysWithin if phase == Phase::Pending => Some(self.mark[i]),
                    _ => return None,
                };
                Some((i as u32, deadline))
            })
            .collect()
    }

    /// How many instances of each preference the run violated.
    pub fn violated_counts(&self, c: &Constraints) -> Vec<(Option<u32>, usize, usize)> {
        let mut counts: Vec<(Option<u32>, usize, usize)> = (0..c.preferences.len())
            .map(|i| (Some(i as u32), 0, 0))
            .collect();
        for (g, strength) in c.groups.iter().enumerate() {
            let Strength::Soft(name) = *strength else {
                continue;
            };
            let entry = match name {
                Some(n) => &mut counts[n as usize],
                None => {
                    if counts.last().is_none_or(|l| l.0.is_some()) {
                        counts.push((None, 0, 0));
                    }
                    counts.last_mut().expect("just pushed")
                }
            };
            entry.1 += 1;
            if self.violated[g] {
                entry.2 += 1;
            }
        }
        // The actions' precondition preferences: an instance per execution.
        for (i, &(ran, violated)) in self.action.iter().enumerate() {
            if ran == 0 {
                continue;
            }
            let entry = if i < c.preferences.len() {
                &mut counts[i]
            } else {
                if counts.last().is_none_or(|l| l.0.is_some()) {
                    counts.push((None, 0, 0));
                }
                counts.last_mut().expect("just pushed")
            };
            entry.1 += ran;
            entry.2 += violated;
        }
        counts
    }
}

/// Where a state sits in a plan, for people: `in the initial state`, `after step 3
/// (pick-up a)`, `at time 2.5`.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    /// `in the initial state`, `after step 3 (pick-up a)`, `at the end of the plan`.
    pub label: String,
    /// The explainer's site for advice on literals.
    pub site: Site,
}

impl Task {
    /// Whether the task has trajectory constraints or preferences (PDDL3).
    pub fn has_constraints(&self) -> bool {
        !self.constraints.is_empty()
    }

    /// Whether the task has hard trajectory constraints, which a plan must keep to be valid.
    pub fn has_hard_constraints(&self) -> bool {
        self.constraints.has_hard()
    }

    /// Whether the task has preferences (soft goals or soft trajectory constraints), whose
    /// violations its metric may count.
    pub fn has_preferences(&self) -> bool {
        self.constraints.has_preferences()
    }

    /// What instance `i` still owes (see [`Tracker::outstanding`]).
    pub(crate) fn obligation(&self, i: u32, deadline: Option<f64>) -> crate::verdict::Obligation {
        let c = &self.constraints;
        let inst = &c.instances[i as usize];
        let rule = &c.rules[inst.rule as usize];
        let mut b = c.binding(inst).to_vec();
        b.resize(c.slots, 0);
        let owed = match rule.op {
            ConstraintOp::SometimeAfter | ConstraintOp::AlwaysWithin => {
                rule.psi.as_ref().unwrap_or(&rule.phi)
            }
            _ => &rule.phi,
        };
        let mut text = String::new();
        Printer::new(self).cond(&mut text, owed, &b);
        crate::verdict::Obligation {
            operator: rule.op,
            constraint: self.constraint_text(i),
            owed: text,
            deadline,
        }
    }

    /// The ground text of constraint instance `i`, e.g. `(sometime-before (p a) (q b))`.
    pub(crate) fn constraint_text(&self, i: u32) -> String {
        let c = &self.constraints;
        let inst = &c.instances[i as usize];
        let rule = &c.rules[inst.rule as usize];
        let mut b = c.binding(inst).to_vec();
        b.resize(c.slots, 0);
        let mut out = format!("({}", rule.op.as_str());
        for t in &rule.times[..match rule.op {
            ConstraintOp::HoldDuring => 2,
            ConstraintOp::Within | ConstraintOp::AlwaysWithin | ConstraintOp::HoldAfter => 1,
            _ => 0,
        }] {
            out.push_str(&format!(" {}", Number(*t)));
        }
        let mut printer = Printer::new(self);
        for cond in std::iter::once(&rule.phi).chain(rule.psi.as_ref()) {
            out.push(' ');
            printer.cond(&mut out, cond, &b);
        }
        out.push(')');
        out
    }

    /// The explained form of a broken instance found in `state` at `place`.
    pub(crate) fn constraint_violation(
        &self,
        broken: &Broken,
        state: &State,
        index: usize,
        place: &Place,
    ) -> ConstraintViolation {
        let c = &self.constraints;
        let inst = &c.instances[broken.instance as usize];
        let rule = &c.rules[inst.rule as usize];
        let mut b = c.binding(inst).to_vec();
        b.resize(c.slots.max(1), 0);
        let text = |cond: &Cond| {
            let mut s = String::new();
            Printer::new(self).cond(&mut s, cond, &b);
            s
        };
        let phi = text(&rule.phi);
        let psi = rule.psi.as_ref().map(text).unwrap_or_default();
        let at = &place.label;
        let mut ex = Explainer::new(self, state, rule.source.file, place.site, index);
        // Whether the literals found are ones that hold (a trigger) or false ones.
        let mut held = false;
        let (reason, advice) = match (rule.op, broken.reason) {
            (ConstraintOp::AtMostOnce, Reason::AgainAfter(stopped)) => {
                held = true;
                ex.support(&rule.phi, &mut b.clone());
                (
                    format!(
                        "{phi} holds again {at}, after it held once and stopped holding at time {}",
                        Number(stopped)
                    ),
                    format!(
                        "let {phi} hold during one stretch only: keep it true until it is false for good, or never make it true again"
                    ),
                )
            }
            (_, Reason::TriggerFirst) => {
                held = true;
                ex.support(&rule.phi, &mut b.clone());
                (
                    format!("{phi} holds {at}, but {psi} never held in an earlier state"),
                    format!(
                        "make {psi} true in a state before {phi} first holds (the same state is not early enough), or keep {phi} false"
                    ),
                )
            }
            (
                ConstraintOp::Within,
                Reason::Late { deadline } | Reason::Owed { since: deadline },
            ) => {
                ex.explain(&rule.phi, &mut b.clone());
                (
                    format!("{phi} did not hold by time {}", Number(deadline)),
                    if self.is_temporal() {
                        format!("make {phi} true by time {}", Number(deadline))
                    } else {
                        format!(
                            "make {phi} true by time {} (a sequential plan's step k happens at time k)",
                            Number(deadline)
                        )
                    },
                )
            }
            (_, Reason::Late { deadline }) => {
                ex.explain(rule.psi.as_ref().unwrap_or(&Cond::True), &mut b.clone());
                let since = deadline - rule.times[0];
                (
                    format!(
                        "{phi} held at time {}, and {psi} did not hold by time {} ({at})",
                        Number(since),
                        Number(deadline)
                    ),
                    format!(
                        "make {psi} true within {} of {phi} holding",
                        Number(rule.times[0])
                    ),
                )
            }
            (ConstraintOp::AlwaysWithin, Reason::Owed { since: deadline }) => {
                ex.explain(rule.psi.as_ref().unwrap_or(&Cond::True), &mut b.clone());
                let since = deadline - rule.times[0];
                (
                    format!(
                        "{phi} held at time {}, and the plan ends without {psi} holding after it",
                        Number(since)
                    ),
                    format!(
                        "make {psi} true within {} of {phi} holding, by time {}",
                        Number(rule.times[0]),
                        Number(deadline)
                    ),
                )
            }
            (_, Reason::Owed { since }) => {
                ex.explain(rule.psi.as_ref().unwrap_or(&Cond::True), &mut b.clone());
                (
                    format!(
                        "{phi} held at time {}, and {psi} never held then or after",
                        Number(since)
                    ),
                    format!("make {psi} true at or after the time {phi} holds"),
                )
            }
            (_, Reason::Never) => {
                ex.explain(&rule.phi, &mut b.clone());
                (
                    format!("{phi} never held during the plan"),
                    format!("make {phi} true at some point of the plan"),
                )
            }
            (op, _) => {
                // `(not (and p q))` false: what holds (p and q) says more than the whole.
                match &rule.phi {
                    Cond::Not(inner, _) if !matches!(**inner, Cond::Atom(_) | Cond::Eq(..)) => {
                        held = true;
                        ex.support(inner, &mut b.clone());
                    }
                    phi => ex.explain(phi, &mut b.clone()),
                }
                let advice = match op {
                    ConstraintOp::HoldDuring => format!(
                        "keep {phi} true from time {} until before time {}",
                        Number(rule.times[0]),
                        Number(rule.times[1])
                    ),
                    ConstraintOp::HoldAfter => format!(
                        "keep {phi} true in every state after time {}",
                        Number(rule.times[0])
                    ),
                    ConstraintOp::AtEnd => format!("make {phi} true at the end of the plan"),
                    _ => format!("keep {phi} true in every state, the initial one included"),
                };
                (format!("{phi} is false {at}"), advice)
            }
        };
        let preference = match c.groups[inst.group as usize] {
            Strength::Soft(Some(n)) => Some(c.preferences[n as usize].to_string()),
            _ => None,
        };
        ConstraintViolation {
            operator: rule.op,
            constraint: self.constraint_text(broken.instance),
            preference,
            state: broken.state,
            time: broken.time,
            timed: self.is_temporal(),
            reason,
            unmet: if held { Vec::new() } else { ex.out.clone() },
            held: if held { ex.out } else { Vec::new() },
            advice,
            source: rule.source,
        }
    }

    /// The preferences' outcomes of a run that reached the end, with the soft violations
    /// it found (explained against `state`, the final state, when found at the end).
    pub(crate) fn preference_outcomes(
        &self,
        tracker: &Tracker,
        soft: Vec<ConstraintViolation>,
    ) -> Vec<PreferenceOutcome> {
        let c = &self.constraints;
        let mut outcomes: Vec<PreferenceOutcome> = tracker
            .violated_counts(c)
            .into_iter()
            .map(|(name, instances, violated)| PreferenceOutcome {
                name: name.map(|n| c.preferences[n as usize].to_string()),
                instances,
                violated,
                violations: Vec::new(),
            })
            .collect();
        for v in soft {
            if let Some(o) = outcomes.iter_mut().find(|o| o.name == v.preference) {
                o.violations.push(v);
            }
        }
        outcomes
    }

    /// The metric with `(is-violated NAME)` read from the run's counts.
    pub(crate) fn metric_with_counts(
        &self,
        expr: &crate::task::NumExpr,
        tracker: &Tracker,
    ) -> crate::task::NumExpr {
        use crate::task::NumExpr;
        let counts = tracker.violated_counts(&self.constraints);
        fn fill(e: &NumExpr, counts: &[(Option<u32>, usize, usize)]) -> NumExpr {
            match e {
                NumExpr::IsViolated(p) => NumExpr::Const(
                    counts
                        .iter()
                        .find(|c| c.0 == Some(*p))
                        .map_or(0.0, |c| c.2 as f64),
                ),
                NumExpr::Arith(op, args) => {
                    NumExpr::Arith(*op, args.iter().map(|a| fill(a, counts)).collect())
                }
                other => other.clone(),
            }
        }
        fill(expr, &counts)
    }
}
