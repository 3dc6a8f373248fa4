//! The packs the cache keeps pieces in: the bodies one after another, then
//! their index (postcard: each piece's key, place, length and body digest),
//! then a trailer (the index's length and digest, and the magic). Written as
//! a run renders; a run reads the indexes, and a body when it is asked for.

use crate::digest::{self, Digest, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// More packs than this are merged into one, so a run reads few files.
pub(super) const MAX_PACKS: usize = 8;

/// Past this many bytes of pieces, a merge keeps only the pieces the run
/// used or rendered, so the cache does not grow without bound.
pub(super) const MAX_BYTES: usize = 256 << 20;

/// Ends every pack (a change of the form is a miss).
pub(super) const PACK_MAGIC: &[u8] = b"toolgen-pack 4\n";

/// The index's length (`u64`) and digest (`u128`), little-endian, then the magic.
pub(super) const TRAILER_LEN: usize = 8 + 16 + PACK_MAGIC.len();

/// Where a piece is: its pack, place and length, and the digest of its body.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Place {
    #[serde(skip)]
    pub(super) pack: usize,
    pub(super) offset: u64,
    pub(super) len: usize,
    pub(super) digest: Digest,
}

/// A pack written piece by piece into a hidden temporary file of the packs
/// directory, renamed to `<digest>.pack` by [`PackWriter::finish`]. A write
/// that fails drops the pack (the cache only makes runs faster).
pub(super) struct PackWriter {
    file: std::io::BufWriter<std::fs::File>,
    temp: PathBuf,
    digest: Hasher,
    /// Bytes written so far: where the next body starts.
    written: u64,
    /// What the index will say, in the order the bodies were written.
    entries: Vec<(Digest, Place)>,
    keys: digest::FastSet<Digest>,
    failed: bool,
}

impl PackWriter {
    pub(super) fn create(dir: &Path) -> Option<PackWriter> {
        std::fs::create_dir_all(dir).ok()?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let temp = dir.join(format!(".fresh-{}-{nanos}.tmp", std::process::id()));
        let file = std::fs::File::create(&temp).ok()?;
        Some(PackWriter {
            file: std::io::BufWriter::new(file),
            temp,
            digest: Hasher::new(),
            written: 0,
            entries: Vec::new(),
            keys: digest::FastSet::default(),
            failed: false,
        })
    }

    fn write(&mut self, bytes: &[u8]) {
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
        let index = postcard::to_allocvec(&self.entries).ok()?;
        let mut trailer = (index.len() as u64).to_le_bytes().to_vec();
        trailer.extend_from_slice(&Digest::of(&index).0.to_le_bytes());
        trailer.extend_from_slice(PACK_MAGIC);
        self.write(&index);
        self.write(&trailer);
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

/// The index of every pack of `paths` whose trailer and index are whole.
pub(super) fn read_packs(paths: &[PathBuf]) -> Packs {
    let mut packs: Vec<PackIndex> = paths
        .iter()
        .filter_map(|pack| read_index(std::fs::File::open(pack).ok()?))
        .collect();
    // The largest first: after a merge it holds nearly every piece, and a
    // key is looked for in the packs in turn.
    packs.sort_by_key(|p| std::cmp::Reverse(p.pieces.len()));
    Packs { packs }
}

/// The packs opened, each with its index as read: a piece is read (and
/// checked against its digest) when it is asked for.
#[derive(Debug, Default)]
pub(super) struct Packs {
    pub(super) packs: Vec<PackIndex>,
}

/// One pack's file and index: each piece's place by key, and whether this
/// run took it (what a merge keeps; marked without a lock by the threads
/// that look pieces up).
#[derive(Debug)]
pub(super) struct PackIndex {
    file: std::fs::File,
    pieces: digest::FastMap<Digest, (Place, AtomicBool)>,
}

impl Packs {
    /// The body of the piece at `place`, if it is undamaged.
    pub(super) fn get(&self, place: Place) -> Option<Vec<u8>> {
        let pack = self.packs.get(place.pack)?;
        let mut body = vec![0; place.len];
        (read_into(&pack.file, place.offset, &mut body) && Digest::of(&body) == place.digest)
            .then_some(body)
    }

    /// Where the first pack that holds `key` has it, and its mark of use.
    pub(super) fn locate(&self, key: Digest) -> Option<(Place, &AtomicBool)> {
        (self.packs.iter().enumerate()).find_map(|(n, pack)| {
            let (place, used) = pack.pieces.get(&key)?;
            Some((Place { pack: n, ..*place }, used))
        })
    }

    /// The piece of `key`, if a pack holds it (for a merge: nothing marked).
    pub(super) fn get_key(&self, key: Digest) -> Option<Vec<u8>> {
        self.get(self.locate(key)?.0)
    }

    /// The keys of the pieces this run took.
    pub(super) fn used(&self) -> digest::FastSet<Digest> {
        (self.packs.iter().flat_map(|p| &p.pieces))
            .filter(|(_, (_, used))| used.load(Ordering::Relaxed))
            .map(|(key, _)| *key)
            .collect()
    }

    /// Every piece of every pack (a key held by two packs comes twice).
    pub(super) fn entries(&self) -> impl Iterator<Item = (Digest, Place)> + '_ {
        (self.packs.iter().enumerate()).flat_map(|(n, pack)| {
            (pack.pieces.iter()).map(move |(k, (p, _))| (*k, Place { pack: n, ..*p }))
        })
    }
}

/// The index of one pack, or `None` unless its trailer and index are whole
/// and every place lies among the bodies.
fn read_index(file: std::fs::File) -> Option<PackIndex> {
    let size = file.metadata().ok()?.len();
    let trailer_at = size.checked_sub(TRAILER_LEN as u64)?;
    let trailer = read_at(&file, trailer_at, TRAILER_LEN)?;
    let (len, rest) = trailer.split_first_chunk::<8>()?;
    let (digest, magic) = rest.split_first_chunk::<16>()?;
    let at = trailer_at.checked_sub(u64::from_le_bytes(*len))?;
    if magic != PACK_MAGIC {
        return None;
    }
    let index = read_at(&file, at, usize::try_from(trailer_at - at).ok()?)?;
    if Digest::of(&index) != Digest(u128::from_le_bytes(*digest)) {
        return None;
    }
    let entries: Vec<(Digest, Place)> = postcard::from_bytes(&index).ok()?;
    let inside = |p: &Place| {
        p.offset
            .checked_add(p.len as u64)
            .is_some_and(|end| end <= at)
    };
    if !entries.iter().all(|(_, p)| inside(p)) {
        return None;
    }
    let pieces = (entries.into_iter())
        .map(|(key, place)| (key, (place, AtomicBool::new(false))))
        .collect();
    Some(PackIndex { file, pieces })
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
