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

use crate::eval::test;
use crate::ground::GroundTask;

const NONE: u32 = u32::MAX;

/// The goal's fact landmarks of a grounded task, with their orders.
pub(crate) struct Landmarks {
    /// The landmark atoms.
    atoms: Vec<u32>,
    /// Per landmark: whether it is a goal atom.
    goal: Vec<bool>,
    /// Per landmark: the landmarks it is necessarily before.
    necessary_for: Vec<Vec<u32>>,
    /// Words of one accepted set.
    words: usize,
}

/// The relaxed actions: one per effect group that adds atoms, its required atoms being the
/// action's and the group's.
fn relaxed_actions(task: &GroundTask) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut out = Vec::new();
    for op in &task.ops {
        for e in &op.effects {
            if e.adds.is_empty() {
                continue;
            }
            let mut pre: Vec<u32> = op.pre.pos.iter().chain(&e.cond.pos).copied().collect();
            pre.sort_unstable();
            pre.dedup();
            let mut adds = e.adds.clone();
            adds.sort_unstable();
            adds.dedup();
            out.push((pre, adds));
        }
    }
    out
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
    /// reach the goal there are none (h_FF proves the dead end).
    pub fn new(task: &GroundTask) -> Landmarks {
        let n = task.atoms.len();
        let actions = relaxed_actions(task);
        let mut label: Vec<Option<Vec<u32>>> = vec![None; n];
        for &a in &task.init {
            label[a as usize] = Some(vec![a]);
        }
        // Label propagation to a fixpoint. Labels only shrink once set, so it terminates;
        // a few passes suffice in practice.
        let mut via = Vec::new();
        let mut scratch = Vec::new();
        loop {
            let mut changed = false;
            for (pre, adds) in &actions {
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
        let reachable = task.goal.pos.iter().all(|&g| label[g as usize].is_some());
        if reachable {
            for &g in &task.goal.pos {
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
            .map(|a| task.goal.pos.binary_search(a).is_ok())
            .collect();
        // Necessary orders: p before q when every reachable relaxed action adding q needs p.
        let mut common: Vec<Option<Vec<u32>>> = vec![None; atoms.len()];
        for (pre, adds) in &actions {
            if pre.iter().any(|&p| label[p as usize].is_none()) {
                continue;
            }
            for &q in adds {
                let lq = number[q as usize];
                if lq == NONE {
                    continue;
                }
                match &mut common[lq as usize] {
                    slot @ None => *slot = Some(pre.clone()),
                    Some(c) => c.retain(|x| pre.binary_search(x).is_ok()),
                }
            }
        }
        let mut necessary_for = vec![Vec::new(); atoms.len()];
        let initially: Vec<bool> = atoms
            .iter()
            .map(|&a| task.init.binary_search(&a).is_ok() || task.init.contains(&a))
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
        Landmarks {
            atoms,
            goal,
            necessary_for,
            words,
        }
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
            if test(s, a) {
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
        !test(s, self.atoms[i])
            && (self.goal[i]
                || self.necessary_for[i]
                    .iter()
                    .any(|&j| !Landmarks::accepted(accepted, j as usize)))
    }

    /// The landmark count of state `s` with accepted set `accepted`.
    pub fn value(&self, accepted: &[u64], s: &[u64]) -> u32 {
        let mut h = 0;
        for i in 0..self.atoms.len() {
            if !Landmarks::accepted(accepted, i) || self.required_again(accepted, s, i) {
                h += 1;
            }
        }
        h
    }

    /// Whether the step from `s` (accepted set `accepted`) to `next` makes true a landmark
    /// that is still wanted (not accepted, or required again): LAMA's preferred operators
    /// for the landmark heuristic.
    pub fn achieves_wanted(&self, accepted: &[u64], s: &[u64], next: &[u64]) -> bool {
        (0..self.atoms.len()).any(|i| {
            let a = self.atoms[i];
            test(next, a)
                && !test(s, a)
                && (!Landmarks::accepted(accepted, i) || self.required_again(accepted, s, i))
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
        let lm = Landmarks::new(&task);
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
