//! The server itself: its settings, its tools, and the checks every call
//! passes before it runs (tier, arguments); and a session, the state of one
//! connection. How calls run is [`super::execution`]'s; how they are read
//! and answered, the dialects' and the transports'.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use serde_json::{Map, Value};

use super::client::ClientRequests;
use super::compact;
use super::content::Resource;
use super::control::{InFlight, LogThreshold};
use super::entry::{Checked, Entry, WireArguments, draft_of, invalid, type_name};
use super::pool::Lane;
use super::resource::{
    Offered, Prompt, PromptHandler, ResourceReader, ResourceTemplate, TemplateReader,
};
use super::structured;
use super::sync::lock;
use super::tool::{Handler, ServerInfo, ToolDescriptor};
use super::typed::{Arguments, TypedEntry, TypedHandler, Validity};
use super::wire::{Outbox, Outgoing, plain_error};
use crate::error::{ErrorCode, ToolError};
use crate::json::{Json, Object};

/// Where handlers run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Execution {
    /// On the server's pool of worker threads ([`Server::pool_size`]): calls
    /// run concurrently and are answered as they finish; a handler that
    /// hangs past its time limit is answered -32003 and abandoned, and the
    /// pool goes on without it.
    #[default]
    Worker,
    /// On the thread that read the request: fastest, one call at a time;
    /// panics are still caught (-32603), but a time limit is only detected
    /// when the handler returns (its result is then discarded and -32003
    /// returned). For handlers known to be quick and never to hang.
    Inline,
}

/// Requests larger than this are refused (-32600) without being parsed.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// A time limit for tools whose specs state none, for
/// [`Server::default_timeout`] (EditorMCP's protocol default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls that may wait for a worker beyond those running, per lane, by
/// default (see [`Server::queue_limit`]).
pub const DEFAULT_QUEUE_LIMIT: usize = 256;

/// Tools per MCP `tools/list` page, by default (see [`Server::page_size`]).
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The pool's lanes, made on the first call that needs them.
pub(super) struct Lanes {
    pub(super) concurrent: Arc<Lane>,
    pub(super) serial: Arc<Lane>,
}

/// A tool server. Build it with [`Server::new`] and [`Server::tool`].
pub struct Server {
    pub(super) execution: Execution,
    pub(super) info: ServerInfo,
    pub(super) instructions: Option<String>,
    pub(super) tools: RwLock<BTreeMap<String, Arc<Entry>>>,
    pub(super) tiers: Vec<String>,
    pub(super) tier: String,
    pub(super) max_request_bytes: usize,
    /// The time limit of tools whose specs state none; `None`: no limit.
    pub(super) default_timeout: Option<Duration>,
    pub(super) pool_size: usize,
    pub(super) queue_limit: usize,
    pub(super) page_size: usize,
    /// Every tool runs on the serial lane.
    pub(super) serial: bool,
    /// An idle worker spins briefly before it parks: the next call of a
    /// client that sends one as soon as it has the last answer is taken at
    /// once. Off under rmcp, whose own threads need the core (`rmcp`).
    pub(super) spin: bool,
    pub(super) lanes: OnceLock<Lanes>,
    /// The server's identity as 2026-07-28 results carry it (JSON text),
    /// written on first use: the server's info never changes.
    pub(super) modern_stamp: OnceLock<Arc<[u8]>>,
    /// Connections told of changes.
    pub(super) listeners: Mutex<Vec<Listener>>,
    /// Resources and prompts, beside the tools.
    pub(super) offered: RwLock<Offered>,
    /// Calls made tasks (`tools/call` with `params.task`).
    pub(super) tasks: Arc<super::task::Tasks>,
    /// Clients' variants of the listing, by client (see [`Server::client_variant`]).
    pub(super) variants: BTreeMap<String, Arc<super::variant::Variant>>,
    /// The variant every client gets (`Some("")`: none), else each its own
    /// by its `clientInfo`.
    pub(super) client: Option<String>,
}

/// A connection told of changes: of the tool list (`None`), or of the
/// resource at a URI it subscribed to.
type Listener = (Weak<dyn Outbox>, Option<String>);

/// Per-connection state.
#[derive(Default)]
pub struct Session {
    /// Set by MCP `initialize`: the negotiated protocol version.
    pub mcp_version: Option<String>,
    /// The caller's tier, when the transport knows who calls (an HTTP bearer
    /// token): tools above it are refused, as are tools above the server's.
    pub tier: Option<String>,
    /// Calls not answered yet, for `notifications/cancelled`.
    pub(crate) calls: Arc<InFlight>,
    /// Where notifications that belong to no request go (`tools/list_changed`).
    pub(super) notify: Option<Arc<dyn Outbox>>,
    /// A full queue makes the transport wait (stdio: the pipe pushes back on
    /// the client) instead of answering "busy".
    pub(crate) wait_when_full: bool,
    /// Requests to the client (elicitation), where the transport carries
    /// them and reads the responses while calls run.
    pub(crate) client: Option<Arc<ClientRequests>>,
    /// The least level of log messages the client wants (`logging/setLevel`).
    pub(crate) log_level: LogThreshold,
    /// The client's variant of the listing, where it gets one (`initialize`).
    pub(crate) variant: Option<Arc<super::variant::Variant>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mcp_version", &self.mcp_version)
            .field("tier", &self.tier)
            .field("calls", &self.calls)
            .finish()
    }
}

impl Session {
    /// A session whose notifications outside any request (`tools/list_changed`)
    /// go to `notify`.
    pub fn with_notifications(notify: Arc<dyn Outbox>) -> Session {
        Session {
            notify: Some(notify),
            ..Session::default()
        }
    }

    /// How many of its calls are still running.
    pub fn calls_in_flight(&self) -> usize {
        self.calls.len()
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl Server {
    /// A server running at `tier`, with `tiers` ordered lowest first.
    pub fn new(info: ServerInfo, tiers: &[&str], tier: &str) -> Server {
        Server {
            info,
            instructions: None,
            tools: RwLock::new(BTreeMap::new()),
            tiers: tiers.iter().map(|t| (*t).to_owned()).collect(),
            tier: tier.to_owned(),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            default_timeout: None,
            execution: Execution::Worker,
            pool_size: cores(),
            queue_limit: DEFAULT_QUEUE_LIMIT,
            page_size: DEFAULT_PAGE_SIZE,
            serial: false,
            spin: true,
            lanes: OnceLock::new(),
            modern_stamp: OnceLock::new(),
            listeners: Mutex::new(Vec::new()),
            offered: RwLock::default(),
            tasks: Arc::default(),
            variants: BTreeMap::new(),
            client: None,
        }
    }

    /// Where handlers run (see [`Execution`]).
    pub fn execution(mut self, execution: Execution) -> Server {
        self.execution = execution;
        self
    }

    /// How many calls run at once (default: the number of cores).
    pub fn pool_size(mut self, threads: usize) -> Server {
        self.pool_size = threads.max(1);
        self
    }

    /// How many calls may wait for a worker before further calls are
    /// answered "busy" at once (default [`DEFAULT_QUEUE_LIMIT`]).
    pub fn queue_limit(mut self, calls: usize) -> Server {
        self.queue_limit = calls;
        self
    }

    /// Tools per MCP `tools/list` page (default [`DEFAULT_PAGE_SIZE`]).
    pub fn page_size(mut self, tools: usize) -> Server {
        self.page_size = tools.max(1);
        self
    }

    /// Runs every call one at a time, in the order they arrive (a backend
    /// with one main thread, such as the Unity Editor).
    pub fn serial(mut self, serial: bool) -> Server {
        self.serial = serial;
        self
    }

    /// Guidance for the model about the server as a whole (MCP `instructions`).
    pub fn instructions(mut self, text: impl Into<String>) -> Server {
        self.instructions = Some(text.into());
        self
    }

    /// Offers `resource` (`resources/list`), its contents made by `read`
    /// when a client reads it (`resources/read`). A URI already offered is an
    /// error.
    pub fn resource(self, resource: Resource, read: ResourceReader) -> Result<Server, String> {
        self.offered_mut().add_resource(resource, read)?;
        Ok(self)
    }

    /// Offers the URIs `template` matches (`resources/templates/list`), their
    /// contents made by `read` from the URI and its variables. A template
    /// already offered is an error.
    pub fn resource_template(
        self,
        template: ResourceTemplate,
        read: TemplateReader,
    ) -> Result<Server, String> {
        self.offered_mut().add_template(template, read)?;
        Ok(self)
    }

    /// Tells the connections subscribed to `uri` that it changed
    /// (`notifications/resources/updated`); they read it again if they care.
    pub fn resource_updated(&self, uri: &str) {
        let mut text = Vec::with_capacity(96);
        super::wire::write_json(
            &mut text,
            &serde_json::json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                "params": {"uri": uri}}),
        );
        self.tell(|topic| topic.as_deref() == Some(uri), &text);
    }

    /// Subscribes the connection of `session` to `uri` (`resources/subscribe`),
    /// or (`on` false) ends that subscription. A connection with nowhere to
    /// send notifications (stateless HTTP) is told nothing.
    pub(super) fn subscribe(&self, session: &Session, uri: String, on: bool) {
        let Some(out) = &session.notify else {
            return;
        };
        let (out, uri) = (Arc::downgrade(out), Some(uri));
        let mut listeners = lock(&self.listeners);
        let this = |(o, u): &Listener| Weak::ptr_eq(o, &out) && *u == uri;
        let subscribed = listeners.iter().any(this);
        if on && !subscribed {
            listeners.push((out, uri));
        } else if !on {
            listeners.retain(|s| !this(s));
        }
    }

    /// Offers `prompt` (`prompts/list`), filled in by `fill` when a client
    /// asks for it (`prompts/get`, its required arguments checked first). A
    /// name already offered is an error.
    pub fn prompt(self, prompt: Prompt, fill: PromptHandler) -> Result<Server, String> {
        self.offered_mut().add_prompt(prompt, fill)?;
        Ok(self)
    }

    fn offered_mut(&self) -> std::sync::RwLockWriteGuard<'_, Offered> {
        self.offered.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The resources and prompts offered.
    pub(super) fn offered(&self) -> std::sync::RwLockReadGuard<'_, Offered> {
        self.offered.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a client's variant of the tools' listing: the text of a
    /// `catalog/SET/clients/CLIENT.json` toolgen wrote for a tool set's
    /// `clients` (generated `register` functions add their sets' own). A
    /// client it is for (by its `clientInfo`, or every client with
    /// [`Server::serve_client`]) lists the variant's entries, and its calls
    /// are mapped back to the tools before validation.
    pub fn client_variant(mut self, catalog: &str) -> Result<Server, String> {
        let (client, variant) = super::variant::Variant::parse(catalog)?;
        let merged = self.variants.entry(client).or_default();
        match Arc::get_mut(merged) {
            Some(m) => m.merge(variant),
            None => return Err("a client variant added while the server is shared".to_owned()),
        }
        Ok(self)
    }

    /// [`Server::client_variant`] for each of `catalogs`.
    pub fn client_variants(self, catalogs: &[&str]) -> Result<Server, String> {
        catalogs.iter().try_fold(self, |s, c| s.client_variant(c))
    }

    /// Lists every client the variant for `client` (`"openai-strict"`, ...),
    /// whatever its `clientInfo` says; `""`: the tools' own entries to every
    /// client. By default each client gets the variant its name asks for, if
    /// one was added.
    pub fn serve_client(mut self, client: &str) -> Result<Server, String> {
        if !client.is_empty() && !self.variants.contains_key(client) {
            let known: Vec<&str> = self.variants.keys().map(String::as_str).collect();
            return Err(format!(
                "no variant for client `{client}` (the server has: {}); add `{client}` to the tool set's `clients` and regenerate",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ));
        }
        self.client = Some(client.to_owned());
        Ok(self)
    }

    /// The variant a client named `client_info` gets, if any.
    pub(super) fn variant_for(
        &self,
        client_info: Option<&str>,
    ) -> Option<Arc<super::variant::Variant>> {
        let client = match &self.client {
            Some(fixed) => fixed.clone(),
            None => {
                let registered: Vec<&str> = self.variants.keys().map(String::as_str).collect();
                super::variant::client_for(client_info?, &registered)?
            }
        };
        self.variants.get(&client).cloned()
    }

    /// The time limit of tools whose specs state none (by default there is
    /// none: such a tool runs until it finishes).
    pub fn default_timeout(mut self, limit: Option<Duration>) -> Server {
        self.default_timeout = limit;
        self
    }

    pub fn max_request_bytes(mut self, bytes: usize) -> Server {
        self.max_request_bytes = bytes;
        self
    }

    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The time limit of a tool: its own, else the server's default.
    pub(super) fn timeout_of(&self, d: &ToolDescriptor) -> Option<Duration> {
        d.timeout.or(self.default_timeout)
    }

    pub(super) fn make_entry(
        mut descriptor: ToolDescriptor,
        handler: Handler,
    ) -> Result<Entry, String> {
        let mut task_support = super::task::TaskSupport::default();
        if let Some(entry) = &mut descriptor.entry {
            match serde_json::from_str::<Value>(entry) {
                Ok(listing) if listing.is_object() => {
                    task_support = super::task::TaskSupport::of_listing(&listing);
                }
                _ => {
                    return Err(format!(
                        "tool `{}`: its `tools/list` entry is not a JSON object",
                        descriptor.id
                    ));
                }
            }
            *entry = compact::minified(entry);
        }
        let validator = jsonschema::options()
            .with_draft(draft_of(&descriptor.input_schema))
            .build(&descriptor.input_schema)
            .map_err(|e| format!("tool `{}`: invalid input schema: {e}", descriptor.id))?;
        let wraps_output = descriptor
            .output_schema
            .as_ref()
            .is_some_and(structured::wraps);
        Ok(Entry {
            descriptor,
            handler,
            typed: None,
            validator,
            compiled: None,
            wraps_output,
            serial: false,
            task_support,
        })
    }

    /// Adds a tool. Fails if its input schema is not valid JSON Schema.
    pub fn tool(self, descriptor: ToolDescriptor, handler: Handler) -> Result<Server, String> {
        Ok(self.with_entry(Server::make_entry(descriptor, handler)?))
    }

    /// Adds a tool served by a typed call (what generated `register`
    /// functions do): a call read off the wire whose arguments pass the
    /// tool's compiled validator reaches it as the request's text, read
    /// straight into the tool's input type, without a `serde_json::Value`;
    /// other calls as a `Value`. Fails if its input schema is not valid JSON Schema.
    pub fn typed_tool(
        self,
        descriptor: ToolDescriptor,
        typed: TypedHandler,
    ) -> Result<Server, String> {
        let by_value = typed.clone();
        let handler: Handler =
            Arc::new(move |c, arguments| by_value(c, Arguments::Value(Value::Object(arguments))));
        let mut entry = Server::make_entry(descriptor, handler)?;
        entry.typed = Some(typed);
        Ok(self.with_entry(entry))
    }

    fn with_entry(mut self, entry: Entry) -> Server {
        self.tools
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .insert(entry.descriptor.id.clone(), Arc::new(entry));
        self
    }

    /// Checks tool `id`'s arguments with `valid`, a validator toolgen compiled
    /// from its input schema (the generated `input_is_valid`), instead of
    /// walking the schema; invalid arguments are still reported by the
    /// `jsonschema` crate, with the same paths and messages. `valid` must
    /// answer as the schema does (toolgen's differential tests hold it to
    /// that); `None` goes back to the crate alone. False if there is no such tool.
    pub fn compiled_validator(&mut self, id: &str, valid: Option<Validity>) -> bool {
        self.entry_mut(id).map(|e| e.compiled = valid).is_some()
    }

    /// Makes tool `id` run one call at a time, in arrival order, on the
    /// serial lane (shared by every serial tool). False if there is no such tool.
    pub fn serial_tool(&mut self, id: &str) -> bool {
        self.entry_mut(id).map(|e| e.serial = true).is_some()
    }

    /// Tool `id`'s entry while the server is being built (not yet shared).
    fn entry_mut(&mut self, id: &str) -> Option<&mut Entry> {
        let tools = self.tools.get_mut().unwrap_or_else(|p| p.into_inner());
        tools.get_mut(id).and_then(Arc::get_mut)
    }

    /// Adds (or replaces) a tool while the server runs; MCP clients are sent
    /// `notifications/tools/list_changed`.
    pub fn add_tool(&self, descriptor: ToolDescriptor, handler: Handler) -> Result<(), String> {
        let entry = Server::make_entry(descriptor, handler)?;
        self.tools
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(entry.descriptor.id.clone(), Arc::new(entry));
        self.tools_changed();
        Ok(())
    }

    /// Removes a tool while the server runs (calls already running finish);
    /// MCP clients are sent `notifications/tools/list_changed`. False if
    /// there was no such tool.
    pub fn remove_tool(&self, id: &str) -> bool {
        let removed = self
            .tools
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
            .is_some();
        if removed {
            self.tools_changed();
        }
        removed
    }

    fn tools_changed(&self) {
        let message = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        self.tell(Option::is_none, message);
    }

    /// Sends `message` to the listening connections whose topic `wants`,
    /// forgetting the ones that are gone.
    fn tell(&self, wants: impl Fn(&Option<String>) -> bool, message: &[u8]) {
        lock(&self.listeners).retain(|(l, topic)| match l.upgrade() {
            Some(out) => {
                if wants(topic) {
                    out.send(Outgoing::Notification(message.to_vec()));
                }
                true
            }
            None => false,
        });
    }

    /// Tells the session's connection about tool list changes from now on.
    pub(crate) fn listen(&self, session: &Session) {
        if let Some(out) = &session.notify {
            lock(&self.listeners).push((Arc::downgrade(out), None));
        }
    }

    pub(super) fn entry(&self, id: &str) -> Option<Arc<Entry>> {
        self.tools
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    /// The tools' descriptors, in order of their ids.
    pub fn descriptors(&self) -> Vec<ToolDescriptor> {
        self.tools
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .map(|e| e.descriptor.clone())
            .collect()
    }

    pub(super) fn rank(&self, tier: &str) -> usize {
        self.tiers
            .iter()
            .position(|t| t == tier)
            .unwrap_or(usize::MAX)
    }

    /// Checks a call of a tool: it must be within `tier` (the caller's,
    /// never above the server's), and its arguments must validate against its
    /// input schema.
    pub(super) fn check<'a>(
        &self,
        entry: &Entry,
        tool: &str,
        arguments: WireArguments<'a>,
        caller_tier: Option<&str>,
    ) -> Result<Checked<&'a str>, ToolError> {
        let d = &entry.descriptor;
        let tier = match caller_tier {
            Some(t) if self.rank(t) < self.rank(&self.tier) => t,
            _ => self.tier.as_str(),
        };
        if self.rank(&d.tier) > self.rank(tier) {
            return Err(plain_error(
                ErrorCode::PermissionDenied,
                format!(
                    "Tool not available in current tier: {tool} requires {}",
                    d.tier
                ),
            )
            .for_tool(tool)
            .detail("requiredTier", d.tier.clone())
            .detail("currentTier", tier.to_owned()));
        }
        let arguments = match arguments {
            WireArguments::Text(text, parsed) => match entry.compiled {
                // The common case: no `Value` at all when the tool is typed.
                Some(valid) => {
                    if !valid(&parsed.json) {
                        return Err(invalid(entry, tool, &parsed.json.to_value()));
                    }
                    let checked = if parsed.plain && entry.typed.is_some() {
                        Checked::Text(text)
                    } else {
                        Checked::Map(
                            parsed
                                .json
                                .as_object()
                                .map(Object::to_map)
                                .unwrap_or_default(),
                        )
                    };
                    return Ok(checked);
                }
                None => parsed.json.to_value(),
            },
            WireArguments::Value(v) => v,
        };
        let instance = match arguments {
            Value::Object(m) => Value::Object(m),
            Value::Null => Value::Object(Map::new()),
            other => {
                return Err(plain_error(
                    ErrorCode::InvalidArguments,
                    "Invalid tool arguments: `arguments` must be an object",
                )
                .for_tool(tool)
                .detail("received", type_name(&other)));
            }
        };
        // Fast path: the compiled validator, else `is_valid`, which stops at
        // the first failure and allocates nothing.
        let valid = match entry.compiled {
            Some(valid) => valid(&Json::from(&instance)),
            None => entry.validator.is_valid(&instance),
        };
        if !valid {
            return Err(invalid(entry, tool, &instance));
        }
        match instance {
            Value::Object(args) => Ok(Checked::Map(args)),
            _ => Err(plain_error(
                ErrorCode::InternalError,
                "Internal error: arguments changed type",
            )
            .for_tool(tool)),
        }
    }
}

/// Routes of another MCP library made from a [`Server`]'s tools: what the
/// generated `router` functions return. With the `rmcp` feature, rmcp's
/// `ToolRouter<S>` is one (see `server::rmcp`).
pub trait FromServer: Sized {
    /// Every tool of `server` as a route, listed as the server lists it and
    /// called as the server calls it.
    fn from_server(server: Server) -> Result<Self, String>;
}

/// Adds every tool of a generated table to `server`, each served by its call
/// on `tools`. What the generated `register` functions do.
pub fn register_tools<T: Send + Sync + 'static>(
    mut server: Server,
    tools: Arc<T>,
    entries: &[TypedEntry<T>],
) -> Result<Server, String> {
    for &(info, call) in entries {
        let t = tools.clone();
        server = server.typed_tool(info.descriptor(), Arc::new(move |c, a| call(&t, c, a)))?;
        if info.serial {
            server.serial_tool(info.id);
        }
        server.compiled_validator(info.id, info.input_valid);
    }
    Ok(server)
}
