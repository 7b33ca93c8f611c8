"""The safeplan shield: a ROS 2 lifecycle node over the safeplan Python package.

Configure compiles the task (parameters ``domain_file`` and ``problem_file``, or later the
``~/load_task`` service); activate serves. Services (``safeplan_interfaces``):

- ``~/validate_plan``: the assessment of a plan, a PlanSys2 plan or an LLM reply (valid, F,
  S, SI, the failed step, the sentence, the JSON), also published on ``~/verdicts``;
- ``~/find_plan``: a safe plan (or any plan) for the task;
- ``~/check_step``: per execution id, a shield (``safeplan.Shield``): "may I start this
  action now?", refused before an inapplicable or unsafe step with its reasons; refusals are
  published on ``~/refusals``;
- ``~/end_execution``: whether an execution reached its goal, and forget it;
- ``~/load_task``: compile another task and serve it.

Status goes to ``/diagnostics``. The node is a thin shell: every answer is the library's
(``safeplan.CheckedTask``), converted field for field (:mod:`safeplan_ros.convert`). Nothing
a client sends can stop it: every request that cannot be answered gets ``ok = false`` and an
error that says what, where and how to fix it.
"""

from __future__ import annotations

import math
import sys
from collections import OrderedDict
from typing import Any, Callable, Optional

import safeplan
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from safeplan_interfaces.msg import StepRefusal, Verdict
from safeplan_interfaces.srv import CheckStep, EndExecution, FindPlan, LoadTask, ValidatePlan

from safeplan_ros import convert, spin

# Events a CheckStep request may name, and the shield method each calls.
EVENTS = ("step", "start", "end", "happen")


def _check_parameters(values: dict[str, Any]) -> Optional[str]:
    """Why these parameter values cannot be used; None when they can."""
    tolerance = values.get("tolerance")
    # 0 is a ROS parameter's "unset": the library's default. Any other value is the library's
    # to judge (safeplan.check_tolerance), in its words.
    if tolerance is not None and tolerance != 0.0:
        try:
            safeplan.check_tolerance(tolerance)
        except ValueError as e:
            return f"{e}; or 0 for VAL's default, {safeplan.DEFAULT_TOLERANCE}"
    limit = values.get("max_executions")
    if limit is not None and limit < 1:
        return f"max_executions must be 1 or more, not {limit}"
    plan_seconds = values.get("max_plan_seconds")
    if plan_seconds is not None and (not math.isfinite(plan_seconds) or plan_seconds <= 0.0):
        return f"max_plan_seconds must be a positive number of seconds, not {plan_seconds}"
    period = values.get("diagnostics_period")
    if period is not None and (not math.isfinite(period) or period <= 0.0):
        return f"diagnostics_period must be a positive number of seconds, not {period}"
    return None


class ShieldNode(LifecycleNode):
    """The lifecycle node (see the module's documentation)."""

    def __init__(self, name: str = "safeplan_shield", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        describe = ParameterDescriptor
        self.declare_parameter("domain_file", "", describe(description="PDDL domain file compiled on configure"))
        self.declare_parameter("problem_file", "", describe(description="PDDL problem file compiled on configure"))
        self.declare_parameter("tolerance", 0.0, describe(description=f"VAL's -t for timed tasks; 0 for its default, {safeplan.DEFAULT_TOLERANCE}"))
        self.declare_parameter("max_executions", 64, describe(description="executions shielded at once; the oldest is forgotten beyond"))
        self.declare_parameter("diagnostics_period", 1.0, describe(description="seconds between /diagnostics messages"))
        self.declare_parameter("max_plan_seconds", 10.0, describe(description="the longest ~/find_plan may search (the node serves nothing else meanwhile)"))
        self.declare_parameter("autostart", False, describe(description="configure and activate on start"))
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._task: Optional[safeplan.CheckedTask] = None
        self._task_name = ""
        self._executions: "OrderedDict[str, safeplan.Shield]" = OrderedDict()
        self._active = False
        self._counts = {"requests": 0, "refusals": 0, "errors": 0, "forgotten": 0}
        self._verdicts = None
        self._refusals = None
        self._diagnostics = None
        self._timer = None
        self.create_service(ValidatePlan, "~/validate_plan", self._guard(self._validate_plan, active=True))
        self.create_service(FindPlan, "~/find_plan", self._guard(self._find_plan, active=True))
        self.create_service(CheckStep, "~/check_step", self._guard(self._check_step, active=True))
        self.create_service(EndExecution, "~/end_execution", self._guard(self._end_execution, active=True))
        self.create_service(LoadTask, "~/load_task", self._guard(self._load_task, active=False))
        if self.get_parameter("autostart").value:
            self.trigger_configure()
            self.trigger_activate()

    # -- lifecycle -----------------------------------------------------------------------

    def _on_set_parameters(self, params: list[Any]) -> SetParametersResult:
        why = _check_parameters({p.name: p.value for p in params})
        return SetParametersResult(successful=why is None, reason=why or "")

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        domain = self.get_parameter("domain_file").value
        problem = self.get_parameter("problem_file").value
        if bool(domain) != bool(problem):
            self.get_logger().error(
                "set both domain_file and problem_file (or neither, and send the task with ~/load_task)"
            )
            return TransitionCallbackReturn.FAILURE
        if domain:
            try:
                self._set_task(safeplan.load_checked_task(domain, problem), f"{domain}, {problem}")
            except (OSError, safeplan.SafeplanError) as e:
                self.get_logger().error(f"cannot compile the task: {e}")
                return TransitionCallbackReturn.FAILURE
        self._verdicts = self.create_lifecycle_publisher(Verdict, "~/verdicts", 10)
        self._refusals = self.create_lifecycle_publisher(StepRefusal, "~/refusals", 10)
        self._diagnostics = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._timer = self.create_timer(self.get_parameter("diagnostics_period").value, self._publish_diagnostics)
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._active = True
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._active = False
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._release()
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._active = False
        self._release()
        return TransitionCallbackReturn.SUCCESS

    def _release(self) -> None:
        self._task, self._task_name = None, ""
        self._executions.clear()
        for entity, destroy in (
            (self._timer, self.destroy_timer),
            (self._verdicts, self.destroy_lifecycle_publisher),
            (self._refusals, self.destroy_lifecycle_publisher),
            (self._diagnostics, self.destroy_publisher),
        ):
            if entity is not None:
                destroy(entity)
        self._timer = self._verdicts = self._refusals = self._diagnostics = None

    def _set_task(self, task: safeplan.CheckedTask, name: str) -> None:
        self._task, self._task_name = task, name
        self._executions.clear()
        if task.safety_unavailable:
            self.get_logger().warning(f"safety is not judged for {name}: {task.safety_unavailable}")

    # -- services ------------------------------------------------------------------------

    def _guard(self, handler: Callable[[Any, Any], Any], *, active: bool) -> Callable[[Any, Any], Any]:
        """Run a service handler so that no request can crash the node: what cannot be
        answered is ``ok = false`` with the error."""

        def serve(request: Any, response: Any) -> Any:
            self._counts["requests"] += 1
            try:
                if active and not self._active:
                    raise _Refused("the node is not active: configure and activate it (lifecycle)")
                if active and self._task is None:
                    raise _Refused("no task is loaded: set domain_file and problem_file, or call ~/load_task")
                handler(request, response)
                response.ok = True
            except Exception as e:  # noqa: BLE001 - the node must keep serving
                self._counts["errors"] += 1
                response.ok = False
                response.error = str(e) if isinstance(e, _Refused) else f"{type(e).__name__}: {e}"
            return response

        return serve

    def _validate_plan(self, request: ValidatePlan.Request, response: ValidatePlan.Response) -> None:
        task = self._task
        text = request.text
        if not text.strip() and request.plan.items:
            text = convert.plan_text(list(request.plan.items), task.is_timed)
        assessment = task.assess(text, reply=request.is_reply)
        response.verdict = convert.verdict_msg(assessment)
        if self._verdicts is not None:
            self._verdicts.publish(response.verdict)

    def _find_plan(self, request: FindPlan.Request, response: FindPlan.Response) -> None:
        kind = {"": "safe", "safe": "safe", "any": "basic", "basic": "basic"}.get(request.kind)
        if kind is None:
            raise _Refused(f'kind must be "safe" or "any", not {request.kind!r}')
        limit = request.time_limit
        if not math.isfinite(limit) or limit < 0.0:
            raise _Refused(f"time_limit must be 0 (none) or a positive number of seconds, not {limit}")
        if self._task.is_timed:
            raise _Refused("the task has durative actions: safeplan's planner finds sequential plans only")
        # Never longer than max_plan_seconds: the node answers nothing else while it searches.
        cap = self.get_parameter("max_plan_seconds").value
        limit = min(limit, cap) if limit > 0.0 else cap
        # "" is the library's default (`auto`), as the service definition says.
        result = self._task.find_plan(kind, algorithm=request.algorithm or None, time_limit=limit)
        outcome = result.get("outcome") or {}
        response.found = outcome.get("status") == "found"
        if response.found:
            response.plan = convert.plan_msg(outcome.get("plan") or [])
            response.sentence = f"found a {len(response.plan.items)}-step plan"
            # A metric the search did not minimize is said, as in every front end.
            if result.get("metric_ignored"):
                response.sentence += f"; {result['metric_ignored']}"
        else:
            why = ", ".join(f"{k} {v}" for k, v in outcome.items() if k != "status")
            response.sentence = f"no plan: {outcome.get('status', 'unknown')}" + (f" ({why})" if why else "")

    def _check_step(self, request: CheckStep.Request, response: CheckStep.Response) -> None:
        event = request.event or ("start" if self._task.is_timed else "step")
        if event not in EVENTS:
            raise _Refused(f"event must be one of {', '.join(EVENTS)}, not {request.event!r}")
        if not request.execution_id:
            raise _Refused("execution_id is empty: name the execution (one shield is kept per id)")
        shield = self._shield(request.execution_id)
        if event == "step":
            answer = shield.step(request.action, apply=request.apply)
        else:
            answer = getattr(shield, event)(request.action, request.time, apply=request.apply)
        convert.fill_check_response(response, request.execution_id, answer)
        if not answer["allowed"]:
            self._counts["refusals"] += 1
            if self._refusals is not None:
                self._refusals.publish(response.refusal)

    def _shield(self, execution_id: str) -> safeplan.Shield:
        shield = self._executions.get(execution_id)
        if shield is None:
            tolerance = self.get_parameter("tolerance").value or None
            shield = self._task.shield(tolerance=tolerance)
            self._executions[execution_id] = shield
            while len(self._executions) > self.get_parameter("max_executions").value:
                forgotten, _ = self._executions.popitem(last=False)
                self._counts["forgotten"] += 1
                self.get_logger().warning(f"execution {forgotten!r} forgotten: more than max_executions at once")
        return shield

    def _end_execution(self, request: EndExecution.Request, response: EndExecution.Response) -> None:
        shield = self._executions.pop(request.execution_id, None)
        if shield is None:
            raise _Refused(f"no execution {request.execution_id!r}: it was never checked, or already ended")
        response.goal_reached = shield.goal_reached()
        response.dispatched = shield.dispatched

    def _load_task(self, request: LoadTask.Request, response: LoadTask.Response) -> None:
        state = self._state_machine.current_state[1]
        if state not in ("inactive", "active"):
            raise _Refused(f"the node is {state}: configure it before loading a task")
        if request.domain or request.problem:
            if not (request.domain and request.problem):
                raise _Refused("send both the domain and the problem text (or both files)")
            task = safeplan.CheckedTask(request.domain, request.problem)
            name = "the task sent with ~/load_task"
        elif request.domain_file and request.problem_file:
            task = safeplan.load_checked_task(request.domain_file, request.problem_file)
            name = f"{request.domain_file}, {request.problem_file}"
        else:
            raise _Refused("send the domain and problem texts, or the domain_file and problem_file paths")
        self._set_task(task, name)
        response.safety_checked = task.safety_checked
        response.safety_unavailable = task.safety_unavailable or ""

    # -- status --------------------------------------------------------------------------

    def _publish_diagnostics(self) -> None:
        status = DiagnosticStatus(name=f"{self.get_name()}: safeplan shield", hardware_id="safeplan")
        if self._task is None:
            status.level, status.message = DiagnosticStatus.WARN, "no task loaded"
        elif self._task.safety_unavailable:
            status.level = DiagnosticStatus.WARN
            status.message = f"safety not judged: {self._task.safety_unavailable}"
        else:
            status.level = DiagnosticStatus.OK
            status.message = "serving" if self._active else "inactive"
        values = {"task": self._task_name, "active": str(self._active), "executions": str(len(self._executions))}
        values.update({k: str(v) for k, v in self._counts.items()})
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        array = DiagnosticArray(status=[status])
        array.header.stamp = self.get_clock().now().to_msg()
        self._diagnostics.publish(array)


class _Refused(Exception):
    """A request the node cannot answer, with the sentence that says why."""


def main(argv: Optional[list[str]] = None) -> int:
    """Run the node until SIGINT or SIGTERM (``--ros-args -p domain_file:=... -p autostart:=true``)."""
    spin.init(argv if argv is not None else sys.argv)
    return spin.run(lambda: [ShieldNode()])


if __name__ == "__main__":
    sys.exit(main())
