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

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value, json};

use super::fields::Cx;
use crate::diag::{Diagnostic, rule};
use crate::ir::{Implied, SafetyLevel, Schema, Spanned, Tool};
use crate::schema::DIALECT as SCHEMA_DIALECT;
use crate::source::{Loc, Span};
use crate::syntax::{Member, Node, NodeKind, pointer_join};

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
];

/// JSON Schema keywords accepted in `parameters` and `returns`.
/// JSON Schema keywords accepted in `parameters` and `returns` besides the
/// shared constraints ([`crate::schema::VALUE_CONSTRAINTS`]).
const OWN_SCHEMA_KEYS: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "default",
    "examples",
    "items",
    "properties",
    "required",
    "additionalProperties",
    "multipleOf",
    "nullable",
];

pub(crate) const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
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

pub fn yaml11_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "yes" | "y" | "on" | "true" => Some(true),
        "no" | "n" | "off" | "false" => Some(false),
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
        passthrough: BTreeMap::new(),
        implied,
        model_description: None,
        r_function: crate::ir::RFunction::from_tool_name(&name.value),
        deprecated: get("deprecated")
            .and_then(|m| super::fields::read_deprecated(cx, &m.value, "`deprecated`", yaml_bool)),
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

/// Cleans Rd markup out of a text, with a TG0607 note when anything changed.
fn clean_text(cx: &mut Cx<'_>, text: &str, loc: Loc) -> String {
    let cleaned = clean_rd(text);
    if cleaned != text {
        cx.report(
            Diagnostic::at(
                &rule::RD_MARKUP,
                loc,
                "leftover Rd markup is cleaned for output",
            )
            .label("contains Rd markup")
            .help("write Markdown in roxygen2 (`@md`) or plain text"),
        );
    }
    cleaned
}

/// The schema keyword that keeps a default JSON cannot hold (R's `NA`,
/// `Inf`, `NaN`), as R's yaml package wrote it.
pub const R_DEFAULT: &str = "x-r-default";

/// Whether a YAML word is R's `NA`, an infinity or `NaN`, as R's yaml
/// package (or a person) writes them.
pub fn is_r_special(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        ".na"
            | ".na.real"
            | ".na.integer"
            | ".na.character"
            | "na"
            | "na_real_"
            | "na_integer_"
            | "na_character_"
            | ".inf"
            | "+.inf"
            | "-.inf"
            | "inf"
            | "-inf"
            | ".nan"
            | "nan"
    )
}

/// Rd macros and how many brace arguments they take.
fn rd_macro(name: &str) -> Option<usize> {
    Some(match name {
        "item" | "href" | "enc" => 2,
        "code" | "link" | "linkS4class" | "emph" | "strong" | "bold" | "sQuote" | "dQuote"
        | "pkg" | "var" | "env" | "option" | "command" | "file" | "url" | "verb" | "samp"
        | "eqn" | "deqn" | "itemize" | "enumerate" | "describe" | "preformatted" | "dontrun"
        | "donttest" | "value" | "kbd" | "acronym" | "abbr" | "cite" | "dfn" | "email"
        | "special" | "strong.emph" | "method" | "S4method" | "bold.emph" => 1,
        _ => return None,
    })
}

/// Rd markup as the Markdown it means: `\code{x}` -> `` `x` ``,
/// `\link[pkg]{x}` -> `` `pkg::x` ``, `\emph{x}` -> `*x*`, `\strong{x}` ->
/// `**x**`, `\href{u}{t}` -> `[t](u)`, `\url{u}` -> `<u>`, `\itemize` and
/// `\enumerate` -> Markdown lists, `\describe` -> `- **a**: b` items,
/// `\item{a}{b}` -> `a: b`. Unknown macros and escaped braces (`\\{`) are
/// left alone.
pub fn clean_rd(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && chars.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
            if let Some((replacement, next)) = rd_macro_at(&chars, i + 1) {
                if replacement.starts_with('\n') {
                    // A list starts on its own line.
                    let kept = out.trim_end_matches(' ').len();
                    out.truncate(kept);
                }
                out.push_str(&replacement);
                i = next;
                if replacement.ends_with('\n') {
                    while chars.get(i) == Some(&' ') {
                        i += 1;
                    }
                }
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out.trim_matches('\n').to_owned()
}

/// The Markdown of the Rd macro whose name starts at `start` (after its
/// backslash), and where the text after it starts; `None` for a macro it
/// does not know or one without its arguments.
fn rd_macro_at(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut j = start;
    while chars
        .get(j)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
    {
        j += 1;
    }
    let name: String = chars[start..j].iter().collect();
    let arity = rd_macro(&name)?;
    // `\link[pkg]{x}`: an option in brackets.
    let mut option = None;
    if chars.get(j) == Some(&'[') {
        let end = chars[j..].iter().position(|c| *c == ']')? + j;
        option = Some(chars[j + 1..end].iter().collect::<String>());
        j = end + 1;
    }
    let mut args = Vec::new();
    while args.len() < arity && chars.get(j) == Some(&'{') {
        let end = matching_brace(chars, j)?;
        args.push(chars[j + 1..end].iter().collect::<String>());
        j = end + 1;
    }
    if args.is_empty() {
        return None;
    }
    let clean = |a: &str| clean_rd(a);
    let text = match (name.as_str(), args.as_slice()) {
        ("itemize", [body]) => format!("\n{}\n", rd_list(body, |_| "- ".to_owned())),
        ("enumerate", [body]) => format!("\n{}\n", rd_list(body, |n| format!("{n}. "))),
        ("describe", [body]) => format!("\n{}\n", rd_describe(body)),
        ("item", [a, b]) => format!("{}: {}", clean(a), clean(b)),
        ("href", [u, t]) => format!("[{}]({})", clean(t), u.trim()),
        ("url", [u]) => format!("<{}>", u.trim()),
        ("code" | "verb" | "samp" | "kbd" | "command" | "file" | "env" | "option" | "var", [a]) => {
            code_span(&clean(a))
        }
        ("link" | "linkS4class", [a]) => code_span(&match option.as_deref() {
            // `\link[pkg]{x}`, `\link[pkg:topic]{x}`: a function of another package.
            Some(o) if !o.starts_with('=') => {
                let pkg = o.split(':').next().unwrap_or(o);
                format!("{pkg}::{}", clean(a))
            }
            _ => clean(a),
        }),
        ("emph" | "dfn" | "cite", [a]) => format!("*{}*", clean(a)),
        ("strong" | "bold", [a]) => format!("**{}**", clean(a)),
        ("strong.emph" | "bold.emph", [a]) => format!("***{}***", clean(a)),
        ("sQuote", [a]) => format!("‘{}’", clean(a)),
        ("dQuote", [a]) => format!("“{}”", clean(a)),
        (_, [a, ..]) => clean(a),
        _ => String::new(),
    };
    Some((text, j))
}

/// A Markdown code span holding `text` (its backticks fenced by more).
fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The `\item`s of an Rd list body, one Markdown list line each.
fn rd_list(body: &str, marker: impl Fn(usize) -> String) -> String {
    split_items(body)
        .iter()
        .filter(|t| !t.trim().is_empty())
        .enumerate()
        .map(|(n, t)| format!("{}{}", marker(n + 1), clean_rd(t).trim().replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `\describe{\item{a}{b} ...}`: `- **a**: b` lines.
fn rd_describe(body: &str) -> String {
    let chars: Vec<char> = body.chars().collect();
    let mut lines = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let at_item = chars[i] == '\\' && chars[i + 1..].starts_with(&['i', 't', 'e', 'm', '{']);
        if at_item {
            let mut j = i + 5;
            let mut args = Vec::new();
            while args.len() < 2 && chars.get(j) == Some(&'{') {
                let Some(end) = matching_brace(&chars, j) else {
                    break;
                };
                args.push(chars[j + 1..end].iter().collect::<String>());
                j = end + 1;
            }
            if let [a, b] = args.as_slice() {
                lines.push(format!(
                    "- **{}**: {}",
                    clean_rd(a).trim(),
                    clean_rd(b).trim()
                ));
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    lines.join("\n")
}

/// The texts after each top-level `\item` of a list body.
fn split_items(body: &str) -> Vec<String> {
    let chars: Vec<char> = body.chars().collect();
    let mut items: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let item = depth == 0
            && c == '\\'
            && chars[i + 1..].starts_with(&['i', 't', 'e', 'm'])
            && !chars
                .get(i + 5)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '{');
        if item {
            if let Some(t) = current.take() {
                items.push(t);
            }
            current = Some(String::new());
            i += 5;
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if let Some(t) = current.as_mut() {
            t.push(c);
            if c == '\\' {
                if let Some(next) = chars.get(i + 1) {
                    t.push(*next);
                    i += 1;
                }
            }
        }
        i += 1;
    }
    items.extend(current);
    items
}

fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

struct Translator<'c, 'd> {
    cx: &'c mut Cx<'d>,
    locs: BTreeMap<String, Loc>,
    /// Values changed to fit the schema, as written (see `ir::Schema::written`).
    written: BTreeMap<String, Value>,
}

impl Translator<'_, '_> {
    fn record(&mut self, ptr: &str, node: &Node) {
        let mut sub = String::new();
        node.walk(&mut sub, &mut |p, n| {
            self.locs.insert(format!("{ptr}{p}"), self.cx.loc(n.span));
        });
    }

    /// `parameters` or `returns`: a schema, tagged with the dialect toolgen emits.
    fn root_schema(&mut self, node: &Node) -> Option<Value> {
        let mut v = self.schema(node, "", false)?;
        if let Value::Object(m) = &mut v {
            m.insert("$schema".into(), json!(SCHEMA_DIALECT));
        }
        Some(v)
    }

    fn schema(&mut self, node: &Node, ptr: &str, is_property: bool) -> Option<Value> {
        let obj = self.cx.object(node, "a JSON Schema")?;
        self.locs.insert(ptr.to_owned(), self.cx.loc(node.span));
        let mut allowed = OWN_SCHEMA_KEYS.to_vec();
        allowed.extend_from_slice(crate::schema::VALUE_CONSTRAINTS);
        self.cx.check_keys(obj, &allowed, true, "a JSON Schema");
        let get = |k: &str| obj.iter().find(|m| m.key == k);
        let mut out = Map::new();

        let types = self.types(obj, ptr);
        if is_property && get("type").is_none() {
            self.cx.require(
                node,
                obj,
                "type",
                "a parameter schema (JSON Schema draft 7 requires it)",
                "\"string\", \"number\", \"integer\", \"boolean\", \"object\" or \"array\"",
            );
        }
        self.plain_keywords(obj, ptr, &mut out);
        self.values(obj, ptr, &types, &mut out);
        if let Some(m) = get("items") {
            if let Some(v) = self.schema(&m.value, &pointer_join(ptr, "items"), false) {
                out.insert("items".into(), v);
            }
        }
        if let Some(m) = get("additionalProperties") {
            let aptr = pointer_join(ptr, "additionalProperties");
            if let NodeKind::Bool(b) = m.value.kind {
                self.locs.insert(aptr, self.cx.loc(m.value.span));
                out.insert("additionalProperties".into(), json!(b));
            } else if let Some(v) = self.schema(&m.value, &aptr, false) {
                out.insert("additionalProperties".into(), v);
            }
        }
        let hidden = match get("properties") {
            Some(m) => self.properties(m, ptr, &mut out),
            None => Vec::new(),
        };
        if let Some(m) = get("required") {
            self.required(m, ptr, &hidden, &mut out);
        }
        Some(Value::Object(out))
    }

    /// Keywords copied as written (descriptions and titles with Rd markup
    /// cleaned); the ones read with care are left to the other steps.
    fn plain_keywords(&mut self, obj: &[Member], ptr: &str, out: &mut Map<String, Value>) {
        for m in obj {
            let kptr = pointer_join(ptr, &m.key);
            match m.key.as_str() {
                "properties"
                | "items"
                | "additionalProperties"
                | "required"
                | "default"
                | "examples"
                | "enum" => {}
                "description" | "title" => match &m.value.kind {
                    NodeKind::Null => {}
                    NodeKind::String(s) => {
                        let loc = self.cx.loc(m.value.span);
                        let cleaned = clean_text(self.cx, s, loc);
                        self.locs.insert(kptr, loc);
                        out.insert(m.key.clone(), json!(cleaned));
                    }
                    _ => self
                        .cx
                        .wrong_type(&m.value, &format!("`{}`", m.key), "a string"),
                },
                _ => {
                    self.record(&kptr, &m.value);
                    out.insert(m.key.clone(), m.value.to_json());
                }
            }
        }
    }

    /// `enum`, `default` and `examples`, read as values of the declared type
    /// (YAML 1.1 booleans on boolean parameters, integers written as floats,
    /// string examples converted).
    fn values(
        &mut self,
        obj: &[Member],
        ptr: &str,
        types: &[String],
        out: &mut Map<String, Value>,
    ) {
        let get = |k: &str| obj.iter().find(|m| m.key == k);
        if let Some(m) = get("enum") {
            match m.value.as_array() {
                Some(items) => {
                    self.record(&pointer_join(ptr, "enum"), &m.value);
                    let boolean = types.iter().any(|x| x == "boolean");
                    let values = items
                        .iter()
                        .map(|n| {
                            if boolean {
                                as_yaml11_bool(n)
                            } else {
                                n.to_json()
                            }
                        })
                        .collect();
                    out.insert("enum".into(), Value::Array(values));
                }
                None => self.cx.wrong_type(&m.value, "`enum`", "a list of values"),
            }
        }
        if let Some(m) = get("default") {
            // On a string parameter, only the forms R's yaml package writes
            // (`.na.character`) are R's; a bare `NA` may be the string "NA".
            let string_typed = types.iter().any(|t| t == "string");
            let special = m
                .value
                .as_str()
                .filter(|w| is_r_special(w) && (!string_typed || w.starts_with('.')));
            if let Some(word) = special {
                self.r_special_default(&m.value, word);
                self.record(&pointer_join(ptr, R_DEFAULT), &m.value);
                out.insert(R_DEFAULT.into(), json!(word));
            } else {
                let at = pointer_join(ptr, "default");
                match self.default(&m.value, types) {
                    Some(v) => {
                        self.record(&at, &m.value);
                        self.keep_written(at, &m.value, &v);
                        out.insert("default".into(), v);
                    }
                    // Dropped (TG0604, or R's `NULL`: no value), yet what the file says.
                    None => {
                        self.written.insert(at, m.value.to_json());
                    }
                }
            }
        }
        if let Some(m) = get("examples") {
            if let Some(v) = self.examples(&m.value, types) {
                let at = pointer_join(ptr, "examples");
                self.locs.insert(at.clone(), self.cx.loc(m.value.span));
                self.keep_written(at, &m.value, &v);
                out.insert("examples".into(), v);
            }
        }
    }

    /// `properties`, without hidden parameters (TG0609); returns their names,
    /// which `required` then leaves out too.
    fn properties(&mut self, m: &Member, ptr: &str, out: &mut Map<String, Value>) -> Vec<String> {
        let mut hidden = Vec::new();
        match &m.value.kind {
            NodeKind::Object(members) => {
                let pptr = pointer_join(ptr, "properties");
                self.locs.insert(pptr.clone(), self.cx.loc(m.value.span));
                let mut props = Map::new();
                for p in members {
                    if p.key.starts_with('.') {
                        self.cx.report(
                            Diagnostic::at(
                                &rule::HIDDEN_PARAMETER,
                                self.cx.loc(p.key_span),
                                format!("hidden parameter `{}` is dropped from the public schema", p.key),
                            )
                            .label("hidden parameter")
                            .help("parameters starting with `.` are internal; `mcptool_build()` leaves them out"),
                        );
                        hidden.push(p.key.clone());
                        continue;
                    }
                    if let Some(v) = self.schema(&p.value, &pointer_join(&pptr, &p.key), true) {
                        props.insert(p.key.clone(), v);
                    }
                }
                out.insert("properties".into(), Value::Object(props));
            }
            NodeKind::Null => {
                out.insert("properties".into(), json!({}));
            }
            _ => self.cx.wrong_type(
                &m.value,
                "`properties`",
                "a mapping of parameter names to schemas",
            ),
        }
        hidden
    }

    fn types(&mut self, obj: &[Member], ptr: &str) -> Vec<String> {
        let Some(m) = obj.iter().find(|m| m.key == "type") else {
            return Vec::new();
        };
        let names: Vec<&Node> = match &m.value.kind {
            NodeKind::String(_) => vec![&m.value],
            NodeKind::Array(items) => items.iter().collect(),
            _ => {
                self.cx
                    .wrong_type(&m.value, "`type`", "a type name or a list of them");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for n in names {
            match n.as_str() {
                Some(t) if TYPES.contains(&t) => out.push(t.to_owned()),
                Some(t) => {
                    let loc = self.cx.loc(n.span);
                    self.cx
                        .unknown_value(&rule::UNKNOWN_TYPE, loc, t, "JSON Schema type", TYPES);
                }
                None => self.cx.wrong_type(n, "a type", "a string"),
            }
        }
        self.locs
            .insert(pointer_join(ptr, "type"), self.cx.loc(m.value.span));
        out
    }

    /// A default normalized to the declared type, or `None` (with a warning) when it cannot be.
    /// Remembers what `node` said at `ptr` when the schema holds something
    /// else (a float read as an integer, strings read as numbers).
    fn keep_written(&mut self, ptr: String, node: &Node, now: &Value) {
        let written = node.to_json();
        // `5.0` and `5` are equal as JSON values, not as what R wrote; a
        // YAML 1.1 `yes` read as `true` is the same value to R either way.
        let (as_written, as_read) = (written.to_string(), now.to_string());
        let changed = &written != now || as_written != as_read;
        if changed && !now.is_boolean() {
            self.written.insert(ptr, written);
        }
    }

    /// TG0610 for a default that is R's `NA`, `Inf` or `NaN`.
    fn r_special_default(&mut self, node: &Node, word: &str) {
        let what = if word.to_ascii_lowercase().contains("na") && !word.eq_ignore_ascii_case(".nan")
        {
            "R's missing value `NA`"
        } else {
            "an R infinity or `NaN`"
        };
        self.cx.report(
            self.cx
                .at(
                    &rule::R_SPECIAL_VALUE,
                    node.span,
                    format!("default `{word}` is {what}, which JSON has no value for"),
                )
                .label("kept as `x-r-default`")
                .help("nothing to fix: the schema has no default, and the docs show this one as R wrote it"),
        );
    }

    fn default(&mut self, node: &Node, types: &[String]) -> Option<Value> {
        if matches!(node.kind, NodeKind::Null) {
            // R's NULL default means "no value": no default.
            return None;
        }
        let value = node.to_json();
        if types.is_empty()
            || types
                .iter()
                .any(|t| crate::schema::value_has_type(&value, t))
        {
            return Some(value);
        }
        let loc = self.cx.loc(node.span);
        if let Some(v) = self.coerce(node, types) {
            if types.iter().any(|t| t == "integer")
                && node.json_type() == crate::syntax::JsonType::Number
            {
                self.cx.report(
                    Diagnostic::at(
                        &rule::FLOAT_INTEGER,
                        loc,
                        format!("integer default written as `{}`", short_number(node)),
                    )
                    .label(format!("read as the integer {v}"))
                    .help("nothing to change in R: `mcptool_build()` writes every number as a float; `lints: {float-for-integer: allow}` in toolset.yaml silences this"),
                );
            }
            return Some(v);
        }
        self.cx.report(
            Diagnostic::at(
                &rule::DEFAULT_WRONG_TYPE,
                loc,
                format!(
                    "default `{}` is not a value of type `{}`; it is dropped",
                    value,
                    types.join(" or ")
                ),
            )
            .label("wrong type")
            .help("fix the default in the R function's formals, or the parameter's type"),
        );
        None
    }

    /// Converts a value to a declared type where the intent is clear:
    /// `5.0` -> 5 for integers, YAML 1.1 words -> booleans.
    fn coerce(&self, node: &Node, types: &[String]) -> Option<Value> {
        for t in types {
            match (t.as_str(), &node.kind) {
                ("integer", NodeKind::Number(n)) => {
                    if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                        return Some(json!(f as i64));
                    }
                }
                ("boolean", NodeKind::String(s)) => {
                    if let Some(b) = yaml11_bool(s) {
                        return Some(json!(b));
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn examples(&mut self, node: &Node, types: &[String]) -> Option<Value> {
        let Some(items) = node.as_array() else {
            self.cx
                .wrong_type(node, "`examples`", "a list of example values");
            return None;
        };
        let numeric_or_bool = types
            .iter()
            .any(|t| matches!(t.as_str(), "integer" | "number" | "boolean"));
        let mut out: Vec<Value> = Vec::new();
        let mut converted = Vec::new();
        for item in items {
            let mut v = item.to_json();
            if numeric_or_bool && !types.iter().any(|t| crate::schema::value_has_type(&v, t)) {
                match item.as_str().and_then(|s| parse_as(s, types)) {
                    Some(parsed) => {
                        converted.push(item.span);
                        v = parsed;
                    }
                    None => {
                        self.cx.report(
                            Diagnostic::at(
                                &rule::EXAMPLE_TYPE,
                                self.cx.loc(item.span),
                                format!(
                                    "example `{v}` is not a value of type `{}`; it is dropped",
                                    types.join(" or ")
                                ),
                            )
                            .label("wrong type"),
                        );
                        continue;
                    }
                }
            }
            if out.contains(&v) {
                self.cx.report(
                    Diagnostic::at(
                        &rule::DUPLICATE_EXAMPLE,
                        self.cx.loc(item.span),
                        format!("example `{v}` is listed twice; the repeat is removed"),
                    )
                    .label("repeated example"),
                );
                continue;
            }
            out.push(v);
        }
        if let (Some(first), Some(last)) = (converted.first(), converted.last()) {
            let span = Span::new(first.start as usize, last.end as usize);
            self.cx.report(
                Diagnostic::at(
                    &rule::EXAMPLE_TYPE,
                    self.cx.loc(span),
                    format!(
                        "{} example{} written as strings on a parameter of type `{}`; converted",
                        converted.len(),
                        if converted.len() == 1 { "" } else { "s" },
                        types.join(" or ")
                    ),
                )
                .label("written as strings")
                .help("`mcptool_build()` reads examples from `\\code{}` as text; the values are converted"),
            );
        }
        Some(Value::Array(out))
    }

    fn required(&mut self, m: &Member, ptr: &str, hidden: &[String], out: &mut Map<String, Value>) {
        let Some(items) = m.value.as_array() else {
            if !matches!(m.value.kind, NodeKind::Null) {
                self.cx
                    .wrong_type(&m.value, "`required`", "a list of property names");
            }
            return;
        };
        self.locs
            .insert(pointer_join(ptr, "required"), self.cx.loc(m.value.span));
        let mut names = Vec::new();
        for item in items {
            match item.as_str() {
                Some(n) if hidden.iter().any(|h| h == n) || n.starts_with('.') => {}
                Some(n) => names.push(json!(n)),
                None => self
                    .cx
                    .wrong_type(item, "an entry of `required`", "a property name"),
            }
        }
        out.insert("required".into(), Value::Array(names));
    }
}

fn as_yaml11_bool(n: &Node) -> Value {
    match n.as_str().and_then(yaml11_bool) {
        Some(b) => json!(b),
        None => n.to_json(),
    }
}

fn short_number(n: &Node) -> String {
    match &n.kind {
        NodeKind::Number(x) => x.to_string(),
        _ => n.to_json().to_string(),
    }
}

/// Parses a string example as one of the declared types.
fn parse_as(s: &str, types: &[String]) -> Option<Value> {
    let s = s.trim().trim_end_matches('L');
    for t in types {
        match t.as_str() {
            "integer" => {
                if let Ok(i) = s.parse::<i64>() {
                    return Some(json!(i));
                }
            }
            "number" => {
                if let Some(n) = s.parse::<f64>().ok().and_then(Number::from_f64) {
                    return Some(Value::Number(n));
                }
            }
            "boolean" => {
                if let Some(b) = yaml11_bool(s).or(match s {
                    "TRUE" | "T" => Some(true),
                    "FALSE" | "F" => Some(false),
                    _ => None,
                }) {
                    return Some(json!(b));
                }
            }
            _ => {}
        }
    }
    None
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
