//! Property tests over mutant generation and diffs, with arbitrary text:
//! Rust-like token soup, arbitrary Unicode, and the fixture crates' sources
//! with arbitrary edits (as a file looks while someone types). Whatever the
//! text, generation does not panic, every mutant's range and span lie in
//! the text on char boundaries and agree, and its diff applied to the
//! original gives the mutated file.
//!
//! Each property runs proptest's default 256 cases in `cargo test`; a
//! longer hunt: `PROPTEST_CASES=20000 cargo test -p mutiny --lib fuzz`.
//! A failure prints the smallest input found, and proptest keeps it in
//! `proptest-regressions/` to be tried first next time.

use std::sync::Arc;

use proptest::prelude::*;

use super::{generate, Edition, GenerateOptions, Mutant, SourceFile, Switch};
use crate::position::SourceIndex;

/// Pieces of Rust that reach the generator's interesting paths (functions
/// with return types, operators, matches, impls, consts, attributes,
/// macros, string and char literals with wide chars), plus layout.
const TOKENS: &[&str] = &[
    "fn",
    " f",
    " g",
    "(",
    ")",
    "(x: u32)",
    "(&self)",
    " -> ",
    "bool",
    "u32",
    "i64",
    "String",
    "&str",
    "Vec<u8>",
    "Option<T>",
    "Result<u8, E>",
    "impl Iterator<Item = u8>",
    "Self",
    "{",
    "}",
    "[",
    "]",
    " x",
    " y",
    " 1",
    " 0.5",
    " + ",
    " - ",
    " * ",
    " / ",
    " % ",
    " == ",
    " != ",
    " < ",
    " >= ",
    " && ",
    " || ",
    " & ",
    " | ",
    " ^ ",
    " << ",
    " >> ",
    " += ",
    " -= ",
    "!",
    "-",
    ";",
    ",",
    " match x ",
    " => ",
    " _ ",
    " if ",
    " else ",
    " let ",
    " = ",
    " return ",
    "?",
    ".len()",
    "impl S ",
    "impl Trait for S ",
    "struct S ",
    "enum E { A, B }",
    "trait Trait ",
    "const C: u32 = ",
    "static V: u8 = ",
    "const fn",
    "unsafe ",
    "async ",
    "pub ",
    "mod m ",
    "mod m;",
    "#[cfg(test)]",
    "#[test]",
    "#[mutants::skip]",
    "#![no_std]",
    "#[cfg(unix)]",
    "println!(\"{}\", x)",
    "vec![1, 2]",
    "macro_rules! m { () => {} }",
    "\"é😀\"",
    "'ü'",
    "'a",
    "r#\"raw\"#",
    "b\"bytes\"",
    "// comment\n",
    "/* block */",
    "/// doc\n",
    "\n",
    "\r\n",
    "    ",
    "\t",
    "😀",
    "é",
    "\u{200b}",
    "Ok(())",
    "Err(e)",
    "Some(x)",
    "None",
    "Default::default()",
    "S { a: 1, ..Default::default() }",
    "|a| a + 1",
    "loop {}",
    "while x {}",
    "for i in 0..n {}",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|tokens| tokens.concat())
}

/// The fixture crates' sources: real code with every genre of mutant.
const FIXTURES: &[&str] = &[
    include_str!("../../../tests/fixtures/example/src/lib.rs"),
    include_str!("../../../tests/fixtures/semantics/src/lib.rs"),
    include_str!("../../../tests/fixtures/unswitchable/src/lib.rs"),
    include_str!("../../../tests/fixtures/cfg_targets/src/lib.rs"),
];

/// An edit: at a fraction of the text, delete up to `delete` chars and insert text.
#[derive(Debug, Clone)]
struct Edit {
    at: f64,
    delete: usize,
    insert: String,
}

fn edit() -> impl Strategy<Value = Edit> {
    let insert = prop_oneof![
        prop::sample::select(TOKENS).prop_map(str::to_owned),
        any::<String>(),
    ];
    (0.0..=1.0f64, 0..12usize, insert).prop_map(|(at, delete, insert)| Edit { at, delete, insert })
}

/// `code` with `edits` applied one after another, each at a char boundary.
fn edited(code: &str, edits: &[Edit]) -> String {
    let mut code = code.to_owned();
    for edit in edits {
        let boundaries: Vec<usize> = code
            .char_indices()
            .map(|(i, _)| i)
            .chain([code.len()])
            .collect();
        let start_index = ((boundaries.len() - 1) as f64 * edit.at) as usize;
        let start = boundaries[start_index];
        let end = boundaries[(start_index + edit.delete).min(boundaries.len() - 1)];
        code.replace_range(start..end, &edit.insert);
    }
    code
}

fn edited_fixture() -> impl Strategy<Value = String> {
    (
        prop::sample::select(FIXTURES),
        prop::collection::vec(edit(), 0..6),
    )
        .prop_map(|(code, edits)| edited(code, &edits))
}

fn source(code: &str) -> Arc<SourceFile> {
    Arc::new(SourceFile {
        package: "fuzz".to_owned(),
        path: "src/lib.rs".to_owned(),
        code: code.into(),
        edition: Edition::E2021,
    })
}

/// `diff` (a unified diff of one file) applied to `original`; `Err` says
/// where it does not apply.
fn apply(original: &str, diff: &str) -> Result<String, String> {
    if diff.is_empty() {
        return Ok(original.to_owned());
    }
    let old: Vec<&str> = original.split_inclusive('\n').collect();
    let mut new = String::new();
    let mut next_old = 0; // index into `old` of the first line not yet copied
    let mut lines = diff.split_inclusive('\n').skip(2).peekable();
    while let Some(header) = lines.next() {
        let ranges = header
            .strip_prefix("@@ -")
            .and_then(|rest| rest.split_once(' '))
            .ok_or_else(|| format!("not a hunk header: {header:?}"))?;
        let old_start: usize = ranges
            .0
            .split(',')
            .next()
            .and_then(|start| start.parse().ok())
            .ok_or_else(|| format!("bad hunk range in {header:?}"))?;
        // `@@ -0,0 …` is an insertion into an empty text.
        let hunk_first = old_start.saturating_sub(1).max(next_old);
        if hunk_first > old.len() {
            return Err(format!("hunk {header:?} starts after the end"));
        }
        new.extend(old[next_old..hunk_first].iter().copied());
        next_old = hunk_first;
        // The text a line of the hunk stands for, with its newline unless
        // the next line says there is none.
        while let Some(line) = lines.next_if(|line| !line.starts_with("@@")) {
            let (kind, text) = line.split_at(1);
            let mut text = text.to_owned();
            if lines.next_if(|next| next.starts_with('\\')).is_some() {
                text.pop();
            }
            match kind {
                " " | "-" => {
                    let expected = old.get(next_old).copied().unwrap_or_default();
                    if expected != text {
                        return Err(format!(
                            "line {} is {expected:?}, the diff says {text:?}",
                            next_old + 1
                        ));
                    }
                    if kind == " " {
                        new.push_str(&text);
                    }
                    next_old += 1;
                }
                "+" => new.push_str(&text),
                _ => return Err(format!("unknown hunk line {line:?}")),
            }
        }
    }
    new.extend(old[next_old..].iter().copied());
    Ok(new)
}

/// Checks one mutant of `code`: its range, span, switch site and diff.
fn check_mutant(code: &str, index: &SourceIndex, mutant: &Mutant) -> Result<(), TestCaseError> {
    let range = mutant.range.clone();
    prop_assert!(
        range.start <= range.end && range.end <= code.len(),
        "{}: range {range:?} outside the text",
        mutant.name
    );
    prop_assert!(
        code.is_char_boundary(range.start) && code.is_char_boundary(range.end),
        "{}: range {range:?} splits a char",
        mutant.name
    );
    prop_assert_eq!(
        mutant.span,
        index.span(range.start, range.end),
        "{}: span and range disagree",
        &mutant.name
    );
    prop_assert!(
        mutant.name.starts_with(&format!(
            "src/lib.rs:{}:{}: ",
            mutant.span.start.line, mutant.span.start.column
        )),
        "{}: the name's position is not the span's start {:?}",
        mutant.name,
        mutant.span.start
    );
    if let Some(function) = &mutant.function {
        let start = index.offset_of(function.span.start);
        let end = index.offset_of(function.span.end);
        prop_assert!(
            matches!((start, end), (Some(s), Some(e)) if s <= range.start && range.end <= e),
            "{}: function span {:?} is not in the text around the mutant",
            mutant.name,
            function.span
        );
    }
    if let Switch::Unconst { keyword, .. } = &mutant.switch {
        prop_assert!(
            code.get(keyword.clone())
                .is_some_and(|text| text.trim_end() == "const")
                && keyword.end <= range.start,
            "{}: {keyword:?} is not a const keyword before the mutant",
            mutant.name
        );
    }
    match mutant.switch.inner() {
        Switch::Unconst { .. } => prop_assert!(false, "{}: nested Unconst", mutant.name),
        Switch::Expression { site, .. } => {
            prop_assert!(
                site.start <= range.start && range.end <= site.end && site.end <= code.len(),
                "{}: switch site {site:?} does not hold {range:?}",
                mutant.name
            );
            prop_assert!(
                code.is_char_boundary(site.start) && code.is_char_boundary(site.end),
                "{}: switch site {site:?} splits a char",
                mutant.name
            );
        }
        Switch::ArmGuard { at } => {
            prop_assert!(
                *at <= code.len() && code.is_char_boundary(*at),
                "{}: arm guard at {at} is not in the text",
                mutant.name
            );
        }
        Switch::ConstUses { item, name, uses } => {
            prop_assert!(
                item.start <= name.start && name.end <= range.start && range.end <= item.end,
                "{}: const item {item:?} does not hold its name {name:?} and {range:?}",
                mutant.name
            );
            for used in uses {
                prop_assert!(
                    used.end <= item.start || item.end <= used.start,
                    "{}: a use {used:?} is inside the item {item:?}",
                    mutant.name
                );
            }
        }
        Switch::CrateConst { item, name, .. } => {
            prop_assert!(
                item.start <= name.start && name.end <= range.start && range.end <= item.end,
                "{}: const item {item:?} does not hold its name {name:?} and {range:?}",
                mutant.name
            );
        }
        Switch::Alone(_) => {}
    }
    let applied = apply(code, &mutant.diff()).map_err(|err| {
        TestCaseError::fail(format!(
            "{}: the diff does not apply: {err}\n{}",
            mutant.name,
            mutant.diff()
        ))
    })?;
    prop_assert_eq!(
        applied,
        mutant.mutated_code(),
        "{}: the diff does not give the mutated file",
        &mutant.name
    );
    Ok(())
}

fn check_text(code: &str) -> Result<(), TestCaseError> {
    let index = SourceIndex::new(code);
    let file_mutants = generate(&source(code), &GenerateOptions::default());
    for mutant in &file_mutants.mutants {
        check_mutant(code, &index, mutant)?;
    }
    Ok(())
}

proptest! {
    #[test]
    fn fuzz_generation_on_token_soup_keeps_spans_in_the_text_and_diffs_that_apply(code in token_soup()) {
        check_text(&code)?;
    }

    #[test]
    fn fuzz_generation_on_arbitrary_unicode_does_not_panic(code in any::<String>()) {
        check_text(&code)?;
    }

    #[test]
    fn fuzz_generation_on_edited_fixtures_keeps_spans_in_the_text_and_diffs_that_apply(code in edited_fixture()) {
        check_text(&code)?;
    }
}

#[test]
fn the_diff_applier_rejects_a_diff_of_another_text() {
    let code = "fn f() -> bool {\n    true\n}\n";
    let mutant = generate(&source(code), &GenerateOptions::default())
        .mutants
        .remove(0);
    assert_eq!(apply(code, &mutant.diff()).unwrap(), mutant.mutated_code());
    assert!(apply("fn g() -> bool {\n    true\n}\n", &mutant.diff()).is_err());
}
