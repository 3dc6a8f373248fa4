//! A tool set's shared module: the types of the definitions that several of
//! its schemas hold identically ([`SharedDefs`]), generated once and referred
//! to by the tools through typify replacements.

use std::collections::BTreeMap;

use serde_json::Value;
use typify::TypeSpaceImpl;

use super::names::{approximate_type_name, rust_type_name};
use super::post;
use super::shared_defs::SharedDefs;
use super::type_space::{Replacement, typify};
use crate::ir::ToolSet;

/// The shared module of a tool set. `None` (from [`SharedModule::new`]) when
/// nothing is shared, or when typify cannot generate the types or names them
/// otherwise than expected: then every tool keeps its own copies.
pub struct SharedModule {
    /// The module's name (`defs`, or `defs_` beside a tool module `defs`).
    pub module: String,
    defs: SharedDefs,
    pub items: Vec<syn::Item>,
    /// Definition name -> type name and implementations.
    types: BTreeMap<String, (String, Vec<TypeSpaceImpl>)>,
}

impl SharedModule {
    pub fn new(set: &ToolSet, tool_modules: &[String]) -> Option<SharedModule> {
        let schemas = set
            .tools
            .iter()
            .flat_map(|t| [&t.input.value, &t.output.value]);
        let defs = SharedDefs::find(schemas, |d| rust_type_name(d).is_some());
        if defs.is_empty() {
            return None;
        }
        let all = serde_json::json!({ "$defs": defs.defs });
        let typified = typify(&all, None, &[]).ok()?;
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
        let specs = set.tools.iter().flat_map(|t| [&t.input, &t.output]);
        let facts = post::object_facts(specs);
        post::order_fields(&mut items, &facts);
        post::nullable_fields(&mut items, &facts);
        Some(SharedModule {
            module,
            defs,
            items,
            types,
        })
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
