//! The uses of a const item of a module or an inherent impl
//! (`Switch::CrateConst`) in one file, for a switched build that gives each
//! use the choice of the original and a copy holding the mutant. Names are
//! matched as text, so anything the syntax cannot settle (a use inside a
//! macro call, another item or binding of the same name, a name in a doc
//! comment that a doctest may compile) gives up, with the reason: the
//! mutant is then built alone, as cargo-mutants builds it.

use std::ops::Range;

use ra_ap_syntax::ast::{self, AstToken, HasGenericArgs};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode};

use super::discover::text_range;
use super::discover::{
    checked_only_at_run_time, const_context, handed_on, is_operator, ra_edition, removable_const,
};
use super::Edition;

/// What is looked for: the constant of a `Switch::CrateConst`.
#[derive(Debug, Clone)]
pub struct Wanted<'a> {
    pub name: &'a str,
    /// The type of the impl it is in (`Effects`), if any.
    pub owner: Option<&'a str>,
    /// Its integer value with the mutant, where known.
    pub value: Option<i128>,
    /// In the item's own file, the byte range of its name.
    pub declared: Option<Range<usize>>,
}

/// A use of the constant as a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstUse {
    /// The byte range of the path expression (`crate::Effects::BOLD`),
    /// which ends with the name.
    pub path: Range<usize>,
    /// The `const` keyword of the const fn it is in, if any: that fn must
    /// be a plain one in the switched build.
    pub const_fn: Option<Range<usize>>,
}

/// Whether `text` holds `name` as a whole word.
pub fn names(text: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(is_word)
            && !text[at + name.len()..].chars().next().is_some_and(is_word)
    })
}

/// Every use of the constant in a Rust file (`code`), each a value in
/// run-time code that a switch can hold; `Err` with the reason when some
/// mention of the name is anything else.
pub fn uses_in(code: &str, edition: Edition, wanted: &Wanted) -> Result<Vec<ConstUse>, String> {
    if !names(code, wanted.name) {
        return Ok(Vec::new());
    }
    let parse = ra_ap_syntax::SourceFile::parse(code, ra_edition(edition));
    let mut uses = Vec::new();
    for token in parse
        .syntax_node()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
    {
        if let Some(comment) = ast::Comment::cast(token.clone()) {
            if comment.kind().doc.is_some() && names(token.text(), wanted.name) {
                return Err("a doc comment names it, and a doctest may use it".to_owned());
            }
            continue;
        }
        if token.kind() == SyntaxKind::STRING
            && token
                .parent_ancestors()
                .any(|a| a.kind() == SyntaxKind::ATTR)
            && names(token.text(), wanted.name)
        {
            return Err("an attribute names it, and a doctest may use it".to_owned());
        }
        if token.kind() != SyntaxKind::IDENT || token.text() != wanted.name {
            continue;
        }
        let parent = token.parent().ok_or("a token without a parent")?;
        match parent.kind() {
            SyntaxKind::NAME if wanted.declared == Some(text_range(parent.text_range())) => {
                continue;
            }
            SyntaxKind::NAME => return Err("another item or binding has its name".to_owned()),
            SyntaxKind::NAME_REF => {}
            SyntaxKind::TOKEN_TREE => return Err("a macro call names it".to_owned()),
            _ => return Err("it is named where no value is".to_owned()),
        }
        uses.push(value_use(&parent, wanted)?);
    }
    Ok(uses)
}

/// The use whose name is `name_ref`, if it is a value that a switch can hold.
fn value_use(name_ref: &SyntaxNode, wanted: &Wanted) -> Result<ConstUse, String> {
    let segment = name_ref
        .parent()
        .and_then(ast::PathSegment::cast)
        .ok_or("it is named where no value is")?;
    let path = segment
        .syntax()
        .parent()
        .and_then(ast::Path::cast)
        .ok_or("it is named where no value is")?;
    // The last segment of a path that is a whole expression.
    let expression = path
        .syntax()
        .parent()
        .filter(|p| p.kind() == SyntaxKind::PATH_EXPR)
        .ok_or("a use is not a value (a pattern, a type or an import)")?;
    if segment.generic_arg_list().is_some() {
        return Err("a use has generic arguments".to_owned());
    }
    if let Some(qualifier) = path.qualifier() {
        qualifier_names_it(&qualifier, &expression, wanted)?;
    } else if wanted.owner.is_some() {
        return Err("it is named without its type".to_owned());
    }
    if let Some(why) = const_context(&expression) {
        return Err(format!("a use is compile-time code ({why})"));
    }
    let in_arithmetic = expression.parent().is_some_and(|p| {
        is_operator(p.kind()) || matches!(p.kind(), SyntaxKind::PAREN_EXPR | SyntaxKind::INDEX_EXPR)
    });
    let checked_at_run_time = match in_arithmetic {
        true => checked_only_at_run_time(&expression, wanted.value),
        false => handed_on(&expression),
    };
    if !checked_at_run_time {
        return Err(
            "a use is where the compiler may compute with it at build time (an index, a shift, a divisor, among constants, a local's value)"
                .to_owned(),
        );
    }
    let const_fn = expression
        .ancestors()
        .find_map(ast::Fn::cast)
        .filter(|f| f.const_token().is_some())
        .map(|f| removable_const(&f).ok_or("a use is in a const fn that stays const"))
        .transpose()?;
    Ok(ConstUse {
        path: text_range(expression.text_range()),
        const_fn,
    })
}

/// Whether `qualifier` (`crate::Effects`, `Self`, `effect`) may lead to
/// the constant: the impl's type or `Self` in an impl of it for an
/// associated one, a module for another; `Err` otherwise, as the copy
/// would not be found there (`u32::MAX`).
fn qualifier_names_it(
    qualifier: &ast::Path,
    expression: &SyntaxNode,
    wanted: &Wanted,
) -> Result<(), String> {
    let mut segments = Vec::new();
    let mut next = Some(qualifier.clone());
    while let Some(path) = next {
        let segment = path.segment().ok_or("a use has a qualified type")?;
        if segment.generic_arg_list().is_some() || segment.type_anchor().is_some() {
            return Err("a use has a qualified type or generic arguments".to_owned());
        }
        segments.push(segment);
        next = path.qualifier();
    }
    let last = segments
        .first()
        .map(|s| s.syntax().text().to_string())
        .unwrap_or_default();
    let fits = match wanted.owner {
        Some(owner) if last == "Self" => expression
            .ancestors()
            .find(|a| matches!(a.kind(), SyntaxKind::IMPL | SyntaxKind::TRAIT))
            .and_then(ast::Impl::cast)
            .filter(|i| i.trait_().is_none())
            .and_then(|i| match i.self_ty()? {
                ast::Type::PathType(ty) => Some(ty.path()?.segment()?.syntax().text().to_string()),
                _ => None,
            })
            .is_some_and(|ty| ty == owner),
        Some(owner) => last == owner,
        None => {
            const PRIMITIVES: &[&str] = &[
                "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
                "isize", "f32", "f64", "char", "bool", "str",
            ];
            !PRIMITIVES.contains(&last.as_str())
                && last.starts_with(|c: char| c.is_lowercase() || c == '_')
        }
    };
    if fits {
        Ok(())
    } else {
        Err(format!("`{last}::{}` may name another item", wanted.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'c>(code: &'c str, wanted: Wanted) -> Result<Vec<&'c str>, String> {
        uses_in(code, Edition::E2021, &wanted)
            .map(|uses| uses.into_iter().map(|u| &code[u.path]).collect())
    }

    const ASSOCIATED: Wanted = Wanted {
        name: "LOUD",
        owner: Some("Flags"),
        value: None,
        declared: None,
    };

    #[test]
    fn finds_each_value_use_by_type_self_and_path() {
        let code = "impl Flags { fn f() -> Flags { Self::LOUD } }\n\
                    fn g(x: u8) -> u8 { bits(crate::flags::Flags::LOUD) + Flags::LOUD.bits() * x }";
        assert_eq!(
            find(code, ASSOCIATED),
            Ok(vec![
                "Self::LOUD",
                "crate::flags::Flags::LOUD",
                "Flags::LOUD"
            ])
        );
    }

    #[test]
    fn gives_up_on_what_a_switch_cannot_hold() {
        let cases = [
            (
                "fn f() { assert!(Flags::LOUD.0 == 2); }",
                "a macro call names it",
            ),
            ("/// `Flags::LOUD`\nfn f() {}", "a doc comment names it"),
            ("#[doc = \"LOUD\"]\nfn f() {}", "an attribute names it"),
            (
                "fn f(x: Flags) { match x { Flags::LOUD => {} _ => {} } }",
                "not a value",
            ),
            ("const ALSO: Flags = Flags::LOUD;", "compile-time code"),
            ("static S: Flags = Flags::LOUD;", "compile-time code"),
            ("fn f() { let LOUD = 1; }", "another item or binding"),
            (
                "impl Other { fn f() -> Flags { Self::LOUD } }",
                "may name another item",
            ),
            ("fn f() -> u8 { Other::LOUD }", "may name another item"),
            ("fn f() -> Flags { LOUD }", "without its type"),
            ("fn f(x: [u8; 4]) -> u8 { x[Flags::LOUD] }", "an index"),
            (
                "fn f() -> u8 { let l = Flags::LOUD; l.0 + 1 }",
                "a local's value",
            ),
            ("fn f() -> u8 { Flags::LOUD.0 + 1 }", "build time"),
            ("fn f() -> bool { { Flags::LOUD } == x }", "build time"),
            ("trait T { const fn f() -> Flags { Flags::LOUD } }", "const"),
        ];
        for (code, why) in cases {
            let found = find(code, ASSOCIATED);
            assert!(
                found.as_ref().is_err_and(|e| e.contains(why)),
                "{code}: {found:?}, not {why:?}"
            );
        }
    }

    #[test]
    fn a_module_constant_may_be_named_bare_or_through_modules() {
        let wanted = Wanted {
            name: "STEP",
            owner: None,
            value: Some(12),
            declared: Some(10..14),
        };
        let code = "pub const STEP: u32 = 3 * 4;\nfn f(n: u32) -> u32 { n * STEP + self::STEP / crate::m::STEP }";
        assert_eq!(&code[10..14], "STEP");
        assert_eq!(
            find(code, wanted.clone()),
            Ok(vec!["STEP", "self::STEP", "crate::m::STEP"])
        );
        let divisor_may_be_zero = Wanted {
            value: None,
            ..wanted.clone()
        };
        assert!(find(code, divisor_may_be_zero).is_err());
        assert!(find("fn f() -> u32 { u32::STEP }", wanted.clone()).is_err());
    }

    #[test]
    fn a_use_in_a_const_fn_names_its_keyword() {
        let code = "pub const fn loud() -> Flags { Flags::LOUD }";
        let uses = uses_in(code, Edition::E2021, &ASSOCIATED).unwrap();
        assert_eq!(uses.len(), 1);
        assert_eq!(uses[0].const_fn.clone().map(|k| &code[k]), Some("const "));
    }

    #[test]
    fn plain_comments_strings_and_other_words_do_not_count() {
        let code = "// LOUD\nfn f() -> &'static str { \"LOUD\" }\nfn LOUDER() {}";
        assert_eq!(find(code, ASSOCIATED), Ok(vec![]));
        assert!(names("a LOUD b", "LOUD"));
        assert!(!names("LOUDER _LOUD", "LOUD"));
    }
}
