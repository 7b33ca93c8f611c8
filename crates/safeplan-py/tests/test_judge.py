"""The Judge–Planner loop from Python: built-in judges by spec, judges and revisers written
in Python (plain and async), LLM judges over a loopback server speaking OpenAI's wire
format, transcripts as objects, and the errors of each kind."""

import asyncio
import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import safeplan
from conftest import REPO

APPLE = {
    "id": "apple",
    "goal": "Put the apple in the fridge.",
    "actions": [
        "Driver.PickUp('Apple')",
        "Driver.PutAOnB('Apple', 'Chair')",
        "Driver.PutAOnB('Apple', 'Fridge')",
    ],
    "remove": [1],
}


def apple():
    return safeplan.read_episodes(json.dumps(APPLE))[0]


def no_chairs(episode, plan):
    """Hand rule: a step that puts something on the chair is wrong."""
    return [safeplan.Critique.remove(i, "not the goal") for i, s in enumerate(plan) if "'Chair'" in s]


def test_a_python_judge_removes_what_it_names_and_the_loop_converges():
    [r] = safeplan.refine(apple(), no_chairs)
    # Hand-computed: round 1 removes step 1, round 2 finds nothing.
    assert r.final_plan == ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Fridge')"]
    assert r.flagged == [1]
    assert r.stop == "converged" and r.converged_at == 2
    assert [x.original for x in r.steps] == [0, 2]
    first, second = r.rounds
    assert first.critiques == [safeplan.Critique.remove(1, "not the goal")]
    assert first.revised == r.final_plan and second.critiques == [] and second.revised is None
    assert r.judge == "python:no_chairs"
    # The transcript lines safeplan judge writes, one per round.
    lines = r.transcript()
    assert [l["round"] for l in lines] == [1, 2]
    assert lines[0]["critiques"] == [{"kind": "remove", "index": 1, "reason": "not the goal"}]
    assert r.to_dict()["flagged"] == [1]
    # Scored against the gold label: one true positive, nothing else.
    m = safeplan.judge_metrics([apple()], [r])
    assert (m["tp"], m["fp"], m["fn"]) == (1, 0, 0)


def test_critiques_as_dicts_and_missing_steps_inserted_by_the_apply_reviser():
    def judge(episode, plan):
        if "Driver.Open('Fridge')" in plan:
            return []
        return [{"kind": "missing", "index": 2, "reason": "open it first", "steps": ["Driver.Open('Fridge')"]}]

    [r] = safeplan.refine(apple(), judge, "apply")
    assert r.final_plan == [
        "Driver.PickUp('Apple')",
        "Driver.PutAOnB('Apple', 'Chair')",
        "Driver.Open('Fridge')",
        "Driver.PutAOnB('Apple', 'Fridge')",
    ]
    assert [s.inserted_in for s in r.missing] == [1]
    assert r.flagged == []


def test_async_judges_run_concurrently_on_a_private_loop_and_on_the_callers():
    episodes = [safeplan.Episode(f"e{i}", ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Chair')"]) for i in range(6)]
    in_flight = 0
    most = 0
    threads = set()

    async def slow_judge(episode, plan):
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        threads.add(threading.get_ident())
        await asyncio.sleep(0.05)
        in_flight -= 1
        return no_chairs(episode, plan)

    sync = safeplan.refine(episodes, no_chairs)
    refined = safeplan.refine(episodes, slow_judge, concurrency=6)
    assert [r.final_plan for r in refined] == [r.final_plan for r in sync]
    assert most > 1, "the episodes' async judges never overlapped"
    assert threading.get_ident() not in threads  # the private loop thread ran them

    threads.clear()

    async def main():
        rs = await safeplan.refine_async(episodes, slow_judge, concurrency=6)
        return rs, threading.get_ident()

    refined, caller = asyncio.run(main())
    assert [r.final_plan for r in refined] == [r.final_plan for r in sync]
    assert threads == {caller}  # on the caller's own event loop


def test_a_python_reviser_cannot_drop_an_unflagged_step():
    def greedy(episode, plan, critiques, round):
        assert [c.index for c in critiques] == [1] and round == 1
        return plan[2:]  # drops step 1 as asked, and step 0 without a critique

    [r] = safeplan.refine(apple(), no_chairs, greedy)
    assert r.final_plan == ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Fridge')"]
    assert any("dropped without a critique" in n for n in r.rounds[0].reviser_notes)


def test_a_failing_judge_ends_the_loop_and_keeps_earlier_rounds():
    calls = []

    def flaky(episode, plan):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the model is down")
        return no_chairs(episode, plan)

    [r] = safeplan.refine(apple(), flaky)
    assert r.stop == "error"
    assert "RuntimeError: the model is down" in r.error
    assert len(r.rounds) == 1 and r.final_plan == ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Fridge')"]

    [r] = safeplan.refine(apple(), lambda e, p: [safeplan.Critique.remove(7)])
    assert r.stop == "error" and "plan has 3 steps" in r.error

    [r] = safeplan.refine(apple(), lambda e, p: 42)
    assert r.stop == "error" and "list of safeplan.Critique" in r.error


def test_on_result_sees_each_episode_and_its_error_is_raised():
    seen = []
    rs = safeplan.refine([apple(), apple()], "rule", on_result=seen.append)
    assert len(seen) == 2 and {r.id for r in rs} == {"apple"}

    def boom(r):
        raise KeyError("disk full")

    with pytest.raises(KeyError):
        safeplan.refine(apple(), "state", on_result=boom)


def test_the_state_judge_matches_the_cli_on_the_teach_dev_split(data, tmp_path):
    path = data / "teach" / "judge-dev.jsonl"
    episodes = safeplan.load_episodes(path)
    refined = safeplan.refine(episodes, "state")
    metrics = safeplan.judge_metrics(episodes, refined)
    cli = subprocess.run(
        [str(REPO / "target" / "debug" / "safeplan"), "judge", str(path), "--judge", "state", "--out", str(tmp_path), "--json"],
        capture_output=True, text=True, check=True,
    )
    expected = json.loads(cli.stdout)
    for key in ("episodes", "tp", "fp", "fn", "precision", "recall"):
        assert metrics[key] == expected[key], key
    written = [json.loads(l) for l in (tmp_path / "refined.jsonl").read_text().splitlines()]
    assert {w["id"]: w["flagged"] for w in written} == {r.id: r.flagged for r in refined}


class _Completions(BaseHTTPRequestHandler):
    """A loopback server answering POST /v1/chat/completions in OpenAI's documented format:
    the first request gets a REMOVE of step 2, every later one no critique."""

    replies = []
    requests = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        content = self.replies[0] if len(self.requests) == 1 else "Every action is needed; nothing to remove or add."
        answer = {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def completions():
    _Completions.requests = []
    _Completions.replies = [
        "ACTION: 1. Driver.PickUp('Apple')\nANNOTATION: Needed.\n\n"
        "ACTION: 2. Driver.PutAOnB('Apple', 'Chair')\nANNOTATION: Not the goal. #REMOVE: wrong placement\n\n"
        "ACTION: 3. Driver.PutAOnB('Apple', 'Fridge')\nANNOTATION: Achieves the goal.\n"
    ]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Completions)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"openai-compatible:http://127.0.0.1:{server.server_port}/v1#test-model"
    server.shutdown()


def test_an_llm_judge_by_spec_over_loopback_records_and_replays(completions, tmp_path):
    cassette = tmp_path / "judge.jsonl"
    [r] = safeplan.refine(apple(), f"llm:{completions}", record=cassette)
    assert r.stop == "converged", r.error
    assert r.flagged == [1]
    assert "#REMOVE" in r.rounds[0].judge_reply
    assert r.usage["input_tokens"] == 100
    assert len(_Completions.requests) == 2
    assert _Completions.requests[0]["model"] == "test-model"
    # Replayed from the cassette: no request reaches the server, the same result.
    [again] = safeplan.refine(apple(), f"llm:{completions}", replay=cassette)
    assert len(_Completions.requests) == 2
    assert again.flagged == [1] and again.final_plan == r.final_plan


def test_bad_input_raises_its_own_exception(tmp_path, monkeypatch):
    with pytest.raises(safeplan.SpecError, match="unknown judge `oracle`"):
        safeplan.refine(apple(), "oracle")
    with pytest.raises(safeplan.SpecError, match="unknown reviser"):
        safeplan.refine(apple(), "state", "magic")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(safeplan.LlmError, match="OPENAI_API_KEY") as e:
        safeplan.refine(apple(), "llm:openai:gpt-4o-mini")
    assert e.value.kind == "config"
    with pytest.raises(ValueError, match="record and replay"):
        safeplan.refine(apple(), "state", record=tmp_path / "a", replay=tmp_path / "b")
    with pytest.raises(ValueError, match="at least 1"):
        safeplan.refine(apple(), "state", max_rounds=0)
    bad = tmp_path / "eps.jsonl"
    bad.write_text(json.dumps(APPLE) + "\n{\"id\": \"x\", \"actions\": 3}\n")
    with pytest.raises(safeplan.EpisodeError, match=r"eps.jsonl:2:\d+"):
        safeplan.load_episodes(bad)
    with pytest.raises(OSError):
        safeplan.load_episodes(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError):
        safeplan.Critique("rewrite", 1)
    with pytest.raises(TypeError, match="a judge is a spec"):
        safeplan.refine(apple(), 42)
    with pytest.raises(ValueError, match="keep the order"):
        safeplan.judge_metrics([safeplan.Episode("other", ["a"])], safeplan.refine(apple(), "state"))


def test_a_symbolic_judge_on_an_episode_bound_to_a_pddl_task():
    task = REPO / "examples" / "tasks" / "hot-soup"
    unsafe = (task / "unsafe.plan").read_text().split()
    steps = [s for s in (task / "unsafe.plan").read_text().splitlines() if s.strip().startswith("(")]
    episode = safeplan.Episode("soup", steps, domain=task / "domain.pddl", problem=task / "problem.pddl")
    assert episode.has_task and unsafe
    [r] = safeplan.refine(episode, "symbolic", "symbolic")
    # The safe reference plan of the task slows down before moving the hot soup.
    assert "(slow-down)" in r.final_plan
    assert safeplan.load_safety_task(task / "domain.pddl", task / "problem.pddl").evaluate(r.final_plan).safe


@pytest.fixture
def sigint_handled():
    """SIGINT raising KeyboardInterrupt, as at a terminal: a job a non-interactive shell
    starts in the background inherits SIGINT ignored, and `_thread.interrupt_main` then does
    nothing."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_ends_the_run_and_keeps_what_on_result_was_handed(sigint_handled):
    import _thread

    episodes = [safeplan.Episode(f"e{i}", ["Driver.PickUp('Apple')"]) for i in range(4)]
    seen = []

    # A judge of the caller's raising KeyboardInterrupt is not an episode's error: the run ends.
    def third_interrupts(episode, plan):
        if episode.id == "e2":
            raise KeyboardInterrupt
        return []

    with pytest.raises(KeyboardInterrupt):
        safeplan.refine(episodes, third_interrupts, concurrency=1, on_result=seen.append)
    assert [r.id for r in seen] == ["e0", "e1"]

    # Ctrl-C while the loop waits on an async judge (the GIL released).
    seen.clear()

    async def slow(episode, plan):
        if episode.id == "e2":
            threading.Timer(0.2, _thread.interrupt_main).start()
            await asyncio.sleep(30)
        return []

    with pytest.raises(KeyboardInterrupt):
        safeplan.refine(episodes, slow, concurrency=1, on_result=seen.append)
    assert [r.id for r in seen] == ["e0", "e1"]


def test_the_llm_roles_ask_a_chat_function_with_the_librarys_prompts():
    """`chat=`: judge "llm" and reviser "llm" are the library's LLM roles asking a Python
    callable; the requests are theirs (system prompt, numbered actions, temperature 0) and
    the replies are read as an LLM's are."""
    requests = []

    def chat(request):
        requests.append(request)
        if "Planning Agent" in request["system"]:
            return "```\n1. Driver.PickUp('Apple')\n2. Driver.PutAOnB('Apple', 'Fridge')\n```"
        if "'Chair'" in request["messages"][0]["content"]:
            text = "ACTION: 2. Driver.PutAOnB('Apple', 'Chair')\nANNOTATION: #REMOVE: the goal is the fridge."
        else:
            text = "All actions are needed."
        return {"text": text, "input_tokens": 100, "output_tokens": 7}

    [r] = safeplan.refine(apple(), "llm", "llm", chat=chat)
    assert (r.flagged, r.converged_at, r.judge) == ([1], 2, "llm:python:chat")
    assert [q["temperature"] for q in requests] == [0.0, 0.0, 0.0]
    assert "ACTIONS, numbered from 1" in requests[0]["messages"][0]["content"]
    assert "REMOVE step 2 (Driver.PutAOnB('Apple', 'Chair')): the goal is the fridge." in requests[1]["messages"][0]["content"]
    # Two judge replies counted their tokens; the reviser's plain str counted none.
    assert (r.usage["input_tokens"], r.usage["output_tokens"]) == (200, 14)
    # JSON mode asks for the library's schema.
    seen = []

    async def json_chat(request):
        seen.append(request)
        return '{"steps": [], "missing": []}'

    safeplan.refine(apple(), "llm-json", "auto", chat=json_chat)
    assert seen[0]["response_format"]["type"] == "json_schema"
    # Inside an ensemble too: the state judge and the chat judge, united.
    requests.clear()
    [r] = safeplan.refine(apple(), "ensemble:union:state,llm", "llm", chat=chat)
    assert r.flagged == [1] and requests


def test_a_chat_function_that_fails_or_answers_wrongly_ends_the_episode_with_its_error():
    def broken(request):
        raise RuntimeError("provider down")

    [r] = safeplan.refine(apple(), "llm", "auto", chat=broken)
    assert (r.stop, r.error) == (
        "error", "round 1, judge llm:python:broken: python:broken failed: RuntimeError: provider down"
    )
    [r] = safeplan.refine(apple(), "llm", "auto", chat=lambda request: 42)
    assert r.stop == "error" and "a chat function returns the reply text" in r.error
    with pytest.raises(ValueError, match="neither the judge"):
        safeplan.refine(apple(), "state", "auto", chat=lambda request: "")
    with pytest.raises(TypeError, match="chat is a callable"):
        safeplan.refine(apple(), "llm", "auto", chat="gpt-4o")
    with pytest.raises(ValueError, match="chat and replay exclude each other"):
        safeplan.refine(apple(), "llm", "auto", chat=lambda request: "", replay="x.jsonl")
    # `llm` alone without `chat`: a spec error that says what to give.
    with pytest.raises(safeplan.SpecError, match=r"judge `llm` names no model.*chat="):
        safeplan.refine(apple(), "llm", "auto")
    with pytest.raises(safeplan.SpecError, match="reviser `llm` names no model"):
        safeplan.refine(apple(), "state", "llm")
