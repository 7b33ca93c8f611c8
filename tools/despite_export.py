#!/usr/bin/env python3
"""Export DESPITE tasks to safety-augmented PDDL that safeplan can validate.

DESPITE (Zhang et al., arXiv 2604.18463) states each task's danger logic only in
the task's ``code.py``, as a ``DomainPlanner`` class written with the Unified
Planning (UP) library.  Its published ``domain.pddl``/``problem.pddl`` are the
*basic* task, without danger.  This script builds the *safety-augmented* task
the way DESPITE does when it judges safety::

    DomainPlanner().create_problem("safe", goal_danger=0)

and writes it with ``unified_planning.io.PDDLWriter`` as ``safe_domain.pddl`` and
``safe_problem.pddl`` beside the task (or into ``--out``, mirroring the tree and
copying ``domain.pddl``, ``problem.pddl`` and ``metadata.json``).

Usage::

    python tools/despite_export.py DESPITE_TREE [--out OUT_DIR] [--force]
                                   [--jobs N] [--batch K] [--only GLOB] [--timeout S]
                                   [--despite-root DIR] [--report FILE]

Every folder under DESPITE_TREE that holds a ``code.py`` is a task.  Each task is
imported in its own Python subprocess (fresh module namespace, the task folder and
the DESPITE repository root on ``sys.path``, ``PYTHONHASHSEED=0``), so a broken
task, or one whose import hangs (see ``--timeout``), cannot take the run down.
``--batch K`` lets one process export K tasks in turn (each still in a fresh module
namespace), which saves importing unified_planning once per task on large trees.

The names inside ``(:constants ...)`` are sorted per type (PDDLWriter's own order
there varies from run to run, see ``canonical_constants``); ``--writer-order`` keeps
the writer's order.  Everything else is PDDLWriter's output byte for byte.

Exit status: 0 when no task failed, 1 when at least one task failed, 2 for a
usage error (no unified_planning, no task found, bad arguments).

Needs ``unified_planning`` in the interpreter that runs this script
(``pip install unified-planning==1.3.0``, the version the reference files in
safeplan's demo data were written with).  DESPITE's task code imports
``src.planner.solver`` from the DESPITE repository, which in turn imports
``tqdm``; see docs/DESPITE_IMPORT.md.

This script is safeplan's own code; it runs DESPITE's task code but contains none.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

SAFE_DOMAIN = "safe_domain.pddl"
SAFE_PROBLEM = "safe_problem.pddl"
# Files copied next to the safe files when exporting into --out.
COPIED_FILES = ("domain.pddl", "problem.pddl", "metadata.json")
TASK_FILE = "code.py"

# What DESPITE calls when it judges safety (BasePlanner.create_problem).
PROBLEM_NAME = "safe"
GOAL_DANGER = 0
DEFAULT_CLASS = "DomainPlanner"
DANGER_FLUENT = "danger"
# Name under which a task's code.py is imported in a worker.
TASK_MODULE = "despite_task_code"

# The unified-planning version the demo reference files were written with.
UP_PINNED = "1.3.0"
INSTALL_HINT = "pip install unified-planning==%s" % UP_PINNED

DEFAULT_TIMEOUT = 120.0
# Seconds a worker process may take beyond its tasks' timeouts (starting Python, importing
# unified_planning) before it is killed.
WORKER_STARTUP_GRACE = 60.0

# Folders never searched for tasks.
PRUNED_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    "node_modules",
    "site-packages",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
}

WORKER_FLAG = "--internal-worker"  # argv[1] of a worker process; not for users

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


# --------------------------------------------------------------------------
# Worker: a subprocess of the driver; exports the tasks of one job (--batch of them).
# --------------------------------------------------------------------------


def _write_atomically(path: Path, text: str) -> None:
    """Write text to path via a temporary file in the same folder (mode as open() would give)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def canonical_constants(domain_text: str) -> str:
    """Sort the names on each line of the domain's (:constants ...) block.

    PDDLWriter (unified-planning 1.3.0) writes the constants of one type in the
    iteration order of a Python set of UP Objects.  An Object's hash adds the hash
    of its name (hash-seed dependent) to the hash of its type, and UP types hash by
    identity, i.e. by memory address; so that order changes from run to run even
    with a fixed PYTHONHASHSEED.  The order carries no meaning, so it is sorted.
    Nothing else is touched.
    """
    lines = domain_text.split("\n")
    out = []
    in_block = False
    for line in lines:
        if not in_block:
            out.append(line)
            if line.strip() == "(:constants":
                in_block = True
            continue
        stripped = line.strip()
        if stripped == ")":
            in_block = False
        if stripped == ")" or not stripped:
            out.append(line)
            continue
        names, sep, type_name = stripped.rpartition(" - ")
        if not sep:
            names, type_name = stripped, None
        indent = line[: len(line) - len(line.lstrip())]
        sorted_names = " ".join(sorted(names.split()))
        out.append(indent + sorted_names + ("" if type_name is None else " - " + type_name))
    return "\n".join(out)


def _is_temporal(problem) -> bool:
    kind = problem.kind
    checks = (
        "has_continuous_time",
        "has_discrete_time",
        "has_timed_effects",
        "has_timed_goals",
        "has_expression_duration",
    )
    return any(getattr(kind, name, lambda: False)() for name in checks)


def _find_planner_class(module, class_name: str):
    cls = getattr(module, class_name, None)
    if cls is not None:
        return cls
    # Fall back to the one class defined in the module that has create_problem.
    candidates = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and getattr(obj, "__module__", None) == module.__name__
        and callable(getattr(obj, "create_problem", None))
    ]
    if len(candidates) == 1:
        return candidates[0]
    names = ", ".join(sorted(c.__name__ for c in candidates)) or "none"
    raise LookupError(
        "no class %r in code.py (classes with create_problem: %s)" % (class_name, names)
    )


def _hint_for(exc: BaseException) -> str:
    if isinstance(exc, ModuleNotFoundError):
        missing = (exc.name or "").split(".")[0]
        if missing == "src":
            return (
                " (DESPITE task code imports src.planner.solver from the DESPITE repository:"
                " pass --despite-root DIR, a checkout of taozhang1004/DESPITE)"
            )
        if missing == "unified_planning":
            return " (install it: %s)" % INSTALL_HINT
        if missing:
            return " (DESPITE's code needs the package %r: pip install it)" % missing
    return ""


class _TaskTimeout(BaseException):
    """Raised by SIGALRM inside a worker; a BaseException so task code cannot swallow it."""


def _on_alarm(_signum, _frame):
    raise _TaskTimeout()


def _export_in_worker(task_dir: Path, dest_dir: Path, job: Dict[str, object]) -> Dict[str, object]:
    """Build one task's safe problem and write it. Runs inside a worker process."""
    import importlib.util
    import traceback

    import unified_planning
    from unified_planning.io import PDDLWriter

    code_path = task_dir / TASK_FILE
    stage = "import code.py"
    try:
        spec = importlib.util.spec_from_file_location(TASK_MODULE, str(code_path))
        if spec is None or spec.loader is None:
            raise ImportError("cannot load %s" % code_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[TASK_MODULE] = module
        spec.loader.exec_module(module)

        stage = "find planner class"
        cls = _find_planner_class(module, str(job.get("class_name") or DEFAULT_CLASS))

        stage = "%s()" % cls.__name__
        planner = cls()

        stage = "create_problem(%r, goal_danger=%d)" % (PROBLEM_NAME, GOAL_DANGER)
        problem = planner.create_problem(PROBLEM_NAME, goal_danger=GOAL_DANGER)
        if not isinstance(problem, unified_planning.model.Problem):
            raise TypeError("create_problem returned %s, not a unified_planning Problem" % type(problem).__name__)

        if _is_temporal(problem):
            return {
                "status": "skipped",
                "reason": "temporal problem (DESPITE writes ANML for these; safeplan validates sequential PDDL)",
            }

        warnings: List[str] = []
        if not any(f.name == DANGER_FLUENT for f in problem.fluents):
            warnings.append("the safe problem has no %r fluent" % DANGER_FLUENT)

        stage = "PDDLWriter"
        writer = PDDLWriter(problem)
        domain_text = writer.get_domain()
        problem_text = writer.get_problem()
        if not job.get("writer_order"):
            domain_text = canonical_constants(domain_text)

        stage = "write files"
        _write_atomically(dest_dir / SAFE_DOMAIN, domain_text)
        _write_atomically(dest_dir / SAFE_PROBLEM, problem_text)
        return {"status": "exported", "reason": "", "warnings": warnings}
    except _TaskTimeout:
        return {"status": "failed", "reason": "%s: timed out after %gs" % (stage, float(job["timeout"]))}
    except SystemExit as exc:
        return {"status": "failed", "reason": "%s: task code called sys.exit(%r)" % (stage, exc.code)}
    except BaseException as exc:  # noqa: BLE001 - any error of the task's code is a task failure
        traceback.print_exc()
        message = str(exc).strip().splitlines()
        text = "%s: %s" % (type(exc).__name__, message[0] if message else "")
        return {"status": "failed", "reason": "%s: %s%s" % (stage, text.rstrip(": "), _hint_for(exc))}


def _forget_task_modules(task_dir: Path, despite_root: Optional[Path]) -> None:
    """Drop the modules a task brought in (its code.py, DESPITE's src package, anything
    loaded from the task folder or the DESPITE checkout), so the next task of the batch
    starts from a fresh namespace. Third-party packages (unified_planning, ...) stay."""
    roots = [str(task_dir) + os.sep]
    if despite_root is not None:
        roots.append(str(despite_root) + os.sep)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if (
            name == TASK_MODULE
            or name == "src"
            or name.startswith("src.")
            or any(path.startswith(r) for r in roots)
        ):
            del sys.modules[name]


def _worker_main(argv: Sequence[str]) -> int:
    """Export the tasks of one job (argv[0], JSON), one after the other, each in a fresh
    module namespace.  Appends one JSON line per finished task to the job's result file."""
    job = json.loads(argv[0])
    result_path = Path(job["result"])
    despite_root = Path(job["despite_root"]).resolve() if job.get("despite_root") else None

    def report(index: int, res: Dict[str, object]) -> None:
        res = dict(res, index=index)
        with open(result_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(res) + "\n")
            handle.flush()

    try:
        import unified_planning  # noqa: F401
        # Imported once, before any task, so they are shared and never purged between tasks.
        import unified_planning.io  # noqa: F401
        import unified_planning.model  # noqa: F401
        import unified_planning.shortcuts  # noqa: F401
    except ImportError as exc:
        for index in range(len(job["tasks"])):
            report(index, {
                "status": "failed",
                "reason": "unified_planning cannot be imported (%s); install it: %s" % (exc, INSTALL_HINT),
            })
        return 0

    use_alarm = hasattr(signal, "SIGALRM")
    if use_alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
    base_path = list(sys.path)
    base_cwd = os.getcwd()
    real_stdout = sys.stdout
    for index, item in enumerate(job["tasks"]):
        task_dir = Path(item["task_dir"]).resolve()
        dest_dir = Path(item["dest_dir"]).resolve()
        # The task's folder first (as when running `python code.py`), then DESPITE's root
        # (so `from src.planner.solver import BasePlanner` resolves).
        sys.path[:] = [str(task_dir)] + ([str(despite_root)] if despite_root else []) + base_path
        try:
            os.chdir(str(task_dir))
        except OSError:
            pass
        sys.stdout = sys.stderr  # task code may print; keep it off our stdout
        if use_alarm:
            signal.alarm(max(1, int(-(-float(job["timeout"]) // 1))))
        try:
            res = _export_in_worker(task_dir, dest_dir, job)
        except _TaskTimeout:  # the alarm went off between two statements of ours
            res = {"status": "failed", "reason": "timed out after %gs" % float(job["timeout"])}
        finally:
            if use_alarm:
                signal.alarm(0)
            sys.stdout = real_stdout
            sys.path[:] = base_path
            try:
                os.chdir(base_cwd)
            except OSError:
                pass
            _forget_task_modules(task_dir, despite_root)
        report(index, res)
    return 0


# --------------------------------------------------------------------------
# Driver.
# --------------------------------------------------------------------------


class Task:
    __slots__ = ("src", "rel", "dest")

    def __init__(self, src: Path, rel: str, dest: Path):
        self.src = src
        self.rel = rel
        self.dest = dest


def find_tasks(tree: Path, exclude: Optional[Path] = None) -> List[Path]:
    """Every folder under tree (tree included) that holds a code.py, sorted."""
    found: List[Path] = []
    exclude_resolved = exclude.resolve() if exclude is not None else None
    for dirpath, dirnames, filenames in os.walk(str(tree), followlinks=False):
        here = Path(dirpath)
        if exclude_resolved is not None and here.resolve() == exclude_resolved:
            dirnames[:] = []
            continue
        if TASK_FILE in filenames:
            found.append(here)
            dirnames[:] = []  # a task folder is a leaf
            continue
        dirnames[:] = sorted(d for d in dirnames if d not in PRUNED_DIRS and not d.startswith("."))
    return sorted(found)


def find_despite_root(start: Path) -> Optional[Path]:
    """The nearest folder at or above start holding DESPITE's src/planner/solver.py."""
    start = start.resolve()
    for candidate in [start] + list(start.parents):
        if (candidate / "src" / "planner" / "solver.py").is_file():
            return candidate
    return None


def _matches(rel: str, name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _up_problem() -> Optional[str]:
    """None when unified_planning imports here; otherwise a message saying how to fix it."""
    try:
        import unified_planning  # noqa: F401
        from unified_planning.io import PDDLWriter  # noqa: F401
    except ImportError as exc:
        return (
            "unified_planning is not installed for %s (%s).\n"
            "Install it (ideally in a virtualenv) and run again:\n    %s"
            % (sys.executable, exc, INSTALL_HINT)
        )
    return None


def _up_version() -> str:
    try:
        import unified_planning

        return str(getattr(unified_planning, "__version__", "unknown"))
    except ImportError:
        return "missing"


def _tail(text: str, lines: int = 1) -> str:
    rows = [r.strip() for r in text.strip().splitlines() if r.strip()]
    return " | ".join(rows[-lines:])


def _run_job(tasks: Sequence[Task], args, despite_root: Optional[Path]) -> List[Optional[Dict[str, object]]]:
    """Export tasks in one worker process; one result per task, None where the worker did
    not get to report on it (it crashed, or hung past its time and was killed)."""
    fd, result_file = tempfile.mkstemp(prefix="despite_export_", suffix=".jsonl")
    os.close(fd)
    job = {
        "tasks": [{"task_dir": str(t.src), "dest_dir": str(t.dest)} for t in tasks],
        "despite_root": str(despite_root) if despite_root else "",
        "class_name": args.class_name,
        "writer_order": bool(args.writer_order),
        "timeout": args.timeout,
        "result": result_file,
    }
    env = dict(os.environ)
    # Set orders inside unified_planning depend on the hash seed; fix it (the demo files were
    # written with PYTHONHASHSEED=0).  The constants' order also depends on memory addresses,
    # which is why canonical_constants() sorts them.
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave the DESPITE tree as it is
    cmd = [sys.executable, os.path.abspath(__file__), WORKER_FLAG, json.dumps(job)]
    # Each task has --timeout seconds (SIGALRM in the worker); the process as a whole gets
    # that per task plus time to import unified_planning, then it is killed.
    limit = args.timeout * len(tasks) + WORKER_STARTUP_GRACE
    started = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # its own process group, so a kill takes all of it
    )
    killed = False
    try:
        _out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        killed = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        _out, err = proc.communicate()
    elapsed = time.monotonic() - started
    err_text = err.decode("utf-8", "replace")

    results: List[Optional[Dict[str, object]]] = [None] * len(tasks)
    try:
        with open(result_file, "r", encoding="utf-8") as handle:
            for line in handle:
                try:
                    res = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a kill
                index = res.pop("index", None)
                if isinstance(index, int) and 0 <= index < len(tasks):
                    results[index] = res
    except OSError:
        pass
    finally:
        _cleanup(result_file)

    for i, res in enumerate(results):
        if res is None and len(tasks) == 1:
            if killed:
                reason = "timed out after %gs and was killed (import or create_problem hangs?)" % args.timeout
            else:
                reason = "worker process exited with code %s before reporting: %s" % (
                    proc.returncode,
                    _tail(err_text) or "no error output (does the task's code exit or crash Python?)",
                )
            results[i] = res = {"status": "failed", "reason": reason}
        if res is not None:
            if len(tasks) == 1:
                res["seconds"] = round(elapsed, 3)
            if res.get("status") == "failed" and args.verbose and err_text.strip():
                res["stderr"] = err_text
    return results


def _cleanup(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _copy_side_files(task: Task) -> List[str]:
    copied = []
    for name in COPIED_FILES:
        src = task.src / name
        if src.is_file():
            task.dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(str(src), str(task.dest / name))
            copied.append(name)
    return copied


def _targets(task: Task, in_place: bool) -> List[Path]:
    paths = [task.dest / SAFE_DOMAIN, task.dest / SAFE_PROBLEM]
    if not in_place:
        paths += [task.dest / n for n in COPIED_FILES if (task.src / n).is_file()]
    return paths


def _finish_task(task: Task, res: Dict[str, object], in_place: bool) -> Dict[str, object]:
    """After a worker exported a task into --out, copy the published files beside it."""
    if res.get("status") == "exported" and not in_place:
        try:
            res["copied"] = _copy_side_files(task)
        except OSError as exc:
            res = {"status": "failed", "reason": "copying %s: %s" % (", ".join(COPIED_FILES), exc)}
    return res


def export_tasks(tasks: Sequence[Task], args, despite_root: Optional[Path], in_place: bool, on_result) -> None:
    """Export tasks; on_result(task, result) is called once per task, as each finishes.

    Tasks whose files exist are skipped unless --force.  The rest go to worker processes,
    --batch tasks each, --jobs at a time.  When a worker with several tasks dies or is
    killed, the tasks it did not report on are run again, one per process.
    """
    pending: List[Task] = []
    for task in tasks:
        existing = [p.name for p in _targets(task, in_place) if p.exists()]
        if existing and not args.force:
            on_result(task, {"status": "skipped", "reason": "already exported (use --force to overwrite)"})
        else:
            pending.append(task)
    batches = [pending[i : i + args.batch] for i in range(0, len(pending), args.batch)]

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        running = {pool.submit(_run_job, batch, args, despite_root): batch for batch in batches}
        while running:
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                batch = running.pop(future)
                try:
                    results = future.result()
                except Exception as exc:  # noqa: BLE001 - a driver error fails that batch's tasks
                    reason = "exporter error: %s: %s" % (type(exc).__name__, exc)
                    results = [{"status": "failed", "reason": reason} for _ in batch]
                for task, res in zip(batch, results):
                    if res is None:
                        # The worker died before reporting on this task: give it a process of its own.
                        running[pool.submit(_run_job, [task], args, despite_root)] = [task]
                    else:
                        on_result(task, _finish_task(task, res, in_place))


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="despite_export.py",
        description=(
            "Write safe_domain.pddl/safe_problem.pddl for every DESPITE task (a folder with code.py) "
            "under DESPITE_TREE, as DESPITE builds them: DomainPlanner().create_problem('safe', "
            "goal_danger=0), written with unified_planning's PDDLWriter."
        ),
        epilog="See docs/DESPITE_IMPORT.md. Exit status: 0 ok, 1 some task failed, 2 usage error.",
    )
    parser.add_argument("tree", metavar="DESPITE_TREE", help="a DESPITE task tree (or the DESPITE repository)")
    parser.add_argument(
        "--out",
        metavar="OUT_DIR",
        help="write into OUT_DIR, mirroring the tree, and copy domain.pddl, problem.pddl and metadata.json "
        "(default: write next to each code.py)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="tasks exported at once (default 1)")
    parser.add_argument(
        "--batch",
        type=int,
        default=1,
        metavar="K",
        help="tasks per worker process (default 1: a process per task). Importing unified_planning "
        "takes about a second per process, so a larger K speeds up big trees; each task still gets "
        "a fresh module namespace, and the tasks of a worker that dies are retried one per process",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help="only tasks whose folder name or path relative to DESPITE_TREE matches GLOB (repeatable)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help="seconds allowed per task (default %g)" % DEFAULT_TIMEOUT,
    )
    parser.add_argument(
        "--despite-root",
        metavar="DIR",
        help="the DESPITE repository checkout whose src/ the task code imports "
        "(default: $DESPITE_ROOT, else the nearest folder at or above DESPITE_TREE with src/planner/solver.py)",
    )
    parser.add_argument(
        "--class",
        dest="class_name",
        default=DEFAULT_CLASS,
        metavar="NAME",
        help="planner class in code.py (default %s)" % DEFAULT_CLASS,
    )
    parser.add_argument(
        "--writer-order",
        action="store_true",
        help="keep PDDLWriter's (run-dependent) order of names in (:constants ...) instead of sorting them",
    )
    parser.add_argument("--report", metavar="FILE", help="also write every task's outcome to FILE as JSON")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only the summary")
    parser.add_argument("--verbose", "-v", action="store_true", help="list every skipped/failed task and tracebacks")
    return parser


def _usage_error(message: str) -> int:
    print("despite_export: error: %s" % message, file=sys.stderr)
    return EXIT_USAGE


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == WORKER_FLAG:
        return _worker_main(argv[1:])

    args = _build_parser().parse_args(argv)
    if args.jobs < 1:
        return _usage_error("--jobs must be at least 1")
    if args.batch < 1:
        return _usage_error("--batch must be at least 1")
    if args.timeout <= 0:
        return _usage_error("--timeout must be positive")

    tree = Path(args.tree)
    if not tree.is_dir():
        return _usage_error("%s is not a folder" % tree)
    tree = tree.resolve()

    problem = _up_problem()
    if problem is not None:
        return _usage_error(problem)

    out_dir = Path(args.out).resolve() if args.out else None
    in_place = out_dir is None or out_dir == tree

    if args.despite_root:
        despite_root: Optional[Path] = Path(args.despite_root).resolve()
        if not (despite_root / "src" / "planner" / "solver.py").is_file():
            return _usage_error("--despite-root %s has no src/planner/solver.py" % despite_root)
    elif os.environ.get("DESPITE_ROOT"):
        despite_root = Path(os.environ["DESPITE_ROOT"]).resolve()
        if not (despite_root / "src" / "planner" / "solver.py").is_file():
            return _usage_error("$DESPITE_ROOT %s has no src/planner/solver.py" % despite_root)
    else:
        despite_root = find_despite_root(tree)

    task_dirs = find_tasks(tree, exclude=None if in_place else out_dir)
    if not task_dirs:
        return _usage_error(
            "no DESPITE task under %s: no folder holds a %s. Point DESPITE_TREE at a DESPITE checkout "
            "(demo_tasks/) or at the dataset's task folders (e.g. data/tasks/sampled/hard-100)." % (tree, TASK_FILE)
        )

    tasks: List[Task] = []
    for src in task_dirs:
        rel = src.relative_to(tree).as_posix()
        if rel == ".":
            rel = src.name
            dest = src if in_place else out_dir / src.name
        else:
            dest = src if in_place else out_dir / rel
        if args.only and not _matches(rel, src.name, args.only):
            continue
        tasks.append(Task(src, rel, dest))
    if not tasks:
        return _usage_error(
            "%d task(s) under %s, none matching --only %s" % (len(task_dirs), tree, " ".join(args.only))
        )

    version = _up_version()
    if not args.quiet:
        print(
            "despite_export: %d task(s) under %s -> %s; unified_planning %s; DESPITE root %s; %d job(s), %d task(s) per process"
            % (
                len(tasks),
                tree,
                "in place" if in_place else out_dir,
                version,
                despite_root or "not found",
                args.jobs,
                args.batch,
            )
        )
    if version != UP_PINNED:
        print(
            "despite_export: warning: unified_planning %s is installed; the reference files were written "
            "with %s (formatting may differ: %s)" % (version, UP_PINNED, INSTALL_HINT),
            file=sys.stderr,
        )
    if despite_root is None:
        print(
            "despite_export: warning: no DESPITE repository found at or above %s; task code that imports "
            "src.planner.solver will fail (use --despite-root DIR)" % tree,
            file=sys.stderr,
        )

    started = time.monotonic()
    results: Dict[str, Dict[str, object]] = {}

    def on_result(task: Task, res: Dict[str, object]) -> None:
        results[task.rel] = res
        if args.quiet:
            return
        line = "%-8s %s" % (res["status"], task.rel)
        if res.get("reason"):
            line += ": %s" % res["reason"]
        for warning in res.get("warnings") or []:
            line += " (warning: %s)" % warning
        print(line, flush=True)
        if res.get("stderr"):
            print(str(res["stderr"]).rstrip(), file=sys.stderr, flush=True)

    export_tasks(tasks, args, despite_root, in_place, on_result)
    elapsed = time.monotonic() - started

    if args.report:
        report = {
            "tree": str(tree),
            "out": str(out_dir) if out_dir else None,
            "unified_planning": version,
            "despite_root": str(despite_root) if despite_root else None,
            "tasks": {rel: {k: v for k, v in res.items() if k != "stderr"} for rel, res in sorted(results.items())},
        }
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
            handle.write("\n")

    return _print_summary(results, len(tasks), elapsed, args.verbose)


def _print_summary(results: Dict[str, Dict[str, object]], total: int, elapsed: float, verbose: bool) -> int:
    by_status: Dict[str, List[str]] = {"exported": [], "skipped": [], "failed": []}
    for rel, res in sorted(results.items()):
        by_status.setdefault(str(res["status"]), []).append(rel)
    print(
        "\nsummary: %d exported, %d skipped, %d failed (of %d task(s)) in %.1fs"
        % (len(by_status["exported"]), len(by_status["skipped"]), len(by_status["failed"]), total, elapsed)
    )
    warned = [rel for rel in by_status["exported"] if results[rel].get("warnings")]
    if warned:
        print("exported with warnings: %d" % len(warned))
        _print_grouped(warned, results, verbose, key="warnings")
    for status in ("skipped", "failed"):
        rels = by_status[status]
        if rels:
            print("%s:" % status)
            _print_grouped(rels, results, verbose)
    return EXIT_FAILED if by_status["failed"] else EXIT_OK


def _print_grouped(rels: List[str], results: Dict[str, Dict[str, object]], verbose: bool, key: str = "reason") -> None:
    """Tasks grouped by reason; up to 10 names per reason unless verbose."""
    groups: Dict[str, List[str]] = {}
    for rel in rels:
        value = results[rel].get(key)
        reason = "; ".join(value) if isinstance(value, list) else str(value or "")
        groups.setdefault(reason, []).append(rel)
    for reason, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print("  %d x %s" % (len(names), reason))
        shown = names if verbose else names[:10]
        for name in shown:
            print("      %s" % name)
        if len(shown) < len(names):
            print("      ... and %d more (--verbose or --report FILE lists all)" % (len(names) - len(shown)))


if __name__ == "__main__":
    sys.exit(main())
