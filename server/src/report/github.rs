//! GitHub Actions workflow commands: a `::notice` with the summary, then
//! one `::warning` annotation per missed mutant, at its place in the
//! source. GitHub shows at most 10 annotations of each type per step (the
//! rest stay in the log), so the summary comes first.

use super::{with_verdict, MutantsOut, ReportedMutant};
use crate::outcome::Verdict;

/// The annotation lines.
pub fn render(mutants_out: &MutantsOut) -> String {
    let mut out = command(
        "notice",
        &[("title", "mutiny")],
        &super::summary_line(mutants_out),
    );
    for mutant in with_verdict(mutants_out, Verdict::Missed) {
        out.push_str(&annotation(mutant));
    }
    out
}

/// `::warning file=…,line=…,col=…,endLine=…,endColumn=…,title=…::…`.
/// Columns only for a mutant on one line (GitHub refuses them across
/// lines); `endColumn` is the last column, inclusive.
fn annotation(mutant: &ReportedMutant) -> String {
    let span = mutant.span;
    let line = span.start.line.to_string();
    let end_line = span.end.line.to_string();
    let column = span.start.column.to_string();
    let end_column = span.last_column().map(|c| c.to_string());
    let mut properties = vec![("file", mutant.file.as_str()), ("line", line.as_str())];
    if let Some(end_column) = &end_column {
        properties.push(("col", &column));
        properties.push(("endLine", &end_line));
        properties.push(("endColumn", end_column));
    } else {
        properties.push(("endLine", &end_line));
    }
    let title = match mutant.function_name() {
        Some(function) => format!("Missed mutant in {function}"),
        None => "Missed mutant".to_owned(),
    };
    properties.push(("title", &title));
    let message = format!(
        "{} ({}): the tests still pass with this change.",
        mutant.description(),
        mutant.genre
    );
    command("warning", &properties, &message)
}

/// One workflow command line, escaped.
fn command(name: &str, properties: &[(&str, &str)], message: &str) -> String {
    let properties: Vec<String> = properties
        .iter()
        .map(|(key, value)| format!("{key}={}", escape_property(value)))
        .collect();
    let separator = if properties.is_empty() { "" } else { " " };
    format!(
        "::{name}{separator}{}::{}\n",
        properties.join(","),
        escape_data(message)
    )
}

/// A message: `%`, CR and LF escaped, as `@actions/core` does.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: a message's escapes, and `:` and `,`, which end it.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::super::fixture::mutant;
    use super::*;

    #[test]
    fn one_line_mutants_get_inclusive_columns_and_longer_ones_only_lines() {
        let operator = mutant(
            Verdict::Missed,
            "src/lib.rs",
            "<impl Display for V>::fmt",
            ((30, 20), (30, 22)),
            "replace && with || in <impl Display for V>::fmt",
            "BinaryOperator",
        );
        assert_eq!(
            annotation(&operator),
            "::warning file=src/lib.rs,line=30,col=20,endLine=30,endColumn=21,\
             title=Missed mutant in <impl Display for V>%3A%3Afmt::\
             replace && with || in <impl Display for V>::fmt (BinaryOperator): \
             the tests still pass with this change.\n"
        );
        let body = mutant(
            Verdict::Missed,
            "src/lib.rs",
            "parse",
            ((17, 9), (26, 22)),
            "replace parse -> Option<V> with None",
            "FnValue",
        );
        assert_eq!(
            annotation(&body),
            "::warning file=src/lib.rs,line=17,endLine=26,title=Missed mutant in parse::\
             replace parse -> Option<V> with None (FnValue): the tests still pass with this change.\n"
        );
    }

    #[test]
    fn messages_escape_percent_and_line_breaks_only() {
        assert_eq!(escape_data("100% a:b, c\r\nd"), "100%25 a:b, c%0D%0Ad");
    }

    #[test]
    fn properties_also_escape_colons_and_commas() {
        assert_eq!(
            escape_property("<impl Display for V>::fmt, 50%\n"),
            "<impl Display for V>%3A%3Afmt%2C 50%25%0A"
        );
    }

    #[test]
    fn a_percent_is_escaped_once_not_again_by_later_escapes() {
        assert_eq!(escape_property("%3A:"), "%253A%3A");
    }

    #[test]
    fn commands_join_escaped_properties_with_commas() {
        assert_eq!(
            command("warning", &[("file", "a,b.rs"), ("title", "t:1")], "m\n"),
            "::warning file=a%2Cb.rs,title=t%3A1::m%0A\n"
        );
        assert_eq!(command("notice", &[], "x"), "::notice::x\n");
    }
}
