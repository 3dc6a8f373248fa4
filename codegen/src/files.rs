//! Generated files: what emitters produce and `output` writes. Held in
//! memory, or handed as they are made to a [`FileSink`] (`output` writes
//! them into place, or finds them unchanged, while the rest is rendered) so
//! that a run does not hold every output at once.
//!
//! Above the leaves: it imports only `digest`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::digest::Digest;

/// The list of the files a generation wrote, kept in its output directory
/// (`output` writes it; the directory walk skips directories that hold one).
pub const FILE_LIST: &str = ".toolgen-files";

/// Takes generated files as they are made, from any thread.
pub trait FileSink: Send + Sync {
    /// Takes the file at `path`; gives its contents back when they are to
    /// be held (and written later) after all, `None` when it took them.
    fn put(&self, path: &str, contents: Vec<u8>) -> Option<Vec<u8>>;
    /// Takes the file at `path` without its contents when the sink can tell
    /// that it already holds contents of `digest` ([`Digest::of`]); `false`
    /// when it cannot (the contents are then given to `put`).
    fn holds(&self, path: &str, digest: Digest) -> bool {
        let _ = (path, digest);
        false
    }
}

/// Generated files: relative path (with `/`) -> contents. Ordered, so output
/// is deterministic. With a sink ([`GeneratedFiles::passing_to`]) a file the
/// sink takes is kept by path only ([`GeneratedFiles::passed`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratedFiles {
    files: BTreeMap<String, Vec<u8>>,
    passed: BTreeSet<String>,
    sink: Sink,
}

/// The sink of a [`GeneratedFiles`], if any; not part of its value.
#[derive(Clone, Default)]
struct Sink(Option<Arc<dyn FileSink>>);

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Sink" } else { "None" })
    }
}

impl PartialEq for Sink {
    fn eq(&self, _: &Sink) -> bool {
        true
    }
}

impl Eq for Sink {}

impl GeneratedFiles {
    pub fn new() -> GeneratedFiles {
        GeneratedFiles::default()
    }

    /// Files handed to `sink` as they are added.
    pub fn passing_to(sink: Arc<dyn FileSink>) -> GeneratedFiles {
        GeneratedFiles {
            sink: Sink(Some(sink)),
            ..GeneratedFiles::default()
        }
    }

    /// An empty set with this one's sink, to fill on another thread and
    /// [`append`](GeneratedFiles::append) here.
    pub fn sibling(&self) -> GeneratedFiles {
        GeneratedFiles {
            sink: self.sink.clone(),
            ..GeneratedFiles::default()
        }
    }

    /// This set without its sink (which it no longer hands files to).
    pub fn detached(mut self) -> GeneratedFiles {
        self.sink = Sink(None);
        self
    }

    /// Adds a file. Paths are relative, `/`-separated, without `.` or `..` components.
    pub fn add(&mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) {
        let path = path.into();
        let held = match &self.sink.0 {
            Some(sink) => sink.put(&path, contents.into()),
            None => Some(contents.into()),
        };
        match held {
            Some(contents) => {
                self.passed.remove(&path);
                self.files.insert(path, contents);
            }
            None => {
                self.files.remove(&path);
                self.passed.insert(path);
            }
        }
    }

    /// Adds the file at `path` without its contents when the sink already
    /// holds contents of the digest `digest` gives (asked only when there is
    /// a sink); `false` when it does not, and the contents are to be
    /// [`add`](GeneratedFiles::add)ed.
    pub fn add_if_held(&mut self, path: &str, digest: impl FnOnce() -> Option<Digest>) -> bool {
        let Some(sink) = &self.sink.0 else {
            return false;
        };
        if !digest().is_some_and(|d| sink.holds(path, d)) {
            return false;
        }
        self.files.remove(path);
        self.passed.insert(path.to_owned());
        true
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
        for path in other.passed {
            self.files.remove(&path);
            self.passed.insert(path);
        }
        for (path, contents) in other.files {
            self.passed.remove(&path);
            self.files.insert(path, contents);
        }
    }

    /// The contents of a held file (`None` for one the sink took).
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// Whether the set has a file at `path`, held or taken by the sink.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path) || self.passed.contains(path)
    }

    /// The held files, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// The files the sink took, by path, in order.
    pub fn passed(&self) -> impl Iterator<Item = &str> {
        self.passed.iter().map(String::as_str)
    }

    /// Every file's path, held or taken by the sink, in order.
    pub fn paths(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self.files.keys().map(String::as_str).collect();
        all.extend(self.passed());
        all.sort_unstable();
        all
    }

    /// How many files, held or taken by the sink.
    pub fn len(&self) -> usize {
        self.files.len() + self.passed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the held files.
    pub fn total_bytes(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }
}
