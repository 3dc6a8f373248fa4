//! Positions as LSP counts them (lines, UTF-16 code units) and as toolgen
//! does (byte offsets), and file URIs as paths.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, Uri};

/// Where each line of a text starts, to turn byte offsets into positions
/// and back.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and back to a
    /// character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|s| *s <= offset) - 1;
        let start = self.starts[line];
        let character: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end.max(start)))
    }

    /// The byte offset of `position` (clamped to its line and the text).
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |e| e - 1);
        let mut units = 0u32;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

/// The path of a `file:` URI, percent-decoded.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file:///path` (no host), or `file://localhost/path`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

/// The `file:` URI of an absolute path, percent-encoded where it must be.
pub fn uri_of(path: &Path) -> Option<Uri> {
    let path = std::path::absolute(path).ok()?;
    let mut text = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            text.push(b as char);
        } else {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_come_back() {
        let text = "ab\n\u{e9}\u{1F600}x\n";
        let lines = Lines::new(text);
        let x = text.find('x').unwrap_or(0);
        assert_eq!(
            lines.position(x),
            Position::new(1, 3),
            "é is one unit, 😀 two"
        );
        assert_eq!(lines.offset(Position::new(1, 3)), x);
        assert_eq!(
            lines.offset(Position::new(9, 0)),
            text.len(),
            "past the end"
        );
        assert_eq!(lines.position(text.len()), Position::new(2, 0));
    }

    #[test]
    fn file_uris_are_paths() {
        let uri: Uri = "file:///tmp/my%20tools/a.json"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(path_of(&uri), Some(PathBuf::from("/tmp/my tools/a.json")));
        let back = uri_of(Path::new("/tmp/my tools/a.json")).map(|u| u.as_str().to_owned());
        assert_eq!(back.as_deref(), Some("file:///tmp/my%20tools/a.json"));
    }
}
