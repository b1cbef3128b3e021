//! `mutiny merge` end to end on the example fixture, and the CI templates
//! of docs/ci/: their shard commands, taken from the templates, run as
//! GitLab CI, Kubernetes and GitHub Actions would run them (each shard in
//! its own checkout, in parallel, with the engine's variables), their
//! outputs carried as the engine carries artifacts, merged by the
//! template's merge job, and compared with one unsharded run.
//!
//! mutiny runs are few and shared by the tests: one unsharded run, three
//! GitLab shards, two Kubernetes shards, two GitHub shards and one shard
//! of a changed tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

mod support;
use support::ci::{self, string};
use support::{copy_dir, copy_of, fixture, EXAMPLE_MISSED};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

/// A temporary directory with a `tmp/` for the TMPDIR of what runs there,
/// so that scratch trees go with it.
fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

fn tmpdir(sandbox: &tempfile::TempDir) -> (String, String) {
    let tmp = sandbox.path().join("tmp");
    ("TMPDIR".into(), tmp.to_string_lossy().into_owned())
}

/// The unsharded run of the example fixture: its `mutants.out/`.
fn unsharded() -> &'static Path {
    static RUN: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_sandbox, out) = RUN.get_or_init(|| {
        let sandbox = sandbox();
        let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
            .args(["run", "-d"])
            .arg(fixture("example"))
            .arg("-o")
            .arg(sandbox.path())
            .env("TMPDIR", sandbox.path().join("tmp"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
        let out = sandbox.path().join("mutants.out");
        (sandbox, out)
    });
    out
}

/// Each mutant's summary in an `outcomes.json`, by name.
fn verdicts(outcomes: &Value) -> BTreeMap<String, String> {
    outcomes["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| {
            let name = o["scenario"]["Mutant"]["name"].as_str()?;
            Some((name.to_owned(), o["summary"].as_str().unwrap().to_owned()))
        })
        .collect()
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `merged` holds what the unsharded run wrote: the same lists, in the same
/// order, the same mutants.json, the same counts and verdicts, the diffs and
/// logs under the same names.
#[track_caller]
fn assert_same_as_unsharded(merged: &Path) {
    let unsharded = unsharded();
    for list in [
        "caught.txt",
        "missed.txt",
        "timeout.txt",
        "unviable.txt",
        "not_compiled.txt",
    ] {
        assert_eq!(
            read(&merged.join(list)),
            read(&unsharded.join(list)),
            "{list}"
        );
    }
    let missed: Vec<String> = read(&merged.join("missed.txt"))
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(missed, EXAMPLE_MISSED);
    assert_eq!(
        read(&merged.join("mutants.json")),
        read(&unsharded.join("mutants.json"))
    );
    let (merged_outcomes, unsharded_outcomes) = (
        json(&merged.join("outcomes.json")),
        json(&unsharded.join("outcomes.json")),
    );
    for count in [
        "total_mutants",
        "missed",
        "caught",
        "timeout",
        "unviable",
        "not_compiled",
    ] {
        assert_eq!(merged_outcomes[count], unsharded_outcomes[count], "{count}");
    }
    assert_eq!(verdicts(&merged_outcomes), verdicts(&unsharded_outcomes));
    let baselines = merged_outcomes["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["scenario"] == "Baseline")
        .count();
    assert_eq!(baselines, 1, "one baseline, as one run has");
    assert_eq!(
        file_names(&merged.join("diff")),
        file_names(&unsharded.join("diff"))
    );
    for diff in file_names(&merged.join("diff")) {
        assert_eq!(
            read(&merged.join("diff").join(&diff)),
            read(&unsharded.join("diff").join(&diff)),
            "{diff}"
        );
    }
    assert_eq!(
        file_names(&merged.join("log")),
        file_names(&unsharded.join("log"))
    );
    let report = json(&merged.join("mutation-report.json"));
    let reported: usize = report["files"]
        .as_object()
        .unwrap()
        .values()
        .map(|f| f["mutants"].as_array().unwrap().len())
        .sum();
    assert_eq!(reported, 27, "the elements report has every mutant");
    let page = read(&merged.join("mutation-report.html"));
    assert!(page.contains("Version::is_stable"), "the HTML report too");
}

/// What a CI engine's run of a template left: the shards' `mutants.out/`
/// and the merge job's directory.
struct Simulation {
    _sandbox: tempfile::TempDir,
    shards: Vec<PathBuf>,
    /// The merge job's checkout, where its outputs are.
    merge_job: PathBuf,
    merged: PathBuf,
}

/// `gitlab-ci.yml` with `parallel: 3`: the `mutants` job's script on nodes
/// 1…3 (CI_NODE_INDEX, CI_NODE_TOTAL), each in its checkout, its artifacts
/// gathered in the checkout of `mutants:merge`, whose script then runs.
fn gitlab() -> &'static Simulation {
    static RUN: OnceLock<Simulation> = OnceLock::new();
    RUN.get_or_init(|| {
        const NODES: usize = 3;
        let pipeline = ci::yaml(&ci::template("gitlab-ci.yml"));
        let sandbox = sandbox();
        let bash = ["bash", "-e", "-o", "pipefail", "-c"];
        let variables = |job: &Value| -> Vec<(String, String)> {
            let mut env = vec![tmpdir(&sandbox)];
            for scope in [&pipeline["variables"], &job["variables"]] {
                for (key, value) in scope.as_object().into_iter().flatten() {
                    let value = match value {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    env.push((key.clone(), value));
                }
            }
            env
        };
        let job = &pipeline["mutants"];
        let script = script_lines(&job["script"]);
        let mut nodes = Vec::new();
        let mut checkouts = Vec::new();
        for index in 1..=NODES {
            let checkout = sandbox.path().join(format!("node-{index}"));
            copy_dir(&fixture("example"), &checkout);
            let mut env = variables(job);
            env.extend([
                ("CI_NODE_INDEX".into(), index.to_string()),
                ("CI_NODE_TOTAL".into(), NODES.to_string()),
                ("CI_PROJECT_DIR".into(), checkout.display().to_string()),
            ]);
            nodes.push((
                format!("mutants {index}/{NODES}"),
                ci::start(&bash, &script, &checkout, &env),
            ));
            checkouts.push(checkout);
        }
        ci::wait_all(nodes, 0);

        let merge = &pipeline["mutants:merge"];
        let merge_job = sandbox.path().join("merge");
        copy_dir(&fixture("example"), &merge_job);
        for checkout in &checkouts {
            for path in job["artifacts"]["paths"].as_array().unwrap() {
                let path = string(path, "artifacts path");
                copy_dir(&checkout.join(path), &merge_job.join(path));
            }
        }
        let mut env = variables(merge);
        env.push(("CI_PROJECT_DIR".into(), merge_job.display().to_string()));
        let script = script_lines(&merge["script"]);
        ci::wait_all(
            vec![(
                "mutants:merge".into(),
                ci::start(&bash, &script, &merge_job, &env),
            )],
            2,
        );
        let shards = (1..=NODES)
            .map(|index| merge_job.join(format!("shards/{index}/mutants.out")))
            .collect();
        Simulation {
            merged: merge_job.join("mutants.out"),
            _sandbox: sandbox,
            shards,
            merge_job,
        }
    })
}

/// A GitLab `script:` list as one script.
fn script_lines(script: &Value) -> String {
    let lines: Vec<&str> = script
        .as_array()
        .unwrap_or_else(|| panic!("script is not a list: {script}"))
        .iter()
        .map(|line| string(line, "script line"))
        .collect();
    lines.join("\n")
}

/// The container of a Job's pod template, with its volume mounts mapped to
/// local directories (`mounts[volume name]`) in its script and working
/// directory.
struct Pod {
    script: String,
    working_dir: PathBuf,
    env: Vec<(String, String)>,
}

impl Pod {
    fn of(job: &Value, mounts: &BTreeMap<&str, PathBuf>) -> Pod {
        let container = &job["spec"]["template"]["spec"]["containers"][0];
        let command: Vec<&str> = container["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| string(c, "command"))
            .collect();
        assert_eq!(command, ["sh", "-c"], "the script is the first argument");
        let mut script = string(&container["args"][0], "args").to_owned();
        let mut working_dir = string(&container["workingDir"], "workingDir").to_owned();
        for mount in container["volumeMounts"].as_array().unwrap() {
            let name = string(&mount["name"], "volume name");
            let at = string(&mount["mountPath"], "mountPath");
            let local = mounts[name].to_str().unwrap();
            script = script.replace(at, local);
            working_dir = working_dir.replace(at, local);
        }
        let env = container["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    string(&v["name"], "env name").to_owned(),
                    string(&v["value"], "env value").to_owned(),
                )
            })
            .collect();
        Pod {
            script,
            working_dir: PathBuf::from(working_dir),
            env,
        }
    }
}

/// `k8s-indexed-job.yaml` with 2 completions: each pod (its own checkout
/// as its `workspace` volume, the shared `results` volume) gets its
/// JOB_COMPLETION_INDEX; then the pod of `k8s-merge-job.yaml`.
fn kubernetes() -> &'static Simulation {
    static RUN: OnceLock<Simulation> = OnceLock::new();
    RUN.get_or_init(|| {
        const COMPLETIONS: usize = 2;
        let documents = ci::yaml_documents(&ci::template("k8s-indexed-job.yaml"));
        let job = documents
            .iter()
            .find(|d| d["spec"]["completionMode"] == "Indexed")
            .expect("an Indexed Job");
        let sandbox = sandbox();
        let results = sandbox.path().join("results");
        std::fs::create_dir(&results).unwrap();
        let mut pods = Vec::new();
        for index in 0..COMPLETIONS {
            let checkout = sandbox.path().join(format!("pod-{index}"));
            copy_dir(&fixture("example"), &checkout);
            let mounts = BTreeMap::from([("workspace", checkout), ("results", results.clone())]);
            let pod = Pod::of(job, &mounts);
            let mut env: Vec<(String, String)> = pod
                .env
                .into_iter()
                .filter(|(name, _)| name != "SHARDS")
                .collect();
            env.extend([
                tmpdir(&sandbox),
                ("SHARDS".into(), COMPLETIONS.to_string()),
                ("JOB_COMPLETION_INDEX".into(), index.to_string()),
            ]);
            pods.push((
                format!("pod {index}"),
                ci::start(&["sh", "-c"], &pod.script, &pod.working_dir, &env),
            ));
        }
        ci::wait_all(pods, 0);

        let merge_job = ci::yaml(&ci::template("k8s-merge-job.yaml"));
        let checkout = sandbox.path().join("merge");
        copy_dir(&fixture("example"), &checkout);
        let mounts = BTreeMap::from([
            ("workspace", checkout.clone()),
            ("results", results.clone()),
        ]);
        let pod = Pod::of(&merge_job, &mounts);
        let mut env = pod.env;
        env.push(tmpdir(&sandbox));
        ci::wait_all(
            vec![(
                "merge pod".into(),
                ci::start(&["sh", "-c"], &pod.script, &pod.working_dir, &env),
            )],
            2,
        );
        let revision = env
            .iter()
            .find(|(name, _)| name == "REVISION")
            .map(|(_, value)| value.clone())
            .unwrap();
        let shards = (0..COMPLETIONS)
            .map(|index| results.join(format!("{revision}/shard-{index}/mutants.out")))
            .collect();
        Simulation {
            merged: results.join(format!("{revision}/merged")),
            _sandbox: sandbox,
            shards,
            merge_job: checkout,
        }
    })
}

/// `github-actions.yml` with a matrix of 2 shards: the `run` step of the
/// `shards` job per matrix value (SHARDS = 2), each in its checkout; its
/// upload-artifact path downloaded as the merge job's download-artifact
/// puts it; then the merge job's `merge` and `reports` steps.
fn github() -> &'static Simulation {
    static RUN: OnceLock<Simulation> = OnceLock::new();
    RUN.get_or_init(|| {
        const SHARDS: usize = 2;
        let workflow = ci::yaml(&ci::template("github-actions.yml"));
        let sandbox = sandbox();
        let bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"];
        let mut env: Vec<(String, String)> = workflow["env"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(name, _)| *name != "SHARDS")
            .map(|(name, value)| (name.clone(), value.to_string().trim_matches('"').to_owned()))
            .collect();
        env.extend([tmpdir(&sandbox), ("SHARDS".into(), SHARDS.to_string())]);

        let steps = &workflow["jobs"]["shards"]["steps"];
        let run = string(&step(steps, "run")["run"], "run").to_owned();
        let upload = uses(steps, "actions/upload-artifact");
        let mut jobs = Vec::new();
        let mut artifacts = Vec::new();
        for shard in 0..SHARDS {
            let checkout = sandbox.path().join(format!("shard-{shard}"));
            copy_dir(&fixture("example"), &checkout);
            let script = matrix(&run, shard);
            jobs.push((
                format!("shard {shard}"),
                ci::start(&bash, &script, &checkout, &env),
            ));
            let name = matrix(string(&upload["with"]["name"], "artifact name"), shard);
            let path = checkout.join(string(&upload["with"]["path"], "artifact path"));
            artifacts.push((name, path));
        }
        ci::wait_all(jobs, 0);

        let merge_steps = &workflow["jobs"]["merge"]["steps"];
        let download = merge_steps
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["with"]["pattern"].is_string())
            .expect("a download of the shards' artifacts");
        let pattern = string(&download["with"]["pattern"], "pattern");
        let prefix = pattern.strip_suffix('*').expect("a pattern NAME-*");
        let merge_job = sandbox.path().join("merge");
        copy_dir(&fixture("example"), &merge_job);
        let downloads = merge_job.join(string(&download["with"]["path"], "download path"));
        for (name, path) in &artifacts {
            assert!(
                name.starts_with(prefix),
                "{pattern} does not download {name}"
            );
            // Several artifacts: each in a directory named after it.
            copy_dir(path, &downloads.join(name));
        }
        let github_output = sandbox.path().join("github-output");
        let summary = sandbox.path().join("step-summary");
        env.extend([
            ("GITHUB_OUTPUT".into(), github_output.display().to_string()),
            ("GITHUB_STEP_SUMMARY".into(), summary.display().to_string()),
        ]);
        for id in ["merge", "reports"] {
            let script = string(&step(merge_steps, id)["run"], "run");
            assert!(!script.contains("${{"), "step {id} uses an expression");
            ci::wait_all(
                vec![(
                    format!("step {id}"),
                    ci::start(&bash, script, &merge_job, &env),
                )],
                0,
            );
        }
        Simulation {
            shards: artifacts
                .iter()
                .map(|(name, _)| downloads.join(name))
                .collect(),
            merged: merge_job.join("mutants.out"),
            _sandbox: sandbox,
            merge_job,
        }
    })
}

/// The step with this id.
#[track_caller]
fn step<'a>(steps: &'a Value, id: &str) -> &'a Value {
    steps
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step with id {id}"))
}

/// The first step using this action.
#[track_caller]
fn uses<'a>(steps: &'a Value, action: &str) -> &'a Value {
    steps
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with(action)))
        .unwrap_or_else(|| panic!("no step uses {action}"))
}

/// `text` with GitHub's `${{ matrix.shard }}` for this shard; no other
/// expression may be left.
#[track_caller]
fn matrix(text: &str, shard: usize) -> String {
    let text = text.replace("${{ matrix.shard }}", &shard.to_string());
    assert!(
        !text.contains("${{"),
        "an expression the test cannot evaluate: {text}"
    );
    text
}

/// `mutiny merge DIRS… -o OUT` into a fresh directory: its output and
/// where OUT was to be.
fn merge(dirs: &[&Path]) -> (Output, PathBuf, tempfile::TempDir) {
    let sandbox = tempfile::tempdir().unwrap();
    let out = sandbox.path().join("merged");
    let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .arg("merge")
        .args(dirs)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    (output, out, sandbox)
}

/// The merge of `dirs` fails (exit 1) with `message` and writes nothing.
#[track_caller]
fn assert_refused(dirs: &[&Path], message: &str) {
    let (output, out, sandbox) = merge(dirs);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(message), "{message:?} not in:\n{stderr}");
    assert!(!out.exists(), "{} was written", out.display());
    assert_eq!(
        file_names(sandbox.path()),
        Vec::<String>::new(),
        "nothing beside it either"
    );
}

#[test]
fn three_gitlab_shards_merged_are_the_unsharded_run() {
    let gitlab = gitlab();
    assert_same_as_unsharded(&gitlab.merged);
    let summary = read(&gitlab.merge_job.join("mutants.md"));
    assert!(summary.contains("11"), "{summary}");
}

#[test]
fn two_kubernetes_shards_merged_are_the_unsharded_run() {
    assert_same_as_unsharded(&kubernetes().merged);
}

#[test]
fn two_github_shards_merged_are_the_unsharded_run_with_its_reports() {
    let github = github();
    assert_same_as_unsharded(&github.merged);
    let sandbox = github.merge_job.parent().unwrap();
    assert_eq!(read(&sandbox.join("github-output")), "status=2\n");
    let summary = read(&sandbox.join("step-summary"));
    assert!(summary.contains("Version::is_stable"), "{summary}");
    let sarif = json(&github.merge_job.join("mutants.sarif"));
    assert_eq!(
        sarif["runs"][0]["results"].as_array().unwrap().len(),
        EXAMPLE_MISSED.len()
    );
}

#[test]
fn each_shard_records_its_part_of_one_list() {
    for (k, shard) in gitlab().shards.iter().enumerate() {
        let record = json(&shard.join("shard.json"));
        assert_eq!(record["shard"], serde_json::json!({"k": k, "n": 3}));
        assert_eq!(record["sharding"], "slice");
        assert_eq!(record["mutants"], 27);
    }
    let first = json(&gitlab().shards[0].join("shard.json"));
    let other = json(&kubernetes().shards[1].join("shard.json"));
    assert_eq!(first["names_digest"], other["names_digest"]);
    assert_eq!(first["sources_digest"], other["sources_digest"]);
}

#[test]
fn a_missing_shard_is_named_and_nothing_is_written() {
    let shards = &gitlab().shards;
    assert_refused(
        &[&shards[0], &shards[2]],
        "shard 1/3 is missing: give the mutants.out of `mutiny run --shard 1/3` too",
    );
}

#[test]
fn a_shard_given_twice_is_named_and_nothing_is_written() {
    let shards = &gitlab().shards;
    assert_refused(
        &[&shards[0], &shards[1], &shards[2], &shards[1]],
        "shard 1/3 is given 2 times",
    );
}

#[test]
fn shards_of_different_splits_are_refused_and_nothing_is_written() {
    let three = &gitlab().shards;
    let two = &kubernetes().shards;
    assert_refused(
        &[&three[0], &two[1], &three[1], &three[2]],
        "are shards of different splits (N = 3 and N = 2)",
    );
}

#[test]
fn shards_of_different_trees_are_refused_and_nothing_is_written() {
    let (_copy, changed) = copy_of("example");
    let lib = changed.join("src/lib.rs");
    let source = read(&lib) + "// changed after shards 0/3 and 2/3 ran\n";
    std::fs::write(&lib, source).unwrap();
    let sandbox = sandbox();
    let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .args(["run", "--shard", "1/3", "--baseline", "skip", "-o"])
        .arg(sandbox.path())
        .current_dir(&changed)
        .env("TMPDIR", sandbox.path().join("tmp"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let shards = &gitlab().shards;
    assert_refused(
        &[&shards[0], &sandbox.path().join("mutants.out"), &shards[2]],
        "were made from different source trees (the mutated files differ)",
    );
}

#[test]
fn an_unsharded_run_is_no_shard() {
    assert_refused(
        &[unsharded()],
        "is not a shard: it has no shard.json, which `mutiny run --shard K/N` writes",
    );
}

#[test]
fn an_existing_output_is_left_alone() {
    let shards = &gitlab().shards;
    let sandbox = tempfile::tempdir().unwrap();
    std::fs::write(sandbox.path().join("keep.txt"), "mine").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .arg("merge")
        .args(shards)
        .arg("-o")
        .arg(sandbox.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("already exists: remove it, or give another -o"));
    assert_eq!(file_names(sandbox.path()), ["keep.txt"]);
}

#[test]
fn the_github_workflow_passes_actionlint() {
    let output = Command::new(ci::venv().join("bin/actionlint"))
        .arg(ci::template("github-actions.yml"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

#[test]
fn the_github_matrix_counts_every_shard_and_pull_requests_test_the_diff() {
    let workflow = ci::yaml(&ci::template("github-actions.yml"));
    let shards = workflow["env"]["SHARDS"].as_u64().unwrap();
    let matrix: Vec<u64> = workflow["jobs"]["shards"]["strategy"]["matrix"]["shard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(matrix, (0..shards).collect::<Vec<_>>());
    let merge = &workflow["jobs"]["merge"];
    assert_eq!(merge["needs"], serde_json::json!(["install", "shards"]));
    uses(&merge["steps"], "github/codeql-action/upload-sarif");
    let pull_request = &workflow["jobs"]["pull-request"];
    assert_eq!(pull_request["if"], "github.event_name == 'pull_request'");
    let run = string(&step(&pull_request["steps"], "run")["run"], "run");
    assert!(run.contains("mutiny run --in-diff pr.diff"), "{run}");
}

#[test]
fn the_gitlab_jobs_shard_from_ci_node_index_and_merge_every_node() {
    let pipeline = ci::yaml(&ci::template("gitlab-ci.yml"));
    let mutants = &pipeline["mutants"];
    assert!(mutants["parallel"].as_u64().unwrap() > 1);
    assert!(script_lines(&mutants["script"])
        .contains("--shard \"$((CI_NODE_INDEX - 1))/$CI_NODE_TOTAL\""));
    let merge = &pipeline["mutants:merge"];
    assert!(merge["needs"]
        .as_array()
        .unwrap()
        .contains(&Value::from("mutants")));
    let changed = &pipeline["mutants:changed"];
    assert!(script_lines(&changed["script"]).contains("--in-diff"));
    for job in [mutants, merge, changed] {
        assert_eq!(job["extends"], ".mutiny", "mutiny on the PATH");
    }
}

#[test]
fn the_kubernetes_job_is_indexed_with_one_pod_per_shard() {
    let documents = ci::yaml_documents(&ci::template("k8s-indexed-job.yaml"));
    let kinds: Vec<&str> = documents
        .iter()
        .map(|d| string(&d["kind"], "kind"))
        .collect();
    assert_eq!(kinds, ["PersistentVolumeClaim", "Job"]);
    let spec = &documents[1]["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(spec["completions"], spec["parallelism"]);
    let container = &spec["template"]["spec"]["containers"][0];
    let shards = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "SHARDS")
        .unwrap();
    assert_eq!(
        string(&shards["value"], "SHARDS"),
        spec["completions"].to_string()
    );
    let merge = ci::yaml(&ci::template("k8s-merge-job.yaml"));
    assert_eq!(merge["kind"], "Job");
    let claim = |job: &Value| {
        job["spec"]["template"]["spec"]["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|v| v["persistentVolumeClaim"]["claimName"].as_str())
            .map(str::to_owned)
    };
    assert_eq!(claim(&documents[1]), claim(&merge));
    assert_eq!(
        claim(&merge).as_deref(),
        documents[0]["metadata"]["name"].as_str()
    );
}
