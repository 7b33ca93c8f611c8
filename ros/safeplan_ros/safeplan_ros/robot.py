"""An example robot: a simulated robot that runs one action at a time (an action server,
``execute_action``), and an executive that dispatches a plan's steps to it, asking the
safeplan shield before each (``~/check_step``) and telling it after. The executive stops
before the first step the shield refuses: the dangerous step of the hot-soup task, or the
event of a durative plan that would come after a timed rule's deadline.

Run (three processes, or the tests' one):
    python -m safeplan_ros.shield_node --ros-args -p domain_file:=D -p problem_file:=P -p autostart:=true
    python -m safeplan_ros.robot robot
    python -m safeplan_ros.robot executive PLAN_FILE
"""

from __future__ import annotations

import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import rclpy
from rclpy.action import ActionClient, ActionServer
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from safeplan_interfaces.action import ExecuteAction
from safeplan_interfaces.srv import CheckStep, EndExecution

from safeplan_ros import spin


class SimRobot(Node):
    """A simulated robot: each goal "runs" for its duration × ``time_scale`` seconds."""

    def __init__(self, name: str = "sim_robot", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self.declare_parameter("time_scale", 0.01)
        self.executed: list[str] = []
        self._server = ActionServer(self, ExecuteAction, "execute_action", self._execute)

    def _execute(self, goal_handle: Any) -> ExecuteAction.Result:
        scale = max(0.0, float(self.get_parameter("time_scale").value))
        duration = max(0.0, goal_handle.request.duration) * scale
        steps = 4
        for i in range(steps):
            time.sleep(duration / steps)
            goal_handle.publish_feedback(ExecuteAction.Feedback(progress=(i + 1) / steps))
        self.executed.append(goal_handle.request.action)
        goal_handle.succeed()
        return ExecuteAction.Result(success=True, message=f"{goal_handle.request.action} done")


@dataclass
class Run:
    """What an execution did: the actions the robot ran, and the shield's refusal that
    stopped it (None when the plan ran to its end)."""

    executed: list[str] = field(default_factory=list)
    stopped: Optional[CheckStep.Response] = None
    goal_reached: bool = False


_TIMED = re.compile(r"^\s*([0-9.]+)\s*:\s*(\(.*?\))\s*\[\s*([0-9.]+)\s*\]")


def read_plan(text: str) -> list[tuple[Optional[float], str, float]]:
    """(time, action, duration) per step of a plan file: ``t: (a) [d]`` lines, or ``(a)``
    lines (time None). Comments (``;``) are skipped."""
    steps = []
    for line in text.splitlines():
        line = line.split(";", 1)[0].strip()
        if not line:
            continue
        m = _TIMED.match(line)
        if m:
            steps.append((float(m.group(1)), m.group(2), float(m.group(3))))
        else:
            steps.append((None, line, 0.0))
    return steps


class Executive(Node):
    """Dispatches a plan to the robot, asking the shield before each step or event."""

    def __init__(self, name: str = "executive", shield: str = "safeplan_shield", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._check = self.create_client(CheckStep, f"/{shield}/check_step")
        self._end = self.create_client(EndExecution, f"/{shield}/end_execution")
        self._robot = ActionClient(self, ExecuteAction, "execute_action")

    def wait_ready(self, timeout: float = 30.0) -> bool:
        return (
            self._check.wait_for_service(timeout_sec=timeout)
            and self._end.wait_for_service(timeout_sec=timeout)
            and self._robot.wait_for_server(timeout_sec=timeout)
        )

    def _ask(self, execution: str, action: str, event: str, t: float, apply: bool) -> CheckStep.Response:
        request = CheckStep.Request(execution_id=execution, action=action, event=event, time=t, apply=apply)
        response = _wait(self._check.call_async(request))
        if not response.ok:
            raise RuntimeError(f"the shield cannot answer: {response.error}")
        return response

    def _dispatch(self, action: str, duration: float) -> Any:
        goal = ExecuteAction.Goal(action=action, duration=duration)
        handle = _wait(self._robot.send_goal_async(goal))
        if not handle.accepted:
            raise RuntimeError(f"the robot rejected {action}")
        return handle.get_result_async()

    def run(self, plan_text: str, execution: str) -> Run:
        """Run the plan: sequential steps in order, or a timed plan's events in time order."""
        steps = read_plan(plan_text)
        run = Run()
        if all(t is None for t, _, _ in steps):
            for _, action, _ in steps:
                answer = self._ask(execution, action, "step", 0.0, apply=False)
                if not answer.allowed:
                    self.get_logger().warning(f"stopped before {action}: {answer.sentence}")
                    run.stopped = answer
                    break
                _wait(self._dispatch(action, 1.0))
                run.executed.append(action)
                self._ask(execution, action, "step", 0.0, apply=True)
        else:
            self._run_timed(steps, execution, run)
        end = _wait(self._end.call_async(EndExecution.Request(execution_id=execution)))
        run.goal_reached = bool(end.ok and end.goal_reached)
        return run

    def _run_timed(self, steps: list[tuple[Optional[float], str, float]], execution: str, run: Run) -> None:
        # Ends before starts at one time, as a plan's happenings run.
        events = sorted(
            [(t or 0.0, 1, i) for i, (t, _, _) in enumerate(steps)]
            + [((t or 0.0) + d, 0, i) for i, (t, _, d) in enumerate(steps)],
        )
        running: dict[int, Any] = {}
        for t, kind, i in events:
            action, duration = steps[i][1], steps[i][2]
            event = "start" if kind == 1 else "end"
            answer = self._ask(execution, action, event, t, apply=False)
            if not answer.allowed:
                self.get_logger().warning(f"stopped before the {event} of {action} at {t}: {answer.sentence}")
                run.stopped = answer
                break
            if kind == 1:
                running[i] = self._dispatch(action, duration)
            else:
                _wait(running.pop(i))
                run.executed.append(action)
            self._ask(execution, action, event, t, apply=True)
        for pending in running.values():
            _wait(pending)


def _wait(future: Any, timeout: float = 60.0) -> Any:
    """The future's result, waited for while an executor spins in another thread."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise TimeoutError("no answer within 60 s")
    return future.result()


def _spin(nodes: list[Node], work: Any) -> Any:
    """Spin `nodes` in a background thread while `work()` runs; shut down in order."""
    executor = MultiThreadedExecutor()
    for node in nodes:
        executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    try:
        return work()
    finally:
        executor.shutdown()
        thread.join()
        for node in nodes:
            node.destroy_node()


def robot_main(argv: Optional[list[str]] = None) -> int:
    spin.init(argv if argv is not None else sys.argv)
    return spin.run(lambda: [SimRobot()], MultiThreadedExecutor())


def executive_main(argv: Optional[list[str]] = None) -> int:
    args = rclpy.utilities.remove_ros_args(argv if argv is not None else sys.argv)
    if len(args) < 2:
        print("usage: executive PLAN_FILE [EXECUTION_ID] [--ros-args ...]", file=sys.stderr)
        return 2
    with open(args[1], encoding="utf-8", newline="") as f:
        plan = f.read()
    spin.init(argv if argv is not None else sys.argv)
    node = Executive()
    try:
        def work() -> int:
            if not node.wait_ready():
                print("the shield or the robot is not up", file=sys.stderr)
                return 1
            run = node.run(plan, args[2] if len(args) > 2 else "run-1")
            for action in run.executed:
                print(f"ran {action}")
            if run.stopped is not None:
                print(f"stopped: {run.stopped.sentence}")
                return 1
            print("goal reached" if run.goal_reached else "plan ran; goal not reached")
            return 0 if run.goal_reached else 1

        return _spin([node], work)
    finally:
        rclpy.try_shutdown()


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else ""
    if which == "robot":
        sys.exit(robot_main(sys.argv[1:]))
    if which == "executive":
        sys.exit(executive_main(sys.argv[1:]))
    print("usage: python -m safeplan_ros.robot robot | executive PLAN_FILE", file=sys.stderr)
    sys.exit(2)
