//! toolgen in someone else's project, as README.md's "Use toolgen in your
//! project" tells a new user to use it, in an empty directory outside the
//! workspace:
//!
//! 1. the section's commands run as written (`cargo install`, `cargo new`,
//!    `toolgen init`, `toolgen new`), with a symlink standing for the clone
//!    of this repository the README assumes; `cargo install` gets `--debug
//!    --locked --offline` and the workspace's target directory, so that it
//!    reuses what `cargo test` built;
//! 2. the section's `Cargo.toml` lines, `build.rs` and `src/main.rs` are
//!    written; `cargo build --offline` builds the crate (its build script
//!    generates the module), and the official MCP Python SDK client lists and
//!    calls its tools (`tests/mcp_client/readme_weather.py`) where the README
//!    says `cargo run`;
//! 3. a spec error reaches `cargo build` as a located diagnostic, not a panic;
//! 4. `toolgen gen --out DIR` of the same specs, with no options, gives a crate
//!    that `cargo check --offline` builds on its own (the runtime bundled), and
//!    `--check` finds it up to date;
//! 5. a generated crate pointed at a runtime of another version fails in
//!    Cargo's resolver with both versions named, before anything compiles.
//!
//! Then "With the official Rust SDK" the same way, in a directory of its own:
//! its commands as written, the files `toolgen init --server rmcp` wrote equal
//! to the section's, the crate built offline and driven by the Python SDK's
//! client over stdio and HTTP (`tests/mcp_client/scaffold_client.py`); and
//! `--server` alone (toolgen-runtime's server) built and driven the same way.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Profile settings for the crates built here: the workspace's, so that
/// dependencies already built by `cargo test` are reused (a test-speed
/// matter; the README's `Cargo.toml` has none).
const PROFILE: &[&str] = &[
    "--config",
    "profile.dev.debug=\"line-tables-only\"",
    "--config",
    "profile.dev.package.\"*\".opt-level=1",
    "--config",
    "profile.dev.package.\"*\".debug=false",
];

struct Section {
    commands: Vec<String>,
    cargo_toml: String,
    build_rs: String,
    main_rs: String,
}

/// The fenced code blocks of the README section `title`: (info string, text).
fn blocks(readme: &str, title: &str) -> Result<Vec<(String, String)>, String> {
    let start = readme
        .find(&format!("\n## {title}\n"))
        .ok_or_else(|| format!("README.md has no section `## {title}`"))?;
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    let section = &rest[..end];
    let mut out = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut text = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            text.push_str(l);
            text.push('\n');
        }
        out.push((info.trim().to_owned(), text));
    }
    Ok(out)
}

/// The README's section `title`: its commands and its three files.
fn section(readme: &str, title: &str) -> Result<Section, String> {
    let blocks = blocks(readme, title)?;
    let first = |pred: &dyn Fn(&(String, String)) -> bool, what: &str| {
        blocks
            .iter()
            .find(|b| pred(b))
            .map(|(_, t)| t.clone())
            .ok_or_else(|| format!("README.md's \"{title}\" has no {what}"))
    };
    let commands = first(&|(i, _)| i == "sh", "sh block of commands")?
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    Ok(Section {
        commands,
        cargo_toml: first(&|(i, _)| i == "toml", "toml block")?,
        build_rs: first(
            &|(i, t)| i == "rust" && t.starts_with("// build.rs"),
            "rust block starting `// build.rs`",
        )?,
        main_rs: first(
            &|(i, t)| i == "rust" && t.starts_with("// src/main.rs"),
            "rust block starting `// src/main.rs`",
        )?,
    })
}

/// Runs `cmd` in `dir`; its output is shown when it fails.
fn run(what: &str, cmd: &mut Command, dir: &Path) -> Result<std::process::Output, String> {
    crate::tools::output(
        &format!("{what} in {}", dir.display()),
        cmd.current_dir(dir),
    )
}

pub fn run_all(root: &Path, python: &Path) -> Result<(), String> {
    let readme =
        std::fs::read_to_string(root.join("README.md")).map_err(|e| format!("README.md: {e}"))?;
    let work = std::env::temp_dir().join(format!("toolgen-outside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let result = section(&readme, "Use toolgen in your project")
        .and_then(|s| steps(root, python, &work.join("runtime"), &s))
        .and_then(|()| section(&readme, "With the official Rust SDK"))
        .and_then(|s| rmcp_steps(root, python, &work.join("rmcp"), &s));
    match &result {
        Ok(()) => {
            let _ = std::fs::remove_dir_all(&work);
        }
        Err(_) => eprintln!("(the projects are kept in {} for a look)", work.display()),
    }
    result
}

/// Where a section's commands run: an empty directory beside a link to the
/// clone, and the environment they run in.
struct Place {
    work: PathBuf,
    install: PathBuf,
    target: PathBuf,
    path: std::ffi::OsString,
}

impl Place {
    fn new(root: &Path, work: &Path) -> Result<Place, String> {
        std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, work.join("toolgen"))
            .map_err(|e| format!("cannot link the clone: {e}"))?;
        // One install of the command for both sections.
        let install = work.with_file_name("install");
        let path = std::env::join_paths(std::iter::once(install.join("bin")).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .map_err(|e| e.to_string())?;
        Ok(Place {
            work: work.to_path_buf(),
            install,
            target: root.join("target"),
            path,
        })
    }

    fn env(&self, cmd: &mut Command) {
        cmd.env("PATH", &self.path)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_INSTALL_ROOT", &self.install)
            .env("CARGO_NET_OFFLINE", "true")
            .env("NO_COLOR", "1");
    }

    /// `cargo build --offline` of the crate in `dir`.
    fn build(&self, dir: &Path, what: &str) -> Result<(), String> {
        let mut cmd = Command::new("cargo");
        cmd.args(["build", "--offline", "--quiet"]).args(PROFILE);
        self.env(&mut cmd);
        run(what, &mut cmd, dir).map(drop)
    }

    /// The section's commands up to `cargo run`, as written; the directory
    /// the last `cd` went to.
    fn commands(&self, section: &Section) -> Result<PathBuf, String> {
        let mut dir = self.work.clone();
        for command in &section.commands {
            if command == "cargo run" {
                return Ok(dir);
            }
            let mut line = command.clone();
            if line.starts_with("cargo install") {
                line.push_str(" --debug --locked --offline");
            }
            eprintln!("    $ {line}");
            let mut cmd = Command::new("sh");
            cmd.args(["-c", &line]);
            self.env(&mut cmd);
            run(command, &mut cmd, &dir)?;
            // `... && cd X` moves the rest of the session.
            if let Some(to) = command
                .rsplit("cd ")
                .next()
                .filter(|_| command.contains("cd "))
            {
                dir = dir.join(to.trim());
            }
        }
        Err("the README's commands do not end with `cargo run`".to_owned())
    }
}

/// "With the official Rust SDK": the commands as written, the files `toolgen
/// init --server rmcp` writes equal to the section's, the crate built offline
/// and served by rmcp to the official Python SDK's client over stdio and HTTP;
/// then the same with `--server` (toolgen-runtime's server) in a crate of its own.
fn rmcp_steps(root: &Path, python: &Path, work: &Path, section: &Section) -> Result<(), String> {
    let place = Place::new(root, work)?;
    let dir = place.commands(section)?;
    let read =
        |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let cargo_toml = read("Cargo.toml")?;
    let added = cargo_toml
        .find("[dependencies]")
        .map_or("", |i| &cargo_toml[i..]);
    for (name, written, shown) in [
        ("Cargo.toml", added.to_owned(), &section.cargo_toml),
        ("build.rs", read("build.rs")?, &section.build_rs),
        ("src/main.rs", read("src/main.rs")?, &section.main_rs),
    ] {
        if written != *shown {
            return Err(format!(
                "`toolgen init --server rmcp` wrote a {name} that is not the README's:\n{written}"
            ));
        }
    }
    eprintln!("    the Cargo.toml lines, build.rs and src/main.rs are the README's");
    eprintln!(
        "    $ cargo build --offline   (the README's `cargo run`, then the Python SDK client)"
    );
    place.build(&dir, "cargo build of the README's rmcp crate")?;
    let client = root.join("tests/mcp_client/scaffold_client.py");
    let binary = place.target.join("debug/weather");
    let out = run(
        "the MCP Python SDK client against the README's rmcp server",
        Command::new(python).arg(&client).arg(&binary),
        &dir,
    )?;
    eprint!("    {}", String::from_utf8_lossy(&out.stdout));

    // `--server` alone: the same on toolgen-runtime.
    let plain = work.join("plain");
    let mut cmd = Command::new("cargo");
    cmd.args(["new", "--quiet", "plain"]);
    place.env(&mut cmd);
    run("cargo new plain", &mut cmd, work)?;
    let init = "toolgen init tools --format mcp --name weather --server --toolgen path=../toolgen";
    eprintln!("    $ {init}   (in a crate `plain`)");
    let mut cmd = Command::new("sh");
    cmd.args(["-c", init]);
    place.env(&mut cmd);
    run(init, &mut cmd, &plain)?;
    place.build(&plain, "cargo build of the toolgen-runtime scaffold")?;
    let out = run(
        "the MCP Python SDK client against the toolgen-runtime scaffold",
        Command::new(python)
            .arg(&client)
            .arg(place.target.join("debug/plain")),
        &plain,
    )?;
    eprint!("    {}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}

fn steps(root: &Path, python: &Path, work: &Path, section: &Section) -> Result<(), String> {
    let place = Place::new(root, work)?;
    let (install, target) = (place.install.clone(), place.target.clone());
    let env = |cmd: &mut Command| place.env(cmd);

    // 1. The commands, up to `cargo run`.
    let dir = place.commands(section)?;

    // 2. The three files, then what `cargo run` does, with a real client.
    let manifest = dir.join("Cargo.toml");
    let mut toml = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    if !toml.trim_end().ends_with("[dependencies]") {
        return Err(format!(
            "`cargo new` no longer ends Cargo.toml with `[dependencies]`, which the README's block extends:\n{toml}"
        ));
    }
    toml.push_str(&section.cargo_toml);
    std::fs::write(&manifest, toml).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("build.rs"), &section.build_rs).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("src/main.rs"), &section.main_rs).map_err(|e| e.to_string())?;
    eprintln!(
        "    $ cargo build --offline   (the README's `cargo run`, then the Python SDK client)"
    );
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--offline", "--quiet"]).args(PROFILE);
    env(&mut cmd);
    run("cargo build of the README's crate", &mut cmd, &dir)?;
    let binary = target.join("debug/weather");
    let mut cmd = Command::new(python);
    cmd.arg(root.join("tests/mcp_client/readme_weather.py"))
        .arg(&binary);
    let out = run(
        "the MCP Python SDK client against the README's server",
        &mut cmd,
        &dir,
    )?;
    eprint!("    {}", String::from_utf8_lossy(&out.stdout));

    // 3. A spec error is a located diagnostic in `cargo build`'s output.
    let spec = dir.join("tools/forecast.json");
    let good = std::fs::read_to_string(&spec).map_err(|e| e.to_string())?;
    let broken = good.replacen("\"type\": \"string\"", "\"type\": \"text\"", 1);
    std::fs::write(&spec, &broken).map_err(|e| e.to_string())?;
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--offline"]).args(PROFILE);
    env(&mut cmd);
    let out = cmd.current_dir(&dir).output().map_err(|e| e.to_string())?;
    std::fs::write(&spec, &good).map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = good
        .lines()
        .position(|l| l.contains("\"type\": \"string\""))
        .map_or(0, |i| i + 1);
    let place = format!("tools/forecast.json:{line}:");
    if out.status.success()
        || !stderr.contains("TG0")
        || !stderr.contains(&place)
        || stderr.contains("panicked")
    {
        return Err(format!(
            "a broken spec must fail `cargo build` with a located diagnostic ({place}), not a panic:\n{stderr}"
        ));
    }
    eprintln!("    a broken spec fails `cargo build` at {place}..");

    // 4. `toolgen gen` with no options gives a crate that builds on its own.
    for args in [
        &["gen", "--out", "generated", "tools"][..],
        &["gen", "--check", "--out", "generated", "tools"][..],
    ] {
        eprintln!("    $ toolgen {}", args.join(" "));
        let mut cmd = Command::new(install.join("bin/toolgen"));
        cmd.args(args);
        env(&mut cmd);
        run("toolgen gen", &mut cmd, &dir)?;
    }
    eprintln!("    $ cargo check --offline   (in generated/rust, with the bundled runtime)");
    let mut cmd = Command::new("cargo");
    cmd.args(["check", "--offline", "--quiet"]).args(PROFILE);
    env(&mut cmd);
    run(
        "cargo check of the generated crate",
        &mut cmd,
        &dir.join("generated/rust"),
    )?;

    // 5. A runtime of another version is refused by Cargo, naming both versions.
    let old = work.join("old-runtime");
    std::fs::create_dir_all(old.join("src")).map_err(|e| e.to_string())?;
    std::fs::write(
        old.join("Cargo.toml"),
        "[package]\nname = \"toolgen-runtime\"\nversion = \"0.0.9\"\nedition = \"2021\"\n",
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(old.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    let mut cmd = Command::new(install.join("bin/toolgen"));
    cmd.args([
        "gen",
        "--out",
        "mismatched",
        "--runtime",
        "path=../../../old-runtime",
        "tools",
    ]);
    env(&mut cmd);
    run("toolgen gen --runtime path=..", &mut cmd, &dir)?;
    let mut cmd = Command::new("cargo");
    cmd.args(["metadata", "--offline", "--format-version", "1"]);
    env(&mut cmd);
    let out = cmd
        .current_dir(dir.join("mismatched/rust"))
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours = env!("CARGO_PKG_VERSION");
    if out.status.success() || !stderr.contains("0.0.9") || !stderr.contains(ours) {
        return Err(format!(
            "a runtime of another version must be refused naming both versions (0.0.9 and {ours}):\n{stderr}"
        ));
    }
    eprintln!("    a runtime of version 0.0.9 is refused by Cargo, naming 0.0.9 and {ours}");
    Ok(())
}
