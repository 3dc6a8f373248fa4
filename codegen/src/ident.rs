//! Identifiers for generated code, from any wire name.
//!
//! Spec files may name parameters anything their format allows: `data.frame`,
//! `type`, `max-lines`, `2d`, `Self`. Emitters keep the wire name (serde
//! `rename`, `[JsonProperty]`) and use these functions for the identifier, so
//! every generated identifier is valid in its language and distinct from its
//! siblings. The mapping is deterministic: it depends only on the set of names.

use std::collections::BTreeSet;

/// Rust keywords (strict and reserved, editions 2015-2024).
const RUST_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// C# keywords (reserved; contextual keywords are valid identifiers).
#[cfg(test)]
const CSHARP_KEYWORDS: &[&str] = &[
    "abstract",
    "as",
    "base",
    "bool",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "checked",
    "class",
    "const",
    "continue",
    "decimal",
    "default",
    "delegate",
    "do",
    "double",
    "else",
    "enum",
    "event",
    "explicit",
    "extern",
    "false",
    "finally",
    "fixed",
    "float",
    "for",
    "foreach",
    "goto",
    "if",
    "implicit",
    "in",
    "int",
    "interface",
    "internal",
    "is",
    "lock",
    "long",
    "namespace",
    "new",
    "null",
    "object",
    "operator",
    "out",
    "override",
    "params",
    "private",
    "protected",
    "public",
    "readonly",
    "ref",
    "return",
    "sbyte",
    "sealed",
    "short",
    "sizeof",
    "stackalloc",
    "static",
    "string",
    "struct",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "uint",
    "ulong",
    "unchecked",
    "unsafe",
    "ushort",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// The words of a wire name: split at non-alphanumerics and at case changes
/// (`maxPrintLines` -> max, print, lines; `HTTPServer` -> http, server).
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if boundary && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// A Rust field or variable name: `snake_case`, keywords suffixed with `_`.
pub fn rust_snake(name: &str) -> String {
    rust_safe(words(name).join("_"), "field")
}

/// `s` made a Rust identifier: `fallback` when empty, `_` before a leading
/// digit, `_` after a keyword.
fn rust_safe(mut s: String, fallback: &str) -> String {
    if s.is_empty() {
        s = fallback.to_owned();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if RUST_KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// A word with its first letter upper-cased.
fn capitalize(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// A display name from a wire name: `calculate_bearing` -> "Calculate Bearing".
pub fn title_case(name: &str) -> String {
    words(name)
        .iter()
        .map(|w| capitalize(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Rust or C# type, variant or property name: `PascalCase`.
pub fn pascal(name: &str) -> String {
    // Only `Self` can collide with a keyword in PascalCase.
    rust_safe(words(name).iter().map(|w| capitalize(w)).collect(), "Value")
}

#[cfg(test)]
/// A C# local or parameter name: `camelCase`, keywords prefixed with `@`.
pub fn csharp_camel(name: &str) -> String {
    let p = pascal(name);
    let mut c = p.chars();
    let mut s = c
        .next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default();
    if CSHARP_KEYWORDS.contains(&s.as_str()) {
        s.insert(0, '@');
    }
    s
}

#[cfg(test)]
/// Whether `s` is a valid Rust identifier that is not a keyword (raw identifiers excluded).
pub fn is_rust_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
        && s != "_"
        && !RUST_KEYWORDS.contains(&s)
}

#[cfg(test)]
/// Whether `s` is a valid C# identifier (a leading `@` escapes a keyword).
pub fn is_csharp_ident(s: &str) -> bool {
    let bare = s.strip_prefix('@').unwrap_or(s);
    let mut c = bare.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
        && (s.starts_with('@') || !CSHARP_KEYWORDS.contains(&bare))
}

/// Identifiers for sibling wire names (the fields of one struct, say), made
/// distinct: the first name, in sorted wire-name order, to claim an identifier
/// keeps it; the others get `_2`, `_3`, ... The result is in the input's order.
pub fn unique<F: Fn(&str) -> String>(wire_names: &[&str], convert: F) -> Vec<String> {
    let mut order: Vec<usize> = (0..wire_names.len()).collect();
    order.sort_by_key(|&i| wire_names[i]);
    let mut taken = BTreeSet::new();
    let mut out = vec![String::new(); wire_names.len()];
    for i in order {
        let base = convert(wire_names[i]);
        let mut candidate = base.clone();
        let mut n = 2;
        while !taken.insert(candidate.clone()) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        out[i] = candidate;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NASTY: &[&str] = &[
        "type",
        "data.frame",
        "data_frame",
        "Data.Frame",
        "self",
        "Self",
        "2d",
        "max-lines",
        "maxLines",
        "crate",
        "r#x",
        "é",
        "",
        "_",
        "HTTPServer",
        "class",
        "string",
        "params",
        "gen",
        "a__b",
        "A",
    ];

    #[test]
    fn words_split_like_people_read_them() {
        assert_eq!(words("maxPrintLines"), ["max", "print", "lines"]);
        assert_eq!(words("HTTPServer"), ["http", "server"]);
        assert_eq!(words("data.frame"), ["data", "frame"]);
        assert_eq!(words("target_names"), ["target", "names"]);
        assert_eq!(words("x2Y"), ["x2", "y"]);
    }

    #[test]
    fn conversions() {
        assert_eq!(rust_snake("type"), "type_");
        assert_eq!(rust_snake("maxPrintLines"), "max_print_lines");
        assert_eq!(rust_snake("2d"), "_2d");
        assert_eq!(pascal("scene.hierarchy.dump"), "SceneHierarchyDump");
        assert_eq!(pascal("Self"), "Self_");
        assert_eq!(csharp_camel("class"), "@class");
        assert_eq!(csharp_camel("string"), "@string");
        assert_eq!(csharp_camel("scenePath"), "scenePath");
    }

    #[test]
    fn every_name_gets_a_valid_distinct_identifier() {
        let rust = unique(NASTY, rust_snake);
        let types = unique(NASTY, pascal);
        let cs = unique(NASTY, csharp_camel);
        for (set, valid) in [
            (&rust, is_rust_ident as fn(&str) -> bool),
            (&types, is_rust_ident),
            (&types, is_csharp_ident),
            (&cs, is_csharp_ident),
        ] {
            for id in set.iter() {
                assert!(valid(id), "`{id}` is not valid ({set:?})");
            }
            let distinct: BTreeSet<&String> = set.iter().collect();
            assert_eq!(distinct.len(), set.len(), "collision in {set:?}");
        }
        // Deterministic and independent of input order.
        let mut reversed: Vec<&str> = NASTY.to_vec();
        reversed.reverse();
        let mut again = unique(&reversed, rust_snake);
        again.reverse();
        assert_eq!(again, rust);
    }
}
