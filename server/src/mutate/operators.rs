//! Operator swaps: for each operator, what it is replaced with.

/// Replacements for a binary operator (compound assignments included), by
/// its source text. Empty for operators that are not mutated, such as `=`.
///
/// `==` never becomes `<` or `<=`: with unsigned values compared to zero
/// those are too often equivalent to the original.
pub fn binary_replacements(op: &str) -> &'static [&'static str] {
    match op {
        "==" => &["!="],
        "!=" => &["=="],
        "&&" => &["||"],
        "||" => &["&&"],
        "<" => &["==", ">", "<="],
        ">" => &["==", "<", ">="],
        "<=" => &[">"],
        ">=" => &["<"],
        "+" => &["-", "*"],
        "-" | "*" => &["+", "/"],
        "/" => &["%", "*"],
        "%" => &["/", "+"],
        "<<" => &[">>"],
        ">>" => &["<<"],
        "&" => &["|", "^"],
        "|" => &["&", "^"],
        "^" => &["|", "&"],
        "+=" => &["-=", "*="],
        "-=" | "*=" => &["+=", "/="],
        "/=" => &["%=", "*="],
        "%=" => &["/=", "+="],
        "<<=" => &[">>="],
        ">>=" => &["<<="],
        "&=" => &["|="],
        "|=" => &["&="],
        "^=" => &["|=", "&="],
        _ => &[],
    }
}

/// Unary operators whose deletion is a mutant: `!` and unary `-`.
pub fn unary_is_deleted(op: &str) -> bool {
    matches!(op, "!" | "-")
}

#[cfg(test)]
mod tests {
    use super::binary_replacements;

    #[test]
    fn equality_is_never_replaced_by_an_ordering() {
        assert_eq!(binary_replacements("=="), ["!="]);
        assert!(!binary_replacements("==").contains(&"<"));
        assert!(!binary_replacements("==").contains(&"<="));
    }

    #[test]
    fn plain_assignment_is_not_mutated() {
        assert!(binary_replacements("=").is_empty());
    }

    #[test]
    fn every_replacement_is_itself_a_known_operator() {
        let ops = [
            "==", "!=", "&&", "||", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "<<", ">>", "&",
            "|", "^", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
        ];
        for op in ops {
            assert!(!binary_replacements(op).is_empty(), "{op} has replacements");
            for replacement in binary_replacements(op) {
                assert!(ops.contains(replacement), "{op} -> {replacement}");
                assert_ne!(op, *replacement);
            }
        }
    }
}
