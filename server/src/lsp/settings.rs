//! Settings from `initializationOptions` and `workspace/didChangeConfiguration`,
//! either flat or under a `mutiny` key. Unknown keys are ignored, so
//! editors can send their whole configuration; keys a message leaves out
//! keep their values (some clients send `{}` right after `initialized`), and
//! `null` restores a key's default.

use serde::{Deserialize, Serialize};

use std::path::PathBuf;

use crate::config::Config;
use crate::lab::cargo::TestTool;
use crate::lab::LabOptions;
use crate::options::{self, LabArgs};

/// Builds and tests for the editor run at `nice 10`, so that the server and
/// the editor stay responsive while every core compiles mutants.
const BUILD_NICENESS: i32 = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Test a file's mutants when it is saved.
    pub on_save: bool,
    /// Also when it is opened.
    pub on_open: bool,
    /// Parallel jobs (default: half the CPUs).
    pub jobs: Option<usize>,
    /// Test timeout as a multiple of the baseline test time (default 5).
    pub timeout_multiplier: Option<f64>,
    /// `cargo` or `nextest`; unset: `.cargo/mutants.toml`'s, else cargo.
    pub test_tool: Option<String>,
    /// Added to every cargo command.
    pub additional_cargo_args: Vec<String>,
    /// `changedFunctions` (default): the mutants of changed functions (and
    /// of functions never tested) in one run, then the others, whose
    /// earlier verdicts show meanwhile, re-tested in a run of their own;
    /// `file`: every mutant of the saved file in one run, changed
    /// functions first.
    pub scope: Scope,
    /// `compile-once` (default) or `classic`, as `mutiny run --strategy`.
    pub strategy: Option<String>,
    /// rust-analyzer's analysis (default on): mutants it shows cannot
    /// compile, or whose code this target does not compile, are not built;
    /// hovers show resolved return types. Off, every mutant is built.
    pub analysis: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Scope {
    File,
    ChangedFunctions,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            on_save: true,
            on_open: false,
            jobs: None,
            timeout_multiplier: None,
            test_tool: None,
            additional_cargo_args: Vec::new(),
            scope: Scope::ChangedFunctions,
            strategy: None,
            analysis: true,
        }
    }
}

impl Settings {
    /// These settings with the keys a client's JSON gives replaced (`null`
    /// or a payload without settings changes nothing).
    pub fn updated(&self, value: Option<&serde_json::Value>) -> Result<Settings, String> {
        let Some(serde_json::Value::Object(given)) = value.map(|v| v.get("mutiny").unwrap_or(v))
        else {
            return Ok(self.clone());
        };
        let as_json = |s: &Settings| match serde_json::to_value(s) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => unreachable!("settings serialize to an object"),
        };
        let mut merged = as_json(self);
        let defaults = as_json(&Settings::default());
        for (key, value) in given {
            if !defaults.contains_key(key) {
                continue;
            }
            let value = match value {
                serde_json::Value::Null => defaults[key].clone(),
                other => other.clone(),
            };
            merged.insert(key.clone(), value);
        }
        let settings: Settings = match serde_json::from_value(serde_json::Value::Object(merged)) {
            Ok(settings) => settings,
            Err(err) => {
                // serde's message does not say which key: find it.
                let culprit = given.iter().find(|(key, value)| {
                    let mut alone = defaults.clone();
                    alone.insert((*key).clone(), (*value).clone());
                    serde_json::from_value::<Settings>(serde_json::Value::Object(alone)).is_err()
                });
                return Err(match culprit {
                    Some((key, _)) => format!("bad mutiny settings: {key}: {err}"),
                    None => format!("bad mutiny settings: {err}"),
                });
            }
        };
        if let Some(tool) = &settings.test_tool {
            tool.parse::<TestTool>()
                .map_err(|err| format!("bad mutiny settings: testTool: {err}"))?;
        }
        if let Some(multiplier) = settings.timeout_multiplier {
            options::check_timeout_multiplier(multiplier)
                .map_err(|err| format!("bad mutiny settings: timeoutMultiplier: {err}"))?;
        }
        if let Some(strategy) = &settings.strategy {
            strategy
                .parse::<crate::lab::Strategy>()
                .map_err(|err| format!("bad mutiny settings: strategy: {err}"))?;
        }
        if settings.jobs == Some(0) {
            return Err("bad mutiny settings: jobs: must be at least 1".to_owned());
        }
        Ok(settings)
    }

    /// Settings from a client's JSON alone, the rest at their defaults.
    pub fn from_json(value: Option<&serde_json::Value>) -> Result<Settings, String> {
        Settings::default().updated(value)
    }

    /// The lab options these settings ask for, `.cargo/mutants.toml`
    /// filling in what they leave open (logs go to `log_dir`).
    pub fn lab_options(&self, log_dir: PathBuf, config: &Config) -> anyhow::Result<LabOptions> {
        let args = LabArgs {
            jobs: self.jobs,
            timeout_multiplier: self.timeout_multiplier,
            test_tool: self.test_tool.clone(),
            cargo_args: self.additional_cargo_args.clone(),
            strategy: self.strategy.clone(),
            ..LabArgs::default()
        };
        Ok(LabOptions {
            log_dir,
            niceness: BUILD_NICENESS,
            doctests_alongside: true,
            ..options::lab_options(&args, config)?
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn settings_read_flat_or_under_mutiny_with_defaults() {
        assert_eq!(Settings::from_json(None).unwrap(), Settings::default());
        let flat = Settings::from_json(Some(&json!({"jobs": 3, "onOpen": true}))).unwrap();
        assert_eq!(
            (flat.jobs, flat.on_open, flat.on_save),
            (Some(3), true, true)
        );
        assert_eq!(flat.scope, Scope::ChangedFunctions);
        let nested = json!({"mutiny": {"scope": "file", "testTool": "nextest"}});
        let nested = Settings::from_json(Some(&nested)).unwrap();
        assert_eq!(nested.scope, Scope::File);
        let config = Config::default();
        let options = nested.lab_options("/tmp".into(), &config).unwrap();
        assert_eq!(options.cargo.test_tool, TestTool::Nextest);
    }

    #[test]
    fn the_config_file_fills_in_what_settings_leave_open() {
        let config = Config::parse(
            "test_tool = \"nextest\"\nadditional_cargo_args = [\"--locked\"]\n\
             timeout_multiplier = 2.0\nfeatures = [\"x\"]\ntest_workspace = true\n",
        )
        .unwrap();
        let options = Settings::default()
            .lab_options("/tmp".into(), &config)
            .unwrap();
        assert_eq!(options.cargo.test_tool, TestTool::Nextest);
        assert_eq!(options.cargo.additional_cargo_args, ["--locked"]);
        assert_eq!(options.cargo.features, ["x"]);
        assert_eq!(options.timeouts.multiplier, Some(2.0));
        assert_eq!(options.test_scope, crate::lab::cargo::TestScope::Workspace);
        assert_eq!(options.niceness, 10, "the editor's builds run niced");
        let settings = Settings::from_json(Some(&json!({
            "testTool": "cargo",
            "additionalCargoArgs": ["--offline"],
            "timeoutMultiplier": 3.0,
        })))
        .unwrap();
        let options = settings.lab_options("/tmp".into(), &config).unwrap();
        assert_eq!(options.cargo.test_tool, TestTool::Cargo);
        assert_eq!(
            options.cargo.additional_cargo_args,
            ["--offline", "--locked"]
        );
        assert_eq!(options.timeouts.multiplier, Some(3.0));
    }

    #[test]
    fn an_update_keeps_the_keys_it_leaves_out_and_null_restores_a_default() {
        let first = Settings::from_json(Some(&json!({"onSave": false, "jobs": 3}))).unwrap();
        assert_eq!(first.updated(Some(&json!({}))).unwrap(), first);
        assert_eq!(first.updated(Some(&json!(null))).unwrap(), first);
        let later = first
            .updated(Some(&json!({"mutiny": {"scope": "file", "jobs": null}})))
            .unwrap();
        assert!(!later.on_save);
        assert_eq!(later.jobs, None);
        assert_eq!(later.scope, Scope::File);
    }

    #[test]
    fn bad_settings_are_refused_with_the_key() {
        let err = Settings::from_json(Some(&json!({"testTool": "make"}))).unwrap_err();
        assert!(err.contains("testTool"), "{err}");
        let err = Settings::from_json(Some(&json!({"jobs": "many"}))).unwrap_err();
        assert!(err.contains("bad mutiny settings"), "{err}");
        for bad in [
            json!(-1.0),
            json!(0),
            json!(1e300),
            json!("inf"),
            json!("nan"),
        ] {
            let err = Settings::from_json(Some(&json!({"timeoutMultiplier": bad}))).unwrap_err();
            assert!(err.contains("timeoutMultiplier"), "{bad}: {err}");
        }
        let err = Settings::from_json(Some(&json!({"jobs": 0}))).unwrap_err();
        assert!(err.contains("jobs"), "{err}");
        let fine = Settings::from_json(Some(&json!({"timeoutMultiplier": 2.5}))).unwrap();
        assert_eq!(fine.timeout_multiplier, Some(2.5));
    }
}
