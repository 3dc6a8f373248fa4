//! The general path: one request line parsed into a `Value`, checked as a
//! JSON-RPC 2.0 request, and handed to the dialect that knows its method
//! ([`super::mcp`] first, then [`super::envelope`]).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::core::{Server, Session};
use super::execution::{Answer, Submitted, WireCall};
use super::modern;
use super::wire::{
    Dialect, Outbox, error_response, plain_error, stamp_result, valid_id, write_response,
};
use crate::error::{ErrorCode, ToolError};

/// What the general path made of a request.
enum Routed {
    /// Answered: the response.
    Now(Vec<u8>),
    /// A tool call to start.
    Call(WireCall<'static>),
    /// `tasks/result` (request id, params): answered when the task is done.
    TaskResult(Value, Map<String, Value>),
    /// A notification.
    Nothing,
}

impl Server {
    /// Takes one request (one line of the wire protocol). Anything but a
    /// tool call is answered at once; a call is checked at once and then runs
    /// on the pool, its response and progress notifications going to
    /// `reply` as it finishes ([`Submitted::Pending`]).
    pub fn submit(
        &self,
        session: &mut Session,
        request: &[u8],
        reply: &Arc<dyn Outbox>,
    ) -> Submitted {
        self.submit_as(session, request, Some(reply))
    }

    /// [`Server::submit`]; without `reply`, for a caller that waits for the
    /// answer (see [`Server::start_call`]).
    pub(crate) fn submit_as(
        &self,
        session: &mut Session,
        request: &[u8],
        reply: Option<&Arc<dyn Outbox>>,
    ) -> Submitted {
        // A server with clients' variants maps their calls on the general path.
        if self.variants.is_empty() {
            if let Some(call) = self.fast_call(request) {
                return self.start_call(session, call, reply);
            }
        }
        match self.route(session, request) {
            Routed::Now(out) => Submitted::Answered(out),
            Routed::Call(call) => self.start_call(session, call, reply),
            Routed::TaskResult(id, params) => self.task_result(&id, &params, reply),
            Routed::Nothing => Submitted::Nothing,
        }
    }

    /// `tasks/result`: the task's answer now, or once it is done (to
    /// `reply`; without one, this waits).
    fn task_result(
        &self,
        id: &Value,
        params: &Map<String, Value>,
        reply: Option<&Arc<dyn Outbox>>,
    ) -> Submitted {
        match self.tasks.result(params, id, reply) {
            Ok(Some(out)) => Submitted::Answered(out),
            Ok(None) => Submitted::Pending,
            Err(e) => Submitted::Answered(super::wire::error_bytes(id, &e)),
        }
    }

    /// Every request the general way: parsed into a `Value`, answered with a
    /// `Value` (or, for a tool call, with the result the wire writers write).
    fn route(&self, session: &mut Session, request: &[u8]) -> Routed {
        match self.respond(session, request) {
            None => Routed::Nothing,
            Some(Err(response)) => Routed::Now(serde_json::to_vec(&response).unwrap_or_default()),
            Some(Ok((id, Answer::Call(call)))) => Routed::Call(WireCall { id, ..call }),
            Some(Ok((id, Answer::TaskResult(params)))) => Routed::TaskResult(id, params),
            Some(Ok((id, answer))) => {
                let mut out = Vec::with_capacity(256);
                write_response(&mut out, &id, |out| answer.write(out));
                Routed::Now(out)
            }
        }
    }

    /// The general path alone, waiting for a call's answer: what
    /// [`Server::handle`] answers, without its fast path (tests and the `json`
    /// fuzz target compare the two).
    #[doc(hidden)]
    pub fn handle_general(&self, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
        super::execution::line_of(match self.route(session, request) {
            Routed::Now(out) => Submitted::Answered(out),
            Routed::Nothing => Submitted::Nothing,
            Routed::Call(call) => self.start_call(session, call, None),
            Routed::TaskResult(id, params) => self.task_result(&id, &params, None),
        })
    }

    /// The request's id and answer, or an error response; `None` for a notification.
    fn respond(&self, session: &mut Session, raw: &[u8]) -> Option<Result<(Value, Answer), Value>> {
        if raw.len() > self.max_request_bytes {
            return Some(Err(error_response(
                Value::Null,
                &plain_error(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Invalid Request: request of {} bytes is larger than the limit of {} bytes",
                        raw.len(),
                        self.max_request_bytes
                    ),
                ),
            )));
        }
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                return Some(Err(error_response(
                    Value::Null,
                    &plain_error(
                        ErrorCode::ParseError,
                        format!("Parse error: invalid UTF-8 at byte {}", e.valid_up_to()),
                    ),
                )));
            }
        };
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                return Some(Err(error_response(
                    Value::Null,
                    &plain_error(ErrorCode::ParseError, format!("Parse error: {e}")),
                )));
            }
        };
        // The request's id where it is valid, else null (JSON-RPC 2.0, section 5).
        let invalid = |id: Option<&Value>, m: &str| {
            Some(Err(error_response(
                id.filter(|id| valid_id(id)).cloned().unwrap_or(Value::Null),
                &plain_error(ErrorCode::InvalidRequest, format!("Invalid Request: {m}")),
            )))
        };
        let Value::Object(mut req) = value else {
            return if value.is_array() {
                invalid(
                    None,
                    "batch requests are not supported; send each request on its own",
                )
            } else {
                invalid(None, "a request must be a JSON object")
            };
        };
        let raw_params = req.remove("params");
        let id = req.get("id").cloned();
        let method = req.get("method").and_then(Value::as_str);
        if req.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid(id.as_ref(), "`jsonrpc` must be \"2.0\"");
        }
        let Some(method) = method else {
            // A response to a request this server sent the client.
            if let (Some(id), Some(client)) = (&id, &session.client) {
                if (req.contains_key("result") || req.contains_key("error"))
                    && client.answer(id, Value::Object(req.clone()))
                {
                    return None;
                }
            }
            return invalid(id.as_ref(), "`method` must be a string");
        };
        let Some(id) = id else {
            if method.starts_with("notifications/") {
                self.notification(session, method, raw_params);
                return None; // MCP notifications get no response
            }
            return invalid(
                None,
                "notifications (requests without `id`) are not supported; every request needs an `id`",
            );
        };
        if !valid_id(&id) {
            return invalid(
                None,
                "`id` must be a string or an integer that fits in 64 bits",
            );
        }
        let (params, modern) = match admit(method, raw_params) {
            Ok(admitted) => admitted,
            Err(e) => return Some(Err(json!({"jsonrpc": "2.0", "id": id, "error": e}))),
        };
        let result = self.dispatch(session, modern, method, params);
        Some(match result {
            Ok(Answer::Value(mut v)) if modern => {
                if let Some(stamp) = self.stamp_for(Dialect::Modern) {
                    stamp_result(&mut v, &stamp);
                }
                Ok((id, Answer::Value(v)))
            }
            Ok(Answer::Page { tools, mut rest }) if modern => {
                if let Some(stamp) = self.stamp_for(Dialect::Modern) {
                    stamp_result(&mut rest, &stamp);
                }
                Ok((id, Answer::Page { tools, rest }))
            }
            Ok(answer) => Ok((id, answer)),
            Err(e) => Err(error_response(id, &e)),
        })
    }

    /// A notification: `notifications/cancelled` cancels the call it names;
    /// the others (`initialized`, ...) need nothing.
    fn notification(&self, session: &Session, method: &str, params: Option<Value>) {
        if method == "notifications/cancelled" {
            if let Some(id) = params.as_ref().and_then(|p| p.get("requestId")) {
                session.calls.cancel(id);
            }
        }
    }

    /// Answers a method: MCP's first (it claims `tools/list` once the
    /// connection sent `initialize` or the request is modern, and
    /// `tools/call` with `name`), then the EditorMCP envelope's.
    fn dispatch(
        &self,
        session: &mut Session,
        modern: bool,
        method: &str,
        mut params: Map<String, Value>,
    ) -> Result<Answer, ToolError> {
        if let Some(result) = super::mcp::answer(self, session, modern, method, &mut params) {
            return result;
        }
        if let Some(result) = super::envelope::answer(self, method, &mut params) {
            return result;
        }
        Err(plain_error(
            ErrorCode::MethodNotFound,
            format!("Method not found: {method}"),
        ))
    }
}

/// A request's params as an object, and whether it is a 2026-07-28 request
/// (its `_meta` envelope valid, and any tasks method allowed by it), or the
/// JSON-RPC error that refuses it.
fn admit(method: &str, raw: Option<Value>) -> Result<(Map<String, Value>, bool), Value> {
    let params = match raw {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => {
            let e = plain_error(
                ErrorCode::InvalidParams,
                "Invalid params: `params` must be an object",
            );
            return Err(json!(e));
        }
    };
    let modern = modern::version_of(&params)
        .map_err(|r| r.to_json())?
        .is_some();
    if modern {
        super::task::admitted(method, &params).map_err(|r| r.to_json())?;
    }
    Ok((params, modern))
}
