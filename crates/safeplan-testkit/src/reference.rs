//! A deliberately simple reference interpreter for sequential PDDL plans.
//!
//! It walks the AST of `safeplan-pddl` directly: no grounding, no interning, no bitsets. A
//! state is a set of true ground atoms and a map of defined numeric fluents, every name
//! ASCII-lowercased. It exists to be obviously right (see `reference_ipc.rs`, which proves it
//! against VAL's verdicts on the IPC corpus) so that the real engine can be tested against it
//! on random tasks (`differential.rs`). Clarity wins over speed everywhere; the only concession
//! is that atoms are looked up in the state set, never found by scanning it.
//!
//! # Semantics (docs/SEMANTICS.md section 2, VAL's numbers)
//!
//! - Objects are the problem's objects and the domain's constants; an object declared twice
//!   has all the types it was declared with. Types follow `:types` (`object` is the root, a
//!   type may have several parents, `(either a b)` admits either). Quantifiers and `forall`
//!   effects range over every object whose type is a subtype of the variable's type.
//! - A formula that reads an undefined fluent (or divides by zero, ...) has no truth value
//!   of its own, and connectives follow three-valued (Kleene) logic: a conjunction with a
//!   false part is false and a disjunction with a true part is true whatever the other parts
//!   give (`forall` and `exists` likewise over their instances); otherwise an unknown part
//!   makes the whole unknown, which is a numeric error. So the verdict never depends on the
//!   order in which an implementation evaluates parts or instances. Where VAL's own
//!   short-circuit evaluation (which tries simple atoms before comparisons in a conjunction,
//!   then goes left to right) gives a value, this gives the same value; where VAL stops with
//!   an error, this may still find the formula false (or true).
//! - Numeric comparisons allow VAL's absolute slack of 0.0001 (`>` holds when `a - b >
//!   -0.0001`, `=` when `|a - b| < 0.0001`, ...). Reading an undefined fluent, dividing by
//!   zero, or an arithmetic result that is not finite is a numeric error.
//! - Effects are computed against the state before the step (conditions of `when` and
//!   right-hand sides of numeric effects read it), then deletes are applied before adds (an
//!   atom both deleted and added ends true). `increase`/`decrease`/`scale-up`/`scale-down` of
//!   an undefined fluent start from 0. Per fluent and step: several `assign`s must agree on the
//!   value; an `assign` together with any other update is an error; several
//!   `increase`/`decrease` add up (applied in effect order); several `scale-up`/`scale-down`
//!   multiply up; additive and multiplicative updates together are an error (PDDL leaves their
//!   order open).
//! - Derived predicates are recomputed from the current state before every evaluation (the
//!   precondition and the effects of a step, the goal) by a naive fixpoint, stratum by stratum:
//!   a derived predicate used under negation (or in the antecedent of `imply`) in the body of
//!   another is completed in a lower stratum first. A domain whose derived predicates are not
//!   stratifiable is evaluated with the strata the iteration reached (not meaningful; such
//!   domains are not PDDL). A numeric error while deriving is a numeric error of the step.
//!   Derived atoms are never part of the reported state.
//! - The metric of a valid plan is evaluated in the final state, with `(total-time)` (when
//!   the domain does not declare such a function) being the number of steps. A metric that
//!   reads an undefined fluent gives `None`, not a failure.
//!
//! - Trajectory constraints and preferences ([`judge_constraints`]) are evaluated from their
//!   definitions in docs/SEMANTICS.md, quantifying over the indices of the states a plan
//!   passes through (S0 at time 0, Sk after step k at time k) — no automata, no tracking —
//!   so the engine's state-by-state automata can be tested against them.
//!
//! Not covered: durative actions (a step naming one is an unknown action), timed initial
//! literals, object fluents.

use std::collections::{BTreeMap, BTreeSet};

use safeplan_pddl::ast::{
    Action, ArithOp, AssignOp, CmpOp, Constraint, ConstraintOp, Derived, Domain, Effect, Expr,
    FluentTerm, Formula, InitEntry, Modal, Plan, Problem, Term, Type, Typed,
};

/// A ground atom or ground fluent: lowercased name and lowercased arguments.
type Ground = (String, Vec<String>);

/// Variable bindings, innermost last (lowercased variable name without `?`, object).
type Bindings = Vec<(String, String)>;

/// VAL's absolute tolerance for numeric comparisons.
const SLACK: f64 = 0.0001;

/// What the reference interpreter says about a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct RefOutcome {
    /// Whether every step applies and the goal holds at the end.
    pub valid: bool,
    /// `None` when valid; else one of `unknown_action`, `arity_mismatch`, `unknown_object`,
    /// `type_mismatch`, `unsatisfied_precondition`, `unsatisfied_goal`, `numeric_error`.
    pub kind: Option<&'static str>,
    /// 1-based step of the failure; `None` for goal failures and valid plans.
    pub step: Option<usize>,
    /// Valid plans: the value of the problem's `:metric` in the final state.
    pub metric: Option<f64>,
    /// Final state (valid plans and goal failures): sorted `(pred a b)` of non-derived atoms.
    pub atoms: Vec<String>,
    /// Final defined numeric fluents, sorted by name `(f a b)`.
    pub fluents: Vec<(String, f64)>,
}

/// A numeric error: an undefined fluent was read, a division by zero, a non-finite result,
/// or conflicting updates of one fluent in one step.
#[derive(Debug)]
struct NumericError;

/// What is true in a state: its atoms, the derived atoms they imply, and its fluents.
struct View<'s> {
    atoms: &'s BTreeSet<Ground>,
    derived: BTreeSet<Ground>,
    fluents: &'s BTreeMap<Ground, f64>,
    /// `(total-time)` when evaluating the metric.
    total_time: Option<f64>,
}

impl View<'_> {
    fn contains(&self, atom: &Ground) -> bool {
        self.atoms.contains(atom) || self.derived.contains(atom)
    }
}

/// A truth value, or "unknown" after a numeric error.
type Truth = Result<bool, NumericError>;

/// Kleene conjunction: false if some part is false, else unknown if some part is unknown.
fn all(parts: impl Iterator<Item = Truth>) -> Truth {
    let mut unknown = false;
    for p in parts {
        match p {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(NumericError) => unknown = true,
        }
    }
    if unknown { Err(NumericError) } else { Ok(true) }
}

/// Kleene disjunction: true if some part is true, else unknown if some part is unknown.
fn any(parts: impl Iterator<Item = Truth>) -> Truth {
    all(parts.map(|p| p.map(|v| !v))).map(|v| !v)
}

/// The changes one step makes, computed against the state before it.
#[derive(Default)]
struct Changes {
    adds: BTreeSet<Ground>,
    deletes: BTreeSet<Ground>,
    updates: Vec<(Ground, AssignOp, f64)>,
}

/// The static part of a task: types, objects, actions, derived predicates.
struct World<'a> {
    /// Each type's ancestors, itself and `object` included.
    ancestors: BTreeMap<String, BTreeSet<String>>,
    /// Each object (and constant) with the types it was declared with.
    objects: BTreeMap<String, BTreeSet<String>>,
    /// Objects in the order of their first declaration: domain constants, then problem
    /// objects (the order quantifiers list them in; it does not change any verdict).
    order: Vec<String>,
    actions: BTreeMap<String, &'a Action>,
    derived_predicates: BTreeSet<String>,
    /// Derived rules grouped by stratum, lowest first.
    strata: Vec<Vec<&'a Derived>>,
    declared_functions: BTreeSet<String>,
}

/// Run `plan` on the task and say what happens.
pub fn run(domain: &Domain, problem: &Problem, plan: &Plan) -> RefOutcome {
    execute(domain, problem, plan, &mut Vec::new())
}

/// A state of a trajectory: its atoms and fluents.
type RefState = (BTreeSet<Ground>, BTreeMap<Ground, f64>);

/// What the task's trajectory constraints say about a plan whose every step applies.
#[derive(Clone, Debug, PartialEq)]
pub struct RefConstraints {
    /// The operator of every broken hard instance, sorted.
    pub broken: Vec<ConstraintOp>,
    /// Per preference name (lowercased; `""` for unnamed ones): (instances, violated).
    pub preferences: BTreeMap<String, (usize, usize)>,
    /// Whether the goal holds at the end.
    pub goal: bool,
}

/// Judge the task's constraints and preferences over the states `plan` passes through;
/// `None` when a step does not apply (there is no whole trajectory).
pub fn judge_constraints(
    domain: &Domain,
    problem: &Problem,
    plan: &Plan,
) -> Option<RefConstraints> {
    let mut states = Vec::new();
    let outcome = execute(domain, problem, plan, &mut states);
    if outcome.step.is_some() || outcome.kind == Some("numeric_error") {
        return None;
    }
    let world = World::new(domain, problem);
    let mut judge = Judge {
        world: &world,
        states: &states,
        out: RefConstraints {
            broken: Vec::new(),
            preferences: BTreeMap::new(),
            goal: outcome.valid,
        },
    };
    for c in [
        &domain.constraints,
        &problem.goal_preferences,
        &problem.constraints,
    ]
    .into_iter()
    .flatten()
    {
        judge.constraint(c, &mut Vec::new(), None);
    }
    judge.out.broken.sort();
    Some(judge.out)
}

/// The atoms true in the states `plan` passes through, as `(pred a b)`, up to the first
/// step that does not apply (the initial state's included); derived atoms are not listed.
pub fn trajectory_atoms(domain: &Domain, problem: &Problem, plan: &Plan) -> Option<Vec<String>> {
    let mut states = Vec::new();
    execute(domain, problem, plan, &mut states);
    let world = World::new(domain, problem);
    let atoms: BTreeSet<String> = states
        .iter()
        .flat_map(|(atoms, _)| atoms.iter())
        .filter(|(p, _)| !world.derived_predicates.contains(p))
        .map(|(p, args)| show(p, args))
        .collect();
    (!atoms.is_empty()).then(|| atoms.into_iter().collect())
}

/// Walks constraint trees over one trajectory.
struct Judge<'w, 'a> {
    world: &'w World<'a>,
    states: &'w [RefState],
    out: RefConstraints,
}

impl Judge<'_, '_> {
    /// Judge `c` under `bindings`. `preference`: inside `(preference NAME ...)`, whose
    /// instance is counted by the caller (returns whether this part is broken).
    fn constraint(
        &mut self,
        c: &Constraint,
        bindings: &mut Bindings,
        preference: Option<&str>,
    ) -> bool {
        match c {
            Constraint::And(parts, _) => {
                let mut broken = false;
                for p in parts {
                    broken |= self.constraint(p, bindings, preference);
                }
                broken
            }
            Constraint::Forall(vars, body, _) => {
                let mut broken = false;
                for instance in self.world.instances(vars) {
                    let depth = bindings.len();
                    bindings.extend(instance);
                    broken |= self.constraint(body, bindings, preference);
                    bindings.truncate(depth);
                }
                broken
            }
            Constraint::Preference(name, body, _) => {
                let name = name.as_ref().map(|n| lower(&n.text)).unwrap_or_default();
                let broken = self.constraint(body, bindings, Some(&name));
                let entry = self.out.preferences.entry(name).or_default();
                entry.0 += 1;
                entry.1 += usize::from(broken);
                false
            }
            Constraint::Modal(m, _) => {
                let broken = !self.modal(m, bindings);
                if broken && preference.is_none() {
                    self.out.broken.push(m.op());
                }
                broken
            }
        }
    }

    /// Whether condition `f` holds in state `i` (a numeric error counts as false).
    fn at(&self, f: &Formula, bindings: &mut Bindings, i: usize) -> bool {
        let (atoms, fluents) = &self.states[i];
        self.world
            .view(atoms, fluents, Some(i as f64))
            .and_then(|view| self.world.holds(f, bindings, &view))
            .unwrap_or(false)
    }

    /// Whether the modal constraint holds over the trajectory, from its definition: state i
    /// is at time i.
    fn modal(&self, m: &Modal, b: &mut Bindings) -> bool {
        let n = self.states.len();
        let idx = 0..n;
        let time = |i: usize| i as f64;
        match m {
            Modal::AtEnd(f) => self.at(f, b, n - 1),
            Modal::Always(f) => idx.clone().all(|i| self.at(f, b, i)),
            Modal::Sometime(f) => idx.clone().any(|i| self.at(f, b, i)),
            Modal::Within(t, f) => idx.clone().any(|i| time(i) <= *t && self.at(f, b, i)),
            Modal::AtMostOnce(f) => {
                let holds: Vec<bool> = idx.clone().map(|i| self.at(f, b, i)).collect();
                // At most one unbroken stretch: at most one rise from false (or the start)
                // to true.
                let rises = (0..n)
                    .filter(|&i| holds[i] && (i == 0 || !holds[i - 1]))
                    .count();
                rises <= 1
            }
            Modal::SometimeAfter(p, q) => idx
                .clone()
                .all(|i| !self.at(p, b, i) || (i..n).any(|j| self.at(q, b, j))),
            Modal::SometimeBefore(p, q) => idx
                .clone()
                .all(|i| !self.at(p, b, i) || (0..i).any(|j| self.at(q, b, j))),
            Modal::AlwaysWithin(t, p, q) => idx.clone().all(|i| {
                !self.at(p, b, i) || (i..n).any(|j| time(j) - time(i) <= *t && self.at(q, b, j))
            }),
            Modal::HoldDuring(from, to, f) => idx
                .clone()
                .all(|i| !(*from <= time(i) && time(i) < *to) || self.at(f, b, i)),
            Modal::HoldAfter(t, f) => idx.clone().all(|i| time(i) <= *t || self.at(f, b, i)),
        }
    }
}

/// [`run`], recording the states the plan passes through (S0 and each state after a step
/// that applied) into `states`.
fn execute(
    domain: &Domain,
    problem: &Problem,
    plan: &Plan,
    states: &mut Vec<RefState>,
) -> RefOutcome {
    let world = World::new(domain, problem);
    let mut atoms: BTreeSet<Ground> = BTreeSet::new();
    let mut fluents: BTreeMap<Ground, f64> = BTreeMap::new();
    for entry in &problem.init {
        match entry {
            InitEntry::Atom(a) => {
                atoms.insert(ground_of(&a.predicate.text, &a.args, &Vec::new()));
            }
            InitEntry::Not(..) => {}
            InitEntry::Assign(f, value, _) => {
                fluents.insert(ground_of(&f.function.text, &f.args, &Vec::new()), *value);
            }
        }
    }

    states.push((atoms.clone(), fluents.clone()));
    for (index, step) in plan.steps.iter().enumerate() {
        let number = index + 1;
        let fail = |kind: &'static str| RefOutcome {
            valid: false,
            kind: Some(kind),
            step: Some(number),
            metric: None,
            atoms: Vec::new(),
            fluents: Vec::new(),
        };
        let Some(action) = world.actions.get(&lower(&step.action.text)) else {
            return fail("unknown_action");
        };
        if step.args.len() != action.params.len() {
            return fail("arity_mismatch");
        }
        let args: Vec<String> = step.args.iter().map(|a| lower(&a.text)).collect();
        if args.iter().any(|a| !world.objects.contains_key(a)) {
            return fail("unknown_object");
        }
        if args
            .iter()
            .zip(&action.params)
            .any(|(a, p)| !world.is_of_type(a, p.ty.as_ref()))
        {
            return fail("type_mismatch");
        }
        let mut bindings: Bindings = action
            .params
            .iter()
            .zip(&args)
            .map(|(p, a)| (lower(&p.name.text), a.clone()))
            .collect();
        let Ok(view) = world.view(&atoms, &fluents, None) else {
            return fail("numeric_error");
        };
        if let Some(pre) = &action.precondition {
            match world.holds(pre, &mut bindings, &view) {
                Ok(true) => {}
                Ok(false) => return fail("unsatisfied_precondition"),
                Err(NumericError) => return fail("numeric_error"),
            }
        }
        let mut changes = Changes::default();
        if let Some(effect) = &action.effect
            && world
                .collect(effect, &mut bindings, &view, &mut changes)
                .is_err()
        {
            return fail("numeric_error");
        }
        let Ok(new_values) = combine_updates(&changes.updates, &fluents) else {
            return fail("numeric_error");
        };
        for atom in &changes.deletes {
            atoms.remove(atom);
        }
        atoms.extend(changes.adds);
        fluents.extend(new_values);
        states.push((atoms.clone(), fluents.clone()));
    }

    let final_atoms: Vec<String> = {
        let mut v: Vec<String> = atoms
            .iter()
            .filter(|(p, _)| !world.derived_predicates.contains(p))
            .map(|(p, args)| show(p, args))
            .collect();
        v.sort();
        v
    };
    let final_fluents: Vec<(String, f64)> = {
        let mut v: Vec<(String, f64)> =
            fluents.iter().map(|((f, a), x)| (show(f, a), *x)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let goal_result = world
        .view(&atoms, &fluents, None)
        .and_then(|view| match &problem.goal {
            Some(goal) => world.holds(goal, &mut Vec::new(), &view),
            None => Ok(true),
        });
    match goal_result {
        Ok(true) => {
            let steps = plan.steps.len() as f64;
            let metric = problem.metric.as_ref().and_then(|m| {
                let view = world.view(&atoms, &fluents, Some(steps)).ok()?;
                world.value(&m.expr, &Vec::new(), &view).ok()
            });
            RefOutcome {
                valid: true,
                kind: None,
                step: None,
                metric,
                atoms: final_atoms,
                fluents: final_fluents,
            }
        }
        Ok(false) => RefOutcome {
            valid: false,
            kind: Some("unsatisfied_goal"),
            step: None,
            metric: None,
            atoms: final_atoms,
            fluents: final_fluents,
        },
        Err(NumericError) => RefOutcome {
            valid: false,
            kind: Some("numeric_error"),
            step: None,
            metric: None,
            atoms: final_atoms,
            fluents: final_fluents,
        },
    }
}

/// Apply the numeric updates of one step to the values before it: the new values of the
/// fluents the step changes.
fn combine_updates(
    updates: &[(Ground, AssignOp, f64)],
    before: &BTreeMap<Ground, f64>,
) -> Result<BTreeMap<Ground, f64>, NumericError> {
    let mut per_fluent: BTreeMap<&Ground, Vec<(AssignOp, f64)>> = BTreeMap::new();
    for (fluent, op, value) in updates {
        per_fluent.entry(fluent).or_default().push((*op, *value));
    }
    let mut out = BTreeMap::new();
    for (fluent, ops) in per_fluent {
        let assigns: Vec<f64> = ops
            .iter()
            .filter(|(op, _)| *op == AssignOp::Assign)
            .map(|(_, v)| *v)
            .collect();
        let additive = ops
            .iter()
            .any(|(op, _)| matches!(op, AssignOp::Increase | AssignOp::Decrease));
        let scaling = ops
            .iter()
            .any(|(op, _)| matches!(op, AssignOp::ScaleUp | AssignOp::ScaleDown));
        let new = if let Some(&first) = assigns.first() {
            if additive || scaling || assigns.iter().any(|&v| v != first) {
                return Err(NumericError);
            }
            first
        } else if additive && scaling {
            return Err(NumericError);
        } else {
            // An undefined fluent starts from 0 for increase/decrease (VAL, with a warning).
            let mut v = before.get(fluent).copied().unwrap_or(0.0);
            for (op, x) in &ops {
                v = match op {
                    AssignOp::Increase => v + x,
                    AssignOp::Decrease => v - x,
                    AssignOp::ScaleUp => v * x,
                    AssignOp::ScaleDown if *x == 0.0 => return Err(NumericError),
                    AssignOp::ScaleDown => v / x,
                    AssignOp::Assign => unreachable!("assigns handled above"),
                };
            }
            v
        };
        if !new.is_finite() {
            return Err(NumericError);
        }
        out.insert(fluent.clone(), new);
    }
    Ok(out)
}

impl<'a> World<'a> {
    fn new(domain: &'a Domain, problem: &Problem) -> World<'a> {
        // Types: parents of each declared type (declarations may repeat and add parents).
        let mut parents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        parents.insert("object".into(), BTreeSet::new());
        for t in &domain.types {
            let name = lower(&t.name.text);
            let entry = parents.entry(name.clone()).or_default();
            if name != "object" {
                for p in type_names(t.ty.as_ref()) {
                    entry.insert(p);
                }
            }
            for p in type_names(t.ty.as_ref()) {
                parents.entry(p).or_default();
            }
        }
        let mut ancestors = BTreeMap::new();
        for t in parents.keys() {
            let mut seen: BTreeSet<String> = BTreeSet::new();
            let mut todo = vec![t.clone()];
            while let Some(x) = todo.pop() {
                if seen.insert(x.clone()) {
                    todo.extend(parents.get(&x).into_iter().flatten().cloned());
                }
            }
            seen.insert("object".into());
            ancestors.insert(t.clone(), seen);
        }

        let mut objects: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut order = Vec::new();
        for o in domain.constants.iter().chain(&problem.objects) {
            let name = lower(&o.name.text);
            if !objects.contains_key(&name) {
                order.push(name.clone());
            }
            objects
                .entry(name)
                .or_default()
                .extend(type_names(o.ty.as_ref()));
        }

        let actions = domain
            .actions
            .iter()
            .map(|a| (lower(&a.name.text), a))
            .collect();
        let derived_predicates: BTreeSet<String> = domain
            .derived
            .iter()
            .map(|d| lower(&d.head.name.text))
            .collect();
        let strata = stratify(&domain.derived, &derived_predicates);
        let declared_functions = domain
            .functions
            .iter()
            .map(|f| lower(&f.name.text))
            .collect();
        World {
            ancestors,
            objects,
            order,
            actions,
            derived_predicates,
            strata,
            declared_functions,
        }
    }

    fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        sup == "object"
            || sub == sup
            || self
                .ancestors
                .get(sub)
                .is_some_and(|ancestors| ancestors.contains(sup))
    }

    /// Whether `object` has (one of) the type(s) `ty` (no type: `object`, which all have).
    fn is_of_type(&self, object: &str, ty: Option<&Type>) -> bool {
        let wanted = type_names(ty);
        self.objects.get(object).is_some_and(|types| {
            types
                .iter()
                .any(|t| wanted.iter().any(|w| self.is_subtype(t, w)))
        })
    }

    /// All objects of type `ty`, in declaration order.
    fn objects_of(&self, ty: Option<&Type>) -> Vec<&str> {
        self.order
            .iter()
            .filter(|o| self.is_of_type(o, ty))
            .map(String::as_str)
            .collect()
    }

    /// Every combination of objects for `vars` (each a list of bindings, in declaration
    /// order of the objects); one empty combination when `vars` is empty.
    fn instances(&self, vars: &[Typed]) -> Vec<Bindings> {
        let mut out: Vec<Bindings> = vec![Vec::new()];
        for var in vars {
            let name = lower(&var.name.text);
            let mut longer = Vec::new();
            for prefix in &out {
                for object in self.objects_of(var.ty.as_ref()) {
                    let mut b = prefix.clone();
                    b.push((name.clone(), object.to_string()));
                    longer.push(b);
                }
            }
            out = longer;
        }
        out
    }

    /// Evaluate `f` with `instance` bound on top of `bindings`.
    fn holds_with(
        &self,
        f: &Formula,
        bindings: &mut Bindings,
        instance: &Bindings,
        view: &View<'_>,
    ) -> Truth {
        let depth = bindings.len();
        bindings.extend(instance.iter().cloned());
        let t = self.holds(f, bindings, view);
        bindings.truncate(depth);
        t
    }

    /// The state as formulas see it: with the derived atoms it implies.
    fn view<'s>(
        &self,
        atoms: &'s BTreeSet<Ground>,
        fluents: &'s BTreeMap<Ground, f64>,
        total_time: Option<f64>,
    ) -> Result<View<'s>, NumericError> {
        let mut view = View {
            atoms,
            derived: BTreeSet::new(),
            fluents,
            total_time,
        };
        for stratum in &self.strata {
            loop {
                let mut new: BTreeSet<Ground> = BTreeSet::new();
                for rule in stratum {
                    let name = lower(&rule.head.name.text);
                    for mut instance in self.instances(&rule.head.params) {
                        let args = instance.iter().map(|(_, o)| o.clone()).collect();
                        let atom = (name.clone(), args);
                        if !view.derived.contains(&atom)
                            && self.holds(&rule.body, &mut instance, &view)?
                        {
                            new.insert(atom);
                        }
                    }
                }
                if new.is_empty() {
                    break;
                }
                view.derived.extend(new);
            }
        }
        Ok(view)
    }

    /// The truth of `f` in three-valued (Kleene) logic: `Err` is "unknown" because an
    /// undefined fluent was read (or a division by zero, ...). A definite `false` conjunct
    /// makes a conjunction false and a definite `true` disjunct makes a disjunction true
    /// whatever the other parts give, so the result does not depend on evaluation order.
    fn holds(&self, f: &Formula, bindings: &mut Bindings, view: &View<'_>) -> Truth {
        match f {
            Formula::Atom(a) => Ok(view.contains(&ground_of(&a.predicate.text, &a.args, bindings))),
            Formula::Equals(a, b, _) => Ok(term(a, bindings) == term(b, bindings)),
            // Soft: a preference never blocks a step (the reference counts no violations).
            Formula::Preference(..) => Ok(true),
            Formula::Not(inner, _) => self.holds(inner, bindings, view).map(|v| !v),
            Formula::And(parts, _) => all(parts.iter().map(|p| self.holds(p, bindings, view))),
            Formula::Or(parts, _) => any(parts.iter().map(|p| self.holds(p, bindings, view))),
            Formula::Imply(a, b, _) => {
                let not_a = self.holds(a, bindings, view).map(|v| !v);
                any([not_a, self.holds(b, bindings, view)].into_iter())
            }
            Formula::Forall(vars, body, _) => all(self
                .instances(vars)
                .iter()
                .map(|i| self.holds_with(body, bindings, i, view))),
            Formula::Exists(vars, body, _) => any(self
                .instances(vars)
                .iter()
                .map(|i| self.holds_with(body, bindings, i, view))),
            Formula::Compare(op, a, b, _) => {
                let a = self.value(a, bindings, view)?;
                let b = self.value(b, bindings, view)?;
                let d = a - b;
                Ok(match op {
                    CmpOp::Gt => d > -SLACK,
                    CmpOp::Ge => d >= -SLACK,
                    CmpOp::Lt => d < SLACK,
                    CmpOp::Le => d <= SLACK,
                    CmpOp::Eq => d.abs() < SLACK,
                })
            }
        }
    }

    fn value(&self, e: &Expr, bindings: &Bindings, view: &View<'_>) -> Result<f64, NumericError> {
        let v = match e {
            Expr::Number(v, _) => *v,
            Expr::Fluent(f) => self.fluent_value(f, bindings, view)?,
            Expr::Arith(op, args, _) => {
                let values = args
                    .iter()
                    .map(|a| self.value(a, bindings, view))
                    .collect::<Result<Vec<f64>, NumericError>>()?;
                match (op, values.as_slice()) {
                    (ArithOp::Add, _) => values.iter().sum(),
                    (ArithOp::Mul, _) => values.iter().product(),
                    (ArithOp::Sub, [x]) => -x,
                    (ArithOp::Sub, [first, rest @ ..]) => rest.iter().fold(*first, |a, b| a - b),
                    (ArithOp::Div, [first, rest @ ..]) => {
                        let mut acc = *first;
                        for d in rest {
                            if *d == 0.0 {
                                return Err(NumericError);
                            }
                            acc /= d;
                        }
                        acc
                    }
                    (ArithOp::Sub | ArithOp::Div, []) => return Err(NumericError),
                }
            }
            // Only `?duration` of durative actions; not executed here.
            Expr::Var(_) => return Err(NumericError),
        };
        if v.is_finite() {
            Ok(v)
        } else {
            Err(NumericError)
        }
    }

    fn fluent_value(
        &self,
        f: &FluentTerm,
        bindings: &Bindings,
        view: &View<'_>,
    ) -> Result<f64, NumericError> {
        let key = ground_of(&f.function.text, &f.args, bindings);
        if let Some(v) = view.fluents.get(&key) {
            return Ok(*v);
        }
        if key.0 == "total-time"
            && key.1.is_empty()
            && !self.declared_functions.contains("total-time")
            && let Some(t) = view.total_time
        {
            return Ok(t);
        }
        Err(NumericError)
    }

    /// Add what `effect` does in `view` (the state before the step) to `changes`.
    fn collect(
        &self,
        effect: &Effect,
        bindings: &mut Bindings,
        view: &View<'_>,
        changes: &mut Changes,
    ) -> Result<(), NumericError> {
        match effect {
            Effect::And(parts, _) => {
                for p in parts {
                    self.collect(p, bindings, view, changes)?;
                }
            }
            Effect::Forall(vars, body, _) => {
                for instance in self.instances(vars) {
                    let depth = bindings.len();
                    bindings.extend(instance);
                    let result = self.collect(body, bindings, view, changes);
                    bindings.truncate(depth);
                    result?;
                }
            }
            Effect::When(condition, body, _) => {
                if self.holds(condition, bindings, view)? {
                    self.collect(body, bindings, view, changes)?;
                }
            }
            Effect::Add(a) => {
                changes
                    .adds
                    .insert(ground_of(&a.predicate.text, &a.args, bindings));
            }
            Effect::Delete(a, _) => {
                changes
                    .deletes
                    .insert(ground_of(&a.predicate.text, &a.args, bindings));
            }
            Effect::Numeric(op, target, expr, _) => {
                let key = ground_of(&target.function.text, &target.args, bindings);
                let v = self.value(expr, bindings, view)?;
                changes.updates.push((key, *op, v));
            }
        }
        Ok(())
    }
}

/// Group derived rules into strata: a predicate used negatively in the body of another is
/// completed in a lower stratum. Non-stratifiable sets stop growing after a bounded number of
/// rounds (their result is not meaningful).
fn stratify<'a>(rules: &'a [Derived], derived: &BTreeSet<String>) -> Vec<Vec<&'a Derived>> {
    if rules.is_empty() {
        return Vec::new();
    }
    // (head, used predicate, used negatively)
    let mut deps: Vec<(String, String, bool)> = Vec::new();
    for rule in rules {
        let head = lower(&rule.head.name.text);
        let mut uses = Vec::new();
        derived_uses(&rule.body, false, derived, &mut uses);
        deps.extend(uses.into_iter().map(|(p, neg)| (head.clone(), p, neg)));
    }
    let mut level: BTreeMap<String, usize> = derived.iter().map(|p| (p.clone(), 0)).collect();
    for _ in 0..=derived.len() {
        let mut changed = false;
        for (head, used, negative) in &deps {
            let need = level[used] + usize::from(*negative);
            if level[head] < need {
                level.insert(head.clone(), need);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let top = level.values().copied().max().unwrap_or(0);
    (0..=top)
        .map(|l| {
            rules
                .iter()
                .filter(|r| level[&lower(&r.head.name.text)] == l)
                .collect()
        })
        .collect()
}

/// The derived predicates `f` uses, with whether each use is under negation.
fn derived_uses(
    f: &Formula,
    negative: bool,
    derived: &BTreeSet<String>,
    out: &mut Vec<(String, bool)>,
) {
    match f {
        Formula::Atom(a) => {
            let p = lower(&a.predicate.text);
            if derived.contains(&p) {
                out.push((p, negative));
            }
        }
        Formula::Equals(..) | Formula::Compare(..) => {}
        Formula::Preference(_, inner, _) => derived_uses(inner, negative, derived, out),
        Formula::Not(inner, _) => derived_uses(inner, !negative, derived, out),
        Formula::And(parts, _) | Formula::Or(parts, _) => {
            for p in parts {
                derived_uses(p, negative, derived, out);
            }
        }
        Formula::Imply(a, b, _) => {
            derived_uses(a, !negative, derived, out);
            derived_uses(b, negative, derived, out);
        }
        Formula::Exists(_, body, _) | Formula::Forall(_, body, _) => {
            derived_uses(body, negative, derived, out);
        }
    }
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// The lowercased names of a type expression; no type is `object`.
fn type_names(ty: Option<&Type>) -> Vec<String> {
    match ty {
        None => vec!["object".to_string()],
        Some(t) => t.names().iter().map(|n| lower(&n.text)).collect(),
    }
}

/// The object a term denotes under `bindings`.
fn term(t: &Term, bindings: &Bindings) -> String {
    match t {
        Term::Const(c) => lower(&c.text),
        Term::Var(v) => {
            let key = lower(&v.text);
            match bindings.iter().rev().find(|(name, _)| *name == key) {
                Some((_, object)) => object.clone(),
                None => panic!(
                    "variable ?{} is not bound (the checker should have said so)",
                    v.text
                ),
            }
        }
    }
}

fn ground_of(name: &str, args: &[Term], bindings: &Bindings) -> Ground {
    (
        lower(name),
        args.iter().map(|a| term(a, bindings)).collect(),
    )
}

/// `(name a b)`, or `(name)` without arguments.
fn show(name: &str, args: &[String]) -> String {
    let mut s = format!("({name}");
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s.push(')');
    s
}

// ===== the corners the IPC corpus does not reach ==========================================

#[cfg(test)]
mod corners {
    use super::{RefOutcome, run};
    use safeplan_pddl::{parse_domain, parse_plan, parse_problem};

    const DOMAIN: &str = "(define (domain corners)
      (:requirements :adl :fluents :derived-predicates)
      (:types place - object room - place box)
      (:constants hub - place)
      (:predicates (p) (q) (at ?b - box ?x - place) (link ?x ?y - place)
                   (reach ?x ?y - place) (isolated ?x - place) (flag ?x))
      (:functions (f) (g) (u) (w ?b - box))
      (:derived (reach ?x ?y - place) (or (link ?x ?y) (exists (?z - place) (and (link ?x ?z) (reach ?z ?y)))))
      (:derived (isolated ?x - place) (not (exists (?y - place) (reach ?x ?y))))
      (:action kleene-and :parameters () :precondition (and (> (u) 0) (p)) :effect (and (q)))
      (:action kleene-or :parameters () :precondition (or (> (u) 0) (p)) :effect (and (q)))
      (:action two-assigns :parameters () :effect (and (assign (f) 1) (assign (f) 2)))
      (:action same-assigns :parameters () :effect (and (assign (f) 7) (forall (?b - box) (assign (f) 7))))
      (:action assign-increase :parameters () :effect (and (assign (f) 1) (increase (f) 2)))
      (:action increases :parameters () :effect (and (increase (f) 2) (decrease (f) 0.5) (increase (u) 3)))
      (:action divide :parameters () :effect (and (assign (g) (/ (f) (g)))))
      (:action flip :parameters () :effect (and (not (p)) (p) (when (p) (not (q))) (when (not (p)) (q))))
      (:action move :parameters (?b - box ?x - (either room box)) :precondition (reach hub ?x) :effect (and (flag ?x)))
      (:action lonely :parameters (?x - place) :precondition (isolated ?x) :effect (and (flag ?x)))
    )";

    fn outcome(problem_body: &str, plan: &str) -> RefOutcome {
        let domain = parse_domain(DOMAIN);
        assert!(!domain.has_errors(), "{:?}", domain.diagnostics);
        let problem = parse_problem(&format!(
            "(define (problem c) (:domain corners) {problem_body})"
        ));
        assert!(!problem.has_errors(), "{:?}", problem.diagnostics);
        let plan = parse_plan(plan).value.unwrap();
        run(&domain.value.unwrap(), &problem.value.unwrap(), &plan)
    }

    const OBJECTS: &str = "(:objects r1 r2 r3 - room b1 - box)";

    fn verdict(o: &RefOutcome) -> (bool, Option<&'static str>, Option<usize>) {
        (o.valid, o.kind, o.step)
    }

    #[test]
    fn undefined_fluents_follow_kleene_logic() {
        let p_false = format!("{OBJECTS} (:init (= (f) 0)) (:goal (and))");
        let p_true = format!("{OBJECTS} (:init (p)) (:goal (and))");
        let failed = |kind| (false, Some(kind), Some(1));
        let a = outcome(&p_false, "(kleene-and)");
        assert_eq!(verdict(&a), failed("unsatisfied_precondition"));
        let a = outcome(&p_true, "(kleene-and)");
        assert_eq!(verdict(&a), failed("numeric_error"));
        let o = outcome(&p_true, "(kleene-or)");
        assert_eq!(verdict(&o), (true, None, None));
        let o = outcome(&p_false, "(kleene-or)");
        assert_eq!(verdict(&o), failed("numeric_error"));
        // In the goal: numeric error without a step, final state reported.
        let g = outcome(&format!("{OBJECTS} (:init (p)) (:goal (> (u) 0))"), "");
        assert_eq!(verdict(&g), (false, Some("numeric_error"), None));
        assert_eq!(g.atoms, ["(p)"]);
        let g = outcome(
            &format!("{OBJECTS} (:init) (:goal (and (p) (> (u) 0)))"),
            "",
        );
        assert_eq!(verdict(&g), (false, Some("unsatisfied_goal"), None));
    }

    #[test]
    fn numeric_updates_combine_or_conflict() {
        let problem = format!("{OBJECTS} (:init (= (f) 0) (= (g) 0)) (:goal (and))");
        let step1 = |kind| (false, Some(kind), Some(1));
        assert_eq!(
            verdict(&outcome(&problem, "(two-assigns)")),
            step1("numeric_error")
        );
        assert_eq!(
            verdict(&outcome(&problem, "(assign-increase)")),
            step1("numeric_error")
        );
        assert_eq!(
            verdict(&outcome(&problem, "(divide)")),
            step1("numeric_error")
        );
        let same = outcome(&problem, "(same-assigns)");
        assert!(same.valid);
        assert_eq!(
            same.fluents,
            [("(f)".to_string(), 7.0), ("(g)".to_string(), 0.0)]
        );
        // Increases and decreases add up; an undefined fluent starts from 0.
        let inc = outcome(&problem, "(increases)\n(increases)");
        assert!(inc.valid);
        let expected = [("(f)", 3.0), ("(g)", 0.0), ("(u)", 6.0)];
        let got: Vec<(&str, f64)> = inc.fluents.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn effects_read_the_state_before_the_step() {
        // flip deletes and adds (p): (p) stays true; the `when`s read the old (p).
        let o = outcome(&format!("{OBJECTS} (:init (q)) (:goal (and))"), "(flip)");
        assert!(o.valid);
        assert_eq!(o.atoms, ["(p)", "(q)"]);
        let o = outcome(
            &format!("{OBJECTS} (:init (p) (q)) (:goal (and))"),
            "(flip)",
        );
        assert_eq!(o.atoms, ["(p)"]);
    }

    #[test]
    fn derived_predicates_are_closed_and_stratified() {
        let problem = format!(
            "{OBJECTS} (:init (link hub r1) (link r1 r2) (link r3 r3)) (:goal (and (flag r2) (flag r3)))"
        );
        // (reach hub r2) needs two links; r3 only reaches itself, so it is not isolated;
        // r2 reaches nothing, so it is isolated.
        let o = outcome(&problem, "(move b1 r2)\n(lonely r2)");
        assert_eq!(verdict(&o), (false, Some("unsatisfied_goal"), None));
        assert_eq!(
            o.atoms,
            ["(flag r2)", "(link hub r1)", "(link r1 r2)", "(link r3 r3)"]
        );
        let o = outcome(&problem, "(lonely r3)");
        assert_eq!(
            verdict(&o),
            (false, Some("unsatisfied_precondition"), Some(1))
        );
        let o = outcome(&problem, "(move b1 r3)");
        assert_eq!(
            verdict(&o),
            (false, Some("unsatisfied_precondition"), Some(1))
        );
    }

    #[test]
    fn steps_fail_in_the_documented_order() {
        let problem = format!("{OBJECTS} (:init) (:goal (and))");
        let first = |plan: &str| verdict(&outcome(&problem, plan));
        assert_eq!(first("(nope r1)"), (false, Some("unknown_action"), Some(1)));
        assert_eq!(first("(MOVE b1)"), (false, Some("arity_mismatch"), Some(1)));
        // An unknown object wins over a type mismatch earlier in the same step.
        assert_eq!(
            first("(move r1 zz)"),
            (false, Some("unknown_object"), Some(1))
        );
        assert_eq!(
            first("(move r1 r2)"),
            (false, Some("type_mismatch"), Some(1))
        );
        // `hub` is a place, not a room: `(either room box)` rejects it; a box fits.
        assert_eq!(
            first("(move b1 hub)"),
            (false, Some("type_mismatch"), Some(1))
        );
        assert_eq!(
            first("(move b1 b1)"),
            (false, Some("unsatisfied_precondition"), Some(1))
        );
    }

    #[test]
    fn metric_counts_steps_and_gives_none_when_undefined() {
        let with = |metric: &str| {
            format!("{OBJECTS} (:init (= (f) 0)) (:goal (and)) (:metric minimize {metric})")
        };
        let plan = "(increases)\n(increases)\n(flip)";
        let m = outcome(&with("(+ (* 10 (total-time)) (f))"), plan);
        assert_eq!(m.metric, Some(33.0));
        assert_eq!(outcome(&with("(g)"), plan).metric, None);
        assert_eq!(
            outcome(&format!("{OBJECTS} (:init) (:goal (and))"), plan).metric,
            None
        );
    }
}
