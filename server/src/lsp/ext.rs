//! mutiny's own LSP methods, beyond the protocol, for editor extensions
//! that want more than diagnostics: the texts of a mutant (for a real
//! diff editor) and the state of the job in flight (for a status bar).

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{Range, Uri};

use super::findings::Finding;
use super::to_proto;
use crate::outcome::Verdict;
use crate::position::SourceIndex;

/// Request `mutiny/mutants`: the named mutants among the current findings.
pub const MUTANTS_METHOD: &str = "mutiny/mutants";

#[derive(Debug, Deserialize)]
pub struct MutantsParams {
    pub names: Vec<String>,
}

/// One mutant as `mutiny/mutants` returns it.
#[derive(Debug, Serialize)]
pub struct MutantDetails {
    pub name: String,
    pub uri: Uri,
    pub range: Range,
    pub verdict: Verdict,
    pub diff: String,
    /// The whole file as the mutant was generated from it.
    pub original: String,
    /// The whole file with the mutant applied.
    pub mutated: String,
}

impl MutantDetails {
    pub fn new(uri: Uri, finding: &Finding) -> MutantDetails {
        let mutant = &finding.mutant;
        let original = mutant.source_file.code.to_string();
        let index = SourceIndex::new(&original);
        MutantDetails {
            name: mutant.name.clone(),
            uri,
            range: to_proto::range(&index, finding.byte_range()),
            verdict: finding.verdict,
            diff: mutant.diff(),
            mutated: mutant.mutated_code(),
            original,
        }
    }
}

/// Notification `mutiny/status`, server → client: a job started, a mutant
/// finished, the job ended, or the server was paused or resumed.
pub enum Status {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusParams {
    pub state: State,
    pub done: usize,
    pub total: usize,
    /// What the job tests: a file's path, or `3 files`.
    pub title: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Running,
    Idle,
    /// `mutiny.pause`: nothing is tested and no finding is shown until
    /// `mutiny.resume`.
    Paused,
}

impl StatusParams {
    /// No job counted, none running.
    fn without_job(state: State) -> StatusParams {
        StatusParams {
            state,
            done: 0,
            total: 0,
            title: String::new(),
        }
    }

    pub fn paused() -> StatusParams {
        StatusParams::without_job(State::Paused)
    }

    pub fn idle() -> StatusParams {
        StatusParams::without_job(State::Idle)
    }
}

impl Notification for Status {
    type Params = StatusParams;
    const METHOD: &'static str = "mutiny/status";
}
