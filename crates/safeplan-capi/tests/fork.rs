//! A batch call in a forked child, after one in the parent (issue 39). Robot stacks and
//! Python workers fork; rayon's global pool does not survive a fork (the child inherits the
//! pool but not its threads), so a child's batch call on it waited forever. The batch pool
//! of `safeplan_validate::parallel` is made anew in the child. This test forks the test
//! process itself, which is why it lives in the one crate that may use `unsafe`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use safeplan_pddl::{Plan, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Task, ValidateOptions};

fn soup() -> (Task, Vec<Plan>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/hot-soup");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("example file");
    let d = parse_domain(&read("domain.pddl")).value.expect("domain");
    let p = parse_problem(&read("problem.pddl")).value.expect("problem");
    let plan = parse_plan(&read("safe.plan")).value.expect("plan");
    (Task::compile(&d, &p).expect("compiles"), vec![plan; 2_000])
}

#[test]
fn a_batch_call_in_a_forked_child_completes() {
    let (task, plans) = soup();
    let options = ValidateOptions::default();
    // The parent's pool now has threads.
    assert!(
        task.validate_batch(&plans, &options)
            .iter()
            .all(|v| v.valid)
    );
    // SAFETY: the child only runs this function's code and leaves with `_exit`; glibc's
    // malloc is fork-safe, and the child touches no lock the parent's other threads hold
    // (the batch pool is made anew there).
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let ok = task
            .validate_batch(&plans, &options)
            .iter()
            .all(|v| v.valid);
        // SAFETY: leaving the forked child without running the parent's destructors.
        unsafe { libc::_exit(if ok { 0 } else { 3 }) };
    }
    let start = Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: waiting for our own child.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if done == pid {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            // SAFETY: our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            // SAFETY: reaping it.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            panic!("the forked child's batch call did not return within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child status {status}"
    );
}
