//! Whether a mutant can compile, from the types rust-analyzer infers for
//! the mutated function.

use ra_ap_hir::{Crate, HirDisplay, Semantics, Trait, Type};
use ra_ap_ide_db::famous_defs::FamousDefs;
use ra_ap_ide_db::{FileId, RootDatabase};
use ra_ap_syntax::{ast, AstNode, TextRange, TextSize};

use super::Trust;
use crate::mutate::{Genre, Mutant};

/// What the analysis says about one mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prediction {
    /// Nothing known: build it.
    Unknown,
    /// It cannot compile, and why.
    Unviable(String),
}

const DEFAULT_CALL: &str = "Default::default()";

/// Only stubs that call `Default::default()` are judged for now.
pub(super) fn may_be_unviable(mutant: &Mutant) -> bool {
    mutant.genre == Genre::FnValue && mutant.replacement.contains(DEFAULT_CALL)
}

/// Judges `mutant`, whose mutated text `mutated` the database holds as `file`.
pub(super) fn check(
    db: &RootDatabase,
    file: FileId,
    mutated: &str,
    mutant: &Mutant,
    trust: &Trust,
) -> Prediction {
    let sema = Semantics::new(db);
    let file = sema.attach_first_edition(file);
    let source = sema.parse(file);
    let Some(krate) = sema
        .file_to_module_def(file.file_id(db))
        .map(|m| m.krate(db))
    else {
        return Prediction::Unknown;
    };
    let Some(default) = FamousDefs(&sema, krate).core_default_Default() else {
        return Prediction::Unknown;
    };
    let start = mutant.range.start;
    let end = start + mutant.replacement.len();
    if mutated.get(start..end) != Some(mutant.replacement.as_str()) {
        return Prediction::Unknown;
    }
    let inserted = TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32));
    let target = krate.to_display_target(db);
    for call in source
        .syntax()
        .descendants()
        .filter(|node| inserted.contains_range(node.text_range()))
        .filter_map(ast::CallExpr::cast)
        .filter(|call| call.syntax().text() == DEFAULT_CALL)
    {
        let Some(info) = sema.type_of_expr(&ast::Expr::CallExpr(call)) else {
            continue;
        };
        let ty = info.original;
        if lacks(db, &ty, default, trust) {
            return Prediction::Unviable(format!(
                "`{}` does not implement `Default`",
                ty.display(db, target)
            ));
        }
    }
    Prediction::Unknown
}

/// Whether `ty` surely does not implement `trait_`.
fn lacks(db: &RootDatabase, ty: &Type<'_>, trait_: Trait, trust: &Trust) -> bool {
    if ty.contains_unknown() || ty.impls_trait(db, trait_, &[]) {
        return false;
    }
    if definite(db, ty, trust) {
        return true;
    }
    // A type of a trusted crate with no impl of the trait for any
    // arguments (`Either<L::IntoIter, R::IntoIter>`) lacks it whatever its
    // arguments are.
    ty.as_adt()
        .is_some_and(|adt| trusted(db, adt.module(db).krate(db), trust))
        && !ty.has_any_impl(db, trait_, &[])
}

/// Whether every impl for the types of `krate` is in sight.
fn trusted(db: &RootDatabase, krate: Crate, trust: &Trust) -> bool {
    if krate.origin(db).is_lang() {
        return true;
    }
    let Some(name) = krate.display_name(db) else {
        return false;
    };
    !trust
        .build_scripts
        .iter()
        .any(|b| b == name.crate_name().as_str())
        && !reaches_proc_macros(db, krate)
}

/// Whether `krate` can use a proc macro: one of its dependencies, direct or
/// not (`serde` re-exports `serde_derive`), is a proc-macro crate.
fn reaches_proc_macros(db: &RootDatabase, krate: Crate) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![krate];
    while let Some(next) = stack.pop() {
        if !seen.insert(next) {
            continue;
        }
        if next.base().data(db).is_proc_macro {
            return true;
        }
        stack.extend(next.dependencies(db).into_iter().map(|dep| dep.krate));
    }
    false
}

/// Whether rust-analyzer sees every impl that could apply to `ty`: a "no"
/// for it is then believed.
fn definite(db: &RootDatabase, ty: &Type<'_>, trust: &Trust) -> bool {
    if ty.as_type_param(db).is_some() {
        // Only its bounds (in sight, in the function's where clauses) give it traits.
        return true;
    }
    if ty.as_associated_type_parent_trait(db).is_some() {
        // Left after inference, an associated type of type parameters
        // (`L::Item`) cannot be normalized: like a type parameter, only
        // bounds in sight give it traits. Of anything else, it might be
        // rust-analyzer's failure to normalize.
        let mut only_params = true;
        let mut first = true;
        ty.walk(db, |inner| {
            let is_self = std::mem::take(&mut first);
            if !is_self
                && inner.as_type_param(db).is_none()
                && inner.as_associated_type_parent_trait(db).is_none()
            {
                only_params = false;
            }
        });
        return only_params;
    }
    if ty.as_impl_traits(db).is_some() {
        return false;
    }
    if let Some(adt) = ty.as_adt() {
        return trusted(db, adt.module(db).krate(db), trust)
            && ty.type_arguments().all(|arg| definite(db, &arg, trust));
    }
    if ty.as_builtin().is_some() || ty.is_never() || ty.is_unit() {
        return true;
    }
    if ty.is_tuple() {
        return ty
            .tuple_fields(db)
            .iter()
            .all(|field| definite(db, field, trust));
    }
    if let Some(inner) = ty.as_reference_inner() {
        return definite(db, &inner, trust);
    }
    if let Some((element, _)) = ty.as_array(db) {
        return definite(db, &element, trust);
    }
    if let Some(element) = ty.as_slice() {
        return definite(db, &element, trust);
    }
    false
}
