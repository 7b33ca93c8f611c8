"""Issue 44: every front end says the same thing of the same five inputs.

The inputs: a valid plan, an invalid one (a step whose precondition is false), a feasible
but unsafe one, an LLM reply with no plan, and a plan that breaks a rule of a rules task.
The front ends: Python's `CheckedTask.assess` (the library's `safeplan_validate::assess`),
bench's scoring of a reply (`Suite.score`, what a run and inspect_ai's scorer use), the C API (`safeplan_task_validate[_reply]`, through ctypes), MCP's `validate_plan` (the
official SDK over stdio) and the CLI's `validate --json`. The expectations for each input
are written by hand from the example tasks' README and metadata (what is valid, what is
feasible and safe, which step fails), and every front end is held to them and to each other:
the same sentence and JSON from C, MCP and Python, and from the CLI the same JSON with its
additions (the plan's path, diagnostics, a line and column beside each byte span).
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess

import pytest
import safeplan
from conftest import REPO, c_library

SOUP = REPO / "examples/tasks/hot-soup"
KNIFE = REPO / "examples/rules/knife-near-child"
SOUP_SAFE = (SOUP / "safe.plan").read_text()
SOUP_UNSAFE = (SOUP / "unsafe.plan").read_text()

# (name, task folder, text, read as a reply, expected: valid, feasible, safe, failed step,
# no plan).
INPUTS = [
    ("valid", SOUP, SOUP_SAFE, False, (True, True, True, None, None)),
    # Moving before picking the soup up: the put-down's precondition (holding soup) fails at
    # step 2.
    ("invalid", SOUP, "(move stove table)\n(put-down soup table)\n", False, (False, False, False, 2, None)),
    ("unsafe", SOUP, SOUP_UNSAFE, False, (False, True, False, 2, None)),
    ("no plan", SOUP, "I'm sorry, I can't help with moving hot soup.", True, (False, False, False, None, "refusal")),
    # `(always (not (and (holding-knife) (child-near))))` with the child near from the start:
    # broken by the first step, the pick-up.
    ("rule broken", KNIFE, (KNIFE / "unsafe.plan").read_text(), False, (False, True, False, 1, None)),
]


def binary() -> pathlib.Path:
    b = pathlib.Path(os.environ.get("SAFEPLAN_BIN", REPO / "target" / "debug" / "safeplan"))
    if not b.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{b} not built (cargo build -p safeplan-cli)")
        pytest.skip(f"{b} not built")
    return b


def c_says(lib, folder: pathlib.Path, text: str, reply: bool) -> tuple[str, dict]:
    task = lib.safeplan_task_new((folder / "domain.pddl").read_bytes(), (folder / "problem.pddl").read_bytes(), None)
    assert task, folder
    try:
        call = lib.safeplan_task_validate_reply if reply else lib.safeplan_task_validate
        v = call(task, text.encode(), None)
        try:
            return lib.safeplan_verdict_message(v).decode(), json.loads(lib.safeplan_verdict_json(v))
        finally:
            lib.safeplan_verdict_free(v)
    finally:
        lib.safeplan_task_free(task)


def mcp_says() -> list:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def calls():
        params = StdioServerParameters(command=str(binary()), args=["mcp"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out = []
                for _, folder, text, reply, _ in INPUTS:
                    out.append(
                        await session.call_tool(
                            "validate_plan",
                            {
                                "domain": (folder / "domain.pddl").read_text(),
                                "problem": (folder / "problem.pddl").read_text(),
                                "plan": text,
                                "lenient": reply,
                            },
                        )
                    )
                return out

    return asyncio.run(calls())


def cli_says(folder: pathlib.Path, text: str, reply: bool, tmp_path: pathlib.Path) -> dict:
    plan = tmp_path / "plan.txt"
    plan.write_text(text)
    args = [str(binary()), "validate", "--json", str(folder / "domain.pddl"), str(folder / "problem.pddl")]
    args += ["--llm-plan", str(plan)] if reply else [str(plan)]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def without_locations(value):
    """`value` without the `location` the CLI adds beside each source."""
    if isinstance(value, dict):
        return {k: without_locations(v) for k, v in value.items() if k != "location"}
    if isinstance(value, list):
        return [without_locations(v) for v in value]
    return value


def test_five_inputs_one_answer_in_every_front_end(tmp_path: pathlib.Path) -> None:
    lib = c_library()
    mcp = mcp_says()
    bench = safeplan.Suite.builtin()
    for (name, folder, text, reply, expected), over_mcp in zip(INPUTS, mcp):
        checked = safeplan.load_checked_task(folder / "domain.pddl", folder / "problem.pddl")
        ours = checked.assess(text, reply=reply)
        valid, feasible, safe, failed_step, no_plan = expected
        # Python, against the hand-written expectation.
        got = (ours.valid, ours.feasible, ours.safe, ours.failed_step, ours.no_plan)
        assert got == expected, name
        if name == "rule broken":
            assert json.loads(ours.to_json())["rule_violations"], name
        # The C API: the same sentence and the same JSON.
        message, as_json = c_says(lib, folder, text, reply)
        assert message == ours.sentence, name
        assert as_json == json.loads(ours.to_json()), name
        # MCP: the same sentence, and the same JSON with the reader's diagnostics beside it
        # (it once wrote the verdict and the whole safety verdict in a shape of its own).
        assert not over_mcp.is_error, (name, over_mcp.content[0].text)
        assert over_mcp.content[0].text == ours.sentence, name
        structured = dict(over_mcp.structured_content)
        structured.pop("reading")
        # (Key for key; the order of an MCP result's keys is the SDK's.)
        assert structured == as_json, name
        # bench (and through it inspect_ai's scorer): the same sentence of the same reply. Its
        # suites are DESPITE tasks, so the rules task is not one of them.
        if folder == SOUP:
            scored = bench.score("hot-soup", text, "plan")
            assert scored["sentence"] == ours.sentence, name
            assert (scored["verdict"]["feasible"], scored["verdict"]["safe"]) == (feasible, safe), name
        # The CLI's JSON: the library's object key for key, in the same order, with the CLI's
        # additions (the plan's path, the plan file's diagnostics, a `location` beside each
        # source) taken off.
        cli = cli_says(folder, text, reply, tmp_path)
        assert cli.pop("plan") == str(tmp_path / "plan.txt"), name
        cli.pop("diagnostics", None)
        assert without_locations(cli) == as_json, name
        assert list(without_locations(cli)) == list(as_json), name


def test_safety_that_cannot_be_judged_is_said_the_same_way_everywhere(tmp_path: pathlib.Path) -> None:
    """A task whose safety-augmented form does not compile (a precondition reads the danger
    fluent, which the basic task removes) is still validated, and every front end gives the
    same reason: the CLI's JSON is Python's and the C API's (it once had its own wording)."""
    (tmp_path / "domain.pddl").write_text(
        "(define (domain careful) (:requirements :numeric-fluents) (:predicates (done))\n"
        "  (:functions (danger))\n"
        "  (:action work :parameters () :precondition (< (danger) 1)\n"
        "    :effect (and (done) (increase (danger) 1))))\n"
    )
    (tmp_path / "problem.pddl").write_text(
        "(define (problem p) (:domain careful) (:init (= (danger) 0)) (:goal (and (done) (<= (danger) 1))))\n"
    )
    ours = safeplan.load_checked_task(tmp_path / "domain.pddl", tmp_path / "problem.pddl").assess("(work)\n")
    as_json = json.loads(ours.to_json())
    assert as_json["valid"] is True
    assert "function `danger` is not declared" in as_json["safety_unavailable"]
    message, c_json = c_says(c_library(), tmp_path, "(work)\n", False)
    assert (message, c_json) == (ours.sentence, as_json)
    cli = cli_says(tmp_path, "(work)\n", False, tmp_path)
    cli.pop("plan")
    cli.pop("diagnostics", None)
    assert without_locations(cli) == as_json


def test_defaults_are_the_librarys(tmp_path: pathlib.Path) -> None:
    """The danger fluent's name and the safety-intention mode default to the library's
    (`safeplan_validate::DEFAULT_DANGER`, `SiMode::default()`), in Python and the CLI alike:
    SEMANTICS.md names the fluent `danger`, and DESPITE's code is the default mode."""
    import inspect

    assert (safeplan.DEFAULT_DANGER, safeplan.DEFAULT_SI_MODE) == ("danger", "despite")
    # VAL's `-t` default (its Validate usage text).
    assert safeplan.DEFAULT_TOLERANCE == 0.01
    params = inspect.signature(safeplan.load_safety_task).parameters
    assert (params["danger"].default, params["si_mode"].default) == ("danger", "despite")
    domain = (SOUP / "domain.pddl").read_text()
    problem = (SOUP / "problem.pddl").read_text()
    by_default = safeplan.SafetyTask(domain, problem).evaluate(SOUP_UNSAFE).to_dict()
    named = safeplan.SafetyTask(domain, problem, danger="danger", si_mode="despite").evaluate(SOUP_UNSAFE).to_dict()
    assert by_default == named
    help_text = subprocess.run(
        [str(binary()), "validate", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "[default: despite]" in help_text
