//! Where a `#MISSING` step belongs: before or after which step, or at the end.

pub(in crate::llm) enum Place {
    At(usize),
    OutOfRange(usize),
    Unknown,
}

/// "after step 3" → before position 3; "before step 4" → 3; "between steps 3 and 4" → 3;
/// "at the start" → 0; "at the end" → the plan's length.
pub(in crate::llm) fn place_in(text: &str, len: usize) -> Place {
    let lower = text.to_lowercase();
    let w: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect();
    let filler = |s: &str| {
        matches!(
            s,
            "step" | "steps" | "action" | "actions" | "the" | "number" | "no" | "line" | "item"
        )
    };
    for (i, word) in w.iter().enumerate() {
        let after = matches!(*word, "after" | "following" | "between");
        let before = matches!(*word, "before" | "preceding");
        if after || before {
            let mut j = i + 1;
            while w.get(j).is_some_and(|s| filler(s)) {
                j += 1;
            }
            if let Some(n) = w.get(j).and_then(|s| s.parse::<usize>().ok()) {
                let at = if after { Some(n) } else { n.checked_sub(1) };
                return match at {
                    Some(at) if at <= len => Place::At(at),
                    Some(at) => Place::OutOfRange(at),
                    None => Place::At(0),
                };
            }
        }
        if matches!(*word, "start" | "beginning") && i > 0 && matches!(w[i - 1], "the" | "very") {
            return Place::At(0);
        }
        if *word == "end" && i > 0 && matches!(w[i - 1], "the" | "very") {
            return Place::At(len);
        }
    }
    Place::Unknown
}
