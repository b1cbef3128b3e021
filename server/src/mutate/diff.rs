//! Unified diffs of one mutant. A mutant replaces one span with one line of
//! text, so the hunk is known without running a diff algorithm; the general
//! algorithm (`similar`) remains for the cases that are not that simple.

use std::fmt::Write;
use std::ops::Range;

const CONTEXT: usize = 8;

/// The diff of replacing `range` of `code` with `inserted`, labelled like
/// cargo-mutants' diffs: the file path, then the mutant's description.
pub fn unified_diff(
    old_label: &str,
    new_label: &str,
    code: &str,
    range: Range<usize>,
    inserted: &str,
) -> String {
    direct_diff(old_label, new_label, code, range.clone(), inserted).unwrap_or_else(|| {
        let mutated = format!("{}{inserted}{}", &code[..range.start], &code[range.end..]);
        similar_diff(old_label, new_label, code, &mutated)
    })
}

fn similar_diff(old_label: &str, new_label: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(old_label, new_label)
        .to_string()
}

fn direct_diff(
    old_label: &str,
    new_label: &str,
    code: &str,
    range: Range<usize>,
    inserted: &str,
) -> Option<String> {
    // Multi-line replacements, edits that reach the end of the file or split
    // a CRLF take the general path.
    let splits_crlf = code[..range.start].ends_with('\r');
    if inserted.contains('\n') || !code.ends_with('\n') || range.end >= code.len() || splits_crlf {
        return None;
    }
    let lines: Vec<&str> = code.split_inclusive('\n').collect();
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut offset = 0;
    for line in &lines {
        starts.push(offset);
        offset += line.len();
    }
    starts.push(offset);
    let line_of = |at: usize| starts.partition_point(|&start| start <= at) - 1;
    let first = line_of(range.start);
    let last = line_of(range.end);
    let new_line = format!(
        "{}{inserted}{}",
        &code[starts[first]..range.start],
        &code[range.end..starts[last + 1]]
    );
    let old_changed = &lines[first..=last];
    if old_changed.len() == 1 && old_changed[0] == new_line {
        return Some(String::new());
    }
    let context_start = first.saturating_sub(CONTEXT);
    let context_end = (last + 1 + CONTEXT).min(lines.len());
    let old_len = context_end - context_start;
    let new_len = old_len - old_changed.len() + 1;
    let mut out = String::with_capacity(1024);
    let _ = write!(
        out,
        "--- {old_label}\n+++ {new_label}\n@@ -{} +{} @@\n",
        hunk_range(context_start, old_len),
        hunk_range(context_start, new_len)
    );
    for line in &lines[context_start..first] {
        out.push(' ');
        out.push_str(line);
    }
    for line in old_changed {
        out.push('-');
        out.push_str(line);
    }
    out.push('+');
    out.push_str(&new_line);
    for line in &lines[last + 1..context_end] {
        out.push(' ');
        out.push_str(line);
    }
    Some(out)
}

fn hunk_range(start: usize, len: usize) -> String {
    if len == 1 {
        format!("{}", start + 1)
    } else {
        format!("{},{}", start + 1, len)
    }
}

#[cfg(test)]
mod tests {
    use super::{similar_diff, unified_diff};

    /// Every span of every line of these texts, replaced, diffs exactly as the
    /// general algorithm would.
    #[test]
    fn direct_diffs_equal_the_general_algorithm() {
        let numbered: String = (1..=30).map(|i| format!("line {i} = a + b;\n")).collect();
        let texts = [
            numbered.as_str(),
            "fn f() -> bool {\r\n    a && b\r\n}\r\n",
            "one\ntwo\n",
            "fn f() {\n    é + ü\n}\n",
            "no final newline",
            "a\nb\nc",
        ];
        for code in texts {
            let boundaries: Vec<usize> = (0..=code.len())
                .filter(|&i| code.is_char_boundary(i))
                .collect();
            for (i, &start) in boundaries.iter().enumerate() {
                for &end in boundaries[i + 1..].iter().take(20) {
                    let inserted = "X /* ~ changed by mutiny ~ */";
                    let mutated = format!("{}{inserted}{}", &code[..start], &code[end..]);
                    assert_eq!(
                        unified_diff("src/lib.rs", "change", code, start..end, inserted),
                        similar_diff("src/lib.rs", "change", code, &mutated),
                        "replacing {start}..{end} of {code:?}"
                    );
                }
            }
        }
    }
}
