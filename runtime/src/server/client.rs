//! Requests the server sends to the client (MCP's server-to-client
//! requests) while a call runs: `elicitation/create`, which asks the user,
//! through the client, to confirm or fill in something, and
//! `sampling/createMessage`, which asks the client's model.
//!
//! Only where the transport reads the client's responses while calls run
//! (stdio, with calls on the pool; Streamable HTTP with a session, each
//! request on its call's stream and the response in a POST of its own) and
//! the client declared the capability in `initialize`; elsewhere [`Call::elicit`](super::Call::elicit) answers
//! [`Elicited::Unsupported`] at once, so a handler always knows where it
//! stands. A request waits at most its time limit; when the connection ends
//! every waiting request fails.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::content::{Content, PromptMessage, Role};
use super::sync::lock;
use super::wire::write_json;
use super::wire::{Outbox, Outgoing};

/// What became of an elicitation.
#[derive(Clone, Debug, PartialEq)]
pub enum Elicited {
    /// The user accepted, with this content (the requested schema's object).
    Accepted(Value),
    /// The user said no.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
    /// This client cannot be asked (no `elicitation` capability, or a
    /// transport that cannot carry the request).
    Unsupported,
    /// The request failed: no answer in time, the connection ended, or the
    /// client answered with an error.
    Failed(String),
    /// MCP 2026-07-28: the question goes to the client with the call's
    /// answer, and the handler runs again with the client's answer (see
    /// `rounds`). Return at once; whatever is returned is not sent.
    InputRequired,
}

/// A request to the client's model (`sampling/createMessage`): the
/// conversation so far, an optional system prompt, and how long the answer
/// may be.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampling {
    pub messages: Vec<PromptMessage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    pub max_tokens: u32,
}

impl Sampling {
    /// One question of the user's, answered in at most `max_tokens`.
    pub fn ask(question: impl Into<String>, max_tokens: u32) -> Sampling {
        Sampling {
            messages: vec![PromptMessage::user(Content::text(question))],
            system_prompt: None,
            max_tokens,
        }
    }
}

/// What became of a sampling request.
#[derive(Clone, Debug, PartialEq)]
pub enum Sampled {
    /// The model answered: its message, the model's name, and why it
    /// stopped (`endTurn`, `maxTokens`, ...), as the client says.
    Answered {
        role: Role,
        content: Content,
        model: String,
        stop_reason: Option<String>,
    },
    /// This client cannot be asked (no `sampling` capability, or a
    /// transport that cannot carry the request).
    Unsupported,
    /// The request failed: no answer in time, the connection ended, the
    /// client answered with an error or with something that is not a message.
    Failed(String),
    /// MCP 2026-07-28: as [`Elicited::InputRequired`]; return at once.
    InputRequired,
}

/// What a client said it can be asked (its `capabilities`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Capabilities {
    /// Form-mode elicitation (`elicitation: {}` or `{"form": {}}`).
    pub(crate) form: bool,
    /// URL-mode elicitation (`elicitation: {"url": {}}`, 2025-11-25).
    pub(crate) url: bool,
    pub(crate) sampling: bool,
}

impl Capabilities {
    /// Reads a client's `capabilities` object.
    pub(crate) fn of(capabilities: Option<&Value>) -> Capabilities {
        let elicitation = capabilities
            .and_then(|c| c.get("elicitation"))
            .and_then(Value::as_object);
        let mode = |m: &str| elicitation.is_some_and(|e| e.get(m).is_some_and(Value::is_object));
        Capabilities {
            // An empty `elicitation` is form mode, as before URL mode existed.
            form: elicitation.is_some_and(|e| e.is_empty()) || mode("form"),
            url: mode("url"),
            sampling: capabilities
                .and_then(|c| c.get("sampling"))
                .is_some_and(Value::is_object),
        }
    }
}

/// What became of one question put to the client by an [`Asks`].
pub(crate) enum Asked {
    Answer(Value),
    /// The question goes out with the call's answer (2026-07-28's rounds).
    Pending,
    Failed(String),
}

/// Where a call's questions to the client go when the connection cannot
/// carry them as requests of its own: with the call's answer (2026-07-28's
/// rounds), or in its task's `inputRequests` (the tasks extension). Each
/// question is `{"method", "params"}`, as both carry it.
pub(crate) trait Asks: Send + Sync {
    /// What the client said it can be asked.
    fn can(&self) -> Capabilities;

    /// Puts `question` to the client, waiting at most `limit` where it waits.
    fn ask(&self, question: Value, limit: Duration) -> Asked;

    /// Tells the client that the URL-mode interaction `id` is done, where
    /// these questions can carry that (a notification).
    fn elicitation_complete(&self, _id: &str) {}

    /// [`super::Call::elicit`] through these questions.
    fn elicit(&self, message: &str, schema: Value, limit: Duration) -> Elicited {
        if !self.can().form {
            return Elicited::Unsupported;
        }
        let params = json!({"mode": "form", "message": message, "requestedSchema": schema});
        self.elicit_with(params, limit)
    }

    /// [`super::Call::elicit_url`] through these questions.
    fn elicit_url(&self, question: (&str, &str, &str), limit: Duration) -> Elicited {
        if !self.can().url {
            return Elicited::Unsupported;
        }
        self.elicit_with(url_elicitation(question), limit)
    }

    fn elicit_with(&self, params: Value, limit: Duration) -> Elicited {
        let question = json!({"method": "elicitation/create", "params": params});
        match self.ask(question, limit) {
            Asked::Answer(answer) => elicited(Ok(answer)),
            Asked::Pending => Elicited::InputRequired,
            Asked::Failed(e) => Elicited::Failed(e),
        }
    }

    /// [`super::Call::sample`] through these questions.
    fn sample(&self, request: &Sampling, limit: Duration) -> Sampled {
        if !self.can().sampling {
            return Sampled::Unsupported;
        }
        let params = serde_json::to_value(request).unwrap_or(Value::Null);
        let question = json!({"method": "sampling/createMessage", "params": params});
        match self.ask(question, limit) {
            Asked::Answer(answer) => sampled(answer),
            Asked::Pending => Sampled::InputRequired,
            Asked::Failed(e) => Sampled::Failed(e),
        }
    }
}

/// `notifications/elicitation/complete`: the URL-mode interaction `id` is done.
pub(crate) fn elicitation_completed(id: &str) -> Outgoing {
    let mut text = Vec::with_capacity(128);
    write_json(
        &mut text,
        &json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": id}}),
    );
    Outgoing::Notification(text)
}

/// The requests of one connection to its client, waiting for responses.
pub(crate) struct ClientRequests {
    pending: Mutex<HashMap<String, Sender<Value>>>,
    next: AtomicU64,
    /// What the client said it can be asked, once it said.
    can: Mutex<Capabilities>,
    closed: AtomicBool,
}

impl ClientRequests {
    pub(crate) fn new() -> Arc<ClientRequests> {
        Arc::new(ClientRequests {
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            can: Mutex::new(Capabilities::default()),
            closed: AtomicBool::new(false),
        })
    }

    /// Records what the client said it can do (`initialize`'s `capabilities`).
    pub(crate) fn set_capabilities(&self, capabilities: Option<&Value>) {
        *lock(&self.can) = Capabilities::of(capabilities);
    }

    fn can(&self) -> Capabilities {
        *lock(&self.can)
    }

    /// Routes a response from the client to the request waiting for it;
    /// false when no request of this connection has that id.
    pub(crate) fn answer(&self, id: &Value, response: Value) -> bool {
        let waiting = lock(&self.pending).remove(&id.to_string());
        match waiting {
            Some(tx) => {
                let _ = tx.send(response);
                true
            }
            None => false,
        }
    }

    /// The connection ended: every waiting request fails.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        lock(&self.pending).clear();
    }

    /// Sends `method` with `params` to `out` (the call's stream) and waits
    /// at most `limit` for the result.
    fn request(
        &self,
        out: &dyn Outbox,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, String> {
        if self.closed.load(Ordering::Acquire) {
            return Err("the connection to the client has ended".to_owned());
        }
        let id = json!(format!(
            "toolgen-{}",
            self.next.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = channel();
        lock(&self.pending).insert(id.to_string(), tx);
        let mut text = Vec::with_capacity(256);
        write_json(
            &mut text,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        out.send(Outgoing::Notification(text));
        let response = rx.recv_timeout(limit);
        lock(&self.pending).remove(&id.to_string());
        let response = response.map_err(|e| match e {
            std::sync::mpsc::RecvTimeoutError::Timeout => {
                format!("the client did not answer within {} s", limit.as_secs_f64())
            }
            std::sync::mpsc::RecvTimeoutError::Disconnected => {
                "the connection to the client has ended".to_owned()
            }
        })?;
        if let Some(e) = response.get("error") {
            return Err(format!("the client answered with an error: {e}"));
        }
        Ok(response.get("result").cloned().unwrap_or(Value::Null))
    }

    /// Asks the client's model.
    pub(crate) fn sample(&self, out: &dyn Outbox, request: &Sampling, limit: Duration) -> Sampled {
        if !self.can().sampling {
            return Sampled::Unsupported;
        }
        let params = serde_json::to_value(request).unwrap_or(Value::Null);
        match self.request(out, "sampling/createMessage", params, limit) {
            Ok(r) => sampled(r),
            Err(e) => Sampled::Failed(e),
        }
    }

    /// Asks the user, through the client, with a form of `schema`.
    pub(crate) fn elicit(
        &self,
        out: &dyn Outbox,
        message: &str,
        schema: Value,
        limit: Duration,
    ) -> Elicited {
        if !self.can().form {
            return Elicited::Unsupported;
        }
        let params = json!({"message": message, "requestedSchema": schema});
        elicited(self.request(out, "elicitation/create", params, limit))
    }

    /// Asks the user, through the client, to open `url` (URL mode): the
    /// interaction happens there, outside MCP; `Accepted` (with no content)
    /// means the user agreed to go.
    pub(crate) fn elicit_url(
        &self,
        out: &dyn Outbox,
        (message, url, elicitation_id): (&str, &str, &str),
        limit: Duration,
    ) -> Elicited {
        if !self.can().url {
            return Elicited::Unsupported;
        }
        let params = url_elicitation((message, url, elicitation_id));
        elicited(self.request(out, "elicitation/create", params, limit))
    }
}

/// The params of a URL-mode `elicitation/create`: `(message, url, elicitation_id)`.
pub(crate) fn url_elicitation((message, url, elicitation_id): (&str, &str, &str)) -> Value {
    json!({"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id})
}

/// What the client's answer to `sampling/createMessage` says.
pub(crate) fn sampled(r: Value) -> Sampled {
    let message = serde_json::from_value::<PromptMessage>(r.clone());
    match (message, r.get("model").and_then(Value::as_str)) {
        (Ok(m), Some(model)) => Sampled::Answered {
            role: m.role,
            content: m.content,
            model: model.to_owned(),
            stop_reason: r
                .get("stopReason")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        _ => Sampled::Failed(format!("the client's answer is not a model's message: {r}")),
    }
}

/// What the client's answer to `elicitation/create` says.
pub(crate) fn elicited(answer: Result<Value, String>) -> Elicited {
    match answer {
        Ok(r) => match r.get("action").and_then(Value::as_str) {
            Some("accept") => Elicited::Accepted(r.get("content").cloned().unwrap_or(json!({}))),
            Some("decline") => Elicited::Declined,
            Some("cancel") => Elicited::Cancelled,
            _ => Elicited::Failed(format!("the client's answer has no known `action`: {r}")),
        },
        Err(e) => Elicited::Failed(e),
    }
}
