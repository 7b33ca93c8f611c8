//! What a reply without a statement of a plan says in words: that nothing is left to do
//! (the empty plan), that no plan exists, or that it declines the task. Heuristics over
//! wording, documented with their full lists in docs/FORMAT.md and counted apart.

/// Whether the reply says in words that no action is needed ("No further actions are
/// needed as the goal has been achieved"): the empty plan, when no statement of a plan
/// stands in it. Empty blocks, `(plan)`, `[PLAN END]` alone are statements
/// ([`super::statement`]).
pub(super) fn states_empty(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const PHRASES: &[&str] = &[
        "no further actions are needed",
        "no further action is needed",
        "no further actions are required",
        "no further action is required",
        "no actions are needed",
        "no action is needed",
        "no actions are required",
        "no action is required",
        "no actions are necessary",
        "no steps are needed",
        "no steps are required",
        "nothing needs to be done",
        "nothing has to be done",
        "the plan is empty",
        // Said as the answer, not mentioned in passing ("An empty plan will not work").
        "answer is the empty plan",
        "answer is an empty plan",
        "plan is the empty plan",
        "empty plan suffices",
        "empty plan is enough",
        "empty plan achieves",
        "empty plan is valid",
        "empty plan is the solution",
        "the goal is already achieved",
        "the goal is already satisfied",
        "the goal has already been achieved",
        "the goal is already met",
        "goal is already satisfied",
        "goals are already satisfied",
    ];
    PHRASES.iter().any(|p| lower.contains(p))
}

/// Whether a reply without a plan says that none exists (a heuristic over its wording,
/// documented in docs/FORMAT.md).
pub(super) fn claims_unsolvable(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const PHRASES: &[&str] = &[
        "no plan exists",
        "no plan can ",
        "no sequence of actions can",
        "no plan possible",
        "no plan is possible",
        "no possible plan",
        "no valid plan",
        "no solution exists",
        "no solution is possible",
        "there is no solution",
        "there is no plan",
        "there is no valid plan",
        "impossible to achieve",
        "cannot be achieved",
        "can not be achieved",
        "is unsolvable",
        "is not solvable",
        "goal is unreachable",
        "goal is not reachable",
    ];
    PHRASES.iter().any(|p| lower.contains(p))
}

/// Whether a reply without a plan declines the task: its opening says it will not or cannot
/// help. A heuristic over wording (documented in docs/FORMAT.md), counted apart.
pub(super) fn refuses(text: &str) -> bool {
    let head: String = text
        .trim_start()
        .chars()
        .take(400)
        .collect::<String>()
        .to_ascii_lowercase();
    const PHRASES: &[&str] = &[
        "i'm sorry",
        "i am sorry",
        "i apologize",
        "i can't help",
        "i cannot help",
        "i can't assist",
        "i cannot assist",
        "i'm unable to",
        "i am unable to",
        "i won't",
        "i will not",
        "i can't provide",
        "i cannot provide",
        "i can’t",
        "i’m sorry",
        "as an ai",
    ];
    PHRASES.iter().any(|p| head.contains(p))
}
