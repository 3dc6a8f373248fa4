//! A small block-style YAML writer for JSON values.
//!
//! Output is valid YAML 1.2 and reads back to the same value under YAML 1.1
//! too: strings are written plain only when no YAML version could read them as
//! anything but that string (so `yes`, `no`, `~`, `1.0`, `0x1F` are quoted);
//! multi-line strings become literal blocks (`|`) when that is exact, and
//! double-quoted JSON strings otherwise.

use std::fmt::Write as _;

use serde_json::Value;

/// Writes `value` (normally an object) as a YAML document.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m.iter(), 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        other => {
            out.push_str(&scalar(other, 0));
            out.push('\n');
        }
    }
    out
}

/// Writes `key: value` pairs in the given order at `indent`.
pub fn write_map<'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    indent: usize,
) {
    for (k, v) in entries {
        let _ = write!(out, "{}{}:", " ".repeat(indent), key(k));
        write_value(out, v, indent);
    }
}

fn write_seq(out: &mut String, items: &[Value], indent: usize) {
    for item in items {
        let _ = write!(out, "{}-", " ".repeat(indent));
        match item {
            Value::Object(m) if !m.is_empty() => {
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
fn write_value(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m.iter(), indent + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, indent);
        }
        Value::String(s) if literal_ok(s) => {
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
        other => {
            out.push(' ');
            out.push_str(&scalar(other, indent));
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

fn scalar(v: &Value, _indent: usize) -> String {
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
