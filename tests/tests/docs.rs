//! The docs emitter: spec text renders as text (no HTML, no template or mdBook
//! directives, no broken tables), and every tool set gets its pages. The
//! generated tree itself (generated/docs) is the golden output, checked for
//! freshness by `generated.rs`; `cargo xtask docs` builds and checks the HTML.

use std::collections::BTreeSet;

use serde_json::Value;
use toolgen_tests::{fixtures, root};

#[test]
fn hostile_spec_text_is_data_not_markup() {
    let dir = root()
        .join("target/docs-tests")
        .join(format!("hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let generated = toolgen::Generator::new()
        .input(fixtures().join("csharp-hostile"))
        .out_dir(&dir)
        .generate();
    assert!(
        generated.is_ok(),
        "{:?}",
        generated.err().map(|e| e.to_string())
    );
    let page = std::fs::read_to_string(dir.join("docs/src/hostile/class.string-default.md"))
        .unwrap_or_default();
    assert!(!page.contains("<script>"), "{page}");
    assert!(page.contains("&lt;script>alert(1)&lt;/script>"), "{page}");
    // Prose is Markdown: a code span is code; no mdBook directive survives.
    assert!(page.contains("fourth `code`"), "{page}");
    assert!(!page.replace("\\{{#", "").contains("{{#"), "{page}");
    // Inputs are a list, one line per property, nested ones indented.
    let inputs: Vec<&str> = page
        .lines()
        .skip_while(|l| *l != "## Inputs")
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(inputs.len() > 8, "{page}");
    for line in &inputs {
        assert!(
            line.trim_start().starts_with("- "),
            "a property breaks the list: {line}"
        );
    }
    // A title line cannot start a new heading or list.
    assert!(
        page.starts_with("# Nasty \"Name\" &lt;/summary&gt;"),
        "{page}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_tool_of_every_set_has_a_page() {
    let summary =
        std::fs::read_to_string(root().join("generated/docs/src/SUMMARY.md")).unwrap_or_default();
    for set in ["editormcp", "ravedemo", "toolvault"] {
        let catalog: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join(format!("generated/catalog/{set}/tools.json")))
                .unwrap_or_default(),
        )
        .unwrap_or_default();
        let tools = catalog["tools"].as_array().cloned().unwrap_or_default();
        assert!(!tools.is_empty(), "{set}");
        for t in tools {
            let id = t["name"].as_str().unwrap_or("");
            let page = format!("{set}/{id}.md");
            assert!(
                root().join("generated/docs/src").join(&page).is_file(),
                "{page}"
            );
            assert!(
                summary.contains(&format!("]({page})")),
                "SUMMARY links {page}"
            );
        }
    }
    let go = std::fs::read_to_string(root().join("generated/docs/src/editormcp/go.setParent.md"))
        .unwrap_or_default();
    assert!(go.contains("tg-safe-write") && go.contains("Changes the project"));
    assert!(go.contains("\"tool\": \"go.setParent\"") && go.contains("\"name\": \"go.setParent\""));
    // An MCP tool set speaks MCP only: no envelope request, no project wording.
    let mcp =
        std::fs::read_to_string(root().join("generated/docs/src/toolvault/calculate_bearing.md"))
            .unwrap_or_default();
    assert!(
        !mcp.contains("\"tool\": \"calculate_bearing\"")
            && mcp.contains("\"name\": \"calculate_bearing\"")
    );
    assert!(!mcp.contains("project"), "{mcp}");
}

/// The JSON code blocks of a page after its heading `## Calling it`.
fn calls(page: &str) -> Vec<Value> {
    let section = page.split("## Calling it").nth(1).unwrap_or("");
    section
        .split("```json\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .filter_map(|b| serde_json::from_str(b).ok())
        .collect()
}

/// Every property name in `schema` at every depth, references followed
/// (each definition once).
fn property_names(
    root: &Value,
    schema: &Value,
    seen: &mut Vec<String>,
    out: &mut BTreeSet<String>,
) {
    match schema {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                if !seen.iter().any(|s| s == r) {
                    seen.push(r.to_owned());
                    let target = r
                        .strip_prefix('#')
                        .and_then(|p| root.pointer(p))
                        .cloned()
                        .unwrap_or_default();
                    property_names(root, &target, seen, out);
                }
            }
            if let Some(Value::Object(props)) = m.get("properties") {
                out.extend(props.keys().cloned());
            }
            for (k, v) in m {
                if !matches!(
                    k.as_str(),
                    "$defs" | "default" | "enum" | "const" | "examples"
                ) {
                    match (k.as_str(), v) {
                        ("properties", Value::Object(props)) => props
                            .values()
                            .for_each(|p| property_names(root, p, seen, out)),
                        _ => property_names(root, v, seen, out),
                    }
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| property_names(root, v, seen, out)),
        _ => {}
    }
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Every tool page of every generated tree: its sample requests validate
/// against the tool's input schema and its sample responses against its
/// output schema (as MCP clients get it, and as the envelope returns it),
/// and every property name at every depth of both schemas is on the page.
#[test]
fn sample_calls_are_valid_and_every_property_is_shown() {
    let mut pages = 0;
    for (_, out, _) in toolgen_tests::TREES {
        let catalog_dir = root().join(out).join("catalog");
        for index in toolgen_tests::files_below(&catalog_dir, "json")
            .into_iter()
            .filter(|p| p.ends_with("tools.json"))
        {
            let set = index
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            let list: Value =
                serde_json::from_str(&std::fs::read_to_string(&index).unwrap_or_default())
                    .unwrap_or_default();
            for tool in list["tools"].as_array().into_iter().flatten() {
                let id = tool["name"].as_str().unwrap_or_default();
                let path = root().join(out).join(format!("docs/src/{set}/{id}.md"));
                let page =
                    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
                pages += 1;
                let blocks = calls(&page);
                let requests: Vec<&Value> = blocks
                    .iter()
                    .filter(|b| b["method"] == "tools/call")
                    .collect();
                assert!(!requests.is_empty(), "{path:?}: no sample request");
                let input = validator(&tool["inputSchema"]);
                for r in &requests {
                    let args = &r["params"]["arguments"];
                    let errors: Vec<String> =
                        input.iter_errors(args).map(|e| e.to_string()).collect();
                    assert!(
                        errors.is_empty(),
                        "{path:?}: {args} is not valid: {errors:?}"
                    );
                }
                let own = catalog_dir.join(format!("{set}/schemas/{id}.output.json"));
                if let (Some(published), Ok(text)) =
                    (tool.get("outputSchema"), std::fs::read_to_string(&own))
                {
                    let mcp = validator(published);
                    let envelope = validator(&serde_json::from_str(&text).unwrap_or_default());
                    for b in blocks.iter().filter(|b| b.get("result").is_some()) {
                        let (v, value) = match b["result"].get("structuredContent") {
                            Some(s) => (&mcp, s),
                            None => (&envelope, &b["result"]["output"]),
                        };
                        let errors: Vec<String> =
                            v.iter_errors(value).map(|e| e.to_string()).collect();
                        assert!(
                            errors.is_empty(),
                            "{path:?}: {value} is not valid: {errors:?}"
                        );
                    }
                }
                let mut names = BTreeSet::new();
                let output: Value = std::fs::read_to_string(&own)
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default();
                for s in [&tool["inputSchema"], &output] {
                    property_names(s, s, &mut Vec::new(), &mut names);
                }
                for name in names {
                    let shown = format!("<code>{}", toolgen::testing::md_cell(&name));
                    assert!(
                        page.contains(&shown),
                        "{path:?} does not show property `{name}`"
                    );
                }
            }
        }
    }
    assert!(pages > 35, "{pages} pages");
}
