"""Random text, bytes and wrong types thrown at every public function and method (issue 28):
only the package's own exceptions (`SafeplanError` and its kinds) and Python's for a wrong
argument type or value (`TypeError`, `ValueError`, `OverflowError`) may come out; never a crash, never a
`PanicException` (a Rust panic across the boundary, which is a `BaseException`)."""

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safeplan

REPO = pathlib.Path(__file__).resolve().parents[3]
SOUP = REPO / "examples" / "tasks" / "hot-soup"
DOMAIN = (SOUP / "domain.pddl").read_text()
PROBLEM = (SOUP / "problem.pddl").read_text()

# OverflowError: Python's own for an int out of a parameter's range (a negative index).
ALLOWED = (safeplan.SafeplanError, TypeError, ValueError, OverflowError)

# PDDL-looking fragments make the texts reach deep into the readers, not just the first `(`.
PIECES = [
    "(", ")", "(define", "(domain d)", "(:action", ":parameters", "(?x)", ":precondition",
    ":effect", "(and", "(not", "(pick-up soup stove)", "(move stove table)", "0.5:", "[1.0]",
    "?x", "-", "object", ";", "\n", " ", "```", "<think>", "</think>", "{\"plan\": [", "]}",
    "\\", "\x00", "\u00e9", "1.", "(plan", "(forall", "(preference", "(:constraints",
]
texts = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
)
anything = st.one_of(
    texts,
    st.binary(max_size=50),
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.lists(texts, max_size=5),
    st.lists(st.tuples(texts, st.lists(texts, max_size=3)), max_size=3),
    st.dictionaries(texts, texts, max_size=3),
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def no_crash(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except ALLOWED:
        pass


@pytest.fixture(scope="module")
def task():
    return safeplan.Task(DOMAIN, PROBLEM)


@pytest.fixture(scope="module")
def safety():
    return safeplan.SafetyTask(DOMAIN, PROBLEM)


@FAST
@given(a=anything, b=anything, c=anything)
def test_module_functions(a, b, c):
    no_crash(safeplan.check, a, b, c)
    no_crash(safeplan.check, a)
    no_crash(safeplan.Task, a, b)
    no_crash(safeplan.SafetyTask, a, b)
    no_crash(safeplan.check_tolerance, a)
    no_crash(safeplan.read_episodes, a)


@FAST
@given(plan=anything, lenient=st.booleans(), tolerance=st.one_of(st.none(), st.floats()))
def test_task_methods(task, plan, lenient, tolerance):
    no_crash(task.validate, plan, lenient=lenient, tolerance=tolerance)
    no_crash(task.validate_many, [plan, plan], lenient=lenient)
    no_crash(task.validate_many, plan)
    m = task.monitor()
    no_crash(m.check, plan)
    no_crash(m.apply, plan)
    no_crash(m.holds, plan if isinstance(plan, str) else "x")
    no_crash(m.value, plan if isinstance(plan, str) else "x")


@FAST
@given(plan=anything, lenient=st.booleans())
def test_safety_task_methods(safety, plan, lenient):
    no_crash(safety.evaluate, plan, lenient=lenient)
    no_crash(safety.evaluate_many, [plan], lenient=lenient)


@FAST
@given(kind=anything, index=anything, reason=anything)
def test_critiques(kind, index, reason):
    no_crash(safeplan.Critique, kind, index, reason)
    no_crash(safeplan.Critique.remove, index, reason)
    no_crash(safeplan.Critique.missing, index, reason)


# Issue 39: the functions the first fuzz pass left out.

@FAST
@given(replies=anything, kind=anything)
def test_rewards_and_safety_methods(safety, replies, kind):
    no_crash(safety.rewards, replies)
    no_crash(safety.rewards, [replies] if isinstance(replies, str) else replies, kind=kind)
    no_crash(safety.basic_task)
    if isinstance(kind, str):
        no_crash(safety.find_plan, kind, max_states=50)


@FAST
@given(a=anything, b=anything)
def test_searches_and_monitor_queries(task, safety, a, b):
    no_crash(task.find_plan, algorithm=a, max_states=50)
    no_crash(task.find_plan, max_states=b)
    no_crash(safety.safety_effort, algorithm=a, max_states=50)
    m = task.monitor()
    no_crash(m.apply, a)
    no_crash(m.outstanding)
    no_crash(m.check_end)
    if hasattr(task, "ground"):
        no_crash(task.ground, a, b)


@FAST
@given(verdicts=anything, resamples=anything, confidence=anything)
def test_metrics_functions(verdicts, resamples, confidence):
    no_crash(safeplan.safety_rates, verdicts)
    no_crash(safeplan.prf_rates, verdicts)
    if isinstance(resamples, int) and 0 <= resamples <= 200:
        no_crash(safeplan.safety_rates, verdicts, resamples=resamples, confidence=confidence)
        no_crash(safeplan.prf_rates, verdicts, resamples=resamples, confidence=confidence)
    no_crash(safeplan.safety_rates, [(True, False, True), (False, False, False)], resamples=50, confidence=confidence)
    no_crash(safeplan.prf_rates, [(1, 2, 3), (0, 0, 0)], resamples=50, confidence=confidence)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=anything)
def test_suite_loading(path):
    no_crash(safeplan.Suite, path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(episodes=anything, judge=anything, rounds=anything)
def test_refine(episodes, judge, rounds):
    no_crash(safeplan.refine, episodes, judge if isinstance(judge, str) else "state", max_rounds=rounds)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(suite=anything, planners=anything, samples=anything)
def test_bench(tmp_path_factory, suite, planners, samples):
    out = tmp_path_factory.mktemp("bench") / "run.db"
    no_crash(safeplan.bench, suite, out, planners, samples=samples)
