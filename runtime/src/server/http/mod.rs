//! The Streamable HTTP transport (MCP 2025-11-25, and 2026-07-28's
//! single-exchange requests), behind the `http` feature: hyper's HTTP/1.1
//! server on a tokio runtime, one endpoint (`/mcp` by default).
//!
//! - `POST` carries one JSON-RPC message. A request is answered with JSON,
//!   or with an SSE stream when its call sends notifications (progress)
//!   before its result and the client accepts `text/event-stream`; a
//!   notification or response is acknowledged `202`.
//! - Sessions: `initialize` creates one (`Mcp-Session-Id`, 128 random
//!   bits); later requests must carry it (400 without, 404 when unknown or
//!   ended); `DELETE` ends it; `GET` opens its stream of server
//!   notifications (`tools/list_changed`). In stateless mode there are no
//!   sessions: every request stands alone, so any number of processes can
//!   serve behind a load balancer. 2026-07-28 requests never need one.
//! - `MCP-Protocol-Version` must name a version the server speaks (400).
//! - Against DNS rebinding: a loopback bind by default, and an `Origin`
//!   header not in the allowed list is refused (403).
//! - Limits: request bodies over the server's request limit get 413
//!   (before reading them when `Content-Length` says so), headers over the
//!   header limit 431; the connection and the server go on serving.
//! - Who may call ([`Auth`]): a bearer token on every request, checked
//!   against a static secret or a validator (an OAuth 2.1 resource server):
//!   401 with `WWW-Authenticate` naming the protected-resource metadata
//!   document, which is served too. A non-loopback bind without
//!   authentication is refused. Tokens are never logged or echoed.
//! - A client that goes away while its call runs cancels the call.
//! - Graceful shutdown: stop accepting, let running requests finish.

// A refusal is the HTTP response that refuses: returned as the error of
// the steps of a request, it is built once and never copied.
#![allow(clippy::result_large_err)]

mod auth;
mod body;

mod request;
use self::request::{Peek, json_response, origin_allowed, read_body, rpc_error, status_only};

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

pub use self::auth::{Auth, AuthError, Caller, ProtectedResource, TokenValidator};
use self::body::{Body, cancel_guard, header_str, sse_body};
use super::control::InFlight;
use super::core::{Server, Session};
use super::execution::Submitted;
use super::sync::lock;
use super::wire::{HEADER_MISMATCH, PROTOCOL_VERSION_KEY};
use super::wire::{MCP_MODERN_VERSIONS, MCP_PROTOCOL_VERSIONS};
use super::wire::{Outbox, Outgoing};

/// Sessions kept at most; the one idle longest makes room for a new one.
const MAX_SESSIONS: usize = 10_000;

/// How the HTTP server listens and whom it serves.
#[derive(Clone)]
pub struct HttpOptions {
    /// Where to listen (default `127.0.0.1:8080`).
    pub address: SocketAddr,
    /// The MCP endpoint's path (default `/mcp`).
    pub path: String,
    /// Origins (`scheme://host[:port]`) allowed besides loopback ones
    /// (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`).
    pub allowed_origins: Vec<String>,
    /// Largest request header section, in bytes (default 16 KiB, at least 8 KiB).
    pub max_header_bytes: usize,
    /// No sessions: every request stands alone.
    pub stateless: bool,
    /// Sessions idle this long are ended (default 30 minutes).
    pub session_idle: Duration,
    /// Who may call; `None`: anyone who can reach the address (loopback only).
    pub auth: Option<Auth>,
    /// Threads doing network I/O (default 1; handlers run on the server's
    /// pool, not on these, unless it runs them inline).
    pub io_threads: usize,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            address: SocketAddr::from(([127, 0, 0, 1], 8080)),
            path: "/mcp".to_owned(),
            allowed_origins: Vec::new(),
            max_header_bytes: 16 * 1024,
            stateless: false,
            session_idle: Duration::from_secs(30 * 60),
            auth: None,
            io_threads: 1,
        }
    }
}

/// Server-initiated messages of a session (its `GET` stream), if one is open.
#[derive(Default)]
struct Standalone(Mutex<Option<mpsc::UnboundedSender<Outgoing>>>);

impl Outbox for Standalone {
    fn send(&self, message: Outgoing) {
        if let Some(tx) = lock(&self.0).as_ref() {
            let _ = tx.send(message);
        }
    }
}

struct Slot {
    session: Mutex<Session>,
    standalone: Arc<Standalone>,
    /// Who opened it: only the same caller may use it.
    subject: Option<String>,
    used: Mutex<Instant>,
}

struct State {
    server: Arc<Server>,
    options: HttpOptions,
    sessions: Mutex<HashMap<String, Arc<Slot>>>,
}

/// A bound HTTP server: [`HttpServer::run`] serves until shut down.
pub struct HttpServer {
    listener: std::net::TcpListener,
    state: Arc<State>,
    shutdown: watch::Sender<bool>,
}

/// Shuts an [`HttpServer`] down gracefully from another thread.
#[derive(Clone)]
pub struct ShutdownHandle(watch::Sender<bool>);

impl ShutdownHandle {
    /// Stops accepting connections; requests being served finish.
    pub fn shutdown(&self) {
        let _ = self.0.send(true);
    }
}

impl HttpServer {
    /// Binds the address. Refuses a non-loopback address without
    /// authentication, and an endpoint path that does not start with `/`.
    pub fn bind(server: Arc<Server>, options: HttpOptions) -> std::io::Result<HttpServer> {
        if !options.address.ip().is_loopback() && options.auth.is_none() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "refusing to serve {} without authentication: anyone who can reach it could call every tool. Configure a bearer token (for editormcp-server: --token-env VAR or --token-file PATH), or listen on 127.0.0.1",
                    options.address
                ),
            ));
        }
        if !options.path.starts_with('/') {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the endpoint path {:?} must start with `/`", options.path),
            ));
        }
        let listener = std::net::TcpListener::bind(options.address).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot listen on {}: {e}", options.address),
            )
        })?;
        listener.set_nonblocking(true)?;
        let (shutdown, _) = watch::channel(false);
        Ok(HttpServer {
            listener,
            state: Arc::new(State {
                server,
                options,
                sessions: Mutex::new(HashMap::new()),
            }),
            shutdown,
        })
    }

    /// The address it listens on (the port chosen when bound to port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// Serves until [`ShutdownHandle::shutdown`], then lets the requests
    /// being served finish (at most `drain` long) and returns.
    pub fn run(self, drain: Duration) -> std::io::Result<()> {
        let runtime = io_runtime(self.state.options.io_threads)?;
        runtime.block_on(self.accept_loop(drain))
    }

    /// [`HttpServer::run`], shutting down gracefully on Ctrl-C or SIGTERM.
    pub fn run_until_signal(self, drain: Duration) -> std::io::Result<()> {
        let handle = self.shutdown_handle();
        let runtime = io_runtime(self.state.options.io_threads)?;
        runtime.spawn(async move {
            signalled().await;
            handle.shutdown();
        });
        runtime.block_on(self.accept_loop(drain))
    }

    async fn accept_loop(self, drain: Duration) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::from_std(self.listener)?;
        let mut stop = self.shutdown.subscribe();
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let _ = stream.set_nodelay(true);
                    let state = self.state.clone();
                    let stop = self.shutdown.subscribe();
                    connections.spawn(serve_connection(stream, state, stop));
                }
                _ = stop.changed() => break,
            }
            while connections.try_join_next().is_some() {}
        }
        drop(listener);
        // Session streams never end by themselves: end them, so that their
        // connections can close.
        for slot in lock(&self.state.sessions).values() {
            *lock(&slot.standalone.0) = None;
        }
        let _ = tokio::time::timeout(drain, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        Ok(())
    }
}

/// The runtime that does the HTTP work: the tools run on the server's pool,
/// so network I/O needs few threads; one by default (measured in
/// BENCHMARKS.md: fewer hand-offs between threads, so lower latency).
fn io_runtime(threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("mcp-http")
            .enable_all()
            .build()
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    state: Arc<State>,
    mut stop: watch::Receiver<bool>,
) {
    let io = hyper_util::rt::TokioIo::new(stream);
    let max_header = state.options.max_header_bytes.max(8192);
    let service = hyper::service::service_fn(move |req| {
        let state = state.clone();
        async move { Ok::<_, std::convert::Infallible>(handle(&state, req).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .max_buf_size(max_header)
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(Duration::from_secs(30));
    let conn = builder.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = stop.changed() => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

async fn handle(state: &Arc<State>, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_owned();
    if auth::is_metadata_path(&path, &state.options.path) {
        return match &state.options.auth {
            Some(a) => auth::metadata_response(a, req.headers(), &state.options.path),
            None => status_only(StatusCode::NOT_FOUND),
        };
    }
    if path != state.options.path {
        return rpc_error(
            StatusCode::NOT_FOUND,
            -32600,
            &format!("Not found: the MCP endpoint is {}", state.options.path),
        );
    }
    if let Some(origin) = header_str(req.headers(), "origin") {
        if !origin_allowed(origin, &state.options.allowed_origins) {
            return rpc_error(
                StatusCode::FORBIDDEN,
                -32600,
                "Forbidden: this Origin may not call the server (allow it with the server's allowed origins)",
            );
        }
    }
    let caller = match &state.options.auth {
        None => None,
        Some(a) => match a.check(req.headers()) {
            Ok(c) => Some(c),
            Err(e) => return auth::unauthorized(a, &e, req.headers(), &state.options.path),
        },
    };
    match *req.method() {
        Method::POST => post(state, req, caller).await,
        Method::GET => open_stream(state, req.headers(), caller.as_ref()),
        Method::DELETE => end_session(state, req.headers(), caller.as_ref()),
        _ => {
            let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    }
}

async fn post(
    state: &Arc<State>,
    req: Request<Incoming>,
    caller: Option<Caller>,
) -> Response<Body> {
    let headers = req.headers().clone();
    let content_type = header_str(&headers, "content-type").unwrap_or("");
    if !content_type.starts_with("application/json") {
        return rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32600,
            "Invalid Request: send the message as Content-Type: application/json",
        );
    }
    let accept = header_str(&headers, "accept").unwrap_or("*/*");
    let accepts_sse = accept.contains("text/event-stream") || accept.contains("*/*");
    let body = match read_body(req, state.server.max_request_bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(peek) = serde_json::from_slice::<Peek>(&body) else {
        // Not a JSON object (or not JSON): the server's own error answer.
        return answer_alone(state, &body, caller.as_ref());
    };
    let modern = peek
        .params
        .as_ref()
        .and_then(|p| p.meta.as_ref())
        .and_then(|m| m.get(PROTOCOL_VERSION_KEY));
    if let Some(refusal) = check_headers(&headers, &peek, modern) {
        return refusal;
    }
    let Some(method) = peek.method.as_deref() else {
        // A response from the client: to the request of its session's that waits for it.
        if !state.options.stateless && modern.is_none() {
            if let Ok(slot) = find_session(state, &headers, caller.as_ref()) {
                let (tx, _rx) = mpsc::unbounded_channel();
                let reply: Arc<dyn Outbox> = Arc::new(Channel(tx));
                state.server.submit(&mut lock(&slot.session), &body, &reply);
            }
        }
        return status_only(StatusCode::ACCEPTED);
    };
    // The id the call's cancel guard names (read once, with the rest of the peek).
    let id = peek.id.clone().unwrap_or(Value::Null);
    if modern.is_some() || state.options.stateless {
        return run_alone(state, &body, &id, &headers, caller.as_ref(), accepts_sse).await;
    }
    if method == "initialize" && peek.id.is_some() {
        return initialize(state, &body, caller);
    }
    let slot = match find_session(state, &headers, caller.as_ref()) {
        Ok(s) => s,
        Err(r) => return r,
    };
    *lock(&slot.used) = Instant::now();
    let calls = lock(&slot.session).calls.clone();
    run(
        state,
        &slot.session,
        &body,
        &id,
        caller.as_ref(),
        accepts_sse,
        calls,
    )
    .await
}

/// 400 when `MCP-Protocol-Version` names no version this server speaks, or
/// (2026-07-28) when a routing header disagrees with the body.
fn check_headers(
    headers: &HeaderMap,
    peek: &Peek,
    modern: Option<&Value>,
) -> Option<Response<Body>> {
    let version = header_str(headers, "mcp-protocol-version");
    if let Some(v) = version {
        if !MCP_PROTOCOL_VERSIONS.contains(&v) && !MCP_MODERN_VERSIONS.contains(&v) {
            return Some(rpc_error(
                StatusCode::BAD_REQUEST,
                -32600,
                &format!(
                    "Bad Request: unsupported MCP-Protocol-Version {v:?}; this server speaks {} and {}",
                    MCP_MODERN_VERSIONS.join(", "),
                    MCP_PROTOCOL_VERSIONS.join(", ")
                ),
            ));
        }
    }
    let modern = modern?;
    let mismatch = |what: &str| {
        Some(rpc_error(
            StatusCode::BAD_REQUEST,
            HEADER_MISMATCH,
            &format!("Header mismatch: {what}"),
        ))
    };
    if version.map(Value::from).as_ref() != Some(modern) {
        return mismatch("MCP-Protocol-Version does not match the request's protocol version");
    }
    if let Some(m) = header_str(headers, "mcp-method") {
        if Some(m) != peek.method.as_deref() {
            return mismatch("Mcp-Method does not match the request's method");
        }
    }
    // Mcp-Name routes a call by its tool, and a task's requests by its id.
    let (named, what) = match peek.method.as_deref() {
        Some("tools/call") => (
            peek.params.as_ref().and_then(|p| p.name.as_ref()),
            "the tool called",
        ),
        Some("tasks/get" | "tasks/update" | "tasks/cancel") => (
            peek.params.as_ref().and_then(|p| p.task_id.as_ref()),
            "the task's id",
        ),
        _ => (None, ""),
    };
    if let (Some(h), Some(Value::String(n))) = (header_str(headers, "mcp-name"), named) {
        if h != n {
            return mismatch(&format!("Mcp-Name does not match {what}"));
        }
    }
    None
}

/// A message served without a session (stateless mode, or 2026-07-28).
async fn run_alone(
    state: &Arc<State>,
    body: &[u8],
    id: &Value,
    headers: &HeaderMap,
    caller: Option<&Caller>,
    accepts_sse: bool,
) -> Response<Body> {
    // Handshake-era requests without a session still speak MCP.
    let session = Session {
        mcp_version: Some(
            header_str(headers, "mcp-protocol-version")
                .filter(|v| MCP_PROTOCOL_VERSIONS.contains(v))
                .unwrap_or("2025-03-26")
                .to_owned(),
        ),
        ..Session::default()
    };
    let calls = session.calls.clone();
    let session = Mutex::new(session);
    run(state, &session, body, id, caller, accepts_sse, calls).await
}

/// Answers a message that is not a JSON object (the server's parse error).
fn answer_alone(state: &Arc<State>, body: &[u8], caller: Option<&Caller>) -> Response<Body> {
    let mut session = Session {
        tier: caller.and_then(|c| c.tier.clone()),
        ..Session::default()
    };
    let (tx, _rx) = mpsc::unbounded_channel();
    let reply: Arc<dyn Outbox> = Arc::new(Channel(tx));
    match state.server.submit(&mut session, body, &reply) {
        Submitted::Answered(out) => json_response(StatusCode::OK, out),
        _ => status_only(StatusCode::ACCEPTED),
    }
}

/// Outgoing messages of one request, to its response.
struct Channel(mpsc::UnboundedSender<Outgoing>);

impl Outbox for Channel {
    fn send(&self, message: Outgoing) {
        let _ = self.0.send(message);
    }
}

/// Submits the message in `session` and answers: JSON when the answer is
/// ready at once or comes first; SSE when notifications come before it.
async fn run(
    state: &Arc<State>,
    session: &Mutex<Session>,
    body: &[u8],
    id: &Value,
    caller: Option<&Caller>,
    accepts_sse: bool,
    calls: Arc<InFlight>,
) -> Response<Body> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reply: Arc<dyn Outbox> = Arc::new(Channel(tx));
    let submitted = {
        let mut s = lock(session);
        s.tier = caller.and_then(|c| c.tier.clone());
        state.server.submit(&mut s, body, &reply)
    };
    drop(reply);
    match submitted {
        Submitted::Answered(out) => json_response(StatusCode::OK, out),
        Submitted::Nothing => status_only(StatusCode::ACCEPTED),
        Submitted::Pending => {
            // Dropped with the request (the client went away): the call is cancelled.
            let mut guard = cancel_guard(calls, id.clone());
            loop {
                match rx.recv().await {
                    Some(Outgoing::Response(out)) => {
                        guard.disarm();
                        return json_response(StatusCode::OK, out);
                    }
                    Some(first @ Outgoing::Notification(_)) if accepts_sse => {
                        return sse_body(first, rx, guard);
                    }
                    Some(Outgoing::Notification(_)) => continue,
                    // Cancelled: no response.
                    None => {
                        guard.disarm();
                        return status_only(StatusCode::ACCEPTED);
                    }
                }
            }
        }
    }
}

fn new_session_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        // No /dev/urandom: SipHash keys, which the standard library seeds from the OS.
        use std::hash::{BuildHasher, Hasher};
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(Instant::now().elapsed().as_nanos());
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn initialize(state: &Arc<State>, body: &[u8], caller: Option<Caller>) -> Response<Body> {
    let standalone = Arc::new(Standalone::default());
    let notify: Arc<dyn Outbox> = standalone.clone();
    let mut session = Session::with_notifications(notify);
    session.tier = caller.as_ref().and_then(|c| c.tier.clone());
    // Calls may ask the client (each request on the call's stream).
    session.client = Some(crate::server::client::ClientRequests::new());
    let (tx, _rx) = mpsc::unbounded_channel();
    let reply: Arc<dyn Outbox> = Arc::new(Channel(tx));
    let Submitted::Answered(out) = state.server.submit(&mut session, body, &reply) else {
        return status_only(StatusCode::ACCEPTED);
    };
    if session.mcp_version.is_none() {
        return json_response(StatusCode::OK, out); // refused: no session
    }
    let id = new_session_id();
    let slot = Arc::new(Slot {
        session: Mutex::new(session),
        standalone,
        subject: caller.map(|c| c.subject),
        used: Mutex::new(Instant::now()),
    });
    {
        let mut sessions = lock(&state.sessions);
        let idle = state.options.session_idle;
        sessions.retain(|_, s| lock(&s.used).elapsed() < idle);
        if sessions.len() >= MAX_SESSIONS {
            let oldest = sessions
                .iter()
                .min_by_key(|(_, s)| *lock(&s.used))
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                sessions.remove(&k);
            }
        }
        sessions.insert(id.clone(), slot);
    }
    let mut r = json_response(StatusCode::OK, out);
    if let Ok(v) = HeaderValue::from_str(&id) {
        r.headers_mut().insert("mcp-session-id", v);
    }
    r
}

/// The request's session: 400 without `Mcp-Session-Id`, 404 when unknown,
/// ended, or opened by another caller.
fn find_session(
    state: &Arc<State>,
    headers: &HeaderMap,
    caller: Option<&Caller>,
) -> Result<Arc<Slot>, Response<Body>> {
    let Some(id) = header_str(headers, "mcp-session-id") else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: Mcp-Session-Id header is required (send `initialize` first, or use the server's stateless mode)",
        ));
    };
    let slot = lock(&state.sessions).get(id).cloned();
    match slot {
        Some(s) if s.subject == caller.map(|c| c.subject.clone()) => Ok(s),
        _ => Err(rpc_error(
            StatusCode::NOT_FOUND,
            -32600,
            "Session not found: it ended or never existed; initialize a new one",
        )),
    }
}

/// `GET`: the session's stream of server notifications.
fn open_stream(state: &Arc<State>, headers: &HeaderMap, caller: Option<&Caller>) -> Response<Body> {
    let accept = header_str(headers, "accept").unwrap_or("");
    if state.options.stateless || !accept.contains("text/event-stream") {
        let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return r;
    }
    let slot = match find_session(state, headers, caller) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let (tx, rx) = mpsc::unbounded_channel();
    *lock(&slot.standalone.0) = Some(tx);
    body::stream_response(rx)
}

/// `DELETE`: ends the session; its running calls are cancelled.
fn end_session(state: &Arc<State>, headers: &HeaderMap, caller: Option<&Caller>) -> Response<Body> {
    if state.options.stateless {
        return status_only(StatusCode::METHOD_NOT_ALLOWED);
    }
    let slot = match find_session(state, headers, caller) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(id) = header_str(headers, "mcp-session-id") {
        lock(&state.sessions).remove(id);
    }
    lock(&slot.session).calls.cancel_all();
    *lock(&slot.standalone.0) = None;
    status_only(StatusCode::NO_CONTENT)
}

/// One HTTP exchange in memory, for fuzzing the transport: `input` (any
/// bytes) is written to a connection served as a real one is, and what the
/// server writes back is returned. Not part of the API.
#[doc(hidden)]
pub struct FuzzHarness {
    runtime: tokio::runtime::Runtime,
    state: Arc<State>,
}

impl FuzzHarness {
    pub fn new(server: Arc<Server>, options: HttpOptions) -> std::io::Result<FuzzHarness> {
        Ok(FuzzHarness {
            runtime: io_runtime(1)?,
            state: Arc::new(State {
                server,
                options,
                sessions: Mutex::new(HashMap::new()),
            }),
        })
    }

    pub fn exchange(&self, input: &[u8]) -> Vec<u8> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let state = self.state.clone();
        self.runtime.block_on(async move {
            let (mut client, server) = tokio::io::duplex(64 * 1024);
            let service = hyper::service::service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, std::convert::Infallible>(handle(&state, req).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .max_buf_size(16 * 1024)
                .serve_connection(hyper_util::rt::TokioIo::new(server), service);
            let served = tokio::spawn(conn);
            let _ = client.write_all(input).await;
            let _ = client.shutdown().await;
            let mut out = Vec::new();
            let _ =
                tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut out)).await;
            served.abort();
            out
        })
    }
}

/// Ctrl-C, or SIGTERM on Unix.
pub(crate) async fn signalled() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

impl Server {
    /// Serves Streamable HTTP at `options.address` until Ctrl-C or SIGTERM
    /// (see [`HttpServer`] to learn the bound port first, or to shut down
    /// from code).
    pub fn serve_http(self: Arc<Self>, options: HttpOptions) -> std::io::Result<()> {
        HttpServer::bind(self, options)?.run_until_signal(Duration::from_secs(10))
    }
}

/// What a server binary's command line says about HTTP: `--http ADDR`,
/// `--stateless`, `--allow-origin ORIGIN`..., `--token-env VAR` or
/// `--token-file PATH`.
#[derive(Clone, Copy, Debug)]
pub struct HttpFlags<'a> {
    pub address: &'a str,
    pub stateless: bool,
    pub origins: &'a [String],
    pub token_env: Option<&'a str>,
    pub token_file: Option<&'a str>,
}

impl HttpFlags<'_> {
    /// Serves `server` as the flags say, telling stderr where (`NAME:
    /// serving MCP at http://ADDR/mcp`), until SIGINT or SIGTERM (calls in
    /// flight get 10 s to finish).
    pub fn serve(&self, server: Server, name: &str) -> std::io::Result<()> {
        let address = self.address.parse().map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "--http {}: not an address ({e}); write it as 127.0.0.1:8080",
                    self.address
                ),
            )
        })?;
        let auth = match (self.token_env, self.token_file) {
            (Some(var), _) => Some(Auth::token_from_env(var)?),
            (_, Some(path)) => Some(Auth::token_from_file(std::path::Path::new(path))?),
            _ => None,
        };
        let options = HttpOptions {
            address,
            stateless: self.stateless,
            allowed_origins: self.origins.to_vec(),
            auth,
            ..HttpOptions::default()
        };
        let bound = HttpServer::bind(Arc::new(server), options)?;
        eprintln!("{name}: serving MCP at http://{}/mcp", bound.local_addr()?);
        bound.run_until_signal(Duration::from_secs(10))
    }
}
