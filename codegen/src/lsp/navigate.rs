//! Where things are: what a `$ref` points to (in the same document or
//! another schema file), where a tool's category, tier or safety level is
//! declared (its tool set's `toolset.yaml`), and the `$ref` targets a
//! document can name.

use std::path::{Component, Path, PathBuf};

use crate::source::{FileId, Span};
use crate::syntax::{Node, Parsed};

use super::cursor::{Role, spot};
use super::world::{Doc, Kind};

/// A place in a file.
pub struct Place {
    pub path: PathBuf,
    pub text: String,
    pub span: Span,
}

fn parse(path: &Path, text: &str) -> Parsed {
    let name = path.to_string_lossy();
    if name.ends_with(".yaml") || name.ends_with(".yml") {
        crate::syntax::yaml::parse(FileId(0), text, Default::default())
    } else {
        crate::syntax::json::parse(FileId(0), text)
    }
}

/// The text of `path`: the editor's if it is the document's, else the
/// last check's, else the file's.
fn text_of(doc: &Doc, path: &Path) -> Option<String> {
    if path == doc.path {
        return Some(doc.text.clone());
    }
    let files = doc.loaded.map(|l| l.db.files());
    (files.into_iter().flatten())
        .find(|(_, f)| std::path::absolute(&f.path).is_ok_and(|p| p == path))
        .map(|(_, f)| f.text().to_owned())
        .or_else(|| std::fs::read_to_string(path).ok())
}

/// The node at a JSON pointer, and the span of the key that names it (the
/// node's own span for the root and array items).
fn find<'n>(root: &'n Node, pointer: &str) -> Option<(&'n Node, Span)> {
    let mut node = root;
    let mut span = root.span;
    for token in pointer.split('/').skip(1) {
        let token = crate::schema::unescape(&percent_decode(token));
        if let Some(items) = node.as_array() {
            node = items.get(token.parse::<usize>().ok()?)?;
            span = node.span;
        } else {
            let m = node.member(&token)?;
            node = &m.value;
            span = m.key_span;
        }
    }
    Some((node, span))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The schema documents of the document's tool set (every `*.schema.json`
/// the last check read).
fn schema_files(doc: &Doc) -> Vec<PathBuf> {
    let Some(loaded) = doc.loaded else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = (loaded.db.files())
        .map(|(_, f)| std::path::absolute(&f.path).unwrap_or_else(|_| f.path.clone()))
        .filter(|p| crate::refs::is_schema_doc(p))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Where `reference` (a `$ref`'s value in the document) points.
pub fn resolve(doc: &Doc, reference: &str) -> Option<Place> {
    let (file, pointer) = reference.split_once('#').unwrap_or((reference, ""));
    let path = if file.is_empty() {
        doc.path.clone()
    } else if file.contains("://") {
        // An `$id`: the schema file below the tool set that has it.
        schema_files(doc).into_iter().find(|p| {
            let text = text_of(doc, p).unwrap_or_default();
            let root = parse(p, &text).root;
            let id = root
                .as_ref()
                .and_then(|r| r.get("$id"))
                .and_then(Node::as_str);
            id.is_some_and(|id| id.split('#').next() == Some(file))
        })?
    } else {
        normalize(&doc.path.parent()?.join(percent_decode(file)))
    };
    let text = text_of(doc, &path)?;
    let root = parse(&path, &text).root?;
    let (_, span) = find(&root, pointer)?;
    Some(Place { path, text, span })
}

/// The schema a `$ref` points to, as markdown.
pub fn ref_preview(doc: &Doc, reference: &str) -> Option<String> {
    let place = resolve(doc, reference)?;
    let root = parse(&place.path, &place.text).root?;
    let pointer = reference.split_once('#').map_or("", |(_, p)| p);
    let (node, _) = find(&root, pointer)?;
    let json = serde_json::to_string_pretty(&node.to_json()).ok()?;
    let mut lines: Vec<&str> = json.lines().collect();
    let cut = lines.len() > 40;
    lines.truncate(40);
    let more = if cut { "\n…" } else { "" };
    let name = place.path.file_name()?.to_string_lossy();
    Some(format!(
        "`{reference}` ({name}):\n\n```json\n{}{more}\n```",
        lines.join("\n")
    ))
}

/// The `$ref` targets a document can name: its own definitions, and the
/// schema files of its tool set with theirs, with what each is.
pub fn ref_targets(doc: &Doc) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let dir = doc.path.parent().unwrap_or(Path::new(""));
    let mut docs: Vec<(String, PathBuf)> = vec![(String::new(), doc.path.clone())];
    for p in schema_files(doc) {
        if p != doc.path {
            docs.push((relative(dir, &p), p));
        }
    }
    for (prefix, path) in docs {
        let Some(text) = text_of(doc, &path) else {
            continue;
        };
        let root = parse(&path, &text).root;
        if !prefix.is_empty() {
            let d = root
                .as_ref()
                .and_then(|r| r.get("description"))
                .and_then(Node::as_str);
            out.push((prefix.clone(), d.map(str::to_owned)));
        }
        for word in ["$defs", "definitions"] {
            let defs = root
                .as_ref()
                .and_then(|r| r.get(word))
                .and_then(Node::as_object);
            for m in defs.into_iter().flatten() {
                let pointer = format!("#/{word}/{}", m.key.replace('~', "~0").replace('/', "~1"));
                let d = m.value.get("description").and_then(Node::as_str);
                out.push((format!("{prefix}{pointer}"), d.map(str::to_owned)));
            }
        }
    }
    out
}

/// `to` relative to the directory `from`, with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to_parts[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Where the declaration of what is under the cursor is: a `$ref`'s target,
/// or a category's, tier's or safety level's entry in `toolset.yaml`.
pub fn definition(doc: &Doc, offset: usize) -> Option<Place> {
    let spot = spot(&doc.text, offset, doc.yaml);
    if spot.role != Role::Value {
        return None;
    }
    let key = spot.key()?;
    if key == "$ref" {
        return resolve(doc, &spot.word);
    }
    let list = match (doc.kind, key) {
        (Kind::Spec(_), "category") => "categories",
        (Kind::Spec(_), "tier") | (Kind::Manifest, "maxTier") => "tiers",
        (Kind::Spec(_), "safetyLevel") => "safetyLevels",
        _ => return None,
    };
    let manifest = match doc.kind {
        Kind::Manifest => doc.path.clone(),
        _ => {
            let loaded = doc.loaded?;
            let file = loaded.db.get(doc.set?.manifest?.file);
            std::path::absolute(&file.path).ok()?
        }
    };
    let text = text_of(doc, &manifest)?;
    let root = parse(&manifest, &text).root?;
    let items = root.get(list)?.as_array()?;
    let span = items.iter().find_map(|item| {
        let id = item.get("id").unwrap_or(item);
        (id.as_str() == Some(spot.word.as_str())).then_some(id.span)
    })?;
    Some(Place {
        path: manifest,
        text,
        span,
    })
}
