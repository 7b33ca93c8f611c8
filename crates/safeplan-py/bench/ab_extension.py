"""Two builds of the extension side by side in one process: `Task.validate` and
`SafetyTask.evaluate` of DESPITE's neiss_11125 reference safe plan, A B rounds alternating.

    python crates/safeplan-py/bench/ab_extension.py OLD/_safeplan.abi3.so NEW/_safeplan.abi3.so [DATA]

(docs/benchmarks.md, "What Ctrl-C costs"). Each .so is loaded under its own package name, so
neither is the installed `safeplan`."""

import importlib.util, json, pathlib, statistics, sys, time, types
def load(name, path):
    pkg = types.ModuleType(name); pkg.__path__ = []; sys.modules[name] = pkg
    spec = importlib.util.spec_from_file_location(f"{name}._safeplan", path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
old = load("oldsp", sys.argv[1])
new = load("newsp", sys.argv[2])
data = pathlib.Path(sys.argv[3] if len(sys.argv) > 3 else pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "data")
demo = data / "despite-demo" / "neiss_11125"
plan = json.loads((demo / "metadata.json").read_text())["reference_feasible_plans"]["safe"]
D, P = (demo / "safe_domain.pddl").read_text(), (demo / "safe_problem.pddl").read_text()
res = {k: {"validate": [], "evaluate": []} for k in ("old", "new")}
mods = {"old": old, "new": new}
tasks = {k: (m.Task(D, P), m.SafetyTask(D, P)) for k, m in mods.items()}
n = 5000
for r in range(30):
    for k in (("old", "new") if r % 2 else ("new", "old")):
        t, st = tasks[k]
        a = time.perf_counter()
        for _ in range(n): t.validate(plan)
        b = time.perf_counter()
        for _ in range(n): st.evaluate(plan)
        c = time.perf_counter()
        res[k]["validate"].append((b - a) / n * 1e6); res[k]["evaluate"].append((c - b) / n * 1e6)
for k in res:
    print(k, {m: "%.2f µs (min %.2f)" % (statistics.median(v), min(v)) for m, v in res[k].items()})
ratios = [n_ / o for n_, o in zip(res["new"]["validate"], res["old"]["validate"])]
print("validate new/old per round: median %.3f" % statistics.median(ratios))
ratios = [n_ / o for n_, o in zip(res["new"]["evaluate"], res["old"]["evaluate"])]
print("evaluate new/old per round: median %.3f" % statistics.median(ratios))
