//! `editormcp-server`: the 18 EditorMCP core tools over stdio or HTTP, speaking both the
//! EditorMCP envelope and standard MCP (newline-delimited JSON-RPC), backed by
//! an in-memory demo Unity project.
//!
//! ```text
//! editormcp-server [--tier core|tier1|...] [--project demo-project.json] [--execution worker|inline]
//! editormcp-server --bridge 127.0.0.1:PORT [--tier ...]
//! editormcp-server --bridge-project UNITY_PROJECT_DIR [--tier ...]
//! editormcp-server --bridge-project UNITY_PROJECT_DIR --status
//! editormcp-server --http 127.0.0.1:8080 [--stateless] [--token-env VAR | --token-file PATH]
//! ```
//!
//! With `--http`, the same server speaks Streamable HTTP at `/mcp` instead of
//! stdio (a loopback address unless a token is required).
//!
//! With `--bridge-project DIR`, the bridge's address is `127.0.0.1` and the
//! port the C# bridge derives from the same project path
//! (`BridgePort.ForProject`, `toolgen_runtime::bridge::port_for_project`), or
//! `TOOLGEN_BRIDGE_PORT` when set.
//!
//! `--status` prints the bridge's state as one JSON object and exits: the
//! bridge's `bridge/status` (connected, reloading, catalog hash, queue
//! length) with the address and this side's catalog hash; when nothing
//! answers, `connected: false` with the reason, and exit status 1. A bridge
//! that refuses this server (another catalog hash, a wrong secret) is an
//! error naming why.
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
use toolgen_runtime::{Call, Execution, LogLevel, Server, ServerInfo, ToolDescriptor, ToolError};

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
        for c in result.content {
            call.add_content(c);
        }
        for message in result.logs {
            call.log(LogLevel::Info, message);
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

const USAGE: &str = "usage: editormcp-server [--tier core|tier1|tier2|tier3|tier4] [--project PATH | --bridge HOST:PORT | --bridge-project DIR] [--status]\n       [--execution worker|inline] [--pool N] [--page-size N]\n       [--http ADDR [--stateless] [--allow-origin ORIGIN]... [--token-env VAR | --token-file PATH]] [--rmcp]";

/// What the command line asked for.
struct Options {
    tier: String,
    execution: Execution,
    project_text: String,
    bridge: Option<String>,
    /// Print the bridge's `bridge/status` and exit.
    status: bool,
    /// The Unity project of `--bridge-project` (its bridge secret is presented).
    bridge_project: Option<std::path::PathBuf>,
    pool: Option<usize>,
    page_size: Option<usize>,
    http: Option<String>,
    stateless: bool,
    /// Served by rmcp's transports (`--rmcp`) instead of toolgen-runtime's.
    rmcp: bool,
    origins: Vec<String>,
    token_env: Option<String>,
    token_file: Option<String>,
}

/// The command line, or the exit code of a usage error (or of `--help`).
fn parse(args: &[String]) -> Result<Options, ExitCode> {
    let mut o = Options {
        tier: "core".to_owned(),
        execution: Execution::Worker,
        project_text: DEMO_PROJECT.to_owned(),
        bridge: None,
        status: false,
        bridge_project: None,
        pool: None,
        page_size: None,
        http: None,
        stateless: false,
        rmcp: false,
        origins: Vec::new(),
        token_env: None,
        token_file: None,
    };
    let mut it = args.iter();
    let number = |v: Option<&String>, flag: &str| -> Result<usize, ExitCode> {
        v.and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .ok_or_else(|| usage(&format!("{flag} needs a positive whole number")))
    };
    let value = |v: Option<&String>, what: &str| -> Result<String, ExitCode> {
        v.cloned().ok_or_else(|| usage(what))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--tier" => match it.next() {
                Some(t) if TIERS.contains(&t.as_str()) => o.tier = t.clone(),
                _ => return Err(usage(&format!("--tier needs one of {}", TIERS.join(", ")))),
            },
            "--execution" => match it.next().map(String::as_str) {
                Some("worker") => o.execution = Execution::Worker,
                Some("inline") => o.execution = Execution::Inline,
                _ => {
                    return Err(usage(
                        "--execution needs `worker` (default: calls run concurrently, hung tools are abandoned) or `inline` (one at a time, faster)",
                    ));
                }
            },
            "--bridge" => match it.next() {
                Some(a) if a.contains(':') => o.bridge = Some(a.clone()),
                _ => {
                    return Err(usage(
                        "--bridge needs the bridge's address, e.g. 127.0.0.1:8765",
                    ));
                }
            },
            "--bridge-project" => match it.next() {
                Some(dir) => {
                    let port = toolgen_runtime::bridge::resolve_port(
                        std::path::Path::new(dir),
                        editormcp::BRIDGE_PORT,
                    );
                    o.bridge = Some(format!("127.0.0.1:{port}"));
                    o.bridge_project = Some(dir.into());
                }
                None => {
                    return Err(usage(
                        "--bridge-project needs the Unity project's directory (the bridge's port is derived from it)",
                    ));
                }
            },
            "--project" => match it.next().map(std::fs::read_to_string) {
                Some(Ok(text)) => o.project_text = text,
                Some(Err(e)) => return Err(usage(&format!("cannot read the project file: {e}"))),
                None => return Err(usage("--project needs a path")),
            },
            "--pool" => o.pool = Some(number(it.next(), "--pool")?),
            "--page-size" => o.page_size = Some(number(it.next(), "--page-size")?),
            "--http" => {
                o.http = Some(value(
                    it.next(),
                    "--http needs an address, e.g. 127.0.0.1:8080",
                )?)
            }
            "--stateless" => o.stateless = true,
            "--rmcp" => o.rmcp = true,
            "--status" => o.status = true,
            "--allow-origin" => o.origins.push(value(
                it.next(),
                "--allow-origin needs an origin, e.g. https://app.example.com",
            )?),
            "--token-env" => {
                o.token_env = Some(value(it.next(), "--token-env needs a variable name")?)
            }
            "--token-file" => o.token_file = Some(value(it.next(), "--token-file needs a path")?),
            "--help" | "-h" => {
                println!(
                    "{USAGE}\nServes the EditorMCP core tools over stdio, or Streamable HTTP with --http (endpoint /mcp), speaking the EditorMCP envelope and MCP, from an in-memory demo project or forwarded to the Unity Editor bridge."
                );
                return Err(ExitCode::SUCCESS);
            }
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    if o.http.is_none()
        && (o.stateless || !o.origins.is_empty() || o.token_env.is_some() || o.token_file.is_some())
    {
        return Err(usage(
            "--stateless, --allow-origin, --token-env and --token-file go with --http",
        ));
    }
    if o.rmcp && (!o.origins.is_empty() || o.token_env.is_some() || o.token_file.is_some()) {
        return Err(usage(
            "--allow-origin, --token-env and --token-file are toolgen-runtime's HTTP options, not rmcp's",
        ));
    }
    if o.token_env.is_some() && o.token_file.is_some() {
        return Err(usage("pass --token-env or --token-file, not both"));
    }
    Ok(o)
}

/// mimalloc: a call served on a worker thread allocates on one thread and
/// frees on another, where glibc's allocator takes a lock (docs/decisions.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let project: Value = match serde_json::from_str(&o.project_text) {
        Ok(v) => v,
        Err(e) => return usage(&format!("the project file is not valid JSON: {e}")),
    };
    if o.status {
        return print_status(&o);
    }
    let server = match build(&o, project) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("editormcp-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = match &o.http {
        _ if o.rmcp => serve_rmcp(server, &o),
        Some(address) => serve_http(server, &o, address),
        None => server.serve(std::io::stdin().lock(), std::io::stdout()),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("editormcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--status`: the bridge's `bridge/status`, as JSON on stdout.
fn print_status(o: &Options) -> ExitCode {
    let Some(address) = &o.bridge else {
        return usage("--status goes with --bridge HOST:PORT or --bridge-project DIR");
    };
    let bridge = match unity_bridge(o, address) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("editormcp-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    match bridge.status(std::time::Duration::from_secs(5)) {
        Ok(status) => {
            println!("{status}");
            if status["connected"] == Value::Bool(true) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("editormcp-server: {}", e.message);
            ExitCode::FAILURE
        }
    }
}

/// The client of the Unity bridge at `address`: it says which specs it was
/// generated from and, for `--bridge-project`, presents the project's secret.
fn unity_bridge(o: &Options, address: &str) -> Result<toolgen_runtime::bridge::Bridge, String> {
    let mut b = toolgen_runtime::bridge::Bridge::new(address.to_owned())
        .catalog_hash(editormcp::CATALOG_HASH);
    if let Some(project) = &o.bridge_project {
        b = b.secret(toolgen_runtime::bridge::read_secret(project)?);
    }
    Ok(b)
}

/// The server the options describe: the demo project or the bridge.
fn build(o: &Options, project: Value) -> Result<Server, String> {
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
    let mut server = Server::new(info, TIERS, &o.tier).execution(o.execution);
    if let Some(n) = o.pool {
        server = server.pool_size(n);
    }
    if let Some(n) = o.page_size {
        server = server.page_size(n);
    }
    match &o.bridge {
        // Unity runs tools on its one main thread: one call at a time.
        Some(address) => toolgen_runtime::bridge::forward(
            server.serial(true),
            TOOLS,
            Arc::new(unity_bridge(o, address)?),
        ),
        None => editormcp::register(
            offer_demo(server, &project_json(&demo))?,
            Arc::new(DemoTools(demo)),
        ),
    }
}

/// The demo's project, as a resource.
fn project_json(demo: &demo::Demo) -> String {
    serde_json::to_string_pretty(
        &demo
            .call("project.info", &Map::new())
            .map(|a| a.output)
            .unwrap_or_default(),
    )
    .unwrap_or_default()
}

/// What the demo offers beside its tools: the project's summary as a
/// resource, and a prompt that asks the model to inspect a scene.
fn offer_demo(server: Server, project: &str) -> Result<Server, String> {
    use toolgen_runtime::server::{EmbeddedResource, Prompt, PromptMessage, Resource};
    let mut summary = Resource::new("unity://project/info", "project-info");
    summary.title = Some("The demo project".to_owned());
    summary.mime_type = Some("application/json".to_owned());
    let text = project.to_owned();
    let mut inspect = Prompt::new("inspect-scene").argument(
        "scenePath",
        "The scene to inspect, such as Assets/Scenes/Main.unity",
        true,
    );
    inspect.description = Some("Asks for a review of a scene's hierarchy".to_owned());
    server
        .resource(
            summary,
            Arc::new(move |uri| Ok(vec![EmbeddedResource::text(uri, Some("application/json"), text.clone())])),
        )?
        .prompt(
            inspect,
            Arc::new(|args| {
                let scene = &args["scenePath"];
                let ask = format!("Dump the hierarchy of {scene} with scene.hierarchy.dump and point out objects without components.");
                Ok(vec![PromptMessage::user(toolgen_runtime::Content::text(ask))])
            }),
        )
}

/// `--rmcp`: served by rmcp, the official Rust SDK, over stdio or HTTP.
#[cfg(feature = "rmcp")]
fn serve_rmcp(server: Server, o: &Options) -> std::io::Result<()> {
    toolgen_runtime::server::rmcp::serve(server, "editormcp-server", o.http.as_deref(), o.stateless)
}

#[cfg(not(feature = "rmcp"))]
fn serve_rmcp(_: Server, _: &Options) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this editormcp-server was built without the `rmcp` feature",
    ))
}

#[cfg(feature = "http")]
fn serve_http(server: Server, o: &Options, address: &str) -> std::io::Result<()> {
    let flags = toolgen_runtime::server::http::HttpFlags {
        address,
        stateless: o.stateless,
        origins: &o.origins,
        token_env: o.token_env.as_deref(),
        token_file: o.token_file.as_deref(),
    };
    flags.serve(server, "editormcp-server")
}

#[cfg(not(feature = "http"))]
fn serve_http(_: Server, _: &Options, _: &str) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this editormcp-server was built without the `http` feature",
    ))
}

fn usage(message: &str) -> ExitCode {
    eprintln!("editormcp-server: {message}\n{USAGE}");
    ExitCode::from(2)
}
