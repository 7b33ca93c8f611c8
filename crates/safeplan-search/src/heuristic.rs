//! Delete-relaxation heuristics: h_max (admissible, for A*) and h_FF (for greedy search).
//!
//! Each ground action becomes one relaxed action per effect group: the action's required
//! atoms plus the group's, adding the group's atoms. An atom required false is a negated
//! atom of its own (`crate::relaxed`), added by the actions that delete it, so negative goals
//! guide the search too. Disjunctions and numeric conditions are dropped, which only makes
//! the relaxation easier, so h_max stays a lower bound on the plan's cost (every atom's h_max
//! is at most what a real plan pays before it makes the atom true). h_max counts each action
//! at its cost in the task's measure (1 in steps; its action cost, 0 included, under an
//! action-cost metric), so A* with it finds cheapest plans; h_FF counts 1 per action, as the
//! greedy searches and LAMA's first iteration measure in steps, or the cost plus one in
//! LAMA's later iterations ([`Heuristic::plus_one_costs`]). An atom unreachable in the
//! relaxation is unreachable, so infinity is a proof that the goal cannot be reached from
//! the state.
//!
//! The exploration is Dijkstra's with a bucket queue (costs are small integers) and
//! precondition counters, as in Fast Downward.

use crate::ground::GroundTask;
use crate::obligations::Obligations;
use crate::relaxed::{RelaxedActions, RelaxedAtoms};
use crate::rows::Rows;

/// Which relaxed estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Relaxation {
    /// h_max: the costliest goal atom.
    Max,
    /// h_FF: the relaxed plan read off h_add's best supporters.
    Ff,
}

/// A relaxed task and the buffers its exploration reuses.
pub(crate) struct Heuristic {
    kind: Relaxation,
    relaxed: RelaxedAtoms,
    /// The relaxed atoms true in the state being evaluated.
    true_now: Vec<u32>,
    /// Per relaxed action: its ground action, its preconditions and its adds.
    op_of: Vec<u32>,
    pres: Rows,
    adds: Rows,
    /// Per relaxed action: its cost. h_max's is its ground action's in the task's measure
    /// (so A* with it finds cheapest plans); h_FF's is 1 (LAMA's first iteration and greedy
    /// search count steps, as Fast Downward's `lama-first` does), or the action's cost plus
    /// one after [`Heuristic::plus_one_costs`].
    action_cost: Vec<u32>,
    /// Every action costs 1: the exploration then runs a version of its own that adds 1
    /// without reading `action_cost` or this flag per action fired (measurable on
    /// satellite's quarter of a million).
    unit: bool,
    /// Per relaxed action: how many preconditions, and a cost of 0 (what `waiting` starts
    /// from).
    pre_count: Vec<Waiting>,
    /// Per atom: the relaxed actions it is a precondition of, in order, each marked
    /// [`UNARY`] when it is its only one.
    pre_of: Rows,
    no_pre: Vec<u32>,
    goal: Vec<u32>,
    cost: Vec<u32>,
    supporter: Vec<u32>,
    /// Per relaxed action, during an exploration: preconditions not reached yet, and the
    /// cost of those reached (side by side: the loop reads both, one cache line).
    waiting: Vec<Waiting>,
    buckets: Vec<Vec<u32>>,
    marked_ops: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    seen_atom: Vec<u32>,
    /// Collect preferred operators (helpful actions) while reading the relaxed plan.
    want_preferred: bool,
    /// What the rules owe, as relaxed goals beside the task's, when the search keeps them
    /// ([`Heuristic::keep_rules`]); the items owed in the state being evaluated.
    obligations: Option<Obligations>,
    owed: Vec<u32>,
    /// The atoms an exploration reads at the end (sorted): the goal's and those owed.
    targets: Vec<u32>,
    /// The last h_FF evaluation's preferred operators: ground actions of the relaxed plan
    /// whose relaxed preconditions all hold in the state (Hoffmann and Nebel's helpful
    /// actions, as Fast Downward's h_FF reports them). Some may still be inapplicable (a
    /// negative or numeric condition): the search only prefers the ones it applies.
    pub preferred: Vec<u32>,
}

pub(crate) const INFINITE: u32 = u32::MAX;

/// The mark, in [`Heuristic`]'s precondition index, of a relaxed action with one
/// precondition: most of a large task's actions (satellite's quarter of a million turns),
/// which then fire without reading and writing the per-action counter (benchmarks.md,
/// "Faster relaxed explorations"). Action numbers stay far below it.
const UNARY: u32 = 1 << 31;

/// The largest cost the bucket queue keeps apart. h_add sums its preconditions' costs, so a
/// chain of actions that each need two costly atoms doubles the cost per level: without a
/// cap, 30 levels would ask for a queue of 2^31 buckets (the process aborts), and past 32
/// the sum saturates to `INFINITE` and a reachable goal looks like a dead end. Costs above
/// the cap share its bucket: an atom is still reached, and its supporter is still fired
/// before it is queued (so the best-supporter graph stays acyclic); only the order among
/// such atoms is lost. For h_max a capped cost is lower than the true one, so the estimate
/// stays admissible.
const BUCKET_CAP: u32 = 1 << 20;

/// How many atoms and actions an exploration touches between two looks at the caller's stop
/// flag (two atomic loads): a few tens of microseconds of work, so a cancelled search stops
/// well within a millisecond, and rarely enough to cost nothing measurable.
const STOP_WORK: usize = 16_384;

/// Counts an exploration's work and asks the stop flag every [`STOP_WORK`] units. Work,
/// not atoms: one atom can be a precondition of a hundred thousand actions (satellite's
/// `power_avail`).
#[derive(Default)]
pub(crate) struct Pace {
    work: usize,
}

impl Pace {
    /// Count `units` of work; whether `stop` (asked when the count passes [`STOP_WORK`])
    /// said to stop.
    pub fn stop_after(&mut self, units: usize, stop: &dyn Fn() -> bool) -> bool {
        self.work += units;
        if self.work < STOP_WORK {
            return false;
        }
        self.work = 0;
        stop()
    }
}

/// How many ground actions a constructor reads between two looks at the caller's stop flag:
/// building the relaxation of a quarter of a million actions takes up to a tenth of a
/// second, so a thousand take well under a millisecond.
pub(crate) const BUILD_STOP_EVERY: usize = 1024;

/// A relaxed action during an exploration: how many of its preconditions are not reached
/// yet, and the cost of those that are (their max for h_max, their sum for h_add).
#[derive(Clone, Copy, Debug, Default)]
struct Waiting {
    unsat: u32,
    acc: u32,
}

/// Offer `atom` at `cost` (capped), reached by relaxed action `by`: kept, and queued, when
/// cheaper than what the atom has.
fn offer(
    costs: &mut [u32],
    supporter: &mut [u32],
    buckets: &mut Vec<Vec<u32>>,
    atom: u32,
    cost: u32,
    by: u32,
) {
    let cost = cost.min(BUCKET_CAP);
    if cost < costs[atom as usize] {
        costs[atom as usize] = cost;
        supporter[atom as usize] = by;
        let c = cost as usize;
        if buckets.len() <= c {
            buckets.resize_with(c + 1, Vec::new);
        }
        buckets[c].push(atom);
    }
}

impl Heuristic {
    /// The relaxation of `task`, or `None` when `stop` said to stop while it was built
    /// (asked every [`BUILD_STOP_EVERY`] actions).
    pub fn new_unless(
        task: &GroundTask,
        kind: Relaxation,
        stop: &dyn Fn() -> bool,
    ) -> Option<Heuristic> {
        let relaxed = RelaxedAtoms::new_unless(task, stop)?;
        let n = relaxed.len();
        let RelaxedActions { op_of, pres, adds } = relaxed.actions_unless(task, stop)?;
        let no_pre = (0..op_of.len() as u32)
            .filter(|&a| pres.row(a as usize).is_empty())
            .collect();
        let actions = op_of.len();
        let action_cost = match kind {
            Relaxation::Max => op_of.iter().map(|&o| task.costs[o as usize]).collect(),
            Relaxation::Ff => vec![1; actions],
        };
        Some(Heuristic {
            kind,
            unit: action_cost.iter().all(|&c| c == 1),
            action_cost,
            goal: relaxed.goal(task),
            relaxed,
            true_now: Vec::new(),
            op_of,
            pre_of: {
                let mut pre_of = pres.inverted_unless(n, stop)?;
                pre_of.map_items(|a| {
                    if pres.row(a as usize).len() == 1 {
                        a | UNARY
                    } else {
                        a
                    }
                });
                pre_of
            },
            pre_count: pres
                .lengths()
                .into_iter()
                .map(|unsat| Waiting { unsat, acc: 0 })
                .collect(),
            pres,
            adds,
            no_pre,
            cost: vec![INFINITE; n],
            supporter: vec![u32::MAX; n],
            waiting: vec![Waiting::default(); actions],
            buckets: Vec::new(),
            marked_ops: vec![0; task.ops.len()],
            stamp: 0,
            stack: Vec::new(),
            seen_atom: vec![0; n],
            want_preferred: false,
            obligations: None,
            owed: Vec::new(),
            targets: Vec::new(),
            preferred: Vec::new(),
        })
    }

    /// Count what `task`'s hard constraints still owe in a state as goals too
    /// (`crate::obligations`): for a search that keeps them. States are then passed whole,
    /// automata words included.
    pub fn keep_rules(&mut self, task: &GroundTask) {
        self.obligations = Obligations::new(task, &self.relaxed);
    }

    /// Count each action at its cost plus one (Fast Downward's `adapt_costs(plusone)`, what
    /// LAMA's iterations after the first use on a task with action costs): h_FF is then the
    /// relaxed plan's cost, and an action of cost 0 still counts.
    pub fn plus_one_costs(&mut self, task: &GroundTask) {
        for (c, &o) in self.action_cost.iter_mut().zip(&self.op_of) {
            *c = task.costs[o as usize].saturating_add(1);
        }
        self.unit = self.action_cost.iter().all(|&c| c == 1);
    }

    /// The relaxation of `task`, built to the end.
    #[cfg(test)]
    pub fn new(task: &GroundTask, kind: Relaxation) -> Heuristic {
        Heuristic::new_unless(task, kind, &|| false).expect("never asked to stop")
    }

    /// An h_FF heuristic that also reports preferred operators ([`Heuristic::preferred`]);
    /// `None` when `stop` said to stop while it was built.
    pub fn with_preferred_unless(task: &GroundTask, stop: &dyn Fn() -> bool) -> Option<Heuristic> {
        let mut h = Heuristic::new_unless(task, Relaxation::Ff, stop)?;
        h.want_preferred = true;
        Some(h)
    }

    fn push(&mut self, atom: u32, cost: u32, by: u32) {
        offer(
            &mut self.cost,
            &mut self.supporter,
            &mut self.buckets,
            atom,
            cost,
            by,
        );
    }

    /// The estimate for state `s` (its packed words: the atom bits first, then what the
    /// rules read), `INFINITE` for a proven dead end.
    #[cfg(test)]
    pub fn evaluate(&mut self, s: &[u64]) -> u32 {
        self.evaluate_unless(s, &|| false).unwrap_or(INFINITE)
    }

    /// As [`Heuristic::evaluate`], asking `stop` every [`STOP_WORK`] atoms and actions the
    /// exploration touches; `None` when it said to stop. On a large task one exploration takes tens of
    /// milliseconds, which a cancelled search must not wait for.
    pub fn evaluate_unless(&mut self, s: &[u64], stop: &dyn Fn() -> bool) -> Option<u32> {
        // The exploration reads the index while it writes the costs: lend it out for the
        // call, so each atom's row is looked up once.
        let pre_of = std::mem::take(&mut self.pre_of);
        // Unit costs are a version of the exploration of their own: a test of `unit` per
        // action fired, or a load of its cost, was a seventh of LAMA's time on satellite
        // p30-HC (docs/benchmarks.md).
        let value = match self.unit {
            true => self.explore::<true>(s, &pre_of, stop),
            false => self.explore::<false>(s, &pre_of, stop),
        };
        self.pre_of = pre_of;
        value
    }

    /// The body of [`Heuristic::evaluate_unless`], with the index lent out; `UNIT` when
    /// every action costs 1.
    fn explore<const UNIT: bool>(
        &mut self,
        s: &[u64],
        pre_of: &Rows,
        stop: &dyn Fn() -> bool,
    ) -> Option<u32> {
        self.preferred.clear();
        self.cost.fill(INFINITE);
        self.waiting.copy_from_slice(&self.pre_count);
        for b in &mut self.buckets {
            b.clear();
        }
        let mut true_now = std::mem::take(&mut self.true_now);
        true_now.clear();
        self.relaxed.each_true(s, |a| true_now.push(a));
        for &atom in &true_now {
            self.push(atom, 0, u32::MAX);
        }
        self.true_now = true_now;
        if let Some(ob) = &self.obligations {
            ob.owed(s, &self.relaxed, &mut self.owed);
        }
        for i in 0..self.no_pre.len() {
            let a = self.no_pre[i];
            self.fire::<UNIT>(a, 0);
        }
        // The exploration stops once every atom the estimate reads is final: the goal's, and
        // with items owed every atom of every disjunct owed. Atoms leave the queue in order
        // of cost and an action fires only after its preconditions left it, so all that a
        // relaxed plan reads below a final atom (its supporter, their preconditions) is
        // final too: h_FF's relaxed plan is the one a full exploration would read.
        let mut targets = std::mem::take(&mut self.targets);
        targets.clear();
        targets.extend_from_slice(&self.goal);
        if let Some(ob) = &self.obligations {
            for &k in &self.owed {
                ob.form(k).disjuncts.iter().for_each(|c| targets.extend(c));
            }
            targets.sort_unstable();
            targets.dedup();
        }
        let mut goals_left = targets.len();
        let mut c = 0;
        let mut pace = Pace::default();
        while c < self.buckets.len() {
            while let Some(atom) = self.buckets[c].pop() {
                if self.cost[atom as usize] != c as u32 {
                    continue;
                }
                if pace.stop_after(1 + pre_of.row(atom as usize).len(), stop) {
                    return None;
                }
                if goals_left > 0 && targets.binary_search(&atom).is_ok() {
                    goals_left -= 1;
                }
                if goals_left == 0 {
                    break;
                }
                for &a in pre_of.row(atom as usize) {
                    if a & UNARY != 0 {
                        // Its one precondition is this atom: it fires now, at cost `c`
                        // (max and sum agree), without a counter to read and write.
                        self.fire::<UNIT>(a & !UNARY, c as u32);
                        continue;
                    }
                    let a = a as usize;
                    let w = &mut self.waiting[a];
                    w.acc = match self.kind {
                        Relaxation::Max => w.acc.max(c as u32),
                        Relaxation::Ff => w.acc.saturating_add(c as u32),
                    };
                    w.unsat -= 1;
                    if w.unsat == 0 {
                        let base = w.acc;
                        self.fire::<UNIT>(a as u32, base);
                    }
                }
            }
            if goals_left == 0 {
                break;
            }
            c += 1;
        }
        self.targets = targets;
        let mut h = 0u32;
        for &g in &self.goal {
            let cg = self.cost[g as usize];
            if cg == INFINITE {
                return Some(INFINITE);
            }
            h = match self.kind {
                Relaxation::Max => h.max(cg),
                Relaxation::Ff => 0,
            };
        }
        // Each item owed: its cheapest disjunct (h_add's sum for h_FF, whose relaxed plan
        // then reaches it too; h_max's max). None reachable: a dead end.
        self.stack.clear();
        let Some(ob) = &self.obligations else {
            return Some(self.finish(h));
        };
        for &k in &self.owed {
            let cheapest = ob
                .form(k)
                .disjuncts
                .iter()
                .map(|c| {
                    let costs = c.iter().map(|&a| self.cost[a as usize]);
                    let cost = if costs.clone().any(|x| x == INFINITE) {
                        INFINITE
                    } else {
                        match self.kind {
                            Relaxation::Max => costs.max().unwrap_or(0),
                            Relaxation::Ff => costs.fold(0u32, u32::saturating_add),
                        }
                    };
                    (cost, c)
                })
                .min_by_key(|&(cost, _)| cost);
            match cheapest {
                Some((cost, c)) if cost != INFINITE => {
                    h = h.max(cost);
                    self.stack.extend_from_slice(c);
                }
                _ => return Some(INFINITE),
            }
        }
        Some(self.finish(h))
    }

    /// The estimate once the goal and the items owed are reached: `h` (h_max), or the
    /// relaxed plan's length (h_FF), read from the goal and the atoms already on the stack.
    fn finish(&mut self, h: u32) -> u32 {
        match self.kind {
            Relaxation::Max => h,
            Relaxation::Ff => self.relaxed_plan_length(),
        }
    }

    fn fire<const UNIT: bool>(&mut self, a: u32, base: u32) {
        let cost = match UNIT {
            true => base.saturating_add(1),
            false => base.saturating_add(self.action_cost[a as usize]),
        };
        // The fields apart, not the whole heuristic: this runs once per action reached,
        // and lending `adds` out (`mem::take`) cost an allocation each time, a third of the
        // search's time on satellite p30.
        for &atom in self.adds.row(a as usize) {
            offer(
                &mut self.cost,
                &mut self.supporter,
                &mut self.buckets,
                atom,
                cost,
                a,
            );
        }
    }

    /// h_FF: the cost of the distinct actions in the relaxed plan read off the best
    /// supporters (their number, at unit cost).
    fn relaxed_plan_length(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marked_ops.fill(0);
            self.seen_atom.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut count = 0;
        self.preferred.clear();
        self.stack.extend_from_slice(&self.goal);
        while let Some(atom) = self.stack.pop() {
            if self.seen_atom[atom as usize] == stamp {
                continue;
            }
            self.seen_atom[atom as usize] = stamp;
            let by = self.supporter[atom as usize];
            if by == u32::MAX {
                continue;
            }
            let op = self.op_of[by as usize];
            let pre = self.pres.row(by as usize);
            if self.marked_ops[op as usize] != stamp {
                self.marked_ops[op as usize] = stamp;
                count = match self.unit {
                    true => count + 1,
                    false => self.action_cost[by as usize].saturating_add(count),
                };
                if self.want_preferred && pre.iter().all(|&p| self.cost[p as usize] == 0) {
                    self.preferred.push(op);
                }
            }
            self.stack.extend_from_slice(pre);
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{ground, initial};

    /// `levels` levels, each atom of the next needing both atoms of the last: h_add of
    /// level `i` is 2^(i+1) - 1, h_FF of the last is 2 * levels - 1 (one action per atom).
    fn doubling(levels: usize) -> GroundTask {
        let domain = "(define (domain doubling) (:requirements :strips)
            (:predicates (p ?l) (q ?l) (next ?a ?b))
            (:action make-p :parameters (?a ?b) :precondition (and (p ?a) (q ?a) (next ?a ?b)) :effect (p ?b))
            (:action make-q :parameters (?a ?b) :precondition (and (p ?a) (q ?a) (next ?a ?b)) :effect (q ?b)))";
        let objects: Vec<String> = (0..=levels).map(|i| format!("l{i}")).collect();
        let next: Vec<String> = (0..levels)
            .map(|i| format!("(next l{i} l{})", i + 1))
            .collect();
        let problem = format!(
            "(define (problem d) (:domain doubling) (:objects {}) (:init (p l0) (q l0) {}) (:goal (p l{levels})))",
            objects.join(" "),
            next.join(" ")
        );
        ground(domain, &problem)
    }

    /// h_add past the cap: the queue stays bounded and h_FF is exact. Before the cap, 22
    /// levels made a queue of 2^23 buckets, and 40 levels aborted the process.
    #[test]
    fn doubling_h_add_keeps_the_queue_bounded_and_the_goal_reachable() {
        for levels in [22, 40] {
            let task = doubling(levels);
            let mut h = Heuristic::new(&task, Relaxation::Ff);
            if levels == 22 {
                // Checked first, so the old code fails here instead of aborting at 40.
                assert_eq!(h.evaluate(&initial(&task)), 2 * levels as u32 - 1);
                assert!(
                    h.buckets.len() <= BUCKET_CAP as usize + 1,
                    "{}",
                    h.buckets.len()
                );
                continue;
            }
            assert_eq!(
                h.evaluate(&initial(&task)),
                2 * levels as u32 - 1,
                "{levels} levels"
            );
            assert!(h.buckets.len() <= BUCKET_CAP as usize + 1);
            let mut max = Heuristic::new(&task, Relaxation::Max);
            assert_eq!(max.evaluate(&initial(&task)), levels as u32);
        }
    }

    /// An exploration asks its caller's stop flag as it goes: a flag already set stops it
    /// part way (`None`), an unset one changes nothing. A long chain, and one atom needed
    /// by 20,000 actions (the work is counted in actions touched, not atoms settled), each
    /// do more than one stretch of work between two looks.
    #[test]
    fn an_exploration_stops_when_asked() {
        let wide = {
            let objects: Vec<String> = (0..20_000).map(|i| format!("o{i}")).collect();
            ground(
                "(define (domain wide) (:predicates (start) (got ?x))
                   (:action get :parameters (?x) :precondition (start) :effect (got ?x)))",
                &format!(
                    "(define (problem w) (:domain wide) (:objects {}) (:init (start))
                       (:goal (and (got o0) (got o19999))))",
                    objects.join(" ")
                ),
            )
        };
        for (task, ff, max) in [(doubling(3000), 5999, 3000), (wide, 2, 1)] {
            let s = initial(&task);
            let mut h = Heuristic::new(&task, Relaxation::Ff);
            assert_eq!(h.evaluate_unless(&s, &|| true), None);
            assert_eq!(h.evaluate_unless(&s, &|| false), Some(ff));
            let asked = std::cell::Cell::new(0);
            let mut hmax = Heuristic::new(&task, Relaxation::Max);
            let value = hmax.evaluate_unless(&s, &|| {
                asked.set(asked.get() + 1);
                false
            });
            assert_eq!(value, Some(max));
            assert!(asked.get() >= 1);
        }
    }
}
