//! `cargo xtask fuzz-compile [--cases N] [--seed S] [--verbose]`: does the
//! generated Rust and C# compile for schemas nobody wrote on purpose?
//!
//! Each case takes an MCP-format spec (the ToolVault tool set, the Rust-hostile
//! fixture), mutates its `inputSchema`/`outputSchema` a few times (values swapped
//! for other schemas, properties with hostile names added or removed,
//! combinators, enums, defaults, nullable objects), and generates it. Specs that
//! validation rejects are counted and skipped: that path is fuzzed by
//! `codegen/tests/fuzz.rs`. Every accepted spec must give code that compiles
//! and types that hold what the schema accepts:
//! - its C# is compiled with Mono's `mcs` (`-warnaserror+`, as the tests do;
//!   installed with apt when missing);
//! - its Rust crate gets a test that deserializes instances of the mutated
//!   tool's bundled schemas into the typed `Input`/`Output` and serializes them
//!   back without losing a value (the instances are generated from the schema
//!   and kept only when the JSON Schema validator accepts them), run with
//!   `cargo test`: no error, no warning, no failure.
//!
//! Failing cases are kept under `target/fuzz-compile-failures/`. Deterministic
//! for a seed.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use toolgen::Generator;
use toolgen_tests::synth::Rng;

use crate::tools::{cargo, mono_toolchain};

const NAMES: &[&str] = &[
    "a-b",
    "a_b",
    "A_B",
    "type",
    "self",
    "Self",
    "1st",
    "x.y",
    "__",
    "\u{fc}",
    "a b",
    "Output",
    "Input",
    "default",
    "crate",
    "super",
    "None",
    "Some",
    "Ok",
    "Result",
    "Option",
    "String",
    "Vec",
    "Box",
    "std",
    "serde",
    "core",
    "properties",
    "value",
    "Value",
];

/// Schemas (and non-schemas) to put in place of a value.
fn replacements() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(""),
        json!([]),
        json!({}),
        json!({"type": "object"}),
        json!({"type": "string", "enum": ["a", "A", "a-b", "a_b", ""]}),
        json!({"type": ["string", "null"]}),
        json!({"type": "array", "items": {"type": "integer", "minimum": 0}}),
        json!({"type": "object", "additionalProperties": {"type": "number"}}),
        json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]}),
        json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object", "properties": {"b": {"type": "string"}}}]}),
        json!({"type": "integer", "default": 3}),
        json!({"type": "string", "default": "z", "format": "date-time"}),
        json!({"const": "k"}),
        json!({"enum": [1, 2, "x", null]}),
        json!({"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]}),
        json!({"type": "array", "items": {"$ref": "#"}}),
        json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}}),
        json!({"not": {"type": "string"}}),
        json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "integer"}}),
        json!({"enum": ["a", 1, true, null]}),
        json!({"type": "object", "properties": {"format": {"type": "string"}}, "default": {"format": "csv"}}),
        json!({"type": "array", "items": {"type": "number"}, "uniqueItems": true}),
        json!({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}),
        // Optional nullable (absent, null and a value are three things), unions
        // of distinct JSON types and const-tagged unions.
        json!({"type": ["integer", "null"], "minimum": 1}),
        json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}),
        json!({"oneOf": [{"type": "string"}, {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]}, {"type": "array", "items": {"type": "integer"}}]}),
        json!({"type": ["string", "number", "boolean"]}),
        json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": ["string", "null"]}}, "required": ["kind"]}
        ]}),
    ]
}

const KEYS: &[&str] = &[
    "properties",
    "items",
    "additionalProperties",
    "default",
    "enum",
    "oneOf",
    "anyOf",
    "allOf",
    "title",
    "description",
    "not",
    "if",
    "patternProperties",
];

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.below(items.len() as u64) as usize]
}

fn mutate(rng: &mut Rng, v: &mut Value, values: &[Value]) {
    let r = rng.below(100);
    match v {
        Value::Object(m) if !m.is_empty() => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let key = pick(rng, &keys).clone();
            if r < 55 {
                if let Some(x) = m.get_mut(&key) {
                    mutate(rng, x, values);
                }
            } else if r < 65 {
                m.remove(&key);
            } else if r < 85 && m.get("properties").is_some_and(Value::is_object) {
                let name = (*pick(rng, NAMES)).to_owned();
                let value = pick(rng, values).clone();
                if let Some(Value::Object(p)) = m.get_mut("properties") {
                    p.insert(name, value);
                }
            } else {
                let key = (*pick(rng, KEYS)).to_owned();
                m.insert(key, pick(rng, values).clone());
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len() as u64) as usize;
            mutate(rng, &mut a[i], values);
        }
        _ => {
            if r < 50 {
                *v = pick(rng, values).clone();
            }
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()))?;
        } else {
            std::fs::copy(&path, to.join(entry.file_name()))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

pub fn run(root: &Path, args: &[&str]) -> Result<(), String> {
    let option = |name: &str, default: u64| -> Result<u64, String> {
        match args.iter().position(|a| *a == name) {
            None => Ok(default),
            Some(i) => args
                .get(i + 1)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number")),
        }
    };
    let cases = option("--cases", 100)?;
    let mut rng = Rng(option("--seed", 1)?.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut sources: Vec<PathBuf> = Vec::new();
    for dir in ["tool-specs/toolvault", "tests/fixtures/rust-hostile"] {
        sources.extend(
            toolgen_tests::files_below(&root.join(dir), "json")
                .into_iter()
                .filter(|p| !p.to_string_lossy().ends_with(".schema.json")),
        );
    }
    // Outside the workspace: the generated crate is a package of its own.
    let work = std::env::temp_dir().join("toolgen-fuzz-compile");
    let target = work.join("target");
    let failures = root.join("target/fuzz-compile-failures");
    mono_toolchain()?;
    let newtonsoft = toolgen_tests::newtonsoft_json_dll()
        .ok_or("Newtonsoft.Json.dll not found after installing it")?;
    let _ = std::fs::remove_dir_all(&failures);
    let values = replacements();
    let (mut rejected, mut compiled, mut broken) = (0, 0, 0);
    let mut checked = Checked::default();
    for case in 0..cases {
        let source = pick(&mut rng, &sources).clone();
        let specs = work.join("specs");
        let _ = std::fs::remove_dir_all(&specs);
        copy_dir(source.parent().unwrap_or(root), &specs)?;
        // Every other case generates what a server needs only (`rustSerde:
        // server`, the default: inputs read, outputs written; the sources'
        // manifests ask for both ways), so both kinds of types must compile.
        let server = case % 2 == 1;
        if server {
            let manifest = specs.join("toolset.yaml");
            let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
            let one_way = text.replace("rustSerde: both", "rustSerde: server");
            std::fs::write(&manifest, one_way).map_err(|e| e.to_string())?;
        }
        let text = std::fs::read_to_string(&source).map_err(|e| e.to_string())?;
        let mut spec: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let Some(tool) = spec.as_object_mut() else {
            continue;
        };
        tool.remove("examples");
        let schemas: Vec<&str> = ["inputSchema", "outputSchema"]
            .into_iter()
            .filter(|k| tool.get(*k).is_some_and(Value::is_object))
            .collect();
        if schemas.is_empty() {
            continue; // a schema document beside the tools, not a tool
        }
        for _ in 0..1 + rng.below(4) {
            let key = *pick(&mut rng, &schemas);
            let Some(schema) = tool.get_mut(key) else {
                continue;
            };
            mutate(&mut rng, schema, &values);
            if key == "inputSchema" {
                if let Value::Object(m) = schema {
                    m.insert("type".into(), json!("object"));
                }
            }
        }
        let file = specs.join(source.file_name().unwrap_or_default());
        let pretty = serde_json::to_string_pretty(&spec).map_err(|e| e.to_string())?;
        std::fs::write(&file, pretty).map_err(|e| e.to_string())?;
        let out = work.join("out");
        let generated = Generator::new()
            .input(&specs)
            .out_dir(&out)
            .rust_runtime_path(&root.join("runtime").display().to_string())
            .generate();
        if let Err(e) = generated {
            rejected += 1;
            if args.contains(&"--verbose") {
                let first = e.to_string().lines().next().unwrap_or("").to_owned();
                println!("case {case}: rejected: {first}");
            }
            continue;
        }
        checked += write_round_trip(&mut rng, &out, &spec, server)?;
        let check = cargo()
            .args(["test", "--quiet", "--message-format", "short"])
            .current_dir(out.join("rust"))
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .map_err(|e| format!("cargo check: {e}"))?;
        let rust = crate::tools::printed(&check);
        let warned = String::from_utf8_lossy(&check.stderr).contains("warning");
        let rust_ok = check.status.success() && !warned;
        let mcs = std::process::Command::new("mcs")
            .args([
                "-langversion:7.2",
                "-warnaserror+",
                "-nowarn:1591",
                "-target:library",
            ])
            .arg(format!("-r:{}", newtonsoft.display()))
            .arg("-r:System.Runtime.Serialization.dll")
            .arg(format!("-out:{}", work.join("fuzz.dll").display()))
            .args(toolgen_tests::files_below(&out.join("csharp"), "cs"))
            .args(toolgen_tests::files_below(&out.join("csharp-bridge"), "cs"))
            .output()
            .map_err(|e| format!("mcs: {e}"))?;
        // mcs prints its errors on stderr and its summary on stdout.
        let csharp = crate::tools::printed(&mcs);
        if rust_ok && mcs.status.success() {
            compiled += 1;
            continue;
        }
        broken += 1;
        let kept = failures.join(format!("case-{case}"));
        copy_dir(&specs, &kept)?;
        let (what, errors) = if rust_ok {
            ("C#", csharp)
        } else {
            ("Rust", rust)
        };
        // Compiler errors and warnings, and a failed round trip's panic with its message.
        let lines: Vec<&str> = errors.lines().collect();
        let first: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(i, l)| {
                l.contains("error")
                    || l.contains("warning")
                    || l.contains("panicked")
                    || (*i > 0 && lines[i - 1].contains("panicked"))
            })
            .map(|(_, l)| *l)
            .take(8)
            .collect();
        println!(
            "case {case} ({}): the generated {what} does not compile or loses values; spec kept in {}\n{}",
            source.display(),
            kept.display(),
            first.join("\n")
        );
    }
    println!(
        "{cases} cases: {compiled} compiled (Rust and C#) and round-tripped {} instances, {rejected} rejected by validation, {broken} failed; {} schemas got a compiled validator checked against the jsonschema crate, {} kept the crate",
        checked.instances, checked.compiled, checked.kept
    );
    if broken > 0 {
        return Err(format!(
            "{broken} accepted spec(s) gave code that does not compile or loses values"
        ));
    }
    Ok(())
}

/// What one case's generated test checks: valid instances round-tripped, and
/// schemas whose compiled validator is compared with the `jsonschema` crate
/// (or that kept the crate).
#[derive(Default)]
struct Checked {
    instances: usize,
    compiled: usize,
    kept: usize,
}

impl std::ops::AddAssign for Checked {
    fn add_assign(&mut self, case: Checked) {
        let Checked {
            instances,
            compiled,
            kept,
        } = case;
        self.instances += instances;
        self.compiled += compiled;
        self.kept += kept;
    }
}

/// Writes instances of the mutated tool's bundled schemas and the round-trip
/// test into the generated crate (`server`: its types only go one way);
/// returns what that test checks.
fn write_round_trip(
    rng: &mut Rng,
    out: &Path,
    spec: &Value,
    server: bool,
) -> Result<Checked, String> {
    let lib = std::fs::read_to_string(out.join("rust/src/lib.rs")).map_err(|e| e.to_string())?;
    let Some(set) = lib
        .lines()
        .find_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
    else {
        return Ok(Checked::default());
    };
    let id = spec["name"].as_str().unwrap_or("");
    let mut sides = Map::new();
    let mut count = Checked::default();
    for side in ["input", "output"] {
        let path = out.join(format!("catalog/{set}/schemas/{id}.{side}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let schema: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let Ok(validator) = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
        else {
            continue;
        };
        let found = valid_instances(rng, &schema, &validator);
        count.instances += found.len();
        // The compiled validator must answer as the `jsonschema` crate does.
        let verdicts = verdicts(rng, &schema, &found, &validator);
        if toolgen::testing::compile_validator(&schema, side, side).is_ok() {
            count.compiled += 1;
        } else {
            count.kept += 1;
        }
        sides.insert(format!("{side}Verdicts"), Value::Array(verdicts));
        sides.insert(side.to_owned(), Value::Array(found));
    }
    let tests = out.join("rust/tests");
    std::fs::create_dir_all(&tests).map_err(|e| e.to_string())?;
    let instances = json!({ id: sides });
    std::fs::write(tests.join("instances.json"), instances.to_string())
        .map_err(|e| e.to_string())?;
    let test = round_trip_test(set, server);
    std::fs::write(tests.join("round_trip.rs"), test).map_err(|e| e.to_string())?;
    Ok(count)
}

/// Up to three instances of a bundled schema that its validator accepts.
fn valid_instances(rng: &mut Rng, schema: &Value, validator: &jsonschema::Validator) -> Vec<Value> {
    (0..6)
        .filter_map(|_| toolgen_tests::instances::instance(rng, schema, schema, 0))
        .filter(|v| validator.is_valid(v))
        .take(3)
        .collect()
}

/// Values for a schema's compiled validator (drawn, mutated) with the
/// `jsonschema` crate's verdicts: `[[value, valid], ...]`.
fn verdicts(
    rng: &mut Rng,
    schema: &Value,
    found: &[Value],
    validator: &jsonschema::Validator,
) -> Vec<Value> {
    toolgen_tests::instances::candidates(rng, schema, found, 300)
        .into_iter()
        .map(|v| {
            let valid = validator.is_valid(&v);
            json!([v, valid])
        })
        .collect()
}

/// `tests/round_trip.rs` of a generated crate: every instance deserializes
/// into the tool's typed `Input` (or `Output`) and serializes back without
/// losing a value. With `server` types (an `Input` is only read, an `Output`
/// only written), every input instance deserializes.
fn round_trip_test(set: &str, server: bool) -> String {
    let (input_back, outputs) = if server {
        ("let _ = typed;", "")
    } else {
        (
            r#"let back = serde_json::to_value(&typed).unwrap_or_default();
                assert!(kept(v, &back), "{} input {v} came back as {back}", $id);"#,
            r#"for v in all[$id]["output"].as_array().into_iter().flatten() {
                let mut value = v.clone();
                toolgen_runtime::server::whole_numbers_as_integers(&mut value);
                let typed: toolgen_generated::SET::$module::Output = serde_json::from_value(value)
                    .unwrap_or_else(|e| panic!("{} output {v}: {e}", $id));
                let back = serde_json::to_value(&typed).unwrap_or_default();
                assert!(kept(v, &back), "{} output {v} came back as {back}", $id);
            }"#,
        )
    };
    let outputs = outputs.replace("SET", set);
    format!(
        r#"//! Written by `cargo xtask fuzz-compile`.
// A schema that no value satisfies (an `integer` property that
// `additionalProperties` also requires to be a `string`) gives an uninhabited
// type; the code after deserializing into it is unreachable, and that is fine.
// With one-way types nothing comes back, and `kept` goes unused.
#![allow(unreachable_code, unused_variables, dead_code)]
use serde_json::Value;

/// Every value of `a` is in `b` (which may add defaults), `null` too: an
/// optional property that allows `null` keeps absent and `null` apart.
fn kept(a: &Value, b: &Value) -> bool {{
    match (a, b) {{
        (Value::Object(x), Value::Object(y)) => x
            .iter()
            .all(|(k, v)| y.get(k).is_some_and(|w| kept(v, w))),
        (Value::Array(x), Value::Array(y)) => {{
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| kept(v, w))
        }}
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }}
}}

macro_rules! check {{
    ($($module:ident => $id:literal),* $(,)?) => {{
        let all: Value = serde_json::from_str(include_str!("instances.json")).unwrap_or_default();
        $(
            for v in all[$id]["input"].as_array().into_iter().flatten() {{
                // As the generated call functions read arguments: `2.0` is an integer.
                let mut args = v.clone();
                toolgen_runtime::server::whole_numbers_as_integers(&mut args);
                let typed: toolgen_generated::{set}::$module::Input = serde_json::from_value(args)
                    .unwrap_or_else(|e| panic!("{{}} input {{v}}: {{e}}", $id));
                {input_back}
            }}
            {outputs}
            let info = toolgen_generated::{set}::TOOLS.iter().find(|t| t.id == $id);
            for (side, valid) in [
                ("inputVerdicts", info.and_then(|i| i.input_valid)),
                ("outputVerdicts", info.and_then(|i| i.output_valid)),
            ] {{
                let Some(valid) = valid else {{ continue }};
                for pair in all[$id][side].as_array().into_iter().flatten() {{
                    assert_eq!(
                        valid(&toolgen_runtime::json::Json::from(&pair[0])),
                        pair[1].as_bool().unwrap_or_default(),
                        "{{}} {{side}}: the compiled validator and the jsonschema crate disagree on {{}}",
                        $id,
                        pair[0]
                    );
                }}
            }}
        )*
    }};
}}

#[test]
fn instances_round_trip_through_the_types() {{
    toolgen_generated::for_each_{set}_tool!(check);
}}
"#
    )
}
