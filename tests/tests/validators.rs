//! The validators toolgen compiles (`input_is_valid`, `output_is_valid` in
//! the generated crate) against the `jsonschema` crate, which the runtime
//! used alone before: for every tool generated from `tool-specs/`, both sides,
//! the spec's examples, values drawn from the schema and thousands of mutants
//! of them must get the same answer from both. (Error paths and messages need
//! no comparison: the server always asks the `jsonschema` crate for them.)
//! `cargo xtask fuzz-compile` does the same for mutated schemas,
//! `cargo xtask schema-suite` runs the JSON-Schema-Test-Suite, and the
//! `validators` fuzz target looks for a disagreement with coverage guidance.

use serde_json::Value;
use toolgen_runtime::ToolInfo;
use toolgen_tests::instances::candidates;
use toolgen_tests::synth::Rng;

/// How many values each schema is checked on.
const PER_SCHEMA: usize = 3000;

fn tables() -> Vec<(&'static str, &'static [ToolInfo])> {
    vec![
        ("editormcp", toolgen_generated::editormcp::TOOLS),
        ("toolvault", toolgen_generated::toolvault::TOOLS),
        ("ravedemo", toolgen_generated::ravedemo::TOOLS),
    ]
}

#[test]
fn compiled_validators_agree_with_the_jsonschema_crate() {
    let mut rng = Rng(0x005e_ed0f_7001);
    let (mut schemas, mut checked, mut valid) = (0usize, 0usize, 0usize);
    let mut disagreements = Vec::new();
    for (set, tools) in tables() {
        for info in tools {
            let examples = toolgen_tests::editormcp_spec_examples(info.id);
            let sides = [
                ("input", Some(info.input_schema), info.input_valid),
                ("output", info.output_schema, info.output_valid),
            ];
            for (side, text, compiled) in sides {
                let Some(text) = text else { continue };
                let compiled = compiled.unwrap_or_else(|| {
                    panic!(
                        "{set} {} {side}: toolgen compiled no validator for a shipped spec",
                        info.id
                    )
                });
                let schema: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
                let reference = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                    .unwrap_or_else(|e| panic!("{}: {e}", info.id));
                let mine: Vec<Value> = examples
                    .iter()
                    .filter_map(|e| e.get(side).cloned())
                    .collect();
                schemas += 1;
                for v in candidates(&mut rng, &schema, &mine, PER_SCHEMA) {
                    let expected = reference.is_valid(&v);
                    checked += 1;
                    valid += usize::from(expected);
                    if read_and_check(compiled, &v) != expected {
                        disagreements.push(format!(
                            "{set} {} {side}: {v} (jsonschema: {expected})",
                            info.id
                        ));
                    }
                }
            }
        }
    }
    println!(
        "{schemas} schemas, {checked} values ({valid} valid): {} disagreements",
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements[..disagreements.len().min(20)].join("\n")
    );
    // The values exercise both answers, not only one.
    assert!(
        valid > checked / 20 && valid < checked - checked / 20,
        "{valid} of {checked} valid"
    );
}

/// Every example in the specs is valid by both.
#[test]
fn spec_examples_are_valid_by_the_compiled_validators() {
    for info in toolgen_generated::editormcp::TOOLS {
        for e in toolgen_tests::editormcp_spec_examples(info.id) {
            if let (Some(input), Some(valid)) = (e.get("input"), info.input_valid) {
                assert!(read_and_check(valid, input), "{} input {input}", info.id);
            }
            if let (Some(output), Some(valid)) = (e.get("output"), info.output_valid) {
                assert!(read_and_check(valid, output), "{} output {output}", info.id);
            }
        }
    }
}

/// `valid`'s answer on `v` read from its JSON text, as the server reads a
/// request's arguments (the text path, not a conversion of the `Value`).
fn read_and_check(valid: toolgen_runtime::server::Validity, v: &Value) -> bool {
    let text = v.to_string();
    let parsed = toolgen_runtime::json::Json::parse(&text)
        .unwrap_or_else(|e| panic!("{text} does not read back: {e}"));
    valid(&parsed.json)
}
