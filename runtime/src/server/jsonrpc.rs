//! The general path: one request line parsed into a `Value`, checked as a
//! JSON-RPC 2.0 request, and handed to the dialect that knows its method
//! ([`super::mcp`] first, then [`super::envelope`]).

use serde_json::{Map, Value, json};

use super::wire::{Answer, write_response};
use super::{Server, Session, plain_error};
use crate::error::{ErrorCode, ToolError};

impl Server {
    /// Handles one request (one line of the wire protocol). Returns the response
    /// line, or `None` for an MCP notification, which gets no response.
    pub fn handle(&self, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
        if let Some(out) = self.fast_call(request) {
            return Some(out);
        }
        self.handle_general(session, request)
    }

    /// Every request the general way: parsed into a `Value`, answered with a
    /// `Value` (or, for a tool call, with the result the wire writers write).
    pub(super) fn handle_general(&self, session: &mut Session, request: &[u8]) -> Option<Vec<u8>> {
        let mut out = match self.respond(session, request)? {
            Ok((id, answer)) => {
                let mut out = Vec::with_capacity(256);
                write_response(&mut out, &id, |out| answer.write(out));
                out
            }
            Err(response) => serde_json::to_vec(&response).unwrap_or_default(),
        };
        out.push(b'\n');
        Some(out)
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
            return invalid(id.as_ref(), "`method` must be a string");
        };
        let Some(id) = id else {
            if method.starts_with("notifications/") {
                return None; // MCP notifications are accepted silently
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
        let params = match raw_params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(p)) => p,
            Some(_) => {
                return Some(Err(error_response(
                    id,
                    &plain_error(
                        ErrorCode::InvalidParams,
                        "Invalid params: `params` must be an object",
                    ),
                )));
            }
        };
        let result = self.dispatch(session, method, params);
        Some(match result {
            Ok(answer) => Ok((id, answer)),
            Err(e) => Err(error_response(id, &e)),
        })
    }

    /// Answers a method: MCP's first (it claims `tools/list` once the
    /// connection sent `initialize`, and `tools/call` with `name`), then the
    /// EditorMCP envelope's.
    fn dispatch(
        &self,
        session: &mut Session,
        method: &str,
        mut params: Map<String, Value>,
    ) -> Result<Answer, ToolError> {
        if let Some(result) = super::mcp::answer(self, session, method, &mut params) {
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

pub(super) fn error_response(id: Value, e: &ToolError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// A string, or an integer that round-trips exactly: a float id (or one too
/// large for 64 bits, which parses as a float) would come back changed.
pub(super) fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}
