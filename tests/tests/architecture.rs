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
        "source", "text", "progress", "ident", "schema", "digest", "par",
    ],
    &["diag", "files"],
    &["syntax", "ir"],
    // Incremental generation, all of it.
    &["refs", "cache"],
    // Readers of the formats; the editor schemas describe them.
    &["formats"],
    &[
        "manifest",
        "validate",
        "spec_schemas",
        "breaking",
        "clients",
    ],
    &["load"],
    &["templates"],
    &["emit"],
    &["output"],
    &["scaffold", "against", "lsp"],
    &["generator"],
    // The command line, over the builder.
    &["cli"],
];

/// The modules the library makes public: everything else is `pub(crate)`
/// (its API is documented in `lib.rs`).
const PUBLIC: &[&str] = &["cli", "diag", "ir", "load", "source", "syntax", "testing"];

#[test]
fn the_public_modules_are_the_api() {
    let lib = std::fs::read_to_string(root().join("codegen/src/lib.rs")).unwrap_or_default();
    let public: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches([';', '{', ' ']))
        .collect();
    assert_eq!(public, PUBLIC, "codegen/src/lib.rs's public modules");
}

/// The layers of folders below the top level, lowest first: (crate source
/// folder, parent module, layers of its child modules). A child may use its
/// lower siblings only (and anything outside the folder).
const SUB_LAYERS: &[(&str, &str, &[&[&str]])] = &[(
    "runtime/src",
    "server",
    &[
        // The wire writer and the waiting primitives: leaves.
        &["wire", "sync", "structured", "content", "variant"],
        &["compact", "client"],
        &["output", "rounds"],
        // A call in flight, then what a tool is, then the tool as held.
        &["control"],
        &["tool", "resource", "task"],
        &["typed"],
        &["entry"],
        &["pool"],
        &["core"],
        &["modern"],
        &["execution"],
        // The dialects, then the transports.
        &["envelope", "mcp", "fast"],
        &["jsonrpc"],
        &["stdio", "http"],
        &["rmcp"],
    ],
)];

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

/// A file's code as the arrows are read from it: before its test module,
/// without comments (doc links are not arrows).
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a source file below `src` (`server/wire.rs` ->
/// `server::wire`, `server/mod.rs` -> `server`); the crate root is "".
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_owned();
        if !matches!(stem.as_str(), "mod" | "lib" | "main") {
            parts.push(stem);
        }
    }
    parts.join("::")
}

fn parent_of(module: &str) -> &str {
    module.rsplit_once("::").map_or("", |(p, _)| p)
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}::{name}")
    }
}

/// The paths `code` names after `prefix` (`crate::`, `super::`, ...), each
/// as its segments: `a::b::C` and every path of a `{a, b::c}` list.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    paths_after_at(code, prefix)
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// [`paths_after`], each with the byte offset where it is named.
fn paths_after_at(code: &str, prefix: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        // `a::super::` and `xsuper::` are not where a path starts.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        let segments = |s: &str| -> Vec<String> {
            let mut segs = Vec::new();
            for seg in s.split("::") {
                let name: String = seg
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name.is_empty() {
                    break;
                }
                let whole = seg.trim_start().len() == name.len();
                segs.push(name);
                if !whole {
                    break;
                }
            }
            segs
        };
        // `super::super::x` is read by the caller's repeated prefix.
        if let Some(list) = rest.strip_prefix('{') {
            let list = list.split('}').next().unwrap_or("");
            for item in list.split(',') {
                let segs = segments(item);
                if !segs.is_empty() {
                    out.push((at, segs));
                }
            }
        } else {
            let mut segs = segments(rest);
            // A path into a list: `a::{b, c}`.
            let after = rest
                .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':');
            if after.starts_with('{') && !segs.is_empty() {
                let list = after[1..].split('}').next().unwrap_or("");
                for item in list.split(',') {
                    let mut full = segs.clone();
                    full.extend(segments(item));
                    out.push((at, full));
                }
                continue;
            }
            if !segs.is_empty() {
                out.push((at, std::mem::take(&mut segs)));
            }
        }
    }
    out
}

/// The byte ranges of the inline modules (`mod x { .. }`) of `code`.
fn inline_modules(code: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut open: Vec<(usize, i64)> = Vec::new();
    let mut depth = 0i64;
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        let bare = strip_strings(line);
        let t = bare.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or(t.strip_prefix("pub "))
            .unwrap_or(t);
        if t.starts_with("mod ") && t.trim_end().ends_with('{') {
            open.push((at, depth));
        }
        depth += bare.matches('{').count() as i64 - bare.matches('}').count() as i64;
        at += line.len();
        while open.last().is_some_and(|(_, d)| depth <= *d) {
            if let Some((start, _)) = open.pop() {
                out.push(start..at);
            }
        }
    }
    out
}

/// The longest module of `modules` that `segs` (below `base`) names, if any.
fn resolve(modules: &BTreeSet<String>, base: &str, segs: &[String]) -> Option<String> {
    let mut found = None;
    let mut path = base.to_owned();
    for s in segs {
        path = join(&path, s);
        if modules.contains(&path) {
            found = Some(path.clone());
        } else {
            break;
        }
    }
    found
}

/// Every module of the crate at `src` -> the modules it uses: a path through
/// `crate::`, `super::` (a parent's own items count as the parent), `self::`,
/// or a child module named in a `use` or a path. Declaring a child is not an
/// arrow; a parent that re-exports a child's items uses it, so a child uses
/// its siblings by their own paths (`super::wire::Answer`), not the parent's.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = files_below(src, "rs");
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let code = code_of(file);
        let targets = out.entry(module.clone()).or_default();
        let mut add = |target: Option<String>| {
            if let Some(t) = target.filter(|t| *t != module) {
                targets.insert(t);
            }
        };
        for segs in paths_after(&code, "crate::") {
            add(resolve(&modules, "", &segs).or_else(|| Some(String::new())));
        }
        let inline = inline_modules(&code);
        for depth in 1..4 {
            let prefix = "super::".repeat(depth);
            for (at, segs) in paths_after_at(&code, &prefix) {
                if segs.first().is_some_and(|s| s == "super") {
                    continue;
                }
                // Inside an inline `mod x { .. }`, the first `super` is the file's module.
                let within = inline.iter().filter(|r| r.contains(&at)).count();
                let mut base = module.as_str();
                for _ in within..depth {
                    base = parent_of(base);
                }
                add(resolve(&modules, base, &segs).or_else(|| Some(base.to_owned())));
            }
        }
        for segs in paths_after(&code, "self::") {
            add(resolve(&modules, &module, &segs));
        }
        for segs in paths_after(&code, "use ") {
            if segs
                .first()
                .is_some_and(|s| s != "crate" && s != "super" && s != "self")
            {
                add(resolve(&modules, &module, &segs));
            }
        }
        // Child modules named by path in the parent's code (`wire::escaped(..)`).
        for child in modules
            .iter()
            .filter(|m| parent_of(m) == module && !m.is_empty())
        {
            let name = child.rsplit("::").next().unwrap_or("");
            let named = code.match_indices(&format!("{name}::")).any(|(at, _)| {
                !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            });
            if named {
                targets.insert(child.clone());
            }
        }
    }
    out
}

/// Top-level module -> the top-level modules it uses, from [`module_graph`].
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let graph = module_graph(&root().join("codegen/src"));
    let top = |m: &str| m.split("::").next().unwrap_or("").to_owned();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        let from = top(&from);
        if from.is_empty() {
            continue;
        }
        let set = out.entry(from.clone()).or_default();
        for t in targets {
            let t = top(&t);
            if t != from && layer_of(&t).is_some() {
                set.insert(t);
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
        .filter(|l| l.trim_end().ends_with(';'))
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            l.strip_prefix("mod ")
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

/// A cycle of `graph`, if it has one.
fn cycle_in(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// The strongly connected parts of `graph` with more than one module: every
/// import cycle, each reported once.
fn knots(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(n) = todo.pop() {
            for t in graph.get(&n).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    todo.push(t.clone());
                }
            }
        }
        seen
    };
    let all: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|k| (k, reaches(k))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (n, r) in &all {
        if !r.contains(*n) || out.iter().any(|k| k.contains(n)) {
            continue;
        }
        let knot: Vec<String> = r
            .iter()
            .filter(|m| all.get(m).is_some_and(|back| back.contains(*n)))
            .cloned()
            .collect();
        out.push(knot);
    }
    out
}

/// The source folders of every crate of the workspace.
const CRATES: &[&str] = &[
    "codegen/src",
    "runtime/src",
    "runtime/editormcp-server/src",
    "runtime/rave-server/src",
    "xtask/src",
    "tests/src",
];

#[test]
fn submodules_keep_their_layers() {
    let mut problems = Vec::new();
    for (dir, parent, layers) in SUB_LAYERS {
        let graph = module_graph(&root().join(dir));
        let layer = |m: &str| layers.iter().position(|l| l.contains(&m));
        let child = |m: &str| {
            m.strip_prefix(&format!("{parent}::"))
                .map(|rest| rest.split("::").next().unwrap_or("").to_owned())
        };
        for (from, targets) in &graph {
            let Some(f) = child(from) else { continue };
            let Some(lf) = layer(&f) else {
                problems.push(format!("{dir}: `{parent}::{f}` has no layer"));
                continue;
            };
            for t in targets.iter().filter_map(|t| child(t)).filter(|t| *t != f) {
                let lt = layer(&t).unwrap_or(usize::MAX);
                if lt >= lf {
                    problems.push(format!(
                        "{dir}: `{parent}::{f}` (layer {lf}) uses `{parent}::{t}` (layer {lt})"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn there_is_no_import_cycle_in_any_crate() {
    let mut problems = Vec::new();
    for dir in CRATES {
        let graph = module_graph(&root().join(dir));
        assert!(!graph.is_empty(), "no modules found in {dir}");
        for knot in knots(&graph) {
            problems.push(format!(
                "{dir}: modules that import each other: {}",
                knot.join(", ")
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(
        cycle_in(&arrows()).is_none(),
        "a cycle among codegen's top-level modules"
    );
}

#[test]
fn the_scanner_sees_arrows() {
    let dir = std::env::temp_dir().join(format!("tg-arch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("server")).unwrap_or_default();
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap_or_default();
    write("lib.rs", "mod server;\nmod leaf;\n");
    write(
        "leaf.rs",
        "pub fn f() {}\nmod inner {\n    use super::f;\n}\n",
    );
    write(
        "server/mod.rs",
        "mod wire;\nmod pool;\npub struct Server;\nfn g() { wire::w(); }\n",
    );
    write("server/wire.rs", "use super::Server;\nuse crate::leaf;\n");
    write(
        "server/pool.rs",
        "use super::{wire::w, Server};\n// use crate::nothing;\n",
    );
    let graph = module_graph(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let of = |m: &str| graph.get(m).cloned().unwrap_or_default();
    assert_eq!(
        of("server::wire"),
        BTreeSet::from(["server".to_owned(), "leaf".to_owned()])
    );
    assert_eq!(
        of("server::pool"),
        BTreeSet::from(["server".to_owned(), "server::wire".to_owned()])
    );
    assert_eq!(of("server"), BTreeSet::from(["server::wire".to_owned()]));
    // `super` inside an inline module is the file's own module.
    assert!(of("leaf").is_empty(), "{:?}", of("leaf"));
    assert!(cycle_in(&graph).is_some());
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

#[test]
fn no_file_is_longer_than_800_lines_before_its_tests() {
    let mut problems = Vec::new();
    for dir in ["codegen/src", "runtime/src"] {
        for file in files_below(&root().join(dir), "rs") {
            let n = code_of(&file).lines().count();
            if n > 800 {
                let shown = file.strip_prefix(root()).unwrap_or(Path::new(""));
                problems.push(format!("{}: {n} lines before its tests", shown.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
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
