//! The real RAVE files in ../shared/corpus/rave (written by ravepipeline's
//! `mcptool_build()`, kept byte for byte) go through the whole pipeline.

use std::collections::BTreeMap;
use std::path::PathBuf;

use toolgen::Generator;
use toolgen::diag::Severity;
use toolgen::emit::rave::to_rave_yaml;
use toolgen::ir::Tool;
use toolgen::load::{LoadOptions, load};
use toolgen_tests::{fixtures, root};

fn rave_corpus() -> PathBuf {
    let dir = root()
        .parent()
        .map(|p| p.join("shared/corpus/rave"))
        .unwrap_or_default();
    assert!(
        dir.is_dir(),
        "the RAVE corpus is expected at {} (shared/ beside the repository)",
        dir.display()
    );
    dir
}

#[test]
fn rave_corpus_validates_without_errors_and_generates() {
    let dir = rave_corpus();
    let loaded = load(std::slice::from_ref(&dir), &LoadOptions::default());
    assert_eq!(loaded.spec_files, 18);
    assert_eq!(loaded.project.tool_count(), 18);
    assert_eq!(loaded.diagnostics.count(Severity::Error), 0);

    // The diagnostics, snapshotted: code, position and message of every warning.
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
    let golden = fixtures().join("corpus/rave.diagnostics.txt");
    if std::env::var_os("TOOLGEN_BLESS").is_some() {
        let _ = std::fs::create_dir_all(golden.parent().unwrap_or(&dir));
        let _ = std::fs::write(&golden, &text);
    } else {
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        assert_eq!(
            expected, text,
            "corpus diagnostics changed; re-bless with TOOLGEN_BLESS=1 after review"
        );
    }

    // Generation works and covers every tool.
    let files = Generator::render(&loaded.project);
    let catalog = files.get("catalog/rave/tools.json").unwrap_or_default();
    let catalog: serde_json::Value = serde_json::from_slice(catalog).unwrap_or_default();
    assert_eq!(catalog["tools"].as_array().map(Vec::len), Some(18));
    // requires_approval and dangerous reach the catalog.
    let run = catalog["tools"]
        .as_array()
        .and_then(|t| {
            t.iter()
                .find(|t| t["name"] == "ravepipeline-mcp_tool_pipeline_run")
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(run["annotations"]["destructiveHint"], true);
    assert_eq!(run["_meta"]["toolgen"]["requiresApproval"], true);
    assert_eq!(run["_meta"]["toolgen"]["annotations"]["group"], "pipeline");
    // Integer defaults written as 5.0 come out as integers; string examples as numbers.
    let script = catalog["tools"]
        .as_array()
        .and_then(|t| {
            t.iter()
                .find(|t| t["name"] == "ravepipeline-mcp_tool_pipeline_get_script")
        })
        .cloned()
        .unwrap_or_default();
    let context = &script["inputSchema"]["properties"]["context_size"];
    assert_eq!(context["default"], serde_json::json!(5));
    assert!(context["default"].is_u64());
    assert_eq!(context["examples"], serde_json::json!([3, 10, 20]));
}

#[test]
fn strict_mode_fails_on_the_corpus_warnings() {
    let loaded = Generator::new().input(rave_corpus()).deny_warnings(true);
    let result = loaded.load();
    assert!(
        !loaded.accepts(&result),
        "--deny-warnings must reject a corpus with warnings"
    );
}

/// What must survive a round trip: everything but source locations.
fn essence(t: &Tool) -> serde_json::Value {
    let annotations: BTreeMap<&String, &serde_json::Value> =
        t.annotations.iter().map(|(k, v)| (k, &v.value)).collect();
    serde_json::json!({
        "id": t.id.value, "name": t.name.value, "description": t.description.value,
        "category": t.category.value, "safety": t.safety.value.as_str(), "tier": t.tier.value,
        "input": t.input.value, "output": t.output.value, "requiresApproval": t.requires_approval,
        "annotations": annotations,
    })
}

#[test]
fn rave_round_trip_gives_the_same_ir() {
    for source in [rave_corpus(), root().join("tool-specs/rave")] {
        let first = load(std::slice::from_ref(&source), &LoadOptions::default());
        assert!(!first.diagnostics.has_errors());
        let dir = toolgen_tests::fresh_dir(&format!(
            "roundtrip-{}",
            source.file_name().and_then(|n| n.to_str()).unwrap_or("x")
        ));
        let tools: Vec<&Tool> = first
            .project
            .tool_sets
            .iter()
            .flat_map(|s| &s.tools)
            .collect();
        for tool in &tools {
            std::fs::write(
                dir.join(format!("{}.yaml", tool.id.value)),
                to_rave_yaml(tool),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
        let second = load(std::slice::from_ref(&dir), &LoadOptions::default());
        assert!(!second.diagnostics.has_errors(), "{:?}", second.diagnostics);
        // The written files are normalized: only the looseness that cannot be fixed
        // by rewriting (no description, no implementation example) is reported again.
        for d in second.diagnostics.iter() {
            assert!(
                matches!(d.rule.code, "TG0602" | "TG0608"),
                "{}: {}",
                d.rule.code,
                d.message
            );
        }
        let again: Vec<&Tool> = second
            .project
            .tool_sets
            .iter()
            .flat_map(|s| &s.tools)
            .collect();
        assert_eq!(tools.len(), again.len());
        for (a, b) in tools.iter().zip(&again) {
            assert_eq!(
                essence(a),
                essence(b),
                "{} changed in the round trip",
                a.id.value
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
