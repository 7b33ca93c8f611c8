//! Validation speed: how many plans, and how many plan steps, per second `safeplan-validate`
//! checks once a task is compiled; and what compiling a task costs.
//!
//! Run with `cargo bench -p safeplan-benches --bench validate`. The figures (median time,
//! plans/s or steps/s, as divan reports them) go into `docs/benchmarks.md`.
//!
//! Groups:
//! - `plans`: a DESPITE-sized plan validated over and over. The task is the DESPITE demo task
//!   `neiss_11125` (safety-augmented files, with the reference safe plan of its
//!   `metadata.json`, 5 steps) and the project's own `examples/tasks/hot-soup` (`safe.plan`,
//!   4 steps). `validator_*` reuses one [`Validator`] (the fast path); `task_validate_*` calls
//!   [`Task::validate`], which makes a validator, and so clones the initial state, per call.
//!   The counter is one item per plan, so divan's `item/s` is plans per second.
//! - `steps`: the longest valid plans of the IPC corpus, one reused [`Validator`] per task;
//!   the counter is the number of steps, so `item/s` is plan steps per second.
//! - `temporal`: plans of durative actions from the temporal IPC corpus (issue 19), one
//!   reused [`Validator`] per task; `item/s` is plan steps per second.
//! - `compile`: [`Task::compile`] on an already parsed domain and problem.
//!
//! Reading and parsing files, compiling (except in `compile`) and building the validator are
//! outside the timed closures. Every plan is checked to be valid before timing, so the
//! figures are for the success path. Inputs from the shared data are skipped with a message
//! when it is not on this machine (`$SAFEPLAN_DATA` or `../shared/data`); hot-soup is always
//! there.

#![allow(missing_docs, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::ItemsCount;
use safeplan_benches::LoadedTask;
use safeplan_pddl::Plan;
use safeplan_validate::{ValidateOptions, Validator};

fn main() {
    // Load, compile and check every input before divan prints its table, and say what they are.
    for (name, case) in [("hot-soup", &*HOT_SOUP), ("despite", &*DESPITE)] {
        if let Some(case) = case {
            eprintln!("{name}: {}, {} steps", case.label, case.plan.steps.len());
        }
    }
    for case in IPC.iter() {
        eprintln!("{}: {} steps", case.label, case.plan.steps.len());
    }
    divan::main();
}

/// The DESPITE demo task benchmarked: 5-step reference safe plan, a parameterised action
/// (`place_container ?at`) and a conditional danger effect with a negated condition.
const DESPITE_TASK: &str = "despite-demo/neiss_11125";

/// The IPC plans for the steps/s figures: (folder, problem), each with the planner's valid plan
/// `ipc/<folder>/plans/<problem>.plan`. The five longest STRIPS plans of the corpus, then one
/// ADL and one numeric domain for context.
const IPC_CASES: [&str; 7] = [
    "visitall/problem50",
    "termes/p03",
    "rovers/p40",
    "satellite/p30-HC-pfile10",
    "blocks/probBLOCKS-17-0",
    "airport-adl/p15-airport3-p3",
    "depots-numeric/instance-5",
];

/// A compiled task and a valid plan for it.
struct Case {
    label: String,
    loaded: LoadedTask,
    plan: Plan,
}

/// Load `domain` + `problem`, take `plan`, and check that the plan is valid (bench setup:
/// a broken input is a bug in the benchmark, so this panics with the reason).
fn case(label: String, domain: &Path, problem: &Path, plan: Plan) -> Case {
    let loaded = safeplan_benches::load_task(domain, problem)
        .unwrap_or_else(|e| panic!("benchmark input {label}: {e}"));
    let verdict = loaded.task.validate(&plan);
    assert!(
        verdict.valid,
        "benchmark input {label}: the plan should be valid, got {:?}",
        verdict.failure
    );
    Case {
        label,
        loaded,
        plan,
    }
}

/// The shared data folder, or `None` after saying why inputs from it are skipped.
fn data_dir(what: &str) -> Option<PathBuf> {
    match safeplan_benches::data_dir() {
        Ok(dir) => Some(dir),
        Err(why) => {
            eprintln!("skipping {what}: {why}");
            None
        }
    }
}

static HOT_SOUP: LazyLock<Option<Case>> = LazyLock::new(|| {
    let dir = safeplan_benches::example_task_dir("hot-soup");
    let plan = safeplan_benches::read_plan(&dir.join("safe.plan"))
        .unwrap_or_else(|e| panic!("benchmark input hot-soup: {e}"));
    Some(case(
        "examples/tasks/hot-soup (safe.plan)".into(),
        &dir.join("domain.pddl"),
        &dir.join("problem.pddl"),
        plan,
    ))
});

static DESPITE: LazyLock<Option<Case>> = LazyLock::new(|| {
    let dir = data_dir(DESPITE_TASK)?.join(DESPITE_TASK);
    let plan = safeplan_benches::despite_reference_plan(&dir, "safe")
        .unwrap_or_else(|e| panic!("benchmark input {DESPITE_TASK}: {e}"));
    Some(case(
        format!("{DESPITE_TASK} (safe_domain/safe_problem, reference safe plan)"),
        &dir.join("safe_domain.pddl"),
        &dir.join("safe_problem.pddl"),
        plan,
    ))
});

/// The IPC cases, in the order of [`IPC_CASES`]; empty without the shared data.
static IPC: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let Some(data) = data_dir("the IPC plans") else {
        return Vec::new();
    };
    IPC_CASES
        .iter()
        .map(|name| {
            let (folder, problem) = name
                .split_once('/')
                .expect("IPC_CASES entries are folder/problem");
            let dir = data.join("ipc").join(folder);
            let plan = safeplan_benches::read_plan(&dir.join(format!("plans/{problem}.plan")))
                .unwrap_or_else(|e| panic!("benchmark input {name}: {e}"));
            case(
                format!("ipc/{name}"),
                &dir.join("domain.pddl"),
                &dir.join(format!("{problem}.pddl")),
                plan,
            )
        })
        .collect()
});

fn ipc_case(name: &str) -> Option<&'static Case> {
    IPC.iter()
        .find(|c| c.label.strip_prefix("ipc/") == Some(name))
}

/// One reused validator, one plan per iteration; the counter is `items` per iteration.
fn bench_reused(bencher: Bencher, case: &Case, items: usize) {
    let mut validator = Validator::new(&case.loaded.task, ValidateOptions::default());
    let plan = &case.plan;
    bencher
        .counter(ItemsCount::new(items))
        .bench_local(|| validator.validate(divan::black_box(plan)));
}

/// [`Task::validate`](safeplan_validate::Task::validate): a new validator per plan.
fn bench_task_validate(bencher: Bencher, case: &Case) {
    let task = &case.loaded.task;
    let plan = &case.plan;
    bencher
        .counter(ItemsCount::new(1usize))
        .bench(|| task.validate(divan::black_box(plan)));
}

/// Plans per second on small tasks (one item = one plan). A plan takes well under a
/// microsecond, so each sample times 100 plans in a row (divan's automatic sample size would
/// time one or a few, close to the timer's precision), and 1,000 samples are taken.
mod plans {
    use super::*;

    /// DESPITE `neiss_11125`, reference safe plan (5 steps), reused [`Validator`].
    #[divan::bench(sample_count = 1000, sample_size = 100)]
    fn validator_despite_neiss_11125(bencher: Bencher) {
        if let Some(case) = DESPITE.as_ref() {
            bench_reused(bencher, case, 1);
        }
    }

    /// DESPITE `neiss_11125`, reference safe plan (5 steps), `Task::validate` per plan.
    #[divan::bench(sample_count = 1000, sample_size = 100)]
    fn task_validate_despite_neiss_11125(bencher: Bencher) {
        if let Some(case) = DESPITE.as_ref() {
            bench_task_validate(bencher, case);
        }
    }

    /// DESPITE `neiss_11125`, the reference safe plan as IPC text: read with `parse_plan`
    /// and validated with `Task::validate` per iteration — the work of the Python
    /// binding's `Task.validate(text)`, without the binding (docs/benchmarks.md, Python).
    #[divan::bench(sample_count = 1000, sample_size = 100)]
    fn text_to_verdict_despite_neiss_11125(bencher: Bencher) {
        if let Some(case) = DESPITE.as_ref() {
            let task = &case.loaded.task;
            let text = safeplan_pddl::write_plan(&case.plan);
            bencher.counter(ItemsCount::new(1usize)).bench(|| {
                let plan = safeplan_pddl::parse_plan(divan::black_box(&text))
                    .value
                    .unwrap_or_default();
                task.validate(&plan)
            });
        }
    }

    /// hot-soup `safe.plan` (4 steps), reused [`Validator`].
    #[divan::bench(sample_count = 1000, sample_size = 100)]
    fn validator_hot_soup(bencher: Bencher) {
        if let Some(case) = HOT_SOUP.as_ref() {
            bench_reused(bencher, case, 1);
        }
    }

    /// hot-soup `safe.plan` (4 steps), `Task::validate` per plan.
    #[divan::bench(sample_count = 1000, sample_size = 100)]
    fn task_validate_hot_soup(bencher: Bencher) {
        if let Some(case) = HOT_SOUP.as_ref() {
            bench_task_validate(bencher, case);
        }
    }
}

/// Plan steps per second on the longest IPC plans (one item = one step), reused validator;
/// 500 samples.
mod steps {
    use super::*;

    #[divan::bench(args = IPC_CASES, sample_count = 500)]
    fn validator(bencher: Bencher, name: &str) {
        if let Some(case) = ipc_case(name) {
            bench_reused(bencher, case, case.plan.steps.len());
        }
    }
}

/// Temporal plans of the ipc-temporal corpus (issue 19), one reused [`Validator`] per task
/// at VAL's default tolerance; the counter is the number of steps.
const TEMPORAL_CASES: [&str; 3] = [
    "transport-temporal-numeric/instance-2",
    "depots-time/instance-2",
    "match-cellar/instance-4",
];

static TEMPORAL: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let Some(data) = data_dir("the temporal plans") else {
        return Vec::new();
    };
    TEMPORAL_CASES
        .iter()
        .map(|name| {
            let (folder, problem) = name
                .split_once('/')
                .expect("TEMPORAL_CASES entries are folder/problem");
            let dir = data.join("ipc-temporal").join(folder);
            let plan = safeplan_benches::read_plan(&dir.join(format!("plans/{problem}.plan")))
                .unwrap_or_else(|e| panic!("benchmark input {name}: {e}"));
            case(
                format!("ipc-temporal/{name}"),
                &dir.join("domain.pddl"),
                &dir.join(format!("{problem}.pddl")),
                plan,
            )
        })
        .collect()
});

mod temporal {
    use super::*;

    #[divan::bench(args = TEMPORAL_CASES, sample_count = 500)]
    fn validator(bencher: Bencher, name: &str) {
        if let Some(case) = TEMPORAL
            .iter()
            .find(|c| c.label.strip_prefix("ipc-temporal/") == Some(name))
        {
            bench_reused(bencher, case, case.plan.steps.len());
        }
    }
}

/// `Task::compile` on a parsed domain and problem (what a user pays once per task). 500
/// samples of one compilation each.
mod compile {
    use super::*;

    fn bench_compile(bencher: Bencher, case: &Case) {
        let (domain, problem) = (&case.loaded.domain, &case.loaded.problem);
        bencher.bench(|| {
            safeplan_validate::Task::compile(divan::black_box(domain), divan::black_box(problem))
        });
    }

    #[divan::bench(sample_count = 500)]
    fn despite_neiss_11125(bencher: Bencher) {
        if let Some(case) = DESPITE.as_ref() {
            bench_compile(bencher, case);
        }
    }

    #[divan::bench(sample_count = 500)]
    fn hot_soup(bencher: Bencher) {
        if let Some(case) = HOT_SOUP.as_ref() {
            bench_compile(bencher, case);
        }
    }

    #[divan::bench(sample_count = 500)]
    fn visitall_problem50(bencher: Bencher) {
        if let Some(case) = ipc_case("visitall/problem50") {
            bench_compile(bencher, case);
        }
    }
}
