//! `cargo xtask bench-calls`: instructions per in-process typed `tools/call`,
//! counted by valgrind's callgrind.
//!
//! Wall-clock medians on a shared 2-core VM move by ±30% between runs; the
//! number of instructions a call executes does not. This runs the divan
//! benchmark `tests/benches/typed_call.rs` (its `Execution::Inline` cases: with
//! a worker thread, the spinning handoff would be counted as work) under
//! callgrind, collecting only inside its `one_call` (`Server::handle`), and divides by the
//! number of calls: a fixed 10 samples of 1,000, plus the one call the
//! benchmark makes first to check the answer. The `_crate_validator` cases (inline too)
//! are the same calls with the `jsonschema` crate deciding instead of the
//! validator toolgen compiled.

use std::path::Path;
use std::process::Command;

use crate::tools::{apt_install, cargo, step};

const SAMPLES: u64 = 10;
const SAMPLE_SIZE: u64 = 1000;

pub fn run(root: &Path) -> Result<(), String> {
    if toolgen_tests::which("valgrind").is_none() {
        apt_install(&["valgrind"])?;
    }
    let bench = bench_executable()?;
    let out_dir = root.join("target/bench-calls");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    println!("| case | instructions per call |\n|---|---:|");
    for case in [
        "envelope_inline",
        "mcp_inline",
        "envelope_crate_validator",
        "mcp_crate_validator",
    ] {
        let out = out_dir.join(format!("callgrind.{case}"));
        step(
            &format!("callgrind: {case}"),
            Command::new("valgrind")
                .arg("--tool=callgrind")
                .arg("--toggle-collect=*one_call")
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(&bench)
                .args(["--bench", case])
                .args(["--sample-count", &SAMPLES.to_string()])
                .args(["--sample-size", &SAMPLE_SIZE.to_string()])
                .stdout(std::process::Stdio::null()),
        )?;
        let total = collected(&out)?;
        let calls = SAMPLES * SAMPLE_SIZE + 1;
        println!("| {case} | {} |", total / calls);
    }
    Ok(())
}

/// The compiled typed_call benchmark, from cargo's JSON messages.
fn bench_executable() -> Result<String, String> {
    let output = crate::tools::output(
        "cargo bench --no-run",
        cargo()
            .args(["bench", "-p", "toolgen-tests", "--bench", "typed_call"])
            .args(["--no-run", "--message-format=json"]),
    )?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["target"]["name"] == "typed_call")
        .find_map(|m| m["executable"].as_str().map(str::to_owned))
        .ok_or_else(|| "cargo did not report the typed_call benchmark's executable".to_owned())
}

/// The instruction total callgrind collected: its `summary:` (or `totals:`) line.
fn collected(file: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("{}: no instruction total", file.display()))
}
