//! Which const fns a switched build must keep const. A switch is a
//! run-time call, which a `const fn` cannot make, so the build removes the
//! `const` of the functions that hold switched mutants; that breaks every
//! place that calls one of them at compile time. This scan finds, from the
//! syntax of every file the build may compile (doctests and Markdown code
//! blocks included, since rustdoc compiles them too), the names that may be
//! called at compile time: any name in a const or static item, an array
//! length, a const block, generic argument or parameter, an enum
//! discriminant, a macro that writes `const` or `static`, or the body of a
//! const fn that stays const. Names, not resolved paths: a name shared by
//! two functions keeps both const. A miss costs a build round, not a
//! verdict: rustc's E0015 names the function, and the lab takes its
//! mutants out of the switched build.

use std::collections::{BTreeSet, HashSet};

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, AstToken, Edition, SyntaxKind, SyntaxNode};

/// A file the scan reads.
pub enum ScanFile<'a> {
    /// Rust source, with the byte offsets of the `const` keywords that
    /// the switched build removes in it.
    Rust(&'a str, &'a [usize]),
    /// Any other text (Markdown, plain text), which a crate may include
    /// as documentation (`#[doc = include_str!("../README.md")]`): its
    /// fenced code blocks are doctests.
    Text(&'a str),
}

/// The names of the const fns whose `const` the switched build would
/// remove (as `files` mark them) that must keep it: something may call
/// them at compile time, or a const fn that stays const calls them.
pub fn kept_const(files: &[ScanFile]) -> BTreeSet<String> {
    let mut scan = Scan::default();
    for file in files {
        match file {
            ScanFile::Rust(code, removed) => scan.rust(code, removed),
            ScanFile::Text(text) => scan.code_blocks(text),
        }
    }
    // A const fn stays const unless it is a candidate nothing calls at
    // compile time; the names its body calls then are called at compile
    // time too.
    let mut compile_time = scan.compile_time;
    loop {
        let mut grew = false;
        for (name, body, removed) in &scan.const_fns {
            if *removed && !compile_time.contains(name) {
                continue;
            }
            for word in body {
                grew |= compile_time.insert(word.clone());
            }
        }
        if !grew {
            break;
        }
    }
    scan.const_fns
        .into_iter()
        .filter(|(name, _, removed)| *removed && compile_time.contains(name))
        .map(|(name, _, _)| name)
        .collect()
}

/// What the files say.
#[derive(Default)]
struct Scan {
    /// Names in compile-time contexts.
    compile_time: HashSet<String>,
    /// Each const fn's name, the names in its body, and whether the
    /// switched build removes its `const`.
    const_fns: Vec<(String, Vec<String>, bool)>,
}

impl Scan {
    fn rust(&mut self, code: &str, removed: &[usize]) {
        let parse = ra_ap_syntax::SourceFile::parse(code, Edition::Edition2021);
        let root = parse.syntax_node();
        let mut docs = String::new();
        for element in root.descendants_with_tokens() {
            let node = match element {
                ra_ap_syntax::NodeOrToken::Token(token) => {
                    if let Some(comment) = ast::Comment::cast(token) {
                        if comment.kind().doc.is_some() {
                            docs.push_str(doc_line(comment.text()));
                            docs.push('\n');
                        }
                    }
                    continue;
                }
                ra_ap_syntax::NodeOrToken::Node(node) => node,
            };
            if let Some(function) = ast::Fn::cast(node.clone()) {
                if let (Some(keyword), Some(name), Some(body)) =
                    (function.const_token(), function.name(), function.body())
                {
                    let at = usize::from(keyword.text_range().start());
                    self.const_fns.push((
                        name.text().to_string(),
                        words(body.syntax()),
                        removed.contains(&at),
                    ));
                }
                continue;
            }
            if compile_time_context(&node) {
                self.compile_time.extend(words(&node));
            }
            // `#[doc = "…"]`: documentation too.
            if let Some(meta) = ast::KeyValueMeta::cast(node) {
                let is_doc = meta.path().is_some_and(|p| p.syntax().text() == "doc");
                if let (true, Some(ast::Expr::Literal(literal))) = (is_doc, meta.expr()) {
                    let text = literal.syntax().text().to_string();
                    let text = text
                        .trim_start_matches('r')
                        .trim_matches('#')
                        .trim_matches('"');
                    docs.push_str(&text.replace("\\n", "\n"));
                    docs.push('\n');
                }
            }
        }
        if !docs.is_empty() {
            self.code_blocks(&docs);
        }
    }

    /// Scans the fenced code blocks of documentation text as doctests:
    /// statements in a function (rustdoc's wrapping), `# ` lines included.
    fn code_blocks(&mut self, text: &str) {
        let mut block: Option<String> = None;
        for line in text.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                match block.take() {
                    Some(code) => self.rust(&format!("fn __mutiny_doctest() {{\n{code}\n}}"), &[]),
                    None => block = Some(String::new()),
                }
                continue;
            }
            if let Some(code) = block.as_mut() {
                let hidden = trimmed.strip_prefix('#').filter(|rest| {
                    rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')
                });
                code.push_str(hidden.unwrap_or(line));
                code.push('\n');
            }
        }
        if let Some(code) = block {
            self.rust(&format!("fn __mutiny_doctest() {{\n{code}\n}}"), &[]);
        }
    }
}

/// A doc comment's text without its marker.
fn doc_line(comment: &str) -> &str {
    let text = comment
        .strip_prefix("///")
        .or_else(|| comment.strip_prefix("//!"))
        .or_else(|| comment.strip_prefix("/**"))
        .or_else(|| comment.strip_prefix("/*!"))
        .unwrap_or(comment);
    let text = text.strip_suffix("*/").unwrap_or(text);
    text.strip_prefix(' ').unwrap_or(text)
}

/// Whether `node` is evaluated at compile time as a whole: a const or
/// static item, an array type or repeat expression (its length), a const
/// block, argument or parameter, an enum variant (its discriminant), or a
/// macro whose tokens write `const` or `static`.
fn compile_time_context(node: &SyntaxNode) -> bool {
    match node.kind() {
        SyntaxKind::CONST
        | SyntaxKind::STATIC
        | SyntaxKind::ARRAY_TYPE
        | SyntaxKind::CONST_ARG
        | SyntaxKind::CONST_PARAM
        | SyntaxKind::VARIANT => true,
        SyntaxKind::BLOCK_EXPR => {
            ast::BlockExpr::cast(node.clone()).is_some_and(|b| b.const_token().is_some())
        }
        SyntaxKind::ARRAY_EXPR => node
            .children_with_tokens()
            .any(|e| e.kind() == SyntaxKind::SEMICOLON),
        SyntaxKind::MACRO_CALL | SyntaxKind::MACRO_RULES | SyntaxKind::MACRO_DEF => node
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .any(|t| {
                matches!(t.kind(), SyntaxKind::CONST_KW | SyntaxKind::STATIC_KW)
                    || matches!(t.text(), "const" | "static")
            }),
        _ => false,
    }
}

/// Every identifier in `node`, macro tokens included.
fn words(node: &SyntaxNode) -> Vec<String> {
    node.descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.kind() == SyntaxKind::IDENT)
        .map(|t| t.text().trim_start_matches("r#").to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names kept const when the switched build removes the `const`
    /// of the functions named `candidates` in `code` (and `markdown` is
    /// among the files).
    fn kept(code: &str, markdown: &str, candidates: &[&str]) -> Vec<String> {
        let removed: Vec<usize> = candidates
            .iter()
            .map(|name| code.find(&format!("const fn {name}(")).expect(name))
            .collect();
        let files = [ScanFile::Rust(code, &removed), ScanFile::Text(markdown)];
        kept_const(&files).into_iter().collect()
    }

    #[test]
    fn a_const_fn_called_only_at_run_time_may_lose_its_const() {
        let code = "const fn mix(x: u64) -> u64 { x ^ 7 }\nfn hash(x: u64) -> u64 { mix(x) }\n";
        assert!(kept(code, "", &["mix"]).is_empty());
    }

    #[test]
    fn compile_time_calls_keep_a_const_fn_const() {
        let cases = [
            "const fn mix(x: u64) -> u64 { x }\nconst SEED: u64 = mix(3);\n",
            "const fn mix(x: u64) -> u64 { x }\nstatic SEED: u64 = mix(3);\n",
            "const fn mix(x: u64) -> usize { 1 }\nfn f() -> [u8; mix(2)] { todo!() }\n",
            "const fn mix(x: u64) -> usize { 1 }\nfn f() { let a = [0u8; mix(2)]; }\n",
            "const fn mix(x: u64) -> u64 { x }\nfn f() { let a = const { mix(2) }; }\n",
            "const fn mix(x: u64) -> u64 { x }\nenum E { A = mix(1) as isize }\n",
            "const fn mix(x: u64) -> u64 { x }\nfn f() -> Foo<{ mix(2) }> { todo!() }\n",
            "const fn mix(x: u64) -> u64 { x }\nmacro_rules! m { () => { const X: u64 = mix(1); } }\n",
            // Called from a const fn that stays const (no candidate).
            "const fn mix(x: u64) -> u64 { x }\npub const fn seed() -> u64 { mix(1) }\n",
        ];
        for code in cases {
            assert_eq!(kept(code, "", &["mix"]), ["mix"], "{code}");
        }
    }

    #[test]
    fn a_caller_that_loses_its_const_frees_its_callees_unless_it_is_kept() {
        let code = "const fn mix(x: u64) -> u64 { x }\npub const fn seed() -> u64 { mix(1) }\n";
        assert!(kept(code, "", &["mix", "seed"]).is_empty());
        let used = format!("{code}const S: u64 = seed();\n");
        assert_eq!(kept(&used, "", &["mix", "seed"]), ["mix", "seed"]);
    }

    #[test]
    fn a_const_fn_that_stays_const_keeps_its_callees_const_whatever_its_name() {
        // Two `with_seed`: the first loses its const, the second keeps it
        // and calls `mix`.
        let code = "const fn mix(x: u64) -> u64 { x }\nmod a { pub const fn with_seed(x: u64) -> u64 { x } }\nmod b { pub const fn with_seed(x: u64) -> u64 { super::mix(x) } }\n";
        let removed = vec![
            code.find("const fn mix").unwrap(),
            code.find("const fn with_seed").unwrap(),
        ];
        let kept = kept_const(&[ScanFile::Rust(code, &removed)]);
        assert_eq!(kept.into_iter().collect::<Vec<_>>(), ["mix"]);
    }

    #[test]
    fn doctests_and_markdown_code_blocks_are_scanned() {
        let doc = "/// ```\n/// # use x::mix;\n/// const S: u64 = mix(1);\n/// ```\npub const fn mix(x: u64) -> u64 { x }\n";
        assert_eq!(kept(doc, "", &["mix"]), ["mix"]);
        let run_time =
            "/// ```\n/// let s = mix(1);\n/// ```\npub const fn mix(x: u64) -> u64 { x }\n";
        assert!(kept(run_time, "", &["mix"]).is_empty());
        let attribute = "#[doc = \"```\\nconst S: u64 = mix(1);\\n```\"]\npub const fn mix(x: u64) -> u64 { x }\n";
        assert_eq!(kept(attribute, "", &["mix"]), ["mix"]);
        let readme = "# Use\n\n```rust\nstatic S: u64 = x::mix(1);\n```\n";
        let code = "pub const fn mix(x: u64) -> u64 { x }\n";
        assert_eq!(kept(code, readme, &["mix"]), ["mix"]);
    }
}
