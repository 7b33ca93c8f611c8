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
//!
//! This file holds the parser's state and its token-level primitives (lists, names, terms,
//! typed lists); the grammar is split by what it reads: `sections` (the file's top level),
//! `formula`, `effect`, `durative` (timed conditions and effects) and `constraints` (PDDL3).

use compact_str::CompactString;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, FileKind};
use crate::lexer::{Lexer, Tok, Token};
use crate::span::Span;

mod constraints;
mod durative;
mod effect;
mod formula;
mod sections;

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
