//! Emitters: the IR in, generated files out.
//!
//! Emitters read only [`crate::ir`]; they know nothing of input formats. Each
//! adds files to a [`GeneratedFiles`] set; nothing touches the disk until every
//! emitter has succeeded (see [`crate::output`]).

pub mod catalog;
pub mod context;
pub mod csharp;
pub mod csharp_bridge;
pub mod docs;
pub mod markup;
pub mod r;
pub mod rave;
pub mod runtime_crate;
pub mod rust;
pub mod shape;
pub mod yaml;

pub(crate) use self::context::one_line;
pub use self::context::{EmitContext, EmitOptions, Emitter, Output, RustLayout};
pub use crate::files::GeneratedFiles;
use crate::ir::{OutputKind, Project};

/// Every emitter with its output kind, in the order they run.
pub fn all() -> Vec<(OutputKind, Box<dyn Emitter + Send + Sync>)> {
    vec![
        (
            OutputKind::Catalog,
            Box::new(catalog::Catalog) as Box<dyn Emitter + Send + Sync>,
        ),
        (OutputKind::Rust, Box::new(rust::RustCrate)),
        (OutputKind::CSharp, Box::new(csharp::CSharp)),
        (OutputKind::Docs, Box::new(docs::Docs)),
        (OutputKind::R, Box::new(r::RWorker)),
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
