//! Finding, reading and parsing spec files, and grouping them into tool sets.
//!
//! `load` never stops at the first problem: every file is read and checked, and
//! all diagnostics are returned together with the tools that could be read.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Diagnostics, LintLevel, Rule, Severity, configurable_rule, rule};
use crate::digest::PieceCache;
use crate::formats::{self, editormcp, fields::Cx, mcp, rave};
use crate::ir::{Format, Project, ToolSet};
use crate::keys::Keys;
use crate::manifest::{self, MANIFEST_NAMES};
use crate::memo;
use crate::progress::Progress;
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
    /// The manifest every spec belongs to (`--manifest`), wherever it is.
    pub manifest: Option<PathBuf>,
    /// Rule levels for this run (`--allow`, `--warn`, `--deny`), by code or
    /// name; over the manifests' `lints`.
    pub lints: Vec<(String, LintLevel)>,
    /// Directories the walk does not enter (the output directory of the run).
    pub exclude: Vec<PathBuf>,
    pub progress: Progress,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            groups: Vec::new(),
            manifest: None,
            lints: Vec::new(),
            exclude: Vec::new(),
            progress: Progress::default(),
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
    /// What the memo needs of each spec file's text (see
    /// [`memo::TextFacts`]), read or vouched for ([`ReadBefore`]): a run
    /// stamp records it.
    pub texts: HashMap<FileId, memo::TextFacts>,
}

/// A file an earlier run read, as its run stamp recorded it: what the memo
/// needs of its text, and the file's stamp then. A spec whose stamp still
/// holds is not read again ([`Discovered::load_cached`]): the memo finds its
/// tool by these facts (its text is read only if asked for, see
/// [`crate::source::SourceFile`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadBefore {
    pub text: memo::TextFacts,
    pub stamp: Option<crate::source::FileStamp>,
}

/// Files an earlier run read, by path.
///
/// Keyed by the paths' bytes: `Path` compares and orders component by
/// component, which a thousand lookups per run showed in profiles.
pub type ReadBeforeMap = crate::digest::FastMap<std::ffi::OsString, ReadBefore>;

/// Checks every recorded stamp against its file as it is now (each file
/// looked at once, on every core; following symbolic links, as opening it
/// does) and forgets those that no longer hold: afterwards a file with a
/// stamp is one that still had it, which [`Discovered::load_cached`] takes
/// unread.
pub fn check_stamps(before: &mut ReadBeforeMap) {
    let recorded: Vec<(&Path, Option<crate::source::FileStamp>)> = before
        .iter()
        .map(|(path, read)| (Path::new(path), read.stamp))
        .collect();
    // Specs lie by the hundred in a few directories: each is opened once.
    let stamps = crate::source::Stamps::following();
    let held = crate::par::map(recorded.len(), |i| {
        let (path, stamp) = recorded[i];
        stamp.is_none_or(|s| stamps.read(path) == Some(s))
    });
    for (read, held) in before.values_mut().zip(held) {
        if !held {
            read.stamp = None;
        }
    }
}

/// What a tool set is keyed by while files are grouped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SetKey {
    Manifest(PathBuf),
    /// Files with no manifest, grouped by format (and RAVE tools by the
    /// package their names start with).
    Loose(Format, Option<String>),
}

/// Manifests read so far, by path: parsed once, whether the directory walk
/// met them or a spec file's search for its manifest did. `None`: unreadable
/// (reported).
#[derive(Default)]
struct Manifests {
    parsed: HashMap<PathBuf, Option<(FileId, Node)>>,
}

impl Manifests {
    fn get(
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
    fn spec_dirs(
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

/// The package a RAVE tool name starts with (`{package}-{function}`:
/// `ieegio-mcp_tool_surface_read` -> `ieegio`), as a tool-set name; `None`
/// when the name has no package part that makes one.
fn rave_package(id: &str) -> Option<String> {
    let (package, _) = id.split_once('-')?;
    let name = package.to_ascii_lowercase();
    manifest::is_valid_name(&name).then_some(name)
}

/// Loads and validates the spec files at `paths` (files or directories).
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Loaded {
    load_cached(paths, options, None).0
}

/// [`load`], skipping the checks of tools that `cache` knows to be clean;
/// with a cache, also the project's [`Keys`] (which the emitters' cached
/// pieces use too).
pub fn load_cached(
    paths: &[PathBuf],
    options: &LoadOptions,
    cache: Option<&dyn PieceCache>,
) -> (Loaded, Option<Keys>) {
    Discovered::new(paths, options).load_cached(cache, None)
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

    /// [`load_cached`] on from here. A spec `before` lists with a stamp (so
    /// `before` must have been through [`check_stamps`]: the stamp still
    /// held) and text that was not blank is not read: its tool comes from
    /// the cache by the facts recorded (read after all when the cache has
    /// no tool for them).
    pub fn load_cached(
        self,
        cache: Option<&dyn PieceCache>,
        before: Option<&ReadBeforeMap>,
    ) -> (Loaded, Option<Keys>) {
        let Discovered {
            mut loader,
            found,
            owners,
        } = self;
        let options = loader.options;
        let store = loader.schema_store(&found);
        let mut sets = loader.tool_sets(&found, &owners);
        let known = loader.read_specs(owners, &store, &mut sets, cache.map(|c| (c, before)));
        loader.loaded.project = loader.assemble(sets);
        let Loader {
            mut loaded, diags, ..
        } = loader;
        for d in diags {
            loaded.diagnostics.push(d);
        }
        let keys = cache.map(|_| Keys::of(&loaded.project, &known));
        validate::validate(
            &loaded.project,
            cache.zip(keys.as_ref()),
            &mut loaded.diagnostics,
        );
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

/// A spec file and the manifest that governs it (`None`: a loose file).
type Owned = (PathBuf, Option<PathBuf>);

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
        cached: Option<(&dyn PieceCache, Option<&ReadBeforeMap>)>,
    ) -> HashMap<crate::source::Loc, crate::digest::Digest> {
        let options = self.options;
        let total = owners.len();
        let cache = cached.map(|(c, _)| c);
        // Read on every core (unless vouched for), added to the source
        // database in order.
        let files = read_spec_files(&owners, cached.and_then(|(_, b)| b), options.max_file_size);
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
            if let Some((file, facts)) = added {
                self.loaded.texts.insert(file, facts);
                read.push(ReadSpec {
                    spec,
                    owner,
                    manifest_format,
                    file,
                    is_yaml,
                    facts,
                });
            }
        }
        // Parsed and turned into tools on every core, each syntax tree
        // dropped as soon as its tool is made (they are most of the memory).
        let db = &self.loaded.db;
        let tools = crate::par::map(read.len(), |i| {
            let r = &read[i];
            // A clean spec read by an earlier run, byte for byte the same:
            // its tool as that run read it.
            let memo = cache.and_then(|c| {
                let key = memo::key(
                    &r.spec,
                    r.facts,
                    r.manifest_format,
                    options.format,
                    r.is_yaml,
                );
                Some((c, key?))
            });
            if let Some((format, tool, digest)) =
                memo.and_then(|(c, key)| memo::recall(c, key, r.file))
            {
                return (Vec::new(), Some(format), Some(tool), Vec::new(), digest);
            }
            let mut parse_diags = Vec::new();
            // Read only now (vouched for): kept only if still the text recorded.
            let unread = !db.get(r.file).is_read();
            let root = parse_source(db, r.file, &r.spec, r.is_yaml, &mut parse_diags);
            let memo = memo.filter(|_| {
                !unread
                    || crate::digest::Digest::of(db.get(r.file).text().as_bytes()) == r.facts.digest
            });
            let (format, tool, diags) = match root {
                Some(root) => read_parsed(&ParsedSpec { read: r, root }, options, store),
                None => (None, None, Vec::new()),
            };
            let mut digest = None;
            if let (Some((c, key)), Some(format), Some(tool)) = (memo, format, &tool) {
                if parse_diags.is_empty() && diags.is_empty() {
                    digest = Some(memo::keep(c, key, r.file, format, tool));
                }
            }
            (parse_diags, format, tool, diags, digest)
        });
        let keys = set_keys(&read, &tools, options);
        let sizes = set_sizes(&keys, &tools);
        // The digests as read of kept tools (brought along, or just kept), by location.
        let mut known = HashMap::new();
        for (key, (parse_diags, format, tool, diags, digest)) in keys.into_iter().zip(tools) {
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
            if let Some((tool, digest)) = tool.as_ref().zip(digest) {
                known.insert(tool.loc, digest);
            }
            if entry.0.tools.is_empty() {
                entry.0.tools.reserve(sizes.get(&key).copied().unwrap_or(0));
            }
            entry.0.tools.extend(tool);
        }
        options.progress.report("reading specs", total, total);
        known
    }

    /// A spec file read (or vouched for) by [`read_spec_file`], added to the
    /// source database with its text's facts; `None` when it could not be
    /// read or is blank (reported).
    fn add_spec(&mut self, spec: &Path, file: SpecFile) -> Option<(FileId, memo::TextFacts)> {
        let db = &mut self.loaded.db;
        match file {
            SpecFile::Vouched(stamp, facts) => Some((db.add_unread(spec, stamp), facts)),
            SpecFile::Read(file, facts) => {
                match add_source(db, spec, file, self.options, &mut self.diags) {
                    Some((file, false)) => Some((
                        file,
                        facts.unwrap_or_else(|| memo::TextFacts::of(db.get(file).text())),
                    )),
                    _ => None,
                }
            }
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
                        .help(crate::text::suggest(&id.value, &ids)),
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

/// The tool set of each spec of `read` (giving `tools`): `None` for one
/// without a format, of a broken manifest, or whose tool `--groups` leaves
/// out.
fn set_keys(read: &[ReadSpec], tools: &[SpecRead], options: &LoadOptions) -> Vec<Option<SetKey>> {
    (read.iter().zip(tools))
        .map(|(r, (_, format, tool, _, _))| {
            let format = (*format).filter(|_| !filtered_out(options, tool.as_ref()))?;
            set_key(r, format, tool.as_ref())
        })
        .collect()
}

/// How many tools each set gets (`keys` from [`set_keys`]), counted before
/// they are moved in: a tool is a kilobyte, and a vector of a thousand
/// grown as they come copies them and asks for fresh memory again and again.
fn set_sizes(keys: &[Option<SetKey>], tools: &[SpecRead]) -> BTreeMap<SetKey, usize> {
    let mut sizes: BTreeMap<SetKey, usize> = BTreeMap::new();
    for (key, (_, _, tool, _, _)) in keys.iter().zip(tools) {
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
type SpecRead = (
    Vec<Diagnostic>,
    Option<Format>,
    Option<crate::ir::Tool>,
    Vec<Diagnostic>,
    Option<crate::digest::Digest>,
);

/// Whether `--groups` leaves `tool` out.
fn filtered_out(options: &LoadOptions, tool: Option<&crate::ir::Tool>) -> bool {
    tool.is_some_and(|t| {
        !options.groups.is_empty() && !options.groups.iter().any(|g| g.is_match(&t.id.value))
    })
}

/// The tool set the spec `r` (of `format`, giving `tool`) belongs to;
/// `None` when its manifest is broken (the file was checked, but belongs
/// to no usable tool set).
fn set_key(r: &ReadSpec, format: Format, tool: Option<&crate::ir::Tool>) -> Option<SetKey> {
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
struct ReadSpec {
    spec: PathBuf,
    owner: Option<PathBuf>,
    /// The format of the spec's tool set (`None`: a loose file, or a broken manifest).
    manifest_format: Option<Format>,
    file: FileId,
    is_yaml: bool,
    facts: memo::TextFacts,
}

/// A spec read and parsed.
struct ParsedSpec<'a> {
    read: &'a ReadSpec,
    root: Node,
}

/// A parsed spec's format (`None`: unknown, or not its tool set's), its tool
/// (read and, for MCP, bundled), and what was found wrong on the way. Reads
/// only the spec: this runs on every core.
fn read_parsed(
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
fn format_of(options: &LoadOptions, p: &ParsedSpec, diags: &mut Vec<Diagnostic>) -> Option<Format> {
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

fn no_spec_files(roots: &[PathBuf]) -> Diagnostic {
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
fn duplicate_tool_set(set: &ToolSet, other: &ToolSet) -> Diagnostic {
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
fn templates_dir(cx: &mut Cx<'_>, set: &mut ToolSet, manifest: &Path) {
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
fn loose_tool_set(key: &SetKey, format: Format) -> ToolSet {
    let mut set = formats::default_tool_set(format);
    if let SetKey::Loose(_, Some(package)) = key {
        set.namespace = crate::ident::pascal(package);
        set.name = package.clone();
    }
    set
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

/// The directory walk: spec files and manifests below the inputs.
struct Walk<'a> {
    db: &'a mut SourceDb,
    cache: &'a mut Manifests,
    options: &'a LoadOptions,
    specs: &'a mut Vec<PathBuf>,
    manifests: &'a mut Vec<PathBuf>,
    diags: &'a mut Vec<Diagnostic>,
}

impl Walk<'_> {
    fn discover(&mut self, path: &Path, explicit: bool) {
        self.discover_known(path, explicit, None);
    }

    /// [`Walk::discover`] of a path whose type is known already (`kind`:
    /// listed by its directory, not a symbolic link), or is looked up here.
    fn discover_known(&mut self, path: &Path, explicit: bool, kind: Option<std::fs::FileType>) {
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
struct FindOwner<'a> {
    db: &'a mut SourceDb,
    cache: &'a mut Manifests,
    options: &'a LoadOptions,
    diags: &'a mut Vec<Diagnostic>,
    /// Directory -> the nearest manifest in or above it (whatever its `specs`).
    owners: &'a mut HashMap<PathBuf, Option<PathBuf>>,
}

impl FindOwner<'_> {
    fn manifest_of(&mut self, spec: &Path, dir: &Path) -> Option<PathBuf> {
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

    fn nearest(&mut self, dir: &Path) -> Option<PathBuf> {
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
enum FileRead {
    /// The text, and the file's stamp when it was opened.
    Text(String, Option<crate::source::FileStamp>),
    /// Larger than `--max-file-size`: its size.
    TooLarge(u64),
    /// Not read: the error.
    Failed(std::io::Error),
    /// Not UTF-8: the valid prefix, and the first byte that is not.
    NotUtf8(String, u8),
}

/// A spec file as a worker thread leaves it.
enum SpecFile {
    /// Not read: an earlier run read it, and its stamp (given) still holds.
    Vouched(crate::source::FileStamp, memo::TextFacts),
    /// Read (or refused, see [`FileRead`]), with its text's facts when read.
    Read(FileRead, Option<memo::TextFacts>),
}

/// A spec file as a worker thread reads it: not at all when `before`
/// vouches for it ([`vouched`]), else read, with its text's facts.
/// [`read_spec_file`] of every spec, on every core.
fn read_spec_files(
    owners: &[Owned],
    before: Option<&ReadBeforeMap>,
    max_file_size: u64,
) -> Vec<SpecFile> {
    crate::par::map(owners.len(), |i| {
        read_spec_file(&owners[i].0, before, max_file_size)
    })
}

fn read_spec_file(path: &Path, before: Option<&ReadBeforeMap>, max_file_size: u64) -> SpecFile {
    if let Some(vouched) = vouched(path, before) {
        return vouched;
    }
    let file = read_file(path, max_file_size);
    let facts = match &file {
        FileRead::Text(text, _) => Some(memo::TextFacts::of(text)),
        _ => None,
    };
    SpecFile::Read(file, facts)
}

/// A spec file `before` vouches for: recorded with a stamp that it still
/// had when [`check_stamps`] looked (not looked at again), and not blank (a
/// blank file is read, to be reported).
fn vouched(path: &Path, before: Option<&ReadBeforeMap>) -> Option<SpecFile> {
    let read = before?.get(path.as_os_str())?;
    let stamp = read.stamp.filter(|_| !read.text.blank)?;
    Some(SpecFile::Vouched(stamp, read.text))
}

/// Whether a file's stamp may vouch for it later: it was last changed
/// [`SETTLED`] before now. A file changed just before it was read might be
/// changed again within the same tick of a coarse clock (a second, on some
/// file systems), keeping its size: its stamp would then lie. Such a file is
/// read again by the next run instead.
fn settled(stamp: &crate::source::FileStamp) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    stamp.modified >= 0 && now - stamp.modified >= SETTLED.as_nanos() as i128
}

/// How long ago a file must have changed for its stamp to vouch for it.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

/// Reads the file at `path` (touching nothing shared: it may run on any
/// thread), for [`read_text`] to take.
fn read_file(path: &Path, max_file_size: u64) -> FileRead {
    use std::io::Read as _;
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
fn read_text(
    db: &mut SourceDb,
    path: &Path,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let read = read_file(path, options.max_file_size);
    take_text(db, path, read, options, diags).map(|(text, _)| text)
}

/// The text of a file [`read_file`] read and its stamp then, or `None`
/// with the reason reported.
fn take_text(
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
fn read_and_parse(
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
fn read_source(
    db: &mut SourceDb,
    path: &Path,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, bool)> {
    add_source(
        db,
        path,
        read_file(path, options.max_file_size),
        options,
        diags,
    )
}

/// [`read_source`] of a file [`read_file`] read.
fn add_source(
    db: &mut SourceDb,
    path: &Path,
    read: FileRead,
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, bool)> {
    let (text, stamp) = take_text(db, path, read, options, diags)?;
    let blank = memo::is_blank(&text);
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
fn parse_source(
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

/// For unit tests: `specs` (MCP tool JSON, each written as `tool_<i>.json`)
/// loaded from a fresh temporary directory (`tag` names it), which is removed.
#[cfg(test)]
pub(crate) fn load_json_specs(tag: &str, specs: &[serde_json::Value]) -> Loaded {
    let dir = std::env::temp_dir().join(format!("toolgen-{tag}-{}", std::process::id()));
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
    use super::*;

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
        assert!(matches!(read_file(&file, 100), FileRead::Text(t, None) if t == "{}"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A spec the last run read, whose stamp still holds, is not read: its
    /// tool comes from the cache by the facts recorded, the same tool. One
    /// whose stamp no longer holds, or that the cache has no tool for, is
    /// read (the latter when its tool is asked for).
    #[test]
    fn a_spec_vouched_for_by_the_last_run_is_not_read() {
        let dir = std::env::temp_dir().join(format!("toolgen-unread-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = dir.join("a.json");
        let text =
            r#"{"name": "a_tool", "description": "A tool.", "inputSchema": {"type": "object"}}"#;
        // Changed long enough ago for its stamp to vouch for it.
        let made = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&spec, text))
            .and_then(|()| std::fs::File::options().write(true).open(&spec))
            .and_then(|f| {
                f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
            });
        assert!(made.is_ok(), "{made:?}");
        let cache = crate::digest::MemoryCache::default();
        let options = LoadOptions::default();
        let roots = [dir.clone()];
        let load = |before: Option<&ReadBeforeMap>, cache: &crate::digest::MemoryCache| {
            Discovered::new(&roots, &options).load_cached(Some(cache), before)
        };
        let (first, _) = load(None, &cache);
        assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
        let (id, file) = first.db.files().next().unwrap_or_else(|| panic!("no file"));
        assert!(file.is_read());
        let facts = first.texts.get(&id).copied();
        assert_eq!(facts, Some(memo::TextFacts::of(text)));
        let recorded = |stamp| -> ReadBeforeMap {
            let text = facts.unwrap_or_else(|| memo::TextFacts::of(""));
            [(spec.clone().into_os_string(), ReadBefore { text, stamp })]
                .into_iter()
                .collect()
        };
        assert!(file.stamp.is_some(), "settled, so stamped");
        let mut before = recorded(file.stamp);
        check_stamps(&mut before);
        assert_eq!(before, recorded(file.stamp), "its stamp holds");
        let (second, _) = load(Some(&before), &cache);
        let unread = second.db.files().next().map(|(_, f)| f.is_read());
        assert_eq!(unread, Some(false), "vouched for: not read");
        assert_eq!(second.project, first.project, "the same tool");
        assert_eq!(second.texts, first.texts, "its facts carried over");
        // Its text is still there for whoever asks.
        assert_eq!(second.db.files().next().map(|(_, f)| f.text()), Some(text));
        // A stamp that no longer holds: forgotten by the check, so read.
        let mut stale = recorded(file.stamp.map(|s| crate::source::FileStamp {
            len: s.len + 1,
            ..s
        }));
        check_stamps(&mut stale);
        assert_eq!(stale.get(spec.as_os_str()).map(|r| r.stamp), Some(None));
        let (third, _) = load(Some(&stale), &cache);
        assert_eq!(
            third.db.files().next().map(|(_, f)| f.is_read()),
            Some(true)
        );
        // Vouched for, but the cache has lost its tool: read after all.
        let (fourth, _) = load(Some(&before), &crate::digest::MemoryCache::default());
        assert_eq!(fourth.project, first.project);
        assert_eq!(
            fourth.db.files().next().map(|(_, f)| f.is_read()),
            Some(true)
        );
        // Vouched for by its stamp, yet holding another text than the one
        // recorded (changed between the check and the read): its tool is
        // read from what it holds and not kept under the recorded key.
        let other = memo::TextFacts::of("{}");
        let lying: ReadBeforeMap = [(
            spec.clone().into_os_string(),
            ReadBefore {
                text: other,
                stamp: file.stamp,
            },
        )]
        .into_iter()
        .collect();
        let empty = crate::digest::MemoryCache::default();
        let (fifth, _) = load(Some(&lying), &empty);
        assert_eq!(fifth.project, first.project);
        let key = memo::key(&spec, other, None, None, false);
        let kept = key.map(|k| empty.pieces.lock().is_ok_and(|p| p.contains_key(&k)));
        assert_eq!(kept, Some(false), "not kept under the recorded key");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
