//! Fact landmarks and the landmark-count heuristic of LAMA (Richter & Westphal 2010).
//!
//! A *landmark* is an atom every plan makes true at some point. They are found once, from
//! the initial state, on the delete relaxation by Zhu and Givan's label propagation: an
//! atom's label is the set of atoms every relaxed path to it passes through,
//!
//! `label(q) = {q} ∪ ⋂ over the relaxed actions a adding q of ⋃ over a's preconditions p of label(p)`,
//!
//! computed to a fixpoint; the goal's landmarks are the union of its atoms' labels. Every
//! real plan is a plan of the relaxation (the relaxation keeps each action's required atoms,
//! plus its effect group's condition, and drops the rest), so these are landmarks of the
//! real task too, with its rules and its safety bound included (they only forbid plans).
//!
//! Two orders are kept. An atom of `label(q)` comes before `q` (a natural order); `p` is
//! *necessarily* before `q` when `p` is a precondition of every relaxed action that adds
//! `q`, so `p` holds the step before `q` first does. Necessary orders decide when a
//! landmark already reached is *required again*.
//!
//! The heuristic follows a path: a landmark is *accepted* once it has been true (the
//! accepted set is stored with each state, from the first path that reached it). Its value
//! is the landmarks not accepted plus the accepted ones required again: false now, and a
//! goal atom or necessarily before a landmark not yet accepted. It is not admissible and is
//! meant for greedy search, beside h_FF (`crate::lama`).

use crate::eval::set;
use crate::ground::GroundTask;
use crate::heuristic::BUILD_STOP_EVERY;
use crate::obligations::Obligations;
use crate::relaxed::{RelaxedActions, RelaxedAtoms};
use crate::rows::Rows;

const NONE: u32 = u32::MAX;

/// How many relaxed actions label propagation merges between two looks at the stop flag.
const LABEL_STOP_EVERY: usize = 64;

/// The goal's fact landmarks of a grounded task, with their orders.
pub(crate) struct Landmarks {
    /// The relaxation's atoms (an atom required false has a negated atom of its own, so
    /// "this atom false" can be a landmark too: snake's goal is all such).
    relaxed: RelaxedAtoms,
    /// The landmark atoms (relaxed atoms).
    atoms: Vec<u32>,
    /// Per atom: its landmark number, or `NONE`.
    number: Vec<u32>,
    /// Per landmark: whether it is a goal atom.
    goal: Vec<bool>,
    /// Per landmark: the landmarks it is necessarily before.
    necessary_for: Vec<Vec<u32>>,
    /// Words of one accepted set.
    words: usize,
    /// What the rules owe, when the search keeps them ([`Landmarks::keep_rules`]): each item
    /// owed and unmet counts as a landmark not yet reached (a disjunctive one, as LAMA's
    /// are).
    obligations: Option<Obligations>,
    /// The items owed in the state being valued (reused, not allocated per state).
    owed: Vec<u32>,
}

/// `a ∪ b` of sorted sets, into `out`.
fn union_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// `label ∩ (via ∪ {q})` of sorted sets, in place; whether it changed.
fn intersect_keeping(label: &mut Vec<u32>, via: &[u32], q: u32) -> bool {
    let before = label.len();
    label.retain(|x| *x == q || via.binary_search(x).is_ok());
    label.len() != before
}

impl Landmarks {
    /// The landmarks of `task`'s goal from its initial state. When the relaxation cannot
    /// reach the goal there are none (h_FF proves the dead end). `None` when `stop` said to
    /// stop (asked every [`BUILD_STOP_EVERY`] actions read).
    pub fn new_unless(task: &GroundTask, stop: &dyn Fn() -> bool) -> Option<Landmarks> {
        let relaxed = RelaxedAtoms::new_unless(task, stop)?;
        let n = relaxed.len();
        let RelaxedActions { pres, adds, .. } = relaxed.actions_unless(task, stop)?;
        let mut init_bits = vec![0u64; task.atoms.len().div_ceil(64).max(1)];
        for &a in &task.init {
            set(&mut init_bits, a, true);
        }
        let mut label: Vec<Option<Vec<u32>>> = vec![None; n];
        relaxed.each_true(&init_bits, |a| label[a as usize] = Some(vec![a]));
        let goal_atoms = relaxed.goal(task);
        // Label propagation to a fixpoint. Labels only shrink once set, so it terminates;
        // a few passes suffice in practice.
        let mut via = Vec::new();
        let mut scratch = Vec::new();
        loop {
            let mut changed = false;
            for r in 0..pres.len() {
                // A pass merges labels of up to every atom per action, far more work per
                // action than reading it: ask more often.
                if r.is_multiple_of(LABEL_STOP_EVERY) && stop() {
                    return None;
                }
                let (pre, adds) = (pres.row(r), adds.row(r));
                if pre.iter().any(|&p| label[p as usize].is_none()) {
                    continue;
                }
                via.clear();
                for &p in pre {
                    if let Some(l) = &label[p as usize] {
                        union_into(&via, l, &mut scratch);
                        std::mem::swap(&mut via, &mut scratch);
                    }
                }
                for &q in adds {
                    match &mut label[q as usize] {
                        slot @ None => {
                            let mut l = via.clone();
                            if let Err(at) = l.binary_search(&q) {
                                l.insert(at, q);
                            }
                            *slot = Some(l);
                            changed = true;
                        }
                        Some(l) => changed |= intersect_keeping(l, &via, q),
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut atoms: Vec<u32> = Vec::new();
        let reachable = goal_atoms.iter().all(|&g| label[g as usize].is_some());
        if reachable {
            for &g in &goal_atoms {
                if let Some(l) = &label[g as usize] {
                    atoms.extend_from_slice(l);
                }
            }
        }
        atoms.sort_unstable();
        atoms.dedup();
        let mut number = vec![NONE; n];
        for (i, &a) in atoms.iter().enumerate() {
            number[a as usize] = i as u32;
        }
        let goal = atoms
            .iter()
            .map(|a| goal_atoms.binary_search(a).is_ok())
            .collect();
        // Necessary orders: p before q when every reachable relaxed action adding q needs p.
        let mut common: Vec<Option<Vec<u32>>> = vec![None; atoms.len()];
        for r in 0..pres.len() {
            if r.is_multiple_of(BUILD_STOP_EVERY) && stop() {
                return None;
            }
            let (pre, adds) = (pres.row(r), adds.row(r));
            if pre.iter().any(|&p| label[p as usize].is_none()) {
                continue;
            }
            for &q in adds {
                let lq = number[q as usize];
                if lq == NONE {
                    continue;
                }
                match &mut common[lq as usize] {
                    slot @ None => *slot = Some(pre.to_vec()),
                    Some(c) => c.retain(|x| pre.binary_search(x).is_ok()),
                }
            }
        }
        let mut necessary_for = vec![Vec::new(); atoms.len()];
        let initially: Vec<bool> = atoms
            .iter()
            .map(|&a| relaxed.holds(&init_bits, a))
            .collect();
        for (lq, c) in common.iter().enumerate() {
            if initially[lq] {
                continue;
            }
            for &p in c.iter().flatten() {
                let lp = number[p as usize];
                if lp != NONE && lp as usize != lq {
                    necessary_for[lp as usize].push(lq as u32);
                }
            }
        }
        let words = atoms.len().div_ceil(64).max(1);
        Some(Landmarks {
            relaxed,
            atoms,
            number,
            goal,
            necessary_for,
            words,
            obligations: None,
            owed: Vec::new(),
        })
    }

    /// Count what `task`'s hard constraints still owe in a state (`crate::obligations`), for
    /// a search that keeps them.
    pub fn keep_rules(&mut self, task: &GroundTask) {
        self.obligations = Obligations::new(task, &self.relaxed);
    }

    /// The landmarks of `task`'s goal, found to the end.
    #[cfg(test)]
    pub fn new(task: &GroundTask) -> Landmarks {
        Landmarks::new_unless(task, &|| false).expect("never asked to stop")
    }

    /// Words of one accepted set.
    pub fn words(&self) -> usize {
        self.words
    }

    /// The accepted set of a state reached from a state with accepted set `before` (the
    /// initial state: all zeros): `before` plus every landmark true in `s`, into `out`.
    pub fn advance(&self, before: &[u64], s: &[u64], out: &mut Vec<u64>) {
        out.clear();
        out.extend_from_slice(before);
        for (i, &a) in self.atoms.iter().enumerate() {
            if self.relaxed.holds(s, a) {
                out[i / 64] |= 1u64 << (i % 64);
            }
        }
    }

    /// Whether landmark `i` is in `accepted`.
    fn accepted(accepted: &[u64], i: usize) -> bool {
        accepted[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Whether an accepted landmark is required again in `s`: false now, and a goal atom or
    /// necessarily before a landmark not yet accepted.
    fn required_again(&self, accepted: &[u64], s: &[u64], i: usize) -> bool {
        !self.relaxed.holds(s, self.atoms[i])
            && (self.goal[i]
                || self.necessary_for[i]
                    .iter()
                    .any(|&j| !Landmarks::accepted(accepted, j as usize)))
    }

    /// The landmark count of state `s` with accepted set `accepted`.
    pub fn value(&mut self, accepted: &[u64], s: &[u64]) -> u32 {
        let mut h = 0;
        for i in 0..self.atoms.len() {
            if !Landmarks::accepted(accepted, i) || self.required_again(accepted, s, i) {
                h += 1;
            }
        }
        if let Some(ob) = &self.obligations {
            ob.owed(s, &self.relaxed, &mut self.owed);
            h += ob.unmet(s, &self.owed, &self.relaxed);
        }
        h
    }

    /// Per action: the relaxed atoms it adds whatever the state (its unconditional effects'
    /// adds, and the negated atoms of their deletes), for [`Landmarks::achieves_wanted`];
    /// `None` when `stop` said to stop.
    pub fn unconditional_adds(&self, task: &GroundTask, stop: &dyn Fn() -> bool) -> Option<Rows> {
        let mut rows = Rows::new();
        let mut out = Vec::new();
        for (o, op) in task.ops.iter().enumerate() {
            if o.is_multiple_of(BUILD_STOP_EVERY) && stop() {
                return None;
            }
            out.clear();
            for e in &op.effects {
                if e.cond.pos.is_empty() && e.cond.neg.is_empty() && e.cond.rest.is_none() {
                    self.relaxed.added(&e.adds, &e.dels, &mut out);
                }
            }
            rows.push_row(&out);
        }
        Some(rows)
    }

    /// Whether an action adding `adds` in state `s` (accepted set `accepted`) makes true a
    /// landmark that is still wanted (not accepted, or required again): LAMA's preferred
    /// operators for the landmark heuristic.
    pub fn achieves_wanted(&self, accepted: &[u64], s: &[u64], adds: &[u32]) -> bool {
        adds.iter().any(|&a| {
            let i = self.number.get(a as usize).copied().unwrap_or(NONE);
            i != NONE
                && !self.relaxed.holds(s, a)
                && (!Landmarks::accepted(accepted, i as usize)
                    || self.required_again(accepted, s, i as usize))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GroundOptions;
    use crate::eval::{Layout, set};
    use safeplan_pddl::{parse_domain, parse_problem};
    use safeplan_validate::Task;

    /// The goal `g` is reached through `p` or through `r`, both made from `x`: `x` and `g` are
    /// landmarks, `p` and `r` are not (either will do). Computed by hand.
    #[test]
    fn landmarks_are_the_atoms_every_relaxed_path_passes() {
        let d = parse_domain(
            "(define (domain d) (:predicates (x) (p) (r) (g))
               (:action mx :parameters () :precondition (and) :effect (x))
               (:action mp :parameters () :precondition (x) :effect (p))
               (:action mr :parameters () :precondition (x) :effect (r))
               (:action gp :parameters () :precondition (p) :effect (g))
               (:action gr :parameters () :precondition (r) :effect (g)))",
        )
        .value
        .unwrap();
        let p = parse_problem("(define (problem q) (:domain d) (:init) (:goal (g)))")
            .value
            .unwrap();
        let task =
            GroundTask::ground(&Task::compile(&d, &p).unwrap(), &GroundOptions::default()).unwrap();
        let mut lm = Landmarks::new(&task);
        assert_eq!(lm.atoms.len(), 2);
        let s = vec![0u64; Layout::new(&task).bits.max(1)];
        let none = vec![0u64; lm.words()];
        assert_eq!(lm.value(&none, &s), 2);
        // After `x`, one landmark is left; `x` is not required again (it is no goal and is
        // necessary for nothing: `g` has two achievers, neither needs `x` directly).
        let mut with_x = s.clone();
        let mut accepted = Vec::new();
        // The landmark that is not the goal is `x`.
        let x_atom = lm
            .atoms
            .iter()
            .copied()
            .find(|&a| task.goal.pos.binary_search(&a).is_err())
            .unwrap();
        set(&mut with_x, x_atom, true);
        lm.advance(&none, &with_x, &mut accepted);
        assert_eq!(lm.value(&accepted, &with_x), 1);
        // Once `x` is false again it is not required again.
        assert_eq!(lm.value(&accepted, &s), 1);
    }
}
