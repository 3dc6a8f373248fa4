//! Completion and hover: from the JSON Schema of the document's format (the
//! ones `toolgen schemas` writes), from the tool set's manifest (its
//! categories, tiers and safety levels), from the schema documents a `$ref`
//! can point to, and from the rules.

use std::sync::OnceLock;

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, Hover, HoverContents,
    MarkupContent, MarkupKind, TextEdit,
};
use serde_json::Value;

use super::cursor::{Role, Seg, Spot, spot};
use super::text::Lines;
use super::world::{Doc, Kind};
use super::{keywords, navigate};
use crate::spec_schemas;

/// The format schemas, parsed once.
fn schemas() -> &'static Vec<(&'static str, Value)> {
    static SCHEMAS: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        (spec_schemas::all().into_iter())
            .filter_map(|(name, text)| Some((name, serde_json::from_str(text).ok()?)))
            .collect()
    })
}

/// The JSON Schema the document is written against, if toolgen has one.
fn schema_of(doc: &Doc) -> Option<&'static Value> {
    let name = match doc.kind {
        Kind::Spec(format) => spec_schemas::for_format(format),
        Kind::Manifest => spec_schemas::MANIFEST,
        Kind::SchemaFile | Kind::Other => return None,
    };
    schemas().iter().find(|(n, _)| *n == name).map(|(_, v)| v)
}

/// `schema` with its local `$ref`s followed.
fn follow<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..16 {
        let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// `schema` and the branches of its `allOf`, `anyOf` and `oneOf`, followed.
fn branches<'s>(root: &'s Value, schema: &'s Value, out: &mut Vec<&'s Value>) {
    let schema = follow(root, schema);
    if out.len() > 64 || out.iter().any(|s| std::ptr::eq(*s, schema)) {
        return;
    }
    out.push(schema);
    for word in ["allOf", "anyOf", "oneOf"] {
        for b in schema
            .get(word)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            branches(root, b, out);
        }
    }
}

/// The schemas a value at `path` is checked against.
fn at_path<'s>(root: &'s Value, path: &[Seg]) -> Vec<&'s Value> {
    let mut here = Vec::new();
    branches(root, root, &mut here);
    for seg in path {
        let mut next = Vec::new();
        for s in &here {
            let found = match seg {
                Seg::Key(k) => property(s, k),
                Seg::Index => s.get("items").filter(|i| i.is_object()),
            };
            if let Some(f) = found {
                branches(root, f, &mut next);
            }
        }
        here = next;
    }
    here
}

fn property<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    if let Some(p) = schema.get("properties").and_then(|p| p.get(key)) {
        return Some(p);
    }
    let patterns = schema.get("patternProperties").and_then(Value::as_object);
    for (pattern, s) in patterns.into_iter().flatten() {
        if regex::Regex::new(pattern).is_ok_and(|r| r.is_match(key)) {
            return Some(s);
        }
    }
    schema.get("additionalProperties").filter(|a| a.is_object())
}

fn description(schema: &Value) -> Option<&str> {
    schema.get("description").and_then(Value::as_str)
}

/// A value the schemas allow at a spot, with what it means.
struct Choice {
    value: Value,
    doc: Option<String>,
    kind: CompletionItemKind,
}

fn choices(doc: &Doc, spot: &Spot) -> Vec<Choice> {
    let mut out: Vec<Choice> = Vec::new();
    if doc.kind == Kind::Other {
        return out;
    }
    let key = spot.key().unwrap_or("");
    let push = |out: &mut Vec<Choice>, value: Value, d: Option<&str>, kind| {
        if !out.iter().any(|c| c.value == value) {
            out.push(Choice {
                value,
                doc: d.map(str::to_owned),
                kind,
            });
        }
    };
    // What the tool set declares, before the format's words.
    if let Some(set) = doc.set {
        let declared: Vec<(String, Option<&str>)> = match (doc.kind, key) {
            (Kind::Spec(_), "category") => (set.categories.iter())
                .map(|c| (c.id.clone(), c.description.as_deref()))
                .collect(),
            (Kind::Spec(_), "tier") | (Kind::Manifest, "maxTier") => (set.tiers.iter())
                .map(|t| (t.id.clone(), t.title.as_deref()))
                .collect(),
            (Kind::Spec(_), "safetyLevel") => (set.safety_levels.iter())
                .map(|l| (l.as_str().to_owned(), None))
                .collect(),
            _ => Vec::new(),
        };
        for (id, d) in declared {
            push(
                &mut out,
                Value::String(id),
                d,
                CompletionItemKind::ENUM_MEMBER,
            );
        }
    }
    if key == "$ref" {
        for (target, d) in navigate::ref_targets(doc) {
            push(
                &mut out,
                Value::String(target),
                d.as_deref(),
                CompletionItemKind::REFERENCE,
            );
        }
        return out;
    }
    if !out.is_empty() {
        return out;
    }
    let Some(root) = schema_of(doc) else {
        return out;
    };
    for s in at_path(root, &spot.path) {
        let d = description(s);
        for v in s
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            push(&mut out, v.clone(), d, CompletionItemKind::ENUM_MEMBER);
        }
        if let Some(v) = s.get("const") {
            push(&mut out, v.clone(), d, CompletionItemKind::ENUM_MEMBER);
        }
        if s.get("type").and_then(Value::as_str) == Some("boolean") {
            for b in [true, false] {
                push(&mut out, Value::Bool(b), None, CompletionItemKind::VALUE);
            }
        }
    }
    // A keyword of a tool's own schema.
    let parent = &spot.path[..spot.path.len().saturating_sub(1)];
    if out.is_empty() && keywords::in_schema(doc.kind, parent) {
        let words = match key {
            "type" => keywords::TYPES,
            "format" => keywords::FORMATS,
            _ => &[],
        };
        for w in words {
            push(
                &mut out,
                Value::String((*w).to_owned()),
                None,
                CompletionItemKind::ENUM_MEMBER,
            );
        }
        if keywords::KEYWORDS
            .iter()
            .any(|(k, t, _)| *k == key && *t == "boolean")
        {
            for b in [true, false] {
                push(&mut out, Value::Bool(b), None, CompletionItemKind::VALUE);
            }
        }
    }
    out
}

/// The completions at byte `offset` of a document.
pub fn completion(doc: &Doc, offset: usize) -> Vec<CompletionItem> {
    let spot = spot(&doc.text, offset, doc.yaml);
    let lines = Lines::new(&doc.text);
    let range = lines.range(spot.token.start, spot.token.end);
    let item =
        |label: String, new_text: String, kind, detail: Option<String>, d: Option<String>| {
            CompletionItem {
                filter_text: Some(new_text.trim_end_matches([' ', ':']).to_owned()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, new_text))),
                label,
                kind: Some(kind),
                detail,
                documentation: d.map(|value| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    })
                }),
                ..CompletionItem::default()
            }
        };
    match spot.role {
        Role::Key => {
            let after = doc.text[spot.token.end..].trim_start();
            let colon = if after.starts_with(':') { "" } else { ": " };
            keys(doc, &spot.path)
                .into_iter()
                .map(|(k, d)| {
                    let text = match doc.yaml {
                        true => format!("{}{colon}", yaml_scalar(&k)),
                        false => format!("{}{colon}", json_string(&k)),
                    };
                    let detail = d.as_ref().and_then(|d| d.lines().next()).map(str::to_owned);
                    item(k, text, CompletionItemKind::PROPERTY, detail, d)
                })
                .collect()
        }
        Role::Value => choices(doc, &spot)
            .into_iter()
            .map(|c| {
                let label = match &c.value {
                    Value::String(s) => s.clone(),
                    v => v.to_string(),
                };
                let text = match (&c.value, doc.yaml) {
                    (Value::String(s), true) => yaml_scalar(s),
                    (v, _) => v.to_string(),
                };
                item(label, text, c.kind, None, c.doc)
            })
            .collect(),
    }
}

/// The keys the object at `path` may have, with their documentation.
fn keys(doc: &Doc, path: &[Seg]) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let schemas = schema_of(doc)
        .map(|root| at_path(root, path))
        .unwrap_or_default();
    for s in schemas {
        let props = s.get("properties").and_then(Value::as_object);
        for (k, p) in props.into_iter().flatten() {
            if !out.iter().any(|(o, _)| o == k) {
                let d = description(p)
                    .or_else(|| schema_of(doc).and_then(|r| description(follow(r, p))));
                out.push((k.clone(), d.map(str::to_owned)));
            }
        }
        let names = s.get("propertyNames").and_then(|n| n.get("enum"));
        for k in names.and_then(Value::as_array).into_iter().flatten() {
            let Some(k) = k.as_str() else { continue };
            if !out.iter().any(|(o, _)| o == k) {
                let rule = crate::diag::find_rule(k);
                out.push((k.to_owned(), rule.map(rule_text)));
            }
        }
    }
    // A tool's own schema: JSON Schema's keywords (EditorMCP's parameters
    // are the format's, whose schema lists their keys).
    let editormcp = doc.kind == Kind::Spec(crate::ir::Format::EditorMcp);
    if keywords::in_schema(doc.kind, path) && (out.is_empty() || !editormcp) {
        for (k, _, d) in keywords::KEYWORDS {
            if !out.iter().any(|(o, _)| o == k) {
                out.push(((*k).to_owned(), Some((*d).to_owned())));
            }
        }
    }
    out
}

/// A rule as markdown: code, name, level, summary and explanation.
pub fn rule_text(rule: &crate::diag::Rule) -> String {
    format!(
        "**{}** `{}` ({} by default): {}\n\n{}",
        rule.code,
        rule.name,
        rule.severity.as_str(),
        rule.summary,
        rule.explanation
    )
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `s` as a YAML scalar: plain where YAML reads it back as the same string.
fn yaml_scalar(s: &str) -> String {
    let special = s.is_empty()
        || s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        || s.ends_with(' ')
        || s.contains(": ")
        || s.contains(" #")
        || matches!(
            s,
            "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off"
        )
        || s.parse::<f64>().is_ok();
    if special {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_owned()
    }
}

/// The hover at byte `offset`: the documentation of the field or value under
/// the cursor, the schema a `$ref` points to, and the rules of the
/// diagnostics there.
pub fn hover(doc: &Doc, offset: usize, rules: &[&crate::diag::Rule]) -> Option<Hover> {
    let spot = spot(&doc.text, offset, doc.yaml);
    let mut parts: Vec<String> = Vec::new();
    let root = schema_of(doc);
    match spot.role {
        Role::Key if !spot.word.is_empty() => {
            let mut path = spot.path.clone();
            path.push(Seg::Key(spot.word.clone()));
            if let Some(rule) = (doc.kind == Kind::Manifest && spot.key() == Some("lints"))
                .then(|| crate::diag::find_rule(&spot.word))
                .flatten()
            {
                parts.push(rule_text(rule));
            } else {
                let field = root.and_then(|root| field_docs(root, &path, &spot.word));
                let keyword = (keywords::in_schema(doc.kind, &spot.path))
                    .then(|| keywords::doc(&spot.word))
                    .flatten()
                    .map(|d| format!("**{}** (JSON Schema): {d}", spot.word));
                parts.extend(field.or(keyword));
            }
        }
        Role::Value if spot.key() == Some("$ref") => {
            parts.extend(navigate::ref_preview(doc, &spot.word));
        }
        Role::Value => {
            let choice = choices(doc, &spot).into_iter().find(|c| match &c.value {
                Value::String(s) => *s == spot.word,
                v => serde_json::from_str::<Value>(&spot.word).ok().as_ref() == Some(v),
            });
            if let Some(d) = choice.and_then(|c| c.doc) {
                parts.push(format!("`{}`: {d}", spot.word));
            } else if let Some(Seg::Key(k)) = spot.path.last() {
                let field = root.and_then(|root| field_docs(root, &spot.path, k));
                let parent = &spot.path[..spot.path.len() - 1];
                let keyword = (keywords::in_schema(doc.kind, parent))
                    .then(|| keywords::doc(k))
                    .flatten()
                    .map(|d| format!("**{k}** (JSON Schema): {d}"));
                parts.extend(field.or(keyword));
            }
        }
        Role::Key => {}
    }
    parts.extend(rules.iter().map(|r| rule_text(r)));
    if parts.is_empty() {
        return None;
    }
    let lines = Lines::new(&doc.text);
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range: (!spot.token.is_empty()).then(|| lines.range(spot.token.start, spot.token.end)),
    })
}

/// A field's documentation: its description, type and allowed values.
fn field_docs(root: &Value, path: &[Seg], name: &str) -> Option<String> {
    let found = at_path(root, path);
    let text = found.iter().find_map(|s| description(s))?;
    let types: Vec<&str> = (found.iter())
        .filter_map(|s| s.get("type").and_then(Value::as_str))
        .collect();
    let mut out = format!("**{name}**");
    if let Some(t) = types.first() {
        out.push_str(&format!(" ({t})"));
    }
    out.push_str(&format!(": {text}"));
    let values: Vec<String> = (found.iter())
        .flat_map(|s| {
            s.get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .map(|v| {
            format!(
                "`{}`",
                v.as_str().map_or_else(|| v.to_string(), str::to_owned)
            )
        })
        .collect();
    if !values.is_empty() && values.len() <= 24 {
        out.push_str(&format!("\n\nOne of {}.", values.join(", ")));
    }
    Some(out)
}
