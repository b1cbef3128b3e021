//! Shifts by a constant amount: rustc's deny-by-default
//! `arithmetic_overflow` lint rejects shifting a value by as many bits as
//! its type has, or more, or by a negative amount, when the amount is known
//! at compile time. A mutant inside such an amount (`PTR_BYTES * 8 - 1`
//! made `PTR_BYTES * 8 + 1`) cannot compile. The amount is worked out here
//! from integer literals, arithmetic and constants rust-analyzer evaluates;
//! anything else leaves the mutant to be built.

use ra_ap_hir::{ModuleDef, PathResolution, Semantics};
use ra_ap_ide_db::{FileId, RootDatabase};
use ra_ap_syntax::ast::{ArithOp, BinaryOp, LiteralKind, UnaryOp};
use ra_ap_syntax::{ast, AstNode, TextSize};

use crate::mutate::Mutant;

/// Whether the mutant's line holds a shift: only those are worth asking
/// about (a cheap look at the text, before any analysis).
pub(super) fn may_overflow(mutant: &Mutant) -> bool {
    let code = &mutant.source_file.code;
    let start = code[..mutant.range.start].rfind('\n').map_or(0, |i| i + 1);
    let end = code[mutant.range.start..]
        .find('\n')
        .map_or(code.len(), |i| mutant.range.start + i);
    let line = &code[start..end];
    line.contains("<<") || line.contains(">>")
}

/// Why the mutated code (the database holds it as `file`, `mutated` its
/// text) cannot compile: the mutant is in the amount of a shift, which is
/// now out of range for the shifted type.
pub(super) fn overflows(
    db: &RootDatabase,
    file: FileId,
    mutant: &Mutant,
    mutated: &str,
) -> Option<String> {
    // A crate may allow the lint; then it is only a warning.
    if mutated.contains("arithmetic_overflow") {
        return None;
    }
    let sema = Semantics::new(db);
    let file = sema.attach_first_edition(file);
    let source = sema.parse(file);
    let offset = TextSize::new(u32::try_from(mutant.range.start).ok()?);
    let token = source.syntax().token_at_offset(offset).right_biased()?;
    let shift = token
        .parent_ancestors()
        .filter_map(ast::BinExpr::cast)
        .find(|expr| {
            is_shift(expr)
                && expr
                    .rhs()
                    .is_some_and(|rhs| rhs.syntax().text_range().contains(offset))
        })?;
    let shifted = sema.type_of_expr(&shift.lhs()?)?.original;
    if !shifted.is_int_or_uint() {
        return None;
    }
    let bits = i128::from(shifted.layout(db).ok()?.size()) * 8;
    let amount = evaluate(&sema, &shift.rhs()?)?;
    (amount < 0 || amount >= bits).then(|| {
        format!(
            "it shifts a {bits}-bit value by {amount} bits, which rustc's deny-by-default \
             `arithmetic_overflow` lint rejects"
        )
    })
}

fn is_shift(expr: &ast::BinExpr) -> bool {
    let shift = |op: &ArithOp| matches!(op, ArithOp::Shl | ArithOp::Shr);
    match expr.op_kind() {
        Some(BinaryOp::ArithOp(op)) => shift(&op),
        Some(BinaryOp::Assignment { op: Some(op) }) => shift(&op),
        _ => false,
    }
}

/// The value of a constant integer expression: literals, `+ - * / %`,
/// negation, parentheses, casts of small values, and paths to constants.
fn evaluate(sema: &Semantics<'_, RootDatabase>, expr: &ast::Expr) -> Option<i128> {
    match expr {
        ast::Expr::Literal(literal) => match literal.kind() {
            LiteralKind::IntNumber(number) => i128::try_from(number.value().ok()?).ok(),
            _ => None,
        },
        ast::Expr::ParenExpr(paren) => evaluate(sema, &paren.expr()?),
        ast::Expr::PrefixExpr(prefix) if prefix.op_kind() == Some(UnaryOp::Neg) => {
            evaluate(sema, &prefix.expr()?)?.checked_neg()
        }
        // Any integer type holds these unchanged.
        ast::Expr::CastExpr(cast) => {
            Some(evaluate(sema, &cast.expr()?)?).filter(|v| (0..=127).contains(v))
        }
        ast::Expr::BinExpr(binary) => {
            let BinaryOp::ArithOp(op) = binary.op_kind()? else {
                return None;
            };
            let lhs = evaluate(sema, &binary.lhs()?)?;
            let rhs = evaluate(sema, &binary.rhs()?)?;
            match op {
                ArithOp::Add => lhs.checked_add(rhs),
                ArithOp::Sub => lhs.checked_sub(rhs),
                ArithOp::Mul => lhs.checked_mul(rhs),
                ArithOp::Div => lhs.checked_div(rhs),
                ArithOp::Rem => lhs.checked_rem(rhs),
                _ => None,
            }
        }
        ast::Expr::PathExpr(path) => {
            let PathResolution::Def(ModuleDef::Const(constant)) =
                sema.resolve_path(&path.path()?)?
            else {
                return None;
            };
            let db = sema.db;
            let value = constant.eval(db).ok()?.render_debug(db).ok()?;
            value.split_whitespace().next()?.parse().ok()
        }
        _ => None,
    }
}
