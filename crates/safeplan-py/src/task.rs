//! `Task` and `Verdict`: a compiled task, its plans' verdicts, its planner and its monitor;
//! the search options every front end reads the same way.

use std::sync::Arc;

use crate::{
    Monitor, TaskError, check_tolerance, interruptible, processes, py_bool, read_domain, read_plan,
    read_plans, read_problem, task_error, to_python,
};
use pyo3::prelude::*;
use safeplan_pddl::{NoPlan, StatedPlan};
use safeplan_validate::{
    CompileOptions, Monitor as RustMonitor, Task as RustTask, ValidateOptions, Validator,
    Verdict as RustVerdict,
};

/// A lenient verdict's steps read, as Python data (None for a plan read strictly).
pub(crate) fn steps_read(
    py: Python<'_>,
    read: &Option<safeplan_pddl::ReadReport>,
) -> PyResult<Py<PyAny>> {
    to_python(py, &read.as_ref().map(|r| &r.steps))
}

/// A lenient verdict's reading warnings (None for a plan read strictly).
pub(crate) fn reading_warnings(read: &Option<safeplan_pddl::ReadReport>) -> Option<Vec<String>> {
    read.as_ref().map(|r| r.warnings.clone())
}

/// The verdict of a plan: validity, the first failure and everything the library reports.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Verdict {
    pub(crate) inner: RustVerdict,
    pub(crate) read: Option<safeplan_pddl::ReadReport>,
}

#[pymethods]
impl Verdict {
    /// With `lenient=True`: the steps read from the reply and scored, each a dict with its
    /// `text`, `line` and `column` in the reply; None for a plan read strictly.
    #[getter]
    fn steps_read(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        steps_read(py, &self.read)
    }

    /// With `lenient=True`: the reply reader's warnings (`"line L: message"`: text skipped,
    /// several statements of a plan, a step not well formed); None for a plan read strictly.
    #[getter]
    fn reading_warnings(&self) -> Option<Vec<String>> {
        reading_warnings(&self.read)
    }

    /// Every step applicable and the goal true at the end.
    #[getter]
    fn valid(&self) -> bool {
        self.inner.valid
    }

    /// Number of steps in the plan.
    #[getter]
    fn steps(&self) -> usize {
        self.inner.steps
    }

    /// The value of the problem's metric at the end of a valid plan, or None.
    #[getter]
    fn metric(&self) -> Option<f64> {
        self.inner.metric
    }

    /// The first failure as a dict (kind, step, action, message, unmet, advice...), or None.
    /// A broken trajectory constraint has kind "constraint_violated" and a "constraint"
    /// dict (operator, constraint, state, time, reason, unmet, held, advice).
    #[getter]
    fn failure(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.failure)
    }

    /// Why there was no plan to validate (`lenient=True` on an LLM reply from which no step
    /// can be read): "empty", "refusal", "claims_unsolvable" or "unreadable"; None when there
    /// was a plan. Such a verdict is never valid; its failure's kind is "no_plan".
    #[getter]
    fn no_plan(&self) -> Option<&'static str> {
        self.inner.no_plan.map(NoPlan::as_str)
    }

    /// For a task with PDDL3 preferences: per preference name, a dict with its instances,
    /// how many the plan violated (what `(is-violated NAME)` reads) and why. Empty when the
    /// task has none or the plan did not run to its end.
    #[getter]
    fn preferences(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.preferences)
    }

    /// The whole verdict as plain Python data (the library's serde form).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner)
    }

    /// Pickle: the verdict as its serde JSON (with what a lenient read read), rebuilt by
    /// `safeplan._safeplan._verdict_from_json`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = processes::to_json(&(&self.inner, &self.read))?;
        Ok((processes::restorer(py, "_verdict_from_json")?, (json,)))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Verdict>()
            .is_ok_and(|o| o.get().inner == self.inner && o.get().read == self.read)
    }

    fn __bool__(&self) -> bool {
        self.inner.valid
    }

    /// The library's words for the verdict (`valid (2 steps)`, `invalid: step 2 ...`), as
    /// the one sentence of an assessment begins.
    fn __str__(&self) -> String {
        safeplan_validate::words::verdict_words(&self.inner)
    }

    fn __repr__(&self) -> String {
        match &self.inner.failure {
            None => format!(
                "Verdict(valid={}, steps={})",
                py_bool(self.inner.valid),
                self.inner.steps
            ),
            Some(f) => format!(
                "Verdict(valid=False, steps={}, failure={:?})",
                self.inner.steps, f.message
            ),
        }
    }
}

/// A compiled task: parse and compile once, validate many plans.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Task {
    pub(crate) task: Arc<RustTask>,
    /// What it was compiled from: pickle sends this and the receiver compiles it again.
    pub(crate) source: Arc<processes::TaskSource>,
}

pub(crate) fn compile_options(strict: bool) -> CompileOptions {
    #[allow(clippy::needless_update)]
    CompileOptions {
        strict,
        ..CompileOptions::default()
    }
}

#[pymethods]
impl Task {
    /// Compile a task from the PDDL text of a domain and a problem.
    #[new]
    #[pyo3(signature = (domain, problem, *, strict=false, domain_file="domain.pddl", problem_file="problem.pddl"))]
    fn new(
        py: Python<'_>,
        domain: &str,
        problem: &str,
        strict: bool,
        domain_file: &str,
        problem_file: &str,
    ) -> PyResult<Task> {
        let d = read_domain(py, domain, domain_file)?;
        let p = read_problem(py, problem, problem_file)?;
        let options = compile_options(strict);
        // Not `interruptible`: compiling has no loop that looks at the watch (it is linear in
        // the task's text; docs/PYTHON.md says so).
        let task = py
            .detach(|| RustTask::compile_with(&d, &p, &options))
            .map_err(|e| task_error(py, e, (domain, domain_file), (problem, problem_file)))?;
        Ok(Task {
            task: Arc::new(task),
            source: Arc::new(processes::TaskSource {
                domain: domain.to_string(),
                problem: problem.to_string(),
                domain_file: domain_file.to_string(),
                problem_file: problem_file.to_string(),
                strict,
                ..processes::TaskSource::default()
            }),
        })
    }

    /// Pickle: the PDDL text and options; unpickling compiles the task again (compiling is
    /// linear in the text, and the compiled form is no stable wire format).
    fn __getnewargs_ex__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<((String, String), Bound<'py, pyo3::types::PyDict>)> {
        self.source.task_args(py)
    }

    /// The verdict of one plan: text, a list of step strings, or a list of (name, args)
    /// pairs; `lenient=True` reads an LLM reply (steps picked out of prose and lists). For
    /// a domain with durative actions the plan is timed (`t: (step) [d]`) and `tolerance`
    /// is VAL's `-t` (default 0.01).
    #[pyo3(signature = (plan, *, lenient=false, keep_going=false, tolerance=None))]
    fn validate(
        &self,
        py: Python<'_>,
        plan: &Bound<'_, PyAny>,
        lenient: bool,
        keep_going: bool,
        tolerance: Option<f64>,
    ) -> PyResult<Verdict> {
        let vocabulary = lenient.then(|| self.task.vocabulary());
        let StatedPlan {
            plan,
            read: plan_read,
            ..
        } = read_plan(py, plan, vocabulary.as_ref(), "plan")?;
        let options = ValidateOptions {
            keep_going,
            tolerance: check_tolerance_opt(tolerance)?,
            ..ValidateOptions::default()
        };
        if let Some(why) = self.task.unsupported_option(&options) {
            return Err(pyo3::exceptions::PyValueError::new_err(why));
        }
        let task = &self.task;
        let inner = interruptible(py, || {
            Validator::new(task, options).validate_stated(plan.as_ref().map_err(|why| *why))
        })?;
        Ok(Verdict {
            inner,
            read: plan_read,
        })
    }

    /// Search for a plan (without the GIL): a dict with `outcome` (`found` with the `plan`
    /// steps, `unsolvable`, or `limit_reached` with which limit) and the search `stats`,
    /// as `safeplan plan --json` reports them. Limits as the CLI's.
    #[pyo3(signature = (*, algorithm=None, max_states=None, max_memory_mib=None, time_limit=None))]
    fn find_plan(
        &self,
        py: Python<'_>,
        algorithm: Option<&str>,
        max_states: Option<usize>,
        max_memory_mib: Option<usize>,
        time_limit: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let options = search_options(algorithm, max_states, max_memory_mib, time_limit)?;
        let task = self.task.clone();
        let result = interruptible(py, move || {
            safeplan_search::Planner::new(&task, &safeplan_search::GroundOptions::default())
                .map(|planner| planner.plan(&options))
        })?;
        to_python(py, &result.map_err(ground_error)?)
    }

    /// A step-by-step monitor at the initial state (for a robot's execution loop).
    fn monitor(&self) -> Monitor {
        Monitor {
            task: self.task.clone(),
            parts: Some(RustMonitor::new(&self.task).into_parts()),
        }
    }

    /// The verdicts of many plans, in order, validated in parallel without the GIL.
    #[pyo3(signature = (plans, *, lenient=false, keep_going=false, tolerance=None))]
    fn validate_many(
        &self,
        py: Python<'_>,
        plans: &Bound<'_, PyAny>,
        lenient: bool,
        keep_going: bool,
        tolerance: Option<f64>,
    ) -> PyResult<Vec<Verdict>> {
        let vocabulary = lenient.then(|| self.task.vocabulary());
        let read = read_plans(py, plans, vocabulary.as_ref())?;
        let options = ValidateOptions {
            keep_going,
            tolerance: check_tolerance_opt(tolerance)?,
            ..ValidateOptions::default()
        };
        if let Some(why) = self.task.unsupported_option(&options) {
            return Err(pyo3::exceptions::PyValueError::new_err(why));
        }
        let (stated, reports): (Vec<_>, Vec<_>) =
            read.into_iter().map(|r| (r.plan, r.read)).unzip();
        let task = self.task.clone();
        let verdicts = py.detach(move || task.validate_batch_stated(&stated, &options));
        Ok(verdicts
            .into_iter()
            .zip(reports)
            .map(|(inner, read)| Verdict { inner, read })
            .collect())
    }
}

/// VAL's tolerance as given from Python: a positive, finite number, or `None` for VAL's
/// default.
pub(crate) fn check_tolerance_opt(tolerance: Option<f64>) -> PyResult<Option<f64>> {
    tolerance.map(check_tolerance).transpose()
}

/// Search options as the CLI's `safeplan plan` has them: the algorithm (a name
/// `Algorithm::from_name` reads; the library's default, `auto`, when `None`), and when to
/// give up (states stored, MiB of state storage, seconds; the library's memory default when
/// `None`).
pub(crate) fn search_options(
    algorithm: Option<&str>,
    max_states: Option<usize>,
    max_memory_mib: Option<usize>,
    time_limit: Option<f64>,
) -> PyResult<safeplan_search::SearchOptions> {
    let algorithm = match algorithm {
        None => safeplan_search::Algorithm::default(),
        Some(name) => safeplan_search::Algorithm::parse(name)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?,
    };
    let max_memory_mib = max_memory_mib.unwrap_or(safeplan_search::DEFAULT_MAX_MEMORY_MIB);
    let time = match time_limit {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s.min(1e9))),
        Some(s) => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "time_limit must be a positive number of seconds, not {s}"
            )));
        }
    };
    Ok(safeplan_search::SearchOptions {
        algorithm,
        limits: safeplan_search::Limits {
            max_states,
            max_memory: Some(max_memory_mib.saturating_mul(1 << 20)),
            time,
            cancel: None,
        },
    })
}

pub(crate) fn ground_error(e: safeplan_search::GroundError) -> PyErr {
    TaskError::new_err(format!("cannot plan for this task: {e}"))
}
