//! Formatting of a JSON spec: every member and item on a line of its own,
//! indented as the editor asks, keys and values as written (a number keeps
//! its digits, a string its escapes), so only whitespace changes. A
//! document that does not parse is left alone.

use crate::source::FileId;
use crate::syntax::{Node, NodeKind};

/// `text` formatted, or `None` when it does not parse.
pub fn json(text: &str, indent: &str) -> Option<String> {
    let parsed = crate::syntax::json::parse(FileId(0), text);
    let errors = (parsed.diagnostics.iter()).any(|d| d.severity == crate::diag::Severity::Error);
    let root = parsed.root.filter(|_| !errors)?;
    let mut out = String::with_capacity(text.len());
    write(text, &root, indent, 0, &mut out);
    out.push('\n');
    Some(out)
}

fn write(text: &str, node: &Node, indent: &str, depth: usize, out: &mut String) {
    let pad = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    match &node.kind {
        NodeKind::Object(members) if !members.is_empty() => {
            out.push('{');
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, depth + 1);
                out.push_str(&text[m.key_span.start as usize..m.key_span.end as usize]);
                out.push_str(": ");
                write(text, &m.value, indent, depth + 1, out);
            }
            pad(out, depth);
            out.push('}');
        }
        NodeKind::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, depth + 1);
                write(text, item, indent, depth + 1, out);
            }
            pad(out, depth);
            out.push(']');
        }
        NodeKind::Object(_) => out.push_str("{}"),
        NodeKind::Array(_) => out.push_str("[]"),
        _ => out.push_str(&text[node.span.start as usize..node.span.end as usize]),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_whitespace_changes() {
        let text = "{\"a\":1.50,\"b\" : [ \"x\\u0041\", {}, [] ],\"c\":{\"d\":null}}";
        let want = "{\n  \"a\": 1.50,\n  \"b\": [\n    \"x\\u0041\",\n    {},\n    []\n  ],\n  \
                    \"c\": {\n    \"d\": null\n  }\n}\n";
        assert_eq!(super::json(text, "  ").as_deref(), Some(want));
        assert_eq!(super::json("{\"a\": ", "  "), None);
    }
}
