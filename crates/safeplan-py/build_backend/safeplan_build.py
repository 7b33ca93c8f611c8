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

import maturin
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
    return with_executable(maturin_build_wheel, wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # `pip install -e` gets the command too.
    return with_executable(maturin_build_editable, wheel_directory, config_settings, metadata_directory)


def with_executable(build, wheel_directory, config_settings, metadata_directory):
    """maturin's hook `build`, then the executable built and added to the wheel it made."""
    args = maturin_args(config_settings)
    refuse_what_cannot_be_built(args)
    name = build(wheel_directory, config_settings, metadata_directory)
    exe = build_core_executable(args)
    add_scripts(pathlib.Path(wheel_directory) / name, {exe.name: exe})
    return name


def maturin_args(config_settings) -> list:
    """The arguments maturin's own hooks give `maturin pep517 build-wheel` (from
    `--config-settings`, or `MATURIN_PEP517_ARGS`, plus the target it adds itself), read
    through maturin's functions so that the executable is built as the extension is."""
    read = getattr(maturin, "get_maturin_pep517_args", None)
    args = list(read(config_settings)) if read else shlex.split(str((config_settings or {}).get("build-args", "")))
    extra = getattr(maturin, "_additional_pep517_args", None)
    return [*(extra() if extra else []), *args]


def option(args: list, name: str):
    """The value of `name` (`--name V` or `--name=V`) in `args`, or None."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def refuse_what_cannot_be_built(args: list) -> None:
    """Before any compilation: refuse the builds whose executable could not be built as
    maturin builds the extension: a zig-linked build (the executable would link this host's C
    library under the wheel's older-glibc tag) and macOS's universal2 (two architectures in
    one file)."""
    if "--zig" in args:
        raise RuntimeError("safeplan's build backend cannot add the native `safeplan` executable to a --zig build (it would link this host's glibc under the wheel's manylinux tag); build the wheel in a manylinux container instead")
    target = option(args, "--target")
    if target and target.startswith("universal2"):
        raise RuntimeError("safeplan's build backend builds the native `safeplan` executable for one architecture; build one wheel per architecture instead of universal2")


def build_core_executable(args: list) -> pathlib.Path:
    """Build `safeplan-cli`'s `safeplan` binary for the target maturin built the extension
    for (`--target` in `args`, or the host); return its path."""
    target = option(args, "--target")
    # maturin installs Rust into a temporary directory when cargo is missing; its hooks give
    # that environment to their own subprocess only.
    env = (getattr(maturin, "_get_env", lambda: None)() or dict(os.environ))
    cargo = env.get("CARGO", "cargo")
    command = [
        cargo, "rustc", "-p", "safeplan-cli", "--profile", PROFILE,
        "--bin", "safeplan", "--message-format=json-render-diagnostics",
        *(["--target", target] if target else []),
        # Symbols out, as maturin's `strip = true` does for the extension; given to the
        # executable's own compilation only, so the libraries' artefacts stay shared.
        "--", "-C", "strip=symbols",
    ]
    print("safeplan build: " + " ".join(command), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(command, cwd=HERE, env=env, stdout=subprocess.PIPE, check=False)
    except OSError as e:
        raise RuntimeError(f"could not run cargo ({cargo}) to build the safeplan executable: {e}") from e
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
        if record and not record.endswith("\n"):
            record += "\n"
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
