//! `cargo xtask fuzz [--target wire|http] [--runs N]`: coverage-guided
//! fuzzing of the runtime's wire with libFuzzer (cargo-fuzz), see FUZZING.md.
//!
//! - cargo-fuzz is installed into `target/tools/` when missing.
//! - Its instrumentation needs nightly compiler flags: the machine's nightly
//!   toolchain when rustup has one, else the stable one with
//!   `RUSTC_BOOTSTRAP=1` (the same compiler with its unstable flags unlocked).
//! - The corpus grows in `target/fuzz-corpus/<target>/`, seeded from
//!   `fuzz/seeds/<target>/`; crashes land in `fuzz/artifacts/<target>/`.
//! - Each run prints libFuzzer's final statistics: the number of executions.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::step;

/// The fuzz targets (`fuzz/fuzz_targets/`).
pub const TARGETS: &[&str] = &["wire", "http", "validators", "json"];

/// The longest input of a target: every request shape fits, and the
/// fuzzer stays fast (long inputs cost time and find nothing new).
fn max_len(target: &str) -> usize {
    if target == "http" { 2048 } else { 512 }
}

const CARGO_FUZZ_VERSION: &str = "0.13.2";

fn cargo_fuzz(root: &Path) -> Result<PathBuf, String> {
    let tools = root.join("target/tools");
    let bin = tools.join("bin/cargo-fuzz");
    if bin.exists() {
        return Ok(bin);
    }
    step(
        &format!("cargo install cargo-fuzz {CARGO_FUZZ_VERSION} (into target/tools)"),
        crate::tools::cargo()
            .args([
                "install",
                "--locked",
                "--version",
                CARGO_FUZZ_VERSION,
                "--root",
            ])
            .arg(&tools)
            .arg("cargo-fuzz"),
    )?;
    Ok(bin)
}

/// A command that runs cargo-fuzz with a compiler that takes its flags.
fn fuzz_command(cargo_fuzz: &Path) -> Command {
    let nightly = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("nightly"));
    let mut cmd = Command::new(cargo_fuzz);
    // Not the stable cargo `cargo xtask` runs under: the rustup proxies pick the toolchain.
    cmd.env_remove("CARGO").env_remove("RUSTC");
    if nightly {
        cmd.env("RUSTUP_TOOLCHAIN", "nightly");
    } else {
        eprintln!("(no nightly toolchain: stable with RUSTC_BOOTSTRAP=1)");
        cmd.env("RUSTUP_TOOLCHAIN", "stable")
            .env("RUSTC_BOOTSTRAP", "1");
    }
    cmd
}

pub fn run(root: &Path, args: &[&str]) -> Result<(), String> {
    let mut targets: Vec<&str> = TARGETS.to_vec();
    let mut runs: u64 = 1_000_000;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--target" => match it.next() {
                Some(t) if TARGETS.contains(t) => targets = vec![t],
                _ => return Err(format!("--target needs one of {}", TARGETS.join(", "))),
            },
            "--runs" => {
                runs = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--runs needs a number")?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let cargo_fuzz = cargo_fuzz(root)?;
    for target in targets {
        let corpus = root.join("target/fuzz-corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        step(
            &format!("cargo fuzz run {target} -- -runs={runs}"),
            fuzz_command(&cargo_fuzz)
                .args(["fuzz", "run", "--sanitizer", "none", "--fuzz-dir"])
                .arg(root.join("fuzz"))
                .arg("--target-dir")
                .arg(root.join("target/fuzz"))
                .arg(target)
                .arg(&corpus)
                .arg(root.join("fuzz/seeds").join(target))
                .arg("--")
                .arg(format!("-runs={runs}"))
                .arg(format!("-max_len={}", max_len(target)))
                .args(["-print_final_stats=1", "-timeout=10", "-rss_limit_mb=2048"]),
        )?;
    }
    Ok(())
}
