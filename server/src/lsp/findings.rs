//! What each document shows: the mutants its tests did not catch, and the
//! tests that fail without any mutation. The worker changes it as results
//! arrive; requests read it. Every change returns the documents to publish
//! again, whose diagnostics come from here alone, so no kind of diagnostic
//! replaces another.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp_server::ls_types::Diagnostic;

use super::to_proto;
use crate::mutate::Mutant;
use crate::outcome::Verdict;
use crate::position::SourceIndex;

/// A mutant the tests did not catch, with its verdict (missed or timeout).
#[derive(Debug, Clone)]
pub struct Finding {
    pub mutant: Arc<Mutant>,
    pub verdict: Verdict,
    /// Found before the latest change to the workspace: shown at once, and
    /// true until the mutant is tested again.
    pub earlier: bool,
    /// The return type of the mutant's function as rust-analyzer resolves
    /// it (aliases, `Self`, associated types), once the model gave it.
    pub return_type: Option<String>,
}

impl Finding {
    /// The byte range a diagnostic covers: the replaced text, cut at the
    /// end of its first line (a replaced body is flagged on its first line).
    pub fn byte_range(&self) -> std::ops::Range<usize> {
        let code = &self.mutant.source_file.code;
        let range = self.mutant.range.clone();
        let first_line_end = code[range.clone()]
            .find('\n')
            .map_or(range.end, |n| range.start + n);
        range.start..first_line_end.max(range.start)
    }
}

/// Whether a verdict is shown to the user.
pub fn is_finding(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::Missed | Verdict::Timeout)
}

/// Findings and failing-test errors by document URI.
#[derive(Debug, Default)]
pub struct Documents {
    findings: HashMap<String, Vec<Finding>>,
    failing_tests: HashMap<String, Vec<Diagnostic>>,
}

impl Documents {
    pub fn findings(&self, uri: &str) -> &[Finding] {
        self.findings.get(uri).map_or(&[], Vec::as_slice)
    }

    /// A document's findings as mutants and verdicts (copies of `Arc`s,
    /// for work outside the lock).
    pub fn verdicts(&self, uri: &str) -> Vec<(Arc<Mutant>, Verdict)> {
        self.findings(uri)
            .iter()
            .map(|f| (f.mutant.clone(), f.verdict))
            .collect()
    }

    /// Every finding with its document's URI.
    pub fn all(&self) -> impl Iterator<Item = (&String, &Finding)> {
        self.findings
            .iter()
            .flat_map(|(uri, findings)| findings.iter().map(move |f| (uri, f)))
    }

    /// Every document that was given findings (perhaps none left) or has
    /// failing-test errors: those whose diagnostics the client may show.
    pub fn uris(&self) -> Vec<String> {
        let mut uris: Vec<String> = self
            .findings
            .keys()
            .chain(self.failing_tests.keys())
            .cloned()
            .collect();
        uris.sort();
        uris.dedup();
        uris
    }

    /// What the client shows for a document: its findings, then its
    /// failing tests.
    pub fn diagnostics(&self, uri: &str) -> Vec<Diagnostic> {
        let findings = self.findings(uri);
        let mut diagnostics = match findings.first() {
            Some(first) => {
                let index = SourceIndex::new(&first.mutant.source_file.code);
                findings
                    .iter()
                    .map(|f| to_proto::diagnostic(&index, f))
                    .collect()
            }
            None => Vec::new(),
        };
        if let Some(failing) = self.failing_tests.get(uri) {
            diagnostics.extend(failing.iter().cloned());
        }
        diagnostics
    }

    /// A new verdict on a mutant: a missed or timed-out mutant replaces its
    /// earlier finding, a caught or unviable one removes it. True when the
    /// document's findings changed.
    pub fn record(&mut self, uri: &str, mutant: &Arc<Mutant>, verdict: Verdict) -> bool {
        let findings = self.findings.entry(uri.to_owned()).or_default();
        let before = findings.len();
        findings.retain(|f| f.mutant.name != mutant.name);
        if !is_finding(verdict) {
            return findings.len() != before;
        }
        findings.push(Finding {
            mutant: mutant.clone(),
            verdict,
            earlier: false,
            return_type: None,
        });
        true
    }

    /// Replaces a document's findings (all of them marked as earlier
    /// results), as when its text changed.
    pub fn replace(&mut self, uri: &str, carried: Vec<(Arc<Mutant>, Verdict)>) {
        let findings = carried
            .into_iter()
            .filter(|(_, verdict)| is_finding(*verdict))
            .map(|(mutant, verdict)| Finding {
                mutant,
                verdict,
                earlier: true,
                return_type: None,
            })
            .collect();
        self.findings.insert(uri.to_owned(), findings);
    }

    /// Gives the findings of these mutants (by name) their resolved
    /// return types.
    pub fn set_return_types(&mut self, types: &HashMap<String, String>) {
        for findings in self.findings.values_mut() {
            for finding in findings.iter_mut() {
                if let Some(resolved) = types.get(&finding.mutant.name) {
                    finding.return_type = Some(resolved.clone());
                }
            }
        }
    }

    /// Keeps only the findings `keep` accepts; the URIs that lost some.
    pub fn retain(&mut self, mut keep: impl FnMut(&Finding) -> bool) -> Vec<String> {
        let mut changed = Vec::new();
        for (uri, findings) in &mut self.findings {
            let before = findings.len();
            findings.retain(&mut keep);
            if findings.len() != before {
                changed.push(uri.clone());
            }
        }
        changed
    }

    /// Sets the failing-test errors; returns every URI that had or has one.
    pub fn set_failing_tests(&mut self, failing: HashMap<String, Vec<Diagnostic>>) -> Vec<String> {
        let mut uris: Vec<String> = self.failing_tests.keys().cloned().collect();
        uris.extend(failing.keys().cloned());
        uris.sort();
        uris.dedup();
        self.failing_tests = failing;
        uris
    }

    /// The findings with these names and their documents' URIs, in the
    /// order of `names`; copies (of `Arc`s), so that the caller's work on
    /// them happens outside the lock.
    pub fn named(&self, names: &[String]) -> Vec<(String, Finding)> {
        let mut found: Vec<(String, Finding)> = self
            .all()
            .filter(|(_, f)| names.contains(&f.mutant.name))
            .map(|(uri, f)| (uri.clone(), f.clone()))
            .collect();
        found.sort_by_key(|(_, f)| names.iter().position(|n| *n == f.mutant.name));
        found
    }
}
