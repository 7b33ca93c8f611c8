//! Grounding by reachability: instantiate only the actions the delete relaxation can reach.
//!
//! The relaxed exploration is semi-naive, as in Fast Downward's translator: every fact
//! (static or fluent) enters a queue once; when fact `f` of predicate `p` leaves it, each
//! action whose required atoms include a `p` atom is unified with `f` at that atom and joined
//! with the facts reached so far on the others. An action is found when the last of its
//! required facts leaves the queue, so none is missed, and static predicates prune
//! parameters before any instantiation is built (a `road ?from ?to` precondition binds both
//! parameters from the road facts instead of enumerating object pairs).
//!
//! *Required atoms* are the positive atoms of the precondition's top-level conjunction.
//! Everything else (negations, disjunctions, quantifiers, comparisons) is assumed satisfiable
//! in the relaxation, which over-approximates: grounding may keep an action that can never
//! apply, never drop one that can. Each candidate is then checked once against what the
//! relaxation does know (static facts, equality, types); the ones that fail are dropped.
//!
//! After the fixpoint, conditions are compiled against the reached set: a fluent atom that
//! was never reached is false in every reachable state, so it folds away like a static one.

use rustc_hash::{FxHashMap, FxHashSet};
use safeplan_pddl::ast::{ArithOp, AssignOp, CmpOp};
use safeplan_validate::lifted::{Arg, AtomRef, Cond, Eff, NumExpr, PredKind, QVar};
use safeplan_validate::{ObjId, Task};

use crate::error::GroundError;

/// Limits on the size of a grounded task.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GroundOptions {
    /// The most ground actions the task may have.
    pub max_actions: usize,
    /// The most reachable facts (static and fluent) the exploration may reach.
    pub max_facts: usize,
    /// Set from another thread to stop grounding ([`GroundError::Cancelled`]): a server
    /// whose call timed out stops the work, not only the waiting.
    #[serde(skip)]
    pub cancel: CancelFlag,
}

/// A flag another thread sets to stop work (grounding here; [`Limits::cancel`] for a
/// search). Two options are equal when they share the flag.
///
/// [`Limits::cancel`]: crate::Limits::cancel
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(pub Option<std::sync::Arc<std::sync::atomic::AtomicBool>>);

impl CancelFlag {
    /// Whether the flag is set, or this thread's evaluations are abandoned
    /// ([`safeplan_validate::abandoned_now`]: an interrupted Python call).
    pub fn is_set(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
            || safeplan_validate::abandoned_now()
    }
}

impl PartialEq for CancelFlag {
    fn eq(&self, other: &CancelFlag) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for CancelFlag {}

impl Default for GroundOptions {
    fn default() -> GroundOptions {
        GroundOptions {
            max_actions: 2_000_000,
            max_facts: 5_000_000,
            cancel: CancelFlag::default(),
        }
    }
}

const UNBOUND: ObjId = ObjId::MAX;

/// A ground numeric expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GNum {
    Const(f64),
    /// A numeric state variable.
    Var(u32),
    /// A fluent no action changes and the problem leaves undefined: reading it is a
    /// numeric error, so whatever reads it cannot hold.
    Undefined,
    Arith(ArithOp, Vec<GNum>),
}

/// A ground condition in negation normal form.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GCond {
    True,
    False,
    Atom(u32),
    NotAtom(u32),
    And(Vec<GCond>),
    Or(Vec<GCond>),
    /// `l op r`, or its negation. A side that cannot be evaluated (an undefined fluent, a
    /// division by zero) makes it an error, not false: see `eval::holds`.
    Cmp {
        op: CmpOp,
        l: GNum,
        r: GNum,
        negated: bool,
    },
}

/// A condition split for speed: atoms that must be true, atoms that must be false, and
/// whatever else (disjunctions, comparisons).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Pre {
    pub pos: Vec<u32>,
    pub neg: Vec<u32>,
    pub rest: Option<GCond>,
}

/// A ground numeric update; `var` is `None` for a fluent nothing reads (its value is
/// irrelevant to every decision, like `total-cost`), whose operand is still evaluated
/// because an error there makes the step invalid.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NumEff {
    pub op: AssignOp,
    pub var: Option<u32>,
    pub value: GNum,
}

/// The effects of one ground action that share a condition.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Effect {
    pub cond: Pre,
    pub adds: Vec<u32>,
    pub dels: Vec<u32>,
    pub nums: Vec<NumEff>,
}

impl Effect {
    /// Whether it fires whenever its action does (no condition of its own).
    pub fn is_unconditional(&self) -> bool {
        self.cond.pos.is_empty() && self.cond.neg.is_empty() && self.cond.rest.is_none()
    }
}

/// A ground action.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Op {
    pub schema: u32,
    pub args: Box<[ObjId]>,
    pub pre: Pre,
    /// Unconditional effects first (with an empty condition), then conditional ones.
    pub effects: Vec<Effect>,
}

/// A numeric state variable: a ground fluent some action changes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NumVar {
    pub func: u32,
    pub args: Box<[ObjId]>,
    /// NaN when undefined.
    pub init: f64,
}

/// What plans are measured in: what "optimal" means for a search's result.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// The number of steps: every action costs 1. A task without a metric, one whose action
    /// costs are all 1 (steps are then the metric's measure too: LEXICON's), or one whose
    /// metric is not action costs (then [`GroundTask::metric_note`] says why).
    #[default]
    Steps,
    /// The sum of the actions' costs: the problem's `(:metric minimize (total-cost))`, every
    /// action raising `(total-cost)` by a constant whole number (IPC's `:action-costs`).
    ActionCosts,
}

/// The most one action may cost under [`Measure::ActionCosts`]: the relaxed explorations and
/// LAMA's queues keep one bucket per cost value, and the searches add costs in 32 bits.
/// IPC's costs are in the tens.
pub(crate) const MAX_ACTION_COST: f64 = 1_000.0;

/// A grounded task: reachable fluent atoms, ground actions, numeric variables, goal.
#[derive(Clone, Debug)]
pub struct GroundTask {
    pub(crate) atoms: Vec<(u32, Box<[ObjId]>)>,
    pub(crate) ops: Vec<Op>,
    pub(crate) vars: Vec<NumVar>,
    pub(crate) init: Vec<u32>,
    pub(crate) goal: Pre,
    pub(crate) slack: f64,
    /// Whether the goal can hold at all (false when it simplified to false).
    pub(crate) goal_possible: bool,
    pub(crate) action_names: Vec<String>,
    pub(crate) object_names: Vec<String>,
    /// The hard trajectory constraints, compiled into the search (`crate::rules`).
    pub(crate) rules: crate::rules::Rules,
    /// What plans are measured in, and each ground action's cost in it (all 1 for steps).
    pub(crate) measure: Measure,
    pub(crate) costs: Vec<u32>,
    /// Why the problem's metric is not what plans are measured in, when it has one.
    pub(crate) metric_note: Option<String>,
}

/// Facts of one predicate reached so far, indexed by argument position.
#[derive(Default)]
struct PredFacts {
    list: Vec<Box<[ObjId]>>,
    ids: FxHashMap<Box<[ObjId]>, u32>,
    by_arg: Vec<FxHashMap<ObjId, Vec<u32>>>,
}

impl PredFacts {
    fn insert(&mut self, args: &[ObjId]) -> bool {
        if self.ids.contains_key(args) {
            return false;
        }
        let id = self.list.len() as u32;
        if self.by_arg.len() < args.len() {
            self.by_arg.resize_with(args.len(), FxHashMap::default);
        }
        for (pos, &o) in args.iter().enumerate() {
            self.by_arg[pos].entry(o).or_default().push(id);
        }
        self.list.push(args.into());
        self.ids.insert(args.into(), id);
        true
    }
}

/// Three-valued truth in the relaxation: known from static facts, or unknown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

struct Grounder<'t> {
    task: &'t Task,
    facts: Vec<PredFacts>,
    queue: Vec<(u32, u32)>,
    n_facts: usize,
    /// Per schema: its required atoms.
    required: Vec<Vec<&'t AtomRef>>,
    /// Per predicate: (schema, index into its required atoms).
    triggers: Vec<Vec<(u32, u32)>>,
    seen: FxHashSet<(u32, Box<[ObjId]>)>,
    actions: Vec<(u32, Box<[ObjId]>)>,
    options: &'t GroundOptions,
}

/// The positive atoms of a condition's top-level conjunction.
fn required_atoms<'c>(c: &'c Cond, out: &mut Vec<&'c AtomRef>) {
    match c {
        Cond::Atom(a) => out.push(a),
        Cond::And(parts) => parts.iter().for_each(|p| required_atoms(p, out)),
        _ => {}
    }
}

fn arg_obj(a: Arg, b: &[ObjId]) -> ObjId {
    match a {
        Arg::Obj(o) => o,
        Arg::Slot(s) => b.get(s as usize).copied().unwrap_or(UNBOUND),
    }
}

impl<'t> Grounder<'t> {
    fn new(task: &'t Task, options: &'t GroundOptions) -> Result<Grounder<'t>, GroundError> {
        let mut required = Vec::new();
        let mut triggers = vec![Vec::new(); task.predicate_count()];
        for (s, schema) in task.schemas().iter().enumerate() {
            let mut req = Vec::new();
            required_atoms(&schema.pre, &mut req);
            for (i, a) in req.iter().enumerate() {
                if let Some(t) = triggers.get_mut(a.pred as usize) {
                    t.push((s as u32, i as u32));
                }
            }
            required.push(req);
        }
        let mut g = Grounder {
            task,
            facts: (0..task.predicate_count())
                .map(|_| PredFacts::default())
                .collect(),
            queue: Vec::new(),
            n_facts: 0,
            required,
            triggers,
            seen: FxHashSet::default(),
            actions: Vec::new(),
            options,
        };
        for (pred, args) in task.true_atoms(&task.initial_state()) {
            g.add_fact(pred, &args)?;
        }
        Ok(g)
    }

    fn add_fact(&mut self, pred: u32, args: &[ObjId]) -> Result<(), GroundError> {
        let Some(facts) = self.facts.get_mut(pred as usize) else {
            return Ok(());
        };
        if facts.insert(args) {
            self.queue.push((pred, facts.list.len() as u32 - 1));
            self.n_facts += 1;
            // Every 4,096 facts: often enough to stop within milliseconds, rare enough to
            // cost nothing.
            if self.n_facts.is_multiple_of(4096) && self.options.cancel.is_set() {
                return Err(GroundError::Cancelled);
            }
            if self.n_facts > self.options.max_facts {
                return Err(GroundError::TooLarge {
                    what: "reachable facts",
                    limit: self.options.max_facts,
                });
            }
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), GroundError> {
        // Actions with no required atom are instantiated once, up front.
        for s in 0..self.required.len() {
            if self.required[s].is_empty() {
                let schema = &self.task.schemas()[s];
                let mut b = vec![UNBOUND; schema.slots.max(schema.params.len())];
                self.extend(s as u32, &mut Vec::new(), &mut b)?;
            }
        }
        // The queue is a stack: the order facts are processed in does not matter.
        while let Some((pred, id)) = self.queue.pop() {
            let args = self.facts[pred as usize].list[id as usize].clone();
            for t in 0..self.triggers[pred as usize].len() {
                let (s, i) = self.triggers[pred as usize][t];
                let schema = &self.task.schemas()[s as usize];
                let mut b = vec![UNBOUND; schema.slots.max(schema.params.len())];
                let atom = self.required[s as usize][i as usize];
                let mut bound = Vec::new();
                if !self.unify(s, atom, &args, &mut b, &mut bound) {
                    continue;
                }
                let mut rest: Vec<u32> = (0..self.required[s as usize].len() as u32)
                    .filter(|&j| j != i)
                    .collect();
                self.join(s, &mut rest, &mut b)?;
            }
        }
        Ok(())
    }

    /// Bind the slots of `atom` to `args`; false (with `b` restored) if they disagree or an
    /// object does not fit its parameter's type.
    fn unify(
        &self,
        s: u32,
        atom: &AtomRef,
        args: &[ObjId],
        b: &mut [ObjId],
        bound: &mut Vec<u16>,
    ) -> bool {
        let start = bound.len();
        let params = &self.task.schemas()[s as usize].params;
        for (&a, &o) in atom.args.iter().zip(args) {
            let ok = match a {
                Arg::Obj(x) => x == o,
                Arg::Slot(slot) => match b.get(slot as usize).copied() {
                    Some(UNBOUND) => {
                        let fits = params
                            .get(slot as usize)
                            .is_none_or(|&(_, d)| self.task.in_domain(o, d));
                        if fits {
                            b[slot as usize] = o;
                            bound.push(slot);
                        }
                        fits
                    }
                    Some(x) => x == o,
                    None => false,
                },
            };
            if !ok {
                for &slot in &bound[start..] {
                    b[slot as usize] = UNBOUND;
                }
                bound.truncate(start);
                return false;
            }
        }
        true
    }

    /// Join the required atoms `rest` against the facts reached so far, then enumerate the
    /// parameters still unbound.
    fn join(&mut self, s: u32, rest: &mut Vec<u32>, b: &mut Vec<ObjId>) -> Result<(), GroundError> {
        if rest.is_empty() {
            return self.extend(s, &mut Vec::new(), b);
        }
        // The most constrained atom next: the one with the shortest candidate list.
        let mut best = (usize::MAX, 0usize, None::<(usize, ObjId)>);
        for (k, &j) in rest.iter().enumerate() {
            let atom = self.required[s as usize][j as usize];
            let facts = &self.facts[atom.pred as usize];
            let mut cand = (facts.list.len(), None);
            for (pos, &a) in atom.args.iter().enumerate() {
                let o = arg_obj(a, b);
                if o != UNBOUND {
                    let n = facts
                        .by_arg
                        .get(pos)
                        .and_then(|m| m.get(&o))
                        .map_or(0, Vec::len);
                    if n < cand.0 {
                        cand = (n, Some((pos, o)));
                    }
                }
            }
            if cand.0 < best.0 {
                best = (cand.0, k, cand.1);
            }
        }
        if best.0 == 0 {
            return Ok(());
        }
        let j = rest.swap_remove(best.1);
        let atom = self.required[s as usize][j as usize];
        let candidates: Vec<u32> = match best.2 {
            Some((pos, o)) => self.facts[atom.pred as usize].by_arg[pos]
                .get(&o)
                .cloned()
                .unwrap_or_default(),
            None => (0..self.facts[atom.pred as usize].list.len() as u32).collect(),
        };
        let mut bound = Vec::new();
        for id in candidates {
            let args = self.facts[atom.pred as usize].list[id as usize].clone();
            if self.unify(s, atom, &args, b, &mut bound) {
                self.join(s, rest, b)?;
                for &slot in &bound {
                    b[slot as usize] = UNBOUND;
                }
                bound.clear();
            }
        }
        rest.push(j);
        let last = rest.len() - 1;
        rest.swap(best.1, last);
        Ok(())
    }

    /// Enumerate the unbound parameters over their domains and emit each action.
    fn extend(
        &mut self,
        s: u32,
        stack: &mut Vec<u16>,
        b: &mut Vec<ObjId>,
    ) -> Result<(), GroundError> {
        let schema = &self.task.schemas()[s as usize];
        let next =
            (0..schema.params.len()).find(|&p| b[p] == UNBOUND && !stack.contains(&(p as u16)));
        match next {
            Some(p) => {
                let domain = schema.params[p].1;
                stack.push(p as u16);
                for &o in self.task.domain_objects(domain) {
                    b[p] = o;
                    self.extend(s, stack, b)?;
                }
                b[p] = UNBOUND;
                stack.pop();
                Ok(())
            }
            None => self.emit(s, b),
        }
    }

    fn emit(&mut self, s: u32, b: &mut [ObjId]) -> Result<(), GroundError> {
        let schema = &self.task.schemas()[s as usize];
        let args: Box<[ObjId]> = b[..schema.params.len()].into();
        if !self.seen.insert((s, args.clone())) {
            return Ok(());
        }
        if self.relaxed(&schema.pre, b) == Tri::False {
            return Ok(());
        }
        self.actions.push((s, args));
        if self.actions.len().is_multiple_of(1024) && self.options.cancel.is_set() {
            return Err(GroundError::Cancelled);
        }
        if self.actions.len() > self.options.max_actions {
            return Err(GroundError::TooLarge {
                what: "ground actions",
                limit: self.options.max_actions,
            });
        }
        let mut adds = Vec::new();
        self.relaxed_adds(&schema.effects, b, &mut adds);
        for (pred, args) in adds {
            self.add_fact(pred, &args)?;
        }
        Ok(())
    }

    /// The atoms `effs` may add under binding `b` in the relaxation.
    fn relaxed_adds(&self, effs: &[Eff], b: &mut [ObjId], out: &mut Vec<(u32, Vec<ObjId>)>) {
        for e in effs {
            match e {
                Eff::Add(a) => out.push((a.pred, a.args.iter().map(|&x| arg_obj(x, b)).collect())),
                Eff::When { cond, body } => {
                    if self.relaxed(cond, b) != Tri::False {
                        self.relaxed_adds(body, b, out);
                    }
                }
                Eff::Forall { vars, body } => self.forall_adds(vars, body, b, out),
                Eff::Del(_) | Eff::Num { .. } => {}
            }
        }
    }

    fn forall_adds(
        &self,
        vars: &[QVar],
        body: &[Eff],
        b: &mut [ObjId],
        out: &mut Vec<(u32, Vec<ObjId>)>,
    ) {
        let Some((first, rest)) = vars.split_first() else {
            return self.relaxed_adds(body, b, out);
        };
        for &o in self.task.domain_objects(first.domain) {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.forall_adds(rest, body, b, out);
        }
    }

    /// What the relaxation knows of `c`: static atoms, equality and connectives over them.
    fn relaxed(&self, c: &Cond, b: &mut [ObjId]) -> Tri {
        match c {
            Cond::True => Tri::True,
            Cond::Atom(a) => match self.task.predicate_kind(a.pred) {
                PredKind::Static => {
                    let args: Vec<ObjId> = a.args.iter().map(|&x| arg_obj(x, b)).collect();
                    if self.facts[a.pred as usize]
                        .ids
                        .contains_key(args.as_slice())
                    {
                        Tri::True
                    } else {
                        Tri::False
                    }
                }
                _ => Tri::Unknown,
            },
            Cond::Eq(x, y, _) => {
                if arg_obj(*x, b) == arg_obj(*y, b) {
                    Tri::True
                } else {
                    Tri::False
                }
            }
            Cond::Not(inner, _) => match self.relaxed(inner, b) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
            Cond::And(parts) => {
                let mut out = Tri::True;
                for p in parts {
                    match self.relaxed(p, b) {
                        Tri::False => return Tri::False,
                        Tri::Unknown => out = Tri::Unknown,
                        Tri::True => {}
                    }
                }
                out
            }
            Cond::Or(parts, _) => {
                let mut out = Tri::False;
                for p in parts {
                    match self.relaxed(p, b) {
                        Tri::True => return Tri::True,
                        Tri::Unknown => out = Tri::Unknown,
                        Tri::False => {}
                    }
                }
                out
            }
            Cond::Imply(x, y) => match (self.relaxed(x, b), self.relaxed(y, b)) {
                (Tri::False, _) | (_, Tri::True) => Tri::True,
                (Tri::True, Tri::False) => Tri::False,
                _ => Tri::Unknown,
            },
            Cond::Quant {
                forall, vars, body, ..
            } => self.relaxed_quant(*forall, vars, body, b),
            Cond::Compare(..) => Tri::Unknown,
        }
    }

    fn relaxed_quant(&self, forall: bool, vars: &[QVar], body: &Cond, b: &mut [ObjId]) -> Tri {
        let Some((first, rest)) = vars.split_first() else {
            return self.relaxed(body, b);
        };
        let (decisive, other) = if forall {
            (Tri::False, Tri::True)
        } else {
            (Tri::True, Tri::False)
        };
        let mut out = other;
        for &o in self.task.domain_objects(first.domain) {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            match self.relaxed_quant(forall, rest, body, b) {
                v if v == decisive => return decisive,
                Tri::Unknown => out = Tri::Unknown,
                _ => {}
            }
        }
        out
    }
}

/// Compiles lifted conditions and effects of reached actions against the reached facts.
struct Compiler<'g, 't> {
    task: &'t Task,
    facts: &'g [PredFacts],
    /// Per predicate: the id of its first atom when fluent.
    atom_base: Vec<Option<u32>>,
    /// Numeric state variables by (function, args).
    var_ids: FxHashMap<(u32, Box<[ObjId]>), u32>,
    /// Functions nothing reads: their updates keep no value.
    unread: Vec<bool>,
    /// Values of fluents in the initial state.
    init_values: FxHashMap<(u32, Box<[ObjId]>), f64>,
}

impl Compiler<'_, '_> {
    fn atom(&self, a: &AtomRef, b: &[ObjId]) -> GCond {
        let args: Vec<ObjId> = a.args.iter().map(|&x| arg_obj(x, b)).collect();
        let pf = &self.facts[a.pred as usize];
        match (
            self.task.predicate_kind(a.pred),
            pf.ids.get(args.as_slice()),
        ) {
            (_, None) => GCond::False,
            (PredKind::Fluent, Some(&i)) => match self.atom_base[a.pred as usize] {
                Some(base) => GCond::Atom(base + i),
                None => GCond::False,
            },
            (_, Some(_)) => GCond::True,
        }
    }

    fn atom_id(&self, a: &AtomRef, b: &[ObjId]) -> Option<u32> {
        match self.atom(a, b) {
            GCond::Atom(i) => Some(i),
            _ => None,
        }
    }

    fn cond(&self, c: &Cond, b: &mut [ObjId]) -> GCond {
        match c {
            Cond::True => GCond::True,
            Cond::Atom(a) => self.atom(a, b),
            Cond::Eq(x, y, _) => {
                if arg_obj(*x, b) == arg_obj(*y, b) {
                    GCond::True
                } else {
                    GCond::False
                }
            }
            Cond::Not(inner, _) => negate(self.cond(inner, b)),
            Cond::And(parts) => and(parts.iter().map(|p| self.cond(p, b)).collect()),
            Cond::Or(parts, _) => or(parts.iter().map(|p| self.cond(p, b)).collect()),
            Cond::Imply(x, y) => or(vec![negate(self.cond(x, b)), self.cond(y, b)]),
            Cond::Quant {
                forall, vars, body, ..
            } => {
                let mut parts = Vec::new();
                self.quant(vars, body, b, &mut parts);
                if *forall { and(parts) } else { or(parts) }
            }
            Cond::Compare(op, l, r, _) => {
                let l = self.num(l, b);
                let r = self.num(r, b);
                match (&l, &r) {
                    // Kept: reading an undefined fluent is an error, which is not the same
                    // as false under negation or inside a disjunction (Kleene logic).
                    (GNum::Undefined, _) | (_, GNum::Undefined) => GCond::Cmp {
                        op: *op,
                        l,
                        r,
                        negated: false,
                    },
                    (GNum::Const(x), GNum::Const(y)) => {
                        if safeplan_validate::lifted::compare(
                            *op,
                            *x,
                            *y,
                            self.task.numeric_slack(),
                        ) {
                            GCond::True
                        } else {
                            GCond::False
                        }
                    }
                    _ => GCond::Cmp {
                        op: *op,
                        l,
                        r,
                        negated: false,
                    },
                }
            }
        }
    }

    fn quant(&self, vars: &[QVar], body: &Cond, b: &mut [ObjId], out: &mut Vec<GCond>) {
        let Some((first, rest)) = vars.split_first() else {
            out.push(self.cond(body, b));
            return;
        };
        for &o in self.task.domain_objects(first.domain) {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.quant(rest, body, b, out);
        }
    }

    fn num(&self, e: &NumExpr, b: &[ObjId]) -> GNum {
        match e {
            NumExpr::Const(x) => GNum::Const(*x),
            // Refused before compiling: see `unsupported`. Preference counts are read only
            // by the metric, which the planner does not read.
            NumExpr::TotalTime | NumExpr::Duration | NumExpr::IsViolated(_) => GNum::Undefined,
            NumExpr::Fluent(f) => {
                let key = (
                    f.func,
                    f.args
                        .iter()
                        .map(|&x| arg_obj(x, b))
                        .collect::<Box<[ObjId]>>(),
                );
                if let Some(&v) = self.var_ids.get(&key) {
                    return GNum::Var(v);
                }
                match self.init_values.get(&key) {
                    Some(&v) => GNum::Const(v),
                    None => GNum::Undefined,
                }
            }
            NumExpr::Arith(op, args) => {
                let args: Vec<GNum> = args.iter().map(|a| self.num(a, b)).collect();
                if args.contains(&GNum::Undefined) {
                    return GNum::Undefined;
                }
                if args.iter().all(|a| matches!(a, GNum::Const(_))) {
                    let vals: Vec<f64> = args
                        .iter()
                        .map(|a| match a {
                            GNum::Const(x) => *x,
                            _ => 0.0,
                        })
                        .collect();
                    return match crate::eval::arith(*op, &vals) {
                        Some(v) => GNum::Const(v),
                        None => GNum::Undefined,
                    };
                }
                GNum::Arith(*op, args)
            }
        }
    }

    /// Ground `effs` under `b` into `out`, each group of effects with its condition.
    fn effects(&self, effs: &[Eff], b: &mut [ObjId], cond: &GCond, out: &mut Vec<(GCond, Effect)>) {
        let here = out.len();
        out.push((cond.clone(), Effect::default()));
        for e in effs {
            match e {
                Eff::Add(a) => {
                    if let Some(id) = self.atom_id(a, b) {
                        out[here].1.adds.push(id);
                    }
                }
                Eff::Del(a) => {
                    if let Some(id) = self.atom_id(a, b) {
                        out[here].1.dels.push(id);
                    }
                }
                Eff::Num {
                    op, target, value, ..
                } => {
                    let key = (
                        target.func,
                        target
                            .args
                            .iter()
                            .map(|&x| arg_obj(x, b))
                            .collect::<Box<[ObjId]>>(),
                    );
                    let var = self.var_ids.get(&key).copied();
                    let value = self.num(value, b);
                    out[here].1.nums.push(NumEff {
                        op: *op,
                        var,
                        value,
                    });
                }
                Eff::When { cond: c, body } => {
                    let c = and(vec![cond.clone(), self.cond(c, b)]);
                    if c != GCond::False {
                        self.effects(body, b, &c, out);
                    }
                }
                Eff::Forall { vars, body } => self.forall(vars, body, b, cond, out),
            }
        }
    }

    fn forall(
        &self,
        vars: &[QVar],
        body: &[Eff],
        b: &mut [ObjId],
        cond: &GCond,
        out: &mut Vec<(GCond, Effect)>,
    ) {
        let Some((first, rest)) = vars.split_first() else {
            return self.effects(body, b, cond, out);
        };
        for &o in self.task.domain_objects(first.domain) {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.forall(rest, body, b, cond, out);
        }
    }

    /// What `effs` under `b` add to the function `cost` (the metric's): the sum of their
    /// `increase`s of it, each a constant whole number from 0 to [`MAX_ACTION_COST`] once
    /// grounded; else why that is not an action cost. `nested`: inside a `when` or a
    /// `forall`, where an update would make the cost depend on the state or the objects.
    fn action_cost(
        &self,
        effs: &[Eff],
        b: &[ObjId],
        cost: u32,
        nested: bool,
    ) -> Result<f64, String> {
        let mut sum = 0.0;
        for e in effs {
            match e {
                Eff::Num {
                    op, target, value, ..
                } if target.func == cost => {
                    if nested {
                        return Err("updates it inside a `when` or `forall`".into());
                    }
                    if *op != AssignOp::Increase {
                        return Err("updates it by other than `increase`".into());
                    }
                    match self.num(value, b) {
                        GNum::Const(c)
                            if (0.0..=MAX_ACTION_COST).contains(&c) && c.fract() == 0.0 =>
                        {
                            sum += c
                        }
                        GNum::Const(c) => {
                            return Err(format!(
                                "increases it by {c}, not a whole number from 0 to {MAX_ACTION_COST}"
                            ));
                        }
                        GNum::Undefined => {
                            return Err("increases it by a function with no value".into());
                        }
                        _ => {
                            return Err(
                                "increases it by an amount that depends on the state".into()
                            );
                        }
                    }
                }
                Eff::When { body, .. } | Eff::Forall { body, .. } => {
                    self.action_cost(body, b, cost, true)?;
                }
                Eff::Num { .. } | Eff::Add(_) | Eff::Del(_) => {}
            }
        }
        if sum > MAX_ACTION_COST {
            return Err(format!(
                "increases it by {sum} in all, more than {MAX_ACTION_COST}"
            ));
        }
        Ok(sum)
    }

    /// The ground fluents targeted by `effs` under `b` (forall expanded, conditions not read).
    fn targets(&self, effs: &[Eff], b: &mut [ObjId], out: &mut Vec<(u32, Box<[ObjId]>)>) {
        for e in effs {
            match e {
                Eff::Num { target, .. } => {
                    if !self.unread[target.func as usize] {
                        out.push((
                            target.func,
                            target.args.iter().map(|&x| arg_obj(x, b)).collect(),
                        ));
                    }
                }
                Eff::When { body, .. } => self.targets(body, b, out),
                Eff::Forall { vars, body } => self.forall_targets(vars, body, b, out),
                Eff::Add(_) | Eff::Del(_) => {}
            }
        }
    }

    fn forall_targets(
        &self,
        vars: &[QVar],
        body: &[Eff],
        b: &mut [ObjId],
        out: &mut Vec<(u32, Box<[ObjId]>)>,
    ) {
        let Some((first, rest)) = vars.split_first() else {
            return self.targets(body, b, out);
        };
        for &o in self.task.domain_objects(first.domain) {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.forall_targets(rest, body, b, out);
        }
    }
}

/// `c` negated, in negation normal form.
pub(crate) fn negate(c: GCond) -> GCond {
    match c {
        GCond::True => GCond::False,
        GCond::False => GCond::True,
        GCond::Atom(a) => GCond::NotAtom(a),
        GCond::NotAtom(a) => GCond::Atom(a),
        GCond::And(parts) => or(parts.into_iter().map(negate).collect()),
        GCond::Or(parts) => and(parts.into_iter().map(negate).collect()),
        GCond::Cmp { op, l, r, negated } => GCond::Cmp {
            op,
            l,
            r,
            negated: !negated,
        },
    }
}

/// A simplified conjunction.
pub(crate) fn and(parts: Vec<GCond>) -> GCond {
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            GCond::True => {}
            GCond::False => return GCond::False,
            GCond::And(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
    match out.len() {
        0 => GCond::True,
        1 => out.pop().unwrap_or(GCond::True),
        _ => GCond::And(out),
    }
}

/// A simplified disjunction.
pub(crate) fn or(parts: Vec<GCond>) -> GCond {
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            GCond::False => {}
            GCond::True => return GCond::True,
            GCond::Or(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
    match out.len() {
        0 => GCond::False,
        1 => out.pop().unwrap_or(GCond::False),
        _ => GCond::Or(out),
    }
}

/// Split a condition into required atoms, forbidden atoms and the rest; `None` when it can
/// never hold.
pub(crate) fn split(c: GCond) -> Option<Pre> {
    let parts = match c {
        GCond::False => return None,
        GCond::True => Vec::new(),
        GCond::And(parts) => parts,
        other => vec![other],
    };
    let mut pre = Pre::default();
    let mut rest = Vec::new();
    for p in parts {
        match p {
            GCond::Atom(a) => pre.pos.push(a),
            GCond::NotAtom(a) => pre.neg.push(a),
            other => rest.push(other),
        }
    }
    pre.pos.sort_unstable();
    pre.pos.dedup();
    pre.neg.sort_unstable();
    pre.neg.dedup();
    if pre.pos.iter().any(|a| pre.neg.binary_search(a).is_ok()) {
        return None;
    }
    if !rest.is_empty() {
        pre.rest = Some(and(rest));
    }
    Some(pre)
}

/// Whether evaluating `c` can be a numeric error rather than true or false: it compares
/// numbers somewhere.
fn may_fail(c: &GCond) -> bool {
    match c {
        GCond::Cmp { .. } => true,
        GCond::And(parts) | GCond::Or(parts) => parts.iter().any(may_fail),
        GCond::True | GCond::False | GCond::Atom(_) | GCond::NotAtom(_) => false,
    }
}

/// Functions read anywhere: in a condition or in any numeric expression.
fn read_functions(task: &Task) -> Vec<bool> {
    fn num(e: &NumExpr, out: &mut [bool]) {
        match e {
            NumExpr::Fluent(f) => {
                if let Some(r) = out.get_mut(f.func as usize) {
                    *r = true;
                }
            }
            NumExpr::Arith(_, args) => args.iter().for_each(|a| num(a, out)),
            NumExpr::Const(_) | NumExpr::TotalTime | NumExpr::Duration | NumExpr::IsViolated(_) => {
            }
        }
    }
    fn cond(c: &Cond, out: &mut [bool]) {
        match c {
            Cond::Not(inner, _) => cond(inner, out),
            Cond::And(parts) | Cond::Or(parts, _) => parts.iter().for_each(|p| cond(p, out)),
            Cond::Imply(x, y) => {
                cond(x, out);
                cond(y, out);
            }
            Cond::Quant { body, .. } => cond(body, out),
            Cond::Compare(_, l, r, _) => {
                num(l, out);
                num(r, out);
            }
            Cond::True | Cond::Atom(_) | Cond::Eq(..) => {}
        }
    }
    fn eff(e: &Eff, out: &mut [bool]) {
        match e {
            Eff::Num { value, .. } => num(value, out),
            Eff::When { cond: c, body } => {
                cond(c, out);
                body.iter().for_each(|b| eff(b, out));
            }
            Eff::Forall { body, .. } => body.iter().for_each(|b| eff(b, out)),
            Eff::Add(_) | Eff::Del(_) => {}
        }
    }
    let mut out = vec![false; task.function_count()];
    cond(task.goal(), &mut out);
    for s in task.schemas() {
        cond(&s.pre, &mut out);
        s.effects.iter().for_each(|e| eff(e, &mut out));
    }
    // A hard constraint reads its functions in every state, as the validator does: one only
    // a rule reads (`(always (<= (moves) 1))`) must stay in the state, or the rule would
    // see its initial value for good.
    for h in task.hard_constraints() {
        cond(h.phi, &mut out);
        if let Some(psi) = h.psi {
            cond(psi, &mut out);
        }
    }
    out
}

/// For each function: whether every update of it is `increase`/`decrease` (so an undefined
/// value counts from 0 and no update can fail on the base value).
fn additive_only(task: &Task) -> Vec<bool> {
    fn eff(e: &Eff, out: &mut [bool]) {
        match e {
            Eff::Num { op, target, .. } => {
                if !matches!(op, AssignOp::Increase | AssignOp::Decrease)
                    && let Some(x) = out.get_mut(target.func as usize)
                {
                    *x = false;
                }
            }
            Eff::When { body, .. } | Eff::Forall { body, .. } => {
                body.iter().for_each(|b| eff(b, out))
            }
            Eff::Add(_) | Eff::Del(_) => {}
        }
    }
    let mut out = vec![true; task.function_count()];
    for s in task.schemas() {
        s.effects.iter().for_each(|e| eff(e, &mut out));
    }
    out
}

/// The function whose value plans minimize when the metric is action costs, `(minimize
/// (F))` with `F` a fluent without arguments (IPC's `total-cost`); `Ok(None)` without a
/// metric or with `(minimize (total-time))` (steps, in a sequential plan); else why the
/// metric is not action costs.
fn cost_function(task: &Task) -> Result<Option<u32>, String> {
    match task.metric() {
        // A sequential plan's `(total-time)` is its number of steps: what steps measure.
        None | Some((safeplan_pddl::ast::Optimization::Minimize, NumExpr::TotalTime)) => Ok(None),
        Some((safeplan_pddl::ast::Optimization::Minimize, NumExpr::Fluent(f))) if f.args.is_empty() => {
            Ok(Some(f.func))
        }
        Some((safeplan_pddl::ast::Optimization::Maximize, _)) => {
            Err("the metric is maximized, not a sum of action costs to minimize".into())
        }
        Some(_) => Err(
            "the metric is not `(minimize (F))` of one fluent without arguments, as action costs' `(total-cost)` is"
                .into(),
        ),
    }
}

/// Why a task cannot be planned for, if it cannot.
fn unsupported(task: &Task) -> Option<GroundError> {
    if task.is_temporal() {
        return Some(GroundError::Unsupported {
            feature: "durative actions (temporal planning)",
        });
    }
    if task.has_derived_predicates() {
        return Some(GroundError::Unsupported {
            feature: "derived predicates (:derived)",
        });
    }
    if task.hard_constraints().count() > crate::rules::MAX_PLANNED_INSTANCES {
        return Some(GroundError::Unsupported {
            feature: "more than 4,096 ground instances of hard trajectory constraints",
        });
    }
    fn num(e: &NumExpr) -> bool {
        match e {
            NumExpr::TotalTime | NumExpr::Duration => true,
            NumExpr::Arith(_, args) => args.iter().any(num),
            NumExpr::Const(_) | NumExpr::Fluent(_) | NumExpr::IsViolated(_) => false,
        }
    }
    fn cond(c: &Cond) -> bool {
        match c {
            Cond::Not(inner, _) => cond(inner),
            Cond::And(parts) | Cond::Or(parts, _) => parts.iter().any(cond),
            Cond::Imply(x, y) => cond(x) || cond(y),
            Cond::Quant { body, .. } => cond(body),
            Cond::Compare(_, l, r, _) => num(l) || num(r),
            Cond::True | Cond::Atom(_) | Cond::Eq(..) => false,
        }
    }
    fn eff(e: &Eff) -> bool {
        match e {
            Eff::Num { value, .. } => num(value),
            Eff::When { cond: c, body } => cond(c) || body.iter().any(eff),
            Eff::Forall { body, .. } => body.iter().any(eff),
            Eff::Add(_) | Eff::Del(_) => false,
        }
    }
    let uses_time = cond(task.goal())
        || task
            .schemas()
            .iter()
            .any(|s| cond(&s.pre) || s.effects.iter().any(eff));
    uses_time.then_some(GroundError::Unsupported {
        feature: "(total-time) in a condition or effect",
    })
}

impl GroundTask {
    /// Ground `task` by reachability.
    ///
    pub fn ground(task: &Task, options: &GroundOptions) -> Result<GroundTask, GroundError> {
        GroundTask::ground_keeping(task, options, &[])
    }

    /// [`GroundTask::ground`], keeping the values of the functions `keep` in the state even
    /// if nothing in the task reads them (the danger fluent, which the safety goal reads).
    pub(crate) fn ground_keeping(
        task: &Task,
        options: &GroundOptions,
        keep: &[u32],
    ) -> Result<GroundTask, GroundError> {
        if let Some(e) = unsupported(task) {
            return Err(e);
        }
        let mut g = Grounder::new(task, options)?;
        g.run()?;
        let Grounder { facts, actions, .. } = g;

        // Number the reached fluent atoms.
        let mut atoms = Vec::new();
        let mut atom_base = vec![None; task.predicate_count()];
        for (p, pf) in facts.iter().enumerate() {
            if task.predicate_kind(p as u32) == PredKind::Fluent {
                atom_base[p] = Some(atoms.len() as u32);
                atoms.extend(pf.list.iter().map(|args| (p as u32, args.clone())));
            }
        }
        let read = read_functions(task);
        let additive = additive_only(task);
        let unread: Vec<bool> = (0..task.function_count())
            .map(|f| !read[f] && additive[f] && !keep.contains(&(f as u32)))
            .collect();
        let init_state = task.initial_state();
        let init_values: FxHashMap<(u32, Box<[ObjId]>), f64> = task
            .defined_values(&init_state)
            .into_iter()
            .map(|(f, args, v)| ((f, args.into_boxed_slice()), v))
            .collect();
        let mut compiler = Compiler {
            task,
            facts: &facts,
            atom_base,
            var_ids: FxHashMap::default(),
            unread,
            init_values,
        };

        // Numeric state variables: every ground fluent an action may change and something
        // reads (plus the kept ones).
        let mut vars = Vec::new();
        let mut targets = Vec::new();
        for (s, args) in &actions {
            let schema = &task.schemas()[*s as usize];
            let mut b = vec![0; schema.slots.max(args.len())];
            b[..args.len()].copy_from_slice(args);
            compiler.targets(&schema.effects, &mut b, &mut targets);
        }
        for key in targets {
            if !compiler.var_ids.contains_key(&key) {
                compiler.var_ids.insert(key.clone(), vars.len() as u32);
                let init = compiler.init_values.get(&key).copied().unwrap_or(f64::NAN);
                vars.push(NumVar {
                    func: key.0,
                    args: key.1,
                    init,
                });
            }
        }
        // A kept function no action changes still needs its (constant) value in the state.
        for &f in keep {
            if task.function_arity(f) == 0 && !compiler.var_ids.contains_key(&(f, Box::from([]))) {
                let key: (u32, Box<[ObjId]>) = (f, Box::from([]));
                let init = compiler.init_values.get(&key).copied().unwrap_or(f64::NAN);
                compiler.var_ids.insert(key, vars.len() as u32);
                vars.push(NumVar {
                    func: f,
                    args: Box::from([]),
                    init,
                });
            }
        }

        let mut ops = Vec::with_capacity(actions.len());
        let mut costs = Vec::with_capacity(actions.len());
        let cost_function = cost_function(task);
        // Why the metric is not action costs, once a ground action shows it is not.
        let mut not_costs = cost_function.as_ref().err().cloned();
        let mut effects = Vec::new();
        for (s, args) in actions {
            let schema = &task.schemas()[s as usize];
            let mut b = vec![0; schema.slots.max(args.len())];
            b[..args.len()].copy_from_slice(&args);
            let Some(pre) = split(compiler.cond(&schema.pre, &mut b)) else {
                continue;
            };
            if let (Ok(Some(f)), None) = (&cost_function, &not_costs) {
                match compiler.action_cost(&schema.effects, &b, *f, false) {
                    Ok(c) => costs.push(c as u32),
                    Err(why) => {
                        let objects = task.objects();
                        let step: String = std::iter::once(schema.name.to_string())
                            .chain(args.iter().map(|&o| {
                                objects
                                    .get(o as usize)
                                    .map_or("?".into(), |x| x.name.to_string())
                            }))
                            .collect::<Vec<_>>()
                            .join(" ");
                        not_costs = Some(format!("({step}) {why} of ({})", task.function_name(*f)));
                    }
                }
            }
            effects.clear();
            compiler.effects(&schema.effects, &mut b, &GCond::True, &mut effects);
            let mut always = Effect::default();
            let mut conditional = Vec::new();
            for (cond, e) in effects.drain(..) {
                // A condition with nothing to do is still evaluated by the validator, and a
                // comparison in it can fail (an undefined fluent read): such a group stays,
                // empty, so the step fails here too (`(when (> 2 (f)) (and))`, f undefined).
                if e.adds.is_empty() && e.dels.is_empty() && e.nums.is_empty() && !may_fail(&cond) {
                    continue;
                }
                match cond {
                    GCond::True => {
                        always.adds.extend(e.adds);
                        always.dels.extend(e.dels);
                        always.nums.extend(e.nums);
                    }
                    other => {
                        if let Some(cond) = split(other) {
                            conditional.push(Effect { cond, ..e });
                        }
                    }
                }
            }
            let mut all = Vec::with_capacity(conditional.len() + 1);
            all.push(always);
            all.extend(conditional);
            ops.push(Op {
                schema: s,
                args,
                pre,
                effects: all,
            });
        }

        let (measure, costs, metric_note) = match (cost_function, not_costs) {
            // Every action at 1: the metric counts steps, and so do the searches.
            (Ok(Some(_)), None) if costs.iter().all(|&c| c == 1) => (Measure::Steps, costs, None),
            (Ok(Some(_)), None) => (Measure::ActionCosts, costs, None),
            (_, Some(why)) => (
                Measure::Steps,
                vec![1; ops.len()],
                Some(format!(
                    "plans are measured in steps, not by the metric: {why}"
                )),
            ),
            (_, None) => (Measure::Steps, vec![1; ops.len()], None),
        };
        let mut b = vec![0; task.goal_slots()];
        let goal = split(compiler.cond(task.goal(), &mut b));
        let rules = task
            .hard_constraints()
            .map(|h| {
                let mut b = vec![0; task.constraint_slots().max(h.binding.len())];
                b[..h.binding.len()].copy_from_slice(h.binding);
                crate::rules::GroundRule {
                    op: h.operator,
                    phi: compiler.cond(h.phi, &mut b),
                    psi: h.psi.map(|c| compiler.cond(c, &mut b)),
                    times: h.times,
                }
            })
            .collect();
        let init = task
            .true_atoms(&init_state)
            .into_iter()
            .filter_map(|(p, args)| {
                let base = compiler.atom_base[p as usize]?;
                facts[p as usize]
                    .ids
                    .get(args.as_slice())
                    .map(|&i| base + i)
            })
            .collect();
        Ok(GroundTask {
            atoms,
            ops,
            vars,
            init,
            goal_possible: goal.is_some(),
            goal: goal.unwrap_or_default(),
            slack: task.numeric_slack(),
            action_names: task.schemas().iter().map(|s| s.name.to_string()).collect(),
            object_names: task.objects().iter().map(|o| o.name.to_string()).collect(),
            rules: crate::rules::Rules::new(rules),
            measure,
            costs,
            metric_note,
        })
    }

    /// The number of reachable fluent atoms.
    pub fn atom_count(&self) -> usize {
        self.atoms.len()
    }

    /// The number of ground actions.
    pub fn action_count(&self) -> usize {
        self.ops.len()
    }

    /// The number of numeric state variables.
    pub fn numeric_count(&self) -> usize {
        self.vars.len()
    }

    /// A ground action as a plan step: `(name arg...)`.
    pub fn action_text(&self, op: usize) -> String {
        let Some(op) = self.ops.get(op) else {
            return String::new();
        };
        let mut s = String::from("(");
        s.push_str(
            self.action_names
                .get(op.schema as usize)
                .map_or("?", String::as_str),
        );
        for &a in op.args.iter() {
            s.push(' ');
            s.push_str(
                self.object_names
                    .get(a as usize)
                    .map_or("?", String::as_str),
            );
        }
        s.push(')');
        s
    }

    /// What plans are measured in: steps, or the metric's action costs.
    pub fn measure(&self) -> Measure {
        self.measure
    }

    /// Why the problem's metric is not what plans are measured in, when it has one that is
    /// not action costs (a numeric metric such as `(minimize (fuel-used))`, an action
    /// whose cost depends on the state): searches then measure plans in steps, and say so.
    pub fn metric_note(&self) -> Option<&str> {
        self.metric_note.as_deref()
    }

    /// The same task with every action costing 1: safety effort counts steps, as DESPITE
    /// defines it, whatever the metric.
    pub(crate) fn in_steps(&mut self) {
        if self.measure == Measure::ActionCosts {
            self.metric_note = Some(
                "plans are measured in steps, not by the metric's action costs: safety effort \
                 is a difference of plan lengths"
                    .into(),
            );
        }
        self.measure = Measure::Steps;
        self.costs.fill(1);
    }

    /// The cost of the ground actions `ops`, in [`GroundTask::measure`].
    pub(crate) fn cost_of(&self, ops: &[u32]) -> u64 {
        ops.iter().map(|&o| u64::from(self.costs[o as usize])).sum()
    }

    pub(crate) fn var_of(&self, func: u32) -> Option<u32> {
        self.vars
            .iter()
            .position(|v| v.func == func && v.args.is_empty())
            .map(|i| i as u32)
    }
}
