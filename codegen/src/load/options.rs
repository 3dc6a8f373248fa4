//! What a load reads and how: formats, groups, size limits, rule levels.

use crate::diag::LintLevel;
use crate::ir::Format;
use crate::progress::Progress;
use regex::Regex;
use std::path::PathBuf;

/// Spec files larger than this are refused unless the limit is raised.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// How to load spec files.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Read every spec file as this format instead of detecting it.
    pub format: Option<Format>,
    pub max_file_size: u64,
    /// Keep only tools in these groups (see [`group_filters`]); empty keeps all.
    pub groups: Vec<Regex>,
    /// The manifest every spec belongs to (`--manifest`), wherever it is.
    pub manifest: Option<PathBuf>,
    /// Rule levels for this run (`--allow`, `--warn`, `--deny`), by code or
    /// name; over the manifests' `lints`.
    pub lints: Vec<(String, LintLevel)>,
    /// Directories the walk does not enter (the output directory of the run).
    pub exclude: Vec<PathBuf>,
    /// The clients every tool set is checked against (`--clients`), over the
    /// manifests' `clients`; empty: the manifests'.
    pub clients: Vec<crate::ir::Client>,
    /// Texts to read instead of files' (an editor's unsaved buffers).
    pub overlay: Option<std::sync::Arc<Overlay>>,
    pub progress: Progress,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            groups: Vec::new(),
            manifest: None,
            lints: Vec::new(),
            exclude: Vec::new(),
            clients: Vec::new(),
            overlay: None,
            progress: Progress::default(),
        }
    }
}

/// Compiles `--groups` patterns as RAVE's `mcptool_list()` matches them: a tool
/// is in group pattern `G` when its name matches `^[a-zA-Z0-9]+-mcp_tool_(?:G)`.
/// Several patterns combine with OR. Tools whose names do not follow the
/// `{package}-mcp_tool_{group}_{action}` pattern are in no group.
pub fn group_filters(patterns: &[String]) -> Result<Vec<Regex>, String> {
    patterns
        .iter()
        .map(|g| {
            Regex::new(&format!("^[a-zA-Z0-9]+-mcp_tool_(?:{g})"))
                .map_err(|e| format!("invalid group pattern `{g}`: {e}"))
        })
        .collect()
}

/// Texts to read instead of the files at their paths (an editor's buffers,
/// `toolgen lsp`), by absolute path.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    texts: std::collections::HashMap<PathBuf, String>,
}

impl Overlay {
    /// `text` in place of the file at `path`.
    pub fn insert(&mut self, path: &std::path::Path, text: String) {
        self.texts.insert(absolute(path), text);
    }

    pub fn remove(&mut self, path: &std::path::Path) {
        self.texts.remove(&absolute(path));
    }

    /// The text held for `path`, if any.
    pub fn text_of(&self, path: &std::path::Path) -> Option<&str> {
        if self.texts.is_empty() {
            return None;
        }
        self.texts.get(&absolute(path)).map(String::as_str)
    }
}

fn absolute(path: &std::path::Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
