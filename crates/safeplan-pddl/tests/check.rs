//! Hand-written checker cases: each states the diagnostics it expects, worked out by hand.

use safeplan_pddl::ast::{Domain, Problem};
use safeplan_pddl::{
    CheckOptions, Code, LineIndex, Severity, check_domain, check_plan, check_problem, parse_domain,
    parse_plan, parse_problem,
};

fn domain(src: &str) -> Domain {
    let parsed = parse_domain(src);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    parsed.value.expect("domain")
}

fn problem(src: &str) -> Problem {
    let parsed = parse_problem(src);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    parsed.value.expect("problem")
}

/// `(code, severity, text at the span)` of each diagnostic.
fn summary<'s>(
    src: &'s str,
    diags: &[safeplan_pddl::Diagnostic],
) -> Vec<(Code, Severity, &'s str)> {
    diags
        .iter()
        .map(|d| (d.code, d.severity, &src[d.span.range()]))
        .collect()
}

const LOGISTICS: &str = "
(define (domain deliver)
  (:requirements :strips :typing)
  (:types truck van - vehicle
          vehicle package - locatable
          place)
  (:constants depot - place)
  (:predicates (at ?x - locatable ?p - place) (in ?p - package ?v - vehicle)
               (road ?a ?b - place) (parcel-or-truck ?x - (either package truck)))
  (:action drive
    :parameters (?v - vehicle ?from ?to - place)
    :precondition (and (at ?v ?from) (road ?from ?to))
    :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action load
    :parameters (?p - package ?v - vehicle ?l - place)
    :precondition (and (at ?p ?l) (at ?v ?l) (parcel-or-truck ?p))
    :effect (and (not (at ?p ?l)) (in ?p ?v))))";

const LOGISTICS_PROBLEM: &str = "
(define (problem one)
  (:domain DELIVER)
  (:objects t1 - truck v1 - van p1 p2 - package home - place)
  (:init (at t1 depot) (at V1 depot) (at p1 depot) (road depot home) (parcel-or-truck t1))
  (:goal (and (at p1 home) (exists (?v - vehicle) (in p2 ?v)))))";

#[test]
fn a_clean_typed_task_has_no_diagnostics_and_names_are_case_insensitive() {
    let d = domain(LOGISTICS);
    let p = problem(LOGISTICS_PROBLEM);
    let options = CheckOptions::default();
    assert!(check_domain(&d, &options).is_empty());
    // `exists` in the goal is undeclared (:existential-preconditions): the only warning.
    let diags = check_problem(&d, &p, &options);
    assert_eq!(
        summary(LOGISTICS_PROBLEM, &diags),
        [(
            Code::UndeclaredRequirement,
            Severity::Warning,
            "(exists (?v - vehicle) (in p2 ?v))"
        )]
    );
    // Strict mode makes it an error.
    let strict = check_problem(&d, &p, &CheckOptions { strict: true });
    assert_eq!(strict[0].severity, Severity::Error);
}

#[test]
fn plan_steps_are_checked_for_action_arity_object_and_type() {
    let d = domain(LOGISTICS);
    let p = problem(LOGISTICS_PROBLEM);
    let plan_src = "(DRIVE t1 depot home)\n(drvie t1 home depot)\n(load p1 t1)\n(load p1 t1 nowhere)\n(load p1 home depot)\n(load p1 v1 depot)\n";
    let plan = parse_plan(plan_src).value.expect("plan");
    let diags = check_plan(&d, &p, &plan);
    let got: Vec<(Option<usize>, Code, &str)> = diags
        .iter()
        .map(|x| (x.step, x.code, &plan_src[x.span.range()]))
        .collect();
    assert_eq!(
        got,
        [
            (Some(2), Code::UnknownAction, "drvie"),
            (Some(3), Code::ArityMismatch, "(load p1 t1)"),
            (Some(4), Code::UnknownObject, "nowhere"),
            // `home` is a place, `load` needs a vehicle second.
            (Some(5), Code::TypeMismatch, "home"),
        ]
    );
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `drive`?"));
    assert_eq!(
        diags[1].help.as_deref(),
        Some("write `(load ?p - package ?v - vehicle ?l - place)`")
    );
    assert_eq!(
        diags[3].help.as_deref(),
        Some("objects of type `vehicle`: t1, v1")
    );
    // The type error points back into the domain and problem.
    assert_eq!(diags[3].labels.len(), 2);
}

#[test]
fn a_supertype_object_does_not_fit_a_subtype_parameter_but_a_variable_may_overlap() {
    // In a schema, `?x - locatable` may be tested against `in`'s `?p - package`
    // (they overlap); in a plan, a `locatable` object cannot be passed where a `truck` is
    // needed.
    let d = domain(
        "(define (domain t) (:requirements :typing) (:types truck - locatable place)
          (:predicates (in ?t - truck) (at ?x - locatable ?p - place))
          (:action a :parameters (?x - locatable ?p - place) :precondition (in ?x) :effect (at ?x ?p)))",
    );
    assert!(check_domain(&d, &CheckOptions::default()).is_empty());
    let p = problem(
        "(define (problem q) (:domain t) (:objects l - locatable k - place) (:init) (:goal (and)))",
    );
    assert!(check_problem(&d, &p, &CheckOptions::default()).is_empty());
    let plan = parse_plan("(a l k)").value.expect("plan");
    assert!(
        check_plan(&d, &p, &plan).is_empty(),
        "the action takes a locatable"
    );
    let d2 = domain(
        "(define (domain t) (:requirements :typing) (:types truck - locatable place)
          (:predicates (in ?t - truck))
          (:action b :parameters (?t - truck) :effect (in ?t)))",
    );
    let plan = parse_plan("(b l)").value.expect("plan");
    let diags = check_plan(&d2, &p, &plan);
    assert_eq!(
        diags.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::TypeMismatch]
    );
}

#[test]
fn undeclared_requirements_are_named_with_the_flag_to_add() {
    let src = "(define (domain r) (:requirements :strips)
      (:predicates (p ?x) (q))
      (:functions (fuel))
      (:action a :parameters (?x ?y)
        :precondition (and (not (= ?x ?y)) (or (p ?x) (not (q))) (>= (fuel) 1))
        :effect (and (when (q) (p ?x)) (decrease (fuel) 1))))";
    let d = domain(src);
    let diags = check_domain(&d, &CheckOptions::default());
    let got: Vec<(Code, &str, Option<&str>)> = diags
        .iter()
        .map(|x| (x.code, &src[x.span.range()], x.help.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (
                Code::UndeclaredRequirement,
                "(fuel)",
                Some("add :numeric-fluents to the domain's `(:requirements ...)`")
            ),
            (
                Code::UndeclaredRequirement,
                "(= ?x ?y)",
                Some("add :equality to the domain's `(:requirements ...)`")
            ),
            (
                Code::UndeclaredRequirement,
                "(or (p ?x) (not (q)))",
                Some("add :disjunctive-preconditions to the domain's `(:requirements ...)`")
            ),
            (
                Code::UndeclaredRequirement,
                "(not (q))",
                Some("add :negative-preconditions to the domain's `(:requirements ...)`")
            ),
            (
                Code::UndeclaredRequirement,
                "(>= (fuel) 1)",
                Some("add :numeric-fluents to the domain's `(:requirements ...)`")
            ),
            (
                Code::UndeclaredRequirement,
                "(when (q) (p ?x))",
                Some("add :conditional-effects to the domain's `(:requirements ...)`")
            ),
            (
                Code::UndeclaredRequirement,
                "(decrease (fuel) 1)",
                Some("add :numeric-fluents to the domain's `(:requirements ...)`")
            ),
        ]
    );
    // `:adl` and `:fluents` expand to everything used above.
    let adl = domain(&src.replace(":requirements :strips", ":requirements :adl :fluents"));
    assert!(check_domain(&adl, &CheckOptions::default()).is_empty());
}

#[test]
fn action_costs_allow_total_cost_without_numeric_fluents() {
    let src = "(define (domain c) (:requirements :action-costs)
      (:predicates (p)) (:functions (total-cost) - number)
      (:action a :parameters () :effect (and (p) (increase (total-cost) 2))))";
    let d = domain(src);
    assert!(check_domain(&d, &CheckOptions::default()).is_empty());
    let p = problem(
        "(define (problem q) (:domain c) (:init (= (total-cost) 0)) (:goal (p)) (:metric minimize (total-cost)))",
    );
    assert!(check_problem(&d, &p, &CheckOptions::default()).is_empty());
}

#[test]
fn problem_level_mistakes_point_at_the_problem_and_back_at_the_domain() {
    let d = domain(LOGISTICS);
    let src = "(define (problem two) (:domain other)
      (:objects t1 - truck p1 - package home - place t1 - truck)
      (:init (at t1 depot) (at p1) (= (fuel t1) 3))
      (:goal (at p1 ?somewhere)))";
    let p = parse_problem(src).value.expect("problem");
    let diags = check_problem(&d, &p, &CheckOptions::default());
    let index = LineIndex::new(src);
    let got: Vec<(Code, Severity, &str, u32)> = diags
        .iter()
        .map(|x| {
            (
                x.code,
                x.severity,
                &src[x.span.range()],
                index.line_col(src, x.span.start).line,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Code::DuplicateName, Severity::Warning, "t1", 2),
            (Code::DomainMismatch, Severity::Warning, "other", 1),
            (Code::ArityMismatch, Severity::Error, "(at p1)", 3),
            (Code::UndefinedFunction, Severity::Error, "fuel", 3),
            (Code::UndefinedVariable, Severity::Error, "?somewhere", 4),
        ]
    );
    // The duplicate points at the first declaration.
    assert_eq!(&src[diags[0].labels[0].span.range()], "t1");
    assert!(diags[0].labels[0].span.start < diags[0].span.start);
}

#[test]
fn quantified_and_derived_variables_are_in_scope_only_inside() {
    let src = "(define (domain q) (:requirements :adl :derived-predicates)
      (:types block)
      (:predicates (on ?a ?b - block) (clear ?b - block) (above ?a ?b - block))
      (:derived (above ?a ?b - block) (or (on ?a ?b) (exists (?c - block) (and (on ?a ?c) (above ?c ?b)))))
      (:action unstack :parameters (?a - block)
        :precondition (forall (?b - block) (not (on ?b ?a)))
        :effect (forall (?b - block) (when (on ?a ?b) (and (not (on ?a ?b)) (clear ?b) (clear ?c))))))";
    let d = domain(src);
    let diags = check_domain(&d, &CheckOptions::default());
    let got: Vec<(Code, &str)> = diags
        .iter()
        .map(|x| (x.code, &src[x.span.range()]))
        .collect();
    assert_eq!(got, [(Code::UndefinedVariable, "?c")]);
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `?a`?"));
}

/// An untyped quantified variable in a typed domain (as PlanSys2's test domains write
/// `(exists (?ro) ...)`): a warning naming it, read as `object`; in an untyped domain,
/// nothing to say.
#[test]
fn an_untyped_quantified_variable_in_a_typed_domain_is_a_warning() {
    let typed = "(define (domain d) (:requirements :typing :existential-preconditions :negative-preconditions)
  (:types robot room)
  (:predicates (at ?r - robot ?m - room) (busy ?m - room))
  (:action go :parameters (?r - robot ?m - room)
    :precondition (not (exists (?ro) (at ?ro ?m)))
    :effect (at ?r ?m)))";
    let diags = check_domain(&domain(typed), &CheckOptions::default());
    assert_eq!(
        summary(typed, &diags),
        [(Code::UntypedVariable, Severity::Warning, "?ro")]
    );
    assert!(diags[0].message.contains("`?ro`") && diags[0].message.contains("`object`"));
    assert_eq!(Code::UntypedVariable.as_str(), "untyped-variable");
    let untyped =
        "(define (domain d) (:requirements :existential-preconditions :negative-preconditions)
  (:predicates (at ?r ?m))
  (:action go :parameters (?r ?m)
    :precondition (not (exists (?ro) (at ?ro ?m)))
    :effect (at ?r ?m)))";
    assert!(check_domain(&domain(untyped), &CheckOptions::default()).is_empty());
}
