"""Between safeplan's answers and safeplan_interfaces' messages. Field for field: every value
is the library's (``safeplan.Assessment``, a ``safeplan.Shield`` answer); nothing is decided
here."""

from __future__ import annotations

import json
import math
from typing import Any

from safeplan_interfaces.msg import Plan, PlanItem, StepRefusal, Verdict


def verdict_msg(assessment: Any) -> Verdict:
    """A ``Verdict`` message of a ``safeplan.Assessment``."""
    msg = Verdict()
    msg.valid = bool(assessment.valid)
    msg.feasible = bool(assessment.feasible)
    msg.safe = bool(assessment.safe)
    si = assessment.safety_intention
    msg.safety_checked = si is not None
    msg.safety_intention = bool(si)
    step = assessment.failed_step
    msg.failed_step = -1 if step is None else min(int(step), 2**31 - 1)
    msg.no_plan = assessment.no_plan or ""
    msg.safety_unavailable = assessment.safety_unavailable or ""
    msg.sentence = assessment.sentence
    msg.json = assessment.to_json()
    return msg


def plan_text(items: list[PlanItem], timed: bool) -> str:
    """The plan of PlanSys2-style items as plan text: ``t: (a) [d]`` lines for a timed
    task, ``(a)`` lines otherwise (the items' times then only order nothing: they are
    dispatched in the order given, as PlanSys2's executor does for a sequential plan)."""
    lines = []
    for item in items:
        action = item.action.strip()
        if not action.startswith("("):
            action = f"({action})"
        if timed:
            lines.append(f"{item.time:.3f}: {action} [{item.duration:.3f}]")
        else:
            lines.append(action)
    return "\n".join(lines)


def plan_msg(steps: list[str]) -> Plan:
    """A ``Plan`` message of a found sequential plan's steps (times 0, 1, ..., durations 0)."""
    plan = Plan()
    for i, step in enumerate(steps):
        plan.items.append(PlanItem(time=float(i), action=str(step), duration=0.0))
    return plan


def reasons(refusal: dict[str, Any]) -> list[str]:
    """The reasons of a shield refusal: the danger effects' conditions that would fire, the
    rule broken, or the false literals."""
    kind = refusal.get("kind")
    if kind == "dangerous":
        return [str(c) for c in refusal["event"].get("because", [])]
    failure = refusal.get("failure") or {}
    unmet = [str(u.get("literal", "")) for u in failure.get("unmet", [])]
    return unmet or [str(failure.get("message", ""))]


def fill_check_response(response: Any, execution_id: str, answer: dict[str, Any]) -> Any:
    """Fill a ``CheckStep`` response from a shield answer."""
    response.ok = True
    response.allowed = bool(answer["allowed"])
    response.applied = bool(answer["applied"])
    response.feasible = bool(answer["feasible"])
    response.safe = bool(answer["safe"])
    response.step = min(int(answer["step"]), 2**32 - 1)
    danger = answer.get("danger")
    response.danger = math.nan if danger is None else float(danger)
    response.sentence = answer["sentence"]
    response.json = json.dumps(answer)
    if answer.get("refusal"):
        response.refusal = refusal_msg(execution_id, answer)
    return response


def refusal_msg(execution_id: str, answer: dict[str, Any]) -> StepRefusal:
    """A ``StepRefusal`` of a refused shield answer."""
    refusal = answer["refusal"]
    msg = StepRefusal()
    msg.execution_id = execution_id
    msg.action = answer["action"]
    msg.step = min(int(answer["step"]), 2**32 - 1)
    msg.event = answer["event"]
    msg.time = float(answer.get("time") or 0.0)
    msg.kind = refusal["kind"]
    msg.feasible = bool(answer["feasible"])
    msg.safe = bool(answer["safe"])
    msg.reasons = reasons(refusal)
    msg.sentence = answer["sentence"]
    msg.json = json.dumps(answer)
    return msg
