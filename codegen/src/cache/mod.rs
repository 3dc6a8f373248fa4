//! The generation cache: what earlier runs rendered, kept on disk so that a
//! run re-renders only what changed, and skips everything when nothing did.
//!
//! It holds two kinds of entries under its directory (by default
//! `target/toolgen-cache` of the Cargo workspace a command runs in):
//!
//! - **pieces** (`pieces/*.pack`): what emitters rendered and what validation
//!   found clean, by key (the digest of everything the piece is made from,
//!   see [`crate::keys::PieceCache`]) mixed with toolgen's build identity. A
//!   run streams what it made into one pack as it comes (a hidden temporary
//!   file, renamed when the run ends): the bodies one after another, then an
//!   index (each piece's key, place, length and the digest of its body, as
//!   fixed-size binary entries sorted by key: read whole, nothing parsed), then
//!   a fixed-size footer with the index's place and digest. A run reads the
//!   footers and indexes only, and each piece it uses when it uses it, checked
//!   against its digest: a pack whose index does not match is ignored whole,
//!   a piece whose body does not match is a miss (corrupt, truncated, not
//!   toolgen's: never trusted). Packs are merged past a few (the small ones
//!   among themselves while they are under half the largest, so that a small
//!   change does not copy every piece), and trimmed to what a run uses past a
//!   size. The index gives each body's digest without reading the body: a
//!   file known to hold it is not read at all.
//! - **run stamps** (`runs/`): per output directory and configuration, what
//!   the last clean run (no diagnostics at all) read and wrote: the input
//!   files with the facts of their text (its digest among them) and a spec
//!   file's stamp when it was read, unless it had changed just before: one
//!   that still has it is not read to be compared (see
//!   [`crate::load::ReadBefore`]); the
//!   template directories, and
//!   each output file's size, time, inode and digest, in a binary form of
//!   their own (`runs/<config>.run`). A run whose inputs and output all still
//!   match is skipped whole.
//!
//! Every write is a temporary file renamed into place; a cache that cannot
//! be written only makes runs slower.

mod pack;
use self::pack::{
    MAX_BYTES, MAX_PACKS, PackWriter, Packs, Place, read_packs, remove_stale_temporaries,
    write_quietly,
};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::digest::{self, Digest, Hasher};
use crate::keys::PieceCache;
use crate::output::{FileStamp, JOURNAL, Known, Recorded};

/// A cache directory.
pub struct Cache {
    root: PathBuf,
    identity: Digest,
    /// The indexes of the packs on disk, by full key: read at the first `get`.
    pieces: OnceLock<Packs>,
    /// The pack of the pieces this run renders, written as they come (so
    /// they are not held in memory) and put into place by [`Cache::flush`].
    fresh: Mutex<Option<PackWriter>>,
}

/// The cache directory a command run in `cwd` uses by default:
/// `$TOOLGEN_CACHE_DIR`, else `$CARGO_TARGET_DIR/toolgen-cache`, else
/// `target/toolgen-cache` of the Cargo workspace around `cwd` (the nearest
/// `Cargo.toml` with a `[workspace]` table, else the nearest `Cargo.toml`);
/// `None` outside a Cargo project without either variable.
pub fn default_dir(cwd: &Path) -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("TOOLGEN_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("toolgen-cache"));
    }
    workspace_target(cwd).map(|t| t.join("toolgen-cache"))
}

/// `target/` of the Cargo workspace around `cwd`.
fn workspace_target(cwd: &Path) -> Option<PathBuf> {
    let manifests: Vec<&Path> = cwd
        .ancestors()
        .filter(|d| d.join("Cargo.toml").is_file())
        .collect();
    let workspace = manifests.iter().find(|d| {
        std::fs::read_to_string(d.join("Cargo.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
    });
    workspace.or(manifests.first()).map(|d| d.join("target"))
}

impl Cache {
    pub fn open(dir: &Path) -> Cache {
        Cache::with_identity(dir, digest::build_identity())
    }

    fn with_identity(dir: &Path, identity: Digest) -> Cache {
        Cache {
            root: dir.to_path_buf(),
            identity,
            pieces: OnceLock::new(),
            fresh: Mutex::new(None),
        }
    }

    fn packs_dir(&self) -> PathBuf {
        self.root.join("pieces")
    }

    fn packs(&self) -> Vec<PathBuf> {
        let mut packs: Vec<PathBuf> = std::fs::read_dir(self.packs_dir())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "pack"))
            .collect();
        packs.sort();
        packs
    }

    /// The index of every pack whose footer and index are whole; bodies are
    /// read when asked for.
    fn read_packs(&self) -> Packs {
        read_packs(&self.packs())
    }

    /// Reads the packs' indexes now (else at the first look-up): a run
    /// that will look pieces up can have another thread read them while it
    /// does something else.
    pub fn read_indexes(&self) {
        self.pieces.get_or_init(|| self.read_packs());
    }

    /// Writes the pieces this run rendered as one pack (one file, however
    /// many pieces: on a slow disk a file per piece costs more than
    /// rendering). Past `MAX_PACKS` packs, they are merged: the smaller
    /// ones into one while together they are less than half the largest
    /// (so that a run that changed one tool does not copy the pieces of
    /// every other), else all into one, keeping only what this run used or
    /// rendered past `MAX_BYTES`.
    pub fn flush(&self) {
        let fresh = self.fresh.lock().unwrap_or_else(|e| e.into_inner()).take();
        let dir = self.packs_dir();
        let fresh_keys = fresh
            .and_then(|w| w.finish(&dir))
            .map(|(_, keys)| keys)
            .unwrap_or_default();
        remove_stale_temporaries(&dir);
        let packs = self.packs();
        if packs.len() < MAX_PACKS {
            return;
        }
        // Largest first, each pack's size read once.
        let mut sized: Vec<(u64, PathBuf)> = packs
            .into_iter()
            .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
            .collect();
        sized.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
        let largest = sized.first().map_or(0, |(size, _)| *size);
        let rest: u64 = sized.iter().skip(1).map(|(size, _)| size).sum();
        let all = rest >= largest / 2;
        let packs: Vec<PathBuf> = sized
            .into_iter()
            .skip(usize::from(!all))
            .map(|(_, p)| p)
            .collect();
        let used = self.pieces.get().map(Packs::used).unwrap_or_default();
        let on_disk = read_packs(&packs);
        let mut keys: Vec<Digest> = on_disk.entries().map(|(key, _)| key).collect();
        keys.sort_unstable();
        keys.dedup();
        let bytes: usize = on_disk.entries().map(|(_, p)| p.len).sum();
        if all && bytes > MAX_BYTES {
            keys.retain(|k| used.contains(k) || fresh_keys.contains(k));
        }
        let Some(mut merged) = PackWriter::create(&dir) else {
            return;
        };
        for k in keys {
            if let Some(body) = on_disk.get_key(k) {
                merged.add(k, &body);
            }
        }
        if let Some((written, _)) = merged.finish(&dir) {
            for p in packs.into_iter().filter(|p| *p != written) {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    /// What `take` finds of piece `key` where the packs (read at the first
    /// lookup) have it, the piece marked used (a merge keeps it) when found.
    fn look_up<T>(&self, key: Digest, take: impl FnOnce(&Packs, Place) -> Option<T>) -> Option<T> {
        let packs = self.pieces.get_or_init(|| self.read_packs());
        let (pack, at) = packs.locate(self.full_key(key))?;
        let found = take(packs, packs.place(pack, at)?)?;
        packs.mark_used(pack, at);
        Some(found)
    }

    fn full_key(&self, key: Digest) -> Digest {
        Digest::pair(self.identity, key)
    }

    /// The stamp of the last clean run of configuration `config` (which
    /// names the output directory); `None` when there is none or it is not
    /// one this toolgen wrote.
    pub fn stamp(&self, config: Digest) -> Option<RunStamp> {
        let bytes = std::fs::read(self.stamp_path(config)).ok()?;
        let stamp = RunStamp::from_bytes(&bytes)?;
        (stamp.identity == self.identity && stamp.config == config).then_some(stamp)
    }

    fn stamp_path(&self, config: Digest) -> PathBuf {
        self.root.join("runs").join(format!("{}.run", config.hex()))
    }

    /// Keeps the stamp of a clean run (not one that read or wrote a path
    /// that is not UTF-8: such a run is not skipped next time).
    pub fn keep_stamp(&self, stamp: &RunStamp) {
        match stamp.to_bytes() {
            Some(bytes) => {
                write_quietly(&self.stamp_path(stamp.config), &bytes);
            }
            None => self.drop_stamp(stamp.config),
        }
    }

    /// Forgets the stamp of `config` (a run that was not clean).
    pub fn drop_stamp(&self, config: Digest) {
        let _ = std::fs::remove_file(self.stamp_path(config));
    }

    /// The build identity stamps are made with.
    pub fn identity(&self) -> Digest {
        self.identity
    }
}

impl PieceCache for Cache {
    fn get(&self, key: Digest) -> Option<Vec<u8>> {
        self.look_up(key, Packs::get)
    }

    /// The digest the pack's index gives for the body (the index is checked
    /// whole when it is read); the body itself is not read.
    fn body_digest(&self, key: Digest) -> Option<Digest> {
        self.look_up(key, |_, place| Some(place.digest))
    }

    fn body_len(&self, key: Digest) -> Option<usize> {
        self.look_up(key, |_, place| Some(place.len))
    }

    fn get_into(&self, key: Digest, out: &mut [u8]) -> bool {
        self.look_up(key, |packs, place| packs.get_into(place, out).then_some(()))
            .is_some()
    }

    fn put(&self, key: Digest, value: &[u8]) {
        let full = self.full_key(key);
        let mut fresh = self.fresh.lock().unwrap_or_else(|e| e.into_inner());
        if fresh.is_none() {
            *fresh = PackWriter::create(&self.packs_dir());
        }
        if let Some(w) = fresh.as_mut() {
            w.add(full, value);
        }
    }
}

/// Marks a run stamp's form, so that a change of it is a miss.
const STAMP_MAGIC: &[u8] = b"toolgen run 5\n";

/// What a clean run read and wrote (see the module docs), kept as postcard
/// (serde's compact binary form: JSON took longer to read than the rest of
/// a run that finds nothing changed).
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunStamp {
    /// The toolgen build that wrote it ([`digest::build_identity`]).
    pub identity: Digest,
    /// The configuration's digest (it covers the output directory).
    pub config: Digest,
    /// The files the run found ([`crate::load::inputs`]), and every other
    /// file it read: path -> the facts of its text (its digest among them),
    /// and the file's stamp when it was read (spec files): a file that still
    /// has it is not read to be compared (as for outputs).
    pub inputs: crate::load::ReadBeforeMap,
    /// The list [`crate::load::inputs`] gave, which must not change.
    pub found: Vec<PathBuf>,
    /// Template directories -> digest of every file in them.
    pub templates: BTreeMap<PathBuf, Digest>,
    /// Output files (relative) -> stamp and digest of the contents, as
    /// the bytes read ([`Recorded`]).
    pub outputs: Recorded,
    /// Output directories (relative, `""` the top) -> stamp: a file added
    /// beside the generated ones changes its directory's time.
    pub dirs: BTreeMap<String, FileStamp>,
    pub tools: usize,
    pub tool_sets: usize,
}

impl RunStamp {
    /// Whether the inputs and the output directory are still as this run
    /// left them: `found` is what [`crate::load::inputs`] finds now.
    pub fn holds(&mut self, out: &Path, found: &[PathBuf]) -> bool {
        // First, whatever else: the load takes the inputs whose stamps still
        // hold unread, so each is looked at once.
        crate::load::check_stamps(&mut self.inputs);
        // Compared as bytes: both lists were made the same way, and comparing
        // thousands of paths component by component showed in profiles.
        self.found.len() == found.len()
            && (self.found.iter().zip(found)).all(|(a, b)| a.as_os_str() == b.as_os_str())
            && !out.join(JOURNAL).exists()
            && self.inputs_read_the_same()
            && self.templates.iter().all(|(dir, d)| tree_digest(dir) == *d)
            && self.dirs.iter().all(|(rel, stamp)| {
                std::fs::metadata(out.join(rel)).is_ok_and(|m| FileStamp::of(&m) == *stamp)
            })
            && self.outputs_held(out)
    }

    /// Whether every input left without a stamp by
    /// [`crate::load::check_stamps`] (none recorded, or it no longer held)
    /// still reads as recorded: a file touched but not changed still is.
    fn inputs_read_the_same(&self) -> bool {
        self.inputs.iter().all(|(path, read)| {
            read.stamp.is_some()
                || std::fs::read(path).is_ok_and(|b| Digest::of(&b) == read.text.digest)
        })
    }

    /// Whether every output file still has its recorded stamp: thousands of
    /// `statx`, spread over the cores.
    fn outputs_held(&self, out: &Path) -> bool {
        let stamps = crate::source::Stamps::new(out);
        crate::par::map(self.outputs.len(), |i| {
            (self.outputs.entry(i)).is_some_and(|(rel, stamp, _)| stamps.read(rel) == Some(stamp))
        })
        .into_iter()
        .all(|held| held)
    }

    /// The output files as this run left them, for [`crate::output::write_known`]
    /// (their paths moved, not copied: the stamp is done with once a run starts).
    pub fn into_known(self) -> Known {
        Known::new(self.outputs)
    }

    /// Records the output directory `out` as it is after a run generated
    /// `files` into it: each file's stamp and digest, and the directories'
    /// stamps. A file held in `files` by its contents' digest; one the stream
    /// took by the digest it took it with (`taken`, the file list's too) and
    /// the stamp that vouched for it or, when none did, the file's stamp read
    /// here; one it took as held as the last run recorded it (`known`).
    /// `false` when a file is not there (or has no digest).
    pub fn record_outputs(
        &mut self,
        out: &Path,
        files: &crate::files::GeneratedFiles,
        taken: &digest::FastMap<String, (Digest, Option<FileStamp>)>,
        known: &Known,
    ) -> bool {
        // In path order, as the record keeps them (both sets list theirs so;
        // the file list goes in its place).
        let mut paths = files.paths();
        let list_at = paths.partition_point(|p| *p < crate::files::FILE_LIST);
        paths.insert(list_at, crate::files::FILE_LIST);
        let mut outputs = Recorded::with_capacity(paths.len());
        let mut dirs = BTreeMap::new();
        // Relative paths of generated files are `/`-separated; `""` is the top.
        fn parent(rel: &str) -> &str {
            rel.rsplit_once('/').map_or("", |(d, _)| d)
        }
        // Files come directory by directory: one whose directory is the last
        // one's has nothing to add.
        let mut last_dir: Option<String> = None;
        let mut cursor = 0;
        for rel in paths {
            // What the run made of the file last wins: held contents, then
            // what the stream took, then what it took as held.
            let (digest, stamp) = match files.digest(rel) {
                Some(digest) => (Some(digest), None),
                None => taken.get(rel).map_or((None, None), |(d, s)| (Some(*d), *s)),
            };
            let held = known
                .held_from(rel, &mut cursor)
                .filter(|_| digest.is_none());
            let added = if let Some(i) = held {
                outputs.push_from(known.recorded(), i)
            } else {
                let stamp = stamp.or_else(|| FileStamp::read(&out.join(rel)));
                let (Some(stamp), Some(digest)) = (stamp, digest) else {
                    return false;
                };
                outputs.push(rel, stamp, digest)
            };
            if !added {
                return false;
            }
            let dir = parent(rel);
            if last_dir.as_deref() != Some(dir) {
                last_dir = Some(dir.to_owned());
                let mut next = Some(dir);
                while let Some(d) = next {
                    if dirs.contains_key(d) {
                        break;
                    }
                    match std::fs::metadata(out.join(d)) {
                        Ok(m) => dirs.insert(d.to_owned(), FileStamp::of(&m)),
                        Err(_) => return false,
                    };
                    next = (!d.is_empty()).then(|| parent(d));
                }
            }
        }
        self.outputs = outputs;
        self.dirs = dirs;
        true
    }

    /// The stamp in its binary form; `None` when a path is not UTF-8.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut out = STAMP_MAGIC.to_vec();
        postcard::to_io(self, &mut out).ok()?;
        Some(out)
    }

    /// What [`RunStamp::to_bytes`] wrote; `None` for anything else.
    pub fn from_bytes(form: &[u8]) -> Option<RunStamp> {
        let (stamp, rest): (RunStamp, _) =
            postcard::take_from_bytes(form.strip_prefix(STAMP_MAGIC)?).ok()?;
        (rest.is_empty() && stamp.outputs.is_sorted()).then_some(stamp)
    }
}

/// The digest of every file below `dir` (paths and contents, in sorted
/// order); a directory that cannot be read has a digest of its own.
pub fn tree_digest(dir: &Path) -> Digest {
    tree(dir, |h, f| {
        match std::fs::read(f) {
            Ok(b) => h.bytes(&b),
            Err(_) => h.str("unreadable"),
        };
    })
}

/// Like [`tree_digest`], by each file's size and time instead of contents.
pub fn tree_stamp(dir: &Path) -> Digest {
    tree(dir, |h, f| {
        h.debug(&FileStamp::read(f));
    })
}

fn tree(dir: &Path, file: impl Fn(&mut Hasher, &Path)) -> Digest {
    let mut h = Hasher::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        match std::fs::read_dir(&d) {
            Ok(entries) => {
                for e in entries.flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else {
                        files.push(p);
                    }
                }
            }
            Err(_) => {
                h.str("unreadable").str(&d.to_string_lossy());
            }
        }
    }
    files.sort();
    for f in files {
        h.str(&f.to_string_lossy());
        file(&mut h, &f);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::pack::{PACK_MAGIC, TRAILER_LEN};
    use super::*;

    #[test]
    fn the_default_cache_is_in_the_workspace_target() {
        let dir = std::env::temp_dir().join(format!("toolgen-cache-ws-{}", std::process::id()));
        let pkg = dir.join("ws/pkg/src");
        let _ = std::fs::create_dir_all(&pkg);
        let _ = std::fs::write(
            dir.join("ws/Cargo.toml"),
            "[workspace]\nmembers = [\"pkg\"]\n",
        );
        let _ = std::fs::write(dir.join("ws/pkg/Cargo.toml"), "[package]\nname = \"pkg\"\n");
        assert_eq!(workspace_target(&pkg), Some(dir.join("ws/target")));
        let _ = std::fs::remove_file(dir.join("ws/Cargo.toml"));
        assert_eq!(workspace_target(&pkg), Some(dir.join("ws/pkg/target")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Small packs are merged among themselves while they are small beside
    /// the largest (which is left as it is), then everything into one; no
    /// piece is lost either way, and the index gives each body's digest.
    #[test]
    fn small_packs_merge_without_copying_the_largest() {
        let dir = std::env::temp_dir().join(format!("toolgen-cache-tiers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let big = Cache::open(&dir);
        let bulk = vec![b'x'; 64 << 10];
        for i in 0..8u8 {
            big.put(Digest::of(&[i]), &[&bulk[..], &[i]].concat());
        }
        big.flush();
        let largest = big.packs();
        assert_eq!(largest.len(), 1);
        let key = |run: usize| Digest::of(format!("run {run}").as_bytes());
        let mut runs = 0;
        // Each run adds a small pack; past MAX_PACKS the small ones merge.
        while runs < 3 * MAX_PACKS {
            let c = Cache::open(&dir);
            c.put(key(runs), format!("piece of run {runs}").as_bytes());
            c.flush();
            runs += 1;
            let packs = c.packs();
            assert!(packs.len() < MAX_PACKS, "{runs}: {packs:?}");
            assert!(
                packs.contains(&largest[0]),
                "the largest pack was rewritten"
            );
        }
        let after = Cache::open(&dir);
        for run in 0..runs {
            let body = format!("piece of run {run}");
            assert_eq!(after.get(key(run)).as_deref(), Some(body.as_bytes()));
            assert_eq!(
                after.body_digest(key(run)),
                Some(Digest::of(body.as_bytes()))
            );
        }
        assert_eq!(
            after.get(Digest::of(&[7])).map(|b| b.len()),
            Some(bulk.len() + 1)
        );
        // Once the rest is half the largest, all are merged into one.
        let half = vec![b'y'; 300 << 10];
        for i in 0..MAX_PACKS {
            let c = Cache::open(&dir);
            c.put(Digest::of(format!("half {i}").as_bytes()), &half);
            c.flush();
        }
        let merged = Cache::open(&dir);
        assert!(!merged.packs().contains(&largest[0]));
        assert!((0..runs).all(|run| merged.get(key(run)).is_some()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// What a run takes is marked (a merge keeps it); nothing else is.
    #[test]
    fn the_pieces_a_run_takes_are_marked_used() {
        let dir = std::env::temp_dir().join(format!("toolgen-cache-used-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let first = Cache::open(&dir);
        for i in 0..20u8 {
            first.put(Digest::of(&[i]), &[i; 3]);
        }
        first.flush();
        let c = Cache::open(&dir);
        c.put(Digest::of(&[100]), b"another pack");
        c.flush();
        let c = Cache::open(&dir);
        assert_eq!(c.get(Digest::of(&[3])).as_deref(), Some(&[3u8; 3][..]));
        assert_eq!(c.body_digest(Digest::of(&[7])), Some(Digest::of(&[7; 3])));
        assert_eq!(c.body_len(Digest::of(&[100])), Some(12));
        assert_eq!(c.get(Digest::of(&[200])), None);
        let used = c.pieces.get().map(Packs::used).unwrap_or_default();
        let expected: digest::FastSet<Digest> = [3u8, 7, 100]
            .iter()
            .map(|i| c.full_key(Digest::of(&[*i])))
            .collect();
        assert_eq!(used, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_piece_comes_back_and_a_damaged_one_is_ignored() {
        let dir = std::env::temp_dir().join(format!("toolgen-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let key = Digest::of(b"key");
        let cache = Cache::open(&dir);
        assert_eq!(cache.get(key), None);
        cache.put(key, b"rendered");
        cache.put(Digest::of(b"other"), b"also rendered");
        cache.flush();
        // A later run finds it, also read into a place of its length.
        let later = Cache::open(&dir);
        assert_eq!(later.get(key).as_deref(), Some(&b"rendered"[..]));
        assert_eq!(later.body_len(key), Some(8));
        let mut place = [0; 8];
        assert!(later.get_into(key, &mut place) && place == *b"rendered");
        assert!(!later.get_into(key, &mut [0; 7]), "not of its length");
        // Another build of toolgen shares nothing.
        let newer = Cache::with_identity(&dir, Digest::of(b"another build"));
        assert_eq!(newer.get(key), None);
        // A damaged body is a miss; the other pieces still come back.
        let pack = cache.packs().pop().unwrap_or_default();
        let good = std::fs::read(&pack).unwrap_or_default();
        let mut bytes = good.clone();
        bytes[0] ^= 1;
        let _ = std::fs::write(&pack, &bytes);
        let reread = Cache::open(&dir);
        let found = [key, Digest::of(b"other")].map(|k| reread.get(k).is_some());
        assert_eq!(found.iter().filter(|f| **f).count(), 1, "{found:?}");
        let read_into = [(key, 8), (Digest::of(b"other"), 13)]
            .map(|(k, len)| reread.get_into(k, &mut vec![0; len]));
        assert_eq!(read_into, found, "read into place or not, the same pieces");
        // A damaged index, trailer or magic, or a truncated pack: nothing.
        for at in [
            good.len() - TRAILER_LEN - 3,
            good.len() - TRAILER_LEN,
            good.len() - 2,
        ] {
            let mut bytes = good.clone();
            bytes[at] ^= 1;
            let _ = std::fs::write(&pack, &bytes);
            assert_eq!(Cache::open(&dir).get(key), None, "damage at {at}");
        }
        let _ = std::fs::write(&pack, &good[..good.len() - 1]);
        assert_eq!(Cache::open(&dir).get(key), None);
        let _ = std::fs::write(&pack, &good);
        assert!(Cache::open(&dir).get(key).is_some());
        // Garbage is not a pack.
        let _ = std::fs::write(&pack, [&b"not a pack"[..], PACK_MAGIC].concat());
        assert_eq!(Cache::open(&dir).get(key), None);
        // Many runs' packs are merged into one.
        for i in 0..=MAX_PACKS {
            let c = Cache::open(&dir);
            c.put(Digest::of(format!("k{i}").as_bytes()), b"x");
            c.flush();
        }
        let after = Cache::open(&dir);
        assert!(after.packs().len() < MAX_PACKS);
        // Pieces go straight to a temporary pack: nothing is left of it, and
        // the temporary files of a run that died long ago are removed.
        let stale = after.packs_dir().join(".fresh-1-1.tmp");
        let recent = after.packs_dir().join(".fresh-2-2.tmp");
        for p in [&stale, &recent] {
            let _ = std::fs::write(p, b"partial");
        }
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        let _ = std::fs::File::options()
            .write(true)
            .open(&stale)
            .and_then(|f| f.set_modified(old));
        after.put(Digest::of(b"late"), b"y");
        after.flush();
        let temporaries: Vec<String> = std::fs::read_dir(after.packs_dir())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert_eq!(temporaries, vec![".fresh-2-2.tmp".to_owned()]);
        assert!(
            (0..=MAX_PACKS).all(|i| after.get(Digest::of(format!("k{i}").as_bytes())).is_some())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn read_before(digest: Digest, stamp: Option<FileStamp>) -> crate::load::ReadBefore {
        crate::load::ReadBefore {
            text: crate::load::TextFacts {
                digest,
                may_ref: false,
                blank: false,
            },
            stamp,
        }
    }

    /// An input whose stamp still holds is taken as recorded without being
    /// read; one whose stamp does not (or that has none) is read and its
    /// digest compared.
    #[test]
    fn an_input_is_read_only_when_its_stamp_does_not_vouch_for_it() {
        let dir = std::env::temp_dir().join(format!("toolgen-vouch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.join("out");
        let spec = dir.join("a.json");
        let made = std::fs::create_dir_all(&out).and_then(|()| std::fs::write(&spec, "{}"));
        assert!(made.is_ok(), "{made:?}");
        let stamp = FileStamp::of_path(&spec);
        assert!(stamp.is_some());
        let checked = |digest: Digest, stamp: Option<FileStamp>| {
            let mut run = RunStamp {
                identity: Digest(0),
                config: Digest(0),
                inputs: [(spec.clone().into_os_string(), read_before(digest, stamp))]
                    .into_iter()
                    .collect(),
                found: vec![spec.clone()],
                templates: BTreeMap::new(),
                outputs: Recorded::default(),
                dirs: BTreeMap::new(),
                tools: 0,
                tool_sets: 0,
            };
            let held = run.holds(&out, std::slice::from_ref(&spec));
            (held, run.inputs.get(spec.as_os_str()).and_then(|r| r.stamp))
        };
        let holds = |digest, stamp| checked(digest, stamp).0;
        let right = Digest::of(b"{}");
        let wrong = Digest::of(b"other");
        assert!(holds(right, None), "read and compared");
        assert!(!holds(wrong, None));
        // Vouched for by its stamp: not read (a wrong digest is not noticed).
        assert!(holds(wrong, stamp));
        // A stamp that no longer holds: read again.
        let stale = stamp.map(|s| FileStamp {
            len: s.len + 1,
            ..s
        });
        assert!(holds(right, stale));
        assert!(!holds(wrong, stale));
        // Checked once: the load is handed the stamps that held, and only them.
        assert_eq!(checked(wrong, stamp).1, stamp);
        assert_eq!(checked(right, stale).1, None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A run stamp reads back as written; cut short, lengthened or with a
    /// byte changed it is refused or reads as another stamp, never a panic;
    /// a stamp of another build or configuration is not this run's.
    #[test]
    fn a_run_stamp_reads_back_and_a_damaged_one_is_refused() {
        let stamp = |n: u64| FileStamp {
            len: n,
            modified: -(n as i128) * 1_000_000_007,
            inode: n * 3,
        };
        let identity = Digest::of(b"build");
        let config = Digest::of(b"config");
        let written = RunStamp {
            identity,
            config,
            inputs: [("/s/a.json", 1), ("/s/é.json", 2)]
                .map(|(p, d)| {
                    let s = (d == 2).then(|| stamp(7));
                    let mut read = read_before(Digest(d << 100), s);
                    read.text.may_ref = d == 2;
                    read.text.blank = d == 1;
                    (p.into(), read)
                })
                .into_iter()
                .collect(),
            found: vec![PathBuf::from("/s/a.json"), PathBuf::from("/s/é.json")],
            templates: [(PathBuf::from("/t"), Digest(5))].into(),
            outputs: Recorded::of(
                [("rust/a.rs", 1), ("catalog/tools.json", 2)]
                    .map(|(p, n)| (p.to_owned(), stamp(n), Digest(u128::MAX - n as u128))),
            )
            .unwrap_or_default(),
            dirs: [("".to_owned(), stamp(9)), ("rust".to_owned(), stamp(10))].into(),
            tools: 2,
            tool_sets: 1,
        };
        let form = written.to_bytes().unwrap_or_default();
        assert_eq!(RunStamp::from_bytes(&form).as_ref(), Some(&written));
        for cut in 0..form.len() {
            assert_eq!(RunStamp::from_bytes(&form[..cut]), None, "{cut}");
        }
        let mut longer = form.clone();
        longer.push(0);
        assert_eq!(RunStamp::from_bytes(&longer), None);
        for at in 0..form.len() {
            let mut damaged = form.clone();
            damaged[at] ^= 0x41;
            assert_ne!(
                RunStamp::from_bytes(&damaged).as_ref(),
                Some(&written),
                "{at}"
            );
        }
        let dir = std::env::temp_dir().join(format!("toolgen-stamp-{}", std::process::id()));
        let cache = Cache::with_identity(&dir, identity);
        cache.keep_stamp(&written);
        assert_eq!(cache.stamp(config).as_ref(), Some(&written));
        assert_eq!(cache.stamp(Digest::of(b"other config")), None);
        assert_eq!(Cache::with_identity(&dir, Digest(1)).stamp(config), None);
        cache.drop_stamp(config);
        assert_eq!(cache.stamp(config), None);
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            let mut odd = written;
            odd.found
                .push(PathBuf::from(std::ffi::OsStr::from_bytes(b"/s/\xff.json")));
            assert_eq!(odd.to_bytes(), None);
            cache.keep_stamp(&odd);
            assert_eq!(cache.stamp(config), None);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
