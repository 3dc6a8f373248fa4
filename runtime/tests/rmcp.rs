//! A server served by rmcp, the official Rust SDK (`server::rmcp::Served`),
//! driven with raw JSON-RPC lines over an in-memory pipe: the listing, a
//! call's progress and log messages before its result at the level the
//! client set, arguments refused as a tool error naming every violation, an
//! unknown tool as a protocol error, a question to the user answered by the
//! client, and a cancel that reaches the handler. The conformance suite and
//! the SDKs' clients cover the rest (`cargo xtask conformance`).
#![cfg(all(feature = "rmcp", feature = "http"))]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::ServiceExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};
use tokio::io::{WriteHalf, split};
use toolgen_runtime::server::rmcp::Served;
use toolgen_runtime::server::{Elicited, mcp_tool};
use toolgen_runtime::{Handler, LogLevel, Server, ServerInfo, ToolOutput};

/// Long enough never to be reached when things work.
const PATIENCE: Duration = Duration::from_secs(20);

/// `echo` (an integer `n` up to 5; progress, then an info and a warning
/// log message), `wait` (until cancelled, which it records) and `ask` (a
/// form for a name).
fn server(cancelled: Arc<AtomicBool>) -> Server {
    let echo: Handler = Arc::new(|call, args| {
        call.progress(1.0, Some(2.0), Some("half"));
        call.log(LogLevel::Info, "an info message");
        call.log(LogLevel::Warning, "a warning");
        Ok(ToolOutput::new(json!({"n": args["n"]})))
    });
    let wait: Handler = Arc::new(move |call, _| {
        let started = std::time::Instant::now();
        while !call.is_cancelled() && started.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(5));
        }
        cancelled.store(call.is_cancelled(), Ordering::SeqCst);
        Ok(ToolOutput::new(json!({})))
    });
    let ask: Handler = Arc::new(|call, _| {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        match call.elicit("Your name?", schema, PATIENCE) {
            Elicited::Accepted(content) => Ok(ToolOutput::new(content)),
            other => Err(toolgen_runtime::ToolError::execution(format!("{other:?}"))),
        }
    });
    let small = json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}},
        "required": ["n"], "additionalProperties": false});
    Server::new(ServerInfo::new("rmcp-test", "1.0.0"), &["core"], "core")
        .tool(common::descriptor("echo", small), echo)
        .and_then(|s| s.tool(common::descriptor("wait", json!({"type": "object"})), wait))
        .and_then(|s| s.tool(common::descriptor("ask", json!({"type": "object"})), ask))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The client's end of a connection to a [`Served`] server.
struct Wire {
    write: WriteHalf<DuplexStream>,
    read: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Wire {
    /// Serves `server` and says `initialize` (with the elicitation capability).
    async fn open(server: Server) -> Wire {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = Served::new(server).serve(theirs).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = split(ours);
        let mut wire = Wire {
            write,
            read: BufReader::new(read).lines(),
        };
        wire.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        )
        .await;
        let init = wire.until_response(0).await.0;
        assert_eq!(init["result"]["serverInfo"]["name"], "rmcp-test", "{init}");
        wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        wire
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        let sent = self.write.write_all(line.as_bytes()).await;
        sent.unwrap_or_else(|e| panic!("{e}"));
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.read.next_line()).await;
        match line {
            Ok(Ok(Some(line))) => serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}")),
            other => panic!("no message from the server: {other:?}"),
        }
    }

    /// The response to request `id`, and every message before it.
    async fn until_response(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let m = self.next().await;
            if m["id"] == id && m.get("method").is_none() {
                return (m, before);
            }
            before.push(m);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_server_lists_and_calls_as_toolgen_does() {
    let server = server(Arc::default());
    let listed: Vec<Value> = server.descriptors().iter().map(mcp_tool).collect();
    let mut wire = Wire::open(server).await;
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let tools = wire.until_response(1).await.0;
    assert_eq!(tools["result"]["tools"], json!(listed), "{tools}");

    wire.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
        "params": {"level": "warning"}}),
    )
    .await;
    assert_eq!(wire.until_response(2).await.0["result"], json!({}));
    wire.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"n": 2}, "_meta": {"progressToken": "p"}}}),
    )
    .await;
    let (answer, before) = wire.until_response(3).await;
    let result = &answer["result"];
    assert_eq!(result["structuredContent"], json!({"n": 2}), "{answer}");
    assert_eq!(
        result["content"][0]["text"], r#"{"n":2}"#,
        "the text mirror"
    );
    let methods: Vec<&Value> = before.iter().map(|m| &m["method"]).collect();
    assert_eq!(
        methods,
        ["notifications/progress", "notifications/message"],
        "progress, then the warning (the info is below the level set): {before:?}"
    );
    assert_eq!(before[0]["params"]["progressToken"], "p");
    assert_eq!(before[1]["params"]["data"], "a warning");

    wire.send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"n": 9, "m": 1}}}),
    )
    .await;
    let refused = wire.until_response(4).await.0;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let violations = &refused["result"]["_meta"]["error"]["data"]["details"]["violations"];
    let paths: Vec<&Value> = violations
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| &v["path"])
        .collect();
    assert_eq!(
        paths,
        ["/n", ""],
        "every violation by JSON pointer: {refused}"
    );

    wire.send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "nothing", "arguments": {}}}),
    )
    .await;
    let unknown = wire.until_response(5).await.0;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_goes_to_the_client_and_a_cancel_to_the_handler() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let mut wire = Wire::open(server(cancelled.clone())).await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "ask", "arguments": {}}}),
    )
    .await;
    let question = wire.next().await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["message"], "Your name?");
    wire.send(json!({"jsonrpc": "2.0", "id": question["id"], "result": {
        "action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let answer = wire.until_response(1).await.0;
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"name": "Ada"}),
        "{answer}"
    );

    wire.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "wait", "arguments": {}}}),
    )
    .await;
    wire.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "enough"}}),
    )
    .await;
    let started = std::time::Instant::now();
    while !cancelled.load(Ordering::SeqCst) && started.elapsed() < PATIENCE {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the handler saw the cancel"
    );
}
