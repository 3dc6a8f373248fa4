//! A strict RFC 8259 JSON parser that keeps spans, reports duplicate keys and
//! limits nesting depth. `serde_json` is fast but keeps no positions and lets
//! a later duplicate key silently win, so spec files are parsed here.

use serde_json::Number;

use super::{MAX_DEPTH, Member, Node, NodeKind, Parsed, RawError};
use crate::diag::{Diagnostic, rule};
use crate::source::{FileId, Loc, Span};

/// Parses `text` (the whole file) as one JSON value.
pub fn parse(file: FileId, text: &str) -> Parsed {
    let mut p = Parser {
        src: text.as_bytes(),
        pos: 0,
        depth: 0,
        dups: Vec::new(),
    };
    // A UTF-8 byte order mark is tolerated.
    if text.starts_with('\u{feff}') {
        p.pos = 3;
    }
    let result = p.document();
    let mut diagnostics: Vec<Diagnostic> = p
        .dups
        .into_iter()
        .map(|(key, second, first)| duplicate_key(file, &key, second, first))
        .collect();
    match result {
        Ok(node) => Parsed {
            root: Some(node),
            diagnostics,
        },
        Err(e) => {
            diagnostics.push(e.into_diagnostic(file));
            Parsed {
                root: None,
                diagnostics,
            }
        }
    }
}

/// The TG0006 diagnostic for a key seen twice in one object (shared with the YAML reader).
pub(crate) fn duplicate_key(file: FileId, key: &str, second: Span, first: Span) -> Diagnostic {
    Diagnostic::at(
        &rule::DUPLICATE_KEY,
        Loc::new(file, second),
        format!("duplicate key `{key}`"),
    )
    .label("second definition")
    .secondary(Loc::new(file, first), "first defined here")
    .help("remove one of the two entries")
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    depth: usize,
    /// Duplicate keys: key, second span, first span.
    dups: Vec<(String, Span, Span)>,
}

fn describe_byte(b: Option<u8>) -> String {
    match b {
        None => "end of file".to_owned(),
        Some(b) if b.is_ascii_graphic() => format!("`{}`", b as char),
        Some(b'\n') => "end of line".to_owned(),
        Some(b) if b < 0x80 => format!("byte 0x{b:02x}"),
        Some(_) => "a non-ASCII character".to_owned(),
    }
}

impl Parser<'_> {
    fn err(&self, span: Span, message: impl Into<String>) -> RawError {
        RawError {
            rule: &rule::SYNTAX,
            span,
            message: message.into(),
            help: None,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn unexpected(&self, expected: &str) -> RawError {
        let found = self.peek();
        let mut e = self.err(
            Span::new(self.pos, self.pos + usize::from(found.is_some())),
            format!("expected {expected}, found {}", describe_byte(found)),
        );
        e.help = match found {
            Some(b'/') => Some("JSON has no comments; remove them".to_owned()),
            Some(b'\'') => Some("JSON strings use double quotes".to_owned()),
            Some(b'}' | b']') if expected.contains("value") => {
                Some("remove the trailing comma before this bracket".to_owned())
            }
            _ => None,
        };
        e
    }

    fn document(&mut self) -> Result<Node, RawError> {
        self.skip_ws();
        let node = self.value()?;
        self.skip_ws();
        if self.pos < self.src.len() {
            let mut e = self.err(
                Span::new(self.pos, self.pos + 1),
                format!(
                    "unexpected {} after the end of the JSON value",
                    describe_byte(self.peek())
                ),
            );
            e.help = Some("a spec file holds exactly one JSON value".to_owned());
            return Err(e);
        }
        Ok(node)
    }

    fn value(&mut self) -> Result<Node, RawError> {
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => {
                let s = self.string()?;
                Ok(Node {
                    kind: NodeKind::String(s),
                    span: Span::new(start, self.pos),
                })
            }
            Some(b't') => self.literal("true", NodeKind::Bool(true)),
            Some(b'f') => self.literal("false", NodeKind::Bool(false)),
            Some(b'n') => self.literal("null", NodeKind::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected("a value")),
        }
    }

    fn literal(&mut self, word: &str, kind: NodeKind) -> Result<Node, RawError> {
        let start = self.pos;
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(Node {
                kind,
                span: Span::new(start, self.pos),
            })
        } else {
            let end = self.src[start..]
                .iter()
                .position(|b| !b.is_ascii_alphanumeric())
                .map_or(self.src.len(), |n| start + n);
            let word_found = String::from_utf8_lossy(&self.src[start..end]).into_owned();
            Err(self.err(
                Span::new(start, end),
                format!("expected a value, found `{word_found}`"),
            ))
        }
    }

    fn number(&mut self) -> Result<Node, RawError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.err(
                        Span::new(start, self.pos + 1),
                        "numbers must not have leading zeros",
                    ));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.unexpected("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit after the decimal point"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.unexpected("a digit in the exponent"));
            }
            self.digits();
        }
        let span = Span::new(start, self.pos);
        let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("0");
        let number: Number = serde_json::from_str(text)
            .map_err(|_| self.err(span, format!("number `{text}` is out of range")))?;
        Ok(Node {
            kind: NodeKind::Number(number),
            span,
        })
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn hex4(&mut self) -> Result<u32, RawError> {
        let start = self.pos;
        let Some(chunk) = self.src.get(self.pos..self.pos + 4) else {
            return Err(self.err(Span::new(start, self.src.len()), "incomplete `\\u` escape"));
        };
        let s = std::str::from_utf8(chunk).unwrap_or("");
        let v = u32::from_str_radix(s, 16).map_err(|_| {
            self.err(
                Span::new(start, start + 4),
                "`\\u` must be followed by four hexadecimal digits",
            )
        })?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, RawError> {
        let start = self.pos;
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(std::str::from_utf8(&self.src[run_start..self.pos]).unwrap_or(""));
            match self.peek() {
                None => {
                    return Err(self.err(
                        Span::new(start, start + 1),
                        "unterminated string: no closing `\"` before the end of the file",
                    ));
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let esc_start = self.pos;
                    self.pos += 1;
                    let c = self.peek();
                    self.pos += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.src.get(self.pos..self.pos + 2) != Some(b"\\u") {
                                    return Err(self.err(
                                        Span::new(esc_start, self.pos),
                                        "unpaired UTF-16 surrogate in `\\u` escape",
                                    ));
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err(
                                        Span::new(esc_start, self.pos),
                                        "invalid UTF-16 surrogate pair in `\\u` escape",
                                    ));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            match char::from_u32(code) {
                                Some(ch) => out.push(ch),
                                None => {
                                    return Err(self.err(
                                        Span::new(esc_start, self.pos),
                                        "unpaired UTF-16 surrogate in `\\u` escape",
                                    ));
                                }
                            }
                        }
                        _ => {
                            return Err(self.err(
                                Span::new(esc_start, self.pos.min(self.src.len())),
                                "invalid escape sequence",
                            ));
                        }
                    }
                }
                Some(b) => {
                    let mut e = self.err(
                        Span::new(self.pos, self.pos + 1),
                        format!("control character 0x{b:02x} inside a string"),
                    );
                    e.help = Some(if b == b'\n' {
                        "strings cannot span lines; write `\\n` for a line break".to_owned()
                    } else {
                        "escape control characters (`\\t`, `\\u0001`)".to_owned()
                    });
                    return Err(e);
                }
            }
        }
    }

    fn enter(&mut self) -> Result<(), RawError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(RawError {
                rule: &rule::TOO_DEEP,
                span: Span::new(self.pos, self.pos + 1),
                message: format!("values are nested more than {MAX_DEPTH} levels deep"),
                help: None,
            });
        }
        Ok(())
    }

    /// The items of an array or object from its opening bracket to `close`:
    /// `item` reads one (seeing those before it), separated by commas.
    fn items<T>(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self, &[T]) -> Result<T, RawError>,
    ) -> Result<(Vec<T>, Span), RawError> {
        let start = self.pos;
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                let next = item(self, &items)?;
                items.push(next);
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b) if b == close => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.unexpected(&format!("`,` or `{}`", close as char))),
                }
            }
        }
        self.depth -= 1;
        Ok((items, Span::new(start, self.pos)))
    }

    fn array(&mut self) -> Result<Node, RawError> {
        let (items, span) = self.items(b']', |p, _| p.value())?;
        Ok(Node {
            kind: NodeKind::Array(items),
            span,
        })
    }

    fn object(&mut self) -> Result<Node, RawError> {
        let (members, span) = self.items(b'}', Self::member)?;
        Ok(Node {
            kind: NodeKind::Object(members),
            span,
        })
    }

    /// `"key": value`; a key used before in the object is remembered.
    fn member(&mut self, before: &[Member]) -> Result<Member, RawError> {
        if self.peek() != Some(b'"') {
            let mut e = self.unexpected("a string key");
            if matches!(self.peek(), Some(b'}')) {
                e.help = Some("remove the trailing comma before this brace".to_owned());
            } else if matches!(self.peek(), Some(b) if b.is_ascii_alphabetic()) {
                e.help = Some("object keys must be double-quoted".to_owned());
            }
            return Err(e);
        }
        let key_start = self.pos;
        let key = self.string()?;
        let key_span = Span::new(key_start, self.pos);
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("`:`"));
        }
        self.pos += 1;
        self.skip_ws();
        let value = self.value()?;
        if let Some(first) = before.iter().find(|m| m.key == key) {
            self.dups.push((key.clone(), key_span, first.key_span));
        }
        Ok(Member {
            key,
            key_span,
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Node {
        let p = parse(FileId(0), text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        p.root.unwrap_or(Node {
            kind: NodeKind::Null,
            span: Span::default(),
        })
    }

    fn err(text: &str) -> (String, Span) {
        let p = parse(FileId(0), text);
        let d = p.diagnostics.into_iter().last();
        let d = d.map(|d| (d.message, d.loc.map(|l| l.span).unwrap_or_default()));
        d.unwrap_or_default()
    }

    #[test]
    fn parses_and_round_trips_through_serde() {
        let text =
            r#"{"a": [1, -2.5e3, true, false, null], "b": "x\u00e9\ud83d\ude00\n", "c": {}}"#;
        let expected: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(ok(text).to_json(), expected);
    }

    #[test]
    fn keeps_spans() {
        let n = ok("{\n  \"k\": \"v\"\n}");
        let m = n.member("k").cloned();
        let m = m.map(|m| (m.key_span, m.value.span));
        assert_eq!(m, Some((Span::new(4, 7), Span::new(9, 12))));
    }

    #[test]
    fn reports_errors_at_their_position() {
        assert_eq!(err("{\"a\": 1,}").1, Span::new(8, 9));
        assert_eq!(err("[1 2]").1, Span::new(3, 4));
        assert!(err("{\"a\": 01}").0.contains("leading zeros"));
        assert!(err("\"abc").0.contains("unterminated"));
        assert!(err("{} x").0.contains("after the end"));
        assert!(err("[tru]").0.contains("`tru`"));
        assert!(err("\"\\ud800\"").0.contains("surrogate"));
        assert!(err("// c\n{}").0.contains("expected a value"));
    }

    #[test]
    fn duplicate_keys_and_depth() {
        let p = parse(FileId(0), "{\"a\": 1, \"a\": 2}");
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].rule.code, "TG0006");
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let p = parse(FileId(0), &deep);
        assert_eq!(p.diagnostics[0].rule.code, "TG0007");
        let fine = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(FileId(0), &fine).diagnostics.is_empty());
    }
}
