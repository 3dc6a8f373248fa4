//! The checks a compiled validator is made of, as syntax trees: one `Check`
//! per keyword, combined with `all`, `any` and `one_of`, and the expressions
//! they test with.

use super::super::ast::{self, call, method, not, var};
use proc_macro2::Literal;
use serde_json::{Map, Value};
use syn::Expr;

/// Why a schema gets no compiled validator: the keyword and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub String);

/// A compiled check of the instance `v: &check::Json`.
pub(super) enum Check {
    /// Every instance passes.
    True,
    /// No instance passes.
    False,
    /// A call of a generated function with `v` (its name or path).
    Call(syn::Path),
    /// A boolean expression over `v` that is one operand (a call, `!x`).
    Expr(Expr),
    /// `a && b && ...`, unparenthesized: its operands.
    And(Vec<Expr>),
    /// `a || b || ...`, unparenthesized: its operands.
    Or(Vec<Expr>),
}

impl Check {
    /// The check as an expression of its own (a body, a condition).
    pub(super) fn expr(self) -> Expr {
        match self {
            Check::True => ast::boolean(true),
            Check::False => ast::boolean(false),
            Check::Call(f) => call(ast::path_expr(f), [var("v")]),
            Check::Expr(e) => e,
            Check::And(operands) => ast::chain(&ast::and(), operands, || ast::boolean(true)),
            Check::Or(operands) => ast::chain(&ast::or(), operands, || ast::boolean(false)),
        }
    }

    /// The check as the operand of an operator: parenthesized when it is one itself.
    pub(super) fn operand(self) -> Expr {
        match self {
            c @ (Check::And(_) | Check::Or(_)) => ast::paren(c.expr()),
            other => other.expr(),
        }
    }

    /// The check as a function of one `&check::Json` (a closure, or the function itself).
    pub(super) fn closure(self) -> Expr {
        match self {
            Check::True => ast::closure(ast::wild(), ast::boolean(true)),
            Check::False => ast::closure(ast::wild(), ast::boolean(false)),
            Check::Call(f) => ast::path_expr(f),
            other => ast::closure(ast::binding("v"), other.expr()),
        }
    }
}

/// All of `checks`, as one check.
pub(super) fn all(checks: Vec<Check>) -> Check {
    joined(checks, false)
}

/// Any of `checks`, as one check.
pub(super) fn any(checks: Vec<Check>) -> Check {
    joined(checks, true)
}

/// `checks` joined by `||` (`any`) or `&&`: the checks known to pass or
/// fail decided here, the operands of a check joined the same way spliced in.
pub(super) fn joined(checks: Vec<Check>, any: bool) -> Check {
    let mut left: Vec<Check> = Vec::new();
    for c in checks {
        match (c, any) {
            (Check::True, false) | (Check::False, true) => {}
            (Check::False, false) => return Check::False,
            (Check::True, true) => return Check::True,
            (other, _) => left.push(other),
        }
    }
    if left.len() <= 1 {
        return left
            .pop()
            .unwrap_or(if any { Check::False } else { Check::True });
    }
    let mut operands = Vec::new();
    for c in left {
        match (c, any) {
            (Check::And(e), false) | (Check::Or(e), true) => operands.extend(e),
            (other, _) => operands.push(other.operand()),
        }
    }
    if any {
        Check::Or(operands)
    } else {
        Check::And(operands)
    }
}

/// `check::{name}`, a function of the runtime's checks.
pub(super) fn check_fn(name: &str) -> Expr {
    ast::path_to(&["check", name])
}

/// `{pattern}.is_match({of})`.
pub(super) fn is_match(pattern: &str, of: &str) -> Expr {
    method(var(pattern), "is_match", [var(of)])
}

/// `o.contains_key("{name}")`.
pub(super) fn has_key(name: &str) -> Expr {
    method(var("o"), "contains_key", [ast::string(name)])
}

/// `o.keys()`.
pub(super) fn keys() -> Expr {
    method(var("o"), "keys", [])
}

/// `o.iter()`.
pub(super) fn entries() -> Expr {
    method(var("o"), "iter", [])
}

/// `|(k, v)| body`.
pub(super) fn key_value(body: Expr) -> Expr {
    let pair = ast::tuple([ast::binding("k"), ast::binding("v")]);
    ast::closure(pair, body)
}

/// `<=`.
pub(super) fn le() -> syn::BinOp {
    syn::BinOp::Le(Default::default())
}

/// `>=`.
pub(super) fn ge() -> syn::BinOp {
    syn::BinOp::Ge(Default::default())
}

/// `{x}.len() as u64 {op} n`.
pub(super) fn length_compared(x: &str, op: syn::BinOp, n: u64) -> Expr {
    let len = ast::as_u64(method(var(x), "len", []));
    ast::binary(len, op, ast::lit(Literal::u64_unsuffixed(n)))
}

/// `oneOf`: exactly one of `subs` passes. Branches known to pass or fail are
/// counted here, not at run time.
pub(super) fn one_of(subs: Vec<Check>) -> Check {
    let passing = subs.iter().filter(|c| matches!(c, Check::True)).count();
    let open: Vec<Check> = subs
        .into_iter()
        .filter(|c| !matches!(c, Check::True | Check::False))
        .collect();
    match (passing, open.len()) {
        (2.., _) => Check::False,
        (1, 0) => Check::True,
        (0, 0) => Check::False,
        // One passes already: none of the others may.
        (1, _) => match any(open) {
            Check::True => Check::False,
            Check::False => Check::True,
            other => Check::Expr(not(other.operand())),
        },
        (_, 1) => open.into_iter().next().unwrap_or(Check::False),
        _ => {
            let counted = open
                .into_iter()
                .map(|c| call(ast::path_to(&["usize", "from"]), [c.expr()]))
                .collect();
            let add = syn::BinOp::Add(Default::default());
            let sum = ast::chain(&add, counted, || ast::lit(Literal::usize_unsuffixed(0)));
            let one = ast::lit(Literal::usize_unsuffixed(1));
            Check::Expr(ast::binary(sum, syn::BinOp::Eq(Default::default()), one))
        }
    }
}

/// `type`: one name or a list of them.
pub(super) fn types(t: &Value, at: &str) -> Result<Check, Unsupported> {
    let names: Vec<&str> = match t {
        Value::String(s) => vec![s.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => {
            return Err(Unsupported(format!(
                "`type` that is not a name or a list at `#{at}`"
            )));
        }
    };
    let mut alternatives = Vec::new();
    for name in names {
        alternatives.push(match name {
            "null" | "boolean" | "object" | "array" | "number" | "string" => {
                method(var("v"), &format!("is_{name}"), [])
            }
            "integer" => call(check_fn("is_integer"), [var("v")]),
            other => return Err(Unsupported(format!("`type: {other}` at `#{at}`"))),
        });
    }
    Ok(any(alternatives.into_iter().map(Check::Expr).collect()))
}

/// `minimum`, `maximum`, the exclusive ones and `multipleOf`.
pub(super) fn numbers(o: &Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
    let mut checks = Vec::new();
    for (keyword, function) in [
        ("minimum", "ge"),
        ("maximum", "le"),
        ("exclusiveMinimum", "gt"),
        ("exclusiveMaximum", "lt"),
    ] {
        let Some(limit) = o.get(keyword) else {
            continue;
        };
        let limit = limit_of(limit)
            .ok_or_else(|| Unsupported(format!("`{keyword}` that is not a number at `#{at}`")))?;
        checks.push(Check::Expr(call(check_fn(function), [var("n"), limit])));
    }
    if let Some(m) = o.get("multipleOf") {
        let m = m.as_f64().filter(|m| *m > 0.0).ok_or_else(|| {
            Unsupported(format!(
                "`multipleOf` that is not a positive number at `#{at}`"
            ))
        })?;
        let m = ast::lit(Literal::f64_unsuffixed(m));
        checks.push(Check::Expr(call(check_fn("multiple_of"), [var("n"), m])));
    }
    Ok(all(checks))
}

/// A bound as the `jsonschema` crate compares it: with the limit's own type.
pub(super) fn limit_of(v: &Value) -> Option<Expr> {
    let n = v.as_number()?;
    let (kind, literal) = if let Some(u) = n.as_u64() {
        ("U64", Literal::u64_unsuffixed(u))
    } else if let Some(i) = n.as_i64() {
        ("I64", Literal::i64_unsuffixed(i))
    } else {
        (
            "F64",
            Literal::f64_unsuffixed(n.as_f64().filter(|f| f.is_finite())?),
        )
    };
    let kind = ast::path_to(&["check", "Limit", kind]);
    Some(call(kind, [ast::lit(literal)]))
}

/// A non-negative integer keyword (`minLength`, `maxItems`, ...); `2.0` counts.
pub(super) fn count(
    o: &Map<String, Value>,
    keyword: &str,
    at: &str,
) -> Result<Option<u64>, Unsupported> {
    let Some(v) = o.get(keyword) else {
        return Ok(None);
    };
    let n = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
            .map(|f| f as u64)
    });
    n.map(Some)
        .ok_or_else(|| Unsupported(format!("`{keyword}` that is not a count at `#{at}`")))
}

/// `{x}.len() >= n`, written as a careful hand would.
pub(super) fn length_at_least(x: &str, n: u64) -> Check {
    match n {
        0 => Check::True,
        1 => Check::Expr(not(method(var(x), "is_empty", []))),
        n => Check::Expr(length_compared(x, ge(), n)),
    }
}

pub(super) fn strings_of<'v>(
    v: &'v Value,
    keyword: &str,
    at: &str,
) -> Result<Vec<&'v str>, Unsupported> {
    let refused = || {
        Unsupported(format!(
            "`{keyword}` that is not a list of names at `#{at}`"
        ))
    };
    let Value::Array(list) = v else {
        return Err(refused());
    };
    list.iter()
        .map(|n| n.as_str().ok_or_else(refused))
        .collect()
}

/// A JSON pointer token for `name` (`~` and `/` escaped).
pub(super) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// `%xx` escapes of a URI fragment decoded; `None` for a malformed one.
pub(super) fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
