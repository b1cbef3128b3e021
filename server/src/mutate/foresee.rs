//! Mutants whose switched form would break a compile-once build, foreseen
//! from the syntax alone, before any build: each one found here saves a
//! build round (a rebuild of the crate) that rustc's errors would otherwise
//! cost. A mutant foreseen here is not judged: it takes the classic path,
//! where its own build (or rust-analyzer) gives cargo-mutants' verdict.
//! A wrong guess costs only time: a viable mutant built alone, or an
//! unviable one left to the build rounds.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use ra_ap_syntax::ast::{self, HasAttrs, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, Edition as RaEdition, SourceFile as RaSourceFile};

use super::discover::ra_edition;
use super::{Edition, Genre, Mutant};

/// The mutants (by index) that would break a switched build, and why.
pub fn switch_breakers(mutants: &[Arc<Mutant>]) -> BTreeMap<usize, String> {
    let mut breakers = BTreeMap::new();
    let defaults = DefaultIndex::of(mutants);
    let mut original_errors: HashMap<&str, Vec<String>> = HashMap::new();
    for (index, mutant) in mutants.iter().enumerate() {
        if let Some(ty) = defaults.lacking_default(mutant) {
            breakers.insert(
                index,
                format!("Default::default() in its value stands for {ty}, which has no Default"),
            );
        } else if mutant.replacement.contains('<') {
            // An operator swapped for `<` or `<<` after a cast (`x as i64 <
            // y`) starts generic arguments: the file no longer parses.
            let path = mutant.source_file.path.as_str();
            let edition = mutant.source_file.edition;
            let before = original_errors
                .entry(path)
                .or_insert_with(|| parse_errors(&mutant.source_file.code, edition));
            if new_parse_error(before, &mutant.mutated_code(), edition).is_some() {
                breakers.insert(index, "its mutated code does not parse".to_owned());
            }
        }
    }
    breakers
}

/// The syntax errors of `code`, as rust-analyzer's parser words them.
pub fn parse_errors(code: &str, edition: Edition) -> Vec<String> {
    RaSourceFile::parse(code, ra_edition(edition))
        .errors()
        .into_iter()
        .map(|error| error.to_string())
        .collect()
}

/// The first syntax error `mutated` has that the original (with errors
/// `before`, from [`parse_errors`]) does not: an operator swapped for `<`
/// or `<<` after a cast starts generic arguments.
pub fn new_parse_error(before: &[String], mutated: &str, edition: Edition) -> Option<String> {
    let after = parse_errors(mutated, edition);
    if after.len() <= before.len() {
        return None;
    }
    after.into_iter().find(|error| !before.contains(error))
}

/// The types the files of some mutants define, and which of them
/// implement `Default` as far as the syntax shows.
#[derive(Default)]
struct DefaultIndex {
    /// Struct, enum and union names defined (per package).
    defined: HashSet<(String, String)>,
    /// Names that derive `Default`, implement it, or might (a macro).
    with_default: HashSet<(String, String)>,
}

impl DefaultIndex {
    fn of(mutants: &[Arc<Mutant>]) -> DefaultIndex {
        let mut index = DefaultIndex::default();
        let mut seen = HashSet::new();
        for mutant in mutants {
            let file = &mutant.source_file;
            if !seen.insert((file.package.as_str(), file.path.as_str())) {
                continue;
            }
            let parse = RaSourceFile::parse(&file.code, ra_edition(file.edition));
            for node in parse.tree().syntax().descendants() {
                let key = |name: String| (file.package.clone(), name);
                if let Some(adt) = ast::Adt::cast(node.clone()) {
                    let Some(name) = adt.name() else { continue };
                    let name = name.text().to_string();
                    // Any attribute naming Default: a derive, a cfg_attr'd
                    // one, or another crate's derive of its own.
                    if adt
                        .attrs()
                        .any(|a| a.syntax().text().to_string().contains("Default"))
                    {
                        index.with_default.insert(key(name.clone()));
                    }
                    index.defined.insert(key(name));
                } else if let Some(imp) = ast::Impl::cast(node.clone()) {
                    let is_default = imp
                        .trait_()
                        .is_some_and(|t| last_segment(&t.syntax().text().to_string()) == "Default");
                    if let (true, Some(ty)) = (is_default, imp.self_ty()) {
                        index
                            .with_default
                            .insert(key(last_segment(&ty.syntax().text().to_string())));
                    }
                } else if let Some(call) = ast::MacroCall::cast(node) {
                    // A macro may implement Default for anything it names.
                    if call.syntax().text().to_string().contains("Default") {
                        for word in words(&call.syntax().text().to_string()) {
                            index.with_default.insert(key(word));
                        }
                    }
                }
            }
        }
        index
    }

    /// The name of a type of the mutant's package with no sign of `Default` that a
    /// `Default::default()` in `mutant`'s value may stand for: one named in
    /// the return type (in `Ok(…)`, in its first type argument alone).
    fn lacking_default(&self, mutant: &Mutant) -> Option<String> {
        if mutant.genre != Genre::FnValue || !mutant.replacement.contains("Default::default()") {
            return None;
        }
        let function = mutant.function.as_ref()?;
        let return_type = function.return_type.strip_prefix("->")?.trim();
        let scope = match mutant.replacement.starts_with("Ok(") {
            true => first_type_argument(return_type)?,
            false => return_type.to_owned(),
        };
        let parse = RaSourceFile::parse(&format!("type X = {scope};"), RaEdition::CURRENT);
        let named: Vec<String> = parse
            .tree()
            .syntax()
            .descendants()
            .filter_map(ast::PathType::cast)
            .filter_map(|ty| {
                let path = ty.path()?.syntax().text().to_string();
                match local_type_name(&path)? {
                    "Self" => self_type(&function.function_name),
                    name => Some(name.to_owned()),
                }
            })
            .collect();
        named.into_iter().find_map(|name| {
            let key = (mutant.source_file.package.clone(), name);
            (self.defined.contains(&key) && !self.with_default.contains(&key)).then_some(key.1)
        })
    }
}

/// The name a type written as `ty` has, when it can be a type of this
/// crate: a plain path (`Range<'a>`, `crate::diff::Chunk`), not another
/// crate's (`std::ops::Range<usize>`), a reference or a tuple.
fn local_type_name(ty: &str) -> Option<&str> {
    let without_arguments = ty.split('<').next()?.trim();
    if without_arguments.is_empty()
        || !without_arguments
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
    {
        return None;
    }
    let mut segments: Vec<&str> = without_arguments.split("::").collect();
    let name = segments.pop()?;
    match segments.first() {
        None | Some(&"crate") | Some(&"self") | Some(&"super") => Some(name),
        Some(_) => None,
    }
}

/// The first type argument of `ty` (`Result<Chunk<'a>, Error>` → `Chunk<'a>`),
/// skipping lifetimes.
fn first_type_argument(ty: &str) -> Option<String> {
    let parse = RaSourceFile::parse(&format!("type X = {ty};"), RaEdition::CURRENT);
    let path = parse
        .tree()
        .syntax()
        .descendants()
        .find_map(ast::PathType::cast)?
        .path()?;
    let arguments = path.segment()?.generic_arg_list()?;
    arguments
        .generic_args()
        .find_map(|argument| match argument {
            ast::GenericArg::TypeArg(ty) => Some(ty.syntax().text().to_string()),
            _ => None,
        })
}

/// The type `Self` names in a function called `function_name`
/// (`Diff<'a, 'b>::text` → `Diff`); none in a trait impl (`<impl …>::f`).
fn self_type(function_name: &str) -> Option<String> {
    let (owner, _) = function_name.rsplit_once("::")?;
    let owner = owner.split('<').next()?;
    (!owner.is_empty() && !owner.contains("::")).then(|| owner.to_owned())
}

/// The last path segment of a path written as `text`, without arguments.
fn last_segment(text: &str) -> String {
    let without_arguments = text.split('<').next().unwrap_or_default();
    without_arguments
        .rsplit("::")
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// The identifiers in `text`.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the mutants of `code` foreseen to break a switched
    /// build, with why.
    fn breakers(code: &str) -> Vec<(String, String)> {
        let mutants = crate::mutate::lib_mutants(code);
        switch_breakers(&mutants)
            .into_iter()
            .map(|(index, why)| (mutants[index].name.clone(), why))
            .collect()
    }

    #[test]
    fn default_of_a_local_type_without_default_is_foreseen() {
        let code = "\
pub struct Span<'a> { text: &'a str }
#[derive(Debug, Default)]
pub struct Count(u32);
pub struct Manual(u8);
impl Default for Manual { fn default() -> Self { Manual(1) } }
pub fn span(text: &str) -> Span<'_> { Span { text } }
pub fn count() -> Count { Count(3) }
pub fn manual() -> Manual { Manual(2) }
pub fn range() -> std::ops::Range<usize> { 1..2 }
pub fn maybe(text: &str) -> Option<Span<'_>> { Some(Span { text }) }
impl<'a> Span<'a> { pub fn again(&self) -> Self { Span { text: self.text } } }
pub fn counted() -> Result<Count, Span<'static>> { Ok(Count(1)) }
pub fn pair() -> (Count, Manual) { (Count(1), Manual(1)) }
pub fn spans(text: &str) -> Vec<Span<'_>> { vec![Span { text }] }
";
        assert_eq!(
            breakers(code),
            [
                (
                    "src/lib.rs:6:39: replace span -> Span<'_> with Default::default()".to_owned(),
                    "Default::default() in its value stands for Span, which has no Default".to_owned()
                ),
                (
                    "src/lib.rs:10:48: replace maybe -> Option<Span<'_>> with Some(Default::default())".to_owned(),
                    "Default::default() in its value stands for Span, which has no Default".to_owned()
                ),
                (
                    "src/lib.rs:11:51: replace Span<'a>::again -> Self with Default::default()".to_owned(),
                    "Default::default() in its value stands for Span, which has no Default".to_owned()
                ),
                (
                    "src/lib.rs:14:45: replace spans -> Vec<Span<'_>> with vec![Default::default()]".to_owned(),
                    "Default::default() in its value stands for Span, which has no Default".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn an_operator_that_makes_a_cast_start_generic_arguments_is_foreseen() {
        let code = "pub fn wider(x: u8, y: i64) -> bool { x as i64 >= y }\n";
        let found = breakers(code);
        assert_eq!(
            found,
            [(
                "src/lib.rs:1:48: replace >= with < in wider".to_owned(),
                "its mutated code does not parse".to_owned()
            )],
            "{found:?}"
        );
    }
}
