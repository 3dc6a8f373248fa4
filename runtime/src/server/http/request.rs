//! Reading a request and the plain responses: a body read within its limit (what
//! is over it discarded up to a budget), the Origin check, a peek at the
//! JSON-RPC method, and JSON and status-only responses.

use super::body::{Body, full, header_str};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};

/// A JSON-RPC error as an HTTP response with `status`.
pub(super) fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    json_response(status, body.to_string().into_bytes())
}

pub(super) fn json_response(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut r = Response::new(full(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(super) fn status_only(status: StatusCode) -> Response<Body> {
    let mut r = Response::new(full(Vec::new()));
    *r.status_mut() = status;
    r
}

/// `http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*` (and
/// https), or one of `allowed`.
pub(super) fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a == origin || a == "*") {
        return true;
    }
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let Some(rest) = rest else { return false };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().map(|h| format!("[{h}]"))
    } else {
        rest.split(':').next().map(str::to_owned)
    };
    matches!(host.as_deref(), Some("localhost" | "127.0.0.1" | "[::1]"))
}

/// What a POSTed message is, read without building it whole.
#[derive(serde::Deserialize)]
pub(super) struct Peek {
    pub(super) id: Option<Value>,
    pub(super) method: Option<String>,
    pub(super) params: Option<PeekParams>,
}

#[derive(serde::Deserialize)]
pub(super) struct PeekParams {
    pub(super) name: Option<Value>,
    #[serde(rename = "taskId")]
    pub(super) task_id: Option<Value>,
    #[serde(rename = "_meta")]
    pub(super) meta: Option<serde_json::Map<String, Value>>,
}

/// Bytes of an oversized body read and thrown away before answering 413,
/// so that a client that sends its whole body before reading sees the
/// answer; beyond this, the connection is closed instead.
pub(super) const DISCARD_BUDGET: u64 = 16 * 1024 * 1024;

pub(super) async fn read_body(
    req: Request<Incoming>,
    limit: usize,
) -> Result<Vec<u8>, Response<Body>> {
    let too_large = || {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            &format!("Invalid Request: the body is larger than the limit of {limit} bytes"),
        )
    };
    let declared = header_str(req.headers(), "content-length").and_then(|l| l.parse::<u64>().ok());
    if declared.is_some_and(|l| l > limit as u64 + DISCARD_BUDGET) {
        return Err(too_large());
    }
    let mut body = req.into_body();
    let mut out = Vec::new();
    let mut seen: u64 = 0;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Err(status_only(StatusCode::BAD_REQUEST));
        };
        if let Ok(data) = frame.into_data() {
            seen += data.len() as u64;
            if seen > limit as u64 + DISCARD_BUDGET {
                return Err(too_large());
            }
            if seen <= limit as u64 {
                out.extend_from_slice(&data);
            }
        }
    }
    if seen > limit as u64 {
        return Err(too_large());
    }
    Ok(out)
}
