//! The MCP dialect: `initialize`, `ping`, `logging/setLevel`, `tools/list` in
//! MCP form (once the connection has sent `initialize`), `tools/call` with
//! `params.name` (answered with `content`, `structuredContent` and `isError`:
//! tool errors are results, so that the model sees them and can correct
//! itself), the resources and prompts offered beside the tools, and calls
//! made tasks (`tasks/get`, `tasks/list`, `tasks/cancel`, `tasks/result`;
//! under 2026-07-28, the tasks extension's `tasks/get`, `tasks/update` and
//! `tasks/cancel`).

use serde_json::{Map, Value, json};

use std::ops::Bound;

use super::control::LogLevel;
use super::core::{Server, Session};
use super::execution::{Answer, wire_call};
use super::structured::published_output;
use super::task::Era;
use super::tool::ToolDescriptor;
use super::wire::{Dialect, MCP_PROTOCOL_VERSIONS, plain_error, string_param};
use crate::error::{ErrorCode, ToolError};

/// A descriptor in MCP `tools/list` form: its [`ToolDescriptor::entry`] (a
/// generated tool: what its spec says, as the catalog lists it), else its
/// name, description and schemas, annotations from its safety level and
/// `_meta.toolgen` from its fields.
pub fn mcp_tool(d: &ToolDescriptor) -> Value {
    if let Some(entry) = d
        .entry
        .as_deref()
        .and_then(|e| serde_json::from_str(e).ok())
    {
        return entry;
    }
    let mut t = Map::new();
    t.insert("name".into(), json!(d.id));
    t.insert("description".into(), json!(d.description));
    t.insert("inputSchema".into(), d.input_schema.clone());
    if let Some(o) = &d.output_schema {
        t.insert("outputSchema".into(), published_output(o));
    }
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
    let mut meta = json!({"category": d.category, "tier": d.tier, "safetyLevel": d.safety_level});
    if let Some(limit) = d.timeout {
        meta["timeoutSeconds"] = json!(limit.as_secs_f64());
    }
    if d.requires_approval {
        meta["requiresApproval"] = json!(true);
    }
    t.insert("_meta".into(), json!({ "toolgen": meta }));
    Value::Object(t)
}

/// Answers an MCP method; `None` when `method` (with these params) is not one.
/// `modern`: the request carries its own protocol version (2026-07-28).
pub(super) fn answer(
    server: &Server,
    session: &mut Session,
    modern: bool,
    method: &str,
    params: &mut Map<String, Value>,
) -> Option<Result<Answer, ToolError>> {
    let (dialect, era) = if modern {
        (Dialect::Modern, Era::Extension)
    } else {
        (Dialect::Mcp, Era::Core)
    };
    Some(match method {
        "initialize" if modern => Err(plain_error(
            ErrorCode::InvalidRequest,
            "Invalid Request: a request that carries its protocol version in `_meta` (2026-07-28) needs no `initialize`; send `server/discover` to learn what the server offers",
        )),
        "initialize" => Ok(initialize(server, session, params).into()),
        "server/discover" => Ok(super::modern::discover(server).into()),
        "ping" => Ok(json!({}).into()),
        "logging/setLevel" => set_level(session, params).map(Answer::from),
        "resources/list" => Ok(server.offered().list_resources().into()),
        "resources/templates/list" => Ok(server.offered().list_templates().into()),
        "resources/subscribe" | "resources/unsubscribe" => {
            let uri = server.offered().subscribed(params);
            uri.map(|uri| {
                server.subscribe(session, uri, method == "resources/subscribe");
                json!({}).into()
            })
        }
        "completion/complete" => server.offered().complete(params).map(Answer::from),
        "resources/read" => server.offered().read(params).map(Answer::from),
        "prompts/list" => Ok(server.offered().list_prompts().into()),
        "prompts/get" => server.offered().get_prompt(params).map(Answer::from),
        "tasks/get" => server.tasks.get(params, era).map(Answer::from),
        "tasks/update" if modern => server.tasks.update(params).map(Answer::from),
        "tasks/list" => Ok(server.tasks.list().into()),
        "tasks/cancel" => server.tasks.cancel(params, era).map(Answer::from),
        "tasks/result" => Ok(Answer::TaskResult(std::mem::take(params))),
        "tools/list" if modern || session.mcp_version.is_some() => {
            let variant = variant_of(server, session, modern, params);
            list(server, variant.as_deref(), params).map(|(tools, mut rest)| {
                if modern {
                    super::modern::cache_hints(&mut rest);
                }
                Answer::Page { tools, rest }
            })
        }
        "tools/call" if params.contains_key("name") => string_param(params, "name")
            .map(|name| name.to_owned())
            .and_then(|name| {
                // A client's variant: its name for the tool, its arguments mapped back.
                let variant = variant_of(server, session, modern, params);
                let name = match (variant, params.get_mut("arguments")) {
                    (Some(v), Some(args)) => v.map_call(&name, args).unwrap_or(name),
                    (Some(v), None) => v.map_call(&name, &mut Value::Null).unwrap_or(name),
                    (None, _) => name,
                };
                wire_call(dialect, &name, params).map(Answer::Call)
            }),
        _ => return None,
    })
}

/// The client's variant of the listing for this request: the connection's
/// (set at `initialize`), or for a 2026-07-28 request, by its `_meta`'s
/// `clientInfo`.
fn variant_of(
    server: &Server,
    session: &Session,
    modern: bool,
    params: &Map<String, Value>,
) -> Option<std::sync::Arc<super::variant::Variant>> {
    if !modern {
        return session.variant.clone();
    }
    let info = params
        .get("_meta")
        .and_then(|m| m.get(super::wire::CLIENT_INFO_KEY))
        .and_then(|i| i.get("name"))
        .and_then(Value::as_str);
    server.variant_for(info)
}

/// One page of `tools/list`, in order of tool ids (of a client's variant,
/// its names), from the tool after the one the cursor names: each tool's
/// entry as JSON text (a generated tool's in its spec's order), and the
/// page's other members (`nextCursor` when more follow). Paging by name
/// keeps pages consistent while tools are added or removed.
fn list(
    server: &Server,
    variant: Option<&super::variant::Variant>,
    params: &Map<String, Value>,
) -> Result<(Vec<String>, Value), ToolError> {
    let bad = || {
        plain_error(
            ErrorCode::InvalidParams,
            "Invalid params: `cursor` is not one this server gave out; start again without a cursor",
        )
    };
    let after = match params.get("cursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(decode_cursor(c).ok_or_else(bad)?),
        Some(_) => return Err(bad()),
    };
    let tools = server.tools.read().unwrap_or_else(|p| p.into_inner());
    let take = server.page_size + 1;
    let mut page: Vec<(&String, String)> = match variant {
        Some(v) => after_cursor(&v.listing, after.as_deref())
            .take(take)
            .map(|(name, text)| (name, text.clone()))
            .collect(),
        None => after_cursor(&tools, after.as_deref())
            .take(take)
            .map(|(id, e)| {
                let d = &e.descriptor;
                let text = match &d.entry {
                    Some(entry) => entry.clone(),
                    None => serde_json::to_string(&mcp_tool(d)).unwrap_or_default(),
                };
                (id, text)
            })
            .collect(),
    };
    let more = page.len() > server.page_size;
    page.truncate(server.page_size);
    let next = page
        .last()
        .filter(|_| more)
        .map(|(id, _)| encode_cursor(id));
    let mut rest = json!({});
    if let Some(c) = next {
        rest["nextCursor"] = json!(c);
    }
    Ok((page.into_iter().map(|(_, t)| t).collect(), rest))
}

/// The members of `m` after the key `after` (all, without one).
fn after_cursor<'m, V>(
    m: &'m std::collections::BTreeMap<String, V>,
    after: Option<&str>,
) -> std::collections::btree_map::Range<'m, String, V> {
    match after {
        Some(a) => m.range::<str, _>((Bound::Excluded(a), Bound::Unbounded)),
        None => m.range::<str, _>(..),
    }
}

/// A cursor: the last tool id of the page, hex-encoded (opaque to clients).
fn encode_cursor(id: &str) -> String {
    let mut c = String::with_capacity(3 + 2 * id.len());
    c.push_str("t1.");
    for b in id.bytes() {
        c.push_str(&format!("{b:02x}"));
    }
    c
}

fn decode_cursor(c: &str) -> Option<String> {
    let hex = c.strip_prefix("t1.")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// `logging/setLevel`: the least level of the log messages the connection's
/// calls send from now on.
fn set_level(session: &Session, params: &Map<String, Value>) -> Result<Value, ToolError> {
    let level = params
        .get("level")
        .and_then(|l| serde_json::from_value::<LogLevel>(l.clone()).ok())
        .ok_or_else(|| {
            plain_error(
                ErrorCode::InvalidParams,
                "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
            )
        })?;
    session.log_level.set(level);
    Ok(json!({}))
}

/// Negotiates the protocol version: the client's when this server speaks it,
/// else the newest this server speaks. The connection is then told when the
/// tool list changes.
fn initialize(server: &Server, session: &mut Session, params: &Map<String, Value>) -> Value {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let version = MCP_PROTOCOL_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .unwrap_or(&MCP_PROTOCOL_VERSIONS[0]);
    if session.mcp_version.is_none() {
        server.listen(session);
    }
    let client = params.get("clientInfo").and_then(|c| c.get("name"));
    session.variant = server.variant_for(client.and_then(Value::as_str));
    session.mcp_version = Some((*version).to_owned());
    if let Some(client) = &session.client {
        client.set_capabilities(params.get("capabilities"));
    }
    let mut r = json!({
        "protocolVersion": version,
        "capabilities": super::modern::capabilities(server, false),
        "serverInfo": {"name": server.info.name, "version": server.info.version},
    });
    if let Some(i) = &server.instructions {
        r["instructions"] = json!(i);
    }
    r
}
