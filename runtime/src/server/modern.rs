//! MCP 2026-07-28 (a release candidate): no `initialize` handshake; every
//! request carries its protocol version and the client's capabilities in
//! `params._meta`, and is answered on its own, so any server process can
//! answer any request. `server/discover` tells a client the versions and
//! capabilities; every result carries `resultType` and the server's
//! identity in `_meta`.
//!
//! A request is modern when its `_meta` holds the protocol-version key;
//! anything else is served as before, so both eras share one connection
//! and one server.

use serde_json::{Map, Value, json};

use super::core::Server;

use super::wire::{
    CLIENT_CAPABILITIES_KEY, MCP_MODERN_VERSIONS, MCP_PROTOCOL_VERSIONS, PROTOCOL_VERSION_KEY,
    Refusal, UNSUPPORTED_PROTOCOL_VERSION,
};

/// The protocol version of a modern request (`Ok(None)`: not a modern
/// request), or why it is refused: the envelope keys missing (-32602), or
/// a version this server does not speak (-32022, naming the ones it does).
pub(crate) fn version_of(params: &Map<String, Value>) -> Result<Option<String>, Refusal> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Ok(None);
    };
    let Some(version) = meta.get(PROTOCOL_VERSION_KEY) else {
        return Ok(None);
    };
    if !meta.contains_key(CLIENT_CAPABILITIES_KEY) {
        return Err(Refusal::new(
            -32602,
            format!(
                "Invalid params: params._meta is missing the required key {CLIENT_CAPABILITIES_KEY}"
            ),
        ));
    }
    let Some(version) = version.as_str() else {
        return Err(Refusal::new(
            -32602,
            format!("Invalid params: params._meta[{PROTOCOL_VERSION_KEY:?}] must be a string"),
        ));
    };
    if !MCP_MODERN_VERSIONS.contains(&version) {
        let mut r = Refusal::new(
            UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "Unsupported protocol version {version:?}: this server speaks {} per request, or {} after `initialize`",
                MCP_MODERN_VERSIONS.join(", "),
                MCP_PROTOCOL_VERSIONS.join(", ")
            ),
        );
        r.data = Some(json!({"supported": MCP_MODERN_VERSIONS, "requested": version}));
        return Err(r);
    }
    Ok(Some(version.to_owned()))
}

/// The server's name and version, as results carry it.
pub(crate) fn server_info(server: &Server) -> Value {
    json!({"name": server.info.name, "version": server.info.version})
}

/// What the server can do, for `server/discover` and `initialize`.
pub(crate) fn capabilities(server: &Server, modern: bool) -> Value {
    let mut c = if modern {
        // Change notifications need a stream the modern wire opens per
        // subscription (`subscriptions/listen`), which this server does not offer.
        json!({"logging": {}, "tools": {}, "extensions": {super::task::TASKS_EXTENSION: {}}})
    } else {
        json!({"logging": {}, "tools": {"listChanged": true}, "tasks": {
            "list": {}, "cancel": {}, "requests": {"tools": {"call": {}}},
        }})
    };
    server.offered().capabilities(&mut c);
    c
}

/// The caching directives a 2026-07-28 list or discover result carries:
/// stale at once, and for this client only (tools can be added at run
/// time, and a caller's tier may differ from another's).
pub(crate) fn cache_hints(result: &mut Value) {
    if let Value::Object(m) = result {
        m.insert("ttlMs".to_owned(), json!(0));
        m.insert("cacheScope".to_owned(), json!("private"));
    }
}

/// `server/discover`: the versions this server speaks per request, its
/// capabilities and instructions.
pub(crate) fn discover(server: &Server) -> Value {
    let mut r = json!({
        "supportedVersions": MCP_MODERN_VERSIONS,
        "capabilities": capabilities(server, true),
    });
    cache_hints(&mut r);
    if let Some(i) = &server.instructions {
        r["instructions"] = json!(i);
    }
    r
}
