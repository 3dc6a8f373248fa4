//! What the benchmarks share: where they write, and how the cost of
//! checking a generated crate and its size are measured.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the benchmarks write: `target/bench`, or `$TOOLGEN_BENCH_DIR` (a
/// tmpfs such as `/dev/shm/bench` takes the disk out of the numbers).
pub fn work_dir(root: &Path) -> PathBuf {
    std::env::var_os("TOOLGEN_BENCH_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/bench"))
}

/// Lines of Rust below `dir`.
/// `cargo check` of the crate at `krate`: its dependencies first (not
/// timed), then the crate alone after a touch, whole (`CARGO_INCREMENTAL=0`:
/// what a clean build or CI pays, not a re-check that reuses the last one's
/// results); wall seconds and peak MiB.
pub fn check_cost(krate: &Path, target: &Path) -> Result<(String, f64), String> {
    let warm = crate::tools::cargo()
        .args(["check", "--quiet"])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .map_err(|e| e.to_string())?;
    if !warm.success() {
        return Err(format!("{} does not check", krate.display()));
    }
    let lib = krate.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).map_err(|e| e.to_string())?;
    std::fs::write(&lib, format!("{text}\n")).map_err(|e| e.to_string())?;
    let timed = Command::new("/usr/bin/time")
        .args(["-f", "%e %M"])
        .arg(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(["check", "--quiet"])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .map_err(|e| format!("/usr/bin/time: {e}"))?;
    let stderr = String::from_utf8_lossy(&timed.stderr);
    let last = stderr.lines().last().unwrap_or("");
    let mut parts = last.split_whitespace();
    let secs = parts.next().unwrap_or("?").to_owned();
    let kib: f64 = parts.next().and_then(|k| k.parse().ok()).unwrap_or(0.0);
    Ok((secs, kib / 1024.0))
}

pub fn rust_lines(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            n += rust_lines(&p);
        } else if p.extension().and_then(|e| e.to_str()) == Some("rs") {
            n += std::fs::read_to_string(&p).map_or(0, |t| t.lines().count());
        }
    }
    n
}
