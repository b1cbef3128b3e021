//! The CI templates of docs/ci/, read as their engines read them and their
//! scripts run as their engines run them, with mutiny on the PATH.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// A template of docs/ci/.
pub fn template(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/ci")
        .join(name)
}

/// The venv of tests/ci/venv.sh (actionlint and PyYAML), made once.
pub fn venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ci/venv.sh");
        let output = Command::new("bash")
            .arg(&script)
            .output()
            .expect("bash runs tests/ci/venv.sh");
        assert!(
            output.status.success(),
            "tests/ci/venv.sh cannot install actionlint and PyYAML (needs python3 with \
             venv and PyPI):\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
    })
}

/// Every YAML document of a template, as JSON. A key `on` stays `on`
/// (YAML 1.1 would read it as `true`).
pub fn yaml_documents(path: &Path) -> Vec<Value> {
    const TO_JSON: &str = "
import json, sys, yaml
def keys(x):
    if isinstance(x, dict):
        return {('on' if k is True else str(k)): keys(v) for k, v in x.items()}
    if isinstance(x, list):
        return [keys(v) for v in x]
    return x
with open(sys.argv[1]) as f:
    print(json.dumps([keys(d) for d in yaml.safe_load_all(f) if d is not None]))
";
    let output = Command::new(venv().join("bin/python"))
        .args(["-c", TO_JSON])
        .arg(path)
        .output()
        .expect("the venv's python runs");
    assert!(
        output.status.success(),
        "{} is not YAML:\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    match serde_json::from_slice(&output.stdout).unwrap() {
        Value::Array(documents) => documents,
        other => panic!("not a list of documents: {other}"),
    }
}

/// The one YAML document of a template.
pub fn yaml(path: &Path) -> Value {
    let mut documents = yaml_documents(path);
    assert_eq!(documents.len(), 1, "{}", path.display());
    documents.remove(0)
}

/// A string field, or a panic naming it.
#[track_caller]
pub fn string<'a>(value: &'a Value, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value}"))
}

/// Starts `script` as `shell… script` in `cwd` with these variables, the
/// directory of the mutiny under test first on the PATH, and its output
/// piped.
pub fn start(shell: &[&str], script: &str, cwd: &Path, env: &[(String, String)]) -> Child {
    let bin = Path::new(env!("CARGO_BIN_EXE_mutiny")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    Command::new(shell[0])
        .args(&shell[1..])
        .arg(script)
        .current_dir(cwd)
        .env("PATH", path)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("{shell:?} does not start: {err}"))
}

/// Waits for each started script; panics with the output of any whose
/// exit code is not `expected`.
#[track_caller]
pub fn wait_all(children: Vec<(String, Child)>, expected: i32) {
    for (what, child) in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(expected),
            "{what}:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
