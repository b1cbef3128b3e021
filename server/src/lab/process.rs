//! Running one command of a scenario: in its own process group, output
//! appended to the scenario's log, killed with its whole group on timeout or
//! cancellation. The interface to `libc` is here.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::Cancel;
use crate::outcome::ProcessStatus;

/// How a command ended, from the lab's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Status(ProcessStatus),
    /// The run was cancelled and the command killed; it has no verdict.
    Cancelled,
}

/// Runs `argv` in `cwd` with `env` added, appending the command line and its
/// output to `log`, `niceness` steps below mutiny's scheduling priority. No
/// process of its group survives the return.
pub fn run(
    argv: &[String],
    env: &[(String, String)],
    cwd: &Path,
    log: &mut File,
    timeout: Option<Duration>,
    niceness: i32,
    cancel: &Cancel,
) -> Result<Ended> {
    writeln!(log, "\n*** {}", argv.join(" "))?;
    log.flush()?;
    let mut command = supervised(argv);
    command
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?);
    isolate(&mut command, niceness);
    let start = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run {}", argv[0]))?;
    let ended = wait(&mut child, start, timeout, cancel)?;
    let result = match ended {
        Ended::Status(status) => format!("{status:?}"),
        Ended::Cancelled => "cancelled".to_owned(),
    };
    writeln!(log, "\n*** result: {result}")?;
    Ok(ended)
}

/// How often a waiting job looks at the cancel flag.
const CANCEL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

fn wait(
    child: &mut Child,
    start: Instant,
    timeout: Option<Duration>,
    cancel: &Cancel,
) -> Result<Ended> {
    let mut watch = ExitWatch::new(child);
    loop {
        if has_exited(child)? {
            // Reap only after killing the group: while the leader is a
            // zombie, its group id cannot be reused by another process.
            kill_group(child);
            let status = child.wait()?;
            return Ok(Ended::Status(process_status(status)));
        }
        let left = timeout.map(|t| t.saturating_sub(start.elapsed()));
        let timed_out = left == Some(Duration::ZERO);
        if timed_out || cancel.is_cancelled() {
            kill_group(child);
            child.wait()?;
            return Ok(if timed_out {
                Ended::Status(ProcessStatus::Timeout)
            } else {
                Ended::Cancelled
            });
        }
        watch.pause(left.map_or(CANCEL_CHECK_INTERVAL, |l| l.min(CANCEL_CHECK_INTERVAL)));
    }
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

#[cfg(unix)]
fn process_status(status: std::process::ExitStatus) -> ProcessStatus {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => ProcessStatus::Success,
        (Some(code), _) => ProcessStatus::Failure(code),
        (None, Some(signal)) => ProcessStatus::Signalled(signal),
        (None, None) => ProcessStatus::Failure(-1),
    }
}

/// The command wrapped in a small shell that leads its process group. If
/// mutiny dies, even by SIGKILL, the kernel sends the shell SIGTERM (see
/// `isolate`) and the shell kills the whole group: cargo's own children, such
/// as a test binary stuck in a loop, never outlive mutiny.
#[cfg(unix)]
fn supervised(argv: &[String]) -> Command {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(r#"trap 'kill -KILL 0' TERM; "$@" & wait $!"#)
        .arg("mutiny-supervisor")
        .args(argv);
    command
}

/// Puts the command in a new process group at a lower priority, and on
/// Linux asks the kernel to signal it when the thread that started it (and
/// so mutiny) dies.
#[cfg(unix)]
fn isolate(command: &mut Command, niceness: i32) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    // SAFETY: nice and prctl are plain system calls that touch only this
    // (forked) process; a failed nice leaves the priority as it was.
    unsafe {
        command.pre_exec(move || {
            if niceness > 0 {
                libc::nice(niceness);
            }
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

/// True once the child has exited, without reaping it.
#[cfg(unix)]
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

#[cfg(unix)]
fn kill_group(child: &Child) {
    // SAFETY: plain syscall; the group is the child's own (it is not reaped
    // yet, so the id is not reused). ESRCH just means it is empty already.
    unsafe {
        libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Option<Duration>) -> (Ended, String, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let log_path = dir.path().join("x.log");
        let mut log = File::options()
            .create(true)
            .append(true)
            .open(&log_path)
            .unwrap();
        let argv = ["sh".to_owned(), "-c".to_owned(), script.to_owned()];
        let start = Instant::now();
        let ended = run(
            &argv,
            &[("GREETING".into(), "hi".into())],
            dir.path(),
            &mut log,
            timeout,
            0,
            &Cancel::default(),
        )
        .unwrap();
        (
            ended,
            std::fs::read_to_string(&log_path).unwrap(),
            start.elapsed(),
        )
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
        let marker = dir.path().join("grandchild-alive");
        // A grandchild that would write the marker after the timeout.
        let script = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let (ended, _, elapsed) = sh(&script, Some(Duration::from_millis(300)));
        assert_eq!(ended, Ended::Status(ProcessStatus::Timeout));
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild outlived the timeout");
    }

    #[test]
    fn stray_background_processes_are_killed_when_the_command_exits() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("stray-alive");
        let script = format!("(sleep 1; touch {}) & exit 0", marker.display());
        let (ended, _, _) = sh(&script, None);
        assert_eq!(ended, Ended::Status(ProcessStatus::Success));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !marker.exists(),
            "a background process outlived its command"
        );
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
        let ended = run(&argv, &[], dir.path(), &mut log, None, 0, &cancel).unwrap();
        assert_eq!(ended, Ended::Cancelled);
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn commands_run_the_given_steps_below_mutinys_priority() {
        let dir = tempfile::tempdir().unwrap();
        let log_path = dir.path().join("x.log");
        let mut log = File::create(&log_path).unwrap();
        let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        // `nice` without arguments prints the niceness it runs at.
        let argv = ["nice".to_owned()];
        let ended = run(
            &argv,
            &[],
            dir.path(),
            &mut log,
            None,
            7,
            &Cancel::default(),
        )
        .unwrap();
        assert_eq!(ended, Ended::Status(ProcessStatus::Success));
        let text = std::fs::read_to_string(&log_path).unwrap();
        let printed: i32 = text
            .lines()
            .find_map(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("no niceness in {text:?}"));
        assert_eq!(printed, (own + 7).min(19));
    }
}
