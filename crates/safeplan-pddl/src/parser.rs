//! Tokens to typed AST: domains and problems.
//!
//! Recursive descent with one token of lookahead. The rule that keeps recovery simple: a
//! function that consumes a `(` also consumes its matching `)`, even when what lies between
//! is wrong. On an error it reports one diagnostic, skips to that `)` (iteratively, counting
//! parentheses) and returns `None`; its caller carries on with the next sibling. So one
//! mistake costs one diagnostic and the rest of the file is still read.
//!
//! Nesting is bounded by [`MAX_DEPTH`]: deeper lists are reported and skipped without
//! recursion, so no input can overflow the stack.

use compact_str::CompactString;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, FileKind, nearest};
use crate::lexer::{Lexer, Tok, Token};
use crate::requirements::Requirement;
use crate::span::Span;

/// The deepest nesting of parentheses the parser descends into. Real PDDL stays under 20;
/// the limit exists so that hostile input gets a diagnostic instead of a stack overflow.
pub const MAX_DEPTH: u32 = 100;

const DOMAIN_SECTIONS: &[&str] = &[
    ":requirements",
    ":types",
    ":constants",
    ":predicates",
    ":functions",
    ":action",
    ":derived",
    ":durative-action",
    ":constraints",
];

const PROBLEM_SECTIONS: &[&str] = &[
    ":domain",
    ":requirements",
    ":objects",
    ":init",
    ":goal",
    ":metric",
    ":constraints",
];

pub(crate) struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    /// The next token (one token of lookahead, always filled).
    peeked: Token,
    file: FileKind,
    depth: u32,
    /// Innermost `(` still open, for "never closed" messages.
    open_stack: Vec<Span>,
    eof_reported: bool,
    too_deep_reported: bool,
    /// Set by `terms` when an atom's `)` is missing; the next `close` takes it as closed.
    assume_closed: bool,
    /// How many `)` were reported missing (and assumed) so far: an end of file with no more
    /// lists open than that has been explained already.
    missing_closes: usize,
    /// Scratch space of `terms`.
    term_buffer: Vec<Term>,
    pub diagnostics: Vec<Diagnostic>,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, file: FileKind) -> Parser<'a> {
        let mut lexer = Lexer::new(src);
        let peeked = lexer.next_token();
        Parser {
            src,
            lexer,
            peeked,
            file,
            depth: 0,
            open_stack: Vec::new(),
            eof_reported: false,
            too_deep_reported: false,
            assume_closed: false,
            missing_closes: 0,
            term_buffer: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    // ----- token plumbing -------------------------------------------------------------

    /// The next token, not consumed.
    #[inline]
    fn peek(&mut self) -> Token {
        self.peeked
    }

    /// Consume the next token and return it. The lexer is pure (it only moves forward over
    /// the text, and yields `Eof` forever at the end), so reading one token ahead eagerly is
    /// the same as reading it on the first `peek`, and keeps `peek` a plain load.
    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.peeked;
        self.peeked = self.lexer.next_token();
        t
    }

    fn text(&self, span: Span) -> &'a str {
        &self.src[span.range()]
    }

    fn error(&mut self, code: Code, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::error(code, self.file, span, message));
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Tok::Open => "`(`".into(),
            Tok::Close => "`)`".into(),
            Tok::Eof => "the end of the file".into(),
            Tok::Atom => format!("`{}`", truncate(self.text(t.span), 40)),
        }
    }

    /// Report that the file ended while lists were open (once per file). `skipped` counts
    /// lists opened while skipping (not on `open_stack`), the innermost of them at `innermost`.
    fn report_eof(&mut self, at: Span, skipped: usize, innermost: Option<Span>) {
        if self.eof_reported {
            return;
        }
        self.eof_reported = true;
        if skipped == 0 && self.open_stack.len() <= self.missing_closes {
            return;
        }
        let open = innermost.or_else(|| self.open_stack.last().copied());
        let outer = self.open_stack.first().copied();
        let n = self.open_stack.len() + skipped;
        let d = self.error(
            Code::UnclosedParen,
            at,
            format!(
                "the file ends while {n} `(` {} still open",
                if n == 1 { "is" } else { "are" }
            ),
        );
        let file = d.file;
        if let Some(open) = open {
            d.labels.push(crate::diagnostic::Label {
                file,
                span: open,
                message: "innermost unclosed `(`".into(),
            });
        }
        if let (Some(outer), true) = (outer, n > 1) {
            d.labels.push(crate::diagnostic::Label {
                file,
                span: outer,
                message: "outermost unclosed `(`".into(),
            });
        }
        d.help = Some(if n == 1 {
            "add the missing `)` at the end, or check whether the file was cut short".into()
        } else {
            format!("add the {n} missing `)`, or check whether the file was cut short")
        });
    }

    /// Consume a `(` and enter it. Returns its span, or `None` (reported) if the next token
    /// is not `(` or the list is nested too deep (then it is skipped entirely).
    fn open(&mut self, what: &str) -> Option<Span> {
        let t = self.peek();
        if t.kind != Tok::Open {
            self.unexpected(t, &format!("`(` to start {what}"));
            return None;
        }
        self.bump();
        self.enter(t.span)
    }

    /// Enter a list whose `(` (at `open`) was just consumed.
    fn enter(&mut self, open: Span) -> Option<Span> {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.error(
                    Code::TooDeep,
                    open,
                    format!("lists are nested more than {MAX_DEPTH} levels deep here"),
                )
                .help = Some(
                    "PDDL this deep is almost certainly generated by mistake; check for a loop in \
                     whatever wrote this file"
                        .into(),
                );
            }
            self.open_stack.push(open);
            self.skip_rest_of_list();
            self.open_stack.pop();
            return None;
        }
        self.depth += 1;
        self.open_stack.push(open);
        Some(open)
    }

    /// Consume tokens up to and including the `)` that closes the innermost open list
    /// (entered with `open`/`enter`), and leave it. Iterative: no recursion on nesting.
    fn skip_rest_of_list(&mut self) -> Span {
        let mut level = 1usize;
        let mut innermost = None;
        loop {
            let t = self.bump();
            match t.kind {
                Tok::Open => {
                    level += 1;
                    innermost = Some(t.span);
                }
                Tok::Close => {
                    level -= 1;
                    if level == 0 {
                        self.leave();
                        return t.span;
                    }
                }
                Tok::Eof => {
                    self.report_eof(t.span, level - 1, innermost);
                    self.leave();
                    return t.span;
                }
                Tok::Atom => {}
            }
        }
    }

    fn leave(&mut self) {
        if self.open_stack.pop().is_some() && self.depth > 0 {
            // `enter` on a too-deep list pushes without counting depth; it pops itself.
            self.depth -= 1;
        }
    }

    /// Expect the `)` of the innermost list. On anything else, report it (with `what` as
    /// the construct being closed) and skip to that `)`. Returns the `)` span.
    ///
    /// `what` is only formatted on the error path: callers pass `format_args!(...)`, so the
    /// `)` of every fact and atom costs no allocation.
    fn close(&mut self, what: impl std::fmt::Display) -> Span {
        if std::mem::take(&mut self.assume_closed) {
            // `terms` found the next list starting: the missing `)` was reported there.
            self.missing_closes += 1;
            self.leave();
            return self.peek().span;
        }
        let t = self.peek();
        match t.kind {
            Tok::Close => {
                self.bump();
                self.leave();
                t.span
            }
            Tok::Eof => {
                self.report_eof(t.span, 0, None);
                self.leave();
                t.span
            }
            _ => {
                self.unexpected(t, &format!("`)` to close {what}"));
                self.skip_rest_of_list()
            }
        }
    }

    fn unexpected(&mut self, t: Token, expected: &str) {
        if t.kind == Tok::Eof {
            self.report_eof(t.span, 0, None);
            return;
        }
        let found = self.describe(t);
        let help = match t.kind {
            Tok::Close => format!(
                "add {expected} before this `)`, or remove the `)` if it closes a list too early"
            ),
            Tok::Open => format!("write {expected} here; if this `(` is extra, remove it"),
            _ => format!("replace {found} with {expected}"),
        };
        self.error(
            Code::UnexpectedToken,
            t.span,
            format!("expected {expected}, found {found}"),
        )
        .help = Some(help);
    }

    /// Skip one element (an atom, or a whole list) after reporting it.
    fn skip_element(&mut self) {
        let t = self.bump();
        match t.kind {
            Tok::Open => {
                self.open_stack.push(t.span);
                self.depth += 1;
                self.skip_rest_of_list();
            }
            Tok::Eof => self.report_eof(t.span, 0, None),
            _ => {}
        }
    }

    /// The next atom, if the next token is one; does not report.
    fn atom_if(&mut self) -> Option<Token> {
        let t = self.peek();
        (t.kind == Tok::Atom).then(|| self.bump())
    }

    /// Whether the next token is the atom `word` (case-insensitive); consumes it if so.
    fn eat_word(&mut self, word: &str) -> bool {
        let t = self.peek();
        if t.kind == Tok::Atom && self.text(t.span).eq_ignore_ascii_case(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// A plain name (not `?var`, not `:keyword`).
    fn name(&mut self, what: &str) -> Option<Name> {
        let t = self.peek();
        if t.kind != Tok::Atom {
            self.unexpected(t, what);
            return None;
        }
        self.bump();
        Some(self.name_from(t, what))
    }

    /// Turn an atom token into a name, reporting characters PDDL does not allow.
    fn name_from(&mut self, t: Token, what: &str) -> Name {
        let text = self.text(t.span);
        if all_name_chars(text) {
            return Name::new(CompactString::from(text), t.span);
        }
        if let Some(bad) = text.chars().find(|&c| !is_name_char(c)) {
            let d = self.error(
                Code::InvalidName,
                t.span,
                format!(
                    "`{}` is not a valid name ({what}): {bad:?} is not allowed in PDDL names",
                    truncate(text, 40)
                ),
            );
            d.help = Some(
                "names are letters, digits, `-` and `_`; variables start with `?`, keywords with `:`"
                    .into(),
            );
        }
        Name::new(CompactString::from(text), t.span)
    }

    fn var_from(&mut self, t: Token) -> Name {
        let text = self.text(t.span);
        let body = &text[1..];
        if body.is_empty() || !all_name_chars(body) {
            self.error(
                Code::InvalidName,
                t.span,
                format!("`{}` is not a valid variable name", truncate(text, 40)),
            )
            .help = Some("write a variable as `?` followed by a name, e.g. `?x`".into());
        }
        Name::new(CompactString::from(body), t.span)
    }

    fn term_from(&mut self, t: Token) -> Term {
        if self.text(t.span).starts_with('?') {
            Term::Var(self.var_from(t))
        } else {
            Term::Const(self.name_from(t, "an object"))
        }
    }

    /// Terms up to (not including) the closing `)`.
    ///
    /// Read into a buffer kept between calls, then copied into a vector of exactly their
    /// number: pushing onto a fresh vector allocates room for four terms at once, twice what
    /// most atoms hold, and a problem's facts are most of its memory (visitall problem50:
    /// 12,302 atoms, 1 MB less, each page of it a page fault in a fresh process).
    fn terms(&mut self, allow_vars: bool) -> Vec<Term> {
        let mut buffer = std::mem::take(&mut self.term_buffer);
        self.terms_into(allow_vars, &mut buffer);
        // Not `mem::take`: that would hand over the buffer with its spare room, the very
        // thing this avoids, and leave the next atom a fresh buffer to grow.
        #[allow(clippy::drain_collect)]
        let terms = buffer.drain(..).collect();
        self.term_buffer = buffer;
        terms
    }

    fn terms_into(&mut self, allow_vars: bool, args: &mut Vec<Term>) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Atom => {
                    self.bump();
                    let term = self.term_from(t);
                    if !allow_vars && matches!(term, Term::Var(_)) {
                        self.error(
                            Code::UnexpectedToken,
                            t.span,
                            format!(
                                "variables are not allowed here, found `{}`",
                                self.text(t.span)
                            ),
                        )
                        .help =
                            Some("use an object name: this part of the problem is ground".into());
                    }
                    args.push(term);
                }
                Tok::Open => {
                    // A `(` among the arguments of an atom almost always means the atom's
                    // `)` is missing and the next fact has begun. Say so once and treat the
                    // atom as closed (see `close`), so the following facts are read normally
                    // instead of each giving an error.
                    let open = self.open_stack.last().copied().unwrap_or(t.span);
                    let d = self.error(
                        Code::UnclosedParen,
                        t.span,
                        "a new `(` starts before the previous list was closed",
                    );
                    let file = d.file;
                    d.labels.push(crate::diagnostic::Label {
                        file,
                        span: open,
                        message: "this `(` is not closed".into(),
                    });
                    d.help = Some("add `)` before this `(`".into());
                    self.assume_closed = true;
                    return;
                }
                Tok::Close | Tok::Eof => return,
            }
        }
    }

    // ----- typed lists ------------------------------------------------------------------

    /// A typed list up to (not including) the closing `)`: `a b - t c - (either u v) d`.
    fn typed_list(&mut self, vars: bool, what: &str) -> Vec<Typed> {
        let mut out: Vec<Typed> = Vec::new();
        let mut untyped_from = 0;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close | Tok::Eof => return out,
                Tok::Open => {
                    self.unexpected(t, &format!("{what} or `)`"));
                    self.skip_element();
                }
                Tok::Atom => {
                    self.bump();
                    let text = self.text(t.span);
                    if text == "-" {
                        let ty = self.type_expr();
                        if untyped_from == out.len() {
                            self.error(
                                Code::UnexpectedToken,
                                t.span,
                                format!("`-` must follow the {what}s it gives a type to"),
                            )
                            .help = Some("write `name1 name2 - type`".into());
                        }
                        if let Some(ty) = ty {
                            for entry in &mut out[untyped_from..] {
                                entry.ty = Some(ty.clone());
                            }
                        }
                        untyped_from = out.len();
                    } else if vars {
                        if text.starts_with('?') {
                            let name = self.var_from(t);
                            out.push(Typed { name, ty: None });
                        } else {
                            self.error(
                                Code::UnexpectedToken,
                                t.span,
                                format!(
                                    "expected a variable (`?name`), found `{}`",
                                    truncate(text, 40)
                                ),
                            )
                            .help = Some(format!("write `?{}`", truncate(text, 40)));
                        }
                    } else {
                        let name = self.name_from(t, what);
                        out.push(Typed { name, ty: None });
                    }
                }
            }
        }
    }

    /// After `-`: a type name or `(either t ...)`.
    fn type_expr(&mut self) -> Option<Type> {
        let t = self.peek();
        match t.kind {
            Tok::Atom => {
                self.bump();
                Some(Type::Named(self.name_from(t, "a type")))
            }
            Tok::Open => {
                let open = self.open("a type")?;
                if !self.eat_word("either") {
                    let t = self.peek();
                    self.unexpected(
                        t,
                        "`either` (a type in parentheses is `(either t1 t2 ...)`)",
                    );
                    self.skip_rest_of_list();
                    return None;
                }
                let mut names = Vec::new();
                while let Some(t) = self.atom_if() {
                    names.push(self.name_from(t, "a type"));
                }
                let close = self.close("`(either ...)`");
                Some(Type::Either(names, open.to(close)))
            }
            _ => {
                self.unexpected(t, "a type after `-`");
                None
            }
        }
    }

    /// `( typed-vars )` as in `:parameters` and quantifiers.
    fn var_list(&mut self, what: &str) -> Option<Vec<Typed>> {
        self.open(what)?;
        let vars = self.typed_list(true, "variable");
        self.close(what);
        Some(vars)
    }

    // ----- formulas ---------------------------------------------------------------------

    /// A goal description. `None` when it could not be read (reported and skipped).
    fn formula(&mut self) -> Option<Formula> {
        match self.formula_head()? {
            Head::Done(f) => Some(f),
            Head::Word(open, head) => self.formula_rest(open, head),
        }
    }

    /// The `(` and the head word of a condition, or the whole condition when it is `()`.
    /// `None` when it could not be read (reported and skipped).
    fn formula_head(&mut self) -> Option<Head> {
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
    fn formula_rest(&mut self, open: Span, head: Token) -> Option<Formula> {
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
    fn equality_or_compare(&mut self, open: Span, head: Token) -> Option<Formula> {
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

    fn is_number_token(&self, t: Token) -> bool {
        t.kind == Tok::Atom && looks_numeric(self.text(t.span))
    }

    // ----- numeric expressions ------------------------------------------------------------

    fn expr(&mut self) -> Option<Expr> {
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
    fn expr_from_atom(&mut self, t: Token) -> Option<Expr> {
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

    fn number(&mut self, t: Token) -> Option<f64> {
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

    fn effect(&mut self) -> Option<Effect> {
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

    /// `(pred terms)` where only an atom is allowed.
    fn atom_formula(&mut self, what: &str) -> Option<Atom> {
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
    fn fluent_term(&mut self) -> Option<FluentTerm> {
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

    fn time_spec(&mut self, allow_over_all: bool) -> Option<TimeSpec> {
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

    fn timed_formula(&mut self) -> Option<TimedFormula> {
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

    fn timed_effect(&mut self) -> Option<TimedEffect> {
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

    /// `(define (KIND NAME)`: returns the define `(` span and the name.
    fn header(&mut self, kind: &str) -> Option<(Span, Name)> {
        let t = self.peek();
        if t.kind == Tok::Eof {
            self.error(
                Code::UnexpectedEof,
                t.span,
                format!("the file is empty: expected `(define ({kind} NAME) ...)`"),
            )
            .help = Some(format!(
                "check that this is the {kind} file; it holds no PDDL, only whitespace or comments"
            ));
            return None;
        }
        let define = self.open(&format!("`(define ({kind} NAME) ...)`"))?;
        if !self.eat_word("define") {
            let t = self.peek();
            self.unexpected(
                t,
                &format!("`define` (a {kind} file starts with `(define ({kind} NAME)`)"),
            );
            self.skip_rest_of_list();
            return None;
        }
        let inner = self.open(&format!("`({kind} NAME)`"));
        if inner.is_none() {
            self.skip_rest_of_list();
            return None;
        }
        let kw = self.peek();
        if !self.eat_word(kind) {
            let other = if kind == "domain" {
                "problem"
            } else {
                "domain"
            };
            if kw.kind == Tok::Atom && self.text(kw.span).eq_ignore_ascii_case(other) {
                self.error(
                    Code::UnexpectedToken,
                    kw.span,
                    format!("expected a {kind} file, but this file defines a {other}"),
                )
                .help = Some(
                    "check the order of the file arguments: domain first, then problem".into(),
                );
            } else {
                self.unexpected(kw, &format!("`{kind}`"));
            }
            self.skip_rest_of_list();
            self.skip_rest_of_list();
            return None;
        }
        let name = self.name(&format!("the {kind} name"));
        self.close(format_args!("`({kind} NAME)`"));
        let name = name.unwrap_or_else(|| Name::new("", kw.span));
        Some((define, name))
    }

    /// Reads the sections of a `define`, dispatching on the keyword. Returns the close span.
    fn sections(
        &mut self,
        known: &[&str],
        mut handle: impl FnMut(&mut Self, &str, Span, Token) -> bool,
    ) -> Span {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close => {
                    self.bump();
                    self.leave();
                    return t.span;
                }
                Tok::Eof => {
                    self.report_eof(t.span, 0, None);
                    self.leave();
                    return t.span;
                }
                Tok::Atom => {
                    self.unexpected(t, "a section such as `(:action ...)` or the final `)`");
                    self.bump();
                }
                Tok::Open => {
                    let Some(open) = self.open("a section") else {
                        continue;
                    };
                    let kw = self.peek();
                    let word = if kw.kind == Tok::Atom {
                        self.text(kw.span).to_ascii_lowercase()
                    } else {
                        String::new()
                    };
                    if known.contains(&word.as_str()) {
                        self.bump();
                        if !handle(self, &word, open, kw) {
                            // The handler did not consume the section's `)`.
                            self.skip_rest_of_list();
                        }
                    } else {
                        let d = self.error(
                            Code::UnknownSection,
                            if kw.kind == Tok::Atom { kw.span } else { open },
                            format!(
                                "unknown section {}",
                                if kw.kind == Tok::Atom {
                                    format!("`{}`", truncate(self.text(kw.span), 40))
                                } else {
                                    "without a keyword".into()
                                }
                            ),
                        );
                        let suggestion = nearest(&word, known.iter().copied());
                        d.help = Some(match suggestion {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("sections here are {}", known.join(", ")),
                        });
                        self.skip_rest_of_list();
                    }
                }
            }
        }
    }

    fn requirements(&mut self) -> Vec<RequirementDecl> {
        let mut out = Vec::new();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Atom => {
                    self.bump();
                    let text = self.text(t.span);
                    let requirement = Requirement::parse(text);
                    if requirement.is_none() {
                        let names = Requirement::ALL.iter().map(|r| r.as_str());
                        let d = self.error(
                            Code::UnknownRequirement,
                            t.span,
                            format!("unknown requirement `{}`", truncate(text, 40)),
                        );
                        d.severity = crate::diagnostic::Severity::Warning;
                        let with_colon = if text.starts_with(':') {
                            text.to_string()
                        } else {
                            format!(":{text}")
                        };
                        d.help =
                            nearest(&with_colon, names).map(|s| format!("did you mean `{s}`?"));
                    }
                    out.push(RequirementDecl {
                        requirement,
                        name: Name::new(CompactString::from(text), t.span),
                    });
                }
                Tok::Open => {
                    self.unexpected(t, "a requirement such as `:typing`");
                    self.skip_element();
                }
                Tok::Close | Tok::Eof => {
                    self.close("`(:requirements ...)`");
                    return out;
                }
            }
        }
    }

    fn action(&mut self, open: Span) -> Option<Action> {
        let name = self.name("the action name");
        let mut params = Vec::new();
        let mut precondition = None;
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
                        ":precondition" => precondition = self.formula(),
                        ":effect" => effect = self.effect(),
                        _ => {
                            let d = self.error(
                                Code::UnexpectedToken,
                                t.span,
                                format!(
                                    "expected `:parameters`, `:precondition` or `:effect`, found `{}`",
                                    truncate(self.text(t.span), 40)
                                ),
                            );
                            d.help = nearest(&word, [":parameters", ":precondition", ":effect"])
                                .map(|s| format!("did you mean `{s}`?"));
                            if matches!(self.peek().kind, Tok::Open) {
                                self.skip_element();
                            }
                        }
                    }
                }
                Tok::Open => {
                    self.unexpected(t, "`:parameters`, `:precondition` or `:effect`");
                    self.skip_element();
                }
            }
        }
        let close = self.close("`(:action ...)`");
        Some(Action {
            name: name?,
            params,
            precondition,
            effect,
            span: open.to(close),
        })
    }

    fn durative_action(&mut self, open: Span) -> Option<DurativeAction> {
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

    fn predicate_decls(&mut self) -> Vec<PredicateDecl> {
        let mut out = Vec::new();
        while self.peek().kind == Tok::Open {
            if let Some(p) = self.predicate_decl() {
                out.push(p);
            }
        }
        if self.peek().kind == Tok::Atom {
            let t = self.peek();
            self.unexpected(t, "a predicate declaration such as `(at ?x - object)`");
        }
        out
    }

    fn predicate_decl(&mut self) -> Option<PredicateDecl> {
        let open = self.open("a predicate declaration")?;
        let name = self.name("a predicate");
        let params = self.typed_list(true, "variable");
        let close = self.close("the predicate declaration");
        Some(PredicateDecl {
            name: name?,
            params,
            span: open.to(close),
        })
    }

    fn function_decls(&mut self) -> Vec<FunctionDecl> {
        let mut out: Vec<FunctionDecl> = Vec::new();
        let mut untyped_from = 0;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Open => {
                    if let Some(p) = self.predicate_decl() {
                        out.push(FunctionDecl {
                            name: p.name,
                            params: p.params,
                            ty: FunctionType::Unspecified,
                            span: p.span,
                        });
                    }
                }
                Tok::Atom if self.text(t.span) == "-" => {
                    self.bump();
                    let ty = self.type_expr();
                    let ty = match ty {
                        Some(Type::Named(n)) if n.matches("number") => FunctionType::Number(n.span),
                        Some(Type::Named(n)) if n.matches("integer") => {
                            FunctionType::Integer(n.span)
                        }
                        Some(other) => FunctionType::Object(other),
                        None => FunctionType::Unspecified,
                    };
                    for f in &mut out[untyped_from..] {
                        f.ty = ty.clone();
                    }
                    untyped_from = out.len();
                }
                Tok::Atom => {
                    self.unexpected(
                        t,
                        "a function declaration such as `(fuel ?a)` or `- number`",
                    );
                    self.bump();
                }
                Tok::Close | Tok::Eof => return out,
            }
        }
    }

    fn derived(&mut self, open: Span) -> Option<Derived> {
        let head = self.predicate_decl();
        let body = self.formula();
        let close = self.close("`(:derived ...)`: it takes a head and one condition");
        Some(Derived {
            head: head?,
            body: body?,
            span: open.to(close),
        })
    }

    pub fn domain(&mut self) -> Option<Domain> {
        let (define, name) = self.header("domain")?;
        let mut domain = Domain {
            name,
            requirements: Vec::new(),
            types: Vec::new(),
            constants: Vec::new(),
            predicates: Vec::new(),
            functions: Vec::new(),
            actions: Vec::new(),
            derived: Vec::new(),
            durative_actions: Vec::new(),
            constraints: None,
            span: define,
        };
        let mut seen: Vec<(String, Span)> = Vec::new();
        let close = self.sections(DOMAIN_SECTIONS, |p, word, open, kw| {
            let repeatable = matches!(word, ":action" | ":derived" | ":durative-action");
            if !repeatable {
                if let Some((_, first)) = seen.iter().find(|(w, _)| w == word) {
                    let first = *first;
                    let file = p.file;
                    p.error(
                        Code::DuplicateSection,
                        kw.span,
                        format!("`{word}` appears twice"),
                    )
                    .labels
                    .push(crate::diagnostic::Label {
                        file,
                        span: first,
                        message: "first given here".into(),
                    });
                    if let Some(d) = p.diagnostics.last_mut() {
                        d.help = Some("merge the two sections into one".into());
                    }
                }
                seen.push((word.to_string(), kw.span));
            }
            match word {
                ":requirements" => {
                    let r = p.requirements();
                    domain.requirements.extend(r);
                    true
                }
                ":types" => {
                    let t = p.typed_list(false, "type");
                    domain.types.extend(t);
                    p.close("`(:types ...)`");
                    true
                }
                ":constants" => {
                    let c = p.typed_list(false, "constant");
                    domain.constants.extend(c);
                    p.close("`(:constants ...)`");
                    true
                }
                ":predicates" => {
                    let ps = p.predicate_decls();
                    domain.predicates.extend(ps);
                    p.close("`(:predicates ...)`");
                    true
                }
                ":functions" => {
                    let fs = p.function_decls();
                    domain.functions.extend(fs);
                    p.close("`(:functions ...)`");
                    true
                }
                ":action" => {
                    if let Some(a) = p.action(open) {
                        domain.actions.push(a);
                    }
                    true
                }
                ":derived" => {
                    if let Some(d) = p.derived(open) {
                        domain.derived.push(d);
                    }
                    true
                }
                ":durative-action" => {
                    if let Some(a) = p.durative_action(open) {
                        domain.durative_actions.push(a);
                    }
                    true
                }
                _ => {
                    // `:constraints`, the one section left.
                    domain.constraints = p.constraints_section(open, kw);
                    true
                }
            }
        });
        domain.span = define.to(close);
        self.trailing("domain");
        Some(domain)
    }

    pub fn problem(&mut self) -> Option<Problem> {
        let (define, name) = self.header("problem")?;
        let mut problem = Problem {
            name,
            domain: Name::new("", define),
            requirements: Vec::new(),
            objects: Vec::new(),
            init: Vec::new(),
            goal: None,
            metric: None,
            constraints: None,
            goal_preferences: None,
            span: define,
        };
        let mut has_domain = false;
        let mut seen: Vec<(String, Span)> = Vec::new();
        let close = self.sections(PROBLEM_SECTIONS, |p, word, open, kw| {
            if let Some((_, first)) = seen.iter().find(|(w, _)| w == word) {
                let first = *first;
                let file = p.file;
                p.error(
                    Code::DuplicateSection,
                    kw.span,
                    format!("`{word}` appears twice"),
                )
                .labels
                .push(crate::diagnostic::Label {
                    file,
                    span: first,
                    message: "first given here".into(),
                });
            }
            seen.push((word.to_string(), kw.span));
            match word {
                ":domain" => {
                    if let Some(n) = p.name("the domain name") {
                        problem.domain = n;
                        has_domain = true;
                    }
                    p.close("`(:domain NAME)`");
                    true
                }
                ":requirements" => {
                    let r = p.requirements();
                    problem.requirements.extend(r);
                    true
                }
                ":objects" => {
                    let o = p.typed_list(false, "object");
                    problem.objects.extend(o);
                    p.close("`(:objects ...)`");
                    true
                }
                ":init" => {
                    p.init(&mut problem.init);
                    p.close("`(:init ...)`");
                    true
                }
                ":goal" => {
                    let mut prefs = Vec::new();
                    let part = p.goal_part(&mut prefs);
                    let close = p.close(
                        "`(:goal ...)`: the goal is one condition; wrap several in `(and ...)`",
                    );
                    let span = open.to(close);
                    problem.goal = match part {
                        GoalPart::Hard(f) => Some(f),
                        // Only preferences: the hard goal is the empty conjunction.
                        GoalPart::Soft => Some(Formula::And(Vec::new(), span)),
                        GoalPart::Failed => None,
                    };
                    problem.goal_preferences = match prefs.len() {
                        0 => None,
                        1 => prefs.pop(),
                        _ => Some(Constraint::And(prefs, span)),
                    };
                    true
                }
                ":metric" => {
                    problem.metric = p.metric(open);
                    true
                }
                _ => {
                    // `:constraints`, the one section left.
                    problem.constraints = p.constraints_section(open, kw);
                    true
                }
            }
        });
        problem.span = define.to(close);
        if !has_domain && !self.eof_reported {
            self.error(
                Code::MissingSection,
                problem.name.span,
                "the problem does not say which domain it belongs to",
            )
            .help = Some("add `(:domain NAME)` after `(problem ...)`".into());
        }
        if problem.goal.is_none() && !seen.iter().any(|(w, _)| w == ":goal") && !self.eof_reported {
            self.error(
                Code::MissingSection,
                problem.name.span,
                "the problem has no `:goal`",
            )
            .help = Some("add `(:goal (and ...))` with the facts the plan must reach".into());
        }
        self.trailing("problem");
        Some(problem)
    }

    fn init(&mut self, out: &mut Vec<InitEntry>) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close | Tok::Eof => return,
                Tok::Atom => {
                    self.unexpected(t, "a fact in parentheses such as `(at truck1 depot)`");
                    self.bump();
                }
                Tok::Open => {
                    if let Some(e) = self.init_entry() {
                        out.push(e);
                    }
                }
            }
        }
    }

    fn init_entry(&mut self) -> Option<InitEntry> {
        let open = self.open("a fact")?;
        let head = self.peek();
        if head.kind != Tok::Atom {
            self.unexpected(head, "a predicate name, `=` or `not`");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let word = self.text(head.span);
        if word == "=" {
            let target = self.fluent_term();
            let value_tok = self.peek();
            let value = if value_tok.kind == Tok::Atom && looks_numeric(self.text(value_tok.span)) {
                self.bump();
                self.number(value_tok)
            } else {
                self.unexpected(value_tok, "a number (initial values are plain numbers)");
                None
            };
            let close = self.close("`(= ...)`");
            return Some(InitEntry::Assign(target?, value?, open.to(close)));
        }
        if word.eq_ignore_ascii_case("not") {
            let atom = self.atom_formula("the negated fact");
            let close = self.close("`(not ...)`");
            return Some(InitEntry::Not(atom?, open.to(close)));
        }
        let next = self.peek();
        if word.eq_ignore_ascii_case("at") && self.is_number_token(next) {
            self.error(
                Code::Unsupported,
                open,
                "timed initial literals (`(at TIME fact)`) are not supported",
            )
            .help = Some("remove the timed literal; safeplan validates sequential plans".into());
            self.skip_rest_of_list();
            return None;
        }
        if word.starts_with([':', '?']) {
            self.unexpected(head, "a predicate name");
            self.skip_rest_of_list();
            return None;
        }
        let predicate = self.name_from(head, "a predicate");
        let args = self.terms(false);
        let close = self.close(format_args!("the fact `({word} ...)`"));
        Some(InitEntry::Atom(Atom {
            predicate,
            args,
            span: open.to(close),
        }))
    }

    fn metric(&mut self, open: Span) -> Option<Metric> {
        let t = self.peek();
        let optimization = if self.eat_word("minimize") {
            Some(Optimization::Minimize)
        } else if self.eat_word("maximize") {
            Some(Optimization::Maximize)
        } else {
            self.unexpected(t, "`minimize` or `maximize`");
            None
        };
        let expr = self.expr();
        let close = self.close("`(:metric ...)`");
        Some(Metric {
            optimization: optimization?,
            expr: expr?,
            span: open.to(close),
        })
    }

    // ----- trajectory constraints and preferences (PDDL3) ---------------------------------

    /// The body of a `(:constraints ...)` section, up to and including its `)`. Several
    /// constraints without an enclosing `and` (as LEXICON writes them) are read as their
    /// conjunction, with a warning: VAL drops such a section or fails to read the file.
    fn constraints_section(&mut self, open: Span, kw: Token) -> Option<Constraint> {
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
    fn constraint(&mut self, in_preference: bool) -> Option<Constraint> {
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
    fn preference_name(&mut self) -> Option<Name> {
        let t = self.peek();
        (t.kind == Tok::Atom).then(|| {
            self.bump();
            self.name_from(t, "a preference name")
        })
    }

    /// A time in a constraint (`within 10 ...`): a number.
    fn time_value(&mut self, what: &str) -> Option<f64> {
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
    fn goal_part(&mut self, prefs: &mut Vec<Constraint>) -> GoalPart {
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

    /// Anything after the closing `)` of the `define`.
    fn trailing(&mut self, kind: &str) {
        let t = self.peek();
        match t.kind {
            Tok::Eof => {}
            Tok::Close => {
                self.error(
                    Code::UnexpectedCloseParen,
                    t.span,
                    format!("this `)` closes nothing: the {kind} already ended"),
                )
                .help = Some("remove it, or look for a `)` that closed a list too early".into());
            }
            _ => {
                self.error(
                    Code::UnexpectedToken,
                    t.span,
                    format!("unexpected text after the end of the {kind}"),
                )
                .help = Some(format!(
                    "a file holds one `(define ...)`; move this {kind} text inside it or remove it"
                ));
            }
        }
    }
}

/// Whether `c` may appear in a PDDL name. Letters and digits of any script, `-`, `_`, and a
/// few characters real domains use (`.`, `@`, `/`, `'`, `!`, `<`, `>`, `=`, `+`, `*`, `&`).
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '-' | '_' | '.' | '@' | '/' | '\'' | '!' | '<' | '>' | '=' | '+' | '*' | '&'
        )
}

/// The keywords `formula` dispatches on, lowercase.
const FORMULA_KEYWORDS: &[&str] = &[
    "and",
    "or",
    "not",
    "imply",
    "exists",
    "forall",
    "=",
    "<",
    "<=",
    ">",
    ">=",
    "preference",
];

/// The keywords `constraint` dispatches on, lowercase.
const CONSTRAINT_KEYWORDS: &[&str] = &[
    "and",
    "forall",
    "preference",
    "at",
    "always",
    "sometime",
    "within",
    "at-most-once",
    "sometime-after",
    "sometime-before",
    "always-within",
    "hold-during",
    "hold-after",
];

/// The start of a condition, as [`Parser::formula_head`] reads it.
enum Head {
    /// A whole condition (`()`, the empty conjunction).
    Done(Formula),
    /// The `(` and the head word, consumed.
    Word(Span, Token),
}

/// What one part of a `:goal` turned out to be, as [`Parser::goal_part`] reads it.
enum GoalPart {
    /// A hard condition.
    Hard(Formula),
    /// Only preferences (moved to the caller's list).
    Soft,
    /// Unreadable (reported and skipped).
    Failed,
}

/// The keywords `effect` dispatches on, lowercase.
const EFFECT_KEYWORDS: &[&str] = &[
    "and",
    "not",
    "forall",
    "when",
    "assign",
    "increase",
    "decrease",
    "scale-up",
    "scale-down",
];

/// The keyword of `keywords` (all lowercase) that `word` spells, ignoring ASCII case, or
/// `""` if none. Matching the result against those keywords gives the same answers as
/// matching `word.to_ascii_lowercase()` against them, without allocating a `String` for
/// every formula.
fn keyword(word: &str, keywords: &[&'static str]) -> &'static str {
    keywords
        .iter()
        .find(|k| k.eq_ignore_ascii_case(word))
        .copied()
        .unwrap_or("")
}

/// Whether every character of `text` may appear in a PDDL name ([`is_name_char`]), with a
/// fast path for ASCII text: one table lookup per byte instead of decoding characters.
#[inline]
fn all_name_chars(text: &str) -> bool {
    // A non-ASCII byte is `false` in the table and sends the text to the slow path, which
    // decides on whole characters.
    text.bytes().all(|b| ASCII_NAME_CHAR[b as usize]) || text.chars().all(is_name_char)
}

/// [`is_name_char`] for each ASCII character; `false` for bytes 128..=255 (parts of
/// non-ASCII characters, which [`all_name_chars`] checks character by character).
static ASCII_NAME_CHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = matches!(
            b as u8,
            b'a'..=b'z'
                | b'A'..=b'Z'
                | b'0'..=b'9'
                | b'-'
                | b'_'
                | b'.'
                | b'@'
                | b'/'
                | b'\''
                | b'!'
                | b'<'
                | b'>'
                | b'='
                | b'+'
                | b'*'
                | b'&'
        );
        b += 1;
    }
    table
};

/// Whether an atom is meant as a number (then it must parse as one).
pub(crate) fn looks_numeric(text: &str) -> bool {
    matches!(
        text.as_bytes(),
        [b'0'..=b'9', ..]
            | [b'-' | b'+' | b'.', b'0'..=b'9', ..]
            | [b'-' | b'+', b'.', b'0'..=b'9', ..]
    )
}

fn truncate(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max_chars).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_char_table_agrees_with_is_name_char() {
        for b in 0..=255u8 {
            let expected = b.is_ascii() && is_name_char(char::from(b));
            assert_eq!(ASCII_NAME_CHAR[usize::from(b)], expected, "byte {b:#04x}");
        }
        for text in [
            "loc-x0-y1",
            "Depot_7",
            "a.b@c/d'e!f<g>h=i+j*k&l",
            "",
            "é",
            "naïve",
            "a#b",
        ] {
            assert_eq!(
                all_name_chars(text),
                text.chars().all(is_name_char),
                "{text:?}"
            );
        }
    }

    #[test]
    fn keyword_matches_like_ascii_lowercase() {
        let words = [
            "and",
            "AND",
            "And",
            "or",
            "OR",
            "not",
            "nOt",
            "imply",
            "EXISTS",
            "forall",
            "=",
            "<",
            "<=",
            ">",
            ">=",
            "when",
            "Assign",
            "INCREASE",
            "decrease",
            "Scale-Up",
            "scale-down",
            "at",
            "an",
            "andx",
            "",
            "ánd",
            "scale-downwards",
            "?x",
            ":and",
        ];
        for keywords in [FORMULA_KEYWORDS, EFFECT_KEYWORDS] {
            for word in words {
                let lower = word.to_ascii_lowercase();
                let expected = keywords.iter().copied().find(|k| *k == lower).unwrap_or("");
                assert_eq!(keyword(word, keywords), expected, "{word:?}");
            }
        }
    }
}
