//! Hard trajectory constraints (PDDL3) compiled into the search: the product of the task's
//! states with one small automaton per constraint instance, as the standard compilations of
//! PDDL3 into classical planning do (Gerevini & Long's automata; Baier & McIlraith), but
//! kept as state words instead of new fluents and actions.
//!
//! Each ground instance keeps one word in the packed state: its phase (what the validator's
//! `Tracker` calls open, holding, stopped, pending, kept) and, for a triggered
//! `always-within`, how many steps ago it was triggered. A step whose next state would break
//! an instance is not generated; a state is a goal only if the task's goal holds **and**
//! every instance accepts the plan ending there (`sometime` met, nothing owed, `at end`
//! true). Sequential plans happen at times 1, 2, 3, … (SEMANTICS.md, "The trajectory"), so a
//! state's time is its depth; when a rule reads absolute times (`within`, `hold-during`,
//! `hold-after`), the time is part of the state too, capped just past the last time written,
//! after which every such rule behaves the same forever. So the product is finite and an
//! exhausted search proves that no plan keeps the rules.
//!
//! An *unsafe* search ([`RuleMode::Break`]) wants the opposite: a plan that breaks a rule
//! (or raises danger past its bound). There a break is not pruned: it sets a sticky flag
//! word (and clears the automata, which no longer matter), and a goal state is one where
//! the flag is set or the plan would end owing something.
//!
//! The operators' semantics are the validator's, operator by operator
//! (`safeplan_validate::constraints`); a property test checks every plan the search returns
//! on random constrained tasks with the validator.

use safeplan_pddl::ast::ConstraintOp;

use crate::eval::{self, Layout};
use crate::ground::GCond;

/// The most hard constraint instances the planner compiles (one state word each).
pub const MAX_PLANNED_INSTANCES: usize = 4096;

const OPEN: u64 = 0;
const HOLDING: u64 = 1;
const STOPPED: u64 = 2;
const PENDING: u64 = 3;
const KEPT: u64 = 4;
const PHASE: u64 = 0xff;

/// One ground instance, its conditions compiled against the reachable atoms.
#[derive(Clone, Debug)]
pub(crate) struct GroundRule {
    pub op: ConstraintOp,
    pub phi: GCond,
    pub psi: Option<GCond>,
    pub times: [f64; 2],
}

/// What a search does with the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuleMode {
    /// Keep every rule: a step that breaks one is not taken (plans, safe plans).
    Keep,
    /// Look for a plan that breaks one (unsafe plans).
    Break,
}

/// The task's hard constraint instances.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    pub rules: Vec<GroundRule>,
    /// Whether a rule reads absolute times: the state then keeps its (capped) time.
    timed: bool,
    /// The time kept in the state never exceeds this.
    cap: u64,
}

impl Rules {
    pub fn new(rules: Vec<GroundRule>) -> Rules {
        let absolute = |r: &GroundRule| match r.op {
            ConstraintOp::Within | ConstraintOp::HoldAfter => Some(r.times[0]),
            ConstraintOp::HoldDuring => Some(r.times[1]),
            _ => None,
        };
        let last = rules
            .iter()
            .filter_map(absolute)
            .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))));
        Rules {
            timed: last.is_some(),
            // Past floor(T) + 1 every absolute time is behind: `within` kept or broken,
            // `hold-during` over, `hold-after` in force for good.
            cap: last.map_or(0, |t| (t.max(0.0).floor() as u64).saturating_add(1)),
            rules,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// State words the rules add: one per instance, the time when kept, the broken flag.
    pub fn words(&self) -> usize {
        if self.rules.is_empty() {
            return 0;
        }
        self.rules.len() + usize::from(self.timed) + 1
    }

    fn flag(&self, layout: Layout) -> usize {
        layout.rules + self.rules.len() + usize::from(self.timed)
    }

    /// Whether a rule broke earlier in an unsafe search.
    pub fn broken(&self, s: &[u64], layout: Layout) -> bool {
        !self.rules.is_empty() && s[self.flag(layout)] != 0
    }

    /// [`Rules::observe`] as `mode` reads it: `false` when the state must be pruned. In
    /// [`RuleMode::Break`] a break is never pruned: it sets the flag for good and clears the
    /// automata, so that every state past a break is one state per world state.
    pub fn step(&self, mode: RuleMode, s: &mut [u64], layout: Layout, t: u64, slack: f64) -> bool {
        if self.rules.is_empty() || self.broken(s, layout) {
            return true;
        }
        let kept = self.observe(s, layout, t, slack);
        if kept || mode == RuleMode::Keep {
            return kept;
        }
        let flag = self.flag(layout);
        s[layout.rules..flag].fill(0);
        s[flag] = 1;
        true
    }

    /// Feed the state `s` (reached at time `t`) to every instance, updating their words in
    /// `s`; `false` when one breaks (or cannot be evaluated, as the validator fails then).
    pub fn observe(&self, s: &mut [u64], layout: Layout, t: u64, slack: f64) -> bool {
        if self.rules.is_empty() {
            return true;
        }
        let base = layout.rules;
        if self.timed {
            s[base + self.rules.len()] = t.min(self.cap);
        }
        let time = t as f64;
        for (i, r) in self.rules.iter().enumerate() {
            let word = s[base + i];
            let (phase, age) = (word & PHASE, word >> 8);
            if phase == KEPT {
                continue;
            }
            let holds = |c: &GCond, s: &[u64]| eval::holds(c, s, layout, slack);
            let psi = r.psi.as_ref().unwrap_or(&GCond::True);
            let mut next = (phase, age);
            macro_rules! check {
                ($c:expr) => {
                    match holds($c, s) {
                        Some(v) => v,
                        None => return false,
                    }
                };
            }
            match r.op {
                ConstraintOp::AtEnd => {}
                ConstraintOp::Always => {
                    if !check!(&r.phi) {
                        return false;
                    }
                }
                ConstraintOp::Sometime => {
                    if check!(&r.phi) {
                        next.0 = KEPT;
                    }
                }
                ConstraintOp::Within => {
                    if time > r.times[0] {
                        return false;
                    }
                    if check!(&r.phi) {
                        next.0 = KEPT;
                    }
                }
                ConstraintOp::AtMostOnce => {
                    let now = check!(&r.phi);
                    match (phase, now) {
                        (OPEN, true) => next.0 = HOLDING,
                        (HOLDING, false) => next.0 = STOPPED,
                        (STOPPED, true) => return false,
                        _ => {}
                    }
                }
                ConstraintOp::SometimeAfter => {
                    if check!(psi) {
                        next.0 = OPEN;
                    } else if phase != PENDING && check!(&r.phi) {
                        next.0 = PENDING;
                    }
                }
                ConstraintOp::SometimeBefore => {
                    if check!(&r.phi) {
                        return false;
                    }
                    if check!(psi) {
                        next.0 = KEPT;
                    }
                }
                ConstraintOp::AlwaysWithin => {
                    // The validator's deadline is trigger time + w; here the age since the
                    // trigger, so that equal futures have equal words.
                    if phase != PENDING && check!(&r.phi) {
                        next = (PENDING, 0);
                    } else if phase == PENDING {
                        next.1 = age + 1;
                    }
                    if next.0 == PENDING {
                        if next.1 as f64 > r.times[0] {
                            return false;
                        }
                        if check!(psi) {
                            next = (OPEN, 0);
                        }
                    }
                }
                ConstraintOp::HoldDuring => {
                    let [from, to] = r.times;
                    if time >= to {
                        next.0 = KEPT;
                    } else if time >= from && !check!(&r.phi) {
                        return false;
                    }
                }
                ConstraintOp::HoldAfter => {
                    if time > r.times[0] && !check!(&r.phi) {
                        return false;
                    }
                }
            }
            s[base + i] = next.0 | (next.1 << 8);
        }
        true
    }

    /// Whether a plan may end in `s` (observed already) as `mode` wants: keeping every rule
    /// (the end-of-plan judgements pass), or having broken one (the flag, or an end-of-plan
    /// judgement fails).
    pub fn accept_as(&self, mode: RuleMode, s: &[u64], layout: Layout, slack: f64) -> bool {
        match mode {
            RuleMode::Keep => self.accept(s, layout, slack),
            RuleMode::Break => self.broken(s, layout) || !self.accept(s, layout, slack),
        }
    }

    /// Whether a plan may end in `s` (observed already): the end-of-plan judgements.
    fn accept(&self, s: &[u64], layout: Layout, slack: f64) -> bool {
        let base = layout.rules;
        self.rules.iter().enumerate().all(|(i, r)| {
            let phase = s[base + i] & PHASE;
            match r.op {
                ConstraintOp::AtEnd => eval::holds(&r.phi, s, layout, slack) == Some(true),
                ConstraintOp::Sometime | ConstraintOp::Within => phase == KEPT,
                ConstraintOp::SometimeAfter | ConstraintOp::AlwaysWithin => phase != PENDING,
                _ => true,
            }
        })
    }
}
