//! The clients a tool set is checked against (see `crate::clients`).

crate::text::word_enum! {
    /// An MCP client or model API whose limits on tool definitions toolgen
    /// knows (a manifest's `clients`, `--clients`; see `clients`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Client {
        /// OpenAI's function calling (Responses, Chat Completions, Agents).
        Openai = "openai",
        /// OpenAI's function calling with `strict: true` (structured outputs).
        OpenaiStrict = "openai-strict",
        /// Gemini's `FunctionDeclaration.parameters` (an OpenAPI 3.0 subset), gemini-cli.
        Gemini = "gemini",
        /// Anthropic's Messages API (`tools`).
        Claude = "claude",
        /// Claude Code and Claude Desktop, MCP clients of Claude.
        ClaudeCode = "claude-code",
        /// Cursor.
        Cursor = "cursor",
        /// VS Code's Copilot chat.
        Vscode = "vscode",
        /// The MCP specification's own guidance (2025-11-25).
        Mcp = "mcp",
    }
}
