//! safeplan for Python: the validator, the safety verdicts and the diagnostics of the Rust
//! libraries, the Judge–Planner loop (`judge`) and the benchmark harness (`bench`), as the
//! extension module `safeplan._safeplan` (the package `safeplan` re-exports it;
//! `up_safeplan` builds a unified-planning engine on it).
//!
//! # Design
//!
//! **A shell, not a second implementation.** Every answer comes from `safeplan-pddl` and
//! `safeplan-validate`: parsing, checking, compiling, executing plans, the DESPITE
//! verdicts. This crate only converts: Python text or step lists in, plain objects out,
//! with the verdicts' full data available as the library's own serde form
//! (`Verdict.to_dict()` is the library's `Verdict` serialised, the same fields the CLI's
//! `--json` prints). A rule found missing here is added to a library, never written here.
//!
//! **Errors are exceptions of their own kind.** `ParseError` (the PDDL or plan text does not
//! read; its message lists every error as `file:line:col: message`, and its `diagnostics`
//! attribute holds them as objects), `TaskError` (the task reads but cannot be compiled,
//! or has no danger fluent for a `SafetyTask`), `PlanError` (a plan argument that is
//! neither text nor steps), `SpecError` (a judge, reviser or planner spec that names
//! nothing), `LlmError` (a provider stack that cannot be built; `kind` says why),
//! `EpisodeError` (an episodes line that does not read), `BenchError` (a suite or results
//! store that cannot be used), all subclasses of `SafeplanError`. A panic in Rust never
//! crosses into Python as an abort: PyO3 raises it as `pyo3_runtime.PanicException`.
//!
//! **Python code plugs into the libraries' traits.** A judge, reviser or planner written in
//! Python is a `Judge`, `Reviser` or `Planner` like the built-in ones; what it returns goes
//! through the same library checks an LLM's reply does (`check_revision`,
//! `Answer::from_text`). `async def` callables run on a Python event loop while the Rust loop
//! awaits them without the GIL (`aio`).
//!
//! **The GIL is released for work.** `Task.validate_many` and `SafetyTask.evaluate_many`
//! run without the GIL (and `validate_many` in parallel on the process's batch pool, made anew
//! in a forked child and sized by `RAYON_NUM_THREADS`, `OMP_NUM_THREADS` or the CPUs the
//! process may use: `safeplan_validate::parallel`), so other Python
//! threads — an rclpy executor, say — keep running.

mod aio;
mod assess;
mod bench;
mod chat;
mod convert;
mod judge;
mod monitor;
mod processes;
mod safety;
mod suite;
mod task;

use convert::{
    Diagnostic, check, plan_text, py_bool, read_domain, read_plan, read_plans, read_problem,
    task_error, to_python,
};
use monitor::{Monitor, plan_step_of};
use safety::{SafetyTask, SafetyVerdict};
use task::{
    Task, Verdict, check_tolerance_opt, compile_options, ground_error, reading_warnings,
    search_options, steps_read,
};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    safeplan,
    SafeplanError,
    PyException,
    "Base class of every error safeplan raises."
);
create_exception!(
    safeplan,
    ParseError,
    SafeplanError,
    "PDDL or plan text that does not read: the message lists each error as file:line:col; `diagnostics` holds them."
);
create_exception!(
    safeplan,
    TaskError,
    SafeplanError,
    "A task that reads but cannot be compiled (or, for SafetyTask, declares no danger fluent)."
);
create_exception!(
    safeplan,
    StepError,
    SafeplanError,
    "Monitor.apply of a step that cannot be executed now (the state is unchanged); `failure` says what is false."
);
create_exception!(
    safeplan,
    SpecError,
    SafeplanError,
    "A judge, reviser or planner spec that names nothing buildable (e.g. judge=\"oracle\")."
);
create_exception!(
    safeplan,
    LlmError,
    SafeplanError,
    "The LLM provider stack cannot be built or failed: a missing key, an unreachable cache; `kind` says which (\"config\", \"auth\", \"storage\", ...)."
);
create_exception!(
    safeplan,
    EpisodeError,
    SafeplanError,
    "An episodes file (JSON Lines) with a line that is not a valid episode; the message says file:line:col."
);
create_exception!(
    safeplan,
    BenchError,
    SafeplanError,
    "A benchmark that cannot run: a broken suite, or a results store of another suite, ability or planner configuration."
);
create_exception!(
    safeplan,
    ShieldError,
    SafeplanError,
    "A question a Shield cannot answer (not a refusal): a time that is negative, not finite or before the last event, ending what is not running, a timed question to a sequential task or the reverse. `.code` says which (\"timing\", \"not_running\", \"wrong_kind\")."
);
create_exception!(
    safeplan,
    PlanError,
    SafeplanError,
    "A plan argument that is neither text nor a list of steps."
);

/// Check a tolerance for timed plans (VAL's `-t`): a positive number of plan time units.
/// Returns it; raises `ValueError` otherwise (the rule the validator and the CLI use).
#[pyfunction]
fn check_tolerance(tolerance: f64) -> PyResult<f64> {
    safeplan_validate::check_tolerance(tolerance)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// An LLM error as `LlmError`, its kind in `kind`.
fn llm_error(e: &safeplan_llm::LlmError) -> PyErr {
    Python::attach(|py| {
        let err = LlmError::new_err(e.to_string());
        let _ = err.value(py).setattr("kind", e.kind());
        err
    })
}

/// How often a long call without the GIL asks Python whether a signal came.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Run `work` without the GIL, and let Ctrl-C stop it: the core's long loops (quantifier
/// bindings, `forall` effects, derived predicates, grounding, search) ask Python every 50 ms
/// to run its signal handlers (`PyErr_CheckSignals`); when one raises (`KeyboardInterrupt`),
/// the work is abandoned ([`safeplan_validate::abandon_when_asked`]) and that exception is
/// the call's result. Without it a validation of a huge quantifier could only be killed.
fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    let (value, raised) = py.detach(move || {
        // An exception left by a call that panicked after its question raised is not ours.
        RAISED.with(std::cell::Cell::take);
        // The question captures nothing, so the watch allocates only its flag: this runs on
        // every `validate` call, whose whole cost is a few microseconds.
        let watch = safeplan_validate::abandon_when_asked(SIGNAL_POLL, python_signal_raised);
        let value = work();
        drop(watch);
        (value, RAISED.with(std::cell::Cell::take))
    });
    match raised {
        // What the abandoned work returned is meaningless: dropped.
        Some(e) => Err(e),
        None => Ok(value),
    }
}

thread_local! {
    /// The exception a signal handler raised during this thread's [`interruptible`] call.
    static RAISED: std::cell::Cell<Option<PyErr>> = const { std::cell::Cell::new(None) };
}

/// Run Python's signal handlers (with the GIL, on this thread); whether one raised, the
/// exception kept in [`RAISED`].
fn python_signal_raised() -> bool {
    match Python::attach(|py| py.check_signals()) {
        Ok(()) => false,
        Err(e) => {
            RAISED.with(|r| r.set(Some(e)));
            true
        }
    }
}

/// The `safeplan` command-line program (`safeplan_cli::run`) on `argv` (its first item is
/// the program name), in this process, without the GIL; returns the exit code. What the
/// wheel's `safeplan-full` command runs.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| safeplan_cli::run(argv))
}

/// The extension module.
#[pymodule]
fn _safeplan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The library's defaults, which every front end takes (the Python helpers' signatures
    // show them).
    m.add("DEFAULT_DANGER", safeplan_validate::DEFAULT_DANGER)?;
    m.add("DEFAULT_TOLERANCE", safeplan_validate::DEFAULT_TOLERANCE)?;
    m.add(
        "DEFAULT_SI_MODE",
        safeplan_validate::SiMode::default().as_str(),
    )?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(processes::_verdict_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(processes::_batch_threads, m)?)?;
    m.add_function(wrap_pyfunction!(judge::_critique_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(judge::_step_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(judge::_round_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(judge::_refinement_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_rate_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_planner_report_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_report_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(processes::_safety_verdict_from_json, m)?)?;
    m.add("SafeplanError", py.get_type::<SafeplanError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("TaskError", py.get_type::<TaskError>())?;
    m.add("PlanError", py.get_type::<PlanError>())?;
    m.add("StepError", py.get_type::<StepError>())?;
    m.add("ShieldError", py.get_type::<ShieldError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("LlmError", py.get_type::<LlmError>())?;
    m.add("EpisodeError", py.get_type::<EpisodeError>())?;
    m.add("BenchError", py.get_type::<BenchError>())?;
    m.add_class::<judge::Episode>()?;
    m.add_class::<judge::Critique>()?;
    m.add_class::<judge::Step>()?;
    m.add_class::<judge::Round>()?;
    m.add_class::<judge::Refinement>()?;
    m.add_function(wrap_pyfunction!(judge::read_episodes, m)?)?;
    m.add_function(wrap_pyfunction!(judge::load_episodes, m)?)?;
    m.add_function(wrap_pyfunction!(judge::_refine, m)?)?;
    m.add_function(wrap_pyfunction!(judge::judge_metrics, m)?)?;
    m.add_class::<bench::PlanRequest>()?;
    m.add_class::<bench::BenchRun>()?;
    m.add_class::<bench::Rate>()?;
    m.add_class::<bench::PlannerReport>()?;
    m.add_class::<bench::Report>()?;
    m.add_class::<suite::Suite>()?;
    m.add_function(wrap_pyfunction!(suite::safety_rates, m)?)?;
    m.add_function(wrap_pyfunction!(suite::prf_rates, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_bench, m)?)?;
    m.add_function(wrap_pyfunction!(bench::read_attempts, m)?)?;
    m.add_class::<Monitor>()?;
    m.add_class::<assess::CheckedTask>()?;
    m.add_class::<assess::Assessment>()?;
    m.add_class::<assess::Shield>()?;
    m.add_class::<Diagnostic>()?;
    m.add_class::<Verdict>()?;
    m.add_class::<Task>()?;
    m.add_class::<SafetyVerdict>()?;
    m.add_class::<SafetyTask>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(check_tolerance, m)?)?;
    Ok(())
}
