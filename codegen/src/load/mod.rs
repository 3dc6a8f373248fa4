//! Finding, reading and parsing spec files, and grouping them into tool sets.
//!
//! `load` never stops at the first problem: every file is read and checked, and
//! all diagnostics are returned together with the tools that could be read.

mod files;
mod options;

mod specs;
use self::specs::{
    ParsedSpec, ReadSpec, SetKey, duplicate_tool_set, filtered_out, loose_tool_set, no_spec_files,
    read_parsed, set_keys, set_sizes, templates_dir,
};

use self::files::{
    FileRead, FindOwner, Manifests, Owned, Walk, add_source, io_error, is_yaml_path, parse_source,
    read_spec_files, read_text,
};
pub use self::options::{DEFAULT_MAX_FILE_SIZE, LoadOptions, Overlay, group_filters};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::cache::keys::Keys;
use crate::cache::keys::PieceCache;
use crate::diag::{Diagnostic, Diagnostics, LintLevel, Rule, Severity, configurable_rule, rule};
use crate::formats::{self, fields::Cx};
use crate::ir::{Project, ToolSet};
use crate::manifest::{self};
use crate::refs;
use crate::source::{FileId, Loc, SourceDb, Span, display_path};
use crate::validate;

/// The result of loading: the files read, the IR, and every problem found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub db: SourceDb,
    pub project: Project,
    pub diagnostics: Diagnostics,
    /// Number of spec files (not manifests) that were found.
    pub spec_files: usize,
}

/// Loads and validates the spec files at `paths` (files or directories).
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Loaded {
    load_cached(paths, options, None).0
}

/// [`load`], skipping the checks of tools that `cache` knows to be clean;
/// with a cache, also the project's keys (which the emitters' cached
/// pieces use too).
pub fn load_cached(
    paths: &[PathBuf],
    options: &LoadOptions,
    cache: Option<&dyn PieceCache>,
) -> (Loaded, Option<Keys>) {
    Discovered::new(paths, options).load_cached(cache)
}

/// The first phases of a load (discovery, each spec's manifest) done once:
/// what [`inputs`] lists, and then loaded on ([`Discovered::load_cached`]),
/// for a caller that needs both (a cached run lists the inputs to compare
/// them with the last run's, and loads only when they differ).
pub struct Discovered<'o> {
    loader: Loader<'o>,
    found: Found,
    owners: Vec<Owned>,
}

impl<'o> Discovered<'o> {
    pub fn new(paths: &[PathBuf], options: &'o LoadOptions) -> Discovered<'o> {
        let mut loader = Loader::new(options);
        let found = loader.discover(paths);
        let owners = loader.owners(&found);
        Discovered {
            loader,
            found,
            owners,
        }
    }

    /// What the load reads: see [`inputs`].
    pub fn inputs(&self) -> Inputs {
        let found = &self.found;
        let mut files: Vec<PathBuf> = (found.specs.iter())
            .chain(&found.schema_docs)
            .chain(&found.manifests)
            .chain(self.owners.iter().filter_map(|(_, m)| m.as_ref()))
            .cloned()
            .collect();
        // By the paths' bytes: any fixed order does (the run stamp compares
        // two lists made here), and `Path`'s own compares component by
        // component, which took milliseconds for a thousand specs.
        files.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        files.dedup_by(|a, b| a.as_os_str() == b.as_os_str());
        let mut template_dirs: Vec<PathBuf> = (self.loader.manifests.parsed.iter())
            .filter_map(|(path, parsed)| {
                let (_, root) = parsed.as_ref()?;
                let dir = path.parent().unwrap_or(Path::new("."));
                manifest::templates_path(root).map(|t| dir.join(t))
            })
            .collect();
        template_dirs.sort();
        Inputs {
            files,
            template_dirs,
        }
    }

    /// [`load_cached`] on from here: every spec read and parsed; with a
    /// cache, the tools' keys made and clean validation verdicts kept.
    pub fn load_cached(self, cache: Option<&dyn PieceCache>) -> (Loaded, Option<Keys>) {
        let Discovered {
            mut loader,
            found,
            owners,
        } = self;
        let options = loader.options;
        let store = loader.schema_store(&found);
        let mut sets = loader.tool_sets(&found, &owners);
        loader.read_specs(owners, &store, &mut sets);
        loader.loaded.project = loader.assemble(sets);
        if !options.clients.is_empty() {
            for set in &mut loader.loaded.project.tool_sets {
                set.clients.clone_from(&options.clients);
            }
        }
        let Loader {
            mut loaded, diags, ..
        } = loader;
        for d in diags {
            loaded.diagnostics.push(d);
        }
        let keys = cache.map(|_| Keys::of(&loaded.project));
        validate::validate(
            &loaded.project,
            cache.zip(keys.as_ref()),
            &mut loaded.diagnostics,
        );
        crate::clients::check(&loaded.project, &mut loaded.diagnostics);
        apply_lints(&mut loaded, &options.lints);
        loaded.diagnostics.sort(&loaded.db);
        (loaded, keys)
    }
}

/// What [`load`] would read for `paths`, found the way it finds it
/// (directory walks and manifests only: no spec is parsed).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Specs, schema documents, manifests (each spec's owner too), sorted
    /// by their bytes.
    pub files: Vec<PathBuf>,
    /// The template directories the manifests name.
    pub template_dirs: Vec<PathBuf>,
}

/// The files [`load`] would read for `paths`. The generation cache compares
/// them (and their contents) with the last run's to know that nothing
/// changed; `toolgen watch` looks at them for changes.
pub fn inputs(paths: &[PathBuf], options: &LoadOptions) -> Inputs {
    Discovered::new(paths, options).inputs()
}

/// One run of [`load`]: what was read so far and what was said about it.
struct Loader<'o> {
    options: &'o LoadOptions,
    loaded: Loaded,
    diags: Vec<Diagnostic>,
    manifests: Manifests,
}

/// What discovery found.
struct Found {
    /// The paths searched (the inputs, or the `--manifest`'s spec folders).
    roots: Vec<PathBuf>,
    specs: Vec<PathBuf>,
    /// `*.schema.json` documents, for `$ref`s; never specs.
    schema_docs: Vec<PathBuf>,
    /// Manifests met on the way (and `--manifest`).
    manifests: Vec<PathBuf>,
    /// `--manifest`, as an absolute path.
    explicit_manifest: Option<PathBuf>,
}

/// A tool set being filled, whether it has a manifest, and how many spec
/// files belong to it.
type SetEntry = (ToolSet, bool, usize);

impl<'o> Loader<'o> {
    fn new(options: &'o LoadOptions) -> Loader<'o> {
        Loader {
            options,
            loaded: Loaded::default(),
            diags: Vec::new(),
            manifests: Manifests::default(),
        }
    }

    /// Phase 1: the files below the inputs. A directory with a manifest that
    /// names its `specs` folders contributes only those.
    fn discover(&mut self, paths: &[PathBuf]) -> Found {
        let options = self.options;
        let mut specs: Vec<PathBuf> = Vec::new();
        let mut manifests: Vec<PathBuf> = Vec::new();
        let explicit_manifest = options
            .manifest
            .as_ref()
            .map(|m| std::path::absolute(m).unwrap_or_else(|_| m.clone()));
        let mut roots: Vec<PathBuf> = paths.to_vec();
        if let Some(m) = &explicit_manifest {
            let db = &mut self.loaded.db;
            if self
                .manifests
                .get(db, m, options, &mut self.diags)
                .is_some()
            {
                manifests.push(m.clone());
                if roots.is_empty() {
                    roots = self
                        .manifests
                        .spec_dirs(db, m, options, &mut self.diags)
                        .unwrap_or_else(|| {
                            vec![m.parent().unwrap_or(Path::new(".")).to_path_buf()]
                        });
                }
            } else if !self.diags.iter().any(|d| d.severity == Severity::Error) {
                self.diags.push(io_error(
                    m,
                    format!("`{}` holds no manifest", display_path(m)),
                ));
            }
        }
        let mut walk = Walk {
            db: &mut self.loaded.db,
            cache: &mut self.manifests,
            options,
            specs: &mut specs,
            manifests: &mut manifests,
            diags: &mut self.diags,
        };
        for path in &roots {
            walk.discover(path, true);
        }
        specs.sort();
        specs.dedup();
        let (schema_docs, specs): (Vec<PathBuf>, Vec<PathBuf>) =
            specs.into_iter().partition(|p| refs::is_schema_doc(p));
        self.loaded.spec_files = specs.len();
        if specs.is_empty()
            && !self
                .diags
                .iter()
                .any(|d| std::ptr::eq(d.rule, &rule::IO_ERROR))
        {
            self.diags.push(no_spec_files(&roots));
        }
        Found {
            roots,
            specs,
            schema_docs,
            manifests,
            explicit_manifest,
        }
    }

    /// Phase 2: the schema documents, for `$ref`s of MCP tools.
    fn schema_store(&mut self, found: &Found) -> refs::SchemaStore {
        let mut store = refs::SchemaStore::new(&found.roots);
        for doc in &found.schema_docs {
            if let Some(text) = read_text(&mut self.loaded.db, doc, self.options, &mut self.diags) {
                store.add_file(&mut self.loaded.db, doc, text, &mut self.diags);
            }
        }
        store
    }

    /// Phase 3: each spec's manifest (`--manifest`, or the nearest above it
    /// whose `specs` cover it).
    fn owners(&mut self, found: &Found) -> Vec<Owned> {
        let mut owner_cache: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
        found
            .specs
            .iter()
            .map(|spec| {
                let owner = match &found.explicit_manifest {
                    Some(m) => Some(m.clone()),
                    None => {
                        let dir = spec.parent().map(Path::to_path_buf).unwrap_or_default();
                        FindOwner {
                            db: &mut self.loaded.db,
                            cache: &mut self.manifests,
                            options: self.options,
                            diags: &mut self.diags,
                            owners: &mut owner_cache,
                        }
                        .manifest_of(spec, &dir)
                    }
                };
                (spec.clone(), owner)
            })
            .collect()
    }

    /// Phase 4: every manifest met or governing a spec, read into a tool-set shell.
    fn tool_sets(&mut self, found: &Found, owners: &[Owned]) -> BTreeMap<SetKey, SetEntry> {
        let mut manifests: Vec<&PathBuf> = owners
            .iter()
            .filter_map(|(_, m)| m.as_ref())
            .chain(&found.manifests)
            .collect();
        manifests.sort();
        manifests.dedup();
        let mut sets = BTreeMap::new();
        for m in manifests {
            let db = &mut self.loaded.db;
            let Some((file, root)) = self
                .manifests
                .get(db, m, self.options, &mut self.diags)
                .cloned()
            else {
                continue;
            };
            let mut cx = Cx {
                file,
                diags: &mut self.diags,
            };
            if let Some(mut set) = manifest::read(&mut cx, &root) {
                templates_dir(&mut cx, &mut set, m);
                sets.insert(SetKey::Manifest(m.clone()), (set, true, 0));
            }
        }
        sets
    }

    /// Phase 5: the spec files, read and parsed one after another (file ids
    /// follow the specs' order), then each turned into a tool on every core
    /// (its format found, read, bundled), then filtered by `--groups` and
    /// added to its tool set, in the specs' order.
    fn read_specs(
        &mut self,
        owners: Vec<Owned>,
        store: &refs::SchemaStore,
        sets: &mut BTreeMap<SetKey, SetEntry>,
    ) {
        let options = self.options;
        let total = owners.len();
        // Read on every core, added to the source database in order.
        let files = read_spec_files(&owners, options);
        let mut read: Vec<ReadSpec> = Vec::new();
        for (done, ((spec, owner), file)) in owners.into_iter().zip(files).enumerate() {
            if done % 64 == 0 {
                options.progress.report("reading specs", done, total);
            }
            let owner_set = owner
                .as_ref()
                .and_then(|o| sets.get_mut(&SetKey::Manifest(o.clone())));
            let manifest_format = owner_set.map(|(s, _, files)| {
                *files += 1;
                s.format
            });
            let is_yaml = is_yaml_path(&spec);
            let added = self.add_spec(&spec, file);
            if let Some(file) = added {
                read.push(ReadSpec {
                    spec,
                    owner,
                    manifest_format,
                    file,
                    is_yaml,
                });
            }
        }
        // Parsed and turned into tools on every core, each syntax tree
        // dropped as soon as its tool is made (they are most of the memory).
        let db = &self.loaded.db;
        let tools = crate::par::map(read.len(), |i| {
            let r = &read[i];
            let mut parse_diags = Vec::new();
            let root = parse_source(db, r.file, &r.spec, r.is_yaml, &mut parse_diags);
            let (format, tool, diags) = match root {
                Some(root) => read_parsed(&ParsedSpec { read: r, root }, options, store),
                None => (None, None, Vec::new()),
            };
            (parse_diags, format, tool, diags)
        });
        let keys = set_keys(&read, &tools, options);
        let sizes = set_sizes(&keys, &tools);
        for (key, (parse_diags, format, tool, diags)) in keys.into_iter().zip(tools) {
            self.diags.extend(parse_diags);
            if filtered_out(options, tool.as_ref()) {
                // Filtered out by --groups: neither the tool nor what was said about it.
                continue;
            }
            self.diags.extend(diags);
            let (Some(format), Some(key)) = (format, key) else {
                continue;
            };
            let entry = sets
                .entry(key.clone())
                .or_insert_with(|| (loose_tool_set(&key, format), false, 0));
            if entry.0.tools.is_empty() {
                entry.0.tools.reserve(sizes.get(&key).copied().unwrap_or(0));
            }
            entry.0.tools.extend(tool);
        }
        options.progress.report("reading specs", total, total);
    }

    /// A spec file as [`read_spec_files`] read it, added to the source
    /// database; `None` when it could not be read or is blank (reported).
    fn add_spec(&mut self, spec: &Path, file: FileRead) -> Option<FileId> {
        match add_source(
            &mut self.loaded.db,
            spec,
            file,
            self.options,
            &mut self.diags,
        ) {
            Some((file, false)) => Some(file),
            _ => None,
        }
    }

    /// Phase 6: the project: tools by id (identical repeats kept once),
    /// tool sets by name (two of one name refused).
    fn assemble(&mut self, sets: BTreeMap<SetKey, SetEntry>) -> Project {
        let mut tool_sets: Vec<ToolSet> = Vec::new();
        for (_, (mut set, from_manifest, files)) in sets {
            set.tools = self.distinct_tools(std::mem::take(&mut set.tools));
            self.bind_r_functions(&mut set);
            if set.model_description == crate::ir::ModelDescription::Composed {
                for tool in &mut set.tools {
                    tool.model_description = Some(formats::composed_description(tool));
                }
            }
            if from_manifest && files == 0 {
                if let Some(loc) = set.manifest {
                    self.diags.push(
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
                self.diags.push(duplicate_tool_set(&set, other));
                continue;
            }
            tool_sets.push(set);
        }
        tool_sets.sort_by(|a, b| a.name.cmp(&b.name));
        Project { tool_sets }
    }

    /// Applies the manifest's `r` to the tools: `r.package` to every tool,
    /// then `r.functions` by id (a tool id the set does not have is an error).
    fn bind_r_functions(&mut self, set: &mut ToolSet) {
        if let Some(package) = &set.r.package {
            for tool in &mut set.tools {
                let id = &tool.id.value;
                let function = id.split_once('-').map_or(id.as_str(), |(_, f)| f);
                tool.r_function = crate::ir::is_r_name(function).then(|| crate::ir::RFunction {
                    package: package.value.clone(),
                    function: function.to_owned(),
                });
            }
        }
        for (id, function) in &set.r.functions {
            match set.tools.iter_mut().find(|t| t.id.value == id.value) {
                Some(tool) => tool.r_function = Some(function.value.clone()),
                None => {
                    let ids: Vec<&str> = set.tools.iter().map(|t| t.id.value.as_str()).collect();
                    self.diags.push(
                        Diagnostic::at(
                            &rule::INVALID_VALUE,
                            id.loc,
                            format!(
                                "`r.functions` names tool `{}`, which tool set `{}` does not have",
                                id.value, set.name
                            ),
                        )
                        .label("no such tool")
                        .help(crate::text::suggest(&id.value, &ids))
                        .maybe_fix_word(crate::text::did_you_mean(&id.value, ids.iter().copied())),
                    );
                }
            }
        }
    }

    /// Tools sorted by id; the same tool defined identically twice is kept once, with a note.
    fn distinct_tools(&mut self, mut tools: Vec<crate::ir::Tool>) -> Vec<crate::ir::Tool> {
        // In place: tools (a kilobyte each) come in order of their files,
        // most often already sorted by id, and rarely repeated.
        let order = |a: &crate::ir::Tool, b: &crate::ir::Tool| {
            a.id.value.cmp(&b.id.value).then(a.loc.cmp(&b.loc))
        };
        if !tools.is_sorted_by(|a, b| order(a, b).is_le()) {
            tools.sort_by(order);
        }
        let diags = &mut self.diags;
        // `dedup_by` gives each tool with the last one kept.
        tools.dedup_by(|tool, prev| {
            let same = prev.same_content(tool);
            if same {
                diags.push(
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
                );
            }
            same
        });
        tools
    }
}

/// Applies rule levels: the command line's (`options.lints`) everywhere, over
/// each tool set's manifest `lints` in its own files (its specs and its
/// manifest). An unknown or unconfigurable rule on the command line is an error.
/// Errors are never lowered, but for breaking-change rules (see
/// `Rule::is_configurable`).
pub fn apply_lints(loaded: &mut Loaded, cli: &[(String, LintLevel)]) {
    let mut given: Vec<(&'static Rule, LintLevel)> = Vec::new();
    let mut problems = Vec::new();
    for (key, level) in cli {
        match configurable_rule(key, *level) {
            Ok(rule) => given.push((rule, *level)),
            Err(e) => problems.push(Diagnostic::new(&rule::INVALID_VALUE, None, e)),
        }
    }
    // File -> the manifest lints of the tool set it belongs to.
    let mut per_file: HashMap<FileId, &[(&'static Rule, LintLevel, Loc)]> = HashMap::new();
    for set in &loaded.project.tool_sets {
        if set.lints.is_empty() {
            continue;
        }
        for tool in &set.tools {
            per_file.insert(tool.loc.file, &set.lints);
        }
        if let Some(m) = set.manifest {
            per_file.insert(m.file, &set.lints);
        }
    }
    if given.is_empty() && per_file.is_empty() && problems.is_empty() {
        return;
    }
    let level_of = |d: &Diagnostic| -> Option<LintLevel> {
        // The last word wins: the command line over the manifest.
        if let Some((_, l)) = given.iter().rev().find(|(r, _)| std::ptr::eq(*r, d.rule)) {
            return Some(*l);
        }
        let lints = per_file.get(&d.loc?.file)?;
        lints
            .iter()
            .find(|(r, _, _)| std::ptr::eq(*r, d.rule))
            .map(|(_, l, _)| *l)
    };
    let mut kept = Diagnostics::new();
    for mut d in std::mem::take(&mut loaded.diagnostics).into_vec() {
        match level_of(&d) {
            // Errors are never lowered (see `Rule::is_configurable`).
            _ if d.severity == Severity::Error && !d.rule.is_breaking() => {}
            Some(LintLevel::Allow) => continue,
            Some(LintLevel::Warn) => d.severity = Severity::Warning,
            Some(LintLevel::Deny) => d.severity = Severity::Error,
            None => {}
        }
        kept.push(d);
    }
    for p in problems {
        kept.push(p);
    }
    loaded.diagnostics = kept;
}

/// For unit tests: `specs` (MCP tool JSON, each written as `tool_<i>.json`)
/// loaded from a fresh temporary directory (`tag` names it, with a count:
/// tests running side by side may load from one helper), which is removed.
#[cfg(test)]
pub(crate) fn load_json_specs(tag: &str, specs: &[serde_json::Value]) -> Loaded {
    static LOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("toolgen-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    for (i, spec) in specs.iter().enumerate() {
        let text = serde_json::to_string_pretty(spec).unwrap_or_default();
        std::fs::write(dir.join(format!("tool_{i}.json")), text).unwrap_or_else(|e| panic!("{e}"));
    }
    let loaded = load(std::slice::from_ref(&dir), &LoadOptions::default());
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

/// For unit tests: the one tool set of `specs` (see [`load_json_specs`]),
/// which must load without an error.
#[cfg(test)]
pub(crate) fn json_tool_set(tag: &str, specs: &[serde_json::Value]) -> crate::ir::ToolSet {
    let loaded = load_json_specs(tag, specs);
    assert_eq!(loaded.diagnostics.count(crate::diag::Severity::Error), 0);
    loaded
        .project
        .tool_sets
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no tool set"))
}

#[cfg(test)]
mod tests {
    use super::files::{FileRead, read_file, settled};

    /// A stamp vouches for a file only once the file has been left alone for
    /// a while: one changed just now (or with no time) is read again.
    #[test]
    fn only_a_settled_file_is_vouched_for_by_its_stamp() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let at = |modified| crate::source::FileStamp {
            len: 1,
            modified,
            inode: 1,
        };
        let second = 1_000_000_000;
        assert!(!settled(&at(now)));
        assert!(!settled(&at(now + 10 * second)), "in the future");
        assert!(!settled(&at(now - second)));
        assert!(settled(&at(now - 10 * second)));
        assert!(!settled(&at(-1)), "no time");
        // Read through `read_file`: a file written just now has no stamp.
        let dir = std::env::temp_dir().join(format!("toolgen-settled-{}", std::process::id()));
        let file = dir.join("a.json");
        let made = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, "{}"));
        assert!(made.is_ok(), "{made:?}");
        let options = super::LoadOptions {
            max_file_size: 100,
            ..super::LoadOptions::default()
        };
        assert!(matches!(read_file(&file, &options), FileRead::Text(t, None) if t == "{}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
