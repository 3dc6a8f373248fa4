//! `rave-server`: serves a RAVE tool set (the MCP tools of an R package, as
//! `ravepipeline::mcptool_build()` writes them into `inst/mcp/tools/`) over
//! MCP, on stdio or Streamable HTTP. Each call runs the R function behind
//! the tool (`pkg-fn` is `pkg:::fn`, or as the manifest's `r` says) in a
//! kept R worker, with one state object (`.state_env`) per worker.
//!
//! ```text
//! rave-server SPECS... [--toolset NAME] [--r-lib DIR]... [--workers N] [--timeout SECONDS]
//!             [--allow-dangerous] [--tier TIER] [--work-dir DIR]
//!             [--http ADDR [--stateless] [--allow-origin ORIGIN]... [--token-env VAR | --token-file PATH]]
//! ```
//!
//! The specs are read, validated and turned into the worker (`r/<set>/`)
//! with the `toolgen` library, exactly as `toolgen gen --outputs r` would:
//! a spec with errors is reported, located, and nothing is served. The
//! server then validates arguments against the specs' schemas before R sees
//! them, and the R functions' answers against the output schemas.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use toolgen::ir::{Project, ToolSet};
use toolgen_runtime::rbridge::{self, Approval, RBridge, RConfig};
use toolgen_runtime::{Server, ServerInfo, ToolDescriptor};

const USAGE: &str = "usage: rave-server SPECS... [--toolset NAME] [--r-lib DIR]... [--workers N] [--timeout SECONDS]\n                   [--allow-dangerous] [--tier TIER] [--work-dir DIR] [--rscript PATH]\n                   [--http ADDR [--stateless] [--allow-origin ORIGIN]... [--token-env VAR | --token-file PATH]] [--rmcp]";

/// What the command line asked for.
#[derive(Default)]
struct Options {
    specs: Vec<PathBuf>,
    toolset: Option<String>,
    libraries: Vec<PathBuf>,
    workers: Option<usize>,
    timeout: Option<Duration>,
    allow_dangerous: bool,
    tier: Option<String>,
    work_dir: Option<PathBuf>,
    rscript: Option<PathBuf>,
    http: Option<String>,
    stateless: bool,
    /// Served by rmcp's transports (`--rmcp`) instead of toolgen-runtime's.
    rmcp: bool,
    origins: Vec<String>,
    token_env: Option<String>,
    token_file: Option<String>,
}

/// The command line, or the exit code of a usage error (or of `--help`).
fn parse(args: &[String]) -> Result<Options, ExitCode> {
    let mut o = Options::default();
    let mut it = args.iter();
    let value = |v: Option<&String>, what: &str| -> Result<String, ExitCode> {
        v.cloned().ok_or_else(|| usage(what))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--toolset" => o.toolset = Some(value(it.next(), "--toolset needs a tool set's name")?),
            "--r-lib" => o
                .libraries
                .push(value(it.next(), "--r-lib needs a directory")?.into()),
            "--workers" => {
                let n = value(it.next(), "--workers needs a number")?;
                match n.parse::<usize>() {
                    Ok(n) if (1..=64).contains(&n) => o.workers = Some(n),
                    _ => return Err(usage("--workers needs a whole number from 1 to 64")),
                }
            }
            "--timeout" => {
                let s = value(it.next(), "--timeout needs seconds")?;
                match s.parse::<f64>() {
                    Ok(s) if s > 0.0 && s <= 86_400.0 => {
                        o.timeout = Some(Duration::from_secs_f64(s))
                    }
                    _ => {
                        return Err(usage(
                            "--timeout needs seconds, more than 0 and at most 86400",
                        ));
                    }
                }
            }
            "--allow-dangerous" => o.allow_dangerous = true,
            "--tier" => o.tier = Some(value(it.next(), "--tier needs a tier")?),
            "--work-dir" => {
                o.work_dir = Some(value(it.next(), "--work-dir needs a directory")?.into())
            }
            "--rscript" => o.rscript = Some(value(it.next(), "--rscript needs a path")?.into()),
            "--http" => {
                o.http = Some(value(
                    it.next(),
                    "--http needs an address, e.g. 127.0.0.1:8080",
                )?)
            }
            "--stateless" => o.stateless = true,
            "--rmcp" => o.rmcp = true,
            "--allow-origin" => o
                .origins
                .push(value(it.next(), "--allow-origin needs an origin")?),
            "--token-env" => {
                o.token_env = Some(value(it.next(), "--token-env needs a variable name")?)
            }
            "--token-file" => o.token_file = Some(value(it.next(), "--token-file needs a path")?),
            "--help" | "-h" => {
                println!(
                    "{USAGE}\n\nServes a RAVE tool set's specs (files or directories, e.g. an R package's inst/mcp/tools/) over MCP on stdio, or Streamable HTTP with --http (endpoint /mcp). Each call runs the tool's R function in an Rscript worker (R and the jsonlite package needed; --r-lib adds R libraries). Tools that are dangerous or require approval are refused unless --allow-dangerous is given. Without --timeout a tool's time limit is its spec's, else 300 s."
                );
                return Err(ExitCode::SUCCESS);
            }
            other if other.starts_with('-') => {
                return Err(usage(&format!("unknown argument `{other}`")));
            }
            spec => o.specs.push(spec.into()),
        }
    }
    if o.specs.is_empty() {
        return Err(usage("name the spec files or directories to serve"));
    }
    if o.http.is_none()
        && (o.stateless || !o.origins.is_empty() || o.token_env.is_some() || o.token_file.is_some())
    {
        return Err(usage(
            "--stateless, --allow-origin, --token-env and --token-file go with --http",
        ));
    }
    if o.rmcp && (!o.origins.is_empty() || o.token_env.is_some() || o.token_file.is_some()) {
        return Err(usage(
            "--allow-origin, --token-env and --token-file are toolgen-runtime's HTTP options, not rmcp's",
        ));
    }
    if o.token_env.is_some() && o.token_file.is_some() {
        return Err(usage("pass --token-env or --token-file, not both"));
    }
    Ok(o)
}

fn usage(message: &str) -> ExitCode {
    eprintln!("rave-server: {message}\n{USAGE}");
    ExitCode::from(2)
}

/// A directory removed when the server ends (the worker files, when no
/// `--work-dir` was given).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// mimalloc: a call served on a worker thread allocates on one thread and
/// frees on another, where glibc's allocator takes a lock (docs/decisions.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let (work, _temp) = match &o.work_dir {
        Some(d) => (d.clone(), None),
        None => {
            let d = std::env::temp_dir().join(format!("rave-server-{}", std::process::id()));
            (d.clone(), Some(TempDir(d)))
        }
    };
    let generated = toolgen::Generator::new()
        .inputs(&o.specs)
        .r()
        .out_dir(&work)
        .regenerate_command("rave-server")
        .generate();
    let project = match generated {
        Ok(g) => match g.loaded {
            Some(l) => l.project,
            None => {
                eprintln!("rave-server: the specs were not read");
                return ExitCode::FAILURE;
            }
        },
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let server = match build(&o, &project, &work) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rave-server: {e}");
            return ExitCode::from(2);
        }
    };
    let served = match &o.http {
        _ if o.rmcp => serve_rmcp(server, &o),
        Some(address) => serve_http(server, &o, address),
        None => server.serve(std::io::stdin().lock(), std::io::stdout()),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rave-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The tool set to serve: the one named, or the only one with R functions.
fn chosen<'p>(o: &Options, project: &'p Project) -> Result<&'p ToolSet, String> {
    let in_r: Vec<&ToolSet> = project
        .tool_sets
        .iter()
        .filter(|s| s.tools.iter().any(|t| t.r_function.is_some()))
        .collect();
    let names = || {
        project
            .tool_sets
            .iter()
            .map(|s| format!("`{}`", s.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (&o.toolset, in_r.as_slice()) {
        (Some(name), _) => project
            .tool_sets
            .iter()
            .find(|s| &s.name == name)
            .ok_or_else(|| {
                format!(
                    "there is no tool set `{name}` in the specs (there is {})",
                    names()
                )
            }),
        (None, [one]) => Ok(one),
        (None, []) => Err(format!(
            "no tool of these specs is implemented by an R function (tool sets: {}): RAVE tools are named `package-function`; for others, name the functions in the manifest's `r`",
            names()
        )),
        (None, _) => Err(format!(
            "the specs hold several tool sets with R functions ({}): choose one with --toolset",
            in_r.iter()
                .map(|s| format!("`{}`", s.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// A tool's descriptor, as the generated Rust's table would give it.
fn descriptor(set: &ToolSet, tool: &toolgen::ir::Tool) -> ToolDescriptor {
    let output = &tool.output;
    ToolDescriptor {
        id: tool.id.value.clone(),
        name: tool.name.value.clone(),
        description: tool.description_for_model().to_owned(),
        category: tool.category.value.clone(),
        safety_level: tool.safety.value.as_str().to_owned(),
        tier: tool.tier.value.clone(),
        input_schema: serde_json::to_value(tool.input.ordered(&tool.input.value))
            .unwrap_or_default(),
        output_schema: (!output.value.is_null())
            .then(|| serde_json::to_value(output.ordered(&output.value)).unwrap_or_default()),
        timeout: set.timeout_of(tool).map(Duration::from_secs_f64),
        requires_approval: tool.requires_approval,
        notes: tool.notes.as_ref().map(|n| n.value.clone()),
        entry: Some(toolgen::catalog_entry(set, tool)),
    }
}

/// The server the options describe.
fn build(o: &Options, project: &Project, work: &std::path::Path) -> Result<Server, String> {
    let set = chosen(o, project)?;
    let missing: Vec<&str> = set
        .tools
        .iter()
        .filter(|t| t.r_function.is_none())
        .map(|t| t.id.value.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "tool set `{}`: no R function implements {}: name them in the manifest's `r.functions`",
            set.name,
            missing.join(", ")
        ));
    }
    let tiers: Vec<&str> = set.tiers.iter().map(|t| t.id.as_str()).collect();
    let tier = match &o.tier {
        Some(t) if tiers.contains(&t.as_str()) => t.clone(),
        Some(t) => {
            return Err(format!(
                "tool set `{}` has no tier `{t}` (its tiers: {})",
                set.name,
                tiers.join(", ")
            ));
        }
        None => tiers
            .last()
            .map_or_else(|| "core".to_owned(), |t| (*t).to_owned()),
    };
    let dir = work.join("r").join(&set.name);
    let mut config = RConfig::new(dir.join("worker.R"), dir.join("tools.json"));
    config.libraries = o.libraries.clone();
    if let Some(n) = o.workers {
        config.workers = n;
    }
    if let Some(r) = &o.rscript {
        config.rscript = r.clone();
    }
    let info = ServerInfo::new("rave-server", env!("CARGO_PKG_VERSION"));
    let server = Server::new(info, &tiers, &tier);
    let descriptors = set
        .tools
        .iter()
        .map(|t| {
            let mut d = descriptor(set, t);
            if let Some(limit) = o.timeout {
                d.timeout = Some(limit);
            }
            d
        })
        .collect();
    let approval = if o.allow_dangerous {
        Approval::Allow
    } else {
        Approval::Refuse
    };
    rbridge::forward(
        server,
        descriptors,
        Arc::new(RBridge::new(config)),
        DEFAULT_TIMEOUT,
        approval,
    )
}

/// The time limit of tools whose specs state none (RAVE specs never do).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// `--rmcp`: served by rmcp, the official Rust SDK, over stdio or HTTP.
#[cfg(feature = "rmcp")]
fn serve_rmcp(server: Server, o: &Options) -> std::io::Result<()> {
    toolgen_runtime::server::rmcp::serve(server, "rave-server", o.http.as_deref(), o.stateless)
}

#[cfg(not(feature = "rmcp"))]
fn serve_rmcp(_: Server, _: &Options) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this rave-server was built without the `rmcp` feature",
    ))
}

#[cfg(feature = "http")]
fn serve_http(server: Server, o: &Options, address: &str) -> std::io::Result<()> {
    let flags = toolgen_runtime::server::http::HttpFlags {
        address,
        stateless: o.stateless,
        origins: &o.origins,
        token_env: o.token_env.as_deref(),
        token_file: o.token_file.as_deref(),
    };
    flags.serve(server, "rave-server")
}

#[cfg(not(feature = "http"))]
fn serve_http(_: Server, _: &Options, _: &str) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this rave-server was built without the `http` feature",
    ))
}
