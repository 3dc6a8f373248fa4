//! What a tool is to the server: its descriptor, its output (compact JSON
//! text), the [`Call`] a handler gets, and the server's info.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::content::Content;
use super::control::{CallControl, LogLevel, LogThreshold, log_message};
use super::output::ToolOutput;
use super::wire::Outbox;
use crate::error::ToolError;

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
    /// The tool's time limit; `None`: its spec states none, and the
    /// server's default ([`super::Server::default_timeout`]) applies.
    pub timeout: Option<Duration>,
    pub requires_approval: bool,
    pub notes: Option<String>,
    /// The tool's whole MCP `tools/list` entry as one line of JSON, members
    /// in the order its spec wrote them (a generated tool: as the generated
    /// catalog lists it, title, annotations, `_meta` and all, which `tools/list`
    /// sends as it is); `None`: made from the fields above.
    pub entry: Option<String>,
}

/// What a tool method gets besides its input: a place for the
/// informational diagnostics of a successful call (partial results,
/// best-effort limits), which the EditorMCP envelope returns beside the
/// output; whether the client cancelled the call (or its time limit passed);
/// and a way to report progress, when the client asked for it.
#[derive(Clone, Default)]
pub struct Call {
    diagnostics: Vec<String>,
    content: Vec<Content>,
    control: Option<Arc<CallControl>>,
    /// The call came in as MCP, whose answer holds the output twice (see
    /// [`ToolOutput::text`]): a typed output is written both ways at once.
    text_item: bool,
    /// Where the log messages of a call that nothing controls go (an inline
    /// call: its response follows them on the same thread).
    log: Option<(LogThreshold, Arc<dyn Outbox>)>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("diagnostics", &self.diagnostics)
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl Call {
    /// A call outside any server (tests, direct dispatch): never cancelled,
    /// progress goes nowhere.
    pub fn new() -> Call {
        Call::default()
    }

    pub(crate) fn controlled(control: Arc<CallControl>) -> Call {
        Call {
            diagnostics: Vec::new(),
            content: Vec::new(),
            text_item: control.text_item,
            control: Some(control),
            log: None,
        }
    }

    /// A call that nothing controls, answered as MCP (`text_item`) or not.
    pub(crate) fn answered_as(
        text_item: bool,
        log: Option<(LogThreshold, Arc<dyn Outbox>)>,
    ) -> Call {
        Call {
            text_item,
            log,
            ..Call::default()
        }
    }

    /// Adds a diagnostic to the call's result.
    pub fn diagnostic(&mut self, message: impl Into<String>) {
        self.diagnostics.push(message.into());
    }

    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// Adds a content block to the call's result, after its output (a
    /// capture as [`Content::image`], a file as [`Content::resource_blob`],
    /// ...). MCP clients get the blocks in `content`; EditorMCP's envelope in
    /// its `content` member.
    pub fn add_content(&mut self, block: Content) {
        self.content.push(block);
    }

    /// True once the client cancelled the call (`notifications/cancelled`) or
    /// its time limit passed: nobody reads its result any more, so a long
    /// handler should check this and return early (any result will do).
    pub fn is_cancelled(&self) -> bool {
        self.control.as_ref().is_some_and(|c| c.is_cancelled())
    }

    /// Runs `f` once if the call is cancelled (at once if it already is): a
    /// handler that forwards the call elsewhere passes the cancel on with it.
    pub fn on_cancel(&self, f: impl FnOnce() + Send + 'static) {
        if let Some(c) = &self.control {
            c.on_cancel(Box::new(f));
        }
    }

    /// Reports progress: `done` of `total` (when known), with a message. Sent
    /// as `notifications/progress` if the request asked for progress (a
    /// `progressToken` in its `_meta`), before the call's result; otherwise,
    /// and after the result, nothing is sent. `done` should grow with each report.
    pub fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(c) = &self.control {
            c.progress(done, total, message);
        }
    }

    /// Sends a log message of `level` to the client (`notifications/message`,
    /// its `data` what `message` serializes to: a text, or any JSON), when
    /// the call came in as MCP and the client wants messages of that level
    /// (`logging/setLevel`; all of them until it says), before the call's
    /// result; otherwise, and after the result, nothing is sent.
    pub fn log(&self, level: LogLevel, message: impl serde::Serialize) {
        let data = || serde_json::to_value(message).unwrap_or(Value::Null);
        match (&self.control, &self.log) {
            (Some(c), _) => c.log(level, data()),
            (None, Some((threshold, out))) if threshold.admits(level) => {
                out.send(log_message(level, data()));
            }
            _ => {}
        }
    }

    /// Asks the client's model (`sampling/createMessage`), waiting at most
    /// `limit`. Where the client cannot be asked (it did not declare
    /// `sampling`, stdio with calls inline, stateless HTTP, a
    /// call outside a server), the answer is `Unsupported` at once.
    pub fn sample(
        &self,
        request: &super::client::Sampling,
        limit: std::time::Duration,
    ) -> super::client::Sampled {
        if let Some(asks) = self.asks() {
            return asks.sample(request, limit);
        }
        match self.control.as_ref().and_then(|c| c.client.get()) {
            Some((client, out)) => client.sample(out.as_ref(), request, limit),
            None => super::client::Sampled::Unsupported,
        }
    }

    /// Asks the user, through the client, to fill in a form of `schema` (an
    /// object of scalar properties, MCP's `requestedSchema`) with `message`,
    /// waiting at most `limit` (see [`super::client::Elicited`]). Where the client
    /// cannot be asked (it did not declare `elicitation`, stdio with calls
    /// inline, stateless HTTP, a call outside a server), the
    /// answer is `Unsupported` at once.
    pub fn elicit(
        &self,
        message: &str,
        schema: Value,
        limit: std::time::Duration,
    ) -> super::client::Elicited {
        if let Some(asks) = self.asks() {
            return asks.elicit(message, schema, limit);
        }
        match self.control.as_ref().and_then(|c| c.client.get()) {
            Some((client, out)) => client.elicit(out.as_ref(), message, schema, limit),
            None => super::client::Elicited::Unsupported,
        }
    }

    /// Asks the user, through the client, to open `url` (URL-mode
    /// elicitation, MCP 2025-11-25: for what must not pass through the
    /// client, such as a sign-in); `elicitation_id` names the interaction,
    /// and [`Call::elicitation_complete`] tells the client when it is done.
    /// [`Elicited::Accepted`](super::client::Elicited::Accepted) means the
    /// user agreed to go; `Unsupported` where the client did not declare
    /// URL mode.
    pub fn elicit_url(
        &self,
        message: &str,
        url: &str,
        elicitation_id: &str,
        limit: std::time::Duration,
    ) -> super::client::Elicited {
        if let Some(asks) = self.asks() {
            return asks.elicit_url((message, url, elicitation_id), limit);
        }
        match self.control.as_ref().and_then(|c| c.client.get()) {
            Some((client, out)) => {
                client.elicit_url(out.as_ref(), (message, url, elicitation_id), limit)
            }
            None => super::client::Elicited::Unsupported,
        }
    }

    /// Where the call's questions go when not on the connection (see
    /// [`super::client::Asks`]).
    fn asks(&self) -> Option<&dyn super::client::Asks> {
        self.control
            .as_ref()
            .and_then(|c| c.asks.get())
            .map(|a| &**a)
    }

    /// Tells the client that the URL-mode interaction `elicitation_id` is
    /// done (`notifications/elicitation/complete`).
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        if let Some(asks) = self.asks() {
            asks.elicitation_complete(elicitation_id);
        }
        if let Some((_, out)) = self.control.as_ref().and_then(|c| c.client.get()) {
            out.send(super::client::elicitation_completed(elicitation_id));
        }
    }

    /// Passes on a notification the tool's backend sent while it runs (the
    /// Unity bridge's C# handler, an R function): a log message, progress or
    /// the end of a URL-mode elicitation, as MCP writes them; anything else
    /// is dropped.
    pub(crate) fn relay(&self, notification: &Value) {
        let params = &notification["params"];
        match notification["method"].as_str() {
            Some("notifications/message") => {
                if let Ok(level) = serde_json::from_value(params["level"].clone()) {
                    self.log(level, &params["data"]);
                }
            }
            Some("notifications/progress") => {
                if let Some(done) = params["progress"].as_f64() {
                    self.progress(done, params["total"].as_f64(), params["message"].as_str());
                }
            }
            Some("notifications/elicitation/complete") => {
                if let Some(id) = params["elicitationId"].as_str() {
                    self.elicitation_complete(id);
                }
            }
            _ => {}
        }
    }

    /// The response to a request the tool's backend (an R function, a C#
    /// handler) sent the client (`m`, as MCP writes it: `elicitation/create`
    /// in form or URL mode, `sampling/createMessage`): what the user or the
    /// client's model answered, waiting at most `limit`, or an error saying
    /// why not.
    pub(crate) fn ask_for(&self, m: &Value, limit: std::time::Duration) -> Value {
        use super::client::{Elicited, Sampled};
        let params = &m["params"];
        let text = |key: &str| params[key].as_str().unwrap_or_default();
        let result = match m["method"].as_str() {
            Some("elicitation/create") => {
                let answer = if text("mode") == "url" {
                    self.elicit_url(text("message"), text("url"), text("elicitationId"), limit)
                } else {
                    self.elicit(text("message"), params["requestedSchema"].clone(), limit)
                };
                match answer {
                    Elicited::Accepted(content) => Ok(serde_json::json!({"action": "accept", "content": content})),
                    Elicited::Declined => Ok(serde_json::json!({"action": "decline"})),
                    Elicited::Cancelled => Ok(serde_json::json!({"action": "cancel"})),
                    Elicited::Unsupported => Err("the client cannot be asked: it did not declare elicitation, or the transport cannot carry the request".to_owned()),
                    Elicited::Failed(why) => Err(format!("asking the user failed: {why}")),
                    Elicited::InputRequired => Err(INPUT_REQUIRED.to_owned()),
                }
            }
            Some("sampling/createMessage") => {
                let messages = serde_json::from_value::<Vec<super::content::PromptMessage>>(
                    params["messages"].clone(),
                );
                match messages {
                    Ok(messages) => {
                        let max_tokens = params["maxTokens"].as_u64().unwrap_or(200);
                        let request = super::client::Sampling {
                            messages,
                            system_prompt: params["systemPrompt"].as_str().map(str::to_owned),
                            max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
                        };
                        match self.sample(&request, limit) {
                            Sampled::Answered { role, content, model, stop_reason } => Ok(serde_json::json!({
                                "role": role, "content": content, "model": model,
                                "stopReason": stop_reason,
                            })),
                            Sampled::Unsupported => Err("the client cannot be asked: it did not declare sampling, or the transport cannot carry the request".to_owned()),
                            Sampled::Failed(why) => Err(format!("asking the client's model failed: {why}")),
                            Sampled::InputRequired => Err(INPUT_REQUIRED.to_owned()),
                        }
                    }
                    Err(e) => Err(format!(
                        "the tool's messages to the model are not MCP's: {e}"
                    )),
                }
            }
            _ => Err(format!(
                "the tool asked for `{}`, which the bridge does not carry",
                m["method"]
            )),
        };
        match result {
            Ok(r) => serde_json::json!({"jsonrpc": "2.0", "id": m["id"], "result": r}),
            Err(message) => serde_json::json!({"jsonrpc": "2.0", "id": m["id"],
                "error": {"code": -32603, "message": message}}),
        }
    }

    /// The successful result: `output` with the diagnostics gathered so far.
    pub fn finish(self, output: Value) -> ToolOutput {
        self.finish_with(ToolOutput::new(output))
    }

    /// The successful result of a typed output (see [`ToolOutput::from_typed`]),
    /// with the diagnostics gathered so far.
    pub fn finish_typed<T: serde::Serialize + ?Sized>(
        self,
        output: &T,
    ) -> Result<ToolOutput, serde_json::Error> {
        let output = if self.text_item {
            ToolOutput::from_typed_with_text(output)?
        } else {
            ToolOutput::from_typed(output)?
        };
        Ok(self.finish_with(output))
    }

    fn finish_with(self, mut output: ToolOutput) -> ToolOutput {
        output.diagnostics = self.diagnostics;
        if !self.content.is_empty() {
            output.content.splice(0..0, self.content);
        }
        output
    }
}

/// What a backend hears when its question goes to the client with the
/// call's answer (MCP 2026-07-28): stop; the call runs again with the answer.
const INPUT_REQUIRED: &str = "the question goes to the client with the call's answer \
    (MCP 2026-07-28); stop here: the call runs again with the client's answer";

/// A tool implementation: the call's context and its validated arguments in,
/// output or error out.
pub type Handler =
    Arc<dyn Fn(Call, Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync>;

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
