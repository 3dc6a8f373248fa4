//! `toolgen lsp` in real editors (`cargo xtask editors`, a step of `test`):
//! Neovim's built-in LSP client, headless, opens a spec with a mistake and
//! must receive toolgen's diagnostic, hover and quick fix
//! (tests/editors/nvim.lua); the VS Code extension (editors/vscode/) is
//! packaged into a `.vsix` with `@vscode/vsce`, which must hold it whole;
//! the Zed extension (editors/zed/) must compile.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::tools::{apt_install, cargo, npm_install, output, step, step_fn};

pub fn run(root: &Path) -> Result<(), String> {
    step(
        "cargo build -p toolgen (for the editors)",
        cargo().args(["build", "--quiet", "-p", "toolgen", "--bin", "toolgen"]),
    )?;
    step_fn("Neovim (headless) against toolgen lsp", || neovim(root))?;
    step_fn("the VS Code extension, packaged by @vscode/vsce", || {
        vscode(root)
    })?;
    // Zed builds its extension as WebAssembly; its API compiles for the host too.
    step(
        "cargo check (the Zed extension, editors/zed)",
        cargo()
            .args([
                "check",
                "--quiet",
                "--manifest-path",
                "editors/zed/Cargo.toml",
            ])
            .env("CARGO_TARGET_DIR", root.join("target/zed")),
    )
}

fn neovim(root: &Path) -> Result<(), String> {
    if toolgen_tests::which("nvim").is_none() {
        apt_install(&["neovim"])?;
    }
    let dir = root.join("target/tmp/nvim");
    let _ = std::fs::remove_dir_all(&dir);
    let set = dir.join("editormcp");
    copy_dir(&root.join("tool-specs/editormcp"), &set)?;
    let spec = set.join("go.find.json");
    let text = std::fs::read_to_string(&spec).map_err(|e| e.to_string())?;
    let bad = text.replacen(
        "\"category\": \"gameobject\"",
        "\"category\": \"gameobjct\"",
        1,
    );
    std::fs::write(&spec, &bad).map_err(|e| e.to_string())?;
    // Where toolgen validate puts the mistake: its line, and the value's column.
    let at = bad.find("\"gameobjct\"").ok_or("no mistake made")?;
    let line = bad[..at].matches('\n').count();
    let col = at - bad[..at].rfind('\n').map_or(0, |i| i + 1);

    let result = dir.join("out.json");
    let out = output(
        "nvim --headless",
        Command::new("nvim")
            .args(["--headless", "--clean", "-u"])
            .arg(root.join("tests/editors/nvim.lua"))
            .arg("editormcp/go.find.json")
            .current_dir(&dir)
            .env("TOOLGEN_OUT", &result)
            .env("TOOLGEN_BIN", root.join("target/debug/toolgen"))
            .env("TOOLGEN_ROOT", &dir),
    )?;
    let got = std::fs::read_to_string(&result).map_err(|e| {
        format!(
            "Neovim wrote no result ({e}); {}",
            crate::tools::printed(&out)
        )
    })?;
    let got: Value = serde_json::from_str(&got).map_err(|e| e.to_string())?;
    let d = &got["diagnostics"][0];
    let want = (Some("TG0204"), Some(line as u64), Some(col as u64));
    let found = (d["code"].as_str(), d["lnum"].as_u64(), d["col"].as_u64());
    if found != want || got["diagnostics"].as_array().map(Vec::len) != Some(1) {
        return Err(format!(
            "Neovim got {}, not TG0204 at {line}:{col}",
            got["diagnostics"]
        ));
    }
    let hover = got["hover"].as_str().unwrap_or_default();
    if !hover.contains("unknown-category") {
        return Err(format!("Neovim's hover: {got}"));
    }
    if got["actions"] != serde_json::json!(["Replace with `gameobject`"]) {
        return Err(format!("Neovim's code actions: {}", got["actions"]));
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "    Neovim: TG0204 at {}:{}, hover and quick fix",
        line + 1,
        col + 1
    );
    Ok(())
}

fn vscode(root: &Path) -> Result<(), String> {
    let tools = root.join("target/tools/vscode");
    let ext = tools.join("extension");
    let _ = std::fs::remove_dir_all(&ext);
    copy_dir(&root.join("editors/vscode"), &ext)?;
    npm_install(&ext, &[])?;
    npm_install(&tools, &["@vscode/vsce@3"])?;
    let vsix = tools.join("toolgen.vsix");
    let _ = std::fs::remove_file(&vsix);
    eprintln!("==> vsce package");
    output(
        "vsce package",
        Command::new(tools.join("node_modules/.bin/vsce"))
            .args([
                "package",
                "--allow-missing-repository",
                "--skip-license",
                "--out",
            ])
            .arg(&vsix)
            .current_dir(&ext),
    )?;
    // A .vsix is a zip: the extension, its manifest and its client library.
    let listing = output(
        "python3 -m zipfile -l toolgen.vsix",
        Command::new("python3")
            .args(["-m", "zipfile", "-l"])
            .arg(&vsix),
    )?;
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    for want in [
        "extension/package.json",
        "extension/extension.js",
        "extension/node_modules/vscode-languageclient/node.js",
        "extension.vsixmanifest",
    ] {
        if !listing.contains(want) {
            return Err(format!("toolgen.vsix has no {want}:\n{listing}"));
        }
    }
    let size = std::fs::metadata(&vsix).map(|m| m.len()).unwrap_or(0);
    eprintln!("    {} ({} KiB)", vsix.display(), size / 1024);
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries.flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}
