//! Project automation: `cargo xtask <command>`.
//!
//! - `gen [--check]`: regenerate `generated/` (and docs/rules.md) from `tool-specs/`, and
//!   `tests/generated-hostile/` from `tests/fixtures/rust-hostile/`,
//!   `tests/generated-realworld/` from `tests/fixtures/mcp-realworld/`,
//!   `tests/generated-rave/` from `tests/fixtures/rave-package/`;
//!   with `--check`, write nothing and fail naming every stale, missing or extra file.
//! - `bench [--sizes 1000,10000] [--runs 3] [--peers] [--check-rounds 1]`: the
//!   end-to-end generator benchmark; `--peers` adds quicktype and cargo-typify on
//!   the same tools, and `cargo check` of each one's Rust, in turn, each round.
//! - `test`: the whole test suite, as CI runs it (installs what it needs).
//! - `docs [--browser]`: build the docs site with mdBook and check it.
//! - `bench-server`: MCP over stdio, `editormcp-server` against the Python SDK.
//! - `bench-r`: calls per second through the R bridge (`rave-server`).
//! - `bench-calls`: instructions per in-process typed `tools/call` (callgrind).
//! - `outside`: README's "Use toolgen in your project", followed in a directory
//!   outside the workspace (also a step of `test`).
//! - `fuzz [--target wire|http] [--runs N]`: coverage-guided fuzzing of the
//!   runtime's wire (a short run is a step of `test`).

mod bench;
mod bench_calls;
mod bench_peers;
mod bench_server;
mod docs;
mod fuzz;
mod fuzz_compile;
mod outside;
mod schema_suite;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use toolgen::GenerateError;
use toolgen::emit::GeneratedFiles;
use toolgen::output;
use toolgen_tests::{TREES, tree_generator};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let result = match args.first().map(String::as_str) {
        Some("gen") => generate(rest.contains(&"--check")),
        Some("bench") => bench::run(&root(), &rest),
        Some("test") => test(),
        Some("docs") => docs::run(&rest),
        Some("bench-calls") => bench_calls::run(&root()),
        Some("fuzz-compile") => fuzz_compile::run(&root(), &rest),
        Some("fuzz") => fuzz::run(&root(), &rest),
        Some("schema-suite") => schema_suite::run(&root()),
        Some("outside") => python_venv().and_then(|py| outside::run_all(&root(), &py)),
        Some("bench-server") => python_venv().and_then(|py| bench_server::run(&root(), &py)),
        Some("bench-r") => bench_server::run_r(&root()),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n  gen [--check]   regenerate generated/ from tool-specs/ (--check: fail if stale)\n  bench [--sizes 1000,10000] [--runs N]\n                  end-to-end generator benchmark (time and peak memory)\n  docs [--browser] build the docs site (mdBook) into target/docs-site and check it\n  test            the whole test suite, as CI runs it\n  outside         README's \"Use toolgen in your project\" in a directory outside the workspace\n  bench-server    MCP over stdio: editormcp-server against the official Python SDK\n  bench-r         calls/s through the R bridge (rave-server and an R worker)\n  bench-calls     instructions per in-process typed tools/call (valgrind callgrind)\n  fuzz-compile [--cases N] [--seed S]\n                  mutated schemas: every accepted spec's Rust and C# must compile,\n                  and its Rust types round-trip valid instances\n  schema-suite    the JSON-Schema-Test-Suite (draft 2020-12) through toolgen's compiled validators\n  fuzz [--target wire|http] [--runs N]\n                  coverage-guided fuzzing of the runtime's wire (cargo-fuzz, FUZZING.md)"
            );
            Err("unknown command".to_owned())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Files outside `generated/` that are generated too.
fn extra_files() -> GeneratedFiles {
    let mut files = GeneratedFiles::new();
    files.add("rules.md", toolgen::diag::rules_markdown());
    // The JSON Schemas of the spec formats and of toolset.yaml, for editors.
    for (name, schema) in toolgen::spec_schemas::all() {
        files.add(
            format!("schemas/{name}"),
            toolgen::spec_schemas::to_text(&schema),
        );
    }
    files
}

fn generate(check: bool) -> Result<(), String> {
    let root = root();
    let docs = root.join("docs");
    if check {
        let mut problems = Vec::new();
        for tree in TREES {
            let dir = tree.1;
            let (_, report) = tree_generator(&root, tree).check().map_err(describe)?;
            for (kind, list) in [
                ("stale", &report.stale),
                ("missing", &report.missing),
                ("extra", &report.extra),
            ] {
                problems.extend(list.iter().map(|p| format!("{kind}: {dir}/{p}")));
            }
        }
        for (rel, contents) in extra_files().iter() {
            if std::fs::read(docs.join(rel)).ok().as_deref() != Some(contents) {
                problems.push(format!("stale: docs/{rel}"));
            }
        }
        if problems.is_empty() {
            eprintln!(
                "generated/, tests/generated-hostile/, tests/generated-realworld/, tests/generated-rave/, docs/rules.md and docs/schemas/ are up to date"
            );
            return Ok(());
        }
        for p in &problems {
            eprintln!("{p}");
        }
        return Err(format!(
            "{} generated file(s) out of date; run `cargo xtask gen`",
            problems.len()
        ));
    }
    for tree in TREES {
        let done = tree_generator(&root, tree)
            .cache_dir(Some(root.join("target/toolgen-cache")))
            .generate()
            .map_err(describe)?;
        eprintln!(
            "{}/: {} tools in {} tool set(s): {} file(s) written, {} unchanged, {} removed",
            tree.1,
            done.summary.tools,
            done.summary.tool_sets,
            done.report.written.len(),
            done.report.unchanged,
            done.report.removed.len()
        );
    }
    for (rel, contents) in extra_files().iter() {
        let path = docs.join(rel);
        if std::fs::read(&path).ok().as_deref() != Some(contents) {
            output::write_atomic(&path, contents).map_err(|e| e.to_string())?;
            eprintln!("wrote docs/{rel}");
        }
    }
    Ok(())
}

fn describe(e: GenerateError) -> String {
    e.to_string()
}

/// Runs `cmd` (described as `what`) to completion; when it fails, the error
/// holds its status and everything it printed.
pub fn output(what: &str, cmd: &mut Command) -> Result<std::process::Output, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            printed(&out)
        ));
    }
    Ok(out)
}

/// What a finished command printed: stderr, then stdout.
pub fn printed(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    )
}

pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

pub fn step(name: &str, cmd: &mut Command) -> Result<(), String> {
    eprintln!("==> {name}");
    let status = cmd
        .current_dir(root())
        .status()
        .map_err(|e| format!("{name}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} failed ({status})"))
    }
}

/// Runs a step that is a function, announced like the others.
fn step_fn(name: &str, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    eprintln!("==> {name}");
    f().map_err(|e| format!("{name}: {e}"))
}

/// A venv under target/ with the official MCP Python SDK (PyPI `mcp`), created
/// when missing; returns its python.
fn python_venv() -> Result<PathBuf, String> {
    const MCP_VERSION: &str = "2.3.0";
    let venv = root().join("target/py-venv");
    let python = venv.join("bin/python");
    let installed = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if installed.as_deref() != Some(MCP_VERSION) {
        step(
            "python3 -m venv target/py-venv",
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
        )?;
        step(
            &format!("pip install mcp=={MCP_VERSION}"),
            Command::new(venv.join("bin/pip")).args([
                "install",
                "--quiet",
                &format!("mcp=={MCP_VERSION}"),
            ]),
        )?;
    }
    Ok(python)
}

/// The official MCP Python SDK (PyPI `mcp`), in a venv under target/, drives
/// `editormcp-server` over stdio (tests/mcp_client/client.py).
/// Builds `editormcp-server` (release or debug) and returns the binary's path.
pub fn build_server(release: bool) -> Result<PathBuf, String> {
    let profile = if release { "release" } else { "debug" };
    let mut cmd = cargo();
    cmd.args([
        "build",
        "--quiet",
        "-p",
        "editormcp-server",
        "--bin",
        "editormcp-server",
    ]);
    if release {
        cmd.arg("--release");
    }
    step(
        &format!("cargo build ({profile}) --bin editormcp-server"),
        &mut cmd,
    )?;
    Ok(root().join("target").join(profile).join("editormcp-server"))
}

fn mcp_client() -> Result<(), String> {
    let python = python_venv()?;
    let server = build_server(false)?;
    step(
        "MCP Python SDK client against editormcp-server",
        Command::new(&python)
            .arg(root().join("tests/mcp_client/client.py"))
            .arg(&server),
    )?;
    step(
        "MCP Python SDK Streamable HTTP client against editormcp-server --http",
        Command::new(&python)
            .arg(root().join("tests/mcp_client/http_client.py"))
            .arg(&server),
    )
}

/// The official MCP Python SDK against `rave-server` serving
/// `tool-specs/rave/` with the demo R package (tests/mcp_client/rave_client.py).
fn rave_client(r_lib: &Path) -> Result<(), String> {
    let python = python_venv()?;
    step(
        "cargo build -p rave-server",
        cargo().args(["build", "--quiet", "-p", "rave-server"]),
    )?;
    step(
        "MCP Python SDK client against rave-server (stdio and HTTP, R worker)",
        Command::new(&python)
            .arg(root().join("tests/mcp_client/rave_client.py"))
            .arg(root().join("target/debug/rave-server"))
            .arg(r_lib),
    )
}

/// Mono's C# compiler and runtime and Newtonsoft.Json, which the C# tests
/// (tests/tests/csharp.rs) compile and run the generated bridge with: Debian
/// packages, installed with apt-get when missing (as root, or through sudo).
pub fn mono_toolchain() -> Result<(), String> {
    const PACKAGES: &[&str] = &["mono-mcs", "mono-runtime", "libnewtonsoft-json-cil-dev"];
    use toolgen_tests::{newtonsoft_json_dll, which};
    if which("mcs").is_some() && which("mono").is_some() && newtonsoft_json_dll().is_some() {
        return Ok(());
    }
    apt_install(PACKAGES)
}

/// R with jsonlite (Debian packages, installed with apt-get when missing),
/// and the demo R package behind `tool-specs/rave/` installed into
/// `target/r-lib`, which it returns.
pub fn r_toolchain() -> Result<PathBuf, String> {
    let has_r = Command::new("Rscript")
        .args([
            "-e",
            "quit(status = if (requireNamespace('jsonlite', quietly = TRUE)) 0 else 3)",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_r {
        apt_install(&["r-base-core", "r-cran-jsonlite", "r-cran-fastmap"])?;
    }
    let lib = root().join("target/r-lib");
    std::fs::create_dir_all(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    step(
        "R CMD INSTALL runtime/rave-server/ravedemo (into target/r-lib)",
        Command::new("R")
            .args(["CMD", "INSTALL", "--no-test-load", "-l"])
            .arg(&lib)
            .arg(root().join("runtime/rave-server/ravedemo")),
    )?;
    Ok(lib)
}

/// Installs Debian packages with apt-get (as root, or through sudo).
pub fn apt_install(packages: &[&str]) -> Result<(), String> {
    let root_user = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let sudo: &[&str] = if root_user { &[] } else { &["sudo"] };
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = sudo.to_vec();
        all.extend_from_slice(args);
        let mut cmd = Command::new(all[0]);
        cmd.args(&all[1..]).env("DEBIAN_FRONTEND", "noninteractive");
        step(&all.join(" "), &mut cmd)
    };
    run(&["apt-get", "update", "-qq"])?;
    let mut install = vec!["apt-get", "install", "-y", "-qq"];
    install.extend_from_slice(packages);
    run(&install)
}

fn test() -> Result<(), String> {
    step(
        "cargo fmt --check",
        cargo().args(["fmt", "--all", "--check"]),
    )?;
    step(
        "cargo clippy",
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    mono_toolchain()?;
    let r_lib = r_toolchain()?;
    // The R bridge's tests fail, instead of skipping, without R.
    step(
        "cargo test",
        cargo()
            .args(["test", "--workspace"])
            .env("TOOLGEN_REQUIRE_R", "1"),
    )?;
    mcp_client()?;
    rave_client(&r_lib)?;
    step_fn(
        "toolgen outside this repository (README's \"Use toolgen in your project\")",
        || outside::run_all(&root(), &python_venv()?),
    )?;
    // A short run of the compile fuzzer: every spec it mutates that validation
    // accepts must give Rust and C# that compile and types that round-trip.
    step_fn("cargo xtask fuzz-compile --cases 12 --seed 2", || {
        fuzz_compile::run(&root(), &["--cases", "12", "--seed", "2"])
    })?;
    step_fn("cargo xtask schema-suite", || schema_suite::run(&root()))?;
    // A short run of each wire fuzz target (FUZZING.md has the long runs).
    step_fn("cargo xtask fuzz --runs 20000", || {
        fuzz::run(&root(), &["--runs", "20000"])
    })?;
    docs::run(&["--browser"])?;
    step_fn(
        "toolgen breaking --against HEAD~1 tool-specs",
        breaking_against_previous,
    )?;
    eprintln!("==> cargo xtask gen --check");
    generate(true)
}

/// The shipped specs against the previous commit: a breaking change fails
/// the run unless a tool set's `lints` accept it. Skipped, with a notice,
/// where there is no previous commit (a shallow clone) or no git.
fn breaking_against_previous() -> Result<(), String> {
    let root = root();
    let has_parent = Command::new("git")
        .args(["rev-parse", "--verify", "--quiet", "HEAD~1^{commit}"])
        .current_dir(&root)
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parent {
        eprintln!(
            "SKIPPED: no previous commit to compare with (a shallow clone, or not a git checkout)"
        );
        return Ok(());
    }
    let status = cargo()
        .args([
            "run",
            "--quiet",
            "-p",
            "toolgen",
            "--",
            "breaking",
            "--against",
            "HEAD~1",
            "tool-specs",
        ])
        .current_dir(&root)
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err("the shipped specs break their callers (see above); accept the change in the tool set's `lints` if it is deliberate".to_owned())
    }
}
