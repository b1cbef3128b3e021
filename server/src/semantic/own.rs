//! mutiny's own stubs: values of a function's resolved return type that
//! cargo-mutants' table, which reads only the written type, cannot offer.
//! Each unit variant of an enum (`Ordering::Less`), and for a type
//! without `Default` its one value if it is a unit struct, its own
//! constants (`Version::EMPTY`) and zero-argument constructors
//! (`Config::empty()`); also inside `Some(…)`, `Ok(…)` and `Err(…)`. A
//! function whose every table stub is unviable (`Default::default()` for a
//! type without `Default`) gets viable mutants this way.
//!
//! Only values rust-analyzer resolves are offered, by a path it finds from
//! the function's module; a value that still fails to compile is found
//! unviable as any other mutant is.

use ra_ap_hir::{
    Adt, AssocItem, AttrsWithOwner, HasAttrs, HasVisibility, ModuleDef, Semantics, StructKind, Type,
};
use ra_ap_ide_db::famous_defs::FamousDefs;
use ra_ap_ide_db::{FileId, RootDatabase};

use crate::mutate::Mutant;

/// The most values offered for one function: an enum of many unit
/// variants (an error kind, an opcode) would otherwise flood the list.
pub const MOST_PER_FUNCTION: usize = 12;

/// The values of the return type of the function `mutant` (a
/// function-value mutant) is in, rendered as code, in the order the type
/// declares them; empty where the type is not fully known.
pub(super) fn values(db: &RootDatabase, file: FileId, mutant: &Mutant) -> Vec<String> {
    let sema = Semantics::new(db);
    let Some(def) = super::predict::function_of(&sema, file, mutant) else {
        return Vec::new();
    };
    let returns = def.ret_type(db);
    if returns.contains_unknown() {
        return Vec::new();
    }
    let module = def.module(db);
    let krate = module.krate(db);
    let famous = FamousDefs(&sema, krate);
    let values = Values {
        db,
        module,
        edition: krate.edition(db),
        function: def,
        default: famous.core_default_Default(),
    };
    let wrapped = |inner: &Type<'_>, wrap: &str| -> Vec<String> {
        values
            .plain(inner)
            .into_iter()
            .map(|value| format!("{wrap}({value})"))
            .collect()
    };
    let adt = returns.as_adt();
    let mut found = match adt {
        Some(Adt::Enum(e)) if Some(e) == famous.core_option_Option() => returns
            .type_arguments()
            .next()
            .map(|inner| wrapped(&inner, "Some"))
            .unwrap_or_default(),
        Some(Adt::Enum(e)) if Some(e) == famous.core_result_Result() => {
            let mut arguments = returns.type_arguments();
            let ok = arguments.next();
            let err = arguments.next();
            let mut found = ok.map(|ok| wrapped(&ok, "Ok")).unwrap_or_default();
            found.extend(err.map(|err| wrapped(&err, "Err")).unwrap_or_default());
            found
        }
        _ => values.plain(&returns),
    };
    found.truncate(MOST_PER_FUNCTION);
    found
}

/// Whether the `Default::default()` in function-value mutant `mutant`'s
/// replacement (plain, in `Some(…)` or `Ok(…)`, or leaked for a reference)
/// stands for a resolved type without `Default`: the mutant cannot
/// compile, and in a switched build would fail the whole build. False
/// where the type is not fully known.
pub(super) fn default_lacking(db: &RootDatabase, file: FileId, mutant: &Mutant) -> bool {
    let sema = Semantics::new(db);
    let Some(def) = super::predict::function_of(&sema, file, mutant) else {
        return false;
    };
    let returns = def.ret_type(db);
    let famous = FamousDefs(&sema, def.module(db).krate(db));
    let Some(default) = famous.core_default_Default() else {
        return false;
    };
    let adt = returns.as_adt();
    let first_argument = |wrapper: Option<ra_ap_hir::Enum>| {
        (adt.is_some() && adt == wrapper.map(Adt::Enum))
            .then(|| returns.type_arguments().next())
            .flatten()
    };
    let stands_for = match mutant.replacement.as_str() {
        "Default::default()" => Some(returns.clone()),
        "Some(Default::default())" => first_argument(famous.core_option_Option()),
        "Ok(Default::default())" => first_argument(famous.core_result_Result()),
        "Box::leak(Box::new(Default::default()))" => returns.as_reference_inner(),
        _ => None,
    };
    stands_for.is_some_and(|ty| {
        !ty.contains_unknown() && !ty.is_unknown() && !ty.impls_trait(db, default, &[])
    })
}

/// Where values are rendered from, and the function they must not call.
struct Values<'a> {
    db: &'a RootDatabase,
    module: ra_ap_hir::Module,
    edition: ra_ap_syntax::Edition,
    function: ra_ap_hir::Function,
    /// `core::default::Default`, if it resolves.
    default: Option<ra_ap_hir::Trait>,
}

impl Values<'_> {
    /// The values of `ty` itself: its unit variants or unit struct, its
    /// inherent constants of its own type and zero-argument constructors.
    fn plain(&self, ty: &Type<'_>) -> Vec<String> {
        let Some(adt) = ty.as_adt() else {
            return Vec::new();
        };
        let foreign = adt.module(self.db).krate(self.db) != self.module.krate(self.db);
        if !adt.is_visible_from(self.db, self.module) || !offered(&adt.attrs(self.db), false) {
            return Vec::new();
        }
        let Some(path) = self.path_to(ModuleDef::Adt(adt)) else {
            return Vec::new();
        };
        // The constants and constructors of a type with a default value
        // tend to include it (`Duration::ZERO`, `Vec::new()`), and a unit
        // struct's one value is it: the table's `Default::default()`
        // stands for them.
        let has_default = self
            .default
            .is_none_or(|default| ty.impls_trait(self.db, default, &[]));
        let mut found = Vec::new();
        match adt {
            Adt::Enum(e) => {
                for variant in e.variants(self.db) {
                    if variant.kind(self.db) == StructKind::Unit
                        && offered(&variant.attrs(self.db), foreign)
                    {
                        found.push(format!("{path}::{}", self.name(&variant.name(self.db))));
                    }
                }
            }
            Adt::Struct(s) => {
                if s.kind(self.db) == StructKind::Unit
                    && !has_default
                    && offered(&adt.attrs(self.db), foreign)
                {
                    found.push(path.clone());
                }
            }
            Adt::Union(_) => {}
        }
        if !has_default {
            found.extend(self.associated(ty, adt, &path));
        }
        found
    }

    /// `Type::CONSTANT` and `Type::constructor()` from the type's inherent
    /// impls: constants of the type, safe non-generic functions without
    /// parameters that return it (never the mutated function itself, which
    /// would recurse).
    fn associated(&self, ty: &Type<'_>, adt: Adt, path: &str) -> Vec<String> {
        let db = self.db;
        let mut found = Vec::new();
        // Inherent impls only (trait impls' items are the trait's, and
        // searching every crate's trait impls costs seconds).
        ty.iterate_assoc_items(db, |item| -> Option<()> {
            if !item.is_visible_from(db, self.module) {
                return None;
            }
            match item {
                AssocItem::Const(constant) => {
                    let name = constant.name(db)?;
                    if constant.ty(db).as_adt() == Some(adt) && offered(&constant.attrs(db), false)
                    {
                        found.push(format!("{path}::{}", self.name(&name)));
                    }
                }
                AssocItem::Function(function) => {
                    let usable = function != self.function
                        && !function.has_self_param(db)
                        && function.assoc_fn_params(db).is_empty()
                        && !function.is_unsafe_to_call(db, None, self.edition)
                        && !function.is_async(db)
                        && ra_ap_hir::GenericDef::Function(function)
                            .type_or_const_params(db)
                            .is_empty()
                        && function.ret_type(db).as_adt() == Some(adt)
                        && offered(&function.attrs(db), false);
                    if usable {
                        found.push(format!("{path}::{}()", self.name(&function.name(db))));
                    }
                }
                AssocItem::TypeAlias(_) => {}
            }
            None
        });
        found
    }

    /// A path to `item` from the function's module, as code.
    fn path_to(&self, item: ModuleDef) -> Option<String> {
        let config = ra_ap_hir::FindPathConfig {
            prefer_no_std: false,
            prefer_prelude: true,
            prefer_absolute: false,
            allow_unstable: false,
        };
        let path = self.module.find_path(self.db, item, config)?;
        let shown = path.display(self.db, self.edition).to_string();
        Some(shown)
    }

    fn name(&self, name: &ra_ap_hir::Name) -> String {
        name.display(self.db, self.edition).to_string()
    }
}

/// Whether an item with these attributes is one to offer: not deprecated
/// (a warning, an error under `deny(warnings)`), not hidden from the docs,
/// not unstable (an error on stable Rust), and, in another crate, not
/// `#[non_exhaustive]` (which forbids building it there).
fn offered(attrs: &AttrsWithOwner, foreign: bool) -> bool {
    let unbuildable_here = foreign && attrs.is_non_exhaustive();
    !(attrs.is_deprecated() || attrs.is_doc_hidden() || attrs.is_unstable() || unbuildable_here)
}
