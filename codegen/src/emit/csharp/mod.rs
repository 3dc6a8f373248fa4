//! C# bridge stubs for the Unity Editor, as a UPM package under `csharp/`.
//!
//! Per tool a file `csharp/<set>/<Tool>.cs`: a static class named after the
//! tool holding its `Input`/`Output` DTOs (Newtonsoft `[JsonProperty]`,
//! nested classes, `List<T>`, `Dictionary<string, T>`, `JToken` for any-typed
//! values, nullable value types for optional numbers and booleans, string
//! enums with `[EnumMember]`), and an abstract `Handler` with one typed
//! `Execute` method, marked with `[Tool(...)]`. Per tool set a registry
//! (`<Set>Tools`: the parameter specs the dispatcher validates against and
//! `CreateDispatcher`), `package.json` and an Editor-only `.asmdef`. The
//! package depends on the bridge runtime, `com.toolgen.bridge` (attribute,
//! exceptions, dispatcher, loopback TCP bridge; [`super::csharp_bridge`]),
//! written beside it as `csharp-bridge/` unless it is installed already.
//!
//! The C# is the subset that both Unity 2022.3 (C# 9, Newtonsoft.Json 13) and
//! Mono's `mcs` (C# 7.2, Newtonsoft.Json 6) compile. Every spec string is
//! escaped here, before it reaches a template: string literals as `\uXXXX`
//! outside printable ASCII, doc comments as XML with every line terminator C#
//! knows (including U+0085, U+2028, U+2029) turned into a new `///` line.

mod types;
use self::types::{
    CsType, Mapper, RESERVED_TYPES, code_spans, doc_lines, double_literal, string_literal,
};

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::shape::{Kind, Model};
use crate::ident;
use crate::ir::{Project, Tool, ToolSet};
use crate::schema::strings;

/// The C# emitter: it renders the run's templates (built-ins and overrides).
#[derive(Debug, Default)]
pub struct CSharp;

#[derive(Serialize)]
struct CsToolFile {
    id_text: String,
    #[serde(flatten)]
    identity: CsIdentity,
    class: String,
    handler: &'static str,
    input_type: String,
    output_type: String,
    doc: Vec<String>,
    types: Vec<CsType>,
}

#[derive(Serialize)]
struct CsParam {
    wire: String,
    #[serde(rename = "type")]
    ty: String,
    required: bool,
    nullable: bool,
    #[serde(rename = "enum")]
    enumeration: String,
    minimum: String,
    maximum: String,
}

const REGISTRY: &str = "csharp/registry.cs.jinja";
/// One tool's entry of the registry, which the registry includes per tool.
const REGISTRY_ENTRY: &str = "csharp/registry_entry.cs.jinja";

/// What the stand-in tool says in each of its fields: nothing a spec's
/// escaped literal can be.
const STAND_IN: &str = "@@toolgen registry entry@@";

/// A tool set's registry. With memory of earlier runs and the built-in
/// templates, each tool's entry is rendered on its own (the entry template,
/// which the registry includes per tool) and kept by the tool's key, and the
/// registry is rendered around one stand-in tool, whose entry the tools'
/// entries then replace: an edit of one tool renders one entry, and no other
/// tool's schema is read. An overridden template is rendered whole (it might
/// not lay the entries out one after another), and so is a registry whose
/// text does not hold the stand-in's entry exactly once.
fn registry_text(
    cx: &super::context::EmitContext<'_>,
    templates: &crate::templates::Templates,
    set: &ToolSet,
    mut ctx: RegistryContext<'_>,
) -> Result<String, crate::templates::TemplateError> {
    let builtin = !templates
        .overridden()
        .iter()
        .any(|(n, _)| n == REGISTRY || n == REGISTRY_ENTRY);
    if cx.memory.is_some() && builtin {
        let stand_in = CsSpec::stand_in();
        let mark = templates.render(REGISTRY_ENTRY, EntryContext { t: &stand_in })?;
        ctx.set.tools = vec![stand_in];
        let framed = templates.render(REGISTRY, &ctx)?;
        if let Some((head, tail)) = framed
            .split_once(&mark)
            .filter(|(_, tail)| !mark.is_empty() && !tail.contains(&mark))
        {
            let mut text = head.to_owned();
            for (i, tool) in set.tools.iter().enumerate() {
                // The entry follows from the tool and the set's settings (its
                // time limit): what the key covers, with the templates.
                let key = |h: &mut crate::digest::Hasher| {
                    h.str("csharp registry entry").digest(templates.digest());
                };
                text.push_str(&cx.memo(Some((set, i)), key, || {
                    let spec = spec(tool, set.timeout_of(tool));
                    templates.render(REGISTRY_ENTRY, EntryContext { t: &spec })
                })?);
            }
            text.push_str(tail);
            return Ok(text);
        }
    }
    ctx.set.tools = set
        .tools
        .iter()
        .map(|tool| spec(tool, set.timeout_of(tool)))
        .collect();
    templates.render(REGISTRY, &ctx)
}

/// The entry template's context, rendered alone: the tool, as the
/// registry's loop names it.
#[derive(Serialize)]
struct EntryContext<'a> {
    t: &'a CsSpec,
}

/// The registry template's context. A struct, not a `serde_json::Value`:
/// a thousand tools' specs were built into a `Value` only for the template
/// engine to convert them again (a quarter of the registry's time).
#[derive(Serialize)]
struct RegistryContext<'a> {
    namespace: &'a str,
    set: RegistrySet<'a>,
}

#[derive(Serialize)]
struct RegistrySet<'a> {
    name_text: &'a str,
    class: &'a str,
    doc: Vec<String>,
    tools: Vec<CsSpec>,
    catalog_hash: String,
    bridge_port: u16,
}

#[derive(Serialize)]
struct CsSpec {
    #[serde(flatten)]
    identity: CsIdentity,
    additional: bool,
    params: Vec<CsParam>,
}

/// What the `[Tool]` attribute and the registry's `ToolSpec` say of a tool,
/// as C# literals.
#[derive(Serialize)]
struct CsIdentity {
    id: String,
    name: String,
    category: String,
    tier: String,
    safety: String,
    /// `None` when no time limit is stated.
    timeout: Option<String>,
}

impl CsSpec {
    /// A tool that says [`STAND_IN`] wherever it says anything.
    fn stand_in() -> CsSpec {
        let mark = || STAND_IN.to_owned();
        CsSpec {
            identity: CsIdentity {
                id: mark(),
                name: mark(),
                category: mark(),
                tier: mark(),
                safety: mark(),
                timeout: Some(mark()),
            },
            additional: false,
            params: Vec::new(),
        }
    }
}

impl CsIdentity {
    fn of(tool: &Tool, timeout: Option<f64>) -> CsIdentity {
        CsIdentity {
            id: string_literal(&tool.id.value),
            name: string_literal(&tool.name.value),
            category: string_literal(&tool.category.value),
            tier: string_literal(&tool.tier.value),
            safety: string_literal(tool.safety.value.as_str()),
            timeout: timeout.map(double_literal),
        }
    }
}

/// The type of a root schema (`Input`/`Output`): named after `root`.
fn root_type<'a>(mapper: &mut Mapper<'a>, model: &'a Model, schema: &Value, root: &str) -> String {
    mapper.model = Some(model);
    mapper.def_types.clear();
    mapper.at = root.to_ascii_lowercase();
    let Some(node) = &model.root else {
        return "JToken".to_owned();
    };
    let is_class = matches!(node.kind, Kind::Object(_));
    if is_class || schema.get("type").and_then(Value::as_str) == Some("object") {
        mapper.taken.insert(root.to_owned());
        mapper.root = Some(root.to_owned());
        if !is_class {
            // An object without properties still gets its class, so the handler signature reads well.
            mapper.class(&[], node.description.as_deref(), root);
            return root.to_owned();
        }
        let m = mapper.map(node, root, Some(root.to_owned()));
        mapper.root = None;
        return m.text;
    }
    let m = mapper.map(node, root, None);
    if m.value_type {
        format!("{}?", m.text)
    } else {
        m.text
    }
}

/// The public C# names of a tool set's tools, by wire position: per tool id,
/// (what, position) -> name, where a position is `input` or `output` and a
/// JSON pointer into that schema (`input/properties/mode/enum/fast`), and the
/// tool's class is at `""`. Only what the emitter names from the spec is
/// listed; `toolgen breaking` compares two versions' lists.
pub fn public_names(set: &ToolSet) -> BTreeMap<String, BTreeMap<(String, String), String>> {
    let (classes, _) = class_names(set);
    let mut out = BTreeMap::new();
    for (tool, class) in set.tools.iter().zip(&classes) {
        let mut names: BTreeMap<(String, String), String> = map_tool(tool, class)
            .names
            .into_iter()
            .map(|((what, at), name)| ((what.to_owned(), at), name))
            .collect();
        names.insert(("class".to_owned(), String::new()), class.clone());
        out.insert(tool.id.value.clone(), names);
    }
    out
}

/// A tool's input and output mapped to C#.
struct MappedTool {
    input_type: String,
    output_type: String,
    /// Every type made, parents before what they hold.
    types: Vec<CsType>,
    names: BTreeMap<(&'static str, String), String>,
}

fn map_tool(tool: &Tool, class: &str) -> MappedTool {
    // Each root maps with its own `$defs`.
    let mut mapper = Mapper::new(class);
    // Both root names are taken before either side is mapped: an input property
    // named `Output` must not take the name of the output's class.
    for root in ["Input", "Output"] {
        mapper.taken.insert(root.to_owned());
    }
    let (input, output) = (Model::new(&tool.input), Model::new(&tool.output));
    let input_type = root_type(&mut mapper, &input, &tool.input.value, "Input");
    let output_type = root_type(&mut mapper, &output, &tool.output.value, "Output");
    MappedTool {
        input_type,
        output_type,
        types: mapper.types,
        names: mapper.names,
    }
}

fn tool_file(tool: &Tool, class: &str, timeout: Option<f64>) -> CsToolFile {
    let MappedTool {
        input_type,
        output_type,
        types,
        ..
    } = map_tool(tool, class);
    let mut doc = vec![code_spans(&format!(
        "`{}` ({}, {}, {}): {}.",
        doc_lines(&tool.id.value).join(" "),
        tool.category.value,
        tool.safety.value.as_str(),
        tool.tier.value,
        doc_lines(&tool.name.value).join(" ")
    ))];
    doc.extend(doc_lines(&tool.description.value));
    if let Some(n) = &tool.notes {
        doc.push(String::new());
        doc.extend(doc_lines(&format!("Notes: {}", n.value)));
    }
    if !tool.content.is_empty() {
        let kinds: Vec<String> = tool.content.iter().map(|c| c.value.label("")).collect();
        doc.push(String::new());
        let line = format!(
            "Returns content blocks (ToolContext.AddImage and the like): {}.",
            kinds.join(", ")
        );
        doc.extend(doc_lines(&line));
    }
    CsToolFile {
        id_text: doc_lines(&tool.id.value).join(" ").replace('`', "'"),
        identity: CsIdentity::of(tool, timeout),
        class: class.to_owned(),
        handler: "Handler",
        input_type,
        output_type,
        doc,
        types,
    }
}

/// What the dispatcher checks of one tool's top-level parameters.
fn spec(tool: &Tool, timeout: Option<f64>) -> CsSpec {
    let input = &tool.input.value;
    let required = strings(input.get("required"));
    let mut params = Vec::new();
    let props = input.get("properties").and_then(Value::as_object);
    let rank = |p: &str| crate::schema::Ranks::rank(&tool.input, p);
    let ordered = props.map(|p| crate::schema::property_order(p, "/properties", &rank));
    for wire in ordered.into_iter().flatten() {
        let schema = &input["properties"][wire.as_str()];
        let s = crate::schema::follow(input, schema);
        let (ty, nullable) = match s.get("type") {
            Some(Value::String(t)) => (Some(t.clone()), t == "null"),
            Some(Value::Array(ts)) => {
                let non_null: Vec<&str> = ts
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                let ty = (non_null.len() == 1).then(|| non_null[0].to_owned());
                (ty, ts.iter().any(|t| t == "null"))
            }
            _ => (None, true),
        };
        let ty = ty.filter(|t| {
            ["string", "integer", "number", "boolean", "array", "object"].contains(&t.as_str())
        });
        let enumeration = match s.get("enum") {
            Some(Value::Array(values)) => format!(
                "new string[] {{ {} }}",
                values
                    .iter()
                    .map(|v| string_literal(&v.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "null".to_owned(),
        };
        let bound = |k: &str| {
            s.get(k)
                .and_then(Value::as_f64)
                .map_or("null".to_owned(), double_literal)
        };
        params.push(CsParam {
            wire: string_literal(wire),
            ty: ty.map_or("null".to_owned(), |t| string_literal(&t)),
            required: required.contains(&wire.as_str()),
            nullable,
            enumeration,
            minimum: bound("minimum"),
            maximum: bound("maximum"),
        });
    }
    CsSpec {
        identity: CsIdentity::of(tool, timeout),
        additional: input.get("additionalProperties") != Some(&Value::Bool(false)),
        params,
    }
}

/// Class names for a tool set's tools and its registry, collision-free.
fn class_names(set: &ToolSet) -> (Vec<String>, String) {
    let ids: Vec<&str> = set.tools.iter().map(|t| t.id.value.as_str()).collect();
    let registry = format!("{}Tools", ident::pascal(&set.name));
    let names = ident::unique(&ids, |id| {
        let p = ident::pascal(id);
        if p == registry || RESERVED_TYPES.contains(&p.as_str()) {
            format!("{p}Tool")
        } else {
            p
        }
    });
    (names, registry)
}

impl super::context::TemplateEmitter for CSharp {
    fn emit_rendered(
        &self,
        cx: &super::context::EmitContext<'_>,
        templates: &crate::templates::RunTemplates,
        project: &Project,
        out: &mut super::context::Output<'_>,
    ) {
        if cx.options.csharp_bridge == super::csharp_bridge::CsharpBridge::Bundled {
            super::csharp_bridge::add_bundled(out.files);
        }
        let shared = templates.shared();
        let package = serde_json::json!({"package": {
            "name": "com.toolgen.generated",
            "display_name": "Toolgen generated MCP tool bridge",
            "version": env!("CARGO_PKG_VERSION"),
            "assembly": "Toolgen.Generated.Editor",
            "bridge": {
                "name": super::csharp_bridge::PACKAGE,
                "version": env!("CARGO_PKG_VERSION"),
                "assembly": super::csharp_bridge::ASSEMBLY,
            },
        }});
        out.render(
            shared,
            "csharp/package.json.jinja",
            "csharp/package.json".into(),
            &package,
        );
        out.render(
            shared,
            "csharp/asmdef.jinja",
            "csharp/Toolgen.Generated.Editor.asmdef".into(),
            &package,
        );
        for set in &project.tool_sets {
            let t = templates.for_set(set);
            let (classes, registry) = class_names(set);
            for (i, (tool, class)) in set.tools.iter().zip(&classes).enumerate() {
                let timeout = set.timeout_of(tool);
                // The file is made from the tool, its class name and the set's settings.
                let key = |h: &mut crate::digest::Hasher| {
                    h.str("csharp tool file").str(class);
                };
                out.render_memo(
                    cx,
                    (Some((set, i)), key),
                    t,
                    "csharp/tool.cs.jinja",
                    format!("csharp/{}/{class}.cs", set.name),
                    || serde_json::json!({"namespace": set.namespace, "tool": tool_file(tool, class, timeout)}),
                );
            }
            let mut doc = vec![format!(
                "The tool set `{}`{}: its tool specs and a dispatcher factory.",
                set.name,
                set.title
                    .as_deref()
                    .map(|t| format!(" ({})", doc_lines(t).join(" ")))
                    .unwrap_or_default()
            )];
            if let Some(d) = &set.description {
                doc.extend(doc_lines(d));
            }
            let ctx = RegistryContext {
                namespace: &set.namespace,
                set: RegistrySet {
                    name_text: &set.name,
                    class: &registry,
                    doc,
                    tools: Vec::new(),
                    catalog_hash: cx.catalog_hash(set),
                    bridge_port: set.bridge_port.unwrap_or(0),
                },
            };
            let path = format!("csharp/{}/{registry}.cs", set.name);
            match registry_text(cx, t, set, ctx) {
                Ok(text) => out.files.add(path, text),
                Err(e) => out.diags.push(e.diagnostic()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_docs_cannot_break_out() {
        assert_eq!(string_literal("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(string_literal("é\n\u{2028}"), "\"\\u00E9\\u000A\\u2028\"");
        assert_eq!(string_literal("😀"), "\"\\uD83D\\uDE00\"");
        assert_eq!(
            doc_lines("a </summary> & b\u{2028}public class X {}\u{85}c\rd"),
            vec!["a &lt;/summary&gt; &amp; b", "public class X {}", "c", "d"]
        );
        assert_eq!(doc_lines(""), vec![""]);
        assert_eq!(double_literal(30.0), "30.0");
        assert_eq!(double_literal(1e300), "1e300");
    }
}
