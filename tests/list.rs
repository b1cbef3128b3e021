//! `mutiny list` end to end: the real binary on fixture crates.

use std::path::Path;
use std::process::{Command, Output};

mod support;
use support::{assert_unchanged, copy_of, fixture, tree_snapshot};

fn mutiny(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(args)
        .output()
        .expect("mutiny runs")
}

fn list(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["list", "-d", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    mutiny(&args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[track_caller]
fn assert_ok(output: &Output) {
    assert!(output.status.success(), "mutiny failed: {}", stderr(output));
}

/// Asserts a usage-error exit (1) whose message holds every needle and no panic.
#[track_caller]
fn assert_clear_error(output: &Output, needles: &[&str]) {
    assert_eq!(output.status.code(), Some(1), "{}", stderr(output));
    let message = stderr(output);
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} in {message}");
    }
    assert!(!message.contains("panicked"), "{message}");
}

#[test]
fn list_example_crate_names() {
    let output = list(&fixture("example"), &[]);
    assert_ok(&output);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn list_json_has_cargo_mutants_fields() {
    let output = list(&fixture("example"), &["--json", "-F", "compatible"]);
    assert_ok(&output);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn list_diff_prints_each_diff_after_its_name() {
    let output = list(
        &fixture("example"),
        &["--diff", "-F", "is_stable -> bool with true"],
    );
    assert_ok(&output);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn list_follows_mod_declarations_like_rustc() {
    let output = list(&fixture("modules"), &[]);
    assert_ok(&output);
    let text = stdout(&output);
    insta::assert_snapshot!(text);
    for file in [
        "src/a/b.rs",
        "src/c/d.rs",
        "src/generated/impl_e.rs",
        "src/f/g.rs",
        "src/main.rs",
        // `#[path = "../shared.rs"]` in src/f/g.rs, named as cargo-mutants names it
        "src/f/../shared.rs",
        // `mod i;` inside `mod h { #![path = "hidden"] … }`
        "src/hidden/i.rs",
    ] {
        assert!(text.contains(&format!("{file}:")), "{file} is mutated");
    }
    for file in [
        "src/tests.rs",
        "tests/integration.rs",
        "examples/demo.rs",
        "build.rs",
    ] {
        assert!(!text.contains(&format!("{file}:")), "{file} is not mutated");
    }
    assert!(
        stderr(&output).contains("src/lib.rs:12:1: no file for module `missing`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn list_selects_packages_like_cargo() {
    let root = fixture("workspace");
    let files = |output: &Output| -> Vec<String> {
        assert_ok(output);
        let mut files: Vec<String> = stdout(output)
            .lines()
            .map(|line| line.split(':').next().unwrap().to_owned())
            .collect();
        files.dedup();
        files
    };
    // cargo metadata gives core (the first member) first; cargo-mutants,
    // and so mutiny, go by name.
    let both = ["crates/app/src/main.rs", "crates/core/src/lib.rs"];
    assert_eq!(
        files(&list(&root, &[])),
        both,
        "a virtual root lists every default member"
    );
    assert_eq!(files(&list(&root, &["--workspace"])), both);
    assert_eq!(
        files(&list(&root, &["-p", "core-lib", "-p", "app"])),
        both,
        "named packages come in name order too"
    );
    assert_eq!(
        files(&list(&root, &["-p", "app"])),
        ["crates/app/src/main.rs"]
    );
    assert_eq!(
        files(&list(&root.join("crates/core"), &[])),
        ["crates/core/src/lib.rs"]
    );
    assert_eq!(
        files(&list(&root.join("crates/app/src"), &[])),
        ["crates/app/src/main.rs"],
        "a directory inside a package selects that package"
    );
    assert_clear_error(
        &list(&root, &["-p", "nope"]),
        &["no package named \"nope\""],
    );
}

#[test]
fn list_honours_cargo_mutants_config() {
    let output = list(&fixture("config"), &[]);
    assert_ok(&output);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn list_filters_files_and_names() {
    let root = fixture("modules");
    let names = |extra: &[&str]| {
        let output = list(&root, extra);
        assert_ok(&output);
        stdout(&output)
    };
    let only_c = names(&["-f", "c"]);
    assert!(only_c.lines().all(|l| l.starts_with("src/c/")), "{only_c}");
    assert_eq!(only_c.lines().count(), 6);
    let no_main = names(&["-e", "src/main.rs"]);
    assert!(!no_main.contains("src/main.rs"));
    let negations = names(&["-F", "delete"]);
    assert_eq!(negations.lines().count(), 2, "{negations}");
    let no_stubs = names(&["-E", "with (true|false)$"]);
    assert!(!no_stubs.contains("with true"));
    assert!(no_stubs.contains("replace > with =="));
}

#[test]
fn list_bad_config_names_the_key() {
    let output = list(&fixture("bad_config"), &[]);
    assert_clear_error(&output, &["mutants.toml", "examine_regex"]);
}

#[test]
fn list_file_with_syntax_errors_warns_and_lists_intact_functions() {
    let output = list(&fixture("syntax_error"), &[]);
    assert_ok(&output);
    let message = stderr(&output);
    assert!(message.contains("warning: src/lib.rs:6:"), "{message}");
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn list_outside_a_cargo_workspace_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    assert_clear_error(&list(dir.path(), &[]), &["is not in a cargo workspace"]);
    let missing = dir.path().join("no-such-dir");
    assert_clear_error(&list(&missing, &[]), &["is not a directory"]);
}

#[test]
fn list_non_utf8_source_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"bytes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "mod latin1;\n").unwrap();
    std::fs::write(
        dir.path().join("src/latin1.rs"),
        b"// caf\xe9\nfn f() -> bool { true }\n",
    )
    .unwrap();
    assert_clear_error(&list(dir.path(), &[]), &["src/latin1.rs", "UTF-8"]);
}

/// `--shard` deals out the same mutants as cargo-mutants' on a workspace
/// whose members cargo lists out of name order (core before app): the
/// expected lists are cargo-mutants' own output (EXPECTED.md).
#[test]
fn list_shards_hold_cargo_mutants_shards_on_a_workspace() {
    let root = fixture("workspace");
    let expected_dir = fixture("expected/workspace");
    for sharding in ["slice", "round-robin"] {
        for k in 0..3 {
            let shard = format!("{k}/3");
            let output = list(
                &root,
                &["--workspace", "--shard", &shard, "--sharding", sharding],
            );
            assert_ok(&output);
            let expected_file = expected_dir.join(format!("{sharding}-{k}-of-3.txt"));
            let expected = std::fs::read_to_string(&expected_file)
                .unwrap_or_else(|err| panic!("{}: {err}", expected_file.display()));
            assert_eq!(stdout(&output), expected, "{sharding} shard {shard}");
        }
    }
}

#[test]
fn cargo_mutiny_runs_mutiny_as_a_cargo_subcommand() {
    let dir = fixture("example");
    let direct = list(&dir, &["--json"]);
    assert_ok(&direct);
    // Real cargo finds `cargo-mutiny` on the PATH, as after `cargo install`.
    let installed = Path::new(env!("CARGO_BIN_EXE_cargo-mutiny"))
        .parent()
        .unwrap()
        .to_owned();
    let path = std::env::join_paths(
        std::iter::once(installed).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let through_cargo = Command::new("cargo")
        .args(["mutiny", "list", "--json", "-d", dir.to_str().unwrap()])
        .env("PATH", path)
        .output()
        .expect("cargo runs");
    assert_ok(&through_cargo);
    assert_eq!(stdout(&through_cargo), stdout(&direct));
    // A usage error keeps mutiny's message and exit code.
    let bad = Command::new(env!("CARGO_BIN_EXE_cargo-mutiny"))
        .args(["mutiny", "list", "--no-such-flag"])
        .output()
        .unwrap();
    let direct_bad = mutiny(&["list", "--no-such-flag"]);
    assert!(!direct_bad.status.success());
    assert_eq!(
        bad.status.code(),
        direct_bad.status.code(),
        "{}",
        stderr(&bad)
    );
    assert!(stderr(&bad).contains("--no-such-flag"), "{}", stderr(&bad));
}

#[test]
fn list_with_analysis_marks_code_not_compiled_for_this_target_and_leaves_the_tree_alone() {
    let (_dir, root) = copy_of("cfg_targets");
    let before = tree_snapshot(&root);
    let output = list(&root, &["--analysis"]);
    assert_ok(&output);
    let text = stdout(&output);
    // What follows each name: the analysis' verdict, if any.
    let judged = |name: &str| -> String {
        let line = text.lines().find(|line| line.starts_with(name));
        let line = line.unwrap_or_else(|| panic!("{name} in\n{text}"));
        line[name.len()..].to_owned()
    };
    assert_eq!(
        judged("src/windows.rs:8:5: replace drive -> bool with true"),
        "  [not compiled: src/windows.rs is declared under `cfg(windows)`, off for this target]"
    );
    assert_eq!(
        judged("src/lib.rs:26:5: replace doubled -> u32 with 0"),
        "  [not compiled: `cfg(feature = \"extra\")` is off for this target]"
    );
    // Compiled here: plain names, as `list` without `--analysis` prints them.
    assert_eq!(
        judged("src/unix.rs:3:5: replace platform -> &'static str with \"\""),
        ""
    );
    assert_eq!(
        judged("src/lib.rs:33:5: replace ordinary -> u32 with 0"),
        ""
    );
    let plain = stdout(&list(&root, &[]));
    assert_eq!(plain.lines().count(), text.lines().count());
    assert!(
        stderr(&output).contains("are in code not compiled for this target"),
        "{}",
        stderr(&output)
    );

    // With the feature on, its function is compiled; JSON says the rest.
    let output = list(&root, &["--analysis", "--features", "extra", "--json"]);
    assert_ok(&output);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let of = |name: &str| {
        json.as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {json}"))
            .get("judged")
            .cloned()
    };
    assert_eq!(of("src/lib.rs:26:5: replace doubled -> u32 with 0"), None);
    assert_eq!(
        of("src/windows.rs:8:5: replace drive -> bool with true").unwrap()["verdict"],
        "not_compiled"
    );
    // The analysis loaded a scratch copy: nothing was built or written here.
    assert_unchanged(&root, &before);
}

#[test]
fn list_feature_flags_need_analysis() {
    let output = list(&fixture("cfg_targets"), &["--features", "extra"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--analysis"),
        "{}",
        stderr(&output)
    );
}

/// A bad argument exits 1, as in cargo-mutants, never 2, which says
/// "missed mutants" (a CI job would pass a typo as results); help exits 0.
#[test]
fn bad_arguments_exit_1_and_help_exits_0() {
    for args in [
        &["run", "--shard", "3/3"][..],
        &["list", "--no-such-option"],
        &["frobnicate"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("error"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let help = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--shard"));
}

/// The own stubs of the `own_stubs` fixture: values of each function's
/// resolved return type that cargo-mutants does not make.
const OWN_STUBS: [&str; 15] = [
    "src/lib.rs:30:9: replace Level::middle -> Level with Level::LOW",
    "src/lib.rs:30:9: replace Level::middle -> Level with Level::HIGH",
    "src/lib.rs:41:5: replace by_rank -> Ordering with Ordering::Less",
    "src/lib.rs:41:5: replace by_rank -> Ordering with Ordering::Equal",
    "src/lib.rs:41:5: replace by_rank -> Ordering with Ordering::Greater",
    "src/lib.rs:46:5: replace suit -> Result<Suit, ParseError> with Ok(Suit::Clubs)",
    "src/lib.rs:46:5: replace suit -> Result<Suit, ParseError> with Ok(Suit::Diamonds)",
    "src/lib.rs:46:5: replace suit -> Result<Suit, ParseError> with Ok(Suit::Hearts)",
    "src/lib.rs:46:5: replace suit -> Result<Suit, ParseError> with Err(ParseError::Empty)",
    "src/lib.rs:57:5: replace level -> Level with Level::LOW",
    "src/lib.rs:57:5: replace level -> Level with Level::HIGH",
    "src/lib.rs:57:5: replace level -> Level with Level::middle()",
    "src/lib.rs:62:5: replace trump -> Option<Suit> with Some(Suit::Clubs)",
    "src/lib.rs:62:5: replace trump -> Option<Suit> with Some(Suit::Diamonds)",
    "src/lib.rs:62:5: replace trump -> Option<Suit> with Some(Suit::Hearts)",
];

/// Names and whether each is marked as mutiny's own, in list order.
fn listed_json(output: &Output) -> Vec<(String, bool)> {
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    json.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let own = match m.get("own") {
                None => false,
                Some(own) => {
                    assert_eq!(own, true, "`own` is only ever present as true: {m}");
                    true
                }
            };
            (m["name"].as_str().unwrap().to_owned(), own)
        })
        .collect()
}

/// rust-analyzer is not loaded to look for own stubs where the syntax
/// shows there are none: a crate whose functions return only a type of
/// its own with no values of its own; with a constant of that type, it is.
#[test]
fn list_analysis_looks_for_own_stubs_only_where_a_type_may_have_values() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pairs");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"pairs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    let code = "pub struct Pair {\n    pub a: u32,\n}\n\npub fn make(a: u32) -> Pair {\n    Pair { a: a + 1 }\n}\n";
    std::fs::write(root.join("src/lib.rs"), code).unwrap();
    let output = list(&root, &["--analysis"]);
    assert_ok(&output);
    assert!(
        !stderr(&output).contains("own type-aware"),
        "{}",
        stderr(&output)
    );
    let with_constant =
        format!("{code}\nimpl Pair {{\n    pub const ZERO: Pair = Pair {{ a: 0 }};\n}}\n");
    std::fs::write(root.join("src/lib.rs"), with_constant).unwrap();
    let output = list(&root, &["--analysis"]);
    assert_ok(&output);
    assert!(
        stderr(&output).contains("1 own type-aware stub "),
        "{}",
        stderr(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("replace make -> Pair with Pair::ZERO"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn list_analysis_adds_own_stubs_after_each_functions_table_stubs_marked_in_json() {
    let plain = list(&fixture("own_stubs"), &["--json"]);
    assert_ok(&plain);
    let plain = listed_json(&plain);
    assert!(plain.iter().all(|(_, own)| !own), "{plain:?}");

    let output = list(&fixture("own_stubs"), &["--analysis", "--json"]);
    assert_ok(&output);
    assert!(
        stderr(&output).contains("15 own type-aware stubs"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("s (once, for the own stubs and this analysis)"),
        "the analysis loads nothing again: {}",
        stderr(&output)
    );
    let listed = listed_json(&output);
    let own: Vec<&str> = listed
        .iter()
        .filter(|(_, own)| *own)
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(own, OWN_STUBS);
    // cargo-mutants' mutants keep their names and order around them.
    let table: Vec<(String, bool)> = listed.iter().filter(|(_, own)| !own).cloned().collect();
    assert_eq!(table, plain);
    // Each own stub follows its function's table stubs.
    let position = |name: &str| listed.iter().position(|(n, _)| n == name).unwrap();
    assert_eq!(
        position("src/lib.rs:41:5: replace by_rank -> Ordering with Ordering::Less"),
        position("src/lib.rs:41:5: replace by_rank -> Ordering with Default::default()") + 1
    );
}

#[test]
fn own_stubs_are_left_out_by_flag_and_by_config_key() {
    let output = list(
        &fixture("own_stubs"),
        &["--analysis", "--no-own-stubs", "--json"],
    );
    assert_ok(&output);
    assert!(listed_json(&output).iter().all(|(_, own)| !own));

    let (_dir, root) = copy_of("own_stubs");
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    std::fs::write(root.join(".cargo/mutants.toml"), "own_stubs = false\n").unwrap();
    let output = list(&root, &["--analysis", "--json"]);
    assert_ok(&output);
    let listed = listed_json(&output);
    assert!(listed.iter().all(|(_, own)| !own), "{listed:?}");
    assert!(
        !stderr(&output).contains("own type-aware"),
        "{}",
        stderr(&output)
    );
}
