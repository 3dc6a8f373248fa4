//! YAML into the spanned [`Node`] tree, on top of `saphyr-parser`'s event API.
//!
//! `serde_yaml` is archived and keeps no positions, so toolgen builds its own
//! tree from parser events: every value and key keeps its span, duplicate keys
//! are reported, nesting depth is limited, and alias expansion is bounded so
//! that an "anchor bomb" (billion laughs) fails fast instead of exhausting memory.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as YSpan};
use serde_json::Number;

use super::{MAX_DEPTH, Member, Node, NodeKind, Parsed, RawError};
use crate::diag::{Diagnostic, rule};
use crate::source::{FileId, Span};

/// At most this many nodes (counting every alias expansion) per document.
pub const MAX_NODES: usize = 1_000_000;

/// How plain (unquoted) scalars are resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schema {
    /// YAML 1.2 core schema: `true`/`false`, `null`/`~`.
    #[default]
    Core,
    /// YAML 1.1 as R's yaml package writes it: also `yes`/`no`/`on`/`off` (any case) are booleans.
    Yaml11,
}

/// Parses the single YAML document in `text`.
pub fn parse(file: FileId, text: &str, schema: Schema) -> Parsed {
    let mut b = Builder {
        parser: Parser::new_from_str(text),
        text,
        ascii: text.is_ascii(),
        schema,
        anchors: HashMap::new(),
        nodes: 0,
        depth: 0,
        diagnostics: Vec::new(),
        file,
    };
    let result = b.document();
    let mut diagnostics = b.diagnostics;
    match result {
        Ok(root) => Parsed { root, diagnostics },
        Err(e) => {
            diagnostics.push(e.into_diagnostic(file));
            Parsed {
                root: None,
                diagnostics,
            }
        }
    }
}

struct Builder<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    text: &'a str,
    ascii: bool,
    schema: Schema,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    depth: usize,
    diagnostics: Vec<Diagnostic>,
    file: FileId,
}

impl<'a> Builder<'a> {
    fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            char_index.min(self.text.len())
        } else {
            self.text
                .char_indices()
                .nth(char_index)
                .map_or(self.text.len(), |(i, _)| i)
        }
    }

    fn span(&self, s: YSpan) -> Span {
        Span::new(self.byte(s.start.index()), self.byte(s.end.index()))
    }

    fn scan_error(&self, e: &ScanError) -> RawError {
        let at = self.byte(e.marker().index());
        let mut message = e.info().to_owned();
        let mut help = None;
        if self.text[..at.min(self.text.len())]
            .rsplit('\n')
            .next()
            .is_some_and(|line| line.contains('\t'))
            || message.contains("tab")
        {
            help = Some("YAML does not allow tabs for indentation; use spaces".to_owned());
        }
        if message.is_empty() {
            message = "invalid YAML".to_owned();
        }
        RawError {
            rule: &rule::SYNTAX,
            span: Span::new(at, at + 1),
            message: format!("YAML syntax error: {message}"),
            help,
        }
    }

    fn next(&mut self) -> Result<(Event<'a>, YSpan), RawError> {
        match self.parser.next_event() {
            Some(Ok(ev)) => Ok(ev),
            Some(Err(e)) => Err(self.scan_error(&e)),
            None => Err(RawError {
                rule: &rule::SYNTAX,
                span: Span::at(self.text.len()),
                message: "unexpected end of YAML input".to_owned(),
                help: None,
            }),
        }
    }

    fn document(&mut self) -> Result<Option<Node>, RawError> {
        let mut root = None;
        loop {
            let (ev, span) = self.next()?;
            match ev {
                Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
                Event::StreamEnd => return Ok(root),
                Event::DocumentStart(_) => {
                    if root.is_some() {
                        return Err(RawError {
                            rule: &rule::SYNTAX,
                            span: self.span(span),
                            message: "a spec file holds one YAML document, found a second"
                                .to_owned(),
                            help: Some("remove the `---` and everything after it".to_owned()),
                        });
                    }
                    let (ev, span) = self.next()?;
                    if matches!(ev, Event::DocumentEnd) {
                        continue;
                    }
                    root = Some(self.node(ev, span)?);
                }
                other => {
                    let n = self.node(other, span)?;
                    root = Some(n);
                }
            }
        }
    }

    fn count(&mut self, n: usize, span: Span) -> Result<(), RawError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            return Err(RawError {
                rule: &rule::TOO_DEEP,
                span,
                message: format!(
                    "the document expands to more than {MAX_NODES} values (aliases of anchors included)"
                ),
                help: Some(
                    "this looks like an alias bomb; spec files do not need nested aliases"
                        .to_owned(),
                ),
            });
        }
        Ok(())
    }

    fn node(&mut self, ev: Event<'a>, yspan: YSpan) -> Result<Node, RawError> {
        let span = self.span(yspan);
        self.count(1, span)?;
        match ev {
            Event::Scalar(value, style, anchor, tag) => {
                let forced_string = tag
                    .as_ref()
                    .is_some_and(|t| t.handle == "tag:yaml.org,2002:" && t.suffix == "str")
                    || tag.as_ref().is_some_and(|t| t.suffix == "str");
                let kind = if style == ScalarStyle::Plain && !forced_string {
                    self.resolve_plain(&value)
                } else {
                    NodeKind::String(value.into_owned())
                };
                let node = Node { kind, span };
                self.remember(anchor, &node);
                Ok(node)
            }
            Event::Alias(id) => match self.anchors.get(&id).map(node_count) {
                Some(size) => {
                    // Count before copying, so that a bomb never gets to allocate.
                    self.count(size, span)?;
                    let mut n = self.anchors.get(&id).cloned().unwrap_or(Node {
                        kind: NodeKind::Null,
                        span,
                    });
                    n.span = span;
                    Ok(n)
                }
                None => Err(RawError {
                    rule: &rule::SYNTAX,
                    span,
                    message: "alias refers to an unknown anchor".to_owned(),
                    help: None,
                }),
            },
            Event::SequenceStart(anchor, _) => {
                self.enter(span)?;
                let mut items = Vec::new();
                let end = loop {
                    let (ev, s) = self.next()?;
                    if matches!(ev, Event::SequenceEnd) {
                        break self.span(s);
                    }
                    items.push(self.node(ev, s)?);
                };
                self.depth -= 1;
                // A block sequence starts at its first `-`, which the parser's span skips.
                let span = self.back_to_dash(span);
                let node = Node {
                    kind: NodeKind::Array(items),
                    span: Span::new(span.start as usize, (end.end.max(span.end)) as usize),
                };
                self.remember(anchor, &node);
                Ok(node)
            }
            Event::MappingStart(anchor, _) => {
                self.enter(span)?;
                let mut members: Vec<Member> = Vec::new();
                let end = loop {
                    let (ev, s) = self.next()?;
                    if matches!(ev, Event::MappingEnd) {
                        break self.span(s);
                    }
                    let key_node = self.node(ev, s)?;
                    let key = match &key_node.kind {
                        NodeKind::String(s) => s.clone(),
                        NodeKind::Number(n) => n.to_string(),
                        NodeKind::Bool(b) => b.to_string(),
                        NodeKind::Null => "null".to_owned(),
                        _ => {
                            return Err(RawError {
                                rule: &rule::SYNTAX,
                                span: key_node.span,
                                message: "mapping keys must be plain scalars".to_owned(),
                                help: None,
                            });
                        }
                    };
                    let (vev, vs) = self.next()?;
                    let value = self.node(vev, vs)?;
                    if let Some(first) = members.iter().find(|m| m.key == key) {
                        self.diagnostics.push(super::json::duplicate_key(
                            self.file,
                            &key,
                            key_node.span,
                            first.key_span,
                        ));
                    }
                    members.push(Member {
                        key,
                        key_span: key_node.span,
                        value,
                    });
                };
                self.depth -= 1;
                let last = members.last().map_or(end.end, |m| m.value.span.end);
                let node = Node {
                    kind: NodeKind::Object(members),
                    span: Span::new(span.start as usize, last.max(span.end) as usize),
                };
                self.remember(anchor, &node);
                Ok(node)
            }
            _ => Err(RawError {
                rule: &rule::SYNTAX,
                span,
                message: "unexpected YAML event".to_owned(),
                help: None,
            }),
        }
    }

    /// Moves a span's start back over `- ` to the dash, when only a dash and
    /// spaces stand between the start of its line and the span.
    fn back_to_dash(&self, span: Span) -> Span {
        let start = span.start as usize;
        if self.text.get(start..).is_some_and(|t| t.starts_with('[')) {
            return span; // a flow sequence starts at its bracket
        }
        let line_start = self.text[..start.min(self.text.len())]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let before = &self.text[line_start..start.min(self.text.len())];
        match before.trim_end().strip_suffix('-') {
            Some(indent) if indent.trim().is_empty() && before.trim_end().len() < before.len() => {
                Span::new(line_start + before.trim_end().len() - 1, span.end as usize)
            }
            _ => span,
        }
    }

    fn enter(&mut self, span: Span) -> Result<(), RawError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(RawError {
                rule: &rule::TOO_DEEP,
                span,
                message: format!("values are nested more than {MAX_DEPTH} levels deep"),
                help: None,
            });
        }
        Ok(())
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
    }

    fn resolve_plain(&self, v: &str) -> NodeKind {
        match v {
            "" | "~" | "null" | "Null" | "NULL" => return NodeKind::Null,
            "true" | "True" | "TRUE" => return NodeKind::Bool(true),
            "false" | "False" | "FALSE" => return NodeKind::Bool(false),
            _ => {}
        }
        if self.schema == Schema::Yaml11 {
            match v.to_ascii_lowercase().as_str() {
                "yes" | "on" | "y" => return NodeKind::Bool(true),
                "no" | "off" | "n" => return NodeKind::Bool(false),
                _ => {}
            }
        }
        if let Some(n) = parse_number(v) {
            return NodeKind::Number(n);
        }
        NodeKind::String(v.to_owned())
    }
}

fn node_count(n: &Node) -> usize {
    match &n.kind {
        NodeKind::Array(items) => 1 + items.iter().map(node_count).sum::<usize>(),
        NodeKind::Object(m) => 1 + m.iter().map(|m| 1 + node_count(&m.value)).sum::<usize>(),
        _ => 1,
    }
}

/// YAML 1.2 core-schema numbers: decimal integers, floats, `0x`/`0o` integers.
fn parse_number(v: &str) -> Option<Number> {
    let first = v.as_bytes().first()?;
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return None;
    }
    let digits = v.strip_prefix('+').unwrap_or(v);
    if let Some(hex) = digits.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok().map(Number::from);
    }
    if let Some(oct) = digits.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok().map(Number::from);
    }
    let is_int = digits
        .strip_prefix('-')
        .unwrap_or(digits)
        .bytes()
        .all(|b| b.is_ascii_digit());
    if is_int && !digits.is_empty() && digits != "-" {
        if let Ok(i) = digits.parse::<i64>() {
            return Some(Number::from(i));
        }
        if let Ok(u) = digits.parse::<u64>() {
            return Some(Number::from(u));
        }
    }
    let is_float_syntax = digits
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && digits.bytes().any(|b| b.is_ascii_digit());
    if is_float_syntax {
        return digits.parse::<f64>().ok().and_then(Number::from_f64);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str, schema: Schema) -> serde_json::Value {
        let p = parse(FileId(0), text, schema);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        p.root.map(|n| n.to_json()).unwrap_or_default()
    }

    #[test]
    fn scalars_resolve_by_schema() {
        let v = parse_ok(
            "a: yes\nb: 5\nc: 5.0\nd: '5'\ne: ~\nf: true\n",
            Schema::Core,
        );
        assert_eq!(v["a"], "yes");
        assert_eq!(v["b"], 5);
        assert!(v["c"].is_f64());
        assert_eq!(v["d"], "5");
        assert!(v["e"].is_null());
        assert_eq!(v["f"], true);
        let v = parse_ok("a: Yes\nb: off\n", Schema::Yaml11);
        assert_eq!(v["a"], true);
        assert_eq!(v["b"], false);
    }

    #[test]
    fn spans_point_at_values() {
        let p = parse(FileId(0), "name: x\nlist:\n  - 1\n", Schema::Core);
        let root = p.root.unwrap_or(Node {
            kind: NodeKind::Null,
            span: Span::default(),
        });
        let name = root.member("name").map(|m| (m.key_span, m.value.span));
        assert_eq!(name, Some((Span::new(0, 4), Span::new(6, 7))));
    }

    #[test]
    fn sequences_start_at_their_dash_or_bracket() {
        let text = "a:\n  - x\n  - [y]\n";
        let p = parse(FileId(0), text, Schema::Core);
        let root = p.root.unwrap_or(Node {
            kind: NodeKind::Null,
            span: Span::default(),
        });
        let a = root.get("a").cloned().unwrap_or(root.clone());
        assert_eq!(a.span.start, 5, "block sequence starts at its first dash");
        let inner = a
            .as_array()
            .and_then(|items| items.get(1))
            .map(|n| n.span.start);
        assert_eq!(inner, Some(13), "flow sequence starts at its bracket");
    }

    #[test]
    fn bombs_duplicates_and_errors() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = (b'a' + i - 1) as char;
            let cur = (b'a' + i) as char;
            bomb.push_str(&format!(
                "{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        let p = parse(FileId(0), &bomb, Schema::Core);
        assert!(p.root.is_none());
        assert_eq!(p.diagnostics[0].rule.code, "TG0007");
        let p = parse(FileId(0), "a: 1\na: 2\n", Schema::Core);
        assert_eq!(p.diagnostics[0].rule.code, "TG0006");
        let p = parse(FileId(0), "a: [1, 2\n", Schema::Core);
        assert_eq!(p.diagnostics[0].rule.code, "TG0005");
        let p = parse(FileId(0), "# only a comment\n", Schema::Core);
        assert!(p.root.is_none() && p.diagnostics.is_empty());
    }
}
