//! MCP served by rmcp, the official Rust SDK (feature `rmcp`): a [`Server`]'s
//! tools as rmcp tool routes (`ToolRouter<S>` for any server type `S`, through
//! [`FromServer`]), and [`Served`], an rmcp `ServerHandler` of a whole server
//! (tools, log levels, resources, prompts, completion). rmcp carries the
//! messages (its stdio and Streamable HTTP transports, its auth); a call
//! passes the same checks, runs on the same pool within the same time limit
//! and answers with the same `tools/call` result, byte for byte, as on
//! toolgen's own transports.
//!
//! What a call sends back while it runs (progress, log messages, questions
//! to the user or the client's model) goes out from the task rmcp runs the
//! request in, so that rmcp sends it on the request's stream. Under MCP
//! 2026-07-28 questions go back with the call's answer
//! (`InputRequiredResult`) and the call runs again with the answers, as on
//! toolgen's transports (see `rounds`).
//!
//! Not carried: tasks (rmcp's `Tool` has no `execution`, so a listing's
//! `execution` is dropped, and a tool that runs only as a task is refused),
//! and a tool set's tiers (every tool of the server is served).

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, CompleteRequestParams,
    CompleteResult, ErrorCode, ErrorData, GetPromptRequestParams, GetPromptResponse,
    Implementation, InputRequiredResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, ServerNotification, ServerRequest, SubscribeRequestParams, Tool,
    UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use super::client::{Asked, Asks, Capabilities, elicitation_completed};
use super::control::{CallControl, LogLevel, LogThreshold};
use super::core::{Execution, FromServer, Server, Session};
use super::execution::{Hosted, NotStarted};
use super::mcp::mcp_tool;
use super::output::{ToolOutput, write_mcp_call_result};
use super::rounds::Rounds;
use super::wire::{Outbox, Outgoing};
use crate::error::ToolError;

/// Every tool of the server as an rmcp route: listed as `tools/list` lists
/// it (rmcp's `Tool` keeps every member but `execution`), called as
/// [`Server`] calls it. Log messages go out at every level, or at the level a
/// 2026-07-28 request names: rmcp leaves `logging/setLevel` to the server's
/// own `ServerHandler` ([`Served`] keeps it).
impl<S: Send + Sync + 'static> FromServer for ToolRouter<S> {
    fn from_server(mut server: Server) -> Result<Self, String> {
        server.spin = false;
        let server = Arc::new(server);
        let mut router = ToolRouter::new();
        for attr in listings(&server)? {
            let server = server.clone();
            router.add_route(ToolRoute::new_dyn(
                attr,
                move |cx: ToolCallContext<'_, S>| {
                    let server = server.clone();
                    let call = ToolCall {
                        name: cx.name.to_string(),
                        arguments: cx.arguments,
                        input_responses: cx.input_responses,
                        request_state: cx.request_state,
                    };
                    let context = cx.request_context;
                    Box::pin(async move { call_tool(&server, call, context, None).await })
                },
            ));
        }
        Ok(router)
    }
}

/// The server's tools as rmcp lists them.
fn listings(server: &Server) -> Result<Vec<Tool>, String> {
    server
        .descriptors()
        .iter()
        .map(|d| {
            serde_json::from_value(mcp_tool(d))
                .map_err(|e| format!("tool {}: its listing is not one rmcp takes: {e}", d.id))
        })
        .collect()
}

/// A `tools/call` as rmcp hands it over.
struct ToolCall {
    name: String,
    arguments: Option<JsonObject>,
    input_responses: Option<rmcp::model::InputResponses>,
    request_state: Option<String>,
}

/// What a running call sends to the task that serves its request.
enum Event {
    /// A notification, as toolgen writes it (progress, a log message).
    Notify(Vec<u8>),
    /// A request to the client, `{"method", "params"}`, and where its
    /// answer (the client's result) goes.
    Ask(Value, Sender<Result<Value, String>>),
}

/// A call's way back to the task serving its request.
struct ToRequest(mpsc::UnboundedSender<Event>);

impl Outbox for ToRequest {
    fn send(&self, message: Outgoing) {
        // Only notifications: the call's result goes to its completion.
        if let Outgoing::Notification(bytes) = message {
            let _ = self.0.send(Event::Notify(bytes));
        }
    }
}

/// A call's questions to the client, put by the task serving its request
/// (MCP before 2026-07-28).
struct PeerAsks {
    events: mpsc::UnboundedSender<Event>,
    can: Capabilities,
}

impl Asks for PeerAsks {
    fn can(&self) -> Capabilities {
        self.can
    }

    fn ask(&self, question: Value, limit: Duration) -> Asked {
        let (tx, rx) = std::sync::mpsc::channel();
        if self.events.send(Event::Ask(question, tx)).is_err() {
            return Asked::Failed("the request is over".to_owned());
        }
        match rx.recv_timeout(limit) {
            Ok(Ok(answer)) => Asked::Answer(answer),
            Ok(Err(why)) => Asked::Failed(why),
            Err(_) => Asked::Failed(format!("no answer within {} s", limit.as_secs_f64())),
        }
    }

    fn elicitation_complete(&self, id: &str) {
        if let Outgoing::Notification(bytes) = elicitation_completed(id) {
            let _ = self.events.send(Event::Notify(bytes));
        }
    }
}

/// Whether the request is served as MCP 2026-07-28 or later.
fn modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// How a call talks back while it runs (see [`Hosted`]), for each attempt
/// to start it.
#[derive(Clone)]
struct Talk {
    progress: Option<(Value, Arc<dyn Outbox>)>,
    log: Option<(LogThreshold, Arc<dyn Outbox>)>,
    asks: Option<Arc<dyn Asks>>,
}

type Done = oneshot::Receiver<Result<ToolOutput, ToolError>>;

impl Talk {
    /// Starts the call on `server`: its control and where its result comes.
    fn start(
        &self,
        server: &Server,
        name: &str,
        arguments: Value,
        wait_when_full: bool,
    ) -> Result<(Arc<CallControl>, Done), NotStarted> {
        let (done_tx, done) = oneshot::channel();
        let hosted = Hosted {
            progress: self.progress.clone(),
            log: self.log.clone(),
            asks: self.asks.clone(),
            completion: Box::new(move |result| {
                let _ = done_tx.send(result);
            }),
            wait_when_full,
        };
        let control = server.start_hosted(name, arguments, hosted)?;
        Ok((control, done))
    }
}

/// Whether a call was refused because the pool's queue was full.
fn busy(result: &Result<ToolOutput, ToolError>) -> bool {
    let details = result.as_ref().err().and_then(|e| e.data.as_ref());
    details.is_some_and(|d| d.details.get("busy") == Some(&Value::Bool(true)))
}

/// Runs one `tools/call` on `server` and answers it as rmcp wants it.
/// `levels`: the least log level the connection's client set (`None`: every
/// level, before 2026-07-28).
async fn call_tool(
    server: &Arc<Server>,
    call: ToolCall,
    context: RequestContext<RoleServer>,
    levels: Option<LogThreshold>,
) -> Result<CallToolResponse, ErrorData> {
    let ToolCall {
        name,
        arguments,
        input_responses,
        request_state,
    } = call;
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (talk, rounds) = talk(
        server,
        &context,
        &name,
        levels,
        events_tx,
        input_responses,
        request_state,
    )?;
    let arguments = Value::Object(arguments.unwrap_or_default());
    let refused = |e: NotStarted| match e {
        NotStarted::Unknown(e) => Err(error_data(&e)),
        NotStarted::Refused(e) => complete(false, Err(e)),
    };
    let (mut control, mut done) = match talk.start(server, &name, arguments.clone(), false) {
        Ok(started) => started,
        Err(e) => return refused(e),
    };
    // Done at once: run inline, or refused as busy. rmcp reads requests
    // without waiting for answers, so a full queue makes the call wait for
    // room (off rmcp's threads), as toolgen's stdio makes its reader wait.
    let mut early = done.try_recv().ok();
    if early.as_ref().is_some_and(busy) {
        let (server, name) = (server.clone(), name.clone());
        let talk = talk.clone();
        let waited =
            tokio::task::spawn_blocking(move || talk.start(&server, &name, arguments, true));
        (control, done) = match waited.await {
            Ok(Ok(started)) => started,
            Ok(Err(e)) => return refused(e),
            Err(e) => return Err(internal(&e.to_string())),
        };
        early = None;
    }
    let peer = &context.peer;
    let mut cancelled = false;
    let result = match early {
        Some(result) => Ok(result),
        None => loop {
            tokio::select! {
                result = &mut done => break result,
                Some(event) = events.recv() => match event {
                    Event::Notify(bytes) => notify(peer, &bytes).await,
                    Event::Ask(question, reply) => tokio::select! {
                        answer = ask(peer, question) => { let _ = reply.send(answer); }
                        result = &mut done => break result,
                    },
                },
                () = context.ct.cancelled(), if !cancelled => {
                    cancelled = true;
                    control.cancel();
                }
            }
        },
    };
    // Whatever the call sent before it finished goes out before its result.
    while let Ok(Event::Notify(bytes)) = events.try_recv() {
        notify(peer, &bytes).await;
    }
    let Ok(result) = result else {
        return Err(ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!("the call of {name} was cancelled"),
            None,
        ));
    };
    if let Some(asked) = rounds.and_then(|r| r.input_required(&Value::Null, None)) {
        return input_required(&asked);
    }
    complete(server.wraps_output(&name), result)
}

/// How a call of `name` talks back through `events`: progress when the
/// request asked for it; log messages at the request's level (2026-07-28)
/// or `levels`; questions put by the task serving the request, or under
/// 2026-07-28 as input rounds (the second value; a `requestState` not
/// given for `name` is refused).
fn talk(
    server: &Server,
    context: &RequestContext<RoleServer>,
    name: &str,
    levels: Option<LogThreshold>,
    events: mpsc::UnboundedSender<Event>,
    input_responses: Option<rmcp::model::InputResponses>,
    request_state: Option<String>,
) -> Result<(Talk, Option<Arc<Rounds>>), ErrorData> {
    let modern = modern(context);
    let capabilities = context
        .client_capabilities()
        .and_then(|c| serde_json::to_value(c).ok());
    let out: Arc<dyn Outbox> = Arc::new(ToRequest(events.clone()));
    let progress = context
        .meta
        .get_progress_token()
        .and_then(|t| serde_json::to_value(t).ok())
        .map(|t| (t, out.clone()));
    let threshold = if modern {
        let level = context.meta.log_level();
        level
            .and_then(|l| serde_json::from_value::<LogLevel>(serde_json::to_value(l).ok()?).ok())
            .map(LogThreshold::at)
    } else {
        Some(levels.unwrap_or_default())
    };
    let rounds = if modern {
        let mut params = Map::new();
        if let Some(r) = input_responses {
            params.insert("inputResponses".into(), json!(r));
        }
        if let Some(s) = request_state {
            params.insert("requestState".into(), json!(s));
        }
        Rounds::of(name, capabilities.as_ref(), &params)
            .map_err(|e| error_data(&e))?
            .map(Arc::new)
    } else {
        None
    };
    let asks: Option<Arc<dyn Asks>> = match &rounds {
        Some(r) => Some(r.clone()),
        // A call run inline holds the thread that would carry its question.
        None if modern || server.execution == Execution::Inline => None,
        None => Some(Arc::new(PeerAsks {
            events,
            can: Capabilities::of(capabilities.as_ref()),
        })),
    };
    let talk = Talk {
        progress,
        log: threshold.map(|t| (t, out)),
        asks,
    };
    Ok((talk, rounds))
}

/// Sends a notification toolgen wrote, as rmcp's own (progress and log
/// messages typed, so that rmcp routes them as it routes its own).
async fn notify(peer: &Peer<RoleServer>, bytes: &[u8]) {
    if let Ok(notification) = serde_json::from_slice::<ServerNotification>(bytes) {
        let _ = peer.send_notification(notification).await;
    }
}

/// Puts a question (`{"method", "params"}`) to the client: its result, or
/// why there is none.
async fn ask(peer: &Peer<RoleServer>, question: Value) -> Result<Value, String> {
    let request = serde_json::from_value::<ServerRequest>(question)
        .map_err(|e| format!("rmcp cannot carry this request: {e}"))?;
    match peer.send_request(request).await {
        Ok(answer) => answer_value(answer),
        Err(e) => Err(e.to_string()),
    }
}

fn answer_value(answer: ClientResult) -> Result<Value, String> {
    serde_json::to_value(answer).map_err(|e| e.to_string())
}

/// A finished call's MCP result, as rmcp takes it.
fn complete(
    wraps: bool,
    result: Result<ToolOutput, ToolError>,
) -> Result<CallToolResponse, ErrorData> {
    let mut bytes = Vec::with_capacity(256);
    write_mcp_call_result(&mut bytes, wraps, None, result);
    serde_json::from_slice::<CallToolResult>(&bytes)
        .map(|mut result| {
            // As rmcp's own results say (it drops it for clients before 2026-07-28).
            result.result_type = Some(rmcp::model::ResultType::COMPLETE);
            CallToolResponse::from(result)
        })
        .map_err(|e| internal(&format!("the call's result does not read as rmcp's: {e}")))
}

/// A 2026-07-28 `InputRequiredResult` (a whole response, see `rounds`).
fn input_required(response: &[u8]) -> Result<CallToolResponse, ErrorData> {
    let result = serde_json::from_slice::<Value>(response)
        .ok()
        .and_then(|mut r| serde_json::from_value::<InputRequiredResult>(r["result"].take()).ok())
        .ok_or_else(|| {
            internal("the call's questions do not read as rmcp's InputRequiredResult")
        })?;
    Ok(CallToolResponse::InputRequired(result))
}

fn internal(message: &str) -> ErrorData {
    ErrorData::new(ErrorCode::INTERNAL_ERROR, message.to_owned(), None)
}

/// A toolgen error as a JSON-RPC error of rmcp's.
fn error_data(e: &ToolError) -> ErrorData {
    let data = e.data.as_ref().and_then(|d| serde_json::to_value(d).ok());
    let code = i32::try_from(e.code.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(ErrorCode(code), e.message.clone(), data)
}

/// An rmcp `ServerHandler` serving a whole [`Server`]: its tools (listed in
/// order, called as above), `logging/setLevel`, resources (templates and
/// subscriptions too), prompts and completion. One per connection: rmcp's
/// Streamable HTTP service makes one per session (`move || Ok(served.clone())`).
pub struct Served {
    server: Arc<Server>,
    info: ServerConfig,
    /// The least log level the client set.
    levels: LogThreshold,
    /// The connection as the server's resource subscriptions know it.
    session: Arc<Mutex<Session>>,
    /// Where `notifications/resources/updated` go, once a request showed
    /// the peer.
    updates: Arc<Updates>,
}

impl Clone for Served {
    /// A handler for another connection to the same server.
    fn clone(&self) -> Served {
        Served::of(self.server.clone())
    }
}

/// The peer a connection's resource updates go to, and the runtime that
/// sends them (updates come from any thread).
#[derive(Default)]
struct Updates(OnceLock<(Peer<RoleServer>, tokio::runtime::Handle)>);

impl Outbox for Updates {
    fn send(&self, message: Outgoing) {
        let Some((peer, runtime)) = self.0.get() else {
            return;
        };
        if let Ok(n) = serde_json::from_slice::<ServerNotification>(message.bytes()) {
            let peer = peer.clone();
            runtime.spawn(async move { peer.send_notification(n).await });
        }
    }
}

impl Served {
    /// The handler of one connection to `server` (clone it for another).
    pub fn new(mut server: Server) -> Served {
        // rmcp's threads read, write and decode: a pool thread spinning
        // for the next call would take the core they need.
        server.spin = false;
        Served::of(Arc::new(server))
    }

    fn of(server: Arc<Server>) -> Served {
        let updates = Arc::new(Updates::default());
        let session = Session::with_notifications(updates.clone());
        let info = info_of(&server);
        Served {
            server,
            info,
            levels: LogThreshold::default(),
            session: Arc::new(Mutex::new(session)),
            updates,
        }
    }

    /// Remembers the peer for resource updates.
    fn met(&self, context: &RequestContext<RoleServer>) {
        let _ = self
            .updates
            .0
            .set((context.peer.clone(), tokio::runtime::Handle::current()));
    }

    /// Runs `f` on the server off rmcp's threads (resource readers and
    /// prompt handlers may block), its `Value` read as rmcp's `R`.
    async fn offered<R: serde::de::DeserializeOwned>(
        &self,
        f: impl FnOnce(&Server, &Mutex<Session>) -> Result<Value, ToolError> + Send + 'static,
    ) -> Result<R, ErrorData> {
        let (server, session) = (self.server.clone(), self.session.clone());
        let value = tokio::task::spawn_blocking(move || f(&server, &session))
            .await
            .map_err(|e| internal(&e.to_string()))?
            .map_err(|e| error_data(&e))?;
        serde_json::from_value(value).map_err(|e| internal(&e.to_string()))
    }
}

/// What `initialize` says of the server: its name, version, instructions and
/// capabilities (no tasks: rmcp does not carry toolgen's).
fn info_of(server: &Server) -> ServerConfig {
    let mut capabilities = super::modern::capabilities(server, false);
    if let Value::Object(c) = &mut capabilities {
        c.remove("tasks");
    }
    let capabilities: ServerCapabilities = serde_json::from_value(capabilities).unwrap_or_default();
    let mut info = ServerConfig::new(capabilities)
        .with_server_info(Implementation::new(&server.info.name, &server.info.version));
    if let Some(i) = &server.instructions {
        info = info.with_instructions(i);
    }
    info
}

/// `params` as the JSON object toolgen's handlers read.
fn params_of(params: impl serde::Serialize) -> Map<String, Value> {
    match serde_json::to_value(params) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

impl ServerHandler for Served {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.met(&context);
        let tools = listings(&self.server).map_err(|e| internal(&e))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.met(&context);
        let call = ToolCall {
            name: request.name.to_string(),
            arguments: request.arguments,
            input_responses: request.input_responses,
            request_state: request.request_state,
        };
        call_tool(&self.server, call, context, Some(self.levels.clone())).await
    }

    // Logging is deprecated by MCP 2026-07-28 (SEP-2577), not gone: a
    // client that sets a level still gets its messages at that level.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = serde_json::to_value(request.level)
            .ok()
            .and_then(|l| serde_json::from_value::<LogLevel>(l).ok())
            .ok_or_else(|| internal("a log level toolgen does not know"))?;
        self.levels.set(level);
        Ok(())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.offered(|s, _| Ok(s.offered().list_resources())).await
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.offered(|s, _| Ok(s.offered().list_templates())).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let params = params_of(request);
        let result: rmcp::model::ReadResourceResult =
            self.offered(move |s, _| s.offered().read(&params)).await?;
        Ok(result.into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.met(&context);
        self.subscription(params_of(request), true).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscription(params_of(request), false).await
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.offered(|s, _| Ok(s.offered().list_prompts())).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let params = params_of(request);
        let result: rmcp::model::GetPromptResult = self
            .offered(move |s, _| s.offered().get_prompt(&params))
            .await?;
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let params = params_of(request);
        self.offered(move |s, _| s.offered().complete(&params))
            .await
    }
}

impl Served {
    /// `resources/subscribe` (`on`) or `resources/unsubscribe`.
    async fn subscription(&self, params: Map<String, Value>, on: bool) -> Result<(), ErrorData> {
        let _: Value = self
            .offered(move |s, session| {
                let uri = s.offered().subscribed(&params)?;
                s.subscribe(&super::sync::lock(session), uri, on);
                Ok(json!({}))
            })
            .await?;
        Ok(())
    }
}

/// Serves `server` through rmcp's stdio transport (newline-delimited JSON-RPC
/// on stdin and stdout) until the client closes it.
#[cfg(feature = "http")]
pub fn serve_stdio(server: Server) -> std::io::Result<()> {
    use rmcp::ServiceExt as _;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let running = Served::new(server)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(std::io::Error::other)?;
        running.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    })
}

/// Serves `server` over Streamable HTTP at `address` (every path), through
/// rmcp's `StreamableHttpService` on hyper: with a session per client, or
/// (`stateless`) none, each response a JSON body where it can be. Tells
/// stderr where, as toolgen's own transport does (`NAME: serving MCP at
/// http://ADDR/mcp`), until SIGINT or SIGTERM; rmcp checks the `Host` header
/// (loopback names only).
#[cfg(feature = "http")]
pub fn serve_http(
    server: Server,
    name: &str,
    address: &str,
    stateless: bool,
) -> std::io::Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let served = Served::new(server);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!stateless)
        .with_json_response(stateless);
    let stop = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(served.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(address).await?;
        eprintln!(
            "{name}: serving MCP at http://{}/mcp",
            listener.local_addr()?
        );
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => accepted?,
                () = super::http::signalled() => {
                    // Ends every session: their streams close, their calls are cancelled.
                    stop.cancel();
                    return Ok(());
                }
            };
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    })
}

/// Serves `server` through rmcp: over Streamable HTTP at `http` (see
/// [`serve_http`]), else over stdio. What the servers of this repository
/// run with `--rmcp`.
#[cfg(feature = "http")]
pub fn serve(
    server: Server,
    name: &str,
    http: Option<&str>,
    stateless: bool,
) -> std::io::Result<()> {
    match http {
        Some(address) => serve_http(server, name, address, stateless),
        None => serve_stdio(server),
    }
}
