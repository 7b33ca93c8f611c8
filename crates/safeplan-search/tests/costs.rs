//! Action costs against exhaustive search: on random tasks whose metric is `(minimize
//! (total-cost))`, each action raising `total-cost` by a constant or by a static function of
//! its parameter, Dijkstra's algorithm over every state the validator's own `Monitor` can
//! reach (every ground action of the task tried, costs read off the generator's own
//! numbers, not the planner's) gives the cheapest plan's cost, and breadth-first
//! enumeration the shortest plan's length.
//!
//! - A* with h_max and with LM-cut, and `lama-anytime` run to its proof, must find plans of
//!   exactly the cheapest cost, and say so (`measure` action costs, `optimal`, `cost`);
//!   `auto` must when its result is optimal.
//! - BFS must find a shortest plan and not call it optimal: under action costs a shortest
//!   plan is not a cheapest.
//! - Every algorithm must prove unsolvability when the enumeration does.
//! - Every plan is validated, and the validator's metric (its own sum of the increases) must
//!   equal the cost the search reports.
//!
//! The dimensions drawn independently: atoms per precondition and effect, negative
//! preconditions, conditional effects (which never touch the cost), actions with a
//! parameter, constant costs (0 included) and costs read from a static function.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use safeplan_search::{Algorithm, GroundOptions, Limits, Measure, Outcome, Planner, SearchOptions};
use safeplan_validate::{GroundAction, Monitor, State, Task};

use crate::brute::with_goal;
use crate::{as_plan, domain, problem};

/// The three objects parametric actions range over, and their static weights.
const OBJECTS: [&str; 3] = ["o0", "o1", "o2"];

/// One random action: its preconditions over `q0..q5` (atom, positive), its adds and deletes,
/// an optional conditional add, whether it has a parameter `?x` (then it needs `(r ?x)` or
/// its negation and flips it), and its cost: `Some(c)` a constant, `None` the weight `(w ?x)`
/// (a parameterless action then costs 1).
type RandomAction = (
    Vec<(usize, bool)>,
    Vec<usize>,
    Vec<usize>,
    Option<((usize, bool), usize)>,
    Option<bool>,
    Option<u32>,
);

fn action() -> impl Strategy<Value = RandomAction> {
    let literal = (0..6usize, prop::bool::weighted(0.6));
    (
        prop::collection::vec(literal.clone(), 1..=2),
        prop::collection::vec(0..6usize, 1..=2),
        prop::collection::vec(0..6usize, 0..=2),
        prop::option::weighted(0.3, (literal, 0..6usize)),
        prop::option::weighted(0.4, prop::bool::ANY),
        prop::option::weighted(0.7, prop::sample::select(vec![0u32, 1, 2, 3, 5, 8])),
    )
}

/// How the generator priced one action: whether it has the parameter `?x`, and its constant
/// cost (`None`: the weight of its argument).
type Price = (bool, Option<u32>);

/// A random task with action costs, and each action's price.
fn costed() -> impl Strategy<Value = (String, String, Vec<Price>, [u32; 3])> {
    (
        prop::collection::vec(action(), 3..=8),
        prop::collection::vec(0..6usize, 0..=3),
        prop::collection::vec(0..3usize, 0..=2),
        prop::collection::vec((0..6usize, prop::bool::weighted(0.7)), 1..=3),
        [0u32..6, 0u32..6, 0u32..6],
    )
        .prop_map(|(actions, init, init_r, goal, weights)| {
            let lit = |(a, positive): (usize, bool)| {
                if positive { format!("(q{a})") } else { format!("(not (q{a}))") }
            };
            let mut d = String::from(
                "(define (domain costed) (:requirements :adl :action-costs :typing)\n \
                 (:types obj)\n \
                 (:predicates (q0) (q1) (q2) (q3) (q4) (q5) (r ?x - obj))\n \
                 (:functions (total-cost) - number (w ?x - obj) - number)\n",
            );
            let mut rules = Vec::new();
            for (i, (pre, adds, dels, when, param, cost)) in actions.into_iter().enumerate() {
                let mut pre: Vec<String> = pre.into_iter().map(lit).collect();
                let mut eff: Vec<String> = adds.iter().map(|a| format!("(q{a})")).collect();
                eff.extend(
                    dels.iter()
                        .filter(|d| !adds.contains(d))
                        .map(|d| format!("(not (q{d}))")),
                );
                if let Some((c, a)) = when {
                    eff.push(format!("(when {} (q{a}))", lit(c)));
                }
                let params = match param {
                    Some(positive) => {
                        pre.push(lit_r(positive));
                        eff.push(lit_r(!positive));
                        "?x - obj"
                    }
                    None => "",
                };
                let (amount, rule) = match (cost, param) {
                    (Some(c), _) => (c.to_string(), Some(c)),
                    (None, Some(_)) => ("(w ?x)".to_string(), None),
                    (None, None) => ("1".to_string(), Some(1)),
                };
                eff.push(format!("(increase (total-cost) {amount})"));
                rules.push((param.is_some(), rule));
                d += &format!(
                    " (:action a{i} :parameters ({params}) :precondition (and {}) :effect (and {}))\n",
                    pre.join(" "),
                    eff.join(" ")
                );
            }
            d += ")";
            let mut facts: Vec<String> = init.iter().map(|a| format!("(q{a})")).collect();
            facts.extend(init_r.iter().map(|&o| format!("(r o{o})")));
            facts.extend(
                OBJECTS
                    .iter()
                    .zip(weights)
                    .map(|(o, w)| format!("(= (w {o}) {w})")),
            );
            facts.push("(= (total-cost) 0)".into());
            let goal: Vec<String> = goal.into_iter().map(lit).collect();
            let p = format!(
                "(define (problem p) (:domain costed) (:objects {} - obj) (:init {}) \
                 (:goal (and {})) (:metric minimize (total-cost)))",
                OBJECTS.join(" "),
                facts.join(" "),
                goal.join(" ")
            );
            (d, p, rules, weights)
        })
}

fn lit_r(positive: bool) -> String {
    if positive {
        "(r ?x)".into()
    } else {
        "(not (r ?x))".into()
    }
}

/// Every ground action of the task, with its cost by the generator's prices.
fn priced_actions(task: &Task, prices: &[Price], weights: [u32; 3]) -> Vec<(GroundAction, u64)> {
    let mut out = Vec::new();
    for (i, &(param, constant)) in prices.iter().enumerate() {
        let name = format!("a{i}");
        if param {
            for (k, o) in OBJECTS.iter().enumerate() {
                let a = task.ground(&name, &[o]).expect("a{i} takes one object");
                out.push((a, u64::from(constant.unwrap_or(weights[k]))));
            }
        } else {
            let a = task.ground(&name, &[]).expect("a{i} takes no parameter");
            out.push((a, u64::from(constant.unwrap_or(1))));
        }
    }
    out
}

/// Every state reachable from the initial one, with the cost of the cheapest path to it
/// (Dijkstra's algorithm). States are told apart by their atoms: `total-cost` grows along
/// every path and the weights never change.
fn cheapest_paths(task: &Task, actions: &[(GroundAction, u64)]) -> Vec<(State, u64)> {
    let key = |s: &State| task.describe_state(s).atoms;
    let start = task.initial_state();
    let mut states = vec![start.clone()];
    let mut ids = HashMap::from([(key(&start), 0usize)]);
    let mut best = vec![0u64];
    let mut heap = BinaryHeap::from([Reverse((0u64, 0usize))]);
    while let Some(Reverse((c, id))) = heap.pop() {
        if c > best[id] {
            continue;
        }
        let s = states[id].clone();
        for (a, ac) in actions {
            let mut m = Monitor::from_state(task, s.clone());
            if m.apply(a).is_err() {
                continue;
            }
            let next = m.state().clone();
            let nc = c + ac;
            let k = key(&next);
            match ids.get(&k) {
                Some(&n) => {
                    if nc < best[n] {
                        best[n] = nc;
                        heap.push(Reverse((nc, n)));
                    }
                }
                None => {
                    ids.insert(k, states.len());
                    heap.push(Reverse((nc, states.len())));
                    states.push(next);
                    best.push(nc);
                }
            }
        }
    }
    states.into_iter().zip(best).collect()
}

/// The cheapest plan's cost and the shortest plan's length, or `None` when no reachable
/// state satisfies the goal.
fn exhaustive(task: &Task, actions: &[(GroundAction, u64)]) -> Option<(u64, usize)> {
    let cheapest = cheapest_paths(task, actions)
        .into_iter()
        .filter(|(s, _)| task.goal_holds(s))
        .map(|(_, c)| c)
        .min()?;
    let shortest = bfs_steps(task, actions).expect("a goal state is reachable");
    Some((cheapest, shortest))
}

/// The shortest plan's length, breadth-first, states told apart by their atoms (not
/// `brute.rs`'s enumeration, which also tells them apart by their numbers: here
/// `total-cost` grows along every path, and that space has no end).
fn bfs_steps(task: &Task, actions: &[(GroundAction, u64)]) -> Option<usize> {
    let key = |s: &State| task.describe_state(s).atoms;
    let start = task.initial_state();
    if task.goal_holds(&start) {
        return Some(0);
    }
    let mut seen = std::collections::HashSet::from([key(&start)]);
    let mut frontier = vec![start];
    for depth in 1.. {
        let mut next = Vec::new();
        for s in &frontier {
            for (a, _) in actions {
                let mut m = Monitor::from_state(task, s.clone());
                if m.apply(a).is_err() {
                    continue;
                }
                let ns = m.state().clone();
                if seen.insert(key(&ns)) {
                    if task.goal_holds(&ns) {
                        return Some(depth);
                    }
                    next.push(ns);
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        frontier = next;
    }
    None
}

fn check(
    domain_text: &str,
    problem_text: &str,
    prices: &[Price],
    weights: [u32; 3],
) -> Result<(), TestCaseError> {
    let task = Task::compile(&domain(domain_text), &problem(problem_text))
        .map_err(|e| TestCaseError::fail(format!("does not compile: {e}")))?;
    let planner = Planner::new(&task, &GroundOptions::default())
        .map_err(|e| TestCaseError::fail(format!("cannot ground: {e}")))?;
    let measure = planner.ground_task().measure();
    let expected = exhaustive(&task, &priced_actions(&task, prices, weights));
    // Steps when every reachable action costs 1: then the cheapest plan is a shortest.
    if measure == Measure::Steps {
        prop_assert!(expected.is_none_or(|(cheapest, shortest)| cheapest == shortest as u64));
    }
    for algorithm in Algorithm::ALL {
        let result = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                max_states: Some(200_000),
                ..Limits::default()
            },
        });
        prop_assert_eq!(result.measure, measure);
        prop_assert_eq!(&result.metric_ignored, &None);
        match (&result.outcome, expected) {
            (Outcome::Found { plan }, Some((cheapest, shortest))) => {
                let verdict = task.validate(&as_plan(plan));
                prop_assert!(
                    verdict.valid,
                    "{:?}: {:?} invalid: {:?}",
                    algorithm,
                    plan,
                    verdict.failure
                );
                let cost = result.cost.expect("a found plan has a cost");
                prop_assert_eq!(
                    verdict.metric,
                    Some(cost as f64),
                    "{:?}: {:?}",
                    algorithm,
                    plan
                );
                prop_assert!(cost >= cheapest);
                match algorithm {
                    Algorithm::Astar | Algorithm::Lmcut | Algorithm::LamaAnytime => {
                        prop_assert_eq!(cost, cheapest, "{:?}: {:?}", algorithm, plan);
                    }
                    Algorithm::Auto if result.is_optimal() => {
                        prop_assert_eq!(cost, cheapest, "{:?}: {:?}", algorithm, plan);
                    }
                    Algorithm::Bfs => {
                        prop_assert_eq!(plan.len(), shortest);
                        prop_assert_eq!(
                            result.is_optimal(),
                            measure == Measure::Steps || plan.is_empty(),
                            "a shortest plan is called cheapest only when every action costs 1 \
                             (or it is the empty plan, which costs nothing)"
                        );
                    }
                    _ => {}
                }
                if matches!(
                    algorithm,
                    Algorithm::Astar | Algorithm::Lmcut | Algorithm::LamaAnytime
                ) {
                    prop_assert!(result.is_optimal(), "{:?}", algorithm);
                }
            }
            (Outcome::Unsolvable, None) => {}
            (outcome, expected) => {
                return Err(TestCaseError::fail(format!(
                    "{algorithm:?}: {outcome:?}, but exhaustive search says {expected:?}"
                )));
            }
        }
    }
    Ok(())
}

/// The generated task as is (often unsolvable or solved in a step), and again with the goal
/// of the costliest state to reach: its atoms, true or false, as the goal (so the plan must
/// pay for every step of the way).
fn check_both(
    domain_text: &str,
    problem_text: &str,
    prices: &[Price],
    weights: [u32; 3],
) -> Result<(), TestCaseError> {
    check(domain_text, problem_text, prices, weights)?;
    let task = Task::compile(&domain(domain_text), &problem(problem_text))
        .map_err(|e| TestCaseError::fail(format!("does not compile: {e}")))?;
    let reached = cheapest_paths(&task, &priced_actions(&task, prices, weights));
    let Some((far, _)) = reached.iter().max_by_key(|(_, c)| *c) else {
        return Ok(());
    };
    let atoms = task.describe_state(far).atoms;
    let mut goal: Vec<String> = (0..6)
        .map(|i| format!("(q{i})"))
        .chain(OBJECTS.iter().map(|o| format!("(r {o})")))
        .map(|a| {
            if atoms.contains(&a) {
                a
            } else {
                format!("(not {a})")
            }
        })
        .collect();
    goal.sort();
    let harder = with_goal(problem_text, &format!("(and {})", goal.join(" ")))
        .expect("the problem has a goal");
    check(domain_text, &harder, prices, weights)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn optimal_searches_find_the_cheapest_plan((domain, problem, prices, weights) in costed()) {
        check_both(&domain, &problem, &prices, weights)?;
    }
}
