//! Forward state-space search over packed states: breadth-first, A* and greedy best-first.
//!
//! Every generated state is stored once, in one arena of `u64` words, and found again by a
//! hash table of node ids keyed by the state's words (duplicate detection without a second
//! copy of the state). A node is its arena slot plus its parent, the action that reached it
//! and its depth, so a plan is read back by following parents.
//!
//! Successors are generated through an index: each action is filed under one atom of its
//! precondition (the rarest would be better, the first is good enough), so a state only
//! looks at the actions whose filed atom it makes true, plus those with no positive atom.

use std::cell::Cell;
use std::hash::BuildHasher;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use crate::chunked::{Chunked, Fifo, OpenList, Records};
use crate::eval::{self, Layout, Scratch};
use crate::ground::{GroundTask, Measure, Pre};
use crate::heuristic::{BUILD_STOP_EVERY, Heuristic, INFINITE, Relaxation};
use crate::lmcut::LmCut;
use crate::release::{FreedLater, free_later};
use crate::rows::Rows;
use crate::rules::RuleMode;

/// A search algorithm: the trade between plan length and search effort. Reference plans
/// and safety effort need shortest plans (BFS, A* or LM-cut); large tasks want any plan
/// quickly (LAMA, GBFS); [`Algorithm::Auto`], the default, tries the first and falls back
/// on the second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// The default of every front end: A* with LM-cut for a share of the time (a tenth of
    /// the time limit, one second without one), then LAMA's first iteration with the rest
    /// if that did not conclude. A shortest plan when one is cheap to prove, any plan
    /// otherwise; the result names the algorithm that concluded (`lmcut` or `lama`), never
    /// this one.
    #[default]
    Auto,
    /// Breadth-first search: a shortest plan (not a cheapest one under action costs).
    Bfs,
    /// A* with h_max: a shortest plan (a cheapest one under action costs, [`Measure`]),
    /// usually with fewer expansions than BFS.
    Astar,
    /// Greedy best-first search with h_FF: a plan quickly, not necessarily a shortest one.
    Gbfs,
    /// LAMA's first iteration, as Fast Downward's `lama-first`: lazy greedy best-first search
    /// alternating h_FF and the landmark count, each with a queue of preferred successors
    /// that is boosted on progress. A plan quickly on large tasks, not necessarily a
    /// shortest one.
    Lama,
    /// A* with LM-cut: a shortest plan (a cheapest one under action costs), with an
    /// estimate that dominates h_max (far fewer expansions on most tasks, more time per
    /// state).
    Lmcut,
    /// LAMA with its anytime iterations (Fast Downward's `lama`): the first plan as
    /// [`Algorithm::Lama`], then weighted A* with weights 5, 3, 2, 1 for shorter (under
    /// action costs, cheaper) ones while the limits allow. Returns the best plan when a limit
    /// stops it; a search that runs to its end has proved that plan a shortest (cheapest)
    /// one.
    LamaAnytime,
}

/// How often [`Run::interrupted`] reads the clock for the time limit: every this many asks
/// (a read costs tens of nanoseconds; an ask is made before every successor, and every
/// 16,384 units of work inside an estimate).
const CLOCK_EVERY: u32 = 64;

/// The memory limit of a search when the user sets none, in MiB: every front end's default
/// (`safeplan plan --max-memory`, Python's `max_memory_mib`, MCP's `find_plan`).
pub const DEFAULT_MAX_MEMORY_MIB: usize = 4096;

/// A name no algorithm has ([`Algorithm::parse`]); its message lists the names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("algorithm must be {}, not {name:?}", Algorithm::names())]
pub struct UnknownAlgorithm {
    /// The name given.
    pub name: String,
}

impl Algorithm {
    /// Every algorithm, in the order front ends list them.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Auto,
        Algorithm::Astar,
        Algorithm::Lmcut,
        Algorithm::Lama,
        Algorithm::LamaAnytime,
        Algorithm::Gbfs,
        Algorithm::Bfs,
    ];

    /// The algorithm of a name (`auto`, `astar`, `lmcut`, `lama`, `lama-anytime`, `gbfs`,
    /// `bfs`, any case), as every front end reads it.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.as_str().eq_ignore_ascii_case(name.trim()))
    }

    /// The algorithm of `name` ([`Algorithm::from_name`]), or the error every front end
    /// gives for a name it does not know (Python's `ValueError`, MCP's tool error).
    ///
    /// ```
    /// use safeplan_search::Algorithm;
    /// assert_eq!(Algorithm::parse(" LAMA "), Ok(Algorithm::Lama));
    /// let e = Algorithm::parse("dijkstra").unwrap_err();
    /// assert!(e.to_string().starts_with("algorithm must be \"auto\", \"astar\""), "{e}");
    /// assert!(e.to_string().ends_with("not \"dijkstra\""), "{e}");
    /// ```
    pub fn parse(name: &str) -> Result<Algorithm, UnknownAlgorithm> {
        Algorithm::from_name(name).ok_or_else(|| UnknownAlgorithm {
            name: name.to_string(),
        })
    }

    /// `"auto", "astar", "lmcut", "lama", "lama-anytime", "gbfs" or "bfs"`: the names, for an
    /// error message.
    pub fn names() -> String {
        let quoted: Vec<String> = Algorithm::ALL
            .iter()
            .map(|a| format!("\"{}\"", a.as_str()))
            .collect();
        match quoted.split_last() {
            Some((last, init)) if !init.is_empty() => format!("{} or {last}", init.join(", ")),
            _ => quoted.join(""),
        }
    }

    /// `auto`, `bfs`, `astar`, `gbfs`, `lama`, `lama-anytime` or `lmcut`.
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Bfs => "bfs",
            Algorithm::Astar => "astar",
            Algorithm::Gbfs => "gbfs",
            Algorithm::Lama => "lama",
            Algorithm::Lmcut => "lmcut",
            Algorithm::LamaAnytime => "lama-anytime",
        }
    }

    /// What the algorithm gives, in one line: the help every front end shows beside its name.
    pub fn help(self) -> &'static str {
        match self {
            Algorithm::Auto => {
                "LM-cut for a tenth of the time limit (1 s without one), then LAMA with the \
                 rest: a shortest plan when one is cheap to prove, a plan anyway when not \
                 (LM-cut alone for a safety effort)"
            }
            Algorithm::Bfs => "breadth-first search: a shortest plan",
            Algorithm::Astar => {
                "A* with h_max: a shortest plan (a cheapest one under action costs)"
            }
            Algorithm::Gbfs => "greedy best-first search with h_FF: a plan, fast",
            Algorithm::Lama => {
                "LAMA's first iteration (lazy greedy search, h_FF and landmarks, preferred \
                 operators): a plan, fast, on large tasks"
            }
            Algorithm::Lmcut => {
                "A* with LM-cut: a shortest plan (a cheapest one under action costs), with \
                 fewer expansions than h_max"
            }
            Algorithm::LamaAnytime => {
                "LAMA, then shorter plans by weighted A* (weights 5, 3, 2, 1) until the time \
                 limit or a proof that the plan is a shortest one"
            }
        }
    }

    /// Whether the plans it returns are shortest (`lama-anytime`'s are only when it ran to
    /// its end, which a limit may prevent: not counted; `auto`'s only when LM-cut found them,
    /// which its result says).
    pub fn is_optimal(self) -> bool {
        !matches!(
            self,
            Algorithm::Gbfs | Algorithm::Lama | Algorithm::LamaAnytime | Algorithm::Auto
        )
    }

    /// The algorithm to run for a plan that must be a shortest one (safety effort compares
    /// shortest plans): `auto` becomes LM-cut alone, since its fall-back to LAMA would not
    /// give one; every other algorithm is itself.
    pub fn for_shortest(self) -> Algorithm {
        match self {
            Algorithm::Auto => Algorithm::Lmcut,
            other => other,
        }
    }
}

/// When to give up. A search with no limits (the default) runs until it finds a plan or
/// exhausts the reachable states, which on a large task may not be in this lifetime;
/// benchmarks and the CLI always set some.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The most states to store.
    pub max_states: Option<usize>,
    /// The most bytes of state storage (states, nodes and the duplicate table).
    pub max_memory: Option<usize>,
    /// Wall-clock time for the search (grounding excluded).
    pub time: Option<Duration>,
    /// Set it from another thread to stop the search.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    /// [`Limits::max_states`].
    States,
    /// [`Limits::max_memory`].
    Memory,
    /// [`Limits::time`].
    Time,
    /// [`Limits::cancel`].
    Cancelled,
}

impl LimitKind {
    /// A word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::States => "state limit",
            LimitKind::Memory => "memory limit",
            LimitKind::Time => "time limit",
            LimitKind::Cancelled => "cancelled",
        }
    }
}

/// What a search concluded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// A plan: its steps in IPC form, `(action arg...)`.
    Found {
        /// The steps.
        plan: Vec<String>,
    },
    /// Every reachable state was explored and none satisfies the goal: no plan exists.
    Unsolvable,
    /// A limit stopped the search before it found a plan or proved there is none.
    LimitReached {
        /// Which one.
        limit: LimitKind,
    },
    /// The search found a plan that the validator rejects: a defect of the planner, never
    /// returned as a plan. Every plan is re-checked by the validator before it is returned
    /// (the plan the search claimed, with the verdict's reason, for the report).
    Rejected {
        /// The steps the search found.
        plan: Vec<String>,
        /// What the validator said of them.
        reason: String,
    },
}

impl Outcome {
    /// The plan, if one was found.
    pub fn plan(&self) -> Option<&[String]> {
        match self {
            Outcome::Found { plan } => Some(plan),
            _ => None,
        }
    }
}

/// Counters of one search: how much work it took, for comparing algorithms and
/// heuristics and for reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// States whose successors were generated.
    pub expanded: u64,
    /// Successor states generated (duplicates included).
    pub generated: u64,
    /// Distinct states stored.
    pub stored: u64,
    /// Heuristic evaluations.
    pub evaluated: u64,
    /// Dead ends pruned (the relaxation proved the goal unreachable from them, or a safe
    /// search's danger already exceeded the bound).
    pub dead_ends: u64,
    /// Search time in seconds (grounding excluded).
    pub seconds: f64,
}

impl Stats {
    /// Add `other`'s counters and seconds to these (two searches of one portfolio).
    pub(crate) fn add(&mut self, other: &Stats) {
        let Stats {
            expanded,
            generated,
            stored,
            evaluated,
            dead_ends,
            seconds,
        } = other;
        self.expanded += expanded;
        self.generated += generated;
        self.stored += stored;
        self.evaluated += evaluated;
        self.dead_ends += dead_ends;
        self.seconds += seconds;
    }
}

/// The search's result: the outcome, what plans are measured in and its counters. Its serde
/// form adds `optimal` ([`SearchResult::is_optimal`]: whether a plan found is a cheapest
/// one in the measure), so no front end needs to know which algorithms are optimal for
/// which measure.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SearchResult {
    /// What it concluded.
    pub outcome: Outcome,
    /// The algorithm that concluded (under [`Algorithm::Auto`], LM-cut or LAMA).
    pub algorithm: Algorithm,
    /// What plans are measured in: steps, or the metric's action costs.
    #[serde(default)]
    pub measure: Measure,
    /// The cost of the plan found, in [`SearchResult::measure`] (its length in steps).
    #[serde(default)]
    pub cost: Option<u64>,
    /// Why the problem's metric is not what plans are measured in, when it has a metric
    /// the search did not minimize ([`GroundTask::metric_note`]).
    #[serde(default)]
    pub metric_ignored: Option<String>,
    /// The search proved its plan a cheapest one although its algorithm does not always:
    /// `lama-anytime`, when an iteration ran out of states before any limit, or any search
    /// when the initial state meets the goal (the empty plan).
    #[serde(default)]
    pub proven_optimal: bool,
    /// Counters.
    pub stats: Stats,
}

impl SearchResult {
    /// Whether a plan found is a cheapest one in [`SearchResult::measure`]: the algorithm
    /// that concluded is optimal, and for action costs it is not breadth-first search
    /// (which finds a shortest plan, not a cheapest); or the search proved it
    /// ([`SearchResult::proven_optimal`]).
    pub fn is_optimal(&self) -> bool {
        self.proven_optimal
            || (self.algorithm.is_optimal()
                && !(self.algorithm == Algorithm::Bfs && self.measure == Measure::ActionCosts))
    }
}

impl Serialize for SearchResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Form<'a> {
            outcome: &'a Outcome,
            algorithm: Algorithm,
            optimal: bool,
            measure: Measure,
            cost: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            metric_ignored: Option<&'a str>,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            proven_optimal: bool,
            stats: &'a Stats,
        }
        Form {
            outcome: &self.outcome,
            algorithm: self.algorithm,
            optimal: self.is_optimal(),
            measure: self.measure,
            cost: self.cost,
            metric_ignored: self.metric_ignored.as_deref(),
            proven_optimal: self.proven_optimal,
            stats: &self.stats,
        }
        .serialize(serializer)
    }
}

/// A numeric condition on one variable that the goal adds to the task's own (the safety
/// bound on danger), compared exactly, as [`safeplan_validate::SafetyVerdict`] does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Bound {
    AtMost(f64),
    Above(f64),
}

/// What the search must reach, and what it may prune.
#[derive(Clone, Debug)]
pub(crate) struct Goal<'a> {
    pub pre: &'a Pre,
    pub possible: bool,
    /// A bound on a numeric variable (the danger fluent).
    pub bound: Option<(u32, Bound)>,
    /// The bound's answer when it is known up front (no action changes danger).
    pub settled: Option<bool>,
    /// Keep the task's hard constraints, or look for a plan that breaks one.
    pub rules: RuleMode,
    /// The bounded variable never decreases and nothing else reads it: a safe search may
    /// prune states above the bound, an unsafe one may treat all values above it as one.
    pub monotone: bool,
}

pub(crate) struct Space {
    pub(crate) layout: Layout,
    arena: Records,
    parent: Chunked<u32>,
    op: Chunked<u32>,
    pub(crate) depth: Chunked<u32>,
    table: Table,
    hasher: FxBuildHasher,
}

const NONE: u32 = u32::MAX;
/// A state whose heuristic value has not been computed yet (lazy greedy search).
const UNEVALUATED: u32 = u32::MAX - 1;

/// How many tables the duplicate table is split into (by the top bits of a state's hash).
const SHARDS: usize = 256;

/// The duplicate table: node ids with 32 bits of their state's hash, in [`SHARDS`] tables.
///
/// A hash table grows by moving every entry at once. With ids alone, a move rehashes each
/// state from the arena (hundreds of bytes each, millions of them): one insertion took tens
/// of milliseconds, and a cancelled search waited for it. Keeping the hash bits beside the
/// id makes a move read no state, and shards make each move touch one table in
/// [`SHARDS`], so no insertion moves more than a small fraction of the states.
struct Table {
    shards: Vec<HashTable<Entry>>,
    /// The shards' capacities summed, kept as they grow (the memory limit asks every step).
    capacity: usize,
}

#[derive(Clone, Copy)]
struct Entry {
    id: u32,
    hash: u32,
}

impl Table {
    fn new() -> Table {
        Table {
            shards: (0..SHARDS).map(|_| HashTable::new()).collect(),
            capacity: 0,
        }
    }

    /// The shard of a state's 64-bit hash (its top 8 bits) and the 32 bits kept in the
    /// entry (the 32 below them: a multiplicative hash mixes its high bits best).
    fn split(hash: u64) -> (usize, u32) {
        ((hash >> 56) as usize % SHARDS, (hash >> 24) as u32)
    }

    /// The hash a shard files an entry under: its 32 bits spread over 64 (hashbrown reads
    /// the top 7 bits as the entry's tag and the low bits as its place).
    fn spread(bits: u32) -> u64 {
        u64::from(bits).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(bits)
    }

    fn find(&self, hash: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        let (shard, bits) = Table::split(hash);
        self.shards[shard]
            .find(Table::spread(bits), |e| e.hash == bits && is(e.id))
            .map(|e| e.id)
    }

    fn insert(&mut self, hash: u64, id: u32) {
        let (shard, bits) = Table::split(hash);
        let table = &mut self.shards[shard];
        let before = table.capacity();
        table.insert_unique(Table::spread(bits), Entry { id, hash: bits }, |e| {
            Table::spread(e.hash)
        });
        self.capacity = self.capacity + table.capacity() - before;
    }

    fn capacity(&self) -> usize {
        self.capacity
    }
}

impl Space {
    fn new(layout: Layout) -> Space {
        Space {
            layout,
            arena: Records::new(layout.words),
            parent: Chunked::new(),
            op: Chunked::new(),
            depth: Chunked::new(),
            table: Table::new(),
            hasher: FxBuildHasher,
        }
    }

    pub(crate) fn state(&self, id: u32) -> &[u64] {
        self.arena.get(id as usize)
    }

    fn hash(&self, s: &[u64]) -> u64 {
        self.hasher.hash_one(s)
    }

    /// Store `s` unless present: `(id, new)`.
    fn insert(&mut self, s: &[u64], parent: u32, op: u32, depth: u32) -> (u32, bool) {
        let hash = self.hash(s);
        let arena = &self.arena;
        if let Some(id) = self.table.find(hash, |id| arena.get(id as usize) == s) {
            return (id, false);
        }
        let id = self.parent.len() as u32;
        self.arena.push(s);
        self.parent.push(parent);
        self.op.push(op);
        self.depth.push(depth);
        self.table.insert(hash, id);
        (id, true)
    }

    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    /// Node `id` reached by a shorter path: from `parent` by action `op`, `depth` steps.
    pub(crate) fn reparent(&mut self, id: u32, parent: u32, op: u32, depth: u32) {
        self.parent[id as usize] = parent;
        self.op[id as usize] = op;
        self.depth[id as usize] = depth;
    }

    fn bytes(&self) -> usize {
        self.arena.bytes() + self.parent.bytes() * 3 + self.table.capacity() * 9
    }

    /// The plan ending in node `id`, and its cost in the task's measure.
    pub(crate) fn plan(&self, task: &GroundTask, mut id: u32) -> (Vec<String>, u64) {
        let mut ops = Vec::new();
        while self.parent[id as usize] != NONE {
            ops.push(self.op[id as usize]);
            id = self.parent[id as usize];
        }
        ops.reverse();
        let cost = task.cost_of(&ops);
        let steps = ops
            .into_iter()
            .map(|o| task.action_text(o as usize))
            .collect();
        (steps, cost)
    }
}

/// A large space is freed after the search returns (`crate::release`).
impl Drop for Space {
    fn drop(&mut self) {
        let bytes = self.bytes();
        let parts = (
            std::mem::take(&mut self.arena),
            std::mem::take(&mut self.parent),
            std::mem::take(&mut self.op),
            std::mem::take(&mut self.depth),
            std::mem::replace(
                &mut self.table,
                Table {
                    shards: Vec::new(),
                    capacity: 0,
                },
            ),
        );
        free_later(parts, bytes);
    }
}

/// The successor index: actions filed under one required atom each.
#[derive(Default)]
pub(crate) struct Successors {
    by_atom: Rows,
    always: Vec<u32>,
}

impl Successors {
    /// The index of `task`'s actions, or `None` when `stop` said to stop while it was built.
    pub fn new_unless(task: &GroundTask, stop: &dyn Fn() -> bool) -> Option<Successors> {
        let mut filed = Rows::new();
        let mut always = Vec::new();
        for (o, op) in task.ops.iter().enumerate() {
            if o.is_multiple_of(BUILD_STOP_EVERY) && stop() {
                return None;
            }
            match op.pre.pos.first() {
                Some(&a) => filed.push_row(&[a]),
                None => {
                    filed.push_row(&[]);
                    always.push(o as u32);
                }
            }
        }
        Some(Successors {
            by_atom: filed.inverted_unless(task.atoms.len(), stop)?,
            always,
        })
    }

    /// Applicable actions in `s`, in increasing id order (so searches are deterministic).
    pub fn applicable(&self, task: &GroundTask, s: &[u64], layout: Layout, out: &mut Vec<u32>) {
        out.clear();
        for (wi, &word) in s[..layout.bits].iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let atom = wi * 64 + w.trailing_zeros() as usize;
                w &= w - 1;
                for &o in self.by_atom.row(atom) {
                    if eval::pre_holds(&task.ops[o as usize].pre, s, layout, task.slack)
                        == Some(true)
                    {
                        out.push(o);
                    }
                }
            }
        }
        for &o in &self.always {
            if eval::pre_holds(&task.ops[o as usize].pre, s, layout, task.slack) == Some(true) {
                out.push(o);
            }
        }
        out.sort_unstable();
    }
}

pub(crate) struct Run<'a> {
    pub(crate) task: &'a GroundTask,
    goal: &'a Goal<'a>,
    limits: &'a Limits,
    start: Instant,
    pub(crate) stats: Stats,
    pub(crate) space: Space,
    succ: Successors,
    scratch: Scratch,
    next: Vec<u64>,
    ops: Vec<u32>,
    /// Set when an expansion saw the cancellation flag (or the time limit) part way: the
    /// search stops there, with [`Run::interruption`]'s limit.
    pub(crate) cancelled: bool,
    /// How many times [`Run::interrupted`] was asked, and whether it has seen the time
    /// limit pass (for good).
    asks: Cell<u32>,
    out_of_time: Cell<bool>,
    /// Bytes a search keeps outside the state space (LAMA's queues of deferred successors),
    /// counted against [`Limits::max_memory`] with it.
    pub(crate) extra_bytes: usize,
    /// The cost of the last plan [`Run::found`] read.
    plan_cost: Option<u64>,
}

/// What to do with a state, as the goal's bound sees it.
enum Verdict {
    Keep,
    Prune,
}

impl<'a> Run<'a> {
    /// Whether this search keeps the task's hard constraints (and it has some): its
    /// heuristics then count what they owe as goals (`crate::obligations`).
    pub(crate) fn keeps_rules(&self) -> bool {
        self.goal.rules == RuleMode::Keep && !self.task.rules.is_empty()
    }

    pub(crate) fn is_goal(&self, s: &[u64]) -> bool {
        let layout = self.space.layout;
        if !self.goal.possible
            || eval::pre_holds(self.goal.pre, s, layout, self.task.slack) != Some(true)
        {
            return false;
        }
        let bound = match self.goal.bound {
            None => self.goal.settled,
            Some((var, bound)) => Some(eval::value(s, layout, var).is_some_and(|v| match bound {
                Bound::AtMost(d) => v <= d,
                Bound::Above(d) => v > d,
            })),
        };
        let rules = self
            .task
            .rules
            .accept_as(self.goal.rules, s, layout, self.task.slack);
        match self.goal.rules {
            RuleMode::Keep => rules && bound != Some(false),
            // Unsafe: a rule broken, or danger past the bound.
            RuleMode::Break => rules || bound == Some(true),
        }
    }

    /// Prune or canonicalise a fresh successor in `self.next` by the goal's bound.
    fn bound_state(&mut self) -> Verdict {
        let (Some((var, bound)), true) = (self.goal.bound, self.goal.monotone) else {
            return Verdict::Keep;
        };
        let layout = self.space.layout;
        let Some(v) = eval::value(&self.next, layout, var) else {
            return Verdict::Keep;
        };
        match bound {
            Bound::AtMost(d) if v > d => Verdict::Prune,
            // Above the bound every value is the same to the goal and to every action:
            // keep one finite representative so later increments stay finite.
            Bound::Above(d) if v > d => {
                eval::store(&mut self.next, layout, var, d + 1.0);
                Verdict::Keep
            }
            _ => Verdict::Keep,
        }
    }

    pub(crate) fn check_limits(&self) -> Option<LimitKind> {
        if let Some(max) = self.limits.max_states
            && self.space.len() >= max
        {
            return Some(LimitKind::States);
        }
        if let Some(max) = self.limits.max_memory
            && self.space.bytes() + self.extra_bytes >= max
        {
            return Some(LimitKind::Memory);
        }
        if let Some(t) = self.limits.time
            && self.start.elapsed() >= t
        {
            return Some(LimitKind::Time);
        }
        if let Some(c) = &self.limits.cancel
            && c.load(Ordering::Relaxed)
        {
            return Some(LimitKind::Cancelled);
        }
        // The caller's thread-wide watch (an interrupted Python call).
        if safeplan_validate::abandoned_now() {
            return Some(LimitKind::Cancelled);
        }
        None
    }

    /// Whether the search must stop now: the caller asked (the cancellation flag, or the
    /// thread's abandon watch: two loads, cheap enough to ask before every successor), or
    /// the time limit has passed (the clock read every [`CLOCK_EVERY`] asks). Asked inside
    /// expansions and estimates too, so one expansion of a state with thousands of
    /// successors, each an LM-cut estimate of a large task, does not run the search far
    /// past its time limit (satellite p30-HC: 90 s under a 30 s limit before).
    pub(crate) fn interrupted(&self) -> bool {
        self.flagged() || self.past_time()
    }

    fn flagged(&self) -> bool {
        self.limits
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
            || safeplan_validate::abandoned_now()
    }

    fn past_time(&self) -> bool {
        if self.out_of_time.get() {
            return true;
        }
        let Some(t) = self.limits.time else {
            return false;
        };
        let asks = self.asks.get().wrapping_add(1);
        self.asks.set(asks);
        if asks.is_multiple_of(CLOCK_EVERY) && self.start.elapsed() >= t {
            self.out_of_time.set(true);
        }
        self.out_of_time.get()
    }

    /// The limit that [`Run::interrupted`] stopped the search for: the time limit when it
    /// has passed and the caller did not ask, else a cancellation.
    pub(crate) fn interruption(&self) -> LimitKind {
        if self.out_of_time.get() && !self.flagged() {
            LimitKind::Time
        } else {
            LimitKind::Cancelled
        }
    }

    fn cancelled(self, algorithm: Algorithm) -> SearchResult {
        let limit = self.interruption();
        self.finish(Outcome::LimitReached { limit }, algorithm)
    }

    /// Generate the successors of node `id` into `out` as (op, new id, new). A cancellation
    /// seen part way stops the expansion and sets [`Run::cancelled`]: one successor (with
    /// its rule automata, up to [`crate::MAX_PLANNED_INSTANCES`] instance checks) is the
    /// longest it goes on after the flag is set.
    pub(crate) fn expand(&mut self, id: u32, out: &mut Vec<(u32, u32, bool)>) {
        out.clear();
        self.stats.expanded += 1;
        let mut ops = std::mem::take(&mut self.ops);
        self.applicable(id, &mut ops);
        for &o in &ops {
            if self.interrupted() {
                self.cancelled = true;
                break;
            }
            if let Some((nid, new)) = self.generate(id, o) {
                out.push((o, nid, new));
            }
        }
        self.ops = ops;
    }

    /// The actions applicable in node `id`'s state, in increasing id order.
    pub(crate) fn applicable(&mut self, id: u32, out: &mut Vec<u32>) {
        let layout = self.space.layout;
        let s = self.space.state(id);
        self.succ.applicable(self.task, s, layout, out);
    }

    /// Apply action `o` (applicable) in node `id`'s state and store the result: `(its id,
    /// whether it is new)`, or `None` when the step is not taken (a numeric error, the
    /// goal's bound pruned it, or it would break a hard constraint).
    pub(crate) fn generate(&mut self, id: u32, o: u32) -> Option<(u32, bool)> {
        let layout = self.space.layout;
        let depth = self.space.depth[id as usize] + 1;
        // The parent is read in place: nothing is stored until the successor is complete.
        let parent = self.space.state(id);
        let applied = eval::apply(
            self.task,
            &self.task.ops[o as usize],
            parent,
            layout,
            &mut self.next,
            &mut self.scratch,
        );
        if !applied {
            return None;
        }
        self.stats.generated += 1;
        if let Verdict::Prune = self.bound_state() {
            self.stats.dead_ends += 1;
            return None;
        }
        // A step whose state would break a hard constraint is not taken (unless the
        // search looks for one that does).
        if !self.task.rules.step(
            self.goal.rules,
            &mut self.next,
            layout,
            u64::from(depth),
            self.task.slack,
        ) {
            self.stats.dead_ends += 1;
            return None;
        }
        let next = std::mem::take(&mut self.next);
        let (nid, new) = self.space.insert(&next, id, o, depth);
        self.next = next;
        Some((nid, new))
    }

    /// The plan ending in node `id`, as an outcome; its cost is kept for [`Run::finish`].
    pub(crate) fn found(&mut self, id: u32) -> Outcome {
        let (plan, cost) = self.space.plan(self.task, id);
        self.plan_cost = Some(cost);
        Outcome::Found { plan }
    }

    /// The cost of the last plan [`Run::found`] read (`u32::MAX` before any: no bound).
    pub(crate) fn last_cost(&self) -> u32 {
        self.plan_cost
            .map_or(u32::MAX, |c| u32::try_from(c).unwrap_or(u32::MAX))
    }

    /// The result of the search: `outcome` (a found plan's from [`Run::found`]).
    pub(crate) fn finish(mut self, outcome: Outcome, algorithm: Algorithm) -> SearchResult {
        self.stats.stored = self.space.len() as u64;
        self.stats.seconds = self.start.elapsed().as_secs_f64();
        SearchResult {
            cost: self
                .plan_cost
                .filter(|_| matches!(outcome, Outcome::Found { .. })),
            outcome,
            algorithm,
            measure: self.task.measure,
            metric_ignored: self.task.metric_note.clone(),
            proven_optimal: false,
            stats: self.stats,
        }
    }
}

/// Search `task` for `goal`.
pub(crate) fn search(
    task: &GroundTask,
    goal: &Goal<'_>,
    algorithm: Algorithm,
    limits: &Limits,
) -> SearchResult {
    if algorithm == Algorithm::Auto {
        return crate::auto::auto(task, goal, limits);
    }
    let layout = Layout::new(task);
    let mut run = Run {
        task,
        goal,
        limits,
        start: Instant::now(),
        stats: Stats::default(),
        space: Space::new(layout),
        succ: Successors::default(),
        scratch: Scratch::default(),
        next: Vec::with_capacity(layout.words),
        ops: Vec::new(),
        cancelled: false,
        asks: Cell::new(0),
        out_of_time: Cell::new(false),
        extra_bytes: 0,
        plan_cost: None,
    };
    // What the search builds from the task (the successor index, the estimate) takes a
    // tenth of a second on a quarter of a million actions: it asks the flag as it goes.
    match Successors::new_unless(task, &|| run.interrupted()) {
        Some(succ) => run.succ = succ,
        None => return run.cancelled(algorithm),
    }
    let mut init = vec![0u64; layout.words];
    for &a in &task.init {
        eval::set(&mut init, a, true);
    }
    for (i, v) in task.vars.iter().enumerate() {
        eval::store(&mut init, layout, i as u32, v.init);
    }
    run.next.clone_from(&init);
    // The initial state is the trajectory's first: it may already break a rule.
    if !task
        .rules
        .step(goal.rules, &mut run.next, layout, 0, task.slack)
    {
        run.stats.dead_ends += 1;
        return run.finish(Outcome::Unsolvable, algorithm);
    }
    if let Verdict::Prune = run.bound_state() {
        // A safe search whose danger starts above the bound: nothing can bring it down.
        run.stats.dead_ends += 1;
        return run.finish(Outcome::Unsolvable, algorithm);
    }
    let init = std::mem::take(&mut run.next);
    let (root, _) = run.space.insert(&init, NONE, NONE, 0);
    run.next = init;
    if run.is_goal(run.space.state(root)) {
        // The empty plan costs nothing: a cheapest plan whatever the algorithm.
        let found = run.found(root);
        let mut result = run.finish(found, algorithm);
        result.proven_optimal = true;
        return result;
    }
    if !goal.possible {
        return run.finish(Outcome::Unsolvable, algorithm);
    }
    let stop = || run.interrupted();
    let relaxed = |kind| {
        let mut h = Heuristic::new_unless(task, kind, &stop)?;
        if run.keeps_rules() {
            h.keep_rules(task);
        }
        Some(Estimator::Relaxed(h))
    };
    let estimator = match algorithm {
        // Dispatched before the run was set up: a portfolio of two runs.
        Algorithm::Auto => return crate::auto::auto(task, goal, limits),
        Algorithm::Bfs => return bfs(run, root),
        Algorithm::Lama => return crate::lama::lama_first(run, root),
        Algorithm::LamaAnytime => return crate::lama::lama_anytime(run, root),
        Algorithm::Astar => relaxed(Relaxation::Max),
        Algorithm::Gbfs => relaxed(Relaxation::Ff),
        Algorithm::Lmcut => LmCut::new_unless(task, run.keeps_rules(), &stop).map(Estimator::LmCut),
    };
    match estimator {
        Some(h) => best_first(run, root, h, algorithm),
        None => run.cancelled(algorithm),
    }
}

fn bfs(mut run: Run<'_>, root: u32) -> SearchResult {
    let mut queue = FreedLater::new(Fifo::default(), Fifo::bytes);
    queue.push_back(root);
    let mut succ = Vec::new();
    while let Some(id) = queue.pop_front() {
        if let Some(limit) = run.check_limits() {
            return run.finish(Outcome::LimitReached { limit }, Algorithm::Bfs);
        }
        run.expand(id, &mut succ);
        if run.cancelled {
            let limit = run.interruption();
            return run.finish(Outcome::LimitReached { limit }, Algorithm::Bfs);
        }
        for &(_, nid, new) in &succ {
            if !new {
                continue;
            }
            // Goal test at generation: BFS generates every state of depth d + 1 before any
            // of depth d + 2, so the first goal generated is a shallowest one.
            if run.is_goal(run.space.state(nid)) {
                let found = run.found(nid);
                return run.finish(found, Algorithm::Bfs);
            }
            queue.push_back(nid);
        }
    }
    run.finish(Outcome::Unsolvable, Algorithm::Bfs)
}

/// The estimate a best-first search orders by.
enum Estimator {
    Relaxed(Heuristic),
    LmCut(LmCut),
}

impl Estimator {
    /// The estimate, or `None` when `stop` said to stop part way (h_max, h_FF and LM-cut
    /// ask as their explorations go, by work done, and LM-cut also between its rounds: on a
    /// large task one estimate can take from milliseconds to seconds).
    fn evaluate(&mut self, s: &[u64], stop: &dyn Fn() -> bool) -> Option<u32> {
        match self {
            Estimator::Relaxed(h) => h.evaluate_unless(s, stop),
            Estimator::LmCut(h) => h.evaluate_unless(s, stop),
        }
    }
}

/// A best-first search's open list: (f or h, h, tie-breaking estimate) to (g, node).
type Open = OpenList<(u32, u32, u32), (u32, u32)>;

/// A* (f = g + h with an admissible h, reopening when a cheaper path is found; g and h in
/// the task's measure, steps or action costs) or greedy best-first (h only). Ties go to the
/// lower h, then to the earlier state.
fn best_first(mut run: Run<'_>, root: u32, mut h: Estimator, algorithm: Algorithm) -> SearchResult {
    let astar = algorithm.is_optimal();
    let mut hval: FreedLater<Chunked<u32>> = FreedLater::new(Chunked::new(), Chunked::bytes);
    // Per node: the cost of the cheapest path to it found so far (its depth in steps is the
    // arena's, which the rules' clock reads).
    let mut gval: FreedLater<Chunked<u32>> = FreedLater::new(Chunked::new(), Chunked::bytes);
    let mut closed: FreedLater<Chunked<bool>> = FreedLater::new(Chunked::new(), Chunked::bytes);
    // The estimate of node `id`; `None` (and the run marked cancelled) when the caller asked
    // to stop during it.
    let eval_h = |h: &mut Estimator, run: &mut Run<'_>, id: u32| -> Option<u32> {
        run.stats.evaluated += 1;
        let run_ref: &Run<'_> = run;
        let value = h.evaluate(run_ref.space.state(id), &|| run_ref.interrupted());
        if value.is_none() {
            run.cancelled = true;
        }
        value
    };
    let cancelled = |run: Run<'_>| {
        let limit = run.interruption();
        run.finish(Outcome::LimitReached { limit }, algorithm)
    };
    // Under action costs with free actions, f and h are flat over every state the free
    // actions reach (rovers-numeric minimizes `(recharges)`: every other action is free),
    // and A* would search that plateau blind. Ties there go to the lower h_FF counted in
    // steps, which leads through it as greedy search does; any order among states of equal
    // f keeps A* optimal. Without free actions, every tie is broken by h alone, as before.
    let free_actions = run.task.measure == Measure::ActionCosts && run.task.costs.contains(&0);
    let mut tie = match astar && free_actions {
        true => match Heuristic::new_unless(run.task, Relaxation::Ff, &|| run.interrupted()) {
            Some(mut t) => {
                if run.keeps_rules() {
                    t.keep_rules(run.task);
                }
                Some(t)
            }
            None => return cancelled(run),
        },
        false => None,
    };
    // Per node: its tie-breaking estimate (0 without one).
    let mut tval: FreedLater<Chunked<u32>> = FreedLater::new(Chunked::new(), Chunked::bytes);
    let eval_tie = |tie: &mut Option<Heuristic>, run: &mut Run<'_>, id: u32| -> Option<u32> {
        let Some(t) = tie else {
            return Some(0);
        };
        let run_ref: &Run<'_> = run;
        let value = t.evaluate_unless(run_ref.space.state(id), &|| run_ref.interrupted());
        if value.is_none() {
            run.cancelled = true;
        }
        value
    };
    let Some(h0) = eval_h(&mut h, &mut run, root) else {
        return cancelled(run);
    };
    let Some(t0) = eval_tie(&mut tie, &mut run, root) else {
        return cancelled(run);
    };
    hval.push(h0);
    tval.push(t0);
    gval.push(0);
    closed.push(false);
    if h0 == INFINITE {
        run.stats.dead_ends += 1;
        return run.finish(Outcome::Unsolvable, algorithm);
    }
    // Ordered by (key, h, the tie-breaking estimate), first in first out among equals.
    let mut open: FreedLater<Open> = FreedLater::new(OpenList::default(), OpenList::bytes);
    let key = |g: u32, h: u32| if astar { g.saturating_add(h) } else { h };
    open.push((key(0, h0), h0, t0), (0u32, root));
    let mut succ = Vec::new();
    while let Some((_, (g, id))) = open.pop() {
        if closed[id as usize] || g > gval[id as usize] {
            continue;
        }
        if hval[id as usize] == UNEVALUATED {
            let Some(hv) = eval_h(&mut h, &mut run, id) else {
                return cancelled(run);
            };
            hval[id as usize] = hv;
            if hv == INFINITE {
                run.stats.dead_ends += 1;
                closed[id as usize] = true;
                continue;
            }
        }
        // With A* the goal test is at expansion: only then is g optimal.
        if run.is_goal(run.space.state(id)) {
            let found = run.found(id);
            return run.finish(found, algorithm);
        }
        closed[id as usize] = true;
        if let Some(limit) = run.check_limits() {
            return run.finish(Outcome::LimitReached { limit }, algorithm);
        }
        run.expand(id, &mut succ);
        if run.cancelled {
            let limit = run.interruption();
            return run.finish(Outcome::LimitReached { limit }, algorithm);
        }
        for &(op, nid, new) in &succ {
            let ng = g.saturating_add(run.task.costs[op as usize]);
            if new {
                gval.push(ng);
            }
            if new && !astar {
                // Greedy search evaluates lazily: a successor waits in the queue with its
                // parent's estimate and is evaluated only if it is expanded, which saves
                // most evaluations on tasks with hundreds of successors per state.
                hval.push(UNEVALUATED);
                tval.push(0);
                closed.push(false);
                if run.is_goal(run.space.state(nid)) {
                    let found = run.found(nid);
                    return run.finish(found, algorithm);
                }
                open.push((hval[id as usize], hval[id as usize], 0), (ng, nid));
            } else if new {
                // A* evaluates every new successor (LM-cut: many relaxed explorations each):
                // look at the flag before each one.
                if run.interrupted() {
                    return cancelled(run);
                }
                let Some(hv) = eval_h(&mut h, &mut run, nid) else {
                    return cancelled(run);
                };
                let tv = match hv {
                    INFINITE => 0,
                    _ => match eval_tie(&mut tie, &mut run, nid) {
                        Some(tv) => tv,
                        None => return cancelled(run),
                    },
                };
                hval.push(hv);
                tval.push(tv);
                closed.push(false);
                if hv == INFINITE {
                    run.stats.dead_ends += 1;
                    closed[nid as usize] = true;
                    continue;
                }
                open.push((key(ng, hv), hv, tv), (ng, nid));
            } else if astar && ng < gval[nid as usize] && hval[nid as usize] != INFINITE {
                // A cheaper path to a known state: reopen it.
                gval[nid as usize] = ng;
                run.space.depth[nid as usize] = run.space.depth[id as usize] + 1;
                run.space.parent[nid as usize] = id;
                run.space.op[nid as usize] = op;
                closed[nid as usize] = false;
                let (hv, tv) = (hval[nid as usize], tval[nid as usize]);
                open.push((key(ng, hv), hv, tv), (ng, nid));
            }
        }
    }
    run.finish(Outcome::Unsolvable, algorithm)
}
