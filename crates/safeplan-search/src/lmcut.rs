//! The LM-cut heuristic (Helmert & Domshlak 2009): an admissible estimate that dominates
//! h_max, for optimal A*.
//!
//! Repeat on the delete relaxation: compute h_max with the current action costs, each action
//! remembering its *supporter* (a precondition of greatest h_max); the *goal zone* is the
//! atoms from which the goal is reached through zero-cost actions via their supporters; the
//! *cut* is the actions whose supporter is reachable from the state without entering the
//! goal zone and that add an atom of it. Every relaxed plan uses an action of each cut, so
//! the cut's cheapest cost is added to the estimate and subtracted from every action in the
//! cut, until h_max of the goal is 0.
//!
//! Each ground action is one relaxed action whose preconditions are its required atoms and
//! whose adds are all its effects' adds, conditions dropped; an atom required false is a
//! negated atom, added by the actions that delete it (`crate::relaxed`). Dropping a condition or a
//! negative, disjunctive or numeric precondition only makes the relaxation easier, and one
//! relaxed action per ground action means an action's cost is counted once however many of
//! its effects a plan uses, so the estimate stays a lower bound on the plan length (every
//! action costs 1 here, as the planner's plans are measured in steps). Infinity is a proof
//! that the goal is unreachable from the state.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::ground::GroundTask;
use crate::heuristic::INFINITE;
use crate::relaxed::RelaxedAtoms;

const NONE: u32 = u32::MAX;

struct RelaxedOp {
    pre: Vec<u32>,
    adds: Vec<u32>,
    base: u32,
}

/// Where an atom stands in one round of the cut computation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Zone {
    Unseen,
    BeforeGoal,
    Goal,
}

/// LM-cut for one grounded task, with the buffers its rounds reuse.
pub(crate) struct LmCut {
    relaxed: RelaxedAtoms,
    /// The relaxed atoms true in the state being evaluated.
    true_now: Vec<u32>,
    ops: Vec<RelaxedOp>,
    /// Per atom: the relaxed actions it is a precondition of.
    pre_of: Vec<Vec<u32>>,
    /// Per atom: the relaxed actions that add it.
    added_by: Vec<Vec<u32>>,
    /// The atom every state has (a precondition of actions with none), and the goal atom
    /// added by the goal action.
    truth: u32,
    goal: u32,
    cost: Vec<u32>,
    hmax: Vec<u32>,
    supporter: Vec<u32>,
    op_value: Vec<u32>,
    unsat: Vec<u32>,
    zone: Vec<Zone>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    stack: Vec<u32>,
    cut: Vec<u32>,
}

impl LmCut {
    pub fn new(task: &GroundTask) -> LmCut {
        let relaxed = RelaxedAtoms::new(task);
        let n = relaxed.len() as u32;
        let (truth, goal) = (n, n + 1);
        let atoms = n as usize + 2;
        let mut ops = Vec::new();
        for op in &task.ops {
            let mut adds = Vec::new();
            for e in &op.effects {
                relaxed.added(&e.adds, &e.dels, &mut adds);
            }
            adds.sort_unstable();
            adds.dedup();
            if adds.is_empty() {
                continue;
            }
            let mut pre = Vec::new();
            relaxed.required(&op.pre, &mut pre);
            pre.sort_unstable();
            pre.dedup();
            if pre.is_empty() {
                pre.push(truth);
            }
            ops.push(RelaxedOp { pre, adds, base: 1 });
        }
        let mut goal_pre = relaxed.goal(task);
        if goal_pre.is_empty() {
            goal_pre.push(truth);
        }
        ops.push(RelaxedOp {
            pre: goal_pre,
            adds: vec![goal],
            base: 0,
        });
        let mut pre_of = vec![Vec::new(); atoms];
        let mut added_by = vec![Vec::new(); atoms];
        for (i, op) in ops.iter().enumerate() {
            for &p in &op.pre {
                pre_of[p as usize].push(i as u32);
            }
            for &a in &op.adds {
                added_by[a as usize].push(i as u32);
            }
        }
        let m = ops.len();
        LmCut {
            relaxed,
            true_now: Vec::new(),
            ops,
            pre_of,
            added_by,
            truth,
            goal,
            cost: vec![0; m],
            hmax: vec![INFINITE; atoms],
            supporter: vec![NONE; m],
            op_value: vec![INFINITE; m],
            unsat: vec![0; m],
            zone: vec![Zone::Unseen; atoms],
            heap: BinaryHeap::new(),
            stack: Vec::new(),
            cut: Vec::new(),
        }
    }

    fn reach(&mut self, atom: u32, value: u32) {
        if value < self.hmax[atom as usize] {
            self.hmax[atom as usize] = value;
            self.heap.push(Reverse((value, atom)));
        }
    }

    /// h_max of every atom from the atoms of `s` under the current costs, with each
    /// action's supporter.
    fn compute_hmax(&mut self, s: &[u64]) {
        self.hmax.fill(INFINITE);
        self.op_value.fill(INFINITE);
        self.supporter.fill(NONE);
        for (i, op) in self.ops.iter().enumerate() {
            self.unsat[i] = op.pre.len() as u32;
        }
        self.heap.clear();
        let mut true_now = std::mem::take(&mut self.true_now);
        true_now.clear();
        self.relaxed.each_true(s, |a| true_now.push(a));
        for &atom in &true_now {
            self.reach(atom, 0);
        }
        self.true_now = true_now;
        self.reach(self.truth, 0);
        while let Some(Reverse((value, atom))) = self.heap.pop() {
            if value != self.hmax[atom as usize] {
                continue;
            }
            for k in 0..self.pre_of[atom as usize].len() {
                let o = self.pre_of[atom as usize][k] as usize;
                self.unsat[o] -= 1;
                if self.unsat[o] == 0 {
                    // Atoms leave the heap in increasing h_max order: the last precondition
                    // reached is one of greatest h_max.
                    self.supporter[o] = atom;
                    self.op_value[o] = value;
                    let to = value.saturating_add(self.cost[o]);
                    for j in 0..self.ops[o].adds.len() {
                        let a = self.ops[o].adds[j];
                        self.reach(a, to);
                    }
                }
            }
        }
    }

    /// The LM-cut estimate of state `s` (its atom bits), `INFINITE` for a proven dead end.
    #[cfg(test)]
    pub fn evaluate(&mut self, s: &[u64]) -> u32 {
        self.evaluate_unless(s, &|| false).unwrap_or(INFINITE)
    }

    /// As `evaluate`, asking `stop` before each round (one relaxed exploration each);
    /// `None` when it said to stop.
    pub fn evaluate_unless(&mut self, s: &[u64], stop: &dyn Fn() -> bool) -> Option<u32> {
        for (c, op) in self.cost.iter_mut().zip(&self.ops) {
            *c = op.base;
        }
        self.compute_hmax(s);
        if self.hmax[self.goal as usize] == INFINITE {
            return Some(INFINITE);
        }
        let mut h = 0u32;
        while self.hmax[self.goal as usize] > 0 {
            if stop() {
                return None;
            }
            // The goal zone: back from the goal through zero-cost actions' supporters.
            self.zone.fill(Zone::Unseen);
            self.stack.clear();
            self.stack.push(self.goal);
            self.zone[self.goal as usize] = Zone::Goal;
            while let Some(atom) = self.stack.pop() {
                for &o in &self.added_by[atom as usize] {
                    let o = o as usize;
                    let sup = self.supporter[o];
                    if self.cost[o] == 0 && sup != NONE && self.zone[sup as usize] == Zone::Unseen {
                        self.zone[sup as usize] = Zone::Goal;
                        self.stack.push(sup);
                    }
                }
            }
            // The cut: forward from the state without entering the goal zone.
            self.cut.clear();
            self.stack.clear();
            // `true_now` still holds the state's atoms (from `compute_hmax`).
            for k in 0..=self.true_now.len() {
                let atom = self.true_now.get(k).copied().unwrap_or(self.truth);
                if self.zone[atom as usize] == Zone::Unseen {
                    self.zone[atom as usize] = Zone::BeforeGoal;
                    self.stack.push(atom);
                }
            }
            while let Some(atom) = self.stack.pop() {
                for &o in &self.pre_of[atom as usize] {
                    if self.supporter[o as usize] != atom {
                        continue;
                    }
                    let op = &self.ops[o as usize];
                    if op.adds.iter().any(|&a| self.zone[a as usize] == Zone::Goal) {
                        self.cut.push(o);
                        continue;
                    }
                    for &a in &op.adds {
                        if self.zone[a as usize] == Zone::Unseen {
                            self.zone[a as usize] = Zone::BeforeGoal;
                            self.stack.push(a);
                        }
                    }
                }
            }
            self.cut.sort_unstable();
            self.cut.dedup();
            let Some(m) = self.cut.iter().map(|&o| self.cost[o as usize]).min() else {
                // Cannot happen while the goal's h_max is positive and finite; stop with
                // the bound found so far rather than loop.
                break;
            };
            if m == 0 {
                break;
            }
            h = h.saturating_add(m);
            for &o in &self.cut {
                self.cost[o as usize] -= m;
            }
            self.compute_hmax(s);
        }
        Some(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Layout;
    use crate::heuristic::{Heuristic, Relaxation};
    use crate::testing::{ground, initial};

    /// Two goal atoms made by two independent actions: h_max is 1 (each atom alone costs
    /// one step), LM-cut is 2 (two disjoint cuts), and 2 is the true plan length. A chain
    /// of three steps before them adds three more to both. Computed by hand.
    #[test]
    fn lmcut_counts_disjoint_cuts_where_hmax_takes_the_largest() {
        let task = ground(
            "(define (domain d) (:predicates (a) (b) (c) (g1) (g2))
               (:action one :parameters () :precondition (and) :effect (a))
               (:action two :parameters () :precondition (a) :effect (b))
               (:action three :parameters () :precondition (b) :effect (c))
               (:action left :parameters () :precondition (c) :effect (g1))
               (:action right :parameters () :precondition (c) :effect (g2)))",
            "(define (problem p) (:domain d) (:init) (:goal (and (g1) (g2))))",
        );
        let s = initial(&task);
        assert_eq!(LmCut::new(&task).evaluate(&s), 5);
        assert_eq!(Heuristic::new(&task, Relaxation::Max).evaluate(&s), 4);
    }

    /// A state from which the relaxation cannot reach the goal is a proven dead end: the
    /// goal needs `a`, which only the initial state has.
    #[test]
    fn lmcut_is_infinite_when_the_relaxation_cannot_reach_the_goal() {
        let task = ground(
            "(define (domain d) (:predicates (a) (g))
               (:action waste :parameters () :precondition (a) :effect (not (a)))
               (:action make :parameters () :precondition (a) :effect (g)))",
            "(define (problem p) (:domain d) (:init (a)) (:goal (g)))",
        );
        let mut h = LmCut::new(&task);
        assert_eq!(h.evaluate(&initial(&task)), 1);
        assert_eq!(
            h.evaluate(&vec![0u64; Layout::new(&task).bits.max(1)]),
            INFINITE
        );
    }

    /// A goal that atoms be false (snake's whole goal) is seen by every relaxed estimate:
    /// two atoms to clear by two actions, so h_FF and LM-cut are 2 and h_max is 1 (before
    /// negated atoms, all three were 0 and the search was blind). Computed by hand.
    #[test]
    fn negative_goals_are_seen_by_every_relaxed_estimate() {
        let task = ground(
            "(define (domain d) (:requirements :negative-preconditions) (:predicates (p) (q))
               (:action clear-p :parameters () :precondition (and) :effect (not (p)))
               (:action clear-q :parameters () :precondition (and) :effect (not (q))))",
            "(define (problem x) (:domain d) (:init (p) (q)) (:goal (and (not (p)) (not (q)))))",
        );
        let s = initial(&task);
        assert_eq!(LmCut::new(&task).evaluate(&s), 2);
        assert_eq!(Heuristic::new(&task, Relaxation::Ff).evaluate(&s), 2);
        assert_eq!(Heuristic::new(&task, Relaxation::Max).evaluate(&s), 1);
        let none = vec![0u64; s.len()];
        assert_eq!(LmCut::new(&task).evaluate(&none), 0);
    }
}
