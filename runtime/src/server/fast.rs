//! The fast path: a well-formed `tools/call` in either dialect answered
//! without building `Value` trees for the request and the response.

use std::borrow::Cow;

use serde_json::Value;

use super::Server;
use super::jsonrpc::{error_response, valid_id};
use super::mcp::mcp_error_result;
use super::wire::{write_envelope_result, write_json, write_mcp_result, write_response};

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
}

impl Server {
    /// The common case, `tools/call` in either dialect with a well-formed
    /// request, without building `Value` trees for the request and the
    /// response. Anything unusual (including every error in the request
    /// itself) returns `None` and takes the general path, which answers it
    /// with the same bytes it would have had anyway.
    pub(super) fn fast_call(&self, raw: &[u8]) -> Option<Vec<u8>> {
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
        let mut out = Vec::with_capacity(256);
        match (p.tool, p.name) {
            (Some(tool), None) => match self.call(&tool, arguments) {
                Ok(o) => write_response(&mut out, &req.id, |out| {
                    write_envelope_result(out, &tool, &o)
                }),
                Err(e) => {
                    serde_json::to_writer(&mut out, &error_response(req.id.clone(), &e)).ok()?
                }
            },
            (None, Some(name)) if self.tools.contains_key(&*name) => {
                match self.call(&name, arguments) {
                    Ok(o) => {
                        let structured = self.structured(&name, &o);
                        write_response(&mut out, &req.id, |out| {
                            write_mcp_result(out, &o, structured)
                        })
                    }
                    // Tool errors are results in MCP, as in the general path.
                    Err(e) => write_response(&mut out, &req.id, |out| {
                        write_json(out, &mcp_error_result(&e))
                    }),
                }
            }
            _ => return None,
        }
        out.push(b'\n');
        Some(out)
    }
}
