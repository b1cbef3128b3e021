//! Scratch trees: copies of the workspace in which mutants are applied. The
//! user's tree is only ever read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, Result};

use crate::manifest;

use super::trim::LeftOut;

/// Version-control directories, copied only with `copy_vcs` (as in
/// cargo-mutants).
const VCS_DIRS: &[&str] = &[".git", ".hg", ".bzr", ".svn", "_darcs", ".jj", ".pijul"];

/// The build output directory, at the top of the tree.
const TARGET_DIR: &str = "target";

/// The output of earlier runs, never copied.
const OUTPUT_DIRS: &[&str] = &["mutants.out", "mutants.out.old"];

/// What goes into a scratch copy besides the sources, from
/// `.cargo/mutants.toml`'s keys of the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyOptions {
    /// Copy `.git` and the other VCS directories (for tests that need them).
    pub copy_vcs: bool,
    /// Copy the workspace's top-level `target/` (a warm start for the
    /// baseline build).
    pub copy_target: bool,
    /// Leave out what `.gitignore` files ignore.
    pub gitignore: bool,
}

impl Default for CopyOptions {
    /// mutiny honours `.gitignore` unless told not to (cargo-mutants 27
    /// does not by default; see the user guide's differences).
    fn default() -> Self {
        CopyOptions {
            copy_vcs: false,
            copy_target: false,
            gitignore: true,
        }
    }
}

/// A copy of a source tree in a temporary directory, deleted on drop.
#[derive(Debug)]
pub struct ScratchTree {
    dir: tempfile::TempDir,
    root: PathBuf,
    copy: CopyOptions,
    /// What came from the user's tree (relative paths of files, symlinks
    /// and directories, not the `target/` build output): what a sync may
    /// delete again. Anything else in the tree (build output, a generated
    /// `Cargo.lock`) is the tree's own.
    from_source: BTreeSet<PathBuf>,
    /// Dev-dependencies the copy's manifests leave out.
    left_out: LeftOut,
}

impl ScratchTree {
    /// Copies the tree at `source` (a workspace root), leaving out what
    /// `copy` leaves out (by default what `.gitignore` files ignore, VCS
    /// directories and the top-level `target/`) and earlier runs' output.
    /// Relative path dependencies that point outside the tree are rewritten
    /// to absolute paths in the copy so that it still builds.
    pub fn copy_from(source: &Path, copy: CopyOptions) -> Result<ScratchTree> {
        let left_out = LeftOut::default();
        let (dir, root) = new_scratch_dir(source)?;
        let mut from_source = BTreeSet::new();
        for_each_source_entry(source, copy, |relative, from, file_type| {
            let to = root.join(relative);
            if !relative.starts_with(TARGET_DIR) {
                from_source.insert(relative.to_owned());
            }
            match rewritten_text(source, relative, file_type, &left_out) {
                Some(text) => write_file(&to, &text?),
                None => copy_entry(from, &to, file_type),
            }
        })?;
        Ok(ScratchTree {
            dir,
            root,
            copy,
            from_source,
            left_out,
        })
    }

    /// From now on (and at every sync) leaves the dev-dependencies
    /// `left_out` out of the copy's manifests; `source` is the tree it
    /// copies.
    pub fn leave_out(&mut self, source: &Path, left_out: LeftOut) -> Result<()> {
        for relative in left_out.manifests() {
            let text = manifest::copy_text(source, relative, left_out.keys(relative))?;
            write_file(&self.root.join(relative), &text)?;
        }
        self.left_out = left_out;
        Ok(())
    }

    /// Brings the copy up to date with `source` (the tree it was copied
    /// from): files whose content differs are copied again with a new
    /// modification time, so cargo rebuilds what they feed; files (and the
    /// directories they leave empty) that are gone from `source` or now
    /// ignored are deleted, so a deleted test no longer runs here. The
    /// tree's own files (`target/`, a generated `Cargo.lock`) are left
    /// alone. Returns the relative paths that changed or were deleted.
    pub fn sync_from(&mut self, source: &Path) -> Result<Vec<PathBuf>> {
        let mut changed = Vec::new();
        let mut now = BTreeSet::new();
        // The tree's build output is its own: the user's `target/` is
        // copied at most once, at the start.
        let copy = CopyOptions {
            copy_target: false,
            ..self.copy
        };
        for_each_source_entry(source, copy, |relative, from, file_type| {
            now.insert(relative.to_owned());
            let to = self.root.join(relative);
            if file_type.is_dir() {
                std::fs::create_dir_all(&to)?;
                return Ok(());
            }
            if file_type.is_symlink() {
                if std::fs::symlink_metadata(&to).is_err() {
                    copy_symlink(from, &to)?;
                    changed.push(relative.to_owned());
                }
                return Ok(());
            }
            if !file_type.is_file() {
                return Ok(());
            }
            if let Some(text) = rewritten_text(source, relative, file_type, &self.left_out) {
                let text = text?;
                if std::fs::read(&to).ok().as_deref() == Some(text.as_bytes()) {
                    return Ok(());
                }
                write_file(&to, &text)?;
            } else if same_content(from, &to) {
                return Ok(());
            } else {
                std::fs::copy(from, &to)
                    .with_context(|| format!("cannot copy {}", from.display()))?;
            }
            changed.push(relative.to_owned());
            Ok(())
        })?;
        // Deepest first, so a directory's files go before the directory.
        let gone: Vec<PathBuf> = self.from_source.difference(&now).cloned().collect();
        for gone in gone.into_iter().rev() {
            let path = self.root.join(&gone);
            let Ok(metadata) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if metadata.is_dir() {
                // A directory that still holds the tree's own files (build
                // output of a build script, say) stays.
                if std::fs::remove_dir(&path).is_err() {
                    continue;
                }
            } else {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot delete {}", path.display()))?;
            }
            changed.push(gone);
        }
        self.from_source = now;
        Ok(changed)
    }

    /// Copies this scratch tree, build output included, into a new one. The
    /// copy keeps modification times, so cargo finds the copied build fresh
    /// and the new tree's first build is incremental.
    pub fn duplicate(&self) -> Result<ScratchTree> {
        let (dir, root) = new_scratch_dir(&self.root)?;
        let mut stack = vec![self.root.clone()];
        while let Some(from_dir) = stack.pop() {
            let entries = std::fs::read_dir(&from_dir)
                .with_context(|| format!("cannot list {}", from_dir.display()))?;
            for entry in entries {
                let entry = entry?;
                let from = entry.path();
                let relative = from.strip_prefix(&self.root).expect("under the root");
                let file_type = entry.file_type()?;
                copy_entry(&from, &root.join(relative), file_type)?;
                if file_type.is_dir() {
                    stack.push(from);
                }
            }
        }
        Ok(ScratchTree {
            dir,
            root,
            copy: self.copy,
            from_source: self.from_source.clone(),
            left_out: self.left_out.clone(),
        })
    }

    /// The dev-dependencies the copy's manifests leave out.
    pub fn left_out(&self) -> &LeftOut {
        &self.left_out
    }

    /// The copy's root, corresponding to the source tree's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Deletes the copy now, reporting failure (dropping also deletes it).
    pub fn delete(self) -> Result<()> {
        self.dir.close().context("cannot delete the scratch tree")
    }
}

/// Calls `visit(relative, path, type)` for each entry of the user's tree
/// that belongs in a scratch copy, as cargo-mutants chooses them: not
/// `mutants.out`, not VCS directories or the top-level `target/` unless
/// `copy` says so, not ignored by `.gitignore` when `copy.gitignore`.
/// Directories come before their contents.
fn for_each_source_entry(
    source: &Path,
    copy: CopyOptions,
    mut visit: impl FnMut(&Path, &Path, std::fs::FileType) -> Result<()>,
) -> Result<()> {
    let top_level_target = source.join(TARGET_DIR);
    let walk = ignore::WalkBuilder::new(source)
        .hidden(false)
        .ignore(false)
        .git_ignore(copy.gitignore)
        .git_exclude(false)
        .git_global(false)
        .require_git(false)
        .parents(false)
        .filter_entry(move |entry| {
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            !(OUTPUT_DIRS.contains(&name.as_ref())
                || (!copy.copy_vcs && VCS_DIRS.contains(&name.as_ref()))
                || (!copy.copy_target && entry.path() == top_level_target))
        })
        .build();
    for entry in walk {
        let entry = entry.with_context(|| format!("cannot list {}", source.display()))?;
        let relative = entry
            .path()
            .strip_prefix(source)
            .expect("walk stays under its root");
        if relative.as_os_str().is_empty() {
            continue;
        }
        let file_type = entry.file_type().context("entry has a file type")?;
        visit(relative, entry.path(), file_type)?;
    }
    Ok(())
}

/// The text a file gets in scratch copies when it is not copied byte for
/// byte: every manifest, and the workspace's cargo config, with relative
/// paths that leave the workspace made absolute (the copy is elsewhere).
fn rewritten_text(
    source: &Path,
    relative: &Path,
    file_type: std::fs::FileType,
    left_out: &LeftOut,
) -> Option<Result<String>> {
    if !file_type.is_file() {
        return None;
    }
    if relative.file_name() == Some("Cargo.toml".as_ref()) {
        Some(manifest::copy_text(
            source,
            relative,
            left_out.keys(relative),
        ))
    } else if [".cargo/config.toml", ".cargo/config"]
        .iter()
        .any(|config| relative == Path::new(config))
    {
        Some(manifest::config_copy_text(source, relative))
    } else {
        None
    }
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// True when both files exist with the same bytes. (Modification times
/// cannot tell: a scratch tree's files are rewritten by every mutant.)
fn same_content(a: &Path, b: &Path) -> bool {
    let (Ok(meta_a), Ok(meta_b)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    meta_a.len() == meta_b.len()
        && matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

/// A fresh temporary directory holding an empty folder named like `source`.
fn new_scratch_dir(source: &Path) -> Result<(tempfile::TempDir, PathBuf)> {
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "workspace".to_owned());
    let dir = owned_temp_dir(&format!("mutiny-{name}-"))?;
    let root = dir.path().join(&name);
    std::fs::create_dir(&root)?;
    std::fs::create_dir(dir.path().join(COMMAND_TMP))?;
    Ok((dir, root))
}

/// The name of the file that says which process owns a scratch directory.
const OWNER_FILE: &str = "mutiny-owner";

/// The directory, beside a scratch tree, that its commands use as TMPDIR:
/// what a killed compiler or rustdoc leaves there goes with the tree.
const COMMAND_TMP: &str = "tmp";

/// The temporary directory the commands run in the tree at `root` use.
pub fn command_tmp(root: &Path) -> PathBuf {
    root.parent().unwrap_or(root).join(COMMAND_TMP)
}

/// The system's temporary directory as this process found it, before
/// `enter_process_temp_dir` pointed TMPDIR at the process's own.
static SYSTEM_TEMP_DIR: OnceLock<PathBuf> = OnceLock::new();

/// Where scratch directories go and where the sweep looks: the system's
/// temporary directory.
pub fn system_temp_dir() -> PathBuf {
    SYSTEM_TEMP_DIR
        .get()
        .cloned()
        .unwrap_or_else(std::env::temp_dir)
}

/// Gives this process a temporary directory of its own, owned like a
/// scratch directory (`mutiny-process-…`), and makes it the process's
/// TMPDIR: what code running inside mutiny puts in the temporary directory
/// (rust-analyzer's copy of `Cargo.lock` while it loads a workspace, the
/// proc-macro server it starts) then lies in a directory the next mutiny
/// sweeps if this one is killed. The directory goes when the returned
/// value is dropped.
///
/// # Safety
/// Sets an environment variable: call it before the process starts any
/// thread (first thing in `main`).
pub unsafe fn enter_process_temp_dir() -> Result<tempfile::TempDir> {
    let _ = SYSTEM_TEMP_DIR.set(std::env::temp_dir());
    let dir = owned_temp_dir("mutiny-process-")?;
    std::env::set_var("TMPDIR", dir.path());
    let _ = PROCESS_TEMP_DIR.set(dir.path().to_owned());
    Ok(dir)
}

/// The process's own temporary directory, once entered.
static PROCESS_TEMP_DIR: OnceLock<PathBuf> = OnceLock::new();

/// Deletes the process's own temporary directory ahead of the process's
/// end, for a language server answering `shutdown`: some clients kill the
/// server the moment it has answered.
pub fn remove_process_temp_dir() {
    if let Some(dir) = PROCESS_TEMP_DIR.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A new directory in the system's temporary directory, marked as this
/// process's (`mutiny-owner`: its pid and start time), so that a later
/// mutiny can delete it once this process is gone (`sweep_abandoned`).
pub fn owned_temp_dir(prefix: &str) -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(system_temp_dir())
        .context("cannot create a scratch directory")?;
    let pid = std::process::id();
    let owner = format!("{pid} {}\n", start_time(pid).unwrap_or_default());
    std::fs::write(dir.path().join(OWNER_FILE), owner)
        .with_context(|| format!("cannot write in {}", dir.path().display()))?;
    Ok(dir)
}

/// Deletes the scratch directories in the system's temporary directory
/// whose owner is no longer running (a mutiny killed by SIGKILL cannot
/// delete its own); returns them. A directory whose owner runs, or whose
/// owner cannot be told, is left alone.
pub fn sweep_abandoned() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(system_temp_dir()) else {
        return Vec::new();
    };
    let mut swept = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let named_ours = entry.file_name().to_string_lossy().starts_with("mutiny-");
        if !named_ours || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(owner) = std::fs::read_to_string(path.join(OWNER_FILE)) else {
            continue;
        };
        if owner_is_gone(&owner) && remove_owner_last(&path).is_ok() {
            swept.push(path);
        }
    }
    swept.sort();
    swept
}

/// Deletes an abandoned directory, its owner file last: a removal cut
/// short (a file still held open) leaves the mark, so the next sweep
/// tries again instead of taking the rest for nobody's.
fn remove_owner_last(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == OWNER_FILE {
            continue;
        }
        match entry.file_type()?.is_dir() {
            true => std::fs::remove_dir_all(entry.path())?,
            false => std::fs::remove_file(entry.path())?,
        }
    }
    std::fs::remove_dir_all(dir)
}

/// Whether the process an owner file names (`PID START_TIME`) is gone:
/// no such process, or another one that got its pid since.
fn owner_is_gone(owner: &str) -> bool {
    let mut fields = owner.split_whitespace();
    let (Some(Ok(pid)), Some(started)) = (fields.next().map(str::parse::<u32>), fields.next())
    else {
        return false;
    };
    if !cfg!(target_os = "linux") {
        // No way to tell here without /proc: keep it.
        return false;
    }
    match start_time(pid) {
        None => true,
        Some(now) => now != started,
    }
}

/// A process's start time, as Linux's /proc/PID/stat gives it (clock ticks
/// since boot, field 22); `None` when there is no such process.
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count after its ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19).map(str::to_owned)
}

/// Copies one file, symlink or (empty) directory, keeping a file's
/// modification time: cargo decides what to rebuild by comparing them.
fn copy_entry(from: &Path, to: &Path, file_type: std::fs::FileType) -> Result<()> {
    if file_type.is_dir() {
        std::fs::create_dir_all(to)?;
    } else if file_type.is_file() {
        std::fs::copy(from, to).with_context(|| format!("cannot copy {}", from.display()))?;
        // Best effort: a read-only file keeps the copy time, which only
        // costs a rebuild.
        if let Ok(modified) = std::fs::metadata(from).and_then(|m| m.modified()) {
            if let Ok(file) = std::fs::File::options().write(true).open(to) {
                let _ = file.set_modified(modified);
            }
        }
    } else if file_type.is_symlink() {
        copy_symlink(from, to)?;
    }
    Ok(())
}

#[cfg(unix)]
fn copy_symlink(from: &Path, to: &Path) -> Result<()> {
    let target = std::fs::read_link(from)?;
    std::os::unix::fs::symlink(target, to)?;
    Ok(())
}

#[cfg(not(unix))]
fn copy_symlink(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::{
        owned_temp_dir, owner_is_gone, start_time, sweep_abandoned, CopyOptions, ScratchTree,
    };

    /// The pid and start time of a process that has exited and been reaped.
    fn gone_owner() -> String {
        let mut child = std::process::Command::new("sleep")
            .arg("0.2")
            .spawn()
            .unwrap();
        let pid = child.id();
        let started = start_time(pid).unwrap();
        child.wait().unwrap();
        format!("{pid} {started}\n")
    }

    #[test]
    fn an_owner_is_gone_once_its_process_is_not_running() {
        let own = std::process::id();
        let running = format!("{own} {}\n", start_time(own).unwrap());
        assert!(!owner_is_gone(&running));
        assert!(owner_is_gone(&gone_owner()));
        assert!(owner_is_gone(&format!("{own} 1\n")), "a reused pid");
        assert!(!owner_is_gone("garbage"), "an unreadable owner is kept");
    }

    #[test]
    fn sweeping_deletes_scratch_directories_of_gone_owners_only() {
        let abandoned = owned_temp_dir("mutiny-sweep-test-").unwrap().keep();
        std::fs::write(abandoned.join("mutiny-owner"), gone_owner()).unwrap();
        std::fs::create_dir(abandoned.join("tree")).unwrap();
        let live = owned_temp_dir("mutiny-sweep-test-").unwrap();
        let unmarked = tempfile::Builder::new()
            .prefix("mutiny-sweep-test-")
            .tempdir()
            .unwrap();
        let swept = sweep_abandoned();
        assert!(swept.contains(&abandoned), "{swept:?}");
        assert!(!abandoned.exists());
        assert!(live.path().exists(), "a running owner's directory stays");
        assert!(
            unmarked.path().exists(),
            "a directory without an owner stays"
        );
    }

    fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/");
                    out.insert(relative, std::fs::read(&path).unwrap());
                }
            }
        }
        out
    }

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn copy_leaves_out_build_output_vcs_and_ignored_files() {
        let source = tempfile::tempdir().unwrap();
        let root = source.path();
        write(root, "Cargo.toml", "[package]\nname = \"x\"\n");
        write(root, "src/lib.rs", "pub fn f() {}\n");
        write(root, ".cargo/mutants.toml", "exclude_re = []\n");
        write(root, ".gitignore", "*.log\nscratch/\n");
        write(root, "debug.log", "noise");
        write(root, "scratch/tmp.rs", "noise");
        write(root, "target/debug/x", "binary");
        write(root, ".git/HEAD", "ref: refs/heads/main");
        write(root, "mutants.out/outcomes.json", "{}");
        write(root, "src/target/mod.rs", "// a module named target");
        let before = files(root);

        let scratch = ScratchTree::copy_from(root, CopyOptions::default()).unwrap();
        let copied: Vec<String> = files(scratch.root()).into_keys().collect();
        assert_eq!(
            copied,
            [
                ".cargo/mutants.toml",
                ".gitignore",
                "Cargo.toml",
                "src/lib.rs",
                "src/target/mod.rs"
            ]
        );
        assert_eq!(files(root), before, "the source tree is unchanged");

        let scratch_dir = scratch.root().to_owned();
        scratch.delete().unwrap();
        assert!(!scratch_dir.exists());
    }

    #[test]
    fn cargo_config_paths_leaving_the_tree_become_absolute_in_the_copy() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        write(&root, ".cargo/config.toml", "paths = [\"../patched\"]\n");
        write(
            &root,
            "sub/.cargo/config.toml",
            "paths = [\"../patched\"]\n",
        );
        let scratch = ScratchTree::copy_from(&root, CopyOptions::default()).unwrap();
        let patched = outer.path().join("patched");
        let config = std::fs::read_to_string(scratch.root().join(".cargo/config.toml")).unwrap();
        assert_eq!(
            config,
            format!("paths = [{:?}]\n", patched.display().to_string())
        );
        let nested =
            std::fs::read_to_string(scratch.root().join("sub/.cargo/config.toml")).unwrap();
        assert_eq!(
            nested, "paths = [\"../patched\"]\n",
            "inside the copy, it still holds"
        );
    }

    #[test]
    fn copy_options_bring_vcs_target_and_ignored_files_along() {
        let source = tempfile::tempdir().unwrap();
        let root = source.path();
        write(root, "Cargo.toml", "[package]\nname = \"x\"\n");
        write(root, ".gitignore", "*.log\n");
        write(root, "debug.log", "noise");
        write(root, "target/debug/x", "binary");
        write(root, ".git/HEAD", "ref: refs/heads/main");
        write(root, "mutants.out/outcomes.json", "{}");
        let copied = |copy: CopyOptions| -> Vec<String> {
            let scratch = ScratchTree::copy_from(root, copy).unwrap();
            files(scratch.root()).into_keys().collect()
        };
        let none = CopyOptions::default();
        assert_eq!(copied(none), [".gitignore", "Cargo.toml"]);
        let vcs = CopyOptions {
            copy_vcs: true,
            ..none
        };
        assert_eq!(copied(vcs), [".git/HEAD", ".gitignore", "Cargo.toml"]);
        let target = CopyOptions {
            copy_target: true,
            ..none
        };
        assert_eq!(
            copied(target),
            [".gitignore", "Cargo.toml", "target/debug/x"]
        );
        let ignored_too = CopyOptions {
            gitignore: false,
            ..none
        };
        assert_eq!(
            copied(ignored_too),
            [".gitignore", "Cargo.toml", "debug.log"]
        );
    }

    #[test]
    fn copied_files_are_byte_identical() {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/modules");
        let scratch = ScratchTree::copy_from(&source, CopyOptions::default()).unwrap();
        let mut expected = files(&source);
        expected.retain(|path, _| !path.starts_with("target/"));
        assert_eq!(files(scratch.root()), expected);
    }

    #[test]
    fn sync_copies_changed_files_only_and_keeps_fixed_manifests() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        write(
            &root,
            "Cargo.toml",
            "[dependencies]\nh = { path = \"../helper\" }\n",
        );
        write(&root, "src/lib.rs", "pub fn f() {}\n");
        write(&root, "src/other.rs", "pub fn g() {}\n");
        let mut scratch = ScratchTree::copy_from(&root, CopyOptions::default()).unwrap();
        let manifest = std::fs::read_to_string(scratch.root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&outer.path().join("helper").display().to_string()));

        assert!(scratch.sync_from(&root).unwrap().is_empty());
        write(&root, "src/lib.rs", "pub fn f() { changed() }\n");
        write(&root, "src/new.rs", "pub fn h() {}\n");
        let mut changed = scratch.sync_from(&root).unwrap();
        changed.sort();
        assert_eq!(changed, [Path::new("src/lib.rs"), Path::new("src/new.rs")]);
        assert_eq!(files(scratch.root()), {
            let mut expected = files(&root);
            expected.insert("Cargo.toml".into(), manifest.into_bytes());
            expected
        });
    }

    #[test]
    fn sync_deletes_what_left_the_source_or_is_now_ignored_but_not_the_trees_own_files() {
        let source = tempfile::tempdir().unwrap();
        let root = source.path();
        write(root, "Cargo.toml", "[package]\nname = \"x\"\n");
        write(root, "src/lib.rs", "pub fn f() {}\n");
        write(root, "tests/x.rs", "#[test]\nfn t() {}\n");
        write(root, "tests/data/input.txt", "data");
        write(root, "notes.md", "notes");
        let mut scratch = ScratchTree::copy_from(root, CopyOptions::default()).unwrap();
        // What the tree makes itself: build output, a resolved lock file.
        write(scratch.root(), "target/debug/x", "binary");
        write(scratch.root(), "Cargo.lock", "# generated");
        assert!(scratch.sync_from(root).unwrap().is_empty());

        std::fs::remove_file(root.join("tests/x.rs")).unwrap();
        std::fs::remove_dir_all(root.join("tests/data")).unwrap();
        write(root, ".gitignore", "notes.md\n");
        let mut changed = scratch.sync_from(root).unwrap();
        changed.sort();
        assert_eq!(
            changed,
            [
                Path::new(".gitignore"),
                Path::new("notes.md"),
                Path::new("tests/data"),
                Path::new("tests/data/input.txt"),
                Path::new("tests/x.rs"),
            ]
        );
        let left: Vec<String> = files(scratch.root()).into_keys().collect();
        assert_eq!(
            left,
            [
                ".gitignore",
                "Cargo.lock",
                "Cargo.toml",
                "src/lib.rs",
                "target/debug/x"
            ]
        );
        assert!(scratch.root().join("tests").is_dir(), "still in the source");
        assert!(!scratch.root().join("tests/data").exists());

        let mut copy = scratch.duplicate().unwrap();
        write(root, "src/gone.rs", "");
        copy.sync_from(root).unwrap();
        std::fs::remove_file(root.join("src/gone.rs")).unwrap();
        assert_eq!(copy.sync_from(root).unwrap(), [Path::new("src/gone.rs")]);
        assert!(!copy.root().join("src/gone.rs").exists());
    }
}
