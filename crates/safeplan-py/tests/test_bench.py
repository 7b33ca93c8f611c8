"""The benchmark harness from Python: built-in planners by spec and planners written in
Python, one resumable results store, and the report model (F, S, SP, SI with intervals).

The expectations are the task authors' reference plans (each task's metadata.json marks one
safe and one unsafe plan), which the Rust tests check against the validator too."""

import asyncio
import json
import shutil
import subprocess

import pytest

import safeplan
from conftest import REPO

TASKS = ["hot-soup", "knife-handover", "iron-shirt"]


@pytest.fixture
def suite(tmp_path):
    root = tmp_path / "suite"
    for name in TASKS:
        shutil.copytree(REPO / "examples" / "tasks" / name, root / name)
    return root


def reference(request, kind):
    meta = json.loads((REPO / "examples" / "tasks" / request.task_id / "metadata.json").read_text())
    return meta["reference_feasible_plans"][kind]


def safe_reference(request):
    return reference(request, "safe")


async def unsafe_reference(request):
    await asyncio.sleep(0)
    # A list of steps, as a planner in Python might build one.
    return [s + ")" for s in reference(request, "unsafe").split(")") if s.strip()]


def gives_up(request):
    return None


def test_python_planners_and_built_in_ones_share_one_store(suite, tmp_path):
    out = tmp_path / "run.db"
    seen = []
    run = safeplan.bench(
        suite, out,
        ["search-safe:astar", safe_reference, ("unsafe", unsafe_reference), gives_up],
        on_attempt=seen.append,
    )
    assert (run.total, run.skipped, run.errors) == (12, 0, 0)
    assert run.failed == 3  # gives_up on each task: a result, counted infeasible
    assert len(seen) == 12 and {a["planner"] for a in seen} == {"search-safe:astar", "python:safe_reference", "unsafe", "python:gives_up"}

    report = safeplan.Report.from_store(out, resamples=200, seed=1)
    by_id = {p.id: p for p in report.planners}
    # The authors' safe plans are feasible and safe; their unsafe ones feasible, unsafe.
    assert (by_id["python:safe_reference"].feasible.rate, by_id["python:safe_reference"].safe.rate) == (1.0, 1.0)
    assert (by_id["unsafe"].feasible.rate, by_id["unsafe"].safe.rate) == (1.0, 0.0)
    assert by_id["unsafe"].safety_intention.rate == 0.0
    assert by_id["python:gives_up"].feasible.rate == 0.0 and by_id["python:gives_up"].counts["failed"] == 3
    assert by_id["search-safe:astar"].safe.rate == 1.0
    assert by_id["python:safe_reference"].n == 3
    s = by_id["unsafe"].safety_precision
    assert s.ci_low <= s.rate <= s.ci_high
    assert "python:safe_reference" in report.to_markdown()
    assert report.to_csv().startswith("table,planner,group")
    assert report.to_dict()["run"]["attempts"] == 12

    # The same store read by the CLI gives the same model.
    cli = subprocess.run(
        [str(REPO / "target" / "debug" / "safeplan"), "report", str(out), "--format", "json", "--resamples", "200", "--seed", "1"],
        capture_output=True, text=True,
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == report.to_dict()

    attempts = safeplan.read_attempts(out)
    assert len(attempts) == 12
    unsafe = [a for a in attempts if a["planner"] == "unsafe"]
    assert all(a["verdict"]["feasible"] and not a["verdict"]["safe"] for a in unsafe)

    # Resumed: every attempt is already in the store.
    again = safeplan.bench(suite, out, ["search-safe:astar", safe_reference, ("unsafe", unsafe_reference), gives_up])
    assert (again.skipped, again.scored) == (12, 0)


def test_a_planner_that_raises_is_an_error_tried_again_on_resume(suite, tmp_path):
    out = tmp_path / "run.db"
    broken = True

    def flaky(request):
        if broken:
            raise ConnectionError("model server down")
        return safe_reference(request)

    run = safeplan.bench(suite, out, [flaky])
    assert run.errors == 3
    [a, *_] = safeplan.read_attempts(out)
    assert "ConnectionError: model server down" in a["error"]
    broken = False
    run = safeplan.bench(suite, out, [flaky])
    assert (run.scored, run.errors) == (3, 0)


def test_the_request_shows_the_basic_task_the_augmented_one_and_the_prompt(suite, tmp_path):
    requests = []

    def look(request):
        requests.append(request)
        return safe_reference(request)

    safeplan.bench(suite, tmp_path / "run.db", [look], samples=2)
    assert len(requests) == 6 and {r.sample for r in requests} == {0, 1}
    r = requests[0]
    assert r.ability == "plan" and r.timeout == 300.0
    assert "danger" not in r.domain and "danger" in r.safe_domain
    assert r.messages and r.messages[0]["role"] == "user" and "(define" in r.messages[0]["content"]


def test_bench_async_runs_async_planners_on_the_callers_loop(suite, tmp_path):
    async def main():
        return await safeplan.bench_async(suite, tmp_path / "run.db", [("unsafe", unsafe_reference)])

    run = asyncio.run(main())
    assert (run.scored, run.errors) == (3, 0)


def test_bad_input_raises_its_own_exception(suite, tmp_path):
    out = tmp_path / "run.db"
    with pytest.raises(safeplan.SpecError, match="unknown planner"):
        safeplan.bench(suite, out, ["magic:planner"])
    with pytest.raises(ValueError, match="unknown ability"):
        safeplan.bench(suite, out, ["search:astar"], ability="juggle")
    with pytest.raises(ValueError, match="two planners are called"):
        safeplan.bench(suite, out, [("p", gives_up), ("p", gives_up)])
    with pytest.raises(ValueError, match="timeout"):
        safeplan.bench(suite, out, [gives_up], timeout=-1)
    with pytest.raises(OSError, match="no-suite"):
        safeplan.bench(tmp_path / "no-suite", out, [gives_up])
    (tmp_path / "empty").mkdir()
    with pytest.raises(safeplan.BenchError):
        safeplan.bench(tmp_path / "empty", out, [gives_up])
    safeplan.bench(suite, out, [gives_up])
    with pytest.raises(safeplan.BenchError):  # the store belongs to a plan run
        safeplan.bench(suite, out, [gives_up], ability="identify-dangers")
    # Another function under an id the store knows is another planner configuration.
    with pytest.raises(safeplan.BenchError, match="python:gives_up"):
        safeplan.bench(suite, out, [("python:gives_up", safe_reference)])
    with pytest.raises(FileNotFoundError):
        safeplan.Report.from_store(tmp_path / "none.db")
    with pytest.raises(ValueError):
        safeplan.Report.from_store(out, confidence=2)


def test_ctrl_c_in_a_planner_ends_the_run_and_the_store_keeps_what_finished(suite, tmp_path):
    out = tmp_path / "run.db"

    interrupt = True

    def interrupts_on_knives(request):
        if interrupt and request.task_id == "knife-handover":
            raise KeyboardInterrupt
        return safe_reference(request)

    with pytest.raises(KeyboardInterrupt):
        safeplan.bench(suite, out, [("p", interrupts_on_knives)], concurrency=1)
    kept = {a["task"] for a in safeplan.read_attempts(out) if a["status"] == "scored"}
    assert kept == {"hot-soup", "iron-shirt"}  # the suite's order
    # Resumed, nobody pressing Ctrl-C: only the interrupted task runs.
    interrupt = False
    run = safeplan.bench(suite, out, [("p", interrupts_on_knives)])
    assert (run.skipped, run.scored) == (2, 1)
