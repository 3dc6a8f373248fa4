//! The server the fuzz targets talk to: tools with the schema shapes the
//! runtime meets (required, enums, bounds, nesting, unions, recursion),
//! handlers that succeed, fail, panic and report progress, in both
//! dialects; handlers run inline so that one input is one deterministic run.

use std::sync::Arc;

use serde_json::{Value, json};
use toolgen_runtime::check::{self, Json};
use toolgen_runtime::server::{
    Elicited, EmbeddedResource, Prompt, PromptMessage, Resource, Sampled, Sampling,
};
use toolgen_runtime::{
    Call, Content, Execution, Handler, LogLevel, Server, ServerInfo, ToolDescriptor, ToolError,
    ToolOutput, TypedHandler, typed_call,
};

fn descriptor(id: &str, input: Value, output: Option<Value>) -> ToolDescriptor {
    ToolDescriptor {
        id: id.to_owned(),
        name: id.to_owned(),
        description: format!("{id} for fuzzing"),
        category: "fuzz".to_owned(),
        safety_level: "read-only".to_owned(),
        tier: if id == "pro" { "tier1" } else { "core" }.to_owned(),
        input_schema: input,
        output_schema: output,
        timeout: None,
        requires_approval: false,
        notes: None,
        entry: None,
    }
}

fn handler(
    f: fn(Call, serde_json::Map<String, Value>) -> Result<ToolOutput, ToolError>,
) -> Handler {
    Arc::new(f)
}

/// What the deliberately panicking handler says.
const DELIBERATE: &str = "a handler panicked";

/// libFuzzer's panic hook aborts on every panic, even one the server catches;
/// the deliberate one (the server must isolate it) is let through, any other
/// still aborts and is reported.
fn allow_the_deliberate_panic() {
    let fuzzer_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&DELIBERATE) {
            fuzzer_hook(info);
        }
    }));
}

/// The fuzzing server.
pub fn server() -> Server {
    allow_the_deliberate_panic();
    let object = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$"},
            "count": {"type": "integer", "minimum": 0, "maximum": 100},
            "mode": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 4},
            "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"], "additionalProperties": false},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "tree": {"$ref": "#/$defs/node"}
        },
        "required": ["name"],
        "additionalProperties": false,
        "$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}
    });
    let s = Server::new(ServerInfo::new("fuzz", "0"), &["core", "tier1"], "core")
        .execution(Execution::Inline)
        .page_size(2);
    s.tool(
        descriptor("echo", object.clone(), Some(json!({"type": "object"}))),
        handler(|mut call, a| {
            call.progress(1.0, Some(2.0), Some("half"));
            call.log(LogLevel::Notice, &a);
            call.add_content(Content::image(b"\x89PNG", "image/png"));
            Ok(call.finish(Value::Object(a)))
        }),
    )
    .and_then(|s| {
        s.tool(
            descriptor(
                "count",
                json!({"type": "object"}),
                Some(json!({"type": "integer"})),
            ),
            handler(|_, a| Ok(ToolOutput::new(json!(a.len())))),
        )
    })
    .and_then(|s| {
        s.tool(
            descriptor("fails", json!({}), None),
            handler(|_, _| Err(ToolError::execution("it fails").detail("why", "fuzz"))),
        )
    })
    .and_then(|s| {
        s.tool(
            descriptor("panics", json!({"type": "object"}), None),
            handler(|_, a| {
                if a.contains_key("boom") {
                    std::panic::panic_any(DELIBERATE);
                }
                Ok(ToolOutput::new(json!({})))
            }),
        )
    })
    .and_then(|s| {
        s.tool(
            descriptor("pro", json!({"type": "object"}), None),
            handler(|_, _| Ok(ToolOutput::new(json!({})))),
        )
    })
    .and_then(|s| s.tool(asks(), handler(ask)))
    .and_then(typed)
    .and_then(|s| {
        s.resource(
            Resource::new("file:///a.txt", "a.txt"),
            Arc::new(|uri| Ok(vec![EmbeddedResource::text(uri, None, "a")])),
        )
    })
    .and_then(|s| {
        s.prompt(
            Prompt::new("ask").argument("what", "", true),
            Arc::new(|args| {
                let text = args.get("what").cloned().unwrap_or_default();
                Ok(vec![PromptMessage::user(Content::text(text))])
            }),
        )
    })
    .unwrap_or_else(|e| panic!("the fuzzing server: {e}"))
}

/// `asks`: a tool that may run as a task, asking the user and then the
/// client's model (under 2026-07-28, in rounds: `inputResponses` and
/// `requestState` reach it).
fn asks() -> ToolDescriptor {
    let mut d = descriptor("asks", json!({"type": "object"}), None);
    let entry = json!({"name": "asks", "description": d.description, "inputSchema": d.input_schema,
        "execution": {"taskSupport": "optional"}});
    d.entry = Some(entry.to_string());
    d
}

fn ask(mut call: Call, _: serde_json::Map<String, Value>) -> Result<ToolOutput, ToolError> {
    let limit = std::time::Duration::from_millis(10);
    let form = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let who = call.elicit("Who?", form, limit);
    if who == Elicited::InputRequired {
        return Err(ToolError::execution("waiting for the user"));
    }
    let said = call.sample(&Sampling::ask("Hello?", 5), limit);
    if said == Sampled::InputRequired {
        return Err(ToolError::execution("waiting for the model"));
    }
    call.diagnostic(format!("{said:?}"));
    Ok(call.finish(json!({"who": format!("{who:?}")})))
}

/// `typed`'s input: what generated types are (fields renamed, optional,
/// unknown ones refused, free-form JSON).
#[derive(serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct Typed {
    #[serde(rename = "n")]
    number: Option<i64>,
    s: Option<String>,
    #[serde(default)]
    any: Value,
}

/// `typed`'s schema, compiled by hand the way toolgen compiles it.
fn typed_is_valid(v: &Json<'_>) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("n").is_none_or(check::is_integer)
            && o.get("s").is_none_or(Json::is_string)
            && o.keys().all(|k| matches!(k, "n" | "s" | "any"))
    })
}

/// Adds `typed`: a typed tool with a compiled validator (its calls read
/// their arguments from the request's text), answering its input.
fn typed(s: Server) -> Result<Server, String> {
    let input = json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "any": {}},
        "additionalProperties": false
    });
    let call: TypedHandler = Arc::new(|call, arguments| {
        typed_call("typed", call, arguments, |_, input: Typed| Ok(input))
    });
    let mut s = s.typed_tool(descriptor("typed", input, None), call)?;
    s.compiled_validator("typed", Some(typed_is_valid));
    Ok(s)
}
