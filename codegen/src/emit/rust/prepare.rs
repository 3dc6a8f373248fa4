//! Schema preparation for typify: a tool's bundled schema in, the schema
//! typify is given out. Pure `Value` to `Value`; only the types change (the
//! runtime validates arguments against the original schema).
//!
//! Every pass walks subschema positions only ([`crate::schema`]): property
//! names, defaults, enum values and examples are data and stay as written (a
//! property may be named `if`, an object default may have a `format` key, an
//! enum value may be the text `#/$defs/x`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::names::{approximate_type_name, numbered};
use crate::ident;
use crate::schema::{for_each_child_mut, pointer_join, strings};

/// The schema typify is given for `schema`: normalized, definitions named
/// apart, nullable named types split, `name` as the root's title, and draft-07
/// spelling (`definitions`), which is what typify's schemars 0.8 reads.
/// Definitions whose types are `replaced` (shared ones) are left alone.
pub fn for_typify(schema: &Value, name: Option<&str>, replaced: &[&str]) -> Value {
    let mut v = schema.clone();
    let modern = matches!(
        crate::schema::draft_of(&v),
        jsonschema::Draft::Draft201909 | jsonschema::Draft::Draft202012
    );
    if modern {
        prefix_items_as_tuples(&mut v);
    } else {
        ref_siblings_ignored(&mut v);
    }
    refused_defaults_dropped(&mut v);
    normalize(&mut v);
    distinct_definition_names(&mut v);
    nullable_types_apart(&mut v, name, replaced);
    distinct_inline_names(&mut v, name);
    if let (Value::Object(m), Some(name)) = (&mut v, name) {
        m.insert("title".into(), Value::String(name.to_owned()));
    }
    defs_as_definitions(&mut v);
    v
}

/// Up to draft 7, a `$ref` stands for its whole schema: the keywords beside
/// it are ignored by validators (TG0702), so the types ignore them too; its
/// annotations (`description`, `title`, `default`) are kept for the docs.
fn ref_siblings_ignored(v: &mut Value) {
    let Value::Object(m) = v else {
        return;
    };
    if m.contains_key("$ref") {
        m.retain(|k, _| matches!(k.as_str(), "$ref" | "description" | "title" | "default"));
        return;
    }
    for_each_child_mut(m, &mut ref_siblings_ignored);
}

/// A tuple, `prefixItems` (2020-12), spelled as typify's schemars 0.8 reads
/// it, draft 7's way: `items` a list, the rest `additionalItems`. typify
/// types `[A, B]` with no more items as the tuple `(A, B)`.
fn prefix_items_as_tuples(v: &mut Value) {
    let Value::Object(m) = v else {
        return;
    };
    if let Some(prefix @ Value::Array(_)) = m.remove("prefixItems") {
        let rest = m.remove("items").unwrap_or(Value::Bool(true));
        m.insert("items".into(), prefix);
        m.insert("additionalItems".into(), rest);
    }
    for_each_child_mut(m, &mut prefix_items_as_tuples);
}

/// A `default` its own schema refuses (a warning in MCP tools, TG0304,
/// TG0306, TG0314; an error elsewhere) is an annotation validators ignore:
/// the types ignore it too, so that a parameter left out stays left out
/// rather than becoming a value no type can hold.
fn refused_defaults_dropped(v: &mut Value) {
    use crate::schema::{types_of, value_has_type};
    let mut refused = Vec::new();
    crate::schema::walk(v, "", &mut |ptr, obj| {
        let Some(default) = obj.get("default") else {
            return;
        };
        let types = types_of(obj);
        let typed = types.is_empty() || types.iter().any(|t| value_has_type(default, t));
        let listed =
            (obj.get("enum").and_then(Value::as_array)).is_none_or(|e| e.contains(default));
        // The validator only where more than a type and a list could refuse it.
        let plain = obj.keys().all(|k| {
            matches!(
                k.as_str(),
                "type" | "enum" | "default" | "description" | "title" | "examples"
            )
        });
        if !typed || !listed || (!plain && crate::schema::default_violation(v, obj).is_some()) {
            refused.push(ptr.to_owned());
        }
    });
    for ptr in refused {
        if let Some(Value::Object(m)) = v.pointer_mut(&ptr) {
            m.remove("default");
        }
    }
}

/// Makes a schema something typify types without extra crates or panics.
fn normalize(v: &mut Value) {
    let Value::Object(m) = v else {
        return;
    };
    // String formats and patterns are checked by the runtime's validator;
    // as types they would pull chrono, uuid and regress into generated code.
    for key in ["format", "pattern"] {
        if m.get(key).is_some_and(Value::is_string) {
            m.remove(key);
        }
    }
    m.remove("$schema");
    // Constraints that do not change the type: typify cannot type them
    // (`not`, `if`/`then`/`else`, `contains`), and the runtime validates them.
    for key in [
        "not",
        "if",
        "then",
        "else",
        "contains",
        "minContains",
        "maxContains",
    ] {
        m.remove(key);
    }
    pattern_properties_as_map(m);
    const_as_enum(m);
    union_branches_named(m);
    mixed_enum_untyped(m);
    untypeable_enum_as_string(m);
    constraints_imply_no_type(m);
    for_each_child_mut(m, &mut normalize);
    // Last: it looks at the properties as normalized (a `patternProperties`
    // object is a map by now).
    optional_collections_nullable(m);
}

/// A string `const` as an enum of that one value: typify types it as an
/// enum of one variant, so that a Rust value cannot hold another string (it
/// would type `{"type": "string", "const": "text"}` as any `String`), and a
/// union of objects tagged by it becomes a tagged enum.
fn const_as_enum(m: &mut Map<String, Value>) {
    if m.contains_key("enum") || !m.get("const").is_some_and(Value::is_string) {
        return;
    }
    if let Some(c) = m.remove("const") {
        m.insert("enum".into(), Value::Array(vec![c]));
    }
}

/// The inline object branches of a union that no tag tells apart are named
/// after the property each alone requires (`{"path": ..} | {"url": ..}`:
/// variants `Path` and `Url`, not typify's `Variant0` and `Variant1`). A
/// branch with a title keeps it; a union where some branch has no such
/// property is left to typify.
fn union_branches_named(m: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = m.get_mut(key) else {
            continue;
        };
        let shapes: Option<Vec<(Vec<&str>, Vec<&str>)>> = branches
            .iter()
            .map(|b| {
                let props = b.get("properties").and_then(Value::as_object)?;
                (b.get("$ref").is_none()).then(|| {
                    (
                        props.keys().map(String::as_str).collect(),
                        strings(b.get("required")),
                    )
                })
            })
            .collect();
        let names: Option<Vec<String>> = shapes
            .as_deref()
            .and_then(crate::schema::distinguishing)
            .map(|keys| keys.into_iter().map(ident::pascal).collect());
        let distinct =
            |n: &Vec<String>| n.iter().collect::<std::collections::BTreeSet<_>>().len() == n.len();
        let Some(names) = names.filter(distinct) else {
            continue;
        };
        for (branch, name) in branches.iter_mut().zip(names) {
            if let Value::Object(b) = branch {
                b.entry("title").or_insert(Value::String(name));
            }
        }
    }
}

/// typify types `patternProperties` with the `regress` crate, which generated
/// code does not depend on. As a type, the values of keys that match a pattern
/// are the values of a map: with one pattern and other extra keys refused
/// (`"additionalProperties": false`), `additionalProperties` becomes the
/// pattern's schema; otherwise extra keys take any value (a key that matches
/// no pattern may hold anything). The runtime still checks the patterns.
fn pattern_properties_as_map(m: &mut Map<String, Value>) {
    let Some(Value::Object(patterns)) = m.remove("patternProperties") else {
        return;
    };
    let closed = m.get("additionalProperties") == Some(&Value::Bool(false));
    let one = patterns.len() == 1;
    match patterns.into_iter().next() {
        Some((_, schema)) if closed && one => {
            m.insert("additionalProperties".into(), schema);
        }
        Some(_) => {
            m.insert("additionalProperties".into(), Value::Bool(true));
        }
        None => {}
    }
}

/// Keywords that constrain values of one type and let every other type pass.
const CONSTRAINTS: &[&str] = &[
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// typify infers a type from a constraint (`minLength` makes a `String`), but
/// a schema that declares no type accepts every value a constraint does not
/// apply to: `{"minLength": 1}` accepts `7`. Without a declared type (or an
/// enum, const, reference or combinator that gives one), the constraints are
/// left out of the type, which is then any JSON value unless a shape keyword
/// (`properties`, `items`) says otherwise.
fn constraints_imply_no_type(m: &mut Map<String, Value>) {
    let typed = ["type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf"]
        .iter()
        .any(|k| m.contains_key(*k));
    if !typed {
        for key in CONSTRAINTS {
            m.remove(*key);
        }
    }
}

/// typify refuses an enum whose values are of several JSON types (`"a"`, `1`,
/// `true`) when the schema names no type; such a value is typed as any JSON
/// value. (`null` beside one other type is fine: typify makes it an `Option`.)
fn mixed_enum_untyped(m: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = m.get("enum") else {
        return;
    };
    let kind = |v: &Value| match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    };
    let mut kinds: Vec<u8> = values.iter().map(kind).filter(|k| *k != 0).collect();
    kinds.sort_unstable();
    kinds.dedup();
    if kinds.len() > 1 {
        m.remove("enum");
        m.remove("default");
        m.remove("type");
    }
}

/// typify derives variant names from string enum values and panics when two
/// collide (`a-b` and `a b`) or one is empty. Such an enum is typed as a plain
/// `String` instead; the runtime still validates the value against the enum.
fn untypeable_enum_as_string(m: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = m.get("enum") else {
        return;
    };
    if !values.iter().all(Value::is_string) {
        return;
    }
    let names: Vec<String> = values
        .iter()
        .filter_map(Value::as_str)
        .map(|v| ident::pascal(v).to_lowercase())
        .collect();
    let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
    let empty = values.iter().any(|v| {
        v.as_str()
            .is_some_and(|s| !s.chars().any(char::is_alphanumeric))
    });
    if distinct.len() != names.len() || empty {
        m.remove("enum");
        m.remove("default");
        m.insert("type".into(), Value::from("string"));
    }
}

/// typify maps an optional array (or free-form map) to a bare `Vec` (`Map`)
/// that is skipped when empty, so a present-but-empty value would vanish on
/// the way out. Declaring such properties nullable makes typify emit
/// `Option<Vec<T>>`: absent stays absent, `[]` stays `[]`.
fn optional_collections_nullable(m: &mut Map<String, Value>) {
    let required: Vec<String> = strings(m.get("required"))
        .into_iter()
        .map(str::to_owned)
        .collect();
    let Some(Value::Object(props)) = m.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        if required.contains(name) {
            continue;
        }
        let Value::Object(p) = prop else { continue };
        let collection = match p.get("type").and_then(Value::as_str) {
            Some("array") => !p.contains_key("default"),
            Some("object") => {
                !p.contains_key("properties")
                    && !p.contains_key("default")
                    && p.get("additionalProperties") != Some(&Value::Bool(false))
            }
            _ => false,
        };
        if collection {
            let ty = p["type"].clone();
            p.insert("type".into(), Value::Array(vec![ty, Value::from("null")]));
        }
    }
}

/// Renames definitions that typify would give the same type name (`point`
/// and `Point`; `a-b` and `a_b`): the first in key order keeps its name, the
/// others get a number (`point_2`, typed `Point2`), and every reference follows.
pub(super) fn distinct_definition_names(schema: &mut Value) {
    let Some(Value::Object(defs)) = schema.get("$defs") else {
        return;
    };
    let mut taken: Vec<String> = Vec::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    for key in defs.keys() {
        let name = approximate_type_name(key);
        if !taken.contains(&name) {
            taken.push(name);
            continue;
        }
        let new_key = numbered(key, |k| {
            defs.contains_key(k) || taken.contains(&approximate_type_name(k))
        });
        taken.push(approximate_type_name(&new_key));
        renames.push((key.clone(), new_key));
    }
    if renames.is_empty() {
        return;
    }
    let pointer = |k: &str| pointer_join("#/$defs", k);
    let by_ref: BTreeMap<String, String> = renames
        .iter()
        .map(|(old, new)| (pointer(old), pointer(new)))
        .collect();
    rewrite_refs(schema, &by_ref);
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for (old, new) in renames {
            if let Some(def) = defs.remove(&old) {
                defs.insert(new, def);
            }
        }
    }
}

/// Keeps the names of inline types apart. typify names an inline type after
/// its place (`Input` + property `thing` is `InputThing`; an array's items
/// `..Item`; extra properties `..Extra` or `..Additional`), or after its
/// `title`, and when a name is taken it silently reuses the type that has
/// it: property `x-y` and property `x_y`, two different objects, would both
/// become the first one's `InputXY`, and the second's fields would be lost.
/// Each inline type whose name is taken (by a definition, the root, or an
/// earlier inline type) gets a numbered `title` (`InputXY2`) instead.
fn distinct_inline_names(schema: &mut Value, root: Option<&str>) {
    let mut taken: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        taken.extend(defs.keys().map(|k| approximate_type_name(k)));
    }
    if let Some(root) = root {
        taken.insert(approximate_type_name(root));
    }
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for (key, def) in defs.iter_mut() {
            let base = approximate_type_name(key);
            name_inline_children(def, &base, &mut taken);
        }
    }
    if let Some(root) = root {
        name_inline_children(schema, &approximate_type_name(root), &mut taken);
    }
}

/// Names the inline types directly below `v`, a type called `base`.
fn name_inline_children(v: &mut Value, base: &str, taken: &mut std::collections::BTreeSet<String>) {
    let Value::Object(m) = v else { return };
    let has_properties = m.contains_key("properties");
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for (prop, sub) in props.iter_mut() {
            use heck::ToSnakeCase;
            name_inline(sub, &format!("{base}_{}", prop.to_snake_case()), taken);
        }
    }
    if let Some(items @ Value::Object(_)) = m.get_mut("items") {
        name_inline(items, &format!("{base}_item"), taken);
    }
    if let Some(extra @ Value::Object(_)) = m.get_mut("additionalProperties") {
        let suffix = if has_properties {
            "extra"
        } else {
            "additional"
        };
        name_inline(extra, &format!("{base}_{suffix}"), taken);
    }
}

/// One inline subschema at a place typify would call `suggested`.
fn name_inline(v: &mut Value, suggested: &str, taken: &mut std::collections::BTreeSet<String>) {
    let Value::Object(m) = v else { return };
    if m.contains_key("$ref") {
        return;
    }
    let named = ["properties", "enum", "oneOf", "anyOf", "allOf"]
        .iter()
        .any(|k| m.contains_key(*k));
    if !named {
        // Not a type of its own (an array, say): its children are named after its place.
        name_inline_children(v, &approximate_type_name(suggested), taken);
        return;
    }
    // A title that only repeats its property's name (pydantic titles every
    // property so: `"type": {"title": "Type"}`) would name a type `Type` for
    // each; the place names it apart (`LinkPartType`).
    let wanted = m
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| {
            use heck::ToSnakeCase;
            !suggested.to_snake_case().ends_with(&t.to_snake_case())
        })
        .map_or_else(|| suggested.to_owned(), str::to_owned);
    let mut name = approximate_type_name(&wanted);
    let retitled = m.contains_key("title") && wanted == suggested;
    if taken.contains(&name) {
        let base = name.clone();
        name = (2..)
            .map(|n| format!("{base}{n}"))
            .find(|n| !taken.contains(n))
            .unwrap_or_default();
        m.insert("title".into(), Value::String(name.clone()));
    } else if retitled {
        m.insert("title".into(), Value::String(name.clone()));
    }
    taken.insert(name.clone());
    name_inline_children(v, &name, taken);
}

/// The schema `v` is null or one other schema that typify would name (`anyOf` or
/// `oneOf` of the two), when that other schema is written in place.
fn nullable_named(v: &Value) -> Option<(&'static str, usize)> {
    let m = v.as_object()?;
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(options)) = m.get(key) else {
            continue;
        };
        let is_null = |o: &Value| o.get("type").and_then(Value::as_str) == Some("null");
        if options.len() != 2 || options.iter().filter(|o| is_null(o)).count() != 1 {
            return None;
        }
        let inner = options.iter().position(|o| !is_null(o))?;
        let o = options[inner].as_object()?;
        let named = ["properties", "enum", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| o.contains_key(*k));
        return named.then_some((key, inner));
    }
    None
}

/// typify types a definition `Thing` that is "null or an object" as
/// `Thing(Option<Thing>)`, naming the object after the definition too: two
/// types of one name. Such an object (or enum, or combination) is moved to a
/// definition of its own, `ThingInner` (the name typify itself gives it for
/// `"type": ["object", "null"]`), and referred to. The root schema (named
/// `root`) is treated the same way; definitions that become `replaced` types are left alone.
pub(super) fn nullable_types_apart(schema: &mut Value, root: Option<&str>, replaced: &[&str]) {
    // The definitions to move (by key), and `None` for the root.
    let mut moves: Vec<Option<String>> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        taken.extend(defs.keys().map(|k| approximate_type_name(k)));
        for (key, def) in defs {
            if nullable_named(def).is_some()
                && !replaced.contains(&approximate_type_name(key).as_str())
            {
                moves.push(Some(key.clone()));
            }
        }
    }
    let root = root.filter(|_| nullable_named(schema).is_some());
    if let Some(root) = root {
        taken.push(approximate_type_name(root));
        moves.push(None);
    }
    for key in moves {
        let base = format!("{}Inner", key.as_deref().or(root).unwrap_or_default());
        let mut new_key = base.clone();
        if taken.contains(&approximate_type_name(&new_key)) {
            new_key = numbered(&base, |k| taken.contains(&approximate_type_name(k)));
        }
        taken.push(approximate_type_name(&new_key));
        move_inner(schema, key.as_deref(), new_key);
    }
}

/// Moves the named option of the nullable schema at definition `key` (the
/// root for `None`) to definition `new_key`, referred to where it was.
fn move_inner(schema: &mut Value, key: Option<&str>, new_key: String) {
    let target = match key {
        Some(k) => schema.get_mut("$defs").and_then(|d| d.get_mut(k)),
        None => Some(&mut *schema),
    };
    let Some(target) = target else { return };
    let Some((combinator, inner)) = nullable_named(target) else {
        return;
    };
    let Some(option) = target.get_mut(combinator).and_then(|o| o.get_mut(inner)) else {
        return;
    };
    let moved = std::mem::replace(option, json!({ "$ref": pointer_join("#/$defs", &new_key) }));
    if let Value::Object(m) = schema {
        if let Value::Object(defs) = m
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            defs.insert(new_key, moved);
        }
    }
}

/// Points every `$ref` to a renamed definition (or into one) at its new name.
/// `renames` maps old reference prefixes to new ones.
fn rewrite_refs(v: &mut Value, renames: &BTreeMap<String, String>) {
    let Value::Object(m) = v else { return };
    if let Some(Value::String(r)) = m.get_mut("$ref") {
        let renamed = renames.iter().find_map(|(old, new)| {
            let rest = r.strip_prefix(old.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{new}{rest}"))
        });
        if let Some(new) = renamed {
            *r = new;
        }
    }
    for_each_child_mut(m, &mut |child| rewrite_refs(child, renames));
}

/// `$defs` spelled the draft-07 way, `definitions`, with every reference.
fn defs_as_definitions(v: &mut Value) {
    let Value::Object(m) = v else { return };
    let Some(defs) = m.remove("$defs") else {
        return;
    };
    m.insert("definitions".into(), defs);
    let renames = BTreeMap::from([("#/$defs".to_owned(), "#/definitions".to_owned())]);
    rewrite_refs(v, &renames);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_typify_would_name_alike_are_renamed_with_their_references() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/Point"},
                "b": {"$ref": "#/$defs/point"},
                "c": {"$ref": "#/$defs/point/properties/x"},
                "d": {"$ref": "#/$defs/a-b"},
                "e": {"$ref": "#/$defs/a_b"},
                "f": {"enum": [{"$ref": "#/$defs/point"}], "default": {"$ref": "#/$defs/point"}}
            },
            "$defs": {
                "Point": {"type": "string"},
                "point": {"type": "object", "properties": {"x": {"type": "integer"}}},
                "a-b": {"type": "boolean"},
                "a_b": {"type": "number"}
            }
        });
        distinct_definition_names(&mut schema);
        let keys: Vec<&String> = schema["$defs"]
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["Point", "a-b", "a_b_2", "point_2"]);
        let p = &schema["properties"];
        assert_eq!(p["b"]["$ref"], "#/$defs/point_2");
        assert_eq!(p["c"]["$ref"], "#/$defs/point_2/properties/x");
        assert_eq!(p["e"]["$ref"], "#/$defs/a_b_2");
        assert_eq!(p["a"]["$ref"], "#/$defs/Point");
        // Data that looks like a reference is data.
        assert_eq!(p["f"]["enum"][0]["$ref"], "#/$defs/point");
        assert_eq!(p["f"]["default"]["$ref"], "#/$defs/point");
    }

    #[test]
    fn the_draft_07_spelling_touches_references_only() {
        let mut v = json!({
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "b": {"type": "string", "enum": ["#/$defs/A"], "default": "#/$defs/A"}
            },
            "$defs": {"A": {"type": "integer"}}
        });
        defs_as_definitions(&mut v);
        assert_eq!(v["properties"]["a"]["$ref"], "#/definitions/A");
        assert_eq!(v["properties"]["b"]["enum"][0], "#/$defs/A");
        assert_eq!(v["properties"]["b"]["default"], "#/$defs/A");
        assert!(v.get("$defs").is_none() && v["definitions"]["A"].is_object());
    }
}
