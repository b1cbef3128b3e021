//! The cargo workspace: packages, their targets and root files. The
//! interface to `cargo_metadata` is localised here.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cargo_metadata::{DependencyKind, MetadataCommand, PackageId, TargetKind};

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

/// A member's dev-dependency that a test build can do without.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnneededDevDependency {
    /// The member that declares it.
    pub package: String,
    /// Its manifest, relative to the workspace root.
    pub manifest: PathBuf,
    /// The dependency's key in the manifest (its rename, or its package
    /// name).
    pub key: String,
}

/// The resolve that [`unneeded_dev_dependencies`] reads: the
/// features the builds enable, and the platform they build for.
#[derive(Debug, Clone, Default)]
pub struct ResolveArgs<'a> {
    pub features: &'a [String],
    pub all_features: bool,
    pub no_default_features: bool,
    /// The target triple (all platforms when unknown).
    pub platform: Option<String>,
}

/// The dev-dependencies of the members of the workspace at `root` that no
/// test build needs: only dev-dependencies (not also normal or build ones),
/// that no feature names, whose crate `named(package_dir, bench_roots,
/// name)` says the member's files other than its benchmarks never name, and
/// whose whole dependency tree shares no package with what the builds keep
/// (so leaving them out changes no other package's features). When cargo
/// cannot resolve the workspace, nothing is left out. Cargo writes the lock
/// file it resolves: `root` is a scratch copy, never the user's tree.
pub fn unneeded_dev_dependencies(
    root: &Path,
    features: ResolveArgs<'_>,
    named: impl Fn(&Path, &[PathBuf], &str) -> bool,
) -> Vec<UnneededDevDependency> {
    let mut options = Vec::new();
    if let Some(platform) = &features.platform {
        options.push(format!("--filter-platform={platform}"));
    }
    options.extend(features.features.iter().map(|f| format!("--features={f}")));
    if features.all_features {
        options.push("--all-features".to_owned());
    }
    if features.no_default_features {
        options.push("--no-default-features".to_owned());
    }
    let Ok(metadata) = MetadataCommand::new()
        .current_dir(root)
        .other_options(options)
        .exec()
    else {
        return Vec::new();
    };
    let Some(resolve) = &metadata.resolve else {
        return Vec::new();
    };
    let graph: HashMap<&PackageId, Vec<&PackageId>> = resolve
        .nodes
        .iter()
        .map(|node| (&node.id, node.deps.iter().map(|d| &d.pkg).collect()))
        .collect();
    let mut candidates = Vec::new();
    for member in metadata.workspace_packages() {
        let Some(node) = resolve.nodes.iter().find(|n| n.id == member.id) else {
            continue;
        };
        let dir = member
            .manifest_path
            .parent()
            .map(|d| d.as_std_path().to_owned());
        let Some(dir) = dir else { continue };
        let bench_roots: Vec<PathBuf> = member
            .targets
            .iter()
            .filter(|t| t.kind.contains(&TargetKind::Bench) && !t.test)
            .map(|t| t.src_path.as_std_path().to_owned())
            .collect();
        for dep in &node.deps {
            if !dep
                .dep_kinds
                .iter()
                .all(|k| k.kind == DependencyKind::Development)
            {
                continue;
            }
            let Some(package) = metadata.packages.iter().find(|p| p.id == dep.pkg) else {
                continue;
            };
            let declared = member.dependencies.iter().find(|d| {
                d.kind == DependencyKind::Development
                    && d.name == package.name.as_str()
                    && d.rename
                        .as_ref()
                        .is_none_or(|r| r.replace('-', "_") == dep.name)
            });
            let Some(declared) = declared else { continue };
            let key = declared
                .rename
                .clone()
                .unwrap_or_else(|| declared.name.clone());
            let in_features = member.features.values().flatten().any(|f| {
                let f = f.strip_prefix("dep:").unwrap_or(f);
                let name = f.split(['/', '?']).next().unwrap_or(f);
                name == key
            });
            let names = [dep.name.clone(), key.replace('-', "_")];
            if in_features || names.iter().any(|n| named(&dir, &bench_roots, n)) {
                continue;
            }
            let manifest = member.manifest_path.as_std_path();
            let Ok(manifest) = manifest.strip_prefix(root) else {
                continue;
            };
            candidates.push((
                &member.id,
                &dep.pkg,
                UnneededDevDependency {
                    package: member.name.to_string(),
                    manifest: manifest.to_owned(),
                    key,
                },
            ));
        }
    }
    // What the builds keep: the members and everything they reach but
    // through a left-out edge. A candidate whose tree meets it stays
    // (and what it reaches is kept), until nothing changes.
    let mut left_out: Vec<bool> = vec![true; candidates.len()];
    loop {
        let cut: HashSet<(&PackageId, &PackageId)> = candidates
            .iter()
            .zip(&left_out)
            .filter(|(_, out)| **out)
            .map(|((member, dep, _), _)| (*member, *dep))
            .collect();
        let members: Vec<&PackageId> = resolve
            .nodes
            .iter()
            .map(|n| &n.id)
            .filter(|id| metadata.workspace_members.contains(id))
            .collect();
        let kept = reach(&graph, members, &cut);
        let mut changed = false;
        for (index, (_, dep, _)) in candidates.iter().enumerate() {
            if left_out[index] && !reach(&graph, vec![*dep], &HashSet::new()).is_disjoint(&kept) {
                left_out[index] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    candidates
        .into_iter()
        .zip(left_out)
        .filter(|(_, out)| *out)
        .map(|((_, _, unneeded), _)| unneeded)
        .collect()
}

/// The packages `graph` reaches from `roots`, not following the edges in `cut`.
fn reach<'a>(
    graph: &HashMap<&'a PackageId, Vec<&'a PackageId>>,
    roots: Vec<&'a PackageId>,
    cut: &HashSet<(&'a PackageId, &'a PackageId)>,
) -> HashSet<&'a PackageId> {
    let mut seen: HashSet<&PackageId> = roots.iter().copied().collect();
    let mut stack = roots;
    while let Some(id) = stack.pop() {
        for next in graph.get(id).into_iter().flatten() {
            if !cut.contains(&(id, *next)) && seen.insert(next) {
                stack.push(next);
            }
        }
    }
    seen
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
