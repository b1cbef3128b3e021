//! The files of a `mutants.out/` that `mutiny run` wrote, typed both ways,
//! so that a merge reads them and writes them back in the same layout,
//! field for field (`output.rs` writes them from the engine's values).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mutate::Function;
use crate::outcome::Verdict;
use crate::position::Span;

/// `outcomes.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutcomesFile {
    pub outcomes: Vec<OutcomeEntry>,
    pub total_mutants: usize,
    pub missed: usize,
    pub caught: usize,
    pub timeout: usize,
    pub unviable: usize,
    #[serde(default)]
    pub not_compiled: usize,
    pub success: usize,
    pub start_time: String,
    pub end_time: Option<String>,
    pub mutiny_version: String,
    pub workspace_root: PathBuf,
}

/// One scenario's outcome in `outcomes.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutcomeEntry {
    pub scenario: ScenarioEntry,
    pub summary: String,
    pub log_path: Option<String>,
    pub diff_path: Option<String>,
    pub phase_results: Vec<PhaseEntry>,
}

impl OutcomeEntry {
    /// The verdict its summary says; `None` for the baseline's.
    pub fn verdict(&self) -> Option<Verdict> {
        Some(match self.summary.as_str() {
            "CaughtMutant" => Verdict::Caught,
            "MissedMutant" => Verdict::Missed,
            "Timeout" => Verdict::Timeout,
            "Unviable" => Verdict::Unviable,
            "NotCompiled" => Verdict::NotCompiled,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ScenarioEntry {
    Baseline,
    Mutant(Box<MutantEntry>),
}

/// A mutant as `mutants.json` lists it (with its diff) and as
/// `outcomes.json` names it (without).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MutantEntry {
    pub name: String,
    pub package: String,
    pub file: String,
    pub function: Option<Function>,
    pub span: Span,
    pub replacement: String,
    pub genre: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhaseEntry {
    pub phase: String,
    pub duration: f64,
    /// `"Success"`, `{"Failure": 101}`, `"Timeout"`…
    pub process_status: Value,
    pub argv: Vec<String>,
}
