//! The compiled task as a planner sees it: lifted actions, the goal, and the facts and
//! values of a state, by id.
//!
//! A validator never needs this: it binds the steps a plan names. A planner, a grounder or
//! a symbolic judge does, and compiling PDDL twice (names, types, constants, `either`,
//! implicit `object`) is how two tools come to disagree. So the compiled form is public,
//! read-only, and the same one every verdict is computed from: a planner built on it
//! finds plans in exactly the semantics that will judge them.
//!
//! Slots: a binding is a slice of object ids; an action's parameters fill slots
//! `0..params.len()`, quantified variables the slots after them ([`Schema::slots`]).

use safeplan_pddl::ast::CmpOp;

use crate::state::State;
pub use crate::task::{Arg, AtomRef, Cond, Eff, FluentRef, NumExpr, PredKind, QVar, Schema};
use crate::task::{ObjId, Task};

/// [`Cond::Compare`]'s semantics: `l op r` with the task's absolute slack, as VAL
/// compares (`>` holds when `l - r > -slack`, `=` when `|l - r| < slack`; 0 is exact).
pub fn compare(op: CmpOp, l: f64, r: f64, slack: f64) -> bool {
    crate::exec::compare(op, l, r, slack)
}

/// One ground instance of a hard trajectory constraint (a `forall` around a rule makes one
/// per binding), for a planner that compiles the rules into its search: the operator, its
/// conditions over the binding, and the times written.
#[derive(Clone, Copy, Debug)]
pub struct HardConstraint<'t> {
    /// The operator.
    pub operator: safeplan_pddl::ast::ConstraintOp,
    /// The first condition (the trigger of the two-condition operators).
    pub phi: &'t Cond,
    /// The second condition of `sometime-after`, `sometime-before`, `always-within`.
    pub psi: Option<&'t Cond>,
    /// The deadline of `within` / `always-within`, the start of `hold-after`, both ends of
    /// `hold-during` (unused entries are 0).
    pub times: [f64; 2],
    /// The objects of the `forall` variables around it, in slots `0..binding.len()`; the
    /// conditions' own quantifiers use the slots after, up to
    /// [`Task::constraint_slots`].
    pub binding: &'t [ObjId],
}

impl Task {
    /// Every ground instance of the task's hard trajectory constraints (preferences are
    /// left out: they are soft).
    pub fn hard_constraints(&self) -> impl Iterator<Item = HardConstraint<'_>> {
        let c = &self.constraints;
        c.instances
            .iter()
            .filter(|i| c.groups[i.group as usize] == crate::task::constraints::Strength::Hard)
            .map(move |i| {
                let rule = &c.rules[i.rule as usize];
                HardConstraint {
                    operator: rule.op,
                    phi: &rule.phi,
                    psi: rule.psi.as_ref(),
                    times: rule.times,
                    binding: c.binding(i),
                }
            })
    }

    /// The binding slots the constraints' conditions need.
    pub fn constraint_slots(&self) -> usize {
        self.constraints.slots
    }

    /// The problem's `:metric`, if it has one: whether it is minimized, and its expression
    /// (a planner that minimizes action costs reads `(minimize (total-cost))` here).
    pub fn metric(&self) -> Option<(safeplan_pddl::ast::Optimization, &NumExpr)> {
        self.metric.as_ref().map(|(o, e)| (*o, e))
    }

    /// The lifted actions, in declaration order (an action's id is its index).
    pub fn schemas(&self) -> &[Schema] {
        &self.schemas
    }

    /// The goal; its quantified variables use slots `0..`[`Task::goal_slots`].
    pub fn goal(&self) -> &Cond {
        &self.goal
    }

    /// The number of predicates (ids are `0..n`).
    pub fn predicate_count(&self) -> usize {
        self.preds.len()
    }

    /// A predicate's name as declared.
    pub fn predicate_name(&self, pred: u32) -> &str {
        self.preds
            .get(pred as usize)
            .map_or("", |p| p.sym.name.as_str())
    }

    /// A predicate's arity.
    pub fn predicate_arity(&self, pred: u32) -> usize {
        self.preds.get(pred as usize).map_or(0, |p| p.sym.arity)
    }

    /// Whether a predicate is changed by actions, static, or derived.
    pub fn predicate_kind(&self, pred: u32) -> PredKind {
        self.preds
            .get(pred as usize)
            .map_or(PredKind::Static, |p| p.kind)
    }

    /// The number of numeric functions (ids are `0..n`).
    pub fn function_count(&self) -> usize {
        self.funcs.len()
    }

    /// A function's name as declared.
    pub fn function_name(&self, func: u32) -> &str {
        self.funcs
            .get(func as usize)
            .map_or("", |f| f.name.as_str())
    }

    /// A function's arity.
    pub fn function_arity(&self, func: u32) -> usize {
        self.funcs.get(func as usize).map_or(0, |f| f.arity)
    }

    /// The objects a parameter or quantified variable with this domain ranges over.
    pub fn domain_objects(&self, domain: u32) -> &[ObjId] {
        self.domains
            .get(domain as usize)
            .map_or(&[], |d| d.as_slice())
    }

    /// Whether `obj` may fill a slot ranging over `domain`.
    pub fn in_domain(&self, obj: ObjId, domain: u32) -> bool {
        self.fits(obj, domain)
    }

    /// Whether the domain defines derived predicates (axioms).
    pub fn has_derived_predicates(&self) -> bool {
        !self.rules.is_empty()
    }

    /// The slack of numeric comparisons ([`compare`]).
    pub fn numeric_slack(&self) -> f64 {
        self.slack
    }

    /// Every atom true in `state`, static facts included, derived ones not: predicate id
    /// and arguments, ordered by predicate.
    pub fn true_atoms(&self, state: &State) -> Vec<(u32, Vec<ObjId>)> {
        let mut atoms = Vec::new();
        let n = self.n_objects.max(1);
        for (pid, pred) in self.preds.iter().enumerate() {
            if pred.kind == PredKind::Derived {
                continue;
            }
            match pred.sym.base {
                Some(base) => {
                    let size = n.saturating_pow(pred.sym.arity as u32);
                    let range = base..base.saturating_add(size);
                    let ones = if pred.kind == PredKind::Static {
                        self.statics.dense_ones(range)
                    } else {
                        state.atoms.dense_ones(range)
                    };
                    atoms.extend(
                        ones.into_iter()
                            .map(|idx| (pid as u32, decode(idx - base, pred.sym.arity, n))),
                    );
                }
                None => {
                    let mut sparse: Vec<Vec<ObjId>> = self
                        .sparse_atoms(pred.kind, state)
                        .iter()
                        .filter(|k| k.first() == Some(&(pid as u32)))
                        .map(|k| k[1..].to_vec())
                        .collect();
                    sparse.sort();
                    atoms.extend(sparse.into_iter().map(|args| (pid as u32, args)));
                }
            }
        }
        atoms
    }

    /// Every numeric fluent with a value in `state`: function id, arguments and value,
    /// ordered by function.
    pub fn defined_values(&self, state: &State) -> Vec<(u32, Vec<ObjId>, f64)> {
        let mut out = Vec::new();
        let n = self.n_objects.max(1);
        for (fid, f) in self.funcs.iter().enumerate() {
            match f.base {
                Some(base) => {
                    let size = n.saturating_pow(f.arity as u32);
                    for i in 0..size {
                        let Some(&v) = state.values.get((base + i) as usize) else {
                            break;
                        };
                        if !v.is_nan() {
                            out.push((fid as u32, decode(i, f.arity, n), v));
                        }
                    }
                }
                None => {
                    let mut sparse: Vec<(Vec<ObjId>, f64)> = state
                        .sparse_values
                        .iter()
                        .filter(|(k, _)| k.first() == Some(&(fid as u32)))
                        .map(|(k, &v)| (k[1..].to_vec(), v))
                        .collect();
                    sparse.sort_by(|a, b| a.0.cmp(&b.0));
                    out.extend(sparse.into_iter().map(|(args, v)| (fid as u32, args, v)));
                }
            }
        }
        out
    }
}

/// The arguments of the dense offset `rest` (argument `i` is digit `i` in base `n`).
fn decode(mut rest: u64, arity: usize, n: u64) -> Vec<ObjId> {
    (0..arity)
        .map(|_| {
            let o = (rest % n) as ObjId;
            rest /= n;
            o
        })
        .collect()
}
