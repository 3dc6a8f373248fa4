//! Runtime support for code that toolgen generates.
//!
//! - [`error`]: the error model of the EditorMCP envelope
//!   (`editormcp-envelope.md`), which every generated tool method returns;
//! - [`server`]: the tool [`Server`] (EditorMCP envelope and standard MCP over
//!   stdio, and Streamable HTTP with the `http` feature), concurrent calls on
//!   a bounded pool, argument validation, tiers, time limits, and [`Call`],
//!   the context a tool method gets (diagnostics, cancellation, progress);
//! - [`bridge`]: handlers that forward calls to the generated C# bridge in the Unity Editor;
//! - [`rbridge`]: handlers that forward calls to R workers (RAVE tools implemented in R);
//! - [`toolvault`]: the ToolVault argument array <-> object conversion;
//! - [`json`]: JSON that borrows from its text, what generated validators read;
//! - [`Nullable`]: optional properties that may be `null` (absent, `null`, a value).

//!
//! Code that a `build.rs` generates with `toolgen::Generator::compile` is
//! included with [`include_tools!`].

pub mod bridge;
pub mod check;
pub mod error;
pub mod json;
pub mod nullable;
pub mod rbridge;
pub mod server;
pub mod toolvault;

pub use error::{ConversionError, ErrorCode, ErrorType, ToolError};
pub use nullable::Nullable;
pub use server::{
    Arguments, Call, Content, Execution, FromServer, Handler, LogLevel, Server, ServerInfo,
    Session, ToolDescriptor, ToolInfo, ToolOutput, TypedCall, TypedEntry, TypedHandler,
    register_tools, typed_call,
};

/// This crate's version: generated code and the generator that wrote it must
/// agree with it (toolgen checks before it generates).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Includes the Rust that `toolgen::Generator::compile` wrote into `OUT_DIR`
/// from a `build.rs`: one module per tool set (`tools.rs`; pass another file
/// name if the build script chose one).
///
/// ```ignore
/// toolgen_runtime::include_tools!();
/// // now `weather::WeatherTools`, `weather::register`, ...
/// ```
#[macro_export]
macro_rules! include_tools {
    () => {
        include!(concat!(env!("OUT_DIR"), "/tools.rs"));
    };
    ($file:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $file));
    };
}
