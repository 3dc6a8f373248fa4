//! The `toolgen-runtime` crate, built into toolgen, for generated crates that
//! must build anywhere.
//!
//! By default (`RuntimeSource::Bundled`) the Rust emitter writes the runtime's
//! source beside the generated crate (`rust/toolgen-runtime/`) and the crate
//! depends on it by path: the pair builds offline, on any machine, with no
//! option given, and the runtime is always the one the code was generated
//! for. The files are the runtime of this very toolgen (`runtime/` in its
//! source tree), embedded when toolgen is compiled; a test checks that the
//! list below holds every one of them and that the manifest written here
//! declares the runtime's dependencies.
//!
//! Every other source (`path=`, `git=`, `version=`) becomes a dependency line
//! that also requires this toolgen's version (`version = "0.1.0"`, i.e.
//! `^0.1.0`): a runtime of another version is refused by Cargo before anything
//! compiles, with both versions in its message, never a type error.

use crate::files::GeneratedFiles;
use crate::ir::RuntimeSource;

/// The runtime's version: toolgen and its runtime are released together.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The runtime's files, by path inside the crate.
pub const FILES: &[(&str, &str)] = crate::text::embedded!("../../../runtime/";
    "build.rs",
    "src/bridge.rs",
    "src/check.rs",
    "src/error.rs",
    "src/json.rs",
    "src/lib.rs",
    "src/nullable.rs",
    "src/rbridge.rs",
    "src/server/client.rs",
    "src/server/compact.rs",
    "src/server/content.rs",
    "src/server/control.rs",
    "src/server/core.rs",
    "src/server/entry.rs",
    "src/server/envelope.rs",
    "src/server/execution.rs",
    "src/server/fast.rs",
    "src/server/http/auth.rs",
    "src/server/http/body.rs",
    "src/server/http/mod.rs",
    "src/server/http/request.rs",
    "src/server/jsonrpc.rs",
    "src/server/mcp.rs",
    "src/server/mod.rs",
    "src/server/modern.rs",
    "src/server/output.rs",
    "src/server/pool.rs",
    "src/server/resource.rs",
    "src/server/rmcp.rs",
    "src/server/rounds.rs",
    "src/server/stdio.rs",
    "src/server/structured.rs",
    "src/server/sync.rs",
    "src/server/task.rs",
    "src/server/tool.rs",
    "src/server/typed.rs",
    "src/server/variant.rs",
    "src/server/wire.rs",
    "src/toolvault.rs",
);

/// The runtime's `[dependencies]`, as its own Cargo.toml (with the
/// workspace's versions and features) declares them.
pub const DEPENDENCIES: &[(&str, &str)] = &[
    (
        "base64",
        "{ version = \"0.22\", default-features = false, features = [\"alloc\"] }",
    ),
    ("bytes", "{ version = \"1\", optional = true }"),
    ("http-body-util", "{ version = \"0.1\", optional = true }"),
    (
        "hyper",
        "{ version = \"1\", default-features = false, features = [\"server\", \"http1\"], optional = true }",
    ),
    (
        "hyper-util",
        "{ version = \"0.1\", default-features = false, features = [\"tokio\"], optional = true }",
    ),
    (
        "jsonschema",
        "{ version = \"0.61\", default-features = false }",
    ),
    (
        "jsonschema-value",
        "{ version = \"0.61\", default-features = false, features = [\"serde_json\"] }",
    ),
    ("regex", "\"1\""),
    (
        "rmcp",
        "{ version = \"3.11\", default-features = false, features = [\"server\"], optional = true }",
    ),
    ("serde", "{ version = \"1\", features = [\"derive\"] }"),
    (
        "serde_json",
        "{ version = \"1\", features = [\"raw_value\"] }",
    ),
    (
        "tokio",
        "{ version = \"1\", default-features = false, features = [\"rt-multi-thread\", \"net\", \"sync\", \"time\", \"macros\", \"signal\", \"io-util\"], optional = true }",
    ),
];

/// The runtime's `[features]`, as its own Cargo.toml declares them.
pub const FEATURES: &[(&str, &[&str])] = &[
    ("default", &[]),
    (
        "http",
        &[
            "dep:tokio",
            "dep:hyper",
            "dep:hyper-util",
            "dep:http-body-util",
            "dep:bytes",
            "rmcp?/transport-io",
            "rmcp?/transport-streamable-http-server",
        ],
    ),
    ("rmcp", &["dep:rmcp", "dep:tokio", "hyper-util?/service"]),
];

/// The `toolgen-runtime = ...` line of a generated crate's Cargo.toml;
/// `bundled_path` is where the bundled copy is, seen from that Cargo.toml.
pub fn dependency(source: &RuntimeSource, bundled_path: &str) -> String {
    let toml = |s: &str| format!("{s:?}");
    match source {
        RuntimeSource::Bundled => format!(
            "toolgen-runtime = {{ version = {}, path = {} }}",
            toml(VERSION),
            toml(bundled_path)
        ),
        RuntimeSource::Path(p) => format!(
            "toolgen-runtime = {{ version = {}, path = {} }}",
            toml(VERSION),
            toml(p)
        ),
        RuntimeSource::Git { url, reference } => {
            let reference = reference
                .as_ref()
                .map(|(k, v)| format!(", {k} = {}", toml(v)))
                .unwrap_or_default();
            format!(
                "toolgen-runtime = {{ version = {}, git = {}{reference} }}",
                toml(VERSION),
                toml(url)
            )
        }
        RuntimeSource::Version(req) => format!("toolgen-runtime = {}", toml(req)),
    }
}

/// The bundled runtime's Cargo.toml.
pub fn cargo_toml(regenerate: &str) -> String {
    let mut text = format!(
        "# toolgen-runtime {VERSION}, the runtime of the generated crate beside it, written by\n# toolgen {VERSION}. Do not edit: it is rewritten by `{regenerate}`.\n[package]\nname = \"toolgen-runtime\"\nversion = \"{VERSION}\"\nedition = \"2024\"\nrust-version = \"1.85\"\nlicense = \"MIT OR Apache-2.0\"\npublish = false\nlinks = \"toolgen_runtime\"\ndescription = \"Runtime support linked by code that toolgen generates\"\n\n[dependencies]\n"
    );
    for (name, spec) in DEPENDENCIES {
        text.push_str(&format!("{name} = {spec}\n"));
    }
    text.push_str("\n[features]\n");
    for (name, deps) in FEATURES {
        let deps: Vec<String> = deps.iter().map(|d| format!("{d:?}")).collect();
        text.push_str(&format!("{name} = [{}]\n", deps.join(", ")));
    }
    text
}

/// Adds the bundled runtime under `dir` (`rust/toolgen-runtime`).
pub fn add_bundled(out: &mut GeneratedFiles, dir: &str, regenerate: &str) {
    out.add(format!("{dir}/Cargo.toml"), cargo_toml(regenerate));
    for (path, text) in FILES {
        out.add(format!("{dir}/{path}"), *text);
    }
}

/// Whether a runtime of version `runtime` can link code that toolgen of
/// version `generator` wrote: Cargo's `^generator` (same major version, or
/// same minor for 0.x; not older). `None` when a version does not parse.
pub fn compatible(generator: &str, runtime: &str) -> Option<bool> {
    let parse = |v: &str| -> Option<(u64, u64, u64)> {
        let core = v.split(['-', '+']).next()?;
        let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
        let v = (it.next()??, it.next()??, it.next()??);
        it.next().is_none().then_some(v)
    };
    let (g, r) = (parse(generator)?, parse(runtime)?);
    let same_line = if g.0 == 0 {
        r.0 == 0 && r.1 == g.1
    } else {
        r.0 == g.0
    };
    Some(same_line && r >= g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_compatible_as_cargo_reads_a_caret_requirement() {
        assert_eq!(compatible("0.1.0", "0.1.0"), Some(true));
        assert_eq!(compatible("0.1.0", "0.1.5"), Some(true));
        assert_eq!(compatible("0.1.3", "0.1.2"), Some(false));
        assert_eq!(compatible("0.1.0", "0.2.0"), Some(false));
        assert_eq!(compatible("1.2.0", "1.9.1"), Some(true));
        assert_eq!(compatible("1.2.0", "2.0.0"), Some(false));
        assert_eq!(compatible("0.1.0", "x"), None);
    }

    #[test]
    fn dependency_lines() {
        assert_eq!(
            dependency(&RuntimeSource::Bundled, "toolgen-runtime"),
            format!("toolgen-runtime = {{ version = \"{VERSION}\", path = \"toolgen-runtime\" }}")
        );
        let git = RuntimeSource::parse("git=https://example.org/toolgen.git,tag=v1").ok();
        assert_eq!(
            git.map(|g| dependency(&g, "")),
            Some(format!(
                "toolgen-runtime = {{ version = \"{VERSION}\", git = \"https://example.org/toolgen.git\", tag = \"v1\" }}"
            ))
        );
        assert!(RuntimeSource::parse("path=\"x").is_err());
        assert!(RuntimeSource::parse("nope").is_err());
        assert!(RuntimeSource::parse("git=u,commit=1").is_err());
    }
}
