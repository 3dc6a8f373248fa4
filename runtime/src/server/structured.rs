//! MCP structured content for outputs that are not objects. MCP requires an
//! output schema, and structured content, to be objects; a tool whose output
//! schema is anything else (a string, an array, a union) is published with
//! its schema wrapped as the one required property `result` of an object, and
//! its outputs go out as `{"result": ...}`, as the MCP Python SDK does.
//!
//! toolgen's catalog emitter compiles this same file (`#[path]`), so that the
//! catalog and the server publish the same schema.

use serde_json::{Map, Value, json};

/// The output schema MCP clients are given: the schema itself when its
/// root is `"type": "object"`; any other wrapped as the one required
/// property `result` of an object.
pub fn published_output(schema: &Value) -> Value {
    if !wraps(schema) {
        let mut s = schema.clone();
        // A root that refers to an object's definition says so itself, as MCP asks.
        if let Value::Object(m) = &mut s {
            m.entry("type").or_insert_with(|| json!("object"));
        }
        return s;
    }
    let mut inner = schema.clone();
    let mut wrapper = Map::new();
    if let Value::Object(m) = &mut inner {
        for key in ["$schema", "$defs"] {
            if let Some(v) = m.remove(key) {
                wrapper.insert(key.to_owned(), v);
            }
        }
    }
    rebase_refs(&mut inner);
    if let Some(Value::Object(defs)) = wrapper.get_mut("$defs") {
        defs.values_mut().for_each(rebase_refs);
    }
    wrapper.insert("type".into(), json!("object"));
    wrapper.insert("properties".into(), json!({ "result": inner }));
    wrapper.insert("required".into(), json!(["result"]));
    Value::Object(wrapper)
}

/// Local references into the wrapped schema (`#`, `#/items`) point into
/// `/properties/result` once it is wrapped; `#/$defs/..` stay.
fn rebase_refs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                if let Some(rest) = r.strip_prefix('#') {
                    if !rest.starts_with("/$defs/") {
                        *r = format!("#/properties/result{rest}");
                    }
                }
            }
            m.values_mut().for_each(rebase_refs);
        }
        Value::Array(a) => a.iter_mut().for_each(rebase_refs),
        _ => {}
    }
}

/// Whether outputs of a tool with this output schema go out wrapped: its
/// root is not an object's schema, directly or through a `$ref` to one of
/// its definitions.
pub fn wraps(schema: &Value) -> bool {
    let mut s = schema;
    for _ in 0..16 {
        if s.get("type").and_then(Value::as_str) == Some("object") {
            return false;
        }
        let target = s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .filter(|name| !name.contains(['/', '~']))
            .and_then(|name| schema.get("$defs")?.get(name));
        match target {
            Some(t) => s = t,
            None => return true,
        }
    }
    true
}
