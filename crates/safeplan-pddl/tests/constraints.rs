//! PDDL3 trajectory constraints and preferences as the parser reads them: every operator
//! with its times and conditions, `forall` and `preference` around them, goal preferences
//! taken out of the goal, a section without `and`, and the checker's requirement and
//! `is-violated` checks. Expected trees and positions are written out by hand.

use safeplan_pddl::ast::{Constraint, ConstraintOp, EraseSpans, Formula, Modal};
use safeplan_pddl::{
    CheckOptions, Code, LineIndex, Severity, check_problem, parse_domain, parse_problem,
    preference_names, write_problem,
};

const DOMAIN: &str = "(define (domain kitchen)
  (:requirements :strips :typing :negative-preconditions :constraints :preferences)
  (:types item place)
  (:predicates (at ?i - item ?p - place) (holding ?i - item) (hot ?i - item))
  (:action pick :parameters (?i - item ?p - place)
    :precondition (at ?i ?p) :effect (and (holding ?i) (not (at ?i ?p)))))";

fn problem(sections: &str) -> String {
    format!(
        "(define (problem p) (:domain kitchen)
  (:objects knife cup - item table sink - place)
  (:init (at knife table) (at cup sink))
{sections})"
    )
}

/// The operators of a constraint tree, depth first, with their times.
fn operators(c: &Constraint, out: &mut Vec<(ConstraintOp, Vec<f64>)>) {
    match c {
        Constraint::And(parts, _) => parts.iter().for_each(|p| operators(p, out)),
        Constraint::Forall(_, body, _) | Constraint::Preference(_, body, _) => operators(body, out),
        Constraint::Modal(m, _) => {
            let times = match &**m {
                Modal::Within(t, _) | Modal::HoldAfter(t, _) | Modal::AlwaysWithin(t, ..) => {
                    vec![*t]
                }
                Modal::HoldDuring(a, b, _) => vec![*a, *b],
                _ => Vec::new(),
            };
            out.push((m.op(), times));
        }
    }
}

#[test]
fn every_operator_reads_with_its_times_and_conditions() {
    let src = problem(
        "  (:goal (holding cup))
  (:constraints (and
    (at end (holding cup))
    (always (not (hot knife)))
    (sometime (holding knife))
    (within 4 (holding cup))
    (at-most-once (holding knife))
    (sometime-after (holding knife) (at knife table))
    (sometime-before (holding cup) (holding knife))
    (always-within 2.5 (hot cup) (at cup sink))
    (hold-during 1 3 (at cup sink))
    (hold-after 6 (holding cup))))",
    );
    let parsed = parse_problem(&src);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let p = parsed.value.unwrap();
    let mut ops = Vec::new();
    operators(p.constraints.as_ref().unwrap(), &mut ops);
    assert_eq!(
        ops,
        vec![
            (ConstraintOp::AtEnd, vec![]),
            (ConstraintOp::Always, vec![]),
            (ConstraintOp::Sometime, vec![]),
            (ConstraintOp::Within, vec![4.0]),
            (ConstraintOp::AtMostOnce, vec![]),
            (ConstraintOp::SometimeAfter, vec![]),
            (ConstraintOp::SometimeBefore, vec![]),
            (ConstraintOp::AlwaysWithin, vec![2.5]),
            (ConstraintOp::HoldDuring, vec![1.0, 3.0]),
            (ConstraintOp::HoldAfter, vec![6.0]),
        ]
    );
    // The trigger comes first: `(sometime-before (holding cup) (holding knife))`.
    let Some(Constraint::And(parts, _)) = &p.constraints else {
        panic!("an `and`")
    };
    let Constraint::Modal(m, _) = &parts[6] else {
        panic!("{:?}", parts[6])
    };
    let Modal::SometimeBefore(Formula::Atom(a), Formula::Atom(b)) = &**m else {
        panic!("{m:?}")
    };
    assert_eq!(
        (a.predicate.as_str(), b.predicate.as_str()),
        ("holding", "holding")
    );
    assert_eq!(a.args[0].name().as_str(), "cup");
    assert_eq!(b.args[0].name().as_str(), "knife");
    let domain = parse_domain(DOMAIN).value.unwrap();
    assert!(check_problem(&domain, &p, &CheckOptions::default()).is_empty());
}

#[test]
fn goal_preferences_leave_the_goal_with_their_foralls() {
    let src = problem(
        "  (:goal (and (holding cup)
               (preference clean (at knife table))
               (forall (?i - item) (preference keep (not (hot ?i))))))
  (:metric minimize (+ (is-violated clean) (* 2 (is-violated keep))))",
    );
    let parsed = parse_problem(&src);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let p = parsed.value.unwrap();
    // The hard goal keeps only `(holding cup)`.
    let Some(Formula::And(hard, _)) = &p.goal else {
        panic!("{:?}", p.goal)
    };
    assert_eq!(hard.len(), 1);
    let Some(Constraint::And(soft, _)) = &p.goal_preferences else {
        panic!("{:?}", p.goal_preferences)
    };
    let Constraint::Preference(Some(name), body, _) = &soft[0] else {
        panic!("{:?}", soft[0])
    };
    assert_eq!(name.as_str(), "clean");
    assert!(matches!(&**body, Constraint::Modal(m, _) if matches!(**m, Modal::AtEnd(_))));
    let Constraint::Forall(vars, inner, _) = &soft[1] else {
        panic!("{:?}", soft[1])
    };
    assert_eq!(vars[0].name.as_str(), "i");
    assert!(matches!(**inner, Constraint::Preference(Some(ref n), _, _) if n.as_str() == "keep"));
    let domain = parse_domain(DOMAIN).value.unwrap();
    assert_eq!(preference_names(&domain, &p), vec!["clean", "keep"]);
    assert!(check_problem(&domain, &p, &CheckOptions::default()).is_empty());
    // Written back, the preferences return to the goal and read the same.
    let again = parse_problem(&write_problem(&p)).value.unwrap();
    assert!(again.goal_preferences.is_some());
    assert!(write_problem(&again).contains("(preference clean (at knife table))"));
}

#[test]
fn several_constraints_without_and_are_their_conjunction_with_a_warning() {
    // As LEXICON writes them (and unified-planning's writer too).
    let src = problem(
        "  (:goal (holding cup))
  (:constraints (sometime (holding knife)) (always (not (hot cup))))",
    );
    let parsed = parse_problem(&src);
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:#?}", parsed.diagnostics)
    };
    assert_eq!(
        (d.code, d.severity),
        (Code::ConstraintsWithoutAnd, Severity::Warning)
    );
    // Line 5, column 4: the `:constraints` keyword (counted by hand).
    let at = LineIndex::new(&src).line_col(&src, d.span.start);
    assert_eq!((at.line, at.col), (5, 4));
    let p = parsed.value.unwrap();
    let mut ops = Vec::new();
    operators(p.constraints.as_ref().unwrap(), &mut ops);
    assert_eq!(
        ops.iter().map(|o| o.0).collect::<Vec<_>>(),
        [ConstraintOp::Sometime, ConstraintOp::Always]
    );
    // One constraint alone needs no `and`.
    let one = parse_problem(&problem(
        "  (:goal (holding cup)) (:constraints (sometime (holding knife)))",
    ));
    assert!(one.diagnostics.is_empty(), "{:#?}", one.diagnostics);
}

#[test]
fn constraints_and_preferences_need_their_requirements() {
    let domain = parse_domain(&DOMAIN.replace(" :constraints :preferences", ""))
        .value
        .unwrap();
    let p = parse_problem(&problem(
        "  (:goal (and (holding cup) (preference clean (at knife table))))
  (:constraints (always (not (hot cup))))",
    ))
    .value
    .unwrap();
    let diags = check_problem(&domain, &p, &CheckOptions::default());
    let needed: Vec<&str> = diags
        .iter()
        .filter(|d| d.code == Code::UndeclaredRequirement)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(needed.len(), 2, "{needed:?}");
    assert!(needed[0].contains("`:preferences`"), "{needed:?}");
    assert!(needed[1].contains("`:constraints`"), "{needed:?}");
}

#[test]
fn constraint_conditions_are_checked_like_goals() {
    let domain = parse_domain(DOMAIN).value.unwrap();
    let p = parse_problem(&problem(
        "  (:goal (holding cup))
  (:constraints (forall (?i - item) (sometime-before (holding ?i) (hott ?j))))",
    ))
    .value
    .unwrap();
    let codes: Vec<Code> = check_problem(&domain, &p, &CheckOptions::default())
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, [Code::UndefinedPredicate, Code::UndefinedVariable]);
}

/// Preferences in action preconditions and durative conditions (PDDL3 simple preferences):
/// read as `Formula::Preference` where they are written, both ways of writing a timed one
/// (`(preference p (at start f))`, `(at start (preference p f))`) read as one tree, and the
/// writer's text reads back as the same domain.
#[test]
fn action_preferences_are_read_and_written_back() {
    let text = "(define (domain d) (:requirements :preferences :durative-actions)
      (:predicates (p) (q))
      (:action a :parameters () :precondition (and (p) (preference lit (q))) :effect (q))
      (:durative-action b :parameters () :duration (= ?duration 1)
        :condition (and (at start (p)) (preference shut (at start (q)))
                        (at end (preference tidy (p))))
        :effect (at end (q))))";
    let parsed = parse_domain(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let mut domain = parsed.value.expect("domain");
    let pre = domain.actions[0]
        .precondition
        .as_ref()
        .expect("precondition");
    let Formula::And(parts, _) = pre else {
        panic!("a conjunction")
    };
    assert!(
        matches!(&parts[1], Formula::Preference(Some(n), body, _)
            if n.as_str() == "lit" && matches!(**body, Formula::Atom(_))),
        "{parts:?}"
    );
    let written = safeplan_pddl::write_domain(&domain);
    assert!(
        written.contains("(preference shut (at start (q)))"),
        "{written}"
    );
    assert!(
        written.contains("(preference tidy (at end (p)))"),
        "{written}"
    );
    let again = parse_domain(&written);
    assert!(
        again.diagnostics.is_empty(),
        "{written}\n{:?}",
        again.diagnostics
    );
    let mut again = again.value.expect("domain");
    domain.erase_spans();
    again.erase_spans();
    assert_eq!(domain, again, "{written}");
}

/// A timed preference holds one timed condition.
#[test]
fn a_timed_preference_of_a_conjunction_is_refused_with_its_place() {
    let text = "(define (domain d) (:requirements :preferences :durative-actions)
      (:predicates (p) (q))
      (:durative-action b :parameters () :duration (= ?duration 1)
        :condition (preference shut (and (at start (q)) (at end (p))))
        :effect (at end (q))))";
    let parsed = parse_domain(text);
    let d = parsed
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .expect("an error");
    assert!(
        d.message.contains("holds one timed condition"),
        "{}",
        d.message
    );
    assert_eq!(&text[d.span.range()], "(and (at start (q)) (at end (p)))");
}
