//! RAVE's parameter and return types (R types with RAVE's keys) translated
//! into JSON Schema, each node located where the YAML wrote it.

use super::super::fields::Cx;
use super::rd::clean_rd;
use crate::diag::{Diagnostic, rule};
use crate::schema::DIALECT as SCHEMA_DIALECT;
use crate::source::{Loc, Span};
use crate::syntax::{Member, Node, NodeKind, pointer_join};
use serde_json::{Map, Number, Value, json};
use std::collections::BTreeMap;

pub(super) struct Translator<'c, 'd> {
    pub(super) cx: &'c mut Cx<'d>,
    pub(super) locs: BTreeMap<String, Loc>,
    /// Values changed to fit the schema, as written (see `ir::Schema::written`).
    pub(super) written: BTreeMap<String, Value>,
}

impl Translator<'_, '_> {
    pub(super) fn record(&mut self, ptr: &str, node: &Node) {
        let mut sub = String::new();
        node.walk(&mut sub, &mut |p, n| {
            self.locs.insert(format!("{ptr}{p}"), self.cx.loc(n.span));
        });
    }

    /// `parameters` or `returns`: a schema, tagged with the dialect toolgen emits.
    pub(super) fn root_schema(&mut self, node: &Node) -> Option<Value> {
        let mut v = self.schema(node, "", false)?;
        if let Value::Object(m) = &mut v {
            m.insert("$schema".into(), json!(SCHEMA_DIALECT));
        }
        Some(v)
    }

    pub(super) fn schema(&mut self, node: &Node, ptr: &str, is_property: bool) -> Option<Value> {
        let obj = self.cx.object(node, "a JSON Schema")?;
        self.locs.insert(ptr.to_owned(), self.cx.loc(node.span));
        let mut allowed = OWN_SCHEMA_KEYS.to_vec();
        allowed.extend_from_slice(crate::schema::VALUE_CONSTRAINTS);
        self.cx.check_keys(obj, &allowed, true, "a JSON Schema");
        let get = |k: &str| obj.iter().find(|m| m.key == k);
        let mut out = Map::new();

        let types = self.types(obj, ptr);
        if is_property && get("type").is_none() {
            self.cx.require(
                node,
                obj,
                "type",
                "a parameter schema (JSON Schema draft 7 requires it)",
                "\"string\", \"number\", \"integer\", \"boolean\", \"object\" or \"array\"",
            );
        }
        self.plain_keywords(obj, ptr, &mut out);
        self.values(obj, ptr, &types, &mut out);
        if let Some(m) = get("items") {
            if let Some(v) = self.schema(&m.value, &pointer_join(ptr, "items"), false) {
                out.insert("items".into(), v);
            }
        }
        if let Some(m) = get("additionalProperties") {
            let aptr = pointer_join(ptr, "additionalProperties");
            if let NodeKind::Bool(b) = m.value.kind {
                self.locs.insert(aptr, self.cx.loc(m.value.span));
                out.insert("additionalProperties".into(), json!(b));
            } else if let Some(v) = self.schema(&m.value, &aptr, false) {
                out.insert("additionalProperties".into(), v);
            }
        }
        let hidden = match get("properties") {
            Some(m) => self.properties(m, ptr, &mut out),
            None => Vec::new(),
        };
        if let Some(m) = get("required") {
            self.required(m, ptr, &hidden, &mut out);
        }
        Some(Value::Object(out))
    }

    /// Keywords copied as written (descriptions and titles with Rd markup
    /// cleaned); the ones read with care are left to the other steps.
    pub(super) fn plain_keywords(
        &mut self,
        obj: &[Member],
        ptr: &str,
        out: &mut Map<String, Value>,
    ) {
        for m in obj {
            let kptr = pointer_join(ptr, &m.key);
            match m.key.as_str() {
                "properties"
                | "items"
                | "additionalProperties"
                | "required"
                | "default"
                | "examples"
                | "enum" => {}
                "description" | "title" => match &m.value.kind {
                    NodeKind::Null => {}
                    NodeKind::String(s) => {
                        let loc = self.cx.loc(m.value.span);
                        let cleaned = clean_text(self.cx, s, loc);
                        self.locs.insert(kptr, loc);
                        out.insert(m.key.clone(), json!(cleaned));
                    }
                    _ => self
                        .cx
                        .wrong_type(&m.value, &format!("`{}`", m.key), "a string"),
                },
                _ => {
                    self.record(&kptr, &m.value);
                    out.insert(m.key.clone(), m.value.to_json());
                }
            }
        }
    }

    /// `enum`, `default` and `examples`, read as values of the declared type
    /// (YAML 1.1 booleans on boolean parameters, integers written as floats,
    /// string examples converted).
    pub(super) fn values(
        &mut self,
        obj: &[Member],
        ptr: &str,
        types: &[String],
        out: &mut Map<String, Value>,
    ) {
        let get = |k: &str| obj.iter().find(|m| m.key == k);
        if let Some(m) = get("enum") {
            match m.value.as_array() {
                Some(items) => {
                    self.record(&pointer_join(ptr, "enum"), &m.value);
                    let boolean = types.iter().any(|x| x == "boolean");
                    let values = items
                        .iter()
                        .map(|n| {
                            if boolean {
                                as_yaml11_bool(n)
                            } else {
                                n.to_json()
                            }
                        })
                        .collect();
                    out.insert("enum".into(), Value::Array(values));
                }
                None => self.cx.wrong_type(&m.value, "`enum`", "a list of values"),
            }
        }
        if let Some(m) = get("default") {
            // On a string parameter, only the forms R's yaml package writes
            // (`.na.character`) are R's; a bare `NA` may be the string "NA".
            let string_typed = types.iter().any(|t| t == "string");
            let special = m
                .value
                .as_str()
                .filter(|w| is_r_special(w) && (!string_typed || w.starts_with('.')));
            if let Some(word) = special {
                self.r_special_default(&m.value, word);
                self.record(&pointer_join(ptr, R_DEFAULT), &m.value);
                out.insert(R_DEFAULT.into(), json!(word));
            } else {
                let at = pointer_join(ptr, "default");
                match self.default(&m.value, types) {
                    Some(v) => {
                        self.record(&at, &m.value);
                        self.keep_written(at, &m.value, &v);
                        out.insert("default".into(), v);
                    }
                    // Dropped (TG0604, or R's `NULL`: no value), yet what the file says.
                    None => {
                        self.written.insert(at, m.value.to_json());
                    }
                }
            }
        }
        if let Some(m) = get("examples") {
            if let Some(v) = self.examples(&m.value, types) {
                let at = pointer_join(ptr, "examples");
                self.locs.insert(at.clone(), self.cx.loc(m.value.span));
                self.keep_written(at, &m.value, &v);
                out.insert("examples".into(), v);
            }
        }
    }

    /// `properties`, without hidden parameters (TG0609); returns their names,
    /// which `required` then leaves out too.
    pub(super) fn properties(
        &mut self,
        m: &Member,
        ptr: &str,
        out: &mut Map<String, Value>,
    ) -> Vec<String> {
        let mut hidden = Vec::new();
        match &m.value.kind {
            NodeKind::Object(members) => {
                let pptr = pointer_join(ptr, "properties");
                self.locs.insert(pptr.clone(), self.cx.loc(m.value.span));
                let mut props = Map::new();
                for p in members {
                    if p.key.starts_with('.') {
                        self.cx.report(
                            Diagnostic::at(
                                &rule::HIDDEN_PARAMETER,
                                self.cx.loc(p.key_span),
                                format!("hidden parameter `{}` is dropped from the public schema", p.key),
                            )
                            .label("hidden parameter")
                            .help("parameters starting with `.` are internal; `mcptool_build()` leaves them out"),
                        );
                        hidden.push(p.key.clone());
                        continue;
                    }
                    if let Some(v) = self.schema(&p.value, &pointer_join(&pptr, &p.key), true) {
                        props.insert(p.key.clone(), v);
                    }
                }
                out.insert("properties".into(), Value::Object(props));
            }
            NodeKind::Null => {
                out.insert("properties".into(), json!({}));
            }
            _ => self.cx.wrong_type(
                &m.value,
                "`properties`",
                "a mapping of parameter names to schemas",
            ),
        }
        hidden
    }

    pub(super) fn types(&mut self, obj: &[Member], ptr: &str) -> Vec<String> {
        let Some(m) = obj.iter().find(|m| m.key == "type") else {
            return Vec::new();
        };
        let names: Vec<&Node> = match &m.value.kind {
            NodeKind::String(_) => vec![&m.value],
            NodeKind::Array(items) => items.iter().collect(),
            _ => {
                self.cx
                    .wrong_type(&m.value, "`type`", "a type name or a list of them");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for n in names {
            match n.as_str() {
                Some(t) if TYPES.contains(&t) => out.push(t.to_owned()),
                Some(t) => {
                    let loc = self.cx.loc(n.span);
                    self.cx
                        .unknown_value(&rule::UNKNOWN_TYPE, loc, t, "JSON Schema type", TYPES);
                }
                None => self.cx.wrong_type(n, "a type", "a string"),
            }
        }
        self.locs
            .insert(pointer_join(ptr, "type"), self.cx.loc(m.value.span));
        out
    }

    /// A default normalized to the declared type, or `None` (with a warning) when it cannot be.
    /// Remembers what `node` said at `ptr` when the schema holds something
    /// else (a float read as an integer, strings read as numbers).
    pub(super) fn keep_written(&mut self, ptr: String, node: &Node, now: &Value) {
        let written = node.to_json();
        // `5.0` and `5` are equal as JSON values, not as what R wrote; a
        // YAML 1.1 `yes` read as `true` is the same value to R either way.
        let (as_written, as_read) = (written.to_string(), now.to_string());
        let changed = &written != now || as_written != as_read;
        if changed && !now.is_boolean() {
            self.written.insert(ptr, written);
        }
    }

    /// TG0610 for a default that is R's `NA`, `Inf` or `NaN`.
    pub(super) fn r_special_default(&mut self, node: &Node, word: &str) {
        let what = if word.to_ascii_lowercase().contains("na") && !word.eq_ignore_ascii_case(".nan")
        {
            "R's missing value `NA`"
        } else {
            "an R infinity or `NaN`"
        };
        self.cx.report(
            self.cx
                .at(
                    &rule::R_SPECIAL_VALUE,
                    node.span,
                    format!("default `{word}` is {what}, which JSON has no value for"),
                )
                .label("kept as `x-r-default`")
                .help("nothing to fix: the schema has no default, and the docs show this one as R wrote it"),
        );
    }

    pub(super) fn default(&mut self, node: &Node, types: &[String]) -> Option<Value> {
        if matches!(node.kind, NodeKind::Null) {
            // R's NULL default means "no value": no default.
            return None;
        }
        let value = node.to_json();
        if types.is_empty()
            || types
                .iter()
                .any(|t| crate::schema::value_has_type(&value, t))
        {
            return Some(value);
        }
        let loc = self.cx.loc(node.span);
        if let Some(v) = self.coerce(node, types) {
            if types.iter().any(|t| t == "integer")
                && node.json_type() == crate::syntax::JsonType::Number
            {
                self.cx.report(
                    Diagnostic::at(
                        &rule::FLOAT_INTEGER,
                        loc,
                        format!("integer default written as `{}`", short_number(node)),
                    )
                    .label(format!("read as the integer {v}"))
                    .help("nothing to change in R: `mcptool_build()` writes every number as a float; `lints: {float-for-integer: allow}` in toolset.yaml silences this"),
                );
            }
            return Some(v);
        }
        self.cx.report(
            Diagnostic::at(
                &rule::DEFAULT_WRONG_TYPE,
                loc,
                format!(
                    "default `{}` is not a value of type `{}`; it is dropped",
                    value,
                    types.join(" or ")
                ),
            )
            .label("wrong type")
            .help("fix the default in the R function's formals, or the parameter's type"),
        );
        None
    }

    /// Converts a value to a declared type where the intent is clear:
    /// `5.0` -> 5 for integers, YAML 1.1 words -> booleans.
    pub(super) fn coerce(&self, node: &Node, types: &[String]) -> Option<Value> {
        for t in types {
            match (t.as_str(), &node.kind) {
                ("integer", NodeKind::Number(n)) => {
                    if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                        return Some(json!(f as i64));
                    }
                }
                ("boolean", NodeKind::String(s)) => {
                    if let Some(b) = yaml11_bool(s) {
                        return Some(json!(b));
                    }
                }
                _ => {}
            }
        }
        None
    }

    pub(super) fn examples(&mut self, node: &Node, types: &[String]) -> Option<Value> {
        let Some(items) = node.as_array() else {
            self.cx
                .wrong_type(node, "`examples`", "a list of example values");
            return None;
        };
        let numeric_or_bool = types
            .iter()
            .any(|t| matches!(t.as_str(), "integer" | "number" | "boolean"));
        let mut out: Vec<Value> = Vec::new();
        let mut converted = Vec::new();
        for item in items {
            let mut v = item.to_json();
            if numeric_or_bool && !types.iter().any(|t| crate::schema::value_has_type(&v, t)) {
                match item.as_str().and_then(|s| parse_as(s, types)) {
                    Some(parsed) => {
                        converted.push(item.span);
                        v = parsed;
                    }
                    None => {
                        self.cx.report(
                            Diagnostic::at(
                                &rule::EXAMPLE_TYPE,
                                self.cx.loc(item.span),
                                format!(
                                    "example `{v}` is not a value of type `{}`; it is dropped",
                                    types.join(" or ")
                                ),
                            )
                            .label("wrong type"),
                        );
                        continue;
                    }
                }
            }
            if out.contains(&v) {
                self.cx.report(
                    Diagnostic::at(
                        &rule::DUPLICATE_EXAMPLE,
                        self.cx.loc(item.span),
                        format!("example `{v}` is listed twice; the repeat is removed"),
                    )
                    .label("repeated example"),
                );
                continue;
            }
            out.push(v);
        }
        if let (Some(first), Some(last)) = (converted.first(), converted.last()) {
            let span = Span::new(first.start as usize, last.end as usize);
            self.cx.report(
                Diagnostic::at(
                    &rule::EXAMPLE_TYPE,
                    self.cx.loc(span),
                    format!(
                        "{} example{} written as strings on a parameter of type `{}`; converted",
                        converted.len(),
                        if converted.len() == 1 { "" } else { "s" },
                        types.join(" or ")
                    ),
                )
                .label("written as strings")
                .help("`mcptool_build()` reads examples from `\\code{}` as text; the values are converted"),
            );
        }
        Some(Value::Array(out))
    }

    pub(super) fn required(
        &mut self,
        m: &Member,
        ptr: &str,
        hidden: &[String],
        out: &mut Map<String, Value>,
    ) {
        let Some(items) = m.value.as_array() else {
            if !matches!(m.value.kind, NodeKind::Null) {
                self.cx
                    .wrong_type(&m.value, "`required`", "a list of property names");
            }
            return;
        };
        self.locs
            .insert(pointer_join(ptr, "required"), self.cx.loc(m.value.span));
        let mut names = Vec::new();
        for item in items {
            match item.as_str() {
                Some(n) if hidden.iter().any(|h| h == n) || n.starts_with('.') => {}
                Some(n) => names.push(json!(n)),
                None => self
                    .cx
                    .wrong_type(item, "an entry of `required`", "a property name"),
            }
        }
        out.insert("required".into(), Value::Array(names));
    }
}

pub(super) fn as_yaml11_bool(n: &Node) -> Value {
    match n.as_str().and_then(yaml11_bool) {
        Some(b) => json!(b),
        None => n.to_json(),
    }
}

pub(super) fn short_number(n: &Node) -> String {
    match &n.kind {
        NodeKind::Number(x) => x.to_string(),
        _ => n.to_json().to_string(),
    }
}

/// Parses a string example as one of the declared types.
pub(super) fn parse_as(s: &str, types: &[String]) -> Option<Value> {
    let s = s.trim().trim_end_matches('L');
    for t in types {
        match t.as_str() {
            "integer" => {
                if let Ok(i) = s.parse::<i64>() {
                    return Some(json!(i));
                }
            }
            "number" => {
                if let Some(n) = s.parse::<f64>().ok().and_then(Number::from_f64) {
                    return Some(Value::Number(n));
                }
            }
            "boolean" => {
                if let Some(b) = yaml11_bool(s).or(match s {
                    "TRUE" | "T" => Some(true),
                    "FALSE" | "F" => Some(false),
                    _ => None,
                }) {
                    return Some(json!(b));
                }
            }
            _ => {}
        }
    }
    None
}

/// JSON Schema keywords accepted in `parameters` and `returns`.
/// JSON Schema keywords accepted in `parameters` and `returns` besides the
/// shared constraints ([`crate::schema::VALUE_CONSTRAINTS`]).
pub(super) const OWN_SCHEMA_KEYS: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "default",
    "examples",
    "items",
    "properties",
    "required",
    "additionalProperties",
    "multipleOf",
    "nullable",
];

/// Cleans Rd markup out of a text, with a TG0607 note when anything changed.
pub(super) fn clean_text(cx: &mut Cx<'_>, text: &str, loc: Loc) -> String {
    let cleaned = clean_rd(text);
    if cleaned != text {
        cx.report(
            Diagnostic::at(
                &rule::RD_MARKUP,
                loc,
                "leftover Rd markup is cleaned for output",
            )
            .label("contains Rd markup")
            .help("write Markdown in roxygen2 (`@md`) or plain text"),
        );
    }
    cleaned
}

/// The schema keyword that keeps a default JSON cannot hold (R's `NA`,
/// `Inf`, `NaN`), as R's yaml package wrote it.
pub const R_DEFAULT: &str = "x-r-default";

/// Whether a YAML word is R's `NA`, an infinity or `NaN`, as R's yaml
/// package (or a person) writes them.
pub fn is_r_special(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        ".na"
            | ".na.real"
            | ".na.integer"
            | ".na.character"
            | "na"
            | "na_real_"
            | "na_integer_"
            | "na_character_"
            | ".inf"
            | "+.inf"
            | "-.inf"
            | "inf"
            | "-inf"
            | ".nan"
            | "nan"
    )
}

pub(crate) const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

pub fn yaml11_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "yes" | "y" | "on" | "true" => Some(true),
        "no" | "n" | "off" | "false" => Some(false),
        _ => None,
    }
}
