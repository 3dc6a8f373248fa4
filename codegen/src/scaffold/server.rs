//! `toolgen init --server`: a Rust MCP server around the new tool set, in
//! the Cargo package that holds it (`cargo new` first): a `build.rs` that
//! generates the tools' module, a `src/main.rs` that implements the example
//! tool and serves it over stdio or Streamable HTTP (`--http ADDR`), and the
//! dependencies both need, added to `Cargo.toml`.
//!
//! Everything is checked before anything is written: the package exists, has
//! no `build.rs`, no `src/main.rs` but `cargo new`'s, and names none of the
//! dependencies yet. Nothing the author wrote is overwritten.

use std::path::{Path, PathBuf};

use crate::ir::{Format, RuntimeSource};

/// The server library a scaffolded `main.rs` is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    /// toolgen-runtime's own `Server` (the default: no async, its
    /// transports, the Unity and R bridges).
    Toolgen,
    /// rmcp, the official Rust SDK: the generated `router` inside an rmcp
    /// `ServerHandler`, on rmcp's transports.
    Rmcp,
}

/// The `main.rs` `cargo new` writes, which `init --server` may replace.
const CARGO_NEW_MAIN: &str = "fn main() {\n    println!(\"Hello, world!\");\n}\n";

/// The package a server is scaffolded in, checked.
pub(super) struct Package {
    root: PathBuf,
    manifest: String,
}

/// Which crates the scaffold adds (its `[dependencies]` keys).
fn added(kind: ServerKind) -> &'static [&'static str] {
    match kind {
        ServerKind::Toolgen => &["serde", "serde_json", "toolgen-runtime"],
        ServerKind::Rmcp => &[
            "serde",
            "serde_json",
            "toolgen-runtime",
            "rmcp",
            "tokio",
            "hyper",
            "hyper-util",
        ],
    }
}

/// The Cargo package that holds the tool set's directory `dir`, if a server
/// can be scaffolded in it.
pub(super) fn package_of(dir: &Path, kind: ServerKind) -> Result<Package, String> {
    let dir = std::path::absolute(dir).map_err(|e| format!("`{}`: {e}", dir.display()))?;
    let root = dir.parent().unwrap_or(&dir).to_path_buf();
    let cargo = root.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&cargo).map_err(|_| {
        format!(
            "`--server` writes the server into the Cargo package that holds `{}`, and `{}` has no Cargo.toml; create one first (`cargo new NAME`, then `toolgen init tools ...` inside it)",
            dir.display(),
            root.display()
        )
    })?;
    if !manifest.lines().any(|l| l.trim() == "[dependencies]") {
        return Err(format!(
            "`{}` has no `[dependencies]` table to add the server's dependencies to",
            cargo.display()
        ));
    }
    if let Some(name) = added(kind)
        .iter()
        .chain(["toolgen"].iter())
        .find(|n| named(&manifest, n))
    {
        return Err(format!(
            "`{}` already names `{name}`; `--server` adds its dependencies itself, to a package made by `cargo new`",
            cargo.display()
        ));
    }
    let build = root.join("build.rs");
    if build.exists() {
        return Err(format!(
            "`{}` already exists; toolgen does not overwrite it",
            build.display()
        ));
    }
    let main = root.join("src/main.rs");
    if let Ok(text) = std::fs::read_to_string(&main) {
        if text != CARGO_NEW_MAIN {
            return Err(format!(
                "`{}` is not the one `cargo new` writes; toolgen does not overwrite it",
                main.display()
            ));
        }
    }
    Ok(Package { root, manifest })
}

/// Whether a Cargo.toml names the crate `name` as a dependency.
fn named(manifest: &str, name: &str) -> bool {
    manifest.lines().any(|l| {
        let key = l.split('=').next().unwrap_or("").trim();
        key == name || key.starts_with(&format!("{name}."))
    })
}

/// What the scaffold's files name: the tool set and its example tool.
pub(super) struct Names<'a> {
    pub(super) set: &'a str,
    pub(super) tool: &'a str,
    pub(super) format: Format,
}

/// Writes `build.rs`, `src/main.rs` and the dependencies into `package`,
/// for the tool set in `dir`; the paths written.
pub(super) fn write(
    package: &Package,
    dir: &Path,
    names: &Names<'_>,
    kind: ServerKind,
    source: &RuntimeSource,
) -> Result<Vec<PathBuf>, String> {
    let dir = std::path::absolute(dir).map_err(|e| format!("`{}`: {e}", dir.display()))?;
    let input = super::text::relative(&package.root, &dir);
    let build = package.root.join("build.rs");
    super::text::create(&build, &build_rs(&input))?;
    let main = package.root.join("src/main.rs");
    crate::output::write_atomic(&main, main_rs(names, kind).as_bytes())
        .map_err(|e| format!("cannot write `{}`: {e}", main.display()))?;
    let cargo = package.root.join("Cargo.toml");
    let manifest = with_dependencies(&package.manifest, kind, source);
    crate::output::write_atomic(&cargo, manifest.as_bytes())
        .map_err(|e| format!("cannot write `{}`: {e}", cargo.display()))?;
    Ok(vec![build, main, cargo])
}

fn build_rs(input: &str) -> String {
    format!(
        "// build.rs\nfn main() -> Result<(), toolgen::BuildError> {{\n    toolgen::Generator::new().input({input:?}).rust().compile()\n}}\n"
    )
}

/// A crate of the toolgen repository (`runtime`, `codegen`) as `source` names it.
fn toolgen_crate(source: &RuntimeSource, folder: &str) -> String {
    match source {
        RuntimeSource::Path(p) => format!(
            "path = {:?}",
            format!("{}/{folder}", p.trim_end_matches('/'))
        ),
        RuntimeSource::Git { url, reference } => {
            let reference = reference
                .as_ref()
                .map(|(k, v)| format!(", {k} = {v:?}"))
                .unwrap_or_default();
            format!("git = {url:?}{reference}")
        }
        RuntimeSource::Version(req) => format!("version = {req:?}"),
        RuntimeSource::Bundled => format!("version = {:?}", crate::emit::runtime_crate::VERSION),
    }
}

/// `manifest` with the server's dependencies at the top of `[dependencies]`
/// and `toolgen` in `[build-dependencies]`.
fn with_dependencies(manifest: &str, kind: ServerKind, source: &RuntimeSource) -> String {
    let runtime = toolgen_crate(source, "runtime");
    let mut deps = vec![
        "serde = { version = \"1\", features = [\"derive\"] }".to_owned(),
        "serde_json = \"1\"".to_owned(),
    ];
    match kind {
        ServerKind::Toolgen => {
            deps.push(format!(
                "toolgen-runtime = {{ {runtime}, features = [\"http\"] }}"
            ));
        }
        ServerKind::Rmcp => {
            deps.push(format!(
                "toolgen-runtime = {{ {runtime}, features = [\"rmcp\"] }}"
            ));
            deps.extend(
                [
                    "rmcp = { version = \"3.11\", features = [\"transport-io\", \"transport-streamable-http-server\"] }",
                    "tokio = { version = \"1\", features = [\"rt-multi-thread\", \"macros\", \"net\"] }",
                    "hyper = { version = \"1\", features = [\"server\", \"http1\"] }",
                    "hyper-util = { version = \"0.1\", features = [\"tokio\", \"service\"] }",
                ]
                .map(str::to_owned),
            );
        }
    }
    let build = format!(
        "toolgen = {{ {}, default-features = false }}",
        toolgen_crate(source, "codegen")
    );
    let mut out = String::with_capacity(manifest.len() + 512);
    let mut in_build_deps = false;
    for line in manifest.lines() {
        out.push_str(line);
        out.push('\n');
        match line.trim() {
            "[dependencies]" => {
                for d in &deps {
                    out.push_str(d);
                    out.push('\n');
                }
            }
            "[build-dependencies]" => {
                out.push_str(&build);
                out.push('\n');
                in_build_deps = true;
            }
            _ => {}
        }
    }
    if !in_build_deps {
        out.push_str(&format!("\n[build-dependencies]\n{build}\n"));
    }
    out
}

/// The example tool's method, laid out as rustfmt lays it out.
fn method(trait_: &str, tool: &str, format: Format) -> String {
    let one_line = format!(
        "    fn {tool}(&self, _call: &mut Call, input: {tool}::Input) -> Result<{tool}::Output, ToolError> {{"
    );
    let signature = if one_line.len() <= 100 {
        one_line
    } else {
        format!(
            "    fn {tool}(\n        &self,\n        _call: &mut Call,\n        input: {tool}::Input,\n    ) -> Result<{tool}::Output, ToolError> {{"
        )
    };
    // RAVE's `returns` members are optional.
    let greeting = match format {
        Format::Rave => "Some(format!(\"Hello, {}!\", input.name))",
        Format::Mcp | Format::EditorMcp => "format!(\"Hello, {}!\", input.name)",
    };
    format!(
        "impl {trait_} for Tools {{\n{signature}\n        Ok({tool}::Output {{\n            greeting: {greeting},\n        }})\n    }}\n}}"
    )
}

fn main_rs(names: &Names<'_>, kind: ServerKind) -> String {
    let set = crate::ident::rust_snake(names.set);
    let trait_ = format!("{}Tools", crate::ident::pascal(names.set));
    let tool = crate::ident::rust_snake(names.tool);
    let values = std::collections::BTreeMap::from([
        ("set", set.clone()),
        ("uses", format!("use {set}::{{{trait_}, {tool}}};")),
        ("method", method(&trait_, &tool, names.format)),
    ]);
    let template = match kind {
        ServerKind::Toolgen => TOOLGEN_MAIN,
        ServerKind::Rmcp => RMCP_MAIN,
    };
    super::text::fill(template, values)
}

/// A server on toolgen-runtime.
const TOOLGEN_MAIN: &str = r#"// src/main.rs
//! The `{{ set }}` tools over MCP: stdio, or Streamable HTTP with `--http ADDR`.
use std::sync::Arc;

use toolgen_runtime::server::http::HttpFlags;
use toolgen_runtime::{Call, Server, ServerInfo, ToolError};

toolgen_runtime::include_tools!(); // the module `{{ set }}`, from the tool set's name

{{ uses }}

/// The tools: one method per spec.
struct Tools;

{{ method }}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let info = ServerInfo::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    let server = Server::new(info, {{ set }}::TIERS, "core");
    let server = {{ set }}::register(server, Arc::new(Tools))?;
    let args: Vec<String> = std::env::args().collect();
    let http = args.iter().position(|a| a == "--http");
    match http.and_then(|i| args.get(i + 1)) {
        Some(address) => {
            let flags = HttpFlags {
                address,
                stateless: false,
                origins: &[],
                token_env: None,
                token_file: None,
            };
            flags.serve(server, env!("CARGO_PKG_NAME"))?;
        }
        None => server.serve(std::io::stdin().lock(), std::io::stdout())?,
    }
    Ok(())
}
"#;

/// A server on rmcp.
const RMCP_MAIN: &str = r#"// src/main.rs
//! The `{{ set }}` tools served by rmcp, the official Rust MCP SDK: over stdio, or over
//! Streamable HTTP with `--http ADDR`.
use std::sync::Arc;

use hyper_util::{rt::TokioIo, service::TowerToHyperService};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ServerHandler, ServiceExt, tool_handler};
use toolgen_runtime::{Call, ToolError};

toolgen_runtime::include_tools!(); // the module `{{ set }}`, from the tool set's name

{{ uses }}

/// The tools: one method per spec, the same trait toolgen-runtime serves.
struct Tools;

{{ method }}

/// The MCP server: rmcp's, with the generated tools as its router.
#[derive(Clone)]
struct Server {
    tools: ToolRouter<Server>,
}

#[tool_handler(router = self.tools)]
impl ServerHandler for Server {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server {
        tools: {{ set }}::router(Arc::new(Tools))?,
    };
    let args: Vec<String> = std::env::args().collect();
    let http = args.iter().position(|a| a == "--http");
    let Some(address) = http.and_then(|i| args.get(i + 1)) else {
        let running = server.serve(rmcp::transport::stdio()).await?;
        running.waiting().await?;
        return Ok(());
    };
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = connection.await {
                eprintln!("{e}");
            }
        });
    }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate as `cargo new` makes it, in a directory of its own.
    fn cargo_new(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("toolgen-scaffold-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |p: &str, t: &str| {
            let path = dir.join(p);
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(&dir));
            std::fs::write(&path, t).unwrap_or_else(|e| panic!("{e}"));
        };
        write(
            "Cargo.toml",
            "[package]\nname = \"w\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n",
        );
        write("src/main.rs", CARGO_NEW_MAIN);
        dir
    }

    #[test]
    fn dependencies_go_first_in_their_tables() {
        let source = RuntimeSource::Path("../toolgen".into());
        let manifest = "[package]\nname = \"w\"\n\n[dependencies]\nanyhow = \"1\"\n\n[build-dependencies]\ncc = \"1\"\n";
        let out = with_dependencies(manifest, ServerKind::Toolgen, &source);
        assert_eq!(
            out,
            "[package]\nname = \"w\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nserde_json = \"1\"\ntoolgen-runtime = { path = \"../toolgen/runtime\", features = [\"http\"] }\nanyhow = \"1\"\n\n[build-dependencies]\ntoolgen = { path = \"../toolgen/codegen\", default-features = false }\ncc = \"1\"\n"
        );
        let git = RuntimeSource::Git {
            url: "https://example.org/toolgen".into(),
            reference: Some(("tag".into(), "v1".into())),
        };
        let out = with_dependencies("[dependencies]\n", ServerKind::Rmcp, &git);
        assert!(out.contains("toolgen-runtime = { git = \"https://example.org/toolgen\", tag = \"v1\", features = [\"rmcp\"] }\n"), "{out}");
        assert!(out.ends_with("\n[build-dependencies]\ntoolgen = { git = \"https://example.org/toolgen\", tag = \"v1\", default-features = false }\n"), "{out}");
    }

    #[test]
    fn nothing_of_the_authors_is_overwritten() {
        let dir = cargo_new("refusals");
        let tools = dir.join("tools");
        assert!(package_of(&tools, ServerKind::Rmcp).is_ok());
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap_or_else(|e| panic!("{e}"));
        let e = package_of(&tools, ServerKind::Rmcp)
            .err()
            .unwrap_or_default();
        assert!(
            e.contains("src/main.rs") && e.contains("does not overwrite"),
            "{e}"
        );
        std::fs::remove_file(dir.join("src/main.rs")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("build.rs"), "fn main() {}\n").unwrap_or_else(|e| panic!("{e}"));
        let e = package_of(&tools, ServerKind::Rmcp)
            .err()
            .unwrap_or_default();
        assert!(e.contains("build.rs"), "{e}");
        std::fs::remove_file(dir.join("build.rs")).unwrap_or_else(|e| panic!("{e}"));
        let cargo = dir.join("Cargo.toml");
        let with_tokio = "[package]\nname = \"w\"\n\n[dependencies]\ntokio = \"1\"\n";
        std::fs::write(&cargo, with_tokio).unwrap_or_else(|e| panic!("{e}"));
        let e = package_of(&tools, ServerKind::Rmcp)
            .err()
            .unwrap_or_default();
        assert!(e.contains("already names `tokio`"), "{e}");
        assert!(
            package_of(&tools, ServerKind::Toolgen).is_ok(),
            "tokio is rmcp's only"
        );
        std::fs::remove_file(&cargo).unwrap_or_else(|e| panic!("{e}"));
        let e = package_of(&tools, ServerKind::Toolgen)
            .err()
            .unwrap_or_default();
        assert!(e.contains("cargo new"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A refused `--server` writes nothing, not even the tool set; an
    /// accepted one writes the three files.
    #[test]
    fn init_writes_all_or_nothing() {
        let dir = cargo_new("init");
        std::fs::write(dir.join("build.rs"), "fn main() {}\n").unwrap_or_else(|e| panic!("{e}"));
        let source = RuntimeSource::Path("../toolgen".into());
        let tools = dir.join("tools");
        let server = Some((ServerKind::Rmcp, &source));
        assert!(super::super::init(&tools, Format::Mcp, Some("weather"), None, server).is_err());
        assert!(!tools.exists(), "nothing written");
        std::fs::remove_file(dir.join("build.rs")).unwrap_or_else(|e| panic!("{e}"));
        let done = super::super::init(&tools, Format::Mcp, Some("weather"), None, server)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(done.server.len(), 3);
        let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap_or_default();
        assert!(
            main.contains("tools: weather::router(Arc::new(Tools))?"),
            "{main}"
        );
        assert!(main.lines().all(|l| l.len() <= 100), "{main}");
        let build = std::fs::read_to_string(dir.join("build.rs")).unwrap_or_default();
        assert!(build.contains(".input(\"tools\")"), "{build}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
