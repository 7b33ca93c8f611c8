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
//!   of h_FF (in the relaxed plan, applicable now) or makes a wanted landmark true.
//! - **Boosting.** When either heuristic reaches a value lower than any before, the two
//!   preferred queues get 1,000 turns ahead, so progress is followed while it lasts.
//!
//! Plans are measured in steps, as everywhere in this crate (LAMA's `one` cost type).
//! Duplicates are not reopened; a state h_FF proves a dead end is dropped, which is sound,
//! so an exhausted search is a proof that no plan exists. Every entry taken checks the
//! limits, so cancellation is seen within one expansion.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::heuristic::{Heuristic, INFINITE};
use crate::landmarks::Landmarks;
use crate::search::{Algorithm, Outcome, Run, SearchResult};

/// Turns the preferred queues move ahead on progress (Fast Downward's `boost=1000`).
const BOOST: i64 = 1000;

/// Queues: h_FF, h_FF preferred, landmarks, landmarks preferred.
const FF: usize = 0;
const FF_PREFERRED: usize = 1;
const LM: usize = 2;
const LM_PREFERRED: usize = 3;

/// A queue entry: (estimate of the parent, insertion order, parent node, action). The
/// successor is generated only when the entry is taken (deferred evaluation, as Fast
/// Downward's lazy search): on tasks with hundreds of actions per state, most entries are
/// never taken, so most successors are never built, hashed or stored.
type Queue = BinaryHeap<Reverse<(u32, u64, u32, u32)>>;

/// The root's entry: no parent.
const ROOT: u32 = u32::MAX;

/// Search from `root` (already stored, not a goal) with LAMA's first iteration.
pub(crate) fn lama_first(mut run: Run<'_>, root: u32) -> SearchResult {
    const ALGORITHM: Algorithm = Algorithm::Lama;
    let layout = run.space.layout;
    let mut ff = Heuristic::with_preferred(run.task);
    let landmarks = Landmarks::new(run.task);
    let lw = landmarks.words();
    // Per action: the relaxed atoms it adds whatever the state, for the landmark
    // heuristic's preferred operators.
    let adds = landmarks.unconditional_adds(run.task);
    // The accepted landmarks of each stored state, `lw` words per state, by state id
    // (states are stored in the order they are taken, so ids follow this vector).
    let mut accepted: Vec<u64> = Vec::new();
    let mut scratch = Vec::with_capacity(lw);
    landmarks.advance(&vec![0; lw], run.space.state(root), &mut scratch);
    accepted.extend_from_slice(&scratch);

    let mut queues: [Queue; 4] = Default::default();
    let mut turns = [0i64; 4];
    let mut best = [INFINITE; 2];
    let mut counter: u64 = 0;
    queues[FF].push(Reverse((0, 0, ROOT, ROOT)));
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
        let Some(Reverse((_, _, parent, op))) = queues[q].pop() else {
            continue;
        };
        run.extra_bytes = queues.iter().map(|q| q.capacity()).sum::<usize>()
            * std::mem::size_of::<Reverse<(u32, u64, u32, u32)>>()
            + accepted.capacity() * 8;
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
            let from = &accepted[parent as usize * lw..(parent as usize + 1) * lw];
            landmarks.advance(from, run.space.state(id), &mut scratch);
            accepted.extend_from_slice(&scratch);
            if run.is_goal(run.space.state(id)) {
                let plan = run.space.plan(run.task, id);
                return run.finish(Outcome::Found { plan }, ALGORITHM);
            }
            id
        };
        run.stats.evaluated += 1;
        let run_ref: &Run<'_> = &run;
        let Some(h_ff) = ff.evaluate_unless(&run_ref.space.state(id)[..layout.bits], &|| {
            run_ref.interrupted()
        }) else {
            let limit = crate::search::LimitKind::Cancelled;
            return run.finish(Outcome::LimitReached { limit }, ALGORITHM);
        };
        if h_ff == INFINITE {
            run.stats.dead_ends += 1;
            continue;
        }
        let at = id as usize * lw..(id as usize + 1) * lw;
        let h_lm = landmarks.value(&accepted[at.clone()], run.space.state(id));
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
            counter += 1;
            queues[FF].push(Reverse((h_ff, counter, id, o)));
            queues[LM].push(Reverse((h_lm, counter, id, o)));
            let state = run.space.state(id);
            if preferred.binary_search(&o).is_ok()
                || landmarks.achieves_wanted(&accepted[at.clone()], state, &adds[o as usize])
            {
                queues[FF_PREFERRED].push(Reverse((h_ff, counter, id, o)));
                queues[LM_PREFERRED].push(Reverse((h_lm, counter, id, o)));
            }
        }
    }
}
