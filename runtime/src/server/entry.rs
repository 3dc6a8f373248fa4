//! A tool as the server holds it (descriptor, handler, validators), and a
//! call's arguments as read off the wire and as checked for the handler.

use serde_json::{Map, Value, json};

use super::output::ToolOutput;
use super::tool::{Call, Handler, ToolDescriptor};
use super::typed::{Arguments, TypedHandler, Validity};
use super::wire::plain_error;
use crate::error::{ErrorCode, ToolError};
use crate::json::Parsed;

/// The draft a tool's schema is validated with: the one its `$schema`
/// declares, else 2020-12 (MCP's default for a schema that declares none).
pub(crate) fn draft_of(schema: &Value) -> jsonschema::Draft {
    match jsonschema::Draft::Draft202012.detect(schema) {
        jsonschema::Draft::Unknown => jsonschema::Draft::Draft202012,
        draft => draft,
    }
}

pub(super) struct Entry {
    pub(super) descriptor: ToolDescriptor,
    pub(super) handler: Handler,
    /// The tool's typed call, when it has one (it also serves `handler`):
    /// it reads arguments from the request's text ([`Server::typed_tool`]).
    pub(super) typed: Option<TypedHandler>,
    pub(super) validator: jsonschema::Validator,
    /// The validator toolgen compiled from the same schema: answers whether
    /// arguments are valid without walking the schema; `validator` still
    /// reports the violations of invalid ones.
    pub(super) compiled: Option<Validity>,
    /// Its outputs go out as MCP structured content `{"result": ...}`: its
    /// output schema is not an object's (see [`structured`]).
    pub(super) wraps_output: bool,
    /// Runs on the serial lane: one call at a time, in arrival order.
    pub(super) serial: bool,
    /// Whether it may be called as a task (its listing's `execution`).
    pub(super) task_support: super::task::TaskSupport,
}

/// A call's arguments as read off the wire.
pub(crate) enum WireArguments<'a> {
    /// Parsed into a `Value` (the general path).
    Value(Value),
    /// The request's text of them (an object), and what it reads as (the fast path).
    Text(&'a str, Parsed<'a>),
}

/// A checked call's arguments, for its handler: a map, or (a typed tool's,
/// read off the wire) the request's text of them (`T`: borrowed for a call
/// run at once, owned for one on the pool).
pub(crate) enum Checked<T> {
    Map(Map<String, Value>),
    Text(T),
}

impl<T: AsRef<str>> Checked<T> {
    /// Runs `entry`'s handler on these arguments.
    pub(crate) fn run(self, entry: &Entry, call: Call) -> Result<ToolOutput, ToolError> {
        match (self, &entry.typed) {
            (Checked::Map(m), _) => (entry.handler)(call, m),
            (Checked::Text(t), Some(typed)) => typed(call, Arguments::Text(t.as_ref())),
            // `Server::check` gives text to typed tools only; read it, should that change.
            (Checked::Text(t), None) => {
                (entry.handler)(call, serde_json::from_str(t.as_ref()).unwrap_or_default())
            }
        }
    }
}

impl Checked<&str> {
    pub(super) fn into_owned(self) -> Checked<String> {
        match self {
            Checked::Map(m) => Checked::Map(m),
            Checked::Text(t) => Checked::Text(t.to_owned()),
        }
    }
}

/// The -32002 error for arguments that fail validation: every violation,
/// located by JSON pointer, and the missing required parameters.
pub(super) fn invalid(entry: &Entry, tool: &str, instance: &Value) -> ToolError {
    let violations: Vec<Value> = entry
        .validator
        .iter_errors(instance)
        .map(|e| json!({"path": e.instance_path().as_str(), "message": e.to_string()}))
        .collect();
    let missing = missing_parameters(&entry.descriptor.input_schema, instance);
    let summary = if missing.is_empty() {
        format!(
            "Invalid tool arguments: {}",
            violations
                .first()
                .and_then(|v| v["message"].as_str())
                .unwrap_or("")
        )
    } else {
        format!("Invalid tool arguments: {} is required", missing.join(", "))
    };
    let mut e = plain_error(ErrorCode::InvalidArguments, summary)
        .for_tool(tool)
        .detail("violations", violations);
    if !missing.is_empty() {
        e = e.detail("missingParameters", missing);
    }
    e
}

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Required properties missing from `args`, for `details.missingParameters`.
fn missing_parameters(schema: &Value, args: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| args.get(*r).is_none())
        .map(str::to_owned)
        .collect()
}
