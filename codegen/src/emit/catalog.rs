//! The JSON catalog: what MCP clients read.
//!
//! For every tool set, under `catalog/<set>/`:
//! - `tools.json`: a `tools/list` result (`{"tools": [...]}`) with, per tool,
//!   `name`, `title`, `description`, `inputSchema`, `outputSchema`, the standard
//!   `annotations` derived from the safety level, and toolgen's own metadata
//!   under `_meta.toolgen` (category, tier, safety level, time limit, notes);
//! - `schemas/<id>.input.json` and `schemas/<id>.output.json`: one
//!   self-contained JSON Schema (2020-12) per tool input and output.
//!
//! `catalog/index.json` lists the tool sets.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::Emitter;
use crate::ir::{Project, Tool, ToolSet};

pub struct Catalog;

impl Emitter for Catalog {
    fn name(&self) -> &'static str {
        "catalog"
    }

    fn emit(&self, _cx: &super::EmitContext<'_>, project: &Project, out: &mut super::Output<'_>) {
        let out = &mut *out.files;
        let mut index = Vec::new();
        for set in &project.tool_sets {
            let dir = format!("catalog/{}", set.name);
            // Serialized straight from the IR: no intermediate `Value` copy of every schema.
            let list = ToolList {
                tools: set.tools.iter().map(|t| ToolEntry::new(set, t)).collect(),
            };
            let mut text = serde_json::to_vec_pretty(&list).unwrap_or_default();
            text.push(b'\n');
            out.add(format!("{dir}/tools.json"), text);
            for tool in &set.tools {
                let id = &tool.id.value;
                let input = titled(&tool.input.value, tool, "input");
                out.add_json(
                    format!("{dir}/schemas/{id}.input.json"),
                    &tool.input.ordered(&input),
                );
                if tool.output.value.is_null() {
                    continue;
                }
                let output = titled(&tool.output.value, tool, "output");
                out.add_json(
                    format!("{dir}/schemas/{id}.output.json"),
                    &tool.output.ordered(&output),
                );
            }
            let mut entry = Map::new();
            entry.insert("name".into(), json!(set.name));
            entry.insert("format".into(), json!(set.format.as_str()));
            entry.insert("namespace".into(), json!(set.namespace));
            entry.insert("toolCount".into(), json!(set.tools.len()));
            entry.insert("catalog".into(), json!(format!("{}/tools.json", set.name)));
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

/// A stand-alone schema file: the tool's schema with a title and description.
fn titled(schema: &Value, tool: &Tool, side: &str) -> Value {
    let mut v = schema.clone();
    if let Value::Object(m) = &mut v {
        m.insert("title".into(), json!(format!("{} {side}", tool.id.value)));
        let description = if side == "input" {
            format!(
                "Arguments of the `{}` tool ({}).",
                tool.id.value, tool.name.value
            )
        } else {
            format!(
                "Result of the `{}` tool ({}).",
                tool.id.value, tool.name.value
            )
        };
        m.insert("description".into(), json!(description));
    }
    v
}

/// The `tools/list` result of one tool set.
#[derive(Serialize)]
struct ToolList<'a> {
    tools: Vec<ToolEntry<'a>>,
}

/// One entry of the `tools/list` result. Fields are declared in sorted order,
/// so the output has sorted keys like every other generated JSON file.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry<'a> {
    #[serde(rename = "_meta")]
    meta: Value,
    annotations: Annotations<'a>,
    description: &'a str,
    input_schema: crate::schema::Ordered<'a>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<crate::schema::Ordered<'a>>,
    title: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Annotations<'a> {
    destructive_hint: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    idempotent_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    open_world_hint: Option<bool>,
    read_only_hint: bool,
    title: &'a str,
}

impl<'a> ToolEntry<'a> {
    pub fn new(set: &ToolSet, tool: &'a Tool) -> ToolEntry<'a> {
        let (read_only, destructive) = tool.safety.value.mcp_hints();
        ToolEntry {
            meta: json!({ "toolgen": meta(set, tool) }),
            annotations: Annotations {
                destructive_hint: destructive,
                idempotent_hint: hint(tool, "idempotentHint"),
                open_world_hint: hint(tool, "openWorldHint"),
                read_only_hint: read_only,
                title: &tool.name.value,
            },
            description: &tool.description.value,
            input_schema: tool.input.ordered(&tool.input.value),
            name: &tool.id.value,
            output_schema: (!tool.output.value.is_null())
                .then(|| tool.output.ordered(&tool.output.value)),
            title: &tool.name.value,
        }
    }
}

/// An MCP hint kept from the spec (`idempotentHint`, `openWorldHint`).
fn hint(tool: &Tool, key: &str) -> Option<bool> {
    tool.annotations.get(key).and_then(|v| v.value.as_bool())
}

/// toolgen's metadata of a tool (`_meta.toolgen`).
fn meta(set: &ToolSet, tool: &Tool) -> Value {
    let mut meta = Map::new();
    meta.insert("category".into(), json!(tool.category.value));
    meta.insert("tier".into(), json!(tool.tier.value));
    meta.insert("safetyLevel".into(), json!(tool.safety.value.as_str()));
    meta.insert("timeoutSeconds".into(), seconds(set.timeout_of(tool)));
    if tool.requires_approval {
        meta.insert("requiresApproval".into(), json!(true));
    }
    if let Some(n) = &tool.notes {
        meta.insert("notes".into(), json!(n.value));
    }
    let extra: Vec<_> = tool
        .annotations
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "idempotentHint" | "openWorldHint"))
        .collect();
    if !extra.is_empty() {
        let ann: Map<String, Value> = extra
            .into_iter()
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
        meta.insert("annotations".into(), Value::Object(ann));
    }
    Value::Object(meta)
}

/// Whole seconds as an integer (`30`, not `30.0`), fractions as they are.
fn seconds(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}
