//! The fast path: a well-formed `tools/call` in either dialect answered
//! without building a `Value` tree for the request: read by [`Reader`], its
//! arguments kept as their text and a borrowed [`Json`].

use std::borrow::Cow;

use serde_json::Value;

use super::core::Server;
use super::entry::WireArguments;
use super::execution::WireCall;
use super::wire::{Dialect, valid_id};
use crate::json::{Json, Parsed, Reader};

/// The parts of a request the fast path reads; any other member is skipped.
#[derive(Default)]
struct Request<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<Json<'a>>,
    method: Option<&'a str>,
    tool: Option<&'a str>,
    name: Option<&'a str>,
    /// The text of `params.arguments` and what it reads as.
    arguments: Option<(&'a str, Parsed<'a>)>,
    progress: Option<Value>,
    /// The members read so far, of the request, its `params` and their
    /// `_meta` (bits below; `PARAMS`: `params` was read, as an object).
    seen: u16,
}

const JSONRPC: u16 = 1;
const ID: u16 = 1 << 1;
const METHOD: u16 = 1 << 2;
const PARAMS: u16 = 1 << 3;
const TOOL: u16 = 1 << 4;
const NAME: u16 = 1 << 5;
const ARGUMENTS: u16 = 1 << 6;
const META: u16 = 1 << 7;
const PROGRESS: u16 = 1 << 8;
const VERSION: u16 = 1 << 9;

/// Marks member `bit` as read; `None` the second time (serde refuses a
/// member written twice, even as `null`, and the general path keeps the last).
fn first_time(seen: &mut u16, bit: u16) -> Option<()> {
    let fresh = *seen & bit == 0;
    *seen |= bit;
    fresh.then_some(())
}

impl<'a> Request<'a> {
    fn read(text: &'a str) -> Option<Request<'a>> {
        let mut r = Reader::new(text);
        let mut req = Request::default();
        r.members(|r, name| match name {
            "jsonrpc" => {
                first_time(&mut req.seen, JSONRPC)?;
                req.jsonrpc = Some(r.string()?);
                Some(())
            }
            "id" => {
                first_time(&mut req.seen, ID)?;
                req.id = Some(r.value()?);
                Some(())
            }
            "method" => {
                first_time(&mut req.seen, METHOD)?;
                req.method = Some(r.string()?);
                Some(())
            }
            "params" => {
                first_time(&mut req.seen, PARAMS)?;
                // `null` params: not a call the fast path reads.
                r.members(|r, name| req.param(r, name))
            }
            _ => r.value().map(drop),
        })?;
        r.at_end().then_some(req)
    }

    /// One member of `params`.
    fn param(&mut self, r: &mut Reader<'a>, name: &str) -> Option<()> {
        let bit = match name {
            "tool" => TOOL,
            "name" => NAME,
            "arguments" => ARGUMENTS,
            "_meta" => META,
            _ => 0,
        };
        first_time(&mut self.seen, bit)?;
        match name {
            // Even a `null` `name` makes the general path answer as MCP:
            // leave any `null` here to it.
            "tool" => {
                self.tool = Some(r.string()?);
                Some(())
            }
            "name" => {
                self.name = Some(r.string()?);
                Some(())
            }
            "arguments" => {
                let (text, parsed) = r.parsed()?;
                match parsed.json {
                    Json::Null => Some(()),
                    Json::Object(_) => {
                        self.arguments = Some((text, parsed));
                        Some(())
                    }
                    _ => None,
                }
            }
            // A call made a task: the general path reads it.
            "task" => None,
            "_meta" if r.next() == Some(b'n') => r.value().filter(Json::is_null).map(drop),
            "_meta" => r.members(|r, name| match name {
                "progressToken" => {
                    first_time(&mut self.seen, PROGRESS)?;
                    self.progress = match r.value()? {
                        Json::Null => None,
                        Json::String(s) => Some(Value::String(s.into_owned())),
                        Json::Number(n) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
                        _ => return None,
                    };
                    Some(())
                }
                // A 2026-07-28 request: the general path checks its envelope.
                "io.modelcontextprotocol/protocolVersion" => {
                    first_time(&mut self.seen, VERSION)?;
                    r.value().filter(Json::is_null).map(drop)
                }
                _ => r.value().map(drop),
            }),
            _ => r.value().map(drop),
        }
    }
}

impl Server {
    /// The common case, `tools/call` in either dialect with a well-formed
    /// request, read without building a `Value` tree for the request.
    /// Anything unusual (including every error in the request itself, and
    /// any text [`Reader`] leaves to serde_json) returns `None` and takes the
    /// general path, which reads it into the same call, or answers it with
    /// the same bytes it would have had anyway.
    pub(super) fn fast_call<'a>(&self, raw: &'a [u8]) -> Option<WireCall<'a>> {
        if raw.len() > self.max_request_bytes {
            return None;
        }
        // One UTF-8 check of the whole line, instead of one per string inside it.
        let text = std::str::from_utf8(raw).ok()?;
        let req = Request::read(text)?;
        let id = match req.id? {
            Json::Number(n) => Value::Number(n),
            Json::String(s) => Value::String(s.into_owned()),
            _ => return None,
        };
        if req.jsonrpc? != "2.0"
            || req.method? != "tools/call"
            || !valid_id(&id)
            || req.seen & PARAMS == 0
        {
            return None;
        }
        let (tool, dialect) = match (req.tool, req.name) {
            (Some(tool), None) => (tool, Dialect::Envelope),
            (None, Some(name)) => (name, Dialect::Mcp),
            _ => return None,
        };
        let (text, parsed) = match req.arguments {
            Some(arguments) => arguments,
            None => (
                "{}",
                Parsed {
                    json: Json::Object(Default::default()),
                    plain: true,
                },
            ),
        };
        Some(WireCall {
            id,
            tool: Cow::Borrowed(tool),
            arguments: WireArguments::Text(text, parsed),
            dialect,
            progress: req.progress,
            log_level: None,
            task: None,
            rounds: None,
        })
    }
}
