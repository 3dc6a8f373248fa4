//! `cargo xtask bench`: times `toolgen validate` and `toolgen gen` end to end on
//! synthetic tool sets, with peak memory, using the release binary.

use std::path::Path;
use std::process::Command;

use crate::synth;

struct Sample {
    wall_ms: u64,
    peak_kib: u64,
}

fn run_stats(bin: &Path, args: &[&str]) -> Result<Sample, String> {
    let out = Command::new(bin)
        .arg("--stats")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "toolgen {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("stats:"))
        .ok_or("no stats line in toolgen's output")?;
    let field = |name: &str| {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(name))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok(Sample {
        wall_ms: field("wall_ms="),
        peak_kib: field("peak_rss_kib="),
    })
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

pub fn run(root: &Path, args: &[&str]) -> Result<(), String> {
    let mut sizes = vec![1_000usize, 10_000];
    let mut runs = 3usize;
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
    let status = crate::cargo()
        .args(["build", "--release", "--quiet", "-p", "toolgen"])
        .current_dir(root)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("release build failed".to_owned());
    }
    let bin = root.join("target/release/toolgen");
    let work = root.join("target/bench");
    println!(
        "| tools | spec bytes | validate (median ms) | validate peak RSS (MiB) | gen (median ms) | gen peak RSS (MiB) | output files | gen µs/tool |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let specs = work.join(format!("specs-{n}"));
        let out = work.join(format!("out-{n}"));
        synth::write(&specs, n).map_err(|e| format!("writing synthetic specs: {e}"))?;
        let spec_bytes: u64 = std::fs::read_dir(&specs)
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok()?.metadata().ok())
            .map(|m| m.len())
            .sum();
        let specs_s = specs.to_string_lossy().into_owned();
        let out_s = out.to_string_lossy().into_owned();
        let (mut vw, mut vp, mut gw, mut gp) = (Vec::new(), 0, Vec::new(), 0);
        for _ in 0..runs {
            let v = run_stats(&bin, &["validate", &specs_s])?;
            vw.push(v.wall_ms);
            vp = vp.max(v.peak_kib);
            let _ = std::fs::remove_dir_all(&out);
            let g = run_stats(&bin, &["gen", "--out", &out_s, &specs_s])?;
            gw.push(g.wall_ms);
            gp = gp.max(g.peak_kib);
        }
        let files = count_files(&out);
        let gen_ms = median(gw);
        println!(
            "| {n} | {spec_bytes} | {} | {:.1} | {gen_ms} | {:.1} | {files} | {:.0} |",
            median(vw),
            vp as f64 / 1024.0,
            gp as f64 / 1024.0,
            gen_ms as f64 * 1000.0 / n as f64
        );
    }
    Ok(())
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
