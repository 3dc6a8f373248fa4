//! Finding, reading and parsing spec files, and grouping them into tool sets.
//!
//! `load` never stops at the first problem: every file is read and checked, and
//! all diagnostics are returned together with the tools that could be read.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Diagnostics, rule};
use crate::formats::{self, editormcp, fields::Cx, mcp, rave};
use crate::ir::{Format, Project, ToolSet};
use crate::manifest::{self, MANIFEST_NAMES};
use crate::refs;
use crate::source::{FileId, Loc, SourceDb, Span, display_path};
use crate::syntax::{self, Node, yaml};
use crate::validate;

use regex::Regex;

/// Spec files larger than this are refused unless the limit is raised.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// How to load spec files.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Read every spec file as this format instead of detecting it.
    pub format: Option<Format>,
    pub max_file_size: u64,
    /// Keep only tools in these groups (see [`group_filters`]); empty keeps all.
    pub groups: Vec<Regex>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            groups: Vec::new(),
        }
    }
}

/// Compiles `--groups` patterns as RAVE's `mcptool_list()` matches them: a tool
/// is in group pattern `G` when its name matches `^[a-zA-Z0-9]+-mcp_tool_(?:G)`.
/// Several patterns combine with OR. Tools whose names do not follow the
/// `{package}-mcp_tool_{group}_{action}` pattern are in no group.
pub fn group_filters(patterns: &[String]) -> Result<Vec<Regex>, String> {
    patterns
        .iter()
        .map(|g| {
            Regex::new(&format!("^[a-zA-Z0-9]+-mcp_tool_(?:{g})"))
                .map_err(|e| format!("invalid group pattern `{g}`: {e}"))
        })
        .collect()
}

/// The result of loading: the files read, the IR, and every problem found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub db: SourceDb,
    pub project: Project,
    pub diagnostics: Diagnostics,
    /// Number of spec files (not manifests) that were found.
    pub spec_files: usize,
}

/// What a tool set is keyed by while files are grouped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SetKey {
    Manifest(PathBuf),
    /// Files with no manifest, grouped by format.
    Loose(Format),
}

/// Loads and validates the spec files at `paths` (files or directories).
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Loaded {
    let mut loaded = Loaded::default();
    let mut diags = Vec::new();

    // 1. Discover files.
    let mut specs: Vec<PathBuf> = Vec::new();
    let mut manifests: Vec<PathBuf> = Vec::new();
    for path in paths {
        discover(path, true, &mut specs, &mut manifests, &mut diags);
    }
    // Manifests above explicitly named files and directories also apply.
    let mut owner_cache: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
    let mut owners: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    specs.sort();
    specs.dedup();
    // `*.schema.json` files are schema documents for `$ref`s, never tool specs.
    let (schema_docs, specs): (Vec<PathBuf>, Vec<PathBuf>) =
        specs.into_iter().partition(|p| refs::is_schema_doc(p));
    let mut store = refs::SchemaStore::new(paths);
    for doc in &schema_docs {
        if let Some(text) = read_text(&mut loaded.db, doc, options, &mut diags) {
            store.add_file(&mut loaded.db, doc, text, &mut diags);
        }
    }
    for spec in &specs {
        let dir = spec.parent().map(Path::to_path_buf).unwrap_or_default();
        let owner = find_manifest(&dir, &mut owner_cache);
        if let Some(m) = &owner {
            manifests.push(m.clone());
        }
        owners.push((spec.clone(), owner));
    }
    manifests.sort();
    manifests.dedup();
    loaded.spec_files = specs.len();

    // 2. Manifests -> tool-set shells.
    // Tool set, whether it has a manifest, and how many spec files belong to it.
    let mut sets: BTreeMap<SetKey, (ToolSet, bool, usize)> = BTreeMap::new();
    for m in &manifests {
        let Some((file, root)) = read_and_parse(&mut loaded.db, m, true, options, &mut diags)
        else {
            continue;
        };
        let Some(root) = root else { continue };
        let mut cx = Cx {
            file,
            diags: &mut diags,
        };
        if let Some(mut set) = manifest::read(&mut cx, &root) {
            if let Some(t) = &mut set.templates {
                let dir = m.parent().unwrap_or(Path::new(".")).join(&t.value);
                if !dir.is_dir() {
                    cx.report(
                        Diagnostic::at(
                            &rule::TEMPLATE,
                            t.loc,
                            format!("templates directory `{}` does not exist", dir.display()),
                        )
                        .label("not a directory")
                        .help("give a directory relative to this manifest that holds template overrides (e.g. `docs/tool.md.jinja`), or remove `templates`"),
                    );
                }
                t.value = dir;
            }
            sets.insert(SetKey::Manifest(m.clone()), (set, true, 0));
        }
    }

    // 3. Spec files -> tools.
    for (spec, owner) in owners {
        let manifest_format = owner
            .as_ref()
            .and_then(|o| sets.get(&SetKey::Manifest(o.clone())))
            .map(|(s, _, _)| s.format);
        if let Some((_, _, files)) = owner
            .as_ref()
            .and_then(|o| sets.get_mut(&SetKey::Manifest(o.clone())))
        {
            *files += 1;
        }
        let is_yaml = is_yaml_path(&spec);
        let Some((file, root)) =
            read_and_parse(&mut loaded.db, &spec, is_yaml, options, &mut diags)
        else {
            continue;
        };
        let Some(root) = root else { continue };
        let first_char = Loc::new(
            file,
            Span::new(root.span.start as usize, root.span.start as usize + 1),
        );
        let found = options.format.or_else(|| formats::detect(&root, is_yaml));
        let format = match (manifest_format, found) {
            (Some(declared), Some(found)) if declared != found => {
                diags.push(
                    Diagnostic::at(
                        &rule::FORMAT_MISMATCH,
                        first_char,
                        format!("this file looks like a `{found}` spec, but its tool set's format is `{declared}`"),
                    )
                    .help("move the file to a tool set of its format, or fix its content"),
                );
                continue;
            }
            (Some(declared), _) => declared,
            (None, Some(found)) => found,
            (None, None) => {
                diags.push(
                    Diagnostic::at(&rule::UNKNOWN_FORMAT, first_char, "cannot tell which tool format this file is in")
                        .help("an EditorMCP definition is an object with `id`, `inputs` and `outputs`; pass `--format` to force a format"),
                );
                continue;
            }
        };
        let before = diags.len();
        let mut cx = Cx {
            file,
            diags: &mut diags,
        };
        let mut tool = read_tool(&mut cx, format, &root, &spec);
        if format == Format::Mcp {
            if let Some(t) = &mut tool {
                bundle_tool(&store, t, &spec, &mut diags);
            }
        }
        if let Some(t) = &tool {
            if !options.groups.is_empty() && !options.groups.iter().any(|g| g.is_match(&t.id.value))
            {
                // Filtered out by --groups: neither the tool nor what was said about it.
                diags.truncate(before);
                continue;
            }
        }
        let key = match (&owner, manifest_format) {
            (Some(m), Some(_)) => SetKey::Manifest(m.clone()),
            // The manifest is broken: the file was checked, but belongs to no usable tool set.
            (Some(_), None) => continue,
            (None, _) => SetKey::Loose(format),
        };
        let entry = sets
            .entry(key)
            .or_insert_with(|| (formats::default_tool_set(format), false, 0));
        entry.0.tools.extend(tool);
    }

    // 4. Assemble the project: tools by id, tool sets by name.
    let mut tool_sets: Vec<ToolSet> = Vec::new();
    for (_, (mut set, from_manifest, files)) in sets {
        set.tools
            .sort_by(|a, b| a.id.value.cmp(&b.id.value).then(a.loc.cmp(&b.loc)));
        // The same tool defined identically twice: keep one, say so.
        let mut kept: Vec<crate::ir::Tool> = Vec::with_capacity(set.tools.len());
        for tool in std::mem::take(&mut set.tools) {
            match kept.last() {
                Some(prev) if prev.same_content(&tool) => diags.push(
                    Diagnostic::at(
                        &rule::IDENTICAL_DUPLICATE,
                        tool.id.loc,
                        format!(
                            "tool `{}` is defined again, identically; one definition is used",
                            tool.id.value
                        ),
                    )
                    .label("same tool")
                    .secondary(prev.id.loc, "first defined here"),
                ),
                _ => kept.push(tool),
            }
        }
        set.tools = kept;
        if from_manifest && files == 0 {
            if let Some(loc) = set.manifest {
                diags.push(
                    Diagnostic::at(
                        &rule::EMPTY_TOOLSET,
                        Loc::new(loc.file, Span::at(0)),
                        format!("tool set `{}` contains no tools", set.name),
                    )
                    .help("add spec files next to the manifest"),
                );
            }
        }
        if let Some(other) = tool_sets.iter().find(|s| s.name == set.name) {
            let here = set.manifest.or(set.tools.first().map(|t| t.loc));
            let there = other.manifest.or(other.tools.first().map(|t| t.loc));
            let mut d = Diagnostic::new(
                &rule::DUPLICATE_TOOLSET,
                here.map(|l| Loc::new(l.file, Span::at(0))),
                format!("two tool sets are named `{}`", set.name),
            )
            .help("give each toolset.yaml a distinct `name`");
            if let Some(t) = there {
                d = d.secondary(Loc::new(t.file, Span::at(0)), "the other tool set");
            }
            diags.push(d);
            continue;
        }
        tool_sets.push(set);
    }
    tool_sets.sort_by(|a, b| a.name.cmp(&b.name));
    loaded.project = Project { tool_sets };

    for d in diags {
        loaded.diagnostics.push(d);
    }
    validate::validate(&loaded.project, &mut loaded.diagnostics);
    loaded.diagnostics.sort(&loaded.db);
    loaded
}

fn read_tool(cx: &mut Cx<'_>, format: Format, root: &Node, path: &Path) -> Option<crate::ir::Tool> {
    match format {
        Format::EditorMcp => editormcp::read(cx, root),
        Format::Rave => {
            let stem = path
                .file_name()
                .and_then(|n| n.to_str())
                .map(|n| n.trim_end_matches(".yaml").trim_end_matches(".yml"));
            rave::read(cx, root, stem)
        }
        Format::Mcp => mcp::read(cx, root),
    }
}

/// Bundles an MCP tool's schemas (see [`refs`]).
fn bundle_tool(
    store: &refs::SchemaStore,
    tool: &mut crate::ir::Tool,
    spec: &Path,
    diags: &mut Vec<Diagnostic>,
) {
    let base = refs::file_uri(spec);
    let shown = display_path(spec);
    for (schema, key) in [
        (&mut tool.input, "inputSchema"),
        (&mut tool.output, "outputSchema"),
    ] {
        if schema.value.is_null() {
            continue;
        }
        let (bundled, problems) =
            refs::bundle(store, schema, &base, &format!("{shown} ({key})"), tool.loc);
        *schema = bundled;
        diags.extend(problems);
    }
}

fn is_yaml_path(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

fn is_spec_path(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("json" | "yaml" | "yml")
    )
}

fn is_manifest_path(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| MANIFEST_NAMES.contains(&n))
}

fn io_error(path: &Path, message: String) -> Diagnostic {
    Diagnostic::new(&rule::IO_ERROR, None, message).path(display_path(path))
}

fn discover(
    path: &Path,
    explicit: bool,
    specs: &mut Vec<PathBuf>,
    manifests: &mut Vec<PathBuf>,
    diags: &mut Vec<Diagnostic>,
) {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            diags.push(io_error(
                path,
                format!("cannot read `{}`: {e}", display_path(path)),
            ));
            return;
        }
    };
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if meta.is_file() {
        if is_manifest_path(&path) {
            manifests.push(path);
        } else if explicit || is_spec_path(&path) {
            specs.push(path);
        }
        return;
    }
    if !meta.is_dir() {
        diags.push(io_error(
            &path,
            format!(
                "`{}` is neither a file nor a directory",
                display_path(&path)
            ),
        ));
        return;
    }
    match crate::source::sorted_children(&path) {
        Ok(children) => {
            for child in children {
                discover(&child, false, specs, manifests, diags);
            }
        }
        Err(e) => diags.push(io_error(
            &path,
            format!("cannot list `{}`: {e}", display_path(&path)),
        )),
    }
}

/// The manifest that governs files in `dir`: the nearest `toolset.yaml` in it or above it.
fn find_manifest(dir: &Path, cache: &mut HashMap<PathBuf, Option<PathBuf>>) -> Option<PathBuf> {
    if let Some(hit) = cache.get(dir) {
        return hit.clone();
    }
    let here = MANIFEST_NAMES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file());
    let found = match here {
        Some(p) => Some(p),
        None => dir.parent().and_then(|parent| find_manifest(parent, cache)),
    };
    cache.insert(dir.to_path_buf(), found.clone());
    found
}

/// Reads a file with the size and encoding checks. A non-UTF-8 file is added
/// to `db` (up to the bad byte) so that the error can be located.
fn read_text(
    db: &mut SourceDb,
    path: &Path,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let shown = display_path(path);
    match std::fs::metadata(path) {
        Ok(m) if m.len() > options.max_file_size => {
            diags.push(
                Diagnostic::new(
                    &rule::FILE_TOO_LARGE,
                    None,
                    format!("`{shown}` is {} bytes, more than the limit of {} bytes", m.len(), options.max_file_size),
                )
                .path(shown)
                .help("spec files are small; if this really is one, raise the limit with `--max-file-size`"),
            );
            return None;
        }
        Ok(_) => {}
        Err(e) => {
            diags.push(io_error(path, format!("cannot read `{shown}`: {e}")));
            return None;
        }
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            diags.push(io_error(path, format!("cannot read `{shown}`: {e}")));
            return None;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let prefix = String::from_utf8_lossy(&bytes[..valid]).into_owned();
            let bad = bytes.get(valid).copied().unwrap_or(0);
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
            return None;
        }
    };
    Some(text)
}

/// Reads a file with the size and encoding checks, adds it to `db` and parses it.
/// Returns `None` when the file could not be read; `Some((id, None))` when it has no document.
fn read_and_parse(
    db: &mut SourceDb,
    path: &Path,
    yaml_syntax: bool,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, Option<Node>)> {
    let shown = display_path(path);
    let text = read_text(db, path, options, diags)?;
    let blank = text.trim_start_matches('\u{feff}').trim().is_empty();
    let id = db.add(path, text);
    if blank {
        diags.push(
            Diagnostic::at(
                &rule::EMPTY_FILE,
                Loc::new(id, Span::at(0)),
                format!("`{shown}` is empty"),
            )
            .help("write a tool definition into it, or delete it"),
        );
        return Some((id, None));
    }
    let text = &db.get(id).text;
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
    Some((id, parsed.root))
}
