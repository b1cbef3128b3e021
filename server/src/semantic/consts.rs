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
/// compile: its evaluation panics.
pub(super) fn evaluation_panics(
    db: &RootDatabase,
    file: FileId,
    mutant: &Mutant,
) -> Option<String> {
    let sema = Semantics::new(db);
    let constant = enclosing(&sema, file, mutant)?;
    let Err(error) = constant.eval(db) else {
        return None;
    };
    let message = panic_of(&error)?;
    let name = constant
        .name(db)
        .map(|n| n.display(db, ra_ap_syntax::Edition::CURRENT).to_string())
        .unwrap_or_else(|| "_".to_owned());
    Some(format!(
        "evaluating the constant `{name}` panics: {message}"
    ))
}

/// The panic message, if the evaluation failed by panicking (overflow,
/// division by zero, an explicit panic), however deep in calls.
fn panic_of(error: &ConstEvalError<'_>) -> Option<String> {
    let ConstEvalError::MirEvalError(error) = error else {
        return None;
    };
    let mut error = error;
    loop {
        match error {
            MirEvalError::Panic(message) => return Some(message.clone()),
            MirEvalError::InFunction(inner, _) => error = &**inner,
            MirEvalError::ConstEvalError(_, inner) => return panic_of(inner),
            _ => return None,
        }
    }
}
