//! The EditorMCP envelope (`editormcp-envelope.md`): `server/info`,
//! `tools/list` (category and tier filters), `tools/describe`, and
//! `tools/call` with `params.tool`, answered `{tool, output, diagnostics}`;
//! failures are JSON-RPC errors with the envelope's codes and details.

use serde_json::{Map, Value, json};

use super::core::Server;
use super::execution::{Answer, wire_call};
use super::wire::{Dialect, plain_error, string_param};
use crate::error::{ErrorCode, ToolError};

/// Answers an envelope method; `None` when `method` is not one.
pub(super) fn answer(
    server: &Server,
    method: &str,
    params: &mut Map<String, Value>,
) -> Option<Result<Answer, ToolError>> {
    Some(match method {
        "server/info" => Ok(server_info(server).into()),
        "tools/list" => Ok(list(server, params).into()),
        "tools/describe" => describe(server, params).map(Answer::from),
        "tools/call" => call(params),
        _ => return None,
    })
}

/// The server's info, its tier, and the categories of its tools.
fn server_info(server: &Server) -> Value {
    let mut info = server.info.extra.clone();
    info.insert("serverVersion".into(), json!(server.info.version));
    info.insert("tier".into(), json!(server.tier));
    let descriptors = server.descriptors();
    let mut categories: Vec<&str> = descriptors.iter().map(|d| d.category.as_str()).collect();
    categories.sort_unstable();
    categories.dedup();
    info.insert("enabledToolCategories".into(), json!(categories));
    Value::Object(info)
}

/// The tools, optionally of one category or tier.
fn list(server: &Server, params: &Map<String, Value>) -> Value {
    let category = params.get("category").and_then(Value::as_str);
    let tier = params.get("tier").and_then(Value::as_str);
    let tools: Vec<Value> = server
        .descriptors()
        .iter()
        .filter(|d| category.is_none_or(|c| d.category == c))
        .filter(|d| tier.is_none_or(|t| d.tier == t))
        .map(|d| json!({"id": d.id, "name": d.name, "description": d.description, "category": d.category, "safetyLevel": d.safety_level, "tier": d.tier}))
        .collect();
    json!({"tools": tools})
}

/// One tool with its schemas, time limit and notes.
fn describe(server: &Server, params: &Map<String, Value>) -> Result<Value, ToolError> {
    let tool = string_param(params, "tool")?;
    let entry = server.entry(tool).ok_or_else(|| {
        plain_error(ErrorCode::ToolNotFound, format!("Tool not found: {tool}")).for_tool(tool)
    })?;
    let d = &entry.descriptor;
    let mut t = json!({"id": d.id, "name": d.name, "description": d.description, "category": d.category, "safetyLevel": d.safety_level, "tier": d.tier, "inputSchema": d.input_schema});
    if let Some(limit) = server.timeout_of(d) {
        t["timeoutSeconds"] = json!(limit.as_secs_f64());
    }
    if let Some(o) = &d.output_schema {
        t["outputSchema"] = o.clone();
    }
    if let Some(n) = &d.notes {
        t["notes"] = json!(n);
    }
    Ok(json!({"tool": t}))
}

/// `tools/call` with `tool`.
fn call(params: &mut Map<String, Value>) -> Result<Answer, ToolError> {
    let tool = string_param(params, "tool")?.to_owned();
    wire_call(Dialect::Envelope, &tool, params).map(Answer::Call)
}
