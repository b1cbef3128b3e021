//! Mutants inside a `const` item's value: rustc evaluates every constant
//! at compile time, so a mutation that makes the evaluation panic (a
//! subtraction that overflows, a division by zero) cannot compile.
//! rust-analyzer's evaluator judges it: only where it evaluates the
//! original constant, and only a panic of the mutated one counts (not
//! something the evaluator does not support).

use ra_ap_hir::{Const, ConstEvalError, MirEvalError, Semantics};
use ra_ap_ide_db::{FileId, RootDatabase};
use ra_ap_syntax::{ast, AstNode, TextSize};

use crate::mutate::Mutant;

/// The `const` item whose value holds the mutant's start, in the text the
/// database holds as `file`.
fn enclosing<'db>(
    sema: &Semantics<'db, RootDatabase>,
    file: FileId,
    mutant: &Mutant,
) -> Option<Const> {
    let file = sema.attach_first_edition(file);
    let source = sema.parse(file);
    sema.to_def(&item_around(&source, mutant)?)
}

/// The innermost `const` item around the mutant's start in `source`, if
/// its value holds that start.
fn item_around(source: &ast::SourceFile, mutant: &Mutant) -> Option<ast::Const> {
    let offset = TextSize::new(u32::try_from(mutant.range.start).ok()?);
    let token = source.syntax().token_at_offset(offset).right_biased()?;
    let item = token.parent_ancestors().find_map(ast::Const::cast)?;
    item.body()?
        .syntax()
        .text_range()
        .contains(offset)
        .then_some(item)
}

/// Whether the mutant starts inside the value of a `const` item, as the
/// syntax of its file (`source`) shows: where [`original_evaluates`] looks,
/// without a database.
pub(super) fn in_const_value(source: &ast::SourceFile, mutant: &Mutant) -> bool {
    item_around(source, mutant).is_some()
}

/// For a mutant in a constant's value: whether the original constant
/// evaluates (the database holds the original text).
pub(super) fn original_evaluates(db: &RootDatabase, file: FileId, mutant: &Mutant) -> Option<bool> {
    let sema = Semantics::new(db);
    let constant = enclosing(&sema, file, mutant)?;
    Some(constant.eval(db).is_ok())
}

/// Why the mutated constant (the database holds the mutated text) cannot
/// compile: its evaluation panics, or runs past rust-analyzer's limit of
/// 10 million basic blocks: a loop the mutant made endless. rustc stops
/// such an evaluation at 2 million terminators (one a block) with its
/// deny-by-default `long_running_const_eval` lint, so that build fails
/// too, unless the lint is allowed (`long_evaluations_allowed`: then
/// rustc runs on, and only a build tells).
pub(super) fn evaluation_fails(
    db: &RootDatabase,
    file: FileId,
    mutant: &Mutant,
    long_evaluations_allowed: bool,
) -> Option<String> {
    let sema = Semantics::new(db);
    let constant = enclosing(&sema, file, mutant)?;
    let Err(error) = constant.eval(db) else {
        return None;
    };
    let name = constant
        .name(db)
        .map(|n| n.display(db, ra_ap_syntax::Edition::CURRENT).to_string())
        .unwrap_or_else(|| "_".to_owned());
    if let Some(message) = panic_of(&error) {
        return Some(format!(
            "evaluating the constant `{name}` panics: {message}"
        ));
    }
    (runs_past_the_limit(&error) && !long_evaluations_allowed).then(|| {
        format!(
            "evaluating the constant `{name}` does not end: it runs past rust-analyzer's \
             limit of 10 million steps, and rustc's deny-by-default \
             `long_running_const_eval` lint stops it at 2 million"
        )
    })
}

/// Whether the evaluation failed by running past the evaluator's limit of
/// steps, however deep in calls.
fn runs_past_the_limit(error: &ConstEvalError<'_>) -> bool {
    matches!(
        root_cause(error),
        Some(MirEvalError::ExecutionLimitExceeded)
    )
}

/// Whether some file of the workspace at `root` (its Rust sources and
/// manifests, its cargo configuration) or the rustflags in the
/// environment name the `long_running_const_eval` lint: where it may be
/// allowed, a long evaluation is no sign of a failing build.
pub(super) fn long_evaluations_allowed(root: &std::path::Path) -> bool {
    const LINT: &str = "long_running_const_eval";
    let in_flags = std::env::vars_os().any(|(key, value)| {
        key.to_string_lossy().contains("RUSTFLAGS") && value.to_string_lossy().contains(LINT)
    });
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if name != "target" && (name == ".cargo" || !name.starts_with('.')) {
                    dirs.push(path);
                }
            } else if (name.ends_with(".rs") || name.ends_with(".toml") || name == "config")
                && std::fs::read_to_string(&path).is_ok_and(|text| {
                    // In Rust, outside line comments (documentation too).
                    text.lines().any(|line| {
                        line.contains(LINT)
                            && !(name.ends_with(".rs") && line.trim_start().starts_with("//"))
                    })
                })
            {
                return true;
            }
        }
    }
    in_flags
}

/// The panic message, if the evaluation failed by panicking (overflow,
/// division by zero, an explicit panic), however deep in calls.
fn panic_of(error: &ConstEvalError<'_>) -> Option<String> {
    match root_cause(error)? {
        MirEvalError::Panic(message) => Some(message.clone()),
        _ => None,
    }
}

/// The evaluator's error under the calls and constants it went through.
fn root_cause<'a, 'db>(error: &'a ConstEvalError<'db>) -> Option<&'a MirEvalError<'db>> {
    let ConstEvalError::MirEvalError(error) = error else {
        return None;
    };
    let mut error = error;
    loop {
        match error {
            MirEvalError::InFunction(inner, _) => error = &**inner,
            MirEvalError::ConstEvalError(_, inner) => return root_cause(inner),
            other => return Some(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::long_evaluations_allowed;

    #[test]
    fn long_evaluations_are_allowed_where_an_attribute_or_a_manifest_names_the_lint() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"c\"\n").unwrap();
        // Named in comments only: rustc's default holds.
        std::fs::write(
            root.join("src/lib.rs"),
            "//! `long_running_const_eval` denies endless loops\n\
             /// see long_running_const_eval\npub mod deep;\n",
        )
        .unwrap();
        std::fs::write(root.join("src/deep/mod.rs"), "pub const A: u8 = 1;\n").unwrap();
        assert!(!long_evaluations_allowed(root));
        // In a build's output: not the crate's.
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(
            root.join("target/x.rs"),
            "#![allow(long_running_const_eval)]\n",
        )
        .unwrap();
        assert!(!long_evaluations_allowed(root));
        // An attribute, however deep.
        std::fs::write(
            root.join("src/deep/mod.rs"),
            "#[allow(\n    long_running_const_eval\n)]\npub const A: u8 = 1;\n",
        )
        .unwrap();
        assert!(long_evaluations_allowed(root));
        // A manifest's lint table.
        std::fs::write(root.join("src/deep/mod.rs"), "pub const A: u8 = 1;\n").unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[lints.rust]\nlong_running_const_eval = \"allow\"\n",
        )
        .unwrap();
        assert!(long_evaluations_allowed(root));
    }
}
