//! Whether rust-analyzer could find mutiny's own stubs for a function,
//! foreseen from the syntax of the mutated files, so that a run whose
//! functions return none of the types that have them does not load it
//! (seconds, before the first build). Own stubs are a type's unit variants
//! or unit value, its inherent constants and zero-argument constructors
//! (`semantic::own`) of the type itself: a type this crate defines without
//! any of those has none. A constructor that returns an alias of the type
//! is not seen (it costs an own stub, never a verdict). Anything else may have some: a type defined elsewhere or not
//! found here, an alias, a rename, a generic, a type a macro may define.

use std::collections::HashSet;

use ra_ap_syntax::ast::{self, HasAttrs, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind};

use super::discover::ra_edition;
use super::{Function, Mutant};

/// The types the mutated files define, and which of them may have values
/// of their own.
#[derive(Default)]
pub struct ValueIndex {
    /// Struct, enum and union names.
    defined: HashSet<String>,
    /// Enums with unit variants, and names a macro at item level writes
    /// (it may define anything): they may have values whatever else.
    with_values: HashSet<String>,
    /// Unit structs and types with inherent constants or zero-argument
    /// constructors of their own type: rust-analyzer offers these only
    /// for a type without `Default`.
    unless_default: HashSet<String>,
    /// Types that derive or implement `Default`, or might (an attribute
    /// naming it).
    with_default: HashSet<String>,
    /// Names of type aliases and renames (`type Result<T> = …`, `use a::B
    /// as C`): they may stand for anything, a plain word too.
    aliases: HashSet<String>,
}

impl ValueIndex {
    /// The index of the files `mutants` are in.
    pub fn of(mutants: &[Mutant]) -> ValueIndex {
        let mut index = ValueIndex::default();
        let mut seen = HashSet::new();
        for mutant in mutants {
            let file = &mutant.source_file;
            if seen.insert((file.package.as_str(), file.path.as_str())) {
                index.add(&file.code, file.edition);
            }
        }
        index
    }

    fn add(&mut self, code: &str, edition: super::Edition) {
        let parse = ra_ap_syntax::SourceFile::parse(code, ra_edition(edition));
        for node in parse.tree().syntax().descendants() {
            match node.kind() {
                SyntaxKind::ENUM => {
                    let Some(e) = ast::Enum::cast(node) else {
                        continue;
                    };
                    let Some(name) = e.name() else { continue };
                    let name = name.text().to_string();
                    let unit = e
                        .variant_list()
                        .is_some_and(|list| list.variants().any(|v| v.field_list().is_none()));
                    if unit {
                        self.with_values.insert(name.clone());
                    }
                    self.defined.insert(name);
                }
                SyntaxKind::STRUCT => {
                    let Some(s) = ast::Struct::cast(node) else {
                        continue;
                    };
                    let Some(name) = s.name() else { continue };
                    let name = name.text().to_string();
                    if s.field_list().is_none() {
                        self.unless_default.insert(name.clone());
                    }
                    if s.attrs()
                        .any(|a| a.syntax().text().to_string().contains("Default"))
                    {
                        self.with_default.insert(name.clone());
                    }
                    self.defined.insert(name);
                }
                SyntaxKind::UNION => {
                    if let Some(name) = ast::Union::cast(node).and_then(|u| u.name()) {
                        self.defined.insert(name.text().to_string());
                    }
                }
                SyntaxKind::IMPL => {
                    let Some(imp) = ast::Impl::cast(node) else {
                        continue;
                    };
                    let Some(ty) = imp.self_ty() else { continue };
                    let name = type_name(&ty.syntax().text().to_string());
                    if let Some(implemented) = imp.trait_() {
                        if type_name(&implemented.syntax().text().to_string()) == "Default" {
                            self.with_default.insert(name);
                        }
                        continue;
                    }
                    // Of the type itself (not a reference to it, not an
                    // Option of it), as rust-analyzer requires.
                    let of_type = |ty: Option<ast::Type>| {
                        ty.is_some_and(|ty| {
                            let written = type_name(&ty.syntax().text().to_string());
                            written == name || written == "Self"
                        })
                    };
                    let has_values = imp.assoc_item_list().is_some_and(|items| {
                        items.assoc_items().any(|item| match item {
                            ast::AssocItem::Const(c) => of_type(c.ty()),
                            ast::AssocItem::MacroCall(_) => true,
                            ast::AssocItem::Fn(f) => {
                                let no_parameters = f.param_list().is_some_and(|params| {
                                    params.self_param().is_none()
                                        && params.params().next().is_none()
                                });
                                no_parameters && of_type(f.ret_type().and_then(|r| r.ty()))
                            }
                            ast::AssocItem::TypeAlias(_) => false,
                        })
                    });
                    if has_values {
                        self.unless_default.insert(name);
                    }
                }
                SyntaxKind::RENAME | SyntaxKind::TYPE_ALIAS => {
                    // `use a::B as C;`, `type C = B;`: C may be anything.
                    if let Some(name) = node
                        .children()
                        .find(|c| c.kind() == SyntaxKind::NAME)
                        .map(|n| n.text().to_string())
                    {
                        self.aliases.insert(name);
                    }
                }
                SyntaxKind::MACRO_CALL => {
                    // A macro at item level may define types and impls.
                    let at_item_level = node.parent().is_some_and(|p| {
                        matches!(p.kind(), SyntaxKind::SOURCE_FILE | SyntaxKind::ITEM_LIST)
                    });
                    if at_item_level {
                        self.with_values.extend(
                            node.descendants_with_tokens()
                                .filter_map(|e| e.into_token())
                                .filter(|t| t.kind() == SyntaxKind::IDENT)
                                .map(|t| t.text().to_owned()),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the return type of `function`, whose words are `words`,
    /// may have own values: some word is an alias, or names a type beyond
    /// the standard library's plain ones (`plain`) that may have some.
    /// `Self` stands for the type of the function's impl.
    pub fn may_have_values(&self, function: &Function, words: &[&str], plain: &[&str]) -> bool {
        words.iter().any(|&word| {
            if self.aliases.contains(word) {
                return true;
            }
            let name = match word {
                "Self" => match self_type(&function.function_name) {
                    Some(name) => name,
                    None => return true,
                },
                other => other.to_owned(),
            };
            !plain.contains(&name.as_str())
                && (!self.defined.contains(&name)
                    || self.with_values.contains(&name)
                    || (self.unless_default.contains(&name) && !self.with_default.contains(&name)))
        })
    }
}

/// The type a method's `Self` is, from its qualified name:
/// `FoldHasher<'a>::with_seed` and `<impl Hasher for FoldHasher<'a>>::finish`
/// give `FoldHasher`.
fn self_type(function_name: &str) -> Option<String> {
    let (owner, _) = function_name.rsplit_once("::")?;
    let owner = match owner.strip_prefix("<impl ") {
        Some(inside) => inside.rsplit_once(" for ")?.1,
        None => owner,
    };
    Some(type_name(owner))
}

/// A written type's own name: the last path segment, generic arguments
/// left out (`a::Foo<'x, T>` is `Foo`).
fn type_name(written: &str) -> String {
    let bare = written.split('<').next().unwrap_or(written);
    bare.rsplit("::").next().unwrap_or(bare).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The function of a mutant named `name`.
    fn function_of(mutants: &[Mutant], name: &str) -> Arc<Function> {
        mutants
            .iter()
            .filter_map(|m| m.function.clone())
            .find(|f| f.function_name == name)
            .unwrap_or_else(|| panic!("no function {name}"))
    }

    fn index_and_mutants(code: &str) -> (ValueIndex, Vec<Mutant>) {
        let file = Arc::new(crate::mutate::SourceFile {
            package: "p".into(),
            path: "src/lib.rs".into(),
            code: code.into(),
            edition: crate::mutate::Edition::E2021,
        });
        let mutants = crate::mutate::generate(&file, &Default::default()).mutants;
        (ValueIndex::of(&mutants), mutants)
    }

    #[test]
    fn types_of_this_crate_without_values_of_their_own_have_none() {
        let code = "pub struct Seed { a: u64 }\nimpl Seed {\n    pub fn from(a: u64) -> Self { Seed { a } }\n    pub fn get(&self) -> u64 { self.a }\n    pub fn global() -> &'static Seed { todo!() }\n    pub const ZERO: u64 = 0;\n}\npub fn make(a: u64) -> Seed { Seed::from(a + 1) }\n";
        let (index, mutants) = index_and_mutants(code);
        assert!(!index.may_have_values(&function_of(&mutants, "Seed::from"), &["Self"], &[]));
        assert!(!index.may_have_values(&function_of(&mutants, "make"), &["Seed"], &[]));
    }

    #[test]
    fn unit_variants_constants_constructors_and_foreign_types_may_have_values() {
        let code = "pub enum Kind { A, B(u8) }\n#[derive(Default)]\npub struct Defaulted;\nimpl Defaulted { pub fn new() -> Self { Defaulted } }\npub struct Seedable { a: u8 }\nimpl Default for Seedable { fn default() -> Self { Seedable { a: 1 } } }\nimpl Seedable { pub fn fixed() -> Self { Seedable { a: 0 } } }\npub struct Unit;\npub struct Level(u8);\nimpl Level { pub const LOW: Level = Level(1); }\npub struct Config { a: u8 }\nimpl Config { pub fn empty() -> Self { Config { a: 0 } } }\npub fn k(x: u8) -> Kind { Kind::B(x + 1) }\n";
        let (index, mutants) = index_and_mutants(code);
        let k = function_of(&mutants, "k");
        for word in ["Kind", "Unit", "Level", "Config", "Ordering", "T"] {
            assert!(index.may_have_values(&k, &[word], &[]), "{word}");
        }
        // A crate's own `Result` may hold an error enum.
        let aliased = "pub enum Error { Empty }\npub type Result<T> = std::result::Result<T, Error>;\npub fn parse(a: u8) -> Result<u8> { Ok(a + 1) }\n";
        let (aliases, mutants) = index_and_mutants(aliased);
        let parse = function_of(&mutants, "parse");
        assert!(aliases.may_have_values(&parse, &["Result", "u8"], &["Result", "u8"]));
        assert!(!index.may_have_values(&parse, &["Result", "u8"], &["Result", "u8"]));
        // With Default, only an enum's unit variants count.
        for word in ["Defaulted", "Seedable"] {
            assert!(!index.may_have_values(&k, &[word], &[]), "{word}");
        }
    }

    #[test]
    fn self_is_the_type_of_the_impl() {
        assert_eq!(
            self_type("FoldHasher<'a>::with_seed").as_deref(),
            Some("FoldHasher")
        );
        assert_eq!(
            self_type("<impl Hasher for FoldHasher<'a>>::finish").as_deref(),
            Some("FoldHasher")
        );
        assert_eq!(
            self_type("global::GlobalSeed::get").as_deref(),
            Some("GlobalSeed")
        );
        assert_eq!(self_type("free"), None);
        assert_eq!(
            self_type("<impl Ext for std::collections::HashMap<K, V, S>>::new").as_deref(),
            Some("HashMap")
        );
    }
}
