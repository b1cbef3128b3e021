//! `mutiny run` end to end: the real binary on the fixture crates, whose
//! verdicts must be cargo-mutants' (tests/fixtures/EXPECTED.md).
//!
//! Mutiny only reads the user's tree, so the runs work on the fixtures in
//! place, with `-o` and `TMPDIR` pointing into a test-owned sandbox: the
//! sandbox then holds everything a run leaves behind.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;
use support::{
    assert_unchanged, fixture, kill_seed, processes_of_tmpdir, tree_snapshot, Moments,
    EXAMPLE_MISSED,
};

/// The four verdict lists of `mutants.out`, in EXPECTED.md's column order.
const VERDICTS: [&str; 4] = ["caught", "missed", "timeout", "unviable"];

/// Each run uses two jobs, which is all the CPUs a small CI machine has:
/// runs take turns so that timing (the timeout test) stays predictable.
static TURN: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn sorted<S: ToString>(names: &[S]) -> Vec<String> {
    let mut names: Vec<String> = names.iter().map(S::to_string).collect();
    names.sort();
    names
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// `mutiny list` on `dir`, whose output is the run's expected mutants.
fn list(dir: &Path, extra: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(["list", "-d", dir.to_str().unwrap()])
        .args(extra)
        .output()
        .expect("mutiny list runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout)
}

/// The mutant names `mutiny list` gives, sorted.
fn list_names(dir: &Path, extra: &[&str]) -> Vec<String> {
    sorted(&list(dir, extra).lines().collect::<Vec<_>>())
}

/// Polls `done` until it holds or `limit` passes; says whether it held.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A test-owned directory for one run: `out/` receives `mutants.out`, and
/// `tmp/` is the run's TMPDIR, where mutiny makes its scratch trees.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["out", "tmp"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        Sandbox { dir }
    }

    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// The run's `mutants.out`.
    fn out(&self) -> PathBuf {
        self.dir.path().join("out/mutants.out")
    }

    /// `mutiny run -d DIR -j 2 -o OUT EXTRA…` with TMPDIR in the sandbox.
    fn command(&self, dir: &Path, extra: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mutiny"));
        command
            .args(["run", "-d", dir.to_str().unwrap(), "-j", "2", "-o"])
            .arg(self.dir.path().join("out"))
            .args(extra)
            .env("TMPDIR", self.tmp());
        command
    }

    /// The lines of a file in `mutants.out`, sorted (lists are written in
    /// finishing order).
    fn lines(&self, file: &str) -> Vec<String> {
        let path = self.out().join(file);
        let content = std::fs::read_to_string(&path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        sorted(&content.lines().collect::<Vec<_>>())
    }

    /// The names of mutiny's own stubs in the run (`"own": true` in
    /// mutants.json), which cargo-mutants does not make.
    fn own_mutants(&self) -> BTreeSet<String> {
        let listed = self.json("mutants.json");
        listed
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["own"] == true)
            .map(|m| m["name"].as_str().unwrap().to_owned())
            .collect()
    }

    fn json(&self, file: &str) -> Value {
        let content = std::fs::read_to_string(self.out().join(file)).unwrap();
        serde_json::from_str(&content).unwrap_or_else(|err| panic!("{file}: {err}\n{content}"))
    }

    /// Mutant name → verdict, from the four lists; no name is in two.
    fn verdicts(&self) -> BTreeMap<String, String> {
        let mut verdicts = BTreeMap::new();
        for verdict in VERDICTS.into_iter().chain(["not_compiled"]) {
            for name in self.lines(&format!("{verdict}.txt")) {
                let earlier = verdicts.insert(name.clone(), verdict.to_owned());
                assert_eq!(earlier, None, "{name} is listed twice");
            }
        }
        verdicts
    }

    /// The mutants.json names, sorted.
    fn tested_names(&self) -> Vec<String> {
        let mutants = self.json("mutants.json");
        let names: Vec<&str> = mutants
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        sorted(&names)
    }

    /// Scratch directories left in TMPDIR.
    fn scratch_trees(&self) -> Vec<String> {
        std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("mutiny-"))
            .collect()
    }

    /// Live processes of this sandbox's run: those working in its TMPDIR
    /// (cargo, rustc and the test binaries in its scratch trees) or started
    /// with it as TMPDIR (everything mutiny starts, whatever its command
    /// line and working directory).
    fn processes(&self) -> Vec<(i32, Vec<String>)> {
        processes_of_tmpdir(&self.tmp())
    }

    /// Waits for the run's processes to go (a killed process takes a
    /// moment to die, and after mutiny's own death its watchdogs wait out
    /// the termination grace), then returns whatever is still there.
    fn surviving_processes(&self) -> Vec<(i32, Vec<String>)> {
        wait_until(Duration::from_secs(15), || self.processes().is_empty());
        self.processes()
    }

    /// SIGKILLs the run's remaining processes, so a test leaves none.
    fn kill_processes(&self) {
        for (pid, _) in self.processes() {
            // SAFETY: a plain syscall on a process this test's run started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }

    /// Logs of mutants (not the baseline's) in `mutants.out/log`.
    fn mutant_logs(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.out().join("log")) else {
            return Vec::new();
        };
        entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().is_some_and(|n| n != "baseline.log"))
            .collect()
    }

    /// Starts `mutiny run` on `dir` in the background, its output in files.
    fn start(&self, dir: &Path, extra: &[&str]) -> Child {
        self.command(dir, extra)
            .stdout(File::create(self.dir.path().join("stdout")).unwrap())
            .stderr(File::create(self.dir.path().join("stderr")).unwrap())
            .spawn()
            .expect("mutiny starts")
    }

    /// Starts `mutiny run` on `dir` in the background and returns once a
    /// mutant's log exists, that is once the first mutant is being built.
    fn start_and_wait_for_a_mutant(&self, dir: &Path, extra: &[&str]) -> Child {
        let mut child = self.start(dir, extra);
        wait_until(Duration::from_secs(60), || {
            !self.mutant_logs().is_empty() || child.try_wait().unwrap().is_some()
        });
        if child.try_wait().unwrap().is_some() || self.mutant_logs().is_empty() {
            let _ = child.kill();
            panic!("no mutant started:\n{}", self.stderr_file());
        }
        child
    }

    fn stderr_file(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("stderr")).unwrap_or_default()
    }
}

/// A finished run and its sandbox.
struct Run {
    sandbox: Sandbox,
    output: Output,
}

impl Deref for Run {
    type Target = Sandbox;

    fn deref(&self) -> &Sandbox {
        &self.sandbox
    }
}

impl Run {
    fn stdout(&self) -> String {
        text(&self.output.stdout)
    }

    fn stderr(&self) -> String {
        text(&self.output.stderr)
    }

    #[track_caller]
    fn assert_exit(&self, code: i32) {
        assert_eq!(
            self.output.status.code(),
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
    }
}

/// Runs `mutiny run -j 2` on `dir` to its end in a fresh sandbox.
fn run(dir: &Path, extra: &[&str]) -> Run {
    Sandbox::new().run(dir, extra)
}

impl Sandbox {
    /// Runs `mutiny run -j 2` on `dir` to its end, then checks what every
    /// finished run must leave: no scratch tree in TMPDIR.
    fn run(self, dir: &Path, extra: &[&str]) -> Run {
        let output = {
            let _turn = one_at_a_time();
            self.command(dir, extra).output().expect("mutiny runs")
        };
        let left = self.scratch_trees();
        assert!(
            left.is_empty(),
            "scratch trees left in TMPDIR: {left:?}\n{}",
            text(&output.stderr)
        );
        Run {
            sandbox: self,
            output,
        }
    }
}

/// Asserts the line counts of caught/missed/timeout/unviable.txt, and that
/// outcomes.json counts the same.
#[track_caller]
fn assert_counts(sandbox: &Sandbox, expected: [usize; 4]) {
    let outcomes = sandbox.json("outcomes.json");
    for (verdict, count) in VERDICTS.into_iter().zip(expected) {
        assert_eq!(
            sandbox.lines(&format!("{verdict}.txt")).len(),
            count,
            "{verdict}.txt"
        );
        assert_eq!(outcomes[verdict], count, "outcomes.json {verdict}");
    }
    assert_eq!(outcomes["total_mutants"], expected.iter().sum::<usize>());
}

/// Asserts one verdict list, in any order.
#[track_caller]
fn assert_list(sandbox: &Sandbox, verdict: &str, expected: &[&str]) {
    assert_eq!(
        sandbox.lines(&format!("{verdict}.txt")),
        sorted(expected),
        "{verdict}.txt"
    );
}

/// The verdict list for an outcomes.json summary of a mutant.
fn verdict_of(summary: &str) -> &'static str {
    match summary {
        "CaughtMutant" => "caught",
        "MissedMutant" => "missed",
        "Timeout" => "timeout",
        "Unviable" => "unviable",
        // mutiny's own, for code not compiled for this target.
        "NotCompiled" => "not_compiled",
        other => panic!("{other:?} is not a mutant summary of cargo-mutants"),
    }
}

/// cargo-mutants' `ProcessStatus`: `"Success"`, `"Timeout"`, or
/// `{"Failure": code}` / `{"Signalled": signal}`.
fn is_process_status(status: &Value) -> bool {
    match status {
        Value::String(word) => word == "Success" || word == "Timeout",
        Value::Object(map) => {
            map.len() == 1
                && ["Failure", "Signalled"]
                    .iter()
                    .any(|key| map.get(*key).is_some_and(Value::is_i64))
        }
        _ => false,
    }
}

/// The mutant outcomes of outcomes.json, checked to be cargo-mutants'
/// shape and to agree with the verdict lists, mutant by mutant.
#[track_caller]
fn mutant_outcomes(sandbox: &Sandbox) -> Vec<Value> {
    let json = sandbox.json("outcomes.json");
    let outcomes: Vec<Value> = json["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["scenario"] != "Baseline")
        .cloned()
        .collect();
    let mut listed = sandbox.verdicts();
    for outcome in &outcomes {
        let mutant = &outcome["scenario"]["Mutant"];
        for key in [
            "name",
            "package",
            "file",
            "function",
            "span",
            "replacement",
            "genre",
        ] {
            assert!(mutant.get(key).is_some(), "{key} in {mutant}");
        }
        let name = mutant["name"].as_str().unwrap();
        let summary = outcome["summary"].as_str().unwrap();
        assert_eq!(
            listed.remove(name).as_deref(),
            Some(verdict_of(summary)),
            "{name}: {summary}"
        );
    }
    assert!(listed.is_empty(), "listed without an outcome: {listed:?}");
    outcomes
}

#[track_caller]
fn assert_no_processes_left(sandbox: &Sandbox) {
    let left = sandbox.surviving_processes();
    sandbox.kill_processes();
    assert!(left.is_empty(), "processes of the run survive: {left:?}");
}

/// Waits up to `limit` for the child to exit; kills it if it does not.
fn exit_within(child: &mut Child, limit: Duration) -> ExitStatus {
    wait_until(limit, || child.try_wait().unwrap().is_some());
    if let Some(status) = child.try_wait().unwrap() {
        return status;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("mutiny did not exit within {limit:?}");
}

#[test]
fn all_caught_exits_0_with_every_mutant_caught() {
    let dir = fixture("all_caught");
    let run = run(&dir, &[]);
    run.assert_exit(0);
    assert_eq!(run.lines("caught.txt"), list_names(&dir, &[]));
    assert_counts(&run, [13, 0, 0, 0]);
}

#[test]
fn build_timeout_multiplier_times_mutant_builds_from_the_baseline_build() {
    // A ten-thousandth of the baseline build is too short for cargo to
    // start: every mutant's build times out, which (as in cargo-mutants)
    // makes it a timeout, exit 3. The baseline build itself is not limited.
    let dir = fixture("all_caught");
    // Mutants are built one by one only on the classic path.
    let args = [
        "--build-timeout-multiplier",
        "0.0001",
        "--strategy",
        "classic",
    ];
    let run = run(&dir, &args);
    run.assert_exit(3);
    assert_eq!(run.lines("timeout.txt"), list_names(&dir, &[]));
    assert_counts(&run, [0, 0, 13, 0]);
    let outcomes = run.json("outcomes.json");
    let build_statuses: Vec<&Value> = outcomes["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|o| &o["phase_results"][0]["process_status"])
        .collect();
    assert!(
        build_statuses.iter().all(|s| *s == "Timeout"),
        "{build_statuses:?}"
    );
}

#[test]
fn example_exits_2_with_cargo_mutants_verdicts_and_outputs() {
    let dir = fixture("example");
    let run = run(&dir, &[]);
    run.assert_exit(2);
    assert_list(&run, "missed", &EXAMPLE_MISSED);
    assert_list(
        &run,
        "unviable",
        &["src/lib.rs:17:9: replace Version::parse -> Option<Version> with Some(Default::default())"],
    );
    assert_counts(&run, [15, 11, 0, 1]);

    let expected_json: Value = serde_json::from_str(&list(&dir, &["--json"])).unwrap();
    assert_eq!(run.json("mutants.json"), expected_json);
    assert_eq!(run.tested_names().len(), 27);

    let json = run.json("outcomes.json");
    let baseline = &json["outcomes"][0];
    assert_eq!(baseline["scenario"], "Baseline");
    assert_eq!(baseline["summary"], "Success");
    assert!(run.out().join("log/baseline.log").is_file());
    let outcomes = mutant_outcomes(&run);
    assert_eq!(outcomes.len(), 27);
    assert_eq!(json["outcomes"].as_array().unwrap().len(), 28);
    for outcome in &outcomes {
        let mutant = &outcome["scenario"]["Mutant"];
        assert_eq!(mutant["package"], "example");
        assert_eq!(mutant["file"], "src/lib.rs");
        for key in ["log_path", "diff_path"] {
            let path = outcome[key].as_str().unwrap();
            assert!(run.out().join(path).is_file(), "{key} {path}");
        }
        let phases = outcome["phase_results"].as_array().unwrap();
        // The one stub rust-analyzer shows cannot compile is never built.
        let unbuilt = outcome["summary"] == "Unviable";
        assert_eq!(phases.is_empty(), unbuilt, "{outcome}");
        assert!(phases.len() <= 2, "{outcome}");
        for (phase, name) in phases.iter().zip(["Build", "Test"]) {
            assert_eq!(phase["phase"], name, "{outcome}");
            assert!(phase["duration"].as_f64().unwrap() >= 0.0, "{phase}");
            assert!(is_process_status(&phase["process_status"]), "{phase}");
            let argv = phase["argv"].as_array().unwrap();
            assert!(argv.iter().all(Value::is_string) && !argv.is_empty());
        }
    }
    let start = json["start_time"].as_str().unwrap();
    let end = json["end_time"].as_str().unwrap();
    assert!(!start.is_empty() && end >= start, "{start} .. {end}");
}

/// The infinite_loop fixture's run: exit 3, `is_done -> false` timed out
/// in its test phase and the 5 others caught; returns that test phase.
fn assert_is_done_timed_out(run: &Run) -> Value {
    run.assert_exit(3);
    assert_list(
        run,
        "timeout",
        &["src/lib.rs:5:5: replace is_done -> bool with false"],
    );
    assert_counts(run, [5, 0, 1, 0]);
    let outcomes = mutant_outcomes(run);
    let timed_out = outcomes.iter().find(|o| o["summary"] == "Timeout").unwrap();
    let test = timed_out["phase_results"][1].clone();
    assert_eq!(test["process_status"], "Timeout", "{timed_out}");
    test
}

#[test]
fn infinite_loop_with_timeout_3_exits_3_and_kills_the_looping_test() {
    let run = run(&fixture("infinite_loop"), &["--timeout", "3"]);
    let test = assert_is_done_timed_out(&run);
    assert!(test["duration"].as_f64().unwrap() >= 3.0, "{test}");
    assert_no_processes_left(&run);
}

/// Without `--timeout`, a test binary run directly is stopped once it has
/// used 5× its baseline CPU time (at least 1 s): a loop that never ends is
/// stopped after about a second, not the binary's wall-clock floor (5 s).
/// Also: tests run with `RUST_BACKTRACE=0` whatever mutiny's environment
/// says (a backtrace costs a failing debug test more than its run).
#[test]
fn a_loop_without_end_is_stopped_by_its_cpu_limit_and_caught_tests_print_no_backtrace() {
    let sandbox = Sandbox::new();
    let output = {
        let _turn = one_at_a_time();
        sandbox
            .command(&fixture("infinite_loop"), &[])
            .env("RUST_BACKTRACE", "1")
            .output()
            .expect("mutiny runs")
    };
    let run = Run { sandbox, output };
    let test = assert_is_done_timed_out(&run);
    let duration = test["duration"].as_f64().unwrap();
    assert!((1.0..5.0).contains(&duration), "{test}");
    let (_, log) = outcome_and_log(&run, "src/lib.rs:5:5: replace is_done -> bool with false");
    assert!(log.contains("of CPU time (the limit: 1.0s)"), "{log}");
    let caught = run.lines("caught.txt");
    for name in &caught {
        let (_, log) = outcome_and_log(&run, name);
        assert!(log.contains("panicked"), "{log}");
        assert!(!log.contains("stack backtrace"), "{log}");
    }
    assert_no_processes_left(&run);
}

/// mutiny starts each command through its own binary (`posix_spawn`,
/// which does not copy mutiny's memory as a fork would): the launcher
/// lowers the priority, puts the command first in line for the
/// out-of-memory killer and SIGINT and SIGQUIT back to their defaults
/// (mutiny may have been started with them ignored), then becomes the
/// command: same pid, the command's own status.
#[test]
fn the_launcher_prepares_the_command_then_becomes_it() {
    use std::os::unix::process::CommandExt;
    let own_niceness = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let mut command = Command::new(env!("CARGO_BIN_EXE_mutiny"));
    command.args([
        "__mutiny-launch",
        "7",
        "sh",
        "-c",
        "echo pid $$; echo nice $(nice); echo oom $(cat /proc/self/oom_score_adj); \
         grep SigIgn /proc/self/status; exit 5",
    ]);
    // SAFETY: `signal` is async-signal-safe; this runs in the forked child.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            libc::signal(libc::SIGQUIT, libc::SIG_IGN);
            Ok(())
        });
    }
    let child = command
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(5), "{stdout}");
    assert!(stdout.contains(&format!("pid {pid}\n")), "{stdout}");
    let niceness = (own_niceness + 7).min(19);
    assert!(stdout.contains(&format!("nice {niceness}\n")), "{stdout}");
    assert!(stdout.contains("oom 1000\n"), "{stdout}");
    let ignored = stdout
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .unwrap_or_else(|| panic!("no SigIgn in {stdout}"));
    let ignored = u64::from_str_radix(ignored.trim(), 16).unwrap();
    for signal in [libc::SIGINT, libc::SIGQUIT] {
        assert_eq!(ignored & (1 << (signal - 1)), 0, "signal {signal} ignored");
    }
    let missing = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(["__mutiny-launch", "0", "mutiny-no-such-command"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(127));
    let stderr = text(&missing.stderr);
    assert!(
        stderr.contains("cannot run mutiny-no-such-command"),
        "{stderr}"
    );
}

#[test]
fn failing_baseline_exits_4_names_the_failing_test_and_tests_no_mutant() {
    let run = run(&fixture("failing_baseline"), &[]);
    run.assert_exit(4);
    let stderr = run.stderr();
    for needle in ["two_plus_two_is_five", "The test phase failed"] {
        assert!(stderr.contains(needle), "{needle:?} in {stderr}");
    }
    let json = run.json("outcomes.json");
    assert_eq!(json["total_mutants"], 0);
    let outcomes = json["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 1, "{json}");
    assert_eq!(outcomes[0]["scenario"], "Baseline");
    assert_eq!(outcomes[0]["summary"], "Failure");
    assert_counts(&run, [0, 0, 0, 0]);
    assert_eq!(run.mutant_logs(), Vec::<PathBuf>::new());
}

#[test]
fn unviable_exits_0_and_lists_the_mutant_that_does_not_build() {
    let run = run(&fixture("unviable"), &[]);
    run.assert_exit(0);
    assert_list(
        &run,
        "unviable",
        &["src/lib.rs:11:5: replace point -> Point with Default::default()"],
    );
    assert_counts(&run, [5, 0, 0, 1]);
}

#[test]
fn workspace_flag_tests_every_member_and_misses_all_untested_mutants() {
    let run = run(&fixture("workspace"), &["--workspace"]);
    run.assert_exit(2);
    assert_list(
        &run,
        "missed",
        &[
            "crates/app/src/main.rs:2:5: replace main with ()",
            "crates/app/src/main.rs:6:5: replace describe -> &'static str with \"\"",
            "crates/app/src/main.rs:6:5: replace describe -> &'static str with \"xyzzy\"",
            "crates/app/src/main.rs:6:10: replace > with == in describe",
            "crates/app/src/main.rs:6:10: replace > with < in describe",
            "crates/app/src/main.rs:6:10: replace > with >= in describe",
            "crates/core/src/lib.rs:2:5: replace double -> u32 with 0",
            "crates/core/src/lib.rs:2:5: replace double -> u32 with 1",
            "crates/core/src/lib.rs:2:7: replace * with + in double",
            "crates/core/src/lib.rs:2:7: replace * with / in double",
        ],
    );
    assert_counts(&run, [0, 10, 0, 0]);
}

#[test]
fn path_dependency_outside_the_workspace_still_builds_and_all_are_caught() {
    let app = fixture("outside_dep").join("app");
    let run = run(&app, &[]);
    run.assert_exit(0);
    let caught = run.lines("caught.txt");
    assert_eq!(caught, list_names(&app, &[]));
    assert!(caught.iter().all(|name| name.starts_with("src/lib.rs:")));
    assert_counts(&run, [7, 0, 0, 0]);
}

#[test]
fn relative_paths_override_in_cargo_config_still_builds_and_all_are_caught() {
    // `.cargo/config.toml` says `paths = ["../patched"]`, which a scratch
    // copy elsewhere only finds once the path is made absolute.
    let ws = fixture("config_paths").join("ws");
    let run = run(&ws, &[]);
    run.assert_exit(0);
    assert_eq!(run.lines("caught.txt"), list_names(&ws, &[]));
    assert_counts(&run, [4, 0, 0, 0]);
}

#[test]
fn user_tree_is_byte_identical_after_a_run_and_gets_no_build_output() {
    // The run rewrites app's `../helper` path in its scratch copy: neither
    // app's manifest nor anything in helper may change.
    let root = fixture("outside_dep");
    let before = tree_snapshot(&root);
    let run = run(&root.join("app"), &["-F", "quadruple"]);
    run.assert_exit(0);
    assert_counts(&run, [2, 0, 0, 0]);
    assert_unchanged(&root, &before);
    for dir in ["", "app", "helper"] {
        for name in ["target", "Cargo.lock", "mutants.out"] {
            let path = root.join(dir).join(name);
            let existed = before.contains_key(&Path::new(dir).join(name));
            assert!(existed || !path.exists(), "{} was created", path.display());
        }
    }
}

#[test]
fn ctrl_c_exits_130_and_cleans_up_leaving_valid_partial_results() {
    // One of the fixture's six mutants loops until its 60 s timeout: the
    // interrupt lands while that mutant's test runs, however fast the
    // others went (with the example crate, a compile-once run could end
    // before the signal was sent).
    let dir = fixture("infinite_loop");
    let before = tree_snapshot(&dir);
    let sandbox = Sandbox::new();
    let _turn = one_at_a_time();
    let mut child = sandbox.start(&dir, &["--timeout", "60"]);
    // The check for survivors sees the run's processes, cargo among them
    // (whose command line names no path of the sandbox).
    let sees_cargo = wait_until(Duration::from_secs(60), || {
        sandbox
            .processes()
            .iter()
            .any(|(_, args)| args.first().is_some_and(|a| a.ends_with("cargo")))
    });
    assert!(sees_cargo, "no cargo among {:?}", sandbox.processes());
    let looping = wait_until(Duration::from_secs(120), || {
        sandbox.processes().iter().any(|(_, args)| {
            args.first()
                .is_some_and(|a| a.contains("/deps/infinite_loop-"))
        }) && std::fs::read_to_string(sandbox.out().join("caught.txt"))
            .is_ok_and(|caught| !caught.is_empty())
    });
    assert!(looping, "no mutant was caught:\n{}", sandbox.stderr_file());
    // SAFETY: a plain syscall on the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = exit_within(&mut child, Duration::from_secs(10));
    let stderr = sandbox.stderr_file();
    assert_eq!(status.code(), Some(130), "{status:?}\n{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_unchanged(&dir, &before);
    assert_eq!(sandbox.scratch_trees(), Vec::<String>::new());
    assert_no_processes_left(&sandbox);
    let json = sandbox.json("outcomes.json");
    assert!(json["end_time"].is_string(), "{json}");
    let tested = mutant_outcomes(&sandbox).len();
    assert_eq!(json["total_mutants"], tested);
    assert!(tested < 6, "the run was not interrupted: {tested} tested");
    assert!(tested > 0, "no result was kept: {json}");
}

#[test]
fn sigkill_mid_build_leaves_the_user_tree_byte_identical() {
    let dir = fixture("example");
    let before = tree_snapshot(&dir);
    let sandbox = Sandbox::new();
    let turn = one_at_a_time();
    let mut child = sandbox.start_and_wait_for_a_mutant(&dir, &[]);
    child.kill().unwrap();
    child.wait().unwrap();
    // A process killed by SIGKILL cannot delete its scratch trees…
    sandbox.kill_processes();
    let left = sandbox.scratch_trees();
    assert!(!left.is_empty(), "not killed mid-run");
    assert_unchanged(&dir, &before);
    // …the next run does, with the compilers' temporary files in them.
    drop(turn);
    let run = sandbox.run(&dir, &["-F", "is_stable -> bool with true"]);
    run.assert_exit(2);
    assert!(
        run.stdout().contains(&format!(
            "removed {} scratch directories left by mutiny processes that were killed",
            left.len()
        )),
        "{}",
        run.stdout()
    );
    assert_eq!(run.scratch_trees(), Vec::<String>::new());
    let litter: Vec<_> = std::fs::read_dir(run.tmp()).unwrap().collect();
    assert!(litter.is_empty(), "left in TMPDIR: {litter:?}");
}

#[test]
fn sigkill_leaves_no_process_of_the_run_running() {
    // The one mutant loops forever in its test: were its test binary to
    // outlive mutiny, it would spin until someone killed it by hand.
    let sandbox = Sandbox::new();
    let _turn = one_at_a_time();
    let extra = ["-F", "is_done -> bool with false", "--timeout", "60"];
    let mut child = sandbox.start_and_wait_for_a_mutant(&fixture("infinite_loop"), &extra);
    let looping = wait_until(Duration::from_secs(60), || {
        sandbox.processes().iter().any(|(_, args)| {
            args.first()
                .is_some_and(|a| a.contains("/deps/infinite_loop-"))
        })
    });
    assert!(looping, "the mutant's test never ran");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_no_processes_left(&sandbox);
}

/// Whatever a killed run left in its `mutants.out`: every JSON file whole
/// (they are written atomically), every list readable text.
#[track_caller]
fn assert_readable_output(sandbox: &Sandbox, context: &str) {
    let Ok(entries) = std::fs::read_dir(sandbox.out()) else {
        return; // killed before it made one
    };
    for entry in entries {
        let path = entry.unwrap().path();
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => {
                let content = std::fs::read_to_string(&path).unwrap();
                if let Err(err) = serde_json::from_str::<Value>(&content) {
                    panic!("{context}: {} is not whole JSON: {err}", path.display());
                }
            }
            Some("txt") => {
                if let Err(err) = std::fs::read_to_string(&path) {
                    panic!("{context}: {} is unreadable: {err}", path.display());
                }
            }
            _ => {}
        }
    }
}

/// SIGKILLs `mutiny run -j 2` at seeded random moments of a whole run
/// (copy, baseline, builds, tests): after each kill the fixture is
/// byte-identical, no process of the run lives on, and `mutants.out`
/// is readable; the next run sweeps every scratch tree the killed ones
/// left. `MUTINY_KILL_SEED` replays a schedule, `MUTINY_KILLS` sets how
/// many kills (6 by default).
#[test]
fn sigkill_at_seeded_random_moments_leaves_the_tree_intact_and_nothing_running() {
    let seed = kill_seed();
    let kills: usize = std::env::var("MUTINY_KILLS")
        .ok()
        .and_then(|kills| kills.parse().ok())
        .unwrap_or(6);
    let dir = fixture("example");
    let before = tree_snapshot(&dir);
    let sandbox = Sandbox::new();
    let _turn = one_at_a_time();
    // One whole run tells how long a run takes here.
    let start = Instant::now();
    let whole = sandbox.command(&dir, &[]).output().expect("mutiny runs");
    let length = start.elapsed();
    assert_eq!(whole.status.code(), Some(2), "{}", text(&whole.stderr));
    let mut moments = Moments(seed);
    let mut killed_left_trees = 0;
    for kill in 0..kills {
        let at = Duration::from_millis(moments.next_below(length.as_millis() as u64));
        let context =
            format!("kill {kill} at {at:?} of a {length:?} run (MUTINY_KILL_SEED={seed})");
        let mut child = sandbox.start(&dir, &[]);
        // The fault's moment is the point of the test, not a wait for an event.
        std::thread::sleep(at);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
        }
        child.wait().unwrap();
        let survivors = sandbox.surviving_processes();
        sandbox.kill_processes();
        assert!(
            survivors.is_empty(),
            "{context}: processes survive: {survivors:?}"
        );
        let changed = std::panic::catch_unwind(|| assert_unchanged(&dir, &before));
        assert!(changed.is_ok(), "{context}: the fixture changed");
        assert_readable_output(&sandbox, &context);
        killed_left_trees += sandbox.scratch_trees().len();
        eprintln!(
            "{context}: {} scratch trees left",
            sandbox.scratch_trees().len()
        );
    }
    let left = sandbox.scratch_trees();
    let last = sandbox
        .command(&dir, &["-F", "is_stable -> bool with true"])
        .output()
        .unwrap();
    let stdout = text(&last.stdout);
    assert_eq!(
        last.status.code(),
        Some(2),
        "{stdout}{}",
        text(&last.stderr)
    );
    if !left.is_empty() {
        assert!(
            stdout.contains(&format!("removed {} scratch directories", left.len())),
            "(MUTINY_KILL_SEED={seed}) {stdout}"
        );
    }
    let litter: Vec<_> = std::fs::read_dir(sandbox.tmp()).unwrap().collect();
    assert!(
        litter.is_empty(),
        "(MUTINY_KILL_SEED={seed}) left in TMPDIR: {litter:?}"
    );
    assert_unchanged(&dir, &before);
    eprintln!(
        "{kills} kills survived; they left {killed_left_trees} scratch directories, each swept by the next run (MUTINY_KILL_SEED={seed})"
    );
}

/// Two runs at once with one output directory: the second waits for the
/// first (and says so) before moving its `mutants.out` aside, so each
/// ends with whole, correct lists: the first's in `mutants.out.old`.
#[test]
fn a_second_run_into_the_same_output_waits_for_the_first_and_neither_is_corrupted() {
    let dir = fixture("example");
    let sandbox = Sandbox::new();
    let _turn = one_at_a_time();
    // The first run builds each mutant alone (seconds in all), and the
    // second reaches the output at once (no rust-analyzer search for own
    // stubs before it): the first still writes there when the second
    // looks. Switched, the example's mutants may all be done by then.
    let mut first = sandbox.start_and_wait_for_a_mutant(&dir, &["--strategy", "classic"]);
    let second = sandbox
        .command(&dir, &["--no-own-stubs"])
        .output()
        .expect("mutiny runs");
    let first_status = exit_within(&mut first, Duration::from_secs(300));
    let second_stderr = text(&second.stderr);
    assert_eq!(first_status.code(), Some(2), "{}", sandbox.stderr_file());
    assert_eq!(second.status.code(), Some(2), "{second_stderr}");
    assert!(
        second_stderr.contains("waiting for another mutiny run, which writes"),
        "{second_stderr}"
    );
    let missed = |out: &Path| {
        let text = std::fs::read_to_string(out.join("missed.txt")).unwrap();
        sorted(&text.lines().collect::<Vec<_>>())
    };
    let old = sandbox.out().with_extension("out.old");
    assert_eq!(missed(&old), sorted(&EXAMPLE_MISSED), "the first run's");
    assert_eq!(
        missed(&sandbox.out()),
        sorted(&EXAMPLE_MISSED),
        "the second run's"
    );
    for out in [old, sandbox.out()] {
        let outcomes: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("outcomes.json")).unwrap())
                .unwrap();
        assert_eq!(outcomes["total_mutants"], 27, "{}", out.display());
        assert_eq!(outcomes["missed"], 11, "{}", out.display());
    }
}

/// mutiny with `args` and `-o` the sandbox's output directory, its TMPDIR
/// a tmpfs of `size`, mounted in a user and mount namespace of its own
/// (no privilege needed, no mount left behind).
fn run_in_small_tmp(sandbox: &Sandbox, size: &str, args: &[&str]) -> std::process::Output {
    let _turn = one_at_a_time();
    Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(format!(
            r#"mount -t tmpfs -o size={size} tmpfs "$TMPDIR" && exec "$@""#
        ))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_mutiny"))
        .args(args)
        .arg("-o")
        .arg(sandbox.dir.path().join("out"))
        .env("TMPDIR", sandbox.tmp())
        .output()
        .expect("unshare runs")
}

/// Scratch space full: TMPDIR is a 2 MiB tmpfs (mounted in a user and
/// mount namespace of the run's own, so the test needs no privilege and
/// leaves no mount behind). The build fails for want of space, which says
/// nothing of any mutant: a clear message, exit 1, no verdict, the tree
/// intact.
#[test]
fn a_full_scratch_space_is_a_clear_error_with_exit_1_and_no_verdict() {
    let dir = fixture("example");
    let before = tree_snapshot(&dir);
    let sandbox = Sandbox::new();
    let output = run_in_small_tmp(
        &sandbox,
        "2m",
        &["run", "-d", dir.to_str().unwrap(), "-j", "2"],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no space left on the device"), "{stderr}");
    assert!(stderr.contains("point TMPDIR at a larger disk"), "{stderr}");
    for verdict in VERDICTS {
        let listed = std::fs::read_to_string(sandbox.out().join(format!("{verdict}.txt")));
        assert!(
            listed.unwrap_or_default().is_empty(),
            "a {verdict} verdict was drawn"
        );
    }
    assert_unchanged(&dir, &before);
}

/// A temporary directory too small for even the scratch copy: the error
/// that stops the run says where the space ran out and what to do.
#[test]
fn a_disk_full_before_any_build_is_a_clear_error_with_a_hint() {
    let dir = fixture("example");
    let before = tree_snapshot(&dir);
    let sandbox = Sandbox::new();
    let output = run_in_small_tmp(&sandbox, "12k", &["run", "-d", dir.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "hint: mutiny copies and builds the workspace in the temporary directory ({}): \
             free some space, or point TMPDIR at a larger disk",
            sandbox.tmp().display()
        )),
        "{stderr}"
    );
    assert_unchanged(&dir, &before);
}

/// An output directory nobody can write in (`/proc`, even for root): a
/// clear error naming it, exit 1, before anything is built.
#[test]
fn an_unwritable_output_directory_is_a_clear_error_with_exit_1() {
    let sandbox = Sandbox::new();
    let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args([
            "run",
            "-d",
            fixture("example").to_str().unwrap(),
            "-o",
            "/proc",
        ])
        .env("TMPDIR", sandbox.tmp())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot create /proc/mutants.out"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(sandbox.tmp()).unwrap().collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

/// A crate `name` in a temporary directory whose `src/lib.rs` is `lib`,
/// with these `[dependencies]` lines.
fn one_file_crate(name: &str, dependencies: &str, lib: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    std::fs::create_dir_all(root.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\n{dependencies}"
    );
    std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(root.join("src/lib.rs"), lib).unwrap();
    (dir, root)
}

/// A workspace whose build needs a package that is not in cargo's cache,
/// with no network (cargo's offline mode stands for it): the baseline
/// does not build, and the message says to fetch first, not to fix tests.
#[test]
fn a_build_that_needs_the_network_without_one_says_to_fetch_first() {
    let (_crate_dir, root) = one_file_crate(
        "needs_network",
        "mutiny-test-crate-in-no-cache = \"1\"\n",
        "pub fn one() -> u32 {\n    1\n}\n\n#[test]\nfn one_is_one() {\n    assert_eq!(one(), 1);\n}\n",
    );
    let sandbox = Sandbox::new();
    let output = {
        let _turn = one_at_a_time();
        sandbox
            .command(&root, &[])
            .env("CARGO_NET_OFFLINE", "true")
            .output()
            .unwrap()
    };
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("the unmutated tree does not build"),
        "{stderr}"
    );
    assert!(
        stderr.contains("run `cargo fetch` in the workspace"),
        "{stderr}"
    );
    assert!(!stderr.contains("Fix the failing tests"), "{stderr}");
}

/// A memory cgroup of the test's own with a limit (cgroup v1's memory
/// controller or cgroup v2), removed when dropped. Needs root, as CI has.
struct MemoryCgroup {
    dir: PathBuf,
}

impl MemoryCgroup {
    fn new(limit: u64) -> MemoryCgroup {
        let name = format!("mutiny-test-{}", std::process::id());
        let (dir, limit_file) = if Path::new("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists()
        {
            (
                Path::new("/sys/fs/cgroup/memory").join(&name),
                "memory.limit_in_bytes",
            )
        } else {
            (Path::new("/sys/fs/cgroup").join(&name), "memory.max")
        };
        std::fs::create_dir_all(&dir).unwrap_or_else(|err| {
            panic!(
                "cannot make the memory cgroup {} (this test needs root): {err}",
                dir.display()
            )
        });
        std::fs::write(dir.join(limit_file), limit.to_string()).unwrap();
        MemoryCgroup { dir }
    }

    /// The file whose writer joins the cgroup.
    fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // Empty once every process of the run is gone.
        wait_until(Duration::from_secs(10), || {
            std::fs::remove_dir(&self.dir).is_ok()
        });
    }
}

/// A mutant whose test allocates without end, in a run held to 1 GiB (a
/// memory cgroup, so the test cannot take the machine down): the kernel
/// kills the test (mutiny's commands are its first choice), the mutant is
/// caught, and the run goes on to its end. (An explicit `--timeout` turns
/// the CPU-time limit off: filling a gigabyte takes about a second of CPU,
/// and on a loaded machine that limit could stop the test first.)
#[test]
fn a_test_allocating_without_end_is_killed_and_the_run_goes_on() {
    let (_crate_dir, root) = one_file_crate(
        "allocates",
        "",
        "/// Whether to take another chunk: `taken` of `wanted`.\n\
         pub fn keep_going(taken: usize, wanted: usize) -> bool {\n    taken < wanted\n}\n\n\
         #[test]\nfn takes_sixteen_chunks_of_a_megabyte() {\n    let mut chunks = Vec::new();\n    \
         while keep_going(chunks.len(), 16) {\n        chunks.push(vec![1u8; 1 << 20]);\n    }\n    \
         assert_eq!(chunks.len(), 16);\n}\n",
    );
    let sandbox = Sandbox::new();
    let cgroup = MemoryCgroup::new(1 << 30);
    let output = {
        let _turn = one_at_a_time();
        let mut command = Command::new("sh");
        command
            .args(["-c", r#"echo $$ > "$0" && exec "$@""#])
            .arg(cgroup.procs())
            .arg(env!("CARGO_BIN_EXE_mutiny"))
            .args([
                "run",
                "--no-analysis",
                "--timeout",
                "120",
                "-j",
                "1",
                "-d",
                root.to_str().unwrap(),
                "-o",
            ])
            .arg(sandbox.dir.path().join("out"))
            .env("TMPDIR", sandbox.tmp());
        command.output().unwrap()
    };
    drop(cgroup);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(stdout.contains("5 mutants tested: 5 caught"), "{stdout}");
    let outcomes = sandbox.json("outcomes.json");
    let allocating = outcomes["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| {
            o["scenario"]["Mutant"]["name"]
                == "src/lib.rs:3:5: replace keep_going -> bool with true"
        })
        .expect("the allocating mutant's outcome");
    assert_eq!(allocating["summary"], "CaughtMutant", "{allocating}");
    let test_phase = allocating["phase_results"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(
        test_phase["process_status"],
        json!({"Signalled": 9}),
        "{allocating}"
    );
}

#[test]
fn shards_0_and_1_of_2_split_the_mutants_and_together_miss_the_same() {
    let dir = fixture("example");
    let shards = [
        run(&dir, &["--shard", "0/2"]),
        run(&dir, &["--shard", "1/2"]),
    ];
    let names: Vec<BTreeSet<String>> = shards
        .iter()
        .map(|shard| shard.tested_names().into_iter().collect())
        .collect();
    assert!(names[0].is_disjoint(&names[1]), "{names:?}");
    let all: Vec<String> = names[0].union(&names[1]).cloned().collect();
    assert_eq!(all, list_names(&dir, &[]));
    assert_eq!(all.len(), 27);
    let mut missed = Vec::new();
    for shard in &shards {
        assert_eq!(mutant_outcomes(shard).len(), shard.tested_names().len());
        let shard_missed = shard.lines("missed.txt");
        shard.assert_exit(if shard_missed.is_empty() { 0 } else { 2 });
        missed.extend(shard_missed);
    }
    assert_eq!(sorted(&missed), sorted(&EXAMPLE_MISSED));
}

#[test]
fn in_diff_tests_only_mutants_on_changed_lines_and_refuses_a_non_diff() {
    let dir = fixture("example");
    let files = tempfile::tempdir().unwrap();
    let diff = files.path().join("change.diff");
    std::fs::write(
        &diff,
        "diff --git a/src/lib.rs b/src/lib.rs\n\
         --- a/src/lib.rs\n\
         +++ b/src/lib.rs\n\
         @@ -30 +30 @@\n\
         -        self.major >= 0\n\
         +        self.major > 0\n",
    )
    .unwrap();
    let changed = run(&dir, &["--in-diff", diff.to_str().unwrap()]);
    changed.assert_exit(2);
    let on_line_30: Vec<String> = list_names(&dir, &[])
        .into_iter()
        .filter(|name| name.starts_with("src/lib.rs:30:"))
        .collect();
    assert_eq!(on_line_30.len(), 5);
    assert_eq!(changed.tested_names(), on_line_30);
    assert_eq!(changed.lines("missed.txt"), on_line_30);

    let notes = files.path().join("notes.txt");
    std::fs::write(&notes, "Remember to bump the version.\nThen tag it.\n").unwrap();
    let refused = run(&dir, &["--in-diff", notes.to_str().unwrap()]);
    refused.assert_exit(1);
    let message = refused.stderr();
    for needle in ["notes.txt", "not a unified diff"] {
        assert!(message.contains(needle), "{needle:?} in {message}");
    }
    assert!(!message.contains("panicked"), "{message}");
}

#[test]
fn json_flag_prints_one_object_whose_counts_and_verdicts_match_the_lists() {
    let filter = "Version::parse|is_stable -> bool with true|count_matching -> usize with 0";
    let run = run(&fixture("example"), &["--json", "-F", filter]);
    run.assert_exit(2);
    let stdout = run.stdout();
    let json: Value = serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{err}: {stdout}"));
    assert!(run.stderr().contains("found 4 mutants"), "{}", run.stderr());
    assert_counts(&run, [2, 1, 0, 1]);
    let outcomes_json = run.json("outcomes.json");
    for key in ["total_mutants", "missed", "caught", "timeout", "unviable"] {
        assert_eq!(json[key], outcomes_json[key], "{key}");
    }
    assert_eq!(json["exit_code"], 2);
    let verdicts: BTreeMap<String, String> = json["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let name = o["name"].as_str().unwrap().to_owned();
            (name, o["verdict"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(json["outcomes"].as_array().unwrap().len(), 4);
    assert_eq!(verdicts, run.verdicts());
}

#[test]
fn bad_flag_value_is_a_usage_error_that_leaves_mutants_out_alone() {
    let sandbox = Sandbox::new();
    let earlier = sandbox.out();
    std::fs::create_dir(&earlier).unwrap();
    std::fs::write(earlier.join("outcomes.json"), "{\"earlier\": true}").unwrap();
    let run = sandbox.run(&fixture("example"), &["--baseline", "sometimes"]);
    run.assert_exit(1);
    let message = run.stderr();
    assert!(message.contains("--baseline"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
    assert_eq!(
        run.json("outcomes.json"),
        serde_json::json!({"earlier": true})
    );
    let old = run.dir.path().join("out/mutants.out.old");
    assert!(!old.exists(), "a usage error moved mutants.out aside");
}

#[test]
fn test_workspace_and_test_package_judge_mutants_by_other_packages_tests() {
    // core-lib has no tests of its own; app's test checks `double`.
    let double = [
        "crates/core/src/lib.rs:2:5: replace double -> u32 with 0",
        "crates/core/src/lib.rs:2:5: replace double -> u32 with 1",
        "crates/core/src/lib.rs:2:7: replace * with + in double",
        "crates/core/src/lib.rs:2:7: replace * with / in double",
    ];
    let own = run(&fixture("workspace"), &["-p", "core-lib"]);
    own.assert_exit(2);
    assert_list(&own, "missed", &double);
    for widen in [&["--test-workspace"][..], &["--test-package", "app"]] {
        let args = [&["-p", "core-lib"][..], widen].concat();
        let widened = run(&fixture("workspace"), &args);
        widened.assert_exit(0);
        assert_list(&widened, "caught", &double);
        let argv = &mutant_outcomes(&widened)[0]["phase_results"][1]["argv"];
        let argv: Vec<&str> = argv
            .as_array()
            .unwrap()
            .iter()
            .flat_map(Value::as_str)
            .collect();
        // Compile-once runs app's test binary itself.
        let program = argv.first().and_then(|p| p.rsplit('/').next());
        assert!(program.is_some_and(|p| p.starts_with("app-")), "{argv:?}");
    }
}

#[test]
fn nextest_test_tool_gives_the_same_verdicts_as_cargo_test() {
    let run = run(&fixture("example"), &["--test-tool", "nextest"]);
    run.assert_exit(2);
    assert_list(&run, "missed", &EXAMPLE_MISSED);
    let outcomes = mutant_outcomes(&run);
    let built = outcomes
        .iter()
        .find(|o| !o["phase_results"].as_array().unwrap().is_empty())
        .unwrap();
    let argv = built["phase_results"][0]["argv"].to_string();
    assert!(argv.contains("\"nextest\",\"run\",\"--no-run\""), "{argv}");
}

#[test]
fn nextest_on_an_infinite_loop_times_out_exits_3_and_leaves_no_process() {
    // nextest runs each test in a process group of its own, out of reach of
    // the group mutiny kills: it must be given the time to stop them.
    let run = run(
        &fixture("infinite_loop"),
        &["--test-tool", "nextest", "--timeout", "3"],
    );
    let test = assert_is_done_timed_out(&run);
    let argv = test["argv"].to_string();
    assert!(argv.contains("\"nextest\",\"run\""), "{argv}");
    assert_no_processes_left(&run);
}

#[test]
fn baseline_skip_tests_the_mutants_without_testing_the_unmutated_tree() {
    let run = run(
        &fixture("all_caught"),
        &["--baseline", "skip", "--timeout", "20"],
    );
    run.assert_exit(0);
    let outcomes = run.json("outcomes.json");
    let first = &outcomes["outcomes"][0]["scenario"];
    assert!(first.get("Mutant").is_some(), "first outcome: {first}");
    assert!(!run.out().join("log/baseline.log").exists());
    assert_eq!(run.lines("missed.txt"), Vec::<String>::new());
}

/// The outcome of the mutant named `name`, and its log.
#[track_caller]
fn outcome_and_log(sandbox: &Sandbox, name: &str) -> (Value, String) {
    let outcome = mutant_outcomes(sandbox)
        .into_iter()
        .find(|o| o["scenario"]["Mutant"]["name"] == name)
        .unwrap_or_else(|| panic!("no outcome for {name}"));
    let log =
        std::fs::read_to_string(sandbox.out().join(outcome["log_path"].as_str().unwrap())).unwrap();
    (outcome, log)
}

/// Each verdict list of the run is cargo-mutants 27.1.0's for the fixture
/// (tests/fixtures/expected/).
#[track_caller]
fn assert_cargo_mutants_lists(sandbox: &Sandbox, fixture_name: &str) {
    let own = sandbox.own_mutants();
    for verdict in VERDICTS {
        let file = format!("{verdict}.txt");
        let mut lines = sandbox.lines(&file);
        lines.retain(|name| !own.contains(name));
        assert_eq!(lines, expected_list(fixture_name, verdict), "{file}");
    }
}

/// A verdict list of cargo-mutants 27.1.0 in tests/fixtures/expected/.
fn expected_list(fixture_name: &str, verdict: &str) -> Vec<String> {
    let path = fixture("expected")
        .join(fixture_name)
        .join(format!("{verdict}.txt"));
    let content = std::fs::read_to_string(&path).unwrap();
    sorted(&content.lines().collect::<Vec<_>>())
}

/// Doctests, which rustdoc compiles one by one, and each a program of its
/// own: the baseline run keeps their programs, and a mutant runs only the
/// programs of the doctests that reached its code in that run, whether
/// they document its function or not, with no doctest compiled again. A
/// `should_panic` doctest (rustdoc judges how it fails) is run by `cargo
/// test --doc`, filtered by name. The verdicts stay cargo-mutants'.
#[test]
fn doctests_run_only_the_kept_programs_that_reached_the_mutants_code() {
    let run = run(&fixture("doctests"), &[]);
    run.assert_exit(2);
    assert_cargo_mutants_lists(&run, "doctests");
    // (cargo is named by its path)
    let cargo_doc = "cargo test --doc --package=doctests@0.1.0";
    let kept = |name: &str, programs: &str, result: &str| {
        let (_, log) = outcome_and_log(&run, name);
        let ran = format!("from the programs rustdoc kept: {programs}\n");
        let (_, after) = log
            .split_once(&ran)
            .unwrap_or_else(|| panic!("no kept doctest program ran for {programs} in\n{log}"));
        assert!(after.contains(result), "{log}");
        assert!(
            !log.contains(cargo_doc),
            "a doctest was compiled again:\n{log}"
        );
    };
    kept(
        "src/lib.rs:13:5: replace is_even -> bool with true",
        "src_lib_rs_8_0",
        "*** result: Failure(101)",
    );
    // Missed by the one doctest that reaches it: no other doctest runs.
    kept(
        "src/lib.rs:33:10: replace > with < in larger",
        "src_lib_rs_28_0",
        "*** result: Success",
    );
    // No doctest documents `half`; `quarter`'s reaches it.
    kept(
        "src/lib.rs:51:7: replace / with * in half",
        "src_lib_rs_42_0",
        "*** result: Failure(101)",
    );
    let (_, log) = outcome_and_log(&run, "src/lib.rs:61:7: replace / with * in divide");
    let filtered = format!("{cargo_doc} -- divide\n");
    let (_, after) = log
        .split_once(&filtered)
        .unwrap_or_else(|| panic!("no doctest run filtered to divide in\n{log}"));
    assert!(after.contains("*** result: Failure(101)"), "{log}");
}

#[test]
fn mutants_no_switch_can_hold_get_cargo_mutants_verdicts_on_the_classic_path() {
    let run = run(&fixture("unswitchable"), &["--workspace"]);
    run.assert_exit(2);
    assert_cargo_mutants_lists(&run, "unswitchable");
    let paths = [
        (
            "src/lib.rs:6:26: replace + with *",
            "classic path (built alone): it is in a const item",
        ),
        // `2 - 3` overflows: rust-analyzer's evaluation of the constant
        // panics, so it is unviable before any build.
        (
            "src/lib.rs:6:26: replace + with -",
            "unviable without a build: rust-analyzer shows it cannot compile: \
             evaluating the constant `LIMIT` panics: Overflow in Sub",
        ),
        // A const fn only called at run time loses its const in the
        // switched build; one called at compile time keeps it: the
        // syntax shows a const item's and a doctest's calls, the build's
        // error a macro's.
        (
            "src/lib.rs:10:7: replace * with + in double",
            "its const fn `double` is a plain fn in the switched build",
        ),
        (
            "src/lib.rs:58:7: replace * with / in triple",
            "classic path (built alone): it is in a const fn that may run at compile time (`triple`",
        ),
        (
            "src/lib.rs:70:5: replace quad -> u32 with 1",
            "classic path (built alone): it is in a const fn that may run at compile time (`quad`",
        ),
        (
            "src/lib.rs:85:7: replace / with % in half",
            "classic path (built alone): it broke the switched build (round 1): error[E0015]: cannot call non-const function `half`",
        ),
        // `"xyzzy".into()` is not const: without the const it would compile.
        (
            "src/lib.rs:93:5: replace no_name -> String with \"xyzzy\".into()",
            "classic path (built alone): it is in a const fn, which",
        ),
        (
            "src/lib.rs:15:5: replace evens -> impl Iterator<Item = u32> with ::std::iter::empty()",
            "classic path (built alone): its function returns impl Trait",
        ),
        (
            "src/lib.rs:26:13: replace + with * in zeros",
            "classic path (built alone): it is in an array length",
        ),
        // The switch module binds std itself: a no_std crate tested on a
        // host holds switches too.
        (
            "nostd/src/lib.rs:5:7: replace + with * in add",
            "compile-once: switch",
        ),
        (
            "src/lib.rs:15:29: replace % with / in evens",
            "compile-once: switch",
        ),
        // Missed, as the mutant's text parses: `a + (b * c)`.
        (
            "src/lib.rs:41:11: replace + with * in total",
            "compile-once: switch",
        ),
        // `x >> (BITS + 1)` shifts a u64 by 65 bits, which rustc's
        // `arithmetic_overflow` lint rejects: unviable before any build.
        (
            "src/lib.rs:48:16: replace - with + in top_bit",
            "unviable without a build: rust-analyzer shows it cannot compile: \
             it shifts a 64-bit value by 65 bits",
        ),
        (
            "src/lib.rs:31:10: replace > with == in describe",
            "compile-once: switch",
        ),
        // Constants of an impl and of a module, used at run time in
        // another file (and in a const fn made plain): a copy holds the
        // mutant and each use chooses. One a doc comment names stays alone.
        (
            "src/flags.rs:10:37: replace << with >>",
            "its const item has a copy holding the mutant in the switched build",
        ),
        (
            "src/flags.rs:21:25: replace * with /",
            "its const item has a copy holding the mutant in the switched build",
        ),
        (
            "src/flags.rs:12:38: replace << with >>",
            "classic path (built alone): it is in a const item, and not every use can choose a copy: \
             src/flags.rs: a doc comment names it",
        ),
        (
            "src/lib.rs:6:26: replace + with *",
            "not every use can choose a copy: src/lib.rs: a macro call names it",
        ),
    ];
    for (name, path) in paths {
        let (_, log) = outcome_and_log(&run, name);
        assert!(log.contains(path), "{name}: {path:?} in\n{log}");
    }
    assert!(run.stdout().contains("compile-once: 48 mutants switched into one build (2 build rounds), 25 on the classic path"), "{}", run.stdout());
    // `nothing` has no mutant: the first round made it plain too, and the
    // second kept its const.
    let log = std::fs::read_to_string(run.out().join("log/baseline.log")).unwrap();
    let (first, second) = log.split_once("switched build, round 2").unwrap();
    assert!(
        first.contains("cannot call non-const function `nothing` in constants"),
        "{log}"
    );
    assert!(!second.contains("E0015"), "{log}");
}

#[test]
fn an_unreached_mutant_is_missed_without_a_test_run_and_a_reached_one_is_tested_whole() {
    let run = run(&fixture("unswitchable"), &["--workspace"]);
    run.assert_exit(2);
    let (unreached, log) =
        outcome_and_log(&run, "src/lib.rs:53:7: replace + with - in never_called");
    assert_eq!(unreached["summary"], "MissedMutant");
    assert_eq!(
        unreached["phase_results"].as_array().unwrap().len(),
        1,
        "{unreached}"
    );
    assert!(
        log.contains("no test reached this mutant's code in the baseline run"),
        "{log}"
    );
    let (reached, log) = outcome_and_log(&run, "src/lib.rs:31:10: replace > with == in describe");
    assert_eq!(reached["summary"], "MissedMutant");
    let phases = reached["phase_results"].as_array().unwrap();
    assert_eq!(phases.len(), 2, "{reached}");
    assert_eq!(phases[1]["phase"], "Test");
    assert!(!log.contains("no test reached"), "{log}");
    // The library's own test binary ran, with the mutant switched on.
    let program = phases[1]["argv"][0].as_str().unwrap();
    assert!(program.contains("/deps/unswitchable-"), "{program}");
    assert!(
        log.contains("test tests::describes_without_checking ... ok"),
        "{log}"
    );
    // The tests that reach it ran first, by name: one of them fails when
    // run so, and did not count; the whole binary then passed.
    assert!(
        log.contains(
            "tests::describes_only_among_all_the_tests fails when run alone without the mutant too"
        ),
        "{log}"
    );
    assert_eq!(phases[1]["argv"].as_array().unwrap().len(), 1, "{reached}");
}

/// A site no test reached, in a function tests entered: a test whose path
/// varies from run to run (random inputs) may reach it next time, as in
/// cargo-mutants' run, so the whole binaries that entered the function run.
#[test]
fn a_site_no_test_reached_in_a_function_tests_entered_runs_their_binaries() {
    let run = run(&fixture("example"), &["-F", "matches"]);
    run.assert_exit(2);
    // No test asks for `Op::Greater`.
    let (outcome, log) = outcome_and_log(&run, "src/lib.rs:51:32: replace > with == in matches");
    assert_eq!(outcome["summary"], "MissedMutant", "{outcome}");
    assert!(
        log.contains("no test reached this mutant's code in the baseline run, but tests entered its function"),
        "{log}"
    );
    assert_eq!(
        outcome["phase_results"].as_array().unwrap().len(),
        2,
        "{outcome}"
    );
    assert!(log.contains("running 4 tests"), "{log}");
}

#[test]
fn a_mutant_foreseen_to_break_the_switched_build_is_built_alone_and_the_rest_stay_switched() {
    let dir = fixture("unviable");
    // Without the analysis, which would rule the broken mutant out unbuilt.
    let run = run(&dir, &["--no-analysis"]);
    run.assert_exit(0);
    let broken = "src/lib.rs:11:5: replace point -> Point with Default::default()";
    assert_list(&run, "unviable", &[broken]);
    let (outcome, log) = outcome_and_log(&run, broken);
    assert_eq!(
        outcome["phase_results"][0]["process_status"]["Failure"], 101,
        "{outcome}"
    );
    // `Point`, a type of the crate, neither derives nor implements
    // `Default`: seen from the syntax, before any build.
    assert!(
        log.contains(
            "classic path (built alone): it would break the switched build: \
             Default::default() in its value stands for Point, which has no Default"
        ),
        "{log}"
    );
    let others: Vec<String> = list_names(&dir, &[])
        .into_iter()
        .filter(|n| n != broken)
        .collect();
    assert_eq!(run.lines("caught.txt"), others);
    for name in &others {
        let (_, log) = outcome_and_log(&run, name);
        assert!(log.contains("compile-once: switch"), "{name}:\n{log}");
    }
    assert!(run.stdout().contains("(1 build round)"), "{}", run.stdout());
}

#[test]
fn compile_once_and_classic_give_the_same_verdicts_on_every_fixture() {
    let summaries = |run: &Run| -> BTreeMap<String, String> {
        mutant_outcomes(run)
            .iter()
            .map(|o| {
                let name = o["scenario"]["Mutant"]["name"].as_str().unwrap().to_owned();
                (name, o["summary"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    let fixtures: [(&str, &[&str]); 8] = [
        ("example", &[]),
        ("all_caught", &[]),
        ("unviable", &[]),
        ("modules", &[]),
        ("config", &[]),
        ("workspace", &["--workspace", "--test-workspace"]),
        ("unswitchable", &["--workspace"]),
        ("infinite_loop", &["--timeout", "3"]),
    ];
    for (name, args) in fixtures {
        let dir = fixture(name);
        let once = run(&dir, args);
        let classic = run(&dir, &[args, &["--strategy", "classic"][..]].concat());
        assert!(
            once.stdout().contains("compile-once: "),
            "{name}: {}",
            once.stdout()
        );
        assert_eq!(summaries(&once), summaries(&classic), "{name}");
        assert_eq!(
            once.output.status.code(),
            classic.output.status.code(),
            "{name}"
        );
    }
}

/// The test phase's command line of mutant `name` in the last run.
fn test_argv_of(sandbox: &Sandbox, name: &str) -> Vec<String> {
    let (outcome, _) = outcome_and_log(sandbox, name);
    assert_eq!(outcome["summary"], "CaughtMutant", "{outcome}");
    let phases = outcome["phase_results"].as_array().unwrap();
    let test = phases.iter().find(|p| p["phase"] == "Test").unwrap();
    test["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_tests_that_reach_a_mutant_run_alone_before_the_whole_binary() {
    let dir = fixture("example");
    let fmt = "src/lib.rs:36:9: replace <impl fmt::Display for Version>::fmt -> fmt::Result \
               with Ok(Default::default())";
    let sandbox = Sandbox::new();
    let run = sandbox.run(&dir, &["-F", "fmt"]);
    run.assert_exit(0);
    // Of the four tests, the baseline saw one reach `fmt`: it runs alone,
    // and catches the mutant, once it passed alone without the mutant.
    let argv = test_argv_of(&run, fmt);
    assert_eq!(argv[1..], ["tests::displays_dotted", "--exact"], "{argv:?}");
    let (_, log) = outcome_and_log(&run, fmt);
    assert!(
        log.contains("does tests::displays_dotted pass alone without the mutant?"),
        "{log}"
    );
    assert!(!log.contains("running 4 tests"), "{log}");
}

#[test]
fn the_test_that_caught_a_functions_mutant_runs_first_in_the_next_run() {
    let dir = fixture("example");
    let parse = "src/lib.rs:17:9: replace Version::parse -> Option<Version> with None";
    let sandbox = Sandbox::new();
    // Nothing known yet: every test reaches `parse`, and all of them run.
    let first = {
        let _turn = one_at_a_time();
        sandbox.command(&dir, &["-F", "parse"]).output().unwrap()
    };
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let argv = test_argv_of(&sandbox, parse);
    assert_eq!(argv.len(), 1 + 4 + 1, "{argv:?}");
    let killers = sandbox.json("killers.json");
    let killer = killers["killers"]["src/lib.rs::Version::parse"]["test"]
        .as_str()
        .unwrap_or_else(|| panic!("{killers}"))
        .to_owned();
    assert!(argv.contains(&killer), "{killers}");

    // The next run reads what the last one wrote down: that test alone
    // runs first, and catches the mutant.
    let run = sandbox.run(&dir, &["-F", "parse"]);
    run.assert_exit(0);
    let argv = test_argv_of(&run, parse);
    assert_eq!(argv[1..], [killer.as_str(), "--exact"], "{argv:?}");
}

/// The semantics fixture's mutants that rust-analyzer shows cannot compile,
/// with what each log must say.
const SEMANTICS_UNVIABLE: [(&str, &str); 21] = [
    (
        "src/lib.rs:27:9: replace Version::bumped -> Self with Default::default()",
        "`Version` does not implement `Default`",
    ),
    (
        "src/lib.rs:39:9: replace <impl FromStr for Version>::from_str -> std::result::Result<Self, Self::Err> with Ok(Default::default())",
        "`Version` does not implement `Default`",
    ),
    (
        "src/lib.rs:49:5: replace compare -> Result<Ordering> with Ok(Default::default())",
        "`Ordering` does not implement `Default`",
    ),
    (
        "src/lib.rs:54:5: replace first -> T with Default::default()",
        "`T` does not implement `Default`",
    ),
    (
        "src/lib.rs:72:16: replace >> with << in top_bit",
        "the mutated code does not parse (expected type)",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::new()",
        "`NonNull::new` takes 1 argument, the stub gives 0",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::new(0)",
        "the stub builds a value of type `Option`, but the function returns `NonNull<u8>`",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::new(1)",
        "the stub builds a value of type `Option`, but the function returns `NonNull<u8>`",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::from(0)",
        "`NonNull` implements `From` for no integer type",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::from(1)",
        "`NonNull` implements `From` for no integer type",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::from_iter([0])",
        "`NonNull` has no associated item `from_iter`",
    ),
    (
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::from_iter([1])",
        "`NonNull` has no associated item `from_iter`",
    ),
    (
        "src/lib.rs:86:5: replace empty_tally -> Tally with Default::default()",
        "`Default::default()` cannot be called in a `const fn`",
    ),
    (
        "src/lib.rs:92:12: replace * with + in twice",
        "`Duration` does not implement `Add<u32>`, which `+` needs",
    ),
    (
        "src/lib.rs:97:28: replace + with - in greeting",
        "`String` does not implement `Sub<&str>`, which `-` needs",
    ),
    (
        "src/lib.rs:97:28: replace + with * in greeting",
        "`String` does not implement `Mul<&str>`, which `*` needs",
    ),
    (
        "src/lib.rs:106:26: replace * with /",
        "evaluating the constant `PAD` panics: Overflow in Div",
    ),
    (
        "src/lib.rs:106:55: replace * with +",
        "evaluating the constant `PAD` panics: Overflow in Sub",
    ),
    (
        "src/lib.rs:106:55: replace * with /",
        "evaluating the constant `PAD` panics: Overflow in Div",
    ),
    (
        "src/lib.rs:106:63: replace < with ==",
        "evaluating the constant `PAD` panics: Overflow in Sub",
    ),
    (
        "src/lib.rs:106:63: replace < with <=",
        "evaluating the constant `PAD` panics: Overflow in Sub",
    ),
];

#[test]
fn stubs_rust_analyzer_shows_cannot_compile_are_unviable_without_a_build() {
    let run = run(&fixture("semantics"), &[]);
    // `PAD`'s equivalent mutants are missed.
    run.assert_exit(2);
    // cargo-mutants' verdicts, each of its unviable mutants built and failed.
    assert_cargo_mutants_lists(&run, "semantics");
    for (name, why) in SEMANTICS_UNVIABLE {
        let (outcome, log) = outcome_and_log(&run, name);
        assert_eq!(outcome["summary"], "Unviable", "{outcome}");
        assert_eq!(outcome["phase_results"], serde_json::json!([]), "{outcome}");
        assert!(
            log.contains(&format!(
                "unviable without a build: rust-analyzer shows it cannot compile: {why}"
            )),
            "{name}:\n{log}"
        );
    }
    // The stubs whose types implement `Default` were built and tested.
    for name in [
        "src/lib.rs:59:5: replace first_or_default -> T with Default::default()",
        "src/lib.rs:64:5: replace tally -> Tally with Default::default()",
    ] {
        let (outcome, _) = outcome_and_log(&run, name);
        assert_eq!(outcome["summary"], "CaughtMutant", "{outcome}");
    }
    assert!(
        run.stdout()
            .contains("rust-analyzer: 21 mutants cannot compile and are not built"),
        "{}",
        run.stdout()
    );
    // Only the mutants about to be built alone were checked: the switched
    // build proved the others.
    let stdout = run.stdout();
    let classic = stdout
        .lines()
        .find_map(|line| line.strip_suffix(" on the classic path"))
        .and_then(|line| line.rsplit(' ').next())
        .unwrap_or_else(|| panic!("no compile-once note:\n{stdout}"));
    assert!(
        stdout.contains(&format!("and are not built (checked {classic} in ")),
        "{stdout}"
    );
}

#[test]
fn shift_amounts_out_of_range_are_unviable_without_a_build() {
    // `WORD_BYTES * 8 - 1` made 65 or 64: rustc's deny-by-default
    // `arithmetic_overflow` rejects the shift, as cargo-mutants found by
    // building them.
    let run = run(&fixture("shift_overflow"), &[]);
    run.assert_exit(0);
    assert_cargo_mutants_lists(&run, "shift_overflow");
    for (name, amount) in [
        ("src/lib.rs:5:26: replace - with + in top_bit", 65),
        ("src/lib.rs:5:26: replace - with / in top_bit", 64),
    ] {
        let (outcome, log) = outcome_and_log(&run, name);
        assert_eq!(outcome["phase_results"], serde_json::json!([]), "{outcome}");
        assert!(
            log.contains(&format!(
                "it shifts a 64-bit value by {amount} bits, which rustc's deny-by-default \
                 `arithmetic_overflow` lint rejects"
            )),
            "{name}:\n{log}"
        );
    }
    // A mutant that makes a constant's loop endless: rust-analyzer's
    // evaluation runs past its limit, and rustc's lint would reject it
    // after seconds; it is unviable without a build.
    let (outcome, log) = outcome_and_log(&run, "src/lib.rs:36:15: replace += with *= in is_digit");
    assert_eq!(outcome["summary"], "Unviable", "{outcome}");
    assert_eq!(outcome["phase_results"], serde_json::json!([]), "{outcome}");
    assert!(
        log.contains(
            "evaluating the constant `DIGITS` does not end: it runs past rust-analyzer's limit"
        ),
        "{log}"
    );
    // A run of integer constants whose mutant stays within its values is
    // switched; one whose mutant grows past them (it may overflow) is
    // built alone, as its own build would reject it. A local constant's
    // mutants are switched at its uses.
    for (name, path) in [
        (
            "src/lib.rs:11:21: replace * with + in week_seconds",
            "compile-once: switch",
        ),
        (
            "src/lib.rs:11:21: replace * with / in week_seconds",
            "compile-once: switch",
        ),
        (
            "src/lib.rs:17:14: replace - with / in hundreds",
            "compile-once: switch",
        ),
        (
            "src/lib.rs:17:14: replace - with + in hundreds",
            "classic path (built alone): its operands are constants",
        ),
        // In a constant local to the function: a copy of it holds the
        // mutant, and its use chooses the copy at run time.
        (
            "src/lib.rs:23:36: replace * with + in cycle_days",
            "compile-once: switch",
        ),
        (
            "src/lib.rs:23:42: replace + with * in cycle_days",
            "compile-once: switch",
        ),
        // A constant whose value loops: a mutant may make the loop endless,
        // which would hold up the switched build.
        (
            "src/lib.rs:35:18: replace |= with &= in is_digit",
            "classic path (built alone): it is in a constant whose value loops",
        ),
    ] {
        let (_, log) = outcome_and_log(&run, name);
        assert!(log.contains(path), "{name}: {path:?} in\n{log}");
    }
}

/// While rust-analyzer looks for own stubs, the lab's copy builds the
/// unmutated tests: the run's first build finds the dependency built.
#[test]
fn the_dependencies_build_while_rust_analyzer_looks_for_own_stubs() {
    let dir = fixture("head_start");
    let compiled_in_first_build = |run: &Run| {
        let log = std::fs::read_to_string(run.out().join("log/baseline.log")).unwrap();
        let first = log.split("*** result:").next().unwrap().to_owned();
        assert!(first.contains("Compiling head_start"), "{log}");
        first.contains("Compiling helper")
    };
    let run = run(&dir, &[]);
    run.assert_exit(0);
    assert!(
        run.stdout().contains("own type-aware stub"),
        "{}",
        run.stdout()
    );
    assert!(!compiled_in_first_build(&run));
    // Without the search for own stubs there is no head start.
    let plain = Sandbox::new().run(&dir, &["--no-own-stubs"]);
    plain.assert_exit(0);
    assert!(compiled_in_first_build(&plain));
}

#[test]
fn the_test_builds_leave_out_dev_dependencies_only_benchmarks_name() {
    let dir = fixture("bench_only");
    let before = tree_snapshot(&dir);
    // Without own stubs there is no head start: the baseline's build is
    // the cold one, and its log says what it compiled.
    let compiled = |run: &Run, name: &str| {
        let log = std::fs::read_to_string(run.out().join("log/baseline.log")).unwrap();
        assert!(log.contains("Compiling bench_only"), "{log}");
        log.contains(&format!("Compiling {name} "))
    };
    let run = run(&dir, &["--no-own-stubs"]);
    run.assert_exit(0);
    assert!(
        run.stdout().contains(
            "the test builds leave out dev-dependencies that only benchmarks name (bench_only: stopwatch)"
        ),
        "{}",
        run.stdout()
    );
    assert!(
        compiled(&run, "helper"),
        "the test's dev-dependency is built"
    );
    assert!(!compiled(&run, "stopwatch"), "the benchmark's is not");
    assert_eq!(
        run.verdicts().values().filter(|v| *v == "caught").count(),
        4
    );
    assert_unchanged(&dir, &before);
    let kept = Sandbox::new().run(&dir, &["--no-own-stubs", "--keep-dev-dependencies"]);
    kept.assert_exit(0);
    assert!(compiled(&kept, "stopwatch"));
    assert!(!kept.stdout().contains("leave out"), "{}", kept.stdout());
}

#[test]
fn own_stubs_give_functions_whose_table_stubs_are_all_unviable_viable_mutants() {
    // cargo-mutants' one stub for each function is unviable (no
    // `Default`): it reports nothing missed. The values of the resolved
    // types find what the fixture's tests leave unchecked.
    let run = run(&fixture("own_stubs"), &[]);
    run.assert_exit(2);
    assert!(
        run.stdout().contains("15 own type-aware stubs"),
        "{}",
        run.stdout()
    );
    // No build script or proc macro: the analysis takes the own stubs'
    // model as it is instead of loading the workspace again.
    assert!(
        run.stdout()
            .contains("s (once, for the own stubs and this analysis)"),
        "{}",
        run.stdout()
    );
    assert_cargo_mutants_lists(&run, "own_stubs");
    let verdicts = run.verdicts();
    let own = run.own_mutants();
    let of = |verdict: &str| -> Vec<String> {
        own.iter()
            .filter(|name| verdicts.get(*name).map(String::as_str) == Some(verdict))
            .cloned()
            .collect()
    };
    // No test calls `Level::middle`; `by_rank` is checked for one order;
    // `trump` only for having some suit.
    assert_eq!(
        of("missed"),
        sorted(&[
            "src/lib.rs:30:9: replace Level::middle -> Level with Level::HIGH",
            "src/lib.rs:30:9: replace Level::middle -> Level with Level::LOW",
            "src/lib.rs:41:5: replace by_rank -> Ordering with Ordering::Less",
            "src/lib.rs:62:5: replace trump -> Option<Suit> with Some(Suit::Clubs)",
            "src/lib.rs:62:5: replace trump -> Option<Suit> with Some(Suit::Diamonds)",
            "src/lib.rs:62:5: replace trump -> Option<Suit> with Some(Suit::Hearts)",
        ])
    );
    assert_eq!(of("caught").len(), 9, "{:?}", of("caught"));
    assert_eq!(own.len(), 15, "{own:?}");
    // Every own stub compiled: built with the others in the switched build.
    let (_, log) = outcome_and_log(
        &run,
        "src/lib.rs:46:5: replace suit -> Result<Suit, ParseError> with Err(ParseError::Empty)",
    );
    assert!(log.contains("compile-once: switch"), "{log}");
    // rust-analyzer, loaded for the own stubs, also saw that `Ordering` has
    // no `Default`: that mutant was built alone from the start (one build
    // round), and found unviable without a build.
    let (outcome, log) = outcome_and_log(
        &run,
        "src/lib.rs:41:5: replace by_rank -> Ordering with Default::default()",
    );
    assert_eq!(outcome["summary"], "Unviable", "{outcome}");
    assert!(log.contains("unviable without a build"), "{log}");
    assert!(run.stdout().contains("(1 build round)"), "{}", run.stdout());

    // Turned off, the run is cargo-mutants' exactly: nothing missed.
    let plain = Sandbox::new().run(&fixture("own_stubs"), &["--no-own-stubs"]);
    plain.assert_exit(0);
    // (Without rust-analyzer before the build, that mutant broke the first
    // switched build.)
    assert!(
        plain.stdout().contains("(2 build rounds)"),
        "{}",
        plain.stdout()
    );
    assert!(plain.own_mutants().is_empty());
    assert_cargo_mutants_lists(&plain, "own_stubs");
}

#[test]
fn no_analysis_builds_the_mutants_rust_analyzer_rules_out_alone_once_they_break_the_switched_build()
{
    let run = run(&fixture("semantics"), &["--no-analysis"]);
    run.assert_exit(2);
    // `NonNull::new()` cannot be foreseen from the syntax: it breaks the
    // first switched build, is blamed from rustc's error and built alone;
    // the second round holds the rest.
    let (_, log) = outcome_and_log(
        &run,
        "src/lib.rs:80:5: replace first_byte -> NonNull<u8> with NonNull::new()",
    );
    assert!(
        log.contains("classic path (built alone): it broke the switched build (round 1): error"),
        "{log}"
    );
    assert!(
        run.stdout().contains("(2 build rounds)"),
        "{}",
        run.stdout()
    );
    let (_, log) = outcome_and_log(&run, "src/lib.rs:92:12: replace * with / in twice");
    assert!(log.contains("compile-once: switch"), "{log}");
    assert_eq!(
        run.lines("unviable.txt"),
        expected_list("semantics", "unviable")
    );
    for (name, _) in SEMANTICS_UNVIABLE {
        let (outcome, log) = outcome_and_log(&run, name);
        assert_eq!(outcome["phase_results"][0]["phase"], "Build", "{outcome}");
        assert_eq!(
            outcome["phase_results"][0]["process_status"]["Failure"], 101,
            "{outcome}"
        );
        assert!(!log.contains("rust-analyzer"), "{name}:\n{log}");
    }
    assert!(!run.stdout().contains("rust-analyzer"), "{}", run.stdout());
}

#[test]
fn without_the_standard_librarys_sources_every_mutant_is_built_and_the_run_says_why() {
    // A rustc whose sysroot has no `lib/rustlib/src`: it answers
    // `--print sysroot` with an empty directory and runs the real rustc
    // for everything else (cargo asks with `--print=sysroot`).
    let sandbox = Sandbox::new();
    let sysroot = sandbox.dir.path().join("bare-sysroot");
    std::fs::create_dir(&sysroot).unwrap();
    let wrapper = sandbox.dir.path().join("rustc-without-src");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nif [ \"$1 $2\" = \"--print sysroot\" ]; then echo {}; exit 0; fi\nexec rustc \"$@\"\n",
            sysroot.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let output = {
        let _turn = one_at_a_time();
        sandbox
            .command(&fixture("semantics"), &[])
            .env("RUSTC", &wrapper)
            .env_remove("RUST_SRC_PATH")
            .output()
            .expect("mutiny runs")
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "note: the standard library's sources are missing (no {}/lib/rustlib/src/rust/library/core)",
            sysroot.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("rustup component add rust-src"), "{stdout}");
    assert_eq!(
        sandbox.lines("unviable.txt"),
        expected_list("semantics", "unviable")
    );
    for (name, _) in SEMANTICS_UNVIABLE {
        let (outcome, _) = outcome_and_log(&sandbox, name);
        assert_eq!(outcome["phase_results"][0]["phase"], "Build", "{outcome}");
    }
}

#[test]
fn a_default_a_proc_macro_derives_is_seen_so_only_the_type_without_one_is_ruled_out() {
    // `Score`'s `Default` is derived by the fixture's own proc macro, which
    // rust-analyzer sees once `cargo check` built it: its stub is built
    // (and caught). `Plain` has no `Default`: ruled out.
    let dir = fixture("derived_default");
    let run = run(&dir, &[]);
    run.assert_exit(0);
    assert_cargo_mutants_lists(&run, "derived_default");
    let (score, _) = outcome_and_log(
        &run,
        "src/lib.rs:18:5: replace score -> Score with Default::default()",
    );
    assert_eq!(score["phase_results"][0]["phase"], "Build", "{score}");
    let (plain, log) = outcome_and_log(
        &run,
        "src/lib.rs:24:5: replace plain -> Plain with Default::default()",
    );
    assert_eq!(plain["phase_results"], serde_json::json!([]), "{plain}");
    assert!(
        log.contains("`Plain` does not implement `Default`"),
        "{log}"
    );
}

#[test]
fn paths_that_do_not_resolve_are_unviable_without_a_build_unless_a_glob_could_bring_them() {
    let dir = fixture("no_std_paths");
    let run = run(&dir, &[]);
    run.assert_exit(0);
    assert_cargo_mutants_lists(&run, "no_std_paths");
    let reasons = [
        ("with Poll::new()", "`Poll` has no associated item `new`"),
        ("with Poll::new(0)", "`Poll` has no associated item `new`"),
        (
            "with Poll::from_iter([1])",
            "`Poll` has no associated item `from_iter`",
        ),
        (
            "digits -> &'static[u8] with Vec::leak(Vec::new())",
            "`Vec` is not in scope",
        ),
        (
            "digits -> &'static[u8] with Vec::leak(vec![0])",
            "`Vec` is not in scope",
        ),
        ("with Box::leak(Box::new(1))", "`Box` is not in scope"),
    ];
    for (end, why) in reasons {
        let name = run
            .lines("unviable.txt")
            .into_iter()
            .find(|n| n.ends_with(end))
            .unwrap_or_else(|| panic!("no unviable mutant ends with {end}"));
        let (outcome, log) = outcome_and_log(&run, &name);
        assert_eq!(outcome["phase_results"], serde_json::json!([]), "{outcome}");
        assert!(log.contains(why), "{name}:\n{log}");
    }
    // `Poll::from` resolves; in `tens`' module a glob import brings `Vec`
    // from generated code rust-analyzer does not see: those are built.
    for name in run.lines("caught.txt").into_iter().chain(
        run.lines("unviable.txt")
            .into_iter()
            .filter(|n| n.contains("tens::tens")),
    ) {
        let (outcome, _) = outcome_and_log(&run, &name);
        assert_eq!(outcome["phase_results"][0]["phase"], "Build", "{outcome}");
    }
    assert!(
        run.stdout()
            .contains("rust-analyzer: 10 mutants cannot compile and are not built"),
        "{}",
        run.stdout()
    );
    // `Number` is a `u64` only with the build script's cfg: the model
    // without it sees `u32 + u64`, which rustc never compiles, so it does
    // not judge the swaps; they are built, and caught.
    for name in [
        "src/lib.rs:39:7: replace + with - in widen",
        "src/lib.rs:39:7: replace + with * in widen",
    ] {
        let (outcome, log) = outcome_and_log(&run, name);
        assert_eq!(outcome["summary"], "CaughtMutant", "{outcome}");
        assert!(!log.contains("rust-analyzer shows"), "{log}");
    }
    // Only a dependency has a build script: the analysis takes the own
    // stubs' model, which does not trust that dependency, as it is.
    assert!(
        run.stdout().contains(
            "(once, for the own stubs and this analysis; without the build scripts of \
             generated: it judges nothing that relies on their crates)"
        ),
        "{}",
        run.stdout()
    );
}

#[test]
fn mutants_in_code_under_cfgs_that_are_off_are_not_compiled_never_missed() {
    // cargo-mutants calls every mutant in code behind `cfg(windows)` or an
    // off feature "missed" on Linux: no test here can run that code.
    let run = run(&fixture("cfg_targets"), &[]);
    run.assert_exit(2);
    // The one mutant in compiled code that the tests miss stays missed.
    let length = "src/lib.rs:42:5: replace length -> Count with Default::default()";
    let mut not_compiled = expected_list("cfg_targets", "missed");
    not_compiled.retain(|name| name != length);
    assert_eq!(run.lines("not_compiled.txt"), not_compiled);
    assert_eq!(run.lines("missed.txt"), [length]);
    assert_eq!(
        run.lines("caught.txt"),
        expected_list("cfg_targets", "caught")
    );
    let outcomes = run.json("outcomes.json");
    assert_eq!(outcomes["not_compiled"], 15, "{outcomes}");
    assert_eq!(outcomes["total_mutants"], 9, "{outcomes}");
    let stdout = run.stdout();
    assert!(
        stdout.contains(
            "9 mutants tested: 1 missed, 8 caught; 15 not compiled for this target (not tested)"
        ),
        "{stdout}"
    );
    let reasons = [
        (
            "src/lib.rs:17:44: replace + with - in separators",
            "`cfg(windows)` is off for this target",
        ),
        (
            "src/lib.rs:26:5: replace doubled -> u32 with 0",
            "`cfg(feature = \"extra\")` is off for this target",
        ),
        (
            "src/windows.rs:8:5: replace drive -> bool with true",
            "src/windows.rs is declared under `cfg(windows)`, off for this target",
        ),
    ];
    for (name, why) in reasons {
        let (outcome, log) = outcome_and_log(&run, name);
        assert_eq!(outcome["summary"], "NotCompiled", "{outcome}");
        assert_eq!(outcome["phase_results"], serde_json::json!([]), "{outcome}");
        assert!(
            log.contains(&format!(
                "not tested: its code is not compiled for this target: {why}"
            )),
            "{log}"
        );
        assert!(
            stdout.contains(&format!("NOT COMPILED {name}: {why}")),
            "{stdout}"
        );
    }
}

#[test]
fn mutants_a_test_reaches_are_tested_before_the_analysis_answers() {
    // The analysis is held (`MUTINY_HOLD_ANALYSIS`) until a mutant's test
    // has run (the fixture's test writes the marker): a run that waited for
    // the analysis before testing would be held until the hold gives up.
    let sandbox = Sandbox::new();
    let marker = sandbox.dir.path().join("marker");
    let output = {
        let _turn = one_at_a_time();
        sandbox
            .command(&fixture("analysis_waits"), &[])
            .env("ANALYSIS_WAITS_MARKER", &marker)
            .env("MUTINY_HOLD_ANALYSIS", &marker)
            .output()
            .expect("mutiny runs")
    };
    let run = Run { sandbox, output };
    run.assert_exit(0);
    let held =
        std::fs::read_to_string(marker.with_extension("analysis")).expect("the analysis was held");
    assert_eq!(held, "released by a mutant's test", "{}", run.stdout());
    assert_eq!(run.lines("caught.txt").len(), 4, "{}", run.stdout());
    // The mutant no test reaches waited for the cfg verdicts: not missed.
    assert_eq!(
        run.lines("not_compiled.txt"),
        ["src/lib.rs:9:5: replace separator -> char with Default::default()"]
    );
    assert!(run.lines("missed.txt").is_empty());
}

#[test]
fn mutants_built_alone_wait_for_the_analysis_only_if_it_may_rule_them_out() {
    // rust-analyzer's load (`MUTINY_HOLD_ANALYSIS`) and its viability
    // judgement (`MUTINY_HOLD_VIABILITY`) are held until a mutant of
    // `triple` has been tested (the fixture's test writes the marker).
    // `triple`'s mutants are built alone (a constant calls it at compile
    // time); its stubs are under no cfg and the analysis can say nothing
    // of them: they do not wait. A run that waited for the analysis
    // before building any of them would be held until the holds give up.
    // `plain`'s `Default::default()`, which the answer may rule out,
    // waits for it.
    let sandbox = Sandbox::new();
    let marker = sandbox.dir.path().join("marker");
    let output = {
        let _turn = one_at_a_time();
        sandbox
            .command(&fixture("viability_waits"), &[])
            .env("VIABILITY_WAITS_MARKER", &marker)
            .env("MUTINY_HOLD_ANALYSIS", &marker)
            .env("MUTINY_HOLD_VIABILITY", &marker)
            .output()
            .expect("mutiny runs")
    };
    let run = Run { sandbox, output };
    run.assert_exit(0);
    for (stage, extension) in [("load", "analysis"), ("viability judgement", "viability")] {
        let held = std::fs::read_to_string(marker.with_extension(extension))
            .unwrap_or_else(|_| panic!("the {stage} was held"));
        assert_eq!(held, "released by a mutant's test", "{}", run.stdout());
    }
    assert!(
        run.stdout().contains("compile-once: 4 mutants switched"),
        "{}",
        run.stdout()
    );
    assert_eq!(run.lines("caught.txt").len(), 8, "{}", run.stdout());
    let plain = "src/lib.rs:21:5: replace plain -> Plain with Default::default()";
    assert_eq!(run.lines("unviable.txt"), [plain]);
    let (_, log) = outcome_and_log(&run, plain);
    assert!(
        log.contains("unviable without a build: rust-analyzer shows it cannot compile"),
        "{log}"
    );
}

#[test]
fn code_under_a_feature_is_tested_when_the_run_turns_the_feature_on() {
    let run = run(&fixture("cfg_targets"), &["--features", "extra"]);
    run.assert_exit(2);
    let doubled = [
        "src/lib.rs:26:5: replace doubled -> u32 with 0",
        "src/lib.rs:26:5: replace doubled -> u32 with 1",
        "src/lib.rs:26:7: replace * with + in doubled",
        "src/lib.rs:26:7: replace * with / in doubled",
    ];
    let caught = run.lines("caught.txt");
    let not_compiled = run.lines("not_compiled.txt");
    for name in doubled {
        assert!(caught.iter().any(|c| c == name), "{name}: {caught:?}");
        assert!(!not_compiled.iter().any(|c| c == name), "{name}");
    }
    assert_eq!(not_compiled.len(), 11, "{not_compiled:?}");
}

#[test]
fn cfg_all_tests_code_under_cfgs_that_are_off_as_cargo_mutants_does() {
    let run = run(&fixture("cfg_targets"), &["--cfg-all"]);
    run.assert_exit(2);
    assert_cargo_mutants_lists(&run, "cfg_targets");
    assert_eq!(run.lines("not_compiled.txt"), Vec::<String>::new());
}
