//! `mutiny report` end to end: the real binary on real `mutants.out/`
//! directories, one recorded from cargo-mutants 27.1.0
//! (`tests/fixtures/report/`, see EXPECTED.md) and one from a fresh
//! `mutiny run`. Elements reports are checked against the schema published
//! on npm (`tests/report/validate.mjs`), HTML reports in Debian's Chromium
//! (`tests/report/html.mjs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

mod support;
use support::{copy_dir, fixture, EXAMPLE_MISSED};

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// `mutiny report ARGS…` in `cwd`.
fn report(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mutiny"))
        .arg("report")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("mutiny report runs")
}

/// The report's stdout, after checking it succeeded without a warning.
#[track_caller]
fn report_ok(cwd: &Path, args: &[&str]) -> String {
    let output = report(cwd, args);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    assert!(stderr.is_empty(), "{args:?} warned: {stderr}");
    text(&output.stdout)
}

#[track_caller]
fn json(report: &str) -> Value {
    serde_json::from_str(report).unwrap_or_else(|err| panic!("{err}\n{report}"))
}

/// A copy of fixture crate `name` in a temporary directory, with the
/// `mutants.out/` cargo-mutants wrote for it, where it wrote it.
fn cargo_mutants_run(name: &str, recorded: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = support::copy_of(name);
    copy_dir(
        &fixture("report").join(recorded).join("mutants.out"),
        &root.join("mutants.out"),
    );
    (dir, root)
}

fn example() -> (tempfile::TempDir, PathBuf) {
    cargo_mutants_run("example", "cargo-mutants-example")
}

/// A fresh `mutiny run` of the example fixture: its `mutants.out/` and
/// what it printed.
struct FreshRun {
    _sandbox: tempfile::TempDir,
    out: PathBuf,
    stdout: String,
}

/// The `mutants.out/` of a fresh `mutiny run` of the example fixture.
fn mutiny_run() -> &'static Path {
    &fresh_run().out
}

/// A fresh `mutiny run` of the example fixture, once per test binary:
/// its `mutants.out/` goes to a directory of its own (`-o`), away from the
/// crate, and its scratch trees to a TMPDIR of its own.
fn fresh_run() -> &'static FreshRun {
    static RUN: OnceLock<FreshRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let sandbox = tempfile::tempdir().unwrap();
        for sub in ["out", "tmp"] {
            std::fs::create_dir(sandbox.path().join(sub)).unwrap();
        }
        let output = Command::new(env!("CARGO_BIN_EXE_mutiny"))
            .args(["run", "-j", "2", "-d"])
            .arg(fixture("example"))
            .arg("-o")
            .arg(sandbox.path().join("out"))
            .env("TMPDIR", sandbox.path().join("tmp"))
            .output()
            .expect("mutiny run runs");
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
        FreshRun {
            out: sandbox.path().join("out/mutants.out"),
            _sandbox: sandbox,
            stdout: text(&output.stdout),
        }
    })
}

/// Checks `report` against the mutation-testing-elements JSON schema, as
/// the `mutation-testing-report-schema` npm package publishes it.
#[track_caller]
fn assert_valid_elements(report: &Path) {
    let validator = node_package();
    let output = Command::new("node")
        .arg(validator.join("validate.mjs"))
        .arg(report)
        .output()
        .expect("node runs (tests/report needs Node.js)");
    assert!(
        output.status.success(),
        "{} does not match the schema:\n{}{}",
        report.display(),
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// tests/report, its npm packages installed.
fn node_package() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/report");
    install_node_packages(&dir);
    dir
}

/// `npm ci` in tests/report, once, if its node_modules are missing
/// (tests/setup.sh installs them too).
fn install_node_packages(dir: &Path) {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _one = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let installed = ["mutation-testing-report-schema", "playwright-core"]
        .iter()
        .all(|package| dir.join("node_modules").join(package).is_dir());
    if installed {
        return;
    }
    let output = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .output();
    match output {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "cannot install the report tests' npm packages: `npm ci` in {} failed \
             (run tests/setup.sh, or `npm ci` there by hand):\n{}",
            dir.display(),
            text(&output.stderr)
        ),
        Err(err) => panic!(
            "cannot install the report tests' npm packages: npm does not run ({err}); \
             the report tests need Node.js and npm"
        ),
    }
}

/// Writes an elements report of `mutants_out` (run from `cwd`) to a file,
/// validates it and returns it.
#[track_caller]
fn elements(cwd: &Path, extra: &[&str]) -> Value {
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("report.json");
    let mut args = vec!["--format", "elements", "-o", file.to_str().unwrap()];
    args.extend(extra);
    let stdout = report_ok(cwd, &args);
    assert_eq!(stdout, "", "-o FILE writes nothing to stdout");
    assert_valid_elements(&file);
    json(&std::fs::read_to_string(&file).unwrap())
}

/// Status → mutant ids, from an elements report.
fn statuses(report: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let mut statuses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in report["files"].as_object().unwrap().values() {
        for mutant in file["mutants"].as_array().unwrap() {
            statuses
                .entry(mutant["status"].as_str().unwrap().to_owned())
                .or_default()
                .insert(mutant["id"].as_str().unwrap().to_owned());
        }
    }
    statuses
}

fn lines_of(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The text a location covers in `source` (1-based char columns, end
/// exclusive).
fn located_text(source: &str, location: &Value) -> String {
    let at = |position: &Value| -> usize {
        let line = position["line"].as_u64().unwrap() as usize;
        let column = position["column"].as_u64().unwrap() as usize;
        let before: usize = source
            .split_inclusive('\n')
            .take(line - 1)
            .map(|l| l.chars().count())
            .sum();
        before + column - 1
    };
    let (start, end) = (at(&location["start"]), at(&location["end"]));
    source.chars().skip(start).take(end - start).collect()
}

#[test]
fn elements_of_a_cargo_mutants_run_match_the_schema_its_verdicts_and_its_sources() {
    let (_dir, root) = example();
    let report = elements(&root, &[]);
    assert_eq!(report["schemaVersion"], "2");
    assert_eq!(
        report["thresholds"],
        serde_json::json!({"high": 80, "low": 60})
    );
    assert_eq!(
        report["framework"],
        serde_json::json!({"name": "cargo-mutants", "version": "27.1.0"})
    );
    assert_eq!(
        report.get("system"),
        None,
        "the system that ran it is unknown"
    );

    let out = root.join("mutants.out");
    let statuses = statuses(&report);
    assert_eq!(statuses["Killed"], lines_of(&out.join("caught.txt")));
    assert_eq!(statuses["Survived"], lines_of(&out.join("missed.txt")));
    assert_eq!(
        statuses["CompileError"],
        lines_of(&out.join("unviable.txt"))
    );
    assert_eq!(statuses.len(), 3, "{statuses:?}");
    assert_eq!(statuses["Survived"].len(), EXAMPLE_MISSED.len());

    let file = &report["files"]["src/lib.rs"];
    assert_eq!(file["language"], "rust");
    let source = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert_eq!(file["source"], source.as_str());
    for mutant in file["mutants"].as_array().unwrap() {
        let description = mutant["description"].as_str().unwrap();
        assert!(
            mutant["duration"].as_u64().is_some(),
            "{mutant}: cargo-mutants timed every mutant"
        );
        // `replace > with == in …`: the location covers the `>`.
        if mutant["mutatorName"] == "BinaryOperator" {
            let original = description
                .strip_prefix("replace ")
                .and_then(|d| d.split(" with ").next())
                .unwrap();
            assert_eq!(
                located_text(&source, &mutant["location"]),
                original,
                "{mutant}"
            );
            let replacement = description.split(" with ").nth(1).unwrap();
            assert!(replacement.starts_with(mutant["replacement"].as_str().unwrap()));
        }
    }
    let stable = file["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "src/lib.rs:30:20: replace > with == in Version::is_stable")
        .unwrap();
    assert_eq!(
        stable["location"],
        serde_json::json!({"start": {"line": 30, "column": 20}, "end": {"line": 30, "column": 21}})
    );
    assert_eq!(stable["status"], "Survived");
    assert_eq!(stable["statusReason"], "every test passed");
}

#[test]
fn timeouts_of_a_cargo_mutants_run_are_timeout_in_elements_and_notes_in_sarif() {
    let (_dir, root) = cargo_mutants_run("infinite_loop", "cargo-mutants-infinite-loop");
    let report = elements(&root, &[]);
    let statuses = statuses(&report);
    assert_eq!(
        statuses["Timeout"],
        BTreeSet::from(["src/lib.rs:5:5: replace is_done -> bool with false".to_owned()])
    );
    assert_eq!(statuses["Killed"].len(), 5);

    let sarif = json(&report_ok(&root, &["--format", "sarif"]));
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["level"], "note");
    assert_eq!(results[0]["ruleId"], "Timeout");
}

#[test]
fn report_takes_mutants_out_the_directory_holding_it_or_defaults_to_it() {
    let (_dir, root) = example();
    let given = report_ok(&root, &["--format", "markdown", "mutants.out"]);
    let holding = report_ok(root.parent().unwrap(), &["--format", "markdown", "example"]);
    let default = report_ok(&root, &["--format", "markdown"]);
    assert_eq!(given, holding);
    assert_eq!(given, default);
}

#[test]
fn a_fresh_mutiny_run_leaves_an_elements_report_that_report_remakes() {
    let out = mutiny_run();
    let written = out.join("mutation-report.json");
    assert_valid_elements(&written);
    let written = json(&std::fs::read_to_string(&written).unwrap());
    assert_eq!(written["framework"]["name"], "mutiny");
    assert_eq!(written["framework"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(written["system"]["cpu"]["logicalCores"].as_u64().unwrap() >= 1);
    assert!(written["system"]["ci"].is_boolean());

    let statuses = statuses(&written);
    assert_eq!(statuses["Killed"], lines_of(&out.join("caught.txt")));
    assert_eq!(
        statuses["CompileError"],
        lines_of(&out.join("unviable.txt"))
    );
    // Missed mutants whose code no test reached are Stryker's NoCoverage.
    let missed: BTreeSet<String> = ["Survived", "NoCoverage"]
        .iter()
        .flat_map(|s| statuses.get(*s).cloned().unwrap_or_default())
        .collect();
    assert_eq!(
        missed,
        EXAMPLE_MISSED.iter().map(|n| n.to_string()).collect()
    );

    // mutants.out is away from the crate: the sources come from the
    // workspace outcomes.json names.
    let source = std::fs::read_to_string(fixture("example").join("src/lib.rs")).unwrap();
    assert_eq!(written["files"]["src/lib.rs"]["source"], source.as_str());
    let killed = written["files"]["src/lib.rs"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["status"] == "Killed")
        .unwrap();
    assert!(
        killed["statusReason"]
            .as_str()
            .unwrap()
            .starts_with("failed: tests::"),
        "{killed}"
    );

    let mut remade = elements(&std::env::temp_dir(), &[out.to_str().unwrap()]);
    assert_eq!(remade.as_object_mut().unwrap().remove("system"), None);
    assert_eq!(remade["files"], written["files"]);
    assert_eq!(remade["framework"], written["framework"]);
}

#[test]
fn sarif_has_a_warning_per_missed_mutant_at_its_span_and_fingerprints_both_tools_share() {
    let (_dir, root) = example();
    let first = report_ok(&root, &["--format", "sarif"]);
    assert_eq!(
        first,
        report_ok(&root, &["--format", "sarif"]),
        "the same input gives the same report"
    );
    let sarif = json(&first);
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "mutiny");
    assert_eq!(run["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let rule_ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for genre in ["FnValue", "BinaryOperator", "UnaryOperator", "MatchArm"] {
        assert!(rule_ids.contains(&genre), "{rule_ids:?}");
    }
    for rule in rules {
        assert!(
            rule["shortDescription"]["text"].as_str().is_some(),
            "{rule}"
        );
        assert!(rule["help"]["text"].as_str().is_some(), "{rule}");
    }

    let outcomes = json(&std::fs::read_to_string(root.join("mutants.out/outcomes.json")).unwrap());
    let spans: BTreeMap<&str, &Value> = outcomes["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| {
            let mutant = &o["scenario"]["Mutant"];
            Some((mutant["name"].as_str()?, &mutant["span"]))
        })
        .collect();
    let results = run["results"].as_array().unwrap();
    let mut named = BTreeSet::new();
    let mut fingerprints = BTreeSet::new();
    for result in results {
        assert_eq!(result["level"], "warning");
        let name = result["properties"]["mutant"].as_str().unwrap();
        named.insert(name.to_owned());
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "src/lib.rs");
        let span = spans[name];
        let region = &location["region"];
        assert_eq!(region["startLine"], span["start"]["line"]);
        assert_eq!(region["startColumn"], span["start"]["column"]);
        assert_eq!(region["endLine"], span["end"]["line"]);
        assert_eq!(region["endColumn"], span["end"]["column"]);
        let message = result["message"]["text"].as_str().unwrap();
        assert!(message.starts_with("Missed mutant: "), "{message}");
        fingerprints.insert(
            result["partialFingerprints"]["mutinyMutant/v1"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let missed: BTreeSet<String> = EXAMPLE_MISSED.iter().map(|n| n.to_string()).collect();
    assert_eq!(named, missed);
    assert_eq!(fingerprints.len(), results.len(), "fingerprints are unique");

    // mutiny's own run of the same crate: the same alerts.
    let ours = json(&report_ok(
        &std::env::temp_dir(),
        &["--format", "sarif", mutiny_run().to_str().unwrap()],
    ));
    let our_fingerprints: BTreeSet<String> = ours["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["mutinyMutant/v1"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(our_fingerprints, fingerprints);
}

#[test]
fn github_annotations_are_a_summary_notice_then_one_escaped_warning_per_missed_mutant() {
    let (_dir, root) = example();
    let annotations = report_ok(&root, &["--format", "github"]);
    let lines: Vec<&str> = annotations.lines().collect();
    assert_eq!(
        lines[0],
        "::notice title=mutiny::27 mutants tested: 11 missed, 15 caught, 1 unviable; \
         mutation score 57.7%25"
    );
    assert_eq!(lines.len(), 1 + EXAMPLE_MISSED.len(), "{annotations}");
    assert!(lines[1..]
        .iter()
        .all(|l| l.starts_with("::warning file=src/lib.rs,line=")));
    assert!(lines.contains(
        &"::warning file=src/lib.rs,line=30,col=20,endLine=30,endColumn=20,\
          title=Missed mutant in Version%3A%3Ais_stable::\
          replace > with == in Version::is_stable (BinaryOperator): \
          the tests still pass with this change."
    ));
    assert!(lines.contains(
        &"::warning file=src/lib.rs,line=58,col=28,endLine=58,endColumn=29,\
          title=Missed mutant in compatible::\
          replace && with || in compatible (BinaryOperator): \
          the tests still pass with this change."
    ));
}

#[test]
fn markdown_summary_counts_verdicts_and_has_a_row_per_missed_mutant() {
    let (_dir, root) = example();
    let summary = report_ok(&root, &["--format", "markdown"]);
    for row in [
        "| caught | 15 |",
        "| missed | 11 |",
        "| unviable | 1 |",
        "| **mutation score** | **57.7%** |",
    ] {
        assert!(summary.contains(row), "no {row:?} in\n{summary}");
    }
    let rows: Vec<&str> = summary
        .lines()
        .filter(|l| l.starts_with("| `src/"))
        .collect();
    assert_eq!(rows.len(), EXAMPLE_MISSED.len(), "{summary}");
    for name in EXAMPLE_MISSED {
        // `src/lib.rs:30:20: replace > with == in Version::is_stable`
        let (place, description) = name.split_once(": ").unwrap();
        let line = place.rsplit_once(':').unwrap().0;
        let cell = description.replace('|', "\\|");
        assert!(
            rows.iter()
                .any(|r| r.starts_with(&format!("| `{line}` | `"))
                    && r.ends_with(&format!("| `{cell}` |"))),
            "no row for {name} in\n{summary}"
        );
    }
    for row in [
        "| `src/lib.rs:30` | `Version::is_stable` | `replace Version::is_stable -> bool with true` |",
        "| `src/lib.rs:58` | `compatible` | `replace && with \\|\\| in compatible` |",
    ] {
        assert!(rows.contains(&row), "no {row:?} in\n{summary}");
    }
}

#[test]
fn bad_input_is_a_clear_usage_error() {
    let (_dir, root) = example();
    let cases: [(&[&str], &str); 4] = [
        (&["--format", "sarif", "no/such/dir"], "does not exist"),
        (&["--format", "pdf"], "unknown report format \"pdf\""),
        (&[], "--format elements, sarif, github, markdown or html"),
        (&["--format", "sarif", "src"], "no outcomes.json in src"),
    ];
    for (args, expected) in cases {
        let output = report(&root, args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }

    std::fs::write(
        root.join("mutants.out/outcomes.json"),
        "{\"outcomes\": [{\"summary\": 1}]}",
    )
    .unwrap();
    let output = report(&root, &["--format", "github"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("outcomes.json is not an outcomes file of mutiny or cargo-mutants"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn missing_sources_are_named_and_the_report_is_made_without_them_or_from_dir() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mutants.out");
    copy_dir(&fixture("report/cargo-mutants-example/mutants.out"), &out);

    let report_file = dir.path().join("report.json");
    let output = report(
        dir.path(),
        &["--format", "elements", "-o", report_file.to_str().unwrap()],
    );
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: source file src/lib.rs: not found under"),
        "{stderr}"
    );
    assert_valid_elements(&report_file);
    let report_json = json(&std::fs::read_to_string(&report_file).unwrap());
    assert_eq!(report_json["files"]["src/lib.rs"]["source"], "");
    assert_eq!(
        report_json["files"]["src/lib.rs"]["mutants"]
            .as_array()
            .unwrap()
            .len(),
        27
    );

    let with_dir = elements(dir.path(), &["--dir", fixture("example").to_str().unwrap()]);
    let source = std::fs::read_to_string(fixture("example").join("src/lib.rs")).unwrap();
    assert_eq!(with_dir["files"]["src/lib.rs"]["source"], source.as_str());
}

#[test]
fn a_source_changed_since_the_run_is_reported_as_changed() {
    let (_dir, root) = example();
    let path = root.join("src/lib.rs");
    let source = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("// a new first line\n{source}")).unwrap();
    let output = report(&root, &["--format", "github"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("source file src/lib.rs has changed since its mutants were tested"),
        "{stderr}"
    );
}

/// `text` as the HTML report escapes it.
fn html_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Status → mutant names, from the `<details class="mutant …">` elements
/// of an HTML report.
fn html_statuses(page: &str) -> BTreeMap<String, BTreeSet<String>> {
    let attribute = |tag: &str, name: &str| -> String {
        let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        let value = &tag[start..];
        let value = &value[..value.find('"').unwrap()];
        value
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    };
    let mut statuses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (at, _) in page.match_indices("<details class=\"mutant ") {
        let tag = &page[at..at + page[at..].find('>').unwrap()];
        let name = attribute(tag, "data-name");
        let fresh = statuses
            .entry(attribute(tag, "data-status"))
            .or_default()
            .insert(name.clone());
        assert!(fresh, "{name} is on the page twice");
    }
    statuses
}

/// Checks an HTML report of the example crate's `mutants.out` (`out`): one
/// page that links nothing outside itself, the score and counts, the file
/// tree, every source line escaped and every mutant with its status.
#[track_caller]
fn assert_example_page(page: &str, out: &Path) {
    assert!(page.starts_with("<!DOCTYPE html>\n"), "{page}");
    assert!(page.ends_with("</html>\n"));
    assert_eq!(page.matches("<script").count(), 1, "one inline script");
    assert!(page.contains("<script>\n"));
    for external in [" src=", "href=\"http", "url(", "@import", "<link"] {
        assert!(!page.contains(external), "the page links {external}");
    }

    let caught = lines_of(&out.join("caught.txt"));
    let missed: BTreeSet<String> = EXAMPLE_MISSED.iter().map(|n| n.to_string()).collect();
    let score = format!(
        "{:.1}%",
        100.0 * caught.len() as f64 / (caught.len() + missed.len()) as f64
    );
    assert!(
        page.contains(&format!("<p class=\"score-total low\">{score}<span>")),
        "score {score}"
    );
    let tally = format!(
        "<span class=\"score low\">{score}</span> <span class=\"tally\">11 missed of 27</span>"
    );
    assert!(
        page.contains(&format!("<span class=\"folder\">src/</span> {tally}")),
        "the folder's score: {tally}"
    );
    assert!(
        page.contains(&format!(
            "<a class=\"file\" href=\"#file-0\">lib.rs</a> {tally}"
        )),
        "the file's score: {tally}"
    );
    assert!(page.contains("<input type=\"checkbox\" value=\"missed\" checked> missed (11)"));

    let source = std::fs::read_to_string(fixture("example").join("src/lib.rs")).unwrap();
    for line in source.lines() {
        let row = format!("<td class=\"code\">{}</td>", html_escaped(line));
        assert!(page.contains(&row), "no {row}");
    }
    assert!(page.contains("fmt::Formatter&lt;&#39;_&gt;"), "escaped");

    let statuses = html_statuses(page);
    assert_eq!(statuses["missed"], missed);
    assert_eq!(statuses["caught"], caught);
    assert_eq!(
        statuses["unviable"],
        lines_of(&out.join("unviable.txt")),
        "{statuses:?}"
    );
    assert_eq!(statuses.values().map(BTreeSet::len).sum::<usize>(), 27);
    assert_eq!(
        page.matches("<pre class=\"diff\">").count(),
        27,
        "every mutant's diff"
    );
}

/// Opens `page` in Chromium (`tests/report/html.mjs`): its file tree, a
/// missed mutant's diff after a click, the status filter; fails if the
/// page requested anything or logged an error. Saves a screenshot.
#[track_caller]
fn assert_works_in_chromium(page: &Path, screenshot: &Path) {
    let dir = node_package();
    let output = Command::new("node")
        .arg(dir.join("html.mjs"))
        .arg(page)
        .arg(screenshot)
        .output()
        .expect("node runs (tests/report needs Node.js)");
    assert!(
        output.status.success(),
        "{} fails in Chromium (tests/setup.sh installs chromium):\n{}{}",
        page.display(),
        text(&output.stdout),
        text(&output.stderr)
    );
    let png = std::fs::read(screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a screenshot");
}

/// Where the browser tests leave their screenshots, to look at.
fn screenshot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("html-report-{name}.png"))
}

#[test]
fn html_of_a_cargo_mutants_run_shows_every_mutant_under_its_escaped_source() {
    let (_dir, root) = example();
    let page = report_ok(&root, &["--format", "html"]);
    assert_example_page(&page, &root.join("mutants.out"));
    assert!(page.contains("Tested by cargo-mutants 27.1.0"));

    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("report.html");
    let args = ["--format", "html", "-o", file.to_str().unwrap()];
    assert_eq!(
        report_ok(&root, &args),
        "",
        "-o FILE writes nothing to stdout"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), page);
    assert_works_in_chromium(&file, &screenshot("cargo-mutants-example"));
}

#[test]
fn a_fresh_mutiny_run_leaves_an_html_report_that_report_remakes_and_names_it() {
    let run = fresh_run();
    let written = run.out.join("mutation-report.html");
    let line = format!("mutiny: HTML report: {}", written.display());
    assert!(
        run.stdout.lines().any(|l| l == line),
        "no {line:?} in\n{}",
        run.stdout
    );
    let page = std::fs::read_to_string(&written).unwrap();
    assert_example_page(&page, &run.out);
    assert!(page.contains(&format!("Tested by mutiny {}", env!("CARGO_PKG_VERSION"))));
    let remade = report_ok(
        &std::env::temp_dir(),
        &["--format", "html", run.out.to_str().unwrap()],
    );
    assert_eq!(remade, page);
    assert_works_in_chromium(&written, &screenshot("mutiny-example"));
}
