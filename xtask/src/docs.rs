//! `cargo xtask docs`: builds the HTML site from `generated/docs` with mdBook
//! (installed from crates.io with `cargo install` when missing) into
//! `target/docs-site`, then checks it: every tool has a page, every internal
//! link resolves, the search index holds every tool id. With `--browser`, a
//! headless Chromium (Debian's `chromium`, installed when missing) loads a
//! tool page, its inputs must be in the rendered DOM, and a screenshot
//! is saved as `target/docs-site-screenshot.png`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use toolgen_tests::{files_below, which};

use crate::tools::{root, step};

const MDBOOK_VERSION: &str = "0.5.4";

fn mdbook() -> Result<PathBuf, String> {
    let local = root().join("target/tools/bin/mdbook");
    if local.is_file() {
        return Ok(local);
    }
    if Command::new("mdbook")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(PathBuf::from("mdbook"));
    }
    step(
        &format!("cargo install mdbook {MDBOOK_VERSION} --no-default-features --features search"),
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())).args([
            "install",
            "mdbook",
            "--version",
            MDBOOK_VERSION,
            "--no-default-features",
            "--features",
            "search",
            "--locked",
        ]),
    )?;
    Ok(PathBuf::from("mdbook"))
}

/// Every `href="..."` and `src="..."` value in `html`.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// The checks on the built site; returns the problems.
pub fn check_site(site: &Path, generated: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    // Every tool page of the source tree has an HTML page.
    let mut ids = BTreeSet::new();
    let src = generated.join("docs/src");
    for md in files_below(&src, "md") {
        // Tool pages are `<set>/<id>.md`; `<set>/index.md` lists the set.
        let Ok(rel) = md.strip_prefix(&src) else {
            continue;
        };
        let stem = md.file_stem().map(|s| s.to_string_lossy().into_owned());
        let Some(stem) = stem.filter(|s| rel.components().count() == 2 && s != "index") else {
            continue;
        };
        let html = site.join(rel.with_extension("html"));
        if !html.is_file() {
            problems.push(format!("no page for tool `{stem}`: {}", html.display()));
        }
        ids.insert(stem);
    }
    if ids.is_empty() {
        problems.push("no tool pages in generated/docs/src".to_owned());
    }
    // Every internal link resolves.
    for page in &files_below(site, "html") {
        let text = std::fs::read_to_string(page).unwrap_or_default();
        for link in links(&text) {
            if link.contains("://")
                || link.starts_with('#')
                || link.starts_with("mailto:")
                || link.starts_with("data:")
                || link.starts_with("javascript:")
                || link.is_empty()
            {
                continue;
            }
            let path = link.split(['#', '?']).next().unwrap_or("");
            if path.is_empty() {
                continue;
            }
            let base = page.parent().unwrap_or(site);
            let target = if let Some(abs) = path.strip_prefix('/') {
                site.join(abs)
            } else {
                base.join(path)
            };
            let ok = target.is_file() || target.join("index.html").is_file();
            if !ok {
                problems.push(format!(
                    "{}: broken link `{link}`",
                    page.strip_prefix(site).unwrap_or(page).display()
                ));
            }
        }
    }
    // The search index holds every tool id.
    // mdBook 0.5 names it `searchindex-<hash>.js`; older versions `searchindex.json`/`.js`.
    let index = std::fs::read_dir(site)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("searchindex"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect::<String>();
    if index.is_empty() {
        problems.push("no search index (searchindex*.js / .json)".to_owned());
    }
    for id in &ids {
        if !index.contains(id.as_str()) {
            problems.push(format!("the search index does not hold tool id `{id}`"));
        }
    }
    problems
}

fn chromium() -> Result<PathBuf, String> {
    if let Some(p) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find_map(which)
    {
        return Ok(p);
    }
    crate::tools::apt_install(&["chromium"])?;
    Ok(PathBuf::from("chromium"))
}

fn browser_check(site: &Path) -> Result<(), String> {
    let chromium = chromium()?;
    let page = site.join("editormcp/go.setParent.html");
    let url = format!("file://{}", page.display());
    let profile = root().join("target/chromium-profile");
    let common = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ];
    let dom = Command::new(&chromium)
        .args(common)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .map_err(|e| format!("cannot run chromium: {e}"))?;
    let dom = String::from_utf8_lossy(&dom.stdout);
    // The inputs: a list (it fits any page width) after the heading "Inputs".
    let inputs = dom
        .find("id=\"inputs\"")
        .and_then(|i| dom[i..].find("<ul>").map(|j| i + j))
        .and_then(|i| dom[i..].find("</ul>").map(|j| &dom[i..i + j]))
        .unwrap_or("");
    if !(inputs.contains("childPath")
        && inputs.contains("parentPath")
        && inputs.contains("required"))
    {
        return Err(format!(
            "chromium did not render the inputs of go.setParent ({} bytes of DOM)",
            dom.len()
        ));
    }
    let shot = root().join("target/docs-site-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    eprintln!("==> chromium --headless --screenshot (target/docs-site-screenshot.png)");
    // Chromium logs D-Bus complaints on a headless machine: shown only on failure.
    crate::tools::output(
        "chromium --screenshot",
        Command::new(&chromium)
            .args(common)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--screenshot={}", shot.display()))
            .arg("--window-size=1280,1600")
            .arg(&url),
    )?;
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    if size < 10_000 {
        return Err(format!("the screenshot is missing or empty ({size} bytes)"));
    }
    eprintln!(
        "    inputs rendered; screenshot: {} ({size} bytes)",
        shot.display()
    );
    Ok(())
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let mdbook = mdbook()?;
    let site = root().join("target/docs-site");
    step(
        "mdbook build generated/docs (into target/docs-site)",
        Command::new(&mdbook)
            .arg("build")
            .arg(root().join("generated/docs"))
            .arg("--dest-dir")
            .arg(&site),
    )?;
    let problems = check_site(&site, &root().join("generated"));
    if !problems.is_empty() {
        return Err(format!(
            "the docs site has problems:\n  {}",
            problems.join("\n  ")
        ));
    }
    eprintln!(
        "    site checked: every tool has a page, every internal link resolves, every id is in the search index"
    );
    if args.contains(&"--browser") {
        browser_check(&site)?;
    }
    eprintln!("docs site: {}", site.join("index.html").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_check_finds_what_it_looks_for() {
        let d = std::env::temp_dir().join(format!("xtask-site-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let site = d.join("site");
        let generated = d.join("generated");
        let _ = std::fs::create_dir_all(site.join("set"));
        let _ = std::fs::create_dir_all(generated.join("docs/src/set"));
        let _ = std::fs::write(generated.join("docs/src/set/a.tool.md"), "# A");
        let _ = std::fs::write(generated.join("docs/src/set/b.tool.md"), "# B");
        let _ = std::fs::write(
            site.join("set/a.tool.html"),
            r#"<a href="../index.html#x">ok</a><a href="missing.html">broken</a><a href="https://x.org/y">external</a>"#,
        );
        let _ = std::fs::write(site.join("index.html"), "");
        let _ = std::fs::write(site.join("searchindex-123.js"), "a.tool");
        let problems = check_site(&site, &generated);
        let _ = std::fs::remove_dir_all(&d);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].contains("no page for tool `b.tool`"));
        assert!(problems[1].contains("broken link `missing.html`"));
        assert!(problems[2].contains("does not hold tool id `b.tool`"));
    }
}
