//! The documentation site: an mdBook source tree under `docs/`.
//!
//! `docs/book.toml`, `docs/src/SUMMARY.md`, a landing page across tool sets
//! (counts by tier and safety level), per tool set an index grouped by
//! category, and per tool a page: badges for safety level and tier, the
//! description, an inputs table, the outputs as a tree, examples, notes, and
//! ready-to-copy requests in the EditorMCP envelope and standard MCP with a
//! sample response.
//!
//! Spec text is data, never markup: every string is escaped here for its
//! Markdown context before a template places it (ASCII punctuation
//! backslash-escaped, `<`/`>`/`&` as entities, table cells on one line,
//! mdBook's `{{#...}}` directives neutralized even inside code blocks).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use super::shape::{Kind, Model, Node, Scalar};
use crate::ir::{Project, SafetyLevel, Tool, ToolSet};

/// The docs emitter: it renders the run's templates (built-ins and overrides).
#[derive(Debug, Default)]
pub struct Docs;

/// Inline Markdown text: renders as exactly `s`, whatever it contains.
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '{' | '}' | '!' | '+' | '-' | '~'
            | '$' | '=' => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {}
            '\u{2028}' | '\u{2029}' | '\u{85}' => out.push('\n'),
            c if c.is_control() && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A table cell: escaped and on one line.
pub fn md_cell(s: &str) -> String {
    md(s)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("<br>")
}

/// A fenced code block of `lang` around `code`; mdBook's `{{#` directives are escaped.
pub fn code_block(lang: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}", code.replace("{{#", "\\{{#"))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_owned())
}

/// Prose (a description, notes) as Markdown: code spans as `<code>`, the
/// rest escaped so that it shows as written; lines kept (a blank line stays a
/// paragraph break).
pub fn md_prose(s: &str) -> String {
    md_lines(s)
        .iter()
        .map(|l| super::markup::render_line(l.trim_end(), md, md, ("<code>", "</code>")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prose in a table cell: as [`md_prose`], on one line.
pub fn md_prose_cell(s: &str) -> String {
    md_lines(s)
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| super::markup::render_line(l, md, md, ("<code>", "</code>")))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// The lines of `s` as Markdown reads them (every line terminator a line
/// break, other control characters dropped).
fn md_lines(s: &str) -> Vec<String> {
    let normalized: String = s
        .chars()
        .filter(|c| *c != '\r')
        .map(|c| match c {
            '\u{2028}' | '\u{2029}' | '\u{85}' => '\n',
            c if c.is_control() && c != '\n' => ' ',
            c => c,
        })
        .collect();
    normalized.lines().map(str::to_owned).collect()
}

/// A short type description of a node (`string`, `array of integer`, `Node`,
/// `string or null`, ...).
fn type_of(node: &Node) -> String {
    let base = match &node.kind {
        Kind::Const { value, .. } => return format!("always {value}"),
        Kind::Ref(name) => name.clone(),
        Kind::Root => "#".to_owned(),
        Kind::Scalar(s) => s.as_str().to_owned(),
        Kind::Enum { of, .. } => of.map_or("any", Scalar::as_str).to_owned(),
        Kind::Null => "null".to_owned(),
        Kind::Array(items) => format!("array of {}", type_of(items)),
        Kind::Object(_) | Kind::FreeObject | Kind::Map(_) => "object".to_owned(),
        Kind::Union(branches) if branches.iter().all(|b| matches!(b.kind, Kind::Scalar(_))) => {
            branches
                .iter()
                .map(type_of)
                .collect::<Vec<_>>()
                .join(" or ")
        }
        Kind::Union(_) => "one of several".to_owned(),
        Kind::Any | Kind::AllOf(_) => "any".to_owned(),
    };
    if node.nullable && !matches!(node.kind, Kind::Null | Kind::Any) {
        format!("{base} or null")
    } else {
        base
    }
}

#[derive(Serialize)]
struct InputRow {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    required: &'static str,
    default: String,
    values: String,
    range: String,
    description: String,
}

fn inputs(model: &Model) -> Vec<InputRow> {
    let code = |v: &Value| format!("<code>{}</code>", md_cell(&v.to_string()));
    let Some(root) = &model.root else {
        return Vec::new();
    };
    root.properties()
        .iter()
        .map(|p| {
            let n = &p.node;
            let range = match (&n.minimum, &n.maximum) {
                (Some(a), Some(b)) => {
                    format!("{} … {}", md_cell(&a.to_string()), md_cell(&b.to_string()))
                }
                (Some(a), None) => format!("≥ {}", md_cell(&a.to_string())),
                (None, Some(b)) => format!("≤ {}", md_cell(&b.to_string())),
                (None, None) => String::new(),
            };
            let values = match &n.kind {
                Kind::Enum { values, .. } => values.iter().map(code).collect::<Vec<_>>().join(", "),
                _ => String::new(),
            };
            InputRow {
                name: format!("<code>{}</code>", md_cell(&p.wire)),
                ty: md_cell(&type_of(n)),
                required: if p.required { "yes" } else { "no" },
                default: n.default.as_ref().map(code).unwrap_or_default(),
                values,
                range,
                description: md_prose_cell(n.description.as_deref().unwrap_or("")),
            }
        })
        .collect()
}

/// The definition a reference names (`None` for any other node).
fn via(node: &Node) -> Option<&str> {
    match &node.kind {
        Kind::Ref(name) => Some(name),
        _ => None,
    }
}

/// The fields of `node` as a nested Markdown list, references followed in
/// `model`; a definition already being listed above is named, not repeated.
fn output_tree(model: &Model, node: &Node, depth: usize, seen: &mut Vec<String>, out: &mut String) {
    for p in node.properties() {
        let indent = "  ".repeat(depth);
        let target = model.resolve(&p.node);
        let (inner, inner_via, suffix) = match &target.kind {
            Kind::Array(items) => (model.resolve(items), via(items).or(via(&p.node)), "[]"),
            _ => (target, via(&p.node), ""),
        };
        let description = p
            .node
            .description
            .as_deref()
            .or(target.description.as_deref())
            .unwrap_or("");
        out.push_str(&format!(
            "{indent}- <code>{}{suffix}</code> ({}{}){}{}\n",
            md_cell(&p.wire),
            md_cell(&type_of(&p.node)),
            if p.required { ", required" } else { "" },
            if description.is_empty() { "" } else { ": " },
            md_prose_cell(description)
        ));
        if matches!(inner.kind, Kind::Object(_)) && depth < 8 {
            if let Some(v) = inner_via {
                if seen.iter().any(|s| s == v) {
                    out.push_str(&format!(
                        "{indent}  - … (recursive: the same fields as <code>{}</code>)\n",
                        md_cell(v)
                    ));
                    continue;
                }
                seen.push(v.to_owned());
            }
            output_tree(model, inner, depth + 1, seen, out);
            if inner_via.is_some() {
                seen.pop();
            }
        }
    }
}

/// The outputs section: a field tree for objects (the root reference
/// followed), one sub-list per alternative for unions, else the type.
fn outputs_section(model: &Model) -> String {
    let Some(top) = &model.root else {
        return "The tool declares no output schema.\n".to_owned();
    };
    let root = model.resolve(top);
    let mut out = String::new();
    if let (Some(d), true) = (&root.description, via(top).is_some()) {
        out.push_str(&md_prose(d));
        out.push_str("\n\n");
    }
    if let Kind::Union(alts) = &root.kind {
        out.push_str(&format!("One of {} shapes:\n\n", alts.len()));
        for (i, alt) in alts.iter().enumerate() {
            // Name an alternative by its constant discriminator, if it has one.
            let tag = alt
                .properties()
                .iter()
                .find_map(|p| match &p.node.kind {
                    Kind::Const { value, .. } => Some(format!("{} = {value}", p.wire)),
                    _ => None,
                })
                .or_else(|| alt.title.clone())
                .unwrap_or_else(|| format!("shape {}", i + 1));
            out.push_str(&format!("- <code>{}</code>\n", md_cell(&tag)));
            let mut sub = String::new();
            output_tree(model, alt, 1, &mut Vec::new(), &mut sub);
            out.push_str(&sub);
        }
        return out;
    }
    let mut tree = String::new();
    output_tree(model, root, 0, &mut Vec::new(), &mut tree);
    if tree.is_empty() {
        out.push_str(&format!("Type: {}\n", md(&type_of(root))));
    } else {
        out.push_str(&tree);
    }
    out
}

fn badge(safety: SafetyLevel) -> String {
    let class = match safety {
        SafetyLevel::ReadOnly => "read-only",
        SafetyLevel::SafeWrite => "safe-write",
        SafetyLevel::Destructive => "destructive",
    };
    let icon = match safety {
        SafetyLevel::ReadOnly => "👁",
        SafetyLevel::SafeWrite => "✏️",
        SafetyLevel::Destructive => "⚠️",
    };
    format!("<span class=\"tg-badge tg-{class}\">{icon} {class}</span>")
}

/// The file name of a tool's page (ids are path-safe after validation).
pub fn page_name(tool: &Tool) -> String {
    format!("{}.md", tool.id.value.replace(['/', '\\', ' '], "_"))
}

#[derive(Serialize)]
struct ToolPage {
    id: String,
    id_code: String,
    name: String,
    category: String,
    safety_badge: String,
    writes: bool,
    tier: String,
    /// `None`: no limit stated.
    timeout: Option<String>,
    description: String,
    requires_approval: bool,
    group: Option<String>,
    implementation_example: Option<String>,
    inputs: Vec<InputRow>,
    outputs: String,
    examples: Vec<ExampleBlock>,
    notes: Option<String>,
    envelope_request: String,
    mcp_request: String,
    envelope_response: String,
    mcp_response: String,
    set: String,
}

#[derive(Serialize)]
struct ExampleBlock {
    title: String,
    input: String,
    output: Option<String>,
}

fn tool_page(set: &ToolSet, tool: &Tool) -> ToolPage {
    let first = tool.examples.first();
    let args = first.map_or_else(|| json!({}), |e| e.input.value.clone());
    let output = first
        .and_then(|e| e.output.as_ref())
        .map_or_else(|| json!({}), |o| o.value.clone());
    let outputs = outputs_section(&Model::new(&tool.output));
    let text = serde_json::to_string(&output).unwrap_or_default();
    // Readers record a tool's group and implementation example as annotations (RAVE does).
    let annotation = |k: &str| {
        tool.annotations
            .get(k)
            .and_then(|a| a.value.as_str())
            .map(str::to_owned)
    };
    let group = annotation("group").map(|g| md_cell(&g));
    let implementation_example = annotation("implementation_example").map(|code| {
        let lang = set.implementation_language.as_deref().unwrap_or("");
        code_block(lang, code.trim_end())
    });
    ToolPage {
        id: tool.id.value.clone(),
        id_code: format!("<code>{}</code>", md_cell(&tool.id.value)),
        name: md_cell(&tool.name.value),
        category: md_cell(&tool.category.value),
        safety_badge: badge(tool.safety.value),
        writes: tool.safety.value != SafetyLevel::ReadOnly,
        tier: md_cell(&tool.tier.value),
        timeout: set.timeout_of(tool).map(|t| format!("{t} s")),
        description: md_prose(&tool.description.value),
        requires_approval: tool.requires_approval,
        group,
        implementation_example,
        inputs: inputs(&Model::new(&tool.input)),
        outputs,
        examples: tool
            .examples
            .iter()
            .enumerate()
            .map(|(i, e)| ExampleBlock {
                title: e
                    .description
                    .as_deref()
                    .map_or_else(|| format!("Example {}", i + 1), md_cell),
                input: code_block("json", &pretty(&e.input.value)),
                output: e
                    .output
                    .as_ref()
                    .map(|o| code_block("json", &pretty(&o.value))),
            })
            .collect(),
        notes: tool.notes.as_ref().map(|n| md_prose(&n.value)),
        envelope_request: code_block(
            "json",
            &pretty(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"tool": tool.id.value, "arguments": args}}),
            ),
        ),
        mcp_request: code_block(
            "json",
            &pretty(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool.id.value, "arguments": args}}),
            ),
        ),
        envelope_response: code_block(
            "json",
            &pretty(
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"tool": tool.id.value, "output": output}}),
            ),
        ),
        mcp_response: code_block(
            "json",
            &pretty(
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}], "structuredContent": output, "isError": false}}),
            ),
        ),
        set: set.name.clone(),
    }
}

fn counts<'a>(tools: impl Iterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut m: BTreeMap<String, usize> = BTreeMap::new();
    for t in tools {
        *m.entry(t.to_owned()).or_default() += 1;
    }
    m.into_iter().collect()
}

impl super::TemplateEmitter for Docs {
    fn name(&self) -> &'static str {
        "docs"
    }

    fn emit_rendered(
        &self,
        _cx: &super::EmitContext<'_>,
        templates: &crate::templates::RunTemplates,
        project: &Project,
        out: &mut super::Output<'_>,
    ) {
        let shared = templates.shared();
        let mut sets = Vec::new();
        for set in &project.tool_sets {
            let mut by_category: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
            for tool in &set.tools {
                let page = tool_page(set, tool);
                out.render(
                    templates.for_set(set),
                    "docs/tool.md.jinja",
                    format!("docs/src/{}/{}", set.name, page_name(tool)),
                    &json!({"tool": page}),
                );
                by_category
                    .entry(tool.category.value.as_str())
                    .or_default()
                    .push(json!({
                        "page": page_name(tool),
                        "id_code": format!("<code>{}</code>", md_cell(&tool.id.value)),
                        "name": md_cell(&tool.name.value),
                        "title": md_cell(&tool.name.value).replace(['[', ']'], ""),
                        "badge": badge(tool.safety.value),
                        "tier": md_cell(&tool.tier.value),
                    }));
            }
            let categories: Vec<Value> = by_category
                .into_iter()
                .map(|(c, tools)| {
                    let description = set
                        .categories
                        .iter()
                        .find(|k| k.id == c)
                        .and_then(|k| k.description.as_deref())
                        .map(md_prose_cell)
                        .unwrap_or_default();
                    json!({"id": md_cell(c), "description": description, "tools": tools})
                })
                .collect();
            let set_ctx = json!({
                "name": set.name,
                "title": md_cell(set.title.as_deref().unwrap_or(&set.name)),
                "description": set.description.as_deref().map(md_prose).unwrap_or_default(),
                "format": set.format.as_str(),
                "count": set.tools.len(),
                "categories": categories,
                "by_tier": counts(set.tools.iter().map(|t| t.tier.value.as_str())),
                "by_safety": counts(set.tools.iter().map(|t| t.safety.value.as_str())),
            });
            out.render(
                templates.for_set(set),
                "docs/set.md.jinja",
                format!("docs/src/{}/index.md", set.name),
                &json!({"set": set_ctx}),
            );
            sets.push(set_ctx);
        }
        let all = project.tool_sets.iter().flat_map(|s| &s.tools);
        let ctx = json!({
            "sets": sets,
            "count": all.clone().count(),
            "by_tier": counts(all.clone().map(|t| t.tier.value.as_str())),
            "by_safety": counts(all.map(|t| t.safety.value.as_str())),
        });
        out.render(
            shared,
            "docs/index.md.jinja",
            "docs/src/index.md".into(),
            &ctx,
        );
        out.render(
            shared,
            "docs/SUMMARY.md.jinja",
            "docs/src/SUMMARY.md".into(),
            &ctx,
        );
        out.render(
            shared,
            "docs/book.toml.jinja",
            "docs/book.toml".into(),
            &ctx,
        );
        out.render(
            shared,
            "docs/toolgen.css.jinja",
            "docs/theme/toolgen.css".into(),
            &ctx,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_text_stays_text() {
        assert_eq!(md("a | b"), "a \\| b");
        assert_eq!(md("<script>"), "&lt;script&gt;");
        assert_eq!(md("{{#include x}}"), "\\{\\{\\#include x\\}\\}");
        assert_eq!(md("# h"), "\\# h");
        assert_eq!(md_cell("a\nb\u{2028}c"), "a<br>b<br>c");
        assert_eq!(code_block("json", "x ``` y"), "````json\nx ``` y\n````");
        assert_eq!(
            code_block("", "{{#include /etc/passwd}}"),
            "```\n\\{{#include /etc/passwd}}\n```"
        );
    }
}
