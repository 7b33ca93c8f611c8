"""Timings of the Python package, side by side in one run (docs/benchmarks.md).

    python crates/safeplan-py/bench/bench.py [DATA_DIR]

1. `Task.validate` of DESPITE's neiss_11125 reference safe plan (5 steps) given as text, per
   call (parse, validate, the Verdict object) — the Rust bench
   `plans::text_to_verdict_despite_neiss_11125` does the same work without the binding —
   `validate_many` per plan, and `SafetyTask.evaluate` (three runs: F, S, SI).
2. `validate_many` throughput on the IPC corpus (every plan of every problem).
3. `PlanValidator(name="safeplan")` against UP's `sequential_plan_validator` on the demo
   tasks' reference plans (both through UP: the engines' own cost, UP's PDDL writing included
   for ours).
Each figure is the median of 7 repetitions, with the minimum and maximum.
"""

import json
import pathlib
import statistics
import sys
import time
import warnings

import safeplan

DATA = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "data")
REPS = 7


def timed(f, n):
    runs = []
    for _ in range(REPS):
        t = time.perf_counter()
        f(n)
        runs.append((time.perf_counter() - t) / n)
    return statistics.median(runs), min(runs), max(runs)


def show(label, m, unit="µs", scale=1e6):
    med, lo, hi = m
    print(f"| {label} | {med * scale:.2f} {unit} | {lo * scale:.2f}–{hi * scale:.2f} |")


def main():
    # The input of the Rust bench `plans::text_to_verdict_despite_neiss_11125`: the
    # safety-augmented files and the reference safe plan of metadata.json (5 steps).
    demo = DATA / "despite-demo" / "neiss_11125"
    plan = json.loads((demo / "metadata.json").read_text())["reference_feasible_plans"]["safe"]
    task = safeplan.load_task(demo / "safe_domain.pddl", demo / "safe_problem.pddl")
    st = safeplan.load_safety_task(demo / "safe_domain.pddl", demo / "safe_problem.pddl")
    print("| what | median per call | min–max |\n|---|---:|---:|")
    one = timed(lambda n: [task.validate(plan) for _ in range(n)], 20000)
    show("`Task.validate(text)`, neiss_11125 reference safe plan (5 steps)", one)
    batch = [plan] * 20000
    many = timed(lambda n: task.validate_many(batch), 20000)
    show("`Task.validate_many`, same plan, per plan", many)
    sev = timed(lambda n: [st.evaluate(plan) for _ in range(n)], 20000)
    show("`SafetyTask.evaluate(text)` (F, S, SI)", sev)

    root = DATA / "ipc"
    rows = [json.loads(l) for l in (root / "manifest.jsonl").read_text().splitlines() if l.strip()]
    groups = {}
    for r in rows:
        groups.setdefault((r["domain"], r["problem"]), []).append((root / r["plan"]).read_text())
    tasks = [(safeplan.load_task(root / d, root / p), plans) for (d, p), plans in groups.items()]
    steps = sum(r["steps"] or 0 for r in rows)

    def corpus(_):
        for t, plans in tasks:
            t.validate_many(plans)

    whole = timed(corpus, 1)
    print(f"| `validate_many` over the IPC corpus ({len(rows)} plans, {steps} steps, tasks precompiled) | {whole[0] * 1e3:.1f} ms | {whole[1] * 1e3:.1f}–{whole[2] * 1e3:.1f} ms |")

    try:
        import up_safeplan  # noqa: F401
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import PlanValidator, get_environment
    except ImportError:
        print("(unified-planning not installed: engine comparison skipped)")
        return
    get_environment().credits_stream = None
    warnings.simplefilter("ignore")
    ratios = []
    print("\n| task | UP's validator | `PlanValidator(name=\"safeplan\")` (ratio) | both with `skip_checks` (ratio) | `safeplan.Task.validate(text)` (ratio to UP's default) |\n|---|---:|---:|---:|---:|")
    for d in sorted((DATA / "despite-demo").iterdir()):
        if not (d / "safe_domain.pddl").exists():
            continue
        problem = PDDLReader().parse_problem(str(d / "safe_domain.pddl"), str(d / "safe_problem.pddl"))
        meta = json.loads((d / "metadata.json").read_text())
        oracle = [json.loads(l) for l in (DATA / "despite-demo" / "oracle.jsonl").read_text().splitlines()]
        ref = next(l["plan"] for l in oracle if l["task"] == d.name and l["category"] == "reference_safe")
        from unified_planning.plans import ActionInstance, SequentialPlan

        up_plan = SequentialPlan([ActionInstance(problem.action(s.strip("() ").split()[0]), [problem.object(a) for a in s.strip("() ").split()[1:]]) for s in ref])
        res = {}
        for name in ("safeplan", "sequential_plan_validator"):
            for skip in (False, True):
                with PlanValidator(name=name) as v:
                    v.skip_checks = skip
                    res[name, skip] = timed(lambda n: [v.validate(problem, up_plan) for _ in range(n)], 50)
        text = "\n".join(ref)
        st_task = safeplan.load_task(d / "safe_domain.pddl", d / "safe_problem.pddl")
        res["library"] = timed(lambda n: [st_task.validate(text) for _ in range(n)], 2000)
        up_default = res["sequential_plan_validator", False][0]
        ratios.append((up_default / res["safeplan", False][0], res["sequential_plan_validator", True][0] / res["safeplan", True][0], up_default / res["library"][0]))
        print(
            f"| {d.name} | {res['sequential_plan_validator', False][0] * 1e3:.2f} ms | {res['safeplan', False][0] * 1e3:.3f} ms (×{ratios[-1][0]:.1f}) "
            f"| {res['sequential_plan_validator', True][0] * 1e3:.2f} ms / {res['safeplan', True][0] * 1e3:.3f} ms (×{ratios[-1][1]:.0f}) "
            f"| {res['library'][0] * 1e6:.2f} µs (×{ratios[-1][2]:.0f}) |"
        )
    for k, what in enumerate(("through UP, default", "through UP, skip_checks", "library call")):
        print(f"median ratio UP's validator / safeplan, {what}: ×{statistics.median(r[k] for r in ratios):.0f}")


if __name__ == "__main__":
    main()
