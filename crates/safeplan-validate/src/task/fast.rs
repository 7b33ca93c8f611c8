//! Building the fast path for STRIPS-like actions: a precondition that is a conjunction of literals
//! and effects that only add and delete atoms, all of densely laid out predicates.
//!
//! Such an action needs no tree walk: its literals are a flat list whose bits are computed
//! from the step's object ids, and since its effects read nothing, deletes and adds can be
//! written straight into the state (deletes first, so an atom both deleted and added stays
//! true). Everything else — quantifiers, disjunctions, `when`, numeric fluents, sparse
//! predicates — takes the general path in `exec`, which gives the same answers (the
//! differential tests run both).
//!
//! We bind lifted literals per step rather than caching ground action instances: computing
//! a literal's bit from the binding costs a few multiply-adds, less than a hash-map probe
//! for a cached instance would.
//!
//! This file builds the flat form when a task compiles; `exec` runs it.

use super::compiled::{Arg, Cond, Eff, Fast, FastAtom, FastLit, Pred, PredKind};

impl Fast {
    /// The fast form of an action, if it has one.
    pub fn build(preds: &[Pred], pre: &Cond, effects: &[Eff]) -> Option<Fast> {
        let mut fast = Fast::default();
        fast.add_pre(preds, pre, true)?;
        for e in effects {
            match e {
                Eff::Add(a) => fast.adds.push(dense(preds, a.pred, &a.args)?.0),
                Eff::Del(a) => fast.dels.push(dense(preds, a.pred, &a.args)?.0),
                _ => return None,
            }
        }
        Some(fast)
    }

    fn add_pre(&mut self, preds: &[Pred], c: &Cond, positive: bool) -> Option<()> {
        match c {
            Cond::True if positive => {}
            Cond::Atom(a) => {
                let (atom, kind) = dense(preds, a.pred, &a.args)?;
                self.lits.push(FastLit {
                    atom,
                    is_static: kind == PredKind::Static,
                    positive,
                });
            }
            Cond::Eq(x, y, _) => self.eqs.push((*x, *y, positive)),
            Cond::Not(inner, _) if positive => self.add_pre(preds, inner, false)?,
            Cond::And(parts) if positive => {
                for p in parts {
                    self.add_pre(preds, p, true)?;
                }
            }
            _ => return None,
        }
        Some(())
    }
}

fn dense(preds: &[Pred], pred: u32, args: &[Arg]) -> Option<(FastAtom, PredKind)> {
    let p = preds.get(pred as usize)?;
    if p.kind == PredKind::Derived {
        return None;
    }
    Some((
        FastAtom {
            base: p.sym.base?,
            args: args.into(),
        },
        p.kind,
    ))
}
