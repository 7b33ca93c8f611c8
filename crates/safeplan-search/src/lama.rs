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
//! Plans are measured in steps, as everywhere in this crate (LAMA's `one` cost type).
//! Duplicates are not reopened; a state h_FF proves a dead end is dropped, which is sound,
//! so an exhausted search is a proof that no plan exists. Every entry taken checks the
//! limits, so cancellation is seen within one expansion.

use crate::chunked::{BucketQueue, Records};
use crate::heuristic::{Heuristic, INFINITE};
use crate::landmarks::Landmarks;
use crate::release::FreedLater;
use crate::search::{Algorithm, Outcome, Run, SearchResult};

/// Turns the preferred queues move ahead on progress (Fast Downward's `boost=1000`).
const BOOST: i64 = 1000;

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

/// Search from `root` (already stored, not a goal) with LAMA's first iteration.
pub(crate) fn lama_first(mut run: Run<'_>, root: u32) -> SearchResult {
    const ALGORITHM: Algorithm = Algorithm::Lama;
    // The heuristics are built once per search; on a large task that takes a few hundred
    // milliseconds, which a cancellation must not wait for.
    let built = {
        let stop = || run.interrupted();
        Heuristic::with_preferred_unless(run.task, &stop)
            .and_then(|ff| Some((ff, Landmarks::new_unless(run.task, &stop)?)))
    };
    let Some((mut ff, mut landmarks)) = built else {
        let limit = crate::search::LimitKind::Cancelled;
        return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
    };
    if run.keeps_rules() {
        ff.keep_rules(run.task);
        landmarks.keep_rules(run.task);
    }
    let lw = landmarks.words();
    // The accepted landmarks of each stored state, `lw` words per state, by state id
    // (states are stored in the order they are taken, so ids follow this vector).
    let mut accepted: FreedLater<Records> = FreedLater::new(Records::new(lw), Records::bytes);
    let mut scratch = Vec::with_capacity(lw);
    landmarks.advance(&vec![0; lw], run.space.state(root), &mut scratch);
    accepted.push(&scratch);

    let mut queues: FreedLater<[Queue; 4]> = FreedLater::new(Default::default(), |qs| {
        qs.iter().map(Queue::bytes).sum::<usize>()
    });
    let mut turns = [0i64; 4];
    let mut best = [INFINITE; 2];
    queues[FF].push(0, (ROOT, ROOT));
    let mut ops: Vec<u32> = Vec::new();
    let mut preferred: Vec<u32> = Vec::new();
    loop {
        let Some(q) = (0..4)
            .filter(|&q| !queues[q].is_empty())
            .min_by_key(|&q| (turns[q], q))
        else {
            return run.finish(Outcome::Unsolvable, ALGORITHM);
        };
        turns[q] += 1;
        let Some((_, (parent, op))) = queues[q].pop() else {
            continue;
        };
        run.extra_bytes = queues.iter().map(Queue::bytes).sum::<usize>() + accepted.bytes();
        if let Some(limit) = run.check_limits() {
            return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
        }
        let id = if parent == ROOT {
            root
        } else {
            // A state seen before was expanded then (or found a dead end): no reopening.
            let Some((id, true)) = run.generate(parent, op) else {
                continue;
            };
            landmarks.advance(
                accepted.get(parent as usize),
                run.space.state(id),
                &mut scratch,
            );
            accepted.push(&scratch);
            if run.is_goal(run.space.state(id)) {
                let plan = run.space.plan(run.task, id);
                return run.finish(Outcome::Found { plan }, ALGORITHM);
            }
            id
        };
        run.stats.evaluated += 1;
        let run_ref: &Run<'_> = &run;
        let Some(h_ff) = ff.evaluate_unless(run_ref.space.state(id), &|| run_ref.interrupted())
        else {
            let limit = crate::search::LimitKind::Cancelled;
            return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
        };
        if h_ff == INFINITE {
            run.stats.dead_ends += 1;
            continue;
        }
        let h_lm = landmarks.value(accepted.get(id as usize), run.space.state(id));
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
        run.applicable(id, &mut ops);
        preferred.clone_from(&ff.preferred);
        preferred.sort_unstable();
        for &o in &ops {
            queues[FF].push(h_ff, (id, o));
            queues[LM].push(h_lm, (id, o));
            if preferred.binary_search(&o).is_ok() {
                queues[FF_PREFERRED].push(h_ff, (id, o));
                queues[LM_PREFERRED].push(h_lm, (id, o));
            }
        }
    }
}
