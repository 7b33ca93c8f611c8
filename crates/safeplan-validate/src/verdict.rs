//! Verdicts as plain data: what happened to a plan, and if it failed, where, why and how to
//! fix it. Everything here is `serde`, so the CLI's `--json` is these types.

use safeplan_pddl::ast::ConstraintOp;
use safeplan_pddl::{FileKind, NoPlan, Span};
use serde::{Deserialize, Serialize};

/// The outcome of validating one plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Every step applicable and the goal true at the end.
    pub valid: bool,
    /// Number of steps in the plan.
    pub steps: usize,
    /// The value of the problem's `:metric` expression in the final state (`total-time`
    /// counts one per step). `None` when the problem has no metric, the plan failed, or
    /// the metric reads a fluent that has no value.
    pub metric: Option<f64>,
    /// The first failure; `None` for a valid plan.
    pub failure: Option<Failure>,
    /// With [`ValidateOptions::keep_going`](crate::ValidateOptions::keep_going): every
    /// failure, in plan order (the first is also in `failure`). Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// Things that did not make the plan invalid but deserve a look (an `increase` of a
    /// fluent that had no value, which VAL treats as 0).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// With [`ValidateOptions::keep_final_state`](crate::ValidateOptions::keep_final_state):
    /// the state after the last step executed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_state: Option<FinalState>,
    /// For a task with preferences (PDDL3 soft goals and soft trajectory constraints):
    /// each preference name, how many of its instances the plan violated, and why. Empty
    /// when the task has none, or when the run stopped before the end of the plan (a
    /// preference is judged on the whole plan).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preferences: Vec<PreferenceOutcome>,
    /// Set when there was no plan to validate: an LLM reply from which no step could be
    /// read ([`safeplan_pddl::read_reply`]), and why. Such a verdict is never valid, has no
    /// step, and its failure is [`FailureKind::NoPlan`] (SEMANTICS.md, "No plan").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_plan: Option<NoPlan>,
}

impl Verdict {
    /// Every failure to report: all of them under `keep_going`, else the first (none for
    /// a valid plan).
    pub fn reported_failures(&self) -> &[Failure] {
        if self.failures.is_empty() {
            self.failure.as_slice()
        } else {
            &self.failures
        }
    }

    /// The verdict on a reply that holds no plan: invalid, no step, a [`FailureKind::NoPlan`]
    /// failure saying why. Not the verdict on the empty plan, which can be valid.
    pub fn no_plan(why: NoPlan) -> Verdict {
        Verdict {
            valid: false,
            steps: 0,
            metric: None,
            failure: Some(Failure {
                kind: FailureKind::NoPlan,
                step: None,
                action: None,
                message: why.message().to_string(),
                unmet: Vec::new(),
                advice: vec![
                    "ask for the plan as PDDL steps, one `(action arg ...)` per line; \
                     docs/FORMAT.md (\"Plans in LLM replies\") lists the forms read"
                        .to_string(),
                ],
                source: None,
                timing: None,
                constraint: None,
            }),
            failures: Vec::new(),
            warnings: Vec::new(),
            final_state: None,
            preferences: Vec::new(),
            no_plan: Some(why),
        }
    }

    /// VAL's "Final value": the metric when the problem has one, else the number of steps.
    pub fn value(&self) -> Option<f64> {
        if !self.valid {
            return None;
        }
        Some(self.metric.unwrap_or(self.steps as f64))
    }
}

/// What kind of failure ended (or, with `keep_going`, marked) a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The step names an action the domain does not have.
    UnknownAction,
    /// The step has the wrong number of arguments.
    ArityMismatch,
    /// An argument is not an object of the problem or a constant of the domain.
    UnknownObject,
    /// An argument's type does not fit its parameter.
    TypeMismatch,
    /// The step's precondition is false in the state before it.
    UnsatisfiedPrecondition,
    /// The goal is false after the last step.
    UnsatisfiedGoal,
    /// Reading a fluent that has no value, dividing by zero, a non-finite result, or two
    /// conflicting updates of one fluent in one step.
    NumericError,
    /// A durative step's duration does not satisfy its `:duration` constraint (within the
    /// tolerance), evaluated in the state at its start.
    DurationConstraint,
    /// An `over all` condition of a durative step is false somewhere strictly inside its
    /// interval.
    InvariantViolated,
    /// Two events of one happening interfere: one changes what the other reads or changes.
    Mutex,
    /// A hard trajectory constraint of the task (PDDL3 `:constraints`: `always`,
    /// `sometime-before`, ...) is broken by the sequence of states the plan passes through.
    ConstraintViolated,
    /// There was no plan: an LLM reply from which no step could be read (a refusal, prose,
    /// steps in a form no rule reads). See [`Verdict::no_plan`].
    NoPlan,
}

impl FailureKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::UnknownAction => "unknown_action",
            FailureKind::ArityMismatch => "arity_mismatch",
            FailureKind::UnknownObject => "unknown_object",
            FailureKind::TypeMismatch => "type_mismatch",
            FailureKind::UnsatisfiedPrecondition => "unsatisfied_precondition",
            FailureKind::UnsatisfiedGoal => "unsatisfied_goal",
            FailureKind::NumericError => "numeric_error",
            FailureKind::DurationConstraint => "duration_constraint",
            FailureKind::InvariantViolated => "invariant_violated",
            FailureKind::Mutex => "mutex",
            FailureKind::ConstraintViolated => "constraint_violated",
            FailureKind::NoPlan => "no_plan",
        }
    }

    /// Whether the step could not be bound to a ground action of the domain at all
    /// (unknown action, wrong arity, unknown object, wrong type).
    pub fn is_malformed(self) -> bool {
        matches!(
            self,
            FailureKind::UnknownAction
                | FailureKind::ArityMismatch
                | FailureKind::UnknownObject
                | FailureKind::TypeMismatch
        )
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in one of the task's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRef {
    /// Which file.
    pub file: FileKind,
    /// Byte range in it.
    pub span: Span,
}

/// One failure: where, what, and what would fix it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The 1-based step, as VAL counts it; `None` for the goal.
    pub step: Option<usize>,
    /// The step as the plan wrote it, e.g. `(move a b)`; `None` for the goal.
    pub action: Option<String>,
    /// One sentence saying what went wrong.
    pub message: String,
    /// For unsatisfied preconditions and goals: each literal that is false, with the values
    /// that made it so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmet: Vec<Unmet>,
    /// What would make the step (or goal) succeed, one suggestion per line, in the spirit
    /// of VAL's plan repair advice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<String>,
    /// Where to look: the plan step for malformed steps, the action's precondition in the
    /// domain, or the problem's goal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// For a temporal plan: when it happened, and at which event of the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// For [`FailureKind::ConstraintViolated`]: which constraint, when, and why (boxed: a
    /// failure is returned on the error path of every step check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Box<ConstraintViolation>>,
}

/// A trajectory constraint a plan broke: a hard one (the plan's failure) or the rule of a
/// preference (counted in [`PreferenceOutcome`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstraintViolation {
    /// The operator, e.g. `sometime-before`.
    pub operator: ConstraintOp,
    /// The constraint instance, ground, e.g. `(sometime-before (holding a) (clear b))`.
    pub constraint: String,
    /// The preference's name when the rule is soft (`None` for a hard constraint, and for
    /// an unnamed preference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<String>,
    /// The state in which it was found broken: 0 is the initial state, `k` the state after
    /// step `k` (after the `k`-th happening of a temporal plan). `None` when it was found
    /// at the end of the plan: something that had to hold never did, or was still
    /// outstanding (`sometime`, `within`, `sometime-after`, `always-within`, `at end`).
    pub state: Option<usize>,
    /// The plan time of that state (a sequential plan's step `k` happens at time `k`).
    pub time: f64,
    /// Whether the plan is a temporal one: `state` counts its happenings, and `time` says
    /// when the rule broke.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed: bool,
    /// One sentence: what made it broken.
    pub reason: String,
    /// The false literals of a condition that had to hold (`always`'s φ, the ψ owed by
    /// `sometime-after`, ...), with the values that made them false.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmet: Vec<Unmet>,
    /// The true literals of a condition that must not have held then: the trigger of
    /// `sometime-before`, the second stretch of `at-most-once`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<Unmet>,
    /// What would keep the constraint.
    pub advice: String,
    /// The constraint in the domain or problem source.
    pub source: SourceRef,
}

impl ConstraintViolation {
    /// `step 3 broke the rule (sometime-before (robot-at hall) (not (stove-on))): (robot-at
    /// hall) holds after step 3 (move kitchen hall), but ...`; a rule judged at the end of
    /// the plan says so; in a temporal plan the time says when (`the state at time 13.06
    /// broke the rule ...`). What `safeplan validate` prints and the C API's sentence says.
    pub fn sentence(&self) -> String {
        let when = match self.state {
            Some(0) => "the initial state broke".to_string(),
            Some(_) if self.timed => format!("the state at time {} broke", Number(self.time)),
            Some(k) => format!("step {k} broke"),
            None => "the plan ends breaking".to_string(),
        };
        format!("{when} the rule {}: {}", self.constraint, self.reason)
    }
}

/// A hard trajectory constraint that still owes something at this point of an execution:
/// what a robot must still do before it may stop ([`crate::Monitor::outstanding`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Obligation {
    /// The operator, e.g. `sometime`.
    pub operator: ConstraintOp,
    /// The constraint instance, ground.
    pub constraint: String,
    /// The condition still owed: φ of `sometime`, `within` and `at end`, ψ of a triggered
    /// `sometime-after` or `always-within`.
    pub owed: String,
    /// The plan time by which it is owed (`within`, a triggered `always-within`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<f64>,
}

/// How a plan fared on one named preference (PDDL3 `(preference NAME ...)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreferenceOutcome {
    /// The name, as first written; `None` for unnamed preferences (counted together).
    pub name: Option<String>,
    /// Its instances: one per binding of the `forall`s written around it.
    pub instances: usize,
    /// How many instances the plan violated: what `(is-violated NAME)` reads.
    pub violated: usize,
    /// Why each violated instance is violated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<ConstraintViolation>,
}

/// When a failure of a temporal plan happened (SEMANTICS.md §2b).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The time of the happening at which it was found.
    pub time: f64,
    /// Which event of the step failed.
    pub event: Event,
    /// For an invariant: the stretch between two happenings where it was false,
    /// `(from, to)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<(f64, f64)>,
    /// For a mutex: the other step (1-based, in file order) of the same happening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_step: Option<usize>,
    /// For a mutex: the atom or fluent both events touch, e.g. `(at truck1 depot0)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contested: Option<String>,
}

impl Timing {
    /// The timing of a failure at `event`, found at the happening at `time`.
    pub fn at(event: Event, time: f64) -> Timing {
        Timing {
            time,
            event,
            interval: None,
            other_step: None,
            contested: None,
        }
    }
}

/// An event of a step in a temporal plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// The start of a durative step (`at start` conditions and effects, the duration).
    Start,
    /// The end of a durative step (`at end` conditions and effects).
    End,
    /// The `over all` conditions between start and end.
    Invariant,
    /// An instantaneous action in a temporal plan.
    Instant,
}

impl Event {
    /// `start`, `end`, `invariant`, `instant`.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Start => "start",
            Event::End => "end",
            Event::Invariant => "invariant",
            Event::Instant => "instant",
        }
    }
}

/// A literal of a precondition or goal that is false.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unmet {
    /// The ground literal, e.g. `(robot_at bedside_table)`, `(not (door_open d1))` or
    /// `(> (fuel plane1) 3)`.
    pub literal: String,
    /// The numeric fluents the literal reads and their values (`None`: undefined).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<FluentValue>,
    /// Values of quantified variables under which it is false (inside a `forall`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<Binding>,
    /// The literal in the domain (precondition) or problem (goal) source.
    pub source: SourceRef,
    /// What to change, e.g. `set (robot_at bedside_table) to true before step 3`.
    pub advice: String,
}

/// A numeric fluent and its value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FluentValue {
    /// The ground fluent, e.g. `(fuel plane1)`.
    pub fluent: String,
    /// Its value; `None` when it has never been given one.
    pub value: Option<f64>,
}

/// A quantified variable and the object it stood for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// The variable, with its `?`.
    pub variable: String,
    /// The object.
    pub object: String,
}

/// A note that does not make the plan invalid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// The 1-based step, `None` for the goal or metric.
    pub step: Option<usize>,
    /// What happened.
    pub message: String,
}

/// A state written out: true atoms and defined numeric fluents, each sorted, names
/// lowercased, e.g. `(at truck1 depot0)` and `("(fuel truck1)", 12.0)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FinalState {
    /// True atoms, static facts included; derived atoms are not listed (they follow from
    /// the others).
    pub atoms: Vec<String>,
    /// Numeric fluents that have a value.
    pub fluents: Vec<(String, f64)>,
}

impl std::fmt::Display for Failure {
    /// The message, which already names the step; the goal failure says so itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.kind)
    }
}

impl std::error::Error for Failure {}

/// Numbers as PDDL writes them: integers without a fraction.
pub(crate) struct Number(pub f64);

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.fract() == 0.0 && self.0.abs() < 1e15 {
            write!(f, "{}", self.0 as i64)
        } else {
            write!(f, "{}", self.0)
        }
    }
}
