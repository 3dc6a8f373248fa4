//! The builder API: what the CLI, the xtask and `build.rs` scripts call.
//!
//! From a `build.rs` (with `toolgen-runtime` a dependency of the package and
//! toolgen a build-dependency without default features):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), toolgen::BuildError> {
//!     toolgen::Generator::new().input("tools").rust().compile()
//! }
//! ```
//!
//! and in the package, `toolgen_runtime::include_tools!();`. Elsewhere:
//!
//! ```no_run
//! let done = toolgen::Generator::new()
//!     .input("tool-specs")
//!     .out_dir("generated")
//!     .generate();
//! ```

mod build;
mod compare;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cache::keys::{Keys, PieceCache};
use crate::cache::{Cache, RunStamp};
use crate::diag::{HumanRenderer, LintLevel, Severity};
use crate::digest::Digest;
use crate::emit::{self, GeneratedFiles, RustLayout};
use crate::files::FileSink;
use crate::ir::{Format, OutputKind, Project, RuntimeSource};
use crate::load::{self, LoadOptions, Loaded};
use crate::output::{self, CheckReport, OutputError, Prune, Recorded, WriteReport};
use crate::progress::Progress;
use crate::templates::RunTemplates;

/// Configures and runs one generation.
#[derive(Clone, Debug, Default)]
pub struct Generator {
    inputs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    options: LoadOptions,
    deny_warnings: bool,
    prune: Prune,
    emit: emit::EmitOptions,
    cache_dir: Option<PathBuf>,
}

/// Why a generation did not produce output.
#[derive(Debug)]
pub enum GenerateError {
    /// The specs have errors (or warnings, with `deny_warnings`); nothing was written.
    Invalid(Box<Loaded>),
    /// Writing or reading the output directory failed.
    Output(OutputError),
    /// No output directory was configured.
    NoOutDir,
    /// What was asked cannot be done (converting into a format toolgen does
    /// not write, say).
    Unsupported(String),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::Invalid(loaded) => {
                let r = HumanRenderer {
                    db: &loaded.db,
                    color: false,
                };
                for d in loaded.diagnostics.iter() {
                    write!(f, "{}", r.render(d))?;
                }
                write!(
                    f,
                    "toolgen: {} error(s), {} warning(s); nothing was generated",
                    loaded.diagnostics.count(Severity::Error),
                    loaded.diagnostics.count(Severity::Warning)
                )
            }
            GenerateError::Output(e) => write!(f, "toolgen: cannot write output: {e}"),
            GenerateError::NoOutDir => write!(f, "toolgen: no output directory configured"),
            GenerateError::Unsupported(m) => write!(f, "toolgen: {m}"),
        }
    }
}

impl std::error::Error for GenerateError {}

/// Why [`Generator::compile`] failed. Its `Debug` form is its message, so a
/// build script's `fn main() -> Result<(), toolgen::BuildError>` ends with a
/// readable line, not a struct dump; the located diagnostics were printed
/// before it.
pub enum BuildError {
    /// The specs have errors (printed above, and as `cargo::error=` lines).
    Invalid { errors: usize, warnings: usize },
    /// The package's `toolgen-runtime` is missing or of a version the
    /// generated code cannot use.
    Runtime(String),
    /// The output could not be written, or the build script is not set up
    /// (no `OUT_DIR`).
    Setup(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Invalid { errors, warnings } => write!(
                f,
                "toolgen: the tool specs have {errors} error(s) and {warnings} warning(s) (shown above); nothing was generated"
            ),
            BuildError::Runtime(m) | BuildError::Setup(m) => write!(f, "toolgen: {m}"),
        }
    }
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

/// What a successful generation did.
#[derive(Debug)]
pub struct Generated {
    /// What was read. `None` when the cache showed that neither the inputs
    /// nor the output changed since the last clean run (with the same
    /// configuration): then nothing was parsed, rendered or written.
    pub loaded: Option<Loaded>,
    /// What was generated (`None` when nothing was, as for `loaded`).
    pub files: Option<GeneratedFiles>,
    pub summary: Summary,
    pub report: WriteReport,
    pub timings: Timings,
}

/// How much a generation covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub tools: usize,
    pub tool_sets: usize,
    pub warnings: usize,
}

impl Summary {
    pub fn of(loaded: &Loaded) -> Summary {
        Summary {
            tools: loaded.project.tool_count(),
            tool_sets: loaded.project.tool_sets.len(),
            warnings: loaded.diagnostics.count(Severity::Warning),
        }
    }
}

/// Wall time of each phase of a generation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// Reading, parsing and validating the specs.
    pub load: Duration,
    /// Running the emitters (in memory).
    pub render: Duration,
    /// Comparing with and writing to the output directory.
    pub write: Duration,
}

impl Generator {
    pub fn new() -> Generator {
        Generator::default()
    }

    /// Adds a spec file or a directory of spec files.
    pub fn input(mut self, path: impl Into<PathBuf>) -> Self {
        self.inputs.push(path.into());
        self
    }

    pub fn inputs<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.inputs.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Where the output goes (below an input is fine: it is never read as specs).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Reads every spec as `format` instead of detecting it.
    pub fn format(mut self, format: Option<Format>) -> Self {
        self.options.format = format;
        self
    }

    /// Keeps only tools in these groups (see [`crate::load::group_filters`]).
    pub fn groups(mut self, groups: Vec<regex::Regex>) -> Self {
        self.options.groups = groups;
        self
    }

    /// Checks every tool set against what these clients accept (over the
    /// manifests' `clients`; see docs/clients.md).
    pub fn clients(mut self, clients: Vec<crate::ir::Client>) -> Self {
        self.options.clients = clients;
        self
    }

    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.options.max_file_size = bytes;
        self
    }

    /// The manifest (`toolset.yaml`) every input belongs to, wherever it is:
    /// for spec folders that cannot hold one. Without inputs, the manifest's
    /// `specs` (or its directory) are read.
    pub fn manifest(mut self, path: impl Into<PathBuf>) -> Self {
        self.options.manifest = Some(path.into());
        self
    }

    /// Sets a rule (by code, `TG0603`, or name, `float-for-integer`) to a
    /// level for this run, over what the manifests say. An unknown rule, or
    /// an error rule set below `deny`, is reported when the specs are loaded.
    pub fn lint(mut self, rule: impl Into<String>, level: LintLevel) -> Self {
        self.options.lints.push((rule.into(), level));
        self
    }

    /// Treats warnings as errors.
    pub fn deny_warnings(mut self, yes: bool) -> Self {
        self.deny_warnings = yes;
        self
    }

    /// Which existing files in the output directory may be removed.
    pub fn prune(mut self, prune: Prune) -> Self {
        self.prune = prune;
        self
    }

    /// Asks for output `kind`. With none asked for, [`Generator::generate`]
    /// writes every output and [`Generator::compile`] the Rust module; either
    /// way a tool set's manifest may leave outputs out (`outputs:`).
    pub fn output(mut self, kind: OutputKind) -> Self {
        if !self.emit.outputs.contains(&kind) {
            self.emit.outputs.push(kind);
            self.emit.outputs.sort();
        }
        self
    }

    /// Asks for the Rust types, trait and dispatch.
    pub fn rust(self) -> Self {
        self.output(OutputKind::Rust)
    }

    /// Asks for the JSON catalog (`catalog/`).
    pub fn catalog(self) -> Self {
        self.output(OutputKind::Catalog)
    }

    /// Asks for the C# bridge for the Unity Editor (`csharp/`).
    pub fn csharp(self) -> Self {
        self.output(OutputKind::CSharp)
    }

    /// Asks for the mdBook source of the docs site (`docs/`).
    pub fn docs(self) -> Self {
        self.output(OutputKind::Docs)
    }

    /// Asks for the R worker of tool sets implemented in R (`r/`).
    pub fn r(self) -> Self {
        self.output(OutputKind::R)
    }

    /// How the Rust output is laid out (a crate under `rust/`, or the one
    /// `tools.rs` a build script writes).
    pub fn rust_layout(mut self, layout: RustLayout) -> Self {
        self.emit.rust_layout = layout;
        self
    }

    /// Where the generated crate gets `toolgen-runtime` from, over the
    /// manifests' `runtime` (default: bundled beside the crate).
    pub fn runtime(mut self, source: RuntimeSource) -> Self {
        self.emit.runtime = Some(source);
        self
    }

    /// The generated crate depends on the runtime at `path` (as the generated
    /// `Cargo.toml` sees it): `runtime(RuntimeSource::Path(..))`.
    pub fn rust_runtime_path(self, path: &str) -> Self {
        self.runtime(RuntimeSource::Path(path.to_owned()))
    }

    /// Whether the C# bridge package (`com.toolgen.bridge`) is written beside
    /// the generated one (`csharp-bridge/`, the default) or installed already.
    pub fn csharp_bridge(mut self, bridge: emit::csharp_bridge::CsharpBridge) -> Self {
        self.emit.csharp_bridge = bridge;
        self
    }

    /// A directory whose files override the built-in templates of the same
    /// relative name (`csharp/tool.cs.jinja`, ...).
    pub fn templates(mut self, dir: impl Into<PathBuf>) -> Self {
        self.emit.templates = Some(dir.into());
        self
    }

    /// The command that regenerates the output, named in the headers of
    /// generated files (default `toolgen gen`).
    pub fn regenerate_command(mut self, command: impl Into<String>) -> Self {
        self.emit.regenerate = command.into();
        self
    }

    /// Keeps what runs render in `dir` (the generation cache): a tool whose
    /// spec did not change is not rendered again, and a run whose inputs and
    /// output did not change is skipped. `None` (the default for the
    /// library): no cache. The CLI uses [`crate::cache::default_dir`].
    pub fn cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = dir;
        self
    }

    /// Reports progress of long runs (see [`Progress`]).
    pub fn progress(mut self, progress: Progress) -> Self {
        self.options.progress = progress.clone();
        self.emit.progress = progress;
        self
    }

    /// Reads and validates the inputs (never the output directory, should it
    /// be below an input).
    pub fn load(&self) -> Loaded {
        load::load(&self.inputs, &self.load_options())
    }

    fn load_options(&self) -> LoadOptions {
        let mut options = self.options.clone();
        if let Some(out) = &self.out_dir {
            options
                .exclude
                .push(std::path::absolute(out).unwrap_or_else(|_| out.clone()));
        }
        options
    }

    /// The digest of everything that configures a run into `out` (not the
    /// progress callback): a cached run is reused only under the same one.
    fn config_digest(&self, out: &Path) -> crate::digest::Digest {
        let mut g = self.clone();
        g.options.progress = Progress::default();
        g.emit.progress = Progress::default();
        g.cache_dir = None;
        crate::digest::Hasher::new()
            .debug(&std::env::current_dir().ok())
            .debug(&std::path::absolute(out).ok())
            .debug(&g)
            .finish()
    }

    /// Whether `loaded` may be generated from under this configuration.
    pub fn accepts(&self, loaded: &Loaded) -> bool {
        let warnings_fail = self.deny_warnings && loaded.diagnostics.count(Severity::Warning) > 0;
        !loaded.diagnostics.has_errors() && !warnings_fail
    }

    /// Runs every emitter over a project (with the default configuration).
    pub fn render(project: &Project) -> GeneratedFiles {
        Generator::new().render_checked(project).0
    }

    /// Runs the emitters of the outputs asked for over a project, each over
    /// the tool sets whose manifests want its output; returns the files and
    /// the problems the emitters found.
    pub fn render_checked(
        &self,
        project: &Project,
    ) -> (GeneratedFiles, Vec<crate::diag::Diagnostic>) {
        self.render_cached(project, None, None)
    }

    /// [`Generator::render_checked`], taking pieces rendered before from
    /// `cache`, handing each file to `sink` as it is made.
    fn render_cached(
        &self,
        project: &Project,
        cache: Option<(&dyn PieceCache, &Keys)>,
        sink: Option<Arc<dyn FileSink>>,
    ) -> (GeneratedFiles, Vec<crate::diag::Diagnostic>) {
        let mut files = match sink {
            Some(sink) => GeneratedFiles::passing_to(sink),
            None => GeneratedFiles::new(),
        };
        let mut diags = Vec::new();
        let emitters: Vec<_> = emit::all()
            .into_iter()
            .filter(|(kind, _)| self.emit.asks_for(*kind))
            .filter_map(|(kind, e)| emit::project_for(project, kind).map(|part| (e, part)))
            .collect();
        // The templates, loaded once for every emitter that renders them.
        let templates = if emitters.iter().any(|(e, _)| e.renders_templates()) {
            match RunTemplates::load(
                self.emit.templates.as_deref(),
                &emit::one_line(&self.emit.regenerate),
                project,
                &mut diags,
            ) {
                Some(t) => Some(t),
                None => return (files, diags),
            }
        } else {
            None
        };
        let catalogs = emit::context::Catalogs::default();
        let cx = emit::EmitContext {
            options: &self.emit,
            templates: templates.as_ref(),
            memory: cache,
            catalogs: &catalogs,
        };
        let total = emitters.len();
        self.emit.progress.report("generating", 0, total);
        // Each emitter on a thread of its own; their files and problems are
        // merged in emitter order, so the result does not depend on timing.
        let results: Vec<(GeneratedFiles, Vec<crate::diag::Diagnostic>)> =
            std::thread::scope(|scope| {
                let cx = &cx;
                let running: Vec<_> = emitters
                    .iter()
                    .map(|(emitter, part)| {
                        let mut files = files.sibling();
                        scope.spawn(move || {
                            let mut diags = Vec::new();
                            emitter.emit(
                                cx,
                                part,
                                &mut emit::Output {
                                    files: &mut files,
                                    diags: &mut diags,
                                },
                            );
                            (files, diags)
                        })
                    })
                    .collect();
                running
                    .into_iter()
                    .map(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
        for (f, d) in results {
            files.append(f);
            diags.extend(d);
        }
        self.emit.progress.report("generating", total, total);
        (files, diags)
    }

    /// Renders `loaded`, when it is free of errors, into the output
    /// directory: each file as it is made ([`output::Streamed`], opened only
    /// then), the rest when rendering is done; `known` vouches for files of
    /// the last run.
    fn render_into(
        &self,
        out: &Path,
        known: Recorded,
        timings: &mut Timings,
        loaded: Loaded,
        cache: Option<(&dyn PieceCache, &Keys)>,
    ) -> Result<(Generated, Arc<output::Streamed>), GenerateError> {
        if !self.accepts(&loaded) {
            return Err(GenerateError::Invalid(Box::new(loaded)));
        }
        let stream = Arc::new(output::Streamed::open(out, known).map_err(GenerateError::Output)?);
        let sink = stream.clone() as Arc<dyn FileSink>;
        let (loaded, files) = self.render_valid(loaded, timings, cache, Some(sink))?;
        let done = write_out(loaded, files, &stream, self.prune, *timings)?;
        Ok((done, stream))
    }

    /// Renders `loaded` when it is free of errors, handing each file to
    /// `sink` (or holding it).
    fn render_valid(
        &self,
        loaded: Loaded,
        timings: &mut Timings,
        cache: Option<(&dyn PieceCache, &Keys)>,
        sink: Option<Arc<dyn FileSink>>,
    ) -> Result<(Loaded, GeneratedFiles), GenerateError> {
        if !self.accepts(&loaded) {
            return Err(GenerateError::Invalid(Box::new(loaded)));
        }
        let started = Instant::now();
        let (files, problems) = self.render_cached(&loaded.project, cache, sink);
        if !problems.is_empty() {
            let mut loaded = loaded;
            for d in problems {
                loaded.diagnostics.push(d);
            }
            loaded.diagnostics.sort(&loaded.db);
            return Err(GenerateError::Invalid(Box::new(loaded)));
        }
        timings.render = started.elapsed();
        Ok((loaded, files))
    }

    /// Loads, validates, generates and writes. Nothing is written when the
    /// specs have errors.
    pub fn generate(&self) -> Result<Generated, GenerateError> {
        let Some(dir) = &self.cache_dir else {
            let out = self.out_dir.as_deref().ok_or(GenerateError::NoOutDir)?;
            let mut timings = Timings::default();
            let started = Instant::now();
            let loaded = self.load();
            timings.load = started.elapsed();
            return self
                .render_into(out, Recorded::default(), &mut timings, loaded, None)
                .map(|(done, _)| done);
        };
        let out = self.out_dir.as_deref().ok_or(GenerateError::NoOutDir)?;
        let cache = Cache::open(dir);
        let config = self.config_digest(out);
        let mut timings = Timings::default();
        let started = Instant::now();
        // What discovery finds, once: the stamp is checked against it, and a
        // new stamp records it (taken before loading: a file added meanwhile
        // makes the next run's listing differ, never wrongly the same). The
        // last run's stamp is read meanwhile, on another thread: each is a
        // few milliseconds of one core when one spec of a thousand changed.
        let options = self.load_options();
        let (mut previous, discovered) = std::thread::scope(|scope| {
            let previous = scope.spawn(|| {
                let stamp = cache.stamp(config);
                // The packs' indexes (half a megabyte for 1,000 tools), read
                // while the specs are found and loaded. When the stamp holds
                // they are not needed: a millisecond of this core, waited
                // for only when finding the specs took less.
                cache.read_indexes();
                stamp
            });
            let discovered = load::Discovered::new(&self.inputs, &options);
            let previous = previous
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (previous, discovered)
        });
        let found = discovered.inputs().files;
        if let Some(stamp) = &mut previous {
            // A journal left by a stopped run is finished, never skipped.
            if stamp.holds(out, &found) && !out.join(output::JOURNAL).exists() {
                timings.load = started.elapsed();
                return Ok(Generated {
                    loaded: None,
                    files: None,
                    summary: Summary {
                        tools: stamp.tools,
                        tool_sets: stamp.tool_sets,
                        warnings: 0,
                    },
                    report: WriteReport {
                        unchanged: stamp.outputs.len(),
                        ..WriteReport::default()
                    },
                    timings,
                });
            }
        }
        let (loaded, keys) = discovered.load_cached(Some(&cache));
        timings.load = started.elapsed();
        // What the run reads, taken before rendering: a file changed from
        // here on makes the stamp stale, never wrongly fresh.
        let mut stamp = self.stamp_of(&cache, config, &loaded, found);
        let cached = keys.as_ref().map(|k| (&cache as &dyn PieceCache, k));
        let known = previous.map(RunStamp::into_outputs).unwrap_or_default();
        let done = self.render_into(out, known, &mut timings, loaded, cached);
        cache.flush();
        let (done, stream) = match done {
            Ok(done) => done,
            Err(e) => {
                cache.drop_stamp(config);
                return Err(e);
            }
        };
        let recorded = match (&mut stamp, &done.files) {
            (Some(s), Some(files)) => s.record_outputs(out, files, &stream.take_digests()),
            _ => false,
        };
        match stamp {
            Some(s) if recorded => cache.keep_stamp(&s),
            _ => cache.drop_stamp(config),
        }
        Ok(done)
    }

    /// A digest of what a run reads, by sizes and times, not contents: the
    /// files [`load::inputs`] finds and the template directories (the
    /// command line's and the manifests'). `toolgen watch` generates again
    /// when it changes.
    pub fn watch_fingerprint(&self) -> Digest {
        let found = load::inputs(&self.inputs, &self.load_options());
        let mut h = crate::digest::Hasher::new();
        for f in &found.files {
            h.debug(f).debug(&output::FileStamp::read(f));
        }
        for dir in found
            .template_dirs
            .iter()
            .chain(self.emit.templates.as_ref())
        {
            h.debug(dir).digest(crate::cache::tree_stamp(dir));
        }
        h.finish()
    }

    /// The stamp of a run that read `loaded` (see [`crate::cache::RunStamp`]);
    /// `None` when the run is not one to skip next time: it has diagnostics,
    /// or the inputs `found` before it loaded are not all files it read.
    fn stamp_of(
        &self,
        cache: &Cache,
        config: Digest,
        loaded: &Loaded,
        found: Vec<PathBuf>,
    ) -> Option<RunStamp> {
        if !loaded.diagnostics.is_empty() {
            return None;
        }
        // Every file the run read: specs, manifests, schema documents.
        let inputs: crate::cache::ReadBeforeMap = loaded
            .db
            .files()
            .map(|(_, f)| {
                (
                    f.path.clone().into_os_string(),
                    crate::cache::ReadBefore {
                        digest: Digest::of(f.text().as_bytes()),
                        stamp: f.stamp,
                    },
                )
            })
            .collect();
        // By the paths' bytes (both lists come from the one discovery).
        if !found.iter().all(|f| inputs.contains_key(f.as_os_str())) {
            return None;
        }
        let templates = loaded
            .project
            .tool_sets
            .iter()
            .filter_map(|s| s.templates.as_ref().map(|t| t.value.clone()))
            .chain(self.emit.templates.clone())
            .map(|dir| {
                let d = crate::cache::tree_digest(&dir);
                (dir, d)
            })
            .collect();
        Some(RunStamp {
            identity: cache.identity(),
            config,
            inputs,
            found,
            templates,
            outputs: output::Recorded::default(),
            dirs: BTreeMap::new(),
            tools: loaded.project.tool_count(),
            tool_sets: loaded.project.tool_sets.len(),
        })
    }

    /// Like [`Generator::generate`], but only compares with the output directory.
    pub fn check(&self) -> Result<(Loaded, CheckReport), GenerateError> {
        let out = self.out_dir.as_deref().ok_or(GenerateError::NoOutDir)?;
        let (loaded, files) =
            self.render_valid(self.load(), &mut Timings::default(), None, None)?;
        let report = output::check(out, &files, self.prune).map_err(GenerateError::Output)?;
        Ok((loaded, report))
    }
}

/// Finishes writing the files `stream` took while they were rendered
/// (timing it) and reports what was done.
fn write_out(
    loaded: Loaded,
    files: GeneratedFiles,
    stream: &output::Streamed,
    prune: Prune,
    mut timings: Timings,
) -> Result<Generated, GenerateError> {
    let started = Instant::now();
    let report = stream
        .finish(&files, prune)
        .map_err(GenerateError::Output)?;
    let files = files.detached();
    timings.write = started.elapsed();
    Ok(Generated {
        summary: Summary::of(&loaded),
        loaded: Some(loaded),
        files: Some(files),
        report,
        timings,
    })
}

#[cfg(test)]
mod tests {
    use super::build::runtime_matches;
    use super::*;

    #[test]
    fn the_runtime_must_be_there_and_of_a_matching_version() {
        let ours = emit::runtime_crate::VERSION;
        assert!(runtime_matches(Some(ours)).is_ok());
        let missing = runtime_matches(None).err().unwrap_or_default();
        assert!(missing.contains("[dependencies]"), "{missing}");
        let old = runtime_matches(Some("0.0.1")).err().unwrap_or_default();
        assert!(
            old.contains("toolgen-runtime 0.0.1") && old.contains(&format!("toolgen {ours}")),
            "both versions are named: {old}"
        );
    }
}
