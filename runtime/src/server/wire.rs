//! The two `tools/call` success results, written by hand with keys in sorted
//! order, because the output is already JSON text: the envelope copies it,
//! MCP copies it as `structuredContent` and, unless a typed output brought
//! its escaped copy along, escapes it once as the `text` item. The general
//! path hands its calls here too (an [`Answer::Call`]), so both paths answer
//! alike byte for byte.

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ToolError};
use crate::json::{HIGH, ONES};

/// Request `_meta` key: the protocol version of this request.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// Request `_meta` key: the client's capabilities for this request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// A 2026-07-28 request's `_meta` key for the client's `clientInfo`.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// -32022: the request's protocol version is not one this server speaks.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// -32020: an HTTP header disagrees with the request body.
#[cfg(feature = "http")]
pub const HEADER_MISMATCH: i64 = -32020;

/// A refusal of a modern request: a JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl Refusal {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }
}

/// Which dialect a call came in, which decides how it is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The EditorMCP envelope: `{tool, output, diagnostics}`, errors as errors.
    Envelope,
    /// MCP with a handshake (2025-03-26 .. 2025-11-25): tool errors are results.
    Mcp,
    /// MCP 2026-07-28: as [`Dialect::Mcp`], each result with `resultType` and
    /// the server's identity in `_meta`.
    Modern,
}

impl Dialect {
    /// Whether a success is answered with the output's text escaped as a
    /// `text` item (every MCP dialect), so that a typed output writes that
    /// copy as it is serialized (see [`super::Call`]).
    pub(crate) fn has_text_item(self) -> bool {
        self != Dialect::Envelope
    }
}

/// Adds what a 2026-07-28 result carries: `resultType` and the server's
/// identity in `_meta` (`stamp`, JSON text).
pub(crate) fn stamp_result(result: &mut Value, stamp: &[u8]) {
    if let Value::Object(m) = result {
        m.entry("resultType").or_insert_with(|| "complete".into());
        let info: Value = serde_json::from_slice(stamp).unwrap_or(Value::Null);
        let meta = m
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(SERVER_INFO_KEY.to_owned(), info);
        }
    }
}

/// A JSON-RPC error response (no line end).
pub(crate) fn error_bytes(id: &Value, e: &ToolError) -> Vec<u8> {
    serde_json::to_vec(&error_response(id.clone(), e)).unwrap_or_default()
}

/// `{"id":…,"jsonrpc":"2.0","result":…}`, the result written by `result`.
pub(crate) fn write_response(out: &mut Vec<u8>, id: &Value, result: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(b"{\"id\":");
    write_json(out, id);
    out.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":");
    result(out);
    out.push(b'}');
}

/// `value` as JSON. Writing strings, ids and `Value`s into memory cannot fail.
pub(super) fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(out, value);
}

/// The contents of a JSON string holding `text`, escaped exactly as
/// serde_json escapes it. A text that needs nothing is copied at once (its
/// first special byte looked for eight bytes at a time,
/// [`crate::json::first_special`]). The rest (an untyped output's JSON as
/// MCP's text item: a quote every eight bytes or so, no raw control
/// character; a typed output's string with something to escape, see
/// [`super::compact`]) are read a word of eight bytes at a time into room made for the
/// worst case and cut back at the end: each word is stored whole, and for
/// each byte to escape in it a backslash is written and the word's rest
/// stored again after it (no copy of a varying length, no per-byte check of
/// the vector's capacity). A control character (never in an output) hands
/// the whole text to serde_json.
pub(super) fn write_escaped(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let Some(first) = crate::json::first_special(bytes) else {
        out.extend_from_slice(bytes);
        return;
    };
    let (clean, rest) = bytes.split_at(first);
    out.extend_from_slice(clean);
    let start = out.len();
    if escape_words(out, rest).is_none() {
        escape_by_serde(out, start - clean.len(), text);
    }
}

/// `rest` escaped onto `out`; `None` (with `out` holding anything past its
/// length before) at a control character. Never inlined: the registers its
/// loop takes would otherwise be saved and restored on every call of
/// [`write_escaped`], also those that copy a text that needs nothing.
#[inline(never)]
fn escape_words(out: &mut Vec<u8>, rest: &[u8]) -> Option<()> {
    let start = out.len();
    // At most two bytes per byte, and a word more: each word is stored whole
    // at the place its first byte goes (the last, padded, included).
    out.resize(start + 2 * rest.len() + 16, 0);
    let room = out.get_mut(start..)?;
    let mut at = 0;
    let mut words = rest.chunks_exact(8);
    let mut put = |w: u64, last: usize| -> Option<()> {
        let plain = |x: u64| x & 0x7f7f_7f7f_7f7f_7f7f;
        // The high bit of every byte below 0x20, and of every `"` and `\`
        // (exact for each byte: no borrow crosses from one to the next).
        let below = |x: u64, n: u8| !((plain(x) + ONES * u64::from(0x80 - n)) | x) & HIGH;
        if below(w, 0x20) != 0 {
            return None;
        }
        let mut hits =
            below(w ^ (ONES * u64::from(b'"')), 1) | below(w ^ (ONES * u64::from(b'\\')), 1);
        // Bytes of the word already written.
        let mut done = 0;
        let mut from = w;
        while hits != 0 {
            let k = hits.trailing_zeros() as usize / 8;
            room.get_mut(at..at + 8)?
                .copy_from_slice(&from.to_le_bytes());
            at += k - done;
            *room.get_mut(at)? = b'\\';
            at += 1;
            // The byte to escape and those after it, stored next.
            from = w >> (8 * k);
            done = k;
            hits &= hits - 1;
        }
        room.get_mut(at..at + 8)?
            .copy_from_slice(&from.to_le_bytes());
        at += last - done;
        Some(())
    };
    for w in &mut words {
        put(crate::json::word(w), 8)?;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        // Padded with spaces (plain), which are then not counted.
        let mut w = [b' '; 8];
        w.get_mut(..tail.len())?.copy_from_slice(tail);
        put(u64::from_le_bytes(w), tail.len())?;
    }
    out.truncate(start + at);
    Some(())
}

/// `out` back to `start`, then `text` escaped by serde_json (which writes
/// control characters as `\n`, `\u001f` and the like).
fn escape_by_serde(out: &mut Vec<u8>, start: usize, text: &str) {
    out.truncate(start);
    out.extend_from_slice(serde_escaped(text).as_bytes());
}

/// [`write_escaped`]'s contents as a `String`.
pub(super) fn escaped(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + text.len() / 8 + 8);
    write_escaped(&mut out, text);
    // Escapes are ASCII, so `out` is text as `text` is; serde_json's own
    // escaping otherwise (the same text).
    String::from_utf8(out).unwrap_or_else(|_| serde_escaped(text))
}

/// The contents of a JSON string holding `text`, escaped by serde_json.
fn serde_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default()
        .to_owned()
}

/// MCP protocol versions this server speaks with an `initialize` handshake,
/// newest first.
pub const MCP_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// MCP protocol versions this server speaks without a handshake, each
/// request carrying its version in `_meta` (2026-07-28, a release candidate).
pub const MCP_MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// Request `_meta` key of 2026-07-28: the least level of log messages the
/// request wants (none without it).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// Result `_meta` key: the server's name and version.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// A message a server sends on a connection, complete JSON text without a
/// line end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// A notification (`notifications/progress`, `.../list_changed`).
    Notification(Vec<u8>),
    /// The response to a request.
    Response(Vec<u8>),
}

impl Outgoing {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Outgoing::Notification(b) | Outgoing::Response(b) => b,
        }
    }
}

/// Where a request's response and notifications go: the stdio writer, or
/// one HTTP response stream. Sending never blocks for long and never fails
/// loudly: a peer that went away loses its messages.
pub trait Outbox: Send + Sync {
    fn send(&self, message: Outgoing);
}

impl Outbox for std::sync::mpsc::Sender<Outgoing> {
    fn send(&self, message: Outgoing) {
        let _ = std::sync::mpsc::Sender::send(self, message);
    }
}

pub(crate) fn plain_error(code: ErrorCode, message: impl Into<String>) -> ToolError {
    ToolError::new(code, message)
}

/// Parameter `key` of a request, a string, or an invalid-params error.
pub(crate) fn string_param<'p>(
    params: &'p Map<String, Value>,
    key: &str,
) -> Result<&'p str, ToolError> {
    params.get(key).and_then(Value::as_str).ok_or_else(|| {
        plain_error(
            ErrorCode::InvalidParams,
            format!("Invalid params: `{key}` (a string) is required"),
        )
    })
}

pub(super) fn error_response(id: Value, e: &ToolError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// A string, or an integer that round-trips exactly: a float id (or one too
/// large for 64 bits, which parses as a float) would come back changed.
pub(super) fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// An MCP tool error: a result (not a JSON-RPC error), so that the model sees it
/// and can correct itself; the envelope's error object rides in `_meta`.
pub(super) fn mcp_error_result(e: &ToolError) -> Value {
    json!({"content": [{"type": "text", "text": e.message}], "isError": true, "_meta": {"error": e}})
}
