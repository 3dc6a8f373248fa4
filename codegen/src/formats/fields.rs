//! Helpers that format readers use to read spanned documents with located errors:
//! expected types, required and unknown fields (with "did you mean").

use std::collections::BTreeMap;

use crate::diag::{Diagnostic, Rule, rule};
use crate::ir::{Example, LocatedValue, SafetyLevel, Spanned};
use crate::source::{FileId, Loc, Span};
use crate::syntax::{Member, Node, NodeKind};
use crate::text::did_you_mean;
pub use crate::text::{list, suggest};

/// The reading context of one file: where diagnostics go.
pub struct Cx<'a> {
    pub file: FileId,
    pub diags: &'a mut Vec<Diagnostic>,
}

impl Cx<'_> {
    pub fn loc(&self, span: Span) -> Loc {
        Loc::new(self.file, span)
    }

    pub fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// A diagnostic of `rule` at `span` of this file.
    pub fn at(&self, rule: &'static Rule, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(rule, self.loc(span), message)
    }

    /// Reports `value` (at `loc`) as not one of `names`, the known values of
    /// a `what`: "unknown `what` `value`", with the nearest name or the list.
    pub fn unknown_value(
        &mut self,
        rule: &'static Rule,
        loc: Loc,
        value: &str,
        what: &str,
        names: &[&str],
    ) {
        self.report(
            Diagnostic::at(rule, loc, format!("unknown {what} `{value}`"))
                .label(format!("not a {what}"))
                .help(suggest(value, names))
                .maybe_fix_word(did_you_mean(value, names.iter().copied())),
        );
    }

    /// `s` as a word of `T`'s set (a format, a level, ...), or `None`,
    /// reported with `rule` as an unknown `what`.
    pub fn word<T: crate::text::Word>(
        &mut self,
        rule: &'static Rule,
        s: &Spanned<String>,
        what: &str,
    ) -> Option<T> {
        let value = T::from_word(&s.value);
        if value.is_none() {
            self.unknown_value(rule, s.loc, &s.value, what, T::WORDS);
        }
        value
    }

    /// Reports `value` (at `loc`) as listed twice in `list`.
    pub fn listed_twice(&mut self, loc: Loc, value: &str, list: &str) {
        self.report(
            Diagnostic::at(
                &rule::INVALID_VALUE,
                loc,
                format!("`{value}` is listed twice in {list}"),
            )
            .label("duplicate entry"),
        );
    }

    /// The members of `obj` that are not `known`, each reported as a field
    /// published as written (TG0106), with the nearest known field.
    pub fn passthrough<'n>(
        &mut self,
        obj: &'n [Member],
        known: &[&str],
        what: &str,
    ) -> Vec<&'n Member> {
        // `x-` keys are extensions by intent: kept without a word.
        let unknown: Vec<&Member> = obj
            .iter()
            .filter(|m| !known.contains(&m.key.as_str()))
            .collect();
        for m in unknown.iter().filter(|m| !m.key.starts_with("x-")) {
            let help = match did_you_mean(&m.key, known.iter().copied()) {
                Some(s) => format!("did you mean `{s}`? Otherwise it is published as written"),
                None => format!(
                    "{what} has the fields {}; this one is published as written",
                    list(known)
                ),
            };
            self.report(
                self.at(
                    &rule::PASSTHROUGH_FIELD,
                    m.key_span,
                    format!("field `{}` of {what} is not one toolgen knows", m.key),
                )
                .label("published as written")
                .help(help)
                .maybe_fix_word(did_you_mean(&m.key, known.iter().copied())),
            );
        }
        unknown
    }

    /// Reports `node` as having the wrong JSON type.
    pub fn wrong_type(&mut self, node: &Node, what: &str, expected: &str) {
        let found = node.json_type().article_name();
        self.report(
            self.at(
                &rule::WRONG_TYPE,
                node.span,
                format!("{what} must be {expected}, found {found}"),
            )
            .label(format!("expected {expected}")),
        );
    }

    /// The members of `node`, or a wrong-type error.
    pub fn object<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n [Member]> {
        match &node.kind {
            NodeKind::Object(m) => Some(m),
            _ => {
                self.wrong_type(node, what, "an object");
                None
            }
        }
    }

    /// Reports every key of `obj` that is not in `allowed` (keys starting with
    /// `x-` are allowed when `allow_extensions`).
    /// The items of a list, or a TG0103 (`what` names the field).
    pub fn array<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n [Node]> {
        match &node.kind {
            NodeKind::Array(items) => Some(items),
            _ => {
                self.wrong_type(node, what, "a list");
                None
            }
        }
    }

    pub fn check_keys(
        &mut self,
        obj: &[Member],
        allowed: &[&str],
        allow_extensions: bool,
        what: &str,
    ) {
        for m in obj {
            if allowed.contains(&m.key.as_str()) || (allow_extensions && m.key.starts_with("x-")) {
                continue;
            }
            let suggestion = did_you_mean(&m.key, allowed.iter().copied());
            let help = match suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None if allow_extensions => format!(
                    "{what} has the fields {}; prefix custom keys with `x-`",
                    list(allowed)
                ),
                None => format!("{what} has the fields {}", list(allowed)),
            };
            self.report(
                self.at(
                    &rule::UNKNOWN_FIELD,
                    m.key_span,
                    format!("unknown field `{}` in {what}", m.key),
                )
                .label("unknown field")
                .help(help)
                .maybe_fix_word(suggestion),
            );
        }
    }

    /// A field that must be present (reports TG0101 at the object's opening).
    pub fn require<'n>(
        &mut self,
        obj_node: &Node,
        obj: &'n [Member],
        key: &str,
        what: &str,
        holds: &str,
    ) -> Option<&'n Node> {
        let found = obj.iter().find(|m| m.key == key).map(|m| &m.value);
        if found.is_none() {
            self.report(
                self.at(
                    &rule::MISSING_FIELD,
                    obj_node.opening(),
                    format!("{what} is missing the required field `{key}`"),
                )
                .label(format!("`{key}` missing in this object"))
                .help(format!("add `\"{key}\"`: {holds}"))
                .fix_member(key, placeholder(holds)),
            );
        }
        found
    }

    /// A string value; `non_empty` also rejects "" and whitespace (TG0102).
    pub fn string(&mut self, node: &Node, what: &str, non_empty: bool) -> Option<Spanned<String>> {
        match &node.kind {
            NodeKind::String(s) => {
                if non_empty && s.trim().is_empty() {
                    self.report(
                        self.at(
                            &rule::EMPTY_FIELD,
                            node.span,
                            format!("{what} must not be empty"),
                        )
                        .label("empty"),
                    );
                    return None;
                }
                Some(Spanned::new(s.clone(), self.loc(node.span)))
            }
            _ => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    pub fn boolean(&mut self, node: &Node, what: &str) -> Option<bool> {
        match node.kind {
            NodeKind::Bool(b) => Some(b),
            _ => {
                self.wrong_type(node, what, "a boolean (`true` or `false`)");
                None
            }
        }
    }

    pub fn number(&mut self, node: &Node, what: &str) -> Option<f64> {
        match &node.kind {
            NodeKind::Number(n) => n.as_f64(),
            _ => {
                self.wrong_type(node, what, "a number");
                None
            }
        }
    }

    /// A value with the locations of all its parts.
    pub fn located(&self, node: &Node) -> LocatedValue {
        let mut locs = BTreeMap::new();
        node.walk(&mut String::new(), &mut |p, n| {
            locs.insert(p.to_owned(), self.loc(n.span));
        });
        LocatedValue {
            value: node.to_json().into(),
            locs: locs.into(),
        }
    }
}

/// Parses a safety level, reporting TG0206 (with a suggestion) when it is unknown.
pub fn safety_level(cx: &mut Cx<'_>, s: &Spanned<String>) -> Option<SafetyLevel> {
    cx.word(&rule::UNKNOWN_SAFETY_LEVEL, s, "safety level")
}

/// Whether `s` is an identifier: ASCII letter or `_`, then letters, digits, `_`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads a tool's `deprecated` (`what` names it in messages): `true`
/// (`false` or absent: not deprecated), or `{sunset: YYYY-MM-DD, message}`.
/// `flag` reads a boolean the way the format writes them.
pub(crate) fn read_deprecated(
    cx: &mut Cx<'_>,
    node: &Node,
    what: &str,
    flag: fn(&Node) -> Option<bool>,
) -> Option<Spanned<crate::ir::Deprecation>> {
    let loc = cx.loc(node.span);
    if let Some(b) = flag(node) {
        return b.then(|| Spanned::new(crate::ir::Deprecation::default(), loc));
    }
    let Some(members) = (match &node.kind {
        NodeKind::Object(m) => Some(m),
        _ => None,
    }) else {
        cx.wrong_type(
            node,
            what,
            "`true`, or an object with `sunset` and `message`",
        );
        return None;
    };
    cx.check_keys(members, &["sunset", "message"], false, what);
    let text = |cx: &mut Cx<'_>, key: &str| {
        members
            .iter()
            .find(|m| m.key == key)
            .and_then(|m| cx.string(&m.value, &format!("{what}.{key}"), true))
    };
    let sunset = text(cx, "sunset");
    if let Some(s) = &sunset {
        if !is_date(&s.value) {
            cx.report(
                Diagnostic::at(
                    &rule::INVALID_VALUE,
                    s.loc,
                    format!("`{}` is not a date", s.value),
                )
                .label("expected YYYY-MM-DD")
                .help("write the day after which the tool may be removed, e.g. `2027-06-30`"),
            );
        }
    }
    let message = text(cx, "message");
    Some(Spanned::new(
        crate::ir::Deprecation {
            sunset: sunset.map(|s| s.value),
            message: message.map(|m| m.value),
        },
        loc,
    ))
}

/// The top-level `content` of an EditorMCP or RAVE spec (see [`read_content`]).
pub(crate) fn top_content(cx: &mut Cx<'_>, obj: &[Member]) -> Vec<Spanned<crate::ir::ContentDecl>> {
    obj.iter()
        .find(|m| m.key == "content")
        .map(|m| read_content(cx, &m.value, "`content`"))
        .unwrap_or_default()
}

/// A spec's `content` (`what` names it): the content blocks the tool
/// returns, a list of `{type, mimeType?, description?}`; `type` one of MCP's
/// block types, a MIME type `type/subtype` (an image's `image/...`, a
/// sound's `audio/...`), no type listed twice with the same MIME type.
pub(crate) fn read_content(
    cx: &mut Cx<'_>,
    node: &Node,
    what: &str,
) -> Vec<Spanned<crate::ir::ContentDecl>> {
    use crate::ir::{CONTENT_TYPES, ContentDecl};
    let mut out: Vec<Spanned<ContentDecl>> = Vec::new();
    for item in cx.array(node, what).unwrap_or_default() {
        let Some(members) = cx.object(item, &format!("an item of {what}")) else {
            continue;
        };
        let item_what = format!("an item of {what}");
        cx.check_keys(
            members,
            &["type", "mimeType", "description"],
            false,
            &item_what,
        );
        let text = |cx: &mut Cx<'_>, key: &str| {
            members
                .iter()
                .find(|m| m.key == key)
                .and_then(|m| cx.string(&m.value, &format!("{what}[].{key}"), true))
        };
        let Some(kind) = text(cx, "type") else {
            cx.report(
                cx.at(
                    &rule::MISSING_FIELD,
                    item.span,
                    format!("{item_what} has no `type`"),
                )
                .label("`type` missing")
                .help(format!("write the block's type: {}", list(CONTENT_TYPES))),
            );
            continue;
        };
        if !CONTENT_TYPES.contains(&kind.value.as_str()) {
            let noun = "content type";
            cx.unknown_value(
                &rule::INVALID_VALUE,
                kind.loc,
                &kind.value,
                noun,
                CONTENT_TYPES,
            );
            continue;
        }
        let mime_type = text(cx, "mimeType");
        if let Some(m) = &mime_type {
            let media = match kind.value.as_str() {
                "image" | "audio" => Some(kind.value.as_str()),
                _ => None,
            };
            let well_formed = m.value.split_once('/').is_some_and(|(a, b)| {
                !a.is_empty() && !b.is_empty() && !m.value.contains(char::is_whitespace)
            });
            let fits = media.is_none_or(|t| m.value.starts_with(&format!("{t}/")));
            if !well_formed || !fits {
                let expected = media.map_or("type/subtype".to_owned(), |t| format!("{t}/..."));
                cx.report(
                    Diagnostic::at(
                        &rule::INVALID_VALUE,
                        m.loc,
                        format!("`{}` is not a MIME type of {} content", m.value, kind.value),
                    )
                    .label(format!("expected {expected}"))
                    .help("write the MIME type the blocks carry, e.g. `image/png`, `audio/wav`, `text/csv`"),
                );
            }
        }
        let decl = ContentDecl {
            kind: kind.value.clone(),
            mime_type: mime_type.map(|m| m.value),
            description: text(cx, "description").map(|d| d.value),
        };
        let loc = cx.loc(item.span);
        if out
            .iter()
            .any(|d| d.value.kind == decl.kind && d.value.mime_type == decl.mime_type)
        {
            let shown = match &decl.mime_type {
                Some(m) => format!("{} ({m})", decl.kind),
                None => decl.kind.clone(),
            };
            cx.listed_twice(loc, &shown, what);
            continue;
        }
        out.push(Spanned::new(decl, loc));
    }
    out
}

/// `YYYY-MM-DD` with a month of 1-12 and a day of 1-31.
fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, len: usize| {
        (p.len() == len && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse::<u32>().ok())?
    };
    matches!(parts.as_slice(), [y, m, d]
        if num(y, 4).is_some()
            && num(m, 2).is_some_and(|m| (1..=12).contains(&m))
            && num(d, 2).is_some_and(|d| (1..=31).contains(&d)))
}

/// Checks that a time limit is within (0, 3600] seconds.
pub fn check_timeout(cx: &mut Cx<'_>, seconds: f64, loc: Loc) -> bool {
    let ok = seconds > 0.0 && seconds <= 3600.0;
    if !ok {
        cx.report(
            Diagnostic::at(
                &rule::TIMEOUT_RANGE,
                loc,
                format!("time limit {seconds} s is out of range"),
            )
            .label("must be > 0 and <= 3600")
            .help("give the limit in seconds, e.g. `15`"),
        );
    }
    ok
}

/// Reads `examples`: `[{description, input, output}]` (EditorMCP's shape,
/// which MCP tools carry in `_meta.toolgen`); 1-3 are asked for (TG0403).
pub(crate) fn read_examples(cx: &mut Cx<'_>, obj: &[Member]) -> Option<Vec<Example>> {
    let Some(m) = obj.iter().find(|m| m.key == "examples") else {
        return Some(Vec::new());
    };
    let NodeKind::Array(items) = &m.value.kind else {
        cx.wrong_type(&m.value, "`examples`", "an array");
        return None;
    };
    let mut out = Vec::new();
    // Whether every example could be read; only then is their number judged.
    let mut ok = true;
    for item in items {
        let Some(fields) = cx.object(item, "an example") else {
            ok = false;
            continue;
        };
        cx.check_keys(
            fields,
            &["description", "input", "output"],
            false,
            "an example",
        );
        let get = |k: &str| fields.iter().find(|m| m.key == k).map(|m| &m.value);
        let description = get("description")
            .and_then(|d| cx.string(d, "`description`", false))
            .map(|s| s.value);
        let input = match get("input") {
            Some(n) if matches!(n.kind, NodeKind::Object(_)) => cx.located(n),
            Some(n) => {
                cx.wrong_type(n, "an example's `input`", "an object of arguments");
                ok = false;
                continue;
            }
            None => {
                cx.require(
                    item,
                    fields,
                    "input",
                    "an example",
                    "an object of arguments ({} for none)",
                );
                ok = false;
                continue;
            }
        };
        // Any JSON value: an output schema need not be an object's (a count,
        // a text); it is checked against the schema like any other.
        let output = get("output").map(|n| cx.located(n));
        out.push(Example {
            description,
            input,
            output,
            loc: cx.loc(item.span),
        });
    }
    let n = out.len();
    if ok && (n == 0 || n > 3) {
        cx.report(
            cx.at(
                &rule::EXAMPLE_COUNT,
                m.value.span,
                format!("tool has {n} examples; the format asks for 1-3 representative ones"),
            )
            .label(if n == 0 {
                "no examples"
            } else {
                "too many examples"
            }),
        );
    }
    // Broken examples have been reported and are left out; the rest are still checked.
    Some(out)
}

/// How a tool may be called as a task (MCP's `Tool.execution.taskSupport`).
pub const TASK_SUPPORT: &[&str] = &["forbidden", "optional", "required"];

/// `execution` (MCP's `Tool.execution`, which every format takes): an
/// object whose `taskSupport` says whether the tool may run as a task. Kept
/// as written, to be published as it is; `None` (reported) when it is not
/// one.
pub(crate) fn read_execution(cx: &mut Cx<'_>, obj: &[Member]) -> Option<(String, LocatedValue)> {
    let m = obj.iter().find(|m| m.key == "execution")?;
    let fields = cx.object(&m.value, "`execution`")?;
    cx.check_keys(fields, &["taskSupport"], false, "`execution`");
    if let Some(t) = fields.iter().find(|f| f.key == "taskSupport") {
        let support = cx.string(&t.value, "`execution.taskSupport`", true)?;
        if !TASK_SUPPORT.contains(&support.value.as_str()) {
            let what = "`taskSupport` value";
            cx.unknown_value(
                &rule::INVALID_VALUE,
                support.loc,
                &support.value,
                what,
                TASK_SUPPORT,
            );
            return None;
        }
    }
    Some((m.key.clone(), cx.located(&m.value)))
}

/// A value to start a missing field with, from what it holds.
fn placeholder(holds: &str) -> &'static str {
    if holds.contains("object") {
        "{}"
    } else if holds.contains("list") || holds.contains("array") {
        "[]"
    } else if holds.contains("number") || holds.contains("integer") {
        "0"
    } else if holds.contains("boolean") {
        "false"
    } else {
        "\"\""
    }
}
