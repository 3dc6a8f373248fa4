//! Sample values for the docs' "Calling it" section: the spec's own example
//! when it has one, otherwise a value built from the schema (the required
//! members, each its default, first allowed value or constant, or the least
//! value its bounds allow). Every sample is validated against its schema
//! when the docs are generated; a schema no value built this way satisfies
//! gets no sample, never a wrong one.

use serde_json::{Map, Value, json};

use crate::schema::{follow, strings};

/// How deep a built value goes (recursive schemas stop here).
const MAX_DEPTH: usize = 12;

/// A value of `schema` (a bundled tool schema), valid against it, or `None`.
pub fn sample(schema: &Value) -> Option<Value> {
    let v = build(schema, schema, 0)?;
    valid(schema, &v).then_some(v)
}

/// Whether `value` is valid against `schema` (in the dialect it declares).
pub fn valid(schema: &Value, value: &Value) -> bool {
    jsonschema::options()
        .with_draft(crate::schema::draft_of(schema))
        .build(schema)
        .is_ok_and(|v| v.is_valid(value))
}

fn build(root: &Value, schema: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let schema = follow(root, schema);
    let s = match schema {
        Value::Bool(true) => return Some(json!({})),
        Value::Object(s) => s,
        _ => return None,
    };
    for key in ["const", "default"] {
        if let Some(v) = s.get(key) {
            return Some(v.clone());
        }
    }
    if let Some(first) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return Some(first.clone());
    }
    if let Some(Value::Array(examples)) = s.get("examples") {
        if let Some(first) = examples.first() {
            return Some(first.clone());
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = s.get(key) {
            return branches.iter().find_map(|b| build(root, b, depth + 1));
        }
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        return all_of(root, s, parts, depth);
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.contains_key("properties") => "object",
        _ if s.contains_key("items") || s.contains_key("prefixItems") => "array",
        _ => return Some(json!({})),
    };
    Some(match ty {
        "null" => Value::Null,
        "boolean" => json!(false),
        "integer" => integer(s),
        "number" => number(s),
        "string" => string(s),
        "array" => {
            let n = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            // A tuple: each of its first items (`prefixItems`, or draft 7's
            // list of `items`), then the rest up to `minItems`.
            let (prefix, rest) = match (s.get("prefixItems"), s.get("items")) {
                (Some(Value::Array(p)), rest) => (p.as_slice(), rest),
                (None, Some(Value::Array(p))) => (p.as_slice(), s.get("additionalItems")),
                (_, rest) => (&[][..], rest),
            };
            let mut out = prefix
                .iter()
                .map(|p| build(root, p, depth + 1))
                .collect::<Option<Vec<_>>>()?;
            if out.len() < n {
                let one = build(root, rest.unwrap_or(&Value::Bool(true)), depth + 1)?;
                out.resize(n, one);
            }
            Value::Array(out)
        }
        "object" => object(root, s, depth)?,
        _ => return None,
    })
}

/// An object with every required property.
fn object(root: &Value, s: &Map<String, Value>, depth: usize) -> Option<Value> {
    let props = s.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for name in strings(s.get("required")) {
        let sub = props
            .and_then(|p| p.get(name))
            .unwrap_or(&Value::Bool(true));
        out.insert(name.to_owned(), build(root, sub, depth + 1)?);
    }
    Some(Value::Object(out))
}

/// The members every part of an `allOf` requires, merged.
fn all_of(root: &Value, s: &Map<String, Value>, parts: &[Value], depth: usize) -> Option<Value> {
    let mut merged = Map::new();
    for part in parts
        .iter()
        .chain(std::iter::once(&Value::Object(s.clone())))
    {
        let mut p = follow(root, part).clone();
        if let Value::Object(m) = &mut p {
            m.remove("allOf");
        }
        match build(root, &p, depth + 1)? {
            Value::Object(m) => merged.extend(m),
            other if parts.len() == 1 => return Some(other),
            _ => {}
        }
    }
    Some(Value::Object(merged))
}

fn bound(s: &Map<String, Value>, key: &str) -> Option<f64> {
    s.get(key).and_then(Value::as_f64)
}

fn integer(s: &Map<String, Value>) -> Value {
    let low = bound(s, "minimum")
        .map(f64::ceil)
        .or_else(|| bound(s, "exclusiveMinimum").map(|m| m.floor() + 1.0))
        .or_else(|| bound(s, "maximum").filter(|m| *m < 1.0).map(f64::floor))
        .unwrap_or(1.0);
    json!(low as i64)
}

fn number(s: &Map<String, Value>) -> Value {
    let low = bound(s, "minimum")
        .or_else(|| bound(s, "exclusiveMinimum").map(|m| m + 1.0))
        .or_else(|| bound(s, "maximum").filter(|m| *m < 1.0))
        .unwrap_or(1.0);
    if low.fract() == 0.0 && low.abs() < 1e15 {
        json!(low as i64)
    } else {
        json!(low)
    }
}

fn string(s: &Map<String, Value>) -> Value {
    let text = match s.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("time") => "00:00:00Z",
        Some("email") => "someone@example.org",
        Some("uri" | "url") => "https://example.org/",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        _ => "text",
    };
    let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut t = text.to_owned();
    while t.chars().count() < min {
        t.push('x');
    }
    json!(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_valid() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer", "exclusiveMinimum": 0},
                "mode": {"enum": ["fast", "slow"]},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 6}, "minItems": 2},
                "where": {"$ref": "#/$defs/Point"},
                "note": {"type": "string"}
            },
            "required": ["id", "mode", "tags", "where"],
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number", "maximum": -2.5}}, "required": ["x"]}}
        });
        assert_eq!(
            sample(&schema),
            Some(
                json!({"id": 1, "mode": "fast", "tags": ["textxx", "textxx"], "where": {"x": -2.5}})
            )
        );
        // A pattern the built string does not match: no sample rather than a wrong one.
        assert_eq!(
            sample(&json!({"type": "string", "pattern": "^[0-9]+$"})),
            None
        );
    }

    #[test]
    fn tuples_get_each_of_their_items() {
        let pair = json!({"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}],
            "minItems": 2, "maxItems": 2});
        assert_eq!(sample(&pair), Some(json!([1, "text"])));
        let draft07 = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array", "items": [{"type": "boolean"}], "additionalItems": {"type": "integer"},
            "minItems": 3});
        assert_eq!(sample(&draft07), Some(json!([false, 1, 1])));
    }
}
