//! `mutiny lsp` end to end: the real binary, spoken to over stdio as an
//! editor does, on copies of the fixture crates.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;
use support::{
    assert_unchanged, copy_of, fixture, kill_seed, processes_of_tmpdir, tree_snapshot, Moments,
    EXAMPLE_MISSED,
};

/// Long enough for a cold build of a fixture and its mutants on 2 cores.
const RESULTS_WAIT: Duration = Duration::from_secs(240);

/// A running `mutiny lsp` and what it has said so far.
struct Server {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications and server requests not consumed yet.
    notifications: Vec<Value>,
    /// The latest diagnostics published for each URI.
    diagnostics: BTreeMap<String, Vec<Value>>,
    /// The `$/progress` values received, in order.
    progress: Vec<Value>,
    tmp: tempfile::TempDir,
    /// Cleared, the client stops reading the server's output (after the
    /// message it is reading, if any), as a client that hangs would.
    reading: Arc<AtomicBool>,
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Server {
    fn start() -> Server {
        Server::start_with_env(&[])
    }

    /// A server with these variables added to its environment.
    fn start_with_env(env: &[(&str, &str)]) -> Server {
        Server::start_in(env, tempfile::tempdir().unwrap())
    }

    /// A server with these variables added and `tmp` as its TMPDIR.
    fn start_in(env: &[(&str, &str)], tmp: tempfile::TempDir) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mutiny"))
            .arg("lsp")
            .envs(env.iter().copied())
            .env("TMPDIR", tmp.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mutiny lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, incoming) = std::sync::mpsc::channel();
        let reading = Arc::new(AtomicBool::new(true));
        let reader_reading = reading.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                while !reader_reading.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                let Some(message) = read_message(&mut reader) else {
                    break;
                };
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            incoming,
            next_id: 1,
            notifications: Vec::new(),
            diagnostics: BTreeMap::new(),
            progress: Vec::new(),
            tmp,
            reading,
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Takes the next message, answering server requests and recording
    /// diagnostics; `None` after `limit`.
    fn receive(&mut self, limit: Duration) -> Option<Value> {
        let message = match self.incoming.recv_timeout(limit) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        };
        if message.get("method").is_some() && message.get("id").is_some() {
            let id = message["id"].clone();
            self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
        }
        if message["method"] == "textDocument/publishDiagnostics" {
            let params = &message["params"];
            let list = params["diagnostics"].as_array().unwrap().clone();
            self.diagnostics
                .insert(params["uri"].as_str().unwrap().to_owned(), list);
        }
        if message["method"] == "$/progress" {
            self.progress.push(message["params"].clone());
        }
        Some(message)
    }

    /// True when a `window/logMessage` containing `text` arrived.
    fn logged(&self, text: &str) -> bool {
        self.notifications.iter().any(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|t| t.contains(text))
        })
    }

    /// The messages of the `$/progress` ends received so far.
    fn ends(&self) -> Vec<String> {
        self.progress
            .iter()
            .filter(|p| p["value"]["kind"] == "end")
            .map(|p| p["value"]["message"].as_str().unwrap_or("").to_owned())
            .collect()
    }

    /// Mutants tested and missed over the runs that ended after the
    /// first `skip` (a save's changed functions, then the earlier results
    /// re-tested).
    fn tested_and_missed_since(&self, skip: usize) -> (usize, usize) {
        self.ends()[skip..]
            .iter()
            .map(|end| {
                let numbers: Vec<usize> = end
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|n| n.parse().ok())
                    .collect();
                assert_eq!(numbers.len(), 2, "not a run's totals: {end}");
                (numbers[0], numbers[1])
            })
            .fold((0, 0), |(t, m), (dt, dm)| (t + dt, m + dm))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .receive(left)
                .unwrap_or_else(|| panic!("no answer to {method}"));
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// Runs a server command; it must succeed.
    fn execute(&mut self, command: &str, arguments: Value) {
        let answer = self.request(
            "workspace/executeCommand",
            json!({"command": command, "arguments": arguments}),
        );
        assert!(answer.get("error").is_none(), "{command}: {answer}");
    }

    /// Waits until `done` holds for the server's state, reading messages.
    fn wait_until(&mut self, what: &str, mut done: impl FnMut(&Server) -> bool) {
        let deadline = Instant::now() + RESULTS_WAIT;
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "timed out waiting for {what}");
            if let Some(message) = self.receive(left.min(Duration::from_millis(500))) {
                self.notifications.push(message);
            }
        }
    }

    fn initialize(&mut self, root: &Path) {
        self.initialize_with(root, Value::Null);
    }

    fn initialize_with(&mut self, root: &Path, options: Value) {
        self.initialize_as(root, options, json!({}));
    }

    /// Initializes as a client with these capabilities.
    fn initialize_as(&mut self, root: &Path, options: Value, capabilities: Value) {
        let answer = self.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(root), "capabilities": capabilities,
                   "initializationOptions": options}),
        );
        assert!(
            answer["result"]["capabilities"]["hoverProvider"] == true,
            "{answer}"
        );
        self.notify("initialized", json!({}));
    }

    fn save(&mut self, path: &Path) {
        let text = std::fs::read_to_string(path).unwrap();
        let document = json!({"uri": uri(path), "languageId": "rust", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": document}));
        self.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri(path)}}),
        );
    }

    fn shown_messages(&self) -> Vec<&Value> {
        self.notifications
            .iter()
            .filter(|m| m["method"] == "window/showMessage")
            .map(|m| &m["params"])
            .collect()
    }

    /// Shuts down and exits; the process must end and leave no scratch
    /// tree in its TMPDIR.
    fn stop(mut self) {
        let answer = self.request("shutdown", Value::Null);
        assert!(answer.get("error").is_none(), "{answer}");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "mutiny lsp did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
        let left: Vec<PathBuf> = std::fs::read_dir(self.tmp.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A copy of the example fixture and a server that has tested its
/// `src/lib.rs` once.
struct Example {
    _dir: tempfile::TempDir,
    root: PathBuf,
    lib: PathBuf,
    /// The URI of `src/lib.rs`.
    key: String,
}

/// A copy of a fixture, and a server to which its `src/lib.rs` was saved.
fn saved(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf, Server) {
    let (dir, root) = copy_of(name);
    let lib = root.join("src/lib.rs");
    let mut server = Server::start();
    server.initialize(&root);
    server.save(&lib);
    (dir, root, lib, server)
}

fn tested_example() -> (Example, Server) {
    let (dir, root, lib, mut server) = saved("example");
    let key = uri(&lib);
    server.wait_until("the file's run", |s| s.ends().len() == 1);
    let example = Example {
        _dir: dir,
        root,
        lib,
        key,
    };
    (example, server)
}

/// `src/lib.rs:58:28: replace && with || in compatible` → its description.
fn description(name: &str) -> &str {
    name.splitn(4, ':').nth(3).unwrap().trim()
}

#[test]
fn missed_mutants_become_warnings_with_hover_code_lens_and_diff() {
    let before = tree_snapshot(&fixture("example"));
    let (
        Example {
            _dir, root, key, ..
        },
        mut server,
    ) = tested_example();
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);
    let begin = &server.progress[0]["value"];
    assert_eq!(begin["kind"], "begin");
    assert_eq!(begin["title"], "mutiny");
    assert_eq!(begin["message"], "0/27 mutants · src/lib.rs");
    let diagnostics = server.diagnostics[&key].clone();
    let mut messages: Vec<String> = diagnostics
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    messages.sort();
    let mut expected: Vec<String> = EXAMPLE_MISSED
        .iter()
        .map(|name| format!("missed mutant: {} — tests still pass", description(name)))
        .collect();
    expected.sort();
    assert_eq!(messages, expected);
    for diagnostic in &diagnostics {
        assert_eq!(diagnostic["severity"], 2, "Warning: {diagnostic}");
        assert_eq!(diagnostic["source"], "mutiny");
    }

    // `&&` in `compatible` is at line 58, column 28 (1-based).
    let and = diagnostics
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("replace && with ||")
        })
        .unwrap();
    assert_eq!(and["code"], "BinaryOperator");
    assert_eq!(and["range"]["start"], json!({"line": 57, "character": 27}));
    assert_eq!(and["range"]["end"], json!({"line": 57, "character": 29}));
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": key}, "position": {"line": 57, "character": 28}}),
    );
    let hover_text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        hover_text.contains("src/lib.rs:58:28: replace && with || in compatible")
            && hover_text.contains("```diff")
            && hover_text.contains("+        version.major == 0 || /* ~ changed by mutiny ~ */"),
        "{hover_text}"
    );

    let lenses = server.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": key}}),
    );
    let mut titles: Vec<String> = lenses["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap().to_owned())
        .collect();
    titles.sort();
    assert_eq!(
        titles,
        [
            "3 missed mutants · show diff",
            "3 missed mutants · show diff",
            "5 missed mutants · show diff"
        ]
    );
    let diff = server.request(
        "workspace/executeCommand",
        json!({"command": "mutiny.showMutantDiff", "arguments": [EXAMPLE_MISSED[8]]}),
    );
    let diff = diff["result"].as_str().unwrap();
    assert!(
        diff.starts_with("--- src/lib.rs\n+++ replace && with ||"),
        "{diff}"
    );
    server.wait_until("a request to show the diff file", |s| {
        s.notifications
            .iter()
            .any(|m| m["method"] == "window/showDocument")
    });
    let shown = server
        .notifications
        .iter()
        .find(|m| m["method"] == "window/showDocument")
        .unwrap()["params"]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    let diff_file = PathBuf::from(shown.strip_prefix("file://").unwrap());
    assert!(
        diff_file.starts_with(root.join("target/mutiny/diff")),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(&diff_file).unwrap(), diff);

    server.stop();
    // Only build output (target/) may appear; the sources are untouched.
    std::fs::remove_dir_all(root.join("target")).unwrap();
    assert_unchanged(&root, &before);
}

#[test]
fn mutants_request_gives_both_texts_and_status_notifications_follow_the_run() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    let statuses: Vec<Value> = server
        .notifications
        .iter()
        .filter(|m| m["method"] == "mutiny/status")
        .map(|m| m["params"].clone())
        .collect();
    assert_eq!(
        statuses.first(),
        Some(&json!({"state": "running", "done": 0, "total": 27, "title": "src/lib.rs"}))
    );
    assert_eq!(
        statuses.last(),
        Some(&json!({"state": "idle", "done": 27, "total": 27, "title": "src/lib.rs"}))
    );
    let done: Vec<u64> = statuses
        .iter()
        .map(|s| s["done"].as_u64().unwrap())
        .collect();
    assert!(done.windows(2).all(|w| w[0] <= w[1]), "{done:?}");
    assert_eq!(statuses.len(), 29, "begin, one per mutant, end");

    // `&&` in `compatible`, and a name that is not a finding.
    let name = EXAMPLE_MISSED[8];
    let answer = server.request(
        "mutiny/mutants",
        json!({"names": ["src/lib.rs:1:1: not a mutant", name]}),
    );
    let found = answer["result"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{answer}");
    let mutant = &found[0];
    let original = std::fs::read_to_string(&lib).unwrap();
    assert_eq!(mutant["name"], name);
    assert_eq!(mutant["uri"], key.as_str());
    assert_eq!(mutant["verdict"], "missed");
    assert_eq!(
        mutant["range"],
        json!({"start": {"line": 57, "character": 27}, "end": {"line": 57, "character": 29}})
    );
    assert_eq!(mutant["original"], original.as_str());
    let mutated = mutant["mutated"].as_str().unwrap();
    assert_eq!(
        mutated,
        original.replacen(
            "version.major == 0 &&",
            "version.major == 0 || /* ~ changed by mutiny ~ */",
            1
        )
    );
    assert!(mutant["diff"]
        .as_str()
        .unwrap()
        .starts_with("--- src/lib.rs\n+++ replace && with ||"));
    server.stop();
}

#[test]
fn an_edited_mutants_toml_applies_without_a_restart_and_a_broken_one_is_shown() {
    let (
        Example {
            _dir,
            root,
            lib,
            key,
        },
        mut server,
    ) = tested_example();
    assert_eq!(server.diagnostics[&key].len(), 11);
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    let config = root.join(".cargo/mutants.toml");
    // `compatible` has 5 mutants, 3 of them missed.
    std::fs::write(&config, "exclude_re = [\"in compatible$\"]\n").unwrap();
    server.save(&lib);
    server.wait_until("the run with the new config", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "22 earlier results re-tested, 8 missed");
    let messages: Vec<String> = server.diagnostics[&key]
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(messages.len(), 8);
    assert!(
        messages.iter().all(|m| !m.contains("compatible")),
        "{messages:?}"
    );
    assert!(server.logged(".cargo/mutants.toml changed"));

    std::fs::write(
        &config,
        "exclude_re = [\"in compatible$\"]\nno_such_key = 1\n",
    )
    .unwrap();
    server.save(&lib);
    server.wait_until("the run with the broken config", |s| s.ends().len() == 3);
    let shown = server.shown_messages();
    let error = shown
        .iter()
        .find(|m| m["type"] == 1)
        .unwrap_or_else(|| panic!("no error message: {shown:?}"));
    let text = error["message"].as_str().unwrap();
    assert!(
        text.contains("mutants.toml") && text.contains("no_such_key"),
        "{text}"
    );
    assert!(text.contains("keeps its previous options"), "{text}");
    assert_eq!(server.ends()[2], "22 earlier results re-tested, 8 missed");
    server.stop();
}

/// Puts a comment line at the top of `lib` (every finding moves a line
/// down) and saves it.
fn save_with_a_new_first_line(server: &mut Server, lib: &Path) {
    let text = std::fs::read_to_string(lib).unwrap();
    std::fs::write(lib, format!("// a new first line\n{text}")).unwrap();
    server.save(lib);
}

#[test]
fn after_a_save_that_moves_code_known_findings_show_at_once_at_their_new_lines() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    save_with_a_new_first_line(&mut server, &lib);
    // Before the second run's first result, the findings are back, one
    // line lower.
    server.wait_until("the second run's start", |s| {
        s.progress
            .iter()
            .filter(|p| p["value"]["kind"] == "begin")
            .count()
            == 2
    });
    let early = server.diagnostics[&key].clone();
    assert_eq!(early.len(), 11, "{early:?}");
    let and = early
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("replace && with ||")
        })
        .unwrap();
    assert_eq!(and["range"]["start"], json!({"line": 58, "character": 27}));
    server.wait_until("the second run", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "27 earlier results re-tested, 11 missed");
    let after = &server.diagnostics[&key];
    assert_eq!(after.len(), 11, "each finding once: {after:?}");
    let mut lines: Vec<u64> = after
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    lines.sort();
    lines.dedup();
    assert_eq!(lines, [30, 51, 58]);
    server.stop();
}

#[test]
fn a_server_started_with_a_broken_mutants_toml_says_so_and_tests_with_the_defaults() {
    let (_dir, root) = copy_of("example");
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    std::fs::write(root.join(".cargo/mutants.toml"), "exclude_re = [\"(\"]\n").unwrap();
    let lib = root.join("src/lib.rs");
    let mut server = Server::start();
    server.initialize(&root);
    server.wait_until("the error message", |s| {
        s.shown_messages().iter().any(|m| m["type"] == 1)
    });
    let shown = server.shown_messages();
    let text = shown[0]["message"].as_str().unwrap().to_owned();
    assert!(
        text.contains("exclude_re") || text.contains("regex"),
        "{text}"
    );
    server.save(&lib);
    server.wait_until("the file's run", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);
    // Fixed: the next save follows the file.
    std::fs::write(
        root.join(".cargo/mutants.toml"),
        "exclude_re = [\"in compatible$\"]\n",
    )
    .unwrap();
    server.save(&lib);
    server.wait_until("the run with the fixed file", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "22 earlier results re-tested, 8 missed");
    server.stop();
}

#[test]
fn failing_baseline_is_shown_as_an_error_on_the_failing_test_until_it_passes() {
    let (_dir, _root, lib, mut server) = saved("failing_baseline");
    server.wait_until("an error message", |s| {
        s.shown_messages().iter().any(|m| m["type"] == 1)
    });
    let error = server
        .shown_messages()
        .into_iter()
        .find(|m| m["type"] == 1)
        .unwrap()
        .clone();
    let text = error["message"].as_str().unwrap();
    assert!(text.contains("two_plus_two_is_five"), "{text}");
    let key = uri(&lib);
    server.wait_until("the run's end", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["the unmutated tests fail"]);
    // One error, on the failing test's name (line 17: `fn two_plus_two_is_five()`),
    // and no mutant reported.
    let diagnostics = &server.diagnostics[&key];
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], 1);
    assert_eq!(diagnostics[0]["code"], "baseline");
    assert_eq!(
        diagnostics[0]["range"],
        json!({"start": {"line": 16, "character": 7}, "end": {"line": 16, "character": 27}})
    );

    // Fixed: the baseline passes, its error goes, and the mutants are tested.
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, text.replace("add(2, 2), 5)", "add(2, 3), 5)")).unwrap();
    server.save(&lib);
    server.wait_until("the second run's end", |s| s.ends().len() == 2);
    assert!(
        server.ends()[1].ends_with("0 missed"),
        "{:?}",
        server.ends()
    );
    assert!(
        server.diagnostics[&key].is_empty(),
        "{:?}",
        server.diagnostics[&key]
    );
    server.stop();
}

#[test]
fn a_folder_without_a_cargo_workspace_gets_a_message_and_the_server_stays_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start();
    server.initialize(dir.path());
    server.wait_until("a message", |s| !s.shown_messages().is_empty());
    let message = server.shown_messages()[0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("not in a cargo workspace"), "{message}");
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&dir.path().join("x.rs"))},
               "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["result"], Value::Null);
    server.stop();
}

#[test]
fn malformed_messages_get_an_error_and_the_server_keeps_answering() {
    let (_dir, root) = copy_of("example");
    let mut server = Server::start();
    server.initialize(&root);
    let garbage = "{ this is not json";
    write!(
        server.stdin,
        "Content-Length: {}\r\n\r\n{garbage}",
        garbage.len()
    )
    .unwrap();
    server.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "no/such/method"}));
    let answer = server.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri(&root.join("src/lib.rs"))}}),
    );
    assert_eq!(answer["result"], Value::Null);
    let unknown = server.notifications.iter().find(|m| m["id"] == 99).cloned();
    assert!(unknown.is_some_and(|m| m.get("error").is_some()));
    server.wait_until("a log of the malformed message", |s| {
        s.notifications.iter().any(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("malformed")
        })
    });
    server.stop();
}

/// Applies one document's text edits (LSP ranges, UTF-16; the fixtures
/// are ASCII) to the file, as an editor would, last edit first.
fn apply_edits(path: &Path, edits: &[Value]) {
    let text = std::fs::read_to_string(path).unwrap();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |position: &Value| {
        line_starts[position["line"].as_u64().unwrap() as usize]
            + position["character"].as_u64().unwrap() as usize
    };
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            let start = offset(&e["range"]["start"]).min(text.len());
            let end = offset(&e["range"]["end"]).min(text.len());
            (start, end, e["newText"].as_str().unwrap())
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut text = text;
    for (start, end, new_text) in edits {
        text.replace_range(start..end, new_text);
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn skip_quick_fix_adds_the_attribute_and_dependency_and_the_function_yields_no_mutants() {
    let (
        Example {
            _dir,
            root,
            lib,
            key,
            ..
        },
        mut server,
    ) = tested_example();
    let manifest = root.join("Cargo.toml");
    let in_compatible: Vec<Value> = server.diagnostics[&key]
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .ends_with("in compatible — tests still pass")
        })
        .cloned()
        .collect();
    assert_eq!(in_compatible.len(), 3);
    let answer = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": key}, "range": in_compatible[0]["range"],
               "context": {"diagnostics": in_compatible}}),
    );
    let actions = answer["result"].as_array().unwrap();
    let skip = actions
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("no quick fix in {answer}"));
    assert_eq!(
        skip["title"],
        "Skip mutants in fn compatible (#[mutants::skip])"
    );
    assert_eq!(skip["isPreferred"], true);
    assert_eq!(
        skip["diagnostics"].as_array().unwrap().len(),
        3,
        "one action for the function"
    );
    // One of each per mutant, named, so a line's mutants can be told apart.
    for (title, command) in [
        ("Re-test this mutant", "mutiny.retestMutant"),
        ("Show mutant diff", "mutiny.showMutantDiff"),
    ] {
        for diagnostic in &in_compatible {
            let what = diagnostic["message"]
                .as_str()
                .unwrap()
                .trim_start_matches("missed mutant: ")
                .trim_end_matches(" — tests still pass");
            let title = format!("{title}: {what}");
            assert!(
                actions
                    .iter()
                    .any(|a| a["title"] == title.as_str() && a["command"] == command),
                "{title} in {answer}"
            );
        }
    }
    let changes = &skip["edit"]["changes"];
    let lib_edits = changes[&key].as_array().unwrap();
    assert_eq!(
        lib_edits[0],
        json!({"range": {"start": {"line": 55, "character": 0}, "end": {"line": 55, "character": 0}},
               "newText": "#[mutants::skip]\n"})
    );
    let manifest_edits = changes[&uri(&manifest)].as_array().unwrap();
    apply_edits(&lib, lib_edits);
    apply_edits(&manifest, manifest_edits);
    let manifest_text = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        manifest_text.contains("[dependencies]\nmutants = \"0.0.4\"\n"),
        "{manifest_text}"
    );
    let lib_text = std::fs::read_to_string(&lib).unwrap();
    assert!(
        lib_text.contains("\n#[mutants::skip]\nfn compatible("),
        "{lib_text}"
    );

    // Saving the edited file: `compatible` yields no mutants any more, the
    // crate builds with its new dependency, and the other 8 stay missed.
    server.save(&lib);
    server.wait_until("the end of the second run", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "20 earlier results re-tested, 8 missed");
    assert_eq!(server.diagnostics[&key].len(), 8);
    assert!(server.diagnostics[&key]
        .iter()
        .all(|d| !d["message"].as_str().unwrap().contains("in compatible")));
    server.stop();
}

#[test]
fn a_second_save_cancels_the_stale_run_and_the_new_one_reports() {
    let (_dir, _root, lib, mut server) = saved("example");
    server.wait_until("a first mutant's result", |s| {
        s.progress.iter().any(|p| p["value"]["kind"] == "report")
    });
    server.save(&lib);
    // The mutants the cancelled run gave verdicts go last, re-tested.
    server.wait_until("the new runs' ends, 27 mutants in all", |s| {
        s.ends().len() >= 2 && s.tested_and_missed_since(1).0 == 27
    });
    assert_eq!(server.ends()[0], "cancelled");
    assert_eq!(server.tested_and_missed_since(1), (27, 11));
    assert_eq!(server.diagnostics[&uri(&lib)].len(), EXAMPLE_MISSED.len());
    server.stop();
}

#[test]
fn commands_settings_and_both_save_scopes() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    let mut server = Server::start();
    server.initialize_with(&root, json!({"mutiny": {"onSave": false, "jobs": 1}}));
    // A configuration message without mutiny's keys (eglot sends one right
    // after `initialized`) keeps them. With onSave off a save queues
    // nothing: the first run to end is the one the command asks for (a run
    // queued by the save would end first, cancelled by the command's).
    server.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    server.save(&lib);
    server.execute("mutiny.testFile", json!([key]));
    server.wait_until("the file's run", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);

    // changedFunctions: after `compatible` changes, only its 7 mutants are
    // tested; the other functions' 8 missed mutants are carried over.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"mutiny": {"scope": "changedFunctions", "onSave": true}}}),
    );
    let text = std::fs::read_to_string(&lib).unwrap();
    let edited = text.replacen(
        "    if required.major == 0 {",
        "    // A comment changes the function's text.\n    if required.major == 0 {",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&lib, edited).unwrap();
    server.save(&lib);
    server.wait_until("the changed function's run", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "7 mutants tested, 3 missed");
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());
    // The other functions' verdicts are shown as earlier results until
    // they are tested again, in a run of their own after the changed ones.
    let earlier = |s: &Server| {
        s.diagnostics[&key]
            .iter()
            .filter(|d| {
                d["message"]
                    .as_str()
                    .unwrap()
                    .ends_with("(earlier result, to be tested again)")
            })
            .count()
    };
    assert_eq!(earlier(&server), 8, "{:?}", server.diagnostics[&key]);
    server.wait_until("the re-test of earlier results", |s| s.ends().len() == 3);
    assert_eq!(server.ends()[2], "20 earlier results re-tested, 8 missed");
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());
    assert_eq!(earlier(&server), 0, "{:?}", server.diagnostics[&key]);

    server.execute("mutiny.retestMutant", json!([EXAMPLE_MISSED[0]]));
    server.wait_until("the retest", |s| s.ends().len() == 4);
    assert_eq!(server.ends()[3], "1 mutant tested, 1 missed");
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());

    // file: a save tests every mutant of the file in one run, the changed
    // function's first.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"mutiny": {"scope": "file"}}}),
    );
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, text.replace("// A comment", "// Another comment")).unwrap();
    server.save(&lib);
    server.wait_until("the file's run", |s| s.ends().len() == 5);
    assert_eq!(server.ends()[4], "27 mutants tested, 11 missed");

    server.execute("mutiny.testWorkspace", json!([]));
    server.execute("mutiny.cancel", json!([]));
    // Dropped if cancelled before it started, else ended as cancelled.
    server.wait_until("the cancelled workspace run", |s| {
        s.logged("job cancelled before it started") || s.ends().len() == 6
    });
    assert!(server.ends().len() == 5 || server.ends()[5] == "cancelled");
    server.stop();
}

/// Writes the example's `tests/stability.rs`, an integration test that
/// catches `is_stable`'s 5 missed mutants; returns its path.
fn write_stability_test(root: &Path) -> PathBuf {
    let test_file = root.join("tests/stability.rs");
    std::fs::create_dir_all(test_file.parent().unwrap()).unwrap();
    std::fs::write(
        &test_file,
        "use example::Version;\n\n#[test]\nfn only_major_versions_above_zero_are_stable() {\n    \
         assert!(Version::parse(\"1.0.0\").unwrap().is_stable());\n    \
         assert!(!Version::parse(\"0.1.0\").unwrap().is_stable());\n}\n",
    )
    .unwrap();
    test_file
}

#[test]
fn saving_an_integration_test_retests_the_packages_missed_mutants() {
    let (
        Example {
            _dir, root, key, ..
        },
        mut server,
    ) = tested_example();
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());

    // A new integration test that checks `is_stable`: its 5 missed mutants
    // are caught now; the package's 6 others stay missed.
    let test_file = write_stability_test(&root);
    server.save(&test_file);
    server.wait_until("the retest", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "11 mutants tested, 6 missed");
    let diagnostics = &server.diagnostics[&key];
    assert_eq!(diagnostics.len(), 6);
    assert!(diagnostics
        .iter()
        .all(|d| !d["message"].as_str().unwrap().contains("is_stable")));
    server.stop();
}

#[test]
fn a_restarted_server_shows_still_valid_results_without_testing() {
    let (
        Example {
            _dir,
            root,
            lib,
            key,
            ..
        },
        first,
    ) = tested_example();
    first.stop();
    let results = std::fs::read_to_string(root.join("target/mutiny/results.json")).unwrap();
    // With the verdicts, which test caught each function's mutants: the
    // next server runs it first.
    let results: Value = serde_json::from_str(&results).unwrap();
    let killer = &results["killers"]["src/lib.rs::<impl fmt::Display for Version>::fmt"];
    assert_eq!(killer["test"], "tests::displays_dotted", "{results}");

    // Change `compatible`: its 3 missed mutants are no longer known; the
    // other functions' 8 are.
    let text = std::fs::read_to_string(&lib).unwrap();
    let edited = text.replacen(
        "    if required.major == 0 {",
        "    // A comment changes the function's text.\n    if required.major == 0 {",
        1,
    );
    std::fs::write(&lib, edited).unwrap();
    let mut second = Server::start();
    second.initialize(&root);
    second.wait_until("the restore", |s| s.logged("known findings restored"));
    assert!(second.logged("mutiny: 8 known findings restored"));
    assert_eq!(second.diagnostics[&key].len(), 8);
    assert!(
        second.progress.is_empty(),
        "nothing was tested: {:?}",
        second.progress
    );
    assert!(second.diagnostics[&key]
        .iter()
        .all(|d| !d["message"].as_str().unwrap().contains("in compatible")));

    // A changed test invalidates them all: a third server shows nothing.
    second.stop();
    let text = std::fs::read_to_string(&lib).unwrap();
    let renamed = text.replace("fn parses_three_numbers()", "fn parses_3_numbers()");
    assert_ne!(renamed, text);
    std::fs::write(&lib, renamed).unwrap();
    let mut third = Server::start();
    third.initialize(&root);
    third.wait_until("the restore", |s| s.logged("known findings restored"));
    assert!(third.logged("mutiny: 0 known findings restored"));
    assert!(third.diagnostics.get(&key).is_none_or(|d| d.is_empty()));
    third.stop();
}

#[test]
fn broken_files_are_reported_in_the_log_and_the_server_keeps_answering() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    let mut server = Server::start();
    server.initialize(&root);
    let text = std::fs::read_to_string(&lib).unwrap();
    let save = |server: &mut Server| {
        server.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": key}}),
        );
    };

    // Mid-edit: a syntax error.
    std::fs::write(&lib, text.replace("self.major > 0", "self.major >")).unwrap();
    save(&mut server);
    server.wait_until("a syntax error in the log", |s| s.logged("syntax error"));
    // Not UTF-8.
    std::fs::write(&lib, b"fn f() {}\n\xff\xfe\n").unwrap();
    save(&mut server);
    server.wait_until("a non-UTF-8 file in the log", |s| s.logged("not UTF-8"));
    // Deleted.
    std::fs::remove_file(&lib).unwrap();
    save(&mut server);
    server.wait_until("a missing file in the log", |s| {
        s.logged("cannot read src/lib.rs")
    });

    assert!(server.progress.is_empty(), "nothing was tested");
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": key}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["result"], Value::Null);
    server.stop();
}

#[test]
fn missed_mutants_from_a_mutants_out_directory_show_while_their_code_is_unchanged() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    // The results of a CI run: `mutiny run` writes mutants.out/ in the
    // workspace, in cargo-mutants' layout.
    let run = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(["run", "-j", "2", "-d"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::remove_dir_all(root.join("target")).ok();

    let mut server = Server::start();
    server.initialize(&root);
    server.wait_until("the restore", |s| s.logged("known findings restored"));
    assert!(server.logged("mutiny: 11 known findings restored"));
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());
    server.stop();

    // Changing the end of `compatible` drops its 3 (their recorded diffs
    // show the changed lines); the other functions' 8 stay.
    let text = std::fs::read_to_string(&lib).unwrap();
    let edited = text.replacen(
        "        version.major == required.major\n    }\n}",
        "        version.major == required.major\n    }\n    // changed\n}",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&lib, edited).unwrap();
    let mut server = Server::start();
    server.initialize(&root);
    server.wait_until("the restore", |s| s.logged("known findings restored"));
    let logs: Vec<&Value> = server
        .notifications
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .collect();
    assert!(
        server.logged("mutiny: 8 known findings restored"),
        "{logs:?}"
    );
    server.stop();
}

#[test]
fn a_client_that_goes_away_mid_run_leaves_no_process_and_no_scratch_tree() {
    let (_dir, _root, _lib, mut server) = saved("example");
    server.wait_until("a first mutant's result", |s| {
        s.progress.iter().any(|p| p["value"]["kind"] == "report")
    });
    // The check for survivors below sees what the server runs.
    let server_pid = server.child.id() as i32;
    let started_by_the_server = |tmp: &Path| {
        processes_of_tmpdir(tmp)
            .into_iter()
            .filter(|(pid, _)| *pid != server_pid)
            .collect::<Vec<_>>()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while started_by_the_server(server.tmp.path()).is_empty() {
        assert!(Instant::now() < deadline, "no process of the run seen");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The editor crashes: stdin closes without shutdown or exit.
    let Server {
        child, stdin, tmp, ..
    } = server;
    drop(stdin);
    assert_exits_leaving_nothing(child, tmp.path());
}

/// SIGKILLs `mutiny lsp` at seeded random moments after a save (while it
/// copies, builds and tests; `MUTINY_KILL_SEED` replays a schedule): the
/// user's tree stays byte-identical and no process the server started
/// lives on; the next server in the same TMPDIR sweeps what the killed
/// ones left, and leaves nothing itself.
#[test]
fn a_server_killed_at_random_moments_leaves_nothing_running_and_the_next_sweeps() {
    let mut moments = Moments(kill_seed());
    let seed = moments.0;
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let before = tree_snapshot(&root);
    let mut tmp = tempfile::tempdir().unwrap();
    for kill in 0..3 {
        let at = Duration::from_millis(moments.next_below(8000));
        let context = format!("kill {kill}, {at:?} after the save (MUTINY_KILL_SEED={seed})");
        let mut server = Server::start_in(&[], tmp);
        server.initialize(&root);
        server.save(&lib);
        // The fault's moment is the point of the test, not a wait for an event.
        std::thread::sleep(at);
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        tmp = server.tmp;
        let deadline = Instant::now() + Duration::from_secs(15);
        while !processes_of_tmpdir(tmp.path()).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let survivors = processes_of_tmpdir(tmp.path());
        assert!(
            survivors.is_empty(),
            "{context}: still running: {survivors:?}"
        );
        assert_sources_intact_and_state_whole(&root, &before, &context);
    }
    let left = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("mutiny-")
        })
        .count();
    assert!(
        left > 0,
        "the killed servers left no scratch directory to sweep"
    );
    let mut server = Server::start_in(&[], tmp);
    server.initialize(&root);
    let swept = format!("removed {left} scratch directories");
    server.wait_until("the sweep's message", |s| s.logged(&swept));
    server.stop();
}

/// After a kill: everything outside `target/` is as `before` found it,
/// what appeared under `target/` is mutiny's own state (`target/mutiny`),
/// and the results cache there, if written, is whole JSON.
#[track_caller]
fn assert_sources_intact_and_state_whole(
    root: &Path,
    before: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    context: &str,
) {
    let after = tree_snapshot(root);
    let changed: Vec<&PathBuf> = before
        .keys()
        .chain(after.keys())
        .filter(|path| !path.starts_with("target") && before.get(*path) != after.get(*path))
        .collect();
    assert!(
        changed.is_empty(),
        "{context}: the user's tree changed: {changed:?}"
    );
    let foreign: Vec<&PathBuf> = after
        .keys()
        .filter(|path| {
            path.starts_with("target")
                && !before.contains_key(*path)
                && *path != Path::new("target")
                && !path.starts_with("target/mutiny")
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "{context}: written under target/: {foreign:?}"
    );
    if let Some(Some(cache)) = after.get(Path::new("target/mutiny/results.json")) {
        assert!(
            serde_json::from_slice::<serde_json::Value>(cache).is_ok(),
            "{context}: target/mutiny/results.json is torn: {}",
            String::from_utf8_lossy(cache)
        );
    }
}

/// A hover at the start of `line` of `uri` answered without an error
/// within a second.
#[track_caller]
fn assert_hover_answered_within_a_second(server: &mut Server, uri: &str, line: u32) {
    let asked = Instant::now();
    let answer = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}}),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
}

#[test]
fn unknown_methods_get_method_not_found_and_the_server_keeps_answering() {
    let (_dir, root) = copy_of("example");
    let mut server = Server::start();
    server.initialize(&root);
    let answer = server.request("mutiny/noSuchMethod", json!({"x": 1}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    server.notify("noSuchNotification", json!([1, 2]));
    server.notify("$/noSuchNotification", json!(null));
    let answer = server.request("textDocument/noSuchRequest", json!({}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert_hover_answered_within_a_second(&mut server, &uri(&root.join("src/lib.rs")), 0);
    server.stop();
}

/// The file being tested is deleted mid-run (the editor says so): the
/// server keeps answering, shows no finding for the deleted file, and
/// leaves nothing behind.
#[test]
fn a_file_deleted_while_its_mutants_are_tested_leaves_no_findings_and_the_server_answering() {
    let (_dir, _root, lib, mut server) = saved("example");
    let key = uri(&lib);
    server.wait_until("a first mutant's result", |s| {
        s.progress.iter().any(|p| p["value"]["kind"] == "report")
    });
    std::fs::remove_file(&lib).unwrap();
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": key}}),
    );
    server.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": key, "type": 3}]}),
    );
    assert_hover_answered_within_a_second(&mut server, &key, 0);
    server.wait_until("the run to end", |s| !s.ends().is_empty());
    server.wait_until("no finding for the deleted file", |s| {
        s.diagnostics.get(&key).is_none_or(Vec::is_empty)
    });
    assert_hover_answered_within_a_second(&mut server, &key, 0);
    server.stop();
}

/// The server's resident memory in KiB, from /proc.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap()
}

/// A client that stops reading for a minute while it goes on saving: the
/// server's output backs up, but the server lives, its memory stays
/// bounded, and once the client reads again it answers.
#[test]
fn a_client_that_stops_reading_for_a_minute_finds_the_server_alive_and_answering() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    // Memory is compared once rust-analyzer's model (a large part) is in.
    server.wait_until("the model", |s| {
        s.logged("rust-analyzer loaded the workspace")
    });
    let pid = server.child.id();
    let before = resident_kib(pid);
    server.reading.store(false, Ordering::SeqCst);
    let original = std::fs::read_to_string(&lib).unwrap();
    let start = Instant::now();
    let mut saves = 0;
    while start.elapsed() < Duration::from_secs(60) {
        // Small messages only: the client's own writes must not fill the
        // pipe while the server may have stopped reading too.
        std::fs::write(&lib, format!("// save {saves}\n{original}")).unwrap();
        server.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": key}}),
        );
        saves += 1;
        std::thread::sleep(Duration::from_secs(2));
        assert!(
            server.child.try_wait().unwrap().is_none(),
            "the server died"
        );
    }
    let during = resident_kib(pid);
    server.reading.store(true, Ordering::SeqCst);
    // The backlog comes first; then the answer.
    let answer = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": key}, "position": {"line": 0, "character": 0}}),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    eprintln!("resident memory {before} KiB before, {during} KiB after {saves} saves unread");
    assert!(
        during < before + 50 * 1024,
        "memory grew from {before} KiB to {during} KiB while the client did not read"
    );
    server.wait_until("the last save's run to end", |s| {
        s.ends().last().is_some_and(|e| e.contains("tested"))
    });
    server.stop();
}

/// `mutiny run` in the workspace a server is testing, at the same time:
/// neither disturbs the other (verdicts, the verdict cache, mutants.out),
/// and a second server on the same workspace (a second editor window)
/// keeps the cache whole too.
#[test]
fn a_run_and_two_servers_on_one_workspace_at_once_all_finish_with_the_same_verdicts() {
    let (_dir, root, lib, mut first) = saved("example");
    let mut second = Server::start();
    second.initialize(&root);
    second.save(&lib);
    let sandbox = tempfile::tempdir().unwrap();
    std::fs::create_dir(sandbox.path().join("tmp")).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(["run", "-j", "2", "-d", root.to_str().unwrap(), "-o"])
        .arg(sandbox.path())
        .env("TMPDIR", sandbox.path().join("tmp"))
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let missed = std::fs::read_to_string(sandbox.path().join("mutants.out/missed.txt")).unwrap();
    assert_eq!(missed.lines().count(), 11, "{missed}");
    for server in [&mut first, &mut second] {
        server.wait_until("the file's run", |s| !s.ends().is_empty());
        assert_eq!(server.ends()[0], "27 mutants tested, 11 missed");
    }
    first.stop();
    second.stop();
    let cache = std::fs::read_to_string(root.join("target/mutiny/results.json")).unwrap();
    let cache: Value = serde_json::from_str(&cache).unwrap();
    assert_eq!(cache["results"].as_array().unwrap().len(), 27, "{cache}");
}

/// Some clients kill the server the moment it answers `shutdown` (eglot
/// does): by then it has deleted everything it made in TMPDIR, its own
/// temporary directory included.
#[test]
fn a_server_killed_right_after_answering_shutdown_leaves_nothing_in_tmpdir() {
    let (Example { _dir, .. }, mut server) = tested_example();
    let answer = server.request("shutdown", Value::Null);
    assert!(answer.get("error").is_none(), "{answer}");
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let left: Vec<PathBuf> = std::fs::read_dir(server.tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

/// Waits for a server that lost its client, or was told to exit, to end;
/// then nothing may be left in its TMPDIR, and no process it started may
/// still run (a killed process takes a moment to go).
fn assert_exits_leaving_nothing(mut child: Child, tmp: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "mutiny lsp did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<PathBuf> = std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    let deadline = Instant::now() + Duration::from_secs(15);
    while !processes_of_tmpdir(tmp).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let survivors = processes_of_tmpdir(tmp);
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

#[test]
fn with_the_changed_functions_scope_a_changed_unit_test_invalidates_known_verdicts() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    let mut server = Server::start();
    server.initialize_with(&root, json!({"mutiny": {"scope": "changedFunctions"}}));
    server.save(&lib);
    server.wait_until("the first run", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);

    // Only the test module changes: no function's text does, but every
    // verdict may now differ, so all 27 are tested again; the new test
    // catches `is_stable`'s 5.
    let text = std::fs::read_to_string(&lib).unwrap();
    let edited = text.replacen(
        "    #[test]\n    fn counts() {",
        "    #[test]\n    fn stability() {\n        assert!(v(\"1.0.0\").is_stable());\n        \
         assert!(!v(\"0.1.0\").is_stable());\n    }\n\n    #[test]\n    fn counts() {",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&lib, edited).unwrap();
    server.save(&lib);
    server.wait_until("the second run", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "27 mutants tested, 6 missed");
    assert_eq!(server.diagnostics[&key].len(), 6);
    server.stop();
}

/// The diagnostics of a document: (severity, message) pairs, sorted.
fn shown(server: &Server, key: &str) -> Vec<(u64, String)> {
    let mut shown: Vec<(u64, String)> = server.diagnostics[key]
        .iter()
        .map(|d| {
            let severity = d["severity"].as_u64().unwrap();
            (severity, d["message"].as_str().unwrap().to_owned())
        })
        .collect();
    shown.sort();
    shown
}

#[test]
fn an_edit_that_breaks_a_test_reruns_the_baseline_and_keeps_the_findings() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);
    let original = std::fs::read_to_string(&lib).unwrap();

    // `displays_dotted` fails once Display writes dashes: no verdict can be
    // had, so none is given; the findings stay, next to the failing test.
    let broken = original.replace(r#""{}.{}.{}""#, r#""{}-{}-{}""#);
    assert_ne!(broken, original);
    std::fs::write(&lib, &broken).unwrap();
    server.save(&lib);
    server.wait_until("the second run's end", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "the unmutated tests fail");
    let diagnostics = shown(&server, &key);
    let errors: Vec<&(u64, String)> = diagnostics.iter().filter(|(s, _)| *s == 1).collect();
    assert_eq!(errors.len(), 1, "{diagnostics:?}");
    assert!(
        errors[0].1.contains("fails without any mutation"),
        "{errors:?}"
    );
    let error = server.diagnostics[&key]
        .iter()
        .find(|d| d["severity"] == 1)
        .unwrap();
    let line = broken
        .lines()
        .position(|l| l.contains("fn displays_dotted("))
        .unwrap();
    assert_eq!(error["range"]["start"]["line"], line);
    let warnings: Vec<&(u64, String)> = diagnostics.iter().filter(|(s, _)| *s == 2).collect();
    assert_eq!(warnings.len(), EXAMPLE_MISSED.len(), "{diagnostics:?}");

    // Mended: the baseline passes again, the error goes, and every mutant
    // has a fresh verdict.
    std::fs::write(&lib, &original).unwrap();
    server.save(&lib);
    // `fmt` changed back first (its text differs from the broken one),
    // then the 26 others' earlier results.
    server.wait_until("the mended save's runs", |s| s.ends().len() == 4);
    assert_eq!(
        server.ends()[2..],
        [
            "1 mutant tested, 0 missed",
            "26 earlier results re-tested, 11 missed"
        ]
    );
    let diagnostics = shown(&server, &key);
    assert_eq!(diagnostics.len(), EXAMPLE_MISSED.len(), "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|(severity, message)| *severity == 2 && message.ends_with("tests still pass")),
        "{diagnostics:?}"
    );
    server.stop();
}

#[test]
fn a_job_cancelled_before_its_results_keeps_the_documents_findings() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    save_with_a_new_first_line(&mut server, &lib);
    server.execute("mutiny.cancel", json!([]));
    // Cancelled before it started (it is dropped) or while it ran.
    server.wait_until("the cancelled job", |s| {
        s.logged("job cancelled before it started") || s.ends().len() == 2
    });
    assert!(server.ends().len() == 1 || server.ends()[1] == "cancelled");
    assert_eq!(
        server.diagnostics[&key].len(),
        EXAMPLE_MISSED.len(),
        "{:?}",
        server.diagnostics[&key]
    );
    server.stop();
}

#[test]
fn the_progress_cancel_of_a_run_stops_it() {
    let (_dir, _root, _lib, mut server) = saved("example");
    server.wait_until("a first mutant's result", |s| {
        s.progress.iter().any(|p| p["value"]["kind"] == "report")
    });
    let token = server.progress[0]["token"].clone();
    server.notify("window/workDoneProgress/cancel", json!({"token": token}));
    server.wait_until("the run's end", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["cancelled"]);
    server.stop();
}

#[test]
fn pause_hides_the_findings_and_resume_shows_them_and_tests_what_was_saved_meanwhile() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    let shown = server.diagnostics[&key].clone();
    assert_eq!(shown.len(), EXAMPLE_MISSED.len());
    let status = |m: &&Value| m["method"] == "mutiny/status";
    let begins = |s: &Server| {
        s.progress
            .iter()
            .filter(|p| p["value"]["kind"] == "begin")
            .count()
    };
    // On the `&&` of `compatible`, which has a missed mutant.
    let hover_and_lens = |server: &mut Server| {
        let hover = server.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": key}, "position": {"line": 57, "character": 28}}),
        );
        let lenses = server.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": key}}),
        );
        (hover["result"].clone(), lenses["result"].clone())
    };

    server.execute("mutiny.pause", json!([]));
    server.wait_until("the paused status", |s| {
        s.notifications
            .iter()
            .filter(status)
            .any(|m| m["params"] == json!({"state": "paused", "done": 0, "total": 0, "title": ""}))
    });
    server.wait_until("the document's diagnostics emptied", |s| {
        s.diagnostics[&key].is_empty()
    });
    assert_eq!(hover_and_lens(&mut server), (Value::Null, Value::Null));
    // Pausing again changes nothing.
    server.execute("mutiny.pause", json!([]));

    server.save(&lib);
    server.wait_until("the save kept for the resume", |s| {
        s.logged("mutiny: paused: src/lib.rs will be tested on resume")
    });
    // Answered after the save was handled (in order), with nothing shown.
    assert_eq!(hover_and_lens(&mut server), (Value::Null, Value::Null));
    assert_eq!(begins(&server), 1, "the save started no run");
    assert!(server.diagnostics[&key].is_empty());

    let resumed = server.notifications.len();
    server.execute("mutiny.resume", json!([]));
    server.wait_until("the run of the file saved while paused", |s| {
        s.ends().len() == 2
    });
    assert_eq!(server.ends()[1], "27 earlier results re-tested, 11 missed");
    assert_eq!(begins(&server), 2, "one run, for the one file saved");
    let since: Vec<&Value> = server.notifications[resumed..].iter().collect();
    let republished = since
        .iter()
        .find(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == key.as_str()
        })
        .expect("the document's diagnostics are published on resume");
    assert_eq!(republished["params"]["diagnostics"], json!(shown));
    let first_status = since.iter().copied().find(status).unwrap();
    assert_eq!(first_status["params"]["state"], "idle", "{first_status}");
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());

    // Resuming again changes nothing; findings show as before.
    server.execute("mutiny.resume", json!([]));
    let (hover, lenses) = hover_and_lens(&mut server);
    assert!(hover["contents"]["value"]
        .as_str()
        .is_some_and(|t| t.contains(EXAMPLE_MISSED[8])));
    assert_eq!(lenses.as_array().map(Vec::len), Some(3), "{lenses}");
    assert_eq!(begins(&server), 2);
    server.stop();
}

#[test]
fn code_actions_find_their_mutant_by_the_diagnostics_data_when_the_client_reshapes_it() {
    let (Example { _dir, key, .. }, mut server) = tested_example();
    let mut reshaped = server.diagnostics[&key]
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("replace && with ||")
        })
        .unwrap()
        .clone();
    // As some clients do: fields dropped, the message rewritten.
    let object = reshaped.as_object_mut().unwrap();
    object.remove("severity");
    object.remove("code");
    object.insert("message".into(), json!("mutiny: missed mutant"));
    let range = reshaped["range"].clone();
    let answer = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": key}, "range": range,
               "context": {"diagnostics": [reshaped]}}),
    );
    let titles: Vec<&str> = answer["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Re-test this mutant: replace && with || in compatible"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"Skip mutants in fn compatible (#[mutants::skip])"),
        "{titles:?}"
    );
    server.stop();
}

#[test]
fn a_panic_in_a_request_or_a_job_is_reported_and_the_server_keeps_serving() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    let mut server = Server::start_with_env(&[("MUTINY_INJECT_PANIC", "job,hover")]);
    server.initialize(&root);
    // The first job panics: the user is told, and the worker starts over.
    server.save(&lib);
    server.wait_until("the panic's message", |s| {
        s.shown_messages()
            .iter()
            .any(|m| m["message"].as_str().unwrap().contains("internal error"))
    });
    server.save(&lib);
    server.wait_until("the next run's end", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);

    // A request that panics gets an error answer; the next one its answer.
    let hover = |server: &mut Server| {
        server.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": key}, "position": {"line": 57, "character": 28}}),
        )
    };
    let failed = hover(&mut server);
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let answered = hover(&mut server);
    let text = answered["result"]["contents"]["value"]
        .as_str()
        .unwrap_or("");
    assert!(
        text.contains("replace && with || in compatible"),
        "{answered}"
    );
    // Told once, though two things panicked.
    let told = server
        .shown_messages()
        .iter()
        .filter(|m| m["message"].as_str().unwrap().contains("internal error"))
        .count();
    assert_eq!(told, 1);
    server.stop();
}

#[test]
fn positions_out_of_range_and_bad_settings_get_answers_not_a_crash() {
    let (Example { _dir, key, .. }, mut server) = tested_example();
    for position in [
        json!({"line": 57, "character": 4294967295u64}),
        json!({"line": 4294967295u64, "character": 4294967295u64}),
    ] {
        let answer = server.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": key}, "position": position}),
        );
        assert!(answer.get("error").is_none(), "{answer}");
    }
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"mutiny": {"timeoutMultiplier": -1}}}),
    );
    server.wait_until("the settings error", |s| {
        s.shown_messages()
            .iter()
            .any(|m| m["message"].as_str().unwrap().contains("timeoutMultiplier"))
    });
    let lenses = server.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": key}}),
    );
    assert_eq!(lenses["result"].as_array().unwrap().len(), 3, "{lenses}");
    server.stop();
}

#[test]
fn a_slow_packages_test_timeout_outlasts_a_fast_packages_later_baseline() {
    let (_dir, root) = copy_of("slow_and_fast");
    let slow = root.join("slow/src/lib.rs");
    let fast = root.join("fast/src/lib.rs");
    let mut server = Server::start();
    server.initialize(&root);
    server.save(&slow);
    server.wait_until("slow's run", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["4 mutants tested, 3 missed"]);
    // fast's baseline takes a fraction of a second: its timeout is 1 s.
    server.save(&fast);
    server.wait_until("fast's run", |s| s.ends().len() == 2);
    // slow's tests still take 3 s, within slow's own timeout: missed, not
    // timed out.
    let answer = server.request(
        "workspace/executeCommand",
        json!({"command": "mutiny.retestMutant",
               "arguments": ["slow/src/lib.rs:4:7: replace * with + in double"]}),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    server.wait_until("the retest", |s| s.ends().len() == 3);
    assert_eq!(server.ends()[2], "1 mutant tested, 1 missed");
    server.stop();
}

#[test]
fn a_deleted_integration_test_no_longer_catches_mutants() {
    let (
        Example {
            _dir,
            root,
            lib,
            key,
        },
        mut server,
    ) = tested_example();
    // A new integration test catches `is_stable`'s 5 missed mutants…
    let test_file = write_stability_test(&root);
    server.save(&test_file);
    server.wait_until("the retest", |s| s.ends().len() == 2);
    assert_eq!(server.ends()[1], "11 mutants tested, 6 missed");
    // …and once it is deleted, the scratch copy loses it too: they are
    // missed again.
    std::fs::remove_file(&test_file).unwrap();
    server.save(&lib);
    // The 11 the test file's runs re-tested are not known without it any
    // more: they go first; the 16 known from the first run follow.
    server.wait_until("the file's runs", |s| s.ends().len() == 4);
    assert_eq!(
        server.ends()[2..],
        [
            "11 mutants tested, 11 missed",
            "16 earlier results re-tested, 0 missed"
        ]
    );
    assert_eq!(server.diagnostics[&key].len(), EXAMPLE_MISSED.len());
    server.stop();
}

#[test]
fn verdicts_found_with_other_test_options_are_not_restored() {
    let (Example { _dir, root, .. }, first) = tested_example();
    first.stop();
    // The same code, tested with nextest: what cargo test found is no
    // longer known.
    let mut second = Server::start();
    second.initialize_with(&root, json!({"mutiny": {"testTool": "nextest"}}));
    second.wait_until("the restore", |s| s.logged("known findings restored"));
    assert!(second.logged("mutiny: 0 known findings restored"));
    second.stop();
    // With the options it was found under, it is known again.
    let mut third = Server::start();
    third.initialize(&root);
    third.wait_until("the restore", |s| s.logged("known findings restored"));
    assert!(third.logged("mutiny: 11 known findings restored"));
    third.stop();
}

#[test]
fn a_burst_of_saves_is_one_run_of_the_last_text() {
    let (Example { _dir, lib, key, .. }, mut server) = tested_example();
    let original = std::fs::read_to_string(&lib).unwrap();
    // 50 saves as fast as the client can send them; the last text adds a
    // test that catches `is_stable`'s 5 missed mutants.
    for n in 0..49 {
        std::fs::write(&lib, format!("// save {n}\n{original}")).unwrap();
        server.save(&lib);
    }
    let last = original.replacen(
        "    #[test]\n    fn counts() {",
        "    #[test]\n    fn stability() {\n        assert!(v(\"1.0.0\").is_stable());\n        \
         assert!(!v(\"0.1.0\").is_stable());\n    }\n\n    #[test]\n    fn counts() {",
        1,
    );
    assert_ne!(last, original);
    std::fs::write(&lib, &last).unwrap();
    server.save(&lib);
    server.wait_until("a run after the burst that tested every mutant", |s| {
        s.ends()[1..]
            .iter()
            .any(|e| e.starts_with("27 mutants tested"))
    });
    // Stale jobs were dropped before they started, or cancelled once one
    // had: of 50 saves, only the few the worker picked up while the burst
    // went on began at all (one, when the client outpaces the worker; a
    // loaded machine lets it pick up a few more), and none ran to its end.
    let ends = server.ends();
    let runs = &ends[1..];
    assert_eq!(
        runs.last().unwrap(),
        "27 mutants tested, 6 missed",
        "{ends:?}"
    );
    assert!(runs.len() <= 5, "{ends:?}");
    assert!(
        runs[..runs.len() - 1].iter().all(|e| e == "cancelled"),
        "{ends:?}"
    );
    assert_eq!(server.diagnostics[&key].len(), 6);
    // A hover is answered at once after the burst.
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": key}, "position": {"line": 0, "character": 0}}),
    );
    assert!(hover.get("error").is_none(), "{hover}");
    server.stop();
}

#[test]
fn notifications_about_unknown_documents_and_exit_without_shutdown_are_survived() {
    let (_dir, root, lib, mut server) = saved("example");
    let nowhere = uri(&root.join("src/nowhere.rs"));
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": nowhere, "version": 2},
               "contentChanges": [{"text": "fn f() {}"}]}),
    );
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": nowhere}}),
    );
    server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": nowhere}}),
    );
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": nowhere}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["result"], Value::Null, "{hover}");
    server.wait_until("a first mutant's result", |s| {
        s.progress.iter().any(|p| p["value"]["kind"] == "report")
    });
    assert!(server
        .diagnostics
        .get(&nowhere)
        .is_none_or(|d| d.is_empty()));
    // `exit` without `shutdown`, mid-run: the server ends, and takes its
    // scratch trees and processes along.
    server.notify("exit", Value::Null);
    let Server { child, tmp, .. } = server;
    assert_exits_leaving_nothing(child, tmp.path());
    assert!(lib.exists());
}

#[test]
fn a_failing_doctest_found_beside_the_mutants_runs_fails_the_baseline() {
    // The server runs the doctests' baseline beside the mutants' test
    // binaries (compile-once); a doctest that fails in the unmutated tree
    // still makes the run's baseline fail.
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let broken = text.replace(
        "    /// Parses `MAJOR.MINOR.PATCH`.\n",
        "    /// Parses `MAJOR.MINOR.PATCH`.\n    ///\n    /// ```\n    /// assert!(example::Version::parse(\"1.2\").is_some());\n    /// ```\n",
    );
    assert_ne!(broken, text, "the doc comment to extend is in the example");
    std::fs::write(&lib, broken).unwrap();
    let mut server = Server::start();
    server.initialize(&root);
    server.save(&lib);
    server.wait_until("the run's end", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["the unmutated tests fail"]);
    server.stop();
}

/// Files under `dir` whose path contains `part`, searched depth first.
fn files_containing(dir: &Path, part: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            found.extend(files_containing(&path, part));
        } else if path.to_string_lossy().contains(part) {
            found.push(path);
        }
    }
    found
}

#[test]
fn the_tests_are_built_in_the_background_before_the_first_save() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let mut server = Server::start();
    server.initialize(&root);
    server.wait_until("the warm-up", |s| s.logged("mutiny: warmed up"));
    // No run began, yet the library's test binary is built in the scratch
    // copy (in the server's TMPDIR).
    assert!(server.progress.is_empty(), "{:?}", server.progress);
    let binaries: Vec<PathBuf> = files_containing(server.tmp.path(), "/target/debug/deps/example-")
        .into_iter()
        .filter(|p| p.extension().is_none())
        .collect();
    assert!(!binaries.is_empty(), "no test binary in the scratch copy");

    // The first save then has every verdict, as without the head start.
    server.save(&lib);
    server.wait_until("the first run", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["27 mutants tested, 11 missed"]);
    server.stop();
}

#[test]
fn in_the_editor_code_this_target_does_not_compile_is_not_missed_until_the_analysis_is_turned_off()
{
    let (_dir, root) = copy_of("cfg_targets");
    let mut server = Server::start();
    server.initialize(&root);
    // The model loads in the background (a save before it is ready is
    // tested without it, every mutant built); requests are answered
    // meanwhile, within the latency budget.
    let lib = root.join("src/lib.rs");
    let document = json!({"uri": uri(&lib), "languageId": "rust", "version": 1,
                          "text": std::fs::read_to_string(&lib).unwrap()});
    server.notify("textDocument/didOpen", json!({"textDocument": document}));
    for line in 0..5 {
        assert_hover_answered_within_a_second(&mut server, &uri(&lib), line);
    }
    assert!(
        !server.logged("rust-analyzer loaded the workspace"),
        "the model was loaded before the requests: they did not test the latency while it loads"
    );
    server.wait_until("rust-analyzer's model", |s| {
        s.logged("rust-analyzer loaded the workspace")
    });
    let windows = root.join("src/windows.rs");
    let windows_key = uri(&windows);
    server.save(&windows);
    server.wait_until("the run of src/windows.rs", |s| s.ends().len() == 1);
    assert_eq!(server.ends(), ["9 mutants tested, 0 missed"]);
    assert_eq!(server.diagnostics[&windows_key], Vec::<Value>::new());

    // In compiled code, a missed mutant's hover gives its function's return
    // type as rust-analyzer resolves it: `Count` is `usize`.
    server.save(&lib);
    server.wait_until("the run of src/lib.rs", |s| s.ends().len() == 2);
    let diagnostics = server.diagnostics[&uri(&lib)].clone();
    let messages: Vec<&str> = diagnostics
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        ["missed mutant: replace length -> Count with Default::default() — tests still pass"]
    );
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&lib)}, "position": diagnostics[0]["range"]["start"]}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(text.contains("The function returns `usize`"), "{hover}");

    // Turned off, the same code is tested as cargo-mutants does: all missed.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"mutiny": {"analysis": false}}}),
    );
    server.save(&windows);
    server.wait_until("windows.rs tested without the analysis", |s| {
        s.diagnostics.get(&windows_key).map_or(0, Vec::len) == 9
    });
    server.stop();
}

#[test]
fn once_the_model_is_loaded_a_save_tests_mutinys_own_stubs_and_their_hover_says_so() {
    let (_dir, root) = copy_of("own_stubs");
    let mut server = Server::start();
    server.initialize(&root);
    server.wait_until("rust-analyzer's model", |s| {
        s.logged("rust-analyzer loaded the workspace")
    });
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    server.save(&lib);
    server.wait_until("the run of src/lib.rs", |s| s.ends().len() == 1);
    // cargo-mutants' 15 mutants (none missed) and mutiny's 15 own stubs.
    assert_eq!(server.ends(), ["30 mutants tested, 6 missed"]);
    let diagnostics = server.diagnostics[&key].clone();
    let messages: Vec<&str> = diagnostics
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(
            &"missed mutant: replace by_rank -> Ordering with Ordering::Less — tests still pass"
        ),
        "{messages:?}"
    );
    let less = diagnostics
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("Ordering::Less"))
        .unwrap();
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": key}, "position": less["range"]["start"]}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(text.contains("A stub of mutiny's own"), "{hover}");
    assert!(text.contains("The function returns `Ordering`"), "{hover}");
    server.stop();
}

/// Rewrites the example's `src/lib.rs` as a tool outside the editor would:
/// a new first line moves everything down, and `compatible`'s text
/// changes (its three missed mutants no longer apply).
fn rewrite_outside_the_editor(lib: &Path) {
    let text = std::fs::read_to_string(lib).unwrap();
    let text = format!("// formatted elsewhere\n{text}").replace(
        "        version.major == required.major\n",
        "        required.major == version.major\n",
    );
    std::fs::write(lib, text).unwrap();
}

/// The example's findings after `rewrite_outside_the_editor`: eight
/// earlier results, `is_stable`'s now on line 31 (0-based 30).
fn assert_findings_follow_the_rewrite(server: &Server, key: &str) {
    let diagnostics = &server.diagnostics[key];
    assert_eq!(diagnostics.len(), 8, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|d| !d["message"].as_str().unwrap().contains("in compatible")),
        "{diagnostics:?}"
    );
    let lines: Vec<u64> = diagnostics
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert!(lines.contains(&30), "{lines:?}");
    assert!(!lines.contains(&29), "{lines:?}");
}

#[test]
fn files_changed_outside_the_editor_reach_the_findings_through_the_clients_watcher() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    let mut server = Server::start();
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    server.initialize_as(&root, Value::Null, capabilities);
    server.wait_until("the watcher's registration", |s| {
        s.notifications.iter().any(|m| {
            m["method"] == "client/registerCapability"
                && m["params"]["registrations"][0]["method"] == "workspace/didChangeWatchedFiles"
        })
    });
    server.save(&lib);
    server.wait_until("the file's run", |s| s.ends().len() == 1);
    assert_eq!(server.diagnostics[&key].len(), 11);
    rewrite_outside_the_editor(&lib);
    server.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": key, "type": 2}]}),
    );
    server.wait_until("the findings to follow the change", |s| {
        s.diagnostics[&key].len() == 8
    });
    assert_findings_follow_the_rewrite(&server, &key);
    // Nothing was tested: the user has not saved.
    assert_eq!(server.ends().len(), 1);
    server.stop();
}

#[test]
fn files_changed_outside_the_editor_reach_the_findings_without_a_client_watcher() {
    let (_dir, root) = copy_of("example");
    let lib = root.join("src/lib.rs");
    let key = uri(&lib);
    let mut server = Server::start();
    server.initialize(&root);
    server.save(&lib);
    server.wait_until("the file's run", |s| s.ends().len() == 1);
    assert_eq!(server.diagnostics[&key].len(), 11);
    rewrite_outside_the_editor(&lib);
    server.wait_until("the server to see the change itself", |s| {
        s.diagnostics[&key].len() == 8
    });
    assert_findings_follow_the_rewrite(&server, &key);
    // A file deleted outside the editor takes its findings with it.
    std::fs::remove_file(&lib).unwrap();
    server.wait_until("the deleted file's findings to go", |s| {
        s.diagnostics[&key].is_empty()
    });
    server.stop();
}
