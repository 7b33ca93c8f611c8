"""Scoring (task id, completion) rows in one process against a pool of Ray actors, side by
side on one machine (docs/PYTHON.md, "Scale out"; docs/benchmarks.md).

    python crates/safeplan-py/bench/scale_out.py [DATA_DIR] [--rows N]

Rows: the DESPITE oracle's plans on the six demo tasks, each as a chat-style reply with a
Markdown fence, cycled to N rows (default 40,000). Each way is timed 5 times after a warm-up
and the median, minimum and maximum rows/s are printed:

- one process: `SafetyTask.rewards` per task over its rows (the batch call, threads inside);
- Ray, 1 and 2 actors (`num_cpus=1` each, so each actor's batch pool has one thread): rows
  sent in batches of 2,000 as (task id, completion) pairs, each actor holding the six
  compiled tasks;
- Ray, 2 actors that do nothing but return a zero per row: what Ray's own data movement
  costs;
- Ray Data, `map_batches` with a callable class on 1 and 2 workers (`concurrency`,
  `num_cpus=1` each; each worker compiles the tasks once), over a dataset materialized
  beforehand, and the same pipeline doing nothing. A Ray Data run starts its actor pool
  anew, so its figure includes that start.
"""

import json
import pathlib
import statistics
import sys
import time

import ray
import ray.data

import safeplan

BATCH = 2_000


def rows_of(data: pathlib.Path, n: int):
    oracle = [json.loads(l) for l in (data / "despite-demo" / "oracle.jsonl").read_text().splitlines() if l.strip()]
    base = [(r["task"], "Here is the plan:\n```\n" + "\n".join(r["plan"]) + "\n```") for r in oracle]
    return [base[i % len(base)] for i in range(n)]


def tasks_of(data: pathlib.Path):
    out = {}
    for d in sorted((data / "despite-demo").iterdir()):
        if (d / "safe_domain.pddl").is_file():
            out[d.name] = ((d / "safe_domain.pddl").read_text(), (d / "safe_problem.pddl").read_text())
    return out


@ray.remote(num_cpus=1)
class Scorer:
    def __init__(self, tasks):
        self.tasks = {n: safeplan.SafetyTask(d, p) for n, (d, p) in tasks.items()}

    def score(self, rows):
        by_task = {}
        for i, (t, c) in enumerate(rows):
            by_task.setdefault(t, []).append(i)
        out = [0.0] * len(rows)
        for t, idx in by_task.items():
            for i, r in zip(idx, self.tasks[t].rewards([rows[i][1] for i in idx])):
                out[i] = r
        return out


@ray.remote(num_cpus=1)
class Nothing:
    def __init__(self, tasks):
        pass

    def score(self, rows):
        return [0.0] * len(rows)


class ScoreBatch:
    def __init__(self, tasks):
        self.tasks = {n: safeplan.SafetyTask(d, p) for n, (d, p) in tasks.items()}

    def __call__(self, batch):
        # One batch call per task, as the actor does.
        by_task = {}
        for i, t in enumerate(batch["task_id"]):
            by_task.setdefault(str(t), []).append(i)
        out = [0.0] * len(batch["task_id"])
        completions = batch["completion"]
        for t, idx in by_task.items():
            for i, r in zip(idx, self.tasks[t].rewards([str(completions[i]) for i in idx])):
                out[i] = r
        return {"reward": out}


class NothingBatch:
    def __init__(self, tasks):
        pass

    def __call__(self, batch):
        return {"reward": [0.0] * len(batch["task_id"])}


def through_ray_data(ds, cls, texts, k):
    ds.map_batches(cls, fn_constructor_args=(texts,), concurrency=k, num_cpus=1, batch_size=BATCH).materialize()


def one_process(tasks, rows):
    by_task = {}
    for t, c in rows:
        by_task.setdefault(t, []).append(c)
    for t, completions in by_task.items():
        tasks[t].rewards(completions)


def through_ray(actors, rows):
    batches = [rows[i : i + BATCH] for i in range(0, len(rows), BATCH)]
    ray.get([actors[i % len(actors)].score.remote(b) for i, b in enumerate(batches)])


def timed(f, n):
    f()
    rates = []
    for _ in range(5):
        t = time.perf_counter()
        f()
        rates.append(n / (time.perf_counter() - t))
    return statistics.median(rates), min(rates), max(rates)


def main():
    args = sys.argv[1:]
    n = 40_000
    if "--rows" in args:
        n = int(args[args.index("--rows") + 1])
        del args[args.index("--rows") : args.index("--rows") + 2]
    data = pathlib.Path(args[0]) if args else pathlib.Path(__file__).resolve().parents[4] / "shared" / "data"
    texts = tasks_of(data)
    rows = rows_of(data, n)
    local = {k: safeplan.SafetyTask(d, p) for k, (d, p) in texts.items()}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False, _node_ip_address="127.0.0.1")
    results = [("one process (`SafetyTask.rewards`, batch pool of 2 threads)", timed(lambda: one_process(local, rows), n))]
    for k in (1, 2):
        actors = [Scorer.remote(texts) for _ in range(k)]
        results.append((f"Ray, {k} actor{'s' if k > 1 else ''} (num_cpus=1 each)", timed(lambda: through_ray(actors, rows), n)))
        for a in actors:
            ray.kill(a)
    idle = [Nothing.remote(texts) for _ in range(2)]
    results.append(("Ray, 2 actors that do nothing (Ray's own cost)", timed(lambda: through_ray(idle, rows), n)))
    for a in idle:
        ray.kill(a)
    ds = ray.data.from_items([{"task_id": t, "completion": c} for t, c in rows]).materialize()
    for k in (1, 2):
        results.append((f"Ray Data, {k} worker{'s' if k > 1 else ''} (`map_batches`, num_cpus=1 each)", timed(lambda: through_ray_data(ds, ScoreBatch, texts, k), n)))
    results.append(("Ray Data, 2 workers that do nothing (Ray Data's own cost)", timed(lambda: through_ray_data(ds, NothingBatch, texts, 2), n)))
    ray.shutdown()
    print(f"{n} rows, batches of {BATCH}")
    print("| way | rows/s (median) | min | max |")
    print("|---|---:|---:|---:|")
    for name, (m, lo, hi) in results:
        print(f"| {name} | {m:,.0f} | {lo:,.0f} | {hi:,.0f} |")


if __name__ == "__main__":
    main()
