//! The normalized intermediate representation.
//!
//! Every input format is read into these types; every emitter reads only
//! these types. Schemas are plain JSON Schema (2020-12) values, so emitters
//! never see the dialect a format writes them in. Every field keeps the
//! source location it was read from ([`Loc`]), and every schema keeps a map
//! from JSON pointers inside it to locations in the spec file, so validation
//! can point at the exact offending value.

mod client;
mod values;
pub use self::client::Client;
pub use self::values::{JsonValue, Locs};

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::source::Loc;

/// A value together with where it was written.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Spanned<T> {
    pub value: T,
    pub loc: Loc,
}

impl<T> Spanned<T> {
    pub fn new(value: T, loc: Loc) -> Spanned<T> {
        Spanned { value, loc }
    }
}

crate::text::word_enum! {
    /// The input formats toolgen knows.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Format {
        /// EditorMCP tool definition JSON (Unity Editor bridge).
        EditorMcp = "editormcp",
        /// RAVE tool YAML written by R packages.
        Rave = "rave",
        /// Standard MCP / ToolVault tool JSON with JSON Schema `inputSchema`.
        Mcp = "mcp",
    }
}

crate::text::word_enum! {
    /// What `tools/list` tells the model a tool does (a manifest's
    /// `modelDescription`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum ModelDescription {
        /// The spec's description.
        #[default]
        Spec = "spec",
        /// The description with what the tool returns and its example, as
        /// RAVE's own R server composes it.
        Composed = "composed",
    }
}

crate::text::word_enum! {
    /// How the calls of a tool set's tools run (a manifest's `execution`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Execution {
        /// Side by side, on the server's pool.
        #[default]
        Concurrent = "concurrent",
        /// One at a time, in the order they arrive (a backend with one main
        /// thread, such as the Unity Editor).
        Serial = "serial",
    }
}

crate::text::word_enum! {
    /// Which ways the generated Rust types convert to and from JSON (a
    /// manifest's `rustSerde`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum RustSerde {
        /// What a server needs and no more: each tool's input types are read
        /// from JSON (`Deserialize`), its output types written (`Serialize`).
        /// About half the compile time of `both`.
        #[default]
        Server = "server",
        /// Every type both ways, for code that also writes inputs or reads
        /// outputs (a Rust client, tests that round-trip values).
        Both = "both",
    }
}

crate::text::word_enum! {
    /// The outputs a generation can write. A tool set's manifest may choose some
    /// (`outputs: [catalog, docs]`); a generation may ask for some.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum OutputKind {
        /// The JSON catalog MCP clients read (`catalog/`).
        Catalog = "catalog",
        /// Rust types, the tools trait and dispatch (`rust/`, or `tools.rs` from a build script).
        Rust = "rust",
        /// The C# bridge for the Unity Editor (`csharp/`).
        CSharp = "csharp",
        /// The mdBook source of the docs site (`docs/`).
        Docs = "docs",
        /// The R worker of tool sets whose tools are R functions (`r/`).
        R = "r",
    }
}

/// Where the generated Rust crate gets `toolgen-runtime` from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RuntimeSource {
    /// The runtime's source is written beside the generated crate
    /// (`rust/toolgen-runtime/`), from the copy built into toolgen: it builds
    /// anywhere, offline, and always matches the generated code.
    #[default]
    Bundled,
    /// A `toolgen-runtime` crate at this path, as the generated Cargo.toml sees it.
    Path(String),
    /// A git repository holding the `toolgen-runtime` crate, optionally at a
    /// `rev`, `branch` or `tag` (`("rev", "abc123")`).
    Git {
        url: String,
        reference: Option<(String, String)>,
    },
    /// A release from the registry, by version requirement.
    Version(String),
}

impl RuntimeSource {
    /// What `--runtime` and a manifest's `runtime:` accept: `bundled`,
    /// `path=DIR`, `git=URL` (with `,rev=R`, `,branch=B` or `,tag=T`), `version=REQ`.
    pub const SYNTAX: &'static str = "`bundled`, `path=DIR`, `git=URL` (optionally `,rev=R`, `,branch=B` or `,tag=T`) or `version=REQ`";

    pub fn parse(s: &str) -> Result<RuntimeSource, String> {
        let s = s.trim();
        if s == "bundled" {
            return Ok(RuntimeSource::Bundled);
        }
        let bad = || format!("`{s}` is not a runtime source; write {}", Self::SYNTAX);
        let (kind, rest) = s.split_once('=').ok_or_else(bad)?;
        let rest = rest.trim();
        if rest.is_empty() || rest.contains(['"', '\\', '\n']) {
            return Err(bad());
        }
        match kind.trim() {
            "path" => Ok(RuntimeSource::Path(rest.to_owned())),
            "version" => Ok(RuntimeSource::Version(rest.to_owned())),
            "git" => {
                let mut parts = rest.split(',');
                let url = parts.next().unwrap_or_default().trim().to_owned();
                let reference = match parts.next() {
                    None => None,
                    Some(r) => {
                        let (k, v) = r.split_once('=').ok_or_else(bad)?;
                        let k = k.trim();
                        if !["rev", "branch", "tag"].contains(&k) || v.trim().is_empty() {
                            return Err(bad());
                        }
                        Some((k.to_owned(), v.trim().to_owned()))
                    }
                };
                if url.is_empty() || parts.next().is_some() {
                    return Err(bad());
                }
                Ok(RuntimeSource::Git { url, reference })
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for RuntimeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeSource::Bundled => f.write_str("bundled"),
            RuntimeSource::Path(p) => write!(f, "path={p}"),
            RuntimeSource::Version(v) => write!(f, "version={v}"),
            RuntimeSource::Git { url, reference } => {
                write!(f, "git={url}")?;
                if let Some((k, v)) = reference {
                    write!(f, ",{k}={v}")?;
                }
                Ok(())
            }
        }
    }
}

crate::text::word_enum! {
    /// What a tool may do to the system it works on, from least to most dangerous.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum SafetyLevel {
        /// Only reads; nothing can be modified.
        ReadOnly = "read-only",
        /// Modifies data with guardrails (single object, undoable).
        SafeWrite = "safe-write",
        /// Can make irreversible changes; clients should ask for confirmation.
        Destructive = "destructive",
    }
}

impl SafetyLevel {
    /// The standard MCP tool annotation hints this level implies.
    pub fn mcp_hints(self) -> (bool, bool) {
        // (readOnlyHint, destructiveHint)
        match self {
            SafetyLevel::ReadOnly => (true, false),
            SafetyLevel::SafeWrite => (false, false),
            SafetyLevel::Destructive => (false, true),
        }
    }
}

/// A category a tool set declares.
#[derive(Clone, Debug, PartialEq)]
pub struct Category {
    pub id: String,
    pub description: Option<String>,
}

/// A tier a tool set declares; tiers are ordered from the lowest (free) up.
#[derive(Clone, Debug, PartialEq)]
pub struct Tier {
    pub id: String,
    /// Display name (e.g. "Pro" for `tier2`).
    pub title: Option<String>,
}

/// A JSON Schema plus the source location of its parts.
#[derive(Clone, Debug, Default, PartialEq, Hash)]
pub struct Schema {
    /// A self-contained JSON Schema (2020-12); local `$ref`s only.
    pub value: JsonValue,
    /// JSON pointer inside `value` -> where that part was written.
    pub locs: Locs,
    /// Values the reader changed to fit the schema, by pointer, as the spec
    /// wrote them (RAVE's integer default `5.0`, read as `5`; examples
    /// `'10'` of a number, read as `10`): what a converter back into the
    /// spec's format writes, so that it gives back what it read.
    pub written: BTreeMap<String, Value>,
}

impl Schema {
    /// The location of the part at `pointer`, or of its nearest located ancestor.
    pub fn locate(&self, pointer: &str) -> Option<Loc> {
        locate(&self.locs, pointer)
    }

    /// `value` (this schema, or one derived from it with the same pointers)
    /// for serializing with its properties in spec order.
    pub fn ordered<'a>(&'a self, value: &'a Value) -> crate::schema::Ordered<'a> {
        crate::schema::Ordered { value, ranks: self }
    }
}

impl crate::schema::Ranks for Schema {
    /// Where the part at `pointer` itself was written: properties keep the
    /// order of the spec.
    fn rank(&self, pointer: &str) -> Option<crate::schema::Rank> {
        self.locs.get(pointer).map(|l| (l.file.0, l.span.start))
    }
}

/// Any JSON value (an example input, say) with the locations of its parts.
#[derive(Clone, Debug, Default, PartialEq, Hash)]
pub struct LocatedValue {
    pub value: JsonValue,
    pub locs: Locs,
}

impl LocatedValue {
    pub fn locate(&self, pointer: &str) -> Option<Loc> {
        locate(&self.locs, pointer)
    }

    /// The value, for serializing with every object's members in the order
    /// they were written.
    pub fn ordered(&self) -> crate::schema::Ordered<'_> {
        crate::schema::Ordered {
            value: &self.value,
            ranks: self,
        }
    }
}

impl crate::schema::Ranks for LocatedValue {
    fn rank(&self, pointer: &str) -> Option<crate::schema::Rank> {
        self.locs.get(pointer).map(|l| (l.file.0, l.span.start))
    }
}

fn locate(locs: &Locs, pointer: &str) -> Option<Loc> {
    let mut p = pointer;
    loop {
        if let Some(l) = locs.get(p) {
            return Some(*l);
        }
        if p.is_empty() {
            return None;
        }
        p = p.rfind('/').map_or("", |i| &p[..i]);
    }
}

/// One worked example of a tool call.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Example {
    pub description: Option<String>,
    pub input: LocatedValue,
    pub output: Option<LocatedValue>,
    pub loc: Loc,
}

/// One tool, independent of the format it was written in.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    /// The canonical, stable identifier (`scene.hierarchy.dump`): the wire name.
    pub id: Spanned<String>,
    /// Human-readable display name.
    pub name: Spanned<String>,
    pub description: Spanned<String>,
    pub category: Spanned<String>,
    pub safety: Spanned<SafetyLevel>,
    pub tier: Spanned<String>,
    /// JSON Schema of the arguments object.
    pub input: Schema,
    /// JSON Schema of the result; `Value::Null` when the spec declares none
    /// (MCP's `outputSchema` is optional).
    pub output: Schema,
    pub notes: Option<Spanned<String>>,
    pub examples: Vec<Example>,
    /// Time limit for one call, in seconds, when the spec sets one.
    pub timeout_seconds: Option<Spanned<f64>>,
    /// Whether a client must ask the user before calling the tool (RAVE's
    /// `requires_approval`; EditorMCP's destructive tools).
    pub requires_approval: bool,
    /// Extra information that has no field of its own (`x-*` keys, format specifics).
    pub annotations: BTreeMap<String, Spanned<Value>>,
    /// The MCP tool annotations (`readOnlyHint`, `destructiveHint`, ...) as
    /// the spec states them, in MCP's words or its own (EditorMCP's safety
    /// level, RAVE's `dangerous`): published as they are, none invented.
    pub hints: BTreeMap<String, Spanned<Value>>,
    /// Fields of MCP's `Tool` that toolgen publishes as the spec wrote them,
    /// with where each part was written (members keep their order): `icons`,
    /// `execution`, `_meta` (its members but `toolgen`'s value, whose place
    /// is kept), and fields it does not know (reported, never dropped).
    pub passthrough: BTreeMap<String, LocatedValue>,
    /// What the spec left unsaid and toolgen filled in.
    pub implied: Implied,
    /// What `tools/list` tells the model the tool does, when it is not the
    /// description (a tool set whose manifest composes it, see
    /// [`ModelDescription`]).
    pub model_description: Option<String>,
    /// Set when the spec marks the tool deprecated (`deprecated: true`, or
    /// with a sunset date and a message): it still works, callers should move
    /// on, and `toolgen breaking` lets it be removed.
    pub deprecated: Option<Spanned<Deprecation>>,
    /// The content blocks the tool returns, as the spec declares them
    /// (EditorMCP's and RAVE's `content`, MCP's `_meta.toolgen.content`):
    /// documentation and contract; empty when the spec says nothing.
    pub content: Vec<Spanned<ContentDecl>>,
    /// The R function that implements the tool, when the spec names one (a
    /// RAVE tool `{package}-{function}`); a tool set's manifest may
    /// override it (its `r` map, bound when the set is assembled).
    pub r_function: Option<RFunction>,
    /// The whole definition (the file's root value).
    pub loc: Loc,
}

/// A manifest's `r`: `{package: PKG, functions: {TOOL_ID: "[pkg:::]fn"}}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RBinding {
    /// The package of every tool of the set (each function named after the
    /// tool: the part of its id after `-`, else the id).
    pub package: Option<Spanned<String>>,
    /// One tool's function, by tool id.
    pub functions: Vec<(Spanned<String>, Spanned<RFunction>)>,
}

/// An R function by package and name: called as `package:::function`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RFunction {
    pub package: String,
    pub function: String,
}

impl RFunction {
    /// `pkg-fn` (RAVE's tool names, as ravepipeline splits them) -> `pkg`, `fn`;
    /// `None` unless both are names R accepts.
    pub fn from_tool_name(name: &str) -> Option<RFunction> {
        let (package, function) = name.split_once('-')?;
        (is_r_package(package) && is_r_name(function)).then(|| RFunction {
            package: package.to_owned(),
            function: function.to_owned(),
        })
    }

    /// `fn`, `pkg::fn` or `pkg:::fn` (a manifest's `r.functions`), with
    /// `package` for the first form.
    pub fn parse(text: &str, package: Option<&str>) -> Option<RFunction> {
        let (p, f) = match text.split_once("::") {
            Some((p, f)) => (p, f.strip_prefix(':').unwrap_or(f)),
            None => (package?, text),
        };
        (is_r_package(p) && is_r_name(f)).then(|| RFunction {
            package: p.to_owned(),
            function: f.to_owned(),
        })
    }
}

/// A name R packages may have: letters, digits and `.`, starting with a
/// letter, not ending in `.`, at least two characters.
pub fn is_r_package(s: &str) -> bool {
    s.len() >= 2
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !s.ends_with('.')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
}

/// A syntactic R name: letters, digits, `.` and `_`, starting with a letter
/// or with `.` not followed by a digit.
pub fn is_r_name(s: &str) -> bool {
    let mut chars = s.chars();
    let ok_start = match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => true,
        Some('.') => !chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    };
    ok_start
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
}

/// A manifest's `breaking`: findings of `toolgen breaking` it accepts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BreakingPolicy {
    /// Categories of rules not checked at all (`tools`, `inputs`, `outputs`,
    /// `behaviour`, `metadata`).
    pub off: Vec<Spanned<String>>,
    /// Categories off by default that are checked (`generated`).
    pub on: Vec<Spanned<String>>,
    /// Findings accepted for one tool: every rule, or the ones listed.
    pub ignore: Vec<BreakingIgnore>,
}

impl BreakingPolicy {
    /// Whether the generated-code category (off by default) is turned on.
    pub fn checks_generated(&self) -> bool {
        self.on.iter().any(|c| c.value == "generated")
    }
}

/// One entry of a manifest's `breaking.ignore`.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakingIgnore {
    pub tool: Spanned<String>,
    /// The rules accepted (empty: every rule).
    pub rules: Vec<&'static crate::diag::Rule>,
    /// Only findings about this part of the tool and below it (`input.depth`,
    /// `output.items`); `None`: the whole tool.
    pub path: Option<Spanned<String>>,
}

/// A kind of content block a tool says it returns beside (or instead of)
/// its structured output: MCP's `text`, `image`, `audio`, `resource` (an
/// embedded resource) or `resource_link`, with the MIME type and what it is
/// when the spec says.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContentDecl {
    /// MCP's block `type`: one of [`CONTENT_TYPES`].
    pub kind: String,
    pub mime_type: Option<String>,
    pub description: Option<String>,
}

/// The block types of MCP's `ContentBlock`.
pub const CONTENT_TYPES: &[&str] = &["text", "image", "audio", "resource", "resource_link"];

impl ContentDecl {
    /// The block type, with its MIME type when declared: `image (image/png)`,
    /// the type quoted with `quote` on both sides (doc comments).
    pub fn label(&self, quote: &str) -> String {
        match &self.mime_type {
            Some(m) => format!("{quote}{}{quote} ({m})", self.kind),
            None => format!("{quote}{}{quote}", self.kind),
        }
    }

    /// As toolgen publishes it (`_meta.toolgen.content` items) and specs write it.
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("type".to_owned(), Value::String(self.kind.clone()));
        if let Some(t) = &self.mime_type {
            m.insert("mimeType".to_owned(), Value::String(t.clone()));
        }
        if let Some(d) = &self.description {
            m.insert("description".to_owned(), Value::String(d.clone()));
        }
        Value::Object(m)
    }
}

/// What a spec says about a deprecated tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Deprecation {
    /// The day after which the tool may be removed (`2027-06-30`).
    pub sunset: Option<String>,
    /// What to use instead, or why.
    pub message: Option<String>,
}

impl Deprecation {
    /// As toolgen publishes it (`_meta.toolgen.deprecated`): `true`, or an
    /// object with what the spec gave.
    pub fn to_json(&self) -> Value {
        if self.sunset.is_none() && self.message.is_none() {
            return Value::Bool(true);
        }
        let mut m = serde_json::Map::new();
        if let Some(s) = &self.sunset {
            m.insert("sunset".to_owned(), Value::String(s.clone()));
        }
        if let Some(msg) = &self.message {
            m.insert("message".to_owned(), Value::String(msg.clone()));
        }
        Value::Object(m)
    }
}

/// A map of located values as plain JSON (their locations dropped).
pub fn plain_values(m: &BTreeMap<String, Spanned<Value>>) -> serde_json::Map<String, Value> {
    m.iter()
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect()
}

/// The fields of a tool that its spec did not give, so that toolgen filled
/// them in (a display name from the id, the tool set's default category, the
/// lowest tier, a safety level): outputs show them as defaults and publish
/// nothing for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Implied {
    pub name: bool,
    /// No description was written (MCP allows none): the catalog lists none.
    pub description: bool,
    pub category: bool,
    pub tier: bool,
    pub safety: bool,
}

/// Every field: the tool as its reader made it ([`Tool::hash_as_read`]),
/// then what its tool set's assembly fills in. toolgen's own keys of cached
/// work hash the two parts apart (`keys::tool_key`).
impl std::hash::Hash for Tool {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hash_as_read(h);
        (&self.model_description, &self.r_function).hash(h);
    }
}

impl Tool {
    /// Every field but the two a tool set's assembly fills in from the set
    /// and its manifest (`model_description`, `r_function`): the tool as its
    /// reader made it ([`Tool::digest_as_read`]).
    /// Destructured without `..`, so a field added to `Tool` does not compile
    /// until it is placed here (a time limit by its bits: `f64` has no `Hash`).
    pub fn hash_as_read<H: std::hash::Hasher>(&self, h: &mut H) {
        use std::hash::Hash;
        let Tool {
            id,
            name,
            description,
            category,
            safety,
            tier,
            input,
            output,
            notes,
            examples,
            timeout_seconds,
            requires_approval,
            annotations,
            hints,
            passthrough,
            implied,
            model_description: _,
            deprecated,
            content,
            r_function: _,
            loc,
        } = self;
        (id, name, description, category, safety, tier).hash(h);
        (input, output, notes, examples).hash(h);
        timeout_seconds
            .as_ref()
            .map(|t| (t.value.to_bits(), t.loc))
            .hash(h);
        (requires_approval, annotations, hints, passthrough, implied).hash(h);
        (deprecated, content, loc).hash(h);
    }

    /// The digest of [`Tool::hash_as_read`].
    pub fn digest_as_read(&self) -> crate::digest::Digest {
        struct AsRead<'a>(&'a Tool);
        impl std::hash::Hash for AsRead<'_> {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                self.0.hash_as_read(h);
            }
        }
        crate::digest::Hasher::new()
            .str("tool as read")
            .hash(&AsRead(self))
            .finish()
    }

    /// The description `tools/list` gives the model.
    pub fn description_for_model(&self) -> &str {
        self.model_description
            .as_deref()
            .unwrap_or(&self.description.value)
    }

    /// Whether two definitions say the same thing (everything but where they were written).
    pub fn same_content(&self, other: &Tool) -> bool {
        let examples = |t: &Tool| -> Vec<(Option<String>, JsonValue, Option<JsonValue>)> {
            t.examples
                .iter()
                .map(|e| {
                    (
                        e.description.clone(),
                        e.input.value.clone(),
                        e.output.as_ref().map(|o| o.value.clone()),
                    )
                })
                .collect()
        };
        self.id.value == other.id.value
            && self.name.value == other.name.value
            && self.description.value == other.description.value
            && self.category.value == other.category.value
            && self.safety.value == other.safety.value
            && self.tier.value == other.tier.value
            && same_but_dialect(&self.input.value, &other.input.value)
            && same_but_dialect(&self.output.value, &other.output.value)
            && self.notes.as_ref().map(|n| &n.value) == other.notes.as_ref().map(|n| &n.value)
            && self.timeout_seconds.as_ref().map(|t| t.value)
                == other.timeout_seconds.as_ref().map(|t| t.value)
            && self.requires_approval == other.requires_approval
            && examples(self) == examples(other)
            && plain_values(&self.annotations) == plain_values(&other.annotations)
            && plain_values(&self.hints) == plain_values(&other.hints)
            && self.passthrough.len() == other.passthrough.len()
            && (self.passthrough.iter().zip(&other.passthrough))
                .all(|((k, v), (l, w))| k == l && v.value == w.value)
            && self.implied == other.implied
            && self.deprecated.as_ref().map(|d| &d.value)
                == other.deprecated.as_ref().map(|d| &d.value)
    }
}

/// Whether two schemas are equal but for the `$schema` their roots declare
/// (the same tool written once for a draft-07 validator and once for MCP's
/// default, 2020-12, is one tool).
fn same_but_dialect(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => without_dialect(x).eq(without_dialect(y)),
        _ => a == b,
    }
}

fn without_dialect(m: &serde_json::Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    m.iter().filter(|(k, _)| *k != "$schema")
}

/// A group of tools described by one manifest (or loose files of one format).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSet {
    /// Lowercase identifier; the directory and module name of generated output.
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub version: Option<String>,
    pub format: Format,
    /// Namespace for emitters that need one (C#), e.g. `EditorMcp.Core`.
    pub namespace: String,
    /// The categories tools may use; empty means any category is allowed.
    pub categories: Vec<Category>,
    pub tiers: Vec<Tier>,
    pub safety_levels: Vec<SafetyLevel>,
    /// The highest tier its tools may have (a policy), if the manifest sets one.
    pub max_tier: Option<String>,
    /// Time limit for tools that set none, in seconds: the manifest's, or
    /// the format's (EditorMCP's protocol says 30 s); `None`: no limit is
    /// stated, and the server's default applies.
    pub default_timeout_seconds: Option<f64>,
    /// How the tools' model-facing descriptions are made (the manifest's
    /// `modelDescription`).
    pub model_description: ModelDescription,
    /// How calls of its tools run (the manifest's `execution`).
    pub execution: Execution,
    /// Which ways its generated Rust types convert (the manifest's
    /// `rustSerde`, where it says so; `None`: the default, see
    /// [`ToolSet::rust_serde`]).
    pub rust_serde: Option<Spanned<RustSerde>>,
    /// Whether the tools speak the EditorMCP envelope besides MCP (a fact
    /// of the format, set by its reader): docs show envelope requests only then.
    pub envelope: bool,
    /// A directory whose files override the built-in templates for this tool
    /// set's generated files (the manifest's `templates`, resolved against the
    /// manifest's directory).
    pub templates: Option<Spanned<std::path::PathBuf>>,
    /// Where the manifest is; `None` for loose files that use the format's defaults.
    pub manifest: Option<Loc>,
    /// The outputs this tool set is generated into (the manifest's `outputs`);
    /// `None`: every output.
    pub outputs: Option<Vec<OutputKind>>,
    /// Where its generated Rust gets the runtime from (the manifest's `runtime`).
    pub runtime: Option<Spanned<RuntimeSource>>,
    /// Whether every array schema must declare its `items` (a fact of the
    /// format, set by its reader: EditorMCP and RAVE require it, NOTES 7; in
    /// plain JSON Schema, MCP, an array without `items` holds any values).
    pub arrays_need_items: bool,
    /// Rules that the format's own definition makes errors, whatever their
    /// level elsewhere (set by its reader: EditorMCP's schema says a required
    /// parameter has no default, TG0303). Reported as errors, never lowered.
    pub format_errors: &'static [&'static crate::diag::Rule],
    /// The language of the tools' `implementation_example` annotation, for
    /// code blocks (`r` for RAVE, whose examples are R code).
    pub implementation_language: Option<String>,
    /// Rule levels the manifest sets (`lints: {TG0603: allow}`), applied to
    /// the diagnostics in this tool set's files.
    pub lints: Vec<(&'static crate::diag::Rule, crate::diag::LintLevel, Loc)>,
    /// What `toolgen breaking` accepts in this tool set (the manifest's `breaking`).
    pub breaking: BreakingPolicy,
    /// The Unity bridge's port (the manifest's `bridgePort`); `None`: derived
    /// from the Unity project's path by both sides of the bridge.
    pub bridge_port: Option<u16>,
    /// The manifest's `r`: the R functions that implement the tools, where
    /// the specs' own names do not say (applied to the tools on loading).
    pub r: RBinding,
    /// The clients whose limits its tools are checked against (the
    /// manifest's `clients`, or `--clients`), in order, and where the
    /// manifest names them.
    pub clients: Vec<Client>,
    /// A tool whose input schema is a union of objects at its root is one
    /// tool per branch in the variants of clients that want a plain object
    /// there (the manifest's `splitUnions`).
    pub split_unions: bool,
    /// Tools sorted by id.
    pub tools: Vec<Tool>,
}

impl ToolSet {
    /// Which ways its generated Rust types convert: the manifest's
    /// `rustSerde`, else `server`.
    pub fn rust_serde(&self) -> RustSerde {
        self.rust_serde
            .as_ref()
            .map(|s| s.value)
            .unwrap_or_default()
    }

    /// Whether this tool set is generated into `kind`.
    pub fn wants(&self, kind: OutputKind) -> bool {
        self.outputs.as_ref().is_none_or(|o| o.contains(&kind))
    }

    /// The position of a tier in the tool set's order (0 = lowest).
    pub fn tier_rank(&self, tier: &str) -> Option<usize> {
        self.tiers.iter().position(|t| t.id == tier)
    }

    /// The time limit the specs state for a tool, in seconds: its own, else
    /// the tool set's; `None` when neither states one.
    pub fn timeout_of(&self, tool: &Tool) -> Option<f64> {
        tool.timeout_seconds
            .as_ref()
            .map(|t| t.value)
            .or(self.default_timeout_seconds)
    }
}

/// Everything read in one run: tool sets sorted by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Project {
    pub tool_sets: Vec<ToolSet>,
}

impl Project {
    pub fn tool_count(&self) -> usize {
        self.tool_sets.iter().map(|s| s.tools.len()).sum()
    }

    /// Every tool, tool set by tool set.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> + Clone {
        self.tool_sets.iter().flat_map(|s| &s.tools)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Span};

    #[test]
    fn locs_find_every_pointer_and_nothing_else() {
        let at = |n: usize| Loc::new(FileId(0), Span::new(n, n + 1));
        let pointers = [
            "",
            "/properties",
            "/properties/a",
            "/properties/a~1b",
            "/required",
            "/$defs/Ä",
        ];
        let locs: Locs = pointers
            .iter()
            .rev()
            .zip(0..)
            .map(|(p, n)| ((*p).to_owned(), at(n)))
            .collect();
        assert_eq!(locs.len(), pointers.len());
        for (p, n) in pointers.iter().rev().zip(0..) {
            assert_eq!(locs.get(p), Some(&at(n)), "{p:?}");
        }
        for absent in ["/properties/b", "/prop", "/requiredx", "x"] {
            assert_eq!(locs.get(absent), None, "{absent:?}");
        }
        // In pointer order, and back to the map it was made from.
        let order: Vec<&str> = locs.iter().map(|(p, _)| p).collect();
        let mut sorted = pointers.to_vec();
        sorted.sort_unstable();
        assert_eq!(order, sorted);
        assert_eq!(Locs::from(locs.to_map()), locs);
        let schema = Schema {
            locs,
            ..Schema::default()
        };
        assert_eq!(schema.locate("/properties/a/type"), Some(at(3)));
        assert!(Locs::default().get("").is_none());
    }
}
