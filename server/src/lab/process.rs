//! Running one command of a scenario: in its own process group, output
//! appended to the scenario's log, the group terminated on timeout or
//! cancellation (SIGTERM, a grace period, then SIGKILL) and killed whole
//! when the command ends. The interface to `libc` is here.
//!
//! Why not `process-wrap`: it would give us the process group (which std's
//! `process_group` already does) and a kill of the group, but not what costs
//! the code here: that no process of the command survives mutiny's own
//! death, even by SIGKILL. That needs a process of ours in the group that
//! notices mutiny is gone (the watchdog below); the SIGTERM grace and the
//! signal dispositions of the command are ours to write either way. The
//! crate would add a dependency (and `nix`) and remove a few lines.
//!
//! The design: a watchdog (`/bin/sh`, doing nothing until its stdin closes)
//! leads a new process group, and the command joins that group as a direct
//! child of mutiny. mutiny holds the write end of the watchdog's stdin, so
//! when mutiny dies, however it dies, the kernel closes it: the watchdog
//! reads end-of-file and terminates the group, with the same grace as a
//! timeout. This needs no parent-death signal (which Linux sends when the
//! spawning *thread* ends, and which races with the parent's death) and
//! works on every Unix. The command being mutiny's own child, its exit
//! status is its own (a test killed by a signal is `Signalled`), a command
//! that cannot be started is an error of `spawn`, and its signal
//! dispositions are not a shell's (a non-interactive shell starts
//! background commands with SIGINT and SIGQUIT ignored).
//!
//! The command itself starts through mutiny's binary as a launcher (see
//! [`use_launcher`]), so that no command costs a fork of mutiny's memory.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::Cancel;
use crate::outcome::ProcessStatus;

/// How a command ended, from the lab's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Status(ProcessStatus),
    /// The run was cancelled and the command killed; it has no verdict.
    Cancelled,
}

/// How long a command has, after SIGTERM to its group, before SIGKILL.
/// nextest runs each test in a process group of its own, out of reach of
/// ours: it needs this moment to terminate its tests before it is killed.
/// A test that merely loops dies at once on SIGTERM, so the grace is only
/// ever waited out in full by a command that ignores SIGTERM. Whole
/// seconds: the watchdog passes it to `sleep`, which POSIX gives no
/// fractions.
const TERMINATION_GRACE: Duration = Duration::from_secs(2);

/// One command: what to run, where, with what added to the environment,
/// for how long, and how far below mutiny's scheduling priority.
pub struct Spec<'a> {
    pub argv: &'a [String],
    pub env: &'a [(String, String)],
    pub cwd: &'a Path,
    /// How long the command may run.
    pub timeout: Option<Duration>,
    /// How much CPU time the command's process (its threads and the
    /// children it reaped) may use; a loop that never ends reaches this
    /// long before a wall-clock timeout that allows for a loaded machine.
    /// Linux only.
    pub cpu_timeout: Option<Duration>,
    pub niceness: i32,
}

/// How a command ended, and the CPU time its process used (Linux only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    pub ended: Ended,
    pub cpu: Option<Duration>,
}

/// Runs a command, appending its command line and its output to `log`
/// (its standard output to `stdout` instead, when given). No process of its
/// group survives the return, nor mutiny's death. A command that cannot be
/// started is an error, not a status.
pub fn run(spec: &Spec, log: &mut File, stdout: Option<File>, cancel: &Cancel) -> Result<Ended> {
    Ok(run_measured(spec, log, stdout, cancel)?.ended)
}

/// [`run`], with the CPU time the command used.
pub fn run_measured(
    spec: &Spec,
    log: &mut File,
    stdout: Option<File>,
    cancel: &Cancel,
) -> Result<Measured> {
    let argv = spec.argv;
    writeln!(log, "\n*** {}", argv.join(" "))?;
    log.flush()?;
    let output_start = log.stream_position().ok();
    let mut command = start_command(argv, spec)?;
    // The output reaches the log through a pipe, capped: a test that
    // prints without end must not fill the disk the log is on.
    let (output, into_output) = std::io::pipe().context("cannot make a pipe")?;
    let stdout: Stdio = match stdout {
        Some(file) => file.into(),
        None => into_output.try_clone()?.into(),
    };
    command
        .current_dir(spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(into_output);
    let copied = copy_capped(output, log.try_clone()?);
    let start = Instant::now();
    let mut group = Group::start(command, &argv[0])?;
    let Measured { ended, cpu } = group.wait(start, (spec.timeout, spec.cpu_timeout), cancel)?;
    // Every process of the group is gone, so the pipe is at its end,
    // unless something left the group holding it: then waiting is brief.
    let _ = copied.recv_timeout(COPY_END_WAIT);
    if ended == Ended::Status(ProcessStatus::Timeout) {
        match (cpu, spec.cpu_timeout) {
            (Some(used), Some(limit)) if used >= limit => writeln!(
                log,
                "\n*** mutiny: stopped after {:.1}s of CPU time (the limit: {:.1}s)",
                used.as_secs_f64(),
                limit.as_secs_f64()
            )?,
            _ => writeln!(
                log,
                "\n*** mutiny: stopped after {:.1}s (the timeout)",
                start.elapsed().as_secs_f64()
            )?,
        }
    }
    let result = match ended {
        Ended::Status(status) => format!("{status:?}"),
        Ended::Cancelled => "cancelled".to_owned(),
    };
    writeln!(log, "\n*** result: {result}")?;
    if let (Ended::Status(status), Some(from)) = (ended, output_start) {
        if !status.is_success() && said_out_of_space(log, from) {
            bail!(
                "no space left on the device: `{}` failed for want of it in {}, which \
                 has {} free. mutiny copies and builds the workspace in the temporary \
                 directory: free some space, or point TMPDIR at a larger disk",
                argv.join(" "),
                spec.cwd.display(),
                free_space(spec.cwd)
            );
        }
    }
    Ok(Measured { ended, cpu })
}

/// The hidden first argument that makes mutiny's binary the launcher of
/// a command: `mutiny __mutiny-launch NICENESS PROGRAM ARGS...`.
pub const LAUNCH_ARG: &str = "__mutiny-launch";

/// The launcher's path, once mutiny's binary said it can launch.
static LAUNCHER: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Starts commands through mutiny's own binary from now on (see
/// [`launch_if_asked`]), so that starting one never forks mutiny.
///
/// Why: a command must start below mutiny's priority, first in line for
/// the out-of-memory killer and with SIGINT and SIGQUIT at their defaults.
/// Done in the child between fork and exec, that forces std to fork, and a
/// fork copies the page tables of mutiny's whole memory: with
/// rust-analyzer's model loaded (a gigabyte or more), ~60 ms per command,
/// more than a small crate's test binary takes to run. A launcher started
/// by `posix_spawn` (which does not copy them) does those steps itself and
/// then becomes the command by `exec`: the command is still mutiny's child,
/// with its own pid, status and process group. Without a launcher (mutiny
/// as a library, its unit tests) the steps run between fork and exec.
pub fn use_launcher() {
    let launcher = if cfg!(target_os = "linux") {
        // The running binary even if it was replaced or deleted since.
        Some(std::path::PathBuf::from("/proc/self/exe"))
    } else {
        std::env::current_exe().ok()
    };
    if let Some(launcher) = launcher {
        let _ = LAUNCHER.set(launcher);
    }
}

/// When mutiny's binary was started as a launcher: takes the steps a
/// command starts with, then becomes the command; never returns then.
/// Otherwise returns at once.
pub fn launch_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(LAUNCH_ARG)) {
        return;
    }
    let niceness: i32 = args
        .next()
        .and_then(|n| n.to_str()?.parse().ok())
        .unwrap_or(0);
    let Some(program) = args.next() else {
        eprintln!("mutiny: {LAUNCH_ARG} needs a niceness and a command");
        std::process::exit(LAUNCH_FAILED);
    };
    // SAFETY: plain system calls on this single-threaded process.
    if let Err(err) = unsafe { nice_with_default_signals(niceness) } {
        eprintln!(
            "mutiny: cannot prepare {}: {err}",
            program.to_string_lossy()
        );
        std::process::exit(LAUNCH_FAILED);
    }
    // std's exec puts SIGPIPE (which Rust's start-up ignores) and the
    // signal mask back to their defaults.
    let err = Command::new(&program).args(args).exec();
    eprintln!("mutiny: cannot run {}: {err}", program.to_string_lossy());
    std::process::exit(LAUNCH_FAILED);
}

/// The launcher's status when it cannot become the command (the shell's
/// code for a command that cannot run).
const LAUNCH_FAILED: i32 = 127;

/// The command for `argv`: through the launcher when there is one.
fn start_command(argv: &[String], spec: &Spec) -> Result<Command> {
    let Some(launcher) = LAUNCHER.get() else {
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]);
        let niceness = spec.niceness;
        // SAFETY: what `nice_with_default_signals` does is
        // async-signal-safe: plain system calls on this (forked) process.
        unsafe {
            command.pre_exec(move || nice_with_default_signals(niceness));
        }
        return Ok(command);
    };
    // A launcher that cannot find the command fails like one, with a
    // status: found here, a missing command is an error, not a verdict.
    if !program_exists(&argv[0], spec) {
        bail!("cannot run {}: command not found", argv[0]);
    }
    let mut command = Command::new(launcher);
    command
        .arg(LAUNCH_ARG)
        .arg(spec.niceness.to_string())
        .args(argv);
    Ok(command)
}

/// Whether `program` names an executable file, as `execvp` would look
/// for it: a path (from the command's directory), else a name on the
/// command's `PATH`.
fn program_exists(program: &str, spec: &Spec) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(&spec.cwd.join(program));
    }
    let path = match spec.env.iter().rev().find(|(k, _)| k == "PATH") {
        Some((_, path)) => std::ffi::OsString::from(path),
        None => std::env::var_os("PATH").unwrap_or_default(),
    };
    std::env::split_paths(&path).any(|dir| executable(&dir.join(program)))
}

/// How much of a command's output a log keeps: its start, and its end
/// (where libtest names the failing tests); what lies between is dropped
/// and counted.
const LOG_HEAD: usize = 32 << 20;
const LOG_TAIL: usize = 1 << 20;

/// How long the end of a command's output is awaited once its group is
/// gone (only a process that escaped the group could still hold the pipe).
const COPY_END_WAIT: Duration = Duration::from_secs(2);

/// Copies `output` into `log` on a thread of its own, keeping the first
/// `LOG_HEAD` and the last `LOG_TAIL` bytes; the returned channel says
/// when it reached the end.
fn copy_capped(output: std::io::PipeReader, log: File) -> std::sync::mpsc::Receiver<()> {
    let (done, copied) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = copy_head_and_tail(output, log, LOG_HEAD, LOG_TAIL);
        let _ = done.send(());
    });
    copied
}

fn copy_head_and_tail(
    mut from: impl Read,
    mut to: impl Write,
    head: usize,
    tail: usize,
) -> std::io::Result<()> {
    let mut buffer = vec![0; 64 << 10];
    let mut written = 0;
    let mut kept = std::collections::VecDeque::new();
    let mut dropped: u64 = 0;
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        let mut chunk = &buffer[..read];
        if written < head {
            let now = chunk.len().min(head - written);
            to.write_all(&chunk[..now])?;
            written += now;
            chunk = &chunk[now..];
        }
        kept.extend(chunk);
        if kept.len() > tail {
            let excess = kept.len() - tail;
            kept.drain(..excess);
            dropped += excess as u64;
        }
    }
    if dropped > 0 {
        writeln!(
            to,
            "\n*** mutiny: {dropped} bytes of output dropped here, to keep the log small ***"
        )?;
    }
    let (first, second) = kept.as_slices();
    to.write_all(first)?;
    to.write_all(second)
}

/// Creates (or empties) a scenario's log; readable too, so that `run` can
/// read back what a failed command said.
pub fn create_log(path: &Path) -> Result<File> {
    File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))
}

/// Whether a command's output, from `from` in `log` on, says the disk was
/// full (ENOSPC, in Rust's, LLVM's or the C library's words): then its
/// failure says nothing of the mutant, and no verdict may be drawn from it.
fn said_out_of_space(log: &mut File, from: u64) -> bool {
    const TAIL: u64 = 1 << 20;
    let end = match log.seek(SeekFrom::End(0)) {
        Ok(end) => end,
        Err(_) => return false,
    };
    let mut output = Vec::new();
    let read = log
        .seek(SeekFrom::Start(from.max(end.saturating_sub(TAIL))))
        .and_then(|_| log.read_to_end(&mut output));
    let _ = log.seek(SeekFrom::End(0));
    read.is_ok() && String::from_utf8_lossy(&output).contains("No space left on device")
}

/// The free space of the file system holding `path`, for messages.
fn free_space(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return "unknown space".to_owned();
    };
    // SAFETY: statvfs fills the zeroed struct it is given; `path` is a
    // valid C string for the call's duration.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stats) } != 0 {
        return "unknown space".to_owned();
    }
    let bytes = stats.f_bavail as u64 * stats.f_frsize as u64;
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

/// How often a waiting job looks at the cancel flag.
const CANCEL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// The watchdog's script: wait for mutiny to close the pipe on stdin (that
/// is, to die), then terminate the group as a timeout would. It ignores the
/// SIGTERM it sends, and the one mutiny sends on a timeout, so that it is
/// still there to finish the job if mutiny dies during the grace period.
const WATCHDOG_SCRIPT: &str = r#"trap '' TERM; read line; kill -TERM 0; sleep "$1"; kill -KILL 0"#;

/// A command in the process group of its watchdog. Dropping it kills the
/// group and reaps both, so an error on any path leaves nothing running.
struct Group {
    /// Leads the group: its pid is the group's id, never reused while it is
    /// unreaped.
    watchdog: Child,
    command: Child,
    /// Both reaped: the group's id may belong to someone else now.
    reaped: bool,
}

impl Group {
    fn start(mut command: Command, program: &str) -> Result<Group> {
        let mut watchdog = watchdog()
            .spawn()
            .context("cannot start /bin/sh, which watches each command")?;
        command.process_group(watchdog.id() as i32);
        match command.spawn() {
            Ok(command) => Ok(Group {
                watchdog,
                command,
                reaped: false,
            }),
            Err(err) => {
                let _ = watchdog.kill();
                let _ = watchdog.wait();
                Err(if err.kind() == std::io::ErrorKind::NotFound {
                    anyhow::anyhow!("cannot run {program}: command not found")
                } else {
                    anyhow::Error::new(err).context(format!("cannot run {program}"))
                })
            }
        }
    }

    /// Waits for the command to exit, for a timeout (wall-clock, CPU
    /// time) or for cancellation.
    fn wait(
        &mut self,
        start: Instant,
        (timeout, cpu_timeout): (Option<Duration>, Option<Duration>),
        cancel: &Cancel,
    ) -> Result<Measured> {
        let mut watch = ExitWatch::new(&self.command);
        loop {
            if has_exited(&self.command)? {
                // Exited but not reaped: its times are still there to read.
                let cpu = cpu_time(self.command.id());
                let status = self.finish()?;
                let ended = Ended::Status(process_status(status));
                return Ok(Measured { ended, cpu });
            }
            let left = timeout.map(|t| t.saturating_sub(start.elapsed()));
            let used = cpu_timeout.and_then(|_| cpu_time(self.command.id()));
            let timed_out = left == Some(Duration::ZERO)
                || matches!((used, cpu_timeout), (Some(used), Some(limit)) if used >= limit);
            if timed_out || cancel.is_cancelled() {
                self.terminate(&mut watch)?;
                let ended = if timed_out {
                    Ended::Status(ProcessStatus::Timeout)
                } else {
                    Ended::Cancelled
                };
                return Ok(Measured { ended, cpu: used });
            }
            watch.pause(left.map_or(CANCEL_CHECK_INTERVAL, |l| l.min(CANCEL_CHECK_INTERVAL)));
        }
    }

    /// SIGTERM to the group, up to `TERMINATION_GRACE` for the command to
    /// exit, then SIGKILL to whatever is left.
    fn terminate(&mut self, watch: &mut ExitWatch) -> Result<()> {
        self.signal(libc::SIGTERM);
        let deadline = Instant::now() + TERMINATION_GRACE;
        while !has_exited(&self.command)? {
            let left = deadline.saturating_duration_since(Instant::now());
            if left == Duration::ZERO {
                break;
            }
            watch.pause(left.min(CANCEL_CHECK_INTERVAL));
        }
        self.finish()?;
        Ok(())
    }

    /// Kills the group, then reaps the command and the watchdog; returns
    /// the command's status.
    fn finish(&mut self) -> Result<ExitStatus> {
        // Reap only after killing the group: while the watchdog is
        // unreaped, the group's id cannot be reused by another process.
        self.signal(libc::SIGKILL);
        let status = self.command.wait();
        let _ = self.watchdog.wait();
        self.reaped = true;
        Ok(status?)
    }

    fn signal(&self, signal: libc::c_int) {
        if self.reaped {
            return;
        }
        // SAFETY: plain syscall on our own group (its leader is not reaped,
        // so the id is still ours). ESRCH just means it is empty already.
        unsafe {
            libc::killpg(self.watchdog.id() as libc::pid_t, signal);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.reaped {
            let _ = self.finish();
        }
    }
}

/// The watchdog: leads a new process group, its stdin a pipe whose other
/// end only mutiny holds.
fn watchdog() -> Command {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(WATCHDOG_SCRIPT)
        .arg("mutiny-watchdog")
        .arg(TERMINATION_GRACE.as_secs().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    command
}

/// Lowers this process's priority by `niceness` and puts SIGINT and
/// SIGQUIT back to their defaults, as `cargo test` from a terminal would
/// have them whatever mutiny inherited (a shell script that starts mutiny
/// in the background leaves them ignored, and ignored signals stay ignored
/// across exec); makes it the out-of-memory killer's first choice.
///
/// # Safety
/// Only in a process about to exec a command: it changes process-wide
/// state. Async-signal-safe (nice, signal, open, write and close), so it
/// may run between fork and exec.
unsafe fn nice_with_default_signals(niceness: i32) -> std::io::Result<()> {
    // SAFETY: plain system calls that touch only this process and a static
    // path and buffer; a failed nice leaves the priority as it was, a
    // failed write the OOM score.
    unsafe {
        if niceness > 0 {
            libc::nice(niceness);
        }
        // The kernel's out-of-memory killer takes this command (a mutant's
        // test that allocates without end) before mutiny or the user's
        // editor: the test dies, a verdict; the run goes on.
        let adj = libc::open(c"/proc/self/oom_score_adj".as_ptr(), libc::O_WRONLY);
        if adj >= 0 {
            libc::write(adj, b"1000".as_ptr().cast(), 4);
            libc::close(adj);
        }
        for signal in [libc::SIGINT, libc::SIGQUIT] {
            if libc::signal(signal, libc::SIG_DFL) == libc::SIG_ERR {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Sleeps until a child exits or a time passes. On Linux a pidfd wakes it
/// the moment the child exits; elsewhere it polls with a growing pause.
struct ExitWatch {
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
    pause: Duration,
}

impl ExitWatch {
    fn new(child: &Child) -> ExitWatch {
        ExitWatch {
            #[cfg(target_os = "linux")]
            pidfd: pidfd_open(child),
            pause: Duration::from_millis(1),
        }
    }

    fn pause(&mut self, limit: Duration) {
        #[cfg(target_os = "linux")]
        if let Some(pidfd) = &self.pidfd {
            use std::os::fd::AsRawFd;
            let mut poll = libc::pollfd {
                fd: pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let millis = limit.as_millis().clamp(1, i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd on this stack; the fd lives in `self`.
            unsafe { libc::poll(&mut poll, 1, millis) };
            return;
        }
        std::thread::sleep(self.pause.min(limit));
        self.pause = (self.pause * 2).min(Duration::from_millis(20));
    }
}

#[cfg(target_os = "linux")]
fn pidfd_open(child: &Child) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
    // SAFETY: a non-negative result is a fresh fd that nothing else owns.
    (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as i32) })
}

/// The CPU time process `pid` has used: user and system time of all its
/// threads and of the children it reaped (`/proc/PID/stat`). Readable
/// until the process is reaped. `None` elsewhere than on Linux.
fn cpu_time(pid: u32) -> Option<Duration> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command's name, in parentheses, may hold spaces: fields are
    // counted after its closing one, from the state (field 3).
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime, stime, cutime and cstime: fields 14 to 17.
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .map(|field| field.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    // SAFETY: sysconf only reads a system constant.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

fn process_status(status: ExitStatus) -> ProcessStatus {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => ProcessStatus::Success,
        (Some(code), _) => ProcessStatus::Failure(code),
        (None, Some(signal)) => ProcessStatus::Signalled(signal),
        (None, None) => ProcessStatus::Failure(-1),
    }
}

/// True once the child has exited, without reaping it.
fn has_exited(child: &Child) -> Result<bool> {
    // SAFETY: waitid writes only into `info`, which lives on this stack.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            child.id(),
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error()).context("waitid");
    }
    // SAFETY: si_pid is valid for SIGCHLD-style infos, zero when none is ready.
    Ok(unsafe { info.si_pid() } != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test that allocates without end is what the out-of-memory killer
    /// takes first, not mutiny (whose own score is untouched).
    #[cfg(target_os = "linux")]
    #[test]
    fn commands_are_the_out_of_memory_killers_first_choice() {
        let (ended, log, _) = sh("cat /proc/self/oom_score_adj", None);
        assert_eq!(ended, Ended::Status(ProcessStatus::Success), "{log}");
        assert!(log.contains("\n1000\n"), "{log}");
        let ours = std::fs::read_to_string("/proc/self/oom_score_adj").unwrap();
        assert_ne!(ours.trim(), "1000");
    }

    #[test]
    fn the_copy_keeps_the_head_and_the_tail_and_counts_what_it_dropped() {
        let text: Vec<u8> = (0..100u8).collect();
        let mut log = Vec::new();
        copy_head_and_tail(&text[..], &mut log, 10, 5).unwrap();
        let expected = [
            &text[..10],
            b"\n*** mutiny: 85 bytes of output dropped here, to keep the log small ***\n",
            &text[95..],
        ]
        .concat();
        assert_eq!(log, expected);
        let mut short = Vec::new();
        copy_head_and_tail(&text[..12], &mut short, 10, 5).unwrap();
        assert_eq!(short, &text[..12], "nothing dropped, nothing said");
    }

    /// A test that prints without end (a mutant can make one) fills its
    /// log only up to the cap; the command still times out as it would.
    #[test]
    fn a_command_that_prints_without_end_fills_its_log_only_up_to_the_cap() {
        let (ended, log, _) = sh("yes 'mutiny fills the log'", Some(Duration::from_secs(3)));
        assert_eq!(ended, Ended::Status(ProcessStatus::Timeout));
        assert!(
            log.len() <= LOG_HEAD + LOG_TAIL + 4096,
            "{} bytes",
            log.len()
        );
        assert!(
            log.contains("bytes of output dropped here"),
            "{}",
            &log[log.len() - 300..]
        );
        assert!(
            log.ends_with("\n*** result: Timeout\n"),
            "{}",
            &log[log.len() - 300..]
        );
    }

    /// What `run` gave, the log, and how long it took.
    struct Ran {
        ended: Result<Ended>,
        log: String,
        elapsed: Duration,
    }

    fn run_in(dir: &Path, argv: &[&str], timeout: Option<Duration>) -> Ran {
        let log_path = dir.join("x.log");
        let mut log = File::options()
            .create(true)
            .append(true)
            .open(&log_path)
            .unwrap();
        let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
        let start = Instant::now();
        let env = [("GREETING".to_owned(), "hi".to_owned())];
        let spec = Spec {
            argv: &argv,
            env: &env,
            cwd: dir,
            timeout,
            cpu_timeout: None,
            niceness: 0,
        };
        let ended = run(&spec, &mut log, None, &Cancel::default());
        Ran {
            ended,
            log: std::fs::read_to_string(&log_path).unwrap(),
            elapsed: start.elapsed(),
        }
    }

    fn sh(script: &str, timeout: Option<Duration>) -> (Ended, String, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let ran = run_in(dir.path(), &["sh", "-c", script], timeout);
        (ran.ended.unwrap(), ran.log, ran.elapsed)
    }

    /// Whether `pid` is a live process (a zombie is not: it is dead and
    /// waits only for its parent, or init, to reap it).
    fn alive(pid: i32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }

    /// Waits for the process whose pid the command wrote to `pid_file` to
    /// be gone; panics if it still lives after a few seconds.
    #[track_caller]
    fn assert_dies(pid_file: &Path, what: &str) {
        let text = std::fs::read_to_string(pid_file)
            .unwrap_or_else(|err| panic!("{what} never wrote its pid: {err}"));
        let pid: i32 = text.trim().parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive(pid) {
            if Instant::now() >= deadline {
                // SAFETY: a plain syscall on a process this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                panic!("{what} (pid {pid}) outlived its command");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn output_and_status_go_to_the_log() {
        let (ended, log, _) = sh("echo $GREETING; echo oops >&2; exit 3", None);
        assert_eq!(ended, Ended::Status(ProcessStatus::Failure(3)));
        assert!(log.contains("*** sh -c"), "{log}");
        assert!(log.contains("hi\noops\n"), "{log}");
        assert!(log.contains("*** result: Failure(3)"), "{log}");
    }

    #[test]
    fn timeout_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let script = format!("sleep 30 & echo $! > {}; sleep 30", pid_file.display());
        let (ended, _, elapsed) = sh(&script, Some(Duration::from_millis(500)));
        assert_eq!(ended, Ended::Status(ProcessStatus::Timeout));
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        assert_dies(&pid_file, "a grandchild");
    }

    /// A loop that never ends burns CPU time: the CPU limit ends it long
    /// before the wall-clock timeout would.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_command_that_spins_past_its_cpu_limit_times_out() {
        let ran = run_limited("while :; do :; done", Duration::from_millis(300));
        assert_eq!(ran.ended, Ended::Status(ProcessStatus::Timeout), "{ran:?}");
        assert!(ran.elapsed < Duration::from_secs(20), "{ran:?}");
        assert!(
            ran.cpu.is_some_and(|cpu| cpu >= Duration::from_millis(300)),
            "{ran:?}"
        );
    }

    /// Waiting uses no CPU time: a command that sleeps (as a test starved
    /// by a loaded machine waits) is not timed out by the CPU limit.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_command_that_waits_past_its_cpu_limit_is_not_timed_out() {
        let ran = run_limited("sleep 1; echo woke", Duration::from_millis(100));
        assert_eq!(ran.ended, Ended::Status(ProcessStatus::Success), "{ran:?}");
        assert!(ran.log.contains("woke"), "{ran:?}");
        assert!(ran.elapsed >= Duration::from_secs(1), "{ran:?}");
    }

    /// The CPU time of a command that exited is measured (a traced baseline
    /// sets each binary's CPU limit from it), its reaped children included.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_cpu_time_of_a_command_is_measured_with_its_reaped_children() {
        // The loop runs in a subshell: a child, which the shell reaps.
        let script = "(end=$(($(date +%s) + 1)); while [ $(date +%s) -le $end ]; do :; done); true";
        let ran = run_limited(script, Duration::from_secs(60));
        assert_eq!(ran.ended, Ended::Status(ProcessStatus::Success), "{ran:?}");
        assert!(
            ran.cpu.is_some_and(|cpu| cpu >= Duration::from_millis(500)),
            "{ran:?}"
        );
    }

    #[derive(Debug)]
    struct Limited {
        ended: Ended,
        cpu: Option<Duration>,
        elapsed: Duration,
        log: String,
    }

    /// Runs `script` with a 60 s timeout and the CPU limit `cpu`.
    fn run_limited(script: &str, cpu: Duration) -> Limited {
        let dir = tempfile::tempdir().unwrap();
        let log_path = dir.path().join("x.log");
        let mut log = create_log(&log_path).unwrap();
        let argv = ["sh".to_owned(), "-c".to_owned(), script.to_owned()];
        let spec = Spec {
            argv: &argv,
            env: &[],
            cwd: dir.path(),
            timeout: Some(Duration::from_secs(60)),
            cpu_timeout: Some(cpu),
            niceness: 0,
        };
        let start = Instant::now();
        let measured = run_measured(&spec, &mut log, None, &Cancel::default()).unwrap();
        Limited {
            ended: measured.ended,
            cpu: measured.cpu,
            elapsed: start.elapsed(),
            log: std::fs::read_to_string(&log_path).unwrap(),
        }
    }

    #[test]
    fn stray_background_processes_are_killed_when_the_command_exits() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("stray.pid");
        let script = format!("sleep 30 & echo $! > {}; exit 0", pid_file.display());
        let (ended, _, _) = sh(&script, None);
        assert_eq!(ended, Ended::Status(ProcessStatus::Success));
        assert_dies(&pid_file, "a background process");
    }

    #[test]
    fn timeout_gives_the_command_a_grace_to_stop_what_it_started_elsewhere() {
        // As nextest does with its tests: a child in a session (and so a
        // process group) of its own, which only the command can stop.
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("own-session.pid");
        let script = format!(
            "setsid sleep 30 & pid=$!; echo $pid > {}; \
             trap 'kill $pid; exit 1' TERM; \
             while :; do sleep 0.05; done",
            pid_file.display()
        );
        let (ended, _, _) = sh(&script, Some(Duration::from_millis(500)));
        assert_eq!(ended, Ended::Status(ProcessStatus::Timeout));
        assert_dies(&pid_file, "a process in its own session");
    }

    #[test]
    fn a_command_that_ignores_sigterm_is_killed_after_the_grace() {
        let (ended, _, elapsed) = sh("trap '' TERM; sleep 30", Some(Duration::from_millis(200)));
        assert_eq!(ended, Ended::Status(ProcessStatus::Timeout));
        let waited = elapsed - Duration::from_millis(200);
        assert!(waited >= TERMINATION_GRACE, "{elapsed:?}");
        assert!(waited < TERMINATION_GRACE * 3, "{elapsed:?}");
    }

    #[test]
    fn when_mutiny_dies_the_watchdog_terminates_the_group() {
        // mutiny's death, however it dies, closes its end of the watchdog's
        // stdin; closing it here is the same event.
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let mut command = Command::new("sh");
        let script = format!("sleep 30 & echo $! > {}; sleep 30", pid_file.display());
        command.args(["-c", &script]);
        let mut group = Group::start(command, "sh").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pid_file.exists() {
            assert!(Instant::now() < deadline, "the command never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(group.watchdog.stdin.take());
        while !has_exited(&group.command).unwrap() {
            assert!(Instant::now() < deadline, "the command outlived mutiny");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_dies(&pid_file, "a grandchild");
        let status = process_status(group.finish().unwrap());
        assert_eq!(status, ProcessStatus::Signalled(libc::SIGTERM));
    }

    #[test]
    fn cancelling_kills_a_running_command() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = File::create(dir.path().join("x.log")).unwrap();
        let cancel = Cancel::default();
        let trigger = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            trigger.cancel();
        });
        let argv = ["sleep".to_owned(), "30".to_owned()];
        let start = Instant::now();
        let spec = Spec {
            argv: &argv,
            env: &[],
            cwd: dir.path(),
            timeout: None,
            cpu_timeout: None,
            niceness: 0,
        };
        let ended = run(&spec, &mut log, None, &cancel).unwrap();
        assert_eq!(ended, Ended::Cancelled);
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_command_killed_by_a_signal_is_signalled() {
        let (ended, log, _) = sh("kill -SEGV $$", None);
        assert_eq!(
            ended,
            Ended::Status(ProcessStatus::Signalled(libc::SIGSEGV))
        );
        assert!(log.contains("*** result: Signalled(11)"), "{log}");
    }

    #[test]
    fn a_command_that_does_not_exist_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let ran = run_in(dir.path(), &["mutiny-no-such-command", "--flag"], None);
        let err = ran.ended.expect_err("a missing command has no status");
        assert_eq!(
            format!("{err:#}"),
            "cannot run mutiny-no-such-command: command not found"
        );
    }

    #[test]
    fn commands_start_with_default_sigint_and_sigquit_even_when_mutiny_ignores_them() {
        // mutiny started by a script with `mutiny run &` ignores SIGINT and
        // SIGQUIT; its commands must not inherit that. This changes the test
        // process's own dispositions for a moment: its other tests ignore no
        // signal's delivery, nobody sends these.
        // SAFETY: plain syscalls on this process; restored below.
        let previous = unsafe {
            [libc::SIGINT, libc::SIGQUIT]
                .map(|signal| (signal, libc::signal(signal, libc::SIG_IGN)))
        };
        let dir = tempfile::tempdir().unwrap();
        let ran = run_in(dir.path(), &["cat", "/proc/self/status"], None);
        for (signal, handler) in previous {
            // SAFETY: as above, putting back what was there.
            unsafe { libc::signal(signal, handler) };
        }
        assert_eq!(ran.ended.unwrap(), Ended::Status(ProcessStatus::Success));
        let ignored = ran
            .log
            .lines()
            .find_map(|line| line.strip_prefix("SigIgn:"))
            .unwrap_or_else(|| panic!("no SigIgn in {}", ran.log));
        let ignored = u64::from_str_radix(ignored.trim(), 16).unwrap();
        for signal in [libc::SIGINT, libc::SIGQUIT] {
            assert_eq!(ignored & (1 << (signal - 1)), 0, "signal {signal} ignored");
        }
    }

    #[test]
    fn commands_run_the_given_steps_below_mutinys_priority() {
        let dir = tempfile::tempdir().unwrap();
        let log_path = dir.path().join("x.log");
        let mut log = File::create(&log_path).unwrap();
        let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        // `nice` without arguments prints the niceness it runs at.
        let argv = ["nice".to_owned()];
        let spec = Spec {
            argv: &argv,
            env: &[],
            cwd: dir.path(),
            timeout: None,
            cpu_timeout: None,
            niceness: 7,
        };
        let ended = run(&spec, &mut log, None, &Cancel::default()).unwrap();
        assert_eq!(ended, Ended::Status(ProcessStatus::Success));
        let text = std::fs::read_to_string(&log_path).unwrap();
        let printed: i32 = text
            .lines()
            .find_map(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("no niceness in {text:?}"));
        assert_eq!(printed, (own + 7).min(19));
    }
}
