//! Helpers for putting untrusted text into a prompt.
//!
//! Plans, metadata and episode text come from datasets and users; inside a prompt they must
//! stay data. A fenced block that the text itself cannot close, and fields flattened to one
//! line so a value cannot fake the next field, are the two defences every prompt builder in
//! safeplan (the LLM judge, the LLM planner) uses.

/// `body` between backtick fences longer than any backtick run inside it, so no text in
/// the body can close the fence (the CommonMark rule). `label` follows the opening fence.
pub fn fence(label: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let ticks = "`".repeat((longest + 1).max(3));
    format!("{ticks}{label}\n{body}\n{ticks}\n")
}

/// Control characters (newlines included) made spaces and the ends trimmed, so one field
/// cannot fake the next line of the prompt.
pub fn one_line(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    flat.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outlasts_any_backtick_run_inside() {
        assert_eq!(fence("text", "a"), "```text\na\n```\n");
        assert_eq!(fence("", "x ```` y"), "`````\nx ```` y\n`````\n");
        assert_eq!(one_line(" a\nb\tc \r"), "a b c");
    }
}
