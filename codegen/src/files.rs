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
    fn put(&self, path: &str, contents: Vec<u8>) -> Option<Held>;
}

/// A file's contents a [`FileSink`] gave back, with their digest when it
/// worked it out (so that writing and recording them need not again: the
/// files that list every tool are megabytes).
pub struct Held {
    pub contents: Vec<u8>,
    pub digest: Option<Digest>,
}

/// Generated files: relative path (with `/`) -> contents. Ordered, so output
/// is deterministic. With a sink ([`GeneratedFiles::passing_to`]) a file the
/// sink takes is kept by path only ([`GeneratedFiles::passed`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratedFiles {
    files: BTreeMap<String, Vec<u8>>,
    /// The digests of held files, where the sink gave them.
    digests: Digests,
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

/// Digests of held files' contents: worked out from them, so not part of
/// a set's value (a set made with a sink equals one made without).
#[derive(Clone, Debug, Default)]
struct Digests(BTreeMap<String, Digest>);

impl PartialEq for Digests {
    fn eq(&self, _: &Digests) -> bool {
        true
    }
}

impl Eq for Digests {}

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
            None => Some(Held {
                contents: contents.into(),
                digest: None,
            }),
        };
        match held {
            Some(Held { contents, digest }) => {
                self.passed.remove(&path);
                match digest {
                    Some(digest) => self.digests.0.insert(path.clone(), digest),
                    None => self.digests.0.remove(&path),
                };
                self.files.insert(path, contents);
            }
            None => {
                self.files.remove(&path);
                self.digests.0.remove(&path);
                self.passed.insert(path);
            }
        }
    }

    /// Adds a JSON file, pretty-printed with a final newline (a `Value` has
    /// sorted keys; `schema::Ordered` keeps properties in spec order).
    pub fn add_json(&mut self, path: impl Into<String>, value: &impl serde::Serialize) {
        let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
        text.push('\n');
        self.add(path, text);
    }

    /// Moves every file of `other` into this set (a later file of the same
    /// path wins, as with [`GeneratedFiles::add`]).
    pub fn append(&mut self, mut other: GeneratedFiles) {
        // What `other` has is taken from `self` first (held files are few).
        for path in &other.passed {
            self.files.remove(path);
            self.digests.0.remove(path);
        }
        for path in other.files.keys() {
            self.passed.remove(path);
            self.digests.0.remove(path);
        }
        self.digests.0.append(&mut other.digests.0);
        // A set of many paths (an emitter's, thousands) is merged whole; a
        // few (one tool's files) are inserted: a merge rebuilds the tree.
        if other.passed.len() >= self.passed.len() / 16 {
            self.passed.append(&mut other.passed);
        } else {
            self.passed.extend(std::mem::take(&mut other.passed));
        }
        self.files.append(&mut other.files);
    }

    /// The contents of a held file (`None` for one the sink took).
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// The digest of a held file's contents (xxh3-128), as the sink
    /// gave it or worked out now.
    pub fn digest(&self, path: &str) -> Option<Digest> {
        let contents = self.files.get(path)?;
        Some(
            self.digests
                .0
                .get(path)
                .copied()
                .unwrap_or_else(|| Digest::of(contents)),
        )
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

    /// Every file's path, held or taken by the sink, in order (the two
    /// sorted sets merged: sorting thousands of paths with long common
    /// prefixes took a millisecond, twice a run).
    pub fn paths(&self) -> Vec<&str> {
        let mut all = Vec::with_capacity(self.len());
        let mut held = self.files.keys().map(String::as_str).peekable();
        let mut passed = self.passed().peekable();
        loop {
            let next = match (held.peek(), passed.peek()) {
                (Some(h), Some(p)) if h <= p => held.next(),
                (_, Some(_)) => passed.next(),
                (Some(_), None) => held.next(),
                (None, None) => break,
            };
            all.extend(next);
        }
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

/// Writes `contents` to `path` through a hidden temporary file beside it,
/// renamed into place (a reader sees the old file or the new, never part of
/// one), creating the parent directories; the temporary file is removed if
/// the write fails.
pub fn write_atomic(path: &std::path::Path, contents: &[u8]) -> std::io::Result<()> {
    let parent = path.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(parent)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique per thread: two threads of one run may write the same path.
    let tmp = parent.join(format!(
        ".{name}.{}-{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    let result = std::fs::write(&tmp, contents).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes (passes) the files under `p/`, holds the rest.
    struct TakesP;

    impl FileSink for TakesP {
        fn put(&self, path: &str, contents: Vec<u8>) -> Option<Held> {
            (!path.starts_with("p/")).then(|| Held {
                digest: path.ends_with('d').then(|| Digest::of(&contents)),
                contents,
            })
        }
    }

    #[test]
    fn appending_keeps_the_later_file_of_a_path() {
        let sink: Arc<dyn FileSink> = Arc::new(TakesP);
        let mut first = GeneratedFiles::passing_to(sink);
        for path in ["p/a", "p/b", "h/c", "h/d"] {
            first.add(path, "1");
        }
        let mut second = first.sibling().detached();
        // Held here what the first passed, and the other way round (the
        // detached set holds everything); a path of its own besides.
        for path in ["p/a", "h/e"] {
            second.add(path, "2");
        }
        let mut third = first.sibling();
        third.add("p/d", "3");
        third.add("p/c", "3");
        // A digest the sink gave is kept with the held file; else made.
        assert_eq!(first.digest("h/d"), Some(Digest::of(b"1")));
        assert_eq!(first.digest("h/c"), Some(Digest::of(b"1")));
        assert_eq!(first.digest("p/a"), None, "passed: not held");
        let mut with_digest = first.sibling();
        with_digest.add("h/d", "5");
        let mut without = GeneratedFiles::new();
        without.add("h/d", "5");
        assert_eq!(
            with_digest.detached(),
            without,
            "digests are not part of the value"
        );
        let (mut a, b) = (first.clone(), second);
        a.append(b);
        assert_eq!(a.get("p/a"), Some(&b"2"[..]), "held by the later set");
        assert_eq!(a.digest("p/a"), Some(Digest::of(b"2")));
        assert_eq!(a.passed().collect::<Vec<_>>(), ["p/b"]);
        assert_eq!(a.paths(), ["h/c", "h/d", "h/e", "p/a", "p/b"]);
        a.append(third);
        assert_eq!(a.passed().collect::<Vec<_>>(), ["p/b", "p/c", "p/d"]);
        assert_eq!(a.paths(), ["h/c", "h/d", "h/e", "p/a", "p/b", "p/c", "p/d"]);
        let mut mixed = first.sibling();
        for path in ["p/z", "a", "p/m", "q", "h/z"] {
            mixed.add(path, "4");
        }
        assert_eq!(
            mixed.paths(),
            ["a", "h/z", "p/m", "p/z", "q"],
            "held and passed merged"
        );
        assert_eq!(a.len(), 7);
        // Passed by the later set, after it was held here.
        let mut held = GeneratedFiles::new();
        held.add("p/x", "1");
        let mut passing = first.sibling();
        passing.add("p/x", "2");
        held.append(passing);
        assert_eq!(held.get("p/x"), None);
        assert_eq!(held.digest("p/x"), None);
        assert_eq!(held.passed().collect::<Vec<_>>(), ["p/x"]);
        assert_eq!(held.len(), 1);
    }
}
