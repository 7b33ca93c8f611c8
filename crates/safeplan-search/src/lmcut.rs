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
//! its effects a plan uses, so the estimate stays a lower bound on the plan's cost in the
//! task's measure (every action costs 1 in steps; under action costs, its cost, 0
//! included). Infinity is a proof
//! that the goal is unreachable from the state.
//!
//! **What the rules owe.** In a search that keeps hard trajectory constraints, a state may
//! owe items (`crate::obligations`: a `sometime φ` not yet met, a pending `sometime-after`'s
//! ψ, ...), each a disjunction of conjunctions of relaxed atoms that some later state of every
//! plan must reach. Each item a state can owe gets an atom of its own, added at cost 0 by one
//! relaxed action per disjunct (whose preconditions are the disjunct's atoms), and the goal
//! action requires every such atom; an item the state does not owe is true from the start
//! (items no state can owe, such as an `always`'s, get nothing). The relaxed plan
//! of any real plan from the state still reaches every goal atom and one disjunct of every
//! item owed (atoms reached stay reached; numeric parts were dropped), so the estimate stays
//! a lower bound, and it dominates h_max with the same items (`crate::heuristic`). Without
//! the items, LM-cut was 0 once the packages were home on LEXICON's logistics (A* with it:
//! 112 of 163 problems at 10 s; with them 136, beside h_max's 137; benchmarks.md).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::ground::GroundTask;
use crate::heuristic::{BUILD_STOP_EVERY, INFINITE, Pace};
use crate::obligations::Obligations;
use crate::relaxed::RelaxedAtoms;
use crate::rows::Rows;

const NONE: u32 = u32::MAX;

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
    /// Per relaxed action: its preconditions, its adds and its cost before any cut.
    pres: Rows,
    adds: Rows,
    base: Vec<u32>,
    /// Per relaxed action: how many preconditions (what `unsat` starts from).
    pre_count: Vec<u32>,
    /// Per atom: the relaxed actions it is a precondition of.
    pre_of: Rows,
    /// Per atom: the relaxed actions that add it.
    added_by: Rows,
    /// The atom every state has (a precondition of actions with none), and the goal atom
    /// added by the goal action.
    truth: u32,
    goal: u32,
    /// In a search that keeps the rules: what they can owe, the atom of item 0 (item `k`'s
    /// is `items + k`), the items that can be owed at all (only those have an atom in use),
    /// and the items owed in the state being evaluated, also as marks.
    obligations: Option<Obligations>,
    items: u32,
    owable: Vec<u32>,
    owed: Vec<u32>,
    owed_mark: Vec<bool>,
    cost: Vec<u32>,
    hmax: Vec<u32>,
    supporter: Vec<u32>,
    /// Per relaxed action: h_max of its supporter (its preconditions' largest h_max).
    op_value: Vec<u32>,
    unsat: Vec<u32>,
    zone: Vec<Zone>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
    stack: Vec<u32>,
    cut: Vec<u32>,
}

impl LmCut {
    /// LM-cut for `task`, reading what its rules owe when `keep_rules` (a search that keeps
    /// them), or `None` when `stop` said to stop while it was built (asked every
    /// [`BUILD_STOP_EVERY`] actions).
    pub fn new_unless(
        task: &GroundTask,
        keep_rules: bool,
        stop: &dyn Fn() -> bool,
    ) -> Option<LmCut> {
        let relaxed = RelaxedAtoms::new_unless(task, stop)?;
        let n = relaxed.len() as u32;
        let (truth, goal, items) = (n, n + 1, n + 2);
        let obligations = keep_rules
            .then(|| Obligations::new(task, &relaxed))
            .flatten();
        let item_count = obligations.as_ref().map_or(0, Obligations::item_count);
        // An item no state can owe (`always`, ψ of a `sometime`, ...) would hold in every
        // state: it gets no action and no place in the goal, so no evaluation touches it.
        let owable: Vec<u32> = obligations.as_ref().map_or_else(Vec::new, |ob| {
            (0..item_count).filter(|&k| ob.can_owe(k)).collect()
        });
        let atoms = n as usize + 2 + item_count as usize;
        let (mut pres, mut adds, mut base) = (Rows::new(), Rows::new(), Vec::new());
        let (mut pre, mut add) = (Vec::new(), Vec::new());
        for (o, op) in task.ops.iter().enumerate() {
            if o.is_multiple_of(BUILD_STOP_EVERY) && stop() {
                return None;
            }
            add.clear();
            for e in &op.effects {
                relaxed.added(&e.adds, &e.dels, &mut add);
            }
            add.sort_unstable();
            add.dedup();
            if add.is_empty() {
                continue;
            }
            pre.clear();
            relaxed.required(&op.pre, &mut pre);
            pre.sort_unstable();
            pre.dedup();
            if pre.is_empty() {
                pre.push(truth);
            }
            pres.push_row(&pre);
            adds.push_row(&add);
            base.push(task.costs[o]);
        }
        // Each item's atom, added at cost 0 by one action per disjunct of its form (none:
        // the item can never be met, and a state that owes it is a dead end).
        if let Some(ob) = &obligations {
            for &k in &owable {
                for c in &ob.form(k).disjuncts {
                    let always = [truth];
                    pres.push_row(if c.is_empty() { &always } else { c });
                    adds.push_row(&[items + k]);
                    base.push(0);
                }
            }
        }
        let mut goal_pre = relaxed.goal(task);
        goal_pre.extend(owable.iter().map(|&k| items + k));
        if goal_pre.is_empty() {
            goal_pre.push(truth);
        }
        pres.push_row(&goal_pre);
        adds.push_row(&[goal]);
        base.push(0);
        let m = base.len();
        Some(LmCut {
            relaxed,
            true_now: Vec::new(),
            pre_of: pres.inverted_unless(atoms, stop)?,
            added_by: adds.inverted_unless(atoms, stop)?,
            pre_count: pres.lengths(),
            pres,
            adds,
            base,
            truth,
            goal,
            obligations,
            items,
            owed: Vec::new(),
            owable,
            owed_mark: vec![false; item_count as usize],
            cost: vec![0; m],
            hmax: vec![INFINITE; atoms],
            supporter: vec![NONE; m],
            op_value: vec![INFINITE; m],
            unsat: vec![0; m],
            zone: vec![Zone::Unseen; atoms],
            heap: BinaryHeap::new(),
            stack: Vec::new(),
            cut: Vec::new(),
        })
    }

    /// LM-cut for `task`, built to the end, its rules' obligations read.
    #[cfg(test)]
    pub fn new(task: &GroundTask) -> LmCut {
        LmCut::new_unless(task, true, &|| false).expect("never asked to stop")
    }

    fn reach(&mut self, atom: u32, value: u32) {
        if value < self.hmax[atom as usize] {
            self.hmax[atom as usize] = value;
            self.heap.push(Reverse((value, atom)));
        }
    }

    /// Push every add of action `o` at its value under the current costs.
    fn reach_adds(&mut self, o: usize) {
        let to = self.op_value[o].saturating_add(self.cost[o]);
        for j in 0..self.adds.row(o).len() {
            let a = self.adds.row(o)[j];
            self.reach(a, to);
        }
    }

    /// h_max of every atom from the atoms of `s` under the current costs, with each
    /// action's supporter; `false` when `stop` said to stop (asked as the exploration goes,
    /// [`Pace`]: one exploration of a large task takes milliseconds).
    fn compute_hmax(&mut self, s: &[u64], stop: &dyn Fn() -> bool) -> bool {
        self.hmax.fill(INFINITE);
        self.op_value.fill(INFINITE);
        self.supporter.fill(NONE);
        self.unsat.copy_from_slice(&self.pre_count);
        self.heap.clear();
        let mut true_now = std::mem::take(&mut self.true_now);
        true_now.clear();
        self.relaxed.each_true(s, |a| true_now.push(a));
        for &atom in &true_now {
            self.reach(atom, 0);
        }
        self.true_now = true_now;
        self.reach(self.truth, 0);
        // The items the state does not owe hold from the start; those it owes must be
        // reached through one of their disjuncts.
        if let Some(ob) = &self.obligations {
            ob.owed(s, &self.relaxed, &mut self.owed);
            self.owed_mark.fill(false);
            for &k in &self.owed {
                self.owed_mark[k as usize] = true;
            }
            for i in 0..self.owable.len() {
                let k = self.owable[i];
                if !self.owed_mark[k as usize] {
                    self.reach(self.items + k, 0);
                }
            }
        }
        let mut pace = Pace::default();
        while let Some(Reverse((value, atom))) = self.heap.pop() {
            if value != self.hmax[atom as usize] {
                continue;
            }
            if pace.stop_after(1 + self.pre_of.row(atom as usize).len(), stop) {
                return false;
            }
            for k in 0..self.pre_of.row(atom as usize).len() {
                let o = self.pre_of.row(atom as usize)[k] as usize;
                self.unsat[o] -= 1;
                if self.unsat[o] == 0 {
                    // Atoms leave the heap in increasing h_max order: the last precondition
                    // reached is one of greatest h_max.
                    self.supporter[o] = atom;
                    self.op_value[o] = value;
                    self.reach_adds(o);
                }
            }
        }
        true
    }

    /// h_max again after the actions of the last cut got cheaper, from the values before
    /// (Fast Downward's incremental exploration): costs only fall, so h_max only falls, and
    /// only downstream of the cut. Starting from the cut's adds, an atom whose value falls
    /// re-examines the actions it supports; an action whose largest precondition is now
    /// another one takes that one as supporter. Reachability does not change, so neither do
    /// the precondition counters. `false` when `stop` said to stop.
    fn update_hmax(&mut self, stop: &dyn Fn() -> bool) -> bool {
        self.heap.clear();
        for k in 0..self.cut.len() {
            let o = self.cut[k] as usize;
            self.reach_adds(o);
        }
        let mut pace = Pace::default();
        while let Some(Reverse((value, atom))) = self.heap.pop() {
            if value != self.hmax[atom as usize] {
                continue;
            }
            if pace.stop_after(1 + self.pre_of.row(atom as usize).len(), stop) {
                return false;
            }
            for k in 0..self.pre_of.row(atom as usize).len() {
                let o = self.pre_of.row(atom as usize)[k] as usize;
                if self.supporter[o] != atom {
                    // Its supporter is at least as costly as this atom was: unchanged.
                    continue;
                }
                let (mut best, mut by) = (0u32, atom);
                for &p in self.pres.row(o) {
                    let v = self.hmax[p as usize];
                    if v > best {
                        (best, by) = (v, p);
                    }
                }
                self.supporter[o] = by;
                // The rescan is work too: the goal action, with thousands of preconditions,
                // can be rescanned as often as it has them.
                if pace.stop_after(self.pres.row(o).len(), stop) {
                    return false;
                }
                if best < self.op_value[o] {
                    self.op_value[o] = best;
                    self.reach_adds(o);
                }
            }
        }
        true
    }

    /// Before the goal zone follows zero-cost action `o` back to its supporter: among its
    /// preconditions of the supporter's h_max (any of them is a valid supporter), prefer
    /// one that no zero-cost action adds (the zone then stops there, on its border), else
    /// one already in the goal zone. Without this, the zone runs back through actions cut
    /// in earlier rounds and the next cut takes the achievers of many atoms at once: on
    /// visitall, each cut took the moves into several cells, and the estimate fell by up
    /// to 11 per step along an optimal plan whose true distance falls by 1 (Fast
    /// Downward's LM-cut breaks these ties the same way). Returns the work done, for
    /// [`Pace`].
    fn break_supporter_ties(&mut self, o: usize) -> usize {
        let value = self.op_value[o];
        let mut work = self.pres.row(o).len();
        for k in 0..self.pres.row(o).len() {
            let p = self.pres.row(o)[k];
            if self.hmax[p as usize] != value {
                continue;
            }
            let achievers = self.added_by.row(p as usize);
            work += achievers.len();
            if achievers.iter().all(|&a| self.cost[a as usize] > 0) {
                self.supporter[o] = p;
                break;
            }
            if self.zone[p as usize] == Zone::Goal {
                self.supporter[o] = p;
                break;
            }
        }
        work
    }

    /// The LM-cut estimate of state `s` (its atom bits), `INFINITE` for a proven dead end.
    #[cfg(test)]
    pub fn evaluate(&mut self, s: &[u64]) -> u32 {
        self.evaluate_unless(s, &|| false).unwrap_or(INFINITE)
    }

    /// As `evaluate`, asking `stop` before each round and as the explorations go; `None`
    /// when it said to stop.
    pub fn evaluate_unless(&mut self, s: &[u64], stop: &dyn Fn() -> bool) -> Option<u32> {
        self.cost.copy_from_slice(&self.base);
        if !self.compute_hmax(s, stop) {
            return None;
        }
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
            let mut pace = Pace::default();
            while let Some(atom) = self.stack.pop() {
                if pace.stop_after(1 + self.added_by.row(atom as usize).len(), stop) {
                    return None;
                }
                for k in 0..self.added_by.row(atom as usize).len() {
                    let o = self.added_by.row(atom as usize)[k] as usize;
                    if self.cost[o] != 0 || self.supporter[o] == NONE {
                        continue;
                    }
                    let work = self.break_supporter_ties(o);
                    if pace.stop_after(work, stop) {
                        return None;
                    }
                    let sup = self.supporter[o];
                    if self.zone[sup as usize] == Zone::Unseen {
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
                if pace.stop_after(1 + self.pre_of.row(atom as usize).len(), stop) {
                    return None;
                }
                for &o in self.pre_of.row(atom as usize) {
                    if self.supporter[o as usize] != atom {
                        continue;
                    }
                    let adds = self.adds.row(o as usize);
                    if adds.iter().any(|&a| self.zone[a as usize] == Zone::Goal) {
                        self.cut.push(o);
                        continue;
                    }
                    for &a in adds {
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
            if !self.update_hmax(stop) {
                return None;
            }
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

    /// Under action costs the estimates count costs, zero included. Three free steps, then
    /// `left` (2) and `right` (3) for the two goal atoms, or `both` (7) for the pair: the
    /// cheapest plan costs 5, LM-cut finds the two cuts {left, both} and {right, both} (2 +
    /// 3 = 5), h_max the costlier atom (3). In a second task only the last of three steps
    /// costs anything (1): counted in steps, the estimates would say 3, above the cheapest
    /// plan. Computed by hand.
    #[test]
    fn lmcut_and_hmax_count_action_costs() {
        let task = crate::testing::two_goals_at_costs();
        assert_eq!(task.measure(), crate::Measure::ActionCosts);
        let s = initial(&task);
        assert_eq!(LmCut::new(&task).evaluate(&s), 5);
        assert_eq!(Heuristic::new(&task, Relaxation::Max).evaluate(&s), 3);
        let only_left = ground(
            "(define (domain d) (:requirements :action-costs)
               (:predicates (a) (b) (g))
               (:functions (total-cost))
               (:action one :parameters () :precondition (and) :effect (a))
               (:action two :parameters () :precondition (a) :effect (b))
               (:action last :parameters () :precondition (b) :effect (and (g) (increase (total-cost) 1))))",
            "(define (problem p) (:domain d) (:init (= (total-cost) 0)) (:goal (g))
               (:metric minimize (total-cost)))",
        );
        let s = initial(&only_left);
        assert_eq!(LmCut::new(&only_left).evaluate(&s), 1);
        assert_eq!(Heuristic::new(&only_left, Relaxation::Max).evaluate(&s), 1);
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

    /// Visit-all on a `w` x `h` grid from a corner: along the snake through every row, each
    /// step visits a new cell, so the true distance is the number of cells not yet visited,
    /// and LM-cut finds it exactly: each round cuts the moves into one cell. Computed by
    /// hand. Before the goal zone broke its supporter ties towards the border, it walked
    /// back through moves cut earlier and took several cells a round (on the 4 x 4 grid,
    /// 13 of the 14 cells left after the first move, and A* on IPC visitall problem12
    /// stalled).
    #[test]
    fn lmcut_counts_every_cell_left_to_visit() {
        use crate::eval::{Scratch, apply};
        let (w, h) = (4usize, 4usize);
        let cell = |x: usize, y: usize| format!("c{x}-{y}");
        let mut objects = Vec::new();
        let mut connected = Vec::new();
        let mut goal = Vec::new();
        for x in 0..w {
            for y in 0..h {
                objects.push(cell(x, y));
                goal.push(format!("(visited {})", cell(x, y)));
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if (0..w as i64).contains(&nx) && (0..h as i64).contains(&ny) {
                        connected.push(format!(
                            "(connected {} {})",
                            cell(x, y),
                            cell(nx as usize, ny as usize)
                        ));
                    }
                }
            }
        }
        let task = ground(
            "(define (domain visit) (:predicates (connected ?x ?y) (at-robot ?x) (visited ?x))
               (:action move :parameters (?from ?to)
                 :precondition (and (at-robot ?from) (connected ?from ?to))
                 :effect (and (at-robot ?to) (not (at-robot ?from)) (visited ?to))))",
            &format!(
                "(define (problem grid) (:domain visit) (:objects {})
                   (:init (at-robot c0-0) (visited c0-0) {}) (:goal (and {})))",
                objects.join(" "),
                connected.join(" "),
                goal.join(" ")
            ),
        );
        // The snake: along row 0, back along row 1, and so on.
        let mut path = Vec::new();
        for y in 0..h {
            for i in 0..w {
                path.push(if y % 2 == 0 { (i, y) } else { (w - 1 - i, y) });
            }
        }
        let layout = Layout::new(&task);
        let mut lmcut = LmCut::new(&task);
        let mut state = initial(&task);
        let mut scratch = Scratch::default();
        for (k, pair) in path.windows(2).enumerate() {
            let left = (w * h - 1 - k) as u32;
            assert_eq!(
                lmcut.evaluate(&state[..layout.bits]),
                left,
                "after {k} moves"
            );
            let text = format!(
                "(move {} {})",
                cell(pair[0].0, pair[0].1),
                cell(pair[1].0, pair[1].1)
            );
            let op = (0..task.ops.len())
                .find(|&o| task.action_text(o) == text)
                .expect("the move is ground");
            let mut next = Vec::new();
            assert!(apply(
                &task,
                &task.ops[op],
                &state,
                layout,
                &mut next,
                &mut scratch
            ));
            state = next;
        }
        assert_eq!(lmcut.evaluate(&state[..layout.bits]), 0);
    }

    /// A random propositional task, as `tests/brute.rs` draws them: `q0`..`q7`, actions
    /// with one or two precondition literals, adds and deletes.
    fn propositional() -> impl proptest::strategy::Strategy<Value = (String, String)> {
        use proptest::prelude::*;
        let literal = (0..8usize, prop::bool::weighted(0.85));
        let action = (
            prop::collection::vec(literal.clone(), 1..=2),
            prop::collection::vec(0..8usize, 1..=3),
            prop::collection::vec(0..8usize, 0..=2),
        );
        (
            prop::collection::vec(action, 6..=14),
            prop::collection::vec(0..8usize, 1..=2),
            prop::collection::vec(literal, 3..=5),
        )
            .prop_map(|(actions, init, goal)| {
                let lit = |(a, positive): (usize, bool)| {
                    if positive {
                        format!("(q{a})")
                    } else {
                        format!("(not (q{a}))")
                    }
                };
                let mut d = String::from(
                    "(define (domain prop) (:requirements :adl)
                       (:predicates (q0) (q1) (q2) (q3) (q4) (q5) (q6) (q7))",
                );
                for (i, (pre, adds, dels)) in actions.into_iter().enumerate() {
                    let pre: Vec<String> = pre.into_iter().map(lit).collect();
                    let mut eff: Vec<String> = adds.iter().map(|a| format!("(q{a})")).collect();
                    eff.extend(
                        dels.iter()
                            .filter(|d| !adds.contains(d))
                            .map(|d| format!("(not (q{d}))")),
                    );
                    d += &format!(
                        " (:action a{i} :parameters () :precondition (and {}) :effect (and {}))",
                        pre.join(" "),
                        eff.join(" ")
                    );
                }
                d += ")";
                let init: Vec<String> = init.iter().map(|a| format!("(q{a})")).collect();
                let goal: Vec<String> = goal.into_iter().map(lit).collect();
                let p = format!(
                    "(define (problem p) (:domain prop) (:init {}) (:goal (and {})))",
                    init.join(" "),
                    goal.join(" ")
                );
                (d, p)
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 1500,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// LM-cut (with its incremental rounds) is admissible and dominates h_max: in every
        /// state of a shortest plan found by breadth-first search, h_max <= LM-cut <= the
        /// steps left. Where BFS proves no plan, LM-cut may say anything finite or infinite
        /// but infinity must never be said of a state that has a plan.
        #[test]
        fn lmcut_is_between_hmax_and_the_true_distance((domain, problem) in propositional()) {
            use crate::eval::{Scratch, apply};
            use crate::{Algorithm, Outcome, Planner, SearchOptions};
            let d = safeplan_pddl::parse_domain(&domain).value.expect("parses");
            let p = safeplan_pddl::parse_problem(&problem).value.expect("parses");
            let compiled = safeplan_validate::Task::compile(&d, &p).expect("compiles");
            let planner = Planner::new(&compiled, &crate::GroundOptions::default()).expect("grounds");
            let result = planner.plan(&SearchOptions { algorithm: Algorithm::Bfs, ..SearchOptions::default() });
            let Outcome::Found { plan } = result.outcome else {
                return Ok(());
            };
            let task = ground(&domain, &problem);
            let layout = Layout::new(&task);
            let mut lmcut = LmCut::new(&task);
            let mut hmax = Heuristic::new(&task, Relaxation::Max);
            let mut state = vec![0u64; layout.words];
            for &a in &task.init {
                crate::eval::set(&mut state, a, true);
            }
            let mut scratch = Scratch::default();
            for (done, step) in plan.iter().enumerate().map(|(i, s)| (i, Some(s))).chain([(plan.len(), None)]) {
                let left = (plan.len() - done) as u32;
                let h = lmcut.evaluate(&state[..layout.bits]);
                let m = hmax.evaluate(&state[..layout.bits]);
                proptest::prop_assert!(m <= h, "h_max {} > LM-cut {} after {} steps", m, h, done);
                proptest::prop_assert!(h <= left, "LM-cut {} > {} steps left after {}", h, left, done);
                let Some(step) = step else { break };
                let op = (0..task.ops.len()).find(|&o| task.action_text(o) == *step).expect("the plan's action is ground");
                let mut next = Vec::new();
                proptest::prop_assert!(apply(&task, &task.ops[op], &state, layout, &mut next, &mut scratch));
                state = next;
            }
        }
    }
}
