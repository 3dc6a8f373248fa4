//! Format readers: spanned documents in, IR tools out.
//!
//! Readers know nothing of outputs. Each reader checks the structure of its
//! format and translates it into [`crate::ir::Tool`]s; format-independent checks
//! run afterwards in [`crate::validate`].

pub mod editormcp;
pub mod fields;
pub mod mcp;
pub mod rave;

use crate::ir::{Format, ToolSet};
use crate::syntax::Node;

/// Guesses the format of a parsed document from its content.
pub fn detect(root: &Node, is_yaml: bool) -> Option<Format> {
    root.as_object()?;
    if root.member("inputSchema").is_some() {
        return Some(Format::Mcp);
    }
    if !is_yaml && editormcp::detect(root) {
        return Some(Format::EditorMcp);
    }
    if root.member("parameters").is_some()
        || root
            .get("name")
            .and_then(Node::as_str)
            .is_some_and(|n| n.contains("-mcp_tool_"))
    {
        return Some(Format::Rave);
    }
    if editormcp::detect(root) {
        return Some(Format::EditorMcp);
    }
    None
}

/// The tool set that loose files of `format` (with no toolset.yaml) belong to.
pub fn default_tool_set(format: Format) -> ToolSet {
    let mut set = editormcp::default_tool_set();
    if format != Format::EditorMcp {
        set.name = format.as_str().to_owned();
        set.title = None;
        set.format = format;
        set.namespace = match format {
            Format::Rave => "Rave".to_owned(),
            _ => "Mcp".to_owned(),
        };
        // RAVE and MCP categories are free-form: any category is allowed.
        set.categories = Vec::new();
        // Plain JSON Schema: an array without `items` holds any values.
        set.arrays_need_items = format != Format::Mcp;
        // RAVE's implementation examples are R code.
        set.implementation_language = (format == Format::Rave).then(|| "r".to_owned());
        // Neither format states a time limit; only EditorMCP's protocol does.
        set.default_timeout_seconds = None;
        set.envelope = false;
    }
    set
}
