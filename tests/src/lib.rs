//! Helpers shared by the workspace-level tests, the benchmarks and the xtask.

pub mod instances;
pub mod synth;

use std::path::{Path, PathBuf};

use toolgen::Generator;
use toolgen::Prune;
use toolgen::load::Loaded;

/// The trees `cargo xtask gen` writes and `--check` checks: specs, output
/// directory, and the runtime's path as the generated Cargo.toml sees it.
/// `tests/generated-hostile/` is every emitter's output for names that collide
/// once they are identifiers, compiled by tests/tests/hostile_rust.rs;
/// `tests/generated-realworld/` the output for real-world-shaped MCP tools,
/// compiled and called by tests/tests/realworld.rs; `tests/generated-rave/`
/// for an R package's tools, checked by tests/tests/rave_package.rs.
pub const TREES: [(&str, &str, &str); 4] = [
    ("tool-specs", "generated", "../../runtime"),
    (
        "tests/fixtures/rust-hostile",
        "tests/generated-hostile",
        "../../../runtime",
    ),
    (
        "tests/fixtures/mcp-realworld",
        "tests/generated-realworld",
        "../../../runtime",
    ),
    (
        "tests/fixtures/rave-package",
        "tests/generated-rave",
        "../../../runtime",
    ),
];

/// The generator of one of [`TREES`], as `cargo xtask gen` runs it: the
/// generated crate uses the workspace's runtime and the C# package the
/// workspace's bridge (`runtime/csharp/`; no bundled copies), and the headers
/// name `cargo xtask gen`.
pub fn tree_generator(root: &Path, (specs, out, runtime): (&str, &str, &str)) -> Generator {
    Generator::new()
        .input(root.join(specs))
        .out_dir(root.join(out))
        .prune(Prune::All)
        .rust_runtime_path(runtime)
        .csharp_bridge(toolgen::CsharpBridge::External)
        .regenerate_command("cargo xtask gen")
}

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A folder of `../shared/` (the real-world corpus beside the repository), or
/// `None` after printing a visible `SKIPPED` line naming it: a clone with
/// nothing beside it must pass its tests. The line goes straight to the
/// process's stderr, past the test harness's capture, so that it shows in a
/// normal `cargo test` run.
pub fn shared(sub: &str, test: &str) -> Option<PathBuf> {
    let dir = root()
        .parent()
        .map(|p| p.join("shared").join(sub))
        .unwrap_or_default();
    if dir.is_dir() {
        return Some(dir);
    }
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {} is not there (the shared corpus beside the repository); \
         the project's own fixtures cover the same behaviour",
        dir.display()
    );
    None
}

/// The fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Diagnostics as `severity code file:line:column` lines (file relative to `base`),
/// sorted; diagnostics without a position give `severity code file`.
pub fn diagnostic_lines(loaded: &Loaded, base: &Path) -> Vec<String> {
    let base_abs = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
    let rel = |p: &Path| -> String {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        abs.strip_prefix(&base_abs)
            .unwrap_or(&abs)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut lines: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| {
            let head = format!("{} {}", d.severity.as_str(), d.rule.code);
            match (d.loc, &d.path) {
                (Some(loc), _) => {
                    let file = loaded.db.get(loc.file);
                    let lc = file.line_col(loc.span.start);
                    format!("{head} {}:{}:{}", rel(&file.path), lc.line, lc.column)
                }
                (None, Some(p)) => format!("{head} {}", rel(Path::new(p))),
                (None, None) => head,
            }
        })
        .collect();
    lines.sort();
    lines
}

/// The 18 core tools of the EditorMCP seed (`editormcp-core-tools.md`), sorted. Tests
/// check that the repository's EditorMCP tool set has every one of them; tools that a
/// tool author adds beside them are welcome and need no test edits.
pub const SEED_CORE_TOOLS: [&str; 18] = [
    "asset.dependencies.graph",
    "asset.info",
    "audio.mixer.list",
    "audio.mixer.snapshot.read",
    "component.list",
    "editor.selection.info",
    "go.find",
    "go.setParent",
    "mcp.server.info",
    "mcp.tool.describe",
    "mcp.tools.list",
    "project.assets.summary",
    "project.info",
    "project.references.missing",
    "project.scenes.list",
    "scene.components.list",
    "scene.hierarchy.dump",
    "scene.objects.find",
];

/// The ids of the EditorMCP specs in `tool-specs/editormcp/` (each file's `id`), sorted:
/// what the generated tables, catalog and servers must hold, whatever tools were added.
pub fn editormcp_spec_ids() -> Vec<String> {
    let mut ids: Vec<String> = files_below(&root().join("tool-specs/editormcp"), "json")
        .iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let spec: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            spec["id"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: no string `id`", path.display()))
                .to_owned()
        })
        .collect();
    ids.sort_unstable();
    let missing: Vec<&str> = SEED_CORE_TOOLS
        .iter()
        .copied()
        .filter(|id| !ids.iter().any(|i| i == id))
        .collect();
    assert!(
        missing.is_empty(),
        "tool-specs/editormcp/ lacks core tools of the seed (editormcp-core-tools.md): {missing:?}"
    );
    ids
}

/// The `examples` of the EditorMCP spec `tool-specs/editormcp/<id>.json`
/// (none when the file or the field is missing).
pub fn editormcp_spec_examples(id: &str) -> Vec<serde_json::Value> {
    let path = root().join(format!("tool-specs/editormcp/{id}.json"));
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let spec: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    spec["examples"].as_array().cloned().unwrap_or_default()
}

/// An empty directory for one test, `toolgen-<name>-<pid>` under the system's
/// temporary directory (emptied first if a previous run left it behind).
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Every file below `dir` whose name ends in `.{ext}`, in sorted order (hidden
/// entries skipped: the generator's own directory walk).
pub fn files_below(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in toolgen::source::sorted_children(dir).unwrap_or_default() {
        if p.is_dir() {
            out.extend(files_below(&p, ext));
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
    out
}

/// The C# sources of the bridge package (`runtime/csharp/`), which the
/// repository's generated C# depends on.
pub fn csharp_bridge_sources() -> Vec<PathBuf> {
    files_below(&root().join("runtime/csharp"), "cs")
}

/// The first file named `name` in a `PATH` directory.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}

/// Equal as JSON data: an absent member and `null` alike, and numbers by value
/// (`17` and `17.0`, as a typed `f64` writes it back).
pub fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.keys().chain(y.keys()).all(|k| {
            same_json(
                x.get(k).unwrap_or(&Value::Null),
                y.get(k).unwrap_or(&Value::Null),
            )
        }),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Newtonsoft.Json.dll for compiling the generated C#: `TOOLGEN_NEWTONSOFT_JSON`,
/// else the one Debian's `libnewtonsoft-json-cil-dev` installs (or Mono ships).
pub fn newtonsoft_json_dll() -> Option<PathBuf> {
    std::env::var_os("TOOLGEN_NEWTONSOFT_JSON")
        .map(PathBuf::from)
        .or_else(|| {
            ["/usr/lib/cli", "/usr/lib/mono"]
                .iter()
                .flat_map(|d| files_below(Path::new(d), "dll"))
                .find(|p| p.file_name().is_some_and(|n| n == "Newtonsoft.Json.dll"))
        })
}
