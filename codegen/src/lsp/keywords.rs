//! The JSON Schema keywords a tool's schemas are written in (MCP's
//! `inputSchema`, RAVE's `parameters`, a `*.schema.json` document), with
//! what each means: the format schemas leave a tool's own schemas open, so
//! completion and hover inside one come from here.

use super::cursor::Seg;
use super::world::Kind;
use crate::ir::Format;

/// Each keyword, what its value is, and what it means.
pub const KEYWORDS: &[(&str, &str, &str)] = &[
    (
        "type",
        "string",
        "The JSON type of the value: `string`, `number`, `integer`, `boolean`, `object`, `array` or `null` (or a list of them).",
    ),
    (
        "description",
        "string",
        "What the value means, for people and for the model.",
    ),
    ("title", "string", "A short name of the value."),
    (
        "properties",
        "object",
        "An object's members, by name: each a schema.",
    ),
    ("required", "array", "The members an object must have."),
    (
        "additionalProperties",
        "schema",
        "Members not named in `properties`: `false` refuses them, a schema types them.",
    ),
    (
        "patternProperties",
        "object",
        "Members whose names match a regular expression, by pattern.",
    ),
    (
        "propertyNames",
        "schema",
        "A schema every member name must match.",
    ),
    (
        "minProperties",
        "integer",
        "The fewest members an object may have.",
    ),
    (
        "maxProperties",
        "integer",
        "The most members an object may have.",
    ),
    ("items", "schema", "The schema of every item of an array."),
    ("minItems", "integer", "The fewest items an array may have."),
    ("maxItems", "integer", "The most items an array may have."),
    (
        "uniqueItems",
        "boolean",
        "Whether an array's items must all differ.",
    ),
    ("enum", "array", "The values allowed, listed."),
    ("const", "any", "The one value allowed."),
    (
        "default",
        "any",
        "The value a caller who leaves this out gets; must fit the schema.",
    ),
    ("examples", "array", "Values that fit, shown in the docs."),
    ("minimum", "number", "The smallest number allowed."),
    ("maximum", "number", "The largest number allowed."),
    (
        "exclusiveMinimum",
        "number",
        "Numbers must be larger than this.",
    ),
    (
        "exclusiveMaximum",
        "number",
        "Numbers must be smaller than this.",
    ),
    (
        "multipleOf",
        "number",
        "Numbers must be a multiple of this.",
    ),
    (
        "minLength",
        "integer",
        "The fewest characters a string may have.",
    ),
    (
        "maxLength",
        "integer",
        "The most characters a string may have.",
    ),
    (
        "pattern",
        "string",
        "A regular expression (ECMA-262) a string must match.",
    ),
    (
        "format",
        "string",
        "A string's format: `date-time`, `date`, `email`, `uri`, `uuid`, …",
    ),
    (
        "anyOf",
        "array",
        "The value fits at least one of these schemas.",
    ),
    (
        "oneOf",
        "array",
        "The value fits exactly one of these schemas.",
    ),
    (
        "allOf",
        "array",
        "The value fits every one of these schemas.",
    ),
    ("not", "schema", "The value must not fit this schema."),
    (
        "$ref",
        "string",
        "The schema is the one at this reference: `#/$defs/NAME`, `#/definitions/NAME`, or another `*.schema.json` file (with a `#/…` pointer into it).",
    ),
    ("$defs", "object", "Schemas by name, for `$ref`s to use."),
    (
        "definitions",
        "object",
        "Schemas by name, for `$ref`s to use (draft 7's `$defs`).",
    ),
    (
        "deprecated",
        "boolean",
        "Whether callers should stop using the value.",
    ),
    (
        "readOnly",
        "boolean",
        "Whether the value is only ever returned, never sent.",
    ),
    (
        "writeOnly",
        "boolean",
        "Whether the value is only ever sent, never returned.",
    ),
    (
        "contentMediaType",
        "string",
        "The MIME type of a string's content.",
    ),
    (
        "contentEncoding",
        "string",
        "How a string's content is encoded (`base64`).",
    ),
    (
        "$schema",
        "string",
        "The JSON Schema draft the document is written in.",
    ),
    (
        "$id",
        "string",
        "The document's URI, by which other documents `$ref` it.",
    ),
    (
        "$comment",
        "string",
        "A note for the schema's authors; ignored.",
    ),
];

/// The JSON types, for `type`.
pub const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Common string formats, for `format`.
pub const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
    "regex",
];

pub fn doc(keyword: &str) -> Option<&'static str> {
    KEYWORDS
        .iter()
        .find(|(k, ..)| *k == keyword)
        .map(|(_, _, d)| *d)
}

/// Whether `path` (to an object) is inside a tool's own JSON Schema.
pub fn in_schema(kind: Kind, path: &[Seg]) -> bool {
    let key = |i: usize| match path.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    let start = match kind {
        Kind::SchemaFile => 0,
        Kind::Spec(Format::Mcp) if matches!(key(0), Some("inputSchema" | "outputSchema")) => 1,
        Kind::Spec(Format::Rave) if matches!(key(0), Some("parameters" | "returns")) => 1,
        // EditorMCP's parameters are the format's own, but for the schemas
        // their `definitions`, `properties` and `items` hold.
        Kind::Spec(Format::EditorMcp) if matches!(key(0), Some("inputs" | "outputs")) => 2,
        Kind::Spec(Format::EditorMcp) if key(0) == Some("definitions") => 2,
        _ => return false,
    };
    if path.len() < start {
        return false;
    }
    // Down from a schema: each step is a keyword that holds a schema, or a
    // name or index under one that holds several.
    let mut i = start;
    while i < path.len() {
        let step = match (key(i), path.get(i + 1)) {
            (Some("items" | "additionalProperties" | "not" | "propertyNames"), _) => 1,
            (Some("properties" | "patternProperties" | "$defs" | "definitions"), Some(_)) => 2,
            (Some("anyOf" | "oneOf" | "allOf" | "prefixItems"), Some(Seg::Index)) => 2,
            (None, _) if i > 0 && key(i - 1) == Some("items") => 1,
            _ => return false,
        };
        i += step;
    }
    i == path.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<Seg> {
        (p.split('/').filter(|s| !s.is_empty()))
            .map(|s| {
                if s == "[]" {
                    Seg::Index
                } else {
                    Seg::Key(s.to_owned())
                }
            })
            .collect()
    }

    #[test]
    fn schema_positions() {
        let mcp = Kind::Spec(Format::Mcp);
        assert!(in_schema(mcp, &path("inputSchema")));
        assert!(in_schema(mcp, &path("inputSchema/properties/x")));
        assert!(in_schema(
            mcp,
            &path("inputSchema/properties/x/items/anyOf/[]")
        ));
        assert!(!in_schema(mcp, &path("inputSchema/properties")));
        assert!(!in_schema(mcp, &path("annotations")));
        let rave = Kind::Spec(Format::Rave);
        assert!(in_schema(rave, &path("returns/properties/settings")));
        let em = Kind::Spec(Format::EditorMcp);
        assert!(!in_schema(em, &path("inputs")));
        assert!(in_schema(em, &path("inputs/x")));
        assert!(in_schema(em, &path("definitions/Vec3/properties/x")));
        assert!(in_schema(Kind::SchemaFile, &path("")));
        assert!(in_schema(Kind::SchemaFile, &path("$defs/A")));
    }
}
