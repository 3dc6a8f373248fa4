//! The shape ARCHITECTURE.md describes, checked: the library's modules form
//! layers in the order data flows (spec files -> syntax -> readers -> IR ->
//! validation -> emitters -> output), every `crate::` arrow points down, there
//! is no import cycle, and no function in `codegen/src` or `runtime/src` is
//! longer than 120 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use toolgen_tests::{files_below, root};

/// The library's top-level modules, lowest layer first. A module may use
/// modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    // Leaves: no crate imports.
    &[
        "source", "text", "progress", "ident", "schema", "digest", "par", "bytes",
    ],
    &["diag", "files"],
    &["syntax", "ir"],
    &["refs", "keys", "memo"],
    // Readers of the formats; the editor schemas describe them.
    &["formats"],
    &["manifest", "validate", "spec_schemas", "breaking"],
    &["load"],
    &["templates"],
    &["emit"],
    &["output"],
    &["scaffold", "cache", "against"],
    &["generator"],
];

/// Arrows the layers would allow that the data flow forbids.
const FORBIDDEN: &[(&str, &str, &str)] = &[
    ("emit", "formats", "emitters know nothing of input formats"),
    ("emit", "manifest", "emitters know nothing of input formats"),
    (
        "emit",
        "refs",
        "emitters read bundled schemas, not documents",
    ),
    (
        "emit",
        "validate",
        "emitters run after validation, not with it",
    ),
    ("emit", "load", "emitters read the IR, not files"),
    ("templates", "load", "templates render the IR"),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Top-level module -> the top-level modules it names as `crate::x`.
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("codegen/src");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files_below(&src, "rs") {
        let rel = file.strip_prefix(&src).unwrap_or(&file);
        let first = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        let module = first.trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        // Tests may reach anywhere; comments (doc links) are not arrows.
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or("")
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let code = code.as_str();
        let targets = out.entry(module.clone()).or_default();
        for piece in code.split("crate::").skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != module && layer_of(&name).is_some() {
                targets.insert(name);
            }
        }
        // `use crate::{a, b}` lists.
        for piece in code.split("use crate::{").skip(1) {
            let list = piece.split('}').next().unwrap_or("");
            for name in list
                .split(',')
                .map(|n| n.trim().split("::").next().unwrap_or("").trim().to_owned())
            {
                if !name.is_empty() && name != module && layer_of(&name).is_some() {
                    targets.insert(name);
                }
            }
        }
    }
    out
}

#[test]
fn every_module_has_a_layer() {
    let src = root().join("codegen/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or_else(|| l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(declared.len() > 10, "{declared:?}");
    for m in declared {
        assert!(
            layer_of(m).is_some(),
            "module `{m}` has no layer in tests/tests/architecture.rs (and ARCHITECTURE.md)"
        );
    }
}

#[test]
fn every_arrow_points_down_and_none_is_forbidden() {
    let mut problems = Vec::new();
    for (from, targets) in arrows() {
        let Some(lf) = layer_of(&from) else {
            problems.push(format!("`{from}` has no layer"));
            continue;
        };
        for to in targets {
            let lt = layer_of(&to).unwrap_or(usize::MAX);
            if lt >= lf {
                problems.push(format!(
                    "`{from}` (layer {lf}) uses `{to}` (layer {lt}), which is not below it"
                ));
            }
            if let Some((_, _, why)) = FORBIDDEN.iter().find(|(f, t, _)| *f == from && *t == to) {
                problems.push(format!("`{from}` uses `{to}`: {why}"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn there_is_no_import_cycle() {
    let graph = arrows();
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            return Some(path[i..].to_vec());
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_owned());
        for t in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(t, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        let cycle = visit(n, &graph, &mut Vec::new(), &mut done);
        assert!(cycle.is_none(), "import cycle: {cycle:?}");
    }
}

/// The functions of `text` longer than `limit` lines: (name, first line, length).
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let t = t.strip_prefix("pub(crate) ").unwrap_or(t);
        let t = t.strip_prefix("pub(super) ").unwrap_or(t);
        let t = t.strip_prefix("pub ").unwrap_or(t);
        let t = t.strip_prefix("const ").unwrap_or(t);
        let Some(rest) = t.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i64;
        let mut started = false;
        for (j, l) in lines.iter().enumerate().skip(i) {
            let code = strip_strings(l);
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            started |= code.contains('{');
            if started && depth <= 0 {
                let n = j - i + 1;
                if n > limit {
                    out.push((name.clone(), i + 1, n));
                }
                break;
            }
        }
    }
    out
}

/// A line without its string and char literals and its comment.
fn strip_strings(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        match (in_str, c) {
            (false, '/') if chars.peek() == Some(&'/') => break,
            (false, '"') => in_str = true,
            (false, '\'') => {
                // A char literal ('{', '\'', '\\'); a lifetime stays.
                let ahead: Vec<char> = chars.clone().take(3).collect();
                match ahead.as_slice() {
                    ['\\', _, '\'', ..] => {
                        chars.nth(2);
                    }
                    [_, '\'', ..] => {
                        chars.nth(1);
                    }
                    _ => out.push(c),
                }
            }
            (true, '\\') => {
                chars.next();
            }
            (true, '"') => in_str = false,
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}

#[test]
fn no_function_is_longer_than_120_lines() {
    let mut problems = Vec::new();
    for dir in ["codegen/src", "runtime/src"] {
        for file in files_below(&root().join(dir), "rs") {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (name, line, n) in long_functions(&text, 120) {
                let shown = file.strip_prefix(root()).unwrap_or(Path::new(""));
                problems.push(format!("{}:{line}: `{name}` is {n} lines", shown.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // The scanner finds what it looks for.
    let long = format!("fn f() {{\n{}}}\n", "    x();\n".repeat(130));
    assert_eq!(long_functions(&long, 120).len(), 1);
    assert!(long_functions("fn g() { let c = '{'; }\n", 120).is_empty());
}

/// ARCHITECTURE.md describes every module and the same layers, in lines a
/// reader can take in (no prose packed into table cells).
#[test]
fn architecture_md_matches_the_layers() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap_or_default();
    assert!(!text.is_empty(), "ARCHITECTURE.md is missing");
    for (i, line) in text.lines().enumerate() {
        let n = line.chars().count();
        assert!(n < 120, "ARCHITECTURE.md:{}: {n} characters", i + 1);
    }
    for module in LAYERS.iter().flat_map(|l| l.iter()) {
        assert!(
            text.contains(&format!("**`{module}`**")),
            "ARCHITECTURE.md has no section for module `{module}`"
        );
    }
    for (i, layer) in LAYERS.iter().enumerate() {
        let listed: Vec<String> = layer.iter().map(|m| format!("`{m}`")).collect();
        let line = text
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{}. ", i + 1)))
            .take_while(|l| {
                !l.is_empty() && (l.starts_with(&format!("{}. ", i + 1)) || l.starts_with("   "))
            })
            .collect::<String>();
        for m in &listed {
            assert!(
                line.contains(m),
                "ARCHITECTURE.md layer {} does not list {m}",
                i + 1
            );
        }
    }
}
