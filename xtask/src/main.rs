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
//! - `conformance`: the official MCP conformance suite against `conformance-server`.
//! - `bench-calls`: instructions per in-process typed `tools/call` (callgrind).
//! - `outside`: README's "Use toolgen in your project", followed in a directory
//!   outside the workspace (also a step of `test`).
//! - `bench-lsp [--specs 1000] [--edits 40]`: `toolgen lsp` on synthetic specs: first
//!   load, edit-to-diagnostics latency, memory.
//! - `editors`: `toolgen lsp` in Neovim (headless), and the VS Code extension
//!   packaged as a `.vsix` (also a step of `test`).
//! - `fuzz [--target wire|http] [--runs N]`: coverage-guided fuzzing of the
//!   runtime's wire (a short run is a step of `test`).

mod bench;
mod bench_calls;
mod bench_lsp;
mod bench_peers;
mod bench_server;
mod conformance;
mod docs;
mod editors;
mod fuzz;
mod fuzz_compile;
mod measure;
mod outside;
mod schema_suite;
mod tools;

use tools::{build_server, cargo, mono_toolchain, python_venv, r_toolchain, root, step, step_fn};

use std::path::Path;
use std::process::{Command, ExitCode};

use toolgen::GenerateError;
use toolgen::GeneratedFiles;
use toolgen_tests::{TREES, tree_generator};

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
        Some("conformance") => conformance::run(&root()),
        Some("editors") => editors::run(&root()),
        Some("bench-lsp") => bench_lsp::run(&root(), &rest),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n  gen [--check]   regenerate generated/ from tool-specs/ (--check: fail if stale)\n  bench [--sizes 1000,10000] [--runs N]\n                  end-to-end generator benchmark (time and peak memory)\n  docs [--browser] build the docs site (mdBook) into target/docs-site and check it\n  test            the whole test suite, as CI runs it\n  outside         README's \"Use toolgen in your project\" in a directory outside the workspace\n  bench-server    MCP over stdio: editormcp-server against the official Python SDK\n  bench-r         calls/s through the R bridge (rave-server and an R worker)\n  bench-calls     instructions per in-process typed tools/call (valgrind callgrind)\n  conformance     the official MCP conformance suite and the Python SDK client against
                  the conformance tools in Rust, in C# (Unity bridge) and in R (R bridge)\n  bench-lsp [--specs N] [--edits N]\n                  toolgen lsp: first load, edit-to-diagnostics latency, memory\n  editors         toolgen lsp in Neovim (headless); the VS Code extension packaged as a .vsix\n  fuzz-compile [--cases N] [--seed S]\n                  mutated schemas: every accepted spec's Rust and C# must compile,\n                  and its Rust types round-trip valid instances\n  schema-suite    the JSON-Schema-Test-Suite (draft 2020-12) through toolgen's compiled validators\n  fuzz [--target wire|http] [--runs N]\n                  coverage-guided fuzzing of the runtime's wire (cargo-fuzz, FUZZING.md)"
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
    files.add("rules.md", rules_page());
    files.add("clients.md", clients_page());
    // The JSON Schemas of the spec formats and of toolset.yaml, for editors.
    for (name, text) in toolgen::format_schemas() {
        files.add(format!("schemas/{name}"), text);
    }
    files
}

/// docs/rules.md: the rule reference, from the rules in codegen/src/diag.rs.
fn rules_page() -> String {
    use std::fmt::Write as _;
    use toolgen::diag::{rule, why_an_error};
    let mut out = String::from(
        "<!-- Generated by `cargo xtask gen` from codegen/src/diag.rs. Do not edit. -->\n\n# Validation rules\n\nEvery diagnostic names one of these rules. Codes are stable: a code is never reused for another meaning. `toolgen explain CODE` prints the same text. `--deny-warnings` makes warnings fail a run. Warnings and notes can be set to `allow`, `warn` or `deny` (a manifest's `lints`, `--allow`/`--warn`/`--deny`); an error rule stays an error only where toolgen could not generate faithful output or the spec format's own definition makes the spec invalid, and each says why.\n\n| code | name | default | checks that |\n|---|---|---|---|\n",
    );
    for r in rule::ALL {
        let _ = writeln!(
            out,
            "| [{}](#{}) | `{}` | {} | {} |",
            r.code,
            r.code.to_ascii_lowercase(),
            r.name,
            r.severity.as_str(),
            r.summary.replace('|', "\\|")
        );
    }
    for r in rule::ALL {
        let _ = write!(
            out,
            "\n## {}\n\n`{}` ({} by default): {}.\n\n{}\n",
            r.code,
            r.name,
            r.severity.as_str(),
            r.summary,
            r.explanation
        );
        if let Some(why) = why_an_error(r) {
            let _ = write!(out, "\nAlways an error: {why}.\n");
        }
    }
    out
}

/// docs/clients.md: the client profiles, then what each finds in the tool
/// sets of this repository and the real-world-shaped fixtures.
fn clients_page() -> String {
    use toolgen::ir::Client;
    let mut page = toolgen::testing::clients::markdown();
    let root = root();
    let sets = [
        ("editormcp", root.join("tool-specs/editormcp")),
        ("rave", root.join("tool-specs/rave")),
        ("toolvault", root.join("tool-specs/toolvault")),
        ("conformance", root.join("tool-specs/conformance")),
        (
            "realworld (tests/fixtures/mcp-realworld)",
            root.join("tests/fixtures/mcp-realworld"),
        ),
    ];
    page.push_str("\n## What each finds in this repository\n\nFindings of `toolgen validate --clients CLIENT` on each tool set: warnings (what the client\nrefuses) / notes (what its variant changes).\n\n| tool set | ");
    page.push_str(&Client::NAMES.map(|n| format!("`{n}`")).join(" | "));
    page.push_str(" |\n|---|");
    page.push_str(&"---:|".repeat(Client::ALL.len()));
    page.push('\n');
    for (name, dir) in sets {
        let mut row = format!("| {name} |");
        for client in Client::ALL {
            let options = toolgen::load::LoadOptions {
                clients: vec![client],
                ..toolgen::load::LoadOptions::default()
            };
            let loaded = toolgen::load::load(std::slice::from_ref(&dir), &options);
            let count = |s: toolgen::diag::Severity| {
                (loaded.diagnostics.iter())
                    .filter(|d| d.rule.code.starts_with("TG10") && d.severity == s)
                    .count()
            };
            let (w, n) = (
                count(toolgen::diag::Severity::Warning),
                count(toolgen::diag::Severity::Note),
            );
            row.push_str(&format!(" {w} / {n} |"));
        }
        page.push_str(&row);
        page.push('\n');
    }
    page
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
            toolgen::write_atomic(&path, contents).map_err(|e| e.to_string())?;
            eprintln!("wrote docs/{rel}");
        }
    }
    Ok(())
}

fn describe(e: GenerateError) -> String {
    e.to_string()
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
    // The library's API docs: a broken or private link fails the run.
    step(
        "cargo doc -p toolgen -p toolgen-runtime",
        cargo()
            .args(["doc", "--no-deps", "-p", "toolgen", "-p", "toolgen-runtime"])
            .env("RUSTDOCFLAGS", "-D warnings"),
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
    conformance::run(&root())?;
    editors::run(&root())?;
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
