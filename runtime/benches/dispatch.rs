//! In-process `tools/call` on a small request: parse, validate the arguments,
//! run the handler (on the worker thread), serialize. `cargo bench -p toolgen-runtime`.

use std::sync::Arc;
use std::time::Duration;

use divan::Bencher;
use serde_json::{Map, json};
use toolgen_runtime::{Execution, Server, ServerInfo, Session, ToolDescriptor, ToolOutput};

fn main() {
    divan::main();
}

fn server() -> Server {
    let info = ServerInfo {
        name: "bench".to_owned(),
        version: "0".to_owned(),
        extra: Map::new(),
    };
    let d = ToolDescriptor {
        id: "scene.objects.count".to_owned(),
        name: "Count Scene Objects".to_owned(),
        description: "Counts.".to_owned(),
        category: "scene".to_owned(),
        safety_level: "read-only".to_owned(),
        tier: "core".to_owned(),
        input_schema: json!({"type": "object", "properties": {"scenePath": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}, "required": ["scenePath"], "additionalProperties": false}),
        output_schema: None,
        timeout: Some(Duration::from_secs(30)),
        requires_approval: false,
        notes: None,
        entry: None,
    };
    Server::new(info, &["core"], "core")
        .tool(
            d,
            Arc::new(|_call, a| {
                Ok(ToolOutput::new(
                    json!({"count": a.len(), "scenePath": a["scenePath"]}),
                ))
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"))
}

const ENVELOPE: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"tool":"scene.objects.count","arguments":{"scenePath":"Assets/Scenes/Main.unity","limit":10}}}"#;
const MCP: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"scene.objects.count","arguments":{"scenePath":"Assets/Scenes/Main.unity","limit":10}}}"#;

#[divan::bench(sample_count = 200, sample_size = 200)]
fn editormcp_envelope_call(bencher: Bencher) {
    let s = server();
    let mut session = Session::default();
    bencher.bench_local(|| s.handle(&mut session, divan::black_box(ENVELOPE)));
}

#[divan::bench(sample_count = 200, sample_size = 200)]
fn mcp_call(bencher: Bencher) {
    let s = server();
    let mut session = Session::default();
    bencher.bench_local(|| s.handle(&mut session, divan::black_box(MCP)));
}

#[divan::bench(sample_count = 200, sample_size = 200)]
fn editormcp_envelope_call_inline(bencher: Bencher) {
    let s = server().execution(Execution::Inline);
    let mut session = Session::default();
    bencher.bench_local(|| s.handle(&mut session, divan::black_box(ENVELOPE)));
}

#[divan::bench(sample_count = 200, sample_size = 200)]
fn mcp_call_inline(bencher: Bencher) {
    let s = server().execution(Execution::Inline);
    let mut session = Session::default();
    bencher.bench_local(|| s.handle(&mut session, divan::black_box(MCP)));
}
