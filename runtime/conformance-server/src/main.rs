//! `conformance-server [--http ADDR] [--rmcp]`: what the official MCP conformance suite
//! (npm `@modelcontextprotocol/conformance`) asks a server for. The tools are
//! the generated `conformance` tool set (`tool-specs/conformance/`), each
//! method answering as its scenario says; the resources and prompts are
//! registered beside them. `cargo xtask conformance` starts it and runs the
//! suite against it, and again with `--bridge`: the same tools implemented
//! in C# behind the Unity bridge (`tests/csharp/ConformanceHost.cs`, under
//! Mono).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolgen_generated::conformance::{self, ConformanceTools};
use toolgen_runtime::bridge::{self, Bridge};
use toolgen_runtime::server::http::HttpFlags;
use toolgen_runtime::server::rmcp;
use toolgen_runtime::server::{
    Elicited, EmbeddedResource, Prompt, PromptMessage, Resource, ResourceTemplate, Sampled,
    Sampling,
};
use toolgen_runtime::{Call, Content, LogLevel, Server, ServerInfo, ToolError};

/// A PNG of one red pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x68, 0x00, 0x00, 0x00,
    0x82, 0x00, 0x81, 0xda, 0x45, 0x08, 0x3b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// A WAV of eight silent 8-bit samples at 8 kHz.
fn wav() -> Vec<u8> {
    let samples = [0x80u8; 8];
    let mut w = Vec::with_capacity(44 + samples.len());
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&8000u32.to_le_bytes());
    w.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

/// How long a request to the client may wait for its answer.
const ASK_LIMIT: Duration = Duration::from_secs(30);

struct Tools;

/// A result of content alone: the output is `null`, the blocks are the call's.
fn blocks(call: &mut Call, content: Vec<Content>) -> Result<Value, ToolError> {
    for c in content {
        call.add_content(c);
    }
    Ok(Value::Null)
}

fn text(call: &mut Call, text: impl Into<String>) -> Result<Value, ToolError> {
    blocks(call, vec![Content::text(text)])
}

/// What an elicitation gave, as the tool's text.
fn elicited(call: &mut Call, answer: Elicited) -> Result<Value, ToolError> {
    match answer {
        Elicited::Accepted(content) => text(
            call,
            format!("User response: action=accept, content={content}"),
        ),
        Elicited::Declined => text(call, "User response: action=decline"),
        Elicited::Cancelled => text(call, "User response: action=cancel"),
        Elicited::Unsupported => Err(ToolError::execution(
            "this client cannot be asked: it did not declare elicitation, or the transport cannot carry the request",
        )),
        Elicited::Failed(why) => Err(ToolError::execution(format!("elicitation failed: {why}"))),
        // 2026-07-28: the question goes out with the call's answer (this one is not sent).
        Elicited::InputRequired => Err(ToolError::execution("waiting for the user")),
    }
}

impl ConformanceTools for Tools {
    fn test_simple_text(
        &self,
        call: &mut Call,
        _: conformance::test_simple_text::Input,
    ) -> Result<Value, ToolError> {
        text(call, "This is a simple text response for testing.")
    }

    fn test_image_content(
        &self,
        call: &mut Call,
        _: conformance::test_image_content::Input,
    ) -> Result<Value, ToolError> {
        blocks(call, vec![Content::image(PNG, "image/png")])
    }

    fn test_audio_content(
        &self,
        call: &mut Call,
        _: conformance::test_audio_content::Input,
    ) -> Result<Value, ToolError> {
        blocks(call, vec![Content::audio(&wav(), "audio/wav")])
    }

    fn test_embedded_resource(
        &self,
        call: &mut Call,
        _: conformance::test_embedded_resource::Input,
    ) -> Result<Value, ToolError> {
        let text = "This is an embedded resource content.";
        blocks(
            call,
            vec![Content::resource_text(
                "test://embedded-resource",
                Some("text/plain"),
                text,
            )],
        )
    }

    fn test_multiple_content_types(
        &self,
        call: &mut Call,
        _: conformance::test_multiple_content_types::Input,
    ) -> Result<Value, ToolError> {
        let data = json!({"test": "data", "value": 123}).to_string();
        blocks(
            call,
            vec![
                Content::text("Multiple content types test:"),
                Content::image(PNG, "image/png"),
                Content::resource_text(
                    "test://mixed-content-resource",
                    Some("application/json"),
                    data,
                ),
            ],
        )
    }

    fn test_tool_with_logging(
        &self,
        call: &mut Call,
        _: conformance::test_tool_with_logging::Input,
    ) -> Result<Value, ToolError> {
        call.log(LogLevel::Info, "Tool execution started");
        std::thread::sleep(Duration::from_millis(50));
        call.log(LogLevel::Info, "Tool processing data");
        std::thread::sleep(Duration::from_millis(50));
        call.log(LogLevel::Info, "Tool execution completed");
        text(call, "Tool with logging executed successfully")
    }

    fn test_tool_with_progress(
        &self,
        call: &mut Call,
        _: conformance::test_tool_with_progress::Input,
    ) -> Result<Value, ToolError> {
        for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                std::thread::sleep(Duration::from_millis(50));
            }
            call.progress(done, Some(100.0), None);
        }
        text(call, "Tool with progress executed successfully")
    }

    fn test_error_handling(
        &self,
        _: &mut Call,
        _: conformance::test_error_handling::Input,
    ) -> Result<Value, ToolError> {
        Err(ToolError::execution(
            "This tool intentionally returns an error for testing",
        ))
    }

    fn test_sampling(
        &self,
        call: &mut Call,
        input: conformance::test_sampling::Input,
    ) -> Result<Value, ToolError> {
        match call.sample(&Sampling::ask(input.prompt, 100), ASK_LIMIT) {
            Sampled::Answered {
                content: Content::Text { text: said },
                ..
            } => text(call, format!("LLM response: {said}")),
            Sampled::Answered { content, .. } => Err(ToolError::execution(format!(
                "the model answered without text: {content:?}"
            ))),
            Sampled::Unsupported => Err(ToolError::execution(
                "this client cannot be asked: it did not declare sampling, or the transport cannot carry the request",
            )),
            Sampled::Failed(why) => Err(ToolError::execution(format!("sampling failed: {why}"))),
            Sampled::InputRequired => Err(ToolError::execution("waiting for the model")),
        }
    }

    fn test_elicitation(
        &self,
        call: &mut Call,
        input: conformance::test_elicitation::Input,
    ) -> Result<Value, ToolError> {
        let schema = json!({"type": "object", "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}},
            "required": ["username", "email"]});
        let answer = call.elicit(&input.message, schema, ASK_LIMIT);
        elicited(call, answer)
    }

    fn test_elicitation_url(
        &self,
        call: &mut Call,
        input: conformance::test_elicitation_url::Input,
    ) -> Result<Value, ToolError> {
        let id = "conformance-url-1";
        let answer = call.elicit_url("Open this page to authorize.", &input.url, id, ASK_LIMIT);
        if matches!(answer, Elicited::Accepted(_)) {
            call.elicitation_complete(id);
        }
        elicited(call, answer)
    }

    fn test_elicitation_sep1034_defaults(
        &self,
        call: &mut Call,
        _: conformance::test_elicitation_sep1034_defaults::Input,
    ) -> Result<Value, ToolError> {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}}});
        let answer = call.elicit(
            "Please review and update the form fields with defaults",
            schema,
            ASK_LIMIT,
        );
        elicited(call, answer)
    }

    fn test_elicitation_sep1330_enums(
        &self,
        call: &mut Call,
        _: conformance::test_elicitation_sep1330_enums::Input,
    ) -> Result<Value, ToolError> {
        let options = ["option1", "option2", "option3"];
        let titled = json!([
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}]);
        let schema = json!({"type": "object", "properties": {
            "untitledSingle": {"type": "string", "enum": options},
            "titledSingle": {"type": "string", "oneOf": titled},
            "legacyEnum": {"type": "string", "enum": options,
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": options}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled}}}});
        let answer = call.elicit(
            "Please select options from the enum fields",
            schema,
            ASK_LIMIT,
        );
        elicited(call, answer)
    }

    fn json_schema_2020_12_tool(
        &self,
        call: &mut Call,
        input: conformance::json_schema_2020_12_tool::Input,
    ) -> Result<Value, ToolError> {
        let name = input.name.unwrap_or_default();
        text(call, format!("Received name: {name}"))
    }
}

/// The suite's resources and prompts.
fn offer(server: Server) -> Result<Server, String> {
    let mut static_text = Resource::new("test://static-text", "static-text");
    static_text.description = Some("A static text resource for testing".to_owned());
    static_text.mime_type = Some("text/plain".to_owned());
    let mut static_binary = Resource::new("test://static-binary", "static-binary");
    static_binary.description = Some("A static binary resource (a PNG) for testing".to_owned());
    static_binary.mime_type = Some("image/png".to_owned());
    let mut simple = Prompt::new("test_simple_prompt");
    simple.description = Some("A simple prompt without arguments".to_owned());
    let mut with_arguments = Prompt::new("test_prompt_with_arguments")
        .argument("arg1", "First test argument", true)
        .argument("arg2", "Second test argument", true)
        .completions("arg1", &["test1", "test2", "paris", "park", "party"]);
    let mut watched = Resource::new("test://watched-resource", "watched-resource");
    watched.description = Some("A resource clients may subscribe to".to_owned());
    watched.mime_type = Some("text/plain".to_owned());
    let mut template = ResourceTemplate::new("test://template/{id}/data", "template-data");
    template.description = Some("Data for the ID in the URI".to_owned());
    template.mime_type = Some("application/json".to_owned());
    with_arguments.description = Some("A prompt with required arguments".to_owned());
    let mut with_resource = Prompt::new("test_prompt_with_embedded_resource").argument(
        "resourceUri",
        "URI of the resource to embed",
        true,
    );
    with_resource.description = Some("A prompt with an embedded resource".to_owned());
    let mut with_image = Prompt::new("test_prompt_with_image");
    with_image.description = Some("A prompt with an image".to_owned());
    let user = |c: Content| PromptMessage::user(c);
    server
        .resource(
            static_text,
            Arc::new(|uri| {
                let text = "This is the content of the static text resource.";
                Ok(vec![EmbeddedResource::text(uri, Some("text/plain"), text)])
            }),
        )?
        .resource(
            static_binary,
            Arc::new(|uri| Ok(vec![EmbeddedResource::blob(uri, Some("image/png"), PNG)])),
        )?
        .resource(
            watched,
            Arc::new(|uri| {
                Ok(vec![EmbeddedResource::text(
                    uri,
                    Some("text/plain"),
                    "watched",
                )])
            }),
        )?
        .resource_template(
            template,
            Arc::new(|uri, vars| {
                let id = &vars["id"];
                let data =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok(vec![EmbeddedResource::text(
                    uri,
                    Some("application/json"),
                    data.to_string(),
                )])
            }),
        )?
        .prompt(
            simple,
            Arc::new(move |_| {
                Ok(vec![user(Content::text(
                    "This is a simple prompt for testing.",
                ))])
            }),
        )?
        .prompt(
            with_arguments,
            Arc::new(move |args| {
                let said = format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args["arg1"], args["arg2"]
                );
                Ok(vec![user(Content::text(said))])
            }),
        )?
        .prompt(
            with_resource,
            Arc::new(move |args| {
                let text = "Embedded resource content for testing.";
                Ok(vec![
                    user(Content::resource_text(
                        args["resourceUri"].clone(),
                        Some("text/plain"),
                        text,
                    )),
                    user(Content::text("Please process the embedded resource above.")),
                ])
            }),
        )?
        .prompt(
            with_image,
            Arc::new(move |_| {
                Ok(vec![
                    user(Content::image(PNG, "image/png")),
                    user(Content::text("Please analyze the image above.")),
                ])
            }),
        )
}

const USAGE: &str = "usage: conformance-server [--http ADDR] [--bridge HOST:PORT] [--rmcp] [--client NAME]\n  \
    stdio without --http (127.0.0.1:0 picks a free port); with --bridge the tools are\n  \
    the C# handlers behind a Unity bridge at HOST:PORT (tests/csharp/ConformanceHost.cs);\n  \
    with --rmcp the server is served by rmcp, the official Rust SDK; --client lists every\n  \
    client that client's variant of the catalog (openai-strict, claude-code)";

/// The tool set's clients' variants of its catalog (its manifest's `clients`),
/// each listed to the client its `clientInfo` names.
const CLIENT_CATALOGS: &[&str] = &[
    include_str!("../../../generated/catalog/conformance/clients/openai-strict.json"),
    include_str!("../../../generated/catalog/conformance/clients/claude-code.json"),
];

/// The command line.
#[derive(Default)]
struct Options {
    /// Where to serve HTTP (stdio when `None`).
    http: Option<String>,
    /// The Unity bridge whose C# handlers implement the tools (Rust's when `None`).
    bridge: Option<String>,
    /// Served by rmcp's transports instead of toolgen-runtime's.
    rmcp: bool,
    /// The client variant every client gets.
    client: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let slot = match flag.as_str() {
            "--http" => &mut o.http,
            "--bridge" => &mut o.bridge,
            "--client" => &mut o.client,
            "--rmcp" => {
                o.rmcp = true;
                continue;
            }
            other => return Err(format!("unknown argument `{other}`")),
        };
        match it.next() {
            Some(value) => *slot = Some(value.clone()),
            None => return Err(format!("{flag} needs an address")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("conformance-server: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let info = ServerInfo::new("conformance-server", env!("CARGO_PKG_VERSION"));
    let server = Server::new(info, conformance::TIERS, "core");
    let tools = |s: Server| match &o.bridge {
        // The C# handlers answer through the bridge; the catalog, argument
        // validation and the talk with the client stay here.
        Some(address) => {
            let b = Bridge::new(address.clone()).catalog_hash(conformance::CATALOG_HASH);
            bridge::forward(s, conformance::TOOLS, Arc::new(b))
        }
        None => conformance::register(s, Arc::new(Tools)),
    };
    let variants = |s: Server| {
        let s = s.client_variants(CLIENT_CATALOGS)?;
        match &o.client {
            Some(client) => s.serve_client(client),
            None => Ok(s),
        }
    };
    let server = match offer(server).and_then(tools).and_then(variants) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = match &o.http {
        _ if o.rmcp => rmcp::serve(server, "conformance-server", o.http.as_deref(), false),
        Some(address) => HttpFlags {
            address,
            stateless: false,
            origins: &[],
            token_env: None,
            token_file: None,
        }
        .serve(server, "conformance-server"),
        None => server.serve(std::io::stdin().lock(), std::io::stdout()),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            ExitCode::FAILURE
        }
    }
}
