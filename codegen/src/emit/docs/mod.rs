//! The documentation site: an mdBook source tree under `docs/`.
//!
//! `docs/book.toml`, `docs/src/SUMMARY.md`, a landing page across tool sets
//! (counts by tier and safety), per tool set an index grouped by category,
//! and per tool a page: what its spec says of it (safety in the spec's own
//! words, tier, category and time limit, each marked when toolgen filled it
//! in), the description, the inputs and outputs as trees ([`tree`]), the
//! examples, notes, the spec's other fields (RAVE's implementation example,
//! its measured run time, output format and example response), and sample
//! calls in the dialects the tool set speaks ([`sample`]: the spec's example,
//! or a value built from the schema, validated before it is written).
//!
//! Names and values are data and show as written; spec prose is Markdown and
//! renders as Markdown, made safe ([`markdown::markdown`]).

pub mod markdown;
pub mod sample;
pub mod tree;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use self::markdown::{code, code_block, count, markdown, markdown_inline, md_cell};
use super::shape::Model;
use crate::ir::{Project, SafetyLevel, Tool, ToolSet};

/// The docs emitter: it renders the run's templates (built-ins and overrides).
#[derive(Debug, Default)]
pub struct Docs;

fn pretty(v: &impl Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_owned())
}

/// The safety of a tool as its spec states it: a badge and, for a tool that
/// changes things, a line to read before calling it; nothing when the spec
/// says nothing (then MCP clients assume it may change things).
fn safety(set: &ToolSet, tool: &Tool) -> (Option<String>, Option<String>) {
    let hint = |k: &str| tool.hints.get(k).and_then(|h| h.value.as_bool());
    let (read_only, destructive) = (hint("readOnlyHint"), hint("destructiveHint"));
    if tool.implied.safety && read_only.is_none() && destructive.is_none() {
        return (None, None);
    }
    let level = tool.safety.value;
    let badge = |class: &str, icon: &str, text: &str| {
        format!("<span class=\"tg-badge tg-{class}\">{icon} {text}</span>")
    };
    let words = match (read_only, destructive, level) {
        (Some(true), _, _) | (None, None, SafetyLevel::ReadOnly) => (
            badge("read-only", "👁", "read-only"),
            None,
        ),
        (_, Some(true), _) | (None, None, SafetyLevel::Destructive) => (
            badge("destructive", "⚠️", "destructive"),
            Some("⚠️ **Destructive**: its changes may not be undone. Review its inputs before calling it.".to_owned()),
        ),
        _ if set.envelope => (
            badge("safe-write", "✏️", "safe-write"),
            Some("✏️ **Changes the project**, one object at a time; each change can be undone.".to_owned()),
        ),
        _ => (
            badge("safe-write", "✏️", "not destructive"),
            Some("✏️ **Changes things**, but nothing that cannot be undone.".to_owned()),
        ),
    };
    (Some(words.0), words.1)
}

/// The facts line of a tool page: id, safety, tier, category, time limit,
/// group; what toolgen filled in is marked as its default.
fn facts_line(set: &ToolSet, tool: &Tool, badge: Option<&String>) -> String {
    let mut parts = vec![code(&tool.id.value)];
    match badge {
        Some(b) => parts.push(b.clone()),
        None => parts.push("safety not stated by the spec".to_owned()),
    }
    let tier = format!(
        "<span class=\"tg-badge tg-tier\">{}</span>",
        md_cell(&tool.tier.value)
    );
    parts.push(if tool.implied.tier {
        format!("tier {tier} (the default: the spec names none)")
    } else {
        format!("tier {tier}")
    });
    parts.push(if tool.implied.category {
        format!(
            "category {} (the default: the spec names none)",
            md_cell(&tool.category.value)
        )
    } else {
        format!("category {}", md_cell(&tool.category.value))
    });
    parts.push(match (&tool.timeout_seconds, set.default_timeout_seconds) {
        (Some(t), _) => format!("time limit {} s", t.value),
        (None, Some(t)) => format!("time limit {t} s (the tool set's default)"),
        (None, None) => "no time limit stated (the server's default applies)".to_owned(),
    });
    if let Some(g) = tool.annotations.get("group").and_then(|g| g.value.as_str()) {
        parts.push(format!(
            "group <span class=\"tg-badge tg-group\">{}</span>",
            md_cell(g)
        ));
    }
    parts.join(" · ")
}

/// A page's "Calling it": the arguments and output of the spec's first
/// example, else values built from the schemas; requests in MCP, and in the
/// EditorMCP envelope when the tool set speaks it.
#[derive(Serialize)]
struct Calls {
    /// Where the arguments come from, as the sentence that says so.
    source: &'static str,
    mcp_request: String,
    mcp_response: Option<String>,
    envelope_request: Option<String>,
    envelope_response: Option<String>,
}

/// A `tools/call` request as people write one: `jsonrpc`, `id`, `method`,
/// then `params` (the tool's name, then its arguments as `arguments`, JSON
/// text with its members in the order the example wrote them).
fn request(key: &str, tool: &str, arguments: &str) -> String {
    let args = arguments.replace('\n', "\n    ");
    let name = serde_json::to_string(tool).unwrap_or_default();
    code_block(
        "json",
        &format!(
            "{{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/call\",\n  \"params\": {{\n    \"{key}\": {name},\n    \"arguments\": {args}\n  }}\n}}"
        ),
    )
}

fn calls(set: &ToolSet, tool: &Tool) -> Option<Calls> {
    let first = tool.examples.first();
    let (args, source) = match first {
        Some(e) => (
            pretty(&e.input.ordered()),
            "With the arguments of the spec's first example",
        ),
        None => (
            pretty(&sample::sample(&tool.input.value)?),
            "With arguments built from the input schema (the spec has no example)",
        ),
    };
    let output = first
        .and_then(|e| e.output.as_ref().map(|o| Value::clone(&o.value)))
        .or_else(|| {
            (!tool.output.value.is_null())
                .then(|| sample::sample(&tool.output.value))
                .flatten()
        });
    let mcp_response = output.as_ref().map(|o| {
        let text = serde_json::to_string(o).unwrap_or_default();
        let mut result = json!({"content": [{"type": "text", "text": text}], "isError": false});
        // Structured content is an object: another output goes as its `result`.
        let schema = &tool.output.value;
        if !schema.is_null() && super::catalog::wraps_output(schema) {
            result["structuredContent"] = json!({ "result": o });
        } else if o.is_object() {
            result["structuredContent"] = o.clone();
        }
        code_block(
            "json",
            &pretty(&json!({"jsonrpc": "2.0", "id": 1, "result": result})),
        )
    });
    let envelope_response = output.as_ref().filter(|_| set.envelope).map(|o| {
        code_block(
            "json",
            &pretty(
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"tool": tool.id.value, "output": o}}),
            ),
        )
    });
    Some(Calls {
        source,
        mcp_request: request("name", &tool.id.value, &args),
        mcp_response,
        envelope_request: set.envelope.then(|| request("tool", &tool.id.value, &args)),
        envelope_response,
    })
}

/// The file name of a tool's page (ids are path-safe after validation).
pub fn page_name(tool: &Tool) -> String {
    format!("{}.md", tool.id.value.replace(['/', '\\', ' '], "_"))
}

#[derive(Serialize)]
struct ToolPage {
    name: String,
    facts: String,
    /// A line to read before calling it (it changes things), if any.
    warning: Option<String>,
    description: String,
    requires_approval: bool,
    /// "Deprecated ..." (Markdown), when the spec marks the tool deprecated.
    deprecated: Option<String>,
    inputs: String,
    outputs: String,
    examples: Vec<ExampleBlock>,
    notes: Option<String>,
    /// The spec's other fields, as `(title, Markdown)`.
    details: Vec<(String, String)>,
    calls: Option<Calls>,
}

#[derive(Serialize)]
struct ExampleBlock {
    title: String,
    input: String,
    output: Option<String>,
}

/// What a RAVE spec says beyond the common fields: its implementation
/// example (with its measured run time), output format and example response.
fn details(set: &ToolSet, tool: &Tool) -> Vec<(String, String)> {
    let text = |k: &str| tool.annotations.get(k).map(|a| &a.value);
    let mut out = Vec::new();
    if let Some(Value::String(code)) = text("implementation_example") {
        let lang = set.implementation_language.as_deref().unwrap_or("");
        let mut body = code_block(lang, code.trim_end());
        if let Some(t) = text("execution_time").and_then(Value::as_f64) {
            body.push_str(&format!(
                "\n\nThe example ran in {t} s when the spec was built."
            ));
        }
        out.push(("Implementation example".to_owned(), body));
    }
    if let Some(f) = text("output_format") {
        let body = match f {
            Value::String(s) => markdown(s),
            other => code_block("json", &pretty(other)),
        };
        out.push(("Output format".to_owned(), body));
    }
    if let Some(r) = text("example_response") {
        let body = match r {
            Value::String(s) => code_block("", s.trim_end()),
            other => code_block("json", &pretty(other)),
        };
        out.push(("Example response".to_owned(), body));
    }
    out
}

/// The outputs section; for an output that is not an object, how MCP
/// clients receive it.
fn outputs(tool: &Tool) -> String {
    let mut text = tree::section(
        &Model::new(&tool.output),
        "The tool declares no output schema.",
    );
    if !tool.output.value.is_null() && super::catalog::wraps_output(&tool.output.value) {
        text.push_str("\nMCP clients receive it as structured content `{\"result\": ...}` (MCP wants an object there) and as text.\n");
    }
    if !tool.content.is_empty() {
        text.push_str("\nIt also returns content blocks:\n\n");
        for c in &tool.content {
            text.push_str(&format!("- {}\n", content_line(&c.value)));
        }
    }
    text
}

/// One declared kind of content block, as a list item: "an image
/// (`image/png`): the Game view".
fn content_line(c: &crate::ir::ContentDecl) -> String {
    let noun = match c.kind.as_str() {
        "text" => "text",
        "image" => "an image",
        "audio" => "a sound",
        "resource" => "an embedded resource",
        _ => "a link to a resource",
    };
    let mut line = noun.to_owned();
    if let Some(m) = &c.mime_type {
        line.push_str(&format!(" (`{m}`)"));
    }
    if let Some(d) = &c.description {
        line.push_str(": ");
        line.push_str(&markdown_inline(d));
    }
    line
}

fn tool_page(set: &ToolSet, tool: &Tool) -> ToolPage {
    let (badge, warning) = safety(set, tool);
    ToolPage {
        name: md_cell(&tool.name.value),
        facts: facts_line(set, tool, badge.as_ref()),
        warning,
        description: markdown(&tool.description.value),
        requires_approval: tool.requires_approval,
        inputs: tree::section(&Model::new(&tool.input), "This tool takes no inputs."),
        outputs: outputs(tool),
        examples: tool
            .examples
            .iter()
            .enumerate()
            .map(|(i, e)| ExampleBlock {
                title: e
                    .description
                    .as_deref()
                    .map_or_else(|| format!("Example {}", i + 1), markdown_inline),
                input: code_block("json", &pretty(&e.input.ordered())),
                output: e
                    .output
                    .as_ref()
                    .map(|o| code_block("json", &pretty(&o.ordered()))),
            })
            .collect(),
        notes: tool.notes.as_ref().map(|n| markdown(&n.value)),
        deprecated: tool.deprecated.as_ref().map(|d| {
            let mut line = "**Deprecated:**".to_owned();
            if let Some(s) = &d.value.sunset {
                line.push_str(&format!(" it may be removed after {}.", markdown_inline(s)));
            } else {
                line.push_str(" it may be removed in a later version.");
            }
            if let Some(m) = &d.value.message {
                line.push(' ');
                line.push_str(&markdown_inline(m));
            }
            line
        }),
        details: details(set, tool),
        calls: calls(set, tool),
    }
}

fn counts<'a>(tools: impl Iterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut m: BTreeMap<String, usize> = BTreeMap::new();
    for t in tools {
        *m.entry(t.to_owned()).or_default() += 1;
    }
    m.into_iter().collect()
}

/// A tool's safety as the index pages count it: its level when the spec
/// states one, else "not stated".
fn safety_word(tool: &Tool) -> &str {
    if tool.implied.safety && tool.hints.is_empty() {
        "not stated"
    } else {
        tool.safety.value.as_str()
    }
}

/// A tool set's page and its entry on the landing page and the summary.
/// Structs, not `serde_json::Value`s: built into values, a thousand tools'
/// entries were copied whole twice more (once per context holding them)
/// before the template engine converted them again.
#[derive(Serialize)]
struct SetContext<'a> {
    name: &'a str,
    title: String,
    description: String,
    summary: String,
    format: &'a str,
    count: usize,
    count_text: String,
    categories: Vec<CategoryContext>,
    by_tier: Vec<(String, usize)>,
    by_safety: Vec<(String, usize)>,
}

#[derive(Serialize)]
struct CategoryContext {
    id: String,
    description: String,
    tools: Vec<ToolLine>,
}

/// A tool's line on its set's page and in the summary.
#[derive(Serialize)]
struct ToolLine {
    page: String,
    id_code: String,
    title: String,
    badge: String,
    tier: String,
}

/// The landing page's and the summary's context: every set's.
#[derive(Serialize)]
struct SiteContext<'a> {
    sets: &'a [SetContext<'a>],
    count: usize,
    count_text: String,
    by_tier: Vec<(String, usize)>,
    by_safety: Vec<(String, usize)>,
}

/// The set page's context.
#[derive(Serialize)]
struct SetPage<'a> {
    set: &'a SetContext<'a>,
}

fn set_context(set: &ToolSet) -> SetContext<'_> {
    let mut by_category: BTreeMap<&str, Vec<ToolLine>> = BTreeMap::new();
    for tool in &set.tools {
        let (badge, _) = safety(set, tool);
        by_category
            .entry(tool.category.value.as_str())
            .or_default()
            .push(ToolLine {
                page: page_name(tool),
                id_code: code(&tool.id.value),
                title: md_cell(&tool.name.value).replace(['[', ']'], ""),
                badge: badge.unwrap_or_else(|| "not stated".to_owned()),
                tier: md_cell(&tool.tier.value),
            });
    }
    let categories = by_category
        .into_iter()
        .map(|(c, tools)| {
            let description = set
                .categories
                .iter()
                .find(|k| k.id == c)
                .and_then(|k| k.description.as_deref())
                .map(markdown_inline)
                .unwrap_or_default();
            CategoryContext {
                id: md_cell(c),
                description,
                tools,
            }
        })
        .collect();
    SetContext {
        name: &set.name,
        title: md_cell(set.title.as_deref().unwrap_or(&set.name)),
        description: set.description.as_deref().map(markdown).unwrap_or_default(),
        summary: set
            .description
            .as_deref()
            .map(markdown_inline)
            .unwrap_or_default(),
        format: set.format.as_str(),
        count: set.tools.len(),
        count_text: count(set.tools.len(), "tool", "tools"),
        categories,
        by_tier: counts(set.tools.iter().map(|t| t.tier.value.as_str())),
        by_safety: counts(set.tools.iter().map(safety_word)),
    }
}

impl super::context::TemplateEmitter for Docs {
    fn emit_rendered(
        &self,
        cx: &super::context::EmitContext<'_>,
        templates: &crate::templates::RunTemplates,
        project: &Project,
        out: &mut super::context::Output<'_>,
    ) {
        let shared = templates.shared();
        let mut sets = Vec::new();
        for set in &project.tool_sets {
            for (i, tool) in set.tools.iter().enumerate() {
                // A page is made from its tool and the set's settings.
                out.render_memo(
                    cx,
                    (Some((set, i)), |h: &mut crate::digest::Hasher| {
                        h.str("docs tool page");
                    }),
                    templates.for_set(set),
                    "docs/tool.md.jinja",
                    format!("docs/src/{}/{}", set.name, page_name(tool)),
                    || json!({"tool": tool_page(set, tool)}),
                );
            }
            let set_ctx = set_context(set);
            let page = SetPage { set: &set_ctx };
            // Made from part of each tool only: often the same when a tool
            // changed, so kept by the digest of its context.
            let by = context_digest(&page);
            out.render_memo(
                cx,
                (None, |h: &mut crate::digest::Hasher| {
                    h.debug(&by);
                }),
                templates.for_set(set),
                "docs/set.md.jinja",
                format!("docs/src/{}/index.md", set.name),
                || &page,
            );
            sets.push(set_ctx);
        }
        let all = project.tools();
        let n = all.clone().count();
        let ctx = SiteContext {
            sets: &sets,
            count: n,
            count_text: format!(
                "{} in {}",
                count(n, "tool", "tools"),
                count(project.tool_sets.len(), "tool set", "tool sets")
            ),
            by_tier: counts(all.clone().map(|t| t.tier.value.as_str())),
            by_safety: counts(all.map(safety_word)),
        };
        let by = context_digest(&ctx);
        for (name, path) in [
            ("docs/index.md.jinja", "docs/src/index.md"),
            ("docs/SUMMARY.md.jinja", "docs/src/SUMMARY.md"),
            ("docs/book.toml.jinja", "docs/book.toml"),
            ("docs/toolgen.css.jinja", "docs/theme/toolgen.css"),
        ] {
            let key = |h: &mut crate::digest::Hasher| {
                h.debug(&by);
            };
            out.render_memo(cx, (None, key), shared, name, path.into(), || &ctx);
        }
    }
}

/// The digest of a context's JSON form, which keys the files rendered from
/// it; `None` when it does not serialize (nor, then, renders).
fn context_digest(context: &impl Serialize) -> Option<crate::digest::Digest> {
    serde_json::to_vec(context)
        .ok()
        .map(|json| crate::digest::Digest::of(&json))
}
