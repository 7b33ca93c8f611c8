//! LAMA's first iteration (Richter & Westphal 2010; Fast Downward's `lama-first`): lazy
//! greedy best-first search with two heuristics, preferred operators and boosting.
//!
//! - **Lazy.** A successor is generated and evaluated only when it is taken from a queue;
//!   until then it waits as (parent, action) with the parent's estimates. On tasks with
//!   many successors per state this saves most evaluations and most stored states.
//! - **Two heuristics, alternated.** h_FF and the landmark count (`crate::landmarks`) each
//!   order a queue of every successor and a queue of *preferred* successors; the search takes
//!   from the four queues in turn (the one taken from least, as Fast Downward's alternation
//!   open list does). Each heuristic is good where the other is blind.
//! - **Preferred operators.** A successor is preferred when its action is a helpful action
//!   of h_FF (in the relaxed plan, applicable now). Both heuristics' preferred queues take
//!   these, as Fast Downward's `lama-first` does (its landmark heuristic has `pref=false`).
//!   Also preferring the actions that make a wanted landmark true (LAMA 2010's paper) was
//!   this module's rule until the landmarks had disjunctive ones: then it lost childsnack,
//!   whose gluten-free sandwiches it spent on the wrong children (docs/benchmarks.md).
//! - **Boosting.** When either heuristic reaches a value lower than any before, the two
//!   preferred queues get 1,000 turns ahead, so progress is followed while it lasts.
//!
//! This iteration counts steps whatever the metric (LAMA's `one` cost type, as `lama-first`).
//! Duplicates are not reopened; a state h_FF proves a dead end is dropped, which is sound,
//! so an exhausted search is a proof that no plan exists. Every entry taken checks the
//! limits, so cancellation is seen within one expansion.
//!
//! **Anytime** (`lama-anytime`, LAMA's later iterations): after the first plan, the search
//! starts again as lazy *weighted A** with the same queues and preferred operators, ordered
//! by `g + w·h` for `w` = 5, 3, 2, 1, then 1 again, each iteration pruning every path as
//! long as the best plan so far and reopening a state reached by a shorter path (under action
//! costs, `g` is the path's cost, h_FF counts each action at its cost plus one and each
//! landmark weighs its cheapest achiever's cost plus one, as LAMA's `adapt_costs(plusone)`,
//! and "long" and "short" read "costly" and "cheap"). Each plan an
//! iteration finds is shorter than the last. When an iteration runs out of states, no
//! shorter plan exists (only paths as long as the best and proven dead ends were pruned),
//! so the best plan is a shortest one, the search stops and its result says so
//! (`proven_optimal`, and `optimal`); a limit (time, states, memory, cancellation) stops it
//! with the best plan so far, not called optimal.

use crate::chunked::{BucketQueue, Records};
use crate::ground::Measure;
use crate::heuristic::{Heuristic, INFINITE};
use crate::landmarks::Landmarks;
use crate::release::FreedLater;
use crate::search::{Algorithm, LimitKind, Outcome, Run, SearchResult};

/// Turns the preferred queues move ahead on progress (Fast Downward's `boost=1000`).
const BOOST: i64 = 1000;

/// The weights of the anytime iterations after the first plan, as LAMA's; the last repeats.
const WEIGHTS: [u32; 4] = [5, 3, 2, 1];

/// Queues: h_FF, h_FF preferred, landmarks, landmarks preferred.
const FF: usize = 0;
const FF_PREFERRED: usize = 1;
const LM: usize = 2;
const LM_PREFERRED: usize = 3;

/// A queue of (parent node, action) by the parent's estimate, first in first out among
/// equals. The successor is generated only when the entry is taken (deferred evaluation, as
/// Fast Downward's lazy search): on tasks with hundreds of actions per state, most entries
/// are never taken, so most successors are never built, hashed or stored.
type Queue = BucketQueue<(u32, u32)>;

/// The root's entry: no parent.
const ROOT: u32 = u32::MAX;

/// A path length not reached in this iteration.
const UNREACHED: u32 = u32::MAX;

/// What the iterations share: the heuristics and each stored state's accepted landmarks.
struct Shared {
    ff: Heuristic,
    landmarks: Landmarks,
    /// The accepted landmarks of each stored state, by state id (states are stored in the
    /// order they are first generated, so ids follow this vector), from the first path
    /// that reached it.
    accepted: FreedLater<Records>,
    scratch: Vec<u64>,
    ops: Vec<u32>,
    preferred: Vec<u32>,
}

/// How one iteration ended.
enum Iteration {
    /// A plan (shorter than the bound), ending in this state.
    Found(u32),
    /// No path shorter than the bound reaches the goal.
    Exhausted,
    /// A limit stopped it.
    Limit(LimitKind),
}

/// Build the heuristics; `None` when cancelled while building (on a large task that takes
/// a few hundred milliseconds, which a cancellation must not wait for).
fn shared(run: &Run<'_>, root: u32) -> Option<Shared> {
    let stop = || run.interrupted();
    let mut ff = Heuristic::with_preferred_unless(run.task, &stop)?;
    let mut landmarks = Landmarks::new_unless(run.task, &stop)?;
    if run.keeps_rules() {
        ff.keep_rules(run.task);
        landmarks.keep_rules(run.task);
    }
    let lw = landmarks.words();
    let mut accepted = FreedLater::new(Records::new(lw), Records::bytes);
    let mut scratch = Vec::with_capacity(lw);
    landmarks.advance(&vec![0; lw], run.space.state(root), &mut scratch);
    accepted.push(&scratch);
    Some(Shared {
        ff,
        landmarks,
        accepted,
        scratch,
        ops: Vec::new(),
        preferred: Vec::new(),
    })
}

/// Search from `root` (already stored, not a goal) with LAMA's first iteration.
pub(crate) fn lama_first(mut run: Run<'_>, root: u32) -> SearchResult {
    const ALGORITHM: Algorithm = Algorithm::Lama;
    let Some(mut shared) = shared(&run, root) else {
        let limit = run.interruption();
        return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
    };
    let outcome = match iterate(&mut run, &mut shared, root, None, UNREACHED) {
        Iteration::Found(id) => run.found(id),
        Iteration::Exhausted => Outcome::Unsolvable,
        Iteration::Limit(limit) => Outcome::LimitReached { limit },
    };
    run.finish(outcome, ALGORITHM)
}

/// LAMA's first iteration, then weighted iterations for shorter plans until one runs out
/// of states (the best plan is then a shortest) or a limit stops the search (the best plan
/// so far is returned).
pub(crate) fn lama_anytime(mut run: Run<'_>, root: u32) -> SearchResult {
    const ALGORITHM: Algorithm = Algorithm::LamaAnytime;
    let Some(mut shared) = shared(&run, root) else {
        let limit = run.interruption();
        return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
    };
    let (mut best, mut bound) = match iterate(&mut run, &mut shared, root, None, UNREACHED) {
        Iteration::Found(id) => (run.found(id), run.last_cost()),
        Iteration::Exhausted => return run.finish(Outcome::Unsolvable, ALGORITHM),
        Iteration::Limit(limit) => {
            return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
        }
    };
    // Under action costs, the later iterations' h_FF counts each action at its cost plus
    // one, and the landmarks weigh their cheapest achiever's, as LAMA's do: both are then on
    // the scale of the path's cost they are added to.
    if run.task.measure == Measure::ActionCosts {
        shared.ff.plus_one_costs(run.task);
        shared.landmarks.plus_one_costs();
    }
    let mut proven = false;
    for w in WEIGHTS.into_iter().chain(std::iter::repeat(1)) {
        match iterate(&mut run, &mut shared, root, Some(w), bound) {
            // Read now: a later iteration may move the states' parents.
            Iteration::Found(id) => (best, bound) = (run.found(id), run.last_cost()),
            Iteration::Exhausted => {
                proven = true;
                break;
            }
            Iteration::Limit(_) => break,
        }
    }
    let mut result = run.finish(best, ALGORITHM);
    result.proven_optimal = proven;
    result
}

/// One iteration from `root`: greedy (`weight` `None`: LAMA's first, no reopening, paths
/// measured in steps) or weighted A* (`g + w·h` with g in the task's measure, reopening
/// cheaper paths), pruning paths that cost `bound` or more.
fn iterate(
    run: &mut Run<'_>,
    sh: &mut Shared,
    root: u32,
    weight: Option<u32>,
    bound: u32,
) -> Iteration {
    let mut queues: FreedLater<[Queue; 4]> = FreedLater::new(Default::default(), |qs| {
        qs.iter().map(Queue::bytes).sum::<usize>()
    });
    // This iteration's path cost to each stored state (weighted iterations only: the
    // first takes the arena's depth, which it never revises).
    let mut g: Vec<u32> = Vec::new();
    if weight.is_some() {
        g.resize(run.space.len(), UNREACHED);
        g[root as usize] = 0;
    }
    let key = |g_child: u32, h: u32| match weight {
        None => h,
        Some(w) => g_child.saturating_add(h.saturating_mul(w)),
    };
    let mut turns = [0i64; 4];
    let mut best = [INFINITE; 2];
    queues[FF].push(0, (ROOT, ROOT));
    loop {
        let Some(q) = (0..4)
            .filter(|&q| !queues[q].is_empty())
            .min_by_key(|&q| (turns[q], q))
        else {
            return Iteration::Exhausted;
        };
        turns[q] += 1;
        let Some((_, (parent, op))) = queues[q].pop() else {
            continue;
        };
        run.extra_bytes =
            queues.iter().map(Queue::bytes).sum::<usize>() + sh.accepted.bytes() + g.capacity() * 4;
        if let Some(limit) = run.check_limits() {
            return Iteration::Limit(limit);
        }
        let id = if parent == ROOT {
            root
        } else {
            let depth = match weight {
                None => run.space.depth[parent as usize] + 1,
                Some(_) => g[parent as usize].saturating_add(run.task.costs[op as usize]),
            };
            if depth >= bound {
                continue;
            }
            let Some((id, new)) = run.generate(parent, op) else {
                continue;
            };
            if new {
                sh.landmarks.advance(
                    sh.accepted.get(parent as usize),
                    run.space.state(id),
                    &mut sh.scratch,
                );
                sh.accepted.push(&sh.scratch);
                if weight.is_some() {
                    g.push(depth);
                }
            } else if weight.is_none() {
                // A state seen before was expanded then (or found a dead end).
                continue;
            } else if depth < g[id as usize] {
                // A cheaper path in this iteration (or the first in it): reopen.
                g[id as usize] = depth;
                let steps = run.space.depth[parent as usize] + 1;
                run.space.reparent(id, parent, op, steps);
            } else {
                continue;
            }
            if run.is_goal(run.space.state(id)) {
                return Iteration::Found(id);
            }
            id
        };
        run.stats.evaluated += 1;
        let run_ref: &Run<'_> = run;
        let Some(h_ff) = sh
            .ff
            .evaluate_unless(run_ref.space.state(id), &|| run_ref.interrupted())
        else {
            return Iteration::Limit(run.interruption());
        };
        if h_ff == INFINITE {
            run.stats.dead_ends += 1;
            continue;
        }
        let h_lm = sh
            .landmarks
            .value(sh.accepted.get(id as usize), run.space.state(id));
        let mut progress = false;
        for (b, h) in best.iter_mut().zip([h_ff, h_lm]) {
            if h < *b {
                *b = h;
                progress = true;
            }
        }
        if progress {
            turns[FF_PREFERRED] -= BOOST;
            turns[LM_PREFERRED] -= BOOST;
        }
        run.stats.expanded += 1;
        run.applicable(id, &mut sh.ops);
        sh.preferred.clone_from(&sh.ff.preferred);
        sh.preferred.sort_unstable();
        let g_here = match weight {
            None => 0,
            Some(_) => g[id as usize],
        };
        for &o in &sh.ops {
            // The greedy iteration orders by h alone: no action's cost is read there.
            let (k_ff, k_lm) = match weight {
                None => (h_ff, h_lm),
                Some(_) => {
                    let g_child = g_here.saturating_add(run.task.costs[o as usize]);
                    (key(g_child, h_ff), key(g_child, h_lm))
                }
            };
            queues[FF].push(k_ff, (id, o));
            queues[LM].push(k_lm, (id, o));
            if sh.preferred.binary_search(&o).is_ok() {
                queues[FF_PREFERRED].push(k_ff, (id, o));
                queues[LM_PREFERRED].push(k_lm, (id, o));
            }
        }
    }
}
