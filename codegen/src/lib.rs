//! toolgen: a schema-first code generator for MCP tools.
//!
//! Spec files (EditorMCP JSON, RAVE YAML, MCP tool JSON) are read by format
//! readers into one IR ([`ir`]), checked by [`validate`], and compiled by
//! emitters ([`emit`]) into files. The pipeline, in order:
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

pub mod against;
pub mod breaking;
pub mod bytes;
pub mod cache;
pub mod diag;
pub mod digest;
pub mod emit;
pub mod files;
pub mod formats;
pub mod ident;
pub mod ir;
pub mod keys;
pub mod load;
pub mod manifest;
pub mod memo;
pub mod output;
pub mod par;
pub mod progress;
pub mod refs;
pub mod scaffold;
pub mod schema;
pub mod source;
pub mod spec_schemas;
pub mod syntax;
pub mod templates;
pub mod text;
pub mod validate;

mod generator;

pub use diag::LintLevel;
pub use emit::RustLayout;
pub use generator::{BuildError, GenerateError, Generated, Generator, Summary, Timings};
pub use ir::{OutputKind, RuntimeSource};
pub use progress::Progress;
