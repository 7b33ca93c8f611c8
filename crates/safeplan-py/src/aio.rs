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
use std::sync::Mutex;
use std::time::Duration;

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

/// A Python callable a Rust loop calls, and how its awaitables are run.
pub(crate) struct Callback {
    /// The callable.
    pub callable: Py<PyAny>,
    /// `submit(awaitable) -> concurrent.futures.Future`.
    pub submit: Py<PyAny>,
}

impl Callback {
    /// Call it with the arguments `args` builds, await the result if it is awaitable, and
    /// convert what it returned; the GIL is held only to call and to convert.
    pub async fn call<T>(
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
/// loops' callbacks borrow the caller's state).
pub(crate) fn block_on<W, F>(
    py: Python<'_>,
    runtime: &tokio::runtime::Runtime,
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
                    out = &mut work => return Ok(out),
                    _ = tick.tick() => Python::attach(|py| py.check_signals())?,
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
