//! `--in-diff FILE`: keep only mutants on lines that a unified diff (from
//! `git diff`, say) touches, so a pull request tests only what it changed.

use std::collections::{BTreeSet, HashMap};

use anyhow::{bail, Context, Result};

use crate::mutate::Mutant;

/// The lines of the new side of each file that a diff adds, or next to
/// which it deletes, keyed by path relative to the diff's root.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ChangedLines {
    by_path: HashMap<String, BTreeSet<usize>>,
}

impl ChangedLines {
    /// Reads a unified diff. Paths lose git's `a/` and `b/` prefixes.
    pub fn parse(diff: &str) -> Result<ChangedLines> {
        let mut changed = ChangedLines::default();
        let mut current: Option<String> = None;
        let mut line_number = 0usize;
        for (index, text) in diff.lines().enumerate() {
            if let Some(path) = text.strip_prefix("+++ ") {
                let path = path.split('\t').next().unwrap_or(path).trim_end();
                current = (path != "/dev/null").then(|| strip_prefix(path).to_owned());
            } else if text.starts_with("--- ") {
                continue;
            } else if let Some(header) = text.strip_prefix("@@ ") {
                line_number = hunk_new_start(header)
                    .with_context(|| format!("line {}: bad hunk header {text:?}", index + 1))?;
            } else if let Some(path) = &current {
                let lines = changed.by_path.entry(path.clone()).or_default();
                match text.as_bytes().first() {
                    Some(b'+') => {
                        lines.insert(line_number);
                        line_number += 1;
                    }
                    // A deletion touches the lines on both sides of the gap.
                    Some(b'-') => {
                        lines.insert(line_number.saturating_sub(1).max(1));
                        lines.insert(line_number);
                    }
                    Some(b' ') | None => line_number += 1,
                    _ => {}
                }
            }
        }
        if changed.by_path.is_empty() && !diff.trim().is_empty() && !diff.contains("+++ ") {
            bail!("this is not a unified diff: no `+++` file header");
        }
        Ok(changed)
    }

    /// True when a line of the mutant's span was changed.
    pub fn touches(&self, mutant: &Mutant) -> bool {
        self.by_path
            .get(&mutant.source_file.path)
            .is_some_and(|lines| {
                lines
                    .range(mutant.span.start.line..=mutant.span.end.line)
                    .next()
                    .is_some()
            })
    }
}

fn strip_prefix(path: &str) -> &str {
    path.strip_prefix("b/")
        .or_else(|| path.strip_prefix("a/"))
        .unwrap_or(path)
}

/// `-12,7 +14,8 @@ fn x` → 14.
fn hunk_new_start(header: &str) -> Option<usize> {
    let new = header.split_whitespace().find(|w| w.starts_with('+'))?;
    let start = new[1..].split(',').next()?;
    start.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -10,4 +10,5 @@ impl Version {
     fn a() {}
-    fn b() {}
+    fn b2() {}
+    fn c() {}
     fn d() {}
@@ -30,2 +31,1 @@
     x
-    y
--- a/src/gone.rs
+++ /dev/null
@@ -1 +0,0 @@
-fn gone() {}
";

    #[test]
    fn added_lines_and_lines_around_deletions_are_changed() {
        let changed = ChangedLines::parse(DIFF).unwrap();
        let lines: Vec<usize> = changed.by_path["src/lib.rs"].iter().copied().collect();
        assert_eq!(lines, [10, 11, 12, 31, 32]);
        assert!(!changed.by_path.contains_key("src/gone.rs"));
    }

    #[test]
    fn text_that_is_not_a_diff_is_refused() {
        let err = ChangedLines::parse("hello\nworld\n").unwrap_err();
        assert!(err.to_string().contains("not a unified diff"));
        assert_eq!(ChangedLines::parse("").unwrap(), ChangedLines::default());
    }
}
