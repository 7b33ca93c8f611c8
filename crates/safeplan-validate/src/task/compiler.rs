//! The translation of a checked domain and problem into a [`Task`]: types and objects
//! interned, atoms laid out (dense or sparse, fluent or static), schemas, axioms, goal,
//! metric and constraints compiled to trees over binding slots.

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};
use safeplan_pddl::ast::{self, CmpOp, Formula};
use safeplan_pddl::{Domain, FileKind, Problem, Span};

use crate::state::{Key, State, StaticSet};

use super::compiled::{
    ActionPreference, Arg, AtomRef, Cond, Durative, Eff, Fast, FluentRef, NumExpr, Object, Pred,
    PredKind, QVar, Rule, Schema, Symbol,
};
use super::stratify::stratify;
use super::{CompileOptions, OBJECT, ObjId, Task, TaskError, TypeId, lookup};

/// The limit on derived-predicate groundings enumerated per rule when computing axioms.
const DERIVED_LIMIT: u128 = 4_000_000;
/// The limit on all dense slots of one kind (fluent atoms, static atoms, numeric values).
const DENSE_TOTAL_LIMIT: u64 = 1 << 27;

/// The predicate or function `name` applied to `given` arguments, given what its lookup
/// `found` (id and arity): refused when it is not declared or takes another number of
/// arguments. The checker reports both; a task compiled [`CompileOptions::already_checked`]
/// without having passed it must still be refused, not laid out with atoms past their
/// predicate's slots.
fn applied(
    found: Option<(u32, usize)>,
    name: &ast::Name,
    given: usize,
    kind: &str,
    file: FileKind,
) -> Result<u32, TaskError> {
    let what = match found {
        Some((id, arity)) if arity == given => return Ok(id),
        Some((_, arity)) => format!(
            "the {kind} `{}` applied to {given} arguments (it takes {arity})",
            name.text
        ),
        None => format!("the undeclared {kind} `{}`", name.text),
    };
    Err(TaskError::Unsupported {
        what,
        file,
        span: name.span,
    })
}

/// The object a ground term names; a variable, or a name that is no object, is refused.
fn ground_object(
    object_ids: &FxHashMap<CompactString, ObjId>,
    t: &ast::Term,
    file: FileKind,
) -> Result<ObjId, TaskError> {
    match t {
        ast::Term::Const(n) => lookup(object_ids, &n.text),
        ast::Term::Var(_) => None,
    }
    .ok_or_else(|| unbound(t, file))
}

fn unbound(t: &ast::Term, file: FileKind) -> TaskError {
    TaskError::Unsupported {
        what: format!("the unbound name `{}`", t.name().text),
        file,
        span: t.span(),
    }
}

/// Variables in scope while compiling one schema: name key → slot and domain.
#[derive(Default)]
pub(crate) struct Scope {
    pub(crate) vars: Vec<(CompactString, u16, u32)>,
    pub(crate) max: usize,
}

impl Scope {
    fn find(&self, name: &ast::Name) -> Option<(u16, u32)> {
        let key = name.key();
        self.vars
            .iter()
            .rev()
            .find(|(k, _, _)| *k == key)
            .map(|&(_, s, d)| (s, d))
    }

    fn push(&mut self, name: &ast::Name, domain: u32) -> u16 {
        let slot = self.vars.len() as u16;
        self.vars.push((name.key(), slot, domain));
        self.max = self.max.max(self.vars.len());
        slot
    }
}

pub(crate) struct Compiler<'a> {
    pub(crate) domain: &'a Domain,
    pub(crate) problem: &'a Problem,
    options: &'a CompileOptions,
    type_ids: FxHashMap<CompactString, TypeId>,
    type_names: Vec<CompactString>,
    parents: Vec<Vec<TypeId>>,
    ancestors: Vec<Vec<TypeId>>,
    objects: Vec<Object>,
    object_ids: FxHashMap<CompactString, ObjId>,
    pub(crate) domains: Vec<Vec<ObjId>>,
    domain_types: Vec<Vec<TypeId>>,
    domain_ids: FxHashMap<Vec<TypeId>, u32>,
    pred_ids: FxHashMap<CompactString, u32>,
    /// The arity of each predicate, by id (filled once the predicates are laid out).
    pred_arities: Vec<usize>,
    func_ids: FxHashMap<CompactString, u32>,
    /// Compiling a durative action: `?duration` may be read.
    allow_duration: bool,
    /// Set when `?duration` was read (reset per durative action).
    read_duration: std::cell::Cell<bool>,
    /// While compiling the metric: the preference names `(is-violated NAME)` may read.
    preference_names: Vec<CompactString>,
    /// The names of the actions' precondition preferences, as first written; an
    /// [`ActionPreference::name`] indexes here until the task's names are known.
    action_preference_names: Vec<CompactString>,
    /// While a durative action's conditions compile: its `at start` / `at end` preferences.
    timed_preferences: Option<Vec<ActionPreference>>,
}

impl<'a> Compiler<'a> {
    pub(super) fn new(
        domain: &'a Domain,
        problem: &'a Problem,
        options: &'a CompileOptions,
    ) -> Self {
        Compiler {
            domain,
            problem,
            options,
            type_ids: FxHashMap::from_iter([(CompactString::const_new("object"), OBJECT)]),
            type_names: vec![CompactString::const_new("object")],
            parents: vec![Vec::new()],
            ancestors: Vec::new(),
            objects: Vec::new(),
            object_ids: FxHashMap::default(),
            domains: Vec::new(),
            domain_types: Vec::new(),
            domain_ids: FxHashMap::default(),
            pred_ids: FxHashMap::default(),
            pred_arities: Vec::new(),
            func_ids: FxHashMap::default(),
            allow_duration: false,
            read_duration: std::cell::Cell::new(false),
            preference_names: Vec::new(),
            action_preference_names: Vec::new(),
            timed_preferences: None,
        }
    }

    pub(super) fn run(mut self) -> Result<Task, TaskError> {
        self.types();
        self.add_objects(&self.domain.constants, true);
        self.add_objects(&self.problem.objects, false);
        let n_objects = self.objects.len() as u64;

        // Which predicates do actions change? The rest are static (or derived).
        let mut changed = vec![false; self.domain.predicates.len()];
        for (i, p) in self.domain.predicates.iter().enumerate() {
            self.pred_ids.entry(p.name.key()).or_insert(i as u32);
        }
        for a in &self.domain.actions {
            if let Some(e) = &a.effect {
                mark_changed(e, &self.pred_ids, &mut changed);
            }
        }
        for a in &self.domain.durative_actions {
            if let Some(e) = &a.effect {
                mark_changed_timed(e, &self.pred_ids, &mut changed);
            }
        }
        let derived_keys: Vec<CompactString> = self
            .domain
            .derived
            .iter()
            .map(|d| d.head.name.key())
            .collect();
        let mut totals = [0u64; 3];
        let mut preds = Vec::with_capacity(self.domain.predicates.len());
        for (i, p) in self.domain.predicates.iter().enumerate() {
            let kind = if derived_keys.contains(&p.name.key()) {
                PredKind::Derived
            } else if changed[i] || !self.options.static_facts {
                PredKind::Fluent
            } else {
                PredKind::Static
            };
            let total = &mut totals[kind as usize];
            let base = self.dense_base(n_objects, p.params.len(), total);
            preds.push(Pred {
                sym: Symbol {
                    name: p.name.text.clone(),
                    arity: p.params.len(),
                    base,
                },
                kind,
            });
        }
        // Derived predicates declared only by their `:derived` head.
        for d in &self.domain.derived {
            if !self.pred_ids.contains_key(&d.head.name.key()) {
                let total = &mut totals[PredKind::Derived as usize];
                let base = self.dense_base(n_objects, d.head.params.len(), total);
                self.pred_ids.insert(d.head.name.key(), preds.len() as u32);
                preds.push(Pred {
                    sym: Symbol {
                        name: d.head.name.text.clone(),
                        arity: d.head.params.len(),
                        base,
                    },
                    kind: PredKind::Derived,
                });
            }
        }
        self.pred_arities = preds.iter().map(|p| p.sym.arity).collect();
        let mut value_total = 0u64;
        let mut funcs = Vec::with_capacity(self.domain.functions.len());
        for (i, f) in self.domain.functions.iter().enumerate() {
            self.func_ids.entry(f.name.key()).or_insert(i as u32);
            let base = self.dense_base(n_objects, f.params.len(), &mut value_total);
            funcs.push(Symbol {
                name: f.name.text.clone(),
                arity: f.params.len(),
                base,
            });
        }

        let mut schemas = Vec::with_capacity(self.domain.actions.len());
        let mut schema_ids = FxHashMap::default();
        for a in &self.domain.actions {
            let schema = self.schema(a)?;
            schema_ids
                .entry(a.name.key())
                .or_insert(schemas.len() as u32);
            schemas.push(schema);
        }
        for a in &self.domain.durative_actions {
            let schema = self.durative_schema(a)?;
            schema_ids
                .entry(a.name.key())
                .or_insert(schemas.len() as u32);
            schemas.push(schema);
        }
        for schema in &schemas {
            let end = schema.durative.as_ref().map(|d| &d.end_effects[..]);
            for e in schema.effects.iter().chain(end.into_iter().flatten()) {
                if let Some(span) = effect_on_derived(e, &preds) {
                    return Err(TaskError::Unsupported {
                        what: format!(
                            "an effect of `{}` on a derived predicate (axioms define them; actions cannot set them)",
                            schema.name
                        ),
                        file: FileKind::Domain,
                        span,
                    });
                }
            }
        }
        // The fast path executes a step whole; a step with preferences must count them.
        for schema in schemas
            .iter_mut()
            .filter(|s| s.durative.is_none() && s.preferences.is_empty())
        {
            schema.fast = Fast::build(&preds, &schema.pre, &schema.effects);
        }
        let mut rules = Vec::with_capacity(self.domain.derived.len());
        for d in &self.domain.derived {
            rules.push(self.rule(d)?);
        }
        let strata = stratify(&mut rules, &preds, self.domain)?;

        let goal_formula = self.problem.goal.as_ref();
        let goal_span = goal_formula.map_or(self.problem.name.span, Formula::span);
        let goal = match goal_formula {
            Some(f) => self.cond(f, &mut Scope::default(), FileKind::Problem)?,
            None => Cond::True,
        };
        let mut constraints = self.constraints()?;
        // The actions' preference names join the task's (one `is-violated` per name).
        let names: Vec<u32> = self
            .action_preference_names
            .iter()
            .map(|n| {
                match constraints
                    .preferences
                    .iter()
                    .position(|p| p.eq_ignore_ascii_case(n))
                {
                    Some(i) => i as u32,
                    None => {
                        constraints.preferences.push(n.clone());
                        (constraints.preferences.len() - 1) as u32
                    }
                }
            })
            .collect();
        for p in schemas.iter_mut().flat_map(|s| s.preferences.iter_mut()) {
            p.name = p.name.map(|i| names[i as usize]);
        }
        constraints.action_preferences = schemas.iter().any(|s| !s.preferences.is_empty());
        self.preference_names = constraints.preferences.clone();
        let metric = match &self.problem.metric {
            Some(m) => Some((
                m.optimization,
                self.num(&m.expr, &Scope::default(), FileKind::Problem)?,
            )),
            None => None,
        };
        self.preference_names.clear();

        let domain_bits: Vec<Vec<u64>> = self
            .domains
            .iter()
            .map(|members| {
                let mut bits = vec![0u64; (n_objects as usize).div_ceil(64)];
                for &o in members {
                    bits[o as usize / 64] |= 1 << (o % 64);
                }
                bits
            })
            .collect();
        let mut task = Task {
            domain_name: self.domain.name.text.clone(),
            problem_name: self.problem.name.text.clone(),
            objects: self.objects,
            object_ids: self.object_ids,
            type_names: self.type_names,
            domains: self.domains,
            domain_bits,
            domain_types: self.domain_types,
            preds,
            funcs,
            schemas,
            schema_ids,
            rules,
            strata,
            statics: StaticSet::default(),
            init: State::empty(
                totals[PredKind::Fluent as usize],
                totals[PredKind::Derived as usize],
                value_total,
            ),
            goal_slots: goal.max_slot(),
            goal,
            goal_span,
            metric,
            constraints,
            n_objects,
            slack: self.options.numeric_slack,
            typed: !self.domain.types.is_empty(),
            temporal: !self.domain.durative_actions.is_empty(),
        };
        let mut args: Vec<ObjId> = Vec::new();
        let mut static_dense: Vec<u64> = Vec::new();
        let mut static_sparse = FxHashSet::default();
        for entry in &self.problem.init {
            match entry {
                ast::InitEntry::Atom(atom) => {
                    let found = lookup(&self.pred_ids, &atom.predicate.text)
                        .map(|p| (p, task.preds[p as usize].sym.arity));
                    let file = FileKind::Problem;
                    let pred = applied(found, &atom.predicate, atom.args.len(), "predicate", file)?;
                    // One buffer for every fact: a large problem has hundreds of thousands.
                    args.clear();
                    for t in &atom.args {
                        args.push(ground_object(&task.object_ids, t, file)?);
                    }
                    match task.preds[pred as usize].kind {
                        PredKind::Static => match task.atom_key(pred, &args) {
                            Key::Dense(i) => static_dense.push(i),
                            Key::Sparse(k) => {
                                static_sparse.insert(k);
                            }
                        },
                        PredKind::Fluent => {
                            let key = task.atom_key(pred, &args);
                            task.init.atoms.insert(key);
                        }
                        // Axioms define derived atoms; an init fact for one is ignored, as
                        // Fast Downward's translator does.
                        PredKind::Derived => {}
                    }
                }
                ast::InitEntry::Not(..) => {} // closed world: absent means false
                ast::InitEntry::Assign(f, value, _) => {
                    let found = lookup(&self.func_ids, &f.function.text)
                        .map(|i| (i, task.funcs[i as usize].arity));
                    let file = FileKind::Problem;
                    let func = applied(found, &f.function, f.args.len(), "function", file)?;
                    args.clear();
                    for t in &f.args {
                        args.push(ground_object(&task.object_ids, t, file)?);
                    }
                    let key = task.value_key(func, &args);
                    task.init.set_value(&key, *value);
                }
            }
        }
        task.statics = StaticSet::new(
            totals[PredKind::Static as usize],
            &static_dense,
            static_sparse,
        );
        let mut init = std::mem::take(&mut task.init);
        task.derive(&mut init);
        task.init = init;
        Ok(task)
    }

    fn dense_base(&self, n: u64, arity: usize, total: &mut u64) -> Option<u64> {
        let size = (0..arity).try_fold(1u64, |acc, _| acc.checked_mul(n))?;
        if size > self.options.dense_limit || total.saturating_add(size) > DENSE_TOTAL_LIMIT {
            return None;
        }
        let base = *total;
        *total += size;
        Some(base)
    }

    fn types(&mut self) {
        for entry in &self.domain.types {
            let child = self.intern_type(&entry.name);
            if let Some(ty) = &entry.ty {
                for parent in ty.names() {
                    let p = self.intern_type(parent);
                    if p != child && !self.parents[child as usize].contains(&p) {
                        self.parents[child as usize].push(p);
                    }
                }
            }
        }
        let n = self.type_names.len();
        self.ancestors = (0..n)
            .map(|t| {
                let mut seen = vec![false; n];
                let mut out = Vec::new();
                let mut stack = vec![t as TypeId];
                while let Some(x) = stack.pop() {
                    if std::mem::replace(&mut seen[x as usize], true) {
                        continue;
                    }
                    out.push(x);
                    stack.extend(&self.parents[x as usize]);
                }
                if !out.contains(&OBJECT) {
                    out.push(OBJECT);
                }
                out
            })
            .collect();
    }

    fn intern_type(&mut self, name: &ast::Name) -> TypeId {
        let key = name.key();
        if let Some(&id) = self.type_ids.get(&key) {
            return id;
        }
        let id = self.type_names.len() as TypeId;
        self.type_ids.insert(key, id);
        self.type_names.push(name.text.clone());
        self.parents.push(Vec::new());
        id
    }

    fn resolve_type(&self, ty: Option<&ast::Type>) -> Vec<TypeId> {
        let mut out: Vec<TypeId> = match ty {
            None => vec![OBJECT],
            Some(ty) => ty
                .names()
                .iter()
                .filter_map(|n| lookup(&self.type_ids, &n.text))
                .collect(),
        };
        if out.is_empty() {
            out.push(OBJECT);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn add_objects(&mut self, list: &[ast::Typed], constant: bool) {
        // Room for all at once: growing a map of thousands of objects rehashes it into
        // fresh pages at every doubling.
        self.object_ids.reserve(list.len());
        self.objects.reserve(list.len());
        for entry in list {
            let types = self.resolve_type(entry.ty.as_ref());
            let key = entry.name.key();
            if self.object_ids.contains_key(&key) {
                continue; // a repeated declaration with the same type (the checker warned)
            }
            self.object_ids.insert(key, self.objects.len() as ObjId);
            self.objects.push(Object {
                name: entry.name.text.clone(),
                constant,
                types,
            });
        }
    }

    /// The id of the object list for a parameter of this type, built on first use.
    fn domain_of(&mut self, ty: Option<&ast::Type>) -> u32 {
        let types = self.resolve_type(ty);
        if let Some(&id) = self.domain_ids.get(&types) {
            return id;
        }
        let members: Vec<ObjId> = (0..self.objects.len() as ObjId)
            .filter(|&o| {
                self.objects[o as usize].types.iter().any(|&t| {
                    types
                        .iter()
                        .any(|&p| p == OBJECT || self.ancestors[t as usize].contains(&p))
                })
            })
            .collect();
        let id = self.domains.len() as u32;
        self.domains.push(members);
        self.domain_types.push(types.clone());
        self.domain_ids.insert(types, id);
        id
    }

    /// Parameters in slots `0..n` of a new scope, with the objects each ranges over.
    fn params(&mut self, list: &[ast::Typed]) -> (Scope, Vec<(CompactString, u32)>) {
        let mut scope = Scope::default();
        let mut params = Vec::with_capacity(list.len());
        for p in list {
            let d = self.domain_of(p.ty.as_ref());
            scope.push(&p.name, d);
            params.push((p.name.text.clone(), d));
        }
        (scope, params)
    }

    fn schema(&mut self, a: &ast::Action) -> Result<Schema, TaskError> {
        let (mut scope, params) = self.params(&a.params);
        let mut preferences = Vec::new();
        let pre = match &a.precondition {
            Some(f) if has_preference(f) => {
                let mut found = Vec::new();
                let hard = split_preferences(f, &mut found);
                for (name, body, span) in found {
                    preferences.push(self.action_preference(name, body, span, false, &mut scope)?);
                }
                self.cond(&hard, &mut scope, FileKind::Domain)?
            }
            Some(f) => self.cond(f, &mut scope, FileKind::Domain)?,
            None => Cond::True,
        };
        let mut effects = Vec::new();
        if let Some(e) = &a.effect {
            self.effect(e, &mut scope, &mut effects)?;
        }
        Ok(Schema {
            name: a.name.text.clone(),
            params,
            pre,
            pre_span: a.precondition.as_ref().map_or(a.name.span, Formula::span),
            effects,
            slots: scope.max,
            fast: None,
            durative: None,
            preferences,
        })
    }

    /// A preference of an action's precondition (or a durative action's condition at one
    /// end), its name recorded among the actions' preference names.
    fn action_preference(
        &mut self,
        name: Option<&ast::Name>,
        body: &Formula,
        span: Span,
        at_end: bool,
        scope: &mut Scope,
    ) -> Result<ActionPreference, TaskError> {
        let name = name.map(|n| {
            let names = &mut self.action_preference_names;
            match names.iter().position(|p| n.matches(p)) {
                Some(i) => i as u32,
                None => {
                    names.push(n.text.clone());
                    (names.len() - 1) as u32
                }
            }
        });
        let cond = self.cond(body, scope, FileKind::Domain)?;
        Ok(ActionPreference {
            name,
            cond,
            span,
            at_end,
        })
    }

    /// A durative action: its `at start` part as the schema's precondition and effects, the
    /// rest in [`Durative`]. Conditions and effects are projected onto each time point;
    /// `forall` and `and` distribute over the projection.
    fn durative_schema(&mut self, a: &ast::DurativeAction) -> Result<Schema, TaskError> {
        let (mut scope, params) = self.params(&a.params);
        self.allow_duration = true;
        self.timed_preferences = Some(Vec::new());
        let built = self.durative_parts(a, &mut scope);
        self.allow_duration = false;
        let preferences = self.timed_preferences.take().unwrap_or_default();
        let (pre, effects, durative) = built?;
        Ok(Schema {
            name: a.name.text.clone(),
            params,
            pre,
            pre_span: durative.condition_span,
            effects,
            slots: scope.max,
            fast: None,
            durative: Some(Box::new(durative)),
            preferences,
        })
    }

    fn durative_parts(
        &mut self,
        a: &ast::DurativeAction,
        scope: &mut Scope,
    ) -> Result<(Cond, Vec<Eff>, Durative), TaskError> {
        use ast::TimeSpec::{AtEnd, AtStart, OverAll};
        let mut duration = Vec::new();
        if let Some(f) = &a.duration {
            self.duration_constraints(f, scope, &mut duration)?;
        }
        let mut at = |spec| -> Result<Cond, TaskError> {
            Ok(match &a.condition {
                Some(c) => self.timed_cond(c, spec, scope)?.unwrap_or(Cond::True),
                None => Cond::True,
            })
        };
        let start_pre = at(AtStart)?;
        let over_all = at(OverAll)?;
        let end_pre = at(AtEnd)?;
        let mut start_effects = Vec::new();
        let mut end_effects = Vec::new();
        if let Some(e) = &a.effect {
            self.timed_effect(e, AtStart, scope, &mut start_effects)?;
            self.timed_effect(e, AtEnd, scope, &mut end_effects)?;
        }
        let reads_duration = self.read_duration.replace(false);
        let condition_span = a.condition.as_ref().map_or(a.name.span, timed_formula_span);
        Ok((
            start_pre,
            start_effects,
            Durative {
                duration,
                duration_span: a.duration.as_ref().map_or(a.name.span, Formula::span),
                over_all,
                end_pre,
                condition_span,
                end_effects,
                reads_duration,
            },
        ))
    }

    /// `(= ?duration e)`, `(<= ?duration e)`, `(>= ?duration e)` and conjunctions of them
    /// (either side may be `?duration`).
    fn duration_constraints(
        &mut self,
        f: &Formula,
        scope: &mut Scope,
        out: &mut Vec<(CmpOp, NumExpr)>,
    ) -> Result<(), TaskError> {
        let is_duration = |e: &ast::Expr| matches!(e, ast::Expr::Var(n) if n.matches("duration"));
        match f {
            Formula::And(parts, _) => {
                for p in parts {
                    self.duration_constraints(p, scope, out)?;
                }
                Ok(())
            }
            Formula::Compare(op, l, r, _) if is_duration(l) => {
                out.push((*op, self.num(r, scope, FileKind::Domain)?));
                Ok(())
            }
            Formula::Compare(op, l, r, _) if is_duration(r) => {
                let flipped = match op {
                    CmpOp::Lt => CmpOp::Gt,
                    CmpOp::Le => CmpOp::Ge,
                    CmpOp::Eq => CmpOp::Eq,
                    CmpOp::Ge => CmpOp::Le,
                    CmpOp::Gt => CmpOp::Lt,
                };
                out.push((flipped, self.num(l, scope, FileKind::Domain)?));
                Ok(())
            }
            other => Err(TaskError::Unsupported {
                what: "a duration constraint that is not `(OP ?duration expression)` or a \
                       conjunction of them"
                    .into(),
                file: FileKind::Domain,
                span: other.span(),
            }),
        }
    }

    /// The part of a timed condition that applies at `spec`, `None` when nothing does.
    fn timed_cond(
        &mut self,
        f: &ast::TimedFormula,
        spec: ast::TimeSpec,
        scope: &mut Scope,
    ) -> Result<Option<Cond>, TaskError> {
        Ok(match f {
            ast::TimedFormula::And(parts, _) => {
                let mut out = Vec::new();
                for p in parts {
                    if let Some(c) = self.timed_cond(p, spec, scope)? {
                        out.push(c);
                    }
                }
                match out.len() {
                    0 => None,
                    1 => out.pop(),
                    _ => Some(Cond::And(out)),
                }
            }
            ast::TimedFormula::Forall(vars, body, span) => {
                let depth = scope.vars.len();
                let qvars = self.quantified(vars, scope);
                // A preference under a quantifier is not read (the compiler refuses it).
                let sink = self.timed_preferences.take();
                let body = self.timed_cond(body, spec, scope);
                self.timed_preferences = sink;
                scope.vars.truncate(depth);
                body?.map(|body| Cond::Quant {
                    forall: true,
                    vars: qvars,
                    body: Box::new(body),
                    span: *span,
                })
            }
            ast::TimedFormula::At(s, f, _)
                if *s == spec && has_preference(f) && self.timed_preferences.is_some() =>
            {
                if spec == ast::TimeSpec::OverAll {
                    return Err(TaskError::Unsupported {
                        what: "a preference in an `over all` condition (safeplan counts \
                               preferences at a durative action's start and end)"
                            .into(),
                        file: FileKind::Domain,
                        span: f.span(),
                    });
                }
                let mut found = Vec::new();
                let hard = split_preferences(f, &mut found);
                let at_end = spec == ast::TimeSpec::AtEnd;
                for (name, body, span) in found {
                    let p = self.action_preference(name, body, span, at_end, scope)?;
                    if let Some(sink) = self.timed_preferences.as_mut() {
                        sink.push(p);
                    }
                }
                Some(self.cond(&hard, scope, FileKind::Domain)?)
            }
            ast::TimedFormula::At(s, f, _) if *s == spec => {
                Some(self.cond(f, scope, FileKind::Domain)?)
            }
            ast::TimedFormula::At(..) => None,
        })
    }

    /// The effects of a timed effect that happen at `spec`.
    fn timed_effect(
        &mut self,
        e: &ast::TimedEffect,
        spec: ast::TimeSpec,
        scope: &mut Scope,
        out: &mut Vec<Eff>,
    ) -> Result<(), TaskError> {
        match e {
            ast::TimedEffect::And(parts, _) => {
                for p in parts {
                    self.timed_effect(p, spec, scope, out)?;
                }
            }
            ast::TimedEffect::Forall(vars, body, _) => {
                let depth = scope.vars.len();
                let qvars = self.quantified(vars, scope);
                let mut inner = Vec::new();
                let r = self.timed_effect(body, spec, scope, &mut inner);
                scope.vars.truncate(depth);
                r?;
                if !inner.is_empty() {
                    out.push(Eff::Forall {
                        vars: qvars,
                        body: inner,
                    });
                }
            }
            ast::TimedEffect::When(c, body, span) => {
                let mut inner = Vec::new();
                self.timed_effect(body, spec, scope, &mut inner)?;
                if inner.is_empty() {
                    return Ok(());
                }
                // VAL's conditional effects that span the interval (a condition at start,
                // an effect at end) need state carried between the two points; only
                // conditions at the effect's own time point are executed here.
                let specs = [
                    ast::TimeSpec::AtStart,
                    ast::TimeSpec::OverAll,
                    ast::TimeSpec::AtEnd,
                ];
                for other in specs.into_iter().filter(|&o| o != spec) {
                    if self.timed_cond(c, other, scope)?.is_some() {
                        return Err(TaskError::Unsupported {
                            what: "a conditional effect whose condition is at another time \
                                   point than its effect"
                                .into(),
                            file: FileKind::Domain,
                            span: *span,
                        });
                    }
                }
                let cond = self.timed_cond(c, spec, scope)?.unwrap_or(Cond::True);
                out.push(Eff::When { cond, body: inner });
            }
            ast::TimedEffect::At(s, eff, _) if *s == spec => self.effect(eff, scope, out)?,
            ast::TimedEffect::At(..) => {}
        }
        Ok(())
    }

    fn rule(&mut self, d: &ast::Derived) -> Result<Rule, TaskError> {
        let mut scope = Scope::default();
        let mut params = Vec::new();
        let mut groundings: u128 = 1;
        for p in &d.head.params {
            let dom = self.domain_of(p.ty.as_ref());
            groundings = groundings.saturating_mul(self.domains[dom as usize].len() as u128);
            scope.push(&p.name, dom);
            params.push(dom);
        }
        if groundings > DERIVED_LIMIT {
            return Err(TaskError::TooLarge {
                predicate: d.head.name.text.to_string(),
                groundings,
                limit: DERIVED_LIMIT,
            });
        }
        let body = self.cond(&d.body, &mut scope, FileKind::Domain)?;
        let head = lookup(&self.pred_ids, &d.head.name.text).unwrap_or(0);
        Ok(Rule {
            head,
            params,
            body,
            slots: scope.max,
            stratum: 0,
        })
    }

    fn arg(&self, t: &ast::Term, scope: &Scope, file: FileKind) -> Result<Arg, TaskError> {
        match t {
            ast::Term::Var(n) => scope
                .find(n)
                .map(|(s, _)| Arg::Slot(s))
                .ok_or_else(|| unbound(t, file)),
            ast::Term::Const(_) => ground_object(&self.object_ids, t, file).map(Arg::Obj),
        }
    }

    fn args(
        &self,
        ts: &[ast::Term],
        scope: &Scope,
        file: FileKind,
    ) -> Result<Box<[Arg]>, TaskError> {
        ts.iter().map(|t| self.arg(t, scope, file)).collect()
    }

    fn atom(&self, a: &ast::Atom, scope: &Scope, file: FileKind) -> Result<AtomRef, TaskError> {
        let found = lookup(&self.pred_ids, &a.predicate.text)
            .and_then(|p| Some((p, *self.pred_arities.get(p as usize)?)));
        let pred = applied(found, &a.predicate, a.args.len(), "predicate", file)?;
        Ok(AtomRef {
            pred,
            args: self.args(&a.args, scope, file)?,
            span: a.span,
        })
    }

    fn fluent(
        &self,
        f: &ast::FluentTerm,
        scope: &Scope,
        file: FileKind,
    ) -> Result<FluentRef, TaskError> {
        let found = lookup(&self.func_ids, &f.function.text)
            .and_then(|i| Some((i, self.domain.functions.get(i as usize)?.params.len())));
        let func = applied(found, &f.function, f.args.len(), "function", file)?;
        Ok(FluentRef {
            func,
            args: self.args(&f.args, scope, file)?,
        })
    }

    pub(crate) fn quantified(&mut self, vars: &[ast::Typed], scope: &mut Scope) -> Vec<QVar> {
        vars.iter()
            .map(|v| {
                let domain = self.domain_of(v.ty.as_ref());
                QVar {
                    slot: scope.push(&v.name, domain),
                    name: v.name.text.clone(),
                    domain,
                }
            })
            .collect()
    }

    pub(crate) fn cond(
        &mut self,
        f: &Formula,
        scope: &mut Scope,
        file: FileKind,
    ) -> Result<Cond, TaskError> {
        Ok(match f {
            Formula::Preference(_, _, span) => {
                return Err(TaskError::Unsupported {
                    what: "a preference here (preferences are read at the top of an action's \
                           `:precondition` or under its `and`, at the top of a problem's `:goal` \
                           and in `:constraints`; not inside `or`, `not`, a quantifier or a \
                           durative action's condition)"
                        .into(),
                    file,
                    span: *span,
                });
            }
            Formula::Atom(a) => Cond::Atom(self.atom(a, scope, file)?),
            Formula::Equals(a, b, span) => {
                Cond::Eq(self.arg(a, scope, file)?, self.arg(b, scope, file)?, *span)
            }
            Formula::Not(inner, span) => Cond::Not(Box::new(self.cond(inner, scope, file)?), *span),
            Formula::And(parts, _) => Cond::And(
                parts
                    .iter()
                    .map(|p| self.cond(p, scope, file))
                    .collect::<Result<_, _>>()?,
            ),
            Formula::Or(parts, span) => Cond::Or(
                parts
                    .iter()
                    .map(|p| self.cond(p, scope, file))
                    .collect::<Result<_, _>>()?,
                *span,
            ),
            Formula::Imply(a, b, _) => Cond::Imply(
                Box::new(self.cond(a, scope, file)?),
                Box::new(self.cond(b, scope, file)?),
            ),
            Formula::Exists(vars, body, span) | Formula::Forall(vars, body, span) => {
                let depth = scope.vars.len();
                let qvars = self.quantified(vars, scope);
                let body = self.cond(body, scope, file);
                scope.vars.truncate(depth);
                Cond::Quant {
                    forall: matches!(f, Formula::Forall(..)),
                    vars: qvars,
                    body: Box::new(body?),
                    span: *span,
                }
            }
            Formula::Compare(op, a, b, span) => Cond::Compare(
                *op,
                self.num(a, scope, file)?,
                self.num(b, scope, file)?,
                *span,
            ),
        })
    }

    fn num(&self, e: &ast::Expr, scope: &Scope, file: FileKind) -> Result<NumExpr, TaskError> {
        Ok(match e {
            ast::Expr::Number(x, _) => NumExpr::Const(*x),
            ast::Expr::Fluent(f)
                if f.args.is_empty()
                    && f.function.matches("total-time")
                    && lookup(&self.func_ids, "total-time").is_none() =>
            {
                NumExpr::TotalTime
            }
            ast::Expr::Fluent(f)
                if f.function.matches("is-violated")
                    && lookup(&self.func_ids, "is-violated").is_none() =>
            {
                let found = match f.args.as_slice() {
                    [ast::Term::Const(n)] => {
                        self.preference_names.iter().position(|p| n.matches(p))
                    }
                    _ => None,
                };
                match found {
                    Some(i) => NumExpr::IsViolated(i as u32),
                    None => {
                        return Err(TaskError::Unsupported {
                            what: "`is-violated` of something that is no preference of the task \
                                   (it is read only in the metric)"
                                .into(),
                            file,
                            span: f.span,
                        });
                    }
                }
            }
            ast::Expr::Fluent(f) => NumExpr::Fluent(self.fluent(f, scope, file)?),
            ast::Expr::Arith(op, args, _) => NumExpr::Arith(
                *op,
                args.iter()
                    .map(|a| self.num(a, scope, file))
                    .collect::<Result<_, _>>()?,
            ),
            ast::Expr::Var(n) if self.allow_duration && n.matches("duration") => {
                self.read_duration.set(true);
                NumExpr::Duration
            }
            ast::Expr::Var(n) => {
                return Err(TaskError::Unsupported {
                    what: format!("the variable `?{}` used as a number", n.text),
                    file,
                    span: n.span,
                });
            }
        })
    }

    fn effect(
        &mut self,
        e: &ast::Effect,
        scope: &mut Scope,
        out: &mut Vec<Eff>,
    ) -> Result<(), TaskError> {
        let file = FileKind::Domain;
        match e {
            ast::Effect::And(parts, _) => {
                for p in parts {
                    self.effect(p, scope, out)?;
                }
            }
            ast::Effect::Forall(vars, body, _) => {
                let depth = scope.vars.len();
                let qvars = self.quantified(vars, scope);
                let mut inner = Vec::new();
                let r = self.effect(body, scope, &mut inner);
                scope.vars.truncate(depth);
                r?;
                out.push(Eff::Forall {
                    vars: qvars,
                    body: inner,
                });
            }
            ast::Effect::When(c, body, _) => {
                let cond = self.cond(c, scope, file)?;
                let mut inner = Vec::new();
                self.effect(body, scope, &mut inner)?;
                out.push(Eff::When { cond, body: inner });
            }
            ast::Effect::Add(a) => out.push(Eff::Add(self.atom(a, scope, file)?)),
            ast::Effect::Delete(a, _) => out.push(Eff::Del(self.atom(a, scope, file)?)),
            ast::Effect::Numeric(op, target, value, span) => out.push(Eff::Num {
                op: *op,
                target: self.fluent(target, scope, file)?,
                value: self.num(value, scope, file)?,
                span: *span,
            }),
        }
        Ok(())
    }
}

fn mark_changed_timed(
    e: &ast::TimedEffect,
    ids: &FxHashMap<CompactString, u32>,
    changed: &mut [bool],
) {
    match e {
        ast::TimedEffect::And(parts, _) => {
            for p in parts {
                mark_changed_timed(p, ids, changed);
            }
        }
        ast::TimedEffect::Forall(_, body, _) | ast::TimedEffect::When(_, body, _) => {
            mark_changed_timed(body, ids, changed)
        }
        ast::TimedEffect::At(_, e, _) => mark_changed(e, ids, changed),
    }
}

fn timed_formula_span(f: &ast::TimedFormula) -> Span {
    match f {
        ast::TimedFormula::And(_, s)
        | ast::TimedFormula::Forall(_, _, s)
        | ast::TimedFormula::At(_, _, s) => *s,
    }
}

fn mark_changed(e: &ast::Effect, ids: &FxHashMap<CompactString, u32>, changed: &mut [bool]) {
    match e {
        ast::Effect::And(parts, _) => parts.iter().for_each(|p| mark_changed(p, ids, changed)),
        ast::Effect::Forall(_, body, _) | ast::Effect::When(_, body, _) => {
            mark_changed(body, ids, changed)
        }
        ast::Effect::Add(a) | ast::Effect::Delete(a, _) => {
            if let Some(c) =
                lookup(ids, &a.predicate.text).and_then(|i| changed.get_mut(i as usize))
            {
                *c = true;
            }
        }
        ast::Effect::Numeric(..) => {}
    }
}

fn effect_on_derived(e: &Eff, preds: &[Pred]) -> Option<Span> {
    match e {
        Eff::Add(a) | Eff::Del(a) => {
            (preds[a.pred as usize].kind == PredKind::Derived).then_some(a.span)
        }
        Eff::When { body, .. } | Eff::Forall { body, .. } => {
            body.iter().find_map(|e| effect_on_derived(e, preds))
        }
        Eff::Num { .. } => None,
    }
}

/// Whether `f` holds a `(preference ...)` anywhere.
fn has_preference(f: &Formula) -> bool {
    match f {
        Formula::Preference(..) => true,
        Formula::And(parts, _) | Formula::Or(parts, _) => parts.iter().any(has_preference),
        Formula::Not(g, _) | Formula::Exists(_, g, _) | Formula::Forall(_, g, _) => {
            has_preference(g)
        }
        Formula::Imply(a, b, _) => has_preference(a) || has_preference(b),
        Formula::Atom(_) | Formula::Equals(..) | Formula::Compare(..) => false,
    }
}

/// A precondition without the preferences at its top or under its `and`s (each replaced by
/// the empty conjunction), which go to `found`. A preference anywhere else stays, for
/// [`Compiler::cond`] to refuse with its place.
fn split_preferences<'f>(
    f: &'f Formula,
    found: &mut Vec<(Option<&'f ast::Name>, &'f Formula, Span)>,
) -> Formula {
    match f {
        Formula::Preference(name, body, span) => {
            found.push((name.as_ref(), body, *span));
            Formula::And(Vec::new(), *span)
        }
        Formula::And(parts, span) => Formula::And(
            parts.iter().map(|p| split_preferences(p, found)).collect(),
            *span,
        ),
        other => other.clone(),
    }
}
