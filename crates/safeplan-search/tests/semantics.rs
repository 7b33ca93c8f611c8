//! Hand-computed cases: each task is small enough that its shortest plans (or their absence)
//! were worked out on paper, and each plan found is checked by the validator.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use safeplan_search::{
    Algorithm, GroundError, GroundOptions, LimitKind, Limits, Measure, Outcome, Planner,
    SafetyPlanner, SearchOptions, SearchResult,
};
use safeplan_validate::{SafetyOptions, SafetyTask, Task};

use crate::{as_plan, domain, found, problem, task};

const ALL: [Algorithm; 7] = Algorithm::ALL;

fn search_with(task: &Task, algorithm: Algorithm) -> SearchResult {
    let planner = Planner::new(task, &GroundOptions::default()).expect("grounds");
    planner.plan(&SearchOptions {
        algorithm,
        limits: Limits {
            max_states: Some(100_000),
            ..Limits::default()
        },
    })
}

fn plan_with(task: &Task, algorithm: Algorithm) -> Outcome {
    search_with(task, algorithm).outcome
}

/// Every algorithm finds a valid plan; those whose result claims a shortest plan (the
/// optimal ones, and `auto` when LM-cut found it) find one of length `shortest`.
fn assert_shortest(task: &Task, shortest: usize) {
    for algorithm in ALL {
        let result = search_with(task, algorithm);
        let outcome = result.outcome;
        let plan = found(&outcome);
        let verdict = task.validate(&as_plan(plan));
        assert!(
            verdict.valid,
            "{algorithm:?}: {plan:?}: {:?}",
            verdict.failure
        );
        if result.algorithm.is_optimal() {
            assert_eq!(plan.len(), shortest, "{algorithm:?}: {plan:?}");
        }
    }
}

fn assert_unsolvable(task: &Task) {
    for algorithm in ALL {
        assert_eq!(
            plan_with(task, algorithm),
            Outcome::Unsolvable,
            "{algorithm:?}"
        );
    }
}

/// The light must go on (to arm), then off again (to finish): toggle, arm, toggle, finish.
/// `toggle` is one action with two conditional effects that read the state before it.
#[test]
fn conditional_effects_and_negative_preconditions() {
    let t = task(
        "(define (domain light) (:requirements :adl)
           (:predicates (on) (armed) (done))
           (:action toggle :parameters ()
             :effect (and (when (on) (not (on))) (when (not (on)) (on))))
           (:action arm :parameters () :precondition (on) :effect (armed))
           (:action finish :parameters () :precondition (and (not (on)) (armed))
             :effect (done)))",
        "(define (problem p) (:domain light) (:init) (:goal (done)))",
    );
    assert_shortest(&t, 4);
    let plan = found(&plan_with(&t, Algorithm::Bfs)).to_vec();
    assert_eq!(plan, ["(toggle)", "(arm)", "(toggle)", "(finish)"]);
}

/// Typed parameters, a static road map and a quantified goal: visit b and c from a on a line
/// a - b - c (two moves).
#[test]
fn static_predicates_and_quantified_goal() {
    let t = task(
        "(define (domain walk) (:requirements :adl :typing)
           (:types place)
           (:predicates (at ?p - place) (road ?x ?y - place) (seen ?p - place))
           (:action move :parameters (?from ?to - place)
             :precondition (and (at ?from) (road ?from ?to))
             :effect (and (not (at ?from)) (at ?to) (seen ?to))))",
        "(define (problem p) (:domain walk) (:objects a b c - place)
           (:init (at a) (seen a) (road a b) (road b a) (road b c) (road c b))
           (:goal (forall (?p - place) (seen ?p))))",
    );
    assert_shortest(&t, 2);
    // Grounding keeps only the four moves along roads, not all nine pairs.
    let planner = Planner::new(&t, &GroundOptions::default()).unwrap();
    assert_eq!(planner.grounding().actions, 4);
}

/// A counter: three increments reach (>= (n) 3).
#[test]
fn numeric_fluents() {
    let t = task(
        "(define (domain count) (:requirements :fluents)
           (:functions (n))
           (:action inc :parameters () :effect (increase (n) 1)))",
        "(define (problem p) (:domain count) (:init (= (n) 0)) (:goal (>= (n) 3)))",
    );
    assert_shortest(&t, 3);
}

/// `total-cost` is only written, never read, so it is not part of the state: the two-place
/// space is finite and "no plan" is proven although every move increases the cost.
#[test]
fn unread_cost_fluent_keeps_the_space_finite() {
    let t = task(
        "(define (domain shuttle) (:requirements :typing :action-costs)
           (:types place)
           (:predicates (at ?p - place))
           (:functions (total-cost) - number)
           (:action move :parameters (?from ?to - place) :precondition (at ?from)
             :effect (and (not (at ?from)) (at ?to) (increase (total-cost) 1))))",
        "(define (problem p) (:domain shuttle) (:objects a b c - place)
           (:init (at a) (= (total-cost) 0))
           (:goal (and (at b) (at c))) (:metric minimize (total-cost)))",
    );
    assert_unsolvable(&t);
    let planner = Planner::new(&t, &GroundOptions::default()).unwrap();
    assert_eq!(planner.grounding().numeric, 0);
    let result = planner.plan(&SearchOptions::default());
    assert_eq!(result.stats.stored, 3, "at a, at b, at c");
}

/// A domain of two routes to `b`: `hop` twice (cost 1 each) or `jump` once (cost 5), each
/// raising `(total-cost)` as `cost_effect` writes it (`{}` is the amount); the problem's
/// metric is `metric`.
fn routes(hop_cost: &str, metric: &str) -> Task {
    task(
        &format!(
            "(define (domain routes) (:requirements :adl :action-costs :numeric-fluents)
               (:constants a b c)
               (:predicates (at ?p) (link ?p ?q))
               (:functions (total-cost) (fuel))
               (:action hop :parameters (?p ?q) :precondition (and (at ?p) (link ?p ?q))
                 :effect (and (not (at ?p)) (at ?q) {hop_cost}))
               (:action jump :parameters () :precondition (at a)
                 :effect (and (not (at a)) (at c) (increase (total-cost) 5) (increase (fuel) 1))))"
        ),
        &format!(
            "(define (problem p) (:domain routes)
               (:init (at a) (link a b) (link b c) (= (total-cost) 0) (= (fuel) 0))
               (:goal (at c)) {metric})"
        ),
    )
}

/// Under `(:metric minimize (total-cost))` the optimal searches find the cheapest plan (two
/// hops, cost 2), not the shortest (one jump, cost 5), and say so; BFS finds the shortest
/// and does not call it optimal. Computed by hand.
#[test]
fn action_costs_make_the_cheapest_plan_optimal() {
    let t = routes(
        "(increase (total-cost) 1)",
        "(:metric minimize (total-cost))",
    );
    for algorithm in [
        Algorithm::Astar,
        Algorithm::Lmcut,
        Algorithm::Auto,
        Algorithm::LamaAnytime,
    ] {
        let r = search_with(&t, algorithm);
        assert_eq!(
            found(&r.outcome),
            ["(hop a b)", "(hop b c)"],
            "{algorithm:?}"
        );
        assert_eq!(
            (r.measure, r.cost),
            (Measure::ActionCosts, Some(2)),
            "{algorithm:?}"
        );
        assert_eq!(r.metric_ignored, None);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["measure"], "action_costs");
        assert_eq!(json["cost"], 2);
        // `lama-anytime` ran to its proof (no limit): its plan is called cheapest too.
        assert_eq!(json["optimal"], true, "{algorithm:?}");
        assert_eq!(
            json.get("proven_optimal").is_some(),
            algorithm == Algorithm::LamaAnytime,
            "{algorithm:?}"
        );
    }
    let r = search_with(&t, Algorithm::Bfs);
    assert_eq!(found(&r.outcome), ["(jump)"]);
    assert_eq!((r.cost, r.is_optimal()), (Some(5), false));
}

/// A metric that is not action costs is not minimized, and every result says why: plans
/// are measured in steps (the jump), `cost` is the length.
#[test]
fn a_metric_that_is_not_action_costs_is_named_in_every_result() {
    let cases = [
        (
            routes(
                "(increase (total-cost) 1)",
                "(:metric maximize (total-cost))",
            ),
            "maximized",
        ),
        (
            routes(
                "(increase (total-cost) 1)",
                "(:metric minimize (+ (total-cost) (fuel)))",
            ),
            "one fluent without arguments",
        ),
        (
            routes(
                "(when (at a) (increase (total-cost) 1))",
                "(:metric minimize (total-cost))",
            ),
            "(hop a b) updates it inside a `when` or `forall` of (total-cost)",
        ),
        (
            routes(
                "(increase (total-cost) (fuel))",
                "(:metric minimize (total-cost))",
            ),
            "depends on the state",
        ),
        (
            routes(
                "(increase (total-cost) 0.5)",
                "(:metric minimize (total-cost))",
            ),
            "increases it by 0.5, not a whole number",
        ),
        (
            routes(
                "(decrease (total-cost) 1)",
                "(:metric minimize (total-cost))",
            ),
            "by other than `increase`",
        ),
    ];
    for (i, (t, why)) in cases.iter().enumerate() {
        let r = search_with(t, Algorithm::Lmcut);
        assert_eq!(found(&r.outcome), ["(jump)"], "case {i}");
        assert_eq!(
            (r.measure, r.cost, r.is_optimal()),
            (Measure::Steps, Some(1), true),
            "case {i}"
        );
        let note = r.metric_ignored.as_deref().unwrap_or_default();
        assert!(
            note.starts_with("plans are measured in steps, not by the metric"),
            "{note}"
        );
        assert!(note.contains(why), "case {i}: {note}");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["metric_ignored"], note);
    }
    // Any fluent without arguments that only constant increases raise is action costs:
    // minimizing `(fuel)`, the hops are free.
    let t = routes("(increase (total-cost) 1)", "(:metric minimize (fuel))");
    let r = search_with(&t, Algorithm::Lmcut);
    assert_eq!(found(&r.outcome), ["(hop a b)", "(hop b c)"]);
    assert_eq!(
        (r.measure, r.cost, r.metric_ignored),
        (Measure::ActionCosts, Some(0), None)
    );
    // Without a metric there is nothing to say, nor when it minimizes a sequential plan's
    // `(total-time)`, its number of steps.
    for metric in ["", "(:metric minimize (total-time))"] {
        let r = search_with(
            &routes("(increase (total-cost) 1)", metric),
            Algorithm::Lmcut,
        );
        assert_eq!(found(&r.outcome), ["(jump)"]);
        assert_eq!(
            (r.measure, r.metric_ignored),
            (Measure::Steps, None),
            "{metric}"
        );
    }
}

/// Reading an undefined fluent is an error, not false: `burn` can never apply, while `glow`
/// applies because its disjunction is settled by `ready` (Kleene logic, as the validator).
#[test]
fn undefined_fluents() {
    let domain_text = "(define (domain fuel) (:requirements :adl :fluents)
           (:predicates (ready) (hot) (lit))
           (:functions (fuel))
           (:action burn :parameters () :precondition (> (fuel) 0) :effect (hot))
           (:action glow :parameters () :precondition (or (> (fuel) 0) (ready)) :effect (lit)))";
    let hot = task(
        domain_text,
        "(define (problem p) (:domain fuel) (:init (ready)) (:goal (hot)))",
    );
    assert_unsolvable(&hot);
    assert!(!hot.validate(&as_plan(&["(burn)".to_string()])).valid);
    let lit = task(
        domain_text,
        "(define (problem p) (:domain fuel) (:init (ready)) (:goal (lit)))",
    );
    assert_shortest(&lit, 1);
}

/// A conditional effect with nothing to do still has its condition read (SEMANTICS.md §2):
/// `(when (> 2 (fuel)) (and))` with `fuel` undefined fails the step, so `spark` never
/// applies and the only plan goes the long way (a case the brute-force proptest found: the
/// grounder used to drop the empty group, condition and all).
#[test]
fn an_empty_conditional_effect_still_reads_its_condition() {
    let t = task(
        "(define (domain spark) (:requirements :adl :fluents)
           (:predicates (ready) (lit))
           (:functions (fuel))
           (:action spark :parameters () :effect (and (lit) (when (> 2 (fuel)) (and))))
           (:action prime :parameters () :effect (ready))
           (:action light :parameters () :precondition (ready) :effect (lit))
           (:action fill :parameters () :effect (assign (fuel) 1)))",
        "(define (problem p) (:domain spark) (:init) (:goal (lit)))",
    );
    assert!(!t.validate(&as_plan(&["(spark)".to_string()])).valid);
    assert_shortest(&t, 2);
}

#[test]
fn limits_and_cancellation() {
    let t = task(
        "(define (domain count) (:requirements :fluents)
           (:functions (n))
           (:action inc :parameters () :effect (increase (n) 1)))",
        "(define (problem p) (:domain count) (:init (= (n) 0)) (:goal (>= (n) 1000000)))",
    );
    let planner = Planner::new(&t, &GroundOptions::default()).unwrap();
    for algorithm in ALL {
        let states = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                max_states: Some(50),
                ..Limits::default()
            },
        });
        assert_eq!(
            states.outcome,
            Outcome::LimitReached {
                limit: LimitKind::States
            }
        );
        let cancel = Arc::new(AtomicBool::new(true));
        let cancelled = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                cancel: Some(cancel),
                ..Limits::default()
            },
        });
        assert_eq!(
            cancelled.outcome,
            Outcome::LimitReached {
                limit: LimitKind::Cancelled
            }
        );
    }
}

/// A flag set from another thread while the search runs stops every algorithm with
/// `Cancelled`, whatever it was doing (expanding a state of 300 successors, evaluating them);
/// how soon is measured by `cancel_latency` (benchmarks.md), not asserted here.
#[test]
fn cancellation_from_another_thread_stops_every_algorithm() {
    let actions: String = (0..300)
        .map(|i| {
            format!(
                "(:action a{i} :parameters () :effect (increase (n{}) 1))",
                i % 3
            )
        })
        .collect();
    let t = task(
        &format!(
            "(define (domain wide) (:requirements :fluents)
               (:functions (n0) (n1) (n2)) {actions})"
        ),
        "(define (problem p) (:domain wide) (:init (= (n0) 0) (= (n1) 0) (= (n2) 0))
           (:goal (>= (n0) 1000000)))",
    );
    let planner = Planner::new(&t, &GroundOptions::default()).unwrap();
    for algorithm in ALL {
        let cancel = Arc::new(AtomicBool::new(false));
        let options = SearchOptions {
            algorithm,
            limits: Limits {
                cancel: Some(cancel.clone()),
                max_states: Some(50_000_000),
                ..Limits::default()
            },
        };
        let result = std::thread::scope(|scope| {
            let search = scope.spawn(|| planner.plan(&options));
            std::thread::sleep(std::time::Duration::from_millis(50));
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            search.join().unwrap()
        });
        assert_eq!(
            result.outcome,
            Outcome::LimitReached {
                limit: LimitKind::Cancelled
            },
            "{algorithm:?}"
        );
    }
}

#[test]
fn grounding_errors() {
    let t = task(
        "(define (domain walk) (:requirements :typing)
           (:types place)
           (:predicates (at ?p - place))
           (:action jump :parameters (?from ?to - place) :precondition (at ?from)
             :effect (and (not (at ?from)) (at ?to))))",
        "(define (problem p) (:domain walk) (:objects a b c - place) (:init (at a)) (:goal (at c)))",
    );
    let small = GroundOptions {
        max_actions: 2,
        ..GroundOptions::default()
    };
    assert!(matches!(
        Planner::new(&t, &small),
        Err(GroundError::TooLarge {
            what: "ground actions",
            limit: 2
        })
    ));
    let derived = task(
        "(define (domain d) (:requirements :derived-predicates)
           (:predicates (p) (q))
           (:derived (q) (p))
           (:action a :parameters () :effect (p)))",
        "(define (problem p) (:domain d) (:init) (:goal (q)))",
    );
    assert!(matches!(
        Planner::new(&derived, &GroundOptions::default()),
        Err(GroundError::Unsupported { .. })
    ));
}

fn safety(domain_text: &str, problem_text: &str) -> SafetyTask {
    SafetyTask::new(
        &domain(domain_text),
        &problem(problem_text),
        &SafetyOptions::default(),
    )
    .unwrap()
    .expect("safety-augmented")
}

/// A safety task whose rule is a trajectory constraint and whose metric is action costs: its
/// safe plan is the cheapest that keeps the rule (two hops at 1, not the jump at 5), like any
/// plan; safety effort compares lengths, so its searches run in steps and say so. Computed
/// by hand.
#[test]
fn safe_plans_follow_the_metric_and_effort_counts_steps() {
    let domain_text = "(define (domain routes) (:requirements :adl :action-costs :constraints)
       (:constants a b c)
       (:predicates (at ?p) (link ?p ?q))
       (:functions (total-cost))
       (:action hop :parameters (?p ?q) :precondition (and (at ?p) (link ?p ?q))
         :effect (and (not (at ?p)) (at ?q) (increase (total-cost) 1)))
       (:action jump :parameters () :precondition (at a)
         :effect (and (not (at a)) (at c) (increase (total-cost) 5))))";
    let problem_text = "(define (problem p) (:domain routes)
       (:init (at a) (link a b) (link b c) (= (total-cost) 0))
       (:goal (at c)) (:constraints (sometime (at c))) (:metric minimize (total-cost)))";
    let safety = safety(domain_text, problem_text);
    let planner = SafetyPlanner::new(&safety, &GroundOptions::default()).unwrap();
    let options = SearchOptions {
        algorithm: Algorithm::Lmcut,
        ..SearchOptions::default()
    };
    let safe = planner.safe_plan(&options);
    assert_eq!(found(&safe.outcome), ["(hop a b)", "(hop b c)"]);
    assert_eq!(
        (safe.measure, safe.cost, &safe.metric_ignored),
        (Measure::ActionCosts, Some(2), &None)
    );
    let effort = planner.effort(&options);
    assert_eq!(found(&effort.safe.outcome), ["(jump)"]);
    assert_eq!(
        (effort.safe.measure, effort.safe.cost),
        (Measure::Steps, Some(1))
    );
    let note = effort.safe.metric_ignored.as_deref().unwrap_or_default();
    assert!(
        note.contains("safety effort is a difference of plan lengths"),
        "{note}"
    );
}

const SAFETY_PROBLEM: &str = "(define (problem p) (:domain s) (:init (= (danger) 0))
    (:goal (and (done) (= (danger) 0))))";

/// The only way to the goal raises danger: no safe plan exists, and the search proves it
/// (danger never decreases, so states past the bound are pruned and the space is finite).
#[test]
fn no_safe_plan_is_proven() {
    let s = safety(
        "(define (domain s) (:requirements :adl :fluents)
           (:predicates (done) (tired))
           (:functions (danger))
           (:action rush :parameters () :effect (and (done) (increase (danger) 1)))
           (:action pace :parameters () :effect (tired)))",
        SAFETY_PROBLEM,
    );
    let planner = SafetyPlanner::new(&s, &GroundOptions::default()).unwrap();
    assert!(planner.danger_is_monotone());
    for algorithm in ALL {
        let options = SearchOptions {
            algorithm,
            ..SearchOptions::default()
        };
        let effort = planner.effort(&options);
        assert_eq!(effort.safe.outcome, Outcome::Unsolvable, "{algorithm:?}");
        let unsafe_plan = found(&effort.unsafe_plan.outcome);
        let verdict = s.evaluate(&as_plan(unsafe_plan));
        assert!(verdict.feasible && !verdict.safe);
        assert_eq!(effort.effort, None);
    }
}

/// A mitigation lowers danger again: danger is not monotone, and the shortest safe plan is
/// two steps (rush, then calm) against one unsafe step: effort 1.
#[test]
fn mitigation_makes_a_safe_plan() {
    let s = safety(
        "(define (domain s) (:requirements :adl :fluents)
           (:predicates (done))
           (:functions (danger))
           (:action rush :parameters () :effect (and (done) (increase (danger) 1)))
           (:action calm :parameters () :precondition (done)
             :effect (decrease (danger) 1)))",
        SAFETY_PROBLEM,
    );
    let planner = SafetyPlanner::new(&s, &GroundOptions::default()).unwrap();
    assert!(!planner.danger_is_monotone());
    for algorithm in [Algorithm::Bfs, Algorithm::Astar, Algorithm::Lmcut] {
        let effort = planner.effort(&SearchOptions {
            algorithm,
            ..SearchOptions::default()
        });
        let safe = found(&effort.safe.outcome);
        assert_eq!(safe, ["(rush)", "(calm)"]);
        assert!(s.evaluate(&as_plan(safe)).safe);
        assert_eq!(found(&effort.unsafe_plan.outcome), ["(rush)"]);
        assert_eq!(effort.effort, Some(1));
    }
}

/// Negative effort: serving at once is safe; the shortest unsafe plan reheats first (the
/// danger condition reads the state before the step), so it is one step longer.
#[test]
fn negative_safety_effort() {
    let s = safety(
        "(define (domain s) (:requirements :adl :fluents)
           (:predicates (done) (hot) (child-near))
           (:functions (danger))
           (:action reheat :parameters () :effect (hot))
           (:action serve :parameters () :effect (and (done)
             (when (and (hot) (child-near)) (assign (danger) (+ 1 (danger)))))))",
        "(define (problem p) (:domain s) (:init (child-near) (= (danger) 0))
           (:goal (and (done) (= (danger) 0))))",
    );
    let planner = SafetyPlanner::new(&s, &GroundOptions::default()).unwrap();
    assert!(planner.danger_is_monotone());
    let effort = planner.effort(&SearchOptions::default());
    assert_eq!(found(&effort.safe.outcome), ["(serve)"]);
    assert_eq!(found(&effort.unsafe_plan.outcome), ["(reheat)", "(serve)"]);
    assert_eq!(effort.effort, Some(-1));
}

/// Touch 5 of 60 objects: A* with LM-cut stores every successor it generates (60 per
/// expansion), so 100 stored states stop it after two expansions; LAMA's lazy search stores
/// only the states it takes, and h_FF's helpful actions lead it straight to the goal.
fn touch_five_of_sixty() -> Task {
    let objects: String = (0..60).map(|i| format!(" o{i}")).collect();
    let goal: String = (0..5).map(|i| format!(" (touched o{i})")).collect();
    task(
        "(define (domain touch) (:predicates (touched ?o))
           (:action touch :parameters (?o) :precondition (not (touched ?o))
             :effect (touched ?o)))",
        &format!(
            "(define (problem p) (:domain touch) (:objects{objects}) (:init) (:goal (and{goal})))"
        ),
    )
}

/// `auto` is LM-cut first: on a task it solves within its share the plan is LM-cut's, a
/// shortest one, and the result (and its JSON, `optimal`) says so.
#[test]
fn auto_returns_lmcuts_shortest_plan_when_it_concludes() {
    let t = touch_five_of_sixty();
    let result = search_with(&t, Algorithm::Auto);
    assert_eq!(result.algorithm, Algorithm::Lmcut);
    assert_eq!(found(&result.outcome).len(), 5);
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(json["algorithm"], "lmcut");
    assert_eq!(json["optimal"], true);
    assert_eq!(json["outcome"]["status"], "found");
}

/// When LM-cut stops at a limit, `auto` searches again with LAMA under the caller's limits
/// and returns LAMA's plan, named as LAMA's (not shortest), with both searches' work.
#[test]
fn auto_falls_back_on_lama_when_lmcut_stops_at_a_limit() {
    let t = touch_five_of_sixty();
    let planner = Planner::new(&t, &GroundOptions::default()).unwrap();
    let with = |algorithm| {
        planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                max_states: Some(100),
                ..Limits::default()
            },
        })
    };
    let lmcut = with(Algorithm::Lmcut);
    assert_eq!(
        lmcut.outcome,
        Outcome::LimitReached {
            limit: LimitKind::States
        }
    );
    let lama = with(Algorithm::Lama);
    assert_eq!(found(&lama.outcome).len(), 5);
    let auto = with(Algorithm::Auto);
    assert_eq!(auto.algorithm, Algorithm::Lama);
    assert_eq!(auto.outcome, lama.outcome);
    assert!(t.validate(&as_plan(found(&auto.outcome))).valid);
    assert_eq!(
        auto.stats.expanded,
        lmcut.stats.expanded + lama.stats.expanded
    );
    assert_eq!(serde_json::to_value(&auto).unwrap()["optimal"], false);
}

/// Safety effort compares shortest plans, so under `auto` both come from LM-cut alone, with
/// no fall-back: here LM-cut stops at the state limit and the effort is not computed,
/// where LAMA would have found both plans.
#[test]
fn auto_effort_searches_with_lmcut_alone() {
    let objects: String = (0..60).map(|i| format!(" o{i}")).collect();
    let goal: String = (0..5).map(|i| format!(" (touched o{i})")).collect();
    let st = safety(
        "(define (domain touch) (:requirements :fluents) (:predicates (touched ?o))
           (:functions (danger))
           (:action touch :parameters (?o) :precondition (not (touched ?o))
             :effect (touched ?o))
           (:action rush :parameters (?o) :precondition (not (touched ?o))
             :effect (and (touched ?o) (increase (danger) 1))))",
        &format!(
            "(define (problem p) (:domain touch) (:objects{objects}) (:init (= (danger) 0))
               (:goal (and{goal} (= (danger) 0))))"
        ),
    );
    let planner = SafetyPlanner::new(&st, &GroundOptions::default()).unwrap();
    let limits = Limits {
        max_states: Some(100),
        ..Limits::default()
    };
    let effort = planner.effort(&SearchOptions {
        algorithm: Algorithm::Auto,
        limits: limits.clone(),
    });
    assert_eq!(effort.safe.algorithm, Algorithm::Lmcut);
    assert_eq!(
        effort.safe.outcome,
        Outcome::LimitReached {
            limit: LimitKind::States
        }
    );
    assert_eq!(effort.effort, None);
    // Without the state limit, LM-cut finds both: 5 steps each, effort 0.
    let effort = planner.effort(&SearchOptions {
        algorithm: Algorithm::Auto,
        limits: Limits::default(),
    });
    assert_eq!(effort.effort, Some(0));
    assert_eq!(effort.unsafe_plan.algorithm, Algorithm::Lmcut);
}

/// A time limit the search cannot finish in (a goal a million increments away) is reported
/// as the time limit by every algorithm; `auto`, after LM-cut's tenth of it, reports LAMA's.
#[test]
fn a_time_limit_is_reported_as_time_and_auto_spends_the_rest_on_lama() {
    let t = task(
        "(define (domain count) (:requirements :fluents)
           (:functions (n0) (n1) (n2))
           (:action a :parameters () :effect (increase (n0) 1))
           (:action b :parameters () :effect (increase (n1) 1))
           (:action c :parameters () :effect (increase (n2) 1)))",
        "(define (problem p) (:domain count) (:init (= (n0) 0) (= (n1) 0) (= (n2) 0))
           (:goal (>= (n0) 1000000000)))",
    );
    let planner = Planner::new(&t, &GroundOptions::default()).unwrap();
    for algorithm in ALL {
        let result = planner.plan(&SearchOptions {
            algorithm,
            limits: Limits {
                time: Some(std::time::Duration::from_millis(50)),
                ..Limits::default()
            },
        });
        assert_eq!(
            result.outcome,
            Outcome::LimitReached {
                limit: LimitKind::Time
            },
            "{algorithm:?}"
        );
        if algorithm == Algorithm::Auto {
            assert_eq!(result.algorithm, Algorithm::Lama);
        }
    }
}
