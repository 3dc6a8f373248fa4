//! The generated Rust (generated/rust): every EditorMCP tool is called through
//! the generated `dispatch` with its spec examples. A test implementation of the
//! generated trait answers with the example's output, so the arguments go through
//! the generated `Input` type and the result through the generated `Output` type;
//! the JSON that comes out must equal the example and validate against the
//! tool's output schema. The ToolVault and RAVE tables are exercised too.

use serde_json::{Value, json};
use toolgen_generated::editormcp::{self, EditormcpTools, TOOLS};
use toolgen_generated::{ravedemo, toolvault};
use toolgen_runtime::{Call, ToolError};
use toolgen_tests::root;

fn spec_examples(id: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(root().join(format!("tool-specs/editormcp/{id}.json")))
        .unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or_default();
    v["examples"].as_array().cloned().unwrap_or_default()
}

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

examples_impl! {
    asset_dependencies_graph => "asset.dependencies.graph",
    asset_info => "asset.info",
    audio_mixer_list => "audio.mixer.list",
    audio_mixer_snapshot_read => "audio.mixer.snapshot.read",
    component_list => "component.list",
    editor_selection_info => "editor.selection.info",
    go_find => "go.find",
    go_set_parent => "go.setParent",
    mcp_server_info => "mcp.server.info",
    mcp_tool_describe => "mcp.tool.describe",
    mcp_tools_list => "mcp.tools.list",
    project_assets_summary => "project.assets.summary",
    project_info => "project.info",
    project_references_missing => "project.references.missing",
    project_scenes_list => "project.scenes.list",
    scene_components_list => "scene.components.list",
    scene_hierarchy_dump => "scene.hierarchy.dump",
    scene_objects_find => "scene.objects.find",
}

#[test]
fn every_editormcp_example_round_trips_through_the_generated_types() {
    assert_eq!(TOOLS.len(), 18);
    let ids: Vec<&str> = TOOLS.iter().map(|t| t.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted, "the table is sorted by id");
    let mut calls = 0;
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
            let out = out.output;
            let errors: Vec<String> = validator.iter_errors(&out).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", info.id);
            assert_eq!(
                strip_nulls(out),
                strip_nulls(example["output"].clone()),
                "{} changed in the typed round trip",
                info.id
            );
            calls += 1;
        }
    }
    assert!(calls >= 18);
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
        && d.timeout.as_secs() == 5
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
    assert_eq!(server.descriptors().count(), 18);
    let example = &spec_examples("go.find")[0];
    let out = server
        .call("go.find", example["input"].clone())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.diagnostics, vec!["answered by example for go.find"]);
    // The server validates against the schema before the typed method runs.
    let bad = server.call("go.find", json!({"nope": 1})).err();
    assert_eq!(bad.map(|e| e.code.code()), Some(-32002));
}
