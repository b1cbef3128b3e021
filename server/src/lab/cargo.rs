//! The cargo command lines the lab runs, and their environment.

use std::path::Path;

use crate::outcome::Phase;

/// What runs the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TestTool {
    /// `cargo test`
    #[default]
    Cargo,
    /// `cargo nextest run`
    Nextest,
}

impl std::str::FromStr for TestTool {
    type Err = String;

    fn from_str(name: &str) -> Result<TestTool, String> {
        match name {
            "cargo" => Ok(TestTool::Cargo),
            "nextest" => Ok(TestTool::Nextest),
            other => Err(format!("unknown test tool {other:?}: use cargo or nextest")),
        }
    }
}

/// Which packages' tests judge a mutant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TestScope {
    /// The package the mutant is in (cargo-mutants' default).
    #[default]
    Mutated,
    /// Every package of the workspace.
    Workspace,
    /// These packages, by name.
    Packages(Vec<String>),
}

/// Which packages a command covers: `--package=` specs or the whole workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackageArgs {
    Specs(Vec<String>),
    Workspace,
}

/// Options that shape every cargo command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CargoOptions {
    pub test_tool: TestTool,
    /// Added to every cargo command (`--release`, `--locked`, …).
    pub additional_cargo_args: Vec<String>,
    /// Added to the test command only, verbatim as cargo-mutants does
    /// (`--`, then arguments for the test binaries, if the user wants them).
    pub additional_test_args: Vec<String>,
    pub features: Vec<String>,
    pub all_features: bool,
    pub no_default_features: bool,
    pub profile: Option<String>,
    /// Build with `--cap-lints=warn`, so `#![deny(warnings)]` cannot make a
    /// mutant unviable.
    pub cap_lints: bool,
}

/// The cargo binary: `$CARGO` when mutiny runs under cargo, else `cargo`.
pub fn cargo_bin() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// The command for one phase.
pub fn argv(phase: Phase, packages: &PackageArgs, options: &CargoOptions) -> Vec<String> {
    let mut argv = vec![cargo_bin()];
    match options.test_tool {
        TestTool::Cargo => argv.push("test".to_owned()),
        TestTool::Nextest => argv.extend(["nextest".to_owned(), "run".to_owned()]),
    }
    if phase == Phase::Build {
        argv.push("--no-run".to_owned());
    }
    match packages {
        PackageArgs::Workspace => argv.push("--workspace".to_owned()),
        PackageArgs::Specs(specs) => {
            argv.extend(specs.iter().map(|spec| format!("--package={spec}")));
        }
    }
    if let Some(profile) = &options.profile {
        argv.push(match options.test_tool {
            TestTool::Cargo => format!("--profile={profile}"),
            TestTool::Nextest => format!("--cargo-profile={profile}"),
        });
    }
    if options.all_features {
        argv.push("--all-features".to_owned());
    }
    if options.no_default_features {
        argv.push("--no-default-features".to_owned());
    }
    if !options.features.is_empty() {
        argv.push(format!("--features={}", options.features.join(",")));
    }
    argv.extend(options.additional_cargo_args.iter().cloned());
    if phase == Phase::Test {
        if options.test_tool == TestTool::Nextest {
            // A package without tests is not a failure of the mutant.
            argv.push("--no-tests=pass".to_owned());
        }
        argv.extend(options.additional_test_args.iter().cloned());
    }
    argv
}

/// The environment for commands run in the scratch tree at `root`.
pub fn env(root: &Path, options: &CargoOptions) -> Vec<(String, String)> {
    let mut env = vec![
        // Each scratch tree builds into its own target dir, whatever the
        // user's environment or config says.
        (
            "CARGO_TARGET_DIR".to_owned(),
            root.join("target").to_string_lossy().into_owned(),
        ),
        // Snapshot tests must not accept a mutant's output as the new truth.
        ("INSTA_UPDATE".to_owned(), "no".to_owned()),
        ("INSTA_FORCE_PASS".to_owned(), "0".to_owned()),
        // A failing test of a debug build takes ~80 ms to symbolise its
        // backtrace (RUST_BACKTRACE=1 in many shells): more than most tests
        // take to run, on every caught mutant. The log keeps the panic.
        ("RUST_BACKTRACE".to_owned(), "0".to_owned()),
        // Temporary files of the compilers and tests stay beside the tree,
        // and go with it, even when a command is killed.
        (
            "TMPDIR".to_owned(),
            super::scratch::command_tmp(root)
                .to_string_lossy()
                .into_owned(),
        ),
    ];
    if options.cap_lints {
        env.push(("CARGO_ENCODED_RUSTFLAGS".to_owned(), encoded_rustflags()));
    }
    env
}

/// The user's rustflags with `--cap-lints=warn` added, in the encoding cargo
/// reads from `CARGO_ENCODED_RUSTFLAGS` (0x1f-separated).
fn encoded_rustflags() -> String {
    let existing = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(encoded) => encoded,
        Err(_) => std::env::var("RUSTFLAGS")
            .map(|flags| flags.split_whitespace().collect::<Vec<_>>().join("\x1f"))
            .unwrap_or_default(),
    };
    if existing.is_empty() {
        "--cap-lints=warn".to_owned()
    } else {
        format!("{existing}\x1f--cap-lints=warn")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(argv: Vec<String>) -> String {
        argv[1..].join(" ")
    }

    #[test]
    fn cargo_build_and_test_commands() {
        let packages = PackageArgs::Specs(vec!["example@0.1.0".into()]);
        let options = CargoOptions {
            features: vec!["a".into(), "b".into()],
            additional_cargo_args: vec!["--locked".into()],
            additional_test_args: vec!["--".into(), "--test-threads=1".into()],
            ..Default::default()
        };
        assert_eq!(
            words(argv(Phase::Build, &packages, &options)),
            "test --no-run --package=example@0.1.0 --features=a,b --locked"
        );
        assert_eq!(
            words(argv(Phase::Test, &packages, &options)),
            "test --package=example@0.1.0 --features=a,b --locked -- --test-threads=1"
        );
    }

    #[test]
    fn nextest_commands_cover_the_workspace() {
        let options = CargoOptions {
            test_tool: TestTool::Nextest,
            ..Default::default()
        };
        assert_eq!(
            words(argv(Phase::Build, &PackageArgs::Workspace, &options)),
            "nextest run --no-run --workspace"
        );
        assert_eq!(
            words(argv(Phase::Test, &PackageArgs::Workspace, &options)),
            "nextest run --workspace --no-tests=pass"
        );
    }
}
