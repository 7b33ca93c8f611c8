//! AST to PDDL text: domains, problems, plans, and single formulas for messages.
//!
//! # What the writer guarantees
//!
//! For every AST the parser returns without diagnostics, and for hand-built ASTs of the
//! same shape, reading the output back gives the same AST up to spans, with no diagnostics:
//!
//! ```text
//! parse(write(ast)).erase_spans() == ast.erase_spans()
//! ```
//!
//! The property tests in `tests/roundtrip.rs` check this on generated ASTs covering every
//! node kind, and on every domain and problem of the reference corpus. The guarantee is what
//! lets later stages rewrite a task (add a safety fluent, drop an action) and hand the text
//! to another planner or validator without wondering whether printing changed its meaning.
//!
//! Output is deterministic (the same AST always gives the same bytes) and laid out as a
//! careful human writes PDDL: two-space indentation; one section per block, in the usual
//! order (requirements, types, constants, predicates, functions, then derived predicates,
//! actions and durative actions, each after a blank line); `:parameters`, `:precondition`
//! and `:effect` on their own lines; a formula on one line when its line fits in 80 columns,
//! otherwise broken one operand per line (a long `(and ...)` gets one conjunct per line),
//! with the `)` of a broken list on its own line under the line that opened it. Requirements
//! print as written. A 0-ary fluent always prints with its parentheses, `(total-cost)`.
//! Numbers print in Rust's shortest round-trip notation, so the value read back is the same
//! `f64`: `3.0` prints as `3`, `0.1` as `0.1`, and never with an exponent (PDDL has none).
//!
//! # What PDDL cannot express
//!
//! The guarantee holds for ASTs in the shape PDDL's syntax can express (every AST the
//! parser returns without errors is one). Outside it the writer prints the closest PDDL it
//! can:
//!
//! - **Typed lists.** In `?x ?y - t ?z`, the `- t` types every entry since the previous
//!   type, so `?x` and `?y` both get `t` and only a *trailing* run of entries can be untyped.
//!   An AST whose list has an untyped entry before a typed one (as `[?x, ?y - t]` with `?x`
//!   untyped) has no faithful spelling: the writer gives each such stray entry an explicit
//!   `- object` (the type an untyped entry has anyway), and it reads back as typed `object`.
//!   The same holds for `:functions`, where `(f) (g) - number` types both: an untyped
//!   function before a typed one is written `- number` (what an untyped function means).
//! - **`=` on two variables in a numeric position.** `(= ?a ?b)` reads as object equality
//!   ([`Formula::Equals`]), so a numeric [`Formula::Compare`] of two [`Expr::Var`]s reads back
//!   as `Equals`. `?duration` only ever meets a number or a parenthesised expression.
//! - **What the grammar rules out.** `(- a b c)`, `(/ a)` or `(+ a)` (wrong operator
//!   arity), variables in `:init`, and `over all` on an effect print as such, and the parser
//!   reports them.
//! - **Names.** Names print verbatim. A name that is a keyword where it stands (a predicate
//!   called `and`, a type called `number`, an object called `-`) or is not a PDDL name at
//!   all (empty, with spaces or parentheses) reads back differently or not at all.
//! - **Numbers.** NaN and the infinities have no PDDL spelling; they print as Rust does
//!   (`NaN`, `inf`), which does not read back as a number.
//! - **A problem without a goal** prints without `:goal`, which the parser reports; an
//!   unknown requirement flag prints as written, and reads back with its warning again.
//!
//! # Plans
//!
//! [`write_plan`] prints one step per line, `(action arg ...)`, or `t: (action arg ...) [d]`
//! for a timestamped step, and a final `; cost = N` line when the plan has a cost.

use std::fmt::Write as _;

use crate::ast::{
    Action, Atom, Constraint, Derived, Domain, DurativeAction, Effect, Expr, FluentTerm, Formula,
    FunctionDecl, FunctionType, InitEntry, Metric, Modal, Optimization, Plan, PlanStep,
    PredicateDecl, Problem, RequirementDecl, Term, TimedEffect, TimedFormula, Type, Typed,
};

/// Lines longer than this are broken, where the construct allows it.
const WIDTH: usize = 80;

/// Print a domain as PDDL that parses back to the same AST (up to spans).
pub fn write_domain(d: &Domain) -> String {
    let mut w = Writer::default();
    w.domain(d);
    w.out
}

/// Print a problem as PDDL that parses back to the same AST (up to spans).
pub fn write_problem(p: &Problem) -> String {
    let mut w = Writer::default();
    w.problem(p);
    w.out
}

/// Print a plan: one step per line, timestamped steps as `t: (step) [d]`, and a
/// `; cost = N` trailer when [`Plan::cost`] is set. An empty plan without a cost is `""`.
pub fn write_plan(p: &Plan) -> String {
    let mut out = String::new();
    for step in &p.steps {
        plan_step(&mut out, step);
        out.push('\n');
    }
    if let Some(cost) = p.cost {
        out.push_str("; cost = ");
        number(&mut out, cost);
        out.push('\n');
    }
    out
}

/// A plan file's text from steps given one by one, as a front end that takes a list of
/// steps has them: each `(action arg ...)` as written, or bare `action arg ...`, which is put
/// in parentheses; one step per line. Python's `validate(["move a b", ...])` and the
/// benchmark's recorded steps are read through this, then by [`crate::parse_plan`]. Every
/// entry is a step: an empty one is written `()`, which the reader refuses (a step is not
/// silently dropped).
pub fn write_steps<'a>(steps: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for step in steps {
        let step = step.trim();
        if step.starts_with('(') {
            out.push_str(step);
        } else {
            out.push('(');
            out.push_str(step);
            out.push(')');
        }
        out.push('\n');
    }
    out
}

/// `(name arg ...)`: one step from an action's name and its arguments.
pub fn write_step<S: AsRef<str>>(name: &str, args: &[S]) -> String {
    let mut out = String::from("(");
    out.push_str(name);
    for a in args {
        out.push(' ');
        out.push_str(a.as_ref());
    }
    out.push(')');
    out
}

/// Print a condition on one line, as messages quote it: `(and (at ?r ?l) (not (busy ?r)))`.
pub fn write_formula(f: &Formula) -> String {
    let mut out = String::new();
    formula(&mut out, f);
    out
}

/// Print an effect on one line, as messages quote it: `(and (not (at ?r ?a)) (at ?r ?b))`.
pub fn write_effect(e: &Effect) -> String {
    let mut out = String::new();
    effect(&mut out, e);
    out
}

// ----- flat printing: one line, no allocation -----------------------------------------------

fn number(out: &mut String, v: f64) {
    // Writing to a `String` cannot fail.
    let _ = write!(out, "{v}");
}

fn term(out: &mut String, t: &Term) {
    match t {
        Term::Var(n) => {
            out.push('?');
            out.push_str(&n.text);
        }
        Term::Const(n) => out.push_str(&n.text),
    }
}

/// ` t1 t2 ...` (each term preceded by a space).
fn terms(out: &mut String, ts: &[Term]) {
    for t in ts {
        out.push(' ');
        term(out, t);
    }
}

fn ty(out: &mut String, t: &Type) {
    match t {
        Type::Named(n) => out.push_str(&n.text),
        Type::Either(names, _) => {
            out.push_str("(either");
            for n in names {
                out.push(' ');
                out.push_str(&n.text);
            }
            out.push(')');
        }
    }
}

/// The type an entry of a typed list is printed with.
#[derive(Clone, Copy)]
enum TyRef<'a> {
    /// A stray untyped entry before a typed one: printed `- object` (see the module docs).
    Object,
    /// The entry's own type.
    Ty(&'a Type),
}

impl TyRef<'_> {
    fn write(self, out: &mut String) {
        match self {
            TyRef::Object => out.push_str("object"),
            TyRef::Ty(t) => ty(out, t),
        }
    }
}

/// Whether two entries print with the same type (so they can share one `- type`).
fn same_ty(a: Option<TyRef<'_>>, b: Option<TyRef<'_>>) -> bool {
    match (a, b) {
        (None, None) | (Some(TyRef::Object), Some(TyRef::Object)) => true,
        (Some(TyRef::Object), Some(TyRef::Ty(Type::Named(n))))
        | (Some(TyRef::Ty(Type::Named(n))), Some(TyRef::Object)) => n.text == "object",
        (Some(TyRef::Ty(x)), Some(TyRef::Ty(y))) => match (x, y) {
            (Type::Named(a), Type::Named(b)) => a.text == b.text,
            (Type::Either(a, _), Type::Either(b, _)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.text == b.text)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Call `f` on each run of consecutive entries that print with one `- type` (or none, for
/// the trailing untyped run), in order.
fn for_each_group<'a>(list: &'a [Typed], mut f: impl FnMut(&'a [Typed], Option<TyRef<'a>>)) {
    let last_typed = list.iter().rposition(|t| t.ty.is_some());
    let printed_ty = |i: usize| -> Option<TyRef<'a>> {
        match list.get(i).and_then(|t| t.ty.as_ref()) {
            Some(t) => Some(TyRef::Ty(t)),
            None if last_typed.is_some_and(|last| i < last) => Some(TyRef::Object),
            None => None,
        }
    };
    let mut start = 0;
    for i in 0..list.len() {
        let this = printed_ty(i);
        if i + 1 == list.len() || !same_ty(this, printed_ty(i + 1)) {
            f(&list[start..=i], this);
            start = i + 1;
        }
    }
}

fn typed_name(out: &mut String, t: &Typed, vars: bool) {
    if vars {
        out.push('?');
    }
    out.push_str(&t.name.text);
}

/// A typed list on one line: `?x ?y - t ?z`. `vars` prints the names as `?name`.
fn typed_list(out: &mut String, list: &[Typed], vars: bool) {
    let mut first = true;
    for_each_group(list, |group, group_ty| {
        for t in group {
            if !first {
                out.push(' ');
            }
            first = false;
            typed_name(out, t, vars);
        }
        if let Some(group_ty) = group_ty {
            out.push_str(" - ");
            group_ty.write(out);
        }
    });
}

fn atom(out: &mut String, a: &Atom) {
    out.push('(');
    out.push_str(&a.predicate.text);
    terms(out, &a.args);
    out.push(')');
}

fn fluent(out: &mut String, f: &FluentTerm) {
    out.push('(');
    out.push_str(&f.function.text);
    terms(out, &f.args);
    out.push(')');
}

fn expr(out: &mut String, e: &Expr) {
    match e {
        Expr::Number(v, _) => number(out, *v),
        Expr::Fluent(f) => fluent(out, f),
        Expr::Arith(op, args, _) => {
            out.push('(');
            out.push_str(op.as_str());
            for a in args {
                out.push(' ');
                expr(out, a);
            }
            out.push(')');
        }
        Expr::Var(n) => {
            out.push('?');
            out.push_str(&n.text);
        }
    }
}

/// `(head (vars)` for quantifiers, `(head` otherwise; the caller closes it.
fn open(out: &mut String, head: &str, vars: Option<&[Typed]>) {
    out.push('(');
    out.push_str(head);
    if let Some(vars) = vars {
        out.push_str(" (");
        typed_list(out, vars, true);
        out.push(')');
    }
}

fn formula(out: &mut String, f: &Formula) {
    match f {
        Formula::Atom(a) => atom(out, a),
        Formula::Equals(a, b, _) => {
            out.push_str("(= ");
            term(out, a);
            out.push(' ');
            term(out, b);
            out.push(')');
        }
        Formula::Compare(op, a, b, _) => {
            out.push('(');
            out.push_str(op.as_str());
            out.push(' ');
            expr(out, a);
            out.push(' ');
            expr(out, b);
            out.push(')');
        }
        _ => {
            open_formula(out, f);
            for_each_formula_child(f, |child| {
                out.push(' ');
                formula(out, child);
            });
            out.push(')');
        }
    }
}

/// `(head`, with a quantifier's variables or a preference's name.
fn open_formula(out: &mut String, f: &Formula) {
    let (head, vars) = formula_head(f);
    open(out, head, vars);
    if let Formula::Preference(Some(name), _, _) = f {
        out.push(' ');
        out.push_str(name.as_str());
    }
}

/// The head word and quantified variables of a compound formula.
fn formula_head(f: &Formula) -> (&'static str, Option<&[Typed]>) {
    match f {
        Formula::Not(..) => ("not", None),
        Formula::And(..) => ("and", None),
        Formula::Or(..) => ("or", None),
        Formula::Imply(..) => ("imply", None),
        Formula::Exists(vars, _, _) => ("exists", Some(vars)),
        Formula::Forall(vars, _, _) => ("forall", Some(vars)),
        Formula::Preference(..) => ("preference", None),
        // Not compound: printed without children.
        Formula::Atom(_) | Formula::Equals(..) | Formula::Compare(..) => ("", None),
    }
}

fn for_each_formula_child<'a>(f: &'a Formula, mut each: impl FnMut(&'a Formula)) {
    match f {
        Formula::Not(g, _)
        | Formula::Exists(_, g, _)
        | Formula::Forall(_, g, _)
        | Formula::Preference(_, g, _) => each(g),
        Formula::And(parts, _) | Formula::Or(parts, _) => parts.iter().for_each(each),
        Formula::Imply(a, b, _) => {
            each(a);
            each(b);
        }
        Formula::Atom(_) | Formula::Equals(..) | Formula::Compare(..) => {}
    }
}

/// How a constraint is written: in `:constraints`, or as a goal preference, where
/// `(preference p (at end φ))` is written `(preference p φ)` (the form the parser reads
/// goal preferences into).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ConstraintForm {
    Section,
    Goal,
}

/// The head of a constraint (`(always`, `(forall (?x - t)`, `(preference p`) with its
/// numbers, and the children printed after it: sub-constraints or conditions.
fn constraint_head(out: &mut String, c: &Constraint, form: ConstraintForm) {
    match c {
        Constraint::And(..) => out.push_str("(and"),
        Constraint::Forall(vars, _, _) => open(out, "forall", Some(vars)),
        Constraint::Preference(name, _, _) => {
            out.push_str("(preference");
            if let Some(n) = name {
                out.push(' ');
                out.push_str(&n.text);
            }
        }
        Constraint::Modal(m, _) => {
            out.push('(');
            if !(form == ConstraintForm::Goal && matches!(**m, Modal::AtEnd(_))) {
                out.push_str(m.op().as_str());
            }
            let times: &[f64] = match &**m {
                Modal::Within(t, _) | Modal::HoldAfter(t, _) | Modal::AlwaysWithin(t, _, _) => {
                    std::slice::from_ref(t)
                }
                Modal::HoldDuring(a, b, _) => &[*a, *b],
                _ => &[],
            };
            for t in times {
                out.push(' ');
                number(out, *t);
            }
        }
    }
}

/// A goal-form preference body `(at end φ)` prints as φ alone.
fn goal_body(c: &Constraint, form: ConstraintForm) -> Option<&Formula> {
    match (form, c) {
        (ConstraintForm::Goal, Constraint::Modal(m, _)) => match &**m {
            Modal::AtEnd(f) => Some(f),
            _ => None,
        },
        _ => None,
    }
}

fn constraint(out: &mut String, c: &Constraint, form: ConstraintForm) {
    if let Some(f) = goal_body(c, form) {
        formula(out, f);
        return;
    }
    constraint_head(out, c, form);
    match c {
        Constraint::And(parts, _) => {
            for p in parts {
                out.push(' ');
                constraint(out, p, form);
            }
        }
        Constraint::Forall(_, body, _) | Constraint::Preference(_, body, _) => {
            out.push(' ');
            constraint(out, body, form);
        }
        Constraint::Modal(m, _) => {
            for f in m.conditions() {
                out.push(' ');
                formula(out, f);
            }
        }
    }
    out.push(')');
}

fn effect(out: &mut String, e: &Effect) {
    match e {
        Effect::Add(a) => atom(out, a),
        Effect::Delete(a, _) => {
            out.push_str("(not ");
            atom(out, a);
            out.push(')');
        }
        Effect::Numeric(op, target, value, _) => {
            out.push('(');
            out.push_str(op.as_str());
            out.push(' ');
            fluent(out, target);
            out.push(' ');
            expr(out, value);
            out.push(')');
        }
        Effect::And(parts, _) => {
            out.push_str("(and");
            for p in parts {
                out.push(' ');
                effect(out, p);
            }
            out.push(')');
        }
        Effect::Forall(vars, body, _) => {
            open(out, "forall", Some(vars));
            out.push(' ');
            effect(out, body);
            out.push(')');
        }
        Effect::When(cond, body, _) => {
            out.push_str("(when ");
            formula(out, cond);
            out.push(' ');
            effect(out, body);
            out.push(')');
        }
    }
}

fn timed_formula(out: &mut String, f: &TimedFormula) {
    match f {
        TimedFormula::And(parts, _) => {
            out.push_str("(and");
            for p in parts {
                out.push(' ');
                timed_formula(out, p);
            }
            out.push(')');
        }
        TimedFormula::Forall(vars, body, _) => {
            open(out, "forall", Some(vars));
            out.push(' ');
            timed_formula(out, body);
            out.push(')');
        }
        // The PDDL3 form: `(preference NAME (at start f))`.
        TimedFormula::At(spec, Formula::Preference(name, body, _), _) => {
            out.push_str("(preference ");
            if let Some(name) = name {
                out.push_str(name.as_str());
                out.push(' ');
            }
            out.push('(');
            out.push_str(spec.as_str());
            out.push(' ');
            formula(out, body);
            out.push_str("))");
        }
        TimedFormula::At(spec, body, _) => {
            out.push('(');
            out.push_str(spec.as_str());
            out.push(' ');
            formula(out, body);
            out.push(')');
        }
    }
}

fn timed_effect(out: &mut String, e: &TimedEffect) {
    match e {
        TimedEffect::And(parts, _) => {
            out.push_str("(and");
            for p in parts {
                out.push(' ');
                timed_effect(out, p);
            }
            out.push(')');
        }
        TimedEffect::Forall(vars, body, _) => {
            open(out, "forall", Some(vars));
            out.push(' ');
            timed_effect(out, body);
            out.push(')');
        }
        TimedEffect::When(cond, body, _) => {
            out.push_str("(when ");
            timed_formula(out, cond);
            out.push(' ');
            timed_effect(out, body);
            out.push(')');
        }
        TimedEffect::At(spec, body, _) => {
            out.push('(');
            out.push_str(spec.as_str());
            out.push(' ');
            effect(out, body);
            out.push(')');
        }
    }
}

fn predicate_decl(out: &mut String, p: &PredicateDecl) {
    out.push('(');
    out.push_str(&p.name.text);
    if !p.params.is_empty() {
        out.push(' ');
        typed_list(out, &p.params, true);
    }
    out.push(')');
}

fn requirement(out: &mut String, r: &RequirementDecl) {
    match r.requirement {
        Some(known) if r.name.text.is_empty() => out.push_str(known.as_str()),
        _ => out.push_str(&r.name.text),
    }
}

fn plan_step(out: &mut String, step: &PlanStep) {
    if let Some(t) = step.time {
        number(out, t);
        out.push_str(": ");
    }
    step.push_text(out);
    if let Some(d) = step.duration {
        out.push_str(" [");
        number(out, d);
        out.push(']');
    }
}

// ----- layout: blocks, indentation, breaking long formulas ----------------------------------

/// One output buffer and where its current line starts.
#[derive(Default)]
struct Writer {
    out: String,
    line_start: usize,
}

impl Writer {
    /// End the line and indent the next one by `indent` spaces.
    fn newline(&mut self, indent: usize) {
        self.out.push('\n');
        self.line_start = self.out.len();
        for _ in 0..indent {
            self.out.push(' ');
        }
    }

    /// An empty line, then a line indented by `indent`.
    fn blank_line(&mut self, indent: usize) {
        self.out.push('\n');
        self.newline(indent);
    }

    fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// The column the next character goes to.
    fn column(&self) -> usize {
        self.out
            .get(self.line_start..)
            .map_or(0, |line| line.chars().count())
    }

    /// Print `print` on the current line if the line then still fits in [`WIDTH`]; otherwise
    /// print nothing and return `false`.
    fn try_flat(&mut self, print: impl FnOnce(&mut String)) -> bool {
        let mark = self.out.len();
        print(&mut self.out);
        if self.column() <= WIDTH {
            true
        } else {
            self.out.truncate(mark);
            false
        }
    }

    /// Close a broken list: `)` on its own line at `indent`.
    fn close_block(&mut self, indent: usize) {
        self.newline(indent);
        self.out.push(')');
    }

    // ----- formulas and effects, broken when long ---------------------------------------

    /// A formula starting at the current position on a line indented by `indent`.
    fn formula(&mut self, f: &Formula, indent: usize) {
        let breakable = match f {
            Formula::And(parts, _) | Formula::Or(parts, _) => !parts.is_empty(),
            Formula::Not(..)
            | Formula::Imply(..)
            | Formula::Exists(..)
            | Formula::Forall(..)
            | Formula::Preference(..) => true,
            Formula::Atom(_) | Formula::Equals(..) | Formula::Compare(..) => false,
        };
        if !breakable {
            formula(&mut self.out, f);
            return;
        }
        if self.try_flat(|out| formula(out, f)) {
            return;
        }
        open_formula(&mut self.out, f);
        for_each_formula_child(f, |child| {
            self.newline(indent + 2);
            self.formula(child, indent + 2);
        });
        self.close_block(indent);
    }

    /// A constraint starting at the current position, broken one part per line when long.
    fn constraint(&mut self, c: &Constraint, indent: usize, form: ConstraintForm) {
        if let Some(f) = goal_body(c, form) {
            self.formula(f, indent);
            return;
        }
        if self.try_flat(|out| constraint(out, c, form)) {
            return;
        }
        constraint_head(&mut self.out, c, form);
        match c {
            Constraint::And(parts, _) => {
                for p in parts {
                    self.newline(indent + 2);
                    self.constraint(p, indent + 2, form);
                }
            }
            Constraint::Forall(_, body, _) | Constraint::Preference(_, body, _) => {
                self.newline(indent + 2);
                self.constraint(body, indent + 2, form);
            }
            Constraint::Modal(m, _) => {
                for f in m.conditions() {
                    self.newline(indent + 2);
                    self.formula(f, indent + 2);
                }
            }
        }
        self.close_block(indent);
    }

    fn constraints_section(&mut self, c: &Constraint) {
        self.newline(2);
        self.push("(:constraints ");
        self.constraint(c, 2, ConstraintForm::Section);
        self.out.push(')');
    }

    /// The goal with its preferences put back: `(and hard... (preference p φ)...)`.
    fn goal(&mut self, goal: &Formula, prefs: Option<&Constraint>) {
        let Some(prefs) = prefs else {
            self.formula(goal, 2);
            return;
        };
        let hard: &[Formula] = match goal {
            Formula::And(parts, _) => parts,
            other => std::slice::from_ref(other),
        };
        let soft: &[Constraint] = match prefs {
            Constraint::And(parts, _) => parts,
            other => std::slice::from_ref(other),
        };
        self.push("(and");
        for f in hard {
            self.newline(4);
            self.formula(f, 4);
        }
        for c in soft {
            self.newline(4);
            self.constraint(c, 4, ConstraintForm::Goal);
        }
        self.close_block(2);
    }

    fn effect(&mut self, e: &Effect, indent: usize) {
        let breakable = match e {
            Effect::And(parts, _) => !parts.is_empty(),
            Effect::Forall(..) | Effect::When(..) => true,
            Effect::Add(_) | Effect::Delete(..) | Effect::Numeric(..) => false,
        };
        if !breakable {
            effect(&mut self.out, e);
            return;
        }
        if self.try_flat(|out| effect(out, e)) {
            return;
        }
        let inner = indent + 2;
        match e {
            Effect::And(parts, _) => {
                self.push("(and");
                for p in parts {
                    self.newline(inner);
                    self.effect(p, inner);
                }
            }
            Effect::Forall(vars, body, _) => {
                open(&mut self.out, "forall", Some(vars));
                self.newline(inner);
                self.effect(body, inner);
            }
            Effect::When(cond, body, _) => {
                self.push("(when");
                self.newline(inner);
                self.formula(cond, inner);
                self.newline(inner);
                self.effect(body, inner);
            }
            Effect::Add(_) | Effect::Delete(..) | Effect::Numeric(..) => {}
        }
        self.close_block(indent);
    }

    fn timed_formula(&mut self, f: &TimedFormula, indent: usize) {
        if matches!(f, TimedFormula::And(parts, _) if parts.is_empty()) {
            timed_formula(&mut self.out, f);
            return;
        }
        if self.try_flat(|out| timed_formula(out, f)) {
            return;
        }
        let inner = indent + 2;
        match f {
            TimedFormula::And(parts, _) => {
                self.push("(and");
                for p in parts {
                    self.newline(inner);
                    self.timed_formula(p, inner);
                }
            }
            TimedFormula::Forall(vars, body, _) => {
                open(&mut self.out, "forall", Some(vars));
                self.newline(inner);
                self.timed_formula(body, inner);
            }
            TimedFormula::At(_, Formula::Preference(..), _) => {
                timed_formula(&mut self.out, f);
                return;
            }
            TimedFormula::At(spec, body, _) => {
                self.push("(");
                self.push(spec.as_str());
                self.newline(inner);
                self.formula(body, inner);
            }
        }
        self.close_block(indent);
    }

    fn timed_effect(&mut self, e: &TimedEffect, indent: usize) {
        if matches!(e, TimedEffect::And(parts, _) if parts.is_empty()) {
            timed_effect(&mut self.out, e);
            return;
        }
        if self.try_flat(|out| timed_effect(out, e)) {
            return;
        }
        let inner = indent + 2;
        match e {
            TimedEffect::And(parts, _) => {
                self.push("(and");
                for p in parts {
                    self.newline(inner);
                    self.timed_effect(p, inner);
                }
            }
            TimedEffect::Forall(vars, body, _) => {
                open(&mut self.out, "forall", Some(vars));
                self.newline(inner);
                self.timed_effect(body, inner);
            }
            TimedEffect::When(cond, body, _) => {
                self.push("(when");
                self.newline(inner);
                self.timed_formula(cond, inner);
                self.newline(inner);
                self.timed_effect(body, inner);
            }
            TimedEffect::At(spec, body, _) => {
                self.push("(");
                self.push(spec.as_str());
                self.newline(inner);
                self.effect(body, inner);
            }
        }
        self.close_block(indent);
    }

    // ----- sections ---------------------------------------------------------------------

    /// `(:requirements ...)` on one line, if any.
    fn requirements(&mut self, reqs: &[RequirementDecl]) {
        if reqs.is_empty() {
            return;
        }
        self.newline(2);
        self.push("(:requirements");
        for r in reqs {
            self.out.push(' ');
            requirement(&mut self.out, r);
        }
        self.out.push(')');
    }

    /// `:types`, `:constants` or `:objects`: on one line when the list is one short group
    /// (`(:types thing)`), else one group per line, wrapped when a group is long.
    fn typed_section(&mut self, keyword: &str, list: &[Typed]) {
        if list.is_empty() {
            return;
        }
        self.newline(2);
        let mut groups = 0;
        for_each_group(list, |_, _| groups += 1);
        if groups == 1
            && self.try_flat(|out| {
                out.push('(');
                out.push_str(keyword);
                out.push(' ');
                typed_list(out, list, false);
                out.push(')');
            })
        {
            return;
        }
        self.push("(");
        self.push(keyword);
        for_each_group(list, |group, group_ty| {
            self.newline(4);
            for (i, t) in group.iter().enumerate() {
                if i > 0 {
                    if self.column() + 1 + t.name.text.chars().count() > WIDTH {
                        self.newline(4);
                    } else {
                        self.out.push(' ');
                    }
                }
                typed_name(&mut self.out, t, false);
            }
            if let Some(group_ty) = group_ty {
                self.push(" - ");
                group_ty.write(&mut self.out);
            }
        });
        self.close_block(2);
    }

    fn predicates(&mut self, preds: &[PredicateDecl]) {
        if preds.is_empty() {
            return;
        }
        self.newline(2);
        self.push("(:predicates");
        for p in preds {
            self.newline(4);
            predicate_decl(&mut self.out, p);
        }
        self.close_block(2);
    }

    /// `:functions`, one per line, each with its own `- type` (an untyped one before a typed
    /// one gets `- number`: see the module docs).
    fn functions(&mut self, funcs: &[FunctionDecl]) {
        if funcs.is_empty() {
            return;
        }
        let last_typed = funcs
            .iter()
            .rposition(|f| !matches!(f.ty, FunctionType::Unspecified));
        self.newline(2);
        self.push("(:functions");
        for (i, f) in funcs.iter().enumerate() {
            self.newline(4);
            self.out.push('(');
            self.push(&f.name.text);
            if !f.params.is_empty() {
                self.out.push(' ');
                typed_list(&mut self.out, &f.params, true);
            }
            self.out.push(')');
            match &f.ty {
                FunctionType::Unspecified if last_typed.is_some_and(|last| i < last) => {
                    self.push(" - number");
                }
                FunctionType::Unspecified => {}
                FunctionType::Number(_) => self.push(" - number"),
                FunctionType::Integer(_) => self.push(" - integer"),
                FunctionType::Object(t) => {
                    self.push(" - ");
                    ty(&mut self.out, t);
                }
            }
        }
        self.close_block(2);
    }

    fn parameters(&mut self, params: &[Typed]) {
        self.newline(4);
        self.push(":parameters (");
        typed_list(&mut self.out, params, true);
        self.out.push(')');
    }

    fn action(&mut self, a: &Action) {
        self.blank_line(2);
        self.push("(:action ");
        self.push(&a.name.text);
        self.parameters(&a.params);
        if let Some(pre) = &a.precondition {
            self.newline(4);
            self.push(":precondition ");
            self.formula(pre, 4);
        }
        if let Some(eff) = &a.effect {
            self.newline(4);
            self.push(":effect ");
            self.effect(eff, 4);
        }
        self.close_block(2);
    }

    fn derived(&mut self, d: &Derived) {
        self.blank_line(2);
        self.push("(:derived ");
        predicate_decl(&mut self.out, &d.head);
        self.newline(4);
        self.formula(&d.body, 4);
        self.close_block(2);
    }

    fn durative_action(&mut self, a: &DurativeAction) {
        self.blank_line(2);
        self.push("(:durative-action ");
        self.push(&a.name.text);
        self.parameters(&a.params);
        if let Some(duration) = &a.duration {
            self.newline(4);
            self.push(":duration ");
            self.formula(duration, 4);
        }
        if let Some(cond) = &a.condition {
            self.newline(4);
            self.push(":condition ");
            self.timed_formula(cond, 4);
        }
        if let Some(eff) = &a.effect {
            self.newline(4);
            self.push(":effect ");
            self.timed_effect(eff, 4);
        }
        self.close_block(2);
    }

    fn domain(&mut self, d: &Domain) {
        self.push("(define (domain ");
        self.push(&d.name.text);
        self.push(")");
        self.requirements(&d.requirements);
        self.typed_section(":types", &d.types);
        self.typed_section(":constants", &d.constants);
        self.predicates(&d.predicates);
        self.functions(&d.functions);
        for x in &d.derived {
            self.derived(x);
        }
        for a in &d.actions {
            self.action(a);
        }
        for a in &d.durative_actions {
            self.durative_action(a);
        }
        if let Some(c) = &d.constraints {
            self.newline(0);
            self.constraints_section(c);
        }
        self.newline(0);
        self.push(")\n");
    }

    fn init_entry(&mut self, e: &InitEntry) {
        match e {
            InitEntry::Atom(a) => atom(&mut self.out, a),
            InitEntry::Not(a, _) => {
                self.push("(not ");
                atom(&mut self.out, a);
                self.out.push(')');
            }
            InitEntry::Assign(f, v, _) => {
                self.push("(= ");
                fluent(&mut self.out, f);
                self.out.push(' ');
                number(&mut self.out, *v);
                self.out.push(')');
            }
        }
    }

    fn metric(&mut self, m: &Metric) {
        self.newline(2);
        self.push(match m.optimization {
            Optimization::Minimize => "(:metric minimize ",
            Optimization::Maximize => "(:metric maximize ",
        });
        expr(&mut self.out, &m.expr);
        self.out.push(')');
    }

    fn problem(&mut self, p: &Problem) {
        self.push("(define (problem ");
        self.push(&p.name.text);
        self.push(")");
        self.newline(2);
        self.push("(:domain ");
        self.push(&p.domain.text);
        self.push(")");
        self.requirements(&p.requirements);
        self.typed_section(":objects", &p.objects);
        self.newline(2);
        if p.init.is_empty() {
            self.push("(:init)");
        } else {
            self.push("(:init");
            for e in &p.init {
                self.newline(4);
                self.init_entry(e);
            }
            self.close_block(2);
        }
        if let Some(goal) = &p.goal {
            self.newline(2);
            self.push("(:goal ");
            self.goal(goal, p.goal_preferences.as_ref());
            self.out.push(')');
        }
        if let Some(c) = &p.constraints {
            self.constraints_section(c);
        }
        if let Some(m) = &p.metric {
            self.metric(m);
        }
        self.newline(0);
        self.push(")\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::EraseSpans;
    use crate::span::Span;
    use crate::{Name, parse_domain};

    fn name(s: &str) -> Name {
        Name::new(s, Span::default())
    }

    fn typed(n: &str, t: Option<&str>) -> Typed {
        Typed {
            name: name(n),
            ty: t.map(|t| Type::Named(name(t))),
        }
    }

    #[test]
    fn typed_lists_group_runs_and_type_stray_entries_as_object() {
        let mut out = String::new();
        typed_list(
            &mut out,
            &[
                typed("x", Some("t")),
                typed("y", Some("t")),
                typed("z", None),
                typed("w", Some("u")),
                typed("v", None),
            ],
            true,
        );
        assert_eq!(out, "?x ?y - t ?z - object ?w - u ?v");
    }

    #[test]
    fn numbers_print_shortest_and_integral_without_point() {
        let mut out = String::new();
        for v in [3.0, -0.5, 0.1, 1e21, 2.5e-7] {
            number(&mut out, v);
            out.push(' ');
        }
        assert_eq!(out, "3 -0.5 0.1 1000000000000000000000 0.00000025 ");
    }

    #[test]
    fn stray_untyped_function_is_written_as_number() {
        let src = "(define (domain d) (:functions (f) (g) - number (h)))";
        let mut d = parse_domain(src).value.unwrap_or_else(|| panic!("parses"));
        d.functions[0].ty = FunctionType::Unspecified;
        let text = write_domain(&d);
        assert!(
            text.contains("(f) - number\n    (g) - number\n    (h)\n"),
            "{text}"
        );
        let mut back = parse_domain(&text)
            .value
            .unwrap_or_else(|| panic!("parses"));
        back.erase_spans();
        assert!(matches!(back.functions[0].ty, FunctionType::Number(_)));
    }
}
