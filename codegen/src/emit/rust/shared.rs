//! A tool set's shared module: the types of the definitions that several of
//! its schemas hold identically ([`SharedDefs`]), generated once and referred
//! to by the tools through typify replacements, and their compiled
//! validators, which the tools' validators call.

use std::collections::BTreeMap;

use serde_json::Value;
use typify::TypeSpaceImpl;

use super::ast;
use super::names::{approximate_type_name, rust_type_name};
use super::post;
use super::shared_defs::SharedDefs;
use super::type_space::{Impls, Replacement, typify};
use super::validate::{self, External};
use crate::ir::ToolSet;

/// The shared module of a tool set: what the tools' modules need to refer
/// to it, no syntax (so one copy serves every worker thread). `None` (from
/// [`SharedModule::new`]) when nothing is shared, or when typify cannot
/// generate the types or names them otherwise than expected: then every
/// tool keeps its own copies.
pub struct SharedModule {
    /// The module's name (`defs`, or `defs_` beside a tool module `defs`).
    pub module: String,
    /// Of everything below and the name: what a tool's replacements and
    /// validator paths follow from besides its own schemas (a tool file's
    /// cache key takes it instead of working them out).
    pub digest: crate::digest::Digest,
    defs: SharedDefs,
    /// Definition name -> type name and implementations.
    types: BTreeMap<String, (String, Vec<TypeSpaceImpl>)>,
    /// Definition name -> its validator function; empty when one of the
    /// definitions cannot be compiled (then each tool compiles its copies).
    validators: BTreeMap<String, String>,
}

impl SharedModule {
    /// The shared module of `set` and its items (which stay on the thread
    /// that built them: syntax trees are not `Send`).
    pub fn new(set: &ToolSet, tool_modules: &[String]) -> Option<(SharedModule, Vec<syn::Item>)> {
        // Only the definitions are looked into: of a kept schema, they are
        // decoded alone (the rest of it is read only if its tool changed).
        let members = set
            .tools
            .iter()
            .flat_map(|t| [&t.input.value, &t.output.value])
            .filter_map(|v| v.defs());
        let defs = SharedDefs::find_in(members, |d| rust_type_name(d).is_some());
        if defs.is_empty() {
            return None;
        }
        let all = serde_json::json!({ "$defs": defs.defs });
        let typified = typify(&all, None, &[], Impls::Listed).ok()?;
        let mut types = BTreeMap::new();
        for def in defs.defs.keys() {
            let name = rust_type_name(def)?;
            let impls = typified
                .types
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, i)| i.clone())?;
            types.insert(def.clone(), (name, impls));
        }
        // Two shared definitions typify would give one name (`track`, `Track`): share neither.
        let mut names: Vec<&String> = types.values().map(|(n, _)| n).collect();
        names.sort();
        names.dedup();
        if names.len() != types.len() {
            return None;
        }
        let mut module = "defs".to_owned();
        while tool_modules.contains(&module) {
            module.push('_');
        }
        let mut items = typified.items;
        post::all(&mut items);
        let facts = defs_facts(set, &defs);
        post::order_fields(&mut items, &facts);
        post::nullable_fields(&mut items, &facts);
        let checks = Validators::compile(&defs).unwrap_or_default();
        items.splice(0..0, checks.prelude);
        items.extend(checks.items);
        let validators = checks.functions;
        let digest = crate::digest::Hasher::new()
            .str("rust shared module")
            .str(&module)
            .debug(&defs)
            .debug(&types)
            .debug(&validators)
            .finish();
        let shared = SharedModule {
            digest,
            module,
            defs,
            types,
            validators,
        };
        Some((shared, items))
    }

    /// The shared validators `schema`'s definitions may call instead of
    /// compiling their own copies, by the pointer a `$ref` names them with,
    /// as paths from a tool's module.
    pub fn validator_paths(&self, schema: &Value) -> External {
        self.defs
            .used_by(schema)
            .into_iter()
            .filter_map(|def| {
                let f = self.validators.get(&def)?;
                Some((
                    crate::schema::pointer_join("/$defs", &def),
                    ast::path(&["super", &self.module, f]),
                ))
            })
            .collect()
    }

    /// The shared types `schema` refers to instead of generating its own,
    /// as paths from a tool's `input` or `output` module.
    pub fn replacements(&self, schema: &Value) -> Vec<Replacement> {
        // typify replaces by type name: a shared name that another definition
        // of this schema would also get (`point` beside a shared `Point`)
        // would replace that one too, so such a name is not replaced at all.
        let used = self.defs.used_by(schema);
        let others: Vec<String> = schema
            .get("$defs")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.keys())
            .filter(|k| !used.contains(k))
            .map(|k| approximate_type_name(k))
            .collect();
        used.into_iter()
            .filter_map(|def| self.types.get(&def))
            .filter(|(name, _)| !others.contains(name))
            .map(|(name, impls)| Replacement {
                type_name: name.clone(),
                path: format!("super::super::{}::{name}", self.module),
                impls: impls.clone(),
            })
            .collect()
    }
}

/// The facts of the shared definitions' objects, each definition's from the
/// first schema of the set that holds it (so that its properties keep the
/// order that spec wrote them in). Only these: the facts of every object of
/// every tool (a walk of the whole set on every run, the larger part of
/// building this module) would only add other objects' orders, which could
/// reorder a shared type's fields after another tool's object with the same
/// property names.
fn defs_facts(set: &ToolSet, defs: &SharedDefs) -> Vec<post::ObjectFacts> {
    let mut facts = Vec::new();
    for (name, def) in &defs.defs {
        let holder = set
            .tools
            .iter()
            .flat_map(|t| [&t.input, &t.output])
            .find(|s| s.value.get("$defs").and_then(|d| d.get(name)) == Some(def));
        if let Some(spec) = holder {
            let at = crate::schema::pointer_join("/$defs", name);
            post::facts_under(spec, &at, &mut facts);
        }
    }
    facts
}

/// The shared definitions' validators, each compiled once into `pub fn
/// {name}_is_valid` (a reference to another shared definition calls its
/// function).
#[derive(Default)]
struct Validators {
    /// The `use` they need.
    prelude: Vec<syn::Item>,
    items: Vec<syn::Item>,
    /// Definition name -> its function.
    functions: BTreeMap<String, String>,
}

impl Validators {
    /// `None` when one of the definitions cannot be compiled.
    fn compile(defs: &SharedDefs) -> Option<Validators> {
        let names: Vec<&str> = defs.defs.keys().map(String::as_str).collect();
        let prefixes = crate::ident::unique(&names, crate::ident::rust_snake);
        let functions: BTreeMap<String, String> = names
            .iter()
            .zip(&prefixes)
            .map(|(name, prefix)| ((*name).to_owned(), format!("{prefix}_is_valid")))
            .collect();
        let external: External = functions
            .iter()
            .map(|(name, f)| (crate::schema::pointer_join("/$defs", name), ast::path(&[f])))
            .collect();
        let mut items = Vec::new();
        for ((name, schema), prefix) in defs.defs.iter().zip(&prefixes) {
            let what = format!("the shared definition `{name}`");
            items.extend(validate::compile_with(schema, prefix, &what, &external).ok()?);
        }
        Some(Validators {
            prelude: (!items.is_empty())
                .then(validate::prelude)
                .into_iter()
                .collect(),
            items,
            functions,
        })
    }
}
