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

mod check;
mod functions;
use self::functions::{name_of, nests, reachable};

pub use self::check::Unsupported;
use self::check::{
    Check, all, any, check_fn, count, entries, escape, ge, has_key, is_match, key_value, keys, le,
    length_at_least, length_compared, numbers, one_of, percent_decode, strings_of, types,
};

use std::collections::BTreeMap;

use proc_macro2::Literal;
use quote::quote;
use serde_json::{Map, Value};
use syn::{Expr, Stmt};

use super::ast::{self, call, method, not, var};

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

struct Compiler<'a> {
    root: &'a Value,
    external: &'a External,
    prefix: String,
    /// Functions' names by the JSON pointer of their schema (`""`: the root).
    functions: BTreeMap<String, String>,
    /// Schemas whose functions are still to be written, in order.
    pending: Vec<(String, &'a Value)>,
    /// Patterns and constants, by name: only those a function uses are written.
    statics: Vec<(String, syn::Item)>,
    patterns: BTreeMap<String, String>,
    constants: usize,
    /// Subschemas compiled into functions of their own, with their checks,
    /// not yet written.
    compiled: Vec<(String, Check)>,
}

/// Definitions compiled elsewhere, by the JSON pointer a `$ref` names them
/// with (`/$defs/Point`): the path of their validator, which the compiled
/// code calls instead of compiling them again (a tool set's shared ones).
pub type External = BTreeMap<String, syn::Path>;

/// Compiles `schema` into items: `pub fn {prefix}_is_valid(v: &check::Json) -> bool`
/// and the private functions and statics it uses. `what` names the schema in
/// the doc comment. The items call `check::...`: put `prelude` once beside
/// them (or all the validators of one module).
pub fn compile(schema: &Value, prefix: &str, what: &str) -> Result<Vec<syn::Item>, Unsupported> {
    compile_with(schema, prefix, what, &External::new())
}

/// Whether a draft-6 or draft-7 schema means what it would in 2020-12, so
/// that its compiled validator (2020-12's semantics) answers as the draft's
/// does: no keyword beside a `$ref` but annotations (ignored in draft 7), no
/// list of `items` or `additionalItems`, no `dependencies`, no `format` (which
/// the `jsonschema` crate asserts in draft 7 and only notes in 2020-12), and
/// no keyword of 2019-09 or later (not one in draft 7).
fn means_the_same_in_2020_12(schema: &Value) -> bool {
    const ANNOTATIONS: &[&str] = &[
        "$ref",
        "title",
        "description",
        "default",
        "examples",
        "$comment",
    ];
    const DIFFERENT: &[&str] = &[
        "additionalItems",
        "dependencies",
        "format",
        "prefixItems",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedItems",
        "unevaluatedProperties",
        "minContains",
        "maxContains",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
    ];
    let mut same = true;
    crate::schema::walk(schema, "", &mut |ptr, o| {
        let beside_ref =
            o.contains_key("$ref") && o.keys().any(|k| !ANNOTATIONS.contains(&k.as_str()));
        // A subschema's own `$id` would move the base of the refs below it.
        let moves_base = !ptr.is_empty() && o.contains_key("$id");
        same &= !beside_ref
            && !moves_base
            && !o.get("items").is_some_and(Value::is_array)
            && !o.keys().any(|k| DIFFERENT.contains(&k.as_str()));
    });
    same
}

/// [`compile`], calling the validators of `external` for the `$ref`s that
/// name them.
pub fn compile_with(
    schema: &Value,
    prefix: &str,
    what: &str,
    external: &External,
) -> Result<Vec<syn::Item>, Unsupported> {
    if let Some(s) = schema.get("$schema").and_then(Value::as_str) {
        let draft = s.trim_end_matches('#');
        let same = draft == "https://json-schema.org/draft/2020-12/schema"
            || (matches!(
                crate::schema::draft_of(schema),
                jsonschema::Draft::Draft7 | jsonschema::Draft::Draft6
            ) && means_the_same_in_2020_12(schema));
        if !same {
            return Err(Unsupported(format!(
                "`$schema: {s}` (draft 2020-12 is compiled, and draft-6 and draft-7 schemas that mean the same in it)"
            )));
        }
    }
    let mut c = Compiler {
        root: schema,
        external,
        prefix: prefix.to_owned(),
        functions: BTreeMap::from([(String::new(), format!("{prefix}_is_valid"))]),
        pending: vec![(String::new(), schema)],
        statics: Vec::new(),
        patterns: BTreeMap::new(),
        constants: 0,
        compiled: Vec::new(),
    };
    let mut checks = Vec::new();
    while !c.pending.is_empty() {
        let (at, s) = c.pending.remove(0);
        let check = c.schema(s, &at)?;
        checks.push((at, check));
        // Its subschemas' functions after it, in the order of their pointers.
        let mut subs = std::mem::take(&mut c.compiled);
        subs.sort_by(|a, b| a.0.cmp(&b.0));
        checks.extend(subs);
    }
    let mut functions = Vec::new();
    for (at, check) in checks {
        let name = ast::ident(&c.functions[&at]);
        let mut stmts = Vec::new();
        if matches!(check, Check::True | Check::False) {
            stmts.push(syn::parse_quote!(let _ = v;));
        }
        stmts.push(Stmt::Expr(check.expr(), None));
        let mut function = FUNCTION.with(Clone::clone);
        function.sig.ident = name;
        function.block.stmts = stmts;
        let doc = if at.is_empty() {
            // The entry point, the one public function.
            function.vis = syn::Visibility::Public(Default::default());
            format!(
                " Whether `v` is valid against {what}: the schema compiled to Rust by toolgen (same answers as the `jsonschema` crate, which reports the violations)."
            )
        } else {
            format!(" `#{at}` of {what}.")
        };
        function.attrs = super::comments::doc_values(doc.trim_start())
            .map(|l| ast::doc(&l))
            .collect();
        functions.push(function);
    }
    let functions = reachable(functions);
    // A check dropped after it was built (an `allOf` with a `false` branch)
    // leaves its statics unused: write only the used ones.
    let mut used = vec![false; c.statics.len()];
    for f in &functions {
        ast::each_name_in(&f.block.stmts, &mut |name| {
            for ((n, _), u) in c.statics.iter().zip(used.iter_mut()) {
                *u |= name == n;
            }
        });
    }
    let statics = c
        .statics
        .into_iter()
        .zip(used)
        .filter(|(_, used)| *used)
        .map(|((_, item), _)| item);
    Ok(functions
        .into_iter()
        .map(syn::Item::Fn)
        .chain(statics)
        .collect())
}

thread_local! {
    /// A validator function without its name, doc and body (made once per
    /// thread, each function a copy).
    static FUNCTION: syn::ItemFn = syn::parse_quote!(fn f(v: &check::Json<'_>) -> bool {});
    static PRELUDE: syn::Item = syn::parse_quote!(use ::toolgen_runtime::check;);
}

/// The `use` compiled validators need (`toolgen_runtime::check`: every one
/// takes a `check::Json`), once per module that holds any.
pub fn prelude() -> syn::Item {
    PRELUDE.with(Clone::clone)
}

/// [`compile`]d into the text of a module's body, formatted, its
/// `prelude` first: for a harness that writes validators out alone.
pub fn compile_text(schema: &Value, prefix: &str, what: &str) -> Result<String, Unsupported> {
    let mut items = vec![prelude()];
    items.extend(compile(schema, prefix, what)?);
    Ok(prettyplease::unparse(&syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items,
    }))
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
            ("number", "as_number", "n", numbers(o, at)?),
            ("string", "as_str", "s", self.strings(o, at)?),
            ("array", "as_array", "a", self.arrays(o, at)?),
            ("object", "as_object", "o", self.objects(o, at)?),
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
                    checks.push(match Some(kind) == single {
                        true => Check::False,
                        false => Check::Expr(not(method(var("v"), &format!("is_{kind}"), []))),
                    });
                    continue;
                }
                inner => inner.expr(),
            };
            let test = if Some(kind) == single {
                "is_some_and"
            } else {
                "is_none_or"
            };
            let accessed = method(var("v"), accessor, []);
            checks.push(Check::Expr(method(
                accessed,
                test,
                [ast::closure(ast::binding(binding), e)],
            )));
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
            return Ok(Check::Call(ast::path(&[f])));
        }
        let target = self
            .root
            .pointer(&decoded)
            .ok_or_else(|| Unsupported(format!("`$ref: {r}` at `#{at}` points at nothing")))?;
        let name = self.fresh(format!("{}_ref_{}", self.prefix, self.functions.len()));
        let path = ast::path(&[&name]);
        self.functions.insert(decoded.clone(), name);
        self.pending.push((decoded, target));
        Ok(Check::Call(path))
    }

    /// `base`, or `base_2`, `base_3`, ... if a function has that name already.
    fn fresh(&self, base: String) -> String {
        let mut name = base.clone();
        let mut n = 1;
        while self.functions.values().any(|f| *f == name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    /// A subschema's check: a call of a function of its own when it holds
    /// further subschemas (every function one level deep, like the types),
    /// else the check itself.
    fn sub(&mut self, s: &'a Value, at: &str) -> Result<Check, Unsupported> {
        let check = self.schema(s, at)?;
        if matches!(check, Check::True | Check::False | Check::Call(_)) || !nests(s) {
            return Ok(check);
        }
        let name = self.fresh(format!("{}_{}", self.prefix, name_of(at)));
        let path = ast::path(&[&name]);
        self.functions.insert(at.to_owned(), name);
        self.compiled.push((at.to_owned(), check));
        Ok(Check::Call(path))
    }

    /// `enum` / `const`: equal to one of `members`.
    fn one_of_values(&mut self, members: &[Value]) -> Check {
        let mut alternatives = Vec::new();
        let strings: Vec<&str> = members.iter().filter_map(Value::as_str).collect();
        if !strings.is_empty() {
            alternatives.push(ast::macro_call(
                "matches",
                quote!(v.as_str(), Some(#(#strings)|*)),
            ));
        }
        for m in members {
            match m {
                Value::String(_) => {}
                Value::Null => alternatives.push(method(var("v"), "is_null", [])),
                Value::Bool(b) => alternatives.push(ast::binary(
                    method(var("v"), "as_bool", []),
                    syn::BinOp::Eq(Default::default()),
                    call(var("Some"), [ast::boolean(*b)]),
                )),
                other => {
                    let name =
                        format!("{}_CONSTANT_{}", self.prefix.to_uppercase(), self.constants);
                    self.constants += 1;
                    let (ident, text) = (ast::ident(&name), other.to_string());
                    let item = syn::parse_quote! {
                        static #ident: check::Constant = check::Constant::new(#text);
                    };
                    let get = method(var(&name), "get", []);
                    alternatives.push(call(check_fn("equal"), [var("v"), get]));
                    self.statics.push((name, item));
                }
            }
        }
        any(alternatives.into_iter().map(Check::Expr).collect())
    }

    fn pattern(&mut self, p: &Value, at: &str) -> Result<String, Unsupported> {
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
        let name = format!(
            "{}_PATTERN_{}",
            self.prefix.to_uppercase(),
            self.patterns.len()
        );
        let (ident, source) = (ast::ident(&name), translated.as_ref());
        let doc = format!(" The pattern `{p}`.");
        let item = syn::parse_quote! {
            #[doc = #doc]
            static #ident: check::Pattern = check::Pattern::new(#source);
        };
        self.statics.push((name.clone(), item));
        self.patterns.insert(p.to_owned(), name.clone());
        Ok(name)
    }

    fn strings(&mut self, o: &'a Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
        let mut checks = Vec::new();
        let min = count(o, "minLength", at)?;
        let max = count(o, "maxLength", at)?;
        if min.is_some() || max.is_some() {
            let min = ast::lit(Literal::u64_unsuffixed(min.unwrap_or(0)));
            let max = max.map_or(ast::path_to(&["u64", "MAX"]), |m| {
                ast::lit(Literal::u64_unsuffixed(m))
            });
            checks.push(Check::Expr(call(
                check_fn("length_within"),
                [var("s"), min, max],
            )));
        }
        if let Some(p) = o.get("pattern") {
            let name = self.pattern(p, at)?;
            checks.push(Check::Expr(is_match(&name, "s")));
        }
        Ok(all(checks))
    }

    fn arrays(&mut self, o: &'a Map<String, Value>, at: &str) -> Result<Check, Unsupported> {
        let mut checks = Vec::new();
        if let Some(n) = count(o, "minItems", at)? {
            checks.push(length_at_least("a", n));
        }
        if let Some(n) = count(o, "maxItems", at)? {
            checks.push(Check::Expr(length_compared("a", le(), n)));
        }
        if o.get("uniqueItems") == Some(&Value::Bool(true)) {
            checks.push(Check::Expr(call(check_fn("unique"), [var("a")])));
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
                let sub = self.sub(item, &format!("{at}/prefixItems/{i}"))?;
                if !matches!(sub, Check::True) {
                    let got = method(var("a"), "get", [ast::lit(Literal::usize_unsuffixed(i))]);
                    checks.push(Check::Expr(method(got, "is_none_or", [sub.closure()])));
                }
            }
        }
        if let Some(items) = o.get("items") {
            let sub = self.sub(items, &format!("{at}/items"))?;
            let n = || ast::lit(Literal::usize_unsuffixed(prefix));
            let iter = || method(var("a"), "iter", []);
            match (sub, prefix) {
                (Check::True, _) => {}
                (Check::False, 0) => checks.push(Check::Expr(method(var("a"), "is_empty", []))),
                (Check::False, _) => {
                    let len = method(var("a"), "len", []);
                    checks.push(Check::Expr(ast::binary(len, le(), n())));
                }
                (sub, 0) => checks.push(Check::Expr(method(iter(), "all", [sub.closure()]))),
                (sub, _) => {
                    let rest = method(iter(), "skip", [n()]);
                    checks.push(Check::Expr(method(rest, "all", [sub.closure()])));
                }
            }
        }
        if let Some(contains) = o.get("contains") {
            let sub = self.sub(contains, &format!("{at}/contains"))?;
            let min = count(o, "minContains", at)?.unwrap_or(1);
            let max = count(o, "maxContains", at)?;
            // How many items pass, as a `u64`.
            let passing = |sub: Check| match sub {
                Check::True => ast::as_u64(method(var("a"), "len", [])),
                Check::False => ast::lit(Literal::u64_suffixed(0)),
                sub => {
                    let f = ast::closure(ast::by_reference(ast::binding("v")), sub.expr());
                    let filtered = method(method(var("a"), "iter", []), "filter", [f]);
                    ast::as_u64(method(filtered, "count", []))
                }
            };
            let lit = |n| ast::lit(Literal::u64_unsuffixed(n));
            checks.push(match (min, max) {
                (0, None) => Check::True,
                (1, None) => {
                    let iter = method(var("a"), "iter", []);
                    Check::Expr(method(iter, "any", [sub.closure()]))
                }
                (min, None) => Check::Expr(ast::binary(passing(sub), ge(), lit(min))),
                (min, Some(max)) => {
                    let range = ast::paren(ast::range_inclusive(lit(min), lit(max)));
                    let n = ast::reference(ast::paren(passing(sub)));
                    Check::Expr(method(range, "contains", [n]))
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
                .map(|n| Check::Expr(has_key(n))),
        );
        if let Some(n) = count(o, "minProperties", at)? {
            checks.push(length_at_least("o", n));
        }
        if let Some(n) = count(o, "maxProperties", at)? {
            checks.push(Check::Expr(length_compared("o", le(), n)));
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
                let sub = self.sub(sub, &format!("{at}/properties/{}", escape(name)))?;
                let needed = required.contains(&name.as_str());
                let got = || method(var("o"), "get", [ast::string(name)]);
                match sub {
                    Check::True if needed => checks.push(Check::Expr(has_key(name))),
                    Check::True => {}
                    Check::False if needed => return Ok(Check::False),
                    Check::False => checks.push(Check::Expr(not(has_key(name)))),
                    sub if needed => {
                        checks.push(Check::Expr(method(got(), "is_some_and", [sub.closure()])));
                    }
                    sub => {
                        checks.push(Check::Expr(method(got(), "is_none_or", [sub.closure()])));
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
                let sub = self.sub(sub, &format!("{at}/patternProperties/{}", escape(pattern)))?;
                match sub {
                    Check::True => {}
                    Check::False => {
                        let f = ast::closure(ast::binding("k"), not(is_match(&name, "k")));
                        checks.push(Check::Expr(method(keys(), "all", [f])));
                    }
                    sub => {
                        let e = ast::binary(not(is_match(&name, "k")), ast::or(), sub.operand());
                        checks.push(Check::Expr(method(entries(), "all", [key_value(e)])));
                    }
                }
                patterns.push(name);
            }
        }
        if let Some(additional) = o.get("additionalProperties") {
            let sub = self.sub(additional, &format!("{at}/additionalProperties"))?;
            // Whether the key `k` is declared: `matches!(k, ..) || P.is_match(k) ..`.
            let declared = |extra: Option<Expr>| {
                let mut declared: Vec<Expr> = Vec::new();
                if !known.is_empty() {
                    declared.push(ast::macro_call("matches", quote!(k, #(#known)|*)));
                }
                declared.extend(patterns.iter().map(|p| is_match(p, "k")));
                declared.extend(extra);
                ast::chain(&ast::or(), declared, || ast::boolean(false))
            };
            let undeclared = known.is_empty() && patterns.is_empty();
            match sub {
                Check::True => {}
                Check::False if undeclared => {
                    checks.push(Check::Expr(method(var("o"), "is_empty", [])));
                }
                Check::False => {
                    let f = ast::closure(ast::binding("k"), declared(None));
                    checks.push(Check::Expr(method(keys(), "all", [f])));
                }
                sub if undeclared => {
                    let values = method(var("o"), "values", []);
                    checks.push(Check::Expr(method(values, "all", [sub.closure()])));
                }
                sub => {
                    let e = declared(Some(sub.operand()));
                    checks.push(Check::Expr(method(entries(), "all", [key_value(e)])));
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
            let sub = self.sub(names, &format!("{at}/propertyNames"))?;
            if matches!(sub, Check::False) {
                checks.push(Check::Expr(method(var("o"), "is_empty", [])));
            } else if !matches!(sub, Check::True) {
                // The key as a JSON string, for the name's schema.
                let key: Stmt = syn::parse_quote! {
                    let v = &check::Json::String(::std::borrow::Cow::Borrowed(k));
                };
                let body = ast::block_expr(vec![key, Stmt::Expr(sub.expr(), None)]);
                let f = ast::closure(ast::binding("k"), body);
                checks.push(Check::Expr(method(keys(), "all", [f])));
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
                let present = all(required.iter().map(|r| Check::Expr(has_key(r))).collect());
                if !matches!(present, Check::True) {
                    checks.push(Check::Or(vec![not(has_key(name)), present.operand()]));
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
                let sub = self.sub(sub, &format!("{at}/dependentSchemas/{}", escape(name)))?;
                match sub {
                    Check::True => {}
                    Check::False => checks.push(Check::Expr(not(has_key(name)))),
                    sub => checks.push(Check::Or(vec![not(has_key(name)), sub.operand()])),
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
                subs.push(self.sub(s, &format!("{at}/{keyword}/{i}"))?);
            }
            checks.push(match keyword {
                "allOf" => all(subs),
                "anyOf" => any(subs),
                _ => one_of(subs),
            });
        }
        if let Some(not_schema) = o.get("not") {
            checks.push(match self.sub(not_schema, &format!("{at}/not"))? {
                Check::True => Check::False,
                Check::False => Check::True,
                sub => Check::Expr(not(sub.operand())),
            });
        }
        if let Some(condition) = o.get("if") {
            let c = self.sub(condition, &format!("{at}/if"))?;
            let then = match o.get("then") {
                Some(s) => self.sub(s, &format!("{at}/then"))?,
                None => Check::True,
            };
            let otherwise = match o.get("else") {
                Some(s) => self.sub(s, &format!("{at}/else"))?,
                None => Check::True,
            };
            checks.push(match c {
                Check::True => then,
                Check::False => otherwise,
                c => Check::Expr(ast::if_else(c.expr(), then.expr(), otherwise.expr())),
            });
        }
        Ok(all(checks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(schema: Value) -> Result<String, Unsupported> {
        compile_text(&schema, "input", "the input schema")
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
            ast::path(&["super", "defs", "point_is_valid"]),
        )]);
        let items = compile_with(&schema, "input", "the input schema", &external)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let t = prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items,
        });
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
    fn a_condition_first_in_a_body_stays_one_expression() {
        // Written as tokens and parsed back, `if .. {} else {} && x` at the
        // start of a function's body was a statement followed by `&&x` (a
        // reference, not a `bool`): code that did not compile.
        let t = text(json!({
            "allOf": [{"if": {"type": "string"}, "then": {"minLength": 2}}, {"type": "string"}]
        }))
        .unwrap_or_else(|e| panic!("{e:?}"));
        let file: syn::File = syn::parse_str(&t).unwrap_or_else(|e| panic!("{e}\n{t}"));
        for item in &file.items {
            if let syn::Item::Fn(f) = item {
                assert_eq!(f.block.stmts.len(), 1, "{t}");
            }
        }
        assert!(t.contains("if v.is_string() {"), "{t}");
    }

    #[test]
    fn what_is_not_compiled_is_refused() {
        for schema in [
            json!({"unevaluatedProperties": false}),
            json!({"$ref": "other.json#/x"}),
            json!({"properties": {"a": {"pattern": "(?=a)b"}}}),
            json!({"$schema": "http://json-schema.org/draft-04/schema#"}),
            // Draft 7 where it means something else than 2020-12 would.
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "format": "email"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{}]}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"a": {"$ref": "#/definitions/A", "maxLength": 1}},
                "definitions": {"A": {"type": "string"}}}),
            json!({"$ref": "#/$defs/missing"}),
        ] {
            assert!(text(schema.clone()).is_err(), "{schema}");
        }
        // What draft 7 and 2020-12 read alike is compiled.
        let zod = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A", "description": "An a."}},
            "definitions": {"A": {"type": "string", "const": "x"}}, "additionalProperties": false});
        assert!(text(zod).is_ok());
    }
}
