//! Reader for standard MCP tool definitions, the shape ToolVault uses too:
//! `{name, title?, description, inputSchema, outputSchema?, annotations?}` with
//! full JSON Schema (`toolvault-protocol.md`, the MCP specification's `Tool`).
//!
//! The schemas are read as written; `$ref`s to other files are bundled by
//! [`crate::refs`] once every schema document is known (see `load`).
//!
//! MCP `annotations` map to the IR's safety level: `readOnlyHint: true` is
//! `read-only`; otherwise `destructiveHint: false` is `safe-write`, and
//! `destructiveHint: true` or no hint is `destructive` (MCP's defaults assume
//! a tool may be destructive). `idempotentHint` and `openWorldHint` are kept.
//! `_meta.toolgen` (as toolgen's own catalog writes it) sets category, tier,
//! time limit, notes and `requiresApproval`, so a generated catalog reads back.

use std::collections::BTreeMap;

use serde_json::Value;

use super::fields::Cx;
use crate::diag::rule;
use crate::ir::{Implied, LocatedValue, SafetyLevel, Schema, Spanned, Tool};
use crate::source::Span;
use crate::syntax::{Node, NodeKind};

pub(crate) const TOP_KEYS: &[&str] = &[
    "$schema",
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
    "icons",
    "execution",
];
/// Fields of MCP's `Tool` published as the spec wrote them.
const PUBLISHED: &[&str] = &["icons"];
const HINTS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// The category of a tool that names none.
pub const DEFAULT_CATEGORY: &str = "uncategorized";

/// A display name from a tool name: `calculate_bearing` -> "Calculate Bearing".
pub fn display_name(name: &str) -> String {
    crate::ident::title_case(name)
}

fn schema_of(cx: &Cx<'_>, node: &Node) -> Schema {
    let located = cx.located(node);
    Schema {
        value: located.value,
        locs: located.locs,
        written: BTreeMap::new(),
    }
}

/// Reads one MCP tool definition. Schemas are not bundled yet.
pub fn read(cx: &mut Cx<'_>, root: &Node) -> Option<Tool> {
    let obj = cx.object(root, "an MCP tool")?;
    let get = |k: &str| obj.iter().find(|m| m.key == k).map(|m| &m.value);

    let name = cx
        .require(
            root,
            obj,
            "name",
            "the MCP tool",
            "the tool's name, e.g. \"calculate_bearing\"",
        )
        .and_then(|n| cx.string(n, "`name`", true));
    // MCP's `Tool` may have no description; the model then chooses it by
    // its name alone, which is worth a warning.
    let description = match get("description") {
        Some(n) => cx.string(n, "`description`", false),
        None => {
            cx.report(
                cx.at(
                    &rule::MISSING_DESCRIPTION,
                    root.span,
                    "the tool has no `description`",
                )
                .label("no description")
                .help("add `\"description\": \"...\"`: models choose tools by what it says"),
            );
            Some(Spanned::new(
                String::new(),
                cx.loc(Span::at(root.span.start as usize)),
            ))
        }
    };
    let title = get("title").and_then(|n| cx.string(n, "`title`", true));
    let input = read_input(cx, root, obj);
    let output = read_output(cx, get("outputSchema"));
    let hints = read_annotations(cx, get("annotations"));
    let meta = read_meta(cx, get("_meta").and_then(|m| m.get("toolgen")));
    let passthrough = read_passthrough(cx, obj);

    let name = name?;
    let start = cx.loc(Span::at(root.span.start as usize));
    let implied = Implied {
        // The display name may come from `annotations.title`; only a `title`
        // the spec wrote is published as one.
        name: title.is_none(),
        description: get("description").is_none(),
        category: meta.category.is_none(),
        tier: meta.tier.is_none(),
        safety: hints.safety.is_none(),
    };
    let display = title
        .or(hints.title)
        .unwrap_or_else(|| Spanned::new(display_name(&name.value), name.loc));
    // MCP's defaults when no hint is given: a tool may be destructive.
    let safety = hints.safety.unwrap_or(SafetyLevel::Destructive);
    Some(Tool {
        name: display,
        description: description?,
        category: meta
            .category
            .unwrap_or_else(|| Spanned::new(DEFAULT_CATEGORY.to_owned(), start)),
        safety: Spanned::new(safety, hints.loc.unwrap_or(name.loc)),
        tier: meta
            .tier
            .unwrap_or_else(|| Spanned::new("core".to_owned(), start)),
        input: input?,
        output: output?,
        notes: meta.notes,
        examples: meta.examples,
        timeout_seconds: meta.timeout_seconds,
        requires_approval: meta.requires_approval,
        annotations: meta.annotations,
        hints: hints.all,
        passthrough,
        implied,
        model_description: None,
        r_function: None,
        deprecated: meta.deprecated,
        content: meta.content,
        loc: cx.loc(root.span),
        id: name,
    })
}

/// The fields published as written: `icons`, `execution`, the keys of
/// `_meta` other than toolgen's own, and fields toolgen does not know
/// (reported, TG0106).
fn read_passthrough(
    cx: &mut Cx<'_>,
    obj: &[crate::syntax::Member],
) -> BTreeMap<String, LocatedValue> {
    let kept = |cx: &Cx<'_>, n: &Node| cx.located(n);
    let mut out = BTreeMap::new();
    let unknown = cx.passthrough(obj, TOP_KEYS, "an MCP tool");
    for m in obj
        .iter()
        .filter(|m| PUBLISHED.contains(&m.key.as_str()))
        .chain(unknown)
    {
        out.insert(m.key.clone(), kept(cx, &m.value));
    }
    out.extend(super::fields::read_execution(cx, obj));
    if let Some(meta) = obj.iter().find(|m| m.key == "_meta") {
        if cx.object(&meta.value, "`_meta`").is_none() {
            return out;
        }
        // toolgen's own member is read apart (`read_meta`); where it was
        // written is kept, so that the catalog writes it back in its place.
        let mut located = cx.located(&meta.value);
        if let Value::Object(m) = &mut *located.value {
            m.remove("toolgen");
        }
        let locs = located.locs.to_map();
        located.locs = locs
            .into_iter()
            .filter(|(p, _)| !p.starts_with("/toolgen/"))
            .collect::<BTreeMap<_, _>>()
            .into();
        out.insert("_meta".to_owned(), located);
    }
    out
}

/// `inputSchema`: an object schema (`type` other than `object` is TG0105).
fn read_input(cx: &mut Cx<'_>, root: &Node, obj: &[crate::syntax::Member]) -> Option<Schema> {
    let n = cx.require(
        root,
        obj,
        "inputSchema",
        "the MCP tool",
        "a JSON Schema object: {\"type\": \"object\", \"properties\": {...}}",
    )?;
    match &n.kind {
        NodeKind::Object(_) => {
            if let Some(t) = n.get("type").filter(|t| t.as_str() != Some("object")) {
                cx.report(
                    cx.at(
                        &rule::INVALID_VALUE,
                        t.span,
                        "an MCP tool's `inputSchema` must have `\"type\": \"object\"`",
                    )
                    .label("arguments are always an object")
                    .help("wrap the value in an object property"),
                );
            }
            Some(schema_of(cx, n))
        }
        _ => {
            cx.wrong_type(n, "`inputSchema`", "a JSON Schema object");
            None
        }
    }
}

/// `outputSchema`: any schema; absent (or `null`) stays absent.
fn read_output(cx: &mut Cx<'_>, n: Option<&Node>) -> Option<Schema> {
    match n {
        None
        | Some(Node {
            kind: NodeKind::Null,
            ..
        }) => Some(Schema::default()),
        Some(n) if matches!(n.kind, NodeKind::Object(_) | NodeKind::Bool(_)) => {
            Some(schema_of(cx, n))
        }
        Some(n) => {
            cx.wrong_type(n, "`outputSchema`", "a JSON Schema object");
            None
        }
    }
}

/// What `annotations` say: every member as written, the safety level they
/// imply (`None` when neither `readOnlyHint` nor `destructiveHint` is
/// given) and where, and a display title.
struct Hints {
    all: BTreeMap<String, Spanned<Value>>,
    safety: Option<SafetyLevel>,
    loc: Option<crate::source::Loc>,
    title: Option<Spanned<String>>,
}

/// `annotations` -> safety level and the hints as written.
fn read_annotations(cx: &mut Cx<'_>, a: Option<&Node>) -> Hints {
    let mut hints = Hints {
        all: BTreeMap::new(),
        safety: None,
        loc: None,
        title: None,
    };
    let Some(a) = a else { return hints };
    let Some(members) = cx.object(a, "`annotations`") else {
        return hints;
    };
    cx.passthrough(members, HINTS, "MCP tool annotations");
    let hint = |cx: &mut Cx<'_>, key: &str| -> Option<bool> {
        let m = members.iter().find(|m| m.key == key)?;
        cx.boolean(&m.value, &format!("`annotations.{key}`"))
    };
    let read_only = hint(cx, "readOnlyHint");
    let destructive = hint(cx, "destructiveHint");
    for key in ["idempotentHint", "openWorldHint"] {
        hint(cx, key);
    }
    for m in members {
        hints.all.insert(
            m.key.clone(),
            Spanned::new(m.value.to_json(), cx.loc(m.value.span)),
        );
    }
    hints.title = members
        .iter()
        .find(|m| m.key == "title")
        .and_then(|m| cx.string(&m.value, "`annotations.title`", true));
    hints.loc = Some(cx.loc(a.span));
    hints.safety = match (read_only, destructive) {
        (None, None) => None,
        (Some(true), _) => Some(SafetyLevel::ReadOnly),
        (_, Some(false)) => Some(SafetyLevel::SafeWrite),
        _ => Some(SafetyLevel::Destructive),
    };
    hints
}

/// toolgen's own metadata (`_meta.toolgen`), as the catalog writes it.
#[derive(Default)]
struct Meta {
    category: Option<Spanned<String>>,
    tier: Option<Spanned<String>>,
    notes: Option<Spanned<String>>,
    timeout_seconds: Option<Spanned<f64>>,
    examples: Vec<crate::ir::Example>,
    requires_approval: bool,
    deprecated: Option<Spanned<crate::ir::Deprecation>>,
    /// `annotations`: what other formats say beyond MCP's fields (RAVE's
    /// implementation example, `x-` keys), as the catalog writes it.
    annotations: BTreeMap<String, Spanned<Value>>,
    /// `content`: the content blocks the tool returns (MCP's `Tool` has no
    /// place for them).
    content: Vec<Spanned<crate::ir::ContentDecl>>,
}

fn read_meta(cx: &mut Cx<'_>, meta: Option<&Node>) -> Meta {
    let Some(meta) = meta else {
        return Meta::default();
    };
    let text = |cx: &mut Cx<'_>, key: &str| {
        meta.get(key)
            .and_then(|n| cx.string(n, &format!("`_meta.toolgen.{key}`"), true))
    };
    let timeout_seconds = meta.get("timeoutSeconds").and_then(|n| {
        let v = cx.number(n, "`_meta.toolgen.timeoutSeconds`")?;
        super::fields::check_timeout(cx, v, cx.loc(n.span)).then(|| Spanned::new(v, cx.loc(n.span)))
    });
    // Examples in the EditorMCP shape (`[{description, input, output}]`): MCP
    // has no place for them, so toolgen's metadata carries them.
    let examples = match &meta.kind {
        NodeKind::Object(members) => super::fields::read_examples(cx, members).unwrap_or_default(),
        _ => Vec::new(),
    };
    Meta {
        content: meta
            .get("content")
            .map(|n| super::fields::read_content(cx, n, "`_meta.toolgen.content`"))
            .unwrap_or_default(),
        category: text(cx, "category"),
        tier: text(cx, "tier"),
        notes: text(cx, "notes"),
        timeout_seconds,
        examples,
        deprecated: meta.get("deprecated").and_then(|n| {
            super::fields::read_deprecated(cx, n, "`_meta.toolgen.deprecated`", |n| match n.kind {
                NodeKind::Bool(b) => Some(b),
                _ => None,
            })
        }),
        requires_approval: meta
            .get("requiresApproval")
            .and_then(|n| cx.boolean(n, "`_meta.toolgen.requiresApproval`"))
            .unwrap_or(false),
        annotations: meta
            .get("annotations")
            .and_then(|n| cx.object(n, "`_meta.toolgen.annotations`"))
            .into_iter()
            .flatten()
            .map(|m| {
                (
                    m.key.clone(),
                    Spanned::new(m.value.to_json(), cx.loc(m.value.span)),
                )
            })
            .collect(),
    }
}
