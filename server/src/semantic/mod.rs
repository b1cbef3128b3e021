//! rust-analyzer's semantic layer: the one module that talks to
//! `ra_ap_hir`, `ra_ap_ide_db`, `ra_ap_load-cargo` and `ra_ap_project_model`.
//!
//! A [`Model`] is the workspace loaded into rust-analyzer's database. It
//! answers one question for now: can a mutant compile? A stub whose path
//! names nothing, or that calls `Default::default()` where the expected
//! type does not implement `Default`, cannot, and such a mutant is
//! `unviable` without a build.
//!
//! Prediction must never drop a viable mutant, so a "no" is believed only
//! where rust-analyzer's answer is complete: the types are fully known, and
//! the code that could provide the name or the impl is all visible (see
//! [`Trust`] and `predict.rs`).

mod cfg;
mod consts;
mod judge;
mod operator;
mod own;
mod predict;
mod shift;
mod warm;

use std::borrow::Borrow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use ra_ap_hir::{Crate, Semantics};
use ra_ap_ide_db::base_db::CrateOrigin;
use ra_ap_ide_db::famous_defs::FamousDefs;
use ra_ap_ide_db::{ChangeWithProcMacros, FileId, RootDatabase};
use ra_ap_load_cargo::{LoadCargoConfig, ProcMacroServerChoice};
use ra_ap_paths::{AbsPathBuf, Utf8PathBuf};
use ra_ap_project_model::{
    CargoConfig, CargoFeatures, ProjectManifest, ProjectWorkspace, ProjectWorkspaceKind,
    RustLibSource, TargetDirectoryConfig, TargetKind,
};
use ra_ap_vfs::{Vfs, VfsPath};

use crate::lab::cargo::CargoOptions;
use crate::mutate::Mutant;

pub use cfg::CfgPlace;
pub use judge::{cfg_places, judge_cfgs, judge_viability, suspects, under_cfgs, Purpose};
pub use predict::Prediction;
pub use warm::{Readiness, WarmModel};

/// The workspace as rust-analyzer sees it.
pub struct Model {
    db: RootDatabase,
    vfs: Vfs,
    root: PathBuf,
    trust: Trust,
    /// How long loading took.
    pub load_time: Duration,
    /// Loaded for the own stubs, then used again by the analysis.
    pub reused: bool,
    /// What a load without build scripts and proc macros leaves out is at
    /// most dependencies' build scripts (no proc macro, no build script
    /// of a workspace member), whose crates [`Trust`] does not trust.
    serves_analysis: bool,
}

/// Whose impls and names a "no" may rely on. Impls of a type live in the
/// crate that defines it (or in `core`); a crate whose code rust-analyzer
/// may not fully see could hide one: code a build script generates and the
/// cfgs it sets (seen once build scripts ran), and what proc macros expand
/// to (seen once they are built and the proc-macro server runs).
#[derive(Debug, Clone)]
struct Trust {
    /// Crates with a build script that did not run, by name: code they
    /// `include!` from `OUT_DIR` is not loaded, cfgs they set are unset.
    build_scripts: Vec<String>,
    /// Proc macros are expanded.
    proc_macros: bool,
    /// Some file or flag names rustc's `long_running_const_eval` lint: a
    /// constant's evaluation that runs long may compile.
    long_evaluations_allowed: bool,
}

/// Where a load takes the build scripts' outputs and proc macros from.
enum BuildScripts {
    /// Nowhere: signatures only.
    Skip,
    /// rust-analyzer's own `cargo check` of the workspace.
    Run,
    /// The JSON messages of a build of the same tree, whose path arrives
    /// here once it ran (`None`: as `Run`).
    FromBuild(std::sync::mpsc::Receiver<Option<PathBuf>>),
}

/// Why the semantic layer is not there.
#[derive(Debug)]
pub enum Unavailable {
    /// The standard library's sources are missing: rust-analyzer would type
    /// everything from `std` as unknown.
    NoStdSources(String),
    /// Loading failed.
    Failed(anyhow::Error),
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::NoStdSources(why) => write!(
                f,
                "the standard library's sources are missing ({why}): mutants are generated from \
                 syntax only; `rustup component add rust-src` adds them"
            ),
            Unavailable::Failed(err) => {
                write!(f, "rust-analyzer could not load the workspace: {err:#}")
            }
        }
    }
}

impl Model {
    /// Loads the cargo workspace at `root` (a directory with `Cargo.toml`,
    /// a scratch copy: cargo runs there) with the features the builds use.
    /// Where the crate graph has build scripts or proc macros, they are
    /// built and run first (`cargo check`, into `target_dir`, in the
    /// environment `env`), so that rust-analyzer sees their code.
    pub fn load(
        root: &Path,
        cargo: &CargoOptions,
        build: (&Path, &[(String, String)]),
    ) -> Result<Model, Unavailable> {
        Model::load_with(root, cargo, build, BuildScripts::Run)
    }

    /// Loads the workspace as [`Model::load`] does, but without building
    /// and running build scripts and proc macros (no `cargo check`): enough
    /// for signatures and the types they name, which is what mutiny's own
    /// stubs need before a run starts; no "no" of this model is trusted in
    /// crates with build scripts.
    pub fn load_signatures(
        root: &Path,
        cargo: &CargoOptions,
        build: (&Path, &[(String, String)]),
    ) -> Result<Model, Unavailable> {
        Model::load_with(root, cargo, build, BuildScripts::Skip)
    }

    /// [`Model::load`], with the build scripts' outputs and the proc
    /// macros taken from a build of the same tree, when one ran: the lab's
    /// own build (`cargo test --no-run --message-format=json`) sends the
    /// path of its JSON messages on `after_build` (`None`: none ran, and
    /// rust-analyzer runs them with a `cargo check` of its own). Without
    /// this, that check compiles every dependency again beside the lab's
    /// first build, which then takes up to twice as long.
    pub fn load_after_build(
        root: &Path,
        cargo: &CargoOptions,
        build: (&Path, &[(String, String)]),
        after_build: std::sync::mpsc::Receiver<Option<PathBuf>>,
    ) -> Result<Model, Unavailable> {
        Model::load_with(root, cargo, build, BuildScripts::FromBuild(after_build))
    }

    fn load_with(
        root: &Path,
        cargo: &CargoOptions,
        (target_dir, env): (&Path, &[(String, String)]),
        scripts: BuildScripts,
    ) -> Result<Model, Unavailable> {
        let start = Instant::now();
        let root = std::path::absolute(root).map_err(|e| Unavailable::Failed(e.into()))?;
        let abs = abs_path(root.clone())?;
        let manifest = ProjectManifest::discover_single(&abs).map_err(Unavailable::Failed)?;
        // Found by hand: rust-analyzer's own discovery would run `rustup
        // component add rust-src` behind the user's back.
        let sysroot = sysroot(&root).map_err(Unavailable::Failed)?;
        // rust-analyzer reads `RUST_SRC_PATH` first, then the sysroot.
        let library = std::env::var_os("RUST_SRC_PATH")
            .map(PathBuf::from)
            .filter(|path| path.join("core").is_dir())
            .unwrap_or_else(|| sysroot.join("lib/rustlib/src/rust/library"));
        if !library.join("core").is_dir() {
            return Err(Unavailable::NoStdSources(format!(
                "no {}",
                library.join("core").display()
            )));
        }
        let features = if cargo.all_features {
            CargoFeatures::All
        } else {
            CargoFeatures::Selected {
                features: cargo
                    .features
                    .iter()
                    .flat_map(|f| f.split([',', ' ']))
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned)
                    .collect(),
                no_default_features: cargo.no_default_features,
            }
        };
        let target_dir = utf8_path(target_dir.to_owned())?;
        let mut config = CargoConfig {
            sysroot: Some(RustLibSource::Path(abs_path(sysroot)?)),
            features,
            all_targets: true,
            set_test: true,
            target_dir_config: TargetDirectoryConfig::Directory(target_dir),
            extra_env: env
                .iter()
                .filter(|(key, _)| key != "CARGO_TARGET_DIR")
                .map(|(key, value)| (key.clone(), Some(value.clone())))
                .collect(),
            ..CargoConfig::default()
        };
        let mut workspace =
            ProjectWorkspace::load(manifest, &config, &|_| {}).map_err(Unavailable::Failed)?;
        if let Some(err) = workspace.sysroot.error() {
            return Err(Unavailable::NoStdSources(err.to_owned()));
        }
        let (mut build_scripts, members_build_scripts, proc_macro_crates) =
            build_scripts_and_proc_macros(&workspace);
        let mut build_scripts_ran = false;
        let needed = !build_scripts.is_empty() || proc_macro_crates;
        let run = match scripts {
            BuildScripts::Skip => false,
            BuildScripts::Run => needed,
            BuildScripts::FromBuild(after_build) => {
                // Waits for the build even when none is needed: the two
                // would otherwise compete for the cores.
                if let Ok(Some(messages)) = after_build.recv() {
                    let messages = messages.to_string_lossy().into_owned();
                    config.run_build_script_command = Some(vec!["cat".to_owned(), messages]);
                }
                needed
            }
        };
        if run {
            // Failed, their output is missing: their crates stay untrusted.
            if let Ok(built) = workspace.run_build_scripts(&config, &|_| {}) {
                if built.error().is_none() {
                    workspace.set_build_scripts(built);
                    build_scripts.clear();
                    build_scripts_ran = true;
                }
            }
        }
        let load = LoadCargoConfig {
            load_out_dirs_from_check: false,
            with_proc_macro_server: if build_scripts_ran && proc_macro_crates {
                ProcMacroServerChoice::Sysroot
            } else {
                ProcMacroServerChoice::None
            },
            prefill_caches: false,
            num_worker_threads: 1,
            proc_macro_processes: 1,
        };
        let (db, vfs, server) =
            ra_ap_load_cargo::load_workspace(workspace, &config.extra_env, &load)
                .context("loading the crate graph")
                .map_err(Unavailable::Failed)?;
        let long_evaluations_allowed = consts::long_evaluations_allowed(&root);
        let mut model = Model {
            db,
            vfs,
            root,
            trust: Trust {
                build_scripts,
                // Expanded only if built (by the build scripts' check) and
                // the toolchain's proc-macro server runs.
                proc_macros: build_scripts_ran && server.is_some(),
                long_evaluations_allowed,
            },
            load_time: Duration::ZERO,
            reused: false,
            serves_analysis: !members_build_scripts && !proc_macro_crates,
        };
        if !model.knows_core() {
            return Err(Unavailable::NoStdSources(
                "`core` has no `Default` trait".into(),
            ));
        }
        model.load_time = start.elapsed();
        Ok(model)
    }

    /// Whether the analysis of a run may take this model as it is, not
    /// loading again: it is whole, or all it left out is the build scripts
    /// of dependencies (no proc macro, no build script of a workspace
    /// member). Those crates are not trusted (see [`Trust`]), so a "no"
    /// that relies on them is not said; the workspace's own code, and its
    /// cfgs, are all in sight.
    pub fn serves_analysis(&self) -> bool {
        self.serves_analysis
    }

    /// The crates whose build script did not run for this model.
    pub fn build_scripts_not_run(&self) -> &[String] {
        &self.trust.build_scripts
    }

    /// Whether `core::default::Default` resolves from some workspace crate.
    fn knows_core(&self) -> bool {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            Crate::all(&self.db)
                .into_iter()
                .find(|krate| krate.origin(&self.db).is_local())
                .is_some_and(|krate| FamousDefs(&sema, krate).core_default_Default().is_some())
        })
    }

    fn file_id(&self, relative: &str) -> Option<FileId> {
        let path = self.root.join(relative);
        let utf8 = Utf8PathBuf::from_path_buf(path).ok()?;
        let vfs_path = VfsPath::from(AbsPathBuf::assert(utf8));
        self.vfs.file_id(&vfs_path).map(|(id, _)| id)
    }

    /// Gives the model a file's new text (`relative` to the workspace
    /// root); false when the model does not hold that file (a new file:
    /// only loading again finds it).
    pub fn update_file(&mut self, relative: &str, text: &str) -> bool {
        let Some(file) = self.file_id(relative) else {
            return false;
        };
        self.set_text(file, text);
        true
    }

    /// Gives the database the original text of each file the mutants are
    /// in. It may hold others: it loaded a scratch tree that a switched
    /// build may have rewritten meanwhile.
    fn hold_originals<M: Borrow<Mutant>>(&mut self, mutants: &[M]) {
        let mut originals: Vec<(FileId, std::sync::Arc<str>)> = Vec::new();
        for mutant in mutants {
            let source = &mutant.borrow().source_file;
            if let Some(file) = self.file_id(&source.path) {
                if !originals.iter().any(|(seen, _)| *seen == file) {
                    originals.push((file, source.code.clone()));
                }
            }
        }
        for (file, code) in originals {
            self.set_text(file, &code);
        }
    }

    /// The return type of each function-value mutant's function, as
    /// rust-analyzer resolves it (aliases, `Self`, associated types);
    /// `None` for other mutants and where the type is not fully known.
    pub fn return_types<M: Borrow<Mutant>>(&mut self, mutants: &[M]) -> Vec<Option<String>> {
        self.hold_originals(mutants);
        ra_ap_hir::attach_db(&self.db, || {
            mutants
                .iter()
                .map(|mutant| {
                    let mutant = mutant.borrow();
                    if mutant.genre != crate::mutate::Genre::FnValue {
                        return None;
                    }
                    let file = self.file_id(&mutant.source_file.path)?;
                    predict::return_type(&self.db, file, mutant)
                })
                .collect()
        })
    }

    /// mutiny's own stubs for the functions of `mutants` (see `own.rs`):
    /// for each function with function-value mutants, a mutant per value
    /// of its resolved return type that neither its table stubs nor its
    /// body already are. Each comes with the index of its function's last
    /// function-value mutant in `mutants`, after which it belongs.
    pub fn own_stubs<M: Borrow<Mutant>>(&mut self, mutants: &[M]) -> Vec<(usize, Mutant)> {
        self.hold_originals(mutants);
        let squeeze = |text: &str| text.split_whitespace().collect::<String>();
        // Per function (its function-value mutants are listed together):
        // its last function-value mutant, and the texts a value must not
        // repeat (its table stubs and its body); own stubs follow the last.
        let mut functions: Vec<(usize, Vec<String>)> = Vec::new();
        for (index, mutant) in mutants.iter().enumerate() {
            let mutant = mutant.borrow();
            if mutant.genre != crate::mutate::Genre::FnValue || mutant.function.is_none() {
                continue;
            }
            match functions.last_mut() {
                Some((previous, taken)) if same_function(mutants[*previous].borrow(), mutant) => {
                    *previous = index;
                    taken.push(squeeze(&mutant.replacement));
                }
                _ => functions.push((
                    index,
                    vec![squeeze(&mutant.replacement), squeeze(mutant.original())],
                )),
            }
        }
        ra_ap_hir::attach_db(&self.db, || {
            let mut found = Vec::new();
            for (index, taken) in functions {
                // A sibling whose switch takes its const fn's const away
                // lends it to the own stubs (each checked again); the
                // last may be built alone for its value only.
                let template = (0..=index)
                    .rev()
                    .map(|i| mutants[i].borrow())
                    .take_while(|m| same_function(m, mutants[index].borrow()))
                    .find(|m| {
                        m.genre == crate::mutate::Genre::FnValue
                            && matches!(m.switch, crate::mutate::Switch::Unconst { .. })
                    })
                    .unwrap_or(mutants[index].borrow());
                let Some(file) = self.file_id(&template.source_file.path) else {
                    continue;
                };
                for value in own::values(&self.db, file, template) {
                    if taken.contains(&squeeze(&value)) {
                        continue;
                    }
                    if let Some(mutant) = template.with_own_stub(&value) {
                        found.push((index, mutant));
                    }
                }
            }
            found
        })
    }

    /// The indices of the function-value mutants of `mutants` whose
    /// `Default::default()` stands for a resolved type without `Default`
    /// (see `own::default_lacking`).
    pub fn default_breakers<M: Borrow<Mutant>>(&mut self, mutants: &[M]) -> Vec<usize> {
        self.hold_originals(mutants);
        ra_ap_hir::attach_db(&self.db, || {
            mutants
                .iter()
                .enumerate()
                .filter(|(_, mutant)| {
                    let mutant = (*mutant).borrow();
                    mutant.genre == crate::mutate::Genre::FnValue
                        && mutant.replacement.contains("Default::default()")
                        && self
                            .file_id(&mutant.source_file.path)
                            .is_some_and(|file| own::default_lacking(&self.db, file, mutant))
                })
                .map(|(index, _)| index)
                .collect()
        })
    }

    fn set_text(&mut self, file: FileId, text: &str) {
        let mut change = ChangeWithProcMacros::default();
        change.change_file(file, Some(text.to_owned()));
        self.db.apply_change(change);
    }

    /// Whether any of `mutants` is of a kind the analysis judges: without
    /// one, loading the model is wasted.
    pub fn judges_any<M: Borrow<Mutant>>(mutants: &[M]) -> bool {
        mutants
            .iter()
            .any(|m| predict::may_be_unviable(m.borrow()) || operator::swaps_trait(m.borrow()))
    }

    /// Whether [`Model::predict`] may say `mutant` (in the file `source`
    /// parsed) cannot compile: an operator swap whose trait may be
    /// missing, a stub that may not fit, a mutant in a shift amount or in
    /// a constant's value. Of any other it says nothing.
    pub(super) fn may_deny(mutant: &Mutant, source: &ra_ap_syntax::ast::SourceFile) -> bool {
        operator::swaps_trait(mutant)
            || predict::may_be_unviable(mutant)
            || shift::may_overflow(mutant)
            || consts::in_const_value(source, mutant)
    }

    /// Predicts, for each mutant, whether it can compile. Mutants of a file
    /// the model does not hold are [`Prediction::Unknown`].
    pub fn predict<M: Borrow<Mutant>>(&mut self, mutants: &[M]) -> Vec<Prediction> {
        // Operator swaps first, on the original texts; and whether the
        // constants mutants are in evaluate unmutated.
        self.hold_originals(mutants);
        let (operators, constants): (Vec<Option<Prediction>>, Vec<bool>) =
            ra_ap_hir::attach_db(&self.db, || {
                mutants
                    .iter()
                    .map(|mutant| {
                        let mutant = mutant.borrow();
                        let Some(file) = self.file_id(&mutant.source_file.path) else {
                            return (None, false);
                        };
                        let operator = operator::swaps_trait(mutant)
                            .then(|| operator::check(&self.db, file, mutant, &self.trust));
                        let constant = consts::original_evaluates(&self.db, file, mutant);
                        (operator, constant == Some(true))
                    })
                    .unzip()
            });
        let mut predictions = Vec::with_capacity(mutants.len());
        // The file being mutated: its original text, and that text's
        // syntax errors (parsed once per file, not per mutant).
        let mut current: Option<(FileId, std::sync::Arc<str>, Vec<String>)> = None;
        for ((mutant, operator), in_constant) in mutants.iter().zip(operators).zip(constants) {
            let mutant = mutant.borrow();
            if let Some(Prediction::Unviable(why)) = operator {
                predictions.push(Prediction::Unviable(why));
                continue;
            }
            let may_be_unviable = predict::may_be_unviable(mutant);
            let in_shift = shift::may_overflow(mutant);
            if !may_be_unviable && !in_constant && !in_shift {
                predictions.push(Prediction::Unknown);
                continue;
            }
            let Some(file) = self.file_id(&mutant.source_file.path) else {
                predictions.push(Prediction::Unknown);
                continue;
            };
            if current
                .as_ref()
                .is_some_and(|(previous, ..)| *previous != file)
            {
                if let Some((previous, original, _)) = current.take() {
                    self.set_text(previous, &original);
                }
            }
            let (_, _, errors) = current.get_or_insert_with(|| {
                let original = mutant.source_file.code.clone();
                let errors = predict::parse_errors(&original);
                (file, original, errors)
            });
            let mutated = mutant.mutated_code();
            self.set_text(file, &mutated);
            let prediction = ra_ap_hir::attach_db(&self.db, || {
                let checked = match may_be_unviable || in_constant {
                    true => predict::check(&self.db, (file, errors), &mutated, mutant, &self.trust),
                    // Only the shift is in question.
                    false => Prediction::Unknown,
                };
                match checked {
                    Prediction::Unknown if in_constant => {
                        let allowed = self.trust.long_evaluations_allowed;
                        consts::evaluation_fails(&self.db, file, mutant, allowed)
                            .map_or(Prediction::Unknown, Prediction::Unviable)
                    }
                    Prediction::Unknown if in_shift => {
                        shift::overflows(&self.db, file, mutant, &mutated)
                            .map_or(Prediction::Unknown, Prediction::Unviable)
                    }
                    other => other,
                }
            });
            predictions.push(prediction);
        }
        if let Some((file, original, _)) = current {
            self.set_text(file, &original);
        }
        predictions
    }

    /// For each place, why its code is surely not compiled for this target
    /// and the run's features, or `None`.
    pub fn not_compiled(&self, places: &[CfgPlace]) -> Vec<Option<String>> {
        let mut options: HashMap<&str, Option<ra_ap_hir::CfgOptions>> = HashMap::new();
        places
            .iter()
            .map(|place| {
                if !place.has_cfgs() {
                    return None;
                }
                let options = options
                    .entry(&place.package)
                    .or_insert_with(|| self.package_cfg(&place.package));
                cfg::not_compiled(place, options.as_ref()?)
            })
            .collect()
    }

    /// The cfg options of a workspace package's crates (its targets share
    /// the target's cfgs and the features; they differ in `test`, which is
    /// not read).
    fn package_cfg(&self, package: &str) -> Option<ra_ap_hir::CfgOptions> {
        let wanted = package.replace('-', "_");
        ra_ap_hir::attach_db(&self.db, || {
            Crate::all(&self.db).into_iter().find_map(|krate| {
                let CrateOrigin::Local {
                    name: Some(name), ..
                } = krate.origin(&self.db)
                else {
                    return None;
                };
                (name.as_str().replace('-', "_") == wanted).then(|| krate.cfg(&self.db).clone())
            })
        })
    }
}

/// Whether two mutants are in the same function of the same file.
fn same_function(a: &Mutant, b: &Mutant) -> bool {
    a.source_file.path == b.source_file.path
        && a.function.as_ref().map(|f| f.span) == b.function.as_ref().map(|f| f.span)
}

fn utf8_path(path: PathBuf) -> Result<Utf8PathBuf, Unavailable> {
    Utf8PathBuf::from_path_buf(path)
        .map_err(|p| Unavailable::Failed(anyhow!("not UTF-8: {}", p.display())))
}

fn abs_path(path: PathBuf) -> Result<AbsPathBuf, Unavailable> {
    utf8_path(path).map(AbsPathBuf::assert)
}

/// The toolchain's sysroot, as `rustc --print sysroot` run in `root` says.
fn sysroot(root: &Path) -> anyhow::Result<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = std::process::Command::new(&rustc)
        .args(["--print", "sysroot"])
        .current_dir(root)
        .output()
        .with_context(|| format!("cannot run {rustc}"))?;
    if !output.status.success() {
        anyhow::bail!(
            "`{rustc} --print sysroot` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let path = String::from_utf8(output.stdout).context("the sysroot path is not UTF-8")?;
    Ok(PathBuf::from(path.trim()))
}

/// The crate graph's crates with a build script (by crate name), whether
/// a workspace member has one, and whether the graph has proc-macro
/// crates.
fn build_scripts_and_proc_macros(workspace: &ProjectWorkspace) -> (Vec<String>, bool, bool) {
    let ProjectWorkspaceKind::Cargo { cargo, .. } = &workspace.kind else {
        return (Vec::new(), false, false);
    };
    let has = |package: ra_ap_project_model::Package, wanted: &dyn Fn(&TargetKind) -> bool| {
        cargo[package]
            .targets
            .iter()
            .any(|&t| wanted(&cargo[t].kind))
    };
    let with_build_script: Vec<_> = cargo
        .packages()
        .filter(|&p| has(p, &|kind| *kind == TargetKind::BuildScript))
        .collect();
    let members = with_build_script.iter().any(|&p| cargo[p].is_member);
    let build_scripts = with_build_script
        .into_iter()
        .map(|p| cargo[p].name.replace('-', "_"))
        .collect();
    let proc_macros = cargo.packages().any(|p| {
        has(p, &|kind| {
            matches!(
                kind,
                TargetKind::Lib {
                    is_proc_macro: true
                }
            )
        })
    });
    (build_scripts, members, proc_macros)
}
