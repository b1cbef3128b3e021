//! Runs of integer constants (`86400 * 7`) that a switch can hold: rustc
//! checks constant arithmetic for overflow and division by zero at build
//! time, in the switched-off branch too, so such a run normally goes alone.
//! When every value of the mutant's run (each literal and each
//! intermediate result) lies between the original's least and greatest
//! values (and 0), it fits whatever integer type the original compiled in,
//! and the switched build passes the lints as the mutant's own build would.

use ra_ap_syntax::ast::{self, AstNode};
use ra_ap_syntax::{SyntaxKind, SyntaxNode, TextRange};

/// Whether the constant run `region` with the text at `op` (a range in the
/// file) replaced by `replacement` stays within the original's values.
pub(super) fn mutation_fits(
    region: &SyntaxNode,
    op: TextRange,
    replacement: &str,
    edition: ra_ap_syntax::Edition,
) -> bool {
    let Some(original) = ast::Expr::cast(region.clone()) else {
        return false;
    };
    let mut before = Vec::new();
    if values(&original, &mut before).is_none() {
        return false;
    }
    let Some((_, after)) = mutated_values(region, op, replacement, edition) else {
        return false;
    };
    let low = before.iter().copied().min().unwrap_or(0).min(0);
    let high = before.iter().copied().max().unwrap_or(0).max(0);
    after.iter().all(|v| (low..=high).contains(v))
}

/// The value of the constant run `region` with the text at `op` replaced
/// by `replacement`, and every value on the way; `None` when it is not
/// integer arithmetic that can be evaluated.
pub(super) fn mutated_values(
    region: &SyntaxNode,
    op: TextRange,
    replacement: &str,
    edition: ra_ap_syntax::Edition,
) -> Option<(i128, Vec<i128>)> {
    let text = region.text().to_string();
    let start = u32::from(op.start().checked_sub(region.text_range().start())?) as usize;
    let end = u32::from(op.end().checked_sub(region.text_range().start())?) as usize;
    let mutated = format!("{}{replacement}{}", text.get(..start)?, text.get(end..)?);
    let mutated = parse_expression(&mutated, edition)?;
    let mut after = Vec::new();
    let value = values(&mutated, &mut after)?;
    Some((value, after))
}

/// `text` parsed as one expression, when it parses without error.
fn parse_expression(text: &str, edition: ra_ap_syntax::Edition) -> Option<ast::Expr> {
    let parse = ra_ap_syntax::SourceFile::parse(&format!("fn f() {{ {text} }}"), edition);
    if !parse.errors().is_empty() {
        return None;
    }
    let function = parse
        .tree()
        .syntax()
        .descendants()
        .find_map(ast::Fn::cast)?;
    function.body()?.stmt_list()?.tail_expr()
}

/// The value of a run of integer literals joined by `+ - * / %`, unary `-`
/// and parentheses, pushing every literal and intermediate value onto
/// `values`; `None` for anything else (a path, a cast, a float, a shift),
/// and for a division by zero or a value beyond `i128`.
fn values(expr: &ast::Expr, values: &mut Vec<i128>) -> Option<i128> {
    let value = match expr {
        ast::Expr::Literal(literal) => integer(literal.syntax())?,
        ast::Expr::ParenExpr(paren) => self::values(&paren.expr()?, values)?,
        ast::Expr::PrefixExpr(prefix) => match prefix.op_kind()? {
            ast::UnaryOp::Neg => self::values(&prefix.expr()?, values)?.checked_neg()?,
            _ => return None,
        },
        ast::Expr::BinExpr(bin) => {
            let left = self::values(&bin.lhs()?, values)?;
            let right = self::values(&bin.rhs()?, values)?;
            match bin.op_kind()? {
                ast::BinaryOp::ArithOp(ast::ArithOp::Add) => left.checked_add(right)?,
                ast::BinaryOp::ArithOp(ast::ArithOp::Sub) => left.checked_sub(right)?,
                ast::BinaryOp::ArithOp(ast::ArithOp::Mul) => left.checked_mul(right)?,
                ast::BinaryOp::ArithOp(ast::ArithOp::Div) => left.checked_div(right)?,
                ast::BinaryOp::ArithOp(ast::ArithOp::Rem) => left.checked_rem(right)?,
                _ => return None,
            }
        }
        _ => return None,
    };
    values.push(value);
    Some(value)
}

/// The value of an integer literal (`86_400`, `0xff`, `7u64`).
fn integer(literal: &SyntaxNode) -> Option<i128> {
    let token = literal.first_token()?;
    if token.kind() != SyntaxKind::INT_NUMBER {
        return None;
    }
    let text = token.text().replace('_', "");
    let (digits, radix) = match text.get(..2) {
        Some("0x") => (&text[2..], 16),
        Some("0o") => (&text[2..], 8),
        Some("0b") => (&text[2..], 2),
        _ => (text.as_str(), 10),
    };
    // A suffix (`u64`, `i8`, `usize`): the type, whatever it is, holds
    // the original's values; a float suffix never reaches here.
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let suffix = &digits[end..];
    let integer_suffix = suffix.is_empty()
        || (suffix.starts_with(['u', 'i'])
            && suffix[1..].chars().all(|c| c.is_ascii_alphanumeric()));
    if !integer_suffix {
        return None;
    }
    i128::from_str_radix(&digits[..end], radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first constant run in `fn f() -> u64 { RUN }` with the
    /// first occurrence of `op` replaced by `by` fits.
    fn fits(run: &str, op: &str, by: &str) -> bool {
        let code = format!("fn f() -> u64 {{ {run} }}");
        let parse = ra_ap_syntax::SourceFile::parse(&code, ra_ap_syntax::Edition::Edition2021);
        let function = parse
            .tree()
            .syntax()
            .descendants()
            .find_map(ast::Fn::cast)
            .unwrap();
        let region = function
            .body()
            .unwrap()
            .stmt_list()
            .unwrap()
            .tail_expr()
            .unwrap();
        let at = code.find(run).unwrap() + run.find(op).unwrap();
        let range = TextRange::new((at as u32).into(), ((at + op.len()) as u32).into());
        mutation_fits(
            region.syntax(),
            range,
            by,
            ra_ap_syntax::Edition::Edition2021,
        )
    }

    #[test]
    fn a_mutated_run_within_the_originals_values_fits() {
        assert!(fits("86400 * 7", "*", "+"));
        assert!(fits("86400 * 7", "*", "/"));
        assert!(fits("1_000 % 7u64", "%", "/"));
        assert!(fits("0x10 - 1", "-", "/"));
        assert!(fits("365 * 400 + 97", "+", "-"));
    }

    #[test]
    fn a_mutated_run_that_grows_goes_negative_or_divides_by_zero_does_not() {
        // Beyond the original's greatest value: it may overflow a u8.
        assert!(!fits("200 - 100", "-", "+"));
        // Below zero where the original never was: a u64 underflows.
        assert!(!fits("3 + 5", "+", "-"));
        assert!(!fits("4 - 4", "-", "+"));
        assert!(!fits("4 + 0", "+", "/"));
        // Not integer arithmetic: left alone.
        assert!(!fits("1.5 * 2.0", "*", "+"));
        assert!(!fits("N * 2", "*", "+"));
        assert!(!fits("1 << 3", "<<", ">>"));
        assert!(!fits("(7 as u64) * 2", "*", "+"));
    }
}
