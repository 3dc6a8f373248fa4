//! Definitions that several schemas of a tool set hold identically.
//!
//! Bundling gives every tool schema its own copy of the definitions it
//! reaches (ToolVault's tools all carry the protocol's `Track`, `Point`,
//! `Annotation`, ...). An emitter that generates a type per definition would
//! generate each of them once per tool; with [`SharedDefs`] it can generate
//! them once per tool set and have the tools refer to that one copy.
//!
//! A definition is shared under its name when at least two schemas hold it
//! with the same closure: the same schema for it and for every definition it
//! reaches through local `$ref`s, so that the shared copy means the same in
//! each of them. Same-named definitions that differ stay with their tools.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The definitions shared within one tool set, by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SharedDefs {
    pub defs: BTreeMap<String, Value>,
}

impl SharedDefs {
    #[cfg(test)]
    /// Finds the definitions `schemas` share. Only names `eligible` accepts are
    /// shared (an emitter may not be able to name every definition); a
    /// definition that reaches an ineligible one is not shared either.
    pub fn find<'a>(
        schemas: impl IntoIterator<Item = &'a Value>,
        eligible: impl Fn(&str) -> bool,
    ) -> SharedDefs {
        SharedDefs::find_in(schemas.into_iter().filter_map(|s| s.get("$defs")), eligible)
    }

    /// [`SharedDefs::find`], given the schemas' `$defs` members.
    pub fn find_in<D: std::borrow::Borrow<Value>>(
        members: impl IntoIterator<Item = D>,
        eligible: impl Fn(&str) -> bool,
    ) -> SharedDefs {
        // (name, closure as JSON text) -> (schemas holding it, the closure).
        let mut groups: BTreeMap<(String, String), (usize, BTreeMap<String, Value>)> =
            BTreeMap::new();
        for member in members {
            let Some(defs) = member.borrow().as_object() else {
                continue;
            };
            for name in defs.keys() {
                let Some(closure) = closure(defs, name) else {
                    continue;
                };
                if !closure.keys().all(|k| eligible(k)) {
                    continue;
                }
                let key = (
                    name.clone(),
                    serde_json::to_string(&closure).unwrap_or_default(),
                );
                let group = groups.entry(key).or_insert_with(|| {
                    let owned = closure.into_iter().map(|(k, v)| (k, v.clone()));
                    (0, owned.collect())
                });
                group.0 += 1;
            }
        }
        // The most widely held first; a closure whose names are taken by a
        // different schema (a same-named, different definition) stays out.
        let mut candidates: Vec<_> = groups
            .into_iter()
            .filter(|(_, (count, _))| *count >= 2)
            .collect();
        candidates.sort_by(|((a, _), (m, _)), ((b, _), (n, _))| n.cmp(m).then_with(|| a.cmp(b)));
        let mut shared = BTreeMap::new();
        for (_, (_, closure)) in candidates {
            let fits = closure
                .iter()
                .all(|(k, v)| shared.get(k).is_none_or(|s: &Value| s == v));
            if fits {
                shared.extend(closure);
            }
        }
        SharedDefs { defs: shared }
    }

    /// The definitions of `schema` that can be replaced by the shared ones:
    /// those whose whole closure is shared as it stands.
    pub fn used_by(&self, schema: &Value) -> Vec<String> {
        let Some(defs) = defs_of(schema) else {
            return Vec::new();
        };
        defs.keys()
            .filter(|name| {
                closure(defs, name).is_some_and(|c| {
                    c.iter()
                        .all(|(k, v)| self.defs.get(k).is_some_and(|s| s == *v))
                })
            })
            .cloned()
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}

fn defs_of(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("$defs").and_then(Value::as_object)
}

/// `name` and every definition it reaches through `#/$defs/...` references,
/// or `None` when one of them is missing (or a reference points elsewhere in
/// the document, which a shared copy could not follow).
fn closure<'a>(defs: &'a Map<String, Value>, name: &str) -> Option<BTreeMap<String, &'a Value>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![name.to_owned()];
    while let Some(n) = todo.pop() {
        if out.contains_key(&n) {
            continue;
        }
        let def = defs.get(&n)?;
        let mut refs = Vec::new();
        local_refs(def, &mut refs)?;
        todo.extend(refs);
        out.insert(n, def);
    }
    Some(out)
}

/// The definition names `v` references (in its subschemas; data is not
/// looked at); `None` for a local reference that is not to a definition.
fn local_refs(v: &Value, out: &mut Vec<String>) -> Option<()> {
    let mut ok = true;
    crate::schema::walk(v, "", &mut |_, obj| {
        let Some(r) = obj.get("$ref").and_then(Value::as_str) else {
            return;
        };
        if r.starts_with('#') {
            match crate::schema::def_name(r) {
                Some(name) => out.push(name),
                None => ok = false,
            }
        }
    });
    ok.then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identical_closures_are_shared_and_differing_ones_stay() {
        let point = json!({"type": "object", "properties": {"x": {"type": "number"}}});
        let other_point = json!({"type": "object", "properties": {"y": {"type": "number"}}});
        let track = json!({"type": "array", "items": {"$ref": "#/$defs/Point"}});
        let a = json!({"$defs": {"Point": point, "Track": track, "Only": {"type": "string"}}});
        let b = json!({"$defs": {"Point": point, "Track": track}});
        // Same `Track` text, but its `Point` differs: neither is shared from here.
        let c = json!({"$defs": {"Point": other_point, "Track": track}});
        let shared = SharedDefs::find([&a, &b, &c], |_| true);
        assert_eq!(
            shared.defs.keys().collect::<Vec<_>>(),
            ["Point", "Track"],
            "shared by a and b; `Only` is held once"
        );
        assert_eq!(shared.defs["Point"], point);
        assert_eq!(shared.used_by(&a), ["Point", "Track"]);
        assert_eq!(shared.used_by(&c), Vec::<String>::new());
    }

    #[test]
    fn ineligible_names_and_foreign_references_keep_a_definition_home() {
        let a = json!({"$defs": {"A": {"$ref": "#/$defs/b-c"}, "b-c": {}, "D": {"$ref": "#/properties/x"}}});
        let shared = SharedDefs::find([&a, &a], |n| n != "b-c");
        assert!(shared.is_empty(), "{shared:?}");
    }
}
