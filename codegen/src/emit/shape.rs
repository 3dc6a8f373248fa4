//! One lowered model of a tool's schemas, built once from the bundled JSON
//! Schema, that the C# and docs emitters read (the Rust emitter hands the
//! schema to typify instead).
//!
//! JSON Schema says the same thing many ways (`["string", "null"]`, `anyOf`
//! with a null branch, a one-element `allOf`, `properties` without `type`);
//! the model says it once: a [`Node`] is a [`Kind`] (any, null, a scalar, a
//! constant, an enum, an array, a map, an object, a union, an intersection, a
//! reference) with what every kind may carry (nullable, description, default,
//! bounds). Emitters decide what to make of each kind; the model decides
//! nothing for them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::schema::{Ranks, pointer_join, strings};

/// A JSON scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    String,
    Integer,
    Number,
    Boolean,
}

impl Scalar {
    fn parse(t: &str) -> Option<Scalar> {
        match t {
            "string" => Some(Scalar::String),
            "integer" => Some(Scalar::Integer),
            "number" => Some(Scalar::Number),
            "boolean" => Some(Scalar::Boolean),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scalar::String => "string",
            Scalar::Integer => "integer",
            Scalar::Number => "number",
            Scalar::Boolean => "boolean",
        }
    }
}

/// What a value of a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Any JSON value (no type declared).
    Any,
    /// Only `null`.
    Null,
    Scalar(Scalar),
    /// Exactly this value (`const`), of the declared scalar type if any.
    Const {
        value: Value,
        of: Option<Scalar>,
    },
    /// One of these values (`enum`), of the declared scalar type if any.
    Enum {
        values: Vec<Value>,
        of: Option<Scalar>,
    },
    /// An array of the item node (any values when `items` is absent).
    Array(Box<Node>),
    /// An object used as a string-keyed map of the value node.
    Map(Box<Node>),
    /// An object with declared properties, in name order.
    Object(Vec<Property>),
    /// An object with no declared properties: any members.
    FreeObject,
    /// One of several shapes (`anyOf`, `oneOf`, or several non-null types).
    Union(Vec<Node>),
    /// All of several shapes (`allOf` of more than one).
    AllOf(Vec<Node>),
    /// A definition of the tool's schema, by name (`#/$defs/Name`).
    Ref(String),
    /// The tool's root schema (`#`), for recursion.
    Root,
}

/// A member of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The name on the wire, as written.
    pub wire: String,
    pub required: bool,
    pub node: Node,
}

/// A lowered schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: Kind,
    /// `null` is allowed besides the kind.
    pub nullable: bool,
    /// `nullable` comes from a type list (`["string", "null"]`), not a union.
    pub null_in_type: bool,
    pub description: Option<String>,
    pub title: Option<String>,
    pub default: Option<Value>,
    pub minimum: Option<Value>,
    pub maximum: Option<Value>,
    /// What else the schema says of the value, for people: `examples`,
    /// `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`,
    /// `pattern`, `format`, `minItems`, `maxItems`, and a default JSON cannot
    /// hold (`x-r-default`, R's `NA`).
    pub facts: Vec<(&'static str, Value)>,
}

/// The keywords kept in [`Node::facts`] besides the shared value constraints
/// ([`crate::schema::VALUE_CONSTRAINTS`] but the bounds, which have fields).
const MORE_FACTS: &[&str] = &["examples", "x-r-default", "additionalProperties"];

impl Node {
    fn of(kind: Kind) -> Node {
        Node {
            kind,
            nullable: false,
            null_in_type: false,
            description: None,
            title: None,
            default: None,
            minimum: None,
            maximum: None,
            facts: Vec::new(),
        }
    }

    /// The object's properties; empty for any other kind.
    pub fn properties(&self) -> &[Property] {
        match &self.kind {
            Kind::Object(p) => p,
            _ => &[],
        }
    }
}

/// A tool's schema (input or output), lowered: the root and the definitions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    pub root: Option<Node>,
    pub definitions: BTreeMap<String, Node>,
}

impl Model {
    /// Lowers a bundled schema, properties in the order the spec wrote them;
    /// `Value::Null` (no schema) has no root.
    pub fn new(schema: &crate::ir::Schema) -> Model {
        Model::of(&schema.value, schema)
    }

    /// Lowers `schema`, ordering properties by `ranks`.
    pub fn of(schema: &Value, ranks: &dyn Ranks) -> Model {
        if schema.is_null() {
            return Model::default();
        }
        let cx = Cx { ranks };
        let definitions = schema
            .get("$defs")
            .and_then(Value::as_object)
            .map(|defs| {
                defs.iter()
                    .map(|(k, v)| (k.clone(), cx.lower(v, &pointer_join("/$defs", k), 0)))
                    .collect()
            })
            .unwrap_or_default();
        Model {
            root: Some(cx.lower(schema, "", 0)),
            definitions,
        }
    }

    /// The node a reference names, followed through references (a bounded
    /// number of hops, so that a loop ends).
    pub fn resolve<'m>(&'m self, mut node: &'m Node) -> &'m Node {
        for _ in 0..16 {
            match &node.kind {
                Kind::Ref(name) => match self.definitions.get(name) {
                    Some(n) => node = n,
                    None => break,
                },
                Kind::Root => match &self.root {
                    Some(r) if !std::ptr::eq(r, node) => node = r,
                    _ => break,
                },
                _ => break,
            }
        }
        node
    }
}

/// Deeper than this, a schema is lowered as any value (the validator has
/// limited nesting already; this keeps every walk finite).
const MAX_DEPTH: usize = 64;

#[cfg(test)]
/// Lowers one schema with no order but names (for tests and derived schemas).
pub fn lower(schema: &Value, depth: usize) -> Node {
    Cx {
        ranks: &|_: &str| None,
    }
    .lower(schema, "", depth)
}

/// The lowering of one schema: where its parts were written, for order.
struct Cx<'a> {
    ranks: &'a dyn Ranks,
}

impl Cx<'_> {
    /// Lowers the schema at `ptr`.
    fn lower(&self, schema: &Value, ptr: &str, depth: usize) -> Node {
        let Value::Object(s) = schema else {
            return Node::of(Kind::Any);
        };
        let mut node = if depth > MAX_DEPTH {
            Node::of(Kind::Any)
        } else {
            self.lower_kind(s, ptr, depth)
        };
        let text = |k: &str| s.get(k).and_then(Value::as_str).map(str::to_owned);
        // What the schema itself says wins over what a branch it wraps says.
        node.description = text("description").or(node.description);
        node.title = text("title").or(node.title);
        node.default = s.get("default").cloned().or(node.default);
        node.minimum = s.get("minimum").cloned().or(node.minimum);
        node.maximum = s.get("maximum").cloned().or(node.maximum);
        let keys = crate::schema::VALUE_CONSTRAINTS
            .iter()
            .filter(|k| !matches!(**k, "minimum" | "maximum"))
            .chain(MORE_FACTS);
        for key in keys {
            if let Some(v) = s.get(*key) {
                node.facts.retain(|(k, _)| k != key);
                node.facts.push((key, v.clone()));
            }
        }
        node
    }

    fn lower_kind(&self, s: &Map<String, Value>, ptr: &str, depth: usize) -> Node {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            return Node::of(match r {
                "#" => Kind::Root,
                _ => crate::schema::def_name(r).map_or(Kind::Any, Kind::Ref),
            });
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = s.get(key) {
                return self.union(options, &pointer_join(ptr, key), depth);
            }
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            let at = |i: usize| pointer_join(&pointer_join(ptr, "allOf"), &i.to_string());
            return match all.as_slice() {
                [one] => self.lower(one, &at(0), depth + 1),
                _ => Node::of(Kind::AllOf(
                    all.iter()
                        .enumerate()
                        .map(|(i, a)| self.lower(a, &at(i), depth + 1))
                        .collect(),
                )),
            };
        }
        let (scalar, types, nullable) = declared_types(s);
        let mut node = Node::of(self.shape(s, scalar, &types, ptr, depth));
        node.nullable = nullable;
        node.null_in_type = nullable;
        node
    }

    /// The branches of `anyOf`/`oneOf` (at `ptr`): `null` branches make the
    /// node nullable; one other branch is the node itself.
    fn union(&self, options: &[Value], ptr: &str, depth: usize) -> Node {
        let is_null = |o: &Value| o.get("type").and_then(Value::as_str) == Some("null");
        let nullable = options.iter().any(is_null);
        let others: Vec<(String, &Value)> = options
            .iter()
            .enumerate()
            .filter(|(_, o)| !is_null(o))
            .map(|(i, o)| (pointer_join(ptr, &i.to_string()), o))
            .collect();
        let mut node = match others.as_slice() {
            [] => Node::of(Kind::Null),
            [(p, one)] => self.lower(one, p, depth + 1),
            _ => Node::of(Kind::Union(
                others
                    .iter()
                    .map(|(p, o)| self.lower(o, p, depth + 1))
                    .collect(),
            )),
        };
        node.nullable |= nullable;
        node
    }

    fn shape(
        &self,
        s: &Map<String, Value>,
        ty: Option<&str>,
        types: &[&str],
        ptr: &str,
        depth: usize,
    ) -> Kind {
        let of = ty.and_then(Scalar::parse);
        if let Some(value) = s.get("const") {
            return Kind::Const {
                value: value.clone(),
                of,
            };
        }
        if let Some(Value::Array(values)) = s.get("enum") {
            return Kind::Enum {
                values: values.clone(),
                of,
            };
        }
        if types.len() > 1 {
            let branches = types
                .iter()
                .map(|t| {
                    let mut one = s.clone();
                    one.insert("type".into(), Value::from(*t));
                    one.remove("description");
                    self.lower(&Value::Object(one), ptr, depth + 1)
                })
                .collect();
            return Kind::Union(branches);
        }
        let ty = ty.or_else(|| s.contains_key("properties").then_some("object"));
        match ty {
            Some("null") => Kind::Null,
            Some("array") => Kind::Array(Box::new(match s.get("items") {
                Some(items @ Value::Object(_)) => {
                    self.lower(items, &pointer_join(ptr, "items"), depth + 1)
                }
                _ => Node::of(Kind::Any),
            })),
            Some("object") => self.object(s, ptr, depth),
            Some(t) => Scalar::parse(t).map_or(Kind::Any, Kind::Scalar),
            None => Kind::Any,
        }
    }

    fn object(&self, s: &Map<String, Value>, ptr: &str, depth: usize) -> Kind {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(props) = props.filter(|p| !p.is_empty()) {
            let required = strings(s.get("required"));
            let base = pointer_join(ptr, "properties");
            let rank = |p: &str| self.ranks.rank(p);
            return Kind::Object(
                crate::schema::property_order(props, &base, &rank)
                    .into_iter()
                    .map(|wire| Property {
                        wire: wire.clone(),
                        required: required.contains(&wire.as_str()),
                        node: self.lower(
                            &props[wire.as_str()],
                            &pointer_join(&base, wire),
                            depth + 1,
                        ),
                    })
                    .collect(),
            );
        }
        match s.get("additionalProperties") {
            Some(v @ Value::Object(_)) => Kind::Map(Box::new(self.lower(
                v,
                &pointer_join(ptr, "additionalProperties"),
                depth + 1,
            ))),
            _ => Kind::FreeObject,
        }
    }
}

/// The one non-null scalar type declared (if exactly one), every non-null
/// type, and whether `null` is among them.
fn declared_types(s: &Map<String, Value>) -> (Option<&str>, Vec<&str>, bool) {
    match s.get("type") {
        Some(Value::String(t)) => (Some(t.as_str()), vec![t.as_str()], false),
        Some(Value::Array(ts)) => {
            let all: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            let non_null: Vec<&str> = all.iter().copied().filter(|t| *t != "null").collect();
            let one = (non_null.len() == 1).then(|| non_null[0]);
            (one, non_null, all.contains(&"null"))
        }
        _ => (None, Vec::new(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_shape_however_it_is_written() {
        let nullable_string = [
            json!({"type": ["string", "null"]}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"oneOf": [{"type": "null"}, {"allOf": [{"type": "string"}]}]}),
        ];
        for s in nullable_string {
            let n = lower(&s, 0);
            assert_eq!(n.kind, Kind::Scalar(Scalar::String), "{s}");
            assert!(n.nullable, "{s}");
        }
        let obj = lower(
            &json!({"properties": {"b": {"type": "integer"}, "a": {}}, "required": ["b"]}),
            0,
        );
        let props: Vec<(&str, bool)> = obj
            .properties()
            .iter()
            .map(|p| (p.wire.as_str(), p.required))
            .collect();
        assert_eq!(props, [("a", false), ("b", true)]);
        assert_eq!(
            lower(
                &json!({"type": "object", "additionalProperties": {"type": "number"}}),
                0
            )
            .kind,
            Kind::Map(Box::new(Node::of(Kind::Scalar(Scalar::Number))))
        );
        assert!(
            matches!(lower(&json!({"type": ["string", "integer"]}), 0).kind, Kind::Union(u) if u.len() == 2)
        );
    }

    #[test]
    fn references_resolve_and_loops_end() {
        let m = Model::of(
            &json!({
                "properties": {"next": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}, "C": {"$ref": "#"}}
            }),
            &|_: &str| None,
        );
        let next = &m.root.as_ref().map(|r| r.properties()[0].node.clone());
        let Some(next) = next else { panic!("no root") };
        assert!(matches!(m.resolve(next).kind, Kind::Ref(_)), "a loop ends");
        let c = &m.definitions["C"];
        assert!(matches!(m.resolve(c).kind, Kind::Object(_)));
    }
}
