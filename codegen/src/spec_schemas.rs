//! JSON Schemas of the files a tool author writes (a spec in each format, and
//! the `toolset.yaml` manifest), for editors: a spec or manifest that names
//! its schema (`"$schema"` in JSON, `# yaml-language-server: $schema=` in
//! YAML) gets completion, hover docs and squiggles while it is typed.
//!
//! The schemas are generated with schemars from the Rust types below, which
//! describe each format field by field (the doc comments become the schemas'
//! descriptions). The readers in [`crate::formats`] stay hand-written: they
//! read spanned trees for located diagnostics and real-world looseness that a
//! schema cannot express. Tests keep the two in step: every key a reader
//! accepts is a property here and the other way round, the schemas accept
//! every spec in `tool-specs/`, and they reject the rule fixtures whose
//! mistake a schema can see. `cargo xtask gen` writes them to `docs/schemas/`
//! (and `--check` fails when they are stale); `toolgen init` and
//! `toolgen schemas` write them next to a user's tool set.
//!
//! They are draft-07 (what editors support best) and a little looser than
//! toolgen: categories, tiers, defaults against types and the rest of the
//! rules need the manifest or the whole spec, and are toolgen's to report.

use std::collections::BTreeMap;

use schemars08 as schemars;
use schemars08::JsonSchema;
use serde_json::{Map, Value, json};

/// Where the schemas say they live (`$id`); nothing fetches these addresses.
pub const BASE_ID: &str = "https://toolgen.dev/schemas/";

/// The file name of each schema, and the schema.
pub fn all() -> Vec<(&'static str, Value)> {
    vec![
        (EDITORMCP, editormcp_tool()),
        (MCP, mcp_tool()),
        (MANIFEST, manifest()),
        (RAVE, rave_tool()),
    ]
}

/// The schema files' names.
pub const EDITORMCP: &str = "editormcp-tool.schema.json";
pub const MCP: &str = "mcp-tool.schema.json";
pub const RAVE: &str = "rave-tool.schema.json";
pub const MANIFEST: &str = "toolset.schema.json";

/// The schema of a spec in `format` (its file name and text).
pub fn for_format(format: crate::ir::Format) -> &'static str {
    match format {
        crate::ir::Format::EditorMcp => EDITORMCP,
        crate::ir::Format::Mcp => MCP,
        crate::ir::Format::Rave => RAVE,
    }
}

/// A schema as the text of its file: pretty-printed, with a final newline.
pub fn to_text(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

fn generate<T: JsonSchema>(file: &str, title: &str) -> Value {
    let mut settings = schemars::r#gen::SchemaSettings::draft07();
    // An optional field may be left out; it may not be `null` unless its type says so.
    settings.option_add_null_type = false;
    settings.option_nullable = false;
    let root = settings.into_generator().into_root_schema_for::<T>();
    let mut v = serde_json::to_value(root).unwrap_or(Value::Null);
    drop_number_formats(&mut v);
    if let Value::Object(m) = &mut v {
        m.insert("$id".into(), json!(format!("{BASE_ID}{file}")));
        m.insert("title".into(), json!(title));
    }
    v
}

/// Removes the `format`s schemars gives numbers (`double`, `uint64`): they are
/// Rust's types, not JSON Schema's, and mean nothing to an editor.
fn drop_number_formats(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let numeric = matches!(
                m.get("type").and_then(Value::as_str),
                Some("number" | "integer")
            );
            if numeric {
                m.remove("format");
            }
            m.values_mut().for_each(drop_number_formats);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_number_formats),
        _ => {}
    }
}

/// Lets `x-*` keys (custom annotations) into an object schema that refuses
/// other unknown keys.
fn allow_extensions(schema: &mut Value) {
    if let Value::Object(m) = schema {
        m.insert("patternProperties".into(), json!({"^x-": {}}));
    }
}

fn definition<'a>(schema: &'a mut Value, name: &str) -> &'a mut Value {
    &mut schema["definitions"][name]
}

// --- EditorMCP ------------------------------------------------------------------------------

/// A JSON type an EditorMCP property may have; `any` is a value of any type.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum EditorMcpType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    Any,
}

/// A safety level: what a tool may do to the project it works on.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "kebab-case")]
#[allow(dead_code)]
enum SafetyLevelName {
    /// Only reads; nothing can be modified.
    ReadOnly,
    /// Modifies with guardrails (a single object, undoable).
    SafeWrite,
    /// Can make irreversible changes; clients ask for confirmation.
    Destructive,
}

/// The keywords every EditorMCP property schema may hold; `P` is the shape of
/// `properties` members, `S` of `items`, `additionalProperties` and definitions.
macro_rules! editormcp_property {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(JsonSchema)]
        #[schemars(crate = "schemars08", deny_unknown_fields)]
        #[allow(dead_code, non_snake_case)]
        struct $name {
            $($(#[$fdoc])* $field: $ty,)*
            /// The JSON type; required unless `$ref` names a definition.
            r#type: Option<EditorMcpType>,
            /// A definition of the tool's `definitions`: `#/definitions/NAME`.
            #[schemars(rename = "$ref", regex(pattern = r"^#/definitions/[A-Za-z_][A-Za-z0-9_]*$"))]
            reference: Option<String>,
            title: Option<String>,
            /// Used when a caller leaves the parameter out; must fit the type.
            default: Option<Value>,
            /// The allowed values, of the declared type.
            #[schemars(rename = "enum", length(min = 1))]
            allowed: Option<Vec<Value>>,
            minimum: Option<f64>,
            maximum: Option<f64>,
            exclusiveMinimum: Option<f64>,
            exclusiveMaximum: Option<f64>,
            minLength: Option<u64>,
            maxLength: Option<u64>,
            /// A regular expression the string must match.
            pattern: Option<String>,
            /// A string format (`uri`, `date-time`, ...); strings stay strings in code.
            format: Option<String>,
            minItems: Option<u64>,
            maxItems: Option<u64>,
            uniqueItems: Option<bool>,
            /// The item type of an array; required for arrays.
            items: Option<Box<EditorMcpSchema>>,
            /// The members of an object, by name.
            properties: Option<BTreeMap<String, EditorMcpProperty>>,
            /// `false` refuses other members; a schema types a string-keyed map.
            additionalProperties: Option<BoolOrSchema>,
            /// Whether `null` is allowed besides the type.
            nullable: Option<bool>,
            deprecated: Option<bool>,
        }
    };
}

editormcp_property!(
    /// A tool parameter (a member of `inputs`).
    EditorMcpParameter {
        /// Whether callers must give it.
        required: bool,
        /// What the parameter means, for people and for the model.
        description: String,
    }
);

editormcp_property!(
    /// An output field (a member of `outputs`).
    EditorMcpOutputField {
        /// Whether the field is always present (default true).
        required: Option<bool>,
        /// What the field holds.
        description: String,
    }
);

editormcp_property!(
    /// A member of a nested object's `properties`.
    EditorMcpProperty {
        /// Whether the member is always present (default true for nested properties).
        required: Option<bool>,
        description: Option<String>,
    }
);

editormcp_property!(
    /// A schema that is not itself a property: an array's `items`, a map's
    /// `additionalProperties`, a definition.
    EditorMcpSchema {
        description: Option<String>,
    }
);

/// What `toolgen breaking` accepts in a tool set.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields)]
#[allow(dead_code)]
struct BreakingPolicySpec {
    /// Categories not checked: `tools`, `inputs`, `outputs`, `behaviour`,
    /// `generated`, `metadata`.
    off: Option<Vec<BreakingCategory>>,
    /// Categories off by default that are checked: `generated` (Rust and C# names).
    on: Option<Vec<BreakingCategory>>,
    /// Changes accepted for one tool.
    ignore: Option<Vec<BreakingIgnoreSpec>>,
}

#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum BreakingCategory {
    Tools,
    Inputs,
    Outputs,
    Behaviour,
    Generated,
    Metadata,
}

#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields)]
#[allow(dead_code)]
struct BreakingIgnoreSpec {
    /// The tool's id.
    tool: String,
    /// The rules accepted, by code or name (default: every rule).
    rules: Option<Vec<String>>,
    /// Only this part of the tool and below: `input.depth`, `output.items`.
    #[schemars(regex(pattern = r"^(input|output)(\.[^.]+)*$"))]
    path: Option<String>,
    /// Why, for the people reading the manifest.
    reason: Option<String>,
}

/// A tool marked deprecated: `true`, or when it may go and what replaces it.
/// `toolgen breaking` lets a deprecated tool be removed.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum Deprecated {
    Flag(bool),
    Details(DeprecationDetails),
}

#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields)]
#[allow(dead_code)]
struct DeprecationDetails {
    /// The day after which the tool may be removed (`YYYY-MM-DD`).
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    sunset: Option<String>,
    /// What to use instead, or why.
    message: Option<String>,
}

/// `true`, `false`, or a schema.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum BoolOrSchema {
    Bool(bool),
    Schema(Box<EditorMcpSchema>),
}

/// A worked example of a call.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields)]
#[allow(dead_code)]
struct EditorMcpExample {
    description: Option<String>,
    /// The arguments, as a client sends them.
    input: Map<String, Value>,
    /// What the tool answers.
    output: Option<Map<String, Value>>,
}

/// One tool of an EditorMCP tool set (docs/formats/editormcp.md). toolgen's
/// validation is stricter than this schema (see docs/rules.md).
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct EditorMcpTool {
    /// This file's JSON Schema, for editors.
    #[schemars(rename = "$schema")]
    schema: Option<String>,
    /// Canonical, stable tool id: dot-separated segments starting with a
    /// lowercase letter, e.g. `scene.hierarchy.dump`.
    #[schemars(regex(pattern = r"^[a-z][A-Za-z0-9-]*(\.[a-z][A-Za-z0-9-]*)*$"))]
    id: String,
    /// Display name in title case, under 50 characters.
    #[schemars(length(min = 1))]
    name: String,
    /// One to three sentences on what the tool does.
    #[schemars(length(min = 1))]
    description: String,
    /// A category declared by the tool set's toolset.yaml.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$"))]
    category: String,
    safety_level: SafetyLevelName,
    /// A tier id declared by the tool set, e.g. `core`, `tier1`.
    #[schemars(length(min = 1))]
    tier: String,
    /// Time limit of one call, in seconds (more than 0, at most 3600); the
    /// tool set's default applies when absent.
    timeout_seconds: Option<f64>,
    /// Parameters by name (`{}` for none).
    inputs: BTreeMap<String, EditorMcpParameter>,
    /// Output fields by name.
    outputs: BTreeMap<String, EditorMcpOutputField>,
    /// Named schemas, referred to as `{"$ref": "#/definitions/NAME"}`.
    definitions: Option<BTreeMap<String, EditorMcpSchema>>,
    /// Limitations, time guards, caveats.
    notes: Option<String>,
    /// One to three representative calls.
    examples: Option<Vec<EditorMcpExample>>,
    deprecated: Option<Deprecated>,
}

fn editormcp_tool() -> Value {
    let mut s = generate::<EditorMcpTool>(EDITORMCP, "EditorMCP tool definition");
    allow_extensions(&mut s);
    s["properties"]["timeoutSeconds"] = json!({"type": "number", "exclusiveMinimum": 0, "maximum": 3600, "description": s["properties"]["timeoutSeconds"]["description"]});
    // Names become identifiers in generated code (TG0301).
    let identifier = json!({"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"});
    for key in ["inputs", "outputs", "definitions"] {
        s["properties"][key]["propertyNames"] = identifier.clone();
    }
    for name in [
        "EditorMcpParameter",
        "EditorMcpOutputField",
        "EditorMcpProperty",
        "EditorMcpSchema",
    ] {
        let d = definition(&mut s, name);
        allow_extensions(d);
        d["properties"]["properties"]["propertyNames"] = identifier.clone();
        d["allOf"] = json!([
            // A type, or a reference to a definition that has one.
            {"anyOf": [{"required": ["type"]}, {"required": ["$ref"]}]},
            // Arrays declare their items (TG0308).
            {"if": {"properties": {"type": {"const": "array"}}, "required": ["type"]},
             "then": {"required": ["items"]}},
        ]);
    }
    // A required parameter has no default (TG0303).
    if let Some(all) = definition(&mut s, "EditorMcpParameter")["allOf"].as_array_mut() {
        all.push(json!({
            "if": {"properties": {"required": {"const": true}}},
            "then": {"not": {"required": ["default"]}},
        }));
    }
    s
}

// --- MCP tool JSON ----------------------------------------------------------------------------

/// A JSON Schema object (the `inputSchema` of a tool is always one).
#[derive(JsonSchema)]
#[schemars(crate = "schemars08")]
#[allow(dead_code)]
struct ObjectSchema {
    /// Always `object`: arguments are an object.
    #[schemars(regex(pattern = "^object$"))]
    r#type: String,
    /// The arguments, by name: each a JSON Schema.
    properties: Option<Map<String, Value>>,
    /// The arguments a caller must give.
    required: Option<Vec<String>>,
}

/// MCP's behaviour hints; toolgen's safety level comes from them.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct McpAnnotations {
    /// A display name (the tool's own `title` comes first).
    title: Option<String>,
    /// `true`: the tool only reads (safety level `read-only`).
    read_only_hint: Option<bool>,
    /// `false`: it writes with guardrails (`safe-write`); `true` or absent: it may
    /// destroy (`destructive`, MCP's default).
    destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments does no more than once.
    idempotent_hint: Option<bool>,
    /// It reaches outside a closed world (the web, say).
    open_world_hint: Option<bool>,
}

/// An icon of the tool.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "camelCase")]
#[allow(dead_code)]
struct McpIcon {
    /// A URL or a `data:` URI.
    src: String,
    mime_type: Option<String>,
    sizes: Option<Vec<String>>,
}

/// toolgen's own metadata of an MCP tool (`_meta.toolgen`), as toolgen's
/// catalog writes it, so that a catalog reads back.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "camelCase")]
#[allow(dead_code)]
struct McpToolgenMeta {
    /// The category (default `uncategorized`).
    category: Option<String>,
    /// The tier (default `core`).
    tier: Option<String>,
    /// Time limit of one call, in seconds.
    timeout_seconds: Option<f64>,
    notes: Option<String>,
    /// Whether a client must ask the user before calling it.
    requires_approval: Option<bool>,
    deprecated: Option<Deprecated>,
    /// Worked examples, `{description, input, output}`: validated against the
    /// schemas and shown in the docs.
    examples: Option<Vec<EditorMcpExample>>,
}

/// `_meta`: metadata by key; toolgen reads `toolgen`.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08")]
#[allow(dead_code)]
struct McpMeta {
    toolgen: Option<McpToolgenMeta>,
}

/// One MCP tool (the MCP specification's `Tool`, as ToolVault uses it too;
/// docs/formats/mcp.md).
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct McpTool {
    /// This file's JSON Schema, for editors.
    #[schemars(rename = "$schema")]
    schema: Option<String>,
    /// The tool's name, what clients call it by, e.g. `get_weather`.
    #[schemars(length(min = 1))]
    name: String,
    /// A display name, e.g. `Get Weather`.
    title: Option<String>,
    /// What the tool does, for people and for the model (MCP allows none;
    /// toolgen warns, TG0213).
    description: Option<String>,
    /// The JSON Schema of the arguments.
    input_schema: ObjectSchema,
    /// The JSON Schema of the structured result.
    output_schema: Option<Map<String, Value>>,
    annotations: Option<McpAnnotations>,
    #[schemars(rename = "_meta")]
    meta: Option<McpMeta>,
    icons: Option<Vec<McpIcon>>,
    /// How the tool may be run (MCP 2025-11-25, e.g. `{"taskSupport":
    /// "optional"}`); published as written.
    execution: Option<Map<String, Value>>,
}

fn mcp_tool() -> Value {
    let mut s = generate::<McpTool>(MCP, "MCP tool");
    s["properties"]["inputSchema"] = json!({
        "description": "The JSON Schema of the arguments: an object.",
        "allOf": [{"$ref": "#/definitions/ObjectSchema"}],
    });
    allow_extensions(definition(&mut s, "McpAnnotations"));
    s
}

// --- RAVE tool YAML --------------------------------------------------------------------------

/// A YAML boolean as R's yaml package writes it: `true`/`false`, or a YAML 1.1
/// word (`yes`, `no`, `on`, `off`, in any case).
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum YamlBool {
    Bool(bool),
    #[schemars(regex(pattern = "^(?i:yes|no|on|off|y|n)$"))]
    Word(String),
}

/// A JSON Schema (draft 7 keywords) of parameters or of the return value.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08")]
#[allow(dead_code)]
struct RaveSchema {
    /// `object`.
    r#type: Option<String>,
    /// By name; every parameter has a `type` and a `description`.
    properties: Option<Map<String, Value>>,
    required: Option<Vec<String>>,
}

/// One RAVE tool, as `ravepipeline::mcptool_build()` writes it from an R
/// function's roxygen2 docs (docs/formats/rave.md). The file is `{name}.yaml`.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields)]
#[allow(dead_code)]
struct RaveTool {
    /// `{package}-mcp_tool_{group}_{action}`; the file is named after it.
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9.]*-[A-Za-z0-9_.]+$"))]
    name: String,
    /// What the tool does (`~` is read as empty, with a warning).
    description: Option<NullableText>,
    /// The parameters: a JSON Schema object.
    parameters: RaveSchema,
    /// The tool's category (any; `uncategorized` when absent).
    category: Option<String>,
    /// `yes`: the tool makes irreversible changes.
    dangerous: Option<YamlBool>,
    /// `yes`: a client must ask the user before calling it.
    requires_approval: Option<YamlBool>,
    deprecated: Option<Deprecated>,
    /// The return value: a JSON Schema.
    returns: Option<RaveSchema>,
    /// Runnable R code with its captured output (from `@examples`).
    implementation_example: Option<String>,
    /// Seconds the example took.
    execution_time: Option<f64>,
    example_response: Option<Value>,
    output_format: Option<Value>,
}

/// Text, or `~` (null).
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum NullableText {
    Text(String),
    Null(()),
}

fn rave_tool() -> Value {
    let mut s = generate::<RaveTool>(RAVE, "RAVE tool");
    // YAML 1.1 words, in any case, as toolgen reads them (JSON Schema
    // patterns have no case-insensitive flag).
    definition(&mut s, "YamlBool")["anyOf"][1]["pattern"] = json!(
        "^([Yy][Ee][Ss]|[Nn][Oo]|[Oo][Nn]|[Oo][Ff][Ff]|[Yy]|[Nn]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$"
    );
    // Every parameter has a type (TG0101), one of JSON Schema's (TG0302).
    let ty = json!({"anyOf": [
        {"enum": crate::formats::rave::TYPES},
        {"type": "array", "items": {"enum": crate::formats::rave::TYPES}, "minItems": 1},
    ]});
    definition(&mut s, "RaveSchema")["properties"]["properties"]["additionalProperties"] = json!({
        "type": "object",
        "required": ["type"],
        "properties": {"type": ty, "description": {"type": ["string", "null"]}},
    });
    s
}

// --- toolset.yaml ----------------------------------------------------------------------------

/// A spec format.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum FormatName {
    /// EditorMCP tool definition JSON (Unity Editor bridge).
    Editormcp,
    /// RAVE tool YAML, as R packages write it.
    Rave,
    /// Standard MCP tool JSON.
    Mcp,
}

/// An output of a generation.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum OutputName {
    /// The JSON catalog MCP clients read.
    Catalog,
    /// Rust types, the tools trait and dispatch.
    Rust,
    /// The C# bridge for the Unity Editor.
    Csharp,
    /// The mdBook source of the docs site.
    Docs,
    /// The R worker of tool sets implemented in R.
    R,
}

/// A category: its id, or the id with a description.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum CategoryEntry {
    Id(String),
    Full {
        id: String,
        description: Option<String>,
    },
}

/// A tier: its id, or the id with a display title.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum TierEntry {
    Id(String),
    Full { id: String, title: Option<String> },
}

/// One path or several.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", untagged)]
#[allow(dead_code)]
enum Paths {
    One(String),
    Many(Vec<String>),
}

/// A tool set: what its spec files are and how they are generated
/// (`toolset.yaml`; ARCHITECTURE.md, docs/formats/).
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct Manifest {
    /// Lowercase identifier: the output directory and module name.
    #[schemars(regex(pattern = "^[a-z][a-z0-9_]*$"))]
    name: String,
    /// The format of the tool set's spec files.
    format: FormatName,
    /// Display name.
    title: Option<String>,
    description: Option<String>,
    version: Option<String>,
    /// Namespace of generated C#, e.g. `EditorMcp.Core`.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"))]
    namespace: Option<String>,
    /// Time limit of tools that set none, in seconds (more than 0, at most 3600).
    default_timeout_seconds: Option<f64>,
    /// The categories tools may use (any, when absent, for RAVE and MCP).
    categories: Option<Vec<CategoryEntry>>,
    /// Tiers, lowest first.
    tiers: Option<Vec<TierEntry>>,
    /// The safety levels tools may have.
    safety_levels: Option<Vec<SafetyLevelName>>,
    /// No tool above this tier.
    max_tier: Option<String>,
    /// A directory of template overrides, relative to this file.
    templates: Option<String>,
    /// Where the spec files are, relative to this file (default: this file's
    /// directory and below). With it, only these folders are read.
    specs: Option<Paths>,
    /// Only these outputs (default: all).
    outputs: Option<Vec<OutputName>>,
    /// Rule levels by code or name: `allow`, `warn` or `deny` (warnings and
    /// notes only; errors stay errors, but for `toolgen breaking`'s).
    lints: Option<BTreeMap<String, LintLevelName>>,
    /// What `toolgen breaking` accepts in this tool set (docs/breaking.md).
    breaking: Option<BreakingPolicySpec>,
    /// Where the generated Rust crate gets toolgen-runtime from: `bundled`
    /// (default: beside the crate), `path=DIR` (relative to the generated
    /// Cargo.toml), `git=URL[,rev=R|,branch=B|,tag=T]`, `version=REQ`.
    #[schemars(regex(
        pattern = r"^(bundled|path=.+|version=.+|git=[^,]+(,(rev|branch|tag)=.+)?)$"
    ))]
    runtime: Option<String>,
    /// What `tools/list` tells the model a tool does: `spec` (default) its
    /// description; `composed` the description with what it returns and its
    /// example, as RAVE's own R server composes it.
    model_description: Option<ModelDescriptionName>,
    /// How a server runs calls of these tools: `concurrent` (default: side
    /// by side on its pool) or `serial` (one at a time, in order: a backend
    /// with one main thread, such as the Unity Editor).
    execution: Option<ExecutionName>,
    /// Which ways the generated Rust types convert to and from JSON:
    /// `server` (default: inputs are read, outputs written, what a server
    /// needs; about half the compile time) or `both` (every type both ways,
    /// for code that also writes inputs or reads outputs).
    rust_serde: Option<RustSerdeName>,
    /// The Unity bridge's port, for both sides of the bridge (default: derived
    /// from the Unity project's path; `TOOLGEN_BRIDGE_PORT` overrides either).
    #[schemars(range(min = 1024, max = 65535))]
    bridge_port: Option<u16>,
    /// The R functions that implement the tools, for the R worker (`r/`):
    /// by default a tool `pkg-fn` is `pkg:::fn`.
    r: Option<RBindingSpec>,
}

/// A manifest's `r`.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", deny_unknown_fields)]
#[allow(dead_code)]
struct RBindingSpec {
    /// The R package of every tool of the set (each function named after the
    /// tool: the part of its id after `-`, else the id).
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$"))]
    package: Option<String>,
    /// One tool's function, by tool id: `fn` (in `package`), `pkg::fn` or `pkg:::fn`.
    functions: Option<std::collections::BTreeMap<String, String>>,
}

/// How calls of a tool set's tools run.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum ExecutionName {
    /// Side by side, on the server's pool.
    Concurrent,
    /// One at a time, in the order they arrive.
    Serial,
}

/// Which ways generated Rust types convert.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum RustSerdeName {
    /// Inputs read, outputs written.
    Server,
    /// Every type both ways.
    Both,
}

/// How a tool's model-facing description is made.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum ModelDescriptionName {
    /// The spec's description.
    Spec,
    /// The description, what the tool returns and its example.
    Composed,
}

/// A rule level.
#[derive(JsonSchema)]
#[schemars(crate = "schemars08", rename_all = "lowercase")]
#[allow(dead_code)]
enum LintLevelName {
    Allow,
    Warn,
    Deny,
}

fn manifest() -> Value {
    let mut s = generate::<Manifest>(MANIFEST, "toolgen tool set manifest");
    s["properties"]["defaultTimeoutSeconds"] = json!({
        "type": "number", "exclusiveMinimum": 0, "maximum": 3600,
        "description": s["properties"]["defaultTimeoutSeconds"]["description"],
    });
    // Only rules that can be configured, by code or name: editors complete them.
    let mut keys: Vec<&str> = crate::diag::rule::ALL
        .iter()
        .filter(|r| r.is_configurable())
        .flat_map(|r| [r.code, r.name])
        .collect();
    keys.sort_unstable();
    let lints = &mut s["properties"]["lints"];
    lints["propertyNames"] = json!({"enum": keys});
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(schema: &Value) -> Vec<String> {
        let mut k: Vec<String> = schema["properties"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    }

    fn sorted(list: &[&str]) -> Vec<String> {
        let mut k: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
        k.sort();
        k
    }

    /// The schemas and the readers know the same keys.
    #[test]
    fn schemas_have_the_keys_the_readers_accept() {
        assert_eq!(
            keys(&editormcp_tool()),
            sorted(crate::formats::editormcp::TOP_KEYS)
        );
        assert_eq!(keys(&mcp_tool()), sorted(crate::formats::mcp::TOP_KEYS));
        assert_eq!(keys(&rave_tool()), sorted(crate::formats::rave::TOP_KEYS));
        assert_eq!(keys(&manifest()), sorted(crate::manifest::KEYS));
        let property = keys(&editormcp_tool()["definitions"]["EditorMcpProperty"]);
        assert_eq!(
            property,
            sorted(&crate::formats::editormcp::translate::property_keys())
        );
    }

    #[test]
    fn schemas_are_valid_draft_07() {
        for (name, schema) in all() {
            assert!(
                jsonschema::draft7::meta::is_valid(&schema),
                "{name} is not a valid draft-07 schema"
            );
            assert!(
                jsonschema::draft7::new(&schema).is_ok(),
                "{name} does not compile"
            );
        }
    }
}
