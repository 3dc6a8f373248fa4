//! Real-world RAVE files go through the whole pipeline: the project's own
//! fixtures in tests/fixtures/rave-loose (always), and the real files in
//! ../shared/corpus/rave (written by ravepipeline's `mcptool_build()`, kept
//! byte for byte) when that folder is beside the repository.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolgen::Generator;
use toolgen::diag::Severity;
use toolgen::ir::Tool;
use toolgen::load::{LoadOptions, load};
use toolgen::testing::to_rave_yaml;
use toolgen_tests::{fixtures, root, shared};

/// The project's own RAVE files, written in the style of `mcptool_build()`.
fn own_fixtures() -> PathBuf {
    fixtures().join("rave-loose")
}

/// The catalog entry of tool `name`.
fn catalog_tool(catalog: &Value, name: &str) -> Value {
    catalog["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("{name} is not in the catalog"))
}

/// Loads `dir`, compares its diagnostics with `golden` (code, position and
/// message of each), generates, and returns the catalog.
fn validates_with_golden_diagnostics(dir: &Path, files: usize, golden: &str) -> Value {
    let loaded = load(&[dir.to_path_buf()], &LoadOptions::default());
    assert_eq!(loaded.spec_files, files);
    assert_eq!(loaded.project.tool_count(), files);
    assert_eq!(loaded.diagnostics.count(Severity::Error), 0);

    let base = dir.to_string_lossy().into_owned();
    let mut lines: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| {
            let place = d.loc.map(|l| loaded.db.describe(l)).unwrap_or_default();
            let file = std::path::absolute(&place).unwrap_or_default();
            let place = file.to_string_lossy().replace(&base, "rave");
            format!(
                "{} {} {place}: {}",
                d.severity.as_str(),
                d.rule.code,
                d.message
            )
        })
        .collect();
    lines.sort();
    let text = lines.join("\n") + "\n";
    let golden = fixtures().join("corpus").join(golden);
    if std::env::var_os("TOOLGEN_BLESS").is_some() {
        let _ = std::fs::create_dir_all(golden.parent().unwrap_or(dir));
        let _ = std::fs::write(&golden, &text);
    } else {
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        assert_eq!(
            expected,
            text,
            "diagnostics of {} changed; re-bless with TOOLGEN_BLESS=1 after review",
            dir.display()
        );
    }

    // Generation works and covers every tool.
    let set = &loaded.project.tool_sets[0].name;
    let files_out = Generator::render(&loaded.project);
    let catalog = files_out
        .get(&format!("catalog/{set}/tools.json"))
        .unwrap_or_default();
    let catalog: Value = serde_json::from_slice(catalog).unwrap_or_default();
    assert_eq!(catalog["tools"].as_array().map(Vec::len), Some(files));
    catalog
}

/// An integer default written `5.0` comes out as the integer 5; string
/// examples on an integer parameter come out as numbers.
fn integers_are_integers(tool: &Value, parameter: &str, default: u64, examples: Value) {
    let p = &tool["inputSchema"]["properties"][parameter];
    assert_eq!(p["default"], json!(default));
    assert!(p["default"].is_u64(), "{p}");
    assert_eq!(p["examples"], examples);
}

#[test]
fn own_rave_fixtures_validate_with_warnings_and_generate() {
    let catalog =
        validates_with_golden_diagnostics(&own_fixtures(), 4, "rave-loose.diagnostics.txt");
    // `dangerous: yes` and `requires_approval: yes` (YAML 1.1) reach the catalog.
    let reset = catalog_tool(&catalog, "toyeeg-mcp_tool_state_reset");
    assert_eq!(reset["annotations"]["destructiveHint"], true);
    assert_eq!(reset["_meta"]["toolgen"]["requiresApproval"], true);
    assert_eq!(reset["_meta"]["toolgen"]["annotations"]["group"], "state");
    assert!(
        reset["inputSchema"]["properties"]
            .get(".state_env")
            .is_none(),
        "hidden parameters are dropped"
    );
    let filter = catalog_tool(&catalog, "toyeeg-mcp_tool_signal_filter");
    integers_are_integers(&filter, "order", 4, json!([2, 4, 8]));
    assert_eq!(
        filter["inputSchema"]["properties"]["zero_phase"]["default"],
        true
    );
    let docs = catalog_tool(&catalog, "toyeeg-mcp_tool_docs_topic");
    integers_are_integers(&docs, "max_lines", 200, json!([50, 100]));
    assert_eq!(
        docs["inputSchema"]["properties"]["topic"]["examples"],
        json!(["filter", "epoch"]),
        "the repeated example is removed"
    );
    assert!(
        !docs["description"].to_string().contains("\\code"),
        "Rd markup is cleaned: {}",
        docs["description"]
    );
}

#[test]
fn rave_corpus_validates_without_errors_and_generates() {
    let Some(dir) = shared(
        "corpus/rave",
        "rave_corpus_validates_without_errors_and_generates",
    ) else {
        return;
    };
    let catalog = validates_with_golden_diagnostics(&dir, 18, "rave.diagnostics.txt");
    let run = catalog_tool(&catalog, "ravepipeline-mcp_tool_pipeline_run");
    assert_eq!(run["annotations"]["destructiveHint"], true);
    assert_eq!(run["_meta"]["toolgen"]["requiresApproval"], true);
    assert_eq!(run["_meta"]["toolgen"]["annotations"]["group"], "pipeline");
    let script = catalog_tool(&catalog, "ravepipeline-mcp_tool_pipeline_get_script");
    integers_are_integers(&script, "context_size", 5, json!([3, 10, 20]));
}

#[test]
fn strict_mode_fails_on_the_warnings() {
    let mut dirs = vec![own_fixtures()];
    dirs.extend(shared("corpus/rave", "strict_mode_fails_on_the_warnings"));
    for dir in dirs {
        let generator = Generator::new().input(&dir).deny_warnings(true);
        let result = generator.load();
        assert!(
            !generator.accepts(&result),
            "--deny-warnings must reject {}, which has warnings",
            dir.display()
        );
    }
}

/// What must survive a round trip: everything but source locations.
fn essence(t: &Tool) -> Value {
    let annotations: BTreeMap<&String, &Value> =
        t.annotations.iter().map(|(k, v)| (k, &v.value)).collect();
    json!({
        "id": t.id.value, "name": t.name.value, "description": t.description.value,
        "category": t.category.value, "safety": t.safety.value.as_str(), "tier": t.tier.value,
        "input": t.input.value, "output": t.output.value, "requiresApproval": t.requires_approval,
        "annotations": annotations,
    })
}

#[test]
fn rave_round_trip_gives_the_same_ir() {
    let mut sources = vec![
        own_fixtures(),
        fixtures().join("rave-package"),
        root().join("tool-specs/rave"),
    ];
    sources.extend(shared("corpus/rave", "rave_round_trip_gives_the_same_ir"));
    for source in sources {
        let first = load(std::slice::from_ref(&source), &LoadOptions::default());
        assert!(!first.diagnostics.has_errors());
        let dir = toolgen_tests::fresh_dir(&format!(
            "roundtrip-{}",
            source.file_name().and_then(|n| n.to_str()).unwrap_or("x")
        ));
        let tools: Vec<&Tool> = first.project.tools().collect();
        for tool in &tools {
            let path = dir.join(format!("{}.yaml", tool.id.value));
            std::fs::write(&path, to_rave_yaml(tool)).unwrap_or_else(|e| panic!("{e}"));
            let original = toolgen_tests::files_below(&source, "yaml")
                .into_iter()
                .find(|p| p.file_stem().and_then(|s| s.to_str()) == Some(&tool.id.value));
            if let Some(original) = original {
                same_as_written(&original, &path);
            }
        }
        let second = load(std::slice::from_ref(&dir), &LoadOptions::default());
        assert!(!second.diagnostics.has_errors(), "{:?}", second.diagnostics);
        // What the files say as written is reported again, except what the
        // converter cleans (Rd markup, hidden parameters).
        let before: BTreeSet<&str> = first.diagnostics.iter().map(|d| d.rule.code).collect();
        for d in second.diagnostics.iter() {
            assert!(
                before.contains(d.rule.code) && !matches!(d.rule.code, "TG0607" | "TG0609"),
                "{}: {}",
                d.rule.code,
                d.message
            );
        }
        let again: Vec<&Tool> = second.project.tools().collect();
        assert_eq!(tools.len(), again.len());
        for (a, b) in tools.iter().zip(&again) {
            assert_eq!(
                essence(a),
                essence(b),
                "{} changed in the round trip",
                a.id.value
            );
            assert_eq!(a.input.written, b.input.written, "{}", a.id.value);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The converted file says what the original says, read as R reads YAML
/// (1.1): the same values of the same types, parameters in the same order.
/// Rd markup is cleaned, hidden parameters are left out, and
/// `requires_approval` is written only when true (as `mcptool_build()` does).
fn same_as_written(original: &Path, converted: &Path) {
    let read = |p: &Path| {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let parsed = toolgen::syntax::yaml::parse(
            toolgen::source::FileId(0),
            &text,
            toolgen::syntax::yaml::Schema::Yaml11,
        );
        parsed
            .root
            .unwrap_or_else(|| panic!("{p:?} does not parse"))
    };
    let (a, b) = (read(original), read(converted));
    let order = |n: &toolgen::syntax::Node| -> Vec<String> {
        let props = n.get("parameters").and_then(|p| p.get("properties"));
        props
            .and_then(|p| p.as_object())
            .map(|m| {
                m.iter()
                    .map(|m| m.key.clone())
                    .filter(|k| !k.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(order(&a), order(&b), "{original:?}: parameter order");
    let mut want = a.to_json();
    let got = b.to_json();
    clean_as_converted(&mut want);
    assert_eq!(want, got, "{original:?} and its conversion differ");
}

/// What the converter cleans, cleaned in an original: Rd markup, hidden
/// parameters, a false `requires_approval`.
fn clean_as_converted(v: &mut Value) {
    let Value::Object(m) = v else { return };
    // `dangerous: no` is kept as said; `requires_approval` only when true.
    if m.get("requires_approval") == Some(&json!(false)) {
        m.remove("requires_approval");
    }
    for flag in ["dangerous", "requires_approval"] {
        if m.get(flag) == Some(&Value::Null) {
            m.remove(flag);
        }
    }
    if let Some(Value::String(d)) = m.get_mut("description") {
        *d = toolgen::testing::clean_rd(d);
    }
    for key in ["parameters", "returns"] {
        if let Some(schema) = m.get_mut(key) {
            clean_schema(schema);
        }
    }
}

fn clean_schema(v: &mut Value) {
    let Value::Object(m) = v else { return };
    if let Some(Value::String(d)) = m.get_mut("description") {
        *d = toolgen::testing::clean_rd(d);
    }
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        props.retain(|k, _| !k.starts_with('.'));
        props.values_mut().for_each(clean_schema);
    }
    if let Some(Value::Array(req)) = m.get_mut("required") {
        req.retain(|r| !r.as_str().is_some_and(|r| r.starts_with('.')));
    }
    if let Some(items) = m.get_mut("items") {
        clean_schema(items);
    }
}
