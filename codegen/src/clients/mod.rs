//! What MCP clients and model APIs accept in a tool definition (a tool set's
//! `clients`, `--clients`): each client's [`Profile`] and the rules that
//! check a tool set's tools against the profiles it names, located at the
//! name or schema node a client refuses or changes. One diagnostic names
//! every chosen client a finding concerns. [`variant`] writes a client's
//! variant of the catalog, which takes each change the notes announce.

mod profiles;
pub mod variant;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Diagnostics, Rule, rule};
use crate::ir::{Project, Tool, ToolSet};
use crate::schema::{pointer_join, walk};
use crate::source::Loc;

pub use self::profiles::{PROFILES, Profile, profile};

/// Checks every tool set that names clients against their profiles.
pub fn check(project: &Project, diags: &mut Diagnostics) {
    for set in &project.tool_sets {
        if set.clients.is_empty() {
            continue;
        }
        let profiles: Vec<&Profile> = set.clients.iter().map(|c| profile(*c)).collect();
        let mut found = Found::default();
        tool_count(set, &profiles, &mut found);
        for tool in &set.tools {
            for p in &profiles {
                name(set, tool, p, &mut found);
                input_schema(tool, p, &mut found);
                if p.structured_only && !tool.output.value.is_null() && !tool.content.is_empty() {
                    found.add(p, Finding::at(&rule::CLIENT_STRUCTURED_ONLY, tool.loc, format!(
                        "tool `{}` returns content blocks beside its structured output; only the output reaches the model",
                        tool.id.value
                    )));
                }
            }
        }
        found.report(diags);
    }
}

/// One thing a client refuses or changes.
struct Finding {
    rule: &'static Rule,
    loc: Option<Loc>,
    message: String,
    label: Option<String>,
    help: Option<String>,
}

impl Finding {
    fn at(rule: &'static Rule, loc: Loc, message: String) -> Finding {
        Finding::new(rule, Some(loc), message)
    }

    fn new(rule: &'static Rule, loc: Option<Loc>, message: String) -> Finding {
        Finding {
            rule,
            loc,
            message,
            label: None,
            help: None,
        }
    }

    fn label(mut self, label: impl Into<String>) -> Finding {
        self.label = Some(label.into());
        self
    }

    fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }
}

/// A finding's rule code, place and message: what makes two the same.
type Place = (&'static str, Option<Loc>, String);

/// Findings by rule, place and message, each with the clients it concerns.
#[derive(Default)]
struct Found {
    by_place: BTreeMap<Place, (Finding, Vec<&'static str>)>,
}

impl Found {
    fn add(&mut self, p: &Profile, f: Finding) {
        let key = (f.rule.code, f.loc, f.message.clone());
        let entry = self.by_place.entry(key).or_insert_with(|| (f, Vec::new()));
        if !entry.1.contains(&p.title) {
            entry.1.push(p.title);
        }
    }

    fn report(self, diags: &mut Diagnostics) {
        for ((_, _, message), (f, clients)) in self.by_place {
            let mut d =
                Diagnostic::new(f.rule, f.loc, format!("{}: {message}", clients.join(", ")));
            if let Some(l) = f.label {
                d = d.label(l);
            }
            if let Some(h) = f.help {
                d = d.help(h);
            }
            diags.push(d);
        }
    }
}

/// TG1003: more tools than the client takes from one server.
fn tool_count(set: &ToolSet, profiles: &[&Profile], found: &mut Found) {
    for p in profiles {
        let Some(max) = p.max_tools.filter(|m| set.tools.len() > *m) else {
            continue;
        };
        let loc = set
            .manifest
            .or_else(|| set.tools.get(max).map(|t| t.id.loc));
        let f = Finding::new(
            &rule::CLIENT_TOOL_COUNT,
            loc,
            format!(
                "tool set `{}` has {} tools; at most {max} are taken from one server",
                set.name,
                set.tools.len()
            ),
        );
        found.add(
            p,
            f.help("split the tool set, or serve this client fewer tools (a lower tier)"),
        );
    }
}

/// TG1001, TG1002: the tool's name, as the client writes it.
fn name(set: &ToolSet, tool: &Tool, p: &Profile, found: &mut Found) {
    let id = &tool.id.value;
    let refused: BTreeSet<char> = id
        .chars()
        .enumerate()
        .filter(|(i, c)| !(p.name_char)(*c, *i == 0))
        .map(|(_, c)| c)
        .collect();
    if !refused.is_empty() {
        let chars: Vec<String> = refused.iter().map(|c| format!("`{c}`")).collect();
        let f = Finding::at(
            &rule::CLIENT_NAME_CHARACTERS,
            tool.id.loc,
            format!(
                "tool name `{id}` has {} outside {}",
                chars.join(", "),
                p.name_chars
            ),
        );
        found.add(
            p,
            f.label("refused").help(format!(
                "name it `{}` (the client's variant of the catalog does, and maps calls back)",
                p.clean_name(id)
            )),
        );
    }
    let full = format!("{}{id}", (p.prefix)(&set.name));
    let length = full.chars().count();
    if length > p.max_name {
        let what = if full == *id {
            format!(
                "tool name `{id}` has {length} characters, over {}",
                p.max_name
            )
        } else {
            format!(
                "tool name `{id}` is `{full}` to the client ({length} characters with server `{}`), over {}",
                set.name, p.max_name
            )
        };
        let outcome = if p.refuses_long_names {
            "refused"
        } else {
            "cut"
        };
        found.add(
            p,
            Finding::at(&rule::CLIENT_NAME_LENGTH, tool.id.loc, what).label(outcome),
        );
    }
}

/// The schema rules, over the tool's input schema.
fn input_schema(tool: &Tool, p: &Profile, found: &mut Found) {
    let locate = |ptr: &str| tool.input.locate(ptr).or(Some(tool.loc));
    schema_rules(&tool.input.value, p, &locate, found);
}

/// What `p` finds in an input schema that is not a spec's (a client's
/// variant, in the tests): each finding's rule and message.
pub fn findings(schema: &Value, p: &Profile) -> Vec<(&'static Rule, String)> {
    let mut found = Found::default();
    schema_rules(schema, p, &|_| None, &mut found);
    found
        .by_place
        .into_values()
        .map(|(f, _)| (f.rule, f.message))
        .collect()
}

/// The schema rules over `schema`, located by `locate`.
fn schema_rules(
    schema: &Value,
    p: &Profile,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    root(schema, p, &locate, found);
    let recursive = crate::schema::recursive_defs(schema);
    let mut properties = 0usize;
    walk(schema, "", &mut |ptr, obj| {
        properties += obj
            .get("properties")
            .and_then(Value::as_object)
            .map_or(0, Map::len);
        node(ptr, obj, p, &recursive, locate, found);
    });
    if let Some(max) = p.max_properties.filter(|m| properties > *m) {
        found.add(
            p,
            Finding::new(
                &rule::CLIENT_LIMITS,
                locate(""),
                format!("the input schema has {properties} properties in all, over {max}"),
            ),
        );
    }
    if let Some(max) = p.max_depth {
        let depth = object_depth(schema);
        if depth > max {
            found.add(
                p,
                Finding::new(
                    &rule::CLIENT_LIMITS,
                    locate(""),
                    format!("the input schema nests objects {depth} levels deep, over {max}"),
                ),
            );
        }
    }
}

/// TG1004: the root of the input schema.
fn root(schema: &Value, p: &Profile, locate: &dyn Fn(&str) -> Option<Loc>, found: &mut Found) {
    if !p.root_object {
        return;
    }
    let Some(obj) = schema.as_object() else {
        return;
    };
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        let f = Finding::new(
            &rule::CLIENT_ROOT_SCHEMA,
            locate("/type").or(locate("")),
            "the input schema's root is not `\"type\": \"object\"`".to_owned(),
        );
        found.add(
            p,
            f.help("give the root `\"type\": \"object\"` and its `properties`"),
        );
    }
    for key in ["anyOf", "oneOf", "allOf", "enum", "not", "const"] {
        if obj.contains_key(key) {
            let f = Finding::new(
                &rule::CLIENT_ROOT_SCHEMA,
                locate(&pointer_join("", key)),
                format!("the input schema's root has `{key}`"),
            );
            found.add(p, f.label("refused at the root").help(
                "keep the root a plain object and move the alternatives into a property, or write `splitUnions: true` in the manifest: the client's variant then lists one tool per branch",
            ));
        }
    }
}

/// The rules of one schema node.
fn node(
    ptr: &str,
    obj: &Map<String, Value>,
    p: &Profile,
    recursive: &BTreeSet<String>,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    keywords(ptr, obj, p, locate, found);
    values(ptr, obj, p, locate, found);
    shapes(ptr, obj, p, locate, found);
    if p.strict {
        strict(ptr, obj, p, locate, found);
    }
    references(ptr, obj, p, recursive, locate, found);
}

/// TG1007, TG1008, TG1009: keywords and types.
fn keywords(
    ptr: &str,
    obj: &Map<String, Value>,
    p: &Profile,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    let at = |key: &str| locate(&pointer_join(ptr, key));
    for key in obj.keys() {
        // References are inlined for such a client (TG1014); annotations no
        // validator reads are dropped without a word.
        let handled = (matches!(key.as_str(), "$ref" | "$defs") && p.inline_refs)
            || matches!(key.as_str(), "$schema" | "$id" | "$comment");
        if !handled && !p.keywords.takes(key) {
            let f = Finding::new(
                &rule::CLIENT_KEYWORD,
                at(key),
                format!("keyword `{key}` is refused"),
            );
            found.add(p, f.label("refused").help(
                "the client's variant drops it and writes what it asked for into the description; the server still checks it",
            ));
        }
    }
    if let Some(Value::Array(list)) = obj.get("type") {
        if !p.type_arrays {
            let nullable = list.len() == 2 && list.iter().any(|t| t == "null");
            let f = Finding::new(
                &rule::CLIENT_TYPE_ARRAY,
                at("type"),
                "a list of types is refused".to_owned(),
            );
            let branches: Vec<String> = list.iter().map(|t| format!("{{\"type\": {t}}}")).collect();
            let f = if nullable {
                f.help("the client's variant writes it as one type with `\"nullable\": true`")
            } else {
                f.help(format!("write `\"anyOf\": [{}]`", branches.join(", ")))
            };
            found.add(p, f);
        }
    }
    if !p.type_beside_any_of && obj.contains_key("type") && obj.contains_key("anyOf") {
        let f = Finding::new(
            &rule::CLIENT_TYPE_BESIDE_ANY_OF,
            at("type"),
            "`type` beside `anyOf` is refused".to_owned(),
        );
        found.add(p, f.help("move `type` into each branch of `anyOf`"));
    }
}

/// TG1010, TG1011, TG1017: enums and formats.
fn values(
    ptr: &str,
    obj: &Map<String, Value>,
    p: &Profile,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    let at = |key: &str| locate(&pointer_join(ptr, key));
    if p.string_enums_only {
        if let Some(Value::Array(values)) = obj.get("enum") {
            if values.iter().any(|v| !v.is_string()) {
                found.add(
                    p,
                    Finding::new(
                        &rule::CLIENT_ENUM_TYPE,
                        at("enum"),
                        "an enum of values that are not all strings is refused".to_owned(),
                    ),
                );
            }
        }
    }
    if let (Some(allowed), Some(format)) = (p.formats, obj.get("format").and_then(Value::as_str)) {
        if !allowed.contains(&format) {
            let f = Finding::new(
                &rule::CLIENT_FORMAT,
                at("format"),
                format!("format `{format}` is refused"),
            );
            let said = obj.get("description").and_then(Value::as_str).unwrap_or("");
            let said = if said.is_empty() {
                format!("(format: {format})")
            } else {
                format!("{said} (format: {format})")
            };
            found.add(p, f.help(format!(
                "write `\"description\": {}` instead of `format` (the client's variant does; the server still checks `format`)",
                Value::from(said)
            )));
        }
    }
    if let (Some(max), Some(Value::Array(values))) = (p.max_enum, obj.get("enum")) {
        if values.len() > max {
            found.add(
                p,
                Finding::new(
                    &rule::CLIENT_LIMITS,
                    at("enum"),
                    format!("an enum of {} values, over {max}", values.len()),
                ),
            );
        }
    }
}

/// TG1005, TG1006: arrays and objects.
fn shapes(
    ptr: &str,
    obj: &Map<String, Value>,
    p: &Profile,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    let types = crate::schema::types_of(obj);
    let array = types.contains(&"array");
    if p.arrays_need_items
        && array
        && !obj.contains_key("items")
        && !obj.contains_key("prefixItems")
    {
        let f = Finding::new(
            &rule::CLIENT_ARRAY_ITEMS,
            locate(ptr),
            "array schema without `items` is refused".to_owned(),
        );
        found.add(
            p,
            f.help("add `\"items\": {\"type\": \"string\"}` (or the item type it holds)"),
        );
    }
    let object = types.contains(&"object");
    if p.objects_need_properties && object && !obj.contains_key("properties") {
        let f = Finding::new(
            &rule::CLIENT_OBJECT_PROPERTIES,
            locate(ptr),
            "object schema without `properties` is refused".to_owned(),
        );
        found.add(
            p,
            f.help("declare its properties, or take the value as a JSON text in a string"),
        );
    }
}

/// TG1014, TG1015, TG1016: references.
fn references(
    ptr: &str,
    obj: &Map<String, Value>,
    p: &Profile,
    recursive: &BTreeSet<String>,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    let at = |key: &str| locate(&pointer_join(ptr, key));
    if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
        if p.bare_refs && obj.keys().any(|k| k != "$ref" && k != "$defs") {
            let beside: Vec<String> = (obj.keys())
                .filter(|k| *k != "$ref" && *k != "$defs")
                .map(|k| format!("`{k}`"))
                .collect();
            let f = Finding::new(
                &rule::CLIENT_REF_SIBLING,
                at("$ref"),
                "keywords beside `$ref` are refused".to_owned(),
            );
            found.add(
                p,
                f.help(format!("move {} into `{target}`", beside.join(", "))),
            );
        }
        if p.inline_refs {
            let def = target.strip_prefix("#/$defs/").unwrap_or(target);
            if recursive.contains(def) {
                let f = Finding::new(
                    &rule::CLIENT_RECURSION,
                    at("$ref"),
                    format!("`{target}` refers back to itself and cannot be inlined"),
                );
                found.add(p, f.label("recursive"));
            } else {
                found.add(
                    p,
                    Finding::new(
                        &rule::CLIENT_REF_INLINED,
                        at("$ref"),
                        format!("`{target}` is inlined in the client's variant"),
                    ),
                );
            }
        }
    }
}

/// TG1012, TG1013: OpenAI's strict mode.
fn strict(
    ptr: &str,
    obj: &Map<String, Value>,
    p: &Profile,
    locate: &dyn Fn(&str) -> Option<Loc>,
    found: &mut Found,
) {
    let props_ptr = pointer_join(ptr, "properties");
    let Some(props) = obj.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: BTreeSet<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for name in props.keys().filter(|n| !required.contains(n.as_str())) {
        let f = Finding::new(
            &rule::CLIENT_STRICT_REQUIRED,
            locate(&pointer_join(&props_ptr, name)),
            format!("optional property `{name}` is written required and nullable"),
        );
        found.add(p, f.label("optional"));
    }
    if obj.get("additionalProperties") != Some(&Value::Bool(false)) {
        let where_ = if ptr.is_empty() {
            "the root object"
        } else {
            "an object"
        };
        let f = Finding::new(
            &rule::CLIENT_STRICT_CLOSED,
            locate(&props_ptr),
            format!("{where_} gets `\"additionalProperties\": false`"),
        );
        found.add(p, f);
    }
}

/// How deep objects nest along `properties` and `items` (the root object is 1).
fn object_depth(schema: &Value) -> usize {
    let Some(obj) = schema.as_object() else {
        return 0;
    };
    let own = usize::from(obj.contains_key("properties"));
    let mut deepest = 0;
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        deepest = props.values().map(object_depth).max().unwrap_or(0);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(v) = obj.get(key) {
            deepest = deepest.max(object_depth(v));
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            deepest = deepest.max(branches.iter().map(object_depth).max().unwrap_or(0));
        }
    }
    own + deepest
}
