//! Why writing the output failed, and the one check of a generated path:
//! plain and relative, so that nothing is written outside the output directory.

use std::io;
use std::path::{Component, Path, PathBuf};

/// An error with the path it concerns.
#[derive(Debug)]
pub struct OutputError {
    pub path: PathBuf,
    pub error: io::Error,
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for OutputError {}

pub(super) fn err(path: &Path, error: io::Error) -> OutputError {
    OutputError {
        path: path.to_path_buf(),
        error,
    }
}

pub(super) fn checked_join(dir: &Path, rel: &str) -> Result<PathBuf, OutputError> {
    let p = Path::new(rel);
    let safe = !rel.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    if !safe {
        return Err(err(
            p,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "generated path is not a plain relative path",
            ),
        ));
    }
    Ok(dir.join(p))
}
