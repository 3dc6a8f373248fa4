//! Generated files, in memory: what emitters produce and `output` writes.
//!
//! A leaf: it imports nothing of the crate.

use std::collections::BTreeMap;

/// The list of the files a generation wrote, kept in its output directory
/// (`output` writes it; the directory walk skips directories that hold one).
pub const FILE_LIST: &str = ".toolgen-files";

/// Generated files: relative path (with `/`) -> contents. Ordered, so output is deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratedFiles {
    files: BTreeMap<String, Vec<u8>>,
}

impl GeneratedFiles {
    pub fn new() -> GeneratedFiles {
        GeneratedFiles::default()
    }

    /// Adds a file. Paths are relative, `/`-separated, without `.` or `..` components.
    pub fn add(&mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), contents.into());
    }

    /// Adds a JSON file, pretty-printed with a final newline (a `Value` has
    /// sorted keys; [`crate::schema::Ordered`] keeps properties in spec order).
    pub fn add_json(&mut self, path: impl Into<String>, value: &impl serde::Serialize) {
        let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
        text.push('\n');
        self.add(path, text);
    }

    /// Moves every file of `other` into this set (a later file of the same
    /// path wins, as with [`GeneratedFiles::add`]).
    pub fn append(&mut self, other: GeneratedFiles) {
        self.files.extend(other.files);
    }

    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn total_bytes(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }
}
