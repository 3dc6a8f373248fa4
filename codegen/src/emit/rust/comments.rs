//! The doc comments of generated items.

use crate::ir::Tool;

/// The doc attributes' values for `text`, one per line: a space after the
/// `///`, no `*/` (which would end a block comment), and prose wrapped at 80
/// characters, rustfmt's comment width (code blocks and tables as written).
pub(super) fn doc_values(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut fenced = false;
    text.lines().flat_map(move |l| {
        let l = l.replace("*/", "* /");
        let verbatim = fenced || !is_prose(&l);
        fenced ^= l.trim_start().starts_with("```");
        if verbatim {
            vec![format!(" {l}")]
        } else {
            wrapped(&l, 80)
                .into_iter()
                .map(|w| format!(" {w}"))
                .collect()
        }
    })
}

/// Whether a doc line is prose that may be wrapped: not a code fence, a
/// table row, an indented code line or a heading.
fn is_prose(line: &str) -> bool {
    let t = line.trim_start();
    !(t.starts_with("```") || t.starts_with('|') || t.starts_with('#') || line.starts_with("    "))
}

/// `line` broken at spaces into lines of at most `width` characters (a word
/// longer than that on a line of its own); its leading spaces kept on each.
pub(super) fn wrapped(line: &str, width: usize) -> Vec<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let mut lines: Vec<String> = Vec::new();
    for word in line.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(format!("{indent}{word}")),
        }
    }
    if lines.is_empty() {
        lines.push(line.to_owned());
    }
    lines
}

/// `text` (a formatted file) with each `///` or `//!` comment line longer
/// than 100 characters wrapped at spaces to fit, outside code blocks.
pub(super) fn wrap_long_doc_lines(text: &str) -> String {
    if !text.lines().any(|l| l.chars().count() > 100) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 256);
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let t = body.trim_start();
        let marker = ["/// ", "//! "].into_iter().find(|m| t.starts_with(m));
        let Some(marker) = marker else {
            out.push_str(line);
            continue;
        };
        let indent = &body[..body.len() - t.len()];
        let doc = &t[marker.len()..];
        let verbatim = fenced || !is_prose(doc);
        fenced ^= doc.trim_start().starts_with("```");
        if verbatim || body.chars().count() <= 100 {
            out.push_str(line);
            continue;
        }
        let width = 100 - indent.chars().count() - marker.len();
        for w in wrapped(doc, width) {
            out.push_str(indent);
            out.push_str(marker);
            out.push_str(&w);
            out.push('\n');
        }
    }
    out
}

/// The docs of a tool module's constants.
pub(super) const INPUT_SCHEMA_DOC: &str =
    "The input schema, for the tool's `ToolInfo` (`tools/list` and validation).";

pub(super) const OUTPUT_SCHEMA_DOC: &str =
    "The output schema as `tools/list` gives an object's, for `ToolInfo`; `None`: none declared.";

pub(super) fn valid_doc(prefix: &str) -> String {
    format!(
        "The {prefix} schema's compiled validator, for the tool's `ToolInfo`; `None`: the `jsonschema` crate checks it."
    )
}

/// A tool's doc in the set's trait.
pub(super) fn method_doc(tool: &Tool) -> String {
    format!(
        "`{}` ({}, {}): {}",
        tool.id.value, tool.safety.value, tool.tier.value, tool.description.value
    )
}

/// The doc of a tool's typed call function.
pub(super) fn call_doc(tool: &Tool) -> String {
    format!(
        "Calls `{}`: its arguments into its `Input`, its `Output` straight to JSON text.",
        tool.id.value
    )
}
