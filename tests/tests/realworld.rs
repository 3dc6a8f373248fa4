//! The Rust generated from `tests/fixtures/mcp-realworld` (real-world-shaped
//! MCP tools, checked in under `tests/generated-realworld/` by `cargo xtask
//! gen`) compiles here, and says what the specs say:
//! - an optional property that allows `null` keeps absent, `null` and a value
//!   apart, each round-tripping byte for byte; a required nullable one too;
//! - `2.0` for an integer (as Python's `json` writes it) is accepted;
//! - every tool is called through the generated dispatch with each of its
//!   spec examples and answers the example's output;
//! - a server built from the generated table lists every field of each spec
//!   (`title`, `icons`, `execution`, `_meta` keys of other programs, every
//!   annotation), as the generated catalog does.

// typify's default helpers unwrap constants it has checked (`NonZeroU64` of 50).
#[path = "../generated-realworld/rust/src/lib.rs"]
#[allow(
    unused_imports,
    unused_qualifications,
    unreachable_pub,
    clippy::unwrap_used
)]
mod generated;

use generated::realworld::{self, RealworldTools};
use serde_json::{Value, json};
use toolgen_runtime::{Call, Nullable, ToolError};
use toolgen_tests::{root, same_json};

/// The spec examples of a tool (`_meta.toolgen.examples`).
fn examples(id: &str) -> Vec<Value> {
    let path = root().join(format!("tests/fixtures/mcp-realworld/{id}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let spec: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    spec["_meta"]["toolgen"]["examples"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Answers a call with the output of the example whose input it received:
/// every argument of the example is in the typed input with its value.
struct Examples;

fn answer<I: serde::Serialize, O: serde::de::DeserializeOwned>(
    id: &str,
    input: &I,
) -> Result<O, ToolError> {
    let got = serde_json::to_value(input).unwrap_or_default();
    let example = examples(id).into_iter().find(|e| {
        e["input"]
            .as_object()
            .into_iter()
            .flatten()
            .all(|(k, v)| got.get(k).is_some_and(|g| same_json(g, v)))
    });
    let example =
        example.ok_or_else(|| ToolError::execution(format!("{id}: no example has {got}")))?;
    serde_json::from_value(example["output"].clone())
        .map_err(|e| ToolError::execution(format!("{id}: {e}")))
}

impl RealworldTools for Examples {
    fn count_words(
        &self,
        _: &mut Call,
        input: realworld::count_words::Input,
    ) -> Result<realworld::count_words::Output, ToolError> {
        answer("count_words", &input)
    }

    fn draw_shape(
        &self,
        _: &mut Call,
        input: realworld::draw_shape::Input,
    ) -> Result<realworld::draw_shape::Output, ToolError> {
        answer("draw_shape", &input)
    }

    fn search_files(
        &self,
        _: &mut Call,
        input: realworld::search_files::Input,
    ) -> Result<realworld::search_files::Output, ToolError> {
        answer("search_files", &input)
    }

    fn set_value(
        &self,
        _: &mut Call,
        input: realworld::set_value::Input,
    ) -> Result<realworld::set_value::Output, ToolError> {
        answer("set_value", &input)
    }

    fn update_issue(
        &self,
        _: &mut Call,
        input: realworld::update_issue::Input,
    ) -> Result<realworld::update_issue::Output, ToolError> {
        answer("update_issue", &input)
    }
}

/// Absent, `null` and a value, each read and written back byte for byte.
#[test]
fn absent_null_and_value_round_trip_exactly() {
    use realworld::update_issue::{Input, Output};
    let base = r#""owner":"octo","repo":"demo","issue_number":7"#;
    let inputs = [
        format!(r#"{{{base},"state_reason":null}}"#),
        format!(r#"{{{base},"body":null,"state_reason":null}}"#),
        format!(r#"{{{base},"body":"text","state_reason":"completed"}}"#),
        format!(r#"{{{base},"milestone":null,"labels":null,"state_reason":null}}"#),
        format!(r#"{{{base},"milestone":3,"labels":["bug"],"state_reason":"reopened"}}"#),
    ];
    for text in &inputs {
        let input: Input = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(serde_json::to_string(&input).unwrap_or_default(), *text);
    }
    let cleared: Input = serde_json::from_str(&inputs[1]).unwrap_or_else(|e| panic!("{e}"));
    assert!(cleared.body.is_null() && cleared.milestone.is_absent());
    let set: Input = serde_json::from_str(&inputs[2]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(set.body, Nullable::Value("text".to_owned()));
    // A required nullable property must be there, `null` or not.
    let missing = format!("{{{base}}}");
    assert!(serde_json::from_str::<Input>(&missing).is_err());
    for text in [
        r#"{"number":8,"url":"u","body":null,"closed_at":null}"#,
        r#"{"number":8,"url":"u","closed_at":"2026-11-26"}"#,
    ] {
        let output: Output = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(serde_json::to_string(&output).unwrap_or_default(), text);
    }
}

/// Every tool is called through `dispatch` with each of its examples.
#[test]
fn every_tool_answers_each_example() {
    for info in realworld::TOOLS {
        let cases = examples(info.id);
        assert!(!cases.is_empty(), "{} has no examples", info.id);
        for case in cases {
            let out = realworld::dispatch(&Examples, info.id, case["input"].clone())
                .unwrap_or_else(|e| panic!("{}: {e:?}", info.id));
            assert!(
                same_json(&out.output(), &case["output"]),
                "{}: {} for {}",
                info.id,
                out.output(),
                case["output"]
            );
        }
    }
}

/// `{"limit": 2.0}` is an integer to JSON Schema and to the generated types.
#[test]
fn whole_floats_are_integers() {
    let out = realworld::dispatch(
        &Examples,
        "count_words",
        json!({"text": "a b c d", "limit": 2.0}),
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(out.output(), json!(2));
}

/// `tools/list` from the generated table is the catalog, field for field.
#[test]
fn the_server_lists_what_the_specs_say() {
    let path = root().join("tests/generated-realworld/catalog/realworld/tools.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let catalog: Value = serde_json::from_str(&text).unwrap_or_default();
    let listed: Vec<Value> = realworld::TOOLS
        .iter()
        .map(|i| toolgen_runtime::server::mcp_tool(&i.descriptor()))
        .collect();
    assert_eq!(Value::Array(listed.clone()), catalog["tools"]);
    let by_name = |n: &str| listed.iter().find(|t| t["name"] == n).cloned();
    let issue = by_name("update_issue").unwrap_or_default();
    assert_eq!(issue["title"], "Update Issue");
    assert_eq!(issue["icons"][0]["mimeType"], "image/svg+xml");
    assert_eq!(
        issue["_meta"]["io.modelcontextprotocol/ui"]["visibility"],
        json!(["model", "app"])
    );
    assert_eq!(issue["annotations"]["openWorldHint"], true);
    assert_eq!(issue["_meta"]["toolgen"]["category"], "issues");
    let count = by_name("count_words").unwrap_or_default();
    assert!(
        count.get("title").is_none(),
        "no title is invented: {count}"
    );
    assert!(count.get("annotations").is_none(), "no hints are invented");
    assert_eq!(count["execution"], json!({"taskSupport": "optional"}));
    // An integer output is published as the `result` of an object.
    assert_eq!(
        count["outputSchema"]["properties"]["result"]["type"],
        "integer"
    );
    assert_eq!(
        by_name("set_value").unwrap_or_default()["_meta"]["com.example/store"],
        json!({"namespace": "demo"})
    );
}

/// Through a server, over MCP: an integer output goes out as structured
/// content `{"result": n}` (MCP wants an object) and as text.
#[test]
fn non_object_outputs_go_out_wrapped() {
    use std::sync::Arc;
    use toolgen_runtime::{Execution, Server, ServerInfo, Session};
    let info = ServerInfo {
        name: "realworld".to_owned(),
        version: "0".to_owned(),
        extra: serde_json::Map::new(),
    };
    let server = Server::new(info, realworld::TIERS, "core").execution(Execution::Inline);
    let server = realworld::register(server, Arc::new(Examples)).unwrap_or_else(|e| panic!("{e}"));
    let mut session = Session::default();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}});
    server.handle(&mut session, init.to_string().as_bytes());
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "count_words", "arguments": {"text": "one two three"}}});
    let line = server
        .handle(&mut session, call.to_string().as_bytes())
        .unwrap_or_default();
    let response: Value = serde_json::from_slice(&line).unwrap_or_default();
    assert_eq!(
        response["result"]["structuredContent"],
        json!({"result": 3}),
        "{response}"
    );
    assert_eq!(response["result"]["content"][0]["text"], "3");
}
