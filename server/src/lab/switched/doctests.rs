//! Doctests built once. rustdoc compiles every doctest into a program of
//! its own each time `cargo test --doc` runs (~1 s for a few doctests):
//! run per mutant, that is cargo-mutants' cost again. The doctests'
//! traced baseline run has rustdoc keep those programs instead
//! (`--persist-doctests`, through mutiny's binary standing in for rustdoc:
//! `wrap_rustdoc_if_asked`); they are linked to the switched build, so a
//! mutant then runs the programs of the doctests that reached it, each
//! with its switch on, as rustdoc would have run them.
//!
//! Only a doctest that rustdoc runs and expects to succeed is run this
//! way: `no_run` and `compile_fail` ones (libtest's name says so), any
//! program that cannot be told apart from another's, and any that does
//! not succeed when run again alone with no mutant (a `should_panic` one,
//! which libtest's name does not mark) keep the `cargo test --doc` path.
//! That run alone also gives each program its own time, for its timeout.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Where rustdoc keeps the doctests' programs; set for the one cargo run
/// whose rustdoc is mutiny's binary.
const PERSIST_VAR: &str = "MUTINY_PERSIST_DOCTESTS";
/// The rustdoc that mutiny's binary stands in for.
const REAL_VAR: &str = "MUTINY_REAL_RUSTDOC";
/// The name rustdoc gives each doctest's program in its directory.
const PROGRAM: &str = "rust_out";

/// The environment of a `cargo test --doc` run whose rustdoc keeps the
/// doctests' programs in `dir`; `None` when mutiny's binary cannot be found.
pub fn persisting_env(dir: &Path) -> Option<Vec<(String, String)>> {
    // (Not when the binary was replaced since it started.)
    let exe = std::env::current_exe().ok().filter(|exe| exe.is_file())?;
    let real = std::env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".to_owned());
    Some(vec![
        ("RUSTDOC".to_owned(), exe.to_string_lossy().into_owned()),
        (REAL_VAR.to_owned(), real),
        (PERSIST_VAR.to_owned(), dir.to_string_lossy().into_owned()),
    ])
}

/// When cargo started mutiny's binary as rustdoc (see `persisting_env`):
/// becomes the real rustdoc, told to keep the programs of the doctests it
/// tests; never returns then. Otherwise returns at once.
///
/// Keeping them is an unstable rustdoc option: `RUSTC_BOOTSTRAP` allows it
/// for this rustdoc process alone, never for cargo or the builds.
pub fn wrap_rustdoc_if_asked() {
    let Some(dir) = std::env::var_os(PERSIST_VAR) else {
        return;
    };
    let real = std::env::var_os(REAL_VAR).unwrap_or_else(|| OsString::from("rustdoc"));
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut command = Command::new(&real);
    command.args(&args);
    if args.iter().any(|arg| arg == "--test") {
        command
            .args(["-Z", "unstable-options", "--persist-doctests"])
            .arg(&dir)
            .env("RUSTC_BOOTSTRAP", "1");
    }
    command.env_remove(PERSIST_VAR).env_remove(REAL_VAR);
    if real == "rustdoc" {
        command.env_remove("RUSTDOC");
    } else {
        command.env("RUSTDOC", &real);
    }
    let err = command.exec();
    eprintln!("mutiny: cannot run {}: {err}", real.to_string_lossy());
    std::process::exit(127);
}

/// The doctests' programs rustdoc kept, by the function it wrapped each
/// doctest in (`_doctest_main_src_lib_rs_3_0`, as the switches' trace names
/// a doctest).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Programs {
    /// Each program, with its time when run alone with no mutant (once
    /// checked).
    by_wrapper: BTreeMap<String, (PathBuf, Option<Duration>)>,
}

impl Programs {
    /// The programs in `dir` (rustdoc's `--persist-doctests` directory) of
    /// the doctests that `passed` (names as libtest prints them) shows run
    /// and passing, each the only doctest its program can be.
    pub fn find(dir: &Path, passed: &[String]) -> Programs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Programs::default();
        };
        let mut by_wrapper = BTreeMap::new();
        for entry in entries.flatten() {
            let program = entry.path().join(PROGRAM);
            let Some(id) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if !program.is_file() {
                continue;
            }
            let wrapper = format!("_doctest_main_{id}");
            let mut names = passed
                .iter()
                .filter(|name| super::reach::wraps(&wrapper, plain(name)));
            // Run and expected to pass: no suffix after the line.
            let runs =
                names.clone().next().is_some() && names.all(|name| plain(name).len() == name.len());
            if runs {
                by_wrapper.insert(wrapper, (program, None));
            }
        }
        Programs { by_wrapper }
    }

    /// Keeps the programs that `alone` (a run of one with no mutant) says
    /// succeed, with the time it took; stops at the first `Err`.
    pub fn check<E>(
        &mut self,
        mut alone: impl FnMut(&Path) -> Result<Option<Duration>, E>,
    ) -> Result<(), E> {
        let mut checked = BTreeMap::new();
        for (wrapper, (program, _)) in std::mem::take(&mut self.by_wrapper) {
            if let Some(time) = alone(&program)? {
                checked.insert(wrapper, (program, Some(time)));
            }
        }
        self.by_wrapper = checked;
        Ok(())
    }

    /// The checked programs of the doctests `wrappers`, each with its time
    /// alone; `None` when one has none.
    pub fn of<'a>(&self, wrappers: &[&'a str]) -> Option<Vec<(&'a str, &Path, Duration)>> {
        wrappers
            .iter()
            .map(|w| match self.by_wrapper.get(*w) {
                Some((program, Some(time))) => Some((*w, program.as_path(), *time)),
                _ => None,
            })
            .collect()
    }
}

/// A doctest's name without what libtest adds after its line (` - compile`
/// for `no_run`, ` - compile fail`, ` - should panic`).
fn plain(name: &str) -> &str {
    match name.rfind(')') {
        Some(end) => &name[..=end],
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(ids: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for id in ids {
            std::fs::create_dir(dir.path().join(id)).unwrap();
            std::fs::write(dir.path().join(id).join(PROGRAM), "").unwrap();
        }
        dir
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_doctest_that_runs_and_passes_is_known_by_its_wrapper() {
        let dir = kept(&["src_lib_rs_3_0", "src_lib_rs_9_0"]);
        let mut programs = Programs::find(
            dir.path(),
            &names(&["src/lib.rs - f (line 3)", "src/lib.rs - g (line 9)"]),
        );
        let both = [
            "_doctest_main_src_lib_rs_9_0",
            "_doctest_main_src_lib_rs_3_0",
        ];
        assert_eq!(programs.of(&both), None, "not checked yet");
        let ms = Duration::from_millis;
        programs
            .check(|program| Ok::<_, ()>(Some(ms(program.as_os_str().len() as u64))))
            .unwrap();
        let found = programs.of(&both).unwrap();
        let nine = dir.path().join("src_lib_rs_9_0").join(PROGRAM);
        assert_eq!(found[0].1, nine);
        assert_eq!(found[0].2, ms(nine.as_os_str().len() as u64));
        assert_eq!(found[1].1, dir.path().join("src_lib_rs_3_0").join(PROGRAM));
    }

    #[test]
    fn a_program_that_fails_alone_is_left_to_cargo() {
        // A `should_panic` doctest: libtest's name does not say so.
        let dir = kept(&["src_lib_rs_3_0", "src_lib_rs_9_0"]);
        let mut programs = Programs::find(
            dir.path(),
            &names(&["src/lib.rs - f (line 3)", "src/lib.rs - g (line 9)"]),
        );
        programs
            .check(|program| {
                let panics = program.to_string_lossy().contains("_9_");
                Ok::<_, ()>((!panics).then_some(Duration::ZERO))
            })
            .unwrap();
        assert!(programs.of(&["_doctest_main_src_lib_rs_3_0"]).is_some());
        assert_eq!(programs.of(&["_doctest_main_src_lib_rs_9_0"]), None);
    }

    #[test]
    fn no_run_should_panic_and_unlisted_doctests_have_no_program() {
        let dir = kept(&["src_lib_rs_3_0", "src_lib_rs_9_0", "src_lib_rs_20_0"]);
        let programs = Programs::find(
            dir.path(),
            &names(&[
                "src/lib.rs - f (line 3) - compile",
                "src/lib.rs - g (line 9) - should panic",
            ]),
        );
        assert_eq!(programs, Programs::default());
        assert_eq!(programs.of(&["_doctest_main_src_lib_rs_20_0"]), None);
    }

    #[test]
    fn a_program_two_doctests_may_own_is_run_only_if_both_run() {
        // Two doctests on one line (a macro's docs): rustdoc numbers their
        // programs, libtest's names do not tell them apart.
        let dir = kept(&["src_lib_rs_5_0", "src_lib_rs_5_1"]);
        let mixed = Programs::find(
            dir.path(),
            &names(&[
                "src/lib.rs - m (line 5)",
                "src/lib.rs - m (line 5) - compile",
            ]),
        );
        assert_eq!(mixed, Programs::default());
    }

    #[test]
    fn the_suffix_after_the_line_is_cut() {
        assert_eq!(
            plain("src/lib.rs - f (line 3) - compile fail"),
            "src/lib.rs - f (line 3)"
        );
        assert_eq!(plain("src/lib.rs - f (line 3)"), "src/lib.rs - f (line 3)");
    }
}
