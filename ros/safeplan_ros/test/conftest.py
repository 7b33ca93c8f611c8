"""The ROS tests run only where DDS cannot leave the machine: in a network namespace with
loopback alone (`.ci/ros.sh` runs them under `unshare -n`), with discovery limited to
localhost. Anywhere else they refuse to start, rather than multicast on a real network."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

REPO = Path(__file__).resolve().parents[3]


def pytest_configure(config: Any) -> None:
    # The interfaces of this process's network namespace (/sys/class/net may show the host's).
    interfaces = sorted(name for _, name in socket.if_nameindex())
    if interfaces != ["lo"] and os.environ.get("SAFEPLAN_ROS_ALLOW_NETWORK") != "1":
        pytest.exit(
            f"the ROS tests need a network namespace with loopback only (interfaces here: {interfaces}); "
            "run them with .ci/ros.sh (unshare -n), or set SAFEPLAN_ROS_ALLOW_NETWORK=1",
            returncode=2,
        )
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"


@pytest.fixture(scope="module")
def ros() -> Iterator[Any]:
    """rclpy initialised for a module, and an executor spinning in a background thread;
    nodes added to it are destroyed after the executor is shut down and its thread joined."""
    import rclpy
    from rclpy.executors import MultiThreadedExecutor

    rclpy.init()
    executor = MultiThreadedExecutor(num_threads=4)
    nodes: list[Any] = []

    class Ros:
        def add(self, node: Any) -> Any:
            nodes.append(node)
            executor.add_node(node)
            return node

    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    try:
        yield Ros()
    finally:
        executor.shutdown()
        thread.join(timeout=30)
        for node in nodes:
            node.destroy_node()
        rclpy.try_shutdown()
