"""Shared fixtures: the reference corpora, found as the Rust tests find them."""

import json
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def data_dir() -> pathlib.Path:
    d = pathlib.Path(os.environ.get("SAFEPLAN_DATA", REPO.parent / "shared" / "data"))
    if (d / "ipc" / "manifest.jsonl").is_file():
        return d
    if os.environ.get("CI") == "true":
        pytest.fail(f"reference data not found at {d} (set SAFEPLAN_DATA); under CI=true this is a failure")
    pytest.skip(f"reference data not found at {d}")


@pytest.fixture(scope="session")
def data() -> pathlib.Path:
    return data_dir()


@pytest.fixture(scope="session")
def oracle(data):
    lines = (data / "despite-demo" / "oracle.jsonl").read_text().splitlines()
    return [json.loads(l) for l in lines if l.strip()]


DEMO_TASKS = [
    "neiss_11125",
    "neiss_23347",
    "neiss_2888",
    "normbank_14322",
    "normbank_14564",
    "normbank_91553",
]


def c_library():
    """The C library (`libsafeplan_c.so`, the cdylib `cargo build -p safeplan-capi` makes),
    loaded through ctypes with the signatures the tests call."""
    import ctypes

    for build in ("debug", "release"):
        path = REPO / "target" / build / "libsafeplan_c.so"
        if path.exists():
            break
    else:
        if os.environ.get("CI") == "true":
            pytest.fail("the C library is not built: .ci/python.sh builds it (cargo build -p safeplan-capi)")
        pytest.skip("the C library is not built (cargo build -p safeplan-capi)")
    lib = ctypes.CDLL(str(path))
    lib.safeplan_task_new.restype = ctypes.c_void_p
    lib.safeplan_task_new.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
    for f in (lib.safeplan_task_validate, lib.safeplan_task_validate_reply):
        f.restype = ctypes.c_void_p
        f.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    for f in (lib.safeplan_verdict_message, lib.safeplan_verdict_json):
        f.restype = ctypes.c_char_p
        f.argtypes = [ctypes.c_void_p]
    lib.safeplan_verdict_free.argtypes = [ctypes.c_void_p]
    lib.safeplan_task_free.argtypes = [ctypes.c_void_p]
    return lib
