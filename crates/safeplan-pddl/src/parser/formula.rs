//! Conditions and numeric expressions: `and`/`or`/`not`/`imply`, quantifiers, equality,
//! comparisons, atoms and fluent terms.

use crate::ast::*;
use crate::diagnostic::Code;
use crate::lexer::{Tok, Token};
use crate::span::Span;

use super::{FORMULA_KEYWORDS, Head, Parser, keyword, looks_numeric, truncate};

impl<'a> Parser<'a> {
    /// A goal description. `None` when it could not be read (reported and skipped).
    pub(super) fn formula(&mut self) -> Option<Formula> {
        match self.formula_head()? {
            Head::Done(f) => Some(f),
            Head::Word(open, head) => self.formula_rest(open, head),
        }
    }

    /// The `(` and the head word of a condition, or the whole condition when it is `()`.
    /// `None` when it could not be read (reported and skipped).
    pub(super) fn formula_head(&mut self) -> Option<Head> {
        let t = self.peek();
        if t.kind != Tok::Open {
            self.unexpected(t, "a condition in parentheses");
            if t.kind == Tok::Atom {
                self.bump();
            }
            return None;
        }
        let open = self.open("a condition")?;
        let head = self.peek();
        if head.kind == Tok::Close {
            // `()` is the empty conjunction, as many domains write it.
            let close = self.close("`()`");
            return Some(Head::Done(Formula::And(Vec::new(), open.to(close))));
        }
        if head.kind != Tok::Atom {
            self.unexpected(head, "a predicate name or `and`, `or`, `not`, ...");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        Some(Head::Word(open, head))
    }

    /// The rest of a condition whose `(` and head word `head` were read.
    pub(super) fn formula_rest(&mut self, open: Span, head: Token) -> Option<Formula> {
        let word = self.text(head.span);
        let lower = keyword(word, FORMULA_KEYWORDS);
        match lower {
            "and" | "or" => {
                let mut parts = Vec::new();
                while self.peek().kind == Tok::Open || self.peek().kind == Tok::Atom {
                    if let Some(f) = self.formula() {
                        parts.push(f);
                    }
                }
                let close = self.close(format_args!("`({word} ...)`"));
                let span = open.to(close);
                Some(if lower == "and" {
                    Formula::And(parts, span)
                } else {
                    Formula::Or(parts, span)
                })
            }
            "not" => {
                let inner = self.formula();
                let close = self.close("`(not ...)`: `not` takes exactly one condition");
                Some(Formula::Not(Box::new(inner?), open.to(close)))
            }
            "imply" => {
                let a = self.formula();
                let b = self.formula();
                let close = self.close("`(imply ...)`: `imply` takes exactly two conditions");
                Some(Formula::Imply(Box::new(a?), Box::new(b?), open.to(close)))
            }
            "exists" | "forall" => {
                let vars = self.var_list("the quantified variables");
                let body = self.formula();
                let close = self.close(format_args!("`({lower} ...)`"));
                let (vars, body, span) = (vars?, Box::new(body?), open.to(close));
                Some(if lower == "exists" {
                    Formula::Exists(vars, body, span)
                } else {
                    Formula::Forall(vars, body, span)
                })
            }
            "=" => self.equality_or_compare(open, head),
            "<" | "<=" | ">" | ">=" => {
                let op = match lower {
                    "<" => CmpOp::Lt,
                    "<=" => CmpOp::Le,
                    ">" => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                let a = self.expr();
                let b = self.expr();
                let close = self.close(format_args!(
                    "`({word} ...)`: a comparison takes two expressions"
                ));
                Some(Formula::Compare(op, a?, b?, open.to(close)))
            }
            // Where a preference may stand (an action's precondition, under `and`) is the
            // task compiler's judgement, with the place in its error.
            "preference" => {
                let name = self.preference_name();
                let body = self.formula();
                let close = self.close("`(preference NAME ...)`: a preference holds one condition");
                Some(Formula::Preference(name, Box::new(body?), open.to(close)))
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
                Some(Formula::Atom(Atom {
                    predicate,
                    args,
                    span: open.to(close),
                }))
            }
        }
    }

    /// `(= a b)`: object equality when both sides are plain terms, else a numeric comparison.
    pub(super) fn equality_or_compare(&mut self, open: Span, head: Token) -> Option<Formula> {
        let first = self.peek();
        let numeric_first = first.kind == Tok::Open || self.is_number_token(first);
        if numeric_first {
            let a = self.expr();
            let b = self.expr();
            let close = self.close("`(= ...)`: `=` takes two arguments");
            return Some(Formula::Compare(CmpOp::Eq, a?, b?, open.to(close)));
        }
        if first.kind != Tok::Atom {
            self.unexpected(first, "two terms or expressions after `=`");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let second = self.peek();
        if second.kind == Tok::Open || self.is_number_token(second) {
            // `(= ?v (f))`-style numeric comparison with a bare first operand.
            let a = self.expr_from_atom(first);
            let b = self.expr();
            let close = self.close("`(= ...)`: `=` takes two arguments");
            return Some(Formula::Compare(CmpOp::Eq, a?, b?, open.to(close)));
        }
        if second.kind != Tok::Atom {
            self.unexpected(second, "a second term after `=`");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let a = self.term_from(first);
        let b = self.term_from(second);
        let close = self.close("`(= ...)`: `=` takes two arguments");
        let _ = head;
        Some(Formula::Equals(a, b, open.to(close)))
    }

    pub(super) fn is_number_token(&self, t: Token) -> bool {
        t.kind == Tok::Atom && looks_numeric(self.text(t.span))
    }

    // ----- numeric expressions ------------------------------------------------------------

    pub(super) fn expr(&mut self) -> Option<Expr> {
        let t = self.peek();
        match t.kind {
            Tok::Atom => {
                self.bump();
                self.expr_from_atom(t)
            }
            Tok::Open => {
                let open = self.open("an expression")?;
                let head = self.peek();
                if head.kind != Tok::Atom {
                    self.unexpected(head, "an operator or a function name");
                    self.skip_rest_of_list();
                    return None;
                }
                self.bump();
                let word = self.text(head.span);
                let op = match word {
                    "+" => Some(ArithOp::Add),
                    "-" => Some(ArithOp::Sub),
                    "*" => Some(ArithOp::Mul),
                    "/" => Some(ArithOp::Div),
                    _ => None,
                };
                match op {
                    Some(op) => {
                        let mut args = Vec::new();
                        while matches!(self.peek().kind, Tok::Open | Tok::Atom) {
                            if let Some(e) = self.expr() {
                                args.push(e);
                            }
                        }
                        let close = self.close(format_args!("`({word} ...)`"));
                        let span = open.to(close);
                        let (ok, wanted) = match op {
                            ArithOp::Sub => (matches!(args.len(), 1 | 2), "one or two operands"),
                            ArithOp::Div => (args.len() == 2, "exactly two operands"),
                            ArithOp::Add | ArithOp::Mul => {
                                (args.len() >= 2, "two or more operands")
                            }
                        };
                        if !ok {
                            self.error(
                                Code::ArityMismatch,
                                span,
                                format!("`{word}` takes {wanted}, found {}", args.len()),
                            );
                            return None;
                        }
                        Some(Expr::Arith(op, args, span))
                    }
                    None => {
                        if word.starts_with(':') || word.starts_with('?') || looks_numeric(word) {
                            self.unexpected(head, "an operator (`+ - * /`) or a function name");
                            self.skip_rest_of_list();
                            return None;
                        }
                        let function = self.name_from(head, "a function");
                        let args = self.terms(true);
                        let close = self.close(format_args!("`({word} ...)`"));
                        Some(Expr::Fluent(FluentTerm {
                            function,
                            args,
                            span: open.to(close),
                        }))
                    }
                }
            }
            _ => {
                self.unexpected(t, "a numeric expression");
                None
            }
        }
    }

    /// An expression that is a single atom: a number, `?duration`, or a 0-ary function
    /// written without parentheses (`total-time`).
    pub(super) fn expr_from_atom(&mut self, t: Token) -> Option<Expr> {
        let text = self.text(t.span);
        if looks_numeric(text) {
            return self.number(t).map(|v| Expr::Number(v, t.span));
        }
        if text.starts_with('?') {
            return Some(Expr::Var(self.var_from(t)));
        }
        if text.starts_with(':') {
            self.unexpected(t, "a numeric expression");
            return None;
        }
        let function = self.name_from(t, "a function");
        Some(Expr::Fluent(FluentTerm {
            function,
            args: Vec::new(),
            span: t.span,
        }))
    }

    pub(super) fn number(&mut self, t: Token) -> Option<f64> {
        let text = self.text(t.span);
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                self.error(
                    Code::InvalidNumber,
                    t.span,
                    format!("`{}` is not a number", truncate(text, 40)),
                )
                .help = Some("write numbers as `12`, `-3` or `0.25`".into());
                None
            }
        }
    }

    // ----- effects ------------------------------------------------------------------------

    /// `(pred terms)` where only an atom is allowed.
    pub(super) fn atom_formula(&mut self, what: &str) -> Option<Atom> {
        let open = self.open(what)?;
        let head = self.peek();
        if head.kind != Tok::Atom || self.text(head.span).starts_with([':', '?']) {
            self.unexpected(head, "a predicate name");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let predicate = self.name_from(head, "a predicate");
        let args = self.terms(true);
        let close = self.close(format_args!("the atom `({} ...)`", predicate.text));
        Some(Atom {
            predicate,
            args,
            span: open.to(close),
        })
    }

    /// `(f terms)`, or a bare 0-ary function name.
    pub(super) fn fluent_term(&mut self) -> Option<FluentTerm> {
        let t = self.peek();
        if t.kind == Tok::Atom
            && !looks_numeric(self.text(t.span))
            && !self.text(t.span).starts_with([':', '?'])
        {
            self.bump();
            let function = self.name_from(t, "a function");
            return Some(FluentTerm {
                function,
                args: Vec::new(),
                span: t.span,
            });
        }
        let open = self.open("a function term such as `(fuel ?a)`")?;
        let head = self.peek();
        if head.kind != Tok::Atom || self.text(head.span).starts_with([':', '?']) {
            self.unexpected(head, "a function name");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let function = self.name_from(head, "a function");
        let args = self.terms(true);
        let close = self.close(format_args!("`({} ...)`", function.text));
        Some(FluentTerm {
            function,
            args,
            span: open.to(close),
        })
    }

    // ----- durative actions -----------------------------------------------------------------
}
