//! Helpers shared by the end-to-end tests.
#![allow(dead_code)] // each test crate uses its own part

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub mod ci;

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

/// A copy of a fixture in a temporary directory.
pub fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    copy_dir(&fixture(name), &root);
    (dir, root)
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
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

/// Live processes (pid, command line) working in `tmpdir` or started with
/// it as TMPDIR: what a run or server given that TMPDIR started, whatever
/// their command lines say (cargo's and the watchdog's name no path).
#[cfg(target_os = "linux")]
pub fn processes_of_tmpdir(tmpdir: &Path) -> Vec<(i32, Vec<String>)> {
    use std::os::unix::ffi::OsStrExt;
    let me = std::process::id().to_string();
    let variable = [b"TMPDIR=", tmpdir.as_os_str().as_bytes()].concat();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if pid == me || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // Both unreadable once a process is gone or a zombie (and for
        // other users' processes, which are not this run's).
        let works_there =
            std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(tmpdir));
        // mutiny gives its commands a TMPDIR inside their scratch
        // directory, itself in this one.
        let started_with_it = std::fs::read(entry.path().join("environ")).is_ok_and(|environ| {
            environ.split(|&b| b == 0).any(|v| {
                v.strip_prefix(variable.as_slice())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"/"))
            })
        });
        if !(works_there || started_with_it) {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        found.push((pid.parse().unwrap(), args));
    }
    found
}

/// Process checks read /proc, so only Linux makes them.
#[cfg(not(target_os = "linux"))]
pub fn processes_of_tmpdir(_tmpdir: &Path) -> Vec<(i32, Vec<String>)> {
    Vec::new()
}

/// A small seeded generator (SplitMix64), so a failing kill schedule can
/// be run again: the seed is in every failure message.
pub struct Moments(pub u64);

impl Moments {
    pub fn next_below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % bound.max(1)
    }
}

/// The seed of a kill schedule: `MUTINY_KILL_SEED` to replay one, else
/// the clock's; printed, so that a failure can be replayed.
pub fn kill_seed() -> u64 {
    let seed = std::env::var("MUTINY_KILL_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("kill schedule seed: MUTINY_KILL_SEED={seed}");
    seed
}
