//! The compiled, lifted form of a task: conditions, effects and numeric expressions over
//! binding slots and interned ids, which the executor evaluates against a state.

use compact_str::CompactString;
use safeplan_pddl::Span;
use safeplan_pddl::ast::{ArithOp, AssignOp, CmpOp};
use serde::{Deserialize, Serialize};

/// An object (problem object or domain constant), by index into [`Task::objects`](super::Task::objects).
pub type ObjId = u32;
/// A type, by index into the task's type table; `object` is 0.
pub(crate) type TypeId = u32;

/// One object of the task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Object {
    /// The name as written where it was declared.
    pub name: CompactString,
    /// Declared in the domain's `:constants` (true) or the problem's `:objects`.
    pub constant: bool,
    pub(crate) types: Vec<TypeId>,
}

/// Where an atom of a predicate lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredKind {
    /// Changed by some action: part of every state.
    Fluent,
    /// Never changed by any action: stored once in the task.
    Static,
    /// Defined by an axiom, recomputed after every step.
    Derived,
}

#[derive(Clone, Debug)]
pub(crate) struct Symbol {
    pub name: CompactString,
    pub arity: usize,
    /// First slot in its set when dense, `None` when sparse.
    pub base: Option<u64>,
}

#[derive(Clone, Debug)]
pub(crate) struct Pred {
    pub sym: Symbol,
    pub kind: PredKind,
}

/// A term of a lifted atom: a slot of the binding or a fixed object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The object bound to this slot (a parameter, then quantified variables).
    Slot(u16),
    /// A fixed object (a constant written in the domain or problem).
    Obj(ObjId),
}

/// A lifted atom: a predicate applied to terms.
#[derive(Clone, Debug)]
pub struct AtomRef {
    /// The predicate's id (see [`Task::predicate_name`](crate::Task::predicate_name)).
    pub pred: u32,
    /// Its terms.
    pub args: Box<[Arg]>,
    /// Where it is written.
    pub span: Span,
}

/// A lifted numeric fluent: a function applied to terms.
#[derive(Clone, Debug)]
pub struct FluentRef {
    /// The function's id (see [`Task::function_name`](crate::Task::function_name)).
    pub func: u32,
    /// Its terms.
    pub args: Box<[Arg]>,
}

/// A quantified variable: its slot and the objects it ranges over.
#[derive(Clone, Debug)]
pub struct QVar {
    /// The binding slot it fills.
    pub slot: u16,
    /// Its name as written, without `?`.
    pub name: CompactString,
    /// The objects it ranges over (see [`Task::domain_objects`](crate::Task::domain_objects)).
    pub domain: u32,
}

/// A compiled numeric expression: names resolved to fluent ids and binding slots, ready to
/// evaluate against a [`State`](crate::State) without looking anything up.
#[derive(Clone, Debug)]
pub enum NumExpr {
    /// A number.
    Const(f64),
    /// The value of a fluent; reading an undefined one is a numeric error.
    Fluent(FluentRef),
    /// An arithmetic operation (`-` with one operand negates).
    Arith(ArithOp, Vec<NumExpr>),
    /// `(total-time)`: the number of steps executed so far (in a temporal plan, the time
    /// of the last happening).
    TotalTime,
    /// `?duration` inside a durative action: the step's duration, filled in when the step
    /// is bound (see `temporal`).
    Duration,
    /// `(is-violated NAME)` in the metric: how many instances of the preference (its index
    /// among the task's preference names) the plan violated, filled in when the plan ends.
    IsViolated(u32),
}

/// A lifted condition (precondition, `when` condition, goal, axiom body).
#[derive(Clone, Debug)]
pub enum Cond {
    /// Always holds (an empty precondition).
    True,
    /// An atom holds.
    Atom(AtomRef),
    /// Two terms denote the same object.
    Eq(Arg, Arg, Span),
    /// Negation.
    Not(Box<Cond>, Span),
    /// Conjunction.
    And(Vec<Cond>),
    /// Disjunction.
    Or(Vec<Cond>, Span),
    /// Implication.
    Imply(Box<Cond>, Box<Cond>),
    /// `forall` (when `forall`) or `exists` over the objects of each variable's domain.
    Quant {
        /// `forall` rather than `exists`.
        forall: bool,
        /// The variables, bound in their slots.
        vars: Vec<QVar>,
        /// The body.
        body: Box<Cond>,
        /// Where it is written.
        span: Span,
    },
    /// A numeric comparison, with the task's slack ([`Task::numeric_slack`](crate::Task::numeric_slack)).
    Compare(CmpOp, NumExpr, NumExpr, Span),
}

impl Cond {
    /// Slots a condition with no parameters needs: its deepest quantified variable.
    pub(crate) fn max_slot(&self) -> usize {
        match self {
            Cond::Quant { vars, body, .. } => vars
                .iter()
                .map(|v| v.slot as usize + 1)
                .max()
                .unwrap_or(0)
                .max(body.max_slot()),
            Cond::Not(x, _) => x.max_slot(),
            Cond::And(ps) | Cond::Or(ps, _) => ps.iter().map(Cond::max_slot).max().unwrap_or(0),
            Cond::Imply(x, y) => x.max_slot().max(y.max_slot()),
            _ => 0,
        }
    }
}

/// A lifted effect. All effects of a step read the state before it.
#[derive(Clone, Debug)]
pub enum Eff {
    /// Make an atom true.
    Add(AtomRef),
    /// Make an atom false (deletes apply before adds).
    Del(AtomRef),
    /// Update a numeric fluent.
    Num {
        /// `assign`, `increase`, ...
        op: AssignOp,
        /// The fluent updated.
        target: FluentRef,
        /// The operand, read in the state before the step.
        value: NumExpr,
        /// Where it is written.
        span: Span,
    },
    /// Conditional effects.
    When {
        /// The condition, read in the state before the step.
        cond: Cond,
        /// The effects when it holds.
        body: Vec<Eff>,
    },
    /// Universally quantified effects.
    Forall {
        /// The variables, bound in their slots.
        vars: Vec<QVar>,
        /// The effects, once per binding.
        body: Vec<Eff>,
    },
}

/// A compiled action schema: precondition and effects over binding slots, never grounded.
/// A plan step binds its objects to the slots, so a task with billions of possible ground
/// actions costs no more to validate than a small one.
#[derive(Clone, Debug)]
pub struct Schema {
    /// The name as declared.
    pub name: CompactString,
    /// Parameter names (without `?`) and the domain each ranges over; parameter `i` is
    /// slot `i`.
    pub params: Vec<(CompactString, u32)>,
    /// The precondition.
    pub pre: Cond,
    /// Where the precondition is written (the action's name when it has none).
    pub pre_span: Span,
    /// The effects.
    pub effects: Vec<Eff>,
    /// Slots a binding needs: the parameters (slots `0..params.len()`) plus the deepest
    /// nesting of quantified variables; never fewer than the parameters.
    pub slots: usize,
    /// The flat form of a STRIPS-like action, when it has one.
    pub(crate) fast: Option<Fast>,
    /// For a durative action, what it does besides starting: `pre` and `effects` above are
    /// its `at start` conditions and effects.
    pub durative: Option<Box<Durative>>,
    /// The preferences of its precondition (PDDL3 simple preferences): never part of
    /// `pre`; each execution while one is false counts a violation of it.
    pub preferences: Vec<ActionPreference>,
}

/// `(preference NAME φ)` in an action's precondition: soft. Each execution of the action
/// while φ is false counts one violation of NAME, which `(is-violated NAME)` in the metric
/// reads (as VAL counts them).
#[derive(Clone, Debug)]
pub struct ActionPreference {
    /// The name's index among the task's preference names; `None` when unnamed.
    pub name: Option<u32>,
    /// φ, over the action's parameters.
    pub cond: Cond,
    /// Where it is written.
    pub span: Span,
    /// For a durative action: judged at its end (`at end`) rather than at its start.
    pub at_end: bool,
}

/// The parts of a durative action (PDDL 2.1 level 3, SEMANTICS.md §2b) beyond its start.
#[derive(Clone, Debug)]
pub struct Durative {
    /// The constraints on `?duration`, each `?duration OP expr`, `expr` read in the state
    /// at the start.
    pub duration: Vec<(CmpOp, NumExpr)>,
    /// Where `:duration` is written.
    pub duration_span: Span,
    /// The `over all` conditions, which must hold strictly inside the interval.
    pub over_all: Cond,
    /// The `at end` conditions.
    pub end_pre: Cond,
    /// Where `:condition` is written (the action's name when it has none).
    pub condition_span: Span,
    /// The `at end` effects.
    pub end_effects: Vec<Eff>,
    /// Whether a condition or effect reads `?duration`.
    pub reads_duration: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub head: u32,
    pub params: Vec<u32>,
    pub body: Cond,
    pub slots: usize,
    pub stratum: usize,
}

/// An atom of the fast path: its predicate's first bit and its arguments.
#[derive(Clone, Debug)]
pub(crate) struct FastAtom {
    pub(crate) base: u64,
    pub(crate) args: Box<[Arg]>,
}

/// A literal of a fast precondition.
#[derive(Clone, Debug)]
pub(crate) struct FastLit {
    pub(crate) atom: FastAtom,
    pub(crate) is_static: bool,
    pub(crate) positive: bool,
}

/// The flat form of a STRIPS-like action (built by `fast`, run by `exec`): its
/// precondition as literals and equalities, its effects as deletes and adds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fast {
    pub(crate) lits: Vec<FastLit>,
    /// `(a, b, must_be_equal)`.
    pub(crate) eqs: Vec<(Arg, Arg, bool)>,
    pub(crate) dels: Vec<FastAtom>,
    pub(crate) adds: Vec<FastAtom>,
}
