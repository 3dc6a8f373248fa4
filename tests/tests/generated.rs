//! The checked-in `generated/` tree must be exactly what the specs generate,
//! and generation must be deterministic.

use toolgen::Generator;
use toolgen_tests::{editormcp_spec_ids, root};

#[test]
fn generated_tree_is_up_to_date() {
    let g = toolgen_tests::tree_generator(&root(), toolgen_tests::TREES[0]);
    match g.check() {
        Ok((_, report)) => assert!(
            report.is_clean(),
            "generated/ is out of date; run `cargo xtask gen`: {report:?}"
        ),
        Err(e) => panic!("the repository's specs do not generate: {e}"),
    }
}

#[test]
fn the_editormcp_tool_set_is_clean_and_complete() {
    let loaded = Generator::new()
        .input(root().join("tool-specs/editormcp"))
        .load();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let sets = &loaded.project.tool_sets;
    assert_eq!(sets.len(), 1);
    let ids: Vec<&str> = sets[0].tools.iter().map(|t| t.id.value.as_str()).collect();
    // editormcp_spec_ids checks that the seed's 18 core tools are all there.
    assert_eq!(
        ids,
        editormcp_spec_ids(),
        "the tool set holds every spec, by id"
    );
    for tool in &sets[0].tools {
        assert!(
            !tool.examples.is_empty(),
            "{} has no example",
            tool.id.value
        );
    }
    let timeouts: Vec<(String, f64)> = sets[0]
        .tools
        .iter()
        .filter(|t| t.timeout_seconds.is_some())
        .map(|t| (t.id.value.clone(), sets[0].timeout_of(t)))
        .collect();
    assert_eq!(
        timeouts,
        [
            ("project.assets.summary".to_owned(), 10.0),
            ("project.references.missing".to_owned(), 15.0)
        ]
    );
}

#[test]
fn output_does_not_depend_on_input_order() {
    let dir = root().join("tool-specs/editormcp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let forward = Generator::new().inputs(files.iter().cloned()).load();
    files.reverse();
    let backward = Generator::new().inputs(files.iter().cloned()).load();
    let by_dir = Generator::new().input(&dir).load();
    let a = Generator::render(&forward.project);
    let b = Generator::render(&backward.project);
    let c = Generator::render(&by_dir.project);
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_eq!(a, c);
}

/// docs/schemas/editormcp-tool.schema.json (for editor support) accepts every
/// shipped spec, and rejects a spec with a misspelt field.
#[test]
fn specs_conform_to_the_published_format_schema() {
    let root = root();
    let text = std::fs::read_to_string(root.join("docs/schemas/editormcp-tool.schema.json"))
        .unwrap_or_default();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let validator = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("the format schema does not compile: {e}"));
    let mut count = 0;
    for entry in std::fs::read_dir(root.join("tool-specs/editormcp"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let spec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
                .unwrap_or_default();
        let errors: Vec<String> = validator
            .iter_errors(&spec)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        count += 1;
    }
    assert_eq!(count, editormcp_spec_ids().len());
    let bad = serde_json::json!({
        "id": "a.b", "name": "A", "description": "d", "category": "scene", "safetyLevel": "read-only",
        "tier": "core", "inputs": {"x": {"type": "string", "requried": true, "description": "x"}}, "outputs": {}
    });
    assert!(!validator.is_valid(&bad));
}
