//! Finding spec files and manifests below the inputs, and reading them:
//! each file read once, within its size limit, as text, with its stamp then
//! (which the run stamp records, so that the next run may skip unread).

use super::options::LoadOptions;
use crate::diag::{Diagnostic, rule};
use crate::manifest::{self, MANIFEST_NAMES};
use crate::source::{FileId, Loc, SourceDb, Span, display_path};
use crate::syntax::{self, Node, yaml};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub(super) fn is_yaml_path(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

pub(super) fn is_spec_path(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("json" | "yaml" | "yml")
    )
}

pub(super) fn is_manifest_path(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| MANIFEST_NAMES.contains(&n))
}

pub(super) fn io_error(path: &Path, message: String) -> Diagnostic {
    Diagnostic::new(&rule::IO_ERROR, None, message).path(display_path(path))
}

/// The directory walk: spec files and manifests below the inputs.
pub(super) struct Walk<'a> {
    pub(super) db: &'a mut SourceDb,
    pub(super) cache: &'a mut Manifests,
    pub(super) options: &'a LoadOptions,
    pub(super) specs: &'a mut Vec<PathBuf>,
    pub(super) manifests: &'a mut Vec<PathBuf>,
    pub(super) diags: &'a mut Vec<Diagnostic>,
}

impl Walk<'_> {
    pub(super) fn discover(&mut self, path: &Path, explicit: bool) {
        self.discover_known(path, explicit, None);
    }

    /// [`Walk::discover`] of a path whose type is known already (`kind`:
    /// listed by its directory, not a symbolic link), or is looked up here.
    pub(super) fn discover_known(
        &mut self,
        path: &Path,
        explicit: bool,
        kind: Option<std::fs::FileType>,
    ) {
        // An editor's document not saved to a file yet.
        let held = (self.options.overlay.as_ref()).is_some_and(|o| o.text_of(path).is_some());
        if kind.is_none() && held && !path.exists() {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            match is_manifest_path(&path) {
                true => self.manifests.push(path),
                false => self.specs.push(path),
            }
            return;
        }
        let kind = match kind.map_or_else(|| std::fs::metadata(path).map(|m| m.file_type()), Ok) {
            Ok(k) => k,
            Err(e) => {
                self.diags.push(io_error(
                    path,
                    format!("cannot read `{}`: {e}", display_path(path)),
                ));
                return;
            }
        };
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if kind.is_file() {
            if is_manifest_path(&path) {
                self.manifests.push(path);
            } else if explicit || is_spec_path(&path) {
                self.specs.push(path);
            }
            return;
        }
        if !kind.is_dir() {
            self.diags.push(io_error(
                &path,
                format!(
                    "`{}` is neither a file nor a directory",
                    display_path(&path)
                ),
            ));
            return;
        }
        // toolgen's own output (a generation's file list marks it) is never
        // read back as specs, wherever it sits (`gen --out generated .`).
        if !explicit
            && (path.join(crate::files::FILE_LIST).is_file()
                || self.options.exclude.contains(&path))
        {
            return;
        }
        // A manifest here that names its spec folders: only those are read.
        let manifest = MANIFEST_NAMES
            .iter()
            .map(|n| path.join(n))
            .find(|p| p.is_file());
        if let Some(m) = manifest {
            if let Some(dirs) = self.cache.spec_dirs(self.db, &m, self.options, self.diags) {
                self.manifests.push(m);
                for dir in dirs {
                    if dir.is_dir() {
                        self.discover(&dir, false);
                    } else {
                        self.diags.push(io_error(
                            &dir,
                            format!(
                                "`{}`, a `specs` folder of `{}`, is not a directory",
                                display_path(&dir),
                                display_path(&path)
                            ),
                        ));
                    }
                }
                return;
            }
        }
        match crate::source::sorted_entries(&path) {
            Ok(children) => {
                for (child, kind) in children {
                    self.discover_known(&child, false, kind);
                }
            }
            Err(e) => self.diags.push(io_error(
                &path,
                format!("cannot list `{}`: {e}", display_path(&path)),
            )),
        }
    }
}

/// Finds the manifest that governs a spec file: the nearest `toolset.yaml`
/// in its directory or above, skipping manifests whose `specs` do not cover it.
pub(super) struct FindOwner<'a> {
    pub(super) db: &'a mut SourceDb,
    pub(super) cache: &'a mut Manifests,
    pub(super) options: &'a LoadOptions,
    pub(super) diags: &'a mut Vec<Diagnostic>,
    /// Directory -> the nearest manifest in or above it (whatever its `specs`).
    pub(super) owners: &'a mut HashMap<PathBuf, Option<PathBuf>>,
}

impl FindOwner<'_> {
    pub(super) fn manifest_of(&mut self, spec: &Path, dir: &Path) -> Option<PathBuf> {
        let mut dir = dir.to_path_buf();
        loop {
            let m = self.nearest(&dir)?;
            let covers = match self.cache.spec_dirs(self.db, &m, self.options, self.diags) {
                None => true,
                Some(dirs) => dirs.iter().any(|d| spec.starts_with(d)),
            };
            if covers {
                return Some(m);
            }
            dir = m.parent()?.parent()?.to_path_buf();
        }
    }

    pub(super) fn nearest(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(hit) = self.owners.get(dir) {
            return hit.clone();
        }
        let here = MANIFEST_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file());
        let found = match here {
            Some(p) => Some(p),
            None => dir.parent().and_then(|parent| self.nearest(parent)),
        };
        self.owners.insert(dir.to_path_buf(), found.clone());
        found
    }
}

/// A file as [`read_file`] found it: what [`read_text`] reports.
pub(super) enum FileRead {
    /// The text, and the file's stamp when it was opened.
    Text(String, Option<crate::source::FileStamp>),
    /// Larger than `--max-file-size`: its size.
    TooLarge(u64),
    /// Not read: the error.
    Failed(std::io::Error),
    /// Not UTF-8: the valid prefix, and the first byte that is not.
    NotUtf8(String, u8),
}

/// [`read_file`] of every spec, on every core.
pub(super) fn read_spec_files(owners: &[Owned], options: &LoadOptions) -> Vec<FileRead> {
    crate::par::map(owners.len(), |i| read_file(&owners[i].0, options))
}

/// Whether a file's stamp may vouch for it later: it was last changed
/// [`SETTLED`] before now. A file changed just before it was read might be
/// changed again within the same tick of a coarse clock (a second, on some
/// file systems), keeping its size: its stamp would then lie. Such a file is
/// read again by the next run instead.
pub(super) fn settled(stamp: &crate::source::FileStamp) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    stamp.modified >= 0 && now - stamp.modified >= SETTLED.as_nanos() as i128
}

/// How long ago a file must have changed for its stamp to vouch for it.
pub(super) const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

/// Reads the file at `path` (touching nothing shared: it may run on any
/// thread), for [`read_text`] to take: the text an editor holds for it
/// ([`LoadOptions::overlay`]), else the file's.
pub(super) fn read_file(path: &Path, options: &LoadOptions) -> FileRead {
    use std::io::Read as _;
    let max_file_size = options.max_file_size;
    if let Some(text) = options.overlay.as_ref().and_then(|o| o.text_of(path)) {
        return match text.len() as u64 {
            len if len > max_file_size => FileRead::TooLarge(len),
            _ => FileRead::Text(text.to_owned(), None),
        };
    }
    // Opened once and asked its size through the handle: no second lookup
    // of the path (a run reads every spec; each system call counts). Its
    // stamp then (taken before reading: a change while it is read makes the
    // stamp stale, never wrongly fresh) lets a later run's stamp vouch for it.
    let mut stamp = None;
    let read = std::fs::File::open(path).and_then(|file| {
        let meta = file.metadata()?;
        let len = meta.len();
        stamp = meta
            .is_file()
            .then(|| crate::source::FileStamp::of(&meta))
            .filter(settled);
        if len > max_file_size {
            return Ok(Err(len));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
        // A file that grew past the limit since is cut there, and refused.
        file.take(max_file_size.saturating_add(1))
            .read_to_end(&mut bytes)?;
        let read = bytes.len() as u64;
        Ok(if read > max_file_size {
            Err(read)
        } else {
            Ok(bytes)
        })
    });
    let bytes = match read {
        Ok(Ok(b)) => b,
        Ok(Err(len)) => return FileRead::TooLarge(len),
        Err(e) => return FileRead::Failed(e),
    };
    match String::from_utf8(bytes) {
        Ok(t) => FileRead::Text(t, stamp),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let prefix = String::from_utf8_lossy(&bytes[..valid]).into_owned();
            FileRead::NotUtf8(prefix, bytes.get(valid).copied().unwrap_or(0))
        }
    }
}

/// The text of the file at `path`, or `None` with the reason reported.
pub(super) fn read_text(
    db: &mut SourceDb,
    path: &Path,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let read = read_file(path, options);
    take_text(db, path, read, options, diags).map(|(text, _)| text)
}

/// The text of a file [`read_file`] read and its stamp then, or `None`
/// with the reason reported.
pub(super) fn take_text(
    db: &mut SourceDb,
    path: &Path,
    read: FileRead,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(String, Option<crate::source::FileStamp>)> {
    if let FileRead::Text(text, stamp) = read {
        return Some((text, stamp));
    }
    let shown = display_path(path);
    match read {
        FileRead::Text(text, stamp) => Some((text, stamp)),
        FileRead::TooLarge(len) => {
            diags.push(
                Diagnostic::new(
                    &rule::FILE_TOO_LARGE,
                    None,
                    format!("`{shown}` is {len} bytes, more than the limit of {} bytes", options.max_file_size),
                )
                .path(shown)
                .help("spec files are small; if this really is one, raise the limit with `--max-file-size`"),
            );
            None
        }
        FileRead::Failed(e) => {
            diags.push(io_error(path, format!("cannot read `{shown}`: {e}")));
            None
        }
        FileRead::NotUtf8(prefix, bad) => {
            let valid = prefix.len();
            let id = db.add(path, prefix);
            diags.push(
                Diagnostic::at(
                    &rule::NOT_UTF8,
                    Loc::new(id, Span::at(valid)),
                    format!("`{shown}` is not valid UTF-8: byte 0x{bad:02x} at offset {valid}"),
                )
                .label("invalid UTF-8 starts here")
                .help("save the file as UTF-8"),
            );
            None
        }
    }
}

/// Reads a file with the size and encoding checks, adds it to `db` and parses it.
/// Returns `None` when the file could not be read; `Some((id, None))` when it has no document.
pub(super) fn read_and_parse(
    db: &mut SourceDb,
    path: &Path,
    yaml_syntax: bool,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, Option<Node>)> {
    let (id, blank) = read_source(db, path, options, diags)?;
    if blank {
        return Some((id, None));
    }
    Some((id, parse_source(db, id, path, yaml_syntax, diags)))
}

/// A file read into `db`, and whether it is blank (reported as empty).
pub(super) fn read_source(
    db: &mut SourceDb,
    path: &Path,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, bool)> {
    add_source(db, path, read_file(path, options), options, diags)
}

/// [`read_source`] of a file [`read_file`] read.
pub(super) fn add_source(
    db: &mut SourceDb,
    path: &Path,
    read: FileRead,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, bool)> {
    let (text, stamp) = take_text(db, path, read, options, diags)?;
    let blank = is_blank(&text);
    let id = db.add_stamped(path, text, stamp);
    if blank {
        diags.push(
            Diagnostic::at(
                &rule::EMPTY_FILE,
                Loc::new(id, Span::at(0)),
                format!("`{}` is empty", display_path(path)),
            )
            .help("write a tool definition into it, or delete it"),
        );
    }
    Some((id, blank))
}

/// The syntax tree of file `id` of `db` (YAML, unless it looks like JSON
/// or `yaml_syntax` is false), its problems into `diags`.
pub(super) fn parse_source(
    db: &SourceDb,
    id: FileId,
    path: &Path,
    yaml_syntax: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let shown = display_path(path);
    let text = db.get(id).text();
    let looks_json = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with(['{', '[']);
    let parsed = if yaml_syntax && !looks_json {
        syntax::yaml::parse(id, text, yaml::Schema::Core)
    } else {
        syntax::json::parse(id, text)
    };
    diags.extend(parsed.diagnostics);
    if parsed.root.is_none() && yaml_syntax {
        // A YAML document of comments only.
        let has_error = diags.iter().any(|d| d.loc.is_some_and(|l| l.file == id));
        if !has_error {
            diags.push(
                Diagnostic::at(
                    &rule::EMPTY_FILE,
                    Loc::new(id, Span::at(0)),
                    format!("`{shown}` contains no YAML document"),
                )
                .help("write the definition into it, or delete it"),
            );
        }
    }
    parsed.root
}

/// Manifests read so far, by path: parsed once, whether the directory walk
/// met them or a spec file's search for its manifest did. `None`: unreadable
/// (reported).
#[derive(Default)]
pub(super) struct Manifests {
    pub(super) parsed: HashMap<PathBuf, Option<(FileId, Node)>>,
}

impl Manifests {
    pub(super) fn get(
        &mut self,
        db: &mut SourceDb,
        path: &Path,
        options: &LoadOptions,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&(FileId, Node)> {
        if !self.parsed.contains_key(path) {
            let parsed = read_and_parse(db, path, true, options, diags)
                .and_then(|(file, root)| root.map(|r| (file, r)));
            self.parsed.insert(path.to_path_buf(), parsed);
        }
        self.parsed.get(path).and_then(Option::as_ref)
    }

    /// The manifest's `specs` folders, as absolute paths (`None`: it names none).
    pub(super) fn spec_dirs(
        &mut self,
        db: &mut SourceDb,
        path: &Path,
        options: &LoadOptions,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<PathBuf>> {
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let (_, root) = self.get(db, path, options, diags)?;
        manifest::spec_paths(root).map(|ps| ps.iter().map(|p| dir.join(p)).collect())
    }
}

/// A spec file and the manifest that governs it (`None`: a loose file).
pub(super) type Owned = (PathBuf, Option<PathBuf>);

/// Whether a text is nothing but white space (and a byte-order mark).
pub fn is_blank(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').trim().is_empty()
}
