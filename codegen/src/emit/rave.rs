//! IR -> RAVE tool YAML, for `toolgen convert --to rave` and the round-trip test.
//!
//! Not one of the generated outputs: a converter into one input format. The
//! file is what `mcptool_build()` would have written for the tool, normalized
//! (integer defaults as integers, no hidden parameters, Rd markup cleaned), so
//! reading it back gives the same IR. From other formats it is lossy: RAVE has
//! no tier, notes or input/output examples.

use serde_json::{Map, Value, json};

use super::yaml::{self, Tree};
use crate::ir::{SafetyLevel, Tool};

/// The RAVE YAML of one tool, with the generated-file header.
pub fn to_rave_yaml(tool: &Tool) -> String {
    let mut doc = Map::new();
    doc.insert("name".into(), json!(tool.id.value));
    doc.insert(
        "description".into(),
        if tool.description.value.is_empty() {
            Value::Null
        } else {
            json!(tool.description.value)
        },
    );
    let parameters = without_dialect(&tool.input.value);
    if !tool.implied.category {
        doc.insert("category".into(), json!(tool.category.value));
    }
    // `dangerous` as the spec said it (RAVE's words for MCP's destructive hint).
    match tool.hints.get("destructiveHint").map(|h| &h.value) {
        Some(Value::Bool(d)) => {
            doc.insert("dangerous".into(), json!(d));
        }
        _ if !tool.implied.safety && tool.safety.value == SafetyLevel::Destructive => {
            doc.insert("dangerous".into(), json!(true));
        }
        _ => {}
    }
    if tool.requires_approval {
        doc.insert("requires_approval".into(), json!(true));
    }
    if let Some(d) = &tool.deprecated {
        doc.insert("deprecated".into(), d.value.to_json());
    }
    if let Some(e) = tool.passthrough.get("execution") {
        doc.insert("execution".into(), (*e.value).clone());
    }
    let returns = without_dialect(&tool.output.value);
    for key in [
        "implementation_example",
        "execution_time",
        "example_response",
        "output_format",
    ] {
        if let Some(v) = tool.annotations.get(key) {
            doc.insert(key.into(), v.value.clone());
        }
    }
    let mut out = String::from(
        "# Converted by toolgen (`toolgen convert --to rave`) in the format of\n# ravepipeline::mcptool_build().\n",
    );
    // Keys in the order R writes them, not alphabetically.
    let order = [
        "name",
        "description",
        "parameters",
        "category",
        "dangerous",
        "requires_approval",
        "returns",
        "implementation_example",
        "execution_time",
        "example_response",
        "output_format",
        "deprecated",
        "execution",
    ];
    // Schemas with their properties in the order the spec wrote them.
    let mut entries: Vec<(String, Tree)> = Vec::new();
    for key in order {
        match key {
            "parameters" => entries.push((key.into(), as_written(&tool.input, &parameters))),
            "returns" if !returns.is_null() => {
                entries.push((key.into(), as_written(&tool.output, &returns)))
            }
            _ => {
                if let Some(v) = doc.get(key) {
                    entries.push((key.into(), Tree::from(v)));
                }
            }
        }
    }
    yaml::write_map(&mut out, &entries, 0);
    out
}

/// A schema as its RAVE file wrote it: properties in their order, values
/// the reader changed back as written, R's special defaults restored.
fn as_written(spec: &crate::ir::Schema, value: &Value) -> Tree {
    let mut tree = Tree::of(&spec.ordered(value));
    for (pointer, v) in &spec.written {
        tree.set(pointer, Tree::from(v));
    }
    restore_r_defaults(&mut tree);
    tree
}

/// Defaults JSON has no value for (R's `NA`, `Inf`), kept as `x-r-default`,
/// back as the words R's yaml package wrote.
fn restore_r_defaults(tree: &mut Tree) {
    match tree {
        Tree::Map(members) => {
            for (k, v) in members.iter_mut() {
                if k == "x-r-default" {
                    let word_only = |w: &str| {
                        !w.is_empty()
                            && w.chars()
                                .all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c))
                    };
                    if let Tree::Scalar(Value::String(word)) = v {
                        if !word_only(word) {
                            continue;
                        }
                        *k = "default".to_owned();
                        *v = Tree::Plain(word.clone());
                        continue;
                    }
                }
                restore_r_defaults(v);
            }
        }
        Tree::Seq(items) => items.iter_mut().for_each(restore_r_defaults),
        Tree::Scalar(_) | Tree::Plain(_) => {}
    }
}

fn without_dialect(schema: &Value) -> Value {
    let mut v = schema.clone();
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
    }
    v
}
