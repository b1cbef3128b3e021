//! Which files and mutants the user asked for: globs on file paths and
//! regexes on mutant names, from the command line and the config file.

use anyhow::{Context, Result};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use regex::RegexSet;

#[derive(Debug, Clone, Default)]
pub struct MutantFilter {
    examine_globs: Option<GlobSet>,
    exclude_globs: Option<GlobSet>,
    examine_re: Option<RegexSet>,
    exclude_re: Option<RegexSet>,
}

/// The raw patterns, as the user gave them.
#[derive(Debug, Clone, Default)]
pub struct FilterPatterns {
    pub examine_globs: Vec<String>,
    pub exclude_globs: Vec<String>,
    pub examine_re: Vec<String>,
    pub exclude_re: Vec<String>,
}

impl MutantFilter {
    pub fn new(patterns: &FilterPatterns) -> Result<MutantFilter> {
        Ok(MutantFilter {
            examine_globs: glob_set(&patterns.examine_globs)
                .context("invalid examine glob (-f / examine_globs)")?,
            exclude_globs: glob_set(&patterns.exclude_globs)
                .context("invalid exclude glob (-e / exclude_globs)")?,
            examine_re: regex_set(&patterns.examine_re)
                .context("invalid examine regex (-F / examine_re)")?,
            exclude_re: regex_set(&patterns.exclude_re)
                .context("invalid exclude regex (-E / exclude_re)")?,
        })
    }

    /// Whether mutants of this file (workspace-relative, `/`-separated) are wanted.
    pub fn allows_file(&self, path: &str) -> bool {
        self.examine_globs.as_ref().is_none_or(|g| g.is_match(path))
            && !self
                .exclude_globs
                .as_ref()
                .is_some_and(|g| g.is_match(path))
    }

    /// Whether a mutant with this name is wanted.
    pub fn allows_name(&self, name: &str) -> bool {
        self.examine_re.as_ref().is_none_or(|r| r.is_match(name))
            && !self.exclude_re.as_ref().is_some_and(|r| r.is_match(name))
    }
}

/// A glob with a `/` matches the whole path; one without matches any
/// file or directory name (`*.rs`, `parser`), as in cargo-mutants.
fn glob_set(globs: &[String]) -> Result<Option<GlobSet>> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let variants = if glob.contains('/') {
            vec![glob.clone()]
        } else {
            vec![format!("**/{glob}"), format!("**/{glob}/**")]
        };
        for variant in variants {
            builder.add(
                GlobBuilder::new(&variant)
                    .literal_separator(true)
                    .build()
                    .with_context(|| format!("bad glob {glob:?}"))?,
            );
        }
    }
    Ok(Some(builder.build()?))
}

fn regex_set(patterns: &[String]) -> Result<Option<RegexSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    Ok(Some(RegexSet::new(patterns)?))
}

#[cfg(test)]
mod tests {
    use super::{FilterPatterns, MutantFilter};

    fn filter(patterns: FilterPatterns) -> MutantFilter {
        MutantFilter::new(&patterns).unwrap()
    }

    #[test]
    fn a_glob_without_slash_matches_any_name_in_the_path() {
        let f = filter(FilterPatterns {
            examine_globs: vec!["parse.rs".into(), "eval".into()],
            ..Default::default()
        });
        assert!(f.allows_file("src/parse.rs"));
        assert!(f.allows_file("src/eval/ops.rs"));
        assert!(!f.allows_file("src/lib.rs"));
    }

    #[test]
    fn a_glob_with_slash_matches_the_whole_path() {
        let f = filter(FilterPatterns {
            exclude_globs: vec!["src/gen/*.rs".into()],
            ..Default::default()
        });
        assert!(!f.allows_file("src/gen/table.rs"));
        assert!(f.allows_file("src/gen/deep/table.rs"));
        assert!(f.allows_file("src/lib.rs"));
    }

    #[test]
    fn regexes_select_and_exclude_names() {
        let f = filter(FilterPatterns {
            examine_re: vec!["parse".into()],
            exclude_re: vec!["with false$".into()],
            ..Default::default()
        });
        assert!(f.allows_name("src/lib.rs:1:1: replace parse -> bool with true"));
        assert!(!f.allows_name("src/lib.rs:1:1: replace parse -> bool with false"));
        assert!(!f.allows_name("src/lib.rs:1:1: replace eval -> bool with true"));
    }

    #[test]
    fn a_bad_regex_is_an_error_naming_the_option() {
        let err = MutantFilter::new(&FilterPatterns {
            exclude_re: vec!["(".into()],
            ..Default::default()
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("exclude regex"), "{err:#}");
    }
}
