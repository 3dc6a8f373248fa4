//! Emitters: the IR in, generated files out.
//!
//! Emitters read only [`crate::ir`]; they know nothing of input formats. Each
//! adds files to a [`GeneratedFiles`] set; nothing touches the disk until every
//! emitter has succeeded (see [`crate::output`]).

pub mod catalog;
pub mod csharp;
pub mod docs;
pub mod rave;
pub mod runtime_crate;
pub mod rust;
pub mod shared_defs;
pub mod yaml;

use std::collections::BTreeMap;

use crate::ir::{OutputKind, Project, RuntimeSource};
use crate::templates::TemplateSource;

/// Generated files: relative path (with `/`) -> contents. Ordered, so output is deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratedFiles {
    files: BTreeMap<String, Vec<u8>>,
}

impl GeneratedFiles {
    pub fn new() -> GeneratedFiles {
        GeneratedFiles::default()
    }

    /// Adds a file. Paths are relative, `/`-separated, without `.` or `..` components.
    pub fn add(&mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), contents.into());
    }

    /// Adds a JSON file, pretty-printed with sorted keys and a final newline.
    pub fn add_json(&mut self, path: impl Into<String>, value: &serde_json::Value) {
        let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
        text.push('\n');
        self.add(path, text);
    }

    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn total_bytes(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }
}

/// One output kind (the JSON catalog, Rust types, C# stubs, docs, ...).
pub trait Emitter {
    /// A short name, used in messages and benchmarks.
    fn name(&self) -> &'static str;
    /// Adds this emitter's files for `project` to `out`; problems (a schema
    /// that cannot be mapped to a type, say) go to `diags`.
    fn emit(
        &self,
        project: &Project,
        out: &mut GeneratedFiles,
        diags: &mut Vec<crate::diag::Diagnostic>,
    );
}

/// The strings of a JSON array member (a schema's `required`, say); empty when
/// it is absent or not an array.
pub(crate) fn strings(v: Option<&serde_json::Value>) -> Vec<&str> {
    v.and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default()
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

/// Every emitter with its output kind, in the order they run.
pub fn all(options: &EmitOptions) -> Vec<(OutputKind, Box<dyn Emitter>)> {
    let rust = rust::RustCrate {
        layout: options.rust_layout,
        runtime: options.runtime.clone(),
        regenerate: one_line(&options.regenerate),
        progress: options.progress.clone(),
    };
    let templates = std::rc::Rc::new(TemplateSource::new(
        options.templates.clone(),
        one_line(&options.regenerate),
    ));
    let csharp = csharp::CSharp {
        templates: templates.clone(),
    };
    let docs = docs::Docs { templates };
    vec![
        (
            OutputKind::Catalog,
            Box::new(catalog::Catalog) as Box<dyn Emitter>,
        ),
        (OutputKind::Rust, Box::new(rust)),
        (OutputKind::CSharp, Box::new(csharp)),
        (OutputKind::Docs, Box::new(docs)),
    ]
}

/// The part of `project` that output `kind` is generated from: the tool sets
/// whose manifests want it. `None` when that is no tool set.
pub fn project_for(project: &Project, kind: OutputKind) -> Option<std::borrow::Cow<'_, Project>> {
    if project.tool_sets.iter().all(|s| s.wants(kind)) {
        return (!project.tool_sets.is_empty()).then_some(std::borrow::Cow::Borrowed(project));
    }
    let tool_sets: Vec<_> = project
        .tool_sets
        .iter()
        .filter(|s| s.wants(kind))
        .cloned()
        .collect();
    (!tool_sets.is_empty()).then_some(std::borrow::Cow::Owned(Project { tool_sets }))
}
