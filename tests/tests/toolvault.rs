//! MCP / ToolVault tool JSON: the protocol's schemas, the MCP specification's
//! example tools, and bundled schemas checked against real feature JSON.

use serde_json::{Value, json};
use toolgen::Generator;
use toolgen::diag::Severity;
use toolgen::ir::SafetyLevel;
use toolgen::load::{LoadOptions, load};
use toolgen::source::SourceDb;
use toolgen::testing::SchemaStore;
use toolgen_runtime::toolvault::arguments_to_object;
use toolgen_tests::{files_below, fixtures, fresh_dir, root, shared};

fn feature(name: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join("toolvault").join(name)).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("bundled schema does not compile: {e}"))
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path().as_str()))
        .collect()
}

#[test]
fn vendored_schemas_equal_the_corpus() {
    let Some(original) = shared(
        "corpus/toolvault/schemas",
        "vendored_schemas_equal_the_corpus",
    ) else {
        return;
    };
    let vendored = root().join("tool-specs/toolvault/schemas");
    let files = files_below(&original, "json");
    assert_eq!(files.len(), 17);
    for f in files {
        let rel = f.strip_prefix(&original).unwrap_or(&f);
        let a = std::fs::read(&f).unwrap_or_default();
        let b = std::fs::read(vendored.join(rel)).unwrap_or_default();
        assert!(
            a == b,
            "tool-specs/toolvault/schemas/{} differs from the corpus",
            rel.display()
        );
    }
}

/// Loose MCP tool files (no manifest) load and generate: an identical tool
/// defined twice is one tool and a note, array output schemas and titles are
/// kept, and no output schema is invented.
fn loose_mcp_tools_load_and_generate(
    dir: &std::path::Path,
    ids: &[&str],
    array_output: &str,
    title: &str,
) {
    let loaded = load(&[dir.to_path_buf()], &LoadOptions::default());
    assert_eq!(
        loaded.diagnostics.count(Severity::Error),
        0,
        "{:?}",
        loaded.diagnostics
    );
    assert_eq!(loaded.diagnostics.count(Severity::Warning), 0);
    // Two files define one tool identically (one with an explicit draft-07 `$schema`).
    let notes: Vec<&str> = loaded.diagnostics.iter().map(|d| d.rule.code).collect();
    assert_eq!(notes, ["TG0505"]);
    let tools = &loaded.project.tool_sets[0].tools;
    let found: Vec<&str> = tools.iter().map(|t| t.id.value.as_str()).collect();
    assert_eq!(found, ids);
    let files = Generator::render(&loaded.project);
    let catalog: Value =
        serde_json::from_slice(files.get("catalog/mcp/tools.json").unwrap_or_default())
            .unwrap_or_default();
    let tool = |name: &str| -> Value {
        catalog["tools"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == name))
            .cloned()
            .unwrap_or_default()
    };
    // MCP wants an object: an array output schema is the `result` of one.
    let array = tool(array_output);
    assert_eq!(array["outputSchema"]["type"], "object");
    assert_eq!(
        array["outputSchema"]["properties"]["result"]["type"], "array",
        "array output schemas are kept, wrapped"
    );
    assert_eq!(array["outputSchema"]["required"], json!(["result"]));
    assert_eq!(array["title"], title);
    assert!(
        catalog["tools"][0].get("outputSchema").is_none(),
        "no outputSchema is invented"
    );
    // No annotations: MCP's defaults, so the tool may be destructive; none
    // are published, and nothing toolgen filled in is in `_meta.toolgen`.
    assert_eq!(tools[0].safety.value, SafetyLevel::Destructive);
    assert!(tools[0].implied.safety);
    let first = &catalog["tools"][0];
    assert!(first.get("annotations").is_none(), "{first}");
    let own = &first["_meta"]["toolgen"];
    for key in ["category", "tier", "safetyLevel", "timeoutSeconds"] {
        assert!(own.get(key).is_none(), "{key} invented: {first}");
    }
}

#[test]
fn own_loose_mcp_tools_load_and_generate() {
    loose_mcp_tools_load_and_generate(
        &fixtures().join("mcp-tools"),
        &[
            "lookup_station",
            "multiply",
            "sensor_list",
            "server_uptime",
            "station_reading",
        ],
        "sensor_list",
        "Sensor List",
    );
}

#[test]
fn mcp_specification_example_tools_load_and_generate() {
    let Some(dir) = shared(
        "corpus/mcp-spec/Tool",
        "mcp_specification_example_tools_load_and_generate",
    ) else {
        return;
    };
    loose_mcp_tools_load_and_generate(
        &dir,
        &[
            "calculate_sum",
            "find_resource",
            "get_current_time",
            "get_weather_data",
            "list_users",
        ],
        "list_users",
        "User List",
    );
}

#[test]
fn bundled_catalog_schemas_validate_real_features() {
    let loaded = load(
        &[root().join("tool-specs/toolvault")],
        &LoadOptions::default(),
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let files = Generator::render(&loaded.project);
    let schema = |name: &str| -> Value {
        serde_json::from_slice(
            files
                .get(&format!("catalog/toolvault/schemas/{name}"))
                .unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    // The files are self-contained: no `$ref` leaves the document.
    fn foreign_refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    if r != "#" && !r.starts_with("#/") {
                        out.push(r.to_owned());
                    }
                }
                m.values().for_each(|x| foreign_refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| foreign_refs(x, out)),
            _ => {}
        }
    }
    for (path, contents) in files.iter() {
        let v: Value = serde_json::from_slice(contents).unwrap_or_default();
        let mut refs = Vec::new();
        foreign_refs(&v, &mut refs);
        assert!(refs.is_empty(), "{path} is not self-contained: {refs:?}");
    }
    let (track, point, annotation) = (
        feature("track.json"),
        feature("point.json"),
        feature("annotation.json"),
    );

    let bearing = validator(&schema("calculate_bearing.input.json"));
    let good = json!({"source": track, "target": point, "units": "degrees"});
    assert_eq!(errors(&bearing, &good), Vec::<String>::new());
    assert!(
        !bearing.is_valid(&json!({"source": point, "target": point})),
        "a point is not a track"
    );
    assert!(
        !bearing.is_valid(&json!({"source": track, "target": track})),
        "a track is not a reference point"
    );
    assert!(!bearing.is_valid(&json!({"source": track, "target": point, "units": "grads"})));
    assert!(
        !bearing.is_valid(&json!({"source": track})),
        "target is required"
    );

    let collection = json!({"type": "FeatureCollection", "features": [track, point, annotation]});
    let summarize = validator(&schema("summarize_collection.input.json"));
    assert_eq!(
        errors(&summarize, &json!({"collection": collection})),
        Vec::<String>::new()
    );
    let delete = validator(&schema("delete_annotations.input.json"));
    assert_eq!(
        errors(&delete, &json!({"annotations": [annotation]})),
        Vec::<String>::new()
    );
    assert!(!delete.is_valid(&json!({"annotations": [track]})));

    // Outputs are ToolVault commands, recursive through `composite`.
    let output = validator(&schema("calculate_bearing.output.json"));
    let commands = [
        json!({"command": "showText", "payload": "Bearing from HMS Victory to Gibraltar: 127.5°"}),
        json!({"command": "addFeatures", "payload": [track, point]}),
        json!({"command": "updateFeatures", "payload": [annotation]}),
        json!({"command": "deleteFeatures", "payload": ["note-1"]}),
        json!({"command": "setFeatureCollection", "payload": collection}),
        json!({"command": "showData", "payload": {"shape": [2, 2], "values": [[1, 2], [3, null]]}}),
        json!({"command": "showImage", "payload": {"mediaType": "image/png", "data": "iVBORw0KGgo="}}),
        json!({"command": "logMessage", "payload": "done"}),
        json!({"command": "composite", "payload": [
            {"command": "logMessage", "payload": "a"},
            {"command": "composite", "payload": [{"command": "showText", "payload": "nested"}]}
        ]}),
    ];
    for c in &commands {
        assert_eq!(errors(&output, c), Vec::<String>::new(), "{c}");
    }
    assert!(!output.is_valid(&json!({"command": "explode", "payload": 1})));
    assert!(!output.is_valid(&json!({"command": "addFeatures", "payload": [{"type": "Feature"}]})));
}

/// NOTES point 22: the protocol's `ToolCallRequest` `value` is a `oneOf` whose
/// branches overlap, so strict validation rejects a valid track argument.
/// toolgen converts the arguments (one place, the runtime) and validates the
/// object against the tool's own bundled input schema, which accepts it.
#[test]
fn a_valid_track_argument_is_accepted() {
    let track = feature("track.json");
    let point = feature("point.json");
    let request = json!({
        "name": "calculate_bearing",
        "arguments": [
            {"name": "source", "value": track},
            {"name": "target", "value": point},
            {"name": "units", "value": "degrees"}
        ]
    });

    // The protocol schema as written: a track matches "any feature", "track feature"
    // and "any of" branches at once, so `oneOf` fails.
    let schemas = root().join("tool-specs/toolvault/schemas");
    let mut db = SourceDb::new();
    let mut diags = Vec::new();
    let mut store = SchemaStore::new(std::slice::from_ref(&schemas));
    store.add_dir(&mut db, &schemas, &mut diags);
    assert!(diags.is_empty());
    let (bundled, problems) = store
        .bundle_document(&schemas.join("tools/ToolCallRequest.schema.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(problems.is_empty(), "{problems:?}");
    let strict = validator(&bundled.value);
    assert!(
        !strict.is_valid(&request),
        "strict oneOf rejects the valid call (NOTES 22)"
    );

    // Read as `anyOf` (the decision for anyone validating against the protocol schema), it passes.
    let mut relaxed = bundled.value.clone();
    let value = &mut relaxed["properties"]["arguments"]["items"]["properties"]["value"];
    let branches = value.get("oneOf").cloned().unwrap_or_default();
    *value = json!({"anyOf": branches});
    assert_eq!(errors(&validator(&relaxed), &request), Vec::<String>::new());

    // toolgen's path: arguments -> object in one place, then the tool's own schema.
    let loaded = load(
        &[root().join("tool-specs/toolvault")],
        &LoadOptions::default(),
    );
    let tool = loaded.project.tool_sets[0]
        .tools
        .iter()
        .find(|t| t.id.value == "calculate_bearing");
    let input = tool.map(|t| t.input.value.clone()).unwrap_or_default();
    let args = arguments_to_object(&request["arguments"], Some(&["source", "target", "units"]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        errors(&validator(&input), &Value::Object(args)),
        Vec::<String>::new()
    );
}

/// Found while writing these tests: `ConstrainedFeature`'s `AnnotationFeature`
/// requires `dataType: "annotation"` on top of `DebriefFeature`, whose only
/// annotation branch (`Annotation.schema.json`) requires `dataType: "zone"`, so
/// no feature satisfies it. If the protocol is fixed upstream, this test says so.
#[test]
fn the_protocol_annotation_feature_is_unsatisfiable() {
    let schemas = root().join("tool-specs/toolvault/schemas");
    let mut db = SourceDb::new();
    let mut diags = Vec::new();
    let mut store = SchemaStore::new(std::slice::from_ref(&schemas));
    store.add_dir(&mut db, &schemas, &mut diags);
    let (bundled, _) = store
        .bundle_document(&schemas.join("tools/ConstrainedFeature.schema.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut schema = bundled.value.clone();
    schema["$ref"] = json!("#/$defs/AnnotationFeature");
    let v = validator(&schema);
    let mut annotation = feature("annotation.json");
    assert!(
        !v.is_valid(&annotation),
        "a zone annotation lacks dataType `annotation`"
    );
    annotation["properties"]["dataType"] = json!("annotation");
    assert!(
        !v.is_valid(&annotation),
        "and dataType `annotation` is not a Debrief feature"
    );
}

/// MCP annotations map to the IR's safety level and back: the generated catalog,
/// read again as MCP tools, gives the same safety, hints and metadata.
#[test]
fn catalog_entries_read_back_as_mcp_tools() {
    let first = load(
        &[root().join("tool-specs/toolvault")],
        &LoadOptions::default(),
    );
    let files = Generator::render(&first.project);
    let catalog: Value = serde_json::from_slice(
        files
            .get("catalog/toolvault/tools.json")
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    let dir = fresh_dir("mcp-readback");
    for t in catalog["tools"].as_array().into_iter().flatten() {
        let name = t["name"].as_str().unwrap_or("x");
        std::fs::write(dir.join(format!("{name}.json")), t.to_string())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let second = load(std::slice::from_ref(&dir), &LoadOptions::default());
    assert!(second.diagnostics.is_empty(), "{:?}", second.diagnostics);
    let a = &first.project.tool_sets[0].tools;
    let b = &second.project.tool_sets[0].tools;
    assert_eq!(a.len(), 5);
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.id.value, y.id.value);
        assert_eq!(x.safety.value, y.safety.value, "{}", x.id.value);
        assert_eq!(x.category.value, y.category.value);
        assert_eq!(x.requires_approval, y.requires_approval);
        let (sa, sb) = (&first.project.tool_sets[0], &second.project.tool_sets[0]);
        assert_eq!(
            sa.timeout_of(x),
            sb.timeout_of(y),
            "the effective time limit survives"
        );
        assert_eq!(
            x.input.value["properties"], y.input.value["properties"],
            "{}",
            x.id.value
        );
        let hints = |t: &toolgen::ir::Tool| {
            (
                t.annotations.get("idempotentHint").map(|v| v.value.clone()),
                t.annotations.get("openWorldHint").map(|v| v.value.clone()),
            )
        };
        assert_eq!(hints(x), hints(y));
    }
    let levels: Vec<SafetyLevel> = a.iter().map(|t| t.safety.value).collect();
    assert_eq!(
        levels,
        [
            SafetyLevel::ReadOnly,
            SafetyLevel::Destructive,
            SafetyLevel::SafeWrite,
            SafetyLevel::ReadOnly,
            SafetyLevel::ReadOnly
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Same-named definitions from different files (and a name the root already
/// uses) get distinct names in the bundle, so no emitter can merge them.
#[test]
fn same_named_definitions_from_different_files_stay_distinct() {
    let dir = fresh_dir("collide");
    std::fs::create_dir_all(dir.join("geo")).unwrap_or_else(|e| panic!("{e}"));
    let write = |p: &str, v: Value| {
        std::fs::write(dir.join(p), v.to_string()).unwrap_or_else(|e| panic!("{e}"))
    };
    write(
        "sea.schema.json",
        json!({"$defs": {"Point": {"type": "object", "required": ["depth"], "properties": {"depth": {"type": "number"}}}}}),
    );
    write(
        "geo/land.schema.json",
        json!({"$defs": {"Point": {"type": "object", "required": ["height"], "properties": {"height": {"type": "number"}}}}}),
    );
    write(
        "tool.json",
        json!({
            "name": "compare_points",
            "description": "Compare two points.",
            "inputSchema": {
                "type": "object",
                "$defs": {"Point": {"type": "string"}},
                "properties": {
                    "label": {"$ref": "#/$defs/Point"},
                    "sea": {"$ref": "sea.schema.json#/$defs/Point"},
                    "land": {"$ref": "geo/land.schema.json#/$defs/Point"}
                },
                "required": ["label", "sea", "land"]
            }
        }),
    );
    let loaded = load(std::slice::from_ref(&dir), &LoadOptions::default());
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let input = &loaded.project.tool_sets[0].tools[0].input.value;
    let defs: Vec<&String> = input["$defs"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(defs.len(), 3, "{defs:?}");
    let v = validator(input);
    assert_eq!(
        errors(
            &v,
            &json!({"label": "x", "sea": {"depth": 3}, "land": {"height": 9}})
        ),
        Vec::<String>::new()
    );
    assert!(!v.is_valid(&json!({"label": "x", "sea": {"height": 3}, "land": {"height": 9}})));
    assert!(!v.is_valid(&json!({"label": "x", "sea": {"depth": 3}, "land": {"depth": 9}})));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Top-level type names (`pub struct X`, `pub enum X`) in generated Rust.
fn rust_types(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            l.strip_prefix("pub struct ")
                .or_else(|| l.strip_prefix("pub enum "))
        })
        .map(|rest| {
            rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        // Every module has typify's own error type.
        .filter(|t| t != "ConversionError")
        .collect()
}

/// The protocol's features are generated once, in the tool set's `defs`
/// module, and every tool module refers to them there.
#[test]
fn shared_definitions_are_generated_once_per_tool_set() {
    let dir = root().join("generated/rust/src/toolvault");
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{e}"));
    let shared = rust_types(&read(&dir.join("defs.rs")));
    for name in [
        "Track",
        "Point",
        "Annotation",
        "DebriefFeature",
        "FeatureCollection",
    ] {
        assert!(shared.contains(&name.to_owned()), "{name} in {shared:?}");
    }
    let tools: Vec<std::path::PathBuf> = files_below(&dir, "rs")
        .into_iter()
        .filter(|p| !p.ends_with("defs.rs") && !p.ends_with("mod.rs"))
        .collect();
    assert_eq!(tools.len(), 5);
    for tool in tools {
        let code = read(&tool);
        let again: Vec<String> = rust_types(&code)
            .into_iter()
            .filter(|t| shared.contains(t))
            .collect();
        assert!(again.is_empty(), "{}: {again:?}", tool.display());
        assert!(code.contains("super::super::defs::"), "{}", tool.display());
    }
}

/// The first tool set's name and every file rendered from the specs in
/// `dir`, which must load without errors.
fn render_clean(dir: &std::path::Path) -> (String, toolgen::GeneratedFiles) {
    let loaded = load(&[dir.to_path_buf()], &LoadOptions::default());
    assert_eq!(
        loaded.diagnostics.count(Severity::Error),
        0,
        "{:?}",
        loaded.diagnostics
    );
    let set = loaded.project.tool_sets[0].name.clone();
    (set, Generator::render(&loaded.project))
}

/// Only identical definitions are shared: a tool whose `Point` differs keeps
/// its own, and a definition held once stays with its tool.
#[test]
fn only_identical_definitions_are_shared() {
    let dir = fresh_dir("shared");
    let point =
        json!({"type": "object", "required": ["x"], "properties": {"x": {"type": "number"}}});
    let other = json!({"type": "object", "required": ["depth"], "properties": {"depth": {"type": "integer"}}});
    // `fourth` holds the shared `Point` beside a `point` of its own, which typify
    // would name `Point` too: it keeps both to itself, under distinct names.
    for (name, point) in [
        ("first", &point),
        ("second", &point),
        ("third", &other),
        ("fourth", &point),
    ] {
        let mut defs = json!({"Point": point, "Label": {"type": "string"}, format!("Only{name}"): {"type": "boolean"}});
        if name == "fourth" {
            defs["point"] = json!({"type": "string"});
        }
        let tool = json!({
            "name": name,
            "description": "Takes a point.",
            "inputSchema": {
                "type": "object",
                "$defs": defs,
                "properties": {
                    "at": {"$ref": "#/$defs/Point"},
                    "label": {"$ref": "#/$defs/Label"},
                    "flag": {"$ref": format!("#/$defs/Only{name}")}
                },
                "required": ["at"]
            }
        });
        std::fs::write(dir.join(format!("{name}.json")), tool.to_string())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let (set, files) = render_clean(&dir);
    let text = |tool: &str| {
        String::from_utf8_lossy(
            files
                .get(&format!("rust/src/{set}/{tool}.rs"))
                .unwrap_or_default(),
        )
        .into_owned()
    };
    let mut shared = rust_types(&text("defs"));
    shared.sort();
    assert_eq!(shared, ["Label", "Point"]);
    assert!(text("first").contains("super::super::defs::Point"));
    assert!(text("second").contains("super::super::defs::Point"));
    let third = text("third");
    assert!(rust_types(&third).contains(&"Point".to_owned()), "{third}");
    assert!(!third.contains("defs::Point"), "{third}");
    assert!(third.contains("defs::Label"), "{third}");
    assert!(
        rust_types(&third).contains(&"Onlythird".to_owned()),
        "{third}"
    );
    let fourth = text("fourth");
    assert!(!fourth.contains("defs::Point"), "{fourth}");
    assert!(fourth.contains("defs::Label"), "{fourth}");
    let mut types = rust_types(&fourth);
    types.sort();
    assert_eq!(
        types,
        ["Input", "Onlyfourth", "Point", "Point2"],
        "{fourth}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shared type's fields keep the order its definition wrote them in, and
/// an optional nullable property of it stays three-valued, even when an
/// object of another tool has the same property names in another order.
#[test]
fn shared_definitions_keep_their_own_field_order() {
    let dir = fresh_dir("shared-order");
    let point = r#"{"type": "object", "required": ["zed"], "properties": {"zed": {"type": "number"}, "alpha": {"type": ["number", "null"]}}}"#;
    for name in ["first", "second"] {
        // The input's own object names the same properties, alpha first.
        let tool = format!(
            r##"{{"name": "{name}", "description": "Takes a point.", "inputSchema": {{"type": "object", "$defs": {{"Point": {point}}}, "properties": {{"alpha": {{"type": "integer"}}, "zed": {{"$ref": "#/$defs/Point"}}}}, "required": ["alpha", "zed"]}}}}"##
        );
        std::fs::write(dir.join(format!("{name}.json")), tool).unwrap_or_else(|e| panic!("{e}"));
    }
    let (set, files) = render_clean(&dir);
    let defs = String::from_utf8_lossy(
        files
            .get(&format!("rust/src/{set}/defs.rs"))
            .unwrap_or_default(),
    )
    .into_owned();
    let point = defs
        .split("pub struct Point")
        .nth(1)
        .unwrap_or_else(|| panic!("no Point in {defs}"));
    let (zed, alpha) = (point.find("pub zed:"), point.find("pub alpha:"));
    assert!(zed.is_some() && alpha.is_some() && zed < alpha, "{defs}");
    assert!(point.contains("Nullable<f64>"), "{defs}");
    let _ = std::fs::remove_dir_all(&dir);
}
