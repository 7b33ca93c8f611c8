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
