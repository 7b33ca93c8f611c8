//! The LLM judge and the LLM reviser: the paper's Judge and Planning Agent roles over any
//! [`LlmProvider`], with replies parsed defensively and checked against the plan.
//!
//! # Reading a judge's reply
//!
//! A model does not answer in a grammar. It quotes the steps or paraphrases them, numbers
//! them its own way, skips the ones it finds unremarkable, writes markdown lists, tables or
//! the paper's `ACTION:` / `ANNOTATION:` blocks. So the reply is read as a sequence of
//! *blocks*, each opened by a header that names a step (an `ACTION:` line, a numbered item,
//! a `Step 3:` label, a table row), and a `#REMOVE` applies to the step its block names.
//! A header is bound to a step by its **number and its text together** (see
//! [`parse_judge_text`]); lines and blocks are never counted.
//!
//! The steps themselves are untrusted: a recorded step may contain `#REMOVE: ...`, and a
//! model that copies the step into its answer copies the tag. A tag counts only when it is
//! the model's own words: tags inside a copy of a step (whole or in part) are ignored.
//!
//! # Checking a planner's reply
//!
//! The planner is asked to rewrite the plan with the critiques applied. Its reply is aligned
//! with the plan it was given ([`check_revision`]), so a step the judge did not flag can
//! never disappear or change silently: it is kept, and the change is reported.

//!
//! # Map
//!
//! - `judge`: [`LlmJudge`] and its options, the judge's system prompt and reply contract;
//! - `reviser`: [`LlmReviser`] and its options, and [`check_revision`];
//! - `prompt`: the pieces both roles' prompts share (fenced context, numbered plan);
//! - `reply`: reading a judge's prose reply ([`parse_judge_text`]), its rule in one paragraph
//!   at the top, its parts beside it: `shape` (what a step looks like), `matching` (text to
//!   steps), `tags` (the model's own `#REMOVE`/`#MISSING`), `place` (where a MISSING goes);
//! - `reply_json`: reading a judge's JSON reply ([`parse_judge_json`]).

mod judge;
mod prompt;
mod reply;
mod reply_json;
mod reviser;

pub use self::judge::{LlmJudge, LlmJudgeOptions};
pub use self::reply::parse_judge_text;
pub use self::reply_json::parse_judge_json;
pub use self::reviser::{LlmReviser, LlmReviserOptions, check_revision};
