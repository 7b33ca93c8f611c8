"""safeplan across processes (issue 39): every public object pickles and answers as the
original (hypothesis over the corpora), exceptions keep their type and fields, batch calls
work in forked, spawned and forkserver children (a forked child once hung), and a worker's
pool follows the threads it is given."""

import json
import multiprocessing as mp
import os
import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import safeplan
from conftest import DEMO_TASKS, REPO

SOUP = REPO / "examples" / "tasks" / "hot-soup"


def _demo(data, name):
    d = data / "despite-demo" / name
    return (d / "safe_domain.pddl").read_text(), (d / "safe_problem.pddl").read_text()


@pytest.fixture(scope="module")
def demo_tasks(data):
    return {n: _demo(data, n) for n in DEMO_TASKS}


def test_tasks_pickle_and_answer_as_the_original_on_every_oracle_plan(data, oracle, demo_tasks):
    # Every DESPITE oracle plan: the unpickled Task and SafetyTask give the same verdicts.
    for name, (domain, problem) in demo_tasks.items():
        task = safeplan.Task(domain, problem, domain_file=f"{name}/d.pddl")
        safety = safeplan.SafetyTask(domain, problem, si_mode="strict")
        task2, safety2 = pickle.loads(pickle.dumps(task)), pickle.loads(pickle.dumps(safety))
        plans = [r["plan"] for r in oracle if r["task"] == name]
        assert plans
        assert [v.to_dict() for v in task.validate_many(plans)] == [v.to_dict() for v in task2.validate_many(plans)]
        assert [v.to_dict() for v in safety.evaluate_many(plans)] == [v.to_dict() for v in safety2.evaluate_many(plans)]
    # The options travel too: a parse error names the file given.
    with pytest.raises(safeplan.ParseError) as e:
        pickle.loads(pickle.dumps(task2)).validate("(oops")
    assert e.value.diagnostics


def test_ipc_tasks_pickle(data):
    rows = [json.loads(l) for l in (data / "ipc" / "manifest.jsonl").read_text().splitlines()[:60]]
    seen = set()
    for r in rows:
        key = (r["domain"], r["problem"])
        if key in seen:
            continue
        seen.add(key)
        task = safeplan.Task((data / "ipc" / r["domain"]).read_text(), (data / "ipc" / r["problem"]).read_text())
        plan = (data / "ipc" / r["plan"]).read_text()
        again = pickle.loads(pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL))
        assert task.validate(plan).to_dict() == again.validate(plan).to_dict()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_verdicts_pickle_and_compare_equal(data_strategy):
    # Verdicts of hand-picked and drawn replies, lenient ones with what was read.
    task = safeplan.load_task(str(SOUP / "domain.pddl"), str(SOUP / "problem.pddl"))
    safety = safeplan.load_safety_task(str(SOUP / "domain.pddl"), str(SOUP / "problem.pddl"))
    steps = ["(pick-up soup stove)", "(move stove table)", "(put-down soup table)", "(teleport soup)", "(cover soup)"]
    plan = data_strategy.draw(st.lists(st.sampled_from(steps), max_size=6))
    style = data_strategy.draw(st.sampled_from(["list", "reply"]))
    text = plan if style == "list" else "Plan:\n" + "\n".join(f"{i + 1}. {s}" for i, s in enumerate(plan))
    lenient = style == "reply"
    for verdict in (task.validate(text, lenient=lenient), safety.evaluate(text, lenient=lenient)):
        again = pickle.loads(pickle.dumps(verdict))
        assert type(again) is type(verdict)
        assert again == verdict and again.to_dict() == verdict.to_dict()
        assert again.steps_read == verdict.steps_read and again.reading_warnings == verdict.reading_warnings


def test_diagnostics_and_exceptions_keep_their_type_and_fields():
    with pytest.raises(safeplan.ParseError) as caught:
        safeplan.Task("(define (domain d) (:predicates (p)) (:action a :effect (q)))", "(define (problem x) (:domain d) (:init) (:goal (p)))")
    err = caught.value
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is safeplan.ParseError and isinstance(again, safeplan.SafeplanError)
    assert str(again) == str(err)
    assert again.diagnostics == err.diagnostics
    assert any(d.code == "undefined-predicate" for d in again.diagnostics)
    for cls in (safeplan.SafeplanError, safeplan.ParseError, safeplan.TaskError, safeplan.StepError,
                safeplan.SpecError, safeplan.LlmError, safeplan.EpisodeError, safeplan.BenchError, safeplan.PlanError):
        assert cls.__module__ == "safeplan"
        e = cls("what went wrong")
        e.extra = {"kind": "config"}
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is cls and back.args == e.args and back.extra == e.extra
    d = err.diagnostics[0]
    assert pickle.loads(pickle.dumps(d)) == d


def test_a_monitor_says_what_to_send_instead():
    task = safeplan.load_task(str(SOUP / "domain.pddl"), str(SOUP / "problem.pddl"))
    with pytest.raises(TypeError, match="Send the Task"):
        pickle.dumps(task.monitor())


# --- processes ------------------------------------------------------------------------------

PLANS = [["(pick-up soup stove)", "(move stove table)", "(put-down soup table)"], ["(move stove table)"]] * 500


def _batch(task):
    verdicts = task.validate_many(PLANS)
    return [v.valid for v in verdicts].count(True), pickle.dumps(verdicts[0])


def _child(conn, task):
    try:
        conn.send(_batch(task))
    except BaseException as e:  # the parent asserts on it
        conn.send(e)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_batch_call_works_in_a_child_after_one_in_the_parent(method):
    task = safeplan.load_task(str(SOUP / "domain.pddl"), str(SOUP / "problem.pddl"))
    expected = _batch(task)  # the parent's pool now has threads
    # The task is pickled for spawn/forkserver.
    ok, got = _in_child(method, _child, (task,), 120)
    assert ok, f"the {method} child's batch call did not return"
    assert got == expected


def _in_child(method, target, args, timeout):
    """Run `target(conn, *args)` in a child started by `method`: (answered in time, answer)."""
    ctx = mp.get_context(method)
    parent, child = ctx.Pipe()
    p = ctx.Process(target=target, args=(child, *args))
    p.start()
    ok = parent.poll(timeout)
    got = parent.recv() if ok else None
    p.join(10)
    if p.is_alive():
        p.kill()
    return ok, got


def _worker_init():
    pass


def test_a_dataloader_style_pool_of_forked_workers():
    # PyTorch's DataLoader pattern without torch: forked workers, each scoring batches.
    task = safeplan.load_task(str(SOUP / "domain.pddl"), str(SOUP / "problem.pddl"))
    task.validate_many(PLANS)
    with mp.get_context("fork").Pool(2, initializer=_worker_init) as pool:
        results = pool.map_async(_batch, [task] * 4).get(timeout=120)
    assert all(r == results[0] for r in results)


def test_the_pool_follows_the_threads_a_worker_is_given():
    code = "import safeplan, sys; sys.stdout.write(str(safeplan._safeplan._batch_threads()))"
    def threads(env):
        out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, check=True)
        return int(out.stdout)
    clean = {k: v for k, v in os.environ.items() if k not in ("RAYON_NUM_THREADS", "OMP_NUM_THREADS")}
    assert threads({"RAYON_NUM_THREADS": "3"}) == 3
    # Ray sets OMP_NUM_THREADS to a task's num_cpus.
    env = dict(clean, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert int(out.stdout) == 1
    # Otherwise the CPUs the process may run on (its affinity mask).
    if hasattr(os, "sched_setaffinity"):
        out = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], env=clean, capture_output=True, text=True)
        if out.returncode == 0:
            assert int(out.stdout) == 1


def test_the_judge_and_bench_objects_pickle_or_say_what_to_send(tmp_path):
    # Objects of data pickle and compare as the original; those tied to a process or a file
    # refuse with what to send instead.
    ep = safeplan.Episode("e1", ["(pick-up soup stove)", "(pick-up soup stove)", "(move stove table)"])
    refinement = safeplan.refine([ep], "rule")[0]
    again = pickle.loads(pickle.dumps(refinement))
    assert repr(again) == repr(refinement)
    assert again.final_plan == refinement.final_plan
    assert [repr(s) for s in again.steps] == [repr(s) for s in refinement.steps]
    for step in refinement.steps:
        assert repr(pickle.loads(pickle.dumps(step))) == repr(step)
    for round_ in refinement.rounds:
        back = pickle.loads(pickle.dumps(round_))
        assert repr(back) == repr(round_)
    c = safeplan.Critique.remove(1, "a repeated step")
    assert repr(pickle.loads(pickle.dumps(c))) == repr(c)
    out = tmp_path / "run.db"
    run = safeplan.bench(str(REPO / "examples" / "tasks"), str(out), ["search-safe:astar"])
    report = safeplan.Report.from_store(str(out))
    back = pickle.loads(pickle.dumps(report))
    assert back.to_dict() == report.to_dict()
    rate = report.planners[0].feasible
    assert (pickle.loads(pickle.dumps(rate)).rate, pickle.loads(pickle.dumps(rate)).ci_low) == (rate.rate, rate.ci_low)
    assert pickle.loads(pickle.dumps(report.planners[0])).to_dict() == report.planners[0].to_dict()
    for obj, word in [(ep, "episodes file"), (run, "results store"), (safeplan.Suite.builtin(), "suite folder")]:
        with pytest.raises(TypeError, match=word):
            pickle.dumps(obj)


def _metrics():
    flags = [(True, True, True), (True, False, False), (False, False, False)] * 50
    rates = safeplan.safety_rates(flags)
    return (rates["feasible"].rate, rates["feasible"].ci_low, rates["safe"].ci_high)


def _metrics_child(conn):
    try:
        conn.send(_metrics())
    except BaseException as e:  # the parent asserts on it
        conn.send(e)


def test_metrics_work_in_a_forked_child_after_one_call_in_the_parent():
    # Issue 45: the bootstrap ran on rayon's global pool, whose threads a forked child does
    # not have: the child's first call waited forever. It runs on the process-aware pool.
    expected = _metrics()  # the parent's pool now has threads
    ok, got = _in_child("fork", _metrics_child, (), 60)
    assert ok, "the forked child's safety_rates call did not return"
    assert got == expected
