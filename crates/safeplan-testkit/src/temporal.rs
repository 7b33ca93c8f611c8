//! A reference interpreter for temporal plans, in the simplest form that states the rules of
//! SEMANTICS.md §2b: a list of happenings over a set of strings.
//!
//! It covers the propositional core of PDDL 2.1 level 3 — durative actions whose duration
//! constraints compare `?duration` with numbers, whose conditions are conjunctions of
//! literals `at start`, `over all` and `at end`, and whose effects add and delete atoms at
//! start and at end — plus instantaneous STRIPS actions, typed or untyped. Everything else
//! (numeric fluents, quantifiers, conditional effects) is out of scope: [`run`] panics on it,
//! so a generator cannot drift into territory the reference does not know.
//!
//! The rules, written for reading, not for speed:
//!
//! 1. Every step is bound first, in file order (unknown action, arity, unknown object, type).
//! 2. Each durative step is a start at `t` and an end at `t + d` (`d` = 0 when missing), an
//!    instantaneous step one event at `t`. Events are sorted by time (stable: file order,
//!    start before end); an event at most `tolerance / 10` after the first event of a group
//!    belongs to that group.
//! 3. Per happening, against the state before it: the `over all` literals of every step
//!    started at an earlier happening and not ended before this one; then each event's
//!    duration constraint (a start) and conditions; then interference; then all adds and
//!    deletes (deletes first, so an atom both deleted and added is true).
//! 4. Interference, stated without VAL's bookkeeping: two different events of a happening
//!    clash over an atom when one of them adds or deletes it and the other reads it, or the
//!    other changes it the other way, or one of them also reads it. Two events that only add
//!    (or only delete) the same atom do not clash. This is what VAL's ownership rules decide
//!    whenever no single event both adds and deletes one atom at one time point (generated
//!    tasks never do); the engine, which follows VAL's rules to the letter, must agree.
//! 5. Valid iff every happening passes and the goal literals hold at the end; the metric
//!    `(total-time)` is the time of the last happening.

use std::collections::BTreeSet;

use safeplan_pddl::ast::{
    CmpOp, Domain, DurativeAction, Effect, Expr, Formula, Plan, Problem, Term, TimeSpec,
    TimedEffect, TimedFormula,
};

/// What the reference says about a temporal plan.
#[derive(Clone, Debug, PartialEq)]
pub struct TemporalOutcome {
    /// Every happening passes and the goal holds at the end.
    pub valid: bool,
    /// `None` when valid; else `unknown_action`, `arity_mismatch`, `unknown_object`,
    /// `type_mismatch`, `duration_constraint`, `unsatisfied_precondition`,
    /// `invariant_violated`, `mutex` or `unsatisfied_goal`.
    pub kind: Option<&'static str>,
    /// 1-based step (file order) of the failure; for a mutex, any of the steps involved
    /// (see [`TemporalOutcome::mutex_steps`]); `None` for the goal.
    pub step: Option<usize>,
    /// For a mutex: every step with an event in the clash.
    pub mutex_steps: Vec<usize>,
    /// The time of the failing happening.
    pub time: Option<f64>,
    /// Valid plans: the time of the last happening.
    pub total_time: Option<f64>,
    /// Valid plans and goal failures: the true atoms at the end, `(p a b)`, sorted.
    pub atoms: Vec<String>,
}

/// One literal: an atom (lowercased `(p a b)` once bound) and whether it must be true.
type Literal = (bool, String, Vec<Term>);

#[derive(Default)]
struct Schema {
    name: String,
    params: Vec<(String, Vec<String>)>,
    durative: bool,
    duration: Vec<(CmpOp, f64)>,
    at_start: Vec<Literal>,
    over_all: Vec<Literal>,
    at_end: Vec<Literal>,
    /// (add?, atom) at start / at end.
    start_effects: Vec<Literal>,
    end_effects: Vec<Literal>,
}

struct Bound<'s> {
    schema: &'s Schema,
    args: Vec<String>,
    start: f64,
    duration: f64,
}

#[derive(Clone, Copy, PartialEq)]
enum Ev {
    Start,
    End,
    Instant,
}

/// Run `plan` on `domain`/`problem` with VAL's `tolerance`.
pub fn run(domain: &Domain, problem: &Problem, plan: &Plan, tolerance: f64) -> TemporalOutcome {
    let schemas = schemas(domain);
    let types = type_parents(domain);
    let objects: Vec<(String, Vec<String>)> = domain
        .constants
        .iter()
        .chain(&problem.objects)
        .map(|o| (lower(&o.name.text), type_list(o.ty.as_ref())))
        .collect();
    let fail = |kind: &'static str, step: Option<usize>, time: Option<f64>| TemporalOutcome {
        valid: false,
        kind: Some(kind),
        step,
        mutex_steps: Vec::new(),
        time,
        total_time: None,
        atoms: Vec::new(),
    };

    // 1. Binding.
    let mut bound = Vec::new();
    let mut next_default = 1.0;
    for (i, step) in plan.steps.iter().enumerate() {
        let k = Some(i + 1);
        let time = step.time.unwrap_or(next_default);
        let Some(schema) = schemas.iter().find(|s| s.name == lower(&step.action.text)) else {
            return fail("unknown_action", k, Some(time));
        };
        if step.args.len() != schema.params.len() {
            return fail("arity_mismatch", k, Some(time));
        }
        let args: Vec<String> = step.args.iter().map(|a| lower(&a.text)).collect();
        for a in &args {
            if !objects.iter().any(|(o, _)| o == a) {
                return fail("unknown_object", k, Some(time));
            }
        }
        for (a, (_, want)) in args.iter().zip(&schema.params) {
            let (_, have) = objects.iter().find(|(o, _)| o == a).unwrap();
            let fits = have
                .iter()
                .any(|h| want.iter().any(|w| is_subtype(&types, h, w)));
            if !fits {
                return fail("type_mismatch", k, Some(time));
            }
        }
        let start = step.time.unwrap_or_else(|| {
            next_default += 1.0;
            next_default - 1.0
        });
        let duration = if schema.durative {
            step.duration.unwrap_or(0.0)
        } else {
            0.0
        };
        bound.push(Bound {
            schema,
            args,
            start,
            duration,
        });
    }

    // 2. Events and happenings.
    let mut events: Vec<(f64, usize, Ev)> = Vec::new();
    for (i, b) in bound.iter().enumerate() {
        if b.schema.durative {
            events.push((b.start, i, Ev::Start));
            events.push((b.start + b.duration, i, Ev::End));
        } else {
            events.push((b.start, i, Ev::Instant));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut happenings: Vec<Vec<(f64, usize, Ev)>> = Vec::new();
    for e in events {
        match happenings.last_mut() {
            Some(h) if e.0 <= h[0].0 + tolerance / 10.0 => h.push(e),
            _ => happenings.push(vec![e]),
        }
    }

    // 3. Execution.
    let mut state: BTreeSet<String> = problem
        .init
        .iter()
        .filter_map(|e| match e {
            safeplan_pddl::ast::InitEntry::Atom(a) => Some(show(
                &a.predicate.text,
                &a.args
                    .iter()
                    .map(|t| lower(&t.name().text))
                    .collect::<Vec<_>>(),
            )),
            _ => None,
        })
        .collect();
    let mut open: Vec<usize> = Vec::new();
    let mut last = 0.0;
    for h in &happenings {
        let t = h[0].0;
        for &s in &open {
            if !holds(&state, &bound[s], &bound[s].schema.over_all) {
                return fail("invariant_violated", Some(s + 1), Some(t));
            }
        }
        for &(_, s, ev) in h {
            let b = &bound[s];
            if ev == Ev::Start {
                for &(op, want) in &b.schema.duration {
                    let d = b.duration;
                    let ok = match op {
                        CmpOp::Eq => (d - want).abs() < tolerance,
                        CmpOp::Le => d - want <= tolerance,
                        CmpOp::Ge => tolerance >= want - d,
                        CmpOp::Lt => d < want,
                        CmpOp::Gt => d > want,
                    };
                    if !ok {
                        return fail("duration_constraint", Some(s + 1), Some(t));
                    }
                }
            }
            let conditions = match ev {
                Ev::End => &b.schema.at_end,
                Ev::Start | Ev::Instant => &b.schema.at_start,
            };
            if !holds(&state, b, conditions) {
                return fail("unsatisfied_precondition", Some(s + 1), Some(t));
            }
        }
        // Interference: per event, which atoms it reads, adds and deletes.
        let uses: Vec<(BTreeSet<String>, BTreeSet<String>, BTreeSet<String>)> = h
            .iter()
            .map(|&(_, s, ev)| {
                let b = &bound[s];
                let (conds, effs) = match ev {
                    Ev::End => (&b.schema.at_end, &b.schema.end_effects),
                    _ => (&b.schema.at_start, &b.schema.start_effects),
                };
                let reads = conds.iter().map(|l| ground(b, l)).collect();
                let adds = effs.iter().filter(|l| l.0).map(|l| ground(b, l)).collect();
                let dels = effs.iter().filter(|l| !l.0).map(|l| ground(b, l)).collect();
                (reads, adds, dels)
            })
            .collect();
        let mut clash: BTreeSet<usize> = BTreeSet::new();
        for i in 0..h.len() {
            for j in 0..h.len() {
                if i == j {
                    continue;
                }
                let (ri, ai, di) = &uses[i];
                let (rj, aj, dj) = &uses[j];
                for p in ai.iter().chain(di) {
                    let other_way = if ai.contains(p) {
                        dj.contains(p)
                    } else {
                        aj.contains(p)
                    };
                    if rj.contains(p)
                        || other_way
                        || (ri.contains(p) && (aj.contains(p) || dj.contains(p)))
                    {
                        clash.insert(h[i].1 + 1);
                        clash.insert(h[j].1 + 1);
                    }
                }
            }
        }
        if !clash.is_empty() {
            let mut out = fail("mutex", clash.first().copied(), Some(t));
            out.mutex_steps = clash.into_iter().collect();
            return out;
        }
        let mut adds = Vec::new();
        let mut dels = Vec::new();
        for (i, _) in h.iter().enumerate() {
            adds.extend(uses[i].1.iter().cloned());
            dels.extend(uses[i].2.iter().cloned());
        }
        for d in dels {
            state.remove(&d);
        }
        state.extend(adds);
        for &(_, s, ev) in h {
            match ev {
                Ev::Start => open.push(s),
                Ev::End => open.retain(|&o| o != s),
                Ev::Instant => {}
            }
        }
        last = t;
    }
    let goal = goal_literals(problem);
    let goal_holds = goal
        .iter()
        .all(|(positive, atom)| state.contains(atom) == *positive);
    TemporalOutcome {
        valid: goal_holds,
        kind: (!goal_holds).then_some("unsatisfied_goal"),
        step: None,
        mutex_steps: Vec::new(),
        time: None,
        total_time: goal_holds.then_some(last),
        atoms: state.into_iter().collect(),
    }
}

fn holds(state: &BTreeSet<String>, b: &Bound, literals: &[Literal]) -> bool {
    literals
        .iter()
        .all(|l| state.contains(&ground(b, l)) == l.0)
}

fn ground(b: &Bound, (_, pred, args): &Literal) -> String {
    let names: Vec<String> = args
        .iter()
        .map(|t| match t {
            Term::Var(v) => {
                let i = b
                    .schema
                    .params
                    .iter()
                    .position(|(p, _)| *p == lower(&v.text))
                    .expect("a parameter");
                b.args[i].clone()
            }
            Term::Const(c) => lower(&c.text),
        })
        .collect();
    show(pred, &names)
}

fn show(pred: &str, args: &[String]) -> String {
    let mut s = format!("({}", lower(pred));
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s.push(')');
    s
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn type_list(ty: Option<&safeplan_pddl::ast::Type>) -> Vec<String> {
    match ty {
        None => vec!["object".into()],
        Some(t) => t.names().iter().map(|n| lower(&n.text)).collect(),
    }
}

fn type_parents(domain: &Domain) -> Vec<(String, Vec<String>)> {
    domain
        .types
        .iter()
        .map(|t| (lower(&t.name.text), type_list(t.ty.as_ref())))
        .collect()
}

fn is_subtype(types: &[(String, Vec<String>)], have: &str, want: &str) -> bool {
    if want == "object" || have == want {
        return true;
    }
    types
        .iter()
        .filter(|(t, _)| t == have)
        .flat_map(|(_, parents)| parents)
        .any(|p| p != have && is_subtype(types, p, want))
}

fn schemas(domain: &Domain) -> Vec<Schema> {
    let mut out = Vec::new();
    for a in &domain.actions {
        let mut s = Schema {
            name: lower(&a.name.text),
            params: a
                .params
                .iter()
                .map(|p| (lower(&p.name.text), type_list(p.ty.as_ref())))
                .collect(),
            ..Schema::default()
        };
        if let Some(f) = &a.precondition {
            literals(f, &mut s.at_start);
        }
        if let Some(e) = &a.effect {
            effects(e, &mut s.start_effects);
        }
        out.push(s);
    }
    for a in &domain.durative_actions {
        out.push(durative(a));
    }
    out
}

fn durative(a: &DurativeAction) -> Schema {
    let mut s = Schema {
        name: lower(&a.name.text),
        params: a
            .params
            .iter()
            .map(|p| (lower(&p.name.text), type_list(p.ty.as_ref())))
            .collect(),
        durative: true,
        ..Schema::default()
    };
    if let Some(d) = &a.duration {
        duration(d, &mut s.duration);
    }
    if let Some(c) = &a.condition {
        timed_conditions(c, &mut s);
    }
    if let Some(e) = &a.effect {
        timed_effects(e, &mut s);
    }
    s
}

fn duration(f: &Formula, out: &mut Vec<(CmpOp, f64)>) {
    match f {
        Formula::And(parts, _) => parts.iter().for_each(|p| duration(p, out)),
        Formula::Compare(op, Expr::Var(_), Expr::Number(x, _), _) => out.push((*op, *x)),
        other => panic!("the temporal reference reads only `(OP ?duration NUMBER)`: {other:?}"),
    }
}

fn timed_conditions(f: &TimedFormula, s: &mut Schema) {
    match f {
        TimedFormula::And(parts, _) => parts.iter().for_each(|p| timed_conditions(p, s)),
        TimedFormula::At(spec, f, _) => literals(
            f,
            match spec {
                TimeSpec::AtStart => &mut s.at_start,
                TimeSpec::OverAll => &mut s.over_all,
                TimeSpec::AtEnd => &mut s.at_end,
            },
        ),
        TimedFormula::Forall(..) => panic!("the temporal reference reads no quantifiers"),
    }
}

fn timed_effects(e: &TimedEffect, s: &mut Schema) {
    match e {
        TimedEffect::And(parts, _) => parts.iter().for_each(|p| timed_effects(p, s)),
        TimedEffect::At(TimeSpec::AtEnd, e, _) => effects(e, &mut s.end_effects),
        TimedEffect::At(_, e, _) => effects(e, &mut s.start_effects),
        other => panic!("the temporal reference reads only timed adds and deletes: {other:?}"),
    }
}

fn literals(f: &Formula, out: &mut Vec<Literal>) {
    match f {
        Formula::And(parts, _) => parts.iter().for_each(|p| literals(p, out)),
        Formula::Atom(a) => out.push((true, a.predicate.text.to_string(), a.args.clone())),
        Formula::Not(inner, _) => match inner.as_ref() {
            Formula::Atom(a) => out.push((false, a.predicate.text.to_string(), a.args.clone())),
            other => panic!("the temporal reference reads only literals: {other:?}"),
        },
        other => panic!("the temporal reference reads only literals: {other:?}"),
    }
}

fn effects(e: &Effect, out: &mut Vec<Literal>) {
    match e {
        Effect::And(parts, _) => parts.iter().for_each(|p| effects(p, out)),
        Effect::Add(a) => out.push((true, a.predicate.text.to_string(), a.args.clone())),
        Effect::Delete(a, _) => out.push((false, a.predicate.text.to_string(), a.args.clone())),
        other => panic!("the temporal reference reads only adds and deletes: {other:?}"),
    }
}

fn goal_literals(problem: &Problem) -> Vec<(bool, String)> {
    let mut lits = Vec::new();
    if let Some(g) = &problem.goal {
        literals(g, &mut lits);
    }
    lits.into_iter()
        .map(|(positive, pred, args)| {
            let names: Vec<String> = args.iter().map(|t| lower(&t.name().text)).collect();
            (positive, show(&pred, &names))
        })
        .collect()
}
