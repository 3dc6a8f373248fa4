//! Reader for RAVE tool YAML, as R packages write it with `mcptool_build()`
//! (`rave-yaml-spec.md`; real files in `shared/corpus/rave/`).
//!
//! ```yaml
//! name: ravepipeline-mcp_tool_pipeline_run   # {package}-{function}, also the file name
//! description: Execute the pipeline.
//! parameters: {type: object, properties: {...}, required: [...]}   # JSON Schema
//! category: execution
//! dangerous: yes                              # YAML 1.1 booleans
//! requires_approval: yes
//! returns: {type: object, properties: {...}}
//! implementation_example: |
//!   pipe$run()
//! execution_time: 0.51
//! ```
//!
//! Real files are looser than the spec; each looseness is a rule with its own
//! code (TG06xx) and is normalized here, so the IR and every output are clean:
//! `description: ~`, integer defaults written as `5.0`, defaults of the wrong
//! type, string examples on numeric parameters, duplicate examples, leftover Rd
//! markup, missing `implementation_example`, hidden (`.`-prefixed) parameters.
//!
//! YAML 1.1: files are parsed with the YAML 1.2 core schema, and the words
//! `yes`/`no`/`on`/`off`/`y`/`n` (any case) are read as booleans wherever a
//! boolean is expected (`dangerous`, `requires_approval`, defaults, enums and
//! examples of boolean parameters). Elsewhere they stay the strings their
//! authors wrote.

mod rd;
mod translate;
#[cfg(test)]
pub(crate) use self::translate::TYPES;
pub use self::translate::yaml11_bool;
use self::translate::{Translator, clean_text};

pub use self::rd::clean_rd;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::fields::Cx;
use crate::diag::{Diagnostic, rule};
use crate::ir::{Implied, SafetyLevel, Schema, Spanned, Tool};
use crate::source::Span;
use crate::syntax::{Member, Node, NodeKind};

pub(crate) const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "parameters",
    "category",
    "implementation_example",
    "execution_time",
    "returns",
    "dangerous",
    "requires_approval",
    "deprecated",
    "example_response",
    "output_format",
    "execution",
    "content",
];

/// The category of a tool whose file has none.
pub const DEFAULT_CATEGORY: &str = "uncategorized";

/// `{package}-mcp_tool_{group}_{action}`, split; `None` for names off the pattern.
pub fn split_name(name: &str) -> Option<(&str, &str, &str)> {
    let (package, rest) = name.split_once('-')?;
    if package.is_empty() || !package.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let function = rest.strip_prefix("mcp_tool_")?;
    let (group, action) = function.split_once('_').unwrap_or((function, ""));
    (!group.is_empty()).then_some((package, group, action))
}

/// A display name from a RAVE tool name: `pkg-mcp_tool_pipeline_get_info` -> "Pipeline Get Info".
pub fn display_name(name: &str) -> String {
    let function = name.split_once('-').map_or(name, |(_, f)| f);
    crate::ident::title_case(function.strip_prefix("mcp_tool_").unwrap_or(function))
}

/// A YAML 1.1 boolean word, if `s` is one.
/// A boolean as RAVE's YAML writes them (`yes`, `true`, ...).
fn yaml_bool(n: &Node) -> Option<bool> {
    match &n.kind {
        NodeKind::Bool(b) => Some(*b),
        NodeKind::String(s) => yaml11_bool(s),
        _ => None,
    }
}

/// Reads one RAVE tool. `file_stem` is the file name without `.yaml`.
pub fn read(cx: &mut Cx<'_>, root: &Node, file_stem: Option<&str>) -> Option<Tool> {
    let obj = cx.object(root, "a RAVE tool")?;
    cx.check_keys(obj, TOP_KEYS, false, "a RAVE tool");
    let get = |k: &str| obj.iter().find(|m| m.key == k);
    let name = read_name(cx, root, obj, file_stem);
    let description = read_description(cx, root, obj);
    let (input, output) = read_schemas(cx, root, obj);
    let category = match get("category") {
        Some(m) if !matches!(m.value.kind, NodeKind::Null) => {
            cx.string(&m.value, "`category`", true)
        }
        _ => Some(Spanned::new(
            DEFAULT_CATEGORY.to_owned(),
            cx.loc(Span::at(root.span.start as usize)),
        )),
    };
    let dangerous = flag(cx, obj, "dangerous");
    let requires_approval = flag(cx, obj, "requires_approval");
    let mut annotations = read_annotations(cx, root, obj);
    let name = name?;
    if let Some((package, group, action)) = split_name(&name.value) {
        for (k, v) in [("package", package), ("group", group), ("action", action)] {
            annotations.insert(k.to_owned(), Spanned::new(json!(v), name.loc));
        }
    }
    let safety = if dangerous {
        SafetyLevel::Destructive
    } else {
        SafetyLevel::SafeWrite
    };
    let safety_loc = get("dangerous").map_or(name.loc, |m| cx.loc(m.value.span));
    // `dangerous` says whether a tool is destructive, and nothing more; a
    // file without it says nothing.
    let said = get("dangerous").filter(|m| !matches!(m.value.kind, NodeKind::Null));
    let hints: BTreeMap<String, Spanned<Value>> = said
        .map(|_| {
            (
                "destructiveHint".to_owned(),
                Spanned::new(json!(dangerous), safety_loc),
            )
        })
        .into_iter()
        .collect();
    let implied = Implied {
        name: true,
        description: false,
        category: get("category").is_none_or(|m| matches!(m.value.kind, NodeKind::Null)),
        tier: true,
        safety: said.is_none(),
    };
    Some(Tool {
        name: Spanned::new(display_name(&name.value), name.loc),
        description: description?,
        category: category?,
        safety: Spanned::new(safety, safety_loc),
        tier: Spanned::new("core".to_owned(), name.loc),
        input: input?,
        output: output?,
        notes: None,
        examples: Vec::new(),
        timeout_seconds: None,
        requires_approval,
        annotations,
        hints,
        passthrough: super::fields::read_execution(cx, obj).into_iter().collect(),
        implied,
        model_description: None,
        r_function: crate::ir::RFunction::from_tool_name(&name.value),
        deprecated: get("deprecated")
            .and_then(|m| super::fields::read_deprecated(cx, &m.value, "`deprecated`", yaml_bool)),
        content: super::fields::top_content(cx, obj),
        loc: cx.loc(root.span),
        id: name,
    })
}

/// `name`, which must be the file name (TG0601).
fn read_name(
    cx: &mut Cx<'_>,
    root: &Node,
    obj: &[Member],
    file_stem: Option<&str>,
) -> Option<Spanned<String>> {
    let name = cx
        .require(
            root,
            obj,
            "name",
            "the RAVE tool",
            "`{package}-{function}`, the file name without `.yaml`",
        )
        .and_then(|n| cx.string(n, "`name`", true));
    if let (Some(name), Some(stem)) = (&name, file_stem) {
        if name.value != stem {
            cx.report(
                Diagnostic::at(
                    &rule::RAVE_NAME_MISMATCH,
                    name.loc,
                    format!(
                        "tool name `{}` does not match the file name `{stem}.yaml`",
                        name.value
                    ),
                )
                .label("differs from the file name")
                .help(format!(
                    "rename the file to `{}.yaml`, or fix `name`",
                    name.value
                )),
            );
        }
    }
    name
}

/// `description`: `~` is read as empty (TG0602); Rd markup is cleaned (TG0607).
fn read_description(cx: &mut Cx<'_>, root: &Node, obj: &[Member]) -> Option<Spanned<String>> {
    match cx.require(
        root,
        obj,
        "description",
        "the RAVE tool",
        "one or two sentences on what the tool does",
    ) {
        Some(n) if matches!(n.kind, NodeKind::Null) => {
            cx.report(
                cx.at(
                    &rule::NULL_DESCRIPTION,
                    n.span,
                    "the tool's description is `~` (null)",
                )
                .label("no description")
                .help("write an `@description` in the function's roxygen2 docs"),
            );
            Some(Spanned::new(String::new(), cx.loc(n.span)))
        }
        Some(n) => cx
            .string(n, "`description`", false)
            .map(|s| Spanned::new(clean_text(cx, &s.value, s.loc), s.loc)),
        None => None,
    }
}

/// `parameters` and `returns` (a free-form object when absent), each with
/// the locations of its parts.
fn read_schemas(cx: &mut Cx<'_>, root: &Node, obj: &[Member]) -> (Option<Schema>, Option<Schema>) {
    let mut t = Translator {
        written: BTreeMap::new(),
        cx,
        locs: BTreeMap::new(),
    };
    let input = match t.cx.require(
        root,
        obj,
        "parameters",
        "the RAVE tool",
        "a JSON Schema object: `{type: object, properties: {}}`",
    ) {
        Some(n) => t.root_schema(n),
        None => None,
    };
    let input_locs = std::mem::take(&mut t.locs);
    let input_written = std::mem::take(&mut t.written);
    // `returns` is optional: a tool without it declares no output schema.
    let output = match obj.iter().find(|m| m.key == "returns") {
        Some(m) if !matches!(m.value.kind, NodeKind::Null) => t.root_schema(&m.value),
        _ => Some(Value::Null),
    };
    (
        input.map(|value| Schema {
            value: value.into(),
            locs: input_locs.into(),
            written: input_written,
        }),
        output.map(|value| Schema {
            value: value.into(),
            locs: std::mem::take(&mut t.locs).into(),
            written: std::mem::take(&mut t.written),
        }),
    )
}

/// A YAML 1.1 boolean flag (`dangerous: yes`); absent or `~` is false.
fn flag(cx: &mut Cx<'_>, obj: &[Member], key: &str) -> bool {
    let Some(m) = obj.iter().find(|m| m.key == key) else {
        return false;
    };
    match &m.value.kind {
        NodeKind::Bool(b) => *b,
        NodeKind::Null => false,
        NodeKind::String(s) if yaml11_bool(s).is_some() => yaml11_bool(s).unwrap_or(false),
        _ => {
            cx.wrong_type(
                &m.value,
                &format!("`{key}`"),
                "a boolean (`yes`/`no`, `true`/`false`)",
            );
            false
        }
    }
}

/// `implementation_example` (TG0608 when missing), `execution_time`,
/// `example_response` and `output_format`, kept as annotations.
fn read_annotations(
    cx: &mut Cx<'_>,
    root: &Node,
    obj: &[Member],
) -> BTreeMap<String, Spanned<Value>> {
    let get = |k: &str| obj.iter().find(|m| m.key == k);
    let mut annotations = BTreeMap::new();
    match get("implementation_example") {
        Some(m) => {
            if let Some(s) = cx.string(&m.value, "`implementation_example`", false) {
                annotations.insert(
                    "implementation_example".to_owned(),
                    Spanned::new(json!(s.value), s.loc),
                );
            }
        }
        None => {
            cx.report(
                cx.at(&rule::NO_IMPLEMENTATION_EXAMPLE, root.opening(),
                    "the tool has no `implementation_example`",
                )
                .help("add an `@examples` section to the function's roxygen2 docs and rebuild with `mcptool_build()`"),
            );
        }
    }
    if let Some(m) = get("execution_time") {
        if let Some(v) = cx.number(&m.value, "`execution_time`") {
            annotations.insert(
                "execution_time".to_owned(),
                Spanned::new(json!(v), cx.loc(m.value.span)),
            );
        }
    }
    for key in ["example_response", "output_format"] {
        if let Some(m) = get(key) {
            annotations.insert(
                key.to_owned(),
                Spanned::new(m.value.to_json(), cx.loc(m.value.span)),
            );
        }
    }
    annotations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_groups() {
        assert_eq!(
            split_name("ravepipeline-mcp_tool_pipeline_get_info"),
            Some(("ravepipeline", "pipeline", "get_info"))
        );
        assert_eq!(
            split_name("ravepipeline-mcp_tool_run_r"),
            Some(("ravepipeline", "run", "r"))
        );
        assert_eq!(split_name("pkg-other_function"), None);
        assert_eq!(split_name("no_package"), None);
        assert_eq!(
            display_name("ravepipeline-mcp_tool_pipeline_get_info"),
            "Pipeline Get Info"
        );
        assert_eq!(display_name("pkg-read.data"), "Read Data");
    }

    #[test]
    fn rd_markup_is_cleaned() {
        assert_eq!(
            clean_rd(r"Use \code{pipe$run()} or \link{pipeline}."),
            "Use `pipe$run()` or `pipeline`."
        );
        assert_eq!(
            clean_rd(r"Modes: \itemize{\item \code{a}: first \item two} done"),
            "Modes:\n- `a`: first\n- two\ndone"
        );
        assert_eq!(
            clean_rd(r"\enumerate{\item one \item two}"),
            "1. one\n2. two"
        );
        assert_eq!(
            clean_rd(r"\describe{\item{x}{the \emph{x}}\item{y}{why}}"),
            "- **x**: the *x*\n- **y**: why"
        );
        assert_eq!(
            clean_rd(r"\item{name}{the \emph{name}}"),
            "name: the *name*"
        );
        assert_eq!(
            clean_rd(r"see \href{https://x.org}{docs} and \link[ravecore]{load_subject}"),
            "see [docs](https://x.org) and `ravecore::load_subject`"
        );
        assert_eq!(clean_rd(r"\code{a`b}"), "``a`b``");
        assert_eq!(
            clean_rd(r#"pattern "\\{rave.*\\}""#),
            r#"pattern "\\{rave.*\\}""#
        );
        assert_eq!(
            clean_rd(r"\unknown{x} and \code{unclosed"),
            r"\unknown{x} and \code{unclosed"
        );
    }

    #[test]
    fn yaml11_words() {
        for w in ["yes", "Yes", "YES", "on", "y", "true"] {
            assert_eq!(yaml11_bool(w), Some(true));
        }
        for w in ["no", "No", "OFF", "n", "false"] {
            assert_eq!(yaml11_bool(w), Some(false));
        }
        assert_eq!(yaml11_bool("maybe"), None);
    }
}
