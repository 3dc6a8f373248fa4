//! Instances of a JSON Schema for tests: values drawn from a schema (valid
//! more often than not) and mutants of them (a key dropped or added, a value
//! of another type, numbers at and past their bounds, strings of other
//! lengths, items repeated), so that validators can be compared where they
//! are most likely to differ. Deterministic for a seed ([`Rng`]).

use serde_json::{Map, Value, json};

use crate::synth::Rng;

/// One of `items` (which must not be empty).
pub fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.below(items.len() as u64) as usize]
}

/// What a `#...` reference points at in `root`.
pub fn local_target<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// A value of `schema` (resolving `#/$defs/` and `#/definitions/` references in
/// `root`), or `None` when this sketch of a generator cannot tell one. It need
/// not be valid: every instance is checked with the JSON Schema validator
/// before it is used.
pub fn instance(rng: &mut Rng, root: &Value, schema: &Value, depth: u32) -> Option<Value> {
    if depth > 6 {
        return None;
    }
    let m = match schema {
        Value::Bool(true) => return Some(json!("any")),
        Value::Object(m) => m,
        _ => return None,
    };
    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
        let target = local_target(root, r)?;
        return instance(rng, root, target, depth + 1);
    }
    if let Some(c) = m.get("const") {
        return Some(c.clone());
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        return (!values.is_empty()).then(|| pick(rng, values).clone());
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = m.get(key) {
            let option = pick(rng, options);
            let mut merged = m.clone();
            merged.remove(key);
            if let Value::Object(o) = option {
                merged.extend(o.clone());
            }
            return instance(rng, root, &Value::Object(merged), depth + 1);
        }
    }
    if let Some(Value::Array(parts)) = m.get("allOf") {
        let mut merged = m.clone();
        merged.remove("allOf");
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        for part in parts {
            let part = match part.get("$ref").and_then(Value::as_str) {
                Some(r) => local_target(root, r)?,
                None => part,
            };
            if let Some(Value::Object(p)) = part.get("properties") {
                properties.extend(p.clone());
            }
            if let Some(Value::Array(r)) = part.get("required") {
                required.extend(r.iter().cloned());
            }
            if let Some(t) = part.get("type") {
                merged.insert("type".into(), t.clone());
            }
        }
        merged.insert("properties".into(), Value::Object(properties));
        merged.insert("required".into(), Value::Array(required));
        return instance(rng, root, &Value::Object(merged), depth + 1);
    }
    let ty = match m.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => pick(rng, ts).as_str()?.to_owned(),
        _ if m.contains_key("properties") => "object".to_owned(),
        _ if m.contains_key("items") => "array".to_owned(),
        _ => return Some(json!(7)),
    };
    let number = |key: &str| m.get(key).and_then(Value::as_f64);
    Some(match ty.as_str() {
        "null" => Value::Null,
        "boolean" => json!(rng.below(2) == 1),
        // A few candidates each; the validator drops those the schema refuses.
        "integer" => match rng.below(5) {
            0 => json!(number("minimum").map_or(2, |n| n.ceil() as i64)),
            1 => json!(-3),
            2 => json!(9_007_199_254_740_993_u64),
            // A whole number written as a float, as Python's json writes it.
            3 => json!(number("minimum").map_or(4.0, |n| n.ceil().max(4.0))),
            _ => json!(0),
        },
        "number" => match rng.below(4) {
            0 => json!(number("minimum").unwrap_or(1.5)),
            1 => json!(-2),
            2 => json!(1e20),
            _ => json!(0.1),
        },
        "string" => {
            let min = m.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            match rng.below(3) {
                0 => json!(""),
                1 => json!("\u{fc}ber \"quoted\" \u{2603}\n"),
                _ => json!("s".repeat(min.max(3) as usize)),
            }
        }
        "array" => {
            let count = m.get("minItems").and_then(Value::as_u64).unwrap_or(0) + rng.below(3);
            let items = m.get("items").cloned().unwrap_or(json!(true));
            let mut out = Vec::new();
            for _ in 0..count {
                out.push(instance(rng, root, &items, depth + 1)?);
            }
            Value::Array(out)
        }
        "object" => {
            let required: Vec<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(Value::Object(properties)) = m.get("properties") {
                for (name, sub) in properties {
                    if required.contains(&name.as_str()) || rng.below(3) > 0 {
                        out.insert(name.clone(), instance(rng, root, sub, depth + 1)?);
                    }
                }
            }
            if let Some(extra @ Value::Object(_)) = m.get("additionalProperties") {
                if rng.below(2) == 0 {
                    out.insert("extra-key".into(), instance(rng, root, extra, depth + 1)?);
                }
            }
            Value::Object(out)
        }
        _ => return None,
    })
}

/// Values to swap in for a mutated node: one of each type and some edges.
fn odd_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(9_007_199_254_740_993_u64),
        json!(-9_223_372_036_854_775_808_i64),
        json!(1e300),
        json!(""),
        json!("x"),
        json!("\u{2603}\u{1F600}"),
        json!([]),
        json!([1, 1]),
        json!({}),
        json!({"k": null}),
    ]
}

/// `n` mutants of `v`, each one to three edits away from it.
pub fn mutants(rng: &mut Rng, v: &Value, n: usize) -> Vec<Value> {
    let odd = odd_values();
    (0..n)
        .map(|_| {
            let mut m = v.clone();
            for _ in 0..1 + rng.below(3) {
                mutate(rng, &mut m, &odd);
            }
            m
        })
        .collect()
}

/// One edit somewhere in `v`: descend at random, then change what is there.
fn mutate(rng: &mut Rng, v: &mut Value, odd: &[Value]) {
    let descend = rng.below(3) > 0;
    match v {
        Value::Object(m) if descend && !m.is_empty() => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let key = pick(rng, &keys).clone();
            if let Some(child) = m.get_mut(&key) {
                mutate(rng, child, odd);
            }
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = rng.below(a.len() as u64) as usize;
            mutate(rng, &mut a[i], odd);
        }
        Value::Object(m) => match rng.below(4) {
            0 if !m.is_empty() => {
                let keys: Vec<String> = m.keys().cloned().collect();
                let key = pick(rng, &keys).clone();
                m.remove(&key);
            }
            1 => {
                let name = format!("extra{}", rng.below(3));
                m.insert(name, pick(rng, odd).clone());
            }
            _ => *v = pick(rng, odd).clone(),
        },
        Value::Array(a) => match rng.below(4) {
            0 if !a.is_empty() => {
                let first = a[0].clone();
                a.push(first);
            }
            1 if !a.is_empty() => {
                a.pop();
            }
            2 => a.push(pick(rng, odd).clone()),
            _ => *v = pick(rng, odd).clone(),
        },
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            *v = match rng.below(6) {
                0 => json!(f + 1.0),
                1 => json!(f - 1.0),
                2 => json!(f + 0.5),
                3 => json!(-f),
                4 => json!(f * 3.0),
                _ => pick(rng, odd).clone(),
            };
        }
        Value::String(s) => {
            *v = match rng.below(5) {
                0 => json!(format!("{s}{s}")),
                1 => json!(s.chars().skip(1).collect::<String>()),
                2 => json!(format!("{s}\u{e9}")),
                3 => json!(s.to_uppercase()),
                _ => pick(rng, odd).clone(),
            };
        }
        _ => *v = pick(rng, odd).clone(),
    }
}

/// Up to `n` values to test a validator of `schema` on: drawn from the
/// schema, the given `examples`, and mutants of both.
pub fn candidates(rng: &mut Rng, schema: &Value, examples: &[Value], n: usize) -> Vec<Value> {
    let mut base: Vec<Value> = examples.to_vec();
    for _ in 0..24 {
        if let Some(v) = instance(rng, schema, schema, 0) {
            base.push(v);
        }
    }
    if base.is_empty() {
        base.push(json!({}));
    }
    let mut out = base.clone();
    let per = n.saturating_sub(out.len()) / base.len() + 1;
    for b in &base {
        out.extend(mutants(rng, b, per));
    }
    out.truncate(n.max(base.len()));
    out
}
