//! The mutation-testing-elements report, schema version 2: the JSON that
//! Stryker writes and that the elements HTML viewer, the Stryker dashboard
//! and PIT's report plugin read
//! (<https://github.com/stryker-mutator/mutation-testing-elements>, the
//! `mutation-testing-report-schema` npm package).
//!
//! Positions are mutiny's spans as they are: 1-based lines and 1-based
//! char columns, end exclusive, as the schema's `location` wants.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{MutantsOut, ReportedMutant};
use crate::outcome::Verdict;
use crate::position::Span;

/// The report as JSON text.
///
/// `system` describes the machine that tested the mutants: `mutiny run`
/// knows it is this one; a report made later from a directory (perhaps
/// from CI) cannot know, and leaves it out.
pub fn render(mutants_out: &MutantsOut, system: Option<System>) -> String {
    let mut files: BTreeMap<&str, FileResult> = BTreeMap::new();
    for (path, source) in &mutants_out.sources {
        files.insert(
            path,
            FileResult {
                language: "rust",
                source: source.text().unwrap_or_default(),
                mutants: Vec::new(),
            },
        );
    }
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    for mutant in &mutants_out.mutants {
        // cargo-mutants lists a file declared twice twice: same names.
        let seen = ids.entry(&mutant.name).or_default();
        let id = match *seen {
            0 => mutant.name.clone(),
            n => format!("{} #{}", mutant.name, n + 1),
        };
        *seen += 1;
        let file = files.entry(&mutant.file).or_insert_with(|| FileResult {
            language: "rust",
            source: "",
            mutants: Vec::new(),
        });
        file.mutants.push(MutantResult::new(mutant, id));
    }
    let report = Report {
        schema_version: "2",
        thresholds: Thresholds { high: 80, low: 60 },
        project_root: mutants_out
            .source_root
            .as_ref()
            .and_then(|root| root.canonicalize().ok())
            .map(|root| root.display().to_string()),
        files,
        framework: Framework {
            name: mutants_out.tool.name.clone(),
            version: mutants_out.tool.version.clone(),
        },
        system,
    };
    serde_json::to_string_pretty(&report).expect("report serializes") + "\n"
}

/// The elements status of a verdict; `None`, not tested, is `Ignored`.
pub fn status(mutant: &ReportedMutant) -> &'static str {
    match mutant.verdict {
        Some(Verdict::Caught) => "Killed",
        // Stryker's word for a mutant no test covers.
        Some(Verdict::Missed) if mutant.unreached => "NoCoverage",
        Some(Verdict::Missed) => "Survived",
        Some(Verdict::Timeout) => "Timeout",
        Some(Verdict::Unviable) => "CompileError",
        Some(Verdict::NotCompiled) | None => "Ignored",
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    schema_version: &'static str,
    thresholds: Thresholds,
    #[serde(skip_serializing_if = "Option::is_none")]
    project_root: Option<String>,
    files: BTreeMap<&'a str, FileResult<'a>>,
    framework: Framework,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<System>,
}

#[derive(Serialize)]
struct Thresholds {
    high: u8,
    low: u8,
}

#[derive(Serialize)]
struct FileResult<'a> {
    language: &'static str,
    source: &'a str,
    mutants: Vec<MutantResult<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MutantResult<'a> {
    id: String,
    mutator_name: &'a str,
    replacement: &'a str,
    description: &'a str,
    location: Location,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_reason: Option<&'a str>,
    /// Milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    duration: Option<u64>,
}

impl<'a> MutantResult<'a> {
    fn new(mutant: &'a ReportedMutant, id: String) -> MutantResult<'a> {
        MutantResult {
            id,
            mutator_name: &mutant.genre,
            replacement: &mutant.replacement,
            description: mutant.description(),
            location: Location::new(mutant.span),
            status: status(mutant),
            status_reason: mutant.reason.as_deref(),
            duration: mutant
                .duration
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        }
    }
}

#[derive(Serialize)]
struct Location {
    start: Position,
    end: Position,
}

impl Location {
    fn new(span: Span) -> Location {
        Location {
            start: Position {
                line: span.start.line,
                column: span.start.column,
            },
            end: Position {
                line: span.end.line,
                column: span.end.column,
            },
        }
    }
}

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct Framework {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
}

/// The machine that tested the mutants.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct System {
    ci: bool,
    os: Os,
    cpu: Cpu,
}

#[derive(Debug, Clone, Serialize)]
struct Os {
    platform: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Cpu {
    logical_cores: usize,
}

impl System {
    /// This machine; `ci` when the `CI` variable says so (GitHub Actions,
    /// GitLab and most others set `CI=true`).
    pub fn this_machine() -> System {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        // Node's names, which the schema's examples and Stryker use.
        let platform = match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "win32",
            other => other,
        };
        System {
            ci,
            os: Os { platform },
            cpu: Cpu {
                logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            },
        }
    }
}
