//! The checker: names, arities, types, duplicates and requirements of a parsed task.
//!
//! Parsing answers "is this PDDL?"; checking answers "does it make sense?". The checker walks
//! a domain (and then a problem and a plan against it) and reports every name that is not
//! declared, every atom with the wrong number of arguments, every argument whose type cannot
//! fit its parameter, every name declared twice, and every feature used without the
//! `:requirements` flag that allows it. Each diagnostic points at the offending span and,
//! where a declared name is a plausible typo, suggests it.
//!
//! Types follow PDDL: `object` is the root; a type may be declared more than once (its
//! parents are merged, as the IPC `storage` domain needs); `(either a b)` admits either.
//! Inside a schema a variable's type and a parameter's type must *overlap* (one a subtype of
//! the other): a precondition may legitimately test a supertype variable against a subtype
//! parameter. Ground arguments (init facts, plan steps) must *fit*: the object's type must be
//! a subtype of the parameter's type.
//!
//! Severity choices where VAL is silent or lenient: an undeclared requirement is a warning
//! (an error under [`CheckOptions::strict`]); an object declared twice with the same type is
//! a warning, with different types an error (VAL accepts both silently); a problem naming a
//! different domain is a warning.
//!
//! The parts: `index` builds what is declared ([`TaskIndex`]), `walker` walks formulas and
//! effects against it; this file holds the entry points.

mod index;
mod walker;

use compact_str::CompactString;
use rustc_hash::FxHashMap as HashMap;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::requirements::Requirement;
use crate::span::Span;

pub use index::TaskIndex;
use walker::{Place, Scope, Walker, schema_scope};

/// How strict the checker is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Report features used without their `:requirements` flag as errors, not warnings.
    pub strict: bool,
}

/// Index of type ids; `OBJECT` is always 0.
type TypeId = u32;
const OBJECT: TypeId = 0;

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn list_names<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let mut v: Vec<&str> = names.collect();
    v.sort_unstable();
    let shown: Vec<String> = v.iter().take(8).map(|n| format!("`{n}`")).collect();
    let more = v.len().saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else if shown.is_empty() {
        "none".into()
    } else {
        shown.join(", ")
    }
}

/// Variables in scope: name key → declared types, innermost last.
/// Check a domain on its own.
pub fn check_domain(domain: &Domain, options: &CheckOptions) -> Vec<Diagnostic> {
    let index = TaskIndex::new(domain, None, options);
    let mut out = index.diagnostics.clone();
    out.extend(domain_body_diagnostics(&index, domain));
    out
}

fn domain_body_diagnostics(index: &TaskIndex<'_>, domain: &Domain) -> Vec<Diagnostic> {
    let mut w = Walker {
        index,
        file: FileKind::Domain,
        out: Vec::new(),
        preferences: None,
        preference_here: false,
        timed_forall: 0,
    };
    let typing_used = !domain.types.is_empty()
        || domain.constants.iter().any(|c| c.ty.is_some())
        || domain
            .predicates
            .iter()
            .flat_map(|p| &p.params)
            .any(|p| p.ty.is_some())
        || domain
            .actions
            .iter()
            .flat_map(|a| &a.params)
            .any(|p| p.ty.is_some());
    if typing_used {
        let span = domain
            .types
            .first()
            .map(|t| t.name.span)
            .unwrap_or(domain.name.span);
        w.require(span, "typing", &[Requirement::Typing]);
    }
    if let Some(f) = domain.functions.first() {
        // `:action-costs` allows `total-cost` and static numeric functions used as costs
        // (IPC elevators: `(travel-slow ?f1 ?f2)`); anything else needs numeric fluents.
        w.require(
            f.span,
            "numeric functions",
            &[Requirement::NumericFluents, Requirement::ActionCosts],
        );
    }
    for action in &domain.actions {
        let mut scope = schema_scope(index, &action.params);
        if let Some(pre) = &action.precondition {
            w.preference_here = true;
            w.formula(pre, &mut scope, Place::Schema);
        }
        if let Some(eff) = &action.effect {
            w.effect(eff, &mut scope);
        }
    }
    for derived in &domain.derived {
        w.require(
            derived.span,
            "`:derived`",
            &[Requirement::DerivedPredicates],
        );
        let mut scope = schema_scope(index, &derived.head.params);
        w.formula(&derived.body, &mut scope, Place::Schema);
    }
    for action in &domain.durative_actions {
        w.require(
            action.span,
            "`:durative-action`",
            &[Requirement::DurativeActions],
        );
        let mut scope = schema_scope(index, &action.params);
        let duration = Name::new("duration", action.name.span);
        scope.vars.push((&duration, vec![OBJECT]));
        if let Some(d) = &action.duration {
            w.duration(d, &mut scope);
        }
        if let Some(c) = &action.condition {
            w.timed_formula(c, &mut scope);
        }
        if let Some(e) = &action.effect {
            w.timed_effect(e, &mut scope);
        }
    }
    if let Some(c) = &domain.constraints {
        w.constraint(c, &mut Scope { vars: Vec::new() }, false);
    }
    w.out
}

/// The names of a task's preferences, in the order written (domain first), each once.
pub fn preference_names(domain: &Domain, problem: &Problem) -> Vec<CompactString> {
    fn walk(c: &Constraint, out: &mut Vec<CompactString>) {
        match c {
            Constraint::And(parts, _) => parts.iter().for_each(|p| walk(p, out)),
            Constraint::Forall(_, body, _) => walk(body, out),
            Constraint::Preference(name, body, _) => {
                if let Some(n) = name
                    && !out.iter().any(|o| n.matches(o))
                {
                    out.push(n.key());
                }
                walk(body, out);
            }
            Constraint::Modal(..) => {}
        }
    }
    let mut out = Vec::new();
    for c in [
        &domain.constraints,
        &problem.goal_preferences,
        &problem.constraints,
    ]
    .into_iter()
    .flatten()
    {
        walk(c, &mut out);
    }
    // The actions' precondition preferences (PDDL3 simple preferences).
    fn in_formula(f: &Formula, out: &mut Vec<CompactString>) {
        match f {
            Formula::Preference(name, _, _) => {
                if let Some(n) = name
                    && !out.iter().any(|o| n.matches(o))
                {
                    out.push(n.key());
                }
            }
            Formula::And(parts, _) => parts.iter().for_each(|p| in_formula(p, out)),
            _ => {}
        }
    }
    for a in &domain.actions {
        if let Some(f) = &a.precondition {
            in_formula(f, &mut out);
        }
    }
    fn in_timed(f: &TimedFormula, out: &mut Vec<CompactString>) {
        match f {
            TimedFormula::At(_, f, _) => in_formula(f, out),
            TimedFormula::And(parts, _) => parts.iter().for_each(|p| in_timed(p, out)),
            TimedFormula::Forall(_, body, _) => in_timed(body, out),
        }
    }
    for a in &domain.durative_actions {
        if let Some(f) = &a.condition {
            in_timed(f, &mut out);
        }
    }
    out
}

/// Check a problem against its domain. Reports only what is wrong in the problem (check the
/// domain with [`check_domain`]).
pub fn check_problem(
    domain: &Domain,
    problem: &Problem,
    options: &CheckOptions,
) -> Vec<Diagnostic> {
    let index = TaskIndex::new(domain, Some(problem), options);
    let mut out: Vec<Diagnostic> = index
        .diagnostics
        .iter()
        .filter(|d| d.file == FileKind::Problem)
        .cloned()
        .collect();
    if !problem.domain.text.is_empty() && !problem.domain.matches(&domain.name.text) {
        out.push(
            Diagnostic::warning(
                Code::DomainMismatch,
                FileKind::Problem,
                problem.domain.span,
                format!(
                    "the problem is for domain `{}`, but the domain given is `{}`",
                    problem.domain.text, domain.name.text
                ),
            )
            .with_label(FileKind::Domain, domain.name.span, "this domain")
            .with_help("check that the right domain file was given"),
        );
    }
    let mut w = Walker {
        index: &index,
        file: FileKind::Problem,
        out: Vec::new(),
        preferences: None,
        preference_here: false,
        timed_forall: 0,
    };
    let empty = Scope { vars: Vec::new() };
    let mut assigned: HashMap<(CompactString, Vec<CompactString>), (f64, Span)> =
        HashMap::default();
    for entry in &problem.init {
        match entry {
            InitEntry::Atom(a) | InitEntry::Not(a, _) => w.atom(a, &empty, true),
            InitEntry::Assign(f, value, span) => {
                w.fluent(f, &empty, true);
                let key = (
                    f.function.key(),
                    f.args.iter().map(|a| a.name().key()).collect(),
                );
                if let Some((old, first)) = assigned.insert(key, (*value, *span))
                    && old != *value
                {
                    w.out.push(
                        Diagnostic::warning(
                            Code::DuplicateName,
                            FileKind::Problem,
                            *span,
                            format!("this fluent was already given the value {old}"),
                        )
                        .with_label(FileKind::Problem, first, "first value")
                        .with_help("give each fluent one initial value; the last one is used"),
                    );
                }
            }
        }
    }
    if let Some(goal) = &problem.goal {
        let mut scope = Scope { vars: Vec::new() };
        w.formula(goal, &mut scope, Place::Goal);
    }
    for c in [&problem.goal_preferences, &problem.constraints]
        .into_iter()
        .flatten()
    {
        w.constraint(c, &mut Scope { vars: Vec::new() }, false);
    }
    if let Some(metric) = &problem.metric {
        w.preferences = Some(preference_names(domain, problem));
        w.expr(&metric.expr, &empty);
        w.preferences = None;
    }
    out.extend(w.out);
    out
}

/// Check that every step of a plan is a well-formed ground action of the task: see
/// [`TaskIndex::check_plan`]. Build a [`TaskIndex`] once to check many plans.
pub fn check_plan(domain: &Domain, problem: &Problem, plan: &Plan) -> Vec<Diagnostic> {
    TaskIndex::new(domain, Some(problem), &CheckOptions::default()).check_plan(plan)
}

/// Everything wrong with a task given as text: the domain parsed and checked, then the
/// problem against it, then the plan (read strictly) against both; each later file only when
/// the one before it could be read. The diagnostics in that order, each pointing into its
/// own file ([`Diagnostic::file`]). Python's `check` and MCP's `check_pddl` report exactly
/// this; `safeplan check` runs the same passes file by file, to file each diagnostic under
/// the path it was read from.
///
/// ```
/// use safeplan_pddl::{CheckOptions, check_texts};
/// let domain = "(define (domain d) (:predicates (p)) (:action a :effect (p)))";
/// let problem = "(define (problem q) (:domain d) (:init) (:goal (p)))";
/// assert!(check_texts(domain, Some(problem), Some("(a)"), &CheckOptions::default()).is_empty());
/// let found = check_texts(domain, Some(problem), Some("(b)"), &CheckOptions::default());
/// assert!(found.iter().any(|d| d.is_error()));
/// ```
pub fn check_texts(
    domain: &str,
    problem: Option<&str>,
    plan: Option<&str>,
    options: &CheckOptions,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let d = crate::parse_domain(domain);
    found.extend(d.diagnostics);
    let Some(domain) = d.value else {
        return found;
    };
    found.extend(check_domain(&domain, options));
    let Some(problem) = problem else {
        return found;
    };
    let p = crate::parse_problem(problem);
    found.extend(p.diagnostics);
    let Some(problem) = p.value else {
        return found;
    };
    found.extend(check_problem(&domain, &problem, options));
    if let Some(plan) = plan {
        let pl = crate::parse_plan(plan);
        found.extend(pl.diagnostics);
        if let Some(plan) = pl.value {
            found.extend(check_plan(&domain, &problem, &plan));
        }
    }
    found
}
