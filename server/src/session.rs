//! A long-lived testing session over one workspace, for the language
//! server: it knows which package owns each source file, keeps one warm
//! `Lab` across saves, runs the baseline again whenever the tree changed,
//! and tests the mutants of one file at a time. It knows nothing of LSP.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::cache::Cache;
use crate::config::Config;
use crate::lab::cargo::TestScope;
use crate::lab::{Cancel, Event, Lab, LabOptions, Strategy};
use crate::mutate::{self, Edition, Mutant, SourceFile};
use crate::options::{Options, SelectionArgs};
use crate::outcome::{ScenarioOutcome, Verdict};
use crate::semantic::{self, Readiness, WarmModel};
use crate::sources;
use crate::workspace::{PackageSelection, Workspace};

/// The package and edition of a source file that some target compiles,
/// and the path its mutants are named by (cargo-mutants' name: a file
/// reached through `#[path = "../x.rs"]` is `src/dir/../x.rs`).
#[derive(Debug, Clone)]
struct FileOwner {
    package: String,
    edition: Edition,
    name: String,
}

pub struct Session {
    workspace: Workspace,
    /// `.cargo/mutants.toml` as last read, and the options made from it.
    config: Config,
    options: Options,
    lab_options: LabOptions,
    /// By the file's normalised relative path (`src/x.rs`), as a saved
    /// file's path gives it.
    owners: HashMap<String, FileOwner>,
    /// How each file is declared (the cfgs on its `mod` chains).
    declarations: sources::Declarations,
    /// rust-analyzer's model of the lab's first scratch tree, when the
    /// analysis is on. Declared before `lab`: dropped (joined) before the
    /// tree it reads goes.
    model: Option<WarmModel>,
    /// Whether the analysis is wanted.
    analysis: bool,
    /// The model's readiness last told (`analysis_news`).
    told: Option<Readiness>,
    lab: Option<Lab>,
    /// Packages whose unmutated tests passed on the scratch trees as they
    /// are now; emptied whenever a sync changes them.
    baseline_passed: HashSet<String>,
    /// The text of each function when its mutants were last tested, by
    /// file and function name.
    function_texts: HashMap<(String, String), String>,
    /// Verdicts by what they depend on, kept across sessions.
    cache: Cache,
    /// Fingerprints of the context a mutant of each package is tested in,
    /// until the disk is read again (`mutants_of`, `test`).
    context_fingerprints: HashMap<String, String>,
}

/// How a `test_file` call ended.
#[derive(Debug)]
pub enum TestRun {
    /// Every mutant got a verdict (streamed as events).
    Done(Vec<ScenarioOutcome>),
    /// The unmutated tree fails its tests: no mutant was tested.
    BaselineFailed(ScenarioOutcome),
    Cancelled,
}

impl Session {
    /// Opens the cargo workspace containing `dir` and maps its source files.
    /// `lab_options.log_dir` is where scenario logs go.
    pub fn open(dir: &Path, lab_options: LabOptions) -> Result<Session> {
        let workspace = Workspace::open(dir)?;
        let workspace_root = workspace.root.clone();
        // An invalid config file does not keep the session from opening:
        // it starts from the defaults, and `reload_config` reports the
        // error (and picks the file up once it is fixed).
        let config = Config::read_workspace(&workspace.root).unwrap_or_default();
        let (config, options) = match Options::new(&SelectionArgs::default(), &config) {
            Ok(options) => (config, options),
            Err(_) => {
                let defaults = Config::default();
                let options = Options::new(&SelectionArgs::default(), &defaults)?;
                (defaults, options)
            }
        };
        let mut session = Session {
            workspace,
            config,
            options,
            lab_options,
            owners: HashMap::new(),
            declarations: sources::Declarations::default(),
            model: None,
            analysis: true,
            told: None,
            lab: None,
            baseline_passed: HashSet::new(),
            function_texts: HashMap::new(),
            cache: Cache::load(&workspace_root),
            context_fingerprints: HashMap::new(),
        };
        session.map_files()?;
        Ok(session)
    }

    pub fn root(&self) -> &Path {
        &self.workspace.root
    }

    /// `.cargo/mutants.toml` as last read.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Reads `.cargo/mutants.toml` again; true when it changed, in which
    /// case the mutant options follow it at once (the caller decides about
    /// the lab's). An invalid file is an error and the old options stay.
    pub fn reload_config(&mut self) -> Result<bool> {
        let config = Config::read_workspace(&self.workspace.root)?;
        if config == self.config {
            return Ok(false);
        }
        self.options = Options::new(&SelectionArgs::default(), &config)?;
        self.config = config;
        self.map_files()?;
        Ok(true)
    }

    /// Walks every package's module tree to learn which package owns which
    /// file.
    fn map_files(&mut self) -> Result<()> {
        let packages = self
            .workspace
            .select(&PackageSelection::Workspace, &self.workspace.root)?;
        let discovered = sources::discover(
            &self.workspace,
            &packages,
            &self.options.generate,
            &self.options.filter,
        )?;
        self.owners = discovered
            .files
            .iter()
            .map(|file| {
                let owner = FileOwner {
                    package: file.package.clone(),
                    edition: file.edition,
                    name: file.path.clone(),
                };
                (sources::file_key(&file.path), owner)
            })
            .collect();
        self.declarations = discovered.declarations;
        Ok(())
    }

    /// The workspace-relative path of `path`, if it is inside.
    pub fn relative_path(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.workspace.root).ok()?;
        Some(relative.to_string_lossy().replace('\\', "/"))
    }

    /// The absolute path of the file that `name`, a relative path or the
    /// path in a mutant's name (`src/dir/../x.rs`), refers to.
    pub fn file_path(&self, name: &str) -> PathBuf {
        self.workspace.root.join(sources::file_key(name))
    }

    /// The mutants of one file as it is on disk now; empty for a file no
    /// target compiles (a test file, a script). A new file is looked for
    /// once more in the module tree. `relative` may be the file's path
    /// (`src/x.rs`) or the name its mutants carry (`src/dir/../x.rs`).
    pub fn mutants_of(&mut self, relative: &str) -> Result<Vec<Arc<Mutant>>> {
        // The disk is looked at again: context fingerprints taken before
        // may be stale (a saved file can hold tests too).
        self.context_fingerprints.clear();
        let key = sources::file_key(relative);
        if !self.owners.contains_key(&key) {
            self.map_files()?;
        }
        let Some(owner) = self.owners.get(&key) else {
            return Ok(Vec::new());
        };
        let relative = owner.name.as_str();
        if !self.options.filter.allows_file(relative) {
            return Ok(Vec::new());
        }
        let path = self.workspace.root.join(relative);
        let bytes = std::fs::read(&path).with_context(|| format!("cannot read {relative}"))?;
        let code = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("{relative} is not UTF-8 text; it is not mutated"))?;
        let source_file = Arc::new(SourceFile {
            package: owner.package.clone(),
            path: relative.to_owned(),
            code: code.into(),
            edition: owner.edition,
        });
        let generated = mutate::generate(&source_file, &self.options.generate);
        // A file saved mid-edit does not build: testing its mutants would
        // only find them all unviable. Wait for a save that parses.
        if let Some(first) = generated
            .warnings
            .iter()
            .find(|w| w.message.contains("syntax error"))
        {
            bail!("{first}; its mutants are tested once it parses");
        }
        let mutants: Vec<Arc<Mutant>> = generated.mutants.into_iter().map(Arc::new).collect();
        let mutants = self.with_own_stubs(mutants);
        Ok(mutants
            .into_iter()
            .filter(|m| self.options.filter.allows_name(&m.name))
            .collect())
    }

    /// `mutants` (of one file) with mutiny's own stubs, once the model is
    /// loaded, unless `.cargo/mutants.toml` says `own_stubs = false`.
    fn with_own_stubs(&self, mutants: Vec<Arc<Mutant>>) -> Vec<Arc<Mutant>> {
        let Some(model) = self
            .model
            .as_ref()
            .filter(|_| self.config.own_stubs != Some(false))
        else {
            return mutants;
        };
        let own = model.own_stubs(&mutants);
        let own = own.into_iter().map(|(at, m)| (at, Arc::new(m))).collect();
        mutate::with_own_stubs(mutants, own)
    }

    /// Tests `mutants` (of files as they are on disk now) in the warm lab:
    /// syncs the scratch trees with the user's tree, runs the baseline if it
    /// has not passed yet, then the mutants, streaming events.
    pub fn test(
        &mut self,
        mutants: &[Arc<Mutant>],
        cancel: &Cancel,
        on_event: &mut dyn FnMut(&Event),
    ) -> Result<TestRun> {
        self.context_fingerprints.clear();
        let packages: HashSet<String> = mutants
            .iter()
            .map(|m| m.source_file.package.clone())
            .collect();
        for package in &packages {
            self.context_fingerprint(package);
        }
        if let Some(lab) = &mut self.lab {
            // Any change can make the unmutated tests fail (a test
            // edited, or code it checks): the baseline must pass again
            // before a verdict means anything.
            let changed = lab.sync()?;
            if !changed.is_empty() {
                self.baseline_passed.clear();
                self.follow_changes(&changed)?;
            }
        }
        self.lab()?;
        // Judged on the model's thread while the lab builds; not at all
        // while the model loads.
        let analysed = self.model.as_ref().and_then(|model| {
            model.judge(mutants, semantic::cfg_places(mutants, &self.declarations))
        });
        let lab = self.lab.as_mut().expect("the lab is there");
        let compile_once = self.lab_options.strategy == Strategy::CompileOnce;
        // A failed baseline is retried on every call: the user may have
        // fixed the tests since. (Compile-once runs its own baseline on the
        // switched build of every batch: it learns there which tests reach
        // which mutants.)
        let untested: HashSet<String> = packages
            .into_iter()
            .filter(|p| !self.baseline_passed.contains(p))
            .collect();
        if !untested.is_empty() && !compile_once {
            match lab.baseline(mutants, cancel, on_event)? {
                None => return Ok(TestRun::Cancelled),
                Some(outcome) if outcome.success() => {
                    self.baseline_passed.extend(untested.iter().cloned())
                }
                Some(outcome) => return Ok(TestRun::BaselineFailed(outcome)),
            }
        }
        let cache = &mut self.cache;
        let fingerprints = &self.context_fingerprints;
        let mut outcomes = Vec::new();
        let mut remember = |event: &Event| {
            if let Event::MutantFinished(outcome) = event {
                let mutant = outcome.scenario.mutant();
                let context = mutant.and_then(|m| fingerprints.get(&m.source_file.package));
                if let (Some(mutant), Some(context), Some(verdict)) =
                    (mutant, context, outcome.verdict())
                {
                    cache.insert(mutant, context, verdict);
                }
                outcomes.push(outcome.clone());
            }
            on_event(event);
        };
        if compile_once {
            if let Some(failed) = lab.run(mutants, analysed, cancel, &mut remember)? {
                return Ok(TestRun::BaselineFailed(failed));
            }
            self.baseline_passed.extend(untested);
        } else {
            lab.test(mutants, cancel, &mut remember)?;
        }
        // The results are a head start for the next session; failing to
        // keep them costs only time.
        self.cache.set_killers(lab.killers().snapshot());
        let _ = self.cache.save();
        if cancel.is_cancelled() {
            return Ok(TestRun::Cancelled);
        }
        Ok(TestRun::Done(outcomes))
    }

    /// The lab, copying the workspace into its first scratch tree if there
    /// is none yet.
    fn lab(&mut self) -> Result<&mut Lab> {
        if self.lab.is_none() {
            let lab = Lab::new(&self.workspace, self.lab_options.clone())?;
            lab.killers().learn(self.cache.killers().clone());
            self.lab = Some(lab);
            self.start_model();
        }
        Ok(self.lab.as_mut().expect("the lab was just made"))
    }

    /// Starts loading rust-analyzer's model of the lab's scratch tree, if
    /// the analysis is wanted and there is none. Only compile-once runs
    /// take its verdicts.
    fn start_model(&mut self) {
        let wanted = self.analysis && self.lab_options.strategy == Strategy::CompileOnce;
        match (&self.lab, &self.model) {
            (Some(lab), None) if wanted => {
                self.told = None;
                self.model = Some(WarmModel::start(
                    lab.scratch_root().to_owned(),
                    lab.cargo_options().clone(),
                    lab.analysis_build(),
                ));
            }
            _ => {}
        }
    }

    /// Turns rust-analyzer's analysis on or off: off, the model goes (and
    /// every mutant is built); on, it loads beside the lab.
    pub fn set_analysis(&mut self, on: bool) {
        self.analysis = on;
        if on {
            self.start_model();
        } else {
            self.model = None;
        }
    }

    /// Files of the scratch tree changed (relative paths): the model takes
    /// their text, and the map of declarations is redone (a `mod` line or
    /// its cfg may have changed).
    fn follow_changes(&mut self, changed: &[PathBuf]) -> Result<()> {
        let Some(model) = &self.model else {
            return Ok(());
        };
        let paths: Vec<String> = changed
            .iter()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        let sources_changed = paths.iter().any(|p| p.ends_with(".rs"));
        model.changed(paths);
        if sources_changed {
            self.map_files()?;
        }
        Ok(())
    }

    /// Brings the scratch copy (and with it rust-analyzer's model) up to
    /// date with files changed outside the editor; nothing if there is no
    /// lab yet (it copies the tree as it is when made).
    pub fn follow_external_changes(&mut self) -> Result<()> {
        let Some(lab) = &mut self.lab else {
            return Ok(());
        };
        let changed = lab.sync()?;
        if !changed.is_empty() {
            self.baseline_passed.clear();
            self.follow_changes(&changed)?;
        }
        Ok(())
    }

    /// What changed about the model since last asked, in a line for the
    /// user: loaded (and how long it took), or not to be had (and why).
    pub fn analysis_news(&mut self) -> Option<String> {
        let readiness = self.model.as_ref()?.readiness();
        if self.told.as_ref() == Some(&readiness) {
            return None;
        }
        self.told = Some(readiness.clone());
        match readiness {
            Readiness::Loading => None,
            Readiness::Ready(took) => Some(format!(
                "mutiny: rust-analyzer loaded the workspace in {:.1} s: mutants it shows \
                 cannot compile, or whose code this target does not compile, are no longer built",
                took.as_secs_f64()
            )),
            Readiness::Unavailable(why) => Some(format!("mutiny: {why}; every mutant is built")),
        }
    }

    /// The return type of each mutant's function as rust-analyzer resolves
    /// it, where the model is loaded and knows it.
    pub fn return_types(&self, mutants: &[Arc<Mutant>]) -> Vec<Option<String>> {
        match &self.model {
            Some(model) => model.return_types(mutants),
            None => vec![None; mutants.len()],
        }
    }

    /// Copies the workspace and builds its unmutated tests there before
    /// any run needs them, so the first run's build is incremental.
    /// Returns how long the build took; `None` when cancelled or when a
    /// lab was already there (then it is warm).
    pub fn warm_up(&mut self, cancel: &Cancel) -> Result<Option<Duration>> {
        if self.lab.is_some() {
            return Ok(None);
        }
        self.lab()?.warm_up(cancel)
    }

    /// New options for the lab (jobs, timeouts, test tool…): the warm trees
    /// and the baseline are dropped and redone on the next test.
    /// The same options again change nothing.
    pub fn set_lab_options(&mut self, lab_options: LabOptions) {
        if lab_options == self.lab_options {
            return;
        }
        // The model reads the lab's tree: it goes first.
        self.model = None;
        self.lab = None;
        self.baseline_passed.clear();
        self.context_fingerprints.clear();
        self.lab_options = lab_options;
    }

    /// The package whose integration tests include `relative` (a file under
    /// a package's `tests/` directory).
    pub fn package_of_test_file(&self, relative: &str) -> Option<String> {
        self.workspace
            .packages
            .iter()
            .filter(|p| {
                let tests_dir = if p.dir.is_empty() {
                    "tests/".to_owned()
                } else {
                    format!("{}/tests/", p.dir)
                };
                relative.starts_with(&tests_dir)
            })
            .max_by_key(|p| p.dir.len())
            .map(|p| p.name.clone())
    }

    /// Every source file some target compiles, sorted.
    pub fn source_files(&self) -> Vec<String> {
        let mut files: Vec<String> = self.owners.keys().cloned().collect();
        files.sort();
        files
    }

    /// Splits `mutants` into those in functions whose text changed since
    /// the last split (or that are new) and the rest; remembers the
    /// functions' texts for next time.
    pub fn split_changed(
        &mut self,
        mutants: Vec<Arc<Mutant>>,
    ) -> (Vec<Arc<Mutant>>, Vec<Arc<Mutant>>) {
        let mut changed = Vec::new();
        let mut unchanged = Vec::new();
        let mut seen: HashMap<(String, String), String> = HashMap::new();
        for mutant in mutants {
            let (Some(function), Some((_, text))) = (&mutant.function, mutant.function_text())
            else {
                changed.push(mutant);
                continue;
            };
            let key = (
                mutant.source_file.path.clone(),
                function.function_name.clone(),
            );
            let text = text.to_owned();
            if self.function_texts.get(&key) == Some(&text) {
                unchanged.push(mutant);
            } else {
                changed.push(mutant);
            }
            seen.insert(key, text);
        }
        self.function_texts.extend(seen);
        (changed, unchanged)
    }

    /// The verdict known for a mutant with the same function (name and
    /// text), description and place in the function, found in the same
    /// context (test code, test options, lock file). It is only a head
    /// start: the mutant's callees may have changed since.
    pub fn known_verdict(&mut self, mutant: &Mutant) -> Option<Verdict> {
        let context = self.context_fingerprint(&mutant.source_file.package);
        self.cache.get(mutant, &context)
    }

    /// The earlier verdicts that apply to `mutants` (of a file's new text):
    /// an `earlier` verdict on the same mutant of the same function text,
    /// wherever it moved, else a known one.
    pub fn carry(
        &mut self,
        mutants: &[Arc<Mutant>],
        earlier: &[(Arc<Mutant>, Verdict)],
    ) -> Vec<(Arc<Mutant>, Verdict)> {
        mutants
            .iter()
            .filter_map(|mutant| {
                let verdict = earlier
                    .iter()
                    .find(|(old, _)| crate::cache::same_mutant(old, mutant))
                    .map(|(_, verdict)| *verdict)
                    .or_else(|| self.known_verdict(mutant))?;
                Some((mutant.clone(), verdict))
            })
            .collect()
    }

    /// The known missed and timed-out mutants of the workspace as it is now
    /// (from this or an earlier session), without testing anything.
    pub fn restore(&mut self) -> Vec<(Arc<Mutant>, Verdict)> {
        let mut found = Vec::new();
        for file in self.cache.files_with_findings() {
            let Ok(mutants) = self.mutants_of(&file) else {
                continue;
            };
            for mutant in mutants {
                if let Some(verdict @ (Verdict::Missed | Verdict::Timeout)) =
                    self.known_verdict(&mutant)
                {
                    found.push((mutant, verdict));
                }
            }
        }
        found
    }

    /// The missed and timed-out mutants recorded in the workspace's
    /// `mutants.out/` (from `mutiny run` or `cargo mutants`, in CI say)
    /// that still apply: same name, and the original lines around them, as
    /// the recorded diff shows them, unchanged.
    pub fn restore_from_output(&mut self) -> Vec<(Arc<Mutant>, Verdict)> {
        let dir = self.workspace.root.join(crate::output::OUTPUT_DIR_NAME);
        let read = |name: &str| -> Option<serde_json::Value> {
            let text = std::fs::read_to_string(dir.join(name)).ok()?;
            serde_json::from_str(&text).ok()
        };
        let (Some(outcomes), Some(listed)) = (read("outcomes.json"), read("mutants.json")) else {
            return Vec::new();
        };
        let recorded_diffs: HashMap<&str, &str> = listed
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| Some((m["name"].as_str()?, m["diff"].as_str()?)))
            .collect();
        let mut wanted: HashMap<String, Vec<(&str, Verdict)>> = HashMap::new();
        for outcome in outcomes["outcomes"].as_array().into_iter().flatten() {
            let verdict = match outcome["summary"].as_str() {
                Some("MissedMutant") => Verdict::Missed,
                Some("Timeout") => Verdict::Timeout,
                _ => continue,
            };
            let mutant = &outcome["scenario"]["Mutant"];
            if let (Some(name), Some(file)) = (mutant["name"].as_str(), mutant["file"].as_str()) {
                wanted
                    .entry(file.to_owned())
                    .or_default()
                    .push((name, verdict));
            }
        }
        let mut found = Vec::new();
        for (file, names) in wanted {
            let Ok(mutants) = self.mutants_of(&file) else {
                continue;
            };
            for (name, verdict) in names {
                let current = mutants.iter().find(|m| m.name == name);
                let recorded = recorded_diffs.get(name);
                if let (Some(current), Some(recorded)) = (current, recorded) {
                    if original_side(recorded) == original_side(&current.diff()) {
                        found.push((current.clone(), verdict));
                    }
                }
            }
        }
        found
    }

    /// A fingerprint of what a verdict on a mutant of `package` depends on
    /// besides its function: the test code of the packages whose tests run,
    /// the test options, and `Cargo.lock`.
    fn context_fingerprint(&mut self, package: &str) -> String {
        if let Some(known) = self.context_fingerprints.get(package) {
            return known.clone();
        }
        let tested: Vec<String> = match &self.lab_options.test_scope {
            TestScope::Mutated => vec![package.to_owned()],
            TestScope::Workspace => self
                .workspace
                .packages
                .iter()
                .map(|p| p.name.clone())
                .collect(),
            TestScope::Packages(names) => names.clone(),
        };
        let options = format!(
            "{:?} {:?} {:?}",
            self.lab_options.cargo, self.lab_options.test_scope, self.lab_options.timeouts
        );
        let lock =
            std::fs::read_to_string(self.workspace.root.join("Cargo.lock")).unwrap_or_default();
        let mut parts = vec![options, lock];
        for name in &tested {
            parts.push(self.test_code_fingerprint(name));
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        let fingerprint = crate::cache::fingerprint(&refs);
        self.context_fingerprints
            .insert(package.to_owned(), fingerprint.clone());
        fingerprint
    }

    /// A fingerprint of a package's test code: tests and test-only modules
    /// and doc comments in its source files, and every file under its
    /// `tests/` directory.
    fn test_code_fingerprint(&self, package: &str) -> String {
        let mut files: Vec<(&String, &FileOwner)> = self
            .owners
            .iter()
            .filter(|(_, owner)| owner.package == package)
            .collect();
        files.sort_by_key(|(path, _)| *path);
        let mut parts: Vec<String> = Vec::new();
        for (path, owner) in files {
            let code = std::fs::read_to_string(self.workspace.root.join(path)).unwrap_or_default();
            parts.push(path.clone());
            parts.push(mutate::test_code(&code, owner.edition));
        }
        if let Some(dir) = self.workspace.packages.iter().find(|p| p.name == package) {
            let tests_dir = self.workspace.root.join(&dir.dir).join("tests");
            let mut test_files = Vec::new();
            collect_files(&tests_dir, &mut test_files);
            test_files.sort();
            for path in test_files {
                parts.push(path.display().to_string());
                parts.push(std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        crate::cache::fingerprint(&refs)
    }

    /// Where the named tests (`tests::two_plus_two_is_five`, as libtest
    /// prints them) are defined: the file, the byte range of the name in
    /// it, and its text. Found by their `fn` in the workspace's source
    /// files and integration tests; a test not found is left out.
    pub fn locate_tests(&self, names: &[String]) -> Vec<(PathBuf, std::ops::Range<usize>, String)> {
        let mut files: Vec<PathBuf> = self
            .source_files()
            .iter()
            .map(|f| self.workspace.root.join(f))
            .collect();
        for package in &self.workspace.packages {
            let tests_dir = self.workspace.root.join(&package.dir).join("tests");
            collect_files(&tests_dir, &mut files);
        }
        let mut found = Vec::new();
        for name in names {
            let short = name.rsplit("::").next().unwrap_or(name);
            let needle = format!("fn {short}(");
            for file in &files {
                let Ok(text) = std::fs::read_to_string(file) else {
                    continue;
                };
                if let Some(at) = text.find(&needle) {
                    let start = at + "fn ".len();
                    found.push((file.clone(), start..start + short.len(), text));
                    break;
                }
            }
        }
        found
    }

    /// Each package's manifest path, by package name.
    pub fn manifest_paths(&self) -> HashMap<String, PathBuf> {
        self.workspace
            .packages
            .iter()
            .map(|p| {
                let path = self.workspace.root.join(&p.dir).join("Cargo.toml");
                (p.name.clone(), path)
            })
            .collect()
    }

    /// Where scenario logs go.
    pub fn log_dir(&self) -> PathBuf {
        self.lab_options.log_dir.clone()
    }
}

/// Every file under `dir`, recursively (nothing when it does not exist).
fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The original text a unified diff shows: its context and removed lines,
/// without the marker, which differs between tools.
fn original_side(diff: &str) -> Vec<&str> {
    diff.lines()
        .filter(|line| !line.starts_with("---") && !line.starts_with("@@"))
        .filter_map(|line| line.strip_prefix(' ').or_else(|| line.strip_prefix('-')))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Session;
    use crate::config::Config;
    use crate::options::{lab_options, LabArgs};

    /// The modules fixture reaches `src/shared.rs` from `src/f/g.rs`
    /// through `#[path = "../shared.rs"]`.
    #[test]
    fn a_saved_file_finds_its_mutants_named_through_a_parent_step() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/modules");
        let options = lab_options(&LabArgs::default(), &Config::default()).unwrap();
        let mut session = Session::open(&root, options).unwrap();
        let saved = session
            .relative_path(&session.root().join("src/shared.rs"))
            .unwrap();
        let mutants = session.mutants_of(&saved).unwrap();
        assert!(!mutants.is_empty(), "{saved} has mutants");
        for mutant in &mutants {
            assert!(
                mutant.name.starts_with("src/f/../shared.rs:"),
                "{}",
                mutant.name
            );
        }
        let by_name = session.mutants_of("src/f/../shared.rs").unwrap();
        assert_eq!(by_name.len(), mutants.len());
        assert_eq!(
            session.file_path("src/f/../shared.rs"),
            session.root().join("src/shared.rs")
        );
        assert!(session.source_files().contains(&"src/shared.rs".to_owned()));
    }
}
