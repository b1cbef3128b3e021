//! `mutiny merge`: the `mutants.out/` directories of the shards of one run
//! (`mutiny run --shard K/N`, K = 0..N-1) joined into one `mutants.out/`,
//! as the unsharded run would have written it: `mutants.json` in the whole
//! list's order, `outcomes.json` with the baseline and then every mutant in
//! that order and the counts of them all, one list per verdict in that
//! order, the logs and diffs under the names the unsharded run gives them,
//! `killers.json`, and the reports.
//!
//! Nothing is written unless every check passes (`check.rs`: one split of
//! one list, each shard once), and the result appears whole: it is written
//! beside `OUT` and renamed into place.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use serde::de::DeserializeOwned;

use crate::lab::killers::{self, Killers};
use crate::outcome::{Counts, Verdict};
use crate::output::{self, write_atomically, VERDICTS};
use crate::report::{self, MutantsOut};
use crate::shard::{self, ShardRecord};

pub mod check;
mod files;

use files::{MutantEntry, OutcomeEntry, OutcomesFile, ScenarioEntry};

/// One shard's `mutants.out/`, as read.
#[derive(Debug)]
pub struct ShardOut {
    pub dir: PathBuf,
    pub record: ShardRecord,
    outcomes: OutcomesFile,
    /// `mutants.json`: this shard's part of the list, in order.
    mutants: Vec<MutantEntry>,
}

impl ShardOut {
    /// Reads the shard at `path`: its `mutants.out/` or the directory
    /// holding it.
    pub fn read(path: &Path) -> Result<ShardOut> {
        let dir = report::mutants_out::locate(path)?;
        let record_path = dir.join(shard::RECORD_FILE_NAME);
        let record = match std::fs::read_to_string(&record_path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is not a shard record", record_path.display()))?,
            Err(_) => bail!(
                "{} is not a shard: it has no {}, which `mutiny run --shard K/N` writes \
                 (an unsharded run, a merged one, or cargo-mutants' output has none); \
                 give the mutants.out of each shard of one split",
                dir.display(),
                shard::RECORD_FILE_NAME
            ),
        };
        let outcomes = read_json(&dir.join("outcomes.json"))?;
        let mutants = read_json(&dir.join("mutants.json"))?;
        Ok(ShardOut {
            dir,
            record,
            outcomes,
            mutants,
        })
    }
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not as `mutiny run` writes it", path.display()))
}

/// The merged `mutants.out/`, planned in memory: what to write and which
/// shard files to copy where.
#[derive(Debug)]
pub struct Merged {
    outcomes: OutcomesFile,
    mutants: Vec<MutantEntry>,
    /// Mutant names by verdict, in the whole list's order.
    lists: BTreeMap<&'static str, Vec<String>>,
    /// (a shard's file, its path in the merged directory).
    copies: Vec<(PathBuf, String)>,
    killers: BTreeMap<String, killers::Killer>,
    pub counts: Counts,
    pub baseline_failed: bool,
    /// How many shards were joined.
    pub shards: usize,
    /// What the user should know: a shard whose baseline failed, one that
    /// stopped early.
    pub warnings: Vec<String>,
}

/// Checks the shards and plans their merge; reads no file but the killers.
pub fn merge(shards: Vec<ShardOut>) -> Result<Merged> {
    let given: Vec<check::Given> = shards
        .iter()
        .map(|s| check::Given {
            dir: &s.dir,
            record: &s.record,
        })
        .collect();
    let order = check::check(&given)?;
    let mut shards: Vec<Option<ShardOut>> = shards.into_iter().map(Some).collect();
    let shards: Vec<ShardOut> = order
        .into_iter()
        .map(|i| shards[i].take().expect("each index once"))
        .collect();
    let record = shards[0].record.clone();

    let parts: Vec<Vec<MutantEntry>> = shards.iter().map(|s| s.mutants.clone()).collect();
    let whole = shard::unshard(record.sharding, parts)
        .filter(|whole| {
            whole.len() == record.mutants
                && shard::names_digest(whole.iter().map(|(_, m)| m.name.as_str()))
                    == record.names_digest
        })
        .ok_or_else(|| {
            anyhow!(
                "the shards' mutants.json do not add up to the list of {} mutants they were \
                 cut from: was a mutants.out changed after its run?",
                record.mutants
            )
        })?;

    let mut warnings = Vec::new();
    let mut baselines: Vec<(usize, OutcomeEntry)> = Vec::new();
    let mut tested: Vec<HashMap<String, VecDeque<OutcomeEntry>>> = Vec::new();
    for (k, shard) in shards.iter().enumerate() {
        let mut by_name: HashMap<String, VecDeque<OutcomeEntry>> = HashMap::new();
        for outcome in &shard.outcomes.outcomes {
            match &outcome.scenario {
                ScenarioEntry::Mutant(mutant) => by_name
                    .entry(mutant.name.clone())
                    .or_default()
                    .push_back(outcome.clone()),
                ScenarioEntry::Baseline => baselines.push((k, outcome.clone())),
            }
        }
        tested.push(by_name);
    }

    let mut copies = Vec::new();
    let mut outcomes = Vec::new();
    let failed = |b: &OutcomeEntry| b.summary != "Success";
    let baseline_failed = baselines.iter().any(|(_, b)| failed(b));
    // One baseline, as one run has: the first that failed, else shard 0's.
    let baseline = baselines
        .iter()
        .find(|(_, b)| failed(b))
        .or(baselines.first());
    if let Some((k, baseline)) = baseline {
        let mut baseline = baseline.clone();
        let dir = &shards[*k].dir;
        baseline.log_path = relocate(&baseline.log_path, "log/baseline.log", dir, &mut copies);
        outcomes.push(baseline);
    }
    for (k, baseline) in &baselines {
        if failed(baseline) {
            warnings.push(format!(
                "shard {} ({}): the unmutated tree failed its tests there, so its mutants \
                 were not tested",
                shards[*k].record.shard,
                shards[*k].dir.display()
            ));
        }
    }

    let stems = crate::lab::log_stems_at(
        whole
            .iter()
            .map(|(_, m)| (m.file.as_str(), m.span.start.line, m.span.start.column)),
    );
    let mut lists: BTreeMap<&'static str, Vec<String>> = VERDICTS
        .iter()
        .map(|&v| (list_name(v), Vec::new()))
        .collect();
    let mut counts = Counts::default();
    let mut untested = vec![0; shards.len()];
    for ((k, mutant), stem) in whole.iter().zip(&stems) {
        let name = &mutant.name;
        let Some(mut outcome) = tested[*k].get_mut(name).and_then(VecDeque::pop_front) else {
            untested[*k] += 1;
            continue;
        };
        let dir = &shards[*k].dir;
        outcome.log_path = relocate(
            &outcome.log_path,
            &format!("log/{stem}.log"),
            dir,
            &mut copies,
        );
        outcome.diff_path = relocate(
            &outcome.diff_path,
            &format!("diff/{stem}.diff"),
            dir,
            &mut copies,
        );
        match outcome.verdict() {
            Some(verdict) => {
                counts.add(verdict);
                lists
                    .get_mut(list_name(verdict))
                    .expect("every verdict has a list")
                    .push(name.to_owned());
            }
            None => warnings.push(format!(
                "{name}: unknown summary {:?}, left out of the lists",
                outcome.summary
            )),
        }
        outcomes.push(outcome);
    }
    for (k, shard) in shards.iter().enumerate() {
        let left: usize = tested[k].values().map(VecDeque::len).sum();
        if left > 0 {
            warnings.push(format!(
                "shard {} ({}): {left} outcomes of mutants its mutants.json does not list \
                 are left out",
                shard.record.shard,
                shard.dir.display()
            ));
        }
        if untested[k] > 0 && !baseline_failed {
            warnings.push(format!(
                "shard {} ({}) stopped before testing {} of its mutants (interrupted?): \
                 they are listed but not tested",
                shard.record.shard,
                shard.dir.display(),
                untested[k]
            ));
        }
    }

    let killers = Killers::default();
    for shard in &shards {
        killers.learn(Killers::read(&shard.dir.join(killers::FILE_NAME)));
    }
    Ok(Merged {
        outcomes: joined_outcomes(&shards, outcomes, &counts),
        mutants: whole.into_iter().map(|(_, m)| m).collect(),
        lists,
        copies,
        killers: killers.snapshot(),
        counts,
        baseline_failed,
        shards: shards.len(),
        warnings,
    })
}

/// shard 0's `outcomes.json` with these outcomes and counts, from the
/// first start to the last end (none if a shard did not finish).
fn joined_outcomes(
    shards: &[ShardOut],
    outcomes: Vec<OutcomeEntry>,
    counts: &Counts,
) -> OutcomesFile {
    // RFC 3339 times in UTC, as `mutiny run` writes them, sort as text.
    let start_time = shards
        .iter()
        .map(|s| s.outcomes.start_time.clone())
        .min()
        .unwrap_or_default();
    let end_time = shards
        .iter()
        .map(|s| s.outcomes.end_time.clone())
        .collect::<Option<Vec<String>>>()
        .and_then(|ends| ends.into_iter().max());
    OutcomesFile {
        outcomes,
        total_mutants: counts.total_mutants,
        missed: counts.missed,
        caught: counts.caught,
        timeout: counts.timeout,
        unviable: counts.unviable,
        not_compiled: counts.not_compiled,
        start_time,
        end_time,
        ..shards[0].outcomes.clone()
    }
}

/// `to`, the path in the merged directory of the shard's file `from`
/// (relative to the shard's directory `dir`), with its copy planned when the
/// shard has the file; `None` if there is no such file.
fn relocate(
    from: &Option<String>,
    to: &str,
    dir: &Path,
    copies: &mut Vec<(PathBuf, String)>,
) -> Option<String> {
    let from = dir.join(from.as_deref()?);
    if from.is_file() {
        copies.push((from, to.to_owned()));
    }
    Some(to.to_owned())
}

fn list_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Caught => "caught",
        Verdict::Missed => "missed",
        Verdict::Timeout => "timeout",
        Verdict::Unviable => "unviable",
        Verdict::NotCompiled => "not_compiled",
    }
}

impl Merged {
    /// The exit code of the unsharded run: as `mutiny run`'s.
    pub fn exit_code(&self) -> i32 {
        match self.baseline_failed {
            true => crate::exit_code::BASELINE_FAILED,
            false => self.counts.exit_code(),
        }
    }

    /// Writes the merged `mutants.out/` at `out`, which must not exist or be
    /// empty, with its reports (the sources read from `source_root`, else
    /// as `mutiny report` finds them). Written beside `out` first, so that
    /// `out` appears whole or not at all. Returns the reports' warnings.
    pub fn write(&self, out: &Path, source_root: Option<&Path>) -> Result<Vec<String>> {
        check_output(out)?;
        let name = out
            .file_name()
            .with_context(|| format!("{} names no directory", out.display()))?;
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        let staging = parent.join(format!(
            ".{}.merging-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let written = self.write_into(&staging, source_root).and_then(|warnings| {
            if out.exists() {
                std::fs::remove_dir(out)
                    .with_context(|| format!("cannot replace {}", out.display()))?;
            }
            std::fs::rename(&staging, out)
                .with_context(|| format!("cannot move the merge into {}", out.display()))?;
            Ok(warnings)
        });
        if written.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        written
    }

    fn write_into(&self, dir: &Path, source_root: Option<&Path>) -> Result<Vec<String>> {
        for sub in ["log", "diff"] {
            std::fs::create_dir_all(dir.join(sub))
                .with_context(|| format!("cannot create {}", dir.join(sub).display()))?;
        }
        for (from, to) in &self.copies {
            std::fs::copy(from, dir.join(to))
                .with_context(|| format!("cannot copy {} into the merge", from.display()))?;
        }
        for verdict in VERDICTS {
            let names = &self.lists[list_name(verdict)];
            let text: String = names.iter().map(|name| format!("{name}\n")).collect();
            let path = dir.join(output::list_file(verdict));
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let mutants = serde_json::to_string_pretty(&self.mutants).expect("JSON serializes");
        write_atomically(&dir.join("mutants.json"), &mutants)?;
        let outcomes = serde_json::to_string_pretty(&self.outcomes).expect("JSON serializes");
        write_atomically(&dir.join("outcomes.json"), &outcomes)?;
        if !self.killers.is_empty() {
            let killers = Killers::default();
            killers.learn(self.killers.clone());
            killers.write(&dir.join(killers::FILE_NAME))?;
        }
        write_reports(dir, source_root)
    }
}

/// A merge never mixes with other files: `out` must be new or empty.
pub fn check_output(out: &Path) -> Result<()> {
    if out.exists() {
        let empty = std::fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none());
        if !empty {
            bail!(
                "{} already exists: remove it, or give another -o directory",
                out.display()
            );
        }
    }
    Ok(())
}

/// The reports a run leaves in `mutants.out/` (`report::write_reports`),
/// made from the merged directory, with no system: the shards ran on other
/// machines. Returns what the reader warned of (a missing source file).
fn write_reports(dir: &Path, source_root: Option<&Path>) -> Result<Vec<String>> {
    let mutants_out = MutantsOut::read(dir, source_root)?;
    report::write_reports(dir, &mutants_out, None)?;
    Ok(mutants_out.warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{LineColumn, Span};
    use crate::shard::{Shard, Sharding};

    fn mutant(line: usize, column: usize, what: &str) -> MutantEntry {
        let at = |column| LineColumn { line, column };
        MutantEntry {
            name: format!("src/lib.rs:{line}:{column}: {what}"),
            package: "p".into(),
            file: "src/lib.rs".into(),
            function: None,
            span: Span {
                start: at(column),
                end: at(column + 1),
            },
            replacement: String::new(),
            genre: "FnValue".into(),
            diff: None,
        }
    }

    /// Shard `k` of 2, dealt round-robin from `whole`, in `root/shard-k`,
    /// each mutant with `summaries[i]` and a log saying its name, named as
    /// the shard's run names it.
    fn shard(root: &Path, k: usize, whole: &[MutantEntry], summaries: &[&str]) -> ShardOut {
        let dir = root.join(format!("shard-{k}"));
        std::fs::create_dir_all(dir.join("log")).unwrap();
        std::fs::write(dir.join("log/baseline.log"), "baseline").unwrap();
        let mine: Vec<(MutantEntry, &str)> = Sharding::RoundRobin.select(
            Shard { k, n: 2 },
            whole
                .iter()
                .cloned()
                .zip(summaries.iter().copied())
                .collect(),
        );
        let stems = crate::lab::log_stems_at(
            mine.iter()
                .map(|(m, _)| (m.file.as_str(), m.span.start.line, m.span.start.column)),
        );
        let mut outcomes = vec![OutcomeEntry {
            scenario: ScenarioEntry::Baseline,
            summary: "Success".into(),
            log_path: Some("log/baseline.log".into()),
            diff_path: None,
            phase_results: Vec::new(),
        }];
        for ((mutant, summary), stem) in mine.iter().zip(&stems) {
            let log = format!("log/{stem}.log");
            std::fs::write(dir.join(&log), &mutant.name).unwrap();
            outcomes.push(OutcomeEntry {
                scenario: ScenarioEntry::Mutant(Box::new(mutant.clone())),
                summary: summary.to_string(),
                log_path: Some(log),
                diff_path: None,
                phase_results: Vec::new(),
            });
        }
        ShardOut {
            dir,
            record: ShardRecord {
                shard: Shard { k, n: 2 },
                sharding: Sharding::RoundRobin,
                mutants: whole.len(),
                names_digest: shard::names_digest(whole.iter().map(|m| m.name.as_str())),
                sources_digest: "sources".into(),
            },
            outcomes: OutcomesFile {
                outcomes,
                total_mutants: 0,
                missed: 0,
                caught: 0,
                timeout: 0,
                unviable: 0,
                not_compiled: 0,
                success: 0,
                start_time: format!("2026-01-01T00:00:0{k}Z"),
                end_time: Some(format!("2026-01-01T00:01:0{k}Z")),
                mutiny_version: "0.1.0".into(),
                workspace_root: root.to_owned(),
            },
            mutants: mine.into_iter().map(|(m, _)| m).collect(),
        }
    }

    #[test]
    fn round_robin_shards_merge_in_list_order_with_the_unsharded_log_names() {
        let root = tempfile::tempdir().unwrap();
        // Two mutants at one place, dealt to different shards: each shard
        // named its log `…_col_9.log`; the unsharded run names the second
        // `…_col_9_001.log`.
        let whole = [
            mutant(30, 9, "replace f with true"),
            mutant(30, 9, "replace f with false"),
            mutant(31, 5, "replace g with 0"),
        ];
        let summaries = ["CaughtMutant", "MissedMutant", "MissedMutant"];
        let shards = vec![
            shard(root.path(), 1, &whole, &summaries),
            shard(root.path(), 0, &whole, &summaries),
        ];
        let merged = merge(shards).unwrap();
        let out = root.path().join("merged");
        merged.write(&out, Some(root.path())).unwrap();

        let names: Vec<&str> = whole.iter().map(|m| m.name.as_str()).collect();
        let missed = std::fs::read_to_string(out.join("missed.txt")).unwrap();
        assert_eq!(missed, format!("{}\n{}\n", names[1], names[2]));
        let outcomes: OutcomesFile = read_json(&out.join("outcomes.json")).unwrap();
        let logs: Vec<Option<&str>> = outcomes
            .outcomes
            .iter()
            .map(|o| o.log_path.as_deref())
            .collect();
        assert_eq!(
            logs,
            [
                Some("log/baseline.log"),
                Some("log/src__lib.rs_line_30_col_9.log"),
                Some("log/src__lib.rs_line_30_col_9_001.log"),
                Some("log/src__lib.rs_line_31_col_5.log"),
            ]
        );
        for (log, name) in logs[1..].iter().zip(names) {
            let text = std::fs::read_to_string(out.join(log.unwrap())).unwrap();
            assert_eq!(text, name, "{log:?} is the log of its mutant");
        }
        assert_eq!(
            (outcomes.caught, outcomes.missed, outcomes.total_mutants),
            (1, 2, 3)
        );
        assert_eq!(outcomes.start_time, "2026-01-01T00:00:00Z");
        assert_eq!(outcomes.end_time.as_deref(), Some("2026-01-01T00:01:01Z"));
        assert_eq!(merged.exit_code(), crate::exit_code::FOUND_PROBLEMS);
    }

    #[test]
    fn shards_whose_lists_do_not_add_up_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let whole = [mutant(30, 9, "a"), mutant(31, 5, "b"), mutant(32, 5, "c")];
        let summaries = ["CaughtMutant"; 3];
        let mut edited = shard(root.path(), 1, &whole, &summaries);
        edited.mutants.clear();
        let err = merge(vec![shard(root.path(), 0, &whole, &summaries), edited]).unwrap_err();
        assert!(
            err.to_string()
                .contains("do not add up to the list of 3 mutants"),
            "{err}"
        );
    }
}
