//! Generation speed on a large real source tree, against cargo-mutants.
//!
//! `cargo bench -p mutiny --bench generate` measures mutants generated per
//! second and source lines per second (criterion), then lists the same crate
//! with `mutiny`'s engine and with `cargo mutants --list` a few times each and
//! prints both times and their ratio. The tree is `MUTINY_BENCH_CRATE` (a
//! crate directory with a Cargo.toml), by default `syn` 2 from cargo's
//! registry, which a build of mutiny has already downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use mutiny::filter::MutantFilter;
use mutiny::mutate::{self, Edition, GenerateOptions, SourceFile};
use mutiny::sources;
use mutiny::workspace::{PackageSelection, Workspace};

fn bench_crate() -> PathBuf {
    if let Ok(dir) = std::env::var("MUTINY_BENCH_CRATE") {
        return PathBuf::from(dir);
    }
    let cargo_home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .expect("cargo registry sources exist")
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("syn-2."))
        })
        .collect();
    candidates.sort();
    candidates
        .pop()
        .expect("syn 2 is in the registry; or set MUTINY_BENCH_CRATE")
}

/// A scratch copy, so cargo writes no lock file into the registry.
fn copy_crate(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(status.success());
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let scratch = tempfile::tempdir().unwrap();
    let crate_dir = scratch.path().join("crate");
    copy_crate(&bench_crate(), &crate_dir);

    let mut paths = Vec::new();
    rust_files(&crate_dir.join("src"), &mut paths);
    let files: Vec<Arc<SourceFile>> = paths
        .iter()
        .map(|path| {
            Arc::new(SourceFile {
                package: "bench".to_owned(),
                path: path
                    .strip_prefix(&crate_dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                code: std::fs::read_to_string(path).unwrap().into(),
                edition: Edition::E2021,
            })
        })
        .collect();
    let lines: usize = files.iter().map(|f| f.code.lines().count()).sum();
    let options = GenerateOptions::default();
    let mutants: usize = files
        .iter()
        .map(|f| mutate::generate(f, &options).mutants.len())
        .sum();
    println!(
        "tree: {} ({} files, {lines} lines, {mutants} mutants)",
        crate_dir.display(),
        files.len()
    );

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("generate");
    group.throughput(Throughput::Elements(lines as u64));
    group.bench_function("lines", |b| {
        b.iter(|| {
            for file in &files {
                std::hint::black_box(mutate::generate(file, &options));
            }
        })
    });
    group.throughput(Throughput::Elements(mutants as u64));
    group.bench_function("mutants", |b| {
        b.iter(|| {
            for file in &files {
                std::hint::black_box(mutate::generate(file, &options));
            }
        })
    });
    group.finish();

    compare_with_cargo_mutants(&crate_dir);
}

/// Lists the whole crate as `mutiny list` does (cargo metadata, module walk,
/// generation, text output) and as `cargo mutants --list` does.
fn compare_with_cargo_mutants(crate_dir: &Path) {
    const RUNS: usize = 5;
    let mutiny_times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let workspace = Workspace::open(crate_dir).unwrap();
            let packages = workspace
                .select(&PackageSelection::Default, crate_dir)
                .unwrap();
            let found = sources::discover(
                &workspace,
                &packages,
                &GenerateOptions::default(),
                &MutantFilter::default(),
            )
            .unwrap();
            std::hint::black_box(mutiny::list::to_text(&found.mutants, false));
            start.elapsed()
        })
        .collect();
    let mutiny = median(mutiny_times);
    println!(
        "list: mutiny {:.3}s (median of {RUNS})",
        mutiny.as_secs_f64()
    );
    let cargo_mutants_times: Option<Vec<Duration>> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let output = Command::new("cargo")
                .args(["mutants", "--list", "-d"])
                .arg(crate_dir)
                .output()
                .ok()?;
            output.status.success().then(|| start.elapsed())
        })
        .collect();
    match cargo_mutants_times {
        Some(times) => {
            let theirs = median(times);
            println!(
                "list: cargo-mutants {:.3}s (median of {RUNS}); cargo-mutants / mutiny = {:.2}x",
                theirs.as_secs_f64(),
                theirs.as_secs_f64() / mutiny.as_secs_f64()
            );
        }
        None => println!(
            "list: cargo-mutants not run (install it: cargo install --locked cargo-mutants)"
        ),
    }
}
