//! A Markdown job summary (GitHub's `$GITHUB_STEP_SUMMARY`, or any
//! Markdown page): the counts per verdict, the mutation score, then a
//! table of the missed mutants and one of those that timed out.

use super::{with_verdict, MutantsOut, ReportedMutant};
use crate::outcome::Verdict;

/// The summary as Markdown text.
pub fn render(mutants_out: &MutantsOut) -> String {
    let counts = mutants_out.counts();
    let mut out = String::from("## Mutation testing\n\n");
    out.push_str(&format!("{}\n\n", super::summary_line(mutants_out)));
    out.push_str("| verdict | mutants |\n| --- | ---: |\n");
    let mut rows = vec![
        ("caught", counts.caught),
        ("missed", counts.missed),
        ("timeout", counts.timeout),
        ("unviable", counts.unviable),
    ];
    if counts.not_compiled > 0 {
        rows.push(("not compiled for this target", counts.not_compiled));
    }
    let not_tested = mutants_out.not_tested();
    if not_tested > 0 {
        rows.push(("not tested", not_tested));
    }
    for (verdict, count) in rows {
        out.push_str(&format!("| {verdict} | {count} |\n"));
    }
    out.push_str(&format!(
        "| **mutation score** | **{}** |\n",
        super::mutation_score(&counts).map_or("–".to_owned(), |s| format!("{s:.1}%"))
    ));
    for (verdict, heading) in [
        (
            Verdict::Missed,
            "Missed mutants: no test fails with these changes",
        ),
        (Verdict::Timeout, "Mutants that timed out"),
    ] {
        let mutants: Vec<&ReportedMutant> = with_verdict(mutants_out, verdict).collect();
        if mutants.is_empty() {
            continue;
        }
        out.push_str(&format!("\n### {heading} ({})\n\n", mutants.len()));
        out.push_str("| where | function | mutation |\n| --- | --- | --- |\n");
        for mutant in mutants {
            let place = format!("{}:{}", mutant.file, mutant.span.start.line);
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                code(&place),
                mutant.function_name().map_or(String::new(), code),
                code(mutant.description()),
            ));
        }
    }
    out
}

/// `text` as inline code in a table cell: fenced with more backticks than
/// it holds (so `<T>` shows as written, not as HTML), and `|`, which ends a
/// cell even inside code, escaped.
fn code(text: &str) -> String {
    let longest_run = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest_run + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", text.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_in_cells_escapes_pipes_and_outfences_backticks() {
        assert_eq!(
            code("replace && with || in f"),
            "`replace && with \\|\\| in f`"
        );
        assert_eq!(code("Option<Version>"), "`Option<Version>`");
        assert_eq!(code("a `b` c"), "``a `b` c``");
        assert_eq!(code("`x`"), "`` `x` ``");
    }
}
