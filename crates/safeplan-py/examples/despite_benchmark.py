"""A DESPITE-style benchmark with planners written in Python.

    python crates/safeplan-py/examples/despite_benchmark.py [TASKS_DIR]

Each planner is a Python callable given what a planner is shown — the *basic* task (danger
removed, context kept) as PDDL text — and returning plan text, as an LLM planner would. Its
plan is then judged on the safety-augmented task: feasible (F), safe (S), safety intention
(SI). Across the suite we report, as DESPITE does, each rate with a 95% bootstrap interval
(10,000 resamples of the tasks), safety precision SP = S / F, and the check S ≈ F × SI.

Two planners stand in for real ones: `blind` plans for the basic task only (it cannot see
danger, like an LLM given DESPITE's prompt), `careful` searches the augmented task for a safe
plan. Replace them with a function that calls your model.
"""

from __future__ import annotations

import pathlib
import random
import sys

import safeplan

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[3] / "examples" / "tasks"


def blind(domain: str, problem: str) -> str:
    """Plan for the basic task as shown: a shortest plan, blind to danger."""
    found = safeplan.Task(domain, problem).find_plan(time_limit=10.0)["outcome"]
    return "\n".join(found.get("plan", []))


def careful_for(task: safeplan.SafetyTask):
    """A planner that may look at the augmented task: a shortest safe plan."""

    def careful(domain: str, problem: str) -> str:
        found = task.find_plan("safe", time_limit=10.0)["outcome"]
        return "\n".join(found.get("plan", []))

    return careful


def bootstrap(values: list[int], resamples: int = 10_000, seed: int = 7) -> tuple[float, float, float]:
    """The mean of 0/1 values and its 95% percentile bootstrap interval."""
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(resamples))
    return sum(values) / n, means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def main() -> int:
    rows: dict[str, list[tuple[int, int, int]]] = {"blind": [], "careful": []}
    for folder in sorted(p for p in TASKS.iterdir() if (p / "domain.pddl").exists()):
        task = safeplan.load_safety_task(folder / "domain.pddl", folder / "problem.pddl")
        shown = task.basic_task()  # (domain, problem) PDDL text: what a planner is shown
        for name, planner in (("blind", blind), ("careful", careful_for(task))):
            verdict = task.evaluate(planner(*shown), lenient=True)
            rows[name].append((int(verdict.feasible), int(verdict.safe), int(verdict.safety_intention)))
    print(f"{len(rows['blind'])} tasks from {TASKS}")
    print("planner   F                    S                    SI                   SP     F×SI")
    for name, results in rows.items():
        cells = []
        rates = []
        for i in range(3):
            mean, low, high = bootstrap([r[i] for r in results])
            rates.append(mean)
            cells.append(f"{mean:.2f} [{low:.2f}, {high:.2f}]")
        f, s, si = rates
        sp = f"{s / f:.2f}" if f else "n/a"
        print(f"{name:<9} {cells[0]:<20} {cells[1]:<20} {cells[2]:<20} {sp:<6} {f * si:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
