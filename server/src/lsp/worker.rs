//! The worker thread that owns the engine `Session`, and the task that
//! sends its results to the client in order.

use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::request::WorkDoneProgressCreate;
use tower_lsp_server::ls_types::{
    Diagnostic, MessageType, NumberOrString, ProgressParams, ProgressParamsValue, Uri,
    WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressCreateParams, WorkDoneProgressEnd,
    WorkDoneProgressReport,
};
use tower_lsp_server::Client;

use super::to_proto::{self, Finding};
use super::Shared;
use crate::lab::{self, BaselineMode, Cancel, Event, LabOptions};
use crate::outcome::{ScenarioOutcome, Verdict};
use crate::position::SourceIndex;
use crate::session::{Session, TestRun};

pub enum Job {
    /// Test the mutants of the file at `path` as saved.
    TestFile {
        uri: Uri,
        path: PathBuf,
        cancel: Cancel,
    },
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
}

/// Sends messages to the client in the order the worker produced them.
pub async fn publish(client: Client, mut receiver: UnboundedReceiver<Message>) {
    while let Some(message) = receiver.recv().await {
        match message {
            Message::Publish { uri, diagnostics } => {
                client.publish_diagnostics(uri, diagnostics, None).await;
            }
            Message::Show(kind, text) => client.show_message(kind, text).await,
            Message::Log(kind, text) => client.log_message(kind, text).await,
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
        }
    }
}

/// Opens the session, then runs jobs until the queue closes.
pub fn run(
    root: PathBuf,
    jobs: Receiver<Job>,
    messages: UnboundedSender<Message>,
    shared: Arc<Mutex<Shared>>,
) {
    let lab_options = LabOptions {
        jobs: lab::default_jobs(),
        cargo: Default::default(),
        test_scope: Default::default(),
        timeouts: Default::default(),
        baseline: BaselineMode::Run,
        log_dir: std::env::temp_dir().join(format!("mutiny-lsp-logs-{}", std::process::id())),
    };
    let log_dir = lab_options.log_dir.clone();
    let mut session = match Session::open(&root, lab_options) {
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
    let _ = messages.send(Message::Log(
        MessageType::INFO,
        format!("mutiny: testing workspace {}", session.root().display()),
    ));
    let mut worker = Worker {
        messages,
        shared,
        baseline_reported: false,
        jobs_started: 0,
    };
    for job in jobs {
        match job {
            Job::TestFile { uri, path, cancel } => {
                if cancel.is_cancelled() {
                    continue;
                }
                worker.test_file(&mut session, uri, &path, &cancel);
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
}

impl Worker {
    fn test_file(
        &mut self,
        session: &mut Session,
        uri: Uri,
        path: &std::path::Path,
        cancel: &Cancel,
    ) {
        let Some(relative) = session.relative_path(path) else {
            return;
        };
        let mutants = match session.mutants_of(&relative) {
            Ok(mutants) => mutants,
            Err(err) => {
                self.log(MessageType::WARNING, format!("mutiny: {err:#}"));
                return;
            }
        };
        if mutants.is_empty() {
            return;
        }
        let key = uri.to_string();
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
                message: Some(format!("0/{total} mutants · {relative}")),
                percentage: Some(0),
            }),
        );
        let mut done = 0;
        let mut on_event = |event: &Event| {
            if let Event::MutantFinished(outcome) = event {
                self.record(&uri, &key, outcome, cancel);
                done += 1;
                self.progress(
                    &token,
                    WorkDoneProgress::Report(WorkDoneProgressReport {
                        cancellable: Some(true),
                        message: Some(format!("{done}/{total} mutants · {relative}")),
                        percentage: Some((done * 100 / total) as u32),
                    }),
                );
            }
        };
        let result = session.test(&mutants, cancel, &mut on_event);
        let summary = match result {
            Ok(TestRun::BaselineFailed(outcome)) => {
                self.baseline_failed(&outcome);
                "the unmutated tests fail".to_owned()
            }
            Ok(TestRun::Done(outcomes)) => {
                self.baseline_reported = false;
                let missed = outcomes
                    .iter()
                    .filter(|o| o.verdict() == Some(Verdict::Missed))
                    .count();
                format!("{total} mutants tested, {missed} missed")
            }
            Ok(TestRun::Cancelled) => "cancelled".to_owned(),
            Err(err) => {
                self.log(MessageType::ERROR, format!("mutiny: {err:#}"));
                "failed".to_owned()
            }
        };
        self.shared.lock().unwrap().progress.remove(&token);
        self.progress(
            &token,
            WorkDoneProgress::End(WorkDoneProgressEnd {
                message: Some(summary),
            }),
        );
    }

    fn progress(&self, token: &str, step: WorkDoneProgress) {
        let token = token.to_owned();
        let _ = self.messages.send(Message::Progress { token, step });
    }

    /// Adds a missed or timed-out mutant to its document's findings and
    /// republishes the document's diagnostics, unless the job went stale.
    fn record(&self, uri: &Uri, key: &str, outcome: &ScenarioOutcome, cancel: &Cancel) {
        let (Some(verdict), Some(mutant)) = (outcome.verdict(), outcome.scenario.mutant()) else {
            return;
        };
        if !matches!(verdict, Verdict::Missed | Verdict::Timeout) || cancel.is_cancelled() {
            return;
        }
        let diagnostics = {
            let mut shared = self.shared.lock().unwrap();
            let findings = shared.findings.entry(key.to_owned()).or_default();
            findings.push(Finding {
                mutant: Arc::new(mutant.clone()),
                verdict,
            });
            let index = SourceIndex::new(&mutant.source_file.code);
            findings
                .iter()
                .map(|f| to_proto::diagnostic(&index, f))
                .collect()
        };
        let _ = self.messages.send(Message::Publish {
            uri: uri.clone(),
            diagnostics,
        });
    }

    fn baseline_failed(&mut self, outcome: &ScenarioOutcome) {
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
    }

    fn log(&self, kind: MessageType, text: String) {
        let _ = self.messages.send(Message::Log(kind, text));
    }
}
