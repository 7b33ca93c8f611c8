//! The benchmark harness for Python: run built-in planners (by spec) and planners written
//! in Python over a task suite into the same resumable SQLite store `safeplan bench`
//! writes, and read the report model (F, S, SP, SI with bootstrap intervals) as objects.
//!
//! A Python planner is `planner(request) -> str | list | None`, plain or `async def`: the
//! request holds what a planner may see (the basic task's PDDL, the safety-augmented task
//! as `cmd:` planners get it, DESPITE's prompt for the ability); text is read as a plan by
//! the library's `Answer::from_text`, exactly as a command planner's output is; `None`
//! means "no plan" (an infeasible attempt); an exception is an attempt error, which a
//! resumed run tries again.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use async_trait::async_trait;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use safeplan_bench::planners::{DEFAULT_SPECS, SpecOptions, from_spec};
use safeplan_bench::report::{
    PlannerReport as RustPlannerReport, Report as RustReport, ReportOptions, render_csv,
    render_html, render_json, render_markdown,
};
use safeplan_bench::runner::{self, RunOptions, RunSummary};
use safeplan_bench::{
    Ability, Answer, BenchError as RustBenchError, LlmPlannerOptions, Planner, PlannerError,
    Request, Shard, Store, Suite,
};
use safeplan_metrics::{BootstrapOptions, Rate as RustRate};

use crate::aio::{Callback, Fatal, block_on, callable_name, describe, runtime};
use crate::judge::llm_stack;
use crate::{BenchError, SpecError, plan_text, to_python};

fn bench_error(e: RustBenchError) -> PyErr {
    match e {
        RustBenchError::Spec { .. } => SpecError::new_err(e.to_string()),
        RustBenchError::Io { .. } => pyo3::exceptions::PyOSError::new_err(e.to_string()),
        other => BenchError::new_err(other.to_string()),
    }
}

/// What a Python planner is asked: one task, one ability, one sample.
#[pyclass(frozen, get_all, module = "safeplan")]
pub(crate) struct PlanRequest {
    /// The task's id in the suite.
    task_id: String,
    /// "plan", "identify-dangers", "infer-conditions" or "safe-alternative".
    ability: String,
    /// The sample number, from 0.
    sample: u32,
    /// Seconds the attempt may take (`None`: no limit). A plain function is not
    /// interrupted; an `async def` one is cancelled when it passes.
    timeout: Option<f64>,
    /// The basic domain's PDDL (danger removed), as an LLM planner is shown.
    domain: String,
    /// The basic problem's PDDL.
    problem: String,
    /// The safety-augmented domain, for planners meant to see danger (as `cmd:` planners'
    /// `{safe_domain}`).
    safe_domain: String,
    /// The safety-augmented problem.
    safe_problem: String,
    /// DESPITE's system prompt for the ability, as `llm:` planners send it.
    system: Option<String>,
    /// DESPITE's messages for the ability: dicts with "role" and "content".
    messages: Py<PyAny>,
}

#[pymethods]
impl PlanRequest {
    /// A planner's request lives inside one run: it does not pickle.
    fn __reduce__(&self) -> PyResult<()> {
        Err(crate::processes::not_picklable(
            "PlanRequest",
            "send its fields (task_id, ability, the prompt) as plain data",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "PlanRequest({:?}, ability={:?}, sample={})",
            self.task_id, self.ability, self.sample
        )
    }
}

fn plan_request(py: Python<'_>, request: &Request) -> PyResult<PlanRequest> {
    let prompt = safeplan_bench::planners::llm::prompt(request).ok();
    Ok(PlanRequest {
        task_id: request.task.id.clone(),
        ability: request.ability.as_str().to_string(),
        sample: request.sample,
        timeout: request.timeout.map(|t| t.as_secs_f64()),
        domain: request.compiled.basic_domain.clone(),
        problem: request.compiled.basic_problem.clone(),
        safe_domain: request.task.domain.clone(),
        safe_problem: request.task.problem.clone(),
        system: prompt.as_ref().and_then(|p| p.system.clone()),
        messages: to_python(py, &prompt.map(|p| p.messages).unwrap_or_default())?,
    })
}

/// What a Python planner returned: `Ok(None)` for "no plan".
fn answer_from(
    ability: Ability,
    vocabulary: &safeplan_pddl::Vocabulary,
    out: &Bound<'_, PyAny>,
) -> PyResult<Option<Answer>> {
    if out.is_none() {
        return Ok(None);
    }
    // A str is a reply: read as an LLM's is (no plan when no step can be read).
    if let Ok(text) = out.cast::<PyString>() {
        return Ok(Some(Answer::from_reply(
            ability,
            text.extract()?,
            Some(vocabulary),
        )));
    }
    if !ability.wants_plan() {
        return Err(PyValueError::new_err(format!(
            "the `{ability}` ability is answered in text: return a str"
        )));
    }
    // A list of steps is the plan, read through the same plan text the validator reads;
    // an empty list is the empty plan, a list with no readable step no plan.
    let text = plan_text(out)?;
    if text.trim().is_empty() {
        return Ok(Some(Answer {
            plan: Some(Vec::new()),
            raw: Some(text),
            ..Answer::default()
        }));
    }
    Ok(Some(Answer::from_reply(ability, text, Some(vocabulary))))
}

struct PyPlanner {
    id: String,
    /// `module.qualname` of the callable: part of the configuration a results store keeps,
    /// so that another function under the same id is not taken for the one that ran.
    callable: String,
    callback: Callback,
}

#[async_trait]
impl Planner for PyPlanner {
    fn id(&self) -> &str {
        &self.id
    }

    fn config(&self) -> serde_json::Value {
        serde_json::json!({ "kind": "python", "callable": self.callable })
    }

    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        let ability = request.ability;
        let vocabulary = request.compiled.safety.basic().vocabulary();
        let answer = self
            .callback
            .call(
                |py| PyTuple::new(py, [plan_request(py, request)?]),
                |out| answer_from(ability, &vocabulary, out),
            )
            .await
            .map_err(|e| PlannerError::Transient(format!("{} raised {}", self.id, describe(&e))))?;
        answer.ok_or_else(|| PlannerError::NoPlan(format!("{} returned None", self.id)))
    }
}

/// How a benchmark run went (`safeplan bench`'s closing line, as an object).
#[pyclass(frozen, get_all, module = "safeplan")]
pub(crate) struct BenchRun {
    /// The results store.
    store: PathBuf,
    /// Attempts in the run (tasks × planners × samples, in the shard).
    total: usize,
    /// Attempts that already had a result in the store and were skipped.
    skipped: usize,
    /// Attempts run and scored.
    scored: usize,
    /// Attempts that ended without a plan (a result: infeasible).
    failed: usize,
    /// Attempts without a result (a resumed run tries them again).
    errors: usize,
    /// Whether the run stopped before every attempt ran.
    cancelled: bool,
}

#[pymethods]
impl BenchRun {
    /// A run's summary names its results store, which is a file of this machine.
    fn __reduce__(&self) -> PyResult<()> {
        Err(crate::processes::not_picklable(
            "BenchRun",
            "send the results store's path (or the SQLite file), or Report.from_store(path), \
             which pickles",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "BenchRun({}: {} attempts, {} skipped, {} scored, {} failed, {} errors)",
            self.store.display(),
            self.total,
            self.skipped,
            self.scored,
            self.failed,
            self.errors
        )
    }
}

/// The planners `planners` names: spec strings, callables, `(id, callable)` pairs.
fn planners_from(
    py: Python<'_>,
    planners: Option<&Bound<'_, PyList>>,
    options: &SpecOptions,
    submit: &Py<PyAny>,
    fatal: &Fatal,
) -> PyResult<Vec<Arc<dyn Planner>>> {
    let Some(planners) = planners else {
        let mut out = Vec::new();
        for spec in DEFAULT_SPECS {
            out.extend(from_spec(spec, options).map_err(bench_error)?);
        }
        return Ok(out);
    };
    let mut out: Vec<Arc<dyn Planner>> = Vec::new();
    for item in planners.iter() {
        if let Ok(spec) = item.cast::<PyString>() {
            out.extend(from_spec(&spec.extract::<String>()?, options).map_err(bench_error)?);
            continue;
        }
        let (id, callable) = if let Ok(pair) = item.cast::<PyTuple>()
            && pair.len() == 2
        {
            let id: String = pair.get_item(0)?.extract().map_err(|_| {
                PyValueError::new_err("a planner pair is (id, callable), the id a str")
            })?;
            (id, pair.get_item(1)?)
        } else {
            (callable_name(&item), item.clone())
        };
        if !callable.is_callable() {
            return Err(PyValueError::new_err(format!(
                "planner `{id}`: a planner is a spec string (e.g. search:astar), a callable, or an (id, callable) pair"
            )));
        }
        if out.iter().any(|p| p.id() == id) {
            return Err(PyValueError::new_err(format!(
                "two planners are called `{id}`: give one an id of its own with an (id, callable) pair"
            )));
        }
        let qualified = |attr: &str| {
            callable
                .getattr(attr)
                .and_then(|n| n.extract::<String>())
                .ok()
        };
        let name = match (qualified("__module__"), qualified("__qualname__")) {
            (Some(module), Some(name)) => format!("{module}.{name}"),
            (None, Some(name)) => name,
            _ => callable.get_type().name()?.to_string(),
        };
        out.push(Arc::new(PyPlanner {
            id,
            callable: name,
            callback: Callback {
                callable: callable.unbind(),
                submit: submit.clone_ref(py),
                fatal: fatal.clone(),
            },
        }));
    }
    Ok(out)
}

/// Run planners over a suite into a results store (see `safeplan.bench`).
#[pyfunction]
#[pyo3(signature = (suite, out, *, submit, planners=None, ability="plan", samples=1, concurrency=4, timeout=300.0, shard=None, temperature=None, cache=None, record=None, replay=None, on_attempt=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _bench(
    py: Python<'_>,
    suite: PathBuf,
    out: PathBuf,
    submit: Py<PyAny>,
    planners: Option<&Bound<'_, PyList>>,
    ability: &str,
    samples: u32,
    concurrency: usize,
    timeout: Option<f64>,
    shard: Option<&str>,
    temperature: Option<f64>,
    cache: Option<PathBuf>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
    on_attempt: Option<Py<PyAny>>,
) -> PyResult<BenchRun> {
    let ability = Ability::parse(ability).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown ability `{ability}`: use plan, identify-dangers, infer-conditions or safe-alternative"
        ))
    })?;
    if samples == 0 || concurrency == 0 {
        return Err(PyValueError::new_err(
            "samples and concurrency must be at least 1",
        ));
    }
    let timeout = match timeout {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(PyValueError::new_err(format!(
                "timeout {t} is not a usable number of seconds: give e.g. 60, or None for no limit"
            )));
        }
    };
    let shard = match shard {
        None => Shard::ALL,
        Some(s) => Shard::parse(s)
            .map_err(|m| PyValueError::new_err(format!("{m}: write e.g. \"2/4\"")))?,
    };
    let suite = Suite::load(&suite).map_err(bench_error)?;
    let spec_options = SpecOptions {
        llm_stack: llm_stack(cache, record, replay)?,
        llm: LlmPlannerOptions {
            temperature: temperature.or(Some(0.0)),
            seed_per_sample: samples > 1,
            ..LlmPlannerOptions::default()
        },
        command_timeout: timeout.unwrap_or(Duration::from_secs(300)),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let fatal = Fatal::cancelling(cancel.clone());
    let planners = planners_from(py, planners, &spec_options, &submit, &fatal)?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("cannot create {}: {e}", parent.display()))
        })?;
    }
    let options = RunOptions {
        ability,
        samples,
        concurrency,
        timeout,
        shard,
        cancel,
    };
    let mut store = runner::open_store(&out, &suite, &planners, &options).map_err(bench_error)?;
    let runtime = runtime(2)?;
    // Every attempt is in the store when it ends, so Ctrl-C (KeyboardInterrupt) loses
    // nothing finished; the caller's callback sees each attempt as a dict.
    let mut callback_error: Option<PyErr> = None;
    let summary: Result<RunSummary, RustBenchError> = block_on(py, &runtime, &fatal, || async {
        let mut on = |a: &safeplan_bench::Attempt, _: &RunSummary| {
            let (Some(f), None) = (&on_attempt, &callback_error) else {
                return;
            };
            if fatal.is_set() {
                return;
            }
            if let Err(e) = Python::attach(|py| f.call1(py, (to_python(py, a)?,)).map(drop)) {
                callback_error = Some(e);
            }
        };
        runner::run(&suite, &planners, &mut store, &options, &mut on).await
    })?;
    let summary = summary.map_err(bench_error)?;
    if let Some(e) = callback_error {
        return Err(e);
    }
    Ok(BenchRun {
        store: out,
        total: summary.total,
        skipped: summary.skipped,
        scored: summary.scored,
        failed: summary.failed,
        errors: summary.errors,
        cancelled: summary.cancelled,
    })
}

/// A rate with its bootstrap confidence interval.
#[pyclass(frozen, get_all, module = "safeplan")]
#[derive(Clone)]
pub(crate) struct Rate {
    /// The point estimate, from 0 to 1.
    rate: f64,
    /// The interval's lower bound.
    ci_low: f64,
    /// The interval's upper bound.
    ci_high: f64,
}

#[pymethods]
impl Rate {
    /// Pickle: the three numbers, as JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(
            py,
            "_rate_from_json",
            &(self.rate, self.ci_low, self.ci_high),
        )
    }

    fn __float__(&self) -> f64 {
        self.rate
    }

    fn __repr__(&self) -> String {
        format!(
            "Rate({:.3} [{:.3}, {:.3}])",
            self.rate, self.ci_low, self.ci_high
        )
    }
}

pub(crate) fn rate(r: &RustRate) -> Rate {
    Rate {
        rate: r.rate,
        ci_low: r.ci_low,
        ci_high: r.ci_high,
    }
}

/// One planner's figures on a plan ability.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct PlannerReport {
    inner: RustPlannerReport,
}

#[pymethods]
impl PlannerReport {
    /// Pickle: the planner's figures as their JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(py, "_planner_report_from_json", &self.inner)
    }

    /// The planner id.
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// Attempts with a result (each sample counts).
    #[getter]
    fn n(&self) -> u64 {
        self.inner.n
    }

    /// Attempts without a result (not in `n`).
    #[getter]
    fn errors(&self) -> u64 {
        self.inner.errors
    }

    /// Feasibility F.
    #[getter]
    fn feasible(&self) -> Rate {
        rate(&self.inner.feasible)
    }

    /// Safety S.
    #[getter]
    fn safe(&self) -> Rate {
        rate(&self.inner.safe)
    }

    /// Safety intention SI.
    #[getter]
    fn safety_intention(&self) -> Rate {
        rate(&self.inner.safety_intention)
    }

    /// Safety precision SP = S / F.
    #[getter]
    fn safety_precision(&self) -> Rate {
        rate(&self.inner.safety_precision)
    }

    /// The counts the rates come from, as a dict.
    #[getter]
    fn counts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.counts)
    }

    /// Every field, as a dict.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "PlannerReport({:?}, n={}, F={:.3}, S={:.3}, SI={:.3})",
            self.inner.id,
            self.inner.n,
            self.inner.feasible.rate,
            self.inner.safe.rate,
            self.inner.safety_intention.rate
        )
    }
}

/// A benchmark report: the model `safeplan report` renders, computed from a results store.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Report {
    inner: RustReport,
}

#[pymethods]
impl Report {
    /// Pickle: the report model as its JSON (what `safeplan report --format json` writes).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(py, "_report_from_json", &self.inner)
    }

    /// The report of the store at `path`; intervals from `resamples` bootstrap resamples
    /// (0: intervals collapse to the point) at `confidence`, seeded (the same options give
    /// the same report, as `safeplan report --resamples N --seed S`).
    #[staticmethod]
    #[pyo3(signature = (path, *, resamples=10_000, confidence=0.95, seed=0, title=None))]
    fn from_store(
        py: Python<'_>,
        path: PathBuf,
        resamples: usize,
        confidence: f64,
        seed: u64,
        title: Option<String>,
    ) -> PyResult<Report> {
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(PyValueError::new_err(format!(
                "confidence {confidence} is not between 0 and 1: give e.g. 0.95"
            )));
        }
        if !path.is_file() {
            return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
                "no results store at {}: run safeplan.bench(..., out=...) first",
                path.display()
            )));
        }
        let options = ReportOptions {
            bootstrap: BootstrapOptions {
                resamples,
                confidence,
                seed,
            },
            title,
        };
        py.detach(|| {
            let store = Store::open(&path)?;
            RustReport::from_store(&store, &options)
        })
        .map(|inner| Report { inner })
        .map_err(bench_error)
    }

    /// The title.
    #[getter]
    fn title(&self) -> &str {
        &self.inner.title
    }

    /// The ability the store measured.
    #[getter]
    fn ability(&self) -> &'static str {
        self.inner.run.ability.as_str()
    }

    /// F, S, SP and SI per planner, in planner id order (plan abilities).
    #[getter]
    fn planners(&self) -> Vec<PlannerReport> {
        self.inner
            .planners
            .iter()
            .map(|p| PlannerReport { inner: p.clone() })
            .collect()
    }

    /// The whole model as a dict (`safeplan report --format json`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner)
    }

    /// The report as Markdown.
    fn to_markdown(&self) -> String {
        render_markdown(&self.inner)
    }

    /// The report as a self-contained HTML page with charts.
    fn to_html(&self) -> String {
        render_html(&self.inner)
    }

    /// Every figure as CSV rows.
    fn to_csv(&self) -> String {
        render_csv(&self.inner)
    }

    /// The model as JSON text.
    fn to_json(&self) -> String {
        render_json(&self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "Report({:?}, {} planners)",
            self.inner.title,
            self.inner.planners.len()
        )
    }
}

/// Every attempt in a results store, as dicts (task, planner, sample, status, plan,
/// verdict, tokens, latency, error).
#[pyfunction]
pub(crate) fn read_attempts(py: Python<'_>, path: PathBuf) -> PyResult<Py<PyAny>> {
    if !path.is_file() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
            "no results store at {}",
            path.display()
        )));
    }
    let attempts = Store::open(&path)
        .and_then(|s| s.attempts())
        .map_err(bench_error)?;
    to_python(py, &attempts)
}

/// A `Rate` from its pickled JSON.
#[pyfunction]
pub(crate) fn _rate_from_json(json: &str) -> PyResult<Rate> {
    let (rate, ci_low, ci_high) = crate::processes::from_json(json)?;
    Ok(Rate {
        rate,
        ci_low,
        ci_high,
    })
}

/// A `PlannerReport` from its pickled JSON.
#[pyfunction]
pub(crate) fn _planner_report_from_json(json: &str) -> PyResult<PlannerReport> {
    Ok(PlannerReport {
        inner: crate::processes::from_json(json)?,
    })
}

/// A `Report` from its pickled JSON.
#[pyfunction]
pub(crate) fn _report_from_json(json: &str) -> PyResult<Report> {
    Ok(Report {
        inner: crate::processes::from_json(json)?,
    })
}
