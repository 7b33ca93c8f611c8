"""The wheel's build backend: maturin, plus the native `safeplan` executable.

maturin builds the Python extension, but a wheel it builds cannot also carry one of the
workspace's executables (PyO3/maturin#368). The `safeplan` command is started once per plan
by robot stacks and benchmark scripts, and run through a Python interpreter it starts 20 times
slower than natively (docs/benchmarks.md, "The pip-installed command"). So this backend lets
maturin build the wheel, then builds the CLI's core executable (`safeplan-cli`'s `safeplan`
binary: check, validate, basic, validate-suite, plan) with the same Cargo profile and target
directory — the libraries it links were compiled for the extension already, so this adds the
executable's own code and one link — and adds it to the wheel as a script
(`<name>.data/scripts/`, which installers copy onto PATH unchanged), with its line in RECORD.

Every other command (`mcp`, `bench`, `judge`, `--help`...) the native `safeplan` hands, by
`exec`, to `safeplan-full` beside it: in the wheel that is the console script
`safeplan._cli:main`, the whole CLI run in process by the extension module.

Everything else (metadata, the sdist) is maturin's own; an editable install gets the
executable as a wheel does.
"""

import base64
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys
import zipfile

from maturin import (  # noqa: F401  (re-exported: the PEP 517 hooks this backend leaves to maturin)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)
from maturin import build_editable as maturin_build_editable
from maturin import build_wheel as maturin_build_wheel

# The directory of pyproject.toml: crates/safeplan-py in the repository, the root of an sdist
# (where maturin writes the workspace's Cargo.toml). Cargo finds the workspace from either.
HERE = pathlib.Path(__file__).resolve().parent.parent
# The profile of `[tool.maturin] profile` in pyproject.toml: the same one, so Cargo reuses the
# libraries the extension's build compiled.
PROFILE = "release"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = maturin_build_wheel(wheel_directory, config_settings, metadata_directory)
    exe = build_core_executable(target_of(config_settings))
    add_scripts(pathlib.Path(wheel_directory) / name, {exe.name: exe})
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # `pip install -e` gets the command too.
    name = maturin_build_editable(wheel_directory, config_settings, metadata_directory)
    exe = build_core_executable(target_of(config_settings))
    add_scripts(pathlib.Path(wheel_directory) / name, {exe.name: exe})
    return name


def target_of(config_settings) -> "str | None":
    """The target triple maturin was asked to build for (`--config-settings
    build-args="--target T"`), so that the executable is built for the same one."""
    args = shlex.split(str((config_settings or {}).get("build-args", "")))
    for i, arg in enumerate(args):
        if arg == "--target" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--target="):
            return arg.split("=", 1)[1]
    return None


def build_core_executable(target=None) -> pathlib.Path:
    """Build `safeplan-cli`'s `safeplan` binary (for `target`, or the host); return its path."""
    cargo = os.environ.get("CARGO", "cargo")
    command = [
        cargo, "rustc", "-p", "safeplan-cli", "--profile", PROFILE,
        "--bin", "safeplan", "--message-format=json-render-diagnostics",
        *(["--target", target] if target else []),
        # Symbols out, as maturin's `strip = true` does for the extension; given to the
        # executable's own compilation only, so the libraries' artefacts stay shared.
        "--", "-C", "strip=symbols",
    ]
    print("safeplan build: " + " ".join(command), file=sys.stderr, flush=True)
    done = subprocess.run(command, cwd=HERE, stdout=subprocess.PIPE, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"building the safeplan executable failed (cargo exit {done.returncode}); cargo's messages are above")
    for line in done.stdout.decode().splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("reason") == "compiler-artifact" and message.get("executable") and message["target"]["name"] == "safeplan":
            return pathlib.Path(message["executable"])
    raise RuntimeError("cargo built no safeplan executable (no compiler-artifact message named it)")


def add_scripts(wheel: pathlib.Path, scripts: dict) -> None:
    """Add each file of `scripts` (wheel name -> path) to the wheel's `.data/scripts/` as an
    executable, and its hash to RECORD (PEP 427, PEP 376)."""
    partial = wheel.with_name(wheel.name + ".partial")
    with zipfile.ZipFile(wheel) as old, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as new:
        record_info = next(i for i in old.infolist() if i.filename.endswith(".dist-info/RECORD"))
        dist_info = record_info.filename.split("/")[0]
        data = dist_info[: -len(".dist-info")] + ".data"
        for info in old.infolist():
            if info is not record_info:
                new.writestr(info, old.read(info))
        record = old.read(record_info).decode()
        for name, path in scripts.items():
            blob = pathlib.Path(path).read_bytes()
            info = zipfile.ZipInfo(f"{data}/scripts/{name}", date_time=record_info.date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100755 << 16
            new.writestr(info, blob)
            digest = base64.urlsafe_b64encode(hashlib.sha256(blob).digest()).rstrip(b"=").decode()
            record += f"{info.filename},sha256={digest},{len(blob)}\n"
        new.writestr(record_info, record)
    os.replace(partial, wheel)
