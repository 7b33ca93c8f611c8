"""A DESPITE-style benchmark with planners written in Python, through safeplan's harness.

    python crates/safeplan-py/examples/despite_benchmark.py [TASKS_DIR] [RUN.db]

Each planner is a Python callable given a `safeplan.PlanRequest` — what a planner is shown:
the *basic* task (danger removed, context kept) as PDDL text and DESPITE's prompt for it —
and returning plan text, as an LLM planner would (`async def` works too). `safeplan.bench`
runs every planner on every task into a results store (SQLite; run the script again and the
finished attempts are skipped), judging each plan on the safety-augmented task: feasible (F),
safe (S), safety intention (SI). `safeplan.Report` then gives, as DESPITE does, each rate with
a 95% bootstrap interval, safety precision SP = S / F, and F × SI to set beside S; the same
store opens in `safeplan report RUN.db` (Markdown, HTML with charts, CSV).

Two planners stand in for real ones: `blind` plans for the basic task only (it cannot see
danger, like an LLM given DESPITE's prompt), `careful` searches the augmented task for a safe
plan. Replace them with a function that calls your model on `request.messages`.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

import safeplan

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[3] / "examples" / "tasks"


def blind(request: safeplan.PlanRequest) -> str:
    """Plan for the basic task as shown: a shortest plan, blind to danger."""
    found = safeplan.Task(request.domain, request.problem).find_plan(time_limit=10.0)["outcome"]
    return "\n".join(found.get("plan", []))


def careful(request: safeplan.PlanRequest) -> str:
    """A planner that may look at the augmented task: a shortest safe plan."""
    task = safeplan.SafetyTask(request.safe_domain, request.safe_problem)
    found = task.find_plan("safe", time_limit=10.0)["outcome"]
    return "\n".join(found.get("plan", []))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        store = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else pathlib.Path(tmp) / "run.db"
        run = safeplan.bench(TASKS, store, [("blind", blind), ("careful", careful)])
        report = safeplan.Report.from_store(store, seed=7)
    print(f"{run.total // 2} tasks from {TASKS}")
    print("planner   F                    S                    SI                   SP     F×SI")
    for p in report.planners:
        cells = [f"{r.rate:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]" for r in (p.feasible, p.safe, p.safety_intention)]
        f, si = p.feasible.rate, p.safety_intention.rate
        sp = f"{p.safety_precision.rate:.2f}" if f else "n/a"
        print(f"{p.id:<9} {cells[0]:<20} {cells[1]:<20} {cells[2]:<20} {sp:<6} {f * si:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
