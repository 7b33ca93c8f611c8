//! Durative actions (PDDL 2.1): time specifiers, timed conditions and timed effects.

use crate::ast::*;
use crate::diagnostic::Code;
use crate::lexer::Tok;
use crate::span::Span;

use super::Parser;

impl<'a> Parser<'a> {
    pub(super) fn time_spec(&mut self, allow_over_all: bool) -> Option<TimeSpec> {
        let t = self.peek();
        let word = if t.kind == Tok::Atom {
            self.text(t.span).to_ascii_lowercase()
        } else {
            String::new()
        };
        let spec = match word.as_str() {
            "at" => {
                self.bump();
                if self.eat_word("start") {
                    Some(TimeSpec::AtStart)
                } else if self.eat_word("end") {
                    Some(TimeSpec::AtEnd)
                } else {
                    None
                }
            }
            "over" if allow_over_all => {
                self.bump();
                self.eat_word("all").then_some(TimeSpec::OverAll)
            }
            _ => None,
        };
        if spec.is_none() {
            let t = self.peek();
            self.unexpected(
                t,
                if allow_over_all {
                    "`at start`, `at end` or `over all`"
                } else {
                    "`at start` or `at end`"
                },
            );
        }
        spec
    }

    pub(super) fn timed_formula(&mut self) -> Option<TimedFormula> {
        let open = self.open("a timed condition")?;
        let head = self.peek();
        if head.kind == Tok::Close {
            let close = self.close("`()`");
            return Some(TimedFormula::And(Vec::new(), open.to(close)));
        }
        if self.eat_word("and") {
            let mut parts = Vec::new();
            while self.peek().kind == Tok::Open {
                if let Some(f) = self.timed_formula() {
                    parts.push(f);
                }
            }
            let close = self.close("`(and ...)`");
            return Some(TimedFormula::And(parts, open.to(close)));
        }
        if self.eat_word("forall") {
            let vars = self.var_list("the quantified variables");
            let body = self.timed_formula();
            let close = self.close("`(forall ...)`");
            return Some(TimedFormula::Forall(vars?, Box::new(body?), open.to(close)));
        }
        // `(preference NAME (at start f))` is read as `(at start (preference NAME f))`: one
        // tree for both ways of writing it (the writer writes the first).
        let word = self.peek();
        if word.kind == Tok::Atom && self.text(word.span).eq_ignore_ascii_case("preference") {
            self.bump();
            let name = self.preference_name();
            let body = self.timed_formula();
            let close = self.close("`(preference NAME ...)`: a preference holds one condition");
            let span = open.to(close);
            return match body? {
                TimedFormula::At(spec, f, _) => Some(TimedFormula::At(
                    spec,
                    Formula::Preference(name, Box::new(f), span),
                    span,
                )),
                other => {
                    let at = match &other {
                        TimedFormula::And(_, s)
                        | TimedFormula::Forall(_, _, s)
                        | TimedFormula::At(_, _, s) => *s,
                    };
                    self.error(
                        Code::Unsupported,
                        at,
                        "a preference in a durative action's condition holds one timed \
                         condition: `(at start ...)`, `(at end ...)` or `(over all ...)`",
                    )
                    .help = Some(
                        "write one `(preference NAME (at start ...))` per timed condition".into(),
                    );
                    None
                }
            };
        }
        let Some(spec) = self.time_spec(true) else {
            self.skip_rest_of_list();
            return None;
        };
        let f = self.formula();
        let close = self.close(format_args!("`({} ...)`", spec.as_str()));
        Some(TimedFormula::At(spec, f?, open.to(close)))
    }

    pub(super) fn timed_effect(&mut self) -> Option<TimedEffect> {
        let open = self.open("a timed effect")?;
        let head = self.peek();
        if head.kind == Tok::Close {
            let close = self.close("`()`");
            return Some(TimedEffect::And(Vec::new(), open.to(close)));
        }
        if self.eat_word("and") {
            let mut parts = Vec::new();
            while self.peek().kind == Tok::Open {
                if let Some(e) = self.timed_effect() {
                    parts.push(e);
                }
            }
            let close = self.close("`(and ...)`");
            return Some(TimedEffect::And(parts, open.to(close)));
        }
        if self.eat_word("forall") {
            let vars = self.var_list("the quantified variables");
            let body = self.timed_effect();
            let close = self.close("`(forall ...)`");
            return Some(TimedEffect::Forall(vars?, Box::new(body?), open.to(close)));
        }
        if self.eat_word("when") {
            let cond = self.timed_formula();
            let body = self.timed_effect();
            let close = self.close("`(when ...)`");
            return Some(TimedEffect::When(cond?, Box::new(body?), open.to(close)));
        }
        let t = self.peek();
        if t.kind == Tok::Atom
            && matches!(
                self.text(t.span).to_ascii_lowercase().as_str(),
                "increase" | "decrease"
            )
        {
            // Continuous effects: `(increase (f) (* #t 2))`.
            self.error(
                Code::Unsupported,
                open,
                "continuous effects (`#t`) are not supported",
            )
            .help =
                Some("safeplan validates discrete plans; model the change with `at end`".into());
            self.skip_rest_of_list();
            return None;
        }
        let Some(spec) = self.time_spec(false) else {
            self.skip_rest_of_list();
            return None;
        };
        let e = self.effect();
        let close = self.close(format_args!("`({} ...)`", spec.as_str()));
        Some(TimedEffect::At(spec, e?, open.to(close)))
    }

    // ----- sections -------------------------------------------------------------------------

    pub(super) fn durative_action(&mut self, open: Span) -> Option<DurativeAction> {
        let name = self.name("the action name");
        let mut params = Vec::new();
        let mut duration = None;
        let mut condition = None;
        let mut effect = None;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close | Tok::Eof => break,
                Tok::Atom => {
                    self.bump();
                    let word = self.text(t.span).to_ascii_lowercase();
                    match word.as_str() {
                        ":parameters" => {
                            params = self.var_list("`:parameters`").unwrap_or_default()
                        }
                        ":duration" => duration = self.formula(),
                        ":condition" => condition = self.timed_formula(),
                        ":effect" => effect = self.timed_effect(),
                        _ => {
                            self.unexpected(
                                t,
                                "`:parameters`, `:duration`, `:condition` or `:effect`",
                            );
                            if matches!(self.peek().kind, Tok::Open) {
                                self.skip_element();
                            }
                        }
                    }
                }
                Tok::Open => {
                    self.unexpected(t, "`:parameters`, `:duration`, `:condition` or `:effect`");
                    self.skip_element();
                }
            }
        }
        let close = self.close("`(:durative-action ...)`");
        Some(DurativeAction {
            name: name?,
            params,
            duration,
            condition,
            effect,
            span: open.to(close),
        })
    }
}
