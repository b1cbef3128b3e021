//! A self-contained HTML page: the mutation score and the counts by status,
//! a tree of the files with the score of each folder and file, then each
//! file's source with its mutants inline under the line they start on,
//! each one's diff a click away (`<details>`), and a filter by status.
//!
//! Rendered statically here, so the page shows everything without a
//! script; its one small inline script only hides the mutants whose
//! status is unchecked. Style and script are inline and the page links
//! nothing outside itself: it opens offline, from a CI artifact, in any
//! browser.

use std::collections::BTreeMap;

use super::{mutation_score, MutantsOut, ReportedMutant, Source};
use crate::outcome::{Counts, Verdict};

/// What became of a mutant, as the page colours and filters it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Missed,
    Timeout,
    Caught,
    Unviable,
    NotCompiled,
    NotTested,
}

impl Status {
    /// In the order the summary and the filter list them; a line's mark is
    /// the first status of its mutants in this order.
    const ALL: [Status; 6] = [
        Status::Missed,
        Status::Timeout,
        Status::Caught,
        Status::Unviable,
        Status::NotCompiled,
        Status::NotTested,
    ];

    fn of(mutant: &ReportedMutant) -> Status {
        match mutant.verdict {
            Some(Verdict::Missed) => Status::Missed,
            Some(Verdict::Timeout) => Status::Timeout,
            Some(Verdict::Caught) => Status::Caught,
            Some(Verdict::Unviable) => Status::Unviable,
            Some(Verdict::NotCompiled) => Status::NotCompiled,
            None => Status::NotTested,
        }
    }

    /// Its CSS class and filter value.
    fn class(self) -> &'static str {
        match self {
            Status::Missed => "missed",
            Status::Timeout => "timeout",
            Status::Caught => "caught",
            Status::Unviable => "unviable",
            Status::NotCompiled => "not-compiled",
            Status::NotTested => "not-tested",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Status::Missed => "missed",
            Status::Timeout => "timeout",
            Status::Caught => "caught",
            Status::Unviable => "unviable",
            Status::NotCompiled => "not compiled",
            Status::NotTested => "not tested",
        }
    }
}

/// The mutants of a file or a folder, counted.
#[derive(Debug, Clone, Default)]
struct Tally {
    counts: Counts,
    not_tested: usize,
}

impl Tally {
    fn add(&mut self, mutant: &ReportedMutant) {
        match mutant.verdict {
            Some(verdict) => self.counts.add(verdict),
            None => self.not_tested += 1,
        }
    }

    fn merge(&mut self, other: &Tally) {
        let (c, o) = (&mut self.counts, &other.counts);
        c.total_mutants += o.total_mutants;
        c.missed += o.missed;
        c.caught += o.caught;
        c.timeout += o.timeout;
        c.unviable += o.unviable;
        c.not_compiled += o.not_compiled;
        self.not_tested += other.not_tested;
    }

    fn count(&self, status: Status) -> usize {
        let c = &self.counts;
        match status {
            Status::Missed => c.missed,
            Status::Timeout => c.timeout,
            Status::Caught => c.caught,
            Status::Unviable => c.unviable,
            Status::NotCompiled => c.not_compiled,
            Status::NotTested => self.not_tested,
        }
    }

    fn all(&self) -> usize {
        Status::ALL.iter().map(|&s| self.count(s)).sum()
    }

    fn score(&self) -> Option<f64> {
        mutation_score(&self.counts)
    }
}

/// One mutated file: its path, its anchor and its mutants in report order.
struct File<'a> {
    path: &'a str,
    id: String,
    source: Option<&'a Source>,
    /// With their index in the report, which makes their anchors.
    mutants: Vec<(usize, &'a ReportedMutant)>,
    tally: Tally,
}

/// A folder of the tree, with everything under it counted.
#[derive(Default)]
struct Folder<'a> {
    tally: Tally,
    folders: BTreeMap<&'a str, Folder<'a>>,
    /// File name → index in the list of files.
    files: BTreeMap<&'a str, usize>,
}

/// The page as HTML text.
pub fn render(mutants_out: &MutantsOut) -> String {
    let files = files(mutants_out);
    let tree = tree(&files);
    let mut out = String::new();
    out.push_str(HEAD);
    header(&mut out, mutants_out, &tree.tally);
    out.push_str("<div class=\"body\">\n<nav aria-label=\"files\">\n<h2>Files</h2>\n");
    tree_list(&mut out, &tree, &files);
    out.push_str("</nav>\n<main>\n");
    for file in &files {
        file_section(&mut out, file);
    }
    out.push_str("</main>\n</div>\n");
    out.push_str(SCRIPT);
    out.push_str("</body>\n</html>\n");
    out
}

/// Every file with a source or a mutant, sorted by path.
fn files(mutants_out: &MutantsOut) -> Vec<File<'_>> {
    let mut by_path: BTreeMap<&str, Vec<(usize, &ReportedMutant)>> = mutants_out
        .sources
        .keys()
        .map(|path| (path.as_str(), Vec::new()))
        .collect();
    for (index, mutant) in mutants_out.mutants.iter().enumerate() {
        by_path
            .entry(mutant.file.as_str())
            .or_default()
            .push((index, mutant));
    }
    by_path
        .into_iter()
        .enumerate()
        .map(|(n, (path, mutants))| {
            let mut tally = Tally::default();
            for (_, mutant) in &mutants {
                tally.add(mutant);
            }
            File {
                path,
                id: format!("file-{n}"),
                source: mutants_out.sources.get(path),
                mutants,
                tally,
            }
        })
        .collect()
}

/// The folders of `files`' paths, each counting the mutants under it.
fn tree<'a>(files: &[File<'a>]) -> Folder<'a> {
    let mut root = Folder::default();
    for (index, file) in files.iter().enumerate() {
        root.tally.merge(&file.tally);
        let mut parts: Vec<&str> = file.path.split('/').collect();
        let name = parts.pop().unwrap_or(file.path);
        let mut folder = &mut root;
        for part in parts {
            folder = folder.folders.entry(part).or_default();
            folder.tally.merge(&file.tally);
        }
        folder.files.insert(name, index);
    }
    root
}

fn header(out: &mut String, mutants_out: &MutantsOut, tally: &Tally) {
    let tool = &mutants_out.tool;
    let tested_by = match &tool.version {
        Some(version) => format!("{} {version}", tool.name),
        None => tool.name.clone(),
    };
    out.push_str("<header>\n<h1>Mutation testing</h1>\n");
    out.push_str(&format!(
        "<p class=\"tool\">Tested by {}; report by mutiny {}.</p>\n",
        escape(&tested_by),
        env!("CARGO_PKG_VERSION")
    ));
    out.push_str(&format!(
        "<div class=\"summary\">\n<p class=\"score-total {}\">{}<span>mutation score</span></p>\n",
        score_class(tally.score()),
        score_text(tally.score())
    ));
    out.push_str(&format!(
        "<p class=\"summary-line\">{}</p>\n",
        escape(&super::summary_line(mutants_out))
    ));
    out.push_str("<table class=\"counts\">\n");
    for status in Status::ALL {
        let count = tally.count(status);
        if count > 0 || matches!(status, Status::Missed | Status::Caught) {
            out.push_str(&format!(
                "<tr class=\"{}\"><th><span class=\"badge\">{}</span></th><td>{count}</td></tr>\n",
                status.class(),
                status.label()
            ));
        }
    }
    out.push_str("</table>\n</div>\n");
    if !mutants_out.warnings.is_empty() {
        out.push_str("<ul class=\"warnings\">\n");
        for warning in &mutants_out.warnings {
            out.push_str(&format!("<li>{}</li>\n", escape(warning)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str(
        "</header>\n<fieldset id=\"filter\" aria-label=\"statuses shown\">\n<span>Show:</span>\n",
    );
    for status in Status::ALL {
        let count = tally.count(status);
        if count > 0 {
            out.push_str(&format!(
                "<label class=\"{class}\"><input type=\"checkbox\" value=\"{class}\" checked> \
                 {} ({count})</label>\n",
                status.label(),
                class = status.class(),
            ));
        }
    }
    out.push_str("</fieldset>\n");
}

/// A folder's files and subfolders as a nested list.
fn tree_list(out: &mut String, folder: &Folder, files: &[File]) {
    out.push_str("<ul class=\"tree\">\n");
    for (name, sub) in &folder.folders {
        out.push_str(&format!(
            "<li><span class=\"folder\">{}/</span> {}\n",
            escape(name),
            scores(&sub.tally)
        ));
        tree_list(out, sub, files);
        out.push_str("</li>\n");
    }
    for (name, &index) in &folder.files {
        let file = &files[index];
        out.push_str(&format!(
            "<li><a class=\"file\" href=\"#{}\">{}</a> {}</li>\n",
            file.id,
            escape(name),
            scores(&file.tally)
        ));
    }
    out.push_str("</ul>\n");
}

/// `<span class="score">57.7%</span> <span class="tally">11 missed of 27</span>`.
fn scores(tally: &Tally) -> String {
    format!(
        "<span class=\"score {}\">{}</span> <span class=\"tally\">{} missed of {}</span>",
        score_class(tally.score()),
        score_text(tally.score()),
        tally.count(Status::Missed),
        tally.all()
    )
}

fn score_text(score: Option<f64>) -> String {
    score.map_or("–".to_owned(), |s| format!("{s:.1}%"))
}

/// Stryker's default thresholds, as the elements report states them.
fn score_class(score: Option<f64>) -> &'static str {
    match score {
        None => "none",
        Some(s) if s >= 80.0 => "high",
        Some(s) if s >= 60.0 => "medium",
        Some(_) => "low",
    }
}

fn file_section(out: &mut String, file: &File) {
    out.push_str(&format!(
        "<section class=\"file\" id=\"{}\">\n<h2>{} {}</h2>\n",
        file.id,
        escape(file.path),
        scores(&file.tally)
    ));
    let text = match file.source {
        Some(Source::Text(text)) => Some(text.as_str()),
        Some(Source::Missing(why)) => {
            out.push_str(&format!(
                "<p class=\"missing\">No source: {}.</p>\n",
                escape(why)
            ));
            None
        }
        None => None,
    };
    let lines: Vec<&str> = text.map(|t| t.lines().collect()).unwrap_or_default();
    let mut by_line: BTreeMap<usize, Vec<(usize, &ReportedMutant)>> = BTreeMap::new();
    let mut unplaced = Vec::new();
    for &(index, mutant) in &file.mutants {
        match mutant.span.start.line {
            line @ 1.. if line <= lines.len() => {
                by_line.entry(line).or_default().push((index, mutant))
            }
            _ => unplaced.push((index, mutant)),
        }
    }
    if !lines.is_empty() {
        out.push_str("<table class=\"source\">\n");
        for (n, line) in lines.iter().enumerate() {
            let number = n + 1;
            let mutants = by_line.get(&number);
            let mark = mutants
                .and_then(|m| m.iter().map(|(_, m)| Status::of(m)).min())
                .map_or(String::new(), |s| format!(" {}", s.class()));
            out.push_str(&format!(
                "<tr id=\"{}-L{number}\"><td class=\"ln{mark}\">{number}</td><td class=\"code\">{}</td></tr>\n",
                file.id,
                escape(line)
            ));
            if let Some(mutants) = mutants {
                out.push_str("<tr class=\"mutants\"><td></td><td>\n");
                for &(index, mutant) in mutants {
                    mutant_details(out, index, mutant);
                }
                out.push_str("</td></tr>\n");
            }
        }
        out.push_str("</table>\n");
    }
    if !unplaced.is_empty() {
        out.push_str("<div class=\"mutants\">\n");
        for (index, mutant) in unplaced {
            mutant_details(out, index, mutant);
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

/// One mutant: its status and description, and when opened why it got its
/// status and its diff (or, without one, its replacement text).
fn mutant_details(out: &mut String, index: usize, mutant: &ReportedMutant) {
    let status = Status::of(mutant);
    out.push_str(&format!(
        "<details class=\"mutant {class}\" id=\"mutant-{index}\" data-status=\"{class}\" data-name=\"{}\">\n\
         <summary><span class=\"badge\">{}</span> <span class=\"where\">{}:{}</span> {}</summary>\n",
        escape(&mutant.name),
        status.label(),
        mutant.span.start.line,
        mutant.span.start.column,
        escape(mutant.description()),
        class = status.class(),
    ));
    let mut facts = Vec::new();
    if let Some(reason) = &mutant.reason {
        facts.push(escape(reason));
    }
    facts.push(escape(&mutant.genre));
    // A mutant missed without a test run took no time worth showing.
    if let Some(seconds) = mutant.duration.map(|d| d.as_secs_f64()) {
        if seconds >= 0.05 {
            facts.push(format!("{seconds:.1} s"));
        }
    }
    out.push_str(&format!("<p class=\"reason\">{}</p>\n", facts.join(" · ")));
    match &mutant.diff {
        Some(diff) => {
            out.push_str("<pre class=\"diff\">");
            for line in diff.lines() {
                out.push_str(&format!(
                    "<span class=\"{}\">{}</span>",
                    diff_class(line),
                    escape(line)
                ));
            }
            out.push_str("</pre>\n");
        }
        None => out.push_str(&format!(
            "<p class=\"replacement\">Replaced with <code>{}</code></p>\n",
            escape(&mutant.replacement)
        )),
    }
    out.push_str("</details>\n");
}

fn diff_class(line: &str) -> &'static str {
    if line.starts_with("+++") || line.starts_with("---") {
        "file"
    } else if line.starts_with("@@") {
        "hunk"
    } else if line.starts_with('+') {
        "add"
    } else if line.starts_with('-') {
        "del"
    } else {
        "context"
    }
}

/// `text` safe in HTML text and in quoted attribute values.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

const HEAD: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Mutation testing report</title>
<style>
:root { --missed: #c62828; --missed-bg: #fde4e4; --timeout: #b26a00; --timeout-bg: #fff1d6;
  --caught: #2e7d32; --caught-bg: #e3f4e4; --grey: #6b6b6b; --grey-bg: #ececec;
  --line: #d8d8d8; font-family: system-ui, sans-serif; font-size: 15px; color: #1d1d1d; }
body { margin: 0; }
[hidden] { display: none !important; }
header { padding: 1em 1.5em; border-bottom: 1px solid var(--line); background: #fafafa; }
h1 { margin: 0 0 .2em; font-size: 1.5em; }
h2 { font-size: 1.1em; }
.tool { margin: 0 0 .8em; color: var(--grey); }
.summary { display: flex; flex-wrap: wrap; align-items: center; gap: 1em 2em; }
.score-total { margin: 0; font-size: 2.4em; font-weight: 600; }
.score-total span { display: block; font-size: .35em; font-weight: normal; color: var(--grey); }
.summary-line { flex-basis: 100%; margin: 0; order: 3; }
.counts { border-collapse: collapse; }
.counts th, .counts td { padding: .1em .6em; text-align: left; }
.counts td { text-align: right; font-variant-numeric: tabular-nums; }
.warnings { color: var(--timeout); }
#filter { position: sticky; top: 0; z-index: 1; margin: 0; padding: .5em 1.5em; border: 0;
  border-bottom: 1px solid var(--line); background: #fff; }
#filter span, #filter label { margin-right: 1em; white-space: nowrap; }
#filter label { cursor: pointer; }
.body { display: grid; grid-template-columns: minmax(13em, 20em) 1fr; }
nav { position: sticky; top: 2.5em; align-self: start; max-height: calc(100vh - 2.5em); overflow: auto;
  padding: 0 1em; border-right: 1px solid var(--line); }
nav h2 { margin-top: 1em; }
.tree { list-style: none; padding-left: 1em; margin: 0; line-height: 1.7; }
nav > .tree { padding-left: 0; }
.folder { font-weight: 600; }
.score { font-weight: 600; font-variant-numeric: tabular-nums; }
.score.high { color: var(--caught); } .score.medium { color: var(--timeout); }
.score.low { color: var(--missed); } .score.none { color: var(--grey); }
.tally { color: var(--grey); font-size: .85em; }
main { padding: 0 1.5em 3em; min-width: 0; }
section.file { margin-top: 1.2em; scroll-margin-top: 2.5em; }
.missing { color: var(--timeout); }
.source { border-collapse: collapse; width: 100%; font-family: ui-monospace, monospace; font-size: 13px; }
.source td { padding: 0 .6em; vertical-align: top; }
.code { white-space: pre; tab-size: 4; }
.ln { text-align: right; color: #999; user-select: none; width: 3em; border-right: 3px solid transparent; }
.ln.missed { border-right-color: var(--missed); color: var(--missed); }
.ln.timeout { border-right-color: var(--timeout); } .ln.caught { border-right-color: var(--caught); }
.ln.unviable, .ln.not-compiled, .ln.not-tested { border-right-color: #bbb; }
tr.mutants td { padding-bottom: .3em; }
.mutant { margin: .2em 0; border-left: 4px solid var(--grey); background: var(--grey-bg); border-radius: 3px;
  font-family: system-ui, sans-serif; font-size: 14px; white-space: normal; }
.mutant summary { padding: .2em .6em; cursor: pointer; }
.mutant > :not(summary) { margin: .3em .8em .6em; }
.mutant.missed { border-color: var(--missed); background: var(--missed-bg); }
.mutant.timeout { border-color: var(--timeout); background: var(--timeout-bg); }
.mutant.caught { border-color: var(--caught); background: var(--caught-bg); }
.badge { display: inline-block; min-width: 6.5em; padding: 0 .4em; border-radius: 3px; text-align: center;
  font-size: .85em; color: #fff; background: var(--grey); }
.missed .badge { background: var(--missed); } .timeout .badge { background: var(--timeout); }
.caught .badge { background: var(--caught); }
.where { color: var(--grey); font-family: ui-monospace, monospace; font-size: .9em; }
.reason { color: #444; }
.diff { padding: .4em 0; background: #fff; border: 1px solid var(--line); overflow-x: auto;
  font-family: ui-monospace, monospace; font-size: 13px; }
.diff span { display: block; padding: 0 .6em; min-height: 1.2em; white-space: pre; }
.diff .add { background: #e6ffec; } .diff .del { background: #ffebe9; }
.diff .hunk { color: #6f42c1; } .diff .file { color: var(--grey); }
</style>
</head>
<body>
"#;

/// Shows the mutants whose status is checked in the filter, and the rows
/// that still have one to show.
const SCRIPT: &str = r#"<script>
"use strict";
const filter = document.getElementById("filter");
function applyFilter() {
  const shown = new Set(Array.from(filter.querySelectorAll("input:checked"), (input) => input.value));
  for (const mutant of document.querySelectorAll(".mutant")) {
    mutant.hidden = !shown.has(mutant.dataset.status);
  }
  for (const group of document.querySelectorAll(".mutants")) {
    group.hidden = !group.querySelector(".mutant:not([hidden])");
  }
}
filter.addEventListener("change", applyFilter);
applyFilter();
</script>
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{mutant, mutants_out};

    fn missed(file: &str, line: usize, description: &str) -> ReportedMutant {
        mutant(
            Verdict::Missed,
            file,
            "f",
            ((line, 5), (line, 6)),
            description,
            "BinaryOperator",
        )
    }

    fn caught(file: &str, line: usize) -> ReportedMutant {
        mutant(
            Verdict::Caught,
            file,
            "f",
            ((line, 5), (line, 6)),
            "replace > with < in f",
            "BinaryOperator",
        )
    }

    #[test]
    fn escape_makes_markup_text() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn source_and_names_are_escaped_so_nothing_in_them_is_markup() {
        let mut report = mutants_out(vec![missed("src/lib.rs", 2, "replace < with > in f")]);
        report.sources.insert(
            "src/lib.rs".into(),
            Source::Text(
                "// </td></table><script>alert(1)</script>\nfn f() -> bool { a < b && c }\n".into(),
            ),
        );
        report.mutants[0].diff = Some("@@ -2 +2 @@\n-a < b && c\n+a > b && c\n".into());
        let page = render(&report);
        assert_eq!(page.matches("<script").count(), 1, "only the page's own");
        assert!(page.contains("// &lt;/td&gt;&lt;/table&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("fn f() -&gt; bool { a &lt; b &amp;&amp; c }"));
        assert!(page.contains("<span class=\"del\">-a &lt; b &amp;&amp; c</span>"));
        assert!(page.contains("data-name=\"src/lib.rs:2:5: replace &lt; with &gt; in f\""));
    }

    #[test]
    fn folders_count_every_file_under_them() {
        let report = mutants_out(vec![
            missed("src/a/x.rs", 1, "m"),
            caught("src/a/x.rs", 2),
            caught("src/a/y.rs", 1),
            caught("src/a/y.rs", 2),
            caught("src/b.rs", 1),
            missed("build.rs", 1, "m"),
        ]);
        let files = files(&report);
        let tree = tree(&files);
        let score = |tally: &Tally| tally.score().unwrap();
        assert_eq!(score(&tree.tally), 100.0 * 4.0 / 6.0);
        let src = &tree.folders["src"];
        assert_eq!(score(&src.tally), 80.0);
        assert_eq!(score(&src.folders["a"].tally), 75.0);
        assert_eq!(score(&files[src.folders["a"].files["x.rs"]].tally), 50.0);
        assert_eq!(score(&files[tree.files["build.rs"]].tally), 0.0);

        let page = render(&report);
        assert!(page.contains(
            "<span class=\"folder\">a/</span> <span class=\"score medium\">75.0%</span> \
             <span class=\"tally\">1 missed of 4</span>"
        ));
        assert!(page.contains(
            "<span class=\"folder\">src/</span> <span class=\"score high\">80.0%</span>"
        ));
    }

    #[test]
    fn every_mutant_is_on_the_page_once_under_its_line_or_after_the_source() {
        let mut report = mutants_out(vec![
            missed("src/lib.rs", 1, "first"),
            caught("src/lib.rs", 1),
            missed("src/lib.rs", 7, "past the end"),
            caught("src/gone.rs", 3),
            mutant(
                Verdict::NotCompiled,
                "src/lib.rs",
                "f",
                ((2, 1), (2, 2)),
                "cfg'd",
                "FnValue",
            ),
        ]);
        report.mutants.push(ReportedMutant {
            verdict: None,
            ..caught("src/lib.rs", 2)
        });
        report
            .sources
            .insert("src/lib.rs".into(), Source::Text("a\nb\n".into()));
        report
            .sources
            .insert("src/gone.rs".into(), Source::Missing("not found".into()));
        let page = render(&report);
        for (index, mutant) in report.mutants.iter().enumerate() {
            let element = format!("id=\"mutant-{index}\"");
            assert_eq!(page.matches(&element).count(), 1, "{}", mutant.name);
            assert!(page.contains(&escape(&mutant.name)), "{}", mutant.name);
        }
        assert_eq!(page.matches("<details class=\"mutant ").count(), 6);
        for status in ["missed", "caught", "not-compiled", "not-tested"] {
            assert!(
                page.contains(&format!(
                    "<input type=\"checkbox\" value=\"{status}\" checked>"
                )),
                "{status}"
            );
        }
        assert!(
            !page.contains("value=\"timeout\""),
            "no timeouts, no filter"
        );
        assert!(page.contains("<td class=\"ln missed\">1</td>"));
        assert!(page.contains("No source: not found."));
        assert!(page.contains("Replaced with <code></code>"));
    }

    #[test]
    fn the_page_fetches_nothing() {
        let mut report = mutants_out(vec![missed("src/lib.rs", 1, "m")]);
        report
            .sources
            .insert("src/lib.rs".into(), Source::Text("a\n".into()));
        let page = render(&report);
        for external in ["src=", "http:", "https:", "@import", "url("] {
            assert!(!page.contains(external), "{external}");
        }
    }
}
