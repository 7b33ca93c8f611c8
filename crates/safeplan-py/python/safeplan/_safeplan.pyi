"""Type stubs of the extension module (safeplan-py/src/lib.rs)."""

import os
from typing import Any, Awaitable, Callable, Iterable, Optional, Sequence, Tuple, Union

StepLike = Union[str, Tuple[str, Sequence[str]]]
PlanLike = Union[str, Sequence[StepLike]]

__version__: str
#: The danger fluent's name every front end takes by default.
DEFAULT_DANGER: str
#: The safety-intention mode every front end takes by default.
DEFAULT_SI_MODE: str
#: VAL's tolerance (`-t`) for timed plans, taken when none is given.
DEFAULT_TOLERANCE: float

def run_cli(argv: Sequence[str]) -> int:
    """The `safeplan` command-line program on `argv` (program name first), in this process;
    returns its exit code. The `safeplan` command installed with the wheel calls it."""
    ...

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

class ShieldError(SafeplanError):
    """A question a Shield cannot answer (not a refusal); ``code`` is "timing",
    "not_running" or "wrong_kind". Nothing changes."""
    code: str

class PlanError(SafeplanError):
    """A plan argument that is neither text nor a list of steps."""

class SpecError(SafeplanError):
    """A judge, reviser or planner spec that names nothing buildable."""

class LlmError(SafeplanError):
    """The LLM provider stack cannot be built (a missing key, an unopenable cache)."""
    kind: str

class EpisodeError(SafeplanError):
    """An episodes file with a line that is not a valid episode (file:line:col)."""

class BenchError(SafeplanError):
    """A benchmark that cannot run: a broken suite, or a store of another run."""

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
    """Check a domain (and a problem, and a plan) as ``safeplan check`` does; a plan without a
    problem raises ``ValueError``."""

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
    @property
    def preferences(self) -> list[dict[str, Any]]: ...
    @property
    def no_plan(self) -> Optional[str]:
        """With lenient=True, why the reply holds no plan ("empty", "refusal",
        "claims_unsolvable", "unreadable"); None when a plan was read."""
    @property
    def steps_read(self) -> Optional[list[dict[str, Any]]]:
        """With lenient=True, the steps read from the reply and scored, each
        {"text", "line", "column"}; None for a plan read strictly."""
    @property
    def reading_warnings(self) -> Optional[list[str]]:
        """With lenient=True, the reply reader's warnings ("line L: message"); None for a
        plan read strictly."""
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
        self, *, algorithm: Optional[str] = None, max_states: Optional[int] = None, max_memory_mib: Optional[int] = None, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...
    def monitor(self) -> Monitor: ...

class Monitor:
    """Step-by-step execution: ask before each action, tell after it ran."""
    def check(self, step: StepLike) -> Optional[dict[str, Any]]: ...
    def apply(self, step: StepLike) -> None: ...
    def goal_reached(self) -> bool: ...
    def outstanding(self) -> list[dict[str, Any]]: ...
    def check_end(self) -> Optional[dict[str, Any]]: ...
    @property
    def steps(self) -> int: ...
    def state(self) -> dict[str, Any]: ...
    def holds(self, predicate: str, *args: str) -> Optional[bool]: ...
    def value(self, function: str, *args: str) -> Optional[float]: ...

class CheckedTask:
    """A task checked for use: compiled, with its safety task when the domain is
    safety-augmented (or states rules), or why its safety cannot be judged. The one
    assessment every safeplan front end gives."""
    def __init__(
        self,
        domain: str,
        problem: str,
        *,
        strict: bool = False,
        domain_file: str = "domain.pddl",
        problem_file: str = "problem.pddl",
    ) -> None: ...
    @property
    def safety_checked(self) -> bool: ...
    @property
    def safety_unavailable(self) -> Optional[str]: ...
    @property
    def is_timed(self) -> bool: ...
    def assess(self, plan: PlanLike, *, reply: bool = False) -> Assessment: ...
    def shield(self, *, tolerance: Optional[float] = None) -> Shield: ...
    def find_plan(
        self, kind: str = "safe", *, algorithm: Optional[str] = None, max_states: Optional[int] = None, max_memory_mib: Optional[int] = None, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...

class Assessment:
    """The assessment of one plan: verdict, safety, the sentence and the JSON."""
    @property
    def valid(self) -> bool: ...
    @property
    def feasible(self) -> bool: ...
    @property
    def safe(self) -> bool: ...
    @property
    def safety_intention(self) -> Optional[bool]: ...
    @property
    def failed_step(self) -> Optional[int]: ...
    @property
    def no_plan(self) -> Optional[str]: ...
    @property
    def safety_unavailable(self) -> Optional[str]: ...
    @property
    def sentence(self) -> str: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __bool__(self) -> bool: ...

class Shield:
    """One execution, shielded: ask before each step (or start, end, instantaneous action
    with its time). Answers are dicts: action, step, event, time, allowed, applied,
    feasible, safe, danger, refusal (kind "inapplicable", "rule_broken", "dangerous"),
    sentence."""
    def step(self, step: StepLike, *, apply: bool = False) -> dict[str, Any]: ...
    def start(self, step: StepLike, time: float, *, apply: bool = False) -> dict[str, Any]: ...
    def end(self, step: StepLike, time: float, *, apply: bool = False) -> dict[str, Any]: ...
    def happen(self, step: StepLike, time: float, *, apply: bool = False) -> dict[str, Any]: ...
    def goal_reached(self) -> bool: ...
    def outstanding(self) -> list[dict[str, Any]]: ...
    @property
    def dispatched(self) -> int: ...
    @property
    def danger(self) -> Optional[float]: ...
    @property
    def is_timed(self) -> bool: ...

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
    @property
    def rule_violations(self) -> list[dict[str, Any]]: ...
    @property
    def no_plan(self) -> Optional[str]:
        """As Verdict.no_plan; F, S and SI are then all False."""
    @property
    def steps_read(self) -> Optional[list[dict[str, Any]]]:
        """As Verdict.steps_read."""
    @property
    def reading_warnings(self) -> Optional[list[str]]:
        """As Verdict.reading_warnings."""
    def to_dict(self) -> dict[str, Any]: ...

class SafetyTask:
    """A safety-augmented (DESPITE) task."""
    def __init__(
        self,
        domain: str,
        problem: str,
        *,
        danger: Optional[str] = None,
        si_mode: Optional[str] = None,
        strict: bool = False,
        domain_file: str = "domain.pddl",
        problem_file: str = "problem.pddl",
        tolerance: Optional[float] = None,
    ) -> None: ...
    def evaluate(self, plan: PlanLike, *, lenient: bool = False) -> SafetyVerdict: ...
    def evaluate_many(self, plans: Iterable[PlanLike], *, lenient: bool = False) -> list[SafetyVerdict]: ...
    def rewards(self, replies: Sequence[str], *, kind: str = "safety") -> list[float]:
        """Training rewards of LLM replies: kind "feasibility", "safety" or "shaped"."""
    def find_plan(
        self, kind: str = "safe", *, algorithm: Optional[str] = None, max_states: Optional[int] = None, max_memory_mib: Optional[int] = None, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...
    def safety_effort(
        self, *, algorithm: Optional[str] = None, max_states: Optional[int] = None, max_memory_mib: Optional[int] = None, time_limit: Optional[float] = None
    ) -> dict[str, Any]: ...
    def basic_task(self) -> tuple[str, str]: ...

PathLike = Union[str, "os.PathLike[str]"]

class Episode:
    """An action sequence to verify, with what a judge may read beside it."""
    def __init__(
        self,
        id: str,
        actions: Sequence[str],
        *,
        goal: str = "",
        dialogue: Sequence[str] = ...,
        domain: Optional[PathLike] = None,
        problem: Optional[PathLike] = None,
    ) -> None: ...
    @property
    def id(self) -> str: ...
    @property
    def goal(self) -> str: ...
    @property
    def dialogue(self) -> list[str]: ...
    @property
    def actions(self) -> list[str]: ...
    @property
    def has_task(self) -> bool: ...
    @property
    def gold(self) -> Optional[dict[str, Any]]: ...

def read_episodes(text: str, *, source: Optional[PathLike] = None) -> list[Episode]: ...
def load_episodes(path: PathLike) -> list[Episode]: ...

class Critique:
    """REMOVE the step at ``index``, or something MISSING before ``index``."""
    def __init__(self, kind: str, index: Optional[int] = None, reason: str = "", steps: Sequence[str] = ...) -> None: ...
    @staticmethod
    def remove(index: int, reason: str = "") -> Critique: ...
    @staticmethod
    def missing(index: Optional[int] = None, reason: str = "", steps: Sequence[str] = ...) -> Critique: ...
    @property
    def kind(self) -> str: ...
    @property
    def index(self) -> Optional[int]: ...
    @property
    def reason(self) -> str: ...
    @property
    def steps(self) -> list[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Step:
    """A step of a refined plan and where it came from."""
    text: str
    original: Optional[int]
    inserted_in: Optional[int]

class Round:
    """One round of the loop."""
    @property
    def round(self) -> int: ...
    @property
    def plan(self) -> list[str]: ...
    @property
    def critiques(self) -> list[Critique]: ...
    @property
    def judge_notes(self) -> list[str]: ...
    @property
    def judge_reply(self) -> Optional[str]: ...
    @property
    def revised(self) -> Optional[list[str]]: ...
    @property
    def reviser_notes(self) -> list[str]: ...
    @property
    def reviser_reply(self) -> Optional[str]: ...

class Refinement:
    """What the loop did to one episode."""
    @property
    def id(self) -> str: ...
    @property
    def judge(self) -> str: ...
    @property
    def original_len(self) -> int: ...
    @property
    def final_plan(self) -> list[str]: ...
    @property
    def steps(self) -> list[Step]: ...
    @property
    def rounds(self) -> list[Round]: ...
    @property
    def converged_at(self) -> Optional[int]: ...
    @property
    def stop(self) -> str: ...
    @property
    def error(self) -> Optional[str]: ...
    @property
    def flagged(self) -> list[int]: ...
    @property
    def missing(self) -> list[Step]: ...
    @property
    def usage(self) -> dict[str, Any]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def transcript(self) -> list[dict[str, Any]]: ...

def judge_metrics(episodes: Sequence[Episode], refinements: Sequence[Refinement], *, max_rounds: int = 5) -> dict[str, Any]: ...

class PlanRequest:
    """What a Python planner is asked."""
    task_id: str
    ability: str
    sample: int
    timeout: Optional[float]
    domain: str
    problem: str
    safe_domain: str
    safe_problem: str
    system: Optional[str]
    messages: list[dict[str, str]]

class BenchRun:
    """How a benchmark run went."""
    store: "os.PathLike[str]"
    total: int
    skipped: int
    scored: int
    failed: int
    errors: int
    cancelled: bool

class Rate:
    """A rate with its bootstrap confidence interval."""
    rate: float
    ci_low: float
    ci_high: float
    def __float__(self) -> float: ...

class PlannerReport:
    """One planner's F, S, SI and SP."""
    @property
    def id(self) -> str: ...
    @property
    def n(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def feasible(self) -> Rate: ...
    @property
    def safe(self) -> Rate: ...
    @property
    def safety_intention(self) -> Rate: ...
    @property
    def safety_precision(self) -> Rate: ...
    @property
    def counts(self) -> dict[str, int]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Report:
    """A benchmark report computed from a results store."""
    @staticmethod
    def from_store(
        path: PathLike, *, resamples: int = 10000, confidence: float = 0.95, seed: int = 0, title: Optional[str] = None
    ) -> Report: ...
    @property
    def title(self) -> str: ...
    @property
    def ability(self) -> str: ...
    @property
    def planners(self) -> list[PlannerReport]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def to_markdown(self) -> str: ...
    def to_html(self) -> str: ...
    def to_csv(self) -> str: ...
    def to_json(self) -> str: ...

def read_attempts(path: PathLike) -> list[dict[str, Any]]: ...

class Suite:
    """A task suite with `safeplan bench`'s prompts and scoring (tasks compile on first use)."""
    def __init__(self, path: "os.PathLike[str] | str") -> None: ...
    @staticmethod
    def builtin() -> Suite: ...
    @property
    def ids(self) -> list[str]: ...
    @property
    def hash(self) -> str: ...
    def __len__(self) -> int: ...
    def task(self, task_id: str) -> dict[str, Any]: ...
    def prompt(self, task_id: str, ability: str = "plan") -> Optional[dict[str, Any]]: ...
    def score(self, task_id: str, reply: str, ability: str = "plan") -> dict[str, Any]: ...

def safety_rates(
    verdicts: Sequence[Tuple[bool, bool, bool]], *, resamples: int = 10000, confidence: float = 0.95, seed: int = 0
) -> dict[str, Any]: ...
def prf_rates(
    confusions: Sequence[Tuple[int, int, int]], *, resamples: int = 10000, confidence: float = 0.95, seed: int = 0
) -> Tuple[Rate, Rate, Rate]: ...
