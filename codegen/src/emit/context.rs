//! What every emitter shares: the run's settings ([`EmitOptions`]), the
//! context an emitter gets ([`EmitContext`]), where its work goes
//! ([`Output`]), the [`Emitter`] traits, and the memory of what earlier runs made.

use super::csharp_bridge;
use crate::cache::keys::PieceCache;
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
    /// What earlier runs made, with the digests of the project's parts that
    /// key it (`None`: make everything); reached through [`EmitContext::memo`].
    pub(crate) memory: Option<(&'a dyn PieceCache, &'a crate::cache::keys::Keys)>,
    /// Each tool set's `tools.json`, made once for every emitter.
    pub catalogs: &'a Catalogs,
}

impl EmitContext<'_> {
    /// The catalog hash of `set`, made once for every emitter (see
    /// [`Catalogs::hash`]).
    pub fn catalog_hash(&self, set: &ToolSet) -> String {
        self.catalogs.hash(self, set)
    }

    /// What `make` gives, made once for what it is made from and kept
    /// between runs. `key` feeds the hasher everything `make` reads beyond
    /// `tool` (which piece it is, a template's digest, a module's name);
    /// with `tool`, the key covers that tool of its set and the set's
    /// settings. An error is not kept. Without memory (`--no-cache`, a
    /// project whose parts have no keys) this is `make()`: an emitter's
    /// output never depends on what was kept.
    pub fn memo<E>(
        &self,
        tool: Option<(&ToolSet, usize)>,
        key: impl FnOnce(&mut crate::digest::Hasher),
        make: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        let kept = self.memory.and_then(|(cache, keys)| {
            let key = match tool {
                Some((set, index)) => keys.piece(set, index, key)?,
                None => {
                    let mut h = crate::digest::Hasher::new();
                    key(&mut h);
                    h.finish()
                }
            };
            Some((cache, key))
        });
        crate::cache::memo(kept, make)
    }

    /// [`EmitContext::memo`] of a text that is always made.
    pub fn memo_text(
        &self,
        tool: Option<(&ToolSet, usize)>,
        key: impl FnOnce(&mut crate::digest::Hasher),
        make: impl FnOnce() -> String,
    ) -> String {
        let made = self.memo(tool, key, || Ok::<_, std::convert::Infallible>(make()));
        made.unwrap_or_else(|never| match never {})
    }

    /// [`EmitContext::memo_text`] of the text `what` that `make` makes from
    /// the `index`th tool of `set` and the set's settings alone.
    pub fn tool_text(
        &self,
        (set, index): (&ToolSet, usize),
        what: &str,
        make: impl FnOnce() -> String,
    ) -> String {
        let key = |h: &mut crate::digest::Hasher| {
            h.str(what);
        };
        self.memo_text(Some((set, index)), key, make)
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

    /// [`Output::render`] of a file kept between runs ([`EmitContext::memo`]):
    /// `tool` and `key` say what `context` is made from; the templates'
    /// digest, the template's name and the path are mixed in here.
    /// `context` is made only when the file is not kept.
    #[allow(clippy::too_many_arguments)]
    pub fn render_memo<C: serde::Serialize>(
        &mut self,
        cx: &EmitContext<'_>,
        (tool, key): (
            Option<(&ToolSet, usize)>,
            impl FnOnce(&mut crate::digest::Hasher),
        ),
        templates: &crate::templates::Templates,
        name: &str,
        path: String,
        context: impl FnOnce() -> C,
    ) {
        let key = |h: &mut crate::digest::Hasher| {
            h.str("rendered")
                .digest(templates.digest())
                .str(name)
                .str(&path);
            key(h);
        };
        match cx.memo(tool, key, || templates.render(name, context())) {
            Ok(text) => self.files.add(path, text),
            Err(e) => self.diags.push(e.diagnostic()),
        }
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
