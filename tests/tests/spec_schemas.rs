//! The JSON Schemas for editors (`codegen/schemas/`, copied to docs/schemas/):
//! they accept every spec and manifest this
//! repository ships, and reject exactly the rule fixtures whose mistake a
//! schema can see.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgen::source::SourceDb;
use toolgen::testing::spec_schemas;
use toolgen_tests::{files_below, fixtures, root};

/// The published schema of `file` (docs/schemas/), compiled.
fn validator(file: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs/schemas").join(file))
        .unwrap_or_else(|e| panic!("docs/schemas/{file}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{file} does not compile: {e}"))
}

/// A spec or manifest as JSON (YAML read with the 1.2 core schema, as an
/// editor's YAML support reads it), with the schema that applies to it;
/// `None` for files that do not parse or whose format is not clear.
fn document(path: &Path) -> Option<(Value, &'static str)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut db = SourceDb::new();
    let id = db.add(path, text);
    let yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let parsed = if yaml {
        toolgen::syntax::yaml::parse(id, db.get(id).text(), toolgen::syntax::yaml::Schema::Core)
    } else {
        toolgen::syntax::json::parse(id, db.get(id).text())
    };
    let root = parsed.root?;
    if !parsed.diagnostics.is_empty() {
        return None;
    }
    if path.file_name().is_some_and(|n| n == "toolset.yaml") {
        return Some((root.to_json(), spec_schemas::MANIFEST));
    }
    let format = toolgen::testing::detect(&root, yaml)?;
    Some((root.to_json(), spec_schemas::for_format(format)))
}

fn problems(path: &Path) -> Option<Vec<String>> {
    let (value, schema) = document(path)?;
    Some(
        validator(schema)
            .iter_errors(&value)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect(),
    )
}

fn spec_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["json", "yaml", "yml"]
        .iter()
        .flat_map(|ext| files_below(dir, ext))
        .filter(|p| !p.to_string_lossy().ends_with(".schema.json"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_published_schemas_are_the_generated_ones() {
    for (name, text) in spec_schemas::all() {
        let published =
            std::fs::read_to_string(root().join("docs/schemas").join(name)).unwrap_or_default();
        assert_eq!(
            published, text,
            "docs/schemas/{name} is stale; run `cargo xtask gen`"
        );
    }
}

#[test]
fn every_shipped_spec_and_manifest_conforms() {
    let mut checked = [0usize; 4];
    for path in spec_files(&root().join("tool-specs")) {
        let (_, schema) = document(&path).unwrap_or_else(|| panic!("{}", path.display()));
        let errors = problems(&path).unwrap_or_default();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        let slot = [
            spec_schemas::EDITORMCP,
            spec_schemas::MCP,
            spec_schemas::RAVE,
            spec_schemas::MANIFEST,
        ]
        .iter()
        .position(|s| *s == schema)
        .unwrap_or(0);
        checked[slot] += 1;
    }
    // EditorMCP, MCP, RAVE specs and the four manifests.
    assert!(checked.iter().all(|&n| n > 0), "{checked:?}");
    assert_eq!(checked[3], 4);
    // Loose real-world files too: the project's own RAVE and MCP fixtures.
    for dir in ["rave-loose", "mcp-tools"] {
        for path in spec_files(&fixtures().join(dir)) {
            let errors = problems(&path).unwrap_or_default();
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        }
    }
}

/// The rule fixtures a schema rejects: the mistakes an editor shows while
/// the author types. Every other fixture's mistake needs toolgen (the
/// manifest, other files, types against defaults, ...).
const REJECTED_BY_A_SCHEMA: &[&str] = &[
    "TG0101-missing-field",
    "TG0101-missing-field-rave-type",
    "TG0102-empty-field",
    "TG0103-wrong-type",
    "TG0103-wrong-type-rave-flag",
    "TG0104-unknown-field",
    "TG0105-invalid-value",
    // `picture` is not one of the content types the schema lists.
    "TG0105-invalid-value-content",
    "TG0105-invalid-value-mcp-input-type",
    "TG0105-invalid-value-rave-task-support",
    // `iconz` is not a field of the MCP tool schema (toolgen warns and keeps it).
    "TG0106-passthrough-field",
    "TG0201-id-format",
    // The second id is `Scene.Sample`: its uppercase letter breaks the id pattern.
    "TG0202-duplicate-id-case",
    "TG0203-id-path-unsafe",
    "TG0205-category-format",
    "TG0206-unknown-safety-level",
    "TG0211-timeout-range",
    "TG0301-property-name",
    "TG0302-unknown-type",
    "TG0303-required-with-default",
    "TG0308-array-items-missing",
    "TG0504-tool-set-name",
    // MCP's `Tool` says an input schema is an object's.
    "TG1004-client-root-schema",
];

#[test]
fn the_schemas_reject_the_fixtures_whose_mistake_they_can_see() {
    let mut rejected = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("rules"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let any = spec_files(&dir)
            .iter()
            .any(|p| problems(p).is_some_and(|e| !e.is_empty()));
        if any {
            rejected.push(name);
        }
    }
    let expected: Vec<String> = REJECTED_BY_A_SCHEMA
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(
        rejected, expected,
        "the fixtures the published schemas reject changed; check each, then update REJECTED_BY_A_SCHEMA"
    );
}
