//! JSON Schemas of the files a tool author writes (a spec in each format, and
//! the `toolset.yaml` manifest), for editors: a spec or manifest that names
//! its schema (`"$schema"` in JSON, `# yaml-language-server: $schema=` in
//! YAML) gets completion, hover docs and squiggles while it is typed.
//!
//! They are written as what they are, JSON Schema files (`codegen/schemas/`),
//! and compiled in. The readers in [`crate::formats`] stay hand-written: they
//! read spanned trees for located diagnostics and real-world looseness that a
//! schema cannot express. Tests keep the two in step: every key a reader
//! accepts is a property here and the other way round, the schemas accept
//! every spec in `tool-specs/`, and they reject the rule fixtures whose
//! mistake a schema can see. `cargo xtask gen` copies them to `docs/schemas/`
//! (and `--check` fails when they differ); `toolgen init` and
//! `toolgen schemas` write them next to a user's tool set.
//!
//! They are draft-07 (what editors support best) and a little looser than
//! toolgen: categories, tiers, defaults against types and the rest of the
//! rules need the manifest or the whole spec, and are toolgen's to report.

/// The schema files' names.
pub const EDITORMCP: &str = "editormcp-tool.schema.json";
pub const MCP: &str = "mcp-tool.schema.json";
pub const RAVE: &str = "rave-tool.schema.json";
pub const MANIFEST: &str = "toolset.schema.json";

/// The file name of each schema, and the text of its file.
pub fn all() -> [(&'static str, &'static str); 4] {
    [
        (
            EDITORMCP,
            include_str!("../schemas/editormcp-tool.schema.json"),
        ),
        (MCP, include_str!("../schemas/mcp-tool.schema.json")),
        (MANIFEST, include_str!("../schemas/toolset.schema.json")),
        (RAVE, include_str!("../schemas/rave-tool.schema.json")),
    ]
}

/// The file name of the schema of a spec in `format`.
pub fn for_format(format: crate::ir::Format) -> &'static str {
    match format {
        crate::ir::Format::EditorMcp => EDITORMCP,
        crate::ir::Format::Mcp => MCP,
        crate::ir::Format::Rave => RAVE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn schema(name: &str) -> Value {
        let text = all()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, t)| t);
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn keys(schema: &Value) -> Vec<String> {
        let mut k: Vec<String> = schema["properties"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    }

    fn sorted(list: &[&str]) -> Vec<String> {
        let mut k: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
        k.sort();
        k
    }

    /// The schemas and the readers know the same keys.
    #[test]
    fn schemas_have_the_keys_the_readers_accept() {
        assert_eq!(
            keys(&schema(EDITORMCP)),
            sorted(crate::formats::editormcp::TOP_KEYS)
        );
        assert_eq!(keys(&schema(MCP)), sorted(crate::formats::mcp::TOP_KEYS));
        assert_eq!(keys(&schema(RAVE)), sorted(crate::formats::rave::TOP_KEYS));
        assert_eq!(keys(&schema(MANIFEST)), sorted(crate::manifest::KEYS));
        let property = keys(&schema(EDITORMCP)["definitions"]["EditorMcpProperty"]);
        assert_eq!(
            property,
            sorted(&crate::formats::editormcp::translate::property_keys())
        );
    }

    /// The lists a schema repeats from toolgen: the rules a manifest may
    /// configure, and the types a RAVE parameter may have.
    #[test]
    fn schemas_list_what_toolgen_knows() {
        let mut rules: Vec<&str> = crate::diag::rule::ALL
            .iter()
            .filter(|r| r.is_configurable())
            .flat_map(|r| [r.code, r.name])
            .collect();
        rules.sort_unstable();
        let manifest = schema(MANIFEST);
        assert_eq!(
            manifest["properties"]["lints"]["propertyNames"]["enum"],
            serde_json::json!(rules),
            "the rules `lints:` takes in codegen/schemas/{MANIFEST}"
        );
        let rave = schema(RAVE);
        let ty = rave["definitions"]["RaveSchema"]["properties"]["properties"]
            ["additionalProperties"]["properties"]["type"]["anyOf"]
            .clone();
        let types = serde_json::json!(crate::formats::rave::TYPES);
        assert_eq!(ty[0]["enum"], types, "RAVE types in codegen/schemas/{RAVE}");
        assert_eq!(ty[1]["items"]["enum"], types);
    }

    #[test]
    fn schemas_are_valid_draft_07() {
        for (name, _) in all() {
            let schema = schema(name);
            assert!(
                jsonschema::draft7::meta::is_valid(&schema),
                "{name} is not a valid draft-07 schema"
            );
            assert!(
                jsonschema::draft7::new(&schema).is_ok(),
                "{name} does not compile"
            );
        }
    }
}
