//! The planner with hard trajectory constraints over numbers, against brute force and the
//! validator (issue 46): random tasks with parameters, numeric fluents that actions change
//! and conditions read, and rules of every PDDL3 operator whose conditions compare numbers
//! (including fluents only a rule reads) and whose times are fractional. Every plan any
//! algorithm returns is valid (it keeps every rule); an optimal algorithm's plan is as
//! short as the shortest valid sequence found by trying every ground action sequence up to
//! [`DEPTH`] steps; "no plan" is only said when that enumeration finds none either.
//!
//! The generator draws each dimension independently (actions, their preconditions and
//! effects, the numbers, the initial state, the goal, each rule's operator, condition and
//! times), so no template decides what is tested.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use safeplan_search::{Algorithm, GroundOptions, Limits, Outcome, Planner, SearchOptions};
use safeplan_validate::{ValidateOptions, Validator};

use crate::{as_plan, task};

/// Ground action sequences up to this length are tried by brute force.
const DEPTH: usize = 3;

const OBJECTS: [&str; 2] = ["o1", "o2"];

/// A number that binary floating point holds exactly, so the planner's arithmetic and the
/// validator's agree without their comparison slack deciding anything.
fn amount() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["0", "0.5", "1", "1.5", "2", "3"])
}

/// A numeric expression over the fluents: `(n ?x)` inside an action, or a ground one.
fn fluent(bound: bool) -> impl Strategy<Value = String> {
    let n = if bound {
        vec!["(n ?x)", "(m)", "(seen)"]
    } else {
        vec!["(n o1)", "(n o2)", "(m)", "(seen)"]
    };
    prop::sample::select(n).prop_map(str::to_string)
}

fn comparison(bound: bool) -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["<", "<=", ">", ">=", "="]),
        fluent(bound),
        amount(),
    )
        .prop_map(|(op, f, v)| format!("({op} {f} {v})"))
}

fn atom(bound: bool) -> impl Strategy<Value = String> {
    let r = if bound { "(r ?x)" } else { "(r o1)" };
    prop::sample::select(vec!["(q0)", "(q1)", "(q2)", r]).prop_map(str::to_string)
}

fn literal(bound: bool) -> impl Strategy<Value = String> {
    (atom(bound), prop::bool::weighted(0.6)).prop_map(|(a, positive)| {
        if positive { a } else { format!("(not {a})") }
    })
}

fn condition(bound: bool) -> impl Strategy<Value = String> {
    prop_oneof![
        2 => literal(bound),
        2 => comparison(bound),
        1 => (literal(bound), comparison(bound)).prop_map(|(a, b)| format!("(and {a} {b})")),
        1 => (comparison(bound), literal(bound)).prop_map(|(a, b)| format!("(or {a} {b})")),
    ]
}

/// A time: whole or fractional.
fn time() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["0.5", "1", "1.5", "2", "2.5", "3.5"])
}

fn constraint() -> impl Strategy<Value = String> {
    let c = || condition(false);
    prop_oneof![
        c().prop_map(|c| format!("(always {c})")),
        c().prop_map(|c| format!("(sometime {c})")),
        (time(), c()).prop_map(|(t, c)| format!("(within {t} {c})")),
        c().prop_map(|c| format!("(at-most-once {c})")),
        (c(), c()).prop_map(|(a, b)| format!("(sometime-after {a} {b})")),
        (c(), c()).prop_map(|(a, b)| format!("(sometime-before {a} {b})")),
        (time(), c(), c()).prop_map(|(t, a, b)| format!("(always-within {t} {a} {b})")),
        (time(), time(), c()).prop_map(|(a, b, c)| {
            let (a, b): (f64, f64) = (a.parse().unwrap_or(0.0), b.parse().unwrap_or(0.0));
            format!("(hold-during {} {} {c})", a.min(b), a.max(b) + 0.5)
        }),
        (time(), c()).prop_map(|(t, c)| format!("(hold-after {t} {c})")),
        c().prop_map(|c| format!("(at end {c})")),
        // A rule over every object: parameters in the constraint itself.
        (prop::sample::select(vec!["<=", ">="]), amount())
            .prop_map(|(op, v)| { format!("(forall (?y - obj) (always ({op} (n ?y) {v})))") }),
    ]
}

/// A numeric effect inside an action with parameter `?x`.
fn numeric_effect() -> impl Strategy<Value = String> {
    prop_oneof![
        (prop::sample::select(vec!["(n ?x)", "(m)"]), amount())
            .prop_map(|(f, v)| format!("(increase {f} {v})")),
        (prop::sample::select(vec!["(n ?x)", "(m)"]), amount())
            .prop_map(|(f, v)| format!("(decrease {f} {v})")),
        amount().prop_map(|v| format!("(assign (m) (+ (n ?x) {v}))")),
        amount().prop_map(|v| format!("(assign (n ?x) {v})")),
    ]
}

/// A random task: two objects, three to five parameterised actions, fluents `(n ?x)` and
/// `(m)` that actions change, `(seen)` that only `increase` changes (and, unless a condition
/// happens to draw it, only rules read), one to three rules.
fn task_text() -> impl Strategy<Value = (String, String)> {
    let action = (
        prop::collection::vec(condition(true), 0..=2),
        prop::collection::vec(literal(true), 0..=2),
        prop::collection::vec(numeric_effect(), 0..=2),
    );
    (
        prop::collection::vec(action, 3..=5),
        prop::collection::vec(atom(false), 0..=2),
        (amount(), amount(), amount()),
        prop::collection::vec(condition(false), 1..=2),
        prop::collection::vec(constraint(), 1..=3),
    )
        .prop_map(|(actions, init, (n1, n2, m), goal, constraints)| {
            let mut d = String::from(
                "(define (domain numrules)\n (:requirements :adl :typing :numeric-fluents :constraints)\n \
                 (:types obj) (:predicates (q0) (q1) (q2) (r ?x - obj))\n \
                 (:functions (n ?x - obj) (m) (seen))\n",
            );
            for (i, (pre, lits, nums)) in actions.into_iter().enumerate() {
                // Each effect changes a fluent once per step: two updates of one fluent in one
                // step are an error (a valid test of its own, but not this one's).
                let mut eff: Vec<String> = Vec::new();
                let mut changed: Vec<&str> = Vec::new();
                for e in &nums {
                    let target = if e.contains("(n ?x)") && !e.starts_with("(assign (m)") {
                        "n"
                    } else {
                        "m"
                    };
                    if !changed.contains(&target) {
                        changed.push(target);
                        eff.push(e.clone());
                    }
                }
                let mut touched: Vec<String> = Vec::new();
                for l in lits {
                    let a = l.trim_start_matches("(not ").trim_end_matches(')').to_string();
                    if !touched.contains(&a) {
                        touched.push(a);
                        eff.push(l);
                    }
                }
                eff.push("(increase (seen) 1)".into());
                d += &format!(
                    " (:action a{i} :parameters (?x - obj) :precondition (and {}) :effect (and {}))\n",
                    pre.join(" "),
                    eff.join(" ")
                );
            }
            d += ")";
            let mut init: Vec<String> = init;
            init.sort();
            init.dedup();
            init.push(format!("(= (n o1) {n1})"));
            init.push(format!("(= (n o2) {n2})"));
            init.push(format!("(= (m) {m})"));
            init.push("(= (seen) 0)".into());
            let p = format!(
                "(define (problem p) (:domain numrules) (:objects {} - obj)\n (:init {})\n \
                 (:goal (and {}))\n (:constraints (and {})))",
                OBJECTS.join(" "),
                init.join(" "),
                goal.join(" "),
                constraints.join(" ")
            );
            (d, p)
        })
}

/// The shortest valid plan of at most [`DEPTH`] steps over `actions`, by trying every
/// sequence.
fn shortest(validator: &mut Validator<'_>, actions: &[String]) -> Option<usize> {
    let mut layer: Vec<Vec<String>> = vec![Vec::new()];
    for depth in 0..=DEPTH {
        if layer.iter().any(|p| validator.is_valid(&as_plan(p))) {
            return Some(depth);
        }
        layer = layer
            .iter()
            .flat_map(|p| {
                actions.iter().map(move |a| {
                    let mut q = p.clone();
                    q.push(a.clone());
                    q
                })
            })
            .collect();
    }
    None
}

fn check(domain: &str, problem: &str) -> Result<(), TestCaseError> {
    let task = task(domain, problem);
    let planner = Planner::new(&task, &GroundOptions::default())
        .map_err(|e| TestCaseError::fail(format!("{e}\n{domain}\n{problem}")))?;
    let actions: Vec<String> = task
        .schemas()
        .iter()
        .flat_map(|s| OBJECTS.iter().map(move |o| format!("({} {o})", s.name)))
        .collect();
    let mut validator = Validator::new(&task, ValidateOptions::default());
    let brute = shortest(&mut validator, &actions);
    for algorithm in Algorithm::ALL {
        let result = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                max_states: Some(20_000),
                ..Limits::default()
            },
        });
        match &result.outcome {
            Outcome::Found { plan } => {
                let verdict = task.validate(&as_plan(plan));
                prop_assert!(
                    verdict.valid,
                    "{algorithm:?} returned {plan:?}, which the validator rejects: {:?}\n{domain}\n{problem}",
                    verdict.failure.map(|f| f.message)
                );
                match brute {
                    Some(n) if result.algorithm.is_optimal() => {
                        prop_assert_eq!(plan.len(), n, "{:?}\n{}\n{}", algorithm, domain, problem)
                    }
                    Some(n) => prop_assert!(plan.len() >= n),
                    None => prop_assert!(
                        plan.len() > DEPTH,
                        "{algorithm:?} found {plan:?}, brute force found none\n{domain}\n{problem}"
                    ),
                }
            }
            Outcome::Unsolvable => prop_assert!(
                brute.is_none(),
                "{algorithm:?} proved no plan, brute force found one of {brute:?} steps\n{domain}\n{problem}"
            ),
            // Numbers that grow without bound make the state space infinite: a limit is then
            // an honest answer, unless an optimal search should have met the plan first
            // (it expands every state of fewer steps, far fewer than the limit here).
            Outcome::LimitReached { .. } => prop_assert!(
                brute.is_none() || !algorithm.is_optimal(),
                "{algorithm:?} hit the limit, brute force found a plan of {brute:?} steps\n{domain}\n{problem}"
            ),
            Outcome::Rejected { plan, reason } => prop_assert!(
                false,
                "{algorithm:?} found {plan:?}, which the validator rejects ({reason})\n{domain}\n{problem}"
            ),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn plans_keep_numeric_rules_with_fractional_times((domain, problem) in task_text()) {
        check(&domain, &problem)?;
    }
}
