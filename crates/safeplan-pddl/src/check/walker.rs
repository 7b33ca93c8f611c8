//! The walk over a domain's, problem's or plan's formulas and effects: every name looked
//! up in the [`TaskIndex`](super::TaskIndex), with the variables in scope, and a diagnostic
//! for each one that is undeclared, of the wrong arity or of a type that cannot fit.

use compact_str::CompactString;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, FileKind, nearest};
use crate::requirements::Requirement;
use crate::span::Span;

use super::index::Signature;
use super::{OBJECT, TaskIndex, TypeId, list_names, plural};

pub(super) struct Scope<'s> {
    pub(super) vars: Vec<(&'s Name, Vec<TypeId>)>,
}

impl<'s> Scope<'s> {
    pub(super) fn lookup(&self, name: &Name) -> Option<&Vec<TypeId>> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n.matches(&name.text))
            .map(|(_, t)| t)
    }
}

/// Which declarations a name applied to arguments is looked up in.
#[derive(Clone, Copy)]
pub(super) enum Table {
    Predicates,
    Functions,
}

/// Where a formula sits, which decides which requirements and names apply.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// A precondition, `when` condition, derived body or domain-level condition.
    Schema,
    /// The problem's goal: only objects and constants, no variables except quantified ones.
    Goal,
}

pub(super) struct Walker<'i, 'a> {
    pub(super) index: &'i TaskIndex<'a>,
    pub(super) file: FileKind,
    pub(super) out: Vec<Diagnostic>,
    /// While checking a problem's metric: the names of the task's preferences, which
    /// `(is-violated NAME)` may read. `None` elsewhere, where `is-violated` is no function.
    pub(super) preferences: Option<Vec<CompactString>>,
    /// Whether the formula about to be walked may be a preference: the top of an action's
    /// precondition or of a durative action's `at start` / `at end` condition, or a part of
    /// a conjunction there.
    pub(super) preference_here: bool,
    /// How deep the walk is inside a durative condition's `forall`s.
    pub(super) timed_forall: usize,
}

impl<'i, 'a> Walker<'i, 'a> {
    /// The types of a term (borrowed: this runs once per term of every fact and condition).
    pub(super) fn term_types<'r>(
        &mut self,
        term: &Term,
        scope: &'r Scope<'_>,
    ) -> Option<&'r [TypeId]>
    where
        'i: 'r,
    {
        let index: &'i TaskIndex<'a> = self.index;
        match term {
            Term::Var(v) => match scope.lookup(v) {
                Some(t) => Some(t.as_slice()),
                None => {
                    let d = Diagnostic::error(
                        Code::UndefinedVariable,
                        self.file,
                        v.span,
                        format!("variable `?{}` is not bound here", v.text),
                    );
                    let suggestion = nearest(&v.text, scope.vars.iter().map(|(n, _)| n.as_str()));
                    self.out.push(match suggestion {
                        Some(s) => d.with_help(format!("did you mean `?{s}`?")),
                        None => d.with_help(
                            "declare it in `:parameters`, or bind it with `exists`/`forall`",
                        ),
                    });
                    None
                }
            },
            Term::Const(c) => match get_ignore_case(&index.objects, c.as_str()) {
                Some(o) => Some(o.types.as_slice()),
                None => {
                    let where_ = if self.file == FileKind::Domain {
                        "a constant of the domain"
                    } else {
                        "an object of the problem or a constant of the domain"
                    };
                    let d = Diagnostic::error(
                        Code::UndefinedObject,
                        self.file,
                        c.span,
                        format!("`{}` is not {where_}", c.text),
                    );
                    let suggestion = nearest(
                        &c.text,
                        self.index.objects.values().map(|o| o.name.as_str()),
                    );
                    let fix = if self.file == FileKind::Domain {
                        "declare it in `(:constants ...)`, or write `?` if a variable was meant"
                    } else {
                        "declare it in `(:objects ...)`"
                    };
                    self.out.push(match suggestion {
                        Some(s) => d.with_help(format!("did you mean `{s}`? Otherwise {fix}")),
                        None => d.with_help(fix),
                    });
                    None
                }
            },
        }
    }

    /// Check arguments against a signature. `ground`: arguments must fit (subtype), else
    /// overlap suffices.
    pub(super) fn args(
        &mut self,
        kind: &str,
        sig: &Signature<'a>,
        args: &[Term],
        span: Span,
        scope: &Scope<'_>,
        ground: bool,
    ) {
        if args.len() != sig.params.len() {
            self.out.push(
                Diagnostic::error(
                    Code::ArityMismatch,
                    self.file,
                    span,
                    format!(
                        "{kind} `{}` takes {} argument{}, found {}",
                        sig.name.text,
                        sig.params.len(),
                        plural(sig.params.len()),
                        args.len()
                    ),
                )
                .with_label(FileKind::Domain, sig.name.span, "declared here")
                .with_help(format!(
                    "it is declared as `({}{})`",
                    sig.name.text,
                    sig.params
                        .iter()
                        .map(|(n, _)| format!(" ?{}", n.text))
                        .collect::<String>()
                )),
            );
            for a in args {
                self.term_types(a, scope);
            }
            return;
        }
        for (arg, (param, param_types)) in args.iter().zip(&sig.params) {
            let Some(arg_types) = self.term_types(arg, scope) else {
                continue;
            };
            let types = &self.index.types;
            let ok = if ground && matches!(arg, Term::Const(_)) {
                types.fits(arg_types, param_types)
            } else {
                types.overlaps(arg_types, param_types)
            };
            if !ok {
                let what = match arg {
                    Term::Var(v) => format!("variable `?{}`", v.text),
                    Term::Const(c) => format!("`{}`", c.text),
                };
                self.out.push(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        self.file,
                        arg.span(),
                        format!(
                            "{what} is of type {}, but parameter `?{}` of `{}` needs {}",
                            types.describe(arg_types),
                            param.text,
                            sig.name.text,
                            types.describe(param_types)
                        ),
                    )
                    .with_label(FileKind::Domain, param.span, "parameter declared here")
                    .with_help(match arg {
                        Term::Const(_) => self.index.fitting_objects_help(param_types),
                        Term::Var(_) => format!(
                            "declare the variable with a type that fits {}, or pass another variable",
                            types.describe(param_types)
                        ),
                    }),
                );
            }
        }
    }

    pub(super) fn atom(&mut self, atom: &Atom, scope: &Scope<'_>, ground: bool) {
        self.application(
            Table::Predicates,
            &atom.predicate,
            &atom.args,
            atom.span,
            scope,
            ground,
        );
    }

    pub(super) fn fluent(&mut self, f: &FluentTerm, scope: &Scope<'_>, ground: bool) {
        if f.function.matches("total-time")
            && f.args.is_empty()
            && !self.index.functions.contains_key("total-time")
        {
            return;
        }
        self.application(
            Table::Functions,
            &f.function,
            &f.args,
            f.span,
            scope,
            ground,
        );
    }

    /// Check `(name args)` against the domain's predicates or functions: the name must be
    /// declared (else the nearest declared one is suggested), then the arguments must fit.
    pub(super) fn application(
        &mut self,
        table: Table,
        name: &Name,
        args: &[Term],
        span: Span,
        scope: &Scope<'_>,
        ground: bool,
    ) {
        let index = self.index;
        let (signatures, kind, code) = match table {
            Table::Predicates => (&index.predicates, "predicate", Code::UndefinedPredicate),
            Table::Functions => (&index.functions, "function", Code::UndefinedFunction),
        };
        if let Some(sig) = get_ignore_case(signatures, name.as_str()) {
            self.args(kind, sig, args, span, scope, ground);
            return;
        }
        let suggestion = nearest(&name.text, signatures.values().map(|s| s.name.as_str()));
        let declare = match table {
            Table::Predicates => "declare it in the domain's `(:predicates ...)`".to_string(),
            Table::Functions => format!(
                "declare it in the domain's `(:functions ({}) ...)`",
                name.text
            ),
        };
        self.out.push(
            Diagnostic::error(
                code,
                self.file,
                name.span,
                format!("{kind} `{}` is not declared", name.text),
            )
            .with_suggestion(suggestion, declare),
        );
        for a in args {
            self.term_types(a, scope);
        }
    }

    pub(super) fn expr(&mut self, e: &Expr, scope: &Scope<'_>) {
        match e {
            Expr::Number(..) => {}
            Expr::Fluent(f)
                if self.preferences.is_some()
                    && f.function.matches("is-violated")
                    && !self.index.functions.contains_key("is-violated") =>
            {
                self.is_violated(f);
            }
            Expr::Fluent(f) => self.fluent(f, scope, false),
            Expr::Arith(_, args, _) => args.iter().for_each(|a| self.expr(a, scope)),
            Expr::Var(v) => {
                if scope.lookup(v).is_none() {
                    self.out.push(
                        Diagnostic::error(
                            Code::UndefinedVariable,
                            self.file,
                            v.span,
                            format!("variable `?{}` is not bound here", v.text),
                        )
                        .with_help(
                            "only `?duration` may appear as a number, inside a durative action",
                        ),
                    );
                }
            }
        }
    }

    /// `(is-violated NAME)` in a metric: NAME must be a preference of the task.
    pub(super) fn is_violated(&mut self, f: &FluentTerm) {
        let names = self.preferences.as_deref().unwrap_or_default();
        let name = match f.args.as_slice() {
            [Term::Const(n)] => n,
            _ => {
                self.out.push(
                    Diagnostic::error(
                        Code::ArityMismatch,
                        self.file,
                        f.span,
                        "`is-violated` takes one preference name",
                    )
                    .with_help("write `(is-violated NAME)` with the name of a preference"),
                );
                return;
            }
        };
        if names.iter().any(|n| name.matches(n)) {
            return;
        }
        let d = Diagnostic::error(
            Code::UndefinedPreference,
            self.file,
            name.span,
            format!("no preference of the task is named `{}`", name.text),
        );
        self.out.push(
            match nearest(&name.text, names.iter().map(|n| n.as_str())) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None if names.is_empty() => d.with_help(
                    "the task has no named preferences; declare one with `(preference NAME ...)` \
                     in the goal or in `(:constraints ...)`",
                ),
                None => d.with_help(format!(
                    "the task's preferences are {}",
                    list_names(names.iter().map(|n| n.as_str()))
                )),
            },
        );
    }

    /// A trajectory constraint or preference. `in_preference`: inside `(preference ...)`,
    /// whose rule is soft and needs `:preferences` rather than `:constraints`.
    pub(super) fn constraint<'s>(
        &mut self,
        c: &'s Constraint,
        scope: &mut Scope<'s>,
        in_preference: bool,
    ) {
        match c {
            Constraint::And(parts, _) => parts
                .iter()
                .for_each(|p| self.constraint(p, scope, in_preference)),
            Constraint::Forall(vars, body, _) => self.quantified(vars, scope, |w, scope| {
                w.constraint(body, scope, in_preference)
            }),
            Constraint::Preference(_, body, span) => {
                self.require(*span, "a preference", &[Requirement::Preferences]);
                self.constraint(body, scope, true);
            }
            Constraint::Modal(m, span) => {
                if !in_preference {
                    self.require(
                        *span,
                        "a trajectory constraint",
                        &[Requirement::Constraints],
                    );
                }
                if let Modal::HoldDuring(from, to, _) = &**m
                    && from >= to
                {
                    self.out.push(
                        Diagnostic::warning(
                            Code::Unsupported,
                            self.file,
                            *span,
                            format!(
                                "`hold-during` from {from} to {to} covers no time: it always holds"
                            ),
                        )
                        .with_help("the window is [start, end): write the earlier time first"),
                    );
                }
                for f in m.conditions() {
                    self.formula(f, scope, Place::Goal);
                }
            }
        }
    }

    pub(super) fn require(&mut self, span: Span, what: &str, needed: &[Requirement]) {
        let d = self
            .index
            .undeclared_requirement(self.file, span, what, needed);
        self.out.extend(d);
    }

    pub(super) fn formula<'s>(&mut self, f: &'s Formula, scope: &mut Scope<'s>, place: Place) {
        // A preference may stand here only; the parts of a conjunction inherit it.
        let preference_here = std::mem::take(&mut self.preference_here);
        match f {
            Formula::Atom(a) => self.atom(a, scope, place == Place::Goal),
            Formula::Equals(a, b, span) => {
                self.require(*span, "`=` on objects", &[Requirement::Equality]);
                self.term_types(a, scope);
                self.term_types(b, scope);
            }
            Formula::Not(inner, span) => {
                if !matches!(**inner, Formula::Equals(..)) {
                    self.require(
                        *span,
                        "a negative condition `(not ...)`",
                        &[Requirement::NegativePreconditions],
                    );
                }
                self.formula(inner, scope, place);
            }
            Formula::And(parts, _) => {
                for p in parts {
                    self.preference_here = preference_here;
                    self.formula(p, scope, place);
                }
                self.preference_here = false;
            }
            Formula::Or(parts, span) => {
                self.require(*span, "`or`", &[Requirement::DisjunctivePreconditions]);
                parts.iter().for_each(|p| self.formula(p, scope, place));
            }
            Formula::Imply(a, b, span) => {
                self.require(*span, "`imply`", &[Requirement::DisjunctivePreconditions]);
                self.formula(a, scope, place);
                self.formula(b, scope, place);
            }
            Formula::Exists(vars, body, span) | Formula::Forall(vars, body, span) => {
                let (what, req) = if matches!(f, Formula::Exists(..)) {
                    ("`exists`", Requirement::ExistentialPreconditions)
                } else {
                    ("`forall`", Requirement::UniversalPreconditions)
                };
                self.require(*span, what, &[req]);
                self.quantified(vars, scope, |w, scope| w.formula(body, scope, place));
            }
            Formula::Compare(_, a, b, span) => {
                self.require(
                    *span,
                    "a numeric comparison",
                    &[Requirement::NumericFluents],
                );
                self.expr(a, scope);
                self.expr(b, scope);
            }
            Formula::Preference(_, body, span) => {
                if preference_here {
                    self.require(*span, "a preference", &[Requirement::Preferences]);
                } else {
                    self.out.push(
                        Diagnostic::error(
                            Code::Unsupported,
                            self.file,
                            *span,
                            "a preference here is not supported: safeplan reads preferences at \
                             the top of an action's `:precondition` (or under its `and`), of a \
                             durative action's `at start` / `at end` condition, of a problem's \
                             `:goal` (under `and` and `forall`) and in `:constraints`",
                        )
                        .with_help(
                            "move the preference there, or make it a hard condition by \
                             removing `(preference NAME ...)`",
                        ),
                    );
                }
                self.formula(body, scope, place);
            }
        }
    }

    /// A `:duration` constraint: comparisons with `?duration` belong to
    /// `:durative-actions` and need no `:numeric-fluents` of their own (a fluent they read
    /// was declared under it).
    pub(super) fn duration<'s>(&mut self, f: &'s Formula, scope: &mut Scope<'s>) {
        match f {
            Formula::And(parts, _) => parts.iter().for_each(|p| self.duration(p, scope)),
            Formula::Compare(_, a, b, _) => {
                self.expr(a, scope);
                self.expr(b, scope);
            }
            other => self.formula(other, scope, Place::Schema),
        }
    }

    /// Run `body` with `vars` bound on top of `scope`.
    pub(super) fn quantified<'s>(
        &mut self,
        vars: &'s [Typed],
        scope: &mut Scope<'s>,
        body: impl FnOnce(&mut Self, &mut Scope<'s>),
    ) {
        let before = scope.vars.len();
        for v in vars {
            // PlanSys2's own test domains write `(exists (?ro) ...)` in typed domains; VAL
            // refuses it. Read as `object`, said so.
            if v.ty.is_none() && self.index.typed {
                self.out.push(
                    Diagnostic::warning(
                        Code::UntypedVariable,
                        self.file,
                        v.name.span,
                        format!(
                            "the quantified variable `?{}` has no type: it is read as `object` \
                             (any object of the task)",
                            v.name.text
                        ),
                    )
                    .with_help(format!(
                        "write `?{} - TYPE` to range over one type (VAL refuses an untyped \
                         variable in a typed domain)",
                        v.name.text
                    )),
                );
            }
            let types = self.resolve(v.ty.as_ref());
            scope.vars.push((&v.name, types));
        }
        body(self, scope);
        scope.vars.truncate(before);
    }

    pub(super) fn resolve(&mut self, ty: Option<&Type>) -> Vec<TypeId> {
        let Some(ty) = ty else {
            return vec![OBJECT];
        };
        let mut ids = Vec::new();
        for name in ty.names() {
            match self.index.types.id(name) {
                Some(id) => ids.push(id),
                None => self.out.push(
                    Diagnostic::error(
                        Code::UndefinedType,
                        self.file,
                        name.span,
                        format!("type `{}` is not declared", name.text),
                    )
                    .with_help(
                        match nearest(
                            &name.text,
                            self.index.types.names.iter().map(|n| n.as_str()),
                        ) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "declare it in the domain's `(:types ...)`".into(),
                        },
                    ),
                ),
            }
        }
        ids
    }

    pub(super) fn effect<'s>(&mut self, e: &'s Effect, scope: &mut Scope<'s>) {
        match e {
            Effect::And(parts, _) => parts.iter().for_each(|p| self.effect(p, scope)),
            Effect::Forall(vars, body, span) => {
                self.require(
                    *span,
                    "a `forall` effect",
                    &[Requirement::ConditionalEffects],
                );
                self.quantified(vars, scope, |w, scope| w.effect(body, scope));
            }
            Effect::When(cond, body, span) => {
                self.require(
                    *span,
                    "a conditional effect `when`",
                    &[Requirement::ConditionalEffects],
                );
                self.formula(cond, scope, Place::Schema);
                self.effect(body, scope);
            }
            Effect::Add(a) | Effect::Delete(a, _) => self.atom(a, scope, false),
            Effect::Numeric(_, target, value, span) => {
                let is_cost = target.function.matches("total-cost") && target.args.is_empty();
                if is_cost {
                    self.require(
                        *span,
                        "`total-cost`",
                        &[Requirement::ActionCosts, Requirement::NumericFluents],
                    );
                } else {
                    self.require(*span, "a numeric effect", &[Requirement::NumericFluents]);
                }
                self.fluent(target, scope, false);
                self.expr(value, scope);
            }
        }
    }

    pub(super) fn timed_formula<'s>(&mut self, f: &'s TimedFormula, scope: &mut Scope<'s>) {
        match f {
            TimedFormula::And(parts, _) => parts.iter().for_each(|p| self.timed_formula(p, scope)),
            TimedFormula::Forall(vars, body, _) => {
                self.timed_forall += 1;
                self.quantified(vars, scope, |w, scope| w.timed_formula(body, scope));
                self.timed_forall -= 1;
            }
            TimedFormula::At(spec, f, _) => {
                self.preference_here = *spec != TimeSpec::OverAll && self.timed_forall == 0;
                self.formula(f, scope, Place::Schema);
            }
        }
    }

    pub(super) fn timed_effect<'s>(&mut self, e: &'s TimedEffect, scope: &mut Scope<'s>) {
        match e {
            TimedEffect::And(parts, _) => parts.iter().for_each(|p| self.timed_effect(p, scope)),
            TimedEffect::Forall(vars, body, _) => {
                self.quantified(vars, scope, |w, scope| w.timed_effect(body, scope));
            }
            TimedEffect::When(cond, body, _) => {
                self.timed_formula(cond, scope);
                self.timed_effect(body, scope);
            }
            TimedEffect::At(_, e, _) => self.effect(e, scope),
        }
    }
}

pub(super) fn schema_scope<'s>(index: &TaskIndex<'_>, params: &'s [Typed]) -> Scope<'s> {
    Scope {
        vars: params
            .iter()
            .map(|p| {
                let types = match &p.ty {
                    None => vec![OBJECT],
                    Some(t) => t.names().iter().filter_map(|n| index.types.id(n)).collect(),
                };
                (&p.name, types)
            })
            .collect(),
    }
}
