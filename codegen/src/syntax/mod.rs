//! A spanned document tree shared by every input syntax (JSON and YAML).
//!
//! Parsers produce [`Node`]s that carry the byte span of every value and key;
//! format readers walk them, so every value they put into the IR keeps a
//! location. [`Node::to_json`] drops the spans when a plain value is needed.

pub mod json;
pub mod yaml;

use serde_json::{Map, Number, Value};

use crate::diag::Diagnostic;
pub use crate::schema::{pointer_join, push_pointer_token};
use crate::source::{FileId, Loc, Span};

/// Objects and arrays may be nested at most this deep.
pub const MAX_DEPTH: usize = 128;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// One `key: value` pair of an object, in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

/// The JSON type of a node, as used in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    pub fn article_name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        }
    }
}

impl Node {
    /// Its first character (an object's `{`): where a field missing from it
    /// is reported.
    pub fn opening(&self) -> Span {
        let start = self.span.start as usize;
        Span::new(start, start + 1)
    }

    pub fn json_type(&self) -> JsonType {
        match self.kind {
            NodeKind::Null => JsonType::Null,
            NodeKind::Bool(_) => JsonType::Boolean,
            NodeKind::Number(_) => JsonType::Number,
            NodeKind::String(_) => JsonType::String,
            NodeKind::Array(_) => JsonType::Array,
            NodeKind::Object(_) => JsonType::Object,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[Member]> {
        match &self.kind {
            NodeKind::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The first member named `key`, if this is an object.
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.as_object()?.iter().find(|m| m.key == key)
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.member(key).map(|m| &m.value)
    }

    /// The plain JSON value, without spans. Duplicate keys keep the first value.
    pub fn to_json(&self) -> Value {
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Number(n) => Value::Number(n.clone()),
            NodeKind::String(s) => Value::String(s.clone()),
            NodeKind::Array(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Object(members) => {
                let mut map = Map::new();
                for m in members {
                    map.entry(m.key.clone())
                        .or_insert_with(|| m.value.to_json());
                }
                Value::Object(map)
            }
        }
    }

    /// Calls `f` with the JSON pointer and node of this node and every descendant.
    pub fn walk(&self, pointer: &mut String, f: &mut impl FnMut(&str, &Node)) {
        f(pointer, self);
        let len = pointer.len();
        match &self.kind {
            NodeKind::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    item.walk(pointer, f);
                    pointer.truncate(len);
                }
            }
            NodeKind::Object(members) => {
                for m in members {
                    pointer.push('/');
                    push_pointer_token(pointer, &m.key);
                    m.value.walk(pointer, f);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
}

/// The result of parsing one file: the tree (if the text was well-formed enough
/// to build one) and every problem found on the way.
pub struct Parsed {
    pub root: Option<Node>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A parse failure at a byte offset, before it is attached to a file.
#[derive(Debug)]
pub(crate) struct RawError {
    pub rule: &'static crate::diag::Rule,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl RawError {
    pub(crate) fn into_diagnostic(self, file: FileId) -> Diagnostic {
        Diagnostic::at(self.rule, Loc::new(file, self.span), self.message).maybe_help(self.help)
    }
}
