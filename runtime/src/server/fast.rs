//! The fast path: a well-formed `tools/call` in either dialect answered
//! without building a `Value` tree for the request.

use std::borrow::Cow;

use serde_json::Value;

use super::Server;
use super::execution::WireCall;
use super::jsonrpc::valid_id;
use super::wire::Dialect;

/// A well-formed `tools/call` request (see [`Server::fast_call`]).
#[derive(serde::Deserialize)]
struct FastRequest<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Value,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<FastParams<'a>>,
}

#[derive(serde::Deserialize)]
struct FastParams<'a> {
    #[serde(borrow)]
    tool: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    arguments: Option<Value>,
    #[serde(rename = "_meta")]
    meta: Option<FastMeta>,
}

#[derive(serde::Deserialize)]
struct FastMeta {
    #[serde(rename = "progressToken")]
    progress_token: Option<Value>,
    /// A 2026-07-28 request: the general path checks its envelope.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    modern: Option<serde::de::IgnoredAny>,
}

impl Server {
    /// The common case, `tools/call` in either dialect with a well-formed
    /// request, read without building a `Value` tree for the request.
    /// Anything unusual (including every error in the request itself)
    /// returns `None` and takes the general path, which reads it into the
    /// same call, or answers it with the same bytes it would have had anyway.
    pub(super) fn fast_call(&self, raw: &[u8]) -> Option<WireCall> {
        if raw.len() > self.max_request_bytes {
            return None;
        }
        // One UTF-8 check of the whole line, instead of one per string inside it.
        let text = std::str::from_utf8(raw).ok()?;
        let req: FastRequest<'_> = serde_json::from_str(text).ok()?;
        if req.jsonrpc != "2.0" || req.method != "tools/call" || !valid_id(&req.id) {
            return None;
        }
        let p = req.params?;
        let arguments = match p.arguments {
            None => Value::Null,
            Some(a @ Value::Object(_)) => a,
            Some(_) => return None,
        };
        let progress = match p.meta {
            Some(FastMeta {
                modern: Some(_), ..
            }) => return None,
            Some(FastMeta {
                progress_token: Some(t),
                ..
            }) if t.is_string() || t.is_i64() || t.is_u64() => Some(t),
            Some(FastMeta {
                progress_token: Some(_),
                ..
            }) => return None,
            _ => None,
        };
        let (tool, dialect) = match (p.tool, p.name) {
            (Some(tool), None) => (tool, Dialect::Envelope),
            (None, Some(name)) => (name, Dialect::Mcp),
            _ => return None,
        };
        Some(WireCall {
            id: req.id,
            tool: tool.into_owned(),
            arguments,
            dialect,
            progress,
        })
    }
}
