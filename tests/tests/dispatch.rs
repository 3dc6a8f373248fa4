//! The generated Rust (generated/rust): every EditorMCP tool is called through
//! the generated `dispatch` with its spec examples. A test implementation of the
//! generated trait answers with the example's output, so the arguments go through
//! the generated `Input` type and the result through the generated `Output` type;
//! the JSON that comes out must equal the example and validate against the
//! tool's output schema. ToolVault tools go through their generated dispatch with
//! the examples in their specs (`_meta.toolgen.examples`); RAVE specs carry no call
//! examples, so each RAVE tool is called with its parameters' examples or defaults
//! and answers with a synthesized, schema-valid output naming every declared field.

use serde_json::{Value, json};
use toolgen_generated::editormcp::{self, EditormcpTools, TOOLS};
use toolgen_generated::{ravedemo, toolvault};
use toolgen_runtime::{Call, ToolError, ToolOutput};
use toolgen_tests::{editormcp_spec_ids, root, same_json};

use toolgen_tests::editormcp_spec_examples as spec_examples;

/// Answers with the output of spec example number `.0` of the called tool, after
/// checking that the typed input it received agrees with that example's input.
struct Examples(usize);

fn answer<I: serde::Serialize, O: serde::de::DeserializeOwned>(
    id: &str,
    input: &I,
    n: usize,
) -> Result<O, ToolError> {
    let args = serde_json::to_value(input).unwrap_or_default();
    let example = spec_examples(id)
        .get(n)
        .cloned()
        .ok_or_else(|| ToolError::execution(format!("{id} has no example {n}")))?;
    for (k, v) in example["input"].as_object().into_iter().flatten() {
        if args.get(k) != Some(v) {
            return Err(ToolError::execution(format!(
                "{id}: argument `{k}` changed in the typed input: {args}"
            )));
        }
    }
    serde_json::from_value(example["output"].clone()).map_err(|e| {
        ToolError::execution(format!(
            "{id}: example output does not fit the Output type: {e}"
        ))
    })
}

macro_rules! examples_impl {
    ($($method:ident => $id:literal),* $(,)?) => {
        impl EditormcpTools for Examples {
            $(fn $method(&self, call: &mut Call, input: editormcp::$method::Input) -> Result<editormcp::$method::Output, ToolError> {
                call.diagnostic(concat!("answered by example for ", $id));
                answer($id, &input, self.0)
            })*
        }
    };
}

toolgen_generated::for_each_editormcp_tool!(examples_impl);

#[test]
fn every_editormcp_example_round_trips_through_the_generated_types() {
    let ids: Vec<&str> = TOOLS.iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        editormcp_spec_ids(),
        "TOOLS holds every spec, sorted by id (stale? run `cargo xtask gen`)"
    );
    let mut called: Vec<&str> = Vec::new();
    for info in TOOLS {
        let schema: Value =
            serde_json::from_str(info.output_schema.unwrap_or("null")).unwrap_or_default();
        let validator =
            jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", info.id));
        for (n, example) in spec_examples(info.id).into_iter().enumerate() {
            let out = editormcp::dispatch(&Examples(n), info.id, example["input"].clone())
                .unwrap_or_else(|e| panic!("{}: {e}", info.id));
            assert_eq!(
                out.diagnostics,
                vec![format!("answered by example for {}", info.id)],
                "the Call's diagnostics come back with the output"
            );
            let out = compact_output(&out, info.id);
            let errors: Vec<String> = validator.iter_errors(&out).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", info.id);
            assert_eq!(
                strip_nulls(out),
                strip_nulls(example["output"].clone()),
                "{} changed in the typed round trip",
                info.id
            );
            called.push(info.id);
        }
    }
    let untested: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| !called.contains(id))
        .collect();
    assert!(
        untested.is_empty(),
        "tools without an example to call: {untested:?}"
    );
}

/// The output of a call, after checking that its JSON text is what the
/// responses copy: compact JSON (serde_json escapes every newline inside a
/// string, so compact text has none) that parses.
fn compact_output(out: &ToolOutput, tool: &str) -> Value {
    assert!(
        !out.output_json().contains('\n'),
        "{tool}: the output is not written compact"
    );
    let value: Value = serde_json::from_str(out.output_json())
        .unwrap_or_else(|e| panic!("{tool}: the output is not JSON: {e}"));
    assert_eq!(value, out.output(), "{tool}");
    value
}

/// Compares modulo what the generated types do not distinguish: an optional
/// field that is absent or `null`. (Present-but-empty optional arrays and maps
/// survive: they are typed `Option<Vec<T>>` / `Option<Map>`.)
fn strip_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

#[test]
fn dispatch_errors() {
    let unknown = editormcp::dispatch(&Examples(0), "no.such.tool", json!({})).err();
    assert_eq!(unknown.map(|e| e.code.code()), Some(-32001));
    let wrong = editormcp::dispatch(
        &Examples(0),
        "scene.hierarchy.dump",
        json!({"scenePath": 5}),
    )
    .err();
    assert_eq!(
        wrong.map(|e| e.code.code()),
        Some(-32002),
        "arguments that do not fit the Input type"
    );
    let extra = editormcp::dispatch(
        &Examples(0),
        "scene.hierarchy.dump",
        json!({"scenePath": "a", "x": 1}),
    )
    .err();
    assert_eq!(
        extra.map(|e| e.code.code()),
        Some(-32002),
        "inputs reject unknown fields"
    );
}

#[test]
fn other_tool_sets_have_tables_and_typed_inputs() {
    assert_eq!(ravedemo::TOOLS.len(), 6);
    assert_eq!(toolvault::TOOLS.len(), 5);
    let track: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/toolvault/track.json"))
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    let point: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/toolvault/point.json"))
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    let input: Result<toolvault::calculate_bearing::Input, _> =
        serde_json::from_value(json!({"source": track, "target": point, "units": "radians"}));
    let input =
        input.unwrap_or_else(|e| panic!("a real track and point fit the generated Input: {e}"));
    let back = serde_json::to_value(&input).unwrap_or_default();
    assert_eq!(back["units"], "radians");
    assert_eq!(back["source"]["properties"]["dataType"], "track");
    let defaulted: ravedemo::ravedemo_mcp_tool_pipeline_status::Input =
        serde_json::from_value(json!({})).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        serde_json::to_value(&defaulted).unwrap_or_default()["detail"],
        "summary",
        "defaults from the spec"
    );
    // The table's descriptors are what the runtime serves.
    let d = toolvault::TOOLS
        .iter()
        .find(|t| t.id == "calculate_bearing")
        .map(|t| t.descriptor());
    assert!(d.is_some_and(|d| d.safety_level == "read-only"
        && d.timeout.is_some_and(|t| t.as_secs() == 5)
        && d.input_schema["$defs"].is_object()));
}

#[test]
fn optional_collections_keep_present_but_empty_values() {
    // `dependencies` is optional: absent and `[]` are different answers.
    let empty: editormcp::asset_info::Output = serde_json::from_value(json!({
        "guid": "0123456789abcdef0123456789abcdef", "importSettings": {}, "path": "Assets/a.png",
        "sizeBytes": 1, "type": "Texture2D", "dependencies": []
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(empty.dependencies, Some(Vec::new()));
    assert_eq!(
        serde_json::to_value(&empty).unwrap_or_default()["dependencies"],
        json!([])
    );
    let absent = editormcp::asset_info::Output {
        dependencies: None,
        ..empty
    };
    assert!(
        serde_json::to_value(&absent)
            .unwrap_or_default()
            .get("dependencies")
            .is_none()
    );
}

#[test]
fn register_serves_an_implementation_with_validation_and_diagnostics() {
    let server = toolgen_runtime::Server::new(
        toolgen_runtime::ServerInfo {
            name: "test".into(),
            version: "0".into(),
            extra: Default::default(),
        },
        &["core"],
        "core",
    );
    let server = editormcp::register(server, std::sync::Arc::new(Examples(0)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(server.descriptors().len(), editormcp_spec_ids().len());
    let example = &spec_examples("go.find")[0];
    let out = server
        .call("go.find", example["input"].clone())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.diagnostics, vec!["answered by example for go.find"]);
    // The server validates against the schema before the typed method runs.
    let bad = server.call("go.find", json!({"nope": 1})).err();
    assert_eq!(bad.map(|e| e.code.code()), Some(-32002));
}

/// Tools of the other sets, read through toolgen itself (format-independent).
fn tools_of(set: &str) -> Vec<toolgen::ir::Tool> {
    let loaded = toolgen::Generator::new()
        .input(root().join("tool-specs").join(set))
        .load();
    assert!(!loaded.diagnostics.has_errors(), "{set} loads");
    loaded
        .project
        .tool_sets
        .into_iter()
        .flat_map(|s| s.tools)
        .collect()
}

/// ToolVault's examples (in `_meta.toolgen.examples`): each call answers with the
/// output of the example whose input it received.
struct ToolvaultExamples(Vec<toolgen::ir::Tool>);

impl ToolvaultExamples {
    fn answer<I: serde::Serialize, O: serde::de::DeserializeOwned>(
        &self,
        id: &str,
        input: &I,
    ) -> Result<O, ToolError> {
        let args = serde_json::to_value(input).unwrap_or_default();
        let tool = self.0.iter().find(|t| t.id.value == id);
        let example = tool
            .into_iter()
            .flat_map(|t| &t.examples)
            .filter(|e| {
                e.input
                    .value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .all(|(k, v)| args.get(k).is_some_and(|a| same_json(a, v)))
            })
            // The most specific example: the one that agrees on the most arguments.
            .max_by_key(|e| e.input.value.as_object().map_or(0, |m| m.len()))
            .ok_or_else(|| ToolError::execution(format!("{id}: no example for {args}")))?;
        let output = example.output.as_ref().map(|o| o.value.clone());
        serde_json::from_value(output.map(Value::from).unwrap_or_default())
            .map_err(|e| ToolError::execution(format!("{id}: example output does not fit: {e}")))
    }
}

macro_rules! answer_with_examples {
    ($set:ident, $trait:ident, $ty:ty, $($method:ident => $id:literal),* $(,)?) => {
        impl $set::$trait for $ty {
            $(fn $method(&self, _: &mut Call, input: $set::$method::Input) -> Result<$set::$method::Output, ToolError> {
                self.answer($id, &input)
            })*
        }
    };
}

toolgen_generated::for_each_toolvault_tool!(
    answer_with_examples,
    toolvault,
    ToolvaultTools,
    ToolvaultExamples
);

#[test]
fn every_toolvault_example_round_trips_through_the_generated_types() {
    let tools = tools_of("toolvault");
    let implementation = ToolvaultExamples(tools.clone());
    let mut calls = 0;
    for info in toolvault::TOOLS {
        let tool = tools.iter().find(|t| t.id.value == info.id);
        let examples = tool.map(|t| t.examples.clone()).unwrap_or_default();
        assert!(!examples.is_empty(), "{} has examples", info.id);
        let schema: Value =
            serde_json::from_str(info.output_schema.unwrap_or("true")).unwrap_or_default();
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
        for e in examples {
            let out = toolvault::dispatch(&implementation, info.id, Value::clone(&e.input.value))
                .unwrap_or_else(|err| panic!("{}: {err}", info.id));
            let out = compact_output(&out, info.id);
            let errors: Vec<String> = validator.iter_errors(&out).map(|x| x.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", info.id);
            let expected = e.output.map(|o| o.value).unwrap_or_default();
            assert!(
                same_json(&out, &expected),
                "{}: {out} != {expected}",
                info.id
            );
            calls += 1;
        }
    }
    assert_eq!(calls, 6);
}

/// A schema-valid instance with every declared property (first enum value, one
/// array item), for formats whose specs carry no output examples (RAVE).
fn instance(schema: &Value) -> Value {
    if let Some(v) = schema.get("enum").and_then(|e| e.get(0)) {
        return v.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => Value::Object(
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, s)| (k.clone(), instance(s)))
                .collect(),
        ),
        Some("array") => json!([instance(&schema["items"])]),
        Some("string") => json!("text"),
        Some("integer") => json!(schema.get("minimum").and_then(Value::as_i64).unwrap_or(1)),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        _ => json!({"any": [1, "two"]}),
    }
}

/// RAVE specs carry parameter examples but no call examples: each tool is called
/// with its parameters' first examples (or defaults) and answers with a
/// synthesized instance of its output schema that names every declared field.
struct RaveSynth;

impl RaveSynth {
    fn answer<I: serde::Serialize, O: serde::de::DeserializeOwned>(
        &self,
        id: &str,
        _input: &I,
    ) -> Result<O, ToolError> {
        let info = ravedemo::TOOLS.iter().find(|t| t.id == id);
        let schema: Value =
            serde_json::from_str(info.and_then(|t| t.output_schema).unwrap_or("{}"))
                .unwrap_or_default();
        serde_json::from_value(instance(&schema)).map_err(|e| {
            ToolError::execution(format!("{id}: synthesized output does not fit: {e}"))
        })
    }
}

toolgen_generated::for_each_ravedemo_tool!(
    answer_with_examples,
    ravedemo,
    RavedemoTools,
    RaveSynth
);

#[test]
fn every_rave_tool_is_served_through_the_generated_dispatch() {
    let tools = tools_of("rave");
    assert_eq!(tools.len(), ravedemo::TOOLS.len());
    for info in ravedemo::TOOLS {
        let input_schema: Value = serde_json::from_str(info.input_schema).unwrap_or_default();
        // Arguments from the parameters' own examples, else their defaults.
        let args: serde_json::Map<String, Value> = input_schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, s)| {
                // RAVE lists an array parameter's examples as items.
                let example = s.get("examples").and_then(|e| e.get(0)).map(|v| {
                    if s["type"] == "array" && !v.is_array() {
                        json!([v])
                    } else {
                        v.clone()
                    }
                });
                example
                    .or_else(|| s.get("default").cloned())
                    .map(|v| (k.clone(), v))
            })
            .collect();
        let input_validator =
            jsonschema::validator_for(&input_schema).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            input_validator.is_valid(&Value::Object(args.clone())),
            "{}: {args:?}",
            info.id
        );
        let out = ravedemo::dispatch(&RaveSynth, info.id, Value::Object(args))
            .unwrap_or_else(|e| panic!("{}: {e}", info.id));
        let out = compact_output(&out, info.id);
        let schema: Value =
            serde_json::from_str(info.output_schema.unwrap_or("true")).unwrap_or_default();
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
        let errors: Vec<String> = validator.iter_errors(&out).map(|x| x.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", info.id);
        // Every declared output field came through the typed Output.
        for k in schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            assert!(
                out.get(k).is_some(),
                "{}: `{k}` lost in the typed round trip: {out}",
                info.id
            );
        }
    }
}

#[test]
fn typed_values_serialize_deterministically() {
    // Maps are `BTreeMap`s, so a typed value written directly (not through a sorted
    // `serde_json::Value`) has its keys in order on every run.
    let v: editormcp::project_assets_summary::Output = serde_json::from_value(json!({
        "byType": {"Texture2D": 3, "AudioClip": 1, "Material": 2, "Prefab": 5, "Mesh": 4},
        "largeAssets": [], "totalAssets": 15, "unreferencedCount": 0
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let text = serde_json::to_string(&v).unwrap_or_default();
    assert!(
        text.contains(r#"{"AudioClip":1,"Material":2,"Mesh":4,"Prefab":5,"Texture2D":3}"#),
        "{text}"
    );
}

/// A server built from the generated tables lists every tool exactly as the
/// generated catalog does: every field its spec gives (title, annotations,
/// `_meta`, icons, ...), the same wrapped output schemas, nothing invented.
#[test]
fn the_server_lists_tools_as_the_catalog_does() {
    let tables: [(&str, &[toolgen_runtime::ToolInfo]); 3] = [
        ("editormcp", TOOLS),
        ("ravedemo", ravedemo::TOOLS),
        ("toolvault", toolvault::TOOLS),
    ];
    for (set, table) in tables {
        let path = root().join(format!("generated/catalog/{set}/tools.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let catalog: Value = serde_json::from_str(&text).unwrap_or_default();
        let listed: Vec<Value> = table
            .iter()
            .map(|info| toolgen_runtime::server::mcp_tool(&info.descriptor()))
            .collect();
        let expected = catalog["tools"].as_array().cloned().unwrap_or_default();
        assert_eq!(listed.len(), expected.len(), "{set}");
        for (l, e) in listed.iter().zip(&expected) {
            assert_eq!(l, e, "{set}: {}", e["name"]);
        }
    }
}

/// An rmcp server of the author's own, as rmcp's users write one: its tools
/// are a generated tool set's `router`.
#[derive(Clone)]
struct Host {
    tools: rmcp::handler::server::router::tool::ToolRouter<Host>,
}

#[rmcp::tool_handler(router = self.tools)]
impl rmcp::ServerHandler for Host {}

/// Every tool of `set` through an rmcp server whose tools are `router`, and
/// rmcp's client: listed as the catalog lists it (but `execution`, which
/// rmcp's `Tool` lacks), and called with `calls` (arguments, the expected
/// structured content or `None` for any valid one).
async fn served_by_rmcp(
    set: &str,
    router: Result<rmcp::handler::server::router::tool::ToolRouter<Host>, String>,
    calls: Vec<(String, Value, Option<Value>)>,
) {
    use rmcp::ServiceExt as _;
    let host = Host {
        tools: router.unwrap_or_else(|e| panic!("{set}: {e}")),
    };
    let (theirs, ours) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = host.serve(theirs).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(ours).await.unwrap_or_else(|e| panic!("{e}"));
    let listed = client
        .list_all_tools()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let catalog = root().join(format!("generated/catalog/{set}/tools.json"));
    let catalog: Value =
        serde_json::from_str(&std::fs::read_to_string(&catalog).unwrap_or_default())
            .unwrap_or_default();
    let mut expected: Vec<Value> = catalog["tools"].as_array().cloned().unwrap_or_default();
    for t in &mut expected {
        if let Some(t) = t.as_object_mut() {
            t.remove("execution");
        }
    }
    let listed: Vec<Value> = listed
        .iter()
        .map(|t| serde_json::to_value(t).unwrap_or_default())
        .collect();
    assert_eq!(listed, expected, "{set}: listed as the catalog lists it");
    for (tool, arguments, output) in calls {
        let mut params = rmcp::model::CallToolRequestParams::new(tool.clone());
        params.arguments = arguments.as_object().cloned();
        let result = client
            .call_tool(params)
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_eq!(result.is_error, Some(false), "{tool}: {result:?}");
        let info = [editormcp::TOOLS, toolvault::TOOLS, ravedemo::TOOLS]
            .into_iter()
            .flatten()
            .find(|i| i.id == tool);
        let schema = info.and_then(|i| i.output_schema).unwrap_or("true");
        let schema: Value = serde_json::from_str(schema).unwrap_or_default();
        let structured = result.structured_content.clone().unwrap_or_default();
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
        assert!(validator.is_valid(&structured), "{tool}: {structured}");
        if let Some(output) = output {
            assert!(
                same_json(&structured, &output),
                "{tool}: {structured} != {output}"
            );
        }
        let text = result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone());
        let mirrored: Value = serde_json::from_str(&text.unwrap_or_default()).unwrap_or_default();
        assert_eq!(mirrored, structured, "{tool}: the text mirror");
    }
    let _ = client.cancel().await;
}

/// The generated `router` of each tool set inside an author's rmcp server:
/// every tool listed as the catalog lists it, and called through rmcp's
/// client with its spec's examples (EditorMCP and ToolVault: the example's
/// output comes back; RAVE: a valid one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_set_is_served_inside_an_rmcp_server() {
    use std::sync::Arc;
    let editormcp_calls = TOOLS
        .iter()
        .flat_map(|t| {
            let example = spec_examples(t.id).into_iter().next();
            example.map(|e| (t.id.to_owned(), e["input"].clone(), None))
        })
        .collect();
    served_by_rmcp(
        "editormcp",
        editormcp::router(Arc::new(Examples(0))),
        editormcp_calls,
    )
    .await;
    let tools = tools_of("toolvault");
    let toolvault_calls = tools
        .iter()
        .flat_map(|t| t.examples.iter().map(move |e| (t, e)))
        .map(|(t, e)| {
            let output = e.output.as_ref().map(|o| Value::from(o.value.clone()));
            (t.id.value.clone(), Value::clone(&e.input.value), output)
        })
        .collect();
    served_by_rmcp(
        "toolvault",
        toolvault::router(Arc::new(ToolvaultExamples(tools))),
        toolvault_calls,
    )
    .await;
    served_by_rmcp(
        "ravedemo",
        ravedemo::router(Arc::new(RaveSynth)),
        Vec::new(),
    )
    .await;
}
