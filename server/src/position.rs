//! Positions in source text, and the one place where they are converted.
//!
//! The engine works in byte offsets. Mutant names and cargo-mutants files use
//! 1-based lines and 1-based *char* columns; LSP uses 0-based lines and UTF-16
//! columns. Every conversion between these goes through [`SourceIndex`].

use line_index::{LineIndex, TextSize, WideEncoding, WideLineCol};
use serde::{Deserialize, Serialize};

/// A 1-based line and 1-based char column, as in cargo-mutants' names and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LineColumn {
    pub line: usize,
    pub column: usize,
}

/// A range of text in 1-based lines and char columns; `end` is exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: LineColumn,
    pub end: LineColumn,
}

/// A 0-based line and 0-based UTF-16 column, as LSP counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Utf16Position {
    pub line: u32,
    pub character: u32,
}

/// Answers position questions about one text.
pub struct SourceIndex {
    line_index: LineIndex,
}

impl SourceIndex {
    pub fn new(text: &str) -> SourceIndex {
        SourceIndex {
            line_index: LineIndex::new(text),
        }
    }

    fn wide(&self, encoding: WideEncoding, offset: usize) -> WideLineCol {
        let raw = self.line_index.line_col(TextSize::from(offset as u32));
        self.line_index
            .to_wide(encoding, raw)
            .expect("offset is inside the text")
    }

    fn offset_of_wide(&self, encoding: WideEncoding, wide: WideLineCol) -> Option<usize> {
        let raw = self.line_index.to_utf8(encoding, wide)?;
        self.line_index
            .offset(raw)
            .map(|size| u32::from(size) as usize)
    }

    /// The 1-based line and char column of a byte offset.
    pub fn line_column(&self, offset: usize) -> LineColumn {
        let wide = self.wide(WideEncoding::Utf32, offset);
        LineColumn {
            line: wide.line as usize + 1,
            column: wide.col as usize + 1,
        }
    }

    pub fn span(&self, start: usize, end: usize) -> Span {
        Span {
            start: self.line_column(start),
            end: self.line_column(end),
        }
    }

    /// The byte offset of a 1-based line and char column, if it is in the text.
    pub fn offset_of(&self, line_column: LineColumn) -> Option<usize> {
        let wide = WideLineCol {
            line: u32::try_from(line_column.line.checked_sub(1)?).ok()?,
            col: u32::try_from(line_column.column.checked_sub(1)?).ok()?,
        };
        self.offset_of_wide(WideEncoding::Utf32, wide)
    }

    /// The LSP position of a byte offset.
    pub fn utf16_position(&self, offset: usize) -> Utf16Position {
        let wide = self.wide(WideEncoding::Utf16, offset);
        Utf16Position {
            line: wide.line,
            character: wide.col,
        }
    }

    /// The byte offset of an LSP position, if it is in the text.
    pub fn offset_of_utf16(&self, position: Utf16Position) -> Option<usize> {
        let wide = WideLineCol {
            line: position.line,
            col: position.character,
        };
        self.offset_of_wide(WideEncoding::Utf16, wide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_chars_not_bytes() {
        let text = "let s = \"é\"; a + b\n";
        let index = SourceIndex::new(text);
        let plus = text.find('+').unwrap();
        assert_eq!(
            index.line_column(plus),
            LineColumn {
                line: 1,
                column: 16
            }
        );
        assert_eq!(
            index.offset_of(LineColumn {
                line: 1,
                column: 16
            }),
            Some(plus)
        );
    }

    #[test]
    fn utf16_columns_count_surrogate_pairs_twice() {
        let text = "x\n\"😀\" + 1\n";
        let index = SourceIndex::new(text);
        let plus = text.find('+').unwrap();
        let position = index.utf16_position(plus);
        assert_eq!(
            position,
            Utf16Position {
                line: 1,
                character: 5
            }
        );
        assert_eq!(index.line_column(plus), LineColumn { line: 2, column: 5 });
        assert_eq!(index.offset_of_utf16(position), Some(plus));
    }

    #[test]
    fn lines_are_one_based() {
        let index = SourceIndex::new("a\nb\r\nc");
        assert_eq!(index.line_column(0), LineColumn { line: 1, column: 1 });
        assert_eq!(index.line_column(5), LineColumn { line: 3, column: 1 });
    }
}
