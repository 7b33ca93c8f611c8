//! Prompt pieces shared by the judge and the reviser: the system prompt, the fenced context and the numbered plan.

use safeplan_llm::prompt::{fence, one_line};

use crate::llm::judge::UNTRUSTED;
use crate::{Episode, Plan};

// ---------------------------------------------------------------------------------------
// Prompt pieces shared by both roles
// ---------------------------------------------------------------------------------------

/// A role's system prompt with the untrusted-data paragraph, shared so the two roles
/// cannot drift apart on it.
pub(super) fn system_of(role: &str) -> String {
    format!("{role}{UNTRUSTED}")
}

/// The goal and dialogue, each fenced.
pub(super) fn context_sections(episode: &Episode) -> String {
    let mut out = String::from("GOAL:\n");
    out.push_str(&fence("goal", episode.goal.trim()));
    if !episode.dialogue.is_empty() {
        out.push_str("\nDIALOGUE, the instructor's words in order:\n");
        let lines: Vec<String> = episode
            .dialogue
            .iter()
            .map(|d| format!("- {}", one_line(d)))
            .collect();
        out.push_str(&fence("dialogue", &lines.join("\n")));
    }
    out.push('\n');
    out
}

/// The plan one step a line, numbered from 1, each step flattened to one line so a step
/// cannot fake the numbering of the next.
pub(super) fn numbered(plan: &Plan) -> String {
    let lines: Vec<String> = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {}", i + 1, one_line(&s.text)))
        .collect();
    lines.join("\n")
}
