//! `mutiny report`: a `mutants.out/` (mutiny's or cargo-mutants') turned
//! into a report people read, on stdout or in a file.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use mutiny::exit_code;
use mutiny::report::{self, Format, MutantsOut};

use crate::write_stdout;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The mutants.out directory written by `mutiny run` or `cargo mutants`,
    /// or the directory holding it [default: ./mutants.out].
    #[arg(value_name = "MUTANTS_OUT")]
    mutants_out: Option<PathBuf>,
    /// elements (mutation-testing-elements JSON), sarif (SARIF 2.1.0 for
    /// GitHub code scanning), github (workflow annotations), markdown (a
    /// job summary) or html (a self-contained page).
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,
    /// Write the report to this file instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Read the mutated source files from this directory [default: the
    /// workspace the outcomes name, then the directory holding mutants.out].
    #[arg(short = 'd', long = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub fn report_command(args: &ReportArgs) -> Result<i32> {
    let format: Format = args
        .format
        .as_deref()
        .with_context(|| {
            format!(
                "say which report to write: --format {}",
                report::FORMAT_NAMES
            )
        })?
        .parse()?;
    let path = args
        .mutants_out
        .clone()
        .unwrap_or_else(|| PathBuf::from(mutiny::output::OUTPUT_DIR_NAME));
    let mutants_out = MutantsOut::read(&path, args.dir.as_deref())?;
    for warning in &mutants_out.warnings {
        eprintln!("warning: {warning}");
    }
    let text = report::render(format, &mutants_out);
    match &args.output {
        Some(file) => std::fs::write(file, text)
            .with_context(|| format!("cannot write {}", file.display()))?,
        None => write_stdout(&text)?,
    }
    Ok(exit_code::SUCCESS)
}
