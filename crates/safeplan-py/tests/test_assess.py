"""CheckedTask, Assessment and Shield: the one assessment and the one shield from Python.
Expectations: the CLI's documented verdicts on hot-soup (README: unsafe.plan is feasible and
unsafe at step 2), the C API's same answers (through ctypes, when the library is built), and
hand-read facts of the example tasks."""

from __future__ import annotations

import json
import os
import pathlib
import pickle
import subprocess

import pytest
import safeplan
from conftest import REPO, c_library

SOUP = REPO / "examples/tasks/hot-soup"
CARRY = REPO / "examples/temporal/hot-drink-carry"


@pytest.fixture(scope="module")
def soup() -> safeplan.CheckedTask:
    return safeplan.load_checked_task(SOUP / "domain.pddl", SOUP / "problem.pddl")


def test_the_hot_soup_plans_and_a_reply_with_no_plan(soup: safeplan.CheckedTask) -> None:
    safe = soup.assess((SOUP / "safe.plan").read_text())
    assert safe.valid and safe.feasible and safe.safe and safe.failed_step is None
    assert safe.sentence.startswith("valid (") and "; safety: feasible, safe" in safe.sentence
    unsafe = soup.assess((SOUP / "unsafe.plan").read_text())
    assert not unsafe.valid and unsafe.feasible and not unsafe.safe and unsafe.failed_step == 2
    assert "raised danger 0 -> 1 because" in str(unsafe)
    as_json = json.loads(unsafe.to_json())
    assert as_json["feasible"] is True and as_json["safe"] is False and as_json["danger_events"]
    refusal = soup.assess("I cannot help with hot soup.", reply=True)
    assert refusal.no_plan == "refusal" and not refusal and not refusal.feasible
    one_line = soup.assess("Plan: (slow-down), (pick-up soup stove), then (move stove table)", reply=True)
    assert json.loads(one_line.to_json())["read"]["steps"][2]["text"] == "(move stove table)"


def test_the_shield_refuses_the_dangerous_step_with_the_librarys_reasons(soup: safeplan.CheckedTask) -> None:
    shield = soup.shield()
    assert shield.step("(pick-up soup stove)", apply=True)["applied"]
    answer = shield.step("(move stove table)", apply=True)
    assert not answer["allowed"] and answer["feasible"] and not answer["safe"] and answer["step"] == 2
    assert answer["refusal"]["kind"] == "dangerous"
    assert "(child-in-room)" in answer["refusal"]["event"]["because"]
    assert shield.dispatched == 1 and shield.danger == 0.0
    with pytest.raises(safeplan.ShieldError) as e:
        shield.start("(pick-up soup stove)", 0.0)
    assert e.value.code == "wrong_kind"
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(shield)


def test_the_timed_shield_checks_times(soup: safeplan.CheckedTask) -> None:
    carry = safeplan.load_checked_task(CARRY / "domain.pddl", CARRY / "problem.pddl")
    assert carry.is_timed
    shield = carry.shield()
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(safeplan.ShieldError) as e:
            shield.start("(pick-up tea kitchen)", bad)
        assert e.value.code == "timing"
    with pytest.raises(safeplan.ShieldError) as e:
        shield.end("(pick-up tea kitchen)", 1.0)
    assert e.value.code == "not_running"
    assert shield.start("(pick-up tea kitchen)", 0.0, apply=True)["allowed"]
    assert shield.end("(pick-up tea kitchen)", 2.0, apply=True)["allowed"]
    answer = shield.start("(carry tea kitchen hallway)", 2.01)
    assert not answer["safe"] and answer["step"] == 2 and answer["refusal"]["event"]["because"]


def test_the_c_api_says_the_same(soup: safeplan.CheckedTask) -> None:
    """The C library's message and JSON for the same plans are the Python assessment's
    (one assessment, one sentence, one JSON)."""
    lib = c_library()
    task = lib.safeplan_task_new((SOUP / "domain.pddl").read_bytes(), (SOUP / "problem.pddl").read_bytes(), None)
    assert task
    try:
        for text, reply in (((SOUP / "unsafe.plan").read_text(), False), ("I cannot help with that.", True)):
            call = lib.safeplan_task_validate_reply if reply else lib.safeplan_task_validate
            v = call(task, text.encode(), None)
            try:
                ours = soup.assess(text, reply=reply)
                assert lib.safeplan_verdict_message(v).decode() == ours.sentence
                assert json.loads(lib.safeplan_verdict_json(v)) == json.loads(ours.to_json())
            finally:
                lib.safeplan_verdict_free(v)
    finally:
        lib.safeplan_task_free(task)


def test_spans_index_the_file_as_it_is_on_disk_with_crlf_lines(tmp_path) -> None:
    """A CRLF file's spans are byte offsets into the file as written, as the CLI's are: the
    loaders read files without newline translation (they once read with Python's universal
    newlines, so every span past line 1 was short by one byte per line above it)."""
    soup = REPO / "examples/tasks/hot-soup"
    domain = tmp_path / "domain.pddl"
    problem = tmp_path / "problem.pddl"
    domain.write_bytes((soup / "domain.pddl").read_bytes().replace(b"\n", b"\r\n"))
    problem.write_bytes((soup / "problem.pddl").read_bytes().replace(b"\n", b"\r\n"))
    # Moving before picking the soup up: put-down's precondition (holding soup) fails.
    verdict = safeplan.load_checked_task(domain, problem).assess("(move stove table)\n(put-down soup table)\n")
    failure = json.loads(verdict.to_json())["failure"]
    (unmet,) = failure["unmet"]
    span = unmet["source"]["span"]
    assert domain.read_bytes()[span["start"] : span["end"]] == b"(holding ?i)"
    assert unmet["literal"] == "(holding soup)"
    # The same span as the CLI's, which reads the bytes itself.
    binary = pathlib.Path(os.environ.get("SAFEPLAN_BIN", REPO / "target" / "debug" / "safeplan"))
    if binary.is_file():
        plan = tmp_path / "p.plan"
        plan.write_text("(move stove table)\n(put-down soup table)\n")
        done = subprocess.run([str(binary), "validate", "--json", str(domain), str(problem), str(plan)], capture_output=True, text=True)
        assert json.loads(done.stdout)["failure"]["unmet"][0]["source"]["span"] == span


def test_str_of_the_verdicts_is_the_one_printers_words(soup: safeplan.CheckedTask) -> None:
    """`str()` of a Verdict and a SafetyVerdict are the library's words, the parts of the
    one sentence (and of the CLI's `safety:` line): nothing worded in the binding."""
    unsafe = (SOUP / "unsafe.plan").read_text()
    sentence = soup.assess(unsafe).sentence
    verdict = safeplan.load_task(SOUP / "domain.pddl", SOUP / "problem.pddl").validate(unsafe)
    safety = safeplan.load_safety_task(SOUP / "domain.pddl", SOUP / "problem.pddl").evaluate(unsafe)
    assert sentence == f"{verdict}; safety: {safety}"
    # Hand-read from the README: unsafe.plan moves fast with the lid off at step 2.
    assert str(safety).startswith("feasible, UNSAFE (score 1), safety intention: no (despite mode); danger 0 -> 1")
