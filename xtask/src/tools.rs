//! The programs the tasks run, and the toolchains they install when missing
//! (Mono, R, a Python venv with the MCP SDK): each run reported as a step.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
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

/// `npm install`s `packages` into `prefix` (under `target/`), announced as
/// a step.
pub fn npm_install(prefix: &Path, packages: &[&str]) -> Result<(), String> {
    let shown = prefix.strip_prefix(root()).unwrap_or(prefix).display();
    step(
        &format!("npm install {} (into {shown})", packages.join(" ")),
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(prefix)
            .args(packages),
    )
}

/// Runs a step that is a function, announced like the others.
pub fn step_fn(name: &str, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    eprintln!("==> {name}");
    f().map_err(|e| format!("{name}: {e}"))
}

/// A venv under target/ with the official MCP Python SDK (PyPI `mcp`), created
/// when missing; returns its python.
pub fn python_venv() -> Result<PathBuf, String> {
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
/// and the R packages behind `tool-specs/rave/` (the demo) and
/// `tool-specs/conformance/` installed into `target/r-lib`, which it returns.
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
        "R CMD INSTALL ravedemo mcpconformance (into target/r-lib)",
        Command::new("R")
            .args(["CMD", "INSTALL", "--no-test-load", "-l"])
            .arg(&lib)
            .arg(root().join("runtime/rave-server/ravedemo"))
            .arg(root().join("runtime/conformance-server/mcpconformance")),
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
