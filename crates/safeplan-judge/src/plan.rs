//! Plans whose steps remember where they came from, and the critiques a judge makes of them.

use serde::{Deserialize, Serialize};

/// Where a step of a refined plan came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The step at this 0-based index of the episode's original action sequence.
    Original(usize),
    /// A step a reviser inserted in this 1-based round.
    Inserted(usize),
}

/// One step of a plan: its text and its provenance.
///
/// Serialised flat, e.g. `{"text": "Driver.PickUp('Mug')", "original": 3}` or
/// `{"text": "(open door)", "inserted": 2}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    /// The action as written, e.g. `Driver.PickUp('Mug')` or `(pick cup table)`.
    pub text: String,
    /// Where the step came from.
    #[serde(flatten)]
    pub origin: Origin,
}

impl Step {
    /// The original index, `None` for an inserted step.
    pub fn original(&self) -> Option<usize> {
        match self.origin {
            Origin::Original(i) => Some(i),
            Origin::Inserted(_) => None,
        }
    }
}

/// An action sequence under refinement: steps in order, each with its provenance.
///
/// Indices into a plan (in critiques, in prompts) are positions in *this* plan, which after
/// a round of revision are no longer the original indices; [`Step::origin`] is what ties a
/// step back to the episode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Plan {
    /// The steps in order.
    pub steps: Vec<Step>,
}

impl Plan {
    /// The original plan of an episode: step `i` has origin `Original(i)`.
    pub fn from_actions<S: AsRef<str>>(actions: &[S]) -> Plan {
        Plan {
            steps: actions
                .iter()
                .enumerate()
                .map(|(i, a)| Step {
                    text: a.as_ref().to_string(),
                    origin: Origin::Original(i),
                })
                .collect(),
        }
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the plan has no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The step texts in order.
    pub fn texts(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.text.as_str()).collect()
    }

    /// The original indices still present, in plan order.
    pub fn original_indices(&self) -> Vec<usize> {
        self.steps.iter().filter_map(Step::original).collect()
    }

    /// The original indices of `0..original_len` that are no longer in this plan: what a
    /// loop ending here has flagged.
    pub fn dropped_originals(&self, original_len: usize) -> Vec<usize> {
        let mut kept = vec![false; original_len];
        for i in self.original_indices() {
            if let Some(k) = kept.get_mut(i) {
                *k = true;
            }
        }
        kept.iter()
            .enumerate()
            .filter(|(_, k)| !**k)
            .map(|(i, _)| i)
            .collect()
    }

    /// The inserted steps, in plan order.
    pub fn inserted(&self) -> Vec<&Step> {
        self.steps
            .iter()
            .filter(|s| matches!(s.origin, Origin::Inserted(_)))
            .collect()
    }

    /// The plan written one step a line, numbered from 1, as prompts and people read it.
    pub fn numbered(&self) -> String {
        let mut out = String::new();
        for (i, s) in self.steps.iter().enumerate() {
            out.push_str(&format!("{}. {}\n", i + 1, s.text));
        }
        out
    }
}

/// What a critique asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CritiqueKind {
    /// The step is redundant, irrelevant, contradictory or dangerous: drop it.
    Remove,
    /// Something the goal needs is absent: add it.
    Missing,
}

impl CritiqueKind {
    /// `REMOVE` or `MISSING`, as the paper's tags write it.
    pub fn tag(self) -> &'static str {
        match self {
            CritiqueKind::Remove => "REMOVE",
            CritiqueKind::Missing => "MISSING",
        }
    }
}

/// One critique of a plan.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Critique {
    /// REMOVE or MISSING.
    pub kind: CritiqueKind,
    /// For REMOVE, the 0-based position of the step in the plan judged. For MISSING, the
    /// position the new steps belong before (`plan.len()` for the end); `None` when the
    /// judge did not say where.
    pub index: Option<usize>,
    /// Why, in words.
    pub reason: String,
    /// For MISSING, concrete steps to insert when the judge knows them (a symbolic or
    /// state-tracking judge does; an LLM judge usually describes them in `reason`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
}

impl Critique {
    /// A REMOVE of the step at `index`.
    pub fn remove(index: usize, reason: impl Into<String>) -> Critique {
        Critique {
            kind: CritiqueKind::Remove,
            index: Some(index),
            reason: reason.into(),
            steps: Vec::new(),
        }
    }

    /// A MISSING before position `index` (or unplaced), with the steps if known.
    pub fn missing(
        index: Option<usize>,
        reason: impl Into<String>,
        steps: Vec<String>,
    ) -> Critique {
        Critique {
            kind: CritiqueKind::Missing,
            index,
            reason: reason.into(),
            steps,
        }
    }
}
