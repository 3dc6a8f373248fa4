//! The ToolVault call shape: `arguments` is an array of `{"name", "value"}`
//! pairs, where MCP uses an object. This module is the one place that converts
//! between the two; everything else works with the object form, validated
//! against the called tool's own input schema.
//!
//! ToolVault's protocol schema types `value` as a `oneOf` whose branches
//! overlap (a track feature matches both "any feature" and "track feature"),
//! so validating a call against `ToolCallRequest.schema.json` as written
//! rejects valid calls. toolgen never does that: it converts the arguments
//! here and validates the object against the tool's input schema, which is
//! precise (docs/decisions.md, NOTES point 22).

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ToolError};

/// One problem with an arguments array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentProblem {
    /// Index of the offending entry, when there is one.
    pub index: Option<usize>,
    pub message: String,
}

/// Every problem found in an arguments array (never just the first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentsError {
    pub problems: Vec<ArgumentProblem>,
}

impl std::fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let msgs: Vec<&str> = self.problems.iter().map(|p| p.message.as_str()).collect();
        write!(f, "invalid tool arguments: {}", msgs.join("; "))
    }
}

impl std::error::Error for ArgumentsError {}

impl ArgumentsError {
    /// The envelope error for these problems (-32002, with every problem in `details`).
    pub fn to_tool_error(&self, tool: &str) -> ToolError {
        let problems: Vec<Value> = self
            .problems
            .iter()
            .map(|p| json!({"index": p.index, "message": p.message}))
            .collect();
        ToolError::new(ErrorCode::InvalidArguments, self.to_string())
            .for_tool(tool)
            .detail("problems", problems)
    }
}

/// Converts `[{"name": n, "value": v}, ...]` to `{n: v, ...}`.
///
/// With `parameters` (the tool's parameter names), unknown names are problems
/// too. Duplicate names, entries that are not objects, missing or non-string
/// names, missing values and extra keys are all reported together.
pub fn arguments_to_object(
    args: &Value,
    parameters: Option<&[&str]>,
) -> Result<Map<String, Value>, ArgumentsError> {
    let Some(items) = args.as_array() else {
        return Err(ArgumentsError {
            problems: vec![ArgumentProblem {
                index: None,
                message: format!(
                    "`arguments` must be an array of {{\"name\", \"value\"}} objects, found {}",
                    kind(args)
                ),
            }],
        });
    };
    let mut out = Map::new();
    let mut problems = Vec::new();
    let mut problem = |index: usize, message: String| {
        problems.push(ArgumentProblem {
            index: Some(index),
            message,
        })
    };
    for (i, item) in items.iter().enumerate() {
        let Some(entry) = item.as_object() else {
            problem(
                i,
                format!(
                    "argument {i} must be an object with `name` and `value`, found {}",
                    kind(item)
                ),
            );
            continue;
        };
        for key in entry.keys().filter(|k| *k != "name" && *k != "value") {
            problem(
                i,
                format!(
                    "argument {i} has an unexpected key `{key}` (only `name` and `value` are allowed)"
                ),
            );
        }
        let name = match entry.get("name") {
            Some(Value::String(n)) => n,
            Some(other) => {
                problem(
                    i,
                    format!(
                        "argument {i}: `name` must be a string, found {}",
                        kind(other)
                    ),
                );
                continue;
            }
            None => {
                problem(i, format!("argument {i} has no `name`"));
                continue;
            }
        };
        let Some(value) = entry.get("value") else {
            problem(i, format!("argument `{name}` has no `value`"));
            continue;
        };
        if let Some(params) = parameters {
            if !params.contains(&name.as_str()) {
                let known = if params.is_empty() {
                    "the tool takes no arguments".to_owned()
                } else {
                    format!("known: {}", params.join(", "))
                };
                problem(i, format!("unknown argument `{name}` ({known})"));
                continue;
            }
        }
        if out.contains_key(name) {
            problem(i, format!("argument `{name}` is given twice"));
            continue;
        }
        out.insert(name.clone(), value.clone());
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(ArgumentsError { problems })
    }
}

/// Converts `{n: v, ...}` to `[{"name": n, "value": v}, ...]`, in key order.
pub fn arguments_to_array(args: &Map<String, Value>) -> Value {
    Value::Array(
        args.iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect(),
    )
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let array = json!([
            {"name": "source", "value": {"type": "Feature"}},
            {"name": "units", "value": "degrees"}
        ]);
        let object =
            arguments_to_object(&array, Some(&["source", "target", "units"])).unwrap_or_default();
        assert_eq!(
            Value::Object(object.clone()),
            json!({"source": {"type": "Feature"}, "units": "degrees"})
        );
        assert_eq!(arguments_to_array(&object), array);
    }

    #[test]
    fn every_problem_is_reported() {
        let bad = json!([
            {"name": "units", "value": "degrees"},
            {"name": "units", "value": "radians"},
            {"name": "speed", "value": 3},
            {"name": 5, "value": 1},
            {"value": 1},
            {"name": "target"},
            {"name": "source", "value": 1, "extra": true},
            "loose"
        ]);
        let err = arguments_to_object(&bad, Some(&["source", "target", "units"])).err();
        let messages: Vec<String> = err
            .map(|e| e.problems.into_iter().map(|p| p.message).collect())
            .unwrap_or_default();
        assert_eq!(messages.len(), 7, "{messages:?}");
        assert!(messages[0].contains("`units` is given twice"));
        assert!(messages[1].contains("unknown argument `speed`"));
        assert!(messages[2].contains("`name` must be a string"));
        assert!(messages[3].contains("has no `name`"));
        assert!(messages[4].contains("`target` has no `value`"));
        assert!(messages[5].contains("unexpected key `extra`"));
        assert!(messages[6].contains("must be an object"));
        let not_array = arguments_to_object(&json!({"units": 1}), None).err();
        assert!(not_array.is_some_and(|e| e.problems[0].message.contains("must be an array")));
    }

    #[test]
    fn errors_become_envelope_errors() {
        let err = arguments_to_object(&json!([{"name": "x", "value": 1}]), Some(&[])).err();
        let te = err.map(|e| e.to_tool_error("calculate_bearing"));
        let v = serde_json::to_value(te).unwrap_or_default();
        assert_eq!(v["code"], -32002);
        assert_eq!(v["data"]["errorType"], "validation");
        assert_eq!(v["data"]["tool"], "calculate_bearing");
        assert_eq!(v["data"]["details"]["problems"][0]["index"], 0);
    }
}
