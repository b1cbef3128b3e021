//! The compile-once strategy. Every mutant that a run-time switch can hold
//! goes into the baseline tree at once (`render`); one build; the baseline
//! runs the test binaries directly, recording which switch sites each one
//! reaches; then each mutant runs only the binaries that reach it (the test
//! that killed its function's mutants first, doctests last), with its
//! switch on. A mutant that breaks the switched build is taken out (the
//! compiler's error spans say which) and later built alone on the classic
//! path, as are those no switch can hold; the log of each says which path
//! it took and why.

mod consts;
mod doctests;
mod messages;
mod reach;
mod render;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::cargo::{self, PackageArgs, TestScope, TestTool};
use super::killers::Killer;
use super::process::{self, Ended, Spec};
use super::{AnalysisFeed, BaselineMode, Cancel, Event, Lab};
use crate::mutate::{Mutant, Switch};
use crate::outcome::{Phase, PhaseResult, ProcessStatus, Scenario, ScenarioOutcome};
use crate::workspace::Package;
use messages::TestBinary;
use reach::Reach;
use render::Switched;

pub use doctests::wrap_rustdoc_if_asked;

/// A traced baseline run of a test binary that used more CPU time than
/// this runs again without the trace, for the times its limits come from.
const UNTRACED_ABOVE: Duration = Duration::from_millis(300);

/// Builds of the switched tree before whatever still fails goes classic.
const MAX_ROUNDS: usize = 4;

/// What decides which path each mutant takes.
struct Plan {
    switched: BTreeSet<usize>,
    /// Mutants on the classic path, with the reason.
    alone: BTreeMap<usize, String>,
    /// By file: the const fns (name, keyword) whose `const` the switched
    /// build removes, beside those of the switched mutants' own functions.
    unconst: BTreeMap<String, ConstFns>,
    /// By file: its text and the uses of the constants of modules and
    /// impls that switched mutants copy (`Switch::CrateConst`), each the
    /// mutant's index and the byte range of the path expression.
    const_uses: BTreeMap<String, (Arc<str>, ConstUses)>,
}

/// Uses of constants in a file: each the index of the mutant whose copy
/// it may choose, and the byte range of the path expression.
type ConstUses = Vec<(usize, Range<usize>)>;

/// Const fns of a file: each one's name and the byte range of its `const`.
type ConstFns = Vec<(String, Range<usize>)>;

/// A test command of the switched tree: a test binary, or a package's doctests.
#[derive(Debug, Clone)]
enum Runner {
    Binary(TestBinary),
    Doctests(String),
}

/// One runner with what the baseline learned of it.
#[derive(Debug)]
struct Known {
    runner: Runner,
    /// The package whose tests these are.
    package: String,
    /// How long the baseline run took.
    baseline: Option<Duration>,
    /// The CPU time the baseline run used, where measured.
    baseline_cpu: Option<Duration>,
    /// Doctests: the names of those that passed in the baseline.
    doctest_names: Vec<String>,
    /// Doctests: the programs rustdoc kept in the baseline run.
    doctest_programs: doctests::Programs,
    /// The switch ids it reached in the baseline, and which of its tests
    /// reached each; `None` when no baseline ran.
    reached: Option<Reach>,
}

impl Known {
    /// Names the runner across builds (its executable's name changes).
    fn key(&self) -> String {
        match &self.runner {
            Runner::Binary(binary) => format!("{} {} {}", self.package, binary.kind, binary.target),
            Runner::Doctests(package) => format!("{package} doctests"),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Lab {
    /// Runs the baseline and tests `mutants`, compiling once where it can;
    /// returns the baseline's outcome when it failed.
    pub(super) fn compile_once(
        &mut self,
        mutants: &[Arc<Mutant>],
        analysis: &mut Option<AnalysisFeed>,
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<Option<ScenarioOutcome>> {
        let mut plan = self.plan(mutants);
        let mut texts = None;
        self.keep_called_consts(mutants, &mut plan, &mut texts);
        self.place_crate_consts(mutants, &mut plan, &mut texts);
        if plan.switched.is_empty() {
            return self.classic_run(mutants, (&plan.alone, analysis), cancel, on_event);
        }
        on_event(&Event::BaselineStarted);
        let root = self.trees[0].root().to_owned();
        let files = self.switched_files(mutants, &plan)?;
        // Without a baseline there is no baseline log: the build has its own.
        let log_name = match self.options.baseline {
            BaselineMode::Run => "baseline.log",
            BaselineMode::Skip => "switched-build.log",
        };
        let log_path = self.options.log_dir.join(log_name);
        let mut log = process::create_log(&log_path)?;
        let packages = self.baseline_packages(mutants);
        let build_argv = self.build_argv(&packages);
        let mut rounds = 0;
        let built = loop {
            rounds += 1;
            let rendered = write_round(&root, &files, mutants, &mut plan)?;
            writeln!(
                log,
                "\n*** switched build, round {rounds}: {} mutants",
                plan.switched.len()
            )?;
            let Some((status, duration, messages)) = self.build(&build_argv, &mut log, cancel)?
            else {
                restore(&root, &files)?;
                return Ok(None);
            };
            if status.is_success() {
                // Every build script ran and every proc macro was built
                // (cargo reports fresh ones too): rust-analyzer reads them
                // from these messages, which no later build of this run
                // writes over. A failed round may have stopped before some.
                self.first_build_done(Some(self.build_messages_path()));
                break Some((duration, messages));
            }
            let blamed = (rounds < MAX_ROUNDS)
                .then(|| blame(&rendered, &messages.errors, (&root, mutants, &mut plan)))
                .flatten();
            let Some(blamed) = blamed else {
                writeln!(log, "\n*** the switched build fails where no mutant can be blamed: every mutant takes the classic path")?;
                break None;
            };
            for (id, error) in blamed {
                let index = id as usize - 1;
                if plan.switched.remove(&index) {
                    let first_line = error.lines().next().unwrap_or_default().to_owned();
                    plan.alone.insert(
                        index,
                        format!("it broke the switched build (round {rounds}): {first_line}"),
                    );
                }
            }
            if plan.switched.is_empty() {
                break None;
            }
        };
        let Some((build_duration, messages)) = built else {
            restore(&root, &files)?;
            let why = "the switched build failed".to_owned();
            let alone = (0..mutants.len())
                .map(|i| {
                    (
                        i,
                        plan.alone.get(&i).cloned().unwrap_or_else(|| why.clone()),
                    )
                })
                .collect();
            return self.classic_run(mutants, (&alone, analysis), cancel, on_event);
        };
        // Judged while the switched mutants are tested.
        if let Some(feed) = analysis.as_mut().filter(|_| !plan.alone.is_empty()) {
            feed.ask(plan.alone.keys().copied().collect());
        }
        on_event(&Event::Note(format!(
            "compile-once: {} mutants switched into one build ({rounds} build round{}), {} on the classic path",
            plan.switched.len(),
            if rounds == 1 { "" } else { "s" },
            plan.alone.len()
        )));
        self.baseline_build = self.baseline_build.max(Some(build_duration));
        let build_phase = PhaseResult {
            phase: Phase::Build,
            duration: build_duration,
            process_status: ProcessStatus::Success,
            argv: build_argv.clone(),
        };
        let mut runners = self.runners(&messages.binaries, mutants)?;
        let baseline = match self.options.baseline {
            BaselineMode::Run => {
                let Some(outcome) = self.switched_baseline(
                    &mut runners,
                    &mut log,
                    (&log_path, &build_phase),
                    (!self.options.doctests_alongside, cancel),
                )?
                else {
                    restore(&root, &files)?;
                    return Ok(None);
                };
                on_event(&Event::BaselineFinished(outcome.clone()));
                if !outcome.success() {
                    restore(&root, &files)?;
                    return Ok(Some(outcome));
                }
                Some(outcome)
            }
            BaselineMode::Skip => None,
        };
        drop(log);
        // A mutant a test binary reaches is compiled, and the switched
        // build compiled it: only the others under some cfg wait for the
        // analysis to say whether this target compiles their code (one it
        // does not would otherwise pass as "missed").
        let id_reached = |index: usize| {
            runners.iter().any(|known| {
                matches!(known.runner, Runner::Binary(_))
                    && known
                        .reached
                        .as_ref()
                        .is_some_and(|reach| reach.all.contains(&(index as u32 + 1)))
            })
        };
        let gated: BTreeSet<usize> = match analysis.as_ref() {
            Some(feed) => plan
                .switched
                .iter()
                .copied()
                .filter(|&index| feed.under_cfgs(index) && !id_reached(index))
                .collect(),
            None => BTreeSet::new(),
        };
        let switched: Vec<usize> = plan.switched.iter().copied().collect();
        let tests = SwitchedTests {
            lab: self,
            root: &root,
            mutants,
            runners: &runners,
            build_phase: &build_phase,
            log_paths: &super::log_stems(mutants)
                .into_iter()
                .map(|stem| self.options.log_dir.join(format!("{stem}.log")))
                .collect::<Vec<_>>(),
            peers: plan.switched.len() - 1,
            deferred: (self.options.doctests_alongside && baseline.is_some())
                .then(|| Deferred::new(&log_path)),
            cfgs: (gated, analysis.as_mut().map(Mutex::new)),
            alone: Mutex::new(HashMap::new()),
        };
        tests.run(&switched, cancel, on_event)?;
        let failed_doctests = tests.deferred.as_ref().and_then(Deferred::failure);
        restore(&root, &files)?;
        if let Some(failed) = failed_doctests {
            on_event(&Event::BaselineFinished(failed.clone()));
            return Ok(Some(failed));
        }
        if cancel.is_cancelled() || plan.alone.is_empty() {
            return Ok(None);
        }
        drop(baseline);
        // Asked only now, and only of these: most mutants never need it.
        let alone: Vec<usize> = plan.alone.keys().copied().collect();
        self.test_alone(mutants, (alone, &plan.alone), analysis, cancel, on_event)?;
        Ok(None)
    }

    /// The classic path for everything: the baseline (unless skipped), then
    /// each mutant built alone but the ruled-out ones. `notes`: why a mutant
    /// takes this path.
    pub(super) fn classic_run(
        &mut self,
        mutants: &[Arc<Mutant>],
        (notes, analysis): (&BTreeMap<usize, String>, &mut Option<AnalysisFeed>),
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<Option<ScenarioOutcome>> {
        // rust-analyzer runs the build scripts itself, beside this path's
        // baseline, as it always did.
        self.first_build_done(None);
        if self.options.baseline == BaselineMode::Run {
            match self.baseline(mutants, cancel, on_event)? {
                None => return Ok(None),
                Some(outcome) if !outcome.success() => return Ok(Some(outcome)),
                Some(_) => {}
            }
        }
        if !cancel.is_cancelled() {
            let all: Vec<usize> = (0..mutants.len()).collect();
            self.test_alone(mutants, (all, notes), analysis, cancel, on_event)?;
        }
        Ok(None)
    }

    /// Tests the mutants at `indices`, each built alone, but those the
    /// analysis rules out. Its stages are waited for only before a build
    /// of a mutant they may rule out (one under cfgs: a mutant not
    /// compiled would pass as missed). Those go last: the others are built
    /// meanwhile (of them it says nothing).
    fn test_alone(
        &mut self,
        mutants: &[Arc<Mutant>],
        (indices, notes): (Vec<usize>, &BTreeMap<usize, String>),
        analysis: &mut Option<AnalysisFeed>,
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<()> {
        let pending = analysis.as_mut().map(|feed| feed.judge_later(&indices));
        let pending = pending.as_ref();
        let mut indices = indices;
        indices.sort_by_key(|&index| pending.is_some_and(|p| p.waits(index)));
        self.test_indices(mutants, (&indices, pending), notes, cancel, on_event)?;
        Ok(())
    }

    /// Which mutants a switch can hold; why the others take the classic path.
    fn plan(&self, mutants: &[Arc<Mutant>]) -> Plan {
        let mut plan = Plan {
            switched: BTreeSet::new(),
            alone: BTreeMap::new(),
            unconst: BTreeMap::new(),
            const_uses: BTreeMap::new(),
        };
        let whole_run = self.whole_run_obstacle();
        let mut package_obstacles: HashMap<&str, Option<String>> = HashMap::new();
        // Foreseen from the syntax: each saves a build round.
        let mut breakers = match whole_run {
            Some(_) => BTreeMap::new(),
            None => crate::mutate::switch_breakers(mutants),
        };
        for (index, mutant) in mutants.iter().enumerate() {
            let package = mutant.source_file.package.as_str();
            let obstacle = package_obstacles
                .entry(package)
                .or_insert_with(|| self.package_obstacle(package, mutants))
                .clone();
            let why = match (&whole_run, obstacle, &mutant.switch) {
                (Some(why), _, _) => Some(why.clone()),
                (None, Some(why), _) => Some(why),
                (None, None, Switch::Alone(why)) => Some((*why).to_owned()),
                (None, None, _) => breakers
                    .remove(&index)
                    .map(|why| format!("it would break the switched build: {why}")),
            };
            match why {
                Some(why) => {
                    plan.alone.insert(index, why);
                }
                None => {
                    plan.switched.insert(index);
                }
            }
        }
        plan
    }

    /// What keeps the whole run off the switched path, if anything.
    fn whole_run_obstacle(&self) -> Option<String> {
        let cargo = &self.options.cargo;
        if cargo.test_tool == TestTool::Nextest {
            return Some("nextest runs the tests".to_owned());
        }
        let (before, _) = split_test_args(&cargo.additional_test_args);
        if before.iter().any(|arg| arg.starts_with("--")) {
            return Some(format!(
                "the test command has cargo options ({}) that pick what runs",
                before.join(" ")
            ));
        }
        if !cargo.cap_lints && flags_deny_lints(&self.source_root) {
            return Some(
                "RUSTFLAGS or .cargo/config.toml deny lints, which a switched build could change"
                    .to_owned(),
            );
        }
        None
    }

    /// What keeps one package's mutants off the switched path, if anything.
    fn package_obstacle(&self, name: &str, mutants: &[Arc<Mutant>]) -> Option<String> {
        let package = self.packages.iter().find(|p| p.name == name)?;
        if package.proc_macro {
            return Some(
                "its package is a proc-macro crate, which runs inside the compiler".into(),
            );
        }
        let read =
            |path: &str| std::fs::read_to_string(self.source_root.join(path)).unwrap_or_default();
        for root_file in &package.root_files {
            let text = read(root_file);
            // The switch module links std itself; a crate with its own
            // panic handler would then have two.
            if has_inner_attribute(&text, "no_std") && text.contains("panic_handler") {
                return Some(format!(
                    "its crate is #![no_std] with its own panic handler ({root_file}), which std would duplicate"
                ));
            }
        }
        if self.options.cargo.cap_lints {
            return None;
        }
        let manifest = read(&join(&package.dir, "Cargo.toml"));
        if manifest_denies_lints(&manifest) || manifest_denies_lints(&read("Cargo.toml")) {
            return Some("its Cargo.toml denies lints, which a switched build could change".into());
        }
        let mut texts: Vec<Arc<str>> = package
            .root_files
            .iter()
            .map(|path| Arc::from(read(path)))
            .collect();
        texts.extend(
            mutants
                .iter()
                .filter(|m| m.source_file.package == name)
                .map(|m| Arc::clone(&m.source_file.code)),
        );
        texts.dedup();
        texts.iter().find_map(|text| denied_lint(text)).map(|lint| {
            format!("its code denies the lint `{lint}`, which a switched build could change")
        })
    }

    /// The files a switched build rewrites: those with switched mutants and
    /// the root files of their packages, with their original text.
    fn switched_files(&self, mutants: &[Arc<Mutant>], plan: &Plan) -> Result<Vec<SwitchedFile>> {
        let mut files: BTreeMap<String, SwitchedFile> = BTreeMap::new();
        let mut packages = BTreeSet::new();
        // Files where only uses of constants are switched.
        for (path, (text, _)) in &plan.const_uses {
            files.insert(
                path.clone(),
                SwitchedFile {
                    path: path.clone(),
                    original: Arc::clone(text),
                    crate_root: false,
                },
            );
        }
        for &index in &plan.switched {
            let source = &mutants[index].source_file;
            packages.insert(source.package.clone());
            files
                .entry(source.path.clone())
                .or_insert_with(|| SwitchedFile {
                    path: source.path.clone(),
                    original: Arc::clone(&source.code),
                    crate_root: false,
                });
        }
        for package in self.packages.iter().filter(|p| packages.contains(&p.name)) {
            for root_file in &package.root_files {
                if !files.contains_key(root_file) {
                    let path = self.source_root.join(root_file);
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    files.insert(
                        root_file.clone(),
                        SwitchedFile {
                            path: root_file.clone(),
                            original: Arc::from(text),
                            crate_root: true,
                        },
                    );
                }
                if let Some(file) = files.get_mut(root_file) {
                    file.crate_root = true;
                }
            }
        }
        Ok(files.into_values().collect())
    }

    /// `cargo test --no-run` with JSON messages, for the baseline packages.
    fn build_argv(&self, packages: &PackageArgs) -> Vec<String> {
        let mut argv = cargo::argv(Phase::Build, packages, &self.options.cargo);
        argv.push("--message-format=json".to_owned());
        argv
    }

    /// Runs one build of the switched tree; `None` when cancelled.
    fn build(
        &self,
        argv: &[String],
        log: &mut File,
        cancel: &Cancel,
    ) -> Result<Option<(ProcessStatus, Duration, messages::BuildMessages)>> {
        let root = self.trees[0].root();
        let stdout_path = self.build_messages_path();
        let stdout = File::create(&stdout_path)
            .with_context(|| format!("cannot create {}", stdout_path.display()))?;
        let env = self.command_env(root, 0);
        let spec = Spec {
            argv,
            env: &env,
            cwd: root,
            timeout: self.options.timeouts.build,
            cpu_timeout: None,
            niceness: self.options.niceness,
        };
        let start = Instant::now();
        let ended = process::run(&spec, log, Some(stdout), cancel)?;
        let duration = start.elapsed();
        let output = std::fs::read_to_string(&stdout_path).unwrap_or_default();
        let messages = messages::parse(&output);
        log.write_all(messages.rendered.as_bytes())?;
        Ok(match ended {
            Ended::Status(status) => Some((status, duration, messages)),
            Ended::Cancelled => None,
        })
    }

    /// The environment of every command in the tree at `root`, with the
    /// switch `id` on (0: none).
    fn command_env(&self, root: &Path, id: u32) -> Vec<(String, String)> {
        let mut env = cargo::env(root, &self.options.cargo);
        env.push((render::ACTIVE_VAR.to_owned(), id.to_string()));
        env
    }

    /// The test binaries and doctests of the baseline packages, in the
    /// order `cargo test` runs them.
    fn runners(&self, binaries: &[TestBinary], mutants: &[Arc<Mutant>]) -> Result<Vec<Known>> {
        let root = self.trees[0].root();
        let canonical = |path: &Path| path.canonicalize().unwrap_or_else(|_| path.to_owned());
        let mut runners = Vec::new();
        let tested = self.tested_packages(mutants.iter().map(|m| m.source_file.package.as_str()));
        for package in self.packages.iter().filter(|p| tested.contains(&p.name)) {
            let dir = canonical(&root.join(&package.dir));
            for binary in binaries.iter().filter(|b| canonical(&b.package_dir) == dir) {
                runners.push(Known {
                    runner: Runner::Binary(binary.clone()),
                    package: package.name.clone(),
                    baseline: None,
                    baseline_cpu: None,
                    doctest_names: Vec::new(),
                    doctest_programs: doctests::Programs::default(),
                    reached: None,
                });
            }
            if package.doctests {
                runners.push(Known {
                    runner: Runner::Doctests(package.name.clone()),
                    package: package.name.clone(),
                    baseline: None,
                    baseline_cpu: None,
                    doctest_names: Vec::new(),
                    doctest_programs: doctests::Programs::default(),
                    reached: None,
                });
            }
        }
        Ok(runners)
    }

    /// The packages whose tests judge mutants of the `mutated` packages.
    fn tested_packages<'a>(&self, mutated: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
        match &self.options.test_scope {
            TestScope::Mutated => mutated.into_iter().map(str::to_owned).collect(),
            TestScope::Workspace => self.packages.iter().map(|p| p.name.clone()).collect(),
            TestScope::Packages(names) => names.iter().cloned().collect(),
        }
    }

    /// Runs every runner once with no switch on, tracing the sites each
    /// reaches; sets the timeouts. `None` when cancelled.
    fn switched_baseline(
        &mut self,
        runners: &mut [Known],
        log: &mut File,
        (log_path, build_phase): (&Path, &PhaseResult),
        (doctests, cancel): (bool, &Cancel),
    ) -> Result<Option<ScenarioOutcome>> {
        let root = self.trees[0].root().to_owned();
        let trace_dir = trace_dir(&root);
        std::fs::create_dir_all(&trace_dir)
            .with_context(|| format!("cannot create {}", trace_dir.display()))?;
        let mut test_phase = PhaseResult {
            phase: Phase::Test,
            duration: Duration::ZERO,
            process_status: ProcessStatus::Success,
            argv: Vec::new(),
        };
        let mut per_package: HashMap<String, Duration> = HashMap::new();
        for (number, known) in runners.iter_mut().enumerate() {
            if !doctests && matches!(known.runner, Runner::Doctests(_)) {
                continue;
            }
            let Some(run) = self.traced_run(known, number, &root, (&mut *log, log_path), cancel)?
            else {
                return Ok(None);
            };
            let (status, mut duration, mut cpu) = (run.status, run.duration, run.cpu);
            test_phase.duration += duration;
            test_phase.argv = run.argv;
            // Tracing slows a busy binary down (each switch it runs asks
            // its thread's record): its limits come from a run without.
            let busy = cpu.is_some_and(|cpu| cpu > UNTRACED_ABOVE);
            if busy && status.is_success() && matches!(known.runner, Runner::Binary(_)) {
                let Some(untraced) = self.untraced_run(known, &root, &mut *log, cancel)? else {
                    return Ok(None);
                };
                (duration, cpu) = untraced;
            }
            *per_package.entry(known.package.clone()).or_default() += duration;
            known.baseline = Some(duration);
            known.baseline_cpu = cpu;
            known.doctest_names = run.passed;
            known.doctest_programs = run.programs;
            known.reached = Some(run.reached);
            if !status.is_success() {
                test_phase.process_status = status;
                break;
            }
        }
        if test_phase.process_status.is_success() {
            for (package, duration) in per_package {
                let timeout = self.options.timeouts.test_timeout(Some(duration));
                self.test_timeouts.insert(package, timeout);
            }
        }
        Ok(Some(ScenarioOutcome {
            scenario: Scenario::Baseline,
            log_path: log_path.to_owned(),
            phase_results: vec![build_phase.clone(), test_phase],
            judged: None,
        }))
    }

    /// Runs runner `number` once with no switch on, recording in its trace
    /// file the switches it reaches; `None` when cancelled.
    fn traced_run(
        &self,
        known: &Known,
        number: usize,
        root: &Path,
        (log, log_path): (&mut File, &Path),
        cancel: &Cancel,
    ) -> Result<Option<TracedRun>> {
        let before = log.metadata().map(|m| m.len()).unwrap_or(0);
        let trace = trace_dir(root).join(format!("{number}.ids"));
        let _ = std::fs::remove_file(&trace);
        let mut extra = vec![(
            render::TRACE_VAR.to_owned(),
            trace.to_string_lossy().into_owned(),
        )];
        // rustdoc keeps the doctests' programs for the mutants' runs.
        let kept = trace_dir(root).join(format!("doctests-{number}"));
        if matches!(known.runner, Runner::Doctests(_)) {
            let _ = std::fs::remove_dir_all(&kept);
            if std::fs::create_dir_all(&kept).is_ok() {
                extra.extend(doctests::persisting_env(&kept).unwrap_or_default());
            }
        }
        let start = Instant::now();
        let (argv, measured) = self.unmutated_run(known, root, extra, log, cancel)?;
        let Ended::Status(status) = measured.ended else {
            return Ok(None);
        };
        let output = std::fs::read(log_path)
            .map(|text| {
                let after = text.get(before as usize..).unwrap_or_default();
                String::from_utf8_lossy(after).into_owned()
            })
            .unwrap_or_default();
        let trace = std::fs::read_to_string(&trace).unwrap_or_default();
        // Doctests are run by name for each mutant (see `doctests_first`);
        // a binary's tests by the sites each reached.
        let (passed, reached) = match known.runner {
            Runner::Doctests(_) => (
                crate::outcome::passing_tests(&output),
                Reach::parse(&trace, &BTreeSet::new()),
            ),
            Runner::Binary(_) => (
                Vec::new(),
                Reach::parse(&trace, &reach::test_names(&output)),
            ),
        };
        let mut programs = doctests::Programs::default();
        if matches!(known.runner, Runner::Doctests(_)) && status.is_success() {
            programs = doctests::Programs::find(&kept, &passed);
            let timeout = self.options.timeouts.binary_timeout(Some(start.elapsed()));
            let (cwd, env) = self.doctest_program_context(known, root, 0);
            let mut cancelled = false;
            programs.check(|program| -> Result<Option<Duration>> {
                writeln!(log, "\n*** does this doctest succeed alone? (once per run)")?;
                let argv = vec![program.to_string_lossy().into_owned()];
                let spec = Spec {
                    argv: &argv,
                    env: &env,
                    cwd: &cwd,
                    timeout: Some(timeout),
                    cpu_timeout: None,
                    niceness: self.options.niceness,
                };
                let began = Instant::now();
                match process::run(&spec, log, None, cancel)? {
                    Ended::Status(status) => Ok(status.is_success().then(|| began.elapsed())),
                    Ended::Cancelled => {
                        cancelled = true;
                        Ok(None)
                    }
                }
            })?;
            if cancelled {
                return Ok(None);
            }
        }
        Ok(Some(TracedRun {
            status,
            passed,
            programs,
            cpu: measured.cpu,
            duration: start.elapsed(),
            reached,
            argv,
        }))
    }

    /// Runs runner `known` once more with no switch on and no trace, for
    /// its times: (wall-clock, CPU); `None` when cancelled.
    fn untraced_run(
        &self,
        known: &Known,
        root: &Path,
        log: &mut File,
        cancel: &Cancel,
    ) -> Result<Option<(Duration, Option<Duration>)>> {
        writeln!(log, "\n*** again without the trace, for its times:")?;
        let start = Instant::now();
        let (_, measured) = self.unmutated_run(known, root, Vec::new(), log, cancel)?;
        Ok(match measured.ended {
            Ended::Status(_) => Some((start.elapsed(), measured.cpu)),
            Ended::Cancelled => None,
        })
    }

    /// Runs runner `known` with no switch on (and `extra` in its
    /// environment), under the run's test timeout; its command line too.
    fn unmutated_run(
        &self,
        known: &Known,
        root: &Path,
        extra: Vec<(String, String)>,
        log: &mut File,
        cancel: &Cancel,
    ) -> Result<(Vec<String>, process::Measured)> {
        let (argv, cwd, mut env) = self.command_of(known, root, 0, &[]);
        env.extend(extra);
        let spec = Spec {
            argv: &argv,
            env: &env,
            cwd: &cwd,
            timeout: self.options.timeouts.test,
            cpu_timeout: None,
            niceness: self.options.niceness,
        };
        let measured = process::run_measured(&spec, log, None, cancel)?;
        Ok((argv, measured))
    }

    /// The working directory and environment rustdoc gives the programs of
    /// doctests runner `known`'s doctests, with switch `id` on.
    fn doctest_program_context(
        &self,
        known: &Known,
        root: &Path,
        id: u32,
    ) -> (PathBuf, Vec<(String, String)>) {
        let package = self.packages.iter().find(|p| p.name == known.package);
        let dir = package.map_or_else(|| root.to_owned(), |p| root.join(&p.dir));
        let mut env = self.command_env(root, id);
        if let Some(package) = package {
            env.extend(package_env(package, &dir));
        }
        (dir, env)
    }

    /// The command line, working directory and environment of a runner with
    /// switch `id` on; `exact` runs just that test.
    fn command_of(
        &self,
        known: &Known,
        root: &Path,
        id: u32,
        exact: &[String],
    ) -> (Vec<String>, PathBuf, Vec<(String, String)>) {
        let (_, after) = split_test_args(&self.options.cargo.additional_test_args);
        let mut env = self.command_env(root, id);
        match &known.runner {
            Runner::Binary(binary) => {
                let mut argv = vec![binary.executable.to_string_lossy().into_owned()];
                if !exact.is_empty() {
                    argv.extend(exact.iter().cloned());
                    argv.push("--exact".to_owned());
                }
                argv.extend(after.iter().cloned());
                if let Some(package) = self.packages.iter().find(|p| p.name == known.package) {
                    env.extend(package_env(package, &binary.package_dir));
                }
                let deps = root.join("target").join("debug").join("deps");
                let library_path = match std::env::var("LD_LIBRARY_PATH") {
                    Ok(existing) if !existing.is_empty() => {
                        format!("{}:{existing}", deps.display())
                    }
                    _ => deps.display().to_string(),
                };
                env.push(("LD_LIBRARY_PATH".to_owned(), library_path));
                (argv, binary.package_dir.clone(), env)
            }
            Runner::Doctests(package) => {
                let spec = self.spec(package);
                let mut argv = cargo::argv(
                    Phase::Test,
                    &PackageArgs::Specs(vec![spec]),
                    &self.options.cargo,
                );
                argv.insert(2, "--doc".to_owned());
                // Substrings of doctest names: cargo hands the arguments
                // to rustdoc, which splits them at whitespace, so a whole
                // name (`src/lib.rs - f (line 3)`) cannot be given.
                if !exact.is_empty() {
                    if !argv.iter().any(|arg| arg == "--") {
                        argv.push("--".to_owned());
                    }
                    argv.extend(exact.iter().cloned());
                }
                (argv, root.to_owned(), env)
            }
        }
    }
}

/// Runs one of a mutant's test commands into `log`, adding its time,
/// command line and status to `test_phase`; false when cancelled.
fn run_test_command(
    spec: &Spec,
    (log, cancel): (&mut File, &Cancel),
    (test_phase, ran): (&mut PhaseResult, &mut bool),
) -> Result<bool> {
    let start = Instant::now();
    let ended = process::run(spec, log, None, cancel)?;
    *ran = true;
    test_phase.duration += start.elapsed();
    test_phase.argv = spec.argv.to_vec();
    let Ended::Status(status) = ended else {
        return Ok(false);
    };
    test_phase.process_status = status;
    Ok(true)
}

/// A file the switched build rewrites.
#[derive(Debug)]
struct SwitchedFile {
    path: String,
    original: Arc<str>,
    /// The root file of a target: the runtime module goes at its end.
    crate_root: bool,
}

/// Writes every switched file with the mutants still switched; returns
/// each file's rendering. Mutants whose site cannot be placed move to the
/// classic path.
fn write_round(
    root: &Path,
    files: &[SwitchedFile],
    mutants: &[Arc<Mutant>],
    plan: &mut Plan,
) -> Result<HashMap<String, Switched>> {
    let mut rendered = HashMap::new();
    let max_id = mutants.len() as u32;
    for file in files {
        let in_file: Vec<(u32, &Mutant)> = plan
            .switched
            .iter()
            .filter(|&&i| mutants[i].source_file.path == file.path)
            .map(|&i| (i as u32 + 1, &*mutants[i]))
            .collect();
        let unconst: Vec<Range<usize>> = plan
            .unconst
            .get(&file.path)
            .map(|fns| fns.iter().map(|(_, keyword)| keyword.clone()).collect())
            .unwrap_or_default();
        let uses: Vec<(u32, &Mutant, Range<usize>)> = plan
            .const_uses
            .get(&file.path)
            .map(|(_, uses)| {
                uses.iter()
                    .filter(|(index, _)| plan.switched.contains(index))
                    .map(|(index, range)| (*index as u32 + 1, &*mutants[*index], range.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let switched = render::render(&file.original, &in_file, &uses, &unconst);
        for id in &switched.rejected {
            let index = *id as usize - 1;
            plan.switched.remove(&index);
            plan.alone
                .insert(index, "its switch site overlaps another's".to_owned());
        }
        let mut text = switched.text.clone();
        if file.crate_root {
            text.push_str(&render::runtime_module(max_id));
        }
        let path = root.join(&file.path);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        rendered.insert(file.path.clone(), switched);
    }
    Ok(rendered)
}

/// Writes the original text of every switched file back.
fn restore(root: &Path, files: &[SwitchedFile]) -> Result<()> {
    for file in files {
        let path = root.join(&file.path);
        std::fs::write(&path, file.original.as_bytes())
            .with_context(|| format!("cannot restore {}", path.display()))?;
    }
    Ok(())
}

/// The name of the const fn whose mutant `mutant` is, when its switch
/// removes that function's `const`: the last segment of its path.
fn unconst_name(mutant: &Mutant) -> Option<&str> {
    if !matches!(mutant.switch, Switch::Unconst { .. }) {
        return None;
    }
    let function = mutant.function.as_ref()?;
    function.function_name.rsplit("::").next()
}

/// The function that rustc says cannot be called at compile time, from
/// an E0015 error (`cannot call non-const method `S::m` in constants`):
/// the last segment of its path, generic arguments left out.
fn non_const_callee(rendered: &str) -> Option<&str> {
    let rest = rendered.strip_prefix("error[E0015]: cannot call non-const ")?;
    let path = rest.split('`').nth(1)?;
    let last = path.rsplit("::").next()?;
    Some(last.split('<').next().unwrap_or(last))
}

/// The mutants that the errors point to, each with the error's text;
/// `None` when some error points to no switched file. An error that a
/// function whose `const` the build removed cannot be called at compile
/// time points to that function's switched mutants, wherever it is, and
/// the function keeps its `const` in the next round.
fn blame(
    rendered: &HashMap<String, Switched>,
    errors: &[messages::CompilerError],
    (root, mutants, plan): (&Path, &[Arc<Mutant>], &mut Plan),
) -> Option<Vec<(u32, String)>> {
    let mut blamed = Vec::new();
    let mut kept_const = false;
    for error in errors {
        if let Some(callee) = non_const_callee(&error.rendered) {
            let ids: Vec<u32> = plan
                .switched
                .iter()
                .filter(|&&index| unconst_name(&mutants[index]) == Some(callee))
                .map(|&index| index as u32 + 1)
                .collect();
            let mut keeps = false;
            for fns in plan.unconst.values_mut() {
                let before = fns.len();
                fns.retain(|(name, _)| name != callee);
                keeps |= fns.len() != before;
            }
            kept_const |= keeps;
            if keeps || !ids.is_empty() {
                blamed.extend(ids.into_iter().map(|id| (id, error.rendered.clone())));
                continue;
            }
        }
        let ids = error.places.iter().find_map(|(file, offset)| {
            let relative = Path::new(file)
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| file.clone());
            rendered.get(&relative).map(|s| s.blame(*offset))
        });
        if error.places.is_empty() && error.rendered.contains("aborting due to") {
            continue;
        }
        blamed.extend(ids?.into_iter().map(|id| (id, error.rendered.clone())));
    }
    (kept_const || !blamed.is_empty()).then_some(blamed)
}

/// Filters for the doctests (of those named `names`, which passed in the
/// baseline) to run before all of a runner's doctests, which rustdoc
/// compiles one by one: the item of the doctest that caught the function's
/// last mutant (`killer`, if it is one of this runner's, key `runner`),
/// else the function itself if a doctest documents it (`Either<L,R>::is_left`
/// for `Either<L, R>::is_left`, from `src/lib.rs - Either<L,R>::is_left
/// (line 233)`; a filter is a substring, so `is_left_or`'s run too). A
/// mutant they catch needs no other doctest compiled; one they do not
/// catch runs them all after, so no verdict changes.
fn doctests_first(
    names: &[String],
    function: Option<&crate::mutate::Function>,
    killer: Option<Killer>,
    runner: &str,
) -> Vec<String> {
    let item = doctest_item;
    if let Some(killer) = killer.filter(|k| k.binary == runner) {
        if let Some(item) = names
            .contains(&killer.test)
            .then(|| item(&killer.test))
            .flatten()
        {
            return vec![item];
        }
    }
    let Some(function) = function else {
        return Vec::new();
    };
    let own = function
        .function_name
        .rsplit("::")
        .next()
        .unwrap_or_default();
    let mut items: Vec<String> = names
        .iter()
        .filter_map(|name| item(name))
        .filter(|item| !own.is_empty() && (item == own || item.ends_with(&format!("::{own}"))))
        .collect();
    items.dedup();
    items
}

/// The documented item of a doctest's name (`Either<L,R>::map` of
/// `src/lib.rs - Either<L,R>::map (line 300)`), when it holds no space (a
/// name filter for `cargo test --doc`, which cannot hold one).
fn doctest_item(name: &str) -> Option<String> {
    name.split_once(" - ")
        .and_then(|(_, rest)| rest.rsplit_once(" (line "))
        .map(|(item, _)| item.to_owned())
        .filter(|item| !item.is_empty() && !item.contains(char::is_whitespace))
}

/// One traced baseline run of a runner.
struct TracedRun {
    status: ProcessStatus,
    /// The doctests that passed, by name (for a doctests runner).
    passed: Vec<String>,
    /// The doctests' programs rustdoc kept (for a doctests runner).
    programs: doctests::Programs,
    duration: Duration,
    /// The CPU time it used, where measured.
    cpu: Option<Duration>,
    /// The switch ids it reached, and which tests reached each.
    reached: Reach,
    argv: Vec<String>,
}

/// Where the traced baseline runs of the tree at `root` write what they reach.
fn trace_dir(root: &Path) -> PathBuf {
    root.with_file_name("trace")
}

/// What cargo tells a test binary about its package at run time.
fn package_env(package: &Package, dir: &Path) -> Vec<(String, String)> {
    let mut env = vec![
        ("CARGO".to_owned(), cargo::cargo_bin()),
        (
            "CARGO_MANIFEST_DIR".to_owned(),
            dir.to_string_lossy().into_owned(),
        ),
        (
            "CARGO_MANIFEST_PATH".to_owned(),
            dir.join("Cargo.toml").to_string_lossy().into_owned(),
        ),
        ("CARGO_PKG_NAME".to_owned(), package.name.clone()),
        ("CARGO_PKG_VERSION".to_owned(), package.version.clone()),
    ];
    let (numbers, pre) = package
        .version
        .split_once('-')
        .unwrap_or((&package.version, ""));
    let numbers: Vec<&str> = numbers
        .split('+')
        .next()
        .unwrap_or_default()
        .split('.')
        .collect();
    for (name, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(&numbers) {
        env.push((format!("CARGO_PKG_VERSION_{name}"), (*value).to_owned()));
    }
    env.push(("CARGO_PKG_VERSION_PRE".to_owned(), pre.to_owned()));
    env
}

/// The user's test arguments: those for `cargo test` itself, and those
/// after `--`, for the test binaries.
fn split_test_args(args: &[String]) -> (&[String], &[String]) {
    match args.iter().position(|a| a == "--") {
        Some(dash) => (&args[..dash], &args[dash + 1..]),
        None => (args, &[]),
    }
}

fn join(dir: &str, file: &str) -> String {
    if dir.is_empty() {
        file.to_owned()
    } else {
        format!("{dir}/{file}")
    }
}

/// Whether `#![… name …]` appears (also inside `cfg_attr`).
fn has_inner_attribute(code: &str, name: &str) -> bool {
    code.lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with("#!["))
        .any(|line| line.contains(name))
}

/// Lints that no mutant can raise or silence: denying them cannot make a
/// switched build disagree with a mutant built alone.
const INSENSITIVE_LINTS: &[&str] = &[
    "missing_docs",
    "missing_debug_implementations",
    "missing_copy_implementations",
    "unsafe_code",
    "unsafe_op_in_unsafe_fn",
    "rust_2018_idioms",
    "elided_lifetimes_in_paths",
    "unreachable_pub",
    "non_ascii_idents",
    "unstable_features",
    "variant_size_differences",
];

/// The first lint that a `deny` or `forbid` attribute names, unless every
/// one of them is insensitive to mutants.
fn denied_lint(code: &str) -> Option<String> {
    let pattern = regex::Regex::new(r"\b(?:deny|forbid)\s*\(([^)]*)\)").expect("valid regex");
    for line in code
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('#'))
    {
        for captures in pattern.captures_iter(line) {
            for lint in captures[1]
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
            {
                let insensitive = INSENSITIVE_LINTS.contains(&lint)
                    || lint.starts_with("clippy::")
                    || lint.starts_with("rustdoc::");
                if !insensitive {
                    return Some(lint.to_owned());
                }
            }
        }
    }
    None
}

fn manifest_denies_lints(manifest: &str) -> bool {
    manifest.contains("lints") && (manifest.contains("\"deny\"") || manifest.contains("\"forbid\""))
}

/// Whether the environment's or the workspace's cargo config's rustflags
/// deny lints.
fn flags_deny_lints(root: &Path) -> bool {
    let denies = |flags: &str| {
        flags
            .split(|c: char| c.is_whitespace() || c == '\x1f' || c == '"' || c == ',')
            .any(|flag| {
                flag.starts_with("-D")
                    || flag.starts_with("-F")
                    || flag == "--deny"
                    || flag == "--forbid"
            })
    };
    let env = [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
    ]
    .iter()
    .any(|var| std::env::var(var).is_ok_and(|v| denies(&v)));
    let config = [".cargo/config.toml", ".cargo/config"]
        .iter()
        .any(|file| std::fs::read_to_string(root.join(file)).is_ok_and(|text| denies(&text)));
    env || config
}

/// The switched mutants' test runs, on a pool of threads.
struct SwitchedTests<'a> {
    lab: &'a Lab,
    root: &'a Path,
    mutants: &'a [Arc<Mutant>],
    runners: &'a [Known],
    build_phase: &'a PhaseResult,
    log_paths: &'a [PathBuf],
    /// How many other mutants share the build.
    peers: usize,
    /// The doctests' baseline, when it runs alongside the mutants' tests
    /// instead of before them.
    deferred: Option<Deferred>,
    /// The mutants that wait for the cfg verdicts before their test, and
    /// where those come from.
    cfgs: (BTreeSet<usize>, Option<Mutex<&'a mut AnalysisFeed>>),
    /// Per runner and test: whether the test passes when run alone with no
    /// mutant (a failure in a narrowed run counts only if it does).
    alone: Mutex<HashMap<(usize, String), bool>>,
}

/// The doctests' baseline run on a thread of its own while the mutants'
/// test binaries run: a mutant waits for it only when the binaries did
/// not catch it.
struct Deferred {
    log_path: PathBuf,
    state: Mutex<DeferredState>,
    ready: std::sync::Condvar,
}

/// A doctests runner that reaches a mutant: its index, baseline time, the
/// names of its doctests and which of them reached what.
type DoctestsReaching<'a> = (
    usize,
    Option<Duration>,
    &'a [String],
    Option<&'a Reach>,
    &'a doctests::Programs,
);

/// What the baseline run of a doctests runner found.
#[derive(Clone)]
struct DoctestsBaseline {
    time: Duration,
    /// The switches it reached, and which doctest reached each.
    reached: Reach,
    /// The doctests that passed, by name.
    names: Vec<String>,
    /// Their programs rustdoc kept.
    programs: doctests::Programs,
}

enum DeferredState {
    Pending,
    /// Per doctests runner: its baseline time and the switches it reached.
    Done(HashMap<usize, DoctestsBaseline>),
    Failed(Box<ScenarioOutcome>),
    Cancelled,
}

impl Deferred {
    fn new(log_path: &Path) -> Deferred {
        Deferred {
            log_path: log_path.to_owned(),
            state: Mutex::new(DeferredState::Pending),
            ready: std::sync::Condvar::new(),
        }
    }

    fn set(&self, state: DeferredState) {
        *lock(&self.state) = state;
        self.ready.notify_all();
    }

    /// Waits for the doctests' baseline: `Ok(reach)`, or `Err(true)` if it
    /// failed, `Err(false)` if it was cancelled.
    fn wait(&self) -> std::result::Result<HashMap<usize, DoctestsBaseline>, bool> {
        let mut state = lock(&self.state);
        loop {
            match &*state {
                DeferredState::Pending => {
                    state = self
                        .ready
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                DeferredState::Done(reach) => return Ok(reach.clone()),
                DeferredState::Failed(_) => return Err(true),
                DeferredState::Cancelled => return Err(false),
            }
        }
    }

    fn failure(&self) -> Option<ScenarioOutcome> {
        match &*lock(&self.state) {
            DeferredState::Failed(outcome) => Some((**outcome).clone()),
            _ => None,
        }
    }
}

/// What testing one switched mutant came to.
enum Tested {
    Outcome(Box<ScenarioOutcome>),
    /// The doctests' baseline failed: no verdict can be given.
    NoVerdict,
    Cancelled,
}

impl SwitchedTests<'_> {
    fn run(
        &self,
        indices: &[usize],
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<()> {
        let jobs = self.lab.options.jobs.max(1).min(indices.len().max(1));
        let next = AtomicUsize::new(0);
        let stop = cancel.child();
        let (sender, receiver) = mpsc::channel::<Result<Event>>();
        // Once every mutant is done, nothing waits for the doctests.
        let doctests_stop = stop.child();
        std::thread::scope(|scope| -> Result<()> {
            if let Some(deferred) = &self.deferred {
                let doctests_stop = &doctests_stop;
                scope.spawn(move || {
                    let state = self
                        .doctests_baseline(deferred, doctests_stop)
                        .unwrap_or(DeferredState::Cancelled);
                    deferred.set(state);
                });
            }
            for job in 0..jobs {
                let sender = sender.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || loop {
                    if stop.is_cancelled() {
                        return;
                    }
                    let Some(&index) = indices.get(next.fetch_add(1, Ordering::SeqCst)) else {
                        return;
                    };
                    match self.not_compiled(index, &sender) {
                        Ok(false) => {}
                        Ok(true) => continue,
                        Err(err) => {
                            stop.cancel();
                            let _ = sender.send(Err(err));
                            return;
                        }
                    }
                    let _ = sender.send(Ok(Event::MutantStarted { index, job }));
                    match self.test(index, stop) {
                        Ok(Tested::Outcome(outcome)) => {
                            let _ = sender.send(Ok(Event::MutantFinished(*outcome)));
                        }
                        Ok(Tested::NoVerdict) => {}
                        Ok(Tested::Cancelled) => return,
                        Err(err) => {
                            stop.cancel();
                            let _ = sender.send(Err(err));
                            return;
                        }
                    }
                });
            }
            drop(sender);
            let mut first_error = None;
            for event in receiver {
                match event {
                    Ok(event) => on_event(&event),
                    Err(err) => {
                        first_error.get_or_insert(err);
                    }
                }
            }
            doctests_stop.cancel();
            first_error.map_or(Ok(()), Err)
        })
    }

    /// Runs the doctests of every package once with no switch on, tracing
    /// what they reach, beside the mutants' test runs.
    fn doctests_baseline(&self, deferred: &Deferred, cancel: &Cancel) -> Result<DeferredState> {
        let mut log = File::options()
            .append(true)
            .open(&deferred.log_path)
            .with_context(|| format!("cannot open {}", deferred.log_path.display()))?;
        let mut reach = HashMap::new();
        for (number, known) in self.runners.iter().enumerate() {
            if !matches!(known.runner, Runner::Doctests(_)) {
                continue;
            }
            let Some(run) = self.lab.traced_run(
                known,
                number,
                self.root,
                (&mut log, &deferred.log_path),
                cancel,
            )?
            else {
                return Ok(DeferredState::Cancelled);
            };
            let TracedRun {
                status,
                duration,
                reached,
                argv,
                passed,
                programs,
                ..
            } = run;
            if !status.is_success() {
                return Ok(DeferredState::Failed(Box::new(ScenarioOutcome {
                    scenario: Scenario::Baseline,
                    log_path: deferred.log_path.clone(),
                    phase_results: vec![
                        self.build_phase.clone(),
                        PhaseResult {
                            phase: Phase::Test,
                            duration,
                            process_status: status,
                            argv,
                        },
                    ],
                    judged: None,
                })));
            }
            let names = passed;
            reach.insert(
                number,
                DoctestsBaseline {
                    time: duration,
                    reached,
                    names,
                    programs,
                },
            );
        }
        Ok(DeferredState::Done(reach))
    }

    /// For a mutant that waits for the cfg verdicts: waits, and reports
    /// it if its code is not compiled for this target (true).
    fn not_compiled(&self, index: usize, sender: &mpsc::Sender<Result<Event>>) -> Result<bool> {
        let (gated, Some(feed)) = &self.cfgs else {
            return Ok(false);
        };
        if !gated.contains(&index) {
            return Ok(false);
        }
        let mut send = |event: &Event| {
            let _ = sender.send(Ok(event.clone()));
        };
        let judged = lock(feed).cfgs(&mut send).judged(index);
        let Some(judged) = judged else {
            return Ok(false);
        };
        let mutant = (index, &self.mutants[index]);
        super::report_judged(mutant, self.log_paths[index].clone(), judged, &mut send)?;
        Ok(true)
    }

    /// Tests one switched mutant.
    fn test(&self, index: usize, cancel: &Cancel) -> Result<Tested> {
        let mutant = &self.mutants[index];
        let id = index as u32 + 1;
        let log_path = &self.log_paths[index];
        let mut log = process::create_log(log_path)?;
        writeln!(
            log,
            "*** {}\n\n*** mutation diff:\n{}\n*** compile-once: switch {id}, built once with {} other mutants",
            mutant.name,
            mutant.diff(),
            self.peers
        )?;
        if matches!(mutant.switch, Switch::CrateConst { .. }) {
            writeln!(
                log,
                "*** its const item has a copy holding the mutant in the switched build, and each use chooses one of them"
            )?;
        }
        if let Some(name) = unconst_name(mutant) {
            writeln!(
                log,
                "*** its const fn `{name}` is a plain fn in the switched build: nothing calls it at compile time"
            )?;
        }
        let packages = self
            .lab
            .tested_packages([mutant.source_file.package.as_str()]);
        let in_scope: Vec<usize> = (0..self.runners.len())
            .filter(|&r| packages.contains(&self.runners[r].package))
            .collect();
        let reaches_site = |r: usize, site: u32| {
            self.runners[r]
                .reached
                .as_ref()
                .is_none_or(|reach| reach.all.contains(&site))
        };
        // A site no test reached, in a function some test entered: a test
        // whose path varies from run to run (random input) may reach it
        // next time, as it may in cargo-mutants' run: the tests that
        // entered the function stand in for those that reach the site.
        let mut site = id;
        if !in_scope.iter().any(|&r| reaches_site(r, id)) {
            let entered = self
                .function_entries(index)
                .into_iter()
                .find(|&entry| in_scope.iter().any(|&r| reaches_site(r, entry)));
            if let Some(entry) = entered {
                writeln!(
                    log,
                    "\n*** no test reached this mutant's code in the baseline run, but tests entered its function (switch {entry}): those run"
                )?;
                site = entry;
            }
        }
        let reaches = |r: usize| reaches_site(r, site);
        let binaries: Vec<usize> = in_scope
            .iter()
            .copied()
            .filter(|&r| matches!(self.runners[r].runner, Runner::Binary(_)) && reaches(r))
            .collect();
        let mut test_phase = PhaseResult {
            phase: Phase::Test,
            duration: Duration::ZERO,
            process_status: ProcessStatus::Success,
            argv: Vec::new(),
        };
        let function_key = mutant
            .function
            .as_ref()
            .map(|f| format!("{}::{}", mutant.source_file.path, f.function_name));
        let killer = function_key
            .as_ref()
            .and_then(|key| self.lab.killers.get(key))
            .and_then(|killer| {
                let runner = binaries
                    .iter()
                    .copied()
                    .find(|&r| self.runners[r].key() == killer.binary)?;
                // Not when the baseline saw that this test does not reach it.
                match &self.runners[runner].reached {
                    Some(reach)
                        if reach.pinned(site) && !reach.test_reaches(&killer.test, site) =>
                    {
                        None
                    }
                    _ => Some((runner, killer.test)),
                }
            });
        // The killer, then the tests each binary ran that reach the mutant
        // (quick ones first), then the whole binaries.
        let mut order: Vec<(usize, Vec<String>, Option<Duration>)> = Vec::new();
        if let Some((runner, test)) = &killer {
            order.push((*runner, vec![test.clone()], self.runners[*runner].baseline));
        }
        // (Not for a site the baseline never reached: they would rarely
        // catch what the whole binary then runs anyway.)
        let narrowing = if site == id { binaries.as_slice() } else { &[] };
        for &r in narrowing {
            let Some(reach) = &self.runners[r].reached else {
                continue;
            };
            let already = killer
                .as_ref()
                .filter(|(runner, _)| *runner == r)
                .map(|(_, test)| test.as_str());
            for tests in reach.narrow_runs(id, already) {
                order.push((r, tests, self.runners[r].baseline));
            }
        }
        order.extend(
            binaries
                .iter()
                .map(|&r| (r, Vec::new(), self.runners[r].baseline)),
        );
        let mut ran = false;
        if let Some(tested) = self.run_in_order(
            &order,
            (id, cancel),
            (&mut log, log_path),
            (&mut test_phase, &function_key, &mut ran),
        )? {
            return Ok(tested);
        }
        // Doctests (which rustdoc compiles anew each time) last, only when
        // the binaries did not catch the mutant and they reach it.
        if test_phase.process_status.is_success() {
            let doctests: Vec<usize> = in_scope
                .iter()
                .copied()
                .filter(|&r| matches!(self.runners[r].runner, Runner::Doctests(_)))
                .collect();
            let reaching: Vec<DoctestsReaching>;
            let deferred_reach;
            match &self.deferred {
                Some(deferred) if !doctests.is_empty() => match deferred.wait() {
                    Ok(reach) => {
                        deferred_reach = reach;
                        reaching = doctests
                            .iter()
                            .filter_map(|r| {
                                let baseline = deferred_reach.get(r)?;
                                baseline.reached.all.contains(&site).then_some((
                                    *r,
                                    Some(baseline.time),
                                    baseline.names.as_slice(),
                                    Some(&baseline.reached),
                                    &baseline.programs,
                                ))
                            })
                            .collect();
                    }
                    Err(true) => {
                        writeln!(log, "\n*** the unmutated doctests fail: no verdict")?;
                        return Ok(Tested::NoVerdict);
                    }
                    Err(false) => return Ok(Tested::Cancelled),
                },
                _ => {
                    reaching = doctests
                        .iter()
                        .filter(|&&r| reaches(r))
                        .map(|&r| {
                            let known = &self.runners[r];
                            let names = known.doctest_names.as_slice();
                            let programs = &known.doctest_programs;
                            (r, known.baseline, names, known.reached.as_ref(), programs)
                        })
                        .collect();
                }
            }
            let mut order: Vec<(usize, Vec<String>, Option<Duration>)> = Vec::new();
            let mut kept = Vec::new();
            for (r, time, names, reach, programs) in reaching {
                // The programs rustdoc kept of the doctests that reached
                // it, when every one has its program: no compiling.
                let wrappers = reach.and_then(|reach| reach.doctest_wrappers_reaching(site));
                if let Some(found) = wrappers
                    .filter(|w| !w.is_empty())
                    .and_then(|w| programs.of(&w))
                {
                    kept.push((r, found));
                    continue;
                }
                // Each doctest is a program of its own: those that did not
                // reach the mutant's code cannot catch it.
                let narrowed: Option<Vec<String>> = reach
                    .and_then(|reach| reach.doctests_reaching(site, names))
                    .filter(|docs| !docs.is_empty())
                    .and_then(|docs| docs.iter().map(|name| doctest_item(name)).collect());
                if let Some(mut items) = narrowed {
                    items.sort_unstable();
                    items.dedup();
                    writeln!(
                        log,
                        "\n*** the doctests that reached this code in the baseline run: {}",
                        items.join(", ")
                    )?;
                    order.push((r, items, time));
                    continue;
                }
                let first = doctests_first(
                    names,
                    mutant.function.as_deref(),
                    function_key
                        .as_ref()
                        .and_then(|key| self.lab.killers.get(key)),
                    &self.runners[r].key(),
                );
                if !first.is_empty() {
                    order.push((r, first, time));
                }
                order.push((r, Vec::new(), time));
            }
            for (r, found) in kept {
                if let Some(tested) = self.run_kept_doctests(
                    r,
                    &found,
                    (id, cancel),
                    &mut log,
                    (&mut test_phase, &mut ran),
                )? {
                    return Ok(tested);
                }
            }
            if let Some(tested) = self.run_in_order(
                &order,
                (id, cancel),
                (&mut log, log_path),
                (&mut test_phase, &function_key, &mut ran),
            )? {
                return Ok(tested);
            }
        }
        let mut phase_results = vec![PhaseResult {
            duration: Duration::ZERO,
            ..self.build_phase.clone()
        }];
        if ran {
            phase_results.push(test_phase);
        } else {
            writeln!(
                log,
                "\n*** no test reached this mutant's code in the baseline run: it is missed, and no test ran"
            )?;
        }
        Ok(Tested::Outcome(Box::new(ScenarioOutcome {
            scenario: Scenario::Mutant {
                index,
                mutant: Arc::clone(mutant),
            },
            log_path: log_path.clone(),
            phase_results,
            judged: None,
        })))
    }

    /// The switch ids of the mutants that replace the whole body of mutant
    /// `index`'s function (their site runs whenever the function is
    /// entered; some may have left the switched build).
    fn function_entries(&self, index: usize) -> Vec<u32> {
        let Some(function) = self.mutants[index].function.as_ref() else {
            return Vec::new();
        };
        let path = &self.mutants[index].source_file.path;
        (0..self.mutants.len())
            .filter(|&j| {
                let m = &self.mutants[j];
                matches!(m.switch.inner(), Switch::Expression { body: true, .. })
                    && &m.source_file.path == path
                    && m.function.as_ref().is_some_and(|f| f.span == function.span)
            })
            .map(|j| j as u32 + 1)
            .collect()
    }

    /// Whether `test` of `runner` passes when run alone with no mutant on
    /// (run once per test, into `log`); `None` when cancelled.
    fn passes_alone(
        &self,
        (runner, test): (usize, &str),
        log: &mut File,
        cancel: &Cancel,
    ) -> Result<Option<bool>> {
        let key = (runner, test.to_owned());
        if let Some(&passes) = lock(&self.alone).get(&key) {
            return Ok(Some(passes));
        }
        writeln!(
            log,
            "\n*** does {test} pass alone without the mutant? (asked once per test)"
        )?;
        let known = &self.runners[runner];
        let (argv, cwd, env) = self.lab.command_of(known, self.root, 0, &[test.to_owned()]);
        let spec = Spec {
            argv: &argv,
            env: &env,
            cwd: &cwd,
            timeout: Some(self.lab.options.timeouts.binary_timeout(known.baseline)),
            cpu_timeout: None,
            niceness: self.lab.options.niceness,
        };
        let Ended::Status(status) = process::run(&spec, log, None, cancel)? else {
            return Ok(None);
        };
        lock(&self.alone).insert(key, status.is_success());
        Ok(Some(status.is_success()))
    }

    /// Runs the doctests' programs `found` (of doctests runner `r`, each
    /// with its time alone) one by one with switch `id` on, as rustdoc runs
    /// them, until one fails, into `test_phase`. `Some` only when cancelled.
    fn run_kept_doctests(
        &self,
        r: usize,
        found: &[(&str, &Path, Duration)],
        (id, cancel): (u32, &Cancel),
        log: &mut File,
        (test_phase, ran): (&mut PhaseResult, &mut bool),
    ) -> Result<Option<Tested>> {
        let known = &self.runners[r];
        let names: Vec<&str> = found
            .iter()
            .map(|(w, ..)| w.trim_start_matches("_doctest_main_"))
            .collect();
        writeln!(
            log,
            "\n*** the doctests that reached this code in the baseline run, from the programs rustdoc kept: {}",
            names.join(", ")
        )?;
        let (dir, env) = self.lab.doctest_program_context(known, self.root, id);
        for (_, program, alone) in found {
            if !test_phase.process_status.is_success() {
                break;
            }
            let argv = vec![program.to_string_lossy().into_owned()];
            let spec = Spec {
                argv: &argv,
                env: &env,
                cwd: &dir,
                timeout: Some(self.lab.options.timeouts.binary_timeout(Some(*alone))),
                cpu_timeout: None,
                niceness: self.lab.options.niceness,
            };
            if !run_test_command(&spec, (log, cancel), (test_phase, ran))? {
                return Ok(Some(Tested::Cancelled));
            }
        }
        Ok(None)
    }

    /// Runs `order` (runner, exact test, baseline time) with switch `id` on
    /// until one fails, into `test_phase`; remembers the test that caught
    /// the mutant for its function. `Some` only when cancelled.
    fn run_in_order(
        &self,
        order: &[(usize, Vec<String>, Option<Duration>)],
        (id, cancel): (u32, &Cancel),
        (log, log_path): (&mut File, &Path),
        (test_phase, function_key, ran): (&mut PhaseResult, &Option<String>, &mut bool),
    ) -> Result<Option<Tested>> {
        for (runner, exact, baseline) in order {
            if !test_phase.process_status.is_success() {
                break;
            }
            let known = &self.runners[*runner];
            let (argv, cwd, env) = self.lab.command_of(known, self.root, id, exact);
            let timeouts = &self.lab.options.timeouts;
            let (timeout, cpu_timeout) = match known.runner {
                Runner::Binary(_) => (
                    timeouts.binary_timeout(*baseline),
                    timeouts.binary_cpu_timeout(known.baseline_cpu),
                ),
                Runner::Doctests(_) => (timeouts.test_timeout(*baseline), None),
            };
            let spec = Spec {
                argv: &argv,
                env: &env,
                cwd: &cwd,
                timeout: Some(timeout),
                cpu_timeout,
                niceness: self.lab.options.niceness,
            };
            let before = log.metadata().map(|m| m.len()).unwrap_or(0);
            if !run_test_command(&spec, (log, cancel), (test_phase, ran))? {
                return Ok(Some(Tested::Cancelled));
            }
            if let ProcessStatus::Failure(_) = test_phase.process_status {
                let text = std::fs::read_to_string(log_path).unwrap_or_default();
                let failed =
                    crate::outcome::failing_tests(text.get(before as usize..).unwrap_or_default());
                let narrowed = !exact.is_empty() && matches!(known.runner, Runner::Binary(_));
                if let Some(test) = failed.first().filter(|_| narrowed) {
                    let Some(passes) = self.passes_alone((*runner, test), log, cancel)? else {
                        return Ok(Some(Tested::Cancelled));
                    };
                    if !passes {
                        writeln!(
                            log,
                            "\n*** {test} fails when run alone without the mutant too: this run says nothing of the mutant"
                        )?;
                        test_phase.process_status = ProcessStatus::Success;
                        continue;
                    }
                }
                let Some(key) = function_key else {
                    continue;
                };
                if let Some(test) = failed.into_iter().next() {
                    let killer = Killer {
                        binary: known.key(),
                        test,
                    };
                    self.lab.killers.record(key.clone(), killer);
                }
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denied_lints_that_mutants_can_change_are_found() {
        assert_eq!(
            denied_lint("#![deny(missing_docs, clippy::all)]\nfn f() {}"),
            None
        );
        assert_eq!(
            denied_lint("#![deny(missing_docs)]\n#![cfg_attr(test, forbid(unused_variables))]"),
            Some("unused_variables".to_owned())
        );
        assert_eq!(
            denied_lint("#![deny(warnings)]"),
            Some("warnings".to_owned())
        );
        assert_eq!(denied_lint("// deny(warnings)\nfn f() {}"), None);
    }

    #[test]
    fn the_doctests_first_are_the_last_killers_else_the_functions_own() {
        let names: Vec<String> = [
            "src/lib.rs - Either<L,R>::is_left (line 233)",
            "src/lib.rs - Either<L,R>::is_left_or (line 250)",
            "src/lib.rs - is_even (line 8)",
            "src/lib.rs - Either<L,R>::map (line 300)",
            "src/lib.rs - <Either<L, R> as Iterator>::next (line 20)",
        ]
        .map(str::to_owned)
        .to_vec();
        let function = |name: &str| crate::mutate::Function {
            function_name: name.to_owned(),
            return_type: String::new(),
            span: crate::position::Span {
                start: crate::position::LineColumn { line: 1, column: 1 },
                end: crate::position::LineColumn { line: 1, column: 1 },
            },
        };
        let first = |f: &str, killer: Option<Killer>| {
            doctests_first(&names, Some(&function(f)), killer, "demo doctests")
        };
        assert_eq!(
            first("Either<L, R>::is_left", None),
            ["Either<L,R>::is_left"]
        );
        assert_eq!(first("is_even", None), ["is_even"]);
        assert_eq!(first("Either<L, R>::unwrap", None), Vec::<String>::new());
        // A name with spaces cannot be a filter: rustdoc splits at them.
        assert_eq!(
            first("<impl Iterator for Either<L, R>>::next", None),
            Vec::<String>::new()
        );
        let killer = |binary: &str, test: &str| {
            Some(Killer {
                binary: binary.to_owned(),
                test: test.to_owned(),
            })
        };
        let map_killer = killer("demo doctests", "src/lib.rs - Either<L,R>::map (line 300)");
        assert_eq!(
            first("Either<L, R>::is_left", map_killer),
            ["Either<L,R>::map"]
        );
        // Another runner's killer, or a doctest gone since: the function's own.
        let elsewhere = killer("demo lib", "src/lib.rs - Either<L,R>::map (line 300)");
        assert_eq!(first("is_even", elsewhere), ["is_even"]);
        let gone = killer("demo doctests", "src/lib.rs - Either<L,R>::map (line 1)");
        assert_eq!(first("is_even", gone), ["is_even"]);
    }

    #[test]
    fn test_arguments_split_at_the_double_dash() {
        let args: Vec<String> = ["--lib", "--", "--test-threads=1"]
            .map(String::from)
            .to_vec();
        let (before, after) = split_test_args(&args);
        assert_eq!(before, ["--lib"]);
        assert_eq!(after, ["--test-threads=1"]);
    }
}
