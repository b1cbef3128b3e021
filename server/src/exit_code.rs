//! Process exit codes, the same as cargo-mutants'.

/// Everything went as asked; for runs, every mutant was caught or unviable.
pub const SUCCESS: i32 = 0;
/// Bad arguments, a bad config file, or a folder that is not a cargo workspace.
pub const USAGE: i32 = 1;
/// Some mutants were missed, and none timed out.
pub const FOUND_PROBLEMS: i32 = 2;
/// Some mutants timed out (whether or not others were missed).
pub const TIMEOUT: i32 = 3;
/// The unmutated tree failed to build or test.
pub const BASELINE_FAILED: i32 = 4;
