//! What the output directory held after the last run, by path: each file's
//! stamp and digest (`Recorded`), and what of it still holds (`Known`), so that
//! a file known to hold its contents is neither read nor written again.

use super::error::checked_join;
use crate::bytes;
use crate::digest::Digest;
use crate::source::{FileStamp, Stamps};

/// The files of an output directory as a run recorded them: each one's
/// relative path, stamp and digest, sorted by path and kept in the binary
/// form they were read in (the run's record, `cache::RunStamp`). Thousands
/// are read and recorded on every run: a map of their paths cost more to
/// build, fill again and drop than the lookups of a run, and a file
/// unchanged since is recorded again by copying its bytes. A record read
/// back finds a path by its hash in a table of entry numbers (a bisection
/// compared a dozen long paths for each of the thousands of files a run
/// looks up); one being made, by bisection.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    /// The entries back to back: path ([`bytes::put_str`]), stamp, digest.
    pub(super) bytes: Vec<u8>,
    /// Where each entry starts in `bytes`, in path order.
    pub(super) at: Vec<u32>,
    /// Entry numbers by the hash of their paths (open addressing, a power
    /// of two long, [`NO_ENTRY`] where free); empty until read back.
    pub(super) slots: Vec<u32>,
}

/// The hash of a path in [`Recorded::slots`].
pub(super) fn path_hash(path: &[u8]) -> usize {
    xxhash_rust::xxh3::xxh3_64(path) as usize
}

/// A free slot of [`Recorded::slots`].
pub(super) const NO_ENTRY: u32 = u32::MAX;

/// The same entries, however they are looked up.
impl PartialEq for Recorded {
    fn eq(&self, other: &Recorded) -> bool {
        self.bytes == other.bytes && self.at == other.at
    }
}

impl Eq for Recorded {}

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

    /// Room for `entries` entries, about as long as `like`'s (a record of
    /// thousands is hundreds of kilobytes: grown by doubling, it would touch
    /// twice that).
    pub fn sized_like(like: &Recorded, entries: usize) -> Recorded {
        let each = like.bytes.len().checked_div(like.at.len()).unwrap_or(112);
        Recorded {
            bytes: Vec::with_capacity(entries * (each + 8)),
            at: Vec::with_capacity(entries),
            slots: Vec::new(),
        }
    }

    /// Reads what [`Recorded::put`] wrote; `None` when the bytes do not read
    /// or the paths are not in strictly increasing order (bisection would
    /// miss entries).
    pub fn take(r: &mut bytes::Reader<'_>) -> Option<Recorded> {
        let n = r.count()?;
        let start = r.rest();
        let mut at = Vec::with_capacity(n);
        let mut last: Option<&str> = None;
        for _ in 0..n {
            at.push(u32::try_from(start.len() - r.rest().len()).ok()?);
            let rel = r.str()?;
            if last.is_some_and(|l| l >= rel) {
                return None;
            }
            last = Some(rel);
            take_stamp(r)?;
            r.u128()?;
        }
        let len = start.len() - r.rest().len();
        let mut recorded = Recorded {
            bytes: start.get(..len)?.to_vec(),
            at,
            slots: Vec::new(),
        };
        recorded.slots = recorded.hash_table()?;
        Some(recorded)
    }

    /// [`Recorded::slots`] of the entries (`None` past `u32` entries).
    pub(super) fn hash_table(&self) -> Option<Vec<u32>> {
        let mask = (self.at.len() * 2).max(1).next_power_of_two() - 1;
        let mut slots = vec![NO_ENTRY; mask + 1];
        for i in 0..self.at.len() {
            let mut s = path_hash(self.path_bytes(i)) & mask;
            while slots[s] != NO_ENTRY {
                s = (s + 1) & mask;
            }
            slots[s] = u32::try_from(i).ok().filter(|&i| i != NO_ENTRY)?;
        }
        Some(slots)
    }

    /// Writes the entries: their count, then each.
    pub fn put(&self, out: &mut Vec<u8>) {
        bytes::put_len(out, self.at.len());
        out.extend_from_slice(&self.bytes);
    }

    /// Adds an entry after the others; `false` (and nothing added) unless
    /// `rel` sorts after the last one's path (or past 4 GiB of entries).
    pub fn push(&mut self, rel: &str, stamp: FileStamp, digest: Digest) -> bool {
        let Ok(at) = u32::try_from(self.bytes.len()) else {
            return false;
        };
        if !self.follows(rel.as_bytes()) {
            return false;
        }
        self.at.push(at);
        bytes::put_str(&mut self.bytes, rel);
        put_stamp(&mut self.bytes, &stamp);
        bytes::put_u128(&mut self.bytes, digest.0);
        true
    }

    /// Adds `other`'s `i`th entry as it is, as [`Recorded::push`] would.
    pub fn push_from(&mut self, other: &Recorded, i: usize) -> bool {
        let (Some(entry), Ok(at)) = (other.entry_bytes(i), u32::try_from(self.bytes.len())) else {
            return false;
        };
        if !self.follows(other.path_bytes(i)) {
            return false;
        }
        self.at.push(at);
        self.bytes.extend_from_slice(entry);
        true
    }

    pub(super) fn follows(&self, rel: &[u8]) -> bool {
        self.at.is_empty() || self.path_bytes(self.at.len() - 1) < rel
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// The index, stamp and digest of the entry of `rel`.
    pub fn get(&self, rel: &str) -> Option<(usize, FileStamp, Digest)> {
        let rel = rel.as_bytes();
        let i = if self.slots.is_empty() {
            (self.at)
                .binary_search_by(|&a| Self::path_at(&self.bytes, a).cmp(rel))
                .ok()?
        } else {
            let mask = self.slots.len() - 1;
            let mut s = path_hash(rel) & mask;
            loop {
                let i = *self.slots.get(s)?;
                if i == NO_ENTRY {
                    return None;
                }
                if self.path_bytes(i as usize) == rel {
                    break i as usize;
                }
                s = (s + 1) & mask;
            }
        };
        let (_, stamp, digest) = self.entry(i)?;
        Some((i, stamp, digest))
    }

    /// The `i`th entry.
    pub fn entry(&self, i: usize) -> Option<(&str, FileStamp, Digest)> {
        let mut r = bytes::Reader::new(self.bytes.get(*self.at.get(i)? as usize..)?);
        Some((r.str()?, take_stamp(&mut r)?, Digest(r.u128()?)))
    }

    /// Every entry, in path order.
    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = (&str, FileStamp, Digest)> {
        (0..self.len()).filter_map(|i| self.entry(i))
    }

    /// The bytes of the `i`th entry.
    pub(super) fn entry_bytes(&self, i: usize) -> Option<&[u8]> {
        let start = *self.at.get(i)? as usize;
        let end = self.at.get(i + 1).map_or(self.bytes.len(), |&e| e as usize);
        self.bytes.get(start..end)
    }

    /// The path of the `i`th entry, as bytes (checked UTF-8 when read).
    pub(super) fn path_bytes(&self, i: usize) -> &[u8] {
        self.at
            .get(i)
            .map_or(&[][..], |&a| Self::path_at(&self.bytes, a))
    }

    pub(super) fn path_at(bytes: &[u8], at: u32) -> &[u8] {
        let at = at as usize;
        let len = (bytes.get(at..at + 4))
            .and_then(|b| b.try_into().ok())
            .map_or(0, |b: [u8; 4]| u32::from_le_bytes(b) as usize);
        bytes.get(at + 4..at + 4 + len).unwrap_or_default()
    }
}

/// A file stamp in the run's record's binary form.
pub fn put_stamp(out: &mut Vec<u8>, stamp: &FileStamp) {
    let FileStamp {
        len,
        modified,
        inode,
    } = stamp;
    bytes::put_u64(out, *len);
    bytes::put_u128(out, *modified as u128);
    bytes::put_u64(out, *inode);
}

/// What [`put_stamp`] wrote.
pub fn take_stamp(r: &mut bytes::Reader<'_>) -> Option<FileStamp> {
    Some(FileStamp {
        len: r.u64()?,
        modified: r.u128()? as i128,
        inode: r.u64()?,
    })
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
        while *from < r.len() && r.path_bytes(*from) < rel.as_bytes() {
            *from += 1;
        }
        let i = *from;
        let held = (i < r.len() && r.path_bytes(i) == rel.as_bytes())
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
