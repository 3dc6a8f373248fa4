//! RAVE reading behaviour that the rule fixtures do not show on their own.

use toolgen::Generator;
use toolgen::ir::SafetyLevel;
use toolgen::load::{LoadOptions, group_filters, load};
use toolgen::testing::ident;

fn write_set(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = toolgen_tests::fresh_dir(&format!("rave-{name}"));
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap_or_else(|e| panic!("{e}"));
    }
    dir
}

const TOOL: &str = "name: pkg-mcp_tool_demo_run
description: Runs.
parameters:
  type: object
  properties:
    .state_env:
      type: object
      description: Session state.
    country:
      type: string
      description: Country code.
      enum: [NO, SE, DK]
      default: NO
    type:
      type: string
      description: A parameter named like a keyword.
    data.frame:
      type: boolean
      description: A dotted name, with a YAML 1.1 default.
      default: Off
  required: [.state_env, type]
category: demo
dangerous: Yes
requires_approval: ON
implementation_example: run()
";

#[test]
fn yaml11_booleans_hidden_parameters_and_odd_names() {
    let dir = write_set("behaviour", &[("pkg-mcp_tool_demo_run.yaml", TOOL)]);
    let loaded = load(std::slice::from_ref(&dir), &LoadOptions::default());
    let codes: Vec<&str> = loaded.diagnostics.iter().map(|d| d.rule.code).collect();
    assert_eq!(codes, ["TG0609"], "only the hidden parameter is reported");
    let tool = &loaded.project.tool_sets[0].tools[0];
    // `dangerous: Yes`, `requires_approval: ON`: YAML 1.1 booleans in any case.
    assert_eq!(tool.safety.value, SafetyLevel::Destructive);
    assert!(tool.requires_approval);
    let input = &tool.input.value;
    // Hidden parameters vanish from properties and required.
    assert!(!input.to_string().contains("state_env"), "{input}");
    assert_eq!(input["required"], serde_json::json!(["type"]));
    // Where a string is expected, `NO` stays the string its author wrote.
    assert_eq!(
        input["properties"]["country"]["enum"],
        serde_json::json!(["NO", "SE", "DK"])
    );
    assert_eq!(input["properties"]["country"]["default"], "NO");
    // Where a boolean is expected, `Off` is false.
    assert_eq!(input["properties"]["data.frame"]["default"], false);
    // Names that are not identifiers load, keep their wire names in the catalog, and
    // get valid, distinct identifiers for generated code.
    // Loose RAVE files are a tool set named after their package.
    assert_eq!(loaded.project.tool_sets[0].name, "pkg");
    assert_eq!(loaded.project.tool_sets[0].namespace, "Pkg");
    let files = Generator::render(&loaded.project);
    let catalog = String::from_utf8_lossy(files.get("catalog/pkg/tools.json").unwrap_or_default())
        .into_owned();
    assert!(catalog.contains("\"data.frame\"") && catalog.contains("\"type\""));
    let names: Vec<&str> = input["properties"]
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let idents = ident::unique(&names, ident::rust_snake);
    assert_eq!(idents, ["country", "data_frame", "type_"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_off_the_group_pattern_load_in_no_group() {
    // A helper without the hidden parameter.
    let other = TOOL
        .replace("pkg-mcp_tool_demo_run", "pkg-helper")
        .replace(
            "    .state_env:\n      type: object\n      description: Session state.\n",
            "",
        )
        .replace("required: [.state_env, type]", "required: [type]");
    assert!(!other.contains(".state_env"), "{other}");
    let dir = write_set(
        "groups",
        &[
            ("pkg-mcp_tool_demo_run.yaml", TOOL),
            ("pkg-helper.yaml", &other),
        ],
    );
    let all = load(std::slice::from_ref(&dir), &LoadOptions::default());
    assert_eq!(all.project.tool_count(), 2);
    // Only the demo tool's hidden parameter is reported.
    let places: Vec<String> = all
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d.rule.code,
                d.loc.map(|l| all.db.describe(l)).unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(places.len(), 1, "{places:?}");
    assert!(
        places[0].starts_with("TG0609") && places[0].contains("pkg-mcp_tool_demo_run.yaml"),
        "{places:?}"
    );
    let helper = all.project.tool_sets[0]
        .tools
        .iter()
        .find(|t| t.id.value == "pkg-helper");
    assert!(helper.is_some_and(|t| !t.annotations.contains_key("group")));
    let options = LoadOptions {
        groups: group_filters(&["demo".to_owned()]).unwrap_or_default(),
        ..LoadOptions::default()
    };
    let filtered = load(std::slice::from_ref(&dir), &options);
    let ids: Vec<&str> = filtered.project.tool_sets[0]
        .tools
        .iter()
        .map(|t| t.id.value.as_str())
        .collect();
    assert_eq!(ids, ["pkg-mcp_tool_demo_run"]);
    let _ = std::fs::remove_dir_all(&dir);
}
