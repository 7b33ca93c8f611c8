//! The token layer: parentheses and atoms with byte spans; whitespace and `;` comments skipped.
//!
//! The lexer is lazy (one token at a time, one token of lookahead in the parser) so a 50 MB
//! problem never becomes a 150 MB token vector. It works on bytes: every delimiter is ASCII,
//! so an atom never splits a UTF-8 sequence, and the input was validated as UTF-8 before.
//! The lexer cannot fail: any run of non-delimiter bytes is an atom, and the parser decides
//! whether it is a name, a variable, a keyword or a number.

use nom::bytes::complete::{take_till, take_while, take_while1};
use nom::{IResult, Parser};

use crate::span::Span;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Open,
    Close,
    Atom,
    Eof,
}

/// A token and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub span: Span,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Bytes that end an atom.
pub(crate) fn is_delimiter(b: u8) -> bool {
    is_space(b) || matches!(b, b'(' | b')' | b';')
}

fn whitespace(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while(is_space).parse(i)
}

/// A `;` comment up to (not including) the end of its line.
fn comment_body(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_till(|b| b == b'\n').parse(i)
}

fn atom(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while1(|b| !is_delimiter(b)).parse(i)
}

/// A lazy tokenizer over validated UTF-8.
pub(crate) struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
        }
    }

    fn rest(&self) -> &'a [u8] {
        &self.src[self.pos..]
    }

    fn advance_to(&mut self, rest: &[u8]) {
        self.pos = self.src.len() - rest.len();
    }

    fn skip_trivia(&mut self) {
        loop {
            // `whitespace` and `comment_body` accept empty input, so they cannot fail.
            if let Ok((rest, _)) = whitespace(self.rest()) {
                self.advance_to(rest);
            }
            match self.rest().first() {
                Some(b';') => {
                    if let Ok((rest, _)) = comment_body(&self.rest()[1..]) {
                        self.advance_to(rest);
                    }
                }
                _ => return,
            }
        }
    }

    /// The next token; `Eof` forever once the input is used up.
    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos as u32;
        let kind = match self.rest().first() {
            None => Tok::Eof,
            Some(b'(') => {
                self.pos += 1;
                Tok::Open
            }
            Some(b')') => {
                self.pos += 1;
                Tok::Close
            }
            Some(_) => {
                match atom(self.rest()) {
                    Ok((rest, _)) => self.advance_to(rest),
                    // Unreachable by construction (the first byte is not a delimiter), but
                    // never loop forever: consume the byte.
                    Err(_) => self.pos += 1,
                }
                Tok::Atom
            }
        };
        Token {
            kind,
            span: Span::new(start, self.pos as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(src: &str) -> Vec<(Tok, &str)> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == Tok::Eof {
                assert_eq!(t.span, Span::new(src.len() as u32, src.len() as u32));
                return out;
            }
            out.push((t.kind, &src[t.span.range()]));
        }
    }

    #[test]
    fn comments_and_whitespace_vanish_atoms_keep_exact_spans() {
        let got = kinds_and_texts("(define ; a comment (with parens)\n\t(Domain x-1)) ;tail");
        assert_eq!(
            got,
            vec![
                (Tok::Open, "("),
                (Tok::Atom, "define"),
                (Tok::Open, "("),
                (Tok::Atom, "Domain"),
                (Tok::Atom, "x-1"),
                (Tok::Close, ")"),
                (Tok::Close, ")"),
            ]
        );
    }

    #[test]
    fn atoms_end_at_parens_and_semicolons() {
        let got = kinds_and_texts("?x;c\n(>= 1.5)é");
        assert_eq!(
            got,
            vec![
                (Tok::Atom, "?x"),
                (Tok::Open, "("),
                (Tok::Atom, ">="),
                (Tok::Atom, "1.5"),
                (Tok::Close, ")"),
                (Tok::Atom, "é"),
            ]
        );
    }
}
