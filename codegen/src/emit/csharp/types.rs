//! C# types from JSON Schemas: the mapper from a schema to a C# type (classes,
//! enums, keyed unions, lists, dictionaries), and the literals and doc
//! comments the generated files hold.

use super::super::shape::{Kind, Model, Node, Property, Scalar};
use crate::ident;
use crate::schema::pointer_join;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Names the generated code uses unqualified inside a tool's class, so no
/// nested type may take them.
pub(super) const RESERVED_TYPES: &[&str] = &[
    "Id",
    "Handler",
    "Tool",
    "ToolAttribute",
    "ToolHandler",
    "ToolContext",
    "ToolException",
    "JToken",
    "JObject",
    "JArray",
    "List",
    "Dictionary",
    "JsonProperty",
    "JsonConverter",
    "StringEnumConverter",
    "EnumMember",
    "NullValueHandling",
    "Toolgen",
    "Newtonsoft",
    "System",
    "Object",
    "String",
];

/// Members every C# class inherits: a property with one of these names would hide it.
pub(super) const RESERVED_MEMBERS: &[&str] = &[
    "Equals",
    "GetHashCode",
    "GetType",
    "ToString",
    "MemberwiseClone",
    "Finalize",
    "ReferenceEquals",
];

/// C# member names (enum members, properties) for wire names: PascalCase,
/// distinct, and never a name every class inherits or the type's own
/// (`owner`), which get `Value` appended.
pub(super) fn member_names(wires: &[&str], owner: Option<&str>) -> Vec<String> {
    ident::unique(wires, |w| {
        let p = ident::pascal(w);
        if Some(p.as_str()) == owner || RESERVED_MEMBERS.contains(&p.as_str()) {
            format!("{p}Value")
        } else {
            p
        }
    })
}

/// A C# string literal: printable ASCII as is, everything else as `\uXXXX`.
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Doc-comment lines: XML-escaped, split on every line terminator C# knows,
/// other control characters dropped.
pub fn doc_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push(std::mem::take(&mut current));
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => lines.push(std::mem::take(&mut current)),
            '&' => current.push_str("&amp;"),
            '<' => current.push_str("&lt;"),
            '>' => current.push_str("&gt;"),
            c if c.is_control() => current.push(' '),
            c => current.push(c),
        }
    }
    lines.push(current);
    let lines: Vec<String> = lines.into_iter().map(|l| l.trim_end().to_owned()).collect();
    let start = lines.iter().position(|l| !l.is_empty()).unwrap_or(0);
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |e| e + 1);
    let mut v: Vec<String> = lines
        .get(start..end.max(start))
        .unwrap_or_default()
        .iter()
        .map(|l| code_spans(l))
        .collect();
    if v.is_empty() {
        v.push(String::new());
    }
    v
}

/// Paired backticks on one (already escaped) line become `<c>...</c>`.
pub(super) fn code_spans(line: &str) -> String {
    super::super::markup::render_line(line, str::to_owned, str::to_owned, ("<c>", "</c>"))
}

pub(super) fn double_literal(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

#[derive(Serialize)]
pub(super) struct CsProp {
    pub(super) wire: String,
    pub(super) name: String,
    #[serde(rename = "type")]
    pub(super) ty: String,
    pub(super) required: bool,
    /// `Required.Always` (required), `Required.AllowNull` (required and
    /// nullable: it must be there, `null` or not); `None` when optional.
    pub(super) required_mode: Option<&'static str>,
    /// For an optional property that allows `null`: the backing field of a
    /// property whose `<Name>Specified` flag tells absent from `null`.
    pub(super) specified: Option<String>,
    pub(super) init: Option<String>,
    /// A `const` string: a read-only property that always holds it, so that
    /// no value the schema forbids can be set (written out, never read in).
    pub(super) fixed: Option<String>,
    pub(super) doc: Vec<String>,
}

/// One branch of a union: the property holding it, its C# type, and what
/// tells it apart (the JSON token types, the tag's value, or a property only
/// it has).
#[derive(Serialize)]
pub(super) struct CsBranch {
    pub(super) name: String,
    #[serde(rename = "type")]
    pub(super) ty: String,
    pub(super) tokens: Vec<&'static str>,
    pub(super) tag: Option<String>,
    pub(super) key: Option<String>,
    pub(super) doc: String,
}

#[derive(Serialize)]
pub(super) struct CsMember {
    pub(super) wire: String,
    pub(super) name: String,
    pub(super) doc: String,
}

#[derive(Serialize)]
pub(super) struct CsType {
    /// `class`, `enum` or `union`.
    pub(super) kind: &'static str,
    pub(super) name: String,
    pub(super) doc: Vec<String>,
    pub(super) props: Vec<CsProp>,
    pub(super) members: Vec<CsMember>,
    /// A union's branches, the wire name of the property that tags them,
    /// and the message (a C# string literal) for JSON that is none of them.
    pub(super) branches: Vec<CsBranch>,
    pub(super) tag: Option<String>,
    pub(super) mismatch: String,
}

/// A mapped type: its C# text, whether it is a value type, and the enum it
/// names (for default values).
#[derive(Clone)]
pub(super) struct Mapped {
    pub(super) text: String,
    pub(super) value_type: bool,
    pub(super) enum_members: Option<Vec<(String, String)>>,
}

impl Mapped {
    pub(super) fn plain(text: &str, value_type: bool) -> Mapped {
        Mapped {
            text: text.to_owned(),
            value_type,
            enum_members: None,
        }
    }
}

/// Maps one tool's schemas, lowered ([`Model`]), to C# types.
pub(super) struct Mapper<'a> {
    /// The schema being mapped (its definitions).
    pub(super) model: Option<&'a Model>,
    pub(super) types: Vec<CsType>,
    pub(super) taken: BTreeSet<String>,
    /// Definition name -> its mapped type (inserted before mapping, for recursion).
    pub(super) def_types: BTreeMap<String, Mapped>,
    /// The C# type of `#` (the root being mapped), when it is a class.
    pub(super) root: Option<String>,
    pub(super) depth: usize,
    /// Where on the wire the node being mapped is (`input/properties/a`).
    pub(super) at: String,
    /// The public names given so far: (what, wire position) -> name, for
    /// `toolgen breaking` ([`public_names`]).
    pub(super) names: BTreeMap<(&'static str, String), String>,
}

impl<'a> Mapper<'a> {
    pub(super) fn new(tool_class: &str) -> Mapper<'a> {
        let mut taken: BTreeSet<String> = RESERVED_TYPES.iter().map(|s| (*s).to_owned()).collect();
        taken.insert(tool_class.to_owned());
        Mapper {
            model: None,
            types: Vec::new(),
            taken,
            def_types: BTreeMap::new(),
            root: None,
            depth: 0,
            at: String::new(),
            names: BTreeMap::new(),
        }
    }

    pub(super) fn name_at(&mut self, what: &'static str, at: String, name: &str) {
        self.names
            .entry((what, at))
            .or_insert_with(|| name.to_owned());
    }

    /// Maps `node` at the wire position `at` + `step`.
    pub(super) fn map_at(
        &mut self,
        step: &str,
        node: &Node,
        hint: &str,
        named: Option<String>,
    ) -> Mapped {
        let len = self.at.len();
        self.at.push_str(step);
        let m = self.map(node, hint, named);
        self.at.truncate(len);
        m
    }

    /// A fresh type name based on `hint`.
    pub(super) fn claim(&mut self, hint: &str) -> String {
        let base = ident::pascal(hint);
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    pub(super) fn any() -> Mapped {
        Mapped::plain("JToken", false)
    }

    pub(super) fn scalar(s: Scalar) -> Mapped {
        match s {
            Scalar::String => Mapped::plain("string", false),
            Scalar::Integer => Mapped::plain("long", true),
            Scalar::Number => Mapped::plain("double", true),
            Scalar::Boolean => Mapped::plain("bool", true),
        }
    }

    /// The C# type of `node`; named types are called after `hint`.
    pub(super) fn map(&mut self, node: &Node, hint: &str, named: Option<String>) -> Mapped {
        if self.depth > 64 {
            return Mapper::any();
        }
        self.depth += 1;
        let m = self.map_kind(node, hint, named);
        self.depth -= 1;
        m
    }

    pub(super) fn map_kind(&mut self, node: &Node, hint: &str, named: Option<String>) -> Mapped {
        match &node.kind {
            Kind::Root => self
                .root
                .clone()
                .map_or_else(Mapper::any, |n| Mapped::plain(&n, false)),
            Kind::Ref(name) => self.reference(name),
            Kind::Scalar(s) => Mapper::scalar(*s),
            Kind::Const { value, of } => match value {
                Value::String(_) => Mapper::scalar(Scalar::String),
                Value::Bool(_) => Mapper::scalar(Scalar::Boolean),
                Value::Number(n) if n.is_i64() || n.is_u64() => Mapper::scalar(Scalar::Integer),
                Value::Number(_) => Mapper::scalar(Scalar::Number),
                _ => of.map_or_else(Mapper::any, Mapper::scalar),
            },
            Kind::Enum { values, of } => {
                self.enumeration(values, *of, hint, named, node.description.as_deref())
            }
            Kind::Array(items) => {
                let hint = format!("{}Item", ident::pascal(hint));
                let item = self.map_at("/items", items, &hint, None);
                Mapped::plain(&format!("List<{}>", item.text), false)
            }
            Kind::Object(props) => {
                let name = named.unwrap_or_else(|| self.claim(hint));
                self.class(props, node.description.as_deref(), &name);
                Mapped::plain(&name, false)
            }
            Kind::Map(value) => {
                let hint = format!("{}Value", ident::pascal(hint));
                let value = self.map_at("/additionalProperties", value, &hint, None);
                Mapped::plain(&format!("Dictionary<string, {}>", value.text), false)
            }
            Kind::FreeObject => Mapped::plain("JObject", false),
            Kind::Union(branches) => self
                .union(branches, hint, named, node.description.as_deref())
                .unwrap_or_else(Mapper::any),
            Kind::Any | Kind::Null | Kind::AllOf(_) => Mapper::any(),
        }
    }

    pub(super) fn reference(&mut self, name: &str) -> Mapped {
        if let Some(m) = self.def_types.get(name) {
            return m.clone();
        }
        let Some(def) = self.model.and_then(|m| m.definitions.get(name)) else {
            return Mapper::any();
        };
        // Named types (classes, enums) get the definition's name, claimed
        // before mapping so that recursion finds it.
        let is_class = matches!(def.kind, Kind::Object(_));
        let is_enum =
            matches!(&def.kind, Kind::Enum { values, .. } if values.iter().all(Value::is_string));
        if is_class || is_enum {
            let claimed = self.claim(name);
            if is_class {
                self.def_types
                    .insert(name.to_owned(), Mapped::plain(&claimed, false));
            }
            let m = self.map(def, name, Some(claimed));
            self.def_types.insert(name.to_owned(), m.clone());
            return m;
        }
        // Guard against a definition that refers to itself without a class in between.
        self.def_types.insert(name.to_owned(), Mapper::any());
        let m = self.map(def, name, None);
        self.def_types.insert(name.to_owned(), m.clone());
        m
    }

    pub(super) fn enumeration(
        &mut self,
        values: &[Value],
        ty: Option<Scalar>,
        hint: &str,
        named: Option<String>,
        description: Option<&str>,
    ) -> Mapped {
        if values.is_empty() || !values.iter().all(Value::is_string) {
            return ty.map_or_else(Mapper::any, Mapper::scalar);
        }
        let wires: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        let names = member_names(&wires, None);
        let name = named.unwrap_or_else(|| self.claim(hint));
        let doc = description.map_or_else(
            || vec![format!("Values of <c>{}</c>.", doc_lines(hint).join(" "))],
            doc_lines,
        );
        self.name_at("enum", self.at.clone(), &name);
        for (w, n) in wires.iter().zip(&names) {
            let at = pointer_join(&pointer_join(&self.at, "enum"), w);
            self.name_at("enum member", at, n);
        }
        let members: Vec<CsMember> = wires
            .iter()
            .zip(&names)
            .map(|(w, n)| CsMember {
                wire: string_literal(w),
                name: n.clone(),
                doc: doc_lines(&format!("`{w}`")).join(" "),
            })
            .collect();
        let pairs = wires
            .iter()
            .zip(&names)
            .map(|(w, n)| ((*w).to_owned(), n.clone()))
            .collect();
        self.types.push(CsType {
            kind: "enum",
            name: name.clone(),
            doc,
            props: Vec::new(),
            members,
            branches: Vec::new(),
            tag: None,
            mismatch: String::new(),
        });
        Mapped {
            text: name,
            value_type: true,
            enum_members: Some(pairs),
        }
    }

    /// A union as a class with one property per branch and a converter that
    /// picks the branch: by JSON token type when every branch has its own
    /// (`string | object | array`), else by a tag property whose `const`
    /// differs in every branch (`{"kind": "circle", ...} | {"kind":
    /// "rectangle", ...}`), else by a required property each branch has and
    /// no other declares (`{"path": ..} | {"url": ..}`). `None` (any value)
    /// when nothing tells them apart.
    pub(super) fn union(
        &mut self,
        branches: &[Node],
        hint: &str,
        named: Option<String>,
        description: Option<&str>,
    ) -> Option<Mapped> {
        let model = self.model;
        let resolved: Vec<&Node> = branches
            .iter()
            .map(|b| model.map_or(b, |m| m.resolve(b)))
            .collect();
        let by_token = token_classes(&resolved);
        let tagged = if by_token.is_none() {
            tag_of(&resolved)
        } else {
            None
        };
        let keys = if by_token.is_none() && tagged.is_none() {
            Some(keys_of(&resolved)?)
        } else {
            None
        };
        let name = named.unwrap_or_else(|| self.claim(hint));
        self.name_at("class", self.at.clone(), &name);
        let index = self.types.len();
        self.types.push(CsType {
            kind: "union",
            name: name.clone(),
            doc: description.map_or_else(
                || {
                    vec![format!(
                        "One of several shapes of <c>{}</c>.",
                        doc_lines(hint).join(" ")
                    )]
                },
                doc_lines,
            ),
            props: Vec::new(),
            members: Vec::new(),
            branches: Vec::new(),
            tag: tagged.as_ref().map(|(wire, _)| string_literal(wire)),
            mismatch: string_literal(&match &tagged {
                Some((wire, values)) => format!(
                    "{name}: `{wire}` is none of {}",
                    values
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => format!("{name}: the value is none of its shapes"),
            }),
        });
        let labels: Vec<String> = match (&by_token, &tagged, &keys) {
            (Some(_), _, _) => resolved.iter().map(|b| branch_label(b)).collect(),
            (None, Some((_, values)), _) => values.clone(),
            (None, None, Some(keys)) => keys.clone(),
            (None, None, None) => return None,
        };
        let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let names = member_names(&label_refs, Some(&name));
        let mut out = Vec::new();
        for (i, (branch, member)) in branches.iter().zip(names).enumerate() {
            let hint = format!("{name}{member}");
            let at = format!("{}/oneOf/{i}", self.at);
            self.name_at("branch property", at, &member);
            let mapped = self.map_at(&format!("/oneOf/{i}"), branch, &hint, None);
            let ty = if mapped.value_type {
                format!("{}?", mapped.text)
            } else {
                mapped.text
            };
            let (tokens, tag, doc) = match (&by_token, &tagged, &keys) {
                (Some(t), _, _) => (
                    t[i].clone(),
                    None,
                    format!("The value when it is {}.", kind_words(resolved[i])),
                ),
                (None, Some((wire, values)), _) => (
                    vec!["Object"],
                    Some(string_literal(&values[i])),
                    doc_lines(&format!("The value when `{wire}` is `{}`.", values[i])).join(" "),
                ),
                (None, None, Some(keys)) => (
                    vec!["Object"],
                    None,
                    doc_lines(&format!("The value when it has `{}`.", keys[i])).join(" "),
                ),
                (None, None, None) => return None,
            };
            out.push(CsBranch {
                name: member,
                ty,
                tokens,
                tag,
                key: keys.as_ref().map(|k| string_literal(&k[i])),
                doc,
            });
        }
        if let Some(t) = self.types.get_mut(index) {
            t.branches = out;
        }
        Some(Mapped::plain(&name, false))
    }

    pub(super) fn class(&mut self, props: &[Property], description: Option<&str>, name: &str) {
        // Reserve the slot first so that nested types come after their parent.
        let index = self.types.len();
        self.types.push(CsType {
            kind: "class",
            name: name.to_owned(),
            doc: description.map_or_else(|| vec![format!("The <c>{name}</c> object.")], doc_lines),
            props: Vec::new(),
            members: Vec::new(),
            branches: Vec::new(),
            tag: None,
            mismatch: String::new(),
        });
        self.name_at("class", self.at.clone(), name);
        let wires: Vec<&str> = props.iter().map(|p| p.wire.as_str()).collect();
        let names = member_names(&wires, Some(name));
        let mut out = Vec::new();
        for (prop, prop_name) in props.iter().zip(names) {
            let node = &prop.node;
            let step = pointer_join("/properties", &prop.wire);
            self.name_at("property", format!("{}{step}", self.at), &prop_name);
            let mapped = self.map_at(&step, node, &prop.wire, None);
            // A tag (`"kind": {"const": "circle"}`) holds its value already.
            let fixed = match &node.kind {
                Kind::Const {
                    value: Value::String(c),
                    ..
                } => Some(string_literal(c)),
                _ => None,
            };
            let init = match fixed {
                Some(_) => None,
                None => node.default.as_ref().and_then(|d| default_init(&mapped, d)),
            };
            let nullable = node.nullable;
            let ty = if mapped.value_type && init.is_none() && (!prop.required || nullable) {
                format!("{}?", mapped.text)
            } else {
                mapped.text.clone()
            };
            // An untyped value (`JToken`) may be `null` too.
            let allows_null = nullable || mapped.text == "JToken";
            let required_mode = match (prop.required, allows_null) {
                // Qualified: a member may be named `Required`.
                (true, false) => Some("global::Newtonsoft.Json.Required.Always"),
                (true, true) => Some("global::Newtonsoft.Json.Required.AllowNull"),
                (false, _) => None,
            };
            // Absent, `null` and a value are three things: a flag says which.
            let specified = (!prop.required && nullable && init.is_none())
                .then(|| format!("_{}", lower_first(&prop_name)));
            let doc = node
                .description
                .as_deref()
                .map_or_else(|| doc_lines(&format!("`{}`.", prop.wire)), doc_lines);
            out.push(CsProp {
                wire: string_literal(&prop.wire),
                name: prop_name,
                ty,
                required: prop.required,
                required_mode,
                specified,
                init,
                fixed,
                doc,
            });
        }
        if let Some(t) = self.types.get_mut(index) {
            t.props = out;
        }
    }
}

/// `Body` -> `body`: the name of a property's backing field (after `_`).
pub(super) fn lower_first(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The JSON token types (Newtonsoft's `JTokenType` names) each branch of a
/// union is read from, when no two branches share one; `None` otherwise.
/// With an `integer` and a `number` branch, integers go to the first and
/// other numbers to the second; an `integer` branch alone also takes whole
/// numbers written as floats (`2.0`).
pub(super) fn token_classes(branches: &[&Node]) -> Option<Vec<Vec<&'static str>>> {
    let has_integer = branches
        .iter()
        .any(|b| matches!(b.kind, Kind::Scalar(Scalar::Integer)));
    let has_number = branches
        .iter()
        .any(|b| matches!(b.kind, Kind::Scalar(Scalar::Number)));
    let classes: Vec<Vec<&'static str>> = branches
        .iter()
        .map(|b| match &b.kind {
            Kind::Scalar(Scalar::String) => Some(vec!["String"]),
            Kind::Scalar(Scalar::Boolean) => Some(vec!["Boolean"]),
            Kind::Scalar(Scalar::Integer) if has_number => Some(vec!["Integer"]),
            Kind::Scalar(Scalar::Integer) => Some(vec!["Integer", "Float"]),
            Kind::Scalar(Scalar::Number) if has_integer => Some(vec!["Float"]),
            Kind::Scalar(Scalar::Number) => Some(vec!["Integer", "Float"]),
            Kind::Enum { values, .. } if values.iter().all(Value::is_string) => {
                Some(vec!["String"])
            }
            Kind::Const {
                value: Value::String(_),
                ..
            } => Some(vec!["String"]),
            Kind::Object(_) | Kind::Map(_) | Kind::FreeObject => Some(vec!["Object"]),
            Kind::Array(_) => Some(vec!["Array"]),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut seen = BTreeSet::new();
    let distinct = classes.iter().flatten().all(|t| seen.insert(*t));
    (distinct && classes.len() > 1).then_some(classes)
}

/// The tag of a union of objects: a property every branch has, whose
/// `const` (or one-value `enum`) string differs in every branch; its wire
/// name and each branch's value.
pub(super) fn tag_of(branches: &[&Node]) -> Option<(String, Vec<String>)> {
    let first = branches.first()?;
    let candidates = first.properties().iter().map(|p| p.wire.clone());
    for wire in candidates {
        let values: Option<Vec<String>> = branches
            .iter()
            .map(|b| {
                let p = b.properties().iter().find(|p| p.wire == wire)?;
                match &p.node.kind {
                    Kind::Const {
                        value: Value::String(v),
                        ..
                    } => Some(v.clone()),
                    Kind::Enum { values, .. } => match values.as_slice() {
                        [Value::String(v)] => Some(v.clone()),
                        _ => None,
                    },
                    _ => None,
                }
            })
            .collect();
        if let Some(values) = values {
            let distinct: BTreeSet<&String> = values.iter().collect();
            if distinct.len() == values.len() && values.len() > 1 {
                return Some((wire, values));
            }
        }
    }
    None
}

/// What tells the branches of a union of objects apart when no tag does:
/// for each, the first property it requires that no other branch declares.
pub(super) fn keys_of(branches: &[&Node]) -> Option<Vec<String>> {
    let shapes: Option<Vec<(Vec<&str>, Vec<&str>)>> = branches
        .iter()
        .map(|b| {
            let props = b.properties();
            matches!(b.kind, Kind::Object(_)).then(|| {
                let wires = |required: bool| {
                    (props.iter().filter(|p| !required || p.required))
                        .map(|p| p.wire.as_str())
                        .collect()
                };
                (wires(false), wires(true))
            })
        })
        .collect();
    let keys = crate::schema::distinguishing(&shapes?)?;
    Some(keys.into_iter().map(str::to_owned).collect())
}

/// A branch's member name, after its JSON type (an object's title first).
pub(super) fn branch_label(branch: &Node) -> String {
    match &branch.kind {
        Kind::Scalar(s) => ident::pascal(s.as_str()),
        Kind::Enum { .. } | Kind::Const { .. } => "String".to_owned(),
        Kind::Object(_) => branch.title.clone().unwrap_or_else(|| "Object".to_owned()),
        Kind::Map(_) | Kind::FreeObject => "Object".to_owned(),
        Kind::Array(_) => "Array".to_owned(),
        _ => "Value".to_owned(),
    }
}

/// `a string`, `an object`, ... for docs.
pub(super) fn kind_words(branch: &Node) -> &'static str {
    match &branch.kind {
        Kind::Scalar(Scalar::String) | Kind::Enum { .. } | Kind::Const { .. } => "a string",
        Kind::Scalar(Scalar::Boolean) => "a boolean",
        Kind::Scalar(Scalar::Integer) => "an integer",
        Kind::Scalar(Scalar::Number) => "a number",
        Kind::Array(_) => "an array",
        _ => "an object",
    }
}

/// The C# initializer for a default value, when there is a faithful one.
pub(super) fn default_init(m: &Mapped, d: &Value) -> Option<String> {
    if let Some(members) = &m.enum_members {
        let wire = d.as_str()?;
        let (_, name) = members.iter().find(|(w, _)| w == wire)?;
        return Some(format!("{}.{name}", m.text));
    }
    match (m.text.as_str(), d) {
        ("string", Value::String(s)) => Some(string_literal(s)),
        ("long", Value::Number(n)) => n.as_i64().map(|i| format!("{i}L")),
        ("double", Value::Number(n)) => n.as_f64().map(double_literal),
        ("bool", Value::Bool(b)) => Some(b.to_string()),
        (t, Value::Array(a)) if a.is_empty() && t.starts_with("List<") => {
            Some(format!("new {t}()"))
        }
        _ => None,
    }
}
