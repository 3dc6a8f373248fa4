//! Where the cursor is in a spec: the keys from the document's root down to
//! it, and whether it is on a key or a value, read from the text around it
//! alone. An editor asks for completion while a document is half-written
//! (`{"name": "a", "` does not parse), so this does not use the parser: a
//! JSON document is scanned token by token up to the cursor, a YAML one
//! line by line by indentation.

use std::ops::Range;

/// One step down a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index,
}

/// What the cursor is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A key of the object at [`Spot::path`] (or where one goes).
    Key,
    /// The value at [`Spot::path`] (its last segment is its key or index).
    Value,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spot {
    pub path: Vec<Seg>,
    pub role: Role,
    /// The token under the cursor, quotes included (empty between tokens).
    pub token: Range<usize>,
    /// The token's text, unquoted.
    pub word: String,
    /// Whether the token is (or starts) a JSON string, its quote typed.
    pub quoted: bool,
}

impl Spot {
    /// The key the cursor's value belongs to (the last key of the path).
    pub fn key(&self) -> Option<&str> {
        self.path.iter().rev().find_map(|s| match s {
            Seg::Key(k) => Some(k.as_str()),
            Seg::Index => None,
        })
    }
}

/// The spot at byte `offset` of a JSON or YAML text.
pub fn spot(text: &str, offset: usize, yaml: bool) -> Spot {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    if yaml {
        yaml_spot(text, offset)
    } else {
        json_spot(text, offset)
    }
}

enum Frame {
    Object { key: Option<String>, value: bool },
    Array,
}

fn json_spot(text: &str, offset: usize) -> Spot {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            if i >= offset {
                break;
            }
            i += 1;
            continue;
        }
        let end = token_end(bytes, i);
        // The cursor is in this token, or just after its last character.
        let here = if c == b'"' {
            i < offset && offset <= end
        } else {
            i <= offset && offset <= end && !b"{}[],:".contains(&c)
        };
        if here || i >= offset {
            return json_token_spot(text, &stack, i..end, here && c == b'"', here);
        }
        match c {
            b'{' => stack.push(Frame::Object {
                key: None,
                value: false,
            }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b':' => {
                if let Some(Frame::Object { value, .. }) = stack.last_mut() {
                    *value = true;
                }
            }
            b',' => {
                if let Some(Frame::Object { key, value }) = stack.last_mut() {
                    *key = None;
                    *value = false;
                }
            }
            b'"' => {
                if let Some(Frame::Object { key, value: false }) = stack.last_mut() {
                    *key = Some(unquote(&text[i..end]));
                }
            }
            _ => {}
        }
        i = end;
    }
    json_token_spot(text, &stack, offset..offset, false, false)
}

/// The end of the token starting at `i`: past a string's closing quote (or
/// at the end of its line, unterminated), past a word, or one character.
fn token_end(bytes: &[u8], i: usize) -> usize {
    match bytes[i] {
        b'"' => {
            let mut j = i + 1;
            while j < bytes.len() {
                match bytes[j] {
                    b'\\' => j += 2,
                    b'"' => return j + 1,
                    b'\n' => return j,
                    _ => j += 1,
                }
            }
            bytes.len()
        }
        b'{' | b'}' | b'[' | b']' | b',' | b':' => i + 1,
        _ => {
            let mut j = i;
            while j < bytes.len() && !b" \t\r\n{}[],:\"".contains(&bytes[j]) {
                j += 1;
            }
            j.max(i + 1)
        }
    }
}

fn json_token_spot(
    text: &str,
    stack: &[Frame],
    token: Range<usize>,
    quoted: bool,
    on_token: bool,
) -> Spot {
    let mut path = Vec::new();
    for f in stack {
        match f {
            Frame::Object {
                key: Some(k),
                value: true,
            } => path.push(Seg::Key(k.clone())),
            Frame::Object { .. } => {}
            Frame::Array => path.push(Seg::Index),
        }
    }
    // The innermost frame's key was pushed only when the cursor is on its value.
    let role = match stack.last() {
        Some(Frame::Object { value: false, .. }) => Role::Key,
        _ => Role::Value,
    };
    if role == Role::Key {
        // A parent object's key is in the path, the object's own is not.
        if let Some(Frame::Object {
            key: Some(_),
            value: true,
        }) = stack.last()
        {
            path.pop();
        }
    }
    let token = if on_token {
        token
    } else {
        token.start..token.start
    };
    let word = unquote(&text[token.clone()]);
    Spot {
        path,
        role,
        token,
        word,
        quoted,
    }
}

/// A JSON string token's text (escapes resolved where they parse).
fn unquote(token: &str) -> String {
    if !token.starts_with('"') {
        return token.to_owned();
    }
    let closed = token.len() > 1 && token.ends_with('"');
    let full = if closed {
        token.to_owned()
    } else {
        format!("{token}\"")
    };
    serde_json::from_str(&full).unwrap_or_else(|_| token.trim_matches('"').to_owned())
}

/// A YAML line's parts: the column of its dashes (`- - a`), of its content,
/// and the key it starts with (`key:`), with whether a value follows on the
/// line.
struct Line<'t> {
    dash: Option<usize>,
    content: usize,
    key: Option<&'t str>,
    inline_value: bool,
}

fn yaml_line(line: &str) -> Option<Line<'_>> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let mut content = indent;
    let mut dash = None;
    while line[content..].starts_with("- ") || &line[content..] == "-" {
        dash.get_or_insert(content);
        content += 2.min(line.len() - content);
        content += line[content..].len() - line[content..].trim_start_matches(' ').len();
    }
    let rest = line[content..].trim_end();
    if (rest.is_empty() && dash.is_none()) || rest.starts_with('#') {
        return None;
    }
    let (key, inline_value) = match yaml_key_end(rest) {
        Some(end) => {
            let after = rest[end + 1..].trim();
            let k = rest[..end].trim().trim_matches(['"', '\'']);
            (Some(k), !(after.is_empty() || after.starts_with('#')))
        }
        None => (None, false),
    };
    Some(Line {
        dash,
        content,
        key,
        inline_value,
    })
}

/// Where a line's `key:` ends (its colon), if it starts with one.
fn yaml_key_end(rest: &str) -> Option<usize> {
    let quoted = rest.starts_with(['"', '\'']);
    let search_from = if quoted {
        let q = rest.as_bytes()[0] as char;
        rest[1..].find(q).map_or(rest.len(), |i| i + 2)
    } else {
        0
    };
    let end = rest[search_from.min(rest.len())..]
        .find(':')
        .map(|i| i + search_from)?;
    let after = &rest[end + 1..];
    let plain_key = !rest[..end].contains(['{', '[', '#']);
    (plain_key && (after.is_empty() || after.starts_with([' ', '\t']))).then_some(end)
}

fn yaml_spot(text: &str, offset: usize) -> Spot {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[line_start..line_end].trim_end_matches('\r');
    let col = offset - line_start;
    let parsed = yaml_line(line);
    let (content, dash) = match &parsed {
        Some(l) => (l.content, l.dash),
        None => {
            let indent = line.len() - line.trim_start_matches(' ').len();
            (indent.min(col.max(indent)), None)
        }
    };
    let mut path = parents(text, line_start, content.min(col.max(content)), dash);
    let key_end = parsed
        .as_ref()
        .and_then(|_| yaml_key_end(&line[content.min(line.len())..]))
        .map(|e| e + content);
    let (role, token) = match key_end {
        Some(end) if col > end => {
            let key = line[content..end]
                .trim()
                .trim_matches(['"', '\''])
                .to_owned();
            path.push(Seg::Key(key));
            let from = end + 1 + (line[end + 1..].len() - line[end + 1..].trim_start().len());
            let value_end = line[from..].find(" #").map_or(line.len(), |i| from + i);
            (Role::Value, from..value_end.max(from))
        }
        Some(end) => (Role::Key, content..end),
        None if dash.is_some_and(|d| d < col) => (
            Role::Value,
            content.min(line.len())..line.trim_end().len().max(content),
        ),
        None => {
            let from = content.min(col);
            (Role::Key, from..line.trim_end().len().max(from))
        }
    };
    let mut token = token.start.min(line.len())..token.end.min(line.len());
    // A flow sequence (`[a, b]`): the item under the cursor.
    if role == Role::Value && line[token.clone()].starts_with('[') && col > token.start {
        path.push(Seg::Index);
        let from = line[..col].rfind(['[', ',']).map_or(col, |i| i + 1);
        let from = from + (line[from..].len() - line[from..].trim_start().len()).min(col - from);
        let to = line[col..].find([',', ']']).map_or(line.len(), |i| col + i);
        token = from..to.max(from);
    }
    let raw = line[token.clone()].trim_end();
    let word = raw.trim_matches(['"', '\'']).to_owned();
    Spot {
        path,
        role,
        token: line_start + token.start..line_start + token.start + raw.len(),
        word,
        quoted: raw.starts_with(['"', '\'']),
    }
}

/// The keys and list items above the line at `line_start` whose content
/// starts at column `content` (after its dashes, the first at `dash`).
fn parents(text: &str, line_start: usize, content: usize, dash: Option<usize>) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::new();
    let mut cur = content;
    if let Some(d) = dash {
        out.push(Seg::Index);
        cur = d;
    }
    for line in text[..line_start].lines().rev() {
        if cur == 0 {
            break;
        }
        let Some(l) = yaml_line(line.trim_end_matches('\r')) else {
            continue;
        };
        if l.content < cur {
            match l.key {
                Some(k) if !l.inline_value => {
                    out.push(Seg::Key(k.to_owned()));
                    cur = l.content;
                }
                // A sibling's block scalar or a line this one continues.
                _ if l.dash.is_none() => cur = l.content,
                _ => {}
            }
            if let Some(d) = l.dash.filter(|d| *d < cur) {
                out.push(Seg::Index);
                cur = d;
            }
        } else if let Some(d) = l.dash.filter(|d| *d < cur) {
            out.push(Seg::Index);
            cur = d;
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, yaml: bool) -> Spot {
        let offset = text.find('|').unwrap_or(text.len());
        let text = text.replacen('|', "", 1);
        spot(&text, offset, yaml)
    }

    fn keys(s: &Spot) -> Vec<String> {
        (s.path.iter())
            .map(|s| match s {
                Seg::Key(k) => k.clone(),
                Seg::Index => "[]".to_owned(),
            })
            .collect()
    }

    #[test]
    fn json_keys_and_values_half_written() {
        let s = at(r#"{"name": "a", "|"#, false);
        assert_eq!((s.role, keys(&s), s.quoted), (Role::Key, vec![], true));
        let s = at(r#"{"inputs": {"x": {"type": "str|"#, false);
        assert_eq!(
            (s.role, keys(&s)),
            (
                Role::Value,
                vec!["inputs".into(), "x".into(), "type".into()]
            )
        );
        assert_eq!(s.word, "str");
        let s = at(r#"{"categories": ["a", |"#, false);
        assert_eq!(
            (s.role, keys(&s)),
            (Role::Value, vec!["categories".into(), "[]".into()])
        );
        let s = at(r#"{"inputs": {"x": {}}, "ti|tle": 1}"#, false);
        assert_eq!(
            (s.role, keys(&s), s.word.as_str()),
            (Role::Key, vec![], "title")
        );
        let s = at(r#"{"a": {"b": 1}, |"#, false);
        assert_eq!((s.role, keys(&s)), (Role::Key, vec![]));
        let s = at(r#"{"a": tr|"#, false);
        assert_eq!(
            (s.role, keys(&s), s.word.as_str()),
            (Role::Value, vec!["a".into()], "tr")
        );
    }

    #[test]
    fn yaml_keys_and_values_by_indentation() {
        let doc = "name: a\nparameters:\n  x:\n    type: str|ing\n";
        let s = at(doc, true);
        assert_eq!(keys(&s), vec!["parameters", "x", "type"]);
        assert_eq!((s.role, s.word.as_str()), (Role::Value, "string"));
        let s = at("name: a\nparameters:\n  x:\n    ty|\n", true);
        assert_eq!(
            (s.role, keys(&s), s.word.as_str()),
            (Role::Key, vec!["parameters".into(), "x".into()], "ty")
        );
        let s = at("categories:\n  - id: a\n    desc|\n", true);
        assert_eq!(
            (s.role, keys(&s)),
            (Role::Key, vec!["categories".into(), "[]".into()])
        );
        let s = at("categories:\n  - |\n", true);
        assert_eq!(
            (s.role, keys(&s)),
            (Role::Value, vec!["categories".into(), "[]".into()])
        );
        let s = at("a:\n  b: 1\nc|", true);
        assert_eq!((s.role, keys(&s)), (Role::Key, vec![]));
        let s = at("safetyLevels: [read-only, de|", true);
        assert_eq!(
            (s.role, keys(&s), s.word.as_str()),
            (Role::Value, vec!["safetyLevels".into(), "[]".into()], "de")
        );
        let s = at("lints:\n  |\n", true);
        assert_eq!((s.role, keys(&s)), (Role::Key, vec!["lints".into()]));
    }
}
