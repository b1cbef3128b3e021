//! What is known: verdicts keyed by what they can honestly be keyed on —
//! the mutated function (name and text), the mutant (description and place
//! in the function) and a fingerprint of its context (the test code of the
//! packages that run, the test options, `Cargo.lock`) — kept in
//! `target/mutiny/results.json` so a new session starts with them.
//!
//! A verdict also depends on what no key can hold cheaply: the functions
//! the mutated one calls, the rest of the crate. So a known verdict is only
//! ever shown as an earlier result, and tested again (see the user guide).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::lab::killers::Killer;
use crate::mutate::Mutant;
use crate::outcome::Verdict;

/// Where the results live under a workspace root.
pub const RESULTS_PATH: &str = "target/mutiny/results.json";

/// A stable 64-bit FNV-1a hash, written in hex: file formats must not
/// depend on the standard library's unspecified hasher.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Key {
    file: String,
    function: String,
    /// Fingerprint of the function's text.
    function_text: String,
    description: String,
    /// Byte offset of the mutant from the function's start.
    offset: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    key: Key,
    /// Fingerprint of the context (tests, options, lock file) the verdict
    /// was found in.
    context: String,
    verdict: Verdict,
    /// When it was found, as a count of verdicts recorded (absent in
    /// files of older versions): the newest function texts are kept.
    #[serde(default)]
    recorded: u64,
}

/// What is known of one mutant.
#[derive(Debug, Clone)]
struct Known {
    context: String,
    verdict: Verdict,
    recorded: u64,
}

/// How many texts of one function keep their verdicts: the current one
/// and the few before it (an undo, a branch switched back). Older ones
/// would only grow the cache with every edit.
const TEXTS_KEPT_PER_FUNCTION: usize = 4;

#[derive(Debug, Default, Serialize, Deserialize)]
struct ResultsFile {
    mutiny_version: String,
    results: Vec<Entry>,
    /// Which test caught each function's mutants last (absent in files of
    /// older versions).
    #[serde(default)]
    killers: BTreeMap<String, Killer>,
}

#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    entries: HashMap<Key, Known>,
    killers: BTreeMap<String, Killer>,
    /// The `recorded` stamp of the next verdict inserted.
    next_record: u64,
}

impl Cache {
    /// Reads the results of `root`'s workspace; a missing or unreadable
    /// file is an empty cache (the results are only a head start).
    pub fn load(root: &Path) -> Cache {
        let path = root.join(RESULTS_PATH);
        if let Some(dir) = path.parent() {
            crate::output::sweep_stale_temporaries(dir);
        }
        Cache::load_file(&path)
    }

    fn load_file(path: &Path) -> Cache {
        let path = path.to_owned();
        let file = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<ResultsFile>(&text).ok())
            .unwrap_or_default();
        let next_record = file
            .results
            .iter()
            .map(|e| e.recorded + 1)
            .max()
            .unwrap_or(0);
        let entries = file
            .results
            .into_iter()
            .map(|e| {
                let known = Known {
                    context: e.context,
                    verdict: e.verdict,
                    recorded: e.recorded,
                };
                (e.key, known)
            })
            .collect();
        Cache {
            path,
            entries,
            killers: file.killers,
            next_record,
        }
    }

    /// The verdict known for `mutant` in the context with fingerprint
    /// `context`.
    pub fn get(&self, mutant: &Mutant, context: &str) -> Option<Verdict> {
        let known = self.entries.get(&key(mutant)?)?;
        (known.context == context).then_some(known.verdict)
    }

    pub fn insert(&mut self, mutant: &Mutant, context: &str, verdict: Verdict) {
        if let Some(key) = key(mutant) {
            let known = Known {
                context: context.to_owned(),
                verdict,
                recorded: self.next_record,
            };
            self.next_record += 1;
            self.entries.insert(key, known);
        }
    }

    /// Which test caught each function's mutants last, as last saved.
    pub fn killers(&self) -> &BTreeMap<String, Killer> {
        &self.killers
    }

    pub fn set_killers(&mut self, killers: BTreeMap<String, Killer>) {
        self.killers = killers;
    }

    /// Files that hold a known missed or timed-out mutant.
    pub fn files_with_findings(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, known)| matches!(known.verdict, Verdict::Missed | Verdict::Timeout))
            .map(|(k, _)| k.file.clone())
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// Writes the results (aside, then renamed into place, so a reader
    /// never sees half a file). Another mutiny (a second editor window on
    /// the workspace) may have saved since this one loaded: under a lock
    /// of the file, what it saved is read again and kept beside this
    /// one's results, which win where both know a mutant. Of each
    /// function, only the verdicts of its newest few texts are kept.
    pub fn save(&mut self) -> Result<()> {
        let dir = self.path.parent().expect("results live in a directory");
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let _turn = crate::lock::exclusive(&self.path.with_extension("json.lock"), || {})?;
        let saved = Cache::load_file(&self.path);
        let mut entries = saved.entries;
        entries.extend(std::mem::take(&mut self.entries));
        self.entries = newest_texts(entries);
        self.next_record = self.next_record.max(saved.next_record);
        let mut killers = saved.killers;
        killers.extend(self.killers.clone());
        let mut results: Vec<Entry> = self
            .entries
            .iter()
            .map(|(key, known)| Entry {
                key: key.clone(),
                context: known.context.clone(),
                verdict: known.verdict,
                recorded: known.recorded,
            })
            .collect();
        results.sort_by(|a, b| {
            (
                &a.key.file,
                &a.key.function,
                a.key.offset,
                &a.key.description,
            )
                .cmp(&(
                    &b.key.file,
                    &b.key.function,
                    b.key.offset,
                    &b.key.description,
                ))
        });
        let file = ResultsFile {
            mutiny_version: env!("CARGO_PKG_VERSION").to_owned(),
            results,
            killers,
        };
        let text = serde_json::to_string_pretty(&file).expect("results serialize");
        crate::output::write_atomically(&self.path, &text)
    }
}

/// `entries` without those of each function's texts older than its
/// `TEXTS_KEPT_PER_FUNCTION` newest (by their newest verdict).
fn newest_texts(entries: HashMap<Key, Known>) -> HashMap<Key, Known> {
    let mut newest: HashMap<(&str, &str), HashMap<&str, u64>> = HashMap::new();
    for (key, known) in &entries {
        let texts = newest.entry((&key.file, &key.function)).or_default();
        let stamp = texts.entry(&key.function_text).or_default();
        *stamp = (*stamp).max(known.recorded);
    }
    let kept: std::collections::HashSet<(String, String, String)> = newest
        .into_iter()
        .flat_map(|((file, function), texts)| {
            let mut texts: Vec<(&str, u64)> = texts.into_iter().collect();
            texts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            texts
                .into_iter()
                .take(TEXTS_KEPT_PER_FUNCTION)
                .map(move |(text, _)| (file.to_owned(), function.to_owned(), text.to_owned()))
        })
        .collect();
    entries
        .into_iter()
        .filter(|(key, _)| {
            kept.contains(&(
                key.file.clone(),
                key.function.clone(),
                key.function_text.clone(),
            ))
        })
        .collect()
}

/// Whether two mutants (of two texts of a file, say) are the same change
/// to the same function text, wherever the function now is.
pub fn same_mutant(a: &Mutant, b: &Mutant) -> bool {
    key(a).is_some_and(|key_a| Some(key_a) == key(b))
}

fn key(mutant: &Mutant) -> Option<Key> {
    let (start, text) = mutant.function_text()?;
    Some(Key {
        file: mutant.source_file.path.clone(),
        function: mutant.function.as_ref()?.function_name.clone(),
        function_text: fingerprint(&[text]),
        description: mutant.description.clone(),
        offset: mutant.range.start.checked_sub(start)?,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::mutate::{generate, SourceFile};

    fn mutants(code: &str) -> Vec<Mutant> {
        let source_file = Arc::new(SourceFile {
            package: "p".into(),
            path: "src/lib.rs".into(),
            code: code.into(),
            edition: Default::default(),
        });
        generate(&source_file, &Default::default()).mutants
    }

    #[test]
    fn fingerprints_are_stable_and_separate_parts() {
        assert_eq!(fingerprint(&["ab", "c"]), fingerprint(&["ab", "c"]));
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
        assert_eq!(fingerprint(&[]), "cbf29ce484222325");
    }

    #[test]
    fn verdicts_survive_a_reload_and_follow_function_text_and_tests() {
        let dir = tempfile::tempdir().unwrap();
        let code = "fn a() -> bool {\n    true\n}\n\nfn b(x: u32) -> u32 {\n    x + 1\n}\n";
        let before = mutants(code);
        let mut cache = Cache::load(dir.path());
        for mutant in &before {
            cache.insert(mutant, "tests-1", Verdict::Missed);
        }
        cache.save().unwrap();

        // `a` moves down a line and `b` changes: only `a`'s verdict holds.
        let shifted = format!("// new first line\n{}", code.replace("x + 1", "x + 2"));
        let after = mutants(&shifted);
        let reloaded = Cache::load(dir.path());
        let known: Vec<&str> = after
            .iter()
            .filter(|m| reloaded.get(m, "tests-1").is_some())
            .map(|m| m.description.as_str())
            .collect();
        assert_eq!(known, ["replace a -> bool with false"]);
        assert!(after.iter().all(|m| reloaded.get(m, "tests-2").is_none()));
        assert_eq!(reloaded.files_with_findings(), ["src/lib.rs"]);
    }

    #[test]
    fn killers_survive_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = Cache::load(dir.path());
        let killer = Killer {
            binary: "p lib p".into(),
            test: "tests::a".into(),
        };
        cache.set_killers(BTreeMap::from([(
            "src/lib.rs::a".to_owned(),
            killer.clone(),
        )]));
        cache.save().unwrap();
        let reloaded = Cache::load(dir.path());
        assert_eq!(reloaded.killers().get("src/lib.rs::a"), Some(&killer));
    }

    /// Two servers on one workspace (two editor windows) each save what
    /// they found: neither's verdicts or killers are lost, and where both
    /// know a mutant the last to save wins.
    #[test]
    fn two_caches_of_one_workspace_keep_each_others_results() {
        let dir = tempfile::tempdir().unwrap();
        let code = "fn a() -> bool {\n    true\n}\n\nfn b(x: u32) -> u32 {\n    x + 1\n}\n";
        let all = mutants(code);
        let (of_a, of_b): (Vec<&Mutant>, Vec<&Mutant>) =
            all.iter().partition(|m| m.description.contains(" a "));
        let mut first = Cache::load(dir.path());
        let mut second = Cache::load(dir.path());
        for mutant in &of_a {
            first.insert(mutant, "tests-1", Verdict::Missed);
        }
        first.set_killers(BTreeMap::from([(
            "src/lib.rs::a".to_owned(),
            Killer {
                binary: "p lib p".into(),
                test: "tests::a".into(),
            },
        )]));
        first.save().unwrap();
        for mutant in &of_b {
            second.insert(mutant, "tests-1", Verdict::Caught);
        }
        second.insert(of_a[0], "tests-1", Verdict::Caught);
        second.save().unwrap();
        let reloaded = Cache::load(dir.path());
        for mutant in &of_b {
            assert_eq!(reloaded.get(mutant, "tests-1"), Some(Verdict::Caught));
        }
        assert_eq!(reloaded.get(of_a[0], "tests-1"), Some(Verdict::Caught));
        for mutant in &of_a[1..] {
            assert_eq!(reloaded.get(mutant, "tests-1"), Some(Verdict::Missed));
        }
        assert!(reloaded.killers().contains_key("src/lib.rs::a"));
    }

    /// Each edit of a function gives its mutants new keys: the cache
    /// keeps the verdicts of its newest texts only, so it does not grow
    /// with every edit (the soak saw it grow without end).
    #[test]
    fn only_the_newest_texts_of_a_function_keep_their_verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = Cache::load(dir.path());
        let text = |n: usize| format!("fn a() -> u32 {{\n    {n}\n}}\n");
        for n in 0..10 {
            for mutant in &mutants(&text(n)) {
                cache.insert(mutant, "tests-1", Verdict::Missed);
            }
            cache.save().unwrap();
        }
        let reloaded = Cache::load(dir.path());
        let known = |n: usize| {
            mutants(&text(n))
                .iter()
                .all(|m| reloaded.get(m, "tests-1") == Some(Verdict::Missed))
        };
        let kept: Vec<usize> = (0..10).filter(|&n| known(n)).collect();
        assert_eq!(kept, [6, 7, 8, 9]);
        assert!(reloaded.entries.len() <= TEXTS_KEPT_PER_FUNCTION * mutants(&text(5)).len());
    }
}
