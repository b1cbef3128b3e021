//! Files changed outside the editor (a `git checkout`, a formatter,
//! generated code). The client tells of them (`workspace/didChangeWatchedFiles`,
//! registered dynamically for [`GLOBS`]) where it can; elsewhere `notify`
//! watches the workspace. The one home of `notify`.

use std::path::{Component, Path, PathBuf};

use notify::{EventKind, RecursiveMode, Watcher as _};

/// What the client is asked to watch.
pub const GLOBS: [&str; 3] = ["**/*.rs", "**/Cargo.toml", "**/Cargo.lock"];

/// A `notify` watcher over the workspace; dropping it stops it.
pub type Watcher = notify::RecommendedWatcher;

/// Whether a change to `path` matters: a Rust source or a manifest inside
/// `root`, outside build output (`target/`) and hidden directories.
pub fn relevant(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return false;
    };
    let hidden_or_output = relative.components().any(|part| match part {
        Component::Normal(name) => {
            let name = name.to_string_lossy();
            name == "target" || name.starts_with('.')
        }
        _ => false,
    });
    if hidden_or_output {
        return false;
    }
    let name = relative.file_name().map(|n| n.to_string_lossy());
    path.extension().is_some_and(|e| e == "rs")
        || name.is_some_and(|n| n == "Cargo.toml" || n == "Cargo.lock")
}

/// Watches `root` and its subdirectories, calling `on_change` with the
/// relevant paths of each batch of events (created, changed, removed,
/// renamed).
pub fn watch(
    root: &Path,
    on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
) -> notify::Result<Watcher> {
    let owned = root.to_owned();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else {
            return;
        };
        if matches!(event.kind, EventKind::Access(_) | EventKind::Other) {
            return;
        }
        let paths: Vec<PathBuf> = event
            .paths
            .into_iter()
            .filter(|path| relevant(&owned, path))
            .collect();
        if !paths.is_empty() {
            on_change(paths);
        }
    })?;
    watcher.watch(root, RecursiveMode::Recursive)?;
    Ok(watcher)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_manifests_matter_build_output_and_hidden_directories_do_not() {
        let root = Path::new("/w");
        for path in ["/w/src/lib.rs", "/w/Cargo.toml", "/w/a/b/Cargo.lock"] {
            assert!(relevant(root, Path::new(path)), "{path}");
        }
        for path in [
            "/w/target/debug/build/x/out/gen.rs",
            "/w/.git/HEAD",
            "/w/.hidden/x.rs",
            "/w/README.md",
            "/elsewhere/src/lib.rs",
        ] {
            assert!(!relevant(root, Path::new(path)), "{path}");
        }
    }
}
