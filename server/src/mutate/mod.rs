//! Mutant generation: source text in, mutants out. Pure: no IO, no processes.
//!
//! The interface to `ra_ap_syntax` is localised in this module tree.

mod attrs;
mod constant;
mod constness;
pub mod crate_const;
mod diff;
mod discover;
mod foresee;
mod operators;
mod pretty;
mod stub;
mod values;

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::position::Span;
pub use constness::{kept_const, ScanFile};
pub use discover::removable_consts;
pub use foresee::{new_parse_error, parse_errors, switch_breakers};
pub use values::ValueIndex;

/// Marks the mutated text so that compiler messages and diffs point at it.
pub const MUTATION_MARKER: &str = "/* ~ changed by mutiny ~ */";

/// The Rust edition a file is parsed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Edition {
    E2015,
    E2018,
    #[default]
    E2021,
    E2024,
}

impl Edition {
    /// Parses cargo's edition names ("2015" … "2024"); unknown ones are the newest.
    pub fn from_cargo(name: &str) -> Edition {
        match name {
            "2015" => Edition::E2015,
            "2018" => Edition::E2018,
            "2021" => Edition::E2021,
            _ => Edition::E2024,
        }
    }
}

/// One source file of a package, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The package the file belongs to.
    pub package: String,
    /// Path relative to the workspace root, with `/` separators.
    pub path: String,
    pub code: Arc<str>,
    pub edition: Edition,
}

/// The kinds of mutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Genre {
    FnValue,
    BinaryOperator,
    UnaryOperator,
    MatchArm,
    MatchArmGuard,
    StructField,
}

impl fmt::Display for Genre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The function a mutant sits in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Function {
    /// Qualified within its file: `Version::parse`, `<impl Display for Version>::fmt`.
    pub function_name: String,
    /// As written, `-> bool`; empty for `()`.
    pub return_type: String,
    /// The whole function, attributes included.
    pub span: Span,
}

/// One synthetic change to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// `src/eval.rs:27:28: replace && with || in matches_comparator`.
    pub name: String,
    pub source_file: Arc<SourceFile>,
    pub function: Option<Arc<Function>>,
    pub span: Span,
    /// Byte range of the replaced text in `source_file.code`.
    pub range: Range<usize>,
    pub replacement: String,
    pub genre: Genre,
    /// The name without file and position: `replace && with || in matches_comparator`.
    pub description: String,
    /// How a build holding many mutants can switch this one on at run time.
    pub switch: Switch,
    /// A stub from the function's resolved return type that cargo-mutants'
    /// table does not offer (mutiny's own; see [`Mutant::with_own_stub`]).
    pub own: bool,
}

/// Where a compile-once build puts a mutant beside the original code, so
/// that one build holds many mutants and the test run picks one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Switch {
    /// The expression at this byte range (or, with `body`, the statements
    /// of a function body) is chosen at run time: the original, or the same
    /// text with the mutant applied.
    Expression { site: Range<usize>, body: bool },
    /// A deleted match arm: a guard inserted at this byte offset (the end
    /// of the arm's pattern) turns the arm off at run time.
    ArmGuard { at: usize },
    /// A mutant in the initialiser of a const item local to a block, every
    /// use of which is a run-time value: a copy of the item under another
    /// name holds the mutant (`const __mutiny_c17: i64 = 365 + 400;`), and
    /// each use (byte ranges of the name) chooses the copy or the original
    /// at run time. `item` is the whole item, `name` its name.
    ConstUses {
        item: Range<usize>,
        name: Range<usize>,
        uses: Vec<Range<usize>>,
    },
    /// A mutant in the initialiser of a const item of a module or of an
    /// inherent impl (`impl Effects { pub const BOLD: Self = Self(1 << 0); }`),
    /// which any file of the crate may use. As with `ConstUses`, a copy
    /// under another name holds the mutant and each use chooses at run
    /// time; the lab finds the uses (`crate_const::uses_in`, every file of
    /// the packages) and builds the mutant alone unless each one is a
    /// run-time value in the package's `src/`. `item` runs from its
    /// first lint attribute, visibility or `const` keyword to the end (no
    /// doc comment: a doctest would run twice), `owner` is the impl's type (`Effects`) if any, `value`
    /// the item's integer value with the mutant, where known.
    CrateConst {
        item: Range<usize>,
        name: Range<usize>,
        owner: Option<String>,
        value: Option<i128>,
    },
    /// A mutant in a `const fn` that nothing evaluates at compile time as
    /// far as the syntax shows: the function loses its `const` (the byte
    /// range of the keyword and the space after it) in the switched build,
    /// and `inner` switches the mutant. Only mutants that compile in a
    /// const fn exactly when they compile in a plain one get it (operators,
    /// match arms, stubs that call nothing but const constructors), so
    /// viability stays cargo-mutants'. The lab keeps the function const
    /// (and the mutant alone) when some const context may call it.
    Unconst {
        keyword: Range<usize>,
        inner: Box<Switch>,
    },
    /// Only a build of its own can hold this mutant; why.
    Alone(&'static str),
}

impl Switch {
    /// The switch as a build must see it: `Unconst` unwrapped.
    pub fn inner(&self) -> &Switch {
        match self {
            Switch::Unconst { inner, .. } => inner.inner(),
            other => other,
        }
    }
}

impl Mutant {
    /// Another function-value mutant of the same function: its body
    /// replaced with `value` (rendered code), named in cargo-mutants'
    /// pattern and marked as mutiny's own. `None` unless `self` is a
    /// function-value mutant.
    pub fn with_own_stub(&self, value: &str) -> Option<Mutant> {
        let function = self.function.as_ref()?;
        if self.genre != Genre::FnValue {
            return None;
        }
        let description = function_value_description(function, value);
        let prefix = self.name.strip_suffix(&self.description)?;
        // A const fn keeps its const for a value that may call what a
        // const fn cannot.
        let switch = match &self.switch {
            Switch::Unconst { .. } if !discover::const_safe_value(value) => {
                Switch::Alone(discover::IN_CONST_FN)
            }
            other => other.clone(),
        };
        Some(Mutant {
            name: format!("{prefix}{description}"),
            replacement: value.to_owned(),
            switch,
            description,
            own: true,
            ..self.clone()
        })
    }

    /// The replaced text of the original source.
    pub fn original(&self) -> &str {
        &self.source_file.code[self.range.clone()]
    }

    /// What takes the place of the original text: the replacement and the marker.
    fn inserted_text(&self) -> String {
        format!("{} {MUTATION_MARKER}", self.replacement)
    }

    /// The text of the function the mutant is in (its attributes and doc
    /// comments included) and the byte offset where it starts.
    pub fn function_text(&self) -> Option<(usize, &str)> {
        let function = self.function.as_ref()?;
        let code = &self.source_file.code;
        let index = crate::position::SourceIndex::new(code);
        let start = index.offset_of(function.span.start)?;
        let end = index.offset_of(function.span.end)?;
        Some((start, code.get(start..end)?))
    }

    /// The whole file with this mutant applied.
    pub fn mutated_code(&self) -> String {
        let code = &self.source_file.code;
        [
            &code[..self.range.start],
            &self.inserted_text(),
            &code[self.range.end..],
        ]
        .concat()
    }

    /// A unified diff from the original file to the mutated one.
    pub fn diff(&self) -> String {
        diff::unified_diff(
            &self.source_file.path,
            &self.description.replace('\n', " "),
            &self.source_file.code,
            self.range.clone(),
            &self.inserted_text(),
        )
    }
}

/// `replace parse -> Result<Version> with Ok(Default::default())`: how a
/// function-value mutant is described (its name after the position).
pub fn function_value_description(function: &Function, value: &str) -> String {
    let separator = if function.return_type.is_empty() {
        ""
    } else {
        " "
    };
    format!(
        "replace {}{separator}{} with {value}",
        function.function_name, function.return_type
    )
}

/// `mutants` with `own` stubs inserted, each after the mutant at the
/// index it comes with (in the order given, for one index).
pub fn with_own_stubs<T>(mutants: Vec<T>, own: Vec<(usize, T)>) -> Vec<T> {
    let mut own = own.into_iter().peekable();
    let mut all = Vec::with_capacity(mutants.len() + own.len());
    for (index, mutant) in mutants.into_iter().enumerate() {
        all.push(mutant);
        while let Some((_, stub)) = own.next_if(|(after, _)| *after == index) {
            all.push(stub);
        }
    }
    all.extend(own.map(|(_, stub)| stub));
    all
}

/// A `mod name;` declaration whose file is to be found, with the inline
/// modules around it (`mod a { mod b; }` gives `[a, b]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleRef {
    pub parts: Vec<ModuleName>,
    /// The `#[cfg(…)]` predicates the declaration (and the inline modules
    /// and file around it) requires: the module is compiled where all hold.
    pub cfgs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleName {
    pub name: String,
    /// The value of `#[path = "…"]`, if any.
    pub path_attribute: Option<String>,
    /// Where the declaration is, for messages.
    pub span: Span,
}

/// Something worth telling the user about a file that did not stop generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.line, self.column, self.message
        )
    }
}

/// Settings that change which mutants a file yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateOptions {
    /// Calls whose arguments are not mutated (`with_capacity` by default).
    pub skip_calls: Vec<String>,
    /// Error values tried for functions returning `Result`, rendered as code.
    pub error_values: Vec<String>,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            skip_calls: vec!["with_capacity".to_owned()],
            error_values: Vec::new(),
        }
    }
}

/// What one file yields.
#[derive(Debug, Default)]
pub struct FileMutants {
    pub mutants: Vec<Mutant>,
    pub module_refs: Vec<ModuleRef>,
    pub warnings: Vec<Warning>,
}

/// Generates the mutants of one file, in source order.
pub fn generate(source_file: &Arc<SourceFile>, options: &GenerateOptions) -> FileMutants {
    discover::discover(source_file, options)
}

/// For each byte range of `source_file` (a mutant's), the `#[cfg(…)]`
/// predicates (as written) required there: of the items around it and of
/// the file itself (`#![cfg(…)]`), not of the `mod` declaring the file.
pub fn cfgs_at(source_file: &SourceFile, ranges: &[Range<usize>]) -> Vec<Vec<String>> {
    discover::cfgs_at(source_file, ranges)
}

/// The test code of a file (tests, test-only modules, doc comments): the
/// part of a package that decides verdicts besides the mutated function.
pub fn test_code(code: &str, edition: Edition) -> String {
    discover::test_code(code, edition)
}

/// Renders an expression as mutant names write it, or says why it is not one.
pub fn render_expression(text: &str) -> Result<String, String> {
    discover::render_expression(text)
}

/// The mutants of `code` as `src/lib.rs` of a package `demo` (edition
/// 2021), for tests.
#[cfg(test)]
pub(crate) fn lib_mutants(code: &str) -> Vec<Arc<Mutant>> {
    let file = Arc::new(SourceFile {
        package: "demo".to_owned(),
        path: "src/lib.rs".to_owned(),
        code: code.into(),
        edition: Edition::E2021,
    });
    generate(&file, &GenerateOptions::default())
        .mutants
        .into_iter()
        .map(Arc::new)
        .collect()
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
