//! The Rust half of the Unity bridge: tool handlers that forward `tools/call`
//! to the generated C# bridge (`BridgeServer` in the Unity Editor), a
//! loopback TCP connection speaking newline-delimited JSON-RPC in the
//! EditorMCP envelope.
//!
//! - One connection, opened on first use and reused; calls are serialized on it.
//! - Time limits: each call waits at most the tool's time limit for its
//!   response (-32003 after that). The connection is then dropped, since the
//!   late response would otherwise answer the next request; the next call
//!   reconnects.
//! - A reused connection that turns out to be closed (Unity reloaded its
//!   domain, say) is reopened once, transparently.
//! - Every new connection opens with `bridge/hello` (the generated catalog
//!   hash and the project's secret); a refusal is the call's error.
//! - Domain reloads: once a connection succeeded, a bridge that cannot be
//!   reached is waited for (backoff up to 1 s, at most [`RELOAD_WAIT`] and
//!   the call's limit), then the call fails with a retryable error saying
//!   the editor may still be reloading. A call the bridge answers "not run"
//!   (the reload began while it waited for the main thread) is sent again
//!   once, after the reload.
//! - When nothing listens, the error says so and how to fix it (-32004, with
//!   `details.bridge` naming the address).

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ToolError};
use crate::server::{Call, Server, ToolInfo, ToolOutput};

/// The lowest port a Unity project's bridge gets (see [`port_for_project`]).
pub const PORT_FIRST: u16 = 20000;

/// How many ports projects are spread over.
pub const PORT_COUNT: u32 = 10000;

/// The environment variable that overrides the derived port, on both sides.
pub const PORT_VARIABLE: &str = "TOOLGEN_BRIDGE_PORT";

/// The bridge's port for the Unity project at `project`, as the C# bridge
/// derives it (`BridgePort.ForProject`): the path made absolute (`.` and
/// `..` resolved as written, symlinks not followed), separators written as
/// `/`, no trailing `/`; its UTF-8 bytes hashed with 32-bit FNV-1a;
/// [`PORT_FIRST`] plus the hash modulo [`PORT_COUNT`]. Two projects get two
/// ports (up to the rare collision, which `TOOLGEN_BRIDGE_PORT` settles).
pub fn port_for_project(project: &std::path::Path) -> u16 {
    use std::path::Component;
    let absolute = std::path::absolute(project).unwrap_or_else(|_| project.to_path_buf());
    let mut parts: Vec<String> = Vec::new();
    let mut root = String::new();
    for c in absolute.components() {
        match c {
            Component::Prefix(p) => root.push_str(&p.as_os_str().to_string_lossy()),
            Component::RootDir => root.push('/'),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
        }
    }
    let path = format!("{root}{}", parts.join("/")).replace('\\', "/");
    let mut hash: u32 = 2_166_136_261;
    for b in path.as_bytes() {
        hash ^= u32::from(*b);
        hash = hash.wrapping_mul(16_777_619);
    }
    // The remainder is below PORT_COUNT, so the sum fits.
    PORT_FIRST + u16::try_from(hash % PORT_COUNT).unwrap_or(0)
}

/// The secret's file, relative to the Unity project (C#: `BridgeSecret.FileName`).
pub const SECRET_FILE: &str = "Library/toolgen-bridge.secret";

/// The bridge secret the C# bridge created for the Unity project at
/// `project`, or an error saying where it was looked for and why it may be
/// missing.
pub fn read_secret(project: &std::path::Path) -> Result<String, String> {
    let path = project.join(SECRET_FILE);
    match std::fs::read_to_string(&path) {
        Ok(s) if s.trim().len() >= 32 => Ok(s.trim().to_owned()),
        Ok(_) => Err(format!(
            "{}: the bridge secret is too short; delete the file and let the Unity bridge create a new one",
            path.display()
        )),
        Err(e) => Err(format!(
            "cannot read the bridge secret {}: {e}. Open the project in the Unity Editor with the toolgen bridge running (it creates the file), as the same user as this server",
            path.display()
        )),
    }
}

/// `TOOLGEN_BRIDGE_PORT` when set (1-65535), else `manifest` (the
/// generated `BRIDGE_PORT`, from the manifest's `bridgePort`), else
/// [`port_for_project`]: the order the C# bridge's `BridgePort.Resolve` uses.
pub fn resolve_port(project: &std::path::Path, manifest: Option<u16>) -> u16 {
    std::env::var(PORT_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok())
        .filter(|p| *p > 0)
        .or(manifest.filter(|p| *p > 0))
        .unwrap_or_else(|| port_for_project(project))
}

/// How long connecting may take, at most (less when the tool's limit is shorter).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Responses longer than this are refused.
pub const MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// A client of the C# bridge at one address (`127.0.0.1:PORT`).
pub struct Bridge {
    address: String,
    connection: Mutex<Option<Connection>>,
    /// The current connection's write half, for cancellations sent while a
    /// call holds the connection.
    cancel_writer: Mutex<Option<TcpStream>>,
    next_id: AtomicU64,
    /// Sent in `bridge/hello` on every new connection (see [`Bridge::catalog_hash`]).
    catalog_hash: Option<String>,
    /// Sent in `bridge/hello` too (see [`Bridge::secret`]).
    secret: Option<String>,
    /// A connection succeeded once: a bridge that is not reachable now is
    /// most likely reloading, and worth waiting for.
    was_connected: std::sync::atomic::AtomicBool,
    /// Calls waiting now for the bridge to come back (see [`Bridge::status`]).
    waiting: std::sync::atomic::AtomicUsize,
}

enum Failure {
    /// The request may not have reached the bridge: safe to retry on a new connection.
    Stale(std::io::Error),
    /// Anything else: reported.
    Error(ToolError),
}

impl Bridge {
    pub fn new(address: impl Into<String>) -> Bridge {
        Bridge {
            address: address.into(),
            connection: Mutex::new(None),
            cancel_writer: Mutex::new(None),
            next_id: AtomicU64::new(1),
            catalog_hash: None,
            secret: None,
            was_connected: std::sync::atomic::AtomicBool::new(false),
            waiting: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Presents the project's bridge secret ([`read_secret`]) in `bridge/hello`.
    pub fn secret(mut self, secret: impl Into<String>) -> Bridge {
        self.secret = Some(secret.into());
        self
    }

    /// Opens every connection with `bridge/hello` carrying `hash` (the
    /// generated `CATALOG_HASH`): a C# bridge generated from other specs
    /// refuses it, and every call fails with its message naming both
    /// hashes, before anything is forwarded.
    pub fn catalog_hash(mut self, hash: impl Into<String>) -> Bridge {
        self.catalog_hash = Some(hash.into());
        self
    }

    /// The bridge's state as both sides see it, asked on a connection of its
    /// own. Reachable: the bridge's `bridge/status` (`connected`,
    /// `reloading`, `catalogHash`, `queueLength`). Not reachable:
    /// `connected: false`, `reachable: false`, the reason in `error`, and
    /// `reloading` true when this client reached the bridge before (the
    /// editor is most likely reloading scripts), null when it never did.
    /// Both add `address` and `client`: this side's catalog hash and whether
    /// a call is waiting for the bridge to come back. A bridge that refuses
    /// this client (secret, catalog hash) is an error.
    pub fn status(&self, timeout: Duration) -> Result<Value, ToolError> {
        let client = json!({
            "catalogHash": self.catalog_hash,
            "waitingForBridge": self.waiting.load(Ordering::Relaxed) > 0,
        });
        let mut status = match self.connect(timeout) {
            Ok(mut conn) => {
                self.was_connected.store(true, Ordering::Relaxed);
                self.request(&mut conn, "bridge/status", json!({}), timeout)?
            }
            Err(e) if unreachable(&e) => {
                let before = self.was_connected.load(Ordering::Relaxed);
                json!({
                    "connected": false,
                    "reachable": false,
                    "reloading": if before { Value::Bool(true) } else { Value::Null },
                    "error": e.message,
                })
            }
            Err(e) => return Err(e),
        };
        if let Some(fields) = status.as_object_mut() {
            fields.insert("address".into(), json!(self.address));
            fields.insert("client".into(), client);
        }
        Ok(status)
    }

    /// One request of the bridge's own on `conn`, waiting at most `timeout`.
    fn request(
        &self,
        conn: &mut Connection,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let mut line = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": 0, "method": method, "params": params,
        }))
        .map_err(|e| ToolError::new(ErrorCode::InternalError, e.to_string()))?;
        line.push(b'\n');
        conn.writer
            .write_all(&line)
            .and_then(|()| conn.writer.flush())
            .map_err(|e| self.not_running(&e))?;
        let _ = conn
            .reader
            .get_ref()
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))));
        let mut response = Vec::new();
        let read = (&mut conn.reader)
            .take(MAX_RESPONSE_BYTES)
            .read_until(b'\n', &mut response);
        match read {
            Ok(n) if n > 0 => {}
            Ok(_) => {
                return Err(self.not_running(&std::io::Error::new(
                    ErrorKind::UnexpectedEof,
                    format!("the bridge closed the connection before answering `{method}`"),
                )));
            }
            Err(e) => return Err(self.not_running(&e)),
        }
        let v: Value = serde_json::from_slice(&response).map_err(|e| {
            ToolError::new(
                ErrorCode::InternalError,
                format!("Unity Editor bridge at {} answered `{method}` with something that is not JSON: {e}", self.address),
            )
        })?;
        if let Some(e) = v.get("error") {
            return Err(
                serde_json::from_value::<ToolError>(e.clone()).unwrap_or_else(|_| {
                    ToolError::new(
                        ErrorCode::UnityEditor,
                        format!("Unity Editor bridge refused `{method}`: {e}"),
                    )
                }),
            );
        }
        Ok(v.get("result").cloned().unwrap_or(Value::Null))
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    fn not_running(&self, e: &std::io::Error) -> ToolError {
        ToolError::new(
            ErrorCode::UnityEditor,
            format!(
                "Unity Editor bridge is not reachable at {}: {e}. Open the Unity project with the generated bridge package and start its BridgeServer on that port, or pass the right address.",
                self.address
            ),
        )
        .detail("bridge", self.address.clone())
    }

    fn connect(&self, timeout: Duration) -> Result<Connection, ToolError> {
        let addrs: Vec<_> = self
            .address
            .to_socket_addrs()
            .map_err(|e| self.not_running(&e))?
            .collect();
        let mut last = std::io::Error::new(ErrorKind::NotFound, "the address resolves to nothing");
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, timeout.min(CONNECT_TIMEOUT)) {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    let writer = stream.try_clone().map_err(|e| self.not_running(&e))?;
                    let cancel = stream.try_clone().ok();
                    let mut conn = Connection {
                        reader: BufReader::new(stream),
                        writer,
                    };
                    if self.catalog_hash.is_some() || self.secret.is_some() {
                        self.request(
                            &mut conn,
                            "bridge/hello",
                            json!({"catalogHash": self.catalog_hash, "secret": self.secret}),
                            timeout.min(CONNECT_TIMEOUT),
                        )?;
                    }
                    *self.cancel_writer.lock().unwrap_or_else(|p| p.into_inner()) = cancel;
                    return Ok(conn);
                }
                Err(e) => last = e,
            }
        }
        Err(self.not_running(&last))
    }

    /// Calls `tool` on the bridge, waiting at most `timeout` in all.
    pub fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<ToolOutput, ToolError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.call_with_id(&Call::new(), id, tool, arguments, timeout)
    }

    /// [`Bridge::call`] on behalf of a server's call: when the client
    /// cancels it, the bridge is sent `notifications/cancelled` for its
    /// request (the bridge then drops it if it has not started; Unity's
    /// main thread cannot be interrupted once it has).
    pub fn call_for(
        self: &Arc<Self>,
        call: &Call,
        tool: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<ToolOutput, ToolError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let bridge = Arc::downgrade(self);
        call.on_cancel(move || {
            if let Some(b) = bridge.upgrade() {
                b.send_cancel(id);
            }
        });
        self.call_with_id(call, id, tool, arguments, timeout)
    }

    /// Writes `notifications/cancelled` for request `id` on the connection
    /// (beside the call waiting on it; lines are written whole).
    fn send_cancel(&self, id: u64) {
        let writer = self
            .cancel_writer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .and_then(|w| w.try_clone().ok());
        if let Some(mut w) = writer {
            let mut line = serde_json::to_vec(&json!({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the client cancelled the call"},
            }))
            .unwrap_or_default();
            line.push(b'\n');
            let _ = w.write_all(&line);
        }
    }

    fn call_with_id(
        &self,
        call: &Call,
        id: u64,
        tool: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<ToolOutput, ToolError> {
        let started = Instant::now();
        let mut line = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"tool": tool, "arguments": arguments},
        }))
        .map_err(|e| ToolError::new(ErrorCode::InternalError, e.to_string()))?;
        line.push(b'\n');
        let mut slot = self.connection.lock().unwrap_or_else(|p| p.into_inner());
        let mut resent = false;
        for attempt in 0..3 {
            let reused = slot.is_some();
            let conn = match slot.take() {
                Some(c) => c,
                None => self.connect_or_wait(started, timeout)?,
            };
            match self.exchange(conn, &line, (id, call), tool, started, timeout) {
                // The editor began reloading before the call ran: it was not
                // run, so it is sent again once the editor is back.
                Ok((_, Err(e))) if not_run(&e) && !resent => resent = true,
                Ok((conn, result)) => {
                    *slot = Some(conn);
                    return result;
                }
                Err(Failure::Stale(_)) if reused && attempt == 0 => {}
                Err(Failure::Stale(e)) => {
                    return Err(self.not_running(&e).for_tool(tool));
                }
                Err(Failure::Error(e)) => return Err(e.for_tool(tool)),
            }
        }
        Err(ToolError::new(ErrorCode::InternalError, "bridge retry loop ended").for_tool(tool))
    }

    /// Connects; when the bridge was reachable before (the editor is most
    /// likely reloading scripts), retries with backoff for up to
    /// [`RELOAD_WAIT`] (within the call's time limit), then fails with a
    /// retryable error that says so.
    fn connect_or_wait(
        &self,
        started: Instant,
        timeout: Duration,
    ) -> Result<Connection, ToolError> {
        let mut pause = Duration::from_millis(50);
        let limit = timeout.min(RELOAD_WAIT);
        let mut waiting = false;
        let result = loop {
            let left = timeout.saturating_sub(started.elapsed());
            match self.connect(left) {
                Ok(c) => {
                    self.was_connected.store(true, Ordering::Relaxed);
                    break Ok(c);
                }
                Err(e) if !self.was_connected.load(Ordering::Relaxed) || !unreachable(&e) => {
                    break Err(e);
                }
                Err(_) if started.elapsed() + pause < limit => {
                    if !waiting {
                        waiting = true;
                        self.waiting.fetch_add(1, Ordering::Relaxed);
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(1));
                }
                Err(e) => {
                    break Err(ToolError::new(
                        ErrorCode::UnityEditor,
                        format!(
                            "Unity Editor bridge at {} has not come back within {} s: the editor may still be reloading scripts (it was connected before); retry the call ({})",
                            self.address,
                            limit.as_secs_f64(),
                            e.message
                        ),
                    )
                    .detail("bridge", self.address.clone())
                    .detail("retryable", true));
                }
            }
        };
        if waiting {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
        result
    }

    fn exchange(
        &self,
        mut conn: Connection,
        line: &[u8],
        (id, call): (u64, &Call),
        tool: &str,
        started: Instant,
        timeout: Duration,
    ) -> Result<(Connection, Result<ToolOutput, ToolError>), Failure> {
        if let Err(e) = conn
            .writer
            .write_all(line)
            .and_then(|()| conn.writer.flush())
        {
            return Err(Failure::Stale(e));
        }
        let mut response = Vec::new();
        loop {
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err(Failure::Error(timed_out(tool, timeout)));
            }
            let _ = conn.reader.get_ref().set_read_timeout(Some(left));
            let mut limited =
                (&mut conn.reader).take(MAX_RESPONSE_BYTES.saturating_sub(response.len() as u64));
            match limited.read_until(b'\n', &mut response) {
                Ok(0) if response.is_empty() => {
                    return Err(Failure::Stale(std::io::Error::new(
                        ErrorKind::UnexpectedEof,
                        "the bridge closed the connection",
                    )));
                }
                // What the C# handler sends while it runs, then the response:
                // notifications (`ToolContext.Log`, `ReportProgress`) passed on,
                // questions to the client (`Elicit`, `Sample`) answered on the
                // connection.
                Ok(_) if response.ends_with(b"\n") && response.starts_with(FROM_HANDLER) => {
                    if let Ok(m) = serde_json::from_slice::<Value>(&response) {
                        if m.get("id").is_some() {
                            let left = timeout.saturating_sub(started.elapsed());
                            let mut answer =
                                serde_json::to_vec(&call.ask_for(&m, left)).unwrap_or_default();
                            answer.push(b'\n');
                            if let Err(e) = conn
                                .writer
                                .write_all(&answer)
                                .and_then(|()| conn.writer.flush())
                            {
                                return Err(Failure::Error(self.not_running(&e)));
                            }
                        } else {
                            call.relay(&m);
                        }
                    }
                    response.clear();
                }
                Ok(_) if response.ends_with(b"\n") => break,
                Ok(_) if response.len() as u64 >= MAX_RESPONSE_BYTES => {
                    return Err(Failure::Error(ToolError::new(
                        ErrorCode::InternalError,
                        format!("the bridge's response is larger than {MAX_RESPONSE_BYTES} bytes"),
                    )));
                }
                Ok(0) => {
                    return Err(Failure::Error(ToolError::new(
                        ErrorCode::UnityEditor,
                        format!(
                            "Unity Editor bridge at {} closed the connection in the middle of a response",
                            self.address
                        ),
                    )));
                }
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Err(Failure::Error(timed_out(tool, timeout)));
                }
                Err(e) if response.is_empty() => return Err(Failure::Stale(e)),
                Err(e) => return Err(Failure::Error(self.not_running(&e))),
            }
        }
        let result = parse_response(&response, id, &self.address);
        Ok((conn, result))
    }
}

/// How the C# side begins a notification or a request of its handler (it
/// writes them in this form; responses begin otherwise).
const FROM_HANDLER: &[u8] = br#"{"jsonrpc":"2.0","method":"#;

/// How long a call waits for a bridge that was there before to come back
/// (a domain reload usually takes seconds).
pub const RELOAD_WAIT: Duration = Duration::from_secs(30);

/// Whether `e` says the bridge is not reachable (rather than that it refused us).
fn unreachable(e: &ToolError) -> bool {
    e.code == ErrorCode::UnityEditor
        && e.data
            .as_ref()
            .is_some_and(|d| d.details.contains_key("bridge"))
}

/// Whether the bridge answered that the call was not run (the editor began
/// reloading scripts while it waited for the main thread).
fn not_run(e: &ToolError) -> bool {
    e.data
        .as_ref()
        .is_some_and(|d| d.details.get("notRun") == Some(&Value::Bool(true)))
}

/// How long a call waits for Unity when its tool states no time limit.
const LONGEST_WAIT: Duration = Duration::from_secs(3600);

fn timed_out(tool: &str, timeout: Duration) -> ToolError {
    ToolError::new(
        ErrorCode::Timeout,
        format!(
            "Tool {tool} did not answer within its time limit of {} s (the Unity Editor may be busy or blocked)",
            timeout.as_secs_f64()
        ),
    )
    .detail("timeoutSeconds", timeout.as_secs_f64())
}

fn parse_response(raw: &[u8], id: u64, address: &str) -> Result<ToolOutput, ToolError> {
    let bad = |what: String| {
        ToolError::new(
            ErrorCode::InternalError,
            format!("Unity Editor bridge at {address} sent {what}"),
        )
    };
    let v: Value = serde_json::from_slice(raw)
        .map_err(|e| bad(format!("a response that is not JSON: {e}")))?;
    if v.get("id") != Some(&json!(id)) {
        return Err(bad(format!(
            "a response for another request (id {})",
            v.get("id").unwrap_or(&Value::Null)
        )));
    }
    if let Some(e) = v.get("error") {
        return Err(
            serde_json::from_value::<ToolError>(e.clone()).unwrap_or_else(|err| {
                bad(format!("an error object toolgen cannot read ({err}): {e}"))
            }),
        );
    }
    let result = v
        .get("result")
        .ok_or_else(|| bad("a response without `result` or `error`".to_owned()))?;
    let diagnostics = result
        .get("diagnostics")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let content = crate::server::content::content_of(result).map_err(bad)?;
    let mut output =
        ToolOutput::new(result.get("output").cloned().unwrap_or(Value::Null)).with_content(content);
    output.diagnostics = diagnostics;
    Ok(output)
}

/// Adds every tool in `tools` to `server`, each forwarded to `bridge` with the
/// tool's time limit, each serial (one call at a time, in order, as Unity's
/// main thread runs them). The server still validates arguments, gates tiers and
/// enforces time limits before anything reaches Unity.
pub fn forward(
    mut server: Server,
    tools: &[ToolInfo],
    bridge: Arc<Bridge>,
) -> Result<Server, String> {
    for info in tools {
        let descriptor = info.descriptor();
        // A tool whose spec states no limit still gets an answer in the end:
        // an hour is the longest limit a spec may state.
        let timeout = descriptor.timeout.unwrap_or(LONGEST_WAIT);
        let id = descriptor.id.clone();
        let b = bridge.clone();
        let serial_id = id.clone();
        server = server.tool(
            descriptor,
            Arc::new(move |call, arguments| b.call_for(&call, &id, arguments, timeout)),
        )?;
        // Unity runs tools on its one main thread, over one connection.
        server.serial_tool(&serial_id);
    }
    Ok(server)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_bridge_is_a_clear_error() {
        // Bind then drop a listener: nothing listens on that port afterwards.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(9);
        let bridge = Bridge::new(format!("127.0.0.1:{port}"));
        let e = bridge
            .call("go.find", Map::new(), Duration::from_secs(1))
            .err();
        assert!(
            e.as_ref().is_some_and(|e| e.code == ErrorCode::UnityEditor
                && e.message.contains("not reachable")
                && e.message.contains(&port.to_string())),
            "{e:?}"
        );
    }

    #[test]
    fn responses_are_checked() {
        assert!(parse_response(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}", 1, "x").is_err());
        assert!(parse_response(b"nope", 1, "x").is_err());
        let ok = parse_response(
            br#"{"jsonrpc":"2.0","id":1,"result":{"tool":"t","output":{"a":1},"diagnostics":["d"]}}"#,
            1,
            "x",
        );
        assert_eq!(
            ok.ok(),
            Some({
                let mut o = ToolOutput::new(json!({"a": 1}));
                o.diagnostics = vec!["d".into()];
                o
            })
        );
        // Content blocks the editor's handler returned come through as they are.
        let captured = parse_response(
            br#"{"jsonrpc":"2.0","id":1,"result":{"tool":"t","output":null,"content":[{"type":"image","data":"iVBORw==","mimeType":"image/png"}]}}"#,
            1,
            "x",
        );
        let image = crate::server::Content::image(b"\x89PNG", "image/png");
        assert_eq!(
            captured.ok(),
            Some(ToolOutput::new(Value::Null).with_content([image]))
        );
        let odd = parse_response(
            br#"{"jsonrpc":"2.0","id":1,"result":{"tool":"t","output":null,"content":[{"type":"picture"}]}}"#,
            1,
            "x",
        );
        assert!(odd.is_err_and(|e| e.message.contains("content blocks")));
        let err = parse_response(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"m","data":{"errorType":"unity","details":{}}}}"#,
            1,
            "x",
        );
        assert_eq!(err.err().map(|e| e.code), Some(ErrorCode::UnityEditor));
    }
}
