//! What every emitter shares: the run's settings ([`EmitOptions`]), the
//! context an emitter gets ([`EmitContext`]), where its work goes
//! ([`Output`]), the [`Emitter`] traits, and the pieces kept between runs.

use super::csharp_bridge;
use crate::cache::keys::PieceCache;
use crate::cache::pieces::{add_held, cached_or_made, cached_text};
use crate::files::GeneratedFiles;
use crate::ir::{OutputKind, Project, RuntimeSource, ToolSet};
use crate::templates::RunTemplates;

/// What every emitter gets besides the project: the run's settings, and its
/// templates (built-ins with the overrides of the command line and the
/// manifests), loaded once by the generator before any emitter runs.
pub struct EmitContext<'a> {
    pub options: &'a EmitOptions,
    /// Loaded when an emitter of the run renders templates (`None` otherwise).
    pub templates: Option<&'a RunTemplates>,
    /// Pieces rendered by earlier runs, with the digests of the project's
    /// tools and sets their keys are made from (`None`: render everything).
    pub cache: Option<(&'a dyn PieceCache, &'a crate::cache::keys::Keys)>,
    /// Each tool set's `tools.json`, made once for every emitter.
    pub catalogs: &'a Catalogs,
}

impl EmitContext<'_> {
    /// The catalog hash of `set`, made once for every emitter (see
    /// [`Catalogs::hash`]).
    pub fn catalog_hash(&self, set: &ToolSet) -> String {
        self.catalogs.hash(self, set)
    }

    /// The cache with the key of a piece made from the `index`th tool of
    /// `set` (its digest, the set's settings, and what `extra` mixes in),
    /// when the run has a cache.
    pub fn cached_piece(
        &self,
        set: &ToolSet,
        index: usize,
        extra: impl FnOnce(&mut crate::digest::Hasher),
    ) -> Option<(&dyn PieceCache, crate::digest::Digest)> {
        let (cache, keys) = self.cache?;
        Some((cache, keys.piece(set, index, extra)?))
    }

    /// The text `what` of the `index`th tool of `set`, from the cache, else
    /// made by `make` (from that tool and the set's settings only) and kept.
    pub fn piece_text(
        &self,
        set: &ToolSet,
        index: usize,
        what: &str,
        make: impl FnOnce() -> String,
    ) -> String {
        cached_or_made(self.text_piece(set, index, what), make)
    }

    /// Adds the file at `path` whose contents are [`EmitContext::piece_text`]
    /// `what`: unread when the sink of `files` holds them already.
    pub fn add_piece_file(
        &self,
        files: &mut GeneratedFiles,
        (set, index): (&ToolSet, usize),
        what: &str,
        path: String,
        make: impl FnOnce() -> String,
    ) {
        let piece = self.text_piece(set, index, what);
        if !add_held(files, piece, &path) {
            files.add(path, cached_or_made(piece, make));
        }
    }

    /// The cache with the key of the text `what` of the `index`th tool of `set`.
    pub(crate) fn text_piece(
        &self,
        set: &ToolSet,
        index: usize,
        what: &str,
    ) -> Option<(&dyn PieceCache, crate::digest::Digest)> {
        self.cached_piece(set, index, |h| {
            h.str(what);
        })
    }
}

/// One output kind (the JSON catalog, Rust types, C# stubs, docs, ...).
pub trait Emitter {
    /// Whether it renders templates (then the run loads them first).
    fn renders_templates(&self) -> bool {
        false
    }
    /// Adds this emitter's files for `project` to `out.files`; problems (a
    /// schema that cannot be mapped to a type, say) go to `out.diags`.
    fn emit(&self, cx: &EmitContext<'_>, project: &Project, out: &mut Output<'_>);
}

/// An emitter that renders templates: it gets the run's templates, and
/// renders with [`Output::render`]. Every such emitter is an [`Emitter`].
pub trait TemplateEmitter {
    fn emit_rendered(
        &self,
        cx: &EmitContext<'_>,
        templates: &RunTemplates,
        project: &Project,
        out: &mut Output<'_>,
    );
}

/// Where an emitter's work goes: its files, and its problems.
pub struct Output<'a> {
    pub files: &'a mut GeneratedFiles,
    pub diags: &'a mut Vec<crate::diag::Diagnostic>,
}

impl Output<'_> {
    /// Renders template `name` with `context` into file `path`; a template
    /// that fails is reported (TG0802).
    pub fn render(
        &mut self,
        templates: &crate::templates::Templates,
        name: &str,
        path: String,
        context: &impl serde::Serialize,
    ) {
        templates.render_file(name, context, path, self.files, self.diags);
    }

    /// [`Output::render`] of a piece the cache may hold: `piece` is the cache
    /// with the key of everything the context is made from (see
    /// [`EmitContext::cached_piece`]); the templates' digest, the template's
    /// name and the path are mixed in here. `context` is made only when the
    /// cache does not hold the piece.
    pub fn render_piece<C: serde::Serialize>(
        &mut self,
        piece: Option<(&dyn PieceCache, crate::digest::Digest)>,
        templates: &crate::templates::Templates,
        name: &str,
        path: String,
        context: impl FnOnce() -> C,
    ) {
        let key = piece.map(|(cache, key)| {
            let key = crate::digest::Hasher::new()
                .str("template piece")
                .digest(templates.digest())
                .str(name)
                .str(&path)
                .digest(key)
                .finish();
            (cache, key)
        });
        self.render_kept(key, templates, name, path, context);
    }

    /// Adds the file at `path` that the cache keeps under `key` (unread when
    /// the sink holds it already), else renders template `name` with
    /// `context()` and keeps it.
    fn render_kept<C: serde::Serialize>(
        &mut self,
        key: Option<(&dyn PieceCache, crate::digest::Digest)>,
        templates: &crate::templates::Templates,
        name: &str,
        path: String,
        context: impl FnOnce() -> C,
    ) {
        if add_held(self.files, key, &path) {
            return;
        }
        match cached_text(key, || templates.render(name, context())) {
            Ok(text) => self.files.add(path, text),
            Err(e) => self.diags.push(e.diagnostic()),
        }
    }

    /// [`Output::render`] of a file made from many tools (a tool set's page,
    /// the site's summary) whose context says only part of each, so that it
    /// is often the same when a tool changed: kept in `cache` by the digest
    /// of the context's JSON form (with the templates' digest, the
    /// template's name and the path), and not rendered again while that is
    /// the same. `by` is [`ContextJson::of`] `context`.
    pub fn render_by_context(
        &mut self,
        by: Option<&ContextJson<'_>>,
        templates: &crate::templates::Templates,
        name: &str,
        path: String,
        context: &impl serde::Serialize,
    ) {
        let key = by.map(|by| {
            let key = crate::digest::Hasher::new()
                .str("template file by context")
                .digest(templates.digest())
                .str(name)
                .str(&path)
                .bytes(&by.json)
                .finish();
            (by.cache, key)
        });
        self.render_kept(key, templates, name, path, || context);
    }
}

/// A context's JSON form, which keys the files rendered from it by
/// [`Output::render_by_context`]: made once for all of them (the docs'
/// site context lists every tool, and four files are rendered from it).
pub struct ContextJson<'a> {
    cache: &'a dyn PieceCache,
    json: Vec<u8>,
}

impl<'a> ContextJson<'a> {
    /// `None` without a cache (nothing is kept) or a context that does not
    /// serialize (it is rendered every time).
    pub fn of(
        cache: Option<&'a dyn PieceCache>,
        context: &impl serde::Serialize,
    ) -> Option<ContextJson<'a>> {
        let cache = cache?;
        let json = serde_json::to_vec(context).ok()?;
        Some(ContextJson { cache, json })
    }
}

impl<T: TemplateEmitter> Emitter for T {
    fn renders_templates(&self) -> bool {
        true
    }

    fn emit(&self, cx: &EmitContext<'_>, project: &Project, out: &mut Output<'_>) {
        // Loaded by the run for every emitter that renders templates.
        if let Some(templates) = cx.templates {
            self.emit_rendered(cx, templates, project, out);
        }
    }
}

/// How the Rust output is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RustLayout {
    /// A crate under `rust/`: `Cargo.toml`, `src/lib.rs`, a module directory
    /// per tool set, and (with the bundled runtime) `toolgen-runtime/` beside.
    #[default]
    Crate,
    /// One file, `tools.rs`, with a module per tool set, for a `build.rs` to
    /// write into `OUT_DIR` and the package to `include!`.
    Module,
}

/// Settings of the emitters.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// The outputs asked for; empty: every output (each tool set's manifest
    /// may still leave some out).
    pub outputs: Vec<OutputKind>,
    pub rust_layout: RustLayout,
    /// Where the generated crate gets `toolgen-runtime` from; overrides the
    /// manifests' `runtime`. `None`: the manifests', else bundled.
    pub runtime: Option<RuntimeSource>,
    /// Whether the C# bridge package is written beside the generated one.
    pub csharp_bridge: csharp_bridge::CsharpBridge,
    /// A directory whose files override the built-in templates of the same name.
    pub templates: Option<std::path::PathBuf>,
    /// The command that regenerates the output, named in generated headers
    /// (`toolgen gen --out generated specs`, `cargo xtask gen`, ...).
    pub regenerate: String,
    /// Reports how far the emitters are (the Rust emitter, the slow one, per tool).
    pub progress: crate::progress::Progress,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            outputs: Vec::new(),
            rust_layout: RustLayout::Crate,
            runtime: None,
            csharp_bridge: csharp_bridge::CsharpBridge::Bundled,
            templates: None,
            regenerate: "toolgen gen".to_owned(),
            progress: crate::progress::Progress::default(),
        }
    }
}

impl EmitOptions {
    /// Whether output `kind` was asked for.
    pub fn asks_for(&self, kind: OutputKind) -> bool {
        self.outputs.is_empty() || self.outputs.contains(&kind)
    }
}

/// The regenerate command as one line, safe in any line comment.
pub(crate) fn one_line(command: &str) -> String {
    command.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each tool set's `tools.json`, made once per run for all the emitters that
/// need it or its hash (the catalog, the Rust table, the C# registry), by
/// set. The text (megabytes for thousands of tools) is kept only until the
/// catalog takes it, and not at all when the run does not write the catalog.
#[derive(Debug, Default)]
pub struct Catalogs {
    pub(crate) made: std::sync::Mutex<std::collections::HashMap<String, Made>>,
}

/// One set's `tools.json`: its hash, and its text until the catalog takes it.
#[derive(Debug)]
pub(crate) struct Made {
    pub(crate) hash: String,
    pub(crate) text: Option<Vec<u8>>,
}
