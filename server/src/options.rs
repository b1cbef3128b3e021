//! Options that choose mutants and say how to test them, merged from the
//! command line (or the editor's settings) and `.cargo/mutants.toml` the
//! way cargo-mutants merges them: lists are joined, a value given on the
//! command line wins over the file's.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use crate::config::Config;
use crate::filter::{FilterPatterns, MutantFilter};
use crate::lab::cargo::{CargoOptions, TestScope, TestTool};
use crate::lab::scratch::CopyOptions;
use crate::lab::{self, BaselineMode, LabOptions, Strategy, Timeouts};
use crate::mutate::{self, GenerateOptions};

/// What the command line says about which mutants to generate.
#[derive(Debug, Clone, Default)]
pub struct SelectionArgs {
    pub patterns: FilterPatterns,
    pub skip_calls: Vec<String>,
    pub skip_calls_defaults: Option<bool>,
    pub error_values: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub generate: GenerateOptions,
    pub filter: MutantFilter,
}

impl Options {
    pub fn new(args: &SelectionArgs, config: &Config) -> Result<Options> {
        let join = |a: &[String], b: &[String]| a.iter().chain(b).cloned().collect::<Vec<_>>();
        let patterns = FilterPatterns {
            examine_globs: join(&args.patterns.examine_globs, &config.examine_globs),
            exclude_globs: join(&args.patterns.exclude_globs, &config.exclude_globs),
            examine_re: join(&args.patterns.examine_re, &config.examine_re),
            exclude_re: join(&args.patterns.exclude_re, &config.exclude_re),
        };
        let mut skip_calls: Vec<String> = args
            .skip_calls
            .iter()
            .flat_map(|s| s.split(','))
            .map(str::to_owned)
            .chain(config.skip_calls.iter().cloned())
            .collect();
        if args
            .skip_calls_defaults
            .or(config.skip_calls_defaults)
            .unwrap_or(true)
        {
            skip_calls.push("with_capacity".to_owned());
        }
        let error_values = join(&args.error_values, &config.error_values)
            .iter()
            .map(|value| {
                mutate::render_expression(value).map_err(|why| {
                    anyhow!("invalid error value {value:?} (error_values / --error): {why}")
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Options {
            generate: GenerateOptions {
                skip_calls,
                error_values,
            },
            filter: MutantFilter::new(&patterns)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Options, SelectionArgs};
    use crate::config::Config;

    #[test]
    fn skip_calls_join_and_keep_the_default_unless_turned_off() {
        let args = SelectionArgs {
            skip_calls: vec!["a,b".into()],
            ..Default::default()
        };
        let config = Config {
            skip_calls: vec!["c".into()],
            ..Default::default()
        };
        let options = Options::new(&args, &config).unwrap();
        assert_eq!(
            options.generate.skip_calls,
            ["a", "b", "c", "with_capacity"]
        );
        let config = Config {
            skip_calls_defaults: Some(false),
            ..config
        };
        let options = Options::new(&args, &config).unwrap();
        assert_eq!(options.generate.skip_calls, ["a", "b", "c"]);
    }

    #[test]
    fn error_values_are_rendered_and_bad_ones_rejected() {
        let config = Config {
            error_values: vec!["anyhow::anyhow!( \"x\" )".into()],
            ..Default::default()
        };
        let options = Options::new(&SelectionArgs::default(), &config).unwrap();
        assert_eq!(options.generate.error_values, ["anyhow::anyhow!(\"x\")"]);
        let config = Config {
            error_values: vec!["let x =".into()],
            ..Default::default()
        };
        let err = Options::new(&SelectionArgs::default(), &config).unwrap_err();
        assert!(err.to_string().contains("error_values"), "{err}");
    }
}

/// What the command line or the editor's settings say about how to test
/// mutants; `.cargo/mutants.toml` fills in what they leave open.
#[derive(Debug, Clone, Default)]
pub struct LabArgs {
    pub jobs: Option<usize>,
    /// Seconds, like the other durations here.
    pub timeout: Option<f64>,
    pub timeout_multiplier: Option<f64>,
    pub minimum_test_timeout: Option<f64>,
    pub build_timeout: Option<f64>,
    pub build_timeout_multiplier: Option<f64>,
    pub copy_vcs: Option<bool>,
    pub copy_target: Option<bool>,
    pub gitignore: Option<bool>,
    pub baseline: BaselineMode,
    pub test_tool: Option<String>,
    pub test_workspace: bool,
    pub test_package: Vec<String>,
    pub cargo_args: Vec<String>,
    pub cargo_test_args: Vec<String>,
    pub features: Vec<String>,
    pub all_features: bool,
    pub no_default_features: bool,
    pub profile: Option<String>,
    pub cap_lints: bool,
    /// `compile-once` (the default) or `classic`.
    pub strategy: Option<String>,
}

/// The largest timeout multiplier accepted: a test timeout is a bound, and
/// beyond this it is none.
const MAX_TIMEOUT_MULTIPLIER: f64 = 1000.0;

/// A timeout multiplier must be a positive number of times the baseline's
/// time, no larger than `MAX_TIMEOUT_MULTIPLIER`.
pub fn check_timeout_multiplier(multiplier: f64) -> Result<()> {
    if multiplier.is_finite() && multiplier > 0.0 && multiplier <= MAX_TIMEOUT_MULTIPLIER {
        Ok(())
    } else {
        bail!(
            "must be a positive number of times the baseline's time, at most \
             {MAX_TIMEOUT_MULTIPLIER}, not {multiplier}"
        )
    }
}

/// The lab's options from `args` and the config file (`log_dir` is left
/// empty for the caller).
pub fn lab_options(args: &LabArgs, config: &Config) -> Result<LabOptions> {
    let secs = |s: f64, name: &str| -> Result<Duration> {
        Duration::try_from_secs_f64(s)
            .map_err(|_| anyhow!("{name}: {s} is not a duration in seconds"))
    };
    let test_tool: TestTool = match args.test_tool.as_ref().or(config.test_tool.as_ref()) {
        Some(name) => name.parse().map_err(anyhow::Error::msg)?,
        None => TestTool::Cargo,
    };
    let test_scope = if args.test_workspace || config.test_workspace == Some(true) {
        TestScope::Workspace
    } else if !args.test_package.is_empty() {
        TestScope::Packages(args.test_package.clone())
    } else if !config.test_package.is_empty() {
        TestScope::Packages(config.test_package.clone())
    } else {
        TestScope::Mutated
    };
    let join = |a: &[String], b: &[String]| a.iter().chain(b).cloned().collect::<Vec<_>>();
    for (multiplier, name) in [
        (args.timeout_multiplier, "--timeout-multiplier"),
        (
            config.timeout_multiplier,
            "timeout_multiplier in .cargo/mutants.toml",
        ),
        (args.build_timeout_multiplier, "--build-timeout-multiplier"),
        (
            config.build_timeout_multiplier,
            "build_timeout_multiplier in .cargo/mutants.toml",
        ),
    ] {
        if let Some(multiplier) = multiplier {
            check_timeout_multiplier(multiplier).with_context(|| name.to_owned())?;
        }
    }
    let mut timeouts = Timeouts {
        multiplier: args.timeout_multiplier.or(config.timeout_multiplier),
        ..Timeouts::default()
    };
    if let Some(t) = args.timeout {
        timeouts.test = Some(secs(t, "--timeout")?);
    }
    if let Some(t) = args.minimum_test_timeout {
        timeouts.minimum = secs(t, "--minimum-test-timeout")?;
    } else if let Some(t) = config.minimum_test_timeout {
        timeouts.minimum = secs(t, "minimum_test_timeout in .cargo/mutants.toml")?;
    }
    if let Some(t) = args.build_timeout {
        timeouts.build = Some(secs(t, "--build-timeout")?);
    }
    timeouts.build_multiplier = args
        .build_timeout_multiplier
        .or(config.build_timeout_multiplier);
    let copy_defaults = CopyOptions::default();
    let copy = CopyOptions {
        copy_vcs: args
            .copy_vcs
            .or(config.copy_vcs)
            .unwrap_or(copy_defaults.copy_vcs),
        copy_target: args
            .copy_target
            .or(config.copy_target)
            .unwrap_or(copy_defaults.copy_target),
        gitignore: args
            .gitignore
            .or(config.gitignore)
            .unwrap_or(copy_defaults.gitignore),
    };
    Ok(LabOptions {
        jobs: args.jobs.unwrap_or_else(lab::default_jobs).max(1),
        cargo: CargoOptions {
            test_tool,
            additional_cargo_args: join(&args.cargo_args, &config.additional_cargo_args),
            additional_test_args: join(&args.cargo_test_args, &config.additional_cargo_test_args),
            features: join(&args.features, &config.features),
            all_features: args.all_features || config.all_features == Some(true),
            no_default_features: args.no_default_features
                || config.no_default_features == Some(true),
            profile: args.profile.clone().or_else(|| config.profile.clone()),
            cap_lints: args.cap_lints || config.cap_lints,
        },
        test_scope,
        timeouts,
        copy,
        baseline: args.baseline,
        log_dir: PathBuf::new(),
        niceness: 0,
        doctests_alongside: false,
        leave_out_dev_dependencies: false,
        strategy: match &args.strategy {
            Some(name) => name
                .parse()
                .map_err(|err: String| anyhow!("--strategy: {err}"))?,
            None => Strategy::default(),
        },
    })
}

#[cfg(test)]
mod lab_tests {
    use super::{lab_options, LabArgs};
    use crate::config::Config;
    use crate::lab::scratch::CopyOptions;

    #[test]
    fn copy_and_build_timeout_keys_reach_the_lab_and_flags_win() {
        let config = Config::parse(
            "copy_vcs = true\ncopy_target = true\ngitignore = false\nbuild_timeout_multiplier = 2.5\n",
        )
        .unwrap();
        let options = lab_options(&LabArgs::default(), &config).unwrap();
        assert_eq!(
            options.copy,
            CopyOptions {
                copy_vcs: true,
                copy_target: true,
                gitignore: false
            }
        );
        assert_eq!(options.timeouts.build_multiplier, Some(2.5));
        let flags = LabArgs {
            copy_vcs: Some(false),
            gitignore: Some(true),
            build_timeout_multiplier: Some(4.0),
            ..LabArgs::default()
        };
        let options = lab_options(&flags, &config).unwrap();
        assert!(!options.copy.copy_vcs && options.copy.copy_target && options.copy.gitignore);
        assert_eq!(options.timeouts.build_multiplier, Some(4.0));
        let defaults = lab_options(&LabArgs::default(), &Config::default()).unwrap();
        assert_eq!(defaults.copy, CopyOptions::default());
        assert_eq!(defaults.timeouts.build_multiplier, None);
    }

    #[test]
    fn bad_timeouts_are_refused_naming_the_flag_or_key() {
        let error = |args: LabArgs, config: &str| {
            let config = Config::parse(config).unwrap();
            format!("{:#}", lab_options(&args, &config).unwrap_err())
        };
        let args = |f: fn(&mut LabArgs)| {
            let mut args = LabArgs::default();
            f(&mut args);
            args
        };
        for bad in [-1.0, 0.0, f64::NAN, f64::INFINITY, 1e300] {
            let flag = LabArgs {
                timeout_multiplier: Some(bad),
                ..LabArgs::default()
            };
            let text = error(flag, "");
            assert!(text.contains("--timeout-multiplier"), "{bad}: {text}");
        }
        let text = error(LabArgs::default(), "build_timeout_multiplier = -2.0\n");
        assert!(
            text.contains("build_timeout_multiplier in .cargo/mutants.toml"),
            "{text}"
        );
        let text = error(LabArgs::default(), "minimum_test_timeout = -1.0\n");
        assert!(text.contains("minimum_test_timeout"), "{text}");
        let text = error(args(|a| a.timeout = Some(f64::NAN)), "");
        assert!(text.contains("--timeout"), "{text}");
    }
}
