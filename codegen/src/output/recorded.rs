//! What the output directory held after the last run, by path: each file's
//! stamp and digest (`Recorded`), and what of it still holds (`Known`), so that
//! a file known to hold its contents is neither read nor written again.

use super::error::checked_join;
use crate::digest::Digest;
use crate::source::{FileStamp, Stamps};

/// The files of an output directory as a run recorded them: each one's
/// relative path, stamp and digest, sorted by path (found by bisection).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    entries: Vec<Entry>,
}

/// One output file as a run recorded it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub path: String,
    pub stamp: FileStamp,
    pub digest: Digest,
}

impl Recorded {
    #[cfg(test)]
    /// Entries in any order (sorted here); `None` when a path is there twice.
    pub fn of(entries: impl IntoIterator<Item = (String, FileStamp, Digest)>) -> Option<Recorded> {
        let mut entries: Vec<_> = entries.into_iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut recorded = Recorded::default();
        for (rel, stamp, digest) in &entries {
            recorded.push(rel, *stamp, *digest).then_some(())?;
        }
        Some(recorded)
    }

    pub fn with_capacity(entries: usize) -> Recorded {
        Recorded {
            entries: Vec::with_capacity(entries),
        }
    }

    /// Whether the paths are in strictly increasing order, as bisection
    /// needs (a record read back that is not is not used).
    pub fn is_sorted(&self) -> bool {
        self.entries.windows(2).all(|w| w[0].path < w[1].path)
    }

    /// Adds an entry after the others; `false` (and nothing added) unless
    /// `rel` sorts after the last one's path.
    pub fn push(&mut self, rel: &str, stamp: FileStamp, digest: Digest) -> bool {
        if !self.follows(rel) {
            return false;
        }
        self.entries.push(Entry {
            path: rel.to_owned(),
            stamp,
            digest,
        });
        true
    }

    /// Adds `other`'s `i`th entry, as [`Recorded::push`] would.
    pub fn push_from(&mut self, other: &Recorded, i: usize) -> bool {
        match other.entries.get(i) {
            Some(e) if self.follows(&e.path) => {
                self.entries.push(e.clone());
                true
            }
            _ => false,
        }
    }

    fn follows(&self, rel: &str) -> bool {
        self.entries.last().is_none_or(|last| *last.path < *rel)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The index, stamp and digest of the entry of `rel`.
    pub fn get(&self, rel: &str) -> Option<(usize, FileStamp, Digest)> {
        let i = self.entries.binary_search_by(|e| (*e.path).cmp(rel)).ok()?;
        let e = &self.entries[i];
        Some((i, e.stamp, e.digest))
    }

    /// The `i`th entry.
    pub fn entry(&self, i: usize) -> Option<(&str, FileStamp, Digest)> {
        let e = self.entries.get(i)?;
        Some((&e.path, e.stamp, e.digest))
    }

    /// Every entry, in path order.
    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = (&str, FileStamp, Digest)> {
        (0..self.len()).filter_map(|i| self.entry(i))
    }

    /// The path of the `i`th entry (`""` past the end).
    fn path(&self, i: usize) -> &str {
        self.entries.get(i).map_or("", |e| &e.path)
    }
}

/// Files of the output directory as an earlier run left them (see
/// [`Recorded`]). A file whose stamp and digest still match is known to be
/// unchanged without being read; the files a run found so (`held`) are
/// recorded again as they were.
#[derive(Debug, Default)]
pub struct Known {
    pub(super) recorded: Recorded,
    /// Per entry: whether the stream took the file as held.
    pub(super) held: Vec<std::sync::atomic::AtomicBool>,
}

impl Known {
    pub fn new(recorded: Recorded) -> Known {
        let held = (0..recorded.len()).map(|_| Default::default()).collect();
        Known { recorded, held }
    }

    /// The record it was made of.
    pub fn recorded(&self) -> &Recorded {
        &self.recorded
    }

    /// The index of `rel`'s entry when the stream took the file as held.
    /// Asked in path order, from `*from` on (where the last answer left it,
    /// `0` at first): the record is walked once, not searched per path.
    pub fn held_from(&self, rel: &str, from: &mut usize) -> Option<usize> {
        let r = &self.recorded;
        while *from < r.len() && r.path(*from) < rel {
            *from += 1;
        }
        let i = *from;
        let held = (i < r.len() && r.path(i) == rel)
            .then(|| self.held.get(i))
            .flatten()?;
        held.load(std::sync::atomic::Ordering::Relaxed).then_some(i)
    }

    /// The index, stamp and digest of `dir/rel` as recorded, when the file
    /// still has that stamp (so it still holds contents of that digest).
    pub(super) fn vouched(&self, dir: &Stamps, rel: &str) -> Option<(usize, FileStamp, Digest)> {
        let (i, stamp, known) = self.recorded.get(rel)?;
        (dir.read(rel) == Some(stamp)).then_some((i, stamp, known))
    }

    /// Whether `dir/rel` holds `contents` (of digest `digest`): `Some` when
    /// it does, with the stamp that vouched for it without reading it
    /// (`Some(None)`: read and compared). A file as recorded is not read
    /// either way: its contents are of the recorded digest, the same as
    /// `digest` or not (a set-wide file that changed, megabytes for a large
    /// tool set, was read only to find it different).
    pub(super) fn unchanged(
        &self,
        dir: &Stamps,
        rel: &str,
        contents: &[u8],
        digest: Digest,
    ) -> Option<Option<FileStamp>> {
        if let Some((_, stamp, known)) = self.vouched(dir, rel) {
            return (known == digest).then_some(Some(stamp));
        }
        let same = checked_join(dir.root(), rel)
            .is_ok_and(|path| std::fs::read(path).is_ok_and(|old| old == contents));
        same.then_some(None)
    }
}
