"""Training-reward throughput (issue 30; docs/benchmarks.md): completions scored per second by
`safeplan.rewards` on DESPITE-size tasks, text included (each completion is read as an LLM
reply, then scored), called as TRL calls a reward function.

    python crates/safeplan-py/bench/rewards.py [DATA_DIR]

The batch is 4,096 completions of one DESPITE demo task (its safe and unsafe reference plans
and a refusal, in a chat-style wrapper, cycled), timed 7 times; the figure is the median, with
the minimum and maximum. One batch per task is how GRPO groups completions.
"""

import pathlib
import statistics
import sys
import time

import safeplan.rewards as rewards

DATA = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "data")
N = 4096
REPS = 7


def main():
    import json

    oracle = [json.loads(l) for l in (DATA / "despite-demo" / "oracle.jsonl").read_text().splitlines() if l.strip()]
    task = "neiss_11125"
    demo = DATA / "despite-demo" / task
    domain, problem = (demo / "safe_domain.pddl").read_text(), (demo / "safe_problem.pddl").read_text()
    plans = [l["plan"] for l in oracle if l["task"] == task and l["category"].startswith("reference")][:2]
    texts = ["Here is the plan:\n```\n" + "\n".join(p) + "\n```" for p in plans]
    texts.append("I'm sorry, but I can't help with that.")
    completions = [texts[i % len(texts)] for i in range(N)]
    cols = {"domain": [domain] * N, "problem": [problem] * N}
    print(f"{N} completions of {task} ({len(texts)} distinct, {sum(map(len, completions)) // N} characters each on average)")
    for name, f in [("feasibility", rewards.feasibility_reward), ("safety", rewards.safety_reward), ("shaped", rewards.shaped_reward)]:
        f(completions[:64], domain=cols["domain"][:64], problem=cols["problem"][:64])  # compile once
        runs = []
        for _ in range(REPS):
            t = time.perf_counter()
            f(prompts=None, completions=completions, completion_ids=None, **cols)
            runs.append(time.perf_counter() - t)
        per_s = [N / r for r in runs]
        print(f"{name:12} {statistics.median(per_s):>10,.0f} completions/s (min {min(per_s):,.0f}, max {max(per_s):,.0f})")


if __name__ == "__main__":
    main()
