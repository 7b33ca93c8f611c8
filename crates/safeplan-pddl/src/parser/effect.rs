//! Effects: `and`, `not`, `forall`, `when` and the numeric assignments.

use crate::ast::*;
use crate::lexer::Tok;

use super::{EFFECT_KEYWORDS, Parser, keyword};

impl<'a> Parser<'a> {
    pub(super) fn effect(&mut self) -> Option<Effect> {
        let t = self.peek();
        if t.kind != Tok::Open {
            self.unexpected(t, "an effect in parentheses");
            if t.kind == Tok::Atom {
                self.bump();
            }
            return None;
        }
        let open = self.open("an effect")?;
        let head = self.peek();
        if head.kind == Tok::Close {
            let close = self.close("`()`");
            return Some(Effect::And(Vec::new(), open.to(close)));
        }
        if head.kind != Tok::Atom {
            self.unexpected(
                head,
                "a predicate name or `and`, `not`, `when`, `forall`, ...",
            );
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let word = self.text(head.span);
        let lower = keyword(word, EFFECT_KEYWORDS);
        match lower {
            "and" => {
                let mut parts = Vec::new();
                while matches!(self.peek().kind, Tok::Open | Tok::Atom) {
                    if let Some(e) = self.effect() {
                        parts.push(e);
                    }
                }
                let close = self.close("`(and ...)`");
                Some(Effect::And(parts, open.to(close)))
            }
            "not" => {
                let atom = self.atom_formula("the atom to delete");
                let close = self.close("`(not ...)`: a delete effect negates exactly one atom");
                Some(Effect::Delete(atom?, open.to(close)))
            }
            "forall" => {
                let vars = self.var_list("the quantified variables");
                let body = self.effect();
                let close = self.close("`(forall ...)`");
                Some(Effect::Forall(vars?, Box::new(body?), open.to(close)))
            }
            "when" => {
                let cond = self.formula();
                let body = self.effect();
                let close = self.close("`(when ...)`: `when` takes a condition and an effect");
                Some(Effect::When(cond?, Box::new(body?), open.to(close)))
            }
            "assign" | "increase" | "decrease" | "scale-up" | "scale-down" => {
                let op = match lower {
                    "assign" => AssignOp::Assign,
                    "increase" => AssignOp::Increase,
                    "decrease" => AssignOp::Decrease,
                    "scale-up" => AssignOp::ScaleUp,
                    _ => AssignOp::ScaleDown,
                };
                let target = self.fluent_term();
                let value = self.expr();
                let close = self.close(format_args!(
                    "`({word} ...)`: it takes a function and a value"
                ));
                Some(Effect::Numeric(op, target?, value?, open.to(close)))
            }
            _ => {
                if word.starts_with(':') || word.starts_with('?') {
                    self.unexpected(head, "a predicate name");
                    self.skip_rest_of_list();
                    return None;
                }
                let predicate = self.name_from(head, "a predicate");
                let args = self.terms(true);
                let close = self.close(format_args!("the atom `({word} ...)`"));
                Some(Effect::Add(Atom {
                    predicate,
                    args,
                    span: open.to(close),
                }))
            }
        }
    }
}
