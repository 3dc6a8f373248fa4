//! What the runtime's integration tests share.

use serde_json::Value;
use toolgen_runtime::ToolDescriptor;

/// A read-only tool of tier `core` taking `input_schema`, with no time limit
/// and no listing of its own.
pub fn descriptor(id: &str, input_schema: Value) -> ToolDescriptor {
    ToolDescriptor {
        id: id.to_owned(),
        name: id.to_owned(),
        description: format!("The {id} tool."),
        category: "test".to_owned(),
        safety_level: "read-only".to_owned(),
        tier: "core".to_owned(),
        input_schema,
        output_schema: None,
        timeout: None,
        requires_approval: false,
        notes: None,
        entry: None,
    }
}
