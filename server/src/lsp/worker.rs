//! The worker thread that owns the engine `Session`, and the task that
//! sends its results to the client in order.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::request::WorkDoneProgressCreate;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticSeverity, MessageType, NumberOrString, ProgressParams,
    ProgressParamsValue, Uri, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd, WorkDoneProgressReport,
};
use tower_lsp_server::Client;

use super::ext::{self, State, StatusParams};
use super::settings::{Scope, Settings};
use super::to_proto::{self, Finding};
use super::Shared;
use crate::config::{Config, CONFIG_PATH};
use crate::lab::{Cancel, Event};
use crate::mutate::Mutant;
use crate::outcome::{Scenario, ScenarioOutcome, Verdict};
use crate::position::SourceIndex;
use crate::session::{Session, TestRun};
use crate::sources;

pub enum Job {
    /// Test the mutants of these files as saved.
    TestFiles { paths: Vec<PathBuf>, cancel: Cancel },
    /// Test every source file of the workspace.
    TestWorkspace { cancel: Cancel },
    /// Test these mutants (by name) again.
    Retest { names: Vec<String>, cancel: Cancel },
    /// New settings.
    Configure(Box<Settings>),
}

/// What the worker asks the client to show.
pub enum Message {
    Publish {
        uri: Uri,
        diagnostics: Vec<Diagnostic>,
    },
    Show(MessageType, String),
    Log(MessageType, String),
    /// `$/progress` for a job: begin (after creating the token), report, end.
    Progress {
        token: String,
        step: WorkDoneProgress,
    },
    /// `mutiny/status`, for status bars.
    Status(ext::StatusParams),
}

/// Sends messages to the client in the order the worker produced them.
pub async fn publish(client: Client, mut receiver: UnboundedReceiver<Message>) {
    while let Some(message) = receiver.recv().await {
        match message {
            Message::Publish { uri, diagnostics } => {
                client.publish_diagnostics(uri, diagnostics, None).await;
            }
            Message::Show(kind, text) => client.show_message(kind, text).await,
            Message::Log(kind, text) => {
                if logged(kind) {
                    eprintln!("{text}");
                    client.log_message(kind, text).await;
                }
            }
            Message::Progress { token, step } => {
                let token = NumberOrString::String(token);
                if matches!(step, WorkDoneProgress::Begin(_)) {
                    let create = WorkDoneProgressCreateParams {
                        token: token.clone(),
                    };
                    // A client that refuses progress still gets its results.
                    let _ = client.send_request::<WorkDoneProgressCreate>(create).await;
                }
                let value = ProgressParamsValue::WorkDone(step);
                client
                    .send_notification::<Progress>(ProgressParams { token, value })
                    .await;
            }
            Message::Status(params) => client.send_notification::<ext::Status>(params).await,
        }
    }
}

/// Whether messages of this kind are logged: `MUTINY_LOG` (or `RUST_LOG`)
/// = `off`, `error`, `warn`, `info` (default) or `debug`.
fn logged(kind: MessageType) -> bool {
    static LEVEL: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    let level = *LEVEL.get_or_init(|| {
        let setting = std::env::var("MUTINY_LOG")
            .or_else(|_| std::env::var("RUST_LOG"))
            .unwrap_or_default();
        log_level(&setting)
    });
    kind_rank(kind) <= level
}

fn kind_rank(kind: MessageType) -> i32 {
    match kind {
        MessageType::ERROR => 1,
        MessageType::WARNING => 2,
        MessageType::INFO => 3,
        _ => 4,
    }
}

/// The most verbose message rank a log setting lets through.
fn log_level(setting: &str) -> i32 {
    match setting.trim().to_ascii_lowercase().as_str() {
        "off" => 0,
        "error" => 1,
        "warn" | "warning" => 2,
        "debug" | "trace" => 4,
        _ => 3,
    }
}

/// Opens the session, then runs jobs until the queue closes.
pub fn run(
    root: PathBuf,
    jobs: Receiver<Job>,
    messages: UnboundedSender<Message>,
    shared: Arc<Mutex<Shared>>,
    settings: Settings,
) {
    let log_dir = std::env::temp_dir().join(format!("mutiny-lsp-logs-{}", std::process::id()));
    // The config file's share of the lab options is known once the
    // session has read it; until then, the settings' own.
    let lab_options = settings.lab_options(log_dir.clone(), &Config::default());
    let opened = lab_options.and_then(|options| Session::open(&root, options));
    let mut session = match opened {
        Ok(session) => session,
        Err(err) => {
            let text = format!(
                "mutiny: {} is not in a cargo workspace, so mutiny stays idle ({err:#})",
                root.display()
            );
            let _ = messages.send(Message::Show(MessageType::WARNING, text));
            // Drain the queue so senders never block; do nothing.
            for _ in jobs {}
            return;
        }
    };
    shared.lock().unwrap().manifests = session.manifest_paths();
    let mut worker = Worker {
        messages,
        shared,
        baseline_reported: false,
        jobs_started: 0,
        baseline_uris: Vec::new(),
        settings,
        config_error: None,
    };
    worker.configure(&mut session);
    // Says at once if the config file is invalid (the session opened with
    // the defaults).
    worker.follow_config(&mut session);
    worker.log(
        MessageType::INFO,
        format!("mutiny: testing workspace {}", session.root().display()),
    );
    worker.restore(&mut session);
    for job in jobs {
        if !matches!(job, Job::Configure(_)) {
            worker.follow_config(&mut session);
        }
        match job {
            Job::TestFiles { paths, cancel } => {
                let files: Vec<String> = paths
                    .iter()
                    .filter_map(|p| session.relative_path(p))
                    .collect();
                // A saved integration test may now catch its package's
                // missed mutants: test those again.
                let packages: Vec<String> = files
                    .iter()
                    .filter_map(|f| session.package_of_test_file(f))
                    .collect();
                if !packages.is_empty() {
                    let names = worker.missed_in(&packages);
                    let files = worker.files_of(&names);
                    worker.test_files(&mut session, files, Some(&names), Scope::File, &cancel);
                    continue;
                }
                let scope = worker.settings.scope;
                worker.test_files(&mut session, files, None, scope, &cancel);
            }
            Job::TestWorkspace { cancel } => {
                let files = session.source_files();
                worker.test_files(&mut session, files, None, Scope::File, &cancel);
            }
            Job::Retest { names, cancel } => {
                let files = worker.files_of(&names);
                worker.test_files(&mut session, files, Some(&names), Scope::File, &cancel);
            }
            Job::Configure(settings) => {
                worker.settings = *settings;
                worker.configure(&mut session);
            }
        }
    }
    drop(session);
    let _ = std::fs::remove_dir_all(log_dir);
}

struct Worker {
    messages: UnboundedSender<Message>,
    shared: Arc<Mutex<Shared>>,
    /// A failing baseline is shown once, not on every save.
    baseline_reported: bool,
    /// Numbers the progress tokens.
    jobs_started: u64,
    /// Documents holding a failing-baseline diagnostic.
    baseline_uris: Vec<Uri>,
    settings: Settings,
    /// The last invalid `.cargo/mutants.toml` message shown, not repeated.
    config_error: Option<String>,
}

impl Worker {
    /// Lab options from the settings and the config file.
    fn configure(&mut self, session: &mut Session) {
        match self
            .settings
            .lab_options(session.log_dir(), session.config())
        {
            Ok(options) => session.set_lab_options(options),
            Err(err) => self.show_once(format!("mutiny: bad settings: {err:#}")),
        }
    }

    /// Picks up an edited `.cargo/mutants.toml`: new filters and skip rules
    /// apply to the next mutants generated, findings they now exclude go,
    /// and the lab follows its test options.
    fn follow_config(&mut self, session: &mut Session) {
        match session.reload_config() {
            Ok(false) => {}
            Ok(true) => {
                self.config_error = None;
                self.log(
                    MessageType::INFO,
                    format!("mutiny: {CONFIG_PATH} changed; its options apply from now on"),
                );
                self.configure(session);
                self.drop_excluded(session);
            }
            Err(err) => self.show_once(format!(
                "mutiny: {err:#}; until it is fixed mutiny keeps its previous options \
                 (the defaults at start)"
            )),
        }
    }

    /// Removes findings whose mutants the current options no longer make.
    fn drop_excluded(&self, session: &mut Session) {
        let files: Vec<(String, String)> = {
            let shared = self.shared.lock().unwrap();
            shared
                .findings
                .iter()
                .filter_map(|(uri, findings)| {
                    let path = findings.first()?.mutant.source_file.path.clone();
                    Some((uri.clone(), path))
                })
                .collect()
        };
        for (key, path) in files {
            let names: Vec<String> = match session.mutants_of(&path) {
                Ok(mutants) => mutants.iter().map(|m| m.name.clone()).collect(),
                Err(_) => continue,
            };
            let diagnostics = {
                let mut shared = self.shared.lock().unwrap();
                let Some(findings) = shared.findings.get_mut(&key) else {
                    continue;
                };
                let before = findings.len();
                findings.retain(|f| names.contains(&f.mutant.name));
                if findings.len() == before {
                    continue;
                }
                diagnostics_of(findings)
            };
            if let Ok(uri) = key.parse::<Uri>() {
                let _ = self.messages.send(Message::Publish { uri, diagnostics });
            }
        }
    }

    fn show_once(&mut self, text: String) {
        if self.config_error.as_ref() != Some(&text) {
            self.log(MessageType::ERROR, text.clone());
            let _ = self
                .messages
                .send(Message::Show(MessageType::ERROR, text.clone()));
            self.config_error = Some(text);
        }
    }

    /// Shows what an earlier session found and is still valid (same
    /// function text, same test code), without testing.
    fn restore(&self, session: &mut Session) {
        let never = Cancel::default();
        let mut known = session.restore();
        for (mutant, verdict) in session.restore_from_output() {
            if !known.iter().any(|(k, _)| k.name == mutant.name) {
                known.push((mutant, verdict));
            }
        }
        for (mutant, verdict) in &known {
            if let Some(uri) = Uri::from_file_path(session.file_path(&mutant.source_file.path)) {
                self.record(&uri, mutant, *verdict, &never);
            }
        }
        let count = known.len();
        self.log(
            MessageType::INFO,
            format!("mutiny: {count} known findings restored"),
        );
    }

    /// The names of the missed and timed-out mutants of these packages.
    fn missed_in(&self, packages: &[String]) -> Vec<String> {
        let shared = self.shared.lock().unwrap();
        shared
            .findings
            .values()
            .flatten()
            .filter(|f| packages.contains(&f.mutant.source_file.package))
            .map(|f| f.mutant.name.clone())
            .collect()
    }

    /// The files that hold the findings with these names.
    fn files_of(&self, names: &[String]) -> Vec<String> {
        let shared = self.shared.lock().unwrap();
        let mut files: Vec<String> = shared
            .findings
            .values()
            .flatten()
            .filter(|f| names.contains(&f.mutant.name))
            .map(|f| f.mutant.source_file.path.clone())
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// Tests the mutants of `files` (only those named in `only`, if given),
    /// in functions that changed first, replacing their findings as results
    /// arrive, with progress.
    fn test_files(
        &mut self,
        session: &mut Session,
        files: Vec<String>,
        only: Option<&[String]>,
        scope: Scope,
        cancel: &Cancel,
    ) {
        let mut mutants = Vec::new();
        let mut uris: HashMap<String, Uri> = HashMap::new();
        for relative in &files {
            // `relative` may be a mutant's path (`src/dir/../x.rs`, for a
            // re-test): the URI and the key are the file's own path.
            let Some(uri) = Uri::from_file_path(session.file_path(relative)) else {
                continue;
            };
            let found = match session.mutants_of(relative) {
                Ok(found) => found,
                Err(err) => {
                    self.log(MessageType::WARNING, format!("mutiny: {err:#}"));
                    continue;
                }
            };
            let mut carried = Vec::new();
            let found: Vec<_> = match (only, scope) {
                (Some(names), _) => found
                    .into_iter()
                    .filter(|m| names.contains(&m.name))
                    .collect(),
                (None, Scope::File) => {
                    // Verdicts still valid show at once, at the mutants'
                    // places in the new text, while they are tested again.
                    for mutant in &found {
                        if let Some(verdict) = session.known_verdict(mutant) {
                            carried.push((mutant.clone(), verdict));
                        }
                    }
                    let (changed, unchanged) = session.split_changed(found);
                    changed.into_iter().chain(unchanged).collect()
                }
                (None, Scope::ChangedFunctions) => {
                    let (mut changed, unchanged) = session.split_changed(found);
                    for mutant in unchanged {
                        match session.known_verdict(&mutant) {
                            Some(verdict) => carried.push((mutant, verdict)),
                            None => changed.push(mutant),
                        }
                    }
                    changed
                }
            };
            self.forget(&uri, &found);
            for (mutant, verdict) in carried {
                self.record(&uri, &mutant, verdict, cancel);
            }
            mutants.extend(found);
            uris.insert(sources::file_key(relative), uri);
        }
        if mutants.is_empty() {
            return;
        }
        let what = match files.as_slice() {
            [one] => one.clone(),
            many => format!("{} files", many.len()),
        };
        self.jobs_started += 1;
        let token = format!("mutiny/{}", self.jobs_started);
        self.shared
            .lock()
            .unwrap()
            .progress
            .insert(token.clone(), cancel.clone());
        let total = mutants.len();
        self.progress(
            &token,
            WorkDoneProgress::Begin(WorkDoneProgressBegin {
                title: "mutiny".to_owned(),
                cancellable: Some(true),
                message: Some(format!("0/{total} mutants · {what}")),
                percentage: Some(0),
            }),
        );
        self.status(State::Running, 0, total, &what);
        let mut done = 0;
        let mut on_event = |event: &Event| {
            let Event::MutantFinished(outcome) = event else {
                return;
            };
            if let (Scenario::Mutant { mutant, .. }, Some(verdict)) =
                (&outcome.scenario, outcome.verdict())
            {
                if let Some(uri) = uris.get(&sources::file_key(&mutant.source_file.path)) {
                    self.record(uri, mutant, verdict, cancel);
                }
            }
            done += 1;
            self.progress(
                &token,
                WorkDoneProgress::Report(WorkDoneProgressReport {
                    cancellable: Some(true),
                    message: Some(format!("{done}/{total} mutants · {what}")),
                    percentage: Some((done * 100 / total) as u32),
                }),
            );
            self.status(State::Running, done, total, &what);
        };
        // A job cancelled before it started still ends its progress, so
        // the client sees every job it was told about end.
        let result = if cancel.is_cancelled() {
            Ok(TestRun::Cancelled)
        } else {
            session.test(&mutants, cancel, &mut on_event)
        };
        let summary = match result {
            Ok(TestRun::BaselineFailed(outcome)) => {
                self.baseline_failed(session, &outcome);
                "the unmutated tests fail".to_owned()
            }
            Ok(TestRun::Done(outcomes)) => {
                self.baseline_passed();
                let missed = outcomes
                    .iter()
                    .filter(|o| o.verdict() == Some(Verdict::Missed))
                    .count();
                let noun = if total == 1 { "mutant" } else { "mutants" };
                format!("{total} {noun} tested, {missed} missed")
            }
            Ok(TestRun::Cancelled) => "cancelled".to_owned(),
            Err(err) => {
                self.log(MessageType::ERROR, format!("mutiny: {err:#}"));
                "failed".to_owned()
            }
        };
        self.shared.lock().unwrap().progress.remove(&token);
        // Before the progress end, so a client that waits for the end has it.
        self.status(State::Idle, done, total, &what);
        self.progress(
            &token,
            WorkDoneProgress::End(WorkDoneProgressEnd {
                message: Some(summary),
            }),
        );
    }

    /// Drops the findings for mutants about to be tested again (all of a
    /// file's when it is tested whole) and republishes.
    fn forget(&self, uri: &Uri, retested: &[std::sync::Arc<crate::mutate::Mutant>]) {
        let diagnostics = {
            let mut shared = self.shared.lock().unwrap();
            let Some(findings) = shared.findings.get_mut(&uri.to_string()) else {
                return;
            };
            findings.retain(|f| !retested.iter().any(|m| m.name == f.mutant.name));
            diagnostics_of(findings)
        };
        let _ = self.messages.send(Message::Publish {
            uri: uri.clone(),
            diagnostics,
        });
    }

    fn status(&self, state: State, done: usize, total: usize, title: &str) {
        let title = title.to_owned();
        let _ = self.messages.send(Message::Status(StatusParams {
            state,
            done,
            total,
            title,
        }));
    }

    fn progress(&self, token: &str, step: WorkDoneProgress) {
        let token = token.to_owned();
        let _ = self.messages.send(Message::Progress { token, step });
    }

    /// Puts a mutant's verdict into its document's findings (a missed or
    /// timed-out mutant replaces its earlier finding, a caught one removes
    /// it) and republishes the document's diagnostics, unless the job went
    /// stale.
    fn record(&self, uri: &Uri, mutant: &Arc<Mutant>, verdict: Verdict, cancel: &Cancel) {
        if cancel.is_cancelled() {
            return;
        }
        let finding = matches!(verdict, Verdict::Missed | Verdict::Timeout);
        let diagnostics = {
            let mut shared = self.shared.lock().unwrap();
            let findings = shared.findings.entry(uri.to_string()).or_default();
            let before = findings.len();
            findings.retain(|f| f.mutant.name != mutant.name);
            if !finding && findings.len() == before {
                return;
            }
            if finding {
                findings.push(Finding {
                    mutant: mutant.clone(),
                    verdict,
                });
            }
            diagnostics_of(findings)
        };
        let _ = self.messages.send(Message::Publish {
            uri: uri.clone(),
            diagnostics,
        });
    }

    /// After a failed baseline passes: its diagnostics go, and a later
    /// failure is shown again.
    fn baseline_passed(&mut self) {
        self.baseline_reported = false;
        let shared = self.shared.lock().unwrap();
        for uri in self.baseline_uris.drain(..) {
            let findings = shared.findings.get(&uri.to_string());
            let diagnostics = findings.map_or_else(Vec::new, |f| diagnostics_of(f));
            let _ = self.messages.send(Message::Publish { uri, diagnostics });
        }
    }

    /// An error diagnostic on each failing test that can be found in the
    /// workspace's source files or integration tests.
    fn mark_failing_tests(&mut self, session: &Session, failures: &[&str]) {
        let mut files: Vec<PathBuf> = session
            .source_files()
            .iter()
            .map(|f| session.root().join(f))
            .collect();
        crate::session::collect_files(&session.root().join("tests"), &mut files);
        for failure in failures {
            // `test tests::two_plus_two_is_five ... FAILED`
            let Some(path) = failure
                .strip_prefix("test ")
                .and_then(|t| t.split_whitespace().next())
            else {
                continue;
            };
            let name = path.rsplit("::").next().unwrap_or(path);
            let needle = format!("fn {name}(");
            for file in &files {
                let Ok(text) = std::fs::read_to_string(file) else {
                    continue;
                };
                let Some(at) = text.find(&needle) else {
                    continue;
                };
                let Some(uri) = Uri::from_file_path(file) else {
                    continue;
                };
                let index = SourceIndex::new(&text);
                let start = at + 3;
                let diagnostic = Diagnostic {
                    range: to_proto::range(&index, start..start + name.len()),
                    severity: Some(DiagnosticSeverity::ERROR),
                    code: Some(NumberOrString::String("baseline".to_owned())),
                    source: Some("mutiny".to_owned()),
                    message:
                        "this test fails without any mutation: no mutant is tested until it passes"
                            .to_owned(),
                    ..Diagnostic::default()
                };
                let _ = self.messages.send(Message::Publish {
                    uri: uri.clone(),
                    diagnostics: vec![diagnostic],
                });
                self.baseline_uris.push(uri);
                break;
            }
        }
    }

    fn baseline_failed(&mut self, session: &Session, outcome: &ScenarioOutcome) {
        if std::mem::replace(&mut self.baseline_reported, true) {
            return;
        }
        let command = outcome
            .failed_phase()
            .map(|r| r.argv.join(" "))
            .unwrap_or_default();
        let log = std::fs::read_to_string(&outcome.log_path).unwrap_or_default();
        let failures: Vec<&str> = log
            .lines()
            .filter(|line| line.starts_with("test ") && line.ends_with("FAILED"))
            .collect();
        let text = format!(
            "mutiny: the tests fail without any mutation, so no mutant is tested until they pass. \
             Failed: {command}{}",
            if failures.is_empty() {
                String::new()
            } else {
                format!(" ({})", failures.join("; "))
            }
        );
        let _ = self.messages.send(Message::Show(MessageType::ERROR, text));
        self.mark_failing_tests(session, &failures);
    }

    fn log(&self, kind: MessageType, text: String) {
        let _ = self.messages.send(Message::Log(kind, text));
    }
}

fn diagnostics_of(findings: &[Finding]) -> Vec<Diagnostic> {
    let Some(first) = findings.first() else {
        return Vec::new();
    };
    let index = SourceIndex::new(&first.mutant.source_file.code);
    findings
        .iter()
        .map(|f| to_proto::diagnostic(&index, f))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_levels_let_through_what_they_name_and_more_severe() {
        assert_eq!(log_level(""), 3);
        assert!(kind_rank(MessageType::WARNING) <= log_level("warn"));
        assert!(kind_rank(MessageType::INFO) > log_level("WARN"));
        assert!(kind_rank(MessageType::ERROR) > log_level("off"));
        assert!(kind_rank(MessageType::LOG) <= log_level("debug"));
    }
}
