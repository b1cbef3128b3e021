//! Finds the source files of packages by following `mod` declarations from
//! each target's root file, as rustc does, and generates their mutants.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::filter::MutantFilter;
use crate::mutate::{self, GenerateOptions, ModuleRef, Mutant, SourceFile};
use crate::workspace::{Package, Workspace};

/// What discovery found across the selected packages.
#[derive(Debug, Default)]
pub struct Discovered {
    pub mutants: Vec<Mutant>,
    /// Files whose mutants were wanted, in walk order.
    pub files: Vec<Arc<SourceFile>>,
    /// Problems that did not stop discovery, ready to print.
    pub warnings: Vec<String>,
    /// How each file is declared.
    pub declarations: Declarations,
}

/// How the files found are declared, by normalised path.
#[derive(Debug, Default)]
pub struct Declarations(HashMap<String, Vec<Vec<String>>>);

impl Declarations {
    /// The ways the file at `path` is declared: for each `mod` declaration
    /// chain from a target's root that reaches it, the `#[cfg(…)]`
    /// predicates that chain requires (an empty one for a root file). The
    /// file is compiled where all predicates of some chain hold.
    pub fn of(&self, path: &str) -> &[Vec<String>] {
        self.0.get(&file_key(path)).map_or(&[], Vec::as_slice)
    }
}

pub fn discover(
    workspace: &Workspace,
    packages: &[&Package],
    options: &GenerateOptions,
    filter: &MutantFilter,
) -> Result<Discovered> {
    let mut discovered = Discovered::default();
    for package in packages {
        discover_package(&workspace.root, package, options, filter, &mut discovered)?;
    }
    Ok(discovered)
}

fn discover_package(
    root: &Path,
    package: &Package,
    options: &GenerateOptions,
    filter: &MutantFilter,
    discovered: &mut Discovered,
) -> Result<()> {
    // (path, whether the file owns its directory like a crate root or mod.rs)
    let mut queue: VecDeque<(String, bool)> = package
        .root_files
        .iter()
        .map(|path| (path.clone(), true))
        .collect();
    // By normalised path: one file reached by two names is read once.
    let mut seen: HashSet<String> = HashSet::new();
    // (parent, child, the cfgs the declaration requires), by normalised path
    let mut edges: Vec<(String, String, Vec<String>)> = Vec::new();
    while let Some((path, owns_directory)) = queue.pop_front() {
        if !seen.insert(file_key(&path)) {
            continue;
        }
        let code = read_source(&root.join(&path)).with_context(|| format!("cannot read {path}"))?;
        let source_file = Arc::new(SourceFile {
            package: package.name.clone(),
            path: path.clone(),
            code: code.into(),
            edition: package.edition,
        });
        let generated = mutate::generate(&source_file, options);
        discovered
            .warnings
            .extend(generated.warnings.iter().map(ToString::to_string));
        for module_ref in &generated.module_refs {
            match resolve_module(root, &path, owns_directory, module_ref) {
                Ok((child, owns)) => {
                    edges.push((file_key(&path), file_key(&child), module_ref.cfgs.clone()));
                    queue.push_back((child, owns));
                }
                Err(message) => discovered.warnings.push(message),
            }
        }
        if filter.allows_file(&path) {
            discovered.mutants.extend(
                generated
                    .mutants
                    .into_iter()
                    .filter(|mutant| filter.allows_name(&mutant.name)),
            );
            discovered.files.push(source_file);
        }
    }
    let roots = package.root_files.iter().map(|path| file_key(path));
    declaration_chains(roots, &edges, &mut discovered.declarations.0);
    Ok(())
}

/// More ways than this to declare one file, and it counts as declared
/// without conditions (judging it is not worth the work).
const MAX_CHAINS: usize = 16;

/// For each file reachable from `roots` through `edges` (parent, child,
/// cfgs of the declaration), the cfg chains of the ways it is declared.
fn declaration_chains(
    roots: impl Iterator<Item = String>,
    edges: &[(String, String, Vec<String>)],
    chains: &mut HashMap<String, Vec<Vec<String>>>,
) {
    let mut work: VecDeque<(String, Vec<String>)> = roots.map(|root| (root, Vec::new())).collect();
    while let Some((file, mut chain)) = work.pop_front() {
        let known = chains.entry(file.clone()).or_default();
        // A chain that asks for all another asks for adds nothing (this
        // also ends cycles: going round one only lengthens a chain).
        if known
            .iter()
            .any(|k| k.iter().all(|cfg| chain.contains(cfg)))
        {
            continue;
        }
        if known.len() >= MAX_CHAINS {
            chain.clear();
            known.clear();
        }
        known.push(chain.clone());
        for (_, child, cfgs) in edges.iter().filter(|(parent, _, _)| *parent == file) {
            let mut longer = chain.clone();
            longer.extend(cfgs.iter().cloned());
            work.push_back((child.clone(), longer));
        }
    }
}

fn read_source(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)?;
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("the file is not valid UTF-8"))
}

/// Finds the file of a `mod name;` declaration. Returns its path as
/// cargo-mutants names it (the directory joined with a `#[path]` as
/// written: `src/dir/../x.rs`) and whether that file owns its directory (it
/// is a `mod.rs` or was named by `#[path]`).
fn resolve_module(
    root: &Path,
    parent: &str,
    parent_owns_directory: bool,
    module_ref: &ModuleRef,
) -> Result<(String, bool), String> {
    let candidates = module_candidates(parent, parent_owns_directory, module_ref);
    let (child, _) = module_ref
        .parts
        .split_last()
        .expect("a module ref names a module");
    let location = format!(
        "{parent}:{}:{}",
        child.span.start.line, child.span.start.column
    );
    for candidate in &candidates {
        if normalize(candidate).is_none() {
            return Err(format!(
                "{location}: module `{}` is outside the workspace ({candidate}); not mutated",
                child.name
            ));
        }
        // Resolved by the file system, as rustc and cargo-mutants do: `dir`
        // in `dir/../x.rs` must exist.
        if root.join(candidate).is_file() {
            let owns = child.path_attribute.is_some() || candidate.ends_with("/mod.rs");
            return Ok((candidate.clone(), owns));
        }
    }
    Err(format!(
        "{location}: no file for module `{}` (looked for {}); it is not mutated",
        child.name,
        candidates.join(", ")
    ))
}

/// Paths where rustc would look for a module's file, most likely first.
pub fn module_candidates(
    parent: &str,
    parent_owns_directory: bool,
    module_ref: &ModuleRef,
) -> Vec<String> {
    let (child, inline_parents) = module_ref
        .parts
        .split_last()
        .expect("a module ref names a module");
    let parent_dir = match parent.rfind('/') {
        Some(slash) => &parent[..slash],
        None => "",
    };
    // `src/lib.rs` and `src/a/mod.rs` own their directory; `src/a.rs` owns `src/a/`.
    // A `#[path]` on a top-level declaration is relative to the parent's directory.
    let mut dir =
        if parent_owns_directory || (child.path_attribute.is_some() && inline_parents.is_empty()) {
            parent_dir.to_owned()
        } else {
            parent.strip_suffix(".rs").unwrap_or(parent).to_owned()
        };
    for inline in inline_parents {
        let part = inline.path_attribute.as_deref().unwrap_or(&inline.name);
        dir = join(&dir, part);
    }
    match &child.path_attribute {
        Some(path) => vec![join(&dir, path)],
        None => vec![
            join(&dir, &format!("{}.rs", child.name)),
            join(&dir, &format!("{}/mod.rs", child.name)),
        ],
    }
}

/// `dir/rest` as cargo-mutants' paths print (camino's components joined
/// with `/`): empty and `.` parts dropped, except a leading `.`, and `..`
/// kept as written.
fn join(dir: &str, rest: &str) -> String {
    let joined = if dir.is_empty() {
        rest.to_owned()
    } else {
        format!("{dir}/{rest}")
    };
    joined
        .split('/')
        .enumerate()
        .filter(|&(i, part)| !part.is_empty() && (part != "." || i == 0))
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join("/")
}

/// The relative path of the file a mutant's path names: `src/x.rs` for
/// `src/dir/../x.rs`. Files are keyed by it wherever a saved file's path
/// must find them (the language server).
pub fn file_key(name: &str) -> String {
    normalize(name).unwrap_or_else(|| name.to_owned())
}

/// Folds `a/../b` into `b`, the file's one path whatever the name a
/// `#[path]` gave it (`src/dir/../x.rs` is `src/x.rs`); `None` when the
/// path climbs above the workspace root.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => (),
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{declaration_chains, module_candidates, normalize};
    use crate::mutate::{ModuleName, ModuleRef};
    use crate::position::{LineColumn, Span};

    fn module(name: &str, path: Option<&str>) -> ModuleName {
        let at = LineColumn { line: 1, column: 1 };
        ModuleName {
            name: name.to_owned(),
            path_attribute: path.map(str::to_owned),
            span: Span { start: at, end: at },
        }
    }

    fn candidates(parent: &str, owns: bool, parts: Vec<ModuleName>) -> Vec<String> {
        module_candidates(
            parent,
            owns,
            &ModuleRef {
                parts,
                cfgs: Vec::new(),
            },
        )
    }

    #[test]
    fn a_file_declared_twice_keeps_both_cfg_chains_and_cycles_end() {
        let edge = |parent: &str, child: &str, cfgs: &[&str]| {
            (
                parent.to_owned(),
                child.to_owned(),
                cfgs.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            )
        };
        // `#[cfg(unix)] mod sys;` and `#[cfg(windows)] #[path = "sys.rs"]
        // mod other;`; sys.rs declares `mod inner;`, which declares
        // `#[path = "sys.rs"] mod again;` (a cycle).
        let edges = [
            edge("src/lib.rs", "src/sys.rs", &["unix"]),
            edge("src/lib.rs", "src/sys.rs", &["windows"]),
            edge("src/sys.rs", "src/sys/inner.rs", &[]),
            edge("src/sys/inner.rs", "src/sys.rs", &["test"]),
        ];
        let mut chains = HashMap::new();
        declaration_chains(["src/lib.rs".to_owned()].into_iter(), &edges, &mut chains);
        let strings = |chains: &[&[&str]]| -> Vec<Vec<String>> {
            chains
                .iter()
                .map(|chain| chain.iter().map(|c| c.to_string()).collect())
                .collect()
        };
        assert_eq!(chains["src/lib.rs"], strings(&[&[]]));
        assert_eq!(chains["src/sys.rs"], strings(&[&["unix"], &["windows"]]));
        assert_eq!(
            chains["src/sys/inner.rs"],
            strings(&[&["unix"], &["windows"]])
        );
    }

    #[test]
    fn module_files_are_found_where_rustc_looks() {
        assert_eq!(
            candidates("src/lib.rs", true, vec![module("a", None)]),
            ["src/a.rs", "src/a/mod.rs"]
        );
        assert_eq!(
            candidates("src/a.rs", false, vec![module("b", None)]),
            ["src/a/b.rs", "src/a/b/mod.rs"]
        );
        assert_eq!(
            candidates("src/a/mod.rs", true, vec![module("b", None)]),
            ["src/a/b.rs", "src/a/b/mod.rs"]
        );
        assert_eq!(
            candidates(
                "src/lib.rs",
                true,
                vec![module("outer", None), module("inner", None)]
            ),
            ["src/outer/inner.rs", "src/outer/inner/mod.rs"]
        );
    }

    #[test]
    fn path_attributes_are_relative_to_the_declaring_file() {
        assert_eq!(
            candidates("src/a.rs", false, vec![module("x", Some("gen/x_impl.rs"))]),
            ["src/gen/x_impl.rs"]
        );
        assert_eq!(
            candidates(
                "src/a.rs",
                false,
                vec![module("m", None), module("x", Some("y.rs"))]
            ),
            ["src/a/m/y.rs"]
        );
        assert_eq!(
            candidates(
                "src/lib.rs",
                true,
                vec![module("m", Some("elsewhere")), module("x", None)]
            ),
            ["src/elsewhere/x.rs", "src/elsewhere/x/mod.rs"]
        );
    }

    #[test]
    fn path_attributes_keep_parent_steps_as_cargo_mutants_names_them() {
        assert_eq!(
            candidates("src/f/g.rs", false, vec![module("x", Some("../x.rs"))]),
            ["src/f/../x.rs"]
        );
        assert_eq!(
            candidates("src/lib.rs", true, vec![module("x", Some("./gen//x.rs"))]),
            ["src/gen/x.rs"]
        );
    }

    #[test]
    fn normalized_paths_fold_parent_steps_and_refuse_to_leave_the_root() {
        assert_eq!(normalize("src/a/../b.rs").as_deref(), Some("src/b.rs"));
        assert_eq!(normalize("src/./b.rs").as_deref(), Some("src/b.rs"));
        assert_eq!(normalize("src/../../outside.rs"), None);
    }
}
