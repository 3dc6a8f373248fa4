//! `cargo xtask bench --peers [--sizes N] [--runs R] [--check-rounds C]`: toolgen against the
//! code generators people use instead, on the same synthetic tools, in one
//! run: quicktype 26 (npm, into `target/tools/npm`) producing C# and Rust,
//! and cargo-typify 0.8 (into `target/tools`) producing Rust types, with and
//! without builders.
//!
//! quicktype and typify take one JSON Schema document: every tool's input
//! and output schema (as toolgen's catalog publishes them) becomes a
//! definition of it, each tool's own definitions hoisted beside them under a
//! prefix, and a root object refers to all of them so that every type is
//! generated. The peers produce types only; toolgen produces every output
//! (catalog, Rust with dispatch, C#, docs), so the comparison favours them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Map, Value, json};

use crate::tools::{cargo, step};

const QUICKTYPE: &str = "quicktype@26";
const TYPIFY_VERSION: &str = "0.8.0";

fn tools_dir(root: &Path) -> PathBuf {
    root.join("target/tools")
}

fn quicktype(root: &Path) -> Result<PathBuf, String> {
    let prefix = tools_dir(root).join("npm");
    let bin = prefix.join("node_modules/.bin/quicktype");
    if !bin.exists() {
        crate::tools::npm_install(&prefix, &[QUICKTYPE])?;
    }
    Ok(bin)
}

fn typify(root: &Path) -> Result<PathBuf, String> {
    let bin = tools_dir(root).join("bin/cargo-typify");
    if !bin.exists() {
        step(
            &format!("cargo install cargo-typify {TYPIFY_VERSION} (into target/tools)"),
            cargo()
                .args(["install", "--locked", "--version", TYPIFY_VERSION, "--root"])
                .arg(tools_dir(root))
                .arg("cargo-typify"),
        )?;
    }
    Ok(bin)
}

/// Rewrites `#/$defs/X` (and `#/definitions/X`) to `#/$defs/{prefix}X`.
fn rebase(v: &mut Value, prefix: &str) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                for from in ["#/$defs/", "#/definitions/"] {
                    if let Some(name) = r.strip_prefix(from) {
                        *r = format!("#/$defs/{prefix}{name}");
                        break;
                    }
                }
            }
            m.values_mut().for_each(|x| rebase(x, prefix));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rebase(x, prefix)),
        _ => {}
    }
}

fn pascal(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// One JSON Schema document holding every tool's schemas, from a catalog.
fn one_schema(catalog: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(catalog).map_err(|e| format!("{}: {e}", catalog.display()))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let mut defs = Map::new();
    let mut props = Map::new();
    for tool in doc["tools"].as_array().into_iter().flatten() {
        let name = pascal(tool["name"].as_str().unwrap_or("tool"));
        for (key, suffix) in [("inputSchema", "Input"), ("outputSchema", "Output")] {
            let Some(schema) = tool.get(key) else {
                continue;
            };
            let mut schema = schema.clone();
            let prefix = format!("{name}{suffix}");
            rebase(&mut schema, &prefix);
            if let Some(Value::Object(own)) = schema.as_object_mut().and_then(|m| m.remove("$defs"))
            {
                for (k, v) in own {
                    defs.insert(format!("{prefix}{k}"), v);
                }
            }
            defs.insert(prefix.clone(), schema);
            props.insert(prefix.clone(), json!({"$ref": format!("#/$defs/{prefix}")}));
        }
    }
    Ok(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "AllTools",
        "type": "object",
        "properties": props,
        "$defs": defs,
    }))
}

fn time(cmd: &mut Command) -> Result<u128, String> {
    let started = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("{cmd:?} failed ({status})"));
    }
    Ok(started.elapsed().as_millis())
}

fn median(mut v: Vec<u128>) -> u128 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

pub fn run(
    root: &Path,
    toolgen: &Path,
    n: usize,
    (runs, check_rounds): (usize, usize),
) -> Result<(), String> {
    let qt = quicktype(root)?;
    let ty = typify(root)?;
    let work = crate::measure::work_dir(root).join(format!("peers-{n}"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let specs = crate::measure::work_dir(root).join(format!("specs-{n}"));
    toolgen_tests::synth::write(&specs, n).map_err(|e| format!("writing synthetic specs: {e}"))?;
    let specs_s = specs.to_string_lossy().into_owned();
    // The catalog gives each tool's bundled schemas.
    let seed = work.join("seed");
    time(
        Command::new(toolgen)
            .args(["gen", "--emit", "catalog", "--out"])
            .arg(&seed)
            .arg(&specs_s),
    )?;
    let catalog = std::fs::read_dir(seed.join("catalog"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("tools.json"))
        .find(|p| p.is_file())
        .ok_or("no catalog")?;
    let schema = work.join("all-tools.schema.json");
    let text = serde_json::to_string_pretty(&one_schema(&catalog)?).map_err(|e| e.to_string())?;
    std::fs::write(&schema, text).map_err(|e| e.to_string())?;
    let mut rows: Vec<(&str, Vec<u128>)> = Vec::new();
    for (label, which) in [
        ("toolgen gen: catalog, Rust, C#, docs (cold)", 0),
        ("quicktype -> C#", 1),
        ("quicktype -> Rust", 2),
        ("cargo typify -> Rust types", 3),
        ("cargo typify --no-builder -> Rust types", 4),
    ] {
        let mut samples = Vec::new();
        for run in 0..runs {
            let out = work.join(format!("out-{which}-{run}"));
            let _ = std::fs::remove_dir_all(&out);
            let ms = match which {
                0 => time(
                    Command::new(toolgen)
                        .args(["gen", "--no-cache", "--out"])
                        .arg(&out)
                        .arg(&specs_s),
                )?,
                1 | 2 => time(
                    Command::new(&qt)
                        .args([
                            "--src-lang",
                            "schema",
                            "--lang",
                            if which == 1 { "cs" } else { "rust" },
                        ])
                        .arg("--out")
                        .arg(out.with_extension(if which == 1 { "cs" } else { "rs" }))
                        .arg(&schema),
                )?,
                _ => {
                    let mut c = Command::new(&ty);
                    c.arg("typify")
                        .arg(&schema)
                        .arg("--output")
                        .arg(out.with_extension("rs"));
                    if which == 4 {
                        c.arg("--no-builder");
                    }
                    time(&mut c)?
                }
            };
            samples.push(ms);
        }
        rows.push((label, samples));
    }
    let base = median(rows[0].1.clone()).max(1);
    println!("\n| {n} tools, {runs} runs | median ms | min-max ms | ratio to toolgen |");
    println!("|---|---:|---:|---:|");
    for (label, samples) in &rows {
        let med = median(samples.clone());
        let (lo, hi) = (
            samples.iter().min().copied().unwrap_or(0),
            samples.iter().max().copied().unwrap_or(0),
        );
        println!(
            "| {label} | {med} | {lo}-{hi} | {:.2} |",
            med as f64 / base as f64
        );
    }
    compile_costs(toolgen, &work, &specs_s, (n, check_rounds))?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// What users pay to compile each generator's Rust for the same tools:
/// `cargo check` of toolgen's generated crate, and of a crate holding
/// quicktype's and typify's (`--no-builder`) output, each timed after its
/// dependencies were built, outside any workspace; `rounds` times, the three
/// in turn in each round (the VM's speed drifts over minutes: checks run one
/// after another are compared at different speeds), medians reported.
fn compile_costs(
    toolgen: &Path,
    work: &Path,
    specs: &str,
    (n, rounds): (usize, usize),
) -> Result<(), String> {
    let base = std::env::temp_dir().join(format!("toolgen-bench-compile-{n}"));
    let _ = std::fs::remove_dir_all(&base);
    let ours = base.join("toolgen");
    let status = Command::new(toolgen)
        .args(["gen", "--no-cache", "--emit", "rust", "--out"])
        .arg(&ours)
        .arg(specs)
        .stderr(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("toolgen gen --emit rust failed".to_owned());
    }
    let mut crates = vec![("toolgen (types, trait, table, dispatch)", ours.join("rust"))];
    for (label, file, name) in [
        ("quicktype (types)", work.join("out-2-0.rs"), "quicktype"),
        (
            "cargo typify --no-builder (types)",
            work.join("out-4-0.rs"),
            "typify",
        ),
    ] {
        let dir = base.join(name);
        std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"{name}-output\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        let code =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        std::fs::write(
            dir.join("src/lib.rs"),
            format!("#![allow(warnings)]\n{code}"),
        )
        .map_err(|e| e.to_string())?;
        crates.push((label, dir));
    }
    let target = base.join("target");
    // Per crate: seconds and peak MiB of each round.
    let mut costs: Vec<Vec<(f64, f64)>> = vec![Vec::new(); crates.len()];
    for round in 0..rounds {
        eprintln!(
            "==> cargo check of the three crates, round {} of {rounds}",
            round + 1
        );
        for ((_, dir), costs) in crates.iter().zip(&mut costs) {
            let (secs, mib) = crate::measure::check_cost(dir, &target)?;
            costs.push((secs.parse().unwrap_or(f64::NAN), mib));
        }
    }
    println!(
        "\n| {n} tools: `cargo check` of the Rust, {rounds} round(s) | lines | median s | min-max s | median peak MiB | min-max MiB |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for ((label, dir), costs) in crates.iter().zip(&costs) {
        let lines = crate::measure::rust_lines(&dir.join("src"));
        let secs: Vec<f64> = costs.iter().map(|c| c.0).collect();
        let mib: Vec<f64> = costs.iter().map(|c| c.1).collect();
        let (s, m) = (spread(&secs), spread(&mib));
        println!(
            "| {label} | {lines} | {:.1} | {:.1}-{:.1} | {:.0} | {:.0}-{:.0} |",
            s.0, s.1, s.2, m.0, m.1, m.2
        );
    }
    let _ = std::fs::remove_dir_all(&base);
    Ok(())
}

/// Median, minimum and maximum of `v` (the upper median of an even count).
fn spread(v: &[f64]) -> (f64, f64, f64) {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |i: usize| v.get(i).copied().unwrap_or(f64::NAN);
    (at(v.len() / 2), at(0), at(v.len().saturating_sub(1)))
}
