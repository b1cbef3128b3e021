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

impl Span {
    /// The column of the span's last char, for formats that count the end
    /// inclusively (GitHub's annotations); `None` for a span over several
    /// lines. An empty span's last column is its start.
    pub fn last_column(&self) -> Option<usize> {
        (self.start.line == self.end.line)
            .then(|| self.end.column.saturating_sub(1).max(self.start.column))
    }
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

    /// The column of a byte offset; an offset inside a char counts as
    /// that char's start, one past the end as the end (rust-analyzer's
    /// error ranges can point at either).
    fn wide(&self, encoding: WideEncoding, offset: usize) -> WideLineCol {
        let raw = self.char_start(offset);
        self.line_index
            .to_wide(encoding, raw)
            .expect("a char's start is inside the text")
    }

    /// The line and byte column of the char `offset` is in (or of the
    /// text's end, for an offset past it).
    fn char_start(&self, offset: usize) -> line_index::LineCol {
        let len = u32::from(self.line_index.len());
        let mut offset = u32::try_from(offset).unwrap_or(len).min(len);
        loop {
            if let Some(raw) = self.line_index.try_line_col(TextSize::from(offset)) {
                return raw;
            }
            // Inside a char: its start is at most three bytes back, and 0
            // is always a char's start.
            offset -= 1;
        }
    }

    /// The byte offset of a position, if it is on one of the text's lines
    /// (its end included); checked arithmetic, since clients send anything.
    fn offset_of_wide(&self, encoding: WideEncoding, wide: WideLineCol) -> Option<usize> {
        let offset = self.offset_of_wide_in_char(encoding, wide)?;
        self.line_index
            .try_line_col(TextSize::from(offset))
            .map(|_| offset as usize)
    }

    /// The byte offset of a position, which may lie inside a char (a
    /// UTF-16 column between the halves of a surrogate pair).
    fn offset_of_wide_in_char(&self, encoding: WideEncoding, wide: WideLineCol) -> Option<u32> {
        let raw = self.line_index.to_utf8(encoding, wide)?;
        let line = self.line_index.line(raw.line)?;
        let offset = u32::from(line.start()).checked_add(raw.col)?;
        (offset <= u32::from(line.end())).then_some(offset)
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

    /// The byte offset of an LSP position, moved back to the end of its
    /// line, or of the text, when it lies beyond.
    pub fn clamped_offset_of_utf16(&self, position: Utf16Position) -> usize {
        let text_end = u32::from(self.line_index.len()) as usize;
        let Some(line) = self.line_index.line(position.line) else {
            return text_end;
        };
        // The line's text ends before its newline, if it has one.
        let mut content_end = u32::from(line.end()) as usize;
        if content_end > u32::from(line.start()) as usize
            && self.line_index.line(position.line + 1).is_some()
        {
            content_end -= 1;
        }
        let line_width = self.wide(WideEncoding::Utf16, content_end).col;
        let wide = WideLineCol {
            line: position.line,
            col: position.character.min(line_width),
        };
        // Between the halves of a surrogate pair is the pair's start.
        self.offset_of_wide_in_char(WideEncoding::Utf16, wide)
            .map(|offset| {
                let raw = self.char_start(offset as usize);
                u32::from(
                    self.line_index
                        .offset(raw)
                        .expect("a char's start is in the text"),
                ) as usize
            })
            .unwrap_or(content_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_column_is_inclusive_and_only_on_one_line() {
        let at = |line, column| LineColumn { line, column };
        let span = |start, end| Span { start, end };
        assert_eq!(span(at(3, 5), at(3, 7)).last_column(), Some(6));
        assert_eq!(span(at(3, 5), at(3, 5)).last_column(), Some(5));
        assert_eq!(span(at(3, 5), at(4, 2)).last_column(), None);
    }

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
    fn positions_past_a_line_or_the_text_are_clamped_not_a_panic() {
        let text = "ab\n\"😀\"\nlast";
        let index = SourceIndex::new(text);
        let at = |line, character| index.clamped_offset_of_utf16(Utf16Position { line, character });
        assert_eq!(
            at(0, u32::MAX),
            2,
            "end of the first line, before its newline"
        );
        assert_eq!(at(1, 3), text.find("😀").unwrap() + 4);
        assert_eq!(at(1, 99), text.find("\nlast").unwrap());
        assert_eq!(at(2, 99), text.len());
        assert_eq!(at(u32::MAX, u32::MAX), text.len());
        let huge = Utf16Position {
            line: 0,
            character: u32::MAX,
        };
        assert_eq!(index.offset_of_utf16(huge), None);
        let far = LineColumn {
            line: 1,
            column: u32::MAX as usize,
        };
        assert_eq!(index.offset_of(far), None);
    }

    #[test]
    fn lines_are_one_based() {
        let index = SourceIndex::new("a\nb\r\nc");
        assert_eq!(index.line_column(0), LineColumn { line: 1, column: 1 });
        assert_eq!(index.line_column(5), LineColumn { line: 3, column: 1 });
    }

    /// rust-analyzer reports some escape errors at a byte inside a char
    /// (found by `fuzz_generation_on_edited_fixtures…`); such an offset,
    /// or one past the end, names the char's column, not a panic.
    #[test]
    fn an_offset_inside_a_char_is_that_chars_column() {
        let index = SourceIndex::new("a\n¡\\ x");
        assert_eq!(index.line_column(3), LineColumn { line: 2, column: 1 });
        assert_eq!(index.line_column(99), LineColumn { line: 2, column: 5 });
        assert_eq!(
            index.utf16_position(3),
            Utf16Position {
                line: 1,
                character: 0
            }
        );
    }

    /// An LSP column between the two UTF-16 halves of an emoji is the
    /// emoji's start when clamped, and no exact offset.
    #[test]
    fn a_position_inside_a_surrogate_pair_clamps_to_the_pairs_start() {
        let index = SourceIndex::new("\n😀x");
        let inside = Utf16Position {
            line: 1,
            character: 1,
        };
        assert_eq!(index.clamped_offset_of_utf16(inside), 1);
        assert_eq!(index.offset_of_utf16(inside), None);
        let after = Utf16Position {
            line: 1,
            character: 2,
        };
        assert_eq!(index.offset_of_utf16(after), Some(5));
    }

    /// Text with every kind of line ending and chars of 1 to 4 bytes (2
    /// UTF-16 units for the emoji).
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(&["a", "é", "€", "😀", "\n", "\r\n", "\r", " "][..]),
            0..40,
        )
        .prop_map(|pieces| pieces.concat())
    }

    use proptest::prelude::*;

    proptest! {
        /// Every char boundary goes to a line and column and back, in char
        /// columns and in UTF-16 columns.
        #[test]
        fn fuzz_offsets_round_trip_through_both_column_kinds(text in text()) {
            let index = SourceIndex::new(&text);
            for offset in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                prop_assert_eq!(index.offset_of(index.line_column(offset)), Some(offset));
                prop_assert_eq!(index.offset_of_utf16(index.utf16_position(offset)), Some(offset));
            }
        }

        /// Whatever position a client sends, the clamped offset is a char
        /// boundary of the text, and an exact position maps to itself.
        #[test]
        fn fuzz_any_client_position_clamps_to_a_char_boundary(
            text in text(),
            line in 0..12u32,
            character in prop_oneof![0..12u32, Just(u32::MAX)],
        ) {
            let index = SourceIndex::new(&text);
            let position = Utf16Position { line, character };
            let offset = index.clamped_offset_of_utf16(position);
            prop_assert!(offset <= text.len() && text.is_char_boundary(offset), "{position:?} clamps to {offset} in {text:?}");
            if let Some(exact) = index.offset_of_utf16(position) {
                prop_assert!(text.is_char_boundary(exact), "{position:?} is {exact} in {text:?}");
            }
        }

        /// Positions beyond the text are no position at all.
        #[test]
        fn fuzz_positions_past_the_text_are_none(text in text(), past in 1..5usize) {
            let index = SourceIndex::new(&text);
            let lines = text.split('\n').count();
            let line = LineColumn { line: lines + past, column: 1 };
            prop_assert_eq!(index.offset_of(line), None);
            prop_assert_eq!(index.offset_of(LineColumn { line: 0, column: 1 }), None);
            prop_assert_eq!(index.offset_of(LineColumn { line: 1, column: 0 }), None);
        }
    }
}
