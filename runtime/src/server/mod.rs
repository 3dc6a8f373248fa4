//! A tool server over one dispatch table, answering two dialects on the same
//! connection:
//!
//! - the EditorMCP JSON-RPC envelope (`editormcp-envelope.md`): `tools/call`
//!   with `params.tool`, `tools/list` (category and tier filters),
//!   `tools/describe`, `server/info`; results `{tool, output, diagnostics}`;
//!   errors with the codes -32700..-32603 and -32000..-32005, `errorType` and
//!   `details`; batches and notifications are refused (v0.1);
//! - standard MCP: `initialize` (protocol versions negotiated),
//!   `notifications/initialized`, `ping`, `tools/list`, and `tools/call` with
//!   `params.name`, answered with `content`, `structuredContent`, `isError`.
//!
//! `tools/call` is told apart by its parameters (`tool` vs `name`);
//! `tools/list` answers in MCP form once the connection has sent `initialize`.
//!
//! Every call: the tool must exist, be within the server's tier (-32005), and
//! get arguments that validate against its input schema (-32002, every
//! violation in `details`); the handler runs on a worker thread with the
//! tool's time limit (-32003 on expiry; the server moves on with a fresh
//! worker), and a handler panic becomes -32603 while the server keeps serving.
//! Output is deterministic: JSON object keys are sorted, except in a typed
//! tool output, which keeps its type's order (for generated types, the order
//! of the spec's properties).

mod envelope;
mod execution;
mod fast;
mod jsonrpc;
mod mcp;
mod stdio;
mod structured;
mod tool;
mod typed;
mod wire;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value, json};

pub use self::execution::Execution;
use self::execution::Worker;
pub use self::mcp::mcp_tool;
pub use self::tool::{Call, Handler, ServerInfo, ToolDescriptor, ToolOutput};
pub use self::typed::{
    ToolInfo, TypedCall, TypedEntry, invalid_arguments, register_tools, typed_call, unknown_tool,
    unserializable_output, whole_numbers_as_integers,
};
use crate::error::{ErrorCode, ToolError};

/// MCP protocol versions this server speaks, newest first.
pub const MCP_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// Requests larger than this are refused (-32600) without being parsed.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// A time limit for tools whose specs state none, for
/// [`Server::default_timeout`] (EditorMCP's protocol default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

struct Entry {
    descriptor: ToolDescriptor,
    handler: Handler,
    validator: jsonschema::Validator,
    /// Its outputs go out as MCP structured content `{"result": ...}`: its
    /// output schema is not an object's (see [`structured`]).
    wraps_output: bool,
}

/// A tool server. Build it with [`Server::new`] and [`Server::tool`].
pub struct Server {
    execution: Execution,
    info: ServerInfo,
    tools: BTreeMap<String, Entry>,
    tiers: Vec<String>,
    tier: String,
    max_request_bytes: usize,
    /// The time limit of tools whose specs state none; `None`: no limit.
    default_timeout: Option<Duration>,
    /// Spawned on the first call that needs it (never with [`Execution::Inline`]).
    worker: Mutex<Option<Worker>>,
}

/// Per-connection state.
#[derive(Debug, Default)]
pub struct Session {
    /// Set by MCP `initialize`: the negotiated protocol version.
    pub mcp_version: Option<String>,
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

impl Server {
    /// A server running at `tier`, with `tiers` ordered lowest first.
    pub fn new(info: ServerInfo, tiers: &[&str], tier: &str) -> Server {
        Server {
            info,
            tools: BTreeMap::new(),
            tiers: tiers.iter().map(|t| (*t).to_owned()).collect(),
            tier: tier.to_owned(),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            default_timeout: None,
            worker: Mutex::new(None),
            execution: Execution::Worker,
        }
    }

    /// Where handlers run (see [`Execution`]).
    pub fn execution(mut self, execution: Execution) -> Server {
        self.execution = execution;
        self
    }

    /// The time limit of tools whose specs state none (by default there is
    /// none: such a tool runs until it finishes).
    pub fn default_timeout(mut self, limit: Option<Duration>) -> Server {
        self.default_timeout = limit;
        self
    }

    /// How an output of `tool` goes out as MCP structured content.
    pub(crate) fn structured(&self, tool: &str, o: &ToolOutput) -> wire::Structured {
        if self.tools.get(tool).is_some_and(|e| e.wraps_output) {
            wire::Structured::Wrapped
        } else if o.output_json().starts_with('{') {
            wire::Structured::AsIs
        } else {
            wire::Structured::Omitted
        }
    }

    /// The time limit of a tool: its own, else the server's default.
    pub(super) fn timeout_of(&self, d: &ToolDescriptor) -> Option<Duration> {
        d.timeout.or(self.default_timeout)
    }

    pub fn max_request_bytes(mut self, bytes: usize) -> Server {
        self.max_request_bytes = bytes;
        self
    }

    /// Adds a tool. Fails if its input schema is not valid JSON Schema.
    pub fn tool(mut self, descriptor: ToolDescriptor, handler: Handler) -> Result<Server, String> {
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&descriptor.input_schema)
            .map_err(|e| format!("tool `{}`: invalid input schema: {e}", descriptor.id))?;
        let wraps_output = descriptor
            .output_schema
            .as_ref()
            .is_some_and(structured::wraps);
        self.tools.insert(
            descriptor.id.clone(),
            Entry {
                descriptor,
                handler,
                validator,
                wraps_output,
            },
        );
        Ok(self)
    }

    pub fn descriptors(&self) -> impl Iterator<Item = &ToolDescriptor> {
        self.tools.values().map(|e| &e.descriptor)
    }

    fn rank(&self, tier: &str) -> usize {
        self.tiers
            .iter()
            .position(|t| t == tier)
            .unwrap_or(usize::MAX)
    }

    /// Calls a tool: existence, tier, argument validation, time limit, panic isolation.
    pub fn call(&self, tool: &str, arguments: Value) -> Result<ToolOutput, ToolError> {
        let entry = self.tools.get(tool).ok_or_else(|| {
            plain_error(ErrorCode::ToolNotFound, format!("Tool not found: {tool}")).for_tool(tool)
        })?;
        let d = &entry.descriptor;
        if self.rank(&d.tier) > self.rank(&self.tier) {
            return Err(plain_error(
                ErrorCode::PermissionDenied,
                format!(
                    "Tool not available in current tier: {tool} requires {}",
                    d.tier
                ),
            )
            .for_tool(tool)
            .detail("requiredTier", d.tier.clone())
            .detail("currentTier", self.tier.clone()));
        }
        let args = match arguments {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(plain_error(
                    ErrorCode::InvalidArguments,
                    "Invalid tool arguments: `arguments` must be an object",
                )
                .for_tool(tool)
                .detail("received", type_name(&other)));
            }
        };
        let instance = Value::Object(args);
        // Fast path: `is_valid` stops at the first failure and allocates nothing.
        let violations = if entry.validator.is_valid(&instance) {
            Vec::new()
        } else {
            self.violations(entry, &instance)
        };
        if !violations.is_empty() {
            let missing = missing_parameters(&d.input_schema, &instance);
            let summary = if missing.is_empty() {
                format!(
                    "Invalid tool arguments: {}",
                    violations[0]["message"].as_str().unwrap_or("")
                )
            } else {
                format!("Invalid tool arguments: {} is required", missing.join(", "))
            };
            let mut e = plain_error(ErrorCode::InvalidArguments, summary)
                .for_tool(tool)
                .detail("violations", violations);
            if !missing.is_empty() {
                e = e.detail("missingParameters", missing);
            }
            return Err(e);
        }
        let Value::Object(args) = instance else {
            return Err(plain_error(
                ErrorCode::InternalError,
                "Internal error: arguments changed type",
            )
            .for_tool(tool));
        };
        self.run(entry, args)
    }

    /// Every schema violation of `instance`, located by JSON pointer.
    fn violations(&self, entry: &Entry, instance: &Value) -> Vec<Value> {
        entry
            .validator
            .iter_errors(instance)
            .map(|e| json!({"path": e.instance_path().as_str(), "message": e.to_string()}))
            .collect()
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Required properties missing from `args`, for `details.missingParameters`.
fn missing_parameters(schema: &Value, args: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| args.get(*r).is_none())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::wire::write_escaped;
    use super::*;

    /// A server with no tools yet, handlers run inline.
    fn empty() -> Server {
        let info = ServerInfo {
            name: "t".into(),
            version: "0".into(),
            extra: Map::new(),
        };
        Server::new(info, &["core"], "core").execution(Execution::Inline)
    }

    fn server() -> Server {
        let d = |id: &str| ToolDescriptor {
            id: id.into(),
            name: id.into(),
            description: String::new(),
            category: "scene".into(),
            safety_level: "read-only".into(),
            tier: "core".into(),
            input_schema: json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}, "additionalProperties": false}),
            output_schema: None,
            timeout: Some(DEFAULT_TIMEOUT),
            requires_approval: false,
            notes: None,
            listing: None,
        };
        let ok: Handler = Arc::new(|a| {
            let mut o = ToolOutput::new(json!({"z": "é\"\n", "a": [1, 2.5, null], "args": a}));
            o.diagnostics.push("partial".into());
            Ok(o)
        });
        let fails: Handler = Arc::new(|_| Err(ToolError::unity("no scene")));
        // An output that is not an object goes out as `{"result": ...}`.
        let mut count = d("a.count");
        count.output_schema = Some(json!({"type": "integer"}));
        let three: Handler = Arc::new(|_| Ok(ToolOutput::new(json!(3))));
        // A typed output keeps its type's key order, on both paths.
        #[derive(serde::Serialize)]
        struct Typed {
            z: u8,
            a: u8,
        }
        let typed: Handler = Arc::new(|_| {
            Call::new()
                .finish_typed(&Typed { z: 1, a: 2 })
                .map_err(|e| ToolError::execution(e.to_string()))
        });
        empty()
            .tool(d("a.ok"), ok)
            .and_then(|s| s.tool(d("a.fails"), fails))
            .and_then(|s| s.tool(count, three))
            .and_then(|s| s.tool(d("a.typed"), typed))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn register_tools_pairs_descriptors_with_calls() {
        fn answer(n: &u8, _: Value) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::new(json!({ "n": n })))
        }
        const fn info(id: &'static str) -> ToolInfo {
            ToolInfo {
                id,
                name: id,
                description: "",
                category: "scene",
                safety_level: "read-only",
                tier: "core",
                timeout_seconds: Some(30.0),
                requires_approval: false,
                notes: None,
                input_schema: "{}",
                output_schema: None,
                listing: "{}",
            }
        }
        static TABLE: [ToolInfo; 2] = [info("a.b"), info("c.d")];
        let s = register_tools(
            empty(),
            Arc::new(7),
            &[(&TABLE[0], answer), (&TABLE[1], answer)],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let out = s.call("a.b", json!({})).map(|o| o.output());
        assert_eq!(out, Ok(json!({"n": 7})));
        assert_eq!(s.descriptors().count(), 2);
        static BAD: ToolInfo = ToolInfo {
            input_schema: r#"{"type": 3}"#,
            ..info("e.f")
        };
        let refused = register_tools(empty(), Arc::new(7), &[(&BAD, answer)]);
        assert!(refused.err().is_some_and(|e| e.contains("e.f")));
    }

    #[test]
    fn text_is_escaped_exactly_as_serde_json_escapes_it() {
        let mut every_char: String = (0u8..0x80).map(char::from).collect();
        every_char.push_str("é\u{2028}\u{7f}𝄞\\\"");
        for text in [
            "",
            "plain",
            r#"{"a":"b\"c","d":[1,2.5,null]}"#,
            every_char.as_str(),
            "\n\n",
            "\"",
        ] {
            let mut ours = vec![b'"'];
            write_escaped(&mut ours, text);
            ours.push(b'"');
            let theirs = serde_json::to_vec(text).unwrap_or_default();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs)
            );
        }
    }

    #[test]
    fn outputs_are_compact_json_however_they_are_made() {
        #[derive(serde::Serialize)]
        struct Typed {
            b: BTreeMap<&'static str, u8>,
            a: u8,
        }
        let v = json!({"b": {"y": 1, "x": [true]}, "a": "\u{1}"});
        let o = ToolOutput::new(v.clone());
        assert_eq!(o.output_json(), r#"{"a":"\u0001","b":{"x":[true],"y":1}}"#);
        assert_eq!(o.output(), v);
        // A typed output keeps its type's order (a generated type's: the spec's).
        let typed = Typed {
            b: BTreeMap::from([("z", 2), ("c", 3)]),
            a: 1,
        };
        let t = Call::new()
            .finish_typed(&typed)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.output_json(), r#"{"b":{"c":3,"z":2},"a":1}"#);
        assert_eq!(t.output(), json!({"b": {"z": 2, "c": 3}, "a": 1}));
    }

    #[test]
    fn the_fast_path_answers_byte_for_byte_like_the_general_path() {
        let s = server();
        let requests = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","arguments":{"n":1}}}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"tool":"a.ok"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"tool":"a.fails","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"tool":"a.ok","arguments":{"n":9}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"tool":"nope","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a.ok","arguments":{"n":2}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a.fails","arguments":{}}}"#,
            r#"{"params":{"arguments":{"n":1},"tool":"a.ok"},"method":"tools/call","id":7,"jsonrpc":"2.0","extra":true}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a.count","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a.typed","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"tool":"a.typed","arguments":{}}}"#,
        ];
        for r in requests {
            let fast = s.fast_call(r.as_bytes());
            assert!(fast.is_some(), "fast path taken for {r}");
            let general = s.handle_general(&mut Session::default(), r.as_bytes());
            assert_eq!(
                fast.as_deref().map(String::from_utf8_lossy),
                general.as_deref().map(String::from_utf8_lossy),
                "{r}"
            );
        }
        let answer = |r: &str| {
            String::from_utf8(s.fast_call(r.as_bytes()).unwrap_or_default()).unwrap_or_default()
        };
        assert!(answer(requests[8]).contains(r#""structuredContent":{"result":3}"#));
        assert!(answer(requests[9]).contains(r#""structuredContent":{"z":1,"a":2}"#));
        assert!(answer(requests[10]).contains(r#""output":{"z":1,"a":2}"#));
        // Unusual requests go the general way.
        for r in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"tool":"a.ok"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"tool":"a.ok"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"tool":"a.ok","arguments":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"tool":"a.ok"}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"tool\":\"a.ok\"}",
        ] {
            assert!(s.fast_call(r.as_bytes()).is_none(), "{r}");
        }
    }
}
