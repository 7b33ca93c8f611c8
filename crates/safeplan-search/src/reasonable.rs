//! Reasonable orders between landmarks (Hoffmann, Porteous & Sebastia 2004, as LAMA and
//! Fast Downward's `reasonable_orders` approximate them).
//!
//! `L` is *reasonably* before `L'` when achieving `L'` first would be wasted: achieving `L`
//! then destroys `L'`, which has to be achieved again. In blocksworld, with `on b c` and
//! `on a b` to build, stacking `a` on `b` first is wasted, because stacking `b` on `c`
//! needs `b` clear. No plan is forced to obey such an order, so it is no landmark order
//! and is only used to count: the landmark count does not accept `L'` while `L` is not
//! accepted (`crate::landmarks`), so the search sees no progress in achieving `L'` early.
//!
//! Found as Fast Downward does, on simple landmarks of the task's own atoms:
//!
//! - `L'` is a goal atom and `L` *interferes* with it: every way of achieving `L` makes
//!   `L'` false.
//! - `L'` is not a goal, `L'` is necessarily before some `C`, and `L` is another landmark
//!   necessarily before `C`, or any landmark before that one (its ancestors, as Fast
//!   Downward's `collect_ancestors`): both are needed for `C`, and achieving `L` destroys
//!   `L'`.
//!
//! `L` interferes with `L'` when they are mutex (`crate::mutex`); or every action adding
//! `L` deletes `L'` (Hoffmann's condition, which Fast Downward's finite-domain variables
//! fold into the next); or every action adding `L` surely adds an atom mutex with `L'`. An
//! order that would close a cycle with the orders already kept (necessary ones first) is
//! left out, so every landmark can still be accepted.

use crate::ground::GroundTask;
use crate::heuristic::Pace;
use crate::mutex::Mutexes;

const NONE: u32 = u32::MAX;

/// What reasonable orders are found from: the landmark graph so far.
pub(crate) struct Graph<'a> {
    /// Per landmark: the task atom it is, when it is a simple landmark of a task atom (not
    /// a disjunctive set, not an atom's negation).
    pub atom: &'a [Option<u32>],
    /// Per landmark: whether it is a goal atom.
    pub goal: &'a [bool],
    /// Per landmark: whether it holds initially.
    pub initially: &'a [bool],
    /// Per landmark: the landmarks it is necessarily before.
    pub necessary_for: &'a [Vec<u32>],
}

/// The effects every action adding a landmark's atom surely has: what it adds and deletes
/// unconditionally, sorted.
#[derive(Default)]
struct Shared {
    adds: Vec<u32>,
    dels: Vec<u32>,
    /// No action adds the atom.
    none: bool,
}

/// The reasonable orders `(before, after)` of `graph`'s landmarks in `task`. `None` when
/// `stop` said to stop.
pub(crate) fn reasonable_orders(
    task: &GroundTask,
    graph: &Graph<'_>,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<(u32, u32)>> {
    let n = graph.atom.len();
    let simple: Vec<u32> = (0..n as u32)
        .filter(|&i| graph.atom[i as usize].is_some())
        .collect();
    if simple.is_empty() {
        return Some(Vec::new());
    }
    let mutexes = Mutexes::new_unless(task, stop)?;
    let mut landmark_of = vec![NONE; task.atoms.len()];
    for &i in &simple {
        if let Some(a) = graph.atom[i as usize] {
            landmark_of[a as usize] = i;
        }
    }
    // What every achiever of each simple landmark surely does.
    let mut shared: Vec<Option<Shared>> = (0..n).map(|_| None).collect();
    let mut pace = Pace::default();
    let (mut adds, mut dels, mut achieved) = (Vec::new(), Vec::new(), Vec::new());
    for op in &task.ops {
        if pace.stop_after(op.effects.len() + 1, stop) {
            return None;
        }
        achieved.clear();
        for e in &op.effects {
            for &a in &e.adds {
                if landmark_of[a as usize] != NONE {
                    achieved.push(landmark_of[a as usize]);
                }
            }
        }
        if achieved.is_empty() {
            continue;
        }
        achieved.sort_unstable();
        achieved.dedup();
        adds.clear();
        dels.clear();
        for e in op.effects.iter().filter(|e| e.is_unconditional()) {
            adds.extend_from_slice(&e.adds);
            dels.extend_from_slice(&e.dels);
        }
        adds.sort_unstable();
        adds.dedup();
        dels.sort_unstable();
        dels.dedup();
        // Delete-then-add: an atom both deleted and added stays true.
        dels.retain(|d| adds.binary_search(d).is_err());
        for &l in &achieved {
            match &mut shared[l as usize] {
                slot @ None => {
                    *slot = Some(Shared {
                        adds: adds.clone(),
                        dels: dels.clone(),
                        none: false,
                    })
                }
                Some(s) => {
                    s.adds.retain(|a| adds.binary_search(a).is_ok());
                    s.dels.retain(|d| dels.binary_search(d).is_ok());
                }
            }
        }
    }
    let shared: Vec<Shared> = shared
        .into_iter()
        .map(|s| {
            s.unwrap_or(Shared {
                none: true,
                ..Shared::default()
            })
        })
        .collect();
    let interferes = |l: u32, l2: u32| -> bool {
        let (Some(a), Some(b)) = (graph.atom[l as usize], graph.atom[l2 as usize]) else {
            return false;
        };
        if a == b {
            return false;
        }
        if mutexes.mutex(a, b) {
            return true;
        }
        let s = &shared[l as usize];
        !s.none
            && (s.dels.binary_search(&b).is_ok()
                || s.adds
                    .iter()
                    .any(|&e| e != a && e != b && mutexes.mutex(e, b)))
    };
    let mut parents: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (p, qs) in graph.necessary_for.iter().enumerate() {
        for &q in qs {
            parents[q as usize].push(p as u32);
        }
    }
    // Candidates: (before, after).
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    let mut interesting: Vec<u32> = Vec::new();
    let mut walk = Walk {
        seen: vec![false; n],
    };
    for &l in &simple {
        if graph.initially[l as usize] {
            continue;
        }
        if graph.goal[l as usize] {
            for &l2 in &simple {
                if pace.stop_after(1, stop) {
                    return None;
                }
                if l2 != l && !graph.initially[l2 as usize] && interferes(l2, l) {
                    candidates.push((l2, l));
                }
            }
            continue;
        }
        // Another landmark needed for a landmark `l` is necessarily before, or one before
        // that.
        interesting.clear();
        for &c in &graph.necessary_for[l as usize] {
            for &p in &parents[c as usize] {
                if p != l {
                    walk.reach(p, &parents, &mut interesting, &mut pace, stop)?;
                }
            }
        }
        walk.reset(&interesting);
        interesting.sort_unstable();
        for &x in &interesting {
            if x != l && !graph.initially[x as usize] && interferes(x, l) {
                candidates.push((x, l));
            }
        }
    }
    // Keep those that close no cycle with the orders kept so far.
    let mut children: Vec<Vec<u32>> = graph.necessary_for.to_vec();
    let mut kept = Vec::new();
    let mut below: Vec<u32> = Vec::new();
    candidates.sort_unstable();
    candidates.dedup();
    for (before, after) in candidates {
        if children[before as usize].contains(&after) {
            continue;
        }
        below.clear();
        walk.reach(after, &children, &mut below, &mut pace, stop)?;
        walk.reset(&below);
        if !below.contains(&before) {
            children[before as usize].push(after);
            kept.push((before, after));
        }
    }
    Some(kept)
}

/// Depth-first walks over the landmark graph that share one "seen" mark per landmark.
struct Walk {
    seen: Vec<bool>,
}

impl Walk {
    /// Every landmark reachable from `from` over `edges` (itself included) not seen yet,
    /// into `out`, marked seen. `None` when `stop` said to stop.
    fn reach(
        &mut self,
        from: u32,
        edges: &[Vec<u32>],
        out: &mut Vec<u32>,
        pace: &mut Pace,
        stop: &dyn Fn() -> bool,
    ) -> Option<()> {
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            if std::mem::replace(&mut self.seen[x as usize], true) {
                continue;
            }
            out.push(x);
            if pace.stop_after(edges[x as usize].len() + 1, stop) {
                return None;
            }
            stack.extend_from_slice(&edges[x as usize]);
        }
        Some(())
    }

    /// Unmark the landmarks of `walked`.
    fn reset(&mut self, walked: &[u32]) {
        for &x in walked {
            self.seen[x as usize] = false;
        }
    }
}
