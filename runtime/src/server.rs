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
//! Output is deterministic: JSON object keys are sorted.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ToolError};

/// MCP protocol versions this server speaks, newest first.
pub const MCP_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// Requests larger than this are refused (-32600) without being parsed.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// The time limit of tools that set none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What clients learn about a tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDescriptor {
    pub id: String,
    pub name: String,
    pub description: String,
    pub category: String,
    /// `read-only`, `safe-write` or `destructive`.
    pub safety_level: String,
    pub tier: String,
    pub input_schema: Value,
    /// `None` when the tool declares no output schema.
    pub output_schema: Option<Value>,
    pub timeout: Duration,
    pub requires_approval: bool,
    pub notes: Option<String>,
}

/// A successful call: the output and informational diagnostics.
///
/// The output is held as the compact JSON text it goes out as (object keys in
/// sorted order), so that a response copies it instead of serializing it again.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    output: String,
    /// Partial results, best-effort limits, performance notes.
    pub diagnostics: Vec<String>,
}

impl ToolOutput {
    pub fn new(output: Value) -> ToolOutput {
        ToolOutput {
            output: raw_json(&output),
            diagnostics: Vec::new(),
        }
    }

    /// An output written straight from a typed value, without a `Value` in
    /// between. `output` must serialize its object keys in sorted order (as
    /// structs whose fields are declared in that order do, with `BTreeMap` and
    /// `serde_json::Map` for maps); use [`ToolOutput::new`] for anything else.
    pub fn from_sorted<T: serde::Serialize + ?Sized>(
        output: &T,
    ) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput {
            output: serde_json::to_string(output)?,
            diagnostics: Vec::new(),
        })
    }

    /// The output as a JSON value.
    pub fn output(&self) -> Value {
        // The text was written by serde_json, so it parses; `Null` cannot happen.
        serde_json::from_str(&self.output).unwrap_or(Value::Null)
    }

    /// The output as compact JSON text, object keys sorted.
    pub fn output_json(&self) -> &str {
        &self.output
    }
}

/// `value` as compact JSON text. A `Value` always serializes (its keys are
/// strings and its numbers finite), so the `null` fallback is never taken.
fn raw_json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

/// What a typed tool method gets besides its input: a place for the
/// informational diagnostics of a successful call (partial results,
/// best-effort limits), which the EditorMCP envelope returns beside the output.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Call {
    diagnostics: Vec<String>,
}

impl Call {
    pub fn new() -> Call {
        Call::default()
    }

    /// Adds a diagnostic to the call's result.
    pub fn diagnostic(&mut self, message: impl Into<String>) {
        self.diagnostics.push(message.into());
    }

    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// The successful result: `output` with the diagnostics gathered so far.
    pub fn finish(self, output: Value) -> ToolOutput {
        self.finish_with(ToolOutput::new(output))
    }

    /// The successful result of a typed output whose keys serialize in sorted
    /// order (see [`ToolOutput::from_sorted`]), with the diagnostics gathered so far.
    pub fn finish_sorted<T: serde::Serialize + ?Sized>(
        self,
        output: &T,
    ) -> Result<ToolOutput, serde_json::Error> {
        Ok(self.finish_with(ToolOutput::from_sorted(output)?))
    }

    fn finish_with(self, mut output: ToolOutput) -> ToolOutput {
        output.diagnostics = self.diagnostics;
        output
    }
}

/// A tool implementation: validated arguments in, output or error out.
pub type Handler = Arc<dyn Fn(Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync>;

/// Identification of the server.
#[derive(Clone, Debug)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    /// Extra fields of EditorMCP's `server/info` result (`unityVersion`, `platform`, ...).
    pub extra: Map<String, Value>,
}

impl ServerInfo {
    /// A server called `name` at `version`, with no extra fields.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> ServerInfo {
        ServerInfo {
            name: name.into(),
            version: version.into(),
            extra: Map::new(),
        }
    }
}

struct Entry {
    descriptor: ToolDescriptor,
    handler: Handler,
    validator: jsonschema::Validator,
}

type Job = (Handler, Map<String, Value>);
type Outcome = std::thread::Result<Result<ToolOutput, ToolError>>;

/// The thread that runs handlers, so that a hung handler can be abandoned.
/// One pair of channels serves every call: calls take turns (the server
/// holds the worker's lock for a whole call), and a worker abandoned after a
/// timeout goes away with its channels, so a late result is never read.
struct Worker {
    jobs: Sender<Job>,
    results: Receiver<Outcome>,
}

impl Worker {
    fn spawn() -> Worker {
        let (jobs, job_rx): (Sender<Job>, Receiver<Job>) = channel();
        let (result_tx, results) = channel();
        let spawned = std::thread::Builder::new()
            .name("tool-worker".to_owned())
            .spawn(move || {
                while let Ok((handler, args)) = receive(&job_rx, None) {
                    let result = catch_unwind(AssertUnwindSafe(|| handler(args)));
                    if result_tx.send(result).is_err() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => Worker { jobs, results },
            // No thread: sending fails, and the caller reports it.
            Err(_) => Worker {
                jobs: channel().0,
                results,
            },
        }
    }
}

/// How long the worker and the caller spin before they park: a parked thread
/// costs a futex wake-up (tens of microseconds) per call, spinning costs a core
/// only while calls arrive back to back.
const SPIN: Duration = Duration::from_micros(50);

/// The next message of `rx`: spin briefly, then block, for `timeout` in all
/// (`None`: as long as it takes). The clock is read every 32 polls, not on
/// each: reading it costs more than a poll.
fn receive<T>(rx: &Receiver<T>, timeout: Option<Duration>) -> Result<T, RecvTimeoutError> {
    let start = std::time::Instant::now();
    let spin = timeout.map_or(SPIN, |t| SPIN.min(t));
    for polls in 1u32.. {
        match rx.try_recv() {
            Ok(v) => return Ok(v),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                return Err(RecvTimeoutError::Disconnected);
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                if polls % 32 == 0 && start.elapsed() >= spin {
                    break;
                }
                std::hint::spin_loop();
            }
        }
    }
    match timeout {
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(t) => rx.recv_timeout(t.saturating_sub(start.elapsed())),
    }
}

/// Where handlers run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Execution {
    /// On a worker thread: a handler that hangs past its time limit is abandoned
    /// (-32003) and the server goes on with a fresh worker. Costs a cross-thread
    /// handoff per call.
    #[default]
    Worker,
    /// On the calling thread: fastest; panics are still caught (-32603), but a
    /// time limit is only detected when the handler returns (its result is then
    /// discarded and -32003 returned). For handlers known not to hang.
    Inline,
}

/// A tool server. Build it with [`Server::new`] and [`Server::tool`].
pub struct Server {
    execution: Execution,
    info: ServerInfo,
    tools: BTreeMap<String, Entry>,
    tiers: Vec<String>,
    tier: String,
    max_request_bytes: usize,
    /// Spawned on the first call that needs it (never with [`Execution::Inline`]).
    worker: Mutex<Option<Worker>>,
}

/// Per-connection state.
#[derive(Debug, Default)]
pub struct Session {
    /// Set by MCP `initialize`: the negotiated protocol version.
    pub mcp_version: Option<String>,
}

fn error_response(id: Value, e: &ToolError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

fn plain_error(code: ErrorCode, message: impl Into<String>) -> ToolError {
    ToolError::new(code, message)
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
            worker: Mutex::new(None),
            execution: Execution::Worker,
        }
    }

    /// Where handlers run (see [`Execution`]).
    pub fn execution(mut self, execution: Execution) -> Server {
        self.execution = execution;
        self
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
        self.tools.insert(
            descriptor.id.clone(),
            Entry {
                descriptor,
                handler,
                validator,
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

    fn run(&self, entry: &Entry, args: Map<String, Value>) -> Result<ToolOutput, ToolError> {
        let tool = &entry.descriptor.id;
        if self.execution == Execution::Inline {
            let started = std::time::Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| (entry.handler)(args)));
            if started.elapsed() > entry.descriptor.timeout {
                return Err(timeout_error(tool, entry.descriptor.timeout));
            }
            return finish(tool, result);
        }
        let mut slot = self.worker.lock().unwrap_or_else(|p| p.into_inner());
        let worker = slot.get_or_insert_with(Worker::spawn);
        if let Err(std::sync::mpsc::SendError(job)) =
            worker.jobs.send((entry.handler.clone(), args))
        {
            // The worker thread is gone (it could not be spawned, or died): replace it.
            *worker = Worker::spawn();
            let _ = worker.jobs.send(job);
        }
        match receive(&worker.results, Some(entry.descriptor.timeout)) {
            Ok(r) => finish(tool, r),
            Err(RecvTimeoutError::Timeout) => {
                // Abandon the hung worker; the next call gets a fresh one.
                *slot = None;
                Err(timeout_error(tool, entry.descriptor.timeout))
            }
            Err(RecvTimeoutError::Disconnected) => {
                *slot = None;
                Err(plain_error(
                    ErrorCode::InternalError,
                    format!("Internal error in tool {tool}: the worker stopped"),
                )
                .for_tool(tool))
            }
        }
    }

    /// Handles one request (one line of the wire protocol). Returns the response
    /// line, or `None` for an MCP notification, which gets no response.
    pub fn handle(&self, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
        if let Some(out) = self.fast_call(request) {
            return Some(out);
        }
        self.handle_general(session, request)
    }

    /// Every request the general way: parsed into a `Value`, answered with one.
    fn handle_general(&self, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
        let response = self.respond(session, request)?;
        let mut out = serde_json::to_vec(&response).unwrap_or_default();
        out.push(b'\n');
        Some(out)
    }

    /// The common case, `tools/call` in either dialect with a well-formed
    /// request, without building `Value` trees for the request and the
    /// response. Anything unusual (including every error in the request
    /// itself) returns `None` and takes the general path, which answers it
    /// with the same bytes it would have had anyway.
    fn fast_call(&self, raw: &[u8]) -> Option<Vec<u8>> {
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
                    Ok(o) => write_response(&mut out, &req.id, |out| write_mcp_result(out, &o)),
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

    fn respond(&self, session: &mut Session, raw: &[u8]) -> Option<Value> {
        if raw.len() > self.max_request_bytes {
            return Some(error_response(
                Value::Null,
                &plain_error(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Invalid Request: request of {} bytes is larger than the limit of {} bytes",
                        raw.len(),
                        self.max_request_bytes
                    ),
                ),
            ));
        }
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                return Some(error_response(
                    Value::Null,
                    &plain_error(
                        ErrorCode::ParseError,
                        format!("Parse error: invalid UTF-8 at byte {}", e.valid_up_to()),
                    ),
                ));
            }
        };
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                return Some(error_response(
                    Value::Null,
                    &plain_error(ErrorCode::ParseError, format!("Parse error: {e}")),
                ));
            }
        };
        let invalid = |m: &str| {
            Some(error_response(
                Value::Null,
                &plain_error(ErrorCode::InvalidRequest, format!("Invalid Request: {m}")),
            ))
        };
        let Value::Object(mut req) = value else {
            return if value.is_array() {
                invalid("batch requests are not supported; send each request on its own")
            } else {
                invalid("a request must be a JSON object")
            };
        };
        let raw_params = req.remove("params");
        let id = req.get("id").cloned();
        let method = req.get("method").and_then(Value::as_str);
        if req.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some(error_response(
                id.filter(valid_id).unwrap_or(Value::Null),
                &plain_error(
                    ErrorCode::InvalidRequest,
                    "Invalid Request: `jsonrpc` must be \"2.0\"",
                ),
            ));
        }
        let Some(method) = method else {
            return Some(error_response(
                id.filter(valid_id).unwrap_or(Value::Null),
                &plain_error(
                    ErrorCode::InvalidRequest,
                    "Invalid Request: `method` must be a string",
                ),
            ));
        };
        let Some(id) = id else {
            if method.starts_with("notifications/") {
                return None; // MCP notifications are accepted silently
            }
            return invalid(
                "notifications (requests without `id`) are not supported; every request needs an `id`",
            );
        };
        if !valid_id(&id) {
            return invalid("`id` must be a string or an integer that fits in 64 bits");
        }
        let params = match raw_params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(p)) => p,
            Some(_) => {
                return Some(error_response(
                    id,
                    &plain_error(
                        ErrorCode::InvalidParams,
                        "Invalid params: `params` must be an object",
                    ),
                ));
            }
        };
        let result = self.dispatch(session, method, params);
        Some(match result {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err(e) => error_response(id, &e),
        })
    }

    fn dispatch(
        &self,
        session: &mut Session,
        method: &str,
        mut params: Map<String, Value>,
    ) -> Result<Value, ToolError> {
        match method {
            "initialize" => {
                let requested = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let version = MCP_PROTOCOL_VERSIONS
                    .iter()
                    .find(|v| **v == requested)
                    .unwrap_or(&MCP_PROTOCOL_VERSIONS[0]);
                session.mcp_version = Some((*version).to_owned());
                Ok(json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": self.info.name, "version": self.info.version},
                }))
            }
            "ping" => Ok(json!({})),
            "server/info" => {
                let mut info = self.info.extra.clone();
                info.insert("serverVersion".into(), json!(self.info.version));
                info.insert("tier".into(), json!(self.tier));
                let mut categories: Vec<&str> = self
                    .tools
                    .values()
                    .map(|e| e.descriptor.category.as_str())
                    .collect();
                categories.sort_unstable();
                categories.dedup();
                info.insert("enabledToolCategories".into(), json!(categories));
                Ok(Value::Object(info))
            }
            "tools/list" if session.mcp_version.is_some() => {
                Ok(json!({"tools": self.descriptors().map(mcp_tool).collect::<Vec<_>>()}))
            }
            "tools/list" => {
                let category = params.get("category").and_then(Value::as_str);
                let tier = params.get("tier").and_then(Value::as_str);
                let tools: Vec<Value> = self
                    .descriptors()
                    .filter(|d| category.is_none_or(|c| d.category == c))
                    .filter(|d| tier.is_none_or(|t| d.tier == t))
                    .map(|d| json!({"id": d.id, "name": d.name, "description": d.description, "category": d.category, "safetyLevel": d.safety_level, "tier": d.tier}))
                    .collect();
                Ok(json!({"tools": tools}))
            }
            "tools/describe" => {
                let tool = params.get("tool").and_then(Value::as_str).ok_or_else(|| {
                    plain_error(
                        ErrorCode::InvalidParams,
                        "Invalid params: `tool` (a string) is required",
                    )
                })?;
                let d = &self
                    .tools
                    .get(tool)
                    .ok_or_else(|| {
                        plain_error(ErrorCode::ToolNotFound, format!("Tool not found: {tool}"))
                            .for_tool(tool)
                    })?
                    .descriptor;
                let mut t = json!({"id": d.id, "name": d.name, "description": d.description, "category": d.category, "safetyLevel": d.safety_level, "tier": d.tier, "inputSchema": d.input_schema, "timeoutSeconds": d.timeout.as_secs_f64()});
                if let Some(o) = &d.output_schema {
                    t["outputSchema"] = o.clone();
                }
                if let Some(n) = &d.notes {
                    t["notes"] = json!(n);
                }
                Ok(json!({"tool": t}))
            }
            "tools/call" if params.contains_key("name") => {
                let args = params.remove("arguments").unwrap_or(Value::Null);
                let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
                    plain_error(
                        ErrorCode::InvalidParams,
                        "Invalid params: `name` must be a string",
                    )
                })?;
                if !self.tools.contains_key(name) {
                    return Err(plain_error(
                        ErrorCode::InvalidParams,
                        format!("Unknown tool: {name}"),
                    )
                    .for_tool(name));
                }
                Ok(match self.call(name, args) {
                    Ok(out) => result_value(|buf| write_mcp_result(buf, &out)),
                    // Tool errors are results, so that the model sees them and can correct itself.
                    Err(e) => mcp_error_result(&e),
                })
            }
            "tools/call" => {
                let args = params.remove("arguments").unwrap_or(Value::Null);
                let tool = params.get("tool").and_then(Value::as_str).ok_or_else(|| {
                    plain_error(
                        ErrorCode::InvalidParams,
                        "Invalid params: `tool` (a string) is required",
                    )
                })?;
                let out = self.call(tool, args)?;
                Ok(result_value(|buf| write_envelope_result(buf, tool, &out)))
            }
            other => Err(plain_error(
                ErrorCode::MethodNotFound,
                format!("Method not found: {other}"),
            )),
        }
    }

    /// Serves newline-delimited JSON-RPC until end of input. Lines longer than
    /// the request limit are refused without being held in memory. Responses
    /// are flushed when no further request is already waiting, so pipelined
    /// requests are answered in batches.
    pub fn serve<R: Read, W: Write>(&self, input: R, output: W) -> std::io::Result<()> {
        let mut input = BufReader::with_capacity(64 * 1024, input);
        let mut output = BufWriter::with_capacity(64 * 1024, output);
        let mut session = Session::default();
        let mut line = Vec::new();
        loop {
            line.clear();
            let (n, too_long) = read_line_capped(&mut input, &mut line, self.max_request_bytes)?;
            if n == 0 {
                return output.flush();
            }
            let request: &[u8] = trim_line(&line);
            if too_long {
                let e = plain_error(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Invalid Request: request line is larger than the limit of {} bytes",
                        self.max_request_bytes
                    ),
                );
                let mut out =
                    serde_json::to_vec(&error_response(Value::Null, &e)).unwrap_or_default();
                out.push(b'\n');
                output.write_all(&out)?;
            } else if !request.is_empty() {
                if let Some(resp) = self.handle(&mut session, request) {
                    output.write_all(&resp)?;
                }
            }
            if input.buffer().is_empty() {
                output.flush()?;
            }
        }
    }
}

fn timeout_error(tool: &str, limit: Duration) -> ToolError {
    plain_error(
        ErrorCode::Timeout,
        format!(
            "Tool execution timeout: {tool} did not finish in {} s",
            limit.as_secs_f64()
        ),
    )
    .for_tool(tool)
    .detail("timeoutSeconds", limit.as_secs_f64())
}

/// A handler's result, or its panic, as the call's result.
fn finish(tool: &str, result: Outcome) -> Result<ToolOutput, ToolError> {
    match result {
        Ok(r) => r.map_err(|e| {
            if e.data.as_ref().and_then(|d| d.tool.as_ref()).is_none() {
                e.for_tool(tool)
            } else {
                e
            }
        }),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the handler panicked".to_owned());
            Err(plain_error(
                ErrorCode::InternalError,
                format!("Internal error in tool {tool}"),
            )
            .for_tool(tool)
            .detail("panic", msg))
        }
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// Reads one line into `buf`, keeping at most `cap` bytes; the rest of an
/// over-long line is read and discarded. Returns (bytes read, too long).
fn read_line_capped<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<(usize, bool)> {
    let mut total = 0;
    let mut too_long = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok((total, too_long));
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let len = chunk.len();
        if !too_long {
            if buf.len() + len > cap + 2 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        input.consume(len);
        total += len;
        if done {
            return Ok((total, too_long));
        }
    }
}

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

// The two `tools/call` success results are written by hand, keys in sorted
// order, because the output is already JSON text: the envelope copies it, MCP
// copies it as `structuredContent` and escapes it once as the `text` item. The
// general path uses the same writers (through `result_value`), so both paths
// answer alike byte for byte.

/// `{"id":…,"jsonrpc":"2.0","result":…}`, the result written by `result`.
fn write_response(out: &mut Vec<u8>, id: &Value, result: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(b"{\"id\":");
    write_json(out, id);
    out.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":");
    result(out);
    out.push(b'}');
}

/// The EditorMCP success result: `{"diagnostics":[…],"output":…,"tool":…}`,
/// `diagnostics` only when there are some.
fn write_envelope_result(out: &mut Vec<u8>, tool: &str, o: &ToolOutput) {
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

/// The MCP success result: the output as text (its JSON) and as structured
/// content, and each diagnostic as one more text item:
/// `{"content":[{"text":…,"type":"text"},…],"isError":false,"structuredContent":…}`.
fn write_mcp_result(out: &mut Vec<u8>, o: &ToolOutput) {
    // The text item is the output escaped: at most twice as long, and close to it.
    out.reserve(2 * o.output.len() + 128);
    out.extend_from_slice(b"{\"content\":[{\"text\":\"");
    write_escaped(out, o.output_json());
    out.extend_from_slice(b"\",\"type\":\"text\"}");
    for d in &o.diagnostics {
        out.extend_from_slice(b",{\"text\":");
        write_json(out, d);
        out.extend_from_slice(b",\"type\":\"text\"}");
    }
    out.extend_from_slice(b"],\"isError\":false,\"structuredContent\":");
    out.extend_from_slice(o.output_json().as_bytes());
    out.push(b'}');
}

/// A result written by `write` as a `Value`, for the general path.
fn result_value(write: impl FnOnce(&mut Vec<u8>)) -> Value {
    let mut buf = Vec::with_capacity(256);
    write(&mut buf);
    // The writers produce JSON; `Null` cannot happen.
    serde_json::from_slice(&buf).unwrap_or(Value::Null)
}

/// `value` as JSON. Writing strings, ids and `Value`s into memory cannot fail.
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(out, value);
}

/// The contents of a JSON string holding `text`, escaped exactly as
/// serde_json escapes it. Outputs are compact JSON written by serde_json, so
/// they hold no raw control characters and only `"` and `\` need a backslash;
/// that is done here in one pass over reserved space. Anything else (never an
/// output) is left to serde_json.
fn write_escaped(out: &mut Vec<u8>, text: &str) {
    // A fold rather than `any`: no early exit, so it vectorizes.
    if text.bytes().fold(false, |seen, b| seen | (b < 0x20)) {
        let quoted = serde_json::to_string(text).unwrap_or_default();
        out.extend_from_slice(
            quoted
                .as_bytes()
                .get(1..quoted.len() - 1)
                .unwrap_or_default(),
        );
        return;
    }
    let start = out.len();
    out.resize(start + 2 * text.len(), 0);
    let mut end = start;
    for &b in text.as_bytes() {
        if b == b'"' || b == b'\\' {
            out[end] = b'\\';
            end += 1;
        }
        out[end] = b;
        end += 1;
    }
    out.truncate(end);
}

/// An MCP tool error: a result (not a JSON-RPC error), so that the model sees it
/// and can correct itself; the envelope's error object rides in `_meta`.
fn mcp_error_result(e: &ToolError) -> Value {
    json!({"content": [{"type": "text", "text": e.message}], "isError": true, "_meta": {"error": e}})
}

/// A string, or an integer that round-trips exactly: a float id (or one too
/// large for 64 bits, which parses as a float) would come back changed.
fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
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

/// A descriptor in MCP `tools/list` form; annotations follow the safety level.
pub fn mcp_tool(d: &ToolDescriptor) -> Value {
    let (read_only, destructive) = match d.safety_level.as_str() {
        "read-only" => (true, false),
        "safe-write" => (false, false),
        _ => (false, true),
    };
    let mut t = json!({
        "name": d.id,
        "title": d.name,
        "description": d.description,
        "inputSchema": d.input_schema,
        "annotations": {"title": d.name, "readOnlyHint": read_only, "destructiveHint": destructive},
        "_meta": {"toolgen": {"category": d.category, "tier": d.tier, "safetyLevel": d.safety_level, "timeoutSeconds": d.timeout.as_secs_f64()}},
    });
    if let Some(o) = &d.output_schema {
        t["outputSchema"] = o.clone();
    }
    if d.requires_approval {
        t["_meta"]["toolgen"]["requiresApproval"] = json!(true);
    }
    t
}

/// A tool descriptor as generated code writes it: static text, parsed on demand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToolInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub category: &'static str,
    pub safety_level: &'static str,
    pub tier: &'static str,
    pub timeout_seconds: f64,
    pub requires_approval: bool,
    pub notes: Option<&'static str>,
    /// The tool's bundled input JSON Schema, as JSON text.
    pub input_schema: &'static str,
    /// The tool's bundled output JSON Schema, when it declares one.
    pub output_schema: Option<&'static str>,
}

impl ToolInfo {
    /// The runtime descriptor (the schemas parsed).
    pub fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor {
            id: self.id.to_owned(),
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            category: self.category.to_owned(),
            safety_level: self.safety_level.to_owned(),
            tier: self.tier.to_owned(),
            input_schema: serde_json::from_str(self.input_schema).unwrap_or(Value::Null),
            output_schema: self
                .output_schema
                .and_then(|s| serde_json::from_str(s).ok()),
            timeout: Duration::from_secs_f64(self.timeout_seconds),
            requires_approval: self.requires_approval,
            notes: self.notes.map(str::to_owned),
        }
    }
}

/// The error for arguments that do not deserialize into a tool's input type.
pub fn invalid_arguments(tool: &str, e: &serde_json::Error) -> ToolError {
    plain_error(
        ErrorCode::InvalidArguments,
        format!("Invalid tool arguments: {e}"),
    )
    .for_tool(tool)
}

/// The error for an output that does not serialize.
pub fn unserializable_output(tool: &str, e: &serde_json::Error) -> ToolError {
    plain_error(
        ErrorCode::InternalError,
        format!("Internal error: the output of {tool} does not serialize: {e}"),
    )
    .for_tool(tool)
}

/// A generated typed call function: the implementation and the arguments in,
/// the output out (see [`typed_call`]).
pub type TypedCall<T> = fn(&T, Value) -> Result<ToolOutput, ToolError>;

/// Adds every tool of a generated table to `server`: `infos[i]` served by
/// `calls[i]` on `tools`. What the generated `register` functions do.
pub fn register_tools<T: Send + Sync + 'static>(
    mut server: Server,
    infos: &[ToolInfo],
    calls: &[TypedCall<T>],
    tools: Arc<T>,
) -> Result<Server, String> {
    if infos.len() != calls.len() {
        return Err(format!(
            "{} tool descriptors but {} call functions",
            infos.len(),
            calls.len()
        ));
    }
    for (info, &call) in infos.iter().zip(calls) {
        let t = tools.clone();
        server = server.tool(
            info.descriptor(),
            Arc::new(move |arguments| call(&t, Value::Object(arguments))),
        )?;
    }
    Ok(server)
}

/// How a typed output's object keys serialize (see [`typed_call`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOrder {
    /// In sorted order: the output is written straight to JSON text.
    Sorted,
    /// In some other order: the output goes through a `Value`, which sorts them.
    Unsorted,
}

/// One typed tool call, as the generated `call_<tool>` functions make it:
/// `arguments` deserialized into the tool's input type (-32002 if they do not
/// fit), `method` called with a fresh [`Call`], and the output serialized with
/// the call's diagnostics.
pub fn typed_call<I, O>(
    tool: &str,
    arguments: Value,
    keys: KeyOrder,
    method: impl FnOnce(&mut Call, I) -> Result<O, ToolError>,
) -> Result<ToolOutput, ToolError>
where
    I: serde::de::DeserializeOwned,
    O: serde::Serialize,
{
    let input: I = serde_json::from_value(arguments).map_err(|e| invalid_arguments(tool, &e))?;
    let mut call = Call::new();
    let output = method(&mut call, input)?;
    match keys {
        KeyOrder::Sorted => call.finish_sorted(&output),
        KeyOrder::Unsorted => serde_json::to_value(output).map(|o| call.finish(o)),
    }
    .map_err(|e| unserializable_output(tool, &e))
}

/// The error for a tool id that a dispatch table does not know.
pub fn unknown_tool(tool: &str) -> ToolError {
    plain_error(ErrorCode::ToolNotFound, format!("Tool not found: {tool}")).for_tool(tool)
}

#[cfg(test)]
mod tests {
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
            timeout: DEFAULT_TIMEOUT,
            requires_approval: false,
            notes: None,
        };
        let ok: Handler = Arc::new(|a| {
            let mut o = ToolOutput::new(json!({"z": "é\"\n", "a": [1, 2.5, null], "args": a}));
            o.diagnostics.push("partial".into());
            Ok(o)
        });
        let fails: Handler = Arc::new(|_| Err(ToolError::unity("no scene")));
        empty()
            .tool(d("a.ok"), ok)
            .and_then(|s| s.tool(d("a.fails"), fails))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn register_tools_pairs_descriptors_with_calls() {
        fn answer(n: &u8, _: Value) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::new(json!({ "n": n })))
        }
        let info = |id: &'static str| ToolInfo {
            id,
            name: id,
            description: "",
            category: "scene",
            safety_level: "read-only",
            tier: "core",
            timeout_seconds: 30.0,
            requires_approval: false,
            notes: None,
            input_schema: "{}",
            output_schema: None,
        };
        let calls: [TypedCall<u8>; 1] = [answer];
        let s = register_tools(empty(), &[info("a.b")], &calls, Arc::new(7))
            .unwrap_or_else(|e| panic!("{e}"));
        let out = s.call("a.b", json!({})).map(|o| o.output());
        assert_eq!(out, Ok(json!({"n": 7})));
        let mismatch = register_tools(empty(), &[info("a.b"), info("c.d")], &calls, Arc::new(7));
        assert_eq!(
            mismatch.err().as_deref(),
            Some("2 tool descriptors but 1 call functions")
        );
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
    fn outputs_are_compact_sorted_json_however_they_are_made() {
        #[derive(serde::Serialize)]
        struct Sorted {
            a: u8,
            b: BTreeMap<&'static str, u8>,
        }
        let v = json!({"b": {"y": 1, "x": [true]}, "a": "\u{1}"});
        let o = ToolOutput::new(v.clone());
        assert_eq!(o.output_json(), r#"{"a":"\u0001","b":{"x":[true],"y":1}}"#);
        assert_eq!(o.output(), v);
        let typed = Sorted {
            a: 1,
            b: BTreeMap::from([("z", 2), ("c", 3)]),
        };
        let t = Call::new()
            .finish_sorted(&typed)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.output_json(), r#"{"a":1,"b":{"c":3,"z":2}}"#);
        assert_eq!(t, ToolOutput::new(json!({"b": {"z": 2, "c": 3}, "a": 1})));
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
