//! `$ref` resolution and bundling: every tool schema becomes self-contained.
//!
//! Schema documents are JSON files named `*.schema.json` below the spec roots
//! (the paths given to toolgen). They are found by path, and by their `$id`, so
//! absolute `$id` URLs (`https://example.org/debrief/schemas/...`) map to local
//! files: nothing is ever fetched over the network.
//!
//! Bundling keeps the tool's schema as the root and copies every referenced
//! target from another document (a whole file, or a pointer into one) into the
//! root's `$defs` under a collision-free name, rewriting `$ref`s to
//! `#/$defs/NAME`. Refs into the root document itself keep their pointers.
//! Every copied value keeps its source location, so later rules point into the
//! schema file it came from.
//!
//! Located errors: a dangling ref (no such file, no such pointer, no local file
//! for an `$id` URL), a ref to a file outside the spec roots, a cycle of refs
//! that cannot be typed (`A` is only a ref to `B`, which is only a ref to `A`),
//! and keywords emitters cannot honour (`prefixItems`, `unevaluatedProperties`,
//! dynamic refs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, rule};
use crate::ir::Schema;
use crate::schema::{at_pointer, unescape};
use crate::source::{Loc, SourceDb};
use crate::syntax::{self, pointer_join};

/// Keywords that no emitter can honour; a schema using them is refused.
/// Tuples (`prefixItems`, and draft 7's `items` list with `additionalItems`)
/// are typed as Rust tuples.
pub const UNSUPPORTED_KEYWORDS: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
];

/// Keywords that only annotate; they may stand beside a `$ref` in draft 7.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$comment",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Resolves `reference` against `base` (RFC 3986, for the forms schemas use).
pub fn resolve_uri(base: &str, reference: &str) -> String {
    if reference.contains("://") || reference.starts_with("urn:") {
        return reference.to_owned();
    }
    let (base_no_frag, _) = base.split_once('#').unwrap_or((base, ""));
    if let Some(fragment) = reference.strip_prefix('#') {
        return format!("{base_no_frag}#{fragment}");
    }
    let (ref_path, fragment) = match reference.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (reference, None),
    };
    let scheme_end = base_no_frag.find("://").map_or(0, |i| i + 3);
    let authority_end = base_no_frag[scheme_end..]
        .find('/')
        .map_or(base_no_frag.len(), |i| scheme_end + i);
    let (origin, base_path) = base_no_frag.split_at(authority_end);
    let merged = if ref_path.starts_with('/') {
        ref_path.to_owned()
    } else {
        let dir = base_path.rfind('/').map_or("", |i| &base_path[..=i]);
        format!("{dir}{ref_path}")
    };
    let mut segments: Vec<&str> = Vec::new();
    for seg in merged.split('/') {
        match seg {
            "." => {}
            ".." => {
                if segments.len() > 1 {
                    segments.pop();
                }
            }
            s => segments.push(s),
        }
    }
    let path = segments.join("/");
    match fragment {
        Some(f) => format!("{origin}{path}#{f}"),
        None => format!("{origin}{path}"),
    }
}

/// Whether `path` names a schema document (`*.schema.json`), never a tool spec.
pub fn is_schema_doc(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".schema.json"))
}

/// The `file://` URI of a path.
pub fn file_uri(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let s = abs.to_string_lossy().replace('\\', "/");
    if s.starts_with('/') {
        format!("file://{s}")
    } else {
        format!("file:///{s}")
    }
}

fn uri_to_path(uri: &str) -> Option<PathBuf> {
    uri.strip_prefix("file://").map(PathBuf::from)
}

/// A schema document: a `*.schema.json` file, or a tool's own schema.
#[derive(Clone, Debug)]
struct Doc {
    value: Value,
    locs: BTreeMap<String, Loc>,
    /// The base URI that relative refs resolve against (`$id`, or the file URI).
    base: String,
    draft07: bool,
    /// Name stem for definitions copied from the document root.
    stem: String,
}

/// The schema documents of one run, found below the spec roots.
#[derive(Debug, Default)]
pub struct SchemaStore {
    roots: Vec<PathBuf>,
    /// Keyed by file URI.
    docs: BTreeMap<String, Option<Doc>>,
    /// `$id` (without fragment) -> file URI.
    ids: BTreeMap<String, String>,
}

fn is_draft07(value: &Value) -> bool {
    value
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|s| s.contains("draft-07") || s.contains("draft-06") || s.contains("draft-04"))
}

fn stem_of(path: &Path) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("Schema");
    name.trim_end_matches(".json")
        .trim_end_matches(".schema")
        .to_owned()
}

impl SchemaStore {
    /// A store for schema documents below `roots`.
    pub fn new(roots: &[PathBuf]) -> SchemaStore {
        SchemaStore {
            roots: roots
                .iter()
                .map(|r| {
                    let abs = std::path::absolute(r).unwrap_or_else(|_| r.clone());
                    if abs.is_file() {
                        abs.parent().map(Path::to_path_buf).unwrap_or(abs)
                    } else {
                        abs
                    }
                })
                .collect(),
            ..SchemaStore::default()
        }
    }

    /// Reads a schema document and indexes its `$id`. Problems go to `diags`.
    pub fn add_file(
        &mut self,
        db: &mut SourceDb,
        path: &Path,
        text: String,
        diags: &mut Vec<Diagnostic>,
    ) {
        let uri = file_uri(path);
        if self.docs.contains_key(&uri) {
            return;
        }
        let file = db.add(path, text);
        let parsed = syntax::json::parse(file, db.get(file).text());
        diags.extend(parsed.diagnostics);
        let Some(node) = parsed.root else {
            self.docs.insert(uri, None);
            return;
        };
        let mut locs = BTreeMap::new();
        node.walk(&mut String::new(), &mut |p, n| {
            locs.insert(p.to_owned(), Loc::new(file, n.span));
        });
        let value = node.to_json();
        let id = value
            .get("$id")
            .and_then(Value::as_str)
            .map(|s| s.split('#').next().unwrap_or(s).to_owned());
        if let Some(id) = &id {
            self.ids.insert(id.clone(), uri.clone());
        }
        let doc = Doc {
            draft07: is_draft07(&value),
            base: id.unwrap_or_else(|| uri.clone()),
            stem: stem_of(path),
            value,
            locs,
        };
        self.docs.insert(uri, Some(doc));
    }

    fn inside_roots(&self, path: &Path) -> bool {
        self.roots.is_empty() || self.roots.iter().any(|r| path.starts_with(r))
    }

    /// Finds the document for an absolute URI (without fragment).
    fn lookup(&self, doc_uri: &str) -> Result<&Doc, String> {
        let file = if doc_uri.starts_with("file://") {
            doc_uri.to_owned()
        } else {
            match self.ids.get(doc_uri) {
                Some(f) => f.clone(),
                None => {
                    return Err(format!(
                        "no schema file below the spec roots has `$id` `{doc_uri}` (toolgen never fetches schemas over the network)"
                    ));
                }
            }
        };
        let path = uri_to_path(&file).unwrap_or_default();
        if !self.inside_roots(&path) {
            return Err(format!("`{}` is outside the spec roots", path.display()));
        }
        match self.docs.get(&file) {
            Some(Some(doc)) => Ok(doc),
            Some(None) => Err(format!("`{}` is not valid JSON", path.display())),
            None if path.is_file() => Err(format!(
                "`{}` is not a schema document (schema files are named `*.schema.json`)",
                path.display()
            )),
            None => Err(format!("no such file: `{}`", path.display())),
        }
    }
}

/// Where a `$ref` points: a document (`None` is the root being bundled) and a pointer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Target {
    doc: Option<String>,
    pointer: String,
}

struct Bundler<'s> {
    store: &'s SchemaStore,
    root: Doc,
    root_uri: String,
    names: BTreeMap<Target, String>,
    taken: BTreeSet<String>,
    defs: BTreeMap<String, Value>,
    locs: BTreeMap<String, Loc>,
    pending: Vec<(Target, String)>,
    /// For each definition: the definitions it is *only* a reference to.
    pure_refs: BTreeMap<String, (Vec<String>, Option<Loc>)>,
    diags: Vec<Diagnostic>,
    fallback: Loc,
}

/// Bundles `schema` (a tool's input or output schema, read from the file with
/// URI `base`) into a self-contained schema. Returns the problems found.
pub fn bundle(
    store: &SchemaStore,
    schema: &Schema,
    base: &str,
    root_uri: &str,
    fallback: Loc,
) -> (Schema, Vec<Diagnostic>) {
    let root = Doc {
        draft07: is_draft07(&schema.value),
        base: schema
            .value
            .get("$id")
            .and_then(Value::as_str)
            .map_or_else(|| base.to_owned(), str::to_owned),
        value: Value::clone(&schema.value),
        locs: schema.locs.to_map(),
        stem: "Root".to_owned(),
    };
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(m)) = schema.value.get(key) {
            taken.extend(m.keys().cloned());
        }
    }
    let mut b = Bundler {
        store,
        root,
        root_uri: root_uri.to_owned(),
        names: BTreeMap::new(),
        taken,
        defs: BTreeMap::new(),
        locs: schema.locs.to_map(),
        pending: Vec::new(),
        pure_refs: BTreeMap::new(),
        diags: Vec::new(),
        fallback,
    };
    let root_doc = b.root.clone();
    let mut value = b.copy(&root_doc, None, &root_doc.value, "", "");
    while let Some((target, name)) = b.pending.pop() {
        let Some(doc_uri) = &target.doc else {
            b.hoist_local(&root_doc, &target.pointer, name);
            continue;
        };
        let Ok(doc) = b.store.lookup(doc_uri).cloned() else {
            continue;
        };
        let Some(source) = at_pointer(&doc.value, &target.pointer).cloned() else {
            continue;
        };
        let ir_ptr = pointer_join("/$defs", &name);
        let copied = b.copy(
            &doc,
            Some(doc_uri.clone()),
            &source,
            &target.pointer,
            &ir_ptr,
        );
        b.defs.insert(name, copied);
    }
    b.check_cycles();
    if let Value::Object(m) = &mut value {
        if !b.defs.is_empty() {
            let defs = m
                .entry("$defs")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(d) = defs {
                d.extend(std::mem::take(&mut b.defs));
            }
        }
    }
    (
        Schema {
            value: value.into(),
            locs: b.locs.into(),
            written: schema.written.clone(),
        },
        b.diags,
    )
}

/// Whether a pointer names a definition itself (`/$defs/X`, `/definitions/X`).
fn is_definition(pointer: &str) -> bool {
    ["/$defs/", "/definitions/"].iter().any(|p| {
        pointer
            .strip_prefix(p)
            .is_some_and(|rest| !rest.contains('/'))
    })
}

impl Bundler<'_> {
    /// Copies the part of the root schema at `pointer` into definition
    /// `name`, with its locations.
    fn hoist_local(&mut self, root: &Doc, pointer: &str, name: String) {
        let Some(source) = at_pointer(&root.value, pointer).cloned() else {
            return;
        };
        let ir_ptr = pointer_join("/$defs", &name);
        let copied = self.copy(root, None, &source, pointer, &ir_ptr);
        let moved: Vec<(String, Loc)> = root
            .locs
            .iter()
            .filter_map(|(p, l)| {
                let rest = p.strip_prefix(pointer)?;
                (rest.is_empty() || rest.starts_with('/')).then(|| (format!("{ir_ptr}{rest}"), *l))
            })
            .collect();
        self.locs.extend(moved);
        self.defs.insert(name, copied);
    }

    fn loc_in(&self, doc: &Doc, pointer: &str) -> Loc {
        let mut p = pointer;
        loop {
            if let Some(l) = doc.locs.get(p) {
                return *l;
            }
            if p.is_empty() {
                return self.fallback;
            }
            p = p.rfind('/').map_or("", |i| &p[..i]);
        }
    }

    fn name_for(&mut self, target: &Target, doc: &Doc) -> String {
        if let Some(n) = self.names.get(target) {
            return n.clone();
        }
        let last = target
            .pointer
            .rsplit('/')
            .next()
            .map(unescape)
            .unwrap_or_default();
        let base = if target.pointer.is_empty() {
            doc.stem.clone()
        } else {
            last
        };
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.is_empty() {
            "Schema".to_owned()
        } else {
            base
        };
        let mut name = base.clone();
        if self.taken.contains(&name) {
            name = format!("{}_{base}", doc.stem);
        }
        let mut n = 2;
        let stem = name.clone();
        while self.taken.contains(&name) {
            name = format!("{stem}{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.names.insert(target.clone(), name.clone());
        self.pending.push((target.clone(), name.clone()));
        name
    }

    /// Copies `value` (at `src_ptr` in `doc`) to `ir_ptr`, rewriting refs.
    fn copy(
        &mut self,
        doc: &Doc,
        doc_uri: Option<String>,
        value: &Value,
        src_ptr: &str,
        ir_ptr: &str,
    ) -> Value {
        if doc_uri.is_some() {
            let loc = self.loc_in(doc, src_ptr);
            self.locs.insert(ir_ptr.to_owned(), loc);
        }
        match value {
            Value::Object(m) => {
                let mut out = Map::new();
                let has_ref = m.contains_key("$ref");
                for (k, v) in m {
                    let s = pointer_join(src_ptr, k);
                    let i = pointer_join(ir_ptr, k);
                    if UNSUPPORTED_KEYWORDS.contains(&k.as_str()) {
                        let what = format!("`{k}`");
                        self.diags.push(
                            Diagnostic::at(&rule::UNSUPPORTED_KEYWORD, self.loc_in(doc, &s), format!("{what} cannot be honoured by toolgen's emitters"))
                                .label("unsupported keyword")
                                .help("express the shape with `properties`, `items` (one schema) and `additionalProperties`"),
                        );
                        continue;
                    }
                    if k == "$ref" {
                        if let Some(r) = v.as_str() {
                            out.insert(
                                k.clone(),
                                Value::String(self.rewrite(doc, doc_uri.as_deref(), r, &s, ir_ptr)),
                            );
                            if doc_uri.is_none() {
                                self.locs.insert(i, self.loc_in(doc, &s));
                            }
                        }
                        continue;
                    }
                    if has_ref
                        && doc.draft07
                        && !ANNOTATIONS.contains(&k.as_str())
                        && !k.starts_with("x-")
                    {
                        self.diags.push(
                            Diagnostic::at(&rule::REF_SIBLING, self.loc_in(doc, &s), format!("`{k}` beside `$ref` is ignored in draft 7"))
                                .label("ignored by draft-07 validators")
                                .help("move the constraint into the referenced schema, or combine with `allOf`"),
                        );
                    }
                    if doc_uri.is_some() && src_ptr.is_empty() && (k == "$schema" || k == "$id") {
                        continue;
                    }
                    out.insert(k.clone(), self.copy(doc, doc_uri.clone(), v, &s, &i));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(
                a.iter()
                    .enumerate()
                    .map(|(n, v)| {
                        self.copy(
                            doc,
                            doc_uri.clone(),
                            v,
                            &format!("{src_ptr}/{n}"),
                            &format!("{ir_ptr}/{n}"),
                        )
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// The bundled form of a `$ref` written in `doc` at `at`.
    fn rewrite(
        &mut self,
        doc: &Doc,
        doc_uri: Option<&str>,
        reference: &str,
        at: &str,
        owner_ir_ptr: &str,
    ) -> String {
        let loc = self.loc_in(doc, at);
        let absolute = resolve_uri(&doc.base, reference);
        let (doc_part, fragment) = absolute.split_once('#').unwrap_or((&absolute, ""));
        if !fragment.is_empty() && !fragment.starts_with('/') {
            self.error(loc, reference, format!("`{reference}` uses an anchor (`#{fragment}`); only JSON-pointer fragments are supported"));
            return reference.to_owned();
        }
        let pointer = fragment.to_owned();
        // Which document: the one being bundled, or another file.
        let root_base = self.root.base.split('#').next().unwrap_or("").to_owned();
        let same_as_current = doc_part == doc.base.split('#').next().unwrap_or("");
        let target_doc: Option<String> = if (doc_uri.is_none() && same_as_current)
            || (doc_uri.is_none() && doc_part == root_base)
        {
            None
        } else if same_as_current {
            doc_uri.map(str::to_owned)
        } else {
            match self.store.lookup(doc_part) {
                Ok(_) => Some(if doc_part.starts_with("file://") {
                    doc_part.to_owned()
                } else {
                    self.store.ids.get(doc_part).cloned().unwrap_or_default()
                }),
                Err(why) => {
                    self.error(loc, reference, why);
                    return reference.to_owned();
                }
            }
        };
        let target = Target {
            doc: target_doc.clone(),
            pointer: pointer.clone(),
        };
        let (target_value_exists, target_doc_ref) = match &target_doc {
            None => (at_pointer(&self.root.value, &pointer).is_some(), None),
            Some(uri) => match self.store.lookup(uri) {
                Ok(d) => (at_pointer(&d.value, &pointer).is_some(), Some(d.clone())),
                Err(why) => {
                    self.error(loc, reference, why);
                    return reference.to_owned();
                }
            },
        };
        if !target_value_exists {
            self.error(
                loc,
                reference,
                format!(
                    "`{reference}` points to `{}`, which does not exist in `{}`",
                    if pointer.is_empty() { "#" } else { &pointer },
                    target_doc.as_deref().unwrap_or(&self.root_uri)
                ),
            );
            return reference.to_owned();
        }
        let rewritten = match (&target_doc, target_doc_ref) {
            (None, _) if pointer.is_empty() || is_definition(&pointer) => format!("#{pointer}"),
            // Any other place in the schema (`#/properties/a`): a definition of
            // its own, so that every local reference names a definition.
            (None, _) => {
                let root = self.root.clone();
                format!("#/$defs/{}", self.name_for(&target, &root))
            }
            (Some(_), Some(d)) => format!("#/$defs/{}", self.name_for(&target, &d)),
            _ => reference.to_owned(),
        };
        // Remember pure references, for cycle detection.
        let owner_is_pure = self.is_pure_ref_owner(doc, at);
        if owner_is_pure {
            let owner = owner_ir_ptr
                .strip_prefix("/$defs/")
                .unwrap_or(if owner_ir_ptr.is_empty() {
                    "#"
                } else {
                    owner_ir_ptr
                })
                .to_owned();
            let to = rewritten
                .strip_prefix("#/$defs/")
                .unwrap_or(&rewritten)
                .to_owned();
            let entry = self
                .pure_refs
                .entry(owner)
                .or_insert_with(|| (Vec::new(), Some(loc)));
            entry.0.push(to);
        }
        rewritten
    }

    /// Whether the object holding the `$ref` at `at` is nothing but that reference.
    fn is_pure_ref_owner(&self, doc: &Doc, at: &str) -> bool {
        let owner = at.rsplit_once('/').map_or("", |(o, _)| o);
        at_pointer(&doc.value, owner)
            .and_then(Value::as_object)
            .is_some_and(|m| {
                m.keys()
                    .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
            })
            && (owner.is_empty()
                || owner.starts_with("/$defs/")
                || owner.starts_with("/definitions/"))
            && owner.matches('/').count() <= 2
    }

    fn error(&mut self, loc: Loc, reference: &str, why: String) {
        let _ = reference;
        self.diags.push(
            Diagnostic::at(&rule::UNRESOLVED_REF, loc, format!("cannot resolve `$ref`: {why}"))
                .label("unresolved reference")
                .help("refs may name schema files (`*.schema.json`) below the spec roots, by relative path or by `$id`, with an optional `#/pointer`"),
        );
    }

    /// A definition that is only a reference, in a loop back to itself, has no type.
    fn check_cycles(&mut self) {
        let graph = self.pure_refs.clone();
        for (start, (_, loc)) in &graph {
            let mut seen = BTreeSet::new();
            let mut stack = vec![start.clone()];
            while let Some(n) = stack.pop() {
                let Some((next, _)) = graph.get(&n) else {
                    continue;
                };
                for m in next {
                    if m == start {
                        self.diags.push(
                            Diagnostic::at(&rule::REF_CYCLE, loc.unwrap_or(self.fallback), format!("`{start}` is only a reference that leads back to itself; it has no type"))
                                .label("reference cycle")
                                .help("give one schema in the loop a real shape (`type`, `properties`, ...)"),
                        );
                        return;
                    }
                    if seen.insert(m.clone()) {
                        stack.push(m.clone());
                    }
                }
            }
        }
    }
}

impl SchemaStore {
    /// Adds every `*.schema.json` below `dir` (sorted, hidden entries skipped).
    pub fn add_dir(&mut self, db: &mut SourceDb, dir: &Path, diags: &mut Vec<Diagnostic>) {
        for path in crate::source::sorted_children(dir).unwrap_or_default() {
            if path.is_dir() {
                self.add_dir(db, &path, diags);
            } else if is_schema_doc(&path) {
                match std::fs::read_to_string(&path) {
                    Ok(text) => self.add_file(db, &path, text, diags),
                    Err(e) => diags.push(
                        Diagnostic::new(
                            &rule::IO_ERROR,
                            None,
                            format!("cannot read `{}`: {e}", path.display()),
                        )
                        .path(path.display().to_string()),
                    ),
                }
            }
        }
    }

    /// A whole schema document, bundled into a self-contained schema.
    pub fn bundle_document(&self, path: &Path) -> Result<(Schema, Vec<Diagnostic>), String> {
        let uri = file_uri(path);
        let doc = self.lookup(&uri)?;
        let fallback = doc
            .locs
            .get("")
            .copied()
            .ok_or("the document has no content")?;
        let schema = Schema {
            value: doc.value.clone().into(),
            locs: doc.locs.clone().into(),
            written: BTreeMap::new(),
        };
        Ok(bundle(self, &schema, &uri, &uri, fallback))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{def_name, follow};
    use crate::source::Span;

    #[test]
    fn uri_resolution() {
        let base = "https://example.org/debrief/schemas/tools/Output.schema.json";
        assert_eq!(
            resolve_uri(
                base,
                "../features/FeatureCollection.schema.json#/$defs/DebriefFeature"
            ),
            "https://example.org/debrief/schemas/features/FeatureCollection.schema.json#/$defs/DebriefFeature"
        );
        assert_eq!(
            resolve_uri(base, "#"),
            "https://example.org/debrief/schemas/tools/Output.schema.json#"
        );
        assert_eq!(
            resolve_uri(base, "Input.schema.json"),
            "https://example.org/debrief/schemas/tools/Input.schema.json"
        );
        assert_eq!(
            resolve_uri(base, "./a/../b.json"),
            "https://example.org/debrief/schemas/tools/b.json"
        );
        assert_eq!(
            resolve_uri("file:///x/y/tool.json", "../s.schema.json#/a"),
            "file:///x/s.schema.json#/a"
        );
        assert_eq!(
            resolve_uri(base, "https://other.org/x.json"),
            "https://other.org/x.json"
        );
    }

    #[test]
    fn pointers() {
        let v = serde_json::json!({"a": {"b/c": [1, {"d": 2}]}});
        assert_eq!(at_pointer(&v, "/a/b~1c/1/d"), Some(&serde_json::json!(2)));
        assert_eq!(at_pointer(&v, ""), Some(&v));
        assert_eq!(at_pointer(&v, "/x"), None);
        let bundled = serde_json::json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/b~1c"}, "b/c": {"type": "string"}, "Loop": {"$ref": "#/$defs/Loop"}}});
        assert_eq!(def_name("#/$defs/b~1c").as_deref(), Some("b/c"));
        assert_eq!(def_name("#/definitions/A"), None);
        assert_eq!(
            follow(&bundled, &bundled),
            &serde_json::json!({"type": "string"})
        );
        let looping = &bundled["$defs"]["Loop"];
        assert_eq!(follow(&bundled, looping), looping, "a loop ends");
    }

    #[test]
    fn local_references_to_places_that_are_not_definitions_become_definitions() {
        let store = SchemaStore::new(&[]);
        let mut db = SourceDb::new();
        let file = db.add(Path::new("t.json"), String::new());
        let loc = Loc::new(file, Span::at(0));
        let value = serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "b": {"$ref": "#/properties/a/properties/n"},
                "c": {"$ref": "#/properties/a/properties/n"},
                "d": {"$ref": "#"},
                "e": {"$ref": "#/$defs/E"}
            },
            "$defs": {"E": {"type": "string"}}
        });
        let schema = Schema {
            value: value.into(),
            locs: Default::default(),
            written: BTreeMap::new(),
        };
        let (bundled, problems) = bundle(&store, &schema, "file:///t.json", "t.json", loc);
        assert!(problems.is_empty(), "{problems:?}");
        let p = &bundled.value["properties"];
        assert_eq!(p["b"]["$ref"], "#/$defs/n");
        assert_eq!(p["c"]["$ref"], "#/$defs/n", "one definition for one place");
        assert_eq!(p["d"]["$ref"], "#");
        assert_eq!(p["e"]["$ref"], "#/$defs/E");
        assert_eq!(
            bundled.value["$defs"]["n"],
            serde_json::json!({"type": "integer"})
        );
    }
}
