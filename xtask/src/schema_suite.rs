//! `cargo xtask schema-suite`: the official JSON-Schema-Test-Suite (draft
//! 2020-12) through the validators toolgen compiles.
//!
//! The suite ships inside the source archive of PyPI's `jsonschema`; it is
//! downloaded with the venv's `pip` into `target/json-schema-test-suite/`
//! (never edited, never committed). Every test group's schema is compiled
//! with `toolgen::emit::rust::validate`; groups whose schema uses a keyword
//! toolgen does not compile keep the `jsonschema` crate at run time and are
//! counted, not run. The compiled ones go into a crate of their own (outside
//! the workspace, beside `fuzz-compile`'s, sharing its target directory),
//! whose program answers every test; each answer must be the suite's. The
//! `jsonschema` crate answers the same tests, for comparison. Prints one
//! line per keyword file (the table in BENCHMARKS.md).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::tools::cargo;

/// Where the suite's draft 2020-12 tests are, downloaded when missing.
fn suite(root: &Path) -> Result<PathBuf, String> {
    let base = root.join("target/json-schema-test-suite");
    let tests = base.join("draft2020-12");
    if tests.join("type.json").is_file() {
        return Ok(tests);
    }
    let python = crate::tools::python_venv()?;
    let pip = python.with_file_name("pip");
    let sdist = base.join("sdist");
    crate::tools::step(
        "pip download --no-binary :all: --no-deps jsonschema (the JSON-Schema-Test-Suite inside it)",
        Command::new(pip)
            .args([
                "download",
                "--quiet",
                "--no-binary",
                ":all:",
                "--no-deps",
                "jsonschema",
                "-d",
            ])
            .arg(&sdist),
    )?;
    let archive = std::fs::read_dir(&sdist)
        .map_err(|e| format!("{}: {e}", sdist.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .ok_or("pip downloaded no source archive of jsonschema")?;
    let unpacked = base.join("unpacked");
    std::fs::create_dir_all(&unpacked).map_err(|e| e.to_string())?;
    crate::tools::step(
        "tar: json/tests/draft2020-12 out of the archive",
        Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(&unpacked)
            .args(["--wildcards", "*/json/tests/draft2020-12/*"]),
    )?;
    let found = std::fs::read_dir(&unpacked)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path().join("json/tests/draft2020-12"))
        .find(|p| p.is_dir())
        .ok_or("the archive holds no json/tests/draft2020-12")?;
    std::fs::rename(&found, &tests).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&unpacked);
    Ok(tests)
}

/// One keyword file's counts.
#[derive(Default)]
struct Counts {
    groups: usize,
    compiled: usize,
    tests: usize,
    run: usize,
    passed: usize,
    crate_passed: usize,
}

pub fn run(root: &Path) -> Result<(), String> {
    let tests = suite(root)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&tests)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut modules = String::new();
    let mut table = String::new();
    let mut cases = Vec::new();
    let mut counts: BTreeMap<String, Counts> = BTreeMap::new();
    for file in &files {
        let keyword = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let groups: Vec<Value> =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let c = counts.entry(keyword.clone()).or_default();
        for group in &groups {
            c.groups += 1;
            let group_tests = group["tests"].as_array().cloned().unwrap_or_default();
            c.tests += group_tests.len();
            let schema = &group["schema"];
            let reference = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(schema)
                .ok();
            for t in &group_tests {
                let expected = t["valid"].as_bool().unwrap_or_default();
                if reference
                    .as_ref()
                    .is_some_and(|r| r.is_valid(&t["data"]) == expected)
                {
                    c.crate_passed += 1;
                }
            }
            let n = cases.len();
            let prefix = format!("s{n}");
            let Ok(body) = toolgen::testing::compile_text(schema, &prefix, "the suite's schema")
            else {
                continue;
            };
            c.compiled += 1;
            c.run += group_tests.len();
            let _ = writeln!(modules, "pub mod {prefix} {{\n{body}}}");
            let _ = writeln!(table, "    {prefix}::{prefix}_is_valid,");
            cases.push(json!({
                "keyword": keyword,
                "description": group["description"],
                "tests": group_tests,
            }));
        }
    }
    let work = std::env::temp_dir().join("toolgen-schema-suite");
    let src = work.join("src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    let runtime = root.join("runtime");
    let manifest = format!(
        "[package]\nname = \"toolgen-schema-suite\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nserde_json = \"1\"\ntoolgen-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
    std::fs::write(work.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::write(work.join("cases.json"), Value::Array(cases).to_string())
        .map_err(|e| e.to_string())?;
    let main = format!(
        "//! Written by `cargo xtask schema-suite`.\n{modules}\nstatic VALIDATORS: &[toolgen_runtime::server::Validity] = &[\n{table}];\n\n{RUNNER}"
    );
    std::fs::write(src.join("main.rs"), main).map_err(|e| e.to_string())?;
    eprintln!("==> cargo run (the compiled validators of the suite's schemas)");
    let out = cargo()
        .args(["run", "--quiet"])
        .current_dir(&work)
        .env(
            "CARGO_TARGET_DIR",
            std::env::temp_dir().join("toolgen-fuzz-compile/target"),
        )
        .output()
        .map_err(|e| format!("cargo run: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("warning") {
        return Err(format!(
            "the suite's validators did not build and run without a warning:\n{stderr}"
        ));
    }
    let results: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let mut failures = Vec::new();
    for r in results.as_array().into_iter().flatten() {
        let keyword = r["keyword"].as_str().unwrap_or_default();
        if r["passed"] == true {
            if let Some(c) = counts.get_mut(keyword) {
                c.passed += 1;
            }
        } else {
            failures.push(format!("{keyword}: {} / {}", r["group"], r["test"]));
        }
    }
    println!(
        "| keyword file | groups compiled | tests run | passed | jsonschema crate passes (all tests) |"
    );
    println!("|---|---|---|---|---|");
    let mut total = Counts::default();
    for (keyword, c) in &counts {
        println!(
            "| {keyword} | {} of {} | {} of {} | {} | {} of {} |",
            c.compiled, c.groups, c.run, c.tests, c.passed, c.crate_passed, c.tests
        );
        total.groups += c.groups;
        total.compiled += c.compiled;
        total.tests += c.tests;
        total.run += c.run;
        total.passed += c.passed;
        total.crate_passed += c.crate_passed;
    }
    println!(
        "| **all** | {} of {} | {} of {} | {} | {} of {} |",
        total.compiled,
        total.groups,
        total.run,
        total.tests,
        total.passed,
        total.crate_passed,
        total.tests
    );
    let _ = std::fs::remove_dir_all(work.join("src"));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} test(s) of the suite answered wrongly by a compiled validator:\n{}",
            failures.len(),
            failures.join("\n")
        ))
    }
}

/// The program's body: every test of `cases.json` through its validator,
/// one JSON result per test on stdout.
const RUNNER: &str = r#"fn main() {
    let cases: serde_json::Value =
        serde_json::from_str(include_str!("../cases.json")).unwrap_or_default();
    let mut results = Vec::new();
    for (case, valid) in cases.as_array().into_iter().flatten().zip(VALIDATORS) {
        for t in case["tests"].as_array().into_iter().flatten() {
            // Read from its text, as a server reads a request's arguments.
            let text = t["data"].to_string();
            let verdict = toolgen_runtime::json::Json::parse(&text).is_ok_and(|p| valid(&p.json));
            let passed = verdict == t["valid"].as_bool().unwrap_or_default();
            results.push(serde_json::json!({
                "keyword": case["keyword"],
                "group": case["description"],
                "test": t["description"],
                "passed": passed,
            }));
        }
    }
    println!("{}", serde_json::Value::Array(results));
}
"#;
