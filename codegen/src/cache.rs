//! The generation cache: what earlier runs rendered, kept on disk so that a
//! run re-renders only what changed, and skips everything when nothing did.
//!
//! It holds two kinds of entries under its directory (by default
//! `target/toolgen-cache` of the Cargo workspace a command runs in):
//!
//! - **pieces** (`pieces/*.pack`): what emitters rendered and what validation
//!   found clean, by key (the digest of everything the piece is made from,
//!   see [`crate::digest::PieceCache`]) mixed with toolgen's build identity. A
//!   run streams what it made into one pack as it comes (a hidden temporary
//!   file, renamed when the run ends); each entry repeats its key, length
//!   and the digest of its body, and a pack is read up to its first entry
//!   that does not match (corrupt, truncated, not toolgen's): never trusted.
//!   Packs are merged past a few, and trimmed to what a run uses past a size.
//! - **run stamps** (`runs/`): per output directory and configuration, what
//!   the last clean run (no diagnostics at all) read and wrote: the input
//!   files with the digests of their contents, the template directories, and
//!   each output file's size, time, inode and digest. A run whose inputs and
//!   output all still match is skipped whole.
//!
//! Every write is a temporary file renamed into place; a cache that cannot
//! be written only makes runs slower.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::digest::{self, Digest, Hasher};
use crate::emit::RenderCache;
use crate::output::{FileStamp, JOURNAL, Known};

/// A cache directory.
pub struct Cache {
    root: PathBuf,
    identity: Digest,
    /// The pieces of the packs on disk, by full key: read at the first `get`.
    pieces: OnceLock<Packs>,
    /// The pack of the pieces this run renders, written as they come (so
    /// they are not held in memory) and put into place by [`Cache::flush`].
    fresh: Mutex<Option<PackWriter>>,
    /// Pieces this run took from the packs: what a merge keeps.
    used: Mutex<HashSet<Digest>>,
}

/// More packs than this are merged into one, so a run reads few files.
const MAX_PACKS: usize = 8;
/// Past this many bytes of pieces, a merge keeps only the pieces the run
/// used or rendered, so the cache does not grow without bound.
const MAX_BYTES: usize = 256 << 20;
const PACK_MAGIC: &str = "toolgen-pack 1";

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
            used: Mutex::new(HashSet::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.root
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

    /// Every well-formed piece of every pack. A pack is read up to its first
    /// damaged entry (bad header, short body, digest mismatch).
    fn read_packs(&self) -> Packs {
        let mut packs = Packs::default();
        for pack in self.packs() {
            let Ok(bytes) = std::fs::read(&pack) else {
                continue;
            };
            read_pack(&bytes, packs.bytes.len(), &mut packs.index);
            packs.bytes.push(bytes);
        }
        packs
    }

    /// Writes the pieces this run rendered as one pack (one file, however
    /// many pieces: on a slow disk a file per piece costs more than
    /// rendering). Past [`MAX_PACKS`] packs, they are merged into one; past
    /// [`MAX_BYTES`], only what this run used or rendered is kept.
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
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        // Every pack now on disk, this run's too, copied into one.
        let on_disk = self.read_packs();
        let mut keys: Vec<Digest> = on_disk.index.keys().copied().collect();
        let bytes: usize = on_disk
            .index
            .values()
            .map(|(_, start, end)| end - start)
            .sum();
        if bytes > MAX_BYTES {
            keys.retain(|k| used.contains(k) || fresh_keys.contains(k));
        }
        keys.sort();
        let Some(mut merged) = PackWriter::create(&dir) else {
            return;
        };
        for k in keys {
            if let Some(body) = on_disk.get(k) {
                merged.add(k, body);
            }
        }
        if let Some((written, _)) = merged.finish(&dir) {
            for p in packs.into_iter().filter(|p| *p != written) {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    fn full_key(&self, key: Digest) -> Digest {
        Hasher::new().digest(self.identity).digest(key).finish()
    }

    /// The stamp of the last clean run of configuration `config` (which
    /// names the output directory); `None` when there is none or it is not
    /// one this toolgen wrote.
    pub fn stamp(&self, config: Digest) -> Option<RunStamp> {
        let text = std::fs::read(self.stamp_path(config)).ok()?;
        let stamp: RunStamp = serde_json::from_slice(&text).ok()?;
        (stamp.identity == self.identity.hex() && stamp.config == config.hex()).then_some(stamp)
    }

    fn stamp_path(&self, config: Digest) -> PathBuf {
        self.root
            .join("runs")
            .join(format!("{}.json", config.hex()))
    }

    /// Keeps the stamp of a clean run.
    pub fn keep_stamp(&self, stamp: &RunStamp) {
        let Some(config) = Digest::parse(&stamp.config) else {
            return;
        };
        if let Ok(text) = serde_json::to_vec(stamp) {
            write_quietly(&self.stamp_path(config), &text);
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

impl RenderCache for Cache {
    fn get(&self, key: Digest) -> Option<Vec<u8>> {
        let full = self.full_key(key);
        let body = self.pieces.get_or_init(|| self.read_packs()).get(full)?;
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(full);
        Some(body.to_vec())
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

/// A pack written piece by piece into a hidden temporary file of the packs
/// directory, renamed to `<digest>.pack` by [`PackWriter::finish`]. A write
/// that fails drops the pack (the cache only makes runs faster).
struct PackWriter {
    file: std::io::BufWriter<std::fs::File>,
    temp: PathBuf,
    digest: Hasher,
    keys: HashSet<Digest>,
    failed: bool,
}

impl PackWriter {
    fn create(dir: &Path) -> Option<PackWriter> {
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
            keys: HashSet::new(),
            failed: false,
        };
        w.write(format!("{PACK_MAGIC}\n").as_bytes());
        Some(w)
    }

    fn write(&mut self, bytes: &[u8]) {
        use std::io::Write as _;
        self.digest.bytes(bytes);
        self.failed |= self.file.write_all(bytes).is_err();
    }

    fn add(&mut self, key: Digest, body: &[u8]) {
        if !self.keys.insert(key) {
            return;
        }
        let header = format!("{} {} {}\n", key.hex(), body.len(), Digest::of(body).hex());
        self.write(header.as_bytes());
        self.write(body);
    }

    /// Puts the pack into place: its path and the keys it holds (`None`
    /// when it failed).
    fn finish(self, dir: &Path) -> Option<(PathBuf, HashSet<Digest>)> {
        let PackWriter {
            file,
            temp,
            digest,
            keys,
            failed,
        } = self;
        let path = dir.join(format!("{}.pack", digest.finish().hex()));
        let done = !failed && file.into_inner().is_ok() && std::fs::rename(&temp, &path).is_ok();
        if !done {
            let _ = std::fs::remove_file(&temp);
        }
        done.then_some((path, keys))
    }
}

/// The packs read, each kept whole, and where each piece is in them: a
/// piece is copied once, when it is asked for.
#[derive(Debug, Default)]
struct Packs {
    bytes: Vec<Vec<u8>>,
    /// Key -> (pack, start, end).
    index: HashMap<Digest, (usize, usize, usize)>,
}

impl Packs {
    fn get(&self, key: Digest) -> Option<&[u8]> {
        let &(pack, start, end) = self.index.get(&key)?;
        self.bytes.get(pack)?.get(start..end)
    }
}

/// The entries of pack number `pack` into `index`, up to the first damaged one.
fn read_pack(bytes: &[u8], pack: usize, index: &mut HashMap<Digest, (usize, usize, usize)>) {
    let Some(mut rest) = bytes
        .strip_prefix(PACK_MAGIC.as_bytes())
        .and_then(|r| r.strip_prefix(b"\n"))
    else {
        return;
    };
    while !rest.is_empty() {
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            return;
        };
        let Ok(header) = std::str::from_utf8(&rest[..end]) else {
            return;
        };
        let mut parts = header.split(' ');
        let (Some(key), Some(len), Some(digest), None) = (
            parts.next().and_then(Digest::parse),
            parts.next().and_then(|l| l.parse::<usize>().ok()),
            parts.next().and_then(Digest::parse),
            parts.next(),
        ) else {
            return;
        };
        let Some(body) = rest.get(end + 1..end + 1 + len) else {
            return;
        };
        if Digest::of(body) != digest {
            return;
        }
        let start = bytes.len() - rest.len() + end + 1;
        index.insert(key, (pack, start, start + len));
        rest = &rest[end + 1 + len..];
    }
}

/// Removes the temporary files of runs that stopped before renaming them
/// (an hour old: a run still writing its own is never touched).
fn remove_stale_temporaries(dir: &Path) {
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
fn write_quietly(path: &Path, bytes: &[u8]) -> bool {
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

/// What a clean run read and wrote (see the module docs).
#[derive(Debug, Serialize, Deserialize)]
pub struct RunStamp {
    /// The toolgen build that wrote it ([`digest::build_identity`]).
    pub identity: String,
    /// The configuration's digest (it covers the output directory).
    pub config: String,
    /// The files the run found ([`crate::load::inputs`]), and every other
    /// file it read: path -> digest of the contents.
    pub inputs: BTreeMap<PathBuf, String>,
    /// The list [`crate::load::inputs`] gave, which must not change.
    pub found: Vec<PathBuf>,
    /// Template directories -> digest of every file in them.
    pub templates: BTreeMap<PathBuf, String>,
    /// Output files (relative) -> stamp and digest of the contents.
    pub outputs: BTreeMap<String, (FileStamp, String)>,
    /// Output directories (relative, `""` the top) -> stamp: a file added
    /// beside the generated ones changes its directory's time.
    pub dirs: BTreeMap<String, FileStamp>,
    pub tools: usize,
    pub tool_sets: usize,
}

impl RunStamp {
    /// Whether the inputs and the output directory are still as this run
    /// left them: `found` is what [`crate::load::inputs`] finds now.
    pub fn holds(&self, out: &Path, found: &[PathBuf]) -> bool {
        self.found == found
            && !out.join(JOURNAL).exists()
            && self
                .inputs
                .iter()
                .all(|(path, d)| std::fs::read(path).is_ok_and(|b| Digest::of(&b).hex() == *d))
            && self
                .templates
                .iter()
                .all(|(dir, d)| tree_digest(dir).hex() == *d)
            && self.dirs.iter().all(|(rel, stamp)| {
                std::fs::metadata(out.join(rel)).is_ok_and(|m| FileStamp::of(&m) == *stamp)
            })
            && self
                .outputs
                .iter()
                .all(|(rel, (stamp, _))| FileStamp::read(&out.join(rel)) == Some(*stamp))
    }

    /// The output files as this run left them, for [`crate::output::write_known`].
    pub fn known(&self) -> Known {
        Known(
            self.outputs
                .iter()
                .filter_map(|(rel, (stamp, d))| Some((rel.clone(), (*stamp, Digest::parse(d)?))))
                .collect(),
        )
    }

    /// Records the output directory `out` as it is after writing `written`
    /// (relative path -> digest of its contents): each file's stamp, and the
    /// directories. `false` when a file is not there (or has no digest).
    pub fn record_outputs<'a>(
        &mut self,
        out: &Path,
        written: impl Iterator<Item = (&'a str, Option<Digest>)>,
    ) -> bool {
        let mut dirs = BTreeMap::new();
        for (rel, digest) in written {
            let (Some(stamp), Some(digest)) = (FileStamp::read(&out.join(rel)), digest) else {
                return false;
            };
            self.outputs.insert(rel.to_owned(), (stamp, digest.hex()));
            let mut parent = Path::new(rel).parent();
            while let Some(p) = parent {
                let key = p.to_string_lossy().replace('\\', "/");
                if dirs.contains_key(&key) {
                    break;
                }
                match std::fs::metadata(out.join(p)) {
                    Ok(m) => dirs.insert(key, FileStamp::of(&m)),
                    Err(_) => return false,
                };
                parent = p.parent();
            }
        }
        self.dirs = dirs;
        true
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
        assert_eq!(
            Cache::open(&dir).get(key).as_deref(),
            Some(&b"rendered"[..])
        );
        // Another build of toolgen shares nothing.
        let newer = Cache::with_identity(&dir, Digest::of(b"another build"));
        assert_eq!(newer.get(key), None);
        // A damaged pack is read up to the damage, never past it.
        let pack = cache.packs().pop().unwrap_or_default();
        let mut bytes = std::fs::read(&pack).unwrap_or_default();
        let at = bytes.len() - 2;
        bytes[at] ^= 1;
        let _ = std::fs::write(&pack, &bytes);
        let reread = Cache::open(&dir);
        let found = [key, Digest::of(b"other")].map(|k| reread.get(k).is_some());
        assert_eq!(found.iter().filter(|f| **f).count(), 1, "{found:?}");
        // Garbage is not a pack.
        let _ = std::fs::write(&pack, b"toolgen-pack 1\nnot a header\n");
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
