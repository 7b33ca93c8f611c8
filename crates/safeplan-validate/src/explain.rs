//! Explanations: which literals of a false condition are false, with the values that made
//! them so, and what to change. Only runs on the failure path, so it favours clear output
//! over speed.

use std::fmt::Write as _;

use compact_str::CompactString;
use safeplan_pddl::FileKind;
use safeplan_pddl::ast::{ArithOp, CmpOp};

use crate::exec::{NumFault, obj};
use crate::state::State;
use crate::task::{Arg, AtomRef, Cond, FluentRef, NumExpr, ObjId, PredKind, QVar, Task};
use crate::verdict::{Binding, FluentValue, SourceRef, Unmet};
// Numbers are written by the verdict's own sentences too; one form, kept beside them.
pub(crate) use crate::verdict::Number;

/// Writes lifted formulas with their slots filled by a binding. Slots bound by a
/// quantifier being printed show as their variable name.
pub(crate) struct Printer<'t> {
    task: &'t Task,
    names: Vec<Option<CompactString>>,
}

impl<'t> Printer<'t> {
    pub fn new(task: &'t Task) -> Printer<'t> {
        Printer {
            task,
            names: Vec::new(),
        }
    }

    fn arg(&self, out: &mut String, a: Arg, b: &[ObjId]) {
        if let Arg::Slot(s) = a
            && let Some(Some(name)) = self.names.get(s as usize)
        {
            let _ = write!(out, "?{name}");
            return;
        }
        out.push_str(&self.task.objects[obj(a, b) as usize].name.to_lowercase());
    }

    pub fn atom(&self, out: &mut String, a: &AtomRef, b: &[ObjId]) {
        out.push('(');
        out.push_str(&self.task.preds[a.pred as usize].sym.name.to_lowercase());
        for &x in a.args.iter() {
            out.push(' ');
            self.arg(out, x, b);
        }
        out.push(')');
    }

    pub fn fluent(&self, out: &mut String, f: &FluentRef, b: &[ObjId]) {
        out.push('(');
        out.push_str(&self.task.funcs[f.func as usize].name.to_lowercase());
        for &x in f.args.iter() {
            out.push(' ');
            self.arg(out, x, b);
        }
        out.push(')');
    }

    pub fn num(&self, out: &mut String, e: &NumExpr, b: &[ObjId]) {
        match e {
            NumExpr::Const(x) => {
                let _ = write!(out, "{}", Number(*x));
            }
            NumExpr::TotalTime => out.push_str("(total-time)"),
            NumExpr::IsViolated(p) => {
                let name = self
                    .task
                    .constraints
                    .preferences
                    .get(*p as usize)
                    .map_or("?", |n| n.as_str());
                let _ = write!(out, "(is-violated {name})");
            }
            NumExpr::Duration => out.push_str("?duration"),
            NumExpr::Fluent(f) => self.fluent(out, f, b),
            NumExpr::Arith(op, args) => {
                out.push('(');
                out.push_str(match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                    ArithOp::Div => "/",
                });
                for a in args {
                    out.push(' ');
                    self.num(out, a, b);
                }
                out.push(')');
            }
        }
    }

    /// `body` with the variables of `vars` written as `?name`.
    pub fn quantified_body(&mut self, out: &mut String, vars: &[QVar], body: &Cond, b: &[ObjId]) {
        let saved = self.names.clone();
        self.name_vars(vars);
        self.cond(out, body, b);
        self.names = saved;
    }

    fn name_vars(&mut self, vars: &[QVar]) {
        for v in vars {
            let slot = v.slot as usize;
            if self.names.len() <= slot {
                self.names.resize(slot + 1, None);
            }
            self.names[slot] = Some(v.name.clone());
        }
    }

    pub fn cond(&mut self, out: &mut String, c: &Cond, b: &[ObjId]) {
        let list = |p: &mut Self, out: &mut String, head: &str, parts: &[Cond]| {
            out.push('(');
            out.push_str(head);
            for part in parts {
                out.push(' ');
                p.cond(out, part, b);
            }
            out.push(')');
        };
        match c {
            Cond::True => out.push_str("(and)"),
            Cond::Atom(a) => self.atom(out, a, b),
            Cond::Eq(x, y, _) => {
                out.push_str("(= ");
                self.arg(out, *x, b);
                out.push(' ');
                self.arg(out, *y, b);
                out.push(')');
            }
            Cond::Not(inner, _) => {
                out.push_str("(not ");
                self.cond(out, inner, b);
                out.push(')');
            }
            Cond::And(parts) => list(self, out, "and", parts),
            Cond::Or(parts, _) => list(self, out, "or", parts),
            Cond::Imply(x, y) => {
                out.push_str("(imply ");
                self.cond(out, x, b);
                out.push(' ');
                self.cond(out, y, b);
                out.push(')');
            }
            Cond::Quant {
                forall, vars, body, ..
            } => {
                out.push_str(if *forall { "(forall (" } else { "(exists (" });
                let saved = self.names.clone();
                for (i, v) in vars.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    let _ = write!(out, "?{}", v.name);
                    if self.task.typed {
                        let types = &self.task.domain_types[v.domain as usize];
                        let _ = write!(out, " - {}", self.task.describe_types(types));
                    }
                }
                self.name_vars(vars);
                out.push_str(") ");
                self.cond(out, body, b);
                out.push(')');
                self.names = saved;
            }
            Cond::Compare(op, x, y, _) => {
                out.push('(');
                out.push_str(op.as_str());
                out.push(' ');
                self.num(out, x, b);
                out.push(' ');
                self.num(out, y, b);
                out.push(')');
            }
        }
    }
}

/// Where an explanation is for: a step (advice says "before step k") or the goal.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Site {
    Step(usize),
    /// An event of step `step` of a temporal plan at `time`.
    Timed {
        step: usize,
        time: f64,
        event: crate::verdict::Event,
    },
    Goal,
    /// The state after step `k` of a sequential plan (0: the initial state), where a
    /// trajectory constraint was found broken.
    State(usize),
    /// The state at plan time `t` of a temporal plan.
    Time(f64),
    /// The final state, where a constraint judged at the end was found broken.
    End,
}

impl Site {
    fn when(self) -> String {
        match self {
            Site::Step(k) => format!("before step {k}"),
            Site::State(0) => "in the initial state".into(),
            Site::State(k) => format!("after step {k}"),
            Site::Time(t) => format!("at time {}", Number(round_time(t))),
            Site::End => "at the end of the plan".into(),
            Site::Timed { step, time, event } => match event {
                crate::verdict::Event::Invariant => {
                    format!(
                        "throughout step {step} (it is false before time {})",
                        Number(round_time(time))
                    )
                }
                _ => format!(
                    "at time {} ({} of step {step})",
                    Number(round_time(time)),
                    event.as_str()
                ),
            },
            Site::Goal => "by the end of the plan".into(),
        }
    }
}

/// Explains why a condition is false.
pub(crate) struct Explainer<'t> {
    pub task: &'t Task,
    pub state: &'t State,
    pub file: FileKind,
    pub site: Site,
    pub time: usize,
    pub out: Vec<Unmet>,
    bindings: Vec<Binding>,
}

impl<'t> Explainer<'t> {
    pub fn new(task: &'t Task, state: &'t State, file: FileKind, site: Site, time: usize) -> Self {
        Explainer {
            task,
            state,
            file,
            site,
            time,
            out: Vec::new(),
            bindings: Vec::new(),
        }
    }

    fn text(&self, c: &Cond, b: &[ObjId]) -> String {
        let mut s = String::new();
        Printer::new(self.task).cond(&mut s, c, b);
        s
    }

    fn push(
        &mut self,
        literal: String,
        values: Vec<FluentValue>,
        span: safeplan_pddl::Span,
        advice: String,
    ) {
        self.out.push(Unmet {
            literal,
            values,
            bindings: self.bindings.clone(),
            source: SourceRef {
                file: self.file,
                span,
            },
            advice,
        });
    }

    fn holds(&self, c: &Cond, b: &mut [ObjId]) -> Result<bool, NumFault> {
        self.task.eval(self.state, c, b, self.time)
    }

    /// Record why `c` (known to be false, or to fault) is not true under `b`.
    pub fn explain(&mut self, c: &Cond, b: &mut [ObjId]) {
        let when = self.site.when();
        match c {
            Cond::True => {}
            Cond::Atom(a) => {
                let lit = self.text(c, b);
                let advice = match self.task.preds[a.pred as usize].kind {
                    PredKind::Static => format!(
                        "{lit} is a fixed fact of the problem that no action changes: use objects for which it holds"
                    ),
                    PredKind::Derived => format!(
                        "make {lit} true {when} (it is derived: change what its definition reads)"
                    ),
                    PredKind::Fluent => format!("set {lit} to true {when}"),
                };
                self.push(lit, Vec::new(), a.span, advice);
            }
            Cond::Eq(_, _, span) => {
                let lit = self.text(c, b);
                self.push(
                    lit.clone(),
                    Vec::new(),
                    *span,
                    format!("{lit} compares two different objects: use the same object for both"),
                );
            }
            Cond::Not(inner, span) => {
                match &**inner {
                    Cond::Atom(a) => {
                        let mut atom = String::new();
                        Printer::new(self.task).atom(&mut atom, a, b);
                        let advice = if self.task.preds[a.pred as usize].kind == PredKind::Static {
                            format!(
                                "{atom} is a fixed fact of the problem that no action changes: use objects for which it is false"
                            )
                        } else {
                            format!("set {atom} to false {when}")
                        };
                        self.push(format!("(not {atom})"), Vec::new(), *span, advice);
                    }
                    Cond::Eq(..) => {
                        let lit = self.text(c, b);
                        self.push(lit.clone(), Vec::new(), *span, format!("{lit} fails because both are the same object: use different objects"));
                    }
                    _ => {
                        let lit = self.text(c, b);
                        let inner_text = self.text(inner, b);
                        self.push(
                            lit,
                            Vec::new(),
                            *span,
                            format!("make {inner_text} false {when}"),
                        );
                    }
                }
            }
            Cond::And(parts) => {
                for p in parts {
                    if !matches!(self.holds(p, b), Ok(true)) {
                        self.explain(p, b);
                    }
                }
            }
            Cond::Or(parts, span) => {
                let options: Vec<String> = parts.iter().map(|p| self.text(p, b)).collect();
                let lit = self.text(c, b);
                self.push(
                    lit,
                    Vec::new(),
                    *span,
                    format!("make one of {} true {when}", options.join(", ")),
                );
            }
            Cond::Imply(_, y) => {
                // False means: the antecedent holds and the consequent does not.
                self.explain(y, b);
            }
            Cond::Quant {
                forall: false,
                span,
                body,
                vars,
            } => {
                let lit = self.text(c, b);
                let mut body_text = String::new();
                Printer::new(self.task).quantified_body(&mut body_text, vars, body, b);
                self.push(
                    lit,
                    Vec::new(),
                    *span,
                    format!(
                        "make {body_text} true for at least one choice of the variables {when}"
                    ),
                );
            }
            Cond::Quant {
                forall: true,
                vars,
                body,
                span,
            } => {
                if !self.counterexample(vars, body, b) {
                    // Only a numeric fault can get here: report the whole formula.
                    let lit = self.text(c, b);
                    self.push(
                        lit.clone(),
                        Vec::new(),
                        *span,
                        format!("make {lit} true {when}"),
                    );
                }
            }
            Cond::Compare(op, x, y, span) => {
                let lit = self.text(c, b);
                let mut values = Vec::new();
                self.values(x, b, &mut values);
                self.values(y, b, &mut values);
                let undefined: Vec<&str> = values
                    .iter()
                    .filter(|v| v.value.is_none())
                    .map(|v| v.fluent.as_str())
                    .collect();
                let advice = if !undefined.is_empty() {
                    format!("give {} a value {when}", undefined.join(", "))
                } else {
                    let now: Vec<String> = values
                        .iter()
                        .map(|v| format!("{} is {}", v.fluent, Number(v.value.unwrap_or(0.0))))
                        .collect();
                    let mut s = format!("make {lit} true {when}");
                    if !now.is_empty() {
                        let _ = write!(s, "; now {}", now.join(", "));
                    }
                    if matches!(op, CmpOp::Eq) && self.task.slack > 0.0 {
                        let _ = write!(
                            s,
                            " (equality allows a difference below {})",
                            self.task.slack
                        );
                    }
                    s
                };
                self.push(lit, values, *span, advice);
            }
        }
    }

    /// Record the literals that make `c` (known to be true) true under `b`: what made a
    /// condition hold that must not have (a `sometime-before` trigger, say).
    pub fn support(&mut self, c: &Cond, b: &mut [ObjId]) {
        let when = self.site.when();
        match c {
            Cond::True => {}
            Cond::And(parts) => {
                for p in parts {
                    self.support(p, b);
                }
            }
            Cond::Or(parts, _) => {
                if let Some(p) = parts.iter().find(|p| matches!(self.holds(p, b), Ok(true))) {
                    self.support(p, b);
                }
            }
            Cond::Quant {
                forall: false,
                vars,
                body,
                ..
            } => {
                if !self.witness(vars, body, b) {
                    let lit = self.text(c, b);
                    self.push(
                        lit.clone(),
                        Vec::new(),
                        cond_span(c),
                        format!("{lit} holds {when}"),
                    );
                }
            }
            _ => {
                let lit = self.text(c, b);
                let mut values = Vec::new();
                if let Cond::Compare(_, x, y, _) = c {
                    self.values(x, b, &mut values);
                    self.values(y, b, &mut values);
                }
                self.push(
                    lit.clone(),
                    values,
                    cond_span(c),
                    format!("{lit} holds {when}"),
                );
            }
        }
    }

    /// Find the first binding of `vars` that makes `body` true and support it there.
    fn witness(&mut self, vars: &[QVar], body: &Cond, b: &mut [ObjId]) -> bool {
        let Some((first, rest)) = vars.split_first() else {
            if !matches!(self.holds(body, b), Ok(true)) {
                return false;
            }
            self.support(body, b);
            return true;
        };
        if crate::cancel::abandoned() {
            return false;
        }
        for &o in &self.task.domains[first.domain as usize] {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.bindings.push(Binding {
                variable: format!("?{}", first.name),
                object: self.task.objects[o as usize]
                    .name
                    .to_lowercase()
                    .to_string(),
            });
            let found = self.witness(rest, body, b);
            self.bindings.pop();
            if found {
                return true;
            }
        }
        false
    }

    /// Find the first binding of `vars` that makes `body` false and explain it there.
    fn counterexample(&mut self, vars: &[QVar], body: &Cond, b: &mut [ObjId]) -> bool {
        let Some((first, rest)) = vars.split_first() else {
            if matches!(self.holds(body, b), Ok(true)) {
                return false;
            }
            self.explain(body, b);
            return true;
        };
        if crate::cancel::abandoned() {
            return false;
        }
        for &o in &self.task.domains[first.domain as usize] {
            if let Some(slot) = b.get_mut(first.slot as usize) {
                *slot = o;
            }
            self.bindings.push(Binding {
                variable: format!("?{}", first.name),
                object: self.task.objects[o as usize]
                    .name
                    .to_lowercase()
                    .to_string(),
            });
            let found = self.counterexample(rest, body, b);
            self.bindings.pop();
            if found {
                return true;
            }
        }
        false
    }

    fn values(&self, e: &NumExpr, b: &[ObjId], out: &mut Vec<FluentValue>) {
        match e {
            NumExpr::Const(_) | NumExpr::TotalTime | NumExpr::Duration | NumExpr::IsViolated(_) => {
            }
            NumExpr::Fluent(f) => {
                let mut name = String::new();
                Printer::new(self.task).fluent(&mut name, f, b);
                if !out.iter().any(|v| v.fluent == name) {
                    out.push(FluentValue {
                        fluent: name,
                        value: self.task.read(self.state, f, b).ok(),
                    });
                }
            }
            NumExpr::Arith(_, args) => args.iter().for_each(|a| self.values(a, b, out)),
        }
    }
}

/// Where a condition is written (the quantifier or operator for compound ones; nothing for
/// `and` and `imply`, which keep no span).
fn cond_span(c: &Cond) -> safeplan_pddl::Span {
    match c {
        Cond::Atom(a) => a.span,
        Cond::Eq(_, _, s) | Cond::Not(_, s) | Cond::Or(_, s) | Cond::Compare(_, _, _, s) => *s,
        Cond::Quant { span, .. } => *span,
        Cond::True | Cond::And(_) | Cond::Imply(..) => safeplan_pddl::Span::default(),
    }
}

impl Task {
    /// A ground fluent written out, e.g. `(fuel plane1)`.
    pub(crate) fn fluent_text(&self, func: u32, args: &[ObjId]) -> String {
        self.ground_text(&self.funcs[func as usize].name.to_lowercase(), args)
    }

    /// `(name o1 o2)`, object names lowercased.
    pub(crate) fn ground_text(&self, name: &str, args: &[ObjId]) -> String {
        let mut s = format!("({name}");
        for &a in args {
            s.push(' ');
            s.push_str(&self.objects[a as usize].name.to_lowercase());
        }
        s.push(')');
        s
    }
}

/// A time for people: plan times are sums of decimals (`3.002 + 0.49`), so they are shown
/// rounded to a microsecond of plan time.
pub(crate) fn round_time(t: f64) -> f64 {
    let r = (t * 1e6).round() / 1e6;
    if r == 0.0 { 0.0 } else { r }
}
