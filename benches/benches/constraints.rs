//! What trajectory constraints cost a validation: the same plans validated with the task's
//! `:constraints` and with the section removed, one reused [`Validator`] each, so the
//! difference is the constraint automata alone (a constant amount per state and instance).
//!
//! Run with `cargo bench -p safeplan-benches --bench constraints`; the figures (median time,
//! steps/s) go into `docs/benchmarks.md`.
//!
//! Groups:
//! - `lexicon`: LEXICON's `blocksworld/data_10/22` (18 hard constraints: `sometime`,
//!   `sometime-after`, `sometime-before`, `always`) with LEXICON's own valid plan (21 steps),
//!   from `../shared/data/pddl3` (skipped with a message when it is not on this machine).
//! - `instances`: a generated task of N flags whose constraints are two `forall`s,
//!   `(forall (?f) (always (not (broken ?f))))` and
//!   `(forall (?f) (sometime-before (on ?f) (ready ?f)))`, 2 N instances in all, with a
//!   valid 20-step plan; N = 10, 100, 1000.
//!
//! The counter is the number of plan steps, so divan's `item/s` is steps per second.

#![allow(missing_docs, clippy::print_stderr)]

use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::ItemsCount;
use safeplan_pddl::{Plan, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Task, ValidateOptions, Validator};

fn main() {
    if LEXICON.is_none() {
        eprintln!("skipping lexicon: ../shared/data/pddl3 is not on this machine");
    }
    divan::main();
}

/// A task compiled twice, with and without its constraints, and a plan valid for both.
struct Pair {
    with: Task,
    without: Task,
    plan: Plan,
}

fn pair(domain: &str, problem: &str, plan: &str) -> Pair {
    let d = parse_domain(domain).value.expect("the domain parses");
    let p = parse_problem(problem).value.expect("the problem parses");
    let mut bare = p.clone();
    bare.constraints = None;
    let plan = parse_plan(plan).value.expect("the plan parses");
    let with = Task::compile(&d, &p).expect("compiles");
    let without = Task::compile(&d, &bare).expect("compiles");
    assert!(
        with.validate(&plan).valid,
        "the benchmark plan must be valid"
    );
    assert!(without.validate(&plan).valid);
    Pair {
        with,
        without,
        plan,
    }
}

static LEXICON: LazyLock<Option<Pair>> = LazyLock::new(|| {
    let dir = safeplan_benches::data_dir()
        .ok()?
        .join("pddl3/lexicon/blocksworld/data_10/22");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    Some(pair(
        &read("domain.pddl")?,
        &read("problem.pddl")?,
        &read("plans/constrained_plan")?,
    ))
});

/// N flags, each raised after it is made ready: a 20-step plan over the first 10 flags.
fn flags(n: usize) -> Pair {
    let domain = "(define (domain flags)
      (:requirements :strips :typing :negative-preconditions :constraints)
      (:types flag)
      (:predicates (on ?f - flag) (ready ?f - flag) (broken ?f - flag))
      (:action prepare :parameters (?f - flag) :precondition (not (ready ?f))
        :effect (ready ?f))
      (:action raise :parameters (?f - flag) :precondition (and (ready ?f) (not (on ?f)))
        :effect (on ?f)))";
    let objects: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
    let problem = format!(
        "(define (problem p) (:domain flags) (:objects {} - flag) (:init)
          (:goal (on f0))
          (:constraints (and (forall (?f - flag) (always (not (broken ?f))))
                             (forall (?f - flag) (sometime-before (on ?f) (ready ?f))))))",
        objects.join(" ")
    );
    let plan: String = (0..10)
        .map(|i| format!("(prepare f{i}) (raise f{i}) "))
        .collect();
    pair(domain, &problem, &plan)
}

static FLAGS: LazyLock<Vec<(usize, Pair)>> =
    LazyLock::new(|| [10, 100, 1000].into_iter().map(|n| (n, flags(n))).collect());

fn run(bencher: Bencher<'_, '_>, task: &Task, plan: &Plan) {
    let mut v = Validator::new(task, ValidateOptions::default());
    bencher
        .counter(ItemsCount::new(plan.steps.len()))
        .bench_local(|| v.validate(divan::black_box(plan)).valid);
}

#[divan::bench_group]
mod lexicon {
    use super::*;

    #[divan::bench]
    fn with_constraints(bencher: Bencher<'_, '_>) {
        if let Some(p) = &*LEXICON {
            run(bencher, &p.with, &p.plan);
        }
    }

    #[divan::bench]
    fn without_constraints(bencher: Bencher<'_, '_>) {
        if let Some(p) = &*LEXICON {
            run(bencher, &p.without, &p.plan);
        }
    }
}

#[divan::bench_group]
mod instances {
    use super::*;

    #[divan::bench(args = [10, 100, 1000])]
    fn with_constraints(bencher: Bencher<'_, '_>, n: usize) {
        let (_, p) = FLAGS.iter().find(|(k, _)| *k == n).expect("a size");
        run(bencher, &p.with, &p.plan);
    }

    #[divan::bench(args = [10, 100, 1000])]
    fn without_constraints(bencher: Bencher<'_, '_>, n: usize) {
        let (_, p) = FLAGS.iter().find(|(k, _)| *k == n).expect("a size");
        run(bencher, &p.without, &p.plan);
    }
}
