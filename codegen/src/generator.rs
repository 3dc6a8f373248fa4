//! The builder API: what the CLI, the xtask and `build.rs` scripts call.
//!
//! ```no_run
//! // build.rs
//! toolgen::Generator::new()
//!     .input("tool-specs")
//!     .out_dir(std::env::var("OUT_DIR").unwrap_or_default())
//!     .generate()
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::diag::{HumanRenderer, Severity};
use crate::emit::{self, GeneratedFiles};
use crate::ir::{Format, Project};
use crate::load::{self, LoadOptions, Loaded};
use crate::output::{self, CheckReport, OutputError, Prune, WriteReport};

/// Configures and runs one generation.
#[derive(Clone, Debug, Default)]
pub struct Generator {
    inputs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    options: LoadOptions,
    deny_warnings: bool,
    prune: Prune,
    emit: emit::EmitOptions,
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
        }
    }
}

impl std::error::Error for GenerateError {}

/// What a successful generation did.
#[derive(Debug)]
pub struct Generated {
    pub loaded: Loaded,
    pub files: GeneratedFiles,
    pub report: WriteReport,
    pub timings: Timings,
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

    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.options.max_file_size = bytes;
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

    /// Reads and validates the inputs.
    pub fn load(&self) -> Loaded {
        load::load(&self.inputs, &self.options)
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

    /// Runs every emitter over a project; returns the files and the problems
    /// the emitters found.
    pub fn render_checked(
        &self,
        project: &Project,
    ) -> (GeneratedFiles, Vec<crate::diag::Diagnostic>) {
        let mut files = GeneratedFiles::new();
        let mut diags = Vec::new();
        // (Emitters that share templates load them once, through one
        // `TemplateSource`, so a broken one is reported once.)
        for emitter in emit::all(&self.emit) {
            emitter.emit(project, &mut files, &mut diags);
        }
        (files, diags)
    }

    /// The `toolgen-runtime = ...` dependency line of the generated Rust crate
    /// (default: the crates.io release).
    pub fn rust_runtime_dependency(mut self, line: impl Into<String>) -> Self {
        self.emit.rust_runtime_dependency = Some(line.into());
        self
    }

    /// The generated Rust crate depends on the runtime at `path` (as the
    /// generated `Cargo.toml` sees it) instead of the crates.io release.
    pub fn rust_runtime_path(self, path: &str) -> Self {
        self.rust_runtime_dependency(format!("toolgen-runtime = {{ path = {path:?} }}"))
    }

    /// A directory whose files override the built-in templates of the same
    /// relative name (`csharp/tool.cs.jinja`, ...).
    pub fn templates(mut self, dir: impl Into<PathBuf>) -> Self {
        self.emit.templates = Some(dir.into());
        self
    }

    fn loaded_valid(
        &self,
        timings: &mut Timings,
    ) -> Result<(Loaded, GeneratedFiles, &Path), GenerateError> {
        let out = self.out_dir.as_deref().ok_or(GenerateError::NoOutDir)?;
        let started = Instant::now();
        let loaded = self.load();
        timings.load = started.elapsed();
        if !self.accepts(&loaded) {
            return Err(GenerateError::Invalid(Box::new(loaded)));
        }
        let started = Instant::now();
        let (files, problems) = self.render_checked(&loaded.project);
        if !problems.is_empty() {
            let mut loaded = loaded;
            for d in problems {
                loaded.diagnostics.push(d);
            }
            loaded.diagnostics.sort(&loaded.db);
            return Err(GenerateError::Invalid(Box::new(loaded)));
        }
        timings.render = started.elapsed();
        Ok((loaded, files, out))
    }

    /// Loads, validates, generates and writes. Nothing is written when the
    /// specs have errors.
    pub fn generate(&self) -> Result<Generated, GenerateError> {
        let mut timings = Timings::default();
        let (loaded, files, out) = self.loaded_valid(&mut timings)?;
        let started = Instant::now();
        let report = output::write(out, &files, self.prune).map_err(GenerateError::Output)?;
        timings.write = started.elapsed();
        Ok(Generated {
            loaded,
            files,
            report,
            timings,
        })
    }

    /// Like [`Generator::generate`], but only compares with the output directory.
    pub fn check(&self) -> Result<(Loaded, CheckReport), GenerateError> {
        let (loaded, files, out) = self.loaded_valid(&mut Timings::default())?;
        let report = output::check(out, &files, self.prune).map_err(GenerateError::Output)?;
        Ok((loaded, report))
    }
}
