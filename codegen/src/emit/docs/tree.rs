//! A schema's shape as a nested Markdown list, for inputs and outputs alike:
//! every property at every depth (objects, arrays of objects, maps, each
//! variant of a union), with its type, whether it is required, its
//! description, and what else the schema says of it (default, allowed
//! values, bounds, examples). A definition met again inside itself is named,
//! not repeated. A list reads on a phone as on a wide screen, where a table
//! of every column would be clipped.

use serde_json::Value;

use super::markdown::{code, markdown_inline};
use crate::emit::shape::{Kind, Model, Node, Scalar};

/// How deep nested shapes are listed; deeper ones are named.
const MAX_DEPTH: usize = 8;

/// A short type description of a node (`string`, `array of integer`, `Node`,
/// `string or null`, ...).
pub fn type_of(node: &Node) -> String {
    let base = match &node.kind {
        Kind::Const { value, .. } => return format!("always {value}"),
        Kind::Ref(name) => name.clone(),
        Kind::Root => "the whole value".to_owned(),
        Kind::Scalar(s) => s.as_str().to_owned(),
        Kind::Enum { of, .. } => of.map_or("one of the values", Scalar::as_str).to_owned(),
        Kind::Null => "null".to_owned(),
        Kind::Array(items) => format!("array of {}", type_of(items)),
        Kind::Map(value) => format!("map of string to {}", type_of(value)),
        Kind::Object(_) | Kind::FreeObject => "object".to_owned(),
        Kind::Union(branches) if branches.iter().all(|b| matches!(b.kind, Kind::Scalar(_))) => {
            branches
                .iter()
                .map(type_of)
                .collect::<Vec<_>>()
                .join(" or ")
        }
        Kind::Union(branches) => format!("one of {} shapes", branches.len()),
        Kind::AllOf(_) => "all of several shapes".to_owned(),
        Kind::Any => "any".to_owned(),
    };
    if node.nullable && !matches!(node.kind, Kind::Null | Kind::Any) {
        format!("{base} or null")
    } else {
        base
    }
}

/// What a schema says of a value besides its type, as one line of facts.
fn facts(node: &Node) -> Vec<String> {
    let json = |v: &Value| code(&v.to_string());
    let mut out = Vec::new();
    if let Some(d) = &node.default {
        out.push(format!("default {}", json(d)));
    }
    match &node.kind {
        Kind::Enum { values, .. } => {
            let vs: Vec<String> = values.iter().map(json).collect();
            out.push(format!("one of {}", vs.join(", ")));
        }
        Kind::Const { value, .. } => out.push(format!("always {}", json(value))),
        _ => {}
    }
    match (&node.minimum, &node.maximum) {
        (Some(a), Some(b)) => out.push(format!("from {} to {}", json(a), json(b))),
        (Some(a), None) => out.push(format!("at least {}", json(a))),
        (None, Some(b)) => out.push(format!("at most {}", json(b))),
        (None, None) => {}
    }
    for (key, v) in &node.facts {
        out.push(match *key {
            "exclusiveMinimum" => format!("more than {}", json(v)),
            "exclusiveMaximum" => format!("less than {}", json(v)),
            "minLength" => format!("at least {} characters", json(v)),
            "maxLength" => format!("at most {} characters", json(v)),
            "minItems" => format!("at least {} items", json(v)),
            "maxItems" => format!("at most {} items", json(v)),
            "uniqueItems" if v == &Value::Bool(true) => "no two items alike".to_owned(),
            "uniqueItems" => continue,
            "pattern" => format!("matches {}", code(v.as_str().unwrap_or_default())),
            "format" => format!("format {}", code(v.as_str().unwrap_or_default())),
            "examples" => {
                let vs: Vec<String> = v.as_array().into_iter().flatten().map(json).collect();
                format!("for example {}", vs.join(", "))
            }
            "x-r-default" => format!(
                "default in R {} (JSON has no such value)",
                code(v.as_str().unwrap_or_default())
            ),
            "additionalProperties" if v == &Value::Bool(false) => "no other members".to_owned(),
            "additionalProperties" => continue,
            other => format!("{other} {}", json(v)),
        });
    }
    out
}

/// Renders trees, following references in `model`.
pub struct Tree<'m> {
    model: &'m Model,
    out: String,
    /// Definitions being listed, outermost first (a recursion names them).
    open: Vec<String>,
}

impl<'m> Tree<'m> {
    pub fn new(model: &'m Model) -> Tree<'m> {
        Tree {
            model,
            out: String::new(),
            open: Vec::new(),
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    /// The members of `node` (an object's properties, a union's variants),
    /// or what its items or values hold, at `depth`.
    pub fn members(&mut self, node: &Node, depth: usize) {
        let model = self.model;
        let target = model.resolve(node);
        let name = match &node.kind {
            Kind::Ref(n) => Some(n.clone()),
            Kind::Root => Some("#".to_owned()),
            _ => None,
        };
        if let Some(n) = &name {
            if self.open.contains(n) {
                let indent = "  ".repeat(depth);
                let what = if n == "#" {
                    "the whole value".to_owned()
                } else {
                    code(n)
                };
                self.out.push_str(&format!(
                    "{indent}- … the same shape as {what} above (it holds itself)\n"
                ));
                return;
            }
            self.open.push(n.clone());
        }
        if depth <= MAX_DEPTH {
            match &target.kind {
                Kind::Object(props) => {
                    for p in props {
                        self.item(&p.wire, p.required, &p.node, depth);
                    }
                }
                Kind::Array(items) => self.members(items, depth),
                Kind::Map(value) => self.item("<any key>", false, value, depth),
                Kind::Union(branches) => self.variants(branches, depth),
                Kind::AllOf(parts) => parts.iter().for_each(|p| self.members(p, depth)),
                _ => {}
            }
        }
        if name.is_some() {
            self.open.pop();
        }
    }

    /// One property (or map entry): name, type, required, description, facts,
    /// then what it holds.
    fn item(&mut self, wire: &str, required: bool, node: &Node, depth: usize) {
        let indent = "  ".repeat(depth);
        let target = self.model.resolve(node);
        let suffix = match target.kind {
            Kind::Array(_) => "[]",
            _ => "",
        };
        let name = if wire == "<any key>" {
            "<em>any key</em>".to_owned()
        } else {
            code(&format!("{wire}{suffix}"))
        };
        let description = node
            .description
            .as_deref()
            .or(target.description.as_deref())
            .unwrap_or("");
        let mut line = format!(
            "{indent}- {name} <em>{}{}</em>",
            markdown_inline(&type_of(node)),
            if required { ", required" } else { "" }
        );
        if !description.is_empty() {
            line.push_str(&format!(": {}", markdown_inline(description)));
        }
        let mut f = facts(node);
        if !std::ptr::eq(node, target) {
            for x in facts(target) {
                if !f.contains(&x) {
                    f.push(x);
                }
            }
        }
        if !f.is_empty() {
            line.push_str(&format!("<br>{}", f.join(" · ")));
        }
        self.out.push_str(&line);
        self.out.push('\n');
        self.members(node, depth + 1);
    }

    /// The variants of a union, each named by its tag (a property whose
    /// value is constant), its title, or its type.
    fn variants(&mut self, branches: &[Node], depth: usize) {
        let indent = "  ".repeat(depth);
        for (i, branch) in branches.iter().enumerate() {
            let target = self.model.resolve(branch);
            let tag = target.properties().iter().find_map(|p| match &p.node.kind {
                Kind::Const { value, .. } => Some(format!("{} = {value}", p.wire)),
                _ => None,
            });
            let label = tag
                .map(|t| code(&t))
                .or_else(|| target.title.as_deref().map(markdown_inline))
                .unwrap_or_else(|| format!("shape {}", i + 1));
            let description = target
                .description
                .as_deref()
                .map(|d| format!(": {}", markdown_inline(d)))
                .unwrap_or_default();
            self.out.push_str(&format!(
                "{indent}- {label} <em>{}</em>{description}\n",
                markdown_inline(&type_of(branch))
            ));
            self.members(branch, depth + 1);
        }
    }
}

/// Whether an object with no declared properties takes members anyway (no
/// `additionalProperties: false`): the shape model calls both "free".
fn members_allowed(node: &Node) -> bool {
    !node
        .facts
        .iter()
        .any(|(k, v)| *k == "additionalProperties" && v == &Value::Bool(false))
}

/// A schema's whole shape: its description, then its members, or its type
/// when it has none (a string, a number); `empty` when it is an object that
/// holds nothing (or no schema at all).
pub fn section(model: &Model, empty: &str) -> String {
    let Some(top) = &model.root else {
        return format!("{empty}\n");
    };
    let root = model.resolve(top);
    let mut out = String::new();
    if let Some(d) = root.description.as_deref().or(top.description.as_deref()) {
        out.push_str(&super::markdown::markdown(d));
        out.push_str("\n\n");
    }
    let mut tree = Tree::new(model);
    // The root is open: a `$ref` to `#` inside it names it.
    tree.open.push("#".to_owned());
    if let Kind::Union(branches) = &root.kind {
        out.push_str(&format!("One of {} shapes:\n\n", branches.len()));
    }
    tree.members(top, 0);
    let listed = tree.finish();
    if listed.is_empty()
        && matches!(root.kind, Kind::FreeObject | Kind::Object(_))
        && !members_allowed(root)
    {
        out.push_str(&format!("{empty}\n"));
    } else if listed.is_empty() {
        let f = facts(root);
        out.push_str(&format!(
            "A value of type <em>{}</em>",
            markdown_inline(&type_of(root))
        ));
        if !f.is_empty() {
            out.push_str(&format!(" ({})", f.join(" · ")));
        }
        out.push_str(".\n");
    } else {
        out.push_str(&listed);
    }
    out
}
