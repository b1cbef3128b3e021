//! Helpers shared by the end-to-end tests.
#![allow(dead_code)] // each test crate uses its own part

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// EXPECTED.md's `missed.txt` for the example fixture.
pub const EXAMPLE_MISSED: [&str; 11] = [
    "src/lib.rs:30:9: replace Version::is_stable -> bool with true",
    "src/lib.rs:30:9: replace Version::is_stable -> bool with false",
    "src/lib.rs:30:20: replace > with == in Version::is_stable",
    "src/lib.rs:30:20: replace > with < in Version::is_stable",
    "src/lib.rs:30:20: replace > with >= in Version::is_stable",
    "src/lib.rs:51:32: replace > with == in matches",
    "src/lib.rs:51:32: replace > with < in matches",
    "src/lib.rs:51:32: replace > with >= in matches",
    "src/lib.rs:58:28: replace && with || in compatible",
    "src/lib.rs:58:23: replace == with != in compatible",
    "src/lib.rs:58:45: replace == with != in compatible",
];

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

/// Every directory and file under `root`, files with their bytes.
pub fn tree_snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut snapshot = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().to_owned();
            if path.is_dir() {
                snapshot.insert(relative, None);
                stack.push(path);
            } else {
                snapshot.insert(relative, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    snapshot
}

/// Asserts that `root` is as `before` found it, naming what changed.
#[track_caller]
pub fn assert_unchanged(root: &Path, before: &BTreeMap<PathBuf, Option<Vec<u8>>>) {
    let after = tree_snapshot(root);
    let paths: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    let changed: Vec<&PathBuf> = paths
        .into_iter()
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    assert!(
        changed.is_empty(),
        "changed in {}: {changed:?}",
        root.display()
    );
}
