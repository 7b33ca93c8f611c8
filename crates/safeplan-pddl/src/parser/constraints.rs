//! PDDL3: the `:constraints` section's modal operators, preferences and the goal's parts.

use crate::ast::*;
use crate::diagnostic::Code;
use crate::lexer::{Tok, Token};
use crate::span::Span;

use super::{CONSTRAINT_KEYWORDS, GoalPart, Head, Parser, keyword, looks_numeric, truncate};

impl<'a> Parser<'a> {
    /// The body of a `(:constraints ...)` section, up to and including its `)`. Several
    /// constraints without an enclosing `and` (as LEXICON writes them) are read as their
    /// conjunction, with a warning: VAL drops such a section or fails to read the file.
    pub(super) fn constraints_section(&mut self, open: Span, kw: Token) -> Option<Constraint> {
        let mut parts = Vec::new();
        while matches!(self.peek().kind, Tok::Open | Tok::Atom) {
            if let Some(c) = self.constraint(false) {
                parts.push(c);
            }
        }
        let close = self.close("`(:constraints ...)`");
        let span = open.to(close);
        if parts.len() > 1 {
            let n = parts.len();
            self.error(
                Code::ConstraintsWithoutAnd,
                kw.span,
                format!(
                    "`(:constraints ...)` holds {n} constraints without an enclosing `(and ...)`; \
                     they are read as their conjunction"
                ),
            )
            .severity = crate::diagnostic::Severity::Warning;
            if let Some(d) = self.diagnostics.last_mut() {
                d.help = Some(
                    "wrap them in `(and ...)`: PDDL3 allows one constraint here, and VAL silently \
                     drops such a section (or fails to read the file), so other tools may not \
                     check these constraints"
                        .into(),
                );
            }
            return Some(Constraint::And(parts, span));
        }
        parts.pop()
    }

    /// A trajectory constraint (PDDL3's `<pref-con-GD>`). `in_preference`: inside a
    /// `(preference ...)`, where another one may not start.
    pub(super) fn constraint(&mut self, in_preference: bool) -> Option<Constraint> {
        let t = self.peek();
        if t.kind != Tok::Open {
            self.unexpected(t, "a trajectory constraint such as `(always ...)`");
            if t.kind == Tok::Atom {
                self.bump();
            }
            return None;
        }
        let open = self.open("a trajectory constraint")?;
        let head = self.peek();
        if head.kind != Tok::Atom {
            self.unexpected(
                head,
                "a trajectory operator (`always`, `sometime`, `at end`, ...)",
            );
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let word = self.text(head.span);
        let lower = keyword(word, CONSTRAINT_KEYWORDS);
        let modal = match lower {
            "and" => {
                let mut parts = Vec::new();
                while matches!(self.peek().kind, Tok::Open | Tok::Atom) {
                    if let Some(c) = self.constraint(in_preference) {
                        parts.push(c);
                    }
                }
                let close = self.close("`(and ...)`");
                return Some(Constraint::And(parts, open.to(close)));
            }
            "forall" => {
                let vars = self.var_list("the quantified variables");
                let body = self.constraint(in_preference);
                let close = self.close("`(forall ...)`: `forall` takes one constraint");
                return Some(Constraint::Forall(vars?, Box::new(body?), open.to(close)));
            }
            "preference" => {
                if in_preference {
                    self.error(
                        Code::UnexpectedToken,
                        head.span,
                        "a preference cannot be nested inside another preference",
                    )
                    .help = Some("remove the inner `(preference NAME ...)`".into());
                    self.skip_rest_of_list();
                    return None;
                }
                let name = self.preference_name();
                let body = self.constraint(true);
                let close =
                    self.close("`(preference NAME ...)`: a preference holds one constraint");
                return Some(Constraint::Preference(
                    name,
                    Box::new(body?),
                    open.to(close),
                ));
            }
            "at" => {
                if !self.eat_word("end") {
                    let t = self.peek();
                    self.unexpected(t, "`end`, as in `(at end CONDITION)`");
                    self.skip_rest_of_list();
                    return None;
                }
                self.formula().map(Modal::AtEnd)
            }
            "always" => self.formula().map(Modal::Always),
            "sometime" => self.formula().map(Modal::Sometime),
            "at-most-once" => self.formula().map(Modal::AtMostOnce),
            "within" => {
                let t = self.time_value("the deadline of `within`");
                let f = self.formula();
                Some(Modal::Within(t?, f?))
            }
            "hold-after" => {
                let t = self.time_value("the time of `hold-after`");
                let f = self.formula();
                Some(Modal::HoldAfter(t?, f?))
            }
            "sometime-after" | "sometime-before" => {
                let a = self.formula();
                let b = self.formula();
                let (a, b) = (a?, b?);
                Some(if lower == "sometime-after" {
                    Modal::SometimeAfter(a, b)
                } else {
                    Modal::SometimeBefore(a, b)
                })
            }
            "always-within" => {
                let t = self.time_value("the deadline of `always-within`");
                let a = self.formula();
                let b = self.formula();
                Some(Modal::AlwaysWithin(t?, a?, b?))
            }
            "hold-during" => {
                let from = self.time_value("the start of `hold-during`");
                let to = self.time_value("the end of `hold-during`");
                let f = self.formula();
                Some(Modal::HoldDuring(from?, to?, f?))
            }
            _ => {
                let found = truncate(word, 40);
                self.error(
                    Code::UnexpectedToken,
                    head.span,
                    format!("expected a trajectory operator, found `{found}`"),
                )
                .help = Some(
                    "a constraint is `(always C)`, `(sometime C)`, `(at end C)`, `(within T C)`, \
                     `(at-most-once C)`, `(sometime-after C D)`, `(sometime-before C D)`, \
                     `(always-within T C D)`, `(hold-during T1 T2 C)` or `(hold-after T C)`, \
                     combined with `and`, `forall` and `preference`"
                        .into(),
                );
                self.skip_rest_of_list();
                return None;
            }
        };
        let close = self.close(format_args!(
            "`({word} ...)`: the operator takes {}",
            match lower {
                "within" | "hold-after" => "a time and one condition",
                "sometime-after" | "sometime-before" => "two conditions",
                "always-within" => "a time and two conditions",
                "hold-during" => "two times and one condition",
                _ => "one condition",
            }
        ));
        Some(Constraint::Modal(Box::new(modal?), open.to(close)))
    }

    /// The optional name after `preference`.
    pub(super) fn preference_name(&mut self) -> Option<Name> {
        let t = self.peek();
        (t.kind == Tok::Atom).then(|| {
            self.bump();
            self.name_from(t, "a preference name")
        })
    }

    /// A time in a constraint (`within 10 ...`): a number.
    pub(super) fn time_value(&mut self, what: &str) -> Option<f64> {
        let t = self.peek();
        if t.kind == Tok::Atom && looks_numeric(self.text(t.span)) {
            self.bump();
            return self.number(t);
        }
        self.unexpected(t, &format!("a number: {what}"));
        None
    }

    /// One part of a `:goal`: a hard condition, or preferences (at the top, under `and`
    /// and `forall`), which go to `prefs` as `(preference NAME (at end φ))` under the
    /// `forall`s that enclose them.
    pub(super) fn goal_part(&mut self, prefs: &mut Vec<Constraint>) -> GoalPart {
        let (open, head) = match self.formula_head() {
            None => return GoalPart::Failed,
            Some(Head::Done(f)) => return GoalPart::Hard(f),
            Some(Head::Word(open, head)) => (open, head),
        };
        let word = self.text(head.span);
        match keyword(word, &["and", "forall", "preference"]) {
            "and" => {
                let mut parts = Vec::new();
                let mut soft = false;
                while matches!(self.peek().kind, Tok::Open | Tok::Atom) {
                    match self.goal_part(prefs) {
                        GoalPart::Hard(f) => parts.push(f),
                        GoalPart::Soft => soft = true,
                        GoalPart::Failed => {}
                    }
                }
                let close = self.close(format_args!("`({word} ...)`"));
                if soft && parts.is_empty() {
                    GoalPart::Soft
                } else {
                    GoalPart::Hard(Formula::And(parts, open.to(close)))
                }
            }
            "forall" => {
                let vars = self.var_list("the quantified variables");
                let mut inner = Vec::new();
                let body = self.goal_part(&mut inner);
                let close = self.close("`(forall ...)`");
                let span = open.to(close);
                let Some(vars) = vars else {
                    return GoalPart::Failed;
                };
                if !inner.is_empty() {
                    let soft = if inner.len() == 1 {
                        inner.remove(0)
                    } else {
                        Constraint::And(inner, span)
                    };
                    prefs.push(Constraint::Forall(vars.clone(), Box::new(soft), span));
                }
                match body {
                    GoalPart::Hard(f) => GoalPart::Hard(Formula::Forall(vars, Box::new(f), span)),
                    other => other,
                }
            }
            "preference" => {
                let name = self.preference_name();
                let body = self.formula();
                let close =
                    self.close("`(preference NAME ...)`: a goal preference holds one condition");
                let span = open.to(close);
                match body {
                    Some(f) => {
                        let at_end = Constraint::Modal(Box::new(Modal::AtEnd(f)), span);
                        prefs.push(Constraint::Preference(name, Box::new(at_end), span));
                        GoalPart::Soft
                    }
                    None => GoalPart::Failed,
                }
            }
            _ => match self.formula_rest(open, head) {
                Some(f) => GoalPart::Hard(f),
                None => GoalPart::Failed,
            },
        }
    }
}
