//! `editormcp-server`: the 18 EditorMCP core tools over stdio, speaking both the
//! EditorMCP envelope and standard MCP (newline-delimited JSON-RPC), backed by
//! an in-memory demo Unity project.
//!
//! ```text
//! editormcp-server [--tier core|tier1|...] [--project demo-project.json] [--execution worker|inline]
//! ```
//!
//! Tool descriptors (names, schemas, safety, tiers, time limits) come from the
//! generated catalog (`generated/catalog/editormcp/tools.json`), so the server
//! can never disagree with the specs.

mod demo;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolgen_runtime::{Execution, Server, ServerInfo, ToolDescriptor};

const CATALOG: &str = include_str!("../../../generated/catalog/editormcp/tools.json");
const DEMO_PROJECT: &str = include_str!("../fixtures/demo-project.json");
const TIERS: &[&str] = &["core", "tier1", "tier2", "tier3", "tier4"];

fn descriptor(t: &Value) -> ToolDescriptor {
    let meta = &t["_meta"]["toolgen"];
    let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
    ToolDescriptor {
        id: text(&t["name"]),
        name: text(&t["title"]),
        description: text(&t["description"]),
        category: text(&meta["category"]),
        safety_level: text(&meta["safetyLevel"]),
        tier: text(&meta["tier"]),
        input_schema: t["inputSchema"].clone(),
        output_schema: t.get("outputSchema").cloned(),
        timeout: Duration::from_secs_f64(meta["timeoutSeconds"].as_f64().unwrap_or(30.0)),
        requires_approval: meta["requiresApproval"].as_bool().unwrap_or(false),
        notes: meta["notes"].as_str().map(str::to_owned),
    }
}

/// A JSON Schema property in the EditorMCP definition form (`mcp.tool.describe`).
fn field(schema: &Value, required: Option<bool>) -> Value {
    let ty = match &schema["type"] {
        Value::String(s) => json!(s),
        Value::Array(a) => a
            .iter()
            .find(|t| *t != "null")
            .cloned()
            .unwrap_or(json!("any")),
        _ if schema.get("$ref").is_some() => json!("object"),
        _ => json!("any"),
    };
    let mut f = Map::new();
    f.insert("type".into(), ty);
    if let Some(r) = required {
        f.insert("required".into(), json!(r));
    }
    f.insert(
        "description".into(),
        schema.get("description").cloned().unwrap_or(json!("")),
    );
    for k in ["default", "enum", "minimum", "maximum"] {
        if let Some(v) = schema.get(k) {
            f.insert(k.into(), v.clone());
        }
    }
    if required.is_none() && schema.get("items").is_some_and(Value::is_object) {
        f.insert("items".into(), schema["items"].clone());
    }
    Value::Object(f)
}

/// The EditorMCP form of a catalog entry, for `mcp.tools.list` and `mcp.tool.describe`.
fn editormcp_form(t: &Value, d: &ToolDescriptor) -> Value {
    let props = |s: &Value, inputs: bool| -> Map<String, Value> {
        let required: Vec<&str> = s["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        s["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                (
                    k.clone(),
                    field(v, inputs.then(|| required.contains(&k.as_str()))),
                )
            })
            .collect()
    };
    let mut v = json!({
        "id": d.id, "name": d.name, "description": d.description, "category": d.category,
        "safetyLevel": d.safety_level, "tier": d.tier,
        "inputs": props(&t["inputSchema"], true), "outputs": props(&t["outputSchema"], false),
    });
    if let Some(n) = &d.notes {
        v["notes"] = json!(n);
    }
    v
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut tier = "core".to_owned();
    let mut execution = Execution::Worker;
    let mut project_text = DEMO_PROJECT.to_owned();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--tier" => match it.next() {
                Some(t) if TIERS.contains(&t.as_str()) => tier = t.clone(),
                _ => return usage(&format!("--tier needs one of {}", TIERS.join(", "))),
            },
            "--execution" => match it.next().map(String::as_str) {
                Some("worker") => execution = Execution::Worker,
                Some("inline") => execution = Execution::Inline,
                _ => {
                    return usage(
                        "--execution needs `worker` (default: hung tools are abandoned) or `inline` (faster)",
                    );
                }
            },
            "--project" => match it.next().map(std::fs::read_to_string) {
                Some(Ok(text)) => project_text = text,
                Some(Err(e)) => return usage(&format!("cannot read the project file: {e}")),
                None => return usage("--project needs a path"),
            },
            "--help" | "-h" => {
                println!(
                    "editormcp-server [--tier core|tier1|tier2|tier3|tier4] [--project PATH]\nServes the EditorMCP core tools over stdio (EditorMCP envelope and MCP)."
                );
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument `{other}`")),
        }
    }
    let project: Value = match serde_json::from_str(&project_text) {
        Ok(v) => v,
        Err(e) => return usage(&format!("the project file is not valid JSON: {e}")),
    };
    let catalog: Value = serde_json::from_str(CATALOG).unwrap_or_default();
    let entries: Vec<Value> = catalog["tools"].as_array().cloned().unwrap_or_default();
    let descriptors: Vec<ToolDescriptor> = entries.iter().map(descriptor).collect();
    let forms = entries
        .iter()
        .zip(&descriptors)
        .map(|(t, d)| editormcp_form(t, d))
        .collect();
    let demo = Arc::new(demo::Demo::new(project, forms));
    let mut extra = Map::new();
    let demo_info = demo
        .call("mcp.server.info", &Map::new())
        .map(|o| o.output)
        .unwrap_or_default();
    for key in ["unityVersion", "platform"] {
        extra.insert(
            key.into(),
            demo_info.get(key).cloned().unwrap_or(Value::Null),
        );
    }
    let info = ServerInfo {
        name: "editormcp-server".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        extra,
    };
    let mut server = Server::new(info, TIERS, &tier).execution(execution);
    for d in descriptors {
        let id = d.id.clone();
        let demo = demo.clone();
        server = match server.tool(d, Arc::new(move |args| demo.call(&id, &args))) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("editormcp-server: {e}");
                return ExitCode::FAILURE;
            }
        };
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match server.serve(stdin.lock(), stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("editormcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "editormcp-server: {message}\nusage: editormcp-server [--tier core|tier1|tier2|tier3|tier4] [--project PATH]"
    );
    ExitCode::from(2)
}
