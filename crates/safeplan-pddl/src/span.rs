//! Byte spans and the line/column index that turns them into `file:line:col`.

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` into one source text.
///
/// Offsets are `u32`: the parser refuses inputs of 4 GiB or more with a diagnostic, so every
/// span fits, and AST nodes stay small (a span is 8 bytes).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    pub const fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    /// A span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// Length in bytes.
    pub fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The span as a `usize` range, for slicing the source.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A 1-based line and column. Columns count characters (not bytes), as editors do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineCol {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

/// Maps byte offsets of one text to lines and columns.
///
/// Built once per file (one pass over the bytes), then each lookup is a binary search.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    /// Index the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        // memchr finds the line feeds a vector at a time: a byte-by-byte filter cost more
        // than reading a 450 KB problem's facts did.
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| (i + 1) as u32));
        LineIndex { line_starts }
    }

    /// Line and column of byte `offset` in `text` (the text the index was built from).
    /// Offsets past the end map to the end of the last line.
    pub fn line_col(&self, text: &str, offset: u32) -> LineCol {
        let offset = offset.min(text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while end > start && !text.is_char_boundary(end) {
            end -= 1;
        }
        let col = text[start..end].chars().count() as u32 + 1;
        LineCol {
            line: line as u32 + 1,
            col,
        }
    }

    /// Byte range of line `line` (1-based), without its newline.
    pub fn line_range(&self, text: &str, line: u32) -> Option<std::ops::Range<usize>> {
        let i = line.checked_sub(1)? as usize;
        let start = *self.line_starts.get(i)? as usize;
        let end = self
            .line_starts
            .get(i + 1)
            .map_or(text.len(), |&next| next as usize - 1);
        Some(start..end.max(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one_and_in_chars() {
        let text = "ab\nçd\n\nx";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(text, 2), LineCol { line: 1, col: 3 });
        assert_eq!(idx.line_col(text, 3), LineCol { line: 2, col: 1 });
        // 'ç' is two bytes: 'd' is at byte 5 but column 2.
        assert_eq!(idx.line_col(text, 5), LineCol { line: 2, col: 2 });
        assert_eq!(idx.line_col(text, 7), LineCol { line: 3, col: 1 });
        assert_eq!(idx.line_col(text, 8), LineCol { line: 4, col: 1 });
        assert_eq!(idx.line_col(text, 99), LineCol { line: 4, col: 2 });
        assert_eq!(idx.line_range(text, 2), Some(3..6));
        assert_eq!(idx.line_range(text, 4), Some(8..9));
        assert_eq!(idx.line_range(text, 5), None);
    }
}
