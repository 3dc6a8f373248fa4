//! `cargo xtask fuzz-compile [--cases N] [--seed S] [--verbose]`: does the
//! generated Rust and C# compile for schemas nobody wrote on purpose?
//!
//! Each case takes an MCP-format spec (the ToolVault tool set, the Rust-hostile
//! fixture), mutates its `inputSchema`/`outputSchema` a few times (values swapped
//! for other schemas, properties with hostile names added or removed,
//! combinators, enums, defaults, nullable objects), and generates it. Specs that
//! validation rejects are counted and skipped: that path is fuzzed by
//! `codegen/tests/fuzz.rs`. Every accepted spec's Rust crate is checked with
//! `cargo check` and its C# compiled with Mono's `mcs` (`-warnaserror+`, as the
//! tests do; installed with apt when missing): an accepted spec must give code
//! that compiles. Failing cases are kept under `target/fuzz-compile-failures/`.
//! Deterministic for a seed.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use toolgen::Generator;
use toolgen_tests::synth::Rng;

use crate::{cargo, mono_toolchain};

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
    for case in 0..cases {
        let source = pick(&mut rng, &sources).clone();
        let specs = work.join("specs");
        let _ = std::fs::remove_dir_all(&specs);
        copy_dir(source.parent().unwrap_or(root), &specs)?;
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
            let schema = tool.entry(key).or_insert_with(|| Value::Object(Map::new()));
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
            .rust_runtime_dependency(format!(
                "toolgen-runtime = {{ path = {:?} }}",
                root.join("runtime").display().to_string()
            ))
            .generate();
        if let Err(e) = generated {
            rejected += 1;
            if args.contains(&"--verbose") {
                let first = e.to_string().lines().next().unwrap_or("").to_owned();
                println!("case {case}: rejected: {first}");
            }
            continue;
        }
        let check = cargo()
            .args(["check", "--quiet", "--message-format", "short"])
            .current_dir(out.join("rust"))
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .map_err(|e| format!("cargo check: {e}"))?;
        let rust = String::from_utf8_lossy(&check.stderr).into_owned();
        let rust_ok = check.status.success() && rust.trim().is_empty();
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
            .output()
            .map_err(|e| format!("mcs: {e}"))?;
        // mcs prints its errors on stderr and its summary on stdout.
        let csharp = format!(
            "{}{}",
            String::from_utf8_lossy(&mcs.stderr),
            String::from_utf8_lossy(&mcs.stdout)
        );
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
        let first: Vec<&str> = errors
            .lines()
            .filter(|l| l.contains("error"))
            .take(6)
            .collect();
        println!(
            "case {case} ({}): the generated {what} does not compile; spec kept in {}\n{}",
            source.display(),
            kept.display(),
            first.join("\n")
        );
    }
    println!(
        "{cases} cases: {compiled} compiled (Rust and C#), {rejected} rejected by validation, {broken} did not compile"
    );
    if broken > 0 {
        return Err(format!(
            "{broken} accepted spec(s) gave code that does not compile"
        ));
    }
    Ok(())
}
