//! What the checker knows of a domain and problem: the type table, the declared
//! predicates, functions, actions and objects ([`TaskIndex`]), and the diagnostics found
//! while indexing them (duplicates, undefined types, undeclared requirements).

use compact_str::CompactString;
use rustc_hash::FxHashMap as HashMap;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, FileKind, Severity, nearest};
use crate::requirements::{Requirement, RequirementSet};
use crate::span::Span;

use super::{CheckOptions, OBJECT, TypeId, list_names, plural};

#[derive(Debug)]
pub(super) struct TypeTable {
    pub(super) ids: HashMap<CompactString, TypeId>,
    pub(super) names: Vec<CompactString>,
    /// For each type, itself and all its ancestors (always including `object`).
    pub(super) ancestors: Vec<Vec<TypeId>>,
}

impl TypeTable {
    pub(super) fn id(&self, name: &Name) -> Option<TypeId> {
        get_ignore_case(&self.ids, name.as_str()).copied()
    }

    pub(super) fn is_subtype(&self, sub: TypeId, sup: TypeId) -> bool {
        sup == OBJECT || self.ancestors[sub as usize].contains(&sup)
    }

    /// An empty list stands for a type that is not declared (already reported): it is
    /// compatible with everything, so one undefined type gives one diagnostic.
    pub(super) fn overlaps(&self, a: &[TypeId], b: &[TypeId]) -> bool {
        a.is_empty()
            || b.is_empty()
            || a.iter().any(|&x| {
                b.iter()
                    .any(|&y| self.is_subtype(x, y) || self.is_subtype(y, x))
            })
    }

    pub(super) fn fits(&self, object_types: &[TypeId], param: &[TypeId]) -> bool {
        object_types.is_empty()
            || param.is_empty()
            || object_types
                .iter()
                .any(|&t| param.iter().any(|&p| self.is_subtype(t, p)))
    }

    pub(super) fn describe(&self, types: &[TypeId]) -> String {
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
pub(super) struct Signature<'a> {
    pub(super) name: &'a Name,
    pub(super) params: Vec<(&'a Name, Vec<TypeId>)>,
}

/// A declared action (or durative action) as plan steps see it.
#[derive(Debug)]
pub(super) struct ActionSig<'a> {
    pub(super) name: &'a Name,
    pub(super) params: Vec<(&'a Name, Vec<TypeId>)>,
}

/// An object or constant: where it was declared and its type(s).
#[derive(Debug)]
pub(super) struct ObjectInfo<'a> {
    pub(super) name: &'a Name,
    pub(super) file: FileKind,
    pub(super) types: Vec<TypeId>,
}

/// What the checker knows about a domain (and, once added, a problem): declared types,
/// predicates, functions, actions and objects, keyed by canonical (lowercase) name.
///
/// Build it once and check many plans against it with [`TaskIndex::check_plan`].
#[derive(Debug)]
pub struct TaskIndex<'a> {
    pub(super) types: TypeTable,
    pub(super) predicates: HashMap<CompactString, Signature<'a>>,
    pub(super) functions: HashMap<CompactString, Signature<'a>>,
    pub(super) actions: HashMap<CompactString, ActionSig<'a>>,
    pub(super) objects: HashMap<CompactString, ObjectInfo<'a>>,
    pub(super) requirements: RequirementSet,
    pub(super) typed: bool,
    /// Diagnostics found while building the index (duplicates, undefined types).
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) strict: bool,
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

    pub(super) fn index_types(&mut self, domain: &'a Domain) {
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

    pub(super) fn intern_type(&mut self, name: &Name, parents: &mut Vec<Vec<TypeId>>) -> TypeId {
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
    pub(super) fn resolve_type(&mut self, ty: Option<&Type>, file: FileKind) -> Vec<TypeId> {
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
    pub(super) fn resolve_params(
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

    pub(super) fn index_objects(&mut self, list: &'a [Typed], file: FileKind) {
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

    pub(super) fn index_predicates(&mut self, domain: &'a Domain) {
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

    pub(super) fn index_functions(&mut self, domain: &'a Domain) {
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

    pub(super) fn index_actions(&mut self, domain: &'a Domain) {
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
    pub(super) fn fitting_objects_help(&self, param: &[TypeId]) -> String {
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

    pub(super) fn check_step(&self, step: &PlanStep) -> Option<Diagnostic> {
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
    pub(super) fn undeclared_requirement(
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
