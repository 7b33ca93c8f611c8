//! Random small temporal tasks and timed plans, as text, for the differential test of the
//! temporal engine against [`temporal`](crate::temporal).
//!
//! A domain has three predicates (`a`, `b ?x`, `c ?x`) over two objects (the constant `o1`
//! and `o2`), two or three
//! durative actions with zero or one parameter, and sometimes an instantaneous action. A
//! durative action has a duration constraint (`=`, `<=`, `>=` or both bounds), literals
//! `at start`, `over all` and `at end`, and adds and deletes at start and at end; at one time
//! point an action never adds and deletes atoms of the same predicate (the one case where
//! VAL's interference rules depend on the order of events, which the reference does not
//! model). Plans have one to four steps at times and with durations chosen so that events
//! often coincide, fall within a tenth of the tolerance of each other, or just miss it;
//! sometimes a step has no duration, an unknown action, or the wrong number of arguments.

use proptest::prelude::*;

/// A generated temporal task: domain, problem, plans and the tolerance to run them with.
pub type GenTemporal = (String, String, Vec<String>, f64);

const PREDICATES: [(&str, bool); 3] = [("a", false), ("b", true), ("c", true)];
const OBJECTS: [&str; 2] = ["o1", "o2"];
/// Whole times often, so that events coincide; then near-misses around 1.
const TIMES: [&str; 14] = [
    "0", "1", "2", "3", "0", "1", "2", "0.5", "1.0005", "1.005", "1.5", "2.5", "-0.5", "1.01",
];
const DURATIONS: [&str; 6] = ["1", "2", "0.5", "2.0005", "3", "1.5"];

#[derive(Clone, Debug)]
struct Lit {
    positive: bool,
    pred: usize,
}

fn lit() -> impl Strategy<Value = Lit> {
    (any::<bool>(), 0..PREDICATES.len()).prop_map(|(positive, pred)| Lit { positive, pred })
}

/// Adds and deletes at one time point, on disjoint predicates.
fn point_effects() -> impl Strategy<Value = Vec<Lit>> {
    proptest::collection::vec(lit(), 0..3).prop_map(|mut lits| {
        let mut seen: Vec<(usize, bool)> = Vec::new();
        lits.retain(|l| {
            if seen
                .iter()
                .any(|&(p, pos)| p == l.pred && pos != l.positive)
            {
                return false;
            }
            seen.push((l.pred, l.positive));
            true
        });
        lits
    })
}

#[derive(Clone, Debug)]
struct Action {
    param: bool,
    duration: usize,
    at_start: Vec<Lit>,
    over_all: Vec<Lit>,
    at_end: Vec<Lit>,
    start_effects: Vec<Lit>,
    end_effects: Vec<Lit>,
}

fn action() -> impl Strategy<Value = Action> {
    (
        any::<bool>(),
        0..5usize,
        proptest::collection::vec(lit(), 0..2),
        proptest::collection::vec(lit(), 0..2),
        proptest::collection::vec(lit(), 0..2),
        point_effects(),
        point_effects(),
    )
        .prop_map(
            |(param, duration, at_start, over_all, at_end, start_effects, end_effects)| Action {
                param,
                duration,
                at_start,
                over_all,
                at_end,
                start_effects,
                end_effects,
            },
        )
}

fn atom(l: &Lit, param: bool) -> String {
    let (name, unary) = PREDICATES[l.pred];
    let a = match (unary, param) {
        (false, _) => format!("({name})"),
        (true, true) => format!("({name} ?x)"),
        (true, false) => format!("({name} o1)"),
    };
    if l.positive { a } else { format!("(not {a})") }
}

fn timed(spec: &str, lits: &[Lit], param: bool, out: &mut Vec<String>) {
    out.extend(lits.iter().map(|l| format!("({spec} {})", atom(l, param))));
}

fn domain_text(actions: &[Action], instant: Option<&Action>) -> String {
    let mut s = String::from(
        "(define (domain gen)\n  (:requirements :durative-actions :negative-preconditions)\n  \
         (:constants o1) (:predicates (a) (b ?x) (c ?x))\n",
    );
    for (i, a) in actions.iter().enumerate() {
        let duration = [
            "(= ?duration 1)",
            "(= ?duration 2)",
            "(<= ?duration 2)",
            "(>= ?duration 1)",
            "(and (>= ?duration 1) (<= ?duration 2))",
        ][a.duration];
        let mut cond = Vec::new();
        timed("at start", &a.at_start, a.param, &mut cond);
        timed("over all", &a.over_all, a.param, &mut cond);
        timed("at end", &a.at_end, a.param, &mut cond);
        let mut eff = Vec::new();
        timed("at start", &a.start_effects, a.param, &mut eff);
        timed("at end", &a.end_effects, a.param, &mut eff);
        s.push_str(&format!(
            "  (:durative-action d{i} :parameters ({}) :duration {duration}\n    \
             :condition (and {}) :effect (and {}))\n",
            if a.param { "?x" } else { "" },
            cond.join(" "),
            eff.join(" ")
        ));
    }
    if let Some(a) = instant {
        let pre: Vec<String> = a.at_start.iter().map(|l| atom(l, a.param)).collect();
        let eff: Vec<String> = a.start_effects.iter().map(|l| atom(l, a.param)).collect();
        s.push_str(&format!(
            "  (:action i0 :parameters ({}) :precondition (and {}) :effect (and {}))\n",
            if a.param { "?x" } else { "" },
            pre.join(" "),
            eff.join(" ")
        ));
    }
    s.push(')');
    s
}

fn problem_text(init: &[bool], goal: &[(bool, usize, usize)]) -> String {
    let atoms = ["(a)", "(b o1)", "(b o2)", "(c o1)", "(c o2)"];
    let init: Vec<&str> = atoms
        .iter()
        .zip(init)
        .filter(|(_, on)| **on)
        .map(|(a, _)| *a)
        .collect();
    let goal: Vec<String> = goal
        .iter()
        .map(|&(positive, pred, obj)| {
            let (name, unary) = PREDICATES[pred];
            let a = if unary {
                format!("({name} {})", OBJECTS[obj])
            } else {
                format!("({name})")
            };
            if positive { a } else { format!("(not {a})") }
        })
        .collect();
    format!(
        "(define (problem g) (:domain gen) (:objects o2)\n  (:init {})\n  (:goal (and {}))\n  \
         (:metric minimize (total-time)))",
        init.join(" "),
        goal.join(" ")
    )
}

/// (action index, object, time, duration, corruption): 0 none, 1 no duration, 2 unknown
/// action, 3 wrong arity; only small numbers corrupt.
type StepChoice = (usize, usize, usize, usize, u8);

fn plan_text(steps: &[StepChoice], actions: &[Action], instant: Option<&Action>) -> String {
    let mut s = String::new();
    let n = actions.len() + usize::from(instant.is_some());
    for &(a, obj, time, duration, corrupt) in steps {
        let a = a % n;
        let (name, param) = if a < actions.len() {
            (format!("d{a}"), actions[a].param)
        } else {
            ("i0".to_string(), instant.is_some_and(|i| i.param))
        };
        let name = if corrupt == 2 { "nope".into() } else { name };
        let mut args: Vec<&str> = Vec::new();
        if param {
            args.push(OBJECTS[obj % 2]);
        }
        if corrupt == 3 {
            args.push("o2");
        }
        let step = if args.is_empty() {
            format!("({name})")
        } else {
            format!("({name} {})", args.join(" "))
        };
        // Most durations fit the action's constraint, so that plans get past their starts.
        let fitting = ["1", "2", "2", "1", "1.5"];
        let timing = if a < actions.len() && corrupt != 1 {
            let d = if duration % 3 == 0 {
                DURATIONS[duration % DURATIONS.len()]
            } else {
                fitting[actions[a].duration]
            };
            format!(" [{d}]")
        } else {
            String::new()
        };
        s.push_str(&format!("{}: {step}{timing}\n", TIMES[time % TIMES.len()]));
    }
    s
}

/// Random small temporal tasks with plans; see the module docs.
pub fn task() -> impl Strategy<Value = GenTemporal> {
    (
        proptest::collection::vec(action(), 2..4),
        proptest::option::of(action()),
        proptest::collection::vec(any::<bool>(), 5),
        proptest::collection::vec((any::<bool>(), 0..3usize, 0..2usize), 1..3),
        proptest::collection::vec(
            proptest::collection::vec(
                (
                    0..4usize,
                    0..2usize,
                    0..TIMES.len(),
                    0..DURATIONS.len(),
                    prop_oneof![30 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8), 1 => Just(3u8)],
                ),
                1..5,
            ),
            1..4,
        ),
        prop_oneof![Just(0.001), Just(0.01)],
    )
        .prop_map(|(actions, instant, init, goal, plans, tolerance)| {
            let domain = domain_text(&actions, instant.as_ref());
            let problem = problem_text(&init, &goal);
            let plans = plans
                .iter()
                .map(|p| plan_text(p, &actions, instant.as_ref()))
                .collect();
            (domain, problem, plans, tolerance)
        })
}
