"""The shield node as a client sees it: the hot-soup plans validated through it (safe, unsafe
with its step and reasons, a reply with no plan, a PlanSys2 plan), a shield refusing the
dangerous step, the example executive stopping before it and before a timed rule's deadline,
the lifecycle and its parameters, a node in another process, and fuzzed requests it must
survive. The expectations are the library's verdicts on the same plans, and hand-read facts
of the example tasks."""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
import safeplan
from conftest import REPO
from rclpy.node import Node
from rclpy.parameter import Parameter
from safeplan_interfaces.msg import Plan, PlanItem, StepRefusal
from safeplan_interfaces.srv import CheckStep, EndExecution, FindPlan, LoadTask, ValidatePlan

from safeplan_ros.robot import Executive, SimRobot, _wait
from safeplan_ros.shield_node import ShieldNode

SOUP = REPO / "examples/tasks/hot-soup"
STOVE = REPO / "examples/temporal/stove-deadline"


def shield_node(name: str, task_dir: Any, **extra: Any) -> ShieldNode:
    params = [
        Parameter("domain_file", value=str(task_dir / "domain.pddl")),
        Parameter("problem_file", value=str(task_dir / "problem.pddl")),
        Parameter("autostart", value=True),
    ] + [Parameter(k, value=v) for k, v in extra.items()]
    return ShieldNode(name, parameter_overrides=params)


class Client:
    def __init__(self, ros: Any, shield: str) -> None:
        self.node = ros.add(Node(f"client_{shield}_{random.randrange(1 << 30)}"))
        self.clients = {
            kind: self.node.create_client(srv, f"/{shield}/{kind}")
            for kind, srv in (
                ("validate_plan", ValidatePlan),
                ("check_step", CheckStep),
                ("find_plan", FindPlan),
                ("end_execution", EndExecution),
                ("load_task", LoadTask),
            )
        }
        for client in self.clients.values():
            assert client.wait_for_service(timeout_sec=30)

    def call(self, service: str, **fields: Any) -> Any:
        srv = {"validate_plan": ValidatePlan, "check_step": CheckStep, "find_plan": FindPlan,
               "end_execution": EndExecution, "load_task": LoadTask}[service]
        return _wait(self.clients[service].call_async(srv.Request(**fields)))


@pytest.fixture(scope="module")
def soup(ros: Any) -> Client:
    ros.add(shield_node("soup_shield", SOUP))
    return Client(ros, "soup_shield")


def test_the_hot_soup_plans_get_the_librarys_verdicts(soup: Client) -> None:
    task = safeplan.load_checked_task(SOUP / "domain.pddl", SOUP / "problem.pddl")
    for name, valid, safe, step in (("safe", True, True, -1), ("unsafe", False, False, 2)):
        text = (SOUP / f"{name}.plan").read_text()
        response = soup.call("validate_plan", text=text)
        assert response.ok, response.error
        v = response.verdict
        expected = task.assess(text)
        assert (v.valid, v.feasible, v.safe, v.failed_step) == (valid, True, safe, step)
        assert v.sentence == expected.sentence and v.json == expected.to_json()
        assert v.safety_checked
    unsafe = soup.call("validate_plan", text=(SOUP / "unsafe.plan").read_text()).verdict
    assert "raised danger 0 -> 1 because" in unsafe.sentence


def test_a_reply_with_no_plan_is_no_plan_and_a_one_line_reply_is_read_whole(soup: Client) -> None:
    refusal = soup.call("validate_plan", text="I'm sorry, I cannot help with moving hot soup.", is_reply=True)
    assert refusal.ok and refusal.verdict.no_plan == "refusal" and not refusal.verdict.valid
    steps = [line for line in (SOUP / "safe.plan").read_text().splitlines() if line.startswith("(")]
    reply = soup.call("validate_plan", text="Plan: " + ", then ".join(steps), is_reply=True)
    assert reply.ok and reply.verdict.valid, reply.verdict.sentence


def test_a_plansys2_plan_passes_through_unchanged(soup: Client) -> None:
    steps = [line for line in (SOUP / "safe.plan").read_text().splitlines() if line.startswith("(")]
    items = [PlanItem(time=float(i), action=s, duration=1.0) for i, s in enumerate(steps)]
    response = soup.call("validate_plan", plan=Plan(items=items))
    assert response.ok and response.verdict.valid, response.verdict.sentence


def test_the_shield_refuses_the_dangerous_step_with_its_reasons(ros: Any, soup: Client) -> None:
    got: list[StepRefusal] = []
    heard = threading.Event()

    def hear(msg: StepRefusal) -> None:
        got.append(msg)
        heard.set()

    soup.node.create_subscription(StepRefusal, "/soup_shield/refusals", hear, 10)
    time.sleep(0.5)  # let the subscription match
    first = soup.call("check_step", execution_id="e1", action="(pick-up soup stove)", apply=True)
    assert first.ok and first.allowed and first.applied
    rush = soup.call("check_step", execution_id="e1", action="(move stove table)", apply=True)
    assert rush.ok and not rush.allowed and rush.feasible and not rush.safe
    assert rush.step == 2 and rush.refusal.kind == "dangerous"
    assert "(holding soup)" in rush.refusal.reasons and "(child-in-room)" in rush.refusal.reasons
    assert heard.wait(10) and got[0].step == 2 and got[0].execution_id == "e1"
    # Another execution is its own shield; ending one says where it got to.
    other = soup.call("check_step", execution_id="e2", action="(put-down soup stove)")
    assert other.ok and not other.allowed and not other.feasible
    assert other.refusal.kind == "inapplicable" and other.refusal.reasons == ["(holding soup)"]
    end = soup.call("end_execution", execution_id="e1")
    assert end.ok and end.dispatched == 1 and not end.goal_reached
    again = soup.call("end_execution", execution_id="e1")
    assert not again.ok and "no execution" in again.error


def test_find_plan_returns_a_plan_the_node_calls_safe(soup: Client) -> None:
    found = soup.call("find_plan")
    assert found.ok and found.found, found.error or found.sentence
    verdict = soup.call("validate_plan", plan=found.plan).verdict
    assert verdict.valid and verdict.safe, verdict.sentence


def test_find_plan_says_when_the_metric_was_not_minimized(ros: Any) -> None:
    ros.add(shield_node("metric_shield", SOUP))
    client = Client(ros, "metric_shield")
    domain = """(define (domain routes) (:requirements :action-costs :numeric-fluents)
      (:constants a b c) (:predicates (at ?p) (link ?p ?q)) (:functions (total-cost) (fuel))
      (:action hop :parameters (?p ?q) :precondition (and (at ?p) (link ?p ?q))
        :effect (and (not (at ?p)) (at ?q) (increase (total-cost) 1)))
      (:action jump :parameters () :precondition (at a)
        :effect (and (not (at a)) (at c) (increase (fuel) (total-cost)))))"""
    problem = """(define (problem p) (:domain routes)
      (:init (at a) (link a b) (link b c) (= (total-cost) 0) (= (fuel) 0))
      (:goal (at c)) (:metric minimize (fuel)))"""
    loaded = client.call("load_task", domain=domain, problem=problem)
    assert loaded.ok, loaded.error
    found = client.call("find_plan", kind="any")
    assert found.ok and found.found, found.error or found.sentence
    assert found.sentence == (
        "found a 1-step plan; plans are measured in steps, not by the metric: (jump) increases "
        "it by an amount that depends on the state of (fuel)"
    ), found.sentence


def test_the_executive_stops_before_the_dangerous_step(ros: Any, soup: Client) -> None:
    robot = ros.add(SimRobot("soup_robot"))
    executive = ros.add(Executive("soup_executive", shield="soup_shield"))
    assert executive.wait_ready()
    run = executive.run((SOUP / "unsafe.plan").read_text(), "soup-unsafe")
    assert run.executed == ["(pick-up soup stove)"], run.executed
    assert run.stopped is not None and run.stopped.step == 2 and not run.stopped.safe
    safe = executive.run((SOUP / "safe.plan").read_text(), "soup-safe")
    assert safe.stopped is None and safe.goal_reached
    assert robot.executed[-len(safe.executed):] == safe.executed


def test_the_executive_stops_before_the_timed_rules_deadline(ros: Any) -> None:
    ros.add(shield_node("stove_shield", STOVE))
    ros.add(SimRobot("stove_robot", namespace="stove"))
    executive = ros.add(Executive("stove_executive", shield="stove_shield", namespace="stove"))
    assert executive.wait_ready()
    unsafe = (STOVE / "plans/unsafe.plan").read_text()
    # The library's verdict on the same plan: feasible, not safe (the rule).
    expected = safeplan.load_checked_task(STOVE / "domain.pddl", STOVE / "problem.pddl").assess(unsafe)
    assert expected.feasible and not expected.safe
    run = executive.run(unsafe, "stove-unsafe")
    assert run.stopped is not None and run.stopped.refusal.kind == "rule_broken", run.stopped
    # The first event past the deadline (13: on at 1, off within 12) is refused: the end of
    # the late switch-off at 13.06, the plan's step 7.
    assert run.stopped.step == 7 and run.stopped.refusal.time == pytest.approx(13.06)
    assert "did not hold by time 13" in run.stopped.sentence
    assert "(switch-off)" not in run.executed
    safe = executive.run((STOVE / "plans/safe.plan").read_text(), "stove-safe")
    assert safe.stopped is None and safe.goal_reached, safe


def lifecycle_state(client: Client, node: str) -> str:
    """The node's lifecycle state, asked through its lifecycle service."""
    from lifecycle_msgs.srv import GetState

    get = client.node.create_client(GetState, f"/{node}/get_state")
    assert get.wait_for_service(timeout_sec=30)
    return _wait(get.call_async(GetState.Request())).current_state.label


def test_the_lifecycle_and_parameters(ros: Any) -> None:
    from rclpy.lifecycle import TransitionCallbackReturn

    bare = ros.add(ShieldNode("bare_shield"))
    client = Client(ros, "bare_shield")
    inactive = client.call("validate_plan", text="(a)")
    assert not inactive.ok and "not active" in inactive.error
    loaded = client.call("load_task", domain_file=str(SOUP / "domain.pddl"), problem_file=str(SOUP / "problem.pddl"))
    assert not loaded.ok and "configure" in loaded.error
    assert lifecycle_state(client, "bare_shield") == "unconfigured"
    assert bare.trigger_configure() == TransitionCallbackReturn.SUCCESS
    assert lifecycle_state(client, "bare_shield") == "inactive"
    bad = client.call("load_task", domain="(define (domain d) (:predicates (p)) (:action a :effect (q)))", problem="(define (problem x) (:domain d) (:goal (p)))")
    assert not bad.ok and "domain.pddl:1:" in bad.error, bad.error
    loaded = client.call("load_task", domain_file=str(SOUP / "domain.pddl"), problem_file=str(SOUP / "problem.pddl"))
    assert loaded.ok and loaded.safety_checked, loaded.error
    bare.trigger_activate()
    assert client.call("validate_plan", text=(SOUP / "safe.plan").read_text()).verdict.valid
    # Parameters are checked when set.
    result = bare.set_parameters([Parameter("tolerance", value=-1.0)])[0]
    assert not result.successful and "tolerance" in result.reason
    result = bare.set_parameters([Parameter("max_executions", value=0)])[0]
    assert not result.successful
    result = bare.set_parameters([Parameter("max_plan_seconds", value=0.0)])[0]
    assert not result.successful and "max_plan_seconds" in result.reason
    # Half a task configured is a failed transition.
    half = ros.add(ShieldNode("half_shield", parameter_overrides=[Parameter("domain_file", value=str(SOUP / "domain.pddl"))]))
    assert half.trigger_configure() == TransitionCallbackReturn.FAILURE
    assert lifecycle_state(client, "half_shield") == "unconfigured"


def test_fuzzed_requests_get_answers_and_the_node_keeps_serving(soup: Client) -> None:
    rng = random.Random(45)
    alphabet = "()?-_ :;\n\t[]{}\"'abcdefghij0123456789éλ→\u00a0"

    def text() -> str:
        pool = [
            "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 80))),
            "(pick-up soup stove)",
            "(move stove table)",
            "x" * rng.randrange(0, 5000),
            "(" * rng.randrange(0, 300),
        ]
        return rng.choice(pool)

    floats = [0.0, -1.0, math.nan, math.inf, -math.inf, 1e308, 5e-324, 3.5]
    for i in range(300):
        kind = rng.choice(["validate_plan", "check_step", "find_plan", "end_execution", "load_task"])
        if kind == "validate_plan":
            r = soup.call(kind, text=text(), is_reply=rng.random() < 0.5)
        elif kind == "check_step":
            r = soup.call(kind, execution_id=rng.choice(["", "f1", "f2", text()[:20]]), action=text(),
                          event=rng.choice(["", "step", "start", "end", "happen", "jump"]),
                          time=rng.choice(floats), apply=rng.random() < 0.5)
        elif kind == "find_plan":
            r = soup.call(kind, kind=rng.choice(["", "safe", "any", "bogus"]), algorithm=rng.choice(["", "astar", "bfs", "nope"]),
                          time_limit=rng.choice(floats[:3] + [0.5]))
        elif kind == "end_execution":
            r = soup.call(kind, execution_id=rng.choice(["f1", "f2", text()[:10]]))
        else:
            # Texts only: a failed load keeps the task served.
            r = soup.call(kind, domain=text(), problem=text())
        assert r is not None
        if not r.ok:
            assert r.error, (kind, i)
    good = soup.call("validate_plan", text=(SOUP / "safe.plan").read_text())
    assert good.ok and good.verdict.valid


def test_a_node_in_another_process_answers_and_stops_cleanly(ros: Any) -> None:
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "safeplan_ros.shield_node", "--ros-args", "-r", "__node:=far_shield",
         "-p", f"domain_file:={SOUP / 'domain.pddl'}", "-p", f"problem_file:={SOUP / 'problem.pddl'}",
         "-p", "autostart:=true"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        client = Client(ros, "far_shield")
        # Across processes, DDS may report the service before the node's reader of requests
        # has matched this client's writer: a request sent in that gap is lost (the future
        # never completes). Resend until the node answers; validating is idempotent.
        request = ValidatePlan.Request(text=(SOUP / "unsafe.plan").read_text())
        validate = client.clients["validate_plan"]
        response = None
        for _ in range(12):
            future = validate.call_async(request)
            done = threading.Event()
            future.add_done_callback(lambda _: done.set())
            if done.wait(5.0):
                response = future.result()
                break
            validate.remove_pending_request(future)
        assert response is not None, "the node in another process never answered"
        assert response.ok and response.verdict.failed_step == 2
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
