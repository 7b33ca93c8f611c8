//! DESPITE's four abilities: prompts, reply cleaning and scoring (being written).

use crate::planner::{Ability, Answer};
use crate::score::AbilityScore;
use crate::suite::CompiledTask;

/// The score of an answer to a non-plan ability (`None` for plan abilities).
pub fn score_answer(
    _ability: Ability,
    _compiled: &CompiledTask,
    _answer: &Answer,
) -> Option<AbilityScore> {
    None
}
