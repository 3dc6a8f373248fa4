//! EditorMCP's parameter and output definitions translated into JSON Schema
//! (draft 2020-12), each node located where the spec wrote it.

use super::super::fields::{Cx, is_identifier, list};
use crate::diag::{Diagnostic, rule};
use crate::ir::Spanned;
use crate::source::{Loc, Span};
use crate::syntax::{Member, Node, NodeKind, pointer_join};
use crate::text::did_you_mean;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The keys of an EditorMCP property schema besides the shared constraints
/// ([`crate::schema::VALUE_CONSTRAINTS`]).
pub(super) const OWN_PROPERTY_KEYS: &[&str] = &[
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

pub(super) const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "any",
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Input,
    Output,
}

/// Where a property schema sits, which decides what it must and may contain.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Position {
    /// A tool parameter (`inputs.X`) or output field (`outputs.X`).
    TopLevel,
    /// A member of a nested object's `properties`.
    Property,
    /// `items`, `additionalProperties`, or a definition.
    Schema,
}

pub(super) struct Translator<'c, 'd> {
    pub(super) cx: &'c mut Cx<'d>,
    pub(super) side: Side,
    pub(super) definitions: BTreeMap<String, &'c Node>,
    pub(super) locs: BTreeMap<String, Loc>,
    pub(super) refs: BTreeSet<String>,
}

impl Translator<'_, '_> {
    pub(super) fn loc(&self, span: Span) -> Loc {
        self.cx.loc(span)
    }

    pub(super) fn properties(
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
    pub(super) fn schema(
        &mut self,
        node: &Node,
        ptr: &str,
        position: Position,
    ) -> Option<(Value, bool)> {
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
    pub(super) fn required_flag(&mut self, p: &Place<'_>) -> bool {
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
    pub(super) fn reference(&mut self, p: &Place<'_>, out: &mut Map<String, Value>) -> bool {
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
                    let close = name.and_then(|n| did_you_mean(n, names.iter().copied()));
                    let help = match close {
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
                        .help(help)
                        .maybe_fix_word(close.map(|s| format!("#/definitions/{s}")).as_deref()),
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
    pub(super) fn declared_type(&mut self, p: &Place<'_>) -> Option<String> {
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
    pub(super) fn unknown_type(&mut self, t: &Spanned<String>) {
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
            })
            .maybe_fix_word(synonym),
        );
    }

    /// Plain keywords, copied with their locations after a JSON-type check.
    pub(super) fn plain_keywords(
        &mut self,
        p: &Place<'_>,
        required: bool,
        out: &mut Map<String, Value>,
    ) {
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
    pub(super) fn nested_properties(
        &mut self,
        p: &Place<'_>,
        out: &mut Map<String, Value>,
    ) -> bool {
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
    pub(super) fn additional_properties(
        &mut self,
        p: &Place<'_>,
        out: &mut Map<String, Value>,
    ) -> bool {
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
    pub(super) fn object_shape(
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
pub(super) struct Place<'n> {
    pub(super) node: &'n Node,
    pub(super) obj: &'n [Member],
    pub(super) ptr: &'n str,
    pub(super) what: &'static str,
    pub(super) position: Position,
}

impl<'n> Place<'n> {
    pub(super) fn get(&self, key: &str) -> Option<&'n Member> {
        self.obj.iter().find(|m| m.key == key)
    }
}
