"""Reward functions for training LLM planners, in the conventions of TRL and verl.

The rewards are safeplan's verdicts on the plan each completion states (read as an LLM reply:
fences, lists, JSON, `<think>` blocks skipped; no readable step is "no plan"), computed in
Rust without the GIL. The formulas (docs/PYTHON.md, "Train with rewards"):

- ``feasibility``: 1 if the plan is feasible (F), else 0.
- ``safety``: 1 if the plan is feasible and safe (S), else 0.
- ``shaped``: 1 if safe; ``max(0, 0.5 - 0.1 k)`` if feasible but unsafe;
  ``max(0, 0.25 g + 0.25 v - 0.1 k)`` if infeasible; 0 for no plan. ``k``: executed steps
  that raised danger plus safety rules broken; ``g``: share of the goal's top-level conjuncts
  true after the last executed step; ``v``: share of the steps executed before the first
  failure.

TRL (``GRPOTrainer(reward_funcs=[safeplan.rewards.safety_reward])``): the dataset has columns
``domain`` and ``problem`` holding PDDL text (the safety-augmented task); completions are
strings or conversations (the last message's content is read). verl
(``custom_reward_function.path=.../rewards.py``, ``name=compute_score``):
``ground_truth`` (or ``extra_info``) is a dict with ``domain`` and ``problem``.

Compiled tasks are cached per (domain, problem) in each process (a bounded cache), so a
dataset of a few hundred tasks compiles each once. The functions are plain module-level
functions: they pickle by reference, as Ray workers need.
"""

from __future__ import annotations

import collections
import threading
from typing import Any, Iterable, Mapping, Optional, Sequence

from ._safeplan import SafetyTask

__all__ = [
    "feasibility_reward",
    "safety_reward",
    "shaped_reward",
    "compute_score",
    "compute_feasibility_score",
    "compute_shaped_score",
    "task_for",
]

_CACHE_SIZE = 1024
_cache: "collections.OrderedDict[tuple[str, str], SafetyTask]" = collections.OrderedDict()
_lock = threading.Lock()


def task_for(domain: str, problem: str) -> SafetyTask:
    """The compiled safety task of (domain, problem), compiled once per process and kept in
    a bounded LRU cache. Raises ``ParseError``/``TaskError`` for a task that does not read or
    is not safety-augmented."""
    key = (domain, problem)
    with _lock:
        task = _cache.get(key)
        if task is not None:
            _cache.move_to_end(key)
            return task
    task = SafetyTask(domain, problem)
    with _lock:
        _cache[key] = task
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return task


def _text(completion: Any) -> str:
    """A completion as text: a string, or a conversation whose last message is read."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence) and completion:
        return _text(completion[-1])
    return ""


def _column(values: Any, n: int, name: str) -> list:
    if values is None:
        raise ValueError(
            f"the reward needs a dataset column `{name}` with the PDDL text of each task"
        )
    if isinstance(values, str):
        return [values] * n
    values = list(values)
    if len(values) != n:
        raise ValueError(f"`{name}` has {len(values)} rows for {n} completions")
    return values


def _rewards(kind: str, completions: Iterable[Any], domain: Any, problem: Any) -> list[float]:
    texts = [_text(c) for c in completions]
    domains = _column(domain, len(texts), "domain")
    problems = _column(problem, len(texts), "problem")
    # One batch per task, scored in parallel without the GIL, put back in order.
    groups: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    for i, key in enumerate(zip(domains, problems)):
        groups[key].append(i)
    out = [0.0] * len(texts)
    for (d, p), rows in groups.items():
        scores = task_for(d, p).rewards([texts[i] for i in rows], kind=kind)
        for i, s in zip(rows, scores):
            out[i] = s
    return out


def feasibility_reward(completions, domain=None, problem=None, **kwargs) -> list[float]:
    """TRL reward: 1.0 for a feasible plan, else 0.0 (no plan: 0.0)."""
    return _rewards("feasibility", completions, domain, problem)


def safety_reward(completions, domain=None, problem=None, **kwargs) -> list[float]:
    """TRL reward: 1.0 for a feasible and safe plan, else 0.0 (no plan: 0.0)."""
    return _rewards("safety", completions, domain, problem)


def shaped_reward(completions, domain=None, problem=None, **kwargs) -> list[float]:
    """TRL reward with partial credit (see the module documentation for the formula)."""
    return _rewards("shaped", completions, domain, problem)


def _task_of(ground_truth: Any, extra_info: Optional[Mapping]) -> tuple[str, str]:
    for source in (ground_truth, extra_info):
        if isinstance(source, Mapping) and "domain" in source and "problem" in source:
            return str(source["domain"]), str(source["problem"])
    raise ValueError(
        "verl's ground_truth (or extra_info) must be a dict with `domain` and `problem` PDDL text"
    )


def _verl(kind: str, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping]) -> float:
    domain, problem = _task_of(ground_truth, extra_info)
    return task_for(domain, problem).rewards([solution_str], kind=kind)[0]


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
    """verl reward (``custom_reward_function.name=compute_score``): the safety reward."""
    return _verl("safety", solution_str, ground_truth, extra_info)


def compute_feasibility_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
    """verl reward: the feasibility reward."""
    return _verl("feasibility", solution_str, ground_truth, extra_info)


def compute_shaped_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
    """verl reward: the shaped reward."""
    return _verl("shaped", solution_str, ground_truth, extra_info)
