//! Renders syntax as cargo-mutants writes it in mutant names.
//!
//! cargo-mutants prints types, paths and patterns from their token stream with
//! a fixed spacing rule (`Result<(), Box<dyn Error>>`, `<impl Display for
//! Version>::fmt`). Names are how results are matched across tools and runs,
//! so mutiny renders the same tokens the same way, starting from
//! rust-analyzer's tokens instead of proc-macro2's.

use ra_ap_syntax::{NodeOrToken, SyntaxKind, SyntaxNode, SyntaxToken};

/// One proc-macro-style token: punctuation is one char, a group is delimited.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tree {
    Punct(char),
    Word(String),
    Group(char, char, Vec<Tree>),
}

/// Renders the tokens of a node, without comments or whitespace.
pub fn node(node: &SyntaxNode) -> String {
    tokens(
        node.descendants_with_tokens()
            .filter_map(NodeOrToken::into_token),
    )
}

/// Renders a sequence of tokens.
pub fn tokens(tokens: impl IntoIterator<Item = SyntaxToken>) -> String {
    let mut stack: Vec<(char, Vec<Tree>)> = vec![(' ', Vec::new())];
    for token in tokens {
        let kind = token.kind();
        if kind.is_trivia() {
            continue;
        }
        let text = token.text();
        let top = &mut stack.last_mut().expect("stack has a root").1;
        match kind {
            SyntaxKind::L_PAREN | SyntaxKind::L_BRACK | SyntaxKind::L_CURLY => {
                let open = text.chars().next().unwrap_or('(');
                stack.push((open, Vec::new()));
            }
            SyntaxKind::R_PAREN | SyntaxKind::R_BRACK | SyntaxKind::R_CURLY => {
                let close = text.chars().next().unwrap_or(')');
                if stack.len() > 1 {
                    let (open, inner) = stack.pop().expect("checked length");
                    let top = &mut stack.last_mut().expect("stack has a root").1;
                    top.push(Tree::Group(open, close, inner));
                }
            }
            SyntaxKind::LIFETIME_IDENT => {
                top.push(Tree::Punct('\''));
                top.push(Tree::Word(text.trim_start_matches('\'').to_owned()));
            }
            _ if kind.is_punct() => top.extend(text.chars().map(Tree::Punct)),
            _ => top.push(Tree::Word(text.to_owned())),
        }
    }
    // Unclosed groups (only in broken syntax) are flattened back in order.
    while stack.len() > 1 {
        let (open, inner) = stack.pop().expect("checked length");
        let top = &mut stack.last_mut().expect("stack has a root").1;
        top.push(Tree::Punct(open));
        top.extend(inner);
    }
    render(&stack.pop().expect("stack has a root").1)
}

fn render(trees: &[Tree]) -> String {
    let mut out = String::new();
    for (i, tree) in trees.iter().enumerate() {
        let next = trees.get(i + 1);
        match tree {
            Tree::Punct(c) => {
                if *c == '|' && !out.is_empty() && !out.ends_with(' ') && !out.ends_with('|') {
                    out.push(' ');
                }
                out.push(*c);
                if next.is_some() && (out.ends_with("->") || *c == ',' || *c == ';') {
                    out.push(' ');
                }
            }
            Tree::Word(word) => {
                if out.ends_with('=') || out.ends_with("=>") || out.ends_with('|') {
                    out.push(' ');
                }
                out.push_str(word);
                match next {
                    Some(Tree::Word(_)) => out.push(' '),
                    Some(Tree::Punct(p)) if !",;<>:.!".contains(*p) => out.push(' '),
                    _ => (),
                }
            }
            Tree::Group(open, close, inner) => {
                out.push(*open);
                out.push_str(&render(inner));
                out.push(*close);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use ra_ap_syntax::{AstNode, Edition, SourceFile};

    fn pretty_type(ty: &str) -> String {
        let file = SourceFile::parse(&format!("type X = {ty};"), Edition::CURRENT).tree();
        let alias = file
            .syntax()
            .descendants()
            .find_map(ra_ap_syntax::ast::TypeAlias::cast)
            .unwrap();
        let ty = alias.ty().unwrap();
        super::node(ty.syntax())
    }

    /// Some of these read oddly (`4 *N`); they are what cargo-mutants prints,
    /// and names must agree with it.
    #[test]
    fn types_render_like_cargo_mutants() {
        let cases = [
            (
                "Result < (), Box<dyn  Error> >",
                "Result<(), Box<dyn Error>>",
            ),
            ("Option<Self ::  Item>", "Option<Self::Item>"),
            (
                "impl Iterator < Item = String >",
                "impl Iterator<Item = String>",
            ),
            ("&'a  mut [u8]", "&'a mut[u8]"),
            (
                "HashMap<&'static str, Vec<u8>>",
                "HashMap<&'static str, Vec<u8>>",
            ),
            ("MergeTrees < AE , BE >", "MergeTrees<AE, BE>"),
            ("[u8; 4 * N]", "[u8; 4 *N]"),
            ("fn(u8) -> bool", "fn(u8)-> bool"),
        ];
        for (source, expected) in cases {
            assert_eq!(pretty_type(source), expected, "rendering {source:?}");
        }
    }
}
