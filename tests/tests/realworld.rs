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

macro_rules! examples_impl {
    ($($method:ident => $id:literal),* $(,)?) => {
        impl RealworldTools for Examples {
            $(fn $method(
                &self,
                _: &mut Call,
                input: realworld::$method::Input,
            ) -> Result<realworld::$method::Output, ToolError> {
                answer($id, &input)
            })*
        }
    };
}

// The tools by hand: `for_each_realworld_tool!` is exported from a module
// included by path, which this crate cannot name.
examples_impl! {
    add_note => "add_note", close_task => "close_task", count_words => "count_words",
    create_task => "create_task", delete_note => "delete_note", draw_shape => "draw_shape",
    git_status => "git_status", move_note => "move_note", open_target => "open_target", read_resource => "read_resource",
    search_files => "search_files", search_notes => "search_notes", set_value => "set_value",
    update_issue => "update_issue",
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
    let mut with_examples = 0;
    // Tools saved as real servers list them have no toolgen examples.
    for info in realworld::TOOLS {
        let cases = examples(info.id);
        with_examples += usize::from(!cases.is_empty());
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
    assert!(with_examples >= 5, "{with_examples} tools have examples");
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

/// The generated `router` as rmcp routes lists every tool as the catalog
/// does, member for member, but `execution`: rmcp's `Tool` has no such member
/// (docs/decisions.md).
#[test]
fn an_rmcp_router_lists_what_the_specs_say_but_execution() {
    use std::sync::Arc;
    let path = root().join("tests/generated-realworld/catalog/realworld/tools.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let catalog: Value = serde_json::from_str(&text).unwrap_or_default();
    let router: rmcp::handler::server::router::tool::ToolRouter<()> =
        realworld::router(Arc::new(Examples)).unwrap_or_else(|e| panic!("{e}"));
    let listed: Vec<Value> = router
        .list_all()
        .iter()
        .map(|t| serde_json::to_value(t).unwrap_or_default())
        .collect();
    let mut expected = catalog["tools"].as_array().cloned().unwrap_or_default();
    let mut dropped = 0;
    for t in &mut expected {
        dropped += usize::from(
            t.as_object_mut()
                .and_then(|t| t.remove("execution"))
                .is_some(),
        );
    }
    assert_eq!(dropped, 5, "five tools say how they run as tasks");
    // rmcp lists tools by name; the catalog by id, here the same order.
    assert_eq!(Value::Array(listed), Value::Array(expected));
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

/// JSON text as one line with every object's members in the order written
/// (toolgen's parser keeps them; a `serde_json::Value` would sort them),
/// leaving out `_meta.toolgen` (toolgen's own metadata, which the catalog
/// writes its own way) and a `_meta` that holds nothing else.
fn in_order(text: &str) -> String {
    in_order_but(text, &[])
}

/// [`in_order`], leaving out the top-level members `skip` too.
fn in_order_but(text: &str, skip: &[&str]) -> String {
    use toolgen::syntax::{Node, NodeKind};
    fn write(n: &Node, top: Option<&[&str]>, out: &mut String) {
        let skip = top.unwrap_or_default();
        let top = top.is_some();
        match &n.kind {
            NodeKind::Object(members) => {
                out.push('{');
                let mut first = true;
                for m in members {
                    let meta_only = |v: &Node| match &v.kind {
                        NodeKind::Object(ms) => ms.iter().all(|m| m.key == "toolgen"),
                        _ => false,
                    };
                    if top
                        && (m.key == "$schema"
                            || skip.contains(&m.key.as_str())
                            || (m.key == "_meta" && meta_only(&m.value)))
                    {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&serde_json::to_string(&m.key).unwrap_or_default());
                    out.push(':');
                    if top && m.key == "_meta" {
                        let NodeKind::Object(ms) = &m.value.kind else {
                            continue;
                        };
                        let kept = ms.iter().filter(|m| m.key != "toolgen").cloned();
                        let kept = Node {
                            kind: NodeKind::Object(kept.collect()),
                            span: m.value.span,
                        };
                        write(&kept, None, out);
                    } else {
                        write(&m.value, None, out);
                    }
                }
                out.push('}');
            }
            NodeKind::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, None, out);
                }
                out.push(']');
            }
            _ => out.push_str(&n.to_json().to_string()),
        }
    }
    let parsed = toolgen::syntax::json::parse(toolgen::source::FileId(0), text);
    let root = parsed
        .root
        .unwrap_or_else(|| panic!("not JSON: {:?}", parsed.diagnostics));
    let mut out = String::new();
    write(&root, Some(skip), &mut out);
    out
}

/// The member `key` of an object written as JSON text, as text.
fn member(text: &str, key: &str) -> Option<String> {
    let parsed = toolgen::syntax::json::parse(toolgen::source::FileId(0), text);
    let root = parsed.root?;
    let value = root.get(key)?;
    let span = value.span;
    text.get(span.start as usize..span.end as usize)
        .map(str::to_owned)
}

/// Each entry of a `{"tools": [..]}` text, as text.
fn entries(text: &str) -> Vec<String> {
    let parsed = toolgen::syntax::json::parse(toolgen::source::FileId(0), text);
    let Some(root) = parsed.root else {
        return Vec::new();
    };
    let Some(toolgen::syntax::NodeKind::Array(tools)) = root.get("tools").map(|t| &t.kind) else {
        return Vec::new();
    };
    tools
        .iter()
        .filter_map(|t| text.get(t.span.start as usize..t.span.end as usize))
        .map(str::to_owned)
        .collect()
}

fn read(path: &str) -> String {
    let path = root().join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The catalog lists every tool as its spec wrote it: key for key, in the
/// same order, `$schema`s and `title`s as written, nothing added (but
/// toolgen's own `_meta.toolgen`); each per-tool schema file is its entry's
/// schema; and a server built from the generated table lists the same text.
#[test]
fn every_tool_is_listed_as_written() {
    let catalog = read("tests/generated-realworld/catalog/realworld/tools.json");
    let listed = entries(&catalog);
    assert_eq!(listed.len(), realworld::TOOLS.len());
    for (entry, info) in listed.iter().zip(realworld::TOOLS) {
        let id = info.id;
        let spec = read(&format!("tests/fixtures/mcp-realworld/{id}.json"));
        // MCP wants an object's output schema: any other is listed as the
        // `result` of one (checked below), the rest as written.
        let wrapped = info
            .output_schema
            .and_then(|o| serde_json::from_str::<Value>(o).ok())
            .is_some_and(|o| toolgen::testing::wraps_output(&o));
        let skip: &[&str] = if wrapped { &["outputSchema"] } else { &[] };
        assert_eq!(
            in_order_but(entry, skip),
            in_order_but(&spec, skip),
            "{id}: the catalog entry"
        );
        for (side, key) in [("input", "inputSchema"), ("output", "outputSchema")] {
            let path =
                format!("tests/generated-realworld/catalog/realworld/schemas/{id}.{side}.json");
            let (Ok(file), Some(published)) = (
                std::fs::read_to_string(root().join(&path)),
                member(entry, key),
            ) else {
                continue;
            };
            // A schema that is not an object's is listed as the `result` of one.
            let written = member(&spec, key).unwrap_or_default();
            if in_order(&published) == in_order(&written) {
                assert_eq!(in_order(&file), in_order(&published), "{path}");
            } else {
                assert_eq!(in_order(&file), in_order(&written), "{path}");
            }
        }
    }
    assert!(catalog.contains("\"$schema\": \"http://json-schema.org/draft-07/schema#\""));

    // Over MCP, page by page: each entry as the catalog has it, in its order.
    use std::sync::Arc;
    use toolgen_runtime::{Server, ServerInfo, Session};
    let info = ServerInfo::new("realworld", "0");
    let server = realworld::register(
        Server::new(info, realworld::TIERS, "core"),
        Arc::new(Examples),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let server = server.page_size(5);
    let mut session = Session::default();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}});
    server.handle(&mut session, init.to_string().as_bytes());
    let mut served = Vec::new();
    let mut cursor = Value::Null;
    for n in 1.. {
        let list = json!({"jsonrpc": "2.0", "id": n, "method": "tools/list", "params": {"cursor": cursor}});
        let line = server
            .handle(&mut session, list.to_string().as_bytes())
            .unwrap_or_default();
        let text = String::from_utf8(line).unwrap_or_default();
        let result = member(&text, "result").unwrap_or_default();
        served.extend(entries(&result));
        match member(&result, "nextCursor") {
            Some(c) => cursor = serde_json::from_str(&c).unwrap_or_default(),
            None => break,
        }
    }
    let served: Vec<String> = served.iter().map(|t| in_order(t)).collect();
    let catalog: Vec<String> = listed.iter().map(|t| in_order(t)).collect();
    assert_eq!(served, catalog);
}

/// A `const` property is checked by construction: pydantic's `TextPart`
/// and `LinkPart` (told apart by `"type": {"const": ..}`) each hold a type
/// of one value, and a union of them reads each by its own tag.
#[test]
fn const_properties_hold_their_one_value() {
    use realworld::defs::{LinkPart, LinkPartType, TextPart, TextPartType};
    let text = TextPart {
        type_: TextPartType::Text,
        text: "hi".to_owned(),
    };
    assert_eq!(
        serde_json::to_value(&text).unwrap_or_default(),
        json!({"type": "text", "text": "hi"})
    );
    assert!(serde_json::from_value::<TextPart>(json!({"type": "link", "text": "x"})).is_err());
    assert!(serde_json::from_value::<LinkPart>(json!({"type": "link", "uri": "u"})).is_ok());
    let _: LinkPartType = LinkPartType::Link;
    let input: realworld::add_note::Input = serde_json::from_value(json!({
        "title": "t",
        "parts": [{"type": "link", "uri": "u"}, {"type": "text", "text": "x"}]
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        input.parts.as_slice(),
        [
            realworld::add_note::input::PartsItem::LinkPart(_),
            realworld::add_note::input::PartsItem::TextPart(_)
        ]
    ));
}

/// A union of objects that no tag tells apart is named after the property
/// each branch alone requires, in Rust and (tests/tests/csharp.rs) in C#.
#[test]
fn untagged_union_variants_are_named_after_what_tells_them_apart() {
    use realworld::open_target::input::InputTarget;
    let input: realworld::open_target::Input =
        serde_json::from_value(json!({"target": {"url": "https://x"}}))
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(input.target, InputTarget::Url { .. }));
    let input: realworld::open_target::Input =
        serde_json::from_value(json!({"target": {"path": "a", "line": 2}}))
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        input.target,
        InputTarget::Path { line: Some(2), .. }
    ));
}

/// The validators compiled for the realworld tools, draft-07 ones (as zod
/// writes them) among them, answer as the `jsonschema` crate does in the
/// dialect each schema declares.
#[test]
fn compiled_validators_agree_in_each_schema_s_dialect() {
    let mut rng = toolgen_tests::synth::Rng(0x0d1a_1ec7);
    let mut draft07 = 0;
    for info in realworld::TOOLS {
        let sides = [
            (Some(info.input_schema), info.input_valid),
            (info.output_schema, info.output_valid),
        ];
        for (text, compiled) in sides {
            let (Some(text), Some(compiled)) = (text, compiled) else {
                continue;
            };
            let schema: Value = serde_json::from_str(text).unwrap_or_default();
            draft07 += usize::from(text.contains("draft-07"));
            let reference = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
            for v in toolgen_tests::instances::candidates(&mut rng, &schema, &[], 500) {
                let mine = compiled(&toolgen_runtime::json::Json::from(&v));
                assert_eq!(mine, reference.is_valid(&v), "{}: {v}", info.id);
            }
        }
    }
    assert!(draft07 >= 2, "{draft07} draft-07 schemas compiled");
}
