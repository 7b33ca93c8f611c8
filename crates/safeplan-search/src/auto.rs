//! `auto`, the search every front end runs when the user names none: a shortest plan when
//! one is cheap to prove, any plan quickly when it is not.
//!
//! The tasks safeplan plans for are of two kinds that want different searches. DESPITE's
//! tasks and the built-in suite are small: A* with LM-cut proves a shortest plan in well under
//! a millisecond, and a shortest plan is what reference plans and safety effort are about.
//! The IPC's larger tasks are where optimal search runs out of time and LAMA finds a plan in
//! a second. One cannot tell the kinds apart before searching (size does not predict
//! hardness), so `auto` is a two-entry portfolio, as Fast Downward's portfolios are: LM-cut
//! first, for a share of the time, then LAMA's first iteration with what is left.
//!
//! - LM-cut gets [`SHORTEST_SHARE`] of the time limit ([`SHORTEST_TIME_UNLIMITED`] when
//!   there is none), and the caller's other limits.
//! - If it finds a plan, the plan is a shortest one; if it runs out of states without one,
//!   there is none. Either answer is final, and so is a cancellation.
//! - If any other limit stops it, its states are dropped and LAMA searches afresh under the
//!   caller's limits, its time reduced by what LM-cut spent.
//!
//! The result names the algorithm that concluded (never `auto`), so "shortest" is claimed
//! exactly when LM-cut found the plan; its counters are both searches' sums.

use std::time::{Duration, Instant};

use crate::ground::GroundTask;
use crate::search::{self, Algorithm, Goal, LimitKind, Limits, Outcome, SearchResult};

/// The share of the caller's time limit LM-cut gets before `auto` turns to LAMA: a tenth.
pub(crate) const SHORTEST_SHARE: u32 = 10;

/// LM-cut's time in `auto` when the caller sets no time limit.
pub(crate) const SHORTEST_TIME_UNLIMITED: Duration = Duration::from_secs(1);

/// Search `task` for `goal` as [`Algorithm::Auto`] does.
pub(crate) fn auto(task: &GroundTask, goal: &Goal<'_>, limits: &Limits) -> SearchResult {
    let start = Instant::now();
    let share = limits
        .time
        .map_or(SHORTEST_TIME_UNLIMITED, |t| t / SHORTEST_SHARE);
    let shortest = search::search(
        task,
        goal,
        Algorithm::Lmcut,
        &Limits {
            time: Some(share),
            ..limits.clone()
        },
    );
    match shortest.outcome {
        Outcome::LimitReached { limit } if limit != LimitKind::Cancelled => {}
        _ => return shortest,
    }
    let rest = Limits {
        time: limits.time.map(|t| t.saturating_sub(start.elapsed())),
        ..limits.clone()
    };
    let mut any = search::search(task, goal, Algorithm::Lama, &rest);
    any.stats.add(&shortest.stats);
    any.stats.seconds = start.elapsed().as_secs_f64();
    any
}
