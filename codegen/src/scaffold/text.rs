//! What `init` and `new` write with: files that must not exist yet, paths
//! relative to one another, and the scaffold's templates filled.

use std::path::{Component, Path};

/// Writes a file that must not exist yet.
pub(super) fn create(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    }
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => format!(
                "`{}` already exists; toolgen does not overwrite it",
                path.display()
            ),
            _ => format!("cannot create `{}`: {e}", path.display()),
        })?;
    file.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// A relative path from directory `from` to `to` (both absolute), with `/`.
pub(super) fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<Component> = from.components().collect();
    let to_parts: Vec<Component> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to_parts[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// One of the scaffold's templates (its own, fixed text) filled with `values`;
/// a name it uses that `values` lacks is a bug, shown in the text.
pub(super) fn fill(template: &str, values: std::collections::BTreeMap<&str, String>) -> String {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    match env.render_str(template, minijinja::Value::from(values)) {
        // minijinja drops a template's last line end.
        Ok(text) => text + "\n",
        Err(e) => format!("toolgen could not fill its template: {e}"),
    }
}
