//! Format-independent validation of the IR.
//!
//! These rules hold for every input format: tool-set membership (categories,
//! tiers, safety levels), id uniqueness and path safety, schema sanity
//! (defaults, enums, ranges, items, required), and examples checked against
//! the schemas with a real JSON Schema validator.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::cache::keys::Keys;
use crate::cache::keys::PieceCache;
use crate::diag::{Diagnostic, Diagnostics, rule};
use crate::ir::{LocatedValue, Project, Schema, Tool, ToolSet};
use crate::schema::pointer_join;
use crate::schema::{types_of, value_has_type, walk};
use crate::text::{did_you_mean, list};

/// Runs every IR-level rule over `project`.
///
/// The rules of one tool read only that tool and its set, so the tools are
/// checked on every core; what each tool gets is added in tool order, so
/// the result does not depend on timing. With a cache (and the project's
/// [`Keys`]), a tool an earlier run found clean under the same key (its
/// digest and its set's settings) is not checked again: compiling its
/// schemas to check its examples is most of the work.
pub fn validate(
    project: &Project,
    cache: Option<(&dyn PieceCache, &Keys)>,
    diags: &mut Diagnostics,
) {
    for set in &project.tool_sets {
        check_ids(set, diags);
        let per_tool = crate::par::map(set.tools.len(), |i| {
            let mut found = Diagnostics::default();
            let key = cache.and_then(|(c, keys)| {
                let key = keys.piece(set, i, |h| {
                    h.str("validation: clean");
                })?;
                Some((c, key))
            });
            if key.is_some_and(|(c, k)| c.get(k).is_some_and(|v| v == CLEAN)) {
                return found;
            }
            check_tool(set, &set.tools[i], &mut found);
            if let (Some((c, k)), true) = (key, found.is_empty()) {
                c.put(k, CLEAN);
            }
            found
        });
        for found in per_tool {
            diags.extend(found);
        }
    }
}

/// What the cache holds for a tool found clean.
const CLEAN: &[u8] = b"clean";

/// The rules of one tool.
fn check_tool(set: &ToolSet, tool: &Tool, diags: &mut Diagnostics) {
    check_membership(set, tool, diags);
    let from = diags.len();
    check_schema(&tool.input, set.arrays_need_items, diags);
    check_schema(&tool.output, set.arrays_need_items, diags);
    check_with_validator(tool, diags);
    diags.raise(from, set.format_errors);
}

/// Why `id` is not safe to use as a file name, if it is not.
pub fn path_problem(id: &str) -> Option<&'static str> {
    const RESERVED: &[&str] = &[
        "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
        "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
    ];
    if id.contains('/') || id.contains('\\') {
        return Some("contains a path separator");
    }
    if id.contains("..") {
        return Some("contains `..`");
    }
    if id.starts_with('.') {
        return Some("starts with a dot (a hidden file, or a relative path)");
    }
    if id.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if id.len() >= 2 && id.as_bytes()[1] == b':' {
        return Some("starts with a drive prefix");
    }
    if id
        .chars()
        .any(|c| matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*'))
    {
        return Some("contains a character that is not allowed in Windows file names");
    }
    let stem = id.split('.').next().unwrap_or(id).to_ascii_lowercase();
    if RESERVED.contains(&stem.as_str()) {
        return Some("starts with a reserved Windows device name");
    }
    if id.len() > 200 {
        return Some("is longer than 200 bytes");
    }
    None
}

fn check_ids(set: &ToolSet, diags: &mut Diagnostics) {
    let mut seen: BTreeMap<String, &Tool> = BTreeMap::new();
    // In file order, so that the later definition is the one reported.
    let mut tools: Vec<&Tool> = set.tools.iter().collect();
    tools.sort_by_key(|t| t.loc);
    for tool in tools {
        let id = &tool.id.value;
        if let Some(problem) = path_problem(id) {
            diags.push(
                Diagnostic::at(
                    &rule::ID_PATH_UNSAFE,
                    tool.id.loc,
                    format!("tool id `{id}` {problem}"),
                )
                .label("unsafe as a file name")
                .help("tool ids become file names of generated files; use dot-separated words"),
            );
        }
        let folded = id.to_lowercase();
        match seen.get(&folded) {
            Some(first) => {
                let same = first.id.value == *id;
                let message = if same {
                    format!("tool id `{id}` is defined twice in tool set `{}`", set.name)
                } else {
                    format!(
                        "tool ids `{}` and `{id}` differ only in letter case",
                        first.id.value
                    )
                };
                diags.push(
                    Diagnostic::at(&rule::DUPLICATE_ID, tool.id.loc, message)
                        .label(if same {
                            "duplicate id"
                        } else {
                            "collides with another id"
                        })
                        .secondary(first.id.loc, "first defined here")
                        .help("tool ids must be unique in a tool set; rename one of the tools"),
                );
            }
            None => {
                seen.insert(folded, tool);
            }
        }
    }
}

fn check_membership(set: &ToolSet, tool: &Tool, diags: &mut Diagnostics) {
    let cat = &tool.category.value;
    if !set.categories.is_empty() && !set.categories.iter().any(|c| c.id == *cat) {
        let ids: Vec<&str> = set.categories.iter().map(|c| c.id.as_str()).collect();
        let where_ = if set.manifest.is_some() {
            "its toolset.yaml"
        } else {
            "the format's standard categories"
        };
        diags.push(
            Diagnostic::at(
                &rule::UNKNOWN_CATEGORY,
                tool.category.loc,
                format!(
                    "category `{cat}` is not declared by tool set `{}`",
                    set.name
                ),
            )
            .label("unknown category")
            .help(match did_you_mean(cat, ids.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "categories of {where_}: {}; add new ones to the manifest's `categories`",
                    list(&ids)
                ),
            })
            .maybe_fix_word(did_you_mean(cat, ids.iter().copied())),
        );
    }
    let level = tool.safety.value;
    if !set.safety_levels.contains(&level) {
        let allowed: Vec<&str> = set.safety_levels.iter().map(|l| l.as_str()).collect();
        diags.push(
            Diagnostic::at(
                &rule::SAFETY_NOT_ALLOWED,
                tool.safety.loc,
                format!(
                    "safety level `{level}` is not allowed in tool set `{}`",
                    set.name
                ),
            )
            .label("not allowed here")
            .help(format!(
                "this tool set allows {}; change the tool or the manifest's `safetyLevels`",
                list(&allowed)
            )),
        );
    }
    let tier = &tool.tier.value;
    if let (Some(max), Some(rank)) = (&set.max_tier, set.tier_rank(tier)) {
        if set.tier_rank(max).is_some_and(|m| rank > m) {
            diags.push(
                Diagnostic::at(
                    &rule::TIER_NOT_ALLOWED,
                    tool.tier.loc,
                    format!(
                        "tier `{tier}` is above tool set `{}`'s `maxTier` `{max}`",
                        set.name
                    ),
                )
                .label("tier too high")
                .help(format!(
                    "use `{max}` or a lower tier, or raise the manifest's `maxTier`"
                )),
            );
        }
    }
    if set.tier_rank(tier).is_none() {
        let ids: Vec<&str> = set.tiers.iter().map(|t| t.id.as_str()).collect();
        let by_title = set.tiers.iter().find(|t| {
            t.title
                .as_deref()
                .is_some_and(|x| x.eq_ignore_ascii_case(tier))
        });
        let help = match by_title {
            Some(t) => format!(
                "`{tier}` is the display title of tier `{}`; write the id",
                t.id
            ),
            None => match did_you_mean(tier, ids.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("tiers of this tool set: {}", list(&ids)),
            },
        };
        diags.push(
            Diagnostic::at(
                &rule::UNKNOWN_TIER,
                tool.tier.loc,
                format!("tier `{tier}` is not declared by tool set `{}`", set.name),
            )
            .label("unknown tier")
            .help(help)
            .maybe_fix_word(
                by_title
                    .map(|t| t.id.as_str())
                    .or(did_you_mean(tier, ids.iter().copied())),
            ),
        );
    }
}

fn type_phrase(types: &BTreeSet<&str>) -> String {
    let v: Vec<&str> = types.iter().copied().collect();
    v.join(" or ")
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

fn check_schema(schema: &Schema, items_required: bool, diags: &mut Diagnostics) {
    walk(&schema.value, "", &mut |ptr, obj| {
        let sub = Subschema {
            schema,
            ptr,
            obj,
            types: types_of(obj),
        };
        sub.default_type(diags);
        sub.enumeration(diags);
        sub.ranges(diags);
        if items_required {
            sub.array_items(diags);
        }
        sub.constraint_types(diags);
        sub.required(diags);
    });
}

/// One subschema being checked: the schema it is part of (for locations),
/// where it is, its keywords and its declared types. Each schema rule is one
/// method.
struct Subschema<'s> {
    schema: &'s Schema,
    ptr: &'s str,
    obj: &'s serde_json::Map<String, Value>,
    types: BTreeSet<&'s str>,
}

impl Subschema<'_> {
    /// Where the keyword `key` of this subschema was written.
    fn at(&self, key: &str) -> Option<crate::source::Loc> {
        self.schema.locate(&pointer_join(self.ptr, key))
    }

    /// Whether `v` is of a declared type (any value, when none is declared).
    fn fits(&self, v: &Value) -> bool {
        self.types.is_empty() || self.types.iter().any(|t| value_has_type(v, t))
    }

    /// TG0304: the default is of the declared type.
    fn default_type(&self, diags: &mut Diagnostics) {
        let Some(default) = self.obj.get("default") else {
            return;
        };
        if self.fits(default) {
            return;
        }
        let types = &self.types;
        let hint = if types.contains("integer")
            && default.is_f64()
            && default.as_f64().is_some_and(|f| f.fract() == 0.0)
        {
            format!(
                "write `{}` without the decimal point",
                default.as_f64().unwrap_or(0.0) as i64
            )
        } else {
            format!(
                "use a value of type `{}`, or change the declared type",
                type_phrase(types)
            )
        };
        diags.push(
            Diagnostic::new(
                &rule::DEFAULT_TYPE,
                self.at("default"),
                format!(
                    "default `{}` is not of the declared type `{}`",
                    short(default),
                    type_phrase(types)
                ),
            )
            .label("wrong type")
            .help(hint),
        );
    }

    /// TG0305 and TG0306: enum values of the declared type, none twice, not
    /// empty, and the default one of them.
    fn enumeration(&self, diags: &mut Diagnostics) {
        let Some(values) = self.obj.get("enum").and_then(Value::as_array) else {
            return;
        };
        if values.is_empty() {
            diags.push(
                Diagnostic::new(
                    &rule::ENUM_TYPE,
                    self.at("enum"),
                    "`enum` is empty: no value would be accepted",
                )
                .label("empty enum")
                .help("list the allowed values, or remove `enum`"),
            );
            return;
        }
        for (i, v) in values.iter().enumerate() {
            let at = self
                .schema
                .locate(&format!("{}/{i}", pointer_join(self.ptr, "enum")));
            if !self.fits(v) {
                diags.push(
                    Diagnostic::new(
                        &rule::ENUM_TYPE,
                        at,
                        format!(
                            "enum value `{}` is not of the declared type `{}`",
                            short(v),
                            type_phrase(&self.types)
                        ),
                    )
                    .label("wrong type"),
                );
            }
            if values[..i].contains(v) {
                diags.push(
                    Diagnostic::new(
                        &rule::ENUM_TYPE,
                        at,
                        format!("enum value `{}` is listed twice", short(v)),
                    )
                    .label("duplicate value")
                    .help("remove the repeated value"),
                );
            }
        }
        if let Some(default) = self.obj.get("default").filter(|d| !values.contains(d)) {
            let shown: Vec<String> = values.iter().map(short).collect();
            let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
            diags.push(
                Diagnostic::new(
                    &rule::DEFAULT_NOT_IN_ENUM,
                    self.at("default"),
                    format!("default `{}` is not one of the enum values", short(default)),
                )
                .label("not in `enum`")
                .help(format!("use one of {}", list(&shown))),
            );
        }
    }

    /// TG0307: no lower bound above its upper bound.
    fn ranges(&self, diags: &mut Diagnostics) {
        for (lo, hi) in [
            ("minimum", "maximum"),
            ("exclusiveMinimum", "exclusiveMaximum"),
            ("minimum", "exclusiveMaximum"),
            ("exclusiveMinimum", "maximum"),
            ("minLength", "maxLength"),
            ("minItems", "maxItems"),
            ("minProperties", "maxProperties"),
        ] {
            let (Some(l), Some(h)) = (
                self.obj.get(lo).and_then(Value::as_f64),
                self.obj.get(hi).and_then(Value::as_f64),
            ) else {
                continue;
            };
            let strict = lo.starts_with("exclusive") || hi.starts_with("exclusive");
            if l > h || (strict && l >= h) {
                let mut d = Diagnostic::new(
                    &rule::RANGE_INVERTED,
                    self.at(lo),
                    format!(
                        "`{lo}` ({l}) is {} `{hi}` ({h}): no value can satisfy both",
                        if l > h { "greater than" } else { "equal to" }
                    ),
                )
                .label("lower bound")
                .help("swap the bounds, or fix one of them");
                if let Some(hl) = self.at(hi) {
                    d = d.secondary(hl, "upper bound");
                }
                diags.push(d);
            }
        }
    }

    /// TG0308: arrays declare their items (where the format asks for it).
    fn array_items(&self, diags: &mut Diagnostics) {
        if self.types.contains("array")
            && !self.obj.contains_key("items")
            && !self.obj.contains_key("prefixItems")
        {
            diags.push(
                Diagnostic::new(
                    &rule::ARRAY_ITEMS,
                    self.schema.locate(self.ptr),
                    "array does not declare the type of its items",
                )
                .label("`items` missing")
                .help("add `\"items\": {\"type\": \"string\"}` (or the item type it holds)"),
            );
        }
    }

    /// TG0311: constraints apply to the declared type.
    fn constraint_types(&self, diags: &mut Diagnostics) {
        if self.types.is_empty() {
            return;
        }
        let groups: [(&[&str], &[&str], &str); 3] = [
            (
                &[
                    "minimum",
                    "maximum",
                    "exclusiveMinimum",
                    "exclusiveMaximum",
                    "multipleOf",
                ],
                &["integer", "number"],
                "numbers",
            ),
            (
                &["minLength", "maxLength", "pattern"],
                &["string"],
                "strings",
            ),
            (
                &["minItems", "maxItems", "uniqueItems"],
                &["array"],
                "arrays",
            ),
        ];
        for (keys, applies_to, noun) in groups {
            if applies_to.iter().any(|t| self.types.contains(t)) {
                continue;
            }
            for k in keys.iter().filter(|k| self.obj.contains_key(**k)) {
                diags.push(
                    Diagnostic::new(
                        &rule::CONSTRAINT_TYPE,
                        self.at(k),
                        format!(
                            "`{k}` only applies to {noun}, but the type is `{}`",
                            type_phrase(&self.types)
                        ),
                    )
                    .label("ignored by validators")
                    .help(format!("remove `{k}`, or change the type")),
                );
            }
        }
    }

    /// TG0313 and TG0303: `required` names declared properties, which have
    /// no default.
    fn required(&self, diags: &mut Diagnostics) {
        let Some(Value::Array(required)) = self.obj.get("required") else {
            return;
        };
        let props = self.obj.get("properties").and_then(Value::as_object);
        for name in required.iter().filter_map(Value::as_str) {
            match props.map(|p| p.get(name)) {
                Some(None) => {
                    let names: Vec<&str> = props
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    diags.push(
                        Diagnostic::new(
                            &rule::UNKNOWN_REQUIRED,
                            self.at("required"),
                            format!("`required` names `{name}`, which is not a declared property"),
                        )
                        .label("unknown property")
                        .maybe_help(
                            did_you_mean(name, names.iter().copied())
                                .map(|s| format!("did you mean `{s}`?")),
                        ),
                    );
                }
                Some(Some(p)) if p.get("default").is_some() => {
                    let pp = pointer_join(&pointer_join(self.ptr, "properties"), name);
                    let mut d = Diagnostic::new(
                        &rule::REQUIRED_WITH_DEFAULT,
                        self.schema.locate(&pointer_join(&pp, "default")),
                        format!("`{name}` is required but has a default value"),
                    )
                    .label("default of a required parameter")
                    .help("remove the default, or make the parameter optional");
                    if let Some(r) = self.schema.locs.get(&format!("{pp}/@required")) {
                        d = d.secondary(*r, "declared required here");
                    }
                    diags.push(d);
                }
                _ => {}
            }
        }
    }
}

fn compile(schema: &Schema, diags: &mut Diagnostics) -> Option<jsonschema::Validator> {
    if schema.value.is_null() {
        return None; // no schema declared (an MCP tool without outputSchema)
    }
    if has_foreign_ref(&schema.value) {
        return None; // an unresolved `$ref`, already reported by the bundler
    }
    match jsonschema::options()
        .with_draft(crate::schema::draft_of(&schema.value))
        .build(&schema.value)
    {
        Ok(v) => Some(v),
        Err(e) => {
            // The builder stops at the first problem; the meta-schema names them all, each
            // at its own place. What the meta-schema allows but the builder refuses (a
            // pointer to nothing, a bad regex) is the builder's one error.
            let meta = jsonschema::meta::validator_for(&schema.value)
                .unwrap_or_else(|_| jsonschema::draft202012::meta::validator());
            let mut problems: Vec<(String, String)> = meta
                .iter_errors(&schema.value)
                .map(|m| (m.instance_path().as_str().to_owned(), m.to_string()))
                .collect();
            if problems.is_empty() {
                problems.push((e.instance_path().as_str().to_owned(), e.to_string()));
            }
            problems.dedup();
            for (ptr, message) in problems {
                diags.push(
                    Diagnostic::new(
                        &rule::INVALID_SCHEMA,
                        schema.locate(&ptr),
                        format!("invalid schema: {message}"),
                    )
                    .label("rejected by the JSON Schema validator"),
                );
            }
            None
        }
    }
}

/// Whether a schema still holds a `$ref` that is not a pointer into itself.
fn has_foreign_ref(v: &Value) -> bool {
    crate::schema::any_ref(v, &|r| r != "#" && !r.starts_with("#/"))
}

/// Compiles the tool's schemas with the JSON Schema validator, then checks
/// what needs it: every default against its schema, every example against
/// the input and output schemas.
fn check_with_validator(tool: &Tool, diags: &mut Diagnostics) {
    let input = compile(&tool.input, diags);
    let output = compile(&tool.output, diags);
    for (schema, compiled) in [(&tool.input, &input), (&tool.output, &output)] {
        if compiled.is_some() {
            check_defaults(schema, diags);
        }
    }
    for (i, ex) in tool.examples.iter().enumerate() {
        let n = i + 1;
        if let Some(v) = &input {
            report_instance(
                v,
                &ex.input,
                &rule::EXAMPLE_INPUT,
                &format!("example {n} input"),
                diags,
            );
        }
        if let (Some(v), Some(out)) = (&output, &ex.output) {
            report_instance(
                v,
                out,
                &rule::EXAMPLE_OUTPUT,
                &format!("example {n} output"),
                diags,
            );
        }
    }
}

/// Every `default` against the schema it sits in, with the JSON Schema
/// validator (TG0314). A default that an earlier rule already reported (its
/// type, its enum) is not reported twice; a schema that refers to anything but
/// its own definitions (`"$ref": "#"`, a pointer into its properties) is left
/// to those rules, since it cannot be checked apart from its root.
fn check_defaults(schema: &Schema, diags: &mut Diagnostics) {
    let mut found = Vec::new();
    walk(&schema.value, "", &mut |ptr, obj| {
        if let Some(violation) = crate::schema::default_violation(&schema.value, obj) {
            found.push((ptr.to_owned(), violation));
        }
    });
    for (ptr, (at, error)) in found {
        let loc = schema.locate(&pointer_join(&ptr, "default"));
        if diags.iter().any(|d| d.loc == loc) {
            continue;
        }
        let place = match at.as_str() {
            "" => String::new(),
            p => format!(" at `{p}`"),
        };
        diags.push(
            Diagnostic::new(
                &rule::DEFAULT_INVALID,
                loc,
                format!("the default{place} does not match its schema: {error}"),
            )
            .label("invalid default")
            .help("change the default to a value the schema accepts, or remove it"),
        );
    }
}

fn report_instance(
    validator: &jsonschema::Validator,
    instance: &LocatedValue,
    rule: &'static crate::diag::Rule,
    what: &str,
    diags: &mut Diagnostics,
) {
    for e in validator.iter_errors(&instance.value) {
        let ptr = e.instance_path().as_str().to_owned();
        let place = if ptr.is_empty() {
            String::new()
        } else {
            format!(" at `{ptr}`")
        };
        diags.push(
            Diagnostic::new(
                rule,
                instance.locate(&ptr),
                format!("{what}{place} does not match the schema: {e}"),
            )
            .label("does not match the schema"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Loc, Span};
    use serde_json::json;

    fn schema(value: Value) -> Schema {
        let mut locs = std::collections::BTreeMap::new();
        locs.insert(String::new(), Loc::new(FileId(0), Span::new(0, 1)));
        locs.insert("/required".to_owned(), Loc::new(FileId(0), Span::new(5, 9)));
        Schema {
            value: value.into(),
            locs: locs.into(),
            written: BTreeMap::new(),
        }
    }

    fn codes(s: &Schema) -> Vec<(&'static str, Option<Span>)> {
        let mut d = Diagnostics::new();
        check_schema(s, true, &mut d);
        d.iter()
            .map(|d| (d.rule.code, d.loc.map(|l| l.span)))
            .collect()
    }

    #[test]
    fn required_must_name_declared_properties() {
        let s = schema(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}),
        );
        assert_eq!(codes(&s), vec![("TG0313", Some(Span::new(5, 9)))]);
    }

    #[test]
    fn nested_and_combinator_schemas_are_checked() {
        let s = schema(json!({
            "type": "object",
            "$defs": {"X": {"type": "integer", "default": "no"}},
            "properties": {"a": {"anyOf": [{"type": "array"}, {"type": "string", "minimum": 1}]}}
        }));
        let mut got: Vec<&str> = codes(&s).into_iter().map(|(c, _)| c).collect();
        got.sort_unstable();
        assert_eq!(got, vec!["TG0304", "TG0308", "TG0311"]);
    }

    #[test]
    fn unsafe_ids() {
        for id in [
            "a/b", "..", "x..y", ".hidden", "c:x", "con", "nul.tool", "a\u{1}b", "a*b",
        ] {
            assert!(path_problem(id).is_some(), "{id}");
        }
        for id in [
            "scene.hierarchy.dump",
            "go.setParent",
            "console.read",
            "a-b.c",
        ] {
            assert_eq!(path_problem(id), None, "{id}");
        }
    }
}
