//! cargo-mutants' configuration file, `.cargo/mutants.toml`, read as it
//! reads it: every key it knows is accepted, an unknown key is an error.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// The file's contents. Keys that only matter when running mutants are kept
/// for the lab.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub additional_cargo_args: Vec<String>,
    pub additional_cargo_test_args: Vec<String>,
    pub all_features: Option<bool>,
    pub build_timeout_multiplier: Option<f64>,
    pub cap_lints: bool,
    pub copy_vcs: Option<bool>,
    pub copy_target: Option<bool>,
    pub error_values: Vec<String>,
    pub examine_globs: Vec<String>,
    pub examine_re: Vec<String>,
    pub exclude_globs: Vec<String>,
    pub exclude_re: Vec<String>,
    pub features: Vec<String>,
    pub gitignore: Option<bool>,
    pub minimum_test_timeout: Option<f64>,
    pub no_default_features: Option<bool>,
    pub output: Option<String>,
    /// mutiny's own type-aware stubs (on unless `false`).
    pub own_stubs: Option<bool>,
    pub profile: Option<String>,
    pub sharding: Option<String>,
    pub skip_calls: Vec<String>,
    pub skip_calls_defaults: Option<bool>,
    pub test_package: Vec<String>,
    pub test_tool: Option<String>,
    pub test_workspace: Option<bool>,
    pub timeout_multiplier: Option<f64>,
}

/// Where the file lives, relative to the workspace root.
pub const CONFIG_PATH: &str = ".cargo/mutants.toml";

impl Config {
    /// Reads the workspace's config file; no file is the default config.
    pub fn read_workspace(workspace_root: &Path) -> Result<Config> {
        let path = workspace_root.join(CONFIG_PATH);
        if !path.is_file() {
            return Ok(Config::default());
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Config::parse(&text).with_context(|| format!("invalid {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Config> {
        let config: Config =
            toml::from_str(text).map_err(|err| anyhow::anyhow!("{}", err.message()))?;
        if let Some(tool) = &config.test_tool {
            if !matches!(tool.as_str(), "cargo" | "nextest") {
                anyhow::bail!("test_tool must be \"cargo\" or \"nextest\", not {tool:?}");
            }
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::Config;

    #[test]
    fn generation_keys_are_read() {
        let config = Config::parse(
            r#"
            exclude_globs = ["src/gen/*.rs"]
            examine_re = ["parse"]
            skip_calls = ["make"]
            skip_calls_defaults = false
            error_values = ["anyhow::anyhow!(\"x\")"]
            timeout_multiplier = 2.5
            "#,
        )
        .unwrap();
        assert_eq!(config.exclude_globs, ["src/gen/*.rs"]);
        assert_eq!(config.examine_re, ["parse"]);
        assert_eq!(config.skip_calls, ["make"]);
        assert_eq!(config.skip_calls_defaults, Some(false));
        assert_eq!(config.timeout_multiplier, Some(2.5));
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_it() {
        let err = Config::parse("exclude_globz = []").unwrap_err().to_string();
        assert!(err.contains("exclude_globz"), "{err}");
    }

    #[test]
    fn a_value_of_the_wrong_type_is_an_error_naming_the_key() {
        let err = format!(
            "{:#}",
            Config::parse("skip_calls = \"with_capacity\"").unwrap_err()
        );
        assert!(
            err.contains("skip_calls") || err.contains("sequence"),
            "{err}"
        );
        let err = format!("{:#}", Config::parse("test_tool = \"make\"").unwrap_err());
        assert!(err.contains("test_tool"), "{err}");
    }
}
