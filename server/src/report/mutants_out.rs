//! Reading a `mutants.out/` directory, written by `mutiny run` or by
//! `cargo mutants` (the same schema), and the source files its mutants
//! were made from. The only part of `report/` that does IO besides
//! writing the result.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::mutate::Function;
use crate::outcome::{failing_tests, Counts, Verdict};
use crate::output::OUTPUT_DIR_NAME;
use crate::position::{SourceIndex, Span};

/// What a `mutants.out/` holds, with the sources of its mutants.
#[derive(Debug, Clone)]
pub struct MutantsOut {
    /// The directory read.
    pub dir: PathBuf,
    /// What tested the mutants: `mutiny` or `cargo-mutants`, and its version.
    pub tool: Tool,
    /// Every mutant of the run: in `mutants.json`'s order (generation
    /// order), then any outcome `mutants.json` does not list.
    pub mutants: Vec<ReportedMutant>,
    /// Whether the unmutated tree failed, so that no mutant was tested.
    pub baseline_failed: bool,
    /// Each mutated file's text, by its path as the mutants name it.
    pub sources: BTreeMap<String, Source>,
    /// The directory the first source file was found in.
    pub source_root: Option<PathBuf>,
    /// What the reader could not do, for the user (a missing source file,
    /// one changed since the run).
    pub warnings: Vec<String>,
}

/// The tool that wrote the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    pub version: Option<String>,
}

/// One mutant and what became of it.
#[derive(Debug, Clone)]
pub struct ReportedMutant {
    /// `src/lib.rs:30:20: replace > with == in Version::is_stable`.
    pub name: String,
    pub package: String,
    pub file: String,
    pub function: Option<Function>,
    pub span: Span,
    pub replacement: String,
    /// `FnValue`, `BinaryOperator`…; a string, so that a genre of a newer
    /// cargo-mutants is reported rather than refused.
    pub genre: String,
    /// `None`: not tested (the run stopped first, or its baseline failed).
    pub verdict: Option<Verdict>,
    /// Missed without a test run: no test reached its code (mutiny's
    /// compile-once path).
    pub unreached: bool,
    /// The time its commands took, if any ran.
    pub duration: Option<Duration>,
    /// Why it got its verdict, as far as its log tells.
    pub reason: Option<String>,
    /// Its unified diff, from `mutants.json` or `diff/`.
    pub diff: Option<String>,
}

impl ReportedMutant {
    /// The name without the place: `replace > with == in Version::is_stable`.
    pub fn description(&self) -> &str {
        let place = format!(
            "{}:{}:{}: ",
            self.file, self.span.start.line, self.span.start.column
        );
        self.name.strip_prefix(&place).unwrap_or(&self.name)
    }

    pub fn function_name(&self) -> Option<&str> {
        self.function.as_ref().map(|f| f.function_name.as_str())
    }
}

/// A source file, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Text(String),
    Missing(String),
}

impl Source {
    pub fn text(&self) -> Option<&str> {
        match self {
            Source::Text(text) => Some(text),
            Source::Missing(_) => None,
        }
    }
}

impl MutantsOut {
    /// Reads `path`: a `mutants.out/` directory or the directory holding
    /// one. Sources are read relative to `source_root` if given; else
    /// relative to the workspace root `outcomes.json` records (mutiny's),
    /// then to the directory holding `mutants.out/` (where both tools
    /// write it by default).
    pub fn read(path: &Path, source_root: Option<&Path>) -> Result<MutantsOut> {
        let dir = locate(path)?;
        let outcomes_path = dir.join("outcomes.json");
        let text = std::fs::read_to_string(&outcomes_path)
            .with_context(|| format!("cannot read {}", outcomes_path.display()))?;
        let outcomes: OutcomesFile = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not an outcomes file of mutiny or cargo-mutants",
                outcomes_path.display()
            )
        })?;
        let listed = read_listed(&dir)?;

        let tool = match (&outcomes.mutiny_version, &outcomes.cargo_mutants_version) {
            (Some(version), _) => Tool {
                name: "mutiny".into(),
                version: Some(version.clone()),
            },
            (None, version) => Tool {
                name: "cargo-mutants".into(),
                version: version.clone(),
            },
        };
        let baseline_failed = outcomes
            .outcomes
            .iter()
            .any(|o| matches!(o.scenario, ScenarioEntry::Baseline) && o.summary != "Success");

        let mut warnings = Vec::new();
        let mut tested: HashMap<String, VecDeque<OutcomeEntry>> = HashMap::new();
        let mut tested_order: Vec<String> = Vec::new();
        for outcome in outcomes.outcomes {
            if let ScenarioEntry::Mutant(mutant) = &outcome.scenario {
                let name = mutant.name.clone();
                if !tested.contains_key(&name) {
                    tested_order.push(name.clone());
                }
                tested.entry(name).or_default().push_back(outcome);
            }
        }

        let mut mutants = Vec::new();
        for ListedMutant { mutant, diff } in listed.unwrap_or_default() {
            let outcome = tested.get_mut(&mutant.name).and_then(VecDeque::pop_front);
            let found = match outcome {
                Some(outcome) => reported(&dir, outcome, &mut warnings),
                None => Some(untested(mutant, baseline_failed)),
            };
            if let Some(mut found) = found {
                found.diff = found.diff.or(diff);
                mutants.push(found);
            }
        }
        for name in tested_order {
            for outcome in tested.remove(&name).unwrap_or_default() {
                mutants.extend(reported(&dir, outcome, &mut warnings));
            }
        }

        let roots: Vec<PathBuf> = match source_root {
            Some(root) => vec![root.to_owned()],
            None => {
                let mut roots: Vec<PathBuf> = outcomes.workspace_root.into_iter().collect();
                if let Some(parent) = dir.parent() {
                    let parent = match parent.as_os_str().is_empty() {
                        true => PathBuf::from("."),
                        false => parent.to_owned(),
                    };
                    roots.push(parent);
                }
                roots
            }
        };
        let (sources, source_root) = read_sources(&mutants, &roots, &mut warnings);
        Ok(MutantsOut {
            dir,
            tool,
            mutants,
            baseline_failed,
            sources,
            source_root,
            warnings,
        })
    }

    /// The counts of the tested mutants, as `mutiny run` prints them.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for verdict in self.mutants.iter().filter_map(|m| m.verdict) {
            counts.add(verdict);
        }
        counts
    }

    /// How many mutants were listed but never tested.
    pub fn not_tested(&self) -> usize {
        self.mutants.iter().filter(|m| m.verdict.is_none()).count()
    }
}

/// The `mutants.out/` directory `path` names: itself, or the one in it.
pub fn locate(path: &Path) -> Result<PathBuf> {
    if path.join("outcomes.json").is_file() {
        return Ok(path.to_owned());
    }
    let inner = path.join(OUTPUT_DIR_NAME);
    if inner.join("outcomes.json").is_file() {
        return Ok(inner);
    }
    if !path.exists() {
        bail!(
            "{} does not exist: give the mutants.out directory that `mutiny run` or \
             `cargo mutants` wrote, or the directory holding it",
            path.display()
        );
    }
    bail!(
        "no outcomes.json in {} nor in {}: give the mutants.out directory that \
         `mutiny run` or `cargo mutants` wrote, or the directory holding it",
        path.display(),
        inner.display()
    )
}

/// `mutants.json`, if the directory has one.
fn read_listed(dir: &Path) -> Result<Option<Vec<ListedMutant>>> {
    let path = dir.join("mutants.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let listed = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a list of mutants of mutiny or cargo-mutants",
            path.display()
        )
    })?;
    Ok(Some(listed))
}

/// A tested mutant from its outcome; `None` for an outcome that is not a
/// mutant's, or whose summary this reader does not know (with a warning).
fn reported(
    dir: &Path,
    outcome: OutcomeEntry,
    warnings: &mut Vec<String>,
) -> Option<ReportedMutant> {
    let ScenarioEntry::Mutant(mutant) = outcome.scenario else {
        return None;
    };
    let verdict = match outcome.summary.as_str() {
        "CaughtMutant" => Verdict::Caught,
        "MissedMutant" => Verdict::Missed,
        "Timeout" => Verdict::Timeout,
        "Unviable" => Verdict::Unviable,
        "NotCompiled" => Verdict::NotCompiled,
        other => {
            warnings.push(format!(
                "{}: unknown summary {other:?}, left out of the report",
                mutant.name
            ));
            return None;
        }
    };
    let log = outcome
        .log_path
        .as_ref()
        .and_then(|p| std::fs::read_to_string(dir.join(p)).ok());
    let diff = outcome
        .diff_path
        .as_ref()
        .and_then(|p| std::fs::read_to_string(dir.join(p)).ok());
    let duration = (!outcome.phase_results.is_empty()).then(|| {
        Duration::from_secs_f64(
            outcome
                .phase_results
                .iter()
                .map(|p| p.duration.max(0.0))
                .sum(),
        )
    });
    let timed_out_phase = outcome
        .phase_results
        .iter()
        .find(|p| p.process_status == "Timeout")
        .map(|p| p.phase.to_lowercase());
    let unreached =
        verdict == Verdict::Missed && log.as_deref().is_some_and(|l| l.contains(UNREACHED_IN_LOG));
    let reason = reason(verdict, log.as_deref(), timed_out_phase.as_deref());
    Some(ReportedMutant {
        verdict: Some(verdict),
        unreached,
        duration,
        reason,
        diff,
        ..from_entry(*mutant)
    })
}

/// What `lab/switched` writes in the log of a mutant no test reached.
const UNREACHED_IN_LOG: &str = "no test reached this mutant's code";

fn untested(mutant: MutantEntry, baseline_failed: bool) -> ReportedMutant {
    let why = match baseline_failed {
        true => "not tested: the unmutated tree failed its tests",
        false => "not tested: the run ended before this mutant",
    };
    ReportedMutant {
        reason: Some(why.into()),
        ..from_entry(mutant)
    }
}

fn from_entry(mutant: MutantEntry) -> ReportedMutant {
    ReportedMutant {
        name: mutant.name,
        package: mutant.package,
        file: mutant.file,
        function: mutant.function,
        span: mutant.span,
        replacement: mutant.replacement,
        genre: mutant.genre,
        verdict: None,
        unreached: false,
        duration: None,
        reason: None,
        diff: None,
    }
}

/// Why a mutant got its verdict, from its log where there is one.
fn reason(verdict: Verdict, log: Option<&str>, timed_out_phase: Option<&str>) -> Option<String> {
    let said = |prefix: &str| {
        log.and_then(|l| {
            l.lines()
                .rev()
                .find_map(|line| line.strip_prefix(prefix))
                .map(str::to_owned)
        })
    };
    Some(match verdict {
        Verdict::Caught => match log.map(failing_tests) {
            Some(tests) if !tests.is_empty() => format!("failed: {}", tests.join(", ")),
            _ => "a test failed".into(),
        },
        Verdict::Missed if log.is_some_and(|l| l.contains(UNREACHED_IN_LOG)) => {
            "no test reached this code".into()
        }
        Verdict::Missed => "every test passed".into(),
        Verdict::Timeout => format!(
            "the {} ran past the timeout",
            match timed_out_phase {
                Some("build") => "build",
                _ => "tests",
            }
        ),
        Verdict::Unviable => said("*** unviable without a build: ")
            .or_else(|| {
                log.and_then(|l| {
                    l.lines()
                        .find(|line| line.starts_with("error[") || line.starts_with("error:"))
                        .map(|line| format!("does not build: {line}"))
                })
            })
            .unwrap_or_else(|| "does not build".into()),
        Verdict::NotCompiled => said("*** not tested: ")
            .unwrap_or_else(|| "its code is not compiled for this target".into()),
    })
}

/// Each mutated file's text, and the root the first was found in.
fn read_sources(
    mutants: &[ReportedMutant],
    roots: &[PathBuf],
    warnings: &mut Vec<String>,
) -> (BTreeMap<String, Source>, Option<PathBuf>) {
    let mut sources = BTreeMap::new();
    let mut found_root: Option<PathBuf> = None;
    for mutant in mutants {
        if sources.contains_key(&mutant.file) {
            continue;
        }
        let found = roots
            .iter()
            .map(|root| (root, root.join(&mutant.file)))
            .find(|(_, path)| path.is_file());
        let source = match found {
            Some((root, path)) => match std::fs::read(&path) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => {
                        found_root.get_or_insert_with(|| root.clone());
                        Source::Text(text)
                    }
                    Err(_) => Source::Missing(format!("{} is not UTF-8", path.display())),
                },
                Err(err) => Source::Missing(format!("cannot read {}: {err}", path.display())),
            },
            None => Source::Missing(format!(
                "not found under {}",
                roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" nor ")
            )),
        };
        if let Source::Missing(why) = &source {
            warnings.push(format!(
                "source file {}: {why}; its mutants are reported without it \
                 (give the workspace with --dir)",
                mutant.file
            ));
        }
        sources.insert(mutant.file.clone(), source);
    }
    for (file, source) in &sources {
        let Source::Text(text) = source else { continue };
        let changed = mutants
            .iter()
            .filter(|m| &m.file == file)
            .any(|m| !fits(m, text));
        if changed {
            warnings.push(format!(
                "source file {file} has changed since its mutants were tested (it no longer \
                 matches their diffs): places in the report may be off"
            ));
        }
    }
    (sources, found_root)
}

/// Whether `text` is the text the mutant was made from, as far as its
/// span and recorded diff show.
fn fits(mutant: &ReportedMutant, text: &str) -> bool {
    let index = SourceIndex::new(text);
    let in_text =
        index.offset_of(mutant.span.start).is_some() && index.offset_of(mutant.span.end).is_some();
    in_text
        && mutant
            .diff
            .as_deref()
            .is_none_or(|diff| diff_applies(diff, text))
}

/// Whether the original side of a unified diff (its context and removed
/// lines) is what `text` holds at the lines its hunks name.
pub fn diff_applies(diff: &str, text: &str) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let mut at: Option<usize> = None;
    for line in diff.lines() {
        if let Some(header) = line.strip_prefix("@@ -") {
            let start = header
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse::<usize>().ok());
            match start {
                Some(start) => at = Some(start.saturating_sub(1)),
                None => return false,
            }
            continue;
        }
        let Some(next) = at.as_mut() else { continue };
        let original = line
            .strip_prefix(' ')
            .or_else(|| line.strip_prefix('-'))
            .or((line.is_empty()).then_some(""));
        if let Some(original) = original {
            if lines.get(*next) != Some(&original) {
                return false;
            }
            *next += 1;
        }
    }
    true
}

#[derive(Deserialize)]
struct OutcomesFile {
    outcomes: Vec<OutcomeEntry>,
    #[serde(default)]
    cargo_mutants_version: Option<String>,
    #[serde(default)]
    mutiny_version: Option<String>,
    /// mutiny's own: where the run's workspace was.
    #[serde(default)]
    workspace_root: Option<PathBuf>,
}

#[derive(Deserialize)]
struct OutcomeEntry {
    scenario: ScenarioEntry,
    summary: String,
    #[serde(default)]
    log_path: Option<String>,
    #[serde(default)]
    diff_path: Option<String>,
    #[serde(default)]
    phase_results: Vec<PhaseEntry>,
}

#[derive(Deserialize)]
enum ScenarioEntry {
    Baseline,
    Mutant(Box<MutantEntry>),
}

#[derive(Deserialize)]
struct MutantEntry {
    name: String,
    #[serde(default)]
    package: String,
    file: String,
    #[serde(default)]
    function: Option<Function>,
    span: Span,
    #[serde(default)]
    replacement: String,
    genre: String,
}

#[derive(Deserialize)]
struct ListedMutant {
    #[serde(flatten)]
    mutant: MutantEntry,
    #[serde(default)]
    diff: Option<String>,
}

#[derive(Deserialize)]
struct PhaseEntry {
    phase: String,
    #[serde(default)]
    duration: f64,
    /// `"Success"`, `{"Failure": 101}`, `"Timeout"`, `{"Signalled": 9}`.
    #[serde(default)]
    process_status: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "fn a() -> bool {\n    x > 0\n}\n";

    #[test]
    fn a_diff_applies_to_the_text_it_was_made_from_and_not_to_a_changed_one() {
        let diff = "--- src/lib.rs\n+++ replace > with < in a\n@@ -1,3 +1,3 @@\n \
                    fn a() -> bool {\n-    x > 0\n+    x < 0\n }\n";
        assert!(diff_applies(diff, TEXT));
        assert!(!diff_applies(diff, "fn a() -> bool {\n    x >= 0\n}\n"));
        assert!(!diff_applies(diff, "\n\nfn a() -> bool {\n    x > 0\n}\n"));
    }

    fn mutant_json(line: usize) -> serde_json::Value {
        serde_json::json!({
            "name": format!("src/lib.rs:{line}:5: replace > with < in a"),
            "package": "p",
            "file": "src/lib.rs",
            "function": null,
            "span": {"start": {"line": line, "column": 5}, "end": {"line": line, "column": 6}},
            "replacement": "<",
            "genre": "BinaryOperator",
        })
    }

    /// A `mutants.out/` listing mutants at lines 2 and 3, with these
    /// outcomes, beside the `src/lib.rs` they were made from.
    fn read_with(outcomes: serde_json::Value) -> MutantsOut {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("mutants.out");
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::create_dir(&out).unwrap();
        let text = "fn a() -> bool {\n    x > 0\n    x > 0\n}\n";
        std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
        let listed = serde_json::json!([mutant_json(2), mutant_json(3)]);
        std::fs::write(out.join("mutants.json"), listed.to_string()).unwrap();
        std::fs::write(out.join("outcomes.json"), outcomes.to_string()).unwrap();
        MutantsOut::read(dir.path(), None).unwrap()
    }

    #[test]
    fn mutants_of_a_run_whose_baseline_failed_are_not_tested_and_say_why() {
        let read = read_with(serde_json::json!({"outcomes": [
            {"scenario": "Baseline", "summary": "Failure", "phase_results": []},
        ]}));
        assert!(read.baseline_failed);
        assert_eq!(read.not_tested(), 2);
        assert_eq!(
            read.mutants[0].reason.as_deref(),
            Some("not tested: the unmutated tree failed its tests")
        );
        assert_eq!(read.warnings, Vec::<String>::new());
    }

    #[test]
    fn an_interrupted_run_keeps_mutants_json_order_and_its_untested_mutants() {
        let read = read_with(serde_json::json!({"outcomes": [
            {"scenario": "Baseline", "summary": "Success"},
            {"scenario": {"Mutant": mutant_json(3)}, "summary": "CaughtMutant",
             "phase_results": [{"phase": "Build", "duration": 0.5, "process_status": "Success"},
                               {"phase": "Test", "duration": 0.25, "process_status": {"Failure": 101}}]},
        ], "cargo_mutants_version": "27.1.0"}));
        assert_eq!(read.tool.name, "cargo-mutants");
        let verdicts: Vec<Option<Verdict>> = read.mutants.iter().map(|m| m.verdict).collect();
        assert_eq!(verdicts, [None, Some(Verdict::Caught)]);
        assert_eq!(read.mutants[1].duration, Some(Duration::from_millis(750)));
        assert_eq!(
            read.mutants[0].reason.as_deref(),
            Some("not tested: the run ended before this mutant")
        );
        assert_eq!(read.mutants[1].description(), "replace > with < in a");
    }

    #[test]
    fn an_unknown_summary_is_left_out_with_a_warning() {
        let read = read_with(serde_json::json!({"outcomes": [
            {"scenario": {"Mutant": mutant_json(2)}, "summary": "Exploded"},
        ]}));
        assert_eq!(read.mutants.len(), 1, "only the untested one at line 3");
        assert!(
            read.warnings[0].contains("unknown summary \"Exploded\""),
            "{:?}",
            read.warnings
        );
    }

    #[test]
    fn reasons_come_from_logs_where_they_say_more() {
        let caught_log = "test tests::one ... ok\ntest tests::two ... FAILED\n";
        assert_eq!(
            reason(Verdict::Caught, Some(caught_log), None).unwrap(),
            "failed: tests::two"
        );
        assert_eq!(
            reason(Verdict::Caught, None, None).unwrap(),
            "a test failed"
        );
        let unviable_log = "*** x\n   Compiling x\nerror[E0308]: mismatched types\n";
        assert_eq!(
            reason(Verdict::Unviable, Some(unviable_log), None).unwrap(),
            "does not build: error[E0308]: mismatched types"
        );
        let judged = "*** x\n*** unviable without a build: rust-analyzer shows it cannot compile: `Ordering` does not implement `Default`\n";
        assert_eq!(
            reason(Verdict::Unviable, Some(judged), None).unwrap(),
            "rust-analyzer shows it cannot compile: `Ordering` does not implement `Default`"
        );
        assert_eq!(
            reason(Verdict::Timeout, None, Some("build")).unwrap(),
            "the build ran past the timeout"
        );
    }
}
