//! The paper's rule-based baseline judge.

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::episode::Episode;
use crate::error::JudgeError;
use crate::plan::{Critique, Plan};
use crate::refine::{Judge, Judgement};
use crate::teach::{GoalWords, TeachAction, TeachVerb, idle_motion, parse_teach};

/// The rule-based baseline of the plan verification paper (its Table 1 row, 22% recall and
/// 71% precision on its data), kept to reproduce that row. Three local rules, no state:
///
/// - a `ToggleOff` of something before any `ToggleOn` of it;
/// - a pick-up of an object the goal does not name, and that object's next placement;
/// - idle motion: zero moves, whole-turn rotations, adjacent turns that cancel out.
///
/// It reads the goal only, not the dialogue, as a keyword baseline would.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleJudge;

#[async_trait]
impl Judge for RuleJudge {
    fn name(&self) -> String {
        "rule".into()
    }

    async fn critique(&self, episode: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        Ok(RuleJudge::judge(&GoalWords::new(&episode.goal), &plan.texts()).into())
    }
}

impl RuleJudge {
    /// The critiques of `actions` for a goal.
    pub fn judge(goal: &GoalWords, actions: &[&str]) -> Vec<Critique> {
        let parsed: Vec<Option<TeachAction>> = actions.iter().map(|a| parse_teach(a)).collect();
        let mut flags: BTreeMap<usize, String> = BTreeMap::new();
        for (i, action) in parsed.iter().enumerate() {
            let Some(a) = action else { continue };
            let Some(x) = a.object() else { continue };
            match a.verb {
                TeachVerb::ToggleOff => {
                    let on_before = parsed[..i]
                        .iter()
                        .flatten()
                        .any(|b| b.verb == TeachVerb::ToggleOn && b.object() == Some(x));
                    if !on_before {
                        flags.entry(i).or_insert_with(|| {
                            format!("{x} is switched off before it was ever switched on")
                        });
                    }
                }
                TeachVerb::PickUp if !goal.mentions(x) => {
                    let why = format!("{x} is not part of the goal");
                    flags.entry(i).or_insert_with(|| why.clone());
                    let place = parsed[i + 1..].iter().position(|b| {
                        b.as_ref()
                            .is_some_and(|b| b.verb == TeachVerb::Put && b.object() == Some(x))
                    });
                    if let Some(k) = place {
                        flags.entry(i + 1 + k).or_insert(why);
                    }
                }
                _ => {}
            }
        }
        for (i, why) in idle_motion(&parsed) {
            flags.entry(i).or_insert(why);
        }
        flags
            .into_iter()
            .map(|(i, why)| Critique::remove(i, why))
            .collect()
    }
}
