//! ANSI styling, and the small wording helpers, for the few words the CLI prints itself
//! (miette styles its own).

/// ANSI styling for the few words this crate prints itself (miette styles its own).
pub struct Style {
    color: bool,
}

impl Style {
    pub(crate) fn new(color: bool) -> Style {
        Style { color }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// `→` when drawing with Unicode (with colour), `->` in plain ASCII output.
    pub fn arrow(&self) -> &'static str {
        if self.color { "\u{2192}" } else { "->" }
    }

    /// Green: all is well.
    pub fn ok(&self, text: &str) -> String {
        self.paint("1;32", text)
    }

    /// Yellow: not done.
    pub fn skip(&self, text: &str) -> String {
        self.paint("1;33", text)
    }

    pub(crate) fn note(&self, text: &str) -> String {
        self.paint("1;36", text)
    }

    /// Red: errors.
    pub fn error(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Yellow: warnings.
    pub fn warning(&self, text: &str) -> String {
        self.paint("1;33", text)
    }

    /// `2 errors, 1 warning` (either part left out when 0), coloured.
    pub fn counts(&self, errors: usize, warnings: usize) -> String {
        let mut parts = Vec::new();
        if errors > 0 {
            parts.push(self.error(&count(errors, "error", "errors")));
        }
        if warnings > 0 {
            parts.push(self.warning(&count(warnings, "warning", "warnings")));
        }
        parts.join(", ")
    }
}

/// `n thing` or `n things`: the library's counting, as its report words it.
pub use safeplan_validate::words::count;

/// The library's verdict words ([`safeplan_validate::words`]) in this style's colours.
impl safeplan_validate::words::Paint for Style {
    fn good(&self, text: &str) -> String {
        self.ok(text)
    }

    fn bad(&self, text: &str) -> String {
        self.error(text)
    }

    fn arrow(&self) -> &'static str {
        Style::arrow(self)
    }
}

#[cfg(test)]
mod tests {
    use safeplan_validate::DangerEvent;

    use super::Style;

    /// The library's words for a danger event, with the CLI's plain arrow.
    #[test]
    fn danger_events_read_as_english() {
        let e = |because: &[&str]| DangerEvent {
            step: 3,
            action: "(a)".into(),
            before: 0.0,
            after: 1.0,
            time: None,
            event: None,
            because: because.iter().map(|x| x.to_string()).collect(),
        };
        let style = Style::new(false);
        assert_eq!(
            e(&[]).sentence(style.arrow()),
            "step 3 (a) raised danger 0 -> 1 (unconditional effect)"
        );
        assert_eq!(
            e(&["(x)"]).sentence(style.arrow()),
            "step 3 (a) raised danger 0 -> 1 because (x) held"
        );
        assert_eq!(
            e(&["(x)", "(y)", "(z)"]).sentence(style.arrow()),
            "step 3 (a) raised danger 0 -> 1 because (x), (y) and (z) held"
        );
    }
}
