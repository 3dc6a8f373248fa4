//! Runtime support for code that toolgen generates.
//!
//! This crate grows into the JSON-RPC envelope, argument validation and the
//! MCP server (issue #5). It starts with the error model of the EditorMCP
//! envelope (`editormcp-envelope.md`), which every generated handler returns,
//! and the ToolVault argument conversion ([`toolvault`]).

pub mod error;
pub mod server;
pub mod toolvault;

pub use error::{ErrorCode, ErrorType, ToolError};
pub use server::{
    Execution, Handler, Server, ServerInfo, Session, ToolDescriptor, ToolInfo, ToolOutput,
};
