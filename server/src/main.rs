//! The `mutiny` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use mutiny::config::Config;
use mutiny::exit_code;
use mutiny::filter::FilterPatterns;
use mutiny::in_diff::ChangedLines;
use mutiny::lab::{Analysis, Lab};
use mutiny::list;
use mutiny::mutate::Mutant;
use mutiny::options::{self, LabArgs, Options, SelectionArgs};
use mutiny::shard::{Shard, ShardRecord, Sharding};
use mutiny::sources;
use mutiny::workspace::{PackageSelection, Workspace};

mod cli {
    pub mod analysis;
    pub mod merge;
    pub mod own;
    pub mod report;
    pub mod run;
}
use cli::{analysis, merge, own, report, run};

/// Mutation testing for Rust, in the editor and in CI.
#[derive(Parser, Debug)]
#[command(name = "mutiny", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the mutants of a workspace without testing them.
    List(Box<ListArgs>),
    /// Test the mutants of a workspace: build and test each in a scratch
    /// copy, report the ones the tests miss, and write mutants.out/.
    Run(Box<run::RunArgs>),
    /// Turn a mutants.out/ (mutiny's or cargo-mutants') into a report:
    /// mutation-testing-elements JSON, SARIF, GitHub annotations or a
    /// Markdown summary.
    Report(report::ReportArgs),
    /// Join the mutants.out/ of the shards of one run (`mutiny run --shard
    /// K/N`, K = 0..N-1) into one mutants.out/, as one unsharded run
    /// would have written it, with its reports.
    Merge(merge::MergeArgs),
    /// Run the language server on stdin/stdout: mutants of each saved file
    /// are tested in the background and missed ones shown as warnings.
    Lsp,
}

#[derive(Args, Debug)]
struct ListArgs {
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    narrow: NarrowArgs,
    /// Print a JSON array in `cargo mutants --list --json`'s format.
    #[arg(long)]
    json: bool,
    /// Print each mutant's diff after its name.
    #[arg(long)]
    diff: bool,
    /// Load the workspace into rust-analyzer (from a scratch copy): add
    /// mutiny's own type-aware stubs, as `run` does, and mark the mutants
    /// that cannot compile and those in code not compiled for this target
    /// and features, as `run` would judge them.
    #[arg(long)]
    analysis: bool,
    /// Cargo features to enable, for `--analysis` (repeatable, or comma-separated).
    #[arg(long, value_name = "FEATURES", requires = "analysis")]
    features: Vec<String>,
    #[arg(long, requires = "analysis")]
    all_features: bool,
    #[arg(long, requires = "analysis")]
    no_default_features: bool,
    /// With `--analysis`, leave out mutiny's own type-aware stubs (which
    /// `--analysis` adds, as `run` does).
    #[arg(long, requires = "analysis")]
    no_own_stubs: bool,
}

/// Choosing the workspace, packages, files and mutants.
#[derive(Args, Debug)]
pub struct SelectArgs {
    /// Start in this directory instead of the current one.
    #[arg(short = 'd', long = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Mutate only this package (repeatable).
    #[arg(short = 'p', long = "package", value_name = "PKG")]
    packages: Vec<String>,
    /// Mutate every package of the workspace.
    #[arg(long, conflicts_with = "packages")]
    workspace: bool,
    /// Mutate only files matching this glob (repeatable).
    #[arg(short = 'f', long = "file", value_name = "GLOB")]
    files: Vec<String>,
    /// Do not mutate files matching this glob (repeatable).
    #[arg(short = 'e', long = "exclude", value_name = "GLOB")]
    exclude: Vec<String>,
    /// Keep only mutants whose name matches this regex (repeatable).
    #[arg(short = 'F', long = "re", value_name = "REGEX")]
    examine_re: Vec<String>,
    /// Drop mutants whose name matches this regex (repeatable).
    #[arg(short = 'E', long = "exclude-re", value_name = "REGEX")]
    exclude_re: Vec<String>,
    /// Do not mutate arguments of calls to these functions (comma-separated, repeatable).
    #[arg(long = "skip-calls", value_name = "NAMES")]
    skip_calls: Vec<String>,
    /// Whether `with_capacity` is in the skipped calls.
    #[arg(long = "skip-calls-defaults", value_name = "BOOL")]
    skip_calls_defaults: Option<bool>,
    /// An error value to return from functions returning `Result` (repeatable).
    #[arg(long = "error", value_name = "EXPR")]
    error_values: Vec<String>,
}

/// Narrowing the selected mutants, after generation, as cargo-mutants does
/// for both `--list` and a run: first `--in-diff`, then `--shard`.
#[derive(Args, Debug)]
pub struct NarrowArgs {
    /// Only mutants on lines this unified diff changes.
    #[arg(long, value_name = "FILE")]
    in_diff: Option<PathBuf>,
    /// Only shard K of N (K counts from 0): N jobs with K = 0..N-1
    /// together test every mutant once.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// How mutants are dealt to shards: slice or round-robin [default: slice].
    #[arg(long, value_name = "METHOD", requires = "shard")]
    sharding: Option<String>,
}

/// The mutants left after `--in-diff` and `--shard`, and the record of the
/// shard (`shard.json`), if one was asked for.
pub struct Narrowed {
    pub mutants: Vec<Mutant>,
    pub shard: Option<ShardRecord>,
}

/// Keeps the mutants on lines `--in-diff` changes, then this `--shard`'s.
pub fn narrow(mut mutants: Vec<Mutant>, args: &NarrowArgs, config: &Config) -> Result<Narrowed> {
    if let Some(diff_file) = &args.in_diff {
        let text = std::fs::read_to_string(diff_file)
            .with_context(|| format!("cannot read the diff {}", diff_file.display()))?;
        let changed = ChangedLines::parse(&text)
            .with_context(|| format!("cannot use {} as a diff", diff_file.display()))?;
        mutants.retain(|m| changed.touches(m));
    }
    let mut record = None;
    if let Some(shard) = args.shard {
        let sharding: Sharding = match args.sharding.as_ref().or(config.sharding.as_ref()) {
            Some(name) => name.parse()?,
            None => Sharding::default(),
        };
        record = Some(ShardRecord::new(shard, sharding, &mutants));
        mutants = sharding.select(shard, mutants);
    }
    Ok(Narrowed {
        mutants,
        shard: record,
    })
}

fn main() -> ExitCode {
    // Started to launch one of mutiny's commands: becomes that command.
    mutiny::lab::launch_if_asked();
    // Started by cargo as rustdoc, to keep the doctests' programs: becomes
    // rustdoc.
    mutiny::lab::wrap_rustdoc_if_asked();
    // Bad arguments exit 1, as in cargo-mutants (clap's own code, 2, is
    // the code for missed mutants: a CI job would read a typo as results).
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return match err.use_stderr() {
                true => ExitCode::from(exit_code::USAGE as u8),
                false => ExitCode::SUCCESS, // --help, --version
            };
        }
    };
    // Commands that run cargo, tests or rust-analyzer get a temporary
    // directory of their own. SAFETY: no thread has started yet. Without
    // one (no space left, say) mutiny goes on; the scratch trees say why.
    let runs_tools = matches!(
        cli.command,
        Command::List(_) | Command::Run(_) | Command::Lsp
    );
    let _process_temp = runs_tools
        .then(|| unsafe { mutiny::lab::scratch::enter_process_temp_dir() }.ok())
        .flatten();
    if runs_tools {
        mutiny::lab::use_launcher();
    }
    let result = match cli.command {
        Command::List(args) => list_command(&args),
        Command::Run(args) => run::run_command(&args),
        Command::Report(args) => report::report_command(&args),
        Command::Merge(args) => merge::merge_command(&args),
        Command::Lsp => mutiny::lsp::serve_stdio().map(|()| exit_code::SUCCESS),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(err) => {
            eprintln!("error: {err:#}");
            if out_of_space(&err) {
                eprintln!(
                    "hint: mutiny copies and builds the workspace in the temporary directory \
                     ({}): free some space, or point TMPDIR at a larger disk",
                    mutiny::lab::scratch::system_temp_dir().display()
                );
            }
            ExitCode::from(exit_code::USAGE as u8)
        }
    }
}

/// Whether `err` comes of a full disk (ENOSPC) and does not say already
/// what to do about it (a failed cargo command's error does).
fn out_of_space(err: &anyhow::Error) -> bool {
    let full = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::StorageFull)
    });
    full && !format!("{err:#}").contains("TMPDIR")
}

fn list_command(args: &ListArgs) -> Result<i32> {
    let selected = select_mutants(&args.select)?;
    let own_stubs = args.analysis && !args.no_own_stubs && selected.config.own_stubs != Some(false);
    let (generated, preloaded) = match own_stubs {
        true => {
            let lab_options = options::lab_options(&list_lab_args(args), &selected.config)?;
            let own = own::add_own_stubs(
                &selected.workspace,
                (&lab_options.cargo, None),
                selected.mutants,
            );
            if let Some(note) = own.note {
                eprintln!("{note}");
            }
            (own.mutants, own.preloaded)
        }
        false => (selected.mutants, None),
    };
    let mutants = narrow(generated, &args.narrow, &selected.config)?.mutants;
    let analysis = match args.analysis {
        true => list_analysis(
            args,
            &selected.workspace,
            &selected.config,
            (&mutants, preloaded),
            &selected.declarations,
        )?,
        false => None,
    };
    let judged = |index| analysis.as_ref().and_then(|a| a.judged(index));
    let output = if args.json {
        list::to_json_judged(&mutants, judged) + "\n"
    } else {
        list::to_text_judged(&mutants, args.diff, judged)
    };
    write_stdout(&output)?;
    Ok(exit_code::SUCCESS)
}

/// What rust-analyzer says of `mutants`, loaded from a scratch copy of
/// the workspace (cargo may write there: build scripts run); its note goes
/// to stderr. `None` when nothing needs judging.
fn list_analysis(
    args: &ListArgs,
    workspace: &Workspace,
    config: &Config,
    (mutants, preloaded): (&[Mutant], Option<own::Preloaded>),
    declarations: &sources::Declarations,
) -> Result<Option<Analysis>> {
    let mut lab = Lab::new(
        workspace,
        options::lab_options(&list_lab_args(args), config)?,
    )?;
    let mutants: Vec<Arc<Mutant>> = mutants.iter().cloned().map(Arc::new).collect();
    let places = mutiny::semantic::cfg_places(&mutants, declarations);
    let Some((joined, feed)) = analysis::start_analysis(
        &mut lab,
        &mutants,
        places,
        (mutiny::semantic::Purpose::List, preloaded),
    ) else {
        return Ok(None);
    };
    let analysed = feed.whole(mutants.len());
    drop(joined);
    drop(lab);
    if !analysed.note.is_empty() {
        eprintln!("{}", analysed.note);
    }
    Ok(Some(analysed))
}

/// The lab options `list --analysis` loads rust-analyzer with.
fn list_lab_args(args: &ListArgs) -> LabArgs {
    LabArgs {
        features: args.features.clone(),
        all_features: args.all_features,
        no_default_features: args.no_default_features,
        ..LabArgs::default()
    }
}

/// The workspace, its config and the mutants the selection flags choose.
pub struct Selected {
    pub workspace: Workspace,
    pub config: Config,
    pub mutants: Vec<Mutant>,
    /// How each source file is declared (the cfgs on its `mod` chain).
    pub declarations: sources::Declarations,
}

/// Finds the workspace and generates the selected mutants, printing
/// generation warnings to stderr.
pub fn select_mutants(select: &SelectArgs) -> Result<Selected> {
    let start_dir = match &select.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let workspace = Workspace::open(&start_dir)?;
    let config = Config::read_workspace(&workspace.root)?;
    let selection_args = SelectionArgs {
        patterns: FilterPatterns {
            examine_globs: select.files.clone(),
            exclude_globs: select.exclude.clone(),
            examine_re: select.examine_re.clone(),
            exclude_re: select.exclude_re.clone(),
        },
        skip_calls: select.skip_calls.clone(),
        skip_calls_defaults: select.skip_calls_defaults,
        error_values: select.error_values.clone(),
    };
    let options = Options::new(&selection_args, &config)?;
    let selection = if select.workspace {
        PackageSelection::Workspace
    } else if !select.packages.is_empty() {
        PackageSelection::Named(select.packages.clone())
    } else {
        PackageSelection::Default
    };
    let packages = workspace.select(&selection, &start_dir)?;
    let discovered = sources::discover(&workspace, &packages, &options.generate, &options.filter)?;
    for warning in &discovered.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(Selected {
        workspace,
        config,
        mutants: discovered.mutants,
        declarations: discovered.declarations,
    })
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
pub fn write_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(()),
    }
}
