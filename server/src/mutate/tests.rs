//! Table tests: source in, mutant names out.

use std::sync::Arc;

use super::{generate, Edition, GenerateOptions, Genre, SourceFile};

fn source(code: &str) -> Arc<SourceFile> {
    Arc::new(SourceFile {
        package: "demo".to_owned(),
        path: "src/lib.rs".to_owned(),
        code: code.into(),
        edition: Edition::E2021,
    })
}

fn names_with(code: &str, options: &GenerateOptions) -> Vec<String> {
    generate(&source(code), options)
        .mutants
        .into_iter()
        .map(|m| m.name)
        .collect()
}

fn names(code: &str) -> Vec<String> {
    names_with(code, &GenerateOptions::default())
}

#[track_caller]
fn check(code: &str, expected: &[&str]) {
    assert_eq!(names(code), expected, "mutants of:\n{code}");
}

/// Outer expressions come before inner ones, as in cargo-mutants.
#[test]
fn fn_value_stubs_replace_the_body() {
    check(
        "fn is_even(n: u32) -> bool {\n    n % 2 == 0\n}\n",
        &[
            "src/lib.rs:2:5: replace is_even -> bool with true",
            "src/lib.rs:2:5: replace is_even -> bool with false",
            "src/lib.rs:2:11: replace == with != in is_even",
            "src/lib.rs:2:7: replace % with / in is_even",
            "src/lib.rs:2:7: replace % with + in is_even",
        ],
    );
}

#[test]
fn unit_functions_are_replaced_with_unit() {
    check(
        "fn log(s: &str) { eprintln!(\"{}\", s + 1); }",
        &["src/lib.rs:1:19: replace log with ()"],
    );
}

#[test]
fn a_stub_equal_to_the_body_is_dropped() {
    check(
        "fn yes() -> bool { true }",
        &["src/lib.rs:1:20: replace yes -> bool with false"],
    );
    check("fn unit() { () }", &[]);
    check("fn ok() -> Result<(), E> { Ok(()) }", &[]);
}

#[test]
fn binary_operators() {
    let cases: &[(&str, &[&str])] = &[
        ("a == b", &["!="]),
        ("a != b", &["=="]),
        ("a && b", &["||"]),
        ("a || b", &["&&"]),
        ("a < b", &["==", ">", "<="]),
        ("a > b", &["==", "<", ">="]),
        ("a <= b", &[">"]),
        ("a >= b", &["<"]),
        ("a + b", &["-", "*"]),
        ("a - b", &["+", "/"]),
        ("a * b", &["+", "/"]),
        ("a / b", &["%", "*"]),
        ("a % b", &["/", "+"]),
        ("a << b", &[">>"]),
        ("a >> b", &["<<"]),
        ("a & b", &["|", "^"]),
        ("a | b", &["&", "^"]),
        ("a ^ b", &["|", "&"]),
        ("a += b", &["-=", "*="]),
        ("a -= b", &["+=", "/="]),
        ("a *= b", &["+=", "/="]),
        ("a /= b", &["%=", "*="]),
        ("a %= b", &["/=", "+="]),
        ("a <<= b", &[">>="]),
        ("a >>= b", &["<<="]),
        ("a &= b", &["|="]),
        ("a |= b", &["&="]),
        ("a ^= b", &["|=", "&="]),
        ("a = b", &[]),
    ];
    for (expr, replacements) in cases {
        let code = format!("fn f() {{\n    {expr};\n}}\n");
        let op = expr.split(' ').nth(1).unwrap();
        let mut expected = vec!["src/lib.rs:2:5: replace f with ()".to_owned()];
        expected.extend(
            replacements
                .iter()
                .map(|r| format!("src/lib.rs:2:7: replace {op} with {r} in f")),
        );
        assert_eq!(names(&code), expected, "mutants of `{expr}`");
    }
}

#[test]
fn unary_not_and_minus_are_deleted_but_deref_is_kept() {
    check(
        "fn f(a: bool, b: i32, c: &i32) -> (bool, i32) {\n    (!a, -b + *c)\n}\n",
        &[
            "src/lib.rs:2:5: replace f -> (bool, i32) with (true, 0)",
            "src/lib.rs:2:5: replace f -> (bool, i32) with (true, 1)",
            "src/lib.rs:2:5: replace f -> (bool, i32) with (true, -1)",
            "src/lib.rs:2:5: replace f -> (bool, i32) with (false, 0)",
            "src/lib.rs:2:5: replace f -> (bool, i32) with (false, 1)",
            "src/lib.rs:2:5: replace f -> (bool, i32) with (false, -1)",
            "src/lib.rs:2:6: delete ! in f",
            "src/lib.rs:2:13: replace + with - in f",
            "src/lib.rs:2:13: replace + with * in f",
            "src/lib.rs:2:10: delete - in f",
        ],
    );
}

#[test]
fn match_arms_are_deleted_only_when_a_wildcard_takes_over() {
    let code = "fn f(x: u8) {
    match x {
        1 => a(),
        2 | 3 => b(),
        n if n > 9 => c(),
        _ => d(),
    }
    match x {
        1 => a(),
        _ if x > 5 => b(),
        _ => d(),
    }
    match x {
        1 => a(),
        n => d(),
    }
}
";
    let got = names(code);
    let expected = [
        "src/lib.rs:2:5: replace f with ()",
        "src/lib.rs:3:9: delete match arm 1 in f",
        "src/lib.rs:4:9: delete match arm 2 | 3 in f",
        "src/lib.rs:5:14: replace match guard n > 9 with true in f",
        "src/lib.rs:5:14: replace match guard n > 9 with false in f",
        "src/lib.rs:5:16: replace > with == in f",
        "src/lib.rs:5:16: replace > with < in f",
        "src/lib.rs:5:16: replace > with >= in f",
        "src/lib.rs:9:9: delete match arm 1 in f",
        "src/lib.rs:10:14: replace match guard x > 5 with true in f",
        "src/lib.rs:10:14: replace match guard x > 5 with false in f",
        "src/lib.rs:10:16: replace > with == in f",
        "src/lib.rs:10:16: replace > with < in f",
        "src/lib.rs:10:16: replace > with >= in f",
    ];
    assert_eq!(got, expected);
}

#[test]
fn deleting_a_match_arm_takes_its_comma() {
    let code = "fn f(x: u8) -> u8 {\n    match x { 1 => 2, _ => 3 }\n}\n";
    let mutants = generate(&source(code), &GenerateOptions::default()).mutants;
    let arm = mutants.iter().find(|m| m.genre == Genre::MatchArm).unwrap();
    assert_eq!(arm.original(), "1 => 2,");
    assert!(arm
        .mutated_code()
        .contains("match x {  /* ~ changed by mutiny ~ */ _ => 3 }"));
}

#[test]
fn struct_fields_are_deleted_when_a_base_fills_them() {
    let code = "fn f() -> S {\n    S { a: 1, b, ..Default::default() }\n}\nfn g() -> S {\n    S { a: 1 }\n}\n";
    let got = names(code);
    assert_eq!(
        got,
        [
            "src/lib.rs:2:5: replace f -> S with Default::default()",
            "src/lib.rs:2:9: delete field a from struct S expression in f",
            "src/lib.rs:2:15: delete field b from struct S expression in f",
            "src/lib.rs:5:5: replace g -> S with Default::default()",
        ]
    );
    let mutants = generate(&source(code), &GenerateOptions::default()).mutants;
    assert_eq!(mutants[1].original(), "a: 1,");
    assert_eq!(mutants[2].original(), "b,");
}

#[test]
fn functions_are_named_by_their_impl_trait_and_module() {
    let code = "struct V;
impl V {
    fn major(&self) -> u64 { 1 + 1 }
}
impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"v\") }
}
impl<T: Clone> Wrap<T> {
    fn get(&self) -> Option<&T> { self.0.as_ref() }
}
trait Shape {
    fn area(&self) -> f64 { 0.0 + 1.0 }
}
mod inner {
    fn outer() { fn nested() -> bool { a() } }
}
";
    let got: Vec<String> = names(code)
        .into_iter()
        .filter(|n| !n.contains(" with ") || n.contains("replace") && !n.contains(" in "))
        .collect();
    assert_eq!(
        got,
        [
            "src/lib.rs:3:30: replace V::major -> u64 with 0",
            "src/lib.rs:3:30: replace V::major -> u64 with 1",
            "src/lib.rs:6:60: replace <impl fmt::Display for V>::fmt -> fmt::Result with Ok(Default::default())",
            "src/lib.rs:9:35: replace Wrap<T>::get -> Option<&T> with None",
            "src/lib.rs:9:35: replace Wrap<T>::get -> Option<&T> with Some(Box::leak(Box::new(Default::default())))",
            "src/lib.rs:12:29: replace Shape::area -> f64 with 0.0",
            "src/lib.rs:12:29: replace Shape::area -> f64 with 1.0",
            "src/lib.rs:12:29: replace Shape::area -> f64 with -1.0",
            "src/lib.rs:15:18: replace inner::outer with ()",
            "src/lib.rs:15:40: replace inner::outer::nested -> bool with true",
            "src/lib.rs:15:40: replace inner::outer::nested -> bool with false",
        ]
    );
    assert!(names(code).contains(&"src/lib.rs:3:32: replace + with - in V::major".to_owned()));
}

#[test]
fn skip_rules() {
    let skipped = [
        "#[test]\nfn t() -> bool { a() }",
        "#[tokio::test]\nasync fn t() -> bool { a() }",
        "#[cfg(test)]\nmod tests { fn helper() -> bool { a() } }",
        "#[cfg(test)]\nfn helper() -> bool { a() }",
        "#[mutants::skip]\nfn f() -> bool { a() }",
        "#[cfg_attr(test, mutants::skip)]\nfn f() -> bool { a() }",
        "unsafe fn f() -> bool { a() }",
        "fn empty() -> bool {}",
        "fn commented() -> bool { /* nothing */ }",
        "impl S { fn new() -> S { S { a: 1 + 2 } } }",
        "impl Default for S { fn default() -> S { S { a: 1 + 2 } } }",
        "impl std::default::Default for S { fn default() -> S { S { a: 1 + 2 } } }",
        "trait T { fn new() -> Self { make(1 + 2) } }",
        "trait T { fn required(&self) -> bool; }",
        "#[mutants::skip]\nimpl S { fn f(&self) -> bool { a() } }",
        "#[mutants::skip]\ntrait T { fn f(&self) -> bool { a() } }",
        "#![mutants::skip]\nfn f() -> bool { a() }",
        "fn f() { let v = Vec::with_capacity(1 + 2); }",
        "fn f() { let v = s.with_capacity(1 + 2); }",
        "fn f() { assert!(a == b); }",
        "fn f() { println!(\"{}\", 1 + 2); }",
        "macro_rules! m { () => { 1 + 2 } }",
        "extern \"C\" { fn ext() -> bool; }",
    ];
    for code in skipped {
        let got: Vec<String> = names(code)
            .into_iter()
            .filter(|n| !n.ends_with("replace f with ()"))
            .collect();
        assert!(
            got.is_empty(),
            "no mutants expected from:\n{code}\ngot {got:?}"
        );
    }
}

#[test]
fn a_free_function_named_new_is_mutated() {
    check(
        "fn new() -> bool { a() }",
        &[
            "src/lib.rs:1:20: replace new -> bool with true",
            "src/lib.rs:1:20: replace new -> bool with false",
        ],
    );
}

#[test]
fn skip_calls_are_configurable() {
    let code = "fn f() { make(1 + 2); }";
    let options = GenerateOptions {
        skip_calls: vec!["make".to_owned()],
        error_values: Vec::new(),
    };
    assert_eq!(
        names_with(code, &options),
        ["src/lib.rs:1:10: replace f with ()"]
    );
    let options = GenerateOptions {
        skip_calls: Vec::new(),
        error_values: Vec::new(),
    };
    assert_eq!(
        names_with("fn f() { Vec::with_capacity(1 + 2); }", &options).len(),
        3,
        "with_capacity is mutated once skip_calls no longer names it"
    );
}

#[test]
fn error_values_add_err_stubs() {
    let options = GenerateOptions {
        skip_calls: Vec::new(),
        error_values: vec!["anyhow::anyhow!(\"mutated\")".to_owned()],
    };
    assert_eq!(
        names_with("fn f() -> anyhow::Result<()> { g() }", &options),
        [
            "src/lib.rs:1:32: replace f -> anyhow::Result<()> with Ok(())",
            "src/lib.rs:1:32: replace f -> anyhow::Result<()> with Err(anyhow::anyhow!(\"mutated\"))",
        ]
    );
}

#[test]
fn exclude_re_attribute_drops_matching_mutants_inside() {
    let code =
        "#[cfg_attr(test, mutants::exclude_re(\"with false\"))]\nfn f() -> bool { a() && b() }";
    check(
        code,
        &[
            "src/lib.rs:2:18: replace f -> bool with true",
            "src/lib.rs:2:22: replace && with || in f",
        ],
    );
}

#[test]
fn consts_and_statics_are_mutated_outside_functions() {
    check(
        "const N: usize = 2 * 3;",
        &[
            "src/lib.rs:1:20: replace * with + ",
            "src/lib.rs:1:20: replace * with / ",
        ]
        .map(str::trim_end),
    );
}

#[test]
fn columns_count_chars() {
    check(
        "fn f() { let _ = \"ééé\" == s; }",
        &[
            "src/lib.rs:1:10: replace f with ()",
            "src/lib.rs:1:24: replace == with != in f",
        ],
    );
}

#[test]
fn a_file_with_a_syntax_error_still_yields_its_intact_functions() {
    let code = "fn good() -> bool { a() }\nfn broken() -> bool { let = ; }\nfn also_good(x: u8) -> u8 { x + 1 }\n";
    let generated = generate(&source(code), &GenerateOptions::default());
    let names: Vec<&str> = generated.mutants.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "src/lib.rs:1:21: replace good -> bool with true",
            "src/lib.rs:1:21: replace good -> bool with false",
            "src/lib.rs:3:29: replace also_good -> u8 with 0",
            "src/lib.rs:3:29: replace also_good -> u8 with 1",
            "src/lib.rs:3:31: replace + with - in also_good",
            "src/lib.rs:3:31: replace + with * in also_good",
        ]
    );
    assert!(!generated.warnings.is_empty());
    assert_eq!(generated.warnings[0].line, 2);
    assert!(generated.warnings[0]
        .to_string()
        .starts_with("src/lib.rs:2:"));
}

#[test]
fn module_declarations_are_reported_with_their_inline_parents() {
    let code = "mod a;\n#[path = \"other.rs\"]\nmod b;\nmod c { mod d; }\n\
                mod e { #![path = \"e_dir\"] mod f; }\n#[cfg(test)]\nmod tests;\n";
    let refs = generate(&source(code), &GenerateOptions::default()).module_refs;
    let rendered: Vec<Vec<(String, Option<String>)>> = refs
        .iter()
        .map(|r| {
            r.parts
                .iter()
                .map(|p| (p.name.clone(), p.path_attribute.clone()))
                .collect()
        })
        .collect();
    assert_eq!(
        rendered,
        [
            vec![("a".to_owned(), None)],
            vec![("b".to_owned(), Some("other.rs".to_owned()))],
            vec![("c".to_owned(), None), ("d".to_owned(), None)],
            vec![
                ("e".to_owned(), Some("e_dir".to_owned())),
                ("f".to_owned(), None)
            ],
        ]
    );
}

#[test]
fn diffs_are_unified_with_the_description_as_label() {
    let code = "fn f(a: bool) -> bool {\n    !a\n}\n";
    let mutants = generate(&source(code), &GenerateOptions::default()).mutants;
    let delete = mutants
        .iter()
        .find(|m| m.genre == Genre::UnaryOperator)
        .unwrap();
    assert_eq!(
        delete.diff(),
        "--- src/lib.rs\n+++ delete ! in f\n@@ -1,3 +1,3 @@\n fn f(a: bool) -> bool {\n-    !a\n+     /* ~ changed by mutiny ~ */a\n }\n"
    );
}

#[test]
fn mutant_function_records_name_return_type_and_span() {
    let code = "/// Doc.\n#[inline]\npub fn f() -> u8 {\n    2\n}\n";
    let mutants = generate(&source(code), &GenerateOptions::default()).mutants;
    let function = mutants[0].function.as_ref().unwrap();
    assert_eq!(function.function_name, "f");
    assert_eq!(function.return_type, "-> u8");
    assert_eq!(
        (function.span.start.line, function.span.start.column),
        (1, 1)
    );
    assert_eq!((function.span.end.line, function.span.end.column), (5, 2));
}

#[test]
fn test_code_is_tests_test_modules_and_doc_comments() {
    let code = "/// Doubles.\nfn double(x: u32) -> u32 {\n    x * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { assert_eq!(super::double(2), 4); }\n}\n\n#[test]\nfn top() {}\n";
    let test_code = super::test_code(code, Default::default());
    assert!(test_code.contains("/// Doubles."), "{test_code}");
    assert!(test_code.contains("mod tests {"), "{test_code}");
    assert!(test_code.contains("fn top() {}"), "{test_code}");
    assert!(!test_code.contains("x * 2"), "{test_code}");
}

#[test]
fn an_own_stub_is_named_like_its_functions_table_stubs_and_marked_own() {
    let code =
        "fn rank(a: u8) -> Ordering {\n    a.cmp(&1)\n}\nfn other() -> bool {\n    true\n}\n";
    let mutants = generate(&source(code), &GenerateOptions::default()).mutants;
    let table = &mutants[0];
    assert!(!table.own);
    let own = table.with_own_stub("Ordering::Less").unwrap();
    assert_eq!(
        own.name,
        "src/lib.rs:2:5: replace rank -> Ordering with Ordering::Less"
    );
    assert_eq!(own.replacement, "Ordering::Less");
    assert!(own.own);
    assert_eq!(own.range, table.range);
    assert!(own
        .mutated_code()
        .contains("Ordering::Less /* ~ changed by mutiny ~ */"));
    // Only a function-value mutant gives one.
    let operator = mutants.iter().find(|m| m.genre != Genre::FnValue);
    assert!(operator.is_none_or(|m| m.with_own_stub("x").is_none()));
}

#[test]
fn own_stubs_go_after_the_mutant_they_follow_in_order() {
    let merged = super::with_own_stubs(
        vec!["a", "b", "c"],
        vec![(0, "a1"), (0, "a2"), (2, "c1"), (7, "late")],
    );
    assert_eq!(merged, ["a", "a1", "a2", "b", "c", "c1", "late"]);
}
