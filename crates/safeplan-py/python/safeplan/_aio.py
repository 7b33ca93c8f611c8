"""How the Rust loops run Python ``async def`` judges, revisers and planners.

The Rust side calls ``submit(awaitable)`` and waits on the ``concurrent.futures.Future`` it
returns. From synchronous code the awaitables run on a private event loop in a daemon thread
(started only when the first one is submitted, stopped when the call returns); from
``async`` code they run on the caller's own loop, while the Rust loop runs in an executor
thread so the caller's loop stays free to run them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from typing import Any, Awaitable, Optional


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def in_thread(loop: asyncio.AbstractEventLoop, call: Any) -> Any:
    """Run the Rust loop `call` in an executor thread, inside a copy of the caller's context
    (as ``asyncio.to_thread`` does): the awaitables it submits then run with the caller's
    context variables — a harness's per-task state, such as inspect_ai's transcript, usage
    accounting and token limits of the sample being solved."""
    context = contextvars.copy_context()
    return await loop.run_in_executor(None, context.run, call)


def submitter(loop: asyncio.AbstractEventLoop):
    """``submit`` for an event loop that runs in another thread than the Rust loop."""

    def submit(awaitable: Awaitable[Any]) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(_await(awaitable), loop)

    return submit


class LoopThread:
    """A private event loop in a daemon thread, for ``async def`` callbacks of a
    synchronous call; nothing starts unless a callback is asynchronous."""

    def __init__(self) -> None:
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()

    def submit(self, awaitable: Awaitable[Any]) -> concurrent.futures.Future:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="safeplan-asyncio", daemon=True
                )
                self._thread.start()
        return asyncio.run_coroutine_threadsafe(_await(awaitable), self._loop)

    def __enter__(self) -> "LoopThread":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._thread is not None:
            # Callbacks the run gave up on (Ctrl-C, a timeout) are cancelled and given a
            # moment to unwind, so that closing the loop destroys no pending task.
            try:
                asyncio.run_coroutine_threadsafe(_cancel_all(), self._loop).result(timeout=5)
            except Exception:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


async def _cancel_all() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
