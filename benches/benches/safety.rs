//! Safety verdicts at DESPITE's scale: every plan of `despite-demo/oracle.jsonl` (6,979 plans
//! over the six demo tasks) from text to feasibility, safety and safety intention.
//!
//! Run with `cargo bench -p safeplan-benches --bench safety`. DESPITE's own validator takes
//! 41–67 ms per plan in-process on these tasks (exponential in the number of dangerous
//! steps); the figure here is for all plans together, each read from its text with the plan
//! parser and evaluated on its (compiled once) safety task.

#![allow(missing_docs, clippy::print_stderr)]

use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::ItemsCount;
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{SafetyOptions, SafetyTask};

use safeplan_benches::DEMO_TASKS as TASKS;

struct Oracle {
    tasks: Vec<SafetyTask>,
    /// (index into `tasks`, the plan text as DESPITE received it)
    plans: Vec<(usize, String)>,
}

fn load() -> Result<Oracle, String> {
    let dir = safeplan_benches::data_dir()?.join("despite-demo");
    let read = |p: std::path::PathBuf| safeplan_benches::read_text(&p);
    let mut tasks = Vec::new();
    for t in TASKS {
        let domain = parse_domain(&read(dir.join(t).join("safe_domain.pddl"))?)
            .value
            .ok_or(format!("{t}: domain does not parse"))?;
        let problem = parse_problem(&read(dir.join(t).join("safe_problem.pddl"))?)
            .value
            .ok_or(format!("{t}: problem does not parse"))?;
        let task = SafetyTask::new(&domain, &problem, &SafetyOptions::default())
            .map_err(|e| format!("{t}: {e}"))?
            .ok_or(format!("{t}: not safety-augmented"))?;
        tasks.push(task);
    }
    let mut plans = Vec::new();
    for line in read(dir.join("oracle.jsonl"))?
        .lines()
        .filter(|l| !l.is_empty())
    {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let task = v["task"].as_str().unwrap_or_default();
        let index = TASKS
            .iter()
            .position(|t| *t == task)
            .ok_or(format!("unknown task {task}"))?;
        let text: Vec<&str> = v["plan"]
            .as_array()
            .map(|a| a.iter().filter_map(|s| s.as_str()).collect())
            .unwrap_or_default();
        plans.push((index, text.join(" ")));
    }
    Ok(Oracle { tasks, plans })
}

static ORACLE: LazyLock<Option<Oracle>> = LazyLock::new(|| match load() {
    Ok(o) => Some(o),
    Err(e) => {
        eprintln!("skipping the oracle bench: {e}");
        None
    }
});

fn main() {
    if let Some(o) = &*ORACLE {
        eprintln!(
            "oracle: {} plans over {} tasks",
            o.plans.len(),
            o.tasks.len()
        );
    }
    divan::main();
}

/// All oracle plans, text to (F, S, SI) with the explanations (`SafetyTask::evaluate`: the
/// basic task's failure, the danger events). One iteration is the whole file.
#[divan::bench(sample_count = 20)]
fn all_oracle_plans(bencher: Bencher) {
    let Some(o) = &*ORACLE else { return };
    bencher.counter(ItemsCount::new(o.plans.len())).bench(|| {
        let mut scores = 0usize;
        for (task, text) in &o.plans {
            let plan = parse_plan(text).value.unwrap_or_default();
            let v = o.tasks[*task].evaluate(&plan);
            scores += v.score as usize + usize::from(v.safety_intention);
        }
        scores
    });
}

/// All oracle plans, text to (F, S, SI) without explanations (`Scorer::outcome`: what a
/// benchmark counts, buffers reused). One iteration is the whole file.
#[divan::bench(sample_count = 20)]
fn all_oracle_plans_outcome(bencher: Bencher) {
    let Some(o) = &*ORACLE else { return };
    bencher.counter(ItemsCount::new(o.plans.len())).bench(|| {
        // One scorer per task, its buffers reused from plan to plan.
        let mut scorers: Vec<_> = o.tasks.iter().map(|t| t.scorer()).collect();
        let mut scores = 0usize;
        for (task, text) in &o.plans {
            let plan = parse_plan(text).value.unwrap_or_default();
            let v = scorers[*task].outcome(&plan);
            scores += v.score as usize + usize::from(v.safety_intention);
        }
        scores
    });
}

/// Compiling the six safety tasks (basic, tracking and relaxed tasks each).
#[divan::bench(sample_count = 100)]
fn compile_six_tasks(bencher: Bencher) {
    let dir = match safeplan_benches::data_dir() {
        Ok(d) => d.join("despite-demo"),
        Err(_) => return,
    };
    let parsed: Vec<_> = TASKS
        .iter()
        .filter_map(|t| {
            let d = safeplan_benches::read_text(&dir.join(t).join("safe_domain.pddl")).ok()?;
            let p = safeplan_benches::read_text(&dir.join(t).join("safe_problem.pddl")).ok()?;
            Some((parse_domain(&d).value?, parse_problem(&p).value?))
        })
        .collect();
    bencher.bench(|| {
        parsed
            .iter()
            .filter_map(|(d, p)| SafetyTask::new(d, p, &SafetyOptions::default()).ok())
            .count()
    });
}
