//! toolgen: a schema-first code generator for MCP tools.
//!
//! Spec files (EditorMCP JSON, RAVE YAML, MCP tool JSON) are read by format
//! readers into one IR ([`ir`]), checked by the rules ([`diag`]), and
//! compiled by emitters into files. The pipeline, in order:
//!
//! ```text
//! spec files -> syntax (spanned JSON/YAML) -> formats::* readers -> ir::Project
//!            -> validate -> emit::* -> output::write (atomic, stale files removed)
//! ```
//!
//! The library is the product; the `toolgen` binary and `cargo xtask gen` are
//! thin layers over [`Generator`], which `build.rs` scripts use too
//! ([`Generator::compile`]). The binary is behind the default `cli` feature:
//! a build script depends on toolgen with `default-features = false` and
//! compiles no argument parser.
//!
//! The API: [`Generator`] (with [`Generated`], its errors and settings),
//! [`ir`] (the tool sets read), [`diag`] and [`source`] (diagnostics and the
//! files they point into), [`load`] (reading and validating without
//! generating), [`syntax`] (the spanned JSON and YAML readers), and
//! [`catalog_entry`] and [`format_schemas`]. Every other module is private.

pub(crate) mod against;
pub(crate) mod breaking;
pub(crate) mod cache;
#[cfg(feature = "cli")]
pub mod cli;
pub(crate) mod clients;
pub mod diag;
pub(crate) mod digest;
pub(crate) mod emit;
pub(crate) mod files;
pub(crate) mod formats;
pub(crate) mod ident;
pub mod ir;
pub mod load;
// `toolgen lsp`: the language server, the command line's alone.
#[cfg(feature = "cli")]
pub(crate) mod lsp;
pub(crate) mod manifest;
pub(crate) mod output;
pub(crate) mod par;
pub(crate) mod progress;
pub(crate) mod refs;
// `toolgen init` and `toolgen new`: the command line's alone.
#[cfg(feature = "cli")]
pub(crate) mod scaffold;
pub(crate) mod schema;
pub mod source;
pub(crate) mod spec_schemas;
pub mod syntax;
pub(crate) mod templates;
pub(crate) mod text;
pub(crate) mod validate;

mod generator;

pub use against::Against;
pub use cache::default_dir as default_cache_dir;
pub use diag::LintLevel;
pub use emit::RustLayout;
pub use emit::csharp_bridge::CsharpBridge;
pub use files::GeneratedFiles;
pub use generator::{BuildError, GenerateError, Generated, Generator, Summary, Timings};
pub use ir::{Format, OutputKind, RuntimeSource};
pub use output::{Prune, write_atomic};
pub use progress::Progress;

/// A tool's `tools/list` entry as one line of JSON, exactly as the catalog's
/// `tools.json` lists it: for a server that reads its tools from the specs
/// when it starts (`rave-server`) instead of from generated code.
pub fn catalog_entry(set: &ir::ToolSet, tool: &ir::Tool) -> String {
    emit::catalog::entry_json(set, tool)
}

/// The JSON Schemas of the spec formats and of `toolset.yaml`, each as its
/// file name and the text of its file (what `toolgen schemas` writes, and
/// what editors complete field names from).
pub fn format_schemas() -> Vec<(&'static str, String)> {
    spec_schemas::all()
        .into_iter()
        .map(|(name, text)| (name, text.to_owned()))
        .collect()
}

/// What toolgen's own tests and `cargo xtask` check beyond the API: emitter
/// and reader internals, re-exported in one place so that every other module
/// stays private to the crate. Not part of the API: it changes without notice.
#[doc(hidden)]
pub mod testing {
    pub use crate::emit::catalog::wraps_output;
    pub use crate::emit::csharp::public_names as csharp_public_names;
    pub use crate::emit::csharp_bridge::FILES as CSHARP_BRIDGE_FILES;
    pub use crate::emit::docs::markdown::md_cell;
    pub use crate::emit::rave::to_rave_yaml;
    pub use crate::emit::runtime_crate::{
        DEPENDENCIES as RUNTIME_DEPENDENCIES, FEATURES as RUNTIME_FEATURES, FILES as RUNTIME_FILES,
    };
    pub use crate::emit::rust::validate::{compile as compile_validator, compile_text};
    pub use crate::formats::{detect, rave::clean_rd};
    pub use crate::refs::SchemaStore;

    /// The editor schemas of the formats.
    pub mod spec_schemas {
        pub use crate::spec_schemas::{EDITORMCP, MANIFEST, MCP, RAVE, all, for_format};
    }

    /// The client profiles and their variants of catalog entries.
    pub mod clients {
        pub use crate::clients::variant::{client_name, entry as variant_entry, markdown};
        pub use crate::clients::{PROFILES, Profile, findings, profile};
    }

    /// Identifiers made from wire names.
    pub mod ident {
        pub use crate::ident::{rust_snake, unique};
    }
}
