//! The lab: where mutants are built and tested, always in scratch copies of
//! the user's tree, by a pool of jobs that each keep a warm tree.
//!
//! A `Lab` copies the workspace once (the baseline tree), runs the baseline
//! there, then gives each job its own copy of that tree with the baseline's
//! build output, so every job's first mutant build is incremental. Results
//! stream to the caller as `Event`s; the lab prints nothing.

mod analysis;
pub mod cargo;
pub mod killers;
mod process;
pub mod scratch;
mod switched;
mod timeouts;
pub mod trim;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::mutate::Mutant;
use crate::outcome::{Judged, Phase, PhaseResult, Scenario, ScenarioOutcome};
use crate::workspace::{Package, Workspace};
pub use analysis::{Analysis, AnalysisFeed, AskViability, Pending};
use cargo::{CargoOptions, PackageArgs, TestScope};
use process::Ended;
pub use process::{launch_if_asked, use_launcher};
use scratch::{CopyOptions, ScratchTree};
pub use switched::wrap_rustdoc_if_asked;
pub use timeouts::Timeouts;

/// A flag that stops a run: jobs stop taking mutants and running commands
/// are killed with their process groups. Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    parent: Option<Arc<AtomicBool>>,
}

impl Cancel {
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
            || self
                .parent
                .as_ref()
                .is_some_and(|p| p.load(Ordering::SeqCst))
    }

    /// Whether `other` is a clone of this flag (the same run's).
    pub fn is_same(&self, other: &Cancel) -> bool {
        Arc::ptr_eq(&self.flag, &other.flag)
    }

    /// A flag of its own that is also set whenever this one is.
    fn child(&self) -> Cancel {
        Cancel {
            flag: Arc::new(AtomicBool::new(false)),
            parent: Some(self.flag.clone()),
        }
    }
}

/// Whether to test the unmutated tree first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BaselineMode {
    #[default]
    Run,
    /// The user vouches that the tests pass.
    Skip,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LabOptions {
    /// Parallel jobs, each with its own scratch tree.
    pub jobs: usize,
    pub cargo: CargoOptions,
    pub test_scope: TestScope,
    pub timeouts: Timeouts,
    /// What the scratch copies hold besides the sources.
    pub copy: CopyOptions,
    pub baseline: BaselineMode,
    /// Where each scenario's log goes (`baseline.log`, one per mutant).
    pub log_dir: PathBuf,
    /// How far below mutiny's own priority cargo and the tests run (`nice`):
    /// the language server keeps its answers and the editor quick while
    /// both cores build.
    pub niceness: i32,
    pub strategy: Strategy,
    /// Compile-once: run the doctests' baseline beside the mutants' test
    /// binaries instead of before them (the language server, where each
    /// save pays a baseline). A doctest failure then shows only at the end.
    pub doctests_alongside: bool,
    /// Leave out of the scratch copies the dev-dependencies only
    /// benchmarks name (`mutiny run`; the language server's copies follow
    /// a tree the user edits, and keep them all).
    pub leave_out_dev_dependencies: bool,
}

/// How mutants are built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Many mutants in one build behind run-time switches; the rest alone.
    #[default]
    CompileOnce,
    /// Each mutant built and tested alone, as cargo-mutants does.
    Classic,
}

impl std::str::FromStr for Strategy {
    type Err = String;

    fn from_str(name: &str) -> Result<Strategy, String> {
        match name {
            "compile-once" => Ok(Strategy::CompileOnce),
            "classic" => Ok(Strategy::Classic),
            other => Err(format!(
                "unknown strategy {other:?}: use compile-once or classic"
            )),
        }
    }
}

/// What the lab reports as it goes.
#[derive(Debug, Clone)]
pub enum Event {
    BaselineStarted,
    BaselineFinished(ScenarioOutcome),
    /// The test timeout now in force.
    TestTimeout(Duration),
    MutantStarted {
        index: usize,
        job: usize,
    },
    MutantFinished(ScenarioOutcome),
    /// Something worth a line of the run's output.
    Note(String),
}

/// The default number of jobs: half the CPUs (each build is itself
/// parallel), at least one.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().div_ceil(2))
        .unwrap_or(1)
        .max(1)
}

/// Scratch trees and what is known about them.
pub struct Lab {
    options: LabOptions,
    /// The user's workspace, which the trees copy.
    source_root: PathBuf,
    /// `name@version` for each package name of the workspace.
    package_specs: HashMap<String, String>,
    packages: Vec<Package>,
    /// Job 0's tree is the baseline tree; the others are copies of it.
    trees: Vec<ScratchTree>,
    /// Each package's test timeout, from the baseline that tested it: a
    /// fast package's baseline must not shorten a slow one's timeout.
    test_timeouts: HashMap<String, Duration>,
    /// Per function, the test that last caught one of its mutants: it runs
    /// first for the function's next mutant, in this run and in later ones
    /// (the language server keeps its lab; both it and the CLI write them
    /// down for the next process).
    killers: killers::Killers,
    /// The longest baseline build, once one passed (the first, cold one: the
    /// language server's later baselines build incrementally, and must not
    /// shorten the build timeout).
    baseline_build: Option<Duration>,
    /// Told once the first build of the run is over: the path of its JSON
    /// messages (build scripts' outputs, proc macros) when it is there to
    /// read, `None` when no such build ran.
    first_build: Option<mpsc::Sender<Option<PathBuf>>>,
}

impl Lab {
    /// Copies the workspace into the baseline scratch tree.
    pub fn new(workspace: &Workspace, options: LabOptions) -> Result<Lab> {
        std::fs::create_dir_all(&options.log_dir)
            .with_context(|| format!("cannot create {}", options.log_dir.display()))?;
        let package_specs = workspace
            .packages
            .iter()
            .map(|p| (p.name.clone(), format!("{}@{}", p.name, p.version)))
            .collect();
        let mut tree = ScratchTree::copy_from(&workspace.root, options.copy)?;
        if options.leave_out_dev_dependencies {
            let left_out = trim::LeftOut::plan(tree.root(), &options.cargo);
            tree.leave_out(&workspace.root, left_out)?;
        }
        Ok(Lab {
            options,
            source_root: workspace.root.clone(),
            package_specs,
            packages: workspace.packages.clone(),
            trees: vec![tree],
            test_timeouts: HashMap::new(),
            killers: killers::Killers::default(),
            baseline_build: None,
            first_build: None,
        })
    }

    /// Where the first build of the next run says it is over (see
    /// [`Lab::first_build_done`]): rust-analyzer takes the build scripts'
    /// outputs from it instead of compiling the dependencies again.
    pub fn share_first_build(&mut self) -> mpsc::Receiver<Option<PathBuf>> {
        let (sender, receiver) = mpsc::channel();
        self.first_build = Some(sender);
        receiver
    }

    /// Says, once, that the first build is over and where its messages are.
    fn first_build_done(&mut self, messages: Option<PathBuf>) {
        if let Some(sender) = self.first_build.take() {
            let _ = sender.send(messages);
        }
    }

    /// Where a build of the baseline tree writes its JSON messages.
    fn build_messages_path(&self) -> PathBuf {
        self.trees[0].root().with_file_name("build-messages.json")
    }

    /// The dev-dependencies the scratch copies leave out.
    pub fn left_out(&self) -> &trim::LeftOut {
        self.trees[0].left_out()
    }

    /// The baseline scratch tree: a copy of the workspace, safe to run
    /// cargo in (the user's tree is not).
    pub fn scratch_root(&self) -> &Path {
        self.trees[0].root()
    }

    pub fn cargo_options(&self) -> &cargo::CargoOptions {
        &self.options.cargo
    }

    /// Where an analysis of the baseline tree builds (beside the tree, so
    /// copies of the tree do not carry it, and gone with it), and the
    /// environment its commands get.
    pub fn analysis_build(&self) -> (PathBuf, Vec<(String, String)>) {
        let root = self.scratch_root();
        let target = scratch::command_tmp(root).with_file_name("analysis-target");
        (target, cargo::env(root, &self.options.cargo))
    }

    /// Which test caught each function's mutants, in earlier runs and
    /// this one.
    pub fn killers(&self) -> &killers::Killers {
        &self.killers
    }

    /// Brings every scratch tree up to date with the user's tree (after the
    /// user saved files); returns the relative paths that changed.
    pub fn sync(&mut self) -> Result<Vec<PathBuf>> {
        let mut changed = Vec::new();
        for tree in &mut self.trees {
            changed = tree.sync_from(&self.source_root)?;
        }
        Ok(changed)
    }

    /// Builds the unmutated tests in the baseline tree, as the first run
    /// will (one `--no-run` build per package when each package is tested
    /// alone, so that features unify as they will then), so that run's
    /// build is incremental: the dependencies are built by then. Only a
    /// head start: a failure here is for the run to find and report.
    /// Returns how long it took, `None` when cancelled.
    pub fn warm_up(&self, cancel: &Cancel) -> Result<Option<Duration>> {
        let start = Instant::now();
        let commands: Vec<PackageArgs> = match &self.options.test_scope {
            TestScope::Mutated => self
                .packages
                .iter()
                .map(|p| self.scope_packages(&TestScope::Mutated, &p.name))
                .collect(),
            scope => vec![self.scope_packages(scope, "")],
        };
        let log_path = self.options.log_dir.join("warm-up.log");
        let mut log = process::create_log(&log_path)?;
        for packages in commands {
            if let Ended::Cancelled = self.build_unmutated(&packages, &mut log, cancel)? {
                return Ok(None);
            }
        }
        Ok(Some(start.elapsed()))
    }

    /// `cargo test --no-run` of `packages` in the baseline tree, as it is.
    fn build_unmutated(
        &self,
        packages: &PackageArgs,
        log: &mut std::fs::File,
        cancel: &Cancel,
    ) -> Result<Ended> {
        let root = self.trees[0].root();
        let argv = cargo::argv(Phase::Build, packages, &self.options.cargo);
        let env = cargo::env(root, &self.options.cargo);
        let spec = process::Spec {
            argv: &argv,
            env: &env,
            cwd: root,
            timeout: self.options.timeouts.build,
            cpu_timeout: None,
            niceness: self.options.niceness,
        };
        process::run(&spec, log, None, cancel)
    }

    /// Builds the unmutated tests of the `mutated` packages' scope in the
    /// baseline tree, as the run's first build will, before the run's
    /// mutants are final (the CLI, while rust-analyzer looks for own
    /// stubs): that build then finds the dependencies built. Only a head
    /// start: its log stays in the scratch directory, and a failure is for
    /// the run's own build to report.
    pub fn head_start(&self, mutated: &BTreeSet<String>, cancel: &Cancel) -> Result<()> {
        let packages = match &self.options.test_scope {
            TestScope::Mutated => {
                PackageArgs::Specs(mutated.iter().map(|name| self.spec(name)).collect())
            }
            scope => self.scope_packages(scope, ""),
        };
        let log_path = self.trees[0].root().with_file_name("head-start.log");
        let mut log = process::create_log(&log_path)?;
        self.build_unmutated(&packages, &mut log, cancel)?;
        Ok(())
    }

    /// Where the logs of the next run go.
    pub fn set_log_dir(&mut self, dir: PathBuf) -> Result<()> {
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        self.options.log_dir = dir;
        Ok(())
    }

    /// The test timeout of a mutant of `package`: explicit, or derived from
    /// the time of the baseline that tested the package.
    pub fn test_timeout(&self, package: &str) -> Duration {
        self.test_timeouts
            .get(package)
            .copied()
            .unwrap_or_else(|| self.options.timeouts.test_timeout(None))
    }

    /// Builds and tests the unmutated tree for the packages of `mutants`,
    /// and sets the test timeout from how long the tests took.
    pub fn baseline(
        &mut self,
        mutants: &[Arc<Mutant>],
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<Option<ScenarioOutcome>> {
        on_event(&Event::BaselineStarted);
        let packages = self.baseline_packages(mutants);
        let log_path = self.options.log_dir.join("baseline.log");
        let tree = &self.trees[0];
        let Some(outcome) = run_scenario(
            tree.root(),
            Scenario::Baseline,
            &packages,
            (&log_path, None),
            &self.options,
            (self.options.timeouts.build, None),
            cancel,
        )?
        else {
            return Ok(None);
        };
        on_event(&Event::BaselineFinished(outcome.clone()));
        if outcome.success() {
            let test_duration = outcome.duration(Phase::Test);
            let timeout = self.options.timeouts.test_timeout(test_duration);
            for mutant in mutants {
                let package = &mutant.source_file.package;
                self.test_timeouts.insert(package.clone(), timeout);
            }
            self.baseline_build = self.baseline_build.max(outcome.duration(Phase::Build));
            on_event(&Event::TestTimeout(timeout));
        }
        Ok(Some(outcome))
    }

    /// A whole run: the baseline (unless skipped), then every mutant, by
    /// the options' strategy. Returns the baseline's outcome if it failed
    /// (and nothing was tested). With an analysis of `mutants`, mutants in
    /// code not compiled for this target are reported so, never tested,
    /// and before it builds any mutant alone the run asks which of those
    /// cannot compile: they are reported unviable, never built (a switched
    /// build is its own proof).
    pub fn run(
        &mut self,
        mutants: &[Arc<Mutant>],
        mut analysis: Option<AnalysisFeed>,
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<Option<ScenarioOutcome>> {
        let ran = match self.options.strategy {
            Strategy::CompileOnce => self.compile_once(mutants, &mut analysis, cancel, on_event),
            Strategy::Classic => {
                let notes = BTreeMap::new();
                self.classic_run(mutants, (&notes, &mut analysis), cancel, on_event)
            }
        };
        // No build said so. When the run failed or was cancelled, whatever
        // is there will do (nothing waits for the verdicts), and the
        // analysis must end for the caller to join it.
        let messages = (ran.is_err() || cancel.is_cancelled()).then(|| self.build_messages_path());
        self.first_build_done(messages);
        let ran = ran?;
        // What the analysis found, said even when no mutant needed it.
        if let (Some(feed), false) = (&mut analysis, cancel.is_cancelled()) {
            feed.cfgs(on_event);
        }
        Ok(ran)
    }

    /// Tests `mutants` on the job pool, streaming events; returns the
    /// outcomes in the order they finished. A cancelled run returns what
    /// finished before the cancellation.
    pub fn test(
        &mut self,
        mutants: &[Arc<Mutant>],
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<Vec<ScenarioOutcome>> {
        let all: Vec<usize> = (0..mutants.len()).collect();
        self.test_indices(mutants, (&all, None), &BTreeMap::new(), cancel, on_event)
    }

    /// Tests the mutants at `indices` of `mutants`, each built alone (the
    /// classic path); `notes` says why, for the logs. A mutant that the
    /// `pending` viability answer, arrived by the time a job takes it,
    /// rules out is reported without a build.
    fn test_indices(
        &mut self,
        mutants: &[Arc<Mutant>],
        (indices, pending): (&[usize], Option<&Pending>),
        notes: &BTreeMap<usize, String>,
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<Vec<ScenarioOutcome>> {
        let jobs = self.options.jobs.max(1).min(indices.len());
        if jobs == 0 {
            return Ok(Vec::new());
        }
        while self.trees.len() < jobs {
            let copy = self.trees[0].duplicate()?;
            self.trees.push(copy);
        }
        let build_timeout = self.options.timeouts.build_timeout(self.baseline_build);
        if indices.iter().any(|&i| {
            !self
                .test_timeouts
                .contains_key(&mutants[i].source_file.package)
        }) {
            on_event(&Event::TestTimeout(
                self.options.timeouts.test_timeout(None),
            ));
        }
        let log_paths: Vec<PathBuf> = log_stems(mutants)
            .into_iter()
            .map(|stem| self.options.log_dir.join(format!("{stem}.log")))
            .collect();
        let stop = cancel.child();
        let next = AtomicUsize::new(0);
        let (sender, receiver) = mpsc::channel::<Result<Event>>();
        let mut outcomes = Vec::with_capacity(mutants.len());
        std::thread::scope(|scope| -> Result<()> {
            for (number, tree) in self.trees.iter().take(jobs).enumerate() {
                let job = Job {
                    number,
                    tree,
                    lab: &*self,
                    mutants,
                    indices,
                    notes,
                    log_paths: &log_paths,
                    pending,
                    next: &next,
                    stop: &stop,
                    build_timeout,
                };
                let sender = sender.clone();
                scope.spawn(move || {
                    if let Err(err) = job.run(&sender) {
                        job.stop.cancel();
                        let _ = sender.send(Err(err));
                    }
                });
            }
            drop(sender);
            let mut first_error = None;
            for event in receiver {
                match event {
                    Ok(event) => {
                        if let Event::MutantFinished(outcome) = &event {
                            outcomes.push(outcome.clone());
                        }
                        on_event(&event);
                    }
                    Err(err) => {
                        first_error.get_or_insert(err);
                    }
                }
            }
            first_error.map_or(Ok(()), Err)
        })?;
        Ok(outcomes)
    }

    fn baseline_packages(&self, mutants: &[Arc<Mutant>]) -> PackageArgs {
        match &self.options.test_scope {
            TestScope::Mutated => {
                let names: BTreeSet<&str> = mutants
                    .iter()
                    .map(|m| m.source_file.package.as_str())
                    .collect();
                PackageArgs::Specs(names.into_iter().map(|n| self.spec(n)).collect())
            }
            scope => self.scope_packages(scope, ""),
        }
    }

    fn mutant_packages(&self, mutant: &Mutant) -> PackageArgs {
        self.scope_packages(&self.options.test_scope, &mutant.source_file.package)
    }

    fn scope_packages(&self, scope: &TestScope, mutated: &str) -> PackageArgs {
        match scope {
            TestScope::Mutated => PackageArgs::Specs(vec![self.spec(mutated)]),
            TestScope::Workspace => PackageArgs::Workspace,
            TestScope::Packages(names) => {
                PackageArgs::Specs(names.iter().map(|n| self.spec(n)).collect())
            }
        }
    }

    fn spec(&self, name: &str) -> String {
        self.package_specs
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_owned())
    }
}

/// One job: takes the next mutant, applies it in its own tree, builds and
/// tests, restores the file.
struct Job<'a> {
    /// Which job of the pool: 0 works in the baseline tree.
    number: usize,
    tree: &'a ScratchTree,
    lab: &'a Lab,
    mutants: &'a [Arc<Mutant>],
    /// The mutants this pool tests, by index in `mutants`.
    indices: &'a [usize],
    /// Why a mutant takes this path, when it is not the run's strategy.
    notes: &'a BTreeMap<usize, String>,
    log_paths: &'a [PathBuf],
    /// rust-analyzer's viability answer, if it may still come.
    pending: Option<&'a Pending>,
    next: &'a AtomicUsize,
    stop: &'a Cancel,
    build_timeout: Option<Duration>,
}

impl Job<'_> {
    fn run(&self, sender: &mpsc::Sender<Result<Event>>) -> Result<()> {
        loop {
            if self.stop.is_cancelled() {
                return Ok(());
            }
            let Some(&index) = self.indices.get(self.next.fetch_add(1, Ordering::SeqCst)) else {
                return Ok(());
            };
            let mutant = &self.mutants[index];
            if let Some(pending) = self.pending {
                let (judged, notes) = pending.judged(index);
                for note in notes {
                    let _ = sender.send(Ok(Event::Note(note)));
                }
                if let Some(judged) = judged {
                    let log_path = self.log_paths[index].clone();
                    let outcome = judged_outcome((index, mutant), log_path, judged)?;
                    let _ = sender.send(Ok(Event::MutantFinished(outcome)));
                    continue;
                }
            }
            let _ = sender.send(Ok(Event::MutantStarted {
                index,
                job: self.number,
            }));
            let path = self.tree.root().join(&mutant.source_file.path);
            std::fs::write(&path, mutant.mutated_code())
                .with_context(|| format!("cannot write {}", path.display()))?;
            let result = run_scenario(
                self.tree.root(),
                Scenario::Mutant {
                    index,
                    mutant: mutant.clone(),
                },
                &self.lab.mutant_packages(mutant),
                (&self.log_paths[index], self.notes.get(&index)),
                &self.lab.options,
                (
                    self.build_timeout,
                    Some(self.lab.test_timeout(&mutant.source_file.package)),
                ),
                self.stop,
            );
            std::fs::write(&path, mutant.source_file.code.as_bytes())
                .with_context(|| format!("cannot restore {}", path.display()))?;
            match result? {
                Some(outcome) => {
                    let _ = sender.send(Ok(Event::MutantFinished(outcome)));
                }
                None => return Ok(()),
            }
        }
    }
}

/// Builds then tests one scenario in the tree at `root`, logging to
/// `log_path`, within the (build, test) `timeouts`. `None` when cancelled.
fn run_scenario(
    root: &Path,
    scenario: Scenario,
    packages: &PackageArgs,
    (log_path, note): (&Path, Option<&String>),
    options: &LabOptions,
    (build_timeout, test_timeout): (Option<Duration>, Option<Duration>),
    cancel: &Cancel,
) -> Result<Option<ScenarioOutcome>> {
    let mut log = process::create_log(log_path)?;
    if let Some(mutant) = scenario.mutant() {
        use std::io::Write;
        writeln!(
            log,
            "*** {}\n\n*** mutation diff:\n{}",
            mutant.name,
            mutant.diff()
        )?;
        if let Some(note) = note {
            writeln!(log, "*** classic path (built alone): {note}")?;
        }
    }
    let env = cargo::env(root, &options.cargo);
    let mut phase_results = Vec::new();
    for (phase, timeout) in [(Phase::Build, build_timeout), (Phase::Test, test_timeout)] {
        let argv = cargo::argv(phase, packages, &options.cargo);
        let start = Instant::now();
        let niceness = options.niceness;
        let spec = process::Spec {
            argv: &argv,
            env: &env,
            cwd: root,
            timeout,
            cpu_timeout: None,
            niceness,
        };
        let ended = process::run(&spec, &mut log, None, cancel)?;
        let process_status = match ended {
            Ended::Status(status) => status,
            Ended::Cancelled => return Ok(None),
        };
        phase_results.push(PhaseResult {
            phase,
            duration: start.elapsed(),
            process_status,
            argv,
        });
        if !process_status.is_success() {
            break;
        }
    }
    Ok(Some(ScenarioOutcome {
        scenario,
        log_path: log_path.to_owned(),
        phase_results,
        judged: None,
    }))
}

/// File-name stems for each mutant's log and diff, as cargo-mutants names
/// them: `src__lib.rs_line_17_col_9`, then `_001`, `_002` for mutants at
/// the same place.
pub fn log_stems(mutants: &[Arc<Mutant>]) -> Vec<String> {
    log_stems_at(mutants.iter().map(|m| {
        (
            m.source_file.path.as_str(),
            m.span.start.line,
            m.span.start.column,
        )
    }))
}

/// Reports the mutant at `index` as the analysis `judged` it, without a
/// build, in a log at `log_path` that says why.
fn report_judged(
    (index, mutant): (usize, &Arc<Mutant>),
    log_path: PathBuf,
    judged: Judged,
    on_event: &mut dyn FnMut(&Event),
) -> Result<()> {
    let outcome = judged_outcome((index, mutant), log_path, judged)?;
    on_event(&Event::MutantFinished(outcome));
    Ok(())
}

/// The outcome of the mutant at `index` as the analysis `judged` it,
/// without a build, its log written at `log_path`.
fn judged_outcome(
    (index, mutant): (usize, &Arc<Mutant>),
    log_path: PathBuf,
    judged: Judged,
) -> Result<ScenarioOutcome> {
    let said = match &judged {
        Judged::Unviable(why) => {
            format!("unviable without a build: rust-analyzer shows it cannot compile: {why}")
        }
        Judged::NotCompiled(why) => {
            format!("not tested: its code is not compiled for this target: {why}")
        }
    };
    std::fs::write(
        &log_path,
        format!(
            "*** {}\n\n*** mutation diff:\n{}\n*** {said}\n",
            mutant.name,
            mutant.diff()
        ),
    )
    .with_context(|| format!("cannot write {}", log_path.display()))?;
    Ok(ScenarioOutcome {
        scenario: Scenario::Mutant {
            index,
            mutant: mutant.clone(),
        },
        log_path,
        phase_results: Vec::new(),
        judged: Some(judged),
    })
}

/// The log stems of mutants at these places (file, line, column), in
/// order: `src__lib.rs_line_30_col_9`, then `…_001` for the next mutant at
/// the same place. `mutiny merge` names a merged run's logs with it.
pub fn log_stems_at<'a>(places: impl IntoIterator<Item = (&'a str, usize, usize)>) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    places
        .into_iter()
        .map(|(file, line, column)| {
            let base = format!("{}_line_{line}_col_{column}", file.replace('/', "__"));
            let count = seen.entry(base.clone()).or_insert(0);
            let stem = if *count == 0 {
                base
            } else {
                format!("{base}_{count:03}")
            };
            *count += 1;
            stem
        })
        .collect()
}
