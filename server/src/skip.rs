//! The "skip mutants" quick fix as plain text edits: `#[mutants::skip]` on
//! its own line above a function (and its attributes), with the function's
//! indentation; and the `mutants` dependency for a package that lacks it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::mutate::{Function, Mutant};
use crate::position::SourceIndex;

/// Text to insert at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insertion {
    pub offset: usize,
    pub text: String,
}

/// The edits that skip a mutant's function: the attribute in its file and,
/// when the package lacks the `mutants` dependency, its new manifest text.
#[derive(Debug, Clone)]
pub struct SkipFix {
    pub function_name: String,
    pub attribute: Insertion,
    /// The manifest's path, current text and text with the dependency.
    pub manifest: Option<(PathBuf, String, String)>,
}

/// The quick fix that skips the function `mutant` is in, computed from the
/// text the mutant was generated from; `manifest_path` is its package's.
pub fn skip_fix(mutant: &Mutant, manifest_path: &Path) -> Result<Option<SkipFix>> {
    let Some(function) = &mutant.function else {
        return Ok(None);
    };
    let Some(attribute) = skip_attribute(&mutant.source_file.code, function) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?;
    let manifest = crate::manifest::with_mutants_dependency(&text)
        .map(|new| (manifest_path.to_owned(), text, new));
    Ok(Some(SkipFix {
        function_name: function.function_name.clone(),
        attribute,
        manifest,
    }))
}

/// Where `#[mutants::skip]` goes for `function` in `code`: the start of the
/// line where the function's item (attributes and doc comments included)
/// begins, indented like that line.
pub fn skip_attribute(code: &str, function: &Function) -> Option<Insertion> {
    let start = SourceIndex::new(code).offset_of(function.span.start)?;
    let line_start = code[..start].rfind('\n').map_or(0, |n| n + 1);
    let line = &code[line_start..];
    let indent_len = line.len() - line.trim_start_matches([' ', '\t']).len();
    Some(Insertion {
        offset: line_start,
        text: format!("{}#[mutants::skip]\n", &line[..indent_len]),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::mutate::{generate, SourceFile};

    fn apply(code: &str, function_name: &str) -> String {
        let source_file = Arc::new(SourceFile {
            package: "p".into(),
            path: "src/lib.rs".into(),
            code: code.into(),
            edition: Default::default(),
        });
        let mutants = generate(&source_file, &Default::default()).mutants;
        let function = mutants
            .iter()
            .filter_map(|m| m.function.as_deref())
            .find(|f| f.function_name == function_name)
            .expect("the function has mutants");
        let insertion = skip_attribute(code, function).unwrap();
        let mut out = code.to_owned();
        out.insert_str(insertion.offset, &insertion.text);
        out
    }

    #[test]
    fn attribute_goes_above_attributes_and_docs_with_the_indentation() {
        let code = "impl V {\n    /// Doc.\n    #[inline]\n    pub fn f(&self) -> bool {\n        true && g()\n    }\n}\n";
        assert_eq!(
            apply(code, "V::f"),
            "impl V {\n    #[mutants::skip]\n    /// Doc.\n    #[inline]\n    pub fn f(&self) -> bool {\n        true && g()\n    }\n}\n"
        );
        let top = "fn h() -> u32 {\n    1 + 2\n}\n";
        assert_eq!(apply(top, "h"), format!("#[mutants::skip]\n{top}"));
        let tabbed = "mod m {\n\tfn k() -> i32 {\n\t\t3 * 4\n\t}\n}\n";
        assert_eq!(
            apply(tabbed, "m::k"),
            "mod m {\n\t#[mutants::skip]\n\tfn k() -> i32 {\n\t\t3 * 4\n\t}\n}\n"
        );
    }
}
