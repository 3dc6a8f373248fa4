//! The EditorMCP error model: JSON-RPC 2.0 error codes, the extended codes
//! -32000..-32005, and the `data` object (`tool`, `errorType`, `details`).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON-RPC error code of the EditorMCP envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// -32700: the request is not valid JSON.
    ParseError,
    /// -32600: the JSON is not a valid request object.
    InvalidRequest,
    /// -32601: no such method.
    MethodNotFound,
    /// -32602: the method's parameters are invalid.
    InvalidParams,
    /// -32603: a failure inside the server.
    InternalError,
    /// -32000: the tool ran and failed.
    ToolExecution,
    /// -32001: no tool with that id.
    ToolNotFound,
    /// -32002: the arguments do not match the tool's input schema.
    InvalidArguments,
    /// -32003: the tool did not finish within its time limit.
    Timeout,
    /// -32004: the Unity Editor reported an error.
    UnityEditor,
    /// -32005: the tool is above the server's tier.
    PermissionDenied,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::InvalidParams,
        ErrorCode::InternalError,
        ErrorCode::ToolExecution,
        ErrorCode::ToolNotFound,
        ErrorCode::InvalidArguments,
        ErrorCode::Timeout,
        ErrorCode::UnityEditor,
        ErrorCode::PermissionDenied,
    ];

    /// The numeric code on the wire.
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::ToolExecution => -32000,
            ErrorCode::ToolNotFound => -32001,
            ErrorCode::InvalidArguments => -32002,
            ErrorCode::Timeout => -32003,
            ErrorCode::UnityEditor => -32004,
            ErrorCode::PermissionDenied => -32005,
        }
    }

    pub fn from_code(code: i64) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.code() == code)
    }

    /// The `errorType` that goes with this code by default.
    pub fn default_type(self) -> ErrorType {
        match self {
            ErrorCode::ToolNotFound | ErrorCode::MethodNotFound => ErrorType::NotFound,
            ErrorCode::InvalidArguments
            | ErrorCode::InvalidParams
            | ErrorCode::InvalidRequest
            | ErrorCode::ParseError => ErrorType::Validation,
            ErrorCode::Timeout => ErrorType::Timeout,
            ErrorCode::UnityEditor => ErrorType::Unity,
            ErrorCode::PermissionDenied => ErrorType::Permission,
            ErrorCode::ToolExecution | ErrorCode::InternalError => ErrorType::Execution,
        }
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.code())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = i64::deserialize(d)?;
        ErrorCode::from_code(n)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code {n}")))
    }
}

/// The `data.errorType` of an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    Validation,
    Execution,
    Unity,
    Permission,
    Timeout,
    NotFound,
}

/// The `data` object of an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub error_type: ErrorType,
    #[serde(default)]
    pub details: Map<String, Value>,
}

/// An error a tool call can end with: the `error` member of a JSON-RPC response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<ErrorData>,
}

impl ToolError {
    /// An error with `code`, its default `errorType`, and no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
            data: Some(ErrorData {
                tool: None,
                error_type: code.default_type(),
                details: Map::new(),
            }),
        }
    }

    /// Names the tool the error concerns.
    pub fn for_tool(mut self, tool: impl Into<String>) -> ToolError {
        if let Some(d) = &mut self.data {
            d.tool = Some(tool.into());
        }
        self
    }

    /// Adds one entry to `data.details`.
    pub fn detail(mut self, key: impl Into<String>, value: impl Into<Value>) -> ToolError {
        if let Some(d) = &mut self.data {
            d.details.insert(key.into(), value.into());
        }
        self
    }

    /// A failure inside the tool (`-32000`, `execution`).
    pub fn execution(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::ToolExecution, message)
    }

    /// An error reported by the Unity Editor (`-32004`, `unity`).
    pub fn unity(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::UnityEditor, message)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.code())
    }
}

impl std::error::Error for ToolError {}

/// The error of the conversions generated types offer (`FromStr`, `TryFrom`
/// on enums and constrained strings): typify's `error::ConversionError`,
/// defined once here instead of once in every generated type module.
pub struct ConversionError(std::borrow::Cow<'static, str>);

impl std::error::Error for ConversionError {}

impl std::fmt::Display for ConversionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl From<&'static str> for ConversionError {
    fn from(value: &'static str) -> Self {
        ConversionError(value.into())
    }
}

impl From<String> for ConversionError {
    fn from(value: String) -> Self {
        ConversionError(value.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_as_the_envelope_writes_it() {
        let e = ToolError::new(
            ErrorCode::InvalidArguments,
            "Invalid tool arguments: scenePath is required",
        )
        .for_tool("scene.hierarchy.dump")
        .detail("missingParameters", json!(["scenePath"]));
        let v = serde_json::to_value(&e).unwrap_or_default();
        assert_eq!(
            v,
            json!({
                "code": -32002,
                "message": "Invalid tool arguments: scenePath is required",
                "data": {
                    "tool": "scene.hierarchy.dump",
                    "errorType": "validation",
                    "details": {"missingParameters": ["scenePath"]}
                }
            })
        );
        let back: ToolError =
            serde_json::from_value(v).unwrap_or_else(|_| ToolError::execution("x"));
        assert_eq!(back, e);
    }

    #[test]
    fn codes_round_trip() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(c.code()), Some(c));
        }
        assert_eq!(ErrorCode::from_code(-1), None);
        assert_eq!(
            serde_json::to_value(ErrorType::NotFound).unwrap_or_default(),
            json!("not_found")
        );
    }
}
