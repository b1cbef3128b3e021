//! `mutants.out/`, in cargo-mutants' layout so the tools that read its
//! output read ours: `outcomes.json`, `mutants.json`, one list per verdict,
//! `diff/` and `log/`; for a shard (`--shard`), `shard.json`. Written as
//! the run goes, so a killed run leaves a readable partial result. At the
//! end, `mutation-report.json` and `mutation-report.html` too (the
//! mutation-testing-elements report and the page, made by `report/` from
//! the directory).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::list::{self, MutantJson};
use crate::lock::{self, Lock};
use crate::mutate::Mutant;
use crate::outcome::{
    Counts, Phase, PhaseResult, ProcessStatus, Scenario, ScenarioOutcome, Summary, Verdict,
};
use crate::shard::{self, ShardRecord};

pub const OUTPUT_DIR_NAME: &str = "mutants.out";

/// Rewrite `outcomes.json` at most this often while a run goes on.
const OUTCOMES_REWRITE_INTERVAL: Duration = Duration::from_secs(1);

/// The `mutants.out` directory of a run.
pub struct OutputDir {
    path: PathBuf,
    /// The workspace tested, where the mutants' sources are.
    workspace_root: PathBuf,
    start_time: SystemTime,
    outcomes: Vec<ScenarioOutcome>,
    counts: Counts,
    last_written: Option<Instant>,
    /// Held while the run writes here: another run with the same output
    /// directory waits for it before moving the directory aside.
    _lock: Lock,
}

/// The lock file in `mutants.out` (as cargo-mutants'): which process writes there.
pub const LOCK_FILE_NAME: &str = "lock.json";

impl OutputDir {
    /// Creates `mutants.out` under `parent` for a run of the workspace at
    /// `workspace_root`, moving an existing one to `mutants.out.old`
    /// (replacing an older `.old`) once no other run writes in it.
    pub fn create(parent: &Path, workspace_root: &Path) -> Result<OutputDir> {
        let path = parent.join(OUTPUT_DIR_NAME);
        let lock = loop {
            std::fs::create_dir_all(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let lock = lock::exclusive(&path.join(LOCK_FILE_NAME), || {
                eprintln!(
                    "mutiny: waiting for another mutiny run, which writes {}",
                    path.display()
                )
            })?;
            let holds_a_run = std::fs::read_dir(&path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .flatten()
                .any(|entry| entry.file_name() != LOCK_FILE_NAME);
            if !holds_a_run {
                break lock;
            }
            let old = parent.join(format!("{OUTPUT_DIR_NAME}.old"));
            if old.exists() {
                std::fs::remove_dir_all(&old)
                    .with_context(|| format!("cannot remove {}", old.display()))?;
            }
            std::fs::rename(&path, &old)
                .with_context(|| format!("cannot move {} aside", path.display()))?;
            // The lock moved with the directory: take the new one's.
        };
        let owner = serde_json::json!({
            "mutiny_version": env!("CARGO_PKG_VERSION"),
            "pid": std::process::id(),
            "start_time": timestamp(SystemTime::now()),
        });
        std::fs::write(path.join(LOCK_FILE_NAME), format!("{owner:#}\n"))
            .with_context(|| format!("cannot write in {}", path.display()))?;
        for dir in ["log", "diff"] {
            std::fs::create_dir_all(path.join(dir))
                .with_context(|| format!("cannot create {}", path.join(dir).display()))?;
        }
        for verdict in VERDICTS {
            File::create(path.join(list_file(verdict)))?;
        }
        let mut output = OutputDir {
            path,
            workspace_root: workspace_root.to_owned(),
            start_time: SystemTime::now(),
            outcomes: Vec::new(),
            counts: Counts::default(),
            last_written: None,
            _lock: lock,
        };
        output.write_outcomes(None)?;
        Ok(output)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the lab should write its logs.
    pub fn log_dir(&self) -> PathBuf {
        self.path.join("log")
    }

    /// Writes `mutants.json`: every mutant of the run, with diffs.
    pub fn write_mutants(&self, mutants: &[Arc<Mutant>]) -> Result<()> {
        write_atomically(&self.path.join("mutants.json"), &list::to_json(mutants))
    }

    /// Writes `shard.json`: which shard of which mutant list this run is,
    /// for `mutiny merge`.
    pub fn write_shard(&self, record: &ShardRecord) -> Result<()> {
        let text = serde_json::to_string_pretty(record).expect("shard record serializes");
        write_atomically(&self.path.join(shard::RECORD_FILE_NAME), &text)
    }

    /// Records one finished scenario.
    pub fn add(&mut self, outcome: &ScenarioOutcome) -> Result<()> {
        if let (Scenario::Mutant { mutant, .. }, Some(verdict)) =
            (&outcome.scenario, outcome.verdict())
        {
            let diff_path = self.path.join(diff_path(&outcome.log_path));
            std::fs::write(&diff_path, mutant.diff())
                .with_context(|| format!("cannot write {}", diff_path.display()))?;
            let mut list = File::options()
                .append(true)
                .create(true)
                .open(self.path.join(list_file(verdict)))?;
            writeln!(list, "{}", mutant.name)?;
            self.counts.add(verdict);
        }
        self.outcomes.push(outcome.clone());
        let due = self
            .last_written
            .is_none_or(|t| t.elapsed() >= OUTCOMES_REWRITE_INTERVAL);
        if due {
            self.write_outcomes(None)?;
        }
        Ok(())
    }

    /// Writes the final `outcomes.json`, with the end time, and the
    /// reports, read back from the directory.
    pub fn finish(&mut self) -> Result<()> {
        self.write_outcomes(Some(SystemTime::now()))?;
        crate::report::write_run_report(&self.path, &self.workspace_root)
            .context("cannot write the reports into mutants.out")
    }

    fn write_outcomes(&mut self, end_time: Option<SystemTime>) -> Result<()> {
        let outcomes: Vec<OutcomeJson> = self
            .outcomes
            .iter()
            .map(|o| OutcomeJson::new(o, &self.path))
            .collect();
        let json = OutcomesJson {
            outcomes,
            total_mutants: self.counts.total_mutants,
            missed: self.counts.missed,
            caught: self.counts.caught,
            timeout: self.counts.timeout,
            unviable: self.counts.unviable,
            not_compiled: self.counts.not_compiled,
            success: 0,
            start_time: timestamp(self.start_time),
            end_time: end_time.map(timestamp),
            mutiny_version: env!("CARGO_PKG_VERSION"),
            workspace_root: &self.workspace_root,
        };
        let text = serde_json::to_string_pretty(&json).expect("outcomes serialize");
        write_atomically(&self.path.join("outcomes.json"), &text)?;
        self.last_written = Some(Instant::now());
        Ok(())
    }
}

/// cargo-mutants' four lists, and mutiny's own `not_compiled.txt`.
pub(crate) const VERDICTS: [Verdict; 5] = [
    Verdict::Caught,
    Verdict::Missed,
    Verdict::Timeout,
    Verdict::Unviable,
    Verdict::NotCompiled,
];

pub(crate) fn list_file(verdict: Verdict) -> String {
    format!("{}.txt", verdict.name().replace(' ', "_"))
}

/// `diff/<stem>.diff` for a log at `.../log/<stem>.log`.
fn diff_path(log_path: &Path) -> String {
    let stem = log_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("diff/{stem}.diff")
}

fn timestamp(time: SystemTime) -> String {
    humantime::format_rfc3339_nanos(time).to_string()
}

/// How old a temporary file of [`write_atomically`] must be before it is
/// taken for one a killed writer left: a live writer renames its file
/// within moments.
const STALE_TEMPORARY: Duration = Duration::from_secs(600);

/// How [`write_atomically`] names its temporary files, and the sweep finds them.
const TEMPORARY_PREFIX: &str = ".mutiny-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// Removes from `dir` the temporary files of [`write_atomically`] that
/// writers killed between writing and renaming left; returns how many.
pub(crate) fn sweep_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let stale = |entry: &std::fs::DirEntry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        name.starts_with(TEMPORARY_PREFIX)
            && name.ends_with(TEMPORARY_SUFFIX)
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age > STALE_TEMPORARY)
    };
    entries
        .flatten()
        .filter(|entry| stale(entry) && std::fs::remove_file(entry.path()).is_ok())
        .count()
}

/// Readers never see a half-written file: write aside, then rename.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<()> {
    // A temporary file of this writer's own beside the target: two writers
    // at once each rename a whole file into place.
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMPORARY_PREFIX).suffix(TEMPORARY_SUFFIX);
    // Readable like any file written plainly (a temporary file is 0600).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let mut temporary = builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    temporary
        .write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", temporary.path().display()))?;
    temporary
        .persist(path)
        .map_err(|err| err.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[derive(Serialize)]
struct OutcomesJson<'a> {
    outcomes: Vec<OutcomeJson<'a>>,
    total_mutants: usize,
    missed: usize,
    caught: usize,
    timeout: usize,
    unviable: usize,
    /// mutiny's own: mutants in code not compiled for this target, not
    /// tested (nor counted in `total_mutants`).
    not_compiled: usize,
    success: usize,
    start_time: String,
    end_time: Option<String>,
    mutiny_version: &'static str,
    /// mutiny's own: the workspace tested, where `mutiny report` looks
    /// for the sources first.
    workspace_root: &'a Path,
}

#[derive(Serialize)]
struct OutcomeJson<'a> {
    scenario: ScenarioJson<'a>,
    summary: Summary,
    log_path: String,
    diff_path: Option<String>,
    phase_results: Vec<PhaseJson<'a>>,
}

impl<'a> OutcomeJson<'a> {
    fn new(outcome: &'a ScenarioOutcome, output_dir: &Path) -> OutcomeJson<'a> {
        let log_path = outcome
            .log_path
            .strip_prefix(output_dir)
            .unwrap_or(&outcome.log_path)
            .to_string_lossy()
            .replace('\\', "/");
        let (scenario, diff_path) = match &outcome.scenario {
            Scenario::Baseline => (ScenarioJson::Baseline, None),
            Scenario::Mutant { mutant, .. } => (
                ScenarioJson::Mutant(MutantJson::without_diff(mutant)),
                Some(diff_path(&outcome.log_path)),
            ),
        };
        OutcomeJson {
            scenario,
            summary: outcome.summary(),
            log_path,
            diff_path,
            phase_results: outcome.phase_results.iter().map(PhaseJson::new).collect(),
        }
    }
}

#[derive(Serialize)]
enum ScenarioJson<'a> {
    Baseline,
    Mutant(MutantJson<'a>),
}

#[derive(Serialize)]
struct PhaseJson<'a> {
    phase: Phase,
    duration: f64,
    process_status: ProcessStatus,
    argv: &'a [String],
}

impl<'a> PhaseJson<'a> {
    fn new(result: &'a PhaseResult) -> PhaseJson<'a> {
        PhaseJson {
            phase: result.phase,
            duration: result.duration.as_secs_f64(),
            process_status: result.process_status,
            argv: &result.argv,
        }
    }
}

#[cfg(test)]
mod tests {
    /// Writers at once each put a whole file in place (they once shared
    /// one temporary name, so one could rename the other's half-written
    /// text), readable by others like a plainly written file.
    #[test]
    fn writers_at_once_leave_one_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outcomes.json");
        let texts: Vec<String> = (0..6).map(|i| format!("{i}").repeat(1 << 18)).collect();
        let whole =
            |read: &str| read.len() == 1 << 18 && read.bytes().all(|b| b == read.as_bytes()[0]);
        std::thread::scope(|scope| {
            for text in &texts {
                let path = &path;
                scope.spawn(move || {
                    for _ in 0..20 {
                        super::write_atomically(path, text).unwrap();
                        let read = std::fs::read_to_string(path).unwrap();
                        assert!(whole(&read), "a torn file of {} bytes", read.len());
                    }
                });
            }
        });
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "temporary files left: {left:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o044, 0o044, "{mode:o}");
        }
    }

    #[test]
    fn temporaries_a_killed_writer_left_are_swept_and_fresh_ones_kept() {
        use super::{sweep_stale_temporaries, STALE_TEMPORARY};
        use std::fs::File;
        use std::time::{Duration, SystemTime};
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(".mutiny-abc123.tmp");
        let fresh = dir.path().join(".mutiny-def456.tmp");
        let other = dir.path().join("results.json");
        for path in [&old, &fresh, &other] {
            std::fs::write(path, "{").unwrap();
        }
        let long_ago = SystemTime::now() - STALE_TEMPORARY - Duration::from_secs(60);
        for path in [&old, &other] {
            File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        assert_eq!(sweep_stale_temporaries(dir.path()), 1);
        assert!(!old.exists());
        assert!(fresh.exists() && other.exists());
    }
}
