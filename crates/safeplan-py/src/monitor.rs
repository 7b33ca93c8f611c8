//! `Monitor`: a robot's step-by-step execution of a `Task` (the library's `Monitor`), and one
//! step read from Python.

use std::sync::Arc;

use crate::{PlanError, SafeplanError, StepError, to_python};
use pyo3::prelude::*;
use safeplan_pddl::{PlanStep, read_step};
use safeplan_validate::{GroundAction, Monitor as RustMonitor, MonitorParts, Task as RustTask};

/// The one step a string states, read by the library's [`read_step`]; `PlanError` unless
/// it is exactly one step.
fn one_step(s: &str) -> PyResult<PlanStep> {
    read_step(s).map_err(|e| PlanError::new_err(e.to_string()))
}

fn pair_of(step: &Bound<'_, PyAny>) -> PyResult<(String, Vec<String>)> {
    step.extract::<(String, Vec<String>)>().map_err(|_| {
        PlanError::new_err("a step is a string \"(action arg ...)\" or a (name, [args]) pair")
    })
}

/// One step as (name, args): a string read by [`one_step`], or a (name, args) pair.
fn step_of(step: &Bound<'_, PyAny>) -> PyResult<(String, Vec<String>)> {
    match step.extract::<String>() {
        Ok(s) => one_step(&s).map(|one| {
            (
                one.action.as_str().to_string(),
                one.args.iter().map(|a| a.as_str().to_string()).collect(),
            )
        }),
        Err(_) => pair_of(step),
    }
}

/// One step as the library's `PlanStep` (what a `Shield` is asked about): a string read once
/// by [`one_step`], or a (name, args) pair written as `(name args)` and read the same way.
pub(crate) fn plan_step_of(step: &Bound<'_, PyAny>) -> PyResult<PlanStep> {
    match step.extract::<String>() {
        Ok(s) => one_step(&s),
        Err(_) => {
            let (name, args) = pair_of(step)?;
            one_step(&format!("({name} {})", args.join(" ")))
        }
    }
}

/// Step-by-step execution for a robot: ask before each action, tell after it ran. Holds
/// the compiled task (shared, not copied) and the state of this execution.
#[pyclass(module = "safeplan")]
pub(crate) struct Monitor {
    pub(crate) task: Arc<RustTask>,
    /// The execution so far; `None` only while a call has it.
    pub(crate) parts: Option<MonitorParts>,
}

impl Monitor {
    /// Run `f` on a library monitor resumed from this one's parts, then keep its parts.
    fn with<R>(&mut self, f: impl FnOnce(&mut RustMonitor<'_>) -> R) -> PyResult<R> {
        let parts = self
            .parts
            .take()
            .ok_or_else(|| SafeplanError::new_err("the monitor is in use by another call"))?;
        let mut monitor = RustMonitor::from_parts(&self.task, parts);
        // A panic inside the library must not leave the monitor without its execution (it
        // would refuse every later call): the parts go back either way, and the panic is an
        // exception of this call only.
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut monitor)));
        self.parts = Some(monitor.into_parts());
        out.map_err(|_| {
            SafeplanError::new_err(
                "internal error in the monitor (a panic, caught); the monitor keeps its state: please report it",
            )
        })
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
