//! The language server through many save/edit cycles, short: the soak
//! script `bench/lsp_soak.py` (issue 14) run on the debug binary for 60
//! cycles instead of 500. The script drives a real `mutiny lsp` over stdio
//! and judges it; this test holds CI to its verdicts.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Every criterion the script judges; each must be in its figures, passed.
const CHECKS: [&str; 10] = [
    "survival",
    "exit",
    "TMPDIR empty",
    "processes after exit",
    "latency",
    "memory",
    "fds",
    "threads",
    "scratch",
    "idle processes",
];

/// The p99 latency bound here, looser than the goal. The goal, and the
/// script's default, is 20 ms. On the 2-core development machine this
/// test (debug build, 60 cycles) measured a worst p99 of 14.8 ms with the
/// machine otherwise idle (load average below 1), but 29 to 40 ms when
/// another engineer's `cargo test` loaded both cores (load average 3 to
/// 4.7; longer debug soaks then: up to 62 ms per 50 cycles, maxima to
/// 372 ms), threads waiting for a core. CI runs beside other work on 2
/// cores, so 20 ms here would fail on the machine, not on mutiny. This bound still catches a request that
/// waits for the engine (a run takes seconds), which the architecture
/// rules out.
const P99_LIMIT_MS: &str = "100";

#[test]
fn the_language_server_keeps_its_memory_files_threads_and_latency_over_60_saves() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let figures = tempfile::NamedTempFile::new().unwrap();
    let output = Command::new("python3")
        .arg(repo.join("bench/lsp_soak.py"))
        .args(["--mutiny", env!("CARGO_BIN_EXE_mutiny")])
        .args([
            "--cycles",
            "60",
            "--sample-every",
            "10",
            "--reference",
            "20",
        ])
        .args(["--p99-limit", P99_LIMIT_MS])
        .arg("--json")
        .arg(figures.path())
        .output()
        .expect("python3 runs bench/lsp_soak.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The figures, for `cargo test -- --nocapture` and for a failure.
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the soak failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let figures: Value =
        serde_json::from_str(&std::fs::read_to_string(figures.path()).unwrap()).unwrap();
    let checks = figures["checks"].as_array().unwrap();
    for name in CHECKS {
        let check = checks
            .iter()
            .find(|c| c["name"] == *name)
            .unwrap_or_else(|| panic!("the soak did not judge {name}:\n{stdout}"));
        assert_eq!(check["passed"], true, "{check}");
    }
    let samples = figures["samples"].as_object().unwrap();
    let mut cycles: Vec<u32> = samples.keys().map(|c| c.parse().unwrap()).collect();
    cycles.sort();
    assert_eq!(cycles, [1, 10, 20, 30, 40, 50, 60], "{stdout}");
}
