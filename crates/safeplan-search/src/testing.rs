//! Helpers the unit tests of the relaxed estimates share: a ground task from PDDL text, and
//! its initial state as the bits an estimate reads (or whole, as a search starts from it).

use safeplan_pddl::{parse_domain, parse_problem};
use safeplan_validate::Task;

use crate::GroundOptions;
use crate::eval::{self, Layout, set};
use crate::ground::GroundTask;

/// The ground task of a domain and problem that must parse and compile.
pub(crate) fn ground(domain: &str, problem: &str) -> GroundTask {
    let d = parse_domain(domain).value.expect("the test domain parses");
    let p = parse_problem(problem)
        .value
        .expect("the test problem parses");
    let task = Task::compile(&d, &p).expect("the test task compiles");
    GroundTask::ground(&task, &GroundOptions::default()).expect("the test task grounds")
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
