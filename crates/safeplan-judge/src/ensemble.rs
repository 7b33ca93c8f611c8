//! Judges combined: union, intersection or majority of their critiques.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::episode::Episode;
use crate::error::JudgeError;
use crate::plan::{Critique, CritiqueKind, Plan};
use crate::refine::{Judge, Judgement};

/// How an [`EnsembleJudge`] combines its members' critiques.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    /// A critique any member raises.
    Union,
    /// A critique every member raises.
    Intersection,
    /// A critique more than half the members raise.
    Majority,
}

impl std::str::FromStr for Combine {
    type Err = String;
    fn from_str(s: &str) -> Result<Combine, String> {
        match s {
            "union" => Ok(Combine::Union),
            "intersection" => Ok(Combine::Intersection),
            "majority" => Ok(Combine::Majority),
            other => Err(format!(
                "unknown ensemble rule `{other}`: use union, intersection or majority"
            )),
        }
    }
}

/// Several judges as one. Members run concurrently on the same plan; two critiques are the
/// same when they have the same kind and index (a MISSING without an index matches other
/// unplaced MISSINGs). The kept critique's reason names every member that raised it.
pub struct EnsembleJudge {
    members: Vec<Arc<dyn Judge>>,
    combine: Combine,
}

impl EnsembleJudge {
    /// Combine `members` by `combine`.
    pub fn new(members: Vec<Arc<dyn Judge>>, combine: Combine) -> EnsembleJudge {
        EnsembleJudge { members, combine }
    }
}

#[async_trait]
impl Judge for EnsembleJudge {
    fn name(&self) -> String {
        let rule = match self.combine {
            Combine::Union => "union",
            Combine::Intersection => "intersection",
            Combine::Majority => "majority",
        };
        let names: Vec<String> = self.members.iter().map(|m| m.name()).collect();
        format!("ensemble:{rule}:{}", names.join(","))
    }

    async fn critique(&self, episode: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        let results =
            futures_util::future::join_all(self.members.iter().map(|m| m.critique(episode, plan)))
                .await;
        let mut out = Judgement::default();
        // (kind, index) -> (members raising it, the first critique, reasons)
        let mut votes: BTreeMap<(CritiqueKind, Option<usize>), (usize, Critique, Vec<String>)> =
            BTreeMap::new();
        for (member, result) in self.members.iter().zip(results) {
            let judgement = result?;
            out.usage.add(&judgement.usage);
            out.notes.extend(judgement.notes);
            let mut seen = Vec::new();
            for c in judgement.critiques {
                let key = (c.kind, c.index);
                let entry = votes
                    .entry(key)
                    .or_insert_with(|| (0, c.clone(), Vec::new()));
                if !seen.contains(&key) {
                    entry.0 += 1;
                    seen.push(key);
                }
                entry.2.push(format!("{}: {}", member.name(), c.reason));
            }
        }
        let n = self.members.len();
        for (count, mut critique, reasons) in votes.into_values() {
            let keep = match self.combine {
                Combine::Union => true,
                Combine::Intersection => count == n,
                Combine::Majority => 2 * count > n,
            };
            if keep {
                critique.reason = reasons.join("; ");
                out.critiques.push(critique);
            }
        }
        Ok(out)
    }
}
