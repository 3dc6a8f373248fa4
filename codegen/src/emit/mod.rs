//! Emitters: the IR in, generated files out.
//!
//! Emitters read only [`crate::ir`]; they know nothing of input formats. Each
//! adds files to a [`GeneratedFiles`] set; nothing touches the disk until every
//! emitter has succeeded (see [`crate::output`]).

pub mod catalog;
pub mod csharp;
pub mod docs;
pub mod rave;
pub mod rust;
pub mod shared_defs;
pub mod yaml;

use std::collections::BTreeMap;

use crate::ir::Project;
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

/// Settings of the emitters.
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// Overrides the `toolgen-runtime` dependency line of the generated Rust crate.
    pub rust_runtime_dependency: Option<String>,
    /// A directory whose files override the built-in templates of the same name.
    pub templates: Option<std::path::PathBuf>,
}

/// Every emitter, in the order they run.
pub fn all(options: &EmitOptions) -> Vec<Box<dyn Emitter>> {
    let mut rust = rust::RustCrate::default();
    if let Some(dep) = &options.rust_runtime_dependency {
        rust.runtime_dependency = dep.clone();
    }
    let templates = std::rc::Rc::new(TemplateSource::new(options.templates.clone()));
    let csharp = csharp::CSharp {
        templates: templates.clone(),
    };
    let docs = docs::Docs { templates };
    vec![
        Box::new(catalog::Catalog),
        Box::new(rust),
        Box::new(csharp),
        Box::new(docs),
    ]
}
