//! `editormcp-server`: the 18 EditorMCP core tools over stdio, speaking both the
//! EditorMCP envelope and standard MCP (newline-delimited JSON-RPC), backed by
//! an in-memory demo Unity project.
//!
//! ```text
//! editormcp-server [--tier core|tier1|...] [--project demo-project.json] [--execution worker|inline]
//! editormcp-server --bridge 127.0.0.1:PORT [--tier ...]
//! ```
//!
//! With `--bridge`, every tool is forwarded to the generated C# bridge running
//! inside the Unity Editor (`generated/csharp`, `BridgeServer`) instead of the
//! demo project: the server still validates arguments, gates tiers and
//! enforces time limits before a call reaches Unity.
//!
//! The server is built the way a tool author builds one: it implements the
//! generated `EditormcpTools` trait (one typed method per tool) and hands it to
//! the generated `register`, which adds every tool with its descriptor from the
//! generated table (names, schemas, safety, tiers, time limits), so the server
//! can never disagree with the specs. The demo project itself is a JSON
//! document (`fixtures/demo-project.json`) that `demo.rs` queries; each typed
//! method converts at that boundary, so every output also passes through the
//! generated `Output` type.

mod demo;

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolgen_generated::editormcp::{self, EditormcpTools, TOOLS};
use toolgen_runtime::{Call, Execution, Server, ServerInfo, ToolDescriptor, ToolError};

const DEMO_PROJECT: &str = include_str!("../fixtures/demo-project.json");
const TIERS: &[&str] = &["core", "tier1", "tier2", "tier3", "tier4"];

/// The generated trait, implemented over the demo project.
struct DemoTools(Arc<demo::Demo>);

impl DemoTools {
    /// Runs tool `id` of the demo on a typed input, into a typed output.
    fn run<I: serde::Serialize, O: serde::de::DeserializeOwned>(
        &self,
        id: &str,
        call: &mut Call,
        input: I,
    ) -> Result<O, ToolError> {
        let args = match serde_json::to_value(input) {
            Ok(Value::Object(m)) => m,
            Ok(_) => Map::new(),
            Err(e) => return Err(ToolError::execution(format!("{id}: {e}"))),
        };
        let result = self.0.call(id, &args)?;
        for d in result.diagnostics {
            call.diagnostic(d);
        }
        serde_json::from_value(result.output).map_err(|e| {
            ToolError::execution(format!(
                "{id}: the demo's output does not fit the Output type: {e}"
            ))
        })
    }
}

macro_rules! demo_tools {
    ($($method:ident => $id:literal),* $(,)?) => {
        impl EditormcpTools for DemoTools {
            $(fn $method(&self, call: &mut Call, input: editormcp::$method::Input) -> Result<editormcp::$method::Output, ToolError> {
                self.run($id, call, input)
            })*
        }
    };
}

toolgen_generated::for_each_editormcp_tool!(demo_tools);

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

/// The EditorMCP form of a tool, for `mcp.tools.list` and `mcp.tool.describe`.
fn editormcp_form(d: &ToolDescriptor) -> Value {
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
    let output = d.output_schema.clone().unwrap_or(Value::Null);
    let mut v = json!({
        "id": d.id, "name": d.name, "description": d.description, "category": d.category,
        "safetyLevel": d.safety_level, "tier": d.tier,
        "inputs": props(&d.input_schema, true), "outputs": props(&output, false),
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
    let mut bridge: Option<String> = None;
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
            "--bridge" => match it.next() {
                Some(a) if a.contains(':') => bridge = Some(a.clone()),
                _ => return usage("--bridge needs the bridge's address, e.g. 127.0.0.1:8765"),
            },
            "--project" => match it.next().map(std::fs::read_to_string) {
                Some(Ok(text)) => project_text = text,
                Some(Err(e)) => return usage(&format!("cannot read the project file: {e}")),
                None => return usage("--project needs a path"),
            },
            "--help" | "-h" => {
                println!(
                    "editormcp-server [--tier core|tier1|tier2|tier3|tier4] [--project PATH | --bridge HOST:PORT] [--execution worker|inline]\nServes the EditorMCP core tools over stdio (EditorMCP envelope and MCP), from an in-memory demo project or forwarded to the Unity Editor bridge."
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
    let forms = TOOLS
        .iter()
        .map(|t| editormcp_form(&t.descriptor()))
        .collect();
    let demo = Arc::new(demo::Demo::new(project, forms));
    let mut extra = Map::new();
    let demo_info = demo
        .call("mcp.server.info", &Map::new())
        .map(|a| a.output)
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
    let server = Server::new(info, TIERS, &tier).execution(execution);
    let server = match bridge {
        Some(address) => toolgen_runtime::bridge::forward(
            server,
            TOOLS,
            Arc::new(toolgen_runtime::bridge::Bridge::new(address)),
        ),
        None => editormcp::register(server, Arc::new(DemoTools(demo))),
    };
    let server = match server {
        Ok(s) => s,
        Err(e) => {
            eprintln!("editormcp-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match server.serve(stdin.lock(), stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("editormcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "editormcp-server: {message}\nusage: editormcp-server [--tier core|tier1|tier2|tier3|tier4] [--project PATH | --bridge HOST:PORT] [--execution worker|inline]"
    );
    ExitCode::from(2)
}
