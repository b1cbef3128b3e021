//! SARIF 2.1.0, as GitHub code scanning reads it
//! (`github/codeql-action/upload-sarif`): one result per missed mutant (a
//! warning, under its genre's rule) and per timed-out mutant (a note,
//! under the rule `Timeout`: it is detected, but every run waits for it).
//!
//! Columns are mutiny's char columns (`columnKind: unicodeCodePoints`),
//! end exclusive as SARIF's `endColumn` is. Each result's
//! `partialFingerprints` hash the file, the function and the mutant's
//! description, never a line, so an alert survives edits above it.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::{MutantsOut, ReportedMutant};
use crate::outcome::Verdict;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key of mutiny's fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mutinyMutant/v1";

/// The report as JSON text.
pub fn render(mutants_out: &MutantsOut) -> String {
    let mut genres: Vec<&str> = KNOWN_GENRES.iter().map(|(name, ..)| *name).collect();
    for mutant in &mutants_out.mutants {
        if !genres.contains(&mutant.genre.as_str()) {
            genres.push(&mutant.genre);
        }
    }
    let mut rules: Vec<Value> = genres.iter().map(|genre| rule(genre)).collect();
    rules.push(timeout_rule());

    let mut occurrences: HashMap<(&str, Option<&str>, &str), usize> = HashMap::new();
    let mut results = Vec::new();
    for mutant in &mutants_out.mutants {
        let (rule_id, rule_index, level) = match mutant.verdict {
            Some(Verdict::Missed) => {
                let index = genres.iter().position(|g| *g == mutant.genre);
                (
                    mutant.genre.as_str(),
                    index.expect("every genre has a rule"),
                    "warning",
                )
            }
            Some(Verdict::Timeout) => (TIMEOUT_RULE, genres.len(), "note"),
            _ => continue,
        };
        // Two equal descriptions in one function (`>` twice) are told
        // apart by their order, which edits elsewhere do not change.
        let key = (
            mutant.file.as_str(),
            mutant.function_name(),
            mutant.description(),
        );
        let occurrence = occurrences.entry(key).or_default();
        *occurrence += 1;
        let fingerprint = crate::cache::fingerprint(&[
            &mutant.file,
            mutant.function_name().unwrap_or_default(),
            mutant.description(),
            &occurrence.to_string(),
        ]);
        results.push(json!({
            "ruleId": rule_id,
            "ruleIndex": rule_index,
            "level": level,
            "message": { "text": message(mutant) },
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": { "uri": mutant.file, "uriBaseId": "%SRCROOT%" },
                    "region": {
                        "startLine": mutant.span.start.line,
                        "startColumn": mutant.span.start.column,
                        "endLine": mutant.span.end.line,
                        "endColumn": mutant.span.end.column,
                    },
                },
            }],
            "partialFingerprints": { FINGERPRINT_KEY: fingerprint },
            "properties": {
                "mutant": mutant.name,
                "genre": mutant.genre,
                "verdict": mutant.verdict.map(Verdict::name),
            },
        }));
    }

    let mut driver = json!({
        "name": "mutiny",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    });
    if let Some(uri) = information_uri() {
        driver["informationUri"] = json!(uri);
    }
    let mut properties = BTreeMap::new();
    let tested_by = match &mutants_out.tool.version {
        Some(version) => format!("{} {version}", mutants_out.tool.name),
        None => mutants_out.tool.name.clone(),
    };
    properties.insert("testedBy", json!(tested_by));
    properties.insert("summary", json!(super::summary_line(mutants_out)));
    let sarif = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver },
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": properties,
        }],
    });
    serde_json::to_string_pretty(&sarif).expect("sarif serializes") + "\n"
}

/// mutiny's home page, from the package's metadata, if it has one.
fn information_uri() -> Option<&'static str> {
    [env!("CARGO_PKG_HOMEPAGE"), env!("CARGO_PKG_REPOSITORY")]
        .into_iter()
        .find(|uri| !uri.is_empty())
}

fn message(mutant: &ReportedMutant) -> String {
    match mutant.verdict {
        Some(Verdict::Timeout) => format!(
            "Mutant timed out: {}. The tests ran past the timeout with this change \
             (often a loop that never ends); it counts as detected, but slows every run.",
            mutant.description()
        ),
        _ => format!(
            "Missed mutant: {}. Every test still passes with this change, so no test \
             checks this behaviour.",
            mutant.description()
        ),
    }
}

/// Each genre mutiny and cargo-mutants generate: name, short description,
/// what was changed, what a test must check.
const KNOWN_GENRES: [(&str, &str, &str, &str); 6] = [
    (
        "FnValue",
        "Function body replaced by a value",
        "The whole body of the function was replaced by a value of its return type \
         (`()`, `0`, `true`, `None`, `Ok(Default::default())`…)",
        "what the function returns, or the effect it has",
    ),
    (
        "BinaryOperator",
        "Binary operator replaced",
        "A binary operator was replaced by another (`<` by `<=`, `&&` by `||`, `+` by `-`…)",
        "a result that depends on this operator, for instance at the boundary of a comparison",
    ),
    (
        "UnaryOperator",
        "Unary operator deleted",
        "A unary operator (`!` or `-`) was deleted",
        "a result that depends on the negation",
    ),
    (
        "MatchArm",
        "Match arm deleted",
        "A match arm was deleted, so that the wildcard arm takes its values",
        "what this arm does differently from the wildcard arm",
    ),
    (
        "MatchArmGuard",
        "Match arm guard replaced",
        "A match arm's guard was replaced by `true` or `false`",
        "values on both sides of the guard",
    ),
    (
        "StructField",
        "Struct literal field deleted",
        "A field of a struct literal with `..base` was deleted, so it takes the base's value",
        "the value of this field",
    ),
];

/// The rule of mutants that timed out, whatever their genre.
const TIMEOUT_RULE: &str = "Timeout";

fn timeout_rule() -> Value {
    let help = "The tests ran past the timeout with this change, often because it makes a \
                loop never end. The mutant counts as detected, but every run waits for the \
                timeout: a test that fails fast on this change (checking the loop's result \
                with a smaller input, say) makes it caught instead.";
    json!({
        "id": TIMEOUT_RULE,
        "name": TIMEOUT_RULE,
        "shortDescription": { "text": "Mutant timed out" },
        "fullDescription": { "text": "The tests ran past the timeout with this change." },
        "help": { "text": help, "markdown": help },
        "defaultConfiguration": { "level": "note" },
        "properties": { "tags": ["mutation-testing"] },
    })
}

fn rule(genre: &str) -> Value {
    let (short, changed, check) = match KNOWN_GENRES.iter().find(|(name, ..)| *name == genre) {
        Some((_, short, changed, check)) => (short.to_string(), *changed, *check),
        None => (
            format!("Mutant of genre {genre}"),
            "The code was changed",
            "the behaviour of this code",
        ),
    };
    let help = format!(
        "{changed}, and every test still passed: no test checks this code's behaviour. \
         Add a test that checks {check}. If the behaviour truly does not matter, mark the \
         function `#[mutants::skip]`."
    );
    json!({
        "id": genre,
        "name": genre,
        "shortDescription": { "text": format!("Missed mutant: {}", short.to_lowercase()) },
        "fullDescription": { "text": format!("{changed}.") },
        "help": { "text": help, "markdown": help },
        "defaultConfiguration": { "level": "warning" },
        "properties": { "tags": ["mutation-testing"] },
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{mutant, mutants_out};
    use super::*;

    fn fingerprints(mutants: Vec<ReportedMutant>) -> Vec<String> {
        let sarif: Value = serde_json::from_str(&render(&mutants_out(mutants))).unwrap();
        sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["partialFingerprints"][FINGERPRINT_KEY]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    fn missed(function: &str, line: usize, description: &str) -> ReportedMutant {
        let span = ((line, 5), (line, 6));
        mutant(
            Verdict::Missed,
            "src/lib.rs",
            function,
            span,
            description,
            "BinaryOperator",
        )
    }

    #[test]
    fn fingerprints_ignore_lines_and_tell_functions_and_repeats_apart() {
        let before = fingerprints(vec![
            missed("f", 10, "replace > with < in f"),
            missed("f", 12, "replace > with < in f"),
            missed("g", 20, "replace > with < in g"),
        ]);
        let moved = fingerprints(vec![
            missed("f", 15, "replace > with < in f"),
            missed("f", 19, "replace > with < in f"),
            missed("g", 40, "replace > with < in g"),
        ]);
        assert_eq!(before, moved);
        assert_eq!(
            before
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            3,
            "{before:?}"
        );
    }

    #[test]
    fn timeouts_are_notes_under_the_timeout_rule_and_caught_mutants_are_left_out() {
        let span = ((3, 5), (3, 9));
        let sarif: Value = serde_json::from_str(&render(&mutants_out(vec![
            mutant(
                Verdict::Timeout,
                "src/a.rs",
                "f",
                span,
                "replace f -> bool with false",
                "FnValue",
            ),
            mutant(
                Verdict::Caught,
                "src/a.rs",
                "f",
                span,
                "replace f -> bool with true",
                "FnValue",
            ),
        ])))
        .unwrap();
        let run = &sarif["runs"][0];
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0]["level"], "note");
        assert_eq!(results[0]["ruleId"], "Timeout");
        let index = results[0]["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "Timeout");
    }

    #[test]
    fn a_genre_mutiny_does_not_know_gets_a_rule_of_its_own() {
        let span = ((3, 5), (3, 9));
        let sarif: Value = serde_json::from_str(&render(&mutants_out(vec![mutant(
            Verdict::Missed,
            "src/a.rs",
            "f",
            span,
            "replace f with g",
            "CallDeletion",
        )])))
        .unwrap();
        let run = &sarif["runs"][0];
        let index = run["results"][0]["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "CallDeletion");
    }
}
