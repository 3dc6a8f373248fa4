//! What the language server knows: the folder, the tool sets in it (each
//! `toolset.yaml`), the editor's open documents, and the last check of it
//! all, with the diagnostics of each file as LSP wants them.
//!
//! Every check reads the tool sets as `toolgen validate` does (the same
//! loader, rules, spans and rule levels), the open documents' texts in
//! place of their files'; a tool found clean under the same key is not
//! checked again ([`Verdicts`]), so a check after one edit reads and
//! parses every spec but validates the edited one.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Uri,
};
use serde_json::json;

use super::text::{Lines, uri_of};
use crate::cache::keys::PieceCache;
use crate::diag::{Diagnostic, Edit, Severity};
use crate::digest::Digest;
use crate::ir::{Format, ToolSet};
use crate::load::{LoadOptions, Loaded, Overlay};
use crate::source::FileId;

/// Validation verdicts kept between checks, in memory.
#[derive(Default)]
pub struct Verdicts(Mutex<HashMap<Digest, Vec<u8>>>);

impl PieceCache for Verdicts {
    fn get(&self, key: Digest) -> Option<Vec<u8>> {
        self.0.lock().ok()?.get(&key).cloned()
    }

    fn put(&self, key: Digest, value: &[u8]) {
        if let Ok(mut m) = self.0.lock() {
            // Bounded: a long session of edits keeps the verdicts of the
            // tools as they are now, and a few versions more.
            if m.len() > 100_000 {
                m.clear();
            }
            m.insert(key, value.to_vec());
        }
    }
}

/// The folder's state.
#[derive(Default)]
pub struct World {
    /// The folder the editor opened (the first workspace folder).
    pub root: Option<PathBuf>,
    /// The directories of the tool sets' manifests below it.
    manifests: Vec<PathBuf>,
    /// The open documents' texts (shared with the check that reads them).
    pub overlay: Arc<Overlay>,
    /// The open documents: their URIs by path.
    pub open: BTreeMap<PathBuf, Uri>,
    verdicts: Verdicts,
    /// The open files outside every tool set that were read as specs.
    loose_specs: std::collections::HashSet<PathBuf>,
    /// The diagnostics last published, by file.
    pub published: HashMap<PathBuf, Vec<lsp_types::Diagnostic>>,
    /// The last check.
    pub loaded: Option<Loaded>,
}

/// What a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Spec(Format),
    Manifest,
    /// A `*.schema.json` document that specs `$ref`.
    SchemaFile,
    /// Not toolgen's: a JSON or YAML file outside every tool set.
    Other,
}

/// A document, with what is known of it: its tool set and the last check.
pub struct Doc<'w> {
    pub path: PathBuf,
    pub text: String,
    pub yaml: bool,
    pub kind: Kind,
    pub set: Option<&'w ToolSet>,
    pub loaded: Option<&'w Loaded>,
}

/// Directories a folder's walk for manifests does not enter.
const SKIPPED: &[&str] = &["target", "node_modules", "generated", "dist", "build"];

impl World {
    pub fn new(root: Option<PathBuf>) -> World {
        World {
            root,
            ..World::default()
        }
    }

    /// Finds the tool sets' manifests below the folder again.
    pub fn discover(&mut self) {
        self.manifests.clear();
        if let Some(root) = self.root.clone() {
            walk(&root, 0, &mut self.manifests);
        }
        self.manifests.sort();
        // A manifest below another's directory is found from there.
        let mut kept: Vec<PathBuf> = Vec::new();
        for m in std::mem::take(&mut self.manifests) {
            if !kept.iter().any(|k| m.starts_with(k)) {
                kept.push(m);
            }
        }
        self.manifests = kept;
    }

    /// The text of the file at `path`: the editor's, else the file's.
    pub fn text(&self, path: &Path) -> Option<String> {
        match self.overlay.text_of(path) {
            Some(t) => Some(t.to_owned()),
            None => std::fs::read_to_string(path).ok(),
        }
    }

    /// The diagnostics of edited spec files of the folder's tool sets, each
    /// checked alone in its tool set (with the tool set's schema documents):
    /// what the author waits for, in a few milliseconds, before the whole
    /// folder is checked again. What only the whole tool set shows (a
    /// duplicate id: a diagnostic that points into another file) is kept
    /// from the last check of the folder until the next.
    pub fn check_edited(&mut self, paths: &[PathBuf]) -> Vec<(Uri, Vec<lsp_types::Diagnostic>)> {
        let mut out = Vec::new();
        for path in paths {
            let Some(dir) = self.manifests.iter().find(|m| path.starts_with(m)) else {
                continue;
            };
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let spec = !crate::manifest::MANIFEST_NAMES.contains(&name)
                && !crate::refs::is_schema_doc(path);
            let Some(loaded) = self.loaded.as_ref().filter(|_| spec) else {
                continue;
            };
            let mut inputs = vec![path.clone()];
            inputs.extend(
                (loaded.db.files())
                    .filter_map(|(_, f)| std::path::absolute(&f.path).ok())
                    .filter(|p| p.starts_with(dir) && crate::refs::is_schema_doc(p)),
            );
            let options = LoadOptions {
                overlay: Some(self.overlay.clone()),
                ..LoadOptions::default()
            };
            let alone = crate::load::load_cached(&inputs, &options, Some(&self.verdicts)).0;
            let mut diags: Vec<lsp_types::Diagnostic> = (alone.diagnostics.iter())
                .filter_map(|d| to_lsp(&alone, d))
                .filter(|(p, _)| p == path)
                .map(|(_, d)| d)
                .collect();
            let here = uri_of(path);
            let set_wide = (self.published.get(path).into_iter().flatten()).filter(|d| {
                let related = d.related_information.iter().flatten();
                related
                    .into_iter()
                    .any(|r| Some(&r.location.uri) != here.as_ref())
            });
            diags.extend(set_wide.cloned());
            let before = self.published.get(path).map_or(&[][..], Vec::as_slice);
            if before != diags.as_slice() {
                out.extend(self.uri(path).map(|u| (u, diags.clone())));
            }
            match diags.is_empty() {
                true => self.published.remove(path),
                false => self.published.insert(path.clone(), diags),
            };
        }
        out
    }

    /// Checks the folder's tool sets and the open documents outside them:
    /// the diagnostics of every file that has some or had some before.
    pub fn check(&mut self) -> Vec<(Uri, Vec<lsp_types::Diagnostic>)> {
        let mut inputs = self.manifests.clone();
        // Open documents the walk of a tool set does not find: those
        // outside every tool set, and those not saved to a file yet.
        let inside = |p: &PathBuf| self.manifests.iter().any(|m| p.starts_with(m));
        let loose: Vec<PathBuf> = (self.open.keys())
            .filter(|p| !inside(p) && (p.exists() || self.overlay.text_of(p).is_some()))
            .cloned()
            .collect();
        let unsaved = (self.open.keys()).filter(|p| inside(p) && !p.exists());
        inputs.extend(loose.iter().chain(unsaved).cloned());
        let options = LoadOptions {
            overlay: Some(self.overlay.clone()),
            ..LoadOptions::default()
        };
        let loaded = if inputs.is_empty() {
            None
        } else {
            Some(crate::load::load_cached(&inputs, &options, Some(&self.verdicts)).0)
        };
        let mut by_file: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        if let Some(loaded) = &loaded {
            for tool in loaded.project.tools() {
                let file = &loaded.db.get(tool.loc.file).path;
                let file = std::path::absolute(file).unwrap_or_else(|_| file.clone());
                if loose.contains(&file) {
                    self.loose_specs.insert(file);
                }
            }
            for d in loaded.diagnostics.iter() {
                let Some((path, lsp)) = to_lsp(loaded, d) else {
                    continue;
                };
                // An open file outside every tool set that is not a spec
                // (a `package.json`) is none of toolgen's business; one is
                // a spec once a tool was read from it.
                if loose.contains(&path) && !self.loose_specs.contains(&path) {
                    continue;
                }
                for (other, mirror) in mirrors(&path, &lsp) {
                    by_file.entry(other).or_default().push(mirror);
                }
                by_file.entry(path).or_default().push(lsp);
            }
        }
        // Only what changed is published again.
        let mut out = Vec::new();
        let old = std::mem::take(&mut self.published);
        for path in old.keys() {
            if !by_file.contains_key(path) {
                out.extend(self.uri(path).map(|u| (u, Vec::new())));
            }
        }
        for (path, diags) in by_file {
            if old.get(&path) != Some(&diags) {
                out.extend(self.uri(&path).map(|u| (u, diags.clone())));
            }
            self.published.insert(path, diags);
        }
        self.loaded = loaded;
        out
    }

    /// The document at `path` with what is known of it.
    pub fn doc(&self, path: &Path) -> Option<Doc<'_>> {
        let text = self.text(path)?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let yaml = name.ends_with(".yaml") || name.ends_with(".yml");
        let set = self.set_of(path);
        let kind = if crate::manifest::MANIFEST_NAMES.contains(&name) {
            Kind::Manifest
        } else if crate::refs::is_schema_doc(path) {
            Kind::SchemaFile
        } else {
            let parsed = match yaml {
                true => crate::syntax::yaml::parse(FileId(0), &text, Default::default()),
                false => crate::syntax::json::parse(FileId(0), &text),
            };
            // Outside every tool set, only what looks like a spec is one.
            let found = (parsed.root.as_ref()).and_then(|r| crate::formats::detect(r, yaml));
            set.map(|s| s.format)
                .or(found)
                .map_or(Kind::Other, Kind::Spec)
        };
        Some(Doc {
            path: path.to_path_buf(),
            text,
            yaml,
            kind,
            set,
            loaded: self.loaded.as_ref(),
        })
    }

    /// The tool set a file is in: the one whose manifest is nearest above it.
    fn set_of(&self, path: &Path) -> Option<&ToolSet> {
        let loaded = self.loaded.as_ref()?;
        let dir_of = |s: &ToolSet| {
            let file = loaded.db.get(s.manifest?.file);
            let abs = std::path::absolute(&file.path).ok()?;
            abs.parent().map(Path::to_path_buf)
        };
        (loaded.project.tool_sets.iter())
            .filter_map(|s| Some((dir_of(s)?, s)))
            .filter(|(dir, _)| path.starts_with(dir))
            .max_by_key(|(dir, _)| dir.components().count())
            .map(|(_, s)| s)
    }

    fn uri(&self, path: &Path) -> Option<Uri> {
        self.open.get(path).cloned().or_else(|| uri_of(path))
    }
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 12 {
        return;
    }
    let Ok(entries) = crate::source::sorted_entries(dir) else {
        return;
    };
    for (path, kind) in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if kind.is_some_and(|k| k.is_dir()) {
            if !name.starts_with('.') && !SKIPPED.contains(&name) {
                walk(&path, depth + 1, out);
            }
        } else if crate::manifest::MANIFEST_NAMES.contains(&name) {
            out.push(dir.to_path_buf());
        }
    }
}

/// A toolgen diagnostic as LSP's, with the file it is in.
fn to_lsp(loaded: &Loaded, d: &Diagnostic) -> Option<(PathBuf, lsp_types::Diagnostic)> {
    let (path, range, text) = match d.loc {
        Some(loc) => {
            let file = loaded.db.get(loc.file);
            let lines = Lines::new(file.text());
            let range = lines.range(loc.span.start as usize, loc.span.end as usize);
            (file.path.clone(), range, Some(file.text()))
        }
        None => (
            PathBuf::from(d.path.as_ref()?),
            lsp_types::Range::default(),
            None,
        ),
    };
    let path = std::path::absolute(&path).unwrap_or(path);
    let severity = match d.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    };
    let mut message = d.message.clone();
    if let Some(h) = &d.help {
        message.push_str(&format!("\nhelp: {h}"));
    }
    let related = (d.secondary.iter())
        .filter_map(|l| {
            let file = loaded.db.get(l.loc.file);
            let lines = Lines::new(file.text());
            let range = lines.range(l.loc.span.start as usize, l.loc.span.end as usize);
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri_of(&file.path)?, range),
                message: l.message.clone(),
            })
        })
        .collect::<Vec<_>>();
    let fix = d
        .fix
        .as_ref()
        .zip(text)
        .and_then(|(f, text)| fix_edit(text, f));
    let href = format!(
        "https://toolgen.dev/rules#{}",
        d.rule.code.to_ascii_lowercase()
    );
    let lsp = lsp_types::Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(d.rule.code.to_owned())),
        code_description: href.parse().ok().map(|href| CodeDescription { href }),
        source: Some("toolgen".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: fix,
    };
    Some((path, lsp))
}

/// A diagnostic as seen from the other files it points into (a duplicate
/// id's first definition): the same diagnostic there, at the place it
/// names, so that neither file looks clean.
fn mirrors(path: &Path, d: &lsp_types::Diagnostic) -> Vec<(PathBuf, lsp_types::Diagnostic)> {
    let Some(here) = uri_of(path) else {
        return Vec::new();
    };
    let related = d.related_information.iter().flatten();
    related
        .filter(|r| r.location.uri != here)
        .filter_map(|r| {
            let other = super::text::path_of(&r.location.uri)?;
            let back = DiagnosticRelatedInformation {
                location: Location::new(here.clone(), d.range),
                message: d.message.lines().next().unwrap_or_default().to_owned(),
            };
            let mirror = lsp_types::Diagnostic {
                range: r.location.range,
                message: match d.message.split_once("\nhelp: ") {
                    Some((main, help)) => format!("{main} ({})\nhelp: {help}", r.message),
                    None => format!("{} ({})", d.message, r.message),
                },
                related_information: Some(vec![back]),
                data: None,
                ..d.clone()
            };
            Some((other, mirror))
        })
        .collect()
}

/// A fix as the text edit it makes (`{title, range, newText}`), kept in the
/// diagnostic's `data` for the code action that applies it.
fn fix_edit(text: &str, fix: &crate::diag::Fix) -> Option<serde_json::Value> {
    let (start, end) = (fix.loc.span.start as usize, fix.loc.span.end as usize);
    let here = text.get(start..end)?;
    let lines = Lines::new(text);
    let (range, new_text) = match &fix.edit {
        Edit::Word(word) => {
            let quoted = if here.starts_with('"') {
                serde_json::to_string(word).ok()?
            } else if here.starts_with('\'') {
                format!("'{}'", word.replace('\'', "''"))
            } else {
                word.clone()
            };
            (lines.range(start, end), quoted)
        }
        Edit::Member { key, value } if here.starts_with('{') => {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let indent: String = (text[line_start..start].chars())
                .take_while(|c| c.is_whitespace())
                .collect();
            let empty = text[end..].trim_start().starts_with('}');
            let key = serde_json::to_string(key).ok()?;
            let comma = if empty { "" } else { "," };
            let member = format!("\n{indent}  {key}: {value}{comma}");
            (lines.range(end, end), member)
        }
        Edit::Member { key, value } => {
            // YAML: a line of its own before the mapping's first key.
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let indent = " ".repeat(start - line_start);
            let value = if value == "\"\"" { "''" } else { value };
            (
                lines.range(start, start),
                format!("{key}: {value}\n{indent}"),
            )
        }
    };
    Some(json!({"title": fix.title, "range": range, "newText": new_text}))
}
