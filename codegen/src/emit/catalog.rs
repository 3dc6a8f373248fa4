//! The JSON catalog: what MCP clients read.
//!
//! For every tool set, under `catalog/<set>/`:
//! - `tools.json`: a `tools/list` result (`{"tools": [...]}`) with each tool
//!   as its spec wrote it ([`ToolEntry`]): every member in the order written,
//!   nothing added but toolgen's own metadata under `_meta.toolgen` (category,
//!   tier, safety level, time limit, notes, where a spec or manifest says so);
//! - `schemas/<id>.input.json` and `schemas/<id>.output.json`: each tool's
//!   input and output schema as its `tools.json` entry holds it, with its
//!   `$schema` (if any) and its keys in the order written. An output schema
//!   that is not an object's is the one exception: `tools.json` publishes it
//!   as the `result` of an object (MCP wants an object), the file as written.
//!
//! - `clients/<client>.json`, for each client the manifest names (`clients:`):
//!   the client's variant of `tools.json` (`clients::variant`), which a
//!   server lists to that client and maps its calls back from.
//!
//! `catalog/index.json` lists the tool sets.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::context::{Catalogs, Emitter, Made};
use crate::files::GeneratedFiles;
use crate::ir::{LocatedValue, Project, Tool, ToolSet, plain_values};

pub struct Catalog;

impl Emitter for Catalog {
    fn emit(
        &self,
        cx: &super::context::EmitContext<'_>,
        project: &Project,
        out: &mut super::context::Output<'_>,
    ) {
        let diags = &mut *out.diags;
        let out = &mut *out.files;
        let mut index = Vec::new();
        for set in &project.tool_sets {
            let dir = format!("catalog/{}", set.name);
            let (text, hash) = cx.catalogs.take_tools_json(cx, set);
            out.add(format!("{dir}/tools.json"), text);
            for (i, tool) in set.tools.iter().enumerate() {
                let id = &tool.id.value;
                for side in ["input", "output"] {
                    if side == "output" && tool.output.value.is_null() {
                        continue;
                    }
                    let path = format!("{dir}/schemas/{id}.{side}.json");
                    add_schema_file(cx, out, (set, i), side, path);
                }
            }
            for client in &set.clients {
                client_variant(set, *client, &dir, out, diags);
            }
            let mut entry = Map::new();
            entry.insert("name".into(), json!(set.name));
            entry.insert("format".into(), json!(set.format.as_str()));
            entry.insert("namespace".into(), json!(set.namespace));
            entry.insert("toolCount".into(), json!(set.tools.len()));
            entry.insert("catalog".into(), json!(format!("{}/tools.json", set.name)));
            entry.insert("catalogHash".into(), json!(hash));
            if let Some(t) = &set.title {
                entry.insert("title".into(), json!(t));
            }
            if let Some(v) = &set.version {
                entry.insert("version".into(), json!(v));
            }
            index.push(Value::Object(entry));
        }
        out.add_json("catalog/index.json", &json!({ "toolSets": index }));
    }
}

/// `catalog/<set>/clients/<client>.json`: the client's variant of the tool
/// set's catalog; a tool the client cannot take (a recursive schema for a
/// client that does not resolve references) is an error at its schema.
fn client_variant(
    set: &ToolSet,
    client: crate::ir::Client,
    dir: &str,
    out: &mut GeneratedFiles,
    diags: &mut Vec<crate::diag::Diagnostic>,
) {
    let profile = crate::clients::profile(client);
    let mut tools = Vec::with_capacity(set.tools.len());
    for tool in &set.tools {
        let entry: Value = serde_json::from_str(&entry_json(set, tool)).unwrap_or_default();
        match crate::clients::variant::entries(&entry, &set.name, profile, set.split_unions) {
            Ok(v) => tools.extend(v),
            Err(e) => diags.push(
                crate::diag::Diagnostic::new(
                    &crate::diag::rule::CLIENT_RECURSION,
                    tool.input.locate(&e.pointer).or(Some(tool.loc)),
                    format!(
                        "{}: {}; its variant of tool `{}` cannot be written",
                        profile.title, e.message, tool.id.value
                    ),
                )
                .severity(crate::diag::Severity::Error)
                .help("bound the recursion, or leave the client out of `clients`"),
            ),
        }
    }
    out.add_json(
        format!("{dir}/clients/{client}.json"),
        &json!({"client": client.as_str(), "tools": tools}),
    );
}

impl Catalogs {
    /// The `tools.json` of `set` and its hash, for the catalog's file: made
    /// now unless another emitter made it first (and kept it for this).
    pub fn take_tools_json(
        &self,
        cx: &super::context::EmitContext<'_>,
        set: &ToolSet,
    ) -> (Vec<u8>, String) {
        let mut made = self.lock();
        if let Some(m) = made.get_mut(&set.name) {
            if let Some(text) = m.text.take() {
                return (text, m.hash.clone());
            }
        }
        // Made while holding the lock: an emitter asking for the hash
        // meanwhile waits for it instead of making it too.
        let text = tools_json(cx, set);
        let hash = hash_of(&text);
        made.insert(
            set.name.clone(),
            Made {
                hash: hash.clone(),
                text: None,
            },
        );
        (text, hash)
    }

    /// The catalog hash of `set`: 16 hex digits of the digest of its
    /// `tools.json`. The catalog's index lists it, the generated Rust
    /// (`CATALOG_HASH`) and C# (`CatalogHash`) carry it, and the Unity
    /// bridge's two sides compare theirs on connect: generated code of two
    /// different versions of the specs never talk.
    pub fn hash(&self, cx: &super::context::EmitContext<'_>, set: &ToolSet) -> String {
        let mut made = self.lock();
        if let Some(m) = made.get(&set.name) {
            return m.hash.clone();
        }
        let text = tools_json(cx, set);
        let hash = hash_of(&text);
        let keep = cx.options.asks_for(crate::ir::OutputKind::Catalog);
        made.insert(
            set.name.clone(),
            Made {
                hash: hash.clone(),
                text: keep.then_some(text),
            },
        );
        hash
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Made>> {
        self.made
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A tool set's `tools.json`: `{"tools": [..]}` pretty-printed, each entry
/// serialized on its own (on every core, or kept from an earlier run)
/// straight from the IR (no intermediate `Value` copy of every schema) and
/// indented to its depth: the same text as serializing the whole list at once.
fn tools_json(cx: &super::context::EmitContext<'_>, set: &ToolSet) -> Vec<u8> {
    let entries = crate::par::map(set.tools.len(), |i| entry_text(cx, set, i));
    let mut text = Vec::with_capacity(entries.iter().map(|e| e.len() + 2).sum::<usize>() + 32);
    text.extend_from_slice(b"{\n  \"tools\": [");
    for (i, entry) in entries.iter().enumerate() {
        text.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        text.extend_from_slice(entry.as_bytes());
    }
    text.extend_from_slice(if entries.is_empty() {
        b"]\n}\n"
    } else {
        b"\n  ]\n}\n"
    });
    text
}

/// The `index`th tool's entry of `tools.json`, pretty-printed and indented
/// as it stands in the file (each line by four), so that the file is the
/// entries put together, kept or not, with nothing to split.
fn entry_text(cx: &super::context::EmitContext<'_>, set: &ToolSet, index: usize) -> String {
    cx.tool_text((set, index), "catalog entry, indented", || {
        entry_made(set, index)
    })
}

/// The `index`th tool's entry as [`entry_text`] gives it, made.
fn entry_made(set: &ToolSet, index: usize) -> String {
    let entry =
        serde_json::to_string_pretty(&ToolEntry::new(set, &set.tools[index])).unwrap_or_default();
    let mut indented = String::with_capacity(entry.len() + entry.len() / 8 + 4);
    for (j, line) in entry.split('\n').enumerate() {
        if j > 0 {
            indented.push('\n');
        }
        indented.push_str("    ");
        indented.push_str(line);
    }
    indented
}

/// A tool's stand-alone schema file of one side (`input` or `output`).
fn add_schema_file(
    cx: &super::context::EmitContext<'_>,
    out: &mut GeneratedFiles,
    (set, index): (&ToolSet, usize),
    side: &str,
    path: String,
) {
    let tool = &set.tools[index];
    let what = format!("catalog {side} schema file");
    let text = cx.tool_text((set, index), &what, || {
        let schema = if side == "input" {
            &tool.input
        } else {
            &tool.output
        };
        let mut text = serde_json::to_string_pretty(&schema.ordered(&schema.value))
            .unwrap_or_else(|_| "null".to_owned());
        text.push('\n');
        text
    });
    out.add(path, text);
}

fn hash_of(tools_json: &[u8]) -> String {
    let hex = crate::digest::Digest::of(tools_json).hex();
    hex.chars().take(16).collect()
}

/// One entry of the `tools/list` result: `name`, `title` (its display name,
/// unless toolgen made one up), `description`, the schemas (an output schema
/// that is not an object's wrapped as MCP requires, see [`published_output`]),
/// `annotations` (the hints the spec states), the fields published as written
/// (`icons`, `execution`, unknown ones) and `_meta` (the spec's members, and
/// toolgen's own under `toolgen`): each member in the order the spec wrote
/// it, and what the spec did not write (a format with no such field) after,
/// in that order. The generated server's table carries it, so the server
/// lists the tool as the catalog does.
pub struct ToolEntry<'a> {
    tool: &'a Tool,
    output: Option<Value>,
    /// `_meta`: the spec's members, with toolgen's own put in.
    meta: Option<LocatedValue>,
    /// Schemas the generated table holds as constants already are written as
    /// `null`, which the runtime fills in from them ([`ToolEntry::slots`]).
    slots: bool,
}

impl<'a> ToolEntry<'a> {
    pub fn new(set: &ToolSet, tool: &'a Tool) -> ToolEntry<'a> {
        let own = meta(set, tool);
        let mut meta = tool.passthrough.get("_meta").cloned();
        if !own.is_empty() {
            let m = meta.get_or_insert_with(LocatedValue::default);
            if let Value::Object(members) = &mut *m.value {
                members.insert("toolgen".into(), Value::Object(own));
            } else {
                *m.value = json!({ "toolgen": own });
            }
        }
        ToolEntry {
            tool,
            output: published_output(&tool.output.value),
            meta: meta.filter(|m| m.value.as_object().is_some_and(|o| !o.is_empty())),
            slots: false,
        }
    }

    /// The entry as the generated table holds it, beside the tool's
    /// `INPUT_SCHEMA` and `OUTPUT_SCHEMA` ([`TableOutput`]): `inputSchema`
    /// written as `null`, and `outputSchema` too unless it is wrapped; the
    /// runtime puts the constants in their places, so that each schema is in
    /// the generated code once.
    pub fn slots(mut self) -> ToolEntry<'a> {
        self.slots = true;
        self
    }
}

impl Serialize for ToolEntry<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        enum Field<'f> {
            Text(&'f str),
            Schema(&'f crate::ir::Schema),
            Output(&'f Value),
            Hints,
            Located(&'f LocatedValue),
        }
        let t = self.tool;
        let rank = |l: &crate::source::Loc| Some((l.file.0, l.span.start));
        let at = |v: &LocatedValue| v.locs.get("").and_then(rank);
        let mut fields: Vec<(Option<crate::schema::Rank>, &str, Field<'_>)> =
            vec![(rank(&t.id.loc), "name", Field::Text(&t.id.value))];
        if !t.implied.name {
            fields.push((rank(&t.name.loc), "title", Field::Text(&t.name.value)));
        }
        if !t.implied.description {
            let description = t.description_for_model();
            fields.push((
                rank(&t.description.loc),
                "description",
                Field::Text(description),
            ));
        }
        let input = t.input.locs.get("").and_then(rank);
        fields.push((input, "inputSchema", Field::Schema(&t.input)));
        if let Some(o) = &self.output {
            let output = t.output.locs.get("").and_then(rank);
            fields.push((output, "outputSchema", Field::Output(o)));
        }
        if !t.hints.is_empty() {
            let first = t.hints.values().filter_map(|h| rank(&h.loc)).min();
            fields.push((first, "annotations", Field::Hints));
        }
        for (k, v) in t.passthrough.iter().filter(|(k, _)| *k != "_meta") {
            fields.push((at(v), k, Field::Located(v)));
        }
        if let Some(m) = &self.meta {
            fields.push((at(m), "_meta", Field::Located(m)));
        }
        // Stable: fields with no place in the spec keep the order above.
        fields.sort_by_key(|(at, _, _)| (at.is_none(), *at));
        let mut map = s.serialize_map(Some(fields.len()))?;
        for (_, key, field) in fields {
            match field {
                Field::Text(v) => map.serialize_entry(key, v)?,
                Field::Schema(_) if self.slots => map.serialize_entry(key, &())?,
                Field::Schema(schema) => {
                    map.serialize_entry(key, &schema.ordered(&schema.value))?
                }
                Field::Output(_) if self.slots && !structured::wraps(&t.output.value) => {
                    map.serialize_entry(key, &())?
                }
                Field::Output(o) => {
                    let ranks = WrappedRanks(&t.output, structured::wraps(&t.output.value));
                    map.serialize_entry(
                        key,
                        &crate::schema::Ordered {
                            value: o,
                            ranks: &ranks,
                        },
                    )?
                }
                Field::Hints => map.serialize_entry(key, &Hints(t))?,
                Field::Located(v) => map.serialize_entry(key, &v.ordered())?,
            }
        }
        map.end()
    }
}

/// A tool's hints as its `annotations`, in the order the spec wrote them.
struct Hints<'a>(&'a Tool);

impl Serialize for Hints<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut hints: Vec<_> = self.0.hints.iter().collect();
        hints.sort_by_key(|(_, h)| (h.loc.file.0, h.loc.span.start));
        let mut map = s.serialize_map(Some(hints.len()))?;
        for (k, h) in hints {
            map.serialize_entry(k, &h.value)?;
        }
        map.end()
    }
}

/// A tool's `tools/list` entry as one line of JSON, as `tools.json` lists it
/// (for a server that builds its descriptors from the specs at run time).
pub fn entry_json(set: &ToolSet, tool: &Tool) -> String {
    serde_json::to_string(&ToolEntry::new(set, tool)).unwrap_or_default()
}

/// A tool's output schema as the generated `OUTPUT_SCHEMA` holds it: as
/// `tools/list` publishes it where that is an object's schema (MCP's
/// `"type": "object"` beside a `$ref` root: the same values are valid, as the
/// reference is to an object's schema), else as declared (one that is not
/// an object's, which the runtime wraps as the `result` of one).
pub struct TableOutput<'a> {
    tool: &'a Tool,
    value: Value,
}

impl<'a> TableOutput<'a> {
    /// `None` when the tool declares no output schema.
    pub fn of(tool: &'a Tool) -> Option<TableOutput<'a>> {
        let schema = &tool.output.value;
        let value = match published_output(schema)? {
            _ if structured::wraps(schema) => Value::clone(schema),
            published => published,
        };
        Some(TableOutput { tool, value })
    }
}

impl Serialize for TableOutput<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::schema::Ordered {
            value: &self.value,
            ranks: &self.tool.output,
        }
        .serialize(s)
    }
}

/// The ranks of a wrapped output schema: the spec's schema sits at
/// `/properties/result`.
struct WrappedRanks<'a>(&'a crate::ir::Schema, bool);

impl crate::schema::Ranks for WrappedRanks<'_> {
    fn rank(&self, pointer: &str) -> Option<crate::schema::Rank> {
        let inner = match (self.1, pointer.strip_prefix("/properties/result")) {
            (true, Some(rest)) => rest,
            _ => pointer,
        };
        crate::schema::Ranks::rank(self.0, inner)
    }
}

/// The output schema MCP clients are given: none when the tool declares
/// none; else the runtime's rule (an object's schema as it is, any other
/// wrapped as the property `result` of an object), from the runtime's own
/// source, so that catalog and server publish the same.
pub fn published_output(schema: &Value) -> Option<Value> {
    (!schema.is_null()).then(|| structured::published_output(schema))
}

/// Whether outputs of a tool with this output schema go out as structured
/// content `{"result": ...}` (the schema is not an object's).
pub fn wraps_output(schema: &Value) -> bool {
    structured::wraps(schema)
}

#[path = "../../../runtime/src/server/structured.rs"]
mod structured;

/// toolgen's metadata of a tool (`_meta.toolgen`): what the spec says in
/// fields MCP has no place for; nothing toolgen filled in.
fn meta(set: &ToolSet, tool: &Tool) -> Map<String, Value> {
    let mut meta = Map::new();
    if !tool.implied.category {
        meta.insert("category".into(), json!(tool.category.value));
    }
    if !tool.implied.tier {
        meta.insert("tier".into(), json!(tool.tier.value));
    }
    if !tool.implied.safety {
        meta.insert("safetyLevel".into(), json!(tool.safety.value.as_str()));
    }
    if let Some(t) = set.timeout_of(tool) {
        meta.insert("timeoutSeconds".into(), seconds(t));
    }
    if tool.requires_approval {
        meta.insert("requiresApproval".into(), json!(true));
    }
    if let Some(n) = &tool.notes {
        meta.insert("notes".into(), json!(n.value));
    }
    if let Some(d) = &tool.deprecated {
        meta.insert("deprecated".into(), d.value.to_json());
    }
    if !tool.content.is_empty() {
        let content = tool.content.iter().map(|c| c.value.to_json()).collect();
        meta.insert("content".into(), Value::Array(content));
    }
    if !tool.annotations.is_empty() {
        meta.insert(
            "annotations".into(),
            Value::Object(plain_values(&tool.annotations)),
        );
    }
    meta
}

/// Whole seconds as an integer (`30`, not `30.0`), fractions as they are.
fn seconds(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}
