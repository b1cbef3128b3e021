//! A long-lived testing session over one workspace, for the language
//! server: it knows which package owns each source file, keeps one warm
//! `Lab` across saves, runs the baseline once, and tests the mutants of
//! one file at a time. It knows nothing of LSP.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::config::Config;
use crate::lab::{Cancel, Event, Lab, LabOptions};
use crate::mutate::{self, Edition, Mutant, SourceFile};
use crate::options::{Options, SelectionArgs};
use crate::outcome::ScenarioOutcome;
use crate::sources;
use crate::workspace::{PackageSelection, Workspace};

/// The package and edition of a source file that some target compiles.
#[derive(Debug, Clone)]
struct FileOwner {
    package: String,
    edition: Edition,
}

pub struct Session {
    workspace: Workspace,
    options: Options,
    lab_options: LabOptions,
    owners: HashMap<String, FileOwner>,
    lab: Option<Lab>,
    /// Packages whose unmutated tests passed in this session.
    baseline_passed: HashSet<String>,
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
        let config = Config::read_workspace(&workspace.root)?;
        let options = Options::new(&SelectionArgs::default(), &config)?;
        let mut session = Session {
            workspace,
            options,
            lab_options,
            owners: HashMap::new(),
            lab: None,
            baseline_passed: HashSet::new(),
        };
        session.map_files()?;
        Ok(session)
    }

    pub fn root(&self) -> &Path {
        &self.workspace.root
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
                };
                (file.path.clone(), owner)
            })
            .collect();
        Ok(())
    }

    /// The workspace-relative path of `path`, if it is inside.
    pub fn relative_path(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.workspace.root).ok()?;
        Some(relative.to_string_lossy().replace('\\', "/"))
    }

    /// The mutants of one file as it is on disk now; empty for a file no
    /// target compiles (a test file, a script). A new file is looked for
    /// once more in the module tree.
    pub fn mutants_of(&mut self, relative: &str) -> Result<Vec<Arc<Mutant>>> {
        if !self.owners.contains_key(relative) {
            self.map_files()?;
        }
        let Some(owner) = self.owners.get(relative) else {
            return Ok(Vec::new());
        };
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
        Ok(generated
            .mutants
            .into_iter()
            .filter(|m| self.options.filter.allows_name(&m.name))
            .map(Arc::new)
            .collect())
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
        let lab = match &mut self.lab {
            Some(lab) => {
                lab.sync()?;
                lab
            }
            None => self
                .lab
                .insert(Lab::new(&self.workspace, self.lab_options.clone())?),
        };
        // A failed baseline is retried on every call: the user may have
        // fixed the tests since.
        let untested: HashSet<String> = mutants
            .iter()
            .map(|m| m.source_file.package.clone())
            .filter(|p| !self.baseline_passed.contains(p))
            .collect();
        if !untested.is_empty() {
            match lab.baseline(mutants, cancel, on_event)? {
                None => return Ok(TestRun::Cancelled),
                Some(outcome) if outcome.success() => self.baseline_passed.extend(untested),
                Some(outcome) => return Ok(TestRun::BaselineFailed(outcome)),
            }
        }
        let outcomes = lab.test(mutants, cancel, on_event)?;
        if cancel.is_cancelled() {
            return Ok(TestRun::Cancelled);
        }
        Ok(TestRun::Done(outcomes))
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
