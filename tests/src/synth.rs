//! Synthetic but varied EditorMCP tool sets for benchmarks.
//!
//! Deterministic (a fixed-seed xorshift generator): the same `n` always gives
//! the same files. Tools vary in parameter count and types (strings, bounded
//! integers with defaults, numbers, booleans, enums, arrays, nested objects),
//! output shapes (arrays of objects, string-keyed maps, nullable and any-typed
//! fields, recursive definitions) and carry one example that matches their schemas.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value, json};

const CATEGORIES: &[&str] = &[
    "asset",
    "audio",
    "editor",
    "mcp.platform",
    "project",
    "scene",
];
const TIERS: &[&str] = &["core", "tier1", "tier2"];
const ACTIONS: &[&str] = &[
    "list", "find", "read", "info", "scan", "dump", "describe", "graph",
];

/// A small deterministic xorshift generator: the same seed gives the same
/// sequence on every machine (synthetic specs, the xtask's fuzzers).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// A number below `n` (which must not be 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

fn param(rng: &mut Rng, i: usize, required: bool) -> (Value, Value) {
    // (spec, example value)
    let desc = format!("Synthetic parameter number {i}.");
    let kind = rng.below(7);
    let (mut spec, example) = match kind {
        0 => (json!({"type": "string"}), json!(format!("value-{i}"))),
        1 => {
            let lo = rng.below(5) as i64;
            (
                json!({"type": "integer", "minimum": lo, "maximum": lo + 100}),
                json!(lo + 1),
            )
        }
        2 => (json!({"type": "number", "minimum": 0.0}), json!(1.5)),
        3 => (json!({"type": "boolean"}), json!(true)),
        4 => (
            json!({"type": "string", "enum": ["alpha", "beta", "gamma"]}),
            json!("beta"),
        ),
        5 => (
            json!({"type": "array", "items": {"type": "string"}}),
            json!(["a", "b"]),
        ),
        _ => (
            json!({"type": "object", "properties": {
                "x": {"type": "number", "description": "X coordinate."},
                "y": {"type": "number", "description": "Y coordinate."}
            }}),
            json!({"x": 1.0, "y": 2.0}),
        ),
    };
    if let Value::Object(m) = &mut spec {
        m.insert("required".into(), json!(required));
        m.insert("description".into(), json!(desc));
        if !required {
            match kind {
                1 => {
                    let lo = m.get("minimum").and_then(Value::as_i64).unwrap_or(0);
                    m.insert("default".into(), json!(lo + 10));
                }
                3 => {
                    m.insert("default".into(), json!(false));
                }
                4 => {
                    m.insert("default".into(), json!("alpha"));
                }
                _ => {}
            }
        }
    }
    (spec, example)
}

/// One synthetic tool definition.
pub fn tool(index: usize) -> Value {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (index as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let category = CATEGORIES[index % CATEGORIES.len()];
    let action = ACTIONS[rng.below(ACTIONS.len() as u64) as usize];
    let id = format!("{category}.synth{index}.{action}");
    let n_params = rng.below(8) as usize;
    let mut inputs = Map::new();
    let mut example_in = Map::new();
    for p in 0..n_params {
        let required = p == 0 || rng.below(3) == 0;
        let (spec, ex) = param(&mut rng, p, required);
        let name = format!("param{p}");
        if required || rng.below(2) == 0 {
            example_in.insert(name.clone(), ex);
        }
        inputs.insert(name, spec);
    }
    let recursive = index % 5 == 0;
    let entry = if recursive {
        json!({"$ref": "#/definitions/Node", "description": "An entry."})
    } else {
        json!({"type": "object", "description": "An entry.", "properties": {
            "name": {"type": "string", "description": "Entry name."},
            "value": {"type": "number", "description": "Entry value."},
            "tags": {"type": "array", "description": "Entry tags.", "items": {"type": "string"}}
        }})
    };
    let entry_example = if recursive {
        json!({"name": "root", "children": [{"name": "leaf", "children": []}]})
    } else {
        json!({"name": "first", "value": 1.0, "tags": ["t"]})
    };
    let mut outputs = json!({
        "count": {"type": "integer", "description": "Number of entries.", "minimum": 0},
        "entries": {"type": "array", "description": "Entries sorted by name.", "items": entry},
        "byKind": {"type": "object", "description": "Entry count per kind.", "additionalProperties": {"type": "integer"}},
        "note": {"type": "string", "description": "Optional note.", "nullable": true},
    });
    let mut example_out =
        json!({"count": 1, "entries": [entry_example], "byKind": {"a": 1}, "note": null});
    if rng.below(3) == 0 {
        outputs["extra"] =
            json!({"type": "any", "description": "Free-form extra data.", "required": false});
        example_out["extra"] = json!({"anything": [1, "two"]});
    }
    let mut spec = json!({
        "id": id,
        "name": format!("Synthetic Tool {index}"),
        "description": format!("Synthetic tool number {index} for benchmarks. It reads data and returns entries."),
        "category": category,
        "safetyLevel": "read-only",
        "tier": TIERS[index % TIERS.len()],
        "inputs": inputs,
        "outputs": outputs,
        "notes": "Generated for benchmarks.",
        "examples": [{"description": "A typical call", "input": example_in, "output": example_out}],
    });
    if recursive {
        spec["definitions"] = json!({"Node": {"type": "object", "description": "A tree node.", "properties": {
            "name": {"type": "string", "description": "Node name."},
            "children": {"type": "array", "description": "Child nodes.", "items": {"$ref": "#/definitions/Node"}}
        }}});
    }
    spec
}

/// Writes a tool set of `n` synthetic tools (and its manifest) into `dir`.
pub fn write(dir: &Path, n: usize) -> std::io::Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    let mut manifest =
        String::from("name: synthetic\nformat: editormcp\nnamespace: Synthetic\ncategories:\n");
    for c in CATEGORIES {
        let _ = writeln!(manifest, "  - {c}");
    }
    manifest.push_str("tiers: [core, tier1, tier2]\nsafetyLevels: [read-only]\n");
    std::fs::write(dir.join("toolset.yaml"), manifest)?;
    for i in 0..n {
        let spec = tool(i);
        let id = spec["id"].as_str().unwrap_or("x").to_owned();
        let text = serde_json::to_string_pretty(&spec).unwrap_or_default();
        std::fs::write(dir.join(format!("{id}.json")), text + "\n")?;
    }
    Ok(())
}
