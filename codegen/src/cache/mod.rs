//! Incremental generation, all of it: what a run keeps so that the next one
//! redoes only what changed, and skips everything when nothing did.
//!
//! - [`keys`]: what a piece of work is keyed by (a tool's digest, its set's
//!   settings) and [`keys::PieceCache`], the store as validation and the
//!   emitters see it.
//! - [`memo`] here: a piece of work's text, kept under its key.
//! - [`record`]: the output files as a run left them (`Recorded`),
//!   so a file known to hold its contents is neither read nor written.
//! - `stamp`: the run stamp (`runs/<config>.run`, postcard): what the last
//!   clean run (no diagnostics at all) read and wrote, per output directory
//!   and configuration; a run whose inputs and outputs all still match it is
//!   skipped whole.
//! - `pack` and [`Cache`] here: the store on disk (`pieces/*.pack`), by key
//!   mixed with toolgen's build identity. A run streams what it made into one
//!   pack (the bodies, then their index as postcard, then a trailer); a run
//!   reads the indexes, and each body it uses, checked against its digest
//!   (a damaged pack or body is a miss, never trusted). Packs are merged past
//!   a few (the small ones among themselves while they are under half the
//!   largest), and trimmed to what a run used past a size.
//!
//! It lives under `--cache-dir` (by default `target/toolgen-cache` of the
//! Cargo workspace a command runs in). Every write is a temporary file
//! renamed into place; a cache that cannot be written only makes runs slower.

pub(crate) mod keys;
pub(crate) mod record;
mod stamp;
pub use self::stamp::{ReadBefore, ReadBeforeMap, RunStamp, tree_digest, tree_stamp};
mod pack;
use self::pack::{MAX_BYTES, MAX_PACKS, PackWriter, Packs, read_packs, remove_stale_temporaries};

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use self::keys::PieceCache;
use crate::digest::{self, Digest};

/// The text `kept` (a store and a key) holds, else what `make` gives, kept
/// under that key when it is made without error.
pub(crate) fn memo<E>(
    kept: Option<(&dyn PieceCache, Digest)>,
    make: impl FnOnce() -> Result<String, E>,
) -> Result<String, E> {
    if let Some(text) = kept.and_then(|(c, k)| String::from_utf8(c.get(k)?).ok()) {
        return Ok(text);
    }
    let text = make()?;
    if let Some((cache, key)) = kept {
        cache.put(key, text.as_bytes());
    }
    Ok(text)
}

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
                // A stamp that cannot be written only makes the next run slower.
                let _ = crate::files::write_atomic(&self.stamp_path(stamp.config), &bytes);
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
    /// The body of piece `key` where the packs (read at the first lookup)
    /// have it undamaged, the piece marked used (a merge keeps it).
    fn get(&self, key: Digest) -> Option<Vec<u8>> {
        let packs = self.pieces.get_or_init(|| self.read_packs());
        let (place, used) = packs.locate(self.full_key(key))?;
        let body = packs.get(place)?;
        used.store(true, std::sync::atomic::Ordering::Relaxed);
        Some(body)
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
        assert_eq!(c.get(Digest::of(&[7])).as_deref(), Some(&[7u8; 3][..]));
        assert_eq!(c.get(Digest::of(&[100])).map(|b| b.len()), Some(12));
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
        // A later run finds it.
        let later = Cache::open(&dir);
        assert_eq!(later.get(key).as_deref(), Some(&b"rendered"[..]));
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
}
