//! `mutiny list` output: one name per line, or cargo-mutants' JSON.

use serde::Serialize;

use crate::mutate::{Function, Genre, Mutant};
use crate::outcome::Judged;
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
    /// Present (`true`) on mutiny's own type-aware stubs, which
    /// cargo-mutants does not make.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub own: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// What `list --analysis` found without a build, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged: Option<JudgedJson>,
}

/// A verdict of the analysis in `list --analysis --json`.
#[derive(Debug, Serialize)]
pub struct JudgedJson {
    /// `unviable` or `not_compiled`, as in `run --json`.
    pub verdict: &'static str,
    pub why: String,
}

impl JudgedJson {
    fn new(judged: &Judged) -> JudgedJson {
        let (verdict, why) = match judged {
            Judged::Unviable(why) => ("unviable", why),
            Judged::NotCompiled(why) => ("not_compiled", why),
        };
        JudgedJson {
            verdict,
            why: why.clone(),
        }
    }
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
            own: mutant.own,
            diff: None,
            judged: None,
        }
    }
}

pub fn to_json<M: std::borrow::Borrow<Mutant>>(mutants: &[M]) -> String {
    to_json_judged(mutants, |_| None)
}

/// The JSON list, each mutant with what `judged` says of it (by index).
pub fn to_json_judged<M: std::borrow::Borrow<Mutant>>(
    mutants: &[M],
    judged: impl Fn(usize) -> Option<Judged>,
) -> String {
    let list: Vec<MutantJson> = mutants
        .iter()
        .enumerate()
        .map(|(index, m)| MutantJson {
            judged: judged(index).as_ref().map(JudgedJson::new),
            ..MutantJson::new(m.borrow())
        })
        .collect();
    serde_json::to_string_pretty(&list).expect("mutants serialize")
}

pub fn to_text(mutants: &[Mutant], with_diffs: bool) -> String {
    to_text_judged(mutants, with_diffs, |_| None)
}

/// One name per line, followed by what `judged` says of the mutant (by
/// index): `  [unviable: why]` or `  [not compiled: why]`.
pub fn to_text_judged(
    mutants: &[Mutant],
    with_diffs: bool,
    judged: impl Fn(usize) -> Option<Judged>,
) -> String {
    let mut out = String::with_capacity(mutants.len() * 80);
    for (index, mutant) in mutants.iter().enumerate() {
        out.push_str(&mutant.name);
        match judged(index) {
            Some(Judged::Unviable(why)) => out.push_str(&format!("  [unviable: {why}]")),
            Some(Judged::NotCompiled(why)) => out.push_str(&format!("  [not compiled: {why}]")),
            None => {}
        }
        out.push('\n');
        if with_diffs {
            out.push_str(&mutant.diff());
            out.push('\n');
        }
    }
    out
}
