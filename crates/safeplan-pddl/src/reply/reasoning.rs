//! Reasoning blocks (`<think>…</think>` and kin): not the answer, blanked byte for byte so
//! that every span and line number of the rest stays that of the reply.

/// The reply without its reasoning blocks (`<think>...</think>`, `<thinking>`,
/// `<reasoning>`, an unclosed one to the end, everything before a lone `</think>`): each
/// blanked to spaces, line breaks kept, so positions and line numbers in the result are
/// those of `text`. What [`read_reply`](crate::read_reply) reads; for readers of other replies (a judge's, a
/// reviser's) that must not read a model's musings as its answer.
///
/// ```
/// let reply = "<think>maybe (pick-up a)?</think>\n(stack a b)";
/// assert_eq!(safeplan_pddl::without_reasoning(reply).trim(), "(stack a b)");
/// ```
pub fn without_reasoning(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (start, end) in reasoning_blocks(text) {
        blank(&mut bytes, start, end);
    }
    // Blanking replaces whole tags and their contents with ASCII spaces, never part of a
    // character: still UTF-8 unless a block boundary fell inside one, which tags cannot.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Replace `start..end` of `bytes` by spaces, keeping line breaks (and so line numbers).
pub(super) fn blank(bytes: &mut [u8], start: usize, end: usize) {
    for b in bytes.iter_mut().take(end).skip(start) {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// The byte ranges of reasoning blocks: `<think>...</think>` (and `thinking`, `reasoning`),
/// an unclosed one to the end, and everything before a `</think>` that has no opener (as
/// some APIs return DeepSeek-R1's reasoning).
pub(super) fn reasoning_blocks(text: &str) -> Vec<(usize, usize)> {
    // Most replies have no tag at all.
    if !text.contains('<') {
        return Vec::new();
    }
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    for tag in ["think", "thinking", "reasoning"] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        let mut from = 0;
        while let Some(rel) = lower[from..].find(&close) {
            let close_at = from + rel;
            let end = close_at + close.len();
            let start = lower[from..close_at].rfind(&open).map_or(
                // A lone closing tag: everything before it is the reasoning.
                if out.is_empty() && from == 0 {
                    0
                } else {
                    close_at
                },
                |o| from + o,
            );
            out.push((start, end));
            from = end;
        }
        if let Some(rel) = lower[from..].find(&open) {
            out.push((from + rel, text.len()));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
