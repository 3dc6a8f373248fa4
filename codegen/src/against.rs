//! The specs of an earlier version, for `toolgen breaking`: the same paths
//! at a git revision (their files written into a temporary directory), or
//! in another directory.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use crate::manifest::MANIFEST_NAMES;

/// What to compare with.
#[derive(Clone, Debug)]
pub enum Against {
    /// A git revision (`main`, `HEAD~1`, a commit) of the repository around
    /// the current directory.
    Git(String),
    /// A directory holding the earlier version: of the one input path, or,
    /// with several, laid out like the current directory (an older checkout,
    /// an unpacked release).
    Dir(PathBuf),
}

/// The earlier version's copies of some paths.
pub struct Earlier {
    /// Each input path's counterpart (absent ones are left out).
    pub inputs: Vec<PathBuf>,
    /// The `--manifest`'s counterpart, if it was given and exists.
    pub manifest: Option<PathBuf>,
    /// How files of the earlier version are named in messages: a root to
    /// strip from their paths and a prefix in its place (`HEAD~1:`).
    pub strip: PathBuf,
    pub prefix: String,
    /// A temporary directory to remove when done.
    temp: Option<PathBuf>,
}

impl Drop for Earlier {
    fn drop(&mut self) {
        if let Some(t) = &self.temp {
            let _ = std::fs::remove_dir_all(t);
        }
    }
}

impl Earlier {
    /// How the earlier file at `path` is shown in messages.
    pub fn display(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.strip).unwrap_or(path);
        format!(
            "{}{}",
            self.prefix,
            rel.to_string_lossy().replace('\\', "/")
        )
    }
}

/// The earlier version of `inputs` (and of `manifest`) per `against`.
pub fn earlier(
    against: &Against,
    inputs: &[PathBuf],
    manifest: Option<&Path>,
) -> Result<Earlier, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    match against {
        Against::Dir(dir) if inputs.len() == 1 && manifest.is_none() => Ok(Earlier {
            inputs: vec![dir.clone()],
            manifest: None,
            strip: std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
            prefix: format!("{}/", dir.display()),
            temp: None,
        }),
        Against::Dir(dir) => {
            let map = |p: &Path| -> Result<PathBuf, String> { Ok(dir.join(relative(&cwd, p)?)) };
            let mut mapped = Vec::new();
            for p in inputs {
                let m = map(p)?;
                if m.exists() {
                    mapped.push(m);
                }
            }
            let manifest = manifest.map(map).transpose()?.filter(|m| m.exists());
            Ok(Earlier {
                inputs: mapped,
                manifest,
                strip: std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
                prefix: format!("{}/", dir.display()),
                temp: None,
            })
        }
        Against::Git(rev) => from_git(rev, &cwd, inputs, manifest),
    }
}

/// `p` relative to `cwd` (it must be inside it when absolute).
fn relative(cwd: &Path, p: &Path) -> Result<PathBuf, String> {
    let abs = std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let rel = abs.strip_prefix(cwd).map_err(|_| {
        format!(
            "`{}` is outside the current directory; run `toolgen breaking` from a directory that holds the specs",
            p.display()
        )
    })?;
    Ok(normalize(rel))
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn git(cwd: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .output()
        .map_err(|e| format!("cannot run git: {e}; `--against REF` needs git on the PATH (or use `--against-dir DIR`)"))?;
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

fn from_git(
    rev: &str,
    cwd: &Path,
    inputs: &[PathBuf],
    manifest: Option<&Path>,
) -> Result<Earlier, String> {
    let top = git(cwd, &["rev-parse", "--show-toplevel"]).map_err(|e| {
        format!(
            "{e}\n`--against {rev}` compares with a git revision: run it inside a git repository"
        )
    })?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let commit = git(
        cwd,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| {
        format!(
            "`{rev}` is not a revision of this repository (try `main`, `HEAD~1` or a commit id)"
        )
    })?;
    let commit = String::from_utf8_lossy(&commit).trim().to_owned();
    let top = top.canonicalize().unwrap_or(top);
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let in_repo = |p: &Path| -> Result<PathBuf, String> {
        let abs = cwd.join(relative(&cwd, p)?);
        abs.strip_prefix(&top).map(normalize).map_err(|_| {
            format!(
                "`{}` is not inside the git repository at {}",
                p.display(),
                top.display()
            )
        })
    };
    let mut wanted: Vec<String> = Vec::new();
    let mut rels = Vec::new();
    for p in inputs.iter().map(PathBuf::as_path).chain(manifest) {
        let rel = in_repo(p)?;
        let spec = rel.to_string_lossy().replace('\\', "/");
        let listed = git(
            &top,
            &[
                "ls-tree",
                "-r",
                "-z",
                "--name-only",
                &commit,
                "--",
                if spec.is_empty() { "." } else { &spec },
            ],
        )?;
        wanted.extend(
            listed
                .split(|b| *b == 0)
                .filter(|n| !n.is_empty())
                .map(|n| String::from_utf8_lossy(n).into_owned()),
        );
        // The manifests above the path, which own the specs below them.
        let mut dir = rel.parent();
        while let Some(d) = dir {
            for name in MANIFEST_NAMES {
                wanted.push(d.join(name).to_string_lossy().replace('\\', "/"));
            }
            dir = d.parent();
        }
        rels.push(rel);
    }
    wanted.sort();
    wanted.dedup();
    let temp = std::env::temp_dir().join(format!(
        "toolgen-breaking-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&temp).map_err(|e| format!("{}: {e}", temp.display()))?;
    if let Err(e) = extract(&top, &commit, &wanted, &temp) {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(e);
    }
    let n_inputs = inputs.len();
    let mut mapped = Vec::new();
    let mut manifest_at = None;
    for (i, rel) in rels.into_iter().enumerate() {
        let at = temp.join(&rel);
        if !at.exists() {
            continue;
        }
        if i < n_inputs {
            mapped.push(at);
        } else {
            manifest_at = Some(at);
        }
    }
    Ok(Earlier {
        inputs: mapped,
        manifest: manifest_at,
        strip: temp.clone(),
        prefix: format!("{rev}:"),
        temp: Some(temp),
    })
}

/// Writes the files `names` of `commit` below `dest`, through one
/// `git cat-file --batch` (names the commit does not have are skipped).
fn extract(top: &Path, commit: &str, names: &[String], dest: &Path) -> Result<(), String> {
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(top)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("git cat-file: no stdin")?;
    let requests: String = names.iter().map(|n| format!("{commit}:{n}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
    let stdout = child.stdout.take().ok_or("git cat-file: no stdout")?;
    let mut out = BufReader::new(stdout);
    for name in names {
        let mut header = String::new();
        out.read_line(&mut header).map_err(|e| e.to_string())?;
        // `<oid> blob <size>`, or `<object> missing`.
        let parts: Vec<&str> = header.split_whitespace().collect();
        let [_, kind, size] = parts.as_slice() else {
            continue;
        };
        let size: usize = size
            .parse()
            .map_err(|_| format!("git cat-file: bad header `{header}`"))?;
        let mut body = vec![0; size + 1];
        out.read_exact(&mut body).map_err(|e| e.to_string())?;
        body.pop();
        if *kind != "blob" {
            continue;
        }
        let path = dest.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, body).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(())
}
