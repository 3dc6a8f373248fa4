//! One spec read into a tool: its format found, its tool read and bundled,
//! and the tool set it belongs to.

use super::options::LoadOptions;
use crate::diag::{Diagnostic, rule};
use crate::formats::{self, editormcp, fields::Cx, mcp, rave};
use crate::ir::{Format, ToolSet};
use crate::manifest::{self};
use crate::refs;
use crate::source::{FileId, Loc, Span, display_path};
use crate::syntax::Node;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a tool set is keyed by while files are grouped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum SetKey {
    Manifest(PathBuf),
    /// Files with no manifest, grouped by format (and RAVE tools by the
    /// package their names start with).
    Loose(Format, Option<String>),
}

/// The package a RAVE tool name starts with (`{package}-{function}`:
/// `ieegio-mcp_tool_surface_read` -> `ieegio`), as a tool-set name; `None`
/// when the name has no package part that makes one.
pub(super) fn rave_package(id: &str) -> Option<String> {
    let (package, _) = id.split_once('-')?;
    let name = package.to_ascii_lowercase();
    manifest::is_valid_name(&name).then_some(name)
}

/// The tool set of each spec of `read` (giving `tools`): `None` for one
/// without a format, of a broken manifest, or whose tool `--groups` leaves
/// out.
pub(super) fn set_keys(
    read: &[ReadSpec],
    tools: &[SpecRead],
    options: &LoadOptions,
) -> Vec<Option<SetKey>> {
    (read.iter().zip(tools))
        .map(|(r, (_, format, tool, _))| {
            let format = (*format).filter(|_| !filtered_out(options, tool.as_ref()))?;
            set_key(r, format, tool.as_ref())
        })
        .collect()
}

/// How many tools each set gets (`keys` from [`set_keys`]), counted before
/// they are moved in: a tool is a kilobyte, and a vector of a thousand
/// grown as they come copies them and asks for fresh memory again and again.
pub(super) fn set_sizes(keys: &[Option<SetKey>], tools: &[SpecRead]) -> BTreeMap<SetKey, usize> {
    let mut sizes: BTreeMap<SetKey, usize> = BTreeMap::new();
    for (key, (_, _, tool, _)) in keys.iter().zip(tools) {
        if let (Some(key), Some(_)) = (key, tool) {
            match sizes.get_mut(key) {
                Some(n) => *n += 1,
                None => {
                    sizes.insert(key.clone(), 1);
                }
            }
        }
    }
    sizes
}

/// What reading one spec gives: its parse problems, format, tool, the
/// reader's problems, and the tool's digest as read when it is kept.
pub(super) type SpecRead = (
    Vec<Diagnostic>,
    Option<Format>,
    Option<crate::ir::Tool>,
    Vec<Diagnostic>,
);

/// Whether `--groups` leaves `tool` out.
pub(super) fn filtered_out(options: &LoadOptions, tool: Option<&crate::ir::Tool>) -> bool {
    tool.is_some_and(|t| {
        !options.groups.is_empty() && !options.groups.iter().any(|g| g.is_match(&t.id.value))
    })
}

/// The tool set the spec `r` (of `format`, giving `tool`) belongs to;
/// `None` when its manifest is broken (the file was checked, but belongs
/// to no usable tool set).
pub(super) fn set_key(
    r: &ReadSpec,
    format: Format,
    tool: Option<&crate::ir::Tool>,
) -> Option<SetKey> {
    Some(match (&r.owner, r.manifest_format) {
        (Some(m), Some(_)) => SetKey::Manifest(m.clone()),
        (Some(_), None) => return None,
        (None, _) if format == Format::Rave => {
            SetKey::Loose(format, tool.and_then(|t| rave_package(&t.id.value)))
        }
        (None, _) => SetKey::Loose(format, None),
    })
}

/// A spec file read and parsed, waiting to be turned into a tool.
pub(super) struct ReadSpec {
    pub(super) spec: PathBuf,
    pub(super) owner: Option<PathBuf>,
    /// The format of the spec's tool set (`None`: a loose file, or a broken manifest).
    pub(super) manifest_format: Option<Format>,
    pub(super) file: FileId,
    pub(super) is_yaml: bool,
}

/// A spec read and parsed.
pub(super) struct ParsedSpec<'a> {
    pub(super) read: &'a ReadSpec,
    pub(super) root: Node,
}

/// A parsed spec's format (`None`: unknown, or not its tool set's), its tool
/// (read and, for MCP, bundled), and what was found wrong on the way. Reads
/// only the spec: this runs on every core.
pub(super) fn read_parsed(
    p: &ParsedSpec,
    options: &LoadOptions,
    store: &refs::SchemaStore,
) -> (Option<Format>, Option<crate::ir::Tool>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let Some(format) = format_of(options, p, &mut diags) else {
        return (None, None, diags);
    };
    let mut cx = Cx {
        file: p.read.file,
        diags: &mut diags,
    };
    let mut tool = read_tool(&mut cx, format, &p.root, &p.read.spec);
    if format == Format::Mcp {
        if let Some(t) = &mut tool {
            bundle_tool(store, t, &p.read.spec, &mut diags);
        }
    }
    (Some(format), tool, diags)
}

/// A spec's format: `--format`, else what its content looks like; it must
/// be its tool set's.
pub(super) fn format_of(
    options: &LoadOptions,
    p: &ParsedSpec,
    diags: &mut Vec<Diagnostic>,
) -> Option<Format> {
    let root = &p.root;
    let first_char = Loc::new(
        p.read.file,
        Span::new(root.span.start as usize, root.span.start as usize + 1),
    );
    let found = options
        .format
        .or_else(|| formats::detect(root, p.read.is_yaml));
    match (p.read.manifest_format, found) {
        (Some(declared), Some(found)) if declared != found => {
            diags.push(
                Diagnostic::at(
                    &rule::FORMAT_MISMATCH,
                    first_char,
                    format!("this file looks like a `{found}` spec, but its tool set's format is `{declared}`"),
                )
                .help("move the file to a tool set of its format, or fix its content"),
            );
            None
        }
        (Some(declared), _) => Some(declared),
        (None, Some(found)) => Some(found),
        (None, None) => {
            diags.push(
                Diagnostic::at(&rule::UNKNOWN_FORMAT, first_char, "cannot tell which tool format this file is in")
                    .help("an EditorMCP definition is an object with `id`, `inputs` and `outputs`; pass `--format` to force a format"),
            );
            None
        }
    }
}

pub(super) fn no_spec_files(roots: &[PathBuf]) -> Diagnostic {
    let shown: Vec<String> = roots
        .iter()
        .map(|p| format!("`{}`", display_path(p)))
        .collect();
    Diagnostic::new(
        &rule::NO_SPEC_FILES,
        None,
        format!("no spec files in {}", shown.join(", ")),
    )
    .help("spec files are `*.json`, `*.yaml` and `*.yml` files (not `toolset.yaml`, not `*.schema.json`, not in hidden folders); create a tool set with `toolgen init DIR --format mcp|editormcp|rave`")
}

/// TG0501, at the second tool set and naming the first.
pub(super) fn duplicate_tool_set(set: &ToolSet, other: &ToolSet) -> Diagnostic {
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
    d
}

/// The manifest's `templates`, resolved against its directory; a missing
/// directory is TG0802 at the manifest's value.
pub(super) fn templates_dir(cx: &mut Cx<'_>, set: &mut ToolSet, manifest: &Path) {
    let Some(t) = &mut set.templates else { return };
    let dir = manifest.parent().unwrap_or(Path::new(".")).join(&t.value);
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

/// The tool set of loose files (no manifest): the format's defaults; loose
/// RAVE tools are a tool set named after their package.
pub(super) fn loose_tool_set(key: &SetKey, format: Format) -> ToolSet {
    let mut set = formats::default_tool_set(format);
    if let SetKey::Loose(_, Some(package)) = key {
        set.namespace = crate::ident::pascal(package);
        set.name = package.clone();
    }
    set
}

pub(super) fn read_tool(
    cx: &mut Cx<'_>,
    format: Format,
    root: &Node,
    path: &Path,
) -> Option<crate::ir::Tool> {
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
pub(super) fn bundle_tool(
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
