//! Optimality and completeness against brute force: on small random tasks (the generator of
//! `safeplan-testkit`, which uses negation, `or`, `imply`, quantifiers, `when` and `forall`
//! effects, and numeric fluents), a breadth-first enumeration of every state the validator's
//! own `Monitor` can reach, trying every ground action of the task (no grounding analysis,
//! no heuristic), gives the shortest plan length or proves there is none. BFS, A* and
//! `lama-anytime` (no time limit: it runs to its proof) must find plans of exactly that length, greedy search a plan whenever one exists, and all
//! three must prove unsolvability when the enumeration does. Every plan is validated.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use safeplan_search::{
    Algorithm, GroundError, GroundOptions, Limits, Measure, Outcome, Planner, SearchOptions,
};
use safeplan_testkit::r#gen::task;
use safeplan_validate::{GroundAction, Monitor, State, Task};

use crate::{as_plan, domain, problem};

/// States the enumeration may visit before it gives up on a case (numeric fluents can make
/// a space infinite).
const ENUMERATION_LIMIT: usize = 3_000;

/// Every ground action of `task`: each action with each tuple of objects its parameters
/// accept.
fn all_ground_actions(task: &Task) -> Vec<GroundAction> {
    let names: Vec<&str> = task.objects().iter().map(|o| o.name.as_str()).collect();
    let mut out = Vec::new();
    for schema in task.schemas() {
        let n = schema.params.len();
        let mut tuple = vec![0usize; n];
        loop {
            let args: Vec<&str> = tuple.iter().map(|&i| names[i]).collect();
            if let Ok(a) = task.ground(&schema.name, &args) {
                out.push(a);
            }
            // Next tuple (odometer); done after the last.
            let mut i = 0;
            while i < n {
                tuple[i] += 1;
                if tuple[i] < names.len() {
                    break;
                }
                tuple[i] = 0;
                i += 1;
            }
            if i == n || names.is_empty() {
                break;
            }
        }
    }
    out
}

/// The shortest plan length by exhaustive breadth-first enumeration: `Some(Some(n))`,
/// `Some(None)` when no state reachable satisfies the goal, `None` when the space is larger
/// than [`ENUMERATION_LIMIT`].
fn brute_force(task: &Task) -> Option<Option<usize>> {
    enumerate(task).map(|(shortest, _)| shortest)
}

/// [`brute_force`], plus the atoms true in a deepest state when the whole space was
/// enumerated without meeting the goal... or before meeting it (the first state of the
/// deepest layer reached).
fn enumerate(task: &Task) -> Option<(Option<usize>, Vec<String>)> {
    let actions = all_ground_actions(task);
    let key = |s: &State| serde_json::to_string(&task.describe_state(s)).unwrap();
    let start = task.initial_state();
    let atoms = |s: &State| task.describe_state(s).atoms;
    if task.goal_holds(&start) {
        return Some((Some(0), atoms(&start)));
    }
    let mut seen = HashSet::from([key(&start)]);
    let mut frontier = vec![start];
    let mut depth = 0;
    loop {
        depth += 1;
        let mut next = Vec::new();
        for s in &frontier {
            for a in &actions {
                let mut m = Monitor::from_state(task, s.clone());
                if m.apply(a).is_err() {
                    continue;
                }
                let ns = m.state().clone();
                if seen.insert(key(&ns)) {
                    if task.goal_holds(&ns) {
                        return Some((Some(depth), atoms(&ns)));
                    }
                    if seen.len() > ENUMERATION_LIMIT {
                        return None;
                    }
                    next.push(ns);
                }
            }
        }
        if next.is_empty() {
            return Some((None, frontier.first().map(atoms).unwrap_or_default()));
        }
        frontier = next;
    }
}

/// `problem` with its goal replaced by `goal`.
pub(crate) fn with_goal(problem: &str, goal: &str) -> Option<String> {
    let start = problem.find("(:goal")?;
    let mut depth = 0usize;
    for (i, c) in problem[start..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let end = start + i + 1;
                    return Some(format!(
                        "{}(:goal {goal}){}",
                        &problem[..start],
                        &problem[end..]
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

fn check_case(domain_text: &str, problem_text: &str) -> Result<(), TestCaseError> {
    let task = match Task::compile(&domain(domain_text), &problem(problem_text)) {
        Ok(t) => t,
        Err(e) => return Err(TestCaseError::fail(format!("does not compile: {e}"))),
    };
    let planner = match Planner::new(&task, &GroundOptions::default()) {
        Ok(p) => p,
        Err(GroundError::Unsupported { .. }) => return Ok(()),
        Err(e) => return Err(TestCaseError::fail(format!("cannot ground: {e}"))),
    };
    let Some(expected) = brute_force(&task) else {
        return Ok(());
    };
    for algorithm in Algorithm::ALL {
        let result = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                max_states: Some(200_000),
                ..Limits::default()
            },
        });
        match (&result.outcome, expected) {
            (Outcome::Found { plan }, Some(n)) => {
                let verdict = task.validate(&as_plan(plan));
                prop_assert!(
                    verdict.valid,
                    "{algorithm:?} plan {plan:?} invalid: {:?}",
                    verdict.failure
                );
                // `lama-anytime` with no time limit runs until an iteration runs out of
                // states, which proves its last plan optimal, and says so
                // (`proven_optimal`). `auto` claims an optimal plan exactly when its result
                // names an optimal search. Optimal is shortest when plans are measured in
                // steps; under action costs (a generated `(minimize (f1))` that actions raise
                // by constants, 0 included) it is cheapest, which `tests/costs.rs` checks.
                if algorithm == Algorithm::LamaAnytime {
                    prop_assert!(result.proven_optimal, "{:?}", plan);
                }
                if result.is_optimal() && result.measure == Measure::Steps {
                    prop_assert_eq!(plan.len(), n, "{:?} plan {:?}", algorithm, plan);
                } else {
                    prop_assert!(plan.len() >= n);
                }
            }
            (Outcome::Unsolvable, None) => {}
            // Greedy search is complete on finite state spaces only. With numeric variables
            // that actions change, a plateau of states that differ only in a growing number
            // (all with the same estimate) can hold it forever, away from a plan the
            // enumeration found at depth 2 (a seen case: `increase (f1 ?x) (f0)` beside a
            // dead end the delete relaxation cannot see). Giving up at the state limit is
            // then its documented behaviour, not a wrong answer.
            (Outcome::LimitReached { .. }, Some(_))
                if !algorithm.is_optimal() && planner.grounding().numeric > 0 => {}
            (outcome, expected) => {
                return Err(TestCaseError::fail(format!(
                    "{algorithm:?}: {outcome:?}, but brute force says {expected:?}"
                )));
            }
        }
    }
    Ok(())
}

/// The generated task as is, and again with a harder goal: every atom of a deepest state
/// the enumeration reached (so most cases need plans of several steps).
fn check_both(domain_text: &str, problem_text: &str) -> Result<(), TestCaseError> {
    check_case(domain_text, problem_text)?;
    let Ok(task) = Task::compile(&domain(domain_text), &problem(problem_text)) else {
        return Ok(());
    };
    let Some((_, atoms)) = enumerate(&task) else {
        return Ok(());
    };
    let harder = with_goal(problem_text, &format!("(and {})", atoms.join(" ")));
    // The generator's effects may make atoms the declared types forbid: such a goal does
    // not check, and that case is not this test's business.
    if let Some(harder) =
        harder.filter(|h| Task::compile(&domain(domain_text), &problem(h)).is_ok())
    {
        check_case(domain_text, &harder)?;
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
    fn searches_agree_with_brute_force((domain, problem, _plans) in task()) {
        check_both(&domain, &problem)?;
    }
}

/// A random propositional task: `n` atoms, actions with one or two precondition literals
/// (negative ones too), adds, deletes and sometimes a conditional effect, and a goal of two
/// or three literals. Small enough to enumerate, deep enough to need plans of many steps.
fn propositional() -> impl Strategy<Value = (String, String)> {
    let literal = (0..8usize, prop::bool::weighted(0.6));
    let action = (
        prop::collection::vec(literal.clone(), 1..=2),
        prop::collection::vec(0..8usize, 1..=3),
        prop::collection::vec(0..8usize, 0..=2),
        prop::option::weighted(0.3, (literal.clone(), 0..8usize)),
    );
    (
        prop::collection::vec(action, 4..=10),
        prop::collection::vec(0..8usize, 1..=4),
        prop::collection::vec(literal, 2..=3),
    )
        .prop_map(|(actions, init, goal)| {
            let lit = |(a, positive): (usize, bool)| {
                if positive { format!("(q{a})") } else { format!("(not (q{a}))") }
            };
            let mut d = String::from(
                "(define (domain prop) (:requirements :adl)\n (:predicates (q0) (q1) (q2) (q3) (q4) (q5) (q6) (q7))\n",
            );
            for (i, (pre, adds, dels, when)) in actions.into_iter().enumerate() {
                let pre: Vec<String> = pre.into_iter().map(lit).collect();
                let mut eff: Vec<String> = adds.iter().map(|a| format!("(q{a})")).collect();
                eff.extend(dels.iter().filter(|d| !adds.contains(d)).map(|d| format!("(not (q{d}))")));
                if let Some((c, a)) = when {
                    eff.push(format!("(when {} (q{a}))", lit(c)));
                }
                d += &format!(
                    " (:action a{i} :parameters () :precondition (and {}) :effect (and {}))\n",
                    pre.join(" "),
                    eff.join(" ")
                );
            }
            d += ")";
            let init: Vec<String> = init.iter().map(|a| format!("(q{a})")).collect();
            let goal: Vec<String> = goal.into_iter().map(lit).collect();
            let p = format!(
                "(define (problem p) (:domain prop) (:init {}) (:goal (and {})))",
                init.join(" "),
                goal.join(" ")
            );
            (d, p)
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn propositional_searches_agree_with_brute_force((domain, problem) in propositional()) {
        check_case(&domain, &problem)?;
    }
}

/// The case proptest found: a two-step plan beside a dead end with an unbounded numeric
/// plateau. BFS and A* must find the two steps; greedy search may stop at the state limit.
#[test]
fn greedy_plateau_on_an_unbounded_numeric_variable() {
    const DOMAIN: &str = r#"(define (domain gen)
  (:requirements :adl :typing :fluents)
  (:types ta - object)
  (:predicates (p0 ?a0 - ta) (p1 ?a0 - ta ?a1 - ta))
  (:functions (f0) (f1 ?a0 - ta))
  (:action a0
    :parameters (?x0 - ta)
    :effect (and (forall (?e0 - ta) (and (p0 ?e0) (when (not (p0 ?x0)) (and (p1 ?e0 ?x0)))))))
  (:action a1
    :parameters (?x0 - ta ?x1 - ta)
    :precondition (and (p0 ?x1) (not (p0 ?X0)))
    :effect (and (p1 ?x1 ?x1) (not (p1 ?x1 ?x1))))
  (:action a2
    :parameters (?x0 - ta ?X1 - ta)
    :effect (and (increase (f1 ?x0) (f0))))
)
"#;
    const PROBLEM: &str = r#"(define (problem gen-p) (:domain gen)
  (:objects o1 - ta o2 - object o3 - ta)
  (:init (p0 o3) (p1 o1 o1) (= (f0) 1.00005) (= (f1 o1) 10) (= (f1 o3) 10))
  (:goal (and (p1 o3 o3) (p0 o1) (<= (f1 o1) 13.00015))))
"#;
    check_case(DOMAIN, PROBLEM).unwrap();
}
