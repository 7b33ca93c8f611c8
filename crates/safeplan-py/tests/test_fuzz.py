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
