//! Danger counted in facts: a safety-augmented task as a classical task whose plans are
//! exactly its safe plans (or exactly its feasible unsafe ones), for planners that read no
//! numbers.
//!
//! DESPITE's safety task keeps danger in a numeric fluent that dangerous actions raise, and
//! a plan is safe when it ends with danger at most the goal's bound d_max (SEMANTICS.md §1).
//! Most classical planners (Fast Downward's translator among them) refuse numeric fluents.
//! When danger only ever rises by whole numbers, from a whole initial value, and nothing but
//! the goal's bound reads it, its value matters only up to the first value past the bound:
//! the levels d_init, d_init + 1, …, ⌊d_max⌋ and "above the bound", which danger never
//! leaves once it is there. Those levels are 0-ary facts, one true at a time, and each
//! update becomes one conditional effect per level that moves to the level the update
//! reaches (the update's own `when` conditions joined to the level's). A fact `within` is
//! true exactly while danger is at most the bound; the safe task's goal asks for it, the
//! unsafe task's goal asks for `above`.
//!
//! The compilation is exact, not an approximation, under these conditions, and refuses
//! every task outside them ([`DangerFactsError`]): an update that can lower danger or move
//! it by a fraction (the levels would not be finite), a condition or metric that reads
//! danger (it would read the level), more than one update in one action or one under a
//! `forall` (one step may then raise danger twice, and two effects on one level fact would
//! count once), trajectory constraints and preferences (a classical task cannot state them),
//! durative actions. Invariant (tested on the built-in suite and DESPITE's demo tasks, and
//! against Fast Downward's plans in docs/benchmarks.md): a plan is valid for the safe task
//! iff [`crate::SafetyTask::evaluate`] calls it feasible and safe, and valid for the unsafe
//! task iff it is feasible and unsafe.

use safeplan_pddl::ast::{
    ArithOp, AssignOp, Atom, Effect, Expr, Formula, InitEntry, Name, PredicateDecl, RequirementDecl,
};
use safeplan_pddl::requirements::Requirement;
use safeplan_pddl::{Domain, FileKind, Problem, Span};

use crate::safety::{basic_task, danger_bound, reads};

/// Which plans the classical task's goal accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DangerGoal {
    /// Feasible plans that end with danger at most the bound.
    Safe,
    /// Feasible plans that end with danger above the bound.
    Unsafe,
}

/// Why a task cannot be written with danger in facts. Each names what to change; those
/// found in the domain carry the span of what was read there.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DangerFactsError {
    /// The domain declares no 0-ary function of that name.
    #[error("the domain declares no 0-ary function `{name}`: it is not a safety-augmented task")]
    NoDanger {
        /// The danger fluent's name.
        name: String,
    },
    /// The task has trajectory constraints or preferences.
    #[error(
        "the task has trajectory constraints or preferences, which a classical task cannot \
         state; a planner that reads PDDL3 (`safeplan plan`) keeps them"
    )]
    Constraints,
    /// The domain has durative actions.
    #[error("the domain has durative actions; only a task of instantaneous actions is written")]
    Temporal,
    /// An update that does not raise danger by a whole, non-negative number.
    #[error(
        "action `{action}` changes `{name}` other than by raising it by a whole number; only \
         such raises (`(increase ({name}) 1)`, `(assign ({name}) (+ 1 ({name})))`) leave \
         finitely many levels to count"
    )]
    NotCountable {
        /// The action.
        action: String,
        /// The danger fluent's name.
        name: String,
        /// Where the update is written.
        span: Span,
    },
    /// An action that may raise danger twice in one step.
    #[error(
        "action `{action}` may change `{name}` more than once in a step (two updates, or one \
         under `forall`); one level fact per step cannot add them up"
    )]
    SeveralUpdates {
        /// The action.
        action: String,
        /// The danger fluent's name.
        name: String,
        /// Where the second update (or the `forall`) is written.
        span: Span,
    },
    /// Danger read outside the goal's bound.
    #[error(
        "{place} reads `{name}`; only the goal's bound may read it, since in facts its value \
         is known only up to the bound"
    )]
    DangerRead {
        /// What reads it: "action `a`'s precondition", "the metric", …
        place: String,
        /// The file it is in: the domain's actions and derived predicates, or the
        /// problem's goal and metric.
        file: FileKind,
        /// The danger fluent's name.
        name: String,
        /// Where it is read.
        span: Span,
    },
    /// The bound is more raises from the initial danger than levels are written.
    #[error(
        "the goal's bound on `{name}` is {levels} whole raises from its initial value, more \
         than the {MAX_LEVELS} levels written out"
    )]
    TooManyLevels {
        /// The danger fluent's name.
        name: String,
        /// The levels within the bound.
        levels: f64,
    },
    /// A raise of danger under a condition that compares numbers.
    #[error(
        "action `{action}` raises `{name}` under a condition that compares numbers; the written \
         task would evaluate it at every step, where the safety check may never read it (a \
         fluent with no value would fail the step)"
    )]
    NumericCondition {
        /// The action.
        action: String,
        /// The danger fluent's name.
        name: String,
        /// Where the condition is written.
        span: Span,
    },
    /// An initial danger that is not a whole number.
    #[error(
        "`{name}` starts at {value}, not a whole number; the levels count whole raises from it"
    )]
    NotWhole {
        /// The danger fluent's name.
        name: String,
        /// Its initial value.
        value: f64,
    },
}

impl DangerFactsError {
    /// The file and span of what was read, for the refusals found in one place.
    pub fn location(&self) -> Option<(FileKind, Span)> {
        match self {
            DangerFactsError::NotCountable { span, .. }
            | DangerFactsError::SeveralUpdates { span, .. }
            | DangerFactsError::NumericCondition { span, .. } => Some((FileKind::Domain, *span)),
            DangerFactsError::DangerRead { file, span, .. } => Some((*file, *span)),
            DangerFactsError::NoDanger { .. }
            | DangerFactsError::Constraints
            | DangerFactsError::Temporal
            | DangerFactsError::TooManyLevels { .. }
            | DangerFactsError::NotWhole { .. } => None,
        }
    }
}

/// The classical task whose plans are exactly the `goal` plans of the safety-augmented task
/// `domain` + `problem` with danger fluent `name` (see the module's documentation for the
/// conditions and why it is exact). Names of the new facts are `NAME-at-K` (danger is
/// d_init + K), `NAME-within-bound` and `NAME-above-bound`, suffixed with `-0`, `-1`, … if
/// the domain already uses them.
pub fn danger_as_facts(
    domain: &Domain,
    problem: &Problem,
    name: &str,
    goal: DangerGoal,
) -> Result<(Domain, Problem), DangerFactsError> {
    // Rules first: a task whose safety is only its rules is a safety task, just not one a
    // classical task can state.
    if domain.constraints.is_some()
        || problem.constraints.is_some()
        || problem.goal_preferences.is_some()
        || domain
            .actions
            .iter()
            .filter_map(|a| a.precondition.as_ref())
            .any(has_preference)
    {
        return Err(DangerFactsError::Constraints);
    }
    if !crate::SafetyTask::is_safety_augmented(domain, name) {
        return Err(DangerFactsError::NoDanger { name: name.into() });
    }
    if !domain.durative_actions.is_empty() {
        return Err(DangerFactsError::Temporal);
    }
    check_unread(domain, problem, name)?;
    let d_init = problem
        .init
        .iter()
        .find_map(|e| match e {
            InitEntry::Assign(f, v, _) if f.function.matches(name) && f.args.is_empty() => Some(*v),
            _ => None,
        })
        .unwrap_or(0.0);
    if d_init.fract() != 0.0 || !d_init.is_finite() {
        return Err(DangerFactsError::NotWhole {
            name: name.into(),
            value: d_init,
        });
    }
    let d_max = problem
        .goal
        .as_ref()
        .and_then(|g| danger_bound(g, name))
        .unwrap_or(0.0);
    // How many levels are within the bound: d_init, d_init + 1, …, ⌊d_max⌋. A bound further
    // than MAX_LEVELS raises is refused rather than written as a task of that many facts.
    let levels = (d_max.floor() - d_init + 1.0).max(0.0);
    if levels > MAX_LEVELS as f64 {
        return Err(DangerFactsError::TooManyLevels {
            name: name.into(),
            levels,
        });
    }
    let within = levels as usize;
    let facts = Facts::new(domain, name, within);

    let mut d = domain.clone();
    for action in &mut d.actions {
        let Some(effect) = action.effect.take() else {
            continue;
        };
        let mut rewrite = Rewrite {
            action: action.name.as_str(),
            name,
            facts: &facts,
            update: None,
            transitions: Vec::new(),
        };
        let kept = rewrite.effect(effect, &[], false)?;
        let mut parts = match kept {
            Some(Effect::And(parts, _)) => parts,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        parts.append(&mut rewrite.transitions);
        action.effect = Some(Effect::And(parts, action.span));
    }
    // No effect reads or writes danger now; the basic task drops its declaration, its
    // initial value and its bound in the goal.
    let (mut d, mut p) = basic_task(&d, problem, name);
    d.predicates.extend(facts.declarations());
    // With danger gone, a task whose only function left is `total-cost` has action costs,
    // not numbers: said so, as classical planners read it (Fast Downward's translator
    // refuses `:numeric-fluents`).
    if !d.functions.is_empty() && d.functions.iter().all(|f| f.name.matches("total-cost")) {
        d.requirements.retain(|r| {
            !matches!(
                r.requirement,
                Some(Requirement::NumericFluents | Requirement::Fluents)
            )
        });
        if !has_requirement(&d, Requirement::ActionCosts) {
            d.requirements.push(RequirementDecl {
                requirement: Some(Requirement::ActionCosts),
                name: Name::new(":action-costs", Span::default()),
            });
        }
    }
    if within > 0 && !has_requirement(&d, Requirement::ConditionalEffects) {
        d.requirements.push(RequirementDecl {
            requirement: Some(Requirement::ConditionalEffects),
            name: Name::new(":conditional-effects", Span::default()),
        });
    }
    if within > 0 {
        p.init.push(InitEntry::Atom(facts.level(0)));
        p.init.push(InitEntry::Atom(facts.within()));
    } else {
        p.init.push(InitEntry::Atom(facts.above()));
    }
    let wanted = match goal {
        DangerGoal::Safe => facts.within(),
        DangerGoal::Unsafe => facts.above(),
    };
    p.goal = Some(match p.goal.take() {
        Some(Formula::And(mut parts, span)) => {
            parts.push(Formula::Atom(wanted));
            Formula::And(parts, span)
        }
        Some(other) => Formula::And(vec![other, Formula::Atom(wanted)], Span::default()),
        None => Formula::Atom(wanted),
    });
    Ok((d, p))
}

/// The most levels within the bound written out (a bound some hundred thousand raises away
/// is no task a classical planner is handed).
const MAX_LEVELS: usize = 1 << 16;

fn has_requirement(d: &Domain, r: Requirement) -> bool {
    d.requirements.iter().any(|x| x.requirement == Some(r))
}

/// The names of the new facts.
struct Facts {
    at: String,
    within: String,
    above: String,
    levels: usize,
}

impl Facts {
    fn new(domain: &Domain, name: &str, levels: usize) -> Facts {
        let taken = |n: &str| {
            domain.predicates.iter().any(|p| p.name.matches(n))
                || domain.derived.iter().any(|p| p.head.name.matches(n))
        };
        // One suffix for all three, so that they read as a family.
        let fresh = |suffix: &str| {
            let at = format!("{name}-at{suffix}");
            let clash = (0..levels).any(|k| taken(&format!("{at}-{k}")))
                || taken(&format!("{name}-within-bound{suffix}"))
                || taken(&format!("{name}-above-bound{suffix}"));
            (!clash).then(|| Facts {
                at,
                within: format!("{name}-within-bound{suffix}"),
                above: format!("{name}-above-bound{suffix}"),
                levels,
            })
        };
        fresh("")
            .or_else(|| (0..).find_map(|i| fresh(&format!("-{i}"))))
            .expect("some suffix is free: the domain declares finitely many predicates")
    }

    fn atom(name: &str) -> Atom {
        Atom {
            predicate: Name::new(name, Span::default()),
            args: Vec::new(),
            span: Span::default(),
        }
    }

    fn level(&self, k: usize) -> Atom {
        Facts::atom(&format!("{}-{k}", self.at))
    }

    fn within(&self) -> Atom {
        Facts::atom(&self.within)
    }

    fn above(&self) -> Atom {
        Facts::atom(&self.above)
    }

    fn declarations(&self) -> Vec<PredicateDecl> {
        let declare = |a: Atom| PredicateDecl {
            name: a.predicate,
            params: Vec::new(),
            span: Span::default(),
        };
        (0..self.levels)
            .map(|k| declare(self.level(k)))
            .chain([declare(self.within()), declare(self.above())])
            .collect()
    }

    /// The conditional effects of one raise by `by` under `conditions`: from each level
    /// within the bound to the level it reaches, or above the bound.
    fn transitions(&self, conditions: &[Formula], by: usize) -> Vec<Effect> {
        if by == 0 {
            return Vec::new();
        }
        (0..self.levels)
            .map(|k| {
                let mut when: Vec<Formula> = conditions.to_vec();
                when.push(Formula::Atom(self.level(k)));
                let mut then = vec![Effect::Delete(self.level(k), Span::default())];
                match k.checked_add(by).filter(|&to| to < self.levels) {
                    Some(to) => then.push(Effect::Add(self.level(to))),
                    None => {
                        then.push(Effect::Delete(self.within(), Span::default()));
                        then.push(Effect::Add(self.above()));
                    }
                }
                Effect::When(
                    Formula::And(when, Span::default()),
                    Box::new(Effect::And(then, Span::default())),
                    Span::default(),
                )
            })
            .collect()
    }
}

/// One action's effect being rewritten.
struct Rewrite<'a> {
    action: &'a str,
    name: &'a str,
    facts: &'a Facts,
    /// Where the action's one update is, once found.
    update: Option<Span>,
    /// The level transitions, each already under all its conditions (PDDL has no `when`
    /// inside `when`, so they go to the top of the effect).
    transitions: Vec<Effect>,
}

impl Rewrite<'_> {
    /// `effect` without its update on danger (`None` when nothing else is left), the update's
    /// transitions collected on the side.
    fn effect(
        &mut self,
        effect: Effect,
        conditions: &[Formula],
        under_forall: bool,
    ) -> Result<Option<Effect>, DangerFactsError> {
        match effect {
            Effect::Numeric(op, f, value, span) if f.function.matches(self.name) => {
                if under_forall || self.update.is_some() {
                    return Err(self.several(span));
                }
                self.update = Some(span);
                if let Some(at) = conditions.iter().find_map(compares_numbers) {
                    return Err(DangerFactsError::NumericCondition {
                        action: self.action.into(),
                        name: self.name.into(),
                        span: at,
                    });
                }
                let by = raise(op, &value, self.name).ok_or(DangerFactsError::NotCountable {
                    action: self.action.into(),
                    name: self.name.into(),
                    span,
                })?;
                self.transitions
                    .extend(self.facts.transitions(conditions, by));
                Ok(None)
            }
            Effect::And(parts, span) => {
                let mut kept = Vec::with_capacity(parts.len());
                for part in parts {
                    kept.extend(self.effect(part, conditions, under_forall)?);
                }
                Ok(Some(Effect::And(kept, span)))
            }
            Effect::When(condition, body, span) => {
                let mut inner = conditions.to_vec();
                inner.push(condition.clone());
                match self.effect(*body, &inner, under_forall)? {
                    Some(Effect::And(parts, _)) if parts.is_empty() => Ok(None),
                    Some(body) => Ok(Some(Effect::When(condition, Box::new(body), span))),
                    None => Ok(None),
                }
            }
            Effect::Forall(vars, body, span) => {
                if mentions_update(&body, self.name) {
                    return Err(self.several(span));
                }
                Ok(Some(Effect::Forall(vars, body, span)))
            }
            other => Ok(Some(other)),
        }
    }

    fn several(&self, span: Span) -> DangerFactsError {
        DangerFactsError::SeveralUpdates {
            action: self.action.into(),
            name: self.name.into(),
            span,
        }
    }
}

/// The first sub-formula of `f` (itself included, depth first) where `hit` answers.
fn find_in(f: &Formula, hit: &dyn Fn(&Formula) -> Option<Span>) -> Option<Span> {
    if let Some(span) = hit(f) {
        return Some(span);
    }
    match f {
        Formula::Not(x, _)
        | Formula::Exists(_, x, _)
        | Formula::Forall(_, x, _)
        | Formula::Preference(_, x, _) => find_in(x, hit),
        Formula::And(parts, _) | Formula::Or(parts, _) => {
            parts.iter().find_map(|p| find_in(p, hit))
        }
        Formula::Imply(a, b, _) => find_in(a, hit).or_else(|| find_in(b, hit)),
        Formula::Atom(_) | Formula::Equals(..) | Formula::Compare(..) => None,
    }
}

/// Where `f` compares numbers, if it does.
fn compares_numbers(f: &Formula) -> Option<Span> {
    find_in(f, &|g| match g {
        Formula::Compare(_, _, _, span) => Some(*span),
        _ => None,
    })
}

/// Whether a precondition holds a preference (PDDL3 simple preferences), which a classical
/// task cannot state.
fn has_preference(f: &Formula) -> bool {
    find_in(f, &|g| match g {
        Formula::Preference(_, _, span) => Some(*span),
        _ => None,
    })
    .is_some()
}

/// Whether `e` updates the fluent `name` anywhere.
fn mentions_update(e: &Effect, name: &str) -> bool {
    match e {
        Effect::Numeric(_, f, _, _) => f.function.matches(name),
        Effect::And(parts, _) => parts.iter().any(|p| mentions_update(p, name)),
        Effect::When(_, body, _) | Effect::Forall(_, body, _) => mentions_update(body, name),
        Effect::Add(_) | Effect::Delete(..) => false,
    }
}

/// How much an update raises danger, when it raises it by a whole non-negative number:
/// `(increase (d) c)`, `(assign (d) (+ c (d)))` or `(assign (d) (+ (d) c))`.
fn raise(op: AssignOp, value: &Expr, name: &str) -> Option<usize> {
    let whole = |e: &Expr| match e {
        // A raise past every level lands above the bound; `as` saturates a huge one.
        Expr::Number(c, _) if *c >= 0.0 && c.fract() == 0.0 && c.is_finite() => Some(*c as usize),
        _ => None,
    };
    let is_danger = |e: &Expr| matches!(e, Expr::Fluent(f) if f.function.matches(name));
    match (op, value) {
        (AssignOp::Increase, c) => whole(c),
        (AssignOp::Assign, Expr::Arith(ArithOp::Add, args, _)) if args.len() == 2 => {
            match (&args[0], &args[1]) {
                (c, d) | (d, c) if is_danger(d) => whole(c),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Refuse a task that reads danger anywhere but the goal's bound.
fn check_unread(domain: &Domain, problem: &Problem, name: &str) -> Result<(), DangerFactsError> {
    let read = |place: String, file: FileKind, span: Span| DangerFactsError::DangerRead {
        place,
        file,
        name: name.into(),
        span,
    };
    for action in &domain.actions {
        if let Some(span) = action
            .precondition
            .as_ref()
            .and_then(|f| formula_reads(f, name))
        {
            return Err(read(
                format!("action `{}`'s precondition", action.name.as_str()),
                FileKind::Domain,
                span,
            ));
        }
        if let Some(span) = action.effect.as_ref().and_then(|e| effect_reads(e, name)) {
            return Err(read(
                format!("action `{}`'s effect", action.name.as_str()),
                FileKind::Domain,
                span,
            ));
        }
    }
    for derived in &domain.derived {
        if let Some(span) = formula_reads(&derived.body, name) {
            return Err(read(
                format!("derived predicate `{}`", derived.head.name.as_str()),
                FileKind::Domain,
                span,
            ));
        }
    }
    if let Some(goal) = &problem.goal {
        // The bound itself, a comparison at the top of the goal, is what the levels decide.
        let parts = match goal {
            Formula::And(parts, _) => parts.as_slice(),
            other => std::slice::from_ref(other),
        };
        let mut bounds = 0;
        for part in parts {
            let Some(span) = formula_reads(part, name) else {
                continue;
            };
            // An upper bound (`=`, `<=`, `<`) on danger alone is the bound; a lower bound,
            // a second bound or danger inside a formula would be dropped unread.
            if matches!(part, Formula::Compare(..)) && danger_bound(part, name).is_some() {
                bounds += 1;
                if bounds == 1 {
                    continue;
                }
            }
            return Err(read(
                "the goal (beyond one upper bound)".into(),
                FileKind::Problem,
                span,
            ));
        }
    }
    if let Some(metric) = &problem.metric
        && reads(&metric.expr, name)
    {
        return Err(read("the metric".into(), FileKind::Problem, metric.span));
    }
    Ok(())
}

/// Where `f` reads the fluent `name`, if it does.
fn formula_reads(f: &Formula, name: &str) -> Option<Span> {
    find_in(f, &|g| match g {
        Formula::Compare(_, l, r, span) if reads(l, name) || reads(r, name) => Some(*span),
        _ => None,
    })
}

/// Where an effect reads `name` in a condition or in the value of an update on another
/// fluent (an update of danger by danger itself is [`raise`]'s to judge).
fn effect_reads(e: &Effect, name: &str) -> Option<Span> {
    match e {
        Effect::Numeric(_, f, value, span) => {
            (!f.function.matches(name) && reads(value, name)).then_some(*span)
        }
        Effect::And(parts, _) => parts.iter().find_map(|p| effect_reads(p, name)),
        Effect::When(c, body, _) => formula_reads(c, name).or_else(|| effect_reads(body, name)),
        Effect::Forall(_, body, _) => effect_reads(body, name),
        Effect::Add(_) | Effect::Delete(..) => None,
    }
}
