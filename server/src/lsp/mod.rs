//! The language server: a thin adapter from LSP to the engine. It maps
//! saves to `Session` runs on a worker thread and engine results to
//! diagnostics, hovers and code lenses. All LSP types stay in this module
//! (the interface to `tower-lsp-server`).

mod ext;
mod findings;
mod from_proto;
mod input;
mod publish;
mod settings;
mod to_proto;
mod watch;
mod worker;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::FutureExt;

use anyhow::Result;
use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::{
    CodeActionOrCommand, CodeActionParams, CodeActionProviderCapability, CodeActionResponse,
    CodeLens, CodeLensOptions, CodeLensParams, DidChangeConfigurationParams,
    DidChangeWatchedFilesParams, DidChangeWatchedFilesRegistrationOptions,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, ExecuteCommandOptions,
    ExecuteCommandParams, FileSystemWatcher, GlobPattern, Hover, HoverParams,
    HoverProviderCapability, InitializeParams, InitializeResult, InitializedParams, LSPAny,
    MessageType, NumberOrString, Registration, SaveOptions, ServerCapabilities, ServerInfo,
    ShowDocumentParams, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri, WorkDoneProgressCancelParams,
};
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

use crate::lab::Cancel;
use crate::position::SourceIndex;
use findings::{Documents, Finding};
use publish::Message;
use settings::Settings;
use to_proto::{RETEST_COMMAND, SHOW_DIFF_COMMAND};
use worker::Task;

const TEST_FILE_COMMAND: &str = "mutiny.testFile";
const TEST_WORKSPACE_COMMAND: &str = "mutiny.testWorkspace";
const CANCEL_COMMAND: &str = "mutiny.cancel";
const PAUSE_COMMAND: &str = "mutiny.pause";
const RESUME_COMMAND: &str = "mutiny.resume";
const COMMANDS: [&str; 7] = [
    SHOW_DIFF_COMMAND,
    TEST_FILE_COMMAND,
    TEST_WORKSPACE_COMMAND,
    RETEST_COMMAND,
    CANCEL_COMMAND,
    PAUSE_COMMAND,
    RESUME_COMMAND,
];

/// Serves LSP on stdin/stdout until the client says `exit` or goes away.
pub fn serve_stdio() -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let engine = Arc::new(Engine::default());
    let for_service = engine.clone();
    runtime.block_on(async {
        let (service, socket) = LspService::build(move |client| Backend::new(client, for_service))
            .custom_method(input::MALFORMED_METHOD, Backend::malformed)
            .custom_method("window/workDoneProgress/cancel", Backend::progress_cancel)
            .custom_method(ext::MUTANTS_METHOD, Backend::mutants)
            .finish();
        Server::new(
            input::checked(tokio::io::stdin()),
            tokio::io::stdout(),
            socket,
        )
        .serve(service)
        .await;
    });
    // After `exit`, or when the client went away without `shutdown`: stop
    // the worker so that its scratch trees are deleted.
    engine.stop();
    // The thread reading stdin may still wait for input that will never
    // come; after `exit` nothing is left to wait for.
    runtime.shutdown_background();
    Ok(())
}

/// What a queued job tests. A newer job of the same kind replaces a stale
/// one; a job cancelled by `mutiny.pause`, or asked for while paused, is
/// queued again on `mutiny.resume`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Job {
    /// Copy the workspace and build its tests before the first save.
    WarmUp,
    /// The mutants of one Rust file, as a save tests them.
    File(Uri),
    Workspace,
    /// These mutants, by name.
    Retest(Vec<String>),
}

/// What the request handlers and the worker share.
#[derive(Default)]
struct Shared {
    /// What each document shows.
    documents: Documents,
    /// The cancel flag of each queued or running job (the worker removes
    /// a job's when it ends).
    running: HashMap<Job, Cancel>,
    /// Each package's manifest, by package name.
    manifests: HashMap<String, PathBuf>,
    /// The cancel flag of each job by its progress token.
    progress: HashMap<String, Cancel>,
    /// While paused (`mutiny.pause`): the jobs to queue on `mutiny.resume`.
    /// Nothing is tested and every document shows nothing meanwhile; the
    /// findings stay in `documents`.
    paused: Option<Vec<Job>>,
}

impl Shared {
    fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    /// A job's cancel flag has ended its run: the job is no longer queued.
    fn finished(&mut self, cancel: &Cancel) {
        self.running.retain(|_, c| !c.is_same(cancel));
    }
}

/// `1 job`, `2 jobs`.
fn jobs(count: usize) -> String {
    format!("{count} job{}", if count == 1 { "" } else { "s" })
}

/// Sends the diagnostics of every document the client may show: none
/// while paused. Under the shared lock, as the worker publishes, so that
/// nothing the worker sends crosses them.
fn publish_all(shared: &Shared, sender: &UnboundedSender<Message>) {
    for key in shared.documents.uris() {
        let Ok(uri) = key.parse::<Uri>() else {
            continue;
        };
        let diagnostics = if shared.is_paused() {
            Vec::new()
        } else {
            shared.documents.diagnostics(&key)
        };
        let _ = sender.send(Message::Publish { uri, diagnostics });
    }
}

/// Locks shared state. A thread that panicked while holding the lock left
/// it poisoned; the state itself stays usable (every change to it is a
/// single step), so requests go on being answered.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// True the first time it is asked: the user is told of the first internal
/// error (of a request or a job); later ones are only logged.
fn first_panic() -> bool {
    static REPORTED: AtomicBool = AtomicBool::new(false);
    !REPORTED.swap(true, Ordering::SeqCst)
}

/// `MUTINY_INJECT_PANIC=job,hover`: the first test job, the first hover,
/// panics; tests use it to check that the server survives its own bugs.
fn inject_panic(point: &str) {
    static INJECTED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let Ok(points) = std::env::var("MUTINY_INJECT_PANIC") else {
        return;
    };
    if points.split(',').any(|p| p.trim() == point) {
        let mut injected = lock(&INJECTED);
        if !injected.iter().any(|p| p == point) {
            injected.push(point.to_owned());
            drop(injected);
            panic!("injected panic (MUTINY_INJECT_PANIC={point})");
        }
    }
}

/// The worker thread and its queue, shared with `serve_stdio` so that the
/// worker is stopped (and its scratch trees deleted) also when the client
/// goes away without `shutdown`.
#[derive(Default)]
struct Engine {
    shared: Arc<Mutex<Shared>>,
    tasks: Mutex<Option<std::sync::mpsc::Sender<Task>>>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Watches the workspace where the client does not (it holds a sender
    /// of the queue: it goes before the queue closes).
    watcher: Mutex<Option<watch::Watcher>>,
}

impl Engine {
    fn cancel_all(&self) {
        for cancel in lock(&self.shared).running.values() {
            cancel.cancel();
        }
    }

    /// Cancels every job, closes the queue and waits for the worker, which
    /// then deletes its scratch trees.
    fn stop(&self) {
        self.cancel_all();
        lock(&self.watcher).take();
        lock(&self.tasks).take();
        let worker = lock(&self.worker).take();
        if let Some(handle) = worker {
            let _ = handle.join();
        }
    }
}

struct Backend {
    client: Client,
    engine: Arc<Engine>,
    shared: Arc<Mutex<Shared>>,
    root: Mutex<Option<PathBuf>>,
    messages: Mutex<Option<UnboundedSender<Message>>>,
    settings: Mutex<Settings>,
    /// Whether the client takes `workspace/codeLens/refresh`.
    code_lens_refresh: AtomicBool,
    /// Whether the client watches files for us when asked
    /// (`workspace/didChangeWatchedFiles` registered dynamically).
    client_watches: AtomicBool,
}

impl Backend {
    fn new(client: Client, engine: Arc<Engine>) -> Backend {
        Backend {
            client,
            shared: engine.shared.clone(),
            engine,
            root: Mutex::new(None),
            messages: Mutex::new(None),
            settings: Mutex::new(Settings::default()),
            code_lens_refresh: AtomicBool::new(false),
            client_watches: AtomicBool::new(false),
        }
    }

    fn send_message(&self, message: Message) {
        if let Some(sender) = lock(&self.messages).as_ref() {
            let _ = sender.send(message);
        }
    }

    /// Queues a test of the document's mutants, cancelling the stale job
    /// of the same document.
    fn queue_test(&self, uri: Uri) {
        let is_rust = uri
            .to_file_path()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "rs"));
        if is_rust {
            // The document's findings stay until its job starts: it moves
            // those that still apply to their places in the new text. A job
            // cancelled before then (a newer save, `mutiny.cancel`) leaves
            // them as they are.
            self.queue(Job::File(uri));
        }
    }

    /// Queues a job, cancelling the stale one of the same kind; while
    /// paused, keeps it for `mutiny.resume` instead.
    fn queue(&self, job: Job) {
        let cancel = Cancel::default();
        {
            let mut shared = lock(&self.shared);
            if let Some(pending) = &mut shared.paused {
                if !pending.contains(&job) {
                    pending.push(job.clone());
                }
                drop(shared);
                let text = format!("mutiny: paused: {} on resume", self.describe(&job));
                self.send_message(Message::Log(MessageType::INFO, text));
                return;
            }
            if let Some(stale) = shared.running.insert(job.clone(), cancel.clone()) {
                stale.cancel();
            }
        }
        let task = match job {
            Job::File(uri) => {
                let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
                    return;
                };
                Task::TestFiles {
                    paths: vec![path],
                    cancel,
                }
            }
            Job::Workspace => Task::TestWorkspace { cancel },
            Job::Retest(names) => Task::Retest { names, cancel },
            Job::WarmUp => Task::WarmUp { cancel },
        };
        self.send_task(task);
    }

    /// What a job will do, for the log: `src/lib.rs will be tested`.
    fn describe(&self, job: &Job) -> String {
        match job {
            Job::File(uri) => match uri.to_file_path() {
                Some(path) => {
                    let root = lock(&self.root).clone().unwrap_or_default();
                    let shown = path.strip_prefix(&root).unwrap_or(&path);
                    format!("{} will be tested", shown.display())
                }
                None => format!("{} will be tested", uri.as_str()),
            },
            Job::WarmUp => "the tests will be built".to_owned(),
            Job::Workspace => "the workspace will be tested".to_owned(),
            Job::Retest(names) => format!("{} will be re-tested", names.join(", ")),
        }
    }

    /// `mutiny.pause`: cancels every queued and running job (kept to be
    /// queued again on resume), hides every document's diagnostics, code
    /// lenses and hovers, and says `paused` in `mutiny/status`. The
    /// findings stay. Pausing again changes nothing.
    fn pause(&self) {
        let sender = lock(&self.messages).clone();
        let cancelled = {
            let mut shared = lock(&self.shared);
            if shared.is_paused() {
                return;
            }
            let mut pending: Vec<Job> = shared
                .running
                .drain()
                .map(|(job, cancel)| {
                    cancel.cancel();
                    job
                })
                .collect();
            pending.sort();
            let cancelled = pending.len();
            shared.paused = Some(pending);
            if let Some(sender) = &sender {
                publish_all(&shared, sender);
                let _ = sender.send(Message::Status(ext::StatusParams::paused()));
            }
            cancelled
        };
        let text = format!(
            "mutiny: paused: results hidden and saves not tested until mutiny.resume \
             ({} cancelled, to run again on resume)",
            jobs(cancelled)
        );
        self.send_message(Message::Log(MessageType::INFO, text));
        self.refresh_code_lenses();
    }

    /// `mutiny.resume`: shows every document's diagnostics again, as they
    /// are kept, and queues the jobs cancelled by the pause or asked for
    /// since (one test per saved file). Resuming when not paused changes
    /// nothing.
    fn resume(&self) {
        let sender = lock(&self.messages).clone();
        let pending = {
            let mut shared = lock(&self.shared);
            let Some(pending) = shared.paused.take() else {
                return;
            };
            if let Some(sender) = &sender {
                publish_all(&shared, sender);
                let _ = sender.send(Message::Status(ext::StatusParams::idle()));
            }
            pending
        };
        let text = format!("mutiny: resumed: {} queued", jobs(pending.len()));
        self.send_message(Message::Log(MessageType::INFO, text));
        self.refresh_code_lenses();
        for job in pending {
            self.queue(job);
        }
    }

    /// Asks the client to ask for code lenses again, if it can be asked.
    fn refresh_code_lenses(&self) {
        if self.code_lens_refresh.load(Ordering::SeqCst) {
            // Not awaited: a client that never answers must not hold up
            // the command's reply.
            let client = self.client.clone();
            tokio::spawn(async move { client.code_lens_refresh().await });
        }
    }

    /// Answers a request, or, if answering panicked, logs the panic, tells
    /// the user once and answers with an internal error: one bad request
    /// must not end the session (the panic would unwind past the worker's
    /// shutdown).
    async fn guard<T>(
        &self,
        method: &str,
        answer: impl std::future::Future<Output = jsonrpc::Result<T>>,
    ) -> jsonrpc::Result<T> {
        match AssertUnwindSafe(answer).catch_unwind().await {
            Ok(result) => result,
            Err(payload) => {
                let text = worker::panic_text(payload.as_ref());
                let message = format!("mutiny: internal error answering {method}: {text}");
                self.client.log_message(MessageType::ERROR, &message).await;
                if first_panic() {
                    self.client.show_message(MessageType::ERROR, &message).await;
                }
                Err(jsonrpc::Error::internal_error())
            }
        }
    }

    /// Handles a notification as `guard` answers a request.
    async fn guard_notification(
        &self,
        method: &str,
        handle: impl std::future::Future<Output = ()>,
    ) {
        let _ = self
            .guard(method, async move {
                handle.await;
                Ok(())
            })
            .await;
    }

    /// Has files changed outside the editor reported to the worker: by
    /// the client, asked to watch them, or by a watcher of our own.
    fn watch_files(&self, root: &std::path::Path, tasks: &std::sync::mpsc::Sender<Task>) {
        if self.client_watches.load(Ordering::SeqCst) {
            let watchers = watch::GLOBS
                .iter()
                .map(|glob| FileSystemWatcher {
                    glob_pattern: GlobPattern::String((*glob).to_owned()),
                    kind: None,
                })
                .collect();
            let options = DidChangeWatchedFilesRegistrationOptions { watchers };
            let registration = Registration {
                id: "mutiny-watched-files".to_owned(),
                method: "workspace/didChangeWatchedFiles".to_owned(),
                register_options: serde_json::to_value(options).ok(),
            };
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.register_capability(vec![registration]).await;
            });
            return;
        }
        let tasks = tasks.clone();
        match watch::watch(root, move |paths| {
            let _ = tasks.send(Task::Changed { paths });
        }) {
            Ok(watcher) => *lock(&self.engine.watcher) = Some(watcher),
            Err(err) => self.send_message(Message::Log(
                MessageType::WARNING,
                format!(
                    "mutiny: cannot watch {} for changes made outside the editor: {err}",
                    root.display()
                ),
            )),
        }
    }

    fn send_task(&self, task: Task) {
        if let Some(tasks) = lock(&self.engine.tasks).as_ref() {
            let _ = tasks.send(task);
        }
    }

    fn cancel_all(&self) {
        self.engine.cancel_all();
    }

    /// `window/workDoneProgress/cancel`: the user cancelled a job.
    async fn progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        let NumberOrString::String(token) = params.token else {
            return;
        };
        if let Some(cancel) = lock(&self.shared).progress.get(&token) {
            cancel.cancel();
        }
    }

    /// `mutiny/mutants`: the named mutants among the findings, with the
    /// original and mutated texts of their files.
    async fn mutants(
        &self,
        params: ext::MutantsParams,
    ) -> jsonrpc::Result<Vec<ext::MutantDetails>> {
        self.guard("mutiny/mutants", async move {
            let named = lock(&self.shared).documents.named(&params.names);
            Ok(named
                .into_iter()
                .filter_map(|(uri, finding)| {
                    let uri = uri.parse::<Uri>().ok()?;
                    Some(ext::MutantDetails::new(uri, &finding))
                })
                .collect())
        })
        .await
    }

    /// The diffs of the named mutants, concatenated; also written to
    /// `target/mutiny/diff/<name>.diff`, which the client is asked to open
    /// (clients that render the returned diff themselves may ignore it).
    async fn show_diffs(&self, names: &[String]) -> String {
        let named = lock(&self.shared).documents.named(names);
        let found: Vec<(String, String)> = named
            .into_iter()
            .map(|(_, f)| (f.mutant.name.clone(), f.mutant.diff()))
            .collect();
        let root = lock(&self.root).clone();
        let mut all = String::new();
        for (index, (name, diff)) in found.iter().enumerate() {
            all.push_str(diff);
            if index > 0 {
                continue;
            }
            let Some(root) = &root else { continue };
            let dir = root.join("target/mutiny/diff");
            let file_name: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!("{file_name}.diff"));
            let written = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, diff));
            if let (Ok(()), Some(uri)) = (written, Uri::from_file_path(&path)) {
                let show = ShowDocumentParams {
                    uri,
                    external: Some(false),
                    take_focus: Some(true),
                    selection: None,
                };
                // Not awaited: a client that never answers must not hold
                // up the command's reply.
                let client = self.client.clone();
                tokio::spawn(async move { client.show_document(show).await });
            }
        }
        all
    }

    /// A message that was not JSON reached the server (see `input`).
    async fn malformed(&self, params: serde_json::Value) {
        let problem = params["problem"].as_str().unwrap_or("malformed message");
        let text = format!("mutiny: ignored a malformed message: {problem}");
        self.client.log_message(MessageType::WARNING, text).await;
    }

    /// The findings of a document, with an index of the text they were
    /// found in; none while paused.
    fn findings(&self, uri: &Uri) -> Option<(Vec<Finding>, SourceIndex)> {
        let shared = lock(&self.shared);
        if shared.is_paused() {
            return None;
        }
        let findings = shared.documents.findings(&uri.to_string()).to_vec();
        let index = SourceIndex::new(&findings.first()?.mutant.source_file.code);
        Some((findings, index))
    }
}

fn root_of(params: &InitializeParams) -> Option<PathBuf> {
    let from_folder = params
        .workspace_folders
        .as_ref()
        .and_then(|folders| folders.first())
        .and_then(|folder| folder.uri.to_file_path().map(|p| p.into_owned()));
    #[allow(deprecated)]
    from_folder.or_else(|| {
        params
            .root_uri
            .as_ref()
            .and_then(|uri| uri.to_file_path().map(|p| p.into_owned()))
    })
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        *lock(&self.root) = root_of(&params);
        let code_lens_refresh = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false);
        self.code_lens_refresh
            .store(code_lens_refresh, Ordering::SeqCst);
        let client_watches = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|c| c.dynamic_registration)
            .unwrap_or(false);
        self.client_watches.store(client_watches, Ordering::SeqCst);
        match Settings::from_json(params.initialization_options.as_ref()) {
            Ok(settings) => *lock(&self.settings) = settings,
            Err(err) => return Err(jsonrpc::Error::invalid_params(err)),
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "mutiny".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::NONE),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(false),
                        })),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                    ..ExecuteCommandOptions::default()
                }),
                ..ServerCapabilities::default()
            },
            ..InitializeResult::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let lens_refresh = self.code_lens_refresh.load(Ordering::SeqCst);
        tokio::spawn(publish::publish(
            self.client.clone(),
            receiver,
            lens_refresh,
        ));
        *lock(&self.messages) = Some(sender.clone());
        let Some(root) = lock(&self.root).clone() else {
            self.client
                .show_message(
                    MessageType::WARNING,
                    "mutiny: no folder is open, so there is no cargo workspace to test",
                )
                .await;
            return;
        };
        let (tasks, task_receiver) = std::sync::mpsc::channel();
        self.watch_files(&root, &tasks);
        let shared = self.shared.clone();
        let settings = lock(&self.settings).clone();
        let handle = std::thread::Builder::new()
            .name("mutiny-worker".to_owned())
            .spawn(move || worker::run(root, task_receiver, sender, shared, settings))
            .expect("spawn the worker thread");
        *lock(&self.engine.tasks) = Some(tasks);
        *lock(&self.engine.worker) = Some(handle);
        // Builds the tests in the background while the user edits, so that
        // the first save waits only for an incremental build.
        let warm_up = {
            let settings = lock(&self.settings);
            settings.on_save || settings.on_open
        };
        if warm_up {
            self.queue(Job::WarmUp);
        }
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        let engine = self.engine.clone();
        let _ = tokio::task::spawn_blocking(move || {
            engine.stop();
            // Clients may kill the server once it answers (eglot does).
            crate::lab::scratch::remove_process_temp_dir();
        })
        .await;
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.guard_notification("textDocument/didOpen", async move {
            if lock(&self.settings).on_open {
                self.queue_test(params.text_document.uri);
            }
        })
        .await
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.guard_notification("workspace/didChangeConfiguration", async move {
            let current = lock(&self.settings).clone();
            match current.updated(Some(&params.settings)) {
                Ok(settings) => {
                    *lock(&self.settings) = settings.clone();
                    self.send_task(Task::Configure(Box::new(settings)));
                }
                Err(err) => {
                    self.send_message(Message::Show(MessageType::ERROR, format!("mutiny: {err}")))
                }
            }
        })
        .await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.guard_notification("workspace/didChangeWatchedFiles", async move {
            let Some(root) = lock(&self.root).clone() else {
                return;
            };
            let paths: Vec<PathBuf> = params
                .changes
                .iter()
                .filter_map(|change| change.uri.to_file_path().map(|p| p.into_owned()))
                .filter(|path| watch::relevant(&root, path))
                .collect();
            if !paths.is_empty() {
                self.send_task(Task::Changed { paths });
            }
        })
        .await
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.guard_notification("textDocument/didSave", async move {
            if lock(&self.settings).on_save {
                self.queue_test(params.text_document.uri);
            }
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        self.guard("textDocument/hover", async move {
            inject_panic("hover");
            let document = params.text_document_position_params;
            let Some((findings, index)) = self.findings(&document.text_document.uri) else {
                return Ok(None);
            };
            let offset = from_proto::offset(&index, document.position);
            Ok(findings
                .iter()
                .find(|f| {
                    let range = f.byte_range();
                    range.start <= offset && offset <= range.end
                })
                .map(|f| to_proto::hover(&index, f)))
        })
        .await
    }

    async fn code_action(
        &self,
        params: CodeActionParams,
    ) -> jsonrpc::Result<Option<CodeActionResponse>> {
        self.guard("textDocument/codeAction", async move {
            let uri = params.text_document.uri;
            let Some((findings, index)) = self.findings(&uri) else {
                return Ok(None);
            };
            let manifests = lock(&self.shared).manifests.clone();
            let mut skip_actions: Vec<(String, tower_lsp_server::ls_types::CodeAction)> =
                Vec::new();
            let mut commands = Vec::new();
            for diagnostic in &params.context.diagnostics {
                // Clients hand back our diagnostics reshaped (fields dropped or
                // renamed, ranges moved with edits); `data` names the mutant.
                // Without it, the range and message must match.
                let Some(finding) =
                    findings
                        .iter()
                        .find(|f| match from_proto::mutant_name(diagnostic) {
                            Some(name) => f.mutant.name == name,
                            None => {
                                let ours = to_proto::diagnostic(&index, f);
                                ours.range == diagnostic.range && ours.message == diagnostic.message
                            }
                        })
                else {
                    continue;
                };
                commands.push(CodeActionOrCommand::Command(to_proto::retest_command(
                    finding,
                )));
                commands.push(CodeActionOrCommand::Command(to_proto::show_diff_command(
                    finding,
                )));
                let manifest = manifests.get(&finding.mutant.source_file.package);
                let fix =
                    manifest.and_then(|m| crate::skip::skip_fix(&finding.mutant, m).ok().flatten());
                let Some(fix) = fix else { continue };
                match skip_actions
                    .iter_mut()
                    .find(|(name, _)| *name == fix.function_name)
                {
                    Some((_, action)) => action
                        .diagnostics
                        .get_or_insert_default()
                        .push(diagnostic.clone()),
                    None => {
                        let action =
                            to_proto::skip_action(&uri, &index, &fix, vec![diagnostic.clone()]);
                        skip_actions.push((fix.function_name.clone(), action));
                    }
                }
            }
            let mut actions: Vec<CodeActionOrCommand> = skip_actions
                .into_iter()
                .map(|(_, action)| CodeActionOrCommand::CodeAction(action))
                .collect();
            actions.extend(commands);
            Ok(Some(actions))
        })
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> jsonrpc::Result<Option<Vec<CodeLens>>> {
        self.guard("textDocument/codeLens", async move {
            Ok(self
                .findings(&params.text_document.uri)
                .map(|(findings, index)| to_proto::code_lenses(&index, &findings)))
        })
        .await
    }

    async fn execute_command(
        &self,
        params: ExecuteCommandParams,
    ) -> jsonrpc::Result<Option<LSPAny>> {
        self.guard("workspace/executeCommand", async move {
            let strings: Vec<String> = params
                .arguments
                .iter()
                .flat_map(|a| match a {
                    LSPAny::Array(items) => items.clone(),
                    other => vec![other.clone()],
                })
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect();
            match params.command.as_str() {
                SHOW_DIFF_COMMAND => Ok(Some(LSPAny::String(self.show_diffs(&strings).await))),
                TEST_FILE_COMMAND => {
                    let Some(uri) = strings.first().and_then(|u| u.parse::<Uri>().ok()) else {
                        return Err(jsonrpc::Error::invalid_params(
                            "mutiny.testFile takes a file URI",
                        ));
                    };
                    self.queue_test(uri);
                    Ok(None)
                }
                TEST_WORKSPACE_COMMAND => {
                    self.queue(Job::Workspace);
                    Ok(None)
                }
                RETEST_COMMAND => {
                    self.queue(Job::Retest(strings));
                    Ok(None)
                }
                CANCEL_COMMAND => {
                    self.cancel_all();
                    Ok(None)
                }
                PAUSE_COMMAND => {
                    self.pause();
                    Ok(None)
                }
                RESUME_COMMAND => {
                    self.resume();
                    Ok(None)
                }
                other => Err(jsonrpc::Error::invalid_params(format!(
                    "unknown command {other:?}"
                ))),
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panicking_thread_still_serves() {
        let shared = Arc::new(Mutex::new(vec![1]));
        let holder = shared.clone();
        let panicked = std::thread::spawn(move || {
            let _guard = holder.lock().unwrap();
            panic!("a worker's bug while holding the lock");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        lock(&shared).push(2);
        assert_eq!(*lock(&shared), [1, 2]);
    }
}
