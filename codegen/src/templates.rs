//! The text templates of the emitters that render through minijinja (C#
//! bridge stubs, docs). The built-in templates (`templates/` in the source
//! tree) are embedded in the binary, so `toolgen` works from any directory; a
//! user overrides any of them by placing a file with the same relative name
//! in a templates directory (`toolgen gen --templates DIR`).
//!
//! Templates receive data, never markup: every string that comes from a spec
//! is escaped for its target (C# string literal, XML doc comment, Markdown)
//! by the emitter before it reaches a template.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minijinja::Environment;
use serde::Serialize;

use crate::diag::{Diagnostic, rule};
use crate::files::GeneratedFiles;
use crate::ir::{Project, ToolSet};

/// Every built-in template: relative name and text.
pub const BUILTIN: &[(&str, &str)] = crate::text::embedded!("../../templates/";
    "csharp/tool.cs.jinja",
    "csharp/registry.cs.jinja",
    "csharp/registry_entry.cs.jinja",
    "csharp/package.json.jinja",
    "csharp/asmdef.jinja",
    "r/worker.R.jinja",
    "docs/tool.md.jinja",
    "docs/set.md.jinja",
    "docs/index.md.jinja",
    "docs/SUMMARY.md.jinja",
    "docs/book.toml.jinja",
    "docs/toolgen.css.jinja",
);

/// A template problem: which template, where, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    /// The file the template came from (an override), or `None` for a built-in one.
    pub path: Option<PathBuf>,
    pub name: String,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = match &self.path {
            Some(p) => p.display().to_string(),
            None => format!("built-in template {}", self.name),
        };
        match self.line {
            Some(l) => write!(f, "{place}:{l}: {}", self.message),
            None => write!(f, "{place}: {}", self.message),
        }
    }
}

/// The templates of one run: built-ins, each possibly overridden.
pub struct Templates {
    env: Environment<'static>,
    overridden: Vec<(String, PathBuf)>,
    /// Of the regenerate command and every template's name and text: what
    /// a rendered piece depends on besides its context.
    digest: crate::digest::Digest,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates")
            .field("overridden", &self.overridden)
            .finish()
    }
}

impl Templates {
    #[cfg(test)]
    /// The built-in templates, with any file of the same name in `dir` taking
    /// precedence. Fails on an unreadable or syntactically broken override.
    pub fn new(dir: Option<&Path>) -> Result<Templates, TemplateError> {
        Templates::with_regenerate(dir, "toolgen gen")
    }

    /// Like [`Templates::new`]; `regenerate` is the command that regenerates
    /// the output, which templates name in their headers (`{{ regenerate }}`).
    pub fn with_regenerate(
        dir: Option<&Path>,
        regenerate: &str,
    ) -> Result<Templates, TemplateError> {
        let mut env = Environment::new();
        env.add_global("regenerate", regenerate.to_owned());
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| error(&None, "(syntax)", &e))?;
        env.set_syntax(syntax);
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        // Spec text is escaped by the emitters for each target; no HTML auto-escaping.
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        let mut overridden = Vec::new();
        let mut digest = crate::digest::Hasher::new();
        digest.str("templates").str(regenerate);
        for (name, builtin) in BUILTIN {
            let file = dir.map(|d| d.join(name)).filter(|p| p.is_file());
            let text = match &file {
                Some(p) => std::fs::read_to_string(p).map_err(|e| TemplateError {
                    path: Some(p.clone()),
                    name: (*name).to_owned(),
                    line: None,
                    message: format!("cannot read the template override: {e}"),
                })?,
                None => (*builtin).to_owned(),
            };
            digest.str(name).str(&text);
            env.add_template_owned((*name).to_owned(), text)
                .map_err(|e| error(&file, name, &e))?;
            if let Some(p) = file {
                overridden.push(((*name).to_owned(), p));
            }
        }
        Ok(Templates {
            env,
            overridden,
            digest: digest.finish(),
        })
    }

    /// Renders template `name` with `context`.
    pub fn render<S: Serialize>(&self, name: &str, context: S) -> Result<String, TemplateError> {
        let file = self
            .overridden
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.clone());
        let t = self
            .env
            .get_template(name)
            .map_err(|e| error(&file, name, &e))?;
        t.render(minijinja::value::Serde(context))
            .map_err(|e| error(&file, name, &e))
    }

    /// The digest of the regenerate command and of every template's text.
    pub fn digest(&self) -> crate::digest::Digest {
        self.digest
    }

    /// The templates replaced by files, with their paths.
    pub fn overridden(&self) -> &[(String, PathBuf)] {
        &self.overridden
    }
}

impl TemplateError {
    /// The problem as a TG0802 diagnostic (it names the template file and line).
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::new(&rule::TEMPLATE, None, self.to_string())
    }
}

impl Templates {
    /// Renders template `name` into the generated file `path`; a problem is
    /// reported instead.
    pub fn render_file<S: Serialize>(
        &self,
        name: &str,
        context: S,
        path: String,
        out: &mut GeneratedFiles,
        diags: &mut Vec<Diagnostic>,
    ) {
        match self.render(name, context) {
            Ok(text) => out.add(path, text),
            Err(e) => diags.push(e.diagnostic()),
        }
    }
}

/// The templates of one generation: the built-ins with the command line's
/// overrides (`shared`), and per tool set the manifest's overrides when the
/// command line gives none (the command line wins).
pub struct RunTemplates {
    shared: Templates,
    per_set: BTreeMap<String, Templates>,
}

impl RunTemplates {
    /// Loads every override directory; problems are reported and give `None`.
    pub fn load(
        cli: Option<&Path>,
        regenerate: &str,
        project: &Project,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<RunTemplates> {
        let shared = Templates::with_regenerate(cli, regenerate)
            .map_err(|e| diags.push(e.diagnostic()))
            .ok()?;
        let mut per_set = BTreeMap::new();
        if cli.is_none() {
            for set in &project.tool_sets {
                if let Some(dir) = &set.templates {
                    let t = Templates::with_regenerate(Some(&dir.value), regenerate)
                        .map_err(|e| diags.push(e.diagnostic()))
                        .ok()?;
                    per_set.insert(set.name.clone(), t);
                }
            }
        }
        Some(RunTemplates { shared, per_set })
    }

    pub fn shared(&self) -> &Templates {
        &self.shared
    }

    pub fn for_set(&self, set: &ToolSet) -> &Templates {
        self.per_set.get(&set.name).unwrap_or(&self.shared)
    }
}

fn error(path: &Option<PathBuf>, name: &str, e: &minijinja::Error) -> TemplateError {
    let mut message = e
        .detail()
        .map_or_else(|| e.kind().to_string(), str::to_owned);
    if let Some(src) = std::error::Error::source(e) {
        message.push_str(&format!(": {src}"));
    }
    TemplateError {
        path: path.clone(),
        name: name.to_owned(),
        line: e.line(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_overrides_are_located() {
        assert!(Templates::new(None).is_ok());
        let dir = std::env::temp_dir().join(format!("toolgen-templates-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("csharp"));
        let _ = std::fs::write(dir.join("csharp/tool.cs.jinja"), "ok\n{% if %}\n");
        let e = Templates::new(Some(&dir)).err();
        let _ = std::fs::remove_dir_all(&dir);
        let e = e.map(|e| (e.line, e.path.is_some(), e.to_string()));
        assert!(
            matches!(&e, Some((Some(2), true, m)) if m.contains("tool.cs.jinja:2")),
            "{e:?}"
        );
    }
}
