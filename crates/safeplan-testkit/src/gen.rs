//! Random small PDDL tasks and plans, as text, for property tests.
//!
//! [`task`] is a proptest strategy for `(domain, problem, plans)`: a domain with 1–3 types
//! (sometimes untyped, sometimes `either`), 2–5 objects and sometimes a domain constant, 2–4
//! predicates of arity 0–2, 0–2 numeric functions of arity 0–1, and 2–4 actions with 0–2 typed
//! parameters whose preconditions use atoms, negation, equality, `or`, `imply`, `exists`,
//! `forall` and numeric comparisons, and whose effects use adds, deletes (also of an atom the
//! same action adds), `when`, `forall`, `increase`, `decrease` and `assign`. The problem has a
//! random initial state (some fluents left undefined), a goal and sometimes a metric; names are
//! sometimes written in upper case. Everything parses and checks without errors.
//!
//! Plans mix three sources so that a good share is valid or fails late: walks that only take
//! applicable steps (found by running the reference interpreter), with the goal often chosen
//! from the state one walk reaches; prefixes of that walk; and random steps. Steps are
//! sometimes corrupted: an argument of the wrong type, an unknown object, an unknown action, a
//! wrong number of arguments, or the step in upper case.
//!
//! The strategy draws from a vector of random numbers (choice 0 is always the simplest
//! option), so proptest's shrinking of the vector shrinks the task.

use std::collections::BTreeSet;

use proptest::collection::vec;
use proptest::prelude::*;
use safeplan_pddl::ast::{Domain, Name, Plan, PlanStep, Problem};
#[cfg(test)]
use safeplan_pddl::{CheckOptions, Severity, check_domain, check_problem, parse_plan};
use safeplan_pddl::{Span, parse_domain, parse_problem};

use crate::reference;

/// A generated task: domain text, problem text, plan texts.
pub type GenTask = (String, String, Vec<String>);

/// The most random numbers one task draws (a task needs a few hundred; shorter vectors are
/// padded with zeros, the simplest choices).
const MAX_CHOICES: usize = 2048;

/// Random small tasks with plans; see the module docs.
pub fn task() -> impl Strategy<Value = GenTask> {
    vec(any::<u32>(), 0..=MAX_CHOICES).prop_map(|choices| build(&choices))
}

/// The task that `choices` describe (deterministic).
pub fn build(choices: &[u32]) -> GenTask {
    let mut g = Gen {
        c: Choices {
            data: choices,
            pos: 0,
        },
        sig: Sig::default(),
        vars: 0,
    };
    g.signature();
    let domain_text = g.domain_text();
    let objects = g.objects_text();
    let init = g.init_text();
    let sim_problem = problem_text(&objects, &init, "(and)", None);
    let domain = parse_domain(&domain_text)
        .value
        .expect("generated domains parse");
    let problem = parse_problem(&sim_problem)
        .value
        .expect("generated problems parse");

    let walk_a = g.walk(&domain, &problem);
    let goal = if g.c.chance(55) {
        g.goal_from(&domain, &problem, &walk_a)
    } else {
        g.random_goal()
    };
    let metric = g.metric();

    let mut plans = Vec::new();
    let mut first = walk_a.clone();
    match g.c.below(5) {
        0..=2 => {}
        3 => first.push(g.random_step()),
        _ => g.corrupt_one(&mut first),
    }
    plans.push(plan_text(&first));
    if !walk_a.is_empty() && g.c.chance(60) {
        let cut = g.c.below(walk_a.len());
        plans.push(plan_text(&walk_a[..cut]));
    }
    let mut walk_b = g.walk(&domain, &problem);
    if g.c.chance(30) {
        g.corrupt_one(&mut walk_b);
    }
    plans.push(plan_text(&walk_b));
    let random = g.random_plan();
    plans.push(plan_text(&random));

    (
        domain_text,
        problem_text(&objects, &init, &goal, metric.as_deref()),
        plans,
    )
}

// ===== choices ===========================================================================

/// The random numbers a task is built from; 0 once they run out.
struct Choices<'a> {
    data: &'a [u32],
    pos: usize,
}

impl Choices<'_> {
    fn next(&mut self) -> u32 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }

    /// A number in `0..n` (0 when `n <= 1`, without drawing).
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 { 0 } else { self.next() as usize % n }
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with `percent` chance; choice 0 is false.
    fn chance(&mut self, percent: u32) -> bool {
        self.next() % 100 >= 100 - percent
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }
}

// ===== the signature =====================================================================

/// A type expression: type ids (0 is `object`); two or more make an `either`.
type Ty = Vec<usize>;

#[derive(Default)]
struct Sig {
    typed: bool,
    /// Name and parent id of each type; id 0 is `object`.
    types: Vec<(String, usize)>,
    /// Problem objects with their type id.
    objects: Vec<(String, usize)>,
    /// Domain constants with their type id.
    constants: Vec<(String, usize)>,
    predicates: Vec<(String, Vec<Ty>)>,
    functions: Vec<(String, Vec<Ty>)>,
    /// Action names and parameter types.
    actions: Vec<(String, Vec<Ty>)>,
    /// Action bodies: precondition and effect text.
    bodies: Vec<(Option<String>, String)>,
}

impl Sig {
    fn is_subtype(&self, sub: usize, sup: usize) -> bool {
        let mut t = sub;
        loop {
            if t == sup || sup == 0 {
                return true;
            }
            if t == 0 {
                return false;
            }
            t = self.types[t].1;
        }
    }

    /// Whether an object of type `t` may be an argument for `param` (checker: "fits").
    fn fits(&self, t: usize, param: &Ty) -> bool {
        param.iter().any(|&p| self.is_subtype(t, p))
    }

    /// Whether a variable of type `a` may stand where `b` is declared (checker: "overlaps").
    fn overlaps(&self, a: &Ty, b: &Ty) -> bool {
        a.iter().any(|&x| {
            b.iter()
                .any(|&y| self.is_subtype(x, y) || self.is_subtype(y, x))
        })
    }

    /// Problem objects and domain constants.
    fn all_objects(&self) -> Vec<(String, usize)> {
        self.objects
            .iter()
            .chain(&self.constants)
            .cloned()
            .collect()
    }

    /// The objects (and constants) that fit `param`.
    fn fitting(&self, param: &Ty) -> Vec<String> {
        self.all_objects()
            .into_iter()
            .filter(|(_, t)| self.fits(*t, param))
            .map(|(o, _)| o)
            .collect()
    }

    /// Every ground atom of every predicate whose arguments fit.
    fn ground_atoms(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for (p, params) in &self.predicates {
            for args in self.groundings(params) {
                out.push((p.clone(), args));
            }
        }
        out
    }

    fn groundings(&self, params: &[Ty]) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new()];
        for param in params {
            let objects = self.fitting(param);
            out = out
                .into_iter()
                .flat_map(|prefix| {
                    objects.iter().map(move |o| {
                        let mut v = prefix.clone();
                        v.push(o.clone());
                        v
                    })
                })
                .collect();
        }
        out
    }
}

/// A term that formulas may use in some place.
#[derive(Clone)]
struct TermRef {
    text: String,
    ty: Ty,
    /// An object or constant (else a variable).
    ground: bool,
}

/// Terms in scope, and whether the place is the goal (ground arguments must then fit).
#[derive(Clone)]
struct Scope {
    terms: Vec<TermRef>,
    goal: bool,
}

/// One plan step: name and arguments as they will be written.
#[derive(Clone, Debug)]
struct Step {
    name: String,
    args: Vec<String>,
}

struct Gen<'c> {
    c: Choices<'c>,
    sig: Sig,
    /// Counter for fresh quantified variable names.
    vars: usize,
}

const NUMBERS: &[&str] = &["0", "1", "2", "3", "5", "0.5"];
const INIT_VALUES: &[f64] = &[0.0, 1.0, 2.0, 3.0, 4.0, 0.5, 1.00005, 0.99995, 10.0];

impl Gen<'_> {
    /// Types, objects, constants, predicates, functions, actions (with their bodies).
    fn signature(&mut self) {
        let typed = !self.c.chance(25);
        self.sig.typed = typed;
        self.sig.types.push(("object".into(), 0));
        if typed {
            let n = self.c.range(1, 3);
            for i in 1..=n {
                let parent = if i > 1 && self.c.chance(40) {
                    self.c.range(1, i - 1)
                } else {
                    0
                };
                let name = format!("t{}", char::from(b'a' + i as u8 - 1));
                self.sig.types.push((name, parent));
            }
        }
        let n_types = self.sig.types.len();
        let n_objects = self.c.range(2, 5);
        for i in 1..=n_objects {
            let t = if typed && !self.c.chance(10) {
                self.c.range(1, n_types - 1)
            } else {
                0
            };
            self.sig.objects.push((format!("o{i}"), t));
        }
        if self.c.chance(30) {
            let t = if typed { self.c.below(n_types) } else { 0 };
            self.sig.constants.push(("k1".into(), t));
        }
        let n_predicates = self.c.range(2, 4);
        for i in 0..n_predicates {
            let arity = [1, 2, 0, 1, 2][self.c.below(5)];
            let params = (0..arity).map(|_| self.ty()).collect();
            self.sig.predicates.push((format!("p{i}"), params));
        }
        let n_functions = [0, 1, 2, 1][self.c.below(4)];
        for i in 0..n_functions {
            let arity = self.c.below(2);
            let params = (0..arity).map(|_| self.ty()).collect();
            self.sig.functions.push((format!("f{i}"), params));
        }
        let n_actions = self.c.range(2, 4);
        for i in 0..n_actions {
            let arity = [1, 2, 0][self.c.below(3)];
            let params: Vec<Ty> = (0..arity).map(|_| self.ty()).collect();
            self.sig.actions.push((format!("a{i}"), params));
        }
        for i in 0..n_actions {
            let params = self.sig.actions[i].1.clone();
            let mut scope = Scope {
                terms: params
                    .iter()
                    .enumerate()
                    .map(|(k, ty)| TermRef {
                        text: format!("?x{k}"),
                        ty: ty.clone(),
                        ground: false,
                    })
                    .chain(self.constant_terms())
                    .collect(),
                goal: false,
            };
            let precondition = match self.c.below(6) {
                0 | 1 => Some(self.formula(&mut scope, 2)),
                2 | 3 => {
                    let n = self.c.range(0, 3);
                    let parts: Vec<String> = (0..n).map(|_| self.formula(&mut scope, 2)).collect();
                    Some(format!("(and {})", parts.join(" ")))
                }
                4 => Some("(and)".into()),
                _ => None,
            };
            let effects = self.effects(&mut scope, 2, false);
            let effect = format!("(and {})", effects.join(" "));
            self.sig.bodies.push((precondition, effect));
        }
    }

    fn constant_terms(&self) -> Vec<TermRef> {
        self.sig
            .constants
            .iter()
            .map(|(k, t)| TermRef {
                text: k.clone(),
                ty: vec![*t],
                ground: true,
            })
            .collect()
    }

    /// A random type expression (`object` in untyped domains).
    fn ty(&mut self) -> Ty {
        let n = self.sig.types.len();
        if !self.sig.typed {
            return vec![0];
        }
        match self.c.below(10) {
            1 if n >= 3 => {
                let a = self.c.range(1, n - 1);
                let b = 1 + (a % (n - 1));
                vec![a, b]
            }
            2 => vec![0],
            _ => vec![self.c.range(1, n - 1)],
        }
    }

    /// Sometimes upper-case a name (PDDL is case-insensitive).
    fn spell(&mut self, name: &str) -> String {
        if self.c.chance(4) {
            name.to_ascii_uppercase()
        } else {
            name.to_string()
        }
    }

    /// ` - t`, ` - (either a b)`, or nothing in untyped domains.
    fn ty_text(&mut self, ty: &Ty) -> String {
        if !self.sig.typed {
            return String::new();
        }
        let names: Vec<String> = ty
            .iter()
            .map(|&t| {
                let name = self.sig.types[t].0.clone();
                self.spell(&name)
            })
            .collect();
        if names.len() == 1 {
            format!(" - {}", names[0])
        } else {
            format!(" - (either {})", names.join(" "))
        }
    }

    fn params_text(&mut self, prefix: &str, params: &[Ty]) -> String {
        let mut out = Vec::new();
        for (k, ty) in params.iter().enumerate() {
            let name = self.spell(&format!("{prefix}{k}"));
            let ty = self.ty_text(ty);
            out.push(format!("?{name}{ty}"));
        }
        out.join(" ")
    }

    fn domain_text(&mut self) -> String {
        let mut s = String::from("(define (domain gen)\n");
        s.push_str(if self.sig.typed {
            "  (:requirements :adl :typing :fluents)\n"
        } else {
            "  (:requirements :adl :fluents)\n"
        });
        if self.sig.typed {
            let mut parts = Vec::new();
            for i in 1..self.sig.types.len() {
                let (name, parent) = self.sig.types[i].clone();
                let parent = self.sig.types[parent].0.clone();
                let (name, parent) = (self.spell(&name), self.spell(&parent));
                parts.push(format!("{name} - {parent}"));
            }
            s.push_str(&format!("  (:types {})\n", parts.join(" ")));
        }
        if !self.sig.constants.is_empty() {
            let mut parts = Vec::new();
            for (k, t) in self.sig.constants.clone() {
                let name = self.spell(&k);
                let ty = self.ty_text(&vec![t]);
                parts.push(format!("{name}{ty}"));
            }
            s.push_str(&format!("  (:constants {})\n", parts.join(" ")));
        }
        let mut parts = Vec::new();
        for (p, params) in self.sig.predicates.clone() {
            let name = self.spell(&p);
            let params = self.params_text("a", &params);
            parts.push(format!("({name} {params})").replace(" )", ")"));
        }
        s.push_str(&format!("  (:predicates {})\n", parts.join(" ")));
        if !self.sig.functions.is_empty() {
            let mut parts = Vec::new();
            for (f, params) in self.sig.functions.clone() {
                let name = self.spell(&f);
                let params = self.params_text("a", &params);
                parts.push(format!("({name} {params})").replace(" )", ")"));
            }
            s.push_str(&format!("  (:functions {})\n", parts.join(" ")));
        }
        for i in 0..self.sig.actions.len() {
            let (name, params) = self.sig.actions[i].clone();
            let name = self.spell(&name);
            let params = self.params_text("x", &params);
            s.push_str(&format!("  (:action {name}\n    :parameters ({params})\n"));
            let (pre, eff) = self.sig.bodies[i].clone();
            if let Some(pre) = pre {
                s.push_str(&format!("    :precondition {pre}\n"));
            }
            s.push_str(&format!("    :effect {eff})\n"));
        }
        s.push_str(")\n");
        s
    }

    fn objects_text(&mut self) -> String {
        let mut parts = Vec::new();
        for (o, t) in self.sig.objects.clone() {
            let name = self.spell(&o);
            let ty = self.ty_text(&vec![t]);
            parts.push(format!("{name}{ty}"));
        }
        parts.join(" ")
    }

    fn init_text(&mut self) -> String {
        let mut parts = Vec::new();
        for (p, args) in self.sig.ground_atoms() {
            if self.c.chance(35) {
                let atom = self.show(&p, &args);
                parts.push(atom);
            }
        }
        for (f, params) in self.sig.functions.clone() {
            for args in self.sig.groundings(&params) {
                if !self.c.chance(15) {
                    let value = *self.c.pick(INIT_VALUES);
                    let fluent = self.show(&f, &args);
                    parts.push(format!("(= {fluent} {value})"));
                }
            }
        }
        parts.join(" ")
    }

    /// `(name a b)` with names sometimes upper-cased.
    fn show(&mut self, name: &str, args: &[String]) -> String {
        let mut s = format!("({}", self.spell(name));
        for a in args {
            s.push(' ');
            s.push_str(&self.spell(a));
        }
        s.push(')');
        s
    }

    // ----- formulas -------------------------------------------------------------------------

    /// Whether `term` may stand for a parameter of type `param` in `scope`.
    fn compatible(&self, term: &TermRef, param: &Ty, scope: &Scope) -> bool {
        if scope.goal && term.ground {
            self.sig.fits(term.ty[0], param)
        } else {
            self.sig.overlaps(&term.ty, param)
        }
    }

    /// `(name args)` for a random predicate (or function) whose parameters the scope can fill.
    fn application(&mut self, table: &[(String, Vec<Ty>)], scope: &Scope) -> Option<String> {
        let usable: Vec<&(String, Vec<Ty>)> = table
            .iter()
            .filter(|(_, params)| {
                params
                    .iter()
                    .all(|p| scope.terms.iter().any(|t| self.compatible(t, p, scope)))
            })
            .collect();
        if usable.is_empty() {
            return None;
        }
        let (name, params) = (*self.c.pick(&usable)).clone();
        let mut args = Vec::new();
        for p in &params {
            let candidates: Vec<String> = scope
                .terms
                .iter()
                .filter(|t| self.compatible(t, p, scope))
                .map(|t| t.text.clone())
                .collect();
            args.push(self.c.pick(&candidates).clone());
        }
        Some(self.show(&name, &args))
    }

    fn atom(&mut self, scope: &Scope) -> String {
        let predicates = self.sig.predicates.clone();
        self.application(&predicates, scope)
            .unwrap_or_else(|| "(and)".into())
    }

    fn formula(&mut self, scope: &mut Scope, depth: u32) -> String {
        let k = self.c.below(100);
        match k {
            35..=49 => format!("(not {})", self.atom(scope)),
            50..=59 if !scope.terms.is_empty() => {
                let a = self.c.pick(&scope.terms).text.clone();
                let b = self.c.pick(&scope.terms).text.clone();
                if k < 55 {
                    format!("(= {a} {b})")
                } else {
                    format!("(not (= {a} {b}))")
                }
            }
            60..=75 if depth > 0 => {
                let n = self.c.range(1, 3);
                let parts: Vec<String> = (0..n).map(|_| self.formula(scope, depth - 1)).collect();
                let op = if k < 68 { "and" } else { "or" };
                format!("({op} {})", parts.join(" "))
            }
            76..=79 if depth > 0 => {
                let a = self.formula(scope, depth - 1);
                let b = self.formula(scope, depth - 1);
                format!("(imply {a} {b})")
            }
            80..=89 if depth > 0 => {
                let ty = self.ty();
                let var = format!("?q{}", self.vars);
                self.vars += 1;
                scope.terms.push(TermRef {
                    text: var.clone(),
                    ty: ty.clone(),
                    ground: false,
                });
                let body = self.formula(scope, depth - 1);
                scope.terms.pop();
                let ty = self.ty_text(&ty);
                let q = if k < 85 { "exists" } else { "forall" };
                format!("({q} ({var}{ty}) {body})")
            }
            90..=99 if !self.sig.functions.is_empty() => {
                let op = *self.c.pick(&["<", "<=", "=", ">=", ">"]);
                let a = self.expr(scope, 1);
                let b = self.expr(scope, 1);
                format!("({op} {a} {b})")
            }
            _ => self.atom(scope),
        }
    }

    fn fluent(&mut self, scope: &Scope) -> Option<String> {
        let functions = self.sig.functions.clone();
        self.application(&functions, scope)
    }

    fn expr(&mut self, scope: &Scope, depth: u32) -> String {
        let k = self.c.below(100);
        match k {
            40..=79 => self
                .fluent(scope)
                .unwrap_or_else(|| self.c.pick(NUMBERS).to_string()),
            80..=99 if depth > 0 => {
                let a = self.expr(scope, depth - 1);
                match self.c.below(9) {
                    0 => format!("(- {a})"),
                    1 => format!("(/ {a} {})", self.expr(scope, depth - 1)),
                    2 => format!(
                        "(+ {a} {} {})",
                        self.expr(scope, depth - 1),
                        self.expr(scope, depth - 1)
                    ),
                    3 | 4 => format!("(- {a} {})", self.expr(scope, depth - 1)),
                    5 | 6 => format!("(* {a} {})", self.expr(scope, depth - 1)),
                    _ => format!("(+ {a} {})", self.expr(scope, depth - 1)),
                }
            }
            _ => self.c.pick(NUMBERS).to_string(),
        }
    }

    // ----- effects --------------------------------------------------------------------------

    /// An add effect, if some predicate can be applied in the scope.
    fn add(&mut self, scope: &Scope) -> Option<String> {
        let predicates = self.sig.predicates.clone();
        self.application(&predicates, scope)
    }

    fn effects(&mut self, scope: &mut Scope, depth: u32, in_when: bool) -> Vec<String> {
        let n = self.c.range(1, 4);
        let mut out = Vec::new();
        for _ in 0..n {
            let k = self.c.below(100);
            match k {
                30..=54 => {
                    let predicates = self.sig.predicates.clone();
                    if let Some(atom) = self.application(&predicates, scope) {
                        out.push(format!("(not {atom})"));
                    }
                }
                55..=59 => {
                    let predicates = self.sig.predicates.clone();
                    if let Some(atom) = self.application(&predicates, scope) {
                        out.push(format!("(not {atom})"));
                        out.push(atom);
                    }
                }
                60..=71 if depth > 0 && !in_when => {
                    let condition = self.formula(scope, 1);
                    let body = self.effects(scope, 0, true);
                    out.push(format!("(when {condition} (and {}))", body.join(" ")));
                }
                72..=79 if depth > 0 => {
                    let ty = self.ty();
                    let var = format!("?e{}", self.vars);
                    self.vars += 1;
                    scope.terms.push(TermRef {
                        text: var.clone(),
                        ty: ty.clone(),
                        ground: false,
                    });
                    let body = self.effects(scope, depth - 1, in_when);
                    scope.terms.pop();
                    let ty = self.ty_text(&ty);
                    out.push(format!("(forall ({var}{ty}) (and {}))", body.join(" ")));
                }
                80..=99 => match self.fluent(scope) {
                    Some(target) => {
                        let op = *self
                            .c
                            .pick(&["increase", "increase", "decrease", "assign", "assign"]);
                        let value = self.expr(scope, 1);
                        out.push(format!("({op} {target} {value})"));
                    }
                    None => out.extend(self.add(scope)),
                },
                _ => out.extend(self.add(scope)),
            }
        }
        out
    }

    // ----- goals and metrics ----------------------------------------------------------------

    fn goal_scope(&self) -> Scope {
        Scope {
            terms: self
                .sig
                .all_objects()
                .into_iter()
                .map(|(o, t)| TermRef {
                    text: o,
                    ty: vec![t],
                    ground: true,
                })
                .collect(),
            goal: true,
        }
    }

    fn random_goal(&mut self) -> String {
        let mut scope = self.goal_scope();
        let n = self.c.range(1, 3);
        let parts: Vec<String> = (0..n).map(|_| self.formula(&mut scope, 1)).collect();
        format!("(and {})", parts.join(" "))
    }

    /// A goal that the end state of `walk` satisfies: some of its atoms, some atoms it lacks,
    /// some of its fluent values; sometimes one random formula more.
    fn goal_from(&mut self, domain: &Domain, problem: &Problem, walk: &[Step]) -> String {
        let outcome = reference::run(domain, problem, &to_plan(walk));
        let reached: BTreeSet<String> = outcome.atoms.iter().cloned().collect();
        let all: Vec<(String, Vec<String>)> = self.sig.ground_atoms();
        let true_atoms: Vec<&(String, Vec<String>)> = all
            .iter()
            .filter(|(p, a)| reached.contains(&plain(p, a)))
            .collect();
        let false_atoms: Vec<&(String, Vec<String>)> = all
            .iter()
            .filter(|(p, a)| !reached.contains(&plain(p, a)))
            .collect();
        let fluents: Vec<(String, f64)> = outcome
            .fluents
            .iter()
            .filter(|(name, _)| self.ground_fluent_fits(name))
            .cloned()
            .collect();
        let mut parts = Vec::new();
        for _ in 0..self.c.range(1, 3) {
            match self.c.below(10) {
                0..=4 if !true_atoms.is_empty() => {
                    let (p, a) = (*self.c.pick(&true_atoms)).clone();
                    parts.push(self.show(&p, &a));
                }
                5..=7 if !false_atoms.is_empty() => {
                    let (p, a) = (*self.c.pick(&false_atoms)).clone();
                    let atom = self.show(&p, &a);
                    parts.push(format!("(not {atom})"));
                }
                8 | 9 if !fluents.is_empty() => {
                    let (f, v) = self.c.pick(&fluents).clone();
                    let op = *self.c.pick(&["=", ">=", "<="]);
                    parts.push(format!("({op} {f} {})", number(v)));
                }
                _ => {}
            }
        }
        if self.c.chance(25) {
            let mut scope = self.goal_scope();
            parts.push(self.formula(&mut scope, 1));
        }
        format!("(and {})", parts.join(" "))
    }

    /// Whether a fluent `(f a)` of the reported state may be written in a goal.
    fn ground_fluent_fits(&self, shown: &str) -> bool {
        let words: Vec<&str> = shown
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split(' ')
            .collect();
        let Some((name, args)) = words.split_first() else {
            return false;
        };
        let Some((_, params)) = self.sig.functions.iter().find(|(f, _)| f == name) else {
            return false;
        };
        let objects = self.sig.all_objects();
        args.iter()
            .zip(params)
            .all(|(a, p)| objects.iter().any(|(o, t)| o == a && self.sig.fits(*t, p)))
    }

    fn metric(&mut self) -> Option<String> {
        if !self.c.chance(35) {
            return None;
        }
        let scope = self.goal_scope();
        let fluent = self.fluent(&scope);
        let expr = match (self.c.below(3), fluent) {
            (1, Some(f)) => f,
            (2, Some(f)) => format!("(+ (total-time) (* 2 {f}))"),
            _ => "(total-time)".into(),
        };
        let direction = *self.c.pick(&["minimize", "maximize"]);
        Some(format!("{direction} {expr}"))
    }

    // ----- plans ----------------------------------------------------------------------------

    /// Every well-typed ground step of the domain.
    fn well_typed_steps(&self) -> Vec<Step> {
        let mut out = Vec::new();
        for (name, params) in &self.sig.actions {
            for args in self.sig.groundings(params) {
                out.push(Step {
                    name: name.clone(),
                    args,
                });
            }
        }
        out
    }

    /// Up to 8 steps, each applicable where it is taken (with an empty goal, a plan is valid
    /// exactly when every step applies).
    fn walk(&mut self, domain: &Domain, problem: &Problem) -> Vec<Step> {
        let candidates = self.well_typed_steps();
        let length = self.c.range(0, 8);
        let mut steps: Vec<Step> = Vec::new();
        for _ in 0..length {
            if candidates.is_empty() {
                break;
            }
            let start = self.c.below(candidates.len());
            let mut found = None;
            for k in 0..candidates.len() {
                let candidate = &candidates[(start + k) % candidates.len()];
                steps.push(candidate.clone());
                let applicable = reference::run(domain, problem, &to_plan(&steps)).valid;
                steps.pop();
                if applicable {
                    found = Some(candidate.clone());
                    break;
                }
            }
            match found {
                Some(step) => steps.push(step),
                None => break,
            }
        }
        for step in &mut steps {
            if self.c.chance(8) {
                *step = upper(step);
            }
        }
        steps
    }

    /// A step of a random action with random objects, mostly of fitting types.
    fn random_step(&mut self) -> Step {
        let (name, params) = self.c.pick(&self.sig.actions).clone();
        let objects = self.sig.all_objects();
        let mut args = Vec::new();
        for p in &params {
            let fitting = self.sig.fitting(p);
            if !fitting.is_empty() && !self.c.chance(10) {
                args.push(self.c.pick(&fitting).clone());
            } else {
                args.push(self.c.pick(&objects).0.clone());
            }
        }
        Step { name, args }
    }

    fn random_plan(&mut self) -> Vec<Step> {
        let length = self.c.range(0, 8);
        let mut steps = Vec::new();
        for _ in 0..length {
            let mut step = self.random_step();
            if self.c.chance(12) {
                step = self.corrupt(step);
            }
            if self.c.chance(8) {
                step = upper(&step);
            }
            steps.push(step);
        }
        steps
    }

    fn corrupt_one(&mut self, steps: &mut [Step]) {
        if steps.is_empty() {
            return;
        }
        let i = self.c.below(steps.len());
        steps[i] = self.corrupt(steps[i].clone());
    }

    /// Make a step wrong in one of the ways plans go wrong (or just upper-case it).
    fn corrupt(&mut self, mut step: Step) -> Step {
        let params = self
            .sig
            .actions
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&step.name))
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
        match self.c.below(5) {
            0 if !step.args.is_empty() => {
                // An argument of a type that does not fit (when there is one).
                let i = self.c.below(step.args.len());
                let wrong: Vec<String> = self
                    .sig
                    .all_objects()
                    .into_iter()
                    .filter(|(_, t)| params.get(i).is_some_and(|p| !self.sig.fits(*t, p)))
                    .map(|(o, _)| o)
                    .collect();
                if !wrong.is_empty() {
                    step.args[i] = self.c.pick(&wrong).clone();
                }
            }
            1 if !step.args.is_empty() => {
                let i = self.c.below(step.args.len());
                step.args[i] = "zz1".into();
            }
            2 => step.name = "nope".into(),
            3 => {
                if !step.args.is_empty() && self.c.chance(50) {
                    step.args.pop();
                } else {
                    let o = self.c.pick(&self.sig.objects).0.clone();
                    step.args.push(o);
                }
            }
            _ => step = upper(&step),
        }
        step
    }
}

fn upper(step: &Step) -> Step {
    Step {
        name: step.name.to_ascii_uppercase(),
        args: step.args.iter().map(|a| a.to_ascii_uppercase()).collect(),
    }
}

/// `(p a b)` lowercased, as the reference interpreter reports atoms.
fn plain(p: &str, args: &[String]) -> String {
    let mut s = format!("({p}");
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s.push(')');
    s.to_ascii_lowercase()
}

/// A number as PDDL text (negative numbers as `(- x)`).
fn number(v: f64) -> String {
    if v < 0.0 {
        format!("(- {})", -v)
    } else {
        format!("{v}")
    }
}

fn to_plan(steps: &[Step]) -> Plan {
    Plan {
        steps: steps
            .iter()
            .map(|s| PlanStep {
                action: Name::new(s.name.as_str(), Span::default()),
                args: s
                    .args
                    .iter()
                    .map(|a| Name::new(a.as_str(), Span::default()))
                    .collect(),
                time: None,
                duration: None,
                span: Span::default(),
            })
            .collect(),
        cost: None,
    }
}

fn plan_text(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| {
            let mut line = format!("({}", s.name);
            for a in &s.args {
                line.push(' ');
                line.push_str(a);
            }
            line.push_str(")\n");
            line
        })
        .collect()
}

fn problem_text(objects: &str, init: &str, goal: &str, metric: Option<&str>) -> String {
    let mut s = format!(
        "(define (problem gen-p) (:domain gen)\n  (:objects {objects})\n  (:init {init})\n  (:goal {goal})"
    );
    if let Some(m) = metric {
        s.push_str(&format!("\n  (:metric {m})"));
    }
    s.push_str(")\n");
    s
}

#[cfg(test)]
proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Everything the generator writes parses and checks without errors.
    #[test]
    fn generated_tasks_parse_and_check((domain, problem, plans) in task()) {
        let d = parse_domain(&domain);
        prop_assert!(!d.has_errors(), "domain: {:?}\n{domain}", d.diagnostics);
        let p = parse_problem(&problem);
        prop_assert!(!p.has_errors(), "problem: {:?}\n{problem}", p.diagnostics);
        let (d, p) = (d.value.unwrap(), p.value.unwrap());
        let options = CheckOptions::default();
        let errors: Vec<_> = check_domain(&d, &options)
            .into_iter()
            .chain(check_problem(&d, &p, &options))
            .filter(|x| x.severity == Severity::Error)
            .collect();
        prop_assert!(errors.is_empty(), "{errors:#?}\n{domain}\n{problem}");
        for plan in &plans {
            let parsed = parse_plan(plan);
            prop_assert!(!parsed.has_errors(), "plan: {:?}\n{plan}", parsed.diagnostics);
            // The reference interpreter must not panic on anything generated.
            reference::run(&d, &p, &parsed.value.unwrap());
        }
    }
}

/// The generator reaches every outcome, and a fair share of plans is valid or fails late.
#[test]
#[allow(clippy::print_stderr)]
fn generated_plans_cover_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;

    let mut runner = TestRunner::deterministic();
    let strategy = task();
    let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut plans, mut late) = (0, 0);
    for _ in 0..300 {
        let (domain, problem, texts) = strategy.new_tree(&mut runner).unwrap().current();
        let d = parse_domain(&domain).value.unwrap();
        let p = parse_problem(&problem).value.unwrap();
        for text in &texts {
            let plan = parse_plan(text).value.unwrap();
            let outcome = reference::run(&d, &p, &plan);
            *kinds.entry(outcome.kind.unwrap_or("valid")).or_default() += 1;
            plans += 1;
            if outcome.step.is_none_or(|s| s >= 3) {
                late += 1;
            }
        }
    }
    eprintln!("generated outcomes over {plans} plans: {kinds:?}; valid, goal or step >= 3: {late}");
    for kind in [
        "valid",
        "unknown_action",
        "arity_mismatch",
        "unknown_object",
        "type_mismatch",
        "unsatisfied_precondition",
        "unsatisfied_goal",
        "numeric_error",
    ] {
        assert!(
            kinds.get(kind).is_some_and(|&n| n > 0),
            "no plan gave {kind}: {kinds:?}"
        );
    }
    assert!(
        kinds["valid"] * 5 >= plans,
        "under 20% valid plans: {kinds:?}"
    );
    assert!(
        late * 2 >= plans,
        "under half of the plans are valid or fail late: {kinds:?}"
    );
}
