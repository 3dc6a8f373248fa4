//! The doc comments of generated items, shared by the two writers of a
//! tool's fragments: tokens formatted by prettyplease ([`super::items`]) and
//! text written directly ([`super::written`]).

use crate::ir::Tool;

/// The doc attributes' values for `text`, one per line: a space after the
/// `///`, and no `*/` (which would end a block comment).
pub(super) fn doc_values(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(|l| format!(" {}", l.replace("*/", "* /")))
}

/// The docs of a tool module's constants (shared with [`super::written`]).
pub(super) const INPUT_SCHEMA_DOC: &str =
    "The input schema, for the tool's `ToolInfo` (`tools/list` and validation).";

pub(super) const OUTPUT_SCHEMA_DOC: &str =
    "The output schema as `tools/list` gives an object's, for `ToolInfo`; `None`: none declared.";

pub(super) fn valid_doc(prefix: &str) -> String {
    format!(
        "The {prefix} schema's compiled validator, for the tool's `ToolInfo`; `None`: the `jsonschema` crate checks it."
    )
}

/// A tool's doc in the set's trait (shared with [`super::written`]).
pub(super) fn method_doc(tool: &Tool) -> String {
    format!(
        "`{}` ({}, {}): {}",
        tool.id.value, tool.safety.value, tool.tier.value, tool.description.value
    )
}

/// The doc of a tool's typed call function (shared with [`super::written`]).
pub(super) fn call_doc(tool: &Tool) -> String {
    format!(
        "Calls `{}`: its arguments into its `Input`, its `Output` straight to JSON text.",
        tool.id.value
    )
}
