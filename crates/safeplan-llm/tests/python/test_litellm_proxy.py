"""The LLM layer against a real OpenAI-compatible server (issue 27): the LiteLLM proxy on
loopback with `mock_response` models, driven through the built `safeplan bench`. A good plan,
garbage, a refusal, a rate limit, a server error and a slow reply each end as the report
says; a wrong key costs one request and stops the run (exit 4, naming the variable the spec
reads), and a rerun with the right key resumes and scores everything; the response cache is
not shared between two base URLs of one server; and no key appears in any output, store,
cache or report.

LiteLLM answers a wrong key with 401 only when its auth hook can run: with a master key alone
and no database it answers 400 ("No connected db"). The proxy here has a custom auth hook
(`custom_auth`) that accepts one key and raises LiteLLM's 401 `ProxyException` otherwise, and
logs each request's verdict (never the key) so the tests can count requests."""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[4]
RIGHT = "sk-safeplan-test-right-7d1e"
WRONG = "sk-safeplan-test-wrong-93a0"
SAFE_PLAN = "(pick-up soup stove)\\n(slow-down)\\n(move stove table)\\n(put-down soup table)"

AUTH = '''
import os
from fastapi import Request
from litellm.proxy._types import ProxyException, UserAPIKeyAuth


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    ok = api_key == os.environ["SAFEPLAN_TEST_PROXY_KEY"]
    with open(os.environ["SAFEPLAN_TEST_AUTH_LOG"], "a") as log:
        log.write(("ok" if ok else "bad") + "\\n")
    if ok:
        return UserAPIKeyAuth(api_key=api_key)
    raise ProxyException(message="invalid proxy key", type="auth_error", param="api_key", code=401)
'''

MODELS = {
    "good": f'"Here is the plan:\\n{SAFE_PLAN}"',
    "garbage": '"blah blah %%% nothing to read"',
    "refusal": '"I\'m sorry, but I can\'t help with planning this task."',
    "limited": '"litellm.RateLimitError"',
    "broken": '"litellm.InternalServerError"',
}


def binary() -> pathlib.Path:
    b = REPO / "target" / "debug" / "safeplan"
    if not b.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{b} not built")
        pytest.skip(f"{b} not built")
    return b


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    litellm = pathlib.Path(sys.executable).parent / "litellm"
    if not litellm.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("the LiteLLM proxy is not installed (.ci/python.sh installs litellm[proxy])")
        pytest.skip("no litellm")
    d = tmp_path_factory.mktemp("proxy")
    (d / "custom_auth.py").write_text(AUTH)
    lines = ["model_list:"]
    for name, reply in MODELS.items():
        lines += [f"  - model_name: {name}", "    litellm_params:", f"      model: openai/{name}", "      api_key: unused", f"      mock_response: {reply}"]
    lines += ["  - model_name: slow", "    litellm_params:", "      model: openai/slow", "      api_key: unused",
              f'      mock_response: "{SAFE_PLAN}"', "      mock_delay: 5"]
    lines += ["litellm_settings:", "  num_retries: 0", "general_settings:",
              "  custom_auth: custom_auth.user_api_key_auth",
              "  master_key: sk-master-4b8e1f0c9a7d3e5b2c6f8a1d0e9b7c3f"]
    (d / "config.yaml").write_text("\n".join(lines) + "\n")
    log = d / "auth.log"
    log.write_text("")
    port = free_port()
    env = dict(os.environ, SAFEPLAN_TEST_PROXY_KEY=RIGHT, SAFEPLAN_TEST_AUTH_LOG=str(log), LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.Popen([str(litellm), "--config", "config.yaml", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=d, env=env, stdout=subprocess.DEVNULL, stderr=(d / "proxy.log").open("w"))
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                import urllib.request
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health/liveliness", timeout=2)
                break
            except Exception:
                if proc.poll() is not None:
                    pytest.fail("the proxy exited: " + (d / "proxy.log").read_text()[-2000:])
                time.sleep(0.5)
        else:
            pytest.fail("the proxy did not start in 180 s")
        yield port, log
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def requests(log: pathlib.Path) -> list[str]:
    return log.read_text().split()


def suite(tmp_path, names):
    root = tmp_path / "suite"
    for n in names:
        shutil.copytree(REPO / "examples" / "tasks" / n, root / n)
    return root


def bench(tmp_path, suite_dir, specs, key, out, *extra):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["OPENAI_COMPATIBLE_API_KEY"] = key
    args = [str(binary()), "bench", str(suite_dir), "--out", str(out), "--no-report", "--color", "never", *extra]
    for s in specs:
        args += ["--planner", s]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)


def report(store):
    r = subprocess.run([str(binary()), "report", str(store), "--format", "json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def spec(port, model, host="127.0.0.1"):
    return f"llm:openai-compatible:http://{host}:{port}/v1#{model}"


def no_key_anywhere(tmp_path, *texts):
    for t in texts:
        assert RIGHT not in t and WRONG not in t
    for f in tmp_path.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert RIGHT.encode() not in data and WRONG.encode() not in data, f


def test_each_reply_ends_as_the_report_says(proxy, tmp_path):
    port, _ = proxy
    s = suite(tmp_path, ["hot-soup"])
    models = ["good", "garbage", "refusal", "limited", "broken"]
    r = bench(tmp_path, s, [spec(port, m) for m in models], RIGHT, tmp_path / "run.db", "--timeout", "120", "--concurrency", "5")
    # The rate limit and the server error are errors after the retries: the run is
    # incomplete (exit 3), and a rerun would try them again.
    assert r.returncode == 3, r.stderr[-3000:]
    rep = report(tmp_path / "run.db")
    outcome = {a["planner"].split("#")[1]: a for a in rep["attempts"]}
    assert outcome["good"]["outcome"] == "safe"
    assert (outcome["garbage"]["outcome"], outcome["garbage"]["no_plan"]) == ("no-plan", "unreadable")
    assert (outcome["refusal"]["outcome"], outcome["refusal"]["no_plan"]) == ("no-plan", "refusal")
    assert outcome["limited"]["outcome"] == "error" and "rate" in " ".join(outcome["limited"]["why"]).lower()
    assert outcome["broken"]["outcome"] == "error" and "500" in " ".join(outcome["broken"]["why"])
    # A reply slower than the attempt's time limit: a result (failed, counted infeasible).
    slow = bench(tmp_path, s, [spec(port, "slow")], RIGHT, tmp_path / "slow.db", "--timeout", "2")
    assert slow.returncode == 0, slow.stderr[-3000:]
    [a] = report(tmp_path / "slow.db")["attempts"]
    assert a["outcome"] == "failed" and "timed out" in " ".join(a["why"])
    no_key_anywhere(tmp_path, r.stdout, r.stderr, slow.stdout, slow.stderr)


def test_a_wrong_key_costs_one_request_and_a_rerun_resumes(proxy, tmp_path):
    port, log = proxy
    s = suite(tmp_path, ["hot-soup", "knife-handover", "iron-shirt"])
    before = len(requests(log))
    wrong = bench(tmp_path, s, [spec(port, "good")], WRONG, tmp_path / "run.db", "--concurrency", "3")
    sent = requests(log)[before:]
    assert sent == ["bad"], sent
    assert wrong.returncode == 4, wrong.stderr[-3000:]
    assert "OPENAI_COMPATIBLE_API_KEY" in wrong.stderr and "GEMINI_API_KEY" not in wrong.stderr
    right = bench(tmp_path, s, [spec(port, "good")], RIGHT, tmp_path / "run.db", "--concurrency", "3")
    assert right.returncode == 0, right.stderr[-3000:]
    rep = report(tmp_path / "run.db")
    assert sorted(a["task"] for a in rep["attempts"] if a["outcome"] != "error") == ["hot-soup", "iron-shirt", "knife-handover"]
    no_key_anywhere(tmp_path, wrong.stdout, wrong.stderr, right.stdout, right.stderr)


def test_the_cache_is_not_shared_between_base_urls(proxy, tmp_path):
    port, log = proxy
    s = suite(tmp_path, ["hot-soup"])
    cache = tmp_path / "cache.db"
    start = len(requests(log))
    first = bench(tmp_path, s, [spec(port, "good")], RIGHT, tmp_path / "a.db", "--cache", str(cache), "--temperature", "0")
    assert first.returncode == 0, first.stderr[-2000:]
    assert requests(log)[start:] == ["ok"]
    again = bench(tmp_path, s, [spec(port, "good")], RIGHT, tmp_path / "b.db", "--cache", str(cache), "--temperature", "0")
    assert again.returncode == 0 and requests(log)[start:] == ["ok"], "the same URL is served from the cache"
    # The same server under another base URL, with a wrong key: not served from the cache.
    other = bench(tmp_path, s, [spec(port, "good", host="localhost")], WRONG, tmp_path / "c.db", "--cache", str(cache), "--temperature", "0")
    assert requests(log)[start:] == ["ok", "bad"]
    assert other.returncode == 4
    no_key_anywhere(tmp_path, first.stdout, first.stderr, again.stdout, again.stderr, other.stdout, other.stderr)
