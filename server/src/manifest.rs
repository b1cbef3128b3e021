//! Reading and editing `Cargo.toml` and `.cargo/config.toml` text, keeping
//! its formatting (the interface to `toml_edit`): scratch copies get
//! outside-pointing path dependencies and `paths` overrides made absolute,
//! and the skip quick fix adds the `mutants` dependency.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};
use toml_edit::{DocumentMut, Item, Table, TableLike};

/// The text a scratch copy of the manifest at `relative` (under
/// `source_root`) should have: the user's, with every relative dependency
/// path that climbs out of `source_root` made absolute, and without the
/// dev-dependencies keyed `left_out`.
pub fn copy_text(source_root: &Path, relative: &Path, left_out: &[String]) -> Result<String> {
    let original = source_root.join(relative);
    let text = std::fs::read_to_string(&original)
        .with_context(|| format!("cannot read {}", original.display()))?;
    let manifest_dir = original.parent().unwrap_or(source_root);
    let text = fixed_manifest(&text, source_root, manifest_dir).unwrap_or(text);
    Ok(without_dev_dependencies(&text, left_out).unwrap_or(text))
}

/// The manifest text without the dev-dependencies keyed `keys`, in
/// `[dev-dependencies]` and every `[target.….dev-dependencies]`, or `None`
/// when there is nothing to remove (or the text does not parse).
fn without_dev_dependencies(text: &str, keys: &[String]) -> Option<String> {
    if keys.is_empty() {
        return None;
    }
    let mut document: DocumentMut = text.parse().ok()?;
    let mut changed = false;
    let mut remove = |table: &mut Table| {
        for name in ["dev-dependencies", "dev_dependencies"] {
            let Some(section) = table.get_mut(name).and_then(Item::as_table_like_mut) else {
                continue;
            };
            for key in keys {
                changed |= section.remove(key).is_some();
            }
        }
    };
    let root = document.as_table_mut();
    remove(root);
    if let Some(targets) = root.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            if let Some(target) = target.as_table_mut() {
                remove(target);
            }
        }
    }
    changed.then(|| document.to_string())
}

/// The text a scratch copy of the workspace's cargo config at `relative`
/// (`.cargo/config.toml`, under `source_root`) should have: the user's,
/// with each relative `paths` override that climbs out of `source_root`
/// made absolute, as cargo-mutants does. (Such paths are relative to the
/// directory holding `.cargo/`, here `source_root`.)
pub fn config_copy_text(source_root: &Path, relative: &Path) -> Result<String> {
    let original = source_root.join(relative);
    let text = std::fs::read_to_string(&original)
        .with_context(|| format!("cannot read {}", original.display()))?;
    Ok(fixed_config(&text, source_root).unwrap_or(text))
}

/// The config text with outside `paths` made absolute, or `None` when there
/// is nothing to change (or it does not parse: cargo will say why).
fn fixed_config(text: &str, source_root: &Path) -> Option<String> {
    let mut document: DocumentMut = text.parse().ok()?;
    let paths = document.get_mut("paths")?.as_array_mut()?;
    let mut changed = false;
    for value in paths.iter_mut() {
        let Some(absolute) = value
            .as_str()
            .and_then(|path| outside_path(path, source_root, source_root))
        else {
            continue;
        };
        let decor = value.decor().clone();
        *value = absolute.to_string_lossy().as_ref().into();
        *value.decor_mut() = decor;
        changed = true;
    }
    changed.then(|| document.to_string())
}

/// The version of the `mutants` crate (the latest published) that the skip
/// quick fix adds.
pub const MUTANTS_CRATE_VERSION: &str = "0.0.4";

/// The manifest text with `mutants = "0.0.4"` added to `[dependencies]`, or
/// `None` when the package already depends on `mutants` there (or the text
/// does not parse).
pub fn with_mutants_dependency(text: &str) -> Option<String> {
    let mut document: DocumentMut = text.parse().ok()?;
    let root = document.as_table_mut();
    if !root.contains_key("dependencies") {
        root.insert("dependencies", Item::Table(Table::new()));
    }
    let dependencies = root.get_mut("dependencies")?.as_table_like_mut()?;
    if dependencies.contains_key("mutants") {
        return None;
    }
    dependencies.insert("mutants", toml_edit::value(MUTANTS_CRATE_VERSION));
    Some(document.to_string())
}

/// The manifest text with outside paths made absolute, or `None` when there
/// is nothing to change (or the manifest does not parse: cargo will say why).
fn fixed_manifest(text: &str, source_root: &Path, manifest_dir: &Path) -> Option<String> {
    let mut document: DocumentMut = text.parse().ok()?;
    let mut changed = false;
    let mut fix = |table: &mut dyn TableLike| {
        for (_, dependency) in table.iter_mut() {
            let Some(dependency) = dependency.as_table_like_mut() else {
                continue;
            };
            let Some(path) = dependency.get("path").and_then(Item::as_str) else {
                continue;
            };
            if let Some(absolute) = outside_path(path, source_root, manifest_dir) {
                dependency.insert(
                    "path",
                    toml_edit::value(absolute.to_string_lossy().as_ref()),
                );
                changed = true;
            }
        }
    };
    let root = document.as_table_mut();
    for_each_dependency_table(root, &mut fix);
    if let Some(workspace) = root.get_mut("workspace").and_then(Item::as_table_like_mut) {
        if let Some(table) = workspace
            .get_mut("dependencies")
            .and_then(Item::as_table_like_mut)
        {
            fix(table);
        }
    }
    if let Some(targets) = root.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            if let Some(target) = target.as_table_mut() {
                for_each_dependency_table(target, &mut fix);
            }
        }
    }
    for name in ["patch", "replace"] {
        let Some(section) = root.get_mut(name).and_then(Item::as_table_like_mut) else {
            continue;
        };
        if name == "replace" {
            fix(section);
            continue;
        }
        for (_, registry) in section.iter_mut() {
            if let Some(registry) = registry.as_table_like_mut() {
                fix(registry);
            }
        }
    }
    changed.then(|| document.to_string())
}

fn for_each_dependency_table(table: &mut Table, fix: &mut impl FnMut(&mut dyn TableLike)) {
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(dependencies) = table.get_mut(key).and_then(Item::as_table_like_mut) {
            fix(dependencies);
        }
    }
}

/// The absolute path for `path` (relative to `manifest_dir`) when it leaves
/// `source_root`; `None` for absolute paths and paths that stay inside.
fn outside_path(path: &str, source_root: &Path, manifest_dir: &Path) -> Option<PathBuf> {
    if Path::new(path).is_absolute() {
        return None;
    }
    let mut resolved = PathBuf::new();
    for component in manifest_dir.join(path).components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    (!resolved.starts_with(source_root)).then_some(resolved)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::fixed_manifest;

    fn fix(text: &str) -> Option<String> {
        fixed_manifest(text, Path::new("/src/ws"), Path::new("/src/ws/app"))
    }

    #[test]
    fn paths_leaving_the_workspace_become_absolute() {
        let text = r#"[package]
name = "app"

[dependencies]
helper = { path = "../../helper" } # outside
inside = { path = "../core" }
serde = "1"

[dev-dependencies.tools]
path = "../../tools"

[target.'cfg(unix)'.dependencies]
sys = { path = "../../sys", version = "0.1" }

[patch.crates-io]
regex = { path = "../../regex" }
"#;
        let expected = r#"[package]
name = "app"

[dependencies]
helper = { path = "/src/helper" } # outside
inside = { path = "../core" }
serde = "1"

[dev-dependencies.tools]
path = "/src/tools"

[target.'cfg(unix)'.dependencies]
sys = { path = "/src/sys", version = "0.1" }

[patch.crates-io]
regex = { path = "/src/regex" }
"#;
        assert_eq!(fix(text).as_deref(), Some(expected));
    }

    #[test]
    fn manifests_without_outside_paths_are_left_alone() {
        assert_eq!(fix("[dependencies]\ncore = { path = \"../core\" }\n"), None);
        assert_eq!(fix("[dependencies]\nx = { path = \"/abs/x\" }\n"), None);
        assert_eq!(fix("not toml ["), None);
    }

    #[test]
    fn workspace_dependencies_are_fixed_too() {
        let fixed = fixed_manifest(
            "[workspace.dependencies]\nhelper = { path = \"../helper\" }\n",
            Path::new("/src/ws"),
            Path::new("/src/ws"),
        );
        assert_eq!(
            fixed.as_deref(),
            Some("[workspace.dependencies]\nhelper = { path = \"/src/helper\" }\n")
        );
    }

    #[test]
    fn config_paths_leaving_the_workspace_become_absolute_keeping_the_rest() {
        let text = "# overrides\npaths = [\"../patched\", # outside\n  \"vendor/x\", \"/abs/y\"]\n\n[build]\njobs = 2\n";
        let fixed = super::fixed_config(text, Path::new("/src/ws"));
        assert_eq!(
            fixed.as_deref(),
            Some("# overrides\npaths = [\"/src/patched\", # outside\n  \"vendor/x\", \"/abs/y\"]\n\n[build]\njobs = 2\n")
        );
        assert_eq!(
            super::fixed_config("paths = [\"vendor/x\"]\n", Path::new("/src/ws")),
            None
        );
        assert_eq!(
            super::fixed_config("[build]\njobs = 2\n", Path::new("/src/ws")),
            None
        );
        assert_eq!(
            super::fixed_config("not toml [", Path::new("/src/ws")),
            None
        );
    }

    #[test]
    fn mutants_dependency_is_added_once_keeping_the_rest() {
        let text = "[package]\nname = \"x\" # keep\n\n[dependencies]\nserde = \"1\"\n";
        assert_eq!(
            super::with_mutants_dependency(text).as_deref(),
            Some("[package]\nname = \"x\" # keep\n\n[dependencies]\nserde = \"1\"\nmutants = \"0.0.4\"\n")
        );
        let added = super::with_mutants_dependency("[package]\nname = \"x\"\n").unwrap();
        assert_eq!(
            added,
            "[package]\nname = \"x\"\n\n[dependencies]\nmutants = \"0.0.4\"\n"
        );
        assert_eq!(super::with_mutants_dependency(&added), None);
    }
}
