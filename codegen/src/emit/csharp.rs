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

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::shape::{Kind, Model, Node, Property, Scalar};
use crate::ident;
use crate::ir::{Project, Tool, ToolSet};
use crate::schema::{pointer_join, strings};

/// The C# emitter: it renders the run's templates (built-ins and overrides).
#[derive(Debug, Default)]
pub struct CSharp;

/// Names the generated code uses unqualified inside a tool's class, so no
/// nested type may take them.
const RESERVED_TYPES: &[&str] = &[
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
const RESERVED_MEMBERS: &[&str] = &[
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
fn member_names(wires: &[&str], owner: Option<&str>) -> Vec<String> {
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
fn code_spans(line: &str) -> String {
    super::markup::render_line(line, str::to_owned, str::to_owned, ("<c>", "</c>"))
}

fn double_literal(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

#[derive(Serialize)]
struct CsProp {
    wire: String,
    name: String,
    #[serde(rename = "type")]
    ty: String,
    required: bool,
    /// `Required.Always` (required), `Required.AllowNull` (required and
    /// nullable: it must be there, `null` or not); `None` when optional.
    required_mode: Option<&'static str>,
    /// For an optional property that allows `null`: the backing field of a
    /// property whose `<Name>Specified` flag tells absent from `null`.
    specified: Option<String>,
    init: Option<String>,
    /// A `const` string: a read-only property that always holds it, so that
    /// no value the schema forbids can be set (written out, never read in).
    fixed: Option<String>,
    doc: Vec<String>,
}

/// One branch of a union: the property holding it, its C# type, and what
/// tells it apart (the JSON token types, the tag's value, or a property only
/// it has).
#[derive(Serialize)]
struct CsBranch {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    tokens: Vec<&'static str>,
    tag: Option<String>,
    key: Option<String>,
    doc: String,
}

#[derive(Serialize)]
struct CsMember {
    wire: String,
    name: String,
    doc: String,
}

#[derive(Serialize)]
struct CsType {
    /// `class`, `enum` or `union`.
    kind: &'static str,
    name: String,
    doc: Vec<String>,
    props: Vec<CsProp>,
    members: Vec<CsMember>,
    /// A union's branches, the wire name of the property that tags them,
    /// and the message (a C# string literal) for JSON that is none of them.
    branches: Vec<CsBranch>,
    tag: Option<String>,
    mismatch: String,
}

/// A mapped type: its C# text, whether it is a value type, and the enum it
/// names (for default values).
#[derive(Clone)]
struct Mapped {
    text: String,
    value_type: bool,
    enum_members: Option<Vec<(String, String)>>,
}

impl Mapped {
    fn plain(text: &str, value_type: bool) -> Mapped {
        Mapped {
            text: text.to_owned(),
            value_type,
            enum_members: None,
        }
    }
}

/// Maps one tool's schemas, lowered ([`Model`]), to C# types.
struct Mapper<'a> {
    /// The schema being mapped (its definitions).
    model: Option<&'a Model>,
    types: Vec<CsType>,
    taken: BTreeSet<String>,
    /// Definition name -> its mapped type (inserted before mapping, for recursion).
    def_types: BTreeMap<String, Mapped>,
    /// The C# type of `#` (the root being mapped), when it is a class.
    root: Option<String>,
    depth: usize,
    /// Where on the wire the node being mapped is (`input/properties/a`).
    at: String,
    /// The public names given so far: (what, wire position) -> name, for
    /// `toolgen breaking` ([`public_names`]).
    names: BTreeMap<(&'static str, String), String>,
}

impl<'a> Mapper<'a> {
    fn new(tool_class: &str) -> Mapper<'a> {
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

    fn name_at(&mut self, what: &'static str, at: String, name: &str) {
        self.names
            .entry((what, at))
            .or_insert_with(|| name.to_owned());
    }

    /// Maps `node` at the wire position `at` + `step`.
    fn map_at(&mut self, step: &str, node: &Node, hint: &str, named: Option<String>) -> Mapped {
        let len = self.at.len();
        self.at.push_str(step);
        let m = self.map(node, hint, named);
        self.at.truncate(len);
        m
    }

    /// A fresh type name based on `hint`.
    fn claim(&mut self, hint: &str) -> String {
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

    fn any() -> Mapped {
        Mapped::plain("JToken", false)
    }

    fn scalar(s: Scalar) -> Mapped {
        match s {
            Scalar::String => Mapped::plain("string", false),
            Scalar::Integer => Mapped::plain("long", true),
            Scalar::Number => Mapped::plain("double", true),
            Scalar::Boolean => Mapped::plain("bool", true),
        }
    }

    /// The C# type of `node`; named types are called after `hint`.
    fn map(&mut self, node: &Node, hint: &str, named: Option<String>) -> Mapped {
        if self.depth > 64 {
            return Mapper::any();
        }
        self.depth += 1;
        let m = self.map_kind(node, hint, named);
        self.depth -= 1;
        m
    }

    fn map_kind(&mut self, node: &Node, hint: &str, named: Option<String>) -> Mapped {
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

    fn reference(&mut self, name: &str) -> Mapped {
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

    fn enumeration(
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
    fn union(
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

    fn class(&mut self, props: &[Property], description: Option<&str>, name: &str) {
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
fn lower_first(name: &str) -> String {
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
fn token_classes(branches: &[&Node]) -> Option<Vec<Vec<&'static str>>> {
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
fn tag_of(branches: &[&Node]) -> Option<(String, Vec<String>)> {
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
fn keys_of(branches: &[&Node]) -> Option<Vec<String>> {
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
fn branch_label(branch: &Node) -> String {
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
fn kind_words(branch: &Node) -> &'static str {
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
fn default_init(m: &Mapped, d: &Value) -> Option<String> {
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

/// A tool set's registry. With the cache and the built-in templates, each
/// tool's entry is rendered on its own (the entry template, which the
/// registry includes per tool) and kept by the tool's piece key, and the
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
    if let Some((cache, _)) = cx.cache.filter(|_| builtin) {
        let stand_in = CsSpec::stand_in();
        let mark = templates.render(REGISTRY_ENTRY, EntryContext { t: &stand_in })?;
        ctx.set.tools = vec![stand_in];
        let framed = templates.render(REGISTRY, &ctx)?;
        if let Some((head, tail)) = framed
            .split_once(&mark)
            .filter(|(_, tail)| !mark.is_empty() && !tail.contains(&mark))
        {
            // The kept entries read into their place in the file (about a
            // megabyte for 1,000 tools), the others rendered.
            let mut parts = Vec::with_capacity(set.tools.len() + 2);
            parts.push(super::context::Part::Text(head.as_bytes().into()));
            for (i, tool) in set.tools.iter().enumerate() {
                // The entry follows from the tool and the set's settings (its
                // time limit): what the piece key covers, with the templates.
                let piece = cx.cached_piece(set, i, |h| {
                    h.str("csharp registry entry").digest(templates.digest());
                });
                parts.push(super::context::Part::of(piece, || {
                    let spec = spec(tool, set.timeout_of(tool));
                    templates.render(REGISTRY_ENTRY, EntryContext { t: &spec })
                })?);
            }
            parts.push(super::context::Part::Text(tail.as_bytes().into()));
            // A piece damaged since it was looked up: rendered whole below.
            let text = super::context::assemble(Some(cache), &parts)
                .and_then(|t| String::from_utf8(t).ok());
            if let Some(text) = text {
                return Ok(text);
            }
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
                let piece = cx.cached_piece(set, i, |h| {
                    h.str("csharp tool file").str(class);
                });
                out.render_piece(
                    piece,
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
