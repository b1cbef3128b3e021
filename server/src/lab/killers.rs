//! Which test last caught a mutant of each function: it runs first for the
//! function's next mutant (libtest `--exact`), in this run and, once
//! written down, in later ones. A killer is only a guess at an order: a
//! stale one (the test renamed, the binary gone) costs nothing but its
//! place at the front.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use anyhow::Result;
use serde::{Deserialize, Serialize};

/// The name of the file a `mutiny run` leaves them in, in `mutants.out/`.
pub const FILE_NAME: &str = "killers.json";

/// One function's killer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Killer {
    /// The test binary, named across builds (`package kind target`).
    pub binary: String,
    /// The test's full libtest name.
    pub test: String,
}

/// Killers by function (`file::name`), shared by a lab's jobs.
#[derive(Debug, Default)]
pub struct Killers {
    by_function: Mutex<BTreeMap<String, Killer>>,
}

impl Killers {
    pub fn get(&self, function: &str) -> Option<Killer> {
        self.lock().get(function).cloned()
    }

    pub fn record(&self, function: String, killer: Killer) {
        self.lock().insert(function, killer);
    }

    /// Adds what an earlier run learned, without overriding this run's.
    pub fn learn(&self, earlier: BTreeMap<String, Killer>) {
        let mut known = self.lock();
        for (function, killer) in earlier {
            known.entry(function).or_insert(killer);
        }
    }

    pub fn snapshot(&self) -> BTreeMap<String, Killer> {
        self.lock().clone()
    }

    /// Reads the killers a run left in `path`; none when the file is
    /// missing or unreadable (they only order tests).
    pub fn read(path: &Path) -> BTreeMap<String, Killer> {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<KillersFile>(&text).ok())
            .map(|file| file.killers)
            .unwrap_or_default()
    }

    /// Writes them to `path` (aside, then renamed into place).
    pub fn write(&self, path: &Path) -> Result<()> {
        let file = KillersFile {
            mutiny_version: env!("CARGO_PKG_VERSION").to_owned(),
            killers: self.snapshot(),
        };
        let text = serde_json::to_string_pretty(&file).expect("killers serialize");
        crate::output::write_atomically(path, &text)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Killer>> {
        self.by_function
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct KillersFile {
    mutiny_version: String,
    killers: BTreeMap<String, Killer>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn killer(test: &str) -> Killer {
        Killer {
            binary: "p lib p".into(),
            test: test.into(),
        }
    }

    #[test]
    fn killers_survive_a_write_and_a_read_and_this_runs_win() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let first = Killers::default();
        first.record("src/lib.rs::a".into(), killer("tests::a"));
        first.record("src/lib.rs::b".into(), killer("tests::b"));
        first.write(&path).unwrap();

        let second = Killers::default();
        second.record("src/lib.rs::a".into(), killer("tests::a2"));
        second.learn(Killers::read(&path));
        assert_eq!(second.get("src/lib.rs::a"), Some(killer("tests::a2")));
        assert_eq!(second.get("src/lib.rs::b"), Some(killer("tests::b")));
        assert!(Killers::read(&dir.path().join("missing.json")).is_empty());
        std::fs::write(&path, "not json").unwrap();
        assert!(Killers::read(&path).is_empty());
    }
}
