//! Outcomes: what happened when a scenario (the baseline or one mutant) was
//! built and tested, in cargo-mutants' vocabulary so its reports can be
//! written unchanged.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exit_code;
use crate::mutate::Mutant;

/// The commands run for one scenario, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Phase {
    /// `cargo test --no-run`: build the tests.
    Build,
    /// Run the tests.
    Test,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Build => "build",
            Phase::Test => "test",
        }
    }
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProcessStatus {
    Success,
    Failure(i32),
    /// Ran past its timeout and was killed with its process group.
    Timeout,
    /// Killed by a signal it did not get from us.
    Signalled(i32),
}

impl ProcessStatus {
    pub fn is_success(self) -> bool {
        self == ProcessStatus::Success
    }
}

/// One command's result.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseResult {
    pub phase: Phase,
    pub duration: Duration,
    pub process_status: ProcessStatus,
    pub argv: Vec<String>,
}

/// What was built and tested.
#[derive(Debug, Clone)]
pub enum Scenario {
    /// The unmutated tree.
    Baseline,
    /// One mutant, with its index in the list the lab was given.
    Mutant { index: usize, mutant: Arc<Mutant> },
}

impl Scenario {
    pub fn mutant(&self) -> Option<&Mutant> {
        match self {
            Scenario::Baseline => None,
            Scenario::Mutant { mutant, .. } => Some(mutant),
        }
    }
}

/// The verdict on a mutant, as users read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// A test failed: the tests notice this change.
    Caught,
    /// Every test passed: no test checks this behaviour.
    Missed,
    /// The tests ran past the timeout (often an infinite loop).
    Timeout,
    /// The mutant does not build.
    Unviable,
    /// Its code is not compiled for this target and features (a `cfg`
    /// that is off): no test here can run it. Not tested.
    #[serde(rename = "not_compiled")]
    NotCompiled,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Caught => "caught",
            Verdict::Missed => "missed",
            Verdict::Timeout => "timeout",
            Verdict::Unviable => "unviable",
            Verdict::NotCompiled => "not compiled",
        }
    }
}

/// cargo-mutants' one-word summary of a scenario, as `outcomes.json` has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Summary {
    Success,
    CaughtMutant,
    MissedMutant,
    Unviable,
    Failure,
    Timeout,
    /// mutiny's own: not compiled for this target, not tested.
    NotCompiled,
}

/// The result of building and testing one scenario.
#[derive(Debug, Clone)]
pub struct ScenarioOutcome {
    pub scenario: Scenario,
    /// The log holding every command and its output.
    pub log_path: PathBuf,
    pub phase_results: Vec<PhaseResult>,
    /// What rust-analyzer showed about this mutant, which was then never
    /// built.
    pub judged: Option<Judged>,
}

/// A verdict rust-analyzer's analysis gives without a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// It cannot compile, and why.
    Unviable(String),
    /// Its code is not compiled for this target, and why (the cfg).
    NotCompiled(String),
}

impl ScenarioOutcome {
    fn last(&self) -> Option<&PhaseResult> {
        self.phase_results.last()
    }

    pub fn success(&self) -> bool {
        self.last().is_some_and(|r| r.process_status.is_success())
    }

    fn timed_out(&self) -> bool {
        self.phase_results
            .iter()
            .any(|r| r.process_status == ProcessStatus::Timeout)
    }

    /// A build that ran past its timeout is not unviable: cargo-mutants
    /// calls it a timeout, like a test that did.
    fn build_failed(&self) -> bool {
        self.phase_results.iter().any(|r| {
            r.phase == Phase::Build
                && !r.process_status.is_success()
                && r.process_status != ProcessStatus::Timeout
        })
    }

    /// The first command that did not succeed, if any.
    pub fn failed_phase(&self) -> Option<&PhaseResult> {
        self.phase_results
            .iter()
            .find(|r| !r.process_status.is_success())
    }

    /// The verdict on a mutant; `None` for the baseline.
    pub fn verdict(&self) -> Option<Verdict> {
        if matches!(self.scenario, Scenario::Baseline) {
            return None;
        }
        Some(if let Some(Judged::NotCompiled(_)) = self.judged {
            Verdict::NotCompiled
        } else if self.build_failed() || self.judged.is_some() {
            Verdict::Unviable
        } else if self.timed_out() {
            Verdict::Timeout
        } else if self.success() {
            Verdict::Missed
        } else {
            Verdict::Caught
        })
    }

    pub fn summary(&self) -> Summary {
        match self.verdict() {
            None if self.timed_out() => Summary::Timeout,
            None if self.success() => Summary::Success,
            None => Summary::Failure,
            Some(Verdict::Caught) => Summary::CaughtMutant,
            Some(Verdict::Missed) => Summary::MissedMutant,
            Some(Verdict::Timeout) => Summary::Timeout,
            Some(Verdict::Unviable) => Summary::Unviable,
            Some(Verdict::NotCompiled) => Summary::NotCompiled,
        }
    }

    /// The scenario's log: every command and its output.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// The tests the log shows failing, as libtest names them
    /// (`tests::two_plus_two_is_five`), in order.
    pub fn failing_tests(&self) -> Vec<String> {
        failing_tests(&self.log_text())
    }

    /// The duration of one phase, if it ran.
    pub fn duration(&self, phase: Phase) -> Option<Duration> {
        self.phase_results
            .iter()
            .find(|r| r.phase == phase)
            .map(|r| r.duration)
    }
}

/// The tests a test log shows failing: libtest's `test NAME ... FAILED`
/// lines (nextest's `FAIL [ 0.1s] crate NAME` too).
pub fn failing_tests(log: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in log.lines() {
        let line = line.trim();
        let name = if let Some(rest) = line.strip_prefix("test ") {
            rest.strip_suffix(" ... FAILED")
        } else if let Some(rest) = line.strip_prefix("FAIL [") {
            rest.split_once(']')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
        } else {
            None
        };
        if let Some(name) = name {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// The tests a test log shows passing: libtest's `test NAME ... ok` lines.
pub fn passing_tests(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|line| line.trim().strip_prefix("test ")?.strip_suffix(" ... ok"))
        .map(str::to_owned)
        .collect()
}

/// Counts over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub total_mutants: usize,
    pub missed: usize,
    pub caught: usize,
    pub timeout: usize,
    pub unviable: usize,
    /// Not compiled for this target: not tested, counted apart from the
    /// mutants tested.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_compiled: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Counts {
    pub fn add(&mut self, verdict: Verdict) {
        if verdict != Verdict::NotCompiled {
            self.total_mutants += 1;
        }
        match verdict {
            Verdict::NotCompiled => self.not_compiled += 1,
            Verdict::Caught => self.caught += 1,
            Verdict::Missed => self.missed += 1,
            Verdict::Timeout => self.timeout += 1,
            Verdict::Unviable => self.unviable += 1,
        }
    }

    /// The process exit code for a run with these counts whose baseline
    /// passed: timeouts outrank missed mutants, as in cargo-mutants.
    pub fn exit_code(&self) -> i32 {
        if self.timeout > 0 {
            exit_code::TIMEOUT
        } else if self.missed > 0 {
            exit_code::FOUND_PROBLEMS
        } else {
            exit_code::SUCCESS
        }
    }

    /// `9 mutants tested: 2 missed, 6 caught, 1 unviable`.
    pub fn summary_line(&self) -> String {
        let parts: Vec<String> = [
            (self.missed, "missed"),
            (self.caught, "caught"),
            (self.unviable, "unviable"),
            (self.timeout, "timeouts"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| format!("{n} {word}"))
        .collect();
        let noun = if self.total_mutants == 1 {
            "mutant"
        } else {
            "mutants"
        };
        let mut line = format!(
            "{} {noun} tested: {}",
            self.total_mutants,
            if parts.is_empty() {
                "nothing to report".to_owned()
            } else {
                parts.join(", ")
            }
        );
        if self.not_compiled > 0 {
            line.push_str(&format!(
                "; {} not compiled for this target (not tested)",
                self.not_compiled
            ));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(scenario: Scenario, statuses: &[(Phase, ProcessStatus)]) -> ScenarioOutcome {
        ScenarioOutcome {
            scenario,
            log_path: PathBuf::from("log/x.log"),
            phase_results: statuses
                .iter()
                .map(|&(phase, process_status)| PhaseResult {
                    phase,
                    duration: Duration::from_millis(10),
                    process_status,
                    argv: vec!["cargo".into()],
                })
                .collect(),
            judged: None,
        }
    }

    fn mutant_scenario() -> Scenario {
        let code = "fn f() -> bool { true }";
        let source_file = Arc::new(crate::mutate::SourceFile {
            package: "p".into(),
            path: "src/lib.rs".into(),
            code: code.into(),
            edition: Default::default(),
        });
        let mutant = crate::mutate::generate(&source_file, &Default::default())
            .mutants
            .remove(0);
        Scenario::Mutant {
            index: 0,
            mutant: Arc::new(mutant),
        }
    }

    #[test]
    fn verdicts_follow_the_last_phase_build_failures_make_unviable_and_build_timeouts_timeout() {
        use Phase::*;
        use ProcessStatus::*;
        let cases = [
            (vec![(Build, Success), (Test, Success)], Verdict::Missed),
            (
                vec![(Build, Success), (Test, Failure(101))],
                Verdict::Caught,
            ),
            (
                vec![(Build, Success), (Test, Signalled(6))],
                Verdict::Caught,
            ),
            (vec![(Build, Success), (Test, Timeout)], Verdict::Timeout),
            (vec![(Build, Failure(101))], Verdict::Unviable),
            (vec![(Build, Timeout)], Verdict::Timeout),
        ];
        for (statuses, expected) in cases {
            let o = outcome(mutant_scenario(), &statuses);
            assert_eq!(o.verdict(), Some(expected), "{statuses:?}");
        }
    }

    #[test]
    fn process_statuses_serialize_as_cargo_mutants_writes_them() {
        use ProcessStatus::*;
        let json = serde_json::to_value([Success, Failure(101), Timeout, Signalled(9)]).unwrap();
        assert_eq!(
            json,
            serde_json::json!(["Success", {"Failure": 101}, "Timeout", {"Signalled": 9}])
        );
    }

    #[test]
    fn baseline_has_a_summary_but_no_verdict() {
        use Phase::*;
        use ProcessStatus::*;
        let ok = outcome(Scenario::Baseline, &[(Build, Success), (Test, Success)]);
        assert_eq!((ok.verdict(), ok.summary()), (None, Summary::Success));
        let failed = outcome(
            Scenario::Baseline,
            &[(Build, Success), (Test, Failure(101))],
        );
        assert_eq!(failed.summary(), Summary::Failure);
        assert_eq!(failed.failed_phase().map(|r| r.phase), Some(Test));
    }

    #[test]
    fn failing_tests_are_read_from_libtest_and_nextest_logs() {
        let log =
            "running 2 tests\ntest tests::ok ... ok\ntest tests::two_plus_two_is_five ... FAILED\n\
                   failures:\n    tests::two_plus_two_is_five\n\
                   test result: FAILED. 1 passed; 1 failed\n\
                   \x20       FAIL [   0.004s] example tests::displays_dotted\n";
        assert_eq!(
            failing_tests(log),
            ["tests::two_plus_two_is_five", "tests::displays_dotted"]
        );
    }

    #[test]
    fn exit_code_ranks_timeouts_above_missed() {
        let mut counts = Counts::default();
        counts.add(Verdict::Caught);
        counts.add(Verdict::Unviable);
        assert_eq!(counts.exit_code(), exit_code::SUCCESS);
        counts.add(Verdict::Missed);
        assert_eq!(counts.exit_code(), exit_code::FOUND_PROBLEMS);
        counts.add(Verdict::Timeout);
        assert_eq!(counts.exit_code(), exit_code::TIMEOUT);
        assert_eq!(
            counts.summary_line(),
            "4 mutants tested: 1 missed, 1 caught, 1 unviable, 1 timeouts"
        );
    }
}
