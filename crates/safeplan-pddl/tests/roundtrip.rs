//! The writer round trip: `parse(write(ast)) == ast` up to spans, with no diagnostics.
//!
//! Three families: generated ASTs covering every node kind (proptest), every domain and
//! problem of the reference corpus, and snapshots of the layout of a small domain, problem
//! and plan, so a reviewer sees what the writer prints.
//!
//! The generators build ASTs in the shape PDDL's syntax can express (see the `write` module
//! docs): names from `[a-z][a-z0-9_-]{0,10}` minus reserved words; finite numbers; untyped
//! typed-list entries (and untyped functions) only after the last typed one; `?duration`
//! only in `:duration` constraints, against a number or a parenthesised expression (so
//! `(= ?duration ?x)` never stands for a numeric comparison, which PDDL reads as object
//! equality); object equality only on plain terms; `:init` atoms and fluents on constants.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;

use safeplan_pddl::Parsed;
use safeplan_pddl::ast::{
    Action, ArithOp, AssignOp, Atom, CmpOp, Constraint, Derived, Domain, DurativeAction, Effect,
    EraseSpans, Expr, FluentTerm, Formula, FunctionDecl, FunctionType, InitEntry, Metric, Modal,
    Name, Optimization, Plan, PlanStep, PredicateDecl, Problem, RequirementDecl, Term, TimeSpec,
    TimedEffect, TimedFormula, Type, Typed,
};
use safeplan_pddl::requirements::Requirement;
use safeplan_pddl::write::{write_effect, write_formula};
use safeplan_pddl::{
    Span, parse_domain, parse_plan, parse_problem, write_domain, write_plan, write_problem,
};

// ----- generators ---------------------------------------------------------------------------

/// Words the grammar gives a meaning somewhere a name can stand.
const RESERVED: &[&str] = &[
    "and",
    "or",
    "not",
    "imply",
    "exists",
    "forall",
    "when",
    "either",
    "at",
    "over",
    "define",
    "domain",
    "problem",
    "assign",
    "increase",
    "decrease",
    "scale-up",
    "scale-down",
    "start",
    "end",
    "all",
    "number",
    "integer",
    "minimize",
    "maximize",
    "preference",
];

fn sp() -> Span {
    Span::default()
}

fn name() -> impl Strategy<Value = Name> + Clone {
    "[a-z][a-z0-9_-]{0,10}"
        .prop_filter("reserved words are not names", |s| {
            !RESERVED.contains(&s.as_str())
        })
        .prop_map(|s| Name::new(s, Span::default()))
}

/// Finite numbers, mostly as people write them (integers, short decimals, negatives too),
/// sometimes any finite `f64` (huge, tiny, subnormal) to hold the writer to exact round trips.
fn number() -> impl Strategy<Value = f64> + Clone {
    use proptest::num::f64 as float;
    prop_oneof![
        4 => (-1000i32..1000).prop_map(f64::from),
        3 => (-100_000i32..100_000, 1i32..4).prop_map(|(m, k)| f64::from(m) / 10f64.powi(k)),
        1 => float::POSITIVE | float::NEGATIVE | float::NORMAL | float::SUBNORMAL | float::ZERO,
    ]
}

/// Non-negative numbers, for plan times, durations and costs.
fn non_negative() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        (0u32..1000).prop_map(f64::from),
        (0u32..100_000, 1i32..4).prop_map(|(m, k)| f64::from(m) / 10f64.powi(k)),
    ]
}

fn term() -> BoxedStrategy<Term> {
    prop_oneof![name().prop_map(Term::Var), name().prop_map(Term::Const)].boxed()
}

fn constant() -> BoxedStrategy<Term> {
    name().prop_map(Term::Const).boxed()
}

fn atom(args: BoxedStrategy<Term>) -> impl Strategy<Value = Atom> + Clone {
    (name(), vec(args, 0..4)).prop_map(|(predicate, args)| Atom {
        predicate,
        args,
        span: sp(),
    })
}

fn fluent(args: BoxedStrategy<Term>) -> impl Strategy<Value = FluentTerm> + Clone {
    (name(), vec(args, 0..3)).prop_map(|(function, args)| FluentTerm {
        function,
        args,
        span: sp(),
    })
}

fn ty() -> impl Strategy<Value = Type> + Clone {
    prop_oneof![
        3 => name().prop_map(Type::Named),
        1 => vec(name(), 1..4).prop_map(|names| Type::Either(names, sp())),
    ]
}

/// A typed list in the shape PDDL can express: runs of entries sharing a type, then untyped
/// entries at the end (an untyped entry before a typed one would get that type on reading).
fn typed_list() -> impl Strategy<Value = Vec<Typed>> + Clone {
    (vec((vec(name(), 1..3), ty()), 0..3), vec(name(), 0..3)).prop_map(|(groups, untyped)| {
        let mut out = Vec::new();
        for (names, t) in groups {
            out.extend(names.into_iter().map(|name| Typed {
                name,
                ty: Some(t.clone()),
            }));
        }
        out.extend(untyped.into_iter().map(|name| Typed { name, ty: None }));
        out
    })
}

/// A numeric expression without variables; `-` with one or two operands, `/` with two,
/// `+` and `*` with two to four.
fn expr(args: BoxedStrategy<Term>) -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        number().prop_map(|v| Expr::Number(v, sp())),
        fluent(args).prop_map(Expr::Fluent),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 1..=2).prop_map(|a| Expr::Arith(ArithOp::Sub, a, sp())),
            vec(inner.clone(), 2..=2).prop_map(|a| Expr::Arith(ArithOp::Div, a, sp())),
            (select(&[ArithOp::Add, ArithOp::Mul][..]), vec(inner, 2..=4))
                .prop_map(|(op, a)| Expr::Arith(op, a, sp())),
        ]
    })
    .boxed()
}

fn cmp_op() -> impl Strategy<Value = CmpOp> + Clone {
    select(&[CmpOp::Lt, CmpOp::Le, CmpOp::Eq, CmpOp::Ge, CmpOp::Gt][..])
}

fn assign_op() -> impl Strategy<Value = AssignOp> + Clone {
    select(
        &[
            AssignOp::Assign,
            AssignOp::Increase,
            AssignOp::Decrease,
            AssignOp::ScaleUp,
            AssignOp::ScaleDown,
        ][..],
    )
}

fn formula() -> BoxedStrategy<Formula> {
    let leaf = prop_oneof![
        4 => atom(term()).prop_map(Formula::Atom),
        1 => (term(), term()).prop_map(|(a, b)| Formula::Equals(a, b, sp())),
        1 => (cmp_op(), expr(term()), expr(term()))
            .prop_map(|(op, a, b)| Formula::Compare(op, a, b, sp())),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| Formula::Not(Box::new(f), sp())),
            vec(inner.clone(), 0..5).prop_map(|fs| Formula::And(fs, sp())),
            vec(inner.clone(), 0..4).prop_map(|fs| Formula::Or(fs, sp())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Formula::Imply(
                Box::new(a),
                Box::new(b),
                sp()
            )),
            (typed_list(), inner.clone()).prop_map(|(v, f)| Formula::Exists(v, Box::new(f), sp())),
            (typed_list(), inner).prop_map(|(v, f)| Formula::Forall(v, Box::new(f), sp())),
        ]
    })
    .boxed()
}

fn effect() -> BoxedStrategy<Effect> {
    let leaf = prop_oneof![
        2 => atom(term()).prop_map(Effect::Add),
        2 => atom(term()).prop_map(|a| Effect::Delete(a, sp())),
        1 => (assign_op(), fluent(term()), expr(term()))
            .prop_map(|(op, f, e)| Effect::Numeric(op, f, e, sp())),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(|es| Effect::And(es, sp())),
            (typed_list(), inner.clone()).prop_map(|(v, e)| Effect::Forall(v, Box::new(e), sp())),
            (formula(), inner).prop_map(|(c, e)| Effect::When(c, Box::new(e), sp())),
        ]
    })
    .boxed()
}

fn timed_formula() -> BoxedStrategy<TimedFormula> {
    let spec = select(&[TimeSpec::AtStart, TimeSpec::AtEnd, TimeSpec::OverAll][..]);
    let leaf = (spec, formula()).prop_map(|(s, f)| TimedFormula::At(s, f, sp()));
    leaf.prop_recursive(3, 8, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(|fs| TimedFormula::And(fs, sp())),
            (typed_list(), inner).prop_map(|(v, f)| TimedFormula::Forall(v, Box::new(f), sp())),
        ]
    })
    .boxed()
}

fn timed_effect() -> BoxedStrategy<TimedEffect> {
    // `over all` is for conditions only.
    let spec = select(&[TimeSpec::AtStart, TimeSpec::AtEnd][..]);
    let leaf = (spec, effect()).prop_map(|(s, e)| TimedEffect::At(s, e, sp()));
    leaf.prop_recursive(3, 8, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(|es| TimedEffect::And(es, sp())),
            (typed_list(), inner.clone()).prop_map(|(v, e)| TimedEffect::Forall(
                v,
                Box::new(e),
                sp()
            )),
            (timed_formula(), inner).prop_map(|(c, e)| TimedEffect::When(c, Box::new(e), sp())),
        ]
    })
    .boxed()
}

/// `(op ?duration e)` or `(op e ?duration)` with `e` a number or a parenthesised
/// expression, or a conjunction of those.
fn duration() -> impl Strategy<Value = Formula> {
    let one = (cmp_op(), expr(term()), any::<bool>()).prop_map(|(op, e, var_first)| {
        let var = Expr::Var(Name::new("duration", sp()));
        if var_first {
            Formula::Compare(op, var, e, sp())
        } else {
            Formula::Compare(op, e, var, sp())
        }
    });
    prop_oneof![
        3 => one.clone(),
        1 => vec(one, 0..3).prop_map(|fs| Formula::And(fs, sp())),
    ]
}

fn requirements() -> impl Strategy<Value = Vec<RequirementDecl>> {
    vec((select(Requirement::ALL), any::<bool>()), 0..4).prop_map(|rs| {
        rs.into_iter()
            .map(|(r, upper)| {
                let text = if upper {
                    r.as_str().to_ascii_uppercase()
                } else {
                    r.as_str().to_string()
                };
                RequirementDecl {
                    requirement: Some(r),
                    name: Name::new(text, sp()),
                }
            })
            .collect()
    })
}

fn predicate_decl() -> impl Strategy<Value = PredicateDecl> {
    (name(), typed_list()).prop_map(|(name, params)| PredicateDecl {
        name,
        params,
        span: sp(),
    })
}

/// Typed functions, then untyped ones (an untyped one before a typed one would be typed).
fn functions() -> impl Strategy<Value = Vec<FunctionDecl>> {
    let typed = prop_oneof![
        Just(FunctionType::Number(Span::default())),
        Just(FunctionType::Integer(Span::default())),
        ty().prop_map(FunctionType::Object),
    ];
    (
        vec((name(), typed_list(), typed), 0..3),
        vec((name(), typed_list()), 0..3),
    )
        .prop_map(|(typed, untyped)| {
            let mut out: Vec<FunctionDecl> = typed
                .into_iter()
                .map(|(name, params, ty)| FunctionDecl {
                    name,
                    params,
                    ty,
                    span: sp(),
                })
                .collect();
            out.extend(untyped.into_iter().map(|(name, params)| FunctionDecl {
                name,
                params,
                ty: FunctionType::Unspecified,
                span: sp(),
            }));
            out
        })
}

fn action() -> impl Strategy<Value = Action> {
    (
        name(),
        typed_list(),
        option::of(formula()),
        option::of(effect()),
    )
        .prop_map(|(name, params, precondition, effect)| Action {
            name,
            params,
            precondition,
            effect,
            span: sp(),
        })
}

fn derived() -> impl Strategy<Value = Derived> {
    (predicate_decl(), formula()).prop_map(|(head, body)| Derived {
        head,
        body,
        span: sp(),
    })
}

fn durative_action() -> impl Strategy<Value = DurativeAction> {
    (
        name(),
        typed_list(),
        option::of(duration()),
        option::of(timed_formula()),
        option::of(timed_effect()),
    )
        .prop_map(
            |(name, params, duration, condition, effect)| DurativeAction {
                name,
                params,
                duration,
                condition,
                effect,
                span: sp(),
            },
        )
}

/// One of PDDL3's ten operators over generated conditions.
fn modal() -> impl Strategy<Value = Modal> {
    let f = formula;
    let t = non_negative;
    prop_oneof![
        f().prop_map(Modal::AtEnd),
        f().prop_map(Modal::Always),
        f().prop_map(Modal::Sometime),
        (t(), f()).prop_map(|(t, a)| Modal::Within(t, a)),
        f().prop_map(Modal::AtMostOnce),
        (f(), f()).prop_map(|(a, b)| Modal::SometimeAfter(a, b)),
        (f(), f()).prop_map(|(a, b)| Modal::SometimeBefore(a, b)),
        (t(), f(), f()).prop_map(|(t, a, b)| Modal::AlwaysWithin(t, a, b)),
        (t(), t(), f()).prop_map(|(a, b, c)| Modal::HoldDuring(a, b, c)),
        (t(), f()).prop_map(|(t, a)| Modal::HoldAfter(t, a)),
    ]
}

/// A constraint without preferences: operators under `and` and `forall`.
fn hard_constraint() -> impl Strategy<Value = Constraint> {
    let leaf = modal().prop_map(|m| Constraint::Modal(Box::new(m), sp()));
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..3).prop_map(|cs| Constraint::And(cs, sp())),
            (typed_list(), inner).prop_map(|(vars, c)| Constraint::Forall(vars, Box::new(c), sp())),
        ]
    })
}

/// A `:constraints` section: hard constraints and preferences over them, under `and` and
/// `forall` (a preference never inside another).
fn constraint() -> impl Strategy<Value = Constraint> {
    let pref = (option::of(name()), hard_constraint())
        .prop_map(|(n, c)| Constraint::Preference(n, Box::new(c), sp()));
    let leaf = prop_oneof![hard_constraint(), pref];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..3).prop_map(|cs| Constraint::And(cs, sp())),
            (typed_list(), inner).prop_map(|(vars, c)| Constraint::Forall(vars, Box::new(c), sp())),
        ]
    })
}

/// Goal preferences as the parser reads them: `(preference NAME (at end φ))`, each under
/// the `forall`s written around it, several under one `and`.
fn goal_preferences() -> impl Strategy<Value = Constraint> {
    let pref = (option::of(name()), formula()).prop_map(|(n, f)| {
        let at_end = Constraint::Modal(Box::new(Modal::AtEnd(f)), sp());
        Constraint::Preference(n, Box::new(at_end), sp())
    });
    let one = prop_oneof![
        pref.clone(),
        (typed_list(), pref).prop_map(|(vars, p)| Constraint::Forall(vars, Box::new(p), sp())),
    ];
    prop_oneof![
        one.clone(),
        vec(one, 2..4).prop_map(|ps| Constraint::And(ps, sp())),
    ]
}

fn domain() -> impl Strategy<Value = Domain> {
    (
        name(),
        requirements(),
        typed_list(),
        typed_list(),
        vec(predicate_decl(), 0..4),
        functions(),
        vec(action(), 0..3),
        vec(derived(), 0..2),
        vec(durative_action(), 0..2),
        option::of(constraint()),
    )
        .prop_map(
            |(
                name,
                requirements,
                types,
                constants,
                predicates,
                functions,
                actions,
                derived,
                durative_actions,
                constraints,
            )| Domain {
                name,
                requirements,
                types,
                constants,
                predicates,
                functions,
                actions,
                derived,
                durative_actions,
                constraints,
                span: sp(),
            },
        )
}

fn init_entry() -> impl Strategy<Value = InitEntry> {
    prop_oneof![
        4 => atom(constant()).prop_map(InitEntry::Atom),
        1 => atom(constant()).prop_map(|a| InitEntry::Not(a, sp())),
        2 => (fluent(constant()), number()).prop_map(|(f, v)| InitEntry::Assign(f, v, sp())),
    ]
}

fn metric() -> impl Strategy<Value = Metric> {
    (
        select(&[Optimization::Minimize, Optimization::Maximize][..]),
        expr(constant()),
    )
        .prop_map(|(optimization, expr)| Metric {
            optimization,
            expr,
            span: sp(),
        })
}

fn problem() -> impl Strategy<Value = Problem> {
    (
        name(),
        name(),
        requirements(),
        typed_list(),
        vec(init_entry(), 0..8),
        formula(),
        option::of(metric()),
        option::of(constraint()),
        option::of((vec(formula(), 0..3), goal_preferences())),
    )
        .prop_map(
            |(name, domain, requirements, objects, init, goal, metric, constraints, soft)| {
                // With preferences the goal is written `(and hard... soft...)`, which reads
                // back as a conjunction: generate it as one.
                let (goal, goal_preferences) = match soft {
                    Some((hard, prefs)) => (Formula::And(hard, sp()), Some(prefs)),
                    None => (goal, None),
                };
                Problem {
                    name,
                    domain,
                    requirements,
                    objects,
                    init,
                    goal: Some(goal),
                    metric,
                    constraints,
                    goal_preferences,
                    span: sp(),
                }
            },
        )
}

/// Plain plans (IPC sequential files) and timestamped plans (`t: (step) [d]` on every line),
/// with or without a `; cost = N` trailer.
fn plan() -> impl Strategy<Value = Plan> {
    let step = |timed: bool| {
        (name(), vec(name(), 0..4), non_negative(), non_negative()).prop_map(
            move |(action, args, t, d)| PlanStep {
                action,
                args,
                time: timed.then_some(t),
                duration: timed.then_some(d),
                span: sp(),
            },
        )
    };
    let steps = prop_oneof![vec(step(false), 0..6), vec(step(true), 0..6)];
    (steps, option::of(non_negative())).prop_map(|(steps, cost)| Plan { steps, cost })
}

// ----- the round-trip check -----------------------------------------------------------------

/// Write `ast`, read it back, and say what differs (`Err` with the text and the difference).
fn round_trip<T>(
    ast: &T,
    write: impl Fn(&T) -> String,
    parse: impl Fn(&str) -> Parsed<T>,
) -> Result<(), String>
where
    T: EraseSpans + PartialEq + Debug + Clone,
{
    let text = write(ast);
    let parsed = parse(&text);
    if !parsed.diagnostics.is_empty() {
        return Err(format!(
            "the written text reads back with diagnostics {:#?}\n--- text ---\n{text}",
            parsed.diagnostics
        ));
    }
    let Some(mut back) = parsed.value else {
        return Err(format!(
            "the written text reads back as nothing\n--- text ---\n{text}"
        ));
    };
    back.erase_spans();
    let mut expected = ast.clone();
    expected.erase_spans();
    if back != expected {
        return Err(format!(
            "the AST read back differs\n--- text ---\n{text}\n--- expected ---\n{expected:#?}\n--- read back ---\n{back:#?}"
        ));
    }
    Ok(())
}

/// The domain `(define (domain d) (:action a :parameters () ...))` with the given parts.
fn domain_with_action(precondition: Option<Formula>, effect: Option<Effect>) -> Domain {
    Domain {
        name: Name::new("d", sp()),
        requirements: Vec::new(),
        types: Vec::new(),
        constants: Vec::new(),
        predicates: Vec::new(),
        functions: Vec::new(),
        actions: vec![Action {
            name: Name::new("a", sp()),
            params: Vec::new(),
            precondition,
            effect,
            span: sp(),
        }],
        derived: Vec::new(),
        durative_actions: Vec::new(),
        constraints: None,
        span: sp(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_domains_round_trip(d in domain()) {
        round_trip(&d, write_domain, parse_domain).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_problems_round_trip(p in problem()) {
        round_trip(&p, write_problem, parse_problem).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_plans_round_trip(p in plan()) {
        round_trip(&p, write_plan, parse_plan).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The one-line writers for messages print the same PDDL, just without line breaks.
    #[test]
    fn one_line_formulas_and_effects_read_back(f in formula(), e in effect()) {
        let text = format!(
            "(define (domain d) (:action a :parameters () :precondition {} :effect {}))",
            write_formula(&f),
            write_effect(&e),
        );
        prop_assert!(!text.contains('\n'));
        let parsed = parse_domain(&text);
        prop_assert!(parsed.diagnostics.is_empty(), "{:?}\n{}", parsed.diagnostics, text);
        let mut back = parsed.value;
        back.erase_spans();
        prop_assert_eq!(back, Some(domain_with_action(Some(f), Some(e))), "{}", text);
    }
}

// ----- the reference corpus -----------------------------------------------------------------

fn pddl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            pddl_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "pddl") {
            out.push(path);
        }
    }
}

fn is_domain_file(path: &Path) -> bool {
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    file == "domain.pddl"
        || file == "safe_domain.pddl"
        || file.starts_with("probe-domain")
        || file.starts_with("domain-")
}

/// Read `src`, write it, and check the text reads back to the same AST with no diagnostics.
fn corpus_round_trip<T>(
    src: &str,
    parse: impl Fn(&str) -> Parsed<T>,
    write: impl Fn(&T) -> String,
) -> Result<(), String>
where
    T: EraseSpans + PartialEq + Debug + Clone,
{
    let first = parse(src);
    if first.has_errors() {
        return Err(format!("the original has errors: {:#?}", first.diagnostics));
    }
    let Some(ast) = first.value else {
        return Err("the original reads as nothing".into());
    };
    round_trip(&ast, write, parse)
}

#[test]
fn corpus_domains_and_problems_round_trip() {
    let Some(data) = crate::data_dir() else {
        return;
    };
    let mut files = Vec::new();
    for sub in ["ipc", "despite-demo", "pddl3"] {
        pddl_files(&data.join(sub), &mut files);
    }
    files.sort();
    assert!(files.len() > 100, "only {} PDDL files found", files.len());
    let (mut domains, mut problems) = (0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let result = if is_domain_file(path) {
            domains += 1;
            corpus_round_trip(&src, parse_domain, write_domain)
        } else {
            problems += 1;
            corpus_round_trip(&src, parse_problem, write_problem)
        };
        if let Err(e) = result {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        domains > 0 && problems > 0,
        "{domains} domains, {problems} problems"
    );
    assert!(
        failures.is_empty(),
        "{} of {} files do not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

// ----- layout snapshots ---------------------------------------------------------------------

/// A small domain exercising every section, written on as few lines as possible so the
/// snapshot shows the writer's layout, not the input's.
const SNAPSHOT_DOMAIN: &str = "(define (domain kitchen) (:requirements :typing :adl :fluents \
    :durative-actions :derived-predicates) (:types robot cup - object location) (:constants \
    counter sink - location) (:predicates (at ?r - robot ?l - location) (holding ?r - robot ?c \
    - cup) (on ?c - cup ?l - location) (hot ?c - cup) (hand-free ?r) (safe ?l - location)) \
    (:functions (battery ?r - robot) - number (spills) (total-cost) - number) (:derived \
    (safe ?l - location) (not (exists (?c - cup) (and (on ?c ?l) (hot ?c))))) (:action move \
    :parameters (?r - robot ?from ?to - location) :precondition (and (at ?r ?from) (not (= ?from \
    ?to)) (>= (battery ?r) 1)) :effect (and (not (at ?r ?from)) (at ?r ?to) (decrease (battery \
    ?r) 1) (increase (total-cost) 1))) (:action pick :parameters (?r - robot ?c - cup ?l - \
    location) :precondition (and (at ?r ?l) (on ?c ?l) (hand-free ?r) (or (not (hot ?c)) (safe \
    ?l))) :effect (and (holding ?r ?c) (not (on ?c ?l)) (not (hand-free ?r)) (when (hot ?c) \
    (increase (spills) 1)) (forall (?o - cup) (when (and (on ?o ?l) (hot ?o) (not (= ?o ?c))) \
    (increase (spills) 1))))) (:action wait) (:durative-action cool :parameters (?c - cup ?l - \
    location) :duration (and (>= ?duration 5) (<= ?duration (* 2 (+ (spills) 10)))) :condition \
    (and (at start (hot ?c)) (over all (on ?c ?l)) (at end (safe ?l))) :effect (and (at end \
    (not (hot ?c))) (at end (increase (total-cost) (/ ?duration 10))))))";

const SNAPSHOT_PROBLEM: &str = "(define (problem breakfast) (:domain kitchen) (:objects r1 - \
    robot c1 c2 c3 - cup table stove - location) (:init (at r1 counter) (hand-free r1) (on c1 \
    stove) (hot c1) (on c2 table) (not (hot c2)) (on c3 sink) (= (battery r1) 12.5) (= (spills) \
    0) (= (total-cost) 0)) (:goal (and (holding r1 c1) (on c2 sink) (not (hot c3)) (forall (?c - \
    cup) (imply (hot ?c) (not (on ?c table)))))) (:metric minimize (+ (total-cost) (* 10 \
    (spills)))))";

/// Parse `src` cleanly, check it round-trips, and return its printed form for a snapshot.
fn written_layout<T: Clone + PartialEq + std::fmt::Debug + EraseSpans>(
    src: &str,
    parse: fn(&str) -> Parsed<T>,
    write: fn(&T) -> String,
) -> String {
    let parsed = parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let value = parsed
        .value
        .unwrap_or_else(|| panic!("the snapshot input reads"));
    if let Err(e) = round_trip(&value, write, parse) {
        panic!("{e}");
    }
    write(&value)
}

#[test]
fn snapshot_domain_layout() {
    insta::assert_snapshot!(written_layout(SNAPSHOT_DOMAIN, parse_domain, write_domain));
}

#[test]
fn snapshot_problem_layout() {
    insta::assert_snapshot!(written_layout(
        SNAPSHOT_PROBLEM,
        parse_problem,
        write_problem
    ));
}

#[test]
fn snapshot_plan_layout() {
    let step = |action: &str, args: &[&str], timing: Option<(f64, f64)>| PlanStep {
        action: Name::new(action, sp()),
        args: args.iter().map(|a| Name::new(*a, sp())).collect(),
        time: timing.map(|(t, _)| t),
        duration: timing.map(|(_, d)| d),
        span: sp(),
    };
    let sequential = Plan {
        steps: vec![
            step("move", &["r1", "counter", "stove"], None),
            step("pick", &["r1", "c1", "stove"], None),
            step("wait", &[], None),
        ],
        cost: Some(3.0),
    };
    let timestamped = Plan {
        steps: vec![
            step("move", &["r1", "counter", "stove"], Some((0.0, 1.0))),
            step("cool", &["c1", "stove"], Some((1.001, 12.5))),
        ],
        cost: None,
    };
    let text = format!(
        "{}--- timestamped ---\n{}",
        write_plan(&sequential),
        write_plan(&timestamped)
    );
    insta::assert_snapshot!(text);
}
