//! Post-processing of typify's items, on the syntax tree parsed once: what
//! typify would get wrong for schemas toolgen accepts, fixed where it shows.

use std::collections::{BTreeMap, VecDeque};

use proc_macro2::TokenTree;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, Meta, Token};

use super::names::distinct_in_order;

/// Every pass, in order, over the items of one generated file.
pub fn all(items: &mut [syn::Item]) {
    share_error_modules(items);
    distinct_field_names(items);
    drop_name_only_docs(items);
    space_docs(items);
}

/// typify writes doc comments without a space after `///`; they get one, as
/// a person writes them.
fn space_docs(items: &mut [syn::Item]) {
    let fix = |attrs: &mut Vec<syn::Attribute>| {
        for attr in attrs.iter_mut() {
            let Some(text) = doc_text(attr) else { continue };
            if !text.is_empty() && !text.starts_with(' ') {
                // The literal replaced where it stands: no attribute parsed again.
                if let Meta::NameValue(syn::MetaNameValue {
                    value:
                        Expr::Lit(syn::ExprLit {
                            lit: Lit::Str(s), ..
                        }),
                    ..
                }) = &mut attr.meta
                {
                    *s = syn::LitStr::new(&format!(" {text}"), s.span());
                }
            }
        }
    };
    let fields = |fields: &mut syn::Fields| {
        for f in fields.iter_mut() {
            fix(&mut f.attrs);
        }
    };
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                fix(&mut s.attrs);
                fields(&mut s.fields);
            }
            syn::Item::Enum(e) => {
                fix(&mut e.attrs);
                for v in &mut e.variants {
                    fix(&mut v.attrs);
                    fields(&mut v.fields);
                }
            }
            syn::Item::Type(t) => fix(&mut t.attrs),
            syn::Item::Fn(f) => fix(&mut f.attrs),
            syn::Item::Mod(m) => {
                fix(&mut m.attrs);
                if let Some((_, content)) = &mut m.content {
                    space_docs(content);
                }
            }
            _ => {}
        }
    }
}

/// The doc attributes of a type item, to read or change.
fn type_attrs(item: &mut syn::Item) -> Option<(String, &mut Vec<syn::Attribute>)> {
    match item {
        syn::Item::Struct(s) => Some((s.ident.to_string(), &mut s.attrs)),
        syn::Item::Enum(e) => Some((e.ident.to_string(), &mut e.attrs)),
        syn::Item::Type(t) => Some((t.ident.to_string(), &mut t.attrs)),
        _ => None,
    }
}

/// The text of a `#[doc = "..."]` attribute.
fn doc_text(attr: &syn::Attribute) -> Option<String> {
    let Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    if !nv.path.is_ident("doc") {
        return None;
    }
    match &nv.value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.value()),
        _ => None,
    }
}

/// typify documents a type without a description with its own name in
/// backticks (`///`Input``), which says nothing; such docs are dropped.
fn drop_name_only_docs(items: &mut [syn::Item]) {
    for item in items {
        if let syn::Item::Mod(m) = item {
            if let Some((_, content)) = &mut m.content {
                drop_name_only_docs(content);
            }
            continue;
        }
        let Some((name, attrs)) = type_attrs(item) else {
            continue;
        };
        let trivial = format!("`{name}`");
        attrs.retain(|a| doc_text(a).is_none_or(|t| t.trim() != trivial));
    }
}

/// Documents the root type `name` with `text` when its schema gave it no
/// description (after [`drop_name_only_docs`], it has no doc then).
pub fn document_root(items: &mut [syn::Item], name: &str, text: &str) {
    for item in items {
        let Some((ident, attrs)) = type_attrs(item) else {
            continue;
        };
        if ident == name && !attrs.iter().any(|a| doc_text(a).is_some()) {
            let line = format!(" {text}");
            attrs.insert(0, super::ast::doc(&line));
        }
    }
}

/// Takes serde's `drop` (`Serialize` or `Deserialize`) off every type of a
/// side module whose values only go the other way: a server reads a tool's
/// input and writes its output, and each conversion it does not use is
/// code every build of the crate checks (about half its time). Derived or
/// written out by typify (a constrained string's `Deserialize`), it goes;
/// the `#[serde(..)]` attributes stay while a serde derive is left to read
/// them (they describe the wire whichever way), and go with the last one.
pub fn one_way(items: &mut Vec<syn::Item>, drop: &str) {
    let is_dropped = |p: &syn::Path| {
        let mut names = p.segments.iter().map(|s| s.ident.to_string());
        names.next().as_deref() == Some("serde")
            && names.next().as_deref() == Some(drop)
            && names.next().is_none()
    };
    items.retain(|item| match item {
        syn::Item::Impl(imp) => !imp.trait_.as_ref().is_some_and(|(p, _)| is_dropped(p)),
        _ => true,
    });
    for item in items {
        let attrs = match item {
            syn::Item::Struct(s) => &mut s.attrs,
            syn::Item::Enum(e) => &mut e.attrs,
            _ => continue,
        };
        let mut serde_left = false;
        for attr in attrs.iter_mut() {
            let Meta::List(list) = &mut attr.meta else {
                continue;
            };
            if !list.path.is_ident("derive") {
                continue;
            }
            // The derived paths' tokens, read as they are (not parsed).
            let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
            let paths: Vec<&[TokenTree]> =
                tokens.split(is_comma).filter(|p| !p.is_empty()).collect();
            let names = |p: &[TokenTree]| -> Vec<String> {
                p.iter()
                    .filter_map(|t| match t {
                        TokenTree::Ident(i) => Some(i.to_string()),
                        _ => None,
                    })
                    .collect()
            };
            let kept: Vec<&[TokenTree]> = paths
                .iter()
                .copied()
                .filter(|p| names(p) != ["serde", drop])
                .collect();
            serde_left |= kept
                .iter()
                .any(|p| names(p).first().is_some_and(|n| n == "serde"));
            if kept.len() < paths.len() {
                let mut joined = proc_macro2::TokenStream::new();
                for (i, path) in kept.iter().enumerate() {
                    if i > 0 {
                        joined.extend([TokenTree::Punct(proc_macro2::Punct::new(
                            ',',
                            proc_macro2::Spacing::Alone,
                        ))]);
                    }
                    joined.extend(path.iter().cloned());
                }
                list.tokens = joined;
            }
        }
        if !serde_left {
            strip_serde_attrs(item);
        }
    }
}

/// Removes every `#[serde(..)]` of a type, its fields and its variants.
fn strip_serde_attrs(item: &mut syn::Item) {
    let keep = |a: &syn::Attribute| !a.path().is_ident("serde");
    let fields = match item {
        syn::Item::Struct(s) => {
            s.attrs.retain(keep);
            vec![&mut s.fields]
        }
        syn::Item::Enum(e) => {
            e.attrs.retain(keep);
            e.variants
                .iter_mut()
                .map(|v| {
                    v.attrs.retain(keep);
                    &mut v.fields
                })
                .collect()
        }
        _ => return,
    };
    for field in fields.into_iter().flat_map(|f| f.iter_mut()) {
        field.attrs.retain(keep);
    }
}

/// The metas of a `#[serde(...)]` attribute; `None` for another attribute.
fn serde_metas(attr: &syn::Attribute) -> Option<Punctuated<Meta, Token![,]>> {
    if !attr.path().is_ident("serde") {
        return None;
    }
    attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .ok()
}

/// What post-processing needs to know of one object schema of a spec.
pub struct ObjectFacts {
    /// Its property names, in the order the spec wrote them (typify
    /// declares struct fields by name).
    pub order: Vec<String>,
    /// The optional properties whose schema allows `null`: absent, `null`
    /// and a value mean three things (see `toolgen_runtime::Nullable`).
    pub nullable: std::collections::BTreeSet<String>,
}

/// The facts of every object schema in `specs`.
pub fn object_facts<'a>(
    specs: impl IntoIterator<Item = &'a crate::ir::Schema>,
) -> Vec<ObjectFacts> {
    let mut facts = Vec::new();
    for spec in specs {
        facts_under(spec, "", &mut facts);
    }
    facts
}

/// Adds the facts of every object schema of `spec` at or under the pointer
/// `at` (`""`: the whole schema) to `facts`.
pub fn facts_under(spec: &crate::ir::Schema, at: &str, facts: &mut Vec<ObjectFacts>) {
    use serde_json::Value;
    let Some(root) = spec.value.pointer(at) else {
        return;
    };
    crate::schema::walk(root, at, &mut |ptr, obj| {
        let Some(props) = obj.get("properties").and_then(Value::as_object) else {
            return;
        };
        let base = crate::schema::pointer_join(ptr, "properties");
        let rank = |p: &str| crate::schema::Ranks::rank(spec, p);
        let required = crate::schema::strings(obj.get("required"));
        let nullable = props
            .iter()
            .filter(|(name, p)| {
                // A `$ref` to a nullable definition is nullable too.
                let p = crate::schema::follow(&spec.value, p);
                !required.contains(&name.as_str()) && allows_null(p)
            })
            .map(|(name, _)| name.clone())
            .collect();
        facts.push(ObjectFacts {
            order: crate::schema::property_order(props, &base, &rank)
                .into_iter()
                .cloned()
                .collect(),
            nullable,
        });
    });
}

/// Whether a property's schema allows `null` besides other values (a type
/// list or an `enum` with `null`, a union with a `null` branch, or no type
/// at all), with no default but `null` (a default makes absent mean that
/// value instead).
fn allows_null(p: &serde_json::Value) -> bool {
    use serde_json::Value;
    let Some(obj) = p.as_object() else {
        return p == &Value::Bool(true);
    };
    if !obj.get("default").is_none_or(Value::is_null) {
        return false;
    }
    let types = crate::schema::types_of(obj);
    let in_type = types.contains("null") && types.len() > 1;
    let in_enum = obj.get("enum").and_then(Value::as_array).is_some_and(|e| {
        e.len() > 1 && e.iter().any(Value::is_null) && (types.is_empty() || types.contains("null"))
    });
    let branch = ["anyOf", "oneOf"].iter().any(|k| {
        obj.get(*k).and_then(Value::as_array).is_some_and(|bs| {
            bs.len() > 1
                && bs
                    .iter()
                    .any(|b| b.get("type").and_then(Value::as_str) == Some("null"))
        })
    });
    // No keyword that constrains the value: any value, `null` included.
    let constraining = [
        "type",
        "$ref",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "properties",
        "items",
        "not",
        "if",
        "additionalProperties",
        "patternProperties",
    ];
    let any = !constraining.iter().any(|k| obj.contains_key(*k));
    in_type || in_enum || branch || any
}

/// The facts of the object schema whose property names are exactly those
/// of `fields` (its struct's), if any.
fn facts_of<'f>(facts: &'f [ObjectFacts], fields: &syn::FieldsNamed) -> Option<&'f ObjectFacts> {
    let mut set: Vec<String> = fields.named.iter().filter_map(wire_name).collect();
    set.sort();
    facts.iter().find(|f| {
        let mut names = f.order.clone();
        names.sort();
        names == set
    })
}

/// Every struct field of an optional, nullable property becomes
/// `toolgen_runtime::Nullable<T>` instead of typify's `Option<T>`, which
/// cannot tell absent from `null`: `#[serde(default, skip_serializing_if =
/// "...Nullable::is_absent")]`, so that each round-trips exactly.
pub fn nullable_fields(items: &mut [syn::Item], facts: &[ObjectFacts]) {
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                if let syn::Fields::Named(named) = &mut s.fields {
                    let Some(f) = facts_of(facts, named) else {
                        continue;
                    };
                    for field in named.named.iter_mut() {
                        if wire_name(field).is_some_and(|w| f.nullable.contains(&w)) {
                            make_nullable(field);
                        }
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &mut m.content {
                    nullable_fields(content, facts);
                }
            }
            _ => {}
        }
    }
}

/// `Option<T>` -> `Nullable<T>`, with the serde attributes that keep absent
/// and `null` apart. A field of any other type is left as it is.
fn make_nullable(field: &mut syn::Field) {
    let syn::Type::Path(tp) = &field.ty else {
        return;
    };
    let Some(last) = tp.path.segments.last() else {
        return;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return;
    };
    let (true, Some(syn::GenericArgument::Type(inner))) =
        (last.ident == "Option", args.args.first())
    else {
        return;
    };
    field.ty = syn::parse_quote!(::toolgen_runtime::Nullable<#inner>);
    for attr in field.attrs.iter_mut() {
        let Some(metas) = serde_metas(attr) else {
            continue;
        };
        let kept: Vec<Meta> = metas
            .into_iter()
            .filter(|m| !m.path().is_ident("skip_serializing_if") && !m.path().is_ident("default"))
            .collect();
        *attr = if kept.is_empty() {
            syn::parse_quote!(#[serde(default, skip_serializing_if = "::toolgen_runtime::Nullable::is_absent")])
        } else {
            syn::parse_quote!(#[serde(#(#kept,)* default, skip_serializing_if = "::toolgen_runtime::Nullable::is_absent")])
        };
        return;
    }
    field.attrs.push(syn::parse_quote!(
        #[serde(default, skip_serializing_if = "::toolgen_runtime::Nullable::is_absent")]
    ));
}

/// Declares the fields of every struct (and struct-like enum variant) in the
/// order of the object schema with the same property names, as the spec wrote
/// them; a field without a property (a flattened map of extra members) stays
/// last. Serde writes fields in declaration order, so outputs keep the spec's
/// order too.
pub fn order_fields(items: &mut [syn::Item], facts: &[ObjectFacts]) {
    let reorder = |fields: &mut syn::Fields| {
        let syn::Fields::Named(named) = fields else {
            return;
        };
        let wires: Vec<Option<String>> = named.named.iter().map(wire_name).collect();
        let Some(order) = facts_of(facts, named).map(|f| &f.order) else {
            return;
        };
        let position = |w: &Option<String>| {
            w.as_ref()
                .and_then(|w| order.iter().position(|o| o == w))
                .unwrap_or(usize::MAX)
        };
        let mut fields: Vec<(usize, syn::Field)> = std::mem::take(&mut named.named)
            .into_iter()
            .zip(&wires)
            .map(|(f, w)| (position(w), f))
            .collect();
        fields.sort_by_key(|(p, _)| *p);
        named.named = fields.into_iter().map(|(_, f)| f).collect();
    };
    for item in items {
        match item {
            syn::Item::Struct(s) => reorder(&mut s.fields),
            syn::Item::Enum(e) => e.variants.iter_mut().for_each(|v| reorder(&mut v.fields)),
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &mut m.content {
                    order_fields(content, facts);
                }
            }
            _ => {}
        }
    }
}

/// The name a field has on the wire: its serde `rename`, else its name;
/// `None` for a flattened field. (Asked several times per field: its
/// `#[serde(..)]` tokens are read as they are, not parsed into metas.)
fn wire_name(field: &syn::Field) -> Option<String> {
    let mut rename = None;
    for attr in &field.attrs {
        let Meta::List(list) = &attr.meta else {
            continue;
        };
        if !list.path.is_ident("serde") {
            continue;
        }
        // Each meta: the tokens between two top-level commas.
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        for meta in tokens.split(is_comma) {
            match meta {
                [TokenTree::Ident(i), rest @ ..] if i == "flatten" && !path_goes_on(rest) => {
                    return None;
                }
                [
                    TokenTree::Ident(i),
                    TokenTree::Punct(eq),
                    TokenTree::Literal(l),
                ] if i == "rename" && eq.as_char() == '=' => {
                    if let Lit::Str(s) = Lit::new(l.clone()) {
                        rename = Some(s.value());
                    }
                }
                _ => {}
            }
        }
    }
    rename.or_else(|| {
        field
            .ident
            .as_ref()
            .map(|i| i.to_string().trim_start_matches("r#").to_owned())
    })
}

/// Whether a meta's path goes on after its first name (`a::b`).
fn path_goes_on(rest: &[TokenTree]) -> bool {
    matches!(rest.first(), Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

/// Whether `t` is a comma: what separates an attribute's metas (or paths).
fn is_comma(t: &TokenTree) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == ',')
}

/// typify gives every type space an `error` module with the same 35-line
/// `ConversionError`; each becomes a re-export of the runtime's one definition,
/// so that no tool pays to compile its own copy.
fn share_error_modules(items: &mut [syn::Item]) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let Some((_, content)) = &mut m.content else {
            continue;
        };
        let typify_error = m.ident == "error"
            && content
                .iter()
                .any(|i| matches!(i, syn::Item::Struct(s) if s.ident == "ConversionError"));
        if typify_error {
            *content = vec![syn::parse_quote!(
                pub use ::toolgen_runtime::ConversionError;
            )];
        } else {
            share_error_modules(content);
        }
    }
}

/// typify names a property's field by snake-casing it, so `a-b`, `a_b` and
/// `A_B` all become `a_b`: one struct with three fields of one name. Every
/// such field after the first gets a number (`a_b_2`) and keeps its wire name
/// in `#[serde(rename)]`; the struct literal of a generated `Default` impl
/// follows, field by field in declaration order.
fn distinct_field_names(items: &mut [syn::Item]) {
    distinct_default_functions(items);
    // Struct name -> its fields' names in declaration order, after renaming.
    let mut renamed: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for item in items.iter_mut() {
        match item {
            syn::Item::Struct(s) => {
                if let syn::Fields::Named(fields) = &mut s.fields {
                    if let Some(names) = rename_duplicate_fields(fields) {
                        renamed.insert(s.ident.to_string(), names);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, content)) = &mut m.content {
                    distinct_field_names(content);
                }
            }
            _ => {}
        }
    }
    if renamed.is_empty() {
        return;
    }
    for_each_impl_literal(items, |ty, lit| {
        if let Some(names) = renamed.get(ty) {
            rename_struct_literal(lit, names);
        }
    });
}

/// Every struct literal that ends a function of an `impl` (typify's `impl
/// Default` bodies, `Self { .. }`), with the name of the implementing type.
fn for_each_impl_literal(
    items: &mut [syn::Item],
    mut visit: impl FnMut(&str, &mut syn::ExprStruct),
) {
    for item in items {
        let syn::Item::Impl(imp) = item else { continue };
        let syn::Type::Path(ty) = &*imp.self_ty else {
            continue;
        };
        let Some(name) = ty.path.segments.last().map(|seg| seg.ident.to_string()) else {
            continue;
        };
        for member in &mut imp.items {
            let syn::ImplItem::Fn(f) = member else {
                continue;
            };
            if let Some(syn::Stmt::Expr(Expr::Struct(lit), None)) = f.block.stmts.last_mut() {
                visit(&name, lit);
            }
        }
    }
}

/// typify names a field's default function `<type>_<field>` in the module's
/// `defaults`, so properties that snake-case alike get two functions of one
/// name. The later ones get a number, and the fields' `default = "..."` and
/// the `impl Default` calls follow in order: typify writes the functions in
/// the order of the fields.
fn distinct_default_functions(items: &mut [syn::Item]) {
    let mut renames = rename_default_functions(items);
    renames.retain(|_, queue| queue.len() > 1);
    if renames.is_empty() {
        return;
    }
    // `impl Default` struct literals call the functions, in field order too.
    let mut calls = renames.clone();
    for_each_impl_literal(items, |_, lit| {
        for fv in &mut lit.fields {
            let Expr::Call(call) = &mut fv.expr else {
                continue;
            };
            let Expr::Path(path) = &mut *call.func else {
                continue;
            };
            let segments = &mut path.path.segments;
            if segments.len() != 2 || segments[0].ident != "defaults" {
                continue;
            }
            let name = segments[1].ident.to_string();
            if let Some(new) = calls.get_mut(&name).and_then(VecDeque::pop_front) {
                segments[1].ident = syn::Ident::new(&new, segments[1].ident.span());
            }
        }
    });
    for item in items.iter_mut() {
        let syn::Item::Struct(s) = item else { continue };
        for field in &mut s.fields {
            for attr in &mut field.attrs {
                rename_default_path(attr, &mut renames);
            }
        }
    }
}

/// Numbers the repeated functions of every `defaults` module; returns, per
/// old name, the new names in order.
fn rename_default_functions(items: &mut [syn::Item]) -> BTreeMap<String, VecDeque<String>> {
    let mut renames: BTreeMap<String, VecDeque<String>> = BTreeMap::new();
    for item in items.iter_mut() {
        let syn::Item::Mod(m) = item else { continue };
        let Some((_, content)) = &mut m.content else {
            continue;
        };
        if m.ident != "defaults" {
            continue;
        }
        let names: Vec<String> = content
            .iter()
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
                _ => None,
            })
            .collect();
        let functions = content.iter_mut().filter_map(|i| match i {
            syn::Item::Fn(f) => Some(f),
            _ => None,
        });
        for ((f, old), new) in functions.zip(&names).zip(distinct_in_order(&names)) {
            f.sig.ident = syn::Ident::new(&new, f.sig.ident.span());
            renames.entry(old.clone()).or_default().push_back(new);
        }
    }
    renames
}

/// In `#[serde(default = "defaults::old")]`, the next new name of `old`.
fn rename_default_path(
    attr: &mut syn::Attribute,
    renames: &mut BTreeMap<String, VecDeque<String>>,
) {
    let Some(mut metas) = serde_metas(attr) else {
        return;
    };
    let mut changed = false;
    for meta in metas.iter_mut() {
        let Meta::NameValue(nv) = meta else { continue };
        if !nv.path.is_ident("default") {
            continue;
        }
        let Expr::Lit(syn::ExprLit {
            lit: Lit::Str(path),
            ..
        }) = &mut nv.value
        else {
            continue;
        };
        let Some(old) = path.value().strip_prefix("defaults::").map(str::to_owned) else {
            continue;
        };
        if let Some(new) = renames.get_mut(&old).and_then(VecDeque::pop_front) {
            *path = syn::LitStr::new(&format!("defaults::{new}"), path.span());
            changed = true;
        }
    }
    if changed {
        *attr = syn::parse_quote!(#[serde(#metas)]);
    }
}

/// Renames the second and later fields of one name; `None` when all differ.
/// The result lists every field as (name typify gave, name now).
fn rename_duplicate_fields(fields: &mut syn::FieldsNamed) -> Option<Vec<(String, String)>> {
    let names: Vec<String> = fields
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
        .collect();
    let distinct = distinct_in_order(&names);
    let mut result = Vec::new();
    let mut changed = false;
    let named = fields.named.iter_mut().filter(|f| f.ident.is_some());
    for ((field, old), new) in named.zip(names).zip(distinct) {
        let Some(span) = field.ident.as_ref().map(syn::Ident::span) else {
            continue; // filtered out above
        };
        if new == old {
            result.push((old.clone(), old));
            continue;
        }
        let has_rename = field
            .attrs
            .iter()
            .filter_map(serde_metas)
            .any(|metas| metas.iter().any(|m| m.path().is_ident("rename")));
        if !has_rename {
            let wire = syn::LitStr::new(&old, span);
            field
                .attrs
                .push(syn::parse_quote!(#[serde(rename = #wire)]));
        }
        field.ident = Some(syn::Ident::new(&new, span));
        result.push((old, new));
        changed = true;
    }
    changed.then_some(result)
}

/// Renames the fields of `Self { .. }` as `rename_duplicate_fields` renamed
/// the struct's: the k-th `a_b` here is the k-th `a_b` there.
fn rename_struct_literal(lit: &mut syn::ExprStruct, names: &[(String, String)]) {
    let mut used = vec![false; names.len()];
    for fv in &mut lit.fields {
        let syn::Member::Named(ident) = &mut fv.member else {
            continue;
        };
        let old = ident.to_string();
        let slot = names
            .iter()
            .enumerate()
            .find(|(i, (o, _))| !used[*i] && *o == old)
            .map(|(i, _)| i);
        if let Some(i) = slot {
            used[i] = true;
            if names[i].1 != old {
                // Shorthand `Self { a_b }` becomes `Self { a_b_2: a_b }`.
                fv.colon_token.get_or_insert_with(Default::default);
                *ident = syn::Ident::new(&names[i].1, ident.span());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::type_space::{tests::text, typify};
    use super::*;
    use serde_json::json;

    fn processed(schema: &serde_json::Value) -> String {
        let mut items = typify(
            schema,
            Some("Input"),
            &[],
            crate::emit::rust::type_space::Impls::Unlisted,
        )
        .map(|t| t.items)
        .unwrap_or_else(|e| panic!("{e}"));
        all(&mut items);
        text(&items)
    }

    #[test]
    fn wire_names_are_read_from_serde_attributes() {
        let s: syn::ItemStruct = syn::parse_quote! {
            struct S {
                #[serde(default, rename = "a-b", skip_serializing_if = "Option::is_none")]
                ab: Option<u8>,
                #[serde(flatten)]
                extra: ::std::collections::BTreeMap<String, u8>,
                #[doc = "plain"]
                r#type: u8,
                #[serde(rename(serialize = "x"), with = "flatten")]
                c: u8,
                #[serde(rename = "q\u{e9}\"")]
                q: u8,
            }
        };
        let names: Vec<Option<String>> = s.fields.iter().map(wire_name).collect();
        let expected = [
            Some("a-b"),
            None,
            Some("type"),
            Some("c"),
            Some("q\u{e9}\""),
        ];
        assert_eq!(names, expected.map(|n| n.map(str::to_owned)));
    }

    #[test]
    fn properties_typify_would_name_alike_get_distinct_fields() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a-b": {"type": "string", "default": "x"},
                "a_b": {"type": "string", "default": "y"},
                "A_B": {"type": "boolean"},
                "a_b_2": {"type": "string"}
            },
            "required": ["a_b_2"]
        });
        // Without required properties, typify also writes `impl Default` with a struct literal.
        let mut optional = schema.clone();
        optional["required"] = json!([]);
        let file = processed(&optional);
        assert!(
            file.contains("a_b_3: defaults::input_a_b(),")
                && file.contains("a_b_4: defaults::input_a_b_2(),"),
            "{file}"
        );
        let file = processed(&schema);
        let parsed = syn::parse_file(&file).unwrap_or_else(|e| panic!("{e}"));
        let fields: Vec<String> = parsed
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Struct(s) if s.ident == "Input" => Some(&s.fields),
                _ => None,
            })
            .flat_map(|f| {
                f.iter()
                    .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
            })
            .collect();
        let mut distinct = fields.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), fields.len(), "{file}");
        assert_eq!(fields.len(), 4, "{file}");
        // Two defaults, two functions: `input_a_b` for `a-b`, `input_a_b_2` for `a_b`.
        assert!(file.contains("fn input_a_b_2()"), "{file}");
        let first = file.find("default = \"defaults::input_a_b\"");
        let second = file.find("default = \"defaults::input_a_b_2\"");
        assert!(first.is_some() && second > first, "{file}");
        assert!(
            file.find("\"x\".to_string()") < file.find("\"y\".to_string()"),
            "{file}"
        );
        // Each keeps its wire name.
        for wire in ["\"a-b\"", "\"a_b\"", "\"A_B\""] {
            assert!(file.contains(&format!("rename = {wire}")), "{wire}: {file}");
        }
    }

    #[test]
    fn fields_follow_the_spec_and_flattened_ones_stay_last() {
        let mut items: Vec<syn::Item> = vec![syn::parse_quote! {
            pub mod m {
                pub struct A {
                    #[serde(rename = "flatten")] pub a: i32,
                    pub b: i32,
                    #[serde(flatten)] pub extra: X,
                    #[serde(rename = "r#type")] pub type_: i32,
                }
            }
        }];
        let facts = [
            vec!["b".to_owned(), "zz".to_owned()],
            vec!["r#type".to_owned(), "b".to_owned(), "flatten".to_owned()],
        ]
        .map(|order| ObjectFacts {
            order,
            nullable: Default::default(),
        });
        order_fields(&mut items, &facts);
        let file = prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items,
        });
        let at = |s: &str| file.find(s).unwrap_or(usize::MAX);
        assert!(
            at("type_") < at("pub b") && at("pub b") < at("pub a") && at("pub a") < at("extra"),
            "{file}"
        );
    }
}
