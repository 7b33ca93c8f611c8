//! More landmarks by back-chaining from the ones known, disjunctive ones included (Richter,
//! Helmert & Westphal 2008, "Landmarks revisited"; Fast Downward's `lm_rhw`).
//!
//! Label propagation (`crate::landmarks`) finds the atoms every relaxed path passes. It
//! misses what every plan needs *one of*: in childsnack, every allergic child is served from
//! a tray at its table, any of three trays. Back-chaining finds such sets. For a landmark
//! `L` not true at the start:
//!
//! 1. Explore the relaxation from the initial state with every relaxed action that adds an
//!    atom of `L` left out. What it reaches over-approximates what can hold before `L`
//!    first does.
//! 2. The *first achievers* of `L` are the relaxed actions adding an atom of `L` whose
//!    preconditions were all reached: the step that first makes `L` true is one of them.
//! 3. A precondition all first achievers share holds the step before `L` first does: a
//!    landmark, *greedy-necessarily* before `L`.
//! 4. When every first achiever has a precondition of one predicate, the set of those
//!    preconditions is a *disjunctive* landmark (one of them holds the step before),
//!    greedy-necessarily before `L`; as Fast Downward, only sets of 2 to 4 atoms, none true
//!    at the start.
//!
//! New landmarks are back-chained from in turn. A landmark stays a landmark of the real task
//! (its rules and safety bound only forbid plans), for the reason label propagation's do:
//! every real plan is a relaxed plan. Landmarks never overlap: a disjunctive set touching a
//! simple landmark or another set is not added, and one holding an atom later found to be a
//! simple landmark is dropped (the simple one says more).

use std::collections::VecDeque;

use crate::heuristic::Pace;
use crate::rows::Rows;

const NONE: u32 = u32::MAX;

/// The largest disjunctive landmark kept (Fast Downward's bound: "we don't want disjunctive
/// landmarks to get too big").
const MOST_DISJUNCTS: usize = 4;

/// Landmarks and the greedy-necessary orders between them.
pub(crate) struct Backchained {
    /// Each landmark's relaxed atoms, sorted; one atom for a simple landmark.
    pub sets: Vec<Vec<u32>>,
    /// `(before, after)` pairs of landmark numbers: `before` holds the step before `after`
    /// first does.
    pub orders: Vec<(u32, u32)>,
}

/// What back-chaining reads of the relaxation.
pub(crate) struct Relaxation<'a> {
    /// Per relaxed action: its preconditions, sorted.
    pub pres: &'a Rows,
    /// Per relaxed action: the relaxed atoms it adds.
    pub adds: &'a Rows,
    /// Per relaxed atom: whether it holds in the initial state.
    pub initially: &'a [bool],
    /// Per relaxed atom: its predicate class (atoms of one class can form a disjunctive
    /// landmark), or `u32::MAX` for none.
    pub class: &'a [u32],
}

struct Landmark {
    atoms: Vec<u32>,
    dropped: bool,
}

struct Graph {
    landmarks: Vec<Landmark>,
    orders: Vec<(u32, u32)>,
    /// Per relaxed atom: the simple landmark it is, or `NONE`.
    simple: Vec<u32>,
    /// Per relaxed atom: the disjunctive landmark it is in, or `NONE`.
    disjunctive: Vec<u32>,
    open: VecDeque<u32>,
}

impl Graph {
    fn add(&mut self, atoms: Vec<u32>) -> u32 {
        let id = self.landmarks.len() as u32;
        if let [a] = atoms[..] {
            self.simple[a as usize] = id;
        } else {
            for &a in &atoms {
                self.disjunctive[a as usize] = id;
            }
        }
        self.landmarks.push(Landmark {
            atoms,
            dropped: false,
        });
        self.open.push_back(id);
        id
    }

    /// `p` is a simple landmark greedy-necessarily before `after`.
    fn found_simple(&mut self, p: u32, after: u32) {
        let known = self.simple[p as usize];
        let id = if known != NONE {
            known
        } else {
            let d = self.disjunctive[p as usize];
            if d != NONE {
                // A set with `p` in it says less than `p`: drop it (and its orders).
                self.landmarks[d as usize].dropped = true;
                for &a in &self.landmarks[d as usize].atoms {
                    self.disjunctive[a as usize] = NONE;
                }
            }
            self.add(vec![p])
        };
        if id != after {
            self.orders.push((id, after));
        }
    }

    /// `set` (sorted, 2 to 4 atoms) is a disjunctive landmark greedy-necessarily before
    /// `after`.
    fn found_disjunctive(&mut self, set: Vec<u32>, after: u32, initially: &[bool]) {
        if set
            .iter()
            .any(|&a| initially[a as usize] || self.simple[a as usize] != NONE)
        {
            return;
        }
        let known = self.disjunctive[set[0] as usize];
        if known != NONE {
            if self.landmarks[known as usize].atoms == set {
                self.orders.push((known, after));
            }
            return;
        }
        if set.iter().any(|&a| self.disjunctive[a as usize] != NONE) {
            return;
        }
        let id = self.add(set);
        self.orders.push((id, after));
    }
}

/// Back-chain from `seeds` (simple landmarks, in the order to expand them: the goal's
/// first). `None` when `stop` said to stop.
pub(crate) fn backchain(
    relaxation: &Relaxation<'_>,
    seeds: &[u32],
    stop: &dyn Fn() -> bool,
) -> Option<Backchained> {
    let Relaxation {
        pres,
        adds,
        initially,
        class,
    } = *relaxation;
    let n = initially.len();
    let pre_of = pres.inverted_unless(n, stop)?;
    let adders = adds.inverted_unless(n, stop)?;
    let start: Vec<u32> = (0..n as u32).filter(|&a| initially[a as usize]).collect();
    let no_pre: Vec<u32> = (0..pres.len() as u32)
        .filter(|&r| pres.row(r as usize).is_empty())
        .collect();

    let mut graph = Graph {
        landmarks: Vec::new(),
        orders: Vec::new(),
        simple: vec![NONE; n],
        disjunctive: vec![NONE; n],
        open: VecDeque::new(),
    };
    for &s in seeds {
        if graph.simple[s as usize] == NONE {
            graph.add(vec![s]);
        }
    }

    let mut unsat: Vec<u32> = Vec::with_capacity(pres.len());
    let mut excluded = vec![false; pres.len()];
    let mut reached = vec![false; n];
    let mut queue: Vec<u32> = Vec::new();
    let mut achievers: Vec<u32> = Vec::new();
    let mut shared: Vec<u32> = Vec::new();
    let mut by_class: Vec<(u32, u32, u32)> = Vec::new();
    let mut pace = Pace::default();
    while let Some(l) = graph.open.pop_front() {
        let landmark = &graph.landmarks[l as usize];
        if landmark.dropped || landmark.atoms.iter().any(|&a| initially[a as usize]) {
            continue;
        }
        if stop() {
            return None;
        }
        let atoms = landmark.atoms.clone();
        // 1. The relaxation from the start without the actions adding `l`.
        achievers.clear();
        for &a in &atoms {
            achievers.extend_from_slice(adders.row(a as usize));
        }
        achievers.sort_unstable();
        achievers.dedup();
        for &r in &achievers {
            excluded[r as usize] = true;
        }
        unsat.clear();
        unsat.extend((0..pres.len()).map(|r| pres.row(r).len() as u32));
        reached.iter_mut().for_each(|x| *x = false);
        queue.clear();
        let reach = |q: u32, reached: &mut [bool], queue: &mut Vec<u32>| {
            if !reached[q as usize] {
                reached[q as usize] = true;
                queue.push(q);
            }
        };
        for &a in &start {
            reach(a, &mut reached, &mut queue);
        }
        for &r in &no_pre {
            if !excluded[r as usize] {
                for &q in adds.row(r as usize) {
                    reach(q, &mut reached, &mut queue);
                }
            }
        }
        while let Some(p) = queue.pop() {
            let users = pre_of.row(p as usize);
            if pace.stop_after(users.len() + 1, stop) {
                return None;
            }
            for &r in users {
                let left = &mut unsat[r as usize];
                *left -= 1;
                if *left == 0 && !excluded[r as usize] {
                    for &q in adds.row(r as usize) {
                        reach(q, &mut reached, &mut queue);
                    }
                }
            }
        }
        for &r in &achievers {
            excluded[r as usize] = false;
        }
        // 2. The first achievers: those whose preconditions were all reached.
        achievers.retain(|&r| unsat[r as usize] == 0);
        if achievers.is_empty() {
            // Not reachable at all: h_FF proves the dead end; nothing to learn here.
            continue;
        }
        // 3. The preconditions they share.
        shared.clear();
        shared.extend_from_slice(pres.row(achievers[0] as usize));
        for &r in &achievers[1..] {
            let row = pres.row(r as usize);
            shared.retain(|p| row.binary_search(p).is_ok());
        }
        for &p in &shared {
            graph.found_simple(p, l);
        }
        // 4. Per predicate class, one precondition from each first achiever.
        by_class.clear();
        for (i, &r) in achievers.iter().enumerate() {
            for &p in pres.row(r as usize) {
                let c = class[p as usize];
                if c != NONE && graph.simple[p as usize] == NONE {
                    by_class.push((c, i as u32, p));
                }
            }
        }
        by_class.sort_unstable();
        for group in by_class.chunk_by(|x, y| x.0 == y.0) {
            let mut users: Vec<u32> = group.iter().map(|&(_, i, _)| i).collect();
            users.dedup();
            if users.len() != achievers.len() {
                continue;
            }
            let mut set: Vec<u32> = group.iter().map(|&(_, _, p)| p).collect();
            set.sort_unstable();
            set.dedup();
            if (2..=MOST_DISJUNCTS).contains(&set.len()) {
                graph.found_disjunctive(set, l, initially);
            }
        }
    }

    // Number the landmarks kept, and their orders.
    let mut number = vec![NONE; graph.landmarks.len()];
    let mut sets = Vec::new();
    for (i, lm) in graph.landmarks.into_iter().enumerate() {
        if !lm.dropped {
            number[i] = sets.len() as u32;
            sets.push(lm.atoms);
        }
    }
    let mut orders: Vec<(u32, u32)> = graph
        .orders
        .iter()
        .filter_map(|&(a, b)| {
            let (a, b) = (number[a as usize], number[b as usize]);
            (a != NONE && b != NONE && a != b).then_some((a, b))
        })
        .collect();
    orders.sort_unstable();
    orders.dedup();
    Some(Backchained { sets, orders })
}
