//! Expressions built as syntax trees, for the compiled validators: the trees
//! made directly instead of written as tokens and parsed back (writing
//! `quote!` tokens and parsing them was an eighth of a cold run's CPU).
//!
//! Invariant: each builder gives the tree syn's parser gives for the text in
//! its doc, spans aside (prettyplease ignores them), so the code prettyplease
//! prints is the same as from the parsed text. Operators are left-associative
//! as parsed (`a && b && c` is `(a && b) && c`); a parenthesis the text
//! writes is an explicit [`paren`].

use proc_macro2::{Literal, Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::{BinOp, Expr, Ident, Pat, Path, Stmt};

/// A file of `items` (with inner `attrs`) as prettyplease formats it.
pub(super) fn unparse(attrs: Vec<syn::Attribute>, items: Vec<syn::Item>) -> String {
    super::comments::wrap_long_lines(&prettyplease::unparse(&syn::File {
        shebang: None,
        frontmatter: None,
        attrs,
        items,
    }))
}

/// An identifier (keywords such as `super` too; `r#name` a raw one).
pub fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// `a::b::c`.
pub fn path(segments: &[&str]) -> Path {
    Path {
        leading_colon: None,
        segments: segments
            .iter()
            .map(|s| syn::PathSegment::from(ident(s)))
            .collect(),
    }
}

/// A path as an expression.
pub fn path_expr(path: Path) -> Expr {
    Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path,
    })
}

/// A name as an expression (`v`, `INPUT_PATTERN_0`).
pub fn var(name: &str) -> Expr {
    path_to(&[name])
}

/// `a::b::c` as an expression.
pub fn path_to(segments: &[&str]) -> Expr {
    path_expr(path(segments))
}

/// A literal (`3`, `"a"`, `0.5`, `0u64`).
pub fn lit(literal: Literal) -> Expr {
    Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit: syn::Lit::new(literal),
    })
}

/// `"text"`.
pub fn string(text: &str) -> Expr {
    lit(Literal::string(text))
}

/// `true` or `false`.
pub fn boolean(value: bool) -> Expr {
    Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit: syn::Lit::Bool(syn::LitBool::new(value, Span::call_site())),
    })
}

/// `f(args..)`.
pub fn call(f: Expr, args: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Call(syn::ExprCall {
        attrs: Vec::new(),
        func: Box::new(f),
        paren_token: Default::default(),
        args: args.into_iter().collect(),
    })
}

/// `receiver.name(args..)`.
pub fn method(receiver: Expr, name: &str, args: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::MethodCall(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(receiver),
        dot_token: Default::default(),
        method: ident(name),
        turbofish: None,
        paren_token: Default::default(),
        args: args.into_iter().collect(),
    })
}

/// `|param| body`.
pub fn closure(param: Pat, body: Expr) -> Expr {
    Expr::Closure(syn::ExprClosure {
        attrs: Vec::new(),
        lifetimes: None,
        modifiers: Default::default(),
        constness: None,
        asyncness: None,
        capture: None,
        inputs_begin: Default::default(),
        inputs: Punctuated::from_iter([param]),
        inputs_end: Default::default(),
        output: syn::ReturnType::Default,
        body: Box::new(body),
    })
}

/// The pattern `name`.
pub fn binding(name: &str) -> Pat {
    Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: None,
        ident: ident(name),
        subpat: None,
    })
}

/// The pattern `_`.
pub fn wild() -> Pat {
    Pat::Wild(syn::PatWild {
        attrs: Vec::new(),
        underscore_token: Default::default(),
    })
}

/// The pattern `&pat`.
pub fn by_reference(pat: Pat) -> Pat {
    Pat::Reference(syn::PatReference {
        attrs: Vec::new(),
        and_token: Default::default(),
        mutability: None,
        pat: Box::new(pat),
    })
}

/// The pattern `(a, b..)`.
pub fn tuple(pats: impl IntoIterator<Item = Pat>) -> Pat {
    Pat::Tuple(syn::PatTuple {
        attrs: Vec::new(),
        paren_token: Default::default(),
        elems: pats.into_iter().collect(),
    })
}

/// `left op right`.
pub fn binary(left: Expr, op: BinOp, right: Expr) -> Expr {
    Expr::Binary(syn::ExprBinary {
        attrs: Vec::new(),
        left: Box::new(left),
        op,
        right: Box::new(right),
    })
}

/// `a op b op c ..`, left-associative as parsed; `empty` for no operand.
pub fn chain(op: &BinOp, operands: Vec<Expr>, empty: impl FnOnce() -> Expr) -> Expr {
    operands
        .into_iter()
        .reduce(|left, right| binary(left, *op, right))
        .unwrap_or_else(empty)
}

/// `&&`.
pub fn and() -> BinOp {
    BinOp::And(Default::default())
}

/// `||`.
pub fn or() -> BinOp {
    BinOp::Or(Default::default())
}

/// `!e`.
pub fn not(e: Expr) -> Expr {
    Expr::Unary(syn::ExprUnary {
        attrs: Vec::new(),
        op: syn::UnOp::Not(Default::default()),
        expr: Box::new(e),
    })
}

/// `(e)`.
pub fn paren(e: Expr) -> Expr {
    Expr::Paren(syn::ExprParen {
        attrs: Vec::new(),
        paren_token: Default::default(),
        expr: Box::new(e),
    })
}

/// `e as u64`.
pub fn as_u64(e: Expr) -> Expr {
    Expr::Cast(syn::ExprCast {
        attrs: Vec::new(),
        expr: Box::new(e),
        as_token: Default::default(),
        ty: Box::new(syn::Type::Path(syn::TypePath {
            attrs: Vec::new(),
            qself: None,
            path: path(&["u64"]),
        })),
    })
}

/// `&e`.
pub fn reference(e: Expr) -> Expr {
    Expr::Reference(syn::ExprReference {
        attrs: Vec::new(),
        and_token: Default::default(),
        mutability: None,
        expr: Box::new(e),
    })
}

/// `start..=end`.
pub fn range_inclusive(start: Expr, end: Expr) -> Expr {
    Expr::Range(syn::ExprRange {
        attrs: Vec::new(),
        start: Some(Box::new(start)),
        limits: syn::RangeLimits::Closed(Default::default()),
        end: Some(Box::new(end)),
    })
}

/// A block's statements, the last one its value.
pub fn block(stmts: Vec<Stmt>) -> syn::Block {
    syn::Block {
        brace_token: Default::default(),
        stmts,
    }
}

/// `{ stmts.. }` as an expression.
pub fn block_expr(stmts: Vec<Stmt>) -> Expr {
    Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block(stmts),
    })
}

/// `if c { then } else { otherwise }`.
pub fn if_else(c: Expr, then: Expr, otherwise: Expr) -> Expr {
    Expr::If(syn::ExprIf {
        attrs: Vec::new(),
        if_token: Default::default(),
        cond: Box::new(c),
        then_branch: block(vec![Stmt::Expr(then, None)]),
        else_branch: Some((
            Default::default(),
            Box::new(block_expr(vec![Stmt::Expr(otherwise, None)])),
        )),
    })
}

/// `name!(tokens)`.
pub fn macro_call(name: &str, tokens: TokenStream) -> Expr {
    Expr::Macro(syn::ExprMacro {
        attrs: Vec::new(),
        mac: syn::Macro {
            path: path(&[name]),
            bang_token: Default::default(),
            delimiter: syn::MacroDelimiter::Paren(Default::default()),
            tokens,
        },
    })
}

/// The outer attribute `#[doc = "text"]` (a `///` comment).
pub fn doc(text: &str) -> syn::Attribute {
    doc_styled(text, syn::AttrStyle::Outer)
}

/// The inner attribute `#![doc = "text"]` (a `//!` comment).
pub fn inner_doc(text: &str) -> syn::Attribute {
    doc_styled(text, syn::AttrStyle::Inner(Default::default()))
}

fn doc_styled(text: &str, style: syn::AttrStyle) -> syn::Attribute {
    syn::Attribute {
        pound_token: Default::default(),
        style,
        bracket_token: Default::default(),
        meta: syn::Meta::NameValue(syn::MetaNameValue {
            path: path(&["doc"]),
            eq_token: Default::default(),
            value: string(text),
        }),
    }
}

/// Calls `found` with each one-segment path (a local or a static's name) in
/// the expressions these builders make; a macro's tokens are not looked into.
pub fn each_name(e: &Expr, found: &mut impl FnMut(&Ident)) {
    match e {
        Expr::Path(p) => {
            if let Some(i) = p.path.get_ident() {
                found(i);
            }
        }
        Expr::MethodCall(m) => {
            each_name(&m.receiver, found);
            m.args.iter().for_each(|a| each_name(a, found));
        }
        Expr::Call(c) => {
            each_name(&c.func, found);
            c.args.iter().for_each(|a| each_name(a, found));
        }
        Expr::Closure(c) => each_name(&c.body, found),
        Expr::Binary(b) => {
            each_name(&b.left, found);
            each_name(&b.right, found);
        }
        Expr::Unary(u) => each_name(&u.expr, found),
        Expr::Paren(p) => each_name(&p.expr, found),
        Expr::Cast(c) => each_name(&c.expr, found),
        Expr::Reference(r) => each_name(&r.expr, found),
        Expr::Range(r) => {
            r.start
                .iter()
                .chain(&r.end)
                .for_each(|e| each_name(e, found));
        }
        Expr::If(i) => {
            each_name(&i.cond, found);
            each_name_in(&i.then_branch.stmts, found);
            if let Some((_, e)) = &i.else_branch {
                each_name(e, found);
            }
        }
        Expr::Block(b) => each_name_in(&b.block.stmts, found),
        _ => {}
    }
}

/// [`each_name`] over statements (a `let`'s value, an expression).
pub fn each_name_in(stmts: &[Stmt], found: &mut impl FnMut(&Ident)) {
    for s in stmts {
        match s {
            Stmt::Local(l) => {
                if let Some(init) = &l.init {
                    each_name(&init.expr, found);
                }
            }
            Stmt::Expr(e, _) => each_name(e, found),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(e: Expr) -> String {
        let f: syn::ItemFn = syn::parse_quote!(
            fn f() {}
        );
        let mut f = f;
        f.block.stmts = vec![Stmt::Expr(e, None)];
        prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: vec![syn::Item::Fn(f)],
        })
    }

    #[test]
    fn built_trees_print_as_their_text_parsed() {
        let v = || var("v");
        let cases: Vec<(Expr, &str)> = vec![
            (
                method(
                    method(v(), "as_str", []),
                    "is_some_and",
                    [closure(binding("s"), boolean(true))],
                ),
                "v.as_str().is_some_and(|s| true)",
            ),
            (
                chain(
                    &and(),
                    vec![
                        var("a"),
                        paren(chain(&or(), vec![var("b"), var("c")], || boolean(false))),
                        not(var("d")),
                    ],
                    || boolean(true),
                ),
                "a && (b || c) && !d",
            ),
            (
                binary(
                    as_u64(method(var("a"), "len", [])),
                    BinOp::Le(Default::default()),
                    lit(Literal::u64_unsuffixed(3)),
                ),
                "a.len() as u64 <= 3",
            ),
            (
                method(
                    paren(range_inclusive(
                        lit(Literal::u64_unsuffixed(1)),
                        lit(Literal::u64_unsuffixed(2)),
                    )),
                    "contains",
                    [reference(paren(var("n")))],
                ),
                "(1..=2).contains(&(n))",
            ),
            (
                call(
                    path_to(&["check", "Limit", "I64"]),
                    [lit(Literal::i64_unsuffixed(-5))],
                ),
                "check::Limit::I64(-5)",
            ),
            (
                method(
                    method(var("o"), "iter", []),
                    "all",
                    [closure(
                        tuple([binding("k"), binding("v")]),
                        if_else(var("k"), string("a\"b"), lit(Literal::f64_unsuffixed(0.5))),
                    )],
                ),
                "o.iter().all(|(k, v)| if k { \"a\\\"b\" } else { 0.5 })",
            ),
            (
                method(
                    method(var("a"), "iter", []),
                    "filter",
                    [closure(
                        by_reference(binding("v")),
                        block_expr(vec![Stmt::Expr(
                            macro_call("matches", quote::quote!(k, "x" | "y")),
                            None,
                        )]),
                    )],
                ),
                "a.iter().filter(|&v| { matches!(k, \"x\" | \"y\") })",
            ),
            (closure(wild(), var("r#type")), "|_| r#type"),
        ];
        for (built, source) in cases {
            let parsed: Expr = syn::parse_str(source).unwrap_or_else(|e| panic!("{e}: {source}"));
            assert_eq!(text(built), text(parsed), "{source}");
        }
    }

    #[test]
    fn doc_attributes_print_as_written() {
        let built = [doc(" a \"b\""), inner_doc(" c")];
        let parsed: [syn::Attribute; 2] = [
            syn::parse_quote!(#[doc = " a \"b\""]),
            syn::parse_quote!(#![doc = " c"]),
        ];
        let print = |attrs: &[syn::Attribute]| {
            let mut item: syn::ItemFn = syn::parse_quote!(
                fn f() {}
            );
            item.attrs = attrs.to_vec();
            prettyplease::unparse(&syn::File {
                shebang: None,
                frontmatter: None,
                attrs: Vec::new(),
                items: vec![syn::Item::Fn(item)],
            })
        };
        assert_eq!(print(&built), print(&parsed));
    }

    #[test]
    fn names_are_found_where_the_builders_put_them() {
        let e = method(
            var("P"),
            "is_match",
            [call(
                var("f"),
                [block_expr(vec![Stmt::Expr(not(var("x")), None)])],
            )],
        );
        let mut names = Vec::new();
        each_name(&e, &mut |i| names.push(i.to_string()));
        assert_eq!(names, ["P", "f", "x"]);
    }
}
