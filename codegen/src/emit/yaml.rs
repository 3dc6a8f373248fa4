//! A small block-style YAML writer for JSON values.
//!
//! Output is valid YAML 1.2 and reads back to the same value under YAML 1.1
//! too: strings are written plain only when no YAML version could read them as
//! anything but that string (so `yes`, `no`, `~`, `1.0`, `0x1F` are quoted);
//! multi-line strings become literal blocks (`|`) when that is exact, and
//! double-quoted JSON strings otherwise.

use std::fmt::Write as _;

use serde_json::Value;

/// A JSON value whose object members are in a chosen order (a `Value`'s
/// are sorted): what the writer writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    Scalar(Value),
    Seq(Vec<Tree>),
    Map(Vec<(String, Tree)>),
    /// A YAML word written as it is, unquoted (R's `.na.real`, `.inf`).
    Plain(String),
}

impl From<&Value> for Tree {
    /// The value, members sorted by key.
    fn from(v: &Value) -> Tree {
        match v {
            Value::Array(a) if !a.is_empty() => Tree::Seq(a.iter().map(Tree::from).collect()),
            Value::Object(m) if !m.is_empty() => {
                Tree::Map(m.iter().map(|(k, v)| (k.clone(), Tree::from(v))).collect())
            }
            other => Tree::Scalar(other.clone()),
        }
    }
}

impl Tree {
    /// Sets the member at a JSON pointer (`/properties/a/default`), adding
    /// it (last) to its object when it is not there; `false` when its
    /// parent is not there.
    pub fn set(&mut self, pointer: &str, value: Tree) -> bool {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            return false;
        };
        let unescape = |t: &str| t.replace("~1", "/").replace("~0", "~");
        let mut t = self;
        for token in parent.split('/').skip(1) {
            let token = unescape(token);
            let next = match t {
                Tree::Map(m) => m.iter_mut().find(|(k, _)| *k == token).map(|(_, v)| v),
                Tree::Seq(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
                _ => None,
            };
            match next {
                Some(n) => t = n,
                None => return false,
            }
        }
        let key = unescape(last);
        match t {
            Tree::Map(m) => match m.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => *v = value,
                None => m.push((key, value)),
            },
            Tree::Seq(items) => match key.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                Some(v) => *v = value,
                None => return false,
            },
            _ => return false,
        }
        true
    }

    /// `value` as it serializes, members in the order it writes them (a
    /// [`crate::schema::Ordered`] schema: properties in spec order).
    pub fn of(value: &impl serde::Serialize) -> Tree {
        serde_json::to_string(value)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Tree::Scalar(Value::Null))
    }
}

impl<'de> serde::Deserialize<'de> for Tree {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tree, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Tree;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Tree, A::Error> {
                let mut items = Vec::new();
                while let Some(t) = a.next_element()? {
                    items.push(t);
                }
                Ok(if items.is_empty() {
                    Tree::Scalar(Value::Array(Vec::new()))
                } else {
                    Tree::Seq(items)
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Tree, A::Error> {
                let mut members = Vec::new();
                while let Some(kv) = a.next_entry()? {
                    members.push(kv);
                }
                Ok(if members.is_empty() {
                    Tree::Scalar(Value::Object(serde_json::Map::new()))
                } else {
                    Tree::Map(members)
                })
            }
            fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
                Ok(Tree::Scalar(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
                Ok(Tree::Scalar(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
                Ok(Tree::Scalar(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
                Ok(Tree::Scalar(Value::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
                Ok(Tree::Scalar(Value::from(v)))
            }
            fn visit_unit<E>(self) -> Result<Tree, E> {
                Ok(Tree::Scalar(Value::Null))
            }
        }
        d.deserialize_any(Visit)
    }
}

#[cfg(test)]
/// Writes `value` (normally an object) as a YAML document.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match Tree::from(value) {
        Tree::Map(m) => write_map(&mut out, &m, 0),
        Tree::Seq(a) => write_seq(&mut out, &a, 0),
        Tree::Scalar(other) => {
            out.push_str(&scalar(&other));
            out.push('\n');
        }
        Tree::Plain(word) => {
            out.push_str(&word);
            out.push('\n');
        }
    }
    out
}

/// Writes `key: value` pairs in the given order at `indent`.
pub fn write_map(out: &mut String, entries: &[(String, Tree)], indent: usize) {
    for (k, v) in entries {
        let _ = write!(out, "{}{}:", " ".repeat(indent), key(k));
        write_value(out, v, indent);
    }
}

fn write_seq(out: &mut String, items: &[Tree], indent: usize) {
    for item in items {
        let _ = write!(out, "{}-", " ".repeat(indent));
        match item {
            Tree::Map(m) => {
                // `- key: value` with the rest of the mapping aligned under the first key.
                let mut first = true;
                for (k, v) in m {
                    if first {
                        let _ = write!(out, " {}:", key(k));
                        first = false;
                    } else {
                        let _ = write!(out, "{}{}:", " ".repeat(indent + 2), key(k));
                    }
                    write_value(out, v, indent + 2);
                }
            }
            // Nested sequences and literal blocks go one level deeper than the dash.
            _ => write_value(out, item, indent + 2),
        }
    }
}

/// Writes the value after `key:` or `-` (which are already on the line).
fn write_value(out: &mut String, v: &Tree, indent: usize) {
    match v {
        Tree::Map(m) => {
            out.push('\n');
            write_map(out, m, indent + 2);
        }
        Tree::Seq(a) => {
            out.push('\n');
            write_seq(out, a, indent);
        }
        Tree::Scalar(Value::String(s)) if literal_ok(s) => {
            let chomp = if s.ends_with('\n') { "" } else { "-" };
            let _ = writeln!(out, " |{chomp}");
            for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    let _ = writeln!(out, "{}{line}", " ".repeat(indent + 2));
                }
            }
        }
        Tree::Scalar(other) => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
        Tree::Plain(word) => {
            out.push(' ');
            out.push_str(word);
            out.push('\n');
        }
    }
}

/// Whether a string can be written as a literal block and read back exactly.
fn literal_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.ends_with("\n\n")
        && !s.starts_with([' ', '\n'])
        && !s.contains(['\r', '\t'])
        && s.split('\n').all(|l| !l.ends_with(' '))
        && s.chars().all(|c| !c.is_control() || c == '\n')
}

fn key(k: &str) -> String {
    if plain_ok(k) {
        k.to_owned()
    } else {
        json_string(k)
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "~".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if plain_ok(s) => s.clone(),
        Value::String(s) => json_string(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Whether `s` reads back as exactly this string when written plain, in YAML 1.1 and 1.2.
fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !(first.is_alphanumeric() || first == '_' || first == '/' || first == '.') {
        return false;
    }
    if s.ends_with([' ', ':']) || s.contains(": ") || s.contains(" #") {
        return false;
    }
    if !s
        .chars()
        .all(|c| c.is_alphanumeric() || " _-./()'$@+,=".contains(c))
    {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    let reserved = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", ".nan", ".inf", "-.inf",
    ];
    if reserved.contains(&lower.as_str()) {
        return false;
    }
    // Anything number-like (including YAML 1.1 forms such as `1_000`, `0x1F`, `1:30`) is quoted.
    let numberish = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '+')
        && s.chars()
            .all(|c| c.is_ascii_hexdigit() || "xXoObB._+-:".contains(c));
    !numberish
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;
    use crate::syntax::yaml::{Schema, parse};
    use serde_json::json;

    fn round_trip(v: &Value) {
        let text = to_yaml(v);
        for schema in [Schema::Core, Schema::Yaml11] {
            let p = parse(FileId(0), &text, schema);
            assert!(p.diagnostics.is_empty(), "{text}\n{:?}", p.diagnostics);
            let back = p.root.map(|n| n.to_json()).unwrap_or_default();
            assert_eq!(&back, v, "{text}");
        }
    }

    #[test]
    fn members_keep_the_order_they_are_written_in() {
        let t = Tree::of(&serde_json::json!({"b": 1, "a": [{"d": 1, "c": 2}]}));
        assert_eq!(
            t,
            Tree::Map(vec![
                (
                    "a".to_owned(),
                    Tree::Seq(vec![Tree::Map(vec![
                        ("c".to_owned(), Tree::Scalar(json!(2))),
                        ("d".to_owned(), Tree::Scalar(json!(1))),
                    ])])
                ),
                ("b".to_owned(), Tree::Scalar(json!(1))),
            ])
        );
        let text = r#"{"z": 1, "y": {"x": true, "w": []}}"#;
        let t: Tree = serde_json::from_str(text).unwrap_or(Tree::Scalar(Value::Null));
        let mut out = String::new();
        if let Tree::Map(m) = &t {
            write_map(&mut out, m, 0);
        }
        assert_eq!(out, "z: 1\n\"y\":\n  x: true\n  w: []\n");
    }

    #[test]
    fn values_read_back_exactly() {
        round_trip(&json!({
            "name": "pkg-mcp_tool_a_b",
            "words": ["yes", "No", "off", "~", "null", "true", "1.0", "0x1F", "1_000", "12:30", "-", "a: b", "#x", "x #y", ""],
            "numbers": [1, -2, 3.5, 0],
            "flags": [true, false, null],
            "code": "line one\n  indented\n\nlast\n",
            "no_final_newline": "a\nb",
            "tricky": "ends with space \nnext",
            "quote": "it's \"quoted\" \\ backslash",
            "unicode": "µs — ✓",
            "nested": {"list": [{"a": 1, "b": [1, 2]}, {"c": {}}], "empty": [], "map": {}},
            "key with space": 1,
            "matrix": [[1, 2], [], [["deep"]]],
            "lines_in_list": ["a\nb\n", "single"],
        }));
    }
}
