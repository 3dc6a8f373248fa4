//! The generation cache: what earlier runs rendered, kept on disk so that a
//! run re-renders only what changed, and skips everything when nothing did.
//!
//! It holds two kinds of entries under its directory (by default
//! `target/toolgen-cache` of the Cargo workspace a command runs in):
//!
//! - **pieces** (`pieces/`): files emitters rendered, by the emitter's key
//!   (the digest of everything the piece is rendered from, see
//!   [`crate::emit::RenderCache`]) mixed with toolgen's build identity. Each
//!   entry repeats its key and the digest of its contents; an entry that does
//!   not match (corrupt, truncated, written by another toolgen) is ignored
//!   and replaced, never trusted.
//! - **run stamps** (`runs/`): per output directory and configuration, what
//!   the last clean run (no diagnostics at all) read and wrote: the input
//!   files with the digests of their contents, the template directories, and
//!   each output file's size, time, inode and digest. A run whose inputs and
//!   output all still match is skipped whole.
//!
//! Every write is a temporary file renamed into place; a cache that cannot
//! be written only makes runs slower.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::{self, Digest, Hasher};
use crate::emit::RenderCache;
use crate::output::{FileStamp, JOURNAL, Known};

const MAGIC: &str = "toolgen-cache 1";

/// A cache directory.
pub struct Cache {
    root: PathBuf,
    identity: Digest,
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
        Cache {
            root: dir.to_path_buf(),
            identity: digest::build_identity(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.root
    }

    fn piece_path(&self, key: Digest) -> PathBuf {
        let hex = key.hex();
        self.root.join("pieces").join(&hex[..2]).join(&hex[2..])
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
        let bytes = std::fs::read(self.piece_path(full)).ok()?;
        let header_end = bytes.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&bytes[..header_end]).ok()?;
        let mut parts = header.split(' ');
        let ok = parts.next() == Some("toolgen-cache")
            && parts.next() == Some("1")
            && parts.next().and_then(Digest::parse) == Some(full);
        let body_digest = parts.next().and_then(Digest::parse)?;
        let body = &bytes[header_end + 1..];
        (ok && parts.next().is_none() && Digest::of(body) == body_digest).then(|| body.to_vec())
    }

    fn put(&self, key: Digest, value: &[u8]) {
        let full = self.full_key(key);
        let mut bytes =
            format!("{MAGIC} {} {}\n", full.hex(), Digest::of(value).hex()).into_bytes();
        bytes.extend_from_slice(value);
        write_quietly(&self.piece_path(full), &bytes);
    }
}

/// Temporary file and rename; a failure leaves the cache as it was.
fn write_quietly(path: &Path, bytes: &[u8]) {
    let Some(parent) = path.parent() else { return };
    if std::fs::create_dir_all(parent).is_err() {
        return;
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
    if std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
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
    /// (relative path -> contents): each file's stamp, and the directories.
    pub fn record_outputs<'a>(
        &mut self,
        out: &Path,
        written: impl Iterator<Item = (&'a str, &'a [u8])>,
    ) -> bool {
        let mut dirs = BTreeMap::new();
        for (rel, contents) in written {
            let Some(stamp) = FileStamp::read(&out.join(rel)) else {
                return false;
            };
            self.outputs
                .insert(rel.to_owned(), (stamp, Digest::of(contents).hex()));
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
        let cache = Cache::open(&dir);
        let key = Digest::of(b"key");
        assert_eq!(cache.get(key), None);
        cache.put(key, b"rendered");
        assert_eq!(cache.get(key).as_deref(), Some(&b"rendered"[..]));
        // Corrupt the body: the digest no longer matches.
        let path = cache.piece_path(cache.full_key(key));
        let mut bytes = std::fs::read(&path).unwrap_or_default();
        if let Some(last) = bytes.last_mut() {
            *last ^= 1;
        }
        let _ = std::fs::write(&path, &bytes);
        assert_eq!(cache.get(key), None, "a corrupt entry is ignored");
        // An entry stored under another key's name (a foreign entry).
        let other = Digest::of(b"other");
        cache.put(other, b"foreign");
        let _ = std::fs::copy(cache.piece_path(cache.full_key(other)), &path);
        assert_eq!(cache.get(key), None, "an entry for another key is ignored");
        // Another build of toolgen shares nothing.
        let newer = Cache {
            root: dir.clone(),
            identity: Digest::of(b"another build"),
        };
        cache.put(key, b"rendered");
        assert_eq!(newer.get(key), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
