//! What each client accepts in a tool definition: its profile, with the
//! sources the facts come from (docs/clients.md is generated from these).

use crate::ir::Client;

/// Which keywords of a schema a client takes.
#[derive(Clone, Copy, Debug)]
pub enum Keywords {
    /// Every keyword but these.
    AllBut(&'static [&'static str]),
    /// Only these (anything else is an unknown field to it).
    Only(&'static [&'static str]),
}

impl Keywords {
    /// Whether the client takes `keyword`.
    pub fn takes(self, keyword: &str) -> bool {
        match self {
            Keywords::AllBut(refused) => !refused.contains(&keyword),
            Keywords::Only(taken) => taken.contains(&keyword),
        }
    }
}

/// What a client accepts in a tool definition.
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    pub client: Client,
    /// How messages name it.
    pub title: &'static str,
    /// Whether a character may appear in a tool name (the first one too).
    pub name_char: fn(char, bool) -> bool,
    /// The characters allowed, as its docs write them.
    pub name_chars: &'static str,
    /// What it puts before a tool's name (given the server's name).
    pub prefix: fn(&str) -> String,
    /// The longest name it takes, prefix included.
    pub max_name: usize,
    /// Whether it refuses a longer name (else it cuts it: a change).
    pub refuses_long_names: bool,
    /// The most tools it takes from one server.
    pub max_tools: Option<usize>,
    /// The input schema's root must be a plain object (no union, enum or
    /// `not` beside or instead of its properties).
    pub root_object: bool,
    pub arrays_need_items: bool,
    pub objects_need_properties: bool,
    /// OpenAI's strict mode: every property required, every object closed.
    pub strict: bool,
    pub keywords: Keywords,
    /// The `format`s it takes (`None`: any).
    pub formats: Option<&'static [&'static str]>,
    /// It takes `"type": [..]`.
    pub type_arrays: bool,
    /// It takes `type` beside `anyOf`.
    pub type_beside_any_of: bool,
    /// It takes enums of strings only.
    pub string_enums_only: bool,
    /// It does not resolve `$ref`s (or strips `$defs`): they must be inlined.
    pub inline_refs: bool,
    /// It takes no keyword beside a `$ref`.
    pub bare_refs: bool,
    /// The deepest nesting of objects it takes.
    pub max_depth: Option<usize>,
    /// The most properties it takes in one tool's schema, in all.
    pub max_properties: Option<usize>,
    /// The most values it takes in one enum.
    pub max_enum: Option<usize>,
    /// With `structuredContent` present, only its JSON reaches the model.
    pub structured_only: bool,
    /// Where the facts come from.
    pub sources: &'static [&'static str],
}

impl Profile {
    /// `id` with only the characters the client takes (others become `_`).
    pub fn clean_name(&self, id: &str) -> String {
        let mut out: String = id
            .chars()
            .enumerate()
            .map(|(i, c)| if (self.name_char)(c, i == 0) { c } else { '_' })
            .collect();
        if out.is_empty() {
            out.push('_');
        }
        out
    }
}

fn ascii_word(c: char, _first: bool) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn gemini_char(c: char, first: bool) -> bool {
    if first {
        c.is_ascii_alphabetic() || c == '_'
    } else {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
    }
}

fn mcp_char(c: char, _first: bool) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

fn no_prefix(_: &str) -> String {
    String::new()
}

fn gemini_cli_prefix(_: &str) -> String {
    "mcp_".to_owned()
}

fn claude_code_prefix(server: &str) -> String {
    format!("mcp__{server}__")
}

fn cursor_prefix(server: &str) -> String {
    // Cursor counts the server's name and the tool's together.
    server.to_owned()
}

/// The keywords of OpenAPI 3.0's schema that Gemini's `parameters` takes.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "default",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "anyOf",
    "propertyOrdering",
    "example",
];

const OPENAI_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const OPENAI_SOURCES: &[&str] = &[
    "openai-python function_definition.py (names); ravitemer/mcphub.nvim#243",
    "nspady/google-calendar-mcp#39; goruck/home-generative-agent#545 (root object)",
    "ogx-ai/ogx#3602 (array schema missing items); enechange/collmbo#384 (object schema missing properties)",
    "platform.openai.com: Chat Completions take at most 128 functions",
];

const BASE: Profile = Profile {
    client: Client::Mcp,
    title: "",
    name_char: mcp_char,
    name_chars: "[A-Za-z0-9_.-]",
    prefix: no_prefix,
    max_name: 128,
    refuses_long_names: true,
    max_tools: None,
    root_object: false,
    arrays_need_items: false,
    objects_need_properties: false,
    strict: false,
    keywords: Keywords::AllBut(&[]),
    formats: None,
    type_arrays: true,
    type_beside_any_of: true,
    string_enums_only: false,
    inline_refs: false,
    bare_refs: false,
    max_depth: None,
    max_properties: None,
    max_enum: None,
    structured_only: false,
    sources: &[],
};

/// Every client's profile, in the order of [`Client::ALL`].
pub static PROFILES: [Profile; 8] = [
    Profile {
        client: Client::Openai,
        title: "OpenAI",
        name_char: ascii_word,
        name_chars: "[a-zA-Z0-9_-]",
        max_name: 64,
        max_tools: Some(128),
        root_object: true,
        arrays_need_items: true,
        objects_need_properties: true,
        sources: OPENAI_SOURCES,
        ..BASE
    },
    Profile {
        client: Client::OpenaiStrict,
        title: "OpenAI (strict)",
        name_char: ascii_word,
        name_chars: "[a-zA-Z0-9_-]",
        max_name: 64,
        max_tools: Some(128),
        root_object: true,
        arrays_need_items: true,
        objects_need_properties: true,
        strict: true,
        keywords: Keywords::AllBut(&[
            "allOf",
            "oneOf",
            "not",
            "if",
            "then",
            "else",
            "dependentRequired",
            "dependentSchemas",
        ]),
        formats: Some(OPENAI_STRICT_FORMATS),
        bare_refs: true,
        max_depth: Some(10),
        max_properties: Some(5000),
        max_enum: Some(1000),
        sources: &[
            "developers.openai.com/api/docs/guides/structured-outputs#supported-schemas",
            "posit-dev/chatlas#255 (format uri refused)",
            "openai-python function_definition.py (names)",
        ],
        ..BASE
    },
    Profile {
        client: Client::Gemini,
        title: "Gemini",
        name_char: gemini_char,
        name_chars: "[a-zA-Z_][a-zA-Z0-9_.-]*",
        prefix: gemini_cli_prefix,
        max_name: 63,
        refuses_long_names: false,
        root_object: true,
        arrays_need_items: true,
        keywords: Keywords::Only(GEMINI_KEYWORDS),
        formats: Some(&["enum", "date-time", "int32", "int64", "float", "double"]),
        type_arrays: false,
        type_beside_any_of: false,
        string_enums_only: true,
        inline_refs: true,
        sources: &[
            "cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration",
            "gemini-cli packages/core/src/tools/mcp-tool.ts (mcp_ prefix, 63 characters)",
            "n8n-io/n8n#15553 (type arrays); zendev-sh/zenflow#14 (propertyNames, exclusiveMinimum)",
            "evcc-io/evcc#22400 (type beside anyOf); gemini-cli#13326, #13142 ($defs)",
        ],
        ..BASE
    },
    Profile {
        client: Client::Claude,
        title: "Claude's API",
        name_char: ascii_word,
        name_chars: "[a-zA-Z0-9_-]",
        max_name: 128,
        root_object: true,
        sources: &[
            "platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools",
            "anthropics/claude-code#5835 (names); #5319, #44788 (top-level unions)",
        ],
        ..BASE
    },
    Profile {
        client: Client::ClaudeCode,
        title: "Claude Code",
        name_char: ascii_word,
        name_chars: "[a-zA-Z0-9_-]",
        prefix: claude_code_prefix,
        max_name: 64,
        root_object: true,
        inline_refs: true,
        structured_only: true,
        sources: &[
            "anthropics/claude-code#2326, #19882 (mcp__server__tool, 64 characters)",
            "anthropics/claude-code#9962, #55677 (only structuredContent reaches the model)",
            "malloydata/publisher#543 (Claude Desktop names); PrefectHQ/fastmcp#2814 ($defs stripped)",
        ],
        ..BASE
    },
    Profile {
        client: Client::Cursor,
        title: "Cursor",
        prefix: cursor_prefix,
        max_name: 60,
        max_tools: Some(40),
        sources: &[
            "awslabs/mcp#1283 (server and tool name over 60 characters filtered)",
            "anyproto/anytype-mcp#5 (the first 40 tools only; may no longer apply, cursor.com/blog/dynamic-context-discovery)",
        ],
        ..BASE
    },
    Profile {
        client: Client::Vscode,
        title: "VS Code",
        max_name: 64,
        max_tools: Some(128),
        arrays_need_items: true,
        inline_refs: true,
        sources: &[
            "microsoft/vscode-copilot-release#9375 (128 tools a request)",
            "microsoft/vscode#243602 (64-character names); PrefectHQ/fastmcp#2808 ($defs stripped)",
        ],
        ..BASE
    },
    Profile {
        client: Client::Mcp,
        title: "MCP (2025-11-25)",
        sources: &[
            "modelcontextprotocol.io/specification/2025-11-25/server/tools (SEP-986 tool names)",
        ],
        ..BASE
    },
];

/// `client`'s profile.
pub fn profile(client: Client) -> &'static Profile {
    let i = Client::ALL.iter().position(|c| *c == client).unwrap_or(0);
    &PROFILES[i]
}
