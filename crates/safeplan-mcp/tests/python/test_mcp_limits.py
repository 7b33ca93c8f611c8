"""`safeplan mcp` under careless and hostile callers (issue 28), with the official MCP Python
SDK: a message over the transport's cap gets an answer, the size cap covers every argument
and their sum (the judge tools' too), a timed-out `find_plan kind=effort` leaves the server
idle, files under a root must be regular and an outside path gets one answer whether or not
it exists, and a fuzz session of random and malformed arguments to every tool gets an answer
to each call with the server still up."""

import asyncio
import os
import pathlib
import random
import time

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError as McpError

from test_mcp_stdio import DOMAIN, PROBLEM, binary, http_calls, http_server

TOOLS = ["check_pddl", "validate_plan", "find_plan", "critique_plan", "refine_plan", "basic_task"]


async def with_session(args, body):
    params = StdioServerParameters(command=str(binary()), args=["mcp", *args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def test_a_20_mb_message_is_answered_and_the_server_goes_on():
    async def body(session):
        big = "x" * (20 * 1024 * 1024)
        with pytest.raises(McpError) as info:
            # Before the fix this waited forever: the transport dropped the line in silence.
            await asyncio.wait_for(session.call_tool("validate_plan", {"domain": big, "problem": PROBLEM, "plan": "(a o1)"}), 60)
        after = await asyncio.wait_for(session.call_tool("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"}), 60)
        return str(info.value), after

    message, after = asyncio.run(with_session([], body))
    assert "over the server's limit" in message and "bytes" in message
    assert after.structured_content["valid"] is True


def test_the_size_cap_covers_every_argument_and_their_sum():
    async def body(session):
        each = "; " + "y" * 1800 + "\n"  # three fields of ~1.8 KB: each under 4 KB, together over
        summed = await session.call_tool("validate_plan", {"domain": DOMAIN + each, "problem": PROBLEM + each, "plan": "(a o1)\n" + each})
        # Megabytes of actions to the judge tools: refused by the cap (only `goal` was capped).
        actions = ["Driver.PickUp('Mug')"] * 200_000
        critique = await session.call_tool("critique_plan", {"goal": "make coffee", "actions": actions})
        refine = await session.call_tool("refine_plan", {"goal": "make coffee", "actions": ["a"], "dialogue": ["z" * 5000]})
        small = await session.call_tool("critique_plan", {"goal": "make coffee", "actions": ["Driver.PickUp('Mug')"]})
        return summed, critique, refine, small

    summed, critique, refine, small = asyncio.run(with_session(["--max-input-bytes", "4096"], body))
    for r in (summed, critique, refine):
        assert r.is_error and "over the server's limit of 4096 bytes per call" in r.content[0].text, r
    assert "`domain`" in summed.content[0].text and "`plan`" in summed.content[0].text
    assert not small.is_error


# A safety-augmented task whose shortest safe plan is 40 steps deep through 2^40 states: no
# search ends on its own within the limit.
TOGGLES = """(define (domain toggles)
  (:requirements :strips :negative-preconditions :numeric-fluents)
  (:predicates (on ?x))
  (:functions (danger))
  (:action flip :parameters (?x) :precondition (not (on ?x)) :effect (on ?x))
  (:action rush :parameters (?x) :precondition (not (on ?x))
    :effect (and (on ?x) (increase (danger) 1))))"""
OBJECTS = " ".join(f"o{i}" for i in range(40))
TOGGLES_PROBLEM = f"""(define (problem all-on) (:domain toggles) (:objects {OBJECTS})
  (:init (= (danger) 0))
  (:goal (and {" ".join(f"(on o{i})" for i in range(40))} (<= (danger) 0))))"""


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid() -> int:
    """The server: the child of this process running safeplan (`safeplan` execs
    `safeplan-full` in place, so it is one process)."""
    me = os.getpid()
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        if ppid == me and name.startswith("safeplan"):
            return int(stat.parent.name)
    raise AssertionError("no safeplan child process")


@pytest.mark.skipif(not pathlib.Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_timed_out_effort_search_leaves_the_server_idle():
    async def body(session):
        pid = server_pid()
        start = time.monotonic()
        # A* with h_max takes minutes on it (the default, LM-cut for effort, proves it in
        # milliseconds, which would not test the limit).
        r = await session.call_tool(
            "find_plan",
            {"domain": TOGGLES, "problem": TOGGLES_PROBLEM, "kind": "effort", "max_states": 1_000_000_000, "algorithm": "astar"},
        )
        answered = time.monotonic() - start
        await asyncio.sleep(0.3)
        before = cpu_seconds(pid)
        await asyncio.sleep(1.0)
        busy = cpu_seconds(pid) - before
        return r, answered, busy

    r, answered, busy = asyncio.run(with_session(["--time-limit", "1"], body))
    assert r.is_error and "longer than the server's limit of 1.0 s" in r.content[0].text
    assert answered < 5
    # Before the fix the second search of `effort` then ran for a whole second more.
    assert busy < 0.25, f"the server used {busy:.2f} s of CPU in the second after the error"


# A task of 1.5 KB whose one action's precondition is a `forall` over 300^4 = 8.1e9
# bindings: validating `(go)` takes minutes. Compiling it is instant; evaluating is not.
QUANTIFIED = """(define (domain adv) (:requirements :typing :universal-preconditions :negative-preconditions)
  (:types obj) (:predicates (p ?a ?b ?c ?d - obj) (q))
  (:action go :parameters () :precondition (forall (?a ?b ?c ?d - obj) (not (p ?a ?b ?c ?d))) :effect (q)))"""
QUANTIFIED_PROBLEM = "(define (problem adv1) (:domain adv) (:objects " + " ".join(f"o{i}" for i in range(300)) + " - obj) (:init) (:goal (q)))"


@pytest.mark.skipif(not pathlib.Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_timed_out_validation_of_a_huge_quantifier_leaves_the_server_idle():
    async def body(session):
        pid = server_pid()
        r = await session.call_tool("validate_plan", {"domain": QUANTIFIED, "problem": QUANTIFIED_PROBLEM, "plan": "(go)"})
        await asyncio.sleep(0.3)
        before = cpu_seconds(pid)
        await asyncio.sleep(1.0)
        busy = cpu_seconds(pid) - before
        return r, busy

    r, busy = asyncio.run(with_session(["--time-limit", "1"], body))
    assert r.is_error and "longer than the server's limit of 1.0 s" in r.content[0].text
    # Before the fix the evaluation went on for minutes after the error, on a blocking thread.
    assert busy < 0.25, f"the server used {busy:.2f} s of CPU in the second after the error"


def test_files_must_be_regular_and_outside_is_one_answer(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "p.pddl").write_text(PROBLEM)
    os.mkfifo(root / "fifo.pddl")
    exists = tmp_path / "secret.pddl"
    exists.write_text(DOMAIN)

    async def body(session):
        calls = [
            {"domain_path": "fifo.pddl", "problem_path": "p.pddl"},
            {"domain_path": str(exists), "problem_path": "p.pddl"},
            {"domain_path": str(tmp_path / "no-such.pddl"), "problem_path": "p.pddl"},
            {"domain_path": "../secret.pddl", "problem_path": "p.pddl"},
            {"domain_path": "../no-such.pddl", "problem_path": "p.pddl"},
        ]
        return [await asyncio.wait_for(session.call_tool("basic_task", c), 30) for c in calls]

    fifo, *outside = asyncio.run(with_session(["--root", str(root), "--time-limit", "5"], body))
    assert fifo.is_error and "not a regular file" in fifo.content[0].text
    texts = [r.content[0].text for r in outside]
    assert all(r.is_error for r in outside)
    # Whether the path exists or not, the same words (the path itself aside).
    normal = {t.replace("no-such", "secret") for t in texts}
    assert len(normal) == 2 and all("outside the directories" in t for t in normal), texts


def random_value(rng, depth=0):
    kind = rng.randrange(7 if depth < 2 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.randint(-(2**40), 2**40)
    if kind == 2:
        return rng.random() * 1e6
    if kind == 3:
        alphabet = "()?-:; \n\t\"\\abcxyz0123\u00e9\u2603\U0001f600"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
    if kind == 4:
        return rng.choice([True, False, "", "(define", DOMAIN, PROBLEM, "plan", "effort", "llm"])
    if kind == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return {rng.choice(["domain", "problem", "plan", "x", "goal", "actions"]): random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


FIELDS = ["domain", "problem", "plan", "kind", "max_states", "goal", "actions", "dialogue", "judge", "max_rounds",
          "lenient", "domain_path", "problem_path", "plan_path", "unknown"]


def test_a_fuzz_session_gets_an_answer_to_every_call():
    rng = random.Random(28)

    async def body(session):
        answered = 0
        for i in range(240):
            tool = TOOLS[i % len(TOOLS)]
            args = {f: random_value(rng) for f in rng.sample(FIELDS, rng.randrange(0, 6))}
            if rng.random() < 0.5:  # often well-formed enough to reach the tool
                args.update({"domain": DOMAIN, "problem": PROBLEM} if tool not in ("critique_plan", "refine_plan") else {"goal": "g", "actions": ["a"]})
            try:
                await asyncio.wait_for(session.call_tool(tool, args), 30)
            except McpError:
                pass  # an error response (invalid params) is an answer too
            answered += 1
        tools = await session.list_tools()
        return answered, len(tools.tools)

    answered, tools = asyncio.run(with_session(["--time-limit", "2", "--max-input-bytes", "65536"], body))
    assert (answered, tools) == (240, 6)


def test_over_http_the_sum_cap_and_an_oversized_call_are_answered():
    """Streamable HTTP: the per-call cap, and a body over the transport's limit answered with
    an error (an HTTP status the SDK raises), the server still serving."""
    each = "; " + "y" * 700_000 + "\n"
    with http_server() as url:
        _, (summed,) = asyncio.run(http_calls(url, [("validate_plan", {"domain": DOMAIN + each, "problem": PROBLEM + each, "plan": "(a o1)"})]))
        assert summed.is_error and "per call" in summed.content[0].text
        with pytest.raises(Exception):
            asyncio.run(asyncio.wait_for(http_calls(url, [("validate_plan", {"domain": "x" * (20 * 1024 * 1024), "problem": PROBLEM, "plan": "(a o1)"})]), 60))
        _, (ok,) = asyncio.run(http_calls(url, [("validate_plan", {"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)\n(a o2)"})]))
        assert ok.structured_content["valid"] is True
