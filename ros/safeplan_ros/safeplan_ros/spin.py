"""Run nodes until SIGINT or SIGTERM, and tear down in the one order that does not crash:
the signal only sets a flag (rclpy's own handler would shut the context down under the
executor), the executor stops and is shut down, the nodes are destroyed while the context is
still valid, and only then is rclpy shut down. (With rclpy's handler, destroying a node after
the context was shut down under it crashed the process about one run in eight.)"""

from __future__ import annotations

import signal
import threading
from typing import Any, Callable, Optional

import rclpy
from rclpy.executors import Executor, SingleThreadedExecutor
from rclpy.signals import SignalHandlerOptions


def init(argv: Optional[list[str]]) -> None:
    """rclpy.init without rclpy's signal handlers (this module's take their place)."""
    rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)


def run(make_nodes: Callable[[], list[Any]], executor: Optional[Executor] = None) -> int:
    """Spin the nodes `make_nodes` builds until SIGINT or SIGTERM; then tear down in order."""
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    executor = executor or SingleThreadedExecutor()
    nodes: list[Any] = []
    try:
        nodes = make_nodes()
        for node in nodes:
            executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    finally:
        executor.shutdown()
        for node in nodes:
            node.destroy_node()
        rclpy.try_shutdown()
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0
