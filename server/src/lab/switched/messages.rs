//! What `cargo test --no-run --message-format=json` says: the test binaries
//! it built, and where the compiler's errors are.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A test binary, as `cargo test` would run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestBinary {
    /// The directory of its package's Cargo.toml: its working directory.
    pub package_dir: PathBuf,
    /// `lib`, `bin`, `test`, `bench`, `example`.
    pub kind: String,
    pub target: String,
    pub executable: PathBuf,
}

impl TestBinary {
    /// How `cargo test` orders binaries within a package: the library's unit
    /// tests, the binaries', then the integration tests, by name.
    fn rank(&self) -> (u8, &str) {
        let kind = match self.kind.as_str() {
            "lib" | "rlib" | "dylib" | "cdylib" | "staticlib" | "proc-macro" => 0,
            "bin" => 1,
            "test" => 2,
            "bench" => 3,
            _ => 4,
        };
        (kind, &self.target)
    }
}

/// One compiler error: its rendered text and every place it points to
/// (primary and secondary spans, and the macro call sites they came from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerError {
    pub rendered: String,
    /// (file as rustc names it, byte offset)
    pub places: Vec<(String, usize)>,
}

/// What one build printed.
#[derive(Debug, Default)]
pub struct BuildMessages {
    pub binaries: Vec<TestBinary>,
    pub errors: Vec<CompilerError>,
    /// Every compiler message, rendered, for the log.
    pub rendered: String,
}

/// Reads cargo's JSON lines; lines that are not JSON are kept as text.
pub fn parse(output: &str) -> BuildMessages {
    let mut messages = BuildMessages::default();
    for line in output.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            messages.rendered.push_str(line);
            messages.rendered.push('\n');
            continue;
        };
        match value["reason"].as_str() {
            Some("compiler-artifact") => {
                if let Some(binary) = test_binary(&value) {
                    messages.binaries.push(binary);
                }
            }
            Some("compiler-message") => {
                let message = &value["message"];
                let rendered = message["rendered"].as_str().unwrap_or_default();
                messages.rendered.push_str(rendered);
                if message["level"].as_str() == Some("error") {
                    let mut places = Vec::new();
                    collect_places(message, &mut places);
                    messages.errors.push(CompilerError {
                        rendered: rendered.to_owned(),
                        places,
                    });
                }
            }
            _ => {}
        }
    }
    let mut order: Vec<(PathBuf, usize)> = Vec::new();
    for binary in &messages.binaries {
        if !order.iter().any(|(dir, _)| dir == &binary.package_dir) {
            order.push((binary.package_dir.clone(), order.len()));
        }
    }
    let package_rank = |dir: &Path| order.iter().find(|(d, _)| d == dir).map(|(_, i)| *i);
    messages.binaries.sort_by(|a, b| {
        (package_rank(&a.package_dir), a.rank()).cmp(&(package_rank(&b.package_dir), b.rank()))
    });
    messages
}

fn test_binary(value: &Value) -> Option<TestBinary> {
    if value["profile"]["test"].as_bool() != Some(true) {
        return None;
    }
    let executable = value["executable"].as_str()?;
    let manifest = Path::new(value["manifest_path"].as_str()?);
    Some(TestBinary {
        package_dir: manifest.parent()?.to_owned(),
        kind: value["target"]["kind"][0].as_str()?.to_owned(),
        target: value["target"]["name"].as_str()?.to_owned(),
        executable: PathBuf::from(executable),
    })
}

fn collect_places(message: &Value, places: &mut Vec<(String, usize)>) {
    for span in message["spans"].as_array().into_iter().flatten() {
        let mut span = span;
        loop {
            if let (Some(file), Some(start)) =
                (span["file_name"].as_str(), span["byte_start"].as_u64())
            {
                places.push((file.to_owned(), start as usize));
            }
            match span.get("expansion").filter(|e| !e.is_null()) {
                Some(expansion) => span = &expansion["span"],
                None => break,
            }
        }
    }
    for child in message["children"].as_array().into_iter().flatten() {
        collect_places(child, places);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_binaries_in_cargos_order_and_errors_with_their_places() {
        let output = r#"{"reason":"compiler-artifact","manifest_path":"/w/Cargo.toml","target":{"kind":["test"],"name":"zeta"},"profile":{"test":true},"executable":"/w/target/debug/deps/zeta-1"}
{"reason":"compiler-artifact","manifest_path":"/w/Cargo.toml","target":{"kind":["bin"],"name":"w"},"profile":{"test":false},"executable":"/w/target/debug/w"}
{"reason":"compiler-artifact","manifest_path":"/w/Cargo.toml","target":{"kind":["lib"],"name":"w"},"profile":{"test":true},"executable":"/w/target/debug/deps/w-2"}
{"reason":"compiler-artifact","manifest_path":"/w/Cargo.toml","target":{"kind":["test"],"name":"alpha"},"profile":{"test":true},"executable":"/w/target/debug/deps/alpha-3"}
{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0308]: mismatched types\n","spans":[{"file_name":"src/lib.rs","byte_start":120,"expansion":{"span":{"file_name":"src/lib.rs","byte_start":100,"expansion":null}}}],"children":[{"spans":[{"file_name":"src/other.rs","byte_start":7}],"children":[]}]}}
{"reason":"compiler-message","message":{"level":"warning","rendered":"warning: unused\n","spans":[],"children":[]}}
not json
"#;
        let messages = parse(output);
        let labels: Vec<String> = messages
            .binaries
            .iter()
            .map(|b| format!("{} {}", b.kind, b.target))
            .collect();
        assert_eq!(labels, ["lib w", "test alpha", "test zeta"]);
        assert_eq!(messages.errors.len(), 1);
        assert_eq!(
            messages.errors[0].places,
            [
                ("src/lib.rs".to_owned(), 120),
                ("src/lib.rs".to_owned(), 100),
                ("src/other.rs".to_owned(), 7)
            ]
        );
        assert_eq!(
            messages.rendered,
            "error[E0308]: mismatched types\nwarning: unused\nnot json\n"
        );
    }
}
