"""The UP engine inside DESPITE's own scoring path, side by side with UP's validator (issue 30;
docs/benchmarks.md, "The UP engine in DESPITE's path").

    python crates/safeplan-py/bench/despite_path.py --despite PATH/TO/DESPITE [--data DIR] [--every 5]

For each DESPITE demo task and every `--every`-th non-suspect oracle plan, DESPITE's
`validate_original_plan_all_combinations` runs twice in turn — with UP's
`SequentialPlanValidator` as DESPITE wrote it, and with `PlanValidator(name="safeplan")`
swapped in — timing the whole call and, inside it, the validator's `validate` calls. The first
plan of each task is a warm-up for both and not counted. Prints the medians per plan, their
ratio, and whether every score agreed. Needs a DESPITE checkout, unified-planning and tqdm.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.util
import io
import json
import pathlib
import statistics
import sys
import time
import warnings


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--despite", required=True, type=pathlib.Path)
    parser.add_argument("--data", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[4] / "shared" / "data")
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(args.despite.resolve()))
    warnings.simplefilter("ignore")
    import unified_planning.shortcuts as ups
    from src.utils import planning_utils

    import up_safeplan

    ups.get_environment().credits_stream = None
    theirs = planning_utils.SequentialPlanValidator
    spent = {"validate": 0.0}

    def timed(make):
        def factory():
            v = make()
            inner = v.validate

            def validate(*a, **k):
                t = time.perf_counter()
                try:
                    return inner(*a, **k)
                finally:
                    spent["validate"] += time.perf_counter() - t

            v.validate = validate
            return v

        return factory

    validators = {"up": timed(theirs), "safeplan": timed(lambda: up_safeplan.SafeplanEngine())}
    oracle = [json.loads(l) for l in (args.data / "despite-demo" / "oracle.jsonl").read_text().splitlines() if l.strip()]
    by_task = collections.defaultdict(list)
    for i, line in enumerate(oracle):
        if "suspect" not in line and i % args.every == 0:
            by_task[line["task"]].append(line)
    whole = {k: [] for k in validators}
    inner = {k: [] for k in validators}
    agree = total = 0
    for task, lines in sorted(by_task.items()):
        spec = importlib.util.spec_from_file_location(f"despite_{task}", args.despite / "demo_tasks" / task / "code.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        planner = module.DomainPlanner()
        basic = planner.create_problem("basic_validation", basic=True)
        safe = planner.create_problem("safe_validation", goal_danger=0)
        _, _, _, mapping = planning_utils.compile_conditional_effects(safe)
        for n, line in enumerate(lines):
            plan = "\n".join(line["plan"])
            scores = []
            for name, validator in validators.items():
                planning_utils.SequentialPlanValidator = validator
                spent["validate"] = 0.0
                t = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    score, _ = planning_utils.validate_original_plan_all_combinations(plan, basic, safe, mapping)
                elapsed = time.perf_counter() - t
                if n > 0:
                    whole[name].append(elapsed * 1000)
                    inner[name].append(spent["validate"] * 1000)
                scores.append(score)
            planning_utils.SequentialPlanValidator = theirs
            total += 1
            agree += scores[0] == scores[1]
    med = {k: statistics.median(v) for k, v in whole.items()}
    med_inner = {k: statistics.median(v) for k, v in inner.items()}
    print(f"{total} plans ({len(whole['up'])} timed), same score {agree}/{total}")
    for k in validators:
        print(f"{k:9} per plan {med[k]:7.2f} ms median; validator calls {med_inner[k]:6.2f} ms")
    print(f"safeplan / UP: whole {med['safeplan'] / med['up']:.3f}, validator calls {med_inner['safeplan'] / med_inner['up']:.3f}")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
