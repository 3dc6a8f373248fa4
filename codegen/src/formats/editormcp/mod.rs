//! Reader for EditorMCP tool definitions (`editormcp-tool-definition-schema.md`).
//!
//! One JSON object per file: `id`, `name`, `description`, `category`,
//! `safetyLevel`, `tier`, `inputs`, `outputs`, and optionally `notes`,
//! `examples`. toolgen's documented extensions: `definitions` (named property
//! schemas referenced with `$ref: "#/definitions/NAME"`, for recursive and shared
//! shapes), `timeoutSeconds` (the per-tool time guard), type `any`, `nullable`,
//! and `x-*` keys kept as annotations. See docs/formats/editormcp.md.
//!
//! The reader checks the structure of the document and the format's own style
//! rules, and translates `inputs`/`outputs` into JSON Schema. Checks that apply
//! to every format (defaults, enums, ranges, examples) run later on the IR.

mod style;
pub(crate) mod translate;
use self::style::{check_category_format, check_description, check_id, check_name};

use self::translate::{Position, Side, Translator};

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::fields::{Cx, is_identifier};
use crate::diag::rule;
use crate::ir::{Category, Format, Implied, SafetyLevel, Schema, Spanned, Tier, Tool, ToolSet};
use crate::syntax::{Member, Node, NodeKind, pointer_join};

use crate::schema::DIALECT as SCHEMA_DIALECT;

pub(crate) const TOP_KEYS: &[&str] = &[
    "$schema",
    "id",
    "name",
    "description",
    "category",
    "safetyLevel",
    "tier",
    "inputs",
    "outputs",
    "notes",
    "examples",
    "definitions",
    "timeoutSeconds",
    "deprecated",
    "execution",
    "content",
];

/// Rules EditorMCP's own schema makes errors: "`required: true` parameters
/// must not have `default` values", and its validation rule 3, "Type
/// Consistency" (a default is of its parameter's type and schema).
pub(crate) const FORMAT_ERRORS: &[&crate::diag::Rule] = &[
    &crate::diag::rule::REQUIRED_WITH_DEFAULT,
    &crate::diag::rule::DEFAULT_TYPE,
    &crate::diag::rule::DEFAULT_NOT_IN_ENUM,
    &crate::diag::rule::DEFAULT_INVALID,
];

/// The standard categories of the schema page, used for loose files.
pub const STANDARD_CATEGORIES: &[(&str, &str)] = &[
    ("mcp.platform", "Core MCP protocol tools"),
    ("project", "Project-wide inspection"),
    ("scene", "Scene and hierarchy operations"),
    ("asset", "Asset inspection and analysis"),
    ("audio", "Audio-specific tools"),
    ("editor", "Editor state and selection"),
];

/// Tier ids in order, with the product's display names (docs/decisions.md, point 5).
pub const STANDARD_TIERS: &[(&str, &str)] = &[
    ("core", "Core"),
    ("tier1", "Indie"),
    ("tier2", "Pro"),
    ("tier3", "Studio"),
    ("tier4", "Enterprise"),
];

/// The default time limit of a tool call, in seconds (core tools list).
pub const DEFAULT_TIMEOUT_SECONDS: f64 = 30.0;

/// The tool set that loose EditorMCP files (no toolset.yaml) belong to.
pub fn default_tool_set() -> ToolSet {
    ToolSet {
        name: "editormcp".to_owned(),
        title: Some("EditorMCP".to_owned()),
        description: None,
        version: None,
        format: Format::EditorMcp,
        namespace: "EditorMcp".to_owned(),
        categories: STANDARD_CATEGORIES
            .iter()
            .map(|(id, d)| Category {
                id: (*id).to_owned(),
                description: Some((*d).to_owned()),
            })
            .collect(),
        tiers: STANDARD_TIERS
            .iter()
            .map(|(id, t)| Tier {
                id: (*id).to_owned(),
                title: Some((*t).to_owned()),
            })
            .collect(),
        safety_levels: SafetyLevel::ALL.to_vec(),
        max_tier: None,
        templates: None,
        default_timeout_seconds: Some(DEFAULT_TIMEOUT_SECONDS),
        envelope: true,
        model_description: crate::ir::ModelDescription::Spec,
        execution: crate::ir::Execution::Concurrent,
        rust_serde: None,
        manifest: None,
        outputs: None,
        runtime: None,
        arrays_need_items: true,
        format_errors: FORMAT_ERRORS,
        implementation_language: None,
        lints: Vec::new(),
        breaking: crate::ir::BreakingPolicy::default(),
        r: crate::ir::RBinding::default(),
        clients: Vec::new(),
        split_unions: false,
        bridge_port: None,
        tools: Vec::new(),
    }
}

/// Whether a parsed document looks like an EditorMCP tool definition.
pub fn detect(root: &Node) -> bool {
    ["inputs", "outputs", "safetyLevel"]
        .iter()
        .any(|k| root.member(k).is_some())
}

/// Reads one EditorMCP tool definition. Returns `None` when the document is too
/// broken to describe a tool (every problem has been reported to `cx`).
pub fn read(cx: &mut Cx<'_>, root: &Node) -> Option<Tool> {
    let obj = cx.object(root, "a tool definition")?;
    cx.check_keys(obj, TOP_KEYS, true, "a tool definition");
    fn holds(k: &str) -> &'static str {
        match k {
            "id" => "the tool id, e.g. \"scene.hierarchy.dump\"",
            "name" => "a display name, e.g. \"Dump Scene Hierarchy\"",
            "description" => "one to three sentences on what the tool does",
            "category" => "a category of the tool set, e.g. \"scene\"",
            "safetyLevel" => "\"read-only\", \"safe-write\" or \"destructive\"",
            "tier" => "a tier of the tool set, e.g. \"core\"",
            "inputs" => "{} or an object of parameters",
            _ => "{} or an object of output fields",
        }
    }
    let req_str = |cx: &mut Cx<'_>, key: &str| {
        let n = cx.require(root, obj, key, "the tool definition", holds(key))?;
        cx.string(n, &format!("`{key}`"), true)
    };
    let id = req_str(cx, "id");
    let name = req_str(cx, "name");
    let description = req_str(cx, "description");
    let category = req_str(cx, "category");
    let safety_raw = req_str(cx, "safetyLevel");
    let tier = req_str(cx, "tier");

    if let Some(id) = &id {
        check_id(cx, id);
    }
    if let Some(name) = &name {
        check_name(cx, name);
    }
    if let Some(d) = &description {
        check_description(cx, d);
    }
    if let Some(c) = &category {
        check_category_format(cx, c);
    }
    // An unknown level is reported and read as `read-only` so that the other rules
    // still run; the run has an error, so nothing is generated from it.
    let safety = safety_raw.map(|s| {
        let level = super::fields::safety_level(cx, &s).unwrap_or(SafetyLevel::ReadOnly);
        Spanned::new(level, s.loc)
    });

    let notes = obj
        .iter()
        .find(|m| m.key == "notes")
        .and_then(|m| cx.string(&m.value, "`notes`", false));

    let timeout_seconds = obj
        .iter()
        .find(|m| m.key == "timeoutSeconds")
        .and_then(|m| {
            let v = cx.number(&m.value, "`timeoutSeconds`")?;
            super::fields::check_timeout(cx, v, cx.loc(m.value.span))
                .then(|| Spanned::new(v, cx.loc(m.value.span)))
        });

    let deprecated = obj
        .iter()
        .find(|m| m.key == "deprecated")
        .and_then(|m| super::fields::read_deprecated(cx, &m.value, "`deprecated`", json_bool));

    // Definitions shared by inputs and outputs.
    let definitions = read_definitions(cx, obj);

    let input = read_side(cx, root, obj, "inputs", Side::Input, &definitions);
    let output = read_side(cx, root, obj, "outputs", Side::Output, &definitions);

    // Definitions that neither side uses are still checked.
    check_unused_definitions(cx, &definitions, &input, &output);

    let examples = super::fields::read_examples(cx, obj);
    missing_examples(cx, root);
    let annotations: BTreeMap<String, Spanned<Value>> = obj
        .iter()
        .filter(|m| m.key.starts_with("x-"))
        .map(|m| {
            (
                m.key.clone(),
                Spanned::new(m.value.to_json(), cx.loc(m.value.span)),
            )
        })
        .collect();

    let requires_approval = safety
        .as_ref()
        .is_some_and(|s| s.value == SafetyLevel::Destructive);
    let hints = match (&safety, &name) {
        (Some(s), Some(n)) => mcp_hints(s, n),
        _ => BTreeMap::new(),
    };
    Some(Tool {
        id: id?,
        name: name?,
        description: description?,
        category: category?,
        safety: safety?,
        tier: tier?,
        input: input?,
        output: output?,
        notes,
        examples: examples?,
        timeout_seconds,
        // The schema page: destructive tools require confirmation.
        requires_approval,
        annotations,
        hints,
        passthrough: super::fields::read_execution(cx, obj).into_iter().collect(),
        // Every field is required by the format.
        implied: Implied::default(),
        model_description: None,
        r_function: None,
        deprecated,
        content: super::fields::top_content(cx, obj),
        loc: cx.loc(root.span),
    })
}

/// A JSON boolean.
fn json_bool(n: &Node) -> Option<bool> {
    match n.kind {
        NodeKind::Bool(b) => Some(b),
        _ => None,
    }
}

/// `definitions`: named property schemas the inputs and outputs share
/// (names must be identifiers: they become type names).
fn read_definitions<'n>(cx: &mut Cx<'_>, obj: &'n [Member]) -> BTreeMap<String, &'n Node> {
    let mut definitions = BTreeMap::new();
    let Some(m) = obj.iter().find(|m| m.key == "definitions") else {
        return definitions;
    };
    for d in cx.object(&m.value, "`definitions`").into_iter().flatten() {
        if !is_identifier(&d.key) {
            cx.report(
                cx.at(
                    &rule::PROPERTY_NAME,
                    d.key_span,
                    format!("definition name `{}` is not a valid identifier", d.key),
                )
                .label("becomes a type name")
                .help("use letters, digits and `_`, starting with a letter, e.g. `GameObjectNode`"),
            );
        }
        definitions.insert(d.key.clone(), &d.value);
    }
    definitions
}

/// The MCP annotations an EditorMCP tool states in its own words: its safety
/// level as `readOnlyHint` and `destructiveHint`, its display name as `title`.
fn mcp_hints(
    safety: &Spanned<SafetyLevel>,
    name: &Spanned<String>,
) -> BTreeMap<String, Spanned<Value>> {
    let (read_only, destructive) = safety.value.mcp_hints();
    BTreeMap::from([
        (
            "destructiveHint".to_owned(),
            Spanned::new(Value::Bool(destructive), safety.loc),
        ),
        (
            "readOnlyHint".to_owned(),
            Spanned::new(Value::Bool(read_only), safety.loc),
        ),
        (
            "title".to_owned(),
            Spanned::new(Value::String(name.value.clone()), name.loc),
        ),
    ])
}

fn read_side(
    cx: &mut Cx<'_>,
    root: &Node,
    obj: &[Member],
    key: &str,
    side: Side,
    definitions: &BTreeMap<String, &Node>,
) -> Option<Schema> {
    let node = cx.require(
        root,
        obj,
        key,
        "the tool definition",
        if side == Side::Input {
            "{} or an object of parameters"
        } else {
            "an object of output fields"
        },
    )?;
    let what = format!("`{key}`");
    let members = cx.object(node, &what)?;
    let mut t = Translator {
        cx,
        side,
        definitions: definitions.clone(),
        locs: BTreeMap::new(),
        refs: BTreeSet::new(),
    };
    t.locs.insert(String::new(), t.cx.loc(node.span));
    t.locs.insert("/properties".to_owned(), t.cx.loc(node.span));
    let (properties, required) = t.properties(members, "/properties", Position::TopLevel, key);
    let mut schema = Map::new();
    schema.insert("$schema".into(), json!(SCHEMA_DIALECT));
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    if side == Side::Input {
        schema.insert("additionalProperties".into(), json!(false));
    }
    // Translate the definitions this side uses (and those they use, transitively).
    let mut defs = Map::new();
    let mut pending: Vec<String> = t.refs.iter().cloned().collect();
    let mut done = BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        let Some(def) = t.definitions.get(&name).copied() else {
            continue;
        };
        let before: BTreeSet<String> = t.refs.clone();
        let ptr = pointer_join("/$defs", &name);
        if let Some((v, _)) = t.schema(def, &ptr, Position::Schema) {
            defs.insert(name, v);
        }
        pending.extend(t.refs.difference(&before).cloned());
    }
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    // Translation is best-effort: a broken part has been reported and left out,
    // so that the format-independent rules still run on the rest.
    Some(Schema {
        value: Value::Object(schema).into(),
        locs: t.locs.into(),
        written: BTreeMap::new(),
    })
}

fn check_unused_definitions(
    cx: &mut Cx<'_>,
    definitions: &BTreeMap<String, &Node>,
    input: &Option<Schema>,
    output: &Option<Schema>,
) {
    let used: BTreeSet<&String> = [input, output]
        .into_iter()
        .flatten()
        .flat_map(|s| {
            s.value
                .get("$defs")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|m| m.keys())
        })
        .collect();
    let mut t = Translator {
        cx,
        side: Side::Output,
        definitions: definitions.clone(),
        locs: BTreeMap::new(),
        refs: BTreeSet::new(),
    };
    for (name, node) in definitions {
        if !used.contains(name) {
            t.schema(node, &pointer_join("/$defs", name), Position::Schema);
        }
    }
}

/// Reports TG0403 for a tool without an `examples` field at all.
pub fn missing_examples(cx: &mut Cx<'_>, root: &Node) {
    if root.member("examples").is_none() && matches!(root.kind, NodeKind::Object(_)) {
        cx.report(
            cx.at(
                &rule::EXAMPLE_COUNT,
                root.opening(),
                "tool has no examples; the format asks for 1-3 representative ones",
            )
            .label("no `examples`")
            .help(
                "add `\"examples\": [{\"description\": ..., \"input\": {...}, \"output\": {...}}]`",
            ),
        );
    }
}
