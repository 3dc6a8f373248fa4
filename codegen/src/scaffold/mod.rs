//! `toolgen init` and `toolgen new`: a tool set to start from, and new specs
//! in it, each with every field its format requires. What they write
//! validates with no warnings (`new` checks the new spec with the same
//! loader `validate` uses, and writes nothing when it would not), and names
//! its JSON Schema so that editors complete and check while the author types.
//!
//! The schemas go to `.toolgen/` beside the manifest: a hidden folder, which
//! the directory walk skips, so they are never read as specs.

mod server;
mod text;

use std::path::{Component, Path, PathBuf};

use self::text::{create, fill, relative};

use crate::diag::{HumanRenderer, Severity};
use crate::ir::{Format, RuntimeSource, ToolSet};

pub use self::server::ServerKind;
use crate::load::{LoadOptions, load};
use crate::manifest::{self, MANIFEST_NAMES};
use crate::spec_schemas;

/// The folder, beside a manifest, that holds the JSON Schemas for editors.
pub const SCHEMA_DIR: &str = ".toolgen";

/// What `init` wrote.
#[derive(Debug)]
pub struct Initialized {
    pub manifest: PathBuf,
    pub spec: PathBuf,
    /// The server's files (`build.rs`, `src/main.rs`, `Cargo.toml`), with `--server`.
    pub server: Vec<PathBuf>,
}

/// A tool-set name from a directory name: lowercase letters, digits and `_`.
fn set_name(dir: &Path) -> String {
    let raw = std::path::absolute(dir)
        .ok()
        .and_then(|d| d.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .unwrap_or_default();
    let mut name: String = raw
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    name = name.trim_matches('_').to_owned();
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        name = format!("tools_{name}").trim_end_matches('_').to_owned();
    }
    name
}

/// Writes (or refreshes) the JSON Schemas into `dir`; returns their paths.
pub fn write_schemas(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for (name, text) in spec_schemas::all() {
        let path = dir.join(name);
        crate::output::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn checked_relative(specs: &str) -> Result<(), String> {
    let p = Path::new(specs);
    if p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "`--specs {specs}` must be a folder below the tool set's directory"
        ));
    }
    Ok(())
}

/// Creates a tool set in `dir`: `toolset.yaml`, one example spec and the JSON
/// Schemas. `specs`: a folder below `dir` for the spec files (the manifest
/// names it), for folders that another program owns. `server`: also a Rust
/// server of that kind in the Cargo package holding `dir`, with the toolgen
/// crates from that source (see [`server`]).
pub fn init(
    dir: &Path,
    format: Format,
    name: Option<&str>,
    specs: Option<&str>,
    server: Option<(ServerKind, &RuntimeSource)>,
) -> Result<Initialized, String> {
    if let Some(existing) = MANIFEST_NAMES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
    {
        return Err(format!(
            "`{}` is already a tool set; add specs to it with `toolgen new ID --dir {}`",
            existing.display(),
            dir.display()
        ));
    }
    let name = match name {
        Some(n) if manifest::is_valid_name(n) => n.to_owned(),
        Some(n) => {
            return Err(format!(
                "`{n}` is not a tool-set name: use lowercase letters, digits and `_`, starting with a letter"
            ));
        }
        None => set_name(dir),
    };
    if let Some(s) = specs {
        checked_relative(s)?;
    }
    // Checked before anything is written.
    let package = match server {
        Some((kind, _)) => Some(server::package_of(dir, kind)?),
        None => None,
    };
    write_schemas(&dir.join(SCHEMA_DIR))?;
    let manifest_path = dir.join("toolset.yaml");
    create(&manifest_path, &manifest_text(&name, format, specs))?;
    let example = example_id(format, &name);
    let spec = new_spec_in(&manifest_path, &example, true)?;
    let server = match (package, server) {
        (Some(package), Some((kind, source))) => {
            let names = server::Names {
                set: &name,
                tool: &example,
                format,
            };
            server::write(&package, dir, &names, kind, source)?
        }
        _ => Vec::new(),
    };
    Ok(Initialized {
        manifest: manifest_path,
        spec,
        server,
    })
}

fn example_id(format: Format, set: &str) -> String {
    match format {
        Format::EditorMcp => "project.hello".to_owned(),
        Format::Mcp => "hello".to_owned(),
        Format::Rave => format!("{}-mcp_tool_example_hello", rave_package(set)),
    }
}

/// A RAVE package prefix from a tool-set name (letters and digits only).
fn rave_package(set: &str) -> String {
    let p: String = set.chars().filter(char::is_ascii_alphanumeric).collect();
    if p.is_empty() { "pkg".to_owned() } else { p }
}

fn manifest_text(name: &str, format: Format, specs: Option<&str>) -> String {
    let title = crate::ident::title_case(name);
    let namespace = crate::ident::pascal(name);
    let mut t = format!(
        "# yaml-language-server: $schema={SCHEMA_DIR}/{manifest}\n# The tool set `{name}`: every spec file {where_} is one tool in the {format} format.\n# toolgen validate . && toolgen gen --out generated .\nname: {name}\ntitle: {title}\nversion: 0.1.0\nformat: {format}\nnamespace: {namespace}\n",
        manifest = spec_schemas::MANIFEST,
        where_ = match specs {
            Some(s) => format!("in `{s}`"),
            None => "next to this manifest".to_owned(),
        },
    );
    if let Some(s) = specs {
        t.push_str(&format!(
            "# Where the spec files are (relative to this file); only they are read.\nspecs: {s}\n"
        ));
    }
    match format {
        Format::EditorMcp => t.push_str(
            "defaultTimeoutSeconds: 30\ncategories:\n  - id: project\n    description: Project-wide inspection\ntiers:\n  - id: core\n    title: Core\nsafetyLevels: [read-only, safe-write]\n",
        ),
        Format::Mcp | Format::Rave => {}
    }
    t.push_str(
        "# Optional:\n# outputs: [catalog, rust, csharp, docs]   # only these outputs (default: all)\n# lints: {TG0209: allow}                  # rule levels: allow, warn, deny\n# rustSerde: both                         # Rust inputs written and outputs read too (default: server)\n",
    );
    t
}

/// Adds a spec for tool `id` to the tool set whose manifest is found from
/// `start` (a manifest, or a directory in or below the tool set): in the
/// manifest's first `specs` folder, or beside it. RAVE ids without a package
/// (`signal_filter`) get the tool set's (`pkg-mcp_tool_signal_filter`).
pub fn new_spec(start: &Path, id: &str) -> Result<PathBuf, String> {
    let manifest = find_manifest(start)?;
    new_spec_in(&manifest, id, false)
}

/// The manifest at `start`, or the nearest one in or above the directory `start`.
pub fn find_manifest(start: &Path) -> Result<PathBuf, String> {
    let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    if start.is_file() {
        return Ok(start);
    }
    let mut dir = Some(start.as_path());
    while let Some(d) = dir {
        if let Some(m) = MANIFEST_NAMES
            .iter()
            .map(|n| d.join(n))
            .find(|p| p.is_file())
        {
            return Ok(m);
        }
        dir = d.parent();
    }
    Err(format!(
        "no toolset.yaml in `{}` or above it; create a tool set with `toolgen init DIR --format mcp|editormcp|rave`, or name one with `--manifest`",
        start.display()
    ))
}

/// Reads the manifest at `path` into a tool-set shell and its spec folder.
fn read_manifest(path: &Path) -> Result<(ToolSet, PathBuf), String> {
    let mut db = crate::source::SourceDb::new();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let file = db.add(path, text);
    let parsed =
        crate::syntax::yaml::parse(file, db.get(file).text(), crate::syntax::yaml::Schema::Core);
    let mut diags = parsed.diagnostics;
    let root = parsed.root;
    let set = root.as_ref().and_then(|root| {
        let mut cx = crate::formats::fields::Cx {
            file,
            diags: &mut diags,
        };
        manifest::read(&mut cx, root)
    });
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            HumanRenderer {
                db: &db,
                color: false,
            }
            .render(d)
        })
        .collect();
    match set {
        Some(set) if errors.is_empty() => {
            let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            let specs = root
                .as_ref()
                .and_then(manifest::spec_paths)
                .and_then(|s| s.into_iter().next())
                .map_or_else(|| dir.clone(), |s| dir.join(s));
            Ok((set, specs))
        }
        _ => Err(format!(
            "the manifest `{}` has errors:\n{}",
            path.display(),
            errors.join("")
        )),
    }
}

fn new_spec_in(manifest_path: &Path, id: &str, example: bool) -> Result<PathBuf, String> {
    let manifest_path =
        std::path::absolute(manifest_path).unwrap_or_else(|_| manifest_path.to_path_buf());
    let (set, spec_dir) = read_manifest(&manifest_path)?;
    let id = match set.format {
        Format::Rave if !id.contains('-') => {
            format!("{}-mcp_tool_{id}", rave_package(&set.name))
        }
        _ => id.to_owned(),
    };
    if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
        return Err(format!(
            "`{id}` cannot be a tool id: it becomes a file name"
        ));
    }
    let ext = if set.format == Format::Rave {
        "yaml"
    } else {
        "json"
    };
    let path = spec_dir.join(format!("{id}.{ext}"));
    let schema_dir = manifest_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(SCHEMA_DIR);
    let schema_file = spec_schemas::for_format(set.format);
    if !schema_dir.join(schema_file).is_file() {
        write_schemas(&schema_dir)?;
    }
    let schema_ref = format!("{}/{schema_file}", relative(&spec_dir, &schema_dir));
    let text = spec_text(&set, &id, &schema_ref, example);
    create(&path, &text)?;
    // Checked as `toolgen validate` checks it, with its tool set: a spec that
    // is not valid with no warnings is not left behind.
    let loaded = load(
        std::slice::from_ref(&path),
        &LoadOptions {
            manifest: Some(manifest_path.clone()),
            ..LoadOptions::default()
        },
    );
    let render = HumanRenderer {
        db: &loaded.db,
        color: false,
    };
    let own: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .filter(|d| d.loc.is_none_or(|l| loaded.db.get(l.file).path == path))
        .map(|d| render.render(d))
        .collect();
    if !own.is_empty() {
        let _ = std::fs::remove_file(&path);
        return Err(format!(
            "a spec for `{id}` would not validate, so none was written:\n{}",
            own.join("")
        ));
    }
    Ok(path)
}

/// A YAML scalar: plain when that reads back as the same string, else quoted.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " .,_-()'".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !s.ends_with(' ')
        && !["yes", "no", "on", "off", "true", "false", "null"]
            .contains(&s.to_ascii_lowercase().as_str());
    if plain { s.to_owned() } else { json_string(s) }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// What a scaffolded spec says: its id, title, the tool set's first
/// category, tier and safety level, and one parameter, result and example.
struct Draft<'a> {
    id: &'a str,
    schema_ref: &'a str,
    title: String,
    description: &'static str,
    category: Option<String>,
    tier: String,
    safety: crate::ir::SafetyLevel,
    param: &'static str,
    param_doc: &'static str,
    result: &'static str,
    result_doc: &'static str,
    input: &'static str,
    output: &'static str,
    /// The worked example, the same in both JSON formats.
    example: String,
}

fn spec_text(set: &ToolSet, id: &str, schema_ref: &str, example: bool) -> String {
    let (param, param_doc, result, result_doc, input, output) = if example {
        (
            "name",
            "Who to greet.",
            "greeting",
            "The greeting.",
            "Ada",
            "Hello, Ada!",
        )
    } else {
        (
            "query",
            "Describe this parameter.",
            "result",
            "Describe this result.",
            "example",
            "an example result",
        )
    };
    let d = Draft {
        id,
        schema_ref,
        title: crate::ident::title_case(id.rsplit("mcp_tool_").next().unwrap_or(id)),
        description: if example {
            "Greets someone by name: an example tool to edit or delete."
        } else {
            "Describe in one to three sentences what the tool does."
        },
        category: set.categories.first().map(|c| c.id.clone()),
        tier: set
            .tiers
            .first()
            .map_or_else(|| "core".to_owned(), |t| t.id.clone()),
        safety: set
            .safety_levels
            .first()
            .copied()
            .unwrap_or(crate::ir::SafetyLevel::ReadOnly),
        param,
        param_doc,
        result,
        result_doc,
        input,
        output,
        example: format!(
            r#"{{"description": "A typical call", "input": {{"{param}": "{input}"}}, "output": {{"{result}": "{output}"}}}}"#
        ),
    };
    d.fill(match set.format {
        Format::EditorMcp => EDITORMCP_SPEC,
        Format::Mcp => MCP_SPEC,
        Format::Rave => RAVE_SPEC,
    })
}

/// An EditorMCP spec, a minijinja template of [`Draft::values`].
const EDITORMCP_SPEC: &str = r#"{
  "$schema": {{ schema }},
  "id": {{ id }},
  "name": {{ title }},
  "description": {{ description }},
  "category": {{ category }},
  "safetyLevel": "{{ safety }}",
  "tier": {{ tier }},
  "inputs": {
    "{{ param }}": {"type": "string", "required": true, "description": "{{ param_doc }}"}
  },
  "outputs": {
    "{{ result }}": {"type": "string", "description": "{{ result_doc }}"}
  },
  "examples": [
    {{ example }}
  ]
}
"#;

/// An MCP tool.
const MCP_SPEC: &str = r#"{
  "$schema": {{ schema }},
  "name": {{ id }},
  "title": {{ title }},
  "description": {{ description }},
  "inputSchema": {
    "type": "object",
    "properties": {
      "{{ param }}": {"type": "string", "description": "{{ param_doc }}"}
    },
    "required": ["{{ param }}"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "{{ result }}": {"type": "string", "description": "{{ result_doc }}"}
    },
    "required": ["{{ result }}"]
  },
  "annotations": {"readOnlyHint": {{ read_only }}, "destructiveHint": {{ destructive }}},
  "_meta": {
    "toolgen": {
      {{ category_member }}"examples": [
        {{ example }}
      ]
    }
  }
}
"#;

/// A RAVE tool, as `mcptool_build()` writes one.
const RAVE_SPEC: &str = r#"# yaml-language-server: $schema={{ schema_ref }}
name: {{ id_raw }}
description: {{ description_yaml }}
parameters:
  type: object
  properties:
    {{ param }}:
      type: string
      description: {{ param_doc_yaml }}
  required:
  - {{ param }}
category: {{ category_yaml }}
returns:
  type: object
  properties:
    {{ result }}:
      type: string
      description: {{ result_doc_yaml }}
implementation_example: |
  {{ package }}:::{{ function }}({{ param }} = "{{ input }}")
  #> ${{ result }}
  #> [1] "{{ output }}"
"#;

impl Draft<'_> {
    /// The values the spec templates take, by placeholder name: JSON strings
    /// for JSON, YAML scalars (`_yaml`) for YAML, and raw text.
    fn values(&self) -> Vec<(&'static str, String)> {
        let (read_only, destructive) = self.safety.mcp_hints();
        let (package, function) = self.id.split_once('-').unwrap_or((self.id, self.id));
        vec![
            ("schema", json_string(self.schema_ref)),
            ("schema_ref", self.schema_ref.to_owned()),
            ("id", json_string(self.id)),
            ("id_raw", self.id.to_owned()),
            ("title", json_string(&self.title)),
            ("description", json_string(self.description)),
            ("description_yaml", yaml_scalar(self.description)),
            (
                "category",
                json_string(self.category.as_deref().unwrap_or("project")),
            ),
            (
                "category_member",
                self.category
                    .as_ref()
                    .map(|c| format!("\"category\": {}, ", json_string(c)))
                    .unwrap_or_default(),
            ),
            (
                "category_yaml",
                yaml_scalar(self.category.as_deref().unwrap_or("general")),
            ),
            ("safety", self.safety.to_string()),
            ("read_only", read_only.to_string()),
            ("destructive", destructive.to_string()),
            ("tier", json_string(&self.tier)),
            ("param", self.param.to_owned()),
            ("param_doc", self.param_doc.to_owned()),
            ("param_doc_yaml", yaml_scalar(self.param_doc)),
            ("result", self.result.to_owned()),
            ("result_doc", self.result_doc.to_owned()),
            ("result_doc_yaml", yaml_scalar(self.result_doc)),
            ("input", self.input.to_owned()),
            ("output", self.output.to_owned()),
            ("example", self.example.clone()),
            ("package", package.to_owned()),
            ("function", function.to_owned()),
        ]
    }

    /// `template` rendered with the values (each already in the form its
    /// place takes, so nothing is escaped). A failure is toolgen's bug, and
    /// its message then fails the check every draft goes through.
    fn fill(&self, template: &str) -> String {
        fill(template, self.values().into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        assert_eq!(set_name(Path::new("/x/My Tools-2")), "my_tools_2");
        assert_eq!(set_name(Path::new("/x/2d")), "tools_2d");
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a/.toolgen")),
            "../../.toolgen"
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a/.toolgen")),
            ".toolgen"
        );
        assert!(checked_relative("../x").is_err());
        assert!(checked_relative("inst/mcp/tools").is_ok());
    }
}
