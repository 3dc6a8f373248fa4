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

use super::{Emitter, GeneratedFiles};
use crate::diag::Diagnostic;
use crate::ir::{Project, SafetyLevel, Tool, ToolSet};
use crate::schema::strings;
use crate::templates::Templates;

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

/// A Markdown paragraph block: escaped lines; a blank line stays a paragraph break.
pub fn md_block(s: &str) -> String {
    md(s)
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
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

/// A short type description of a schema (`string`, `array of integer`, `Node`, ...).
fn type_of(s: &Value) -> String {
    if let Some(c) = s.get("const") {
        return format!("always {c}");
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or("object").to_owned();
    }
    let base = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if s.get("anyOf").is_some() || s.get("oneOf").is_some() => "one of several".to_owned(),
        _ => "any".to_owned(),
    };
    if base == "array" {
        if let Some(items) = s.get("items") {
            return format!("array of {}", type_of(items));
        }
    }
    base
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

fn inputs(schema: &Value) -> Vec<InputRow> {
    let required = strings(schema.get("required"));
    let code = |v: &Value| format!("<code>{}</code>", md_cell(&v.to_string()));
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, s)| {
            let range = match (s.get("minimum"), s.get("maximum")) {
                (Some(a), Some(b)) => {
                    format!("{} … {}", md_cell(&a.to_string()), md_cell(&b.to_string()))
                }
                (Some(a), None) => format!("≥ {}", md_cell(&a.to_string())),
                (None, Some(b)) => format!("≤ {}", md_cell(&b.to_string())),
                (None, None) => String::new(),
            };
            InputRow {
                name: format!("<code>{}</code>", md_cell(name)),
                ty: md_cell(&type_of(s)),
                required: if required.contains(&name.as_str()) {
                    "yes"
                } else {
                    "no"
                },
                default: s.get("default").map(code).unwrap_or_default(),
                values: s
                    .get("enum")
                    .and_then(Value::as_array)
                    .map(|vs| vs.iter().map(code).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default(),
                range,
                description: md_cell(s.get("description").and_then(Value::as_str).unwrap_or("")),
            }
        })
        .collect()
}

/// The outputs as a nested Markdown list.
/// `root` is the whole bundled schema, against which `$defs` references resolve.
fn output_tree(
    schema: &Value,
    root: &Value,
    depth: usize,
    seen: &mut Vec<String>,
    out: &mut String,
) {
    let required = strings(schema.get("required"));
    // A reference to a definition: the definition, and its name (for recursion).
    let resolve = |s: &'_ Value| -> (Value, Option<String>) {
        match s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(crate::schema::def_name)
        {
            Some(name) => (crate::schema::follow(root, s).clone(), Some(name)),
            None => (s.clone(), None),
        }
    };
    for (name, s) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let indent = "  ".repeat(depth);
        let (target, via) = resolve(s);
        let (inner, inner_via, suffix) = match target.get("items") {
            Some(items) if target.get("type").and_then(Value::as_str) == Some("array") => {
                let (i, v) = resolve(items);
                (i, v.or(via.clone()), "[]")
            }
            _ => (target.clone(), via.clone(), ""),
        };
        let description = s
            .get("description")
            .or_else(|| target.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("");
        out.push_str(&format!(
            "{indent}- <code>{}{suffix}</code> ({}{}){}{}\n",
            md_cell(name),
            md_cell(&type_of(s)),
            if required.contains(&name.as_str()) {
                ", required"
            } else {
                ""
            },
            if description.is_empty() { "" } else { ": " },
            md_cell(description)
        ));
        if inner.get("properties").is_some() && depth < 8 {
            if let Some(v) = &inner_via {
                if seen.contains(v) {
                    out.push_str(&format!(
                        "{indent}  - … (recursive: the same fields as <code>{}</code>)\n",
                        md_cell(v)
                    ));
                    continue;
                }
                seen.push(v.clone());
            }
            output_tree(&inner, root, depth + 1, seen, out);
            if inner_via.is_some() {
                seen.pop();
            }
        }
    }
}

/// The outputs section: a field tree for objects (the root `$ref` followed), one
/// sub-list per alternative for unions, else the type.
fn outputs_section(schema: &Value) -> String {
    let root = crate::schema::follow(schema, schema);
    let mut out = String::new();
    if let Some(d) = root.get("description").and_then(Value::as_str) {
        if schema.get("$ref").is_some() {
            out.push_str(&md_block(d));
            out.push_str("\n\n");
        }
    }
    let alternatives = root
        .get("oneOf")
        .or_else(|| root.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(alts) = alternatives {
        out.push_str(&format!("One of {} shapes:\n\n", alts.len()));
        for (i, alt) in alts.iter().enumerate() {
            // Name an alternative by its constant discriminator, if it has one.
            let tag = alt
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|p| {
                    p.iter()
                        .find_map(|(k, v)| v.get("const").map(|c| format!("{k} = {c}")))
                })
                .or_else(|| alt.get("title").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_else(|| format!("shape {}", i + 1));
            out.push_str(&format!("- <code>{}</code>\n", md_cell(&tag)));
            let mut sub = String::new();
            output_tree(alt, schema, 1, &mut Vec::new(), &mut sub);
            out.push_str(&sub);
        }
        return out;
    }
    let mut tree = String::new();
    output_tree(root, schema, 0, &mut Vec::new(), &mut tree);
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
    timeout: String,
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
    let mut outputs = String::new();
    if tool.output.value.is_null() {
        outputs.push_str("The tool declares no output schema.\n");
    } else {
        outputs = outputs_section(&tool.output.value);
    }
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
        timeout: format!("{}", set.timeout_of(tool)),
        description: md_block(&tool.description.value),
        requires_approval: tool.requires_approval,
        group,
        implementation_example,
        inputs: inputs(&tool.input.value),
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
        notes: tool.notes.as_ref().map(|n| md_block(&n.value)),
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

impl Emitter for Docs {
    fn renders_templates(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "docs"
    }

    fn emit(
        &self,
        cx: &super::EmitContext<'_>,
        project: &Project,
        out: &mut GeneratedFiles,
        diags: &mut Vec<Diagnostic>,
    ) {
        // Loaded by the run for every emitter that renders templates.
        let Some(templates) = cx.templates else {
            return;
        };
        let mut render = |t: &Templates, name: &str, path: String, ctx: &Value| {
            t.render_file(name, ctx, path, out, diags)
        };
        let shared = templates.shared();
        let mut sets = Vec::new();
        for set in &project.tool_sets {
            let mut by_category: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
            for tool in &set.tools {
                let page = tool_page(set, tool);
                render(
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
                        .map(md_cell)
                        .unwrap_or_default();
                    json!({"id": md_cell(c), "description": description, "tools": tools})
                })
                .collect();
            let set_ctx = json!({
                "name": set.name,
                "title": md_cell(set.title.as_deref().unwrap_or(&set.name)),
                "description": set.description.as_deref().map(md_block).unwrap_or_default(),
                "format": set.format.as_str(),
                "count": set.tools.len(),
                "categories": categories,
                "by_tier": counts(set.tools.iter().map(|t| t.tier.value.as_str())),
                "by_safety": counts(set.tools.iter().map(|t| t.safety.value.as_str())),
            });
            render(
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
        render(
            shared,
            "docs/index.md.jinja",
            "docs/src/index.md".into(),
            &ctx,
        );
        render(
            shared,
            "docs/SUMMARY.md.jinja",
            "docs/src/SUMMARY.md".into(),
            &ctx,
        );
        render(
            shared,
            "docs/book.toml.jinja",
            "docs/book.toml".into(),
            &ctx,
        );
        render(
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
