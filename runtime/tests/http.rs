//! The Streamable HTTP transport on a real socket: SSE for calls that report
//! progress (in order, before the result), refusals that reach no tool
//! (401, 403), limits the server survives (413), tiers by token, a client
//! that leaves cancels its call, and graceful shutdown. The official SDK's
//! client covers the rest (tests/mcp_client/http_client.py).
#![cfg(feature = "http")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolgen_runtime::server::http::{Auth, HttpOptions, HttpServer, ShutdownHandle};
use toolgen_runtime::{Handler, Server, ServerInfo, ToolDescriptor, ToolOutput};

const TOKEN: &str = "test-token-0123456789abcdef";
const PATIENCE: Duration = Duration::from_secs(20);

fn descriptor(id: &str, tier: &str) -> ToolDescriptor {
    ToolDescriptor {
        id: id.to_owned(),
        name: id.to_owned(),
        description: String::new(),
        category: "test".to_owned(),
        safety_level: "read-only".to_owned(),
        tier: tier.to_owned(),
        input_schema: json!({"type": "object"}),
        output_schema: None,
        timeout: None,
        requires_approval: false,
        notes: None,
        entry: None,
    }
}

struct Running {
    addr: SocketAddr,
    stop: ShutdownHandle,
    done: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    reached: Arc<AtomicUsize>,
    cancelled: std::sync::mpsc::Receiver<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.shutdown();
        if let Some(d) = self.done.take() {
            let _ = d.join();
        }
    }
}

fn start(auth: Option<Auth>) -> Running {
    let reached = Arc::new(AtomicUsize::new(0));
    let r = reached.clone();
    let (cancel_tx, cancelled) = channel();
    let cancel_tx = Mutex::new(cancel_tx);
    let progress: Handler = Arc::new(move |call, _| {
        r.fetch_add(1, Ordering::SeqCst);
        for i in 1..=3 {
            call.progress(f64::from(i), Some(3.0), None);
        }
        Ok(call.finish(json!({"done": true})))
    });
    let waits: Handler = Arc::new(move |call, _| {
        while !call.is_cancelled() {
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = cancel_tx.lock().map(|t| t.send(()));
        Ok(ToolOutput::new(json!({})))
    });
    let pro: Handler = Arc::new(|_, _| Ok(ToolOutput::new(json!({"pro": true}))));
    let server = Server::new(
        ServerInfo::new("http-test", "1"),
        &["core", "tier1"],
        "tier1",
    )
    .max_request_bytes(1024)
    .tool(descriptor("work", "core"), progress)
    .and_then(|s| s.tool(descriptor("waits", "core"), waits))
    .and_then(|s| s.tool(descriptor("pro", "tier1"), pro))
    .unwrap_or_else(|e| panic!("{e}"));
    let options = HttpOptions {
        address: SocketAddr::from(([127, 0, 0, 1], 0)),
        stateless: true,
        auth,
        ..HttpOptions::default()
    };
    let bound = HttpServer::bind(Arc::new(server), options).unwrap_or_else(|e| panic!("{e}"));
    let addr = bound.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let stop = bound.shutdown_handle();
    let done = std::thread::spawn(move || bound.run(Duration::from_secs(5)));
    Running {
        addr,
        stop,
        done: Some(done),
        reached,
        cancelled,
    }
}

/// One raw HTTP/1.1 exchange: (status, headers in lower case, body).
fn exchange(addr: SocketAddr, request: &[u8]) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("{e}"));
    let _ = s.set_read_timeout(Some(PATIENCE));
    let _ = s.write_all(request);
    let mut r = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    let mut body = String::new();
    if let Some(len) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|l| l.trim().parse::<usize>().ok())
    {
        let mut b = vec![0; len];
        let _ = r.read_exact(&mut b);
        body = String::from_utf8_lossy(&b).into_owned();
    } else if head.contains("transfer-encoding: chunked") {
        loop {
            let mut size = String::new();
            let _ = r.read_line(&mut size);
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            let _ = r.read_exact(&mut chunk);
            body.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    } else {
        let _ = r.read_to_string(&mut body);
    }
    (status, head, body)
}

fn post(body: &Value, headers: &str) -> Vec<u8> {
    let b = body.to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n{b}",
        b.len()
    )
    .into_bytes()
}

fn call(tool: &str, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}, "_meta": meta}})
}

fn bearer() -> String {
    format!("Authorization: Bearer {TOKEN}\r\n")
}

#[test]
fn progress_comes_as_sse_in_order_before_the_result() {
    let r = start(None);
    let (status, head, body) = exchange(
        r.addr,
        &post(&call("work", json!({"progressToken": "p"})), ""),
    );
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let events: Vec<Value> = body
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("event: message\ndata: "))
        .map(|d| serde_json::from_str(d).unwrap_or(Value::Null))
        .collect();
    assert_eq!(events.len(), 4, "{body}");
    for (i, e) in events[..3].iter().enumerate() {
        assert_eq!(e["method"], "notifications/progress");
        assert_eq!(e["params"]["progress"], json!((i + 1) as f64));
    }
    assert_eq!(events[3]["id"], 1);
    assert_eq!(events[3]["result"]["structuredContent"]["done"], true);
    // Without a progress token: one JSON response.
    let (status, head, body) = exchange(r.addr, &post(&call("work", json!({})), ""));
    assert_eq!(status, 200);
    assert!(head.contains("content-type: application/json"));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap_or_default()["id"],
        1
    );
}

#[test]
fn refusals_reach_no_tool() {
    let r = start(Some(Auth::token(TOKEN)));
    let req = call("work", json!({}));
    let (status, head, body) = exchange(r.addr, &post(&req, ""));
    assert_eq!(status, 401);
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    let (status, _, body2) = exchange(
        r.addr,
        &post(&req, "Authorization: Bearer not-the-token\r\n"),
    );
    assert_eq!(status, 401);
    assert!(!body.contains(TOKEN) && !body2.contains("not-the-token"));
    let (status, _, _) = exchange(
        r.addr,
        &post(
            &req,
            &format!("{}Origin: http://evil.example\r\n", bearer()),
        ),
    );
    assert_eq!(status, 403);
    assert_eq!(
        r.reached.load(Ordering::SeqCst),
        0,
        "no refused request reached the tool"
    );
    let (status, _, _) = exchange(r.addr, &post(&req, &bearer()));
    assert_eq!(status, 200);
    assert_eq!(r.reached.load(Ordering::SeqCst), 1);
}

#[test]
fn an_oversized_body_gets_413_and_the_server_goes_on() {
    let r = start(None);
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "work", "arguments": {"x": "y".repeat(4000)}}});
    let (status, _, _) = exchange(r.addr, &post(&big, ""));
    assert_eq!(status, 413);
    let (status, _, _) = exchange(r.addr, &post(&call("work", json!({})), ""));
    assert_eq!(status, 200);
    let huge = b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{}";
    assert_eq!(exchange(r.addr, huge).0, 413);
    let (status, _, _) = exchange(r.addr, &post(&call("work", json!({})), ""));
    assert_eq!(status, 200);
}

#[test]
fn a_token_can_carry_a_lower_tier() {
    let dir = std::env::temp_dir().join(format!("toolgen-http-tokens-{}", std::process::id()));
    let _ = std::fs::write(
        &dir,
        format!("# tokens\n{TOKEN} core\nanother-token-0123456789 tier1\n"),
    );
    let auth = Auth::token_from_file(&dir).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&dir);
    let r = start(Some(auth));
    let (_, _, body) = exchange(r.addr, &post(&call("pro", json!({})), &bearer()));
    let v: Value = serde_json::from_str(&body).unwrap_or_default();
    assert_eq!(v["result"]["isError"], true, "{body}");
    assert_eq!(v["result"]["_meta"]["error"]["code"], -32005);
    let (_, _, body) = exchange(
        r.addr,
        &post(
            &call("pro", json!({})),
            "Authorization: Bearer another-token-0123456789\r\n",
        ),
    );
    let v: Value = serde_json::from_str(&body).unwrap_or_default();
    assert_eq!(v["result"]["structuredContent"]["pro"], true, "{body}");
    // Short tokens are refused when read.
    let short = std::env::temp_dir().join(format!("toolgen-http-short-{}", std::process::id()));
    let _ = std::fs::write(&short, "short\n");
    assert!(Auth::token_from_file(&short).is_err_and(|e| e.to_string().contains("16 characters")));
    let _ = std::fs::remove_file(&short);
}

#[test]
fn a_client_that_leaves_cancels_its_call() {
    let r = start(None);
    let mut s = TcpStream::connect(r.addr).unwrap_or_else(|e| panic!("{e}"));
    let _ = s.write_all(&post(&call("waits", json!({})), ""));
    std::thread::sleep(Duration::from_millis(100));
    drop(s);
    assert!(
        r.cancelled.recv_timeout(PATIENCE).is_ok(),
        "the handler saw the cancel"
    );
}

#[test]
fn a_public_address_needs_authentication() {
    let server = Arc::new(Server::new(ServerInfo::new("t", "1"), &["core"], "core"));
    let options = HttpOptions {
        address: SocketAddr::from(([0, 0, 0, 0], 0)),
        ..HttpOptions::default()
    };
    let e = HttpServer::bind(server, options).err();
    assert!(e.is_some_and(|e| e.to_string().contains("without authentication")));
}

#[test]
fn a_session_hears_of_tool_changes_on_its_stream() {
    let server = Arc::new(
        Server::new(ServerInfo::new("t", "1"), &["core"], "core")
            .tool(
                descriptor("first", "core"),
                Arc::new(|_, _| Ok(ToolOutput::new(json!({})))),
            )
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let options = HttpOptions {
        address: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..HttpOptions::default()
    };
    let bound = HttpServer::bind(server.clone(), options).unwrap_or_else(|e| panic!("{e}"));
    let addr = bound.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let stop = bound.shutdown_handle();
    let done = std::thread::spawn(move || bound.run(Duration::from_secs(5)));
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let (status, head, _) = exchange(addr, &post(&init, ""));
    assert_eq!(status, 200);
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    assert_eq!(session.len(), 32, "{head}");
    // Open the session's stream, then change the tools.
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("{e}"));
    let _ = s.set_read_timeout(Some(PATIENCE));
    let _ = s.write_all(
        format!("GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n").as_bytes(),
    );
    let mut r = BufReader::new(s);
    let mut line = String::new();
    while r.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
        line.clear();
    }
    let _ = server.add_tool(
        descriptor("second", "core"),
        Arc::new(|_, _| Ok(ToolOutput::new(json!({})))),
    );
    let mut seen = String::new();
    while !seen.contains("list_changed") {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        seen.push_str(&line);
    }
    assert!(seen.contains("notifications/tools/list_changed"), "{seen}");
    stop.shutdown();
    let _ = done.join();
}
