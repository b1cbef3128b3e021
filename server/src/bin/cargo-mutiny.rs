//! `cargo mutiny …`, as Rust users run cargo tools: cargo finds this
//! program on the PATH and runs it as `cargo-mutiny mutiny …`; it runs the
//! `mutiny` installed beside it with the rest of the arguments.

use std::ffi::OsString;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // Run by cargo, the first argument is the subcommand's own name; run
    // directly, it may be absent.
    if args.first().is_some_and(|a| a == "mutiny") {
        args.remove(0);
    }
    let mutiny = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name(format!("mutiny{}", std::env::consts::EXE_SUFFIX)),
        Err(err) => {
            eprintln!("error: cannot tell where cargo-mutiny is, to find mutiny beside it: {err}");
            return ExitCode::from(1);
        }
    };
    let mut command = Command::new(&mutiny);
    command.args(&args);
    // Replace this process, so that mutiny gets the terminal's signals and
    // the language server's stdin and stdout directly.
    #[cfg(unix)]
    let err = std::os::unix::process::CommandExt::exec(&mut command);
    #[cfg(not(unix))]
    let err = match command.status() {
        Ok(status) => return ExitCode::from(status.code().unwrap_or(1) as u8),
        Err(err) => err,
    };
    eprintln!(
        "error: cannot run {} (cargo-mutiny runs the mutiny installed beside it): {err}",
        mutiny.display()
    );
    ExitCode::from(1)
}
