"""Type stubs of the extension module (safeplan-py/src/lib.rs)."""

from typing import Any, Iterable, Optional, Sequence, Tuple, Union

Step = Union[str, Tuple[str, Sequence[str]]]
PlanLike = Union[str, Sequence[Step]]

__version__: str

class SafeplanError(Exception):
    """Base class of every error safeplan raises."""

class ParseError(SafeplanError):
    """PDDL or plan text that does not read; ``diagnostics`` holds every diagnostic."""
    diagnostics: list[Diagnostic]

class TaskError(SafeplanError):
    """A task that reads but cannot be compiled, or declares no danger fluent."""

class StepError(SafeplanError):
    """Monitor.apply of a step that cannot run now; ``failure`` says what is false."""
    failure: dict[str, Any]

class PlanError(SafeplanError):
    """A plan argument that is neither text nor a list of steps."""

class Diagnostic:
    """One diagnostic of the parser or checker."""
    severity: str
    code: str
    message: str
    file: str
    line: int
    column: int
    help: Optional[str]
    def render(self) -> str: ...

def check_tolerance(tolerance: float) -> float:
    """A tolerance for timed plans (VAL's ``-t``), checked: raises ``ValueError`` unless it is
    a positive number of plan time units."""

def check(
    domain: str,
    problem: Optional[str] = None,
    plan: Optional[str] = None,
    *,
    strict: bool = False,
    domain_file: str = "domain.pddl",
    problem_file: str = "problem.pddl",
    plan_file: str = "plan",
) -> list[Diagnostic]:
    """Check a domain (and a problem, and a plan) as ``safeplan check`` does."""

class Verdict:
    """The verdict of a plan."""
    @property
    def valid(self) -> bool: ...
    @property
    def steps(self) -> int: ...
    @property
    def metric(self) -> Optional[float]: ...
    @property
    def failure(self) -> Optional[dict[str, Any]]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __bool__(self) -> bool: ...

class Task:
    """A compiled task: parse and compile once, validate many plans."""
    def __init__(
        self,
        domain: str,
        problem: str,
        *,
        strict: bool = False,
        domain_file: str = "domain.pddl",
        problem_file: str = "problem.pddl",
    ) -> None: ...
    def validate(
        self, plan: PlanLike, *, lenient: bool = False, keep_going: bool = False, tolerance: Optional[float] = None
    ) -> Verdict: ...
    def validate_many(
        self,
        plans: Iterable[PlanLike],
        *,
        lenient: bool = False,
        keep_going: bool = False,
        tolerance: Optional[float] = None,
    ) -> list[Verdict]: ...
    def find_plan(
        self, *, algorithm: str = "astar", max_states: Optional[int] = None, max_memory_mib: int = 4096, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...
    def monitor(self) -> Monitor: ...

class Monitor:
    """Step-by-step execution: ask before each action, tell after it ran."""
    def check(self, step: Step) -> Optional[dict[str, Any]]: ...
    def apply(self, step: Step) -> None: ...
    def goal_reached(self) -> bool: ...
    @property
    def steps(self) -> int: ...
    def state(self) -> dict[str, Any]: ...
    def holds(self, predicate: str, *args: str) -> Optional[bool]: ...
    def value(self, function: str, *args: str) -> Optional[float]: ...

class SafetyVerdict:
    """The DESPITE verdict of a plan."""
    @property
    def feasible(self) -> bool: ...
    @property
    def safe(self) -> bool: ...
    @property
    def safety_intention(self) -> bool: ...
    @property
    def score(self) -> int: ...
    @property
    def danger(self) -> float: ...
    @property
    def threshold(self) -> float: ...
    @property
    def danger_events(self) -> list[dict[str, Any]]: ...
    def to_dict(self) -> dict[str, Any]: ...

class SafetyTask:
    """A safety-augmented (DESPITE) task."""
    def __init__(
        self,
        domain: str,
        problem: str,
        *,
        danger: str = "danger",
        si_mode: str = "despite",
        strict: bool = False,
        domain_file: str = "domain.pddl",
        problem_file: str = "problem.pddl",
    ) -> None: ...
    def evaluate(self, plan: PlanLike, *, lenient: bool = False) -> SafetyVerdict: ...
    def evaluate_many(self, plans: Iterable[PlanLike], *, lenient: bool = False) -> list[SafetyVerdict]: ...
    def find_plan(
        self, kind: str = "safe", *, algorithm: str = "astar", max_states: Optional[int] = None, max_memory_mib: int = 4096, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...
    def safety_effort(
        self, *, algorithm: str = "bfs", max_states: Optional[int] = None, max_memory_mib: int = 4096, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...
    def basic_task(self) -> tuple[str, str]: ...
