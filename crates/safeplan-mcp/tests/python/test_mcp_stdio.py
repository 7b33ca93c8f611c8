"""`safeplan mcp` driven by the official MCP Python SDK over stdio: the tools, their
answers against the CLI's `validate --json` and DESPITE's oracle, bad calls as tool errors,
and a server that still answers afterwards."""

import asyncio
import json
import os
import pathlib
import subprocess

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = pathlib.Path(__file__).resolve().parents[4]
DOMAIN = """(define (domain d)
  (:requirements :strips)
  (:predicates (p ?x) (q ?x))
  (:action a :parameters (?x) :precondition (p ?x) :effect (and (q ?x) (not (p ?x)))))
"""
PROBLEM = "(define (problem t) (:domain d) (:objects o1 o2) (:init (p o1) (p o2)) (:goal (and (q o1) (q o2))))\n"


def binary() -> pathlib.Path:
    b = pathlib.Path(os.environ.get("SAFEPLAN_BIN", REPO / "target" / "debug" / "safeplan"))
    if not b.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{b} not built (cargo build -p safeplan-cli)")
        pytest.skip(f"{b} not built")
    return b


def data() -> pathlib.Path:
    d = pathlib.Path(os.environ.get("SAFEPLAN_DATA", REPO.parent / "shared" / "data"))
    if not (d / "despite-demo" / "oracle.jsonl").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"reference data not found at {d}")
        pytest.skip("no reference data")
    return d


async def session_calls(calls):
    params = StdioServerParameters(command=str(binary()), args=["mcp", "--max-input-bytes", "4096"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            results = [await session.call_tool(name, args) for name, args in calls]
            return init, tools, results


def test_tools_verdicts_and_errors(tmp_path):
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    (tmp_path / "short.plan").write_text("(a o1)\n")
    cli = json.loads(subprocess.run([str(binary()), "validate", "--json", "d.pddl", "p.pddl", "short.plan"], cwd=tmp_path, capture_output=True, text=True).stdout)
    init, tools, r = asyncio.run(
        session_calls(
            [
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)"}),
                ("validate_plan", {"domain": "(define (domain d)\n  (:predicates (p", "problem": PROBLEM, "plan": "(a o1)"}),
                ("check_pddl", {"domain": "x" * 5000}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "Sure:\n1. (a o1)\n2. (a o2)", "lenient": True}),
                ("basic_task", {"domain": DOMAIN, "problem": PROBLEM}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"}),
            ]
        )
    )
    assert init.server_info.name
    assert sorted(t.name for t in tools.tools) == ["basic_task", "check_pddl", "critique_plan", "find_plan", "refine_plan", "validate_plan"]
    assert all(t.input_schema["type"] == "object" for t in tools.tools)
    ok, short, malformed, big, lenient, plain, again = r
    assert not ok.is_error and ok.structured_content["verdict"]["valid"] is True
    v = short.structured_content["verdict"]
    assert (v["valid"], v["failure"]["kind"], v["failure"]["message"]) == (cli["valid"], cli["failure"]["kind"], cli["failure"]["message"])
    assert malformed.is_error and "domain.pddl:2:" in malformed.content[0].text
    assert big.is_error and "over the limit of 4096 bytes" in big.content[0].text
    assert lenient.structured_content["verdict"]["valid"] is True
    assert plain.is_error and "not safety-augmented" in plain.content[0].text
    assert again.structured_content["verdict"]["valid"] is True


def test_find_plan_on_hot_soup_matches_the_hand_count():
    """hot-soup (ours), by hand: shortest safe plan 4 steps, unsafe 3, effort 1."""
    soup = REPO / "examples" / "tasks" / "hot-soup"
    task = {"domain": (soup / "domain.pddl").read_text(), "problem": (soup / "problem.pddl").read_text()}
    _, _, (safe, unsafe, effort, plain) = asyncio.run(
        session_calls(
            [
                ("find_plan", {**task, "kind": "safe"}),
                ("find_plan", {**task, "kind": "unsafe"}),
                ("find_plan", {**task, "kind": "effort"}),
                ("find_plan", {"domain": DOMAIN, "problem": PROBLEM, "kind": "safe"}),
            ]
        )
    )
    assert len(safe.structured_content["outcome"]["plan"]) == 4
    assert unsafe.structured_content["outcome"]["plan"] == ["(pick-up soup stove)", "(move stove table)", "(put-down soup table)"]
    assert effort.structured_content["effort"] == 1
    assert plain.is_error and "safety-augmented" in plain.content[0].text


def test_the_judge_loop_over_mcp():
    """The detour to the chair is found and removed (hand-labelled, as in the CLI tests)."""
    apple = {"goal": "Put the apple in the fridge.", "actions": ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Chair')", "Driver.PickUp('Apple')", "Driver.Move(1.0)", "Driver.PutAOnB('Apple', 'Fridge')"]}
    _, _, (critique, refined) = asyncio.run(session_calls([("critique_plan", apple), ("refine_plan", apple)]))
    assert sorted(c["index"] for c in critique.structured_content["critiques"] if c["kind"] == "remove") == [1, 2]
    assert refined.structured_content["removed"] == [1, 2]
    assert refined.structured_content["stop"] == "converged"


def test_despite_oracle_over_mcp():
    demo = data() / "despite-demo"
    lines = [json.loads(l) for l in (demo / "oracle.jsonl").read_text().splitlines() if l.strip()]
    picked = [l for l in lines if "suspect" not in l][::500]
    calls = []
    for l in picked:
        t = demo / l["task"]
        calls.append(("validate_plan", {"domain": (t / "safe_domain.pddl").read_text(), "problem": (t / "safe_problem.pddl").read_text(), "plan": " ".join(l["plan"])}))
    _, _, results = asyncio.run(session_calls(calls))
    for l, r in zip(picked, results):
        s = r.structured_content["safety"]
        assert (s["score"], s["feasible"], s["safe"], s["safety_intention"]) == (l["score"], l["feasible"], l["safe"], l["safety_intention"]), l
    assert len(picked) > 10
