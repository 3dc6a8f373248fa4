//! Format readers: spanned documents in, IR tools out.
//!
//! Readers know nothing of outputs. Each reader checks the structure of its
//! format and translates it into [`crate::ir::Tool`]s; format-independent checks
//! run afterwards in [`crate::validate`].

pub mod editormcp;
pub mod fields;
pub mod mcp;
pub mod rave;

use serde_json::Value;

use crate::ir::{Format, Tool, ToolSet};
use crate::syntax::Node;

/// Guesses the format of a parsed document from its content.
pub fn detect(root: &Node, is_yaml: bool) -> Option<Format> {
    root.as_object()?;
    if root.member("inputSchema").is_some() {
        return Some(Format::Mcp);
    }
    if !is_yaml && editormcp::detect(root) {
        return Some(Format::EditorMcp);
    }
    if root.member("parameters").is_some()
        || root
            .get("name")
            .and_then(Node::as_str)
            .is_some_and(|n| n.contains("-mcp_tool_"))
    {
        return Some(Format::Rave);
    }
    if editormcp::detect(root) {
        return Some(Format::EditorMcp);
    }
    None
}

/// The tool set that loose files of `format` (with no toolset.yaml) belong to.
pub fn default_tool_set(format: Format) -> ToolSet {
    let mut set = editormcp::default_tool_set();
    if format != Format::EditorMcp {
        set.name = format.as_str().to_owned();
        set.title = None;
        set.format = format;
        set.namespace = match format {
            Format::Rave => "Rave".to_owned(),
            _ => "Mcp".to_owned(),
        };
        // RAVE and MCP categories are free-form: any category is allowed.
        set.categories = Vec::new();
        // Plain JSON Schema: an array without `items` holds any values.
        set.arrays_need_items = format != Format::Mcp;
        // Only EditorMCP's schema refuses a required parameter with a
        // default; RAVE's reader drops a default of the wrong type (TG0604),
        // so one that still does not fit its schema is an error there too.
        // Plain JSON Schema (MCP) allows both: `default` is an annotation.
        set.format_errors = match format {
            Format::EditorMcp => editormcp::FORMAT_ERRORS,
            Format::Rave => &editormcp::FORMAT_ERRORS[1..],
            Format::Mcp => &[],
        };
        // RAVE's implementation examples are R code.
        set.implementation_language = (format == Format::Rave).then(|| "r".to_owned());
        // Neither format states a time limit; only EditorMCP's protocol does.
        set.default_timeout_seconds = None;
        set.envelope = false;
    }
    set
}

/// A tool's description composed for the model, as RAVE's own R server
/// composes it: the description, what the tool returns (the output schema's
/// description and its fields), and its implementation example.
pub fn composed_description(tool: &Tool) -> String {
    let mut text = tool.description.value.trim().to_owned();
    let output = &tool.output.value;
    let mut returns = Vec::new();
    if let Some(d) = output.get("description").and_then(Value::as_str) {
        returns.push(d.trim().to_owned());
    }
    let props = output.get("properties").and_then(Value::as_object);
    let rank = |p: &str| crate::schema::Ranks::rank(&tool.output, p);
    for name in props
        .map(|p| crate::schema::property_order(p, "/properties", &rank))
        .unwrap_or_default()
    {
        let p = &output["properties"][name.as_str()];
        let ty = p.get("type").map(short_type).unwrap_or_default();
        let d = p.get("description").and_then(Value::as_str).unwrap_or("");
        let ty = if ty.is_empty() {
            String::new()
        } else {
            format!(" ({ty})")
        };
        returns.push(
            format!("- {name}{ty}: {d}")
                .trim_end_matches(": ")
                .to_owned(),
        );
    }
    if !returns.is_empty() {
        text.push_str("\n\nReturns:\n");
        text.push_str(&returns.join("\n"));
    }
    let example = tool
        .annotations
        .get("implementation_example")
        .and_then(|e| e.value.as_str());
    if let Some(e) = example.filter(|e| !e.trim().is_empty()) {
        text.push_str("\n\nExample:\n");
        text.push_str(e.trim_end());
    }
    text
}

/// `"string"`, `["string", "null"]` -> `string`, `string or null`.
fn short_type(t: &Value) -> String {
    match t {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => String::new(),
    }
}
