//! Helpers shared by the workspace-level tests, the benchmarks and the xtask.

pub mod synth;

use std::path::{Path, PathBuf};

use toolgen::load::Loaded;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Diagnostics as `severity code file:line:column` lines (file relative to `base`),
/// sorted; diagnostics without a position give `severity code file`.
pub fn diagnostic_lines(loaded: &Loaded, base: &Path) -> Vec<String> {
    let base_abs = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
    let rel = |p: &Path| -> String {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        abs.strip_prefix(&base_abs)
            .unwrap_or(&abs)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut lines: Vec<String> = loaded
        .diagnostics
        .iter()
        .map(|d| {
            let head = format!("{} {}", d.severity.as_str(), d.rule.code);
            match (d.loc, &d.path) {
                (Some(loc), _) => {
                    let file = loaded.db.get(loc.file);
                    let lc = file.line_col(loc.span.start);
                    format!("{head} {}:{}:{}", rel(&file.path), lc.line, lc.column)
                }
                (None, Some(p)) => format!("{head} {}", rel(Path::new(p))),
                (None, None) => head,
            }
        })
        .collect();
    lines.sort();
    lines
}
