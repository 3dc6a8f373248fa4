//! How compiled checks become functions: which subschemas get a function of
//! their own, the functions' names and doc lines, and the ones nothing calls.

use super::super::ast::{self};
use serde_json::Value;

/// `functions` without those no other one calls (a subschema's function
/// whose check was dropped, an `allOf` with a `false` branch): the first, the
/// entry point, and what it reaches.
pub(super) fn reachable(functions: Vec<syn::ItemFn>) -> Vec<syn::ItemFn> {
    let names: Vec<String> = functions.iter().map(|f| f.sig.ident.to_string()).collect();
    let mut reached = vec![false; functions.len()];
    let mut todo = vec![0];
    while let Some(i) = todo.pop() {
        if reached.get(i).copied().unwrap_or(true) {
            continue;
        }
        reached[i] = true;
        ast::each_name_in(&functions[i].block.stmts, &mut |name| {
            if let Some(j) = names.iter().position(|n| name == n) {
                todo.push(j);
            }
        });
    }
    functions
        .into_iter()
        .zip(reached)
        .filter_map(|(f, r)| r.then_some(f))
        .collect()
}

/// Whether a schema holds subschemas (then its check gets a function of its
/// own, so that no function nests another's closures).
pub(super) fn nests(s: &Value) -> bool {
    const HOLDING: &[&str] = &[
        "properties",
        "patternProperties",
        "additionalProperties",
        "items",
        "prefixItems",
        "contains",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "dependentSchemas",
        "propertyNames",
    ];
    s.as_object().is_some_and(|o| {
        HOLDING
            .iter()
            .any(|k| o.get(*k).is_some_and(|v| v != &Value::Bool(true)))
    })
}

/// A readable name for the function of the subschema at `at`: the property
/// names on the way, `item` for `items`, `value` for `additionalProperties`.
pub(super) fn name_of(at: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut segments = at
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"));
    while let Some(s) = segments.next() {
        match s.as_str() {
            "properties" | "patternProperties" | "dependentSchemas" | "$defs" | "definitions" => {
                if let Some(name) = segments.next() {
                    words.push(
                        crate::ident::rust_snake(&name)
                            .trim_start_matches("r#")
                            .to_owned(),
                    );
                }
            }
            "items" => words.push("item".to_owned()),
            "additionalProperties" => words.push("value".to_owned()),
            n if n.bytes().all(|b| b.is_ascii_digit()) => words.push(n.to_owned()),
            other => words.push(
                crate::ident::rust_snake(other)
                    .trim_start_matches("r#")
                    .to_owned(),
            ),
        }
    }
    words.join("_")
}
