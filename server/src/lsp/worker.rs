//! The worker thread: it owns the engine `Session`, runs one job at a time,
//! and turns the engine's results into findings for the client. A job that
//! panics is logged and reported once; the worker then starts a fresh
//! session and goes on with the next job.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticSeverity, MessageType, NumberOrString, Uri, WorkDoneProgress,
    WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport,
};

use super::ext::{State, StatusParams};
use super::publish::Message;
use super::settings::{Scope, Settings};
use super::{lock, to_proto, Shared};
use crate::config::{Config, CONFIG_PATH};
use crate::lab::{Cancel, Event};
use crate::mutate::Mutant;
use crate::outcome::{Scenario, ScenarioOutcome, Verdict};
use crate::position::SourceIndex;
use crate::session::{Session, TestRun};
use crate::sources;

pub enum Task {
    /// Test the mutants of these files as saved.
    TestFiles { paths: Vec<PathBuf>, cancel: Cancel },
    /// Test every source file of the workspace.
    TestWorkspace { cancel: Cancel },
    /// Test these mutants (by name) again.
    Retest { names: Vec<String>, cancel: Cancel },
    /// Copy the workspace and build its tests, ahead of the first run.
    WarmUp { cancel: Cancel },
    /// New settings.
    Configure(Box<Settings>),
    /// These files changed outside the editor (absolute paths).
    Changed { paths: Vec<PathBuf> },
}

impl Task {
    /// The cancel flag of a test job.
    fn cancel(&self) -> Option<&Cancel> {
        match self {
            Task::TestFiles { cancel, .. }
            | Task::TestWorkspace { cancel }
            | Task::Retest { cancel, .. }
            | Task::WarmUp { cancel } => Some(cancel),
            Task::Configure(_) | Task::Changed { .. } => None,
        }
    }
}

/// Opens the session, then runs tasks until the queue closes.
pub fn run(
    root: PathBuf,
    tasks: Receiver<Task>,
    messages: UnboundedSender<Message>,
    shared: Arc<Mutex<Shared>>,
    settings: Settings,
) {
    let mut worker = Worker {
        messages,
        shared,
        baseline_reported: false,
        jobs_started: 0,
        settings,
        config_error: None,
        open_progress: Vec::new(),
    };
    let swept = crate::lab::scratch::sweep_abandoned();
    if !swept.is_empty() {
        let text = format!(
            "mutiny: removed {} scratch directories left by mutiny processes that were killed",
            swept.len()
        );
        worker.log(MessageType::INFO, text);
    }
    // Scenario logs; deleted when the worker ends (or swept by a later
    // mutiny if this one is killed).
    let log_dir_guard = match crate::lab::scratch::owned_temp_dir("mutiny-lsp-logs-") {
        Ok(dir) => dir,
        Err(err) => {
            let text = format!("mutiny: {err:#}, so mutiny stays idle");
            let _ = worker
                .messages
                .send(Message::Show(MessageType::ERROR, text));
            for _ in tasks {}
            return;
        }
    };
    let log_dir = log_dir_guard.path().to_owned();
    let Some(mut session) = worker.open_session(&root, &log_dir) else {
        // Drain the queue so senders never block; do nothing.
        for _ in tasks {}
        return;
    };
    worker.log(
        MessageType::INFO,
        format!("mutiny: testing workspace {}", session.root().display()),
    );
    worker.restore(&mut session);
    loop {
        // Between tasks, news of rust-analyzer's model (loaded, or not to
        // be had) is told as it happens.
        let task = match tasks.recv_timeout(std::time::Duration::from_millis(500)) {
            Ok(task) => task,
            Err(RecvTimeoutError::Timeout) => {
                worker.analysis_news(&mut session);
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let cancel = task.cancel().cloned();
        let handled = catch_unwind(AssertUnwindSafe(|| worker.handle(&mut session, task)));
        if let Some(cancel) = cancel {
            lock(&worker.shared).finished(&cancel);
        }
        let Err(payload) = handled else {
            continue;
        };
        worker.recover(&panic_text(payload.as_ref()));
        // The session may have stopped half-way through anything: start
        // afresh (dropping it deletes its scratch trees).
        drop(session);
        match worker.open_session(&root, &log_dir) {
            Some(fresh) => session = fresh,
            None => {
                for _ in tasks.iter() {}
                return;
            }
        }
    }
    // The session's scratch trees go first (in its drop), then the logs.
    drop(session);
    drop(log_dir_guard);
}

/// The message of a panic's payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "unknown panic".to_owned()
    }
}

struct Worker {
    messages: UnboundedSender<Message>,
    shared: Arc<Mutex<Shared>>,
    /// A failing baseline is announced once, not on every save.
    baseline_reported: bool,
    /// Numbers the progress tokens.
    jobs_started: u64,
    settings: Settings,
    /// The last invalid `.cargo/mutants.toml` message shown, not repeated.
    config_error: Option<String>,
    /// Progress tokens begun and not ended yet, ended if a job panics.
    open_progress: Vec<String>,
}

impl Worker {
    /// Opens the session over the workspace at `root` with the current
    /// settings; `None`, after telling the user, when there is none.
    fn open_session(&mut self, root: &Path, log_dir: &Path) -> Option<Session> {
        // The config file's share of the lab options is known once the
        // session has read it; until then, the settings' own.
        let lab_options = self
            .settings
            .lab_options(log_dir.to_owned(), &Config::default());
        let mut session = match lab_options.and_then(|options| Session::open(root, options)) {
            Ok(session) => session,
            Err(err) => {
                let text = format!(
                    "mutiny: {} is not in a cargo workspace, so mutiny stays idle ({err:#})",
                    root.display()
                );
                let _ = self
                    .messages
                    .send(Message::Show(MessageType::WARNING, text));
                return None;
            }
        };
        lock(&self.shared).manifests = session.manifest_paths();
        self.configure(&mut session);
        // Says at once if the config file is invalid (the session opened
        // with the defaults).
        self.follow_config(&mut session);
        Some(session)
    }

    fn handle(&mut self, session: &mut Session, task: Task) {
        if !matches!(task, Task::Configure(_)) {
            self.follow_config(session);
        }
        match task {
            Task::TestFiles { paths, cancel } => {
                super::inject_panic("job");
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
                    let names = self.missed_in(&packages);
                    let files = self.files_of(&names);
                    self.test_files(session, files, Some(&names), Scope::File, &cancel);
                    return;
                }
                let scope = self.settings.scope;
                self.test_files(session, files, None, scope, &cancel);
            }
            Task::TestWorkspace { cancel } => {
                let files = session.source_files();
                self.test_files(session, files, None, Scope::File, &cancel);
            }
            Task::Retest { names, cancel } => {
                let files = self.files_of(&names);
                self.test_files(session, files, Some(&names), Scope::File, &cancel);
            }
            Task::Configure(settings) => {
                self.settings = *settings;
                self.configure(session);
            }
            Task::Changed { paths } => self.changed_outside(session, &paths),
            Task::WarmUp { cancel } => match session.warm_up(&cancel) {
                Ok(Some(took)) => {
                    let text = format!(
                        "mutiny: warmed up: the tests are built in the scratch copy ({:.1} s)",
                        took.as_secs_f64()
                    );
                    self.log(MessageType::INFO, text);
                }
                Ok(None) => {}
                Err(err) => self.log(MessageType::WARNING, format!("mutiny: warm-up: {err:#}")),
            },
        }
    }

    /// Files changed outside the editor: the scratch copy and
    /// rust-analyzer's model take them, and each changed file's findings
    /// become what still applies to its new text (earlier verdicts of
    /// unchanged functions, at their new places; none for a file gone).
    /// Nothing is tested until the user saves.
    fn changed_outside(&mut self, session: &mut Session, paths: &[PathBuf]) {
        if let Err(err) = session.follow_external_changes() {
            self.log(MessageType::WARNING, format!("mutiny: {err:#}"));
        }
        let mut changed = Vec::new();
        for path in paths {
            let (Some(relative), Some(uri)) =
                (session.relative_path(path), Uri::from_file_path(path))
            else {
                continue;
            };
            let key = uri.to_string();
            let earlier = lock(&self.shared).documents.verdicts(&key);
            if earlier.is_empty() {
                continue;
            }
            let carried = match session.mutants_of(&relative) {
                Ok(found) => session.carry(&found, &earlier),
                // Gone (or unreadable, or mid-edit): nothing of it applies.
                Err(_) => Vec::new(),
            };
            lock(&self.shared).documents.replace(&key, carried);
            changed.push(key);
        }
        if !changed.is_empty() {
            let text = format!(
                "mutiny: {} changed outside the editor; findings that no longer apply were removed",
                match changed.as_slice() {
                    [one] => one.clone(),
                    many => format!("{} files", many.len()),
                }
            );
            self.log(MessageType::INFO, text);
            self.publish(&changed);
        }
    }

    /// After a job panicked: logs it, tells the user once, and ends the
    /// progress the job had begun so no client waits for it forever.
    fn recover(&mut self, text: &str) {
        let message = format!(
            "mutiny: internal error, the job was abandoned and the worker restarted: {text}"
        );
        self.log(MessageType::ERROR, message.clone());
        if super::first_panic() {
            let _ = self
                .messages
                .send(Message::Show(MessageType::ERROR, message));
        }
        for token in std::mem::take(&mut self.open_progress) {
            lock(&self.shared).progress.remove(&token);
            self.progress(
                &token,
                WorkDoneProgress::End(WorkDoneProgressEnd {
                    message: Some("failed".to_owned()),
                }),
            );
        }
        self.status(State::Idle, 0, 0, "");
    }

    /// Lab options from the settings and the config file.
    fn configure(&mut self, session: &mut Session) {
        match self
            .settings
            .lab_options(session.log_dir(), session.config())
        {
            Ok(options) => session.set_lab_options(options),
            Err(err) => self.show_once(format!("mutiny: bad settings: {err:#}")),
        }
        session.set_analysis(self.settings.analysis);
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
        let mut paths: Vec<String> = lock(&self.shared)
            .documents
            .all()
            .map(|(_, f)| f.mutant.source_file.path.clone())
            .collect();
        paths.sort();
        paths.dedup();
        // Files that cannot be read now keep their findings.
        let made: HashMap<String, Vec<String>> = paths
            .into_iter()
            .filter_map(|path| {
                let mutants = session.mutants_of(&path).ok()?;
                Some((path, mutants.iter().map(|m| m.name.clone()).collect()))
            })
            .collect();
        let changed = lock(&self.shared).documents.retain(|f| {
            made.get(&f.mutant.source_file.path)
                .is_none_or(|names| names.contains(&f.mutant.name))
        });
        self.publish(&changed);
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

    /// Shows what an earlier session found and still applies (same
    /// function text, same context), as earlier results, without testing.
    fn restore(&self, session: &mut Session) {
        let mut known = session.restore();
        for (mutant, verdict) in session.restore_from_output() {
            if !known.iter().any(|(k, _)| k.name == mutant.name) {
                known.push((mutant, verdict));
            }
        }
        let count = known.len();
        let mut by_uri: HashMap<String, Vec<(Arc<Mutant>, Verdict)>> = HashMap::new();
        for (mutant, verdict) in known {
            if let Some(uri) = Uri::from_file_path(session.file_path(&mutant.source_file.path)) {
                by_uri
                    .entry(uri.to_string())
                    .or_default()
                    .push((mutant, verdict));
            }
        }
        let uris: Vec<String> = by_uri.keys().cloned().collect();
        {
            let mut shared = lock(&self.shared);
            for (uri, carried) in by_uri {
                shared.documents.replace(&uri, carried);
            }
        }
        self.publish(&uris);
        self.log(
            MessageType::INFO,
            format!("mutiny: {count} known findings restored"),
        );
    }

    /// The names of the missed and timed-out mutants of these packages.
    fn missed_in(&self, packages: &[String]) -> Vec<String> {
        lock(&self.shared)
            .documents
            .all()
            .filter(|(_, f)| packages.contains(&f.mutant.source_file.package))
            .map(|(_, f)| f.mutant.name.clone())
            .collect()
    }

    /// The files that hold the findings with these names.
    fn files_of(&self, names: &[String]) -> Vec<String> {
        let mut files: Vec<String> = lock(&self.shared)
            .documents
            .all()
            .filter(|(_, f)| names.contains(&f.mutant.name))
            .map(|(_, f)| f.mutant.source_file.path.clone())
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// Tests the mutants of `files` (only those named in `only`, if given).
    /// A file tested whole first shows its earlier verdicts that still
    /// apply, at their places in the new text, marked as earlier results;
    /// then its changed functions are tested, then the rest, replacing
    /// findings as results arrive. With the `changedFunctions` scope the
    /// rest is re-tested as a run of its own after the changed functions.
    fn test_files(
        &mut self,
        session: &mut Session,
        files: Vec<String>,
        only: Option<&[String]>,
        scope: Scope,
        cancel: &Cancel,
    ) {
        let mut first = Vec::new();
        let mut later = Vec::new();
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
            if let Some(names) = only {
                first.extend(found.into_iter().filter(|m| names.contains(&m.name)));
            } else {
                let key = uri.to_string();
                let earlier = lock(&self.shared).documents.verdicts(&key);
                let carried = session.carry(&found, &earlier);
                // A job gone stale before it started changes nothing: a
                // burst of saves is one run, of the last text.
                if cancel.is_cancelled() {
                    let text = format!("mutiny: {relative}: job cancelled before it started");
                    self.log(MessageType::INFO, text);
                    return;
                }
                let (changed, unchanged) = session.split_changed(found);
                first.extend(changed);
                for mutant in unchanged {
                    // Known in the current context (same tests and
                    // options): re-tested after the changed functions.
                    // A verdict from another context is shown but not
                    // known: the mutant goes first.
                    match scope {
                        Scope::ChangedFunctions if session.known_verdict(&mutant).is_some() => {
                            later.push(mutant)
                        }
                        _ => first.push(mutant),
                    }
                }
                lock(&self.shared).documents.replace(&key, carried);
                self.publish(&[key]);
            }
            uris.insert(sources::file_key(relative), uri);
        }
        let what = match files.as_slice() {
            [one] => one.clone(),
            many => format!("{} files", many.len()),
        };
        let finished =
            first.is_empty() || self.run_batch(session, &first, &uris, &what, false, cancel);
        if finished && !later.is_empty() {
            self.run_batch(session, &later, &uris, &what, true, cancel);
        }
    }

    /// Tests one batch of mutants under a progress of its own, recording
    /// verdicts as they arrive. `earlier`: the batch re-tests earlier
    /// results. True when every mutant got a verdict.
    fn run_batch(
        &mut self,
        session: &mut Session,
        mutants: &[Arc<Mutant>],
        uris: &HashMap<String, Uri>,
        what: &str,
        earlier: bool,
        cancel: &Cancel,
    ) -> bool {
        let noun = match (earlier, mutants.len()) {
            (true, 1) => "earlier result",
            (true, _) => "earlier results",
            (false, 1) => "mutant",
            (false, _) => "mutants",
        };
        self.jobs_started += 1;
        let token = format!("mutiny/{}", self.jobs_started);
        lock(&self.shared)
            .progress
            .insert(token.clone(), cancel.clone());
        self.open_progress.push(token.clone());
        let total = mutants.len();
        self.progress(
            &token,
            WorkDoneProgress::Begin(WorkDoneProgressBegin {
                title: "mutiny".to_owned(),
                cancellable: Some(true),
                message: Some(format!("0/{total} {noun} · {what}")),
                percentage: Some(0),
            }),
        );
        self.status(State::Running, 0, total, what);
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
                    message: Some(format!("{done}/{total} {noun} · {what}")),
                    percentage: Some((done * 100 / total) as u32),
                }),
            );
            self.status(State::Running, done, total, what);
        };
        // A job cancelled before it started still ends its progress, so
        // the client sees every job it was told about end.
        let result = if cancel.is_cancelled() {
            Ok(TestRun::Cancelled)
        } else {
            session.test(mutants, cancel, &mut on_event)
        };
        self.analysis_news(session);
        let mut finished = false;
        let summary = match result {
            Ok(TestRun::BaselineFailed(outcome)) => {
                self.baseline_failed(session, &outcome);
                "the unmutated tests fail".to_owned()
            }
            Ok(TestRun::Done(outcomes)) => {
                finished = true;
                self.baseline_passed();
                self.resolve_return_types(session, &outcomes);
                let missed = outcomes
                    .iter()
                    .filter(|o| o.verdict() == Some(Verdict::Missed))
                    .count();
                let tested = if earlier { "re-tested" } else { "tested" };
                format!("{total} {noun} {tested}, {missed} missed")
            }
            Ok(TestRun::Cancelled) => "cancelled".to_owned(),
            Err(err) => {
                self.log(MessageType::ERROR, format!("mutiny: {err:#}"));
                "failed".to_owned()
            }
        };
        lock(&self.shared).progress.remove(&token);
        self.open_progress.retain(|t| *t != token);
        // Before the progress end, so a client that waits for the end has it.
        self.status(State::Idle, done, total, what);
        self.progress(
            &token,
            WorkDoneProgress::End(WorkDoneProgressEnd {
                message: Some(summary),
            }),
        );
        finished
    }

    /// Says what changed about rust-analyzer's model: loaded, or not to be
    /// had (shown to the user as well: the analysis is off until fixed).
    fn analysis_news(&mut self, session: &mut Session) {
        let Some(news) = session.analysis_news() else {
            return;
        };
        self.log(MessageType::INFO, news.clone());
        if news.contains("every mutant is built") {
            let _ = self
                .messages
                .send(Message::Show(MessageType::WARNING, news));
        }
    }

    /// Gives the batch's missed and timed-out mutants the return types
    /// rust-analyzer resolves, for their hovers.
    fn resolve_return_types(&self, session: &Session, outcomes: &[ScenarioOutcome]) {
        let shown: Vec<Arc<Mutant>> = outcomes
            .iter()
            .filter(|o| o.verdict().is_some_and(super::findings::is_finding))
            .filter_map(|o| match &o.scenario {
                Scenario::Mutant { mutant, .. } => Some(mutant.clone()),
                Scenario::Baseline => None,
            })
            .collect();
        if shown.is_empty() {
            return;
        }
        let types: HashMap<String, String> = shown
            .iter()
            .zip(session.return_types(&shown))
            .filter_map(|(mutant, resolved)| Some((mutant.name.clone(), resolved?)))
            .collect();
        lock(&self.shared).documents.set_return_types(&types);
    }

    /// Sends the job's state, unless paused (the client was told so, and
    /// is told again when resumed). Under the lock, as `publish`.
    fn status(&self, state: State, done: usize, total: usize, title: &str) {
        let shared = lock(&self.shared);
        if shared.is_paused() {
            return;
        }
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

    /// Sends the diagnostics of these documents as they are now, unless
    /// paused (resuming sends them). Under the lock, so that what the
    /// client last received is what is shared.
    fn publish(&self, uris: &[String]) {
        let shared = lock(&self.shared);
        if shared.is_paused() {
            return;
        }
        for key in uris {
            let Ok(uri) = key.parse::<Uri>() else {
                continue;
            };
            let diagnostics = shared.documents.diagnostics(key);
            let _ = self.messages.send(Message::Publish { uri, diagnostics });
        }
    }

    /// Records a mutant's verdict in its document and republishes it,
    /// unless the job went stale (its text is no longer the saved one).
    fn record(&self, uri: &Uri, mutant: &Arc<Mutant>, verdict: Verdict, cancel: &Cancel) {
        if cancel.is_cancelled() {
            return;
        }
        let key = uri.to_string();
        if lock(&self.shared).documents.record(&key, mutant, verdict) {
            self.publish(&[key]);
        }
    }

    /// After the baseline passes: its failing-test errors go, and a later
    /// failure is announced again.
    fn baseline_passed(&mut self) {
        self.baseline_reported = false;
        let uris = lock(&self.shared)
            .documents
            .set_failing_tests(HashMap::new());
        self.publish(&uris);
    }

    /// The unmutated tests fail: says so (once), and puts an error on each
    /// failing test found in the workspace. The findings stay as they were:
    /// no verdict can be had until the tests pass.
    fn baseline_failed(&mut self, session: &Session, outcome: &ScenarioOutcome) {
        let failures = outcome.failing_tests();
        if !std::mem::replace(&mut self.baseline_reported, true) {
            let command = outcome
                .failed_phase()
                .map(|r| r.argv.join(" "))
                .unwrap_or_default();
            let text = format!(
                "mutiny: the tests fail without any mutation, so no mutant is tested until they \
                 pass. Failed: {command}{}",
                if failures.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", failures.join("; "))
                }
            );
            let _ = self.messages.send(Message::Show(MessageType::ERROR, text));
        }
        let mut failing: HashMap<String, Vec<Diagnostic>> = HashMap::new();
        for (path, name, text) in session.locate_tests(&failures) {
            let Some(uri) = Uri::from_file_path(&path) else {
                continue;
            };
            let index = SourceIndex::new(&text);
            failing
                .entry(uri.to_string())
                .or_default()
                .push(Diagnostic {
                    range: to_proto::range(&index, name),
                    severity: Some(DiagnosticSeverity::ERROR),
                    code: Some(NumberOrString::String("baseline".to_owned())),
                    source: Some("mutiny".to_owned()),
                    message: "this test fails without any mutation: no mutant is tested until \
                              it passes"
                        .to_owned(),
                    ..Diagnostic::default()
                });
        }
        let uris = lock(&self.shared).documents.set_failing_tests(failing);
        self.publish(&uris);
    }

    fn log(&self, kind: MessageType, text: String) {
        let _ = self.messages.send(Message::Log(kind, text));
    }
}
