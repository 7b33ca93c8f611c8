"""safeplan: deterministic plan validation and DESPITE safety verdicts for PDDL.

A thin Python layer over the Rust libraries (``safeplan._safeplan``): every verdict comes
from the same code as the ``safeplan`` command-line tool.

>>> import safeplan
>>> task = safeplan.Task(domain_text, problem_text)            # doctest: +SKIP
>>> task.validate(["(pick a)", "(place a b)"]).valid           # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Union

from ._safeplan import (
    Diagnostic,
    Monitor,
    ParseError,
    PlanError,
    SafeplanError,
    SafetyTask,
    SafetyVerdict,
    StepError,
    Task,
    TaskError,
    Verdict,
    __version__,
    check,
    check_tolerance,
)

__all__ = [
    "Diagnostic",
    "Monitor",
    "StepError",
    "ParseError",
    "PlanError",
    "SafeplanError",
    "SafetyTask",
    "SafetyVerdict",
    "Task",
    "TaskError",
    "Verdict",
    "__version__",
    "check",
    "check_tolerance",
    "load_task",
    "load_safety_task",
]

PathLike = Union[str, "os.PathLike[str]"]


def _read(path: PathLike) -> tuple[str, str]:
    with open(path, encoding="utf-8") as f:
        return f.read(), os.fspath(path)


def load_task(domain: PathLike, problem: PathLike, *, strict: bool = False) -> Task:
    """Compile a :class:`Task` from a domain file and a problem file.

    Diagnostics and error messages name the files as given.
    """
    d, dn = _read(domain)
    p, pn = _read(problem)
    return Task(d, p, strict=strict, domain_file=dn, problem_file=pn)


def load_safety_task(
    domain: PathLike,
    problem: PathLike,
    *,
    danger: str = "danger",
    si_mode: str = "despite",
    strict: bool = False,
) -> SafetyTask:
    """Compile a :class:`SafetyTask` from a safety-augmented domain file and problem file."""
    d, dn = _read(domain)
    p, pn = _read(problem)
    return SafetyTask(
        d, p, danger=danger, si_mode=si_mode, strict=strict, domain_file=dn, problem_file=pn
    )
