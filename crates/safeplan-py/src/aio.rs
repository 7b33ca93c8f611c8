//! Driving the async loops of `safeplan-judge` and `safeplan-bench` from Python.
//!
//! The loops are Rust futures; the judges, revisers and planners a user writes are Python
//! callables, plain or `async def`. A plain one is called where the loop asks (holding the
//! GIL for the call only). An `async def` one returns an awaitable, which the `submit`
//! callable the Python layer passes in (`asyncio.run_coroutine_threadsafe` on the caller's
//! running event loop, or on a private loop thread) turns into a `concurrent.futures.Future`;
//! its done-callback wakes the Rust future, so many awaitables run at once on the Python
//! loop while the Rust loop waits without the GIL. Dropping the Rust future (a timeout, the
//! loop stopping) cancels the Python one.
//!
//! The runtime runs with the GIL released and looks at Python's signal flag every 100 ms,
//! so Ctrl-C raises `KeyboardInterrupt` in the caller; results already handed to the
//! caller's `on_result` callback are kept.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tokio::sync::oneshot;

use crate::SafeplanError;

type Outcome = PyResult<Py<PyAny>>;

/// The done-callback of a `concurrent.futures.Future`: sends its result to the Rust side.
#[pyclass(module = "safeplan")]
struct Resolve {
    sender: Mutex<Option<oneshot::Sender<Outcome>>>,
}

#[pymethods]
impl Resolve {
    fn __call__(&self, future: &Bound<'_, PyAny>) {
        let outcome = future.call_method0("result").map(Bound::unbind);
        if let Some(sender) = self.sender.lock().ok().and_then(|mut s| s.take()) {
            // The receiver is gone when the Rust side stopped waiting (it cancelled).
            let _ = sender.send(outcome);
        }
    }
}

/// A Python awaitable running on a Python event loop, awaited from Rust.
struct Pending {
    future: Py<PyAny>,
    receiver: Option<oneshot::Receiver<Outcome>>,
}

impl Pending {
    async fn wait(mut self) -> Outcome {
        let Some(receiver) = self.receiver.as_mut() else {
            return Err(SafeplanError::new_err(
                "an async callback was awaited twice",
            ));
        };
        // The receiver stays in `self` while awaited, so that dropping this future midway
        // cancels the Python task (see `Drop`).
        let received = receiver.await;
        self.receiver = None;
        match received {
            Ok(outcome) => outcome,
            Err(_) => Err(SafeplanError::new_err(
                "the event loop running an async callback stopped before the callback finished",
            )),
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Still waiting: the Rust side gave up (a timeout, a cancelled run), so the Python
        // task is cancelled too rather than left running on the loop.
        if self.receiver.is_some() {
            Python::attach(|py| {
                let _ = self.future.bind(py).call_method0("cancel");
            });
        }
    }
}

/// The first `KeyboardInterrupt` or `SystemExit` a callback raised in a run. The loops
/// would record it as that episode's or attempt's error and go on; it must end the run
/// instead, so callbacks stop being called once it is set and `block_on` raises it.
#[derive(Clone, Default)]
pub(crate) struct Fatal {
    error: Arc<Mutex<Option<PyErr>>>,
    /// A run's cancel flag (the benchmark's), raised with it so no attempt is started.
    cancel: Option<Arc<AtomicBool>>,
}

impl Fatal {
    /// A slot that also raises `cancel`.
    pub fn cancelling(cancel: Arc<AtomicBool>) -> Fatal {
        Fatal {
            error: Arc::default(),
            cancel: Some(cancel),
        }
    }

    fn set(&self, error: PyErr) {
        if let Some(cancel) = &self.cancel {
            cancel.store(true, Ordering::Relaxed);
        }
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(error);
        }
    }

    /// Whether the run is ending.
    pub fn is_set(&self) -> bool {
        self.error.lock().map(|s| s.is_some()).unwrap_or(true)
    }

    fn take(&self) -> Option<PyErr> {
        self.error.lock().ok().and_then(|mut s| s.take())
    }
}

/// A Python callable a Rust loop calls, and how its awaitables are run.
pub(crate) struct Callback {
    /// The callable.
    pub callable: Py<PyAny>,
    /// `submit(awaitable) -> concurrent.futures.Future`.
    pub submit: Py<PyAny>,
    /// Where a `KeyboardInterrupt` it raises goes.
    pub fatal: Fatal,
}

impl Callback {
    /// Call it with the arguments `args` builds, await the result if it is awaitable, and
    /// convert what it returned; the GIL is held only to call and to convert.
    pub async fn call<T>(
        &self,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
        convert: impl for<'py> Fn(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> PyResult<T> {
        if self.fatal.is_set() {
            return Err(SafeplanError::new_err("the run was interrupted"));
        }
        let result = self.call_once(args, convert).await;
        if let Err(e) = &result {
            Python::attach(|py| {
                if !e.is_instance_of::<PyException>(py) {
                    self.fatal.set(e.clone_ref(py));
                }
            });
        }
        result
    }

    async fn call_once<T>(
        &self,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
        convert: impl for<'py> Fn(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> PyResult<T> {
        enum Step<T> {
            Done(T),
            Wait(Pending),
        }
        let step = Python::attach(|py| -> PyResult<Step<T>> {
            let out = self.callable.bind(py).call1(args(py)?)?;
            if !out.hasattr("__await__")? {
                return convert(&out).map(Step::Done);
            }
            let (sender, receiver) = oneshot::channel();
            let future = self.submit.bind(py).call1((out,))?;
            let resolve = Resolve {
                sender: Mutex::new(Some(sender)),
            };
            future.call_method1("add_done_callback", (resolve,))?;
            Ok(Step::Wait(Pending {
                future: future.unbind(),
                receiver: Some(receiver),
            }))
        })?;
        match step {
            Step::Done(value) => Ok(value),
            Step::Wait(pending) => {
                let out = pending.wait().await?;
                Python::attach(|py| convert(out.bind(py)))
            }
        }
    }
}

/// The name a Python callable goes by in transcripts and results: `python:NAME`.
pub(crate) fn callable_name(f: &Bound<'_, PyAny>) -> String {
    let name = f
        .getattr("__name__")
        .or_else(|_| f.get_type().getattr("__name__"))
        .and_then(|n| n.extract::<String>())
        .unwrap_or_else(|_| "callable".into());
    format!("python:{name}")
}

/// A Python exception as one line: `ValueError: the message`.
pub(crate) fn describe(error: &PyErr) -> String {
    Python::attach(|py| {
        let kind = error
            .get_type(py)
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "Exception".into());
        format!("{kind}: {}", error.value(py))
    })
}

/// Run the future `work` makes on `runtime` with the GIL released, checking for Ctrl-C
/// every 100 ms. The future is made on the detached side, so it need not be `Send` (the
/// loops' callbacks borrow the caller's state). A `KeyboardInterrupt` or `SystemExit` a
/// callback raised (`fatal`) is raised too.
pub(crate) fn block_on<W, F>(
    py: Python<'_>,
    runtime: &tokio::runtime::Runtime,
    fatal: &Fatal,
    work: W,
) -> PyResult<F::Output>
where
    W: FnOnce() -> F + Send,
    F: Future,
    F::Output: Send,
{
    py.detach(|| {
        runtime.block_on(async {
            let work = work();
            tokio::pin!(work);
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            loop {
                tokio::select! {
                    out = &mut work => return fatal.take().map_or(Ok(out), Err),
                    _ = tick.tick() => {
                        if let Some(e) = fatal.take() {
                            return Err(e);
                        }
                        Python::attach(|py| py.check_signals())?;
                    }
                }
            }
        })
    })
}

/// A runtime for the loops: one thread for the judge loop (its judges await providers),
/// several for a benchmark (its search planners run on the blocking pool).
pub(crate) fn runtime(threads: usize) -> PyResult<tokio::runtime::Runtime> {
    let mut builder = if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads);
        b
    };
    builder
        .enable_all()
        .build()
        .map_err(|e| SafeplanError::new_err(format!("cannot start the async runtime: {e}")))
}
