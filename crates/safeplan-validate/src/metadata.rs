//! DESPITE's task metadata (`metadata.json` beside a task's PDDL), as plain data.
//!
//! This crate does no I/O: a caller reads the file and deserializes it (e.g. with
//! `serde_json::from_str::<TaskMetadata>`). Unknown fields are ignored and every field is
//! optional, so metadata of other tools in the same spirit reads too.

use safeplan_pddl::{Plan, read_plan_file};
use serde::{Deserialize, Serialize};

/// The `metadata.json` of a DESPITE-style task folder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// The task's id, e.g. `neiss_2888`; its prefix names the source dataset.
    #[serde(default)]
    pub task_id: Option<String>,
    /// What is dangerous, to whom, and why.
    #[serde(default)]
    pub danger_formalization: DangerFormalization,
    /// One known safe and one known unsafe plan, each a string of `(action args)` steps.
    #[serde(default)]
    pub reference_feasible_plans: ReferencePlans,
}

impl TaskMetadata {
    /// The dataset the task comes from, read off the id's prefix (`neiss_2888` → `neiss`,
    /// `normbank_14322` → `normbank`); `None` without an id or prefix.
    pub fn source(&self) -> Option<&str> {
        let id = self.task_id.as_deref()?;
        let (prefix, rest) = id.rsplit_once('_')?;
        (!prefix.is_empty() && !rest.is_empty()).then_some(prefix)
    }
}

/// DESPITE's `danger_formalization` block: the hazard of a task in words (setting, cause,
/// who is at risk, how a careful robot avoids it). Validation never reads it; it is what
/// reports break results down by and what a prompt may show a planner.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DangerFormalization {
    /// Where the task happens, e.g. `Elderly care facility bedroom`.
    #[serde(default)]
    pub setting: Option<String>,
    /// What the robot is there as.
    #[serde(default)]
    pub robot_role: Option<String>,
    /// The task in words.
    #[serde(default)]
    pub robot_task: Option<String>,
    /// The kind of danger: `physical` or `normative` in DESPITE.
    #[serde(default)]
    pub danger_group: Option<String>,
    /// The type of danger, e.g. `thermal`, `mechanical`, `privacy`.
    #[serde(default)]
    pub danger_type: Option<String>,
    /// What makes the dangerous action dangerous.
    #[serde(default)]
    pub cause_of_danger: Option<String>,
    /// Who or what is at risk: `human`, `robot` or `others` in DESPITE.
    #[serde(default)]
    pub entity_in_danger: Option<String>,
    /// What happens if the danger materialises.
    #[serde(default)]
    pub result_of_danger: Option<String>,
    /// The dangerous action in words.
    #[serde(default)]
    pub danger_action: Option<String>,
    /// Whether the danger can be avoided at the moment it arises.
    #[serde(default)]
    pub instantaneous_avoidability: Option<String>,
    /// How a careful robot avoids it.
    #[serde(default)]
    pub instantaneous_solution: Option<String>,
    /// What the task assumes about the robot and its surroundings.
    #[serde(default)]
    pub assumptions: Option<String>,
}

/// The reference plans of a task.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferencePlans {
    /// A plan that is feasible and safe.
    #[serde(default)]
    pub safe: Option<String>,
    /// A plan that is feasible but unsafe.
    #[serde(default, rename = "unsafe")]
    pub unsafe_plan: Option<String>,
}

/// Which of a task's reference plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// `reference_feasible_plans.safe`.
    Safe,
    /// `reference_feasible_plans.unsafe`.
    Unsafe,
}

impl Reference {
    /// `safe` or `unsafe`, as the metadata names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Reference::Safe => "safe",
            Reference::Unsafe => "unsafe",
        }
    }
}

/// A reference plan that does not read as a plan.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("reference_feasible_plans.{} does not read as a plan: {message}", .which.as_str())]
pub struct ReferencePlanError {
    /// Which plan.
    pub which: Reference,
    /// The reader's first error.
    pub message: String,
}

impl ReferencePlans {
    /// A reference plan as written, when the metadata has it.
    pub fn text(&self, which: Reference) -> Option<&str> {
        match which {
            Reference::Safe => self.safe.as_deref(),
            Reference::Unsafe => self.unsafe_plan.as_deref(),
        }
    }

    /// A reference plan read as a plan file (`(a x) (b y)`, DESPITE's form, reads as two
    /// steps), by the one plan reader ([`read_plan_file`]): `None` when the metadata has
    /// none, an error (never a shorter plan) when it does not read.
    pub fn read(&self, which: Reference) -> Option<Result<Plan, ReferencePlanError>> {
        let text = self.text(which)?;
        Some(read_plan_file(text).map_err(|errors| ReferencePlanError {
            which,
            message: errors.first().map_or_else(
                || "nothing could be read".to_string(),
                |d| d.message.clone(),
            ),
        }))
    }
}
