//! Whether an operator swap can compile: `a + b` becomes `a - b` only if
//! the operands' types implement `Sub` as they implement `Add`. The types
//! are read from the original code, where inference is complete (in the
//! mutated code, an integer literal's type may be left to fallback).

use ra_ap_hir::{HirDisplay, LangItem, Semantics, Trait, Type};
use ra_ap_ide_db::{FileId, RootDatabase};
use ra_ap_syntax::{ast, AstNode, TextRange, TextSize};

use super::predict::{definite, Prediction};
use super::Trust;
use crate::mutate::{Genre, Mutant};

/// The trait an overloadable operator calls, by its text.
fn trait_of(op: &str) -> Option<LangItem> {
    Some(match op {
        "+" => LangItem::Add,
        "-" => LangItem::Sub,
        "*" => LangItem::Mul,
        "/" => LangItem::Div,
        "%" => LangItem::Rem,
        "&" => LangItem::BitAnd,
        "|" => LangItem::BitOr,
        "^" => LangItem::BitXor,
        "<<" => LangItem::Shl,
        ">>" => LangItem::Shr,
        "+=" => LangItem::AddAssign,
        "-=" => LangItem::SubAssign,
        "*=" => LangItem::MulAssign,
        "/=" => LangItem::DivAssign,
        "%=" => LangItem::RemAssign,
        "&=" => LangItem::BitAndAssign,
        "|=" => LangItem::BitOrAssign,
        "^=" => LangItem::BitXorAssign,
        "<<=" => LangItem::ShlAssign,
        ">>=" => LangItem::ShrAssign,
        _ => return None,
    })
}

/// Whether `mutant` swaps an operator for one that calls another trait.
pub(super) fn swaps_trait(mutant: &Mutant) -> bool {
    mutant.genre == Genre::BinaryOperator && trait_of(&mutant.replacement).is_some()
}

/// Judges an operator swap against the original text, which the database
/// holds as `file`.
pub(super) fn check(db: &RootDatabase, file: FileId, mutant: &Mutant, trust: &Trust) -> Prediction {
    judge(db, file, mutant, trust).map_or(Prediction::Unknown, Prediction::Unviable)
}

fn judge(db: &RootDatabase, file: FileId, mutant: &Mutant, trust: &Trust) -> Option<String> {
    let sema = Semantics::new(db);
    let file = sema.attach_first_edition(file);
    let source = sema.parse(file);
    let range = TextRange::new(
        TextSize::new(u32::try_from(mutant.range.start).ok()?),
        TextSize::new(u32::try_from(mutant.range.end).ok()?),
    );
    let token = source.syntax().covering_element(range).into_token()?;
    let expr = token.parent_ancestors().find_map(ast::BinExpr::cast)?;
    if expr.op_token()?.text_range() != range {
        return None;
    }
    let krate = sema.file_to_module_def(file.file_id(db))?.krate(db);
    let wanted = Trait::lang(db, krate, trait_of(&mutant.replacement)?)?;
    let lhs = sema.type_of_expr(&expr.lhs()?)?.original;
    let rhs = sema.type_of_expr(&expr.rhs()?)?.original;
    // rust-analyzer's view must hold the original: if it finds the
    // original operator's trait missing too, its types are not rustc's
    // (a type alias or an impl it does not see) and its "no" is no proof.
    let original = Trait::lang(db, krate, trait_of(expr.op_token()?.text())?)?;
    if !lhs.impls_trait(db, original, std::slice::from_ref(&rhs)) {
        return None;
    }
    if !surely_lacks(db, &lhs, wanted, &rhs, trust) {
        return None;
    }
    let target = krate.to_display_target(db);
    Some(format!(
        "`{}` does not implement `{}<{}>`, which `{}` needs",
        lhs.display(db, target),
        wanted.name(db).display(db, ra_ap_syntax::Edition::CURRENT),
        rhs.display(db, target),
        mutant.replacement
    ))
}

/// Whether `lhs` surely does not implement `trait_<rhs>`: both types fully
/// known, and every impl that could apply in sight.
fn surely_lacks(
    db: &RootDatabase,
    lhs: &Type<'_>,
    trait_: Trait,
    rhs: &Type<'_>,
    trust: &Trust,
) -> bool {
    if lhs.contains_unknown() || rhs.contains_unknown() {
        return false;
    }
    if !definite(db, lhs, trust) || !definite(db, rhs, trust) {
        return false;
    }
    !lhs.impls_trait(db, trait_, std::slice::from_ref(rhs))
}
