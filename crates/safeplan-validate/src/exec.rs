//! Evaluating conditions and numeric expressions in a state, and computing and applying the
//! effects of one step (SEMANTICS.md §2).
//!
//! Everything a step does is computed against the state before it: `when` conditions,
//! right-hand sides of numeric effects and the objects a `forall` ranges over. Only then is
//! the state changed: deletes, then adds (so an atom both deleted and added stays true),
//! then numeric updates. Several `increase`/`decrease` effects on one fluent add up; an
//! `assign` together with any other update of the same fluent is a conflict.

use rustc_hash::FxHashSet;
use safeplan_pddl::Span;
use safeplan_pddl::ast::{ArithOp, AssignOp, CmpOp};

use crate::state::{Key, State};
use crate::task::{
    Arg, AtomRef, Cond, Eff, Fast, FastAtom, FluentRef, NumExpr, ObjId, PredKind, QVar, Task,
};

/// A numeric failure while evaluating or applying.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NumFault {
    /// A fluent with no value was read.
    Undefined { func: u32, args: Vec<ObjId> },
    /// Division by zero.
    DivByZero(Span),
    /// An operation produced an infinite or NaN result.
    NonFinite(Span),
    /// Two updates of one fluent in one step that do not commute.
    Conflict {
        func: u32,
        args: Vec<ObjId>,
        span: Span,
    },
}

#[inline]
pub(crate) fn obj(a: Arg, b: &[ObjId]) -> ObjId {
    match a {
        Arg::Obj(o) => o,
        Arg::Slot(s) => b.get(s as usize).copied().unwrap_or(0),
    }
}

impl Task {
    #[inline]
    pub(crate) fn dense_index(&self, base: u64, args: &[Arg], b: &[ObjId]) -> u64 {
        let mut idx = base;
        let mut mul = 1u64;
        for &a in args {
            idx += obj(a, b) as u64 * mul;
            mul = mul.wrapping_mul(self.n_objects);
        }
        idx
    }

    fn sparse_key(sym: u32, args: &[Arg], b: &[ObjId]) -> Box<[u32]> {
        std::iter::once(sym)
            .chain(args.iter().map(|&a| obj(a, b)))
            .collect()
    }

    /// The key of a ground atom given by object ids (no lifted detour: compiling a large
    /// problem computes one per initial fact).
    pub(crate) fn atom_key(&self, pred: u32, args: &[ObjId]) -> Key {
        match self.preds[pred as usize].sym.base {
            Some(base) => Key::Dense(self.ground_index(base, args)),
            None => Key::Sparse(std::iter::once(pred).chain(args.iter().copied()).collect()),
        }
    }

    #[inline]
    fn ground_index(&self, base: u64, args: &[ObjId]) -> u64 {
        let mut idx = base;
        let mut mul = 1u64;
        for &a in args {
            idx += a as u64 * mul;
            mul = mul.wrapping_mul(self.n_objects);
        }
        idx
    }

    #[inline]
    pub(crate) fn atom_ref_key(&self, pred: u32, args: &[Arg], b: &[ObjId]) -> Key {
        match self.preds[pred as usize].sym.base {
            Some(base) => Key::Dense(self.dense_index(base, args, b)),
            None => Key::Sparse(Task::sparse_key(pred, args, b)),
        }
    }

    /// The key of a ground numeric fluent given by object ids.
    pub(crate) fn value_key(&self, func: u32, args: &[ObjId]) -> Key {
        match self.funcs[func as usize].base {
            Some(base) => Key::Dense(self.ground_index(base, args)),
            None => Key::Sparse(std::iter::once(func).chain(args.iter().copied()).collect()),
        }
    }

    #[inline]
    pub(crate) fn fluent_key(&self, func: u32, args: &[Arg], b: &[ObjId]) -> Key {
        match self.funcs[func as usize].base {
            Some(base) => Key::Dense(self.dense_index(base, args, b)),
            None => Key::Sparse(Task::sparse_key(func, args, b)),
        }
    }

    /// Whether the atom holds in `st` under binding `b`.
    #[inline]
    pub(crate) fn atom_holds(&self, st: &State, a: &AtomRef, b: &[ObjId]) -> bool {
        let pred = &self.preds[a.pred as usize];
        match pred.sym.base {
            Some(base) => {
                let i = self.dense_index(base, &a.args, b);
                match pred.kind {
                    PredKind::Fluent => st.atoms.test(i),
                    PredKind::Static => self.statics.test(i),
                    PredKind::Derived => st.derived.test(i),
                }
            }
            None => self
                .sparse_atoms(pred.kind, st)
                .contains(&Task::sparse_key(a.pred, &a.args, b)),
        }
    }

    /// Where the true atoms of predicates of `kind` without a dense layout are kept.
    pub(crate) fn sparse_atoms<'s>(
        &'s self,
        kind: PredKind,
        st: &'s State,
    ) -> &'s FxHashSet<Box<[u32]>> {
        match kind {
            PredKind::Fluent => &st.atoms.sparse,
            PredKind::Static => &self.statics.sparse,
            PredKind::Derived => &st.derived.sparse,
        }
    }

    /// Evaluate a condition. `time` is the number of steps executed (for `total-time`).
    pub(crate) fn eval(
        &self,
        st: &State,
        c: &Cond,
        b: &mut [ObjId],
        time: usize,
    ) -> Result<bool, NumFault> {
        Ok(match c {
            Cond::True => true,
            Cond::Atom(a) => self.atom_holds(st, a, b),
            Cond::Eq(x, y, _) => obj(*x, b) == obj(*y, b),
            Cond::Not(inner, _) => !self.eval(st, inner, b, time)?,
            Cond::And(parts) => {
                self.kleene(parts.iter().map(|p| self.eval(st, p, b, time)), false)?
            }
            Cond::Or(parts, _) => {
                self.kleene(parts.iter().map(|p| self.eval(st, p, b, time)), true)?
            }
            Cond::Imply(x, y) => {
                let not_x = self.eval(st, x, b, time).map(|v| !v);
                match not_x {
                    Ok(true) => true,
                    other => self.kleene([other, self.eval(st, y, b, time)].into_iter(), true)?,
                }
            }
            Cond::Quant {
                forall, vars, body, ..
            } => self.quantify(st, *forall, vars, body, b, time)?,
            Cond::Compare(op, x, y, _) => {
                let l = self.num(st, x, b, time)?;
                let r = self.num(st, y, b, time)?;
                compare(*op, l, r, self.slack)
            }
        })
    }

    /// Three-valued (Kleene) connective over parts that may fault: `decisive` is the value
    /// that settles it (`false` for a conjunction, `true` for a disjunction). A part with
    /// that value decides the whole even if another part read an undefined fluent; otherwise
    /// the first fault is the result. So a verdict never depends on the order in which parts
    /// are tried, and wherever VAL's own short-circuit order gives a value, this gives the
    /// same one.
    #[inline]
    fn kleene(
        &self,
        parts: impl Iterator<Item = Result<bool, NumFault>>,
        decisive: bool,
    ) -> Result<bool, NumFault> {
        let mut fault = None;
        for p in parts {
            match p {
                Ok(v) if v == decisive => return Ok(decisive),
                Ok(_) => {}
                Err(f) => {
                    fault.get_or_insert(f);
                }
            }
        }
        match fault {
            Some(f) => Err(f),
            None => Ok(!decisive),
        }
    }

    /// `forall`: no binding makes the body false; `exists`: some binding makes it true.
    fn quantify(
        &self,
        st: &State,
        forall: bool,
        vars: &[QVar],
        body: &Cond,
        b: &mut [ObjId],
        time: usize,
    ) -> Result<bool, NumFault> {
        let Some((first, rest)) = vars.split_first() else {
            return self.eval(st, body, b, time);
        };
        // Nobody waits for this result any more (see `cancel`): end, with any value.
        if crate::cancel::abandoned() {
            return Ok(forall);
        }
        // Kleene over the instances: a counterexample (forall) or a witness (exists)
        // decides, even if another instance faulted.
        let mut fault = None;
        for &o in &self.domains[first.domain as usize] {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            match self.quantify(st, forall, rest, body, b, time) {
                Ok(v) if v != forall => return Ok(!forall),
                Ok(_) => {}
                Err(f) => {
                    fault.get_or_insert(f);
                }
            }
        }
        match fault {
            Some(f) => Err(f),
            None => Ok(forall),
        }
    }

    /// The current value of a ground fluent, or the fault of reading an undefined one.
    pub(crate) fn read(&self, st: &State, f: &FluentRef, b: &[ObjId]) -> Result<f64, NumFault> {
        st.value(&self.fluent_key(f.func, &f.args, b))
            .ok_or_else(|| NumFault::Undefined {
                func: f.func,
                args: f.args.iter().map(|&a| obj(a, b)).collect(),
            })
    }

    pub(crate) fn num(
        &self,
        st: &State,
        e: &NumExpr,
        b: &[ObjId],
        time: usize,
    ) -> Result<f64, NumFault> {
        match e {
            NumExpr::Const(x) => Ok(*x),
            NumExpr::TotalTime => Ok(time as f64),
            // The temporal executor replaces `?duration` by the step's duration before it
            // evaluates anything; one left over has no value.
            NumExpr::Duration => Err(NumFault::NonFinite(Span::default())),
            // Only the metric reads preference counts, filled in when the plan ends.
            NumExpr::IsViolated(_) => Err(NumFault::NonFinite(Span::default())),
            NumExpr::Fluent(f) => self.read(st, f, b),
            NumExpr::Arith(op, args) => {
                let mut vals = args.iter().map(|a| self.num(st, a, b, time));
                let first = vals.next().transpose()?.unwrap_or(0.0);
                let mut acc = match (op, args.len()) {
                    (ArithOp::Sub, 1) => return Ok(-first),
                    _ => first,
                };
                for v in vals {
                    let v = v?;
                    acc = match op {
                        ArithOp::Add => acc + v,
                        ArithOp::Sub => acc - v,
                        ArithOp::Mul => acc * v,
                        ArithOp::Div => {
                            if v == 0.0 {
                                return Err(NumFault::DivByZero(Span::default()));
                            }
                            acc / v
                        }
                    };
                }
                if acc.is_finite() {
                    Ok(acc)
                } else {
                    Err(NumFault::NonFinite(Span::default()))
                }
            }
        }
    }

    /// Compute and apply derived predicates in `st` (a no-op for domains without axioms).
    pub(crate) fn derive(&self, st: &mut State) {
        if self.rules.is_empty() {
            return;
        }
        st.derived.clear();
        let mut b: Vec<ObjId> = Vec::new();
        let mut found: Vec<Key> = Vec::new();
        for stratum in 0..self.strata {
            loop {
                for rule in self.rules.iter().filter(|r| r.stratum == stratum) {
                    if crate::cancel::abandoned() {
                        return;
                    }
                    b.clear();
                    b.resize(rule.slots, 0);
                    let domains: Vec<&[ObjId]> = rule
                        .params
                        .iter()
                        .map(|&d| self.domains[d as usize].as_slice())
                        .collect();
                    if domains.iter().any(|d| d.is_empty()) {
                        continue;
                    }
                    let mut odometer = vec![0usize; domains.len()];
                    loop {
                        for (i, d) in domains.iter().enumerate() {
                            b[i] = d[odometer[i]];
                        }
                        let head: Vec<Arg> =
                            (0..domains.len()).map(|i| Arg::Slot(i as u16)).collect();
                        let key = self.atom_ref_key(rule.head, &head, &b);
                        if !st.derived.contains(&key)
                            && self.eval(st, &rule.body, &mut b, 0).unwrap_or(false)
                        {
                            found.push(key);
                        }
                        // Advance the odometer; stop after the last combination.
                        let mut i = 0;
                        while i < odometer.len() {
                            odometer[i] += 1;
                            if odometer[i] < domains[i].len() {
                                break;
                            }
                            odometer[i] = 0;
                            i += 1;
                        }
                        if i == odometer.len() {
                            break;
                        }
                        // Once per turn of the first digit: cheap, and often enough.
                        if i > 0 && crate::cancel::abandoned() {
                            return;
                        }
                    }
                }
                if found.is_empty() {
                    break;
                }
                for k in found.drain(..) {
                    st.derived.insert(k);
                }
            }
        }
    }
}

/// Comparison with VAL's absolute slack: `>` holds when `l - r > -slack`, `=` when
/// `|l - r| < slack`, and so on; `slack = 0` is exact.
#[inline]
pub(crate) fn compare(op: CmpOp, l: f64, r: f64, slack: f64) -> bool {
    let d = l - r;
    if slack == 0.0 {
        return match op {
            CmpOp::Lt => d < 0.0,
            CmpOp::Le => d <= 0.0,
            CmpOp::Eq => d == 0.0,
            CmpOp::Ge => d >= 0.0,
            CmpOp::Gt => d > 0.0,
        };
    }
    match op {
        CmpOp::Lt => d < slack,
        CmpOp::Le => d <= slack,
        CmpOp::Eq => d.abs() < slack,
        CmpOp::Ge => d >= -slack,
        CmpOp::Gt => d > -slack,
    }
}

/// One numeric update waiting to be applied.
#[derive(Clone, Debug)]
pub(crate) struct NumUpdate {
    pub key: Key,
    pub func: u32,
    pub args: Vec<ObjId>,
    pub op: AssignOp,
    pub value: f64,
    pub span: Span,
}

/// The numeric part of a step's effects, resolved: new values and undefined bases.
#[derive(Clone, Debug, Default)]
pub(crate) struct NumericOutcome {
    pub values: Vec<(Key, f64)>,
    pub undefined: Vec<(u32, Vec<ObjId>)>,
}

/// The effects of one step, computed against the state before it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    pub adds: Vec<Key>,
    pub dels: Vec<Key>,
    pub nums: Vec<NumUpdate>,
}

impl Pending {
    pub fn clear(&mut self) {
        self.adds.clear();
        self.dels.clear();
        self.nums.clear();
    }
}

impl Task {
    /// Collect the effects `effs` under binding `b`, reading `st`.
    pub(crate) fn collect(
        &self,
        st: &State,
        effs: &[Eff],
        b: &mut [ObjId],
        time: usize,
        out: &mut Pending,
    ) -> Result<(), NumFault> {
        for e in effs {
            match e {
                Eff::Add(a) => out.adds.push(self.atom_ref_key(a.pred, &a.args, b)),
                Eff::Del(a) => out.dels.push(self.atom_ref_key(a.pred, &a.args, b)),
                Eff::Num {
                    op,
                    target,
                    value,
                    span,
                } => {
                    let v = self
                        .num(st, value, b, time)
                        .map_err(|f| with_span(f, *span))?;
                    out.nums.push(NumUpdate {
                        key: self.fluent_key(target.func, &target.args, b),
                        func: target.func,
                        args: target.args.iter().map(|&a| obj(a, b)).collect(),
                        op: *op,
                        value: v,
                        span: *span,
                    });
                }
                Eff::When { cond, body } => {
                    if self.eval(st, cond, b, time)? {
                        self.collect(st, body, b, time, out)?;
                    }
                }
                Eff::Forall { vars, body } => self.collect_forall(st, vars, body, b, time, out)?,
            }
        }
        Ok(())
    }

    fn collect_forall(
        &self,
        st: &State,
        vars: &[QVar],
        body: &[Eff],
        b: &mut [ObjId],
        time: usize,
        out: &mut Pending,
    ) -> Result<(), NumFault> {
        let Some((first, rest)) = vars.split_first() else {
            return self.collect(st, body, b, time, out);
        };
        if crate::cancel::abandoned() {
            return Ok(());
        }
        for &o in &self.domains[first.domain as usize] {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.collect_forall(st, rest, body, b, time, out)?;
        }
        Ok(())
    }

    /// The new values of the fluents `pending` updates, computed against `st`, plus the
    /// fluents that `increase`/`decrease` found undefined (counted from 0, as VAL does).
    /// Fails on conflicting updates, division by zero and non-finite results.
    pub(crate) fn numeric_updates(
        &self,
        st: &State,
        pending: &mut Pending,
    ) -> Result<NumericOutcome, NumFault> {
        let mut out = NumericOutcome::default();
        // Group updates by fluent; their combination does not depend on the order.
        pending.nums.sort_by(|a, b| key_order(&a.key, &b.key));
        let mut i = 0;
        while i < pending.nums.len() {
            let mut j = i + 1;
            while j < pending.nums.len() && pending.nums[j].key == pending.nums[i].key {
                j += 1;
            }
            let group = &pending.nums[i..j];
            let new = self.combine(st, group, &mut out.undefined)?;
            out.values.push((group[0].key.clone(), new));
            i = j;
        }
        Ok(out)
    }

    /// Apply collected effects to `st`: deletes, adds, then numeric updates. On a numeric
    /// fault `st` is left unchanged. Returns the fluents that `increase`/`decrease` found
    /// undefined.
    pub(crate) fn apply(
        &self,
        st: &mut State,
        pending: &mut Pending,
    ) -> Result<Vec<(u32, Vec<ObjId>)>, NumFault> {
        self.apply_from(st, None, pending)
    }

    /// [`Task::apply`] for effects computed against `computed_on` rather than `st` itself
    /// (`None`): safety intention computes effects on a forced state and, in DESPITE's
    /// mode, applies them to the unforced one.
    pub(crate) fn apply_from(
        &self,
        st: &mut State,
        computed_on: Option<&State>,
        pending: &mut Pending,
    ) -> Result<Vec<(u32, Vec<ObjId>)>, NumFault> {
        // Numeric updates combine against the state the effects read, before anything
        // changes, so a fault leaves `st` as it was.
        let numeric = if pending.nums.is_empty() {
            NumericOutcome::default()
        } else {
            self.numeric_updates(computed_on.unwrap_or(st), pending)?
        };
        for k in &pending.dels {
            st.atoms.remove(k);
        }
        for k in pending.adds.drain(..) {
            st.atoms.insert(k);
        }
        for (k, v) in &numeric.values {
            st.set_value(k, *v);
        }
        self.derive(st);
        Ok(numeric.undefined)
    }

    /// The new value of one fluent updated by `group` (all on the same fluent).
    fn combine(
        &self,
        st: &State,
        group: &[NumUpdate],
        undefined: &mut Vec<(u32, Vec<ObjId>)>,
    ) -> Result<f64, NumFault> {
        let first = &group[0];
        let conflict = || NumFault::Conflict {
            func: first.func,
            args: first.args.clone(),
            span: group.last().map_or(first.span, |u| u.span),
        };
        let assigns: Vec<&NumUpdate> = group.iter().filter(|u| u.op == AssignOp::Assign).collect();
        if let Some(a) = assigns.first() {
            if assigns.len() != group.len() || assigns.iter().any(|b| b.value != a.value) {
                return Err(conflict());
            }
            return Ok(a.value);
        }
        let scales = group
            .iter()
            .filter(|u| matches!(u.op, AssignOp::ScaleUp | AssignOp::ScaleDown))
            .count();
        if scales != 0 && scales != group.len() {
            return Err(conflict());
        }
        let current = st.value(&first.key);
        let base = match current {
            Some(v) => v,
            None if scales == 0 => {
                undefined.push((first.func, first.args.clone()));
                0.0
            }
            None => {
                return Err(NumFault::Undefined {
                    func: first.func,
                    args: first.args.clone(),
                });
            }
        };
        let mut v = base;
        for u in group {
            v = match u.op {
                AssignOp::Increase => v + u.value,
                AssignOp::Decrease => v - u.value,
                AssignOp::ScaleUp => v * u.value,
                AssignOp::ScaleDown => {
                    if u.value == 0.0 {
                        return Err(NumFault::DivByZero(u.span));
                    }
                    v / u.value
                }
                AssignOp::Assign => u.value,
            };
        }
        if v.is_finite() {
            Ok(v)
        } else {
            Err(NumFault::NonFinite(first.span))
        }
    }
}

fn key_order(a: &Key, b: &Key) -> std::cmp::Ordering {
    match (a, b) {
        (Key::Dense(x), Key::Dense(y)) => x.cmp(y),
        (Key::Dense(_), Key::Sparse(_)) => std::cmp::Ordering::Less,
        (Key::Sparse(_), Key::Dense(_)) => std::cmp::Ordering::Greater,
        (Key::Sparse(x), Key::Sparse(y)) => x.cmp(y),
    }
}

/// Attach the span of the effect being computed to faults that have none.
fn with_span(f: NumFault, span: Span) -> NumFault {
    match f {
        NumFault::DivByZero(s) if s.is_empty() => NumFault::DivByZero(span),
        NumFault::NonFinite(s) if s.is_empty() => NumFault::NonFinite(span),
        other => other,
    }
}

/// Running the fast path of a STRIPS-like action (built in `task/fast.rs`): a
/// precondition and effects that need no tree walk, whose bits are computed from the
/// step's object ids. It gives the same answers as the general path above (the
/// differential tests run both).
impl Task {
    #[inline]
    fn fast_index(&self, atom: &FastAtom, b: &[ObjId]) -> u64 {
        self.dense_index(atom.base, &atom.args, b)
    }

    /// Whether the fast precondition holds in `st` under binding `b`.
    #[inline]
    pub(crate) fn fast_applicable(&self, fast: &Fast, st: &State, b: &[ObjId]) -> bool {
        fast.eqs
            .iter()
            .all(|&(x, y, eq)| (obj(x, b) == obj(y, b)) == eq)
            && fast.lits.iter().all(|l| {
                let i = self.fast_index(&l.atom, b);
                let holds = if l.is_static {
                    self.statics.test(i)
                } else {
                    st.atoms.test(i)
                };
                holds == l.positive
            })
    }

    /// Apply the fast effects to `st`.
    #[inline]
    pub(crate) fn fast_apply(&self, fast: &Fast, st: &mut State, b: &[ObjId]) {
        for d in &fast.dels {
            st.atoms.set(self.fast_index(d, b), false);
        }
        for a in &fast.adds {
            st.atoms.set(self.fast_index(a, b), true);
        }
        self.derive(st);
    }
}
