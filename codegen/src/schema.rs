//! JSON Schema facts every stage shares: the dialect toolgen emits, JSON
//! pointers, where subschemas sit, JSON types, and local `$ref`s.
//!
//! A leaf: it imports nothing of the crate, so readers, `validate`, `refs`
//! and the emitters can all use it without an arrow pointing up.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// The JSON Schema dialect of the schemas toolgen writes itself (those it
/// translates from EditorMCP and RAVE specs), and of a schema that declares
/// none (MCP's default).
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The draft whose semantics `schema` (a root) is validated with: the one its
/// `$schema` declares (draft 4, 6, 7, 2019-09 or 2020-12), else 2020-12, as
/// MCP defines for a schema that declares none.
pub fn draft_of(schema: &Value) -> jsonschema::Draft {
    match jsonschema::Draft::Draft202012.detect(schema) {
        jsonschema::Draft::Unknown => jsonschema::Draft::Draft202012,
        draft => draft,
    }
}

/// Keywords whose value is one subschema.
pub const SUBSCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
];

/// Keywords whose value is a list of subschemas (`items` too, in draft 7's tuple form).
pub const SUBSCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to subschemas.
pub const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// The validation keywords of one value that every spec format writes the
/// JSON Schema way: bounds, lengths, patterns and formats, item counts.
pub const VALUE_CONSTRAINTS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
];

/// Appends a JSON-pointer token, escaping `~` and `/`.
pub fn push_pointer_token(pointer: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// A pointer with one more token.
pub fn pointer_join(base: &str, token: &str) -> String {
    let mut p = String::with_capacity(base.len() + token.len() + 1);
    p.push_str(base);
    p.push('/');
    push_pointer_token(&mut p, token);
    p
}

/// Decodes one JSON-pointer token.
pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The value at a JSON pointer (`""` is the whole value).
pub fn at_pointer<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let mut v = value;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = unescape(token);
        v = match v {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The definition a local reference names (`#/$defs/Name`, pointer-escaped).
pub fn def_name(reference: &str) -> Option<String> {
    reference.strip_prefix("#/$defs/").map(unescape)
}

/// What a local reference of a bundled schema (`#`, `#/$defs/X`, `#/any/pointer`)
/// points at within `root`.
pub fn local_target<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    at_pointer(root, reference.strip_prefix('#')?)
}

/// `schema` with its local `$ref`s followed within `root` (a bounded number of
/// hops, so that a reference loop ends).
pub fn follow<'v>(root: &'v Value, mut schema: &'v Value) -> &'v Value {
    for _ in 0..16 {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| local_target(root, r))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// Whether `v` holds a `$ref` (anywhere in it) whose target `matches`.
pub fn any_ref(v: &Value, matches: &impl Fn(&str) -> bool) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| (k == "$ref" && v.as_str().is_some_and(matches)) || any_ref(v, matches)),
        Value::Array(a) => a.iter().any(|v| any_ref(v, matches)),
        _ => false,
    }
}

/// What tells the branches of a union of objects apart when no tag does:
/// for each branch, given as the names it declares and those it requires (in
/// the order to prefer), the first it requires that no other branch
/// declares. `None` unless every branch, of two or more, has one.
pub fn distinguishing<'a>(branches: &[(Vec<&'a str>, Vec<&'a str>)]) -> Option<Vec<&'a str>> {
    if branches.len() < 2 {
        return None;
    }
    let elsewhere = |i: usize, name: &str| {
        (branches.iter().enumerate()).any(|(j, (declared, _))| j != i && declared.contains(&name))
    };
    (branches.iter().enumerate())
        .map(|(i, (_, required))| required.iter().copied().find(|r| !elsewhere(i, r)))
        .collect()
}

/// What is wrong with the `default` of `sub`, a subschema of `root`, by the
/// validator of root's dialect: where in the default, and what (the first
/// violation). `None` when the default is valid or absent, and when `sub`
/// cannot be checked apart from its root (a `$ref` that is not into the
/// definitions, which then are the only thing copied beside it).
pub fn default_violation(root: &Value, sub: &Map<String, Value>) -> Option<(String, String)> {
    let default = sub.get("default")?;
    let outside = |r: &str| !r.starts_with("#/$defs/") && !r.starts_with("#/definitions/");
    let mut alone = sub.clone();
    alone.remove("default");
    let refers_outside = alone
        .get("$ref")
        .and_then(Value::as_str)
        .is_some_and(outside)
        || alone.values().any(|v| any_ref(v, &outside));
    if refers_outside {
        return None;
    }
    for key in ["$defs", "definitions"] {
        if let Some(defs) = root.get(key) {
            alone.entry(key).or_insert_with(|| defs.clone());
        }
    }
    let validator = jsonschema::options()
        .with_draft(draft_of(root))
        .build(&Value::Object(alone))
        .ok()?;
    let error = validator.iter_errors(default).next()?;
    Some((error.instance_path().as_str().to_owned(), error.to_string()))
}

/// The strings of a JSON array member (a schema's `required`, say); empty when
/// it is absent or not an array.
pub fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The types a schema object declares (`"type": "x"` or `["x", "y"]`), sorted.
pub fn types_of(schema: &Map<String, Value>) -> std::collections::BTreeSet<&str> {
    match schema.get("type") {
        Some(Value::String(s)) => [s.as_str()].into_iter().collect(),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => std::collections::BTreeSet::new(),
    }
}

/// Whether `v` is a value of JSON Schema type `ty`. Integers must be written
/// without a fractional part (`5`, not `5.0`).
pub fn value_has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// Calls `f` with the pointer and the object of every direct subschema of
/// `obj` (the members of `properties` and `$defs`, `items`, each branch of
/// `anyOf`, ...), in keyword order. Property names, defaults, enum values and
/// examples are data, never visited.
pub fn for_each_child<'v>(
    obj: &'v Map<String, Value>,
    ptr: &str,
    f: &mut impl FnMut(String, &'v Map<String, Value>),
) {
    for (key, child) in obj {
        let key = key.as_str();
        match child {
            Value::Object(sub) if SUBSCHEMA.contains(&key) => f(pointer_join(ptr, key), sub),
            Value::Array(list) if SUBSCHEMA_LISTS.contains(&key) => {
                let base = pointer_join(ptr, key);
                for (i, sub) in list.iter().enumerate() {
                    if let Value::Object(sub) = sub {
                        f(pointer_join(&base, &i.to_string()), sub);
                    }
                }
            }
            Value::Object(map) if SUBSCHEMA_MAPS.contains(&key) => {
                let base = pointer_join(ptr, key);
                for (name, sub) in map {
                    if let Value::Object(sub) = sub {
                        f(pointer_join(&base, name), sub);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Like [`for_each_child`], for changing the subschemas in place.
pub fn for_each_child_mut(obj: &mut Map<String, Value>, f: &mut impl FnMut(&mut Value)) {
    for (key, child) in obj.iter_mut() {
        let key = key.as_str();
        match child {
            Value::Object(_) if SUBSCHEMA.contains(&key) => f(child),
            Value::Array(list) if SUBSCHEMA_LISTS.contains(&key) => {
                list.iter_mut().for_each(&mut *f)
            }
            Value::Object(map) if SUBSCHEMA_MAPS.contains(&key) => {
                map.values_mut().for_each(&mut *f)
            }
            _ => {}
        }
    }
}

/// The definitions (`#/$defs/NAME`) that refer, through others or not, to themselves.
pub fn recursive_defs(schema: &Value) -> BTreeSet<String> {
    let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
        return BTreeSet::new();
    };
    let refs_in = |v: &Value| {
        let mut out = BTreeSet::new();
        walk(v, "", &mut |_, obj| {
            if let Some(d) = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                out.insert(d.to_owned());
            }
        });
        out
    };
    let edges: BTreeMap<&str, BTreeSet<String>> =
        defs.iter().map(|(k, v)| (k.as_str(), refs_in(v))).collect();
    edges
        .keys()
        .filter(|start| {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&str> = edges[*start].iter().map(String::as_str).collect();
            while let Some(d) = stack.pop() {
                if d == **start {
                    return true;
                }
                if seen.insert(d) {
                    stack.extend(edges.get(d).into_iter().flatten().map(String::as_str));
                }
            }
            false
        })
        .map(|d| (*d).to_owned())
        .collect()
}

/// Calls `f` for `v` and every subschema below it, with its pointer, parents first.
pub fn walk<'v>(v: &'v Value, ptr: &str, f: &mut impl FnMut(&str, &'v Map<String, Value>)) {
    if let Value::Object(obj) = v {
        walk_object(obj, ptr, f);
    }
}

fn walk_object<'v>(
    obj: &'v Map<String, Value>,
    ptr: &str,
    f: &mut impl FnMut(&str, &'v Map<String, Value>),
) {
    f(ptr, obj);
    for_each_child(obj, ptr, &mut |p, sub| walk_object(sub, &p, f));
}

/// Where a part of a schema was written, to order by: (file, byte offset).
pub type Rank = (u32, u32);

/// Where the parts of a schema were written: the rank of the part at a
/// pointer (`None`: not written in a spec).
pub trait Ranks {
    fn rank(&self, pointer: &str) -> Option<Rank>;
}

impl<F: Fn(&str) -> Option<Rank>> Ranks for F {
    fn rank(&self, pointer: &str) -> Option<Rank> {
        self(pointer)
    }
}

/// A value (a schema, an example) to serialize with every object's members
/// in the order the spec wrote them: keywords, properties and the objects of
/// data (defaults, enum values) alike. Members the spec did not write (what a
/// reader translating a spec format adds: `$schema`, `type`, `required`) come
/// first, by name, as if written where their object starts.
pub struct Ordered<'a> {
    pub value: &'a Value,
    pub ranks: &'a dyn Ranks,
}

impl serde::Serialize for Ordered<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Data {
            v: self.value,
            ptr: String::new(),
            ranks: self.ranks,
        }
        .serialize(s)
    }
}

/// The member names of an object at `ptr`, in the
/// order `rank` gives: written ones by where they were written, then the
/// others by name.
pub fn property_order<'m>(
    props: &'m Map<String, Value>,
    ptr: &str,
    rank: &dyn Fn(&str) -> Option<Rank>,
) -> Vec<&'m String> {
    let mut names: Vec<(Option<Rank>, &String)> = props
        .keys()
        .map(|k| (rank(&pointer_join(ptr, k)), k))
        .collect();
    // `None` sorts first; written members go first instead.
    names.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.1.cmp(b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(b.1),
    });
    names.into_iter().map(|(_, k)| k).collect()
}

/// Data at a pointer, serialized by [`Ordered`].
struct Data<'a> {
    v: &'a Value,
    ptr: String,
    ranks: &'a dyn Ranks,
}

impl serde::Serialize for Data<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.v {
            Value::Object(m) => {
                let mut names: Vec<(Option<Rank>, &String)> = m
                    .keys()
                    .map(|k| (self.ranks.rank(&pointer_join(&self.ptr, k)), k))
                    .collect();
                // `None` (not written) sorts first.
                names.sort();
                let names = names.into_iter().map(|(_, k)| k);
                let mut map = s.serialize_map(Some(m.len()))?;
                for name in names {
                    let child = Data {
                        v: &m[name.as_str()],
                        ptr: pointer_join(&self.ptr, name),
                        ranks: self.ranks,
                    };
                    map.serialize_entry(name, &child)?;
                }
                map.end()
            }
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for (i, v) in a.iter().enumerate() {
                    seq.serialize_element(&Data {
                        v,
                        ptr: pointer_join(&self.ptr, &i.to_string()),
                        ranks: self.ranks,
                    })?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_in_the_order_they_were_written() {
        let v = json!({
            "type": "object",
            "properties": {
                "b": {"properties": {"y": {}, "x": {}}},
                "a": {"default": {"z": 1, "y": 2}},
                "c": {}
            },
            "$defs": {"d": {"properties": {"q": {}, "p": {}}}}
        });
        let written = [
            "/properties",
            "/type",
            "/properties/b",
            "/properties/a",
            "/properties/a/default/z",
            "/properties/a/default/y",
            "/properties/b/properties/y",
            "/properties/b/properties/x",
            "/$defs/d/properties/q",
            "/$defs/d/properties/p",
        ];
        let rank = |p: &str| written.iter().position(|w| *w == p).map(|i| (0, i as u32));
        let text = serde_json::to_string(&Ordered {
            value: &v,
            ranks: &rank,
        })
        .unwrap_or_default();
        // Written members as written, after those not written (`$defs`, `c`).
        assert_eq!(
            text,
            r#"{"$defs":{"d":{"properties":{"q":{},"p":{}}}},"properties":{"c":{},"b":{"properties":{"y":{},"x":{}}},"a":{"default":{"z":1,"y":2}}},"type":"object"}"#
        );
    }

    #[test]
    fn pointers_and_refs() {
        assert_eq!(pointer_join("/a", "b/c~d"), "/a/b~1c~0d");
        let v = json!({"$defs": {"a/b": {"type": "string"}}, "x": {"$ref": "#/$defs/a~1b"}});
        assert_eq!(def_name("#/$defs/a~1b").as_deref(), Some("a/b"));
        assert_eq!(follow(&v, &v["x"]), &json!({"type": "string"}));
        assert_eq!(at_pointer(&v, "/$defs/a~1b/type"), Some(&json!("string")));
    }

    #[test]
    fn walks_subschemas_only() {
        let v = json!({
            "properties": {"if": {"type": "string", "default": {"properties": {"x": {}}}}},
            "items": [{"type": "integer"}],
            "anyOf": [{"not": {"type": "null"}}],
            "enum": [{"properties": {}}],
        });
        let mut seen = Vec::new();
        walk(&v, "", &mut |p, _| seen.push(p.to_owned()));
        assert_eq!(
            seen,
            ["", "/anyOf/0", "/anyOf/0/not", "/items/0", "/properties/if"]
        );
    }
}
