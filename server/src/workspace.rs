//! The cargo workspace: packages, their targets and root files. The
//! interface to `cargo_metadata` is localised here.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cargo_metadata::{MetadataCommand, TargetKind};

use crate::mutate::Edition;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// Absolute path of the workspace root directory.
    pub root: PathBuf,
    /// Members, sorted by name (cargo-mutants' order, which `--shard`
    /// depends on).
    pub packages: Vec<Package>,
    /// Names of the default members (all members when cargo does not say).
    default_members: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// Directory of the package's Cargo.toml, relative to the workspace root
    /// (empty for the root package).
    pub dir: String,
    /// Root files of the targets that are mutated (lib, bin, proc-macro…),
    /// relative to the workspace root, `/`-separated, sorted, without
    /// duplicates (as cargo-mutants walks them).
    pub root_files: Vec<String>,
    pub edition: Edition,
    /// A proc-macro crate: its code runs inside the compiler.
    pub proc_macro: bool,
    /// Has a library target whose doctests `cargo test` runs.
    pub doctests: bool,
}

/// Which packages to mutate, as cargo's `-p` and `--workspace` choose them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PackageSelection {
    /// The package containing the start directory; at a virtual workspace
    /// root, the default members.
    #[default]
    Default,
    Named(Vec<String>),
    Workspace,
}

impl Workspace {
    /// Finds the workspace containing `start_dir`.
    pub fn open(start_dir: &Path) -> Result<Workspace> {
        if !start_dir.is_dir() {
            bail!("{} is not a directory", start_dir.display());
        }
        let metadata = MetadataCommand::new()
            .current_dir(start_dir)
            .no_deps()
            .exec()
            .map_err(|err| match err {
                cargo_metadata::Error::CargoMetadata { stderr } if stderr.contains("could not find `Cargo.toml`") => {
                    anyhow::anyhow!(
                        "{} is not in a cargo workspace: there is no Cargo.toml in it or any parent directory",
                        start_dir.display()
                    )
                }
                cargo_metadata::Error::CargoMetadata { stderr } => {
                    anyhow::anyhow!("cargo metadata failed in {}:\n{}", start_dir.display(), stderr.trim_end())
                }
                other => anyhow::Error::new(other).context("cannot run cargo metadata"),
            })?;
        let root = PathBuf::from(metadata.workspace_root.as_std_path());
        let relative = |path: &Path| -> Option<String> {
            let rel = path.strip_prefix(&root).ok()?;
            Some(rel.to_str()?.replace('\\', "/"))
        };
        let mut packages = Vec::new();
        for package in metadata.workspace_packages() {
            let manifest_dir = package
                .manifest_path
                .parent()
                .context("manifest path has no parent")?
                .as_std_path();
            let mut root_files: Vec<String> = package
                .targets
                .iter()
                .filter(|target| target.kind.iter().any(is_mutated_kind))
                .filter_map(|target| relative(target.src_path.as_std_path()))
                .collect();
            root_files.sort();
            root_files.dedup();
            let proc_macro = package
                .targets
                .iter()
                .any(|t| t.kind.contains(&TargetKind::ProcMacro));
            let doctests = package.targets.iter().any(|t| {
                t.doctest
                    && t.kind
                        .iter()
                        .any(|k| matches!(k, TargetKind::Lib | TargetKind::RLib))
            });
            packages.push(Package {
                name: package.name.to_string(),
                version: package.version.to_string(),
                dir: relative(manifest_dir).unwrap_or_default(),
                root_files,
                edition: Edition::from_cargo(package.edition.as_str()),
                proc_macro,
                doctests,
            });
        }
        // cargo metadata lists packages by package id; cargo-mutants sorts
        // them by name, and the mutant list (so each shard) follows.
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        let default_members: Vec<String> = if metadata.workspace_default_members.is_available() {
            metadata
                .workspace_default_packages()
                .iter()
                .map(|p| p.name.to_string())
                .collect()
        } else {
            packages.iter().map(|p| p.name.clone()).collect()
        };
        Ok(Workspace {
            root,
            packages,
            default_members,
        })
    }

    /// The packages to mutate. `start_dir` decides the default selection.
    pub fn select(&self, selection: &PackageSelection, start_dir: &Path) -> Result<Vec<&Package>> {
        match selection {
            PackageSelection::Workspace => Ok(self.packages.iter().collect()),
            // In name order whatever the order given, as cargo-mutants.
            PackageSelection::Named(names) => sorted(names)
                .into_iter()
                .map(|name| {
                    self.packages
                        .iter()
                        .find(|p| p.name == name)
                        .with_context(|| {
                            let known: Vec<&str> =
                                self.packages.iter().map(|p| p.name.as_str()).collect();
                            format!(
                                "no package named {name:?} in this workspace (it has: {})",
                                known.join(", ")
                            )
                        })
                })
                .collect(),
            PackageSelection::Default => {
                let start = start_dir
                    .canonicalize()
                    .unwrap_or_else(|_| start_dir.to_owned());
                let root = self
                    .root
                    .canonicalize()
                    .unwrap_or_else(|_| self.root.clone());
                let containing = self
                    .packages
                    .iter()
                    .filter(|p| start.starts_with(root.join(&p.dir)))
                    .max_by_key(|p| p.dir.len());
                match containing {
                    Some(package) => Ok(vec![package]),
                    None => Ok(self
                        .packages
                        .iter()
                        .filter(|p| self.default_members.contains(&p.name))
                        .collect()),
                }
            }
        }
    }
}

fn sorted(names: &[String]) -> Vec<&str> {
    let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
    names.sort_unstable();
    names
}

fn is_mutated_kind(kind: &TargetKind) -> bool {
    matches!(
        kind,
        TargetKind::Lib
            | TargetKind::Bin
            | TargetKind::ProcMacro
            | TargetKind::RLib
            | TargetKind::DyLib
            | TargetKind::CDyLib
            | TargetKind::StaticLib
    )
}
