//! Response bodies: whole JSON, and SSE streams fed by a channel; and the
//! guard that cancels a call when its response is dropped unfinished.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::Frame;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use super::super::control::InFlight;
use super::super::wire::Outgoing;

pub(super) type Body = BoxBody<Bytes, Infallible>;

pub(super) fn full(bytes: Vec<u8>) -> Body {
    http_body_util::Full::new(Bytes::from(bytes)).boxed()
}

/// Cancels the call with `id` when dropped armed: the response it belongs
/// to was dropped before the call's answer went out (the client left).
pub(super) struct CancelGuard {
    calls: Arc<InFlight>,
    id: Value,
    armed: bool,
}

pub(super) fn cancel_guard(calls: Arc<InFlight>, id: Value) -> CancelGuard {
    CancelGuard {
        calls,
        id,
        armed: true,
    }
}

impl CancelGuard {
    pub(super) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if self.armed {
            self.calls.cancel(&self.id);
        }
    }
}

fn event(message: &Outgoing) -> Bytes {
    let mut e = Vec::with_capacity(message.bytes().len() + 24);
    e.extend_from_slice(b"event: message\ndata: ");
    e.extend_from_slice(message.bytes());
    e.extend_from_slice(b"\n\n");
    Bytes::from(e)
}

/// An SSE stream of a request's messages, ending after its response.
struct Sse {
    first: Option<Outgoing>,
    rx: UnboundedReceiver<Outgoing>,
    guard: Option<CancelGuard>,
    /// A session's stream of server notifications: no response ends it.
    standalone: bool,
    done: bool,
}

impl hyper::body::Body for Sse {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.done {
            return Poll::Ready(None);
        }
        let message = match self.first.take() {
            Some(m) => m,
            None => match self.rx.poll_recv(cx) {
                Poll::Ready(Some(m)) => m,
                Poll::Ready(None) => {
                    self.done = true;
                    if let Some(g) = self.guard.as_mut() {
                        g.disarm(); // cancelled: nothing more will come
                    }
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            },
        };
        if matches!(message, Outgoing::Response(_)) && !self.standalone {
            self.done = true;
            if let Some(g) = self.guard.as_mut() {
                g.disarm();
            }
        }
        Poll::Ready(Some(Ok(Frame::data(event(&message)))))
    }
}

fn sse_response(body: Sse) -> Response<Body> {
    let mut r = Response::new(body.boxed());
    *r.status_mut() = StatusCode::OK;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// A request's answer as SSE: `first` (a notification), then what follows,
/// up to and including its response.
pub(super) fn sse_body(
    first: Outgoing,
    rx: UnboundedReceiver<Outgoing>,
    guard: CancelGuard,
) -> Response<Body> {
    sse_response(Sse {
        first: Some(first),
        rx,
        guard: Some(guard),
        standalone: false,
        done: false,
    })
}

/// A session's `GET` stream of server notifications.
pub(super) fn stream_response(rx: UnboundedReceiver<Outgoing>) -> Response<Body> {
    sse_response(Sse {
        first: None,
        rx,
        guard: None,
        standalone: true,
        done: false,
    })
}

/// Header `name` as text, when it is present and visible ASCII.
pub(super) fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}
