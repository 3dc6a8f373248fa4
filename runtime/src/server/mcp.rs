//! The MCP dialect: `initialize`, `ping`, `tools/list` in MCP form (once the
//! connection has sent `initialize`), `tools/call` with `params.name`
//! (answered with `content`, `structuredContent` and `isError`: tool errors
//! are results, so that the model sees them and can correct itself).

use serde_json::{Map, Value, json};

use super::structured::published_output;
use super::wire::{Answer, write_mcp_result};
use super::{MCP_PROTOCOL_VERSIONS, Server, Session, ToolDescriptor, plain_error, string_param};
use crate::error::{ErrorCode, ToolError};

/// A descriptor in MCP `tools/list` form: its name, description and schemas,
/// and what its [`ToolDescriptor::listing`] holds (a generated tool: what
/// its spec says, as the catalog lists it); a descriptor without one gets
/// annotations from its safety level and `_meta.toolgen` from its fields.
pub fn mcp_tool(d: &ToolDescriptor) -> Value {
    let mut t = Map::new();
    t.insert("name".into(), json!(d.id));
    t.insert("description".into(), json!(d.description));
    t.insert("inputSchema".into(), d.input_schema.clone());
    if let Some(o) = &d.output_schema {
        t.insert("outputSchema".into(), published_output(o));
    }
    match &d.listing {
        Some(listing) => t.extend(listing.clone()),
        None => {
            let (read_only, destructive) = match d.safety_level.as_str() {
                "read-only" => (true, false),
                "safe-write" => (false, false),
                _ => (false, true),
            };
            t.insert("title".into(), json!(d.name));
            t.insert(
                "annotations".into(),
                json!({"title": d.name, "readOnlyHint": read_only, "destructiveHint": destructive}),
            );
            let mut meta =
                json!({"category": d.category, "tier": d.tier, "safetyLevel": d.safety_level});
            if let Some(limit) = d.timeout {
                meta["timeoutSeconds"] = json!(limit.as_secs_f64());
            }
            if d.requires_approval {
                meta["requiresApproval"] = json!(true);
            }
            t.insert("_meta".into(), json!({ "toolgen": meta }));
        }
    }
    Value::Object(t)
}

/// An MCP tool error: a result (not a JSON-RPC error), so that the model sees it
/// and can correct itself; the envelope's error object rides in `_meta`.
pub(super) fn mcp_error_result(e: &ToolError) -> Value {
    json!({"content": [{"type": "text", "text": e.message}], "isError": true, "_meta": {"error": e}})
}

/// Answers an MCP method; `None` when `method` (with these params) is not one.
pub(super) fn answer(
    server: &Server,
    session: &mut Session,
    method: &str,
    params: &mut Map<String, Value>,
) -> Option<Result<Answer, ToolError>> {
    Some(match method {
        "initialize" => Ok(initialize(server, session, params).into()),
        "ping" => Ok(json!({}).into()),
        "tools/list" if session.mcp_version.is_some() => {
            Ok(json!({"tools": server.descriptors().map(mcp_tool).collect::<Vec<_>>()}).into())
        }
        "tools/call" if params.contains_key("name") => call(server, params),
        _ => return None,
    })
}

/// Negotiates the protocol version: the client's when this server speaks it,
/// else the newest this server speaks.
fn initialize(server: &Server, session: &mut Session, params: &Map<String, Value>) -> Value {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let version = MCP_PROTOCOL_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .unwrap_or(&MCP_PROTOCOL_VERSIONS[0]);
    session.mcp_version = Some((*version).to_owned());
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": server.info.name, "version": server.info.version},
    })
}

/// `tools/call` with `name`: an unknown tool is a protocol error (-32602), a
/// failing call a result with `isError`.
fn call(server: &Server, params: &mut Map<String, Value>) -> Result<Answer, ToolError> {
    let args = params.remove("arguments").unwrap_or(Value::Null);
    let name = string_param(params, "name")?;
    if !server.tools.contains_key(name) {
        return Err(
            plain_error(ErrorCode::InvalidParams, format!("Unknown tool: {name}")).for_tool(name),
        );
    }
    Ok(match server.call(name, args) {
        Ok(out) => {
            let structured = server.structured(name, &out);
            Answer::written(|buf| write_mcp_result(buf, &out, structured))
        }
        // Tool errors are results, so that the model sees them and can correct itself.
        Err(e) => mcp_error_result(&e).into(),
    })
}
