//! The server on the wire: both dialects, every error code, and bad input,
//! after each of which the server keeps serving.

use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolgen_runtime::{
    ErrorCode, Execution, Server, ServerInfo, Session, ToolDescriptor, ToolError, ToolOutput,
};

fn descriptor(id: &str, tier: &str, timeout_ms: u64, input: Value) -> ToolDescriptor {
    ToolDescriptor {
        id: id.to_owned(),
        name: format!("Tool {id}"),
        description: format!("The {id} tool."),
        category: if id.starts_with("scene") {
            "scene".to_owned()
        } else {
            "project".to_owned()
        },
        safety_level: if id == "go.move" {
            "safe-write".to_owned()
        } else {
            "read-only".to_owned()
        },
        tier: tier.to_owned(),
        input_schema: input,
        output_schema: Some(json!({"type": "object"})),
        timeout: Some(Duration::from_millis(timeout_ms)),
        requires_approval: false,
        notes: None,
        entry: None,
    }
}

fn server() -> Server {
    let info = ServerInfo {
        name: "test-server".to_owned(),
        version: "0.1.0".to_owned(),
        extra: Map::new(),
    };
    let object = json!({"type": "object", "additionalProperties": false});
    let echo_schema = json!({
        "type": "object",
        "properties": {"scenePath": {"type": "string"}, "depth": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["scenePath"],
        "additionalProperties": false
    });
    let handler =
        |f: fn(Map<String, Value>) -> Result<ToolOutput, ToolError>| -> toolgen_runtime::Handler {
            Arc::new(move |_call, a| f(a))
        };
    Server::new(info, &["core", "tier1", "tier2"], "tier1")
        .tool(
            descriptor("scene.echo", "core", 1000, echo_schema),
            handler(|a| {
                let mut out = ToolOutput::new(json!({"zeta": 1, "alpha": a}));
                if a.contains_key("depth") {
                    out.diagnostics.push("depth limited".to_owned());
                }
                Ok(out)
            }),
        )
        .and_then(|s| {
            s.tool(
                descriptor("project.slow", "core", 50, object.clone()),
                handler(|_| {
                    std::thread::sleep(Duration::from_millis(400));
                    Ok(ToolOutput::new(json!({})))
                }),
            )
        })
        .and_then(|s| {
            s.tool(
                descriptor("project.panics", "core", 1000, object.clone()),
                handler(|_| panic!("boom")),
            )
        })
        .and_then(|s| {
            s.tool(
                descriptor("project.unity", "core", 1000, object.clone()),
                handler(|_| {
                    Err(ToolError::unity("Unity Editor error: Scene file not found")
                        .detail("scenePath", "Assets/Missing.unity"))
                }),
            )
        })
        .and_then(|s| {
            s.tool(
                descriptor("project.fails", "core", 1000, object.clone()),
                handler(|_| Err(ToolError::execution("Tool execution failed"))),
            )
        })
        .and_then(|s| {
            s.tool(
                descriptor("project.pro", "tier2", 1000, object.clone()),
                handler(|_| Ok(ToolOutput::new(json!({})))),
            )
        })
        .unwrap_or_else(|e| panic!("{e}"))
}

fn send(server: &Server, session: &mut Session, request: &str) -> Value {
    let out = server
        .handle(session, request.as_bytes())
        .unwrap_or_else(|| panic!("no response to {request}"));
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("response is not JSON: {e}"))
}

fn call(server: &Server, tool: &str, args: Value) -> Value {
    let req = json!({"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": {"tool": tool, "arguments": args}});
    send(server, &mut Session::default(), &req.to_string())
}

fn code(v: &Value) -> i64 {
    v["error"]["code"].as_i64().unwrap_or(0)
}

#[test]
fn editormcp_success_with_diagnostics_and_sorted_keys() {
    let s = server();
    let raw = s
        .handle(&mut Session::default(), br#"{"jsonrpc":"2.0","id":"req-001","method":"tools/call","params":{"tool":"scene.echo","arguments":{"scenePath":"Assets/Main.unity","depth":2}}}"#)
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.ends_with('\n'));
    let v: Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(v["id"], "req-001");
    assert_eq!(v["result"]["tool"], "scene.echo");
    assert_eq!(v["result"]["output"]["alpha"]["depth"], 2);
    assert_eq!(v["result"]["diagnostics"], json!(["depth limited"]));
    assert!(
        text.find("\"alpha\"") < text.find("\"zeta\""),
        "keys are sorted: {text}"
    );
}

#[test]
fn every_error_code() {
    let s = server();
    let mut session = Session::default();
    let cases: Vec<(&str, i64)> = vec![
        ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ", -32700),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#, -32601),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}"#,
            -32602,
        ),
    ];
    for (req, expected) in cases {
        assert_eq!(code(&send(&s, &mut session, req)), expected, "{req}");
    }
    assert_eq!(code(&call(&s, "project.fails", json!({}))), -32000);
    let not_found = call(&s, "invalid.tool.id", json!({}));
    assert_eq!(code(&not_found), -32001);
    assert_eq!(not_found["error"]["data"]["errorType"], "not_found");
    let invalid = call(&s, "scene.echo", json!({"depth": 50, "extra": true}));
    assert_eq!(code(&invalid), -32002);
    assert_eq!(
        invalid["error"]["message"],
        "Invalid tool arguments: scenePath is required"
    );
    assert_eq!(
        invalid["error"]["data"]["details"]["missingParameters"],
        json!(["scenePath"])
    );
    assert_eq!(
        invalid["error"]["data"]["details"]["violations"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "every violation: {invalid}"
    );
    let slow = call(&s, "project.slow", json!({}));
    assert_eq!(code(&slow), -32003);
    assert_eq!(slow["error"]["data"]["errorType"], "timeout");
    let unity = call(&s, "project.unity", json!({}));
    assert_eq!(code(&unity), -32004);
    assert_eq!(
        unity["error"]["data"]["details"]["scenePath"],
        "Assets/Missing.unity"
    );
    let pro = call(&s, "project.pro", json!({}));
    assert_eq!(code(&pro), -32005);
    assert_eq!(
        pro["error"]["data"]["details"],
        json!({"requiredTier": "tier2", "currentTier": "tier1"})
    );
    let panic = call(&s, "project.panics", json!({}));
    assert_eq!(code(&panic), -32603);
    assert_eq!(panic["error"]["data"]["details"]["panic"], "boom");
    // After a panic and a timeout, the server still serves.
    assert_eq!(
        call(&s, "scene.echo", json!({"scenePath": "a"}))["result"]["tool"],
        "scene.echo"
    );
}

#[test]
fn batches_and_notifications_are_refused_but_mcp_notifications_are_silent() {
    let s = server();
    let mut session = Session::default();
    let batch = send(
        &s,
        &mut session,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
    );
    assert_eq!(code(&batch), -32600);
    assert!(
        batch["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("batch")
    );
    let note = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","method":"tools/list"}"#,
    );
    assert_eq!(code(&note), -32600);
    assert!(
        s.handle(
            &mut session,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        )
        .is_none()
    );
}

#[test]
fn editormcp_list_describe_and_info() {
    let s = server();
    let mut session = Session::default();
    let list = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"category":"scene"}}"#,
    );
    assert_eq!(
        list["result"]["tools"],
        json!([{"id": "scene.echo", "name": "Tool scene.echo", "description": "The scene.echo tool.", "category": "scene", "safetyLevel": "read-only", "tier": "core"}])
    );
    let tier2 = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"tier":"tier2"}}"#,
    );
    assert_eq!(tier2["result"]["tools"].as_array().map(Vec::len), Some(1));
    let describe = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/describe","params":{"tool":"scene.echo"}}"#,
    );
    assert_eq!(
        describe["result"]["tool"]["inputSchema"]["required"],
        json!(["scenePath"])
    );
    let info = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":4,"method":"server/info"}"#,
    );
    assert_eq!(info["result"]["tier"], "tier1");
    assert_eq!(
        info["result"]["enabledToolCategories"],
        json!(["project", "scene"])
    );
}

#[test]
fn standard_mcp_dialect() {
    let s = server();
    let mut session = Session::default();
    for (asked, got) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut fresh = Session::default();
        let init = send(&s, &mut fresh, &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string());
        assert_eq!(init["result"]["protocolVersion"], got);
    }
    send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
    );
    assert_eq!(
        send(
            &s,
            &mut session,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        )["result"],
        json!({})
    );
    let list = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    let echo = list["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "scene.echo"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(echo["name"], "scene.echo");
    assert_eq!(echo["annotations"]["readOnlyHint"], true);
    assert!(echo["inputSchema"].is_object());
    let ok = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"scene.echo","arguments":{"scenePath":"x"}}}"#,
    );
    assert_eq!(ok["result"]["isError"], false);
    assert_eq!(ok["result"]["structuredContent"]["alpha"]["scenePath"], "x");
    let text = ok["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap_or_default(),
        ok["result"]["structuredContent"]
    );
    let bad = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"scene.echo","arguments":{}}}"#,
    );
    assert_eq!(
        bad["result"]["isError"], true,
        "tool errors are results the model can read: {bad}"
    );
    let unknown = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}"#,
    );
    assert_eq!(code(&unknown), -32602);
    // The same connection still answers the EditorMCP dialect.
    let envelope = send(
        &s,
        &mut session,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"tool":"scene.echo","arguments":{"scenePath":"y"}}}"#,
    );
    assert_eq!(envelope["result"]["output"]["alpha"]["scenePath"], "y");
}

#[test]
fn bad_input_on_the_wire_then_the_next_request_is_served() {
    let s = server().max_request_bytes(1024 * 1024);
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"a\":{}1{}}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let huge_line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(10 * 1024 * 1024)
    );
    let mut wire: Vec<u8> = Vec::new();
    let good = br#"{"jsonrpc":"2.0","id":"ok","method":"ping"}"#;
    let bad_lines: Vec<Vec<u8>> = vec![
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"meth".to_vec(),
        br#"{"jsonrpc":"3.0","id":1,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"ping"}"#.to_vec(),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}}",
            "9".repeat(400)
        )
        .into_bytes(),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}}",
            "1".repeat(30)
        )
        .into_bytes(),
        br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"yes"}"#.to_vec(),
        huge_line.into_bytes(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}".to_vec(),
        deep.into_bytes(),
    ];
    for line in &bad_lines {
        wire.extend_from_slice(line);
        wire.push(b'\n');
        wire.extend_from_slice(good);
        wire.push(b'\n');
    }
    let mut out = Vec::new();
    s.serve(Cursor::new(wire), &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    let responses: Vec<Value> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    // 400-digit id: not representable (parse error); 30-digit id: would come back
    // changed as a float (invalid request); u64::MAX: a valid id, echoed exactly.
    let expected = [
        -32700, -32600, -32600, -32700, -32600, 0, -32600, -32602, -32600, -32700, -32700,
    ];
    assert_eq!(responses.len(), 2 * expected.len(), "{responses:?}");
    for (i, want) in expected.iter().enumerate() {
        let r = &responses[2 * i];
        if *want == 0 {
            assert_eq!(
                r["result"],
                json!({}),
                "a large integer id is just an id: {r}"
            );
            assert_eq!(r["id"], json!(18446744073709551615u64));
        } else {
            assert_eq!(code(r), *want, "bad line {i}: {r}");
        }
        assert_eq!(
            responses[2 * i + 1]["id"],
            "ok",
            "the request after bad line {i} is served"
        );
    }
}

#[test]
fn error_code_values_match_the_seed() {
    assert_eq!(ErrorCode::Timeout.code(), -32003);
}

#[test]
fn inline_execution_keeps_panic_isolation_and_reports_overruns() {
    let s = server().execution(Execution::Inline);
    assert_eq!(code(&call(&s, "project.panics", json!({}))), -32603);
    assert_eq!(
        code(&call(&s, "project.slow", json!({}))),
        -32003,
        "an overrun is reported when the handler returns"
    );
    assert_eq!(
        call(&s, "scene.echo", json!({"scenePath": "a"}))["result"]["tool"],
        "scene.echo"
    );
}
