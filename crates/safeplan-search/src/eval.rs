//! Evaluating ground conditions and applying ground actions on packed states, with the
//! validator's semantics (SEMANTICS.md §2): effects read the state before the step, deletes
//! apply before adds, `increase` of an undefined fluent counts from 0, and a numeric error
//! (an undefined read, division by zero, a non-finite result, conflicting updates) makes the
//! step invalid. Conditions use Kleene logic over numeric errors, as the validator does, so
//! the planner never returns a plan the validator would reject.
//!
//! A packed state is a slice of `u64`: the atom bits, then one word per numeric variable
//! holding its `f64` bits (NaN for undefined).

use safeplan_pddl::ast::{ArithOp, AssignOp};
use safeplan_validate::lifted::compare;

use crate::ground::{GCond, GNum, GroundTask, Op, Pre};

/// `op` over `vals` as the validator computes it; `None` on division by zero or a
/// non-finite result.
pub(crate) fn arith(op: ArithOp, vals: &[f64]) -> Option<f64> {
    let (&first, rest) = vals.split_first().unwrap_or((&0.0, &[]));
    if op == ArithOp::Sub && rest.is_empty() {
        return Some(-first);
    }
    let mut acc = first;
    for &v in rest {
        acc = match op {
            ArithOp::Add => acc + v,
            ArithOp::Sub => acc - v,
            ArithOp::Mul => acc * v,
            ArithOp::Div => {
                if v == 0.0 {
                    return None;
                }
                acc / v
            }
        };
    }
    acc.is_finite().then_some(acc)
}

/// The layout of packed states for one grounded task.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// Words of atom bits.
    pub bits: usize,
    /// The first word of the hard constraints' automata (after the numeric variables).
    pub rules: usize,
    /// Total words (bits, one per numeric variable, the automata's words).
    pub words: usize,
}

impl Layout {
    pub fn new(task: &GroundTask) -> Layout {
        let bits = task.atoms.len().div_ceil(64);
        let rules = bits + task.vars.len();
        Layout {
            bits,
            rules,
            words: rules + task.rules.words(),
        }
    }
}

#[inline]
pub(crate) fn test(s: &[u64], atom: u32) -> bool {
    s.get(atom as usize / 64)
        .is_some_and(|w| w & (1u64 << (atom % 64)) != 0)
}

#[inline]
pub(crate) fn set(s: &mut [u64], atom: u32, on: bool) {
    if let Some(w) = s.get_mut(atom as usize / 64) {
        if on {
            *w |= 1u64 << (atom % 64);
        } else {
            *w &= !(1u64 << (atom % 64));
        }
    }
}

/// The value of numeric variable `var`, `None` if undefined.
#[inline]
pub(crate) fn value(s: &[u64], layout: Layout, var: u32) -> Option<f64> {
    let v = f64::from_bits(*s.get(layout.bits + var as usize)?);
    (!v.is_nan()).then_some(v)
}

/// Store `v`, normalised so that equal values have equal bits (one zero, one NaN).
#[inline]
pub(crate) fn store(s: &mut [u64], layout: Layout, var: u32, v: f64) {
    let v = if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    };
    if let Some(w) = s.get_mut(layout.bits + var as usize) {
        *w = v.to_bits();
    }
}

/// The value of `e`, `None` on a numeric error.
pub(crate) fn num(e: &GNum, s: &[u64], layout: Layout) -> Option<f64> {
    match e {
        GNum::Const(x) => Some(*x),
        GNum::Var(v) => value(s, layout, *v),
        GNum::Undefined => None,
        GNum::Arith(op, args) => {
            let mut vals = [0.0f64; 4];
            if args.len() <= vals.len() {
                for (slot, a) in vals.iter_mut().zip(args) {
                    *slot = num(a, s, layout)?;
                }
                arith(*op, &vals[..args.len()])
            } else {
                let vals: Option<Vec<f64>> = args.iter().map(|a| num(a, s, layout)).collect();
                arith(*op, &vals?)
            }
        }
    }
}

/// Kleene truth of `c`: `None` is a numeric error that no other part settled.
pub(crate) fn holds(c: &GCond, s: &[u64], layout: Layout, slack: f64) -> Option<bool> {
    match c {
        GCond::True => Some(true),
        GCond::False => Some(false),
        GCond::Atom(a) => Some(test(s, *a)),
        GCond::NotAtom(a) => Some(!test(s, *a)),
        GCond::And(parts) => kleene(parts, s, layout, slack, false),
        GCond::Or(parts) => kleene(parts, s, layout, slack, true),
        GCond::Cmp { op, l, r, negated } => {
            let l = num(l, s, layout)?;
            let r = num(r, s, layout)?;
            Some(compare(*op, l, r, slack) != *negated)
        }
    }
}

fn kleene(parts: &[GCond], s: &[u64], layout: Layout, slack: f64, decisive: bool) -> Option<bool> {
    let mut fault = false;
    for p in parts {
        match holds(p, s, layout, slack) {
            Some(v) if v == decisive => return Some(decisive),
            Some(_) => {}
            None => fault = true,
        }
    }
    (!fault).then_some(!decisive)
}

/// Whether `pre` holds (a numeric error counts as not holding).
#[inline]
pub(crate) fn pre_holds(pre: &Pre, s: &[u64], layout: Layout, slack: f64) -> Option<bool> {
    if !pre.pos.iter().all(|&a| test(s, a)) || pre.neg.iter().any(|&a| test(s, a)) {
        return Some(false);
    }
    match &pre.rest {
        None => Some(true),
        Some(rest) => holds(rest, s, layout, slack),
    }
}

/// Buffers reused across successor computations.
#[derive(Default)]
pub(crate) struct Scratch {
    adds: Vec<u32>,
    dels: Vec<u32>,
    nums: Vec<(u32, AssignOp, f64)>,
}

/// Apply `op` (whose precondition holds in `s`) into `out`; false if the step is a numeric
/// error (the validator would reject it).
pub(crate) fn apply(
    task: &GroundTask,
    op: &Op,
    s: &[u64],
    layout: Layout,
    out: &mut Vec<u64>,
    scratch: &mut Scratch,
) -> bool {
    scratch.adds.clear();
    scratch.dels.clear();
    scratch.nums.clear();
    for e in &op.effects {
        match pre_holds(&e.cond, s, layout, task.slack) {
            Some(true) => {}
            Some(false) => continue,
            None => return false,
        }
        scratch.adds.extend_from_slice(&e.adds);
        scratch.dels.extend_from_slice(&e.dels);
        for n in &e.nums {
            let Some(v) = num(&n.value, s, layout) else {
                return false;
            };
            if let Some(var) = n.var {
                scratch.nums.push((var, n.op, v));
            }
        }
    }
    out.clear();
    out.extend_from_slice(s);
    for &d in &scratch.dels {
        set(out, d, false);
    }
    for &a in &scratch.adds {
        set(out, a, true);
    }
    if scratch.nums.is_empty() {
        return true;
    }
    // Group by variable; the combination does not depend on the order (as the validator).
    scratch.nums.sort_by_key(|u| u.0);
    let mut i = 0;
    while i < scratch.nums.len() {
        let var = scratch.nums[i].0;
        let mut j = i + 1;
        while j < scratch.nums.len() && scratch.nums[j].0 == var {
            j += 1;
        }
        match combine(&scratch.nums[i..j], value(s, layout, var)) {
            Some(v) => store(out, layout, var, v),
            None => return false,
        }
        i = j;
    }
    true
}

/// The new value of one variable updated by `group`, `None` on a conflict or error.
fn combine(group: &[(u32, AssignOp, f64)], current: Option<f64>) -> Option<f64> {
    let assigns = group.iter().filter(|u| u.1 == AssignOp::Assign).count();
    if assigns > 0 {
        let first = group[0].2;
        let same = assigns == group.len() && group.iter().all(|u| u.2 == first);
        return same.then_some(first);
    }
    let scales = group
        .iter()
        .filter(|u| matches!(u.1, AssignOp::ScaleUp | AssignOp::ScaleDown))
        .count();
    if scales != 0 && scales != group.len() {
        return None;
    }
    let mut v = match current {
        Some(v) => v,
        None if scales == 0 => 0.0,
        None => return None,
    };
    for &(_, op, x) in group {
        v = match op {
            AssignOp::Increase => v + x,
            AssignOp::Decrease => v - x,
            AssignOp::ScaleUp => v * x,
            AssignOp::ScaleDown => {
                if x == 0.0 {
                    return None;
                }
                v / x
            }
            AssignOp::Assign => x,
        };
    }
    v.is_finite().then_some(v)
}
