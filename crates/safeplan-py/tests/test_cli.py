"""The `safeplan` command `pip install` puts on PATH (issue 30): the same program as the Rust
CLI. Each command line is run with the installed command and with the Cargo-built executable
(`target/debug/safeplan`, the independent expectation), and their output and exit codes are
compared; `safeplan mcp` answers the official MCP SDK. The installed `safeplan` is the native
core executable the build backend puts in the wheel (fast start-up), and hands the other
commands to the `safeplan-full` script beside it."""

import asyncio
import base64
import hashlib
import os
import pathlib
import re
import subprocess
import sysconfig

import pytest

import safeplan
from conftest import REPO

SOUP = "examples/tasks/hot-soup"


def installed() -> pathlib.Path:
    exe = pathlib.Path(sysconfig.get_path("scripts")) / "safeplan"
    assert exe.is_file(), f"pip did not install the safeplan command at {exe}"
    return exe


def cargo_built() -> pathlib.Path:
    b = REPO / "target" / "debug" / "safeplan"
    if not b.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{b} not built (cargo build -p safeplan-cli)")
        pytest.skip(f"{b} not built")
    return b


def run(exe, *args, stdin=None):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([str(exe), *args], cwd=REPO, capture_output=True, text=True, input=stdin, env=env, timeout=120)


def test_the_command_is_a_native_executable_recorded_in_the_wheel():
    exe = installed()
    head = exe.read_bytes()[:4]
    # Not a script an interpreter runs: ELF (Linux), Mach-O or PE magic.
    assert not head.startswith(b"#!"), "safeplan is a script, not the native executable"
    assert head in (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe") or head[:2] == b"MZ", head
    # The wheel's RECORD has its hash and size, as pip verified nothing else would say.
    dist = next(pathlib.Path(safeplan.__file__).parent.parent.glob("safeplan-*.dist-info"))
    blob = exe.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(blob).digest()).rstrip(b"=").decode()
    lines = [line for line in (dist / "RECORD").read_text().splitlines() if line.split(",")[0].endswith(f"/{exe.name}")]
    assert lines == [f"{lines[0].split(',')[0]},sha256={digest},{len(blob)}"]


def test_safeplan_full_runs_every_command_in_process():
    full = pathlib.Path(sysconfig.get_path("scripts")) / "safeplan-full"
    assert full.is_file(), f"pip did not install safeplan-full at {full}"
    ours, theirs = run(full, "--help"), run(cargo_built(), "--help")
    assert (ours.returncode, ours.stdout) == (0, theirs.stdout)
    args = ["validate", f"{SOUP}/domain.pddl", f"{SOUP}/problem.pddl", f"{SOUP}/unsafe.plan"]
    ours, theirs = run(full, *args), run(cargo_built(), *args)
    assert (ours.returncode, ours.stdout, ours.stderr) == (1, theirs.stdout, theirs.stderr)


def test_version_is_the_package_version():
    r = run(installed(), "--version")
    assert (r.returncode, r.stdout.strip()) == (0, f"safeplan {safeplan.__version__}")


@pytest.mark.parametrize(
    "args, code",
    [
        (["validate", f"{SOUP}/domain.pddl", f"{SOUP}/problem.pddl", f"{SOUP}/safe.plan"], 0),
        (["validate", f"{SOUP}/domain.pddl", f"{SOUP}/problem.pddl", f"{SOUP}/unsafe.plan"], 1),
        (["validate", "--json", f"{SOUP}/domain.pddl", f"{SOUP}/problem.pddl", f"{SOUP}/safe.plan", f"{SOUP}/unsafe.plan"], 1),
        (["check", f"{SOUP}/domain.pddl", f"{SOUP}/problem.pddl", f"{SOUP}/broken.plan"], 1),
        (["plan", "--json", f"{SOUP}/domain.pddl", f"{SOUP}/problem.pddl"], 0),
        (["validate", "no-such-domain.pddl", f"{SOUP}/problem.pddl"], 2),
        (["no-such-command"], 2),
    ],
)
def test_same_output_and_exit_code_as_the_rust_cli(args, code):
    ours, theirs = run(installed(), *args), run(cargo_built(), *args)
    assert ours.returncode == code
    # Timings are the one thing that differs between two runs.
    untimed = lambda text: re.sub(r'"seconds":[0-9.e-]+', '"seconds":_', text)
    assert (ours.returncode, untimed(ours.stdout), ours.stderr) == (theirs.returncode, untimed(theirs.stdout), theirs.stderr)


def test_help_lists_every_command_of_the_full_program():
    ours, theirs = run(installed(), "--help"), run(cargo_built(), "--help")
    assert ours.returncode == 0 and "mcp" in ours.stdout and "bench" in ours.stdout
    assert ours.stdout == theirs.stdout


def test_mcp_answers_tools_list_over_stdio():
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def tools():
        params = StdioServerParameters(command=str(installed()), args=["mcp"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                checked = await session.call_tool(
                    "validate_plan",
                    {
                        "domain": (REPO / SOUP / "domain.pddl").read_text(),
                        "problem": (REPO / SOUP / "problem.pddl").read_text(),
                        "plan": (REPO / SOUP / "safe.plan").read_text(),
                    },
                )
                return listed, checked

    listed, checked = asyncio.run(tools())
    names = {t.name for t in listed.tools}
    assert {"check_pddl", "validate_plan", "find_plan", "critique_plan", "refine_plan", "basic_task"} <= names
    assert not checked.is_error
    assert checked.structured_content["valid"] is True
