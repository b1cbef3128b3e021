//! Options that choose mutants, merged from the command line and
//! `.cargo/mutants.toml` the way cargo-mutants merges them: lists are joined.

use anyhow::{anyhow, Result};

use crate::config::Config;
use crate::filter::{FilterPatterns, MutantFilter};
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
