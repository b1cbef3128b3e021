//! Dev-dependencies the scratch copies leave out: a test build compiles
//! every dev-dependency, also those only benchmarks use (`criterion` and
//! its tree often cost more than the crate itself). One that no file of its
//! package but the benchmarks names, and whose tree shares no package with
//! what the build keeps, cannot change a test: `mutiny run` leaves it out of
//! the copies' manifests (the user's are untouched).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::workspace::{self, ResolveArgs, UnneededDevDependency};

use super::cargo::CargoOptions;

/// Files larger than this are not read: one that is Rust or Markdown counts
/// as naming every crate.
const LARGEST_READ: u64 = 8 << 20;

/// Per manifest (relative to the workspace root), the keys of the
/// dev-dependencies its copies leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    keys: Arc<BTreeMap<PathBuf, Vec<String>>>,
    /// `package: key` for each, for the user.
    described: Vec<String>,
}

impl LeftOut {
    /// What copies of the workspace can leave out for builds with `cargo`'s
    /// options, as read in the copy at `root` (cargo may write its lock
    /// file). Nothing under `--locked` or `--frozen` (the lock file would
    /// need the update cargo makes for the smaller manifest), or when cargo
    /// cannot resolve the workspace.
    pub fn plan(root: &Path, cargo: &CargoOptions) -> LeftOut {
        let locked = cargo
            .additional_cargo_args
            .iter()
            .any(|arg| arg == "--locked" || arg == "--frozen");
        if locked {
            return LeftOut::default();
        }
        let features = ResolveArgs {
            features: &cargo.features,
            all_features: cargo.all_features,
            no_default_features: cargo.no_default_features,
            platform: host_triple(root),
        };
        let named = |dir: &Path, benches: &[PathBuf], name: &str| {
            named_outside_benches(dir, root, benches, name)
        };
        LeftOut::from(workspace::unneeded_dev_dependencies(root, features, named))
    }

    /// The manifests to rewrite, relative to the workspace root.
    pub fn manifests(&self) -> impl Iterator<Item = &Path> {
        self.keys.keys().map(PathBuf::as_path)
    }

    /// The keys to leave out of the manifest at `relative`.
    pub fn keys(&self, relative: &Path) -> &[String] {
        self.keys.get(relative).map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// A line for the user, when anything is left out.
    pub fn note(&self) -> Option<String> {
        (!self.is_empty()).then(|| {
            format!(
                "mutiny: the test builds leave out dev-dependencies that only benchmarks name \
                 ({}); your Cargo.toml is unchanged",
                self.described.join(", ")
            )
        })
    }
}

impl From<Vec<UnneededDevDependency>> for LeftOut {
    fn from(unneeded: Vec<UnneededDevDependency>) -> LeftOut {
        let mut keys: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
        let mut described = Vec::new();
        for dependency in unneeded {
            described.push(format!("{}: {}", dependency.package, dependency.key));
            keys.entry(dependency.manifest)
                .or_default()
                .push(dependency.key);
        }
        LeftOut {
            keys: Arc::new(keys),
            described,
        }
    }
}

/// The platform `rustc` (as `dir`'s toolchain picks it) builds for.
fn host_triple(dir: &Path) -> Option<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = std::process::Command::new(rustc)
        .arg("-vV")
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let host = text.lines().find_map(|line| line.strip_prefix("host: "))?;
    Some(host.trim().to_owned())
}

/// Whether a file of the package at `dir` (or one directly in the
/// workspace's `root`) but the benchmark roots `benches` names `name` as a
/// whole word: a Rust file (in code, a doctest, a comment: any mention
/// keeps the dependency), or another file that a Rust file names (its
/// examples are doctests when `#![doc = include_str!("../README.md")]`
/// includes it). Build output, VCS data and mutiny's output are not read.
pub fn named_outside_benches(dir: &Path, root: &Path, benches: &[PathBuf], name: &str) -> bool {
    let Some(mut files) = package_files(dir) else {
        // Unreadable: cannot tell, so it may name it.
        return true;
    };
    // A member's docs may include the workspace's README.
    if root != dir {
        let Some(top) = top_level_files(root) else {
            return true;
        };
        files.extend(top);
    }
    files.retain(|path| !benches.contains(path) && !is_manifest(path));
    let (rust, other): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|path| path.extension().is_some_and(|e| e == "rs"));
    if rust.iter().any(|path| file_names(path, name)) {
        return true;
    }
    other.iter().any(|path| {
        let included = match path.file_name().and_then(|n| n.to_str()) {
            Some(file_name) => rust.iter().any(|rs| file_names(rs, file_name)),
            None => true,
        };
        included && file_names(path, name)
    })
}

/// The files under `dir` but those of nested packages (a path dependency
/// inside it), hidden directories, build output and mutiny's output;
/// `None` when a directory cannot be read.
pub(super) fn package_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            let file_type = entry.file_type().ok()?;
            if file_type.is_dir() {
                let nested = path.join("Cargo.toml").is_file();
                let skipped = nested
                    || entry.file_name().to_str().is_none_or(|name| {
                        name.starts_with('.')
                            || matches!(name, "target" | "mutants.out" | "mutants.out.old")
                    });
                if !skipped {
                    stack.push(path);
                }
            } else if file_type.is_file() {
                files.push(path);
            }
        }
    }
    Some(files)
}

/// Cargo's own files, which name every dependency.
fn is_manifest(path: &Path) -> bool {
    matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some("Cargo.toml" | "Cargo.toml.orig" | "Cargo.lock")
    )
}

/// The files directly in `dir`; `None` when it cannot be read.
fn top_level_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
            .map(|entry| entry.path())
            .collect(),
    )
}

/// Whether the file at `path` names `name` as a whole word.
fn file_names(path: &Path, name: &str) -> bool {
    let large = std::fs::metadata(path).map_or(true, |m| m.len() > LARGEST_READ);
    if large {
        let text_like = matches!(path.extension().and_then(|e| e.to_str()), Some("rs" | "md"));
        return text_like;
    }
    match std::fs::read(path) {
        Ok(bytes) => names_word(&bytes, name.as_bytes()),
        Err(_) => true,
    }
}

/// Whether `word` occurs in `text` with no identifier character either side.
fn names_word(text: &[u8], word: &[u8]) -> bool {
    let part_of_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    if word.is_empty() || text.len() < word.len() {
        return false;
    }
    (0..=text.len() - word.len()).any(|at| {
        text[at..].starts_with(word)
            && !text[..at].last().is_some_and(part_of_word)
            && !text.get(at + word.len()).is_some_and(part_of_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_named_only_whole() {
        assert!(names_word(b"use criterion::Criterion;", b"criterion"));
        assert!(names_word(b"criterion", b"criterion"));
        assert!(names_word(b"extern crate criterion;\n", b"criterion"));
        assert!(!names_word(b"humantime::parse", b"time"));
        assert!(!names_word(b"time_out", b"time"));
        assert!(!names_word(b"my_criterion2", b"criterion"));
        assert!(names_word(b"std::time::Duration", b"time"));
        assert!(!names_word(b"", b"time"));
    }

    #[test]
    fn a_name_in_any_file_but_a_benchmark_root_keeps_the_dependency() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("benches")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        let bench = root.join("benches/parse.rs");
        std::fs::write(&bench, "use criterion::Criterion;\n").unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[dev-dependencies]\ncriterion = \"0.8\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join(".github")).unwrap();
        std::fs::write(
            root.join(".github/ci.yml"),
            "run: cargo bench # criterion\n",
        )
        .unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        std::fs::write(root.join("target/debug/x.d"), "criterion\n").unwrap();
        assert!(!named_outside_benches(
            root,
            root,
            std::slice::from_ref(&bench),
            "criterion"
        ));
        // A nested package's files are its own.
        std::fs::create_dir_all(root.join("timer/src")).unwrap();
        std::fs::write(
            root.join("timer/Cargo.toml"),
            "[package]\nname = \"timer\"\n",
        )
        .unwrap();
        std::fs::write(root.join("timer/src/lib.rs"), "//! criterion's kin\n").unwrap();
        assert!(!named_outside_benches(
            root,
            root,
            std::slice::from_ref(&bench),
            "criterion"
        ));
        // A benchmark's helper module is not a benchmark root: it counts.
        std::fs::write(root.join("benches/common.rs"), "criterion::black_box(1);\n").unwrap();
        assert!(named_outside_benches(
            root,
            root,
            std::slice::from_ref(&bench),
            "criterion"
        ));
        std::fs::remove_file(root.join("benches/common.rs")).unwrap();
        // A README counts when a Rust file includes it: its examples are
        // doctests then.
        std::fs::write(root.join("README.md"), "Benchmarks use criterion.\n").unwrap();
        assert!(!named_outside_benches(
            root,
            root,
            std::slice::from_ref(&bench),
            "criterion"
        ));
        std::fs::write(
            root.join("src/lib.rs"),
            "#![doc = include_str!(\"../README.md\")]\npub fn f() {}\n",
        )
        .unwrap();
        assert!(named_outside_benches(
            root,
            root,
            std::slice::from_ref(&bench),
            "criterion"
        ));
        // So does the workspace's, for a member.
        let member = root.join("timer");
        std::fs::write(member.join("src/lib.rs"), "//! See ../README.md\n").unwrap();
        assert!(named_outside_benches(&member, root, &[], "criterion"));
        std::fs::write(member.join("src/lib.rs"), "//! the timer\n").unwrap();
        assert!(!named_outside_benches(&member, root, &[], "criterion"));
    }
}
