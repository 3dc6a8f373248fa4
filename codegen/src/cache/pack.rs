//! The packs the cache keeps pieces in: bodies one after another, then an index
//! sorted by key, then a footer; written as a run renders, read by bisection.

use crate::bytes;
use crate::digest::{self, Digest, Hasher};
use std::path::{Path, PathBuf};

/// More packs than this are merged into one, so a run reads few files.
pub(super) const MAX_PACKS: usize = 8;

/// Past this many bytes of pieces, a merge keeps only the pieces the run
/// used or rendered, so the cache does not grow without bound.
pub(super) const MAX_BYTES: usize = 256 << 20;

pub(super) const PACK_MAGIC: &str = "toolgen-pack 3\n";

/// An index entry: the key, the body's offset and length, and its digest,
/// little-endian; entries sorted by key, so a run reads an index whole,
/// with nothing to parse, and looks a key up by bisection.
pub(super) const ENTRY_LEN: usize = 16 + 8 + 8 + 16;

/// `index <offset> <length> <digest>\n`, both numbers 16 hex digits.
pub(super) const FOOTER_LEN: usize = 6 + 16 + 1 + 16 + 1 + 32 + 1;

/// A pack written piece by piece into a hidden temporary file of the packs
/// directory, renamed to `<digest>.pack` by [`PackWriter::finish`]. A write
/// that fails drops the pack (the cache only makes runs faster).
pub(super) struct PackWriter {
    pub(super) file: std::io::BufWriter<std::fs::File>,
    pub(super) temp: PathBuf,
    pub(super) digest: Hasher,
    /// Bytes written so far: where the next body starts.
    pub(super) written: u64,
    /// What the index will say, in the order the bodies were written.
    pub(super) entries: Vec<(Digest, Place)>,
    pub(super) keys: digest::FastSet<Digest>,
    pub(super) failed: bool,
}

impl PackWriter {
    pub(super) fn create(dir: &Path) -> Option<PackWriter> {
        std::fs::create_dir_all(dir).ok()?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let temp = dir.join(format!(".fresh-{}-{nanos}.tmp", std::process::id()));
        let file = std::fs::File::create(&temp).ok()?;
        let mut w = PackWriter {
            file: std::io::BufWriter::new(file),
            temp,
            digest: Hasher::new(),
            written: 0,
            entries: Vec::new(),
            keys: digest::FastSet::default(),
            failed: false,
        };
        w.write(PACK_MAGIC.as_bytes());
        Some(w)
    }

    pub(super) fn write(&mut self, bytes: &[u8]) {
        use std::io::Write as _;
        self.digest.bytes(bytes);
        self.written += bytes.len() as u64;
        self.failed |= self.file.write_all(bytes).is_err();
    }

    pub(super) fn add(&mut self, key: Digest, body: &[u8]) {
        if !self.keys.insert(key) {
            return;
        }
        let place = Place {
            pack: 0,
            offset: self.written,
            len: body.len(),
            digest: Digest::of(body),
        };
        self.entries.push((key, place));
        self.write(body);
    }

    /// Puts the pack into place: its path and the keys it holds (`None`
    /// when it failed).
    pub(super) fn finish(mut self, dir: &Path) -> Option<(PathBuf, digest::FastSet<Digest>)> {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_unstable_by_key(|(key, _)| *key);
        let mut index = Vec::with_capacity(entries.len() * ENTRY_LEN);
        for (key, p) in entries {
            index.extend_from_slice(&key.0.to_le_bytes());
            index.extend_from_slice(&p.offset.to_le_bytes());
            index.extend_from_slice(&(p.len as u64).to_le_bytes());
            index.extend_from_slice(&p.digest.0.to_le_bytes());
        }
        let footer = format!(
            "index {:016x} {:016x} {}\n",
            self.written,
            index.len(),
            Digest::of(&index).hex()
        );
        self.write(&index);
        self.write(footer.as_bytes());
        let PackWriter {
            file,
            temp,
            digest,
            keys,
            failed,
            ..
        } = self;
        let path = dir.join(format!("{}.pack", digest.finish().hex()));
        let done = !failed && file.into_inner().is_ok() && std::fs::rename(&temp, &path).is_ok();
        if !done {
            let _ = std::fs::remove_file(&temp);
        }
        done.then_some((path, keys))
    }
}

/// The index of every pack of `paths` whose footer and index are whole.
pub(super) fn read_packs(paths: &[PathBuf]) -> Packs {
    let mut packs: Vec<PackIndex> = paths
        .iter()
        .filter_map(|pack| {
            let file = std::fs::File::open(pack).ok()?;
            read_index(file)
        })
        .collect();
    // The largest first: after a merge it holds nearly every piece, and a
    // key is looked for in the packs in turn.
    packs.sort_by_key(|p| std::cmp::Reverse(p.len()));
    Packs { packs }
}

/// The packs opened, each with its index as read, and where each piece is
/// in them: a piece is read (and checked) when it is asked for.
#[derive(Debug, Default)]
pub(super) struct Packs {
    pub(super) packs: Vec<PackIndex>,
}

/// One pack's file and index. The index is kept as its bytes (entries of
/// [`ENTRY_LEN`] bytes, sorted by key) and looked up by bisection where it
/// lies: building a sorted table of every pack's entries (ten thousand for
/// a thousand tools) cost more than the lookups of a run that changed one
/// tool, in copies and in fresh memory.
#[derive(Debug)]
pub(super) struct PackIndex {
    pub(super) file: std::fs::File,
    pub(super) entries: Vec<u8>,
    /// Per entry: whether this run took the piece (what a merge keeps);
    /// marked without a lock by the threads that look pieces up.
    pub(super) used: Vec<std::sync::atomic::AtomicBool>,
    /// Where the entries whose keys start with each number of `bits` bits
    /// start (and, last, where they end): a key is looked for among a few
    /// entries, not by a bisection of the whole index, whose random reads
    /// of half a megabyte were the largest part of a lookup.
    pub(super) starts: Vec<u32>,
    pub(super) bits: u32,
}

/// Where a piece is: its pack, place and length, and the digest of its body.
#[derive(Clone, Copy, Debug)]
pub(super) struct Place {
    pub(super) pack: usize,
    pub(super) offset: u64,
    pub(super) len: usize,
    pub(super) digest: Digest,
}

impl Packs {
    /// The body of the piece at `place`, if it is undamaged.
    pub(super) fn get(&self, place: Place) -> Option<Vec<u8>> {
        let body = read_at(&self.packs.get(place.pack)?.file, place.offset, place.len)?;
        (Digest::of(&body) == place.digest).then_some(body)
    }

    /// [`Packs::get`] into `out`, which must be of the body's length.
    pub(super) fn get_into(&self, place: Place, out: &mut [u8]) -> bool {
        let Some(pack) = self
            .packs
            .get(place.pack)
            .filter(|_| place.len == out.len())
        else {
            return false;
        };
        read_into(&pack.file, place.offset, out) && Digest::of(out) == place.digest
    }

    /// The first pack that holds `key`, and its entry there.
    pub(super) fn locate(&self, key: Digest) -> Option<(usize, usize)> {
        (self.packs.iter().enumerate()).find_map(|(n, pack)| Some((n, pack.find(key)?)))
    }

    /// The piece of `key`, if a pack holds it (for a merge: nothing marked).
    pub(super) fn get_key(&self, key: Digest) -> Option<Vec<u8>> {
        let (pack, at) = self.locate(key)?;
        self.get(self.packs.get(pack)?.place(pack, at)?)
    }

    pub(super) fn mark_used(&self, pack: usize, at: usize) {
        if let Some(used) = self.packs.get(pack).and_then(|p| p.used.get(at)) {
            used.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The keys of the pieces this run took.
    pub(super) fn used(&self) -> digest::FastSet<Digest> {
        let taken = |p: &PackIndex, i: usize| {
            (p.used.get(i)).is_some_and(|u| u.load(std::sync::atomic::Ordering::Relaxed))
        };
        (self.packs.iter())
            .flat_map(|p| {
                (0..p.len())
                    .filter(move |&i| taken(p, i))
                    .map(move |i| p.key(i))
            })
            .flatten()
            .collect()
    }

    /// Every entry of every pack (a key held by two packs comes twice).
    pub(super) fn entries(&self) -> impl Iterator<Item = (Digest, Place)> + '_ {
        self.packs.iter().enumerate().flat_map(|(n, pack)| {
            (0..pack.len()).filter_map(move |i| {
                let (key, place) = pack.entry(i)?;
                Some((key, Place { pack: n, ..place }))
            })
        })
    }
}

impl PackIndex {
    pub(super) fn len(&self) -> usize {
        self.entries.len() / ENTRY_LEN
    }

    /// The `i`th entry's key and place (in pack 0).
    pub(super) fn entry(&self, i: usize) -> Option<(Digest, Place)> {
        let at = i.checked_mul(ENTRY_LEN)?;
        let mut r = bytes::Reader::new(self.entries.get(at..at.checked_add(ENTRY_LEN)?)?);
        let key = Digest(r.u128()?);
        let offset = r.u64()?;
        let len = usize::try_from(r.u64()?).ok()?;
        let digest = Digest(r.u128()?);
        Some((
            key,
            Place {
                pack: 0,
                offset,
                len,
                digest,
            },
        ))
    }

    /// The `i`th entry's place, as pack `pack`.
    pub(super) fn place(&self, pack: usize, i: usize) -> Option<Place> {
        Some(Place {
            pack,
            ..self.entry(i)?.1
        })
    }

    /// The `i`th entry's key alone.
    pub(super) fn key(&self, i: usize) -> Option<Digest> {
        let at = i.checked_mul(ENTRY_LEN)?;
        let bytes = self.entries.get(at..at.checked_add(16)?)?;
        Some(Digest(u128::from_le_bytes(bytes.try_into().ok()?)))
    }

    /// The entry of `key` (the index was checked sorted): bisection among
    /// the entries whose keys start with `key`'s first bits ([`PackIndex::starts`]).
    pub(super) fn find(&self, key: Digest) -> Option<usize> {
        let prefix = prefix_of(key, self.bits);
        let (mut low, mut high) = (*self.starts.get(prefix)?, *self.starts.get(prefix + 1)?);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.key(mid as usize)?.cmp(&key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid as usize),
            }
        }
        None
    }
}

/// The first `bits` bits of `key`, as a number (0 for no bits).
pub(super) fn prefix_of(key: Digest, bits: u32) -> usize {
    key.0.checked_shr(128 - bits).unwrap_or(0) as usize
}

/// For entries sorted by key: where the entries of each prefix of `bits`
/// bits start, and (last) where they end.
pub(super) fn prefix_starts(keys: impl Iterator<Item = Digest>, len: usize, bits: u32) -> Vec<u32> {
    let prefixes = 1usize << bits;
    let mut starts = Vec::with_capacity(prefixes + 1);
    for (i, key) in keys.enumerate() {
        let prefix = prefix_of(key, bits);
        while starts.len() <= prefix {
            starts.push(i as u32);
        }
    }
    starts.resize(prefixes + 1, len as u32);
    starts
}

/// The index of one pack (places relative to it), or `None` unless its
/// magic, footer and index are whole, its keys in order and every place
/// lies among the bodies.
pub(super) fn read_index(file: std::fs::File) -> Option<PackIndex> {
    let size = file.metadata().ok()?.len();
    let bodies_start = PACK_MAGIC.len() as u64;
    let footer_at = size.checked_sub(FOOTER_LEN as u64)?;
    if footer_at < bodies_start || read_at(&file, 0, PACK_MAGIC.len())? != PACK_MAGIC.as_bytes() {
        return None;
    }
    let footer = String::from_utf8(read_at(&file, footer_at, FOOTER_LEN)?).ok()?;
    let ("index", at, len, digest) = place_line(footer.strip_suffix('\n')?)? else {
        return None;
    };
    if at.checked_add(len as u64)? != footer_at || at < bodies_start {
        return None;
    }
    let entries = read_at(&file, at, len)?;
    if Digest::of(&entries) != digest || entries.len() % ENTRY_LEN != 0 {
        return None;
    }
    let len = entries.len() / ENTRY_LEN;
    // Keys are digests, spread evenly: about one entry per prefix.
    let bits = len.max(1).next_power_of_two().trailing_zeros().min(24);
    let mut index = PackIndex {
        file,
        entries,
        used: (0..len).map(|_| Default::default()).collect(),
        bits,
        starts: Vec::new(),
    };
    let mut last = None;
    for i in 0..index.len() {
        let (key, place) = index.entry(i)?;
        let inside =
            place.offset >= bodies_start && place.offset.checked_add(place.len as u64)? <= at;
        if !inside || last.is_some_and(|last| last > key) {
            return None;
        }
        last = Some(key);
    }
    u32::try_from(len).ok()?;
    index.starts = prefix_starts((0..len).filter_map(|i| index.key(i)), len, bits);
    Some(index)
}

/// `<name> <offset> <length> <digest>`, the numbers in hex: the shape of the
/// footer (named `index`).
pub(super) fn place_line(line: &str) -> Option<(&str, u64, usize, Digest)> {
    let mut parts = line.split(' ');
    let (Some(name), Some(offset), Some(len), Some(digest), None) = (
        parts.next(),
        parts.next().and_then(|n| u64::from_str_radix(n, 16).ok()),
        parts.next().and_then(|n| usize::from_str_radix(n, 16).ok()),
        parts.next().and_then(Digest::parse),
        parts.next(),
    ) else {
        return None;
    };
    Some((name, offset, len, digest))
}

/// `len` bytes of `file` from `offset`, or `None` if it is shorter.
pub(super) fn read_at(file: &std::fs::File, offset: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0; len];
    read_into(file, offset, &mut buf).then_some(buf)
}

/// Fills `buf` from `file` at `offset`; `false` when it cannot be read whole.
pub(super) fn read_into(file: &std::fs::File, offset: u64, buf: &mut [u8]) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt as _;
        file.read_exact_at(buf, offset).is_ok()
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt as _;
        let mut done = 0;
        while done < buf.len() {
            match file.seek_read(&mut buf[done..], offset + done as u64) {
                Ok(0) | Err(_) => return false,
                Ok(n) => done += n,
            }
        }
        true
    }
    #[cfg(not(any(unix, windows)))]
    {
        // No positioned reads: the cache only ever misses.
        let _ = (file, offset, buf);
        false
    }
}

/// Removes the temporary files of runs that stopped before renaming them
/// (an hour old: a run still writing its own is never touched).
pub(super) fn remove_stale_temporaries(dir: &Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        let stale = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < hour_ago);
        if stale && path.extension().is_some_and(|x| x == "tmp") {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Temporary file and rename; a failure leaves the cache as it was.
pub(super) fn write_quietly(path: &Path, bytes: &[u8]) -> bool {
    let Some(parent) = path.parent() else {
        return false;
    };
    if std::fs::create_dir_all(parent).is_err() {
        return false;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(
        ".{name}.{}-{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    let done = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done.is_ok()
}
