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

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::fields::{Cx, is_identifier, list};
use crate::diag::{Diagnostic, rule};
use crate::ir::{Category, Format, Implied, SafetyLevel, Schema, Spanned, Tier, Tool, ToolSet};
use crate::source::{Loc, Span};
use crate::syntax::{Member, Node, NodeKind, pointer_join};
use crate::text::did_you_mean;

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

/// The keys of an EditorMCP property schema besides the shared constraints
/// ([`crate::schema::VALUE_CONSTRAINTS`]).
const OWN_PROPERTY_KEYS: &[&str] = &[
    "type",
    "description",
    "required",
    "default",
    "enum",
    "items",
    "properties",
    "additionalProperties",
    "nullable",
    "$ref",
    "title",
    "deprecated",
];

/// Every key of an EditorMCP property schema.
pub(crate) fn property_keys() -> Vec<&'static str> {
    let mut keys = OWN_PROPERTY_KEYS.to_vec();
    keys.extend_from_slice(crate::schema::VALUE_CONSTRAINTS);
    keys
}

const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "any",
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

/// Where a property schema sits, which decides what it must and may contain.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// A tool parameter (`inputs.X`) or output field (`outputs.X`).
    TopLevel,
    /// A member of a nested object's `properties`.
    Property,
    /// `items`, `additionalProperties`, or a definition.
    Schema,
}

struct Translator<'c, 'd> {
    cx: &'c mut Cx<'d>,
    side: Side,
    definitions: BTreeMap<String, &'c Node>,
    locs: BTreeMap<String, Loc>,
    refs: BTreeSet<String>,
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
        passthrough: BTreeMap::new(),
        // Every field is required by the format.
        implied: Implied::default(),
        model_description: None,
        r_function: None,
        deprecated,
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

fn check_id(cx: &mut Cx<'_>, id: &Spanned<String>) {
    let problem = id.value.split('.').find_map(|seg| {
        let mut chars = seg.chars();
        match chars.next() {
            None => Some("has an empty segment (two dots in a row, or a dot at an end)".to_owned()),
            Some(c) if !c.is_ascii_lowercase() => Some(format!(
                "has a segment `{seg}` that does not start with a lowercase letter"
            )),
            _ => chars
                .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
                .map(|c| format!("contains `{}`, which is not allowed", c.escape_default())),
        }
    });
    if let Some(problem) = problem {
        let suggestion: String = id
            .value
            .to_ascii_lowercase()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        cx.report(
            Diagnostic::at(
                &rule::ID_FORMAT,
                id.loc,
                format!("tool id `{}` {problem}", id.value),
            )
            .label("invalid tool id")
            .help(format!(
                "ids are dot-separated lowercase segments (`category.action`), e.g. `{}`",
                suggestion.trim_matches(|c| c == '.' || c == '-')
            )),
        );
    }
}

const SMALL_WORDS: &[&str] = &[
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "per", "the", "to",
    "vs", "via", "with",
];

fn check_name(cx: &mut Cx<'_>, name: &Spanned<String>) {
    let words: Vec<&str> = name.value.split_whitespace().collect();
    let lower = words.iter().enumerate().find(|(i, w)| {
        w.chars().next().is_some_and(|c| c.is_lowercase()) && (*i == 0 || !SMALL_WORDS.contains(w))
    });
    if let Some((_, w)) = lower {
        cx.report(
            Diagnostic::at(
                &rule::NAME_STYLE,
                name.loc,
                format!("display name `{}` is not in title case (`{w}`)", name.value),
            )
            .label("use title case")
            .help("capitalize each major word, e.g. `Dump Scene Hierarchy`"),
        );
    }
    let len = name.value.chars().count();
    if len > 50 {
        cx.report(
            Diagnostic::at(
                &rule::NAME_STYLE,
                name.loc,
                format!("display name is {len} characters long; keep it under 50"),
            )
            .label("too long"),
        );
    }
}

fn sentence_count(text: &str) -> usize {
    let bytes: Vec<char> = text.trim().chars().collect();
    let mut n = 0;
    for (i, c) in bytes.iter().enumerate() {
        if matches!(c, '.' | '!' | '?') {
            let next = bytes.get(i + 1);
            let after = bytes.get(i + 2);
            if next.is_none()
                || (next.is_some_and(|c| c.is_whitespace())
                    && after.is_some_and(|c| c.is_uppercase()))
            {
                n += 1;
            }
        }
    }
    n.max(1)
}

fn check_description(cx: &mut Cx<'_>, d: &Spanned<String>) {
    let n = sentence_count(&d.value);
    if n > 3 {
        cx.report(
            Diagnostic::at(
                &rule::DESCRIPTION_STYLE,
                d.loc,
                format!("description has {n} sentences; the format recommends one to three"),
            )
            .label("too long")
            .help("move limitations and details into `notes`"),
        );
    }
}

fn check_category_format(cx: &mut Cx<'_>, c: &Spanned<String>) {
    let ok = c.value.split('.').all(|seg| {
        seg.chars().next().is_some_and(|ch| ch.is_ascii_lowercase())
            && seg
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
    });
    if !ok {
        cx.report(
            Diagnostic::at(
                &rule::CATEGORY_FORMAT,
                c.loc,
                format!("category `{}` is not lowercase dot-separated", c.value),
            )
            .label("invalid category")
            .help(format!("write it as `{}`", c.value.to_ascii_lowercase())),
        );
    }
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

impl Translator<'_, '_> {
    fn loc(&self, span: Span) -> Loc {
        self.cx.loc(span)
    }

    fn properties(
        &mut self,
        members: &[Member],
        ptr: &str,
        position: Position,
        parent: &str,
    ) -> (Map<String, Value>, Vec<String>) {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for m in members {
            let prop_ptr = pointer_join(ptr, &m.key);
            if !is_identifier(&m.key) {
                let kind = if position == Position::TopLevel && self.side == Side::Input {
                    "parameter"
                } else {
                    "property"
                };
                let fixed: String = m
                    .key
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                self.cx.report(
                    self.cx
                        .at(
                            &rule::PROPERTY_NAME,
                            m.key_span,
                            format!(
                                "{kind} name `{}` in `{parent}` is not a valid identifier",
                                m.key
                            ),
                        )
                        .label("not an identifier")
                        .help(format!(
                            "use letters, digits and `_`, starting with a letter, e.g. `{}`",
                            if fixed.starts_with(|c: char| c.is_ascii_digit()) || fixed.is_empty() {
                                format!("p{fixed}")
                            } else {
                                fixed
                            }
                        )),
                );
            }
            if let Some((schema, is_required)) = self.schema(&m.value, &prop_ptr, position) {
                if is_required {
                    required.push(m.key.clone());
                }
                properties.insert(m.key.clone(), schema);
            }
        }
        required.sort();
        (properties, required)
    }

    /// Translates one property schema; returns the JSON Schema and whether the
    /// property is required in its parent object.
    fn schema(&mut self, node: &Node, ptr: &str, position: Position) -> Option<(Value, bool)> {
        let what = match position {
            Position::TopLevel if self.side == Side::Input => "a parameter",
            Position::TopLevel => "an output field",
            Position::Property => "a property",
            Position::Schema => "a schema",
        };
        let obj = self.cx.object(node, &format!("{what} schema"))?;
        self.locs.insert(ptr.to_owned(), self.loc(node.span));
        let mut allowed = property_keys();
        if position == Position::Schema {
            allowed.retain(|k| *k != "required");
        }
        self.cx
            .check_keys(obj, &allowed, true, &format!("{what} schema"));
        let place = Place {
            node,
            obj,
            ptr,
            what,
            position,
        };
        let mut out = Map::new();
        let required = self.required_flag(&place);
        if position == Position::TopLevel {
            if let Some(d) =
                self.cx
                    .require(node, obj, "description", what, "a sentence describing it")
            {
                self.cx.string(d, "`description`", true);
            }
        }
        let reference = self.reference(&place, &mut out);
        let ty = if reference {
            None
        } else {
            self.declared_type(&place)
        };
        let nullable = place
            .get("nullable")
            .and_then(|m| self.cx.boolean(&m.value, "`nullable`"))
            .unwrap_or(false);
        if let Some(t) = ty.as_deref().filter(|t| *t != "any") {
            out.insert(
                "type".into(),
                if nullable {
                    json!([t, "null"])
                } else {
                    json!(t)
                },
            );
        }
        self.plain_keywords(&place, required, &mut out);
        // The key itself is a better place to point at for "default" problems than nothing.
        if let Some(m) = place.get("required") {
            self.locs
                .insert(format!("{ptr}/@required"), self.loc(m.value.span));
        }
        if let Some(m) = place.get("items") {
            let iptr = pointer_join(ptr, "items");
            if let Some((v, _)) = self.schema(&m.value, &iptr, Position::Schema) {
                out.insert("items".into(), v);
            }
        }
        let has_properties = self.nested_properties(&place, &mut out);
        let has_additional = self.additional_properties(&place, &mut out);
        if ty.as_deref() == Some("object") {
            self.object_shape(&place, has_properties, has_additional, &mut out);
        }
        Some((Value::Object(out), required))
    }

    /// `required`: whether the property is required in its parent object
    /// (parameters must say; nested properties and output fields default to yes).
    fn required_flag(&mut self, p: &Place<'_>) -> bool {
        match p.get("required") {
            Some(m) if p.position != Position::Schema => {
                self.cx.boolean(&m.value, "`required`").unwrap_or(false)
            }
            _ => {
                if p.position == Position::TopLevel && self.side == Side::Input {
                    self.cx
                        .require(p.node, p.obj, "required", "a parameter", "true or false");
                    false
                } else {
                    true
                }
            }
        }
    }

    /// `$ref` to a definition (TG0310 when it names none); whether there is one.
    fn reference(&mut self, p: &Place<'_>, out: &mut Map<String, Value>) -> bool {
        let Some(r) = p.get("$ref") else {
            return false;
        };
        if let Some(target) = self.cx.string(&r.value, "`$ref`", true) {
            let name = target.value.strip_prefix("#/definitions/");
            match name {
                Some(n) if self.definitions.contains_key(n) => {
                    out.insert("$ref".into(), json!(format!("#/$defs/{n}")));
                    self.refs.insert(n.to_owned());
                }
                _ => {
                    let names: Vec<&str> = self.definitions.keys().map(String::as_str).collect();
                    let help = match name.and_then(|n| did_you_mean(n, names.iter().copied())) {
                        Some(s) => format!("did you mean `#/definitions/{s}`?"),
                        None if names.is_empty() => {
                            "declare the shape under a top-level `definitions` object".to_owned()
                        }
                        None => format!("declared definitions: {}", list(&names)),
                    };
                    self.cx.report(
                        Diagnostic::at(
                            &rule::UNRESOLVED_REF,
                            target.loc,
                            format!("`$ref` `{}` does not name a definition", target.value),
                        )
                        .label("unresolved reference")
                        .help(help),
                    );
                }
            }
            self.locs.insert(pointer_join(p.ptr, "$ref"), target.loc);
        }
        if let Some(t) = p.get("type") {
            self.cx.report(
                self.cx
                    .at(
                        &rule::INVALID_VALUE,
                        t.key_span,
                        "`type` cannot be combined with `$ref`",
                    )
                    .label("the referenced definition has the type")
                    .help("remove `type`"),
            );
        }
        true
    }

    /// `type` (TG0302 with a likely meant type for unknown ones); the type written.
    fn declared_type(&mut self, p: &Place<'_>) -> Option<String> {
        let mut ty: Option<String> = None;
        match p.get("type") {
            None => {
                self.cx.require(p.node, p.obj, "type", p.what, "\"string\", \"integer\", \"number\", \"boolean\", \"array\", \"object\" or \"any\"");
            }
            Some(m) => match self.cx.string(&m.value, "`type`", true) {
                Some(t) if TYPES.contains(&t.value.as_str()) => {
                    self.locs.insert(pointer_join(p.ptr, "type"), t.loc);
                    ty = Some(t.value);
                }
                Some(t) => self.unknown_type(&t),
                None => {}
            },
        }
        ty
    }

    /// TG0302, with the type a synonym (`int`, `dict`) or a typo most likely means.
    fn unknown_type(&mut self, t: &Spanned<String>) {
        let synonym = match t.value.to_ascii_lowercase().as_str() {
            "int" | "long" | "int32" | "int64" => Some("integer"),
            "bool" => Some("boolean"),
            "float" | "double" | "decimal" => Some("number"),
            "str" | "text" => Some("string"),
            "list" | "sequence" => Some("array"),
            "dict" | "map" | "dictionary" | "record" => Some("object"),
            "null" => None,
            other => TYPES.iter().copied().find(|x| *x == other),
        }
        .or_else(|| did_you_mean(&t.value, TYPES.iter().copied()));
        self.cx.report(
            Diagnostic::at(
                &rule::UNKNOWN_TYPE,
                t.loc,
                format!("unknown type `{}`", t.value),
            )
            .label("not a type of the format")
            .help(match synonym {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("use one of {}", list(TYPES)),
            }),
        );
    }

    /// Plain keywords, copied with their locations after a JSON-type check.
    fn plain_keywords(&mut self, p: &Place<'_>, required: bool, out: &mut Map<String, Value>) {
        for m in p.obj {
            let expected = match m.key.as_str() {
                "description" | "title" | "pattern" | "format" => {
                    Some(("a string", matches!(m.value.kind, NodeKind::String(_))))
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    Some(("a number", matches!(m.value.kind, NodeKind::Number(_))))
                }
                "minLength" | "maxLength" | "minItems" | "maxItems" => Some((
                    "a non-negative integer",
                    matches!(&m.value.kind, NodeKind::Number(n) if n.is_u64()),
                )),
                "uniqueItems" | "deprecated" => {
                    Some(("a boolean", matches!(m.value.kind, NodeKind::Bool(_))))
                }
                "enum" => Some(("an array", matches!(m.value.kind, NodeKind::Array(_)))),
                "default" => Some(("any value", true)),
                k if k.starts_with("x-") => Some(("any value", true)),
                _ => None,
            };
            let Some((expected, matches)) = expected else {
                continue;
            };
            if !matches {
                self.cx
                    .wrong_type(&m.value, &format!("`{}`", m.key), expected);
                continue;
            }
            if m.key == "default" && matches!(m.value.kind, NodeKind::Null) && !required {
                // `"default": null` on an optional parameter means "no default" (as in the schema page's example).
                continue;
            }
            let kptr = pointer_join(p.ptr, &m.key);
            let mut sub = String::new();
            m.value.walk(&mut sub, &mut |q, n| {
                self.locs.insert(format!("{kptr}{q}"), self.cx.loc(n.span));
            });
            out.insert(m.key.clone(), m.value.to_json());
        }
    }

    /// A nested object's `properties` (and the `required` they make); whether
    /// there are some.
    fn nested_properties(&mut self, p: &Place<'_>, out: &mut Map<String, Value>) -> bool {
        let Some(m) = p.get("properties") else {
            return false;
        };
        let Some(members) = self.cx.object(&m.value, "`properties`") else {
            return false;
        };
        let pptr = pointer_join(p.ptr, "properties");
        self.locs.insert(pptr.clone(), self.loc(m.value.span));
        let (props, req) = self.properties(members, &pptr, Position::Property, "properties");
        out.insert("properties".into(), Value::Object(props));
        if !req.is_empty() {
            out.insert("required".into(), json!(req));
        }
        true
    }

    /// `additionalProperties`: `true`, `false`, or a schema; whether it is there.
    fn additional_properties(&mut self, p: &Place<'_>, out: &mut Map<String, Value>) -> bool {
        let Some(m) = p.get("additionalProperties") else {
            return false;
        };
        let aptr = pointer_join(p.ptr, "additionalProperties");
        match &m.value.kind {
            NodeKind::Bool(b) => {
                self.locs.insert(aptr, self.loc(m.value.span));
                out.insert("additionalProperties".into(), json!(b));
            }
            _ => {
                if let Some((v, _)) = self.schema(&m.value, &aptr, Position::Schema) {
                    out.insert("additionalProperties".into(), v);
                }
            }
        }
        true
    }

    /// An object says its shape (TG0309); an input object with properties
    /// refuses other members.
    fn object_shape(
        &mut self,
        p: &Place<'_>,
        has_properties: bool,
        has_additional: bool,
        out: &mut Map<String, Value>,
    ) {
        if !has_properties && !has_additional {
            self.cx.report(
                self.cx.at(&rule::OBJECT_SHAPE, p.node.span,
                    "object declares neither `properties` nor `additionalProperties`; it is typed as a free-form object",
                )
                .label("shape unknown")
                .help("add `\"additionalProperties\": true` to say it is free-form, or declare its `properties`"),
            );
        } else if has_properties && !has_additional && self.side == Side::Input {
            out.insert("additionalProperties".into(), json!(false));
        }
    }
}

/// A property schema being translated: its node, members, pointer, what it
/// is (for messages) and where it sits.
struct Place<'n> {
    node: &'n Node,
    obj: &'n [Member],
    ptr: &'n str,
    what: &'static str,
    position: Position,
}

impl<'n> Place<'n> {
    fn get(&self, key: &str) -> Option<&'n Member> {
        self.obj.iter().find(|m| m.key == key)
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
