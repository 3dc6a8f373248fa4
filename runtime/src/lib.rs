//! Runtime support for code that toolgen generates.
//!
//! - [`error`]: the error model of the EditorMCP envelope
//!   (`editormcp-envelope.md`), which every generated tool method returns;
//! - [`server`]: the tool [`Server`] (EditorMCP envelope and standard MCP over
//!   newline-delimited JSON-RPC), argument validation, tiers, time limits, and
//!   [`Call`], the context a generated tool method gets;
//! - [`bridge`]: handlers that forward calls to the generated C# bridge in the Unity Editor;
//! - [`toolvault`]: the ToolVault argument array <-> object conversion.

pub mod bridge;
pub mod error;
pub mod server;
pub mod toolvault;

pub use error::{ConversionError, ErrorCode, ErrorType, ToolError};
pub use server::{
    Call, Execution, Handler, KeyOrder, Server, ServerInfo, Session, ToolDescriptor, ToolInfo,
    ToolOutput, TypedCall, register_tools, typed_call,
};
