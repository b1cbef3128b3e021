//! Whether a mutant can compile, from the types rust-analyzer infers for
//! the mutated function.

use ra_ap_hir::{Crate, HirDisplay, ModuleDef, PathResolution, Semantics, Trait, Type};
use ra_ap_ide_db::famous_defs::FamousDefs;
use ra_ap_ide_db::{FileId, RootDatabase};
use ra_ap_syntax::ast::{HasArgList, HasAttrs};
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

/// Stubs that call `Default::default()`, or a path (`Vec::leak`,
/// `Box::new`, `Poll::new`) that may not resolve where they are put or
/// take other arguments; operators swapped for one starting with `<`,
/// which does not parse after a cast (`x as usize << 2`).
pub(super) fn may_be_unviable(mutant: &Mutant) -> bool {
    match mutant.genre {
        Genre::FnValue => {
            mutant.replacement.contains(DEFAULT_CALL) || mutant.replacement.contains("::")
        }
        Genre::BinaryOperator => mutant.replacement.starts_with('<'),
        _ => false,
    }
}

/// Judges `mutant`, whose mutated text `mutated` the database holds as
/// `file`; `original_errors` are the syntax errors of the file unmutated
/// (see [`parse_errors`]).
pub(super) fn check(
    db: &RootDatabase,
    (file, original_errors): (FileId, &[String]),
    mutated: &str,
    mutant: &Mutant,
    trust: &Trust,
) -> Prediction {
    if let Some(error) =
        crate::mutate::new_parse_error(original_errors, mutated, crate::mutate::Edition::E2024)
    {
        return Prediction::Unviable(format!("the mutated code does not parse ({error})"));
    }
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
    let nodes = || {
        source
            .syntax()
            .descendants()
            .filter(move |node| inserted.contains_range(node.text_range()))
    };
    let stub = nodes().next();
    if stub
        .as_ref()
        .is_some_and(|stub| paths_resolve_completely(&sema, krate, stub, trust))
    {
        for path in nodes()
            .filter_map(ast::PathExpr::cast)
            .filter_map(|e| e.path())
        {
            if let Some(why) = unresolved(&sema, &path, trust) {
                return Prediction::Unviable(why);
            }
        }
    }
    for call in nodes().filter_map(ast::CallExpr::cast) {
        if let Some(why) = wrong_argument_count(&sema, &call) {
            return Prediction::Unviable(why);
        }
    }
    if let Some(why) = stub
        .as_ref()
        .and_then(|stub| other_type(&sema, stub, target))
    {
        return Prediction::Unviable(why);
    }
    if let Some(why) = stub
        .as_ref()
        .and_then(|stub| no_from_integer(&sema, stub, krate, trust))
    {
        return Prediction::Unviable(why);
    }
    for call in nodes()
        .filter_map(ast::CallExpr::cast)
        .filter(|call| call.syntax().text() == DEFAULT_CALL)
    {
        if in_const_fn(call.syntax()) && !uses_unstable_features(&sema, krate) {
            return Prediction::Unviable(
                "`Default::default()` cannot be called in a `const fn` (`Default` is not a \
                 const trait on stable Rust)"
                    .to_owned(),
            );
        }
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

/// The return type of the function `mutant` is in, displayed as the user
/// would write it, if rust-analyzer knows it fully.
pub(super) fn return_type(db: &RootDatabase, file: FileId, mutant: &Mutant) -> Option<String> {
    let sema = Semantics::new(db);
    let def = function_of(&sema, file, mutant)?;
    let returns = def.ret_type(db);
    if returns.contains_unknown() {
        return None;
    }
    let target = def.module(db).krate(db).to_display_target(db);
    Some(returns.display(db, target).to_string())
}

/// The function the start of `mutant`'s text is in, as rust-analyzer
/// defines it.
pub(super) fn function_of(
    sema: &Semantics<'_, RootDatabase>,
    file: FileId,
    mutant: &Mutant,
) -> Option<ra_ap_hir::Function> {
    let file = sema.attach_first_edition(file);
    let source = sema.parse(file);
    let offset = TextSize::new(u32::try_from(mutant.range.start).ok()?);
    let function = source
        .syntax()
        .token_at_offset(offset)
        .right_biased()?
        .parent_ancestors()
        .find_map(ast::Fn::cast)?;
    sema.to_def(&function)
}

/// The syntax errors of `text`, parsed as the newest edition.
pub(super) fn parse_errors(text: &str) -> Vec<String> {
    crate::mutate::parse_errors(text, crate::mutate::Edition::E2024)
}

/// Whether `node` is in the body of a `const fn` (not in a closure or
/// an item nested in it).
fn in_const_fn(node: &ra_ap_syntax::SyntaxNode) -> bool {
    for ancestor in node.ancestors() {
        if let Some(function) = ast::Fn::cast(ancestor.clone()) {
            return function.const_token().is_some();
        }
        if ast::ClosureExpr::can_cast(ancestor.kind()) || ast::Item::can_cast(ancestor.kind()) {
            return false;
        }
    }
    false
}

/// Whether the crate's root may enable an unstable feature that lets a
/// `const fn` call trait methods (`#![feature(const_trait_impl)]`, also
/// under `cfg_attr`): any feature named `const…` or `effects`.
fn uses_unstable_features(sema: &Semantics<'_, RootDatabase>, krate: Crate) -> bool {
    let root = sema.parse_guess_edition(krate.root_file(sema.db));
    root.attrs()
        .filter(|attr| attr.excl_token().is_some())
        .any(|attr| {
            let text: String = attr
                .syntax()
                .to_string()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            text.split("feature(").skip(1).any(|list| {
                list.split(')')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .any(|name| name.starts_with("const") || name == "effects")
            })
        })
}

/// Why `call` cannot compile if its callee is a function that takes
/// another number of arguments (`NonNull::new()`).
fn wrong_argument_count(
    sema: &Semantics<'_, RootDatabase>,
    call: &ast::CallExpr,
) -> Option<String> {
    let ast::Expr::PathExpr(callee) = call.expr()? else {
        return None;
    };
    let path = callee.path()?;
    let PathResolution::Def(ModuleDef::Function(function)) = sema.resolve_path(&path)? else {
        return None;
    };
    let wanted = function.assoc_fn_params(sema.db).len();
    let given = call.arg_list()?.args().count();
    (wanted != given).then(|| {
        format!(
            "`{path}` takes {wanted} argument{}, the stub gives {given}",
            if wanted == 1 { "" } else { "s" }
        )
    })
}

/// Why the stub `node` cannot be the function's value if its type is
/// another type constructor than the return type (`Option<NonNull<u8>>`
/// for `NonNull<u8>`): values of two different structs or enums never
/// coerce to each other.
fn other_type(
    sema: &Semantics<'_, RootDatabase>,
    node: &ra_ap_syntax::SyntaxNode,
    target: ra_ap_hir::DisplayTarget,
) -> Option<String> {
    let expr = ast::Expr::cast(node.clone())?;
    let returns = whole_value_of(sema, node)?;
    let stub = sema.type_of_expr(&expr)?.original;
    // Unknown type arguments do not matter: `Option<_>` is never a
    // `NonNull<_>`, whatever the `_`.
    let (stub_adt, returns_adt) = (stub.as_adt()?, returns.as_adt()?);
    (stub_adt != returns_adt).then(|| {
        format!(
            "the stub builds a value of type `{}`, but the function returns `{}`",
            stub_adt
                .name(sema.db)
                .display(sema.db, ra_ap_syntax::Edition::CURRENT),
            returns.display(sema.db, target)
        )
    })
}

/// The return type of the function whose whole value `node` is: its body
/// holds only this expression (and it is not `async`).
fn whole_value_of<'db>(
    sema: &Semantics<'db, RootDatabase>,
    node: &ra_ap_syntax::SyntaxNode,
) -> Option<Type<'db>> {
    let function = node.ancestors().find_map(ast::Fn::cast)?;
    let body = function.body()?;
    let value = body.stmt_list()?.tail_expr()?;
    if value.syntax() != node || body.stmt_list()?.statements().next().is_some() {
        return None;
    }
    if function.async_token().is_some() {
        return None;
    }
    Some(sema.to_def(&function)?.ret_type(sema.db))
}

/// Why a stub `T::from(0)` (the function's whole value) cannot compile:
/// the return type implements `From` only for types an integer literal
/// cannot be (`NonNull<u8>`: from references).
fn no_from_integer(
    sema: &Semantics<'_, RootDatabase>,
    node: &ra_ap_syntax::SyntaxNode,
    krate: Crate,
    trust: &Trust,
) -> Option<String> {
    let call = ast::CallExpr::cast(node.clone())?;
    let ast::Expr::PathExpr(callee) = call.expr()? else {
        return None;
    };
    let path = callee.path()?;
    if path.qualifier().is_none() || path.segment()?.name_ref()?.text() != "from" {
        return None;
    }
    let mut args = call.arg_list()?.args();
    let (Some(ast::Expr::Literal(literal)), None) = (args.next(), args.next()) else {
        return None;
    };
    if !matches!(literal.kind(), ast::LiteralKind::IntNumber(_)) {
        return None;
    }
    let db = sema.db;
    let returns = whole_value_of(sema, node)?;
    let adt = returns.as_adt()?;
    if returns.contains_unknown() || !trusted(db, adt.module(db).krate(db), trust) {
        return None;
    }
    let from = FamousDefs(sema, krate).core_convert_From()?;
    for imp in ra_ap_hir::Impl::all_for_type(db, returns.clone()) {
        if imp.trait_(db) != Some(from) {
            continue;
        }
        let source = imp.trait_ref(db)?.get_type_argument(1)?;
        // Only a type an integer surely is not rules the impl out.
        let not_an_integer = source.as_reference_inner().is_some()
            || source.as_adt().is_some()
            || source.is_never()
            || source.is_unit()
            || source.is_tuple()
            || source.is_bool()
            || source.is_char()
            || source.is_str();
        if !not_an_integer {
            return None;
        }
    }
    let name = adt.name(db);
    Some(format!(
        "`{}` implements `From` for no integer type",
        name.display(db, ra_ap_syntax::Edition::CURRENT)
    ))
}

/// Why `path` (a path expression of the stub) names nothing, if it does:
/// its first segment names no item in scope (`Vec` in a `no_std` crate), or
/// a type has no associated item of that name (`Poll::new`).
fn unresolved(
    sema: &Semantics<'_, RootDatabase>,
    path: &ast::Path,
    trust: &Trust,
) -> Option<String> {
    if sema.resolve_path(path).is_some() {
        return None;
    }
    let first = path.first_qualifier_or_self();
    if sema.resolve_path(&first).is_none() {
        return Some(format!("`{first}` is not in scope"));
    }
    let qualifier = path.qualifier()?;
    let segment = path.segment()?;
    match sema.resolve_path(&qualifier)? {
        // Its inherent impls, and impls of traits for it, are in its crate
        // (or the trait's, in sight when imported: see
        // `paths_resolve_completely`).
        PathResolution::Def(ModuleDef::Adt(adt))
            if trusted(sema.db, adt.module(sema.db).krate(sema.db), trust) =>
        {
            Some(format!("`{qualifier}` has no associated item `{segment}`"))
        }
        _ => None,
    }
}

/// Whether every name in scope at `node` is in rust-analyzer's sight, so
/// that a path it cannot resolve there does not resolve: the crate's own
/// code is all there (no build script, no proc macros), and its module has
/// no glob import (which could bring names from a crate that is not) and
/// no import rust-analyzer cannot resolve.
fn paths_resolve_completely(
    sema: &Semantics<'_, RootDatabase>,
    krate: Crate,
    node: &ra_ap_syntax::SyntaxNode,
    trust: &Trust,
) -> bool {
    let Some(module) = node
        .ancestors()
        .find(|n| ast::ItemList::can_cast(n.kind()) || ast::SourceFile::can_cast(n.kind()))
    else {
        return false;
    };
    let imports_in_sight = module.children().filter_map(ast::Use::cast).all(|item| {
        item.syntax()
            .descendants()
            .filter_map(ast::UseTree::cast)
            .all(|tree| {
                tree.star_token().is_none()
                    && (tree.use_tree_list().is_some()
                        || tree.path().is_some_and(|p| sema.resolve_path(&p).is_some()))
            })
    });
    imports_in_sight && trusted(sema.db, krate, trust)
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
        && (trust.proc_macros || !reaches_proc_macros(db, krate))
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
pub(super) fn definite(db: &RootDatabase, ty: &Type<'_>, trust: &Trust) -> bool {
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
