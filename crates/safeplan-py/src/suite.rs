//! A task suite as Python sees it: the prompts of every ability and the scoring of a reply,
//! exactly as `safeplan bench` words and scores them, so that a harness of its own (inspect_ai,
//! a notebook) measures the same thing. And the report's rates (F, S, SP, SI; P/R/F1) with
//! their bootstrap intervals, over verdicts gathered anywhere.

use std::path::PathBuf;
use std::sync::OnceLock;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use safeplan_bench::runner::score_reply;
use safeplan_bench::{Ability, CompiledTask, Suite as RustSuite};
use safeplan_metrics::{BootstrapOptions, Confusion, Verdicts, safety_rates as rust_safety_rates};

use crate::bench::{Rate, rate};
use crate::{BenchError, to_python};

/// A suite of safety-augmented tasks (a folder of task folders, or the built-in one), with
/// the prompts and the scoring of `safeplan bench`. Tasks compile on first use, once.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Suite {
    inner: RustSuite,
    compiled: Vec<OnceLock<Result<CompiledTask, String>>>,
}

impl Suite {
    fn wrap(inner: RustSuite) -> Suite {
        let compiled = inner.tasks().iter().map(|_| OnceLock::new()).collect();
        Suite { inner, compiled }
    }

    fn index(&self, task_id: &str) -> PyResult<usize> {
        self.inner
            .tasks()
            .iter()
            .position(|t| t.id == task_id)
            .ok_or_else(|| {
                PyKeyError::new_err(format!(
                    "no task `{task_id}` in the suite at {} (its ids are in `Suite.ids`)",
                    self.inner.root().display()
                ))
            })
    }

    /// Task `i` compiled, once (the first call compiles, the others wait or read).
    fn compile_once(&self, i: usize) -> Result<&CompiledTask, &String> {
        self.compiled[i]
            .get_or_init(|| self.inner.tasks()[i].compile().map_err(|e| e.to_string()))
            .as_ref()
    }

    /// [`Suite::compile_once`] without the GIL.
    fn compiled(&self, py: Python<'_>, i: usize) -> PyResult<&CompiledTask> {
        py.detach(|| self.compile_once(i))
            .map_err(|e| BenchError::new_err(e.clone()))
    }
}

fn ability(name: &str) -> PyResult<Ability> {
    Ability::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown ability `{name}`: give one of {}",
            Ability::ALL.map(|a| a.as_str()).join(", ")
        ))
    })
}

#[pymethods]
impl Suite {
    /// A suite holds its tasks' texts and the tasks compiled so far: it does not pickle.
    fn __reduce__(&self) -> PyResult<()> {
        Err(crate::processes::not_picklable(
            "Suite",
            "send the suite folder's path (or \"builtin\") and open it with safeplan.Suite(path) \
             or Suite.builtin() in the receiving process; a task's texts (Suite.task) are plain data",
        ))
    }

    /// The suite in the folder `path` (read as `safeplan bench PATH` reads it; a DESPITE
    /// export included).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Suite> {
        py.detach(|| RustSuite::load(&path))
            .map(Suite::wrap)
            .map_err(|e| BenchError::new_err(e.to_string()))
    }

    /// The built-in suite (`examples/tasks`, embedded in the package).
    #[staticmethod]
    fn builtin() -> PyResult<Suite> {
        safeplan_bench::builtin::suite()
            .map(Suite::wrap)
            .map_err(|e| BenchError::new_err(e.to_string()))
    }

    /// The task ids, in order.
    #[getter]
    fn ids(&self) -> Vec<String> {
        self.inner.tasks().iter().map(|t| t.id.clone()).collect()
    }

    /// The hash of the suite's content (as a results store records it).
    #[getter]
    fn hash(&self) -> &str {
        self.inner.hash()
    }

    fn __len__(&self) -> usize {
        self.inner.tasks().len()
    }

    /// A task's texts: `id`, the safety-augmented `domain` and `problem`, the `basic_domain`
    /// and `basic_problem` a planner is shown, and `metadata` (DESPITE's `metadata.json`).
    fn task(&self, py: Python<'_>, task_id: &str) -> PyResult<Py<PyAny>> {
        let i = self.index(task_id)?;
        let compiled = self.compiled(py, i)?;
        let t = &self.inner.tasks()[i];
        let metadata: serde_json::Value = t
            .metadata_json
            .as_deref()
            .and_then(|m| serde_json::from_str(m).ok())
            .unwrap_or(serde_json::Value::Null);
        to_python(
            py,
            &serde_json::json!({
                "id": t.id,
                "domain": t.domain,
                "problem": t.problem,
                "basic_domain": compiled.basic_domain,
                "basic_problem": compiled.basic_problem,
                "metadata": metadata,
            }),
        )
    }

    /// The prompt `safeplan bench` gives an LLM for `ability` on the task: a dict with
    /// `system` and `messages` (`role`, `content`); `None` for `safe-alternative` on a task
    /// without an unsafe reference plan.
    #[pyo3(signature = (task_id, ability="plan"))]
    fn prompt(&self, py: Python<'_>, task_id: &str, ability: &str) -> PyResult<Option<Py<PyAny>>> {
        let ability = self::ability(ability)?;
        let i = self.index(task_id)?;
        let compiled = self.compiled(py, i)?;
        let request = safeplan_bench::planners::llm::ability_prompt(
            ability,
            &self.inner.tasks()[i],
            compiled,
        );
        request.map(|r| to_python(py, &r)).transpose()
    }

    /// Score an LLM's text `reply` to `ability` on the task, as `safeplan bench` scores an
    /// attempt: a dict with `status` (`scored`, `failed`, `error`), `plan` (the steps read),
    /// `verdict` (plan abilities: `feasible`, `safe`, `safety_intention`, `score`,
    /// `danger`, `danger_events`, `failure`, `no_plan`), `sentence` (plan abilities: the
    /// library's sentence of the assessment, what `safeplan validate` says), `ability_score`
    /// (the others), `error`, `no_plan` (why the reply holds no plan) and `reading` (the
    /// reader's warnings).
    #[pyo3(signature = (task_id, reply, ability="plan"))]
    fn score(
        &self,
        py: Python<'_>,
        task_id: &str,
        reply: &str,
        ability: &str,
    ) -> PyResult<Py<PyAny>> {
        let ability = self::ability(ability)?;
        let i = self.index(task_id)?;
        let task = &self.inner.tasks()[i];
        let (answer, scored) = py
            .detach(|| {
                let compiled = self.compile_once(i).map_err(Clone::clone)?;
                Ok::<_, String>(score_reply(ability, task, compiled, reply))
            })
            .map_err(BenchError::new_err)?;
        to_python(
            py,
            &serde_json::json!({
                "status": scored.status.as_str(),
                "plan": scored.plan,
                "verdict": scored.verdict,
                "sentence": scored.sentence,
                "ability_score": scored.ability_score,
                "error": scored.error,
                "no_plan": answer.no_plan,
                "reading": answer.reading,
            }),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Suite({} tasks at {})",
            self.inner.tasks().len(),
            self.inner.root().display()
        )
    }
}

fn boot(resamples: usize, confidence: f64, seed: u64) -> PyResult<BootstrapOptions> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(PyValueError::new_err(format!(
            "confidence {confidence} is not between 0 and 1: give e.g. 0.95"
        )));
    }
    Ok(BootstrapOptions {
        resamples,
        confidence,
        seed,
    })
}

/// F, S, SP (= S/F) and SI with bootstrap intervals over `verdicts` (one `(feasible, safe,
/// safety_intention)` per attempt), as the benchmark report computes them; a dict with
/// `n` and a `Rate` for each of `feasible`, `safe`, `safety_precision`, `safety_intention`.
#[pyfunction]
#[pyo3(signature = (verdicts, *, resamples=10_000, confidence=0.95, seed=0))]
pub(crate) fn safety_rates(
    py: Python<'_>,
    verdicts: Vec<(bool, bool, bool)>,
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> PyResult<Py<PyAny>> {
    let boot = boot(resamples, confidence, seed)?;
    let rows: Vec<Verdicts> = verdicts
        .into_iter()
        .map(|(feasible, safe, safety_intention)| Verdicts {
            feasible,
            safe,
            safety_intention,
        })
        .collect();
    let r = py.detach(|| rust_safety_rates(&rows, &boot));
    let out = pyo3::types::PyDict::new(py);
    out.set_item("n", r.n)?;
    out.set_item("feasible", rate(&r.feasible))?;
    out.set_item("safe", rate(&r.safe))?;
    out.set_item("safety_precision", rate(&r.safety_precision))?;
    out.set_item("safety_intention", rate(&r.safety_intention))?;
    Ok(out.into_any().unbind())
}

/// Micro-averaged precision, recall and F1 with bootstrap intervals over `confusions` (one
/// `(tp, fp, fn)` per attempt), as the report's `identify-dangers` table computes them.
#[pyfunction]
#[pyo3(signature = (confusions, *, resamples=10_000, confidence=0.95, seed=0))]
pub(crate) fn prf_rates(
    py: Python<'_>,
    confusions: Vec<(u64, u64, u64)>,
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> PyResult<(Rate, Rate, Rate)> {
    let boot = boot(resamples, confidence, seed)?;
    let items: Vec<Confusion> = confusions
        .into_iter()
        .map(|(tp, fp, fn_)| Confusion { tp, fp, fn_ })
        .collect();
    let r = py.detach(|| safeplan_metrics::PrfRates::micro(&items, &boot));
    Ok((rate(&r.precision), rate(&r.recall), rate(&r.f1)))
}
