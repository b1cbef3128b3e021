//! Skip rules that attributes express: tests, `cfg(test)`, `mutants::skip`
//! (also inside `cfg_attr`) and `mutants::exclude_re("…")`.

use ra_ap_syntax::{ast, AstNode, AstToken, SyntaxNode};

use super::pretty;

/// What the attributes of one item or expression say about mutating it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AttrVerdict {
    /// Nothing inside is mutated.
    pub skip: bool,
    /// The item is test code: `#[test]`-like, or under a cfg requiring test.
    pub is_test: bool,
    /// Mutants inside whose names match one of these are dropped.
    pub exclude_res: Vec<String>,
}

pub fn examine(attrs: impl Iterator<Item = ast::Attr>) -> AttrVerdict {
    let mut verdict = AttrVerdict::default();
    for attr in attrs {
        let Some(meta) = attr.meta() else { continue };
        examine_meta(&meta, &mut verdict);
    }
    verdict
}

fn examine_meta(meta: &ast::Meta, verdict: &mut AttrVerdict) {
    match meta {
        ast::Meta::CfgMeta(cfg) => {
            let test_only = cfg.cfg_predicate().is_some_and(|p| requires_test(&p));
            verdict.skip |= test_only;
            verdict.is_test |= test_only;
        }
        ast::Meta::CfgAttrMeta(cfg_attr) => {
            for inner in cfg_attr.metas() {
                examine_meta(&inner, verdict);
            }
        }
        _ => {
            let Some(path) = meta.path() else { return };
            let segments = path_segments(&path);
            let is = |expected: &[&str]| {
                segments
                    .iter()
                    .map(String::as_str)
                    .eq(expected.iter().copied())
            };
            if is(&["mutants", "skip"]) {
                verdict.skip = true;
            } else if is(&["mutants", "exclude_re"]) {
                if let ast::Meta::TokenTreeMeta(call) = meta {
                    verdict.exclude_res.extend(string_literals(call));
                }
            } else if segments.last().is_some_and(|last| last == "test") {
                // `#[test]`, `#[tokio::test]`, `#[rstest::test]`…
                verdict.skip = true;
                verdict.is_test = true;
            }
        }
    }
}

/// True when code under this predicate exists only in test builds:
/// `test`, `all(test, …)`, `any(all(test, a), test)`. Code under
/// `any(test, feature = "std")` or `not(test)` is compiled into ordinary
/// builds too, where integration tests and doctests can catch its mutants.
fn requires_test(predicate: &ast::CfgPredicate) -> bool {
    match predicate {
        ast::CfgPredicate::CfgAtom(atom) => {
            atom.eq_token().is_none() && atom.ident_token().is_some_and(|t| t.text() == "test")
        }
        ast::CfgPredicate::CfgComposite(composite) => {
            let mut children = composite.cfg_predicates().peekable();
            match composite.keyword().as_ref().map(|k| k.text()) {
                Some("all") => children.any(|p| requires_test(&p)),
                Some("any") => children.peek().is_some() && children.all(|p| requires_test(&p)),
                _ => false,
            }
        }
    }
}

/// The `#[cfg(…)]` predicates (as written) that `node` and the items
/// around it require, innermost first, up to the file's own `#![cfg(…)]`.
/// Code is compiled only where all of them hold.
pub fn cfg_predicates_around(node: &SyntaxNode) -> Vec<String> {
    node.ancestors()
        .filter_map(ast::AnyHasAttrs::cast)
        .flat_map(|owner| ast::HasAttrs::attrs(&owner).collect::<Vec<_>>())
        .filter_map(|attr| match attr.meta()? {
            ast::Meta::CfgMeta(cfg) => cfg.cfg_predicate(),
            _ => None,
        })
        .map(|predicate| pretty::node(predicate.syntax()))
        .collect()
}

fn path_segments(path: &ast::Path) -> Vec<String> {
    pretty::node(path.syntax())
        .split("::")
        .filter(|segment| !segment.is_empty())
        .map(str::to_owned)
        .collect()
}

fn string_literals(call: &ast::TokenTreeMeta) -> Vec<String> {
    call.token_tree()
        .into_iter()
        .flat_map(|tree| tree.syntax().descendants_with_tokens().collect::<Vec<_>>())
        .filter_map(|element| element.into_token())
        .filter_map(ast::String::cast)
        .filter_map(|string| string.value().ok().map(|value| value.into_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use ra_ap_syntax::{ast, AstNode, Edition, SourceFile};

    use super::{examine, AttrVerdict};

    fn verdict(attrs: &str) -> AttrVerdict {
        let text = format!("{attrs}\nfn f() {{}}");
        let file = SourceFile::parse(&text, Edition::CURRENT).tree();
        let function = file.syntax().descendants().find_map(ast::Fn::cast).unwrap();
        examine(ast::HasAttrs::attrs(&function))
    }

    fn skipped(attrs: &str) -> bool {
        verdict(attrs).skip
    }

    #[test]
    fn attributes_that_skip() {
        for attrs in [
            "#[test]",
            "#[tokio::test]",
            "#[tokio::test(flavor = \"multi_thread\")]",
            "#[cfg(test)]",
            "#[cfg(all(test, feature = \"x\"))]",
            "#[cfg(all(unix, any(test, all(test, miri))))]",
            "#[mutants::skip]",
            "#[cfg_attr(test, mutants::skip)]",
            "#[cfg_attr(all(), inline, mutants::skip)]",
            "#[inline]\n#[mutants::skip]",
            "#[cfg_attr(not(miri), test)]",
        ] {
            assert!(skipped(attrs), "{attrs} skips");
        }
    }

    #[test]
    fn attributes_that_do_not_skip() {
        for attrs in [
            "",
            "#[inline]",
            "#[cfg(feature = \"testing\")]",
            "#[cfg(unix)]",
            "#[cfg(any(test, feature = \"std\"))]",
            "#[cfg(not(test))]",
            "#[cfg(test = \"x\")]",
            "#[cfg(any())]",
            "#[cfg_attr(test, derive(Debug))]",
            "#[test_case(1)]",
            "#[mutants::skip_not]",
            "#[skip]",
            "#[doc = \"test\"]",
        ] {
            assert!(!skipped(attrs), "{attrs} does not skip");
        }
    }

    #[test]
    fn exclude_re_collects_its_patterns() {
        assert_eq!(
            verdict("#[mutants::exclude_re(\"with \\\\(\\\\)\")]").exclude_res,
            ["with \\(\\)"]
        );
        assert_eq!(
            verdict("#[cfg_attr(test, mutants::exclude_re(\"replace \\\\+\"))]").exclude_res,
            ["replace \\+"]
        );
    }
}
