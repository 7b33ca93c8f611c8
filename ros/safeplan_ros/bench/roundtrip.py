"""The shield's cost, in process and through ROS 2: checks per second of ``Shield.step`` called
directly, against the round trip of ``~/check_step`` (a client and the node in one process,
and in two), and ``~/validate_plan`` against ``CheckedTask.assess``. Run it like the tests, on
loopback only:

    unshare -n sh -c 'ip link set lo up && ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST \
        target/ci-venv/bin/python ros/safeplan_ros/bench/roundtrip.py'

Prints a Markdown table (median of each measure, with min and max over the repeats).
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import rclpy
import safeplan
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from safeplan_interfaces.srv import CheckStep, ValidatePlan

from safeplan_ros.robot import _wait
from safeplan_ros.shield_node import ShieldNode

REPO = Path(__file__).resolve().parents[3]
SOUP = REPO / "examples/tasks/hot-soup"
REPEATS, N = 5, 2000


def rate(work, n: int) -> list[float]:
    out = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for i in range(n):
            work(i)
        out.append((time.perf_counter() - start) / n)
    return out


def row(name: str, seconds: list[float]) -> str:
    med = statistics.median(seconds)
    return f"| {name} | {med * 1e6:.1f} µs | {min(seconds) * 1e6:.1f}–{max(seconds) * 1e6:.1f} µs | {1 / med:,.0f} |"


def main() -> None:
    task = safeplan.load_checked_task(SOUP / "domain.pddl", SOUP / "problem.pddl")
    shield = task.shield()
    shield.step("(pick-up soup stove)", apply=True)
    unsafe = (SOUP / "unsafe.plan").read_text()
    rows = [
        row("`Shield.step` in process (refused step)", rate(lambda i: shield.step("(move stove table)"), N)),
        row("`CheckedTask.assess` in process (unsafe plan)", rate(lambda i: task.assess(unsafe), N)),
    ]
    rclpy.init()
    node = ShieldNode("bench_shield", parameter_overrides=[
        Parameter("domain_file", value=str(SOUP / "domain.pddl")),
        Parameter("problem_file", value=str(SOUP / "problem.pddl")),
        Parameter("autostart", value=True)])
    client_node = Node("bench_client")
    executor = MultiThreadedExecutor(num_threads=2)
    executor.add_node(node)
    executor.add_node(client_node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    far = subprocess.Popen([sys.executable, "-m", "safeplan_ros.shield_node", "--ros-args", "-r", "__node:=far_bench",
                            "-p", f"domain_file:={SOUP / 'domain.pddl'}", "-p", f"problem_file:={SOUP / 'problem.pddl'}",
                            "-p", "autostart:=true"], stderr=subprocess.DEVNULL)
    try:
        for where, name in (("one process", "bench_shield"), ("two processes", "far_bench")):
            check = client_node.create_client(CheckStep, f"/{name}/check_step")
            validate = client_node.create_client(ValidatePlan, f"/{name}/validate_plan")
            assert check.wait_for_service(timeout_sec=30) and validate.wait_for_service(timeout_sec=30)
            _wait(check.call_async(CheckStep.Request(execution_id="b", action="(pick-up soup stove)", apply=True)))
            ask = CheckStep.Request(execution_id="b", action="(move stove table)")
            rows.append(row(f"`~/check_step` round trip, {where}", rate(lambda i: _wait(check.call_async(ask)), N // 4)))
            plan = ValidatePlan.Request(text=unsafe)
            rows.append(row(f"`~/validate_plan` round trip, {where}", rate(lambda i: _wait(validate.call_async(plan)), N // 4)))
    finally:
        far.send_signal(signal.SIGINT)
        far.wait(timeout=30)
        executor.shutdown()
        thread.join()
        node.destroy_node()
        client_node.destroy_node()
        rclpy.try_shutdown()
    print(f"hot-soup task, {os.cpu_count()} CPUs, median of {REPEATS} repeats\n")
    print("| measure | median per call | min–max | calls per second |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
