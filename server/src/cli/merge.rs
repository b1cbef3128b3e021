//! `mutiny merge`: the `mutants.out/` of a run's shards joined into one,
//! checked first (one split of one mutant list, each shard once).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use mutiny::merge::{self, ShardOut};
use mutiny::report::summary_line;
use mutiny::report::MutantsOut;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The mutants.out directory of each shard (`mutiny run --shard K/N`
    /// for K = 0..N-1), or the directory holding it.
    #[arg(value_name = "MUTANTS_OUT", required = true)]
    shards: Vec<PathBuf>,
    /// Write the merged mutants.out here (a new or empty directory).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DIR",
        default_value = "mutants.out"
    )]
    output: PathBuf,
    /// Read the mutated source files, for the reports, from this directory
    /// [default: the workspace the outcomes name, then the directory
    /// holding the merged mutants.out].
    #[arg(short = 'd', long = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub fn merge_command(args: &MergeArgs) -> Result<i32> {
    merge::check_output(&args.output)?;
    let shards = args
        .shards
        .iter()
        .map(|path| ShardOut::read(path))
        .collect::<Result<Vec<_>>>()?;
    let merged = merge::merge(shards)?;
    for warning in &merged.warnings {
        eprintln!("warning: {warning}");
    }
    for warning in merged.write(&args.output, args.dir.as_deref())? {
        eprintln!("warning: {warning}");
    }
    let mutants_out = MutantsOut::read(&args.output, args.dir.as_deref())?;
    println!(
        "merged {} shards into {}: {}",
        merged.shards,
        args.output.display(),
        summary_line(&mutants_out)
    );
    println!(
        "HTML report: {}",
        args.output
            .join(mutiny::report::RUN_HTML_REPORT_FILE_NAME)
            .display()
    );
    Ok(merged.exit_code())
}
