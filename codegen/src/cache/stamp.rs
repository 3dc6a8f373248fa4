//! The run stamp: what the last clean run of a configuration read and wrote,
//! so that a run whose inputs and outputs all still match is skipped whole.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::record::Recorded;
use crate::digest::{self, Digest, Hasher};
use crate::source::FileStamp;

/// A file an earlier run read, as its run stamp recorded it: the digest of
/// its text, and the file's stamp then (a stamp that still holds vouches
/// for the text without reading it, when the stamp is checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadBefore {
    /// The digest of the file's bytes.
    pub digest: Digest,
    pub stamp: Option<crate::source::FileStamp>,
}

/// Files an earlier run read, by path.
///
/// Keyed by the paths' bytes: `Path` compares and hashes component by
/// component, and a run looks up every input.
pub type ReadBeforeMap = crate::digest::FastMap<std::ffi::OsString, ReadBefore>;

/// Checks every recorded stamp against its file as it is now (each file
/// looked at once, on every core; following symbolic links, as opening it
/// does) and forgets those that no longer hold: afterwards a file with a
/// stamp is one that still had it.
pub fn check_stamps(before: &mut ReadBeforeMap) {
    let recorded: Vec<(&Path, Option<crate::source::FileStamp>)> = before
        .iter()
        .map(|(path, read)| (Path::new(path), read.stamp))
        .collect();
    // Specs lie by the hundred in a few directories: each is opened once.
    let stamps = crate::source::Stamps::following();
    let held = crate::par::map(recorded.len(), |i| {
        let (path, stamp) = recorded[i];
        stamp.is_none_or(|s| stamps.read(path) == Some(s))
    });
    for (read, held) in before.values_mut().zip(held) {
        if !held {
            read.stamp = None;
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
    /// The files the run found (`load::inputs`), and every other
    /// file it read: path -> the facts of its text (its digest among them),
    /// and the file's stamp when it was read (spec files): a file that still
    /// has it is not read to be compared (as for outputs).
    pub inputs: ReadBeforeMap,
    /// The list `load::inputs` gave, which must not change.
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
    /// left them: `found` is what `load::inputs` finds now.
    pub fn holds(&mut self, out: &Path, found: &[PathBuf]) -> bool {
        // First: an input whose stamp still holds is not read to be compared.
        check_stamps(&mut self.inputs);
        // Compared as bytes: both lists were made the same way.
        self.found.len() == found.len()
            && (self.found.iter().zip(found)).all(|(a, b)| a.as_os_str() == b.as_os_str())
            && self.inputs_read_the_same()
            && self.templates.iter().all(|(dir, d)| tree_digest(dir) == *d)
            && self.dirs.iter().all(|(rel, stamp)| {
                std::fs::metadata(out.join(rel)).is_ok_and(|m| FileStamp::of(&m) == *stamp)
            })
            && self.outputs_held(out)
    }

    /// Whether every input left without a stamp by
    /// [`check_stamps`] (none recorded, or it no longer held)
    /// still reads as recorded: a file touched but not changed still is.
    fn inputs_read_the_same(&self) -> bool {
        self.inputs.iter().all(|(path, read)| {
            read.stamp.is_some() || std::fs::read(path).is_ok_and(|b| Digest::of(&b) == read.digest)
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

    /// The output files as this run left them, for `output::write_known`
    /// (their paths moved, not copied: the stamp is done with once a run starts).
    pub fn into_outputs(self) -> Recorded {
        self.outputs
    }

    /// Records the output directory `out` as it is after a run generated
    /// `files` into it: each file's stamp and digest, and the directories'
    /// stamps. A file held in `files` by its contents' digest; one the stream
    /// took by the digest it took it with (`taken`, the file list's too) and
    /// the stamp that vouched for it or, when none did, the file's stamp read
    /// here.
    /// `false` when a file is not there (or has no digest).
    pub fn record_outputs(
        &mut self,
        out: &Path,
        files: &crate::files::GeneratedFiles,
        taken: &digest::FastMap<String, (Digest, Option<FileStamp>)>,
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
        for rel in paths {
            // What the run made of the file last wins: held contents, then
            // what the stream took.
            let (digest, stamp) = match files.digest(rel) {
                Some(digest) => (Some(digest), None),
                None => taken.get(rel).map_or((None, None), |(d, s)| (Some(*d), *s)),
            };
            let stamp = stamp.or_else(|| FileStamp::read(&out.join(rel)));
            let (Some(stamp), Some(digest)) = (stamp, digest) else {
                return false;
            };
            if !outputs.push(rel, stamp, digest) {
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
    use super::*;
    use crate::cache::Cache;

    fn read_before(digest: Digest, stamp: Option<FileStamp>) -> ReadBefore {
        ReadBefore { digest, stamp }
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
                    (p.into(), read_before(Digest(d << 100), s))
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
