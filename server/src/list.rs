//! `mutiny list` output: one name per line, or cargo-mutants' JSON.

use serde::Serialize;

use crate::mutate::{Function, Genre, Mutant};
use crate::position::Span;

/// A mutant as `cargo mutants --list --json` writes it.
#[derive(Debug, Serialize)]
pub struct MutantJson<'a> {
    pub name: &'a str,
    pub package: &'a str,
    pub file: &'a str,
    pub function: Option<&'a Function>,
    pub span: Span,
    pub replacement: &'a str,
    pub genre: Genre,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

impl<'a> MutantJson<'a> {
    pub fn new(mutant: &'a Mutant) -> MutantJson<'a> {
        MutantJson {
            diff: Some(mutant.diff()),
            ..MutantJson::without_diff(mutant)
        }
    }

    /// As `outcomes.json` describes a mutant: everything but the diff.
    pub fn without_diff(mutant: &'a Mutant) -> MutantJson<'a> {
        MutantJson {
            name: &mutant.name,
            package: &mutant.source_file.package,
            file: &mutant.source_file.path,
            function: mutant.function.as_deref(),
            span: mutant.span,
            replacement: &mutant.replacement,
            genre: mutant.genre,
            diff: None,
        }
    }
}

pub fn to_json<M: std::borrow::Borrow<Mutant>>(mutants: &[M]) -> String {
    let list: Vec<MutantJson> = mutants
        .iter()
        .map(|m| MutantJson::new(m.borrow()))
        .collect();
    serde_json::to_string_pretty(&list).expect("mutants serialize")
}

pub fn to_text(mutants: &[Mutant], with_diffs: bool) -> String {
    let mut out = String::with_capacity(mutants.len() * 80);
    for mutant in mutants {
        out.push_str(&mutant.name);
        out.push('\n');
        if with_diffs {
            out.push_str(&mutant.diff());
            out.push('\n');
        }
    }
    out
}
