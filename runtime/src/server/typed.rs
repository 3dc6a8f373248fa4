//! The glue generated code calls: its descriptor table ([`ToolInfo`]), typed
//! calls ([`typed_call`]), and [`register_tools`].

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::output::ToolOutput;
use super::tool::{Call, ToolDescriptor};
use super::wire::plain_error;
use crate::error::{ErrorCode, ToolError};
use crate::json::Json;

/// A tool descriptor as generated code writes it: static text, parsed on demand.
#[derive(Clone, Copy, Debug)]
pub struct ToolInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub category: &'static str,
    pub safety_level: &'static str,
    pub tier: &'static str,
    /// The time limit the spec states, if any.
    pub timeout_seconds: Option<f64>,
    pub requires_approval: bool,
    pub notes: Option<&'static str>,
    /// The tool's bundled input JSON Schema, as JSON text.
    pub input_schema: &'static str,
    /// The tool's bundled output JSON Schema, when it declares one.
    pub output_schema: Option<&'static str>,
    /// Its whole `tools/list` entry, JSON in the spec's order (see
    /// [`ToolDescriptor::entry`]), where `"inputSchema": null` stands for
    /// `input_schema`, and `"outputSchema": null` for `output_schema` (a
    /// schema written once in the generated code).
    pub entry: &'static str,
    /// Its calls run one at a time, in order (its tool set's manifest says
    /// `execution: serial`; see [`Server::serial_tool`](crate::server::Server::serial_tool)).
    pub serial: bool,
    /// Its input schema compiled to code by toolgen, when every keyword in
    /// it is one toolgen compiles (else the `jsonschema` crate checks calls).
    pub input_valid: Option<Validity>,
    /// Its output schema compiled likewise, for tests and checks of outputs.
    pub output_valid: Option<Validity>,
}

/// A validator toolgen generated: whether a value is valid against one
/// schema (`valid(&Json::from(&value))` checks a `serde_json::Value`).
pub type Validity = fn(&Json<'_>) -> bool;

/// A call's arguments as a typed call gets them.
#[derive(Clone, Debug)]
pub enum Arguments<'a> {
    /// Parsed (the general path, [`Server::call`](crate::server::Server::call), a generated `dispatch`).
    Value(Value),
    /// The JSON text of the request's `arguments`: an object, checked
    /// against the tool's input schema, that reads as a typed value the same
    /// as its `Value` does (see [`crate::json::Parsed::plain`]).
    Text(&'a str),
}

/// A tool served by a typed call: its arguments as text where the request
/// allows, else as a `Value` (see [`Server::typed_tool`](crate::server::Server::typed_tool)).
pub type TypedHandler =
    Arc<dyn Fn(Call, Arguments<'_>) -> Result<ToolOutput, ToolError> + Send + Sync>;

impl ToolInfo {
    /// The runtime descriptor (the schemas parsed).
    pub fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor {
            id: self.id.to_owned(),
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            category: self.category.to_owned(),
            safety_level: self.safety_level.to_owned(),
            tier: self.tier.to_owned(),
            input_schema: serde_json::from_str(self.input_schema).unwrap_or(Value::Null),
            output_schema: self
                .output_schema
                .and_then(|s| serde_json::from_str(s).ok()),
            timeout: self.timeout_seconds.map(Duration::from_secs_f64),
            requires_approval: self.requires_approval,
            notes: self.notes.map(str::to_owned),
            entry: Some(super::compact::filled(self.entry, &self.schema_slots())),
        }
    }
}

impl ToolInfo {
    /// The schemas that fill its entry's `null` slots (see `entry`).
    fn schema_slots(&self) -> Vec<(&'static str, &'static str)> {
        let mut slots = vec![("inputSchema", self.input_schema)];
        slots.extend(self.output_schema.map(|o| ("outputSchema", o)));
        slots
    }
}

/// The error for arguments that do not deserialize into a tool's input type.
pub fn invalid_arguments(tool: &str, e: &serde_json::Error) -> ToolError {
    plain_error(
        ErrorCode::InvalidArguments,
        format!("Invalid tool arguments: {e}"),
    )
    .for_tool(tool)
}

/// The error for an output that does not serialize.
pub fn unserializable_output(tool: &str, e: &serde_json::Error) -> ToolError {
    plain_error(
        ErrorCode::InternalError,
        format!("Internal error: the output of {tool} does not serialize: {e}"),
    )
    .for_tool(tool)
}

/// A generated typed call function: the implementation, the call's context
/// and the arguments in, the output out (see [`typed_call`]).
pub type TypedCall<T> = fn(&T, Call, Arguments<'_>) -> Result<ToolOutput, ToolError>;

/// One tool of a generated table: its descriptor and its typed call.
pub type TypedEntry<T> = (&'static ToolInfo, TypedCall<T>);

/// One typed tool call, as the generated `call_<tool>` functions make it:
/// `arguments` deserialized into the tool's input type (-32002 if they do not
/// fit), `method` called with the call's context (`call`), and the output
/// written straight to JSON text (no `Value` in between) with the call's
/// diagnostics. Arguments given as text are read straight into the input
/// type; should that fail, the text is read as a `Value` first, so the
/// error is the one the `Value` gives.
pub fn typed_call<I, O>(
    tool: &str,
    call: Call,
    arguments: Arguments<'_>,
    method: impl FnOnce(&mut Call, I) -> Result<O, ToolError>,
) -> Result<ToolOutput, ToolError>
where
    I: serde::de::DeserializeOwned,
    O: serde::Serialize,
{
    let input: I = match arguments {
        Arguments::Text(text) => match serde_json::from_str(text) {
            Ok(input) => input,
            Err(_) => input_of(tool, serde_json::from_str(text).unwrap_or(Value::Null))?,
        },
        Arguments::Value(v) => input_of(tool, v)?,
    };
    let mut call = call;
    let output = method(&mut call, input)?;
    call.finish_typed(&output)
        .map_err(|e| unserializable_output(tool, &e))
}

/// `arguments` as a tool's input type, whole numbers written as floats read as integers.
fn input_of<I: serde::de::DeserializeOwned>(tool: &str, arguments: Value) -> Result<I, ToolError> {
    let mut arguments = arguments;
    whole_numbers_as_integers(&mut arguments);
    serde_json::from_value(arguments).map_err(|e| invalid_arguments(tool, &e))
}

/// Writes whole numbers written as floats (`2.0`) as integers (`2`).
/// JSON Schema counts `2.0` as an integer, and Python's `json` writes floats
/// that way, but serde refuses it for an integer field; a float field takes
/// `2` as `2.0`, so nothing valid is lost. Only numbers a float holds
/// exactly (below 2^53) are changed.
pub fn whole_numbers_as_integers(v: &mut Value) {
    match v {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0)
            {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(m) => m.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

/// The error for a tool id that a dispatch table does not know.
pub fn unknown_tool(tool: &str) -> ToolError {
    plain_error(ErrorCode::ToolNotFound, format!("Tool not found: {tool}")).for_tool(tool)
}
