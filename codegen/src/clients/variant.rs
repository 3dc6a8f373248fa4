//! A client's variant of a tool's catalog entry: what the client takes, and
//! what the server needs to map the client's calls back to the tool as its
//! spec wrote it.
//!
//! The transforms, each one the notes of `clients` announce: names with only
//! the characters the client takes, short enough with its prefix (cut with a
//! digest of the whole name, so that they stay distinct); `$ref`s inlined for
//! clients that do not resolve them (a recursive one cannot be: an error);
//! OpenAI's strict mode (every property required, the optional ones
//! nullable, every object closed); Gemini's one type per schema (`["T",
//! "null"]` as `"nullable": true`); keywords and formats the client refuses
//! dropped and said in the description. A variant entry names the tool it
//! stands for (`_meta.toolgen.variantOf`, when the name changed) and the
//! argument paths where a `null` means "absent"
//! (`_meta.toolgen.nullMeansAbsent`, `/a/*/b`: `*` every item of an array),
//! which the server applies to the client's arguments before validation:
//! handlers never see the difference.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::profiles::{Keywords, Profile};

/// The client's name for tool `id` of server `server`: clean, and cut to
/// fit its limit with its prefix, the cut one ending in a digest of `id`.
pub fn client_name(id: &str, server: &str, p: &Profile) -> String {
    let clean = p.clean_name(id);
    let room = p
        .max_name
        .saturating_sub((p.prefix)(server).chars().count());
    if clean.chars().count() <= room || room < 12 {
        return clean;
    }
    let digest = crate::digest::Digest::of(id.as_bytes()).hex();
    let keep: String = clean.chars().take(room - 9).collect();
    format!("{keep}_{}", &digest[..8])
}

/// Why a variant cannot be written.
#[derive(Debug)]
pub struct Unwritable {
    /// Where in the input schema.
    pub pointer: String,
    pub message: String,
}

/// The client's variant of a tool's `tools/list` entry (`entry`, as the
/// catalog lists it), for a server called `server`.
pub fn entry(entry: &Value, server: &str, p: &Profile) -> Result<Value, Unwritable> {
    let name = entry["name"].as_str().unwrap_or_default().to_owned();
    entry_of(entry, server, p, &name)
}

/// The client's variants of a tool's entry: one, or (`split`, for a client
/// that wants a plain object at the root) one per branch of a root `anyOf`
/// or `oneOf` of objects, named `NAME_1`, `NAME_2`, ..., each called as the
/// tool (its arguments are the branch's, which the tool's union takes).
pub fn entries(
    entry: &Value,
    server: &str,
    p: &Profile,
    split: bool,
) -> Result<Vec<Value>, Unwritable> {
    let name = entry["name"].as_str().unwrap_or_default().to_owned();
    let branches = split
        .then(|| root_branches(&entry["inputSchema"]))
        .flatten()
        .filter(|_| p.root_object);
    let Some(branches) = branches else {
        return Ok(vec![entry_of(entry, server, p, &name)?]);
    };
    branches
        .into_iter()
        .enumerate()
        .map(|(i, schema)| {
            let mut one = entry.clone();
            one["name"] = json!(format!("{name}_{}", i + 1));
            one["inputSchema"] = schema;
            entry_of(&one, server, p, &name)
        })
        .collect()
}

/// The branches of a root union of objects, each with what the root says
/// beside the union (its `$defs`, its description), or `None`.
fn root_branches(schema: &Value) -> Option<Vec<Value>> {
    let root = schema.as_object()?;
    let key = ["anyOf", "oneOf"]
        .into_iter()
        .find(|k| root.contains_key(*k))?;
    let branches = root.get(key)?.as_array()?;
    let rest: Map<String, Value> = root
        .iter()
        .filter(|(k, _)| *k != key)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    branches
        .iter()
        .map(|b| {
            let b = crate::schema::follow(schema, b).as_object()?;
            if b.get("type") != Some(&json!("object")) {
                return None;
            }
            let mut one = rest.clone();
            for (k, v) in b {
                one.insert(k.clone(), v.clone());
            }
            Some(Value::Object(one))
        })
        .collect()
}

/// [`entry`], the variant standing for the tool called `of`.
fn entry_of(entry: &Value, server: &str, p: &Profile, of: &str) -> Result<Value, Unwritable> {
    let mut out = entry.clone();
    let name = of.to_owned();
    let listed = entry["name"].as_str().unwrap_or(of);
    let client_name = client_name(listed, server, p);
    let mut schema = entry["inputSchema"].clone();
    if p.inline_refs || p.strict {
        schema = inlined(&schema, p.inline_refs)?;
    }
    walk_mut(&mut schema, &mut |obj| normalize(obj, p));
    let mut absent = Vec::new();
    if p.strict {
        strict(&mut schema, "", &mut absent);
    }
    if !p.type_arrays {
        one_type(&mut schema);
    }
    refused(&mut schema, p);
    out["inputSchema"] = schema;
    out["name"] = json!(client_name);
    let changed_name = client_name != name;
    if changed_name || !absent.is_empty() {
        let meta = out
            .as_object_mut()
            .map(|o| o.entry("_meta").or_insert_with(|| json!({})));
        if let Some(Value::Object(meta)) = meta {
            let toolgen = meta.entry("toolgen").or_insert_with(|| json!({}));
            if changed_name {
                toolgen["variantOf"] = json!(name);
            }
            if !absent.is_empty() {
                toolgen["nullMeansAbsent"] = json!(absent);
            }
        }
    }
    Ok(out)
}

/// `schema` with its local `$ref`s replaced by their targets: all of them
/// (`all`), or those that are not recursive (OpenAI's strict mode resolves
/// references; inlining the others gives the argument paths).
fn inlined(schema: &Value, all: bool) -> Result<Value, Unwritable> {
    let recursive = crate::schema::recursive_defs(schema);
    let mut out = schema.clone();
    let mut error = None;
    replace_refs(&mut out, schema, &recursive, all, "", &mut error, 0);
    if let Some(e) = error {
        return Err(e);
    }
    if all || recursive.is_empty() {
        // Every reference is now its target: definitions are dead, nested
        // ones (copies a bundled document kept) too.
        walk_mut(&mut out, &mut |obj| {
            obj.remove("$defs");
        });
    }
    Ok(out)
}

fn replace_refs(
    v: &mut Value,
    root: &Value,
    recursive: &BTreeSet<String>,
    all: bool,
    ptr: &str,
    error: &mut Option<Unwritable>,
    depth: usize,
) {
    let Value::Object(obj) = v else {
        return;
    };
    // A schema with an `$id` is the root its own references resolve from.
    if obj.contains_key("$id") && depth == 0 && !ptr.is_empty() {
        let own = Value::Object(obj.clone());
        let own_recursive = crate::schema::recursive_defs(&own);
        replace_refs(v, &own, &own_recursive, all, ptr, error, 1);
        if let Some(o) = v.as_object_mut() {
            if all || own_recursive.is_empty() {
                o.remove("$defs");
            }
        }
        return;
    }
    if let Some(target) = obj.get("$ref").and_then(Value::as_str).map(str::to_owned) {
        let def = target
            .strip_prefix("#/$defs/")
            .unwrap_or(&target)
            .to_owned();
        if recursive.contains(&def) || depth > 64 {
            if all && error.is_none() {
                *error = Some(Unwritable {
                    pointer: crate::schema::pointer_join(ptr, "$ref"),
                    message: format!("`{target}` refers back to itself and cannot be inlined"),
                });
            }
            return;
        }
        let resolved = crate::schema::follow(root, v).clone();
        if let (Value::Object(mut body), Value::Object(here)) = (resolved, v.clone()) {
            for (k, value) in here {
                if k != "$ref" {
                    body.insert(k, value);
                }
            }
            *v = Value::Object(body);
            replace_refs(v, root, recursive, all, ptr, error, depth + 1);
        }
        return;
    }
    for (key, child) in obj.iter_mut() {
        if key == "$defs" {
            continue;
        }
        let p = crate::schema::pointer_join(ptr, key);
        match child {
            Value::Object(_) => replace_refs(child, root, recursive, all, &p, error, depth),
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let p = crate::schema::pointer_join(&p, &i.to_string());
                    replace_refs(item, root, recursive, all, &p, error, depth);
                }
            }
            _ => {}
        }
    }
}

/// OpenAI's strict mode: every object closed and every property required,
/// the optional ones nullable; `args` is where this schema's value sits in
/// the arguments, and `absent` collects the paths of the properties made
/// nullable that did not take `null` before.
fn strict(schema: &mut Value, args: &str, absent: &mut Vec<String>) {
    let Value::Object(obj) = schema else {
        return;
    };
    if obj.get("properties").is_some_and(Value::is_object) {
        let was_required: BTreeSet<String> = obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let mut required = Vec::new();
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            required = props.keys().cloned().collect();
            for (name, sub) in props.iter_mut() {
                let path = format!("{args}/{}", name.replace('~', "~0").replace('/', "~1"));
                strict(sub, &path, absent);
                if !was_required.contains(name) && !takes_null(sub) {
                    nullable(sub);
                    absent.push(path);
                }
            }
        }
        obj.insert("required".into(), json!(required));
        obj.insert("additionalProperties".into(), json!(false));
    }
    if let Some(items) = obj.get_mut("items") {
        strict(items, &format!("{args}/*"), absent);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get_mut(key) {
            for b in branches {
                strict(b, args, absent);
            }
        }
    }
    if let Some(Value::Object(defs)) = obj.get_mut("$defs") {
        // Recursive definitions (kept as references): their properties get
        // the same treatment, without argument paths (a `null` there reaches
        // the tool's validation as the client sent it).
        for def in defs.values_mut() {
            strict(def, "/?", &mut Vec::new());
        }
    }
}

/// Whether a schema lets `null` through.
fn takes_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        None => {
            schema
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|b| b.iter().any(takes_null))
                || schema.as_object().is_some_and(|o| o.is_empty())
        }
        _ => false,
    }
}

/// `schema` taking `null` too.
fn nullable(schema: &mut Value) {
    // An enum or `const` would refuse `null` whatever the type says.
    let listed = schema.get("enum").is_some() || schema.get("const").is_some();
    match schema.get_mut("type") {
        Some(Value::String(t)) if !listed => {
            let t = std::mem::take(t);
            schema["type"] = json!([t, "null"]);
        }
        Some(Value::Array(ts)) if !listed => ts.push(json!("null")),
        _ => {
            let inner = std::mem::take(schema);
            *schema = json!({"anyOf": [inner, {"type": "null"}]});
        }
    }
}

/// Gemini's one type per schema: `["T", "null"]` as `T` and `"nullable":
/// true`, and a two-branch `anyOf` with `{"type": "null"}` as its other
/// branch, nullable.
fn one_type(schema: &mut Value) {
    walk_mut(schema, &mut |obj| {
        if let Some(Value::Array(ts)) = obj.get("type") {
            let others: Vec<Value> = ts.iter().filter(|t| *t != "null").cloned().collect();
            if others.len() == 1 && ts.len() == 2 {
                obj.insert("type".into(), others[0].clone());
                obj.insert("nullable".into(), json!(true));
            }
        }
        if let Some(Value::Array(branches)) = obj.get("anyOf") {
            let is_null = |b: &Value| {
                b.get("type") == Some(&json!("null")) && b.as_object().is_some_and(|o| o.len() == 1)
            };
            if branches.len() == 2 && branches.iter().any(is_null) {
                let other = branches
                    .iter()
                    .find(|b| !is_null(b))
                    .cloned()
                    .unwrap_or_default();
                obj.remove("anyOf");
                if let Value::Object(o) = other {
                    for (k, v) in o {
                        obj.entry(k).or_insert(v);
                    }
                }
                obj.insert("nullable".into(), json!(true));
            }
        }
    });
}

/// Keywords and formats the client refuses, dropped, and said in the
/// description (a `const` becomes the enum of its one value where the
/// client takes enums).
/// What a client takes written its way, the same values valid: `allOf`
/// merged, `oneOf` as `anyOf` (which takes what it takes and more; the
/// server still checks `oneOf`), an integer's exclusive bound as an
/// inclusive one.
fn normalize(obj: &mut Map<String, Value>, p: &Profile) {
    if !p.keywords.takes("allOf") {
        merge_all_of(obj);
    }
    if !p.keywords.takes("oneOf") && p.keywords.takes("anyOf") && !obj.contains_key("anyOf") {
        if let Some(branches) = obj.remove("oneOf") {
            obj.insert("anyOf".into(), branches);
        }
    }
    let integer = obj.get("type") == Some(&json!("integer"));
    for (exclusive, inclusive, step) in [
        ("exclusiveMinimum", "minimum", 1),
        ("exclusiveMaximum", "maximum", -1),
    ] {
        let bound = obj.get(exclusive).and_then(Value::as_i64);
        if let (true, false, Some(b)) = (integer, p.keywords.takes(exclusive), bound) {
            if p.keywords.takes(inclusive) && !obj.contains_key(inclusive) {
                obj.remove(exclusive);
                obj.insert(inclusive.into(), json!(b + step));
            }
        }
    }
}

fn refused(schema: &mut Value, p: &Profile) {
    walk_mut(schema, &mut |obj| {
        let mut said = Vec::new();
        if let (Some(allowed), Some(f)) = (p.formats, obj.get("format").and_then(Value::as_str)) {
            if !allowed.contains(&f) {
                said.push(format!("format: {f}"));
                obj.remove("format");
            }
        }
        if !p.keywords.takes("const") && p.keywords.takes("enum") {
            if let Some(c) = obj.remove("const") {
                obj.insert("enum".into(), json!([c]));
            }
        }
        let drop: Vec<String> = obj
            .keys()
            .filter(|k| {
                !p.keywords.takes(k)
                    && !matches!(
                        k.as_str(),
                        "$ref" | "$defs" | "$schema" | "$id" | "$comment"
                    )
            })
            .cloned()
            .collect();
        for k in drop {
            if let Some(v) = obj.remove(&k) {
                if is_schema_keyword(&k) {
                    let text = v.to_string();
                    said.push(if text.len() <= 60 {
                        format!("{k}: {text}")
                    } else {
                        format!("and `{k}`, which the server checks")
                    });
                }
            }
        }
        if !said.is_empty() {
            let description = obj.get("description").and_then(Value::as_str).unwrap_or("");
            let joined = said.join("; ");
            let text = if description.is_empty() {
                format!("({joined})")
            } else {
                format!("{description} ({joined})")
            };
            obj.insert("description".into(), json!(text));
        }
    });
    if let Keywords::Only(_) = p.keywords {
        // What no validator reads, dropped without a word.
        walk_mut(schema, &mut |obj| {
            for k in ["$schema", "$id", "$comment"] {
                obj.remove(k);
            }
        });
    }
}

/// An `allOf` whose branches say nothing that conflicts, merged into the
/// schema that holds it (the common draft-07 `{"allOf": [{"$ref": ..}], ..}`
/// wrapper among them): the same values are valid.
fn merge_all_of(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get("allOf") else {
        return;
    };
    let mut merged = Map::new();
    for b in branches {
        let Value::Object(b) = b else {
            return;
        };
        for (k, v) in b {
            let taken = merged.get(k).or(obj.get(k));
            if taken.is_some_and(|t| t != v && k != "description" && k != "title") {
                return;
            }
            merged.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    obj.remove("allOf");
    for (k, v) in merged {
        obj.entry(k).or_insert(v);
    }
}

/// Keywords that constrain values (said in the description when dropped),
/// as opposed to annotations such as `$schema`, `$id`, `examples`.
fn is_schema_keyword(k: &str) -> bool {
    !matches!(
        k,
        "$schema"
            | "$id"
            | "$comment"
            | "examples"
            | "title"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "additionalProperties"
            | "discriminator"
    )
}

/// Calls `f` on every schema object below `v` (itself first), mutably.
fn walk_mut(v: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(obj) = v else {
        return;
    };
    f(obj);
    for key in [
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
    ] {
        if let Some(child) = obj.get_mut(key) {
            walk_mut(child, f);
        }
    }
    for key in ["properties", "$defs", "patternProperties"] {
        if let Some(Value::Object(children)) = obj.get_mut(key) {
            for child in children.values_mut() {
                walk_mut(child, f);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = obj.get_mut(key) {
            for child in children {
                walk_mut(child, f);
            }
        }
    }
}

/// docs/clients.md: the clients against the constructs, from the profiles.
pub fn markdown() -> String {
    let profiles = &super::profiles::PROFILES;
    let mut t = String::from(
        "# What MCP clients accept in a tool definition\n\nGenerated from toolgen's client profiles (`codegen/src/clients/profiles.rs`) by `cargo xtask gen`;\ndo not edit. `toolgen validate --clients openai,gemini` (or `clients:` in `toolset.yaml`) checks a\ntool set against these, each finding a rule (TG1001-TG1018, [rules.md](rules.md)) located at the name or\nschema node; `toolgen gen` with `clients:` writes each client's variant of the catalog\n(`catalog/SET/clients/CLIENT.json`), which a server lists to that client\n(`Server::client_variants`, `--client`) and maps its calls back from.\n\n",
    );
    t.push_str("| | ");
    let names: Vec<String> = profiles.iter().map(|p| format!("`{}`", p.client)).collect();
    t.push_str(&names.join(" | "));
    t.push_str(" |\n|---|");
    t.push_str(&"---|".repeat(profiles.len()));
    t.push('\n');
    for (what, cell) in ROWS {
        let cells: Vec<String> = profiles.iter().map(cell).collect();
        t.push_str(&format!("| {what} | {} |\n", cells.join(" | ")));
    }
    t.push_str("\n## Sources\n\n");
    for p in profiles {
        let sources = p.sources.join("; ");
        t.push_str(&format!("- **`{}`** ({}): {sources}\n", p.client, p.title));
    }
    t
}

fn yes(b: bool) -> String {
    if b { "yes" } else { "—" }.to_owned()
}

fn words(list: &[&str]) -> String {
    list.iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

type Cell = fn(&Profile) -> String;

/// The rows of the profiles' table: what it says, and each client's cell.
const ROWS: &[(&str, Cell)] = &[
    ("name characters", |p| format!("`{}`", p.name_chars)),
    ("name prefix", |p| {
        let prefix = (p.prefix)("SERVER");
        if prefix.is_empty() {
            "—".to_owned()
        } else {
            format!("`{prefix}`")
        }
    }),
    ("longest name, with prefix", |p| {
        format!(
            "{}{}",
            p.max_name,
            if p.refuses_long_names { "" } else { " (cut)" }
        )
    }),
    ("most tools", |p| {
        p.max_tools.map_or("—".to_owned(), |n| n.to_string())
    }),
    ("root must be a plain object", |p| yes(p.root_object)),
    ("arrays need `items`", |p| yes(p.arrays_need_items)),
    ("objects need `properties`", |p| {
        yes(p.objects_need_properties)
    }),
    ("every property required, objects closed", |p| yes(p.strict)),
    ("keywords", |p| match p.keywords {
        Keywords::AllBut([]) => "any".to_owned(),
        Keywords::AllBut(k) => format!("all but {}", words(k)),
        Keywords::Only(k) => format!("only {}", words(k)),
    }),
    ("formats", |p| p.formats.map_or("any".to_owned(), words)),
    ("`\"type\": [..]`", |p| yes(p.type_arrays)),
    ("`type` beside `anyOf`", |p| yes(p.type_beside_any_of)),
    ("enums of non-strings", |p| yes(!p.string_enums_only)),
    ("`$ref` resolved", |p| yes(!p.inline_refs)),
    ("keywords beside `$ref`", |p| yes(!p.bare_refs)),
    ("limits", |p| {
        let mut l = Vec::new();
        l.extend(p.max_depth.map(|d| format!("{d} levels")));
        l.extend(p.max_properties.map(|n| format!("{n} properties")));
        l.extend(p.max_enum.map(|n| format!("{n} enum values")));
        if l.is_empty() {
            "—".to_owned()
        } else {
            l.join(", ")
        }
    }),
    ("only `structuredContent` reaches the model", |p| {
        yes(p.structured_only)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::profile;
    use crate::ir::Client;

    fn tool(schema: Value) -> Value {
        json!({"name": "find.items", "description": "Finds items.", "inputSchema": schema})
    }

    #[test]
    fn a_root_union_is_one_tool_per_branch_where_asked() {
        let schema = json!({"description": "By id or by name.", "anyOf": [
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"$ref": "#/$defs/ByName"}],
            "$defs": {"ByName": {"type": "object", "properties": {"name": {"type": "string"}}}}});
        let claude = profile(Client::Claude);
        let split = entries(&tool(schema.clone()), "s", claude, true).unwrap_or_default();
        let names: Vec<&Value> = split.iter().map(|e| &e["name"]).collect();
        assert_eq!(names, ["find_items_1", "find_items_2"]);
        assert_eq!(
            split[1]["inputSchema"]["properties"]["name"]["type"],
            "string"
        );
        assert_eq!(split[1]["inputSchema"]["description"], "By id or by name.");
        assert_eq!(split[0]["_meta"]["toolgen"]["variantOf"], "find.items");
        let whole = entries(&tool(schema.clone()), "s", claude, false).unwrap_or_default();
        assert_eq!(whole.len(), 1, "not asked");
        let mcp = profile(Client::Mcp);
        assert_eq!(
            entries(&tool(schema), "s", mcp, true).map(|e| e.len()).ok(),
            Some(1),
            "MCP takes unions"
        );
    }

    #[test]
    fn names_are_cut_to_fit_with_a_digest_and_stay_apart() {
        let code = profile(Client::ClaudeCode);
        let a = client_name(
            "summarize_every_collection_of_maritime_features_by_type_a",
            "server",
            code,
        );
        let b = client_name(
            "summarize_every_collection_of_maritime_features_by_type_b",
            "server",
            code,
        );
        assert_ne!(a, b);
        assert_eq!(format!("mcp__server__{a}").chars().count(), 64, "{a}");
        assert_eq!(client_name("short", "server", code), "short");
    }

    #[test]
    fn strict_mode_makes_optional_properties_nullable_and_says_where() {
        let schema = json!({"type": "object", "properties": {
            "q": {"type": "string"}, "n": {"type": "integer", "enum": [1, 2]},
            "o": {"type": "object", "properties": {"x": {"type": "string"}}}}, "required": ["q"]});
        let v = entry(&tool(schema), "s", profile(Client::OpenaiStrict)).unwrap_or_default();
        let s = &v["inputSchema"];
        assert_eq!(s["required"], json!(["n", "o", "q"]));
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(
            s["properties"]["n"]["anyOf"][1],
            json!({"type": "null"}),
            "an enum stays"
        );
        assert_eq!(s["properties"]["o"]["type"], json!(["object", "null"]));
        assert_eq!(
            s["properties"]["o"]["properties"]["x"]["type"],
            json!(["string", "null"])
        );
        let absent = &v["_meta"]["toolgen"]["nullMeansAbsent"];
        assert_eq!(absent, &json!(["/n", "/o/x", "/o"]));
    }
}
