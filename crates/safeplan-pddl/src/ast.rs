//! The typed AST of PDDL domains, problems and plans.
//!
//! Every node carries the byte [`Span`] it was read from. Names keep their original spelling;
//! PDDL is case-insensitive, so compare names with [`Name::matches`] or by [`Name::key`].
//! Equality (`==`) on AST nodes compares spans too; use [`EraseSpans`] to compare shapes.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::requirements::Requirement;
use crate::span::Span;

/// An identifier as written (names, types, variables without their `?`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Name {
    /// The spelling in the source. For a variable, without the leading `?`.
    pub text: CompactString,
    /// Where it was read.
    pub span: Span,
}

impl Name {
    /// A name with the given spelling and span.
    pub fn new(text: impl Into<CompactString>, span: Span) -> Name {
        Name {
            text: text.into(),
            span,
        }
    }

    /// The spelling as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Case-insensitive equality, as PDDL compares names.
    pub fn matches(&self, other: &str) -> bool {
        self.text.eq_ignore_ascii_case(other)
    }

    /// The canonical (ASCII-lowercased) spelling, for maps keyed by name.
    pub fn key(&self) -> CompactString {
        lowercase(&self.text)
    }
}

/// ASCII-lowercase `s` without allocating for short names.
pub fn lowercase(s: &str) -> CompactString {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        let mut out = CompactString::from(s);
        out.make_ascii_lowercase();
        out
    } else {
        CompactString::from(s)
    }
}

/// Look `name` up, ignoring ASCII case, in a map keyed by lowercase names (as
/// [`Name::key`] spells them). Names are nearly always written in lowercase, so the spelling
/// as given is tried first; only a miss pays for lowercasing, on the stack for names of up to
/// 64 bytes (DESPITE's plans write `PLACE_X` thousands of times).
#[inline]
pub fn get_ignore_case<'m, V, S: std::hash::BuildHasher>(
    map: &'m std::collections::HashMap<CompactString, V, S>,
    name: &str,
) -> Option<&'m V> {
    if let Some(v) = map.get(name) {
        return Some(v);
    }
    if !name.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let mut buf = [0u8; 64];
    match buf.get_mut(..name.len()) {
        Some(out) => {
            out.copy_from_slice(name.as_bytes());
            out.make_ascii_lowercase();
            // ASCII lowercasing keeps UTF-8 valid.
            std::str::from_utf8(out).ok().and_then(|key| map.get(key))
        }
        None => map.get(lowercase(name).as_str()),
    }
}

/// A type expression: a named type or `(either t1 t2 ...)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Type {
    /// A single named type (`object` included).
    Named(Name),
    /// A union of named types.
    Either(Vec<Name>, Span),
}

impl Type {
    /// Where the type was written.
    pub fn span(&self) -> Span {
        match self {
            Type::Named(n) => n.span,
            Type::Either(_, span) => *span,
        }
    }

    /// The named types this type admits (one for a plain type).
    pub fn names(&self) -> &[Name] {
        match self {
            Type::Named(n) => std::slice::from_ref(n),
            Type::Either(names, _) => names,
        }
    }
}

/// A name with an optional type, as in typed lists: `a b - t` gives two entries of type `t`.
/// `ty` is `None` when no type was written (the name is then of type `object`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Typed {
    /// The declared name (a variable's name has no `?`).
    pub name: Name,
    /// The declared type, if any.
    pub ty: Option<Type>,
}

/// A term: a variable (`?x`) or a constant/object name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Term {
    /// `?x` (the name without `?`).
    Var(Name),
    /// A constant or object.
    Const(Name),
}

impl Term {
    /// The name of the variable or constant.
    pub fn name(&self) -> &Name {
        match self {
            Term::Var(n) | Term::Const(n) => n,
        }
    }

    /// Where the term was written (a variable's span includes its `?`).
    pub fn span(&self) -> Span {
        self.name().span
    }
}

/// A predicate applied to terms: `(at ?t ?l)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Atom {
    /// The predicate.
    pub predicate: Name,
    /// The arguments.
    pub args: Vec<Term>,
    /// From `(` to `)`.
    pub span: Span,
}

/// A numeric function applied to terms: `(fuel ?a)`, `(total-cost)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FluentTerm {
    /// The function.
    pub function: Name,
    /// The arguments.
    pub args: Vec<Term>,
    /// From `(` to `)`; for a bare `total-time` in a metric, the name's span.
    pub span: Span,
}

/// Comparison operators of numeric conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `=` (numeric)
    Eq,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

impl CmpOp {
    /// The PDDL spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "=",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
        }
    }
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArithOp {
    /// `+`, two or more operands.
    Add,
    /// `-`: one operand (negation) or two.
    Sub,
    /// `*`, two or more operands.
    Mul,
    /// `/`, two operands.
    Div,
}

impl ArithOp {
    /// The PDDL spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
        }
    }
}

/// A numeric expression, as written: the value side of comparisons, numeric effects and
/// the metric. Nothing is evaluated here; safeplan-validate evaluates it against a state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A literal number.
    Number(f64, Span),
    /// The value of a numeric fluent.
    Fluent(FluentTerm),
    /// An operator applied to operands (arity as [`ArithOp`] documents).
    Arith(ArithOp, Vec<Expr>, Span),
    /// A variable in a numeric position: only `?duration` in durative actions.
    Var(Name),
}

impl Expr {
    /// Where the expression was written.
    pub fn span(&self) -> Span {
        match self {
            Expr::Number(_, span) | Expr::Arith(_, _, span) => *span,
            Expr::Fluent(f) => f.span,
            Expr::Var(n) => n.span,
        }
    }
}

/// A goal description (precondition, goal, condition of `when`, body of `:derived`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Formula {
    /// An atom.
    Atom(Atom),
    /// `(= t1 t2)` on objects.
    Equals(Term, Term, Span),
    /// `(not f)`.
    Not(Box<Formula>, Span),
    /// `(and f*)`; `(and)` is true.
    And(Vec<Formula>, Span),
    /// `(or f*)`; `(or)` is false.
    Or(Vec<Formula>, Span),
    /// `(imply f g)`.
    Imply(Box<Formula>, Box<Formula>, Span),
    /// `(exists (vars) f)`.
    Exists(Vec<Typed>, Box<Formula>, Span),
    /// `(forall (vars) f)`.
    Forall(Vec<Typed>, Box<Formula>, Span),
    /// A numeric comparison `(op e1 e2)`.
    Compare(CmpOp, Expr, Expr, Span),
    /// `(preference NAME f)` inside an action's precondition (PDDL3 "simple preferences"):
    /// never false; each execution of the action while `f` is false counts one violation of
    /// NAME. Goal preferences are read into [`Problem::goal_preferences`] instead.
    Preference(Option<Name>, Box<Formula>, Span),
}

impl Formula {
    /// Where the formula was written.
    pub fn span(&self) -> Span {
        match self {
            Formula::Atom(a) => a.span,
            Formula::Equals(_, _, s)
            | Formula::Not(_, s)
            | Formula::And(_, s)
            | Formula::Or(_, s)
            | Formula::Imply(_, _, s)
            | Formula::Exists(_, _, s)
            | Formula::Forall(_, _, s)
            | Formula::Compare(_, _, _, s)
            | Formula::Preference(_, _, s) => *s,
        }
    }
}

/// Numeric effect operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AssignOp {
    /// `assign`
    Assign,
    /// `increase`
    Increase,
    /// `decrease`
    Decrease,
    /// `scale-up`
    ScaleUp,
    /// `scale-down`
    ScaleDown,
}

impl AssignOp {
    /// The PDDL spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AssignOp::Assign => "assign",
            AssignOp::Increase => "increase",
            AssignOp::Decrease => "decrease",
            AssignOp::ScaleUp => "scale-up",
            AssignOp::ScaleDown => "scale-down",
        }
    }
}

/// What an action does, as a tree: adds, deletes and numeric updates, grouped by `and`,
/// quantified by `forall` and guarded by `when`. All effects of one step are computed
/// against the state before it (SEMANTICS.md §2), so their order here does not matter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Effect {
    /// `(and e*)`.
    And(Vec<Effect>, Span),
    /// `(forall (vars) e)`.
    Forall(Vec<Typed>, Box<Effect>, Span),
    /// `(when condition e)`.
    When(Formula, Box<Effect>, Span),
    /// An atom made true.
    Add(Atom),
    /// `(not atom)`: an atom made false.
    Delete(Atom, Span),
    /// `(op fluent expr)`.
    Numeric(AssignOp, FluentTerm, Expr, Span),
}

impl Effect {
    /// Where the effect was written.
    pub fn span(&self) -> Span {
        match self {
            Effect::Add(a) => a.span,
            Effect::And(_, s)
            | Effect::Forall(_, _, s)
            | Effect::When(_, _, s)
            | Effect::Delete(_, s)
            | Effect::Numeric(_, _, _, s) => *s,
        }
    }
}

/// A predicate declaration: `(at ?x - locatable ?l - place)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredicateDecl {
    /// The predicate name.
    pub name: Name,
    /// Its parameters.
    pub params: Vec<Typed>,
    /// From `(` to `)`.
    pub span: Span,
}

/// The declared result type of a function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FunctionType {
    /// No type written (numeric by default).
    Unspecified,
    /// `- number`
    Number(Span),
    /// `- integer`
    Integer(Span),
    /// An object type (PDDL 3.1 object fluents): parsed, not supported by later stages.
    Object(Type),
}

/// A function declaration: `(fuel ?a - aircraft) - number`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionDecl {
    /// The function name.
    pub name: Name,
    /// Its parameters.
    pub params: Vec<Typed>,
    /// Its result type.
    pub ty: FunctionType,
    /// From `(` to `)` of the head.
    pub span: Span,
}

/// An action schema, `(:action ...)`: a precondition and effect lifted over typed
/// parameters. A plan step names a schema and gives one object per parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// The action name.
    pub name: Name,
    /// `:parameters`.
    pub params: Vec<Typed>,
    /// `:precondition`, if given (absent means true).
    pub precondition: Option<Formula>,
    /// `:effect`, if given.
    pub effect: Option<Effect>,
    /// The whole `(:action ...)`.
    pub span: Span,
}

/// A derived predicate: `(:derived (p ?x) formula)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    /// The predicate and its parameters.
    pub head: PredicateDecl,
    /// When it holds.
    pub body: Formula,
    /// The whole `(:derived ...)`.
    pub span: Span,
}

/// When, within a durative action, a condition or effect applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TimeSpec {
    /// `at start`
    AtStart,
    /// `at end`
    AtEnd,
    /// `over all` (conditions only)
    OverAll,
}

impl TimeSpec {
    /// The PDDL spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeSpec::AtStart => "at start",
            TimeSpec::AtEnd => "at end",
            TimeSpec::OverAll => "over all",
        }
    }
}

/// A condition of a durative action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TimedFormula {
    /// `(and c*)`.
    And(Vec<TimedFormula>, Span),
    /// `(forall (vars) c)`.
    Forall(Vec<Typed>, Box<TimedFormula>, Span),
    /// `(at start f)`, `(at end f)`, `(over all f)`.
    At(TimeSpec, Formula, Span),
}

/// An effect of a durative action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TimedEffect {
    /// `(and e*)`.
    And(Vec<TimedEffect>, Span),
    /// `(forall (vars) e)`.
    Forall(Vec<Typed>, Box<TimedEffect>, Span),
    /// `(when timed-condition timed-effect)`.
    When(TimedFormula, Box<TimedEffect>, Span),
    /// `(at start e)` or `(at end e)`.
    At(TimeSpec, Effect, Span),
}

/// A durative action (PDDL 2.1 level 3). Parsed and checked; later stages decide how far
/// they execute it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DurativeAction {
    /// The action name.
    pub name: Name,
    /// `:parameters`.
    pub params: Vec<Typed>,
    /// `:duration`: constraints on `?duration`, as formulas (`(= ?duration 5)`, `(and ...)`).
    pub duration: Option<Formula>,
    /// `:condition`.
    pub condition: Option<TimedFormula>,
    /// `:effect`.
    pub effect: Option<TimedEffect>,
    /// The whole `(:durative-action ...)`.
    pub span: Span,
}

/// A declared `:requirements` flag as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequirementDecl {
    /// The flag, if it is one this crate knows.
    pub requirement: Option<Requirement>,
    /// The flag as written, with its `:`.
    pub name: Name,
}

/// A PDDL domain as written: its declarations in source order, every name with its
/// spelling and span. Nothing is resolved or checked here: [`crate::check_domain`] checks
/// it, safeplan-validate compiles it, and [`crate::write_domain`] prints it back as PDDL that
/// parses to the same value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Domain {
    /// `(domain NAME)`.
    pub name: Name,
    /// `:requirements`, as written (expand with [`crate::requirements::RequirementSet`]).
    pub requirements: Vec<RequirementDecl>,
    /// `:types`: each declared type with its parent type(s), if written.
    pub types: Vec<Typed>,
    /// `:constants`.
    pub constants: Vec<Typed>,
    /// `:predicates`.
    pub predicates: Vec<PredicateDecl>,
    /// `:functions`.
    pub functions: Vec<FunctionDecl>,
    /// `:action`s in order.
    pub actions: Vec<Action>,
    /// `:derived` predicates in order.
    pub derived: Vec<Derived>,
    /// `:durative-action`s in order.
    pub durative_actions: Vec<DurativeAction>,
    /// `:constraints`: trajectory constraints every problem of the domain must keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Constraint>,
    /// The whole `(define ...)`.
    pub span: Span,
}

/// One entry of a problem's `:init`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum InitEntry {
    /// A true ground atom.
    Atom(Atom),
    /// `(not atom)` (allowed, and meaningless under the closed world; kept for round trips).
    Not(Atom, Span),
    /// `(= (f args) value)`.
    Assign(FluentTerm, f64, Span),
}

/// Whether a metric is minimised or maximised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Optimization {
    /// `minimize`
    Minimize,
    /// `maximize`
    Maximize,
}

/// `(:metric minimize|maximize expr)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Direction.
    pub optimization: Optimization,
    /// What is measured (`total-time` appears as a 0-ary fluent named `total-time`).
    pub expr: Expr,
    /// The whole `(:metric ...)`.
    pub span: Span,
}

/// A PDDL problem as written: the objects, initial state, goal and metric of one instance of
/// a domain. It names its domain but does not hold it: pair the two with
/// [`crate::check_problem`], or compile them together with safeplan-validate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    /// `(problem NAME)`.
    pub name: Name,
    /// `(:domain NAME)`.
    pub domain: Name,
    /// `:requirements`, if the problem repeats some.
    pub requirements: Vec<RequirementDecl>,
    /// `:objects`.
    pub objects: Vec<Typed>,
    /// `:init`.
    pub init: Vec<InitEntry>,
    /// `:goal` (absent only in a broken file).
    pub goal: Option<Formula>,
    /// `:metric`.
    pub metric: Option<Metric>,
    /// `:constraints`: trajectory constraints and preferences over them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Constraint>,
    /// The preferences written in `:goal`, taken out of it by the parser, each as
    /// `(preference NAME (at end φ))` under the `forall`s that enclosed it (see
    /// [`Constraint`]); `goal` keeps the hard part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_preferences: Option<Constraint>,
    /// The whole `(define ...)`.
    pub span: Span,
}

/// A PDDL3 state-trajectory constraint (Gerevini & Long, 2005): a rule over the whole
/// sequence of states a plan passes through, not only its end. Written in a domain's or a
/// problem's `(:constraints ...)`, and, as preferences, in a problem's goal.
///
/// A goal preference `(preference p φ)` is read as `(preference p (at end φ))`: the
/// parser takes every preference out of the `:goal` (which keeps the hard part) and puts
/// it in [`Problem::goal_preferences`], so one tree type carries every soft and hard rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Constraint {
    /// `(and c*)`: every part holds.
    And(Vec<Constraint>, Span),
    /// `(forall (vars) c)`: one instance per binding of the variables.
    Forall(Vec<Typed>, Box<Constraint>, Span),
    /// `(preference NAME c)`: a soft rule; breaking it makes the plan no worse than its
    /// metric says (`(is-violated NAME)` counts the broken instances). The name is optional.
    Preference(Option<Name>, Box<Constraint>, Span),
    /// One of PDDL3's ten operators over conditions (boxed: a `Modal` holds up to two
    /// conditions, the other variants a vector or a box).
    Modal(Box<Modal>, Span),
}

impl Constraint {
    /// Where the constraint is written.
    pub fn span(&self) -> Span {
        match self {
            Constraint::And(_, s)
            | Constraint::Forall(_, _, s)
            | Constraint::Preference(_, _, s)
            | Constraint::Modal(_, s) => *s,
        }
    }
}

/// A PDDL3 trajectory operator applied to its conditions (and times, in plan time units:
/// a sequential plan's step `k` happens at time `k`). SEMANTICS.md §2c gives the meaning of
/// each over the sequence of states a plan passes through.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Modal {
    /// `(at end φ)`: φ holds in the final state.
    AtEnd(Formula),
    /// `(always φ)`: φ holds in every state, the initial one included.
    Always(Formula),
    /// `(sometime φ)`: φ holds in some state.
    Sometime(Formula),
    /// `(within t φ)`: φ holds in some state at time ≤ t.
    Within(f64, Formula),
    /// `(at-most-once φ)`: φ holds during at most one unbroken stretch of states.
    AtMostOnce(Formula),
    /// `(sometime-after φ ψ)`: whenever φ holds, ψ holds then or later.
    SometimeAfter(Formula, Formula),
    /// `(sometime-before φ ψ)`: whenever φ holds, ψ held in a strictly earlier state.
    SometimeBefore(Formula, Formula),
    /// `(always-within t φ ψ)`: whenever φ holds at time τ, ψ holds at some time in [τ, τ+t].
    AlwaysWithin(f64, Formula, Formula),
    /// `(hold-during t1 t2 φ)`: φ holds in every state at a time in [t1, t2).
    HoldDuring(f64, f64, Formula),
    /// `(hold-after t φ)`: φ holds in every state at a time after t.
    HoldAfter(f64, Formula),
}

impl Modal {
    /// Which operator this is.
    pub fn op(&self) -> ConstraintOp {
        match self {
            Modal::AtEnd(_) => ConstraintOp::AtEnd,
            Modal::Always(_) => ConstraintOp::Always,
            Modal::Sometime(_) => ConstraintOp::Sometime,
            Modal::Within(..) => ConstraintOp::Within,
            Modal::AtMostOnce(_) => ConstraintOp::AtMostOnce,
            Modal::SometimeAfter(..) => ConstraintOp::SometimeAfter,
            Modal::SometimeBefore(..) => ConstraintOp::SometimeBefore,
            Modal::AlwaysWithin(..) => ConstraintOp::AlwaysWithin,
            Modal::HoldDuring(..) => ConstraintOp::HoldDuring,
            Modal::HoldAfter(..) => ConstraintOp::HoldAfter,
        }
    }

    /// The conditions in the order written: φ, then ψ for the two-condition operators
    /// (`sometime-after`, `sometime-before`, `always-within`), where φ is the trigger.
    pub fn conditions(&self) -> Vec<&Formula> {
        match self {
            Modal::AtEnd(f)
            | Modal::Always(f)
            | Modal::Sometime(f)
            | Modal::Within(_, f)
            | Modal::AtMostOnce(f)
            | Modal::HoldDuring(_, _, f)
            | Modal::HoldAfter(_, f) => vec![f],
            Modal::SometimeAfter(a, b)
            | Modal::SometimeBefore(a, b)
            | Modal::AlwaysWithin(_, a, b) => vec![a, b],
        }
    }

    /// The conditions, mutably, in the order of [`Modal::conditions`].
    pub fn conditions_mut(&mut self) -> Vec<&mut Formula> {
        match self {
            Modal::AtEnd(f)
            | Modal::Always(f)
            | Modal::Sometime(f)
            | Modal::Within(_, f)
            | Modal::AtMostOnce(f)
            | Modal::HoldDuring(_, _, f)
            | Modal::HoldAfter(_, f) => vec![f],
            Modal::SometimeAfter(a, b)
            | Modal::SometimeBefore(a, b)
            | Modal::AlwaysWithin(_, a, b) => vec![a, b],
        }
    }
}

/// The ten trajectory operators of PDDL3, by name (kebab-case in JSON, as PDDL spells them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConstraintOp {
    /// `at end`
    AtEnd,
    /// `always`
    Always,
    /// `sometime`
    Sometime,
    /// `within`
    Within,
    /// `at-most-once`
    AtMostOnce,
    /// `sometime-after`
    SometimeAfter,
    /// `sometime-before`
    SometimeBefore,
    /// `always-within`
    AlwaysWithin,
    /// `hold-during`
    HoldDuring,
    /// `hold-after`
    HoldAfter,
}

impl ConstraintOp {
    /// Every operator, in the order of the PDDL3 paper.
    pub const ALL: [ConstraintOp; 10] = [
        ConstraintOp::AtEnd,
        ConstraintOp::Always,
        ConstraintOp::Sometime,
        ConstraintOp::Within,
        ConstraintOp::AtMostOnce,
        ConstraintOp::SometimeAfter,
        ConstraintOp::SometimeBefore,
        ConstraintOp::AlwaysWithin,
        ConstraintOp::HoldDuring,
        ConstraintOp::HoldAfter,
    ];

    /// The PDDL spelling, e.g. `sometime-before`, `at end`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConstraintOp::AtEnd => "at end",
            ConstraintOp::Always => "always",
            ConstraintOp::Sometime => "sometime",
            ConstraintOp::Within => "within",
            ConstraintOp::AtMostOnce => "at-most-once",
            ConstraintOp::SometimeAfter => "sometime-after",
            ConstraintOp::SometimeBefore => "sometime-before",
            ConstraintOp::AlwaysWithin => "always-within",
            ConstraintOp::HoldDuring => "hold-during",
            ConstraintOp::HoldAfter => "hold-after",
        }
    }
}

impl std::fmt::Display for ConstraintOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of a plan: `(name arg*)`, with the timing of a timestamped plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// The action name.
    pub action: Name,
    /// The arguments.
    pub args: Vec<Name>,
    /// `t:` of a timestamped plan.
    pub time: Option<f64>,
    /// `[d]` of a timestamped plan.
    pub duration: Option<f64>,
    /// From `(` to `)` (plus timing, when present).
    pub span: Span,
}

impl PlanStep {
    /// `(move a b)`: the step as the plan spelled it, single spaces, without its timing.
    ///
    /// ```
    /// let plan = safeplan_pddl::parse_plan("0.5: ( Move  a B ) [2]").value.unwrap();
    /// assert_eq!(plan.steps[0].text(), "(Move a B)");
    /// ```
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(
            2 + self.action.text.len() + self.args.iter().map(|a| a.text.len() + 1).sum::<usize>(),
        );
        self.push_text(&mut out);
        out
    }

    /// [`PlanStep::text`] appended to `out` (the plan writer's form, without allocating).
    pub(crate) fn push_text(&self, out: &mut String) {
        out.push('(');
        out.push_str(&self.action.text);
        for a in &self.args {
            out.push(' ');
            out.push_str(&a.text);
        }
        out.push(')');
    }
}

/// A plan: steps in order, and the cost a planner wrote in a `; cost = N` trailer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The steps in order. Step `i` of messages is `steps[i - 1]`.
    pub steps: Vec<PlanStep>,
    /// The cost from a `; cost = N ...` comment, if any.
    pub cost: Option<f64>,
}

/// Reset every span in a tree to the default, so trees can be compared by shape
/// (e.g. `parse(print(ast))` against `ast`).
pub trait EraseSpans {
    /// Set every span to `Span::default()`.
    fn erase_spans(&mut self);
}

impl<T: EraseSpans> EraseSpans for Vec<T> {
    fn erase_spans(&mut self) {
        self.iter_mut().for_each(EraseSpans::erase_spans);
    }
}

impl<T: EraseSpans> EraseSpans for Option<T> {
    fn erase_spans(&mut self) {
        if let Some(x) = self {
            x.erase_spans();
        }
    }
}

impl<T: EraseSpans> EraseSpans for Box<T> {
    fn erase_spans(&mut self) {
        (**self).erase_spans();
    }
}

impl EraseSpans for Span {
    fn erase_spans(&mut self) {
        *self = Span::default();
    }
}

impl EraseSpans for Name {
    fn erase_spans(&mut self) {
        self.span = Span::default();
    }
}

impl EraseSpans for Type {
    fn erase_spans(&mut self) {
        match self {
            Type::Named(n) => n.erase_spans(),
            Type::Either(names, s) => {
                names.erase_spans();
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for Typed {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.ty.erase_spans();
    }
}

impl EraseSpans for Term {
    fn erase_spans(&mut self) {
        match self {
            Term::Var(n) | Term::Const(n) => n.erase_spans(),
        }
    }
}

impl EraseSpans for Atom {
    fn erase_spans(&mut self) {
        self.predicate.erase_spans();
        self.args.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for FluentTerm {
    fn erase_spans(&mut self) {
        self.function.erase_spans();
        self.args.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for Expr {
    fn erase_spans(&mut self) {
        match self {
            Expr::Number(_, s) => s.erase_spans(),
            Expr::Fluent(f) => f.erase_spans(),
            Expr::Arith(_, args, s) => {
                args.erase_spans();
                s.erase_spans();
            }
            Expr::Var(n) => n.erase_spans(),
        }
    }
}

impl EraseSpans for Formula {
    fn erase_spans(&mut self) {
        match self {
            Formula::Atom(a) => a.erase_spans(),
            Formula::Equals(a, b, s) => {
                a.erase_spans();
                b.erase_spans();
                s.erase_spans();
            }
            Formula::Not(f, s) => {
                f.erase_spans();
                s.erase_spans();
            }
            Formula::And(fs, s) | Formula::Or(fs, s) => {
                fs.erase_spans();
                s.erase_spans();
            }
            Formula::Imply(a, b, s) => {
                a.erase_spans();
                b.erase_spans();
                s.erase_spans();
            }
            Formula::Exists(vars, f, s) | Formula::Forall(vars, f, s) => {
                vars.erase_spans();
                f.erase_spans();
                s.erase_spans();
            }
            Formula::Compare(_, a, b, s) => {
                a.erase_spans();
                b.erase_spans();
                s.erase_spans();
            }
            Formula::Preference(name, f, s) => {
                name.erase_spans();
                f.erase_spans();
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for Effect {
    fn erase_spans(&mut self) {
        match self {
            Effect::And(es, s) => {
                es.erase_spans();
                s.erase_spans();
            }
            Effect::Forall(vars, e, s) => {
                vars.erase_spans();
                e.erase_spans();
                s.erase_spans();
            }
            Effect::When(c, e, s) => {
                c.erase_spans();
                e.erase_spans();
                s.erase_spans();
            }
            Effect::Add(a) => a.erase_spans(),
            Effect::Delete(a, s) => {
                a.erase_spans();
                s.erase_spans();
            }
            Effect::Numeric(_, f, e, s) => {
                f.erase_spans();
                e.erase_spans();
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for PredicateDecl {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.params.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for FunctionType {
    fn erase_spans(&mut self) {
        match self {
            FunctionType::Unspecified => {}
            FunctionType::Number(s) | FunctionType::Integer(s) => s.erase_spans(),
            FunctionType::Object(t) => t.erase_spans(),
        }
    }
}

impl EraseSpans for FunctionDecl {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.params.erase_spans();
        self.ty.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for Action {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.params.erase_spans();
        self.precondition.erase_spans();
        self.effect.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for Derived {
    fn erase_spans(&mut self) {
        self.head.erase_spans();
        self.body.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for TimedFormula {
    fn erase_spans(&mut self) {
        match self {
            TimedFormula::And(fs, s) => {
                fs.erase_spans();
                s.erase_spans();
            }
            TimedFormula::Forall(vars, f, s) => {
                vars.erase_spans();
                f.erase_spans();
                s.erase_spans();
            }
            TimedFormula::At(_, f, s) => {
                f.erase_spans();
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for TimedEffect {
    fn erase_spans(&mut self) {
        match self {
            TimedEffect::And(es, s) => {
                es.erase_spans();
                s.erase_spans();
            }
            TimedEffect::Forall(vars, e, s) => {
                vars.erase_spans();
                e.erase_spans();
                s.erase_spans();
            }
            TimedEffect::When(c, e, s) => {
                c.erase_spans();
                e.erase_spans();
                s.erase_spans();
            }
            TimedEffect::At(_, e, s) => {
                e.erase_spans();
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for DurativeAction {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.params.erase_spans();
        self.duration.erase_spans();
        self.condition.erase_spans();
        self.effect.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for RequirementDecl {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
    }
}

impl EraseSpans for Domain {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.requirements.erase_spans();
        self.types.erase_spans();
        self.constants.erase_spans();
        self.predicates.erase_spans();
        self.functions.erase_spans();
        self.actions.erase_spans();
        self.derived.erase_spans();
        self.durative_actions.erase_spans();
        self.constraints.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for InitEntry {
    fn erase_spans(&mut self) {
        match self {
            InitEntry::Atom(a) => a.erase_spans(),
            InitEntry::Not(a, s) => {
                a.erase_spans();
                s.erase_spans();
            }
            InitEntry::Assign(f, _, s) => {
                f.erase_spans();
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for Metric {
    fn erase_spans(&mut self) {
        self.expr.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for Problem {
    fn erase_spans(&mut self) {
        self.name.erase_spans();
        self.domain.erase_spans();
        self.requirements.erase_spans();
        self.objects.erase_spans();
        self.init.erase_spans();
        self.goal.erase_spans();
        self.metric.erase_spans();
        self.constraints.erase_spans();
        self.goal_preferences.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for Constraint {
    fn erase_spans(&mut self) {
        match self {
            Constraint::And(cs, s) => {
                cs.erase_spans();
                s.erase_spans();
            }
            Constraint::Forall(vars, c, s) => {
                vars.erase_spans();
                c.erase_spans();
                s.erase_spans();
            }
            Constraint::Preference(name, c, s) => {
                name.erase_spans();
                c.erase_spans();
                s.erase_spans();
            }
            Constraint::Modal(m, s) => {
                for f in m.conditions_mut() {
                    f.erase_spans();
                }
                s.erase_spans();
            }
        }
    }
}

impl EraseSpans for PlanStep {
    fn erase_spans(&mut self) {
        self.action.erase_spans();
        self.args.erase_spans();
        self.span.erase_spans();
    }
}

impl EraseSpans for Plan {
    fn erase_spans(&mut self) {
        self.steps.erase_spans();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;

    #[test]
    fn get_ignore_case_finds_any_spelling_of_a_lowercase_key() {
        let long = "a".repeat(70);
        let map: FxHashMap<CompactString, u32> = [("place_x", 1), ("é-room", 2), (&long, 3)]
            .into_iter()
            .map(|(k, v)| (CompactString::from(k), v))
            .collect();
        assert_eq!(get_ignore_case(&map, "place_x"), Some(&1));
        assert_eq!(get_ignore_case(&map, "PLACE_X"), Some(&1));
        assert_eq!(get_ignore_case(&map, "Place_X"), Some(&1));
        // Only ASCII letters fold, as PDDL names compare.
        assert_eq!(get_ignore_case(&map, "É-ROOM"), None);
        assert_eq!(get_ignore_case(&map, "é-ROOM"), Some(&2));
        // Longer than the stack buffer: lowercased on the heap instead.
        assert_eq!(get_ignore_case(&map, &long.to_uppercase()), Some(&3));
        assert_eq!(get_ignore_case(&map, "place_y"), None);
        assert_eq!(get_ignore_case(&map, "PLACE_Y"), None);
    }
}
