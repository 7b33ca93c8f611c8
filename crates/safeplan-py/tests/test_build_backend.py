"""The wheel's build backend (build_backend/safeplan_build.py, issue 30): the arguments it
reads as maturin reads them, what it refuses before compiling anything, and the script it adds
to a wheel (its RECORD line and mode). The whole backend is exercised by the CI's own
`pip install ./crates/safeplan-py` (test_cli.py checks the result); these are the cases that
build does not reach."""

import os
import sys
import zipfile

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "crates" / "safeplan-py" / "build_backend"))
try:
    import safeplan_build
except ImportError as e:  # maturin missing: the backend imports it
    if os.environ.get("CI") == "true":
        raise
    pytest.skip(f"the build backend cannot be imported ({e}); .ci/python.sh installs maturin", allow_module_level=True)


@pytest.mark.parametrize(
    "settings, target",
    [
        ({"build-args": "--target aarch64-unknown-linux-gnu"}, "aarch64-unknown-linux-gnu"),
        ({"maturin.build-args": "--release --target=x86_64-unknown-linux-musl"}, "x86_64-unknown-linux-musl"),
        # pip passes a repeated -C build-args=... as a list.
        ({"build-args": ["--target", "armv7-unknown-linux-gnueabihf"]}, "armv7-unknown-linux-gnueabihf"),
        ({}, None),
        (None, None),
    ],
)
def test_the_target_is_read_as_maturin_reads_it(settings, target, monkeypatch):
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    assert safeplan_build.option(safeplan_build.maturin_args(settings), "--target") == target


def test_without_settings_the_environment_variable_counts(monkeypatch):
    monkeypatch.setenv("MATURIN_PEP517_ARGS", "--target riscv64gc-unknown-linux-gnu")
    assert safeplan_build.option(safeplan_build.maturin_args(None), "--target") == "riscv64gc-unknown-linux-gnu"


@pytest.mark.parametrize("args, words", [(["--zig"], "--zig"), (["--target", "universal2-apple-darwin"], "universal2")])
def test_builds_the_executable_cannot_follow_are_refused_first(args, words):
    with pytest.raises(RuntimeError, match=words):
        safeplan_build.refuse_what_cannot_be_built(args)
    safeplan_build.refuse_what_cannot_be_built(["--target", "aarch64-apple-darwin"])


def test_a_script_goes_into_the_wheel_with_its_record_line(tmp_path):
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("pkg/__init__.py", "x = 1\n")
        # A RECORD without a final newline: the new line must not be glued to the last one.
        z.writestr("pkg-1.0.dist-info/RECORD", "pkg/__init__.py,sha256=AAAA,6\npkg-1.0.dist-info/RECORD,,")
    tool = tmp_path / "tool"
    tool.write_bytes(b"abc")
    safeplan_build.add_scripts(wheel, {"tool": tool})
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        record = z.read("pkg-1.0.dist-info/RECORD").decode()
        info = z.getinfo("pkg-1.0.data/scripts/tool")
        assert z.read(info) == b"abc"
        assert z.read("pkg/__init__.py") == b"x = 1\n"
    assert sorted(names) == ["pkg-1.0.data/scripts/tool", "pkg-1.0.dist-info/RECORD", "pkg/__init__.py"]
    assert info.external_attr >> 16 == 0o100755
    # sha256("abc"), urlsafe base64 without padding, by hand (PEP 376/427).
    assert record.splitlines() == [
        "pkg/__init__.py,sha256=AAAA,6",
        "pkg-1.0.dist-info/RECORD,,",
        "pkg-1.0.data/scripts/tool,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,3",
    ]
    assert record.endswith("\n")
