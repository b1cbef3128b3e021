//! Type-driven stub values: what a function returning a type could return
//! instead of its body. The table follows cargo-mutants so that both tools
//! generate the same mutants; replacements are written in its rendering.

use ra_ap_syntax::ast::{self, AstNode, HasGenericArgs};

use super::pretty;

/// Stubs for a function's return type (`None`: no `->`, so `()`).
pub fn return_type_stubs(ret: Option<&ast::Type>, error_values: &[String]) -> Vec<String> {
    match ret {
        None => vec!["()".to_owned()],
        Some(ty) => type_stubs(ty, error_values),
    }
}

fn type_stubs(ty: &ast::Type, errors: &[String]) -> Vec<String> {
    match ty {
        ast::Type::PathType(path_type) => match path_type.path() {
            Some(path) => path_stubs(&path, errors),
            None => vec![DEFAULT.to_owned()],
        },
        ast::Type::ArrayType(array) => {
            let len = array
                .const_arg()
                .map(|len| pretty::node(len.syntax()))
                .unwrap_or_default();
            element_stubs(array.ty(), errors)
                .into_iter()
                .map(|stub| format!("[{stub}; {len}]"))
                .collect()
        }
        ast::Type::SliceType(slice) => leaked_vecs(slice.ty(), errors),
        ast::Type::RefType(reference) => match reference.ty() {
            Some(ast::Type::PathType(inner))
                if reference.mut_token().is_none()
                    && inner.path().is_some_and(|p| is_ident(&p, "str")) =>
            {
                vec!["\"\"".to_owned(), "\"xyzzy\"".to_owned()]
            }
            Some(ast::Type::SliceType(slice)) => leaked_vecs(slice.ty(), errors),
            inner => element_stubs(inner, errors)
                .into_iter()
                .map(|stub| format!("Box::leak(Box::new({stub}))"))
                .collect(),
        },
        ast::Type::TupleType(tuple) => {
            let mut products = vec![Vec::<String>::new()];
            for field in tuple.fields() {
                let stubs = type_stubs(&field, errors);
                products = products
                    .into_iter()
                    .flat_map(|prefix| {
                        stubs.iter().map(move |stub| {
                            let mut next = prefix.clone();
                            next.push(stub.clone());
                            next
                        })
                    })
                    .collect();
            }
            products
                .into_iter()
                .map(|parts| format!("({})", parts.join(", ")))
                .collect()
        }
        ast::Type::ImplTraitType(impl_trait) => match iterator_item(impl_trait) {
            Some(item) => std::iter::once("::std::iter::empty()".to_owned())
                .chain(
                    type_stubs(&item, errors)
                        .into_iter()
                        .map(|stub| format!("::std::iter::once({stub})")),
                )
                .collect(),
            None => Vec::new(),
        },
        ast::Type::NeverType(_) => Vec::new(),
        _ => vec![DEFAULT.to_owned()],
    }
}

const DEFAULT: &str = "Default::default()";

fn element_stubs(ty: Option<ast::Type>, errors: &[String]) -> Vec<String> {
    match ty {
        Some(ty) => type_stubs(&ty, errors),
        None => vec![DEFAULT.to_owned()],
    }
}

fn leaked_vecs(element: Option<ast::Type>, errors: &[String]) -> Vec<String> {
    std::iter::once("Vec::leak(Vec::new())".to_owned())
        .chain(
            element_stubs(element, errors)
                .into_iter()
                .map(|stub| format!("Vec::leak(vec![{stub}])")),
        )
        .collect()
}

const UNSIGNED: [&str; 6] = ["u8", "u16", "u32", "u64", "u128", "usize"];
const SIGNED: [&str; 6] = ["i8", "i16", "i32", "i64", "i128", "isize"];
const NONZERO_SIGNED: [&str; 6] = [
    "NonZeroIsize",
    "NonZeroI8",
    "NonZeroI16",
    "NonZeroI32",
    "NonZeroI64",
    "NonZeroI128",
];
const NONZERO_UNSIGNED: [&str; 6] = [
    "NonZeroUsize",
    "NonZeroU8",
    "NonZeroU16",
    "NonZeroU32",
    "NonZeroU64",
    "NonZeroU128",
];
const CONTAINERS: [&str; 6] = ["Box", "Cell", "RefCell", "Arc", "Rc", "Mutex"];
const COLLECTIONS: [&str; 5] = [
    "BinaryHeap",
    "BTreeSet",
    "HashSet",
    "LinkedList",
    "VecDeque",
];
const MAPS: [&str; 2] = ["BTreeMap", "HashMap"];

fn path_stubs(path: &ast::Path, errors: &[String]) -> Vec<String> {
    let any_ident = |names: &[&str]| names.iter().any(|name| is_ident(path, name));
    let last_owned = last_name(path).unwrap_or_default();
    let last = last_owned.as_str();
    let strings = |values: &[&str]| values.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>();
    let recurse = |ty: &ast::Type, wrap: &dyn Fn(&str) -> String| -> Vec<String> {
        type_stubs(ty, errors).iter().map(|s| wrap(s)).collect()
    };
    if is_ident(path, "bool") {
        strings(&["true", "false"])
    } else if is_ident(path, "String") {
        strings(&["String::new()", "\"xyzzy\".into()"])
    } else if is_ident(path, "str") {
        strings(&["\"\"", "\"xyzzy\""])
    } else if any_ident(&UNSIGNED) {
        strings(&["0", "1"])
    } else if any_ident(&SIGNED) {
        strings(&["0", "1", "-1"])
    } else if NONZERO_SIGNED.contains(&last) {
        strings(&["1.try_into().unwrap()", "(-1).try_into().unwrap()"])
    } else if NONZERO_UNSIGNED.contains(&last) {
        strings(&["1.try_into().unwrap()"])
    } else if let Some(inner) = first_type_arg(path, "NonZero") {
        let unsigned_inner = matches!(&inner, ast::Type::PathType(p)
            if p.path().is_some_and(|p| UNSIGNED.iter().any(|name| is_ident(&p, name))));
        if unsigned_inner {
            strings(&["1.try_into().unwrap()"])
        } else {
            strings(&["1.try_into().unwrap()", "(-1).try_into().unwrap()"])
        }
    } else if any_ident(&["f32", "f64"]) {
        strings(&["0.0", "1.0", "-1.0"])
    } else if last == "Result" {
        let mut stubs = match first_type_arg(path, "Result") {
            Some(ok) => recurse(&ok, &|s| format!("Ok({s})")),
            None => strings(&["Ok(Default::default())"]),
        };
        stubs.extend(errors.iter().map(|error| format!("Err({error})")));
        stubs
    } else if last == "HttpResponse" {
        strings(&["HttpResponse::Ok().finish()"])
    } else if let Some(inner) = first_type_arg(path, "Option") {
        std::iter::once("None".to_owned())
            .chain(recurse(&inner, &|s| format!("Some({s})")))
            .collect()
    } else if let Some(inner) = first_type_arg(path, "Vec") {
        std::iter::once("vec![]".to_owned())
            .chain(recurse(&inner, &|s| format!("vec![{s}]")))
            .collect()
    } else if let Some(inner) = first_type_arg(path, "Cow") {
        type_stubs(&inner, errors)
            .iter()
            .flat_map(|s| {
                [
                    format!("Cow::Borrowed({s})"),
                    format!("Cow::Owned({s}.to_owned())"),
                ]
            })
            .collect()
    } else if let Some(inner) = sole_type_arg_of(path, &CONTAINERS) {
        recurse(&inner, &|s| format!("{last}::new({s})"))
    } else if let Some(inner) = sole_type_arg_of(path, &COLLECTIONS) {
        std::iter::once(format!("{last}::new()"))
            .chain(recurse(&inner, &|s| format!("{last}::from_iter([{s}])")))
            .collect()
    } else if let Some((key, value)) = map_args(path) {
        let keys = type_stubs(&key, errors);
        let values = type_stubs(&value, errors);
        std::iter::once(format!("{last}::new()"))
            .chain(keys.iter().flat_map(|k| {
                values
                    .iter()
                    .map(move |v| format!("{last}::from_iter([({k}, {v})])"))
            }))
            .collect()
    } else if let Some(inner) = only_type_arg(path) {
        std::iter::once(format!("{last}::new()"))
            .chain(type_stubs(&inner, errors).iter().flat_map(|s| {
                [
                    format!("{last}::from_iter([{s}])"),
                    format!("{last}::new({s})"),
                    format!("{last}::from({s})"),
                ]
            }))
            .collect()
    } else {
        vec![DEFAULT.to_owned()]
    }
}

/// True for a plain one-segment path with no generic arguments, like `bool`.
fn is_ident(path: &ast::Path, name: &str) -> bool {
    path.qualifier().is_none()
        && path.segment().is_some_and(|segment| {
            segment.coloncolon_token().is_none()
                && segment.generic_arg_list().is_none()
                && segment.name_ref().is_some_and(|n| n.text() == name)
        })
}

fn last_name(path: &ast::Path) -> Option<String> {
    Some(path.segment()?.name_ref()?.text().to_string())
}

fn generic_args(path: &ast::Path) -> Vec<ast::GenericArg> {
    path.segment()
        .and_then(|segment| segment.generic_arg_list())
        .map(|list| list.generic_args().collect())
        .unwrap_or_default()
}

/// The first type argument of a path ending in `name`, passing over lifetimes.
fn first_type_arg(path: &ast::Path, name: &str) -> Option<ast::Type> {
    if last_name(path)? != name {
        return None;
    }
    for arg in generic_args(path) {
        match arg {
            ast::GenericArg::TypeArg(type_arg) => return type_arg.ty(),
            ast::GenericArg::LifetimeArg(_) => (),
            _ => return None,
        }
    }
    None
}

/// The argument of `X<T>` where `X` is one of `names` and `T` its only argument.
fn sole_type_arg_of(path: &ast::Path, names: &[&str]) -> Option<ast::Type> {
    if !names.contains(&last_name(path)?.as_str()) {
        return None;
    }
    match generic_args(path).as_slice() {
        [ast::GenericArg::TypeArg(type_arg)] => type_arg.ty(),
        _ => None,
    }
}

fn map_args(path: &ast::Path) -> Option<(ast::Type, ast::Type)> {
    if !MAPS.contains(&last_name(path)?.as_str()) {
        return None;
    }
    match generic_args(path).as_slice() {
        [ast::GenericArg::TypeArg(key), ast::GenericArg::TypeArg(value)] => {
            Some((key.ty()?, value.ty()?))
        }
        _ => None,
    }
}

/// The type argument of `T<A>` or `T<'a, A>`: a generic we can only guess how to build.
fn only_type_arg(path: &ast::Path) -> Option<ast::Type> {
    let types: Vec<ast::Type> = generic_args(path)
        .into_iter()
        .filter_map(|arg| match arg {
            ast::GenericArg::TypeArg(type_arg) => type_arg.ty(),
            _ => None,
        })
        .collect();
    match <[ast::Type; 1]>::try_from(types) {
        Ok([only]) => Some(only),
        Err(_) => None,
    }
}

/// `T` in `impl Iterator<Item = T>` (the first bound that is such an iterator).
fn iterator_item(impl_trait: &ast::ImplTraitType) -> Option<ast::Type> {
    impl_trait.type_bound_list()?.bounds().find_map(|bound| {
        let path = match bound.ty()? {
            ast::Type::PathType(path_type) => path_type.path()?,
            _ => return None,
        };
        if last_name(&path)? != "Iterator" {
            return None;
        }
        match generic_args(&path).first()? {
            ast::GenericArg::AssocTypeArg(assoc)
                if assoc.name_ref().is_some_and(|n| n.text() == "Item") =>
            {
                assoc.ty()
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use ra_ap_syntax::{ast, AstNode, Edition, SourceFile};

    use super::return_type_stubs;

    fn stubs_with_errors(ret: &str, errors: &[&str]) -> Vec<String> {
        let text = format!("fn f() {ret} {{ todo!() }}");
        let file = SourceFile::parse(&text, Edition::CURRENT).tree();
        let function = file.syntax().descendants().find_map(ast::Fn::cast).unwrap();
        let ty = function.ret_type().and_then(|r| r.ty());
        let errors: Vec<String> = errors.iter().map(|e| (*e).to_owned()).collect();
        return_type_stubs(ty.as_ref(), &errors)
    }

    fn stubs(ret: &str) -> Vec<String> {
        stubs_with_errors(ret, &[])
    }

    #[test]
    fn stubs_by_return_type() {
        let table: &[(&str, &[&str])] = &[
            ("", &["()"]),
            ("-> ()", &["()"]),
            ("-> bool", &["true", "false"]),
            ("-> u8", &["0", "1"]),
            ("-> usize", &["0", "1"]),
            ("-> i64", &["0", "1", "-1"]),
            ("-> f32", &["0.0", "1.0", "-1.0"]),
            ("-> NonZeroU32", &["1.try_into().unwrap()"]),
            (
                "-> std::num::NonZeroI8",
                &["1.try_into().unwrap()", "(-1).try_into().unwrap()"],
            ),
            ("-> NonZero<u16>", &["1.try_into().unwrap()"]),
            (
                "-> NonZero<i16>",
                &["1.try_into().unwrap()", "(-1).try_into().unwrap()"],
            ),
            ("-> String", &["String::new()", "\"xyzzy\".into()"]),
            ("-> &str", &["\"\"", "\"xyzzy\""]),
            ("-> &'static str", &["\"\"", "\"xyzzy\""]),
            ("-> Option<bool>", &["None", "Some(true)", "Some(false)"]),
            (
                "-> Option<&'a str>",
                &["None", "Some(\"\")", "Some(\"xyzzy\")"],
            ),
            ("-> Result<u8, E>", &["Ok(0)", "Ok(1)"]),
            ("-> fmt::Result", &["Ok(Default::default())"]),
            ("-> io::Result<()>", &["Ok(())"]),
            (
                "-> Vec<String>",
                &["vec![]", "vec![String::new()]", "vec![\"xyzzy\".into()]"],
            ),
            (
                "-> &[u8]",
                &[
                    "Vec::leak(Vec::new())",
                    "Vec::leak(vec![0])",
                    "Vec::leak(vec![1])",
                ],
            ),
            (
                "-> &mut [bool]",
                &[
                    "Vec::leak(Vec::new())",
                    "Vec::leak(vec![true])",
                    "Vec::leak(vec![false])",
                ],
            ),
            (
                "-> &u32",
                &["Box::leak(Box::new(0))", "Box::leak(Box::new(1))"],
            ),
            ("-> &mut Foo", &["Box::leak(Box::new(Default::default()))"]),
            ("-> Box<u8>", &["Box::new(0)", "Box::new(1)"]),
            ("-> Arc<str>", &["Arc::new(\"\")", "Arc::new(\"xyzzy\")"]),
            (
                "-> std::rc::Rc<String>",
                &["Rc::new(String::new())", "Rc::new(\"xyzzy\".into())"],
            ),
            ("-> Box<dyn Error>", &["Box::new(Default::default())"]),
            ("-> Mutex<bool>", &["Mutex::new(true)", "Mutex::new(false)"]),
            (
                "-> HashSet<u8>",
                &[
                    "HashSet::new()",
                    "HashSet::from_iter([0])",
                    "HashSet::from_iter([1])",
                ],
            ),
            (
                "-> VecDeque<bool>",
                &[
                    "VecDeque::new()",
                    "VecDeque::from_iter([true])",
                    "VecDeque::from_iter([false])",
                ],
            ),
            (
                "-> BTreeMap<u8, bool>",
                &[
                    "BTreeMap::new()",
                    "BTreeMap::from_iter([(0, true)])",
                    "BTreeMap::from_iter([(0, false)])",
                    "BTreeMap::from_iter([(1, true)])",
                    "BTreeMap::from_iter([(1, false)])",
                ],
            ),
            (
                "-> Cow<'static, str>",
                &[
                    "Cow::Borrowed(\"\")",
                    "Cow::Owned(\"\".to_owned())",
                    "Cow::Borrowed(\"xyzzy\")",
                    "Cow::Owned(\"xyzzy\".to_owned())",
                ],
            ),
            (
                "-> (bool, u8)",
                &["(true, 0)", "(true, 1)", "(false, 0)", "(false, 1)"],
            ),
            ("-> [u8; 3]", &["[0; 3]", "[1; 3]"]),
            ("-> [bool; N]", &["[true; N]", "[false; N]"]),
            (
                "-> impl Iterator<Item = u8>",
                &[
                    "::std::iter::empty()",
                    "::std::iter::once(0)",
                    "::std::iter::once(1)",
                ],
            ),
            ("-> impl Display", &[]),
            ("-> !", &[]),
            (
                "-> Wrapper<bool>",
                &[
                    "Wrapper::new()",
                    "Wrapper::from_iter([true])",
                    "Wrapper::new(true)",
                    "Wrapper::from(true)",
                    "Wrapper::from_iter([false])",
                    "Wrapper::new(false)",
                    "Wrapper::from(false)",
                ],
            ),
            ("-> Self", &["Default::default()"]),
            ("-> HashMap<K, V, S>", &["Default::default()"]),
            ("-> dyn Fn()", &["Default::default()"]),
            ("-> HttpResponse", &["HttpResponse::Ok().finish()"]),
        ];
        for (ret, expected) in table {
            assert_eq!(stubs(ret), *expected, "stubs for `{ret}`");
        }
    }

    #[test]
    fn result_stubs_end_with_configured_error_values() {
        assert_eq!(
            stubs_with_errors("-> Result<bool, String>", &["\"oops\".into()"]),
            ["Ok(true)", "Ok(false)", "Err(\"oops\".into())"]
        );
        assert_eq!(
            stubs_with_errors("-> Option<bool>", &["\"oops\".into()"]),
            ["None", "Some(true)", "Some(false)"]
        );
    }
}
