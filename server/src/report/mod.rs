//! Reports people read, made from a `mutants.out/` directory (mutiny's or
//! cargo-mutants'): `mutiny report` and the `mutation-report.json` that
//! `mutiny run` leaves in `mutants.out/`.
//!
//! `mutants_out.rs` reads the directory and the sources; each format is a
//! pure function of what it read: `elements.rs` (mutation-testing-elements
//! JSON, Stryker's format), `sarif.rs` (SARIF 2.1.0, for GitHub code
//! scanning), `github.rs` (GitHub Actions workflow annotations),
//! `markdown.rs` (a job summary) and `html.rs` (a page to browse).

use std::path::Path;
use std::str::FromStr;

use anyhow::{bail, Result};

use crate::outcome::Counts;

pub mod elements;
pub mod github;
pub mod html;
pub mod markdown;
pub mod mutants_out;
pub mod sarif;

pub use mutants_out::{MutantsOut, ReportedMutant, Source, Tool};

/// The elements report `mutiny run` writes into `mutants.out/`.
pub const RUN_REPORT_FILE_NAME: &str = "mutation-report.json";

/// The HTML report `mutiny run` writes into `mutants.out/`.
pub const RUN_HTML_REPORT_FILE_NAME: &str = "mutation-report.html";

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Elements,
    Sarif,
    Github,
    Markdown,
    Html,
}

impl FromStr for Format {
    type Err = anyhow::Error;

    fn from_str(name: &str) -> Result<Format> {
        Ok(match name {
            "elements" => Format::Elements,
            "sarif" => Format::Sarif,
            "github" => Format::Github,
            "markdown" => Format::Markdown,
            "html" => Format::Html,
            other => {
                bail!("unknown report format {other:?}: use {FORMAT_NAMES}")
            }
        })
    }
}

/// The formats, as errors and help list them.
pub const FORMAT_NAMES: &str = "elements, sarif, github, markdown or html";

/// The report of `mutants_out` in `format`.
pub fn render(format: Format, mutants_out: &MutantsOut) -> String {
    match format {
        Format::Elements => elements::render(mutants_out, None),
        Format::Sarif => sarif::render(mutants_out),
        Format::Github => github::render(mutants_out),
        Format::Markdown => markdown::render(mutants_out),
        Format::Html => html::render(mutants_out),
    }
}

/// Writes `mutation-report.json` and `mutation-report.html` into a run's
/// `mutants.out/`, read back from the directory as `mutiny report` would
/// read it, with the sources from `workspace_root` and this machine as the
/// system that ran it.
pub fn write_run_report(output_dir: &Path, workspace_root: &Path) -> Result<()> {
    let mutants_out = MutantsOut::read(output_dir, Some(workspace_root))?;
    write_reports(
        output_dir,
        &mutants_out,
        Some(elements::System::this_machine()),
    )
}

/// Writes the reports a `mutants.out/` holds, `mutation-report.json` and
/// `mutation-report.html`, from what was read of it; `system` is the machine
/// that tested the mutants, when known. `mutiny run` and `mutiny merge`
/// both write them here.
pub fn write_reports(
    output_dir: &Path,
    mutants_out: &MutantsOut,
    system: Option<elements::System>,
) -> Result<()> {
    let text = elements::render(mutants_out, system);
    crate::output::write_atomically(&output_dir.join(RUN_REPORT_FILE_NAME), &text)?;
    let page = html::render(mutants_out);
    crate::output::write_atomically(&output_dir.join(RUN_HTML_REPORT_FILE_NAME), &page)
}

/// The mutation score in percent, as Stryker counts it: of the mutants
/// that were tested and could be (caught, missed, timed out), the share
/// the tests detected (caught or timed out). `None` when there are none.
pub fn mutation_score(counts: &Counts) -> Option<f64> {
    let detected = counts.caught + counts.timeout;
    let valid = detected + counts.missed;
    (valid > 0).then(|| 100.0 * detected as f64 / valid as f64)
}

/// `27 mutants tested: 11 missed, 15 caught, 1 unviable; mutation score
/// 57.7%`, with what was not tested.
pub fn summary_line(mutants_out: &MutantsOut) -> String {
    let counts = mutants_out.counts();
    let mut line = counts.summary_line();
    if let Some(score) = mutation_score(&counts) {
        line.push_str(&format!("; mutation score {score:.1}%"));
    }
    let not_tested = mutants_out.not_tested();
    if mutants_out.baseline_failed {
        line.push_str("; the unmutated tree failed its tests, so no mutant was tested");
    } else if not_tested > 0 {
        line.push_str(&format!("; {not_tested} not tested (the run ended first)"));
    }
    line
}

/// The mutants of `mutants_out` with this verdict, in report order.
fn with_verdict(
    mutants_out: &MutantsOut,
    verdict: crate::outcome::Verdict,
) -> impl Iterator<Item = &ReportedMutant> {
    mutants_out
        .mutants
        .iter()
        .filter(move |m| m.verdict == Some(verdict))
}

/// Reports made in memory, for the formats' unit tests.
#[cfg(test)]
pub(crate) mod fixture {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::{MutantsOut, ReportedMutant, Tool};
    use crate::mutate::Function;
    use crate::outcome::Verdict;
    use crate::position::{LineColumn, Span};

    /// A mutant of `function` in `file` over `start..end` (line, column).
    pub fn mutant(
        verdict: Verdict,
        file: &str,
        function: &str,
        (start, end): ((usize, usize), (usize, usize)),
        description: &str,
        genre: &str,
    ) -> ReportedMutant {
        let at = |(line, column)| LineColumn { line, column };
        ReportedMutant {
            name: format!("{file}:{}:{}: {description}", start.0, start.1),
            package: "p".into(),
            file: file.into(),
            function: Some(Function {
                function_name: function.into(),
                return_type: String::new(),
                span: Span {
                    start: at((1, 1)),
                    end: at((99, 1)),
                },
            }),
            span: Span {
                start: at(start),
                end: at(end),
            },
            replacement: String::new(),
            genre: genre.into(),
            verdict: Some(verdict),
            unreached: false,
            duration: None,
            reason: None,
            diff: None,
        }
    }

    pub fn mutants_out(mutants: Vec<ReportedMutant>) -> MutantsOut {
        MutantsOut {
            dir: PathBuf::from("mutants.out"),
            tool: Tool {
                name: "mutiny".into(),
                version: None,
            },
            mutants,
            baseline_failed: false,
            sources: BTreeMap::new(),
            source_root: None,
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_format_names_the_formats() {
        let err = "pdf".parse::<Format>().unwrap_err().to_string();
        assert!(err.contains("\"pdf\""), "{err}");
        assert!(
            err.contains("elements, sarif, github, markdown or html"),
            "{err}"
        );
        assert_eq!("sarif".parse::<Format>().unwrap(), Format::Sarif);
        assert_eq!("html".parse::<Format>().unwrap(), Format::Html);
    }

    #[test]
    fn mutation_score_counts_timeouts_as_detected_and_leaves_unviable_out() {
        let counts = Counts {
            total_mutants: 10,
            caught: 5,
            timeout: 1,
            missed: 2,
            unviable: 2,
            not_compiled: 3,
        };
        assert_eq!(mutation_score(&counts), Some(75.0));
        assert_eq!(mutation_score(&Counts::default()), None);
    }
}
