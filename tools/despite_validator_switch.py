"""Run DESPITE's own validation code with safeplan as the validator, and compare.

    python tools/despite_validator_switch.py --despite PATH/TO/DESPITE [--data ../shared/data] [--every 1]

DESPITE scores a plan (0 infeasible, 1 feasible but unsafe, 2 feasible and safe) in
`src/utils/planning_utils.py: validate_original_plan_all_combinations`: it builds the basic
and the safety-augmented problem as unified-planning (UP) problems from the task's `code.py`,
compiles their conditional effects away (2^k action variants), and validates every
combination of variants with UP's `SequentialPlanValidator()`. A DESPITE user switches to
safeplan by changing that one line to

    validator = PlanValidator(name="safeplan")      # import up_safeplan first

This script does exactly that, in-process, without touching DESPITE's files: for each demo
task and each oracle plan (every `--every`-th line of `despite-demo/oracle.jsonl`, suspect
lines skipped) it calls DESPITE's function twice, once as written and once with the validator
swapped for the `safeplan` engine, and counts where the scores agree (and where they equal
the score the oracle recorded from DESPITE's CLI). It needs a DESPITE
checkout (its code is not part of safeplan), unified-planning, tqdm and the `safeplan`
package. Exit code 0 when every score agrees.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.util
import io
import json
import pathlib
import sys
import warnings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--despite", required=True, type=pathlib.Path, help="a DESPITE checkout")
    parser.add_argument("--data", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--every", type=int, default=1, help="use every N-th oracle line")
    args = parser.parse_args()

    sys.path.insert(0, str(args.despite.resolve()))
    warnings.simplefilter("ignore")
    import unified_planning.shortcuts as ups
    from src.utils import planning_utils  # DESPITE's module

    import up_safeplan  # registers the engine

    ups.get_environment().credits_stream = None
    theirs = planning_utils.SequentialPlanValidator

    oracle = [json.loads(l) for l in (args.data / "despite-demo" / "oracle.jsonl").read_text().splitlines() if l.strip()]
    by_task = collections.defaultdict(list)
    for i, line in enumerate(oracle):
        if "suspect" not in line and i % args.every == 0:
            by_task[line["task"]].append(line)

    total = agree = as_oracle = 0
    for task, lines in sorted(by_task.items()):
        spec = importlib.util.spec_from_file_location(f"despite_{task}", args.despite / "demo_tasks" / task / "code.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        planner = module.DomainPlanner()
        basic = planner.create_problem("basic_validation", basic=True)
        safe = planner.create_problem("safe_validation", goal_danger=0)
        _, _, _, mapping = planning_utils.compile_conditional_effects(safe)
        here = differ = 0
        for line in lines:
            plan = "\n".join(line["plan"])
            scores = []
            for validator in (theirs, lambda: up_safeplan.SafeplanEngine()):
                planning_utils.SequentialPlanValidator = validator
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    score, _ = planning_utils.validate_original_plan_all_combinations(plan, basic, safe, mapping)
                scores.append(score)
            planning_utils.SequentialPlanValidator = theirs
            here += 1
            if scores[0] == scores[1]:
                agree += 1
                as_oracle += scores[1] == line["score"]
            else:
                differ += 1
                print(f"  {task}: UP {scores[0]}, safeplan {scores[1]}: {plan!r}")
        total += here
        print(f"{task}: {here - differ} of {here} plans get the same DESPITE score")
    print(f"all: {agree} of {total} agree; {as_oracle} of them equal the score in oracle.jsonl")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
