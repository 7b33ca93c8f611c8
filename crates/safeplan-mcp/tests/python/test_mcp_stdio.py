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
                ("find_plan", {"domain": DOMAIN, "problem": PROBLEM, "max_states": 1}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "I'm sorry, I can't help with that.", "lenient": True}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "1. (a o1) 2. (a o2)", "lenient": True}),
                ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "I'm sorry, I can't produce a plan. An empty plan will not work.", "lenient": True}),
            ]
        )
    )
    assert init.server_info.name
    assert sorted(t.name for t in tools.tools) == ["basic_task", "check_pddl", "critique_plan", "find_plan", "refine_plan", "validate_plan"]
    assert all(t.input_schema["type"] == "object" for t in tools.tools)
    ok, short, malformed, big, lenient, plain, limited, again, refusal, one_line, refusal2 = r
    # Issue 43: every step of a line is read; a refusal mentioning the empty plan is one.
    assert one_line.structured_content["valid"] is True
    assert [s["text"] for s in one_line.structured_content["read"]["steps"]] == ["(a o1)", "(a o2)"]
    assert refusal2.structured_content["no_plan"] == "refusal"
    # A reply with no plan is a verdict of its own, never the empty plan; what the reader
    # skipped is listed.
    rv = refusal.structured_content
    assert not refusal.is_error and (rv["valid"], rv["no_plan"], rv["failure"]["kind"]) == (False, "refusal", "no_plan")
    assert refusal.structured_content["reading"] and refusal.content[0].text == "invalid (no plan in the reply: refusal)"
    assert not limited.is_error and limited.structured_content["outcome"] == {"status": "limit_reached", "limit": "states"}
    assert not ok.is_error and ok.structured_content["valid"] is True
    v = short.structured_content
    assert (v["valid"], v["failure"]["kind"], v["failure"]["message"]) == (cli["valid"], cli["failure"]["kind"], cli["failure"]["message"])
    assert malformed.is_error and "domain.pddl:2:" in malformed.content[0].text
    assert big.is_error and "over the server's limit of 4096 bytes per call" in big.content[0].text
    assert lenient.structured_content["valid"] is True
    # What was read and scored, as `validate --llm-plan --json` shows it (issue 36).
    assert lenient.structured_content["read"]["steps"] == [
        {"text": "(a o1)", "line": 2, "column": 4},
        {"text": "(a o2)", "line": 3, "column": 4},
    ]
    assert lenient.structured_content["read"]["warnings"] == ["line 1: skipped text that is not a plan step: `Sure:`"]
    assert plain.is_error and "not a safety-augmented task" in plain.content[0].text
    assert again.structured_content["valid"] is True


def test_the_builtin_suite_is_served_as_resources():
    async def run():
        params = StdioServerParameters(command=str(binary()), args=["mcp"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_resources()
                got = await session.read_resource("safeplan://tasks/hot-soup/domain.pddl")
                return listed, got

    listed, got = asyncio.run(run())
    uris = {str(r.uri) for r in listed.resources}
    assert "safeplan://tasks/hot-soup/metadata.json" in uris and len(uris) == 36 * 3
    assert got.contents[0].text == (REPO / "examples" / "tasks" / "hot-soup" / "domain.pddl").read_text()


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
    assert plain.is_error and "needs a safety task" in plain.content[0].text


def test_find_plan_searches_as_the_cli_and_python_do_by_default():
    """One default for every front end (issue 44): the library's `auto`, as `safeplan plan`
    and Python's `find_plan`, which names the search that concluded (LM-cut, on a task this
    small, so the plan is called optimal); a wrong algorithm name is a tool error that lists
    the names."""
    import safeplan

    soup = REPO / "examples" / "tasks" / "hot-soup"
    task = {"domain": (soup / "domain.pddl").read_text(), "problem": (soup / "problem.pddl").read_text()}
    _, _, (default, gbfs, wrong) = asyncio.run(
        session_calls(
            [
                ("find_plan", {**task, "kind": "safe"}),
                ("find_plan", {**task, "kind": "safe", "algorithm": "gbfs"}),
                ("find_plan", {**task, "kind": "safe", "algorithm": "dijkstra"}),
            ]
        )
    )
    python = safeplan.SafetyTask(task["domain"], task["problem"]).find_plan("safe")
    assert default.structured_content["algorithm"] == python["algorithm"] == "lmcut"
    assert default.structured_content["optimal"] is python["optimal"] is True
    assert default.structured_content["outcome"] == python["outcome"]
    assert gbfs.structured_content["algorithm"] == "gbfs"
    assert wrong.is_error and '"auto", "astar", "lmcut", "lama", "lama-anytime", "gbfs" or "bfs"' in wrong.content[0].text


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
        s = r.structured_content
        assert (s["score"], s["feasible"], s["safe"], s["safety_intention"]) == (l["score"], l["feasible"], l["safe"], l["safety_intention"]), l
    assert len(picked) > 10


# ---------------------------------------------------------------------------------------
# Streamable HTTP (loopback)
# ---------------------------------------------------------------------------------------

import contextlib
import socket
import time
import urllib.error
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(token=None):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "SAFEPLAN_MCP_TOKEN"}
    if token:
        env["SAFEPLAN_MCP_TOKEN"] = token
    proc = subprocess.Popen([str(binary()), "mcp", "--http", f"127.0.0.1:{port}"], env=env, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def http_calls(url, calls, headers=None):
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                return tools, [await session.call_tool(n, a) for n, a in calls]


def test_streamable_http_on_loopback():
    with http_server() as url:
        tools, (ok, bad, again) = asyncio.run(
            http_calls(
                url,
                [
                    ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"}),
                    ("validate_plan", {"domain": "(define", "problem": PROBLEM, "plan": "(a o1)"}),
                    ("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)"}),
                ],
            )
        )
    assert len(tools.tools) == 6
    assert ok.structured_content["valid"] is True
    assert bad.is_error and "domain.pddl:1:" in bad.content[0].text
    assert again.structured_content["failure"]["kind"] == "unsatisfied_goal"


def test_a_token_is_required_once_set():
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()
    with http_server(token="s3cret") as url:
        request = urllib.request.Request(url, data=init, method="POST", headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        assert info.value.code == 401
        body = info.value.read().decode()
        assert "bearer token" in body and "s3cret" not in body
        tools, (ok,) = asyncio.run(
            http_calls(url, [("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"})], headers={"Authorization": "Bearer s3cret"})
        )
        assert ok.structured_content["valid"] is True


def test_a_public_address_without_a_token_is_refused():
    env = {k: v for k, v in os.environ.items() if k != "SAFEPLAN_MCP_TOKEN"}
    out = subprocess.run([str(binary()), "mcp", "--http", "0.0.0.0:0"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert "not a loopback address" in out.stderr and "SAFEPLAN_MCP_TOKEN" in out.stderr


def test_paths_only_under_the_roots(tmp_path):
    """Files are read only under --root: a file there works by relative and absolute path;
    a file outside, a `..` escape and a link inside the root pointing out are refused; and
    without --root no path is accepted."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "d.pddl").write_text(DOMAIN)
    (root / "p.pddl").write_text(PROBLEM)
    (root / "ok.plan").write_text("(a o1)\n(a o2)\n")
    outside = tmp_path / "secret.pddl"
    outside.write_text(DOMAIN)
    (root / "link.pddl").symlink_to(outside)

    async def run(args, calls):
        params = StdioServerParameters(command=str(binary()), args=["mcp", *args])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return [await session.call_tool(n, a) for n, a in calls]

    paths = {"domain_path": "d.pddl", "problem_path": str(root / "p.pddl"), "plan_path": "ok.plan"}
    ok, outside_r, dotdot, link, check = asyncio.run(
        run(
            ["--root", str(root)],
            [
                ("validate_plan", paths),
                ("validate_plan", {**paths, "domain_path": str(outside)}),
                ("validate_plan", {**paths, "domain_path": "../secret.pddl"}),
                ("validate_plan", {**paths, "domain_path": "link.pddl"}),
                ("check_pddl", {"domain_path": "d.pddl", "problem_path": "p.pddl"}),
            ],
        )
    )
    assert ok.structured_content["valid"] is True
    for r in (outside_r, dotdot, link):
        assert r.is_error and "outside the directories" in r.content[0].text, r
    assert check.structured_content["errors"] == 0
    (none,) = asyncio.run(run([], [("validate_plan", paths)]))
    assert none.is_error and "without --root" in none.content[0].text


def test_one_diagnostic_code_on_every_surface(tmp_path):
    """The CLI's JSON, the MCP tool and the Python exception spell a diagnostic's code the
    same way: the CLI's kebab-case (issue 28)."""
    import safeplan

    bad = DOMAIN.replace("(q ?x) (not (p ?x))", "(r ?x) (not (p ?x))")
    (tmp_path / "d.pddl").write_text(bad)
    cli = json.loads(subprocess.run([str(binary()), "check", "--json", "d.pddl"], cwd=tmp_path, capture_output=True, text=True).stdout)
    cli_codes = [d["code"] for f in cli["files"] for d in f["diagnostics"]]
    _, _, (mcp,) = asyncio.run(session_calls([("check_pddl", {"domain": bad})]))
    mcp_codes = [d["code"] for d in mcp.structured_content["diagnostics"]]
    with pytest.raises(safeplan.ParseError) as info:
        safeplan.Task(bad, PROBLEM)
    py_codes = [d.code for d in info.value.diagnostics]
    assert cli_codes == ["undefined-predicate"], cli
    assert mcp_codes == cli_codes and py_codes == cli_codes
