//! Whether a mutant's code is compiled for this target: the `#[cfg(…)]`s
//! around it, and those of the `mod` declarations that include its file,
//! evaluated against the cfg options rust-analyzer holds for its package
//! (the target's cfgs from rustc, the run's features).
//!
//! A "no" must be certain: a mutant said not to be compiled is not tested.
//! So only atoms whose value is settled here are read (the target's
//! properties, `feature`s, `miri`); any other atom is unknown, and a
//! predicate is false only if it is false whatever the unknown atoms are.
//! That leaves out `test` (the library is compiled both with and without
//! it: integration tests and doctests use the one without),
//! `debug_assertions` (profiles can change it) and cfgs that build scripts
//! or `RUSTFLAGS` set.

use ra_ap_hir::{CfgAtom, CfgOptions, Symbol};
use ra_ap_syntax::ast::{self, CfgAtomKey};
use ra_ap_syntax::{AstNode, AstToken, Edition, SourceFile};

/// The atoms whose value the crate's cfg options settle.
const SETTLED: &[&str] = &[
    "feature",
    "unix",
    "windows",
    "target_os",
    "target_family",
    "target_arch",
    "target_pointer_width",
    "target_endian",
    "target_env",
    "target_vendor",
    "target_abi",
    "panic",
    "miri",
];

/// Where a mutant is, as its cfgs see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CfgPlace {
    /// The package it belongs to.
    pub package: String,
    /// Its file, for messages.
    pub path: String,
    /// The predicates of the items around it in its file, and of the file's
    /// `#![cfg(…)]`: all must hold.
    pub in_file: Vec<String>,
    /// For each chain of `mod` declarations that includes the file, the
    /// predicates it requires: the file is compiled if all of some
    /// chain's hold.
    pub declarations: Vec<Vec<String>>,
}

impl CfgPlace {
    /// Whether any cfg could leave this place out.
    pub fn has_cfgs(&self) -> bool {
        !self.in_file.is_empty() || self.declarations.iter().any(|chain| !chain.is_empty())
    }
}

/// Why the code at `place` is surely not compiled with `options`, or
/// `None` when it is or may be.
pub(super) fn not_compiled(place: &CfgPlace, options: &CfgOptions) -> Option<String> {
    let off = |predicates: &[String]| {
        predicates
            .iter()
            .find(|predicate| holds(predicate, options) == Some(false))
            .cloned()
    };
    if let Some(predicate) = off(&place.in_file) {
        return Some(format!("`cfg({predicate})` is off for this target"));
    }
    if place.declarations.is_empty() {
        return None;
    }
    let mut offs = Vec::new();
    for chain in &place.declarations {
        offs.push(off(chain)?);
    }
    Some(format!(
        "{} is declared under `cfg({})`, off for this target",
        place.path, offs[0]
    ))
}

/// Whether `predicate` (as written inside `cfg(…)`) holds: `None` when it
/// depends on an atom not settled here, or does not parse.
fn holds(predicate: &str, options: &CfgOptions) -> Option<bool> {
    let text = format!("#[cfg({predicate})]\nfn f() {{}}\n");
    let file = SourceFile::parse(&text, Edition::CURRENT).tree();
    let parsed = file
        .syntax()
        .descendants()
        .find_map(ast::CfgMeta::cast)?
        .cfg_predicate()?;
    evaluate(&parsed, options)
}

/// Three-valued: `Some(false)` only if false whatever the unknown atoms are.
fn evaluate(predicate: &ast::CfgPredicate, options: &CfgOptions) -> Option<bool> {
    match predicate {
        ast::CfgPredicate::CfgAtom(atom) => match atom.key()? {
            CfgAtomKey::True => Some(true),
            CfgAtomKey::False => Some(false),
            CfgAtomKey::Ident(key) => {
                let key = key.text().trim_start_matches("r#");
                if !SETTLED.contains(&key) {
                    return None;
                }
                let atom = match atom.string_token().and_then(ast::String::cast) {
                    Some(value) => CfgAtom::KeyValue {
                        key: Symbol::intern(key),
                        value: Symbol::intern(&value.value().ok()?),
                    },
                    None => CfgAtom::Flag(Symbol::intern(key)),
                };
                Some(options.check_atom(&atom))
            }
        },
        ast::CfgPredicate::CfgComposite(composite) => {
            let values: Vec<Option<bool>> = composite
                .cfg_predicates()
                .map(|inner| evaluate(&inner, options))
                .collect();
            let settled = values.iter().all(Option::is_some);
            match composite.keyword()?.text() {
                "all" if values.contains(&Some(false)) => Some(false),
                "all" => settled.then_some(true),
                "any" if values.contains(&Some(true)) => Some(true),
                "any" => settled.then_some(false),
                "not" => match values.as_slice() {
                    [value] => value.map(|v| !v),
                    _ => None,
                },
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> CfgOptions {
        let mut options = CfgOptions::default();
        options.insert_atom(Symbol::intern("unix"));
        options.insert_atom(Symbol::intern("test"));
        options.insert_atom(Symbol::intern("debug_assertions"));
        options.insert_key_value(Symbol::intern("target_os"), Symbol::intern("linux"));
        options.insert_key_value(Symbol::intern("feature"), Symbol::intern("std"));
        options
    }

    #[test]
    fn settled_atoms_decide_and_others_stay_unknown() {
        let options = options();
        let cases = [
            ("windows", Some(false)),
            ("unix", Some(true)),
            ("target_os = \"windows\"", Some(false)),
            ("target_os = \"linux\"", Some(true)),
            ("feature = \"std\"", Some(true)),
            ("feature = \"x\"", Some(false)),
            ("not(feature = \"x\")", Some(true)),
            ("all(unix, feature = \"x\")", Some(false)),
            ("any(windows, feature = \"std\")", Some(true)),
            ("any()", Some(false)),
            ("all()", Some(true)),
            // Unknown: test, debug_assertions, cfgs from build scripts.
            ("test", None),
            ("not(test)", None),
            ("not(debug_assertions)", None),
            ("docsrs", None),
            // False whatever the unknown atom is.
            ("all(windows, test)", Some(false)),
            ("all(not(test), feature = \"x\")", Some(false)),
            ("any(windows, loom)", None),
            ("any(unix, loom)", Some(true)),
        ];
        for (predicate, expected) in cases {
            assert_eq!(holds(predicate, &options), expected, "cfg({predicate})");
        }
    }

    #[test]
    fn a_file_is_off_only_if_every_declaration_is() {
        let options = options();
        let place = |in_file: &[&str], declarations: &[&[&str]]| CfgPlace {
            package: "p".into(),
            path: "src/sys.rs".into(),
            in_file: in_file.iter().map(|s| s.to_string()).collect(),
            declarations: declarations
                .iter()
                .map(|chain| chain.iter().map(|s| s.to_string()).collect())
                .collect(),
        };
        assert_eq!(
            not_compiled(&place(&["windows"], &[&[]]), &options).as_deref(),
            Some("`cfg(windows)` is off for this target")
        );
        assert_eq!(
            not_compiled(&place(&[], &[&["windows"]]), &options).as_deref(),
            Some("src/sys.rs is declared under `cfg(windows)`, off for this target")
        );
        assert_eq!(
            not_compiled(&place(&[], &[&["windows"], &["unix"]]), &options),
            None
        );
        assert_eq!(not_compiled(&place(&["test"], &[&[]]), &options), None);
        assert_eq!(not_compiled(&place(&[], &[]), &options), None);
    }
}
