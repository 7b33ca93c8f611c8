//! Text and errors between Python and the libraries: diagnostics with their file, line and
//! column, the exceptions a parse or compile error becomes, and reading a plan argument (text,
//! step strings or (name, args) pairs) into the library's plan; `check`.

use crate::{ParseError, PlanError, SafeplanError, TaskError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use safeplan_pddl::{
    CheckOptions, Domain, FileKind, LineIndex, PlanReading, Problem, Severity, StatedPlan,
    Vocabulary, check_texts, parse_domain, parse_problem, read_plan_text,
};

/// One diagnostic of the parser or checker, with where it points.
#[pyclass(frozen, get_all, module = "safeplan")]
#[derive(Clone)]
pub(crate) struct Diagnostic {
    /// "error" or "warning".
    pub(crate) severity: String,
    /// The stable code, e.g. "undefined-predicate": the same string as in `safeplan check
    /// --json` and the MCP tools' diagnostics.
    pub(crate) code: String,
    /// What is wrong.
    pub(crate) message: String,
    /// The file name given (or "domain", "problem", "plan").
    pub(crate) file: String,
    /// 1-based line.
    pub(crate) line: u32,
    /// 1-based column.
    pub(crate) column: u32,
    /// How to fix it, when known.
    pub(crate) help: Option<String>,
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
    pub(crate) text: &'a str,
    pub(crate) name: &'a str,
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
pub(crate) fn task_error(
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

pub(crate) fn read_domain(py: Python<'_>, text: &str, name: &str) -> PyResult<Domain> {
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

pub(crate) fn read_problem(py: Python<'_>, text: &str, name: &str) -> PyResult<Problem> {
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
pub(crate) fn plan_text(plan: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = plan.cast::<PyString>() {
        return s.extract::<String>();
    }
    let Ok(items) = plan.try_iter() else {
        return Err(PlanError::new_err(
            "a plan is text, a list of step strings, or a list of (name, args) pairs",
        ));
    };
    // Each step's text, then the library writes the plan (`write_steps`): a bare step is put
    // in parentheses there, as for every front end that takes steps one by one.
    let mut steps = Vec::new();
    for (i, item) in items.enumerate() {
        let item = item?;
        if let Ok(s) = item.cast::<PyString>() {
            steps.push(s.extract::<String>()?);
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
            steps.push(safeplan_pddl::write_step(&name, &args));
        } else {
            return Err(PlanError::new_err(format!(
                "step {}: a step is a string or a (name, args) pair, not {}",
                i + 1,
                item.get_type().name()?
            )));
        }
    }
    Ok(safeplan_pddl::write_steps(steps.iter().map(String::as_str)))
}

/// Read a plan's text (no Python object touched, so it runs without the GIL) by the
/// library's one reader: strictly, or (`lenient`, with the task's names) as an LLM reply.
/// `Err`: the errors of a plan that does not read strictly.
fn stated_plan(
    text: &str,
    lenient: Option<&Vocabulary>,
) -> Result<StatedPlan, Vec<safeplan_pddl::Diagnostic>> {
    let reading = match lenient {
        Some(vocabulary) => PlanReading::Reply(Some(vocabulary)),
        None => PlanReading::Strict,
    };
    read_plan_text(text, reading).into_stated()
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
pub(crate) fn read_plan(
    py: Python<'_>,
    plan: &Bound<'_, PyAny>,
    lenient: Option<&Vocabulary>,
    name: &str,
) -> PyResult<StatedPlan> {
    let text = plan_text(plan)?;
    py.detach(|| stated_plan(&text, lenient))
        .map_err(|found| plan_error(py, &text, name, &found))
}

/// Read many plans: the texts taken from Python, then all parsed without the GIL; the first
/// that does not read raises its ParseError (named `plan N`).
pub(crate) fn read_plans(
    py: Python<'_>,
    plans: &Bound<'_, PyAny>,
    lenient: Option<&Vocabulary>,
) -> PyResult<Vec<StatedPlan>> {
    let mut texts = Vec::new();
    for plan in plans.try_iter()? {
        texts.push(plan_text(&plan?)?);
    }
    let read: Vec<_> = py.detach(|| texts.iter().map(|t| stated_plan(t, lenient)).collect());
    read.into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.map_err(|found| plan_error(py, &texts[i], &format!("plan {}", i + 1), &found))
        })
        .collect()
}

/// A bool as Python spells it, for reprs.
pub(crate) fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// The library value as a Python object, through its serde form.
pub(crate) fn to_python(py: Python<'_>, value: &impl serde::Serialize) -> PyResult<Py<PyAny>> {
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
pub(crate) fn check(
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
    let found = py.detach(|| check_texts(domain, problem, plan, &options));
    Ok(diagnostics(&found, &sources))
}
