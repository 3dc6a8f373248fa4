//! Diagnostics: the rule registry, located messages, and their rendering.
//!
//! Every problem toolgen reports comes from a named [`Rule`] with a stable
//! code (`TG0304`) and a kebab-case name (`default-type-mismatch`). Codes never
//! change meaning; `toolgen explain CODE` prints the long explanation.

use serde_json::json;

use crate::source::{Loc, SourceDb};
use crate::text::did_you_mean;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

mod fix;

/// A validation rule: stable code, name, default severity and documentation.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// One line: what the rule checks.
    pub summary: &'static str,
    /// Why it exists and how to fix a violation.
    pub explanation: &'static str,
}

macro_rules! rules {
    ($( $ident:ident = ($code:literal, $name:literal, $sev:ident, $summary:literal, $expl:literal); )*) => {
        /// The rules, as constants usable in code.
        pub mod rule {
            use super::{Rule, Severity};
            $(
                #[doc = $summary]
                pub static $ident: Rule = Rule {
                    code: $code,
                    name: $name,
                    severity: Severity::$sev,
                    summary: $summary,
                    explanation: $expl,
                };
            )*
            /// Every rule, ordered by code.
            pub static ALL: &[&Rule] = &[$(&$ident),*];
        }
    };
}

rules! {
    // --- reading files --------------------------------------------------------------------
    IO_ERROR = ("TG0001", "io-error", Error, "a spec file or directory cannot be read",
        "The path does not exist, is not readable, or is neither a file nor a directory. Check the path and its permissions.");
    FILE_TOO_LARGE = ("TG0002", "file-too-large", Error, "a spec file is larger than the size limit",
        "Spec files describe one tool each and are small. Files above the limit (10 MiB by default) are refused before they are read, so that a stray data file cannot exhaust memory. Raise the limit with `--max-file-size` if the file really is a spec.");
    NOT_UTF8 = ("TG0003", "not-utf8", Error, "a spec file is not valid UTF-8",
        "Spec files must be UTF-8 text. The diagnostic points at the first byte that is not valid UTF-8; re-save the file as UTF-8.");
    EMPTY_FILE = ("TG0004", "empty-file", Error, "a spec file is empty",
        "The file contains nothing but whitespace (or comments). Delete it or write the tool definition into it.");
    SYNTAX = ("TG0005", "syntax-error", Error, "a spec file is not well-formed JSON or YAML",
        "The parser stopped at the position shown. Common causes: trailing commas, comments in JSON, unquoted keys, single quotes, unterminated strings.");
    DUPLICATE_KEY = ("TG0006", "duplicate-key", Error, "an object has the same key twice",
        "JSON parsers disagree about which of two equal keys wins, so a duplicate key is always a mistake. Remove or rename one of them; both places are shown.");
    TOO_DEEP = ("TG0007", "nesting-too-deep", Error, "values are nested deeper than the limit",
        "Objects and arrays may be nested at most 128 levels deep. Deeper nesting is refused to keep every later stage safe from stack exhaustion.");
    UNKNOWN_FORMAT = ("TG0008", "unknown-format", Error, "the format of a spec file cannot be determined",
        "toolgen detects the format from the content: an EditorMCP tool definition is a JSON object with `id`, `inputs` and `outputs`. Pass `--format` to force a format, or put the file in a directory with a `toolset.yaml` that names its format.");
    NO_SPEC_FILES = ("TG0009", "no-spec-files", Error, "the inputs hold no spec files",
        "toolgen reads `*.json`, `*.yaml` and `*.yml` files as specs (except `toolset.yaml` manifests and `*.schema.json` schema documents), in the paths given and the folders below them, skipping hidden ones, and a manifest's `specs` folders. None was found, so there is nothing to validate or generate: check the path, or create a tool set with `toolgen init`.");

    // --- structure of a document ----------------------------------------------------------
    MISSING_FIELD = ("TG0101", "missing-field", Error, "a required field is missing",
        "The format requires this field. Add it; the message names the field and what it holds.");
    EMPTY_FIELD = ("TG0102", "empty-field", Error, "a required field is empty",
        "Required fields must be non-empty (validation rule 1 of the EditorMCP tool definition schema). Write a value.");
    WRONG_TYPE = ("TG0103", "wrong-type", Error, "a field has the wrong JSON type",
        "The field holds a value of another JSON type than the format allows, for example a number where a string is expected.");
    UNKNOWN_FIELD = ("TG0104", "unknown-field", Error, "a field is not part of the format",
        "Unknown fields are refused rather than ignored, because a misspelt field (`requried`) would otherwise silently lose its meaning. Fix the spelling (a suggestion is shown when one is close), or prefix the key with `x-` to keep it as a custom annotation.");
    INVALID_VALUE = ("TG0105", "invalid-value", Error, "a field has a value outside its allowed set",
        "The field only accepts the listed values.");
    PASSTHROUGH_FIELD = ("TG0106", "passthrough-field", Warning, "an MCP tool has a field toolgen does not know; it is published as written",
        "MCP's `Tool` (and its `annotations`) grows new fields with new protocol versions, so a field toolgen does not know is kept: the catalog and the server's `tools/list` publish it exactly as the spec wrote it. It is reported in case it is a misspelling of a field toolgen does know (a suggestion is shown when one is close); allow the rule (`lints: {passthrough-field: allow}`) for fields that are meant.");

    // --- tool identity and classification ---------------------------------------------------
    ID_FORMAT = ("TG0201", "id-format", Error, "a tool id does not follow the naming convention",
        "EditorMCP ids are dot-separated segments (`category.action`, `category.subcategory.action`). Each segment starts with a lowercase ASCII letter and contains only ASCII letters, digits and hyphens. lowerCamelCase segments such as `setParent` are accepted (see docs/decisions.md, NOTES point 3); spaces, underscores, uppercase first letters and empty segments are not.");
    DUPLICATE_ID = ("TG0202", "duplicate-id", Error, "two tools in one tool set have the same id, or ids that differ only in case",
        "Tool ids must be unique within a tool set. Ids that differ only in letter case are refused too: generated file names would collide on case-insensitive file systems (macOS, Windows). Both definitions are shown.");
    ID_PATH_UNSAFE = ("TG0203", "id-path-unsafe", Error, "a tool id could escape or break the output directory",
        "Tool ids become file names of generated files. An id containing `/`, `\\`, `..`, a NUL or control character, a leading dot, a drive prefix, or a reserved Windows device name (CON, NUL, COM1, ...) could write outside the output directory or fail on some platforms.");
    UNKNOWN_CATEGORY = ("TG0204", "unknown-category", Error, "a tool's category is not declared by its tool set",
        "Categories must be one of the tool set's `categories` (toolset.yaml), or of the format's standard categories for loose files. Add the category to the manifest or use a declared one.");
    CATEGORY_FORMAT = ("TG0205", "category-format", Error, "a category is not lowercase dot-separated",
        "Categories are lowercase and use dots for hierarchy (`mcp.platform`, `audio.mixer`).");
    UNKNOWN_SAFETY_LEVEL = ("TG0206", "unknown-safety-level", Error, "a safety level is not one of read-only, safe-write, destructive",
        "`safetyLevel` is one of `read-only` (only reads), `safe-write` (modifies with guardrails, e.g. undoable) or `destructive` (irreversible changes, requires confirmation).");
    SAFETY_NOT_ALLOWED = ("TG0207", "safety-level-not-allowed", Error, "a tool's safety level is not allowed in its tool set",
        "A tool set's manifest lists the safety levels it allows (`safetyLevels`). This implements the 'safety compliance' rule of the EditorMCP schema as a per-tool-set policy (docs/decisions.md, NOTES point 1).");
    UNKNOWN_TIER = ("TG0208", "unknown-tier", Error, "a tool's tier is not declared by its tool set",
        "`tier` must be the id of one of the tool set's tiers (`core`, `tier1` .. `tier4` by default). Product names such as `Pro` are display titles, not ids (docs/decisions.md, NOTES point 5).");
    NAME_STYLE = ("TG0209", "name-style", Warning, "a display name is not concise title case",
        "Display names should use title case and stay under 50 characters.");
    DESCRIPTION_STYLE = ("TG0210", "description-style", Warning, "a description is longer than recommended",
        "Descriptions should be one to three sentences, so that both humans and LLM clients read them in full. Move details into `notes`.");
    TIMEOUT_RANGE = ("TG0211", "timeout-range", Error, "a time limit is not a positive number of seconds up to one hour",
        "`timeoutSeconds` (and the manifest's `defaultTimeoutSeconds`) must be a number greater than 0 and at most 3600.");

    TIER_NOT_ALLOWED = ("TG0212", "tier-not-allowed", Error, "a tool's tier is above its tool set's `maxTier`",
        "A manifest may cap the tiers of its tools (`maxTier`). This implements the 'v0.1 tools must be core' half of the EditorMCP schema's safety-compliance rule as a per-tool-set policy (docs/decisions.md, NOTES points 1 and 5).");
    MISSING_DESCRIPTION = ("TG0213", "missing-description", Warning, "an MCP tool has no description",
        "MCP allows a tool without a `description`, and the catalog lists it without one, but a model chooses tools by what their descriptions say: one without is chosen by its name alone, or not at all. Write one or two sentences on what the tool does and when to use it.");
    // --- input and output schemas -------------------------------------------------------------
    PROPERTY_NAME = ("TG0301", "property-name", Error, "a parameter or property name is not a valid identifier",
        "Property names must be identifiers: an ASCII letter or `_` followed by letters, digits or `_`. They become field names in generated Rust and C#.");
    UNKNOWN_TYPE = ("TG0302", "unknown-type", Error, "a schema type is not one of the format's types",
        "Types are `string`, `integer`, `number`, `boolean`, `array`, `object`, and `any` (a value of any JSON type).");
    REQUIRED_WITH_DEFAULT = ("TG0303", "required-with-default", Warning, "a required parameter has a default value",
        "A default is only used when the caller omits the parameter, which a required parameter never allows, so the default is never used (valid JSON Schema, and generated as written: the parameter stays required). Remove the default or make the parameter optional. An error in EditorMCP specs, whose format forbids it (`required: true` parameters must not have `default` values); a warning elsewhere, which `lints` or `--allow` may lower.");
    DEFAULT_TYPE = ("TG0304", "default-type-mismatch", Warning, "a default value does not match the declared type",
        "The default must be a value of the declared type (for `integer`, a number without a fractional part written without a decimal point). An error in EditorMCP and RAVE specs, whose formats require it; in an MCP tool a warning: JSON Schema's `default` is an annotation that validators ignore, so the catalog keeps it as written and the generated types ignore it (a parameter left out stays left out).");
    ENUM_TYPE = ("TG0305", "enum-type-mismatch", Error, "an enum value does not match the declared type, or the enum is empty or repeats a value",
        "Every enum value must be of the declared type, the list must not be empty, and no value may appear twice.");
    DEFAULT_NOT_IN_ENUM = ("TG0306", "default-not-in-enum", Warning, "a default value is not one of the enum values",
        "When a parameter has an `enum`, its default must be one of the listed values. An error in EditorMCP and RAVE specs; in an MCP tool a warning, and the generated types ignore the default (see TG0304).");
    RANGE_INVERTED = ("TG0307", "range-inverted", Warning, "a lower bound is greater than the upper bound",
        "`minimum` exceeds `maximum` (likewise `minLength`/`maxLength`, `minItems`/`maxItems`): no value can satisfy both, so every call with the parameter is refused. Valid JSON Schema, generated as written; almost always two bounds swapped.");
    ARRAY_ITEMS = ("TG0308", "array-items-missing", Error, "an array does not declare its item type",
        "Generators need the item type of every array (docs/decisions.md, NOTES point 7). Add `items`, e.g. `\"items\": {\"type\": \"string\"}`. Mentioning the item type in the description is not enough.");
    OBJECT_SHAPE = ("TG0309", "object-shape-missing", Warning, "an object declares neither properties nor additionalProperties",
        "An object without `properties` is typed as a free-form JSON object. Say so explicitly with `\"additionalProperties\": true`, or declare its properties, or use `additionalProperties` with a schema for a string-keyed map.");
    UNRESOLVED_REF = ("TG0310", "unresolved-ref", Error, "a `$ref` does not name a definition",
        "In EditorMCP specs, `$ref` must be `#/definitions/NAME` where NAME is a key of the tool's top-level `definitions`.");
    CONSTRAINT_TYPE = ("TG0311", "constraint-type-mismatch", Warning, "a constraint does not apply to the declared type",
        "`minimum`/`maximum` apply to numbers, `minLength`/`maxLength`/`pattern` to strings, `minItems`/`maxItems` to arrays. A constraint on another type is ignored by validators, which is rarely what was meant.");
    INVALID_SCHEMA = ("TG0312", "invalid-schema", Error, "a schema is not valid JSON Schema",
        "The translated schema could not be compiled by the JSON Schema validator, for example because a `pattern` is not a valid regular expression.");
    UNKNOWN_REQUIRED = ("TG0313", "unknown-required", Warning, "`required` names a property that is not declared",
        "A name in `required` that is not a key of `properties` is valid JSON Schema (the member must be present, with any value) and is generated as written: the validators demand it, the generated types do not name it. It is usually a misspelt property name (a suggestion is shown when one is close).");
    DEFAULT_INVALID = ("TG0314", "default-invalid", Warning, "a default value does not match its schema",
        "A default should be a value its own schema accepts: generated code fills it in as a typed value, and a client that omits the parameter gets it. TG0304 and TG0306 check a default against a declared type and enum; this checks the rest with the JSON Schema validator: `$ref`s, combinators, nested properties, ranges and lengths. An error in EditorMCP and RAVE specs; in an MCP tool a warning, and the generated types ignore the default (see TG0304).");

    // --- examples -------------------------------------------------------------------------------
    EXAMPLE_INPUT = ("TG0401", "example-input-invalid", Error, "an example's input does not match the input schema",
        "Examples are documentation that readers copy. Each violation is shown at the offending value of the example.");
    EXAMPLE_OUTPUT = ("TG0402", "example-output-invalid", Error, "an example's output does not match the output schema",
        "Examples are documentation that readers copy. Each violation is shown at the offending value of the example.");
    EXAMPLE_COUNT = ("TG0403", "example-count", Warning, "a tool has no examples, or more than three",
        "The EditorMCP format asks for 1-3 representative examples per tool.");

    // --- tool sets ---------------------------------------------------------------------------------
    DUPLICATE_TOOLSET = ("TG0501", "duplicate-tool-set", Error, "two tool sets have the same name",
        "Tool set names become directory and module names of generated output, so they must be unique in one run.");
    FORMAT_MISMATCH = ("TG0502", "format-mismatch", Error, "a spec file is not in its tool set's format",
        "A tool set (toolset.yaml) has one format. The file looks like another format; move it to a tool set of that format, or fix its content.");
    EMPTY_TOOLSET = ("TG0503", "empty-tool-set", Warning, "a tool set contains no tools",
        "The manifest's directory contains no spec files.");
    TOOLSET_NAME = ("TG0504", "tool-set-name", Error, "a tool set name or namespace is not valid",
        "Tool set names are lowercase identifiers (`[a-z][a-z0-9_]*`), used as directory and module names. Namespaces are dot-separated identifiers (`EditorMcp.Core`), used for C#.");
    IDENTICAL_DUPLICATE = ("TG0505", "identical-duplicate", Note, "the same tool is defined identically in two files",
        "Two files define a tool with the same id and, after normalization, the same content (for example the same MCP tool once with and once without an explicit draft-07 `$schema`). One definition is used; the other is reported as a note. Two different definitions with the same id are TG0202.");

    // --- RAVE YAML (real-world looseness is reported, and normalized, not fatal) -------------
    RAVE_NAME_MISMATCH = ("TG0601", "rave-name-mismatch", Error, "a RAVE tool's `name` does not match its file name",
        "RAVE tools are stored as `{name}.yaml` (`mcptool_build()` writes them so, and R's `mcptool_list()` finds them by file name). Rename the file or fix `name`.");
    NULL_DESCRIPTION = ("TG0602", "null-description", Warning, "a description is `~` (null)",
        "R writes `description: ~` when a function has no `@description`. The tool is read with an empty description; clients see no text, so write one in the roxygen2 docs.");
    FLOAT_INTEGER = ("TG0603", "float-for-integer", Warning, "an integer value is written as a float (`5.0`)",
        "`mcptool_build()` writes every number with a decimal point, `5L` included, so integer defaults come out as `5.0`. toolgen reads the value as the integer `5`; nothing needs changing in R. To silence this for a package whose files are all written that way, set `lints: {float-for-integer: allow}` in its toolset.yaml.");
    DEFAULT_WRONG_TYPE = ("TG0604", "default-dropped", Warning, "a default does not match the parameter's type and is dropped",
        "The default could not be used as a value of the declared type (for example a string default on an integer parameter), so it is left out of every output. Make the default in the R function's signature and the type in its roxygen2 `@param` line agree, then rebuild with `mcptool_build()`.");
    EXAMPLE_TYPE = ("TG0605", "example-type", Warning, "an example value is a string on a numeric or boolean parameter",
        "`mcptool_build()` extracts examples from `\\code{}` blocks as strings. Examples that parse as the parameter's type are converted (`'10'` -> `10`); others are dropped.");
    DUPLICATE_EXAMPLE = ("TG0606", "duplicate-example", Warning, "an example value is listed twice",
        "Repeated example values are removed.");
    RD_MARKUP = ("TG0607", "rd-markup", Note, "a text contains leftover Rd markup",
        "Rd macros such as `\\code{x}`, `\\link{f}`, `\\itemize{\\item ...}` survived into a description. They are cleaned for output (`\\code{x}` -> `x`, items -> `- ...`).");
    NO_IMPLEMENTATION_EXAMPLE = ("TG0608", "implementation-example-missing", Warning, "a RAVE tool has no `implementation_example`",
        "The format requires runnable R code with captured output (from `@examples`), which tells an LLM how the tool behaves. Add an `@examples` section to the function's roxygen2 docs.");
    HIDDEN_PARAMETER = ("TG0609", "hidden-parameter", Warning, "a parameter whose name starts with `.` is in a spec and is dropped",
        "Hidden parameters (such as `.state_env`) pass internal context and must never reach a tool's public schema. It is removed from `properties` and `required` in every output.");
    R_SPECIAL_VALUE = ("TG0610", "r-special-value", Note, "a default is R's `NA`, `Inf` or `NaN`, which JSON has no value for",
        "R's yaml package writes `NA` as `.na` (`.na.real`, `.na.integer`, `.na.character`) and infinities as `.inf`/`-.inf`; JSON and JSON Schema have no such values. The default is left out of the schema (a missing argument is what `NA` means to most R functions), kept as `x-r-default` beside it, shown in the docs as R wrote it, and written back by `toolgen convert --to rave`.");

    // --- MCP / ToolVault JSON and $ref bundling -------------------------------------------
    UNSUPPORTED_KEYWORD = ("TG0701", "unsupported-keyword", Error, "a schema uses a keyword toolgen's emitters cannot honour",
        "`unevaluatedProperties`, `unevaluatedItems` and dynamic and recursive refs have no faithful mapping to generated Rust and C# types. Rather than produce silently wrong types, toolgen refuses them. Tuples (`prefixItems`, or draft 7's list of `items` with `additionalItems`) are typed as Rust tuples.");
    REF_SIBLING = ("TG0702", "ref-sibling", Warning, "a keyword beside `$ref` in a draft-07 schema is ignored",
        "In draft 7, keywords next to `$ref` are ignored by validators; in 2019-09 and 2020-12 they apply. The schema is kept as written and validated as draft 7 (the constraint has no effect, and the generated types ignore it too), which is rarely what its author meant: move the constraint into the referenced schema, or combine the two with `allOf`.");
    REF_CYCLE = ("TG0703", "ref-cycle", Error, "references loop without ever giving a shape",
        "A schema that is only a `$ref` to another that is only a `$ref` back has no type. Recursion through `properties` or `items` (a tree) is fine.");

    // --- emitters -----------------------------------------------------------------------------
    RUST_TYPES = ("TG0801", "rust-types", Error, "a schema cannot be turned into Rust types",
        "typify could not map the schema to Rust types (or panicked on it). The message names the tool; simplify the schema or report it.");
    TEMPLATE = ("TG0802", "template", Error, "a template cannot be read, parsed or rendered",
        "The C# and docs emitters render through minijinja templates: built-in ones, embedded in toolgen, or a file of the same name in the templates directory given with `--templates`. The message names the template file and line; fix the override, or delete it to use the built-in template again.");

    // --- breaking changes (`toolgen breaking`) -------------------------------------------------
    BREAKING_TOOL_REMOVED = ("TG0901", "tool-removed", Error, "a tool was removed",
        "Clients that call the tool by name fail with \"unknown tool\". Keep the tool until its callers have moved (say so in its description), then remove it and accept the change with `--allow tool-removed` or a manifest's `lints`.");
    BREAKING_TOOL_RENAMED = ("TG0902", "tool-renamed", Error, "a tool was renamed (its id is gone, a similar one was added)",
        "A tool's id is its wire name: clients call the old name and fail. Keep the old tool beside the new one until callers have moved.");
    BREAKING_DEPRECATED_REMOVED = ("TG0903", "deprecated-tool-removed", Note, "a deprecated tool was removed",
        "The tool was marked deprecated (`deprecated`) before it was removed, and its sunset date, if any, has passed: the removal was announced. Clients that still call it fail, which is what the deprecation warned of.");
    BREAKING_REMOVED_BEFORE_SUNSET = ("TG0904", "removed-before-sunset", Error, "a deprecated tool was removed before its sunset date",
        "The spec promised the tool until its sunset date; callers may have planned on it. Keep it until then, or move the date and tell its callers.");
    BREAKING_INPUT_REQUIRED_ADDED = ("TG0910", "input-required-added", Error, "an input parameter is new and required, or became required",
        "Callers written against the old spec do not send it and now fail validation. Make the parameter optional with a default that keeps the old behaviour.");
    BREAKING_INPUT_REMOVED = ("TG0911", "input-removed", Error, "an input parameter was removed while unknown parameters are refused",
        "Callers that still send the parameter now fail, because the object refuses properties it does not list (`additionalProperties: false`). Keep accepting the parameter and ignore it, or allow unknown parameters.");
    BREAKING_INPUT_TYPE_NARROWED = ("TG0912", "input-type-narrowed", Error, "an input accepts fewer types than before",
        "A value of a type the input no longer lists (a number where only integers are now allowed, a `null` that is no longer accepted) fails validation. Accept the old types too.");
    BREAKING_INPUT_ENUM_REMOVED = ("TG0913", "input-enum-value-removed", Error, "an input no longer accepts one of its listed values",
        "Callers that send the removed value now fail. Keep accepting it (map it to its replacement inside the tool) until callers have moved.");
    BREAKING_INPUT_CONSTRAINT_TIGHTENED = ("TG0914", "input-constraint-tightened", Error, "an input constraint was added or tightened",
        "A raised minimum, a lowered maximum, a new or changed pattern, `multipleOf` or `uniqueItems`, or a new list of allowed values: values callers sent before may now fail validation. Loosen the constraint, or accept the change deliberately.");
    BREAKING_INPUT_CLOSED = ("TG0915", "input-closed", Error, "an input object now refuses unknown properties",
        "`additionalProperties: false` was added: callers that send properties the schema does not list now fail.");
    BREAKING_DEFAULT_CHANGED = ("TG0916", "input-default-changed", Warning, "an input's default changed",
        "Callers that leave the parameter out now get a different behaviour without any error. Nothing fails, which is why it deserves a look.");
    BREAKING_OUTPUT_FIELD_REMOVED = ("TG0920", "output-field-removed", Error, "an output field was removed",
        "Clients that read the field break (typed clients fail to deserialize). Keep returning it until clients have moved.");
    BREAKING_OUTPUT_FIELD_OPTIONAL = ("TG0921", "output-field-optional", Error, "an output field is no longer required",
        "Clients may rely on the field being there (generated types make it non-optional). Keep it required.");
    BREAKING_OUTPUT_TYPE_WIDENED = ("TG0922", "output-type-widened", Error, "an output can hold a type (or value) it could not before",
        "Clients that expect the old type (an integer, a non-null value, one of a list of strings) break on the new one. Return new kinds of values in a new field.");
    BREAKING_OUTPUT_ENUM_ADDED = ("TG0923", "output-enum-value-added", Warning, "an output can hold a new listed value",
        "Lenient clients are fine; clients that match every value exhaustively (generated enums) fail on the new one. Update them before the tool returns it.");
    BREAKING_OUTPUT_UNION_WIDENED = ("TG0924", "output-union-branch-added", Warning, "an output union (`anyOf`/`oneOf`) has a new branch",
        "Strict clients that handle each shape do not know the new one. Update them before the tool returns it.");
    BREAKING_OUTPUT_SCHEMA_REMOVED = ("TG0925", "output-schema-removed", Error, "a tool no longer declares an output schema",
        "Clients that read `structuredContent` against the schema, and the generated typed outputs, lose their contract.");
    BREAKING_WRITES = ("TG0930", "now-writes", Error, "a read-only tool now writes",
        "Clients call read-only tools without asking the user; a tool that changes things now does so unasked. Give the writing behaviour a new tool.");
    BREAKING_DESTRUCTIVE = ("TG0931", "now-destructive", Error, "a tool became destructive",
        "Clients ask for confirmation before destructive tools only; callers of the old tool do not. Give the destructive behaviour a new tool.");
    BREAKING_NOT_IDEMPOTENT = ("TG0932", "no-longer-idempotent", Error, "an idempotent tool no longer is",
        "Clients retry idempotent calls after a timeout or a dropped connection; the effect may now happen twice.");
    BREAKING_OPEN_WORLD = ("TG0933", "now-open-world", Error, "a closed-world tool now reaches outside (`openWorldHint`)",
        "Clients treat closed-world tools as touching only their own system; this one now reaches the outside world.");
    BREAKING_TIER_RAISED = ("TG0934", "tier-raised", Error, "a tool moved to a higher tier",
        "Servers running at the old tier no longer offer the tool: their clients lose it.");
    BREAKING_TIME_LIMIT_LOWERED = ("TG0935", "time-limit-lowered", Error, "a tool's time limit was lowered",
        "Calls that took longer than the new limit, and succeeded before, now fail with a timeout.");
    BREAKING_RUST_NAME_CHANGED = ("TG0940", "rust-name-changed", Warning, "a generated Rust name changed although the wire did not",
        "Programs compiled against the generated crate (a module, a type, a field, an enum variant) stop compiling, although clients on the wire see no change: a definition renamed, a property added beside one of a similar name (numbered names move), a tool added whose module name collides. Off unless the tool set's manifest turns the `generated` category on (`breaking: {on: [generated]}`) or `toolgen breaking --generated-code` is given.");
    BREAKING_CSHARP_NAME_CHANGED = ("TG0941", "csharp-name-changed", Warning, "a generated C# name changed although the wire did not",
        "Unity handlers written against the generated C# (a tool's class, a DTO class, a property, an enum member) stop compiling, although clients on the wire see no change: a definition renamed, a property added beside one of a similar name (numbered names move), a tool added whose class name collides. Only for tool sets generated into C#; off unless the tool set's manifest turns the `generated` category on (`breaking: {on: [generated]}`) or `toolgen breaking --generated-code` is given.");
    BREAKING_RUST_SERDE_NARROWED = ("TG0942", "rust-serde-narrowed", Warning, "a tool set's generated Rust types no longer convert both ways",
        "With `rustSerde: server` (the default) a tool's generated `Input` is only read from JSON and its `Output` only written. Code compiled against the generated crate that writes inputs or reads outputs (a Rust client, tests that round-trip values, a server that forwards calls as JSON) stops compiling, although clients on the wire see no change. Off unless the tool set's manifest turns the `generated` category on (`breaking: {on: [generated]}`) or `toolgen breaking --generated-code` is given.");
    BREAKING_DESCRIPTION_CHANGED = ("TG0950", "description-changed", Note, "a tool's description changed",
        "Models read descriptions to choose tools and fill in arguments. Nothing breaks, but the change can change how the tool is used.");
    BREAKING_TITLE_CHANGED = ("TG0951", "title-changed", Note, "a tool's title changed",
        "Titles are shown to people. Nothing breaks.");

    // --- what MCP clients and model APIs accept (`clients:`, `--clients`; docs/clients.md) -----
    CLIENT_NAME_CHARACTERS = ("TG1001", "client-name-characters", Warning, "a client refuses a character of a tool's name",
        "Tool names reach model APIs as function names, and each API allows its own characters: OpenAI and Claude's API `[a-zA-Z0-9_-]` (no dots), Gemini a letter or `_` first, then `[a-zA-Z0-9_.-]`, MCP 2025-11-25 `[A-Za-z0-9_.-]`. A client sends the tool anyway and the API refuses the whole request, or the client drops the tool. Sources: openai-python function_definition.py; anthropics/claude-code#5835; cloud.google.com/vertex-ai FunctionDeclaration; SEP-986. The client's variant of the catalog (`toolgen gen` with `clients:`) replaces such characters with `_`, uniquely.");
    CLIENT_NAME_LENGTH = ("TG1002", "client-name-length", Warning, "a tool's name is too long for a client, with the prefix it adds",
        "Clients add the server's name before a tool's (Claude Code `mcp__server__tool`, gemini-cli `mcp_`) and refuse, cut or filter names over their limit: OpenAI 64 characters, Claude Code and Desktop 64 with the prefix, gemini-cli 63 with its prefix (cut: two tools may end with one name), Cursor 60 for the server's and the tool's names together (filtered), VS Code 64, MCP 128. The server's name is taken to be the tool set's. Sources: anthropics/claude-code#2326, #19882; gemini-cli mcp-tool.ts; awslabs/mcp#1283; microsoft/vscode#243602. The client's variant shortens names deterministically and uniquely.");
    CLIENT_TOOL_COUNT = ("TG1003", "client-tool-count", Warning, "a tool set has more tools than a client takes from one server",
        "OpenAI's Chat Completions take at most 128 functions, VS Code 128 tools a request, Cursor used only the first 40 of a server (anyproto/anytype-mcp#5; this may no longer apply). The tools past the limit are left out by the client or fail the request. Split the tool set, or serve fewer tools to that client (tiers).");
    CLIENT_ROOT_SCHEMA = ("TG1004", "client-root-schema", Warning, "a client refuses an input schema whose root is not a plain object",
        "OpenAI (strict or not), Claude's API and Gemini take parameters whose root is `type: object`, without `anyOf`/`oneOf`/`allOf`/`enum`/`not`/`const` beside or instead of it (nspady/google-calendar-mcp#39; anthropics/claude-code#5319, #44788). Give the root `type: object` and move the alternatives into a property, or let the client's variant split a top-level union into one tool per branch.");
    CLIENT_ARRAY_ITEMS = ("TG1005", "client-array-items", Warning, "a client refuses an array schema without `items`",
        "JSON Schema allows an array without `items` (any values); OpenAI refuses it even outside strict mode (\"array schema missing items\", ogx-ai/ogx#3602), as do VS Code and Gemini's OpenAPI subset. Add `items`, e.g. `{}` for any value where the client takes it, or the item type.");
    CLIENT_OBJECT_PROPERTIES = ("TG1006", "client-object-properties", Warning, "a client refuses an object schema without `properties`",
        "OpenAI refuses \"object schema missing properties\" (enechange/collmbo#384); strict mode needs every object's properties listed and closed. Declare the properties, or accept a JSON text in a string property.");
    CLIENT_KEYWORD = ("TG1007", "client-keyword", Warning, "a client refuses a keyword of a schema",
        "OpenAI's strict mode refuses `allOf`, `oneOf` (it takes `anyOf`), `not`, `if`/`then`/`else` and `dependentRequired`/`dependentSchemas` (developers.openai.com structured outputs); Gemini's `parameters` is an OpenAPI 3.0 subset and refuses any other keyword as an unknown field (`propertyNames`, `exclusiveMinimum`, `const`, `oneOf`, `additionalProperties`, `pattern`, ...: zendev-sh/zenflow#14). The client's variant drops such a keyword and says in the description what it asked for; the server still checks it.");
    CLIENT_TYPE_ARRAY = ("TG1008", "client-type-array", Warning, "a client refuses a list of types (`\"type\": [..]`)",
        "Gemini's `parameters` takes one type per schema (n8n-io/n8n#15553). The client's variant writes `[\"T\", \"null\"]` as `\"type\": \"T\", \"nullable\": true`, OpenAPI's way; other lists stay refused.");
    CLIENT_TYPE_BESIDE_ANY_OF = ("TG1009", "client-type-beside-any-of", Warning, "a client refuses `type` beside `anyOf`",
        "Gemini refuses a schema with both `type` and `anyOf` (evcc-io/evcc#22400). Move the type into each branch.");
    CLIENT_ENUM_TYPE = ("TG1010", "client-enum-type", Warning, "a client takes enums of strings only",
        "Gemini's `parameters` takes `enum` on strings only. Use a string enum, or the numbers' `minimum`/`maximum`.");
    CLIENT_FORMAT = ("TG1011", "client-format", Warning, "a client refuses a `format`",
        "OpenAI's strict mode takes only `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6` and `uuid` (and refuses `uri`: posit-dev/chatlas#255); Gemini only `enum` and `date-time` on strings and `int32`, `int64`, `float`, `double` on numbers. The client's variant moves the format into the description; the server still checks it.");
    CLIENT_STRICT_REQUIRED = ("TG1012", "client-strict-required", Note, "OpenAI's strict mode needs every property required: the variant makes it required and nullable",
        "In strict mode every property of an object must be in `required`; an optional one is written required with `null` allowed (`[\"T\", \"null\"]`). The client's variant of the catalog does so, and the server maps a `null` it receives for such a property back to an absent one before validation: handlers never see the difference.");
    CLIENT_STRICT_CLOSED = ("TG1013", "client-strict-closed", Note, "OpenAI's strict mode needs every object closed: the variant adds `additionalProperties: false`",
        "In strict mode every object needs `additionalProperties: false`. The client's variant of the catalog adds it; arguments the client sends are unchanged.");
    CLIENT_REF_INLINED = ("TG1014", "client-ref-inlined", Note, "a client does not resolve `$ref`s: the variant inlines them",
        "Gemini's `parameters` has no `$ref`; Claude Desktop and VS Code strip `$defs` (PrefectHQ/fastmcp#2814, #2808); gemini-cli fails on some (#13326). The client's variant writes each reference's target in its place.");
    CLIENT_RECURSION = ("TG1015", "client-recursion", Warning, "a client cannot take a recursive schema",
        "A schema that refers to itself (a tree) cannot be inlined for a client that does not resolve `$ref`s: Gemini's `parameters`, Claude Desktop, VS Code. The variant for such a client cannot be written: `toolgen gen` with such a client refuses the tool. Bound the depth (a `children` of a fixed depth), or leave the client out.");
    CLIENT_REF_SIBLING = ("TG1016", "client-ref-sibling", Warning, "a client refuses keywords beside `$ref`",
        "OpenAI's strict mode refuses a `$ref` with other keywords beside it (developers.openai.com structured outputs). Put the keywords into the definition, or wrap: `{\"allOf\": [{\"$ref\": ..}], ..}` is refused too, so move them.");
    CLIENT_LIMITS = ("TG1017", "client-limits", Warning, "a schema is larger than a client takes",
        "OpenAI's strict mode takes at most 10 levels of nested objects, 5,000 properties in all and 1,000 values in one enum (developers.openai.com structured outputs). Flatten the schema or split the tool.");
    CLIENT_STRUCTURED_ONLY = ("TG1018", "client-structured-only", Note, "Claude Code shows the model only the structured content",
        "When a result has `structuredContent`, Claude Code passes only its JSON to the model (anthropics/claude-code#9962, #55677): content blocks the tool returns beside it (an image, a resource) do not reach the model. Put what the model must see into the structured output, or return the blocks alone.");
}

/// Why an error rule stays an error (a manifest's `lints` and `--allow`/`--warn`
/// cannot lower it): toolgen could not generate faithful output from such a
/// spec, or the spec format's own definition makes it invalid. `None` for
/// warnings, notes and the breaking-change rules, whose level the author sets
/// (a test holds every other rule to a reason).
pub fn why_an_error(rule: &Rule) -> Option<&'static str> {
    if rule.is_configurable() {
        return None;
    }
    const NOTHING_TO_READ: &str =
        "there is no spec to generate from: the file cannot be read as one";
    const FORMAT: &str = "the spec format's own definition makes such a spec invalid: toolgen would have to guess what it means";
    const POLICY: &str = "the tool set's manifest (or the format's standard list) declares the allowed values: it is the author's own rule, written to be enforced; change the manifest to change it";
    Some(match rule.code {
        "TG0001" | "TG0003" | "TG0004" | "TG0005" | "TG0008" => NOTHING_TO_READ,
        "TG0002" => {
            "the file is refused before it is read, so that a stray data file cannot exhaust memory; raise the limit with `--max-file-size` instead"
        }
        "TG0006" => {
            "JSON parsers disagree about which of two equal keys wins, so no output can be faithful to both"
        }
        "TG0007" => {
            "deeper nesting would exhaust the stack of later stages and of the clients that read the schema"
        }
        "TG0009" => "there is nothing to generate",
        "TG0101" | "TG0102" | "TG0103" | "TG0104" | "TG0105" | "TG0206" => FORMAT,
        "TG0201" => {
            "EditorMCP's definition of an id; ids become the file and type names of every output"
        }
        "TG0202" => {
            "two tools with one name cannot both be listed or called, and their files would overwrite each other"
        }
        "TG0203" => {
            "the id becomes a file name: it would write outside the output directory or fail on some platforms"
        }
        "TG0204" | "TG0207" | "TG0208" | "TG0212" => POLICY,
        "TG0205" => {
            "categories name the sections of the docs site and of the generated code; EditorMCP's definition fixes their form"
        }
        "TG0211" => {
            "the runtime enforces the limit: a zero or negative one would refuse every call, and one past an hour is past what the bridges keep a call open"
        }
        "TG0301" => {
            "EditorMCP parameter names become field names in generated Rust and C#, which the format defines as identifiers"
        }
        "TG0302" => {
            "a type JSON Schema does not have: no validator and no generated type can say what it means"
        }
        "TG0304" | "TG0306" | "TG0314" => {
            "generated code fills the default in as a typed value, and a client that omits the parameter gets it: a default its own schema refuses cannot be either"
        }
        "TG0305" => {
            "generated enums are made of the listed values: a value of another type, a repeated one or none at all gives types that accept what the schema refuses"
        }
        "TG0308" => {
            "the format's definition asks every array to declare its items (NOTES point 7); without them the generated types could only guess"
        }
        "TG0310" => {
            "a reference to nothing: neither the validators nor the generated types can know the shape"
        }
        "TG0312" => {
            "the JSON Schema validator cannot compile the schema, so arguments could not be checked"
        }
        "TG0401" | "TG0402" => {
            "examples are published in the docs and catalog and run by the tests: one the tool's own schema refuses would document a call the server refuses"
        }
        "TG0501" => {
            "tool set names become directory and module names: two would overwrite each other"
        }
        "TG0502" => "a tool set has one format; a file of another cannot be read as its specs",
        "TG0504" => "the name becomes directory, module and namespace names of generated code",
        "TG0601" => "RAVE's definition: R's `mcptool_list()` finds a tool by its file name",
        "TG0701" => "the keyword has no faithful mapping to the generated Rust and C# types",
        "TG0703" => "a reference loop that never gives a shape has no type",
        "TG0801" => "no Rust types could be generated for the schema",
        "TG0802" => "the output of a template that cannot be rendered is unknown",
        _ => return None,
    })
}

/// Looks a rule up by code (`TG0304`) or name (`default-type-mismatch`).
pub fn find_rule(key: &str) -> Option<&'static Rule> {
    rule::ALL
        .iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(key) || r.name == key)
}

crate::text::word_enum! {
    /// The level a rule is set to, by a manifest's `lints` or by `--allow`,
    /// `--warn` and `--deny` on the command line.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum LintLevel {
        /// Not reported.
        Allow = "allow",
        /// Reported as a warning.
        Warn = "warn",
        /// Reported as an error: the run fails.
        Deny = "deny",
    }
}

/// The categories of `toolgen breaking`'s rules, as a manifest's
/// `breaking.off` names them.
pub const BREAKING_CATEGORIES: &[&str] = &[
    "tools",
    "inputs",
    "outputs",
    "behaviour",
    "generated",
    "metadata",
];

impl Rule {
    /// The category of a breaking-change rule (`None` for other rules).
    pub fn breaking_category(&self) -> Option<&'static str> {
        if !self.is_breaking() {
            return None;
        }
        Some(match self.code.as_bytes().get(4) {
            Some(b'0') => "tools",
            Some(b'1') => "inputs",
            Some(b'2') => "outputs",
            Some(b'3') => "behaviour",
            Some(b'4') => "generated",
            _ => "metadata",
        })
    }

    /// Whether a manifest or the command line may change this rule's level.
    /// Errors stay errors: they mean that a spec cannot be read or generated
    /// faithfully, and output is never produced from such a spec. Warnings and
    /// notes (style, real-world looseness that is normalized) can be allowed,
    /// kept, or denied.
    ///
    /// Breaking-change rules (`TG09xx`, `toolgen breaking`) are the
    /// exception: they judge a change, not a spec, and accepting a breaking
    /// change deliberately is the author's call.
    pub fn is_configurable(&self) -> bool {
        self.severity != Severity::Error || self.is_breaking()
    }

    /// Whether this is a rule of `toolgen breaking`.
    pub fn is_breaking(&self) -> bool {
        self.code.starts_with("TG09")
    }
}

/// A rule given by code or name where one is configured (`--allow TG0603`,
/// `lints: {float-for-integer: allow}`), checked: unknown rules get a
/// suggestion, and error rules cannot be allowed or warned.
pub fn configurable_rule(key: &str, level: LintLevel) -> Result<&'static Rule, String> {
    let Some(rule) = find_rule(key) else {
        let mut names: Vec<&str> = rule::ALL.iter().map(|r| r.code).collect();
        names.extend(rule::ALL.iter().map(|r| r.name));
        let hint = did_you_mean(key, names.iter().copied())
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_else(|| "; `toolgen rules` lists them".to_owned());
        return Err(format!("no rule `{key}`{hint}"));
    };
    if !rule.is_configurable() && level != LintLevel::Deny {
        return Err(format!(
            "{} ({}) is an error and cannot be set to `{}`: {}; only warnings and notes can be allowed",
            rule.code,
            rule.name,
            level.as_str(),
            why_an_error(rule).unwrap_or("the spec cannot be generated faithfully")
        ));
    }
    Ok(rule)
}

/// A secondary location with its own message.
#[derive(Clone, Debug)]
pub struct Label {
    pub loc: Loc,
    pub message: String,
}

/// One problem found in the input.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub rule: &'static Rule,
    pub message: String,
    /// Where the problem is; `None` only for problems that concern no file.
    pub loc: Option<Loc>,
    /// Text shown under the primary caret.
    pub label: Option<String>,
    pub secondary: Vec<Label>,
    /// How to fix it, where that is clear.
    pub help: Option<String>,
    /// A path that could not be opened (for problems that have no text to point into).
    pub path: Option<String>,
    /// An edit that fixes it, where the fix is certain enough to apply
    /// (what an editor offers as a quick fix).
    pub fix: Option<Fix>,
}

/// An edit that fixes a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the editor shows: "Replace with `tier2`".
    pub title: String,
    /// Where: the value or key to replace, or an empty span to insert at.
    pub loc: Loc,
    pub edit: Edit,
}

/// What a [`Fix`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// This word in place of the scalar (a key or a value) at the fix's
    /// span, quoted as the scalar was.
    Word(String),
    /// A member `"key": value` at the start of the object whose opening
    /// brace the fix's span is.
    Member { key: String, value: String },
}

impl Diagnostic {
    pub fn new(rule: &'static Rule, loc: Option<Loc>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: rule.severity,
            rule,
            message: message.into(),
            loc,
            label: None,
            secondary: Vec::new(),
            help: None,
            path: None,
            fix: None,
        }
    }

    pub fn at(rule: &'static Rule, loc: Loc, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(rule, Some(loc), message)
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    pub fn secondary(mut self, loc: Loc, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            loc,
            message: message.into(),
        });
        self
    }

    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    fn sort_key(&self, db: &SourceDb) -> (String, usize, usize, &'static str, String) {
        match self.loc {
            Some(loc) => {
                let lc = db.line_col(loc);
                (
                    db.get(loc.file).display.clone(),
                    lc.line,
                    lc.column,
                    self.rule.code,
                    self.message.clone(),
                )
            }
            None => (
                self.path.clone().unwrap_or_default(),
                0,
                0,
                self.rule.code,
                self.message.clone(),
            ),
        }
    }
}

/// The diagnostics of one run.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Makes errors of the diagnostics from the `from`th on whose rule is one
    /// of `rules` (those a format's own definition forbids).
    pub fn raise(&mut self, from: usize, rules: &[&'static Rule]) {
        for d in self.items.iter_mut().skip(from) {
            if rules.iter().any(|r| std::ptr::eq(*r, d.rule)) {
                d.severity = Severity::Error;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.items.iter().filter(|d| d.severity == severity).count()
    }

    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// Orders diagnostics by file, line, column and code, and removes exact repeats,
    /// so that output does not depend on the order in which files were read.
    pub fn sort(&mut self, db: &SourceDb) {
        let mut keyed: Vec<_> = std::mem::take(&mut self.items)
            .into_iter()
            .map(|d| (d.sort_key(db), d))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        keyed.dedup_by(|a, b| a.0 == b.0);
        self.items = keyed.into_iter().map(|(_, d)| d).collect();
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }
}

/// Renders diagnostics for people, in the style of rustc.
pub struct HumanRenderer<'a> {
    pub db: &'a SourceDb,
    pub color: bool,
}

impl HumanRenderer<'_> {
    /// The diagnostic as rustc shows one (annotate-snippets): the message, each
    /// location's line with its span marked (the primary one `^`, related
    /// ones `-`), and the help.
    pub fn render(&self, d: &Diagnostic) -> String {
        use annotate_snippets::{Level, Renderer, Snippet};
        let level = match d.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Note => Level::Note,
        };
        // annotate-snippets marks an `Error` span `^` and a `Warning` one `-`,
        // both without a prefix to their label: the primary and related places.
        let mut places: Vec<(Loc, &str, Level)> = Vec::new();
        if let Some(loc) = d.loc {
            places.push((loc, d.label.as_deref().unwrap_or_default(), Level::Error));
        }
        for s in &d.secondary {
            places.push((s.loc, s.message.as_str(), Level::Warning));
        }
        let mut message = level.title(&d.message).id(d.rule.code);
        for (loc, label, level) in places {
            let file = self.db.get(loc.file);
            // Only the lines of the span: the renderer need not scan the file.
            let (line, from, text) = file.lines_of(loc.span.start as usize, loc.span.end as usize);
            let start = (loc.span.start as usize)
                .saturating_sub(from)
                .min(text.len());
            let end = (loc.span.end as usize)
                .saturating_sub(from)
                .clamp(start, text.len());
            // A span at the very end of a file whose last line ends is shown
            // at the end of that line, as rustc shows one.
            let (line, text, start, end) = match from.checked_sub(1) {
                Some(last) if text.is_empty() => {
                    let (line, _, prev) = file.lines_of(last, last);
                    (line, prev, prev.len(), prev.len())
                }
                _ => (line, text, start, end),
            };
            message = message.snippet(
                Snippet::source(text)
                    .line_start(line)
                    .origin(&file.display)
                    .annotation(level.span(start..end).label(label)),
            );
        }
        if let (true, Some(p)) = (d.loc.is_none() && d.secondary.is_empty(), &d.path) {
            message = message.footer(Level::Note.title(p));
        }
        if let Some(help) = &d.help {
            message = message.footer(Level::Help.title(help));
        }
        let renderer = if self.color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        format!("{}\n", renderer.render(message))
    }
}

/// Renders one diagnostic as a single-line JSON object (`--message-format json`).
pub fn render_json(db: &SourceDb, d: &Diagnostic) -> String {
    let loc_json = |loc: Loc| {
        let file = db.get(loc.file);
        let s = file.line_col(loc.span.start);
        let e = file.line_col(loc.span.end);
        json!({
            "file": file.display,
            "line": s.line,
            "column": s.column,
            "endLine": e.line,
            "endColumn": e.column,
            "byteStart": loc.span.start,
            "byteEnd": loc.span.end,
        })
    };
    let mut v = json!({
        "severity": d.severity.as_str(),
        "code": d.rule.code,
        "rule": d.rule.name,
        "message": d.message,
    });
    if let Some(loc) = d.loc {
        let mut l = loc_json(loc);
        if let Some(label) = &d.label {
            l["label"] = json!(label);
        }
        v["location"] = l;
    } else if let Some(p) = &d.path {
        v["location"] = json!({ "file": p });
    }
    if !d.secondary.is_empty() {
        v["related"] = d
            .secondary
            .iter()
            .map(|s| {
                let mut l = loc_json(s.loc);
                l["message"] = json!(s.message);
                l
            })
            .collect();
    }
    if let Some(help) = &d.help {
        v["help"] = json!(help);
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_rule_says_why_it_cannot_be_lowered() {
        for r in rule::ALL {
            assert_eq!(
                why_an_error(r).is_some(),
                !r.is_configurable(),
                "{}",
                r.code
            );
        }
    }

    #[test]
    fn rule_codes_and_names_are_unique_and_sorted() {
        let mut codes: Vec<_> = rule::ALL.iter().map(|r| r.code).collect();
        let sorted = {
            let mut s = codes.clone();
            s.sort_unstable();
            s
        };
        assert_eq!(codes, sorted, "rules must be listed in code order");
        codes.dedup();
        assert_eq!(codes.len(), rule::ALL.len());
        let mut names: Vec<_> = rule::ALL.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), rule::ALL.len());
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("requried", ["required", "type"]),
            Some("required")
        );
        assert_eq!(
            did_you_mean("safetylevel", ["safetyLevel"]),
            Some("safetyLevel")
        );
        assert_eq!(did_you_mean("zzz", ["required"]), None);
    }
}
