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

use rustc_hash::FxHashMap as HashMap;

use compact_str::CompactString;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, FileKind, Severity, nearest};
use crate::requirements::{Requirement, RequirementSet};
use crate::span::Span;

/// How strict the checker is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Report features used without their `:requirements` flag as errors, not warnings.
    pub strict: bool,
}

/// Index of type ids; `OBJECT` is always 0.
type TypeId = u32;
const OBJECT: TypeId = 0;

#[derive(Debug)]
struct TypeTable {
    ids: HashMap<CompactString, TypeId>,
    names: Vec<CompactString>,
    /// For each type, itself and all its ancestors (always including `object`).
    ancestors: Vec<Vec<TypeId>>,
}

impl TypeTable {
    fn id(&self, name: &Name) -> Option<TypeId> {
        get_ignore_case(&self.ids, name.as_str()).copied()
    }

    fn is_subtype(&self, sub: TypeId, sup: TypeId) -> bool {
        sup == OBJECT || self.ancestors[sub as usize].contains(&sup)
    }

    /// An empty list stands for a type that is not declared (already reported): it is
    /// compatible with everything, so one undefined type gives one diagnostic.
    fn overlaps(&self, a: &[TypeId], b: &[TypeId]) -> bool {
        a.is_empty()
            || b.is_empty()
            || a.iter().any(|&x| {
                b.iter()
                    .any(|&y| self.is_subtype(x, y) || self.is_subtype(y, x))
            })
    }

    fn fits(&self, object_types: &[TypeId], param: &[TypeId]) -> bool {
        object_types.is_empty()
            || param.is_empty()
            || object_types
                .iter()
                .any(|&t| param.iter().any(|&p| self.is_subtype(t, p)))
    }

    fn describe(&self, types: &[TypeId]) -> String {
        match types {
            [one] => format!("`{}`", self.names[*one as usize]),
            many => format!(
                "`(either {})`",
                many.iter()
                    .map(|&t| self.names[t as usize].as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// A declared predicate or function: where, and its parameter types.
#[derive(Debug)]
struct Signature<'a> {
    name: &'a Name,
    params: Vec<(&'a Name, Vec<TypeId>)>,
}

/// A declared action (or durative action) as plan steps see it.
#[derive(Debug)]
struct ActionSig<'a> {
    name: &'a Name,
    params: Vec<(&'a Name, Vec<TypeId>)>,
}

/// An object or constant: where it was declared and its type(s).
#[derive(Debug)]
struct ObjectInfo<'a> {
    name: &'a Name,
    file: FileKind,
    types: Vec<TypeId>,
}

/// What the checker knows about a domain (and, once added, a problem): declared types,
/// predicates, functions, actions and objects, keyed by canonical (lowercase) name.
///
/// Build it once and check many plans against it with [`TaskIndex::check_plan`].
#[derive(Debug)]
pub struct TaskIndex<'a> {
    types: TypeTable,
    predicates: HashMap<CompactString, Signature<'a>>,
    functions: HashMap<CompactString, Signature<'a>>,
    actions: HashMap<CompactString, ActionSig<'a>>,
    objects: HashMap<CompactString, ObjectInfo<'a>>,
    requirements: RequirementSet,
    typed: bool,
    /// Diagnostics found while building the index (duplicates, undefined types).
    diagnostics: Vec<Diagnostic>,
    strict: bool,
}

impl<'a> TaskIndex<'a> {
    /// Index a domain (and optionally its problem). Declaration problems found on the way are
    /// kept and returned by [`TaskIndex::diagnostics`].
    pub fn new(
        domain: &'a Domain,
        problem: Option<&'a Problem>,
        options: &CheckOptions,
    ) -> TaskIndex<'a> {
        let mut requirements =
            RequirementSet::expanded(domain.requirements.iter().filter_map(|r| r.requirement));
        if let Some(p) = problem {
            for r in p.requirements.iter().filter_map(|r| r.requirement) {
                requirements.insert_expanded(r);
            }
        }
        let mut index = TaskIndex {
            types: TypeTable {
                ids: HashMap::from_iter([(CompactString::const_new("object"), OBJECT)]),
                names: vec![CompactString::const_new("object")],
                ancestors: vec![vec![OBJECT]],
            },
            predicates: HashMap::default(),
            functions: HashMap::default(),
            actions: HashMap::default(),
            objects: HashMap::default(),
            requirements,
            typed: !domain.types.is_empty(),
            diagnostics: Vec::new(),
            strict: options.strict,
        };
        index.index_types(domain);
        index.index_objects(&domain.constants, FileKind::Domain);
        index.index_predicates(domain);
        index.index_functions(domain);
        index.index_actions(domain);
        if let Some(p) = problem {
            index.index_objects(&p.objects, FileKind::Problem);
        }
        index
    }

    /// Declaration problems found while indexing.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    // ----- indexing ---------------------------------------------------------------------

    fn index_types(&mut self, domain: &'a Domain) {
        // Pass 1: give every mentioned type name an id (declared or used as a parent).
        let mut parents: Vec<Vec<TypeId>> = vec![Vec::new()];
        for entry in &domain.types {
            let child = self.intern_type(&entry.name, &mut parents);
            if entry.name.matches("object") && entry.ty.is_some() {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        FileKind::Domain,
                        entry.name.span,
                        "`object` is the root type and cannot have a parent",
                    )
                    .with_help("remove the `- ...` after `object`"),
                );
                continue;
            }
            let parent_names: Vec<&'a Name> = match &entry.ty {
                Some(ty) => ty.names().iter().collect(),
                None => Vec::new(),
            };
            for parent in parent_names {
                let pid = self.intern_type(parent, &mut parents);
                if !parents[child as usize].contains(&pid) {
                    parents[child as usize].push(pid);
                }
            }
        }
        // Pass 2: ancestors by depth-first search, reporting cycles.
        let n = self.types.names.len();
        let mut ancestors = vec![Vec::new(); n];
        for (t, found) in ancestors.iter_mut().enumerate() {
            let mut seen = vec![false; n];
            let mut stack = vec![t as TypeId];
            while let Some(x) = stack.pop() {
                if seen[x as usize] {
                    continue;
                }
                seen[x as usize] = true;
                found.push(x);
                for &p in &parents[x as usize] {
                    if p as usize == t {
                        let entry = domain
                            .types
                            .iter()
                            .find(|e| self.types.id(&e.name) == Some(t as TypeId));
                        if let Some(entry) = entry {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    Code::TypeMismatch,
                                    FileKind::Domain,
                                    entry.name.span,
                                    format!("type `{}` is its own ancestor", entry.name.text),
                                )
                                .with_help("types form a tree under `object`; remove one link of the cycle"),
                            );
                        }
                    }
                    stack.push(p);
                }
            }
            if !found.contains(&OBJECT) {
                found.push(OBJECT);
            }
        }
        self.types.ancestors = ancestors;
    }

    fn intern_type(&mut self, name: &Name, parents: &mut Vec<Vec<TypeId>>) -> TypeId {
        let key = name.key();
        if let Some(&id) = self.types.ids.get(&key) {
            return id;
        }
        let id = self.types.names.len() as TypeId;
        self.types.ids.insert(key, id);
        self.types.names.push(name.text.clone());
        parents.push(Vec::new());
        id
    }

    /// The type ids of a declared type expression; reports undefined names. `None` (no
    /// type written) is `object`; an empty result means "undeclared type" (see `overlaps`).
    fn resolve_type(&mut self, ty: Option<&Type>, file: FileKind) -> Vec<TypeId> {
        let Some(ty) = ty else {
            return vec![OBJECT];
        };
        let mut ids = Vec::new();
        for name in ty.names() {
            match self.types.id(name) {
                Some(id) => ids.push(id),
                None => {
                    let d = Diagnostic::error(
                        Code::UndefinedType,
                        file,
                        name.span,
                        format!("type `{}` is not declared", name.text),
                    );
                    let suggestion =
                        nearest(&name.text, self.types.names.iter().map(|n| n.as_str()));
                    self.diagnostics.push(match suggestion {
                        Some(s) => d.with_help(format!(
                            "did you mean `{s}`? Otherwise declare it in `(:types ...)`"
                        )),
                        None => d.with_help(format!(
                            "declare it in the domain's `(:types ... {} - object)`",
                            name.text
                        )),
                    });
                }
            }
        }
        ids
    }

    /// Resolve parameter types. A repeated parameter name is an error in an action (which
    /// `?x` would a step bind?) but legal in a predicate or function declaration, where the
    /// names bind nothing (IPC logistics declares `(in ?obj ?obj)`): `repeated` is `None` there.
    fn resolve_params(
        &mut self,
        params: &'a [Typed],
        file: FileKind,
        repeated: Option<Severity>,
    ) -> Vec<(&'a Name, Vec<TypeId>)> {
        let mut out: Vec<(&'a Name, Vec<TypeId>)> = Vec::with_capacity(params.len());
        for p in params {
            if let (Some((first, _)), Some(repeated)) =
                (out.iter().find(|(n, _)| n.matches(&p.name.text)), repeated)
            {
                let mut d = Diagnostic::error(
                    Code::DuplicateName,
                    file,
                    p.name.span,
                    format!("parameter `?{}` is declared twice", p.name.text),
                )
                .with_label(file, first.span, "first declared here")
                .with_help("rename one of them");
                d.severity = repeated;
                self.diagnostics.push(d);
            }
            let types = self.resolve_type(p.ty.as_ref(), file);
            out.push((&p.name, types));
        }
        out
    }

    fn index_objects(&mut self, list: &'a [Typed], file: FileKind) {
        // Room for all at once: growing a map of thousands of objects rehashes it into
        // fresh pages at every doubling.
        self.objects.reserve(list.len());
        for entry in list {
            let types = self.resolve_type(entry.ty.as_ref(), file);
            let key = entry.name.key();
            if let Some(existing) = self.objects.get_mut(&key) {
                let same = existing.types == types;
                let what = if existing.file == FileKind::Domain && file == FileKind::Problem {
                    "is already a constant of the domain"
                } else {
                    "is declared twice"
                };
                let mut d = Diagnostic::warning(
                    Code::DuplicateName,
                    file,
                    entry.name.span,
                    format!("`{}` {what}", entry.name.text),
                )
                .with_label(
                    existing.file,
                    existing.name.span,
                    "first declared here",
                );
                if same {
                    d = d.with_help("remove the second declaration");
                } else {
                    d.severity = Severity::Error;
                    d.message = format!(
                        "`{}` {what}, with a different type ({} here, {} before)",
                        entry.name.text,
                        self.types.describe(&types),
                        self.types.describe(&existing.types)
                    );
                    d = d.with_help("an object has one type: remove one declaration, or use `(either ...)` if it really is both");
                    for t in types {
                        if !existing.types.contains(&t) {
                            existing.types.push(t);
                        }
                    }
                }
                self.diagnostics.push(d);
                continue;
            }
            self.objects.insert(
                key,
                ObjectInfo {
                    name: &entry.name,
                    file,
                    types,
                },
            );
        }
    }

    fn index_predicates(&mut self, domain: &'a Domain) {
        let heads = domain
            .predicates
            .iter()
            .map(|p| (p, true))
            .chain(domain.derived.iter().map(|d| (&d.head, false)));
        for (decl, declared) in heads {
            let key = decl.name.key();
            if let Some(existing) = self.predicates.get(&key) {
                if declared {
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::DuplicateName,
                            FileKind::Domain,
                            decl.name.span,
                            format!("predicate `{}` is declared twice", decl.name.text),
                        )
                        .with_label(FileKind::Domain, existing.name.span, "first declared here")
                        .with_help("remove one declaration"),
                    );
                }
                continue;
            }
            let params = self.resolve_params(&decl.params, FileKind::Domain, None);
            self.predicates.insert(
                key,
                Signature {
                    name: &decl.name,
                    params,
                },
            );
        }
    }

    fn index_functions(&mut self, domain: &'a Domain) {
        for decl in &domain.functions {
            let key = decl.name.key();
            if let Some(existing) = self.functions.get(&key) {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        FileKind::Domain,
                        decl.name.span,
                        format!("function `{}` is declared twice", decl.name.text),
                    )
                    .with_label(FileKind::Domain, existing.name.span, "first declared here")
                    .with_help("remove one declaration"),
                );
                continue;
            }
            if let FunctionType::Object(ty) = &decl.ty {
                self.resolve_type(Some(ty), FileKind::Domain);
            }
            let params = self.resolve_params(&decl.params, FileKind::Domain, None);
            self.functions.insert(
                key,
                Signature {
                    name: &decl.name,
                    params,
                },
            );
        }
    }

    fn index_actions(&mut self, domain: &'a Domain) {
        let all = domain
            .actions
            .iter()
            .map(|a| (&a.name, &a.params))
            .chain(domain.durative_actions.iter().map(|a| (&a.name, &a.params)));
        for (name, params) in all {
            let key = name.key();
            let params = self.resolve_params(params, FileKind::Domain, Some(Severity::Error));
            if let Some(existing) = self.actions.get(&key) {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        FileKind::Domain,
                        name.span,
                        format!("action `{}` is declared twice", name.text),
                    )
                    .with_label(FileKind::Domain, existing.name.span, "first declared here")
                    .with_help("rename or remove one of them"),
                );
                continue;
            }
            self.actions.insert(key, ActionSig { name, params });
        }
    }

    /// A help line naming objects that would fit `param` (up to five), for type errors.
    fn fitting_objects_help(&self, param: &[TypeId]) -> String {
        let mut names: Vec<&str> = self
            .objects
            .values()
            .filter(|o| !o.types.is_empty() && self.types.fits(&o.types, param))
            .map(|o| o.name.as_str())
            .collect();
        names.sort_unstable();
        let wanted = self.types.describe(param);
        match names.len() {
            0 => {
                format!("the task has no object of type {wanted}: declare one in `(:objects ...)`")
            }
            n if n <= 5 => format!("objects of type {wanted}: {}", names.join(", ")),
            n => format!(
                "objects of type {wanted} include {} (and {} more)",
                names[..5].join(", "),
                n - 5
            ),
        }
    }

    // ----- plans ------------------------------------------------------------------------

    /// Check that every step of `plan` names an action of the domain with the right number
    /// of arguments, each an object of the task whose type fits its parameter.
    ///
    /// One diagnostic per malformed step (the first thing wrong with it), with
    /// [`Diagnostic::step`] set. Whether steps are *applicable* is for the validator.
    pub fn check_plan(&self, plan: &Plan) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (i, step) in plan.steps.iter().enumerate() {
            if let Some(d) = self.check_step(step) {
                out.push(d.at_step(i + 1));
            }
        }
        out
    }

    fn check_step(&self, step: &PlanStep) -> Option<Diagnostic> {
        let Some(action) = get_ignore_case(&self.actions, step.action.as_str()) else {
            let d = Diagnostic::error(
                Code::UnknownAction,
                FileKind::Plan,
                step.action.span,
                format!("the domain has no action `{}`", step.action.text),
            );
            let suggestion = nearest(
                &step.action.text,
                self.actions.values().map(|a| a.name.as_str()),
            );
            return Some(d.with_suggestion(
                suggestion,
                format!(
                    "the domain's actions are {}",
                    list_names(self.actions.values().map(|a| a.name.as_str()))
                ),
            ));
        };
        if step.args.len() != action.params.len() {
            let signature = action
                .params
                .iter()
                .map(|(n, t)| {
                    if self.typed {
                        format!("?{} - {}", n.text, self.types.describe(t).trim_matches('`'))
                    } else {
                        format!("?{}", n.text)
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            return Some(
                Diagnostic::error(
                    Code::ArityMismatch,
                    FileKind::Plan,
                    step.span,
                    format!(
                        "`{}` takes {} argument{}, this step gives {}",
                        action.name.text,
                        action.params.len(),
                        plural(action.params.len()),
                        step.args.len()
                    ),
                )
                .with_label(FileKind::Domain, action.name.span, "action declared here")
                .with_help(format!("write `({} {signature})`", action.name.text)),
            );
        }
        for (arg, (param, param_types)) in step.args.iter().zip(&action.params) {
            let Some(object) = get_ignore_case(&self.objects, arg.as_str()) else {
                let d = Diagnostic::error(
                    Code::UnknownObject,
                    FileKind::Plan,
                    arg.span,
                    format!(
                        "`{}` is not an object of the problem or a constant of the domain",
                        arg.text
                    ),
                );
                let suggestion = nearest(&arg.text, self.objects.values().map(|o| o.name.as_str()));
                return Some(d.with_suggestion(
                    suggestion,
                    "declare it in the problem's `(:objects ...)`, or use a declared object",
                ));
            };
            if !self.types.fits(&object.types, param_types) {
                return Some(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        FileKind::Plan,
                        arg.span,
                        format!(
                            "`{}` is of type {}, but parameter `?{}` of `{}` needs {}",
                            arg.text,
                            self.types.describe(&object.types),
                            param.text,
                            action.name.text,
                            self.types.describe(param_types)
                        ),
                    )
                    .with_label(object.file, object.name.span, "object declared here")
                    .with_label(FileKind::Domain, param.span, "parameter declared here")
                    .with_help(self.fitting_objects_help(param_types)),
                );
            }
        }
        None
    }

    // ----- requirements -----------------------------------------------------------------

    /// A diagnostic if none of `needed` is declared (a warning, an error when strict).
    fn undeclared_requirement(
        &self,
        file: FileKind,
        span: Span,
        what: &str,
        needed: &[Requirement],
    ) -> Option<Diagnostic> {
        if needed.iter().any(|&r| self.requirements.contains(r)) {
            return None;
        }
        let flags = needed
            .iter()
            .map(|r| format!("`{}`", r.as_str()))
            .collect::<Vec<_>>()
            .join(" or ");
        let mut d = Diagnostic::warning(
            Code::UndeclaredRequirement,
            file,
            span,
            format!("{what} needs the requirement {flags}, which the domain does not declare"),
        )
        .with_help(format!(
            "add {} to the domain's `(:requirements ...)`",
            needed.first().map_or("", |r| r.as_str())
        ));
        if self.strict {
            d.severity = Severity::Error;
        }
        Some(d)
    }
}

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
struct Scope<'s> {
    vars: Vec<(&'s Name, Vec<TypeId>)>,
}

impl<'s> Scope<'s> {
    fn lookup(&self, name: &Name) -> Option<&Vec<TypeId>> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n.matches(&name.text))
            .map(|(_, t)| t)
    }
}

/// Which declarations a name applied to arguments is looked up in.
#[derive(Clone, Copy)]
enum Table {
    Predicates,
    Functions,
}

/// Where a formula sits, which decides which requirements and names apply.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A precondition, `when` condition, derived body or domain-level condition.
    Schema,
    /// The problem's goal: only objects and constants, no variables except quantified ones.
    Goal,
}

struct Walker<'i, 'a> {
    index: &'i TaskIndex<'a>,
    file: FileKind,
    out: Vec<Diagnostic>,
    /// While checking a problem's metric: the names of the task's preferences, which
    /// `(is-violated NAME)` may read. `None` elsewhere, where `is-violated` is no function.
    preferences: Option<Vec<CompactString>>,
    /// Whether the formula about to be walked may be a preference: the top of an action's
    /// precondition or of a durative action's `at start` / `at end` condition, or a part of
    /// a conjunction there.
    preference_here: bool,
    /// How deep the walk is inside a durative condition's `forall`s.
    timed_forall: usize,
}

impl<'i, 'a> Walker<'i, 'a> {
    /// The types of a term (borrowed: this runs once per term of every fact and condition).
    fn term_types<'r>(&mut self, term: &Term, scope: &'r Scope<'_>) -> Option<&'r [TypeId]>
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
    fn args(
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

    fn atom(&mut self, atom: &Atom, scope: &Scope<'_>, ground: bool) {
        self.application(
            Table::Predicates,
            &atom.predicate,
            &atom.args,
            atom.span,
            scope,
            ground,
        );
    }

    fn fluent(&mut self, f: &FluentTerm, scope: &Scope<'_>, ground: bool) {
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
    fn application(
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

    fn expr(&mut self, e: &Expr, scope: &Scope<'_>) {
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
    fn is_violated(&mut self, f: &FluentTerm) {
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
    fn constraint<'s>(&mut self, c: &'s Constraint, scope: &mut Scope<'s>, in_preference: bool) {
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

    fn require(&mut self, span: Span, what: &str, needed: &[Requirement]) {
        let d = self
            .index
            .undeclared_requirement(self.file, span, what, needed);
        self.out.extend(d);
    }

    fn formula<'s>(&mut self, f: &'s Formula, scope: &mut Scope<'s>, place: Place) {
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
    fn duration<'s>(&mut self, f: &'s Formula, scope: &mut Scope<'s>) {
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
    fn quantified<'s>(
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

    fn resolve(&mut self, ty: Option<&Type>) -> Vec<TypeId> {
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

    fn effect<'s>(&mut self, e: &'s Effect, scope: &mut Scope<'s>) {
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

    fn timed_formula<'s>(&mut self, f: &'s TimedFormula, scope: &mut Scope<'s>) {
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

    fn timed_effect<'s>(&mut self, e: &'s TimedEffect, scope: &mut Scope<'s>) {
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

fn schema_scope<'s>(index: &TaskIndex<'_>, params: &'s [Typed]) -> Scope<'s> {
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
