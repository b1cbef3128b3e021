//! Walks a file's syntax tree and collects mutants, module declarations and
//! warnings. Pre-order, so mutants come in source order.

use std::ops::Range;
use std::sync::Arc;

use ra_ap_syntax::ast::{self, HasAttrs, HasName, HasVisibility};
use ra_ap_syntax::{
    AstNode, AstToken, NodeOrToken, SyntaxKind, SyntaxNode, SyntaxToken, TextRange,
};
use regex::Regex;

use super::attrs;
use super::constant;
use super::operators;
use super::pretty;
use super::stub;
use super::{
    Edition, FileMutants, Function, GenerateOptions, Genre, ModuleName, ModuleRef, Mutant,
    SourceFile, Switch, Warning,
};
use crate::position::SourceIndex;

/// The file's test code: the text of items that are tests or test-only
/// modules, and every doc comment (doctests), in order. Results of mutants
/// depend on it.
pub fn test_code(code: &str, edition: Edition) -> String {
    let parse = ra_ap_syntax::SourceFile::parse(code, ra_edition(edition));
    let mut out = String::new();
    let mut preorder = parse.syntax_node().preorder_with_tokens();
    while let Some(event) = preorder.next() {
        let ra_ap_syntax::WalkEvent::Enter(element) = event else {
            continue;
        };
        match element {
            ra_ap_syntax::NodeOrToken::Node(node) => {
                let Some(owner) = ast::AnyHasAttrs::cast(node.clone()) else {
                    continue;
                };
                if attrs::examine(owner.attrs()).is_test {
                    out.push_str(&node.text().to_string());
                    out.push('\n');
                    preorder.skip_subtree();
                }
            }
            ra_ap_syntax::NodeOrToken::Token(token) => {
                if ast::Comment::cast(token.clone()).is_some_and(|c| c.kind().doc.is_some()) {
                    out.push_str(token.text());
                    out.push('\n');
                }
            }
        }
    }
    out
}

pub fn cfgs_at(source_file: &SourceFile, ranges: &[Range<usize>]) -> Vec<Vec<String>> {
    let parse = ra_ap_syntax::SourceFile::parse(&source_file.code, ra_edition(source_file.edition));
    let root = parse.syntax_node();
    let end = usize::from(root.text_range().end());
    ranges
        .iter()
        .map(|range| {
            let (Ok(start), Ok(stop)) = (u32::try_from(range.start), u32::try_from(range.end))
            else {
                return Vec::new();
            };
            if range.start > range.end || range.end > end {
                return Vec::new();
            }
            let covering = root.covering_element(TextRange::new(start.into(), stop.into()));
            let node = match covering {
                NodeOrToken::Node(node) => Some(node),
                NodeOrToken::Token(token) => token.parent(),
            };
            node.map(|node| attrs::cfg_predicates_around(&node))
                .unwrap_or_default()
        })
        .collect()
}

pub fn discover(source_file: &Arc<SourceFile>, options: &GenerateOptions) -> FileMutants {
    let parse = ra_ap_syntax::SourceFile::parse(&source_file.code, ra_edition(source_file.edition));
    let index = SourceIndex::new(&source_file.code);
    let mut out = FileMutants::default();
    // `errors()` validates the whole tree each time it is called: call it once.
    let errors = parse.errors();
    let error_ranges: Vec<TextRange> = errors.iter().map(|e| e.range()).collect();
    for error in errors {
        let at = index.line_column(u32::from(error.range().start()) as usize);
        out.warnings.push(Warning {
            path: source_file.path.clone(),
            line: at.line,
            column: at.column,
            message: format!("syntax error: {error}; functions containing errors yield no mutants"),
        });
    }
    let mut walker = Walker {
        source_file,
        index,
        options,
        error_ranges,
        namespace: Vec::new(),
        functions: Vec::new(),
        modules: Vec::new(),
        exclude_res: Vec::new(),
        removable_consts: Vec::new(),
        out,
    };
    walker.visit(parse.tree().syntax());
    walker.out
}

pub fn render_expression(text: &str) -> Result<String, String> {
    let wrapped = format!("fn f() {{ {text} }}");
    let parse = ra_ap_syntax::SourceFile::parse(&wrapped, ra_ap_syntax::Edition::CURRENT);
    if let Some(error) = parse.errors().first() {
        return Err(error.to_string());
    }
    let tail = parse
        .tree()
        .syntax()
        .descendants()
        .find_map(ast::Fn::cast)
        .and_then(|function| function.body()?.stmt_list())
        .filter(|list| list.statements().next().is_none())
        .and_then(|list| list.tail_expr())
        .ok_or_else(|| "not a single expression".to_owned())?;
    Ok(pretty::node(tail.syntax()))
}

pub(super) fn ra_edition(edition: Edition) -> ra_ap_syntax::Edition {
    match edition {
        Edition::E2015 => ra_ap_syntax::Edition::Edition2015,
        Edition::E2018 => ra_ap_syntax::Edition::Edition2018,
        Edition::E2021 => ra_ap_syntax::Edition::Edition2021,
        Edition::E2024 => ra_ap_syntax::Edition::Edition2024,
    }
}

struct Walker<'a> {
    source_file: &'a Arc<SourceFile>,
    index: SourceIndex,
    options: &'a GenerateOptions,
    error_ranges: Vec<TextRange>,
    /// Modules, types, traits and functions around the current node.
    namespace: Vec<String>,
    functions: Vec<Arc<Function>>,
    /// Inline modules around the current node, for `mod x;` paths.
    modules: Vec<ModuleName>,
    /// Patterns from `#[mutants::exclude_re]` on enclosing items.
    exclude_res: Vec<Regex>,
    /// For each function around the current node: the range of its
    /// `const` keyword when a switched build may remove it.
    removable_consts: Vec<Option<Range<usize>>>,
    out: FileMutants,
}

impl Walker<'_> {
    fn visit(&mut self, node: &SyntaxNode) {
        if matches!(node.kind(), SyntaxKind::ATTR | SyntaxKind::ERROR) {
            return;
        }
        let mut pushed_res = 0;
        if let Some(owner) = ast::AnyHasAttrs::cast(node.clone()) {
            let verdict = attrs::examine(owner.attrs());
            if verdict.skip {
                return;
            }
            for pattern in verdict.exclude_res {
                match Regex::new(&pattern) {
                    Ok(regex) => {
                        self.exclude_res.push(regex);
                        pushed_res += 1;
                    }
                    Err(err) => self.warn(node, format!("invalid mutants::exclude_re: {err}")),
                }
            }
        }
        self.visit_kind(node);
        self.exclude_res
            .truncate(self.exclude_res.len() - pushed_res);
    }

    fn visit_children(&mut self, node: &SyntaxNode) {
        for child in node.children() {
            self.visit(&child);
        }
    }

    fn visit_kind(&mut self, node: &SyntaxNode) {
        let node = node.clone();
        match node.kind() {
            SyntaxKind::FN => self.visit_fn(&cast(node)),
            SyntaxKind::IMPL => self.visit_impl(&cast(node)),
            SyntaxKind::TRAIT => self.visit_trait(&cast(node)),
            SyntaxKind::MODULE => self.visit_module(&cast(node)),
            SyntaxKind::BIN_EXPR => self.visit_binary(&cast(node)),
            SyntaxKind::PREFIX_EXPR => self.visit_prefix(&cast(node)),
            SyntaxKind::MATCH_EXPR => self.visit_match(&cast(node)),
            SyntaxKind::RECORD_EXPR => self.visit_record(&cast(node)),
            SyntaxKind::CONST | SyntaxKind::STATIC if self.has_error(&node) => (),
            _ if self.is_skipped_call(&node) => (),
            _ => self.visit_children(&node),
        }
    }

    fn visit_fn(&mut self, function: &ast::Fn) {
        if function.unsafe_token().is_some() || self.has_error(function.syntax()) {
            return;
        }
        let Some(name) = function.name() else { return };
        let Some(body) = function.body() else { return };
        let Some(stmt_list) = body.stmt_list() else {
            return;
        };
        let statements: Vec<SyntaxNode> = stmt_list
            .statements()
            .map(|s| s.syntax().clone())
            .chain(stmt_list.tail_expr().map(|e| e.syntax().clone()))
            .collect();
        let (Some(first), Some(last)) = (statements.first(), statements.last()) else {
            return; // An empty body has nothing to replace.
        };
        let is_associated = function
            .syntax()
            .parent()
            .is_some_and(|parent| parent.kind() == SyntaxKind::ASSOC_ITEM_LIST);
        if is_associated && name.text() == "new" {
            return; // Constructors rarely have a good alternative value.
        }
        self.namespace.push(name.text().to_string());
        let range = trimmed_range(function.syntax());
        let ret = function.ret_type();
        let return_type = ret
            .as_ref()
            .map(|ret| pretty::node(ret.syntax()))
            .unwrap_or_default();
        let entered = Arc::new(Function {
            function_name: self.namespace.join("::"),
            return_type,
            span: self.span(range),
        });
        self.functions.push(Arc::clone(&entered));

        let body_range = TextRange::new(trimmed_range(first).start(), trimmed_range(last).end());
        let removable = removable_const(function);
        let body_switch = if function.const_token().is_some() && removable.is_none() {
            Switch::Alone(IN_CONST_FN)
        } else if ret.as_ref().is_some_and(|ret| {
            ret.syntax()
                .descendants()
                .any(|n| n.kind() == SyntaxKind::IMPL_TRAIT_TYPE)
        }) {
            Switch::Alone(
                "its function returns impl Trait, one concrete type that the stub may not be",
            )
        } else {
            self.expression_switch(function.syntax(), body_range, true)
        };
        self.removable_consts.push(removable);
        let ret_type = ret.and_then(|ret| ret.ty());
        let stubs = stub::return_type_stubs(ret_type.as_ref(), &self.options.error_values);
        let longest_stub = stubs.iter().map(String::len).max().unwrap_or(0);
        let body_text = short_text(stmt_list.syntax(), body_range, longest_stub);
        for stub in stubs {
            if body_text.as_deref() != Some(stub.as_str()) {
                let description = super::function_value_description(&entered, &stub);
                self.push(
                    body_range,
                    stub,
                    Genre::FnValue,
                    description,
                    body_switch.clone(),
                );
            }
        }
        self.visit(body.syntax());
        self.removable_consts.pop();
        self.functions.pop();
        self.namespace.pop();
    }

    fn visit_impl(&mut self, imp: &ast::Impl) {
        let self_ty = imp
            .self_ty()
            .map(|ty| pretty::node(ty.syntax()))
            .unwrap_or_default();
        let name = match imp.trait_() {
            Some(trait_ty) => {
                let trait_name = pretty::node(trait_ty.syntax());
                if trait_name.rsplit("::").next() == Some("Default") {
                    return; // There is rarely another good default.
                }
                format!("<impl {trait_name} for {self_ty}>")
            }
            None => self_ty,
        };
        self.in_namespace(name, |walker| walker.visit_children(imp.syntax()));
    }

    fn visit_trait(&mut self, tr: &ast::Trait) {
        let name = tr.name().map(|n| n.text().to_string()).unwrap_or_default();
        self.in_namespace(name, |walker| walker.visit_children(tr.syntax()));
    }

    fn visit_module(&mut self, module: &ast::Module) {
        let Some(name) = module.name() else { return };
        let name = name.text().trim_start_matches("r#").to_owned();
        let module_name = ModuleName {
            name: name.clone(),
            path_attribute: path_attribute(module),
            span: self.span(trimmed_range(module.syntax())),
        };
        self.modules.push(module_name);
        if module.item_list().is_none() {
            self.out.module_refs.push(ModuleRef {
                parts: self.modules.clone(),
                cfgs: attrs::cfg_predicates_around(module.syntax()),
            });
        }
        self.in_namespace(name, |walker| walker.visit_children(module.syntax()));
        self.modules.pop();
    }

    fn visit_binary(&mut self, bin: &ast::BinExpr) {
        if let Some(op) = bin.op_token() {
            for replacement in operators::binary_replacements(op.text()) {
                let description = format!("replace {} with {replacement}", op.text());
                let switch = self.operator_switch(bin.syntax(), (op.text_range(), replacement));
                self.push_at_token(&op, replacement, Genre::BinaryOperator, description, switch);
            }
        }
        self.visit_children(bin.syntax());
    }

    fn visit_prefix(&mut self, prefix: &ast::PrefixExpr) {
        if let Some(op) = prefix.op_token() {
            if operators::unary_is_deleted(op.text()) {
                let description = format!("delete {}", op.text());
                let switch = self.operator_switch(prefix.syntax(), (op.text_range(), ""));
                self.push_at_token(&op, "", Genre::UnaryOperator, description, switch);
            }
        }
        self.visit_children(prefix.syntax());
    }

    fn visit_match(&mut self, m: &ast::MatchExpr) {
        let arms: Vec<ast::MatchArm> = m
            .match_arm_list()
            .map(|list| list.arms().collect())
            .unwrap_or_default();
        let is_wild = |arm: &ast::MatchArm| matches!(arm.pat(), Some(ast::Pat::WildcardPat(_)));
        // Deleting an arm is viable only when a catch-all takes over; a guarded
        // arm is covered by the guard mutants instead.
        if arms.iter().any(is_wild) {
            for arm in arms.iter().filter(|a| !is_wild(a) && a.guard().is_none()) {
                let pattern = arm
                    .pat()
                    .map(|p| pretty::node(p.syntax()))
                    .unwrap_or_default();
                let description = format!("delete match arm {}", squash_lines(&pattern));
                let switch = match (const_context(arm.syntax()), arm.pat()) {
                    (Some(why), _) => Switch::Alone(why),
                    (None, Some(pat)) => Switch::ArmGuard {
                        at: u32::from(trimmed_range(pat.syntax()).end()) as usize,
                    },
                    (None, None) => Switch::Alone("its match arm has no pattern"),
                };
                self.push(
                    trimmed_range(arm.syntax()),
                    "".into(),
                    Genre::MatchArm,
                    description,
                    switch,
                );
            }
        }
        for guard in arms.iter().filter_map(ast::MatchArm::guard) {
            let Some(condition) = guard.syntax().children().find_map(ast::Expr::cast) else {
                continue;
            };
            let range = trimmed_range(condition.syntax());
            let original = squash_lines(&self.source_file.code[text_range(range)]);
            let switch = self.expression_switch(condition.syntax(), range, false);
            for value in ["true", "false"] {
                let description = format!("replace match guard {original} with {value}");
                self.push(
                    range,
                    value.into(),
                    Genre::MatchArmGuard,
                    description,
                    switch.clone(),
                );
            }
        }
        self.visit_children(m.syntax());
    }

    fn visit_record(&mut self, record: &ast::RecordExpr) {
        if let Some(fields) = record
            .record_expr_field_list()
            .filter(|list| list.spread().is_some())
        {
            let struct_name = record
                .path()
                .map(|p| pretty::node(p.syntax()))
                .unwrap_or_default();
            for field in fields.fields() {
                let Some(field_name) = field.field_name() else {
                    continue;
                };
                let field_name = field_name.text().to_string();
                if field_name.starts_with(|c: char| c.is_ascii_digit()) {
                    continue; // Tuple-struct fields by number.
                }
                let mut range = trimmed_range(field.syntax());
                if let Some(comma) =
                    next_token(field.syntax()).filter(|t| t.kind() == SyntaxKind::COMMA)
                {
                    range = range.cover(comma.text_range());
                }
                let description =
                    format!("delete field {field_name} from struct {struct_name} expression");
                let switch =
                    Switch::Alone("a deleted field of a struct expression cannot be switched");
                self.push(
                    range,
                    String::new(),
                    Genre::StructField,
                    description,
                    switch,
                );
            }
        }
        self.visit_children(record.syntax());
    }

    /// Calls named in `skip_calls`, like `Vec::with_capacity(n)`: nothing inside is mutated.
    fn is_skipped_call(&self, node: &SyntaxNode) -> bool {
        let name = if let Some(call) = ast::CallExpr::cast(node.clone()) {
            match call.expr() {
                Some(ast::Expr::PathExpr(path)) => path
                    .path()
                    .and_then(|p| p.segment())
                    .and_then(|s| s.name_ref())
                    .map(|n| n.text().to_string()),
                _ => None,
            }
        } else if let Some(call) = ast::MethodCallExpr::cast(node.clone()) {
            call.name_ref().map(|n| n.text().to_string())
        } else {
            None
        };
        name.is_some_and(|name| self.options.skip_calls.contains(&name))
    }

    fn in_namespace(&mut self, name: String, f: impl FnOnce(&mut Self)) {
        self.namespace.push(name);
        f(self);
        self.namespace.pop();
    }

    fn has_error(&self, node: &SyntaxNode) -> bool {
        let range = node.text_range();
        self.error_ranges
            .iter()
            .any(|error| range.contains_range(*error) || range.contains(error.start()))
    }

    fn span(&self, range: TextRange) -> crate::position::Span {
        let range = text_range(range);
        self.index.span(range.start, range.end)
    }

    fn warn(&mut self, node: &SyntaxNode, message: String) {
        let at = self.span(trimmed_range(node)).start;
        self.out.warnings.push(Warning {
            path: self.source_file.path.clone(),
            line: at.line,
            column: at.column,
            message,
        });
    }

    fn push_at_token(
        &mut self,
        token: &SyntaxToken,
        replacement: &str,
        genre: Genre,
        description: String,
        switch: Switch,
    ) {
        self.push(
            token.text_range(),
            replacement.to_owned(),
            genre,
            description,
            switch,
        );
    }

    /// The switch of an operator mutant. A mutant is the source with one
    /// operator token replaced, parsed again: the new operator may group
    /// differently with its neighbours (`a + b + c` with the second `+` made
    /// `*` is `a + (b * c)`), so the switch holds the whole run of operators
    /// around it, up to the nearest parentheses, call, block or statement.
    /// A run of constants stays alone: the compiler checks constant
    /// arithmetic for overflow and bounds at build time, in a switched-off
    /// branch too, unless the mutant's values stay within the original's
    /// (`constant::mutation_fits`). `op` is the replaced token's range and
    /// its replacement.
    fn operator_switch(&self, node: &SyntaxNode, op: (TextRange, &str)) -> Switch {
        let region = operator_run(node, false);
        let edition = ra_edition(self.source_file.edition);
        if let Some(why) = const_context(&region) {
            let mutated = mutated_const(&region, op, edition);
            if mutated.as_ref().is_some_and(MutatedConst::loops) {
                return Switch::Alone(LOOPING_CONST);
            }
            return mutated
                .and_then(|item| const_uses(&item).or_else(|| crate_const(&item)))
                .unwrap_or(Switch::Alone(why));
        }
        if is_constant(&region) && !constant::mutation_fits(&region, op.0, op.1, edition) {
            return Switch::Alone(
                "its operands are constants, whose arithmetic the compiler checks at build time",
            );
        }
        self.expression_switch(&region, trimmed_range(&region), false)
    }

    /// An expression switch over `range`, unless `node` is evaluated at
    /// compile time.
    fn expression_switch(&self, node: &SyntaxNode, range: TextRange, body: bool) -> Switch {
        match const_context(node) {
            Some(why) => Switch::Alone(why),
            None => Switch::Expression {
                site: text_range(range),
                body,
            },
        }
    }

    fn push(
        &mut self,
        range: TextRange,
        replacement: String,
        genre: Genre,
        description: String,
        switch: Switch,
    ) {
        let function = self.functions.last().cloned();
        let description = match (&function, genre) {
            (Some(function), genre) if genre != Genre::FnValue => {
                format!("{description} in {}", function.function_name)
            }
            _ => description,
        };
        let span = self.span(range);
        let name = format!(
            "{}:{}:{}: {}",
            self.source_file.path, span.start.line, span.start.column, description
        );
        if self.exclude_res.iter().any(|re| re.is_match(&name)) {
            return;
        }
        // In a const fn whose const a switched build may remove: only what
        // compiles in a const fn exactly when it compiles in a plain one.
        let switch = match (self.removable_consts.last(), switch) {
            (_, Switch::Alone(why)) => Switch::Alone(why),
            (Some(Some(keyword)), inner) => {
                if genre != Genre::FnValue || const_safe_value(&replacement) {
                    Switch::Unconst {
                        keyword: keyword.clone(),
                        inner: Box::new(inner),
                    }
                } else {
                    Switch::Alone(IN_CONST_FN)
                }
            }
            (_, inner) => inner,
        };
        self.out.mutants.push(Mutant {
            name,
            source_file: Arc::clone(self.source_file),
            function,
            span,
            range: text_range(range),
            replacement,
            genre,
            description,
            switch,
            own: false,
        });
    }
}

/// Why a mutant in a const fn is built alone.
pub(super) const IN_CONST_FN: &str = "it is in a const fn, which can run at compile time";

/// The byte range of `function`'s `const` keyword and the space after it,
/// when a switched build may remove it: a `const fn` in no compile-time
/// context of its own (a const item, another const fn that stays const)
/// and not in a trait. Whether anything calls it at compile time is the
/// lab's question: it sees every file.
pub(super) fn removable_const(function: &ast::Fn) -> Option<Range<usize>> {
    let keyword = function.const_token()?;
    let parent = function.syntax().parent()?;
    if const_context(&parent).is_some()
        || function
            .syntax()
            .ancestors()
            .any(|a| a.kind() == SyntaxKind::TRAIT)
    {
        return None;
    }
    let end = keyword
        .next_token()
        .filter(|t| t.kind() == SyntaxKind::WHITESPACE)
        .map_or(keyword.text_range().end(), |t| t.text_range().end());
    Some(text_range(TextRange::new(
        keyword.text_range().start(),
        end,
    )))
}

/// Every const fn of `code` whose `const` a switched build may remove
/// (see `removable_const`): its name and the keyword's byte range.
pub fn removable_consts(code: &str, edition: Edition) -> Vec<(String, Range<usize>)> {
    let parse = ra_ap_syntax::SourceFile::parse(code, ra_edition(edition));
    parse
        .syntax_node()
        .descendants()
        .filter_map(ast::Fn::cast)
        .filter_map(|f| Some((f.name()?.text().to_string(), removable_const(&f)?)))
        .collect()
}

/// Whether a function's body replaced with `value` compiles in a const fn
/// exactly when it compiles in a plain one: it calls nothing but enum
/// constructors and constructors that are const (`String::new()`,
/// `vec![]`); no method, closure or other macro.
pub(super) fn const_safe_value(value: &str) -> bool {
    const CONST_CALLS: &[&str] = &[
        "Some",
        "Ok",
        "Err",
        "String::new",
        "Vec::new",
        "BTreeMap::new",
        "BTreeSet::new",
        "VecDeque::new",
        "Cow::Borrowed",
        "Cow::Owned",
    ];
    let wrapped = format!("fn f() {{ {value} }}");
    let parse = ra_ap_syntax::SourceFile::parse(&wrapped, ra_ap_syntax::Edition::CURRENT);
    if !parse.errors().is_empty() {
        return false;
    }
    parse
        .syntax_node()
        .descendants()
        .all(|node| match node.kind() {
            SyntaxKind::CALL_EXPR => ast::CallExpr::cast(node)
                .and_then(|call| call.expr())
                .is_some_and(|callee| {
                    let path = callee.syntax().text().to_string();
                    CONST_CALLS.contains(&path.trim())
                }),
            SyntaxKind::MACRO_CALL => ast::MacroCall::cast(node).is_some_and(|call| {
                call.path().is_some_and(|p| p.syntax().text() == "vec")
                    && call
                        .token_tree()
                        .is_some_and(|tt| tt.syntax().text().to_string().trim() == "[]")
            }),
            SyntaxKind::METHOD_CALL_EXPR
            | SyntaxKind::CLOSURE_EXPR
            | SyntaxKind::AWAIT_EXPR
            | SyntaxKind::FOR_EXPR => false,
            _ => true,
        })
}

/// Why code at `node` runs at compile time (where a run-time switch cannot
/// reach), if it does: const and static initialisers, const generics, array
/// lengths, enum discriminants, const blocks, const fns.
pub(super) fn const_context(node: &SyntaxNode) -> Option<&'static str> {
    const_context_at(node).map(|(_, why)| why)
}

/// The innermost node (`node` or an ancestor) that makes `node` evaluated
/// at compile time, and why.
fn const_context_at(node: &SyntaxNode) -> Option<(SyntaxNode, &'static str)> {
    let mut child = node.clone();
    for ancestor in node.ancestors() {
        let why = match ancestor.kind() {
            SyntaxKind::CONST => Some("it is in a const item, evaluated at compile time"),
            SyntaxKind::STATIC => Some("it is in a static initialiser, evaluated at compile time"),
            SyntaxKind::CONST_ARG | SyntaxKind::CONST_PARAM => {
                Some("it is in a const generic argument, evaluated at compile time")
            }
            SyntaxKind::ARRAY_TYPE => Some("it is in an array length, evaluated at compile time"),
            SyntaxKind::VARIANT => Some("it is in an enum discriminant, evaluated at compile time"),
            SyntaxKind::CONST_BLOCK_PAT => Some("it is in a pattern"),
            SyntaxKind::BLOCK_EXPR
                if ast::BlockExpr::cast(ancestor.clone())
                    .is_some_and(|b| b.const_token().is_some()) =>
            {
                Some("it is in a const block, evaluated at compile time")
            }
            SyntaxKind::FN => match ast::Fn::cast(ancestor.clone()) {
                // A const fn that a switched build may make plain: its
                // body is run-time code there (and nothing around it is
                // compile-time, or its const could not go).
                Some(f) if f.const_token().is_some() && removable_const(&f).is_some() => {
                    return None
                }
                Some(f) if f.const_token().is_some() => Some(IN_CONST_FN),
                _ => None,
            },
            SyntaxKind::ARRAY_EXPR if is_repeat_length(&ancestor, &child) => {
                Some("it is in an array length, evaluated at compile time")
            }
            _ => None,
        };
        if let Some(why) = why {
            return Some((ancestor, why));
        }
        child = ancestor;
    }
    None
}

/// A const item whose initialiser holds a mutant: the innermost
/// compile-time context of the mutant's node, with a name and a type.
struct MutatedConst {
    item: ast::Const,
    name: ast::Name,
    /// The item's integer value with the mutant, where known.
    value: Option<i128>,
}

impl MutatedConst {
    /// Whether the item's value holds a loop: a mutant may make it endless.
    fn loops(&self) -> bool {
        self.item.body().is_some_and(|body| {
            body.syntax().descendants().any(|node| {
                matches!(
                    node.kind(),
                    SyntaxKind::WHILE_EXPR | SyntaxKind::LOOP_EXPR | SyntaxKind::FOR_EXPR
                )
            })
        })
    }
}

/// Why a mutant in the value of a constant that loops is built alone.
const LOOPING_CONST: &str = "it is in a constant whose value loops: a mutant that makes the \
     loop endless keeps rustc evaluating it for seconds before it rejects it, \
     and would hold up the switched build";

/// The const item whose initialiser is the innermost compile-time
/// context of `node` (the text at `op.0` replaced by `op.1` there), if
/// any, with its name, type and value.
fn mutated_const(
    node: &SyntaxNode,
    op: (TextRange, &str),
    edition: ra_ap_syntax::Edition,
) -> Option<MutatedConst> {
    let (innermost, _) = const_context_at(node)?;
    let item = ast::Const::cast(innermost)?;
    let name = item.name()?;
    item.ty()?;
    let value = constant::mutated_values(item.body()?.syntax(), op.0, op.1, edition)
        .map(|(value, _)| value);
    Some(MutatedConst { item, name, value })
}

/// The switch of a mutant in the initialiser of a const item local to a
/// block (`const
/// DAYS_PER_400Y: i64 = 365 * 400 + 97;` in a function), when every use of
/// the item in that block is a bare name in run-time code: not in a
/// pattern, a type, an array length, another constant or a macro's
/// arguments, and no other item or binding there has its name. rustc
/// rejects at build time what it can compute to overflow or panic, which a
/// switch would hide: no use is an index or a shift amount, or in a run of
/// constants, and one used as a divisor must evaluate, with the mutant, to
/// neither 0 nor -1. `None` otherwise (the mutant is built alone).
fn const_uses(mutated: &MutatedConst) -> Option<Switch> {
    let MutatedConst { item, name, value } = mutated;
    let value = *value;
    // The item must be in run-time code.
    if item
        .syntax()
        .parent()
        .and_then(|p| const_context(&p))
        .is_some()
    {
        return None;
    }
    let scope = item
        .syntax()
        .parent()
        .filter(|p| p.kind() == SyntaxKind::STMT_LIST)?;
    let text = name.text().to_string();
    let mut uses = Vec::new();
    for token in scope
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
    {
        if token.kind() != SyntaxKind::IDENT || token.text() != text {
            continue;
        }
        let parent = token.parent()?;
        if parent == *name.syntax() {
            continue;
        }
        // A bare path expression `NAME`, in run-time code.
        let path = parent
            .parent()
            .filter(|s| s.kind() == SyntaxKind::PATH_SEGMENT)?
            .parent()
            .and_then(ast::Path::cast)?;
        let expression = path
            .syntax()
            .parent()
            .filter(|p| p.kind() == SyntaxKind::PATH_EXPR)?;
        if parent.kind() != SyntaxKind::NAME_REF
            || path.qualifier().is_some()
            || const_context(&expression).is_some()
            || !checked_only_at_run_time(&expression, value)
        {
            return None;
        }
        uses.push(text_range(parent.text_range()));
    }
    if uses.is_empty() {
        return None;
    }
    Some(Switch::ConstUses {
        item: text_range(item.syntax().text_range()),
        name: text_range(name.syntax().text_range()),
        uses,
    })
}

/// The switch of a mutant in the initialiser of a const item of a module
/// or of an inherent impl,
/// whatever its uses: `Switch::CrateConst`, for the lab to find them in
/// every file. `None` for an item elsewhere (a trait, a trait's impl, a
/// block) or with attributes other than lint levels (a `#[cfg]`, a
/// `#[doc]`).
fn crate_const(mutated: &MutatedConst) -> Option<Switch> {
    let MutatedConst { item, name, value } = mutated;
    let parent = item.syntax().parent()?;
    let owner = match parent.kind() {
        SyntaxKind::SOURCE_FILE => None,
        SyntaxKind::ITEM_LIST if parent.parent()?.kind() == SyntaxKind::MODULE => None,
        SyntaxKind::ASSOC_ITEM_LIST => {
            let implementation = ast::Impl::cast(parent.parent()?)?;
            if implementation.trait_().is_some() {
                return None;
            }
            let ast::Type::PathType(ty) = implementation.self_ty()? else {
                return None;
            };
            Some(ty.path()?.segment()?.name_ref()?.text().to_string())
        }
        _ => return None,
    };
    // Lint levels go on the copy too (it is as undocumented as the item);
    // doc comments do not (a doctest would run twice).
    let lint_levels = item.attrs().all(|attr| {
        attr.path().is_some_and(|p| {
            matches!(
                p.syntax().text().to_string().as_str(),
                "allow" | "expect" | "warn" | "deny"
            )
        })
    });
    if name.text() == "_" || !lint_levels {
        return None;
    }
    let start = match (item.attrs().next(), item.visibility()) {
        (Some(attr), _) => attr.syntax().text_range().start(),
        (None, Some(visibility)) => visibility.syntax().text_range().start(),
        (None, None) => item.const_token()?.text_range().start(),
    };
    let docs_inside = item
        .syntax()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.text_range().start() >= start)
        .filter_map(ast::Comment::cast)
        .any(|c| c.kind().doc.is_some());
    if docs_inside {
        return None;
    }
    Some(Switch::CrateConst {
        item: text_range(TextRange::new(start, item.syntax().text_range().end())),
        name: text_range(name.syntax().text_range()),
        owner,
        value: *value,
    })
}

/// Whether a use of a constant (`use`), whose value with the mutant is
/// `value` when known, leaves rustc nothing to compute at build time that
/// could overflow or panic: it is not an index, a shift amount, a divisor
/// that may be 0 or -1, or in a run of constants.
pub(super) fn checked_only_at_run_time(use_: &SyntaxNode, value: Option<i128>) -> bool {
    let parent = use_.parent();
    if parent
        .as_ref()
        .is_some_and(|p| p.kind() == SyntaxKind::INDEX_EXPR)
    {
        return false;
    }
    if let Some(bin) = parent.clone().and_then(ast::BinExpr::cast) {
        let is_rhs = bin.rhs().is_some_and(|rhs| rhs.syntax() == use_);
        let (ast::BinaryOp::ArithOp(arith) | ast::BinaryOp::Assignment { op: Some(arith) }) = bin
            .op_kind()
            .unwrap_or(ast::BinaryOp::Assignment { op: None })
        else {
            return !is_constant_run(use_);
        };
        match arith {
            ast::ArithOp::Shl | ast::ArithOp::Shr if is_rhs => return false,
            ast::ArithOp::Div | ast::ArithOp::Rem
                if is_rhs && !value.is_some_and(|v| v != 0 && v != -1) =>
            {
                return false
            }
            _ => {}
        }
    }
    !is_constant_run(use_)
}

/// Whether the value of `use_` leaves its function's code as it is made,
/// so that no build-time evaluation of that function (rustc's lints
/// propagate constants through locals) meets it: a call's argument, a
/// method call's receiver, a `return`ed value or the function body's tail.
pub(super) fn handed_on(use_: &SyntaxNode) -> bool {
    let Some(parent) = use_.parent() else {
        return false;
    };
    match parent.kind() {
        SyntaxKind::ARG_LIST | SyntaxKind::RETURN_EXPR => true,
        SyntaxKind::METHOD_CALL_EXPR => ast::MethodCallExpr::cast(parent)
            .and_then(|call| call.receiver())
            .is_some_and(|receiver| receiver.syntax() == use_),
        SyntaxKind::STMT_LIST => {
            ast::StmtList::cast(parent.clone())
                .and_then(|list| list.tail_expr())
                .is_some_and(|tail| tail.syntax() == use_)
                && parent
                    .parent()
                    .and_then(|block| block.parent())
                    .is_some_and(|p| p.kind() == SyntaxKind::FN)
        }
        _ => false,
    }
}

/// Whether the run of operators around `node` (as an operator switch would
/// take it) is made of constants only.
fn is_constant_run(node: &SyntaxNode) -> bool {
    is_constant(&operator_run(node, true))
}

/// The run of operators (binary, prefix, cast, range, reference) around
/// `node`, up to the nearest call, block or statement; through parentheses
/// too when `parenthesised`.
fn operator_run(node: &SyntaxNode, parenthesised: bool) -> SyntaxNode {
    let mut region = node.clone();
    while let Some(parent) = region
        .parent()
        .filter(|p| is_operator(p.kind()) || (parenthesised && p.kind() == SyntaxKind::PAREN_EXPR))
    {
        region = parent;
    }
    region
}

/// Whether a node of this kind applies an operator (binary, prefix, cast,
/// range, reference) to the expressions in it.
pub(super) fn is_operator(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        SyntaxKind::BIN_EXPR
            | SyntaxKind::PREFIX_EXPR
            | SyntaxKind::CAST_EXPR
            | SyntaxKind::RANGE_EXPR
            | SyntaxKind::REF_EXPR
    )
}

/// Whether an expression is made of literals and constants only (names in
/// upper case, like `N`, `u8::MAX`, `Self::BITS`), with no variable, call,
/// field or block that the compiler could not fold.
fn is_constant(node: &SyntaxNode) -> bool {
    node.descendants().all(|n| match n.kind() {
        SyntaxKind::LITERAL
        | SyntaxKind::BIN_EXPR
        | SyntaxKind::PREFIX_EXPR
        | SyntaxKind::CAST_EXPR
        | SyntaxKind::PAREN_EXPR
        | SyntaxKind::PATH_TYPE
        | SyntaxKind::PATH
        | SyntaxKind::PATH_SEGMENT
        | SyntaxKind::NAME_REF
        | SyntaxKind::GENERIC_ARG_LIST
        | SyntaxKind::TYPE_ARG => true,
        SyntaxKind::PATH_EXPR => ast::PathExpr::cast(n.clone())
            .and_then(|p| p.path()?.segment()?.name_ref())
            .is_some_and(|name| {
                let text = name.text();
                text.chars().any(|c| c.is_ascii_uppercase())
                    && text
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            }),
        _ => false,
    })
}

/// Whether `child` is the length of the repeat expression `[value; length]`.
fn is_repeat_length(array: &SyntaxNode, child: &SyntaxNode) -> bool {
    let semicolon = array
        .children_with_tokens()
        .find(|element| element.kind() == SyntaxKind::SEMICOLON);
    semicolon.is_some_and(|semi| child.text_range().start() >= semi.text_range().end())
}

fn cast<N: AstNode>(node: SyntaxNode) -> N {
    N::cast(node).expect("the node kind was checked")
}

pub(super) fn text_range(range: TextRange) -> std::ops::Range<usize> {
    u32::from(range.start()) as usize..u32::from(range.end()) as usize
}

/// Whitespace and plain comments are not part of what a node spans; doc
/// comments are, as they are attributes.
fn is_insignificant(token: &SyntaxToken) -> bool {
    match token.kind() {
        SyntaxKind::WHITESPACE => true,
        SyntaxKind::COMMENT => !ast::Comment::cast(token.clone()).is_some_and(|c| c.is_doc()),
        _ => false,
    }
}

fn trimmed_range(node: &SyntaxNode) -> TextRange {
    let range = node.text_range();
    let inside = |token: &SyntaxToken| range.contains_range(token.text_range());
    let first = std::iter::successors(node.first_token(), SyntaxToken::next_token)
        .take_while(inside)
        .find(|token| !is_insignificant(token));
    let last = std::iter::successors(node.last_token(), SyntaxToken::prev_token)
        .take_while(inside)
        .find(|token| !is_insignificant(token));
    match (first, last) {
        (Some(first), Some(last)) => {
            TextRange::new(first.text_range().start(), last.text_range().end())
        }
        _ => range,
    }
}

/// The rendered tokens of `range` inside `node`, or `None` when their text
/// is longer than `max_len`: rendering only adds spaces, so such a body
/// cannot equal a stub of at most `max_len` chars.
fn short_text(node: &SyntaxNode, range: TextRange, max_len: usize) -> Option<String> {
    let mut len = 0;
    let mut tokens = Vec::new();
    for token in node
        .descendants_with_tokens()
        .filter_map(NodeOrToken::into_token)
        .filter(|token| range.contains_range(token.text_range()) && !token.kind().is_trivia())
    {
        len += token.text().len();
        if len > max_len {
            return None;
        }
        tokens.push(token);
    }
    Some(pretty::tokens(tokens))
}

/// The next significant token after a node.
fn next_token(node: &SyntaxNode) -> Option<SyntaxToken> {
    std::iter::successors(node.last_token()?.next_token(), SyntaxToken::next_token)
        .find(|token| !token.kind().is_trivia())
}

/// The module's `#[path = "…"]`, or else the `#![path = "…"]` inside an
/// inline module's braces (which names the directory of the modules
/// declared in it), as rustc and cargo-mutants read them.
fn path_attribute(module: &ast::Module) -> Option<String> {
    ast::attrs_including_inner(module).find_map(|attr| match attr.meta()? {
        ast::Meta::KeyValueMeta(kv) if kv.path()?.syntax().text() == "path" => match kv.expr()? {
            ast::Expr::Literal(literal) => match literal.kind() {
                ast::LiteralKind::String(s) => s.value().ok().map(|v| v.into_owned()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })
}

/// Folds a multi-line snippet into one line, as names need.
fn squash_lines(text: &str) -> String {
    if !text.contains('\n') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_indent = false;
    for c in text.chars() {
        match c {
            ' ' | '\t' | '\n' | '\r' if in_indent => (),
            '\n' => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
                in_indent = true;
            }
            '\r' => (),
            c => {
                in_indent = false;
                out.push(c);
            }
        }
    }
    out
}
