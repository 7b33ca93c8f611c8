//! Helpers the unit tests of the relaxed estimates share: a ground task from PDDL text, its
//! initial state as the bits an estimate reads (or whole, as a search starts from it), and
//! exhaustive search over its states.

use safeplan_pddl::{parse_domain, parse_problem};
use safeplan_validate::Task;

use crate::GroundOptions;
use crate::eval::{self, Layout, set};
use crate::ground::GroundTask;

/// Blocksworld's domain (IPC 2000's four operators).
pub(crate) const BLOCKS: &str = "(define (domain blocks) (:requirements :strips)
    (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
    (:action pick-up :parameters (?x)
      :precondition (and (clear ?x) (ontable ?x) (handempty))
      :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
    (:action put-down :parameters (?x) :precondition (holding ?x)
      :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
    (:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y))
      :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
    (:action unstack :parameters (?x ?y)
      :precondition (and (on ?x ?y) (clear ?x) (handempty))
      :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty))
                   (not (on ?x ?y)))))";

/// The ground task of a domain and problem that must parse and compile.
pub(crate) fn ground(domain: &str, problem: &str) -> GroundTask {
    ground_named(domain, problem).0
}

/// The ground task and the compiled task it came from (which names its predicates).
pub(crate) fn ground_named(domain: &str, problem: &str) -> (GroundTask, Task) {
    let d = parse_domain(domain).value.expect("the test domain parses");
    let p = parse_problem(problem)
        .value
        .expect("the test problem parses");
    let task = Task::compile(&d, &p).expect("the test task compiles");
    let ground =
        GroundTask::ground(&task, &GroundOptions::default()).expect("the test task grounds");
    (ground, task)
}

/// The atom of `ground` written `text` (`"on a b"`); `names` is the task it came from.
pub(crate) fn atom(ground: &GroundTask, names: &Task, text: &str) -> u32 {
    let words: Vec<&str> = text.split(' ').collect();
    (0..ground.atoms.len() as u32)
        .find(|&a| {
            let (pred, args) = &ground.atoms[a as usize];
            names.predicate_name(*pred) == words[0]
                && args
                    .iter()
                    .map(|&o| ground.object_names[o as usize].as_str())
                    .eq(words[1..].iter().copied())
        })
        .unwrap_or_else(|| panic!("no atom {text}"))
}

/// A chain `a`, `b`, `c` of free steps, then `g1` by `left` (cost 2) or `both` (7) and `g2`
/// by `right` (3) or `both`, under `(:metric minimize (total-cost))`: the cheapest plan
/// costs 5. The hand-computed tests of LM-cut and of the landmarks' weights share it.
pub(crate) fn two_goals_at_costs() -> GroundTask {
    ground(
        "(define (domain d) (:requirements :action-costs)
         (:predicates (a) (b) (c) (g1) (g2))
         (:functions (total-cost))
         (:action one :parameters () :precondition (and) :effect (and (a) (increase (total-cost) 0)))
         (:action two :parameters () :precondition (a) :effect (b))
         (:action three :parameters () :precondition (b) :effect (c))
         (:action left :parameters () :precondition (c) :effect (and (g1) (increase (total-cost) 2)))
         (:action right :parameters () :precondition (c) :effect (and (g2) (increase (total-cost) 3)))
         (:action both :parameters () :precondition (c) :effect (and (g1) (g2) (increase (total-cost) 7))))",
        "(define (problem p) (:domain d) (:init (= (total-cost) 0)) (:goal (and (g1) (g2)))
         (:metric minimize (total-cost)))"
    )
}

/// The initial state's atom bits.
pub(crate) fn initial(task: &GroundTask) -> Vec<u64> {
    let mut s = vec![0u64; Layout::new(task).bits.max(1)];
    for &a in &task.init {
        set(&mut s, a, true);
    }
    s
}

/// The whole initial state as a search starts from it: atom bits, numeric values, and the
/// rules' automata after observing it at time 0. `None` when it breaks a rule.
pub(crate) fn initial_observed(task: &GroundTask) -> Option<Vec<u64>> {
    let layout = Layout::new(task);
    let mut s = vec![0u64; layout.words.max(1)];
    for &a in &task.init {
        set(&mut s, a, true);
    }
    for (i, v) in task.vars.iter().enumerate() {
        eval::store(&mut s, layout, i as u32, v.init);
    }
    task.rules
        .observe(&mut s, layout, 0, task.slack)
        .then_some(s)
}

/// Every successor of state `s`: one per ground action that applies.
pub(crate) fn successors(task: &GroundTask, s: &[u64]) -> Vec<Vec<u64>> {
    use crate::eval::{Scratch, apply, pre_holds};
    let layout = Layout::new(task);
    let mut scratch = Scratch::default();
    let mut out = Vec::new();
    for op in &task.ops {
        let mut next = Vec::new();
        if pre_holds(&op.pre, s, layout, task.slack) == Some(true)
            && apply(task, op, s, layout, &mut next, &mut scratch)
        {
            out.push(next);
        }
    }
    out
}

/// Every state reachable from the start through states where `avoid` is false (the start
/// included, when `avoid` is false there), by exhaustive search.
pub(crate) fn reachable_avoiding(
    task: &GroundTask,
    avoid: &dyn Fn(&[u64]) -> bool,
) -> Vec<Vec<u64>> {
    let start = initial(task);
    if avoid(&start) {
        return Vec::new();
    }
    let mut seen = std::collections::HashSet::from([start.clone()]);
    let mut queue = vec![start];
    let mut i = 0;
    while let Some(s) = queue.get(i).cloned() {
        i += 1;
        for next in successors(task, &s) {
            if !avoid(&next) && seen.insert(next.clone()) {
                queue.push(next);
            }
        }
    }
    queue
}

/// `n` values of `strategy`, the same on every run: for the tests that show a property
/// test's random cases are not vacuous.
pub(crate) fn samples<S: proptest::strategy::Strategy>(strategy: S, n: usize) -> Vec<S::Value> {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..n)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the strategy makes values")
                .current()
        })
        .collect()
}
