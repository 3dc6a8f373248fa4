//! Source files, byte spans and `line:column` locations.
//!
//! Every value toolgen reads keeps the byte range it came from, so that any
//! diagnostic — from the parser, a format reader or a validation rule — can
//! point at `path:line:column` of the offending value.

use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceDb`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: clamp_u32(start),
            end: clamp_u32(end.max(start)),
        }
    }

    /// An empty span at `offset`.
    pub fn at(offset: usize) -> Span {
        Span::new(offset, offset)
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A span in a specific file: where a value of the IR came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub file: FileId,
    pub span: Span,
}

impl Loc {
    pub fn new(file: FileId, span: Span) -> Loc {
        Loc { file, span }
    }
}

/// A resolved, human-facing position (1-based line and column, column in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// One file of a run: its path as the user gave it, and its text.
#[derive(Debug)]
pub struct SourceFile {
    /// The path used in diagnostics (relative to the working directory where possible).
    pub display: String,
    pub path: PathBuf,
    text: String,
    /// The file's stamp when its text was read (a spec file's), so that a
    /// later run can tell it unchanged without reading it.
    pub stamp: Option<FileStamp>,
    /// Where each line starts, found the first time a position is shown
    /// (most files a run reads are never named in a message).
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceFile {
    fn new(path: PathBuf, display: String, text: String) -> SourceFile {
        SourceFile {
            display,
            path,
            text,
            stamp: None,
            line_starts: std::sync::OnceLock::new(),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(self.text().match_indices('\n').map(|(i, _)| i + 1));
            starts
        })
    }

    /// The 1-based line and column of a byte offset (clamped to the text). The
    /// very end of a text whose last line ends is shown at the end of that line,
    /// as rustc shows it: there is no line after it to point into.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let text = self.text();
        let mut offset = (offset as usize).min(text.len());
        if offset == text.len() && text.ends_with('\n') {
            offset -= 1;
            if text[..offset].ends_with('\r') {
                offset -= 1;
            }
        }
        let line_starts = self.line_starts();
        let line_idx = match line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = line_starts[line_idx];
        let column = self
            .text()
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        LineCol {
            line: line_idx + 1,
            column,
        }
    }

    /// The whole lines holding bytes `start..end` (clamped to the text): the
    /// first one's number and offset, and their text without the last line
    /// terminator.
    pub fn lines_of(&self, start: usize, end: usize) -> (usize, usize, &str) {
        let text = self.text();
        let (start, end) = (start.min(text.len()), end.min(text.len()));
        let starts = self.line_starts();
        let first = starts.partition_point(|&s| s <= start).saturating_sub(1);
        let from = starts.get(first).copied().unwrap_or(0);
        let to = text
            .get(end.max(start)..)
            .and_then(|rest| rest.find('\n'))
            .map_or(text.len(), |i| end.max(start) + i);
        (first + 1, from, text.get(from..to).unwrap_or(""))
    }

    /// The text of a 1-based line, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        let line_starts = self.line_starts();
        let Some(&start) = line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = line_starts
            .get(line)
            .map_or(self.text().len(), |&next| next - 1);
        self.text()
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches('\r')
    }

    /// The byte offset of a (character-indexed) position, as YAML parsers report them.
    pub fn char_index_to_byte(&self, char_index: usize) -> usize {
        if self.text().is_ascii() {
            return char_index.min(self.text().len());
        }
        self.text()
            .char_indices()
            .nth(char_index)
            .map_or(self.text().len(), |(i, _)| i)
    }
}

/// What a file on disk looked like when toolgen last wrote or compared it:
/// enough to know, without reading it, that it was not touched since.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    pub len: u64,
    /// Modification time, nanoseconds since the epoch.
    pub modified: i128,
    /// The inode (0 where there is none), so that a file replaced by
    /// another of the same size and time is noticed.
    pub inode: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        FileStamp {
            len: meta.len(),
            modified,
            inode,
        }
    }

    /// The stamp of the file at `path` itself (a symbolic link is no file).
    pub fn read(path: &Path) -> Option<FileStamp> {
        std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| FileStamp::of(&m))
    }

    /// The stamp of the file `path` names, following symbolic links (as
    /// opening it does).
    pub fn of_path(path: &Path) -> Option<FileStamp> {
        std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| FileStamp::of(&m))
    }
}

/// The stamps of files below one directory: [`FileStamp::read`] of
/// `root/rel`, or of the file it names when [`following`](Stamps::following).
#[derive(Debug)]
pub struct Stamps {
    root: PathBuf,
    /// Whether a symbolic link is followed ([`FileStamp::of_path`]) or is
    /// no file ([`FileStamp::read`]).
    follow: bool,
}

impl Stamps {
    pub fn new(root: &Path) -> Stamps {
        Stamps {
            root: root.to_path_buf(),
            follow: false,
        }
    }

    /// Stamps of the files paths name, relative to the current directory
    /// or absolute, following symbolic links ([`FileStamp::of_path`]).
    pub fn following() -> Stamps {
        Stamps {
            follow: true,
            ..Stamps::new(Path::new(""))
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The stamp of `root/rel`.
    pub fn read(&self, rel: impl AsRef<Path>) -> Option<FileStamp> {
        let path = self.root.join(rel);
        match self.follow {
            true => FileStamp::of_path(&path),
            false => FileStamp::read(&path),
        }
    }
}

/// All files read in one run.
#[derive(Debug, Default)]
pub struct SourceDb {
    files: Vec<SourceFile>,
    /// The current directory, asked for once (by the first file added): the
    /// paths of a run's files are shown relative to it.
    cwd: std::sync::OnceLock<Option<PathBuf>>,
}

impl SourceDb {
    pub fn new() -> SourceDb {
        SourceDb::default()
    }

    /// Adds a file; `text` must already be valid UTF-8.
    pub fn add(&mut self, path: &Path, text: String) -> FileId {
        let cwd = self.cwd.get_or_init(|| std::env::current_dir().ok());
        self.add_as(path, display_path_from(cwd.as_deref(), path), text)
    }

    /// [`SourceDb::add`] of a file read with the stamp it had then.
    pub fn add_stamped(&mut self, path: &Path, text: String, stamp: Option<FileStamp>) -> FileId {
        let id = self.add(path, text);
        if let Some(f) = self.files.last_mut() {
            f.stamp = stamp;
        }
        id
    }

    /// Adds a file shown as `display` in messages (a file of an earlier
    /// revision, `HEAD~1:specs/a.json`, say).
    pub fn add_as(&mut self, path: &Path, display: String, text: String) -> FileId {
        self.push(SourceFile::new(path.to_path_buf(), display, text))
    }

    fn push(&mut self, file: SourceFile) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(file);
        id
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn line_col(&self, loc: Loc) -> LineCol {
        self.get(loc.file).line_col(loc.span.start)
    }

    /// `path:line:column` of a location.
    pub fn describe(&self, loc: Loc) -> String {
        let lc = self.line_col(loc);
        format!("{}:{}:{}", self.get(loc.file).display, lc.line, lc.column)
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(u32::try_from(i).unwrap_or(u32::MAX)), f))
    }
}

/// The entries of `dir`, sorted, without hidden ones (names starting with `.`):
/// the one directory walk used for spec roots and schema documents.
pub fn sorted_children(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(sorted_entries(dir)?.into_iter().map(|(p, _)| p).collect())
}

/// [`sorted_children`] with each one's type where listing the directory
/// told it (most file systems do) and it is not a symbolic link: a walk
/// need not look each one up again.
pub fn sorted_entries(dir: &Path) -> std::io::Result<Vec<(PathBuf, Option<std::fs::FileType>)>> {
    let mut children: Vec<(PathBuf, Option<std::fs::FileType>)> = std::fs::read_dir(dir)?
        .filter_map(|e| {
            let e = e.ok()?;
            let kind = e.file_type().ok().filter(|t| !t.is_symlink());
            Some((e.path(), kind))
        })
        .filter(|(p, _)| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    // One directory's entries: their paths differ in the last name only, so
    // comparing the bytes orders them as comparing components would, at a
    // fraction of the cost (a run lists thousands).
    children.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    Ok(children)
}

/// A path for messages: relative to the current directory when it is below it,
/// always with `/` separators so that output is identical on every platform.
pub fn display_path(path: &Path) -> String {
    display_path_from(std::env::current_dir().ok().as_deref(), path)
}

/// [`display_path`] with the current directory `cwd` already known.
fn display_path_from(cwd: Option<&Path>, path: &Path) -> String {
    let rel = cwd
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path);
    let s = rel.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_owned).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read from their directories, stamps are what a stat of the whole
    /// path gives, for every kind of path; a file replaced is seen anew.
    #[test]
    fn stamps_read_from_a_directory_are_those_of_the_path() {
        let dir = std::env::temp_dir().join(format!("toolgen-stamps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(&dir));
            let _ = std::fs::write(path, text);
        };
        write("top.txt", "top");
        write("a/b/deep.txt", "deeper");
        write("a/other.txt", "x");
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink(dir.join("top.txt"), dir.join("a/link.txt"));
        let stamps = Stamps::new(&dir);
        let rels = [
            "top.txt",
            "a/b/deep.txt",
            "a/other.txt",
            "a/link.txt",
            "a/b",
            "a/missing.txt",
            "gone/missing.txt",
            "top.txt/under",
            "a/b/../other.txt",
            "a/./other.txt",
            "a/",
            ".",
            "..",
        ];
        let check = |stamps: &Stamps| {
            for rel in rels {
                assert_eq!(stamps.read(rel), FileStamp::read(&dir.join(rel)), "{rel}");
            }
        };
        check(&stamps);
        let following = Stamps::following();
        for rel in rels {
            let path = dir.join(rel);
            let path = path.to_str().unwrap_or_default();
            assert_eq!(
                following.read(path),
                FileStamp::of_path(Path::new(path)),
                "{rel}"
            );
        }
        assert_eq!(following.read("/"), FileStamp::of_path(Path::new("/")));
        assert_eq!(
            following.read(format!("{}/a/link.txt", dir.display())),
            FileStamp::of_path(&dir.join("top.txt")),
            "a link followed"
        );
        assert!(stamps.read("a/b/deep.txt").is_some());
        // A FIFO where a directory was: told apart, not waited on.
        #[cfg(target_os = "linux")]
        {
            let fifo = dir.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert_eq!(stamps.read("fifo/x"), None);
                assert_eq!(stamps.read("fifo"), FileStamp::read(&fifo));
            }
        }
        // A path that is not UTF-8: looked at whole, the same answer.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = dir.join(std::ffi::OsStr::from_bytes(b"a/\xff.txt"));
            let _ = std::fs::write(&odd, "odd");
            assert!(following.read(&odd).is_some());
            assert_eq!(following.read(&odd), FileStamp::of_path(&odd));
        }
        // More directories than are kept open: the rest by their paths.
        for n in 0..80 {
            write(&format!("many/{n}/f.txt"), &"x".repeat(n));
        }
        for n in 0..80 {
            let rel = format!("many/{n}/f.txt");
            let found = stamps.read(&rel);
            assert_eq!(found.map(|s| s.len), Some(n as u64), "{rel}");
            assert_eq!(found, FileStamp::read(&dir.join(&rel)), "{rel}");
        }
        assert_eq!(stamps.read("a/link.txt"), None, "a link is no file");
        // Asked again, after a file was replaced and a directory made.
        let before = stamps.read("a/other.txt");
        let _ = std::fs::remove_file(dir.join("a/other.txt"));
        write("a/other.txt", "longer now");
        write("gone/missing.txt", "here");
        assert_ne!(stamps.read("a/other.txt"), before);
        check(&stamps);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn line_col_counts_characters_from_one() {
        let mut db = SourceDb::new();
        let id = db.add(Path::new("a.json"), "{\n  \"é\": 1\n}".to_owned());
        let f = db.get(id);
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        // the `1` after `"é": ` is byte 10, character column 8
        let off = f.text().find('1').map(|i| i as u32).unwrap_or(0);
        assert_eq!(f.line_col(off), LineCol { line: 2, column: 8 });
        assert_eq!(f.line_text(2), "  \"é\": 1");
        assert_eq!(f.line_text(9), "");
    }
}
