//! The cost of one `safeplan_task_validate` call against the same work through the Rust
//! library, side by side in one process, and against spawning a validator process per plan
//! (VAL, or the `safeplan` CLI). Figures go into docs/benchmarks.md ("The C API").
//!
//! ```text
//! cargo run --release -p safeplan-capi --example bench_call -- DOMAIN PROBLEM PLAN [EXE ARGS...]
//! ```
//!
//! DOMAIN/PROBLEM/PLAN: a task and a plan file (the DESPITE demo task `neiss_11125`'s
//! safety-augmented files and its reference safe plan, for a DESPITE-size plan). The C call
//! (parse the plan text, validate it, judge its safety, free; and again with the sentence
//! and the JSON asked for) and the Rust calls (`parse_plan`, `Task::validate`, `SafetyTask::evaluate`) run in
//! alternating rounds of 20,000 calls; each figure is the median of 15 rounds, with the
//! minimum and maximum. EXE ARGS (optional): a validator command run once per plan as a
//! process (`{domain} {problem} {plan}` replaced), 200 times after 5 warm-up runs.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::ffi::CString;
use std::process::{Command, Stdio};
use std::ptr::null_mut;
use std::time::Instant;

use safeplan_c::{
    safeplan_task_free, safeplan_task_new, safeplan_task_validate, safeplan_verdict_free,
    safeplan_verdict_json, safeplan_verdict_message,
};
use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
use safeplan_validate::{SafetyOptions, SafetyTask, Task};

fn stats(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0], xs[xs.len() - 1])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: bench_call DOMAIN PROBLEM PLAN [EXE ARGS...]");
        std::process::exit(2);
    }
    let read = |p: &str| std::fs::read_to_string(p).expect("readable file");
    let (domain, problem, plan) = (read(&args[0]), read(&args[1]), read(&args[2]));

    let (cd, cp, cplan) = (
        CString::new(domain.clone()).unwrap(),
        CString::new(problem.clone()).unwrap(),
        CString::new(plan.clone()).unwrap(),
    );
    // SAFETY: valid NUL-terminated strings; the task is freed at the end.
    let ctask = unsafe { safeplan_task_new(cd.as_ptr(), cp.as_ptr(), null_mut()) };
    assert!(!ctask.is_null(), "the task compiles");

    let d = parse_domain(&domain).value.expect("domain");
    let p = parse_problem(&problem).value.expect("problem");
    let task = Task::compile(&d, &p).expect("compiles");
    let safety = SafetyTask::new(&d, &p, &SafetyOptions::default()).expect("safety task");

    const CALLS: usize = 20_000;
    const ROUNDS: usize = 15;
    let mut c_ns = Vec::new();
    let mut c_text_ns = Vec::new();
    let mut rust_ns = Vec::new();
    for _ in 0..ROUNDS {
        let t = Instant::now();
        for _ in 0..CALLS {
            // SAFETY: a live task and a valid string; the verdict is freed.
            unsafe {
                let v = safeplan_task_validate(ctask, cplan.as_ptr(), null_mut());
                safeplan_verdict_free(std::hint::black_box(v));
            }
        }
        c_ns.push(t.elapsed().as_nanos() as f64 / CALLS as f64);
        let t = Instant::now();
        for _ in 0..CALLS {
            // SAFETY: as above; the strings live until the verdict is freed.
            unsafe {
                let v = safeplan_task_validate(ctask, cplan.as_ptr(), null_mut());
                std::hint::black_box((safeplan_verdict_message(v), safeplan_verdict_json(v)));
                safeplan_verdict_free(v);
            }
        }
        c_text_ns.push(t.elapsed().as_nanos() as f64 / CALLS as f64);
        let t = Instant::now();
        for _ in 0..CALLS {
            let parsed = parse_plan(std::hint::black_box(&plan))
                .value
                .unwrap_or_default();
            let verdict = task.validate(&parsed);
            let judged = safety.as_ref().map(|s| s.evaluate(&parsed));
            std::hint::black_box((verdict, judged));
        }
        rust_ns.push(t.elapsed().as_nanos() as f64 / CALLS as f64);
    }
    // SAFETY: made above, freed once.
    unsafe { safeplan_task_free(ctask) };
    let (cm, cmin, cmax) = stats(c_ns);
    let (rm, rmin, rmax) = stats(rust_ns);
    let (tm, tmin, tmax) = stats(c_text_ns);
    println!("| call | ns per plan (median) | min | max |");
    println!("|---|---:|---:|---:|");
    println!(
        "| `safeplan_task_validate` + `safeplan_verdict_free` (C ABI: parse, validate, safety) | {cm:.0} | {cmin:.0} | {cmax:.0} |"
    );
    println!("| the same, and the sentence and JSON asked for | {tm:.0} | {tmin:.0} | {tmax:.0} |");
    println!(
        "| Rust: `parse_plan` + `Task::validate` + `SafetyTask::evaluate` | {rm:.0} | {rmin:.0} | {rmax:.0} |"
    );
    println!("ratio C / Rust: {:.2}", cm / rm);

    if args.len() > 3 {
        let fill = |a: &String| {
            a.replace("{domain}", &args[0])
                .replace("{problem}", &args[1])
                .replace("{plan}", &args[2])
        };
        let exe = fill(&args[3]);
        let rest: Vec<String> = args[4..].iter().map(fill).collect();
        let run = || {
            Command::new(&exe)
                .args(&rest)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("the validator runs")
        };
        for _ in 0..5 {
            run();
        }
        let mut times = Vec::new();
        for _ in 0..200 {
            let t = Instant::now();
            run();
            times.push(t.elapsed().as_nanos() as f64);
        }
        let (m, min, max) = stats(times);
        println!(
            "| spawning `{exe}` per plan | {m:.0} | {min:.0} | {max:.0} |   ({:.0}× the C call)",
            m / cm
        );
    }
}
