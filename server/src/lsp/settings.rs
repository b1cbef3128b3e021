//! Settings from `initializationOptions` and `workspace/didChangeConfiguration`,
//! either flat or under a `mutiny` key. Unknown keys are ignored, so
//! editors can send their whole configuration.

use serde::Deserialize;

use crate::lab::cargo::{CargoOptions, TestTool};
use crate::lab::{self, BaselineMode, LabOptions, Timeouts};

#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// `cargo` or `nextest`.
    pub test_tool: String,
    /// Added to every cargo command.
    pub additional_cargo_args: Vec<String>,
    /// `file`: every mutant of the saved file, changed functions first;
    /// `changedFunctions`: only mutants in functions whose text changed.
    pub scope: Scope,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
            test_tool: "cargo".to_owned(),
            additional_cargo_args: Vec::new(),
            scope: Scope::File,
        }
    }
}

impl Settings {
    /// Reads settings from a client's JSON (`null` gives the defaults).
    pub fn from_json(value: Option<&serde_json::Value>) -> Result<Settings, String> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(Settings::default());
        };
        let value = value.get("mutiny").unwrap_or(value);
        let settings: Settings = serde_json::from_value(value.clone())
            .map_err(|err| format!("bad mutiny settings: {err}"))?;
        settings
            .test_tool
            .parse::<TestTool>()
            .map_err(|err| format!("bad mutiny settings: testTool: {err}"))?;
        Ok(settings)
    }

    /// The lab options these settings ask for (logs go to `log_dir`).
    pub fn lab_options(&self, log_dir: std::path::PathBuf) -> LabOptions {
        LabOptions {
            jobs: self.jobs.unwrap_or_else(lab::default_jobs).max(1),
            cargo: CargoOptions {
                test_tool: self.test_tool.parse().unwrap_or_default(),
                additional_cargo_args: self.additional_cargo_args.clone(),
                ..CargoOptions::default()
            },
            test_scope: Default::default(),
            timeouts: Timeouts {
                multiplier: self.timeout_multiplier,
                ..Timeouts::default()
            },
            baseline: BaselineMode::Run,
            log_dir,
        }
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
        let nested = json!({"mutiny": {"scope": "changedFunctions", "testTool": "nextest"}});
        let nested = Settings::from_json(Some(&nested)).unwrap();
        assert_eq!(nested.scope, Scope::ChangedFunctions);
        assert_eq!(
            nested.lab_options("/tmp".into()).cargo.test_tool,
            TestTool::Nextest
        );
    }

    #[test]
    fn bad_settings_are_refused_with_the_key() {
        let err = Settings::from_json(Some(&json!({"testTool": "make"}))).unwrap_err();
        assert!(err.contains("testTool"), "{err}");
        let err = Settings::from_json(Some(&json!({"jobs": "many"}))).unwrap_err();
        assert!(err.contains("bad mutiny settings"), "{err}");
    }
}
