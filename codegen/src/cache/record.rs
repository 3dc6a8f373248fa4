//! What the output directory held after the last run, by path: each file's
//! stamp and digest (`Recorded`), and what of it still holds (`Known`), so that
//! a file known to hold its contents is neither read nor written again.

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

    fn follows(&self, rel: &str) -> bool {
        self.entries.last().is_none_or(|last| *last.path < *rel)
    }

    /// The index, stamp and digest of `dir/rel` as recorded, when the file
    /// still has that stamp (so it still holds contents of that digest).
    pub(crate) fn vouched(&self, dir: &Stamps, rel: &str) -> Option<(usize, FileStamp, Digest)> {
        let (i, stamp, known) = self.get(rel)?;
        (dir.read(rel) == Some(stamp)).then_some((i, stamp, known))
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of output files: sorted whatever the order given, found
    /// by path; an entry copied from another is the same; paths out of order
    /// (or twice) are refused.
    #[test]
    fn a_record_of_output_files_is_sorted_and_reads_back() {
        let stamp = |n: u64| FileStamp {
            len: n,
            modified: n as i128 * 7,
            inode: n + 1,
        };
        let entry = |p: &str, n: u64| (p.to_owned(), stamp(n), Digest(u128::from(n) << 64));
        let paths = [
            "rust/src/b.rs",
            "catalog/tools.json",
            "é/x",
            ".toolgen-files",
            "rust/src/a.rs",
        ];
        let recorded = Recorded::of(paths.iter().zip(1..).map(|(p, n)| entry(p, n)));
        let recorded = recorded.unwrap_or_default();
        assert_eq!(recorded.len(), paths.len());
        let mut sorted = paths.to_vec();
        sorted.sort_unstable();
        let listed: Vec<&str> = recorded.entries().map(|(p, _, _)| p).collect();
        assert_eq!(listed, sorted);
        for (p, n) in paths.iter().zip(1..) {
            let (i, s, d) = recorded.get(p).unwrap_or((usize::MAX, stamp(0), Digest(0)));
            assert_eq!((s, d), (stamp(n), Digest(u128::from(n) << 64)), "{p}");
            assert_eq!(recorded.entry(i).map(|(q, _, _)| q), Some(*p));
        }
        for absent in ["", "rust", "rust/src/c.rs", "zz"] {
            assert_eq!(recorded.get(absent), None, "{absent}");
        }
        assert_eq!(Recorded::of([entry("a", 1), entry("a", 2)]), None, "twice");
        let many = Recorded::of((0..3000).map(|n| entry(&format!("dir/{n}.rs"), n)));
        let many = many.unwrap_or_default();
        for n in 0..3000 {
            let found = many.get(&format!("dir/{n}.rs")).map(|(_, s, _)| s);
            assert_eq!(found, Some(stamp(n)));
            assert_eq!(many.get(&format!("dir/{n}.r")), None);
        }
        // Out of order: refused.
        let mut copy = recorded.clone();
        assert!(copy.is_sorted());
        assert!(!copy.push("a", stamp(1), Digest(1)), "before the last");
        let unsorted: Recorded = serde_json::from_value(serde_json::json!({"entries": [
            {"path": "b", "stamp": {"len": 1, "modified": 1, "inode": 1}, "digest": 1},
            {"path": "a", "stamp": {"len": 1, "modified": 1, "inode": 1}, "digest": 1},
        ]}))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(!unsorted.is_sorted());
    }
}
