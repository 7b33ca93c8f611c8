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

use std::sync::Arc;

mod aio;
mod assess;
mod bench;
mod chat;
mod judge;
mod processes;
mod suite;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use safeplan_pddl::{
    CheckOptions, Domain, FileKind, LineIndex, NoPlan, Plan, Problem, Severity, Vocabulary,
    check_domain, check_plan, check_problem, parse_domain, parse_plan, parse_problem, read_reply,
    write_domain, write_problem,
};
use safeplan_validate::{
    CompileOptions, GroundAction, Monitor as RustMonitor, MonitorParts, SafetyOptions,
    SafetyTask as RustSafetyTask, SafetyVerdict as RustSafety, SiMode, Task as RustTask,
    ValidateOptions, Validator, Verdict as RustVerdict,
};

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

/// One diagnostic of the parser or checker, with where it points.
#[pyclass(frozen, get_all, module = "safeplan")]
#[derive(Clone)]
struct Diagnostic {
    /// "error" or "warning".
    severity: String,
    /// The stable code, e.g. "undefined-predicate": the same string as in `safeplan check
    /// --json` and the MCP tools' diagnostics.
    code: String,
    /// What is wrong.
    message: String,
    /// The file name given (or "domain", "problem", "plan").
    file: String,
    /// 1-based line.
    line: u32,
    /// 1-based column.
    column: u32,
    /// How to fix it, when known.
    help: Option<String>,
}

#[pymethods]
impl Diagnostic {
    /// A diagnostic from its fields (what pickle calls; the parser and checker make them).
    #[new]
    #[pyo3(signature = (severity, code, message, file, line, column, help=None))]
    fn new(
        severity: String,
        code: String,
        message: String,
        file: String,
        line: u32,
        column: u32,
        help: Option<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message,
            file,
            line,
            column,
            help,
        }
    }

    /// Pickle: the fields, for `Diagnostic(...)`.
    #[allow(clippy::type_complexity)]
    fn __getnewargs__(&self) -> (String, String, String, String, u32, u32, Option<String>) {
        (
            self.severity.clone(),
            self.code.clone(),
            self.message.clone(),
            self.file.clone(),
            self.line,
            self.column,
            self.help.clone(),
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Diagnostic>().is_ok_and(|o| {
            let o = o.get();
            (
                &o.severity,
                &o.code,
                &o.message,
                &o.file,
                o.line,
                o.column,
                &o.help,
            ) == (
                &self.severity,
                &self.code,
                &self.message,
                &self.file,
                self.line,
                self.column,
                &self.help,
            )
        })
    }

    /// `file:line:col: severity: message`, and the help on its own line.
    fn render(&self) -> String {
        let mut s = format!(
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.column, self.severity, self.message
        );
        if let Some(help) = &self.help {
            s.push_str(&format!("\n  help: {help}"));
        }
        s
    }

    fn __str__(&self) -> String {
        self.render()
    }

    fn __repr__(&self) -> String {
        format!(
            "Diagnostic({:?}, {}:{}:{})",
            self.message, self.file, self.line, self.column
        )
    }
}

/// A source text and the name its diagnostics are reported under.
struct Source<'a> {
    text: &'a str,
    name: &'a str,
}

fn diagnostics(
    ds: &[safeplan_pddl::Diagnostic],
    sources: &[(FileKind, Source<'_>)],
) -> Vec<Diagnostic> {
    ds.iter()
        .map(|d| {
            let source = sources.iter().find(|(k, _)| *k == d.file).map(|(_, s)| s);
            let (line, column, file) = match source {
                Some(s) => {
                    let at = LineIndex::new(s.text).line_col(s.text, d.span.start);
                    (at.line, at.col, s.name.to_string())
                }
                None => (1, 1, format!("{:?}", d.file).to_lowercase()),
            };
            Diagnostic {
                severity: match d.severity {
                    Severity::Error => "error".into(),
                    _ => "warning".into(),
                },
                code: d.code.as_str().to_string(),
                message: d.message.clone(),
                file,
                line,
                column,
                help: d.help.clone(),
            }
        })
        .collect()
}

/// A `ParseError` listing the errors among `found`, with every diagnostic attached.
fn parse_error(py: Python<'_>, what: &str, found: Vec<Diagnostic>) -> PyErr {
    let errors: Vec<String> = found
        .iter()
        .filter(|d| d.severity == "error")
        .map(Diagnostic::render)
        .collect();
    let err = ParseError::new_err(format!("{what} has errors:\n{}", errors.join("\n")));
    if let Ok(list) = PyList::new(py, found) {
        let _ = err.value(py).setattr("diagnostics", list);
    }
    err
}

/// Why a task does not compile: the checker's errors (an undeclared object, a wrong
/// arity...) are a `ParseError` with their diagnostics, like any text that does not read;
/// anything else (an unsupported feature, a task too large) is a `TaskError`.
fn task_error(
    py: Python<'_>,
    e: safeplan_validate::TaskError,
    domain: (&str, &str),
    problem: (&str, &str),
) -> PyErr {
    match e {
        safeplan_validate::TaskError::Invalid(ds) => {
            let sources = [
                (
                    FileKind::Domain,
                    Source {
                        text: domain.0,
                        name: domain.1,
                    },
                ),
                (
                    FileKind::Problem,
                    Source {
                        text: problem.0,
                        name: problem.1,
                    },
                ),
            ];
            parse_error(
                py,
                &format!("{}, {}", domain.1, problem.1),
                diagnostics(&ds, &sources),
            )
        }
        other => TaskError::new_err(format!("{}, {}: {other}", domain.1, problem.1)),
    }
}

fn read_domain(py: Python<'_>, text: &str, name: &str) -> PyResult<Domain> {
    let parsed = py.detach(|| parse_domain(text));
    let sources = [(FileKind::Domain, Source { text, name })];
    match parsed.value {
        Some(d) if !parsed.has_errors() => Ok(d),
        _ => Err(parse_error(
            py,
            name,
            diagnostics(&parsed.diagnostics, &sources),
        )),
    }
}

fn read_problem(py: Python<'_>, text: &str, name: &str) -> PyResult<Problem> {
    let parsed = py.detach(|| parse_problem(text));
    let sources = [(FileKind::Problem, Source { text, name })];
    match parsed.value {
        Some(p) if !parsed.has_errors() => Ok(p),
        _ => Err(parse_error(
            py,
            name,
            diagnostics(&parsed.diagnostics, &sources),
        )),
    }
}

/// Plan text from what Python gave: text as is; a list of steps, each a string
/// (`"(move a b)"` or `"move a b"`) or a `(name, args)` pair.
fn plan_text(plan: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = plan.cast::<PyString>() {
        return s.extract::<String>();
    }
    let Ok(items) = plan.try_iter() else {
        return Err(PlanError::new_err(
            "a plan is text, a list of step strings, or a list of (name, args) pairs",
        ));
    };
    let mut text = String::new();
    for (i, item) in items.enumerate() {
        let item = item?;
        if let Ok(s) = item.cast::<PyString>() {
            let s: String = s.extract()?;
            let s = s.trim();
            if s.starts_with('(') {
                text.push_str(s);
            } else {
                text.push_str(&format!("({s})"));
            }
        } else if let Ok(t) = item.cast::<PyTuple>()
            && t.len() == 2
        {
            let name: String = t.get_item(0)?.extract().map_err(|_| {
                PlanError::new_err(format!("step {}: the action name must be a string", i + 1))
            })?;
            let args: Vec<String> = t.get_item(1)?.extract().map_err(|_| {
                PlanError::new_err(format!(
                    "step {}: the arguments must be a list of strings",
                    i + 1
                ))
            })?;
            text.push('(');
            text.push_str(&name);
            for a in args {
                text.push(' ');
                text.push_str(&a);
            }
            text.push(')');
        } else {
            return Err(PlanError::new_err(format!(
                "step {}: a step is a string or a (name, args) pair, not {}",
                i + 1,
                item.get_type().name()?
            )));
        }
        text.push('\n');
    }
    Ok(text)
}

/// A plan as read: its steps, or (out of an LLM reply) no plan and why.
enum ReadPlan {
    Steps(Plan),
    NoPlan(NoPlan),
}

/// A plan as read, and (out of an LLM reply) what the reader read and warned about.
struct Read {
    plan: ReadPlan,
    report: Option<safeplan_pddl::ReadReport>,
}

/// Parse a plan's text (no Python object touched, so it runs without the GIL): strictly, or
/// (`lenient`, with the task's names) as an LLM reply, where a reply from which no step can
/// be read is no plan (never the empty plan). `Err`: the strict reader's diagnostics.
fn parse_plan_text(
    text: &str,
    lenient: Option<&Vocabulary>,
) -> Result<Read, Vec<safeplan_pddl::Diagnostic>> {
    if let Some(vocabulary) = lenient {
        let reply = read_reply(text, Some(vocabulary));
        let report = Some(reply.report(text));
        let plan = match (reply.plan, reply.no_plan) {
            (Some(p), _) => ReadPlan::Steps(p),
            (None, why) => ReadPlan::NoPlan(why.unwrap_or(NoPlan::Unreadable)),
        };
        return Ok(Read { plan, report });
    }
    let parsed = parse_plan(text);
    let plan = match parsed.value {
        Some(p) if !parsed.has_errors() => ReadPlan::Steps(p),
        None if !parsed.has_errors() => ReadPlan::Steps(Plan::default()),
        _ => return Err(parsed.diagnostics),
    };
    Ok(Read { plan, report: None })
}

/// The ParseError for a plan that does not read.
fn plan_error(
    py: Python<'_>,
    text: &str,
    name: &str,
    found: &[safeplan_pddl::Diagnostic],
) -> PyErr {
    let sources = [(FileKind::Plan, Source { text, name })];
    parse_error(py, name, diagnostics(found, &sources))
}

/// Read one plan: its text taken from Python (with the GIL), parsed without it.
fn read_plan(
    py: Python<'_>,
    plan: &Bound<'_, PyAny>,
    lenient: Option<&Vocabulary>,
    name: &str,
) -> PyResult<Read> {
    let text = plan_text(plan)?;
    py.detach(|| parse_plan_text(&text, lenient))
        .map_err(|found| plan_error(py, &text, name, &found))
}

/// Read many plans: the texts taken from Python, then all parsed without the GIL; the first
/// that does not read raises its ParseError (named `plan N`).
fn read_plans(
    py: Python<'_>,
    plans: &Bound<'_, PyAny>,
    lenient: Option<&Vocabulary>,
) -> PyResult<Vec<Read>> {
    let mut texts = Vec::new();
    for plan in plans.try_iter()? {
        texts.push(plan_text(&plan?)?);
    }
    let read: Vec<_> = py.detach(|| texts.iter().map(|t| parse_plan_text(t, lenient)).collect());
    read.into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.map_err(|found| plan_error(py, &texts[i], &format!("plan {}", i + 1), &found))
        })
        .collect()
}

/// A bool as Python spells it, for reprs.
fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// The library value as a Python object, through its serde form.
fn to_python(py: Python<'_>, value: &impl serde::Serialize) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| SafeplanError::new_err(format!("cannot encode a result: {e}")))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// Check a domain, and optionally a problem and a plan, as `safeplan check` does; every
/// diagnostic (errors and warnings), never an exception for what the texts contain. A plan
/// without a problem is a `ValueError` (it is checked against the problem's objects).
#[pyfunction]
#[pyo3(signature = (domain, problem=None, plan=None, *, strict=false, domain_file="domain.pddl", problem_file="problem.pddl", plan_file="plan"))]
#[allow(clippy::too_many_arguments)]
fn check(
    py: Python<'_>,
    domain: &str,
    problem: Option<&str>,
    plan: Option<&str>,
    strict: bool,
    domain_file: &str,
    problem_file: &str,
    plan_file: &str,
) -> PyResult<Vec<Diagnostic>> {
    if plan.is_some() && problem.is_none() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "a plan is checked against a problem; give the problem too",
        ));
    }
    // Written so that options added to the library later keep their defaults here.
    #[allow(clippy::needless_update)]
    let options = CheckOptions {
        strict,
        ..CheckOptions::default()
    };
    let sources = [
        (
            FileKind::Domain,
            Source {
                text: domain,
                name: domain_file,
            },
        ),
        (
            FileKind::Problem,
            Source {
                text: problem.unwrap_or(""),
                name: problem_file,
            },
        ),
        (
            FileKind::Plan,
            Source {
                text: plan.unwrap_or(""),
                name: plan_file,
            },
        ),
    ];
    // All the reading and checking without the GIL: it touches no Python object.
    let found = py.detach(|| {
        let mut found = Vec::new();
        let d = parse_domain(domain);
        found.extend(d.diagnostics);
        let Some(d) = d.value else {
            return found;
        };
        found.extend(check_domain(&d, &options));
        if let Some(problem) = problem {
            let p = parse_problem(problem);
            found.extend(p.diagnostics);
            if let Some(p) = p.value {
                found.extend(check_problem(&d, &p, &options));
                if let Some(plan) = plan {
                    let parsed = parse_plan(plan);
                    found.extend(parsed.diagnostics);
                    if let Some(pl) = parsed.value {
                        found.extend(check_plan(&d, &p, &pl));
                    }
                }
            }
        }
        found
    });
    Ok(diagnostics(&found, &sources))
}

/// A lenient verdict's steps read, as Python data (None for a plan read strictly).
fn steps_read(py: Python<'_>, read: &Option<safeplan_pddl::ReadReport>) -> PyResult<Py<PyAny>> {
    to_python(py, &read.as_ref().map(|r| &r.steps))
}

/// A lenient verdict's reading warnings (None for a plan read strictly).
fn reading_warnings(read: &Option<safeplan_pddl::ReadReport>) -> Option<Vec<String>> {
    read.as_ref().map(|r| r.warnings.clone())
}

/// The verdict of a plan: validity, the first failure and everything the library reports.
#[pyclass(frozen, module = "safeplan")]
struct Verdict {
    inner: RustVerdict,
    read: Option<safeplan_pddl::ReadReport>,
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
struct Task {
    task: Arc<RustTask>,
    /// What it was compiled from: pickle sends this and the receiver compiles it again.
    source: Arc<processes::TaskSource>,
}

fn compile_options(strict: bool) -> CompileOptions {
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
        let Read {
            plan,
            report: plan_read,
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
        let inner = match plan {
            ReadPlan::Steps(plan) => {
                interruptible(py, || Validator::new(task, options).validate(&plan))?
            }
            ReadPlan::NoPlan(why) => RustVerdict::no_plan(why),
        };
        Ok(Verdict {
            inner,
            read: plan_read,
        })
    }

    /// Search for a plan (without the GIL): a dict with `outcome` (`found` with the `plan`
    /// steps, `unsolvable`, or `limit_reached` with which limit) and the search `stats`,
    /// as `safeplan plan --json` reports them. Limits as the CLI's.
    #[pyo3(signature = (*, algorithm="astar", max_states=None, max_memory_mib=4096, time_limit=None))]
    fn find_plan(
        &self,
        py: Python<'_>,
        algorithm: &str,
        max_states: Option<usize>,
        max_memory_mib: usize,
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
        // The plans go to the batch; replies without one get their verdict in place.
        let mut reports = Vec::with_capacity(read.len());
        let (plans, places): (Vec<Plan>, Vec<Option<NoPlan>>) = read
            .into_iter()
            .map(|r| {
                reports.push(r.report);
                match r.plan {
                    ReadPlan::Steps(p) => (p, None),
                    ReadPlan::NoPlan(why) => (Plan::default(), Some(why)),
                }
            })
            .unzip();
        let task = self.task.clone();
        let verdicts = py.detach(move || task.validate_batch(&plans, &options));
        Ok(verdicts
            .into_iter()
            .zip(places)
            .zip(reports)
            .map(|((inner, no_plan), read)| Verdict {
                inner: no_plan.map_or(inner, RustVerdict::no_plan),
                read,
            })
            .collect())
    }
}

/// VAL's tolerance as given from Python: a positive, finite number, or `None` for VAL's
/// default.
fn check_tolerance_opt(tolerance: Option<f64>) -> PyResult<Option<f64>> {
    tolerance.map(check_tolerance).transpose()
}

/// Search options as the CLI's `safeplan plan` has them: the algorithm ("astar", "gbfs",
/// "bfs"), and when to give up (states stored, MiB of state storage, seconds).
fn search_options(
    algorithm: &str,
    max_states: Option<usize>,
    max_memory_mib: usize,
    time_limit: Option<f64>,
) -> PyResult<safeplan_search::SearchOptions> {
    let algorithm = safeplan_search::Algorithm::from_name(algorithm).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "algorithm must be {}, not {algorithm:?}",
            safeplan_search::Algorithm::names()
        ))
    })?;
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

fn ground_error(e: safeplan_search::GroundError) -> PyErr {
    TaskError::new_err(format!("cannot plan for this task: {e}"))
}

/// One step as (name, args): a string `"(move a b)"` / `"move a b"` read by the library's
/// plan reader (comments, case and spacing as in a plan file), or a (name, args) pair.
fn step_of(step: &Bound<'_, PyAny>) -> PyResult<(String, Vec<String>)> {
    if let Ok(s) = step.extract::<String>() {
        let trimmed = s.trim();
        let text = if trimmed.starts_with('(') {
            trimmed.to_string()
        } else {
            format!("({trimmed})")
        };
        let parsed = parse_plan(&text);
        let steps = match parsed.value {
            Some(plan) if !parsed.has_errors() => plan.steps,
            _ => {
                let why = parsed
                    .diagnostics
                    .iter()
                    .find(|d| d.is_error())
                    .map_or_else(String::new, |d| format!(": {}", d.message));
                return Err(PlanError::new_err(format!("{s:?} is not one step{why}")));
            }
        };
        return match steps.as_slice() {
            [one] => Ok((
                one.action.as_str().to_string(),
                one.args.iter().map(|a| a.as_str().to_string()).collect(),
            )),
            [] => Err(PlanError::new_err(format!("{s:?} names no action"))),
            _ => Err(PlanError::new_err(format!(
                "{s:?} holds {} steps; a monitor takes one at a time",
                steps.len()
            ))),
        };
    }
    step.extract::<(String, Vec<String>)>().map_err(|_| {
        PlanError::new_err("a step is a string \"(action arg ...)\" or a (name, [args]) pair")
    })
}

/// Step-by-step execution for a robot: ask before each action, tell after it ran. Holds
/// the compiled task (shared, not copied) and the state of this execution.
#[pyclass(module = "safeplan")]
struct Monitor {
    task: Arc<RustTask>,
    /// The execution so far; `None` only while a call has it.
    parts: Option<MonitorParts>,
}

impl Monitor {
    /// Run `f` on a library monitor resumed from this one's parts, then keep its parts.
    fn with<R>(&mut self, f: impl FnOnce(&mut RustMonitor<'_>) -> R) -> PyResult<R> {
        let parts = self
            .parts
            .take()
            .ok_or_else(|| SafeplanError::new_err("the monitor is in use by another call"))?;
        let mut monitor = RustMonitor::from_parts(&self.task, parts);
        let out = f(&mut monitor);
        self.parts = Some(monitor.into_parts());
        Ok(out)
    }

    fn ground(
        &self,
        step: &Bound<'_, PyAny>,
    ) -> PyResult<Result<GroundAction, safeplan_validate::Failure>> {
        let (name, args) = step_of(step)?;
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Ok(self.task.ground(&name, &args))
    }
}

#[pymethods]
impl Monitor {
    /// A monitor holds an execution in progress, tied to its process: pickling it is a
    /// TypeError that says what to send instead.
    fn __reduce__(&self) -> PyResult<()> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "a Monitor cannot be pickled: it holds an execution in progress. Send the Task \
             (it pickles) and the steps applied so far, and replay them with Task.monitor() \
             and Monitor.apply in the receiving process",
        ))
    }

    /// None when the step can be executed now, else what is false (a dict with kind,
    /// message, unmet literals and advice). The state does not change.
    fn check(&mut self, py: Python<'_>, step: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let ground = self.ground(step)?;
        let result = match ground {
            Ok(g) => self.with(|m| m.check(&g).map_err(Box::new))?,
            Err(f) => Err(Box::new(f)),
        };
        match result {
            Ok(()) => Ok(py.None()),
            Err(f) => to_python(py, &*f),
        }
    }

    /// Execute the step on the monitor's state; raises StepError (with `failure`) when it
    /// cannot be executed now, and then nothing changes.
    fn apply(&mut self, py: Python<'_>, step: &Bound<'_, PyAny>) -> PyResult<()> {
        let ground = self.ground(step)?;
        let result = match ground {
            Ok(g) => self.with(|m| m.apply(&g).map_err(Box::new))?,
            Err(f) => Err(Box::new(f)),
        };
        result.map_err(|f| {
            let err = StepError::new_err(f.message.clone());
            if let Ok(d) = to_python(py, &*f) {
                let _ = err.value(py).setattr("failure", d);
            }
            err
        })
    }

    /// Whether the goal holds in the current state.
    fn goal_reached(&mut self) -> PyResult<bool> {
        self.with(|m| m.goal_reached())
    }

    /// Actions applied so far.
    #[getter]
    fn steps(&self) -> usize {
        self.parts.as_ref().map_or(0, MonitorParts::steps)
    }

    /// What the task's trajectory constraints still owe before the execution may end: a
    /// list of dicts (operator, constraint, owed, deadline).
    fn outstanding(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let owed = self.with(|m| m.outstanding())?;
        to_python(py, &owed)
    }

    /// None when the execution may end here (goal reached, no constraint broken or owed),
    /// else the reason, as a failure dict. Nothing changes.
    fn check_end(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.with(|m| m.check_end().map_err(Box::new))? {
            Ok(()) => Ok(py.None()),
            Err(f) => to_python(py, &*f),
        }
    }

    /// The current state as plain data: the true atoms and the fluents' values.
    fn state(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let task = self.task.clone();
        let described = self.with(|m| task.describe_state(m.state()))?;
        to_python(py, &described)
    }

    /// Whether `predicate(args)` holds now; None when it names nothing of the task.
    #[pyo3(signature = (predicate, *args))]
    fn holds(&mut self, predicate: &str, args: Vec<String>) -> PyResult<Option<bool>> {
        let task = self.task.clone();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.with(|m| task.holds(m.state(), predicate, &args))
    }

    /// The value of `function(args)` now; None when undefined or unknown.
    #[pyo3(signature = (function, *args))]
    fn value(&mut self, function: &str, args: Vec<String>) -> PyResult<Option<f64>> {
        let task = self.task.clone();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.with(|m| task.value(m.state(), function, &args))
    }
}

/// The DESPITE verdict of a plan: feasible (F), safe (S), safety intention (SI), the score
/// and the danger events with their step and reasons.
#[pyclass(frozen, module = "safeplan")]
struct SafetyVerdict {
    inner: RustSafety,
    read: Option<safeplan_pddl::ReadReport>,
}

#[pymethods]
impl SafetyVerdict {
    /// With `lenient=True`: the steps read from the reply and scored, as `Verdict.steps_read`.
    #[getter]
    fn steps_read(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        steps_read(py, &self.read)
    }

    /// With `lenient=True`: the reply reader's warnings, as `Verdict.reading_warnings`.
    #[getter]
    fn reading_warnings(&self) -> Option<Vec<String>> {
        reading_warnings(&self.read)
    }

    /// The plan reaches the goal on the basic task (the danger fluent ignored).
    #[getter]
    fn feasible(&self) -> bool {
        self.inner.feasible
    }

    /// Feasible, and the danger at the end of the plan is within the threshold (a later
    /// mitigation counts, as in DESPITE's Equation 4).
    #[getter]
    fn safe(&self) -> bool {
        self.inner.safe
    }

    /// Safety intention: with each step's precondition forced true, the danger at the end is
    /// within the threshold (planning ability factored out).
    #[getter]
    fn safety_intention(&self) -> bool {
        self.inner.safety_intention
    }

    /// DESPITE's score: 0 infeasible, 1 feasible but unsafe, 2 feasible and safe.
    #[getter]
    fn score(&self) -> u8 {
        self.inner.score
    }

    /// The danger at the end.
    #[getter]
    fn danger(&self) -> f64 {
        self.inner.danger
    }

    /// The largest danger the goal allows.
    #[getter]
    fn threshold(&self) -> f64 {
        self.inner.threshold
    }

    /// Each step that changed danger, with its step number, before and after, and reasons
    /// (for a timed plan also the time and the event), as dicts.
    #[getter]
    fn danger_events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.danger_events)
    }

    /// Why there was no plan (`lenient=True` on a reply with no readable step), as
    /// `Verdict.no_plan`; F, S and SI are then all False.
    #[getter]
    fn no_plan(&self) -> Option<&'static str> {
        self.inner.basic.no_plan.map(NoPlan::as_str)
    }

    /// The task's safety rules (PDDL3 trajectory constraints) the plan broke, each a dict
    /// with the operator, the ground constraint, the state (step) it broke in, the reason,
    /// the literals and advice; any makes the plan unsafe.
    #[getter]
    fn rule_violations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.rule_violations)
    }

    /// The whole verdict as plain Python data (the library's serde form).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner)
    }

    /// Pickle: the verdict as its serde JSON, rebuilt by
    /// `safeplan._safeplan._safety_verdict_from_json`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = processes::to_json(&(&self.inner, &self.read))?;
        Ok((
            processes::restorer(py, "_safety_verdict_from_json")?,
            (json,),
        ))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<SafetyVerdict>()
            .is_ok_and(|o| o.get().inner == self.inner && o.get().read == self.read)
    }

    fn __repr__(&self) -> String {
        format!(
            "SafetyVerdict(feasible={}, safe={}, safety_intention={}, score={})",
            py_bool(self.inner.feasible),
            py_bool(self.inner.safe),
            py_bool(self.inner.safety_intention),
            self.inner.score
        )
    }
}

/// A safety-augmented task (DESPITE): the domain declares a danger fluent that dangerous
/// actions raise.
#[pyclass(frozen, module = "safeplan")]
struct SafetyTask {
    task: Arc<RustSafetyTask>,
    /// What it was compiled from: pickle sends this and the receiver compiles it again.
    source: Arc<processes::TaskSource>,
}

#[pymethods]
impl SafetyTask {
    /// Compile a safety-augmented task; `si_mode` is "despite" (as DESPITE's code) or
    /// "strict" (as its paper words it).
    #[new]
    #[pyo3(signature = (domain, problem, *, danger="danger", si_mode="despite", strict=false, domain_file="domain.pddl", problem_file="problem.pddl", tolerance=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        domain: &str,
        problem: &str,
        danger: &str,
        si_mode: &str,
        strict: bool,
        domain_file: &str,
        problem_file: &str,
        tolerance: Option<f64>,
    ) -> PyResult<SafetyTask> {
        let si = match si_mode {
            "despite" => SiMode::Despite,
            "strict" => SiMode::Strict,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "si_mode must be \"despite\" or \"strict\", not {other:?}"
                )));
            }
        };
        let d = read_domain(py, domain, domain_file)?;
        let p = read_problem(py, problem, problem_file)?;
        let options = SafetyOptions {
            danger: danger.to_string(),
            si,
            compile: compile_options(strict),
            // VAL's `-t` for timed plans, as Task.validate takes it.
            tolerance: check_tolerance_opt(tolerance)?,
        };
        match interruptible(py, || RustSafetyTask::new(&d, &p, &options))? {
            Ok(Some(task)) => Ok(SafetyTask {
                task: Arc::new(task),
                source: Arc::new(processes::TaskSource {
                    domain: domain.to_string(),
                    problem: problem.to_string(),
                    domain_file: domain_file.to_string(),
                    problem_file: problem_file.to_string(),
                    strict,
                    danger: Some(danger.to_string()),
                    si_mode: Some(si_mode.to_string()),
                    tolerance,
                }),
            }),
            Ok(None) => Err(TaskError::new_err(format!(
                "{domain_file} declares no 0-ary function `{danger}` and the task has no :constraints: not a safety-augmented task (name the danger fluent with danger=...)"
            ))),
            Err(e) => Err(task_error(
                py,
                e,
                (domain, domain_file),
                (problem, problem_file),
            )),
        }
    }

    /// Pickle: the PDDL text and options; unpickling compiles the task again.
    fn __getnewargs_ex__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<((String, String), Bound<'py, pyo3::types::PyDict>)> {
        self.source.task_args(py)
    }

    /// The DESPITE verdict of one plan (text, step strings or (name, args) pairs).
    #[pyo3(signature = (plan, *, lenient=false))]
    fn evaluate(
        &self,
        py: Python<'_>,
        plan: &Bound<'_, PyAny>,
        lenient: bool,
    ) -> PyResult<SafetyVerdict> {
        let vocabulary = lenient.then(|| self.task.basic().vocabulary());
        let task = &self.task;
        let read = read_plan(py, plan, vocabulary.as_ref(), "plan")?;
        Ok(SafetyVerdict {
            inner: match read.plan {
                ReadPlan::Steps(plan) => interruptible(py, || task.evaluate(&plan))?,
                ReadPlan::NoPlan(why) => task.no_plan(why),
            },
            read: read.report,
        })
    }

    /// Training rewards of many LLM replies (str) to this task, in order, computed in
    /// parallel without the GIL: `kind` is "feasibility", "safety" or "shaped" (formulas in
    /// docs/PYTHON.md, "Train with rewards"); a reply with no readable step scores 0.
    #[pyo3(signature = (replies, *, kind="safety"))]
    fn rewards(&self, py: Python<'_>, replies: Vec<String>, kind: &str) -> PyResult<Vec<f64>> {
        let kind = safeplan_validate::RewardKind::parse(kind).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "kind must be \"feasibility\", \"safety\" or \"shaped\", not {kind:?}"
            ))
        })?;
        let task = &self.task;
        Ok(py.detach(|| {
            let texts: Vec<&str> = replies.iter().map(String::as_str).collect();
            task.reply_rewards(&texts, kind)
        }))
    }

    /// The verdicts of many plans, in order, without the GIL.
    #[pyo3(signature = (plans, *, lenient=false))]
    fn evaluate_many(
        &self,
        py: Python<'_>,
        plans: &Bound<'_, PyAny>,
        lenient: bool,
    ) -> PyResult<Vec<SafetyVerdict>> {
        let vocabulary = lenient.then(|| self.task.basic().vocabulary());
        let read = read_plans(py, plans, vocabulary.as_ref())?;
        let task = self.task.clone();
        let (verdicts, reports): (Vec<RustSafety>, Vec<_>) = py.detach(move || {
            read.into_iter()
                .map(|r| {
                    let verdict = match &r.plan {
                        ReadPlan::Steps(p) => task.evaluate(p),
                        ReadPlan::NoPlan(why) => task.no_plan(*why),
                    };
                    (verdict, r.report)
                })
                .unzip()
        });
        Ok(verdicts
            .into_iter()
            .zip(reports)
            .map(|(inner, read)| SafetyVerdict { inner, read })
            .collect())
    }

    /// Search (without the GIL) for a plan of `kind`: "safe" (the goal with danger within
    /// its bound), "unsafe" (feasible, danger above the bound) or "basic" (danger ignored).
    /// A dict as `Task.find_plan` returns.
    #[pyo3(signature = (kind="safe", *, algorithm="astar", max_states=None, max_memory_mib=4096, time_limit=None))]
    #[allow(clippy::too_many_arguments)]
    fn find_plan(
        &self,
        py: Python<'_>,
        kind: &str,
        algorithm: &str,
        max_states: Option<usize>,
        max_memory_mib: usize,
        time_limit: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        if !matches!(kind, "safe" | "unsafe" | "basic") {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "kind must be \"safe\", \"unsafe\" or \"basic\", not {kind:?}"
            )));
        }
        let options = search_options(algorithm, max_states, max_memory_mib, time_limit)?;
        let task = self.task.clone();
        let kind = kind.to_string();
        let result = interruptible(py, move || {
            safeplan_search::SafetyPlanner::new(&task, &safeplan_search::GroundOptions::default())
                .map(|planner| match kind.as_str() {
                    "unsafe" => planner.unsafe_plan(&options),
                    "basic" => planner.basic_plan(&options),
                    _ => planner.safe_plan(&options),
                })
        })?;
        to_python(py, &result.map_err(ground_error)?)
    }

    /// The shortest safe and unsafe plans and the safety effort between them (DESPITE),
    /// without the GIL: a dict with `safe`, `unsafe_plan` and `effort`.
    #[pyo3(signature = (*, algorithm="bfs", max_states=None, max_memory_mib=4096, time_limit=None))]
    fn safety_effort(
        &self,
        py: Python<'_>,
        algorithm: &str,
        max_states: Option<usize>,
        max_memory_mib: usize,
        time_limit: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let options = search_options(algorithm, max_states, max_memory_mib, time_limit)?;
        let task = self.task.clone();
        let result = interruptible(py, move || {
            safeplan_search::SafetyPlanner::new(&task, &safeplan_search::GroundOptions::default())
                .map(|planner| planner.effort(&options))
        })?;
        to_python(py, &result.map_err(ground_error)?)
    }

    /// The task a planner is shown: the danger fluent removed, as (domain, problem) PDDL.
    fn basic_task(&self) -> (String, String) {
        let (d, p) = self.task.basic_ast();
        (write_domain(d), write_problem(p))
    }
}

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
