//! The token layer: parentheses and atoms with byte spans; whitespace and `;` comments skipped.
//!
//! The lexer is lazy (one token at a time, one token of lookahead in the parser) so a 50 MB
//! problem never becomes a 150 MB token vector. It works on bytes: every delimiter is ASCII,
//! so an atom never splits a UTF-8 sequence, and the input was validated as UTF-8 before.
//! The lexer cannot fail: any run of non-delimiter bytes is an atom, and the parser decides
//! whether it is a name, a variable, a keyword or a number.

use nom::bytes::complete::{take_till, take_while};
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

/// Byte classes of the lexer, looked up in [`CLASS`]: one load per byte in the hot loops.
const ATOM: u8 = 0;
const SPACE: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;
const SEMI: u8 = 4;

/// The class of every byte. Spaces are ASCII space, `\t`, `\n`, `\r`, vertical tab and form
/// feed; `(`, `)` and `;` are delimiters of their own; every other byte (non-ASCII included)
/// belongs to atoms.
static CLASS: [u8; 256] = {
    let mut class = [ATOM; 256];
    class[b' ' as usize] = SPACE;
    class[b'\t' as usize] = SPACE;
    class[b'\n' as usize] = SPACE;
    class[b'\r' as usize] = SPACE;
    class[0x0b] = SPACE;
    class[0x0c] = SPACE;
    class[b'(' as usize] = OPEN;
    class[b')' as usize] = CLOSE;
    class[b';' as usize] = SEMI;
    class
};

#[inline]
fn is_space(b: u8) -> bool {
    CLASS[b as usize] == SPACE
}

/// Bytes that end an atom.
#[inline]
pub(crate) fn is_delimiter(b: u8) -> bool {
    CLASS[b as usize] != ATOM
}

fn whitespace(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while(is_space).parse(i)
}

/// A `;` comment up to (not including) the end of its line.
fn comment_body(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_till(|b| b == b'\n').parse(i)
}

/// The rest of an atom whose first byte is already known to be an atom byte (possibly
/// empty).
#[inline]
fn atom_rest(i: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while(|b| !is_delimiter(b)).parse(i)
}

/// The length of a UTF-8 byte-order mark at the start of `src` (0 or 3).
pub(crate) fn bom_len(src: &str) -> usize {
    if src.starts_with('\u{feff}') { 3 } else { 0 }
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
            // Editors on Windows start files with a byte-order mark: skip it, keeping spans
            // relative to the file's bytes.
            pos: bom_len(src),
        }
    }

    fn advance_to(&mut self, rest: &[u8]) {
        self.pos = self.src.len() - rest.len();
    }

    /// Skip whitespace and comments. The common case, one or a few spaces before the next
    /// token, costs one table lookup per byte.
    #[inline]
    fn skip_trivia(&mut self) {
        loop {
            match self.src.get(self.pos) {
                Some(&b) if is_space(b) => {
                    // `whitespace` and `comment_body` accept empty input, so they cannot fail.
                    if let Ok((rest, _)) = whitespace(&self.src[self.pos + 1..]) {
                        self.advance_to(rest);
                    }
                }
                Some(b';') => {
                    if let Ok((rest, _)) = comment_body(&self.src[self.pos + 1..]) {
                        self.advance_to(rest);
                    }
                }
                _ => return,
            }
        }
    }

    /// The next token; `Eof` forever once the input is used up.
    ///
    /// Always inlined (into the parser's `bump`): returned through memory, the token's fields
    /// are stored one by one and read back at once, which stalls the CPU on every token.
    #[inline(always)]
    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos as u32;
        let kind = match self.src.get(self.pos) {
            None => Tok::Eof,
            Some(&b) => match CLASS[b as usize] {
                OPEN => {
                    self.pos += 1;
                    Tok::Open
                }
                CLOSE => {
                    self.pos += 1;
                    Tok::Close
                }
                _ => {
                    // Not a space nor `;` (skipped above), not a parenthesis: an atom byte,
                    // so the atom is this byte and the non-delimiters after it.
                    match atom_rest(&self.src[self.pos + 1..]) {
                        Ok((rest, _)) => self.advance_to(rest),
                        // Unreachable (`atom_rest` accepts empty input), but never loop
                        // forever: consume the byte.
                        Err(_) => self.pos += 1,
                    }
                    Tok::Atom
                }
            },
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
    fn byte_classes_are_the_documented_ones() {
        for b in 0..=255u8 {
            let space = matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
            assert_eq!(is_space(b), space, "byte {b:#04x}");
            assert_eq!(
                is_delimiter(b),
                space || matches!(b, b'(' | b')' | b';'),
                "byte {b:#04x}"
            );
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
    fn a_leading_byte_order_mark_is_skipped() {
        let got = kinds_and_texts("\u{feff}(define)");
        assert_eq!(
            got,
            vec![(Tok::Open, "("), (Tok::Atom, "define"), (Tok::Close, ")")]
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
