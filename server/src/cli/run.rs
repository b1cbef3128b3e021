//! `mutiny run`: the lab on the command line, with cargo-mutants' flags,
//! outputs and exit codes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;

use mutiny::config::Config;
use mutiny::console::Console;
use mutiny::exit_code;
use mutiny::lab::killers::{self, Killers};
use mutiny::lab::{BaselineMode, Cancel, Event, Lab, LabOptions};
use mutiny::mutate::Mutant;
use mutiny::options::{self, LabArgs};
use mutiny::outcome::{Counts, Phase, ScenarioOutcome, Verdict};
use mutiny::output::OutputDir;

use super::analysis::start_analysis;
use super::own::{self, add_own_stubs};
use crate::{narrow, select_mutants, write_stdout, NarrowArgs, SelectArgs};
use mutiny::semantic::{cfg_places, Purpose};

/// Exit code after Ctrl-C (128 + SIGINT), as shells report it.
const INTERRUPTED: i32 = 130;

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    select: SelectArgs,
    /// Parallel jobs, each with its own scratch tree and target dir
    /// [default: half the CPUs, at least 1].
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Write mutants.out/ in this directory [default: the workspace root].
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: Option<PathBuf>,
    /// Print the results as JSON on stdout (messages go to stderr).
    #[arg(long)]
    json: bool,
    /// Test timeout in seconds [default: 5 × the baseline test time, at least 20].
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Test timeout as a multiple of the baseline test time [default: 5].
    #[arg(long, value_name = "X")]
    timeout_multiplier: Option<f64>,
    /// The least automatic test timeout, in seconds [default: 20].
    #[arg(long, value_name = "SECS")]
    minimum_test_timeout: Option<f64>,
    /// Build timeout in seconds [default: none].
    #[arg(long, value_name = "SECS")]
    build_timeout: Option<f64>,
    /// Build timeout as a multiple of the baseline build time [default: none].
    #[arg(long, value_name = "X", conflicts_with = "build_timeout")]
    build_timeout_multiplier: Option<f64>,
    /// Copy `.git` and other VCS directories into the scratch copies.
    #[arg(long, value_name = "BOOL")]
    copy_vcs: Option<bool>,
    /// Copy the workspace's top-level `target/` into the scratch copies.
    #[arg(long, value_name = "BOOL")]
    copy_target: Option<bool>,
    /// Leave out files that `.gitignore` ignores from the scratch copies [default: true].
    #[arg(long, value_name = "BOOL")]
    gitignore: Option<bool>,
    /// Test the unmutated tree first (`run`), or trust that it passes (`skip`).
    #[arg(long, value_name = "run|skip", default_value = "run")]
    baseline: String,
    /// What runs the tests: cargo (`cargo test`) or nextest (`cargo nextest run`).
    #[arg(long, value_name = "TOOL")]
    test_tool: Option<String>,
    /// Run every package's tests for each mutant, not just its own package's.
    #[arg(long)]
    test_workspace: bool,
    /// Run these packages' tests for each mutant (repeatable).
    #[arg(long, value_name = "PKG", conflicts_with = "test_workspace")]
    test_package: Vec<String>,
    #[command(flatten)]
    narrow: NarrowArgs,
    /// Pass this argument to every cargo command (repeatable).
    #[arg(long = "cargo-arg", value_name = "ARG", allow_hyphen_values = true)]
    cargo_args: Vec<String>,
    /// Pass this argument to the test command only, e.g. `--cargo-test-arg=--lib` (repeatable).
    #[arg(
        long = "cargo-test-arg",
        value_name = "ARG",
        allow_hyphen_values = true
    )]
    cargo_test_args: Vec<String>,
    /// Cargo features to enable (repeatable, or comma-separated).
    #[arg(long, value_name = "FEATURES")]
    features: Vec<String>,
    #[arg(long)]
    all_features: bool,
    #[arg(long)]
    no_default_features: bool,
    /// Build with this cargo profile.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Build with --cap-lints=warn, so denied lints cannot make a mutant unviable.
    #[arg(long)]
    cap_lints: bool,
    /// Build every mutant, even those rust-analyzer shows cannot compile
    /// or that are in code not compiled for this target (cargo-mutants'
    /// behaviour).
    #[arg(long)]
    no_analysis: bool,
    /// Test mutants in code under cfgs that are off for this target and
    /// features too, as cargo-mutants does (they can only be missed).
    #[arg(long)]
    cfg_all: bool,
    /// Leave out mutiny's own stubs (values of the resolved return type
    /// that cargo-mutants does not make: `Ordering::Less`, `Err(E::V)`…),
    /// for a side-by-side comparison with cargo-mutants. `--no-analysis`
    /// leaves them out too.
    #[arg(long)]
    no_own_stubs: bool,
    /// Keep in the test builds the dev-dependencies that only benchmarks
    /// name (by default the scratch copies leave them out, and with them
    /// often most of a cold build).
    #[arg(long)]
    keep_dev_dependencies: bool,
    /// How mutants are built: `compile-once` (many mutants in one build,
    /// each switched on at run time; the rest built alone) or `classic`
    /// (each built alone, as cargo-mutants does) [default: compile-once].
    #[arg(long, value_name = "compile-once|classic")]
    strategy: Option<String>,
}

pub fn run_command(args: &RunArgs) -> Result<i32> {
    let selected = select_mutants(&args.select)?;
    let config = &selected.config;
    let workspace = &selected.workspace;
    // Check every option before touching an earlier run's output.
    let mut options = lab_options(args, config)?;
    options.leave_out_dev_dependencies = !args.keep_dev_dependencies;
    let own_stubs = !args.no_analysis && !args.no_own_stubs && config.own_stubs != Some(false);
    // The list narrowed before the own stubs join it: a bad `--in-diff`
    // fails here, before any copy, and an empty one builds nothing ahead.
    let ahead = narrow(selected.mutants.clone(), &args.narrow, config)?.mutants;
    let cancel = Cancel::default();
    let handler_cancel = cancel.clone();
    // Only one handler per process; a second `set_handler` fails, which is
    // harmless here (the CLI sets it once).
    let _ = ctrlc::set_handler(move || handler_cancel.cancel());

    let swept = mutiny::lab::scratch::sweep_abandoned();
    let cargo_options = options.cargo.clone();
    let mut lab = Lab::new(workspace, options)?;
    let left_out = lab.left_out().clone();
    let head_start = own_stubs && !ahead.is_empty() && own::loads_model(&selected.mutants);
    let mutated: std::collections::BTreeSet<String> = ahead
        .iter()
        .map(|m| m.source_file.package.clone())
        .collect();
    let own = std::thread::scope(|scope| {
        // While rust-analyzer looks for own stubs (one core, mostly), the
        // lab's copy builds the unmutated tests: the run's first build
        // then finds the dependencies built.
        let warming = head_start.then(|| scope.spawn(|| lab.head_start(&mutated, &cancel)));
        let added = match own_stubs {
            true => add_own_stubs(
                workspace,
                (&cargo_options, Some(&left_out)),
                selected.mutants,
            ),
            false => own::OwnStubs {
                mutants: selected.mutants,
                note: None,
                preloaded: None,
            },
        };
        if let Some(warming) = warming {
            // Only a head start: the run's own build reports any failure.
            let _ = warming.join();
        }
        added
    });
    let own::OwnStubs {
        mutants: generated,
        note: own_note,
        preloaded,
    } = own;
    let narrowed = narrow(generated, &args.narrow, config)?;
    let mutants: Vec<Arc<Mutant>> = narrowed.mutants.into_iter().map(Arc::new).collect();
    let mut console = Console::new(mutants.len(), args.json);
    if let Some(note) = left_out.note() {
        console.line(&note);
    }
    if let Some(note) = own_note {
        console.line(&note);
    }
    let output_parent = args
        .output
        .clone()
        .or_else(|| config.output.as_ref().map(|o| workspace.root.join(o)))
        .unwrap_or_else(|| workspace.root.clone());
    std::fs::create_dir_all(&output_parent)
        .with_context(|| format!("cannot create {}", output_parent.display()))?;
    // The tests that caught each function's mutants last time run first.
    let earlier_killers = Killers::read(
        &output_parent
            .join(mutiny::output::OUTPUT_DIR_NAME)
            .join(killers::FILE_NAME),
    );
    let mut output = OutputDir::create(&output_parent, &workspace.root)?;
    output.write_mutants(&mutants)?;
    if let Some(record) = &narrowed.shard {
        output.write_shard(record)?;
    }
    lab.set_log_dir(output.log_dir())?;
    if mutants.is_empty() {
        output.finish()?;
        console.line("no mutants to test");
        return finish(args, &console, &[], &Counts::default(), exit_code::SUCCESS);
    }
    console.line(&format!("found {} mutants to test", mutants.len()));
    if !swept.is_empty() {
        console.line(&format!(
            "removed {} scratch directories left by mutiny processes that were killed",
            swept.len()
        ));
    }
    lab.killers().learn(earlier_killers);
    // Declared after the lab, so dropped (joined) before it.
    let (analysis, analysed) = match args.no_analysis {
        true => (None, None),
        false => {
            let places = match args.cfg_all {
                true => Vec::new(),
                false => cfg_places(&mutants, &selected.declarations),
            };
            start_analysis(&mut lab, &mutants, places, (Purpose::Run, preloaded)).unzip()
        }
    };
    let mut write_error: Option<anyhow::Error> = None;
    let mut outcomes: Vec<ScenarioOutcome> = Vec::new();
    let mut on_event = |event: &Event| {
        console.event(event);
        let finished = match event {
            Event::BaselineFinished(o) | Event::MutantFinished(o) => o,
            _ => return,
        };
        if let Err(err) = output.add(finished) {
            write_error.get_or_insert(err);
            cancel.cancel();
        }
        if finished.verdict().is_some() {
            outcomes.push(finished.clone());
        }
    };

    if let Some(failed) = lab.run(&mutants, analysed, &cancel, &mut on_event)? {
        output.finish()?;
        console.finish();
        report_baseline_failure(&failed);
        let code = exit_code::BASELINE_FAILED;
        return finish(args, &console, &[], &Counts::default(), code);
    }
    output.finish()?;
    console.finish();
    // Only an ordering for the next run: losing it costs time, not results.
    let _ = lab.killers().write(&output.path().join(killers::FILE_NAME));
    drop(analysis);
    drop(lab);
    if let Some(err) = write_error {
        return Err(err.context("cannot write mutants.out"));
    }
    let mut counts = Counts::default();
    for verdict in outcomes.iter().filter_map(ScenarioOutcome::verdict) {
        counts.add(verdict);
    }
    if cancel.is_cancelled() {
        eprintln!(
            "interrupted: {} of {} mutants tested; partial results in {}",
            counts.total_mutants,
            mutants.len(),
            output.path().display()
        );
        console.line(&html_report_line(output.path()));
        return finish(args, &console, &outcomes, &counts, INTERRUPTED);
    }
    console.line(&counts.summary_line());
    console.line(&html_report_line(output.path()));
    finish(args, &console, &outcomes, &counts, counts.exit_code())
}

/// `mutiny: HTML report: mutants.out/mutation-report.html`, the path
/// relative to the current directory when it is under it.
fn html_report_line(output_dir: &Path) -> String {
    let page = output_dir.join(mutiny::report::RUN_HTML_REPORT_FILE_NAME);
    let cwd = std::env::current_dir().unwrap_or_default();
    let shown = page.strip_prefix(&cwd).unwrap_or(&page);
    format!("mutiny: HTML report: {}", shown.display())
}

/// The lab's options from the flags and the config; `log_dir` is left empty
/// for the caller to fill.
fn lab_options(args: &RunArgs, config: &Config) -> Result<LabOptions> {
    let baseline = match args.baseline.as_str() {
        "run" => BaselineMode::Run,
        "skip" => BaselineMode::Skip,
        other => bail!("--baseline takes run or skip, not {other:?}"),
    };
    let lab_args = LabArgs {
        jobs: args.jobs,
        timeout: args.timeout,
        timeout_multiplier: args.timeout_multiplier,
        minimum_test_timeout: args.minimum_test_timeout,
        build_timeout: args.build_timeout,
        build_timeout_multiplier: args.build_timeout_multiplier,
        copy_vcs: args.copy_vcs,
        copy_target: args.copy_target,
        gitignore: args.gitignore,
        baseline,
        test_tool: args.test_tool.clone(),
        test_workspace: args.test_workspace,
        test_package: args.test_package.clone(),
        cargo_args: args.cargo_args.clone(),
        cargo_test_args: args.cargo_test_args.clone(),
        features: args.features.clone(),
        all_features: args.all_features,
        no_default_features: args.no_default_features,
        profile: args.profile.clone(),
        cap_lints: args.cap_lints,
        strategy: args.strategy.clone(),
    };
    options::lab_options(&lab_args, config)
}

/// Says which baseline command failed, with the tail of its log.
fn report_baseline_failure(outcome: &ScenarioOutcome) {
    let failed = outcome.failed_phase();
    let command = failed.map(|r| r.argv.join(" ")).unwrap_or_default();
    let status = failed
        .map(|r| format!("{:?}", r.process_status))
        .unwrap_or_default();
    let build_failed = failed.is_none_or(|r| r.phase == Phase::Build);
    eprintln!(
        "error: the unmutated tree {}, so no mutants were tested.\n\
         The {} phase failed ({status}): {command}",
        if build_failed {
            "does not build"
        } else {
            "fails its tests"
        },
        failed.map_or("build", |r| r.phase.name()),
    );
    let failing = outcome.failing_tests();
    if !failing.is_empty() {
        eprintln!("Failing tests: {}", failing.join(", "));
    }
    let log = outcome.log_text();
    let lines: Vec<&str> = log.lines().collect();
    let tail = &lines[lines.len().saturating_sub(40)..];
    eprintln!("--- last lines of {} ---", outcome.log_path.display());
    for line in tail {
        eprintln!("{line}");
    }
    if build_failed && needed_the_network(&log) {
        eprintln!(
            "cargo could not fetch the workspace's dependencies (no network, or offline \
             mode). mutiny builds a copy of the workspace with your cargo settings and \
             registry cache: run `cargo fetch` in the workspace while the network is \
             reachable, then run mutiny again."
        );
    } else if build_failed {
        eprintln!("Fix the build (or pick packages with -p), then run again.");
    } else {
        eprintln!("Fix the failing tests (or pick packages with -p), then run again.");
    }
}

/// Whether cargo's output says it needed the network for the build: a
/// registry it could not reach, a package it could not download, or a
/// package missing from the cache in offline mode.
fn needed_the_network(log: &str) -> bool {
    [
        "you're using offline mode",
        "failed to download",
        "Unable to update registry",
        "failed to fetch",
        "Couldn't resolve host",
        "attempting to make an HTTP request, but --offline was specified",
    ]
    .iter()
    .any(|phrase| log.contains(phrase))
}

#[derive(Serialize)]
struct RunJson<'a> {
    #[serde(flatten)]
    counts: &'a Counts,
    exit_code: i32,
    outcomes: Vec<MutantOutcomeJson<'a>>,
}

#[derive(Serialize)]
struct MutantOutcomeJson<'a> {
    name: &'a str,
    file: &'a str,
    line: usize,
    verdict: Verdict,
    log_path: String,
    /// Present (`true`) on mutiny's own stubs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    own: bool,
}

fn finish(
    args: &RunArgs,
    console: &Console,
    outcomes: &[ScenarioOutcome],
    counts: &Counts,
    code: i32,
) -> Result<i32> {
    console.finish();
    if args.json {
        let outcomes = outcomes
            .iter()
            .filter_map(|o| {
                let mutant = o.scenario.mutant()?;
                Some(MutantOutcomeJson {
                    name: &mutant.name,
                    file: &mutant.source_file.path,
                    line: mutant.span.start.line,
                    verdict: o.verdict()?,
                    log_path: o.log_path.to_string_lossy().into_owned(),
                    own: mutant.own,
                })
            })
            .collect();
        let json = RunJson {
            counts,
            exit_code: code,
            outcomes,
        };
        write_stdout(&(serde_json::to_string_pretty(&json)? + "\n"))?;
    }
    Ok(code)
}
