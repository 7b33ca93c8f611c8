#!/usr/bin/env python3
"""safeplan's planner and Fast Downward side by side, in one run, on the IPC corpus.

For every problem of ``$SAFEPLAN_DATA/ipc`` (default ``../shared/data/ipc``) and every
configuration, one at a time on this machine:

- ``safeplan:ALG``: ``safeplan plan DOMAIN PROBLEM --search ALG --timeout S --json``;
- ``fd:lama-first``: Fast Downward's driver from ``up-fast-downward``,
  ``fast-downward.py --alias lama-first --overall-time-limit S ... DOMAIN PROBLEM``;
- ``fd:lmcut``: the same driver with ``--search "astar(lmcut())"``;
- ``safeplan@NAME:ALG``: as ``safeplan:ALG`` with another build of safeplan, given as
  ``--binary NAME=PATH`` (a commit before a change, run beside it in the same run).

Both are whole processes timed from spawn to exit by this script, with the same time limit
and a 4 GiB memory limit (ours: ``--max-memory 4096``; Fast Downward's
``--overall-memory-limit 4G``). Every plan either planner returns is checked with
``safeplan validate`` (which agrees with VAL on this corpus); a plan it rejects is counted
as a failure and printed. Results go to a JSON Lines file, one row per (problem,
configuration); a row already there is not run again, so an interrupted run resumes. A
problem counts as solved only when the whole process returned a valid plan within the limit
(our ``--timeout`` bounds the search, not parsing and grounding, so a run can overshoot).

Usage::

    pip install up-fast-downward            # Fast Downward 24.06 and its translator
    cargo build --release -p safeplan-cli
    python tools/compare_fast_downward.py --seconds 30 \\
        --config safeplan:lama --config fd:lama-first --out target/fd-compare.jsonl
    python tools/compare_fast_downward.py --summary target/fd-compare.jsonl

The summary is the Markdown table in docs/benchmarks.md: coverage on the problems Fast
Downward reads (its translator refuses numeric fluents), on the rest, time and plan length
on the problems every configuration solved.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Fast Downward's driver exit codes that mean "cannot read this task" (translate or search
# input errors and unsupported features), as opposed to a limit or a failed search.
FD_CANNOT_READ = {30, 31, 33, 34, 36, 37}


def data_dir() -> Path:
    env = os.environ.get("SAFEPLAN_DATA")
    return Path(env) if env else ROOT.parent / "shared" / "data"


def problems(ipc: Path, only: str | None) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    for line in (ipc / "manifest.jsonl").read_text().splitlines():
        row = json.loads(line)
        key = (row["domain"], row["problem"])
        if only and not key[0].startswith(only + "/"):
            continue
        seen[key] = None
    return sorted(seen)


def fd_driver() -> Path:
    try:
        import up_fast_downward  # noqa: PLC0415 (only this script needs it)
    except ImportError:
        sys.exit("error: up-fast-downward is not installed; run `pip install up-fast-downward`")
    return Path(up_fast_downward.__file__).parent / "downward" / "fast-downward.py"


def validate(safeplan: Path, domain: Path, problem: Path, plan_text: str) -> bool:
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as f:
        f.write(plan_text)
        path = f.name
    try:
        done = subprocess.run(
            [str(safeplan), "validate", str(domain), str(problem), path],
            capture_output=True,
            text=True,
            timeout=300,
        )
        return done.returncode == 0
    finally:
        os.unlink(path)


def steps(plan_text: str) -> int:
    return sum(
        1
        for line in plan_text.splitlines()
        if line.strip().startswith("(") and not line.strip().startswith(";")
    )


def run_safeplan(safeplan: Path, alg: str, domain: Path, problem: Path, seconds: float) -> dict:
    cmd = [
        str(safeplan), "plan", str(domain), str(problem), "--search", alg,
        "--timeout", str(seconds), "--max-memory", "4096", "--json",
    ]
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        return {"status": "time", "seconds": time.monotonic() - start}
    wall = time.monotonic() - start
    try:
        out = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"status": "error", "seconds": wall, "detail": done.stderr.strip()[-300:]}
    outcome = out.get("outcome") or out.get("result", {}).get("outcome") or out
    status = outcome.get("status", "error")
    row = {"status": status, "seconds": wall}
    # The search that concluded (under `auto`, LM-cut or LAMA), whether its plan is a
    # cheapest one in its measure (steps, or the metric's action costs), and its cost in
    # that measure (builds before afc3266 gave the metric's value by our validator).
    for key in ("algorithm", "optimal", "measure", "cost"):
        if key in outcome:
            row[key] = outcome[key]
    if status == "found":
        row["plan"] = "\n".join(outcome["plan"]) + "\n"
    elif status == "limit_reached":
        row["status"] = outcome.get("limit", "limit")
    return row


def run_fd(driver: Path, config: str, domain: Path, problem: Path, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        plan_file = Path(tmp) / "plan"
        cmd = [sys.executable, str(driver)]
        if config == "lama-first":
            cmd += ["--alias", "lama-first"]
        cmd += [
            "--overall-time-limit", f"{int(seconds)}s",
            "--overall-memory-limit", "4G",
            "--plan-file", str(plan_file),
            str(domain), str(problem),
        ]
        if config == "lmcut":
            cmd += ["--search", "astar(lmcut())"]
        start = time.monotonic()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, timeout=seconds + 60)
        except subprocess.TimeoutExpired:
            return {"status": "time", "seconds": time.monotonic() - start}
        wall = time.monotonic() - start
        code = done.returncode
        if code == 0 and plan_file.exists():
            text = plan_file.read_text()
            row = {"status": "found", "seconds": wall, "plan": text}
            # Fast Downward's last line: "; cost = N (unit cost)" or "(general cost)".
            for line in text.splitlines():
                if line.startswith("; cost = "):
                    row["cost"] = float(line.split()[3])
            return row
        if code in FD_CANNOT_READ:
            return {"status": "cannot_read", "seconds": wall, "exit": code}
        if code in (11, 10):
            return {"status": "unsolvable", "seconds": wall, "exit": code}
        if code in (21, 23):
            return {"status": "time", "seconds": wall, "exit": code}
        if code in (20, 22):
            return {"status": "memory", "seconds": wall, "exit": code}
        return {"status": "failed", "seconds": wall, "exit": code}


def run(args: argparse.Namespace) -> None:
    data = data_dir() / "ipc"
    safeplan = Path(args.safeplan)
    if not safeplan.exists():
        sys.exit(f"error: {safeplan} does not exist; run `cargo build --release -p safeplan-cli`")
    binaries = {"": safeplan}
    for named in args.binary:
        name, _, path = named.partition("=")
        if not name or not Path(path).exists():
            sys.exit(f"error: --binary {named!r}: give NAME=PATH of an existing safeplan")
        binaries[name] = Path(path)
    driver = fd_driver() if any(c.startswith("fd:") for c in args.config) else None
    out = Path(args.out)
    done: set[tuple[str, str]] = set()
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.add((row["problem"], row["config"]))
    with out.open("a") as sink:
        for domain_rel, problem_rel in problems(data, args.only):
            domain, problem = data / domain_rel, data / problem_rel
            for config in args.config:
                if (problem_rel, config) in done:
                    continue
                kind, _, name = config.partition(":")
                kind, _, build = kind.partition("@")
                if kind == "safeplan" and build in binaries:
                    row = run_safeplan(binaries[build], name, domain, problem, args.seconds)
                elif kind == "fd" and driver is not None:
                    row = run_fd(driver, name, domain, problem, args.seconds)
                else:
                    sys.exit(f"error: unknown configuration {config!r}")
                plan = row.pop("plan", None)
                if plan is not None:
                    row["steps"] = steps(plan)
                    row["valid"] = validate(safeplan, domain, problem, plan)
                    if not row["valid"]:
                        print(f"INVALID PLAN: {config} on {problem_rel}", file=sys.stderr)
                row.update(problem=problem_rel, domain=domain_rel, config=config, limit=args.seconds)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(f"{config:22} {problem_rel:55} {row['status']:12} {row['seconds']:7.2f}s", file=sys.stderr)


def summary(path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    configs = list(dict.fromkeys(r["config"] for r in rows))
    by = {(r["problem"], r["config"]): r for r in rows}
    problems_all = sorted({r["problem"] for r in rows})
    fd_configs = [c for c in configs if c.startswith("fd:")]
    unread = {
        p for p in problems_all
        if any(by.get((p, c), {}).get("status") == "cannot_read" for c in fd_configs)
    }
    readable = [p for p in problems_all if p not in unread]

    def solved(p: str, c: str) -> bool:
        # Within the limit as a whole process: safeplan's --timeout bounds the search alone,
        # Fast Downward's --overall-time-limit everything, so the wall time decides for both.
        r = by.get((p, c))
        return bool(
            r and r["status"] == "found" and r.get("valid") and r["seconds"] <= r["limit"]
        )

    common = [p for p in readable if all(solved(p, c) for c in configs)]
    limit = rows[0]["limit"] if rows else 0
    lines = [
        f"| configuration | solved, the {len(readable)} Fast Downward reads | solved, the other {len(unread)} "
        f"| median s on the {len(common)} all solve | total steps on them | total cost on them "
        f"| invalid plans |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in configs:
        invalid = sum(1 for p in problems_all if by.get((p, c), {}).get("valid") is False)
        times = [by[(p, c)]["seconds"] for p in common]
        total_steps = sum(by[(p, c)]["steps"] for p in common)
        costs = [by[(p, c)].get("cost") for p in common]
        total_cost = f"{sum(costs):g}" if costs and None not in costs else ""
        lines.append(
            f"| {c} | {sum(solved(p, c) for p in readable)} | {sum(solved(p, c) for p in unread)} "
            f"| {statistics.median(times):.2f} | {total_steps} | {total_cost} | {invalid} |"
            if times else
            f"| {c} | {sum(solved(p, c) for p in readable)} | {sum(solved(p, c) for p in unread)} | | | | {invalid} |"
        )
    lines.append("")
    lines.append(f"Limit {limit} s and 4 GiB per run, one run at a time; times are whole processes.")
    for c in configs:
        proven = [p for p in problems_all if solved(p, c) and by[(p, c)].get("optimal")]
        if proven:
            lines.append(
                f"{c}: {len(proven)} of its plans proven optimal (shortest, or cheapest under "
                f"action costs) by the search that found them."
            )
    domains = sorted({p.split("/")[0] for p in problems_all})
    lines.append("")
    lines.append("| domain | " + " | ".join(configs) + " |")
    lines.append("|---|" + "---:|" * len(configs))
    for d in domains:
        ps = [p for p in problems_all if p.startswith(d + "/")]
        cells = [f"{sum(solved(p, c) for p in ps)}/{len(ps)}" for c in configs]
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", action="append", default=[],
                        help="safeplan:ALG, fd:lama-first or fd:lmcut (repeatable)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--only", help="one domain folder")
    parser.add_argument("--out", default=str(ROOT / "target" / "fd-compare.jsonl"))
    parser.add_argument("--safeplan", default=str(ROOT / "target" / "release" / "safeplan"))
    parser.add_argument("--summary", help="print the table of a results file and stop")
    parser.add_argument("--binary", action="append", default=[], metavar="NAME=PATH",
                        help="another safeplan build, for configurations safeplan@NAME:ALG")
    args = parser.parse_args()
    if args.summary:
        print(summary(Path(args.summary)))
        return
    if not args.config:
        args.config = ["safeplan:lama", "fd:lama-first"]
    run(args)
    print(summary(Path(args.out)))


if __name__ == "__main__":
    main()
