//! LSP values → engine values. Positions go through
//! `position::SourceIndex`, the one converter.

use tower_lsp_server::ls_types::{Diagnostic, Position};

use crate::position::{SourceIndex, Utf16Position};

/// The byte offset of an LSP position in `code`; a position past the end
/// of its line or of the text is clamped there (clients send such
/// positions, and no request may fail for it).
pub fn offset(index: &SourceIndex, position: Position) -> usize {
    index.clamped_offset_of_utf16(Utf16Position {
        line: position.line,
        character: position.character,
    })
}

/// The name of the mutant a diagnostic of ours is about, from its `data`.
pub fn mutant_name(diagnostic: &Diagnostic) -> Option<&str> {
    diagnostic.data.as_ref()?.get("mutant")?.as_str()
}
