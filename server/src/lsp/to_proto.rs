//! Engine values → LSP values: ranges, diagnostics, hovers, code lenses.
//! Positions go through `position::SourceIndex`, the one converter.

use std::collections::BTreeMap;
use std::collections::HashMap;

use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeLens, Command, Diagnostic, DiagnosticSeverity, Hover,
    HoverContents, MarkupContent, MarkupKind, NumberOrString, Position, Range, TextEdit, Uri,
    WorkspaceEdit,
};

use crate::outcome::Verdict;
use crate::position::{SourceIndex, Utf16Position};
use crate::skip::SkipFix;

use super::findings::Finding;

pub const SHOW_DIFF_COMMAND: &str = "mutiny.showMutantDiff";
pub const RETEST_COMMAND: &str = "mutiny.retestMutant";

fn position(index: &SourceIndex, offset: usize) -> Position {
    let Utf16Position { line, character } = index.utf16_position(offset);
    Position { line, character }
}

pub fn range(index: &SourceIndex, bytes: std::ops::Range<usize>) -> Range {
    Range {
        start: position(index, bytes.start),
        end: position(index, bytes.end),
    }
}

/// `missed mutant: replace && with || in matches — tests still pass`, with
/// the mutant's name in `data`, which clients hand back with code action
/// requests (they may reshape the rest).
pub fn diagnostic(index: &SourceIndex, finding: &Finding) -> Diagnostic {
    let mutant = &finding.mutant;
    let (severity, message) = match finding.verdict {
        Verdict::Timeout => (
            DiagnosticSeverity::INFORMATION,
            format!(
                "mutant timed out: {} — the tests ran past the timeout",
                mutant.description
            ),
        ),
        _ => (
            DiagnosticSeverity::WARNING,
            format!("missed mutant: {} — tests still pass", mutant.description),
        ),
    };
    let message = if finding.earlier {
        format!("{message} (earlier result, to be tested again)")
    } else {
        message
    };
    Diagnostic {
        range: range(index, finding.byte_range()),
        severity: Some(severity),
        code: Some(NumberOrString::String(mutant.genre.to_string())),
        source: Some("mutiny".to_owned()),
        message,
        data: Some(serde_json::json!({ "mutant": mutant.name })),
        ..Diagnostic::default()
    }
}

/// The mutant's name and its diff.
pub fn hover(index: &SourceIndex, finding: &Finding) -> Hover {
    let mutant = &finding.mutant;
    let heading = match finding.verdict {
        Verdict::Timeout => "mutant timed out",
        _ => "missed mutant",
    };
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: format!(
                "**{heading}** `{}`\n\n{}{}```diff\n{}```",
                mutant.name,
                match mutant.own {
                    true =>
                        "A stub of mutiny's own, a value of the resolved return type \
                             (cargo-mutants does not make it; `own_stubs = false` in \
                             `.cargo/mutants.toml` leaves these out).\n\n",
                    false => "",
                },
                finding
                    .return_type
                    .as_ref()
                    .map(|t| format!(
                        "The function returns `{t}` (as rust-analyzer resolves it).\n\n"
                    ))
                    .unwrap_or_default(),
                mutant.diff()
            ),
        }),
        range: Some(range(index, finding.byte_range())),
    }
}

/// One lens per function with findings: `2 missed mutants · show diff`.
pub fn code_lenses(index: &SourceIndex, findings: &[Finding]) -> Vec<CodeLens> {
    let mut by_function: BTreeMap<usize, Vec<&Finding>> = BTreeMap::new();
    for finding in findings {
        let line_start = finding
            .mutant
            .function
            .as_ref()
            .and_then(|f| index.offset_of(f.span.start))
            .unwrap_or(finding.mutant.range.start);
        by_function.entry(line_start).or_default().push(finding);
    }
    by_function
        .into_iter()
        .map(|(start, findings)| {
            let count = findings.len();
            let noun = if count == 1 { "mutant" } else { "mutants" };
            let names: Vec<serde_json::Value> = findings
                .iter()
                .map(|f| serde_json::Value::String(f.mutant.name.clone()))
                .collect();
            CodeLens {
                range: range(index, start..start),
                command: Some(Command {
                    title: format!("{count} missed {noun} · show diff"),
                    command: SHOW_DIFF_COMMAND.to_owned(),
                    arguments: Some(names),
                }),
                data: None,
            }
        })
        .collect()
}

/// `Skip mutants in fn f (#[mutants::skip])`: the attribute, and the
/// `mutants` dependency when the package lacks it.
pub fn skip_action(
    uri: &Uri,
    index: &SourceIndex,
    fix: &SkipFix,
    diagnostics: Vec<Diagnostic>,
) -> CodeAction {
    let at = position(index, fix.attribute.offset);
    let mut changes = HashMap::new();
    changes.insert(
        uri.clone(),
        vec![TextEdit {
            range: Range { start: at, end: at },
            new_text: fix.attribute.text.clone(),
        }],
    );
    if let Some((path, old, new)) = &fix.manifest {
        if let Some(manifest_uri) = Uri::from_file_path(path) {
            let whole = range(&SourceIndex::new(old), 0..old.len());
            changes.insert(
                manifest_uri,
                vec![TextEdit {
                    range: whole,
                    new_text: new.clone(),
                }],
            );
        }
    }
    CodeAction {
        title: format!(
            "Skip mutants in fn {} (#[mutants::skip])",
            fix.function_name
        ),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(diagnostics),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..WorkspaceEdit::default()
        }),
        is_preferred: Some(true),
        ..CodeAction::default()
    }
}

/// `Re-test this mutant: replace && with || in f`, as a command the client
/// runs (named, since a line can hold several mutants).
pub fn retest_command(finding: &Finding) -> Command {
    Command {
        title: format!("Re-test this mutant: {}", finding.mutant.description),
        command: RETEST_COMMAND.to_owned(),
        arguments: Some(vec![serde_json::Value::String(finding.mutant.name.clone())]),
    }
}

/// `Show mutant diff: replace && with || in f`, as a command the client runs.
pub fn show_diff_command(finding: &Finding) -> Command {
    Command {
        title: format!("Show mutant diff: {}", finding.mutant.description),
        command: SHOW_DIFF_COMMAND.to_owned(),
        arguments: Some(vec![serde_json::Value::String(finding.mutant.name.clone())]),
    }
}
