"""safeplan: deterministic plan validation and DESPITE safety verdicts for PDDL.

A thin Python layer over the Rust libraries (``safeplan._safeplan``): every verdict comes
from the same code as the ``safeplan`` command-line tool.

>>> import safeplan
>>> task = safeplan.Task(domain_text, problem_text)            # doctest: +SKIP
>>> task.validate(["(pick a)", "(place a b)"]).valid           # doctest: +SKIP
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Iterable, Optional, Sequence, Union

# asyncio (and `_aio`, which needs it) is imported where used: it costs more than the rest
# of the package to import, and the `safeplan` command starts through this package.
from . import _safeplan
from ._safeplan import (
    Assessment,
    BenchError,
    CheckedTask,
    DEFAULT_DANGER,
    DEFAULT_SI_MODE,
    DEFAULT_TOLERANCE,
    Shield,
    ShieldError,
    BenchRun,
    Critique,
    Diagnostic,
    Episode,
    EpisodeError,
    LlmError,
    PlannerReport,
    PlanRequest,
    Rate,
    Refinement,
    Report,
    Round,
    SpecError,
    Monitor,
    ParseError,
    PlanError,
    SafeplanError,
    SafetyTask,
    SafetyVerdict,
    Step,
    StepError,
    Suite,
    Task,
    TaskError,
    Verdict,
    __version__,
    check,
    check_tolerance,
    judge_metrics,
    load_episodes,
    read_attempts,
    prf_rates,
    read_episodes,
    safety_rates,
)

__all__ = [
    "Assessment",
    "CheckedTask",
    "DEFAULT_DANGER",
    "DEFAULT_SI_MODE",
    "DEFAULT_TOLERANCE",
    "Shield",
    "ShieldError",
    "Suite",
    "safety_rates",
    "prf_rates",
    "BenchError",
    "BenchRun",
    "Critique",
    "Episode",
    "EpisodeError",
    "LlmError",
    "PlannerReport",
    "PlanRequest",
    "Rate",
    "Refinement",
    "Report",
    "Round",
    "SpecError",
    "Step",
    "bench",
    "bench_async",
    "judge_metrics",
    "load_episodes",
    "read_attempts",
    "read_episodes",
    "refine",
    "refine_async",
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
    "check_files",
    "check_tolerance",
    "load_task",
    "load_safety_task",
    "load_checked_task",
]

PathLike = Union[str, "os.PathLike[str]"]


def _read(path: PathLike) -> tuple[str, str]:
    # `newline=""`: the text as on disk, CRLF kept, so every span is a byte offset into the
    # file the user has (as the CLI's and the C API's are), not into a translated copy.
    with open(path, encoding="utf-8", newline="") as f:
        return f.read(), os.fspath(path)


def check_files(
    domain: PathLike,
    problem: Optional[PathLike] = None,
    plan: Optional[PathLike] = None,
    *,
    strict: bool = False,
) -> list[Diagnostic]:
    """:func:`check` on files: every diagnostic of ``safeplan check DOMAIN [PROBLEM [PLAN]]``,
    each naming its file as given.

    A file that cannot be read raises ``OSError`` (``FileNotFoundError``, ...), as ``open``
    does, and a plan without a problem ``ValueError``, as :func:`check`; what the files
    contain never raises.
    """
    d, dn = _read(domain)
    p, pn = _read(problem) if problem is not None else (None, "problem.pddl")
    pl, pln = _read(plan) if plan is not None else (None, "plan")
    return check(d, p, pl, strict=strict, domain_file=dn, problem_file=pn, plan_file=pln)


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
    danger: str = DEFAULT_DANGER,
    si_mode: str = DEFAULT_SI_MODE,
    strict: bool = False,
) -> SafetyTask:
    """Compile a :class:`SafetyTask` from a safety-augmented domain file and problem file."""
    d, dn = _read(domain)
    p, pn = _read(problem)
    return SafetyTask(
        d, p, danger=danger, si_mode=si_mode, strict=strict, domain_file=dn, problem_file=pn
    )


def _episodes(episodes: Union[Episode, Iterable[Episode]]) -> list[Episode]:
    return [episodes] if isinstance(episodes, Episode) else list(episodes)


def refine(
    episodes: Union[Episode, Iterable[Episode]],
    judge: Union[str, Callable[..., Any]] = "state",
    reviser: Union[str, Callable[..., Any]] = "auto",
    *,
    max_rounds: int = 5,
    concurrency: int = 8,
    cache: Optional[PathLike] = None,
    record: Optional[PathLike] = None,
    replay: Optional[PathLike] = None,
    on_result: Optional[Callable[[Refinement], Any]] = None,
    chat: Optional[Callable[[dict], Any]] = None,
) -> list[Refinement]:
    """Run the Judge–Planner loop over ``episodes``; one :class:`Refinement` each, in order.

    ``judge`` is a spec (``"state"``, ``"rule"``, ``"symbolic"``, ``"llm:openai:gpt-4o-mini"``,
    ``"ensemble:union:state,rule"``, ...) or a callable ``judge(episode, plan) ->
    list[Critique]`` (``plan``: the current steps as strings), plain or ``async def``.
    ``reviser`` is a spec (``"auto"``, ``"apply"``, ``"symbolic"``, ``"llm:..."``) or a callable
    ``reviser(episode, plan, critiques, round) -> list[str] | str``; its answer is checked
    against the critiques as an LLM reviser's is, so provenance is kept. ``cache``,
    ``record`` and ``replay`` are the LLM layers' response cache and cassette.
    ``on_result`` is called with each refinement as it finishes (Ctrl-C keeps those).

    ``chat`` is a model of your own for the library's LLM roles: with it, ``judge="llm"``
    (or ``"llm-json"``) and ``reviser="llm"`` send the same prompts as ``llm:PROVIDER``
    specs, and read the replies the same way, but each request goes to ``chat(request) ->
    str | dict`` (plain or ``async def``). ``request`` is a dict: ``system``, ``messages``
    (``role``, ``content``), ``temperature``, ``max_output_tokens`` and, for JSON,
    ``response_format``; the answer is the reply text or a dict with ``text`` and optionally
    ``input_tokens``, ``output_tokens``, ``finish_reason``. An exception it raises ends that
    episode with the error (no retry here: the callable keeps its own).
    """
    from . import _aio

    with _aio.LoopThread() as loop:
        return _safeplan._refine(
            _episodes(episodes), judge, reviser, submit=loop.submit,
            max_rounds=max_rounds, concurrency=concurrency, cache=cache, record=record,
            replay=replay, on_result=on_result, chat=chat,
        )


async def refine_async(
    episodes: Union[Episode, Iterable[Episode]],
    judge: Union[str, Callable[..., Any]] = "state",
    reviser: Union[str, Callable[..., Any]] = "auto",
    **options: Any,
) -> list[Refinement]:
    """:func:`refine` from ``async`` code: ``async def`` judges and revisers run on the
    caller's event loop, up to ``concurrency`` episodes at once; the loop stays free."""
    import asyncio

    from . import _aio

    loop = asyncio.get_running_loop()
    call = functools.partial(
        _safeplan._refine, _episodes(episodes), judge, reviser,
        submit=_aio.submitter(loop), **options,
    )
    return await _aio.in_thread(loop, call)


def bench(
    suite: PathLike,
    out: PathLike,
    planners: Optional[Sequence[Any]] = None,
    *,
    ability: str = "plan",
    samples: int = 1,
    concurrency: int = 4,
    timeout: Optional[float] = 300.0,
    shard: Optional[str] = None,
    temperature: Optional[float] = None,
    cache: Optional[PathLike] = None,
    record: Optional[PathLike] = None,
    replay: Optional[PathLike] = None,
    on_attempt: Optional[Callable[[dict], Any]] = None,
) -> BenchRun:
    """Run planners over a task suite into the results store ``out`` (SQLite; created,
    or resumed: attempts already in it are skipped), as ``safeplan bench`` does.

    ``planners`` holds specs (``"search:astar"``, ``"search-safe:astar"``,
    ``"llm:openai:gpt-4o-mini"``, ``"replay:FILE"``, ``"cmd:..."``), callables
    ``planner(request: PlanRequest) -> str | list | None`` (plain or ``async def``; id
    ``python:NAME``), or ``(id, callable)`` pairs; ``None`` runs the CLI's defaults.
    Read the figures with :meth:`Report.from_store`.
    """
    from . import _aio

    with _aio.LoopThread() as loop:
        return _safeplan._bench(
            suite, out, submit=loop.submit,
            planners=None if planners is None else list(planners),
            ability=ability, samples=samples, concurrency=concurrency, timeout=timeout,
            shard=shard, temperature=temperature, cache=cache, record=record, replay=replay,
            on_attempt=on_attempt,
        )


async def bench_async(
    suite: PathLike,
    out: PathLike,
    planners: Optional[Sequence[Any]] = None,
    **options: Any,
) -> BenchRun:
    """:func:`bench` from ``async`` code: ``async def`` planners run on the caller's loop."""
    import asyncio

    from . import _aio

    loop = asyncio.get_running_loop()
    call = functools.partial(
        _safeplan._bench, suite, out, submit=_aio.submitter(loop),
        planners=None if planners is None else list(planners), **options,
    )
    return await _aio.in_thread(loop, call)


def load_checked_task(domain: PathLike, problem: PathLike, *, strict: bool = False) -> CheckedTask:
    """Compile a :class:`CheckedTask` (the one assessment and shield) from a domain file and
    a problem file; diagnostics name the files as given."""
    d, dn = _read(domain)
    p, pn = _read(problem)
    return CheckedTask(d, p, strict=strict, domain_file=dn, problem_file=pn)
