//! `cargo xtask bench`: times `toolgen validate` and `toolgen gen` end to end on
//! synthetic tool sets, with peak memory, using the release binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use toolgen_tests::synth;

use crate::measure::{check_cost, rust_lines, work_dir};

#[derive(Default)]
struct Sample {
    wall_ms: u64,
    peak_kib: u64,
    load_ms: u64,
    render_ms: u64,
    write_ms: u64,
}

fn run_stats(bin: &Path, args: &[&str]) -> Result<Sample, String> {
    let out = crate::tools::output(
        &format!("toolgen {}", args.join(" ")),
        Command::new(bin).arg("--stats").args(args),
    )?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stats: Vec<&str> = stderr.lines().filter(|l| l.starts_with("stats:")).collect();
    if stats.is_empty() {
        return Err("no stats line in toolgen's output".to_owned());
    }
    let field = |name: &str| {
        stats
            .iter()
            .flat_map(|l| l.split_whitespace())
            .find_map(|kv| kv.strip_prefix(name))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok(Sample {
        wall_ms: field("wall_ms="),
        peak_kib: field("peak_rss_kib="),
        load_ms: field("load_ms="),
        render_ms: field("render_ms="),
        write_ms: field("write_ms="),
    })
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

pub fn run(root: &Path, args: &[&str]) -> Result<(), String> {
    let mut sizes = vec![1_000usize, 10_000];
    let mut runs = 3usize;
    let mut check_generated = false;
    let mut peers = false;
    let mut check_rounds = 1usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--sizes" => {
                sizes = it
                    .next()
                    .ok_or("--sizes needs a value")?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("bad size `{s}`")))
                    .collect::<Result<_, _>>()?;
            }
            "--check-generated" => check_generated = true,
            "--peers" => peers = true,
            "--check-rounds" => {
                check_rounds = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|r| *r > 0)
                    .ok_or("--check-rounds needs a number of at least 1")?
            }
            "--runs" => {
                runs = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--runs needs a number")?
            }
            other => return Err(format!("unknown bench option `{other}`")),
        }
    }
    eprintln!("==> building toolgen (release)");
    let status = crate::tools::cargo()
        .args(["build", "--release", "--quiet", "-p", "toolgen"])
        .current_dir(root)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("release build failed".to_owned());
    }
    let bin = root.join("target/release/toolgen");
    let work = work_dir(root);
    println!(
        "| tools | spec MB | validate ms | validate peak MiB | gen ms (load + render + write) | gen peak MiB | re-gen, nothing changed, ms (cache / no cache) | one spec changed, ms (cache) | output files | load+render µs/tool |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in &sizes {
        let specs = work.join(format!("specs-{n}"));
        synth::write(&specs, n).map_err(|e| format!("writing synthetic specs: {e}"))?;
        let spec_bytes: u64 = std::fs::read_dir(&specs)
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok()?.metadata().ok())
            .map(|m| m.len())
            .sum();
        let specs_s = specs.to_string_lossy().into_owned();
        let mut validate = Vec::new();
        let mut cold = Vec::new();
        let mut skipped = Vec::new();
        let mut one_changed = Vec::new();
        let mut uncached = Vec::new();
        let mut files = 0;
        for run in 0..runs {
            validate.push(run_stats(&bin, &["validate", &specs_s])?);
            // A fresh directory and a fresh cache each run: the cold case,
            // everything rendered and written.
            let out = work.join(format!("out-{n}-{run}"));
            let cache = work.join(format!("cache-{n}-{run}"));
            let _ = std::fs::remove_dir_all(&out);
            let _ = std::fs::remove_dir_all(&cache);
            let out_s = out.to_string_lossy().into_owned();
            let cache_s = cache.to_string_lossy().into_owned();
            let gen_args = ["gen", "--cache-dir", &cache_s, "--out", &out_s, &specs_s];
            cold.push(run_stats(&bin, &gen_args)?);
            // Again, nothing changed: the run stamp holds, nothing is rendered.
            skipped.push(run_stats(&bin, &gen_args)?);
            // One spec edited: only its tool is rendered again.
            let edited = touch_one_spec(&specs, run)?;
            one_changed.push(run_stats(&bin, &gen_args)?);
            // Without the cache: every tool rendered and every file compared.
            uncached.push(run_stats(
                &bin,
                &["gen", "--no-cache", "--out", &out_s, &specs_s],
            )?);
            files = count_files(&out);
            std::fs::write(&edited.0, &edited.1).map_err(|e| e.to_string())?;
            let _ = std::fs::remove_dir_all(&out);
            let _ = std::fs::remove_dir_all(&cache);
        }
        let med = |v: &[Sample], f: fn(&Sample) -> u64| median(v.iter().map(f).collect());
        let peak = |v: &[Sample]| v.iter().map(|s| s.peak_kib).max().unwrap_or(0) as f64 / 1024.0;
        let (load, render) = (med(&cold, |s| s.load_ms), med(&cold, |s| s.render_ms));
        println!(
            "| {n} | {:.1} | {} | {:.0} | {} ({load} + {render} + {}) | {:.0} | {} / {} | {} | {files} | {:.0} |",
            spec_bytes as f64 / 1e6,
            med(&validate, |s| s.wall_ms),
            peak(&validate),
            med(&cold, |s| s.wall_ms),
            med(&cold, |s| s.write_ms),
            peak(&cold),
            med(&skipped, |s| s.wall_ms),
            med(&uncached, |s| s.wall_ms),
            med(&one_changed, |s| s.wall_ms),
            (load + render) as f64 * 1000.0 / n as f64
        );
    }
    if check_generated {
        check_generated_crates(root, &bin, &sizes)?;
    }
    if peers {
        for &n in &sizes {
            crate::bench_peers::run(root, &bin, n, (runs, check_rounds))?;
        }
    }
    Ok(())
}

/// Edits the description of one spec (a different one each run); returns
/// the file and its contents before, to put back.
fn touch_one_spec(specs: &Path, run: usize) -> Result<(PathBuf, Vec<u8>), String> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(specs)
        .map_err(|e| e.to_string())?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    all.sort();
    let file = all
        .get(run * 7 % all.len().max(1))
        .cloned()
        .ok_or("no spec files")?;
    let before = std::fs::read(&file).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&before).replacen(
        "\"description\": \"",
        "\"description\": \"Edited. ",
        1,
    );
    std::fs::write(&file, text).map_err(|e| e.to_string())?;
    Ok((file, before))
}

fn count_files(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(entries) = std::fs::read_dir(&d) {
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    n += 1;
                }
            }
        }
    }
    n
}

/// `cargo check` of the generated Rust crate for each synthetic set: what users
/// pay for generated code. Dependencies are built once first; then the
/// generated crate alone is checked, timed with its peak memory.
fn check_generated_crates(root: &Path, bin: &Path, sizes: &[usize]) -> Result<(), String> {
    println!(
        "\n| tools | generated Rust lines | cargo check of the generated crate (s) | peak memory (MiB) |"
    );
    println!("|---:|---:|---:|---:|");
    let target = std::env::temp_dir().join("toolgen-bench-check-target");
    for &n in sizes {
        let specs = work_dir(root).join(format!("specs-{n}"));
        synth::write(&specs, n).map_err(|e| e.to_string())?;
        let out = std::env::temp_dir().join(format!("toolgen-bench-check-{n}"));
        let _ = std::fs::remove_dir_all(&out);
        let status = Command::new(bin)
            .args(["gen", "--out"])
            .arg(&out)
            .arg("--rust-runtime-path")
            .arg(root.join("runtime"))
            .arg(&specs)
            .stderr(std::process::Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("toolgen gen failed for {n} tools"));
        }
        let krate = out.join("rust");
        let lines = rust_lines(&krate.join("src"));
        let (secs, mib) = check_cost(&krate, &target)?;
        println!("| {n} | {lines} | {secs} | {mib:.0} |");
    }
    Ok(())
}
