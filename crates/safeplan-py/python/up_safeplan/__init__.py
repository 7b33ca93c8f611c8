"""safeplan as unified-planning engines: ``OneshotPlanner(name="safeplan")`` and
``PlanValidator(name="safeplan")`` for sequential problems, and
``PlanValidator(name="safeplan-validator")`` for temporal ones too.

UP gives one ``supported_kind`` per engine and checks it for every operation the engine
offers, so an engine that both plans and validates may declare only what it can do for
both. safeplan validates temporal plans but plans sequentially only; so ``safeplan``
(validator and one-shot planner) declares exactly what ``solve`` supports, and
``safeplan-validator`` (validator only) adds durative actions. ``PlanValidator(
problem_kind=problem.kind)`` finds the right one.

The engine writes the UP problem and plan as PDDL (UP's own ``PDDLWriter``) and validates
them with :class:`safeplan.Task` — the same verdicts as the ``safeplan`` CLI, at its speed.
As a one-shot planner it runs safeplan's default search (``auto``: LM-cut for a tenth of
the timeout, then LAMA; ``metrics["algorithm"]`` and ``metrics["optimal"]`` say which
concluded, ``metrics["measure"]`` whether plans are measured in steps or by the metric's
action costs, ``metrics["cost"]`` the plan's cost in it) on the same PDDL and reads the plan
back into UP objects; it promises satisficing plans only (LAMA's plan is not necessarily
optimal). An action-cost metric of whole numbers is minimized by LM-cut; other metrics are
not, and ``metrics["metric_ignored"]`` says why.
Importing this module registers the engine with UP's environment factory; the package also
declares it as a ``unified_planning.engines`` entry point.

Supported problems: classical problems with sequential plans — flat or hierarchical typing,
negative, disjunctive, equality, existential and universal conditions, conditional effects,
static and simple numeric fluents as PDDL 2.1 writes them, and a plan-length or action-cost
metric — and, for validation, temporal problems of durative actions (conditions and effects
at start, over all and at end, durations from fluents, duration inequalities) with UP's
``TimeTriggeredPlan``, checked as VAL checks them; the engine option ``tolerance`` is VAL's
``-t`` (default 0.01): ``PlanValidator(name="safeplan", params={"tolerance": 0.001})``. Not
supported: timed effects and goals, intermediate conditions, processes and events,
hierarchical (HTN) and multi-agent problems; planning for temporal problems.
"""

from __future__ import annotations

import collections
import threading
from typing import Optional

import unified_planning as up
from unified_planning.engines import (
    Credits,
    Engine,
    LogLevel,
    LogMessage,
    ValidationResult,
    ValidationResultStatus,
)
from unified_planning.engines.mixins.oneshot_planner import OneshotPlannerMixin
from unified_planning.engines.mixins.plan_validator import PlanValidatorMixin
from unified_planning.engines.results import (
    FailedValidationReason,
    PlanGenerationResult,
    PlanGenerationResultStatus,
)
from unified_planning.io import PDDLWriter
from unified_planning.model import ProblemKind

import safeplan

__all__ = ["SafeplanEngine", "SafeplanValidator", "register"]

_CREDITS = Credits(
    "safeplan",
    "the safeplan authors",
    "",
    "",
    "MIT OR Apache-2.0",
    "Deterministic PDDL plan validation with DESPITE safety verdicts, in Rust.",
    "Validates sequential plans of classical PDDL problems with safeplan's validator.",
)


def _planning_kind() -> ProblemKind:
    """What ``solve`` supports (and validation too): sequential problems."""
    kind = ProblemKind(version=2)
    kind.set_problem_class("ACTION_BASED")
    kind.set_problem_type("SIMPLE_NUMERIC_PLANNING")
    kind.set_problem_type("GENERAL_NUMERIC_PLANNING")
    kind.set_typing("FLAT_TYPING")
    kind.set_typing("HIERARCHICAL_TYPING")
    kind.set_conditions_kind("NEGATIVE_CONDITIONS")
    kind.set_conditions_kind("DISJUNCTIVE_CONDITIONS")
    kind.set_conditions_kind("EQUALITIES")
    kind.set_conditions_kind("EXISTENTIAL_CONDITIONS")
    kind.set_conditions_kind("UNIVERSAL_CONDITIONS")
    kind.set_effects_kind("CONDITIONAL_EFFECTS")
    kind.set_effects_kind("INCREASE_EFFECTS")
    kind.set_effects_kind("DECREASE_EFFECTS")
    kind.set_effects_kind("STATIC_FLUENTS_IN_NUMERIC_ASSIGNMENTS")
    kind.set_effects_kind("FLUENTS_IN_NUMERIC_ASSIGNMENTS")
    kind.set_fluents_type("INT_FLUENTS")
    kind.set_fluents_type("REAL_FLUENTS")
    kind.set_numbers("BOUNDED_TYPES")
    # PDDL3 trajectory constraints (UP expresses always, sometime, sometime-before,
    # sometime-after and at-most-once), checked state by state as VAL checks them, and kept
    # by the planner's search.
    kind.set_constraints_kind("STATE_INVARIANTS")
    kind.set_constraints_kind("TRAJECTORY_CONSTRAINTS")
    kind.set_quality_metrics("PLAN_LENGTH")
    kind.set_quality_metrics("ACTIONS_COST")
    # Action costs are written as `(increase (total-cost) e)`: any numeric expression.
    kind.set_actions_cost_kind("INT_NUMBERS_IN_ACTIONS_COST")
    kind.set_actions_cost_kind("REAL_NUMBERS_IN_ACTIONS_COST")
    kind.set_actions_cost_kind("STATIC_FLUENTS_IN_ACTIONS_COST")
    kind.set_actions_cost_kind("FLUENTS_IN_ACTIONS_COST")
    kind.set_quality_metrics("FINAL_VALUE")
    return kind


def _validation_kind() -> ProblemKind:
    """What validation supports: sequential problems, and temporal ones (durative actions,
    as VAL runs them)."""
    kind = _planning_kind()
    kind.set_time("CONTINUOUS_TIME")
    kind.set_time("DURATION_INEQUALITIES")
    kind.set_time("SELF_OVERLAPPING")
    kind.set_expression_duration("STATIC_FLUENTS_IN_DURATIONS")
    kind.set_expression_duration("FLUENTS_IN_DURATIONS")
    kind.set_expression_duration("INT_TYPE_DURATIONS")
    kind.set_expression_duration("REAL_TYPE_DURATIONS")
    return kind


class _Validating:
    """The validation both engines share: the UP problem and plan written as PDDL and
    judged by :class:`safeplan.Task`."""

    _tolerance: Optional[float] = None

    def _take_options(self, options: "dict[str, object]") -> None:
        tolerance = options.pop("tolerance", None)
        if options:
            raise up.exceptions.UPUsageError(
                f"the safeplan engine takes only the option `tolerance`, got {sorted(options)}"
            )
        if tolerance is not None:
            try:
                self._tolerance = safeplan.check_tolerance(tolerance)
            except (TypeError, ValueError) as e:
                raise up.exceptions.UPUsageError(str(e)) from None

    @staticmethod
    def get_credits(**kwargs: object) -> Optional[Credits]:
        return _CREDITS

    @staticmethod
    def supports_plan(plan_kind: "up.plans.PlanKind") -> bool:
        return plan_kind in (
            up.plans.PlanKind.SEQUENTIAL_PLAN,
            up.plans.PlanKind.TIME_TRIGGERED_PLAN,
        )

    def _task(self, problem: "up.model.AbstractProblem") -> "tuple[PDDLWriter, safeplan.Task]":
        return _task_of(problem)

    def _validate(
        self, problem: "up.model.AbstractProblem", plan: "up.plans.Plan"
    ) -> ValidationResult:
        try:
            writer, task = self._task(problem)
            verdict = task.validate(writer.get_plan(plan), tolerance=self._tolerance)
        except safeplan.SafeplanError as e:
            return ValidationResult(
                ValidationResultStatus.UNKNOWN,
                self.name,
                [LogMessage(LogLevel.ERROR, str(e))],
            )
        if verdict.valid:
            return ValidationResult(ValidationResultStatus.VALID, self.name, [])
        failure = verdict.failure or {}
        message = failure.get("message", "invalid plan")
        step = failure.get("step")
        reason = None
        inapplicable = None
        # A broken trajectory constraint: UP has no reason of its own for it. As UP's own
        # validator reports a broken state invariant, the step whose state broke it is the
        # inapplicable action; one broken at the end of the plan (or in the initial state)
        # is an unsatisfied goal. The message names the constraint.
        if step is None:
            reason = FailedValidationReason.UNSATISFIED_GOALS
        else:
            reason = FailedValidationReason.INAPPLICABLE_ACTION
            # Step N is the N-th action as the writer wrote the plan: a SequentialPlan's
            # actions, a TimeTriggeredPlan's timed actions, in order.
            if isinstance(plan, up.plans.TimeTriggeredPlan):
                actions = [ai for _, ai, _ in plan.timed_actions]
            else:
                actions = plan.actions
            if 1 <= step <= len(actions):
                inapplicable = actions[step - 1]
        return ValidationResult(
            ValidationResultStatus.INVALID,
            self.name,
            [LogMessage(LogLevel.INFO, message)],
            reason=reason,
            inapplicable_action=inapplicable,
        )



class SafeplanEngine(_Validating, PlanValidatorMixin, OneshotPlannerMixin, Engine):
    """A UP one-shot planner and plan validator for sequential problems, backed by
    :class:`safeplan.Task`: it declares exactly what ``solve`` supports."""

    def __init__(self, **options: object) -> None:
        Engine.__init__(self)
        PlanValidatorMixin.__init__(self)
        OneshotPlannerMixin.__init__(self)
        self._take_options(options)

    @property
    def name(self) -> str:
        return "safeplan"

    @staticmethod
    def supported_kind() -> ProblemKind:
        return _planning_kind()

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= _planning_kind()

    @staticmethod
    def satisfies(optimality_guarantee: "up.engines.OptimalityGuarantee") -> bool:
        return optimality_guarantee == up.engines.OptimalityGuarantee.SATISFICING

    def _solve(
        self,
        problem: "up.model.AbstractProblem",
        heuristic: object = None,
        timeout: Optional[float] = None,
        output_stream: object = None,
    ) -> PlanGenerationResult:
        if heuristic is not None:
            raise up.exceptions.UPUsageError("the safeplan planner takes no custom heuristic")
        if problem.kind.has_continuous_time():
            return PlanGenerationResult(
                PlanGenerationResultStatus.UNSUPPORTED_PROBLEM,
                None,
                self.name,
                log_messages=[
                    LogMessage(
                        LogLevel.ERROR,
                        "safeplan plans sequentially; it validates temporal plans but does not find them",
                    )
                ],
            )
        try:
            writer, task = self._task(problem)
            found = task.find_plan(time_limit=timeout)
        except safeplan.SafeplanError as e:
            # A problem safeplan cannot compile or ground (derived predicates, a task too
            # large to ground): UP's "unsupported", with the reason.
            return PlanGenerationResult(
                PlanGenerationResultStatus.UNSUPPORTED_PROBLEM,
                None,
                self.name,
                log_messages=[LogMessage(LogLevel.ERROR, str(e))],
            )
        outcome = found["outcome"]
        info = {k: str(v) for k, v in found["stats"].items()}
        # Which search concluded (the default, `auto`, is LM-cut or LAMA), what plans are
        # measured in (steps, or the metric's action costs), whether its plan is optimal in
        # it and what it costs, as the library says; and why the metric was not minimized,
        # when it was not.
        for key in ("algorithm", "optimal", "measure", "cost", "metric_ignored"):
            if found.get(key) is not None:
                info[key] = str(found[key])
        if outcome["status"] == "found":
            actions = [_action_instance(writer, step) for step in outcome["plan"]]
            return PlanGenerationResult(
                PlanGenerationResultStatus.SOLVED_SATISFICING,
                up.plans.SequentialPlan(actions, problem.environment),
                self.name,
                metrics=info,
            )
        if outcome["status"] == "rejected":
            # The library re-checks every plan: one the validator rejects is a defect, never a plan.
            status = PlanGenerationResultStatus.INTERNAL_ERROR
            info["error"] = f"the planner's plan does not pass the validator: {outcome['reason']}"
        elif outcome["status"] == "unsolvable":
            status = PlanGenerationResultStatus.UNSOLVABLE_PROVEN
        elif outcome.get("limit") == "time":
            status = PlanGenerationResultStatus.TIMEOUT
        elif outcome.get("limit") in ("memory", "states"):
            status = PlanGenerationResultStatus.MEMOUT
        else:
            status = PlanGenerationResultStatus.UNSOLVABLE_INCOMPLETELY
        return PlanGenerationResult(status, None, self.name, metrics=info)




class SafeplanValidator(_Validating, PlanValidatorMixin, Engine):
    """A UP plan validator for sequential and temporal problems (durative actions, checked
    as VAL checks them), backed by :class:`safeplan.Task`."""

    def __init__(self, **options: object) -> None:
        Engine.__init__(self)
        PlanValidatorMixin.__init__(self)
        self._take_options(options)

    @property
    def name(self) -> str:
        return "safeplan-validator"

    @staticmethod
    def supported_kind() -> ProblemKind:
        return _validation_kind()

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= _validation_kind()


def _action_instance(writer: PDDLWriter, step: str) -> "up.plans.ActionInstance":
    """A plan step as safeplan writes it, ``(name arg ...)`` in the PDDL names the writer
    chose, as a UP action instance over the problem's own objects."""
    name, *args = step.strip("()").split()
    action = writer.get_item_named(name)
    params = [writer.get_item_named(a) for a in args]
    return up.plans.ActionInstance(action, params)


# Writing a UP problem as PDDL costs milliseconds (UP's writer), validating a plan
# microseconds. Callers such as DESPITE build a fresh problem, and a fresh validator, for every
# plan: so compiled tasks are shared by every engine of the process, keyed by the problem's
# structure as text (UP's own description of the problem, plus its objects and type
# hierarchy, which that description leaves out for untyped problems): about 1 ms to compute
# against 20 ms to write and compile. Equal text, equal problem: a cache hit cannot give
# another problem's verdict.
_SHARED_SIZE = 64
_shared: "collections.OrderedDict[str, tuple[PDDLWriter, safeplan.Task]]" = collections.OrderedDict()
_shared_lock = threading.Lock()


def _structure(problem: "up.model.AbstractProblem") -> str:
    objects = ";".join(f"{o.name}:{o.type}" for o in problem.all_objects)
    types = ";".join(f"{t}<{t.father}" for t in getattr(problem, "user_types", []))
    return f"{type(problem).__name__}\n{problem!r}\nobjects {objects}\ntypes {types}"


def _task_of(problem: "up.model.AbstractProblem") -> "tuple[PDDLWriter, safeplan.Task]":
    key = _structure(problem)
    with _shared_lock:
        hit = _shared.get(key)
        if hit is not None:
            _shared.move_to_end(key)
            return hit
    compiled = _compile(problem)
    with _shared_lock:
        _shared[key] = compiled
        while len(_shared) > _SHARED_SIZE:
            _shared.popitem(last=False)
    return compiled


def _compile(problem: "up.model.AbstractProblem") -> "tuple[PDDLWriter, safeplan.Task]":
    writer = PDDLWriter(problem)
    return writer, safeplan.Task(writer.get_domain(), writer.get_problem())


def register(environment: "Optional[up.environment.Environment]" = None) -> None:
    """Add the engine to UP's factory (done on import for the global environment)."""
    env = environment or up.environment.get_environment()
    for name, cls in (("safeplan", "SafeplanEngine"), ("safeplan-validator", "SafeplanValidator")):
        if name not in env.factory.engines:
            env.factory.add_engine(name, __name__, cls)


register()
