//! The two `tools/call` success results, written by hand with keys in sorted
//! order, because the output is already JSON text: the envelope copies it,
//! MCP copies it as `structuredContent` and, unless a typed output brought
//! its escaped copy along, escapes it once as the `text` item. The general
//! path hands its calls here too (an [`Answer::Call`]), so both paths answer
//! alike byte for byte.

use serde_json::Value;

use super::ToolOutput;
use super::mcp::mcp_error_result;
use crate::error::ToolError;
use crate::json::{HIGH, ONES};

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

/// How an output goes out as MCP structured content, given whether its
/// tool's output schema is wrapped.
pub(crate) fn structured(wraps: bool, o: &ToolOutput) -> Structured {
    if wraps {
        Structured::Wrapped
    } else if o.output_json().starts_with('{') {
        Structured::AsIs
    } else {
        Structured::Omitted
    }
}

/// The whole response to a `tools/call` (no line end). `stamp`: the
/// server-info JSON a 2026-07-28 result carries.
pub(crate) fn call_answer(
    dialect: Dialect,
    id: &Value,
    tool: &str,
    wraps: bool,
    stamp: Option<&[u8]>,
    result: Result<ToolOutput, ToolError>,
) -> Vec<u8> {
    // Room for the output twice (MCP writes it as text too) and the rest of
    // the response, its line end included: no growing on the way.
    let room = result.as_ref().map_or(0, |o| 2 * o.output_json().len()) + 256;
    let mut out = Vec::with_capacity(room);
    match (dialect, result) {
        (Dialect::Envelope, Ok(o)) => {
            write_response(&mut out, id, |out| write_envelope_result(out, tool, &o));
        }
        (Dialect::Envelope, Err(e)) => return error_bytes(id, &e),
        (_, Ok(o)) => {
            let s = structured(wraps, &o);
            write_response(&mut out, id, |out| write_mcp_result(out, &o, s, stamp));
        }
        (_, Err(e)) => {
            let mut v = mcp_error_result(&e);
            if let Some(stamp) = stamp {
                stamp_result(&mut v, stamp);
            }
            write_response(&mut out, id, |out| write_json(out, &v));
        }
    }
    out
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
            meta.insert(super::modern::SERVER_INFO_KEY.to_owned(), info);
        }
    }
}

/// A JSON-RPC error response (no line end).
pub(crate) fn error_bytes(id: &Value, e: &ToolError) -> Vec<u8> {
    serde_json::to_vec(&super::jsonrpc::error_response(id.clone(), e)).unwrap_or_default()
}

/// `{"id":…,"jsonrpc":"2.0","result":…}`, the result written by `result`.
pub(super) fn write_response(out: &mut Vec<u8>, id: &Value, result: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(b"{\"id\":");
    write_json(out, id);
    out.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":");
    result(out);
    out.push(b'}');
}

/// The EditorMCP success result: `{"diagnostics":[…],"output":…,"tool":…}`,
/// `diagnostics` only when there are some.
pub(super) fn write_envelope_result(out: &mut Vec<u8>, tool: &str, o: &ToolOutput) {
    out.reserve(o.output.len() + tool.len() + 64);
    out.push(b'{');
    if !o.diagnostics.is_empty() {
        out.extend_from_slice(b"\"diagnostics\":");
        write_json(out, &o.diagnostics);
        out.push(b',');
    }
    out.extend_from_slice(b"\"output\":");
    out.extend_from_slice(o.output_json().as_bytes());
    out.extend_from_slice(b",\"tool\":");
    write_json(out, tool);
    out.push(b'}');
}

/// How an output goes out as MCP structured content, which must be an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Structured {
    /// The output is an object: as it is.
    AsIs,
    /// The tool's output schema is not an object's: `{"result": output}`.
    Wrapped,
    /// No output schema, and the output is not an object: none.
    Omitted,
}

/// The MCP success result: the output as text (its JSON) and as structured
/// content, and each diagnostic as one more text item:
/// `{"content":[{"text":…,"type":"text"},…],"isError":false,"structuredContent":…}`.
pub(super) fn write_mcp_result(
    out: &mut Vec<u8>,
    o: &ToolOutput,
    structured: Structured,
    stamp: Option<&[u8]>,
) {
    // The text item is the output escaped: at most twice as long, and close to it.
    out.reserve(2 * o.output.len() + 128);
    out.push(b'{');
    if let Some(stamp) = stamp {
        out.extend_from_slice(b"\"_meta\":{\"");
        out.extend_from_slice(super::modern::SERVER_INFO_KEY.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(stamp);
        out.extend_from_slice(b"},");
    }
    out.extend_from_slice(b"\"content\":[{\"text\":\"");
    match &o.text {
        Some(text) => out.extend_from_slice(text.as_bytes()),
        None => write_escaped(out, o.output_json()),
    }
    out.extend_from_slice(b"\",\"type\":\"text\"}");
    for d in &o.diagnostics {
        out.extend_from_slice(b",{\"text\":");
        write_json(out, d);
        out.extend_from_slice(b",\"type\":\"text\"}");
    }
    out.extend_from_slice(b"],\"isError\":false");
    if stamp.is_some() {
        out.extend_from_slice(b",\"resultType\":\"complete\"");
    }
    match structured {
        Structured::AsIs => {
            out.extend_from_slice(b",\"structuredContent\":");
            out.extend_from_slice(o.output_json().as_bytes());
        }
        Structured::Wrapped => {
            out.extend_from_slice(b",\"structuredContent\":{\"result\":");
            out.extend_from_slice(o.output_json().as_bytes());
            out.push(b'}');
        }
        Structured::Omitted => {}
    }
    out.push(b'}');
}

/// What a method answers: a value, or a result already written as JSON text
/// (a tool call's, which copies the output's text as it is).
pub(super) enum Answer {
    Value(Value),
    /// A `tools/list` page: each tool's entry as one line of JSON (a
    /// generated tool's members in the order its spec wrote them), then the
    /// page's other members (an object).
    Page {
        tools: Vec<String>,
        rest: Value,
    },
    /// A tool call to start (answered when it finishes).
    Call(super::execution::WireCall<'static>),
}

impl From<Value> for Answer {
    fn from(v: Value) -> Answer {
        Answer::Value(v)
    }
}

impl Answer {
    /// Writes the answer as a result's JSON.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        match self {
            Answer::Value(v) => write_json(out, v),
            Answer::Page { tools, rest } => {
                out.extend_from_slice(b"{\"tools\":[");
                for (i, t) in tools.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(t.as_bytes());
                }
                out.push(b']');
                for (k, v) in rest.as_object().into_iter().flatten() {
                    out.push(b',');
                    write_json(out, k);
                    out.push(b':');
                    write_json(out, v);
                }
                out.push(b'}');
            }
            Answer::Call(_) => out.extend_from_slice(b"null"),
        }
    }
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
