//! `CheckedTask`, `Assessment` and `Shield`: thin shells over the library's one assessment
//! (`safeplan_validate::CheckedTask`) and its shield. Nothing is decided here: what valid,
//! feasible, safe, the failed step, the sentence and the JSON are is the library's.

use std::sync::Arc;

use pyo3::prelude::*;
use safeplan_pddl::PlanStep;
use safeplan_validate::{
    Answer, Assessment as RustAssessment, CheckedTask as RustChecked, SafetyOptions,
    Shield as RustShield, ShieldError as RustShieldError, Task as RustTask,
};

use crate::{
    PlanError, ShieldError, check_tolerance_opt, compile_options, ground_error, interruptible,
    plan_step_of, read_domain, read_plan, read_problem, search_options, task_error, to_python,
};

/// A task checked for use: compiled, with its safety task when the domain is
/// safety-augmented (or states rules), or the reason its safety cannot be judged.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct CheckedTask {
    inner: Arc<RustChecked>,
}

#[pymethods]
impl CheckedTask {
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
    ) -> PyResult<CheckedTask> {
        let d = read_domain(py, domain, domain_file)?;
        let p = read_problem(py, problem, problem_file)?;
        let compile = compile_options(strict);
        let options = SafetyOptions {
            compile: compile.clone(),
            ..SafetyOptions::default()
        };
        let inner = py
            .detach(|| {
                RustTask::compile_with(&d, &p, &compile)
                    .map(|task| RustChecked::with_safety_options(task, &d, &p, &options))
            })
            .map_err(|e| task_error(py, e, (domain, domain_file), (problem, problem_file)))?;
        Ok(CheckedTask {
            inner: Arc::new(inner),
        })
    }

    /// Whether the task's safety is judged (a safety-augmented domain, or rules).
    #[getter]
    fn safety_checked(&self) -> bool {
        self.inner.safety().is_some()
    }

    /// Why a safety-augmented task's safety cannot be judged; None otherwise.
    #[getter]
    fn safety_unavailable(&self) -> Option<String> {
        self.inner.safety_unavailable().map(str::to_owned)
    }

    /// Whether the task has durative actions (plans are timed; shields take times).
    #[getter]
    fn is_timed(&self) -> bool {
        self.inner.task().is_temporal()
    }

    /// The assessment of a plan (text), or with `reply=True` of the plan an LLM reply
    /// states, read by the one reply reader with the task's names.
    #[pyo3(signature = (plan, *, reply=false))]
    fn assess(&self, py: Python<'_>, plan: &Bound<'_, PyAny>, reply: bool) -> PyResult<Assessment> {
        let inner = &self.inner;
        if reply {
            let text: String = plan
                .extract()
                .map_err(|_| PlanError::new_err("a reply is text (str)"))?;
            return Ok(Assessment {
                inner: interruptible(py, || inner.assess_reply(&text))?,
            });
        }
        let read = read_plan(py, plan, None, "plan")?;
        let inner = match read.plan {
            Ok(plan) => interruptible(py, || inner.assess_plan(&plan))?,
            Err(why) => {
                // Strict reading never finds "no plan"; kept total for the reader's sake.
                return Err(PlanError::new_err(format!("no plan: {why}")));
            }
        };
        Ok(Assessment { inner })
    }

    /// A shield over a new execution of this task; `tolerance` is VAL's `-t` for a timed
    /// task.
    #[pyo3(signature = (*, tolerance=None))]
    fn shield(&self, tolerance: Option<f64>) -> PyResult<Shield> {
        let tolerance =
            check_tolerance_opt(tolerance)?.unwrap_or(safeplan_validate::DEFAULT_TOLERANCE);
        Ok(Shield {
            inner: RustShield::with_tolerance(self.inner.guarded(), tolerance),
        })
    }

    /// Search for a plan, as `Task.find_plan` and `SafetyTask.find_plan`: `kind` "safe"
    /// (the default; on a task without safety, any plan) or "basic" (danger ignored).
    #[pyo3(signature = (kind="safe", *, algorithm=None, max_states=None, max_memory_mib=None, time_limit=None))]
    fn find_plan(
        &self,
        py: Python<'_>,
        kind: &str,
        algorithm: Option<&str>,
        max_states: Option<usize>,
        max_memory_mib: Option<usize>,
        time_limit: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        if !matches!(kind, "safe" | "basic") {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "kind must be \"safe\" or \"basic\", not {kind:?}"
            )));
        }
        let options = search_options(algorithm, max_states, max_memory_mib, time_limit)?;
        let inner = self.inner.clone();
        let basic = kind == "basic";
        let result = interruptible(py, move || {
            let ground = safeplan_search::GroundOptions::default();
            match inner.safety() {
                Some(s) => safeplan_search::SafetyPlanner::new(s, &ground).map(|p| {
                    if basic {
                        p.basic_plan(&options)
                    } else {
                        p.safe_plan(&options)
                    }
                }),
                None => {
                    safeplan_search::Planner::new(inner.task(), &ground).map(|p| p.plan(&options))
                }
            }
        })?;
        to_python(py, &result.map_err(ground_error)?)
    }
}

/// The assessment of one plan: the library's verdict, safety verdict, sentence and JSON.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Assessment {
    inner: RustAssessment,
}

#[pymethods]
impl Assessment {
    /// Valid: the plan reaches the goal, and on a safety task it is feasible and safe.
    #[getter]
    fn valid(&self) -> bool {
        self.inner.valid()
    }
    /// F: executable and reaching the goal.
    #[getter]
    fn feasible(&self) -> bool {
        self.inner.feasible()
    }
    /// S: true on a task without safety.
    #[getter]
    fn safe(&self) -> bool {
        self.inner.safe()
    }
    /// SI, on a safety task; None otherwise.
    #[getter]
    fn safety_intention(&self) -> Option<bool> {
        self.inner.safety_intention()
    }
    /// The step that failed or was dangerous (1-based); None when none.
    #[getter]
    fn failed_step(&self) -> Option<usize> {
        self.inner.failed_step()
    }
    /// Why a reply holds no plan; None when a plan was read.
    #[getter]
    fn no_plan(&self) -> Option<String> {
        self.inner.no_plan().map(|w| w.to_string())
    }
    /// Why the task's safety was not judged; None otherwise.
    #[getter]
    fn safety_unavailable(&self) -> Option<String> {
        self.inner.safety_unavailable.clone()
    }
    /// The sentence every safeplan front end says of the plan.
    #[getter]
    fn sentence(&self) -> String {
        self.inner.sentence()
    }
    /// The JSON every safeplan front end emits, as text.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.json())
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }
    /// The JSON as a dict.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.json())
    }
    fn __str__(&self) -> String {
        self.inner.sentence()
    }
    fn __repr__(&self) -> String {
        format!("Assessment({:?})", self.inner.sentence())
    }
    fn __bool__(&self) -> bool {
        self.inner.valid()
    }
}

/// A shield over one execution: ask before each step (or each start, end and instantaneous
/// action, with times), and record what ran. Answers are dicts (the library's `Answer`,
/// with its `sentence`). A question that does not fit the execution raises `ShieldError`
/// (`.code`: "timing", "not_running", "wrong_kind") and changes nothing.
#[pyclass(module = "safeplan")]
pub(crate) struct Shield {
    inner: RustShield,
}

fn answer(py: Python<'_>, result: Result<Answer, RustShieldError>) -> PyResult<Py<PyAny>> {
    match result {
        Ok(a) => {
            let dict = to_python(py, &a)?;
            dict.bind(py).set_item("sentence", a.sentence())?;
            Ok(dict)
        }
        Err(e) => {
            let code = match e {
                RustShieldError::Timing { .. } => "timing",
                RustShieldError::NotRunning(_) => "not_running",
                RustShieldError::WrongKind(_) => "wrong_kind",
            };
            let err = ShieldError::new_err(e.to_string());
            err.value(py).setattr("code", code)?;
            Err(err)
        }
    }
}

impl Shield {
    /// A timed question about `step`, asked of the library's shield.
    fn timed(
        &mut self,
        py: Python<'_>,
        step: &Bound<'_, PyAny>,
        ask: impl FnOnce(&mut RustShield, &PlanStep) -> Result<Answer, RustShieldError>,
    ) -> PyResult<Py<PyAny>> {
        let s = plan_step_of(step)?;
        answer(py, ask(&mut self.inner, &s))
    }
}

#[pymethods]
impl Shield {
    /// A shield holds an execution in progress: it does not pickle.
    fn __reduce__(&self) -> PyResult<()> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a Shield cannot be pickled: it holds an execution in progress. Send the task's \
             PDDL and the events so far, and replay them in the receiving process",
        ))
    }

    /// May the sequential `step` run now? With `apply`, record it when it may.
    #[pyo3(signature = (step, *, apply=false))]
    fn step(
        &mut self,
        py: Python<'_>,
        step: &Bound<'_, PyAny>,
        apply: bool,
    ) -> PyResult<Py<PyAny>> {
        let s = plan_step_of(step)?;
        answer(py, self.inner.step(&s, apply))
    }

    /// May the durative `step` start at `time`?
    #[pyo3(signature = (step, time, *, apply=false))]
    fn start(
        &mut self,
        py: Python<'_>,
        step: &Bound<'_, PyAny>,
        time: f64,
        apply: bool,
    ) -> PyResult<Py<PyAny>> {
        self.timed(py, step, |shield, s| shield.start(s, time, apply))
    }

    /// May the running `step` end at `time`?
    #[pyo3(signature = (step, time, *, apply=false))]
    fn end(
        &mut self,
        py: Python<'_>,
        step: &Bound<'_, PyAny>,
        time: f64,
        apply: bool,
    ) -> PyResult<Py<PyAny>> {
        self.timed(py, step, |shield, s| shield.end(s, time, apply))
    }

    /// May the instantaneous `step` of a temporal domain happen at `time`?
    #[pyo3(signature = (step, time, *, apply=false))]
    fn happen(
        &mut self,
        py: Python<'_>,
        step: &Bound<'_, PyAny>,
        time: f64,
        apply: bool,
    ) -> PyResult<Py<PyAny>> {
        self.timed(py, step, |shield, s| shield.happen(s, time, apply))
    }

    /// Whether the goal holds now (and, timed, nothing is running).
    fn goal_reached(&self) -> bool {
        self.inner.goal_reached()
    }

    /// What the task's trajectory constraints still owe, with deadlines: a list of dicts
    /// (operator, constraint, owed, deadline), as `Monitor.outstanding()`.
    fn outstanding(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.outstanding())
    }

    /// Actions dispatched so far.
    #[getter]
    fn dispatched(&self) -> usize {
        self.inner.dispatched()
    }

    /// Danger now, on a safety task; None otherwise.
    #[getter]
    fn danger(&self) -> Option<f64> {
        self.inner.danger()
    }

    /// Whether the task is timed (ask with start, end, happen).
    #[getter]
    fn is_timed(&self) -> bool {
        self.inner.is_timed()
    }
}
