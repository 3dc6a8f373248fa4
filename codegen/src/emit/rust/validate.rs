//! Validators compiled from JSON Schema (draft 2020-12): for a tool's bundled
//! input or output schema, Rust functions that answer whether a JSON value
//! (`toolgen_runtime::check::Json`, its strings borrowed from the request's
//! text) is valid, written out keyword by keyword the way Ajv
//! compiles schemas to JavaScript, instead of walking the schema at run time.
//!
//! Invariants:
//! - A validator is generated only when every keyword that constrains
//!   instances is one this module compiles; any other (`$dynamicRef`,
//!   `unevaluatedProperties`, a `$ref` outside the document, a pattern the
//!   `regex` crate cannot run, ...) yields [`Unsupported`], and the tool keeps
//!   the `jsonschema` crate: never a silent pass.
//! - Semantics are the `jsonschema` crate's: numbers, lengths, equality and
//!   uniqueness go through `toolgen_runtime::check`, built on that crate's own
//!   `jsonschema-value`; patterns are translated by `jsonschema-regex`.
//!   Differential tests hold the two to the same answers.
//! - Only validity is compiled: the server asks the `jsonschema` crate for the
//!   violations of an invalid instance, so error paths and messages are the
//!   ones it always gave.
//! - Deterministic: functions, patterns and constants are numbered in the
//!   order the schema is walked.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

/// Why a schema gets no compiled validator: the keyword and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub String);

/// Keywords this module does not compile: a schema using one keeps the
/// `jsonschema` crate. Keywords neither compiled nor listed here constrain
/// nothing, as in that crate: annotations (`title`, `format`, `default`,
/// ...), `$defs` (reached through `$ref`), unknown ones.
const REFUSED: &[&str] = &[
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependencies",
    "additionalItems",
];

/// A compiled check of the instance `v: &check::Json`.
enum Check {
    /// Every instance passes.
    True,
    /// No instance passes.
    False,
    /// A call of a generated function with `v` (its name or path).
    Call(TokenStream),
    /// A boolean expression over `v` that is one operand (a call, `!x`).
    Expr(TokenStream),
    /// `a && b && ...`, unparenthesized.
    And(TokenStream),
    /// `a || b || ...`, unparenthesized.
    Or(TokenStream),
}

impl Check {
    /// The check as an expression of its own (a body, a condition).
    fn expr(&self) -> TokenStream {
        match self {
            Check::True => quote!(true),
            Check::False => quote!(false),
            Check::Call(f) => quote!(#f(v)),
            Check::Expr(e) | Check::And(e) | Check::Or(e) => e.clone(),
        }
    }

    /// The check as the operand of an operator: parenthesized when it is one itself.
    fn operand(&self) -> TokenStream {
        match self {
            Check::And(e) | Check::Or(e) => quote!((#e)),
            other => other.expr(),
        }
    }

    /// The check as a function of one `&check::Json` (a closure, or the function itself).
    fn closure(&self) -> TokenStream {
        match self {
            Check::True => quote!(|_| true),
            Check::False => quote!(|_| false),
            Check::Call(f) => quote!(#f),
            other => {
                let e = other.expr();
                quote!(|v| #e)
            }
        }
    }
}

/// All of `checks`, as one check.
fn all(checks: Vec<Check>) -> Check {
    let mut left: Vec<Check> = Vec::new();
    for c in checks {
        match c {
            Check::True => {}
            Check::False => return Check::False,
            other => left.push(other),
        }
    }
    if left.len() <= 1 {
        return left.pop().unwrap_or(Check::True);
    }
    let exprs = left.iter().map(|c| match c {
        Check::And(e) => e.clone(),
        other => other.operand(),
    });
    Check::And(quote!(#(#exprs)&&*))
}

/// Any of `checks`, as one check.
fn any(checks: Vec<Check>) -> Check {
    let mut left: Vec<Check> = Vec::new();
    for c in checks {
        match c {
            Check::True => return Check::True,
            Check::False => {}
            other => left.push(other),
        }
    }
    if left.len() <= 1 {
        return left.pop().unwrap_or(Check::False);
    }
    let exprs = left.iter().map(|c| match c {
        Check::Or(e) => e.clone(),
        other => other.operand(),
    });
    Check::Or(quote!(#(#exprs)||*))
}

struct Compiler<'a> {
    root: &'a Value,
    external: &'a External,
    prefix: String,
    /// Functions by the JSON pointer of their schema (`""`: the root).
    functions: BTreeMap<String, syn::Ident>,
    /// Schemas whose functions are still to be written, in order.
    pending: Vec<(String, &'a Value)>,
    /// Patterns and constants, by name: only those a function uses are written.
    statics: Vec<(syn::Ident, TokenStream)>,
    patterns: BTreeMap<String, syn::Ident>,
    constants: usize,
}

/// Definitions compiled elsewhere, by the JSON pointer a `$ref` names them
/// with (`/$defs/Point`): the path of their validator, which the compiled
/// code calls instead of compiling them again (a tool set's shared ones).
pub type External = BTreeMap<String, TokenStream>;

/// Compiles `schema` into items: `pub fn {prefix}_is_valid(v: &check::Json) -> bool`
/// and the private functions and statics it uses. `what` names the schema in
/// the doc comment. The items call `check::...`: put [`prelude`] once beside
/// them (or all the validators of one module).
pub fn compile(schema: &Value, prefix: &str, what: &str) -> Result<TokenStream, Unsupported> {
    compile_with(schema, prefix, what, &External::new())
}

/// [`compile`], calling the validators of `external` for the `$ref`s that
/// name them.
pub fn compile_with(
    schema: &Value,
    prefix: &str,
    what: &str,
    external: &External,
) -> Result<TokenStream, Unsupported> {
    if let Some(s) = schema.get("$schema").and_then(Value::as_str) {
        let draft = s.trim_end_matches('#');
        if draft != "https://json-schema.org/draft/2020-12/schema" {
            return Err(Unsupported(format!(
                "`$schema: {s}` (only draft 2020-12 is compiled)"
            )));
        }
    }
    let entry = format_ident!("{prefix}_is_valid");
    let mut c = Compiler {
        root: schema,
        external,
        prefix: prefix.to_owned(),
        functions: BTreeMap::from([(String::new(), entry.clone())]),
        pending: vec![(String::new(), schema)],
        statics: Vec::new(),
        patterns: BTreeMap::new(),
        constants: 0,
    };
    let mut functions = Vec::new();
    while !c.pending.is_empty() {
        let (at, s) = c.pending.remove(0);
        let check = c.schema(s, &at)?;
        let name = c.functions[&at].clone();
        let body = match &check {
            Check::Call(f) => quote!(#f(v)),
            other => other.expr(),
        };
        let unused = matches!(check, Check::True | Check::False).then(|| quote!(let _ = v;));
        functions.push(if at.is_empty() {
            let doc = format!(
                " Whether `v` is valid against {what}: the schema compiled to Rust by toolgen (same answers as the `jsonschema` crate, which reports the violations)."
            );
            quote! {
                #[doc = #doc]
                pub fn #name(v: &check::Json<'_>) -> bool { #unused #body }
            }
        } else {
            let doc = format!(" `#{at}` of {what}.");
            quote! {
                #[doc = #doc]
                fn #name(v: &check::Json<'_>) -> bool { #unused #body }
            }
        });
    }
    // A check dropped after it was built (an `allOf` with a `false` branch)
    // leaves its statics unused: write only the used ones.
    let names: Vec<&syn::Ident> = c.statics.iter().map(|(name, _)| name).collect();
    let mut used = vec![false; names.len()];
    for f in &functions {
        if mark_used(f, &names, &mut used) {
            break;
        }
    }
    let statics = c
        .statics
        .iter()
        .zip(&used)
        .filter(|(_, used)| **used)
        .map(|((_, tokens), _)| tokens);
    Ok(quote!(#(#functions)* #(#statics)*))
}

/// The `use` the validators in `items` need (`toolgen_runtime::check`), or
/// nothing when none calls it.
pub fn prelude(items: &[&TokenStream]) -> TokenStream {
    let check = format_ident!("check");
    let mut used = [false];
    for i in items {
        if mark_used(i, &[&check], &mut used) {
            break;
        }
    }
    if used[0] {
        quote!(
            use ::toolgen_runtime::check;
        )
    } else {
        TokenStream::new()
    }
}

/// Marks `used[i]` when `names[i]` occurs in `tokens` (a walk that
/// compares identifiers in place, allocating no strings); true, and the
/// walk cut short, once every name is found (each level of the walk copies
/// its tokens: a validator's first `check` is usually near its start).
fn mark_used(tokens: &TokenStream, names: &[&syn::Ident], used: &mut [bool]) -> bool {
    for t in tokens.clone() {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                for (n, u) in names.iter().zip(used.iter_mut()) {
                    *u |= i == **n;
                }
            }
            proc_macro2::TokenTree::Group(g) => {
                if mark_used(&g.stream(), names, used) {
                    return true;
                }
                continue;
            }
            _ => continue,
        }
        if used.iter().all(|u| *u) {
            return true;
        }
    }
    used.iter().all(|u| *u)
}

impl<'a> Compiler<'a> {
    fn schema(&mut self, s: &'a Value, at: &str) -> Result<Check, Unsupported> {
        let o = match s {
            Value::Bool(true) => return Ok(Check::True),
            Value::Bool(false) => return Ok(Check::False),
            Value::Object(o) => o,
            _ => {
                return Err(Unsupported(format!(
                    "a schema that is not an object at `#{at}`"
                )));
            }
        };
        for k in o.keys() {
            if REFUSED.contains(&k.as_str()) {
                return Err(Unsupported(format!("`{k}` at `#{at}`")));
            }
            if !at.is_empty() && (k == "$id" || k == "$schema") {
                return Err(Unsupported(format!(
                    "an embedded resource (`{k}`) at `#{at}`"
                )));
            }
        }
        let mut checks = Vec::new();
        if let Some(r) = o.get("$ref") {
            checks.push(self.reference(r, at)?);
        }
        // One `type` whose keywords follow: `v.as_object().is_some_and(|o| ..)`
        // checks both at once.
        let single = o.get("type").and_then(Value::as_str);
        let groups = [
            ("number", quote!(as_number), quote!(n), numbers(o, at)?),
            ("string", quote!(as_str), quote!(s), self.strings(o, at)?),
            ("array", quote!(as_array), quote!(a), self.arrays(o, at)?),
            ("object", quote!(as_object), quote!(o), self.objects(o, at)?),
        ];
        let typed = groups
            .iter()
            .any(|(kind, .., inner)| Some(*kind) == single && !matches!(inner, Check::True));
        if let Some(t) = o.get("type").filter(|_| !typed) {
            checks.push(types(t, at)?);
        }
        if let Some(e) = o.get("enum") {
            let Value::Array(members) = e else {
                return Err(Unsupported(format!(
                    "`enum` that is not an array at `#{at}`"
                )));
            };
            checks.push(self.one_of_values(members));
        }
        if let Some(c) = o.get("const") {
            checks.push(self.one_of_values(std::slice::from_ref(c)));
        }
        for (kind, accessor, binding, inner) in groups {
            let e = match inner {
                Check::True => continue,
                // No instance of this type passes.
                Check::False => {
                    let is = format_ident!("is_{kind}");
                    checks.push(match Some(kind) == single {
                        true => Check::False,
                        false => Check::Expr(quote!(!v.#is())),
                    });
                    continue;
                }
                inner => inner.expr(),
            };
            checks.push(Check::Expr(if Some(kind) == single {
                quote!(v.#accessor().is_some_and(|#binding| #e))
            } else {
                quote!(v.#accessor().is_none_or(|#binding| #e))
            }));
        }
        checks.push(self.combinators(o, at)?);
        Ok(all(checks))
    }

    /// A function for the subschema at `#pointer`, written once.
    fn reference(&mut self, r: &Value, at: &str) -> Result<Check, Unsupported> {
        let refused = || {
            Unsupported(format!(
                "`$ref: {r}` at `#{at}` (only `#` and `#/...` are compiled)"
            ))
        };
        let pointer = r
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .ok_or_else(refused)?;
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(refused());
        }
        let decoded = percent_decode(pointer).ok_or_else(refused)?;
        if let Some(path) = self.external.get(&decoded) {
            return Ok(Check::Call(path.clone()));
        }
        if let Some(f) = self.functions.get(&decoded) {
            return Ok(Check::Call(quote!(#f)));
        }
        let target = self
            .root
            .pointer(&decoded)
            .ok_or_else(|| Unsupported(format!("`$ref: {r}` at `#{at}` points at nothing")))?;
        let name = format_ident!("{}_ref_{}", self.prefix, self.functions.len());
        self.functions.insert(decoded.clone(), name.clone());
        self.pending.push((decoded, target));
        Ok(Check::Call(quote!(#name)))
    }

    /// `enum` / `const`: equal to one of `members`.
    fn one_of_values(&mut self, members: &[Value]) -> Check {
        let mut alternatives = Vec::new();
        let strings: Vec<&str> = members.iter().filter_map(Value::as_str).collect();
        if !strings.is_empty() {
            alternatives.push(quote!(matches!(v.as_str(), Some(#(#strings)|*))));
        }
        for m in members {
            match m {
                Value::String(_) => {}
                Value::Null => alternatives.push(quote!(v.is_null())),
                Value::Bool(b) => alternatives.push(quote!(v.as_bool() == Some(#b))),
                other => {
                    let name =
                        format_ident!("{}_CONSTANT_{}", self.prefix.to_uppercase(), self.constants);
                    self.constants += 1;
                    let text = other.to_string();
                    self.statics.push((
                        name.clone(),
                        quote! {
                            static #name: check::Constant = check::Constant::new(#text);
                        },
                    ));
                    alternatives.push(quote!(check::equal(v, #name.get())));
                }
            }
        }
        any(alternatives.into_iter().map(Check::Expr).collect())
    }

    fn pattern(&mut self, p: &Value, at: &str) -> Result<syn::Ident, Unsupported> {
        let p = p
            .as_str()
            .ok_or_else(|| Unsupported(format!("a pattern that is not a string at `#{at}`")))?;
        if let Some(name) = self.patterns.get(p) {
            return Ok(name.clone());
        }
        let translated = jsonschema_regex::to_rust_regex(p)
            .map_err(|()| Unsupported(format!("pattern `{p}` at `#{at}` (not ECMA-262)")))?;
        if regex::Regex::new(&translated).is_err() {
            return Err(Unsupported(format!(
                "pattern `{p}` at `#{at}` (look-around or back-references: the `regex` crate cannot run it)"
            )));
        }
        let name = format_ident!(
            "{}_PATTERN_{}",
            self.prefix.to_uppercase(),
            self.patterns.len()
        );
        let source = translated.as_ref();
        let doc = format!(" The pattern `{p}`.");
        self.statics.push((
            name.clone(),
            quote! {
                #[doc = #doc]
                static #name: check::Pattern = check::Pattern::new(#source);
            },
        ));
        self.patterns.insert(p.to_owned(), name.clone());
        Ok(name)
    }

    fn strings(&mut self, o: &'a Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
        let mut checks = Vec::new();
        let min = count(o, "minLength", at)?;
        let max = count(o, "maxLength", at)?;
        if min.is_some() || max.is_some() {
            let min = Literal::u64_unsuffixed(min.unwrap_or(0));
            let max = max.map_or(quote!(u64::MAX), |m| {
                let m = Literal::u64_unsuffixed(m);
                quote!(#m)
            });
            checks.push(Check::Expr(quote!(check::length_within(s, #min, #max))));
        }
        if let Some(p) = o.get("pattern") {
            let name = self.pattern(p, at)?;
            checks.push(Check::Expr(quote!(#name.is_match(s))));
        }
        Ok(all(checks))
    }

    fn arrays(&mut self, o: &'a Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
        let mut checks = Vec::new();
        if let Some(n) = count(o, "minItems", at)? {
            checks.push(length_at_least(quote!(a), n));
        }
        if let Some(n) = count(o, "maxItems", at)? {
            let n = Literal::u64_unsuffixed(n);
            checks.push(Check::Expr(quote!(a.len() as u64 <= #n)));
        }
        if o.get("uniqueItems") == Some(&Value::Bool(true)) {
            checks.push(Check::Expr(quote!(check::unique(a))));
        }
        let mut prefix = 0usize;
        if let Some(p) = o.get("prefixItems") {
            let Value::Array(items) = p else {
                return Err(Unsupported(format!(
                    "`prefixItems` that is not an array at `#{at}`"
                )));
            };
            prefix = items.len();
            for (i, item) in items.iter().enumerate() {
                let sub = self.schema(item, &format!("{at}/prefixItems/{i}"))?;
                if !matches!(sub, Check::True) {
                    let (f, i) = (sub.closure(), Literal::usize_unsuffixed(i));
                    checks.push(Check::Expr(quote!(a.get(#i).is_none_or(#f))));
                }
            }
        }
        if let Some(items) = o.get("items") {
            let sub = self.schema(items, &format!("{at}/items"))?;
            let f = sub.closure();
            let n = Literal::usize_unsuffixed(prefix);
            match (&sub, prefix) {
                (Check::True, _) => {}
                (Check::False, 0) => checks.push(Check::Expr(quote!(a.is_empty()))),
                (Check::False, _) => checks.push(Check::Expr(quote!(a.len() <= #n))),
                (_, 0) => checks.push(Check::Expr(quote!(a.iter().all(#f)))),
                (_, _) => checks.push(Check::Expr(quote!(a.iter().skip(#n).all(#f)))),
            }
        }
        if let Some(contains) = o.get("contains") {
            let sub = self.schema(contains, &format!("{at}/contains"))?;
            let (f, e) = (sub.closure(), sub.expr());
            let min = count(o, "minContains", at)?.unwrap_or(1);
            let max = count(o, "maxContains", at)?;
            let n = match sub {
                Check::True => quote!(a.len() as u64),
                Check::False => quote!(0u64),
                _ => quote!(a.iter().filter(|&v| #e).count() as u64),
            };
            let lit = Literal::u64_unsuffixed;
            checks.push(match (min, max) {
                (0, None) => Check::True,
                (1, None) => Check::Expr(quote!(a.iter().any(#f))),
                (min, None) => {
                    let min = lit(min);
                    Check::Expr(quote!(#n >= #min))
                }
                (min, Some(max)) => {
                    let (min, max) = (lit(min), lit(max));
                    Check::Expr(quote!((#min..=#max).contains(&(#n))))
                }
            });
        }
        Ok(all(checks))
    }

    fn objects(&mut self, o: &'a Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
        let mut checks = Vec::new();
        let required = match o.get("required") {
            Some(r) => strings_of(r, "required", at)?,
            None => Vec::new(),
        };
        // A required property with a schema is looked up once (`is_some_and`).
        let checked = |name: &str| {
            o.get("properties")
                .and_then(|p| p.get(name))
                .is_some_and(|s| {
                    s != &Value::Bool(true) && s.as_object().is_none_or(|m| !m.is_empty())
                })
        };
        checks.extend(
            required
                .iter()
                .filter(|n| !checked(n))
                .map(|n| Check::Expr(quote!(o.contains_key(#n)))),
        );
        if let Some(n) = count(o, "minProperties", at)? {
            checks.push(length_at_least(quote!(o), n));
        }
        if let Some(n) = count(o, "maxProperties", at)? {
            let n = Literal::u64_unsuffixed(n);
            checks.push(Check::Expr(quote!(o.len() as u64 <= #n)));
        }
        let mut known: Vec<&str> = Vec::new();
        if let Some(p) = o.get("properties") {
            let Value::Object(properties) = p else {
                return Err(Unsupported(format!(
                    "`properties` that is not an object at `#{at}`"
                )));
            };
            for (name, sub) in properties {
                known.push(name);
                let sub = self.schema(sub, &format!("{at}/properties/{}", escape(name)))?;
                let needed = required.contains(&name.as_str());
                match sub {
                    Check::True if needed => {
                        checks.push(Check::Expr(quote!(o.contains_key(#name))))
                    }
                    Check::True => {}
                    Check::False if needed => return Ok(Check::False),
                    Check::False => checks.push(Check::Expr(quote!(!o.contains_key(#name)))),
                    sub if needed => {
                        let f = sub.closure();
                        checks.push(Check::Expr(quote!(o.get(#name).is_some_and(#f))));
                    }
                    sub => {
                        let f = sub.closure();
                        checks.push(Check::Expr(quote!(o.get(#name).is_none_or(#f))));
                    }
                }
            }
        }
        let mut patterns = Vec::new();
        if let Some(p) = o.get("patternProperties") {
            let Value::Object(properties) = p else {
                return Err(Unsupported(format!(
                    "`patternProperties` that is not an object at `#{at}`"
                )));
            };
            for (pattern, sub) in properties {
                let name = self.pattern(&Value::String(pattern.clone()), at)?;
                let sub =
                    self.schema(sub, &format!("{at}/patternProperties/{}", escape(pattern)))?;
                patterns.push(name.clone());
                match sub {
                    Check::True => {}
                    Check::False => {
                        checks.push(Check::Expr(quote!(o.keys().all(|k| !#name.is_match(k)))))
                    }
                    sub => {
                        let e = sub.operand();
                        checks.push(Check::Expr(
                            quote!(o.iter().all(|(k, v)| !#name.is_match(k) || #e)),
                        ));
                    }
                }
            }
        }
        if let Some(additional) = o.get("additionalProperties") {
            let sub = self.schema(additional, &format!("{at}/additionalProperties"))?;
            let mut declared: Vec<TokenStream> = Vec::new();
            if !known.is_empty() {
                declared.push(quote!(matches!(k, #(#known)|*)));
            }
            declared.extend(patterns.iter().map(|p| quote!(#p.is_match(k))));
            let declared = quote!(#(#declared)||*);
            match sub {
                Check::True => {}
                Check::False if known.is_empty() && patterns.is_empty() => {
                    checks.push(Check::Expr(quote!(o.is_empty())));
                }
                Check::False => checks.push(Check::Expr(quote!(o.keys().all(|k| #declared)))),
                sub if known.is_empty() && patterns.is_empty() => {
                    let f = sub.closure();
                    checks.push(Check::Expr(quote!(o.values().all(#f))));
                }
                sub => {
                    let e = sub.operand();
                    checks.push(Check::Expr(quote!(o.iter().all(|(k, v)| #declared || #e))));
                }
            }
        }
        self.names_and_dependencies(o, at, &mut checks)?;
        Ok(all(checks))
    }

    /// `propertyNames`, `dependentRequired` and `dependentSchemas`, onto `checks`.
    fn names_and_dependencies(
        &mut self,
        o: &'a Map<String, Value>,
        at: &str,
        checks: &mut Vec<Check>,
    ) -> Result<(), Unsupported> {
        if let Some(names) = o.get("propertyNames") {
            let sub = self.schema(names, &format!("{at}/propertyNames"))?;
            if matches!(sub, Check::False) {
                checks.push(Check::Expr(quote!(o.is_empty())));
            } else if !matches!(sub, Check::True) {
                let e = sub.expr();
                checks.push(Check::Expr(quote!(o.keys().all(|k| {
                    let v = &check::Json::String(::std::borrow::Cow::Borrowed(k));
                    #e
                }))));
            }
        }
        if let Some(d) = o.get("dependentRequired") {
            let Value::Object(d) = d else {
                return Err(Unsupported(format!(
                    "`dependentRequired` that is not an object at `#{at}`"
                )));
            };
            for (name, required) in d {
                let required = strings_of(required, "dependentRequired", at)?;
                let present = all(required
                    .iter()
                    .map(|r| Check::Expr(quote!(o.contains_key(#r))))
                    .collect());
                if !matches!(present, Check::True) {
                    let present = present.operand();
                    checks.push(Check::Or(quote!(!o.contains_key(#name) || #present)));
                }
            }
        }
        if let Some(d) = o.get("dependentSchemas") {
            let Value::Object(d) = d else {
                return Err(Unsupported(format!(
                    "`dependentSchemas` that is not an object at `#{at}`"
                )));
            };
            for (name, sub) in d {
                let sub = self.schema(sub, &format!("{at}/dependentSchemas/{}", escape(name)))?;
                match sub {
                    Check::True => {}
                    Check::False => checks.push(Check::Expr(quote!(!o.contains_key(#name)))),
                    sub => {
                        let e = sub.operand();
                        checks.push(Check::Or(quote!(!o.contains_key(#name) || #e)));
                    }
                }
            }
        }
        Ok(())
    }

    fn combinators(&mut self, o: &'a Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
        let mut checks = Vec::new();
        for keyword in ["allOf", "anyOf", "oneOf"] {
            let Some(list) = o.get(keyword) else { continue };
            let Value::Array(list) = list else {
                return Err(Unsupported(format!(
                    "`{keyword}` that is not an array at `#{at}`"
                )));
            };
            if list.is_empty() {
                return Err(Unsupported(format!("an empty `{keyword}` at `#{at}`")));
            }
            let mut subs = Vec::new();
            for (i, s) in list.iter().enumerate() {
                subs.push(self.schema(s, &format!("{at}/{keyword}/{i}"))?);
            }
            checks.push(match keyword {
                "allOf" => all(subs),
                "anyOf" => any(subs),
                _ => one_of(subs),
            });
        }
        if let Some(not) = o.get("not") {
            checks.push(match self.schema(not, &format!("{at}/not"))? {
                Check::True => Check::False,
                Check::False => Check::True,
                sub => {
                    let e = sub.operand();
                    Check::Expr(quote!(!#e))
                }
            });
        }
        if let Some(condition) = o.get("if") {
            let c = self.schema(condition, &format!("{at}/if"))?;
            let then = match o.get("then") {
                Some(s) => self.schema(s, &format!("{at}/then"))?,
                None => Check::True,
            };
            let otherwise = match o.get("else") {
                Some(s) => self.schema(s, &format!("{at}/else"))?,
                None => Check::True,
            };
            checks.push(match c {
                Check::True => then,
                Check::False => otherwise,
                c => {
                    let (c, then, otherwise) = (c.expr(), then.expr(), otherwise.expr());
                    Check::Expr(quote!(if #c { #then } else { #otherwise }))
                }
            });
        }
        Ok(all(checks))
    }
}

/// `oneOf`: exactly one of `subs` passes. Branches known to pass or fail are
/// counted here, not at run time.
fn one_of(subs: Vec<Check>) -> Check {
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
            other => {
                let e = other.operand();
                Check::Expr(quote!(!#e))
            }
        },
        (_, 1) => open.into_iter().next().unwrap_or(Check::False),
        _ => {
            let exprs = open.iter().map(Check::expr);
            Check::Expr(quote!(#(usize::from(#exprs))+* == 1))
        }
    }
}

/// `type`: one name or a list of them.
fn types(t: &Value, at: &str) -> Result<Check, Unsupported> {
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
            "null" => quote!(v.is_null()),
            "boolean" => quote!(v.is_boolean()),
            "object" => quote!(v.is_object()),
            "array" => quote!(v.is_array()),
            "number" => quote!(v.is_number()),
            "string" => quote!(v.is_string()),
            "integer" => quote!(check::is_integer(v)),
            other => return Err(Unsupported(format!("`type: {other}` at `#{at}`"))),
        });
    }
    Ok(any(alternatives.into_iter().map(Check::Expr).collect()))
}

/// `minimum`, `maximum`, the exclusive ones and `multipleOf`.
fn numbers(o: &Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
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
        let f = format_ident!("{function}");
        checks.push(Check::Expr(quote!(check::#f(n, #limit))));
    }
    if let Some(m) = o.get("multipleOf") {
        let m = m.as_f64().filter(|m| *m > 0.0).ok_or_else(|| {
            Unsupported(format!(
                "`multipleOf` that is not a positive number at `#{at}`"
            ))
        })?;
        let m = Literal::f64_unsuffixed(m);
        checks.push(Check::Expr(quote!(check::multiple_of(n, #m))));
    }
    Ok(all(checks))
}

/// A bound as the `jsonschema` crate compares it: with the limit's own type.
fn limit_of(v: &Value) -> Option<TokenStream> {
    let n = v.as_number()?;
    Some(if let Some(u) = n.as_u64() {
        let u = Literal::u64_unsuffixed(u);
        quote!(check::Limit::U64(#u))
    } else if let Some(i) = n.as_i64() {
        let i = Literal::i64_unsuffixed(i);
        quote!(check::Limit::I64(#i))
    } else {
        let f = Literal::f64_unsuffixed(n.as_f64().filter(|f| f.is_finite())?);
        quote!(check::Limit::F64(#f))
    })
}

/// A non-negative integer keyword (`minLength`, `maxItems`, ...); `2.0` counts.
fn count(o: &Map<String, Value>, keyword: &str, at: &str) -> Result<Option<u64>, Unsupported> {
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
fn length_at_least(x: TokenStream, n: u64) -> Check {
    match n {
        0 => Check::True,
        1 => Check::Expr(quote!(!#x.is_empty())),
        n => {
            let n = Literal::u64_unsuffixed(n);
            Check::Expr(quote!(#x.len() as u64 >= #n))
        }
    }
}

fn strings_of<'v>(v: &'v Value, keyword: &str, at: &str) -> Result<Vec<&'v str>, Unsupported> {
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
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// `%xx` escapes of a URI fragment decoded; `None` for a malformed one.
fn percent_decode(s: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(schema: Value) -> Result<String, Unsupported> {
        let tokens = compile(&schema, "input", "the input schema")?;
        let prelude = prelude(&[&tokens]);
        let file: syn::File =
            syn::parse2(quote!(#prelude #tokens)).map_err(|e| Unsupported(e.to_string()))?;
        Ok(prettyplease::unparse(&file))
    }

    #[test]
    fn a_shared_definition_is_called_not_compiled() {
        let schema = json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/Point"}, "q": {"$ref": "#/$defs/Own"}},
            "$defs": {"Point": {"type": "string", "minLength": 3}, "Own": {"type": "integer"}}
        });
        let external = External::from([(
            "/$defs/Point".to_owned(),
            quote!(super::defs::point_is_valid),
        )]);
        let tokens = compile_with(&schema, "input", "the input schema", &external)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let prelude = prelude(&[&tokens]);
        let file: syn::File =
            syn::parse2(quote!(#prelude #tokens)).unwrap_or_else(|e| panic!("{e}"));
        let t = prettyplease::unparse(&file);
        assert!(t.contains("super::defs::point_is_valid"), "{t}");
        // `Own` is compiled here; `Point` (its length check) is not.
        assert!(t.contains("fn input_ref_"), "{t}");
        assert!(!t.contains("length_within"), "{t}");
    }

    #[test]
    fn keywords_become_code() {
        let t = text(json!({
            "type": "object",
            "required": ["a"],
            "properties": {"a": {"type": "string", "minLength": 1, "pattern": "^x"}, "b": {"$ref": "#/$defs/B"}},
            "additionalProperties": false,
            "$defs": {"B": {"enum": ["p", 2, null]}}
        }))
        .unwrap_or_else(|e| panic!("{e:?}"));
        for needle in [
            "pub fn input_is_valid(v: &check::Json<'_>) -> bool",
            "length_within(s, 1, u64::MAX)",
            "is_none_or(input_ref_1)",
            "matches!(k, \"a\" | \"b\")",
            "fn input_ref_1(",
            "INPUT_PATTERN_0.is_match(s)",
            "matches!(v.as_str(), Some(\"p\"))",
        ] {
            assert!(t.contains(needle), "{needle} in\n{t}");
        }
    }

    #[test]
    fn what_is_not_compiled_is_refused() {
        for schema in [
            json!({"unevaluatedProperties": false}),
            json!({"$ref": "other.json#/x"}),
            json!({"properties": {"a": {"pattern": "(?=a)b"}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            json!({"$ref": "#/$defs/missing"}),
        ] {
            assert!(text(schema.clone()).is_err(), "{schema}");
        }
    }
}
