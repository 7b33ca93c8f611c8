//! Crossing processes (multiprocessing, Ray, DataLoader workers). Pickling: a task travels as
//! its PDDL text and options and is compiled again where it lands (compiling is linear in the
//! text, and the compiled form is no stable wire format); a verdict travels as the library's
//! serde JSON; exceptions are classes of the importable module `safeplan`, so pickle finds
//! them, and their fields travel in `__dict__`; a monitor refuses with what to send instead.
//! The batch pool's size in a worker (`_batch_threads`) comes from the library
//! (`safeplan_validate::parallel`), which also makes the pool anew in a forked child.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use safeplan_validate::{SafetyVerdict as RustSafety, Verdict as RustVerdict};

use crate::{SafetyVerdict, Verdict};

/// What a `Task` or `SafetyTask` was compiled from: its constructor's arguments.
#[derive(Clone, Debug, Default)]
pub(crate) struct TaskSource {
    pub domain: String,
    pub problem: String,
    pub domain_file: String,
    pub problem_file: String,
    pub strict: bool,
    /// `SafetyTask` only.
    pub danger: Option<String>,
    /// `SafetyTask` only.
    pub si_mode: Option<String>,
    /// `SafetyTask` only.
    pub tolerance: Option<f64>,
}

impl TaskSource {
    /// `(domain, problem), {keyword arguments}` for the constructor.
    pub(crate) fn task_args<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<((String, String), Bound<'py, PyDict>)> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("strict", self.strict)?;
        kwargs.set_item("domain_file", &self.domain_file)?;
        kwargs.set_item("problem_file", &self.problem_file)?;
        if let Some(danger) = &self.danger {
            kwargs.set_item("danger", danger)?;
        }
        if let Some(si) = &self.si_mode {
            kwargs.set_item("si_mode", si)?;
        }
        if self.tolerance.is_some() {
            kwargs.set_item("tolerance", self.tolerance)?;
        }
        Ok(((self.domain.clone(), self.problem.clone()), kwargs))
    }
}

/// `value` as JSON, or the error pickling it raises. (serde_json's `float_roundtrip`
/// feature, on for this crate, makes every float read back bit for bit.)
pub(crate) fn to_json(value: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("cannot pickle: {e}")))
}

/// The module function that rebuilds a pickled object.
pub(crate) fn restorer<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("safeplan._safeplan")?.getattr(name)
}

/// `__reduce__` of an object pickled as the JSON of `value`: the module function `name`
/// rebuilds it.
pub(crate) fn reduce_json<'py>(
    py: Python<'py>,
    name: &str,
    value: &impl serde::Serialize,
) -> PyResult<(Bound<'py, PyAny>, (String,))> {
    Ok((restorer(py, name)?, (to_json(value)?,)))
}

/// The `TypeError` of an object that does not pickle, saying what to send instead.
pub(crate) fn not_picklable(what: &str, instead: &str) -> PyErr {
    pyo3::exceptions::PyTypeError::new_err(format!("a {what} cannot be pickled: {instead}"))
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> PyResult<T> {
    serde_json::from_str(json)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("cannot unpickle: {e}")))
}

/// A `Verdict` from its pickled JSON.
#[pyfunction]
pub(crate) fn _verdict_from_json(json: &str) -> PyResult<Verdict> {
    let (inner, read): (RustVerdict, Option<safeplan_pddl::ReadReport>) = from_json(json)?;
    Ok(Verdict { inner, read })
}

/// A `SafetyVerdict` from its pickled JSON.
#[pyfunction]
pub(crate) fn _safety_verdict_from_json(json: &str) -> PyResult<SafetyVerdict> {
    let (inner, read): (RustSafety, Option<safeplan_pddl::ReadReport>) = from_json(json)?;
    Ok(SafetyVerdict { inner, read })
}

/// The threads batch calls use in this process (`safeplan_validate::parallel::threads`):
/// `RAYON_NUM_THREADS`, else `OMP_NUM_THREADS` (Ray sets it to a worker's `num_cpus`), else
/// the CPUs the process may run on.
#[pyfunction]
pub(crate) fn _batch_threads() -> usize {
    safeplan_validate::parallel::threads()
}
