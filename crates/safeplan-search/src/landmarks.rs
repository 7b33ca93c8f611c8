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
//! From these, back-chaining (`crate::backchain`, Richter, Helmert & Westphal's method, Fast
//! Downward's `lm_rhw`) finds more: the preconditions every first achiever of a landmark
//! shares, and *disjunctive* landmarks, sets of 2 to 4 atoms of one predicate one of which
//! every plan passes (a tray at the table, any tray). A landmark holds when one of its
//! atoms does; landmarks never overlap.
//!
//! `p` is *necessarily* before `q` when `p` is a precondition of every relaxed action that
//! adds `q` (label propagation's), or of every first achiever of `q` (back-chaining's
//! greedy-necessary orders): either way `p` holds the step before `q` first does. These
//! orders decide when a landmark already reached is *required again*. A property test
//! checks every landmark and every order against exhaustive search on random tasks.
//!
//! Between simple landmarks, *reasonable* orders (`crate::reasonable`, as LAMA's) say which
//! to achieve first where achieving them the other way round is wasted work.
//!
//! The heuristic follows a path: a landmark is *accepted* once it has been true with every
//! landmark reasonably before it accepted (the accepted set is stored with each state, from
//! the first path that reached it): a goal achieved too early still counts. Its value
//! is the landmarks not accepted plus the accepted ones required again: false now, and a
//! goal atom or necessarily before a landmark not yet accepted. It is not admissible and is
//! meant for greedy search, beside h_FF (`crate::lama`).
//!
//! Under action costs, LAMA's iterations after the first weigh each landmark instead of
//! counting it ([`Landmarks::plus_one_costs`], Fast Downward's `landmark_sum` with
//! `adapt_costs(plusone)`): a landmark costs its cheapest achiever's cost plus one (any
//! action adding one of its atoms, as LAMA 2011's), and the value is the sum over the
//! landmarks counted above. It is then on the scale of the path's cost it is added to.

use crate::backchain::{Relaxation, backchain};
use crate::eval::set;
use crate::ground::GroundTask;
use crate::heuristic::BUILD_STOP_EVERY;
use crate::obligations::Obligations;
use crate::reasonable::{Graph, reasonable_orders};
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
    /// Per landmark: its relaxed atoms (one for a simple landmark; 2 to 4 for a disjunctive
    /// one, `crate::backchain`, which holds when any of them does).
    sets: Rows,
    /// Per landmark: whether it is a goal atom.
    goal: Vec<bool>,
    /// Per landmark: the landmarks it is necessarily (or greedy-necessarily) before.
    necessary_for: Vec<Vec<u32>>,
    /// Per landmark: the landmarks reasonably before it (`crate::reasonable`), which must be
    /// accepted before it is.
    reasonable_parents: Vec<Vec<u32>>,
    /// The landmarks that have reasonable parents.
    gated: Vec<u32>,
    /// Per landmark: what it adds to the value (1, or its cheapest achiever's cost plus one
    /// after [`Landmarks::plus_one_costs`]).
    weight: Vec<u32>,
    /// Per landmark: its cheapest achiever's action cost plus one (1 when nothing adds it).
    plus_one: Vec<u32>,
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
        let RelaxedActions { pres, adds, op_of } = relaxed.actions_unless(task, stop)?;
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
        // Necessary orders: p before q when every reachable relaxed action adding q needs p.
        let mut zg_number = vec![NONE; n];
        for (i, &a) in atoms.iter().enumerate() {
            zg_number[a as usize] = i as u32;
        }
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
                let lq = zg_number[q as usize];
                if lq == NONE {
                    continue;
                }
                match &mut common[lq as usize] {
                    slot @ None => *slot = Some(pre.to_vec()),
                    Some(c) => c.retain(|x| pre.binary_search(x).is_ok()),
                }
            }
        }
        let mut initially = vec![false; n];
        relaxed.each_true(&init_bits, |a| initially[a as usize] = true);
        let mut orders: Vec<(u32, u32)> = Vec::new();
        for (lq, c) in common.iter().enumerate() {
            if initially[atoms[lq] as usize] {
                continue;
            }
            for &p in c.iter().flatten() {
                if zg_number[p as usize] != NONE {
                    orders.push((p, atoms[lq]));
                }
            }
        }
        // Back-chaining from these adds landmarks, disjunctive ones, and greedy-necessary
        // orders; the goal's atoms are expanded first, as Fast Downward's `lm_rhw` does.
        let mut sets: Vec<Vec<u32>> = Vec::new();
        if reachable {
            let class: Vec<u32> = (0..n as u32)
                .map(|a| {
                    let (atom, negated) = relaxed.task_atom(a);
                    task.atoms[atom as usize].0 * 2 + u32::from(negated)
                })
                .collect();
            let mut seeds = goal_atoms.clone();
            seeds.extend(
                atoms
                    .iter()
                    .filter(|a| goal_atoms.binary_search(a).is_err()),
            );
            let found = backchain(
                &Relaxation {
                    pres: &pres,
                    adds: &adds,
                    initially: &initially,
                    class: &class,
                },
                &seeds,
                stop,
            )?;
            sets = found.sets;
            // Label propagation's orders are between atoms: renumber them as landmarks
            // (every one of its landmarks is a simple landmark of the back-chaining).
            let mut simple = vec![NONE; n];
            for (i, set) in sets.iter().enumerate() {
                if let [a] = set[..] {
                    simple[a as usize] = i as u32;
                }
            }
            orders = orders
                .iter()
                .map(|&(p, q)| (simple[p as usize], simple[q as usize]))
                .filter(|&(p, q)| p != NONE && q != NONE && p != q)
                .chain(found.orders)
                .collect();
        }
        let mut rows = Rows::new();
        for set in &sets {
            rows.push_row(set);
        }
        let goal: Vec<bool> = sets
            .iter()
            .map(|set| matches!(set[..], [a] if goal_atoms.binary_search(&a).is_ok()))
            .collect();
        let mut necessary_for = vec![Vec::new(); sets.len()];
        orders.sort_unstable();
        orders.dedup();
        for (p, q) in orders {
            necessary_for[p as usize].push(q);
        }
        // Reasonable orders, between simple landmarks of the task's own atoms.
        let atom: Vec<Option<u32>> = sets
            .iter()
            .map(|set| match set[..] {
                [a] => match relaxed.task_atom(a) {
                    (t, false) => Some(t),
                    (_, true) => None,
                },
                _ => None,
            })
            .collect();
        let holds_initially: Vec<bool> = sets
            .iter()
            .map(|set| set.iter().any(|&a| initially[a as usize]))
            .collect();
        let reasonable = reasonable_orders(
            task,
            &Graph {
                atom: &atom,
                goal: &goal,
                initially: &holds_initially,
                necessary_for: &necessary_for,
            },
            stop,
        )?;
        let mut reasonable_parents = vec![Vec::new(); sets.len()];
        for (before, after) in reasonable {
            reasonable_parents[after as usize].push(before);
        }
        let gated = (0..sets.len() as u32)
            .filter(|&i| !reasonable_parents[i as usize].is_empty())
            .collect();
        // Each landmark's cheapest achiever, over every relaxed action adding one of its
        // atoms (reachable or not, as LAMA 2011's "possible achievers").
        let mut landmark_of = vec![NONE; n];
        for (i, set) in sets.iter().enumerate() {
            for &a in set {
                landmark_of[a as usize] = i as u32;
            }
        }
        let mut plus_one = vec![NONE; sets.len()];
        for (r, &o) in op_of.iter().enumerate() {
            let cost = task.costs[o as usize].saturating_add(1);
            for &q in adds.row(r) {
                if let Some(slot) = plus_one.get_mut(landmark_of[q as usize] as usize) {
                    *slot = (*slot).min(cost);
                }
            }
        }
        plus_one
            .iter_mut()
            .filter(|c| **c == NONE)
            .for_each(|c| *c = 1);
        let words = sets.len().div_ceil(64).max(1);
        Some(Landmarks {
            relaxed,
            sets: rows,
            goal,
            necessary_for,
            reasonable_parents,
            gated,
            weight: vec![1; plus_one.len()],
            plus_one,
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

    /// Weigh each landmark at its cheapest achiever's action cost plus one, as LAMA's
    /// iterations after the first do under action costs. What the rules owe still counts 1
    /// an item (no action is its achiever; 1 is at most what any achieving step adds).
    pub fn plus_one_costs(&mut self) {
        self.weight.clone_from(&self.plus_one);
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
    /// initial state: all zeros), into `out`: `before` plus every landmark true in `s`
    /// whose reasonable parents are accepted (in `before`, or now: a parent true in `s`
    /// with its own parents accepted).
    pub fn advance(&self, before: &[u64], s: &[u64], out: &mut Vec<u64>) {
        out.clear();
        out.extend_from_slice(before);
        for i in 0..self.sets.len() {
            if self.reasonable_parents[i].is_empty() && self.holds(s, i) {
                Landmarks::accept(out, i);
            }
        }
        // Parents first: the reasonable orders have no cycle, so each pass accepts at
        // least one more or none is left to accept.
        loop {
            let mut changed = false;
            for &i in &self.gated {
                let i = i as usize;
                if !Landmarks::accepted(out, i)
                    && self.reasonable_parents[i]
                        .iter()
                        .all(|&p| Landmarks::accepted(out, p as usize))
                    && self.holds(s, i)
                {
                    Landmarks::accept(out, i);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Whether landmark `i` holds in `s` (one of its atoms does).
    fn holds(&self, s: &[u64], i: usize) -> bool {
        self.sets.row(i).iter().any(|&a| self.relaxed.holds(s, a))
    }

    /// Whether landmark `i` is in `accepted`.
    fn accepted(accepted: &[u64], i: usize) -> bool {
        accepted[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Put landmark `i` in `accepted`.
    fn accept(accepted: &mut [u64], i: usize) {
        accepted[i / 64] |= 1u64 << (i % 64);
    }

    /// Whether an accepted landmark is required again in `s`: false now, and a goal atom or
    /// necessarily before a landmark not yet accepted.
    fn required_again(&self, accepted: &[u64], s: &[u64], i: usize) -> bool {
        !self.holds(s, i)
            && (self.goal[i]
                || self.necessary_for[i]
                    .iter()
                    .any(|&j| !Landmarks::accepted(accepted, j as usize)))
    }

    /// The landmark count of state `s` with accepted set `accepted` (the sum of the
    /// landmarks' weights after [`Landmarks::plus_one_costs`]).
    pub fn value(&mut self, accepted: &[u64], s: &[u64]) -> u32 {
        let mut h: u32 = 0;
        for i in 0..self.sets.len() {
            if !Landmarks::accepted(accepted, i) || self.required_again(accepted, s, i) {
                h = h.saturating_add(self.weight[i]);
            }
        }
        if let Some(ob) = &self.obligations {
            ob.owed(s, &self.relaxed, &mut self.owed);
            h = h.saturating_add(ob.unmet(s, &self.owed, &self.relaxed));
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GroundOptions;
    use crate::eval::{Layout, set};
    use crate::testing::{reachable_avoiding, successors};
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
        assert_eq!(lm.sets.len(), 2);
        let s = vec![0u64; Layout::new(&task).bits.max(1)];
        let none = vec![0u64; lm.words()];
        assert_eq!(lm.value(&none, &s), 2);
        // After `x`, one landmark is left; `x` is not required again (it is no goal and is
        // necessary for nothing: `g` has two achievers, neither needs `x` directly).
        let mut with_x = s.clone();
        let mut accepted = Vec::new();
        // The landmark that is not the goal is `x`.
        let x_atom = (0..lm.sets.len())
            .flat_map(|i| lm.sets.row(i).to_vec())
            .find(|&a| task.goal.pos.binary_search(&a).is_err())
            .unwrap();
        set(&mut with_x, x_atom, true);
        lm.advance(&none, &with_x, &mut accepted);
        assert_eq!(lm.value(&accepted, &with_x), 1);
        // Once `x` is false again it is not required again.
        assert_eq!(lm.value(&accepted, &s), 1);
    }

    /// Under action costs, LAMA's later iterations weigh a landmark at its cheapest achiever's
    /// cost plus one. `a`, `b`, `c` cost 0 to make (weight 1 each), `g1` 2 by `left` or 7 by
    /// `both` (weight 3), `g2` 3 by `right` or 7 (weight 4): 10 at the start, where the count
    /// is 5; with `a` made, 9. Computed by hand.
    #[test]
    fn landmarks_weigh_their_cheapest_achiever_plus_one() {
        let task = crate::testing::two_goals_at_costs();
        let mut lm = Landmarks::new(&task);
        let s = crate::testing::initial(&task);
        let none = vec![0u64; lm.words()];
        assert_eq!(lm.value(&none, &s), 5);
        lm.plus_one_costs();
        assert_eq!(lm.value(&none, &s), 10);
        // Only `one` applies at the start.
        let [with_a] = &successors(&task, &s)[..] else {
            panic!("one successor expected");
        };
        let mut accepted = Vec::new();
        lm.advance(&none, with_a, &mut accepted);
        assert_eq!(lm.value(&accepted, with_a), 9);
    }

    /// Blocksworld, all three blocks on the table, to build `a` on `b` on `c`: `on b c` is
    /// reasonably before `on a b` (stacking `b` needs `b` clear), not the other way round.
    /// After `a` is stacked on `b` first, `on a b` is true but not accepted, so it still
    /// counts. Computed by hand.
    #[test]
    fn reasonable_orders_keep_a_goal_reached_too_early_counted() {
        let (task, names) = crate::testing::ground_named(
            crate::testing::BLOCKS,
            "(define (problem p) (:domain blocks) (:objects a b c)
               (:init (ontable a) (ontable b) (ontable c) (clear a) (clear b) (clear c)
                      (handempty))
               (:goal (and (on a b) (on b c))))",
        );
        let lm = Landmarks::new(&task);
        let at = |t: &str| crate::testing::atom(&task, &names, t);
        let landmark = |t: &str| {
            (0..lm.sets.len())
                .find(|&i| lm.sets.row(i) == [at(t)])
                .unwrap_or_else(|| panic!("{t} is no landmark")) as u32
        };
        let (ab, bc) = (landmark("on a b"), landmark("on b c"));
        assert!(
            lm.reasonable_parents[ab as usize].contains(&bc),
            "{:?}",
            lm.reasonable_parents
        );
        assert!(!lm.reasonable_parents[bc as usize].contains(&ab));
        let start = crate::testing::initial(&task);
        let mut state = start.clone();
        for (t, value) in [("ontable a", false), ("clear b", false), ("on a b", true)] {
            set(&mut state, at(t), value);
        }
        let mut first = Vec::new();
        lm.advance(&vec![0; lm.words()], &start, &mut first);
        let mut then = Vec::new();
        lm.advance(&first, &state, &mut then);
        assert!(!Landmarks::accepted(&then, ab as usize));
        // With its reasonable parents accepted, `on a b` true is accepted.
        let mut with_parents = first.clone();
        for &p in &lm.reasonable_parents[ab as usize] {
            Landmarks::accept(&mut with_parents, p as usize);
        }
        lm.advance(&with_parents, &state, &mut then);
        assert!(Landmarks::accepted(&then, ab as usize));
    }

    /// Three trays, any of which can serve at the table: back-chaining finds "one tray is at
    /// the table" (label propagation cannot: no single tray is needed), greedy-necessarily
    /// before `served`, and `ready`, which every serving needs. Computed by hand.
    #[test]
    fn back_chaining_finds_one_of_three_trays() {
        let task = crate::testing::ground(
            "(define (domain trays) (:requirements :strips)
               (:predicates (at ?t) (home ?t) (ready) (served))
               (:action move :parameters (?t) :precondition (home ?t)
                  :effect (and (at ?t) (not (home ?t))))
               (:action cook :parameters () :precondition (and) :effect (ready))
               (:action serve :parameters (?t) :precondition (and (at ?t) (ready))
                  :effect (served)))",
            "(define (problem p) (:domain trays) (:objects t1 t2 t3)
               (:init (home t1) (home t2) (home t3)) (:goal (served)))",
        );
        let mut lm = Landmarks::new(&task);
        let sets: Vec<usize> = (0..lm.sets.len()).map(|i| lm.sets.row(i).len()).collect();
        let mut sizes = sets.clone();
        sizes.sort_unstable();
        // served, ready, and the trays' set.
        assert_eq!(sizes, [1, 1, 3]);
        let trays = sets.iter().position(|&n| n == 3).unwrap();
        let served = (0..lm.sets.len()).find(|&i| lm.goal[i]).unwrap();
        assert_eq!(lm.necessary_for[trays], [served as u32]);
        let s = crate::testing::initial(&task);
        let mut accepted = Vec::new();
        lm.advance(&vec![0; lm.words()], &s, &mut accepted);
        assert_eq!(lm.value(&accepted, &s), 3);
    }

    /// A random task over three unary predicates on three constants (9 atoms, so that one
    /// predicate's atoms can form a disjunctive landmark). An action's literals name a
    /// constant or its one parameter `?x` (object 3), so that its ground actions differ in
    /// one object, as real domains' do.
    fn unary_task() -> impl proptest::strategy::Strategy<Value = (String, String)> {
        use proptest::prelude::*;
        let atom = (0..3usize, 0..3usize);
        // Preconditions name the parameter more often than effects do: "serve from any
        // tray" is what makes a disjunctive landmark.
        let on = |parameter: u32| {
            (
                0..3usize,
                prop_oneof![3 => 0..3usize, parameter => Just(3usize)],
            )
        };
        let literal = (on(6), prop::bool::weighted(0.85));
        let action = (
            prop::collection::vec(literal.clone(), 1..=2),
            prop::collection::vec(on(1), 1..=3),
            prop::collection::vec(on(1), 0..=2),
        );
        (
            prop::collection::vec(action, 6..=14),
            prop::collection::vec(atom.clone(), 1..=2),
            prop::collection::vec((atom, prop::bool::weighted(0.9)), 1..=2),
        )
            .prop_map(|(actions, init, goal)| {
                let text = |(p, o): (usize, usize)| {
                    let object = if o == 3 {
                        "?x".to_string()
                    } else {
                        format!("o{o}")
                    };
                    format!("({} {object})", ["p", "r", "s"][p])
                };
                let lit = |(a, positive): ((usize, usize), bool)| {
                    if positive {
                        text(a)
                    } else {
                        format!("(not {})", text(a))
                    }
                };
                let mut d = String::from(
                    "(define (domain unary) (:requirements :adl) (:constants o0 o1 o2)
                       (:predicates (p ?x) (r ?x) (s ?x))",
                );
                for (i, (pre, adds, dels)) in actions.into_iter().enumerate() {
                    let lifted = pre
                        .iter()
                        .map(|l| l.0)
                        .chain(adds.iter().copied())
                        .chain(dels.iter().copied())
                        .any(|(_, o)| o == 3);
                    let pre: Vec<String> = pre.into_iter().map(lit).collect();
                    let mut eff: Vec<String> = adds.iter().map(|&a| text(a)).collect();
                    eff.extend(
                        dels.iter()
                            .filter(|d| !adds.contains(d))
                            .map(|&d| format!("(not {})", text(d))),
                    );
                    d += &format!(
                        " (:action a{i} :parameters ({}) :precondition (and {}) :effect (and {}))",
                        if lifted { "?x" } else { "" },
                        pre.join(" "),
                        eff.join(" ")
                    );
                }
                d += ")";
                let init: Vec<String> = init.into_iter().map(text).collect();
                let goal: Vec<String> = goal.into_iter().map(lit).collect();
                let p = format!(
                    "(define (problem q) (:domain unary) (:init {}) (:goal (and {})))",
                    init.join(" "),
                    goal.join(" ")
                );
                (d, p)
            })
    }

    /// A task of [`unary_task`] (solvable or not), and its landmarks.
    fn landmarks_of((domain, problem): &(String, String)) -> (GroundTask, Landmarks) {
        let task = crate::testing::ground(domain, problem);
        let lm = Landmarks::new(&task);
        (task, lm)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 1500,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Every landmark holds on every plan, and every order holds on every path: checked
        /// by exhaustive search. A set is a landmark when no state meeting the goal can be
        /// reached through states where none of its atoms holds; `p` before `q` holds when
        /// every step that makes `q` true for the first time starts where `p` holds.
        #[test]
        fn every_landmark_and_order_holds_on_every_path(case in unary_task()) {
            use crate::eval::pre_holds;
            let (task, lm) = landmarks_of(&case);
            let layout = Layout::new(&task);
            let goal = |s: &[u64]| pre_holds(&task.goal, s, layout, task.slack) == Some(true);
            for i in 0..lm.sets.len() {
                let avoiding = reachable_avoiding(&task, &|s| lm.holds(s, i));
                let names: Vec<u32> = lm.sets.row(i).to_vec();
                proptest::prop_assert!(
                    !avoiding.iter().any(|s| goal(s)),
                    "landmark {:?} is avoided by a plan", names
                );
                for &j in &lm.necessary_for[i] {
                    let j = j as usize;
                    for s in reachable_avoiding(&task, &|s| lm.holds(s, j)) {
                        for next in successors(&task, &s) {
                            proptest::prop_assert!(
                                !lm.holds(&next, j) || lm.holds(&s, i),
                                "{:?} is not true the step before {:?} first is",
                                names, lm.sets.row(j)
                            );
                        }
                    }
                }
            }
        }
    }

    /// The property test above is not vacuous: its tasks have disjunctive landmarks and
    /// orders from back-chaining.
    #[test]
    fn the_random_tasks_have_disjunctive_landmarks() {
        let (mut disjunctive, mut ordered) = (0, 0);
        for case in crate::testing::samples(unary_task(), 300) {
            let (_, lm) = landmarks_of(&case);
            for i in 0..lm.sets.len() {
                if lm.sets.row(i).len() > 1 {
                    disjunctive += 1;
                    ordered += usize::from(!lm.necessary_for[i].is_empty());
                }
            }
        }
        assert!(
            disjunctive >= 10 && ordered >= 10,
            "{disjunctive} sets, {ordered} ordered"
        );
    }
}
