//! The deterministic reviser: drop what REMOVE names, insert what MISSING spells out.

use async_trait::async_trait;

use crate::episode::Episode;
use crate::error::JudgeError;
use crate::plan::{Critique, CritiqueKind, Origin, Plan, Step};
use crate::refine::{Reviser, Revision};

/// Applies critiques without a model: every REMOVE drops its step; every MISSING that
/// carries concrete steps inserts them at its index (at the end when it has none). A
/// MISSING with only a description cannot be applied and is reported in the notes.
///
/// This is the paper's rule that "REMOVE is applied deterministically"; pair it with a
/// judge that writes concrete MISSING steps (the state-tracking or symbolic judge) or use
/// an LLM or symbolic reviser for the rest.
#[derive(Clone, Copy, Debug, Default)]
pub struct ApplyCritiques;

#[async_trait]
impl Reviser for ApplyCritiques {
    fn name(&self) -> String {
        "auto".into()
    }

    async fn revise(
        &self,
        _episode: &Episode,
        plan: &Plan,
        critiques: &[Critique],
        round: usize,
    ) -> Result<Revision, JudgeError> {
        Ok(apply_critiques(plan, critiques, round))
    }
}

/// The deterministic revision of `plan` by `critiques` (see [`ApplyCritiques`]).
///
/// Indices refer to `plan` as judged, so all critiques are applied against it at once:
/// insertions land before the step that was at their index, whatever else is removed.
pub fn apply_critiques(plan: &Plan, critiques: &[Critique], round: usize) -> Revision {
    let n = plan.len();
    let mut drop = vec![false; n];
    // inserts[i]: steps to put before old position i (i == n: at the end).
    let mut inserts: Vec<Vec<String>> = vec![Vec::new(); n + 1];
    let mut notes = Vec::new();
    for c in critiques {
        match (c.kind, c.index) {
            (CritiqueKind::Remove, Some(i)) if i < n => drop[i] = true,
            (CritiqueKind::Remove, _) => notes.push(format!(
                "REMOVE without a step of the plan ({}) ignored: {}",
                c.index
                    .map_or("no index".to_string(), |i| format!("index {i}")),
                c.reason
            )),
            (CritiqueKind::Missing, at) if !c.steps.is_empty() => {
                let at = at.unwrap_or(n).min(n);
                inserts[at].extend(c.steps.iter().cloned());
            }
            (CritiqueKind::Missing, _) => notes.push(format!(
                "MISSING without concrete steps not applied: {}",
                c.reason
            )),
        }
    }
    let mut steps = Vec::with_capacity(n);
    for (i, step) in plan.steps.iter().enumerate() {
        push_inserted(&mut steps, &inserts[i], round);
        if !drop[i] {
            steps.push(step.clone());
        }
    }
    push_inserted(&mut steps, &inserts[n], round);
    Revision {
        plan: Plan { steps },
        notes,
        ..Revision::default()
    }
}

fn push_inserted(steps: &mut Vec<Step>, texts: &[String], round: usize) {
    steps.extend(texts.iter().map(|t| Step {
        text: t.clone(),
        origin: Origin::Inserted(round),
    }));
}
