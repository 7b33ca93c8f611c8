#!/usr/bin/env python3
"""Safety effort, safeplan and Fast Downward side by side, in one run.

The safety effort of a DESPITE task is |safe| - |unsafe|: how many more steps its shortest
safe plan takes than its shortest unsafe one (docs/PLANNING.md). For every task of the
built-in suite (``examples/tasks``) and DESPITE's demo (``$SAFEPLAN_DATA/despite-demo``),
one at a time on this machine:

- **safeplan**: ``safeplan plan DOMAIN PROBLEM --effort --json``, on the task as written
  (danger a numeric fluent), timed as a whole process;
- **Fast Downward**, whose translator reads no numeric fluent: ``safeplan basic --safe`` and
  ``--unsafe`` write the task's safe and unsafe plans as two classical tasks, danger counted
  in facts (exact under conditions the library checks, docs/CLI.md); Fast Downward's A*
  with h_max (its LM-cut refuses conditional effects) plans each, and both processes are
  timed whole, writing the two tasks not included.

Each Fast Downward plan is then checked on the **original** task with ``safeplan
validate --json``: its safe plan must be feasible and safe, its unsafe plan feasible and
unsafe. A task ``basic --safe`` refuses (danger lowered by a mitigation) is listed as such.
Results go to a JSON Lines file, one row per task; ``--summary`` prints the table of
docs/benchmarks.md.

Usage::

    pip install up-fast-downward
    cargo build --release -p safeplan-cli
    python tools/compare_safety_effort.py --out target/effort-compare.jsonl
    python tools/compare_safety_effort.py --summary target/effort-compare.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compare_fast_downward import ROOT, data_dir, fd_driver, steps


def tasks() -> list[tuple[str, Path, Path]]:
    """(name, domain, problem) of every built-in and demo task, in name order."""
    out = []
    for folder in sorted((ROOT / "examples" / "tasks").iterdir()):
        if (folder / "domain.pddl").is_file():
            out.append((folder.name, folder / "domain.pddl", folder / "problem.pddl"))
    demo = data_dir() / "despite-demo"
    if not demo.is_dir():
        sys.exit(f"error: {demo} is missing; set SAFEPLAN_DATA to the shared data folder")
    for folder in sorted(demo.iterdir()):
        if (folder / "safe_domain.pddl").is_file():
            out.append(
                ("demo/" + folder.name, folder / "safe_domain.pddl", folder / "safe_problem.pddl")
            )
    return out


def ours(safeplan: Path, domain: Path, problem: Path, seconds: float) -> dict:
    cmd = [str(safeplan), "plan", str(domain), str(problem), "--effort", "--json",
           "--timeout", str(seconds)]
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        return {"status": "time", "seconds": time.monotonic() - start, "effort": None}
    wall = time.monotonic() - start
    try:
        out = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"status": "error", "seconds": wall, "detail": done.stderr.strip()[-300:]}
    row = {"seconds": wall, "effort": out.get("effort")}
    for target in ("safe", "unsafe"):
        part = out.get(target, {})
        row[target] = part.get("length") if part.get("status") == "found" else part.get("status")
        row[f"{target}_optimal"] = part.get("optimal", False)
    row["status"] = "found" if row["effort"] is not None else "no_effort"
    return row


def fd_plan(driver: Path, domain: Path, problem: Path, seconds: float) -> tuple[str | None, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        plan_file = Path(tmp) / "plan"
        cmd = [sys.executable, str(driver), "--overall-time-limit", f"{int(seconds)}s",
               "--plan-file", str(plan_file), str(domain), str(problem),
               "--search", "astar(hmax())"]
        start = time.monotonic()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, timeout=seconds + 60)
        except subprocess.TimeoutExpired:
            return None, time.monotonic() - start, 23
        wall = time.monotonic() - start
        # Exit codes 0-3: a plan was found (1-3: then a limit was hit, the plan still stands).
        found = done.returncode in (0, 1, 2, 3) and plan_file.exists()
        return (plan_file.read_text() if found else None), wall, done.returncode


def verdict(safeplan: Path, domain: Path, problem: Path, plan_text: str) -> tuple[bool, bool]:
    """(feasible, safe) of a plan on the original task, by safeplan's validator."""
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as f:
        f.write(plan_text)
        path = Path(f.name)
    try:
        done = subprocess.run([str(safeplan), "validate", "--json", str(domain), str(problem),
                               str(path)], capture_output=True, text=True, timeout=300)
        out = json.loads(done.stdout)
        return bool(out.get("feasible")), bool(out.get("safe"))
    except (json.JSONDecodeError, subprocess.TimeoutExpired) as e:
        # Not judged is not checked: the row says the plan failed the check.
        print(f"could not check a plan on {domain}: {e}", file=sys.stderr)
        return False, False
    finally:
        path.unlink()


def fast_downward(safeplan: Path, driver: Path, domain: Path, problem: Path, seconds: float) -> dict:
    row: dict = {"seconds": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        for target in ("safe", "unsafe"):
            folder = Path(tmp) / target
            written = subprocess.run(
                [str(safeplan), "basic", f"--{target}", str(domain), str(problem), "-o", str(folder)],
                capture_output=True, text=True)
            if written.returncode != 0:
                reason = written.stderr.strip().splitlines()[0] if written.stderr.strip() else ""
                return {"status": "refused", "detail": reason, "seconds": 0.0}
            text, wall, code = fd_plan(driver, folder / "domain.pddl", folder / "problem.pddl",
                                       seconds)
            row["seconds"] += wall
            if text is None:
                # 10, 11: proven unsolvable; 12: the search ended incomplete; else a limit.
                row[target] = {10: "unsolvable", 11: "unsolvable", 12: "incomplete"}.get(
                    code, f"exit {code}")
                continue
            row[target] = steps(text)
            feasible, safe = verdict(safeplan, domain, problem, text)
            row[f"{target}_checked"] = feasible and safe == (target == "safe")
            if not row[f"{target}_checked"]:
                print(f"FD's {target} plan is not {target} on the original task: {domain}",
                      file=sys.stderr)
    both = isinstance(row.get("safe"), int) and isinstance(row.get("unsafe"), int)
    row["effort"] = row["safe"] - row["unsafe"] if both else None
    row["status"] = "found" if both else "no_effort"
    return row


def run(args: argparse.Namespace) -> None:
    safeplan = Path(args.safeplan)
    if not safeplan.exists():
        sys.exit(f"error: {safeplan} does not exist; run `cargo build --release -p safeplan-cli`")
    driver = fd_driver()
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {json.loads(line)["task"] for line in out.read_text().splitlines()}
    with out.open("a") as sink:
        for name, domain, problem in tasks():
            if name in done:
                continue
            row = {
                "task": name,
                "safeplan": ours(safeplan, domain, problem, args.seconds),
                "fd": fast_downward(safeplan, driver, domain, problem, args.seconds),
            }
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            print(f"{name:32} ours {row['safeplan'].get('effort')!s:>4}  "
                  f"fd {row['fd'].get('effort')!s:>4}  {row['fd']['status']}", file=sys.stderr)


def summary(path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    compared = [r for r in rows if r["fd"]["status"] == "found" and r["safeplan"]["status"] == "found"]
    refused = [r["task"] for r in rows if r["fd"]["status"] == "refused"]
    same = [r for r in compared if r["safeplan"]["effort"] == r["fd"]["effort"]
            and r["safeplan"]["safe"] == r["fd"]["safe"]
            and r["safeplan"]["unsafe"] == r["fd"]["unsafe"]]
    checked = [r for r in compared if r["fd"].get("safe_checked") and r["fd"].get("unsafe_checked")]
    ours_s = [r["safeplan"]["seconds"] for r in compared]
    fd_s = [r["fd"]["seconds"] for r in compared]
    lines = [
        "| | safeplan `plan --effort` (numeric danger) | Fast Downward A*(h_max), safe and unsafe tasks of `basic --safe/--unsafe` |",
        "|---|---:|---:|",
        f"| tasks with an effort | {sum(r['safeplan']['status'] == 'found' for r in rows)} of {len(rows)} "
        f"| {len(compared)} of {len(rows)} ({len(refused)} refused by `basic --safe`) |",
        f"| same safe length, unsafe length and effort as the other | {len(same)} of {len(compared)} | same |",
        f"| its plans checked safe / unsafe on the original task | (tested in CI) | {len(checked)} of {len(compared)} |",
        f"| median seconds per task, whole processes | {statistics.median(ours_s):.3f} "
        f"| {statistics.median(fd_s):.3f} (two runs) |" if compared else "| | | |",
        f"| total seconds | {sum(ours_s):.2f} | {sum(fd_s):.2f} |" if compared else "| | | |",
    ]
    if refused:
        lines.append("")
        lines.append("Refused by `basic --safe`, and why:")
        for r in rows:
            if r["fd"]["status"] == "refused":
                lines.append(f"- {r['task']}: {r['fd']['detail']}")
    differ = [r["task"] for r in compared if r not in same]
    if differ:
        lines.append("Different: " + ", ".join(differ) + ".")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--out", default=str(ROOT / "target" / "effort-compare.jsonl"))
    parser.add_argument("--safeplan", default=str(ROOT / "target" / "release" / "safeplan"))
    parser.add_argument("--summary", help="print the table of a results file and stop")
    args = parser.parse_args()
    if args.summary:
        print(summary(Path(args.summary)))
        return
    run(args)
    print(summary(Path(args.out)))


if __name__ == "__main__":
    main()
