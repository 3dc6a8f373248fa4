//! A tool's output (compact JSON text, content blocks and diagnostics), and
//! the two `tools/call` success results written from it by hand: the output
//! is already JSON text, so the envelope copies it, MCP copies it as
//! `structuredContent` and, unless a typed output brought its escaped copy
//! along, escapes it once as the `text` item. Both paths answer alike byte
//! for byte.

use serde_json::Value;

use super::content::Content;
use super::wire::{
    Dialect, SERVER_INFO_KEY, error_bytes, mcp_error_result, stamp_result, write_escaped,
    write_json, write_response,
};
use crate::error::ToolError;

/// A successful call: the output and informational diagnostics.
///
/// The output is held as the compact JSON text it goes out as (object keys in
/// sorted order, or a typed output's order), so that a response copies it
/// instead of serializing it again.
#[derive(Clone, Debug)]
pub struct ToolOutput {
    pub(super) output: String,
    /// `output` escaped as the contents of a JSON string, when it was written
    /// beside it (a typed output of an MCP call, see
    /// [`super::compact::to_string_and_text`]): MCP's `text` item, copied.
    pub(super) text: Option<String>,
    /// Content blocks beside the output (an image, a resource, ...), in order.
    pub content: Vec<Content>,
    /// Partial results, best-effort limits, performance notes.
    pub diagnostics: Vec<String>,
}

/// Outputs are equal when their text, content and diagnostics are (the
/// escaped copy follows from the text).
impl PartialEq for ToolOutput {
    fn eq(&self, other: &ToolOutput) -> bool {
        self.output == other.output
            && self.content == other.content
            && self.diagnostics == other.diagnostics
    }
}

impl ToolOutput {
    pub fn new(output: Value) -> ToolOutput {
        ToolOutput {
            output: raw_json(&output),
            text: None,
            content: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// The output with content blocks after it. A tool whose result is its
    /// content alone answers `null` as its output: MCP then gets the blocks
    /// only (no text copy of `null`, no structured content).
    pub fn with_content(mut self, content: impl IntoIterator<Item = Content>) -> ToolOutput {
        self.content.extend(content);
        self
    }

    /// Whether the result is its content alone (see [`ToolOutput::with_content`]).
    fn content_only(&self) -> bool {
        self.output == "null" && !self.content.is_empty()
    }

    /// An output written straight from a typed value, without a `Value` in
    /// between: object keys in the order the type writes them (a generated
    /// type: the order of its schema's properties).
    pub fn from_typed<T: serde::Serialize + ?Sized>(
        output: &T,
    ) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput {
            output: super::compact::to_string(output)?,
            text: None,
            content: Vec::new(),
            diagnostics: Vec::new(),
        })
    }

    /// As [`ToolOutput::from_typed`], with the output's escaped copy for
    /// MCP's `text` item written in the same pass.
    pub(super) fn from_typed_with_text<T: serde::Serialize + ?Sized>(
        output: &T,
    ) -> Result<ToolOutput, serde_json::Error> {
        let (output, text) = super::compact::to_string_and_text(output)?;
        Ok(ToolOutput {
            output,
            text,
            content: Vec::new(),
            diagnostics: Vec::new(),
        })
    }

    /// The output as a JSON value.
    pub fn output(&self) -> Value {
        // The text was written by serde_json, so it parses; `Null` cannot happen.
        serde_json::from_str(&self.output).unwrap_or(Value::Null)
    }

    /// The output as compact JSON text (object keys sorted for an output made
    /// from a `Value`, in the type's order for a typed one).
    pub fn output_json(&self) -> &str {
        &self.output
    }
}

/// `value` as compact JSON text. A `Value` always serializes (its keys are
/// strings and its numbers finite), so the `null` fallback is never taken.
fn raw_json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

/// How an output goes out as MCP structured content, given whether its
/// tool's output schema is wrapped.
pub(crate) fn structured(wraps: bool, o: &ToolOutput) -> Structured {
    if o.content_only() {
        Structured::Omitted
    } else if wraps {
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
        (_, result) => write_response(&mut out, id, |out| {
            write_mcp_call_result(out, wraps, stamp, result);
        }),
    }
    out
}

/// The MCP result of a `tools/call`: the success result, or the tool error
/// as an `isError` result.
pub(crate) fn write_mcp_call_result(
    out: &mut Vec<u8>,
    wraps: bool,
    stamp: Option<&[u8]>,
    result: Result<ToolOutput, ToolError>,
) {
    match result {
        Ok(o) => write_mcp_result(out, &o, structured(wraps, &o), stamp),
        Err(e) => {
            let mut v = mcp_error_result(&e);
            if let Some(stamp) = stamp {
                stamp_result(&mut v, stamp);
            }
            write_json(out, &v);
        }
    }
}

/// The EditorMCP success result:
/// `{"content":[…],"diagnostics":[…],"output":…,"tool":…}`, `content` and
/// `diagnostics` only when there are some.
pub(super) fn write_envelope_result(out: &mut Vec<u8>, tool: &str, o: &ToolOutput) {
    out.reserve(o.output.len() + tool.len() + 64);
    out.push(b'{');
    if !o.content.is_empty() {
        out.extend_from_slice(b"\"content\":");
        write_json(out, &o.content);
        out.push(b',');
    }
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
/// content, the tool's content blocks, and each diagnostic as one more text
/// item: `{"content":[{"text":…,"type":"text"},…],"isError":false,"structuredContent":…}`.
/// A result of content alone has its blocks only.
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
        out.extend_from_slice(SERVER_INFO_KEY.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(stamp);
        out.extend_from_slice(b"},");
    }
    out.extend_from_slice(b"\"content\":[");
    let mut first = true;
    let mut next = |out: &mut Vec<u8>| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
    };
    if !o.content_only() {
        next(out);
        out.extend_from_slice(b"{\"text\":\"");
        match &o.text {
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None => write_escaped(out, o.output_json()),
        }
        out.extend_from_slice(b"\",\"type\":\"text\"}");
    }
    for c in &o.content {
        next(out);
        write_json(out, c);
    }
    for d in &o.diagnostics {
        next(out);
        out.extend_from_slice(b"{\"text\":");
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
