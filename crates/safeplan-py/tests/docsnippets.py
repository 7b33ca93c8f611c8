"""The Python snippets of a docs/PYTHON.md section, run as a user would paste them (from the
repository root), so the documentation cannot drift from the package."""

import os
import re

from conftest import REPO


def snippets(section: str) -> list[str]:
    text = (REPO / "docs" / "PYTHON.md").read_text()
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    return re.findall(r"^```python\n(.*?)^```$", body, re.S | re.M)


def run(section: str) -> int:
    """Runs every snippet of `section`; returns how many ran."""
    found = snippets(section)
    assert found, f"docs/PYTHON.md has no Python snippet under `## {section}`"
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for code in found:
            exec(compile(code, f"docs/PYTHON.md ({section})", "exec"), {"__name__": "__doc__"})
    finally:
        os.chdir(cwd)
    return len(found)
